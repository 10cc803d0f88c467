"""Hostile workbooks and batches (issue 11 items 3 and 4): one regression test per
defect, named after it. Each hostile file is refused or reported within its budget."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import pandas as pd
import pytest
import xlsxwriter

from nj_incentives import excel
from nj_incentives.recalc import recalculate, vet_workbook
from nj_incentives.recalc.safety import (
    BudgetExceeded,
    Limits,
    UnsafeWorkbookError,
    budgets,
    formula_problem,
)
from nj_incentives.scenarios import runner
from nj_incentives.scenarios.columns import ScenarioError
from nj_incentives.scenarios.io import read_table
from nj_incentives.scenarios.runner import run_scenarios


def workbook(path: Path, fill: object) -> Path:
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Data")
    fill(sheet)  # type: ignore[operator]
    book.close()
    return path


def refused(path: Path, limits: Limits | None = None, seconds: float = 30) -> str:
    """The vetting's message for ``path``; no runaway: CPU seconds (another process's load
    does not count), a generous bound (no test asserts wall time; the defects took
    minutes and gigabytes, a refusal takes a fraction of a second)."""
    started = time.process_time()
    with pytest.raises(UnsafeWorkbookError) as caught:
        vet_workbook(path, limits or Limits())
    assert time.process_time() - started < seconds
    return str(caught.value)


# =========================================================================== item 4


def test_one_cell_at_xfd1048576_does_not_grow_past_8_gib(tmp_path: Path) -> None:
    # issue 11: a 20 KB workbook with one cell at XFD1048576 grew past 8 GiB in 217 s
    path = workbook(tmp_path / "far.xlsx", lambda s: (s.write("A1", 1), s.write("XFD1048576", 1)))
    message = refused(path)
    assert "'Data'" in message
    assert "XFD1048576" in message
    assert "--max-rows" in message


def test_a_million_ordinary_cells_do_not_run_past_300_s(tmp_path: Path) -> None:
    # issue 11: 1,000,000 ordinary cells (3.5 MB) ran past 300 s; here 250,000 suffice
    def fill(sheet: object) -> None:
        for row in range(2_500):
            sheet.write_row(row, 0, range(100))  # type: ignore[attr-defined]

    # about 1 s on an idle machine; the bound is generous for a loaded 2-core CI machine
    message = refused(workbook(tmp_path / "many.xlsx", fill), seconds=120)
    assert "more than the 200,000 cells allowed (--max-cells)" in message


def test_the_formula_count_is_limited(tmp_path: Path) -> None:
    path = workbook(tmp_path / "f.xlsx", lambda s: [s.write_formula(r, 0, "=1") for r in range(30)])
    assert "more than the 20 formulas allowed (--max-formulas)" in refused(
        path, Limits(max_formulas=20)
    )


def test_a_declared_dimension_beyond_the_limits_is_refused(tmp_path: Path) -> None:
    path = workbook(tmp_path / "ok.xlsx", lambda s: s.write("A1", 1))
    with zipfile.ZipFile(path) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    sheet = parts["xl/worksheets/sheet1.xml"].replace(
        b'<dimension ref="A1"/>', b'<dimension ref="A1:XFD1048576"/>'
    )
    parts["xl/worksheets/sheet1.xml"] = sheet
    target = tmp_path / "declared.xlsx"
    with zipfile.ZipFile(target, "w") as out:
        for name, data in parts.items():
            out.writestr(name, data)
    assert "declares A1:XFD1048576" in refused(target)


def test_the_doctype_check_looks_at_parts_of_every_name(tmp_path: Path) -> None:
    # issue 11: a worksheet part named .dat with an entity payload passed the vetting
    path = workbook(tmp_path / "ok.xlsx", lambda s: s.write("A1", 1))
    target = tmp_path / "dat.xlsx"
    payload = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>'
    with zipfile.ZipFile(path) as archive, zipfile.ZipFile(target, "w") as out:
        for info in archive.infolist():
            out.writestr(info, archive.read(info))
        out.writestr("xl/worksheets/sheet9.dat", payload)
        out.writestr("xl/media/blob.bin", b"\x00\x01<!ENTITY b 'x'>")
    message = refused(target)
    assert "xl/worksheets/sheet9.dat" in message
    assert "DOCTYPE" in message


def test_a_dde_formula_is_refused_clearly_not_with_a_raw_library_message(tmp_path: Path) -> None:
    # issue 11: a DDE formula failed the workbook with a raw library message
    path = workbook(tmp_path / "dde.xlsx", lambda s: s.write_formula("A1", "=cmd|' /C calc'!A0"))
    message = refused(path)
    assert "Data!A1: a DDE formula (it would start another program) is refused" in message


@pytest.mark.parametrize(
    "formula",
    ['=CALL("kernel32","WinExec","JCJ","calc",0)', '=WEBSERVICE("http://x")', '=RTD("a",,"b")'],
)
def test_calls_to_other_programs_or_the_network_are_refused(formula: str) -> None:
    assert "is refused" in formula_problem(formula)


@pytest.mark.parametrize(
    "formula", ['=A1&"cmd|x"', "=SUM(A1:B2)", "=NJ_BEIP_GRANT(A1,B1)", "='My | sheet'!A1"]
)
def test_ordinary_formulas_are_not_refused(formula: str) -> None:
    assert formula_problem(formula) == ""


def test_rows_of_1_to_1048576_is_not_computed_as_1(tmp_path: Path) -> None:
    # issue 11: the engine computed ROWS(1:1048576) as 1
    path = workbook(tmp_path / "rows.xlsx", lambda s: s.write_formula("A1", "=ROWS(1:1048576)"))
    message = refused(path)
    assert "whole-row or whole-column reference 1:1048576" in message
    for formula in ("=SUM(A:A)", "=SUM($B:$D)", "=Data!3:5"):
        assert "whole-row or whole-column" in formula_problem(formula)


def test_cells_in_a_circular_reference_are_reported_by_address(tmp_path: Path) -> None:
    # issue 11: cells in a circular reference came out blank with nothing reported
    def fill(sheet: object) -> None:
        sheet.write_formula("A1", "=B1+1")  # type: ignore[attr-defined]
        sheet.write_formula("B1", "=A1+1")  # type: ignore[attr-defined]
        sheet.write_formula("C1", "=C1")  # type: ignore[attr-defined]
        sheet.write("D1", 5)  # type: ignore[attr-defined]
        sheet.write_formula("E1", "=D1*2")  # type: ignore[attr-defined]

    recalc = recalculate(workbook(tmp_path / "circle.xlsx", fill))
    assert recalc.circular_references == ("Data!A1", "Data!B1", "Data!C1")
    assert any("circular reference: Data!A1, Data!B1, Data!C1" in note for note in recalc.notes)
    assert recalc.value("Data!E1") == 10


def test_a_circular_reference_through_indirect_is_reported_not_left_blank(tmp_path: Path) -> None:
    # cells in a cycle through INDIRECT("B1") came out blank with nothing reported: the
    # engine follows INDIRECT of one quoted reference, and so does the cycle search now
    def fill(sheet: object) -> None:
        sheet.write_formula("A1", '=INDIRECT("B1")+1')  # type: ignore[attr-defined]
        sheet.write_formula("B1", "=A1+1")  # type: ignore[attr-defined]
        sheet.write_formula("C1", '=INDIRECT("Data!C1")')  # type: ignore[attr-defined]
        sheet.write("D1", 5)  # type: ignore[attr-defined]
        sheet.write_formula("E1", '=INDIRECT("D1")*2')  # type: ignore[attr-defined]

    recalc = recalculate(workbook(tmp_path / "indirect.xlsx", fill))
    assert recalc.circular_references == ("Data!A1", "Data!B1", "Data!C1")
    assert any("circular reference: Data!A1, Data!B1, Data!C1" in n for n in recalc.notes)
    assert recalc.value("Data!E1") == 10  # 5 x 2: INDIRECT of a quoted reference computes


@pytest.mark.parametrize(
    ("formula", "function"),
    [
        ("=OFFSET(C1,0,-1)+1", "OFFSET"),  # B1 = A1: a cycle no reference text shows
        ('=INDIRECT("B"&C1)', "INDIRECT"),
        ("=INDIRECT(C1)", "INDIRECT"),
    ],
)
def test_a_circular_reference_through_offset_or_a_computed_indirect_is_refused_naming_the_cell(
    tmp_path: Path, formula: str, function: str
) -> None:
    # such a reference is computed while calculating: the headless engine can neither
    # evaluate it (it gave #NAME?) nor follow it for cycles, so the file is refused
    def fill(sheet: object) -> None:
        sheet.write_formula("A1", formula)  # type: ignore[attr-defined]
        sheet.write_formula("B1", "=A1")  # type: ignore[attr-defined]
        sheet.write("C1", 1)  # type: ignore[attr-defined]

    message = refused(workbook(tmp_path / "dynamic.xlsx", fill))
    assert f"Data!A1: {function} computes its reference while calculating" in message
    assert "checked for circular references" in message
    assert "INDEX(range, row, column)" in message


@pytest.mark.parametrize(
    "formula",
    [
        "=OFFSET(A1,1,0)",
        "=_xlfn.OFFSET(A1,1,0)",
        "=SUM(offset(A1,0,0,2,1))",
        '=INDIRECT("B"&1)',
        '=INDIRECT("B1",TRUE)',
        "=INDIRECT(Data!C1)",
    ],
)
def test_references_computed_while_calculating_are_refused(formula: str) -> None:
    assert "computes its reference while calculating" in formula_problem(formula)
    assert formula_problem(formula, recalculating=False) == ""


@pytest.mark.parametrize(
    "formula",
    ['=INDIRECT("B1")', "=INDIRECT(\"'My sheet'!B1\")", '="OFFSET(A1,1,0)"', "=MYOFFSET(A1)"],
)
def test_indirect_of_one_quoted_reference_and_lookalikes_are_not_refused(formula: str) -> None:
    assert formula_problem(formula) == ""


def test_a_scenario_xlsx_with_offset_formulas_is_still_read(tmp_path: Path) -> None:
    # only its saved values are read: nothing is recalculated, nothing to refuse
    book = xlsxwriter.Workbook(str(tmp_path / "grid.xlsx"))
    sheet = book.add_worksheet()
    sheet.write_row(0, 0, ["id", "accrual_year", "conversion_amount"])
    sheet.write_row(1, 0, ["A", 2012])
    sheet.write_formula(1, 2, '=OFFSET(B2,0,-1)&""', None, "")
    sheet.write_number(2, 2, 100)
    book.close()
    assert len(read_table(tmp_path / "grid.xlsx")) == 2


def test_a_workbook_without_cycles_reports_none(tmp_path: Path) -> None:
    path = workbook(
        tmp_path / "ok.xlsx", lambda s: (s.write("A1", 2), s.write_formula("A2", "=A1*3"))
    )
    assert recalculate(path).circular_references == ()


def test_the_time_budget_stops_a_long_recalculation() -> None:
    started = time.process_time()  # the spin's CPU: it stops (generous; not wall time)

    def spin() -> None:
        with budgets(Limits(max_seconds=0.2, max_memory_bytes=None), "the test"):
            while True:
                pass

    with pytest.raises(BudgetExceeded, match=r"more than the 0 s allowed \(--max-seconds\)"):
        spin()
    assert time.process_time() - started < 30


def test_the_memory_budget_stops_a_recalculation_that_grows() -> None:
    pytest.importorskip("resource")
    limits = Limits(max_seconds=None, max_memory_bytes=64 * 1024 * 1024)

    def grow() -> None:
        with budgets(limits, "the test"):
            _ = bytearray(512 * 1024 * 1024)

    with pytest.raises(BudgetExceeded, match=r"memory allowed \(--max-memory-mb\)"):
        grow()
    _ = bytearray(128 * 1024 * 1024)  # the limit is lifted afterwards


def test_calc_options_override_the_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from nj_incentives import cli

    path = workbook(tmp_path / "f.xlsx", lambda s: [s.write_formula(r, 0, "=1") for r in range(30)])
    status = cli.main(["calc", str(path), "-o", str(tmp_path / "o.xlsx"), "--max-formulas", "10"])
    assert status == 2
    assert "more than the 10 formulas allowed (--max-formulas)" in capsys.readouterr().err


# =========================================================================== item 3


def test_a_scenario_xlsx_with_one_far_cell_does_not_make_calamine_abort(tmp_path: Path) -> None:
    # issue 11: a 6 KB scenario XLSX with one far cell made python-calamine try to
    # allocate 512 GiB and abort with a Rust backtrace (exit 134)
    def fill(sheet: object) -> None:
        sheet.write_row(0, 0, ["id", "accrual_year", "conversion_amount"])  # type: ignore[attr-defined]
        sheet.write_row(1, 0, ["A", 2012, 1000])  # type: ignore[attr-defined]
        sheet.write("XFD1048576", 1)  # type: ignore[attr-defined]

    path = workbook(tmp_path / "far.xlsx", fill)
    with pytest.raises(ScenarioError, match="XFD1048576"):
        read_table(path)


def test_one_money_cell_of_1e27_does_not_abort_the_whole_batch() -> None:
    # issue 11: 1e27, 1e30, 1e308 made `nj-incentives scenarios` print a traceback
    amounts = [1250000.0, 1e27, 1e30, 1e308, 5000.0]
    frame = pd.DataFrame({"accrual_year": [2012] * 5, "conversion_amount": amounts})
    for engine in ("pandas", "dask"):
        if engine == "dask":
            pytest.importorskip("dask")
        result = run_scenarios(frame, engine=engine)  # type: ignore[arg-type]
        assert len(result) == len(frame)  # rows out = rows in
        errors = result["error"].tolist()
        assert errors[0] is None
        assert errors[4] is None
        assert all(errors[k] for k in (1, 2, 3))


def test_one_positions_cell_of_1e27_does_not_abort_the_whole_batch() -> None:
    frame = pd.DataFrame(
        {
            "operations_start": ["2023-01-01"] * 2,
            "year1_new": [10, 1e27],
            "year2_new": [8, 8],
            **{f"period_end_{k}": [f"{2022 + k}-12-31"] * 2 for k in (1, 2, 3)},
            **{f"liability_{k}": [8000] * 2 for k in (1, 2, 3)},
            **{f"other_credits_{k}": [0] * 2 for k in (1, 2, 3)},
            **{f"minimum_tax_{k}": [2000] * 2 for k in (1, 2, 3)},
        }
    )
    errors = run_scenarios(frame)["error"].tolist()
    assert errors[0] is None
    assert "year1_new" in errors[1]


def test_a_defect_in_one_row_is_that_rows_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # any row-level failure, whatever its cause, becomes that row's error
    real = runner._compute_chunk

    def flaky(frame: pd.DataFrame, layout: object, force_scalar: bool = False) -> object:
        if (frame["conversion_amount"] == 666).any():
            raise OverflowError("boom")
        return real(frame, layout, force_scalar)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "_compute_chunk", flaky)
    frame = pd.DataFrame({"accrual_year": [2012] * 6, "conversion_amount": [1, 2, 666, 4, 5, 6]})
    result = run_scenarios(frame)
    assert len(result) == 6
    errors = result["error"].tolist()
    assert [e is None for e in errors] == [True, True, False, True, True, True]
    assert "could not be computed (OverflowError: boom)" in errors[2]
    assert result["conversion_total"].tolist()[3] == 4.0


def test_an_na_cell_in_nj_scenarios_does_not_refuse_the_whole_table() -> None:
    # issue 11: in NJ_SCENARIOS one #N/A cell refused the whole table
    table = [
        ["id", "accrual_year", "conversion_amount"],
        ["A", 2012, 1250000],
        ["B", 2012, "#N/A"],
    ]
    header, *rows = excel.FUNCTIONS["NJ_SCENARIOS"](table)
    assert len(rows) == 2
    error = header.index("error")
    assert rows[0][error] is None
    assert rows[1][error] == (
        "conversion_amount = '#N/A': the cell holds an error value (N.J.S.A. 34:1B-129e.(1))"
    )


def test_fuzz_corpus_payloads_are_json(tmp_path: Path) -> None:
    import json

    import fuzzcorpus

    calls = list(fuzzcorpus.corpus_calls(excel.CATALOG))[:50]
    assert json.loads(json.dumps(calls)) == calls
    assert io.StringIO(json.dumps(calls)).read()


def test_a_cycle_through_defined_names_is_reported(tmp_path: Path) -> None:
    book = xlsxwriter.Workbook(str(tmp_path / "names.xlsx"))
    sheet = book.add_worksheet("Inputs")
    book.define_name("Rate", "=Inputs!$B$1")
    sheet.write_formula("B1", "=Total/100")
    sheet.write_formula("B2", "=Rate*2")
    book.define_name("Total", "=Inputs!$B$2")
    sheet.write_formula("B3", "=Rate+Total")  # depends on the cycle, is not in it
    book.close()
    recalc = recalculate(tmp_path / "names.xlsx")
    assert recalc.circular_references == ("Inputs!B1", "Inputs!B2")
