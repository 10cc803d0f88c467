"""One text per rule: a small rule language and the evaluators that run it.

A rule of law is written once, in its statute's module, as a plain Python function whose
first argument is an evaluator ``r`` and whose every computation is one of ``r``'s
operations. Three evaluators run the same function:

- :data:`EXACT` (:class:`Exact`): ``Decimal`` money, exact fractions, ``datetime.date``;
  the amounts path of the core. It records nothing.
- :class:`Explain`: the same exact arithmetic, with each value carrying its arithmetic;
  every operation given a ``label`` becomes an explanation :class:`~.common.Step` (figure,
  arithmetic, citation). Only the steps the results depend on are kept (a branch not
  taken by :meth:`Rules.where` explains nothing). Run only when steps are asked for; even
  then a value's arithmetic text is built only when a kept step shows it, and the steps
  a result depends on are found once, at the end, from the results back.
- :class:`Int64`: many rows at once, over numpy arrays: money in int64 cents, fractions
  as :class:`Ratio` (integer numerators over one denominator), dates as day numbers since
  1970-01-01 (the scenario runner). numpy is imported only when it is constructed, so the
  exact path stays import-light (xlwings Lite, Pyodide).

How to write a rule
-------------------
::

    def annual_grant_rule(r: Rules, withholdings: V, pct: V) -> V:
        return r.share(withholdings, pct, label="Annual grant", cite=CITE_A)

    EXACT.run(annual_grant_rule, Decimal("1000000.00"), Decimal("0.5"))  # 500000.00
    explain(annual_grant_rule, Decimal("1000000.00"), Decimal("0.5"))    # (result, steps)
    Int64().run(annual_grant_rule, cents_array, Ratio(pct_array, 10**9))  # int64 cents

Rules for the text:

- Every computation goes through ``r`` (``share``, ``times``, ``div``, ``muldiv``,
  ``add``, ``sub``, ``total``, ``min``, ``max``, ``where``, comparisons, ``whole``,
  ``both``, ``either``, ``not_``, ``count``, ``per_unit``, ``quotient``, ``discount``
  (exact evaluators only), ``given``, ``quantity``, ``fiscal_year``,
  ``month_start``, ``month_end``, ``add_months``, ``add_days``); never Python
  arithmetic, ``if`` on a value, or
  ``min``/``max`` builtins on values: under :class:`Int64` a value is a whole column.
  Python loops over a fixed structure (the years of a term) are fine.
- Constants are the law module's named figures (``Decimal`` money or fractions,
  ``Fraction``, ``datetime.date``, ``int`` counts): never retype a figure. A ``Decimal``
  in a money position is money; in ``share`` or compared with a fraction it is a
  fraction. Integer 0 is zero in any position.
- Give ``label`` (and ``cite``, the subsection) to each operation whose figure an
  accountant should see as a step; unlabelled operations show inside the arithmetic of
  the labelled one that uses them.
- Input checking (``InputError``) stays outside the rule, in the law function that parses
  the arguments; a rule may compute a condition (e.g. "within the bounds") that the law
  function turns into an error and the runner into a mask.
"""

from __future__ import annotations

import calendar
import datetime as dt
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from decimal import ROUND_DOWN, Decimal, localcontext
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from nj_incentives.law.common import Step, fmt_money, fmt_number, fmt_pct
from nj_incentives.law.parameters import Parameter

if TYPE_CHECKING:  # numpy is imported at run time only by the int64 evaluator
    from numpy import ndarray

__all__ = [
    "EXACT",
    "ZERO",
    "Exact",
    "Explain",
    "Int64",
    "Ratio",
    "Rules",
    "Term",
    "V",
    "civil_from_days",
    "days_from_civil",
    "days_in_month",
    "explain",
    "mul_frac",
    "muldiv_floor",
]

#: A value in a rule: Decimal / Fraction / int / bool / date (exact), a :class:`Term`
#: (explaining), or an int64 / bool numpy array or :class:`Ratio` (Int64).
V: TypeAlias = Any

_CENT = Decimal("0.01")
_EPOCH = dt.date(1970, 1, 1)


class Ratio(NamedTuple):
    """A fraction column for :class:`Int64`: ``num / den`` (``num`` an int64 array or int)."""

    num: Any
    den: int


# =========================================================================== the operations


class Rules:
    """The operations a rule is written in (see the module docstring).

    ``label``: the step's text (the operation becomes an explanation step);
    ``cite``: its citation. Both are ignored except by :class:`Explain`.
    """

    def run(self, rule: Callable[..., Any], *args: Any) -> Any:
        """``rule(self, *args)``."""
        return rule(self, *args)

    # money
    def share(self, a: V, p: V, label: str = "", cite: str = "") -> V:
        """``a`` x fraction ``p``, rounded down to the cent."""
        raise NotImplementedError

    def times(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        """Money ``a`` x a whole count ``n`` (exact)."""
        raise NotImplementedError

    def div(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        """Money ``a`` / a count ``n`` >= 1, rounded down to the cent."""
        raise NotImplementedError

    def muldiv(self, a: V, n: V, d: V, label: str = "", cite: str = "") -> V:
        """Money ``a`` x ``n`` / ``d`` (counts or money, ``d`` > 0), rounded down to the cent.
        Where ``n`` is 0 the result is 0, ``d`` 0 included (0 x a / 0: nothing to share)."""
        raise NotImplementedError

    def per_unit(self, n: V, rate: V, label: str = "", cite: str = "") -> V:
        """Money ``rate`` for each of ``n`` units (a count, possibly fractional), rounded
        down to the cent."""
        raise NotImplementedError

    def quotient(self, n: V, d: V, places: int, label: str = "", cite: str = "") -> V:
        """The fraction ``n`` / ``d`` (counts, ``0 <= n <= d``) to ``places`` decimal places,
        half to even (a reported ratio); 0 where ``n`` is 0, ``d`` 0 included."""
        raise NotImplementedError

    def count(self, conds: Iterable[V], label: str = "", cite: str = "") -> V:
        """How many of ``conds`` hold (a whole count)."""
        raise NotImplementedError

    def discount(
        self, a: V, p: V, rate: V, years: V, digits: int, label: str = "", cite: str = ""
    ) -> V:
        """Money ``a`` x fraction ``p`` discounted to present value, / (1 + ``rate``) ^
        ``years`` (a yearly rate; years possibly fractional), carried to ``digits``
        significant digits, rounded down to the cent. Exact evaluators only (a power)."""
        raise NotImplementedError

    def add(self, *xs: V, label: str = "", cite: str = "") -> V:
        raise NotImplementedError

    def sub(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        raise NotImplementedError

    def total(self, xs: Iterable[V], label: str = "", cite: str = "") -> V:
        """The sum of ``xs`` (0 for none)."""
        items = list(xs)
        if not items:
            return self.add(0, 0, label=label, cite=cite)
        if len(items) == 1:
            return self.add(items[0], 0, label=label, cite=cite)
        return self.add(*items, label=label, cite=cite)

    def min(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        raise NotImplementedError

    def max(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        raise NotImplementedError

    def where(self, cond: V, a: V, b: V, label: str = "", cite: str = "") -> V:
        """``a`` where ``cond`` holds, else ``b``."""
        raise NotImplementedError

    # comparisons (money, counts, fractions, dates) and logic
    def ge(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return self._compare(">=", a, b, label, cite)

    def gt(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return self._compare(">", a, b, label, cite)

    def le(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return self._compare("<=", a, b, label, cite)

    def lt(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return self._compare("<", a, b, label, cite)

    def eq(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return self._compare("==", a, b, label, cite)

    def _compare(self, op: str, a: V, b: V, label: str, cite: str) -> V:
        raise NotImplementedError

    def whole(self, x: V, label: str = "", cite: str = "") -> V:
        """``x`` (a count, possibly fractional) is a whole number."""
        raise NotImplementedError

    def both(self, *conds: V, label: str = "", cite: str = "") -> V:
        """All of ``conds`` hold."""
        raise NotImplementedError

    def either(self, *conds: V, label: str = "", cite: str = "") -> V:
        """Any of ``conds`` holds."""
        raise NotImplementedError

    def not_(self, cond: V, label: str = "", cite: str = "") -> V:
        raise NotImplementedError

    def subtotal(self, x: V) -> V:
        """``x`` unchanged; in later arithmetic an explanation shows its figure, not how it
        was summed (a running total)."""
        return x

    def given(self, x: V, label: str = "", cite: str = "") -> V:
        """``x`` unchanged: an input the law asks about (e.g. a yes/no fact), shown as a
        step with its figure when labelled."""
        return x

    def quantity(self, x: V) -> V:
        """``x`` unchanged: a quantity that is not money (hours, positions), shown as a
        number; sums of quantities are quantities."""
        return x

    # figures of law (law.parameters)
    def law(self, param: Parameter[Any], at: V = None, as_of: V = None) -> V:
        """The figure ``param`` at the date ``at`` (the calculation's own date, by the
        figure's selector) under the law as of ``as_of`` (None: every modelled act):
        :meth:`~.parameters.Parameter.at`, per row under :class:`Int64`."""
        return param.at(at, as_of)

    def figure(self, param: Parameter[Any], value: V) -> str:
        """``value`` (read by :meth:`law`) as a label shows it ("$50,000"): only the
        explaining evaluator builds it; the others ignore labels and get ""."""
        return ""

    # dates
    def fiscal_year(
        self, day: V, start_month: int, name: str = "fiscal year", label: str = "", cite: str = ""
    ) -> V:
        """The number of the fiscal year containing ``day``, a year that begins on the 1st of
        ``start_month`` and is numbered by the calendar year in which it ends (``name``: what
        an explanation calls it, e.g. "State fiscal year")."""
        raise NotImplementedError

    def month_start(self, day: V, label: str = "", cite: str = "") -> V:
        """The 1st of ``day``'s month."""
        raise NotImplementedError

    def month_end(self, day: V, label: str = "", cite: str = "") -> V:
        """The last day of ``day``'s month."""
        raise NotImplementedError

    def add_months(self, day: V, months: int, label: str = "", cite: str = "") -> V:
        """``day`` moved by ``months`` calendar months (a shorter month's last day where the
        day does not exist in it)."""
        raise NotImplementedError

    def add_days(self, day: V, days: int, label: str = "", cite: str = "") -> V:
        """``day`` moved by ``days`` days."""
        raise NotImplementedError


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
    "==": lambda a, b: a == b,
}


def _cents_down(amount: Decimal) -> Decimal:
    return amount.quantize(_CENT, rounding=ROUND_DOWN)


def _exact_share(a: Decimal, p: Decimal | Fraction | int) -> tuple[Decimal, Decimal | Fraction]:
    """(``cents_down(a x p)``, the exact product)."""
    if isinstance(p, Fraction):
        exact = Fraction(a) * p
        cents = math.floor(exact * 100)
        return (Decimal(cents) / 100).quantize(_CENT), exact
    product = a * p
    return _cents_down(product), product


def _discounted(value: Decimal, rate: Decimal, years: Decimal, digits: int) -> Decimal:
    """``value / (1 + rate) ** years`` carried to ``digits`` significant digits."""
    with localcontext() as context:
        context.prec = digits
        return value / (1 + rate) ** years


def _places(value: Fraction, places: int) -> Decimal:
    """An exact fraction to ``places`` decimal places, half to even."""
    return Decimal(round(value * 10**places)).scaleb(-places)


def _months_later(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 + months
    year, month0 = divmod(index, 12)
    last = calendar.monthrange(year, month0 + 1)[1]
    return dt.date(year, month0 + 1, min(day.day, last))


def _money(value: Any) -> Any:
    """Money as ``Decimal`` (a whole number given as ``int`` converted; others unchanged)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value).quantize(_CENT)
    return value


# =========================================================================== exact


class Exact(Rules):
    """Exact arithmetic on one case: the amounts path (records nothing)."""

    def share(self, a: V, p: V, label: str = "", cite: str = "") -> V:
        if type(p) is Decimal and type(a) is Decimal:  # the common case, directly
            return (a * p).quantize(_CENT, rounding=ROUND_DOWN)
        return _exact_share(_money(a), p)[0]

    def times(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        return _money(a) * n

    def div(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        return _exact_share(_money(a), Fraction(1, n))[0]

    def muldiv(self, a: V, n: V, d: V, label: str = "", cite: str = "") -> V:
        if n == 0:
            return ZERO
        return _exact_share(_money(a), Fraction(n) / Fraction(d))[0]

    def per_unit(self, n: V, rate: V, label: str = "", cite: str = "") -> V:
        return _exact_share(_money(rate), Fraction(n))[0]

    def quotient(self, n: V, d: V, places: int, label: str = "", cite: str = "") -> V:
        return _places(Fraction(n) / Fraction(d) if n != 0 else Fraction(0), places)

    def count(self, conds: Iterable[V], label: str = "", cite: str = "") -> V:
        return sum(1 for cond in conds if cond)

    def discount(
        self, a: V, p: V, rate: V, years: V, digits: int, label: str = "", cite: str = ""
    ) -> V:
        return _cents_down(_discounted(_money(a) * p, rate, years, digits))

    def add(self, *xs: V, label: str = "", cite: str = "") -> V:
        result = xs[0]
        for x in xs[1:]:
            result = result + x
        return result if type(result) is Decimal else _money(result)

    def sub(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return _money(a - b)

    def min(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return _money(b if b < a else a)

    def max(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        return _money(b if b > a else a)

    def where(self, cond: V, a: V, b: V, label: str = "", cite: str = "") -> V:
        return a if cond else b

    def _compare(self, op: str, a: V, b: V, label: str, cite: str) -> V:
        return bool(_OPS[op](a, b))

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
        return day.replace(day=calendar.monthrange(day.year, day.month)[1])

    def add_months(self, day: V, months: int, label: str = "", cite: str = "") -> V:
        return _months_later(day, months)

    def add_days(self, day: V, days: int, label: str = "", cite: str = "") -> V:
        return day + dt.timedelta(days=days)


#: Zero dollars, for a running total's start.
ZERO = Decimal("0.00")

#: The exact evaluator (stateless: one is enough).
EXACT = Exact()


# =========================================================================== explaining


#: A text in the making: the text itself, or a function that builds it when first read.
_Text: TypeAlias = "str | Callable[[], str] | None"


class Term:
    """A value under :class:`Explain`: the figure, its arithmetic, and what it depends on.

    The arithmetic (``text``) is built only when read: most of a rule's intermediate
    values end inside a running total (:meth:`Rules.subtotal`), a branch not taken or an
    unexplained result, and their text is never shown. The steps a value depends on are
    found once, at the end (:func:`explain`), by walking ``args`` from the results.
    """

    __slots__ = ("_text", "args", "atomic", "kind", "linked", "seq", "step", "value")

    def __init__(
        self,
        value: Any,
        text: _Text,
        atomic: bool,
        args: tuple[Term, ...] = (),
        step: _Pending | None = None,
        seq: int = 0,
        kind: str = "money",
        linked: bool | None = None,
    ) -> None:
        self.value = value
        #: how the value is shown inside a larger expression: a string, a function that
        #: builds it, or None (the figure itself, shown as ``kind``: :func:`_show`)
        self._text = text
        #: True when ``text`` needs no parentheses inside a product or difference
        self.atomic = atomic
        #: the terms it was computed from (the steps it depends on are reached through them)
        self.args = args
        self.step = step
        self.seq = seq
        self.kind = kind
        #: whether any labelled term (itself included) is reachable: a step depends on it
        if linked is None:
            linked = step is not None
            if not linked:
                for arg in args:
                    if arg.linked:
                        linked = True
                        break
        self.linked: bool = linked

    @property
    def text(self) -> str:
        text = self._text
        if text.__class__ is not str:
            text = _show(self.value, self.kind) if text is None else text()  # type: ignore[operator]
            self._text = text
        return text

    @text.setter
    def text(self, text: _Text) -> None:
        self._text = text


class _Pending:
    """A labelled operation's step, made a :class:`~.common.Step` only when an explanation
    collects it (its arithmetic built then)."""

    __slots__ = ("_arithmetic", "cite", "label", "value")

    def __init__(self, label: str, value: Any, cite: str, arithmetic: _Text) -> None:
        self.label = label
        self.value = value
        self.cite = cite
        self._arithmetic = arithmetic

    @property
    def arithmetic(self) -> str:
        text = self._arithmetic
        if text.__class__ is not str:
            text = text()  # type: ignore[misc, operator]
            self._arithmetic = text
        return text

    def build(self) -> Step:
        return Step(
            label=self.label, value=self.value, arithmetic=self.arithmetic, citation=self.cite
        )


def _show(value: Any, kind: str) -> str:
    """A leaf figure as an accountant reads it."""
    if value.__class__ is Decimal and kind == "money":  # the common case: dollars
        return f"{value:,.2f}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dt.date):
        return value.isoformat()
    if kind == "fraction":
        if isinstance(value, Fraction) and value.numerator == 1:
            return f"1/{value.denominator}"
        return fmt_pct(value)
    if kind == "count":
        return f"{value:,}" if isinstance(value, int) else fmt_number(value)
    if isinstance(value, Fraction):  # a count of positions, exact
        return fmt_number(value)
    if isinstance(value, int) and value == 0:
        return "0"
    if isinstance(value, (Decimal, int)):
        return fmt_money(value)
    return str(value)


def _rounded(exact: Decimal | Fraction, result: Decimal) -> str:
    """``"= 1,000.00"``, or ``"= 999.9975, rounded down to 999.99"`` when truncation bites."""
    if exact == result:
        return f"= {fmt_money(result)}"
    if isinstance(exact, Fraction):
        shown = Decimal(math.floor(exact * 10**4)) / 10**4
        inexact = shown != exact
    else:
        shown = exact.quantize(Decimal("0.0001"), rounding=ROUND_DOWN)
        inexact = shown != exact
    return f"= {shown:,f}{'...' if inexact else ''}, rounded down to {fmt_money(result)}"


def _arithmetic(value: Any, text: _Text, rounding: _Text, kind: str = "money") -> str:
    """A step's arithmetic: its text and the figure it comes to (or its rounding)."""
    if not isinstance(text, str):
        text = text() if text is not None else ""
    figure = _show(value, kind)
    if isinstance(value, bool):
        return f"{text}: {_show(value, 'bool')}"
    if rounding is None:
        shown = f"= {figure}"
    elif isinstance(rounding, str):
        shown = rounding
    else:
        shown = rounding()
    if text == figure:
        return text
    joint = "" if shown.startswith(":") or not shown else " "
    return f"{text}{joint}{shown}"


def _years(t: Term) -> str:
    """A number of years as a power shows it: to 4 places, "..." where it goes on."""
    value = t.value
    if t.step is None and isinstance(value, Decimal):
        shown = value.quantize(Decimal("0.0001"), rounding=ROUND_DOWN)
        if shown != value:
            return f"{fmt_number(shown)}..."
    return _paren(t)


def _lazy(t: Term) -> _Text:
    """``t``'s text as a text in the making (itself where already built)."""
    text = t._text
    return text if text.__class__ is str else (lambda: t.text)


def _paren(t: Term) -> str:
    return t.text if t.atomic else f"({t.text})"


def _zero(t: Term) -> bool:
    """Whether ``t`` shows as "0" (an amount that adds or takes away nothing)."""
    if t.step is not None:
        return False
    if t._text is None and t.value.__class__ is Decimal and t.kind == "money":
        return False  # a figure in dollars shows with its cents ("0.00"), never as "0"
    return t.text == "0"


_WORDS = {">=": "on or after", ">": "after", "<=": "on or before", "<": "before", "==": "is"}


class Explain(Rules):
    """Exact arithmetic that explains itself: values are :class:`Term`; each labelled
    operation is a step. Use :func:`explain` to run a rule and collect its steps."""

    def __init__(self) -> None:
        self._seq = itertools.count(1)

    # ---------------------------------------------------------------- plumbing
    def _term(self, x: Any, kind: str = "money") -> Term:
        if x.__class__ is Term:
            return x
        return Term(x, None, True, (), kind=kind, linked=False)

    def _make(
        self,
        value: Any,
        text: _Text,
        args: tuple[Term, ...],
        label: str,
        cite: str,
        rounding: _Text = None,
        atomic: bool = False,
        kind: str = "money",
    ) -> Term:
        if not label:
            return Term(value, text, atomic, args, kind=kind)
        arithmetic = partial(_arithmetic, value, text, rounding, kind)
        step = _Pending(label, value, cite, arithmetic)
        return Term(value, None, True, args, step, next(self._seq), kind=kind, linked=True)

    # ---------------------------------------------------------------- money
    def share(self, a: V, p: V, label: str = "", cite: str = "") -> V:
        ta, tp = self._term(a), self._term(p, "fraction")
        fraction = tp.value
        result, exact = _exact_share(_money(ta.value), fraction)
        if not label and fraction == 0 and tp.step is None:  # a basis not used
            return Term(result, "0", True, (ta, tp))
        if isinstance(fraction, Fraction) and fraction.numerator == 1 and tp.step is None:

            def text() -> str:
                return f"{_paren(ta)} / {fraction.denominator}"

        else:

            def text() -> str:
                return f"{_paren(ta)} x {_paren(tp)}"

        return self._rounded(result, exact, text, (ta, tp), label, cite)

    def _rounded(
        self,
        result: Decimal,
        exact: Decimal | Fraction,
        text: Callable[[], str],
        args: tuple[Term, ...],
        label: str,
        cite: str,
    ) -> Term:
        """A product rounded down to the cent: unlabelled, its rounding shown in place."""

        def rounding() -> str:
            return _rounded(exact, result)

        if not label and exact != result:
            return self._make(
                result, lambda: f"({text()} {rounding()})", args, label, cite, atomic=True
            )
        return self._make(result, text, args, label, cite, rounding)

    def times(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        ta, tn = self._term(a, "count" if a.__class__ is int else "money"), self._term(n, "count")
        value = _money(ta.value) * tn.value
        return self._make(value, lambda: f"{_paren(ta)} x {_paren(tn)}", (ta, tn), label, cite)

    def div(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        ta, tn = self._term(a), self._term(n, "count")
        result, exact = _exact_share(_money(ta.value), Fraction(1, tn.value))
        return self._rounded(
            result, exact, lambda: f"{_paren(ta)} / {_paren(tn)}", (ta, tn), label, cite
        )

    def muldiv(self, a: V, n: V, d: V, label: str = "", cite: str = "") -> V:
        ta, tn, td = self._term(a), self._term(n, "count"), self._term(d, "count")
        if tn.value == 0:
            return self._make(ZERO, lambda: f"{_paren(ta)} x 0", (ta, tn, td), label, cite)
        ratio = Fraction(tn.value) / Fraction(td.value)
        result, exact = _exact_share(_money(ta.value), ratio)

        def text() -> str:
            return f"{_paren(ta)} x {_paren(tn)} / {_paren(td)}"

        return self._rounded(result, exact, text, (ta, tn, td), label, cite)

    def per_unit(self, n: V, rate: V, label: str = "", cite: str = "") -> V:
        tn, tr = self._term(n, "count"), self._term(rate)
        result, exact = _exact_share(_money(tr.value), Fraction(tn.value))
        return self._rounded(
            result, exact, lambda: f"{_paren(tn)} x {_paren(tr)}", (tn, tr), label, cite
        )

    def discount(
        self, a: V, p: V, rate: V, years: V, digits: int, label: str = "", cite: str = ""
    ) -> V:
        ta, tp = self._term(a), self._term(p, "fraction")
        trate, tyears = self._term(rate, "fraction"), self._term(years, "count")
        exact = _discounted(_money(ta.value) * tp.value, trate.value, tyears.value, digits)
        result = _cents_down(exact)

        def text() -> str:
            # the rate as the percentage it comes to (not how it was chosen)
            shown = _paren(trate) if trate.step is not None else _show(trate.value, "fraction")
            return f"{_paren(ta)} x {_paren(tp)} / (1 + {shown}) ^ {_years(tyears)}"

        return self._rounded(result, exact, text, (ta, tp, trate, tyears), label, cite)

    def quotient(self, n: V, d: V, places: int, label: str = "", cite: str = "") -> V:
        tn, td = self._term(n, "count"), self._term(d, "count")
        value = EXACT.quotient(tn.value, td.value, places)

        def rounding() -> str:
            exact = Fraction(tn.value) / Fraction(td.value) if tn.value != 0 else Fraction(0)
            shown = fmt_number(value)
            if Fraction(value) == exact:
                return f"= {shown}"
            return f"= {exact} = {shown}... (to {places} places)"

        # 0 / 0 (nothing to divide) shows as 0
        text: _Text = "0" if td.value == 0 else (lambda: f"{_paren(tn)} / {_paren(td)}")
        term = self._make(value, text, (tn, td), label, cite, rounding)
        if term.step is not None:
            term.text = lambda: fmt_number(value)
        return term

    def count(self, conds: Iterable[V], label: str = "", cite: str = "") -> V:
        terms = tuple(self._term(c, "bool") for c in conds)
        value = sum(1 for t in terms if t.value)
        term = self._make(value, str(value), terms, label, cite, kind="count")
        term.text = str(value)
        return term

    def add(self, *xs: V, label: str = "", cite: str = "") -> V:
        if all(x.__class__ is int for x in xs):  # whole counts given: each shown, as a count
            terms = tuple(self._term(x, "count") for x in xs)
            value = EXACT.add(*xs)
            text = lambda: " + ".join(t.text for t in terms)  # noqa: E731
            return self._make(value, text, terms, label, cite, atomic=len(terms) == 1)
        terms = tuple(self._term(x) for x in xs)
        value = EXACT.add(*(t.value for t in terms))
        shown = [t for t in terms if not _zero(t)] or [terms[0]]
        kind = "count" if all(t.kind == "count" for t in shown) else "money"
        if len(shown) == 1:
            return self._make(value, _lazy(shown[0]), terms, label, cite, atomic=True, kind=kind)
        joined = lambda: " + ".join(t.text for t in shown)  # noqa: E731
        return self._make(value, joined, terms, label, cite, kind=kind)

    def sub(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        ta, tb = self._term(a), self._term(b)
        value = EXACT.sub(ta.value, tb.value)
        if _zero(tb):  # nothing taken away
            return self._make(value, _lazy(ta), (ta, tb), label, cite, atomic=ta.atomic)
        return self._make(value, lambda: f"{ta.text} - {_paren(tb)}", (ta, tb), label, cite)

    def min(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        ta, tb = self._term(a), self._term(b)
        value = EXACT.min(ta.value, tb.value)
        text = lambda: f"min({ta.text}, {tb.text})"  # noqa: E731
        return self._make(value, text, (ta, tb), label, cite, atomic=True)

    def max(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        ta, tb = self._term(a), self._term(b)
        value = EXACT.max(ta.value, tb.value)
        if tb.step is None and not tb.linked and tb.value >= 0 and tb.atomic and ta.text == "0":
            # max(0, a given amount): the amount (nothing below zero to show)
            return self._make(value, _lazy(tb), (ta, tb), label, cite, atomic=True)
        text = lambda: f"max({ta.text}, {tb.text})"  # noqa: E731
        return self._make(value, text, (ta, tb), label, cite, atomic=True)

    def where(self, cond: V, a: V, b: V, label: str = "", cite: str = "") -> V:
        tc = self._term(cond, "bool")
        chosen = self._term(a if tc.value else b)
        if not label:  # the chosen value itself, depending on the condition too
            return Term(
                chosen.value,
                chosen._text,
                chosen.atomic,
                (tc, chosen),
                chosen.step,
                chosen.seq,
                chosen.kind,
            )
        if chosen.step is not None:
            pending = chosen.step
            step = _Pending(label, chosen.value, cite, lambda: pending.arithmetic)
            args = (tc, chosen)
            return Term(chosen.value, _lazy(chosen), True, args, step, next(self._seq))
        text, kind = _lazy(chosen), chosen.kind
        return self._make(chosen.value, text, (tc, chosen), label, cite, atomic=True, kind=kind)

    def subtotal(self, x: V) -> V:
        t = self._term(x)
        return Term(t.value, None, True, (t,), t.step, t.seq, linked=t.linked)

    def quantity(self, x: V) -> V:
        return self._term(x, "count")

    def given(self, x: V, label: str = "", cite: str = "") -> V:
        t = self._term(x, "bool" if isinstance(x, bool) else "money")
        if not label:
            return t
        step = _Pending(label, t.value, cite, lambda: t.text)
        return Term(t.value, None, True, (t,), step, next(self._seq), kind=t.kind, linked=True)

    def law(self, param: Parameter[Any], at: V = None, as_of: V = None) -> V:
        day = at.value if at.__class__ is Term else at
        known = as_of.value if as_of.__class__ is Term else as_of
        kind = {"fraction": "fraction", "date": "date"}.get(param.kind, "money")
        if param.kind in ("count", "hours", "days", "year"):
            kind = "count"
        return self._term(param.at(day, known), kind)

    def figure(self, param: Parameter[Any], value: V) -> str:
        return param.show(value.value if value.__class__ is Term else value)

    # ---------------------------------------------------------------- conditions
    def _compare(self, op: str, a: V, b: V, label: str, cite: str) -> V:
        kind = "date" if isinstance(a, dt.date) or isinstance(b, dt.date) else "money"
        ta = self._term(a, "count" if a.__class__ is int else kind)
        tb = self._term(b, "count" if b.__class__ is int else kind)
        if isinstance(ta.value, (Decimal, Fraction)) and not isinstance(tb.value, int):
            fraction = isinstance(tb.value, Fraction) or (
                isinstance(tb.value, Decimal) and tb.value < 1 and ta.value <= 1
            )
            if fraction and tb.step is None:
                tb = Term(tb.value, None, True, (tb,), kind="fraction")
                ta = Term(ta.value, None, True, (ta,), ta.step, ta.seq, kind="fraction")
        value = bool(_OPS[op](ta.value, tb.value))
        word = _WORDS[op] if kind == "date" else op
        return self._make(value, lambda: f"{ta.text} {word} {tb.text}", (ta, tb), label, cite)

    def whole(self, x: V, label: str = "", cite: str = "") -> V:
        t = self._term(x, "count")
        value = EXACT.whole(t.value)
        return self._make(value, f"{t.text} is a whole number", (t,), label, cite)

    def both(self, *conds: V, label: str = "", cite: str = "") -> V:
        terms = tuple(self._term(c, "bool") for c in conds)
        value = all(t.value for t in terms)
        text = lambda: " and ".join(t.text for t in terms)  # noqa: E731
        return self._make(value, text, terms, label, cite)

    def either(self, *conds: V, label: str = "", cite: str = "") -> V:
        terms = tuple(self._term(c, "bool") for c in conds)
        value = any(t.value for t in terms)
        text = lambda: " or ".join(t.text for t in terms)  # noqa: E731
        return self._make(value, text, terms, label, cite)

    def not_(self, cond: V, label: str = "", cite: str = "") -> V:
        t = self._term(cond, "bool")
        return self._make(not t.value, lambda: f"not ({t.text})", (t,), label, cite)

    def fiscal_year(
        self, day: V, start_month: int, name: str = "fiscal year", label: str = "", cite: str = ""
    ) -> V:
        t = self._term(day, "date")
        year = EXACT.fiscal_year(t.value, start_month)

        def text() -> str:
            start = dt.date(year - 1, start_month, 1) if start_month > 1 else dt.date(year, 1, 1)
            end = dt.date(year + (start_month == 1), start_month, 1) - dt.timedelta(days=1)
            return f"{t.text} is in {name} {year} ({start} to {end})"

        term = self._make(year, text, (t,), label, cite, rounding="")
        if term.step is not None:
            term.text = str(year)
        return term

    def month_start(self, day: V, label: str = "", cite: str = "") -> V:
        t = self._term(day, "date")
        value = EXACT.month_start(t.value)
        return self._date(value, lambda: f"the 1st of the month of {t.text}", t, label, cite)

    def month_end(self, day: V, label: str = "", cite: str = "") -> V:
        t = self._term(day, "date")
        value = EXACT.month_end(t.value)
        text = lambda: f"the last day of the month of {t.text}"  # noqa: E731
        return self._date(value, text, t, label, cite)

    def add_months(self, day: V, months: int, label: str = "", cite: str = "") -> V:
        t = self._term(day, "date")
        value = EXACT.add_months(t.value, months)
        sign = "+" if months >= 0 else "-"
        unit = "month" if abs(months) == 1 else "months"
        text = lambda: f"{t.text} {sign} {abs(months)} {unit}"  # noqa: E731
        return self._date(value, text, t, label, cite)

    def add_days(self, day: V, days: int, label: str = "", cite: str = "") -> V:
        t = self._term(day, "date")
        value = EXACT.add_days(t.value, days)
        sign = "+" if days >= 0 else "-"
        unit = "day" if abs(days) == 1 else "days"
        text = lambda: f"{t.text} {sign} {abs(days)} {unit}"  # noqa: E731
        return self._date(value, text, t, label, cite)

    def _date(self, value: dt.date, text: _Text, t: Term, label: str, cite: str) -> Term:
        term = self._make(value, text, (t,), label, cite, rounding=f"= {value}")
        if term.step is None:  # unlabelled: shown as the figure, not the calendar steps
            term.text, term.atomic = None, True
        return term


def explain(
    rule: Callable[..., Any], *args: Any, pick: Callable[[Any], Any] | None = None
) -> tuple[Any, tuple[Step, ...]]:
    """Run ``rule`` with :class:`Explain`: (its results as plain values, the steps they
    depend on, in the order computed). ``pick``: the part of the results to explain
    (default: all of them)."""
    evaluator = Explain()
    result = rule(evaluator, *args)
    roots: list[Term] = []
    values = _plain(result, roots if pick is None else [])
    if pick is not None:
        _plain(pick(result), roots)
    return values, _steps(roots)


def _steps(roots: list[Term]) -> tuple[Step, ...]:
    """The steps of the labelled terms reachable from ``roots``, in the order computed."""
    seen: set[Term] = set()  # terms hash by identity
    found: dict[_Pending, int] = {}
    stack = [t for t in roots if t.linked]
    pop, push, visit = stack.pop, stack.append, seen.add
    while stack:
        t = pop()
        if t in seen:
            continue
        visit(t)
        if t.step is not None:
            found[t.step] = t.seq
        for arg in t.args:
            if arg.linked and arg not in seen:
                push(arg)
    return tuple(pending.build() for pending in sorted(found, key=found.__getitem__))


def _plain(value: Any, found: list[Term]) -> Any:
    """``value`` with every :class:`Term` replaced by its figure; the terms into ``found``."""
    if value.__class__ is Term:
        found.append(value)
        return value.value
    if isinstance(value, tuple):
        return tuple(_plain(v, found) for v in value)
    if isinstance(value, list):
        return [_plain(v, found) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v, found) for k, v in value.items()}
    return value


# =========================================================================== int64 arrays


def mul_frac(a: Any, num: Any, den: int) -> ndarray:
    """``floor(a x num / den)`` exactly, for ``a >= 0``, ``0 <= num`` and ``den x num < 2^63``.

    Where ``max(a) x max(num)`` fits in int64, directly; otherwise, with
    ``a = q x den + r``: ``q x num + floor(r x num / den)``; ``r x num < den x num``.
    """
    import numpy as np

    a = np.asarray(a)
    if not a.size:
        return np.asarray(a.copy())
    if int(a.max()) * int(np.max(num)) < 2**63:  # the product fits: one division
        return np.asarray((a * num) // den)
    q, r = np.divmod(a, den)
    return np.asarray(q * num + (r * num) // den)


def muldiv_floor(a: Any, b: Any, c: Any) -> ndarray:
    """``floor(a x b / c)`` exactly, for ``a, b >= 0``, ``c > 0``, a result below 2^53 and
    ``c < 2^61``, even where ``a x b`` exceeds int64.

    A float64 estimate is within one of the result (relative error < 2^-50); the exact
    remainder ``a x b - q x c`` is small, so computing it modulo 2^64 (uint64
    arithmetic, which wraps by definition) gives its true value; one step fixes ``q``.
    """
    import numpy as np

    # any of the three may be the column (a fixed dollar figure x a column of counts):
    # broadcast them to one shape (issue 19: ``a`` a constant failed)
    a, b, c = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c))
    if a.size == 0:
        return np.asarray(a.copy())
    i64 = np.dtype(np.int64)
    if int(a.max()) * int(b.max()) < 2**63:
        return np.asarray((a * b) // c)
    estimate = np.floor(a.astype(np.float64) * b.astype(np.float64) / c.astype(np.float64))
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
    """(year, month 1-12, day 1-31) of each day number."""
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

    leap = ((year & 3) == 0) & ((year % 100 != 0) | (year % 400 == 0))
    extra = (_MONTH_EXTRA_BITS >> (2 * month)) & 3
    return np.asarray(28 + extra + ((month == 2) & leap))


def _scaled(value: Any, den: int) -> Any:
    """A fraction constant as a numerator over ``den``, exactly; a column of whole counts
    (an array beside a :class:`Ratio`: months, say) times ``den``."""
    if not isinstance(value, (Decimal, Fraction, int)):
        return value * den
    scaled = Fraction(value) * den
    if scaled.denominator != 1:
        raise ValueError(f"{value} is not a whole number of 1/{den}")
    return int(scaled)


class Int64(Rules):
    """Many cases at once: int64 cents, :class:`Ratio` fractions, day numbers.

    Each operation is one or a few numpy operations over whole columns; the results are
    exact to the cent (every rounding is a floor of a non-negative rational done in
    integers, :func:`mul_frac`, :func:`muldiv_floor`). The caller keeps every value within
    the bounds that keep sums and products inside int64 (the runner's limits).
    """

    def __init__(self) -> None:
        import numpy

        self.np = numpy
        #: (day numbers, their (year, month, day)) of the last few dates computed or
        #: converted: a date rule converts each column of day numbers once. Keyed by the
        #: array itself (identity); no operation changes an array in place.
        self._civil_memo: list[tuple[Any, tuple[Any, Any, Any]]] = []

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
        if isinstance(x, Ratio):
            raise TypeError("a fraction where money is expected")
        if isinstance(x, dt.date):
            return (x - _EPOCH).days
        if isinstance(x, (Decimal, Fraction)):
            cents = Fraction(x) * 100
            if cents.denominator != 1:
                raise ValueError(f"{x} is not a whole number of cents")
            return int(cents)
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
        return mul_frac(self._m(a), num, den)

    def times(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        return self._m(a) * n

    def div(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        return self._m(a) // self.np.maximum(n, 1)

    def muldiv(self, a: V, n: V, d: V, label: str = "", cite: str = "") -> V:
        n, d = self._counts(n, d)
        return muldiv_floor(self._m(a), self._m(n), self.np.maximum(self._m(d), 1))

    def _counts(self, n: V, d: V) -> tuple[Any, Any]:
        """Two counts as plain numerators (fractions over one denominator: theirs)."""
        if isinstance(n, Ratio) or isinstance(d, Ratio):
            den = n.den if isinstance(n, Ratio) else d.den
            if isinstance(n, Ratio) and isinstance(d, Ratio) and n.den != d.den:
                raise ValueError("counts over different denominators")
            n = n.num if isinstance(n, Ratio) else _scaled(n, den)
            d = d.num if isinstance(d, Ratio) else _scaled(d, den)
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
        result: Any = 0
        for cond in conds:
            result = result + self.np.asarray(cond).astype(self.np.int64)
        return result

    def _fractions(self, xs: Sequence[V]) -> tuple[list[Any], int]:
        """Fraction operands as numerators over one denominator (theirs; constants scaled)."""
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
        result = self._m(xs[0])
        for x in xs[1:]:
            result = result + self._m(x)
        return result

    def sub(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        if isinstance(a, Ratio) or isinstance(b, Ratio):
            (left, right), den = self._fractions((a, b))
            return Ratio(left - right, den)
        return self._m(a) - self._m(b)

    def min(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        if isinstance(a, Ratio) or isinstance(b, Ratio):
            left, right = self._counts(a, b)
            den = a.den if isinstance(a, Ratio) else b.den
            return Ratio(self.np.minimum(left, right), den)
        return self.np.minimum(self._m(a), self._m(b))

    def max(self, a: V, b: V, label: str = "", cite: str = "") -> V:
        if isinstance(a, Ratio) or isinstance(b, Ratio):
            left, right = self._counts(a, b)
            den = a.den if isinstance(a, Ratio) else b.den
            return Ratio(self.np.maximum(left, right), den)
        return self.np.maximum(self._m(a), self._m(b))

    def where(self, cond: V, a: V, b: V, label: str = "", cite: str = "") -> V:
        if isinstance(a, Ratio) or isinstance(b, Ratio):
            den = a.den if isinstance(a, Ratio) else b.den
            num_a = a.num if isinstance(a, Ratio) else _scaled(a, den)
            num_b = b.num if isinstance(b, Ratio) else _scaled(b, den)
            if isinstance(a, Ratio) and isinstance(b, Ratio) and a.den != b.den:
                raise ValueError("where over fractions of different denominators")
            return Ratio(self.np.where(cond, num_a, num_b), den)
        return self.np.where(cond, self._m(a), self._m(b))

    # ---------------------------------------------------------------- conditions
    def _compare(self, op: str, a: V, b: V, label: str, cite: str) -> V:
        if isinstance(a, Ratio) or isinstance(b, Ratio):
            den = a.den if isinstance(a, Ratio) else b.den
            left = a.num if isinstance(a, Ratio) else _scaled(a, den)
            right = b.num if isinstance(b, Ratio) else _scaled(b, den)
            if isinstance(a, Ratio) and isinstance(b, Ratio) and a.den != b.den:
                raise ValueError("comparison of fractions of different denominators")
            return _OPS[op](left, right)
        return _OPS[op](self._m(a), self._m(b))

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
        last = days_in_month(year, month)
        result = days - dom + last
        self._remember(result, (year, month, last))
        return result

    def add_months(self, day: V, months: int, label: str = "", cite: str = "") -> V:
        np = self.np
        year, month, dom = self._civil(self._m(day))
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
        """The figure per row: the versions in :meth:`~.parameters.Parameter.version`'s
        order, each later one replacing the value where its act is known on ``as_of`` (day
        numbers; None or a day number at or past the act: known) and ``at`` (day numbers)
        is on or after its first date. Money in cents, fractions a :class:`Ratio` over
        the versions' common denominator, dates day numbers."""
        versions = param.versions
        if len(versions) == 1:
            return versions[0].value
        np = self.np
        fractions = param.kind == "fraction"
        den = math.lcm(*(Fraction(v.value).denominator for v in versions)) if fractions else 1

        def scaled(value: Any) -> Any:
            return _scaled(value, den) if fractions else self._m(value)

        days = None if at is None else self._m(at)
        known = None if as_of is None else self._m(as_of)
        result: Any = scaled(versions[0].value)
        for v in versions[1:]:
            applies: Any = True
            if days is not None and v.applies_from is not None:
                applies = days >= (v.applies_from - _EPOCH).days
            if known is not None:
                applies = applies & (known >= (v.act.date - _EPOCH).days)
            if isinstance(applies, bool):  # one date for every row
                result = scaled(v.value) if applies else result
            else:
                result = np.where(applies, scaled(v.value), result)
        return Ratio(result, den) if fractions else result
