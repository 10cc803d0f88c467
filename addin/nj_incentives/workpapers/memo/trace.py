"""Which NJ_* results stand behind a figure: a cell's formula followed, reference by
reference, back to the NJ_* formula cells it reads (:func:`behind`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from nj_incentives.core.cells import range_bounds
from nj_incentives.workpapers.recalc.engine import Address, Recalculation, split_reference

#: The most formula cells one trace visits (a bound on the work for any workbook).
MAX_VISITS = 1 << 16  # 65,536


def _references(formula: str) -> list[str]:
    """The reference texts of a formula (cells, ranges, names), read by the tokenizer."""
    from openpyxl.formula.tokenizer import Tokenizer, TokenizerError

    text = formula if formula.startswith("=") else "=" + formula
    text = "=" + text[1:].strip().removeprefix("{").removesuffix("}").lstrip("=")
    try:
        tokens = Tokenizer(text).items
    except TokenizerError:
        return []
    return [t.value for t in tokens if t.type == "OPERAND" and t.subtype == "RANGE"]


class _Cells:
    """The workbook's formula cells by sheet, to find those within a range."""

    def __init__(self, recalc: Recalculation, names: Mapping[str, str]) -> None:
        self.recalc = recalc
        self.names = names
        self.by_sheet: dict[str, list[tuple[int, int, int, int, Address]]] = {}
        for sheet, anchor in recalc.formulas:
            span = recalc.array_ranges.get((sheet, anchor), anchor)
            try:
                (r1, c1), (r2, c2) = range_bounds(span)
            except ValueError:
                continue
            self.by_sheet.setdefault(sheet, []).append((r1, c1, r2, c2, (sheet, anchor)))

    def formula_cells(self, reference: str, sheet: str, depth: int = 0) -> Iterable[Address]:
        """The formula cells (array anchors for spilled cells) that ``reference`` reads."""
        text = reference.strip()
        if "!" not in text:
            target = self.names.get(text.upper())
            if target is not None:
                if depth < 5:
                    yield from self.formula_cells(target.lstrip("="), sheet, depth + 1)
                return
            text = f"'{sheet}'!{text}"
        try:
            title, cells = split_reference(text, self.recalc.sheets)
        except ValueError:
            return
        cells = cells.replace("$", "").upper()
        spill = cells.endswith("#")
        cells = cells.rstrip("#")
        try:
            (r1, c1), (r2, c2) = range_bounds(cells)
        except ValueError:
            return
        for a1, b1, a2, b2, address in self.by_sheet.get(title, ()):
            overlaps = a1 <= r2 and r1 <= a2 and b1 <= c2 and c1 <= b2
            if overlaps or (spill and address[1] == cells):
                yield address


def formula_references(
    recalc: Recalculation, addresses: Iterable[Address], names: Mapping[str, str]
) -> list[Address]:
    """The formula cells that the formulas of ``addresses`` read (one step back)."""
    cells = _Cells(recalc, names)
    found: dict[Address, None] = {}
    for address in addresses:
        for reference in _references(recalc.formulas.get(address, "")):
            for cell in cells.formula_cells(reference, address[0]):
                found.setdefault(cell)
    return list(found)


def behind(
    recalc: Recalculation,
    figures: Iterable[Address],
    nj_cells: Collection[Address],
    names: Mapping[str, str],
) -> list[Address]:
    """The NJ_* formula cells (of ``nj_cells``) that the ``figures`` read, in the order
    first reached: each formula's references followed back until an NJ_* cell, which is
    kept and not followed further (its arguments are figures the schedules show)."""
    cells = _Cells(recalc, names)
    found: list[Address] = []
    seen: set[Address] = set()
    queue: list[Address] = []
    for figure in figures:
        for address in cells.formula_cells(f"'{figure[0]}'!{figure[1]}", figure[0]):
            if address not in seen:
                seen.add(address)
                queue.append(address)
    while queue and len(seen) <= MAX_VISITS:
        address = queue.pop(0)
        if address in nj_cells:
            found.append(address)
            continue
        formula = recalc.formulas.get(address, "")
        for reference in _references(formula):
            for cell in cells.formula_cells(reference, address[0]):
                if cell not in seen:
                    seen.add(cell)
                    queue.append(cell)
    return found
