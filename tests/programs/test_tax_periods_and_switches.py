"""Issue 10, "The law, second pass": a worked example per item, with its arithmetic, and
the properties (every privilege period at most 12 months; the defaults unchanged).

Items: 1 tax years and fiscal-year filers; 2 the transfer check; 3 privilege periods;
4 the remote-work election; 5 the recorded readings and their switches; 6 the cap
switch; 7 the smaller items; 8 the scenario runner's exact path for switch rows.
"""

from __future__ import annotations

import datetime as dt
import itertools
from decimal import Decimal
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.core import cells
from nj_incentives.core.common import InputError
from nj_incentives.core.rules import EXACT
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.beip.templates import grant as beip_grant
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.remote_work import rules as remote_work
from nj_incentives.runtimes import xlwings_classic as excel
from nj_incentives.scenarios.runner import run_scenarios
from nj_incentives.workpapers.templates.builder import build_template

D = Decimal
CALL = excel.functions(errors="raise")


# =========================================================================== 1. tax years


@pytest.mark.parametrize(
    ("period_end", "numbering", "year"),
    [
        ("2022-12-31", "form", 2022),  # a calendar-year filer's 2022 return
        ("2023-06-30", "form", 2022),  # January-June of 2023: form year 2022
        ("2022-07-31", "form", 2022),  # the 2022 CBT-100's first period end
        ("2023-07-31", "form", 2023),
        ("2023-06-30", "calendar", 2023),  # the alternative: the calendar year of the end
    ],
)
def test_tax_year_of_a_period(period_end: str, numbering: str, year: int) -> None:
    assert cbt.tax_year(period_end, numbering).year == year
    assert CALL["NJ_TAX_YEAR"](dt.date.fromisoformat(period_end), numbering) == year


def test_a_june_filer_puts_each_installment_on_the_next_june_return() -> None:
    # accrued 2012, 1,250,000, e.(1): 5% = 62,500 in tax year 2017 ... For a June-30 filer
    # tax year 2017 is the return ending 2018-06-30 (form year), not 2017-06-30.
    schedule = beip.conversion_schedule(2012, 1250000, year_end_month=6)
    assert [(r.tax_year, r.period_end, r.amount) for r in schedule.rows][:2] == [
        (2017, dt.date(2018, 6, 30), D("62500.00")),
        (2018, dt.date(2019, 6, 30), D("250000.00")),
    ]
    assert beip.conversion_installment(2012, 1250000, period_end="2018-06-30") == D("62500.00")
    # the return ending 2017-06-30 is form year 2016: nothing on it
    assert beip.conversion_installment(2012, 1250000, period_end="2017-06-30") == 0
    # the calendar-year alternative moves every installment one return earlier
    calendar = beip.conversion_schedule(2012, 1250000, year_end_month=6, numbering="calendar")
    assert calendar.rows[0].period_end == dt.date(2017, 6, 30)
    # Excel: a date in the tax_year cell is the period end of the return
    assert CALL["NJ_BEIP_CONVERSION_INSTALLMENT"](2012, 1250000, dt.date(2018, 6, 30)) == 62500
    table = CALL["NJ_BEIP_CONVERSION_SCHEDULE"](2012, 1250000, None, None, None, 6)
    assert table[0] == ["Tax year", "Share", "Installment", "Period end"]
    assert table[1][3] == cells.serial_from_date(dt.date(2018, 6, 30))
    # a calendar-year filer's table keeps its three columns
    assert len(CALL["NJ_BEIP_CONVERSION_SCHEDULE"](2012, 1250000)[0]) == 3


def test_the_ten_year_file_of_the_issue_moves_by_one_return() -> None:
    # A June-30 filer with grants accrued in 2012 (1,250,000) and 2016 (300,000): the
    # credit on the return ending 2018-06-30 is the tax year 2017 installment 62,500
    # (form year); read by calendar year it is tax year 2018's 250,000: the two differ by
    # 187,500, and no credit carries forward (e.), so each return's figures differ.
    form = beip.conversion_installment(2012, 1250000, period_end="2018-06-30")
    by_calendar = beip.conversion_installment(
        2012, 1250000, period_end="2018-06-30", numbering="calendar"
    )
    assert (form, by_calendar, by_calendar - form) == (
        D("62500.00"),
        D("250000.00"),
        D("187500.00"),
    )


def test_late_approval_on_a_fiscal_filers_returns() -> None:
    # approved 2017-09-15: State fiscal year 2018 -> the five years commence with tax year
    # 2018, for a June-30 filer the return ending 2019-06-30
    schedule = beip.conversion_schedule(2011, 480000, "2017-09-15", year_end_month=6)
    assert (schedule.first_tax_year, schedule.rows[0].period_end) == (2018, dt.date(2019, 6, 30))
    # the steps: paragraph (1); approved on or after 2016-07-01; the fiscal year of it
    assert schedule.steps[1].arithmetic == "2017-09-15 on or after 2016-07-01: yes"
    assert "whatever the filer's year end" in schedule.steps[2].label
    assert schedule.steps[2].arithmetic == (
        "2017-09-15 is in State fiscal year 2018 (2017-07-01 to 2018-06-30)"
    )


def test_remote_work_payment_checks_the_2022_tax_period() -> None:
    # 5% x 445,000.16 = 22,250.008 -> 22,250.00; a June-30 filer's 2022 period ends 2023-06-30
    assert remote_work.remote_work_payment(D("445000.16"), "2023-06-30").amount == D("22250.00")
    with pytest.raises(InputError, match="is tax year 2021"):
        remote_work.remote_work_payment(D("445000.16"), "2022-06-30")


@given(
    year=st.integers(2000, 2099),
    month=st.integers(1, 12),
    numbering=st.sampled_from(cbt.TAX_YEAR_NUMBERINGS),
)
def test_period_end_for_is_the_inverse_of_tax_year(year: int, month: int, numbering: str) -> None:
    end = cbt.period_end_for(year, month, numbering)
    assert end.month == month
    assert cbt.tax_year(end, numbering).year == year
    assert CALL["NJ_TAX_PERIOD_END"](year, month, numbering) == cells.serial_from_date(end)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(
    day=st.dates(dt.date(1901, 1, 1), dt.date(2199, 12, 31)),
    numbering=st.sampled_from(cbt.TAX_YEAR_NUMBERINGS),
)
def test_tax_year_number_is_the_tax_years(day: dt.date, numbering: str) -> None:
    # the number alone (the portfolio's return lines, the calendar) without the explanation
    # tax_year builds: the same year for every day, deemed 52-53-week ends included
    assert cbt.tax_year_number(day, numbering) == cbt.tax_year(day, numbering).year
    # the exact evaluator's deemed ends are computed once a day: the rule's own answer
    deemed = cbt.deemed_period_end_rule(EXACT, day)
    assert deemed == cbt._deemed_end_of(EXACT, day)
    assert cbt.deemed_period_end_rule(EXACT, day) is deemed


# =========================================================================== 2. transfer


def test_the_issue_example_no_longer_passes() -> None:
    # NJ_BEIP_TRANSFER_CHECK(1000000, 1000000, 1, 1, 100): a 100% rate over 100 years
    verdict = CALL["NJ_BEIP_TRANSFER_CHECK"](1000000, 1000000, 1, 1, 100)
    assert "needs the sale date" in verdict
    assert "above 20% a year" in verdict
    assert "less than the minimum 750,000.00" in verdict


def test_discount_runs_from_the_sale_to_the_end_of_the_credit_period() -> None:
    # sold 2024-12-31, credit period ends 2025-12-31: 365 / 365 = 1 year at 10%:
    # 75% x 200,000 / 1.1 = 136,363.636... -> 136,363.63
    dates = {"sale_date": "2024-12-31", "credit_period_end": "2025-12-31"}
    check = beip.transfer_check(200000, 200000, D("136363.63"), D("0.1"), **dates)
    assert (check.ok, check.minimum_price, check.discount_years) == (True, D("136363.63"), 1)
    # sold after the period ended: nothing to wait for, no discount: 150,000
    late = beip.transfer_check(
        200000, 200000, D("136363.63"), D("0.1"), None, "2026-01-15", "2025-12-31"
    )
    assert late.minimum_price == D("150000.00")
    assert not late.ok
    # years may shorten the period (0.5 year: 150,000 / 1.1^0.5 = 143,019.52...), not lengthen
    assert beip.transfer_check(200000, 200000, 143020, D("0.1"), D("0.5"), **dates).ok
    assert (
        "longer than the time"
        in beip.transfer_check(200000, 200000, 143020, D("0.1"), 2, **dates).reasons[0]
    )
    # the same period in NJ_BEIP_TRANSFER_MIN_PRICE
    assert beip.transfer_min_price(200000, D("0.1"), None, **dates).amount == D("136363.63")


def test_a_transferee_may_not_transfer_and_every_reason_is_listed() -> None:
    check = beip.transfer_check(500000, 90000, 60000, seller_is_transferee=True)
    assert len(check.reasons) == 3  # transferee, below 100,000, below 67,500
    assert check.reasons[0].startswith("the seller is a tax credit transferee")
    assert "N.J.S.A. 34:1B-129g.(3)" in check.reasons[0]
    assert "transferee" in CALL["NJ_BEIP_TRANSFER_CHECK"](
        500000, 150000, 112500, None, None, None, None, True
    )


def test_the_rate_bound_is_a_switch() -> None:
    dates = {"sale_date": "2024-12-31", "credit_period_end": "2025-12-31"}
    # 25% > 20%: fails; with the bound at 30% it passes: 150,000 / 1.25 = 120,000
    assert not beip.transfer_check(200000, 200000, 120000, D("0.25"), **dates).ok
    assert beip.transfer_check(
        200000, 200000, 120000, D("0.25"), **dates, max_discount_rate=D("0.3")
    ).ok


# =========================================================================== 3. periods


def test_a_missing_year_is_an_error_naming_both_ends() -> None:
    # 2023-12-31, 2025-12-31 (2024 left out), 2026-12-31: 731 days between the first two
    ends = ["2023-12-31", "2025-12-31", "2026-12-31"]
    with pytest.raises(InputError) as caught:
        ertc.privilege_periods(ends, [1, 1, 1], [0, 0, 0], [0, 0, 0])
    assert "ending 2025-12-31" in caught.value.rule
    assert "after 2023-12-31" in caught.value.rule


def test_52_53_week_years_are_allowed() -> None:
    # 2023-12-30 -> 2024-12-28: 364 days (52 weeks); -> 2026-01-03: 371 days (53 weeks)
    ends = ["2023-12-30", "2024-12-28", "2026-01-03"]
    assert len(ertc.privilege_periods(ends, [1, 1, 1], [0, 0, 0], [0, 0, 0])) == 3
    with pytest.raises(InputError, match="372 days"):
        ertc.privilege_periods(["2023-12-30", "2025-01-05"], [1, 1], [0, 0], [0, 0])


@given(gaps=st.lists(st.integers(1, 800), min_size=1, max_size=6))
def test_every_period_is_at_most_12_months(gaps: list[int]) -> None:
    """Property: the periods are accepted exactly when each is 1 to 371 days long."""
    ends = [dt.date(2020, 12, 31)]
    for gap in gaps:
        ends.append(ends[-1] + dt.timedelta(days=gap))
    n = len(ends)
    if all(gap <= ertc.MAXIMUM_PERIOD_DAYS for gap in gaps):
        periods = ertc.privilege_periods(ends, [1] * n, [0] * n, [0] * n)
        assert all((b.end - a.end).days <= 371 for a, b in itertools.pairwise(periods))
    else:
        with pytest.raises(InputError, match="longer than 12 months"):
            ertc.privilege_periods(ends, [1] * n, [0] * n, [0] * n)


# =========================================================================== 4. remote work


def test_the_election_must_follow_the_end_of_the_emergency() -> None:
    # Executive Order No. 244 ended the emergency on 2021-06-04
    assert not remote_work.remote_work_check("2019-06-30", 0.5).ok
    assert not remote_work.remote_work_check("2021-06-03", 0.5).ok
    assert remote_work.remote_work_check("2021-06-04", 0.5).ok
    # the alternative: any date after the declaration (2020-03-09)
    assert remote_work.remote_work_check("2020-03-10", 0.5, "emergency_declared").ok
    assert not remote_work.remote_work_check("2020-03-09", 0.5, "emergency_declared").ok
    assert CALL["NJ_BEIP_REMOTE_WORK_CHECK"](dt.date(2020, 6, 1), 0.5, "emergency_declared") == (
        "OK"
    )


# =========================================================================== 5. readings


def _two_years(liability_two: int) -> tuple[ertc.PrivilegePeriod, ...]:
    return ertc.privilege_periods(
        ["2023-12-31", "2024-12-31", "2025-12-31"],
        [0, liability_two, 0],
        [0, 0, 0],
        [2000, 2000, 2000],
    )


def test_5a_the_refund_period_limit_switch() -> None:
    # year one 10 x 2,500 = 25,000 (nothing used in 2023: liability 0); year two
    # 10 x 1,250 = 12,500; 2024: liability 20,000, minimum 2,000, ratio 1.
    # b.(3): limit min(10,000, 18,000) = 10,000 used from year one; refund 15,000 x 1.
    default = ertc.credit_schedule("2023-01-01", 10, 10, _two_years(20000))
    assert (default.rows[1].used, default.rows[1].refund) == (D(10000), D(15000))
    # notwithstanding b.: year one against 20,000 - 0 = 20,000; year two gets
    # max(0, 10,000 - 20,000) = 0; refund 25,000 - 20,000 = 5,000
    alt = ertc.credit_schedule(
        "2023-01-01", 10, 10, _two_years(20000), refund_period_limit="notwithstanding"
    )
    row = alt.rows[1]
    assert (row.used, row.refund, row.limit, row.carried_out) == (
        D(20000),
        D(5000),
        D(20000),
        D(12500),
    )
    assert alt.credits_allowed == alt.used + alt.refunded + alt.expired + alt.carried_out


def test_5b_the_ratio_from_measured_positions() -> None:
    # measured 10.6 and 8.3 new positions: credits price whole positions 10 x 2,500 and
    # 8 x 1,250 either way; the ratio is 8 / 10 = 0.8 (default) or 8.3 / 10.6 = 0.7830188679
    whole = ertc.credit_schedule("2023-01-01", 10, 8, _two_years(0))
    measured = ertc.credit_schedule(
        "2023-01-01", D("10.6"), D("8.3"), _two_years(0), ratio_fractional=True
    )
    assert (measured.year_one_credit, measured.year_two_credit) == (D(25000), D(10000))
    assert whole.sustained_effort_ratio == D("0.8")
    assert measured.sustained_effort_ratio == D("0.7830188679")
    # refund of the unused 25,000: 25,000 x 83/106 = 19,575.471... -> 19,575.47
    assert measured.refunded == D("19575.47")
    assert whole.refunded == D(20000)
    # independent of fractional: fractional credits with a whole-position ratio
    mixed = ertc.credit_schedule(
        "2023-01-01", D("10.6"), D("8.3"), _two_years(0), fractional=True, ratio_fractional=False
    )
    assert (mixed.year_one_credit, mixed.sustained_effort_ratio) == (D(26500), D("0.8"))
    with pytest.raises(InputError, match="whole number of positions"):
        ertc.credit_schedule("2023-01-01", D("10.6"), 8, _two_years(0))


def test_5c_the_beip_credit_and_the_statutory_minimum() -> None:
    # credit 10,000, liability 5,000: default applied 5,000, refunded 5,000; held at the
    # minimum 2,000: applied min(10,000, 5,000 - 2,000) = 3,000, refunded 7,000
    assert beip.apply_credit(10000, 5000).applied == D(5000)
    held = beip.apply_credit(10000, 5000, 2000)
    assert (held.applied, held.overpayment, held.remaining_liability) == (
        D(3000),
        D(7000),
        D(2000),
    )
    assert CALL["NJ_BEIP_CREDIT_REFUND"](10000, 5000, 2000) == 7000


def test_5d_the_part_time_test_over_all_months() -> None:
    # 140, 140, 100, then 0: default: one non-full-time month of >= 86 2/3 hours (100): not
    # a part-time position: 2 / 12 = 0.1666666667. All months: three (140, 140, 100): a
    # part-time position; 100 hours aggregated: 2 / 12 + 100 / 1,680 = 0.2261904762
    staff = ertc.roster([[140, 140, 100] + [0] * 9])
    assert ertc.average_positions(staff).average == D("0.1666666667")
    assert ertc.average_positions(staff, "all_months").average == D("0.2261904762")
    table = CALL["NJ_ERTC_AVG_POSITIONS"]([[140, 140, 100] + [0] * 9], None, None, "all_months")
    assert table[0][0] == pytest.approx(0.2261904762)


# =========================================================================== 6. cap switch

THREE = {"withholdings": [600000] * 3, "new_employees": [10, 12, 2], "pct": D("0.5")}


@pytest.mark.parametrize(
    ("method", "grants"),
    [
        # per year: rooms 500,000, 600,000 - 300,000, 100,000 - 600,000 -> 0
        ("per_year", ["300000.00", "300000.00", "0.00"]),
        # whole term: 50,000 x (10 + 12 + 2) / 3 = 400,000; paid in order
        ("whole_term", ["300000.00", "100000.00", "0.00"]),
        # proportional: 300,000 x 400,000 / 900,000 = 133,333.33..., the last the rest
        ("proportional", ["133333.33", "133333.33", "133333.34"]),
    ],
)
def test_6_the_cap_methods(method: str, grants: list[str]) -> None:
    schedule = beip.grant_schedule(**THREE, agreement_date="2010-01-01", cap_method=method)
    assert [row.grant for row in schedule.rows] == [D(g) for g in grants]
    table = CALL["NJ_BEIP_GRANT_SCHEDULE"](
        [600000] * 3, [10, 12, 2], 0.5, dt.date(2010, 1, 1), None, None, None, method
    )
    assert [row[5] for row in table[1:]] == [float(g) for g in grants]
    # before July 1, 2003 no method caps anything
    early = beip.grant_schedule(**THREE, agreement_date="2003-06-30", cap_method=method)
    assert early.total == D(900000)


@given(
    befores=st.lists(st.integers(0, 10**8), min_size=1, max_size=10),
    employees=st.lists(st.integers(0, 50), min_size=10, max_size=10),
)
def test_6_the_term_methods_share_one_total(befores: list[int], employees: list[int]) -> None:
    """Property: whole-term and proportional pay the same total, min(total before the cap,
    50,000 x average new employees, rounded down), and no year more than before the cap."""
    term = len(befores)
    withholdings = [D(b) for b in befores]
    args = {"withholdings": withholdings, "new_employees": employees[:term], "pct": D("0.5")}
    results = {
        m: beip.grant_schedule(**args, agreement_date="2010-01-01", cap_method=m)
        for m in beip.CAP_METHODS
    }
    cap = (D(50000) * sum(employees[:term]) / term).quantize(D("0.01"), "ROUND_DOWN")
    before = sum((row.grant_before_cap for row in results["per_year"].rows), D(0))
    assert results["whole_term"].total == results["proportional"].total == min(before, cap)
    for schedule in results.values():
        assert all(0 <= row.grant <= row.grant_before_cap for row in schedule.rows)


def test_6_the_grant_template_offers_the_switch(tmp_path: Any) -> None:
    from tooling import recalculate_as_calc as recalculate

    values = dict(beip_grant.EXAMPLE, cap_method="whole_term")
    result = recalculate(build_template(beip_grant, tmp_path / "whole.xlsx", values))
    core = beip.grant_schedule(
        values["withholdings"],
        values["new_employees"],
        values["pct"],
        values["agreement_date"],
        cap_method="whole_term",
    )
    schedule = result.value("Schedule")
    assert [row[5] for row in schedule[1:6]] == [float(row.grant) for row in core.rows]


# =========================================================================== 7. smaller


def test_7_blank_roster_months_and_rows() -> None:
    # row 1 wholly blank: no employee; row 2 hired in month 7: six 160-hour months,
    # the blank months 0: 6 / 12 = 0.5 positions
    hours: list[list[Any]] = [[None] * 12, [None] * 6 + [160] * 6]
    count = ertc.average_positions(ertc.roster(hours, [True, False]))
    assert (count.employees, count.average) == (1, D("0.5"))
    assert CALL["NJ_ERTC_AVG_POSITIONS"](hours) == [[0.5, 0.0]]


def test_7_the_approval_and_direction_dates_of_e() -> None:
    # issue 19, item 5: P.L.2015, c.194 was enacted 2016-01-11 (not 2015-11-09); the
    # dates' worked examples are in tests/programs/test_law_dates.py
    assert dt.date(2016, 7, 11) == beip.DIRECTION_DEADLINE
    ok = beip.conversion_schedule(
        2012, 100, grant_approval_date="2016-01-10", direction_date="2016-07-11"
    )
    assert ok.total == 100
    with pytest.raises(InputError, match="grant_approval_date = 2016-01-11"):
        beip.conversion_schedule(2012, 100, grant_approval_date="2016-01-11")
    with pytest.raises(InputError, match="direction_date = 2016-07-12"):
        beip.conversion_schedule(2012, 100, direction_date="2016-07-12")
    with pytest.raises(InputError, match="direction_date"):
        beip.conversion_schedule(2012, 100, direction_date="2016-01-10")


def test_7_the_grant_template_help_cites_the_right_bounds(tmp_path: Any) -> None:
    from openpyxl import load_workbook

    path = build_template(beip_grant, tmp_path / "grant.xlsx")
    sheet = load_workbook(path)["Inputs"]
    prompts = " ".join((dv.prompt or "") for dv in sheet.data_validations.dataValidation)
    assert "10% to 80% (N.J.S.A. 34:1B-129a.)" not in prompts
    assert "10% to 50% (N.J.S.A. 34:1B-129a.), up to 80% with smart growth (b.)" in prompts


# =========================================================================== 8. runner


def _rows() -> pd.DataFrame:
    grant = {
        "agreement_date": "2010-01-01",
        "pct": 0.5,
        **{f"withholdings_{k}": 600000 for k in (1, 2, 3)},
        **{f"new_employees_{k}": n for k, n in zip((1, 2, 3), (10, 12, 2), strict=True)},
    }
    ertc_row = {
        "operations_start": "2023-01-01",
        "year1_new": 10,
        "year2_new": 10,
        **{f"period_end_{k}": f"{2022 + k}-12-31" for k in (1, 2, 3)},
        **{f"liability_{k}": v for k, v in zip((1, 2, 3), (0, 20000, 0), strict=True)},
        **{f"minimum_tax_{k}": 2000 for k in (1, 2, 3)},
    }
    return pd.DataFrame([{**grant, **ertc_row}] * 2)


def test_8_switch_rows_take_the_exact_path_with_equal_results() -> None:
    base = _rows()
    default = run_scenarios(base, money="decimal")
    # the switches at their default values: the exact path, the same results
    same = run_scenarios(
        base.assign(cap_method="per_year", refund_period_limit="b3"), money="decimal"
    )
    pd.testing.assert_frame_equal(default, same)
    # other values: the core's figures (whole term 400,000; refund 5,000)
    switched = run_scenarios(
        base.assign(cap_method=["whole_term", None], refund_period_limit="notwithstanding"),
        money="decimal",
    )
    assert switched["error"].isna().all()
    assert list(switched["grant_total"]) == [D("400000.00"), D("600000.00")]
    assert list(switched["ertc_refunded"]) == [D("5000.00")] * 2
    assert default["ertc_refunded"].iloc[0] == D("15000.00")


def test_8_a_missing_period_is_a_row_error() -> None:
    rows = _rows().assign(period_end_2="2025-12-31", period_end_3="2026-12-31")
    result = run_scenarios(rows)
    assert result["error"].str.contains("longer than 12 months").all()
    assert result["grant_total"].notna().all()  # the other section is still computed


# =========================================================================== defaults


@given(
    credit=st.decimals(0, 10**7, places=2),
    liability=st.decimals(0, 10**7, places=2),
)
def test_defaults_unchanged_apply_credit(credit: Decimal, liability: Decimal) -> None:
    assert beip.apply_credit(credit, liability, 0) == beip.apply_credit(credit, liability)
    applied = min(credit, liability)
    assert beip.apply_credit(credit, liability).applied == applied


@given(
    year=st.integers(beip.FIRST_ACCRUAL_YEAR, beip.LAST_ACCRUAL_YEAR),
    amount=st.decimals(0, 10**8, places=2),
    month=st.integers(1, 12),
)
def test_defaults_unchanged_conversion(year: int, amount: Decimal, month: int) -> None:
    """The filer's year end names the returns; it never changes an installment."""
    default = beip.conversion_schedule(year, amount)
    assert default == beip.conversion_schedule(year, amount, year_end_month=12, numbering="form")
    other = beip.conversion_schedule(year, amount, year_end_month=month)
    assert [(r.tax_year, r.amount) for r in other.rows] == [
        (r.tax_year, r.amount) for r in default.rows
    ]


@given(
    withholdings=st.lists(st.integers(0, 10**7), min_size=1, max_size=10),
    employees=st.lists(st.integers(0, 30), min_size=10, max_size=10),
)
def test_defaults_unchanged_grant_schedule(withholdings: list[int], employees: list[int]) -> None:
    args = (withholdings, employees[: len(withholdings)], D("0.5"), "2010-01-01")
    assert beip.grant_schedule(*args) == beip.grant_schedule(*args, cap_method="per_year")


@given(
    y1=st.integers(0, 30),
    y2=st.integers(0, 30),
    liabilities=st.lists(st.integers(0, 10**5), min_size=3, max_size=3),
    fractional=st.booleans(),
)
def test_defaults_unchanged_credit_schedule(
    y1: int, y2: int, liabilities: list[int], fractional: bool
) -> None:
    periods = ertc.privilege_periods(
        ["2023-12-31", "2024-12-31", "2025-12-31"], liabilities, [0] * 3, [500] * 3
    )
    default = ertc.credit_schedule("2023-01-01", y1, y2, periods, fractional=fractional)
    assert default == ertc.credit_schedule(
        "2023-01-01",
        y1,
        y2,
        periods,
        fractional=fractional,
        ratio_fractional=fractional,
        refund_period_limit="b3",
    )


@given(hours=st.lists(st.lists(st.integers(0, 200), min_size=12, max_size=12), max_size=5))
def test_defaults_unchanged_average_positions(hours: list[list[int]]) -> None:
    staff = ertc.roster(hours)
    assert ertc.average_positions(staff) == ertc.average_positions(staff, "non_full_time")
    # the alternative only ever counts more part-time positions
    assert (
        ertc.average_positions(staff, "all_months").average >= ertc.average_positions(staff).average
    )


@given(
    amount=st.decimals(1, 10**7, places=2),
    consideration=st.decimals(0, 10**7, places=2),
)
def test_defaults_unchanged_transfer_check(amount: Decimal, consideration: Decimal) -> None:
    default = beip.transfer_check(amount, amount, consideration)
    assert default == beip.transfer_check(
        amount, amount, consideration, 0, None, None, None, False, beip.MAXIMUM_DISCOUNT_RATE
    )
    assert default.ok is (consideration >= (amount * D("0.75")).quantize(D("0.01"), "ROUND_DOWN"))


# =========================================================================== templates


def test_5_the_ertc_template_offers_the_switches(tmp_path: Any) -> None:
    """The Form 313 template's switches give the core's schedule for the same inputs."""
    import copy

    from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
    from tooling import recalculate_as_calc as recalculate

    values = copy.deepcopy(dict(ertc_credit.EXAMPLE))
    values.update(ratio_measured=True, refund_period_limit="notwithstanding")
    result = recalculate(build_template(ertc_credit, tmp_path / "switched.xlsx", values))
    assert result.value("MasterCheck") is True
    measured = (result.value("Year1Measured"), result.value("Year2Measured"))
    # the example: 5.21... and 4.46... measured; whole 5 and 4 for the credits
    assert (int(measured[0]), int(measured[1])) == (5, 4)
    ends = [row[0] for row in result.value("PeriodEnds") if row[0] is not None]
    count = len(ends)
    minimums = [row[0] for row in result.value("MinimumTaxes")[:count]]
    periods = [
        ertc.PrivilegePeriod(
            end=cells.date_from_serial(end), liability=liability, other_credits=other, minimum_tax=m
        )
        for end, (_e, _r, liability, other), m in zip(
            ends, values["periods"], minimums, strict=True
        )
    ]
    core = ertc.credit_schedule(
        values["operations_start"],
        D(repr(measured[0])),
        D(repr(measured[1])),
        periods,
        ratio_fractional=True,
        refund_period_limit="notwithstanding",
    )
    table = result.value("CreditSchedule")
    assert [row[5] for row in table[1 : count + 1]] == [float(r.refund) for r in core.rows]
    assert result.value("SustainedEffortRatio") == float(core.sustained_effort_ratio)
    default = recalculate(
        build_template(ertc_credit, tmp_path / "default.xlsx", ertc_credit.EXAMPLE)
    )
    assert default.value("CreditSchedule") != table


def test_5c_the_conversion_template_offers_the_minimum_tax_switch(tmp_path: Any) -> None:
    from nj_incentives.programs.beip.templates import conversion as beip_conversion
    from tooling import recalculate_as_calc as recalculate

    values = dict(beip_conversion.EXAMPLE, credit_minimum_tax=2000)
    result = recalculate(build_template(beip_conversion, tmp_path / "floor.xlsx", values))
    assert result.value("MasterCheck") is True
    applied = [row[0] for row in result.value("CreditApplied")]
    # 2018: credit 274,000.02 against 120,000: applied 120,000 - 2,000 = 118,000
    assert applied[1] == 118000.0
