"""Reading a recalculated workbook: cell values as the workbook shows them, the Inputs,
Outputs, Checks and About sheets, and the engagement fields."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nj_incentives.core.cells import cell_index, cell_name
from nj_incentives.workpapers.memo.document import Block, Paragraph, Table
from nj_incentives.workpapers.recalc.engine import CellValue, ExcelError, Recalculation


def sha256(recalc: Recalculation) -> str:
    """The SHA-256 of the bytes that were recalculated (the vetted copy of the file)."""
    data = recalc.vetted.data if recalc.vetted is not None else Path(recalc.source).read_bytes()
    return hashlib.sha256(data).hexdigest()


def number_formats(recalc: Recalculation) -> dict[tuple[str, str], str]:
    """Each cell's number format, read from the recalculated bytes (read-only, no formulas
    run)."""
    from nj_incentives.workpapers.recalc.charts import cell_formats

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
    from nj_incentives.core.cells import date_from_serial

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


def sheet_rows(recalc: Recalculation, sheet: str) -> dict[int, dict[int, CellValue]]:
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
    rows = sheet_rows(recalc, sheet)
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

    legend = False  # the tickmark legend: the workbook prints it; the memo leaves it out
    for row in numbers:
        if row <= 2:  # the sheet's title and subtitle
            continue
        cells = rows[row]
        if set(cells) == {1} and str(cells[1]).startswith("Tickmarks ("):
            legend = True
            continue
        if legend and row - 1 not in rows:
            legend = False
        if legend:
            continue
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
    first_names = list(names)
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
    blank = [row[0] for row in kept if not any(v for v in row[1:])]  # rows between
    kept = [row for row in kept if any(v for v in row[1:])]
    empty = [c for c in range(1, len(names)) if not any(c < len(r) and r[c] for r in kept)]
    if empty:  # columns blank on every row (no tick, no source): named, not drawn
        columns = [c for c in range(len(names)) if c not in empty]
        names = [names[c] for c in columns]
        kept = [tuple(row[c] if c < len(row) else "" for c in columns) for row in kept]
    blocks.append(Table(tuple(names), tuple(kept)))
    notes = []
    if blank:
        notes.append(_listed(blank))
    if len(body) > len(kept) + len(blank):
        after = body[len(kept) + len(blank) :]
        notes.append(f"{after[0][0]} to {after[-1][0]}" if len(after) > 1 else after[0][0])
    if empty:
        shown = ", ".join(header for c, header in enumerate(first_names) if c in empty)
        notes.append(f"the column{'s' if len(empty) > 1 else ''} {shown} in every row")
    if notes:
        blocks.append(Paragraph(f"Left blank: {'; '.join(notes)}."))
    return blocks


def _listed(labels: Sequence[str]) -> str:
    """Row labels as a list, a shared first word or words said once: "Accrued in 2008,
    2009, 2012"."""
    words = [label.split(" ") for label in labels]
    shared = 0
    while len(labels) > 1 and all(
        len(w) > shared + 1 and w[shared] == words[0][shared] for w in words
    ):
        shared += 1
    if not shared:
        return ", ".join(labels)
    return " ".join(words[0][:shared]) + " " + ", ".join(" ".join(w[shared:]) for w in words)


def labelled_values(
    recalc: Recalculation, formats: Mapping[tuple[str, str], str], sheet: str = "Outputs"
) -> list[tuple[str, str, str]]:
    """(label, unit, value) of each row of a sheet with a label in A and a value in C."""
    show = _shown(recalc, formats, sheet)
    found = []
    for row, cells in sorted(sheet_rows(recalc, sheet).items()):
        if 1 in cells and 3 in cells:
            found.append((str(cells[1]), str(cells.get(2, "")), show(row, 3, cells[3])))
    return found


def checks(recalc: Recalculation) -> list[tuple[str, str, CellValue]]:
    """(check, citation, result) of each line of the Checks sheet."""
    rows = sheet_rows(recalc, "Checks")
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


def check_line(label: str, citation: str) -> str:
    """A check as one line of text: its label and its citation in parentheses, once (a
    refusal check's label already ends with it: the refused cell's rule and citation)."""
    cited = f" ({citation})" if citation else ""
    return label if label.endswith(cited) else label + cited


def about(recalc: Recalculation, label: str) -> str:
    """The About sheet's value for ``label`` ("Template", "Package"), or ""."""
    for _row, cells in sorted(sheet_rows(recalc, "About").items()):
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
    from nj_incentives.core.cells import date_from_serial

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
