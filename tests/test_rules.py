"""The rule language: one rule text, three evaluators, the same figures to the cent.

Every operation of :mod:`nj_incentives.law.rules` run by the exact evaluator, the
explaining one and the int64 one over random operands gives the same result (the int64
one in cents); the explanation records only labelled operations the result depends on.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.law import beip
from nj_incentives.law.rules import EXACT, Int64, Ratio, Rules, V, explain

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
    vector = _all_ops(
        INT64,
        column,
        np.array([b, b], np.int64),
        Ratio(np.array([p, p], np.int64), SCALE),
        np.array([n, n], np.int64),
        np.array([d, d], np.int64),
        np.array([day, day], np.int64),
    )
    assert explained == exact
    for index, (one, many) in enumerate(zip(exact, vector, strict=True)):
        many = np.asarray(many)
        expected = one * 100 if isinstance(one, Decimal) else one
        if index in (9, 11, 12):  # counts, years, flags: not money
            expected = one
        assert int(many[0]) == int(expected), (index, one, many)


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
