"""How every input is read: one parse rule per kind, with stated bounds.

Inputs arrive from Excel cells (floats), the command line and CSV files (text), data
frames (numpy scalars) and Python callers (``Decimal``, ``int``). Each kind of input has
exactly one rule that turns any of those into the exact value the law's rules need, or
raises :class:`InputError` naming the argument, the value, the rule broken and its
citation:

============  ==============================================================  ===========
kind          accepts                                                         function
============  ==============================================================  ===========
number        a finite number, within :data:`MAX_MAGNITUDE`                   as_number
quantity      a number, not negative (hours, positions, years)                as_quantity
money         dollars and cents, not negative, no fraction of a cent          as_money
fraction      a percentage as a fraction, 0 to 1 (0.5), or percent text "50%"  as_fraction
count         a whole number                                                  as_int
date          a date, a datetime, or ISO text; :data:`MIN_DATE`-:data:`MAX_DATE`  as_date
boolean       TRUE/FALSE, 1/0, yes/no                                         as_bool
text choice   one of a list of words, any case                                as_choice
============  ==============================================================  ===========

The bounds beyond those the law states (each law module passes its own: a credit year is
1 or 2, a grant percentage 10% to 80%, ...) are readings, recorded in
``docs/interpretations.md`` ("Input bounds") and cited as :data:`CITE_BOUNDS`:

- Numeric text is a plain decimal with an optional exponent; commas are accepted only as
  well-formed thousands separators (``1,234,567.89``). ``"1,5"``, ``"1,0,0"`` and
  ``"1.234,56"`` are refused (locale-ambiguous), as are ``NaN``, ``inf`` and ``1_000``.
- Magnitude below :data:`MAX_MAGNITUDE` (10^13): Excel keeps 15 significant digits, so a
  larger amount of money cannot be held to the cent. Exponents beyond
  :data:`MAX_EXPONENT` and non-zero values smaller than 10^-30 are refused before any
  arithmetic (``1e-999999999`` would otherwise cost unbounded time to format).
- Money is whole cents. A cell's float is read by its shortest round-trip text; if that
  shows a fraction of a cent but the float at Excel's 15 significant digits does not
  (0.1 + 0.2 = 0.30000000000000004 is 0.3), the 15-digit reading is taken: Excel itself
  shows and stores no more. Otherwise a fraction of a cent (25.005) is an input error,
  the same in the scenario runner.
- Dates: ISO text ``YYYY-MM-DD`` (optionally a time after it), nothing else after it;
  from 1900-01-01 (Excel's first date) to 2199-12-31.
- TRUE/FALSE is never a number (nor is the text ``TRUE`` or ``false``), and a number
  other than 1/0 is never a boolean.

:class:`InputRule` is the declaration of one input (kind, bounds, citation), from which
both the scalar check (:meth:`InputRule.parse`) and a vectorised range check
(:meth:`InputRule.numeric_bounds`) come.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

from nj_incentives.core import parameters

__all__ = [
    "CITE_BOUNDS",
    "MAX_DATE",
    "MAX_EXPONENT",
    "MAX_MAGNITUDE",
    "MIN_DATE",
    "InputError",
    "InputKind",
    "InputRule",
    "as_bool",
    "as_choice",
    "as_date",
    "as_fraction",
    "as_int",
    "as_money",
    "as_number",
    "as_quantity",
    "control_character",
    "is_blank",
    "percent_text",
    "within_dates",
]

#: The citation of the bounds that are readings, not statute (docs/interpretations.md).
CITE_BOUNDS = 'docs/interpretations.md "Input bounds"'
#: Every number's magnitude is below this: 15 significant digits with the cents.
MAX_MAGNITUDE = Decimal(10) ** 13
#: The largest exponent numeric text may carry (``1e400`` is refused before reading).
MAX_EXPONENT = 100
#: Non-zero numbers smaller than 10 ** -MIN_SCALE are refused; so are more decimals.
_SMALLEST = -30
_MOST_DECIMALS = 40
#: Dates accepted anywhere: Excel's first date to the end of the 22nd century.
MIN_DATE = dt.date(1900, 1, 1)
MAX_DATE = dt.date(2199, 12, 31)
_CENT = Decimal("0.01")


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


def control_character(text: str) -> str:
    """Why ``text`` cannot be stored in a workbook's cell as it is ("" if it can): a
    control character (U+0000-U+001F but tab, line feed and carriage return; U+FFFE,
    U+FFFF), which XML, and so an .xlsx, cannot hold: written anyway, the workbook was
    refused as malformed when next read, and the refusal blamed the file."""
    for index, character in enumerate(text, 1):
        code = ord(character)
        if (code < 0x20 and character not in "\t\n\r") or code in (0xFFFE, 0xFFFF):
            return (
                f"holds the control character U+{code:04X} (character {index}), which a "
                "workbook cannot store: remove it"
            )
    return ""


def _show(value: object) -> str:
    if value is None:
        return "(blank)"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return f"[{len(value)} values]"
    if isinstance(value, dict):
        return f"{{{len(value)} keys}}"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"(a whole number of about {int(value.bit_length() * 0.30103) + 1:,} digits)"
    if isinstance(value, Decimal):
        text = str(value)
        return text if len(text) <= 40 else text[:37] + "..."
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _pct(fraction: Decimal) -> str:
    return f"{(fraction * 100).normalize():f}%"


def _plain(number: Decimal) -> str:
    return f"{number.normalize():f}"


# --------------------------------------------------------------------------- number

_NUMBER_TEXT = re.compile(
    r"[+-]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE](?P<exp>[+-]?\d+))?",
    re.ASCII,
)
_ERROR_VALUE = re.compile(r"#[A-Z0-9/_]+[!?]?|#N/A", re.ASCII)
_NON_FINITE_WORDS = {"nan", "snan", "inf", "infinity", "+inf", "-inf", "+infinity", "-infinity"}


def _from_text(text: str, value: object, argument: str, citation: str) -> Decimal:
    """Numeric text as an exact Decimal, or the input error saying which rule it breaks."""
    text = text.strip()
    match = _NUMBER_TEXT.fullmatch(text)
    if match is None:
        if text.lower() in _NON_FINITE_WORDS or text.lower().lstrip("+-") in _NON_FINITE_WORDS:
            raise InputError(argument, value, "must be a finite number", citation)
        if _ERROR_VALUE.fullmatch(text):
            raise InputError(argument, value, "the cell holds an error value", citation)
        if text.lower() in ("true", "false"):  # a CSV's TRUE/FALSE: never a number
            raise InputError(argument, value, "must be a number, not TRUE/FALSE", citation)
        if "," in text:
            rule = (
                "a comma may only separate thousands (1,234,567.89); "
                '"1,5" or "1.234,56" is ambiguous: write 1.5 or 1234.56'
            )
            raise InputError(argument, value, rule, CITE_BOUNDS)
        raise InputError(argument, value, "must be a number", citation)
    exponent = match.group("exp")
    if exponent is not None and (len(exponent) > 5 or abs(int(exponent)) > MAX_EXPONENT):
        rule = f"has an exponent beyond E{MAX_EXPONENT} / E-{MAX_EXPONENT}"
        raise InputError(argument, value, rule, CITE_BOUNDS)
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        raise InputError(argument, value, "must be a number", citation) from None


_TOO_LARGE = "must be less than 10,000,000,000,000 in magnitude (Excel's 15 digits with cents)"


def _bounded(number: Decimal, value: object, argument: str, citation: str) -> Decimal:
    """The magnitude and precision bounds every number obeys (module docstring)."""
    if not number.is_finite():
        raise InputError(argument, value, "must be a finite number", citation)
    if abs(number) >= MAX_MAGNITUDE:
        raise InputError(argument, value, _TOO_LARGE, CITE_BOUNDS)
    if number and number.adjusted() < _SMALLEST:
        rule = "is too small to be meant (less than 1E-30 in magnitude)"
        raise InputError(argument, value, rule, CITE_BOUNDS)
    exponent = number.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -_MOST_DECIMALS:
        number = number.normalize()
        exponent = number.as_tuple().exponent
        if isinstance(exponent, int) and exponent < -_MOST_DECIMALS:
            rule = f"has more than {_MOST_DECIMALS} decimal places"
            raise InputError(argument, value, rule, CITE_BOUNDS)
    return number


def is_blank(value: object) -> bool:
    """A blank input: None, or text that is empty or only white space (every reader's
    test: the cells, the payroll and data files, the scenario table)."""
    return value is None or (isinstance(value, str) and not value.strip())


def as_number(value: object, argument: str, citation: str = "") -> Decimal:
    """Any finite number (or numeric text) as an exact ``Decimal``, within the bounds.

    Floats are read by their shortest round-trip text, so the cell value 0.1 is exactly
    ``Decimal('0.1')``, not the binary approximation.
    """
    # The cells' common cases first, with the same result as the general path below: a
    # whole number within the bounds, and a float well inside them (at most 17 digits
    # from 1e-20 to 1e12: no bound of _bounded can bite).
    if type(value) is float:
        if 1e-20 <= abs(value) < 1e12 or value == 0:
            return Decimal(repr(value))
    elif type(value) is int and -MAX_MAGNITUDE < value < MAX_MAGNITUDE:
        return Decimal(value)
    if is_blank(value):
        raise InputError(argument, value, "is required", citation)
    if isinstance(value, bool):
        raise InputError(argument, value, "must be a number, not TRUE/FALSE", citation)
    result: Decimal
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, numbers.Integral):
        whole = int(value)
        if abs(whole) >= MAX_MAGNITUDE:
            raise InputError(argument, value, _TOO_LARGE, CITE_BOUNDS)
        result = Decimal(whole)
    elif isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise InputError(argument, value, "must be a finite number", citation)
        result = Decimal(repr(number))
    elif isinstance(value, str):
        if len(value) > 200:
            raise InputError(argument, value, "must be a number (at most 200 characters)", citation)
        result = _from_text(value, value, argument, citation)
    else:
        raise InputError(argument, value, "must be a number", citation)
    return _bounded(result, value, argument, citation)


def as_quantity(
    value: object,
    argument: str,
    citation: str = "",
    *,
    high: Decimal | int | None = None,
    rule: str = "",
) -> Decimal:
    """A number that is not negative (hours, positions, years), optionally at most ``high``."""
    number = as_number(value, argument, citation)
    if number < 0:
        raise InputError(argument, value, "must not be negative", citation)
    if high is not None and number > high:
        raise InputError(argument, value, rule or f"must be at most {high}", citation)
    return number


def as_money(value: object, argument: str, citation: str = "") -> Decimal:
    """A non-negative amount of money in whole cents, exact (module docstring)."""
    amount = as_number(value, argument, citation)
    if amount < 0:
        raise InputError(argument, value, "must not be negative", citation)
    if amount != amount.quantize(_CENT, rounding=ROUND_DOWN):
        if isinstance(value, float):
            excel = Decimal(format(value, ".15g"))
            if excel == excel.quantize(_CENT, rounding=ROUND_DOWN):
                return excel
        rule = "has a fraction of a cent: money is in dollars and cents"
        raise InputError(argument, value, rule, CITE_BOUNDS)
    return amount


def percent_text(value: object, argument: str, citation: str = "") -> Decimal | None:
    """Text written as a percent ("50%", " 12.5 % ", "1,000%") as its fraction (0.5,
    0.125, 10), exactly, within the bounds every number obeys; None for anything that is
    not text ending in "%". Text before the "%" that is not a number is an input error."""
    if not isinstance(value, str) or not value.strip().endswith("%"):
        return None
    if len(value) > 200:
        raise InputError(argument, value, "must be a number (at most 200 characters)", citation)
    number = _from_text(value.strip()[:-1], value, argument, citation)
    return _bounded(number / 100, value, argument, citation)


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

    A whole number such as 50 is rejected with the hint "did you mean 50%?"; percent text
    such as "50%" is read as the fraction it writes (0.5, :func:`percent_text`).
    """
    percent = percent_text(value, argument, citation)
    fraction = as_number(value, argument, citation) if percent is None else percent
    if percent is not None and fraction > 1:
        raise InputError(argument, value, "a percentage is at most 100%", citation)
    if fraction > 1:
        hint = f"; did you mean {_plain(fraction)}%?" if fraction <= 100 else ""
        raise InputError(argument, value, f"a percentage is a fraction (50% = 0.5){hint}", citation)
    if fraction < 0:
        raise InputError(argument, value, "must not be negative", citation)
    if (low is not None and fraction < low) or (high is not None and fraction > high):
        lowest, highest = _pct(low or Decimal(0)), _pct(high or Decimal(1))
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


# --------------------------------------------------------------------------- date

_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


def _date_from_text(text: str) -> dt.date | None:
    text = text.strip()
    if len(text) > 40 or not _ISO_DAY.match(text):
        return None
    try:
        if len(text) == 10:
            return dt.date.fromisoformat(text)
        if text[10] not in "T ":
            return None
        return dt.datetime.fromisoformat(text).date()
    except ValueError:
        return None


def as_date(value: object, argument: str, citation: str = "") -> dt.date:
    """A calendar date: a ``date``, a ``datetime`` (its date) or ISO text ``YYYY-MM-DD``
    (optionally followed by a time, nothing else), from 1900-01-01 to 2199-12-31.

    Excel serial numbers are a cell convention and are converted by the Excel adapter,
    not here: a bare number is an error.
    """
    if is_blank(value):
        raise InputError(argument, value, "is required", citation)
    day: dt.date | None = None
    if isinstance(value, dt.datetime):
        if value != value:  # pandas NaT
            raise InputError(argument, None, "is required", citation)
        day = value.date()
    elif isinstance(value, dt.date):
        day = value
    elif isinstance(value, str):
        day = _date_from_text(value)
    if day is None:
        raise InputError(argument, value, "must be a date (YYYY-MM-DD)", citation)
    if not MIN_DATE <= day <= MAX_DATE:
        rule = f"must be a date from {MIN_DATE} to {MAX_DATE}"
        raise InputError(argument, value, rule, CITE_BOUNDS)
    return day


def within_dates(day: dt.date, what: str, argument: str, value: object, citation: str) -> dt.date:
    """``day``, a date a rule computed (``what``: "the base year's first day") from the
    input ``argument`` = ``value``, when it lies within the dates every input accepts
    (1900-01-01, Excel's first date, to 2199-12-31); else the input error that says
    where the result would fall: a result is never a date no input could be."""
    if MIN_DATE <= day <= MAX_DATE:
        return day
    side, bound = ("before", MIN_DATE) if day < MIN_DATE else ("after", MAX_DATE)
    rule = (
        f"{what} would be {day.isoformat()}, {side} {bound.isoformat()}: results, like"
        f" inputs, are dates from {MIN_DATE.isoformat()} to {MAX_DATE.isoformat()}"
    )
    raise InputError(
        argument, value, rule, f"{citation}; {CITE_BOUNDS}" if citation else CITE_BOUNDS
    )


#: Where the law-version switch is documented.
CITE_LAW_AS_OF = 'docs/interpretations.md "Law as of"'


def as_law_as_of(
    value: object, statute: str, reads: Iterable[parameters.Parameter[Any]] = ()
) -> dt.date | None:
    """``law_as_of``: blank (None, "") for every modelled version (the law in force for the
    period computed), else a date on or after the first modelled version of the figures
    the calculation ``reads`` (none given: of ``statute``'s first version modelled,
    :func:`~.parameters.first_modelled`). The message names that date, its act and the
    versions available."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    available = f"versions available: {parameters.versions_text(statute)}"
    try:
        day = as_date(value, "law_as_of", CITE_LAW_AS_OF)
    except InputError as error:
        raise InputError("law_as_of", value, f"{error.rule}; {available}", CITE_LAW_AS_OF) from None
    figures = tuple(reads)
    if figures:
        first = min((figure.versions[0].act for figure in figures), key=lambda act: act.date)
        what = "the first version modelled of the figures this calculation reads"
    else:
        first = parameters.first_modelled(statute)
        what = f"the first version of {parameters.STATUTES[statute].citation} modelled"
    if day < first.date:
        rule = f"is before {first.date.isoformat()}, {what} ({first.name}); {available}"
        raise InputError("law_as_of", value, rule, CITE_LAW_AS_OF)
    return day


# --------------------------------------------------------------------------- boolean, choice

_TRUE = {"true", "yes", "y", "1", "t"}
_FALSE = {"false", "no", "n", "0", "f"}


def as_bool(value: object, argument: str, citation: str = "") -> bool:
    """TRUE/FALSE, 1/0, or the words yes/no/true/false (any case)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Real) and value in (0, 1):
        return bool(value)
    if type(value).__name__ == "bool_":  # numpy's boolean scalar
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


# --------------------------------------------------------------------------- declarations


class InputKind(StrEnum):
    """The kinds of input, each read by one rule (module docstring)."""

    NUMBER = "number"
    QUANTITY = "quantity"
    MONEY = "money"
    FRACTION = "fraction"
    COUNT = "count"
    DATE = "date"
    BOOLEAN = "boolean"
    CHOICE = "choice"


@dataclass(frozen=True)
class InputRule:
    """The declaration of one input: its kind, the bounds the law sets, their citation.

    ``parse`` is the scalar path's check; ``numeric_bounds`` and ``scaled_bounds`` give
    the same bounds for a vectorised mask (the scenario runner's,
    ``nj_incentives.scenarios.columns``), so both come from one declaration. ``citation``
    is cited by the kind's own errors (not a number, negative money ...); a bound that
    is not the law's (the scenario runner's limits) cites ``bound_citation`` instead.
    A date's bounds are always :data:`MIN_DATE` to :data:`MAX_DATE`.
    """

    kind: InputKind
    citation: str = ""
    low: Decimal | int | None = None
    high: Decimal | int | None = None
    rule: str = ""
    choices: tuple[str, ...] = ()
    bound_citation: str = ""

    def parse(self, value: object, argument: str) -> Any:
        """The value as the law's rules need it, or :class:`InputError`."""
        kind, cite = self.kind, self.citation
        if kind is InputKind.MONEY:
            amount = as_money(value, argument, cite)
            self.check_bounds(amount, value, argument)
            return amount
        if kind is InputKind.NUMBER:
            number = as_number(value, argument, cite)
            self.check_bounds(number, value, argument)
            return number
        if kind is InputKind.QUANTITY:
            quantity = as_quantity(value, argument, cite)
            self.check_bounds(quantity, value, argument)
            return quantity
        if kind is InputKind.FRACTION:
            low = None if self.low is None else Decimal(self.low)
            high = None if self.high is None else Decimal(self.high)
            return as_fraction(value, argument, cite, low=low, high=high, rule=self.rule)
        if kind is InputKind.COUNT:
            whole = as_int(value, argument, cite)
            self.check_bounds(whole, value, argument)
            return whole
        if kind is InputKind.DATE:
            return as_date(value, argument, cite)
        if kind is InputKind.BOOLEAN:
            return as_bool(value, argument, cite)
        return as_choice(value, argument, self.choices, cite)

    def describe(self) -> str:
        """What the rule accepts, in words (a Checks line, a help text): its own ``rule``
        where it states one, else the kind and its bounds, as :meth:`parse` applies them."""
        if self.rule:
            return self.rule
        kind, low, high = self.kind, self.low, self.high
        if kind is InputKind.FRACTION:
            lowest = _pct(Decimal(low if low is not None else 0))
            highest = _pct(Decimal(high if high is not None else 1))
            return f"a percentage from {lowest} to {highest}"
        if kind is InputKind.DATE:
            return f"a date from {MIN_DATE} to {MAX_DATE}"
        if kind is InputKind.BOOLEAN:
            return "Yes or No (TRUE/FALSE, 1/0)"
        if kind is InputKind.CHOICE:
            return f"one of {', '.join(self.choices)}"
        what = {
            InputKind.MONEY: "dollars and cents, not negative",
            InputKind.QUANTITY: "a number, not negative",
            InputKind.COUNT: "a whole number",
            InputKind.NUMBER: "a number",
        }[kind]
        if low is not None and high is not None:
            return f"{what}, from {low} to {high}"
        if high is not None:
            return f"{what}, at most {high}"
        if low is not None and not (low == 0 and kind in (InputKind.MONEY, InputKind.QUANTITY)):
            return f"{what}, at least {low}"
        return what

    def check_bounds(self, number: Decimal | int, value: object, argument: str) -> None:
        """:class:`InputError` unless ``low <= number <= high`` (``value`` is what is shown).

        Below a ``low`` of 0 is "must not be negative", as the kinds themselves say."""
        if self.low == 0 and number < 0:
            raise InputError(argument, value, "must not be negative", self.citation)
        if (self.low is not None and number < self.low) or (
            self.high is not None and number > self.high
        ):
            if self.rule:
                rule = self.rule
            elif self.low is not None and self.high is not None:
                rule = f"must be from {self.low} to {self.high}"
            elif self.low is not None:
                rule = f"must be at least {self.low}"
            else:
                rule = f"must be at most {self.high}"
            raise InputError(argument, value, rule, self.bound_citation or self.citation)

    def numeric_bounds(self) -> tuple[Decimal, Decimal]:
        """The closed range of values this input accepts, for a vectorised mask."""
        floor = {
            InputKind.MONEY: Decimal(0),
            InputKind.QUANTITY: Decimal(0),
            InputKind.FRACTION: Decimal(0),
        }.get(self.kind, -MAX_MAGNITUDE)
        ceiling = Decimal(1) if self.kind is InputKind.FRACTION else MAX_MAGNITUDE
        low = floor if self.low is None else max(floor, Decimal(self.low))
        high = ceiling if self.high is None else min(ceiling, Decimal(self.high))
        return low, high

    def scaled_bounds(self, scale: int) -> tuple[int, int]:
        """:meth:`numeric_bounds` as whole counts of ``1 / scale`` (cents: scale 100),
        rounded inwards: the integer range a mask over scaled int64 values accepts."""
        low, high = self.numeric_bounds()
        return math.ceil(low * scale), math.floor(high * scale)
