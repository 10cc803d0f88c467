"""Grow NJ and Emerge credit schedules with the award as input (issue 33 item 5): worked
examples with their arithmetic, the ledger's invariants (hypothesis) and bad input."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.core import ledger as L
from nj_incentives.core.common import InputError
from nj_incentives.core.rules import EXACT
from nj_incentives.functions.table import functions
from nj_incentives.programs.emerge import rules as emerge
from nj_incentives.programs.grow_nj import rules as grow

D = Decimal
HEADER = ["kind", "date", "period", "amount", "price", "issued"]


def test_grow_nj_annual_credit_rounds_down() -> None:
    # 19:31Q-1.9(a): 1,000,000.00 / 3 = 333,333.333... -> 333,333.33 (fraction of a cent dropped)
    assert grow.annual_credit(1_000_000, 3).amount == D("333333.33")
    # blank years: the longest eligibility period, 10 (34:1B-244 a.): 1,000,000 / 10
    assert grow.annual_credit(1_000_000).amount == D("100000.00")


def test_grow_nj_ten_year_schedule_with_a_transfer_and_a_buy_back() -> None:
    # Award $1,000,000 over 10 years: 100,000.00 a period (19:31Q-1.9(a)); calendar periods
    # 2020 to 2031; liability 40,000 a period in 2020-2029, 0 after.
    # Period 3 (2022): a transfer certificate sells 50,000 of period 2's credit for 40,000
    #   (>= 25,000, and 40,000 >= 75% x 50,000 = 37,500: 34:1B-248).
    # Period 7 (2026-06-30): period 5's credit is sold to the State whole. It may be used
    #   through period 5 + 20 = 25 (2044-12-31); presented more than 3 years before: at most
    #   20% (18:34-1.7(a)1).
    events = [
        HEADER,
        ["transfer", "2022-06-30", 2, 50000, 40000, None],
        ["sale", "2026-06-30", 5, None, None, None],
    ]
    ledger = grow.credit_schedule(
        1_000_000, dt.date(2020, 12, 31), [40000] * 10 + [0, 0], 10, events
    )
    rows = ledger.rows
    assert [r.new_credit for r in rows] == [D("100000.00")] * 10 + [D("0.00")] * 2
    # Oldest first: period 1's 100,000 is used 40,000 in 2020 and 2021, 20,000 in 2022
    # with 20,000 of period 2's. Period 2's credit after 2022: 100,000 - 50,000 - 20,000
    # = 30,000; used 30,000 in 2023 with 10,000 of period 3's.
    assert rows[2].transferred == D("50000.00")
    assert rows[2].proceeds == D("40000.00")
    # carried out 2022: 60,000 + 60,000... = 120,000 (2021) + 100,000 - 40,000 - 50,000
    assert rows[1].carried_out == D("120000.00")  # 60,000 + 100,000 - 40,000
    assert rows[2].carried_out == D("130000.00")  # 120,000 + 100,000 - 40,000 - 50,000
    # By 2026 (period 7), used 40,000 x 6 = 240,000 of periods 1-6, transferred 50,000:
    # periods 1-3 gone (300,000 - 50,000 = 250,000 >= 240,000 leaves 10,000 of period 3)
    # and period 5's 100,000 is whole: sold 100,000 for 20% = 20,000.00.
    assert rows[6].sold == D("100000.00")
    assert rows[6].proceeds == D("20000.00")
    # Totals: allowed 1,000,000 = used 400,000 + transferred 50,000 + sold 100,000
    # + expired 0 + carried out 450,000.
    assert ledger.used == D("400000.00")
    assert ledger.carried_out == D("450000.00")
    assert (
        ledger.used + ledger.transferred + ledger.sold + ledger.expired + ledger.carried_out
        == ledger.credits_allowed
        == D("1000000.00")
    )
    assert "20% " in ledger.explain() or "sold for 20,000.00" in ledger.explain()


def test_grow_nj_credit_expires_after_twenty_periods() -> None:
    # 1 year of eligibility, 10,000 credit, no liability for 22 periods: usable in periods
    # 1 to 21 (the period allowed + 20), expired at the end of period 21.
    ledger = grow.credit_schedule(10_000, dt.date(2020, 12, 31), [0] * 22, 1)
    assert ledger.rows[19].expired == 0
    assert ledger.rows[20].expired == D("10000.00")
    assert ledger.rows[20].carried_out == 0


@pytest.mark.parametrize(
    ("presented", "boundary", "share"),
    [
        # expires 2040-12-31: 3 years before = 2037-12-31
        (dt.date(2037, 12, 30), "lower", D("0.20")),  # more than 3 years: 20%
        (dt.date(2037, 12, 31), "lower", D("0.20")),  # exactly 3: no bracket; the smaller
        (dt.date(2037, 12, 31), "higher", D("0.40")),  # ... or the larger (switch)
        (dt.date(2038, 6, 30), "lower", D("0.40")),  # 2-3 years: 40%
        (dt.date(2039, 6, 30), "lower", D("0.60")),  # 1-2 years: 60%
        (dt.date(2040, 10, 2), "lower", D("0.75")),  # 90 days before (Oct 2 + 90 = Dec 31): 75%
        (dt.date(2040, 10, 3), "lower", D("0")),  # 89 days: not eligible
    ],
)
def test_grow_nj_state_purchase_brackets(presented: dt.date, boundary: str, share: Decimal) -> None:
    found = grow.state_purchase(100_000, dt.date(2040, 12, 31), presented, boundary)
    assert found.share == share
    assert found.maximum_price == (D(100_000) * share).quantize(D("0.01"))
    assert found.eligible == (share > 0)


def test_emerge_surrender() -> None:
    # Award 700,000 over 7 years: 100,000.00 a period (19:31U-1.11(a)); liability 30,000
    # a period. Period 3's credit (issued 2025-03-15) is surrendered on 2027-03-15, exactly
    # 2 years after issuance (18:34-1.7(b): "not ... less than two years"): by then
    # (period 5, 2027) 30,000 x 4 = 120,000 of periods 1-2 was used, period 3's credit is
    # whole: 100,000 x 90% = 90,000.00.
    events = [["sale", "2027-03-15", 3, None, None, "2025-03-15"]]
    ledger = emerge.credit_schedule(700_000, dt.date(2023, 12, 31), [30000] * 10, 7, events)
    assert ledger.annual_credit == D("100000.00")
    row = ledger.rows[4]
    assert (row.period_end, row.sold, row.proceeds) == (
        dt.date(2027, 12, 31),
        D("100000.00"),
        D("90000.00"),
    )
    assert emerge.surrender(12_345.67, "2024-01-10", "2026-01-10").price == D("11111.10")
    # 12,345.67 x 90% = 11,111.103 -> 11,111.10; a day earlier: not eligible, 0
    assert emerge.surrender(12_345.67, "2024-01-10", "2026-01-09").price == 0


def test_emerge_credit_expires_after_seven_periods() -> None:
    # usable in the period allowed and the 7 after: period 1's credit expires after period 8
    ledger = emerge.credit_schedule(50_000, dt.date(2023, 12, 31), [0] * 9, 1)
    assert [r.expired for r in ledger.rows] == [0] * 7 + [D("50000.00"), 0]


@pytest.mark.parametrize(
    ("call_", "argument", "words"),
    [
        (
            lambda: grow.credit_schedule(
                100_000, "2020-12-31", [0] * 3, 1, [["transfer", "2020-06-30", 1, 20000, 20000]]
            ),
            "events row 1 amount",
            "at least $25,000",
        ),
        (
            lambda: grow.credit_schedule(
                100_000, "2020-12-31", [0] * 3, 1, [["transfer", "2020-06-30", 1, 30000, 22000]]
            ),
            "events row 1 price",
            "at least 75%",
        ),
        (
            lambda: grow.credit_schedule(
                100_000, "2020-12-31", [0] * 3, 2, [["transfer", "2020-06-30", 2, 30000, 30000]]
            ),
            "events row 1 period",
            "not allowed before that period",
        ),
        (
            lambda: grow.credit_schedule(
                100_000, "2020-12-31", [0] * 3, 1, [["transfer", "2021-06-30", 1, 300000, 300000]]
            ),
            "events row 1 amount",
            "more than is left",
        ),
        (
            lambda: grow.credit_schedule(
                100_000, "2020-12-31", [0] * 3, 1, [["swap", "2021-06-30", 1, 1, 1]]
            ),
            "events row 1 kind",
            'one of "transfer", "sale"',
        ),
        (
            lambda: grow.credit_schedule(
                100_000,
                "2020-12-31",
                [0] * 5,
                1,
                [["transfer", "2024-06-30", 1, 30000, 30000, "2020-12-31"]],
                "rule",
            ),
            "events row 1 date",
            "3 years from the credit's issuance",
        ),
        (lambda: grow.annual_credit(100_000, 11), "eligibility_years", "from 1 to 10"),
        (
            lambda: grow.state_purchase(1, "2040-12-31", "2039-01-01", "middle"),
            "boundary",
            "one of",
        ),
        (
            lambda: emerge.credit_schedule(
                100_000, "2020-12-31", [0] * 5, 1, [["transfer", "2024-01-15", 1, 30000, 25000]]
            ),
            "events row 1 price",
            "at least 85%",
        ),
        (
            lambda: emerge.credit_schedule(
                100_000, "2020-12-31", [0] * 5, 1, [["transfer", "2024-01-15", 1, 30000, 30000]]
            ),
            "events row 1 date",
            "3 years from the end of the period",
        ),
        (
            lambda: emerge.credit_schedule(
                100_000, "2020-12-31", [0] * 5, 1, [["sale", "2023-01-15", 1]]
            ),
            "events row 1 issued",
            "give its date",
        ),
    ],
)
def test_bad_input_names_argument_value_rule_and_citation(
    call_: object, argument: str, words: str
) -> None:
    with pytest.raises(InputError) as caught:
        call_()  # type: ignore[operator]
    assert caught.value.argument == argument
    assert words in caught.value.rule
    assert caught.value.citation


def test_functions_spill_the_schedule_and_refuse_by_message() -> None:
    table = functions()["NJ_GROW_NJ_SCHEDULE"](300000, 43830.0, [100000, 100000, 0], 3)
    assert table[0][:3] == ["Period", "Period end", "New credit"]
    assert [row[5] for row in table[1:]] == [100000.0, 100000.0, 0.0]
    refused = functions()["NJ_EMERGE_SURRENDER"](-1, "2024-01-01", "2026-01-01")
    assert isinstance(refused, str)
    assert refused.startswith("#VALUE!")
    assert "credit = -1" in refused


@settings(max_examples=60, deadline=None)
@given(
    award=st.integers(0, 10**8),
    years=st.integers(1, 10),
    liabilities=st.lists(st.integers(0, 10**7), min_size=1, max_size=24),
    keep=st.sampled_from([None, 0, 1, 7, 20]),
)
def test_ledger_conserves_credit_and_uses_none_before_it_is_allowed(
    award: int, years: int, liabilities: list[int], keep: int | None
) -> None:
    annual = EXACT.div(D(award) / 100, years)
    new = [annual if i < years else D("0.00") for i in range(len(liabilities))]
    limits = [D(x) / 100 for x in liabilities]
    periods, _ = L.ledger_rule(EXACT, new, limits, keep)
    allowed_so_far = D(0)
    used_so_far = D(0)
    for period, limit, credit in zip(periods, limits, new, strict=True):
        allowed_so_far += credit
        used_so_far += period.used
        assert 0 <= period.used <= limit  # never above the period's limit
        assert used_so_far <= allowed_so_far  # never a credit before it is allowed
        assert period.carried_out == (period.carried_in + period.new - period.used - period.expired)
        assert period.carried_out >= 0
        # oldest first, nothing held back: a period with room left used everything
        if period.used < limit:
            assert period.carried_out == 0
            assert period.expired == 0
