"""The int64 evaluator (:class:`Int64`) for the scenario runner: many rows at once, over
numpy arrays: money in int64 cents, fractions as :class:`Ratio`, dates as day numbers
since 1970-01-01; and its exact integer helpers (:func:`mul_frac`, :func:`muldiv_floor`,
the civil-date conversions). numpy is imported only when it is used, so the exact path
stays import-light (xlwings Lite, Pyodide)."""

from __future__ import annotations

import datetime as dt
import functools
import math
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from nj_incentives.core.parameters import Parameter, act_order
from nj_incentives.core.rules.language import OPS, Rules, V

if TYPE_CHECKING:  # numpy is imported at run time only by the int64 evaluator
    from numpy import ndarray

__all__ = [
    "Int64",
    "Ratio",
    "civil_from_days",
    "days_from_civil",
    "days_in_month",
    "mul_frac",
    "muldiv_floor",
    "select",
]

_EPOCH = dt.date(1970, 1, 1)


class Ratio(NamedTuple):
    """A fraction column for :class:`Int64`: ``num / den`` (``num`` an int64 array or int)."""

    num: Any
    den: int


def mul_frac(a: Any, num: Any, den: int, num_max: int | None = None) -> ndarray:
    """``floor(a x num / den)`` exactly, for ``a >= 0``, ``0 <= num`` and ``den x num < 2^63``.

    Where ``max(a) x max(num)`` fits in int64, directly; otherwise, with
    ``a = q x den + r``: ``q x num + floor(r x num / den)``; ``r x num < den x num``.
    ``num_max``, when given, is ``max(num)`` (known to the caller: a fraction column read
    year after year).
    """
    import numpy as np

    a = np.asarray(a)
    if not a.size:
        return np.asarray(a.copy())
    largest = int(np.max(num)) if num_max is None else num_max
    if int(a.max()) * largest < 2**63:  # the product fits: one division
        product = np.multiply(a, num)
        if product.ndim:
            np.floor_divide(product, den, out=product)
            return np.asarray(product)
        return np.asarray(product // den)
    q, r = np.divmod(a, den)
    return np.asarray(q * num + (r * num) // den)


#: columns shorter than this are selected by ``numpy.where`` (:func:`select`)
_SELECT_MIN_SIZE = 64
#: a condition that changes from one row to the next in at least one row in this many
#: is selected by arithmetic (:func:`select`)
_SELECT_CHANGES = 8
_INT64_LOW, _INT64_HIGH = -(2**63), 2**63 - 1


def _int64_operand(x: Any) -> bool:
    """An int64 array or scalar, or a Python int within int64 (not a bool)."""
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return _INT64_LOW <= x <= _INT64_HIGH
    return getattr(x, "dtype", None) == "int64"


def _bool_operand(x: Any) -> bool:
    return isinstance(x, bool) or getattr(x, "dtype", None) == "bool"


def _is_zero(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x == 0


def select(cond: Any, a: Any, b: Any) -> Any:
    """``numpy.where(cond, a, b)``, equal to it value for value, in shape and in dtype, and
    for a column ``cond`` of booleans with int64 (or boolean) choices, without a branch a
    row where ``numpy.where`` would mispredict most of them.

    ``numpy.where`` branches on each row: over a condition with no pattern that holds in
    about half of the rows (an accrual year, a date past a cutoff) it costs five to ten
    additions; over one in long runs (nearly always, or never, true), about one. So:

    - a condition that changes from one row to the next in at least one row in eight
      (``numpy.where`` mispredicts about one branch a change): ``b + (a - b) x cond``,
      in int64 arithmetic that wraps modulo 2^64: a row's result is ``a`` or ``b``
      exactly, both within int64, whatever ``a - b`` wrapped to (three passes over the
      column where ``numpy.where`` makes one); one choice 0: the other times the
      condition (one multiplication);
    - booleans: ``(cond & a) | (~cond & b)``;
    - anything else (floats, a scalar condition, a short column, another mix of
      shapes): ``numpy.where``."""
    import numpy as np

    if not (
        isinstance(cond, np.ndarray)
        and cond.dtype == np.bool_
        and cond.size >= _SELECT_MIN_SIZE
        and getattr(a, "shape", ()) in ((), cond.shape)  # a constant or a column like cond
        and getattr(b, "shape", ()) in ((), cond.shape)
    ):
        return np.where(cond, a, b)
    if _int64_operand(a) and _int64_operand(b):
        flat = cond.reshape(-1)
        changes = np.count_nonzero(flat[1:] != flat[:-1])
        if changes * _SELECT_CHANGES < flat.size:  # a branch predicted on most rows
            return np.where(cond, a, b)
        if _is_zero(b):
            return np.multiply(a, cond, dtype=np.int64)
        if _is_zero(a):
            return np.multiply(b, ~cond, dtype=np.int64)
        if np.ndim(a) == 0 and np.ndim(b) == 0:  # two constants: their difference exactly
            difference = int(a) - int(b)
            if not _INT64_LOW <= difference <= _INT64_HIGH:
                return np.where(cond, a, b)
            result = np.multiply(cond, difference, dtype=np.int64)
        else:  # one of them a column like cond
            result = np.subtract(a, b, dtype=np.int64)  # wraps where it overflows
            np.multiply(result, cond, out=result)
        np.add(result, b, out=result)  # wraps back: exactly a where cond, b where not
        return result
    if _bool_operand(a) and _bool_operand(b):
        return (cond & a) | (~cond & b)
    return np.where(cond, a, b)


def _fits(a: Any, b: Any, limit: int, what: str, divisor: Any = 1) -> None:
    """Refuse, rather than wrap, a product of two columns that int64 cannot hold: each
    row's ``|a| x |b| // divisor`` must stay below ``limit``.

    Two reductions decide most calls (``max|a| x max|b| // min(divisor)`` below the
    limit); only when that bound fails are the rows looked at (:func:`_refuse_rows`).
    (A column's largest amount and another row's largest count never meet in one
    product: the bound alone refused whole chunks of good rows, which the runner then
    split row by row.)"""
    import numpy as np

    if not (np.size(a) and np.size(b)):
        return
    # the largest magnitudes, without a column of absolute values
    a_max, b_max = _largest_magnitude(a), _largest_magnitude(b)
    smallest = divisor if isinstance(divisor, int) else int(np.min(divisor))
    if (a_max * b_max) // max(smallest, 1) < limit:
        return
    a, b, d = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(divisor))
    a, b = np.abs(a), np.abs(b)
    d = np.maximum(d, 1)
    with np.errstate(over="ignore"):
        estimate = a.astype(np.float64) * b.astype(np.float64) / d.astype(np.float64)
    _refuse_rows(a, b, d, estimate, limit, what)


@functools.lru_cache(maxsize=256)
def _cents(x: Decimal | Fraction) -> int:
    """A money constant (a figure of law, a rule's 0.00) in cents, exactly (converted once:
    a rule reads the same figure for every year of every chunk)."""
    cents = Fraction(x) * 100
    if cents.denominator != 1:
        raise ValueError(f"{x} is not a whole number of cents")
    return int(cents)


def _largest_magnitude(x: Any) -> int:
    if isinstance(x, int):  # a constant (a dollar figure in cents): no reduction
        return abs(x)
    import numpy as np

    return max(int(np.max(x)), -int(np.min(x)))


def _refuse_rows(a: Any, b: Any, d: Any, estimate: Any, limit: int, what: str) -> None:
    """Raise OverflowError for the first row whose ``a x b // d`` (non-negative) is
    ``limit`` or more, given a float64 ``estimate`` of each (relative error below 2^-50):
    rows estimated below ``limit / 2`` are certainly below; the few others are computed
    in Python integers."""
    import numpy as np

    beyond = np.flatnonzero(estimate >= limit * (1 + 2**-40))  # certainly over
    near = np.flatnonzero(estimate >= limit / 2)
    for row in (*beyond[:1], *near):
        i = np.unravel_index(row, a.shape)
        x, y = int(a[i]), int(b[i])
        if (x * y) // int(d[i]) >= limit:
            raise OverflowError(
                f"{what}: {x:,} x {y:,} is beyond the "
                "int64 evaluator's exact range (scenario runner limit, docs/scenarios.md)"
            )


def muldiv_floor(a: Any, b: Any, c: Any) -> ndarray:
    """``floor(a x b / c)`` exactly, for ``a, b >= 0``, ``c > 0``, a result below 2^53 and
    ``c < 2^61``, even where ``a x b`` exceeds int64; a row whose result would be 2^53 or
    more is refused (OverflowError), never wrapped.

    A float64 estimate is within one of the result (relative error < 2^-50); the exact
    remainder ``a x b - q x c`` is small, so computing it modulo 2^64 (uint64
    arithmetic, which wraps by definition) gives its true value; one step fixes ``q``.
    The same estimate (or, when every product fits in int64, the exact quotient) tells
    the rows that may pass 2^53 (:func:`_refuse_rows`), when the columns' bound
    ``max a x max b // min c`` does not already rule them out.
    """
    import numpy as np

    # any of the three may be the column (a fixed dollar figure x a column of counts):
    # broadcast them to one shape (issue 19: ``a`` a constant failed)
    a, b, c = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c))
    if a.size == 0:
        return np.asarray(a.copy())
    i64 = np.dtype(np.int64)
    largest = int(a.max()) * int(b.max())
    unsure = largest // max(int(c.min()), 1) >= 2**53  # some row may pass 2^53
    if largest < 2**63:  # every product fits: exact in int64, its largest checked
        exact = (a * b) // c
        if unsure and int(exact.max()) >= 2**53:
            _refuse_rows(a, b, c, exact, 2**53, "a product over a count")
        return np.asarray(exact)
    estimate = np.floor(a.astype(np.float64) * b.astype(np.float64) / c.astype(np.float64))
    if unsure and float(estimate.max()) >= 2**52:
        _refuse_rows(a, b, c, estimate, 2**53, "a product over a count")
    q = estimate.astype(i64)
    au, bu, cu = a.astype(np.uint64), b.astype(np.uint64), c.astype(np.uint64)
    for _ in range(4):
        remainder = (au * bu - q.astype(np.uint64) * cu).view(i64)
        low = remainder < 0
        high = remainder >= c
        if not (low.any() or high.any()):
            return np.asarray(q)
        q = q - low + high
    raise AssertionError("muldiv_floor did not converge")  # pragma: no cover


# Days since 1970-01-01 <-> (year, month, day) in integer arithmetic (H. Hinnant's
# "chrono-compatible low-level date algorithms"): numpy's datetime64 unit casts cost
# about 70 ns a value; these cost a few.


def civil_from_days(days: Any) -> tuple[ndarray, ndarray, ndarray]:
    """(year, month 1-12, day 1-31) of each day number (from :func:`_date_tables` for a
    column within its years: three look-ups instead of about twenty operations)."""
    tables = _tables_for(days, _TABLE_FIRST_DAY, _TABLE_LAST_DAY)
    if tables is not None:
        at = days - _TABLE_FIRST_DAY
        return tables.year.take(at), tables.month.take(at), tables.day.take(at)
    return _civil_arithmetic(days)


def _civil_arithmetic(days: Any) -> tuple[ndarray, ndarray, ndarray]:
    import numpy as np

    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = np.where(mp < 10, mp + 3, mp - 9)
    year = yoe + era * 400 + (month <= 2)
    return year, month, day


def days_from_civil(year: Any, month: Any, day: Any) -> ndarray:
    """Day number of each (year, month, day); the day must exist."""
    import numpy as np

    tables = _tables_for(year, _TABLE_FIRST_YEAR, _TABLE_LAST_YEAR)
    if tables is not None:
        return np.asarray(tables.month_first.take(_month_index(year, month)) + (day - 1))
    return _days_arithmetic(year, month, day)


def _days_arithmetic(year: Any, month: Any, day: Any) -> ndarray:
    import numpy as np

    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * np.where(month > 2, month - 3, month + 9) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return np.asarray(era * 146097 + doe - 719468)


#: Days in month m beyond 28, two bits per month (m = 1..12: 3, 0, 3, 2, 3, 2, 3, 3, 2, 3,
#: 2, 3): shifts instead of a table look-up.
_MONTH_EXTRA_BITS = 0x3BBEECC


def days_in_month(year: Any, month: Any) -> ndarray:
    import numpy as np

    tables = _tables_for(year, _TABLE_FIRST_YEAR, _TABLE_LAST_YEAR)
    if tables is not None:
        return np.asarray(tables.month_days.take(_month_index(year, month)))
    return _month_days_arithmetic(year, month)


def _month_days_arithmetic(year: Any, month: Any) -> ndarray:
    import numpy as np

    leap = ((year & 3) == 0) & ((year % 100 != 0) | (year % 400 == 0))
    extra = (_MONTH_EXTRA_BITS >> (2 * month)) & 3
    return np.asarray(28 + extra + ((month == 2) & leap))


# The same three conversions as look-ups in tables over the years every date of the
# runner lies in (core.inputs.MIN_DATE to MAX_DATE, 1900-2199), built once from the
# arithmetic above: a column of day numbers (or years) within them is converted by
# indexing (about a sixth of the arithmetic's time on 65,536 rows); any other value
# (a sentinel day, a scalar, a short column) by the arithmetic. Exhaustively equal:
# tests/core/test_rules.py.
_TABLE_FIRST_YEAR, _TABLE_LAST_YEAR = 1900, 2199
_TABLE_FIRST_DAY = -25567  # 1900-01-01
_TABLE_LAST_DAY = 84005  # 2199-12-31
#: columns shorter than this are converted by the arithmetic (a table's two reductions
#: would cost more than they save)
_TABLE_MIN_SIZE = 64


class _DateTables(NamedTuple):
    year: Any  # day number - _TABLE_FIRST_DAY -> year, month, day (int64)
    month: Any
    day: Any
    month_first: Any  # (year - _TABLE_FIRST_YEAR) x 12 + month - 1 -> its first day
    month_days: Any  # ... -> its number of days
    month_year: Any  # ... -> its year
    month_number: Any  # ... -> its month 1-12
    month_end: Any  # day number - _TABLE_FIRST_DAY -> its month's last day (a day number)


_DATE_TABLES: list[_DateTables] = []


def _date_tables() -> _DateTables:
    if not _DATE_TABLES:
        import numpy as np

        days = np.arange(_TABLE_FIRST_DAY, _TABLE_LAST_DAY + 1, dtype=np.int64)
        year, month, day = _civil_arithmetic(days)
        years = np.repeat(np.arange(_TABLE_FIRST_YEAR, _TABLE_LAST_YEAR + 1, dtype=np.int64), 12)
        months = np.tile(np.arange(1, 13, dtype=np.int64), len(years) // 12)
        first = _days_arithmetic(years, months, np.ones_like(years))
        last = _days_arithmetic(years, months, _month_days_arithmetic(years, months))
        ends = last.take(_month_index(year, month))
        tables = _DateTables(year, month, day, first, last - first + 1, years, months, ends)
        _DATE_TABLES.append(tables)
    return _DATE_TABLES[0]


def _tables_for(values: Any, low: int, high: int) -> _DateTables | None:
    """The tables, if ``values`` is an int64 column within [low, high]; else None."""
    import numpy as np

    if not (isinstance(values, np.ndarray) and values.dtype == np.int64):
        return None
    if values.size < _TABLE_MIN_SIZE or values.min() < low or values.max() > high:
        return None
    return _date_tables()


def _month_index(year: Any, month: Any) -> Any:
    return (year - _TABLE_FIRST_YEAR) * 12 + (month - 1)


def _scaled(value: Any, den: int) -> Any:
    """A fraction constant as a numerator over ``den``, exactly; a column of whole counts
    (an array beside a :class:`Ratio`: months, say) times ``den``."""
    if not isinstance(value, (Decimal, Fraction, int)):
        return value * den
    scaled = Fraction(value) * den
    if scaled.denominator != 1:
        raise ValueError(f"{value} is not a whole number of 1/{den}")
    return int(scaled)


def _zero_constant(x: Any) -> bool:
    """0 as a constant: a Python int or a 0-d int64 array (a share of the constant 0)."""
    if isinstance(x, int):
        return not isinstance(x, bool) and x == 0
    return getattr(x, "ndim", None) == 0 and x.dtype == "int64" and x == 0


def _int64_column(x: Any) -> bool:
    return getattr(x, "ndim", 0) >= 1 and x.dtype == "int64"


class Int64(Rules):
    """Many cases at once: int64 cents, :class:`Ratio` fractions, day numbers.

    Each operation is one or a few numpy operations over whole columns; the results are
    exact to the cent (every rounding is a floor of a non-negative rational done in
    integers, :func:`mul_frac`, :func:`muldiv_floor`). The caller keeps every value within
    the bounds that keep sums and products inside int64 (the runner's limits).

    No operation changes an array in place, and a result may be an operand itself (a
    column plus or minus the constant 0): a kernel does not change in place an array it
    gave a rule or got from one, except arrays of its own.
    """

    def __init__(self) -> None:
        import numpy

        self.np = numpy
        #: (day numbers, their (year, month, day)) of the last few dates computed or
        #: converted: a date rule converts each column of day numbers once. Keyed by the
        #: array itself (identity); no operation changes an array in place.
        self._civil_memo: list[tuple[Any, tuple[Any, Any, Any]]] = []
        #: (a fraction column's numerators, their largest) of the last few shares: a
        #: rule applies one fraction to amount after amount (a grant percentage to each
        #: year's withholdings); the same identity key as ``_civil_memo``
        self._max_memo: list[tuple[Any, int]] = []

    def _civil(self, days: Any) -> tuple[Any, Any, Any]:
        for key, parts in self._civil_memo:
            if key is days:
                return parts
        parts = civil_from_days(days)
        self._remember(days, parts)
        return parts

    def _remember(self, days: Any, parts: tuple[Any, Any, Any]) -> None:
        self._civil_memo = [(days, parts), *self._civil_memo[:5]]

    # ---------------------------------------------------------------- operands
    def _m(self, x: Any) -> Any:
        """A money (or count, or date) operand: arrays as they are, constants converted."""
        if isinstance(x, self.np.ndarray):  # the common case, first
            return x
        if isinstance(x, Ratio):
            raise TypeError("a fraction where money is expected")
        if isinstance(x, dt.date):
            return (x - _EPOCH).days
        if isinstance(x, (Decimal, Fraction)):
            return _cents(x)
        return x

    @staticmethod
    def _ratio(p: Any) -> tuple[Any, int]:
        if isinstance(p, Ratio):
            return p.num, p.den
        fraction = Fraction(p)
        return fraction.numerator, fraction.denominator

    # ---------------------------------------------------------------- money
    def share(self, a: V, p: V, label: str = "", cite: str = "") -> V:
        num, den = self._ratio(p)
        return mul_frac(self._m(a), num, den, self._largest(num))

    def _largest(self, num: Any) -> int | None:
        """``max(num)`` of a column of numerators, remembered by identity; None for any
        other operand (:func:`mul_frac` computes it)."""
        if not (isinstance(num, self.np.ndarray) and num.size):
            return None
        for key, largest in self._max_memo:
            if key is num:
                return largest
        largest = int(num.max())
        self._max_memo = [(num, largest), *self._max_memo[:3]]
        return largest

    def times(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        if isinstance(a, Ratio):  # a quantity (hours) x a whole count: exact
            _fits(a.num, n, 2**63, "a quantity times a count")
            return Ratio(a.num * n, a.den)
        money = self._m(a)
        _fits(money, n, 2**63, "an amount times a count")
        return money * n

    def div(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        return self._m(a) // self.np.maximum(n, 1)

    def muldiv(self, a: V, n: V, d: V, label: str = "", cite: str = "") -> V:
        n, d = self._counts(n, d)
        return muldiv_floor(self._m(a), self._m(n), self.np.maximum(self._m(d), 1))

    def _counts(self, n: V, d: V) -> tuple[Any, Any]:
        """Two counts as plain numerators (fractions over one denominator: theirs)."""
        if isinstance(n, Ratio) or isinstance(d, Ratio):
            (n, d), _ = self._fractions((n, d))
        return n, d

    def per_unit(self, n: V, rate: V, label: str = "", cite: str = "") -> V:
        if isinstance(n, Ratio):  # floor(num x rate / den): den x rate stays in int64
            return mul_frac(n.num, self._m(rate), n.den)
        return self.np.asarray(n) * self._m(rate)

    def quotient(self, n: V, d: V, places: int, label: str = "", cite: str = "") -> V:
        """``Ratio(q, 10^places)``: ``q = round_half_even(n x 10^places / d)``, exactly."""
        np = self.np
        i64 = np.dtype(np.int64)
        num, den = self._counts(n, d)
        num, den = np.asarray(num, i64), np.asarray(den, i64)
        scale = 10**places
        safe = np.maximum(den, 1)
        q = muldiv_floor(num, np.full_like(num, scale), safe)
        # the exact remainder n x 10^places - q x d (in [0, d)), computed modulo 2^64
        remainder = (
            num.astype(np.uint64) * np.uint64(scale) - q.astype(np.uint64) * safe.astype(np.uint64)
        ).view(i64)
        twice = 2 * remainder
        q = q + ((twice > safe) | ((twice == safe) & (q % 2 == 1)))
        return Ratio(np.where(num == 0, 0, q), scale)

    def count(self, conds: Iterable[V], label: str = "", cite: str = "") -> V:
        np = self.np
        result: Any = 0
        for cond in conds:
            cond = np.asarray(cond)
            if isinstance(result, np.ndarray) and result.shape == cond.shape:
                np.add(result, cond, out=result)  # its own array (made below): one pass
            else:
                result = result + cond.astype(np.int64)
        return result

    def _fractions(self, xs: Sequence[V]) -> tuple[list[Any], int]:
        """Fraction operands as numerators over one denominator (theirs; constants scaled):
        the step of every operation on two or more values of which one is a
        :class:`Ratio` (add, sub, min, max, where, the comparisons, a quotient's counts)."""
        den = next(x.den for x in xs if isinstance(x, Ratio))
        nums = []
        for x in xs:
            if isinstance(x, Ratio) and x.den != den:
                raise ValueError("fractions over different denominators")
            nums.append(x.num if isinstance(x, Ratio) else _scaled(x, den))
        return nums, den

    def add(self, *xs: V, label: str = "", cite: str = "") -> V:
        if any(isinstance(x, Ratio) for x in xs):  # fractions (1 + a rate, say)
            nums, den = self._fractions(xs)
            return Ratio(sum(nums[1:], nums[0]), den)
        terms = [self._m(x) for x in xs]
        others = [t for t in terms if not _zero_constant(t)]
        if len(others) == 1 and _int64_column(others[0]):  # a column plus 0: itself
            return others[0]
        result = terms[0]
        for term in terms[1:]:
            result = result + term
        return result

    def sub(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        if isinstance(a, Ratio) or isinstance(b, Ratio):
            (left, right), den = self._fractions((a, b))
            return Ratio(left - right, den)
        left, right = self._m(a), self._m(b)
        if _int64_column(left) and _zero_constant(right):  # a column minus 0: itself
            return left
        return left - right

    def min(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return self._pick(self.np.minimum, a, b)

    def max(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return self._pick(self.np.maximum, a, b)

    def _pick(self, extreme: Callable[[Any, Any], Any], a: V, b: V) -> V:
        """``extreme`` (numpy's minimum or maximum) of two money, count or fraction columns."""
        if isinstance(a, Ratio) or isinstance(b, Ratio):
            (left, right), den = self._fractions((a, b))
            return Ratio(extreme(left, right), den)
        return extreme(self._m(a), self._m(b))

    def where(self, cond: V, a: V, b: V, label: str = "", cite: str = "") -> V:
        if isinstance(a, Ratio) or isinstance(b, Ratio):
            (num_a, num_b), den = self._fractions((a, b))
            return Ratio(select(cond, num_a, num_b), den)
        return select(cond, self._m(a), self._m(b))

    # ---------------------------------------------------------------- conditions
    def _compare(self, op: str, a: V, b: V, label: str, cite: str) -> V:
        if isinstance(a, Ratio) or isinstance(b, Ratio):
            (left, right), _ = self._fractions((a, b))
            return OPS[op](left, right)
        return OPS[op](self._m(a), self._m(b))

    def whole(self, x: V, label: str = "", cite: str = "") -> V:
        if isinstance(x, Ratio):
            return x.num % x.den == 0
        return self.np.ones(self.np.shape(x), bool)

    def both(self, *conds: V, label: str = "", cite: str = "") -> V:
        result = conds[0]
        for cond in conds[1:]:
            result = result & cond
        return result

    def either(self, *conds: V, label: str = "", cite: str = "") -> V:
        result = conds[0]
        for cond in conds[1:]:
            result = result | cond
        return result

    def not_(self, cond: V, label: str = "", cite: str = "") -> V:
        return ~cond

    def fiscal_year(
        self, day: V, start_month: int, name: str = "fiscal year", label: str = "", cite: str = ""
    ) -> V:
        year, month, _ = self._civil(self._m(day))
        return year + (month >= start_month) if start_month > 1 else year

    def month_start(self, day: V, label: str = "", cite: str = "") -> V:
        days = self._m(day)
        year, month, dom = self._civil(days)
        result = days - dom + 1
        self._remember(result, (year, month, self.np.ones_like(dom)))
        return result

    def month_end(self, day: V, label: str = "", cite: str = "") -> V:
        days = self._m(day)
        year, month, dom = self._civil(days)
        tables = _tables_for(days, _TABLE_FIRST_DAY, _TABLE_LAST_DAY)
        if tables is not None:  # a look-up of the month's last day
            result = tables.month_end.take(days - _TABLE_FIRST_DAY)
            self._remember(result, (year, month, result - days + dom))
            return result
        last = days_in_month(year, month)
        result = days - dom + last
        self._remember(result, (year, month, last))
        return result

    def add_months(self, day: V, months: int, label: str = "", cite: str = "") -> V:
        np = self.np
        year, month, dom = self._civil(self._m(day))
        # the month reached, counted from January 1900 (the date tables' first month)
        at = year * 12 + (month - 1 + months - _TABLE_FIRST_YEAR * 12)
        tables = _tables_for(at, 0, (_TABLE_LAST_YEAR - _TABLE_FIRST_YEAR + 1) * 12 - 1)
        if tables is not None:  # look-ups: its year, month, first day and length
            later, month = tables.month_year.take(at), tables.month_number.take(at)
            if int(np.max(dom)) > 28:  # a day that a shorter month lacks
                dom = np.minimum(dom, tables.month_days.take(at))
            result = tables.month_first.take(at) + (dom - 1)
            self._remember(result, (later, month, dom))
            return result
        later, month0 = np.divmod(year * 12 + month - 1 + months, 12)
        month = month0 + 1
        if np.size(dom) and int(np.max(dom)) > 28:  # a day that a shorter month lacks
            dom = np.minimum(dom, days_in_month(later, month))
        result = days_from_civil(later, month, dom)
        self._remember(result, (later, month, dom))
        return result

    def add_days(self, day: V, days: int, label: str = "", cite: str = "") -> V:
        return self._m(day) + days

    # ---------------------------------------------------------------- figures of law
    def law(self, param: Parameter[Any], at: V = None, as_of: V = None) -> V:
        """The figure per row (:meth:`_version_of`). Money in cents, fractions a
        :class:`Ratio` over the versions' common denominator, dates day numbers."""
        versions = param.versions
        if len(versions) == 1:
            return versions[0].value
        fractions = param.kind == "fraction"
        den = math.lcm(*(Fraction(v.value).denominator for v in versions)) if fractions else 1

        def scaled(value: Any) -> Any:
            return _scaled(value, den) if fractions else self._m(value)

        result = self._version_of(param, at, as_of, [scaled(v.value) for v in versions])
        return Ratio(result, den) if fractions else result

    def applied(
        self, statute: str, reads: Iterable[tuple[Parameter[Any], V]], as_of: V = None
    ) -> V:
        """The act applied per row, as its code (its position in
        :func:`~.parameters.act_order`): the largest of the codes of the acts whose
        versions the figures ``reads`` take (:meth:`_version_of`), 0 (the first act
        modelled) where none was amended. One code for every row (an int) while the
        figures read have one version each."""
        order = act_order(statute)
        code: Any = 0
        for param, at in reads:
            codes = [order.index(v.act) for v in param.versions]
            chosen = self._version_of(param, at, as_of, codes)
            if isinstance(chosen, int) and isinstance(code, int):
                code = max(code, chosen)
            else:
                code = self.np.maximum(code, chosen)
        return code

    def _version_of(self, param: Parameter[Any], at: V, as_of: V, values: Sequence[Any]) -> Any:
        """``values[i]`` (one per version of ``param``, in this evaluator's units) of the
        version that applies per row: the versions in
        :meth:`~.parameters.Parameter.version`'s order, each later one replacing the value
        where its act is known on ``as_of`` (day numbers; None or a day number at or past
        the act: known) and ``at`` (day numbers) is on or after its first date."""
        versions = param.versions
        if len(versions) == 1:
            return values[0]
        np = self.np
        days = None if at is None else self._m(at)
        known = None if as_of is None else self._m(as_of)
        result: Any = values[0]
        for v, value in zip(versions[1:], values[1:], strict=True):
            applies: Any = True
            if days is not None and v.applies_from is not None:
                applies = days >= (v.applies_from - _EPOCH).days
            if known is not None:
                applies = applies & (known >= (v.act.date - _EPOCH).days)
            if isinstance(applies, bool):  # one date for every row
                result = value if applies else result
            else:
                result = np.where(applies, value, result)
        return result
