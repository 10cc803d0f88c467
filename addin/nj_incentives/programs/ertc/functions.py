"""The Economic Recovery Tax Credit's NJ_* functions (N.J.S.A. 52:27BBB-55; Form 313).
Declarations: :mod:`nj_incentives.core.declarations`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from nj_incentives.core.cells import (
    Cell,
    CellResult,
    as_rows,
    given,
    is_blank,
    money,
    trim_blanks,
    verdict,
)
from nj_incentives.core.declarations import (
    Catalog,
    ExplainTopic,
    ItemsOption,
    ResultColumn,
    a_date,
    each,
    each_date,
    headers,
    law_as_of,
    listed,
    raw,
    result_table,
    single,
    switch,
)
from nj_incentives.programs.ertc import figures as ERTC

__all__ = [
    "BASE_YEAR_COLUMNS",
    "CREDIT_YEARS_COLUMNS",
    "ERTC_LAW",
    "ERTC_PERIOD_COLUMNS",
    "ERTC_SCHEDULE_COLUMNS",
    "FUNCTIONS",
    "LAW_AS_OF",
    "TOPICS",
    "privilege_period",
]

#: Every NJ_* function of the program, in the order the catalog shows them.
FUNCTIONS = Catalog()
calculation = FUNCTIONS.calculation

#: The law the calculations cite (each entry adds its subsection).
ERTC_LAW = "N.J.S.A. 52:27BBB-55"

#: Figures of law as the texts below show them (core.parameters: every version).
_ERTC_ONE = ERTC.CREDIT_YEAR_ONE_AMOUNT.brief()
_ERTC_TWO = ERTC.CREDIT_YEAR_TWO_AMOUNT.brief()

ERTC_SCHEDULE_COLUMNS = (
    ResultColumn("Period end", "period_end", "date", "Last day of the privilege period"),
    ResultColumn(
        "New credit",
        "new_credit",
        "money",
        "Credit allowed in the period",
        scenario="ertc_new_credit",
    ),
    ResultColumn("Carried in", "carried_in", "money", "Unused credit carried into the period"),
    ResultColumn(
        "Limit", "limit", "money", "Most of the credit usable in the period", scenario="ertc_limit"
    ),
    ResultColumn("Used", "used", "money", "Credit used in the period", scenario="ertc_used"),
    ResultColumn(
        "Refund",
        "refund",
        "money",
        "Year-one credit refunded in the period",
        scenario="ertc_refund",
    ),
    ResultColumn(
        "Carried out",
        "carried_out",
        "money",
        "Unused credit after the period",
        scenario="ertc_carried_out",
    ),
    ResultColumn(
        "Expired", "expired", "money", "Credit expired in the period", scenario="ertc_expired"
    ),
    ResultColumn(
        "Allowed later",
        "allowed_later",
        "money",
        "On the last period's row: the credit of a credit year ending after it, allowed for the"
        " period in which that credit year ends (not in this schedule, b.(1)); else 0",
    ),
    ResultColumn(
        "Year one credit",
        "new_credit_year1",
        "money",
        "The part of the new credit that is credit year one's (allowed for the period in which"
        " it ends, b.(1)); else 0",
    ),
    ResultColumn(
        "Year two credit",
        "new_credit_year2",
        "money",
        "The part of the new credit that is credit year two's (allowed for the period in which"
        " it ends, b.(1)); else 0",
    ),
)

#: The schedule's columns the scenario runner gives once per privilege period
#: (``ertc_used_<k>``): ``scenario``.
ERTC_PERIOD_COLUMNS = tuple(column for column in ERTC_SCHEDULE_COLUMNS if column.scenario)

CREDIT_YEARS_COLUMNS = (
    ResultColumn("Credit year", "number", "int", "1 or 2"),
    ResultColumn("First day", "start", "date", "First day of the credit year"),
    ResultColumn("Last day", "end", "date", "Last day of the credit year"),
)

BASE_YEAR_COLUMNS = (
    ResultColumn("First day", "start", "date", "First day of the base year"),
    ResultColumn(
        "Last day", "end", "date", "Last day of the base year, the day before credit year one"
    ),
)

#: An ERTC calculation's ``law_as_of`` (its help names the versions modelled).
LAW_AS_OF = law_as_of("ertc")
_YEAR1_NEW = single("New full-time positions in credit year one")
_YEAR2_NEW = single("New full-time positions in credit year two")
_FRACTIONAL = single(
    "TRUE to keep fractional positions; blank = FALSE (whole positions, rounded down)"
)
_TAX_TYPE = switch(
    '"cbt" (Corporation Business Tax) or "insurance" (premiums taxes); blank = "cbt"',
    ("cbt", "insurance"),
)


calculation(
    "NJ_ERTC_FTE",
    cite=f"{ERTC_LAW}e.",
    description=(
        "Full-time position equivalents of part-time hours: hours / (140 x months), to 10 places "
        "(N.J.S.A. 52:27BBB-55e.)."
    ),
    example=(2100,),
    optional=("months", "first_month", "law_as_of"),
    part_time_hours=single("Aggregated hours of part-time positions in the period"),
    months=single("Months in the period; blank = 12"),
    first_month=a_date(
        "Any day of the period's first month: each month reads the full-time hours at its own"
        f" date ({ERTC.FULL_TIME_HOURS_PER_MONTH.brief()} a month); blank = undated"
    ),
    law_as_of=LAW_AS_OF,
)


calculation(
    "NJ_ERTC_AVG_POSITIONS",
    cite=f"{ERTC_LAW}e.",
    description=(
        "Average full-time positions in a 12-month period and, second, the part-time full-time "
        "equivalents included in it, as a 1x2 row (N.J.S.A. 52:27BBB-55e.)."
    ),
    example=([[160] * 12, [100] * 12], None, None),
    optional=("temporary", "excluded", "part_time_months", "first_month", "law_as_of"),
    hours=raw(
        "Hours worked: one row per employee, 12 columns (one per month); a blank month is 0,"
        " a blank row no employee"
    ),
    temporary=each("TRUE for a temporary or seasonal employee, one per row; blank = FALSE"),
    excluded=each("TRUE for an owner or owner's relative, one per row; blank = FALSE"),
    part_time_months=switch(
        'Months the part-time test counts: "non_full_time" or "all_months";'
        ' blank = "non_full_time"',
        ("non_full_time", "all_months"),
    ),
    first_month=a_date(
        "Any day of the roster's first month: each month reads its figures at its own date"
        f" ({ERTC.FULL_TIME_HOURS_PER_MONTH.brief()} a month full time); blank = undated"
    ),
    law_as_of=LAW_AS_OF,
)


calculation(
    "NJ_ERTC_NEW_POSITIONS",
    cite=f"{ERTC_LAW}e.",
    description=(
        "New full-time positions: max(0, year_avg - base_avg), rounded down to whole positions "
        "unless fractional (N.J.S.A. 52:27BBB-55e.)."
    ),
    example=(20.5, 31.25),
    optional=("fractional",),
    base_avg=single("Average positions in the 12 months before credit year one"),
    year_avg=single("Average positions in the credit year"),
    fractional=_FRACTIONAL,
)


calculation(
    "NJ_ERTC_CREDIT",
    cite=f"{ERTC_LAW}a.",
    description=(
        f"Economic Recovery Tax Credit for one credit year: {_ERTC_ONE} per new full-time position"
        f" in year one, {_ERTC_TWO} in year two (N.J.S.A. 52:27BBB-55a.)."
    ),
    example=(10, 1),
    optional=("fractional",),
    new_positions=single("New full-time positions in the credit year"),
    credit_year=single(f"Credit year: 1 ({_ERTC_ONE} per position) or 2 ({_ERTC_TWO})"),
    fractional=_FRACTIONAL,
)


calculation(
    "NJ_ERTC_SUSTAINED_EFFORT_RATIO",
    cite=f"{ERTC_LAW}e.",
    description=(
        "Sustained effort ratio: year-two new positions / year-one new positions, at most 1; 0 "
        "when year one has none (N.J.S.A. 52:27BBB-55e.)."
    ),
    example=(10, 8),
    year1_new=_YEAR1_NEW,
    year2_new=_YEAR2_NEW,
)


calculation(
    "NJ_ERTC_RATIO_FRACTIONAL",
    cite=f"{ERTC_LAW}e.",
    description=(
        'Whether the sustained effort ratio counts fractional positions, "Yes"/"No": as the '
        "credits count them (fractional), or the measured increases when ratio_measured "
        "(N.J.S.A. 52:27BBB-55e.; docs/interpretations.md)."
    ),
    example=(False, True),
    optional=("fractional", "ratio_measured"),
    fractional=_FRACTIONAL,
    ratio_measured=single(
        "TRUE: the ratio from the measured increases, fractions kept; blank/FALSE = the "
        "positions the credits count"
    ),
)


calculation(
    "NJ_ERTC_CREDIT_LIMIT",
    cite=f"{ERTC_LAW}b.(3)",
    description=(
        "Most of the credit usable in a period: max(0, min(50% of the liability, liability - "
        "minimum tax) - other credits); insurance taxes: liability - other credits (N.J.S.A. "
        "52:27BBB-55b.(3))."
    ),
    example=(10000, 1000, 2000),
    optional=("tax_type",),
    tax_liability=single("Tax liability otherwise due for the privilege period, dollars"),
    other_credits=single("Other credits taken in the period (applied first), dollars"),
    minimum_tax=single("Statutory minimum tax for the period, dollars (see NJ_CBT_MIN_TAX)"),
    tax_type=_TAX_TYPE,
)


calculation(
    "NJ_ERTC_REFUND",
    cite=f"{ERTC_LAW}c.(2)",
    description=(
        "Year-one credit refunded as an overpayment: the unused year-one credit x the sustained "
        "effort ratio, rounded down to the cent (N.J.S.A. 52:27BBB-55c.(2))."
    ),
    example=(17000, 10, 8),
    year1_remaining=single("Year-one credit unused after the period in which credit year two ends"),
    year1_new=_YEAR1_NEW,
    year2_new=_YEAR2_NEW,
)


calculation(
    "NJ_ERTC_SCHEDULE",
    cite=f"{ERTC_LAW}b., c.",
    description=(
        f"Credit per privilege period: {listed(ERTC_SCHEDULE_COLUMNS)} "
        "(N.J.S.A. 52:27BBB-55b., c.)."
    ),
    columns=ERTC_SCHEDULE_COLUMNS,
    example=(
        dt.date(2023, 1, 1),
        10,
        8,
        ["2023-12-31", "2024-12-31", "2025-12-31", "2026-12-31"],
        [8000, 10000, 50000, 50000],
        [0, 1000, 0, 0],
        [2000, 2000, 2000, 2000],
    ),
    optional=(
        "carryforward_years",
        "fractional",
        "tax_type",
        "ratio_fractional",
        "refund_period_limit",
        "opening_carried",
        "opening_before",
    ),
    operations_start=a_date("Date initial or expanded operations began (Excel date)"),
    year1_new=_YEAR1_NEW,
    year2_new=_YEAR2_NEW,
    period_ends=each_date("Last day of each privilege period, in order: one cell per period"),
    liabilities=each("Tax liability otherwise due, dollars: one per period"),
    other_credits=each("Other credits taken (applied first), dollars: one per period"),
    minimum_taxes=each("Statutory minimum tax, dollars: one per period"),
    carryforward_years=single(
        "Periods unused credit may be carried forward; blank = no limit (statute); "
        "Form 313 instructions: 5"
    ),
    fractional=_FRACTIONAL,
    tax_type=_TAX_TYPE,
    ratio_fractional=single(
        "TRUE: the sustained effort ratio from the measured (fractional) positions; FALSE:"
        " whole positions; blank = as fractional"
    ),
    refund_period_limit=switch(
        '"b3": year-one credit held to the b.(3) limit before the refund; "notwithstanding":'
        ' not (c.(1)); blank = "b3"',
        ("b3", "notwithstanding"),
    ),
    opening_carried=each(
        "Unused credit carried into the first period, dollars: credit year one's, then credit"
        " year two's (allowed before the first period); blank = none (that credit year ends in"
        " a period given)"
    ),
    opening_before=each(
        "Periods before the first in which each credit carried in was allowed (1 = the period"
        " just before): year one, year two; needed with carryforward_years"
    ),
)


calculation(
    "NJ_ERTC_CREDIT_YEARS",
    cite=f"{ERTC_LAW}e.",
    description=(
        "Credit years one and two: the first twelve calendar months following initial or expanded"
        f" operations, and the next twelve; {listed(CREDIT_YEARS_COLUMNS)} (N.J.S.A. "
        "52:27BBB-55e.)."
    ),
    columns=CREDIT_YEARS_COLUMNS,
    example=(dt.date(2023, 3, 15),),
    operations_start=a_date("Date initial or expanded operations began (Excel date)"),
)


calculation(
    "NJ_ERTC_BASE_YEAR",
    cite=f"{ERTC_LAW}e.",
    description=(
        "The base year of the position counts: the twelve-month period preceding credit year "
        f"one; {listed(BASE_YEAR_COLUMNS)} (N.J.S.A. 52:27BBB-55e.)."
    ),
    columns=BASE_YEAR_COLUMNS,
    example=(dt.date(2023, 3, 15),),
    operations_start=a_date("Date initial or expanded operations began (Excel date)"),
)


calculation(
    "NJ_ERTC_ELIGIBILITY_CHECK",
    cite=f"{ERTC_LAW}a., d.",
    description=(
        '"OK" if the taxpayer may receive the Economic Recovery Tax Credit at the location, or '
        "every reason it may not (N.J.S.A. 52:27BBB-55a., d.)."
    ),
    example=(False, False),
    optional=("in_qualified_municipality",),
    receives_uez_benefit=single("TRUE if the taxpayer receives an Urban Enterprise Zones benefit"),
    prior_credit_period_at_location=single(
        "TRUE if the location already had its 24-month credit period"
    ),
    in_qualified_municipality=single(
        "TRUE if the location is in a qualified municipality; blank = TRUE"
    ),
)


# =========================================================================== adapters
# How each function runs: its cells to the core's result (the rules imported on the first
# call, not at import) and that result to cells.


def _table(columns: Sequence[ResultColumn], rows: Sequence[Any]) -> list[list[CellResult]]:
    """A result table: the catalog's header row, then one row of cells per row."""
    return result_table(columns, rows)


@FUNCTIONS.adapter(show=lambda equivalents: float(equivalents.fte))
def NJ_ERTC_FTE(
    part_time_hours: Cell, months: Cell = None, first_month: Cell = None, law_as_of: Cell = None
) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.explain_fte(
        part_time_hours, **given(months=months, first_month=first_month, law_as_of=law_as_of)
    )


@FUNCTIONS.adapter(show=lambda count: [[float(count.average), float(count.fte)]])
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


@FUNCTIONS.adapter(show=lambda positions: float(positions.count))
def NJ_ERTC_NEW_POSITIONS(base_avg: Cell, year_avg: Cell, fractional: Cell = None) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.explain_new_positions(base_avg, year_avg, **given(fractional=fractional))


@FUNCTIONS.adapter(show=lambda credit: money(credit.amount))
def NJ_ERTC_CREDIT(new_positions: Cell, credit_year: Cell, fractional: Cell = None) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.credit_amount(new_positions, credit_year, **given(fractional=fractional))


@FUNCTIONS.adapter(show=lambda ratio: float(ratio.ratio))
def NJ_ERTC_SUSTAINED_EFFORT_RATIO(year1_new: Cell, year2_new: Cell) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.explain_sustained_effort_ratio(year1_new, year2_new)


@FUNCTIONS.adapter(show=lambda ratio: "Yes" if ratio.fractional else "No")
def NJ_ERTC_RATIO_FRACTIONAL(fractional: Cell = None, ratio_measured: Cell = None) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.ratio_positions(**given(fractional=fractional, ratio_measured=ratio_measured))


@FUNCTIONS.adapter(show=lambda limit: money(limit.amount))
def NJ_ERTC_CREDIT_LIMIT(
    tax_liability: Cell, other_credits: Cell, minimum_tax: Cell, tax_type: Cell = None
) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.credit_limit(tax_liability, other_credits, minimum_tax, **given(tax_type=tax_type))


@FUNCTIONS.adapter(show=lambda refund: money(refund.amount))
def NJ_ERTC_REFUND(year1_remaining: Cell, year1_new: Cell, year2_new: Cell) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.explain_refund(year1_remaining, year1_new, year2_new)


def _ertc_schedule_table(schedule: Any) -> list[list[CellResult]]:
    return _table(ERTC_SCHEDULE_COLUMNS, schedule.rows)


@FUNCTIONS.adapter(show=_ertc_schedule_table)
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


@FUNCTIONS.adapter(
    show=lambda years: [
        headers(CREDIT_YEARS_COLUMNS),
        [1, years.year_one_start, years.year_one_end],
        [2, years.year_two_start, years.year_two_end],
    ]
)
def NJ_ERTC_CREDIT_YEARS(operations_start: Cell) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.credit_years(operations_start)


@FUNCTIONS.adapter(show=lambda year: result_table(BASE_YEAR_COLUMNS, [year]))
def NJ_ERTC_BASE_YEAR(operations_start: Cell) -> Any:
    from nj_incentives.programs.ertc import rules as ertc

    return ertc.base_year(operations_start)


@FUNCTIONS.adapter(show=lambda check: verdict(check.ok, check.reasons))
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


def privilege_period(end: str, liability: str, other_credits: str, minimum_tax: str) -> list[Any]:
    """One item of ``explain ertc --periods`` as the core's privilege period (a bad field
    raises the core's InputError)."""
    from nj_incentives.programs.ertc import rules

    return list(rules.privilege_periods([end], [liability], [other_credits], [minimum_tax]))


#: The program's ``nj-incentives explain`` topics.
TOPICS = (
    ExplainTopic(
        "ertc",
        "NJ_ERTC_SCHEDULE",
        "nj_incentives.programs.ertc.rules:credit_schedule",
        replaced=("period_ends", "liabilities", "other_credits", "minimum_taxes"),
        custom=(
            ItemsOption(
                "periods",
                "period",
                ("END", "LIABILITY", "OTHER", "MINIMUM"),
                "END:LIABILITY:OTHER_CREDITS:MINIMUM_TAX per period, comma-separated (or"
                " semicolon-separated when an amount has thousands separators)",
                "2024-12-31:10000:0:2000,2025-12-31:50000:0:2000",
                "privilege periods: END:LIABILITY:OTHER_CREDITS:MINIMUM_TAX per period,"
                " comma-separated (or semicolon-separated when an amount has thousands"
                " separators)",
                privilege_period,
            ),
        ),
    ),
)
