"""Issue 32, item 8: the roll-forward figure, the free-text period, the projection tick,
and the data-entry traps of "What is wrong today" item 9, each shown as it was (the
comment says what happened before) and as it is now."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from nj_incentives import cli
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.programs.ertc.templates.form_313 import ROSTER
from nj_incentives.workpapers.fill import FillError, check_entries, fill, read_data
from nj_incentives.workpapers.payroll import read_payroll
from nj_incentives.workpapers.recalc import vet_workbook
from nj_incentives.workpapers.recalc.prebuilt import recalculate_template

ERTC = {
    "EngagementClient": "Traps LLC (fictitious)",
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
    # 2026 and 2027 are projections (tick "E") of a workpaper for the period ending 2025
    "EngagementPeriod": "Privilege period ending 2025-12-31",
    "PeriodEnds": ["2023-12-31", "2024-12-31", "2025-12-31", "2026-12-31", "2027-12-31"],
    "PeriodEndsTick": [None, None, None, "E", "E"],
    "GrossReceipts": [800_000, 1_200_000, 1_500_000, 450_000, 2_000_000],
    "Liabilities": [4_000, 9_000, 6_000, 3_000, 8_000],
    "OtherCredits": [0, 1_000, 500, 0, 0],
}


def test_rollforward_reports_the_named_periods_figure_and_clears_the_projection(
    tmp_path: Path, capsys: Any
) -> None:
    # The schedule (tests/workpapers/test_rollforward.py, worked): carried out of 2025:
    # 9,000 + 5,000 - 2,500 - 5,200 = 6,300; of 2027 (the workbook's last): 800.
    # Before: "credit carried forward after the period ending 2025-12-31: $800.00" (the
    # figure after the last period), --json "carried" that sentence, and the 2026 row's
    # tick "E" kept after DATA gave its actual liability.
    last = fill("ertc-form-313", ERTC, tmp_path / "2025.xlsx").path
    data = tmp_path / "2026.yaml"
    data.write_text("Liabilities: 3500\n")
    argv = ["rollforward", str(last), str(data), "-o", str(tmp_path / "2026.xlsx"), "--json"]
    assert cli.main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["carried"] == [
        {"name": "CarriedForward", "value": 6300.0, "unit": "$", "period": "2025-12-31"}
    ]
    assert "period ending 2025-12-31: $6,300.00" in document["carried_lines"][0]
    rolled = recalculate_template(vet_workbook(tmp_path / "2026.xlsx"))
    ticks = [row[0] for row in rolled.names["PeriodEndsTick"]]
    assert ticks[:5] == [None, None, None, None, "E"]  # 2026 actual now; 2027 still projected
    assert rolled.names["Liabilities"][3] == [3500]


def test_a_free_text_period_is_not_passed_over(tmp_path: Path) -> None:
    # Grant years 1-3 have withholdings; the engagement's period, in the preparer's own
    # words, is "Year 2 of 5" (year 3 a projection). Before: the roll started from the
    # last year with figures (3) and wrote grant year 4, skipping year 3.
    data = {
        "EngagementPeriod": "Year 2 of 5",
        "AgreementDate": "2010-01-01",
        "Term": 5,
        "GrantPct": "50%",
        "Withholdings": [600_000, 600_000, 650_000],
    }
    last = fill("beip-grant-schedule", data, tmp_path / "y2.xlsx").path
    rolled = cli.main(["rollforward", str(last), "-o", str(tmp_path / "y3.xlsx")])
    assert rolled == 0
    after = recalculate_template(vet_workbook(tmp_path / "y3.xlsx"))
    assert after.names["EngagementPeriod"] == "Grant year 3 of 5"


def test_yaml_thousands_commas_in_a_list_are_refused(tmp_path: Path, capsys: Any) -> None:
    # YAML reads [600,000, 600,000] as 600, 0, 600, 0; explain refuses the same commas.
    data = tmp_path / "grant.yaml"
    data.write_text("Term: 5\nWithholdings: [600,000, 600,000]  # dollars\nGrantPct: '1,5'\n")
    out = tmp_path / "grant.xlsx"
    assert cli.main(["fill", "beip-grant-schedule", str(data), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "grant.yaml line 2: 600,000 in a [...] list" in err
    assert "write 600000" in err
    assert not out.exists()
    spaced = tmp_path / "spaced.yaml"  # a space after each comma: a list of values
    spaced.write_text("Withholdings: [600, 000, 1250000]\n")
    # each value as typed, read by the money rule when filled (issue 36 item 6)
    assert read_data(spaced) == [("spaced.yaml", "Withholdings", ["600", "000", "1250000"])]


def test_a_year_keyed_tables_sources_are_keyed_as_its_values() -> None:
    # Before: ApprovedAmountsSource {2012: ...} was refused (positional from 2008 only).
    entries = [
        ("d", "ApprovedAmounts", {2012: 100_000}),
        ("d", "ApprovedAmountsSource", {2012: "EDA letter 2012-03-01"}),
    ]
    values, _given, unknown, refused = check_entries("beip-credit-conversion", entries)
    assert unknown == refused == []
    sources = values["sources"]["ApprovedAmountsSource"]  # one per row, as the builder takes
    assert sources[2012 - 2008] == "EDA letter 2012-03-01"  # the row of 2012, the 5th
    assert sources[:4] == [None] * 4


def _payroll(path: Path, header: str, rows: list[str]) -> Path:
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def test_a_payroll_without_flag_columns_is_noted_and_outside_months_left_out(
    tmp_path: Path,
) -> None:
    # Before: no temporary/excluded column made everyone permanent without a word, and a
    # month outside the 36 (2019-01) refused the whole file.
    path = _payroll(
        tmp_path / "export.csv",
        "employee,month,hours",
        ["A,2023-04,160", "A,2019-01,160", "B,2030-05,10"],
    )
    payroll = read_payroll(path, ROSTER, dt.date(2023, 3, 15))
    assert [e["name"] for e in payroll.employees] == ["A"]  # B: only months outside
    notes = "\n".join(payroll.notes)
    assert "export.csv: no temporary column" in notes
    assert "export.csv: no excluded column" in notes
    assert "2 calendar month(s) outside the three periods" in notes
    assert "left out: 2019-01, 2030-05" in notes


def test_a_roster_template_with_no_roster_is_not_a_silent_success(
    tmp_path: Path, capsys: Any
) -> None:
    data = tmp_path / "ertc.yaml"
    data.write_text("InQualifiedMunicipality: 'Yes'\n")
    out = tmp_path / "ertc.xlsx"
    assert cli.main(["fill", "ertc-form-313", str(data), "-o", str(out)]) == 1  # before: 0
    assert out.exists()  # written, for the preparer to complete
    assert "written with no roster" in capsys.readouterr().err


def test_unknown_names_list_the_inputs_once(tmp_path: Path, capsys: Any) -> None:
    data = tmp_path / "typo.yaml"
    data.write_text("Trm: 5\nWithholding: [1]\nBogus: 2\n")
    out = tmp_path / "typo.xlsx"
    assert cli.main(["fill", "beip-grant-schedule", str(data), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("AgreementDate, Term") == 1  # before: once per unknown name (3)
    assert "'Withholding' is not an input of the beip-grant-schedule template" in err
    assert "did you mean Withholdings" in err


def test_explain_and_fill_exit_alike_for_the_same_refusal(tmp_path: Path, capsys: Any) -> None:
    # GrantPct 50 (not 50%): refused by its rule; before, explain exited 2 and fill 1
    assert cli.main(["explain", "grant", "1000000", "50"]) == 1
    data = tmp_path / "pct.yaml"
    data.write_text("GrantPct: 50\n")
    out = tmp_path / "pct.xlsx"
    assert cli.main(["fill", "beip-grant-schedule", str(data), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("did you mean 50%?") == 2


@pytest.mark.parametrize("command", ["fill", "rollforward"])
def test_force_does_not_overwrite_a_workbook_open_in_excel(
    command: str, tmp_path: Path, capsys: Any
) -> None:
    out = tmp_path / "grant.xlsx"
    out.write_bytes(b"the user's workbook")
    (tmp_path / "~$grant.xlsx").write_bytes(b"\x0bA. Preparer")  # Excel's owner file
    if command == "fill":
        data = tmp_path / "grant.yaml"
        data.write_text("Term: 5\n")
        argv = ["fill", "beip-grant-schedule", str(data), "-o", str(out), "--force"]
    else:
        last = cli_workbook(tmp_path)
        argv = ["rollforward", str(last), "-o", str(out), "--force"]
    assert cli.main(argv) == 2
    assert "open in Excel (~$grant.xlsx is beside it)" in capsys.readouterr().err
    assert out.read_bytes() == b"the user's workbook"
    with pytest.raises(FillError):
        fill("beip-grant-schedule", {"Term": 5}, out, force=True)


def cli_workbook(tmp_path: Path) -> Path:
    data = {"AgreementDate": "2010-01-01", "Term": 5, "GrantPct": "50%", "Withholdings": [1e5]}
    return fill("beip-grant-schedule", data, tmp_path / "last.xlsx").path
