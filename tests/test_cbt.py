"""The CBT statutory minimum tax, N.J.S.A. 54:10A-5(e), N.J.A.C. 18:7-3.4(b)."""

from __future__ import annotations

import itertools
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.law.cbt import (
    GROUP_MINIMUM_TAX,
    GROUP_PAYROLL_THRESHOLD,
    MINIMUM_TAX_TABLE,
    bracket_for,
    minimum_tax,
)
from nj_incentives.law.common import InputError

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
