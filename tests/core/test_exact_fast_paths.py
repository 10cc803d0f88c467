"""The exact evaluator's shortcuts give exactly what its general definitions give.

:class:`~nj_incentives.core.rules.exact.Exact` answers its most frequent operations
directly (the amounts path of every schedule runs them thousands of times a call); each
shortcut here is held to the definition it replaces over random operands: the same
value, the same type and the same representation (a ``Decimal``'s exponent shows in a
result's text).
"""

from __future__ import annotations

import calendar
from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.core.rules import EXACT, Rules
from nj_incentives.core.rules.exact import _places, days_in_month, exact_share, to_money

D = Decimal

#: money in cents or finer, whole numbers, and the odd exponent (1E+2) a Decimal can have
_decimals = st.one_of(
    st.integers(-(10**15), 10**15).map(lambda c: D(c) / 100),
    st.integers(-(10**15), 10**15).map(lambda c: D(c).scaleb(-4)),
    st.integers(-(10**6), 10**6).map(D),
    st.integers(-99, 99).map(lambda n: D(n).scaleb(2)),
)
_values = st.one_of(_decimals, st.integers(-(10**12), 10**12), st.booleans())


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b and str(a) == str(b)


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(st.lists(_values, max_size=6))
def test_total_is_the_rule_languages_sum(items: list[object]) -> None:
    # Rules.total: 0 + 0 for none, value + 0 for one, add(*items) for more
    assert _same(EXACT.total(items), Rules.total(EXACT, items))
    assert _same(EXACT.total(iter(items)), Rules.total(EXACT, list(items)))


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(_values, _values)
def test_sub_min_max_are_their_definitions(a: object, b: object) -> None:
    assert _same(EXACT.sub(a, b), to_money(a - b))  # type: ignore[operator]
    assert _same(EXACT.min(a, b), to_money(b if b < a else a))  # type: ignore[operator]
    assert _same(EXACT.max(a, b), to_money(b if b > a else a))  # type: ignore[operator]


_ratios = st.one_of(
    st.integers(-(10**7), 10**7),
    _decimals,
    st.builds(Fraction, st.integers(-(10**7), 10**7), st.integers(1, 10**4)),
)


@settings(max_examples=250, deadline=None, derandomize=True, database=None)
@given(st.one_of(_decimals, st.integers(-(10**12), 10**12)), _ratios, _ratios)
def test_shares_in_whole_numbers_are_the_fractions(a: object, n: object, d: object) -> None:
    # muldiv, per_unit and div: a x n / d rounded down to the cent by exact fractions
    money = to_money(a)
    if n != 0 and d != 0:
        expected = exact_share(money, Fraction(n) / Fraction(d))[0]  # type: ignore[arg-type]
        assert _same(EXACT.muldiv(a, n, d), expected)
    assert _same(EXACT.muldiv(a, 0, d), D("0.00"))
    assert _same(EXACT.per_unit(n, a), exact_share(money, Fraction(n))[0])  # type: ignore[arg-type]
    if isinstance(n, int) and n != 0:
        assert _same(EXACT.div(a, n), exact_share(money, Fraction(1, n))[0])


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(_ratios, _ratios, st.integers(0, 12))
def test_quotient_in_whole_numbers_is_the_fractions(n: object, d: object, places: int) -> None:
    # n / d to `places` places, half to even: round() of the exact fraction
    if d != 0:
        exact = Fraction(n) / Fraction(d) if n != 0 else Fraction(0)  # type: ignore[arg-type]
        assert _same(EXACT.quotient(n, d, places), _places(exact, places))
    # exact halves: 1/8 to 2 places is 0.12, 3/8 is 0.38 (half to even)
    assert EXACT.quotient(1, 8, 2) == D("0.12")
    assert EXACT.quotient(3, 8, 2) == D("0.38")


def test_days_in_month_is_the_calendars() -> None:
    for year in range(1, 10000):
        for month in range(1, 13):
            assert days_in_month(year, month) == calendar.monthrange(year, month)[1]


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(_values, st.lists(_values, max_size=8))
def test_draw_is_the_rule_languages(room: object, amounts: list[object]) -> None:
    # a credit used oldest first: min(room left, amount) from each, in order
    taken, kept, left = EXACT.draw(room, amounts)
    expected = Rules.draw(EXACT, room, amounts)
    assert all(map(_same, taken, expected[0]))
    assert all(map(_same, kept, expected[1]))
    assert (len(taken), len(kept)) == (len(expected[0]), len(expected[1]))
    assert _same(left, expected[2])
