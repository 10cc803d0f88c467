"""The Economic Recovery Tax Credit, N.J.S.A. 52:27BBB-55 (nj_incentives.programs.ertc.rules).

Worked examples by subsection (a., b., c., d., e.), each with its arithmetic, then the
property tests of the schedule, the limit, the refund and the position counts.
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
import re
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.core.common import InputError, cents_down
from nj_incentives.programs.ertc.rules import (
    CREDIT_YEAR_ONE_AMOUNT,
    CREDIT_YEAR_TWO_AMOUNT,
    FORM_313_CARRYFORWARD_YEARS,
    PART_TIME_HOURS_PER_MONTH,
    CreditSchedule,
    EmployeeHours,
    PrivilegePeriod,
    average_positions,
    credit_amount,
    credit_limit,
    credit_schedule,
    credit_years,
    eligibility_check,
    exact_average,
    explain_new_positions,
    explain_refund,
    fte,
    new_positions,
    privilege_periods,
    refund,
    roster,
    sustained_effort_ratio,
)

D = Decimal


def calendar_periods(
    first_year: int,
    liabilities: Sequence[int | str],
    other_credits: Sequence[int | str] | None = None,
    minimum_tax: int | str = 2000,
) -> tuple[PrivilegePeriod, ...]:
    """Calendar-year privilege periods from ``first_year``, one per liability."""
    count = len(liabilities)
    return privilege_periods(
        [dt.date(first_year + k, 12, 31) for k in range(count)],
        list(liabilities),
        list(other_credits) if other_credits is not None else [0] * count,
        [minimum_tax] * count,
    )


def amounts(schedule: CreditSchedule, field: str) -> list[Decimal]:
    return [getattr(row, field) for row in schedule.rows]


# =========================================================================== a.


def test_credit_amounts_subsection_a() -> None:
    # Credit year one: 10 new positions x $2,500 = $25,000.
    assert credit_amount(10, 1).amount == D("25000.00")
    # Credit year two: 8 new positions x $1,250 = $10,000.
    assert credit_amount(8, 2).amount == D("10000.00")
    assert (D(2500), D(1250)) == (CREDIT_YEAR_ONE_AMOUNT, CREDIT_YEAR_TWO_AMOUNT)
    # Excel sends whole numbers as floats or ints: 3.0 positions is 3.
    assert credit_amount(3.0, 2).amount == D("3750.00")


def test_fractional_credit_is_rounded_down_to_the_cent() -> None:
    # 1.1904821428 x 2,500 = 2,976.205357 -> 2,976.20 (fractions of a cent dropped)
    assert credit_amount(D("1.1904821428"), 1, fractional=True).amount == D("2976.20")
    # 1.5 x 1,250 = 1,875.00
    assert credit_amount(1.5, 2, fractional=True).amount == D("1875.00")


def test_credit_amount_explains_itself() -> None:
    result = credit_amount(10, 1)
    assert result.steps[0].arithmetic == "10 x 2,500.00 = 25,000.00"
    assert result.steps[0].citation == "N.J.S.A. 52:27BBB-55a."


@pytest.mark.parametrize(
    ("new", "year", "argument", "fragment"),
    [
        (1.5, 1, "new_positions", "whole number of positions"),
        (-1, 1, "new_positions", "must not be negative"),
        (3, 3, "credit_year", "must be 1 or 2"),
        (3, 0, "credit_year", "must be 1 or 2"),
    ],
)
def test_credit_amount_bad_input(new: float, year: int, argument: str, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        credit_amount(new, year)
    assert caught.value.argument == argument
    assert fragment in caught.value.rule
    assert caught.value.citation.startswith("N.J.S.A. 52:27BBB-55")


def test_eligibility_subsections_a_and_d() -> None:
    assert eligibility_check(False, False).ok
    uez = eligibility_check(True, False)
    assert not uez.ok
    assert len(uez.reasons) == 1
    assert "Urban Enterprise Zones Act" in uez.reasons[0]
    assert "N.J.S.A. 52:27BBB-55a." in uez.reasons[0]
    both = eligibility_check("Yes", 1, in_qualified_municipality=False)
    assert len(both.reasons) == 3
    assert any("24-month" in reason and "55d." in reason for reason in both.reasons)
    with pytest.raises(InputError, match="receives_uez_benefit"):
        eligibility_check("maybe", False)


# =========================================================================== b.(3)


@pytest.mark.parametrize(
    ("liability", "other", "minimum", "expected"),
    [
        # min(50% x 8,000 = 4,000, 8,000 - 2,000 = 6,000) - 0 = 4,000
        ("8000", "0", "2000", "4000.00"),
        # min(5,000, 8,000) - 1,000 other credits = 4,000
        ("10000", "1000", "2000", "4000.00"),
        # the statutory minimum binds: min(1,500, 3,000 - 2,000 = 1,000) = 1,000
        ("3000", "0", "2000", "1000.00"),
        # other credits take all the room: max(0, min(1,500, 1,000) - 1,200) = 0
        ("3000", "1200", "2000", "0.00"),
        # liability below the minimum: max(0, min(750, 1,500 - 2,000 = -500)) = 0
        ("1500", "0", "2000", "0.00"),
        # 50% x 1,000.01 = 500.005 -> 500.00 (rounded down); 1,000.01 - 500 = 500.01
        ("1000.01", "0", "500", "500.00"),
    ],
)
def test_credit_limit_cbt(liability: str, other: str, minimum: str, expected: str) -> None:
    assert credit_limit(liability, other, minimum).amount == D(expected)


def test_credit_limit_steps_cite_the_priority_regulation() -> None:
    steps = credit_limit(10000, 1000, 2000).steps
    assert steps[0].arithmetic == "10,000.00 x 50% = 5,000.00"
    assert steps[-1].arithmetic == "max(0, min(5,000.00, 8,000.00) - 1,000.00) = 4,000.00"
    assert any(step.citation == "N.J.A.C. 18:7-3.17" for step in steps)


def test_credit_limit_insurance_tax_has_no_50_percent_limit() -> None:
    # b.(3) states its limit for the CBT only: max(0, 10,000 - 1,000) = 9,000
    result = credit_limit(10000, 1000, 2000, tax_type="Insurance")
    assert result.amount == D("9000.00")
    assert result.half_liability is None
    assert credit_limit(500, 1000, 0, tax_type="insurance").amount == D("0.00")


@pytest.mark.parametrize(
    ("args", "argument"),
    [
        ((-1, 0, 0), "tax_liability"),
        ((1000, -1, 0), "other_credits"),
        ((1000, 0, -5), "minimum_tax"),
        ((1000, 0, 0, "gross income"), "tax_type"),
    ],
)
def test_credit_limit_bad_input(args: tuple[object, ...], argument: str) -> None:
    with pytest.raises(InputError) as caught:
        credit_limit(*args)  # type: ignore[arg-type]
    assert caught.value.argument == argument


# =========================================================================== b., c.: schedule


def test_worked_example_from_the_issue() -> None:
    # Operations start 2023-01-01: credit year one = 2023, credit year two = 2024.
    # Year one: 10 new positions x 2,500 = 25,000; year two: 8 x 1,250 = 10,000;
    # sustained effort ratio 8 / 10 = 0.8; minimum tax 2,000 in every period.
    periods = calendar_periods(2023, [8000, 10000, 50000, 50000], [0, 1000, 0, 0])
    schedule = credit_schedule("2023-01-01", 10, 8, periods)
    # 2023: limit min(4,000, 8,000 - 2,000 = 6,000) = 4,000; used 4,000; 21,000 left.
    # 2024: limit min(5,000, 8,000) - 1,000 = 4,000; used 4,000 of year one (17,000
    #       left); refund 17,000 x 0.8 = 13,600; carried out 3,400 + 10,000 = 13,400.
    # 2025: limit min(25,000, 48,000) = 25,000; used 13,400.
    # 2026: nothing left.
    assert amounts(schedule, "new_credit") == [D(25000), D(10000), 0, 0]
    assert amounts(schedule, "carried_in") == [0, D(21000), D(13400), 0]
    assert amounts(schedule, "limit") == [D(4000), D(4000), D(25000), D(25000)]
    assert amounts(schedule, "used") == [D(4000), D(4000), D(13400), 0]
    assert amounts(schedule, "refund") == [0, D(13600), 0, 0]
    assert amounts(schedule, "carried_out") == [D(21000), D(13400), 0, 0]
    assert amounts(schedule, "expired") == [0, 0, 0, 0]
    # 21,400 used + 13,600 refunded = 35,000 = 25,000 + 10,000 allowed.
    assert schedule.credits_allowed == D("35000.00")
    assert schedule.used == D("21400.00")
    assert schedule.refunded == D("13600.00")
    assert schedule.carried_out == D(0)
    assert schedule.sustained_effort_ratio == D("0.8")
    refund_step = next(step for step in schedule.steps if step.label.endswith("2024-12-31: refund"))
    # the ratio "not to exceed one": min(year two, year one) / year one
    assert refund_step.arithmetic == "17,000.00 x min(8, 10) / 10 = 13,600.00"
    assert "N.J.S.A. 52:27BBB-55c.(2)" in refund_step.citation


def test_carryforward_limit_expires_what_is_left() -> None:
    # Year one 4 x 2,500 = 10,000; year two 2 x 1,250 = 2,500; ratio 2 / 4 = 0.5.
    # Liability 4,000, minimum 500: limit min(2,000, 3,500) = 2,000 every period.
    periods = calendar_periods(2023, [4000] * 4, minimum_tax=500)
    limited = credit_schedule("2023-01-01", 4, 2, periods, carryforward_years=1)
    # 2023: +10,000; used 2,000 (year one 8,000 left).
    # 2024: +2,500; used 2,000 of year one (6,000 left); refund 6,000 x 0.5 = 3,000;
    #       year one allowed in 2023 may be used through 2023 + 1 = 2024: 3,000 expires;
    #       carried out 2,500 (year two).
    # 2025: used 2,000 of year two; its last period: 500 expires; nothing carried.
    assert amounts(limited, "used") == [D(2000), D(2000), D(2000), 0]
    assert amounts(limited, "refund") == [0, D(3000), 0, 0]
    assert amounts(limited, "expired") == [0, D(3000), D(500), 0]
    assert amounts(limited, "carried_out") == [D(8000), D(2500), 0, 0]
    # 12,500 allowed = 6,000 used + 3,000 refunded + 3,500 expired + 0 carried
    assert (limited.used, limited.refunded, limited.expired) == (D(6000), D(3000), D(3500))
    assert "expired" in limited.rows[1].note
    # The statute's default, no limit: 2025 and 2026 use 2,000 each (year one's 3,000
    # first, then 1,000 of year two), and 1,500 of year two is carried out of 2026.
    unlimited = credit_schedule("2023-01-01", 4, 2, periods)
    assert amounts(unlimited, "used") == [D(2000)] * 4
    assert amounts(unlimited, "expired") == [0, 0, 0, 0]
    assert unlimited.carried_out == D(1500)
    # With the Form 313 five years nothing expires within these four periods.
    five = credit_schedule("2023-01-01", 4, 2, periods, FORM_313_CARRYFORWARD_YEARS)
    assert five.rows == unlimited.rows


def test_fiscal_year_periods() -> None:
    # Operations start 2023-03-15: credit year one 2023-04-01 to 2024-03-31, ending in
    # the fiscal year ending 2024-06-30; credit year two ends 2025-03-31, in FY 2025.
    ends = [dt.date(2023, 6, 30), dt.date(2024, 6, 30), dt.date(2025, 6, 30)]
    periods = privilege_periods(ends, [100000] * 3, [0] * 3, [2000] * 3)
    schedule = credit_schedule(dt.date(2023, 3, 15), 2, 2, periods)
    # 2 x 2,500 = 5,000 in FY 2024; 2 x 1,250 = 2,500 in FY 2025; limit 50,000 each.
    assert amounts(schedule, "new_credit") == [0, D(5000), D(2500)]
    assert amounts(schedule, "used") == [0, D(5000), D(2500)]


def test_a_period_longer_than_12_months_is_an_input_error() -> None:
    # Issue 10, item 3: ends 2022-12-31 then 2024-12-31 would be one 24-month period
    # (731 days > 371, a 53-week year): a period is missing; the message names both ends.
    ends = [dt.date(2022, 12, 31), dt.date(2024, 12, 31)]
    with pytest.raises(InputError) as caught:
        privilege_periods(ends, [0, 4000], [0, 0], [500, 500])
    assert caught.value.argument == "period_ends"
    assert "ending 2024-12-31" in caught.value.rule
    assert "after 2022-12-31" in caught.value.rule
    assert "731 days" in caught.value.rule


def test_a_53_week_period_and_the_deemed_month_ends() -> None:
    # Issue 19, item 4: periods ending 2023-12-30 and 2025-01-04 (a 53-week year, 371
    # days) are deemed to end 2023-12-31 and 2024-12-31 (N.J.A.C. 18:7-2.3(b)), so year
    # one (ending 2023-12-31) ends with the first and year two with the second; before the
    # deeming both ended in the second. Credits: 2 x 2,500 = 5,000 (period 1, no tax),
    # 1 x 1,250 (period 2). Period 2: limit min(50% x 4,000 = 2,000, 4,000 - 500) = 2,000,
    # used from year one (3,000 left); refund 3,000 x 1/2 = 1,500; carried out 1,500 +
    # 1,250 = 2,750.
    ends = [dt.date(2023, 12, 30), dt.date(2025, 1, 4)]
    periods = privilege_periods(ends, [0, 4000], [0, 0], [500, 500])
    schedule = credit_schedule("2023-01-01", 2, 1, periods)
    assert schedule.rows[0].new_credit == D(5000)
    row = schedule.rows[1]
    assert (row.new_credit, row.used, row.refund) == (D(1250), D(2000), D(1500))
    assert row.carried_out == D(2750)


def test_insurance_tax_schedule() -> None:
    # Insurance premiums tax: limit = liability - other credits = 3,000 each year.
    periods = calendar_periods(2023, [3000, 3000])
    schedule = credit_schedule("2023-01-01", 2, 0, periods, tax_type="insurance")
    # Year one 5,000: used 3,000 in 2023 and 2,000 in 2024; ratio 0 / 2 = 0: no refund.
    assert amounts(schedule, "used") == [D(3000), D(2000)]
    assert schedule.refunded == 0


def test_period_ends_out_of_order() -> None:
    ends = [dt.date(2024, 12, 31), dt.date(2023, 12, 31)]
    with pytest.raises(InputError) as caught:
        privilege_periods(ends, [1, 1], [0, 0], [0, 0])
    assert caught.value.argument == "period_ends"
    assert "strictly increasing" in caught.value.rule
    same = [PrivilegePeriod(end=dt.date(2023, 12, 31), liability=D(1))] * 2
    with pytest.raises(InputError, match="strictly increasing"):
        credit_schedule("2023-01-01", 1, 1, same)


def test_credit_year_outside_every_period() -> None:
    # Credit year one ends 2023-12-31; the first period given covers 2024.
    with pytest.raises(InputError) as caught:
        credit_schedule("2023-01-01", 1, 1, calendar_periods(2024, [1000, 1000]))
    assert caught.value.argument == "period_ends"
    assert "credit year one ends 2023-12-31, outside every period given" in str(caught.value)
    assert caught.value.citation == "N.J.S.A. 52:27BBB-55b.(1)"


def test_credit_year_after_the_last_period_is_not_in_this_workpaper() -> None:
    # Issue 31's case: operations start 2024-03-15, so credit year one runs 2024-04-01 to
    # 2025-03-31 (allowed in the period ending 2025-12-31) and credit year two 2025-04-01
    # to 2026-03-31 (allowed for a 2026 period: not in a workpaper of 2024-2025).
    # 2024: limit min(40,000 x 50%, 40,000 - 2,000) = 20,000; nothing allowed yet; used 0.
    # 2025: year one 13 x 2,500 = 32,500 allowed; limit min(55,000 x 50%, 53,000) =
    #       27,500; used 27,500; carried 32,500 - 27,500 = 5,000. No refund: c.(2) runs in
    #       the period credit year two ends. Year two: 14 x 1,250 = 17,500, allowed later.
    periods = [
        PrivilegePeriod(end=dt.date(2024, 12, 31), liability=D(40000), minimum_tax=D(2000)),
        PrivilegePeriod(end=dt.date(2025, 12, 31), liability=D(55000), minimum_tax=D(2000)),
    ]
    schedule = credit_schedule("2024-03-15", 13, 14, periods)
    assert [row.used for row in schedule.rows] == [D(0), D(27500)]
    assert [row.carried_out for row in schedule.rows] == [D(0), D(5000)]
    assert schedule.refunded == 0
    assert schedule.credits_allowed == D(32500)
    assert schedule.allowed_in == (1, 2)  # 2: after the last period
    assert schedule.allowed_later == ((2, dt.date(2026, 3, 31), D(17500)),)
    text = (
        "credit year two's credit, $17,500.00: allowed for the period in which credit year "
        "two ends (2026-03-31): not in this workpaper"
    )
    assert text in schedule.rows[-1].note
    assert text in schedule.explain()
    # the same two periods in a schedule that goes on to 2026 (liability 60,000: limit
    # 30,000): 2024 and 2025 are unchanged; 2026 allows year two's 17,500.
    longer = credit_schedule(
        "2024-03-15",
        13,
        14,
        [*periods, PrivilegePeriod(end=dt.date(2026, 12, 31), liability=D(60000))],
    )
    for short, long in zip(schedule.rows, longer.rows, strict=False):
        assert (short.used, short.carried_out) == (long.used, long.carried_out)
    assert longer.allowed_later == ()
    assert longer.rows[2].new_credit == D(17500)
    # both credit years after the last period: nothing allowed, nothing used
    early = credit_schedule("2024-03-15", 13, 14, periods[:1])
    assert [n for n, _, _ in early.allowed_later] == [1, 2]
    assert early.used == 0


@pytest.mark.parametrize(
    ("liabilities", "other", "minimums", "argument"),
    [
        ([1, 1], [0], [0, 0], "other_credits"),
        ([1], [0, 0], [0, 0], "liabilities"),
        ([1, -1], [0, 0], [0, 0], "liabilities"),
        ([1, 1], [0, 0], [0, -2000], "minimum_taxes"),
    ],
)
def test_privilege_periods_bad_input(
    liabilities: list[int], other: list[int], minimums: list[int], argument: str
) -> None:
    ends = [dt.date(2023, 12, 31), dt.date(2024, 12, 31)]
    with pytest.raises(InputError) as caught:
        privilege_periods(ends, liabilities, other, minimums)
    assert caught.value.argument == argument


def test_schedule_bad_input() -> None:
    periods = calendar_periods(2023, [1000, 1000])
    negative = [PrivilegePeriod(end=dt.date(2023, 12, 31), liability=D(-1))]
    with pytest.raises(InputError, match=r"^liabilities"):
        credit_schedule("2023-01-01", 1, 1, negative)
    with pytest.raises(InputError, match=r"^carryforward_years"):
        credit_schedule("2023-01-01", 1, 1, periods, carryforward_years=-1)
    with pytest.raises(InputError, match=r"^year2_new"):
        credit_schedule("2023-01-01", 1, -1, periods)
    with pytest.raises(InputError, match=r"^period_ends .*at least one"):
        credit_schedule("2023-01-01", 1, 1, [])


def test_periods_read_once_give_the_schedule_of_the_same_periods_checked_again() -> None:
    # privilege_periods' periods are not checked again by the schedule: the same schedule
    # as the same periods given as a list (checked there), steps included
    periods = privilege_periods(
        ["2023-12-31", "2024-12-31", "2025-12-31"], [8000, 0, 50000], [0, 10, 0], [500] * 3
    )
    read = credit_schedule("2023-01-01", 10, 8, periods, carryforward_years=1)
    listed = credit_schedule("2023-01-01", 10, 8, list(periods), carryforward_years=1)
    assert read == listed
    assert read.explain() == listed.explain()


# =========================================================================== c.(2)


def test_refund_is_exact_for_thirds() -> None:
    # 10,000 x 2/3 = 6,666.666... -> 6,666.66
    assert refund(10000, 3, 2) == D("6666.66")
    # 0.03 x 1/3 = 0.01 exactly; a ratio rounded first (0.3333333333) would give
    # 0.009999999999 -> 0.00: the product is taken before the division.
    assert refund(D("0.03"), 3, 1) == D("0.01")


def test_refund_ratio_capped_and_zero() -> None:
    # More positions in year two than year one: ratio min(1, 12 / 10) = 1.
    assert refund(5000, 10, 12) == D("5000.00")
    # No new positions in year one: ratio 0, nothing refunded.
    assert refund(5000, 0, 3) == D("0.00")
    explained = explain_refund(17000, 10, 8)
    assert explained.steps[0].arithmetic == "17,000.00 x min(8, 10) / 10 = 13,600.00"
    with pytest.raises(InputError, match=r"^year1_remaining"):
        refund(-1, 1, 1)


# =========================================================================== e.


@pytest.mark.parametrize(
    ("start", "one", "two"),
    [
        # On the first of a month credit year one starts that day.
        ("2023-01-01", ("2023-01-01", "2023-12-31"), ("2024-01-01", "2024-12-31")),
        # Otherwise on the first day of the following month.
        ("2023-03-15", ("2023-04-01", "2024-03-31"), ("2024-04-01", "2025-03-31")),
        ("2023-12-02", ("2024-01-01", "2024-12-31"), ("2025-01-01", "2025-12-31")),
        ("2024-01-31", ("2024-02-01", "2025-01-31"), ("2025-02-01", "2026-01-31")),
    ],
)
def test_credit_years(start: str, one: tuple[str, str], two: tuple[str, str]) -> None:
    years = credit_years(start)
    as_iso = dt.date.fromisoformat
    assert (years.year_one_start, years.year_one_end) == tuple(map(as_iso, one))
    assert (years.year_two_start, years.year_two_end) == tuple(map(as_iso, two))


def test_fte() -> None:
    # 840 hours / (140 x 12) = 0.5
    assert fte(840) == D("0.5")
    # 420 hours over 3 months / (140 x 3) = 1
    assert fte(420, 3) == D(1)
    # 1,000 / 1,680 = 0.595238095238... -> 0.5952380952 (10 places)
    assert fte(1000) == D("0.5952380952")
    with pytest.raises(InputError, match=r"^months"):
        fte(100, 0)
    with pytest.raises(InputError, match=r"^part_time_hours"):
        fte(-1)


def test_roster_with_part_timers_temporary_and_excluded() -> None:
    # Base period (the twelve months before credit year one):
    #   A: 160 hours every month -> 12 full-time months
    #   B: 100 hours every month -> 12 months >= 86 2/3: part-time, 1,200 hours
    #   C: temporary, 200 hours a month -> not counted
    # average = 12 / 12 + 1,200 / 1,680 = 1 + 0.714285714... = 1.7142857143
    base = average_positions(
        roster([[160] * 12, [100] * 12, [200] * 12], temporary=[False, False, True])
    )
    assert (base.full_time_months, base.part_time_hours) == (12, D(1200))
    assert base.average == D("1.7142857143")
    # Credit year one:
    #   A: 160 x 12 -> 12 full-time months
    #   B: 150 x 6 (full-time), then 90 x 3 and 50 x 3: three months >= 86 2/3, so a
    #      part-time position; all non-full-time hours count: 270 + 150 = 420
    #   C: 86.66 x 12: below 86 2/3 every month -> nothing
    #   D: temporary 200 x 12 -> nothing;  E: owner's spouse 200 x 12 -> nothing
    #   F: 140 x 12 -> 12 full-time months (140 is enough)
    #   G: 86.67 x 2, 80 x 10: only two qualifying months -> nothing
    #   H: 86.67 x 3, 0 x 9: three qualifying months -> 260.01 hours
    # full-time months 12 + 6 + 12 = 30; part-time hours 420 + 260.01 = 680.01
    # average = 30 / 12 + 680.01 / 1,680 = 2.5 + 0.404767857142... = 2.9047678571
    hours: list[Sequence[int | str]] = [
        [160] * 12,
        [150] * 6 + [90] * 3 + [50] * 3,
        ["86.66"] * 12,
        [200] * 12,
        [200] * 12,
        [140] * 12,
        ["86.67"] * 2 + [80] * 10,
        ["86.67"] * 3 + [0] * 9,
    ]
    temporary = [False, False, False, True, False, False, False, False]
    excluded = [False, False, False, False, True, False, False, False]
    year = average_positions(roster(hours, temporary, excluded))
    assert year.full_time_months == 30
    assert year.part_time_hours == D("680.01")
    assert year.fte == D("0.4047678571")
    assert year.average == D("2.9047678571")
    assert (year.employees, year.part_time_employees, year.not_counted) == (8, 2, 2)
    # new positions = 2.9047678571 - 1.7142857143 = 1.1904821428 -> 1 whole position
    assert new_positions(base.average, year.average) == D(1)
    assert new_positions(base.average, year.average, fractional=True) == D("1.1904821428")
    # credit: 1 x 2,500 = 2,500
    assert credit_amount(new_positions(base.average, year.average), 1).amount == D(2500)


def test_part_time_threshold_is_exactly_86_and_two_thirds() -> None:
    assert Fraction(20 * 52, 12) == PART_TIME_HOURS_PER_MONTH == Fraction(260, 3)
    # 86.67 >= 86.666...: three such months make a part-time position (260.01 hours);
    # 86.66 < 86.666...: never.
    above = EmployeeHours(hours=(D("86.67"),) * 3 + (D(0),) * 9)
    below = EmployeeHours(hours=(D("86.66"),) * 3 + (D(0),) * 9)
    assert average_positions([above]).part_time_hours == D("260.01")
    assert average_positions([below]).part_time_hours == 0


def test_decimal_thirds_do_not_lose_a_position() -> None:
    # Base: 5 full-time employees + 1 for 4 months = 64 position-months = 5.333...
    # Year: 15 full-time employees + 1 for 4 months = 184 position-months = 15.333...
    # With 28-digit Decimals 184/12 - 64/12 = 9.999...997 -> 9; exactly it is 10.
    assert Decimal(184) / 12 - Decimal(64) / 12 < 10
    part_year = [160] * 4 + [0] * 8
    base = average_positions(roster([[160] * 12] * 5 + [part_year]))
    year = average_positions(roster([[160] * 12] * 15 + [part_year]))
    assert (base.average, year.average) == (D("5.3333333333"), D("15.3333333333"))
    assert new_positions(base.average, year.average) == 10
    # Averages a spreadsheet computed in binary floating point are read to 10 places:
    # 5.333333333333334 -> 5.3333333333, 15.333333333333332 -> 15.3333333333; their raw
    # difference 9.999999999999998 would floor to 9.
    assert 15.333333333333332 - 5.333333333333334 < 10
    assert new_positions(5.333333333333334, 15.333333333333332) == 10


def test_new_positions_never_negative() -> None:
    # max(0, 4.5 - 6) = 0
    assert new_positions(6, D("4.5")) == 0
    assert new_positions(6, D("4.5"), fractional=True) == 0
    # 7.75 - 6 = 1.75 -> 1 whole position, or 1.75 with fractional positions
    assert new_positions(6, D("7.75")) == 1
    result = explain_new_positions(6, D("7.75"), fractional=True)
    assert result.count == D("1.75")
    assert "fractional positions kept" in result.steps[0].arithmetic
    with pytest.raises(InputError, match=r"^base_avg"):
        new_positions(-1, 3)


def test_roster_bad_input() -> None:
    with pytest.raises(InputError) as caught:
        roster([[160] * 11])
    assert caught.value.argument == "hours"
    assert "12 months" in caught.value.rule
    with pytest.raises(InputError, match=r"^hours .*must not be negative"):
        roster([[160] * 11 + [-1]])
    with pytest.raises(InputError, match=r"^temporary .*one value per employee"):
        roster([[160] * 12] * 2, temporary=[True])
    with pytest.raises(InputError, match=r"^hours"):
        average_positions([EmployeeHours(hours=(D(160),) * 13)])
    with pytest.raises(InputError, match=r"^hours .*must not be negative"):
        average_positions([EmployeeHours(hours=(D(-5),) * 12)])


def test_sustained_effort_ratio() -> None:
    # 8 / 10 = 0.8; min(1, 12 / 10) = 1; year one 0 -> 0; 2 / 3 to 10 places
    assert sustained_effort_ratio(10, 8) == D("0.8")
    assert sustained_effort_ratio(10, 12) == 1
    assert sustained_effort_ratio(0, 5) == 0
    assert sustained_effort_ratio(3, 2) == D("0.6666666667")
    with pytest.raises(InputError) as caught:
        sustained_effort_ratio(-1, 2)
    assert caught.value.argument == "year1_new"
    with pytest.raises(InputError, match=r"^year2_new"):
        sustained_effort_ratio(1, -2)


# =========================================================================== properties

money = st.decimals(min_value=0, max_value=200_000, places=2, allow_nan=False)
small_money = st.decimals(min_value=0, max_value=20_000, places=2, allow_nan=False)


@st.composite
def schedules(draw: st.DrawFn) -> CreditSchedule:
    """A schedule over 4-8 consecutive periods ending on the last day of a month."""
    start = draw(st.dates(dt.date(2020, 1, 1), dt.date(2020, 12, 31)))
    month = draw(st.sampled_from([3, 6, 9, 12]))
    count = draw(st.integers(4, 8))
    ends = [dt.date(2020 + k, month, calendar.monthrange(2020 + k, month)[1]) for k in range(count)]
    periods = privilege_periods(
        ends,
        draw(st.lists(money, min_size=count, max_size=count)),
        draw(st.lists(small_money, min_size=count, max_size=count)),
        draw(
            st.lists(
                st.sampled_from([0, 500, 750, 1000, 1500, 2000]), min_size=count, max_size=count
            )
        ),
    )
    return credit_schedule(
        start,
        draw(st.integers(0, 60)),
        draw(st.integers(0, 60)),
        periods,
        carryforward_years=draw(st.none() | st.integers(0, 5)),
        tax_type=draw(st.sampled_from(["cbt", "insurance"])),
    )


@settings(max_examples=300)
@given(schedule=schedules())
def test_schedule_always_accounts_for_every_dollar(schedule: CreditSchedule) -> None:
    rows = schedule.rows
    allowed = sum(row.new_credit for row in rows)
    # used + refund + expired + last carried out = credits allowed
    assert allowed == schedule.year_one_credit + schedule.year_two_credit
    total = sum(row.used + row.refund + row.expired for row in rows) + rows[-1].carried_out
    assert total == allowed == schedule.credits_allowed
    assert schedule.used + schedule.refunded + schedule.expired + schedule.carried_out == allowed
    for before, row in zip((None, *rows), rows, strict=False):
        assert row.carried_in == (before.carried_out if before else 0)
        assert row.carried_out == (
            row.carried_in + row.new_credit - row.used - row.refund - row.expired
        )
        # usage never exceeds the limit, and uses all it can
        assert row.used <= row.limit
        assert row.used == min(row.limit, row.carried_in + row.new_credit)
        assert min(row.refund, row.expired, row.carried_out) >= 0
    # the refund never exceeds the year-one credit; only the year-two period refunds
    assert schedule.refunded <= schedule.year_one_credit
    assert sum(1 for row in rows if row.refund) <= 1
    if schedule.carryforward_years is None:
        assert schedule.expired == 0


@given(liability=money, other=small_money, minimum=st.sampled_from([0, 375, 500, 2000]))
def test_limit_keeps_50_percent_and_the_minimum(
    liability: Decimal, other: Decimal, minimum: int
) -> None:
    amount = credit_limit(liability, other, minimum).amount
    assert amount >= 0
    if amount > 0:
        # this credit and the others stay within 50% and above the minimum (b.(3))
        assert amount + other <= cents_down(liability / 2)
        assert liability - amount - other >= minimum


@given(
    remaining=money,
    year1=st.integers(0, 500),
    year2=st.integers(0, 500),
)
def test_refund_never_exceeds_what_remains(remaining: Decimal, year1: int, year2: int) -> None:
    amount = refund(remaining, year1, year2)
    assert 0 <= amount <= remaining
    if year1:
        exact = Fraction(remaining) * min(Fraction(1), Fraction(year2, year1))
        assert Fraction(amount) <= exact < Fraction(amount) + Fraction(1, 100)


hours_value = st.decimals(min_value=0, max_value=300, places=2, allow_nan=False)
employees = st.builds(
    EmployeeHours,
    hours=st.tuples(*[hours_value] * 12),
    temporary=st.booleans(),
    excluded=st.booleans(),
)
rosters = st.lists(employees, max_size=8)


def oracle_average(people: Sequence[EmployeeHours]) -> Fraction:
    """(140 x full-time position-months + part-time hours) / 1,680, written directly."""
    total = Fraction(0)
    for person in people:
        if person.temporary or person.excluded:
            continue
        rest = [h for h in person.hours if h < 140]
        total += Fraction(140 * (12 - len(rest)), 1680)
        if sum(1 for h in rest if 12 * Fraction(h) >= 20 * 52) >= 3:
            total += Fraction(sum(rest, D(0))) / 1680
    return total


@given(people=rosters)
def test_average_equals_the_fraction_formula(people: list[EmployeeHours]) -> None:
    result = average_positions(people)
    exact = oracle_average(people)
    assert exact == exact_average(result.full_time_months, result.part_time_hours)
    assert abs(Fraction(result.average) - exact) <= Fraction(1, 2 * 10**10)
    assert abs(Fraction(result.fte) - (exact - Fraction(result.full_time_months, 12))) <= (
        Fraction(1, 2 * 10**10)
    )


@given(base=rosters, year=rosters)
def test_whole_positions_are_the_floor_of_the_exact_difference(
    base: list[EmployeeHours], year: list[EmployeeHours]
) -> None:
    exact = oracle_average(year) - oracle_average(base)
    count = new_positions(average_positions(base).average, average_positions(year).average)
    assert count <= max(Fraction(0), exact)
    assert count == max(0, math.floor(exact))


@given(base=rosters, added=st.integers(0, 30))
def test_adding_full_time_employees_adds_exactly_that_many(
    base: list[EmployeeHours], added: int
) -> None:
    # The same people plus n employees at 160 hours a month: exactly n new positions,
    # whatever thirds or sevenths the base average holds.
    year = base + [EmployeeHours(hours=(D(160),) * 12)] * added
    count = new_positions(average_positions(base).average, average_positions(year).average)
    assert count == added


# --------------------------------------------------------------------------- employees' labels

_LABELLED = re.compile(r"^Employee (\d+): ")


def _labelled(hours: list[list[int | None]]) -> set[int]:
    """The employee numbers the steps of a period's average positions name."""
    steps = average_positions(roster(hours)).steps
    return {int(m[1]) for step in steps if (m := _LABELLED.match(step.label))}


def test_an_employee_keeps_their_roster_row_in_every_period() -> None:
    # The template's roster: the same employee in the same row on every period's sheet.
    # Row 1 works in the base year only, row 2 from credit year one, row 3 throughout.
    # Before: the steps numbered the employees with hours in the period, so row 3 was
    # "Employee 2" in both periods and row 2 was "Employee 1" in credit year one.
    blank: list[int | None] = [None] * 12
    base = [[160] * 12, blank, [90] * 12]
    year = [blank, [160] * 12, [90] * 12]
    assert _labelled(base) == {1, 3}
    assert _labelled(year) == {2, 3}
    (step,) = [
        s
        for s in average_positions(roster(year)).steps
        if s.label.startswith("Employee 3: part-time hours")
    ]
    assert step.value == D(1080)  # row 3's 12 x 90 hours, in credit year one too


@given(
    rows=st.lists(
        st.one_of(st.none(), st.lists(st.integers(0, 200), min_size=12, max_size=12)),
        max_size=8,
    )
)
def test_the_steps_name_each_employee_by_their_row(rows: list[list[int] | None]) -> None:
    # whatever rows are blank (no employee in the period): the steps name exactly the
    # rows with hours, each by its number in the roster
    table: list[list[int | None]] = [[None] * 12 if row is None else list(row) for row in rows]
    assert _labelled(table) == {n for n, row in enumerate(rows, 1) if row is not None}
    assert [e.row for e in roster(table)] == [n for n, r in enumerate(rows, 1) if r is not None]


def test_fiscal_and_52_53_week_filers_compute_what_is_known() -> None:
    # A June fiscal filer, operations start 2024-03-15: credit year one ends 2025-03-31,
    # in the year ending 2025-06-30; year two ends 2026-03-31, in FY2026: not given.
    # FY2025: 13 x 2,500 = 32,500 allowed; limit min(50,000 x 50%, 50,000 - 2,000) =
    # 25,000; used 25,000; carried 32,500 - 25,000 = 7,500.
    fiscal = [
        PrivilegePeriod(end=dt.date(2024, 6, 30), liability=D(30000), minimum_tax=D(2000)),
        PrivilegePeriod(end=dt.date(2025, 6, 30), liability=D(50000), minimum_tax=D(2000)),
    ]
    schedule = credit_schedule("2024-03-15", 13, 14, fiscal)
    assert [(row.used, row.carried_out) for row in schedule.rows] == [
        (D(0), D(0)),
        (D(25000), D(7500)),
    ]
    assert schedule.allowed_later == ((2, dt.date(2026, 3, 31), D(17500)),)
    # A 52-53-week filer ending on the last Saturday of December, operations start
    # 2024-01-01: year one is calendar 2024, ending 2024-12-31 "with" the year ending
    # 2024-12-28 (deemed 2024-12-31, N.J.A.C. 18:7-2.3(b)); year two ends 2025-12-31,
    # after the last period given. 2024: 10 x 2,500 = 25,000 allowed; limit
    # min(30,000 x 50%, 28,000) = 15,000; used 15,000; carried 10,000; year two
    # 8 x 1,250 = 10,000 allowed later.
    weeks = [
        PrivilegePeriod(end=dt.date(2023, 12, 30), liability=D(20000), minimum_tax=D(2000)),
        PrivilegePeriod(end=dt.date(2024, 12, 28), liability=D(30000), minimum_tax=D(2000)),
    ]
    schedule = credit_schedule("2024-01-01", 10, 8, weeks)
    assert schedule.allowed_in == (1, 2)
    assert [(row.used, row.carried_out) for row in schedule.rows] == [
        (D(0), D(0)),
        (D(15000), D(10000)),
    ]
    assert schedule.allowed_later == ((2, dt.date(2025, 12, 31), D(10000)),)


@settings(max_examples=60, deadline=None)
@given(
    start=st.dates(dt.date(2021, 12, 2), dt.date(2024, 12, 31)),
    y1=st.integers(0, 30),
    y2=st.integers(0, 30),
    liabilities=st.lists(st.integers(0, 200_000), min_size=4, max_size=4),
    keep=st.sampled_from([None, 1, 5]),
)
def test_a_period_depends_only_on_the_periods_up_to_it(
    start: dt.date, y1: int, y2: int, liabilities: list[int], keep: int | None
) -> None:
    # Invariant (issue 31): the schedule of the first k periods gives the same figures
    # for them as the schedule of all four; the credits of credit years ending after
    # period k are the ones allowed later.
    periods = calendar_periods(2022, liabilities)
    full = credit_schedule(start, y1, y2, periods, keep)
    fields = ("new_credit", "carried_in", "limit", "used", "refund", "carried_out", "expired")
    for k in range(1, len(periods) + 1):
        part = credit_schedule(start, y1, y2, periods[:k], keep)
        for short, long in zip(part.rows, full.rows, strict=False):
            assert [getattr(short, f) for f in fields] == [getattr(long, f) for f in fields]
        assert [n for n, _, _ in part.allowed_later] == [
            n for n, index in enumerate(full.allowed_in, 1) if index >= k
        ]
