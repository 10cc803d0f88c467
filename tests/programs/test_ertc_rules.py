"""Each ERTC rule (law/ertc.py) is one text: the exact evaluator and the int64 one agree.

The scenario runner's kernel runs these same functions over arrays (int64 cents, positions
as integers / 10^8, days since 1970-01-01); the exact path runs them on Decimal, Fraction
and datetime.date. Each property draws cases, runs the rule both ways and compares to the
cent and the day. The whole-section property (kernel = scalar core on every row) is in
tests/scenarios/test_scenarios_exact.py.
"""

from __future__ import annotations

import calendar
import datetime as dt
from decimal import Decimal
from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.core.rules import EXACT, Int64, Ratio, explain
from nj_incentives.core.scenario_sections import grown_rule, next_period_end_rule
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.ertc import rules as ertc

INT64 = Int64()
EPOCH = dt.date(1970, 1, 1)
POS = 10**8  # the runner's positions scale
D = Decimal

dates = st.dates(dt.date(1990, 1, 1), dt.date(2090, 12, 31))
cents = st.integers(0, 10**13)


def days(values: list[dt.date]) -> np.ndarray:
    return np.array([(d - EPOCH).days for d in values], np.int64)


def date_of(day: object) -> dt.date:
    return EPOCH + dt.timedelta(days=int(day))  # type: ignore[call-overload]


def money(value: int) -> Decimal:
    return D(value) / 100


@given(st.lists(dates, min_size=1, max_size=20))
def test_credit_years_rule_both_ways(starts: list[dt.date]) -> None:
    got = ertc.credit_years_rule(INT64, days(starts))
    for i, start in enumerate(starts):
        exact = ertc.credit_years_rule(EXACT, start)
        assert tuple(date_of(column[i]) for column in got) == exact
        # e.: year one starts on the 1st of a month, on or after operations start
        assert exact[0].day == 1
        assert exact[0] >= start


@given(st.lists(dates, min_size=1, max_size=20))
def test_next_period_end_both_ways(ends: list[dt.date]) -> None:
    got = next_period_end_rule(INT64, days(ends))
    for day, value in zip(ends, got, strict=True):
        exact = next_period_end_rule(EXACT, day)
        assert date_of(value) == exact
        # the same day a year later; a month's last day stays its month's last day
        last = calendar.monthrange(day.year, day.month)[1]
        later_last = calendar.monthrange(day.year + 1, day.month)[1]
        expected_day = later_last if day.day == last else day.day
        assert exact == dt.date(day.year + 1, day.month, expected_day)


GROWTH = 10**9  # the runner's growth scale


@given(st.lists(st.tuples(cents, st.integers(-GROWTH, GROWTH)), min_size=1, max_size=20))
def test_grown_rule_both_ways(cases: list[tuple[int, int]]) -> None:
    """The fill-forward step (a runner convenience): previous x (1 + growth), to the cent."""
    previous = np.array([c for c, _ in cases], np.int64)
    growth = Ratio(np.array([g for _, g in cases], np.int64), GROWTH)
    got = grown_rule(INT64, previous, growth)
    for (amount, rate), value in zip(cases, got, strict=True):
        exact = grown_rule(EXACT, money(amount), D(rate) / GROWTH)
        assert money(int(value)) == exact
        assert exact * 100 == amount * (GROWTH + rate) // GROWTH  # rounded down


@given(
    st.lists(st.integers(1, 371), min_size=1, max_size=8),
    dates,
    st.integers(-400, 3000),
)
def test_allowance_period_rule_both_ways(gaps: list[int], first: dt.date, offset: int) -> None:
    ends = [first]
    for gap in gaps[1:]:
        ends.append(ends[-1] + dt.timedelta(days=gap))
    year_end = first + dt.timedelta(days=offset)
    index, found, first_start = ertc.allowance_period_rule(EXACT, ends, len(ends), year_end)
    got = ertc.allowance_period_rule(
        INT64,
        [np.array([(e - EPOCH).days]) for e in ends],
        np.array([len(ends)]),
        np.array([(year_end - EPOCH).days]),
    )
    assert (int(got[0][0]), bool(got[1][0]), date_of(got[2][0])) == (index, found, first_start)
    if found:  # b.(1): the period in which or with which the credit year ends
        # stated on the deemed ends (N.J.A.C. 18:7-2.3(b)): a period ending 2000-01-07 is
        # deemed to end 1999-12-31, so a credit year ending 2000-01-07 ends with the next
        # period, not with that one (the case this property found against the raw ends)
        deemed = [cbt.deemed_period_end_rule(EXACT, end) for end in ends]
        assert deemed[index] >= year_end
        assert index == 0 or deemed[index - 1] < year_end


@given(cents, cents, cents, st.booleans())
def test_credit_limit_rule_both_ways(
    liability: int, others: int, minimum: int, insurance: bool
) -> None:
    exact = ertc.credit_limit_rule(
        EXACT, money(liability), money(others), money(minimum), insurance
    )
    got = ertc.credit_limit_rule(
        INT64, np.array([liability]), np.array([others]), np.array([minimum]), np.array([insurance])
    )
    assert [money(int(column[0])) for column in got] == list(exact)


@given(st.integers(0, 10**6 * POS), st.integers(0, 10**6 * POS), st.integers(0, 25 * 10**10))
def test_amounts_ratio_and_refund_both_ways(y1: int, y2: int, remaining: int) -> None:
    f1, f2 = Fraction(y1, POS), Fraction(y2, POS)
    r1, r2 = Ratio(np.array([y1]), POS), Ratio(np.array([y2]), POS)
    for year, positions, column in ((1, f1, r1), (2, f2, r2)):
        exact_amount = ertc.credit_amount_rule(EXACT, positions, year)
        assert money(int(ertc.credit_amount_rule(INT64, column, year)[0])) == exact_amount
    ratio = ertc.sustained_effort_ratio_rule(INT64, r1, r2)
    exact_ratio = ertc.sustained_effort_ratio_rule(EXACT, f1, f2)
    assert D(int(ratio.num[0])).scaleb(-10) == exact_ratio
    expected_ratio = min(Fraction(1), f2 / f1) if y1 else Fraction(0)
    assert exact_ratio == D(round(expected_ratio * 10**10)).scaleb(-10)
    exact_refund = ertc.refund_rule(EXACT, money(remaining), f1, f2)
    assert money(int(ertc.refund_rule(INT64, np.array([remaining]), r1, r2)[0])) == exact_refund
    # c.(2): the exact ratio, not one rounded first
    assert exact_refund * 100 == int(remaining * expected_ratio)


@st.composite
def schedules(draw: st.DrawFn) -> tuple[ertc.ScheduleTerms, list[list[int]], bool]:
    count = draw(st.integers(1, 6))
    allowed_1 = draw(st.integers(0, count - 1))
    allowed_2 = draw(st.integers(allowed_1, count - 1))
    terms = ertc.ScheduleTerms(
        allowed_1=allowed_1,
        allowed_2=allowed_2,
        credit_1=draw(st.integers(0, 10**9)),
        credit_2=draw(st.integers(0, 10**9)),
        year1_new=draw(st.integers(0, 1000)),
        year2_new=draw(st.integers(0, 1000)),
        keep=draw(st.integers(-1, 4)),
        insurance=draw(st.booleans()),
    )
    columns = [draw(st.lists(st.integers(0, 10**9), min_size=count, max_size=count)) for _ in "abc"]
    return terms, columns, draw(st.booleans())


@given(schedules())
def test_schedule_rule_both_ways(case: tuple[ertc.ScheduleTerms, list[list[int]], bool]) -> None:
    terms, columns, notwithstanding = case
    exact_terms = terms._replace(
        credit_1=money(terms.credit_1),
        credit_2=money(terms.credit_2),
        year1_new=Fraction(terms.year1_new),
        year2_new=Fraction(terms.year2_new),
    )
    money_columns = [[money(v) for v in column] for column in columns]
    exact = ertc.schedule_rule(EXACT, exact_terms, *money_columns, notwithstanding)
    array_terms = ertc.ScheduleTerms(*(np.array([v]) for v in terms))
    arrays = [[np.array([v]) for v in column] for column in columns]
    got = ertc.schedule_rule(INT64, array_terms, *arrays, notwithstanding)
    for exact_row, row in zip(exact, got, strict=True):
        assert [money(int(np.ravel(v)[0])) for v in row] == [D(v) for v in exact_row]
        # carried_out = carried_in + new - used - refund - expired, nothing negative
        assert all(v >= 0 for v in exact_row)
    # the explained run computes the same figures
    values, steps = explain(ertc.schedule_rule, exact_terms, *money_columns, notwithstanding)
    assert [tuple(row) for row in values] == [tuple(row) for row in exact]
    assert steps


@given(schedules(), st.integers(0, 6))
def test_schedule_totals_rule_both_ways(
    case: tuple[ertc.ScheduleTerms, list[list[int]], bool], extra: int
) -> None:
    """The totals over a schedule's periods: exact on its own periods, int64 on a row
    that has those periods and ``extra`` more columns (the runner's wider layout)."""
    terms, columns, notwithstanding = case
    count = len(columns[0])
    exact_terms = terms._replace(
        credit_1=money(terms.credit_1),
        credit_2=money(terms.credit_2),
        year1_new=Fraction(terms.year1_new),
        year2_new=Fraction(terms.year2_new),
    )
    money_columns = [[money(v) for v in column] for column in columns]
    exact = ertc.schedule_rule(EXACT, exact_terms, *money_columns, notwithstanding)
    totals = ertc.schedule_totals_rule(EXACT, exact, count)
    # credits allowed = used + refunded + expired + carried out (b.(1)-(3), c.(2))
    assert totals.credits_allowed == sum((f.new_credit for f in exact), D(0))
    assert totals.used == sum((f.used for f in exact), D(0))
    assert totals.carried_out == exact[-1].carried_out
    assert totals.credits_allowed == (
        totals.used + totals.refunded + totals.expired + totals.carried_out
    )
    array_terms = ertc.ScheduleTerms(*(np.array([v]) for v in terms))
    arrays = [[np.array([v]) for v in column + [0] * extra] for column in columns]
    wide = ertc.schedule_rule(INT64, array_terms, *arrays, notwithstanding)
    got = ertc.schedule_totals_rule(INT64, wide, np.array([count]))
    assert [money(int(np.ravel(v)[0])) for v in got] == list(totals)


@given(st.lists(dates, min_size=2, max_size=2))
def test_period_order_rule_both_ways(pair: list[dt.date]) -> None:
    earlier, later = pair
    exact = ertc.period_order_rule(EXACT, earlier, later)
    # b.(1): strictly later, by at most 371 days (12 months or 53 weeks)
    assert exact == (later > earlier, (later - earlier).days <= ertc.MAXIMUM_PERIOD_DAYS)
    got = ertc.period_order_rule(INT64, days([earlier]), days([later]))
    assert tuple(bool(v[0]) for v in got) == exact


@given(st.integers(0, 10**6 * POS), st.booleans())
def test_positions_priced_rule_both_ways(positions: int, fractional: bool) -> None:
    exact = ertc.positions_priced_rule(EXACT, Fraction(positions, POS), fractional)
    assert exact == (fractional or positions % POS == 0)  # a.: whole unless fractional
    assert exact == ertc.positions_priced_rule(EXACT, D(positions) / POS, fractional)
    got = ertc.positions_priced_rule(
        INT64, Ratio(np.array([positions]), POS), np.array([fractional])
    )
    assert bool(got[0]) == exact
    values, _ = explain(ertc.positions_priced_rule, Fraction(positions, POS), fractional)
    assert values == exact
