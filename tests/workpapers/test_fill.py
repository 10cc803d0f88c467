"""``nj-incentives fill``: templates filled from data (issue 20, items 1b and 1c).

Each template is filled from a DATA file holding its example's inputs (YAML for the grant
schedule, JSON with the declaration's keys for the conversion, CSV plus a payroll export
for the ERTC roster), then ``nj-incentives calc`` gives the example's own figures with
a TRUE master check: the filled workbook is the template with those inputs. Every value
refused names the input, the value, the rule and its citation; nothing is written.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc.run)
from ertc_roster import ertc_csv
from nj_incentives import cli
from nj_incentives.programs.beip.templates import conversion as beip_conversion
from nj_incentives.programs.beip.templates import grant as beip_grant
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.programs.ertc.templates.form_313 import ROSTER
from nj_incentives.workpapers import signoff
from nj_incentives.workpapers.fill import FillError, fill, template_inputs
from nj_incentives.workpapers.payroll import PayrollError, read_payroll
from nj_incentives.workpapers.recalc import vet_workbook
from nj_incentives.workpapers.recalc.safety import dynamic_arrays
from nj_incentives.workpapers.recalc.templates import shipped_layouts
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from tooling import libreoffice_save, need, recalculate_as_calc

pytestmark = pytest.mark.slow

EXAMPLES = DEFAULT_DIRECTORY / "examples"


def as_text(value: Any) -> Any:
    """JSON-ready: dates as ISO text, mapping keys as text."""
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): as_text(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_text(v) for v in value]
    return value


GRANT_YAML = """\
engagement:
  client: Example Manufacturing LLC (fictitious)
  entity_id: 00-0000000 (example)
  period: Grant years 1-5 (2010-2014)
  preparer: A. Preparer
  date: 2026-12-01
AgreementDate: 2010-01-01
Term: 5
GrantPct: 50%
PartnerPct: 0
SmartGrowth: No
LimitBasis: withholdings
Withholdings: [600000, 600000, 650000, 700000, 700000]
NewEmployees: [10, 12, 14, 15, 15]
OtherGrants: [0, 50000, 0, 0, 100000]
"""


def calendar_months(start: dt.date) -> list[str]:
    """The 36 calendar months of the base year and credit years one and two."""
    first = ertc.base_year(start).start
    return [
        f"{first.year + (first.month - 1 + n) // 12:04d}-{(first.month - 1 + n) % 12 + 1:02d}"
        for n in range(36)
    ]


def payroll_long(path: Path, employees: list[dict[str, Any]], start: dt.date) -> Path:
    """One row per employee and pay period: each month's hours in two semi-monthly rows
    (summed back by fill), months with no hours left out, as payroll exports do."""
    months = calendar_months(start)
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["Employee ID", "Pay month", "Hours worked", "Temporary", "Owner"])
        for e in employees:
            hours = [*e["base"], *e["year1"], *e["year2"]]
            for month, total in zip(months, hours, strict=True):
                if total:
                    first = total // 2
                    flags = ["Yes" if e["temporary"] else "", "Yes" if e["excluded"] else ""]
                    out.writerow([e["name"], f"{month}-15", first, *flags])
                    out.writerow([e["name"], month, total - first, *flags])
    return path


def calc_json(paths: list[Path], out: Path, capsys: Any) -> dict[str, Any]:
    code = cli.main(["calc", *map(str, paths), "-o", str(out), "--json", "--no-progress"])
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    document["exit"] = code
    return document


def unsigned(values: dict[str, Any]) -> dict[str, Any]:
    """A template's example values without the reviewer, whom DATA may not give (only
    nj-incentives sign writes a sign-off: issue 36 item 2)."""
    engagement = {k: v for k, v in values.get("engagement", {}).items() if k != "reviewer"}
    return {**values, "engagement": engagement}


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("filled")
    (root / "grant.yaml").write_text(GRANT_YAML)
    (root / "conversion.json").write_text(
        json.dumps(as_text(unsigned(dict(beip_conversion.EXAMPLE))))
    )
    employees = list(ertc_credit.EXAMPLE["employees"])
    start = ertc_credit.EXAMPLE["operations_start"]
    payroll = payroll_long(root / "payroll.csv", employees, start)
    return {
        "beip-grant-schedule-example.xlsx": fill(
            "beip-grant-schedule", root / "grant.yaml", root / "grant.xlsx"
        ).path,
        "beip-credit-conversion-example.xlsx": fill(
            DEFAULT_DIRECTORY / "beip-credit-conversion.xlsx",  # a workbook of ours
            root / "conversion.json",
            root / "conversion.xlsx",
        ).path,
        "ertc-form-313-example.xlsx": fill(
            "ertc-form-313.xlsx", ertc_csv(root / "ertc.csv"), root / "ertc.xlsx", hours=payroll
        ).path,
    }


def test_a_filled_template_computes_the_examples_figures(
    filled: dict[str, Path], tmp_path: Path, capsys: Any
) -> None:
    names = list(filled)
    examples = calc_json([EXAMPLES / n for n in names], tmp_path / "examples", capsys)
    ours = calc_json([filled[n] for n in names], tmp_path / "filled", capsys)
    assert examples["exit"] == ours["exit"] == 0
    for example, mine in zip(examples["workbooks"], ours["workbooks"], strict=True):
        assert mine["master_check"] is True
        assert mine["outputs"] == example["outputs"]
        assert mine["spilled_ranges"] == []  # nothing to restore: Excel's marking is there
    # ERTC example, worked: 160-hour months are full-time; credit year one counts 9 new
    # positions x $2,500 = $22,500 (Form 313 Part III, line 7)
    (credit,) = [
        o
        for o in ours["workbooks"][2]["outputs"]
        if o["label"].startswith("Credit for credit year one")
    ]
    assert (
        credit["value"]
        == examples["workbooks"][2]["outputs"][
            [o["label"] for o in examples["workbooks"][2]["outputs"]].index(credit["label"])
        ]["value"]
    )


@pytest.mark.parametrize("name", ["beip-grant-schedule", "beip-credit-conversion", "ertc-form-313"])
def test_the_dynamic_arrays_are_intact(filled: dict[str, Path], name: str) -> None:
    path = filled[f"{name}-example.xlsx"]
    assert dynamic_arrays(vet_workbook(path)) == dict(shipped_layouts()[name].dynamic)


def test_the_roster_hours_are_summed_per_month(filled: dict[str, Path]) -> None:
    book = openpyxl.load_workbook(filled["ertc-form-313-example.xlsx"], read_only=True)
    sheet = book[ertc_credit.ROSTER_SHEETS["year1"]]
    rows = [r for r in sheet.iter_rows(values_only=True) if r and r[0] == "Employee 4"]
    # D. Patel, credit year one: three months without hours, then nine of 160 (80 + 80)
    # (the row's tickmark and source columns follow its twelve months)
    assert [v or 0 for v in rows[0][-14:-2]] == [0, 0, 0, *[160] * 9]


@pytest.mark.libreoffice
def test_a_filled_workbook_saved_by_libreoffice_computes(
    filled: dict[str, Path], tmp_path: Path, capsys: Any
) -> None:
    soffice = need("soffice", "opens and saves the filled workbooks as a LibreOffice user would")
    libreoffice_save(soffice, filled.values(), tmp_path / "saved", tmp_path / "profile")
    saved = [tmp_path / "saved" / path.name for path in filled.values()]
    assert all(path.exists() for path in saved)
    before = calc_json(list(filled.values()), tmp_path / "before", capsys)
    after = calc_json(saved, tmp_path / "after", capsys)
    assert after["exit"] == 0
    for old, new in zip(before["workbooks"], after["workbooks"], strict=True):
        assert new["master_check"] is True
        assert new["outputs"] == old["outputs"]
        assert any("saved by LibreOffice" in note for note in new["spilled_ranges"])


def test_a_wide_payroll_export_gives_the_same_roster(tmp_path: Path) -> None:
    """One row per employee with calendar-month columns (2022-04 ... 2025-03)."""
    start = ertc_credit.EXAMPLE["operations_start"]
    employees = list(ertc_credit.EXAMPLE["employees"])
    months = calendar_months(start)
    path = tmp_path / "wide.csv"
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["Name", "Temporary", "Excluded", *months])
        for e in employees:
            hours = [*e["base"], *e["year1"], *e["year2"]]
            out.writerow([e["name"], e["temporary"], e["excluded"], *hours])
    wide = read_payroll(path, ROSTER, start).employees
    long_path = payroll_long(tmp_path / "long.csv", employees, start)
    long = read_payroll(long_path, ROSTER, start).employees
    assert [e["name"] for e in wide] == [e["name"] for e in employees]
    for a, b, e in zip(wide, long, employees, strict=True):
        for period in ("base", "year1", "year2"):
            assert [h or 0 for h in a[period]] == [h or 0 for h in b[period]] == e[period]
        assert (a["temporary"], a["excluded"]) == (e["temporary"], e["excluded"])


def test_twelve_month_columns_with_a_period_column(tmp_path: Path) -> None:
    path = tmp_path / "periods.csv"
    path.write_text(
        "employee,period,1,2,3,4,5,6,7,8,9,10,11,12\n"
        "A,base,160,160,160,160,160,160,160,160,160,160,160,160\n"
        "A,year1,160,160,160,160,160,160,160,160,160,160,160,160\n"
        "B,year one,0,0,0,140,140,140,140,140,140,140,140,140\n"
    )
    roster = read_payroll(path, ROSTER).employees
    assert [e["name"] for e in roster] == ["A", "B"]
    assert roster[1]["year1"] == [0, 0, 0, *[140] * 9]
    assert roster[1]["base"] == [None] * 12  # no row: blank months (0 hours)


def test_every_refused_payroll_row_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(
        "employee,month,hours\n"
        "A,2023-04,160\n"  # row 2: fine
        "A,2023-13,160\n"  # row 3: no such month
        ",2023-05,160\n"  # row 4: no employee
        "B,2023-05,800\n"  # row 5: over 744 in one row
        "C,2023-06,400\n"  # rows 6 and 7: 400 + 400 = 800 in one month
        "C,2023-06-30,400\n"
        "D,2019-01,10\n"  # row 8: in none of the three periods
        "E,2023-07,lots\n"  # row 9: not a number
    )
    with pytest.raises(PayrollError) as refused:
        read_payroll(path, ROSTER, dt.date(2023, 3, 15))
    assert refused.value.status == 1
    text = "\n".join(refused.value.messages)
    assert "bad.csv row 3: month '2023-13': not a month" in text
    assert "bad.csv row 4: no employee" in text
    assert "bad.csv row 5: B, year1 month 2: hours = '800': must be at most 744" in text
    assert "bad.csv rows 6, 7: C, year1 month 3: the hours sum to 800: must be at most 744" in text
    # row 8 (2019-01, in none of the three periods) is left out and noted, not refused
    # (tests/workpapers/test_review_traps.py)
    assert "row 8" not in text
    assert "bad.csv row 9: E, year1 month 4: hours = 'lots': must be a number" in text
    assert "52:27BBB-55e." in text
    assert len(refused.value.messages) == 5


def test_bad_data_names_the_input_the_value_the_rule_and_citation(
    tmp_path: Path, capsys: Any
) -> None:
    data = tmp_path / "bad.yaml"
    data.write_text("AgreementDate: 2010-13-01\nTerm: 11\nGrantPct: 50\nWithholdings: [1, -5]\n")
    out = tmp_path / "out.xlsx"
    assert cli.main(["fill", "beip-grant-schedule", str(data), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "AgreementDate = '2010-13-01': must be a date" in err
    assert (
        "Term = 11: the term of the grant must be from 1 to 10 years (N.J.S.A. 34:1B-129c.)" in err
    )
    assert "GrantPct = 50: a percentage is a fraction (50% = 0.5); did you mean 50%?" in err
    assert "Withholdings[2] = -5: must not be negative (N.J.S.A. 34:1B-129" in err
    assert "nothing written" in err
    assert not out.exists()


def test_an_input_the_template_does_not_have_is_named_by_its_row(
    tmp_path: Path, capsys: Any
) -> None:
    data = tmp_path / "data.csv"
    data.write_text("input,value\nTerm,5\nGrantPercentage,0.5\n")
    out = tmp_path / "out.xlsx"
    assert cli.main(["fill", "beip-grant-schedule", str(data), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "data.csv row 3: 'GrantPercentage' is not an input of the beip-grant-schedule" in err
    assert not out.exists()


def test_a_workbook_that_is_not_ours_is_refused(tmp_path: Path, capsys: Any) -> None:
    other = tmp_path / "other.xlsx"
    book = openpyxl.Workbook()
    book.active["A1"] = "someone's model"
    book.save(other)
    data = tmp_path / "data.json"
    data.write_text('{"Term": 5}')
    out = tmp_path / "out.xlsx"
    assert cli.main(["fill", str(other), str(data), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "other.xlsx: not one of the nj-incentives templates" in err
    assert "nj_incentives_template property (docProps/custom.xml)" in err
    assert not out.exists()


def test_an_existing_output_is_kept_without_force(tmp_path: Path) -> None:
    out = tmp_path / "mine.xlsx"
    out.write_bytes(b"an accountant's work")
    with pytest.raises(FillError) as refused:
        fill("beip-grant-schedule", {"Term": 5}, out)
    assert refused.value.status == 2
    assert out.read_bytes() == b"an accountant's work"
    fill("beip-grant-schedule", {"Term": 5}, out, force=True)
    assert out.read_bytes().startswith(b"PK")


def test_every_declared_input_can_be_named() -> None:
    inputs = template_inputs("ertc-form-313")
    assert {"OperationsStart", "PeriodEnds", "EmployeeNames", "HoursBase_1", "Employees"} <= set(
        inputs
    )
    assert inputs["HoursBase_1"].rule is ertc.HOURS_INPUT  # the roster's own declaration
    assert inputs["PeriodEnds"].rows == ertc_credit.MAX_PERIODS
    grant = template_inputs("beip-grant-schedule")
    assert grant["Withholdings"].rows == beip_grant.MAX_TERM


def big_roster(count: int) -> list[dict[str, Any]]:
    """``count`` employees of varied patterns (full-time, part-time, hired later, gone)."""
    patterns = [
        ([160] * 12, [160] * 12, [160] * 12),
        ([0] * 12, [160] * 12, [160] * 12),
        ([100] * 12, [100] * 12, [0] * 6 + [100] * 6),
        ([0] * 12, [0] * 3 + [150] * 9, [150] * 4 + [0] * 8),
        ([90] * 12, [90] * 12, [90] * 12),
    ]
    return [
        {
            "name": f"Employee {n:04d}",
            "temporary": n % 97 == 0,
            "excluded": n % 101 == 0,
            "base": patterns[n % 5][0],
            "year1": patterns[n % 5][1],
            "year2": patterns[n % 5][2],
        }
        for n in range(1, count + 1)
    ]


def big_roster_data(employees: list[dict[str, Any]]) -> dict[str, Any]:
    """The ERTC example's inputs (by the declaration's keys) with another roster."""
    example = unsigned(dict(ertc_credit.EXAMPLE))
    data = {k: v for k, v in example.items() if k not in ("periods", "employees")}
    for key, column in zip(
        ("PeriodEnds", "GrossReceipts", "Liabilities", "OtherCredits"),
        zip(*example["periods"], strict=True),
        strict=True,
    ):
        data[key] = list(column)
    return data | {"Employees": employees}


def test_a_501_employee_roster_continues_on_further_sheets(tmp_path: Path) -> None:
    """One employee past two full sheets: a first sheet, a middle one both continued and
    continuing, and a last one holding a single row (the sheet boundary, its other rows
    blank), with temporary and excluded employees on the first two; every hour on its
    sheet and the averages over the whole roster. (1,000 employees on 4 full sheets proved
    the same, without the partial last sheet, at twice the recalculation.) Recalculated
    as calc does it: from the form of the template with 3 roster sheets a period, held
    equal to the full engine on a continued roster by test_recalc_prebuilt.py (and on
    this one when the path was written: identical field by field)."""
    employees = big_roster(501)
    data = big_roster_data(employees)
    done = fill("ertc-form-313", data, tmp_path / "big.xlsx")
    # 501 employees / 250 rows a sheet = 3 sheets per period, the third with one row
    assert (done.employees, done.roster_sheets) == (501, 3)
    book = openpyxl.load_workbook(done.path, read_only=True)
    names = ertc_credit.roster_sheet_names(3)
    assert [s for s in book.sheetnames if s.startswith("Part II")] == [
        sheet for key in ("base", "year1", "year2") for sheet in names[key]
    ]
    for key in ("base", "year1", "year2"):  # every hour where it belongs, in order
        rows = [
            [hours or 0 for hours in row[-14:-2]]  # then the tick and source columns
            for sheet in names[key]
            for row in book[sheet].iter_rows(values_only=True)
            if row and str(row[0]).startswith("Employee ")
        ]
        # the last sheet's rows after the roster's end are blank
        assert rows[: len(employees)] == [e[key] for e in employees], key
        assert rows[len(employees) :] == [[0] * 12] * (3 * 250 - len(employees)), key
    result = recalculate_as_calc(done.path)
    assert result.method == "prebuilt"
    assert not result.function_errors
    # its formulas are its template's (with 3 roster sheets): the sign-off line says no
    # formula differs (the blank template's Calculations read one roster sheet a period)
    assert signoff.inspect(result).formulas_count == 0
    # the workbook's average positions are the core's over the whole roster
    for key, name in (("base", "Base"), ("year1", "Year1"), ("year2", "Year2")):
        hours = [e[key] for e in employees]
        flags = ([e["temporary"] for e in employees], [e["excluded"] for e in employees])
        expected = ertc.average_positions(ertc.roster(hours, *flags))
        cell = result.value(f"Positions{name}")
        shown = cell[0][0] if isinstance(cell, list) else cell
        assert float(shown) == pytest.approx(float(expected.average), abs=1e-9), key


def test_a_continued_roster_shows_its_names_without_recalculating(tmp_path: Path) -> None:
    """The year sheets show each employee's name by formula; a filled workbook stores the
    name as the formula's cached result, so a LibreOffice print or a file preview shows
    it (xlsxwriter's default cached result is 0)."""
    done = fill("ertc-form-313", {"Employees": big_roster(260)}, tmp_path / "x.xlsx")
    assert done.roster_sheets == 2  # 260 = 250 + 10
    book = openpyxl.load_workbook(done.path, data_only=True, read_only=True)
    names = ertc_credit.roster_sheet_names(2)
    shown = {
        row[0]: row[2]
        for sheet in (*names["year1"], *names["year2"])
        for row in book[sheet].iter_rows(values_only=True)
        if row and str(row[0]).startswith("Employee ")
    }
    assert shown["Employee 1"] == "Employee 0001"
    assert shown["Employee 260"] == "Employee 0260"
    assert shown["Employee 261"] in ("", None)  # below the last one: blank, not 0
