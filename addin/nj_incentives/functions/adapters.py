"""The NJ_* functions' adapters: from worksheet cells onto the calculation core and back.

Each function only converts cells to the core's inputs and the core's result back to
cells (:func:`~nj_incentives.functions.table.adapter` registers it under its catalog
entry); every rule of law lives in :mod:`nj_incentives.core` and
:mod:`nj_incentives.programs`, imported on the first call, not at import. Python names
are the Excel names; importing this module imports no xlwings.

Beyond issue 4's catalog (names and argument order fixed), some functions take further
optional arguments at the end (e.g. ``NJ_BEIP_TRANSFER_CHECK``'s discount_rate and
years, ``NJ_ERTC_SCHEDULE``'s fractional and tax_type), and three functions are added:
``NJ_ERTC_CREDIT_YEARS``, ``NJ_ERTC_ELIGIBILITY_CHECK`` and ``NJ_EXPLAIN`` (the steps
behind any function's result, with their citations).

Errors (:func:`nj_incentives.core.cells.error_message`): a bad input never yields a
number and never a traceback. The message is short: ``argument = value: rule (citation)``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from nj_incentives.core.cells import (
    Cell,
    CellResult,
    MissingPackage,
    as_date_cell,
    as_rows,
    given,
    input_error,
    is_blank,
    money,
    python_value,
    refuse_error_cells,
    serial_to_date,
    trim_blanks,
    verdict,
)
from nj_incentives.functions.catalog import (
    BASE_YEAR_COLUMNS,
    BEIP_LAW,
    CONVERSION_SCHEDULE_COLUMNS,
    CREDIT_YEARS_COLUMNS,
    ERTC_SCHEDULE_COLUMNS,
    EXPLAIN_COLUMNS,
    GRANT_SCHEDULE_COLUMNS,
    ResultColumn,
    headers,
    result_table,
)
from nj_incentives.functions.table import CATALOG, adapter
from nj_incentives.version import LAW_CURRENT_TO, __version__

if TYPE_CHECKING:
    from nj_incentives.core.common import Explained

# =========================================================================== BEIP


@adapter(show=lambda limits: [[float(limits[0]), float(limits[1])]])
def NJ_BEIP_PCT_LIMITS(basis: Cell, smart_growth: Cell = None) -> tuple[Decimal, Decimal]:
    from nj_incentives.programs.beip import rules as beip

    return beip.pct_limits(basis, **given(smart_growth=smart_growth))


@adapter(show=lambda grant: money(grant.amount))
def NJ_BEIP_GRANT(
    withholdings: Cell,
    pct: Cell,
    partner_tax: Cell = None,
    partner_pct: Cell = None,
    smart_growth: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.annual_grant(
        withholdings,
        pct,
        **given(partner_tax=partner_tax, partner_pct=partner_pct, smart_growth=smart_growth),
    )


def _table(columns: Sequence[ResultColumn], rows: Sequence[Any]) -> list[list[CellResult]]:
    """A result table: the catalog's header row, then one row of cells per row."""
    return result_table(columns, rows)


def _grant_schedule_table(schedule: Any) -> list[list[CellResult]]:
    return _table(GRANT_SCHEDULE_COLUMNS, schedule.rows)


@adapter(show=lambda cap: "Yes" if cap.applies else "No")
def NJ_BEIP_CAP_APPLIES(agreement_date: Cell, law_as_of: Cell = None) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.explain_cap_applies(agreement_date, **given(law_as_of=law_as_of))


@adapter(show=_grant_schedule_table)
def NJ_BEIP_GRANT_SCHEDULE(
    withholdings: Cell,
    new_employees: Cell,
    pct: Cell,
    agreement_date: Cell,
    smart_growth: Cell = None,
    partner_tax: Cell = None,
    partner_pct: Cell = None,
    cap_method: Cell = None,
    law_as_of: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.grant_schedule(
        withholdings,
        new_employees,
        pct,
        agreement_date,
        **given(
            smart_growth=smart_growth,
            partner_tax=partner_tax,
            partner_pct=partner_pct,
            cap_method=cap_method,
            law_as_of=law_as_of,
        ),
    )


@adapter(show=lambda base: money(base.amount))
def NJ_BEIP_LIMIT_BASE(basis: Cell, withholdings: Cell = None, partner_tax: Cell = None) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.limit_base(basis, **given(withholdings=withholdings, partner_tax=partner_tax))


@adapter(show=lambda limit: money(limit.amount))
def NJ_BEIP_COMBINED_LIMIT(
    base_amount: Cell, other_grants: Cell, basis: Cell, smart_growth: Cell = None
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.combined_limit(base_amount, other_grants, basis, **given(smart_growth=smart_growth))


@adapter(show=lambda split: [[money(split.over), money(split.within)]])
def NJ_BEIP_GRANT_OVER_LIMIT(grant: Cell, combined_limit: Cell) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.grant_over_limit(grant, combined_limit)


def _conversion_table(schedule: Any) -> list[list[CellResult]]:
    """Tax year, Share, Installment; and Period end (the return) for a filer whose year
    does not end in December or who numbers by the calendar year (a calendar-year filer's
    table keeps its three columns)."""
    calendar_filer = (schedule.year_end_month, schedule.numbering) == (12, "form")
    columns = CONVERSION_SCHEDULE_COLUMNS[:3] if calendar_filer else CONVERSION_SCHEDULE_COLUMNS
    return _table(columns, schedule.rows)


@adapter(show=lambda schedule: _conversion_table(schedule))
def NJ_BEIP_CONVERSION_SCHEDULE(
    accrual_year: Cell,
    amount: Cell,
    approval_date: Cell = None,
    grant_approval_date: Cell = None,
    direction_date: Cell = None,
    year_end_month: Cell = None,
    numbering: Cell = None,
    direction_deadline: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.conversion_schedule(
        accrual_year,
        amount,
        **given(
            approval_date=approval_date,
            year_end_month=year_end_month,
            numbering=numbering,
            grant_approval_date=grant_approval_date,
            direction_date=direction_date,
            direction_deadline=direction_deadline,
        ),
    )


@adapter(show=money)
def NJ_BEIP_CONVERSION_INSTALLMENT(
    accrual_year: Cell,
    amount: Cell,
    tax_year: Cell,
    approval_date: Cell = None,
    numbering: Cell = None,
) -> Decimal:
    from nj_incentives.programs.beip import rules as beip

    period_end = _period_end_or_none(tax_year)
    return beip.conversion_installment(
        accrual_year,
        amount,
        None if period_end is not None else tax_year,
        **given(approval_date=approval_date, period_end=period_end, numbering=numbering),
    )


#: A number above this in a "tax year or period end" cell is an Excel date serial.
_LARGEST_YEAR = 9999


def _period_end_or_none(value: Cell) -> dt.date | None:
    """A "tax year or period end" cell: the date when it holds one (a date, ISO date text,
    or a serial number above 9999), else None (a tax year)."""
    if isinstance(value, dt.date):
        return value.date() if isinstance(value, dt.datetime) else value
    if isinstance(value, str) and len(value.strip()) >= 10 and value.strip()[4] == "-":
        from nj_incentives.core.common import as_date

        return as_date(value, "tax_year", f"{BEIP_LAW}e.")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > _LARGEST_YEAR:
        return serial_to_date(float(value), "tax_year", f"{BEIP_LAW}e.")
    return None


@adapter(show=lambda application: money(application.applied))
def NJ_BEIP_CREDIT_APPLIED(credit: Cell, tax_liability: Cell, minimum_tax: Cell = None) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.apply_credit(credit, tax_liability, **given(minimum_tax=minimum_tax))


@adapter(show=lambda application: money(application.overpayment))
def NJ_BEIP_CREDIT_REFUND(credit: Cell, tax_liability: Cell, minimum_tax: Cell = None) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.apply_credit(credit, tax_liability, **given(minimum_tax=minimum_tax))


@adapter(show=lambda price: money(price.amount))
def NJ_BEIP_TRANSFER_MIN_PRICE(
    transfer_amount: Cell,
    discount_rate: Cell = None,
    years: Cell = None,
    sale_date: Cell = None,
    credit_period_end: Cell = None,
    max_discount_rate: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.transfer_min_price(
        transfer_amount,
        **given(
            discount_rate=discount_rate,
            years=years,
            sale_date=sale_date,
            credit_period_end=credit_period_end,
            max_discount_rate=max_discount_rate,
        ),
    )


@adapter(show=lambda check: verdict(check.ok, check.reasons))
def NJ_BEIP_TRANSFER_CHECK(
    certificate_amount: Cell,
    transfer_amount: Cell,
    consideration: Cell,
    discount_rate: Cell = None,
    years: Cell = None,
    sale_date: Cell = None,
    credit_period_end: Cell = None,
    seller_is_transferee: Cell = None,
    max_discount_rate: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.transfer_check(
        certificate_amount,
        transfer_amount,
        consideration,
        **given(
            discount_rate=discount_rate,
            years=years,
            sale_date=sale_date,
            credit_period_end=credit_period_end,
            seller_is_transferee=seller_is_transferee,
            max_discount_rate=max_discount_rate,
        ),
    )


@adapter(show=lambda payment: money(payment.amount))
def NJ_BEIP_REMOTE_WORK_PAYMENT(
    credit: Cell,
    period_end: Cell = None,
    numbering: Cell = None,
    c40_periods: Cell = None,
    law_as_of: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.remote_work_payment(
        credit,
        **given(
            period_end=period_end,
            numbering=numbering,
            c40_periods=c40_periods,
            law_as_of=law_as_of,
        ),
    )


@adapter(show=lambda check: verdict(check.ok, check.reasons))
def NJ_BEIP_REMOTE_WORK_CHECK(
    election_date: Cell,
    share_at_facility: Cell,
    election_from: Cell = None,
    period_start: Cell = None,
    enhanced_area: Cell = None,
    commitment_end: Cell = None,
    election_deadline: Cell = None,
    law_as_of: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.remote_work_check(
        election_date,
        share_at_facility,
        **given(
            election_from=election_from,
            period_start=period_start,
            enhanced_area=enhanced_area,
            commitment_end=commitment_end,
            election_deadline=election_deadline,
            law_as_of=law_as_of,
        ),
    )


@adapter(show=lambda extension: extension.extended_end)
def NJ_BEIP_REMOTE_WORK_COMMITMENT_END(commitment_end: Cell, law_as_of: Cell = None) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.remote_work_commitment_end(commitment_end, **given(law_as_of=law_as_of))


# =========================================================================== ERTC


@adapter(show=lambda equivalents: float(equivalents.fte))
def NJ_ERTC_FTE(
    part_time_hours: Cell, months: Cell = None, first_month: Cell = None, law_as_of: Cell = None
) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.explain_fte(
        part_time_hours, **given(months=months, first_month=first_month, law_as_of=law_as_of)
    )


@adapter(show=lambda count: [[float(count.average), float(count.fte)]])
def NJ_ERTC_AVG_POSITIONS(
    hours: Cell,
    temporary: Cell = None,
    excluded: Cell = None,
    part_time_months: Cell = None,
    first_month: Cell = None,
    law_as_of: Cell = None,
) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    table = _roster_rows(hours)
    count, height = len(table), len(as_rows(hours))
    flags = {
        name: None if values is None else _flags(values, count, height)
        for name, values in (("temporary", temporary), ("excluded", excluded))
    }
    return ertc.average_positions(
        ertc.roster(table, **given(**flags)),
        **given(part_time_months=part_time_months, first_month=first_month, law_as_of=law_as_of),
    )


def _roster_rows(hours: Cell) -> list[list[Cell]]:
    """The roster's rows, trailing blank rows cut, each row as wide as the range (a blank
    month stays a blank cell: the core reads it as 0 hours, or a wholly blank row as no
    employee)."""
    rows = trim_blanks(as_rows(hours))
    return [[None if is_blank(cell) else cell for cell in row] for row in rows]


def _flags(values: list[Cell], count: int, height: int) -> list[Cell]:
    """One flag per roster row: a blank cell, or a missing one at the end, is FALSE. The
    flags of the wholly blank hours rows after the last employee (``count`` rows of the
    ``height`` the hours range has: an employee gone before the period, "No" in the flag
    columns) are dropped, as the core ignores a blank row's flags; a flag column longer
    than the hours range is left for the core to refuse."""
    flags = [False if value is None else value for value in values]
    if len(flags) <= height:
        flags = flags[:count]
    return flags + [False] * (count - len(flags))


@adapter(show=lambda positions: float(positions.count))
def NJ_ERTC_NEW_POSITIONS(base_avg: Cell, year_avg: Cell, fractional: Cell = None) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.explain_new_positions(base_avg, year_avg, **given(fractional=fractional))


@adapter(show=lambda credit: money(credit.amount))
def NJ_ERTC_CREDIT(new_positions: Cell, credit_year: Cell, fractional: Cell = None) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.credit_amount(new_positions, credit_year, **given(fractional=fractional))


@adapter(show=lambda ratio: float(ratio.ratio))
def NJ_ERTC_SUSTAINED_EFFORT_RATIO(year1_new: Cell, year2_new: Cell) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.explain_sustained_effort_ratio(year1_new, year2_new)


@adapter(show=lambda ratio: "Yes" if ratio.fractional else "No")
def NJ_ERTC_RATIO_FRACTIONAL(fractional: Cell = None, ratio_measured: Cell = None) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.ratio_positions(**given(fractional=fractional, ratio_measured=ratio_measured))


@adapter(show=lambda limit: money(limit.amount))
def NJ_ERTC_CREDIT_LIMIT(
    tax_liability: Cell, other_credits: Cell, minimum_tax: Cell, tax_type: Cell = None
) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.credit_limit(tax_liability, other_credits, minimum_tax, **given(tax_type=tax_type))


@adapter(show=lambda refund: money(refund.amount))
def NJ_ERTC_REFUND(year1_remaining: Cell, year1_new: Cell, year2_new: Cell) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.explain_refund(year1_remaining, year1_new, year2_new)


def _ertc_schedule_table(schedule: Any) -> list[list[CellResult]]:
    return _table(ERTC_SCHEDULE_COLUMNS, schedule.rows)


@adapter(show=_ertc_schedule_table)
def NJ_ERTC_SCHEDULE(
    operations_start: Cell,
    year1_new: Cell,
    year2_new: Cell,
    period_ends: Cell,
    liabilities: Cell,
    other_credits: Cell,
    minimum_taxes: Cell,
    carryforward_years: Cell = None,
    fractional: Cell = None,
    tax_type: Cell = None,
    ratio_fractional: Cell = None,
    refund_period_limit: Cell = None,
    opening_carried: Cell = None,
    opening_before: Cell = None,
) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    periods = ertc.privilege_periods(period_ends, liabilities, other_credits, minimum_taxes)
    return ertc.credit_schedule(
        operations_start,
        year1_new,
        year2_new,
        periods,
        **given(
            carryforward_years=carryforward_years,
            fractional=fractional,
            tax_type=tax_type,
            ratio_fractional=ratio_fractional,
            refund_period_limit=refund_period_limit,
            opening_carried=opening_carried,
            opening_before=opening_before,
        ),
    )


@adapter(
    show=lambda years: [
        headers(CREDIT_YEARS_COLUMNS),
        [1, years.year_one_start, years.year_one_end],
        [2, years.year_two_start, years.year_two_end],
    ]
)
def NJ_ERTC_CREDIT_YEARS(operations_start: Cell) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.credit_years(operations_start)


@adapter(show=lambda year: result_table(BASE_YEAR_COLUMNS, [year]))
def NJ_ERTC_BASE_YEAR(operations_start: Cell) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.base_year(operations_start)


@adapter(show=lambda check: verdict(check.ok, check.reasons))
def NJ_ERTC_ELIGIBILITY_CHECK(
    receives_uez_benefit: Cell,
    prior_credit_period_at_location: Cell,
    in_qualified_municipality: Cell = None,
) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.eligibility_check(
        receives_uez_benefit,
        prior_credit_period_at_location,
        **given(in_qualified_municipality=in_qualified_municipality),
    )


# =========================================================================== CBT


@adapter(show=lambda numbered: numbered.year)
def NJ_TAX_YEAR(period_end: Cell, numbering: Cell = None) -> Any:
    from nj_incentives.programs.cbt import rules as cbt

    return cbt.tax_year(period_end, **given(numbering=numbering))


@adapter(show=lambda day: day)
def NJ_TAX_PERIOD_END(tax_year: Cell, year_end_month: Cell = None, numbering: Cell = None) -> Any:
    from nj_incentives.programs.cbt import rules as cbt

    return cbt.period_end_for(tax_year, **given(month=year_end_month, numbering=numbering))


@adapter(show=lambda minimum: money(minimum.amount))
def NJ_CBT_MIN_TAX(
    nj_gross_receipts: Cell,
    s_corporation: Cell = None,
    group_payroll: Cell = None,
    group_rule_for_s_corporations: Cell = None,
    period_start_year: Cell = None,
    months: Cell = None,
    short_period_test: Cell = None,
) -> Any:
    from nj_incentives.programs.cbt import rules as cbt

    return cbt.minimum_tax(
        nj_gross_receipts,
        **given(
            s_corporation=s_corporation,
            group_payroll=group_payroll,
            group_rule_for_s_corporations=group_rule_for_s_corporations,
            period_start_year=period_start_year,
            months=months,
            short_period_test=short_period_test,
        ),
    )


# =========================================================================== about


def _input_rule(
    kind: Cell, low: Cell, high: Cell, citation: Cell, rule: Cell, choices: Cell
) -> Any:
    from nj_incentives.core.inputs import InputKind, InputRule, as_choice, as_number

    where = "NJ_INPUT, docs/functions.md"
    chosen = InputKind(as_choice(kind, "kind", tuple(InputKind), where))
    bounds: list[Decimal | int | None] = [
        None if b is None else as_number(b, n, where) for n, b in (("low", low), ("high", high))
    ]
    if chosen is InputKind.COUNT:  # a count's bounds are whole numbers, as the law states them
        bounds = [None if b is None else int(b) for b in bounds]
    return InputRule(
        chosen,
        # a refusal always cites something: the call's citation, else this function's reference
        where if citation is None or not str(citation).strip() else str(citation),
        bounds[0],
        bounds[1],
        "" if rule is None else str(rule),
        tuple(c.strip() for c in str(choices or "").split("|") if c.strip()),
    )


def _read_cells(read: Any) -> Any:
    if isinstance(read, list):
        return [[_read_cells(cell) for cell in row] for row in read]
    if isinstance(read, Decimal):
        return float(read)
    return read


def _read_input(declared: Any, cell: Cell, shown: str) -> Any:
    """One cell (not blank) read by ``declared`` (a :class:`~.law.inputs.Input`), as the
    NJ_* functions read their arguments: error cells refused, dates from serials."""
    from nj_incentives.core.inputs import InputKind

    refuse_error_cells(cell, shown, declared.citation)
    if declared.kind is InputKind.DATE:
        cell = as_date_cell(cell, shown, declared.citation)
    return declared.parse(cell, shown)


@adapter(show=_read_cells)
def NJ_INPUT(
    kind: Cell,
    input_name: Cell,
    value: Cell = None,
    low: Cell = None,
    high: Cell = None,
    citation: Cell = None,
    rule: Cell = None,
    choices: Cell = None,
) -> Any:
    declared = _input_rule(kind, low, high, citation, rule, choices)
    argument = str(input_name)

    def one(cell: Cell, shown: str) -> Any:
        return None if is_blank(cell) else _read_input(declared, cell, shown)

    value = python_value(value)
    if not isinstance(value, (list, tuple)):
        return one(value, argument)
    rows = as_rows(value)
    width = max((len(row) for row in rows), default=0)
    return [
        [one(cell, f"{argument}[{i * width + j + 1}]") for j, cell in enumerate(row)]
        for i, row in enumerate(rows)
    ]


#: A range's address as NJ_INPUT_REFUSED takes it: ``'Part II base year'!D6:O255``.
_ADDRESS = re.compile(
    r"(?P<sheet>(?:'(?:[^']|'')+'|[^'!]+)!)?\$?(?P<col>[A-Za-z]{1,3})\$?(?P<row>[0-9]{1,7})"
    r"(?::\$?[A-Za-z]{1,3}\$?[0-9]{1,7})?"
)


def _cell_namer(where: str, width: int) -> Callable[[int, int], str]:
    """``named(i, j)``: the cell ``i`` rows down and ``j`` columns right of ``where``'s
    top left, as ``'Sheet'!F12`` when ``where`` is an address, else ``where[n]`` (n
    counting along rows ``width`` wide from 1, as NJ_INPUT names a range's cells)."""
    match = _ADDRESS.fullmatch(where.strip())
    if match is None:
        return lambda i, j: f"{where}[{i * width + j + 1}]"
    from nj_incentives.core.cells import cell_index, cell_name

    row, col = cell_index(match["col"] + match["row"])
    sheet = match["sheet"] or ""
    return lambda i, j: f"{sheet}{cell_name(row + i, col + j)}"


@adapter()
def NJ_INPUT_REFUSED(
    kind: Cell,
    input_name: Cell,
    value: Cell = None,
    low: Cell = None,
    high: Cell = None,
    citation: Cell = None,
    rule: Cell = None,
    choices: Cell = None,
) -> str:
    from nj_incentives.core.inputs import InputError

    declared = _input_rule(kind, low, high, citation, rule, choices)
    where = str(input_name)
    rows = as_rows(value)
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            if is_blank(cell):
                continue
            try:
                _read_input(declared, cell, where)
            except InputError:  # read again under the cell's own name, for the message
                named = _cell_namer(where, max(len(r) for r in rows))(i, j)
                try:
                    _read_input(declared, cell, named)
                except InputError as refused:
                    return str(refused)
    return ""


@adapter()
def NJ_INCENTIVES_VERSION(part: Cell = None) -> str:
    from nj_incentives.core.common import as_choice

    if part is None:
        return f"nj-incentives {__version__}; law current to: {LAW_CURRENT_TO}"
    chosen = as_choice(part, "part", ("version", "law"), "NJ_INCENTIVES_VERSION, docs/functions.md")
    return __version__ if chosen == "version" else LAW_CURRENT_TO


@adapter()
def NJ_INPUTS_HASH(kinds: Cell, *inputs: Cell) -> str:
    from nj_incentives.functions.inputs_hash import inputs_hash

    return inputs_hash(kinds, *inputs)


@adapter(show=lambda table: table)
def NJ_SCENARIOS(table: Cell) -> Any:
    try:
        from nj_incentives.scenarios.columns import ScenarioError
        from nj_incentives.scenarios.table import scenarios_table
    except ImportError as missing:  # e.g. Pyodide without numpy/pandas wheels
        raise MissingPackage(
            f"NJ_SCENARIOS needs numpy and pandas, which this Python does not have "
            f"({missing}): install pandas (in xlwings Lite: add it to requirements.txt), "
            "or run the table with nj-incentives scenarios"
        ) from None

    rows = as_rows(table)
    try:
        return scenarios_table(rows)
    except ScenarioError as error:
        citation = "NJ_SCENARIOS, docs/scenarios.md"
        raise input_error("table", rows[0] if rows else None, str(error), citation) from None


def _explanation(result: Explained) -> list[list[CellResult]]:
    return _table(EXPLAIN_COLUMNS, result.steps)


@adapter(show=_explanation)
def NJ_EXPLAIN(function_name: Cell, *args: Cell) -> Explained:
    from nj_incentives.core.common import Explained

    chosen = str(function_name).strip().upper()
    if chosen not in CATALOG or chosen == "NJ_EXPLAIN":
        rule = "must be the name of an NJ_ function"
        raise input_error("function_name", function_name, rule, "NJ_EXPLAIN, docs/functions.md")
    result = CATALOG[chosen].result(*args)
    if not isinstance(result, Explained):
        rule = "gives a value without explanation steps"
        raise input_error("function_name", function_name, rule, "NJ_EXPLAIN, docs/functions.md")
    return result


#: Every NJ_* function, each bound to its :class:`~nj_incentives.functions.table.ExcelFunction`.
__all__ = list(CATALOG)
