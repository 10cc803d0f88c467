"""The results workbook, CSV output and the summary table (issue 5)."""

from __future__ import annotations

import csv
import hashlib
import zipfile
from pathlib import Path

import openpyxl
import pytest
import xlsxwriter

from nj_incentives.workpapers.recalc import (
    format_table,
    neutralise_csv_text,
    recalculate,
    summary_table,
    vet_workbook,
    write_csv,
    write_values,
)


def source_workbook(path: Path) -> Path:
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Data")
    money = book.add_format({"num_format": "#,##0.00", "bold": True})
    pct = book.add_format({"num_format": "0.00%"})
    sheet.write_number("A1", 1234.5)
    sheet.write_number("A2", 0.25, pct)
    sheet.write_formula("B1", "=A1*2", money)
    sheet.write_formula("B2", '="=HYPERLINK(""http://x"")"')  # text that looks like a formula
    sheet.write_formula("B3", "=1/0")
    sheet.write_formula("B4", "=A2>0.2")
    sheet.write_array_formula("C1:D2", "{=A1:A2*10}", money)
    sheet.write_string("E1", "-2+3")
    sheet.data_validation("A1", {"validate": "decimal", "criteria": ">=", "value": 0})
    sheet.protect()
    chart = book.add_chart({"type": "column"})
    chart.add_series({"values": "=Data!$B$1:$B$1"})
    sheet.insert_chart("G2", chart)
    book.close()
    return path


@pytest.fixture
def recalculated(tmp_path: Path):  # type: ignore[no-untyped-def]
    source = source_workbook(tmp_path / "filled.xlsx")
    return recalculate(source, {})


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.recalc
def test_values_replace_formulas_and_formats_are_kept(recalculated, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    before = digest(recalculated.source)
    out = write_values(recalculated, tmp_path / "out" / "filled.results.xlsx")
    assert digest(recalculated.source) == before  # the input is untouched
    book = openpyxl.load_workbook(out)
    sheet = book["Data"]
    assert sheet["B1"].value == 2469  # 1,234.50 x 2
    assert sheet["B1"].number_format == "#,##0.00"
    assert sheet["B1"].font.b
    assert sheet["B2"].value == '=HYPERLINK("http://x")'
    assert sheet["B2"].data_type == "s"  # text, not a formula
    assert sheet["B3"].value == "#DIV/0!"
    assert sheet["B3"].data_type == "e"
    assert sheet["B4"].value is True
    assert [[c.value for c in row] for row in sheet["C1:D2"]] == [[12345, 12345], [2.5, 2.5]]
    assert sheet["C2"].number_format == "#,##0.00"
    assert sheet["A2"].number_format == "0.00%"
    assert all(cell.data_type != "f" for row in sheet.iter_rows() for cell in row)
    assert sheet.protection.sheet
    assert len(sheet.data_validations.dataValidation) == 1
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
    assert any(name.startswith("xl/charts/chart") for name in names)
    vet_workbook(out)
    assert list(out.parent.iterdir()) == [out]  # no temporary file left behind


@pytest.mark.recalc
def test_the_input_is_never_overwritten(recalculated) -> None:  # type: ignore[no-untyped-def]
    before = digest(recalculated.source)
    with pytest.raises(ValueError, match="refusing to overwrite the input"):
        write_values(recalculated, recalculated.source)
    with pytest.raises(ValueError, match=r"\.xlsx"):
        write_values(recalculated, recalculated.source.with_suffix(".xlsm"))
    assert digest(recalculated.source) == before


@pytest.mark.recalc
def test_a_failed_write_leaves_no_file(recalculated, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import nj_incentives.workpapers.recalc.results as results

    def broken(*args: object) -> bytes:
        raise RuntimeError("disk full")

    monkeypatch.setattr(results, "_content_types", broken)
    target = tmp_path / "out" / "results.xlsx"
    with pytest.raises(RuntimeError, match="disk full"):
        write_values(recalculated, target)
    assert list(target.parent.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "safe"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r'=1"),  # leading CR, then a formula after the line break
        ("x\r=cmd|' /C calc'!A0", "x\r'=cmd|' /C calc'!A0"),
        ("  =1", "'  =1"),
        ("\uff1d1+1", "'\uff1d1+1"),  # full-width equals sign
        ("OK", "OK"),
        ("a=b", "a=b"),
        ("", ""),
    ],
)
def test_csv_text_is_neutralised(text: str, safe: str) -> None:
    assert neutralise_csv_text(text) == safe


@pytest.mark.recalc
def test_csv_output(recalculated, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = write_csv(recalculated, "Data", tmp_path / "data.csv")
    with out.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["1234.5", "2469", "12345", "12345", "'-2+3"]
    assert rows[1][:4] == ["0.25", '\'=HYPERLINK("http://x")', "2.5", "2.5"]
    assert rows[2][1] == "#DIV/0!"
    assert rows[3][1] == "TRUE"


@pytest.mark.recalc
def test_summary_table(recalculated) -> None:  # type: ignore[no-untyped-def]
    text = summary_table([recalculated])
    lines = text.splitlines()
    assert lines[0].split() == [
        "Workbook",
        "Formulas",
        "NJ_*",
        "calls",
        "Errors",
        "Master",
        "check",
        "Seconds",
    ]
    assert lines[2].split()[:5] == ["filled.xlsx", "5", "0", "1", "(none)"]
    assert "filled.xlsx: Data!B3: #DIV/0!" in lines


def test_format_table_aligns_numbers_right() -> None:
    assert format_table(["Name", "Amount"], [["a", 1.5], ["bb", 1234.0]]).splitlines() == [
        "Name    Amount",
        "----  --------",
        "a         1.50",
        "bb    1,234.00",
    ]


@pytest.mark.recalc
def test_conditional_colours_become_fixed_cell_formats(tmp_path: Path) -> None:
    """The Checks sheet's rules (TRUE green, anything else red) are applied to the cells
    and dropped (LibreOffice 7.4 aborted printing them:
    tests/workpapers/templates/test_results_print.py); a rule the writer cannot evaluate
    stays live; TRUE and FALSE get a number format that shows them as such in LibreOffice."""
    from nj_incentives.workpapers.recalc.colours import BOOLEAN_FORMAT

    path = tmp_path / "checks.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Checks")
    sheet.write_formula("A1", "=1=1")  # TRUE
    sheet.write_formula("A2", "=1=2")  # FALSE
    sheet.write_number("A3", 1)  # 1 is not TRUE in Excel's comparison: red
    sheet.write_string("A4", "TRUE")  # nor is the text
    sheet.write_formula("B1", "=2*3")
    ok = book.add_format({"bg_color": "#C6EFCE", "font_color": "#006100"})
    fail = book.add_format({"bg_color": "#FFC7CE", "font_color": "#9C0006"})
    sheet.conditional_format(
        "A1:A4", {"type": "cell", "criteria": "==", "value": "TRUE", "format": ok}
    )
    sheet.conditional_format(
        "A1:A4", {"type": "cell", "criteria": "!=", "value": "TRUE", "format": fail}
    )
    sheet.conditional_format("B1", {"type": "formula", "criteria": "=$B$1>A1", "format": fail})
    book.close()

    out = write_values(recalculate(path, {}), tmp_path / "checks-results.xlsx")
    ws = openpyxl.load_workbook(out)["Checks"]
    assert [ws[f"A{r}"].value for r in range(1, 5)] == [True, False, 1, "TRUE"]
    fills = [ws[f"A{r}"].fill.fgColor.rgb for r in range(1, 5)]
    fonts = [ws[f"A{r}"].font.color.rgb for r in range(1, 5)]
    assert fills == ["FFC6EFCE", "FFFFC7CE", "FFFFC7CE", "FFFFC7CE"]
    assert fonts == ["FF006100", "FF9C0006", "FF9C0006", "FF9C0006"]
    assert [ws[f"A{r}"].number_format for r in range(1, 3)] == [BOOLEAN_FORMAT] * 2
    assert ws["A3"].number_format == "General"
    # only the rule the writer cannot evaluate is left
    assert [str(rng.sqref) for rng in ws.conditional_formatting] == ["B1"]
    assert ws["B1"].value == 6
    vet_workbook(out)


#: per roster sheet: (rows filled, rows of its print area, the last row the results print)
ROSTERS = {
    "Part II": (12, 29, 15),  # the whole table in the area: through the last employee
    "Year one": (20, 18, 23),  # employees past the area (typed in after fill): printed too
    "Year two": (0, 29, 29),  # none: the table prints whole, a form to fill in by hand
}


def _roster_workbook(path: Path) -> Path:
    """Per sheet of :data:`ROSTERS` a table ending it (rows 4-28: a label in A, names in
    C, hours in D, a formula in E) named PrintedRows, filled and printed as ROSTERS says;
    and an xlwings.conf sheet as a template built before issue 31 had it (visible, with a
    print area)."""
    from nj_incentives.core.cells import quote_sheet
    from nj_incentives.core.workpaper import CONFIG, PRINTED_ROWS

    book = xlsxwriter.Workbook(str(path))
    for title, (filled, area_rows, _) in ROSTERS.items():
        sheet = book.add_worksheet(title)
        sheet.write_string("A1", "Roster")
        sheet.write_string("C3", "Employee")
        for i in range(25):
            sheet.write_string(3 + i, 0, f"Employee {i + 1}")
            if i < filled:
                sheet.write_string(3 + i, 2, f"E. Mployee {i + 1}")
                sheet.write_number(3 + i, 3, 160)
            if title == "Part II":  # a formula showing "" on a row not filled: blank
                sheet.write_formula(3 + i, 4, f'=IF(D{4 + i}="","",D{4 + i}*2)')
        sheet.print_area(0, 0, area_rows - 1, 4)
        book.define_name(
            f"{quote_sheet(title)}!{PRINTED_ROWS}", f"={quote_sheet(title)}!$C$4:$E$28"
        )
    conf = book.add_worksheet(CONFIG)
    conf.write_string("A1", "UDF Modules")
    conf.print_area("A1:B1")
    book.close()
    return path


@pytest.mark.recalc
def test_the_results_print_each_roster_through_its_last_row_and_no_conf_sheet(
    tmp_path: Path,
) -> None:
    """Issue 31 item 3: the results workbook prints a table that ends its sheet through
    its last filled row (the header above it kept), whoever filled it, and never the
    xlwings.conf sheet (hidden, without a print area)."""
    from nj_incentives.core.cells import quote_sheet
    from nj_incentives.core.workpaper import CONFIG

    source = _roster_workbook(tmp_path / "roster.xlsx")
    out = write_values(recalculate(source, {}), tmp_path / "roster-results.xlsx")
    book = openpyxl.load_workbook(out)
    for title, (_, _, printed) in ROSTERS.items():
        assert book[title].print_area == f"{quote_sheet(title)}!$A$1:$E${printed}", title
    assert book[CONFIG].sheet_state == "hidden"
    assert not book[CONFIG].print_area
