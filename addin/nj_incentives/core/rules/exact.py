"""The exact evaluator (:class:`Exact`, :data:`EXACT`): ``Decimal`` money, exact fractions,
``datetime.date``; the amounts path of the core. It records nothing. Its arithmetic
helpers (``exact_share``, ``discounted``, ``to_money``) are shared with the explaining
evaluator."""

from __future__ import annotations

import calendar
import datetime as dt
import math
from collections.abc import Iterable
from decimal import ROUND_DOWN, Decimal, localcontext
from fractions import Fraction
from typing import Any

from nj_incentives.core.common import CENT, cents_down
from nj_incentives.core.rules.language import OPS, Rules, V

__all__ = ["EXACT", "ZERO", "Exact", "days_in_month", "discounted", "exact_share", "to_money"]


def exact_share(a: Decimal, p: Decimal | Fraction | int) -> tuple[Decimal, Decimal | Fraction]:
    """(``cents_down(a x p)``, the exact product)."""
    if isinstance(p, Fraction):
        exact = Fraction(a) * p
        cents = math.floor(exact * 100)
        return (Decimal(cents) / 100).quantize(CENT), exact
    product = a * p
    return cents_down(product), product


def discounted(value: Decimal, rate: Decimal, years: Decimal, digits: int) -> Decimal:
    """``value / (1 + rate) ** years`` carried to ``digits`` significant digits."""
    with localcontext() as context:
        context.prec = digits
        return value / (1 + rate) ** years


def _places(value: Fraction, places: int) -> Decimal:
    """An exact fraction to ``places`` decimal places, half to even."""
    return Decimal(round(value * 10**places)).scaleb(-places)


def days_in_month(year: int, month: int) -> int:
    """``calendar.monthrange(year, month)[1]`` without the month's first weekday it also
    computes (``month`` 1 to 12)."""
    if month == 2:
        return 29 if calendar.isleap(year) else 28
    return _MONTH_DAYS[month]


#: Each month's days in a common year (January at 1).
_MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _months_later(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 + months
    year, month0 = divmod(index, 12)
    last = days_in_month(year, month0 + 1)
    return dt.date(year, month0 + 1, min(day.day, last))


def to_money(value: Any) -> Any:
    """Money as ``Decimal`` (a whole number given as ``int`` converted; others unchanged)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value).quantize(CENT)
    return value


#: The exact numbers whose ratio of integers (``as_integer_ratio``) is their value.
_RATIONAL = frozenset({int, Decimal, Fraction})


def _cents_of(a: Any, n: Any, d: Any) -> Any:
    """``exact_share(a, Fraction(n) / Fraction(d))[0]`` (``d`` not 0) in whole numbers,
    without building the fractions: a x n / d rounded down to the cent, the same
    ``Decimal`` (``a`` a ``Decimal`` or a ``Fraction``; ``n``, ``d`` of :data:`_RATIONAL`)."""
    a_num, a_den = a.as_integer_ratio()
    n_num, n_den = n.as_integer_ratio()
    d_num, d_den = d.as_integer_ratio()
    cents = (a_num * n_num * d_den * 100) // (a_den * n_den * d_num)
    return (Decimal(cents) / 100).quantize(CENT)


def _places_of(n: Any, d: Any, places: int) -> Decimal:
    """``_places(Fraction(n) / Fraction(d), places)`` (``d`` not 0, ``places`` >= 0) in
    whole numbers: n / d to ``places`` decimal places, half to even, as ``round`` rounds a
    fraction."""
    n_num, n_den = n.as_integer_ratio()
    d_num, d_den = d.as_integer_ratio()
    num, den = n_num * d_den * 10**places, n_den * d_num
    if den < 0:
        num, den = -num, -den
    whole, rest = divmod(num, den)
    if rest * 2 > den or (rest * 2 == den and whole % 2 == 1):
        whole += 1
    return Decimal(whole).scaleb(-places)


#: The end of an iterator (a value no rule computes).
_NONE: Any = object()


class Exact(Rules):
    """Exact arithmetic on one case: the amounts path (records nothing)."""

    def share(self, a: V, p: V, label: str = "", cite: str = "") -> V:
        if type(p) is Decimal and type(a) is Decimal:  # the common case, directly
            return (a * p).quantize(CENT, rounding=ROUND_DOWN)
        return exact_share(to_money(a), p)[0]

    def times(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        return to_money(a) * n

    def div(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        if type(n) is int and n:
            return _cents_of(to_money(a), 1, n)
        return exact_share(to_money(a), Fraction(1, n))[0]

    def muldiv(self, a: V, n: V, d: V, label: str = "", cite: str = "") -> V:
        if n == 0:
            return ZERO
        if type(n) in _RATIONAL and type(d) in _RATIONAL and d:
            return _cents_of(to_money(a), n, d)
        return exact_share(to_money(a), Fraction(n) / Fraction(d))[0]

    def per_unit(self, n: V, rate: V, label: str = "", cite: str = "") -> V:
        if type(n) in _RATIONAL:
            return _cents_of(to_money(rate), n, 1)
        return exact_share(to_money(rate), Fraction(n))[0]

    def quotient(self, n: V, d: V, places: int, label: str = "", cite: str = "") -> V:
        rational = type(n) in _RATIONAL and type(d) in _RATIONAL
        if rational and d and type(places) is int and places >= 0:
            return _places_of(n, d, places)
        return _places(Fraction(n) / Fraction(d) if n != 0 else Fraction(0), places)

    def count(self, conds: Iterable[V], label: str = "", cite: str = "") -> V:
        return sum(1 for cond in conds if cond)

    def discount(
        self, a: V, p: V, rate: V, years: V, digits: int, label: str = "", cite: str = ""
    ) -> V:
        return cents_down(discounted(to_money(a) * p, rate, years, digits))

    def add(self, *xs: V, label: str = "", cite: str = "") -> V:
        result = xs[0]
        for x in xs[1:]:
            result = result + x
        return result if type(result) is Decimal else to_money(result)

    def total(self, xs: Iterable[V], label: str = "", cite: str = "") -> V:
        # Rules.total's sums without its list and call of add: the same additions in the
        # same order (one value: value + 0; none: 0 + 0 as money)
        items = iter(xs)
        result = next(items, _NONE)
        if result is _NONE:
            return ZERO
        second = next(items, _NONE)
        if second is _NONE:
            result = result + 0
        else:
            result = result + second
            for x in items:
                result = result + x
        return result if type(result) is Decimal else to_money(result)

    def draw(self, room: V, amounts: Iterable[V]) -> tuple[list[V], list[V], V]:
        # Rules.draw's min and subs directly (a schedule's vintages, period by period)
        taken: list[V] = []
        kept: list[V] = []
        for amount in amounts:
            take = amount if amount < room else room
            if type(take) is not Decimal:
                take = to_money(take)
            left = amount - take
            kept.append(left if type(left) is Decimal else to_money(left))
            room = room - take
            if type(room) is not Decimal:
                room = to_money(room)
            taken.append(take)
        return taken, kept, room

    # the money operations return a Decimal as it is (to_money leaves it unchanged)
    def sub(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        result = a - b
        return result if type(result) is Decimal else to_money(result)

    def min(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        result = b if b < a else a
        return result if type(result) is Decimal else to_money(result)

    def max(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        result = b if b > a else a
        return result if type(result) is Decimal else to_money(result)

    def where(self, cond: V, a: V, b: V, label: str = "", cite: str = "") -> V:
        return a if cond else b

    def _compare(self, op: str, a: V, b: V, label: str, cite: str) -> V:
        return bool(OPS[op](a, b))

    # the comparisons directly (the amounts path: no dispatch on the operator)
    def ge(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return a >= b

    def gt(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return a > b

    def le(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return a <= b

    def lt(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return a < b

    def eq(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return a == b

    def whole(self, x: V, label: str = "", cite: str = "") -> V:
        return Fraction(x).denominator == 1

    def both(self, *conds: V, label: str = "", cite: str = "") -> V:
        return all(conds)

    def either(self, *conds: V, label: str = "", cite: str = "") -> V:
        return any(conds)

    def not_(self, cond: V, label: str = "", cite: str = "") -> V:
        return not cond

    def fiscal_year(
        self, day: V, start_month: int, name: str = "fiscal year", label: str = "", cite: str = ""
    ) -> V:
        return day.year + 1 if day.month >= start_month else day.year

    def month_start(self, day: V, label: str = "", cite: str = "") -> V:
        return day.replace(day=1)

    def month_end(self, day: V, label: str = "", cite: str = "") -> V:
        return day.replace(day=days_in_month(day.year, day.month))

    def add_months(self, day: V, months: int, label: str = "", cite: str = "") -> V:
        return _months_later(day, months)

    def add_days(self, day: V, days: int, label: str = "", cite: str = "") -> V:
        return day + dt.timedelta(days=days)


#: Zero dollars, for a running total's start.
ZERO = Decimal("0.00")

#: The exact evaluator (stateless: one is enough).
EXACT = Exact()
