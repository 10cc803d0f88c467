"""The memo's content: a summary, one section per workbook, the interpretations applied
(:func:`build_memo`)."""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from nj_incentives.core.cells import cell_index, cell_name
from nj_incentives.core.parameters import law_not_modelled
from nj_incentives.functions.catalog import EXPLAIN_COLUMNS, headers
from nj_incentives.support.reading import printable
from nj_incentives.version import LAW_CURRENT_TO, __version__
from nj_incentives.workpapers.memo.calls import NJResult, cell_label, defined_names, nj_results
from nj_incentives.workpapers.memo.document import (
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
from nj_incentives.workpapers.memo.interpretations import (
    INTERPRETATIONS,
    interpretation_sections,
    interpretations_text,
)
from nj_incentives.workpapers.memo.sheets import (
    ENGAGEMENT_FIELDS,
    about,
    check_line,
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
from nj_incentives.workpapers.memo.summary import law_rows, signoff_rows, switches, switches_set
from nj_incentives.workpapers.memo.trace import behind
from nj_incentives.workpapers.recalc.engine import CellValue, Recalculation, quote_sheet


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
        name=printable(recalc.source.name),
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


_EDITION = re.compile(r"\b(Form \d+) \(((?:[^()]|\([^()]*\))*edition(?:[^()]|\([^()]*\))*)\)")


def editions(texts: Sequence[str]) -> dict[str, str]:
    """The forms named with one edition throughout ``texts`` ("Form 313" -> "2023
    edition, rev. October 2023"): said once, so that each line can say just "Form 313"."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for match in _EDITION.finditer(text):
            found.setdefault(match[1], set()).add(match[2])
    return {form: next(iter(eds)) for form, eds in found.items() if len(eds) == 1}


def without_editions(text: str, named: Mapping[str, str]) -> str:
    """``text`` with each form of ``named`` without its edition ("Form 313 Part III")."""
    return _EDITION.sub(lambda m: m[1] if named.get(m[1]) == m[2] else m[0], text)


def editions_note(named: Mapping[str, str]) -> str:
    """ "Form 313: 2023 edition, rev. October 2023" for each form of ``named``."""
    return "; ".join(f"{form}: {edition}" for form, edition in named.items())


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


def _people(
    engagements: Sequence[Mapping[str, str]], statuses: Sequence[Sequence[Any]] | None = None
) -> str:
    """Who prepared and who reviews: "Preparer A; Reviewer B" ("(blank)" when not filled
    in; several workbooks' distinct names joined); "B (stale)" where that sign-off no
    longer holds (``statuses``: each workbook's sign-offs: inputs changed since, or
    formulas that differ from the template)."""
    roles = {"Preparer": "prepared", "Reviewer": "reviewed"}
    parts = []
    for label in ("Preparer", "Reviewer"):
        names = []
        for number, fields in enumerate(engagements):
            name = fields.get(label, "")
            found = statuses[number] if statuses and number < len(statuses) else ()
            signed = next((s for s in found if s.role == roles[label]), None)
            if name and signed is not None and (signed.stale or signed.formulas_count):
                name += " (stale)"
            if name and name not in names:
                names.append(name)
        parts.append(f"{label} {', '.join(names) or '(blank)'}")
    return "; ".join(parts)


def _signoff_warning(name: str, signoffs: Sequence[Any], extra: Sequence[str]) -> str:
    """Page 1's sign-off banner for a workbook whose sign-off no longer holds: who signed
    and when, that the inputs changed since (each input: name, cell, value signed, value
    now) or that its formulas differ from the template's; a review over the order (the
    override); "" when every sign-off holds (or none was made)."""
    said = []
    changes: dict[str, Any] = {}
    for one in signoffs:
        if not one.signed or not (one.stale or one.formulas_count):
            continue
        said.append(one.line)
        changes.update((change.cell, change) for change in one.changes)
    if changes:
        shown = "; ".join(change.line for change in list(changes.values())[:5])
        more = f"; and {len(changes) - 5} more" if len(changes) > 5 else ""
        said.append(f"changed since: {shown}{more}")
    said += [line for line in extra if line.startswith("OVERRIDE")]
    if not said:
        return ""
    what = (
        "SIGN-OFF OVER CHANGED FORMULAS"
        if any(one.signed and one.formulas_count for one in signoffs)
        else "SIGN-OFF STALE"
        if any(one.stale for one in signoffs)
        else "SIGN-OFF OVERRIDE"
    )
    return f"{what}: {name}: " + "; ".join(said) + ". Review the changes and sign again."


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
            table.small,
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


#: What the appendix of steps holds: the NJ_* results behind the first page's figures
#: ("summary", the default), or every NJ_* result with every step ("all").
STEPS = ("summary", "all")


def build_memo(
    recalcs: Sequence[Recalculation],
    generated: dt.datetime | None = None,
    *,
    steps: str = "summary",
    law_as_of: dt.date | None = None,
    tax_year: int | None = None,
) -> Memo:
    """The memo covering ``recalcs``, for a reviewer: page 1 the summary (a warning for
    each workbook whose master check is not TRUE, the engagement, each workbook's master
    check and key figures, the law versions modelled, the switches each workbook sets,
    the sign-off block); then each workbook's schedules (its checks, inputs, outputs and
    the tables it computes); then Appendix A, the steps (``steps`` "summary": of the NJ_*
    results behind the figures on page 1; "all": of every NJ_* result), and Appendix B,
    the readings of the law applied (quoted in full with ``steps="all"``)."""
    if steps not in STEPS:
        raise ValueError(f"steps: expected one of {', '.join(STEPS)}, not {steps!r}")
    moment = generated or dt.datetime.now(dt.UTC).replace(microsecond=0)
    # each table at the visible cells that show it, computed there by its NJ_* call
    recalcs = [recalc.as_shown() for recalc in recalcs]
    memo = Memo("Calculation memo: New Jersey business incentives")
    all_facts = [facts(r) for r in recalcs]
    engagements = [engagement(r) for r in recalcs]
    labels = [label for _name, label in ENGAGEMENT_FIELDS]
    distinct = {tuple(e.get(k, "") for k in labels) for e in engagements}
    stamp = f"nj-incentives {__version__}; {moment.date().isoformat()}"
    memo.running = _running(engagements[0]) if len(distinct) == 1 else _combined(engagements)
    from nj_incentives.workpapers import signoff  # it prints through the memo's writers

    statuses = [signoff.status(recalc) for recalc in recalcs]
    records = [signoff.record_lines(recalc) for recalc in recalcs]
    memo.footer = f"{stamp}; {_people(engagements, statuses)}"
    contexts = [_Context(recalc) for recalc in recalcs]
    for recalc, fact in zip(recalcs, all_facts, strict=True):
        if fact.master_check is not True:
            memo.add(Paragraph(_warning(recalc, fact), strong=True, warning=True))
    # the sign-off banner: a block of its own, after the master checks' warnings
    for fact, found, extra in zip(all_facts, statuses, records, strict=True):
        banner = _signoff_warning(fact.name, found, extra)
        if banner:
            memo.add(Paragraph(banner, strong=True, warning=True))
    memo.add(
        Paragraph(
            f"nj-incentives {__version__}, {moment.isoformat()}: recalculated without Excel; "
            "figures valid only where the master check is TRUE."
        )
    )
    deferred: list[Block] = []
    memo.add(*_summary(recalcs, all_facts, engagements, contexts, law_as_of, tax_year, deferred))
    used: dict[str, list[str]] = {}
    for number, (recalc, fact, fields, context) in enumerate(
        zip(recalcs, all_facts, engagements, contexts, strict=True), 1
    ):
        memo.add(
            PageBreak(),
            *(deferred if number == 1 else ()),
            *_workbook(number, recalc, fact, fields, context, stamp, steps, statuses[number - 1]),
        )
        _readings(context, used)
    memo.add(PageBreak(), *_appendix_steps(recalcs, all_facts, contexts, memo, steps))
    interpretations = _interpretations(used, quoted=steps == "all")
    opening = interpretations[0]
    if isinstance(opening, Heading):  # the memo's engagement again, not the last workbook's
        interpretations[0] = Heading(opening.level, opening.text, memo.running, memo.footer)
    memo.add(*interpretations)
    memo.blocks = [
        part
        for block in memo.blocks
        for part in (wrapped(block) if isinstance(block, Table) else [block])
    ]
    return memo


class _Context:
    """What several parts of the memo read from one workbook, read once."""

    def __init__(self, recalc: Recalculation) -> None:
        self.formats = number_formats(recalc)
        self.results = nj_results(recalc)
        self.names = defined_names(recalc)
        self.figures = [
            ("Outputs", f"C{row}")
            for row, cells in sorted(sheet_rows(recalc, "Outputs").items())
            if 1 in cells and 3 in cells and cells[1] != "All checks pass"
        ]
        self.schedules = [
            anchor
            for anchor, cells in recalc.array_ranges.items()
            if anchor[0] == "Calculations" and _columns(cells) >= SCHEDULE_COLUMNS
        ]
        self._behind: list[tuple[str, str]] | None = None
        self.recalc = recalc

    def behind(self) -> set[tuple[str, str]]:
        if self._behind is None:
            nj = {(r.sheet, r.cell) for r in self.results if r.status != "unused"}
            self._behind = behind(self.recalc, self.figures, nj, self.names)
        return set(self._behind)

    def rosters(self) -> list[NJResult]:
        """The results one step further back than :meth:`behind` whose steps repeat a
        question per item (the average positions, a step per employee and question):
        the page 1 figures rest on their totals, printed as a summary."""
        from nj_incentives.workpapers.memo.trace import formula_references

        first = self.behind()
        nj = {(r.sheet, r.cell) for r in self.results if r.status != "unused"}
        further = set(
            behind(self.recalc, formula_references(self.recalc, first, self.names), nj, self.names)
        )
        return [
            r
            for r in self.results
            if (r.sheet, r.cell) in further - first
            and r.status == "ok"
            and sum(1 for st in getattr(r.result, "steps", ()) or () if _ITEM_STEP.match(st.label))
            >= PIVOT_STEPS
        ]


#: An array result of at least this many columns on the Calculations sheet is one of the
#: workbook's schedules (the grant schedule, installments by tax year, the Form 313
#: schedule), printed with its schedules; narrower ones are in the steps.
SCHEDULE_COLUMNS = 4


def _columns(cells: str) -> int:
    first, _, last = cells.partition(":")
    (_r1, c1), (_r2, c2) = cell_index(first), cell_index(last or first)
    return c2 - c1 + 1


def _warning(recalc: Recalculation, fact: WorkbookFacts) -> str:
    """Page 1's warning for a workbook whose master check is not TRUE: which checks fail."""
    shown = display(fact.master_check) or "missing"
    failed = [
        check_line(label, cite) for label, cite, result in checks(recalc) if result is not True
    ]
    text = f"WARNING: {fact.name}: the master check is {shown}; its figures must not be used."
    if failed:
        more = f"; and {len(failed) - 5} more" if len(failed) > 5 else ""
        text += f" {len(failed)} check(s) fail: " + "; ".join(failed[:5]) + more + "."
    return text


def _signoff_blocks(recalc: Recalculation, signoffs: Sequence[Any]) -> list[Block]:
    """A workbook's sign-off in its section: each sign-off that no longer holds and each
    input changed since it (name, cell, value signed, value now), the override and the
    finalizing recorded, and the review notes (open or cleared, by whom)."""
    from nj_incentives.workpapers import signoff

    record = signoff.read_record(recalc.vetted.data) if recalc.vetted is not None else {}
    blocks: list[Block] = []
    failing = [one for one in signoffs if one.signed and (one.stale or one.formulas_count)]
    extra = signoff.record_lines(recalc)
    notes = [n for n in record.get("notes", []) if isinstance(n, Mapping)]
    if not failing and not notes and not any(line.startswith("OVERRIDE") for line in extra):
        return blocks
    blocks.append(Heading(3, "Sign-off"))
    blocks.append(Items(tuple(one.line for one in signoffs) + tuple(extra)))
    changes = {c.cell: c for one in failing for c in one.changes}
    if changes:
        blocks.append(
            Table(
                ("Input changed since signed", "Cell", "Value signed", "Value now"),
                tuple(
                    (c.name, c.cell, c.signed or "(blank)", c.now or "(blank)")
                    for c in changes.values()
                ),
                small=True,
            )
        )
    if notes:
        blocks.append(
            Table(
                ("Review note on", "Note", "Left by", "Status"),
                tuple(
                    (
                        str(n.get("target", "")),
                        str(n.get("text", "")),
                        f"{n.get('by', '')} {n.get('date', '')}".strip(),
                        (
                            f"cleared {n['cleared'].get('date', '')} by "
                            f"{n['cleared'].get('by', '')}"
                            if isinstance(n.get("cleared"), Mapping)
                            else "OPEN"
                        ),
                    )
                    for n in notes
                ),
                small=True,
            )
        )
    return blocks


def _summary(
    recalcs: Sequence[Recalculation],
    all_facts: Sequence[WorkbookFacts],
    engagements: Sequence[Mapping[str, str]],
    contexts: Sequence[_Context],
    law_as_of: dt.date | None = None,
    tax_year: int | None = None,
    deferred: list[Block] | None = None,
) -> list[Block]:
    """Page 1 after its warnings: engagement, results, law, switches, sign-off. With
    ``tax_year`` the return takes the switches' place on page 1 and the switches go into
    ``deferred``: the top of page 2 (page 1 holds the summary, the law, the return and
    the sign-off, issue 31)."""
    blocks: list[Block] = [Heading(2, "Summary")]
    keys = ("Client", "Entity id", "Tax period(s)")
    if recalcs:
        rows = list(
            dict.fromkeys(tuple(e.get(k, "") or "(blank)" for k in keys) for e in engagements)
        )
        one_client = len({row[:2] for row in rows}) == 1
        if len(rows) == 1:
            blocks.append(Table(("Client", "Entity id", "Tax period(s)"), tuple(rows), small=True))
        elif one_client:  # each workbook's period on its row of the results below
            blocks.append(Table(("Client", "Entity id"), (rows[0][:2],), small=True))
        else:
            blocks.append(
                Table(
                    ("Workbook", *keys),
                    tuple(
                        (f.name, *(e.get(k, "") or "(blank)" for k in keys))
                        for f, e in zip(all_facts, engagements, strict=True)
                    ),
                    small=True,
                )
            )
    figures: list[tuple[str, ...]] = []
    periods = len(rows) > 1 and one_client if recalcs else False
    for recalc, fact, context, fields in zip(
        recalcs, all_facts, contexts, engagements, strict=True
    ):
        _heading, where_of = where_on_form(recalc)
        verdict = display(fact.master_check) or "(none)"
        named = editions([_form_part(text) for text in where_of.values()])
        notes = [fields.get("Tax period(s)", "") or "(blank)"] if periods else []
        notes += [editions_note(named)] if named else []
        shown = f"{fact.name} ({'; '.join(notes)})" if notes else fact.name
        figures.append((f"{shown}: master check {verdict}", ""))  # the workbook's row
        for label, unit, value in labelled_values(recalc, context.formats):
            if label == "All checks pass":
                continue  # the master check, on the workbook's row
            part = without_editions(_form_part(where_of.get(label, "")), named)
            where = f" ({part})" if part else ""
            figures.append(("   " + label + where, with_unit(value, unit)))
    blocks.append(Table(("Workbook and result", "Value"), tuple(figures), small=True))
    blocks += _law_applied_and_returns(recalcs, all_facts, contexts, law_as_of, tax_year)
    table = switches(interpretations_text())
    set_rows: list[tuple[str, ...]] = []
    for fact, recalc, context in zip(all_facts, recalcs, contexts, strict=True):
        found = switches_set(recalc, table, context.names)
        if found:
            set_rows.append((fact.name, "", ""))  # the workbook's row
            set_rows.extend(("   " + label, value, reading) for label, value, reading in found)
    if set_rows:
        (blocks if tax_year is None or deferred is None else deferred).append(
            Table(
                (
                    "Workbook and switch (input)",
                    "Set to",
                    "Reading (docs/interpretations.md; all applied: Appendix B)",
                ),
                tuple(set_rows),
                small=True,
            )
        )
    from nj_incentives.workpapers import signoff  # it prints through the memo's writers: no circle

    blocks.append(
        Table(
            ("Sign-off", "Prepared by", "Reviewed by", "Date", "Status"),
            tuple(
                signoff_rows(
                    engagements,
                    [f.name for f in all_facts],
                    [signoff.status(recalc) for recalc in recalcs],
                )
            ),
            small=True,
        )
    )
    return blocks


# --------------------------------------------------------------------------- page 1: the
# law applied and the return (issue 31; kept in one block apart from the sign-off's)


def _law_applied_and_returns(
    recalcs: Sequence[Recalculation],
    all_facts: Sequence[WorkbookFacts],
    contexts: Sequence[_Context],
    law_as_of: dt.date | None,
    tax_year: int | None,
) -> list[Block]:
    """Page 1's law applied (``law_as_of``: the law as it stood on that day, else the law
    in force for each period computed; the acts the NJ_* results shown applied, per
    workbook, distinct from the versions modelled) and, with ``tax_year``, each
    workbook's return for that tax year (its template's ``RETURN``, through the
    registry)."""
    from nj_incentives import programs
    from nj_incentives.core import parameters as P

    applied: dict[str, list[str]] = {}  # act -> the workbooks whose results applied it
    for number, context in enumerate(contexts, 1):
        for result in context.results:
            if version := str(getattr(result.result, "version", "") or ""):
                names = applied.setdefault(version, [])
                if str(number) not in names:
                    names.append(str(number))
    rows = []
    for (statute, _modelled), record in zip(law_rows(), P.STATUTES.values(), strict=True):
        acts = sorted(record.acts, key=lambda a: a.date)
        shown = ", ".join(act.label() + ("*" if act.name in applied else "") for act in acts)
        rows.append((statute, shown))
    when = (
        f"the law as of {law_as_of.isoformat()}"
        if law_as_of is not None
        else "each period's own law"
    )
    blocks: list[Block] = [
        Table(
            (
                "Statute",
                f"Versions modelled (figures.py); *applied ({when})",
            ),
            tuple(rows),
            small=True,
        )
    ]
    if tax_year is None:
        return blocks
    lines: list[tuple[str, ...]] = []
    for recalc, fact in zip(recalcs, all_facts, strict=True):
        declared = None
        if fact.template:
            with contextlib.suppress(LookupError):
                declared = getattr(programs.template(fact.template), "RETURN", None)

        def read(name: str, recalc: Recalculation = recalc) -> Any:
            try:
                return recalc.value(name)
            except (KeyError, LookupError, ValueError):
                return None

        block = None if declared is None else declared(read, tax_year)
        if block is None:
            lines.append((f"{fact.name}: no return lines for tax year {tax_year}", "", ""))
            continue
        period = f", period ending {block.period_end}" if block.period_end else ""
        if not block.lines:  # no line (a cash grant): why, beside the workbook's row
            lines.append((fact.name, "; ".join(block.notes), ""))
            continue
        lines.append((f"{fact.name}{period}", "", ""))
        for line in block.lines:
            where = line.line.label(what=False) if line.line is not None else line.note
            amount = "not computed here" if line.amount is None else f"${line.amount:,.2f}"
            lines.append(("   " + line.label, where, amount))
        lines += [("   Note: " + note, "", "") for note in block.notes]
    blocks.append(
        Table(
            (f"The return, tax year {tax_year}", "Form and line", "Amount"),
            tuple(lines),
            small=True,
        )
    )
    return blocks


def _readings(context: _Context, used: dict[str, list[str]]) -> None:
    for result in context.results:
        if result.status == "ok":
            for heading in INTERPRETATIONS.get(result.call.function, ()):
                functions = used.setdefault(heading, [])
                if result.call.function not in functions:
                    functions.append(result.call.function)


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
    context: _Context,
    stamp: str = "",
    steps: str = "summary",
    signoffs: Sequence[Any] = (),
) -> list[Block]:
    """A workbook's schedules: the file, its checks, its sign-off (when it no longer
    holds, was overridden or has review notes), inputs, outputs and the tables it
    computes (its steps are in Appendix A)."""
    formats = context.formats
    people = _people([fields], [signoffs])
    footer = f"{stamp}; {people}" if stamp else people
    blocks: list[Block] = [
        Heading(2, f"{number}. {fact.name}", running=_running(fields), footer=footer)
    ]
    lines = checks(recalc)
    passed = sum(1 for _l, _c, result in lines if result is True)
    every_check = bool(lines) and passed == len(lines) and steps != "all"
    built = f" (built with {fact.built_with})" if fact.built_with else ""
    blocks.append(
        Table(
            ("Item", "Value"),
            (
                ("File", fact.name),
                ("SHA-256", fact.sha256),
                ("Template", (fact.template or "(not a nj-incentives template)") + built),
                (
                    "Recalculated",
                    f"{len(recalc.formulas)} formulas, {sum(recalc.calls.values())} NJ_* calls",
                ),
                ("Master check", display(fact.master_check) or "(none)"),
                *((("Checks", f"{passed} of {len(lines)} on the Checks sheet TRUE"),)
                  if every_check else ()),
                *_inputs_hash(recalc),
            ),
        )
    )  # fmt: skip
    if fact.master_check is not True:
        blocks.append(
            Paragraph(
                "THE MASTER CHECK IS NOT TRUE: the figures below must not be used.",
                strong=True,
                warning=True,
            )
        )
    blocks += _signoff_blocks(recalc, signoffs)
    errors = recalc.error_cells()
    if errors:
        blocks.append(Heading(3, "Cells with errors"))
        blocks.append(Table(("Cell", "Shows"), tuple((where, text) for where, text in errors)))
    if recalc.notes:
        blocks.append(Items(tuple(recalc.notes)))
    if lines and not every_check:  # (every check TRUE: one line of the table above)
        blocks.append(Heading(3, "Checks"))
        labels = _distinct_labels(recalc, lines)
        rows = tuple(
            (label, cite, display(result))
            for label, (_l, cite, result) in zip(labels, lines, strict=True)
            if steps == "all" or result is not True
        )
        if rows:
            blocks.append(Table(("Check", "Citation", "Result"), rows))
        if steps != "all":
            blocks.append(
                Paragraph(
                    f"{passed} of {len(lines)} checks on the Checks sheet are TRUE"
                    + ("." if passed == len(lines) else "; those that are not are listed above.")
                )
            )
    blocks.append(Heading(3, "Inputs"))
    blocks.extend(_without_engagement(inputs_blocks(recalc, formats)))
    for sheet in input_sheets(recalc)[1:]:  # inputs continued on sheets of their own
        blocks.append(Heading(4, sheet))
        blocks.extend(_without_engagement(inputs_blocks(recalc, formats, sheet)))
    outputs = [
        (label, with_unit(value, unit))
        for label, unit, value in labelled_values(recalc, formats)
        if label != "All checks pass"  # the master check, in the table above
    ]
    if outputs:
        blocks.append(Heading(3, "Outputs"))
        heading, where_of = where_on_form(recalc)
        if where_of:  # the template's own Form 313 parts and lines (or subsections)
            named = editions(list(where_of.values()))
            if named:
                heading = f"{heading} ({editions_note(named)})"
            blocks.append(
                Table(
                    ("Output", "Value", heading),
                    tuple(
                        (label, value, without_editions(where_of.get(label, ""), named))
                        for label, value in outputs
                    ),
                )
            )
        else:
            blocks.append(Table(("Output", "Value"), tuple(outputs)))
    if context.schedules:
        blocks.append(Heading(3, "Schedules"))
        for anchor in sorted(context.schedules, key=lambda a: cell_index(a[1])):
            label = _section_title(recalc, *anchor)
            where = f"{quote_sheet(anchor[0])}!{recalc.array_ranges[anchor]}"
            blocks.append(Heading(4, f"{label} ({where})" if label else where))
            blocks.extend(_array_blocks(recalc, anchor, formats))
    return blocks


def _inputs_hash(recalc: Recalculation) -> list[tuple[str, str]]:
    """The file table's row of the inputs hash the sign-offs are checked against (the
    Inputs sheet's sign-off fields are not printed: page 1 gives each sign-off's state),
    none for a workbook without one."""
    from nj_incentives.core.workpaper import INPUTS_HASH

    try:
        value = recalc.value(INPUTS_HASH)
    except ValueError:
        return []
    if isinstance(value, list):
        return []
    from nj_incentives.workpapers.signoff import inspect

    computed = inspect(recalc).hash_now  # from the template's inputs, not the file's cell
    shown = computed or display(value).strip()
    return [("Inputs hash", shown)] if shown else []


def _without_engagement(blocks: Sequence[Block]) -> list[Block]:
    """An Inputs sheet's blocks without what page 1 and every page's header show: the
    engagement band's text, the engagement fields' table and the sign-off fields' table
    (page 1's sign-off block gives each sign-off's state), each with the heading above it."""
    kept: list[Block] = []
    for block in blocks:
        if isinstance(block, Table):
            labels = {row[0] for row in block.rows if row}
            heading = next((h for fields, h in _PAGE_1_TABLES if fields <= labels), None)
            if heading is not None:
                if kept and isinstance(kept[-1], Paragraph) and kept[-1].text.startswith(heading):
                    kept.pop()
                continue
        if isinstance(block, Paragraph) and "Prepared by:" in block.text:
            continue
        kept.append(block)
    return kept


#: The Inputs tables page 1 shows (their rows' labels) and the heading above each.
_PAGE_1_TABLES = (
    ({"Client", "Entity ID"}, "Engagement"),
    ({"Prepared by", "Reviewed by"}, "Sign-off"),
)


def _array_blocks(
    recalc: Recalculation, anchor: tuple[str, str], formats: Mapping[tuple[str, str], str]
) -> list[Block]:
    """An array formula's cells as a table: the builder's header row above it (units
    between) or its own first row, the labels of column A in front when it has them."""
    sheet = anchor[0]
    first, _, last = recalc.array_ranges[anchor].partition(":")
    (r1, c1), (r2, c2) = cell_index(first), cell_index(last or first)

    def shown(r: int, c: int) -> str:
        key = (sheet, cell_name(r, c))
        return display(recalc.values.get(key), formats.get(key, "General"))

    grid = [[shown(r, c) for c in range(c1, c2 + 1)] for r in range(r1, r2 + 1)]
    labels = [shown(r, 1) if c1 > 1 else "" for r in range(r1, r2 + 1)]
    while grid and not any(grid[-1]):
        grid.pop()
        labels.pop()
    if not grid:
        return [Paragraph("(blank)")]
    above = [recalc.values.get((sheet, cell_name(r1 - 2, c))) for c in range(c1, c2 + 1)]
    first_row = [recalc.values.get((sheet, cell_name(r1, c))) for c in range(c1, c2 + 1)]
    if all(isinstance(v, str) for v in first_row) and len(grid) > 1:
        headers, body, labels = tuple(grid[0]), grid[1:], labels[1:]
    elif r1 > 2 and all(v is not None and v != "" for v in above):
        headers, body = tuple(display(v) for v in above), grid  # the builder's header row
    else:
        headers, body = tuple(f"Column {n}" for n in range(1, len(grid[0]) + 1)), grid
    zero = re.compile(r"^[-$]*0(?:\.0+)?%?$|^$")
    kept = len(body)
    while kept > 1 and all(zero.match(cell) for cell in body[kept - 1]):
        kept -= 1
    start = 0
    while start < kept - 1 and any(labels) and all(zero.match(c) for c in body[start]):
        start += 1  # rows of nothing before the first (years before an accrual's first)
    spans = []
    if start:
        spans.append(f"{labels[0]} to {labels[start - 1]}" if start > 1 else labels[0])
    if kept < len(body):  # rows of nothing at the end (years after the last installment)
        spans.append(
            f"{labels[kept]} to {labels[-1]}"
            if any(labels)
            else f"The last {len(body) - kept} rows"
        )
    note: list[Block] = []
    if spans:
        note = [Paragraph(f"{' and '.join(spans)}: every amount 0.00 (rows not printed).")]
    body, labels = body[start:kept], labels[start:kept]
    if any(labels):
        head = display(recalc.values.get((sheet, cell_name(r1 - 2, 1)))) if r1 > 2 else ""
        if head == _section_title(recalc, sheet, anchor[1]):
            head = ""  # the table's title, printed above it
        return [
            Table(
                (head, *headers),
                tuple((label, *row) for label, row in zip(labels, body, strict=True)),
            ),
            *note,
        ]
    return [Table(headers, tuple(tuple(row) for row in body)), *note]


def _section_title(recalc: Recalculation, sheet: str, cell: str) -> str:
    """The heading above a table: the nearest row above it with text in column A only."""
    row, _col = cell_index(cell)
    for above in range(row - 1, max(row - 6, 0), -1):
        value = recalc.values.get((sheet, f"A{above}"))
        others = any(
            recalc.values.get((sheet, cell_name(above, c))) not in (None, "") for c in range(2, 12)
        )
        if isinstance(value, str) and value.strip() and not others:
            return value.strip()
    return cell_label(recalc, sheet, cell)


def _appendix_steps(
    recalcs: Sequence[Recalculation],
    all_facts: Sequence[WorkbookFacts],
    contexts: Sequence[_Context],
    memo: Memo,
    steps: str,
) -> list[Block]:
    """Appendix A: each workbook's NJ_* results with their steps and citations."""
    every = steps == "all"
    title = (
        "Appendix A: every NJ_* result, with its steps and citations"
        if every
        else "Appendix A: the steps behind the figures on page 1"
    )
    blocks: list[Block] = [
        Heading(2, title, memo.running, memo.footer),
        Paragraph(
            "Each NJ_* result re-evaluated by the calculation core from the arguments the "
            "recalculation passed, with each step's arithmetic and citation."
            + (
                ""
                if every
                else " Only the results the page 1 figures are computed from (followed back "
                "through the workbook's formulas to the first NJ_* result on each path); "
                "their arguments are in the schedules. A step repeated for each employee or "
                "year is one table; the results those take as given that ask the same "
                "questions of each employee (the average positions) are summarised, a "
                "question counted or summed per period. `--steps all` prints every result "
                "and every step."
            )
        ),
    ]
    for number, (recalc, fact, context) in enumerate(
        zip(recalcs, all_facts, contexts, strict=True), 1
    ):
        blocks.append(Heading(3, f"Steps of workbook {number}: {fact.name}"))
        wanted = None if every else context.behind()
        shown_at = set(context.schedules)
        unused: list[str] = []
        shown: list[tuple[NJResult, str]] = []
        for result in context.results:
            where = f"{quote_sheet(result.sheet)}!{result.cell}"
            if result.status == "unused":
                unused.append(f"{where} ({result.label}): {result.call.function}; {result.message}")
                continue
            if wanted is not None and (result.sheet, result.cell) not in wanted:
                continue
            shown.append((result, where))
        if not shown:
            blocks.append(Paragraph("No NJ_* result stands behind the figures on page 1."))
        if not every:
            blocks.extend(_by_function(shown, recalc, context.formats, shown_at))
            blocks.extend(_roster_summary(context.rosters()))
            continue
        for run in _runs(shown, recalc):
            if len(run) >= 3:
                blocks.extend(_compact_blocks(run, recalc, context.formats))
            else:
                for result, where in run:
                    blocks.extend(
                        _result_blocks(result, where, recalc, context.formats, every, shown_at)
                    )
        if unused and every:
            blocks.append(
                Paragraph("Calls not used (the formula's IF takes its other branch, so no steps):")
            )
            blocks.append(Items(tuple(unused)))
    return blocks


def _by_function(
    shown: Sequence[tuple[NJResult, str]],
    recalc: Recalculation,
    formats: Mapping[tuple[str, str], str],
    shown_at: Collection[tuple[str, str]],
) -> list[Block]:
    """The results of each function together, in the order of its first cell: what the
    function computes (once), its results of nothing but 0.00 on one line, those of at
    most three steps as one table, and each other result with its arguments and steps
    (the formula and the result's table are in the schedules and the workbook)."""
    from nj_incentives.functions import CATALOG

    groups: dict[str, list[tuple[NJResult, str]]] = {}
    for item in shown:
        groups.setdefault(item[0].call.function, []).append(item)
    blocks: list[Block] = []
    same_as: dict[Any, str] = {}
    for function, items in groups.items():
        entry = CATALOG[function]
        blocks.append(Heading(4, f"{function}: {len(items)} result(s)"))
        blocks.append(Paragraph(entry.description))
        zeros = [(r, w) for r, w in items if r.status == "ok" and _all_zero(r, recalc, formats)]
        compact = [
            (r, w) for r, w in items if (r, w) not in zeros and _compact(r, recalc, rows=True)
        ]
        if zeros:
            cells = ", ".join(_short_cell(r, w) for r, w in zeros)
            blocks.append(Paragraph(f"Every amount 0.00 (steps not repeated): {cells}."))
        if compact:
            blocks.extend(_compact_table(compact, recalc, formats, entry, same_as))
        unevaluated = [(r, w) for r, w in items if r.status == "unevaluated"]
        if unevaluated:
            cells = ", ".join(f"{w} ({r.label})" if r.label else w for r, w in unevaluated)
            blocks.append(
                Paragraph(
                    "Not re-evaluated here (an argument is an expression, computed by the "
                    f"workbook; the cells show the workbook's results): {cells}."
                )
            )
        rest = [
            (r, w)
            for r, w in items
            if (r, w) not in zeros and (r, w) not in compact and r.status != "unevaluated"
        ]
        plain = [
            (r, w)
            for r, w in rest
            if r.status == "ok"
            and bool(getattr(r.result, "steps", None))
            and not any(_ITEM_STEP.match(st.label) for st in r.result.steps)
        ]
        if len(plain) >= 2:  # one table: each result's steps under its cell
            blocks.extend(_steps_table(plain))
        for result, where in rest:
            if (result, where) in plain and len(plain) >= 2:
                continue
            blocks.append(Heading(5, f"{where}" + (f" ({result.label})" if result.label else "")))
            if result.arguments:
                blocks.append(
                    Paragraph("Arguments: " + "; ".join(f"{n} = {v}" for n, v in result.arguments))
                )
            if result.status in ("rejected", "unevaluated"):
                blocks.append(Paragraph(f"Result: {result.message}", strong=True))
                continue
            steps = getattr(result.result, "steps", ()) or ()
            if result.own:  # a nested call: its own value, not the enclosing cell's
                blocks.append(Paragraph(f"Result: {result.own}", strong=True))
            elif (result.sheet, result.cell) not in recalc.array_ranges:
                key = (result.sheet, result.cell)
                value = display(recalc.values.get(key), formats.get(key, "General"))
                blocks.append(Paragraph(f"Result: {value}", strong=True))
            elif (result.sheet, result.cell) in shown_at:
                blocks.append(Paragraph("Result: the schedule of the same cells (above)."))
            if steps:
                blocks.extend(step_blocks(steps, pivot=True))
            elif entry.citation:
                blocks.append(Paragraph(f"Citation: {entry.citation}"))
    return blocks


def _roster_summary(results: Sequence[NJResult]) -> list[Block]:
    """Results whose steps ask the same questions of each item (employee) as one table
    per function: a row per question or total, a column per result. A yes/no question
    is counted ("27 of 30"), a number summed over the items; the other steps (the totals
    and the average) with their arithmetic. Each item's own steps: ``--steps all``."""
    from nj_incentives.functions import CATALOG

    groups: dict[str, list[NJResult]] = {}
    for result in results:
        groups.setdefault(result.call.function, []).append(result)
    blocks: list[Block] = []
    for function, items in groups.items():
        entry = CATALOG[function]
        order: list[str] = []
        cites: dict[str, str] = {}
        columns: list[dict[str, str]] = []
        plural = "item's"
        for result in items:
            shown: dict[str, str] = {}
            tallies: dict[str, list[Any]] = {}
            family = ""
            names: set[str] = set()
            for step in result.result.steps:
                match = _ITEM_STEP.match(step.label)
                key = step.label
                if match:
                    family = match["family"]
                    names.add(match["number"])
                    key = f"{family}s: {match['what']}"
                    tallies.setdefault(key, []).append(step.value)
                else:
                    text = step.arithmetic or _step_value(step.value)
                    shown[key] = text if len(text) <= 90 else _step_value(step.value)
                if key not in order:
                    order.append(key)
                cites.setdefault(key, step.citation or "")
            count = f"{family}s: rows with hours or values" if family else "Items"
            shown[count] = str(len(names))
            plural = f"{family.lower()}'s" if family else "item's"
            if count not in order:
                order.insert(1 if order and order[0] in shown else 0, count)
            for key, values in tallies.items():
                if all(isinstance(v, bool) for v in values):
                    shown[key] = f"{sum(1 for v in values if v)} of {len(values)}"
                # a number asked of each item is summed by the function's own steps below
            columns.append(shown)
        rows = tuple(
            (key, *(column.get(key, "") for column in columns), cites.get(key, ""))
            for key in order
            if any(key in column for column in columns)
        )
        headers = (
            "Step",
            *(f"{r.cell} ({r.label.split(' (')[0]})" if r.label else r.cell for r in items),
            "Citation",
        )
        blocks += [
            Heading(4, f"{function}: {len(items)} result(s), summarised"),
            Paragraph(
                entry.description
                + " The results above take these as given: each yes/no question asked of "
                f"every {plural[:-2]} counted, then the function's totals; each {plural} own "
                "steps print with `--steps all`."
            ),
            Table(headers, rows),
        ]
    return blocks


def _short_cell(result: NJResult, where: str) -> str:
    """A result's cell and what it is for, short: "C30 (Accrued in 2008)" (the label up to
    its first colon; Calculations, the sheet of every NJ_* result, not named)."""
    label = result.label.split(": ")[0] if result.label else ""
    cell = where.removeprefix("Calculations!")
    return f"{cell} ({label})" if label else cell


def _steps_table(items: Sequence[tuple[NJResult, str]]) -> list[Block]:
    """Several results of one function as one table of their steps: the cell and what it
    is for on each result's first step; a citation the step before has reads "as above"."""
    rows: list[tuple[str, ...]] = []
    previous = ""
    for result, where in items:
        for n, step in enumerate(result.result.steps, 1):
            cite = step.citation or ""
            shown = "as above" if cite and cite == previous else cite
            previous = cite
            rows.append(
                (
                    _short_cell(result, where) if n == 1 else "",
                    str(n),
                    step.label,
                    _step_value(step.value),
                    step.arithmetic,
                    shown,
                )
            )
    return [Table(("Cell", "#", "Step", "Value", "Arithmetic", "Citation"), tuple(rows))]


def _all_zero(
    result: NJResult, recalc: Recalculation, formats: Mapping[tuple[str, str], str]
) -> bool:
    """Whether every amount of the result as the workbook shows it is 0.00."""
    figures = [
        cell
        for block in _shown_result(result, recalc, formats)
        if isinstance(block, Table)
        for row in block.rows
        for cell in row
        if NUMBER_CELL.match(cell.strip()) and not re.fullmatch(r"(19|20)\d\d", cell.strip())
    ]
    money = [cell for cell in figures if "." in cell and not cell.strip().endswith("%")]
    return bool(money) and all(float(c.replace(",", "").replace("$", "")) == 0 for c in money)


def _shown_value(
    result: NJResult, recalc: Recalculation, formats: Mapping[tuple[str, str], str]
) -> str:
    """A result as its cell (or its one-row array's cells) shows it."""
    if result.own:  # a nested call: its own value, not the enclosing cell's
        return result.own
    key = (result.sheet, result.cell)
    cells = recalc.array_ranges.get(key)
    if cells is None:
        return display(recalc.values.get(key), formats.get(key, "General"))
    first, _, last = cells.partition(":")
    (r1, c1), (_r2, c2) = cell_index(first), cell_index(last or first)
    return "; ".join(
        display(
            recalc.values.get((result.sheet, cell_name(r1, c))),
            formats.get((result.sheet, cell_name(r1, c)), "General"),
        )
        for c in range(c1, c2 + 1)
    )


def _compact_table(
    items: Sequence[tuple[NJResult, str]],
    recalc: Recalculation,
    formats: Mapping[tuple[str, str], str],
    entry: Any,
    same_as: dict[Any, str] | None = None,
) -> list[Block]:
    """Results of at most three steps, one row each: cell, what for, arguments, result and
    the steps; a step's citation that every row shares is listed once below the table.
    ``same_as``: the step columns of the tables printed before (a function whose steps
    are another's, row for row, prints its results and names that table)."""
    all_steps = [tuple(getattr(r.result, "steps", ()) or ()) for r, _w in items]
    shared: dict[int, str] = {}
    for n in range(max((len(s) for s in all_steps), default=0)):
        found = {s[n].citation for s in all_steps if len(s) > n}
        if len(found) == 1 and all(len(s) > n for s in all_steps):
            shared[n] = found.pop() or ""
    labels = {tuple(s.label for s in steps) for steps in all_steps}
    if (
        len(labels) == 1
        and all(s.arithmetic for steps in all_steps for s in steps)
        and all_steps[0]
    ):
        # the same steps in every row: a column each, its arithmetic (the arguments in it)
        names = next(iter(labels))
        rows = [
            (
                where.removeprefix("Calculations!"),
                result.label,
                _shown_value(result, recalc, formats),
                *(s.arithmetic + (f" [{s.citation}]" if s.citation and n not in shared else "")
                  for n, s in enumerate(steps)),
            )
            for (result, where), steps in zip(items, all_steps, strict=True)
        ]  # fmt: skip
        steps_of = (names, tuple(row[3:] for row in rows))
        if same_as is not None and steps_of in same_as:  # another function's very steps
            return [
                Table(("Cell", "For", "Result"), tuple(row[:3] for row in rows)),
                Paragraph(
                    f"Steps: those of {same_as[steps_of]} above, row for row (the same "
                    f"{len(names)} steps and arithmetic; this function returns another of them)."
                ),
            ]
        if same_as is not None:
            same_as[steps_of] = f"{items[0][0].call.function} ({items[0][1]} ...)"
        blocks: list[Block] = [
            Table(("Cell", "For", "Result", *(f"{n}. {x}" for n, x in enumerate(names, 1))),
                  tuple(rows))
        ]  # fmt: skip
        legend = "; ".join(
            f"step {n + 1}: {cite.rstrip('.')}" for n, cite in shared.items() if cite
        )
        if legend:
            blocks.append(Paragraph(f"Citations, every row: {legend}."))
        return blocks
    rows = []
    for (result, where), steps in zip(items, all_steps, strict=True):
        arguments = "; ".join(f"{name} {text}" for name, text in result.arguments)
        lines = []
        for n, s in enumerate(steps):
            cite = f" [{s.citation}]" if s.citation and n not in shared else ""
            lines.append(f"{n + 1}. {s.label}: {s.arithmetic or _step_value(s.value)}{cite}")
        worked = "\n".join(lines) or (f"[{entry.citation}]" if entry.citation else "")
        cell = where.removeprefix("Calculations!")
        rows.append((cell, result.label, arguments, _shown_value(result, recalc, formats), worked))
    blocks = [Table(("Cell", "For", "Arguments", "Result", "Steps"), tuple(rows))]
    legend = "; ".join(
        f"step {n + 1} ({all_steps[0][n].label}): {cite.rstrip('.')}"
        for n, cite in shared.items()
        if cite
    )
    if legend:
        blocks.append(Paragraph(f"Citations, every row: {legend}."))
    return blocks


def _compact(result: NJResult, recalc: Recalculation, rows: bool = False) -> bool:
    """A result shown as one line of a table: computed, one cell (``rows``: or one row
    of at most four cells), at most three steps."""
    span = recalc.array_ranges.get((result.sheet, result.cell))
    if span is not None and rows:
        first, _, last = span.partition(":")
        (r1, c1), (r2, c2) = cell_index(first), cell_index(last or first)
        single = r1 == r2 and c2 - c1 < 4
    else:
        single = span is None
    return result.status == "ok" and single and len(getattr(result.result, "steps", ()) or ()) <= 3


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
    from nj_incentives.functions import CATALOG

    function = run[0][0].call.function
    entry = CATALOG[function]
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
    result: NJResult,
    where: str,
    recalc: Recalculation,
    formats: Mapping[tuple[str, str], str],
    every: bool = True,
    shown_at: Collection[tuple[str, str]] = (),
) -> list[Block]:
    """One NJ_* result: what the function computes, the formula, the arguments, the
    result (unless the schedules show it) and its steps; with ``every`` False the
    arguments on one line and a step repeated per employee or year as one table."""
    from nj_incentives.functions import CATALOG

    entry = CATALOG[result.call.function]
    title = f"{where}: {result.call.function}" + (f" ({result.label})" if result.label else "")
    blocks: list[Block] = [
        Heading(4, title),
        Paragraph(entry.description),
        Code(result.formula, "Formula"),
    ]
    if result.arguments:
        if every:
            blocks.append(Table(("Argument", "Value"), tuple(result.arguments)))
        else:
            blocks.append(
                Paragraph("Arguments: " + "; ".join(f"{n} = {v}" for n, v in result.arguments))
            )
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
    if (result.sheet, result.cell) in shown_at and not every:
        blocks.append(
            Paragraph("Result: the schedule of the same cells (the workbook's schedules).")
        )
    else:
        blocks.extend(shown)
    if steps:
        blocks.extend(step_blocks(steps, pivot=not every))
    elif entry.citation:
        blocks.append(Paragraph(f"Citation: {entry.citation}"))
    return blocks


#: A step's label that names one of several like items: "Employee 3: full-time months".
_ITEM_STEP = re.compile(r"^(?P<family>[A-Z][A-Za-z' -]*?) (?P<number>\d+): (?P<what>.+)$")
#: The fewest steps of one family (employees, years) shown as one table.
PIVOT_STEPS = 6


def step_blocks(steps: Sequence[Any], pivot: bool = True) -> list[Block]:
    """Steps as tables (#, step, value, arithmetic, citation). With ``pivot``, a run of
    at least :data:`PIVOT_STEPS` steps that repeat one question for several items
    ("Employee 1: counted", "Employee 1: full-time months", "Employee 2: counted" ...)
    is one table, an item a row and a question a column, each column's citation listed
    below it; a citation the step before has too reads "as above"."""
    blocks: list[Block] = []
    plain: list[tuple[str, ...]] = []
    previous = ""

    def flush() -> None:
        if plain:
            blocks.append(Table(("#", *headers(EXPLAIN_COLUMNS)), tuple(plain)))
            plain.clear()

    index = 0
    numbered = list(enumerate(steps, 1))
    while index < len(numbered):
        run = _item_run(numbered, index) if pivot else 0
        if run >= PIVOT_STEPS:
            flush()
            blocks.extend(_pivot([s for _n, s in numbered[index : index + run]], index + 1))
            previous = ""
            index += run
            continue
        n, s = numbered[index]
        cite = s.citation or ""
        shown = "as above" if pivot and cite and cite == previous else cite
        previous = cite
        plain.append((str(n), s.label, _step_value(s.value), s.arithmetic, shown))
        index += 1
    flush()
    return blocks


def _item_run(numbered: Sequence[tuple[int, Any]], start: int) -> int:
    """How many steps from ``start`` name items of one family (at least two items)."""
    first = _ITEM_STEP.match(numbered[start][1].label)
    if first is None:
        return 0
    family, items, count = first["family"], set(), 0
    for _n, step in numbered[start:]:
        match = _ITEM_STEP.match(step.label)
        if match is None or match["family"] != family:
            break
        items.add(match["number"])
        count += 1
    return count if len(items) >= 2 else 0


def _pivot(run: Sequence[Any], first: int) -> list[Block]:
    matches = [_ITEM_STEP.match(s.label) for s in run]
    family = matches[0]["family"] if matches[0] else ""
    whats: list[str] = []
    cites: dict[str, str] = {}
    cells: dict[str, dict[str, str]] = {}
    for step, match in zip(run, matches, strict=True):
        assert match is not None
        what = match["what"]
        if what not in whats:
            whats.append(what)
        cites.setdefault(what, step.citation or "")
        cells.setdefault(f"{family} {match['number']}", {})[what] = _step_value(step.value)
    rows = tuple((item, *(values.get(w, "") for w in whats)) for item, values in cells.items())
    legend = "; ".join(f"{what}: {cite}" for what, cite in cites.items() if cite)
    blocks: list[Block] = [
        Table(
            (family, *whats),
            rows,
            caption=f"Steps {first} to {first + len(run) - 1}, one row per {family.lower()}",
        )
    ]
    if legend:
        blocks.append(Paragraph(f"Citations: {legend}."))
    return blocks


def _shown_result(
    result: NJResult, recalc: Recalculation, formats: Mapping[tuple[str, str], str]
) -> list[Block]:
    """The result as the workbook shows it: the cell, or the array formula's table; a
    nested call's own value (its cell shows the enclosing formula's)."""
    if result.own:
        return [Paragraph(f"Result: {result.own}", strong=True)]
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


def _interpretations(used: Mapping[str, Sequence[str]], quoted: bool = True) -> list[Block]:
    """Appendix B: the readings of the law applied, each with the functions that apply
    it; quoted from docs/interpretations.md with ``quoted``, else a table of them."""
    blocks: list[Block] = [Heading(2, "Appendix B: interpretations applied")]
    text = interpretations_text()
    sections = interpretation_sections(text)
    blocks.append(
        Paragraph(
            "The readings of the law behind the results above, "
            + ("quoted from" if quoted else "as sections of")
            + " the project's docs/interpretations.md (nj-incentives "
            f"{__version__}); each names the functions of this memo that apply it."
            + ("" if quoted else " `--steps all` quotes each in full.")
        )
    )
    if not used:
        blocks.append(Paragraph("No NJ_* result was computed."))
    if not quoted and used:
        parts: dict[str, list[str]] = {}
        for heading, functions in used.items():
            part, _heading, _body = sections.get(heading, ("", heading, ()))
            parts.setdefault(part, []).append(f"{heading} (applied by {', '.join(functions)})")
        for part, items in parts.items():
            blocks.append(Paragraph(part or "Other", strong=True))
            blocks.append(Items(tuple(items), small=True))
    for heading, functions in used.items() if quoted else ():
        part, _heading, body = sections.get(heading, ("", heading, ()))
        blocks.append(Heading(3, f"{part}: {heading}" if part else heading))
        blocks.append(Paragraph("Applied by: " + ", ".join(functions)))
        if body:
            blocks.append(Quote(body))
        else:
            blocks.append(
                Paragraph("(text not bundled with this copy: see docs/interpretations.md)")
            )
    blocks.append(
        Paragraph(f"Law current to: {LAW_CURRENT_TO}. Known, not modelled: {law_not_modelled()}.")
    )
    return blocks
