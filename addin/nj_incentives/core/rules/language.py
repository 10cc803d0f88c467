"""The rule language: the operations a rule is written in (:class:`Rules`), the value type
``V`` and the comparison operators every evaluator shares. The evaluators are
:mod:`.exact`, :mod:`.explaining` and :mod:`.vectorized`; the package docstring
(:mod:`nj_incentives.core.rules`) says how a rule is written."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

from nj_incentives.core.parameters import Parameter, act_order, applied

__all__ = ["OPS", "Rules", "V"]

#: A value in a rule: Decimal / Fraction / int / bool / date (exact), a :class:`Term`
#: (explaining), or an int64 / bool numpy array or :class:`Ratio` (Int64).
V: TypeAlias = Any


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
        """Money (or a quantity) ``a`` x a whole count ``n`` (exact)."""
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

    def draw(self, room: V, amounts: Iterable[V]) -> tuple[list[V], list[V], V]:
        """Take up to ``room`` from ``amounts`` in their order (a credit used oldest
        first): (what each gives, ``min(room left, amount)``; what each keeps; the room
        left), each a running total (:meth:`subtotal`). Written in the operations above;
        an evaluator may answer it directly with the same figures."""
        taken: list[V] = []
        kept: list[V] = []
        for amount in amounts:
            take = self.min(room, amount)
            kept.append(self.subtotal(self.sub(amount, take)))
            room = self.subtotal(self.sub(room, take))
            taken.append(take)
        return taken, kept, room

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

    def applied(
        self, statute: str, reads: Iterable[tuple[Parameter[Any], V]], as_of: V = None
    ) -> V:
        """The act whose version of ``statute`` a result applied, as its code (its
        position in :func:`~.parameters.act_order`): :func:`~.parameters.applied` of the
        figures ``reads`` (each with the date that selects its version) under the law as
        of ``as_of``; per row under :class:`Int64`."""
        act = applied(statute, reads, as_of)
        return act_order(statute).index(act)

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


OPS: dict[str, Callable[[Any, Any], Any]] = {
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
    "==": lambda a, b: a == b,
}
