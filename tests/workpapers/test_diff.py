"""``nj-incentives diff`` (issue 32 item 5): two versions of a workpaper side by side, each
difference with its cause: a workbook against its rolled-forward successor, a change,
the periods of an ERTC workbook aligned by date, one workbook under two laws."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import jsonschema
import openpyxl

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc.run)
from nj_incentives import cli
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.support.json_schema import schema_for
from nj_incentives.workpapers.diff import as_json, compare, html, text
from nj_incentives.workpapers.fill import fill
from nj_incentives.workpapers.rollforward import rollforward
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY

GRANT = {
    "EngagementClient": "Diff LLC (fictitious)",
    "EngagementPreparer": "A. Preparer",
    "AgreementDate": "2012-01-01",
    "Term": 5,
    "GrantPct": "50%",
    "Withholdings": [600_000, 650_000],
    "NewEmployees": [20, 20],
}


def by_name(found: Any) -> dict[tuple[str, str], Any]:
    return {(d.section, d.name): d for d in found.differences}


def test_a_workbook_against_its_roll_forward(tmp_path: Path, capsys: Any) -> None:
    last = fill("beip-grant-schedule", GRANT, tmp_path / "y2.xlsx").path
    data = {"Withholdings": 700_000, "NewEmployees": 20}
    rolled = rollforward(last, tmp_path / "y3.xlsx", data).path
    found = by_name(compare(last, rolled))
    # grant year 3 added: 50% x 700,000 = 350,000; total 300,000 + 325,000 + 350,000
    assert found[("input", "Withholdings[row 3]")].cause == "added in B"
    total = found[("output", "TotalGrant (Total grant)")]
    assert (total.a, total.b) == (625_000.0, 975_000.0)
    assert "inputs changed: Withholdings[row 3], NewEmployees[row 3]" in total.cause
    assert found[("engagement", "Preparer")].b is None  # the roll clears the sign-offs
    argv = ["diff", str(last), str(rolled), "--json", "--html", str(tmp_path / "d.html")]
    assert cli.main(argv) == 1  # they differ
    document = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, schema_for("diff"))
    report = (tmp_path / "d.html").read_text()
    assert "<h2>Outputs</h2>" in report
    assert "Withholdings[row 3]" in report
    assert cli.main(["diff", str(last), str(last)]) == 0
    assert "No differences." in capsys.readouterr().out


def test_ertc_periods_are_aligned_by_date(tmp_path: Path) -> None:
    # B is A without its first period (as a roll forward of a full workbook drops the
    # oldest): each period's figures are compared with the same period's, not row's
    example = ertc_credit.EXAMPLE
    data = {
        k: (v.isoformat() if isinstance(v, dt.date) else v)
        for k, v in example.items()
        if k not in ("periods", "employees", "engagement")
    }
    data["Employees"] = [
        {k: e[k] for k in ("name", "temporary", "excluded", "base", "year1", "year2")}
        for e in example["employees"]
    ]
    columns = [list(c) for c in zip(*example["periods"], strict=True)]
    names = ("PeriodEnds", "GrossReceipts", "Liabilities", "OtherCredits")
    full = {
        n: [v.isoformat() if isinstance(v, dt.date) else v for v in c]
        for n, c in zip(names, columns, strict=True)
    }
    a = fill("ertc-form-313", data | full, tmp_path / "a.xlsx").path
    later = {n: c[1:] for n, c in full.items()}
    b = fill("ertc-form-313", data | later, tmp_path / "b.xlsx").path
    found = compare(a, b)
    assert "PeriodEnds: by period end" in found.aligned
    first = full["PeriodEnds"][0]
    inputs = [d for d in found.differences if d.section == "input"]
    assert {d.name for d in inputs} == {f"{n}[{first}]" for n in names}
    assert {d.cause for d in inputs} == {"not in B (its period not kept)"}
    assert "by period end" in text(found)


def test_one_workbook_under_two_laws(tmp_path: Path, capsys: Any) -> None:
    example = DEFAULT_DIRECTORY / "examples" / "beip-grant-schedule-example.xlsx"
    found = compare(example, law_as_of_a=dt.date(2023, 6, 30), law_as_of_b=dt.date(2025, 1, 1))
    law = by_name(found)[("law", "law applied (--law-as-of)")]
    assert (law.a, law.b) == ("the law as of 2023-06-30", "the law as of 2025-01-01")
    assert not [d for d in found.differences if d.section == "input"]  # the same inputs
    for d in found.differences:
        if d.section == "output":
            assert d.cause.startswith("the law version applied")
    assert "The law applied" in html(found)
    argv = ["diff", str(example), "--law-as-of", "2023-06-30", "--law-as-of", "2025-01-01"]
    assert cli.main([*argv, "--json"]) in (0, 1)
    jsonschema.validate(json.loads(capsys.readouterr().out), schema_for("diff"))
    assert cli.main(["diff", str(example)]) == 2  # neither B nor two dates


def test_the_return_lines_side_by_side(tmp_path: Path, capsys: Any) -> None:
    # the shipped ERTC example against itself with one input changed: the 2025 period's
    # liability 6,000 -> 20,000 (the third row of the Liabilities table: its cells found
    # by the defined name, not by address, so an input added above it moves nothing here)
    example = DEFAULT_DIRECTORY / "examples" / "ertc-form-313-example.xlsx"
    book = openpyxl.load_workbook(example)
    sheet_name, cells = next(iter(book.defined_names["Liabilities"].destinations))
    liabilities = book[sheet_name][cells.replace("$", "")]
    row = liabilities[2][0].row
    assert book[sheet_name].cell(row, 3).value == dt.datetime(2025, 12, 31)  # column C
    assert liabilities[2][0].value == 6_000
    liabilities[2][0].value = 20_000
    changed = tmp_path / "changed.xlsx"
    book.save(changed)
    found = compare(example, changed)
    rows = {(r.tax_year, r.label): r for r in found.returns}
    assert {year for year, _ in rows} == {2023, 2024, 2025, 2026, 2027}  # both cover these
    assert not [r for r in found.returns if r.tax_year < 2025 and r.changed]
    # 2025, available 9,000 carried in + 5,000 credit year two = 14,000; the limit is
    # 50% of the liability less the 500 of other credits: A 3,000 - 500 = 2,500 used and
    # a 5,200 refund, 14,000 - 2,500 - 5,200 = 6,300 carried; B 10,000 - 500 = 9,500
    # used, no refund, 14,000 - 9,500 = 4,500 carried
    allowable = rows[(2025, "Allowable credit")]
    assert (allowable.a, allowable.b, allowable.difference) == (2_500.0, 9_500.0, 7_000.0)
    assert (allowable.form, allowable.edition) == ("Form 313", 2023)
    assert allowable.cause == "inputs changed: Liabilities[2025-12-31]"
    carried = rows[(2025, "Carried forward")]
    assert (carried.a, carried.b, carried.difference) == (6_300.0, 4_500.0, -1_800.0)
    assert rows[(2026, "Credit carried in")].b == 4_500.0  # 2025's carried forward
    assert not rows[(2025, "Credit carried in")].changed
    assert rows[(2025, "Credit carried in")].cause == ""
    differences = by_name(found)
    key = ("return line", f"2025 Allowable credit ({allowable.where})")
    assert (differences[key].a, differences[key].b) == (2_500.0, 9_500.0)
    shown = text(found)
    assert "tax years 2023-2024: 12 lines each, no difference" in shown
    assert "tax year 2025: 5 of 12 lines differ" in shown
    report = html(found)
    assert "<h2>The return</h2>" in report
    assert "<h3>Tax year 2025</h3>" in report
    assert "<td class='n'>7,000.00</td>" in report
    document = json.loads(json.dumps(as_json(found)))
    jsonschema.validate(document, schema_for("diff"))
    lines = {(r["tax_year"], r["label"]): r for r in document["return"]}
    assert lines[(2025, "Allowable credit")]["difference"] == 7_000.0
    assert lines[(2025, "Allowable credit")]["line"] == allowable.line
    # --return YEAR: that year only; a year neither covers is said so, not silently empty
    assert cli.main(["diff", str(example), str(changed), "--return", "2030", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, schema_for("diff"))
    assert document["return"] == []
    assert document["return_notes"] == ["tax year 2030: neither workbook holds a period of it"]
