"""``nj-incentives calc`` and the calculation memo (issue 5).

One fresh process runs the README's main-job command (the bundled examples, with a
memo); the other cases run in this process on small workbooks.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc.run)
from nj_incentives import LAW_CURRENT_TO, __version__, cli
from nj_incentives.cli import calc
from nj_incentives.functions import CATALOG
from nj_incentives.programs.beip.templates import conversion as beip_conversion
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.workpapers import memo
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY, EXAMPLES, INTERPRETATIONS
from nj_incentives.workpapers.templates.builder import build_template

EXAMPLES_DIRECTORY = DEFAULT_DIRECTORY / "examples"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- the main job


@pytest.fixture(scope="module")
def main_job(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``nj-incentives calc --memo out/memo.md`` in a fresh process, in an empty folder."""
    folder = tmp_path_factory.mktemp("main-job")
    before = {name: sha256(EXAMPLES_DIRECTORY / name) for name in calc.BUNDLED_EXAMPLES}
    env = {k: v for k, v in os.environ.items() if not k.startswith("XLWINGS_")}
    done = subprocess.run(
        [sys.executable, "-m", "nj_incentives.cli", "calc", "--memo", "out/memo.md"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return {"done": done, "folder": folder, "before": before}


def test_the_main_job_recalculates_the_bundled_examples(main_job: dict[str, Any]) -> None:
    done = main_job["done"]
    assert done.returncode == 0, done.stderr
    assert f"recalculating the {len(calc.BUNDLED_EXAMPLES)} bundled examples" in done.stdout
    for name in calc.BUNDLED_EXAMPLES:
        line = next(
            line
            for line in done.stdout.splitlines()
            if line.startswith(name) and not line.endswith(":")  # the summary, not a heading
        )
        assert "TRUE" in line.split()
        results = main_job["folder"] / "out" / name.replace(".xlsx", "-results.xlsx")
        assert results.is_file()
    assert "Total grant: $750,000.00" in done.stdout
    assert "Total tax credit issued: $2,890,000.56" in done.stdout
    assert "Credit carried forward after the last period: $800.00" in done.stdout


def test_the_results_workbook_holds_values_not_formulas(main_job: dict[str, Any]) -> None:
    results = main_job["folder"] / "out" / "ertc-form-313-example-results.xlsx"
    book = openpyxl.load_workbook(results)
    assert book["Checks"]["C5"].value is True  # the master check, as a value
    assert not [
        cell.coordinate
        for ws in book.worksheets
        for row in ws.iter_rows()
        for cell in row
        if cell.data_type == "f"
    ]
    # (the row below "Credit carried in from earlier periods", issue 20 item 4)
    assert book["Outputs"]["A21"].value == "Credit carried forward after the last period"
    assert book["Outputs"]["C21"].value == 800.0
    assert book["Outputs"]["C21"].number_format == "#,##0.00;[Red]-#,##0.00"


def test_the_results_workbook_and_the_run_stamp_name_the_engagement(
    tmp_path: Path, capsys: Any
) -> None:
    values = dict(beip_conversion.EXAMPLE)
    values["engagement"] = {
        "client": "Stamp & Sons <LLC>",  # escaped in the XML, kept in the JSON
        "entity_id": "12-3456789",
        "period": "Tax years 2017-2030",
        "preparer": "P. Person",
        "reviewer": "Q. Checker",
        "date": dt.date(2026, 11, 30),
    }
    source = build_template(beip_conversion, tmp_path / "engaged.xlsx", values)
    assert run_calc(str(source), "-o", str(tmp_path / "out")) == cli.EXIT_OK
    capsys.readouterr()
    results = tmp_path / "out" / "engaged-results.xlsx"
    book = openpyxl.load_workbook(results)
    properties = {p.name: p.value for p in book.custom_doc_props.props}
    assert properties["Client"] == "Stamp & Sons <LLC>"
    assert properties["Entity id"] == "12-3456789"
    assert properties["Tax period(s)"] == "Tax years 2017-2030"
    assert properties["Preparer"] == "P. Person"
    assert properties["Reviewer"] == "Q. Checker"
    assert properties["Engagement date"] == "2026-11-30"
    assert properties["Master check"] == "TRUE"
    assert properties["Source SHA-256"] == sha256(source)
    assert properties["nj_incentives_template"] == "beip-credit-conversion"  # kept
    # every printed page repeats row 3, the engagement, as a value now
    for sheet in ("Inputs", "Outputs", "Checks"):
        line = book[sheet]["A3"].value
        assert "Stamp & Sons <LLC>" in line, (sheet, line)
        assert "Q. Checker" in line, (sheet, line)
    stamp = json.loads((tmp_path / "out" / "engaged-results.json").read_text())
    assert stamp["engagement"] == {
        "Client": "Stamp & Sons <LLC>",
        "Entity id": "12-3456789",
        "Tax period(s)": "Tax years 2017-2030",
        "Preparer": "P. Person",
        "Reviewer": "Q. Checker",
        "Date": "2026-11-30",
    }
    assert stamp["workbook_sha256"] == sha256(source)
    assert stamp["version"] == __version__
    assert stamp["law_current_to"] == LAW_CURRENT_TO
    assert stamp["master_check"] is True
    assert stamp["results"] == str(results)


@pytest.mark.recalc
def test_custom_properties_are_added_to_a_workbook_without_them(tmp_path: Path) -> None:
    from nj_incentives.workpapers.recalc import recalculate, write_values

    plain = openpyxl.Workbook()
    plain.active["A1"] = 2
    plain.active["A2"] = "=A1*3"
    plain.save(tmp_path / "plain.xlsx")
    with zipfile.ZipFile(tmp_path / "plain.xlsx") as archive:
        assert "docProps/custom.xml" not in archive.namelist()
    recalc = recalculate(tmp_path / "plain.xlsx")
    out = write_values(recalc, tmp_path / "r.xlsx", {"Client": "A & B", "Preparer": "P"})
    book = openpyxl.load_workbook(out)
    assert {p.name: p.value for p in book.custom_doc_props.props} == {
        "Client": "A & B",
        "Preparer": "P",
    }
    assert book.active["A2"].value == 6


def test_the_bundled_examples_are_never_modified(main_job: dict[str, Any]) -> None:
    after = {name: sha256(EXAMPLES_DIRECTORY / name) for name in calc.BUNDLED_EXAMPLES}
    assert after == main_job["before"]


def test_the_memo_has_hashes_version_law_steps_citations_and_interpretations(
    main_job: dict[str, Any],
) -> None:
    text = (main_job["folder"] / "out" / "memo.md").read_text(encoding="utf-8")
    for name in calc.BUNDLED_EXAMPLES:
        assert sha256(EXAMPLES_DIRECTORY / name) in text
    assert f"nj-incentives {__version__}" in text
    assert LAW_CURRENT_TO in text
    # inputs, as the workbook shows them
    assert "| Approved amount ($) | Approval date (date) |" in text
    assert "| Accrued in 2011 | 480,000.55 | 2017-09-15 |" in text
    # a result with its steps: 2011's late approval moves its five installments to 2018
    assert "NJ\\_BEIP\\_CONVERSION\\_SCHEDULE" not in text  # intraword _ is left alone
    assert "#### NJ_BEIP_CONVERSION_SCHEDULE: 18 result(s)" in text
    assert "| C57 (Accrued in 2011) |" in text
    assert "in State fiscal year 2018 (2017-07-01 to 2018-06-30)" in text
    # steps 1-3: the paragraph, approved on or after 2016-07-01, the State fiscal year
    assert "| 4 | Tax year 2018 | 24,000.02 | 480,000.55 x 5% = 24,000.0275" in text
    for citation in (
        "N.J.S.A. 34:1B-129e.(1)",
        "N.J.S.A. 34:1B-129f.",
        "N.J.S.A. 34:1B-129g.(3)",
        "N.J.S.A. 52:27BBB-55c.(2)",
        "N.J.S.A. 54:10A-5(e)",
    ):
        assert citation in text
    # the interpretations applied, named with the functions that apply them (quoted in
    # full with --steps all: test_memo_pdf.py)
    assert "**BEIP grant: N.J.S.A. 34:1B-129**" in text
    assert "- Late approval: paragraph (1) only (e.(1)) (applied by NJ" in text
    assert "(applied by NJ_ERTC_SCHEDULE)" in text


# --------------------------------------------------------------------------- failures


def run_calc(*args: str) -> int:
    return cli.main(["calc", *args])


def test_a_bad_workbook_exits_1_with_the_message(tmp_path: Path, capsys: Any) -> None:
    values = dict(beip_conversion.EXAMPLE)
    values["amounts"] = {**values["amounts"], 2014: "400k"}
    bad = build_template(beip_conversion, tmp_path / "bad.xlsx", values)
    before = sha256(bad)
    status = run_calc(str(bad), "-o", str(tmp_path / "out"))
    captured = capsys.readouterr()
    assert status == 1
    assert "bad.xlsx: MASTER CHECK FALSE" in captured.err
    assert "failed: Accrued in 2014: conversion schedule" in captured.err
    assert "rejected input: NJ_BEIP_CONVERSION_SCHEDULE: #VALUE! amount = '400k'" in captured.err
    assert (tmp_path / "out" / "bad-results.xlsx").is_file()  # written, for inspection
    assert sha256(bad) == before


def test_an_unsafe_or_missing_file_exits_2(tmp_path: Path, capsys: Any) -> None:
    fake = tmp_path / "fake.xlsx"
    fake.write_bytes(b"MZ not a workbook")
    assert run_calc(str(fake), str(tmp_path / "missing.xlsx"), "-o", str(tmp_path)) == 2
    err = capsys.readouterr().err
    assert "fake.xlsx: refused:" in err
    assert "missing.xlsx: no such file" in err


def test_the_input_is_never_overwritten(tmp_path: Path, capsys: Any) -> None:
    workbook = tmp_path / "filled.xlsx"
    shutil.copyfile(EXAMPLES_DIRECTORY / "beip-grant-schedule-example.xlsx", workbook)
    before, stamp = sha256(workbook), workbook.stat().st_mtime_ns
    assert run_calc(str(workbook), "-o", str(workbook)) == 2
    assert run_calc(str(workbook), "--memo", str(tmp_path / "filled.XLSX")) == 2
    assert "refusing to overwrite the input workbook" in capsys.readouterr().err
    assert run_calc(str(workbook), "-o", str(tmp_path / "r.xlsx")) == 0
    assert (sha256(workbook), workbook.stat().st_mtime_ns) == (before, stamp)
    assert (tmp_path / "r.xlsx").is_file()


def test_bad_arguments_exit_2(tmp_path: Path, capsys: Any) -> None:
    one = str(EXAMPLES_DIRECTORY / "beip-grant-schedule-example.xlsx")
    assert run_calc(one, one, "-o", str(tmp_path / "both.xlsx")) == 2
    assert run_calc(one, "--memo", str(tmp_path / "memo.doc")) == 2
    err = capsys.readouterr().err
    assert "give a folder instead" in err
    assert "--memo" in err
    assert "expected a file ending .pdf, .html or .md" in err


def test_output_paths() -> None:
    a, b = Path("x/a.xlsx"), Path("y/a.xlsx")
    assert calc.output_paths([a], None) == [Path("out/a-results.xlsx")]
    assert calc.output_paths([a, b], Path("r")) == [
        Path("r/a-results.xlsx"),
        Path("r/a-2-results.xlsx"),
    ]
    assert calc.output_paths([a], Path("r/one.xlsx")) == [Path("r/one.xlsx")]
    with pytest.raises(ValueError, match=r"\.xlsx workbook"):
        calc.output_paths([a], Path("r/one.xls"))


# --------------------------------------------------------------------------- the memo


def test_the_memo_escapes_what_comes_from_the_workbook(tmp_path: Path, capsys: Any) -> None:
    values = dict(ertc_credit.EXAMPLE)
    evil = '<script>alert("x")</script> & | *bold* [link](http://x)'
    values["employees"] = [{**values["employees"][0], "name": evil}, *values["employees"][1:]]
    workbook = build_template(ertc_credit, tmp_path / "evil.xlsx", values)
    assert run_calc(str(workbook), "-o", str(tmp_path), "--memo", str(tmp_path / "m.html")) == 0
    assert run_calc(str(workbook), "-o", str(tmp_path), "--memo", str(tmp_path / "m.md")) == 0
    capsys.readouterr()
    page = (tmp_path / "m.html").read_text(encoding="utf-8")
    assert "<script>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; | *bold*" in page
    text = (tmp_path / "m.md").read_text(encoding="utf-8")
    assert "<script>" not in text
    assert (
        '&lt;script&gt;alert("x")&lt;/script&gt; &amp; \\| \\*bold\\* \\[link\\](http://x)' in text
    )


def test_every_mapped_interpretation_exists_and_every_law_function_is_mapped() -> None:
    sections = memo.interpretation_sections(INTERPRETATIONS.read_text(encoding="utf-8"))
    for function, headings in memo.INTERPRETATIONS.items():
        assert function in CATALOG
        for heading in headings:
            assert heading in sections, (function, heading)
    law_functions = {name for name, entry in CATALOG.items() if entry.citation}
    assert law_functions <= set(memo.INTERPRETATIONS) | {"NJ_ERTC_CREDIT_YEARS"}


def test_each_shipped_file_has_one_home() -> None:
    """The examples and the interpretations are kept once, where the repository keeps
    them (workbooks/examples/, docs/); a checkout reads them there, and only the wheel's
    build copies them into the package (tests/test_release.py checks the wheel)."""
    assert tuple(EXAMPLES) == calc.BUNDLED_EXAMPLES
    assert calc.bundled_examples() == [EXAMPLES_DIRECTORY / name for name in EXAMPLES]
    assert memo.interpretations_text() == INTERPRETATIONS.read_text(encoding="utf-8")
    assert not (Path(calc.__file__).resolve().parent / "data").exists()


def test_calls_and_their_arguments_are_read_from_formulas() -> None:
    known = ["NJ_X", "NJ_Y"]
    text = '=IF(A1="a,b(",XLWINGS.NJ_X(1,"x,""y",\'My sheet\'!A1:B2),NJ_Y(,TRUE))'
    calls = memo.formula_calls(text, known)
    assert calls == [
        memo.Call("NJ_X", ("1", '"x,""y"', "'My sheet'!A1:B2"), True),
        memo.Call("NJ_Y", ("", "TRUE"), True),
    ]
    assert memo.formula_calls("=NJ_X(1)*2", known) == [memo.Call("NJ_X", ("1",), False)]
    assert memo.formula_calls('=NOT_NJ_X(1)&"NJ_X(2)"', known) == []


@pytest.mark.parametrize(
    ("value", "number_format", "shown"),
    [
        (45017, "yyyy-mm-dd", "2023-04-01"),
        (0.05, "0.00%", "5.00%"),
        (1234567.891, "#,##0.00;[Red]-#,##0.00", "1,234,567.89"),
        (2.9047678571, "#,##0.00########", "2.9047678571"),
        (5.0, "#,##0.00########", "5.00"),
        (2010, "General", "2010"),
        (0.1 + 0.2, "General", "0.3"),
        (True, "General", "TRUE"),
        (None, "General", ""),
    ],
)
def test_values_are_shown_as_the_workbook_formats_them(
    value: Any, number_format: str, shown: str
) -> None:
    assert memo.display(value, number_format) == shown


def test_the_memo_date_is_given_or_now() -> None:
    moment = dt.datetime(2025, 3, 1, 12, 0, tzinfo=dt.UTC)
    document = memo.build_memo([], moment)
    assert "2025-03-01T12:00:00+00:00" in memo.render(document, ".md")


# --------------------------------------------------------------------------- refusal checks


def _citations_once(line: str, *citations: str) -> None:
    for citation in citations:
        assert line.count(citation) == 1, (citation, line)


@pytest.mark.recalc
def test_a_refused_roster_cell_is_named_with_its_rule_and_citation_once(
    tmp_path: Path, capsys: Any
) -> None:
    # before: "...; the first cell refused: 'Part II base year'!H10 = 800: must be at most
    # 744, ... (N.J.S.A. 52:27BBB-55e. "full time position") (N.J.S.A. 52:27BBB-55e. "full
    # time position")": the check's label (with its rule) and the refusal (the rule and its
    # citation), then calc added the check's citation again
    book = openpyxl.load_workbook(EXAMPLES_DIRECTORY / "ertc-form-313-example.xlsx")
    book["Part II base year"]["H10"] = 800  # employee 4, base month 3: over 31 x 24 = 744
    book.save(tmp_path / "roster.xlsx")
    status = run_calc(str(tmp_path / "roster.xlsx"), "-o", str(tmp_path / "out"))
    err = capsys.readouterr().err.splitlines()
    assert status == 1
    cite = 'N.J.S.A. 52:27BBB-55e. "full time position"'
    line = (
        "  failed: Part II base year, hours; the first cell refused: 'Part II base year'!H10 = "
        f"800: must be at most 744, the hours in a 31-day month ({cite})"
    )
    assert line in err
    _citations_once(line, cite, "must be at most 744")
    # page 1 of the memo names the failed checks the same way (the workbook recalculated
    # as calc recalculates it: its template's prebuilt form)
    from tooling import recalculate_as_calc

    text = memo.to_markdown(memo.build_memo([recalculate_as_calc(tmp_path / "roster.xlsx")]))
    (warning,) = [row for row in text.splitlines() if "WARNING" in row]
    assert line.removeprefix("  failed: ") in warning
    _citations_once(warning, cite)


def test_a_refused_flag_on_a_continuation_sheet_cites_once(tmp_path: Path, capsys: Any) -> None:
    # the other refusal check: a continuation roster sheet's Yes/No columns (the first
    # sheet's have input checks, whose labels carry no citation)
    employees = [
        {"name": f"E{n}", "base": [0] * 12, "year1": [160] * 12, "year2": [160] * 12}
        for n in range(ertc_credit.MAX_EMPLOYEES + 1)
    ]
    employees[-1]["temporary"] = "perhaps"  # employee 251: the first row of sheet (2)
    path = build_template(
        ertc_credit, tmp_path / "e.xlsx", {**ertc_credit.EXAMPLE, "employees": employees}
    )
    status = run_calc(str(path), "-o", str(tmp_path / "out"))
    err = capsys.readouterr().err.splitlines()
    assert status == 1
    line = (
        "  failed: Part II base year (2), Temporary or seasonal; the first cell refused: "
        "'Part II base year (2)'!D7 = 'perhaps': must be TRUE or FALSE (or Yes/No, 1/0) "
        "(N.J.S.A. 52:27BBB-55e.)"
    )
    assert line in err
    _citations_once(line, "(N.J.S.A. 52:27BBB-55e.)")
