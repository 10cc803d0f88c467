"""The BEIP grant core (nj_incentives.programs.beip.rules): N.J.S.A. 34:1B-129, 34:1B-134, N.J.A.C.
19:31I.

Worked examples carry their arithmetic in comments; invariants are property-tested.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from nj_incentives.core.common import Explained, InputError
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.beip.rules import (
    Basis,
    TransferCheck,
    TransferPrice,
    annual_grant,
    apply_credit,
    cap_applies,
    combined_limit,
    conversion_installment,
    conversion_schedule,
    grant_schedule,
    pct_limits,
    transfer_check,
    transfer_min_price,
    validate_term,
)
from nj_incentives.programs.remote_work.rules import remote_work_check, remote_work_payment

D = Decimal
money = st.decimals(min_value=0, max_value=10**10, places=2, allow_nan=False, allow_infinity=False)
#: Installments per accrual year, read straight off e.(1)-(13) (independent of the module).
INSTALLMENTS_BY_ACCRUAL_YEAR = {
    **dict.fromkeys(range(2008, 2014), (5, 2017)),  # (1)
    2014: (4, 2019),  # (2)
    2015: (4, 2019),  # (3)
    2016: (3, 2020),  # (4)
    2017: (3, 2020),  # (5)
    2018: (2, 2022),  # (6)
    2019: (2, 2022),  # (7)
    **dict.fromkeys(range(2020, 2024), (2, 2023)),  # (8)-(11)
    2024: (1, 2025),  # (12)
    2025: (1, 2025),  # (13)
}


def amounts(schedule: beip.ConversionSchedule) -> list[tuple[int, Decimal]]:
    return [(row.tax_year, row.amount) for row in schedule.rows]


# =========================================================================== a., b.


@pytest.mark.parametrize(
    ("basis", "smart_growth", "expected"),
    [
        ("withholdings", False, (D("0.10"), D("0.50"))),  # a.: 10% to 50%
        ("partners", False, (D("0.10"), D("0.30"))),  # a.: 10% to 30%
        ("Withholdings", True, (D("0.10"), D("0.80"))),  # b.: up to 80%
        (Basis.PARTNERS, "yes", (D("0.10"), D("0.50"))),  # b.: up to 50%
    ],
)
def test_pct_limits(basis: str, smart_growth: bool, expected: tuple[Decimal, Decimal]) -> None:
    assert pct_limits(basis, smart_growth) == expected


def test_unknown_basis_is_an_error() -> None:
    with pytest.raises(InputError) as caught:
        pct_limits("payroll")
    assert caught.value.argument == "basis"
    assert '"withholdings", "partners"' in str(caught.value)
    assert "N.J.S.A. 34:1B-129a." in str(caught.value)


def test_annual_grant_on_withholdings() -> None:
    # 1,250,000.00 x 20% = 250,000.00
    grant = annual_grant(1250000, 0.2)
    assert grant.amount == D("250000.00")
    assert grant.withholdings_part == D("250000.00")
    assert grant.partners_part == 0
    assert grant.steps[-1].arithmetic == "1,250,000.00 x 20% = 250,000.00"
    assert grant.steps[-1].citation == "N.J.S.A. 34:1B-129a."


def test_annual_grant_combines_both_bases_each_rounded_down() -> None:
    # withholdings: 333,333.33 x 15% = 49,999.9995 -> 49,999.99
    # partners:     100,000.01 x 30% = 30,000.003  -> 30,000.00
    # total 49,999.99 + 30,000.00 = 79,999.99 (not 80,000.00: each part is truncated)
    grant = annual_grant(D("333333.33"), D("0.15"), D("100000.01"), D("0.30"))
    assert grant.withholdings_part == D("49999.99")
    assert grant.partners_part == D("30000.00")
    assert grant.amount == D("79999.99")
    assert "rounded down to 49,999.99" in grant.arithmetic


def test_a_basis_at_zero_percent_is_unused() -> None:
    # pct 0: the withholdings contribute nothing; partners 200,000.00 x 25% = 50,000.00
    grant = annual_grant(9_999_999, 0, 200000, 0.25)
    assert grant.amount == D("50000.00")
    assert grant.withholdings_part == 0
    assert "not used" in grant.steps[0].label


def test_smart_growth_allows_80_percent() -> None:
    # b.: 1,000,000.00 x 80% = 800,000.00
    assert annual_grant(1000000, 0.8, smart_growth=True).amount == D("800000.00")
    with pytest.raises(InputError, match="from 10% to 50% of the withholdings"):
        annual_grant(1000000, 0.8)


@pytest.mark.parametrize(
    ("kwargs", "argument", "fragment"),
    [
        ({"withholdings": -1, "pct": 0.5}, "withholdings", "must not be negative"),
        ({"withholdings": 100, "pct": 50}, "pct", "did you mean 50%?"),
        ({"withholdings": 100, "pct": 0.05}, "pct", "must be from 10% to 50%"),
        ({"withholdings": 100, "pct": 0.51}, "pct", "must be from 10% to 50%"),
        (
            {"withholdings": 0, "pct": 0, "partner_tax": 100, "partner_pct": 0.35},
            "partner_pct",
            "must be from 10% to 30% of the partners' estimated tax",
        ),
        ({"withholdings": 100, "pct": 0}, "pct", "at least one basis must be used"),
        ({"withholdings": "abc", "pct": 0.5}, "withholdings", "must be a number"),
        ({"withholdings": 100, "pct": 0.5, "smart_growth": "maybe"}, "smart_growth", "TRUE"),
    ],
)
def test_bad_grant_input(kwargs: dict[str, object], argument: str, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        annual_grant(**kwargs)  # type: ignore[arg-type]
    assert caught.value.argument == argument
    assert fragment in str(caught.value)
    assert "N.J.S.A. 34:1B-129" in str(caught.value)


@given(
    basis=st.sampled_from(list(Basis)),
    smart_growth=st.booleans(),
    data=st.data(),
)
def test_percentages_outside_the_bounds_always_fail(
    basis: Basis, smart_growth: bool, data: st.DataObject
) -> None:
    low, high = pct_limits(basis, smart_growth)
    pct = data.draw(
        st.one_of(
            st.decimals(min_value=D("0.0001"), max_value=low - D("0.0001"), places=4),
            st.decimals(min_value=high + D("0.0001"), max_value=D(1), places=4),
            st.decimals(min_value=D("1.0001"), max_value=D(1000), places=4),
            st.decimals(min_value=D(-1000), max_value=D("-0.0001"), places=4),
        )
    )
    argument = "pct" if basis is Basis.WITHHOLDINGS else "partner_pct"
    # the other basis is used at a lawful 10%, so only the tested percentage can fail
    args = {"pct": D("0.10"), "partner_pct": D("0.10"), argument: pct}
    with pytest.raises(InputError) as caught:
        annual_grant(1000, args["pct"], 1000, args["partner_pct"], smart_growth)
    assert caught.value.argument == argument


@given(
    basis=st.sampled_from(list(Basis)),
    smart_growth=st.booleans(),
    data=st.data(),
    base=money,
)
def test_percentages_inside_the_bounds_are_accepted(
    basis: Basis, smart_growth: bool, data: st.DataObject, base: Decimal
) -> None:
    low, high = pct_limits(basis, smart_growth)
    pct = data.draw(st.decimals(min_value=low, max_value=high, places=4))
    if basis is Basis.WITHHOLDINGS:
        grant = annual_grant(base, pct, smart_growth=smart_growth)
    else:
        grant = annual_grant(0, 0, base, pct, smart_growth=smart_growth)
    # rounded down: never above the exact product, less than a cent below it
    assert grant.amount <= base * pct < grant.amount + D("0.01")


# =========================================================================== c.


def test_term() -> None:
    assert validate_term(10) == 10
    assert validate_term(1.0) == 1
    for bad in (0, 11):
        with pytest.raises(InputError, match=r"term = .*from 1 to 10 years.*34:1B-129c\."):
            validate_term(bad)


# =========================================================================== cap of a.


def test_cap_applies_from_july_2003() -> None:
    assert cap_applies("2003-07-01") is True
    assert cap_applies(dt.date(2003, 6, 30)) is False
    with pytest.raises(InputError, match="agreement_date = 'June 2003': must be a date"):
        cap_applies("June 2003")


def test_the_regulations_own_example() -> None:
    # N.J.A.C. 19:31I-1.4(a): 600,000.00 x 50% = 300,000.00 a year.
    # Years 1-5: 2,000 new employees; cap room in year 5 = 50,000 x 2,000 - 1,200,000
    #   = 98,800,000 -> paid 300,000 each, 1,500,000 in all ($750 per employee).
    # Year 6: 25 new employees: max(0, 50,000 x 25 - 1,500,000) = max(0, -250,000) = 0
    #   -> paid 0.00 ($1,500,000 / 25 = $60,000 > $50,000).
    # Year 7: 1,000 new employees: 50,000 x 1,000 - 1,500,000 = 48,500,000 -> paid 300,000.
    # The term stays 7 years: the missed year is not added at the end.
    schedule = grant_schedule([600000] * 7, [2000] * 5 + [25, 1000], 0.5, "2004-03-01")
    assert [row.grant for row in schedule.rows] == [D(300000)] * 5 + [D(0), D(300000)]
    assert schedule.rows[5].cap_room == 0
    assert schedule.rows[6].cap_room == D(48500000)
    assert schedule.rows[5].cumulative == D(1500000)
    assert schedule.total == D(1800000)
    assert schedule.term == len(schedule.rows) == 7
    assert schedule.rows[5].note == (
        "cap room max(0, 50,000.00 x 25 - 1,500,000.00) = 0.00;"
        " grant reduced from 300,000.00 to 0.00"
    )
    # the explanation: year 6's grant after the cap, the smaller of the grant and the room
    assert any(
        s.label.startswith("Year 6 grant after the $50,000 average cap")
        and s.arithmetic == "min(300,000.00, max(0, 50,000.00 x 25 - 1,500,000.00)) = 0.00"
        for s in schedule.steps
    )


def test_cap_can_pay_part_of_a_year() -> None:
    # Year 1: 10 new employees: room 50,000 x 10 - 0 = 500,000 >= 300,000 -> 300,000.
    # Year 2: room 50,000 x 10 - 300,000 = 200,000 < 300,000 -> 200,000.
    schedule = grant_schedule([600000, 600000], [10, 10], 0.5, "2010-01-01")
    assert [row.grant for row in schedule.rows] == [D(300000), D(200000)]
    assert "reduced from 300,000.00 to 200,000.00" in schedule.rows[1].note


def test_no_cap_before_july_2003() -> None:
    # agreement 2003-06-30: 600,000.00 x 50% = 300,000.00 every year even with 1 employee
    schedule = grant_schedule([600000] * 3, [1, 1, 1], 0.5, "2003-06-30")
    assert schedule.cap_applies is False
    assert [row.grant for row in schedule.rows] == [D(300000)] * 3
    assert all(row.cap_room is None for row in schedule.rows)


def test_schedule_with_partners_and_smart_growth() -> None:
    # year 1: 100,000.00 x 80% + 50,000.00 x 50% = 80,000.00 + 25,000.00 = 105,000.00
    # cap room: 50,000 x 3 - 0 = 150,000 -> paid in full
    # year 2: 100,000.00 x 80% + 10,000.00 x 50% = 85,000.00;
    # cap room: 50,000 x 3 - 105,000 = 45,000 -> paid 45,000.00
    schedule = grant_schedule(
        [100000, 100000],
        [3, 3],
        0.8,
        dt.date(2005, 1, 1),
        smart_growth=True,
        partner_tax=[50000, 10000],
        partner_pct=0.5,
    )
    assert [row.grant_before_cap for row in schedule.rows] == [D(105000), D(85000)]
    assert [row.grant for row in schedule.rows] == [D(105000), D(45000)]
    assert schedule.total == D(150000)


@pytest.mark.parametrize(
    ("args", "argument", "fragment"),
    [
        (([1] * 11, [1] * 11, 0.5, "2004-01-01"), "withholdings", "from 1 to 10 years"),
        (([], [], 0.5, "2004-01-01"), "withholdings", "from 1 to 10 years"),
        (([1, 1], [1], 0.5, "2004-01-01"), "new_employees", "1 given, withholdings has 2"),
        (([1, -1], [1, 1], 0.5, "2004-01-01"), "withholdings", "year 2: must not be negative"),
        (([1, 1], [1, 2.5], 0.5, "2004-01-01"), "new_employees", "year 2: must be a whole"),
        (([1, 1], [1, -3], 0.5, "2004-01-01"), "new_employees", "year 2: must not be negative"),
        (([1, 1], [1, 1], 0.5, "31/12/2004"), "agreement_date", "must be a date"),
        ((1000, [1], 0.5, "2004-01-01"), "withholdings", "one value per grant year"),
        (([1], [1], 0.05, "2004-01-01"), "pct", "from 10% to 50%"),
    ],
)
def test_bad_schedule_input(args: tuple[object, ...], argument: str, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        grant_schedule(*args)  # type: ignore[arg-type]
    assert caught.value.argument == argument
    assert fragment in str(caught.value)


def test_bad_partner_tax_length() -> None:
    with pytest.raises(InputError, match=r"partner_tax = .*3 given, withholdings has 2"):
        grant_schedule([1, 1], [1, 1], 0.5, "2004-01-01", partner_tax=[1, 2, 3])


@given(
    years=st.lists(
        st.tuples(money, st.integers(min_value=0, max_value=100)), min_size=1, max_size=10
    ),
    pct=st.decimals(min_value=D("0.10"), max_value=D("0.50"), places=3),
)
def test_capped_grants_never_break_the_cap_rule(
    years: list[tuple[Decimal, int]], pct: Decimal
) -> None:
    withholdings = [w for w, _ in years]
    employees = [n for _, n in years]
    schedule = grant_schedule(withholdings, employees, pct, "2010-01-01")
    paid = D(0)
    for row in schedule.rows:
        assert 0 <= row.grant <= row.grant_before_cap
        paid += row.grant
        assert row.cumulative == paid
        if row.grant > 0:  # cumulative paid <= 50,000 x new employees of the year it was paid
            assert row.cumulative <= 50000 * row.new_employees
        # the cap takes only what it must: a reduced year is paid exactly its cap room
        if row.grant < row.grant_before_cap:
            assert row.grant == row.cap_room
    assert schedule.total == paid
    assert len(schedule.rows) == len(years)


# =========================================================================== 34:1B-134


def test_combined_limit() -> None:
    # (b): 1,000,000.00 x 50% = 500,000.00; minus other State grants 200,000.00 = 300,000.00
    assert combined_limit(1000000, 200000, "withholdings").amount == D(300000)
    # (b) partners: 333,333.33 x 30% = 99,999.999 -> 99,999.99; minus 0 = 99,999.99
    limit = combined_limit(D("333333.33"), 0, "partners")
    assert limit.amount == D("99999.99")
    assert limit.steps[0].citation == "N.J.S.A. 34:1B-134(b)"
    # (c) smart growth: 1,000,000.00 x 80% = 800,000.00 - 900,000.00 -> max(0, ...) = 0
    smart = combined_limit(1000000, 900000, "withholdings", smart_growth=True)
    assert smart.amount == 0
    assert smart.limit == D(800000)
    assert smart.steps[-1].citation == "N.J.S.A. 34:1B-134(c)"
    # (c) partners with smart growth: 100,000.00 x 50% = 50,000.00 - 10,000.00 = 40,000.00
    assert combined_limit(100000, 10000, "partners", True).amount == D(40000)


def test_combined_limit_bad_input() -> None:
    with pytest.raises(InputError, match=r"other_grants = -5: must not be negative.*134\(b\)"):
        combined_limit(100, -5, "withholdings")
    with pytest.raises(InputError, match="basis = 'both'"):
        combined_limit(100, 0, "both")


# =========================================================================== e.(1)-(13)


def test_paragraph_1_schedule() -> None:
    # =NJ_BEIP_CONVERSION_SCHEDULE(2012, 1250000), e.(1):
    # 1,250,000 x 5% = 62,500 (2017); x 20% = 250,000 (2018); x 25% = 312,500 (2019, 2020);
    # 2021: 1,250,000 - 62,500 - 250,000 - 312,500 - 312,500 = 312,500 (the remainder)
    schedule = conversion_schedule(2012, 1250000)
    assert amounts(schedule) == [
        (2017, D("62500.00")),
        (2018, D("250000.00")),
        (2019, D("312500.00")),
        (2020, D("312500.00")),
        (2021, D("312500.00")),
    ]
    assert schedule.paragraph == 1
    assert [row.share for row in schedule.rows] == [
        D("0.05"),
        D("0.20"),
        D("0.25"),
        D("0.25"),
        D("0.25"),
    ]
    assert schedule.steps[2].arithmetic == "1,250,000.00 x 5% = 62,500.00"
    assert schedule.steps[2].citation == "N.J.S.A. 34:1B-129e.(1)"


def test_paragraph_1_rounding() -> None:
    # 1,234.57 x 5% = 61.7285 -> 61.72; x 20% = 246.914 -> 246.91; x 25% = 308.6425 -> 308.64
    # last: 1,234.57 - 61.72 - 246.91 - 308.64 - 308.64 = 308.66
    schedule = conversion_schedule(2008, D("1234.57"))
    assert [a for _, a in amounts(schedule)] == [
        D("61.72"),
        D("246.91"),
        D("308.64"),
        D("308.64"),
        D("308.66"),
    ]


def test_rounding_example_three_equal_installments() -> None:
    # e.(4), accrued 2016: 100,000.00 / 3 = 33,333.333... -> 33,333.33 in 2020 and 2021;
    # 2022 takes the remainder 100,000.00 - 33,333.33 - 33,333.33 = 33,333.34
    schedule = conversion_schedule(2016, 100000)
    assert amounts(schedule) == [
        (2020, D("33333.33")),
        (2021, D("33333.33")),
        (2022, D("33333.34")),
    ]
    assert "rounded down to 33,333.33" in schedule.steps[2].arithmetic
    assert schedule.steps[-1].label == "Tax year 2022 (the remainder)"
    assert schedule.steps[-1].arithmetic == "100,000.00 - (33,333.33 + 33,333.33) = 33,333.34"


@pytest.mark.parametrize(
    ("accrual_year", "paragraph", "expected"),
    [
        # (2), (3): 1,000,000.01 / 4 = 250,000.0025 -> 250,000.00 x 3; last 250,000.01
        (
            2014,
            2,
            [(2019, "250000.00"), (2020, "250000.00"), (2021, "250000.00"), (2022, "250000.01")],
        ),
        (
            2015,
            3,
            [(2019, "250000.00"), (2020, "250000.00"), (2021, "250000.00"), (2022, "250000.01")],
        ),
        # (5): 1,000,000.01 / 3 = 333,333.336... -> 333,333.33 twice; last 333,333.35
        (2017, 5, [(2020, "333333.33"), (2021, "333333.33"), (2022, "333333.35")]),
        # (6), (7): / 2 = 500,000.005 -> 500,000.00; last 500,000.01
        (2018, 6, [(2022, "500000.00"), (2023, "500000.01")]),
        (2019, 7, [(2022, "500000.00"), (2023, "500000.01")]),
        # (8)-(11): two from 2023
        (2020, 8, [(2023, "500000.00"), (2024, "500000.01")]),
        (2021, 9, [(2023, "500000.00"), (2024, "500000.01")]),
        (2022, 10, [(2023, "500000.00"), (2024, "500000.01")]),
        (2023, 11, [(2023, "500000.00"), (2024, "500000.01")]),
        # (12), (13): all in 2025
        (2024, 12, [(2025, "1000000.01")]),
        (2025, 13, [(2025, "1000000.01")]),
    ],
)
def test_paragraphs_2_to_13(
    accrual_year: int, paragraph: int, expected: list[tuple[int, str]]
) -> None:
    schedule = conversion_schedule(accrual_year, D("1000000.01"))
    assert schedule.paragraph == paragraph
    assert amounts(schedule) == [(year, D(amount)) for year, amount in expected]
    assert schedule.steps[0].citation == f"N.J.S.A. 34:1B-129e.({paragraph})"


@pytest.mark.parametrize(
    ("approval_date", "first_tax_year", "late"),
    [
        (None, 2017, False),  # no approval date: 2017-2021
        ("2016-06-30", 2017, False),  # approved before State FY 2017 commenced
        ("2016-07-01", 2017, False),  # first day of FY 2017 (July 1, 2016 - June 30, 2017)
        ("2017-06-30", 2017, False),  # last day of FY 2017
        ("2017-07-01", 2018, True),  # first day of FY 2018
        ("2017-09-15", 2018, True),  # FY 2018 -> 2018-2022
        (dt.datetime(2019, 1, 2, 9, 30), 2019, True),  # FY 2019 -> 2019-2023
    ],
)
def test_late_approval_in_paragraph_1(
    approval_date: object, first_tax_year: int, late: bool
) -> None:
    schedule = conversion_schedule(2010, 1000, approval_date)  # type: ignore[arg-type]
    # 1,000 x 5%, 20%, 25%, 25% and the remainder 250, from the first tax year on
    assert amounts(schedule) == [
        (first_tax_year + i, D(a))
        for i, a in enumerate(["50.00", "200.00", "250.00", "250.00", "250.00"])
    ]
    assert schedule.late_approval is late


def test_approval_date_ignored_after_paragraph_1() -> None:
    # e.(6), accrued 2018: 2022 and 2023 whatever the approval date, with a step saying so
    schedule = conversion_schedule(2018, 1000, "2021-09-15")
    assert [year for year, _ in amounts(schedule)] == [2022, 2023]
    assert "approval_date 2021-09-15 ignored" in schedule.steps[1].arithmetic
    assert schedule.late_approval is False


def test_conversion_installment() -> None:
    # 2012, 1,250,000: 2019 is year three, 25% = 312,500.00; 2016 and 2022 get nothing
    assert conversion_installment(2012, 1250000, 2019) == D("312500.00")
    assert conversion_installment(2012, 1250000, 2016) == 0
    assert conversion_installment(2012, 1250000, 2022) == 0
    # approved 2017-09-15: 2022 is year five, 312,500.00 (the remainder)
    assert conversion_installment(2012, 1250000, 2022, "2017-09-15") == D("312500.00")


@pytest.mark.parametrize(
    ("args", "argument", "fragment"),
    [
        ((2007, 100), "accrual_year", "2008 to 2025 only"),
        ((2026, 100), "accrual_year", "2008 to 2025 only"),
        ((2012.5, 100), "accrual_year", "whole number"),
        ((2012, -100), "amount", "must not be negative"),
        ((2012, 100, "2017-02-30"), "approval_date", "must be a date"),
        ((2012, 100, 42993), "approval_date", "must be a date"),
    ],
)
def test_bad_conversion_input(args: tuple[object, ...], argument: str, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        conversion_schedule(*args)  # type: ignore[arg-type]
    assert caught.value.argument == argument
    assert fragment in str(caught.value)
    assert "N.J.S.A. 34:1B-129e." in str(caught.value)


@given(
    accrual_year=st.integers(min_value=2008, max_value=2025),
    amount=money,
    approval=st.none() | st.dates(min_value=dt.date(2015, 1, 1), max_value=dt.date(2030, 12, 31)),
)
def test_conversion_installments_sum_exactly(
    accrual_year: int, amount: Decimal, approval: dt.date | None
) -> None:
    schedule = conversion_schedule(accrual_year, amount, approval)
    count, first = INSTALLMENTS_BY_ACCRUAL_YEAR[accrual_year]
    if accrual_year <= 2013 and approval is not None and approval >= dt.date(2016, 7, 1):
        first = approval.year + (1 if approval.month >= 7 else 0)
    assert len(schedule.rows) == count
    assert [row.tax_year for row in schedule.rows] == list(range(first, first + count))
    assert all(row.amount >= 0 for row in schedule.rows)
    assert sum(row.amount for row in schedule.rows) == amount == schedule.total
    # the parts before the last are rounded down by less than a cent each, so the last
    # (the remainder) exceeds its exact share by less than a cent per earlier part
    last = schedule.rows[-1]
    assert 0 <= last.amount - amount * last.share < D("0.01") * count


# =========================================================================== f.


def test_apply_credit() -> None:
    # credit 312,500.00 against tax 200,000.00: applied 200,000.00, overpayment 112,500.00,
    # nothing left for other credits
    result = apply_credit(312500, 200000)
    assert (result.applied, result.overpayment, result.remaining_liability) == (
        D(200000),
        D(112500),
        D(0),
    )
    # credit 62,500.00 against tax 100,000.00: applied 62,500.00, overpayment 0, 37,500.00 left
    result = apply_credit(62500, 100000)
    assert (result.applied, result.overpayment, result.remaining_liability) == (
        D(62500),
        D(0),
        D(37500),
    )
    assert result.steps[0].citation == "N.J.S.A. 34:1B-129f."
    with pytest.raises(InputError, match=r"tax_liability = -1: must not be negative.*129f\."):
        apply_credit(1, -1)


@given(credit=money, liability=money)
def test_applied_plus_overpayment_is_the_credit(credit: Decimal, liability: Decimal) -> None:
    result = apply_credit(credit, liability)
    assert result.applied + result.overpayment == credit
    assert result.applied + result.remaining_liability == liability
    assert result.applied >= 0
    assert result.overpayment >= 0
    assert result.remaining_liability >= 0
    assert result.overpayment == 0 or result.remaining_liability == 0


# =========================================================================== g.(3)


def test_transfer_min_price() -> None:
    # 75% x 200,000.00 = 150,000.00
    assert transfer_min_price(200000).amount == D("150000.00")
    # 75% x 133.33 = 99.9975 -> rounded down to 99.99
    assert transfer_min_price(D("133.33")).amount == D("99.99")
    # discounted over the sale 2024-01-01 to the credit's period end 2025-12-31: 366 + 364
    # = 730 days / 365 = 2 years: 1,000,000.00 x 75% / 1.05^2 = 750,000 / 1.1025
    # = 680,272.108... -> 680,272.10
    two_years = {"sale_date": "2024-01-01", "credit_period_end": "2025-12-31"}
    price = transfer_min_price(1000000, 0.05, None, **two_years)
    assert price.amount == D("680272.10")
    assert price.undiscounted == D("750000.00")
    assert "rounded down to 680,272.10" in price.steps[-1].arithmetic
    # half a year of those two at 4%: 750,000 / 1.04^0.5 = 750,000 / 1.0198039027...
    #   = 735,435.5067... -> 735,435.50
    assert transfer_min_price(1000000, 0.04, 0.5, **two_years).amount == D("735435.50")
    # years without the dates: no period to discount over, refused as the check refuses it
    with pytest.raises(InputError, match="needs the sale date and the credit's tax period"):
        transfer_min_price(1000000, 0.05, 2)
    assert transfer_min_price(1000000, 0, 2).amount == D("750000.00")  # no rate: no discount


@pytest.mark.parametrize(
    ("args", "argument", "fragment"),
    [
        ((-1,), "transfer_amount", "must not be negative"),
        ((100, 5), "discount_rate", "did you mean 5%?"),
        ((100, 0.05, -1), "years", "from 0 to 100 years"),
        ((100, 0.05, "two"), "years", "must be a number"),
    ],
)
def test_bad_transfer_input(args: tuple[object, ...], argument: str, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        transfer_min_price(*args)  # type: ignore[arg-type]
    assert caught.value.argument == argument
    assert fragment in str(caught.value)
    assert "N.J.S.A. 34:1B-129g.(3)" in str(caught.value)


def test_transfer_check_ok() -> None:
    # certificate 500,000; sell 150,000 (>= 100,000, <= 500,000) for 112,500 (= 75% x 150,000)
    check = transfer_check(500000, 150000, 112500)
    assert check.ok is True
    assert check.reasons == ()
    assert check.minimum_transfer == D(100000)
    assert check.minimum_price == D("112500.00")


def test_transfer_check_lists_every_reason() -> None:
    # certificate 500,000; sell 90,000 (< 100,000) for 60,000 (< 75% x 90,000 = 67,500)
    check = transfer_check(500000, 90000, 60000)
    assert check.ok is False
    assert len(check.reasons) == 2
    assert "less than 100,000.00" in check.reasons[0]
    assert "less than the minimum 67,500.00" in check.reasons[1]
    assert all("N.J.S.A. 34:1B-129g.(3)" in reason for reason in check.reasons)
    # the whole certificate may be sold, not a cent more: 500,000.01 > 500,000.00
    assert transfer_check(500000, 500000, 375000).ok is True
    assert "exceeds the certificate" in transfer_check(500000, D("500000.01"), 375000).reasons[0]
    # sell more than the certificate: 600,000 > 500,000
    over = transfer_check(500000, 600000, 450000)
    assert over.reasons == (
        "transfer_amount 600,000.00 exceeds the certificate 500,000.00 (N.J.S.A. 34:1B-129g.(3))",
    )


def test_small_certificate_is_sold_whole() -> None:
    # certificate 60,000 < 100,000: the minimum is the whole 60,000 (min(100,000, 60,000))
    assert transfer_check(60000, 60000, 45000).ok is True
    part = transfer_check(60000, 30000, 22500)
    assert part.ok is False
    assert "less than 60,000.00" in part.reasons[0]
    assert transfer_check(0, 0, 0).reasons[0].startswith("nothing is transferred")


def test_discounting_is_permitted_in_the_check() -> None:
    # 75% x 200,000 = 150,000; sold 2024-12-31, the credit's tax period ends 2025-12-31:
    # 365 days / 365 = 1 year at 10%: 150,000 / 1.1 = 136,363.636... -> 136,363.63
    dates = {"sale_date": "2024-12-31", "credit_period_end": "2025-12-31"}
    assert transfer_check(200000, 200000, D("136363.63"), 0.1, **dates).ok is True
    assert transfer_check(200000, 200000, D("136363.62"), 0.1, **dates).ok is False
    assert transfer_check(200000, 200000, D("136363.63")).ok is False  # undiscounted 150,000
    # years without the dates: no period to discount over (issue 10, item 2)
    assert (
        "needs the sale date" in transfer_check(200000, 200000, D("136363.63"), 0.1, 1).reasons[0]
    )


@given(
    amount=money,
    rate=st.decimals(min_value=0, max_value=D("0.20"), places=4),
    days=st.integers(min_value=0, max_value=3650),
)
def test_minimum_price_is_the_lowest_passing_consideration(
    amount: Decimal, rate: Decimal, days: int
) -> None:
    assume(amount >= 1)
    sale = dt.date(2016, 1, 1)
    dates = {"sale_date": sale, "credit_period_end": sale + dt.timedelta(days=days)}
    price = transfer_min_price(amount, rate, None, **dates).amount
    assert 0 <= price <= amount * D("0.75")
    assert transfer_check(amount, amount, price, rate, **dates).ok is True
    if price > 0:
        assert transfer_check(amount, amount, price - D("0.01"), rate, **dates).ok is False


@given(
    amount=st.decimals(min_value=D("0.01"), max_value=D("10000000"), places=2),
    rate=st.one_of(st.none(), st.decimals(min_value=0, max_value=D("0.40"), places=3)),
    years=st.one_of(st.none(), st.decimals(min_value=0, max_value=D("12"), places=2)),
    days=st.one_of(st.none(), st.integers(min_value=-30, max_value=3650)),
    one_date=st.booleans(),
)
def test_min_price_and_check_accept_and_refuse_the_same_discounts(
    amount: Decimal, rate: Decimal | None, years: Decimal | None, days: int | None, one_date: bool
) -> None:
    # one rule (transfer_discount_rule) serves both: for any discount inputs the minimum
    # price is refused exactly when the check refuses the sale for its discount, with the
    # same rule; when both accept, the price is the check's minimum. The sale otherwise
    # lawful: the whole certificate sold at face value (100% >= 75%, never below the price)
    sale = dt.date(2024, 6, 30)
    dates: dict[str, object] = {}
    if days is not None:
        dates = {"sale_date": sale, "credit_period_end": sale + dt.timedelta(days=days)}
        if one_date:
            del dates["sale_date"]
    inputs = {"discount_rate": rate, "years": years, **dates}
    given_inputs: dict[str, Any] = {k: v for k, v in inputs.items() if v is not None}
    price, price_error = _outcome(lambda: transfer_min_price(amount, **given_inputs))
    check, check_error = _outcome(lambda: transfer_check(amount, amount, amount, **given_inputs))
    if check_error is not None:  # an input refused before any discount is weighed
        assert price_error is not None
        assert str(price_error) == str(check_error)
        return
    assert isinstance(check, TransferCheck)
    if price_error is None:
        assert isinstance(price, TransferPrice)
        assert check.ok, check.reasons
        assert check.minimum_price == price.amount
    else:
        assert not check.ok
        rule = price_error.rule.rsplit(" (", 1)[0]  # the reason's own parenthesis follows
        assert any(rule in reason for reason in check.reasons), (price_error, check.reasons)


def _outcome(call: Callable[[], object]) -> tuple[object, InputError | None]:
    """(the result, None), or (None, the input error)."""
    try:
        return call(), None
    except InputError as error:
        return None, error


def test_the_check_names_a_discounted_minimum_as_discounted() -> None:
    # 75% x 200,000 / 1.1 ^ (365 / 365) = 136,363.636... -> 136,363.63: a consideration
    # of 136,000 is below the discounted minimum, which the reason says is discounted
    dates = {"sale_date": "2024-12-31", "credit_period_end": "2025-12-31"}
    check = transfer_check(200000, 200000, 136000, 0.1, **dates)
    (reason,) = check.reasons
    assert "less than the minimum 136,363.63" in reason
    assert "discounted to present value at 10% a year over 1 years" in reason
    assert "before any discount" not in reason
    # no discount: the reason says so
    (plain,) = transfer_check(200000, 200000, 140000).reasons
    assert "minimum 150,000.00 (75% of the transferred amount, with no discount" in plain


# =========================================================================== h.


def test_remote_work_payment() -> None:
    # h.(2): 5% x 1,234,567.89 = 61,728.3945 -> 61,728.39
    payment = remote_work_payment(D("1234567.89"))
    assert payment.amount == D("61728.39")
    assert payment.steps[0].citation == "N.J.S.A. 34:1B-129h.(2)"
    with pytest.raises(InputError, match="credit = -1"):
        remote_work_payment(-1)


@pytest.mark.parametrize(
    ("election_date", "share", "reasons"),
    [
        ("2023-12-30", 0.10, ()),  # before December 31, 2023, and exactly 10%: OK
        ("2023-12-31", 0.10, ("not before 2023-12-31",)),  # on the deadline: too late
        ("2023-06-01", 0.0999, ("less than 10%",)),
        ("2024-02-01", 0.05, ("not before 2023-12-31", "less than 10%")),
        # before Executive Order No. 244 ended the emergency on 2021-06-04 (issue 10, item 4)
        ("2019-06-30", 0.5, ("does not follow the termination",)),
        ("2021-06-03", 0.5, ("on or after 2021-06-04",)),
        ("2021-06-04", 0.5, ()),
    ],
)
def test_remote_work_check(election_date: str, share: float, reasons: tuple[str, ...]) -> None:
    check = remote_work_check(election_date, share)
    assert check.ok is (not reasons)
    assert len(check.reasons) == len(reasons)
    for reason, fragment in zip(check.reasons, reasons, strict=True):
        assert fragment in reason
    assert any("Executive Order No. 244" in step.citation for step in check.steps)


def test_remote_work_bad_input() -> None:
    with pytest.raises(InputError, match=r"share_at_facility = 10: .*did you mean 10%\?.*h\.\(1\)"):
        remote_work_check("2023-01-01", 10)
    with pytest.raises(InputError, match=r"election_date = .*must be a date.*129h\."):
        remote_work_check("soon", 0.5)


# =========================================================================== explanations


@pytest.mark.parametrize(
    "result",
    [
        annual_grant(1000, 0.5),
        grant_schedule([1000], [1], 0.5, "2004-01-01"),
        combined_limit(1000, 0, "withholdings"),
        conversion_schedule(2016, 100),
        apply_credit(1, 2),
        transfer_min_price(100, 0.05, 0, "2024-12-31", "2025-12-31"),
        transfer_check(100, 100, 75),
        remote_work_payment(100),
        remote_work_check("2023-01-01", 0.2),
    ],
    ids=lambda result: type(result).__name__,
)
def test_every_result_explains_itself_with_citations(result: Explained) -> None:
    assert result.steps
    assert all(step.citation.startswith("N.J.S.A. 34:1B-1") for step in result.steps)
    assert all(step.arithmetic or step.value is not None for step in result.steps)
    assert result.explain().count("[N.J.S.A. 34:1B-1") == len(result.steps)
