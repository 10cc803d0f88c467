"""The explaining evaluator (:class:`Explain`, :func:`explain`): the exact arithmetic, with
each value a :class:`Term` carrying its arithmetic; every operation given a ``label``
becomes an explanation :class:`~nj_incentives.core.common.Step`."""

from __future__ import annotations

import datetime as dt
import itertools
import math
from collections.abc import Callable, Iterable
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from functools import partial
from typing import Any, TypeAlias

from nj_incentives.core.common import Step, cents_down, fmt_money, fmt_number, fmt_pct
from nj_incentives.core.parameters import Parameter
from nj_incentives.core.rules.exact import EXACT, ZERO, discounted, exact_share, to_money
from nj_incentives.core.rules.language import OPS, Rules, V

__all__ = ["Explain", "Term", "explain"]


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
        result, exact = exact_share(to_money(ta.value), fraction)
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
        value = to_money(ta.value) * tn.value
        return self._make(value, lambda: f"{_paren(ta)} x {_paren(tn)}", (ta, tn), label, cite)

    def div(self, a: V, n: V, label: str = "", cite: str = "") -> V:
        ta, tn = self._term(a), self._term(n, "count")
        result, exact = exact_share(to_money(ta.value), Fraction(1, tn.value))
        return self._rounded(
            result, exact, lambda: f"{_paren(ta)} / {_paren(tn)}", (ta, tn), label, cite
        )

    def muldiv(self, a: V, n: V, d: V, label: str = "", cite: str = "") -> V:
        ta, tn, td = self._term(a), self._term(n, "count"), self._term(d, "count")
        if tn.value == 0:
            return self._make(ZERO, lambda: f"{_paren(ta)} x 0", (ta, tn, td), label, cite)
        ratio = Fraction(tn.value) / Fraction(td.value)
        result, exact = exact_share(to_money(ta.value), ratio)

        def text() -> str:
            return f"{_paren(ta)} x {_paren(tn)} / {_paren(td)}"

        return self._rounded(result, exact, text, (ta, tn, td), label, cite)

    def per_unit(self, n: V, rate: V, label: str = "", cite: str = "") -> V:
        tn, tr = self._term(n, "count"), self._term(rate)
        result, exact = exact_share(to_money(tr.value), Fraction(tn.value))
        return self._rounded(
            result, exact, lambda: f"{_paren(tn)} x {_paren(tr)}", (tn, tr), label, cite
        )

    def discount(
        self, a: V, p: V, rate: V, years: V, digits: int, label: str = "", cite: str = ""
    ) -> V:
        ta, tp = self._term(a), self._term(p, "fraction")
        trate, tyears = self._term(rate, "fraction"), self._term(years, "count")
        exact = discounted(to_money(ta.value) * tp.value, trate.value, tyears.value, digits)
        result = cents_down(exact)

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

    def applied(
        self, statute: str, reads: Iterable[tuple[Parameter[Any], V]], as_of: V = None
    ) -> V:
        def plain(x: V) -> V:
            return x.value if x.__class__ is Term else x

        dated = [(param, plain(day)) for param, day in reads]
        return super().applied(statute, dated, plain(as_of))

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
        value = bool(OPS[op](ta.value, tb.value))
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
        return self._moved(day, months, "month", EXACT.add_months, label, cite)

    def add_days(self, day: V, days: int, label: str = "", cite: str = "") -> V:
        return self._moved(day, days, "day", EXACT.add_days, label, cite)

    def _moved(
        self,
        day: V,
        count: int,
        unit: str,
        move: Callable[[dt.date, int], dt.date],
        label: str,
        cite: str,
    ) -> Term:
        """``day`` moved by ``count`` ``unit``s ("2024-01-31 + 1 month")."""
        t = self._term(day, "date")
        value = move(t.value, count)
        sign = "+" if count >= 0 else "-"
        units = unit if abs(count) == 1 else f"{unit}s"
        text = lambda: f"{t.text} {sign} {abs(count)} {units}"  # noqa: E731
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
