"""Headless recalculation: custom functions, array results, errors (issue 5)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import formulas
import pytest
import xlsxwriter

from nj_incentives.workpapers.recalc import ExcelError, excel_serial, recalculate
from nj_incentives.workpapers.recalc.engine import function_variants

pytestmark = pytest.mark.recalc


def schedule(amounts: Any, pct: Any) -> list[list[Any]]:
    """A toy table function: header row, then year, grant (amount x pct), cumulative."""
    if not isinstance(pct, (int, float)) or isinstance(pct, bool) or not 0 <= pct <= 1:
        raise ValueError(f"pct = {pct!r}: must be a fraction between 0 and 1")
    rows: list[list[Any]] = [["Year", "Grant", "Cumulative"]]
    total = Decimal(0)
    for year, (amount,) in enumerate(amounts, 1):
        if amount is None:
            break
        grant = Decimal(str(amount)) * Decimal(str(pct))
        total += grant
        rows.append([year, grant, total])
    return rows


def build(path: Path, writer: Callable[[Any, Any], None]) -> Path:
    book = xlsxwriter.Workbook(str(path))
    inputs = book.add_worksheet("Inputs")
    calc = book.add_worksheet("Calc")
    inputs.write_number("A1", 0.5)
    for i, amount in enumerate([1000, 2000, 3000]):
        inputs.write_number(2 + i, 0, amount)
    book.define_name("Pct", "=Inputs!$A$1")
    writer(book, calc)
    book.close()
    return path


def test_legacy_array_formula_fills_its_range_and_pads_with_na(tmp_path: Path) -> None:
    def write(book: Any, calc: Any) -> None:
        # 1 header + 3 rows returned into 1 header + 4 rows: the last row is #N/A, as in Excel
        calc.write_array_formula("A1:C5", "{=NJ_SCHEDULE(Inputs!A3:A5,Pct)}")
        calc.write_formula("E1", "=SUM(B2:B4)")

    result = recalculate(build(tmp_path / "legacy.xlsx", write), {"NJ_SCHEDULE": schedule})
    assert result.range_values("Calc", "A1:C4") == [
        ["Year", "Grant", "Cumulative"],
        [1, 500.0, 500.0],  # 1,000 x 50%
        [2, 1000.0, 1500.0],  # 2,000 x 50%; 500 + 1,000
        [3, 1500.0, 3000.0],
    ]
    assert result.range_values("Calc", "A5:C5") == [[ExcelError("#N/A")] * 3]
    assert result.value("Calc!E1") == 3000.0
    assert result.calls == {"NJ_SCHEDULE": 1}
    assert result.array_ranges == {("Calc", "A1"): "A1:C5"}
    assert result.formulas[("Calc", "A1")] == "{=NJ_SCHEDULE(Inputs!A3:A5,Pct)}"


def test_dynamic_array_formula_spills_and_leaves_the_rest_blank(tmp_path: Path) -> None:
    def write(book: Any, calc: Any) -> None:
        calc.write_dynamic_array_formula("A1:C6", "=NJ_SCHEDULE(Inputs!A3:A6,Pct)")
        calc.write_formula("E1", "=COUNTA(B2:B6)")
        calc.write_formula("E2", "=COUNT(B2:B6)")
        calc.write_formula("E3", "=SUM(C2:C6)")

    result = recalculate(build(tmp_path / "dynamic.xlsx", write), {"NJ_SCHEDULE": schedule})
    assert result.range_values("Calc", "A4:C6") == [
        [3, 1500.0, 3000.0],
        [None, None, None],
        [None, None, None],
    ]
    # blank, not #N/A and not text: the checks the templates use see three numbers
    assert result.value("Calc!E1") == 3
    assert result.value("Calc!E2") == 3
    assert result.value("Calc!E3") == 5000.0  # cumulative: 500 + 1,500 + 3,000
    assert result.formulas[("Calc", "A1")] == "=NJ_SCHEDULE(Inputs!A3:A6,Pct)"
    assert result.error_cells() == []


def test_function_errors_become_messages_that_fail_isnumber(tmp_path: Path) -> None:
    def write(book: Any, calc: Any) -> None:
        calc.write_array_formula("A1:C4", "{=NJ_SCHEDULE(Inputs!A3:A5,50)}")
        calc.write_formula("E1", "=ISNUMBER(B2)")
        calc.write_formula("E2", "=IFERROR(B2*2,-1)")

    result = recalculate(build(tmp_path / "bad.xlsx", write), {"NJ_SCHEDULE": schedule})
    message = "pct = 50: must be a fraction between 0 and 1"
    assert result.value("Calc!B2") == message
    assert result.value("Calc!E1") is False
    assert result.value("Calc!E2") == -1  # text x 2 is #VALUE!, caught
    assert [(e.function, e.message) for e in result.function_errors] == [("NJ_SCHEDULE", message)]
    assert result.error_cells() == [("Calc!A1:C4", message)]


def test_error_arguments_propagate_without_calling_the_function(tmp_path: Path) -> None:
    calls: list[Any] = []

    def spy(value: Any) -> Any:
        calls.append(value)
        return value

    def write(book: Any, calc: Any) -> None:
        calc.write_formula("A1", "=NJ_SPY(1/0)")
        calc.write_formula("A2", '=IFERROR(NJ_SPY(1/0),"caught")')
        calc.write_formula("A3", "=NJ_SPY(Inputs!A1)")

    result = recalculate(build(tmp_path / "errors.xlsx", write), {"NJ_SPY": spy})
    assert result.value("Calc!A1") == ExcelError("#DIV/0!")
    assert result.value("Calc!A2") == "caught"
    assert result.value("Calc!A3") == 0.5
    assert calls == [0.5]


def test_arguments_arrive_as_office_js_sends_them(tmp_path: Path) -> None:
    seen: list[tuple[Any, ...]] = []

    def probe(*args: Any) -> int:
        seen.append(args)
        return len(args)

    def write(book: Any, calc: Any) -> None:
        date = book.add_format({"num_format": "yyyy-mm-dd"})
        calc.write_datetime("B1", dt.datetime(2024, 1, 1), date)
        calc.write_formula("A1", '=NJ_PROBE(Inputs!A1,Inputs!A3:A4,B1,B9,TRUE,"text")')

    result = recalculate(build(tmp_path / "args.xlsx", write), {"NJ_PROBE": probe})
    assert result.value("Calc!A1") == 6
    # one cell -> its value; a range -> rows; a date -> its serial; a blank -> None
    assert seen == [(0.5, [[1000], [2000]], 45292, None, True, "text")]


def test_results_become_cell_values(tmp_path: Path) -> None:
    values: dict[str, Any] = {
        "NJ_DECIMAL": lambda: Decimal("1250000.10"),
        "NJ_DATE": lambda: dt.date(2024, 1, 1),
        "NJ_NONE": lambda: None,
        "NJ_ROW": lambda: [1, "two", True],
        "NJ_NAN": lambda: float("nan"),
    }

    def write(book: Any, calc: Any) -> None:
        for row, name in enumerate(values, 1):
            calc.write_array_formula(row - 1, 0, row - 1, 2, "{=" + name + "()}")

    result = recalculate(build(tmp_path / "results.xlsx", write), values)
    assert result.value("Calc!A1") == 1250000.1
    assert result.value("Calc!A2") == 45292
    assert result.value("Calc!A3") is None
    assert result.range_values("Calc", "A4:C4") == [[1, "two", True]]
    assert result.value("Calc!A5") == ExcelError("#NUM!")


@pytest.mark.parametrize(
    "spelling",
    [
        "NJ_TWICE",  # classic add-in
        "XLWINGS.NJ_TWICE",  # Office.js namespace, as typed
        "_xldudf_XLWINGS_NJ_TWICE",  # Office.js, as Excel saves it
        "_xludf.NJ_TWICE",
        "_xll.NJ_TWICE",
    ],
)
def test_every_runtime_spelling_of_a_function_is_served(tmp_path: Path, spelling: str) -> None:
    def write(book: Any, calc: Any) -> None:
        calc.write_formula("A1", f"={spelling}(Inputs!A3)")

    result = recalculate(build(tmp_path / "spelling.xlsx", write), {"NJ_TWICE": lambda x: 2 * x})
    assert result.value("Calc!A1") == 2000  # 1,000 x 2
    assert result.calls == {"NJ_TWICE": 1}
    assert result.nj_formula_cells() == {"NJ_TWICE": 1}


def test_unknown_names_and_lookalikes_are_not_served() -> None:
    known = ["NJ_TWICE", "NJ_ERTC_CREDIT", "NJ_ERTC_CREDIT_LIMIT"]
    text = "=NOTNJ_TWICE(1)+NJ_TWICE2(1)+X.NJ_ERTC_CREDIT_LIMIT(1)+NJ_ERTC_CREDIT(2)+A1.NJ_TWICE(3)"
    assert function_variants(text, known) == {
        "X.NJ_ERTC_CREDIT_LIMIT": "NJ_ERTC_CREDIT_LIMIT",
        "NJ_ERTC_CREDIT": "NJ_ERTC_CREDIT",
        "A1.NJ_TWICE": "NJ_TWICE",
    }


def test_the_engine_registry_is_restored(tmp_path: Path) -> None:
    def write(book: Any, calc: Any) -> None:
        calc.write_formula("A1", "=NJ_TWICE(2)+XLWINGS.NJ_TWICE(3)")

    before = set(formulas.get_functions())
    result = recalculate(build(tmp_path / "registry.xlsx", write), {"NJ_TWICE": lambda x: 2 * x})
    assert result.value("Calc!A1") == 10  # 2 x 2 + 3 x 2
    assert set(formulas.get_functions()) == before


def test_defined_names_and_references(tmp_path: Path) -> None:
    def write(book: Any, calc: Any) -> None:
        calc.write_formula("A1", "=Pct*2")
        book.define_name("Doubled", "=Calc!$A$1")

    result = recalculate(build(tmp_path / "names.xlsx", write), {})
    assert result.value("Doubled") == 1.0
    assert result.value("doubled") == 1.0
    assert result.value("Calc!$A$1") == 1.0
    assert result.value("Inputs!A3:A4") == [[1000], [2000]]
    with pytest.raises(ValueError, match="no sheet named"):
        result.value("Nowhere!A1")


def test_excel_serial_numbers() -> None:
    assert excel_serial(dt.date(2024, 1, 1)) == 45292
    assert excel_serial(dt.date(1900, 3, 1)) == 61
    assert excel_serial(dt.date(1900, 1, 1)) == 1
    assert excel_serial(dt.datetime(2024, 1, 1, 12)) == 45292.5


def test_the_nj_functions_are_served_by_the_excel_module(tmp_path: Path) -> None:
    """The default functions are nj_incentives.excel's: the same adapters Excel calls."""
    from nj_incentives.programs.beip import rules as beip

    path = tmp_path / "beip.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("BEIP")
    date = book.add_format({"num_format": "yyyy-mm-dd"})
    for i, (w, n) in enumerate([(600000, 10), (600000, 12), (600000, 2)]):
        sheet.write_number(i, 0, w)
        sheet.write_number(i, 1, n)
    sheet.write_number("D1", 0.5)
    sheet.write_datetime("D2", dt.datetime(2010, 1, 1), date)
    sheet.write_dynamic_array_formula("F1:L11", "=NJ_BEIP_GRANT_SCHEDULE(A1:A10,B1:B10,D1,D2)")
    sheet.write_formula("D3", "=NJ_BEIP_GRANT(600000,50)")
    book.close()

    result = recalculate(path)
    core = beip.grant_schedule([600000] * 3, [10, 12, 2], "0.5", dt.date(2010, 1, 1))
    assert result.value("BEIP!F1") == "Year"
    grants = [row[0] for row in result.range_values("BEIP", "K2:K4")]
    assert grants == [float(row.grant) for row in core.rows]
    assert result.range_values("BEIP", "F5:L5") == [[None] * 7]
    message = result.value("BEIP!D3")
    assert isinstance(message, str)
    assert message.startswith("#VALUE! pct = 50")
    assert result.function_errors[0].function == "NJ_BEIP_GRANT"
