"""The filled examples show their figures in any viewer (issue 9, item 5).

Each committed example carries, in every formula cell and every cell of an array
formula's range, the value a fresh headless recalculation gives: a reader that does not
recalculate (openpyxl ``data_only=True``, a file preview) sees the right totals and a
TRUE master check. The test reads the cached values straight from the file and compares
them with a recalculation of the same file, cell by cell.
"""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path

import openpyxl
import pytest

from nj_incentives.workpapers.recalc import ExcelError, Recalculation
from nj_incentives.workpapers.recalc.safety import sheet_parts
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY, EXAMPLES
from nj_incentives.workpapers.templates.builder import CHECK_FORMAT
from nj_incentives.workpapers.templates.cached import write_cached_values
from tooling import recalculated_once

EXAMPLE_PATHS = [DEFAULT_DIRECTORY / "examples" / name for name in EXAMPLES]
EPOCH = dt.datetime(1899, 12, 30)


def cached(value: object) -> object:
    """What openpyxl shows, as the engine's value (dates as serial numbers)."""
    if isinstance(value, dt.datetime):
        serial = (value - EPOCH).total_seconds() / 86400
        return int(serial) if serial.is_integer() else serial
    return value


def recalculated(path: Path) -> Recalculation:
    result: Recalculation = recalculated_once(path)
    return result


def fresh(value: object) -> object:
    return str(value) if isinstance(value, ExcelError) else value


@pytest.mark.parametrize("path", EXAMPLE_PATHS, ids=lambda path: path.stem)
@pytest.mark.recalc
def test_every_cached_value_is_a_fresh_recalculation(path: Path) -> None:
    _assert_cached(path, recalculated(path))


def _assert_cached(path: Path, result: Recalculation) -> None:
    """Every computed cell's value cached in ``path`` is its value in ``result``."""
    book = openpyxl.load_workbook(path, data_only=True)
    assert result.computed
    differences = []
    for sheet, cell in sorted(result.computed):
        want = fresh(result.values.get((sheet, cell)))
        got = cached(book[sheet][cell].value)
        # a boolean is cached as the number 1 or 0, which LibreOffice keeps (cached.py);
        # a check's number format shows TRUE or FALSE
        if isinstance(want, bool):
            want = int(want)
        if want == "":
            want = None  # an empty text result reads back as an empty cell
        same_number = (
            isinstance(want, int | float)
            and isinstance(got, int | float)
            and isinstance(got, bool) is isinstance(want, bool)
            and got == want
        )
        if not same_number and (got != want or type(got) is not type(want)):
            differences.append(f"{sheet}!{cell}: cached {got!r}, recalculated {want!r}")
    assert not differences, "\n".join(differences[:20])


@pytest.mark.parametrize("path", EXAMPLE_PATHS, ids=lambda path: path.stem)
def test_a_viewer_sees_a_true_master_check_and_no_errors(path: Path) -> None:
    book = openpyxl.load_workbook(path, data_only=True)
    ((sheet, cell),) = book.defined_names["MasterCheck"].destinations
    master = book[sheet][cell.replace("$", "")]
    assert master.value == 1
    assert master.number_format == CHECK_FORMAT
    errors = [
        f"{ws.title}!{c.coordinate}: {c.value}"
        for ws in book.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith("#")
    ]
    assert not errors


@pytest.mark.parametrize("path", EXAMPLE_PATHS, ids=lambda path: path.stem)
@pytest.mark.recalc
def test_the_formulas_are_still_there(path: Path) -> None:
    """Caching adds values; the workbook still computes in Excel (formulas, arrays)."""
    result = recalculated(path)
    formulas = openpyxl.load_workbook(path)
    for (sheet, cell), text in result.formulas.items():
        value = formulas[sheet][cell].value
        value = getattr(value, "text", value)
        assert isinstance(value, str), (sheet, cell)
        assert value.lstrip("{=").rstrip("}") in text or text.lstrip("{=").rstrip("}") in value


@pytest.mark.recalc
def test_a_stale_cached_value_is_caught(tmp_path: Path) -> None:
    """The comparison above can fail: a wrong cached value in one cell is found."""
    path = tmp_path / "stale.xlsx"
    path.write_bytes(EXAMPLE_PATHS[0].read_bytes())
    # the copy's formulas and inputs are the example's (a cached value is no input: the
    # engine computes every formula cell), so its fresh recalculation is the example's,
    # computed once for the test above
    result = recalculated(EXAMPLE_PATHS[0])
    sheet, cell = next(
        address
        for address in sorted(result.computed)
        if isinstance(result.values.get(address), float) and result.values[address]
    )
    write_cached_values(path, {(sheet, cell): 0})
    assert openpyxl.load_workbook(path, data_only=True)[sheet][cell].value == 0
    _assert_cached(EXAMPLE_PATHS[0], result)  # the example itself passes
    with pytest.raises(AssertionError, match=f"{sheet}!{cell}: cached 0"):
        _assert_cached(path, result)


def test_every_kind_of_value_is_written_with_its_type(tmp_path: Path) -> None:
    import xlsxwriter

    path = tmp_path / "kinds.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("S & P's")
    for row in range(7):
        sheet.write_formula(row, 0, f"=B{row + 1}")
    sheet.write_array_formula(0, 2, 1, 3, "{=A1:B2}")
    book.close()
    values = {
        "A1": 1250000.5,
        "A2": 3,
        "A3": True,
        "A4": "Yes <&>",
        "A5": ExcelError("#N/A"),
        "A6": None,
        "A7": "",
        "C1": 1.5,
        "D1": "x",
        "C2": False,
        "D2": 7,
    }
    write_cached_values(path, {("S & P's", cell): value for cell, value in values.items()})
    read = openpyxl.load_workbook(path, data_only=True)["S & P's"]
    # booleans as numbers (LibreOffice drops a cached boolean)
    assert [read[c].value for c in values] == [
        1250000.5,
        3,
        1,
        "Yes <&>",
        "#N/A",
        None,
        None,
        1.5,
        "x",
        0,
        7,
    ]
    formulas = openpyxl.load_workbook(path)["S & P's"]
    assert formulas["A4"].value == "=B4"
    assert formulas["C1"].value.ref == "C1:D2"
    with zipfile.ZipFile(path) as archive:
        assert sheet_parts(archive) == {"S & P's": "xl/worksheets/sheet1.xml"}
