"""Template 2, BEIP credit conversion: the committed files are current, every input is
styled and validated, the example recalculates to the core's results to the cent, and bad
inputs fail visibly with the functions' messages (issue 5).

After a deliberate change to the template, rebuild: ``python -m
nj_incentives.workpapers.templates.build``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from nj_incentives.core import cells
from nj_incentives.core.workpaper import NOT_COMPUTED
from nj_incentives.programs import return_sheet as returns
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.beip.templates import conversion as beip_conversion
from nj_incentives.programs.beip.templates.conversion import ACCRUAL_YEARS, EXAMPLE, TAX_YEARS
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.remote_work import rules as remote_work
from nj_incentives.workpapers.memo import checks
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from nj_incentives.workpapers.templates.builder import build_template
from tooling import recalculate_as_calc as recalculate

TEMPLATE = DEFAULT_DIRECTORY / "beip-credit-conversion.xlsx"
FILLED = DEFAULT_DIRECTORY / "examples" / "beip-credit-conversion-example.xlsx"
CENT = Decimal("0.01")


def cents(value: Any) -> Decimal:
    """A cell's number to the cent (sums of cents carry float residue: 0.1 + 0.2)."""
    return Decimal(repr(float(value))).quantize(CENT)


@pytest.fixture(scope="module")
def example() -> Any:
    return recalculate(FILLED)


def test_the_example_passes_every_check(example: Any) -> None:
    assert example.value("MasterCheck") is True
    assert example.error_cells() == []
    assert example.function_errors == ()


def test_the_schedules_are_array_calls_not_one_call_per_cell(example: Any) -> None:
    cells = example.nj_formula_cells()
    assert cells["NJ_BEIP_CONVERSION_SCHEDULE"] == len(ACCRUAL_YEARS)  # one per accrual year
    assert "NJ_BEIP_CONVERSION_INSTALLMENT" not in cells  # the matrix calls nothing per cell


def core_schedules() -> dict[int, beip.ConversionSchedule]:
    dates = EXAMPLE["approval_dates"]
    return {
        year: beip.conversion_schedule(year, EXAMPLE["amounts"].get(year, 0), dates.get(year))
        for year in ACCRUAL_YEARS
    }


def test_each_accrual_year_schedule_equals_the_core(example: Any) -> None:
    for year, schedule in core_schedules().items():
        table = example.value(f"Conversion{year}")
        assert table[0] == ["Tax year", "Share", "Installment"]
        assert [[r.tax_year, float(r.share), float(r.amount)] for r in schedule.rows] == table[1:]
    # 2011: 480,000.55 approved 2017-09-15, in State fiscal year 2018 (e.(1) late approval):
    # 5% = 24,000.0275 -> 24,000.02 in 2018, ..., the remainder 120,000.16 in 2022
    late = example.value("Conversion2011")
    assert late[1] == [2018, 0.05, 24000.02]
    assert late[5] == [2022, 0.25, 120000.16]


def test_the_matrix_and_totals_equal_the_core_to_the_cent(example: Any) -> None:
    schedules = core_schedules()
    # the matrix prints in blocks of six accrual years: side by side, they are the matrix
    blocks = [
        example.value(f"Installments{chunk[0]}_{chunk[-1]}")
        for chunk in (ACCRUAL_YEARS[n : n + 6] for n in range(0, len(ACCRUAL_YEARS), 6))
    ]
    matrix = [[value for block in blocks for value in block[i]] for i in range(len(TAX_YEARS))]
    for i, tax_year in enumerate(TAX_YEARS):
        for j, accrual_year in enumerate(ACCRUAL_YEARS):
            expected = next(
                (r.amount for r in schedules[accrual_year].rows if r.tax_year == tax_year),
                Decimal(0),
            )
            assert cents(matrix[i][j]) == expected, (tax_year, accrual_year)
    issued = {
        t: sum(
            (r.amount for s in schedules.values() for r in s.rows if r.tax_year == t), Decimal(0)
        )
        for t in TAX_YEARS
    }
    assert [cents(row[0]) for row in example.value("CreditIssued")] == list(issued.values())
    # tax year 2021: 312,500 (2010) + 120,000.13 (2011) + 100,000 (2014) + 100,000 (2016)
    assert issued[2021] == Decimal("632500.13")
    assert cents(example.value("TotalCredit")) == sum(
        (Decimal(str(a)) for a in EXAMPLE["amounts"].values()), Decimal(0)
    )  # 2,890,000.56: every installment falls inside 2017-2030

    applied = [row[0] for row in example.value("CreditApplied")]
    refund = [row[0] for row in example.value("CreditRefund")]
    for n, tax_year in enumerate(TAX_YEARS):
        liability = EXAMPLE["liabilities"].get(tax_year)
        if issued[tax_year] == 0:
            assert applied[n] == refund[n] == 0
            continue
        core = beip.apply_credit(issued[tax_year], liability)
        assert (cents(applied[n]), cents(refund[n])) == (core.applied, core.overpayment)
    # 2018: credit 274,000.02 against a 120,000 liability: 120,000 applied, 154,000.02 refunded
    assert (applied[1], cents(refund[1])) == (120000.0, Decimal("154000.02"))


def test_transfer_and_remote_work_equal_the_core(example: Any) -> None:
    # sold 2024-06-30, the credit's tax period ends 2025-06-30: 365 days / 365 = 1 year;
    # 75% x 200,000 / 1.05 = 142,857.142... -> 142,857.14
    dates = {"sale_date": "2024-06-30", "credit_period_end": "2025-06-30"}
    price = beip.transfer_min_price(200_000, Decimal("0.05"), None, **dates)
    assert example.value("TransferMinPrice") == float(price.amount) == 142857.14
    check = beip.transfer_check(245_000.16, 200_000, 145_000, Decimal("0.05"), **dates)
    assert check.ok
    assert check.minimum_price == price.amount
    assert example.value("TransferVerdict") == "OK"
    credit_2022 = Decimal("445000.16")  # the installments of tax year 2022
    assert cents(example.value("Credit2022")) == credit_2022
    payment = remote_work.remote_work_payment(credit_2022).amount  # 5% = 22,250.008 -> 22,250.00
    assert example.value("RemoteWorkPayment") == float(payment) == 22250.0
    assert example.value("RemoteWorkVerdict") == "OK"


def filled(tmp_path: Path, **changes: Any) -> Any:
    values = dict(EXAMPLE)
    values.update(changes)
    return recalculate(build_template(beip_conversion, tmp_path / "filled.xlsx", values))


def test_text_in_a_money_cell_fails_with_the_message(tmp_path: Path) -> None:
    result = filled(tmp_path, amounts={**EXAMPLE["amounts"], 2014: "400k"})
    assert result.value("MasterCheck") is False
    message = result.value("Conversion2014")[0][0]
    assert message.startswith("#VALUE! amount = '400k'")
    # no wrong number: the matrix column and every total say so
    assert result.value("Installments2014_2019")[0][0] == NOT_COMPUTED
    assert result.value("TotalCredit") == NOT_COMPUTED
    assert {row[0] for row in result.value("CreditIssued")} == {NOT_COMPUTED}


def test_a_whole_number_percentage_fails_with_the_hint(tmp_path: Path) -> None:
    result = filled(tmp_path, share_at_facility=25)
    assert result.value("MasterCheck") is False
    verdict = result.value("RemoteWorkVerdict")
    assert "share_at_facility = 25" in verdict
    assert "did you mean 25%?" in verdict
    assert any(e.function == "NJ_BEIP_REMOTE_WORK_CHECK" for e in result.function_errors)


def test_a_blank_year_converts_nothing(tmp_path: Path) -> None:
    # 2016's 300,000 left blank: its schedule is all zeros and the total drops by it
    result = filled(tmp_path, amounts={**EXAMPLE["amounts"], 2016: None})
    assert result.value("MasterCheck") is True
    assert {row[2] for row in result.value("Conversion2016")[1:]} == {0}
    assert result.value("TotalCredit") == 2890000.56 - 300000


def test_a_missing_liability_fails_where_a_credit_needs_it(tmp_path: Path) -> None:
    liabilities = {k: v for k, v in EXAMPLE["liabilities"].items() if k != 2019}
    result = filled(tmp_path, liabilities=liabilities)
    assert result.value("MasterCheck") is False
    applied = result.value("CreditApplied")[TAX_YEARS.index(2019)][0]
    assert applied.startswith("#VALUE! tax_liability = (blank): is required")
    assert result.value("TotalCredit") == 2890000.56  # the installments themselves are fine


def test_an_approval_too_late_for_the_matrix_fails_the_total_check(tmp_path: Path) -> None:
    # approved 2027-01-01: State fiscal year 2027, installments 2027-2031; 2031 is outside
    result = filled(
        tmp_path, approval_dates={**EXAMPLE["approval_dates"], 2010: dt.date(2027, 1, 1)}
    )
    assert result.value("Conversion2010")[5] == [2031, 0.25, 312500.0]
    assert result.value("MasterCheck") is False
    assert result.value("TotalCredit") == 2890000.56 - 312500.0


def test_an_unlawful_transfer_fails_the_check_with_every_reason(tmp_path: Path) -> None:
    result = filled(tmp_path, transfer_amount=50_000, consideration=30_000)
    verdict = result.value("TransferVerdict")
    assert "less than 100,000.00" in verdict
    assert "consideration 30,000.00 is less than the minimum" in verdict
    assert result.value("MasterCheck") is False


def test_no_transfer_and_no_election_pass(tmp_path: Path) -> None:
    result = filled(tmp_path, transfer_proposed=False, remote_work_election=False)
    assert result.value("MasterCheck") is True
    assert result.value("TransferVerdict") == "no sale proposed"
    assert result.value("RemoteWorkPayment") == 0


def test_the_blank_template_fails_until_its_questions_are_answered() -> None:
    result = recalculate(TEMPLATE)
    assert result.value("MasterCheck") is False
    # approved amounts start blank (none): the schedules and the matrix compute; the transfer and
    # remote-work questions are blank, and their checks fail until answered
    assert result.value("TotalCredit") == 0
    failed = [label for label, _cite, ok in checks(result) if ok is not True]
    assert failed == [
        "The proposed sale of the transfer certificate is lawful (or none is proposed)",
        "The remote-work election and the waiver from 2024-04-01 meet h. (or none is claimed)",
    ]


def test_the_filer_year_end_shows_each_return(tmp_path: Path) -> None:
    """Issue 10, item 1: a June-30 filer's tax year N is the return ending June 30, N+1."""
    june = filled(tmp_path, year_end_month=6)
    ends = [row[0] for row in june.value("ReturnPeriodEnds")]
    # tax year 2017 (the first of e.(1)): the period ending 2018-06-30; 2022: 2023-06-30
    assert ends[0] == cells.serial_from_date(dt.date(2018, 6, 30))
    assert ends[TAX_YEARS.index(2022)] == cells.serial_from_date(dt.date(2023, 6, 30))
    assert june.value("Period2022End") == cells.serial_from_date(dt.date(2023, 6, 30))
    assert june.value("MasterCheck") is True
    # issue 31, a June filer's 2022 return under the 2021 Form 324 numbering (10-21): the
    # period ending 2023-06-30; the year's installments 445,000.16 on Part II line 4, the
    # 200,000.00 liability on Part III line 5: 200,000.00 applied, 445,000.16 - 200,000.00
    # = 245,000.16 refunded (f.): the calendar filer's figures, on a later period end
    block = beip_conversion.RETURN(june.value, 2022)
    assert block is not None
    assert block.period_end == dt.date(2023, 6, 30)
    amounts = {line.label: line.amount for line in block.lines}
    assert amounts["Approved credit (the certificate)"] == Decimal("445000.16")
    assert amounts["Allowable credit (applied)"] == Decimal("200000.00")
    assert amounts["Refund"] == Decimal("245000.16")
    where = [line.line.where() for line in block.lines[:2] if line.line]
    assert where == ["Part II, line 4", "Part III, line 5"]


def test_a_grant_approved_after_the_enactment_fails(tmp_path: Path) -> None:
    """Issue 10, item 7 (issue 19, item 5: enacted 2016-01-11): e. converts grants
    approved before 2016-01-11 only."""
    result = filled(tmp_path, grant_approval_date=dt.date(2016, 1, 11))
    assert result.value("MasterCheck") is False
    assert "grant_approval_date" in result.value("Conversion2010")[0][0]


def test_a_seller_that_is_a_transferee_fails(tmp_path: Path) -> None:
    # and (in the same recalculation) an S corporation that entered a Corporate Transit Fee
    # for tax year 2024 (a period beginning 2024-01-01, in the fee's 2024-2028): 2.5% of
    # allocated taxable net income of $12,000,000 over $10,000,000 = 0.025 x 2,000,000 =
    # 50,000.00, a C corporation's fee; the fee is not due from an S corporation
    # (P.L.2024, c.20, as the Division of Taxation states it), so the Checks line fails
    # naming the input, the tax year, the value, the rule, its citation and the answer
    result = filled(
        tmp_path,
        seller_is_transferee="Yes",
        s_corporation="Yes",
        transit_fees={2024: 0.025 * (12_000_000 - 10_000_000)},
    )
    assert result.value("MasterCheck") is False
    assert "transferee" in result.value("TransferVerdict")
    failed = [label for label, _, ok in checks(result) if ok is not True]
    assert (
        "Corporate Transit Fee entered for a taxpayer it is not due from: Corporate Transit Fee "
        "(if any), tax year 2024 = 50,000.00: the fee is not due from an S corporation or a "
        "public utility (P.L.2024, c.20); The taxpayer is a New Jersey S corporation = Yes."
    ) in failed
    # the fee is its own line of the return, as entered: the check flags, nothing is dropped
    assert [row[0] for row in result.value("ReturnTransitFees")][7] == 50000.0


def test_the_transfer_eligibility_facts_reach_the_check(tmp_path: Path, example: Any) -> None:
    """Issue 34 item 5: the template asks g.(1)-(3)'s facts and its check names a failing
    one. The example's sale passes (200,000 of 245,000.16 for 145,000, at least the
    discounted 75%: 142,857.14); blank facts are not checked (the example), so only a fact
    stated against the sale fails it. Seller pays a listed tax, g.(2) unstated: not shown
    eligible (g.(1), (2)); pays none: may apply under g.(1); the buyer may owe none: g.(3)."""
    assert "seller_pays_tax" not in EXAMPLE  # blank facts: the example's check as before
    assert example.value("TransferVerdict") == "OK"
    pays = filled(tmp_path, seller_pays_tax="Yes")
    assert pays.value("MasterCheck") is False
    verdict = pays.value("TransferVerdict")
    assert verdict.startswith("seller_pays_tax TRUE and credit_exceeds_liability (blank)")
    assert "34:1B-129g.(1), (2)" in verdict
    exceeds = filled(tmp_path, seller_pays_tax="Yes", credit_exceeds_liability="Yes")
    assert exceeds.value("TransferVerdict") == "OK"
    assert filled(tmp_path, seller_pays_tax="No").value("TransferVerdict") == "OK"
    buyer = filled(tmp_path, buyer_may_owe_tax="No").value("TransferVerdict")
    assert buyer.startswith("buyer_may_owe_tax FALSE")
    assert "34:1B-129g.(3)" in buyer
    # the function's reasons, word for word (the template passes the facts through)
    core = beip.transfer_check(
        245000.16,
        200000,
        145000,
        0.05,
        None,
        dt.date(2024, 6, 30),
        dt.date(2025, 6, 30),
        seller_pays_tax=True,
    )
    assert (verdict,) == core.reasons


def test_a_roll_forward_keeps_the_sellers_fact_and_clears_the_sales(tmp_path: Path) -> None:
    """Issue 34 item 5: whether the seller pays a listed tax is a fact of the business
    (kept); whether the credit exceeds the liability (g.(2)) and the buyer may owe a tax
    (g.(3)) are facts of last year's credit and sale (cleared with it)."""
    from nj_incentives.workpapers.rollforward import rollforward

    facts = {
        "seller_pays_tax": "Yes",
        "credit_exceeds_liability": "Yes",
        "buyer_may_owe_tax": "Yes",
        # the kind of taxpayer is a fact of the business too (no Corporate Transit Fee is
        # due from a public utility, P.L.2024, c.20): kept
        "public_utility": "Yes",
        # and whether it files a combined return (Form 324 Part IV): kept
        "combined_return_filer": "Yes",
    }
    last = build_template(beip_conversion, tmp_path / "2025.xlsx", {**EXAMPLE, **facts})
    rolled = recalculate(rollforward(last, tmp_path / "2026.xlsx", {}).path)
    assert rolled.value("SellerPaysTax") == "Yes"
    assert (rolled.value("PublicUtility"), rolled.value("SCorporation")) == ("Yes", "No")
    assert rolled.value("CombinedReturnFiler") == "Yes"
    assert rolled.value("TransferProposed") == "No"
    assert rolled.value("TransferVerdict") == "no sale proposed"
    for cleared in ("CreditExceedsLiability", "BuyerMayOweTax"):
        assert cleared not in rolled.names or rolled.value(cleared) in (None, "")


def test_a_combined_return_filer_shows_no_part_iii_figure(tmp_path: Path, example: Any) -> None:
    """Form 324 (2023 edition): a combined return filer skips Part III and completes Part
    IV (shared/legal-notes.md section 7), whose lines no source gives. The example with
    only ``combined_return_filer`` Yes (fill's key): Part II line 3 is as before (2025:
    the 90,000.00 issued), every Part III figure and the Schedule A-3 BEIP line (the
    allowable credit) say "not computed: Part IV", never a number; the transit fee's own
    line stays (0). The No case is the example (its 2025 figures: 90,000 issued against
    80,000, 80,000 applied, 10,000 refunded), test_the_return_of_a_tax_year_..."""
    import openpyxl

    result = filled(tmp_path, combined_return_filer="Yes")
    assert result.value("MasterCheck") is True
    # the answer is an input of the sign-off's hash (only it differs from the example)
    assert result.value("InputsHash") != example.value("InputsHash")
    skipped = "not computed: Part IV"
    amounts = [row[0] for row in result.value("ReturnAmounts")]
    assert amounts == [90000.0, skipped, skipped, skipped, skipped, 0]
    # the form line's label formula: the reason, not a Part III line
    ((sheet, cells_),) = (
        openpyxl.load_workbook(tmp_path / "filled.xlsx").defined_names["ReturnAmounts"].destinations
    )
    first, last = cells_.replace("$", "").split(":")
    labels = [row[0] for row in result.range_values(sheet, f"C{first[1:]}:C{last[1:]}")]
    assert labels[0] == "Form 324 (2023 edition) Part II, line 3"
    assert labels[1:5] == [returns.COMBINED_WHERE] * 4
    # the block (calc --return, --json, memo page 1): the same, with the note
    for year, approved in ((2025, Decimal("90000.00")), (2022, Decimal("445000.16"))):
        block = beip_conversion.RETURN(result.value, year)
        assert block is not None
        assert block.lines[0].amount == approved
        for line in block.lines[1:5]:
            assert (line.amount, line.line, line.note) == (
                None,
                None,
                returns.COMBINED_WHERE,
            )
            assert "Part III" not in (line.line.where() if line.line else "")
        assert any("skips Form 324's Part III" in note for note in block.notes)
        assert block.as_dict()["lines"][1]["amount"] is None  # type: ignore[index]
    unchanged = beip_conversion.RETURN(example.value, 2025)
    assert unchanged is not None
    assert not any("Part IV" in note for note in unchanged.notes)


def test_the_c40_payment_for_each_tax_year_from_2024(example: Any) -> None:
    """Issue 19, item 2: P.L.2024, c.40's 10% of each tax period's credit from 2024.
    The example's credit issued: 2024: 120,000 accrued 2020 / 2 = 60,000 (its second
    installment); 2025: 90,000 accrued 2024 (one installment). 10% each: 6,000 + 9,000
    = 15,000; 40% on site outside an enhanced area: OK; commitment 2026-06-30 + 2 years."""
    assert example.value("RemoteWorkC40Verdict") == "OK"
    assert example.value("RemoteWorkC40Total") == 15000.0
    for year, credit in ((2024, 60000), (2025, 90000)):
        core = remote_work.remote_work_payment(credit, cbt.period_end_for(year))
        assert core.version == "P.L.2024, c.40"
        assert core.amount == Decimal(credit) / 10
    assert example.value("ExtendedCommitmentEnd") == cells.serial_from_date(dt.date(2028, 6, 30))


def test_the_c40_waiver_inside_an_enhanced_area_fails(tmp_path: Path) -> None:
    result = filled(tmp_path, enhanced_area=True)
    assert result.value("MasterCheck") is False
    assert "no waiver from 2024-04-01" in result.value("RemoteWorkC40Verdict")


def test_the_return_of_a_tax_year_on_the_form_edition_in_force(example: Any) -> None:
    # calc --return (issue 31): the example's 2022 return on the 2021 Form 324 (10-21),
    # which numbers the 2023 edition's items one higher: the approved credit on Part II
    # line 4, the liability on Part III line 5; 2025 on the 2023 edition (lines 3 and 4).
    # 2022: issued 445,000.16 against a 200,000.00 liability: 200,000.00 applied and
    # 445,000.16 - 200,000.00 = 245,000.16 refunded (N.J.S.A. 34:1B-129f.).
    block = beip_conversion.RETURN(example.value, 2022)
    assert block is not None
    by_label = {line.label: line for line in block.lines}
    approved = by_label["Approved credit (the certificate)"]
    assert approved.amount == Decimal("445000.16")
    assert approved.line is not None
    assert approved.line.label(what=False) == "Form 324 (2021 edition, rev. 10-21) Part II, line 4"
    liability = by_label["Tax liability (the CBT before the Corporate Transit Fee)"]
    assert liability.line is not None
    assert liability.line.where() == "Part III, line 5"
    applied = by_label["Allowable credit (applied)"].amount
    refund = by_label["Refund"].amount
    assert applied == liability.amount == Decimal("200000.00")
    assert refund == approved.amount - applied == Decimal("245000.16")
    assert by_label["BEIP credit"].amount == applied
    later = beip_conversion.RETURN(example.value, 2025)
    assert later is not None
    assert [line.line.where() for line in later.lines[:2] if line.line] == [
        "Part II, line 3",
        "Part III, line 4",
    ]
    assert beip_conversion.RETURN(example.value, 2040) is None  # not one of its years
    # the Return sheet: by default the last tax year with a liability entered (2025), its
    # figures the cells RETURN reads (one source): 90,000 issued against 80,000, 80,000
    # applied and 90,000 - 80,000 = 10,000 refunded; no Corporate Transit Fee entered (0, its
    # own line apart from the CBT, P.L.2024, c.20)
    assert example.value("ReturnTaxYear") == 2025
    sheet = [row[0] for row in example.value("ReturnAmounts")]
    assert sheet == [float(line.amount or 0) for line in later.lines]
    assert sheet == [90000.0, 80000.0, 80000.0, 10000.0, 80000.0, 0.0]
