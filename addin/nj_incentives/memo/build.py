"""The memo's content: a summary, one section per workbook, the interpretations applied
(:func:`build_memo`)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from nj_incentives.catalog import EXPLAIN_COLUMNS, headers
from nj_incentives.cells import cell_index, cell_name
from nj_incentives.law.parameters import law_not_modelled
from nj_incentives.memo.calls import NJResult, cell_label, nj_results
from nj_incentives.memo.document import (
    NUMBER_CELL,
    Block,
    Code,
    Heading,
    Items,
    Memo,
    PageBreak,
    Paragraph,
    Quote,
    Table,
)
from nj_incentives.memo.interpretations import (
    INTERPRETATIONS,
    interpretation_sections,
    interpretations_text,
)
from nj_incentives.memo.sheets import (
    ENGAGEMENT_FIELDS,
    about,
    checks,
    display,
    engagement,
    input_sheets,
    inputs_blocks,
    labelled_values,
    master_check,
    number_formats,
    sha256,
    sheet_rows,
)
from nj_incentives.recalc.engine import (
    CellValue,
    Recalculation,
    quote_sheet,
)
from nj_incentives.version import LAW_CURRENT_TO, __version__


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
    rows = sheet_rows(recalc, sheet)
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
            f"to: {LAW_CURRENT_TO}. Known, not modelled: {law_not_modelled()}."
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
    rows = sheet_rows(recalc, "Checks")
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
            what = cell_label(recalc, sheet, f"{match.group(3)}{match.group(4)}")
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
        if NUMBER_CELL.match(cell.strip()) and not re.fullmatch(r"(19|20)\d\d", cell.strip())
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
