"""What every statute module shares: exact money, input errors, explanations.

Nothing here is a rule of law except the rounding convention, which is documented in
``docs/interpretations.md`` ("Rounding"): money results are rounded to the cent by
truncation (fractions of a cent are dropped), as NJEDA does in N.J.A.C. 19:31Q-1.9(a),
and a schedule's last part takes the remainder so that the parts sum exactly.

Inputs are read by :mod:`nj_incentives.core.inputs` (one parse rule per kind, with its
bounds); its ``as_*`` functions and :class:`InputError` are re-exported here.
"""

from __future__ import annotations

import datetime as dt
import numbers
from collections.abc import Callable, Iterable
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from typing import Any, TypeAlias

from pydantic import BaseModel, ConfigDict, PrivateAttr, computed_field

from nj_incentives.core.inputs import (
    InputError,
    as_bool,
    as_choice,
    as_date,
    as_fraction,
    as_int,
    as_law_as_of,
    as_money,
    as_number,
    as_quantity,
    within_dates,
)

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
    "as_law_as_of",
    "as_money",
    "as_number",
    "as_quantity",
    "cents_down",
    "fmt_money",
    "fmt_number",
    "fmt_pct",
    "within_dates",
]

#: One cent: the unit every money result is rounded to.
CENT = Decimal("0.01")

#: What the core accepts where it expects a number.
Number: TypeAlias = Decimal | int | float | str | numbers.Real
#: What the core accepts where it expects a date.
DateLike: TypeAlias = dt.date | dt.datetime | str


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
    """Base of every result: carries the steps that explain it.

    ``steps`` is either given (a sequence of :class:`Step`) or computed on first use by a
    callable (``steps=partial(explainer, ...)``): a rule written in :mod:`.rules` is
    explained only when its steps are read, so the amounts path never pays for them.
    Two results are equal when their figures are (the steps follow from them).
    """

    model_config = ConfigDict(frozen=True)

    _steps: tuple[Step, ...] | None = PrivateAttr(default=None)
    _explainer: Callable[[], Iterable[Step]] | None = PrivateAttr(default=None)

    def __init__(
        self, /, steps: Iterable[Step] | Callable[[], Iterable[Step]] = (), **data: Any
    ) -> None:
        super().__init__(**data)
        # The private attributes' dict directly (pydantic's __setattr__ checks each name
        # first): the state is the same, every result is built for less.
        private = self.__pydantic_private__
        assert private is not None  # a model with private attributes always has the dict
        if callable(steps):
            private["_explainer"] = steps
        else:
            private["_steps"] = tuple(steps)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps, computed by the explainer the first time they are read."""
        if self._steps is None:
            assert self._explainer is not None
            self._steps = tuple(self._explainer())
        return self._steps

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self), *self.__dict__.values()))

    def explain(self) -> str:
        """The steps as numbered lines of text."""
        return "\n".join(f"{i}. {step}" for i, step in enumerate(self.steps, 1))


# --------------------------------------------------------------------------- money


def cents_down(amount: Decimal) -> Decimal:
    """Round to the cent by truncation (fractions of a cent dropped)."""
    return amount.quantize(CENT, rounding=ROUND_DOWN)


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
