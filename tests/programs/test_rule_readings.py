"""The rules issue 12 moved last onto the rule language: one text each, the same figures.

Each rule here is used by the exact path only (the scenario runner computes none of them),
so each is checked against an independent statement of the law in plain Python (the
computation as it stood before it became a rule text), and its explanation against the
result it explains.
"""

from __future__ import annotations

import datetime as dt
import itertools
from decimal import Decimal
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.core.rules import EXACT, explain
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.remote_work import rules as remote_work

D = Decimal
CENT = D("0.01")


# =========================================================================== 34:1B-129a. cap


def _reference_term_cap(befores: list[Decimal], counts: list[int], method: str) -> list[Decimal]:
    """The whole-term readings as docs/interpretations.md states them, in cents."""
    cap = (D(50000) * sum(counts) / len(counts)).quantize(CENT, "ROUND_DOWN")
    if method == "whole_term":
        grants, paid = [], D(0)
        for before in befores:
            grant = min(before, max(D(0), cap - paid))
            grants.append(grant)
            paid += grant
        return grants
    total = sum(befores, D(0))
    if total <= cap:
        return list(befores)
    cents = [int(b * 100) for b in befores]
    parts = [c * int(cap * 100) // int(total * 100) for c in cents]
    left = int(cap * 100) - sum(parts)
    for i in reversed(range(len(parts))):  # from the last year back, up to each grant
        extra = min(cents[i] - parts[i], left)
        parts[i] += extra
        left -= extra
    return [D(p) / 100 for p in parts]


@given(
    befores=st.lists(st.integers(0, 10**10), min_size=1, max_size=10),
    employees=st.lists(st.integers(0, 60), min_size=10, max_size=10),
    proportional=st.booleans(),
)
def test_term_cap_rule_is_the_reading(
    befores: list[int], employees: list[int], proportional: bool
) -> None:
    money = [D(b) / 100 for b in befores]
    counts = employees[: len(befores)]
    cap = BEIP.AVERAGE_CAP.at(dt.date(2010, 1, 1))  # the cap of the reference (a 2010 agreement)
    years, before_total = beip.term_cap_years(EXACT, money, counts, proportional, cap)
    method = "proportional" if proportional else "whole_term"
    grants = [grant for _, grant in years]
    assert grants == _reference_term_cap(money, counts, method)
    assert all(0 <= grant <= before for grant, before in zip(grants, money, strict=True))
    assert before_total == sum(money, D(0))
    # the explanation explains the same figures
    values, steps = explain(beip.term_cap_years, money, counts, proportional, cap)
    assert values == (years, before_total)
    assert steps
    assert all(step.citation for step in steps)


def test_term_cap_explanation_worked_example() -> None:
    # 3 x 300,000 before the cap, 10 + 12 + 2 new employees: cap 50,000 x 24 / 3 = 400,000;
    # proportional: 300,000 x 400,000 / 900,000 = 133,333.33 each, the cent left to year 3
    schedule = beip.grant_schedule(
        [600000] * 3, [10, 12, 2], "0.5", "2010-01-01", cap_method="proportional"
    )
    texts = [str(step) for step in schedule.steps]
    assert any("50,000.00 x (10 + 12 + 2) / 3 = 400,000.00" in text for text in texts)
    assert any(
        "Cents left over" in text
        and "400,000.00 - (133,333.33 + 133,333.33 + 133,333.33) = 0.01" in text
        for text in texts
    )
    assert texts[-1].startswith(
        "Total grant paid: 133,333.33 + 133,333.33 + 133,333.34 = 400,000.00"
    )
    whole = beip.grant_schedule(
        [600000] * 3, [10, 12, 2], "0.5", "2010-01-01", cap_method="whole_term"
    )
    # year 2: min(300,000, max(0, 400,000 - 300,000)) = 100,000
    assert any(
        "min(300,000.00, max(0, 400,000.00 - 300,000.00)) = 100,000.00" in str(step)
        for step in whole.steps
    )


def test_proportional_cents_never_above_a_years_grant() -> None:
    """Regression (found by test_tax_periods_and_switches's property): the cents left over all went
    to the last year with a grant, which could then be paid more than its grant before the
    cap. Grants before the cap 0.50, 306,517.50, 587,643.50, 0.50 (total 894,162.00); cap
    50,000 x 174 / 10 = 870,000.00; x cap / total, rounded down: 0.48, 298,234.79,
    571,764.22, 0.48 (870,000.00 - 869,999.97 = 0.03 left over). Before: the last year got
    0.48 + 0.03 = 0.51 > 0.50; now it takes 0.02 (up to its 0.50), the year before 0.01."""
    withholdings = [0, 0, 0, 0, 0, 0, 1, 613035, 1175287, 1]
    employees = [0, 0, 0, 0, 0, 0, 24, 50, 50, 50]
    schedule = beip.grant_schedule(
        withholdings, employees, "0.5", "2010-01-01", cap_method="proportional"
    )
    grants = [row.grant for row in schedule.rows][6:]
    assert grants == [D("0.48"), D("298234.79"), D("571764.23"), D("0.50")]
    assert schedule.total == D("870000.00")


# =========================================================================== 52:27BBB-55a., d.


def test_eligibility_rule_is_the_conjunction() -> None:
    for uez, prior, municipality in itertools.product((False, True), repeat=3):
        check = ertc.eligibility_check(uez, prior, municipality)
        assert check.ok == (municipality and not uez and not prior)
        assert len(check.reasons) == (not municipality) + uez + prior
        *_, eligible = ertc.eligibility_rule(EXACT, uez, prior, municipality)
        assert eligible == check.ok
        # the explanation: the three facts, the conjunction, the result
        labels = [step.label for step in check.steps]
        assert labels[:3] == [
            "Within a qualified municipality",
            "Receives an Urban Enterprise Zone benefit",
            "Prior 24-month credit period at this location",
        ]
        assert check.steps[3].value is check.ok
        assert labels[-1] == "Result"


# =========================================================================== 52:27BBB-55e.


def _places(value: Fraction) -> Decimal:
    return Decimal(round(value * 10**10)).scaleb(-10)


@given(hours=st.integers(0, 10**9), months=st.integers(1, 24))
def test_fte_rule_is_hours_over_140_a_month(hours: int, months: int) -> None:
    given_hours = D(hours) / 100
    result = ertc.explain_fte(given_hours, months)
    assert result.fte == _places(Fraction(given_hours) / (140 * months))
    (step,) = result.steps
    assert step.value == result.fte
    assert f"/ (140 x {months})" in step.arithmetic


def _reference_positions(
    roster: list[ertc.EmployeeHours], all_months: bool
) -> tuple[int, Decimal, int, int]:
    """e. as docs/interpretations.md reads it: (full-time months, part-time hours,
    part-time employees, not counted)."""
    months, hours, part_time, not_counted = 0, D(0), 0, 0
    for employee in roster:
        if employee.temporary or employee.excluded:
            not_counted += 1
            continue
        other = [h for h in employee.hours if h < 140]
        tested = list(employee.hours) if all_months else other
        qualifying = sum(1 for h in tested if Fraction(h) >= Fraction(260, 3))
        months += 12 - len(other)
        if qualifying >= 3:
            part_time += 1
            hours += sum(other, D(0))
    return months, hours, part_time, not_counted


month_hours = st.sampled_from([0, 40, 86, 87, D("86.67"), 100, D("139.99"), 140, 160, 200])
employees = st.builds(
    ertc.EmployeeHours,
    hours=st.lists(month_hours, min_size=12, max_size=12).map(lambda hs: tuple(D(h) for h in hs)),
    temporary=st.booleans(),
    excluded=st.booleans(),
)


@given(roster=st.lists(employees, max_size=6), all_months=st.booleans())
def test_positions_rule_is_the_reading(roster: list[ertc.EmployeeHours], all_months: bool) -> None:
    test = "all_months" if all_months else "non_full_time"
    count = ertc.average_positions(roster, test)
    months, hours, part_time, not_counted = _reference_positions(roster, all_months)
    assert (count.full_time_months, count.part_time_hours) == (months, hours)
    assert (count.part_time_employees, count.not_counted) == (part_time, not_counted)
    assert count.average == _places(Fraction(months, 12) + Fraction(hours) / 1680)
    assert count.fte == _places(Fraction(hours) / 1680)
    # four steps per employee, then the months, the hours, the equivalents, the average
    assert len(count.steps) == 4 * len(roster) + 4
    assert count.steps[-1].value == count.average


# =========================================================================== 34:1B-129g.(3)


@given(
    certificate=st.integers(0, 10**8),
    amount=st.integers(0, 10**8),
    paid=st.integers(0, 10**8),
    rate=st.integers(0, 30),
    transferee=st.booleans(),
)
def test_transfer_rule_is_g3(
    certificate: int, amount: int, paid: int, rate: int, transferee: bool
) -> None:
    """ok exactly when g.(3) holds: not a transferee; 0 < amount, min(100,000, certificate)
    <= amount <= certificate; consideration >= 75% of the amount (no discounting here);
    the rate within the 20% bound."""
    money = [D(x) / 100 for x in (certificate, amount, paid)]
    check = beip.transfer_check(*money, D(rate) / 100, None, None, None, transferee)
    lowest = (money[1] * D("0.75")).quantize(CENT, "ROUND_DOWN")
    lawful = (
        not transferee
        and money[1] > 0
        and min(D(100000), money[0]) <= money[1] <= money[0]
        and money[2] >= lowest
        and rate <= 20
    )
    assert check.ok == lawful
    assert check.minimum_price == lowest
    assert check.minimum_transfer == min(D(100000), money[0])
    assert check.steps[-1].label == "Result"


def test_transfer_discount_step_worked_example() -> None:
    # 150,000 x 75% = 112,500; / 1.05^3 (1,095 days / 365 = 3 years) = 97,181.7298...
    check = beip.transfer_check(250000, 150000, 100000, "0.05", None, "2024-01-01", "2026-12-31")
    assert check.minimum_price == D("97181.72")
    texts = [str(step) for step in check.steps]
    assert any("150,000.00 x 75% / (1 + 5%) ^ 3 = 97,181.7298..." in text for text in texts)


# =========================================================================== 34:1B-129h.


@given(
    day=st.dates(dt.date(2020, 1, 1), dt.date(2024, 12, 31)),
    share=st.integers(0, 100),
    declared=st.booleans(),
)
def test_remote_work_rule_is_h(day: dt.date, share: int, declared: bool) -> None:
    reading = "emergency_declared" if declared else "emergency_ended"
    check = remote_work.remote_work_check(day, D(share) / 100, reading)
    follows = day > dt.date(2020, 3, 9) if declared else day >= dt.date(2021, 6, 4)
    assert check.ok == (follows and day < dt.date(2023, 12, 31) and share >= 10)
    assert len(check.reasons) == (not follows) + (day >= dt.date(2023, 12, 31)) + (share < 10)
    labels = [step.label for step in check.steps]
    assert labels[0] == "Waiver period"
    assert labels[-1] == "Result"
