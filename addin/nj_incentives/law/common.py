"""What every statute module shares: exact money, input errors, explanations.

Nothing here is a rule of law except the rounding convention, which is documented in
``docs/interpretations.md`` ("Rounding"): money results are rounded to the cent by
truncation (fractions of a cent are dropped), as NJEDA does in N.J.A.C. 19:31Q-1.9(a),
and a schedule's last part takes the remainder so that the parts sum exactly.

Inputs arrive from Excel cells (floats), the command line (strings), data frames
(numpy scalars) and Python callers (``Decimal``, ``int``). The ``as_*`` functions turn
each into the exact type the rules need, or raise :class:`InputError` naming the
argument, the value, the rule broken and its citation.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
from collections.abc import Sequence
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from fractions import Fraction
from typing import TypeAlias

from pydantic import BaseModel, ConfigDict

__all__ = [
    "CENT",
    "DateLike",
    "Explained",
    "InputError",
    "Number",
    "Step",
    "as_bool",
    "as_choice",
    "as_date",
    "as_fraction",
    "as_int",
    "as_money",
    "as_number",
    "cents_down",
    "fmt_money",
    "fmt_number",
    "fmt_pct",
    "split_by_shares",
    "split_equal",
]

#: One cent: the unit every money result is rounded to.
CENT = Decimal("0.01")

#: What the core accepts where it expects a number.
Number: TypeAlias = Decimal | int | float | str | numbers.Real
#: What the core accepts where it expects a date.
DateLike: TypeAlias = dt.date | dt.datetime | str


class InputError(ValueError):
    """An input the law does not allow, or that is not what the argument means.

    The message is short enough for a cell: ``argument = value: rule (citation)``.
    """

    def __init__(self, argument: str, value: object, rule: str, citation: str = "") -> None:
        self.argument = argument
        self.value = value
        self.rule = rule
        self.citation = citation
        shown = _show(value)
        where = f" ({citation})" if citation else ""
        super().__init__(f"{argument} = {shown}: {rule}{where}")


def _show(value: object) -> str:
    if value is None:
        return "(blank)"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return f"[{len(value)} values]"
    return str(value)


# --------------------------------------------------------------------------- explanations


class Step(BaseModel):
    """One step of a computation: the figure, how it was obtained, and the law behind it."""

    model_config = ConfigDict(frozen=True)

    label: str
    value: Decimal | int | str | bool | dt.date | None = None
    arithmetic: str = ""
    citation: str = ""

    def __str__(self) -> str:
        parts = [self.label]
        if self.arithmetic:
            parts.append(f": {self.arithmetic}")
        elif self.value is not None:
            parts.append(f": {self.value}")
        if self.citation:
            parts.append(f"  [{self.citation}]")
        return "".join(parts)


class Explained(BaseModel):
    """Base of every result: carries the steps that explain it."""

    model_config = ConfigDict(frozen=True)

    steps: tuple[Step, ...] = ()

    def explain(self) -> str:
        """The steps as numbered lines of text."""
        return "\n".join(f"{i}. {step}" for i, step in enumerate(self.steps, 1))


# --------------------------------------------------------------------------- money


def cents_down(amount: Decimal) -> Decimal:
    """Round to the cent by truncation (fractions of a cent dropped)."""
    return amount.quantize(CENT, rounding=ROUND_DOWN)


def split_by_shares(total: Decimal, shares: Sequence[Decimal]) -> list[Decimal]:
    """Split ``total`` by ``shares`` (which sum to 1): each part rounded down to the cent,
    the last taking the remainder so that the parts sum exactly to ``total``."""
    parts = [cents_down(total * share) for share in shares[:-1]]
    parts.append(total - sum(parts, Decimal(0)))
    return parts


def split_equal(total: Decimal, count: int) -> list[Decimal]:
    """Split ``total`` into ``count`` equal parts rounded down to the cent, the last taking
    the remainder: 100,000.00 in three is 33,333.33, 33,333.33, 33,333.34."""
    part = cents_down(total / count)
    return [part] * (count - 1) + [total - part * (count - 1)]


def fmt_money(amount: Decimal | int) -> str:
    """``1250000`` -> ``'1,250,000.00'``."""
    return f"{Decimal(amount):,.2f}"


def fmt_pct(fraction: Decimal | Fraction) -> str:
    """``Decimal('0.05')`` -> ``'5%'``; ``Decimal('0.125')`` -> ``'12.5%'``."""
    if isinstance(fraction, Fraction):
        fraction = Decimal(fraction.numerator) / Decimal(fraction.denominator)
    return f"{(fraction * 100).normalize():f}%"


def fmt_number(value: Decimal | Fraction | int) -> str:
    """A count or ratio without trailing zeros (``Decimal('10.50')`` -> ``'10.5'``)."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        value = Decimal(value.numerator) / Decimal(value.denominator)
    text = f"{Decimal(value).normalize():f}"
    return text


# --------------------------------------------------------------------------- coercion


def as_number(value: object, argument: str, citation: str = "") -> Decimal:
    """Any finite number (or numeric text) as an exact ``Decimal``.

    Floats are read by their shortest round-trip text, so the cell value 0.1 is exactly
    ``Decimal('0.1')``, not the binary approximation.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError(argument, value, "is required", citation)
    if isinstance(value, bool):
        raise InputError(argument, value, "must be a number, not TRUE/FALSE", citation)
    result: Decimal
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, numbers.Integral):
        result = Decimal(int(value))
    elif isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise InputError(argument, value, "must be a finite number", citation)
        result = Decimal(repr(number))
    elif isinstance(value, str):
        try:
            result = Decimal(value.strip().replace(",", ""))
        except InvalidOperation:
            raise InputError(argument, value, "must be a number", citation) from None
    else:
        raise InputError(argument, value, "must be a number", citation)
    if not result.is_finite():
        raise InputError(argument, value, "must be a finite number", citation)
    return result


def as_money(value: object, argument: str, citation: str = "") -> Decimal:
    """A non-negative amount of money, exact."""
    amount = as_number(value, argument, citation)
    if amount < 0:
        raise InputError(argument, value, "must not be negative", citation)
    return amount


def as_fraction(
    value: object,
    argument: str,
    citation: str = "",
    *,
    low: Decimal | None = None,
    high: Decimal | None = None,
    rule: str = "",
) -> Decimal:
    """A percentage given as a fraction (0.5 = 50%), optionally within ``[low, high]``.

    A whole number such as 50 is rejected with the hint "did you mean 50%?".
    """
    fraction = as_number(value, argument, citation)
    if fraction > 1:
        hint = f"; did you mean {fmt_number(fraction)}%?" if fraction <= 100 else ""
        raise InputError(argument, value, f"a percentage is a fraction (50% = 0.5){hint}", citation)
    if fraction < 0:
        raise InputError(argument, value, "must not be negative", citation)
    if (low is not None and fraction < low) or (high is not None and fraction > high):
        lowest, highest = fmt_pct(low or Decimal(0)), fmt_pct(high or Decimal(1))
        raise InputError(argument, value, rule or f"must be from {lowest} to {highest}", citation)
    return fraction


def as_int(
    value: object,
    argument: str,
    citation: str = "",
    *,
    low: int | None = None,
    high: int | None = None,
    rule: str = "",
) -> int:
    """A whole number (3.0 is 3; 3.5 is an error), optionally within ``[low, high]``."""
    number = as_number(value, argument, citation)
    if number != number.to_integral_value():
        raise InputError(argument, value, "must be a whole number", citation)
    whole = int(number)
    if (low is not None and whole < low) or (high is not None and whole > high):
        if not rule:
            if low is not None and high is not None:
                rule = f"must be from {low} to {high}"
            elif low is not None:
                rule = f"must be at least {low}"
            else:
                rule = f"must be at most {high}"
        raise InputError(argument, value, rule, citation)
    return whole


def as_date(value: object, argument: str, citation: str = "") -> dt.date:
    """A calendar date: a ``date``, a ``datetime`` (its date) or ISO text ``YYYY-MM-DD``.

    Excel serial numbers are a cell convention and are converted by the Excel adapter,
    not here: a bare number is an error.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError(argument, value, "is required", citation)
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            pass
    raise InputError(argument, value, "must be a date (YYYY-MM-DD)", citation)


_TRUE = {"true", "yes", "y", "1", "t"}
_FALSE = {"false", "no", "n", "0", "f"}


def as_bool(value: object, argument: str, citation: str = "") -> bool:
    """TRUE/FALSE, 1/0, or the words yes/no/true/false (any case)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise InputError(argument, value, "must be TRUE or FALSE (or Yes/No, 1/0)", citation)


def as_choice(value: object, argument: str, choices: Sequence[str], citation: str = "") -> str:
    """One of ``choices`` (lower-case), matched case-insensitively."""
    if isinstance(value, str) and value.strip().lower() in choices:
        return value.strip().lower()
    allowed = ", ".join(f'"{choice}"' for choice in choices)
    raise InputError(argument, value, f"must be one of {allowed}", citation)
