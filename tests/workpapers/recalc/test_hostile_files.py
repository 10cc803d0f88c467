"""Hostile workbooks and batches (issue 11 items 3 and 4, issue 22 items 4, 5 and 8): one
regression test per defect, named after it. Each hostile file is refused or reported
within its budget; the generated corpus is tests/hostile_workbooks.py."""

from __future__ import annotations

import contextlib
import errno
import io
import tempfile
import time
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
import xlsxwriter
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl.utils import get_column_letter

import hostile_workbooks as hostile
from nj_incentives.runtimes import xlwings_classic as excel
from nj_incentives.scenarios import runner
from nj_incentives.scenarios.columns import ScenarioError
from nj_incentives.scenarios.io import read_table
from nj_incentives.scenarios.runner import run_scenarios
from nj_incentives.workpapers.recalc import recalculate, vet_workbook
from nj_incentives.workpapers.recalc.safety import (
    BudgetExceeded,
    Limits,
    UnsafeWorkbookError,
    budgets,
    formula_problem,
)


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


@pytest.mark.recalc
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


@pytest.mark.recalc
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


@pytest.mark.recalc
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


@pytest.mark.recalc
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


# =========================================================================== issue 22


def _peak_bytes(work: Callable[[], object]) -> int:
    """The peak of Python's allocations while ``work`` runs (tracemalloc: a count of
    bytes, not a timing)."""
    tracemalloc.start()
    try:
        with contextlib.suppress(UnsafeWorkbookError):
            work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("kind", [*hostile.FAR_CELLS, "merged cells"])
def test_far_cells_the_extent_check_could_not_see_are_refused(tmp_path: Path, kind: str) -> None:
    # issue 22 item 5: a cell placed by its order (no `r`), XFD01048576 and an array
    # formula's ref="A201:XFD1048576" each reached 4 GB in 161-327 s before a budget
    # stopped them; openpyxl reads each as a cell at or over XFD1048576
    build = hostile.FAR_CELLS.get(kind, hostile.far_merged_cells)
    path = build(tmp_path / "far.xlsx")
    message = refused(path, seconds=30)  # about 0.01-0.3 s; generous for a loaded machine
    assert "sheet 'Calculations' has " in message
    assert "XFD" in message
    assert "--max-rows" in message
    # the work is bounded by the file, not by the sheet it describes: under 100 MB
    assert _peak_bytes(lambda: vet_workbook(path)) < 100 * 1024 * 1024


def test_the_far_cell_message_says_where_each_form_reaches(tmp_path: Path) -> None:
    implied = refused(hostile.implied_far_cell(tmp_path / "a.xlsx"))
    assert "has a cell at XFD1048576 (no address: placed by its order in its row)" in implied
    zero = refused(hostile.leading_zero_far_cell(tmp_path / "b.xlsx"))
    assert "has a cell at XFD01048576" in zero
    array = refused(hostile.array_far_range(tmp_path / "c.xlsx"))
    assert "has an array formula over A201:XFD1048576" in array


def test_the_cells_an_array_formula_covers_are_counted(tmp_path: Path) -> None:
    # an array over A1:ALL250 is 1,000 x 250 = 250,000 cells: inside the extents, over
    # the 200,000 cells the engine may create
    path = hostile.plain(tmp_path / "plain.xlsx")
    hostile.with_sheet_data(
        path, b'<row r="1"><c r="A1"><f t="array" ref="A1:ALL250">1</f><v>1</v></c></row>'
    )
    assert "more than the 200,000 cells allowed (--max-cells)" in refused(path)


@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.integers(1, 40)),  # the row's r, or none
            st.lists(st.one_of(st.none(), st.integers(1, 30)), max_size=6),  # cells' columns
        ),
        max_size=8,
    )
)
@settings(max_examples=40, deadline=None)
def test_the_vetting_reads_cell_positions_as_the_engine_does(
    rows: list[tuple[int | None, list[int | None]]],
) -> None:
    # rows and cells with and without `r`, in any order: the extent the vetting counts
    # is the one openpyxl (the engine's reader) builds
    import openpyxl

    xml, row_counter = [], 0
    for row_r, columns in rows:
        row_counter = row_r if row_r is not None else row_counter + 1
        cells = b"".join(
            b"<c><v>1</v></c>"
            if column is None
            else b'<c r="%s%d"><v>1</v></c>' % (get_column_letter(column).encode(), row_counter)
            for column in columns
        )
        start = b"<row>" if row_r is None else b'<row r="%d">' % row_r
        xml.append(start + cells + b"</row>")
    with tempfile.TemporaryDirectory() as tmp:
        path = hostile.with_sheet_data(hostile.plain(Path(tmp) / "p.xlsx"), b"".join(xml))
        stats = vet_workbook(path).sheets[hostile.SHEET]
        sheet = openpyxl.load_workbook(path).active
        cells = list(sheet._cells)  # type: ignore[union-attr]
    assert stats.max_row == max((row for row, _ in cells), default=0)
    assert stats.max_column == max((column for _, column in cells), default=0)


@pytest.mark.parametrize(
    ("names", "formula", "rule"),
    [
        ({"Whole": "=Calculations!$A:$XFD"}, "=SUM(Whole)", "whole-row or whole-column"),
        ({"Rows": "=Calculations!$1:$1048576"}, "=A1*2", "whole-row or whole-column"),
        ({"Off": "=OFFSET(Calculations!$A$1,0,0)"}, "=Off", "OFFSET computes its reference"),
        ({"Web": '=WEBSERVICE("http://127.0.0.1:9/")'}, "=Web", "WEBSERVICE (a call to"),
        ({"Ind": "=INDIRECT(Calculations!$A$1)"}, "=Ind", "INDIRECT computes its reference"),
    ],
)
def test_defined_names_are_vetted_with_the_rules_of_cells(
    tmp_path: Path, names: dict[str, str], formula: str, rule: str
) -> None:
    # issue 22 item 4: =SUM(Whole) with Whole = Calculations!$A:$XFD computed blank with
    # exit 0; Rows = $1:$1048576 raised an internal AttributeError; OFFSET and
    # WEBSERVICE through a name passed the vetting and were kept in the results
    (name,) = names
    for local in (False, True):
        path = hostile.named(tmp_path / f"names-{local}.xlsx", names, formula, local=local)
        message = refused(path)
        assert f"the defined name {name} (" in message
        assert rule in message


def test_a_dde_through_a_name_or_with_a_quoted_application_is_refused(tmp_path: Path) -> None:
    # issue 22 item 4: both passed the vetting; the engine failed with a raw FormulaError
    named = hostile.with_raw_defined_name(tmp_path / "a.xlsx", "Dde", "cmd|' /C calc'!A0")
    assert "the defined name Dde (=cmd|' /C calc'!A0): a DDE formula" in refused(named)
    quoted = hostile.CORPUS["cell = quoted DDE"](tmp_path / "b.xlsx")
    assert "Calculations!A1: a DDE formula (it would start another program)" in refused(quoted)


def test_print_titles_and_areas_of_whole_rows_and_columns_are_taken(tmp_path: Path) -> None:
    # Excel writes a sheet's print titles as whole rows and columns ($1:$3, $A:$B): they
    # are names of the sheet, which the engine never computes
    def fill(book: object, sheet: object) -> None:
        sheet.write("A1", 1)  # type: ignore[attr-defined]
        sheet.repeat_rows(0, 2)  # type: ignore[attr-defined]
        sheet.repeat_columns(0, 1)  # type: ignore[attr-defined]

    path = hostile.plain(tmp_path / "print.xlsx", fill=fill)
    assert (
        "Calculations!$A:$B,Calculations!$1:$3" in hostile.parts(path)["xl/workbook.xml"].decode()
    )
    vet_workbook(path)
    # the same reference in a name of the user's is refused
    assert "the defined name Titles" in refused(
        hostile.named(tmp_path / "user.xlsx", {"Titles": "=Calculations!$1:$3"})
    )


@pytest.mark.parametrize(
    ("formula", "problem"),
    [
        ("='cmd'|'/c calc'!A0", "DDE"),
        ("=Table1[a'#]&cmd|'x'!A0", "DDE"),  # a quote escaped in a structured reference
        ("=@OFFSET(A1,1,1)", "OFFSET computes"),
        ("=A1:OFFSET(A1,1,1)", "OFFSET computes"),
        ("=[1]!WEBSERVICE(1)", "WEBSERVICE"),
        ("=_xlfn._xlws.CALL(1)", "CALL"),
        ("=SUM( A : A )", "whole-row or whole-column reference A:A"),
        ("=A1:B", "whole-row or whole-column"),
        ("=SUM(Sheet1!$1:$1048576)", "whole-row or whole-column"),
        ("=OFFSET(A1#,1,1)", "OFFSET computes"),  # the tokenizer cannot read A1#
        ("=_xlfn._xlws.SORT(A1:A3)", ""),
        ("=A1#", ""),
        ("=Sheet1:Sheet3!A1", ""),
        ('=INDIRECT( "B1" )', ""),
        ('="a|b"&A1', ""),
    ],
)
def test_formula_rules_read_the_formula_with_the_tokenizer(formula: str, problem: str) -> None:
    found = formula_problem(formula)
    assert (problem in found) if problem else found == ""


def test_a_library_out_of_memory_as_enomem_is_the_memory_budget_not_a_raw_oserror() -> None:
    # issue 22 item 5: the ENOMEM case was reported as a raw OSError
    limits = Limits(max_seconds=None, max_memory_bytes=64 * 1024 * 1024)
    memory = r"memory allowed \(--max-memory-mb\)"
    with pytest.raises(BudgetExceeded, match=memory), budgets(limits, "the test"):
        raise OSError(errno.ENOMEM, "Cannot allocate memory")
    with pytest.raises(FileNotFoundError), budgets(limits, "the test"):
        raise FileNotFoundError(errno.ENOENT, "no such file")


@pytest.mark.parametrize("kind", list(hostile.CORPUS))
def test_every_hostile_workbook_gets_one_line_from_calc_and_doctor(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 22 item 8: doctor gave 4 tracebacks of 119 hostile files (a shared-string
    # index out of range, a non-numeric index, an encrypted flag, compression method 99),
    # took 80.8 s and 1,994 MB on a 930 KB file and missed a DOCTYPE in UTF-16; doctor
    # now vets a workbook as calc does, with the same message
    from nj_incentives import cli

    path = hostile.CORPUS[kind](tmp_path / "hostile.xlsx")
    outcomes = {}
    for command in ("calc", "doctor"):
        extra = ["-o", str(tmp_path / "out.xlsx")] if command == "calc" else []
        status = cli.main([command, str(path), *extra])
        err = capsys.readouterr().err
        assert "Traceback" not in err
        lines = [line for line in err.splitlines() if line.strip()]
        (refusal,) = [line for line in lines if "refused: hostile.xlsx: " in line]
        outcomes[command] = (status, refusal.partition("refused: ")[2])
    assert outcomes["calc"] == outcomes["doctor"]
    assert outcomes["doctor"][0] == 2
    assert not (tmp_path / "out.xlsx").exists()


def test_doctor_reads_a_vetted_workbook_as_a_stream(tmp_path: Path) -> None:
    # a workbook that passes: doctor finds its formulas and its xlwings.conf sheet from
    # the vetted bytes (shared strings and all)
    from nj_incentives.cli import doctor

    path = hostile.conf_workbook(tmp_path / "conf.xlsm")
    checks = {check.what: check for check in doctor.check_workbook(path, "classic")}
    assert checks["xlwings.conf sheet"].status == "ok"
    assert checks["formula spelling"].found.startswith("1 calls")


def test_a_scenario_xlsx_with_a_name_over_whole_columns_is_still_read(tmp_path: Path) -> None:
    # only its saved values are read: a name over whole columns is never computed there
    # (a recalculated workbook with the same name is refused above)
    book = xlsxwriter.Workbook(str(tmp_path / "grid.xlsx"))
    sheet = book.add_worksheet("Data")
    sheet.write_row(0, 0, ["id", "accrual_year", "conversion_amount"])
    sheet.write_row(1, 0, ["A", 2012, 1000])
    book.define_name("Everything", "=Data!$A:$C")
    book.close()
    assert len(read_table(tmp_path / "grid.xlsx")) == 1
    assert "the defined name Everything" in refused(tmp_path / "grid.xlsx")


def test_an_unreadable_address_is_refused_in_a_sheet_and_passed_over_in_custom_xml(
    tmp_path: Path,
) -> None:
    # the engine reads the spreadsheet namespace only: a custom XML part's own <c r="x">
    # is no cell; in a sheet an address openpyxl cannot read would fail the engine
    path = hostile.plain(tmp_path / "plain.xlsx")
    contents = hostile.parts(path)
    contents["customXml/item1.xml"] = (
        b'<data xmlns="urn:x"><row r="x"><c r="not a cell"/></row></data>'
    )
    vet_workbook(hostile.write(tmp_path / "custom.xlsx", contents))
    bad = hostile.with_sheet_data(path, b'<row r="1"><c r="1A"><v>1</v></c></row>')
    assert "the cell reference '1A' is not valid" in refused(bad)


def test_what_the_tokenizer_reads_is_bounded(tmp_path: Path) -> None:
    # formulas are tokenized (Python, ~2 million characters a second): one formula longer
    # than Excel's 8,192 characters is refused, and so are formulas and names together
    # over Limits.max_formula_characters (10 million: about 5 s at worst)
    long = "+".join(f"SUM(A{row}:B{row})" for row in range(1, 700))  # 10,268 characters
    path = hostile.with_sheet_data(
        hostile.plain(tmp_path / "long.xlsx"),
        b'<row r="1"><c r="A1"><f>' + long.encode() + b"</f></c></row>",
    )
    assert "a formula of 10,268 characters, more than the 8,192 Excel allows" in refused(path)
    # 30 formulas of 2,000 characters: 60,000 characters, over a limit of 50,000
    rows = b"".join(
        b'<row r="%d"><c r="A%d"><f>SUM(B1:B2)%s</f></c></row>' % (r, r, b"+1" * 995)
        for r in range(1, 31)
    )
    many = hostile.with_sheet_data(hostile.plain(tmp_path / "many.xlsx"), rows)
    vet_workbook(many)
    message = refused(many, Limits(max_formula_characters=50_000))
    assert "longer than the 50,000 characters allowed" in message
    assert "Calculations!A26:" in message  # 25 x 2,000 = 50,000; the 26th is over
