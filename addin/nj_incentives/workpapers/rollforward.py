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
- last year's outputs carried in as this year's inputs, per template as
  :data:`CARRIED` states (docs/filling.md, "Rolling forward", cites the subsection that
  makes each carry): the conversion's refund of the last tax year becomes the refundable
  credit of its transfer certificate (N.J.S.A. 34:1B-129f., g.(2)); the ERTC carryforward
  and the grant's cumulative grant are carried by the schedules themselves from the
  periods kept (N.J.S.A. 52:27BBB-55b.(2); N.J.S.A. 34:1B-129a.), and reported;
- the sign-offs cleared (:data:`SIGNOFF_FIELDS`), the engagement's period named anew,
  everything else (client, sources, references) kept.

A period past the law's last year is refused: a grant year past the term (at most 10
years, N.J.S.A. 34:1B-129c.), a conversion tax year after the last installment (e.(12)
and e.(13) issue the 2024 and 2025 accruals in the 2025 tax period; e.(1)'s late approvals
later). An ERTC workbook whose 8 periods are full drops its oldest period and carries
its outcome in as the credit carried into the new first period, per credit year with the
period it was allowed in (``OpeningCarried``, ``OpeningBefore``; N.J.S.A. 52:27BBB-55b.(2),
:func:`nj_incentives.programs.ertc.rules.opening_after`): it rolls for as long as the credit runs.

Exit status (as ``fill``): 0 written; 1 a value refused (a cell of LAST, a DATA value, a
period past the law's last year; each named, nothing written); 2 not done: LAST missing
or not one of ours, an unknown input name in DATA, an output that exists (without
``--force``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nj_incentives.core.inputs import InputError
from nj_incentives.core.workpaper import SIGNOFF_FIELDS
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

__all__ = ["CARRIED", "SIGNOFF_FIELDS", "Rolled", "rollforward"]


#: Per template: which of last year's outputs become which of this year's inputs, and why.
CARRIED: Mapping[str, tuple[tuple[str, str, str], ...]] = {
    "beip-grant-schedule": (
        (
            "Schedule: Cumulative grant",
            "(the grant years kept)",
            "N.J.S.A. 34:1B-129a. (the average cap over the term), c.",
        ),
    ),
    "beip-credit-conversion": (
        ("CreditRefund (the last tax year)", "CertificateAmount", "N.J.S.A. 34:1B-129f., g.(2)"),
        ("ReturnPeriodEnds (the last tax year)", "CreditPeriodEnd", "N.J.S.A. 34:1B-129e."),
        ("(a new proposal)", "TransferProposed = No; sale cleared", "N.J.S.A. 34:1B-129e., g.(3)"),
        ("RemoteWorkVerdict, RemoteWorkC40Verdict", "(the election kept)", "h.; P.L.2024, c.40"),
    ),
    "ertc-form-313": (
        (
            "CarriedForward",
            "Carried in of the new period (the periods kept)",
            "N.J.S.A. 52:27BBB-55b.(2)",
        ),
        (
            "the oldest period's carried out, per credit year (8 periods full)",
            "OpeningCarried, OpeningBefore (the oldest period dropped)",
            "N.J.S.A. 52:27BBB-55b.(1), (2), c.(2)",
        ),
    ),
}


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


# --------------------------------------------------------------------------- reading LAST


def _recalculate(last: Path) -> Any:
    """LAST recalculated as ``calc`` recalculates it (a shipped template's prebuilt form)."""
    from nj_incentives.workpapers.recalc import DEFAULT_LIMITS, UnsafeWorkbookError, vet_workbook
    from nj_incentives.workpapers.recalc.prebuilt import recalculate_template
    from nj_incentives.workpapers.recalc.safety import budgets

    try:
        vetted = vet_workbook(last, DEFAULT_LIMITS)
        with budgets(DEFAULT_LIMITS, f"recalculating {last.name}"):
            return recalculate_template(vetted)
    except (UnsafeWorkbookError, OSError) as error:
        raise FillError([f"{last}: refused: {error}"], EXIT_USAGE) from error
    except Exception as error:  # a workbook the engine cannot read
        raise FillError(
            [f"{last}: could not be recalculated: {type(error).__name__}: {error}"], EXIT_USAGE
        ) from error


def _cell(value: object, declared: TemplateInput) -> object:
    """A cell's value as DATA gives it: a date input's serial number as the date."""
    from nj_incentives.core.cells import date_from_serial

    if declared.kind == "date" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return date_from_serial(float(value)) or value
    if isinstance(value, float) and value.is_integer() and declared.kind in ("count", "year"):
        return int(value)
    return value


def _column(value: object) -> list[object]:
    """A named range's rows as one column's values, trailing blanks dropped."""
    if not isinstance(value, list):
        return [value]
    cells = [row[0] if isinstance(row, list) and row else row for row in value]
    while cells and (cells[-1] is None or cells[-1] == ""):
        cells.pop()
    return cells


_ROSTER_NAMES = ("EmployeeNames", "Temporary", "Excluded", "HoursBase", "HoursYear1", "HoursYear2")


def _roster(names: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ERTC roster of LAST (every roster sheet, in order) as fill's ``Employees``:
    a wholly blank row is no employee (the template's note) and is left out."""
    employees: list[dict[str, Any]] = []
    part = 1
    while True:
        suffix = "" if part == 1 else str(part)
        if f"EmployeeNames{suffix}" not in names and f"HoursBase{suffix}" not in names:
            break
        columns = {
            name: names.get(f"{name}{suffix}") or [] for name in _ROSTER_NAMES
        }  # rows of values
        rows = max(len(rows) for rows in columns.values())
        for n in range(rows):
            cells = {name: _row(columns[name], n) for name in _ROSTER_NAMES}
            name, temporary, excluded = (
                cells[k][0] if cells[k] else None for k in _ROSTER_NAMES[:3]
            )
            hours = {key: cells[f"Hours{label}"] for key, label in _HOURS}
            if all(_blank(v) for v in (name, temporary, excluded)) and all(
                _blank(h) for row in hours.values() for h in row
            ):
                continue
            employees.append(
                {
                    "name": "" if _blank(name) else name,
                    "temporary": None if _blank(temporary) else temporary,
                    "excluded": None if _blank(excluded) else excluded,
                    **{key: [None if _blank(h) else h for h in row] for key, row in hours.items()},
                }
            )
        part += 1
    return employees


_HOURS = (("base", "Base"), ("year1", "Year1"), ("year2", "Year2"))


def _row(rows: Sequence[object], n: int) -> list[object]:
    """Row ``n`` of a named range's rows (none past its end)."""
    row = rows[n] if n < len(rows) else []
    return list(row) if isinstance(row, list) else [row]


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _read_last(
    template: str, recalc: Any, where: str
) -> tuple[dict[str, TemplateInput], dict[str, object], list[tuple[str, str, object]]]:
    """LAST's inputs: (the template's inputs, name -> value as DATA gives it, the entries
    fill reads them from, each named by its cell)."""
    from nj_incentives.workpapers.memo.calls import defined_names

    inputs = template_inputs(template)
    refers = {k: v.replace("$", "") for k, v in defined_names(recalc).items()}
    names = recalc.names
    values: dict[str, object] = {}
    entries: list[tuple[str, str, object]] = []
    for declared in inputs.values():
        if "_month_" in declared.key or declared.kind == "roster":
            continue
        if template == "ertc-form-313" and declared.name in _ROSTER_NAMES[:3]:
            continue
        raw = names.get(declared.name)
        if declared.rows:
            value: object = [_cell(v, declared) for v in _column(raw)]
        else:
            value = _cell(raw, declared)
        ref = refers.get(declared.name.upper(), declared.name).replace("$", "")
        values[declared.name] = value
        entries.append((f"{where} {ref}", declared.name, value))
    if template == "ertc-form-313":
        roster = _roster(names)
        values["Employees"] = roster
        ref = refers.get("EMPLOYEENAMES", "the roster")
        entries.append((f"{where} {ref}", "Employees", roster))
    return inputs, values, entries


# --------------------------------------------------------------------------- the periods


def _refused(message: str) -> FillError:
    return FillError([message], EXIT_FAILED)


def _money(value: object) -> str:
    return f"${float(value):,.2f}" if isinstance(value, (int, float)) else str(value)


def _last_row(column: Sequence[object]) -> int:
    """The number (1-based) of the last non-blank row, 0 if none."""
    return max((n for n, v in enumerate(column, 1) if not _blank(v)), default=0)


def _set_row(values: dict[str, object], name: str, row: int, value: object) -> None:
    column = list(values.get(name) or [])  # type: ignore[call-overload]
    column += [None] * (row - len(column))
    column[row - 1] = value
    values[name] = column


def _roll_grant(
    values: dict[str, object], recalc: Any, refers: Mapping[str, str], where: str
) -> tuple[str, str, list[str], int]:
    from nj_incentives.programs.beip import rules as beip

    filled = max(
        _last_row(values.get(n) or [])  # type: ignore[arg-type]
        for n in ("Withholdings", "PartnerTax", "NewEmployees")
    )
    named = _named_period(values, r"grant years? (\d{1,2})(?:\s*(?:-|to)\s*(\d{1,2}))?")
    year = int(named) if named and 0 < int(named) <= filled else filled
    if year == 0:
        raise _refused(
            f"{where} {refers.get('WITHHOLDINGS', 'Withholdings')}: no grant year has "
            "withholdings, partners' tax or new employees yet: nothing to roll forward from "
            "(fill the first grant year)"
        )
    term = values.get("Term")
    limit = term if isinstance(term, int) and 0 < term <= beip.MAXIMUM_TERM_YEARS else None
    last = limit or beip.MAXIMUM_TERM_YEARS
    if year + 1 > last:
        why = (
            f"Term = {term}: grant year {year + 1} is past the term of the grant"
            if limit
            else f"grant year {year + 1} is past the longest term"
        )
        if named:
            why += f" (EngagementPeriod {values.get('EngagementPeriod')!r} names grant year {year})"
        raise _refused(
            f"{where} {refers.get('TERM', 'Term')}: {why} (a term of at most "
            f"{beip.MAXIMUM_TERM_YEARS} years, {beip.CITE_C}); nothing to roll forward to"
        )
    carried = []
    schedule = recalc.names.get("Schedule")
    if isinstance(schedule, list) and len(schedule) > year:
        header = schedule[0]
        if "Cumulative grant" in header:
            cumulative = schedule[year][header.index("Cumulative grant")]
            carried.append(
                f"cumulative grant through grant year {year}: {_money(cumulative)}, carried by "
                f"the schedule into grant year {year + 1} (the average cap over the term, "
                f"{beip.CITE_CAP})"
            )
    return f"grant year {year}", f"grant year {year + 1}", carried, year + 1


def _named_period(values: Mapping[str, object], pattern: str) -> str | None:
    """The current period as the engagement's period names it (a roll forward writes
    "Grant year 3 of 5", "Tax year 2024 ..."; a range names its last): None if it
    names none."""
    import re

    text = values.get("EngagementPeriod")
    match = re.search(pattern, text, re.IGNORECASE) if isinstance(text, str) else None
    if match is None:
        return None
    return str(match.groups()[-1] or match.group(1))


def _year_end(day: dt.date) -> dt.date:
    """The same period end one year later (a month's last day stays the month's last)."""
    import calendar

    if (day + dt.timedelta(days=1)).day == 1:
        last = calendar.monthrange(day.year + 1, day.month)[1]
        return dt.date(day.year + 1, day.month, last)
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return dt.date(day.year + 1, 2, 28)


def _roll_ertc(
    values: dict[str, object], recalc: Any, refers: Mapping[str, str], where: str
) -> tuple[str, str, list[str], int]:
    from nj_incentives.programs.ertc import rules as ertc
    from nj_incentives.programs.ertc.templates.form_313 import MAX_PERIODS

    ends = list(values.get("PeriodEnds") or [])  # type: ignore[call-overload]
    period = _last_row(ends)
    named = _named_period(values, r"period ending (\d{4}-\d{2}-\d{2})")
    days = [e.isoformat() if isinstance(e, dt.date) else None for e in ends[:period]]
    if named in days:
        period = days.index(named) + 1
    ref = refers.get("PERIODENDS", "PeriodEnds")
    if period == 0:
        raise _refused(
            f"{where} {ref}: no privilege period yet: nothing to roll forward from (fill the "
            "first period)"
        )
    last = ends[period - 1]
    if not isinstance(last, dt.date):
        raise _refused(f"{where} {ref}: PeriodEnds[{period}] = {last!r} is not a date")
    carried = []
    kept = ends[period] if period < len(ends) else None
    if period + 1 > MAX_PERIODS:
        carried += _drop_periods(values, recalc, period + 1 - MAX_PERIODS, where, ref)
        period, kept = MAX_PERIODS - 1, None
    following = kept if isinstance(kept, dt.date) and kept > last else _year_end(last)
    _set_row(values, "PeriodEnds", period + 1, following)
    forward = recalc.names.get("CarriedForward")
    carried.append(
        f"credit carried forward after the period ending {last}: {_money(forward)}, carried "
        f"in to the period ending {following} by the schedule ({ertc.CITE_B2})"
    )
    return (
        f"privilege period ending {last}",
        f"privilege period ending {following}",
        carried,
        period + 1,
    )


def _drop_periods(
    values: dict[str, object], recalc: Any, drop: int, where: str, ref: str
) -> list[str]:
    """The template's periods are full: its first ``drop`` periods dropped (every period
    row moves up), and what they carry out written as the credit carried into the new
    first period, per credit year with the period it was allowed in (``OpeningCarried``,
    ``OpeningBefore``: :func:`nj_incentives.programs.ertc.rules.opening_after`, N.J.S.A.
    52:27BBB-55b.(2)), so that the rolled schedule's figures are those of one schedule over
    every period."""
    from nj_incentives.programs.ertc import rules as ertc
    from nj_incentives.programs.ertc.templates.form_313 import MAX_PERIODS
    from nj_incentives.workpapers.memo.calls import nj_results

    schedule = next(
        (
            found.result
            for found in nj_results(recalc)
            if found.call.function == "NJ_ERTC_SCHEDULE" and found.status == "ok"
        ),
        None,
    )
    if not isinstance(schedule, ertc.CreditSchedule) or len(schedule.rows) < drop:
        raise _refused(
            f"{where} {ref}: all {MAX_PERIODS} privilege periods of the template are used and "
            "the credit schedule is not computed (see its Checks sheet): what the first "
            f"period carries out is not known, nothing to carry in ({ertc.CITE_B2})"
        )
    amounts, before = ertc.opening_after(schedule, drop)
    ends = [row.period_end for row in schedule.rows[:drop]]
    for name, declared in _period_columns(values).items():
        column = list(declared)
        values[name] = column[drop:] + [None] * min(drop, len(column))
    values["OpeningCarried"] = [None if a is None else float(a) for a in amounts]
    values["OpeningBefore"] = before
    for suffix in ("Tick", "Source"):
        values[f"OpeningCarried{suffix}"] = None  # a new figure: not yet ticked or sourced
    which = ("one", "two")
    lines = [
        f"the periods ending {ends[0]}"
        + (f" to {ends[-1]}" if drop > 1 else "")
        + f" dropped: all {MAX_PERIODS} privilege periods of the template were used; "
        "the rest moved up a row"
    ]
    for n, (amount, periods) in enumerate(zip(amounts, before, strict=True)):
        if amount is None or periods is None:
            continue
        index = drop - periods
        allowed = (
            f"allowed in the period ending {schedule.rows[index].period_end}"
            if index >= 0
            else f"allowed {-index} period(s) before the first LAST shows"
        )
        lines.append(
            f"OpeningCarried[{n + 1}] = {_money(float(amount))}, OpeningBefore[{n + 1}] = "
            f"{periods}: credit year {which[n]}'s credit ({allowed}) unused after the "
            f"period ending {ends[-1]}, carried into the new first period ({ertc.CITE_B2})"
        )
    return lines


def _period_columns(values: Mapping[str, object]) -> dict[str, list[object]]:
    """The Form 313 template's period table: every input with one row per period."""
    from nj_incentives.programs.ertc.templates.form_313 import MAX_PERIODS
    from nj_incentives.workpapers.fill import template_inputs

    return {
        name: list(values.get(name) or [])  # type: ignore[call-overload]
        for name, declared in template_inputs("ertc-form-313").items()
        if declared.rows == MAX_PERIODS
    }


def _roll_conversion(
    values: dict[str, object], recalc: Any, refers: Mapping[str, str], where: str
) -> tuple[str, str, list[str], int]:
    from nj_incentives.programs.beip import rules as beip
    from nj_incentives.programs.beip.templates.conversion import TAX_YEARS
    from nj_incentives.programs.remote_work import rules as remote_work

    liabilities = list(values.get("TaxLiabilities") or [])  # type: ignore[call-overload]
    row = _last_row(liabilities)
    named = _named_period(values, r"tax years? (\d{4})(?:\s*(?:-|to)\s*(\d{4}))?")
    if named and int(named) in TAX_YEARS and 0 < TAX_YEARS.index(int(named)) + 1 <= row:
        row = TAX_YEARS.index(int(named)) + 1
    ref = refers.get("TAXLIABILITIES", "TaxLiabilities")
    if row == 0:
        raise _refused(
            f"{where} {ref}: no tax year has a tax liability yet: nothing to roll forward "
            f"from (fill the first, tax year {TAX_YEARS[0]})"
        )
    year = TAX_YEARS[row - 1]
    issued = _column(recalc.names.get("CreditIssued"))
    law_last = max(p.first_tax_year + len(p.shares) - 1 for p in beip.CONVERSION_PARAGRAPHS)
    with_credit = [
        TAX_YEARS[n]
        for n, v in enumerate(issued[: len(TAX_YEARS)])
        if isinstance(v, (int, float)) and v > 0
    ]
    last = max([law_last, *with_credit])
    if year + 1 > last or row + 1 > len(TAX_YEARS):
        paragraph = beip.CONVERSION_PARAGRAPHS[-1]
        raise _refused(
            f"{where} {_row_cell(ref, row)} (TaxLiabilities, tax year {year}): tax year "
            f"{year + 1} is past the last tax year a converted credit "
            f"is issued for: {law_last} (grants accrued in {paragraph.accrual_years.start}, the "
            f"last accrual year, are issued in the {paragraph.first_tax_year} tax period, "
            f"{paragraph.citation})"
            + (
                f"; this workbook's last installment is in {max(with_credit)}"
                if with_credit
                else ""
            )
            + "; nothing to roll forward to"
        )
    carried = []
    refunds = _column(recalc.names.get("CreditRefund"))
    ends = _column(recalc.names.get("ReturnPeriodEnds"))
    refund = refunds[row - 1] if row <= len(refunds) else None
    end = ends[row - 1] if row <= len(ends) else None
    from nj_incentives.core.cells import date_from_serial

    period_end = date_from_serial(float(end)) if isinstance(end, (int, float)) else None
    if isinstance(refund, (int, float)) and refund > 0:
        values["CertificateAmount"] = round(float(refund), 2)
        carried.append(
            f"CertificateAmount = {_money(refund)}: the refund of tax year {year}, the credit "
            f"over its liability ({beip.CITE_F}) a transfer certificate is issued for "
            f"({beip.SECTION}g.(2))"
        )
    else:
        values["CertificateAmount"] = None
        carried.append(f"CertificateAmount blank: tax year {year} has no refund ({beip.CITE_F})")
    values["CreditPeriodEnd"] = period_end
    carried.append(
        f"CreditPeriodEnd = {period_end}: the end of tax year {year}, the only period its "
        f"credit applies in ({beip.CITE_E})"
    )
    for name in ("TransferAmount", "Consideration", "SaleDate"):
        values[name] = None
    values["TransferProposed"] = "No"
    carried.append(
        "TransferProposed = No, TransferAmount, Consideration and SaleDate cleared: last "
        f"year's proposal was for last year's certificate ({beip.CITE_G3})"
    )
    verdicts = [
        f"{name} {recalc.names.get(name)!r}"
        for name in ("RemoteWorkVerdict", "RemoteWorkC40Verdict")
        if recalc.names.get(name) is not None
    ]
    from nj_incentives.programs.remote_work import figures as RW

    carried.append(
        f"the remote-work election and the waiver from {RW.REMOTE_WORK_C40_FROM.single} kept "
        "as entered (last year: "
        + ", ".join(verdicts)
        + f"; the election is made once, {remote_work.CITE_H}; the waiver is for every later tax "
        "period, P.L.2024, c.40)"
    )
    return f"tax year {year}", f"tax year {year + 1}", carried, row + 1


#: The inputs of each template's new period (a row of each), in the order of the template.
NEW_PERIOD: Mapping[str, tuple[str, ...]] = {
    "beip-grant-schedule": ("Withholdings", "PartnerTax", "NewEmployees", "OtherGrants"),
    "beip-credit-conversion": ("TaxLiabilities",),
    "ertc-form-313": ("GrossReceipts", "Liabilities", "OtherCredits"),
}


def _row_cell(reference: str, row: int) -> str:
    """The cell of row ``row`` (1-based) of a one-column range ``Sheet!C40:C47``."""
    import re

    sheet, _, cells = reference.rpartition("!")
    match = re.fullmatch(r"([A-Z]{1,3})(\d+)(?::[A-Z]{1,3}\d+)?", cells)
    if not match:
        return reference
    return f"{sheet}!{match.group(1)}{int(match.group(2)) + row - 1}"


_ROLLS: Mapping[str, Callable[..., tuple[str, str, list[str], int]]] = {
    "beip-grant-schedule": _roll_grant,
    "beip-credit-conversion": _roll_conversion,
    "ertc-form-313": _roll_ertc,
}


def _engagement_period(template: str, values: Mapping[str, object], to: str) -> str:
    """The engagement's period after the roll: the new period, and what the workbook
    covers."""
    current = to.rsplit(" ", 1)[1]
    if template == "ertc-form-313":
        ends = [v for v in values.get("PeriodEnds") or [] if isinstance(v, dt.date)]  # type: ignore[attr-defined]
        return f"Privilege period ending {current} (periods ending {ends[0]} to {ends[-1]})"
    if template == "beip-credit-conversion":
        from nj_incentives.programs.beip.templates.conversion import TAX_YEARS

        return f"Tax year {current} (tax years {TAX_YEARS[0]}-{current})"
    term = values.get("Term")
    return f"Grant year {current} of {term}" if term else f"Grant year {current}"


# --------------------------------------------------------------------------- DATA


def _merge(
    inputs: Mapping[str, TemplateInput],
    values: dict[str, object],
    data: Sequence[tuple[str, str, object]],
    row: int,
    template: str,
) -> list[str]:
    """DATA over LAST's values: a table column given one value is the new period's row
    (``row``); else as ``fill`` reads it. The messages of the values refused."""
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
            _set_row(values, declared.name, row, value)
            given = {n.lower() for _, n, _ in data}
            for suffix in ("Tick", "Source"):  # the new figure is not yet ticked or sourced
                beside = f"{declared.name}{suffix}"
                if beside in inputs and beside.lower() not in given:
                    _set_row(values, beside, row, None)
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
    if data is None:
        entries: list[tuple[str, str, object]] = []
    elif isinstance(data, Mapping):
        entries = data_entries(data, "data")
    else:
        entries = read_data(data)
    recalc = _recalculate(last)
    from nj_incentives.workpapers.memo.calls import defined_names

    refers = {k: v.replace("$", "") for k, v in defined_names(recalc).items()}
    inputs, values, last_entries = _read_last(template, recalc, last.name)
    _, _, unknown, refused = check_entries(template, last_entries)
    if unknown or refused:
        raise FillError([*unknown, *refused], EXIT_FAILED)
    period_from, period_to, carried, row = _ROLLS[template](values, recalc, refers, last.name)
    refused = _merge(inputs, values, entries, row, template)
    if refused:
        raise FillError(refused, EXIT_FAILED)
    cleared = [name for name in SIGNOFF_FIELDS if name in values and not _blank(values[name])]
    for name in SIGNOFF_FIELDS:
        if name in values:
            values[name] = None
    if "EngagementPeriod" in values and not any(
        n.lower() in ("engagementperiod", "engagement.period") for _, n, _ in entries
    ):
        values["EngagementPeriod"] = _engagement_period(template, values, period_to)
    to_enter = []
    for name in NEW_PERIOD[template]:
        if name == "PartnerTax" and not values.get("PartnerPct"):
            continue  # no partners' grant percentage: no partners' tax to enter
        column = list(values.get(name) or [])  # type: ignore[call-overload]
        if row > len(column) or _blank(column[row - 1]):
            cell = _row_cell(refers.get(name.upper(), name), row)
            to_enter.append(f"{name}[{row}] ({cell})")
    written = {name: value for name, value in values.items() if not _blank(value) and value != []}
    filled = fill(template, written, output, force=force, namespace=namespace, cache=cache)
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
    )
