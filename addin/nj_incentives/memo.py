"""The calculation memo: what a recalculated workbook computed, and why, for the workpapers.

The memo opens with a one-page summary: the engagement (client, entity id, tax period(s),
preparer, reviewer, date: the defined names ``EngagementClient`` ... ``EngagementDate`` of
each template's Inputs; blank where absent), each file with its template, master check and
SHA-256, the key figures (each workbook's Outputs, with the Form 313 part and line the
template writes beside them: :func:`where_on_form`), the version and the law it is
current to. Then, for each
workbook (a :class:`~nj_incentives.recalc.Recalculation`), on a new page:

- the file: its name and the SHA-256 of the bytes that were recalculated, the template
  and the version that built it, the engagement, the master check and every check (a
  label the Checks sheet repeats is told apart by what its formula checks);
- the inputs: the Inputs sheet's labelled values, as the workbook formats them;
- the outputs: the Outputs sheet's labelled values;
- every NJ_* formula cell with the function's result and the steps behind it, each step
  with its arithmetic and citation. The steps are the core's own: each NJ_* call's
  arguments are read back from the recalculated workbook (literals, cells, ranges and
  defined names, the values the engine passed) and given to
  ``excel.CATALOG[name].result``. A call whose result is not what its cell shows (the
  other branch of an ``IF``) is listed as not used; three or more single-cell results of
  one function in a row are one table; a schedule of nothing but 0.00 is one line;
- the interpretations of the law the functions applied, quoted from
  ``docs/interpretations.md`` (a copy ships in the package, so an installed copy quotes
  them too), rendered (bold, lists, code), not shown as raw Markdown.

One document (the blocks below), three formats: Markdown and HTML from the Jinja2
templates in ``nj_incentives/memo_templates``, and a paginated PDF drawn from the same
blocks with fpdf2 (pure Python: a plain ``pip install`` on Windows, macOS and Linux; see
docs/install.md): US Letter, the engagement and the title on every page, "Page x of y",
the version, date, preparer and reviewer in the footer (each workbook's pages its own;
the summary and the interpretations every workbook's), table headers repeated on each
page; the HTML's print CSS does the same with ``@page`` margin boxes, one named page per
engagement (:meth:`Memo.sections`). A table wider than :data:`MAX_COLUMNS` (the
40-column hours of Form 313 Part II) is shown in parts that repeat its label columns:
wrapped, never cut.

Everything taken from a workbook is escaped: in HTML by ``html.escape``, in Markdown by
entity-escaping ``& < >`` and backslash-escaping the characters Markdown would act on, so
a cell's text can neither run as markup nor break a table; the PDF draws text, never
markup.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import importlib.resources
import io
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, ClassVar, TypeAlias

from nj_incentives.catalog import EXPLAIN_COLUMNS, headers
from nj_incentives.cells import cell_index, cell_name
from nj_incentives.formula import FunctionCall, function_calls
from nj_incentives.recalc.engine import (
    CellValue,
    ExcelError,
    Recalculation,
    quote_sheet,
)
from nj_incentives.spelling import base_name
from nj_incentives.version import LAW_CURRENT_TO, __version__

__all__ = [
    "ENGAGEMENT_FIELDS",
    "INTERPRETATIONS",
    "MAX_COLUMNS",
    "Block",
    "Memo",
    "WorkbookFacts",
    "build_memo",
    "engagement",
    "interpretations_text",
    "nj_results",
    "render",
    "sha256",
    "to_pdf",
    "where_on_form",
    "with_unit",
    "wrapped",
    "write_memo",
]

# =========================================================================== the document


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    #: the engagement this section is about (the running header from here on)
    running: str | None = None
    #: the footer's left part from here on: version, date, preparer and reviewer
    footer: str | None = None
    kind: ClassVar[str] = "heading"


@dataclass(frozen=True)
class Paragraph:
    text: str
    strong: bool = False
    kind: ClassVar[str] = "paragraph"


@dataclass(frozen=True)
class Code:
    """A formula, shown verbatim."""

    text: str
    label: str = ""
    kind: ClassVar[str] = "code"


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    #: "part 2 of 4: columns ..." when a wide table is shown in parts
    caption: str = ""
    kind: ClassVar[str] = "table"


@dataclass(frozen=True)
class Items:
    items: tuple[str, ...]
    kind: ClassVar[str] = "items"


@dataclass(frozen=True)
class Quote:
    """Text quoted from docs/interpretations.md (its own Markdown lines)."""

    lines: tuple[str, ...]
    kind: ClassVar[str] = "quote"

    def items(self) -> list[tuple[bool, list[tuple[str, str]]]]:
        """The quoted Markdown as (bullet?, [(text, style)]) items, style "" / "b" /
        "code": list items (continuation lines joined) and paragraphs."""
        found: list[tuple[bool, list[str]]] = []
        for line in self.lines:
            stripped = line.strip()
            if not stripped:
                found.append((False, []))
                continue
            if stripped.startswith(("- ", "* ")):
                found.append((True, [stripped[2:]]))
            elif found and found[-1][1]:
                found[-1][1].append(stripped)
            else:
                found.append((False, [stripped]))
        return [(bullet, _inline(" ".join(parts))) for bullet, parts in found if parts]


def _inline(text: str) -> list[tuple[str, str]]:
    """Markdown inline text as (text, style) runs: **bold** and `code`; the rest plain."""
    runs: list[tuple[str, str]] = []
    for piece in re.split(r"(\*\*[^*]+\*\*|`[^`]+`)", text):
        if not piece:
            continue
        if piece.startswith("**") and piece.endswith("**") and len(piece) > 4:
            runs.append((piece[2:-2].replace("`", ""), "b"))
        elif piece.startswith("`") and piece.endswith("`") and len(piece) > 2:
            runs.append((piece[1:-1], "code"))
        else:
            runs.append((piece, ""))
    return runs


@dataclass(frozen=True)
class PageBreak:
    """A new page in print (the PDF; the HTML when printed); nothing in Markdown."""

    kind: ClassVar[str] = "pagebreak"


Block: TypeAlias = Heading | Paragraph | Code | Table | Items | Quote | PageBreak


@dataclass
class Memo:
    title: str
    blocks: list[Block] = field(default_factory=list)
    #: the engagement of the whole memo (its running header until a section names one)
    running: str = ""
    #: the footer's left part: version, date, preparer / reviewer
    footer: str = ""

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)

    def sections(self) -> list[Section]:
        """The blocks in print sections: a new one at each heading that names its
        engagement (the HTML's named pages: their own running header and footer)."""
        found = [Section("memo", self.running, self.footer, [])]
        for block in self.blocks:
            if isinstance(block, Heading) and block.running is not None:
                name = f"engagement{len(found)}"
                found.append(Section(name, block.running, block.footer or self.footer, []))
                if found[-2].blocks and isinstance(found[-2].blocks[-1], PageBreak):
                    found[-2].blocks.pop()  # a new section starts a new page anyway
            found[-1].blocks.append(block)
        return [section for section in found if section.blocks]


@dataclass
class Section:
    """Blocks printed under one running header and footer."""

    name: str
    running: str
    footer: str
    blocks: list[Block]


# =========================================================================== cell values


def sha256(recalc: Recalculation) -> str:
    """The SHA-256 of the bytes that were recalculated (the vetted copy of the file)."""
    data = recalc.vetted.data if recalc.vetted is not None else Path(recalc.source).read_bytes()
    return hashlib.sha256(data).hexdigest()


def number_formats(recalc: Recalculation) -> dict[tuple[str, str], str]:
    """Each cell's number format, read from the recalculated bytes (read-only, no formulas
    run)."""
    from nj_incentives.recalc.charts import cell_formats

    return cell_formats(recalc)


_DATE_FORMAT = re.compile(r"(?:y|d{1,4}|m{1,4}.*d|d.*m)", re.IGNORECASE)


def _decimals(number_format: str) -> tuple[int, int]:
    """(minimum, maximum) decimals of a number format's first section."""
    section = number_format.split(";")[0]
    if "." not in section:
        return 0, 0
    tail = section.split(".", 1)[1]
    zeros = len(re.match(r"0*", tail).group())  # type: ignore[union-attr]
    hashes = len(re.match(r"#*", tail[zeros:]).group())  # type: ignore[union-attr]
    return zeros, zeros + hashes


def display(value: CellValue, number_format: str = "General") -> str:
    """A cell value as the workbook shows it (its number format), as plain text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, ExcelError):
        return value.code
    if isinstance(value, str):
        return value
    number = float(value)
    plain = re.sub(r'"[^"]*"|\[[^\]]*\]', "", number_format)
    from nj_incentives.cells import date_from_serial

    day = date_from_serial(number) if _DATE_FORMAT.search(plain) and "0" not in plain else None
    if day is not None:
        return day.isoformat()
    if "%" in plain:
        low, high = _decimals(plain.replace("%", ""))
        return _fixed(number * 100, low, high) + "%"
    if plain == "General" or not plain:  # as Excel's General: no thousands separators
        return _fixed(number, 0, 10, grouped=False) if abs(number) < 1e15 else f"{number:g}"
    low, high = _decimals(plain)
    return _fixed(number, low, high, grouped="," in plain)


def _fixed(number: float, low: int, high: int, grouped: bool = True) -> str:
    text = f"{number:,.{high}f}" if grouped else f"{number:.{high}f}"
    if high > low and "." in text:
        whole, _, fraction = text.partition(".")
        fraction = fraction.rstrip("0").ljust(low, "0")
        text = whole + ("." + fraction if fraction else "")
    return text


# =========================================================================== reading sheets


def _rows(recalc: Recalculation, sheet: str) -> dict[int, dict[int, CellValue]]:
    rows: dict[int, dict[int, CellValue]] = {}
    for (title, cell), value in recalc.values.items():
        if title != sheet or value is None or value == "":
            continue
        row, col = cell_index(cell)
        rows.setdefault(row, {})[col] = value
    return rows


def _shown(recalc: Recalculation, formats: Mapping[tuple[str, str], str], sheet: str) -> Any:
    def show(row: int, col: int, value: CellValue) -> str:
        return display(value, formats.get((sheet, cell_name(row, col)), "General"))

    return show


def input_sheets(recalc: Recalculation) -> list[str]:
    """Inputs and the input sheets after it (a template's sheets before Calculations,
    such as the Form 313 roster's), in order."""
    sheets = list(recalc.sheets)
    if "Inputs" not in sheets:
        return ["Inputs"]
    first = sheets.index("Inputs")
    end = sheets.index("Calculations") if "Calculations" in sheets[first:] else first + 1
    return sheets[first:end]


def inputs_blocks(
    recalc: Recalculation, formats: Mapping[tuple[str, str], str], sheet: str = "Inputs"
) -> list[Block]:
    """The Inputs sheet as the workbook lays it out: labelled single inputs as a table
    (label, unit, value), each input table with its headers and units, the section
    headings and notes as text; table rows left entirely blank at the end are summarised."""
    rows = _rows(recalc, sheet)
    if sheet not in recalc.sheets or not rows:
        return [Paragraph(f"No {sheet} sheet.")]
    show = _shown(recalc, formats, sheet)
    blocks: list[Block] = []
    numbers = sorted(rows)
    group: list[int] = []

    def flush() -> None:
        if group:
            blocks.extend(_input_group(rows, group, show, recalc, sheet))
            group.clear()

    for row in numbers:
        if row <= 2:  # the sheet's title and subtitle
            continue
        cells = rows[row]
        follows = bool(group) and row == group[-1] + 1
        if set(cells) == {1} and not (follows and _is_header(rows[group[0]])):
            flush()
            blocks.append(Paragraph(str(cells[1]), strong=len(str(cells[1])) < 90))
        else:
            if not follows:
                flush()
            group.append(row)
    flush()
    return blocks


def _is_header(cells: Mapping[int, CellValue]) -> bool:
    """A table's header row: no unit in B, text from C on (a single input has its unit)."""
    return 2 not in cells and any(col >= 3 for col in cells)


def _input_group(
    rows: Mapping[int, Mapping[int, CellValue]],
    group: Sequence[int],
    show: Any,
    recalc: Recalculation,
    sheet: str,
) -> list[Block]:
    first = rows[group[0]]
    last_col = max(max(rows[r]) for r in group)
    if not _is_header(first):
        table_rows = [
            (
                str(rows[r].get(1, "")),
                str(rows[r].get(2, "")),
                *(
                    show(r, c, recalc.values.get((sheet, cell_name(r, c))))
                    for c in range(3, last_col + 1)
                ),
            )
            for r in group
        ]
        width = max(len(t) for t in table_rows)
        headers = ("Input", "Unit", "Value", *(f"Value {n}" for n in range(2, width - 1)))
        return [Table(headers[:width], tuple(t + ("",) * (width - len(t)) for t in table_rows))]
    units = rows.get(group[1], {}) if len(group) > 1 else {}
    data = group[2:] if units and 1 not in units else group[1:]
    if not (units and 1 not in units):
        units = {}
    names = [str(first.get(1, "")) or "Row"]
    for col in range(3, last_col + 1):
        header = str(first.get(col, ""))
        unit = str(units.get(col, ""))
        names.append(f"{header} ({unit})" if unit else header)
    body: list[tuple[str, ...]] = []
    for r in data:
        values = [
            show(r, c, recalc.values.get((sheet, cell_name(r, c)))) for c in range(3, last_col + 1)
        ]
        body.append((str(rows[r].get(1, "")), *values))
    blocks: list[Block] = []
    kept = body
    while kept and not any(v for v in kept[-1][1:]):
        kept = kept[:-1]
    if not kept:
        blocks.append(Paragraph(f"{names[0]}: every row blank."))
        return blocks
    blocks.append(Table(tuple(names), tuple(kept)))
    if len(kept) < len(body):
        blank = body[len(kept)][0], body[-1][0]
        blocks.append(Paragraph(f"Left blank: {blank[0]} to {blank[1]}."))
    return blocks


def labelled_values(
    recalc: Recalculation, formats: Mapping[tuple[str, str], str], sheet: str = "Outputs"
) -> list[tuple[str, str, str]]:
    """(label, unit, value) of each row of a sheet with a label in A and a value in C."""
    show = _shown(recalc, formats, sheet)
    found = []
    for row, cells in sorted(_rows(recalc, sheet).items()):
        if 1 in cells and 3 in cells:
            found.append((str(cells[1]), str(cells.get(2, "")), show(row, 3, cells[3])))
    return found


def checks(recalc: Recalculation) -> list[tuple[str, str, CellValue]]:
    """(check, citation, result) of each line of the Checks sheet."""
    rows = _rows(recalc, "Checks")
    header = next(
        (r for r, cells in sorted(rows.items()) if cells.get(1) == "Check" and cells.get(3)),
        None,
    )
    if header is None:
        return []
    return [
        (str(cells.get(1, "")), str(cells.get(2, "")), cells.get(3))
        for r, cells in sorted(rows.items())
        if r > header
    ]


def about(recalc: Recalculation, label: str) -> str:
    """The About sheet's value for ``label`` ("Template", "Package"), or ""."""
    for _row, cells in sorted(_rows(recalc, "About").items()):
        if cells.get(1) == label and 2 in cells:
            return str(cells[2])
    return ""


def master_check(recalc: Recalculation) -> CellValue:
    try:
        value = recalc.value("MasterCheck")
    except ValueError:
        return None
    return value if not isinstance(value, list) else None


#: The engagement fields on each template's Inputs (defined names), in the memo's order.
ENGAGEMENT_FIELDS = (
    ("EngagementClient", "Client"),
    ("EngagementEntityId", "Entity id"),
    ("EngagementPeriod", "Tax period(s)"),
    ("EngagementPreparer", "Preparer"),
    ("EngagementReviewer", "Reviewer"),
    ("EngagementDate", "Date"),
)


def engagement(recalc: Recalculation) -> dict[str, str]:
    """The engagement fields (label -> text, blank when absent or empty): the defined
    names ``EngagementClient`` ... ``EngagementDate`` of the workbook's Inputs."""
    from nj_incentives.cells import date_from_serial

    found: dict[str, str] = {}
    for name, label in ENGAGEMENT_FIELDS:
        try:
            value = recalc.value(name)
        except ValueError:
            value = None
        if isinstance(value, list):
            first: Any = value
            while isinstance(first, list):
                first = first[0] if first else None
            value = first
        if (
            name == "EngagementDate"
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        ):
            day = date_from_serial(float(value))
            text = day.isoformat() if day is not None else display(value)
        else:
            text = display(value).strip()
        found[label] = text
    return found


# =========================================================================== NJ_* calls


@dataclass(frozen=True)
class Call:
    """One NJ_* call in a formula: its function and argument texts."""

    function: str
    arguments: tuple[str, ...]
    #: the call is what the formula returns (all of it, or a branch of an outer IF)
    returned: bool


@dataclass
class NJResult:
    """One NJ_* formula cell and what its call(s) computed."""

    sheet: str
    cell: str
    label: str
    formula: str
    call: Call
    #: argument name -> value as shown
    arguments: list[tuple[str, str]] = field(default_factory=list)
    result: Any = None
    #: "ok", "rejected" (the cell shows the function's message), "unused" (another
    #: branch applies), "unevaluated" (an argument is an expression)
    status: str = "ok"
    message: str = ""


def formula_calls(formula: str, known: Sequence[str]) -> list[Call]:
    """The NJ_* calls in a formula (``known``: the NJ_* names), outermost first; read by
    the tokenizer (:func:`nj_incentives.formula.function_calls`)."""
    text = formula[1:] if formula.startswith("=") else formula
    text = text.strip().removeprefix("{").removesuffix("}").lstrip("=")
    calls = function_calls(text)
    found: list[Call] = []
    for call in calls:
        base = base_name(call.name.upper(), known)
        if base is not None:
            found.append(Call(base, call.arguments, _returned(text, call, calls)))
    return found


def _returned(text: str, call: FunctionCall, calls: Sequence[FunctionCall]) -> bool:
    """Whether ``call`` is the formula's value: all of it, or the second or third argument
    of an outer IF."""
    if text[: call.start].strip() == "" and text[call.end :].strip() == "":
        return True
    outer = calls[0]
    if text[: outer.start].strip() or text[outer.end :].strip():
        return False
    if outer.name.upper() not in ("IF", "_XLFN.IF") or len(outer.arguments) < 2:
        return False
    return text[call.start : call.end].strip() in (a.strip() for a in outer.arguments[1:3])


_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")


class _Unevaluable(Exception):
    pass


def defined_names(recalc: Recalculation) -> dict[str, str]:
    """The workbook's defined names (upper-case) -> what they refer to (``Inputs!$C$5``),
    read from the recalculated bytes. The recalculation knows the value of a name only
    when it has one; a name of a blank cell is resolved through this."""
    import zipfile

    from defusedxml.ElementTree import fromstring

    if recalc.vetted is None:
        return {}
    with zipfile.ZipFile(io.BytesIO(recalc.vetted.data)) as archive:
        root = fromstring(archive.read("xl/workbook.xml"))
    return {
        str(element.get("name", "")).upper(): (element.text or "").strip()
        for element in root.iter()
        if str(element.tag).endswith("definedName") and element.get("localSheetId") is None
    }


def _argument_value(
    text: str, recalc: Recalculation, sheet: str, names: Mapping[str, str] | None = None
) -> Any:
    """An argument's value as the engine passed it: a literal, a cell, a range's rows or
    a defined name's value. Raises _Unevaluable for an expression."""
    t = text.strip()
    if t == "":
        return None
    if t.startswith('"') and t.endswith('"') and len(t) >= 2:
        return t[1:-1].replace('""', '"')
    if t.upper() in ("TRUE", "FALSE"):
        return t.upper() == "TRUE"
    if _NUMBER.match(t):
        number = float(t)
        return (
            int(number) if number.is_integer() and "." not in t and "e" not in t.lower() else number
        )
    reference = t if "!" in t else None
    if reference is None and re.fullmatch(r"\$?[A-Za-z]{1,3}\$?\d+(?::\$?[A-Za-z]{1,3}\$?\d+)?", t):
        reference = f"{quote_sheet(sheet)}!{t}"
    try:
        if reference is not None:
            return recalc.value(reference)
        if re.fullmatch(r"[A-Za-z_][\w.]*", t):
            for name, value in recalc.names.items():
                if name.upper() == t.upper():
                    return value
            target = (names or {}).get(t.upper(), "").lstrip("=")
            if "!" in target:
                return recalc.value(target)
    except ValueError as error:
        raise _Unevaluable(t) from error
    raise _Unevaluable(t)


def _label(recalc: Recalculation, sheet: str, cell: str) -> str:
    """The text in column A on the cell's row or just above it; for a table that starts
    with its own header row, above it (the table's heading, not a label beside it)."""
    row, _col = cell_index(cell)
    if (sheet, cell) in recalc.array_ranges and isinstance(recalc.values.get((sheet, cell)), str):
        row -= 1
    for above in range(row, max(row - 6, 0), -1):
        value = recalc.values.get((sheet, f"A{above}"))
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _argument_text(value: Any, show: Any) -> str:
    if isinstance(value, list):
        cells = [cell for row in value for cell in (row if isinstance(row, list) else [row])]
        filled = [cell for cell in cells if cell not in (None, "")]
        rows = len(value)
        cols = max((len(row) for row in value if isinstance(row, list)), default=1)
        preview = ", ".join(show(cell) for cell in filled[:6])
        more = ", ..." if len(filled) > 6 else ""
        return f"{rows} x {cols} range, {len(filled)} filled: {preview}{more}"
    return show(value) if value is not None else "(blank)"


def nj_results(recalc: Recalculation) -> list[NJResult]:
    """Every NJ_* formula cell of the workbook, in sheet and row order, with its call
    re-evaluated by the calculation core (see the module docstring)."""
    from nj_incentives import excel

    known = sorted(excel.CATALOG)
    names = defined_names(recalc)
    order = {title: i for i, title in enumerate(recalc.sheets)}
    results: list[NJResult] = []
    for (sheet, cell), formula in sorted(
        recalc.formulas.items(),
        key=lambda item: (order.get(item[0][0], 0), *cell_index(item[0][1])),
    ):
        try:
            calls = formula_calls(formula, known)
        except ValueError:
            continue
        for call in calls:
            results.append(_evaluate(recalc, sheet, cell, formula, call, names))
    return results


def _evaluate(
    recalc: Recalculation,
    sheet: str,
    cell: str,
    formula: str,
    call: Call,
    names: Mapping[str, str],
) -> NJResult:
    from nj_incentives import excel
    from nj_incentives.cells import error_text, to_cell_values

    entry = excel.CATALOG[call.function]
    found = NJResult(sheet, cell, _label(recalc, sheet, cell), formula, call)
    labels = [a.name for a in entry.arguments]
    if entry.vararg is not None:
        labels += [
            f"{entry.vararg.name}[{n}]" for n in range(1, len(call.arguments) - len(labels) + 1)
        ]
    shown_value = recalc.values.get((sheet, cell))
    try:
        args = [_argument_value(text, recalc, sheet, names) for text in call.arguments]
    except _Unevaluable as expression:
        found.status, found.message = "unevaluated", f"an argument is an expression ({expression})"
        return found
    kinds = {a.name: a.kind for a in entry.arguments}
    found.arguments = [
        (
            name,
            _argument_text(value, _show_date if kinds.get(name) in ("date", "dates") else display),
        )
        for name, value in zip(labels, args, strict=False)
    ]
    try:
        result = entry.result(*args)
    except Exception as error:
        message = error_text(error, call.function)
        if isinstance(shown_value, str) and shown_value == message:
            found.status, found.message = "rejected", message
        else:
            found.status = "unused"
            found.message = f"the cell shows {display(shown_value) or '(blank)'}"
        return found
    found.result = result
    if call.returned:
        cells = to_cell_values(entry.show(result))
        first = cells
        while isinstance(first, list) and first:
            first = first[0]
        if isinstance(first, Decimal):
            first = float(first)
        if not _same(first, shown_value):
            found.status = "unused"
            found.message = f"the cell shows {display(shown_value) or '(blank)'}"
    return found


def _show_date(value: Any) -> str:
    """A date argument: an Excel serial number shown as its date."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return display(value, "yyyy-mm-dd")
    return display(value)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a is b or a == b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b)) < 1e-9 * max(1.0, abs(float(a)))
    return bool(a == b)


# =========================================================================== interpretations

#: NJ_* function -> the headings of docs/interpretations.md its result rests on.
INTERPRETATIONS: dict[str, tuple[str, ...]] = {}
_GENERAL = ("Rounding of money",)
_PCT = ("Percentages are fractions",)
_GRANT = (
    "Grant percentage: an input within bounds (a., b.)",
    "Combination of bases; a percentage of 0 means the basis is unused (a.)",
)
_TAX_YEAR = ("Which return is tax year N (Form CBT-100 numbering)",)
_CONVERSION = (
    *_GENERAL,
    *_TAX_YEAR,
    "Conversion schedule and rounding of installments (e.(1)-(13))",
    "Installments on a fiscal-year filer's returns (e.(1)-(13))",
    "Approval before P.L.2015, c.194 and direction within 180 days (e.)",
    "Late approval: paragraph (1) only (e.(1))",
    "Approval date ignored for paragraphs (2)-(13) (e.(2)-(13))",
)
_TRANSFER = (
    *_PCT,
    "Transfer certificates: minimum amount and discounting (g.(3))",
    "Rounding of the minimum price down (g.(3))",
    "Transfer certificates: discounting period and rate bound (g.(3))",
    "A transferee may not transfer (g.(3))",
)
_POSITIONS = (
    "e. Full-time position-months",
    "e. Monthly part-time threshold: 86 2/3 hours",
    "e. Aggregated part-time hours: all non-full-time months; 1,680 hours per equivalent",
    "e. Temporary, seasonal and excluded employees count in neither",
    "e. Exact position counts, reported to 10 places",
    "e. Blank months in a payroll roster",
)
_WHOLE = ("a. and e. Whole positions; fractional positions",)
_LIMIT = (
    "a. and b.(3) Which tax: the limit is stated for the CBT only",
    "b.(3) Priority of other credits and the limit per period",
    "b.(3) Rounding of the 50% limit",
)
_REFUND = (
    "c.(2) Rounding of the refund",
    "e. Sustained effort ratio",
    "e. Sustained effort ratio: whole or measured positions",
)
INTERPRETATIONS.update(
    {
        "NJ_BEIP_PCT_LIMITS": _GRANT[:1],
        "NJ_BEIP_GRANT": (*_GENERAL, *_PCT, *_GRANT),
        "NJ_BEIP_CAP_APPLIES": (
            "The $50,000 average cap, applied year by year (a.; N.J.A.C. 19:31I-1.4(a))",
        ),
        "NJ_BEIP_GRANT_SCHEDULE": (
            *_GENERAL,
            *_PCT,
            *_GRANT,
            "Term (c.)",
            "The $50,000 average cap, applied year by year (a.; N.J.A.C. 19:31I-1.4(a))",
            "The $50,000 average cap: whole-term and proportional readings"
            " (a.; N.J.A.C. 19:31I-1.4(a))",
        ),
        "NJ_BEIP_LIMIT_BASE": ("Combined State grants limit (N.J.S.A. 34:1B-134(b), (c))",),
        "NJ_BEIP_COMBINED_LIMIT": (
            *_GENERAL,
            "Combined State grants limit (N.J.S.A. 34:1B-134(b), (c))",
        ),
        "NJ_BEIP_GRANT_OVER_LIMIT": ("Combined State grants limit (N.J.S.A. 34:1B-134(b), (c))",),
        "NJ_BEIP_CONVERSION_SCHEDULE": _CONVERSION,
        "NJ_BEIP_CONVERSION_INSTALLMENT": _CONVERSION,
        "NJ_BEIP_CREDIT_APPLIED": (
            "Applying the credit (f.)",
            "The BEIP credit and the CBT statutory minimum (f.)",
        ),
        "NJ_BEIP_CREDIT_REFUND": (
            "Applying the credit (f.)",
            "The BEIP credit and the CBT statutory minimum (f.)",
        ),
        "NJ_BEIP_TRANSFER_MIN_PRICE": _TRANSFER,
        "NJ_BEIP_TRANSFER_CHECK": _TRANSFER,
        "NJ_BEIP_REMOTE_WORK_PAYMENT": (
            *_GENERAL,
            *_TAX_YEAR,
            "Remote-work election (h., h.(1), h.(2))",
        ),
        "NJ_BEIP_REMOTE_WORK_CHECK": (*_PCT, "Remote-work election (h., h.(1), h.(2))"),
        "NJ_ERTC_ELIGIBILITY_CHECK": (
            "a. Who may claim: qualified municipality and Urban Enterprise Zone benefit",
            "d. Burden of proof, start of operations, one 24-month period",
        ),
        "NJ_ERTC_CREDIT_YEARS": (
            "e. Credit year one starts on the first of the month after operations start",
        ),
        "NJ_ERTC_RATIO_FRACTIONAL": ("e. Sustained effort ratio: whole or measured positions",),
        "NJ_ERTC_BASE_YEAR": (
            "e. Credit year one starts on the first of the month after operations start",
        ),
        "NJ_ERTC_FTE": _POSITIONS[2:],
        "NJ_ERTC_AVG_POSITIONS": _POSITIONS,
        "NJ_ERTC_NEW_POSITIONS": (*_WHOLE, _POSITIONS[-1]),
        "NJ_ERTC_CREDIT": (*_GENERAL, *_WHOLE),
        "NJ_ERTC_SUSTAINED_EFFORT_RATIO": ("e. Sustained effort ratio",),
        "NJ_ERTC_CREDIT_LIMIT": (*_GENERAL, *_LIMIT),
        "NJ_ERTC_REFUND": (*_GENERAL, *_REFUND),
        "NJ_ERTC_SCHEDULE": (
            *_GENERAL,
            *_WHOLE,
            'b.(1) The period "in which or with which" a credit year ends',
            "b.(1) A privilege period is at most 12 months (53 weeks)",
            "b.(2) Order of use: oldest first",
            "b.(2) Carryforward: no limit by default; the Form 313 five years as a switch",
            *_LIMIT,
            "c. Order in the period in which credit year two ends: use, then refund, then expiry",
            "c.(1) The period in which credit year two ends: the b.(3) limit before the refund",
            *_REFUND,
            "e. Credit year one starts on the first of the month after operations start",
        ),
        "NJ_TAX_YEAR": _TAX_YEAR,
        "NJ_TAX_PERIOD_END": _TAX_YEAR,
        "NJ_CBT_MIN_TAX": (
            "Periods covered: beginning in 2012 and after",
            "Brackets and their boundaries",
            "Group payroll rule",
            "Group payroll rule for S corporations (uncertain)",
        ),
    }
)


def interpretations_text() -> str:
    """docs/interpretations.md as shipped with the package (:mod:`nj_incentives.shipped`);
    "" when it is not found."""
    from nj_incentives.shipped import INTERPRETATIONS, shipped_file

    path = shipped_file(INTERPRETATIONS)
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def interpretation_sections(text: str) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    """heading -> (part, heading, body lines) of every ``###`` section."""
    sections: dict[str, tuple[str, str, tuple[str, ...]]] = {}
    part, heading = "", None
    body: list[str] = []
    for line in [*text.splitlines(), "## end"]:
        if line.startswith(("## ", "### ")):
            if heading is not None:
                while body and not body[-1].strip():
                    body.pop()
                sections[heading] = (part, heading, tuple(body))
            heading, body = None, []
            if line.startswith("### "):
                heading = line[4:].strip()
            else:
                part = line[3:].strip()
        elif heading is not None:
            body.append(line)
    return sections


# =========================================================================== the memo


@dataclass(frozen=True)
class WorkbookFacts:
    """What the memo says about one workbook apart from its cells."""

    name: str
    sha256: str
    template: str
    built_with: str
    master_check: CellValue


def facts(recalc: Recalculation) -> WorkbookFacts:
    return WorkbookFacts(
        name=recalc.source.name,
        sha256=sha256(recalc),
        template=about(recalc, "Template"),
        built_with=about(recalc, "Package"),
        master_check=master_check(recalc),
    )


def with_unit(value: str, unit: str) -> str:
    """A value with its unit as a person writes it: $1,250.00, 12 positions, 50.00%."""
    if unit == "$" and value and value[0] in "-0123456789":
        return f"-${value[1:]}" if value.startswith("-") else f"${value}"
    if not unit or unit in ("$", "%", "date", "TRUE/FALSE", "verdict", "yes/no", "choice"):
        return value
    if value in ("1", "1.00") and unit.endswith("s"):
        unit = unit[:-1]  # "1 year", "1.00 position"
    return f"{value} {unit}"


def where_on_form(recalc: Recalculation, sheet: str = "Outputs") -> tuple[str, dict[str, str]]:
    """The sheet's "where" column (D: the Form 313 part and line, or the subsection,
    written by the template beside each output), as (its heading, label -> text); ("", {})
    when the workbook has none."""
    rows = _rows(recalc, sheet)
    heading = next(
        (str(cells[4]) for _r, cells in sorted(rows.items()) if 4 in cells and 1 not in cells),
        "",
    )
    found = {
        str(cells[1]): str(cells[4])
        for _r, cells in sorted(rows.items())
        if 1 in cells and 3 in cells and 4 in cells and str(cells[4]).strip()
    }
    return (heading or "Where on the form (or in the law)", found) if found else ("", {})


def _form_part(text: str) -> str:
    """The Form 313 part of a "where" text ("Form 313 Part III, line 7"), or ""."""
    return text.split(";")[0].strip() if text.startswith("Form 313") else ""


def _running(fields: Mapping[str, str]) -> str:
    """The engagement on one line: "Client - entity - period" (blank fields left out)."""
    parts = [fields.get(k, "") for k in ("Client", "Entity id", "Tax period(s)")]
    return " - ".join(p for p in parts if p) or "(no engagement fields filled in)"


def _distinct(engagements: Sequence[Mapping[str, str]], key: str) -> list[str]:
    return list(dict.fromkeys(e.get(key, "") for e in engagements if e.get(key, "")))


def _combined(engagements: Sequence[Mapping[str, str]]) -> str:
    """Several workbooks' engagements on one line: each field's distinct values, in the
    workbooks' order ("Client - entity - period A; period B")."""
    parts = ["; ".join(_distinct(engagements, k)) for k in ("Client", "Entity id", "Tax period(s)")]
    return " - ".join(p for p in parts if p) or "(no engagement fields filled in)"


def _people(engagements: Sequence[Mapping[str, str]]) -> str:
    """Who prepared and who reviews: "Preparer A; Reviewer B" ("(blank)" when not filled
    in; several workbooks' distinct names joined)."""
    return "; ".join(
        f"{label} {', '.join(_distinct(engagements, label)) or '(blank)'}"
        for label in ("Preparer", "Reviewer")
    )


#: The most columns a table shows at once; a wider one is shown in parts (never cut).
MAX_COLUMNS = 16
_NUMERIC = re.compile(r"^[-+$(]*[\d,.]+%?\)?$")


def _group(header: str) -> str:
    """A column header without its numbers and unit: "Year one month 3 (hours)" ->
    "Year one month"."""
    return re.sub(r"\s*\([^)]*\)|\d+", "", header).strip()


def wrapped(table: Table, max_columns: int = MAX_COLUMNS) -> list[Table]:
    """Columns with neither a header nor a value dropped; then a table of more than
    ``max_columns`` columns as parts that each repeat its leading
    label columns (up to two text columns), breaking where the headers change group
    ("Base month 1..12", "Year one month 1..12") when it can; narrower tables as they are."""
    empty = [
        c
        for c in range(len(table.headers))
        if c > 0
        and not str(table.headers[c]).strip()
        and not any(c < len(row) and str(row[c]).strip() for row in table.rows)
    ]
    if empty:  # a column with neither header nor value (a layout gap in the sheet)
        keep = [c for c in range(len(table.headers)) if c not in empty]
        table = Table(
            tuple(table.headers[c] for c in keep),
            tuple(tuple(row[c] if c < len(row) else "" for c in keep) for row in table.rows),
            table.caption,
        )
    width = len(table.headers)
    if width <= max_columns:
        return [table]
    keys = 1
    if width > 1 and all(not _NUMERIC.match(row[1] or "0") for row in table.rows if len(row) > 1):
        keys = 2
    room = max_columns - keys
    parts: list[list[int]] = [[]]
    for column in range(keys, width):
        current = parts[-1]
        group_changes = bool(current) and _group(table.headers[column]) != _group(
            table.headers[current[-1]]
        )
        starts_group = column + 1 < width and _group(table.headers[column]) == _group(
            table.headers[column + 1]
        )
        if len(current) >= room or (group_changes and starts_group and current):
            parts.append([])
        parts[-1].append(column)
    tables = []
    for number, columns in enumerate(parts, 1):
        first, last = table.headers[columns[0]], table.headers[columns[-1]]
        span = first if first == last else f"{first} to {last}"
        tables.append(
            Table(
                (*table.headers[:keys], *(table.headers[c] for c in columns)),
                tuple(
                    (*row[:keys], *(row[c] if c < len(row) else "" for c in columns))
                    for row in table.rows
                ),
                caption=f"Part {number} of {len(parts)} of a {width}-column table: {span}",
            )
        )
    return tables


def build_memo(recalcs: Sequence[Recalculation], generated: dt.datetime | None = None) -> Memo:
    """The memo covering ``recalcs``: a one-page summary (engagement, files and their
    hashes, master checks, key figures, law currency), then one section per workbook,
    then the interpretations applied."""
    moment = generated or dt.datetime.now(dt.UTC).replace(microsecond=0)
    memo = Memo("Calculation memo: New Jersey business incentives")
    all_facts = [facts(r) for r in recalcs]
    engagements = [engagement(r) for r in recalcs]
    labels = [label for _name, label in ENGAGEMENT_FIELDS]
    distinct = {tuple(e.get(k, "") for k in labels) for e in engagements}
    stamp = f"nj-incentives {__version__}; {moment.date().isoformat()}"
    memo.running = _running(engagements[0]) if len(distinct) == 1 else _combined(engagements)
    memo.footer = f"{stamp}; {_people(engagements)}"
    memo.add(
        Heading(2, "Summary"),
        Paragraph(
            f"Prepared by nj-incentives {__version__} on {moment.isoformat()}. Law current "
            f"to: {LAW_CURRENT_TO}."
        ),
    )
    if recalcs:
        if len(distinct) == 1:
            rows = tuple((k, engagements[0].get(k, "") or "(blank)") for k in labels)
            memo.add(Table(("Engagement", ""), rows))
        else:
            memo.add(
                Table(
                    ("Engagement", *(f.name for f in all_facts)),
                    tuple((k, *(e.get(k, "") or "(blank)" for e in engagements)) for k in labels),
                )
            )
    memo.add(
        Table(
            ("Workbook", "Master check", "SHA-256 of the file"),
            tuple((f.name, display(f.master_check) or "(none)", f.sha256) for f in all_facts),
        )
    )
    figures: list[tuple[str, ...]] = []
    for recalc, fact in zip(recalcs, all_facts, strict=True):
        _heading, where_of = where_on_form(recalc)
        first = True
        for label, unit, value in labelled_values(recalc, number_formats(recalc)):
            if label == "All checks pass":
                continue  # the master check, above
            part = _form_part(where_of.get(label, ""))
            where = f" ({part})" if part else ""
            figures.append((fact.name if first else "", label + where, with_unit(value, unit)))
            first = False
    if figures:
        memo.add(Table(("Workbook", "Key figure", "Value"), tuple(figures)))
    memo.add(
        Paragraph(
            "Each workbook was recalculated without Excel: every formula evaluated again, the "
            "NJ_* functions served by the same Python code the Excel add-in calls. Figures are "
            "valid only where the workbook's master check is TRUE. The detail follows: each "
            "workbook's checks, inputs, outputs and every NJ_* result with its steps and "
            "citations, then the interpretations of the law applied."
        ),
    )
    used: dict[str, list[str]] = {}
    for number, (recalc, fact, fields) in enumerate(
        zip(recalcs, all_facts, engagements, strict=True), 1
    ):
        memo.add(PageBreak(), *_workbook(number, recalc, fact, fields, used, stamp))
    interpretations = _interpretations(used)
    opening = interpretations[0]
    if isinstance(opening, Heading):  # the memo's engagement again, not the last workbook's
        interpretations[0] = Heading(opening.level, opening.text, memo.running, memo.footer)
    memo.add(PageBreak(), *interpretations)
    memo.blocks = [
        part
        for block in memo.blocks
        for part in (wrapped(block) if isinstance(block, Table) else [block])
    ]
    return memo


def _distinct_labels(recalc: Recalculation, lines: list[tuple[str, str, CellValue]]) -> list[str]:
    """The checks' labels, a repeated one told apart by what its formula checks (the label
    of the first cell it refers to), else by its row on the Checks sheet."""
    counts: dict[str, int] = {}
    for label, _cite, _result in lines:
        counts[label] = counts.get(label, 0) + 1
    rows = _rows(recalc, "Checks")
    header = next(
        (r for r, cells in sorted(rows.items()) if cells.get(1) == "Check" and cells.get(3)), 0
    )
    numbers = [r for r in sorted(rows) if r > header]
    shown: list[str] = []
    seen: set[str] = set()
    for (label, _cite, _result), row in zip(lines, numbers, strict=False):
        if counts[label] < 2:
            shown.append(label)
            continue
        formula = recalc.formulas.get(("Checks", f"C{row}"), "")
        match = re.search(
            r"(?:'((?:[^']|'')+)'|([A-Za-z_][\w.]*))!\$?([A-Z]{1,3})\$?(\d+)", formula
        )
        what = ""
        if match:
            sheet = (match.group(1) or match.group(2) or "").replace("''", "'")
            what = _label(recalc, sheet, f"{match.group(3)}{match.group(4)}")
        text = f"{label} ({what})" if what and f"{label} ({what})" not in seen else ""
        text = text or f"{label} (Checks row {row})"
        seen.add(text)
        shown.append(text)
    shown.extend(label for label, _c, _r in lines[len(shown) :])
    return shown


def _workbook(
    number: int,
    recalc: Recalculation,
    fact: WorkbookFacts,
    fields: Mapping[str, str],
    used: dict[str, list[str]],
    stamp: str = "",
) -> list[Block]:
    formats = number_formats(recalc)
    footer = f"{stamp}; {_people([fields])}" if stamp else _people([fields])
    blocks: list[Block] = [
        Heading(2, f"{number}. {fact.name}", running=_running(fields), footer=footer)
    ]
    filled = [f"{k}: {v}" for k, v in fields.items() if v]
    blocks.append(
        Table(
            ("Item", "Value"),
            (
                ("File", fact.name),
                ("SHA-256", fact.sha256),
                ("Template", fact.template or "(not a nj-incentives template)"),
                ("Built with", fact.built_with),
                ("Engagement", "; ".join(filled) or "(no engagement fields filled in)"),
                ("Formulas recalculated", str(len(recalc.formulas))),
                ("NJ_* calls", str(sum(recalc.calls.values()))),
                ("Master check", display(fact.master_check) or "(none)"),
            ),
        )
    )
    if fact.master_check is not True:
        blocks.append(
            Paragraph(
                "THE MASTER CHECK IS NOT TRUE: the figures below must not be used.", strong=True
            )
        )
    errors = recalc.error_cells()
    if errors:
        blocks.append(Heading(3, "Cells with errors"))
        blocks.append(Table(("Cell", "Shows"), tuple((where, text) for where, text in errors)))
    if recalc.notes:
        blocks.append(Items(tuple(recalc.notes)))
    lines = checks(recalc)
    if lines:
        blocks.append(Heading(3, "Checks"))
        labels = _distinct_labels(recalc, lines)
        blocks.append(
            Table(
                ("Check", "Citation", "Result"),
                tuple(
                    (label, cite, display(result))
                    for label, (_l, cite, result) in zip(labels, lines, strict=True)
                ),
            )
        )
    blocks.append(Heading(3, "Inputs"))
    blocks.extend(inputs_blocks(recalc, formats))
    for sheet in input_sheets(recalc)[1:]:  # inputs continued on sheets of their own
        blocks.append(Heading(4, sheet))
        blocks.extend(inputs_blocks(recalc, formats, sheet))
    outputs = labelled_values(recalc, formats)
    if outputs:
        blocks.append(Heading(3, "Outputs"))
        heading, where_of = where_on_form(recalc)
        if where_of:  # the template's own Form 313 parts and lines (or subsections)
            blocks.append(
                Table(
                    ("Output", "Unit", "Value", heading),
                    tuple((*row, where_of.get(row[0], "")) for row in outputs),
                )
            )
        else:
            blocks.append(Table(("Output", "Unit", "Value"), tuple(outputs)))
    blocks.append(Heading(3, "Results of the NJ_* functions, with their steps and citations"))
    unused: list[str] = []
    shown: list[tuple[NJResult, str]] = []
    for result in nj_results(recalc):
        where = f"{quote_sheet(result.sheet)}!{result.cell}"
        if result.status == "unused":
            unused.append(f"{where} ({result.label}): {result.call.function}; {result.message}")
            continue
        shown.append((result, where))
        if result.status == "ok":
            for heading in INTERPRETATIONS.get(result.call.function, ()):
                functions = used.setdefault(heading, [])
                if result.call.function not in functions:
                    functions.append(result.call.function)
    for run in _runs(shown, recalc):
        if len(run) >= 3:
            blocks.extend(_compact_blocks(run, recalc, formats))
        else:
            for result, where in run:
                blocks.extend(_result_blocks(result, where, recalc, formats))
    if unused:
        blocks.append(
            Paragraph("Calls not used (the formula's IF takes its other branch, so no steps):")
        )
        blocks.append(Items(tuple(unused)))
    return blocks


def _compact(result: NJResult, recalc: Recalculation) -> bool:
    """A result shown as one line of a table: computed, one cell, at most three steps."""
    return (
        result.status == "ok"
        and (result.sheet, result.cell) not in recalc.array_ranges
        and len(getattr(result.result, "steps", ()) or ()) <= 3
    )


def _runs(
    shown: Sequence[tuple[NJResult, str]], recalc: Recalculation
) -> list[list[tuple[NJResult, str]]]:
    """Consecutive results of one function that are compact, grouped; others alone."""
    runs: list[list[tuple[NJResult, str]]] = []
    for item in shown:
        result = item[0]
        if (
            runs
            and _compact(result, recalc)
            and _compact(runs[-1][-1][0], recalc)
            and runs[-1][-1][0].call.function == result.call.function
        ):
            runs[-1].append(item)
        else:
            runs.append([item])
    return runs


def _compact_blocks(
    run: Sequence[tuple[NJResult, str]],
    recalc: Recalculation,
    formats: Mapping[tuple[str, str], str],
) -> list[Block]:
    """A run of one function's single-cell results as one table: the cell, what it is,
    its arguments, the result as the workbook shows it, and each step with its
    arithmetic and citation."""
    from nj_incentives import excel

    function = run[0][0].call.function
    entry = excel.CATALOG[function]
    rows = []
    for result, where in run:
        key = (result.sheet, result.cell)
        value = display(recalc.values.get(key), formats.get(key, "General"))
        arguments = "; ".join(f"{name} {text}" for name, text in result.arguments)
        steps = getattr(result.result, "steps", ()) or ()
        worked = "\n".join(
            f"{n}. {s.label}: {s.arithmetic or _step_value(s.value)}"
            + (f" [{s.citation}]" if s.citation else "")
            for n, s in enumerate(steps, 1)
        ) or (f"[{entry.citation}]" if entry.citation else "")
        rows.append((where, result.label, arguments, value, worked))
    return [
        Heading(4, f"{function}: {len(run)} cells"),
        Paragraph(entry.description),
        Code(run[0][0].formula, "Formula (first cell; the others alike)"),
        Table(("Cell", "For", "Arguments", "Result", "Steps and citations"), tuple(rows)),
    ]


def _result_blocks(
    result: NJResult, where: str, recalc: Recalculation, formats: Mapping[tuple[str, str], str]
) -> list[Block]:
    from nj_incentives import excel

    entry = excel.CATALOG[result.call.function]
    title = f"{where}: {result.call.function}" + (f" ({result.label})" if result.label else "")
    blocks: list[Block] = [
        Heading(4, title),
        Paragraph(entry.description),
        Code(result.formula, "Formula"),
    ]
    if result.arguments:
        blocks.append(Table(("Argument", "Value"), tuple(result.arguments)))
    if result.status in ("rejected", "unevaluated"):
        blocks.append(Paragraph(f"Result: {result.message}", strong=True))
        return blocks
    shown = _shown_result(result, recalc, formats)
    steps = getattr(result.result, "steps", ())
    figures = [
        cell
        for block in shown
        if isinstance(block, Table)
        for row in block.rows
        for cell in row
        if _NUMBER_CELL.match(cell.strip()) and not re.fullmatch(r"(19|20)\d\d", cell.strip())
    ]
    money = [cell for cell in figures if "." in cell and not cell.strip().endswith("%")]
    if money and all(float(cell.replace(",", "").replace("$", "")) == 0 for cell in money):
        # a schedule of nothing (an accrual year left at 0): one line, not two tables of zeros
        blocks.append(
            Paragraph(
                f"Result: every amount is 0.00 ({len(steps)} steps, each 0.00, not repeated).",
                strong=True,
            )
        )
        return blocks
    blocks.extend(shown)
    if steps:
        blocks.append(
            Table(
                ("#", *headers(EXPLAIN_COLUMNS)),
                tuple(
                    (str(n), s.label, _step_value(s.value), s.arithmetic, s.citation)
                    for n, s in enumerate(steps, 1)
                ),
            )
        )
    elif entry.citation:
        blocks.append(Paragraph(f"Citation: {entry.citation}"))
    return blocks


def _shown_result(
    result: NJResult, recalc: Recalculation, formats: Mapping[tuple[str, str], str]
) -> list[Block]:
    """The result as the workbook shows it: the cell, or the array formula's table."""
    key = (result.sheet, result.cell)
    cells = recalc.array_ranges.get(key)
    if cells is None:
        value = recalc.values.get(key)
        return [Paragraph(f"Result: {display(value, formats.get(key, 'General'))}", strong=True)]
    first, _, last = cells.partition(":")
    (r1, c1), (r2, c2) = cell_index(first), cell_index(last or first)
    grid = [
        [
            display(
                recalc.values.get((result.sheet, cell_name(r, c))),
                formats.get((result.sheet, cell_name(r, c)), "General"),
            )
            for c in range(c1, c2 + 1)
        ]
        for r in range(r1, r2 + 1)
    ]
    while grid and not any(grid[-1]):
        grid.pop()
    if not grid:
        return [Paragraph("Result: (blank)")]
    headed = all(
        isinstance(recalc.values.get((result.sheet, cell_name(r1, c))), str)
        for c in range(c1, c2 + 1)
    )
    if headed and len(grid) > 1:
        return [Table(tuple(grid[0]), tuple(tuple(row) for row in grid[1:]))]
    above = [recalc.values.get((result.sheet, cell_name(r1 - 2, c))) for c in range(c1, c2 + 1)]
    if r1 > 2 and all(isinstance(v, str) and v for v in above):
        headers = tuple(str(v) for v in above)  # the builder's header row, units between
    else:
        headers = tuple(f"Column {n}" for n in range(1, len(grid[0]) + 1))
    return [Table(headers, tuple(tuple(row) for row in grid))]


def _step_value(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Decimal):
        return f"{value:,.2f}" if value == value.quantize(Decimal("0.01")) else f"{value:f}"
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def _interpretations(used: Mapping[str, Sequence[str]]) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Interpretations applied")]
    text = interpretations_text()
    sections = interpretation_sections(text)
    blocks.append(
        Paragraph(
            "The readings of the law behind the results above, quoted from the project's "
            "docs/interpretations.md (nj-incentives "
            f"{__version__}); each names the functions of this memo that apply it."
        )
    )
    if not used:
        blocks.append(Paragraph("No NJ_* result was computed."))
    for heading, functions in used.items():
        part, _heading, body = sections.get(heading, ("", heading, ()))
        blocks.append(Heading(3, f"{part}: {heading}" if part else heading))
        blocks.append(Paragraph("Applied by: " + ", ".join(functions)))
        if body:
            blocks.append(Quote(body))
        else:
            blocks.append(
                Paragraph("(text not bundled with this copy: see docs/interpretations.md)")
            )
    return blocks


# =========================================================================== rendering
#
# One document (the blocks above), three renderings: Markdown and HTML from the Jinja2
# templates in ``nj_incentives/memo_templates``, PDF drawn from the same blocks with
# fpdf2 (see docs/install.md, "The calculation memo as PDF", for why fpdf2).

_MD_SPECIAL = re.compile(r"([\\`*\[\]|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
_MD_BLOCK_START = re.compile(r"^(?:[#+>=-]|\d+[.)])")


def _md(text: str, block: bool = False) -> str:
    """Text for Markdown, on one line: entities for & < >, a backslash before each
    character Markdown would act on (emphasis, code, links, tables, strikethrough), and
    (``block``: text that starts a line) before a leading character that would start a
    heading, list or quote."""
    text = html.escape(" ".join(str(text).split()), quote=False)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return "\\" + text if block and _MD_BLOCK_START.match(text) else text


def _md_quote_line(line: str) -> str:
    """A line of docs/interpretations.md (project text, already Markdown): only < > &
    escaped."""
    return html.escape(line, quote=False)


def _md_code(text: str) -> str:
    text = " ".join(text.split())
    fence = "`"
    while fence in text:
        fence += "`"
    return f"{fence} {text} {fence}"


def _padded(row: Sequence[str], headers: Sequence[str]) -> list[str]:
    cells = list(row) + [""] * (len(headers) - len(row))
    return cells[: len(headers)]


_NUMBER_CELL = re.compile(r"^[-+]?\$?[\d,]+(?:\.\d+)?%?$")


def _numeric(text: str) -> bool:
    return bool(_NUMBER_CELL.match(str(text).strip()))


class _Safe(str):
    """Markup built by a template (not escaped again)."""


def _environment(kind: str) -> Any:
    import jinja2

    def load(name: str) -> str:
        return (
            importlib.resources.files("nj_incentives")
            .joinpath("memo_templates", name)
            .read_text(encoding="utf-8")
        )

    if kind == "html":
        env = jinja2.Environment(
            loader=jinja2.FunctionLoader(load),
            autoescape=False,  # every {{ }} is escaped by finalize instead (quotes too)
            finalize=lambda value: (
                value
                if isinstance(value, _Safe)
                else html.escape("" if value is None else str(value))
            ),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters["safe"] = lambda value: _Safe(str(value))
        env.filters["css"] = lambda value: _Safe(
            re.sub(r'["\\<>\n\r]', " ", str(value))  # inside a CSS string in <style>
        )
    else:
        env = jinja2.Environment(
            loader=jinja2.FunctionLoader(load),
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters["md"] = _md
        env.filters["mdb"] = lambda text: _md(text, block=True)
        env.filters["mdcode"] = _md_code
        env.filters["mdquote"] = _md_quote_line
        env.filters["trim_right"] = lambda text: str(text).rstrip()
    env.globals.update(padded=_padded, numeric=_numeric)
    return env


def to_markdown(memo: Memo) -> str:
    text: str = _environment("md").get_template("memo.md.j2").render(memo=memo)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def to_html(memo: Memo) -> str:
    template = _environment("html").get_template("memo.html.j2")
    text: str = template.render(memo=memo, sections=memo.sections())
    return text.strip() + "\n"


# --------------------------------------------------------------------------- PDF

#: Characters outside Latin-1 (the PDF's core fonts) as their plain equivalents.
_LATIN1 = str.maketrans(
    {
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
        "\u2212": "-", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
        "\u2026": "...", "\u2264": "<=", "\u2265": ">=", "\u2260": "!=", "\u2192": "->",
        "\u2022": "-", "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2248": "~",
        "\u2032": "'", "\u2033": '"',
    }
)  # fmt: skip


def _latin1(text: object) -> str:
    plain = str(text).translate(_LATIN1)
    return plain.encode("latin-1", "replace").decode("latin-1")


def _natural_widths(table: Table, measure: Callable[[str], float]) -> list[float]:
    """Each column's width for its longest text on one line."""
    return [
        max(
            measure(table.headers[c]) * 1.12,  # headers are bold
            *(measure(str(r[c])) for r in table.rows if c < len(r)),
        )
        + 2.5
        for c in range(len(table.headers))
    ]


def _column_widths(
    table: Table, width: float, measure: Callable[[str], float]
) -> tuple[float, ...]:
    """Widths from each column's longest word (its floor) and its typical text on one
    line (what it wants), fitted to ``width``."""
    wants, floors = [], []
    for c in range(len(table.headers)):
        texts = [table.headers[c], *(row[c] if c < len(row) else "" for row in table.rows)]
        longest_word = max(
            (
                measure(w) * (1.12 if i == 0 else 1.0)
                for i, t in enumerate(texts)
                for w in str(t).split()
            ),
            default=1.0,
        )
        lengths = sorted(measure(str(t)) for t in texts)
        typical = lengths[int(0.9 * (len(lengths) - 1))]
        floors.append(min(longest_word, 45.0) + 2.5)
        wants.append(max(floors[-1], min(typical, 120.0) + 2.5))
    total = sum(wants)
    if total <= width:
        return tuple(w * width / total for w in wants)
    spare = width - sum(floors)
    if spare <= 0:
        return tuple(f * width / sum(floors) for f in floors)
    extra = [w - f for w, f in zip(wants, floors, strict=True)]
    share = spare / sum(extra) if sum(extra) else 0
    return tuple(f + e * share for f, e in zip(floors, extra, strict=True))


def to_pdf(memo: Memo) -> bytes:
    """The memo as a paginated PDF (US Letter): the engagement and the title on every
    page, "Page x of y", the version, date, preparer and reviewer in the footer; tables
    with their header row repeated on each page, wide ones in parts (:func:`wrapped`)."""
    from fpdf import FPDF
    from fpdf.fonts import FontFace

    class Document(FPDF):
        #: what the header and footer of this page show, and of the pages from the next
        #: one on (a section's heading sets ``coming``; the header of a new page takes it,
        #: after the footer of the page before was drawn with the old one)
        running, foot = memo.running, memo.footer
        coming: tuple[str, str] | None = None

        def header(self) -> None:
            if self.coming is not None:
                self.running, self.foot = self.coming
                self.coming = None
            self.set_font("Helvetica", "", 7.5)
            self.set_text_color(90, 90, 90)
            title = _latin1(memo.title)
            room = self.epw - self.get_string_width(title) - 6
            top = self.get_y()
            self.multi_cell(room, 3.6, _latin1(self.running), align="L", new_x="LMARGIN",
                            new_y="NEXT")  # fmt: skip
            below = self.get_y()
            self.set_xy(self.l_margin, top)
            self.cell(0, 3.6, title, align="R", new_x="LMARGIN", new_y="NEXT")
            self.set_y(max(below, self.get_y()))
            self.set_draw_color(31, 56, 100)
            self.line(self.l_margin, self.get_y() + 0.5, self.w - self.r_margin, self.get_y() + 0.5)
            self.ln(4)
            self.set_text_color(26, 26, 26)

        def footer(self) -> None:
            self.set_font("Helvetica", "", 7.5)
            self.set_text_color(90, 90, 90)
            number = f"Page {self.page_no()} of {{nb}}"
            room = self.epw - self.get_string_width(f"Page {self.page_no()} of 999") - 6
            text = _latin1(self.foot)
            lines = 1 if self.get_string_width(text) <= room else 2
            self.set_y(-8 - 3.6 * lines)
            self.multi_cell(room, 3.6, text, align="L", new_x="LMARGIN", new_y="TOP")
            self.set_xy(self.l_margin, -8 - 3.6 * lines)
            self.cell(0, 3.6, number, align="R")

    pdf = Document(orientation="portrait", unit="mm", format="letter")
    pdf.set_margins(14, 14, 14)
    pdf.set_auto_page_break(auto=True, margin=20)
    pdf.set_title(_latin1(memo.title))
    pdf.set_creator(f"nj-incentives {__version__}")
    pdf.alias_nb_pages()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 15)
    pdf.set_text_color(31, 56, 100)
    pdf.multi_cell(0, 7, _latin1(memo.title), new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(26, 26, 26)
    pdf.ln(1)
    sizes = {1: 15.0, 2: 12.5, 3: 10.5, 4: 9.0}
    fresh = True  # nothing below the header on this page yet
    for index, block in enumerate(memo.blocks):
        if isinstance(block, PageBreak):
            following = memo.blocks[index + 1] if index + 1 < len(memo.blocks) else None
            if isinstance(following, Heading) and following.running is not None:
                # the new page's header and footer name it
                pdf.coming = (following.running, following.footer or memo.footer)
            if not fresh:
                pdf.add_page()
                fresh = True
            continue
        if isinstance(block, Heading):
            if block.running is not None and pdf.coming is None:
                pdf.coming = (block.running, block.footer or memo.footer)  # from the next page
            if pdf.get_y() > pdf.h - 45:  # keep a heading with what follows it
                pdf.add_page()
            pdf.ln(2 if block.level > 2 else 1)
            pdf.set_font("Helvetica", "B", sizes.get(block.level, 9.0))
            if block.level <= 2:
                pdf.set_text_color(31, 56, 100)
            pdf.multi_cell(0, sizes.get(block.level, 9.0) * 0.5, _latin1(block.text),
                           new_x="LMARGIN", new_y="NEXT")  # fmt: skip
            pdf.set_text_color(26, 26, 26)
            if block.level == 2:
                y = pdf.get_y()
                pdf.line(pdf.l_margin, y, pdf.w - pdf.r_margin, y)
            pdf.ln(1)
        elif isinstance(block, Paragraph):
            following = memo.blocks[index + 1] if index + 1 < len(memo.blocks) else None
            if block.strong and isinstance(following, Table) and pdf.get_y() > pdf.h - 45:
                pdf.add_page()  # a table's title stays with the table
            pdf.set_font("Helvetica", "B" if block.strong else "", 8.5)
            pdf.multi_cell(0, 4.2, _latin1(block.text), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1.2)
        elif isinstance(block, Code):
            pdf.set_font("Helvetica", "", 8)
            pdf.cell(pdf.get_string_width(_latin1(block.label) + ": ") + 1, 4,
                     _latin1(block.label) + ":", new_x="LMARGIN", new_y="NEXT")  # fmt: skip
            pdf.set_font("Courier", "", 7.5)
            pdf.set_fill_color(243, 243, 243)
            pdf.multi_cell(0, 3.6, _latin1(" ".join(block.text.split())), fill=True,
                           new_x="LMARGIN", new_y="NEXT")  # fmt: skip
            pdf.ln(1.2)
        elif isinstance(block, Table):
            _pdf_table(pdf, block, FontFace)
        elif isinstance(block, Items):
            pdf.set_font("Helvetica", "", 8.5)
            for item in block.items:
                pdf.set_x(pdf.l_margin + 2)
                pdf.multi_cell(0, 4.2, "- " + _latin1(item), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1.2)
        elif isinstance(block, Quote):
            _pdf_quote(pdf, block)
        fresh = False
    data = pdf.output()
    return bytes(data)


def _pdf_table(pdf: Any, table: Table, font_face: Any) -> None:
    columns = len(table.headers)
    font = 8.0 if columns <= 5 else 7.0 if columns <= 9 else 6.2
    if table.caption:
        pdf.set_font("Helvetica", "I", 7.5)
        pdf.multi_cell(0, 3.8, _latin1(table.caption), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", font)
    width = pdf.epw - 0.01

    def measure(text: str) -> float:
        return float(pdf.get_string_width(_latin1(text)))

    widths = _column_widths(table, width, measure)
    if columns <= 3:  # a narrow table at its natural width, not stretched
        wants = _natural_widths(table, measure)
        if sum(wants) < width:
            widths, width = tuple(wants), sum(wants)
    numeric = [
        bool(table.rows)
        and all(_numeric(row[c]) or not str(row[c]).strip() for row in table.rows if c < len(row))
        and any(c < len(row) and _numeric(row[c]) for row in table.rows)
        for c in range(columns)
    ]
    align = tuple("RIGHT" if n else "LEFT" for n in numeric)
    if pdf.get_y() > pdf.h - 35:
        pdf.add_page()
    with pdf.table(
        col_widths=widths,
        width=width,
        align="LEFT",
        text_align=align,
        line_height=font * 0.40,
        padding=(0.35, 0.8),
        headings_style=font_face(emphasis="BOLD", fill_color=(217, 225, 242)),
        borders_layout="ALL",
        repeat_headings=1,
    ) as grid:
        heading = grid.row()
        for text in table.headers:
            heading.cell(_latin1(text), align="LEFT")
        for row in table.rows:
            line = grid.row()
            for text in _padded(row, table.headers):
                line.cell(_latin1(text))
    pdf.ln(2)


def _pdf_quote(pdf: Any, quote: Quote) -> None:
    """An interpretation: its items with **bold** runs as bold and `code` as Courier."""
    left = pdf.l_margin + 3
    top = pdf.get_y()
    for bullet, runs in quote.items():
        pdf.set_x(left)
        pdf.set_font("Helvetica", "", 8.5)
        if bullet:
            pdf.write(4.2, "- ")
        for text, style in runs:
            if style == "b":
                pdf.set_font("Helvetica", "B", 8.5)
            elif style == "code":
                pdf.set_font("Courier", "", 8)
            else:
                pdf.set_font("Helvetica", "", 8.5)
            pdf.write(4.2, _latin1(text))
        pdf.ln(5)
    bottom = pdf.get_y()
    if bottom > top:  # the bar beside it, on this page
        pdf.set_draw_color(217, 225, 242)
        pdf.set_line_width(1)
        pdf.line(pdf.l_margin + 0.5, top, pdf.l_margin + 0.5, bottom - 1)
        pdf.set_line_width(0.2)
        pdf.set_draw_color(31, 56, 100)
    pdf.ln(1)


FORMATS: dict[str, Callable[[Memo], str | bytes]] = {
    ".md": to_markdown,
    ".markdown": to_markdown,
    ".html": to_html,
    ".htm": to_html,
    ".pdf": to_pdf,
}


def render(memo: Memo, suffix: str) -> str | bytes:
    """The memo as Markdown (``.md``), HTML (``.html``) or PDF (``.pdf``, bytes)."""
    try:
        renderer = FORMATS[suffix.lower()]
    except KeyError:
        raise ValueError(
            f"a memo is written as .pdf, .html or .md, not {suffix or 'no extension'!r}"
        ) from None
    return renderer(memo)


def write_memo(
    target: str | Path,
    recalcs: Sequence[Recalculation],
    *,
    protect: Iterable[Path] = (),
    generated: dt.datetime | None = None,
) -> Path:
    """Write the memo covering ``recalcs`` to ``target`` (format by extension), atomically;
    never over one of ``protect`` (the input workbooks)."""
    from nj_incentives.files import atomic_path

    target = Path(target)
    content = render(build_memo(recalcs, generated), target.suffix)
    with atomic_path(target, protect=list(protect)) as temporary:
        if isinstance(content, bytes):
            temporary.write_bytes(content)
        else:
            temporary.write_text(content, encoding="utf-8")
    return target
