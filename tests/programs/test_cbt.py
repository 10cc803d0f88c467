"""The CBT statutory minimum tax, N.J.S.A. 54:10A-5(e), N.J.A.C. 18:7-3.4(b)."""

from __future__ import annotations

import itertools
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.core.common import InputError
from nj_incentives.programs.cbt.rules import (
    GROUP_MINIMUM_TAX,
    GROUP_PAYROLL_THRESHOLD,
    MINIMUM_TAX_TABLE,
    bracket_for,
    minimum_tax,
)

D = Decimal


@pytest.mark.parametrize(
    ("receipts", "c_corporation", "s_corporation"),
    [
        # less than $100,000: $500 / $375
        ("0", "500", "375"),
        ("99999.99", "500", "375"),
        # $100,000 to less than $250,000: $750 / $562.50
        ("100000", "750", "562.50"),
        ("249999.99", "750", "562.50"),
        # $250,000 to less than $500,000: $1,000 / $750
        ("250000", "1000", "750"),
        ("499999.99", "1000", "750"),
        # $500,000 to less than $1,000,000: $1,500 / $1,125
        ("500000", "1500", "1125"),
        ("999999.99", "1500", "1125"),
        # $1,000,000 or more: $2,000 / $1,500
        ("1000000", "2000", "1500"),
        ("250000000", "2000", "1500"),
    ],
)
def test_each_bracket_and_boundary(receipts: str, c_corporation: str, s_corporation: str) -> None:
    assert minimum_tax(receipts).amount == D(c_corporation)
    assert minimum_tax(receipts, s_corporation=True).amount == D(s_corporation)


def test_float_cell_at_the_boundary() -> None:
    # A cell holding 99,999.99 is read as exactly 99,999.99 (not 99,999.9899...).
    assert minimum_tax(99999.99).bracket == "less than $100,000"
    assert minimum_tax(100000.0).bracket == "$100,000 to less than $250,000"


def test_group_payroll_rule() -> None:
    # Receipts 50,000 (table: $500) in a group with payroll 5,000,000: $2,000.
    result = minimum_tax(50000, group_payroll=5_000_000)
    assert result.amount == GROUP_MINIMUM_TAX == D(2000)
    assert result.group_rule_applied
    assert result.steps[-1].citation.startswith("N.J.A.C. 18:7-3.4(b)1")
    # Payroll 4,999,999.99: below the threshold, the table's $500.
    assert minimum_tax(50000, group_payroll="4999999.99").amount == D(500)
    assert D(5_000_000) == GROUP_PAYROLL_THRESHOLD


def test_s_corporation_and_the_group_rule_switch() -> None:
    # S corporation, receipts 300,000 (table: $750), group payroll 6,000,000.
    assert minimum_tax(300000, True, 6_000_000).amount == D(2000)
    # The rule's reach to S corporations is uncertain: switched off, the table's $750.
    switched_off = minimum_tax(300000, True, 6_000_000, group_rule_for_s_corporations=False)
    assert switched_off.amount == D(750)
    assert not switched_off.group_rule_applied
    assert "uncertain" in switched_off.steps[-1].citation


def test_steps_cite_the_table() -> None:
    result = minimum_tax(120000, s_corporation=True)
    assert result.steps[0].arithmetic == ("120,000.00 is $100,000 to less than $250,000: 562.50")
    assert "P.L.2011, c.84" in result.steps[0].citation
    assert "N.J.S.A. 54:10A-5(e)" in result.steps[0].citation


def test_period_start_year() -> None:
    assert minimum_tax(1000, period_start_year=2012).amount == D(500)
    with pytest.raises(InputError) as caught:
        minimum_tax(1000, period_start_year=2011)
    assert caught.value.argument == "period_start_year"
    assert "beginning in 2012 and after" in caught.value.rule


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"nj_gross_receipts": -1}, "nj_gross_receipts"),
        ({"nj_gross_receipts": 1, "group_payroll": -1}, "group_payroll"),
        ({"nj_gross_receipts": 1, "s_corporation": "perhaps"}, "s_corporation"),
        ({"nj_gross_receipts": None}, "nj_gross_receipts"),
    ],
)
def test_bad_input(kwargs: dict[str, object], argument: str) -> None:
    with pytest.raises(InputError) as caught:
        minimum_tax(**kwargs)  # type: ignore[arg-type]
    assert caught.value.argument == argument
    assert caught.value.citation


def test_table_is_contiguous() -> None:
    # Each bracket starts where the previous one stops; the last has no upper bound.
    assert MINIMUM_TAX_TABLE[0].receipts_from == 0
    for lower, upper in itertools.pairwise(MINIMUM_TAX_TABLE):
        assert lower.receipts_below == upper.receipts_from
    assert MINIMUM_TAX_TABLE[-1].receipts_below is None


receipts = st.decimals(min_value=0, max_value=10**8, places=2, allow_nan=False)


@given(low=receipts, high=receipts, payroll=receipts)
def test_minimum_never_falls_as_receipts_rise(
    low: Decimal, high: Decimal, payroll: Decimal
) -> None:
    low, high = min(low, high), max(low, high)
    for s_corporation in (False, True):
        assert (
            minimum_tax(low, s_corporation, payroll).amount
            <= minimum_tax(high, s_corporation, payroll).amount
        )
    # an S corporation never pays more than a C corporation; at most $2,000
    s_amount = minimum_tax(low, True, payroll).amount
    assert s_amount <= minimum_tax(low, False, payroll).amount <= D(2000)
    assert bracket_for(low).receipts_from <= low


# --------------------------------------------------------------------------- short periods
# Issue 19 item 8: a privilege period of less than 12 months tests the group payroll by
# month (Form 313 instructions (2013): "Tax periods of less than 12 months are subject to
# the higher minimum tax if the prorated total payroll exceeds $416,667 per month"; the
# reading: docs/interpretations.md, "Group payroll rule for a period of less than 12
# months"). Receipts 300,000 throughout: the table's $1,000 (C corporation).


@pytest.mark.parametrize(
    ("months", "payroll", "test", "amount"),
    [
        # six months, per month (default): 416,667.00 x 6 = 2,500,002.00, "exceeds"
        (6, "2500002.00", "per_month", "1000"),  # not above it: the table's $1,000
        (6, "2500002.01", "per_month", "2000"),  # above it: $2,000
        (6, "2500000.00", "per_month", "1000"),  # the alternative's bound: not here
        # six months, prorated: 5,000,000.00 x 6 / 12 = 2,500,000.00, "or more"
        (6, "2499999.99", "prorated", "1000"),
        (6, "2500000.00", "prorated", "2000"),
        # five months, prorated: 5,000,000.00 x 5 / 12 = 2,083,333.33 1/3, compared exactly
        (5, "2083333.33", "prorated", "1000"),
        (5, "2083333.34", "prorated", "2000"),
        # five months, per month: 416,667.00 x 5 = 2,083,335.00
        (5, "2083335.00", "per_month", "1000"),
        (5, "2083335.01", "per_month", "2000"),
        # one month: 416,667.00 x 1
        (1, "416667.00", "per_month", "1000"),
        (1, "416667.01", "per_month", "2000"),
        # twelve months: the regulation's 5,000,000.00 or more under either reading (the
        # per-month figure would ask for 416,667.00 x 12 = 5,000,004.00)
        (12, "5000000.00", "per_month", "2000"),
        (12, "5000000.00", "prorated", "2000"),
        (12, "4999999.99", "per_month", "1000"),
    ],
)
def test_short_period_group_payroll_at_the_boundary(
    months: int, payroll: str, test: str, amount: str
) -> None:
    result = minimum_tax(300000, group_payroll=payroll, months=months, short_period_test=test)
    assert result.amount == D(amount)
    assert result.months == months
    assert result.group_rule_applied is (amount == "2000")
    if months < 12:
        assert "Form 313 instructions" in result.steps[-1].citation


def test_short_period_steps_show_the_arithmetic() -> None:
    per_month = minimum_tax(300000, group_payroll="2500002.01", months=6)
    assert per_month.steps[-1].arithmetic == (
        "group payroll 2,500,002.01 for a 6-month period > 416,667.00 a month x 6 ="
        " 2,500,002.00 (Form 313 instructions: exceeds $416,667 per month): 2,000.00"
    )
    prorated = minimum_tax(
        300000, group_payroll="2083333.33", months=5, short_period_test="prorated"
    )
    assert prorated.steps[-1].arithmetic == (
        "group payroll 2,083,333.33 for a 5-month period < 5,000,000.00 x 5 / 12 ="
        " 2,083,333.33... (prorated): rule does not apply"
    )
    # the 12-month step is the one it was before the months were an input
    assert minimum_tax(300000, group_payroll=5_000_000).steps[-1].arithmetic == (
        "group payroll 5,000,000.00 >= 5,000,000.00: 2,000.00"
    )


@pytest.mark.parametrize("months", [0, 13, -1, 6.5, "six", None])
def test_months_out_of_bounds(months: object) -> None:
    with pytest.raises(InputError) as caught:
        minimum_tax(300000, months=months)  # type: ignore[arg-type]
    error = caught.value
    assert error.argument == "months"
    assert error.value == months
    assert "N.J.A.C. 18:7-3.4(b)1" in error.citation
    if months in (0, 13, -1):
        assert "1 to 12" in error.rule


def test_short_period_test_is_a_choice() -> None:
    with pytest.raises(InputError) as caught:
        minimum_tax(300000, months=6, short_period_test="annual")
    assert caught.value.argument == "short_period_test"
    assert '"per_month", "prorated"' in caught.value.rule


@given(
    receipts=receipts,
    payroll=receipts,
    s_corporation=st.booleans(),
    months=st.integers(1, 12),
)
def test_the_readings_differ_only_near_the_bound(
    receipts: Decimal, payroll: Decimal, s_corporation: bool, months: int
) -> None:
    # a full period is what it was; a short one under the two readings differs only for a
    # payroll from 5,000,000 x months / 12 to 416,667 x months (at most 4.00 apart)
    full = minimum_tax(receipts, s_corporation, payroll)
    assert minimum_tax(receipts, s_corporation, payroll, months=12) == full
    assert (
        minimum_tax(receipts, s_corporation, payroll, months=12, short_period_test="prorated")
        == full
    )
    one = minimum_tax(receipts, s_corporation, payroll, months=months)
    other = minimum_tax(
        receipts, s_corporation, payroll, months=months, short_period_test="prorated"
    )
    if months < 12 and one.amount != other.amount:
        assert D(5_000_000) * months / 12 <= payroll <= D(416_667) * months
        assert other.amount == D(2000)


def test_a_period_start_year_past_the_calendar_is_an_input_error() -> None:
    # found by the fuzz corpus: a year no date can have (an Excel date serial as a year)
    with pytest.raises(InputError) as caught:
        minimum_tax(300000, period_start_year=2958465)
    assert caught.value.argument == "period_start_year"
    assert "at most 9999" in caught.value.rule
