"""Small hostile workbooks, generated (issue 22 items 4, 5 and 8): each is a plain
xlsxwriter workbook whose parts are then rewritten the way a hostile writer would. Used by
tests/workpapers/recalc/test_hostile_files.py and by the benchmark
tests/benchmarks/test_hostile_bench.py.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape

import xlsxwriter

SHEET = "xl/worksheets/sheet1.xml"


def plain(
    path: Path, title: str = "Calculations", fill: Callable[..., object] | None = None
) -> Path:
    """A valid workbook: A1 = 5, B1 = A1 * 2 (or what ``fill(book, sheet)`` writes)."""
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet(title)
    if fill is None:
        sheet.write_number("A1", 5)
        sheet.write_formula("B1", "=A1*2")
    else:
        fill(book, sheet)
    book.close()
    return path


def parts(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def write(path: Path, contents: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as out:
        for name, data in contents.items():
            out.writestr(name, data)
    return path


def with_sheet_data(path: Path, sheet_data: bytes, extra: bytes = b"") -> Path:
    """``path`` (a plain workbook) with its sheet's ``<sheetData>`` replaced (and ``extra``
    elements after it, such as ``<mergeCells>``); the declared dimension is A1, as
    xlsxwriter wrote it: only the cells themselves say how far the sheet reaches."""
    contents = parts(path)
    sheet = contents[SHEET]
    start = sheet.index(b"<sheetData")
    end = sheet.index(b"</sheetData>") + len(b"</sheetData>")
    contents[SHEET] = (
        sheet[:start] + b"<sheetData>" + sheet_data + b"</sheetData>" + extra + sheet[end:]
    )
    return write(path, contents)


_FIRST_ROW = b'<row r="1"><c r="A1"><v>5</v></c></row>'


def implied_far_cell(path: Path) -> Path:
    """Issue 22 item 5: the last row's 16,384 cells have no ``r``: openpyxl places them
    by their order, A1048576 to XFD1048576 (about 25 KB compressed)."""
    plain(path)
    far_row = b'<row r="1048576">' + b"<c/>" * 16_383 + b"<c><v>1</v></c></row>"
    return with_sheet_data(path, _FIRST_ROW + far_row)


def leading_zero_far_cell(path: Path) -> Path:
    """Issue 22 item 5: a cell at ``XFD01048576``, which openpyxl reads as XFD1048576."""
    plain(path)
    return with_sheet_data(
        path, _FIRST_ROW + b'<row r="1048576"><c r="XFD01048576"><v>1</v></c></row>'
    )


def array_far_range(path: Path) -> Path:
    """Issue 22 item 5: an array formula in A201 saved over ``A201:XFD1048576``."""
    plain(path)
    return with_sheet_data(
        path,
        _FIRST_ROW + b'<row r="201"><c r="A201"><f t="array" ref="A201:XFD1048576">A1*2</f>'
        b"<v>10</v></c></row>",
    )


def far_merged_cells(path: Path) -> Path:
    """Merged cells over A1:XFD1048576 (openpyxl creates a cell for each merged cell)."""
    plain(path)
    return with_sheet_data(
        path, _FIRST_ROW, b'<mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells>'
    )


FAR_CELLS: dict[str, Callable[[Path], Path]] = {
    "implied position": implied_far_cell,
    "leading zero": leading_zero_far_cell,
    "array formula ref": array_far_range,
}


def named(path: Path, names: dict[str, str], formula: str = "=A1*2", local: bool = False) -> Path:
    """A plain workbook whose B1 holds ``formula``, with the defined ``names``
    (workbook-level, or local to the sheet)."""

    def fill(book: object, sheet: object) -> None:
        sheet.write_number("A1", 5)  # type: ignore[attr-defined]
        sheet.write_formula("B1", formula)  # type: ignore[attr-defined]
        for name, text in names.items():
            book.define_name(f"Calculations!{name}" if local else name, text)  # type: ignore[attr-defined]

    return plain(path, fill=fill)


def with_raw_defined_name(path: Path, name: str, text: str) -> Path:
    """A plain workbook with a defined name written as is (xlsxwriter would check it)."""
    plain(path)
    contents = parts(path)
    book = contents["xl/workbook.xml"]
    element = (
        f'<definedNames><definedName name="{name}">{escape(text)}</definedName></definedNames>'
    )
    contents["xl/workbook.xml"] = book.replace(b"</sheets>", b"</sheets>" + element.encode())
    return write(path, contents)


# --------------------------------------------------------------------------- doctor


def conf_workbook(path: Path) -> Path:
    """A workbook doctor reads in full: an NJ_* formula and an ``xlwings.conf`` sheet
    (its A1 and B1 are shared strings 1 and 2)."""
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Calculations")
    sheet.write_formula("A1", "=NJ_BEIP_GRANT(1250000,0.5)")
    conf = book.add_worksheet("xlwings.conf")
    conf.write("A1", "UDF Modules")
    conf.write("B1", "nj_incentives.excel")
    book.close()
    return path


def shared_string_index(path: Path, index: bytes) -> Path:
    """Issue 22 item 8: ``xlwings.conf``!B1 refers to the shared string ``index``."""
    conf_workbook(path)
    contents = parts(path)
    conf = "xl/worksheets/sheet2.xml"
    contents[conf] = contents[conf].replace(
        b'<c r="B1" t="s"><v>1</v>', b'<c r="B1" t="s"><v>' + index + b"</v>"
    )
    return write(path, contents)


def patched_header(path: Path, member: str, *, flag: int = 0, method: int | None = None) -> Path:
    """Issue 22 item 8: ``member``'s zip headers say it is encrypted (``flag`` 0x1) or
    compressed with ``method`` (99: AES, which zipfile cannot read); zipfile writes
    neither, so the bytes are patched in the local header and the central directory."""
    conf_workbook(path)
    data = bytearray(path.read_bytes())
    name = member.encode()
    local = data.find(name) - 30
    central = data.rfind(name) - 46
    assert data[local : local + 4] == b"PK\x03\x04"
    assert data[central : central + 4] == b"PK\x01\x02"
    data[local + 6] |= flag
    data[central + 8] |= flag
    if method is not None:
        data[local + 8 : local + 10] = method.to_bytes(2, "little")
        data[central + 10 : central + 12] = method.to_bytes(2, "little")
    path.write_bytes(bytes(data))
    return path


def utf16_doctype(path: Path) -> Path:
    """Issue 22 item 8: the shared strings in UTF-16 with an entity payload (doctor's
    own DOCTYPE check looked for the UTF-8 bytes only)."""
    conf_workbook(path)
    contents = parts(path)
    strings = contents["xl/sharedStrings.xml"].decode()
    payload = (
        strings.replace('encoding="UTF-8"', 'encoding="UTF-16"')
        .replace(
            "?>", '?><!DOCTYPE sst [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>', 1
        )
        .replace("UDF Modules", "&lol2;")
    )
    contents["xl/sharedStrings.xml"] = payload.encode("utf-16")
    return write(path, contents)


def many_formulas(path: Path, count: int = 60_000) -> Path:
    """Issue 22 item 8: ``count`` NJ_* formulas, more than the 50,000 allowed (doctor
    parsed every sheet whole: 80.8 s and 1,994 MB on a 930 KB file)."""
    plain(path)
    rows = b"".join(
        b'<row r="%d"><c r="A%d"><f>NJ_BEIP_GRANT(1250000,0.5)</f></c></row>' % (row, row)
        for row in range(1, count + 1)
    )
    return with_sheet_data(path, rows)


#: Every hostile workbook here: both ``calc`` and ``doctor`` refuse each with one line.
CORPUS: dict[str, Callable[[Path], Path]] = {
    **FAR_CELLS,
    "merged cells far away": far_merged_cells,
    "name Whole = whole columns": lambda p: named(
        p, {"Whole": "=Calculations!$A:$XFD"}, "=SUM(Whole)"
    ),
    "name Rows = whole rows": lambda p: named(p, {"Rows": "=Calculations!$1:$1048576"}),
    "name = OFFSET": lambda p: named(p, {"Off": "=OFFSET(Calculations!$A$1,0,0)"}, "=Off"),
    "name = WEBSERVICE": lambda p: named(p, {"Web": '=WEBSERVICE("http://127.0.0.1:9/")'}, "=Web"),
    "name = DDE": lambda p: with_raw_defined_name(p, "Dde", "cmd|' /C calc'!A0"),
    "cell = quoted DDE": lambda p: plain(
        p, fill=lambda book, sheet: sheet.write_formula("A1", "='cmd'|'/c calc'!A0")
    ),
    "shared string out of range": lambda p: shared_string_index(p, b"99"),
    "shared string not a number": lambda p: shared_string_index(p, b"x1"),
    "encrypted flag": lambda p: patched_header(p, "xl/sharedStrings.xml", flag=0x1),
    "compression method 99": lambda p: patched_header(p, "xl/sharedStrings.xml", method=99),
    "UTF-16 DOCTYPE": utf16_doctype,
    "60,000 formulas": many_formulas,
}
