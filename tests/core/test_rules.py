"""The rule language: one rule text, three evaluators, the same figures to the cent.

Every operation of :mod:`nj_incentives.core.rules` run by the exact evaluator, the
explaining one and the int64 one over random operands gives the same result (the int64
one in cents); the explanation records only labelled operations the result depends on.
"""

from __future__ import annotations

import datetime as dt
import itertools
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nj_incentives.core.common import cents_down
from nj_incentives.core.rules import (
    EXACT,
    Int64,
    Ratio,
    Rules,
    V,
    civil_from_days,
    days_from_civil,
    explain,
    mul_frac,
    muldiv_floor,
    select,
)
from nj_incentives.programs.beip import rules as beip

D = Decimal
SCALE = 10**9
INT64 = Int64()

cents = st.integers(0, 10**13)
pcts = st.integers(0, SCALE)
counts = st.integers(0, 10**6)
days = st.integers(-25567, 84000)  # 1900 to 2199


def _dollars(c: int) -> Decimal:
    return D(c) / 100


def _all_ops(r: Rules, a: V, b: V, p: V, n: V, d: V, day: V) -> tuple[V, ...]:
    """Every operation once (money a, b; fraction p; counts n, d >= 1; a date)."""
    share = r.share(a, p)
    return (
        share,
        r.times(a, n),
        r.div(a, d),
        r.muldiv(a, n, d),
        r.add(a, b, share),
        r.sub(a, r.min(a, b)),
        r.max(0, r.sub(b, a)),
        r.where(r.ge(a, b), a, b),
        r.where(r.both(r.lt(a, b), r.not_(r.eq(p, 0))), share, 0),
        r.where(r.either(r.gt(a, b), r.le(p, beip.MINIMUM_GRANT_PCT)), 1, 2),
        r.total([a, b, share]),
        r.fiscal_year(day, 7),
        r.ge(day, beip.CAP_AGREEMENTS_FROM),
    )


@settings(max_examples=300, deadline=None)
@given(cents, cents, pcts, counts, st.integers(1, 1000), days)
def test_every_operation_is_the_same_exactly_and_in_int64(
    a: int, b: int, p: int, n: int, d: int, day: int
) -> None:
    date = dt.date(1970, 1, 1) + dt.timedelta(days=day)
    exact = _all_ops(EXACT, _dollars(a), _dollars(b), Fraction(p, SCALE), n, d, date)
    explained, _ = explain(_all_ops, _dollars(a), _dollars(b), Fraction(p, SCALE), n, d, date)
    column = np.array([a, a], np.int64)

    def vectorized() -> tuple[V, ...]:
        return _all_ops(
            INT64,
            column,
            np.array([b, b], np.int64),
            Ratio(np.array([p, p], np.int64), SCALE),
            np.array([n, n], np.int64),
            np.array([d, d], np.int64),
            np.array([day, day], np.int64),
        )

    assert explained == exact
    if a * n >= 2**63 or a * n // d >= 2**53:
        # beyond int64's exact range (a times a count, or a product over a count below
        # 2^53 as muldiv_floor needs): refused, never a wrapped number
        with pytest.raises(OverflowError, match="exact range"):
            vectorized()
        return
    vector = vectorized()
    for index, (one, many) in enumerate(zip(exact, vector, strict=True)):
        many = np.asarray(many)
        expected = one * 100 if isinstance(one, Decimal) else one
        if index in (9, 11, 12):  # counts, years, flags: not money
            expected = one
        assert int(many[0]) == int(expected), (index, one, many)


def test_a_product_beyond_int64_is_refused_not_wrapped() -> None:
    # $100,000,000,000.00 = 10^13 cents x 10^6 positions = 10^19 > 2^63 - 1 (9.22 x 10^18):
    # numpy would wrap it to a negative amount; the evaluator refuses it
    money = np.array([10**13], np.int64)
    with pytest.raises(OverflowError, match="exact range"):
        INT64.times(money, np.array([10**6], np.int64))
    with pytest.raises(OverflowError, match="exact range"):
        INT64.muldiv(money, np.array([10**6], np.int64), np.array([1], np.int64))
    # one below the line: 9,223,372,036,854 cents x 10^6 = 9.22 x 10^18 < 2^63
    assert int(INT64.times(np.array([9_223_372_036_854]), np.array([10**6]))[0]) == (
        9_223_372_036_854 * 10**6
    )


def test_the_range_is_each_rows_own_product() -> None:
    # one row's amount and another row's count never meet: 10^13 cents x 1 and 1 cent x
    # 10^6 are both in range, though 10^13 x 10^6 (the columns' largest) is not; and
    # 3.9 x 10^9 x 10^10 / 1.3 x 10^9 = 3 x 10^10 (a ratio to 10 places over positions /
    # 10^8) is below 2^53 though 3.9 x 10^9 x 10^10 / 1 (the smallest divisor) is not
    money = np.array([10**13, 1], np.int64)
    counts = np.array([1, 10**6], np.int64)
    assert INT64.times(money, counts).tolist() == [10**13, 10**6]
    assert INT64.muldiv(money, counts, np.array([1, 1], np.int64)).tolist() == [10**13, 10**6]
    a = np.array([3_900_000_000, 1], np.int64)
    scale = np.full(2, 10**10, np.int64)
    ratio = muldiv_floor(a, scale, np.array([1_300_000_000, 1], np.int64))
    assert ratio.tolist() == [3 * 10**10, 10**10]
    # a row whose own product over its divisor is 2^53 or more is still refused, by name
    a[1] = 10**8  # 10^8 x 10^10 / 1 = 10^18
    with pytest.raises(OverflowError, match="100,000,000 x 10,000,000,000"):
        muldiv_floor(a, scale, np.array([1_300_000_000, 1], np.int64))


def test_the_date_tables_are_the_arithmetic_on_every_day() -> None:
    # every day from 1899-12-01 to 2200-01-31 (the tables' 1900-2199 and a month either
    # side, read by the arithmetic): the look-ups give what the arithmetic gives, and a
    # column with one day outside the tables (a sentinel) is read by the arithmetic whole
    from nj_incentives.core.rules import vectorized as v

    days = np.arange(-25567 - 31, 84005 + 32, dtype=np.int64)
    inside = days[31:-31]
    for column in (inside, days, np.append(inside[:100], 2**40)):
        year, month, day = civil_from_days(column)
        expected = v._civil_arithmetic(column)
        assert all(np.array_equal(x, y) for x, y in zip((year, month, day), expected, strict=True))
        known = column < 2**40
        assert np.array_equal(days_from_civil(year, month, day)[known], column[known])
        assert np.array_equal(v.days_in_month(year, month), v._month_days_arithmetic(year, month))
    # add_months by the tables: the arithmetic's month and day (clipped to the month's
    # last), and the parts it remembers for the next date rule are the result's own
    # (1901-2198 for the tables: every month reached within them; all days: the arithmetic)
    within = inside[400:-400]
    for months, column in itertools.product((-25, -12, -1, 1, 12, 13, 120), (within, days)):
        year, month, day = v._civil_arithmetic(column)
        later, month0 = np.divmod(year * 12 + month - 1 + months, 12)
        day = np.minimum(day, v._month_days_arithmetic(later, month0 + 1))
        evaluator = Int64()
        added = evaluator.add_months(column, months)
        assert np.array_equal(added, v._days_arithmetic(later, month0 + 1, day))
        remembered = evaluator._civil(added)
        assert all(
            np.array_equal(x, y)
            for x, y in zip(remembered, v._civil_arithmetic(added), strict=True)
        )
    # month_end by the tables (inside) and the arithmetic, with the parts it remembers
    for column in (inside, days):
        evaluator = Int64()
        ends = evaluator.month_end(column)
        year, month, day = v._civil_arithmetic(column)
        assert np.array_equal(ends, column - day + v._month_days_arithmetic(year, month))
        remembered = evaluator._civil(ends)
        assert all(
            np.array_equal(x, y) for x, y in zip(remembered, v._civil_arithmetic(ends), strict=True)
        )
    short = civil_from_days(inside[:1])  # a short column: the arithmetic
    assert [int(x[0]) for x in short] == [1900, 1, 1]
    assert dt.date(1970, 1, 1) + dt.timedelta(days=int(inside[0])) == dt.date(1900, 1, 1)
    assert dt.date(1970, 1, 1) + dt.timedelta(days=int(inside[-1])) == dt.date(2199, 12, 31)


def test_shares_round_down_to_the_cent_and_fractions_are_exact() -> None:
    # 100,000.00 / 3 = 33,333.333... -> 33,333.33; 333,333.33 x 15% = 49,999.9995 -> 49,999.99
    assert EXACT.share(D("100000.00"), Fraction(1, 3)) == D("33333.33")
    assert EXACT.share(D("333333.33"), D("0.15")) == D("49999.99")
    # in int64: 3,333,333,333 cents x 150,000,000 / 10^9 = 499,999,999.95 -> 499,999,999
    got = INT64.share(np.array([33333333], np.int64), Ratio(np.array([150_000_000]), SCALE))
    assert int(got[0]) == 4999999


def _cap_rule(r: Rules, before: V, room: V, capped: V) -> V:
    return r.where(
        r.ge(capped, beip.CAP_AGREEMENTS_FROM, label="Capped"),
        r.min(before, room, label="After the cap"),
        before,
    )


def test_an_explanation_keeps_only_the_steps_the_result_depends_on() -> None:
    # capped: min(300,000.00, 250,000.00) = 250,000.00, after the "Capped" step
    value, steps = explain(_cap_rule, D("300000"), D("250000"), dt.date(2010, 1, 1))
    assert value == D("250000.00")
    assert [s.label for s in steps] == ["Capped", "After the cap"]
    assert steps[1].arithmetic == "min(300,000.00, 250,000.00) = 250,000.00"
    # not capped: the min is computed but not taken, so it explains nothing
    value, steps = explain(_cap_rule, D("300000"), D("250000"), dt.date(2000, 1, 1))
    assert value == D("300000")
    assert [s.label for s in steps] == ["Capped"]
    assert steps[0].arithmetic == "2000-01-01 on or after 2003-07-01: no"


def test_rounding_is_shown_where_it_bites() -> None:
    def rule(r: Rules) -> V:
        return r.add(r.share(D("333333.33"), D("0.15")), D("1.00"), label="Sum")

    _, steps = explain(rule)
    # 333,333.33 x 15% = 49,999.9995 -> 49,999.99; + 1.00 = 50,000.99
    assert steps[0].arithmetic == (
        "(333,333.33 x 15% = 49,999.9995, rounded down to 49,999.99) + 1.00 = 50,000.99"
    )


def test_results_are_explained_only_when_their_steps_are_read() -> None:
    calls = []

    def explainer() -> tuple[()]:
        calls.append(1)
        return ()

    schedule = beip.GrantSchedule(term=1, rows=(), total=D(0), cap_applies=False, steps=explainer)
    assert calls == []
    assert schedule.steps == ()
    assert schedule.steps == ()  # read twice, explained once
    assert calls == [1]


# =========================================================================== every BEIP section
# The same rule text of law/beip.py run exactly (one case) and by Int64 (the same case in
# a column of three, beside two others): equal to the cent. The runner's own property
# (tests/scenarios/test_scenarios_exact.py) covers reading the columns around these rules.

pct_cells = st.integers(0, SCALE)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(cents, cents, st.integers(0, 40)), min_size=1, max_size=10),
    pct_cells,
    pct_cells,
    days,
    st.booleans(),
)
def test_grant_bounds_and_years_int64_equal_exact(
    years: list[tuple[int, int, int]], pct: int, partner_pct: int, day: int, smart: bool
) -> None:
    date = dt.date(1970, 1, 1) + dt.timedelta(days=day)
    w, p, e = ([row[i] for row in years] for i in range(3))
    exact_pct, exact_partner = Fraction(pct, SCALE), Fraction(partner_pct, SCALE)
    bounds = beip.grant_bounds(EXACT, exact_pct, exact_partner, smart)
    rows, total = beip.grant_years(
        EXACT, [_dollars(c) for c in w], [_dollars(c) for c in p], e, exact_pct, exact_partner, date
    )

    def col(value: int) -> np.ndarray:
        return np.array([0, value, 7], np.int64)

    vector_bounds = beip.grant_bounds(
        INT64, Ratio(col(pct), SCALE), Ratio(col(partner_pct), SCALE), col(smart) == 1
    )
    vector_rows, vector_total = beip.grant_years(
        INT64,
        [col(c) for c in w],
        [col(c) for c in p],
        [col(n) for n in e],
        Ratio(col(pct), SCALE),
        Ratio(col(partner_pct), SCALE),
        col(day),
    )
    assert [bool(v[1]) for v in vector_bounds] == list(bounds)
    assert int(vector_total[1]) == total * 100
    for one, many in zip(rows, vector_rows, strict=True):
        assert [int(v[1]) for v in many] == [x * 100 for x in one]


@settings(max_examples=150, deadline=None)
@given(st.integers(beip.FIRST_ACCRUAL_YEAR, beip.LAST_ACCRUAL_YEAR), cents, st.none() | days)
def test_conversion_int64_equals_exact(year: int, amount: int, approval: int | None) -> None:
    paragraph = beip.conversion_paragraph(year)
    on = dt.date(2016, 7, 1) if approval is None else dt.date(1970, 1, 1) + dt.timedelta(approval)
    late_rule = paragraph.late_approval_rule
    start, late = beip.first_tax_year(
        EXACT, paragraph.first_tax_year, late_rule, approval is not None, on
    )
    count = len(paragraph.shares)
    parts = beip.installments(EXACT, _dollars(amount), paragraph.fractions, count)
    # Int64: the shares over the kernel's common denominator, padded to five installments
    den = 60
    shares = [Ratio(np.full(3, Fraction(s) * den, np.int64), den) for s in paragraph.fractions]
    shares += [Ratio(np.zeros(3, np.int64), den)] * (5 - count)
    vector_start, vector_late = beip.first_tax_year(
        INT64,
        np.full(3, paragraph.first_tax_year),
        np.full(3, late_rule),
        np.full(3, approval is not None),
        np.full(3, (on - dt.date(1970, 1, 1)).days),
    )
    vector_parts = beip.installments(INT64, np.full(3, amount), shares, np.full(3, count))
    assert (int(vector_start[1]), bool(vector_late[1])) == (start, late)
    assert [int(v[1]) for v in vector_parts] == [x * 100 for x in parts] + [0] * (5 - count)
    assert sum(parts) == _dollars(amount)  # the last takes the remainder


@settings(max_examples=200, deadline=None)
@given(cents, cents, st.integers(0, 10**7))
def test_credit_application_int64_equals_exact(credit: int, tax: int, minimum: int) -> None:
    exact = beip.credit_application(EXACT, _dollars(credit), _dollars(tax), _dollars(minimum))
    vector = beip.credit_application(
        INT64, np.array([credit]), np.array([tax]), np.array([minimum])
    )
    assert [int(v[0]) for v in vector] == [x * 100 for x in exact]


# =========================================================================== integer helpers
# (moved here from tests/scenarios/test_scenarios_exact.py with the helpers themselves)


@given(
    st.lists(st.integers(0, 10**13), min_size=1, max_size=20),
    st.integers(0, 10**14),
    st.integers(1, 10**14),
)
def test_muldiv_floor_is_exact(a: list[int], b: int, c: int) -> None:
    assume(all(x * b // c < 2**53 for x in a))
    got = muldiv_floor(np.array(a), np.full(len(a), b), np.full(len(a), c))
    assert got.tolist() == [x * b // c for x in a]


@given(st.lists(st.integers(0, 10**15), min_size=1, max_size=20), st.integers(0, 2 * 10**9))
def test_mul_frac_is_exact(a: list[int], num: int) -> None:
    got = mul_frac(np.array(a), num, 10**9)
    assert got.tolist() == [x * num // 10**9 for x in a]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.5, 0.3, 0.02, 1.0]), st.integers(64, 300))
def test_select_is_numpy_where(seed: int, share: float, n: int) -> None:
    """``select`` (the int64 evaluator's ``where``) is ``numpy.where`` value for value,
    dtype and shape: over conditions that change on most rows (a share of 0.3 to 0.5 in
    random order: the arithmetic b + (a - b) x cond, which wraps in int64) and in long runs
    (0.02, all true: numpy.where itself), with int64 extremes, whose differences overflow."""
    rng = np.random.default_rng(seed)
    cond = rng.random(n) < share
    extremes = np.array([-(2**63), 2**63 - 1, -1, 0, 1], np.int64)
    a = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64, endpoint=True)
    b = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64, endpoint=True)
    a[: len(extremes)], b[: len(extremes)] = extremes, extremes[::-1]
    flags = rng.random(n) < 0.5
    cases = [(a, b), (a, 0), (0, b), (7, b), (a, -(2**63)), (2**63 - 1, -(2**63)), (3, 4)]
    cases += [(np.int64(-5), b), (a, b[:1]), (flags, False), (True, flags), (flags, ~flags)]
    for x, y in cases:
        got, expected = select(cond, x, y), np.where(cond, x, y)
        assert got.dtype == expected.dtype
        assert got.shape == expected.shape
        assert np.array_equal(got, expected)
    square = cond[: n // 8 * 8].reshape(8, -1)
    assert np.array_equal(
        select(square, a[: square.size].reshape(8, -1), 9),
        np.where(square, a[: square.size].reshape(8, -1), 9),
    )


def test_calendar_arithmetic_against_datetime() -> None:
    days = np.arange(-25000, 90000, 7, dtype=np.int64)
    year, month, day = civil_from_days(days)
    epoch = dt.date(1970, 1, 1)
    for d, y, m, dd in zip(days[::97], year[::97], month[::97], day[::97], strict=True):
        assert epoch + dt.timedelta(days=int(d)) == dt.date(int(y), int(m), int(dd))
    assert (days_from_civil(year, month, day) == days).all()


def test_cents_down_matches_mul_frac_at_cent_boundaries() -> None:
    # floor(a x p) with a in cents and p / 10^9, against Decimal cents_down(a x p)
    amounts = [1, 3, 7, 99, 100, 333, 999_999_999_999, 10**13]
    pcts = [1, 100_000_000, 333_333_333, 500_000_000, 999_999_999, 10**9]
    for a in amounts:
        for p in pcts:
            exact = cents_down(D(a) / 100 * (D(p) / 10**9))
            assert mul_frac(np.array([a]), p, 10**9)[0] == int(exact * 100)
