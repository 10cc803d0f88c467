"""Cached values: a filled example that shows its figures in any viewer.

xlsxwriter stores 0 as the result of every formula, so a viewer that does not
recalculate (a file preview, Excel without the NJ_* functions, openpyxl with
``data_only=True``) shows zero totals and a FALSE master check on a correct example.
:func:`cache_values` recalculates a workbook with the headless engine
(:mod:`nj_incentives.workpapers.recalc`) as ``nj-incentives calc`` does (a shipped
template's workbook from its prebuilt form, any other in full: the same values field by
field, tests/workpapers/recalc/test_recalc_prebuilt.py; the examples built bare or
with a namespace were byte for byte those the full recalculation cached, at about a
third of the time) and writes each computed value into the file as the cell's
cached result: formula cells keep their formula (``<f>``) and get the value (``<v>``,
with its type: number, text ``t="str"``, error ``t="e"``; a boolean as the number 1 or 0,
shown TRUE or FALSE by the check cells' number format); the other cells of an array
formula's range get the value alone. Nothing else in the file changes: same parts, same
order, same zip timestamps, so the build stays deterministic.

Excel still recalculates on opening (xlsxwriter's ``fullCalcOnLoad``), with whatever
functions it has; the cached values are what a viewer shows until then.

LibreOffice (7.4, measured) keeps on load the cached number or text of an ordinary
formula, even one calling a function it does not know, but drops a cached boolean, an
empty text and an error, and recomputes those cells (an array formula always): without the
NJ_* functions a check calling one would print FALSE where its saved value is TRUE. So a
boolean is cached as a number (issue 31; docs/filling.md, "Printing from LibreOffice").
"""

from __future__ import annotations

import io
import math
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

if TYPE_CHECKING:
    from nj_incentives.workpapers.recalc.engine import CellValue

__all__ = ["cache_values", "write_cached_values"]

_CELL = re.compile(r'<c r="([A-Z]{1,3}[0-9]+)"([^>]*?)(?:/>|>(.*?)</c>)', re.DOTALL)
_FORMULA = re.compile(r"<f\b[^>]*?(?:/>|>.*?</f>)", re.DOTALL)
_TYPE = re.compile(r'\s+t="[^"]*"')


def _typed(value: CellValue) -> tuple[str, str | None]:
    """The ``t`` attribute (or "") and the ``<v>`` text (None: no cached value)."""
    from nj_incentives.workpapers.recalc.engine import ExcelError

    if value is None:
        return "", None
    if isinstance(value, ExcelError):
        return ' t="e"', escape(value.code)
    if isinstance(value, bool):  # a number: LibreOffice drops a cached boolean (below)
        return "", "1" if value else "0"
    if isinstance(value, int):
        return "", str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return ' t="e"', "#NUM!"
        return "", repr(value)
    return ' t="str"', escape(str(value))


def _rewrite_sheet(xml: str, values: Mapping[str, CellValue]) -> str:
    def replace(match: re.Match[str]) -> str:
        reference, attributes, content = match.group(1), match.group(2), match.group(3) or ""
        if reference not in values:
            return match.group(0)
        kind, text = _typed(values[reference])
        formula = _FORMULA.search(content)
        inner = formula.group(0) if formula else ""
        if text is not None:
            inner += f"<v>{text}</v>"
        attributes = _TYPE.sub("", attributes) + (kind if text is not None else "")
        if not inner:
            return f'<c r="{reference}"{attributes}/>'
        return f'<c r="{reference}"{attributes}>{inner}</c>'

    return _CELL.sub(replace, xml)


def write_cached_values(path: str | Path, values: Mapping[tuple[str, str], CellValue]) -> Path:
    """Write ``{(sheet, "A1"): value}`` into ``path`` as the cells' cached results.

    Only cells the file already has are touched (xlsxwriter writes every formula cell
    and every cell of an array formula's range)."""
    path = Path(path)
    by_sheet: dict[str, dict[str, CellValue]] = {}
    for (sheet, cell), value in values.items():
        by_sheet.setdefault(sheet, {})[cell] = value
    from nj_incentives.workpapers.recalc.safety import sheet_parts

    buffer = io.BytesIO()
    with zipfile.ZipFile(path) as source:
        parts = {part: by_sheet.get(title, {}) for title, part in sheet_parts(source).items()}
        with zipfile.ZipFile(buffer, "w") as target:
            for info in source.infolist():
                data = source.read(info)
                if parts.get(info.filename):
                    data = _rewrite_sheet(data.decode("utf-8"), parts[info.filename]).encode()
                target.writestr(info, data, compress_type=info.compress_type)
    path.write_bytes(buffer.getvalue())
    return path


def cache_values(path: str | Path) -> Path:
    """Recalculate ``path`` headlessly (as ``calc`` does: a template's from its prebuilt
    form) and cache every computed value in it."""
    from nj_incentives.workpapers.recalc.prebuilt import recalculate_template
    from nj_incentives.workpapers.recalc.safety import vet_workbook

    result = recalculate_template(vet_workbook(path))
    computed = {address: result.values.get(address) for address in result.computed}
    return write_cached_values(path, computed)
