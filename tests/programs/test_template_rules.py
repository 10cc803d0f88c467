"""The rules the templates once wrote as Excel formulas, now in the core (issue 12 item 6):
the ERTC base year (N.J.S.A. 52:27BBB-55e.), the grant over the combined State grants limit
(N.J.S.A. 34:1B-134(b)) and what that limit is a share of, whether the $50,000 average cap
binds an agreement (34:1B-129a.) and which positions the sustained effort ratio counts
(52:27BBB-55e., our reading)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.core.common import InputError
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import rules as ertc


def test_the_base_year_is_the_twelve_months_before_credit_year_one() -> None:
    # operations from 2023-03-15: credit year one 2023-04-01 to 2024-03-31, so the base
    # year is 2022-04-01 to 2023-03-31
    year = ertc.base_year(dt.date(2023, 3, 15))
    assert (year.start, year.end) == (dt.date(2022, 4, 1), dt.date(2023, 3, 31))
    # a start on the 1st is credit year one's first day: 2024-03-01, so 2023-03-01 to
    # 2024-02-29 (a leap year's February)
    year = ertc.base_year(dt.date(2024, 3, 1))
    assert (year.start, year.end) == (dt.date(2023, 3, 1), dt.date(2024, 2, 29))
    assert year.steps[0].citation.startswith("N.J.S.A. 52:27BBB-55e.")
    with pytest.raises(InputError, match="operations_start"):
        ertc.base_year("not a date")


@given(st.dates(dt.date(1995, 1, 1), dt.date(2090, 12, 31)))
def test_the_base_year_ends_the_day_before_credit_year_one(start: dt.date) -> None:
    year, credit = ertc.base_year(start), ertc.credit_years(start)
    assert year.end + dt.timedelta(days=1) == credit.year_one_start
    assert year.start.day == 1
    assert (year.end.year - year.start.year) * 12 + year.end.month - year.start.month == 11


def test_the_grant_over_the_combined_limit() -> None:
    # 300,000 granted, 250,000 allowed: max(0, 300,000 - 250,000) = 50,000 over (the
    # Treasurer's approval), 300,000 - 50,000 = 250,000 within
    split = beip.grant_over_limit(300000, 250000)
    assert (split.over, split.within) == (Decimal(50000), Decimal(250000))
    # within the limit: max(0, 200,000 - 250,000.50) = 0 over, all 200,000 within
    split = beip.grant_over_limit(200000, Decimal("250000.50"))
    assert (split.over, split.within) == (0, Decimal(200000))
    assert split.steps[0].citation == "N.J.S.A. 34:1B-134(b)"
    with pytest.raises(InputError, match="grant = -1"):
        beip.grant_over_limit(-1, 0)
    with pytest.raises(InputError, match="combined_limit"):
        beip.grant_over_limit(1, "x")


cents = st.integers(0, 10**11).map(lambda n: Decimal(n).scaleb(-2))


@given(cents, cents)
def test_over_plus_within_is_the_grant_and_within_never_exceeds_the_limit(
    grant: Decimal, limit: Decimal
) -> None:
    split = beip.grant_over_limit(grant, limit)
    assert split.over + split.within == grant
    assert split.over >= 0
    assert split.within <= limit
    assert split.within == min(grant, limit)


def test_the_cap_binds_agreements_from_july_2003() -> None:
    # entered into on or after 2003-07-01 (N.J.S.A. 34:1B-129a.): 2003-07-01 yes, the day
    # before no
    assert beip.explain_cap_applies(dt.date(2003, 7, 1)).applies is True
    before = beip.explain_cap_applies(dt.date(2003, 6, 30))
    assert before.applies is False
    assert before.steps[0].citation == "N.J.S.A. 34:1B-129a."
    with pytest.raises(InputError, match="agreement_date"):
        beip.explain_cap_applies("not a date")


@given(st.dates(dt.date(1990, 1, 1), dt.date(2090, 12, 31)))
def test_the_explained_cap_test_is_the_schedules(agreement: dt.date) -> None:
    assert beip.explain_cap_applies(agreement).applies == beip.cap_applies(agreement)


@pytest.mark.parametrize(
    ("fractional", "measured", "kept"),
    [(False, False, False), (True, False, True), (False, True, True), (True, True, True)],
)
def test_the_ratio_counts_fractions_when_the_credits_do_or_when_measured(
    fractional: bool, measured: bool, kept: bool
) -> None:
    # the default: the positions the credits count (whole unless fractional); the
    # measured reading keeps the fractions (docs/interpretations.md)
    result = ertc.ratio_positions(fractional, measured)
    assert result.fractional is kept
    assert result.steps[0].citation.startswith('N.J.S.A. 52:27BBB-55e. "sustained effort ratio"')
    assert ertc.ratio_positions().fractional is False
    with pytest.raises(InputError, match="ratio_measured"):
        ertc.ratio_positions(False, "maybe")


def test_the_combined_limit_is_on_the_withholdings_or_the_partners_tax() -> None:
    # 34:1B-134(b): 50% of withholdings or 30% of the partners' tax; the base is the one
    # the basis names, the other may be blank but is never a bad amount passed over
    assert beip.limit_base("withholdings", 600000, None).amount == Decimal(600000)
    partners = beip.limit_base("partners", None, Decimal("90000.50"))
    assert (partners.amount, partners.basis) == (Decimal("90000.50"), beip.Basis.PARTNERS)
    assert partners.steps[0].citation == "N.J.S.A. 34:1B-134(b)"
    with pytest.raises(InputError, match="partner_tax"):
        beip.limit_base("partners", 600000)
    with pytest.raises(InputError, match="withholdings = -1"):
        beip.limit_base("withholdings", -1)
    with pytest.raises(InputError, match="basis"):
        beip.limit_base("salaries", 1)
    with pytest.raises(InputError, match="partner_tax = '1e27': must be less than"):
        beip.limit_base("withholdings", 600000, "1e27")
