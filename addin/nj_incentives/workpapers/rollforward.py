"""``nj-incentives rollforward LAST.xlsx [DATA] -o NEXT.xlsx``: a workpaper rolled to its
next period.

LAST is a workbook built from one of the shipped templates (whoever saved it:
:mod:`nj_incentives.workpapers.recalc.templates` recognises it). It is recalculated once (as
``calc`` does), and NEXT is written by :func:`nj_incentives.workpapers.fill.fill` (the template's
own builder) with:

- every input of LAST, each read again by its input rule (a value the rule refuses is
  named by its cell, and nothing is written);
- the next period added: the ERTC's next privilege period (its end one year after the
  last), the conversion's next tax year, the grant's next grant year; its figures come
  from DATA (YAML, JSON or CSV keyed by input names as for ``fill``; a table column given
  one value is the new period's row) or stay blank for the preparer;
- last year's outputs carried in as this year's inputs, per template as its
  ``ROLL_FORWARD`` states (:data:`CARRIED`; docs/filling.md, "Rolling forward", cites the
  subsection that makes each carry): the conversion's refund of the last tax year becomes
  the refundable credit of its transfer certificate (N.J.S.A. 34:1B-129f., g.(2)); the
  ERTC carryforward and the grant's cumulative grant are carried by the schedules
  themselves from the periods kept (N.J.S.A. 52:27BBB-55b.(2); N.J.S.A. 34:1B-129a.), and reported;
- the sign-offs cleared (:data:`SIGNOFF_FIELDS`), the engagement's period named anew,
  everything else (client, sources, references) kept.

A period past the law's last year is refused: a grant year past the term (at most 10
years, N.J.S.A. 34:1B-129c.), a conversion tax year after the last installment (e.(12)
and e.(13) issue the 2024 and 2025 accruals in the 2025 tax period; e.(1)'s late approvals
later). An ERTC workbook whose 8 periods are full drops its oldest period and carries
its outcome in as the credit carried into the new first period, per credit year with the
period it was allowed in (``OpeningCarried``, ``OpeningBefore``; N.J.S.A. 52:27BBB-55b.(2),
:func:`nj_incentives.programs.ertc.rules.opening_after`): it rolls for as long as the credit runs.

Each template declares its roll in its module (``programs/<key>/templates/<name>.py``,
``ROLL_FORWARD``), reached through the registry; the template's ``roll`` gets LAST's inputs
and recalculated names as plain data (:class:`~nj_incentives.core.workpaper.Last`: this
module reads the workbook), and a template that declares none is refused (status 2).

Exit status (as ``fill``): 0 written; 1 a value refused (a cell of LAST, a DATA value, a
period past the law's last year; each named, nothing written); 2 not done: LAST missing
or not one of ours, its template with no roll forward, an unknown input name in DATA, an
output that exists (without ``--force``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nj_incentives import programs
from nj_incentives.core.inputs import InputError
from nj_incentives.core.workpaper import (
    SIGNOFF_FIELDS,
    CarriedFigure,
    Last,
    RollForward,
    RollRefused,
    Roster,
    blank,
    column_values,
    row_cell,
    set_row,
)
from nj_incentives.support.status import (
    EXIT_FAILED,
    EXIT_USAGE,
)
from nj_incentives.workpapers.fill import (
    FillError,
    TemplateInput,
    check_entries,
    data_entries,
    fill,
    read_data,
    resolve_template,
    template_inputs,
)

__all__ = ["CARRIED", "SIGNOFF_FIELDS", "Rolled", "roll_forward", "rollforward"]


def roll_forward(template: str) -> RollForward | None:
    """How ``template`` rolls to its next period (its module's ``ROLL_FORWARD``,
    :class:`nj_incentives.core.workpaper.RollForward`), None if it declares none."""
    declared: RollForward | None = getattr(programs.template(template), "ROLL_FORWARD", None)
    return declared


class _Carried(Mapping[str, tuple[tuple[str, str, str], ...]]):
    """Per template that rolls forward, its ``ROLL_FORWARD.carried``, read from the
    registry on first use."""

    def _found(self) -> dict[str, tuple[tuple[str, str, str], ...]]:
        return {
            template: declared.carried
            for template in programs.templates()
            if (declared := roll_forward(template)) is not None
        }

    def __getitem__(self, template: str) -> tuple[tuple[str, str, str], ...]:
        return self._found()[template]

    def __iter__(self) -> Iterator[str]:
        return iter(self._found())

    def __len__(self) -> int:
        return len(self._found())


#: Per template: which of last year's outputs become which of this year's inputs, and why
#: (each template's ``ROLL_FORWARD.carried``).
CARRIED: Mapping[str, tuple[tuple[str, str, str], ...]] = _Carried()


@dataclass
class Rolled:
    """What :func:`rollforward` wrote."""

    path: Path
    template: str
    #: the period rolled from and to (``"tax year 2023"``)
    period_from: str
    period_to: str
    #: what was carried, one line each ("CertificateAmount = 245,000.16 (...)")
    carried: list[str] = field(default_factory=list)
    #: the sign-off cells cleared (their defined names)
    cleared: list[str] = field(default_factory=list)
    #: the inputs written
    inputs: int = 0
    #: LAST's master check (a roll forward of a failing workbook is written, and says so)
    master_check: object = None
    #: the new period's inputs left blank, with their cells ("Liabilities[6] (Inputs!E45)")
    to_enter: list[str] = field(default_factory=list)
    #: the figures carried, as numbers (``rollforward --json``'s ``carried``)
    figures: tuple[CarriedFigure, ...] = ()
    #: what the reader should know about how LAST was read (its formulas differ from the
    #: template's: the figures carried computed again by the template's own)
    notes: list[str] = field(default_factory=list)
    #: LAST's sign-offs that no longer held (stale, or over formulas that differ from the
    #: template's): a roll forward of such a workbook is written, and says so
    signoffs_not_current: tuple[str, ...] = ()
    #: LAST's review notes: the open ones carried into the output, the cleared dropped
    notes_carried: int = 0
    notes_dropped: int = 0


# --------------------------------------------------------------------------- reading LAST


def _recalculate(last: Path) -> tuple[Any, str | None]:
    """LAST recalculated as ``calc`` recalculates it (a shipped template's prebuilt form),
    and why not from the template's form when its formulas differ from the template's
    (None when they do not)."""
    from nj_incentives.workpapers.recalc import (
        DEFAULT_LIMITS,
        UnsafeWorkbookError,
        engine,
        vet_workbook,
    )
    from nj_incentives.workpapers.recalc.prebuilt import prebuilt_or_note
    from nj_incentives.workpapers.recalc.safety import budgets

    try:
        vetted = vet_workbook(last, DEFAULT_LIMITS)
        with budgets(DEFAULT_LIMITS, f"recalculating {last.name}"):
            found, differs = prebuilt_or_note(vetted)
            if found is not None:
                return found, None
            return engine.recalculate_vetted(vetted), differs
    except (UnsafeWorkbookError, OSError) as error:
        raise FillError([f"{last}: refused: {error}"], EXIT_USAGE) from error
    except Exception as error:  # a workbook the engine cannot read
        raise FillError(
            [f"{last}: could not be recalculated: {type(error).__name__}: {error}"], EXIT_USAGE
        ) from error


def _template_recalculation(template: str, values: Mapping[str, object], last: Path) -> Any:
    """The template itself filled with LAST's inputs (``values``, as read from LAST) and
    recalculated from its form: what the template computes from them, whatever LAST's
    own formulas say."""
    import tempfile

    written = {
        name: value
        for name, value in values.items()
        if not blank(value) and value != [] and name not in SIGNOFF_FIELDS
    }
    with tempfile.TemporaryDirectory(prefix="nj-rollforward-") as folder:
        rebuilt = Path(folder) / "template.xlsx"
        fill(template, written, rebuilt)
        recalc, differs = _recalculate(rebuilt)
    if differs is not None:  # the template's own build: never expected
        raise FillError([f"{last}: the template's own formulas could not be recalculated"], 2)
    return recalc


def _cell(value: object, declared: TemplateInput) -> object:
    """A cell's value as DATA gives it: a date input's serial number as the date."""
    from nj_incentives.core.cells import date_from_serial

    if declared.kind == "date" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return date_from_serial(float(value)) or value
    if isinstance(value, float) and value.is_integer() and declared.kind in ("count", "year"):
        return int(value)
    return value


def _roster_parts(
    roster: Roster, names: Mapping[str, Any], refers: Mapping[str, str], where: str
) -> int:
    """How many roster sheets per period LAST has: part k (2, 3 ...) only where each of
    its columns' defined names (``EmployeeNames2``) refers to the sheet the template's
    builder makes for it (``'Part II base year (2)'``), at the cells of part 1's, and at
    most the template's ``most_sheets``: the sheets the template's formulas read, never
    a name added that points elsewhere (issue 36 item 9: 400 names over the same 250
    rows were read as 400 more parts)."""
    columns = [name for _, name, _ in roster.fields] + [name for _, name in roster.hours]
    part = 1
    while True:
        suffix = str(part + 1)
        given = [name for name in columns if f"{name}{suffix}" in names]
        if not given:
            return part
        for name in columns:
            first = refers.get(name.upper(), "")
            sheet, _, cells = first.rpartition("!")
            expected = f"'{sheet.strip(chr(39))} ({part + 1})'!{cells}"
            found = refers.get(f"{name}{suffix}".upper())
            if found is None or found.replace("'", "") != expected.replace("'", ""):
                raise FillError(
                    [
                        f"{where}: the defined name {name}{suffix} refers to "
                        f"{found or 'nothing'}, not {expected}, the roster sheet the "
                        "template makes for it: not read (the template's formulas read "
                        "only its own roster sheets)"
                    ],
                    EXIT_USAGE,
                )
        part += 1
        if part > roster.most_sheets:
            raise FillError(
                [
                    f"{where}: roster sheets named past the template's {roster.most_sheets} "
                    f"per period ({columns[0]}{roster.most_sheets + 1})"
                ],
                EXIT_USAGE,
            )


def _roster(roster: Roster, names: Mapping[str, Any], parts: int) -> list[dict[str, Any]]:
    """The roster of LAST (its ``parts`` roster sheets, in order) as fill's
    ``Employees``: a wholly blank row is no employee (the template's note) and is left
    out."""
    fields = [(key, name) for key, name, _ in roster.fields]
    columns_named = [*(name for _, name in fields), *(name for _, name in roster.hours)]
    employees: list[dict[str, Any]] = []
    part = 1
    while part <= parts:
        suffix = "" if part == 1 else str(part)
        columns = {
            name: names.get(f"{name}{suffix}") or [] for name in columns_named
        }  # rows of values
        rows = max(len(rows) for rows in columns.values())
        for n in range(rows):
            cells = {name: _row(columns[name], n) for name in columns_named}
            values = {key: cells[name][0] if cells[name] else None for key, name in fields}
            hours = {key: cells[name] for key, name in roster.hours}
            if all(blank(v) for v in values.values()) and all(
                blank(h) for row in hours.values() for h in row
            ):
                continue
            employees.append(
                {
                    **{
                        # a blank name is "" (as fill writes it), a blank flag None
                        key: ("" if key == fields[0][0] else None) if blank(value) else value
                        for key, value in values.items()
                    },
                    **{key: [None if blank(h) else h for h in row] for key, row in hours.items()},
                }
            )
        part += 1
    return employees


def _row(rows: Sequence[object], n: int) -> list[object]:
    """Row ``n`` of a named range's rows (none past its end)."""
    row = rows[n] if n < len(rows) else []
    return list(row) if isinstance(row, list) else [row]


def _read_last(
    template: str, recalc: Any, where: str
) -> tuple[dict[str, TemplateInput], dict[str, object], list[tuple[str, str, object]]]:
    """LAST's inputs: (the template's inputs, name -> value as DATA gives it, the entries
    fill reads them from, each named by its cell)."""
    from nj_incentives.workpapers.memo.calls import defined_names

    inputs = template_inputs(template)
    roster: Roster | None = getattr(programs.template(template), "ROSTER", None)
    on_roster = {name for _, name, _ in roster.fields} if roster else set()
    refers = {k: v.replace("$", "") for k, v in defined_names(recalc).items()}
    names = recalc.names
    values: dict[str, object] = {}
    entries: list[tuple[str, str, object]] = []
    for declared in inputs.values():
        if "_month_" in declared.key or declared.kind == "roster":
            continue
        if declared.name in on_roster:
            continue
        raw = names.get(declared.name)
        if declared.rows:
            value: object = [_cell(v, declared) for v in column_values(raw)]
        else:
            value = _cell(raw, declared)
        ref = refers.get(declared.name.upper(), declared.name).replace("$", "")
        values[declared.name] = value
        entries.append((f"{where} {ref}", declared.name, value))
    if roster:
        employees = _roster(roster, names, _roster_parts(roster, names, refers, where))
        values["Employees"] = employees
        ref = refers.get(roster.fields[0][1].upper(), "the roster")
        entries.append((f"{where} {ref}", "Employees", employees))
    return inputs, values, entries


# --------------------------------------------------------------------------- the periods


class _Results(Mapping[str, object]):
    """LAST's NJ_* results by function name (its first computed call), read from the
    workbook the first time a template's roll asks for one."""

    def __init__(self, recalc: Any) -> None:
        self._recalc = recalc
        self._found: dict[str, object] | None = None

    def _results(self) -> dict[str, object]:
        if self._found is None:
            from nj_incentives.workpapers.memo.calls import nj_results

            self._found = {}
            for found in nj_results(self._recalc):
                if found.status == "ok":
                    self._found.setdefault(found.call.function, found.result)
        return self._found

    def __getitem__(self, name: str) -> object:
        return self._results()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._results())

    def __len__(self) -> int:
        return len(self._results())


# --------------------------------------------------------------------------- DATA


def _merge(
    inputs: Mapping[str, TemplateInput],
    values: dict[str, object],
    data: Sequence[tuple[str, str, object]],
    row: int,
    template: str,
    refers: Mapping[str, str] | None = None,
) -> list[str]:
    """DATA over LAST's values: a table column given one value is the new period's row
    (``row``); else as ``fill`` reads it. The messages of the values refused. ``refers``:
    LAST's defined names (upper case) -> their cells, to find a row's tick and source."""
    lookup = {s.lower(): d for d in inputs.values() for s in (d.name, d.key)}
    refused: list[str] = []
    for where, name, value in data:
        declared = lookup.get(name.lower())
        if declared is None:
            raise FillError(
                [
                    f"{where}: {name!r} is not an input of the {template} template; its "
                    f"inputs: {', '.join(inputs)}"
                ],
                EXIT_USAGE,
            )
        if declared.rows and not isinstance(value, (list, tuple, Mapping)):
            if row > declared.rows:
                refused.append(f"{where}: {declared.name}: the table has {declared.rows} rows")
                continue
            try:
                declared.read(value, f"{declared.name}[{row}]")
            except InputError as error:
                refused.append(f"{where}: {error}")
                continue
            set_row(values, declared.name, row, value)
            given = {n.lower() for _, n, _ in data}
            # the new figure is not yet ticked or sourced: a projection's "E" goes too
            for beside in _marks(declared.name, inputs, refers):
                if beside.lower() not in given:
                    set_row(values, beside, row, None)
        elif declared.rows and isinstance(value, Mapping) and declared.row_keys:
            column = list(values.get(declared.name) or [])  # type: ignore[call-overload]
            column += [None] * (declared.rows - len(column))
            keys = {str(k): n for n, k in enumerate(declared.row_keys)}
            for key, cell in value.items():
                if str(key) not in keys:
                    refused.append(f"{where}: {declared.name}[{key}]: no such row")
                    continue
                column[keys[str(key)]] = cell
            values[declared.name] = column
        else:
            values[declared.name] = value
    return refused


def _marks(
    name: str, inputs: Mapping[str, TemplateInput], refers: Mapping[str, str] | None
) -> list[str]:
    """The tick and source columns of a table column's rows: its own (``NameTick``), or
    the table's, on the same rows (the ERTC's period table has one, ``PeriodEndsTick``,
    for its receipts, liabilities and other credits)."""
    own = [f"{name}{suffix}" for suffix in ("Tick", "Source") if f"{name}{suffix}" in inputs]
    if own or not refers:
        return own

    def rows(reference: str) -> tuple[str, str] | None:
        import re

        match = re.fullmatch(r"(.+)![A-Z]{1,3}(\d+):[A-Z]{1,3}(\d+)", reference)
        return (match.group(1) + match.group(2), match.group(3)) if match else None

    span = rows(refers.get(name.upper(), ""))
    return [
        other
        for other in inputs
        if span is not None
        and other.endswith(("Tick", "Source"))
        and rows(refers.get(other.upper(), "")) == span
    ]


# --------------------------------------------------------------------------- rolling


def rollforward(
    last: str | Path,
    output: str | Path,
    data: str | Path | Mapping[str, Any] | None = None,
    *,
    force: bool = False,
    namespace: str = "",
    cache: bool = False,
) -> Rolled:
    """Write ``last`` (a workbook of one of the shipped templates) rolled forward to its
    next period as ``output`` (an .xlsx path).

    ``data``: the new period's figures, a DATA file (.yaml, .yml, .json, .csv) or a mapping
    of input names to values, as for :func:`nj_incentives.workpapers.fill.fill`; a table column
    given
    one value (``{"Liabilities": 7000}``) sets the new period's row. ``force``: replace an
    existing output. ``namespace``, ``cache``: as for :func:`~nj_incentives.workpapers.fill.fill`.

    Raises :class:`~nj_incentives.workpapers.fill.FillError` (nothing written): status 1 when a
    value
    of LAST or DATA is refused or the next period is past the law's last year (each
    message names the cell), 2 when LAST is missing or not one of ours, DATA names an
    unknown input, or the output exists. Example::

        from nj_incentives.workpapers.rollforward import rollforward
        done = rollforward("ertc-2025.xlsx", "ertc-2026.xlsx", {"Liabilities": 7000})
        print(done.period_to, *done.carried, sep="\\n")
    """
    last, output = Path(last), Path(output)
    if not last.is_file():
        raise FillError([f"{last}: no such workbook"], EXIT_USAGE)
    if output.suffix.lower() != ".xlsx":
        raise FillError([f"-o {output}: the rolled workbook is written as .xlsx"], EXIT_USAGE)
    from nj_incentives.support.files import same_file

    if same_file(last, output):
        raise FillError([f"{output}: refusing to overwrite LAST, the input workbook"], EXIT_USAGE)
    if output.exists() and not force:
        raise FillError([f"{output}: exists; not overwriting it (give --force)"], EXIT_USAGE)
    template = resolve_template(last)
    declared = roll_forward(template)
    if declared is None:
        raise FillError(
            [f"{last}: the {template} template declares no roll forward"],
            EXIT_USAGE,
        )
    if data is None:
        entries: list[tuple[str, str, object]] = []
    elif isinstance(data, Mapping):
        entries = data_entries(data, "data")
    else:
        entries = read_data(data)
    recalc, differs = _recalculate(last)
    as_last = recalc  # LAST as it is: its sign-offs and review notes
    from nj_incentives.workpapers.memo.calls import defined_names

    refers = {k: v.replace("$", "") for k, v in defined_names(recalc).items()}
    inputs, values, last_entries = _read_last(template, recalc, last.name)
    # LAST's sign-off is cleared, not carried: its fields are not DATA (fill refuses them)
    from nj_incentives.workpapers.fill import SIGNED_ONLY

    signed_only = {name.upper() for name in SIGNED_ONLY}
    last_entries = [entry for entry in last_entries if entry[1].upper() not in signed_only]
    _, _, unknown, refused = check_entries(template, last_entries)
    if unknown or refused:
        raise FillError([*unknown, *refused], EXIT_FAILED)
    notes: list[str] = []
    if differs is not None:
        # what LAST's own formulas computed is not carried: the template's formulas
        # compute it again from LAST's inputs (issue 36 item 8)
        recalc = _template_recalculation(template, values, last)
        refers = {k: v.replace("$", "") for k, v in defined_names(recalc).items()}
        notes.append(
            f"{last.name}: {differs}; the figures carried are the template's own, computed "
            f"again from {last.name}'s inputs, not what its changed formulas computed"
        )
    rows = {name: declared_input.rows for name, declared_input in inputs.items()}
    try:
        rolled = declared.roll(
            values, Last(recalc.names, refers, last.name, rows, _Results(recalc))
        )
    except RollRefused as error:
        raise FillError([str(error)], EXIT_FAILED) from error
    period_from, period_to, carried, row = (
        rolled.period_from,
        rolled.period_to,
        rolled.carried,
        rolled.row,
    )
    refused = _merge(inputs, values, entries, row, template, refers)
    if refused:
        raise FillError(refused, EXIT_FAILED)
    cleared = [name for name in SIGNOFF_FIELDS if name in values and not blank(values[name])]
    for name in SIGNOFF_FIELDS:
        if name in values:
            values[name] = None
    if "EngagementPeriod" in values and not any(
        n.lower() in ("engagementperiod", "engagement.period") for _, n, _ in entries
    ):
        values["EngagementPeriod"] = declared.engagement_period(values, period_to.rsplit(" ", 1)[1])
    to_enter = []
    for name in declared.new_period:
        given = declared.entered_if.get(name)
        if given and not values.get(given):
            continue  # e.g. no partners' grant percentage: no partners' tax to enter
        column = list(values.get(name) or [])  # type: ignore[call-overload]
        if row > len(column) or blank(column[row - 1]):
            cell = row_cell(refers.get(name.upper(), name), row)
            to_enter.append(f"{name}[{row}] ({cell})")
    written = {name: value for name, value in values.items() if not blank(value) and value != []}
    filled = fill(template, written, output, force=force, namespace=namespace, cache=cache)
    not_current, carried_notes, dropped_notes = _review_state(as_last, last, filled.path)
    return Rolled(
        filled.path,
        template,
        period_from,
        period_to,
        carried,
        cleared,
        len(filled.inputs),
        recalc.names.get("MasterCheck"),
        to_enter,
        rolled.figures,
        notes,
        not_current,
        carried_notes,
        dropped_notes,
    )


def _review_state(recalc: Any, last: Path, output: Path) -> tuple[tuple[str, ...], int, int]:
    """LAST's sign-offs that no longer hold; its open review notes written into
    ``output`` (each marked as carried from LAST), the cleared ones dropped: (the
    sign-off lines, notes carried, notes dropped)."""
    from nj_incentives.support.files import atomic_path
    from nj_incentives.workpapers.review_notes import notes as read_notes
    from nj_incentives.workpapers.review_notes import open_notes, with_comments
    from nj_incentives.workpapers.signoff import read_record, status, write_record

    lines = tuple(s.line for s in status(recalc) if s.signed and not s.current_ok)
    record = read_record(recalc.vetted.data) if recalc.vetted is not None else {}
    every = record.get("notes", [])
    still = open_notes(record)
    if still:
        for entry in still:
            entry["text"] = str(entry.get("text", ""))
            entry["carried_from"] = last.name
        data = write_record(output.read_bytes(), {"notes": still})
        data = with_comments(data, read_notes({"notes": still}))
        with atomic_path(output) as temporary:
            temporary.write_bytes(data)
    return lines, len(still), len(every) - len(still)
