"""Issue 34, "The law, fourth pass": a worked example per item, with its arithmetic, and
the properties the issue names.

Items: 1 zero years of discounting is no discounting; 2 refusals and help that say what
the rule did (the deemed month end); 3 outputs inside the accepted date range; 4
``law_as_of`` refused only before the figures a function reads; 5 transfer eligibility
(g.(1), (2), (3)); 6 BEIP base years; 7 the sources found since.
"""

from __future__ import annotations

import datetime as dt
import itertools
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.functions.table import functions
from nj_incentives.programs.beip import rules as beip

D = Decimal
CALL = functions(errors="raise")
TEXT = functions()

SALE, PERIOD_END = dt.date(2024, 12, 31), dt.date(2025, 12, 31)


# =========================================================================== 1. zero years


def test_zero_years_is_no_discounting() -> None:
    # "75 percent of the transferred credit amount before considering any further
    # discounting": 75% x 200,000 = 150,000.00; over 0 years 150,000 / 1.1 ^ 0 = 150,000.00
    # (it gave 150,000 / 1.1 = 136,363.63, the whole period, before issue 34)
    price = CALL["NJ_BEIP_TRANSFER_MIN_PRICE"]
    assert price(200000, 0.1, 0, SALE, PERIOD_END) == 150000.00
    # 0.0001 years: 150,000 / 1.1 ^ 0.0001 = 149,998.570... -> 149,998.57: no jump at 0
    assert price(200000, 0.1, 0.0001, SALE, PERIOD_END) == 149998.57
    # blank (None, or "" as the conversion template spells it): the whole period,
    # 2024-12-31 to 2025-12-31 = 365 / 365 = 1 year: 150,000 / 1.1 = 136,363.636 -> .63
    assert price(200000, 0.1, None, SALE, PERIOD_END) == 136363.63
    assert price(200000, 0.1, "", SALE, PERIOD_END) == 136363.63
    # the check: 140,000 is below 150,000, the undiscounted minimum over 0 years
    verdict = TEXT["NJ_BEIP_TRANSFER_CHECK"](500000, 200000, 140000, 0.1, 0, SALE, PERIOD_END)
    assert "consideration 140,000.00 is less than the minimum 150,000.00" in verdict
    assert "with no discount to present value" in verdict
    assert TEXT["NJ_BEIP_TRANSFER_CHECK"](500000, 200000, 140000, 0.1, "", SALE, PERIOD_END) == (
        "OK"
    )  # blank: the whole year, minimum 136,363.63


@given(
    rate=st.decimals(min_value=0, max_value=D("0.20"), places=4),
    days=st.integers(min_value=1, max_value=3650),
    steps=st.lists(st.integers(min_value=0, max_value=1000), min_size=2, max_size=6),
)
def test_min_price_is_continuous_and_non_increasing_in_years(
    rate: Decimal, days: int, steps: list[int]
) -> None:
    # from 0 (no discounting, the 75% floor) to the whole period (blank) the price never
    # rises, and a step of 1/1000 of the period moves it by at most the whole floor x
    # (1 - (1 + rate) ^ -(period / 1000)) + a cent of rounding: no jump anywhere
    dates = {"sale_date": SALE, "credit_period_end": SALE + dt.timedelta(days=days)}
    whole = D(days) / 365
    amount = D("1000000.00")
    points = sorted({D(step) / 1000 for step in steps} | {D(0), D(1)})
    prices = [beip.transfer_min_price(amount, rate, whole * p, **dates).amount for p in points]
    assert prices[0] == D("750000.00")
    assert prices[-1] == beip.transfer_min_price(amount, rate, None, **dates).amount
    assert all(a >= b for a, b in itertools.pairwise(prices))
    near = beip.transfer_min_price(amount, rate, whole / 1000, **dates).amount
    bound = D("750000") * (1 - (1 + rate) ** -(whole / 1000)) + D("0.01")
    assert D("750000.00") - near <= bound


# =========================================================================== 2. deemed ends


def test_a_refused_period_says_it_was_deemed_to_end_on_the_month_end() -> None:
    # a period ending 2024-04-01 is 1 day after the end of March 2024: deemed to end
    # 2024-03-31 (N.J.A.C. 18:7-2.3(b)), before 2024-04-01, tax year 2023 (form
    # numbering): no payment under either version of h., refused with what the rule did
    message = TEXT["NJ_BEIP_REMOTE_WORK_PAYMENT"](100000, dt.date(2024, 4, 1))
    assert "the period ending 2024-04-01, deemed to end 2024-03-31" in message
    assert "N.J.A.C. 18:7-2.3(b)" in message
    # a period ending on a month's last day is not deemed: the message does not say so
    plain = TEXT["NJ_BEIP_REMOTE_WORK_PAYMENT"](100000, dt.date(2024, 3, 31))
    assert "the period ending 2024-03-31 is tax year 2023" in plain
    assert "deemed" not in plain


def test_tax_year_help_names_the_deemed_month_end() -> None:
    from nj_incentives.functions.catalog import CALCULATIONS

    description = CALCULATIONS["NJ_TAX_YEAR"].description
    assert "N.J.A.C. 18:7-2.3(b)" in description
    assert "deemed" in description


def test_interpretations_no_longer_read_july_1_to_30_as_n() -> None:
    # a period ending 2023-07-01..07 is deemed to end 2023-06-30: tax year 2022, not 2023;
    # 2023-07-08..24 is numbered 2023 by its month; 2023-07-25..31 is deemed 07-31: 2023
    from nj_incentives.programs.cbt import rules as cbt

    assert [cbt.tax_year(dt.date(2023, 7, day)).year for day in (1, 7, 8, 24, 25, 30)] == [
        2022,
        2022,
        2023,
        2023,
        2023,
        2023,
    ]
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "interpretations.md").read_text()
    assert "July 1-30" not in text
