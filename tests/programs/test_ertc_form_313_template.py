"""Template 3, the Economic Recovery Tax Credit (Form 313 worksheet): the committed files
are current, every input is styled and validated, the example recalculates to the core's
results to the cent, and bad inputs fail visibly with the functions' messages (issue 5).

After a deliberate change to the template, rebuild: ``python -m
nj_incentives.workpapers.templates.build``.
"""

from __future__ import annotations

import copy
import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from nj_incentives.core.workpaper import NOT_COMPUTED
from nj_incentives.functions.catalog import ERTC_SCHEDULE_COLUMNS, headers
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.programs.ertc.templates.form_313 import EXAMPLE, MAX_PERIODS
from nj_incentives.workpapers.memo.sheets import checks
from nj_incentives.workpapers.recalc import excel_serial
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from nj_incentives.workpapers.templates.builder import build_template
from tooling import recalculate_as_calc as recalculate

TEMPLATE = DEFAULT_DIRECTORY / "ertc-form-313.xlsx"
FILLED = DEFAULT_DIRECTORY / "examples" / "ertc-form-313-example.xlsx"


@pytest.fixture(scope="module")
def example() -> Any:
    return recalculate(FILLED)


def test_the_example_passes_every_check(example: Any) -> None:
    assert example.value("MasterCheck") is True
    assert example.error_cells() == []
    assert example.function_errors == ()


def roster(key: str, employees: list[dict[str, Any]]) -> tuple[ertc.EmployeeHours, ...]:
    return ertc.roster(
        [e[key] for e in employees],
        [e["temporary"] for e in employees],
        [e["excluded"] for e in employees],
    )


def test_positions_and_credits_equal_the_core(example: Any) -> None:
    employees = EXAMPLE["employees"]
    counts = {
        key: ertc.average_positions(roster(key, employees)) for key in ("base", "year1", "year2")
    }
    for key, name in (("base", "Base"), ("year1", "Year1"), ("year2", "Year2")):
        assert example.value(f"Positions{name}") == [
            [float(counts[key].average), float(counts[key].fte)]
        ]
    # base: 36 full-time months / 12 + 1,080 part-time hours / 1,680 = 3.6428571429
    assert counts["base"].average == Decimal("3.6428571429")
    # year one: 90 / 12 + 2,280 / 1,680 = 8.8571428571 (temporary and owner's son excluded)
    assert counts["year1"].average == Decimal("8.8571428571")
    year1 = ertc.new_positions(counts["base"].average, counts["year1"].average)
    year2 = ertc.new_positions(counts["base"].average, counts["year2"].average)
    assert (year1, year2) == (5, 4)  # 5.21 and 4.46, whole positions
    assert example.value("Year1New") == 5.0
    assert example.value("Year2New") == 4.0
    assert example.value("CreditYearOne") == float(ertc.credit_amount(year1, 1).amount) == 12500.0
    assert example.value("CreditYearTwo") == float(ertc.credit_amount(year2, 2).amount) == 5000.0
    assert example.value("SustainedEffortRatio") == float(ertc.sustained_effort_ratio(5, 4)) == 0.8
    years = ertc.credit_years(EXAMPLE["operations_start"])
    assert example.value("CreditYears")[1][1:] == [
        excel_serial(years.year_one_start),
        excel_serial(years.year_one_end),
    ]
    assert example.value("BaseYearStart") == excel_serial(years.year_one_start.replace(year=2022))


def test_minimum_taxes_and_schedule_equal_the_core(example: Any) -> None:
    periods = EXAMPLE["periods"]
    minimums = [cbt.minimum_tax(receipts).amount for _end, receipts, _l, _o in periods]
    # 800,000 -> 1,500; 1,200,000 -> 2,000; 1,500,000 -> 2,000; 450,000 -> 1,000; 2,000,000
    assert minimums == [1500, 2000, 2000, 1000, 2000]
    shown = example.value("MinimumTaxes")
    assert [row[0] for row in shown[: len(periods)]] == [float(m) for m in minimums]
    assert [row[0] for row in shown[len(periods) :]] == [""] * (MAX_PERIODS - len(periods))

    schedule = ertc.credit_schedule(
        EXAMPLE["operations_start"],
        5,
        4,
        [
            ertc.PrivilegePeriod(end=end, liability=liability, other_credits=other, minimum_tax=m)
            for (end, _r, liability, other), m in zip(periods, minimums, strict=True)
        ],
    )
    table = example.value("CreditSchedule")
    # the template's table is NJ_ERTC_SCHEDULE's, with the catalog's columns
    assert table[0] == headers(ERTC_SCHEDULE_COLUMNS)
    for row, expected in zip(table[1:], schedule.rows, strict=False):
        assert row == [
            excel_serial(expected.period_end),
            *(float(getattr(expected, column.field)) for column in ERTC_SCHEDULE_COLUMNS[1:]),
        ]
    assert table[len(periods) + 1 :] == [[None] * len(ERTC_SCHEDULE_COLUMNS)] * (
        MAX_PERIODS - len(periods)
    )
    # 2025 (credit year two ends): limit min(3,000, 6,000 - 2,000) - 500 = 2,500 used from the
    # year-one credit; 9,000 - 2,500 = 6,500 left x ratio 4/5 = 5,200 refunded
    assert table[3][3:6] == [2500.0, 2500.0, 5200.0]
    assert example.value("TotalUsed") == float(schedule.used) == 11500.0
    assert example.value("TotalRefund") == float(schedule.refunded) == 5200.0
    assert example.value("CarriedForward") == float(schedule.carried_out) == 800.0


def filled(tmp_path: Path, change: Any) -> Any:
    values = copy.deepcopy(dict(EXAMPLE))
    change(values)
    tmp_path.mkdir(parents=True, exist_ok=True)
    return recalculate(build_template(ertc_credit, tmp_path / "filled.xlsx", values))


def test_periods_before_credit_year_two_ends_compute_what_is_known(tmp_path: Path) -> None:
    # The example's periods to 2024 only: credit year one (2023-04-01 to 2024-03-31) is
    # allowed in 2024; credit year two ends 2025-03-31, after the last period given, so
    # its credit (4 x 1,250 = 5,000) is allowed later. 2023 and 2024 read nothing of 2025:
    # their rows equal the whole example's (whose arithmetic is shown above).
    def change(values: dict[str, Any]) -> None:
        values["periods"] = values["periods"][:2]

    result = filled(tmp_path, change)
    assert result.value("MasterCheck") is True
    assert result.error_cells() == []
    whole = recalculate(FILLED).value("CreditSchedule")
    table = result.value("CreditSchedule")
    later = ERTC_SCHEDULE_COLUMNS.index(
        next(c for c in ERTC_SCHEDULE_COLUMNS if c.field == "allowed_later")
    )
    for row, full in zip(table[1:3], whole[1:3], strict=True):
        assert row[:later] == full[:later]  # 2023 and 2024 do not depend on 2025
    assert table[2][later] == 5000.0  # on the last row: year two's credit, allowed later
    assert result.value("TotalAllowed") == 12500.0  # year one's only
    # the 2024 return (issue 31, item 1): Form 313 and Schedule A-3 on the 2023 editions;
    # year one's 12,500 allowed, 3,500 used (as the whole example), 9,000 carried, and
    # year two's 5,000 named as allowed for the period in which credit year two ends
    block = ertc_credit.RETURN(result.value, 2024)
    assert block is not None
    amounts = {line.label: line.amount for line in block.lines}
    assert amounts["Credit for credit year one"] == Decimal("12500.00")
    assert amounts["Allowable credit"] == amounts["Economic Recovery Tax Credit"]
    assert amounts["Carried forward"] == Decimal("12500.00") - amounts["Allowable credit"]
    assert block.notes == (
        "credit year two's credit, $5,000.00: allowed for the period in which credit year two "
        "ends (2025-03-31): not in this workpaper (N.J.S.A. 52:27BBB-55b.(1))",
    )
    lines = {line.label: line.line for line in block.lines}
    assert lines["Credit for credit year one"].label(what=False) == (
        "Form 313 (2023 edition, rev. October 2023) Part III, line 7"
    )
    assert block.as_dict()["lines"][0]["amount"] == 12500.0
    assert ertc_credit.RETURN(result.value, 2025) is None  # no period of 2025


#: The return's line of the Corporate Transit Fee (P.L.2024, c.20), apart from the CBT.
_FEE = "Corporate Transit Fee (apart from the CBT; no credit reduces it)"


def _amounts(block: Any) -> dict[str, Decimal | None]:
    assert block is not None
    return {line.label: line.amount for line in block.lines}


def test_the_2025_return_of_a_calendar_filer(example: Any) -> None:
    # Issue 31, a 2025 calendar filer (the example: credit year one 2023-04-01 to
    # 2024-03-31, allowed in 2024; year two 2024-04-01 to 2025-03-31, allowed in 2025):
    # year two's 4 x 1,250 = 5,000 allowed (b.(1)); carried in 12,500 - 3,500 = 9,000
    # (2024); limit min(6,000 x 50%, 6,000 - 2,000) - 500 other credits = 2,500, used
    # from year one's credit (the oldest); year one's rest (9,000 - 2,500) x 4/5 = 5,200
    # refunded (c.(2)); carried 9,000 + 5,000 - 2,500 - 5,200 = 6,300.
    block = ertc_credit.RETURN(example.value, 2025)
    assert _amounts(block) == {
        "Credit for credit year one": Decimal("0.00"),
        "Credit for credit year two": Decimal("5000.00"),
        "Credit carried in": Decimal("9000.00"),
        "Other tax credits taken": Decimal("500.00"),
        "Limit (50% of the liability, down to the minimum tax)": Decimal("2500.00"),
        "Allowable credit": Decimal("2500.00"),
        "Economic Recovery Tax Credit": Decimal("2500.00"),
        "Refund (overpayment)": Decimal("5200.00"),
        "Expired": Decimal("0.00"),
        "Carried forward": Decimal("6300.00"),
        "Allowed for a later period (not in this workpaper)": Decimal("0.00"),
        _FEE: Decimal("0.00"),  # no Corporate Transit Fee entered
    }
    assert block is not None
    assert block.period_end == dt.date(2025, 12, 31)
    where = {line.label: line.line.label(what=False) for line in block.lines if line.line}
    assert where["Credit for credit year two"] == (
        "Form 313 (2023 edition, rev. October 2023) Part III, line to be confirmed"
    )
    # the Return sheet: by default the last period's tax year (2027), its figures the
    # cells RETURN reads (one source; the 2027 row's arithmetic is the schedule's, above)
    assert example.value("ReturnTaxYear") == 2027
    sheet = [row[0] for row in example.value("ReturnAmounts")]
    assert sheet == [float(a) for a in _amounts(ertc_credit.RETURN(example.value, 2027)).values()]
    assert example.value("ReturnPeriodEnd") == excel_serial(dt.date(2027, 12, 31))


def test_the_return_of_a_52_53_week_june_filer(tmp_path: Path) -> None:
    # Issue 31, a fiscal filer on a 52-53-week year ending on the last Saturday of June:
    # periods ending 2023-07-01, 2024-06-29, 2025-06-28, 2026-06-27, 2027-06-26, each
    # deemed to end on June 30 (N.J.A.C. 18:7-2.3(b)): tax years 2022-2026 (a year ending
    # January-June of N+1 is tax year N). Credit year one ends 2024-03-31, in the year
    # ending 2024-06-29 (tax year 2023); year two ends 2025-03-31, in the year ending
    # 2025-06-28 (tax year 2024). With the example's liabilities row by row:
    # 2023: 5 x 2,500 = 12,500 allowed; limit min(9,000 x 50%, 9,000 - 2,000) - 1,000 =
    #       3,500 used; 12,500 - 3,500 = 9,000 carried.
    # 2024: 4 x 1,250 = 5,000 allowed; 2,500 used; (9,000 - 2,500) x 4/5 = 5,200
    #       refunded; 9,000 + 5,000 - 2,500 - 5,200 = 6,300 carried.
    # A Corporate Transit Fee of 20,000.00 entered for tax year 2024 (the period from
    # 2024-06-30, the day after the one before ends, in the fee's 2024-2028; P.L.2024, c.20)
    # is its own line of that return; the limit still reads the CBT before the fee (6,000:
    # min(6,000 x 50%, 6,000 - 2,000) - 500 = 2,500 used, as without it): no credit reduces it.
    ends = [
        dt.date(2023, 7, 1),
        dt.date(2024, 6, 29),
        dt.date(2025, 6, 28),
        dt.date(2026, 6, 27),
        dt.date(2027, 6, 26),
    ]

    def change(values: dict[str, Any]) -> None:
        values["periods"] = [
            (end, *row[1:]) for end, row in zip(ends, values["periods"], strict=True)
        ]
        values["transit_fees"] = [None, None, 20_000]

    result = filled(tmp_path, change)
    assert result.value("MasterCheck") is True
    assert [row[0] for row in result.value("ReturnTaxYears")][:5] == [2022, 2023, 2024, 2025, 2026]
    one = _amounts(ertc_credit.RETURN(result.value, 2023))
    assert one["Credit for credit year one"] == Decimal("12500.00")
    assert one["Credit for credit year two"] == Decimal("0.00")
    assert one["Allowable credit"] == Decimal("3500.00")
    assert one["Carried forward"] == Decimal("9000.00")
    block = ertc_credit.RETURN(result.value, 2024)
    assert block is not None
    assert block.period_end == dt.date(2025, 6, 28)
    two = _amounts(block)
    assert (two["Credit for credit year two"], two["Allowable credit"]) == (
        Decimal("5000.00"),
        Decimal("2500.00"),
    )
    assert (two["Refund (overpayment)"], two["Carried forward"]) == (
        Decimal("5200.00"),
        Decimal("6300.00"),
    )
    assert (two[_FEE], one[_FEE]) == (Decimal("20000.00"), Decimal("0.00"))
    assert ertc_credit.RETURN(result.value, 2027) is None  # no period of tax year 2027


def test_text_in_a_money_cell_fails_with_the_message(tmp_path: Path) -> None:
    def change(values: dict[str, Any]) -> None:
        end, receipts, _liability, other = values["periods"][2]
        values["periods"][2] = (end, receipts, "6,000 USD", other)

    result = filled(tmp_path, change)
    assert result.value("MasterCheck") is False
    message = result.value("CreditSchedule")[0][0]
    assert message.startswith("#VALUE! liabilities = '6,000 USD'")
    assert result.value("TotalUsed") == NOT_COMPUTED
    assert result.value("CarriedForward") == NOT_COMPUTED


def test_a_blank_month_is_zero_hours(tmp_path: Path) -> None:
    """Issue 10, item 7: a blank month in a row with other hours is 0 hours (an employee
    not yet hired), not an error: the same figures as a 0 typed in."""

    def blank(values: dict[str, Any]) -> None:
        values["employees"][4]["year1"][6] = None  # E. Novak, credit year one, month 7

    def zero(values: dict[str, Any]) -> None:
        values["employees"][4]["year1"][6] = 0

    with_blank = filled(tmp_path, blank)
    with_zero = filled(tmp_path / "zero", zero)
    assert with_blank.value("MasterCheck") is True
    assert with_blank.value("PositionsYear1") == with_zero.value("PositionsYear1")
    assert with_blank.value("CreditSchedule") == with_zero.value("CreditSchedule")


def test_a_missing_period_figure_fails(tmp_path: Path) -> None:
    def change(values: dict[str, Any]) -> None:
        end, receipts, liability, _other = values["periods"][1]
        values["periods"][1] = (end, receipts, liability, None)
        # and a Corporate Transit Fee for period 1 (2023-01-01 to 2023-12-31), which begins
        # before the fee's first privilege period (2024-01-01; P.L.2024, c.20), and for
        # period 3 (2025): 2.5% x (10,400,000 - 10,000,000) = 10,000.00 of allocated taxable
        # net income over the threshold, entered by a public utility, which the fee is not
        # due from (P.L.2024, c.20, as the Division of Taxation states it)
        values["transit_fees"] = [1234.5, None, 0.025 * (10_400_000 - 10_000_000)]
        values["public_utility"] = True

    result = filled(tmp_path, change)
    assert result.value("MasterCheck") is False
    assert str(result.value("CreditSchedule")[0][0]).startswith("#VALUE! other_credits")
    failed = [label for label, _, ok in checks(result) if ok is not True]
    assert (
        "Corporate Transit Fee entered for a period it does not apply to: Corporate Transit "
        "Fee (if any), Period 1 = 1,234.50: the fee applies only to privilege periods "
        "beginning 2024-01-01 through 2028-12-31 (P.L.2024, c.20); this period begins "
        "2023-01-01."
    ) in failed
    assert (
        "Corporate Transit Fee entered for a taxpayer it is not due from: Corporate Transit "
        "Fee (if any), Period 1 = 1,234.50; Period 3 = 10,000.00: the fee is not due from an "
        "S corporation or a public utility (P.L.2024, c.20); The taxpayer is a public "
        "utility = Yes."
    ) in failed


def test_an_ineligible_taxpayer_fails_with_the_reason(tmp_path: Path) -> None:
    def change(values: dict[str, Any]) -> None:
        values["receives_uez_benefit"] = True

    result = filled(tmp_path, change)
    assert "Urban Enterprise Zones Act" in result.value("Eligibility")
    assert result.value("MasterCheck") is False
    assert result.value("TotalUsed") == 11500.0  # the arithmetic itself is unchanged


def test_the_form_313_carryforward_switch_expires_credit(tmp_path: Path) -> None:
    def change(values: dict[str, Any]) -> None:
        values["carryforward_years"] = 1

    result = filled(tmp_path, change)
    assert result.value("MasterCheck") is True
    # year one (allowed 2024) may be used through 2025: 9,000 - 2,500 used - 5,200 refunded
    # = 1,300 expires in 2025; year two (allowed 2025) through 2026: 5,000 - 1,500 = 3,500
    assert [row[7] for row in result.value("CreditSchedule")[1:6]] == [0, 0, 1300, 3500, 0]
    assert result.value("TotalExpired") == 4800.0
    assert result.value("CarriedForward") == 0


def test_the_blank_template_fails_visibly() -> None:
    result = recalculate(TEMPLATE)
    assert result.value("MasterCheck") is False
    assert result.value("TotalUsed") == NOT_COMPUTED
