"""The shared money, input and explanation helpers (nj_incentives.core.common)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from nj_incentives.core.common import (
    InputError,
    as_bool,
    as_date,
    as_fraction,
    as_int,
    as_money,
    cents_down,
)


def test_cents_down_truncates() -> None:
    # 0.75 x 133.33 = 99.9975 -> 99.99 (never rounded up to 100.00)
    assert cents_down(Decimal("0.75") * Decimal("133.33")) == Decimal("99.99")


def test_float_cells_are_read_exactly() -> None:
    # A cell holding 0.1 arrives as the float 0.1; it must mean exactly 0.1.
    assert as_fraction(0.1, "pct") == Decimal("0.1")
    assert as_money(1250000.0, "amount") == Decimal("1250000")


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (-1, "must not be negative"),
        (None, "is required"),
        ("", "is required"),
        ("abc", "must be a number"),
        (float("nan"), "finite"),
        (True, "not TRUE/FALSE"),
    ],
)
def test_bad_money_names_argument_and_rule(value: object, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        as_money(value, "withholdings", "N.J.S.A. 34:1B-129a.")
    message = str(caught.value)
    assert message.startswith("withholdings = ")
    assert fragment in message
    assert "(N.J.S.A. 34:1B-129a.)" in message


def test_whole_number_percentage_gets_a_hint() -> None:
    with pytest.raises(InputError, match=r"did you mean 50%\?"):
        as_fraction(50, "pct")


def test_int_and_date_and_bool() -> None:
    assert as_int(3.0, "term") == 3
    with pytest.raises(InputError, match="whole number"):
        as_int(3.5, "term")
    with pytest.raises(InputError, match="from 1 to 10"):
        as_int(11, "term", low=1, high=10)
    assert as_date("2017-09-15", "approval_date") == dt.date(2017, 9, 15)
    with pytest.raises(InputError, match="must be a date"):
        as_date(42993, "approval_date")
    assert as_bool("Yes", "smart_growth") is True
    assert as_bool(0, "smart_growth") is False
    with pytest.raises(InputError, match="TRUE or FALSE"):
        as_bool("maybe", "smart_growth")
