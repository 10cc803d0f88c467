"""A credit schedule that starts after the credit years ended: the credit carried into
its first period, per credit year with the period it was allowed in (N.J.S.A.
52:27BBB-55b.(2); docs/interpretations.md "Credit carried into the first period").

A workpaper rolled forward past the Form 313 template's eight periods drops its oldest
period and carries its outcome in (``ertc.opening_after``); the figures must be those of
one schedule over every period: a worked example, and a property over random
liabilities, limits and roll sequences. The refusals name the argument, the value and
the rule.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.core.common import InputError
from nj_incentives.programs.ertc import rules as ertc


def periods(first_year: int, liabilities: list[int], minimum_tax: int = 2000) -> tuple:
    count = len(liabilities)
    return ertc.privilege_periods(
        [dt.date(first_year + k, 12, 31) for k in range(count)],
        liabilities,
        [0] * count,
        [minimum_tax] * count,
    )


def rows(schedule: ertc.CreditSchedule) -> list[dict[str, object]]:
    """The rows without their notes (a carried-in row's note says so)."""
    return [row.model_dump(exclude={"note"}) for row in schedule.rows]


#: Operations from 2023-03-15: credit year one 2023-04-01 to 2024-03-31 (allowed in the
#: 2024 period), year two to 2025-03-31 (2025); 10 and 8 new positions: 25,000 and 10,000.
START, Y1, Y2 = "2023-03-15", 10, 8


def test_worked_example_a_schedule_started_in_2026() -> None:
    # One schedule, 2023-2027, liabilities 4,000, 9,000, 6,000, 3,000, 8,000, minimum
    # 2,000, carryforward limit 2 periods:
    # 2023: no credit. 2024: +25,000 (year one); limit min(4,500, 7,000) = 4,500; used
    #   4,500; year one left 20,500.
    # 2025: +10,000 (year two); limit min(3,000, 4,000) = 3,000, used from year one (17,500
    #   left); refund 17,500 x 8 / 10 = 14,000 (c.(2)); year one left 3,500, year two
    #   10,000; carried out 13,500.
    # 2026: limit min(1,500, 1,000) = 1,000, used from year one (2,500 left); year one,
    #   allowed 2024, expires after 2024 + 2 = 2026: 2,500 expired; carried out 10,000.
    # 2027: limit min(4,000, 6,000) = 4,000 from year two (6,000 left); year two, allowed
    #   2025, expires after 2027: 6,000 expired; carried out 0.
    whole = ertc.credit_schedule(
        START, Y1, Y2, periods(2023, [4000, 9000, 6000, 3000, 8000]), carryforward_years=2
    )
    assert [r.expired for r in whole.rows] == [0, 0, 0, D(2500), D(6000)]
    # Started in 2026 (2023-2025 dropped): year one's 3,500 (allowed 2 periods before
    # 2026) and year two's 10,000 (1 period before) carried in: the same 2026 and 2027.
    carried, before = ertc.opening_after(whole, 3)
    assert carried == [D(3500), D(10000)]
    assert before == [2, 1]
    later = ertc.credit_schedule(
        START,
        Y1,
        Y2,
        periods(2026, [3000, 8000]),
        carryforward_years=2,
        opening_carried=carried,
        opening_before=before,
    )
    assert rows(later) == rows(whole)[3:]
    assert later.rows[0].carried_in == D(13500)
    assert "carried in from earlier periods" in later.rows[0].note
    # 13,500 carried in + 0 allowed = 5,000 used + 0 refunded + 8,500 expired + 0 left
    assert (later.carried_in, later.credits_allowed) == (D(13500), 0)
    assert (later.used, later.refunded, later.expired, later.carried_out) == (
        D(5000),
        0,
        D(8500),
        0,
    )
    assert later.allowed_in == (-2, -1)
    step = later.steps[-1]
    assert step.arithmetic == "13,500.00 carried in + 0.00 = 5,000.00 + 0.00 + 8,500.00 + 0.00"


def test_year_one_carried_in_is_refunded_when_year_two_ends_in_a_period_shown() -> None:
    # Started in 2025, the period credit year two ends in: year one's 20,500 left after
    # 2024 (25,000 - 4,500) is carried in; 2025 uses 3,000 of it and refunds 17,500 x 0.8 =
    # 14,000, as the schedule from 2023 does (c.(2)).
    whole = ertc.credit_schedule(START, Y1, Y2, periods(2023, [4000, 9000, 6000, 3000]))
    carried, before = ertc.opening_after(whole, 2)
    assert (carried, before) == ([D(20500), None], [1, None])
    later = ertc.credit_schedule(
        START, Y1, Y2, periods(2025, [6000, 3000]), opening_carried=carried
    )
    assert rows(later) == rows(whole)[2:]
    assert later.rows[0].refund == D(14000)


@settings(max_examples=60, deadline=None)
@given(
    liabilities=st.lists(st.integers(0, 40_000), min_size=9, max_size=14),
    minimum=st.sampled_from([500, 2000]),
    keep=st.none() | st.integers(0, 10),
    positions=st.tuples(st.integers(0, 20), st.integers(0, 20)),
    first=st.integers(1, 3),
)
def test_rolling_a_window_of_eight_equals_one_schedule(
    liabilities: list[int],
    minimum: int,
    keep: int | None,
    positions: tuple[int, int],
    first: int,
) -> None:
    # As nj-incentives rollforward rolls the Form 313 template: the first workbook holds
    # ``first`` periods, each roll adds one; at eight, each roll drops the oldest and
    # carries its outcome in (opening_after). Every window's figures are those of the one
    # schedule over all periods.
    window = 8
    y1, y2 = positions
    whole = ertc.credit_schedule(
        "2021-10-01", y1, y2, periods(2021, liabilities, minimum), carryforward_years=keep
    )  # credit year one ends 2022-10-31, two 2023-10-31: periods 2 and 3 (index 1, 2)
    expected = rows(whole)
    start, schedule = 0, None
    for end in range(max(first, 3), len(liabilities) + 1):
        opening: tuple[list[D | None], list[int | None]] = ([], [])
        if end - start > window:  # full: drop the oldest, carry its outcome in
            assert schedule is not None
            opening = ertc.opening_after(schedule, 1)
            start += 1
        schedule = ertc.credit_schedule(
            "2021-10-01",
            y1,
            y2,
            periods(2021 + start, liabilities[start:end], minimum),
            carryforward_years=keep,
            opening_carried=opening[0],
            opening_before=opening[1],
        )
        assert rows(schedule) == expected[start:end]
        assert schedule.carried_in + schedule.credits_allowed == (
            schedule.used + schedule.refunded + schedule.expired + schedule.carried_out
        )
    assert start == len(liabilities) - window


def test_what_is_refused() -> None:
    later = periods(2026, [3000, 8000])

    def refused(argument: str, match: str, **options: object) -> None:
        with pytest.raises(InputError, match=rf"^{argument} = .*{match}") as raised:
            ertc.credit_schedule(START, Y1, Y2, later, **options)  # type: ignore[arg-type]
        assert "N.J.S.A. 52:27BBB-55b." in str(raised.value)

    # today's message, and what to give: credit year one ended before the first period
    refused("period_ends", "outside every period given.*opening_carried")
    # only unused credit carries: year one's credit is 25,000
    refused("opening_carried", "more than its credit, 25,000.00", opening_carried=[25000.01, 0])
    # a credit year ending in a period shown has its credit allowed there
    shown = periods(2025, [6000, 3000])
    with pytest.raises(InputError, match=r"^opening_carried = .*not before the first period"):
        ertc.credit_schedule(START, Y1, Y2, shown, opening_carried=[100, 100])
    # with a limit, a positive amount needs its origin; and it may have expired
    refused(
        "opening_before", "is required.*limit of 5", opening_carried=[100, 0], carryforward_years=5
    )
    refused(
        "opening_carried",
        "allowed 3 periods before the first, expired after 2",
        opening_carried=[100, 0],
        opening_before=[3, 1],
        carryforward_years=2,
    )
    # an origin without its amount; year one allowed after year two; three credit years
    refused(
        "opening_before",
        "but not the credit carried in",
        opening_carried=[None, 5],
        opening_before=[2, 1],
    )
    refused(
        "opening_before",
        "year one's credit is allowed first",
        opening_carried=[1, 1],
        opening_before=[1, 2],
    )
    refused("opening_carried", "one value per credit year", opening_carried=[1, 1, 1])
    refused("opening_before", "at least 1|must be", opening_carried=[1, 1], opening_before=[0, 0])
    # nothing left of an expired credit is not refused: 0 carried in
    fine = ertc.credit_schedule(
        START, Y1, Y2, later, carryforward_years=2, opening_carried=[0, 0], opening_before=[3, 2]
    )
    assert fine.carried_in == 0
