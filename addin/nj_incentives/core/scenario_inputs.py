"""The scenario table's input columns as a program declares them (``INPUTS`` of
``programs/<key>/scenarios.py``): each column's kind, section, help and the one
:class:`~nj_incentives.core.inputs.InputRule` its values are read by, and the runner's own
limits those rules bound money and counts with. The runner
(:mod:`nj_incentives.scenarios.columns`) joins every registered program's columns."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from nj_incentives.core.inputs import InputKind, InputRule

__all__ = [
    "FIRST_TAX_YEAR",
    "GROWTH",
    "LAST_TAX_YEAR",
    "MAX_MONEY_CENTS",
    "MAX_PERIODS",
    "MAX_POSITIONS",
    "PERIODS_INPUT",
    "RUNNER_LIMIT",
    "InputSpec",
    "Kind",
    "count_input",
    "money_input",
    "positions_input",
]


class Kind(StrEnum):
    """What an input column holds, and so how it is read."""

    MONEY = "money"  # dollars, non-negative, to the cent
    FRACTION = "fraction"  # a percentage as a fraction, 0 to 1 (0.5 = 50%)
    GROWTH = "growth"  # a yearly growth rate, -1 to 1 (0.03 = 3% a year); runner convenience
    COUNT = "count"  # a whole number
    POSITIONS = "positions"  # new full-time positions (whole unless ``fractional``)
    DATE = "date"
    BOOL = "bool"
    CHOICE = "choice"


# ----------------------------------------------------------------------- runner limits
# Not rules of law: bounds that keep every amount exact in int64 cents and in the float
# dollars of the results (at most 15 significant digits). A value beyond them is a row
# error naming the limit, citing :data:`RUNNER_LIMIT`. The rules of law come from
# the programs.

#: The citation of the runner's own limits (not rules of law).
RUNNER_LIMIT = "scenario runner limit, docs/scenarios.md"
#: The largest money input, $100,000,000,000.00, in cents.
MAX_MONEY_CENTS = 10**13
_MAX_MONEY = Decimal(MAX_MONEY_CENTS) / 100
#: The largest count of new employees or new positions.
MAX_POSITIONS = 10**6
#: The most privilege periods one ERTC scenario may have.
MAX_PERIODS = 40
#: Tax years a credit-application column may name.
FIRST_TAX_YEAR, LAST_TAX_YEAR = 2000, 2099
# MIN_DATE, MAX_DATE: the dates every input takes (law/inputs.py; filled-forward period
# ends may run later).

_ABOVE_MONEY = f"exceeds the scenario runner's limit of {_MAX_MONEY:,.2f}"
_ABOVE_COUNT = f"exceeds the scenario runner's limit of {MAX_POSITIONS:,}"


def money_input(citation: str) -> InputRule:
    """Dollars and cents, not negative, at most the runner's money limit."""
    return InputRule(
        InputKind.MONEY, citation, high=_MAX_MONEY, rule=_ABOVE_MONEY, bound_citation=RUNNER_LIMIT
    )


def count_input(citation: str) -> InputRule:
    """A whole number, not negative, at most the runner's count limit."""
    return InputRule(
        InputKind.COUNT, citation, 0, MAX_POSITIONS, _ABOVE_COUNT, bound_citation=RUNNER_LIMIT
    )


def positions_input(citation: str) -> InputRule:
    """New full-time positions, not negative, at most the runner's count limit."""
    return InputRule(
        InputKind.QUANTITY,
        citation,
        high=MAX_POSITIONS,
        rule=_ABOVE_COUNT,
        bound_citation=RUNNER_LIMIT,
    )


#: A yearly growth rate of the fill-forward convenience (not law): -100% to 100% a year.
GROWTH = InputRule(
    InputKind.NUMBER, RUNNER_LIMIT, low=-1, high=1, rule="must be from -100% to 100% a year"
)


@dataclass(frozen=True)
class InputSpec:
    """One input column (or one family: ``withholdings_{k}``)."""

    name: str
    kind: Kind
    section: str
    doc: str
    #: the one declaration of what the column takes: kind, bounds, citation
    rule: InputRule
    #: a non-blank value makes the section present in the row (options do not)
    trigger: bool = True
    #: ``withholdings_{k}``: k = 1..MAX_TERM; ``period_end_{k}``: 1..MAX_PERIODS;
    #: ``tax_liability_{year}``: a tax year
    family: str = ""


#: The ``periods`` convenience column: 1 to the runner's most periods.
PERIODS_INPUT = InputRule(
    InputKind.COUNT,
    RUNNER_LIMIT,
    1,
    MAX_PERIODS,
    f"the number of periods must be from 1 to {MAX_PERIODS}",
)
