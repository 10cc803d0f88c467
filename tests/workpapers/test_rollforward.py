"""``nj-incentives rollforward``: a workpaper rolled to its next period (issue 20, item 4).

For each template, a first-year workbook is filled, then rolled forward twice, each time
with that year's figures as DATA; the third workbook gives the figures of one
hand-computed three-year case (the arithmetic is in the comments), the same as the three
years filled at once. What was carried is checked against last year's outputs; the
sign-offs are cleared; the rolled workbook is opened and saved by LibreOffice and
recalculated by ``calc`` with a TRUE master check. Bad input (not one of ours, a period
past the law's last year, an output that exists, a refused cell) writes nothing.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc.run)
from nj_incentives import cli
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.workpapers.fill import FillError, fill
from nj_incentives.workpapers.recalc import vet_workbook
from nj_incentives.workpapers.recalc.prebuilt import recalculate_template
from nj_incentives.workpapers.rollforward import SIGNOFF_FIELDS, rollforward
from nj_incentives.workpapers.signoff import read_record, sign
from tooling import libreoffice_save, need

pytestmark = pytest.mark.slow

#: The engagement band DATA may give; the reviewer and the sign-off dates and hashes are
#: written only by ``sign`` (issue 36 item 2): :func:`signed` signs a filled workbook.
ENGAGEMENT = {
    "EngagementClient": "Rolled Widgets LLC (fictitious)",
    "EngagementPeriod": "first year",
    "EngagementPreparer": "A. Preparer",
    "EngagementDate": "2026-11-30",
}


def signed(path: Path) -> Path:
    """``path`` signed by its preparer, then its reviewer, as ``nj-incentives sign`` signs."""
    sign(path, preparer="A. Preparer", date="2026-11-30")
    sign(path, reviewer="R. Reviewer", date="2026-11-30")
    return path


def figures(path: Path) -> Any:
    """The workbook recalculated as ``calc`` recalculates it."""
    return recalculate_template(vet_workbook(path))


def serial(day: dt.date) -> int:
    return (day - dt.date(1899, 12, 30)).days


def column(recalc: Any, name: str) -> list[Any]:
    return [row[0] for row in recalc.names[name]]


def roll_three(
    first: Mapping[str, Any], template: str, years: list[Mapping[str, Any]], root: Path
) -> list[Path]:
    """The first year filled and signed, then rolled forward once per entry of ``years``."""
    paths = [signed(fill(template, {**ENGAGEMENT, **first}, root / "year1.xlsx").path)]
    for n, data in enumerate(years, 2):
        paths.append(rollforward(paths[-1], root / f"year{n}.xlsx", data).path)
    return paths


# --------------------------------------------------------------------------- ERTC

#: The ERTC example's Part I answers and roster (5 new positions in credit year one,
#: 4 in credit year two); credit year one 2023-04-01 to 2024-03-31, two to 2025-03-31.
#: The first workbook holds the periods to 2025, the one in which credit year two ends
#: (NJ_ERTC_SCHEDULE needs both credit years inside its periods, b.(1)); the next two
#: years roll the carryforward on.
ERTC_FIRST: dict[str, Any] = {
    "InQualifiedMunicipality": "Yes",
    "ReceivesUEZBenefit": "No",
    "PriorCreditPeriod": "No",
    "OperationsStart": "2023-03-15",
    "TaxType": "cbt",
    "SCorporation": "No",
    "GroupPayroll": 0,
    "Fractional": "No",
    "Employees": [
        {k: e[k] for k in ("name", "temporary", "excluded", "base", "year1", "year2")}
        for e in ertc_credit.EXAMPLE["employees"]
    ],
    "PeriodEnds": ["2023-12-31", "2024-12-31", "2025-12-31"],
    "GrossReceipts": [800_000, 1_200_000, 1_500_000],
    "Liabilities": [4_000, 9_000, 6_000],
    "OtherCredits": [0, 1_000, 500],
}
ERTC_YEARS = [
    {"GrossReceipts": 450_000, "Liabilities": 3_000, "OtherCredits": 0},
    {"GrossReceipts": 2_000_000, "Liabilities": 8_000, "OtherCredits": 0},
]


@pytest.fixture(scope="module")
def ertc_rolled(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return roll_three(ERTC_FIRST, "ertc-form-313", ERTC_YEARS, tmp_path_factory.mktemp("ertc"))


def test_ertc_three_years_rolled_give_the_hand_computed_figures(ertc_rolled: list[Path]) -> None:
    # The first workbook (periods 1-3):
    # Period 1 (ends 2023-12-31): liability 4,000, other credits 0; receipts 800,000 ->
    #   minimum tax 1,500 (N.J.S.A. 54:10A-5(e)); limit min(50% x 4,000 = 2,000,
    #   4,000 - 1,500 = 2,500) - 0 = 2,000 (b.(3)); no credit yet (year one ends 2024-03).
    # Period 2 (2024-12-31): 9,000, other 1,000; 1,200,000 -> minimum 2,000; limit
    #   min(4,500, 7,000) - 1,000 = 3,500. New credit: year one, 5 positions x 2,500 =
    #   12,500; used 3,500; carried out 12,500 - 3,500 = 9,000.
    # Period 3 (2025-12-31): 6,000, other 500; 1,500,000 -> minimum 2,000; limit
    #   min(3,000, 4,000) - 500 = 2,500. New credit: year two, 4 x 1,250 = 5,000; carried in
    #   9,000; used 2,500; refund (c.(2)): year one's credit left, 9,000 - 2,500 = 6,500,
    #   x the sustained effort ratio 4 / 5 = 0.8: 5,200; carried out 9,000 + 5,000 - 2,500
    #   - 5,200 = 6,300.
    # Rolled to period 4 (2026-12-31): 3,000, other 0; 450,000 -> minimum 1,000; limit
    #   min(1,500, 2,000) = 1,500; carried in 6,300 (b.(2)); used 1,500; out 4,800.
    # Rolled to period 5 (2027-12-31): 8,000; 2,000,000 -> minimum 2,000; limit
    #   min(4,000, 6,000) = 4,000; carried in 4,800; used 4,000; out 800.
    # Totals: used 0 + 3,500 + 2,500 + 1,500 + 4,000 = 11,500; refunded 5,200; carried
    #   forward 800 (17,500 allowed = 11,500 + 5,200 + 800).
    recalc = figures(ertc_rolled[-1])
    assert recalc.names["MasterCheck"] is True
    header = recalc.names["CreditSchedule"][0]
    table = [dict(zip(header, row, strict=True)) for row in recalc.names["CreditSchedule"][1:6]]
    assert [r["Used"] for r in table] == [0, 3_500, 2_500, 1_500, 4_000]
    assert [r["Carried in"] for r in table] == [0, 0, 9_000, 6_300, 4_800]
    assert [r["Carried out"] for r in table] == [0, 9_000, 6_300, 4_800, 800]
    assert [r["Refund"] for r in table] == [0, 0, 5_200, 0, 0]
    assert recalc.names["TotalUsed"] == 11_500
    assert recalc.names["TotalRefund"] == 5_200
    assert recalc.names["CarriedForward"] == 800
    # the period ends added one year apart, the engagement's period named anew
    assert column(recalc, "PeriodEnds")[3:5] == [46387, 46752]  # 2026-12-31, 2027-12-31
    assert recalc.names["EngagementPeriod"] == (
        "Privilege period ending 2027-12-31 (periods ending 2023-12-31 to 2027-12-31)"
    )


def test_ertc_the_carryforward_carried_in_is_last_years_carried_out(
    ertc_rolled: list[Path],
) -> None:
    year1, year2, year3 = (figures(path) for path in ertc_rolled)
    header = year3.names["CreditSchedule"][0]
    assert [y.names["MasterCheck"] for y in (year1, year2, year3)] == [True, True, True]
    # 6,300 after 2025 carried into 2026; 4,800 after 2026 carried into 2027
    assert year1.names["CarriedForward"] == 6_300
    assert year2.names["CreditSchedule"][4][header.index("Carried in")] == 6_300
    assert year2.names["CarriedForward"] == 4_800
    assert year3.names["CreditSchedule"][5][header.index("Carried in")] == 4_800


def test_ertc_the_same_as_the_three_years_filled_at_once(
    ertc_rolled: list[Path], tmp_path: Path
) -> None:
    at_once = {
        **ERTC_FIRST,
        "PeriodEnds": ["2023-12-31", "2024-12-31", "2025-12-31", "2026-12-31", "2027-12-31"],
        "GrossReceipts": [800_000, 1_200_000, 1_500_000, 450_000, 2_000_000],
        "Liabilities": [4_000, 9_000, 6_000, 3_000, 8_000],
        "OtherCredits": [0, 1_000, 500, 0, 0],
    }
    one = figures(fill("ertc-form-313", at_once, tmp_path / "once.xlsx").path)
    rolled = figures(ertc_rolled[-1])
    for name in ("CreditSchedule", "TotalUsed", "TotalRefund", "CarriedForward", "Year1New"):
        assert rolled.names[name] == one.names[name], name


def test_the_signoffs_are_cleared_and_the_rest_kept(ertc_rolled: list[Path]) -> None:
    first, rolled = figures(ertc_rolled[0]), figures(ertc_rolled[1])
    assert first.names["EngagementReviewer"] == "R. Reviewer"  # signed by ``sign``
    assert first.names["EngagementReviewerHash"]
    assert first.names["EngagementPreparerHash"]
    assert {"prepared", "reviewed"} <= read_record(ertc_rolled[0].read_bytes()).keys()
    for name in SIGNOFF_FIELDS:
        assert rolled.names.get(name) in (None, ""), name
    # nor does the sign-off record (the values signed) carry into the new period
    assert not {"prepared", "reviewed"} & read_record(ertc_rolled[1].read_bytes()).keys()
    for name in ("EngagementClient", "EngagementPreparer", "OperationsStart", "HoursYear1"):
        if name not in SIGNOFF_FIELDS:  # the preparer is a sign-off once the templates sign
            assert rolled.names[name] == first.names[name], name


# --------------------------------------------------------------------------- BEIP grant

#: Year one: the five years of the term projected (the schedule covers the whole term);
#: each roll forward replaces the next year's projection with its figures.
GRANT_FIRST = {
    "EngagementPeriod": "Grant year 1 of 5",
    "AgreementDate": "2010-01-01",
    "Term": 5,
    "GrantPct": "50%",
    "PartnerPct": 0,
    "SmartGrowth": "No",
    "LimitBasis": "withholdings",
    "Withholdings": [600_000] * 5,
    "NewEmployees": [10] * 5,
    "OtherGrants": [0] * 5,
}
GRANT_YEARS = [
    {"Withholdings": 600_000, "NewEmployees": 12, "OtherGrants": 50_000},
    {"Withholdings": 650_000, "NewEmployees": 14, "OtherGrants": 0},
]


def test_grant_three_years_rolled_give_the_hand_computed_figures(tmp_path: Path) -> None:
    # 50% of withholdings (a.), the $50,000 average cap (2010 agreement; N.J.A.C.
    # 19:31I-1.4(a), per year): cap room = new employees x 50,000 - grant so far.
    # Year 1: 50% x 600,000 = 300,000; room 10 x 50,000 = 500,000 -> 300,000 (cum 300,000)
    # Year 2: 300,000; room 12 x 50,000 - 300,000 = 300,000 -> 300,000 (cum 600,000)
    # Year 3: 325,000; room 14 x 50,000 - 600,000 = 100,000 -> 100,000 (cum 700,000)
    # Years 4, 5 (still the projection, 600,000 and 10 new employees): 300,000; room
    #   10 x 50,000 - 700,000 < 0 -> 0 (cum 700,000)
    # Combined limit (34:1B-134(b)): year 2, 50% x 600,000 - 50,000 other = 250,000:
    #   50,000 over; total within the limit 300,000 + 250,000 + 100,000 = 650,000.
    paths = roll_three(GRANT_FIRST, "beip-grant-schedule", GRANT_YEARS, tmp_path)
    recalc = figures(paths[-1])
    assert recalc.names["MasterCheck"] is True
    header = recalc.names["Schedule"][0]
    rows = [dict(zip(header, row, strict=True)) for row in recalc.names["Schedule"][1:6]]
    assert [r["Grant"] for r in rows] == [300_000, 300_000, 100_000, 0, 0]
    assert [r["Cumulative grant"] for r in rows] == [300_000, 600_000, 700_000] + [700_000] * 2
    assert recalc.names["TotalGrant"] == 700_000
    assert recalc.names["TotalGrantOverLimit"] == 50_000
    assert recalc.names["TotalGrantWithinLimit"] == 650_000
    assert recalc.names["EngagementPeriod"] == "Grant year 3 of 5"
    assert column(recalc, "NewEmployees")[:5] == [10, 12, 14, 10, 10]


# --------------------------------------------------------------------------- conversion

#: Year one: tax year 2023, with the liabilities of the later years with a credit
#: projected (the schedule needs one for every year with a credit, f.); each roll forward
#: replaces the next year's projection with its liability.
CONVERSION_FIRST = {
    "EngagementPeriod": "Tax year 2023",
    # e.(8): 120,000 accrued in 2020, two equal installments from 2023: 60,000 + 60,000;
    # e.(10): 50,000.01 accrued in 2022, two from 2023: 25,000.00 (rounded down) + 25,000.01
    # e.(12): 90,000 accrued in 2024, issued in 2025
    "ApprovedAmounts": {2020: 120_000, 2022: 50_000.01, 2024: 90_000},
    "TaxLiabilities": {2023: 70_000, 2024: 50_000, 2025: 50_000},
    "TransferProposed": "No",
    "RemoteWorkElection": "No",
    "RemoteWorkC40": "No",
}
CONVERSION_YEARS = [{"TaxLiabilities": 40_000}, {"TaxLiabilities": 100_000}]


@pytest.fixture(scope="module")
def conversion_rolled(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("conversion")
    return roll_three(CONVERSION_FIRST, "beip-credit-conversion", CONVERSION_YEARS, root)


def test_conversion_three_years_rolled_give_the_hand_computed_figures(
    conversion_rolled: list[Path],
) -> None:
    # 2023: issued 60,000 + 25,000.00 = 85,000.00; liability 70,000: applied 70,000,
    #   refunded 15,000.00 (f.)
    # 2024: issued 60,000 + 25,000.01 = 85,000.01; liability 40,000: applied 40,000,
    #   refunded 45,000.01
    # 2025: issued 90,000; liability 100,000: applied 90,000, refunded 0
    # totals: issued 260,000.01, applied 200,000, refunded 60,000.01
    recalc = figures(conversion_rolled[-1])
    assert [figures(p).names["MasterCheck"] for p in conversion_rolled[:2]] == [True, True]
    assert recalc.names["MasterCheck"] is True
    years = column(recalc, "TaxYears")
    at = {year: n for n, year in enumerate(years)}
    issued, applied, refund = (
        column(recalc, n) for n in ("CreditIssued", "CreditApplied", "CreditRefund")
    )
    assert [issued[at[y]] for y in (2023, 2024, 2025)] == [85_000, 85_000.01, 90_000]
    assert [applied[at[y]] for y in (2023, 2024, 2025)] == [70_000, 40_000, 90_000]
    assert [refund[at[y]] for y in (2023, 2024, 2025)] == [15_000, 45_000.01, 0]
    assert recalc.names["TotalCredit"] == 260_000.01
    assert recalc.names["TotalApplied"] == 200_000
    assert recalc.names["TotalRefund"] == 60_000.01
    assert recalc.names["EngagementPeriod"] == "Tax year 2025 (tax years 2017-2025)"


def test_conversion_last_years_refund_is_this_years_certificate(
    conversion_rolled: list[Path],
) -> None:
    # year 2 (tax year 2024) carries the 2023 refund, 15,000.00, and the 2023 period end;
    # year 3 (2025) the 2024 refund, 45,000.01 (f.; g.(2)); no proposed sale carried
    year2, year3 = figures(conversion_rolled[1]), figures(conversion_rolled[2])
    assert year2.names["CertificateAmount"] == 15_000
    assert year2.names["CreditPeriodEnd"] == 45291  # 2023-12-31
    assert year3.names["CertificateAmount"] == 45_000.01
    assert year3.names["CreditPeriodEnd"] == 45657  # 2024-12-31
    assert year3.names["TransferProposed"] == "No"


# --------------------------------------------------------------------------- bad input


def _nothing_written(out: Path, code: int, expected: int, capsys: Any, *words: str) -> None:
    err = capsys.readouterr().err
    assert code == expected, err
    assert not out.exists()
    assert "nothing written" in err
    for word in words:
        assert word in err, (word, err)


def test_a_period_past_the_laws_last_year_is_refused(
    conversion_rolled: list[Path], tmp_path: Path, capsys: Any
) -> None:
    out = tmp_path / "2026.xlsx"
    code = cli.main(["rollforward", str(conversion_rolled[-1]), "-o", str(out)])
    # the cell that sets the period, the year, the paragraph
    _nothing_written(out, code, 1, capsys, "Inputs!", "TaxLiabilities", "2026", "e.(13)")


def test_a_conversion_with_remote_work_rolls_past_2025(tmp_path: Path, capsys: Any) -> None:
    # issue 31 item 6: the shipped example's election and c.40 waiver are OK, its c.40
    # payments run to tax year 2025 and its commitment, extended by two years, past it:
    # its last tax year with a liability, 2025, rolls to 2026 (refused before: "tax year
    # 2026 is past the last tax year a converted credit is issued for")
    from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY

    example = DEFAULT_DIRECTORY / "examples" / "beip-credit-conversion-example.xlsx"
    out = tmp_path / "2026.xlsx"
    code = cli.main(["rollforward", str(example), "-o", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "from the tax year 2025 to the tax year 2026" in text
    assert "RemoteWorkC40Verdict 'OK'" in text  # the remote-work status carried


def test_a_grant_year_past_the_term_is_refused(tmp_path: Path, capsys: Any) -> None:
    first = {**GRANT_FIRST, "Term": 1, "Withholdings": [600_000], "NewEmployees": [10]}
    last = fill("beip-grant-schedule", first, tmp_path / "one.xlsx").path
    out = tmp_path / "two.xlsx"
    code = cli.main(["rollforward", str(last), "-o", str(out)])
    _nothing_written(out, code, 1, capsys, "Term = 1", "34:1B-129c.", "Inputs!C")


def test_a_template_that_declares_no_roll_forward_is_refused(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # rollforward reaches a template's roll only through its module's ROLL_FORWARD
    last = fill("beip-grant-schedule", {**GRANT_FIRST}, tmp_path / "one.xlsx").path
    from nj_incentives.programs.beip.templates import grant

    monkeypatch.delattr(grant, "ROLL_FORWARD")
    out = tmp_path / "two.xlsx"
    code = cli.main(["rollforward", str(last), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert not out.exists()
    assert err.splitlines()[0] == (
        f"nj-incentives rollforward: {last}: the beip-grant-schedule template declares no "
        "roll forward"
    ), err


def test_a_workbook_not_of_ours_is_refused(tmp_path: Path, capsys: Any) -> None:
    import openpyxl

    other = tmp_path / "budget.xlsx"
    book = openpyxl.Workbook()
    book.active["A1"] = "Budget"
    book.save(other)
    out = tmp_path / "next.xlsx"
    code = cli.main(["rollforward", str(other), "-o", str(out)])
    _nothing_written(out, code, 2, capsys, "budget.xlsx", "not one of the nj-incentives")


def test_an_output_that_exists_is_kept(
    conversion_rolled: list[Path], tmp_path: Path, capsys: Any
) -> None:
    out = tmp_path / "exists.xlsx"
    out.write_bytes(b"mine")
    code = cli.main(["rollforward", str(conversion_rolled[0]), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert out.read_bytes() == b"mine"
    assert "exists.xlsx: exists" in err
    assert "nothing written" in err


def test_a_refused_cell_of_last_is_named(tmp_path: Path, capsys: Any) -> None:
    import openpyxl

    last = fill("beip-grant-schedule", GRANT_FIRST, tmp_path / "one.xlsx").path
    book = openpyxl.load_workbook(last)
    sheet, cell = next(iter(book.defined_names["Term"].destinations))
    book[sheet][cell.replace("$", "")] = 11  # the term: at most 10 years
    book.save(last)
    out = tmp_path / "two.xlsx"
    code = cli.main(["rollforward", str(last), "-o", str(out)])
    where = f"one.xlsx {sheet}!{cell.replace('$', '')}"
    _nothing_written(out, code, 1, capsys, where, "Term = 11", "34:1B-129c.")


def test_a_refused_data_value_writes_nothing(conversion_rolled: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "next.xlsx"
    with pytest.raises(FillError) as refused:
        rollforward(conversion_rolled[0], out, {"TaxLiabilities": "lots"})
    assert refused.value.status == 1
    assert "TaxLiabilities" in str(refused.value)
    assert "lots" in str(refused.value)
    assert not out.exists()


# --------------------------------------------------------------------------- LibreOffice


@pytest.mark.libreoffice
def test_a_rolled_workbook_saved_by_libreoffice_computes(
    ertc_rolled: list[Path], conversion_rolled: list[Path], tmp_path: Path, capsys: Any
) -> None:
    soffice = need("soffice", "opens and saves the rolled workbooks as a LibreOffice user would")
    rolled = [tmp_path / "ertc.xlsx", tmp_path / "conversion.xlsx"]
    for source, target in zip((ertc_rolled[-1], conversion_rolled[-1]), rolled, strict=True):
        target.write_bytes(source.read_bytes())
    libreoffice_save(soffice, rolled, tmp_path / "saved", tmp_path / "profile")
    saved = [tmp_path / "saved" / path.name for path in rolled]
    assert all(path.exists() for path in saved)
    code = cli.main(
        ["calc", *map(str, saved), "-o", str(tmp_path / "out"), "--json", "--no-progress"]
    )
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [w["master_check"] for w in document["workbooks"]] == [True, True]
    outputs = [{o["label"]: o["value"] for o in w["outputs"]} for w in document["workbooks"]]
    # the hand-computed figures of the three-year cases above, after LibreOffice's save
    assert outputs[0]["Credit carried forward after the last period"] == 800.00
    assert outputs[1]["Total refunded as overpayments"] == 60_000.01
    assert any(
        "saved by LibreOffice" in note
        for w in document["workbooks"]
        for note in w["spilled_ranges"]
    )


def test_the_command_prints_what_it_carried(
    ertc_rolled: list[Path], tmp_path: Path, capsys: Any
) -> None:
    out = tmp_path / "year4.xlsx"
    data = tmp_path / "2026.yaml"
    data.write_text("GrossReceipts: 900000\nLiabilities: 5000\nOtherCredits: 0\n")
    code = cli.main(["rollforward", str(ertc_rolled[-1]), str(data), "-o", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    assert out.exists()
    assert "privilege period ending 2027-12-31 to the privilege period ending 2028-12-31" in printed
    assert "$800.00" in printed
    assert "52:27BBB-55b.(2)" in printed
    assert "sign-offs cleared" in printed
    recalc = figures(out)
    header = recalc.names["CreditSchedule"][0]
    row = recalc.names["CreditSchedule"][6]
    assert row[header.index("Period end")] == serial(dt.date(2028, 12, 31))
    assert row[header.index("Carried in")] == 800


# --------------------------------------------------------------------------- property


@settings(max_examples=8)
@given(
    term=st.integers(2, 10),
    data=st.data(),
)
def test_a_roll_keeps_every_input_but_the_signoffs_and_the_new_period(
    term: int, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Any grant schedule rolled from any year of its term: every input of LAST is in
    NEXT unchanged, but the sign-offs (cleared), the engagement's period (the next year)
    and the new year's row (DATA's figures)."""
    money = st.integers(0, 5_000_000)
    withholdings = data.draw(st.lists(money, min_size=term, max_size=term))
    employees = data.draw(st.lists(st.integers(0, 500), min_size=term, max_size=term))
    year = data.draw(st.integers(1, term - 1))
    new = data.draw(money)
    root = tmp_path_factory.mktemp("property")
    first = {
        **ENGAGEMENT,
        **GRANT_FIRST,
        "Term": term,
        "EngagementPeriod": f"Grant year {year} of {term}",
        "Withholdings": withholdings,
        "NewEmployees": employees,
        "OtherGrants": [0] * term,
    }
    last = signed(fill("beip-grant-schedule", first, root / "last.xlsx").path)
    rolled = rollforward(last, root / "next.xlsx", {"Withholdings": new})
    assert rolled.period_to == f"grant year {year + 1}"
    recalc = figures(rolled.path)
    before, after = figures(last).names, recalc.names
    expected = list(withholdings)
    expected[year] = new
    assert column(recalc, "Withholdings")[:term] == expected
    assert after["EngagementPeriod"] == f"Grant year {year + 1} of {term}"
    for name in SIGNOFF_FIELDS:
        assert after.get(name) in (None, "")
    kept = ("EngagementClient", "EngagementPreparer", "AgreementDate", "Term", "GrantPct")
    for name in (*kept, "NewEmployees", "OtherGrants", "SmartGrowth", "LimitBasis"):
        if name not in SIGNOFF_FIELDS:
            assert after[name] == before[name], name


def test_the_sources_and_tickmarks_are_kept_but_the_new_figures(tmp_path: Path) -> None:
    """Sources and tickmarks carry (the documents still support last year's figures);
    the row of the new period's figure loses its tick and source (not yet checked)."""
    first = {
        **GRANT_FIRST,
        "AgreementDateSource": "NJEDA agreement, 2010-01-01",
        "AgreementDateTick": "A",
        "WithholdingsSource": ["WR-30 2010", "projection", "projection"],
        "WithholdingsTick": ["W", "", ""],
    }
    last = fill("beip-grant-schedule", {**ENGAGEMENT, **first}, tmp_path / "one.xlsx").path
    rolled = rollforward(last, tmp_path / "two.xlsx", {"Withholdings": 610_000}).path
    recalc = figures(rolled)
    assert recalc.names["AgreementDateSource"] == "NJEDA agreement, 2010-01-01"
    assert recalc.names["AgreementDateTick"] == "A"
    # grant year 2's figure is new: its source and tick cleared; year 3 still the projection
    assert column(recalc, "WithholdingsSource")[:3] == ["WR-30 2010", None, "projection"]
    assert column(recalc, "WithholdingsTick")[0] == "W"
    assert column(recalc, "Withholdings")[:2] == [600_000, 610_000]


# --------------------------------------------------------------------------- past 8 periods

#: Ten more years after ERTC_FIRST's three: the template's 8 periods fill after five rolls,
#: then each roll drops the oldest period and carries its outcome in (OpeningCarried and
#: OpeningBefore, per credit year). After 2025 credit year one has 1,300 left (12,500 -
#: 3,500 - 2,500 used - 5,200 refunded) and year two 5,000. Liabilities just over the
#: $2,000 minimum keep the limit small (liability - 2,000: 150, 100, 200, 120, 180, 100,
#: 160, 130 in 2026-2033, 1,140 in all, year one's first), so with a carryforward limit
#: of 9 periods year one's credit (allowed 2024) expires in 2033 (1,300 - 1,140 = 160)
#: and year two's (2025) in 2034 (5,000 - 110 used = 4,890): after their periods were
#: dropped, from the credit carried in.
LONG_LIABILITIES = [2_150, 2_100, 2_200, 2_120, 2_180, 2_100, 2_160, 2_130, 2_110, 2_400]
LONG_LIMIT = 9


@pytest.fixture(scope="module")
def ertc_long(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("ertc-long")
    first = {**ERTC_FIRST, "CarryforwardYears": LONG_LIMIT}
    paths = [fill("ertc-form-313", {**ENGAGEMENT, **first}, root / "year1.xlsx").path]
    for n, liability in enumerate(LONG_LIABILITIES, 2):
        data = {"GrossReceipts": 2_000_000, "Liabilities": liability, "OtherCredits": 0}
        paths.append(rollforward(paths[-1], root / f"year{n}.xlsx", data).path)
    return paths


def _long_schedule() -> Any:
    """The core over all 13 periods at once (2023-2035), the figures every rolled
    workbook must show for its own periods."""
    from nj_incentives.programs.cbt import rules as cbt
    from nj_incentives.programs.ertc import rules as ertc

    receipts = [*ERTC_FIRST["GrossReceipts"], *[2_000_000] * len(LONG_LIABILITIES)]
    liabilities = [*ERTC_FIRST["Liabilities"], *LONG_LIABILITIES]
    others = [*ERTC_FIRST["OtherCredits"], *[0] * len(LONG_LIABILITIES)]
    ends = [dt.date(2023 + k, 12, 31) for k in range(len(liabilities))]
    minimums = [cbt.minimum_tax(r).amount for r in receipts]
    periods = ertc.privilege_periods(ends, liabilities, others, minimums)
    # 5 new positions in credit year one, 4 in year two (the example's roster)
    return ertc.credit_schedule("2023-03-15", 5, 4, periods, carryforward_years=LONG_LIMIT)


def test_ertc_rolled_ten_years_past_the_templates_periods_equals_one_long_schedule(
    ertc_long: list[Path],
) -> None:
    long = _long_schedule()
    by_end = {serial(row.period_end): row for row in long.rows}
    fields = {
        "New credit": "new_credit",
        "Carried in": "carried_in",
        "Limit": "limit",
        "Used": "used",
        "Refund": "refund",
        "Expired": "expired",
        "Carried out": "carried_out",
    }
    for n, path in enumerate(ertc_long, 1):
        recalc = figures(path)
        assert recalc.names["MasterCheck"] is True, path.name
        header, *rows = recalc.names["CreditSchedule"]
        table = [dict(zip(header, row, strict=True)) for row in rows if row[0] not in ("", None)]
        count = min(n + 2, 8)  # 3 periods, one more a year, at most the template's 8
        assert len(table) == count, path.name
        # the window of the last 8 periods (or fewer): 2023 + (n + 2 - count) on
        assert table[0]["Period end"] == serial(dt.date(2023 + n + 2 - count, 12, 31))
        for row in table:
            expected = by_end[row["Period end"]]
            for header_, field in fields.items():
                assert row[header_] == pytest.approx(float(getattr(expected, field))), (
                    path.name,
                    row["Period end"],
                    header_,
                )
        last = by_end[table[-1]["Period end"]]
        assert recalc.names["CarriedForward"] == pytest.approx(float(last.carried_out))
    # the last workbook shows 2028-2035: both credits expired in it, after their periods
    # (2024, 2025) were dropped
    assert [r.expired for r in long.rows[10:12]] == [Decimal("160.00"), Decimal("4890.00")]


def test_ertc_a_full_template_carries_its_first_periods_outcome_per_credit_year(
    ertc_long: list[Path],
) -> None:
    from nj_incentives.programs.ertc import rules as ertc

    long = _long_schedule()
    # year 7 (periods 2024-2031) dropped 2023 (no credit yet: nothing carried in);
    # year 8 (2025-2032) dropped 2024: year one's credit, allowed in 2024, carried in
    seventh, eighth, last = (figures(ertc_long[i]) for i in (6, 7, -1))
    assert column(seventh, "OpeningCarried") == [None, None]
    carried, before = ertc.opening_after(long, 2)  # after the periods 2023 and 2024
    assert before == [1, None]  # year two is allowed in 2025, a period shown
    assert carried[0] == Decimal("9000.00")  # 12,500 - 3,500 used in 2024
    assert column(eighth, "OpeningCarried")[0] == pytest.approx(float(carried[0]))
    assert column(eighth, "OpeningBefore")[0] == 1
    # the last (2028-2035): both credits carried in, allowed 4 and 3 periods before 2028
    assert column(last, "OpeningBefore") == [4, 3]
    amounts, _ = ertc.opening_after(long, 5)
    assert column(last, "OpeningCarried") == [pytest.approx(float(a)) for a in amounts]
    assert last.names["CarriedIn"] == pytest.approx(float(sum(amounts)))


def test_the_command_says_what_a_full_template_dropped_and_carried(
    ertc_long: list[Path], tmp_path: Path, capsys: Any
) -> None:
    out = tmp_path / "next.xlsx"
    code = cli.main(["rollforward", str(ertc_long[-1]), "-o", str(out), "--json"])
    assert code == 0
    document = json.loads(capsys.readouterr().out)
    printed = "\n".join(document["carried_lines"])
    assert "the periods ending 2028-12-31 dropped: all 8 privilege periods" in printed
    assert "OpeningCarried[1] = " in printed
    assert "OpeningBefore[1] = 5" in printed
    assert "N.J.S.A. 52:27BBB-55b.(2)" in printed
    # the same figures as numbers (rollforward --json, issue 32 item 7)
    figures = {f["name"]: f for f in document["carried"]}
    assert figures["OpeningBefore[1]"]["value"] == 5
    assert figures["OpeningCarried[1]"]["unit"] == "$"
    assert f"OpeningCarried[1] = ${figures['OpeningCarried[1]']['value']:,.2f}" in printed
    assert figures["OpeningCarried[1]"]["period"] == "2028-12-31"
    from nj_incentives.support.json_schema import schema_for

    jsonschema.validate(document, schema_for("rollforward"))


# --------------------------------------------------------------------------- tampered LAST


def test_changed_formulas_are_not_carried(
    conversion_rolled: list[Path], tmp_path: Path, capsys: Any
) -> None:
    """Issue 36 item 8: LAST's refund formulas multiplied by 10 carried ten times the
    refund into NEXT as its certificate, exit 0; the template's own formulas now compute
    the carried figures again from LAST's inputs, and the command says so."""
    import openpyxl

    book = openpyxl.load_workbook(conversion_rolled[0])
    sheet, cells = book.defined_names["CreditRefund"].attr_text.replace("$", "").split("!")
    for (cell,) in book[sheet.strip("'")][cells]:
        cell.value = "=10*" + str(cell.value).removeprefix("=")
    tampered = tmp_path / "tampered.xlsx"
    book.save(tampered)
    out = tmp_path / "next.xlsx"
    assert cli.main(["rollforward", str(tampered), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "the figures carried are the template's own" in err
    # the 2023 refund, 15,000.00 (as untampered), not 150,000.00
    assert figures(out).names["CertificateAmount"] == 15_000


def test_roster_names_added_are_not_read(ertc_rolled: list[Path], tmp_path: Path) -> None:
    """Issue 36 item 9: 400 more EmployeeNamesK names over the same 250 rows gave NEXT
    400 more roster parts; only the template's own roster sheets are read."""
    import re
    import zipfile

    # names added to workbook.xml as they are (no other change: the template's own
    # formulas, recalculated from its form)
    tampered = tmp_path / "tampered.xlsx"
    with zipfile.ZipFile(ertc_rolled[0]) as source, zipfile.ZipFile(tampered, "w") as copy:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "xl/workbook.xml":
                text = data.decode()
                added = ""
                for name in ("EmployeeNames", "Temporary", "HoursBase"):
                    ref = re.search(f'<definedName name="{name}">([^<]*)<', text)
                    assert ref is not None
                    added += "".join(
                        f'<definedName name="{name}{k}">{ref.group(1)}</definedName>'
                        for k in range(2, 6)
                    )
                data = text.replace("</definedNames>", added + "</definedNames>").encode()
            copy.writestr(item, data)
    with pytest.raises(FillError, match="EmployeeNames2 refers to 'Part II base year'!C7"):
        rollforward(tampered, tmp_path / "next.xlsx")
    assert not (tmp_path / "next.xlsx").exists()
