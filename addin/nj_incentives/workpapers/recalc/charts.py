"""The charts of a results workbook carry the recalculated values, and dates as dates.

A chart part (``xl/charts/chartN.xml``) keeps, beside each series' cell references, a
cache of their values: what a viewer that does not recalculate (a file preview, a
phone, a PDF export of the cached file, Python readers) shows. The template builder
writes the charts before any value exists, so their caches hold zeros, and a category
range of dates caches serial numbers under the format ``General``. :func:`refresh_caches`
rewrites each cache from the recalculation:

- a value range (``c:val``, or numeric categories): ``c:numCache`` with every computed
  number, the cells' number format as its ``formatCode``, blank cells left out;
- a category range whose cells are dates (their number format is a date format): a text
  reference (``c:strRef`` over the same cells) whose cache holds each date as the
  workbook shows it (``2024-12-31``), and the category axis takes the cells' date format,
  so the axis reads as dates, never 45657.

Only the caches change: the references, series, colours and layout are kept byte for
byte. The chart XML is produced by this package's builder (or Excel); it is parsed with
regular expressions over well-formed elements, never executed.
"""

from __future__ import annotations

import hashlib
import html
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from nj_incentives.workpapers.recalc.engine import CellValue, Recalculation

__all__ = ["cell_formats", "refresh_caches"]

_NUM_REF = re.compile(
    rb"<c:numRef>\s*<c:f>(?P<ref>[^<]*)</c:f>\s*(?:<c:numCache>.*?</c:numCache>|<c:numCache/>)?"
    rb"\s*</c:numRef>",
    re.DOTALL,
)
_CAT = re.compile(rb"<c:cat>.*?</c:cat>", re.DOTALL)
_CAT_AXIS_FORMAT = re.compile(rb"(<c:catAx>(?:(?!</c:catAx>).)*?)<c:numFmt [^>]*/>", re.DOTALL)
_DATE_FORMAT = re.compile(r"(?:y|d{1,4}|m{1,4}.*d|d.*m)", re.IGNORECASE)


#: the formats of the last few workbooks read, by a digest of their bytes: ``calc`` asks
#: for one workbook's formats up to four times (outputs, memo summary, memo detail,
#: results charts), and each read parses every sheet again
_FORMATS: OrderedDict[bytes, dict[tuple[str, str], str]] = OrderedDict()
_FORMATS_KEPT = 8
_FORMATS_LOCK = threading.Lock()


def cell_formats(recalc: Recalculation) -> dict[tuple[str, str], str]:
    """Each cell's number format other than General, read from the recalculated bytes
    (openpyxl, read-only: no formulas run); a copy, read once per workbook's bytes."""
    if recalc.vetted is None:
        return {}
    key = hashlib.blake2b(recalc.vetted.data, digest_size=32).digest()
    with _FORMATS_LOCK:
        known = _FORMATS.get(key)
        if known is not None:
            _FORMATS.move_to_end(key)
            return dict(known)
    formats = _read_formats(recalc.vetted.data)
    with _FORMATS_LOCK:
        _FORMATS[key] = formats
        while len(_FORMATS) > _FORMATS_KEPT:
            _FORMATS.popitem(last=False)
    return dict(formats)


def _read_formats(data: bytes) -> dict[tuple[str, str], str]:
    """Each cell's number format other than General, as openpyxl's read-only cells give
    them. openpyxl reads the workbook's parts and its styles (``ExcelReader``); each
    sheet's cells are read here from their start tags (``r`` and ``s``), which is all a
    format needs. openpyxl's cell iteration built every cell's value and type to give
    its format, after reading the shared strings and each sheet's size: 0.22 s for the
    Form 313 example's 11,971 formatted cells, 0.34 s of the main job's 2.6 s. A workbook
    this reading does not take as it is (a cell without ``r``, CDATA, a style index out
    of range, a format on style 0) is read by openpyxl's iteration
    (:func:`_formats_by_openpyxl`, which the tests hold this reading to)."""
    import io

    from openpyxl.reader.excel import ExcelReader
    from openpyxl.styles.stylesheet import apply_stylesheet

    formats: dict[tuple[str, str], str] = {}
    try:
        reader = ExcelReader(io.BytesIO(data), read_only=True)
        reader.read_manifest()
        reader.read_workbook()
        apply_stylesheet(reader.archive, reader.wb)
        book = reader.wb
        for sheet, rel in reader.parser.find_sheets():
            if rel.target not in reader.valid_files or "chartsheet" in rel.Type:
                continue
            found = _sheet_formats(book, reader.archive.read(rel.target))
            if found is None:
                return _formats_by_openpyxl(data)
            formats.update(((sheet.name, cell), code) for cell, code in found.items())
    except (KeyError, IndexError, ValueError, AttributeError, TypeError):
        return _formats_by_openpyxl(data)
    return formats


_CELL_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?c\b([^>]*)>")
_REF_ATTR = re.compile(rb"""(?:^|\s)r\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_STYLE_ATTR = re.compile(rb"""(?:^|\s)s\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _sheet_formats(book: Any, xml: bytes) -> dict[str, str] | None:
    """A sheet's formats by cell, from its cells' start tags; None where this reading
    does not apply."""
    from openpyxl.utils.cell import coordinate_to_tuple, get_column_letter

    styles, customs = book._cell_styles, book._number_formats
    if b"<![CDATA[" in xml or (styles and _style_code(styles[0].numFmtId, customs) != "General"):
        return None  # text that may look like a tag; cells without ``s`` formatted
    codes: dict[int, str] = {}
    found: dict[str, str] = {}
    for match in _CELL_TAG.finditer(xml):
        attributes = match.group(1)
        style = _STYLE_ATTR.search(attributes)
        if style is None:
            continue  # style 0: General
        index = int(style.group(1) or style.group(2) or 0)
        if index not in codes:
            codes[index] = _style_code(styles[index].numFmtId, customs)
        if codes[index] == "General":
            continue
        ref = _REF_ATTR.search(attributes)
        if ref is None:
            return None  # openpyxl counts its way to such a cell
        row, column = coordinate_to_tuple((ref.group(1) or ref.group(2)).decode())
        found[f"{get_column_letter(column)}{row}"] = codes[index]
    return found


def _style_code(number: int, customs: Any) -> str:
    from openpyxl.styles.numbers import BUILTIN_FORMATS, BUILTIN_FORMATS_MAX_SIZE

    if number < BUILTIN_FORMATS_MAX_SIZE:
        return str(BUILTIN_FORMATS.get(number, "General"))
    return str(customs[number - BUILTIN_FORMATS_MAX_SIZE])


def _formats_by_openpyxl(data: bytes) -> dict[tuple[str, str], str]:
    """Each cell's number format other than General, through openpyxl's read-only cells."""
    import io

    import openpyxl

    formats: dict[tuple[str, str], str] = {}
    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
    try:
        for ws in book.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    where = getattr(cell, "coordinate", None)
                    if where is not None and cell.number_format != "General":
                        formats[(ws.title, where)] = cell.number_format
    finally:
        book.close()
    return formats


def _is_date_format(number_format: str) -> bool:
    plain = re.sub(r'"[^"]*"|\[[^\]]*\]', "", number_format)
    return bool(_DATE_FORMAT.search(plain)) and "0" not in plain


def _cells(recalc: Recalculation, reference: str) -> list[tuple[str, str, CellValue]]:
    """(sheet, cell, value) of each cell of a reference, row by row."""
    from nj_incentives.core.cells import cell_name, range_bounds
    from nj_incentives.workpapers.recalc.engine import split_reference

    sheet, cells = split_reference(reference, recalc.sheets)
    cells = cells.replace("$", "").upper()
    (r1, c1), (r2, c2) = range_bounds(cells if ":" in cells else f"{cells}:{cells}")
    return [
        (sheet, cell_name(r, c), recalc.values.get((sheet, cell_name(r, c))))
        for r in range(r1, r2 + 1)
        for c in range(c1, c2 + 1)
    ]


def _number(value: CellValue) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _v(number: float) -> str:
    return repr(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


def refresh_caches(
    data: bytes,
    recalc: Recalculation,
    formats: Callable[[], Mapping[tuple[str, str], str]],
) -> bytes:
    """The chart XML ``data`` with every cache rebuilt from ``recalc`` (see the module
    docstring); ``formats()`` gives each cell's number format (read once, on demand)."""
    from nj_incentives.core.cells import date_from_serial

    known: dict[tuple[str, str], str] | None = None
    date_formats: list[str] = []

    def number_format(sheet: str, cell: str) -> str:
        nonlocal known
        if known is None:
            known = dict(formats())
        return known.get((sheet, cell), "General")

    def rebuild(match: re.Match[bytes], category: bool) -> bytes:
        reference = html.unescape(match.group("ref").decode("utf-8"))
        try:
            cells = _cells(recalc, reference)
        except (ValueError, KeyError):
            return match.group(0)  # a reference this workbook cannot resolve: as it was
        if not cells:
            return match.group(0)
        first_format = number_format(cells[0][0], cells[0][1])
        escaped = html.escape(reference, quote=False)
        if category and _is_date_format(first_format):
            date_formats.append(first_format)
            points = []
            for index, (_sheet, _cell, value) in enumerate(cells):
                number = _number(value)
                day = date_from_serial(number) if number is not None else None
                if day is not None:
                    points.append(f'<c:pt idx="{index}"><c:v>{day.isoformat()}</c:v></c:pt>')
            body = f'<c:ptCount val="{len(cells)}"/>' + "".join(points)
            return (
                f"<c:strRef><c:f>{escaped}</c:f><c:strCache>{body}</c:strCache></c:strRef>"
            ).encode()
        points = []
        for index, (_sheet, _cell, value) in enumerate(cells):
            number = _number(value)
            if number is not None:
                points.append(f'<c:pt idx="{index}"><c:v>{_v(number)}</c:v></c:pt>')
        code = html.escape(first_format, quote=False)
        body = f'<c:formatCode>{code}</c:formatCode><c:ptCount val="{len(cells)}"/>'
        return (
            f"<c:numRef><c:f>{escaped}</c:f><c:numCache>{body}{''.join(points)}</c:numCache>"
            "</c:numRef>"
        ).encode()

    def categories(match: re.Match[bytes]) -> bytes:
        return _NUM_REF.sub(lambda m: rebuild(m, True), match.group(0))

    placeholder: list[bytes] = []

    def hold(match: re.Match[bytes]) -> bytes:
        placeholder.append(categories(match))
        return b"\x00CAT%d\x00" % (len(placeholder) - 1)

    held = _CAT.sub(hold, data)
    held = _NUM_REF.sub(lambda m: rebuild(m, False), held)
    out = re.sub(rb"\x00CAT(\d+)\x00", lambda m: placeholder[int(m.group(1))], held)
    if date_formats:  # the category axis shows the dates as the cells do
        code = html.escape(date_formats[0], quote=True).encode()
        out = _CAT_AXIS_FORMAT.sub(
            lambda m: m.group(1) + b'<c:numFmt formatCode="' + code + b'" sourceLinked="0"/>',
            out,
        )
        # a text axis, one label per period: not a time scale that rounds to months
        out = re.sub(
            rb"(<c:catAx>(?:(?!</c:catAx>).)*?)<c:auto val=\"1\"/>",
            rb'\1<c:auto val="0"/>',
            out,
            flags=re.DOTALL,
        )
    return out
