"""Writing what a recalculation found: a results workbook, CSV files and a summary table.

The results workbook is the source workbook with every formula replaced by its value.
It is made by rewriting the source's worksheet XML, not by re-saving it through a
spreadsheet library, so everything else is kept exactly: number formats and styles,
column widths, merged cells, data validation, protection, defined names and the
Outputs charts, whose caches are rebuilt from the recalculated values (dates as dates:
:mod:`~nj_incentives.workpapers.recalc.charts`), so that a viewer that does not recalculate shows
the real figures. Two parts go:
the calculation chain (it lists formula cells, and none remain) and, for a
macro-enabled source, the VBA project (the results are an ``.xlsx``). Conditional
colours, which can no longer change, are applied to the cells as fixed formats and the
rules dropped (LibreOffice 7.4 could not print the Checks sheet's rules over values:
:mod:`~nj_incentives.workpapers.recalc.colours`), and a TRUE or FALSE gets a number format that
LibreOffice shows as TRUE or FALSE (it shows a logical value that is no formula's result
as 1 or 0); a rule the writer cannot evaluate stays as it was. The input file
is never written to: the results go to a new path, through a temporary file in the same
folder renamed into place, so a reader never sees half a file.

CSV output neutralises text cells that a spreadsheet would run as a formula
(CSV injection): a text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return (also after leading spaces, and their full-width forms) is written with a
leading apostrophe, and so is such a text after a line break inside a cell.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any
from xml.parsers import expat

from nj_incentives.core.cells import cell_index, cell_name
from nj_incentives.support.csv_safety import neutralise_text
from nj_incentives.support.files import atomic_path, same_file
from nj_incentives.workpapers.recalc.charts import cell_formats, refresh_caches
from nj_incentives.workpapers.recalc.colours import StaticColours, blocks, styles_part
from nj_incentives.workpapers.recalc.engine import CellValue, ExcelError, Recalculation
from nj_incentives.workpapers.recalc.safety import sheet_parts

__all__ = [
    "format_table",
    "neutralise_csv_text",
    "summary_rows",
    "summary_table",
    "write_csv",
    "write_values",
]

_MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_XLSX_MAIN = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
_XLSM_MAIN = "application/vnd.ms-excel.sheet.macroenabled.main+xml"
_MACRO_PARTS = re.compile(r"(^|/)vbaproject(signature\w*)?\.bin(\.rels)?$|_rels/vbaproject", re.I)
_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


# --------------------------------------------------------------------------- atomic files


def _same_file(a: Path, b: Path) -> bool:
    return same_file(a, b)


# --------------------------------------------------------------------------- XML rewriting


def _escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape_attr(text: str) -> str:
    return (
        _escape_text(text)
        .replace('"', "&quot;")
        .replace("\t", "&#9;")
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
    )


def _start_tag(name: str, attrs: Sequence[tuple[str, str]], close: bool = False) -> str:
    inner = "".join(f' {k}="{_escape_attr(v)}"' for k, v in attrs)
    return f"<{name}{inner}{'/' if close else ''}>"


def _pairs(flat: list[str]) -> list[tuple[str, str]]:
    return list(zip(flat[0::2], flat[1::2], strict=True))


class _Rewriter:
    """Streams an XML part back out unchanged, prefixes and all; subclasses edit it."""

    def __init__(self) -> None:
        self.out: list[str] = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n']

    def run(self, data: bytes) -> bytes:
        parser = expat.ParserCreate()
        parser.ordered_attributes = True
        parser.buffer_text = True
        parser.StartElementHandler = lambda name, attrs: self.start(name, _pairs(attrs))
        parser.EndElementHandler = self.end
        parser.CharacterDataHandler = self.text
        parser.CommentHandler = lambda data: self.emit(f"<!--{data}-->")
        parser.ProcessingInstructionHandler = lambda target, data: self.emit(f"<?{target} {data}?>")
        parser.StartDoctypeDeclHandler = self._refuse
        parser.EntityDeclHandler = self._refuse
        parser.Parse(data, True)
        return "".join(self.out).encode("utf-8")

    @staticmethod
    def _refuse(*_args: Any) -> None:
        raise ValueError("DOCTYPE or entity declaration in a workbook part")

    def emit(self, text: str) -> None:
        self.out.append(text)

    def start(self, name: str, attrs: list[tuple[str, str]]) -> None:
        self.emit(_start_tag(name, attrs))

    def end(self, name: str) -> None:
        self.emit(f"</{name}>")

    def text(self, data: str) -> None:
        self.emit(_escape_text(data))


class _Filter(_Rewriter):
    """Drops every element (with its content) for which ``drop`` is true."""

    def __init__(
        self,
        drop: Callable[[str, dict[str, str]], bool],
        change: Callable[[str, list[tuple[str, str]]], list[tuple[str, str]]] | None = None,
        before_root_end: str = "",
    ) -> None:
        super().__init__()
        self.drop = drop
        self.change = change
        self.skipping = 0
        self.depth = 0
        self.before_root_end = before_root_end

    def start(self, name: str, attrs: list[tuple[str, str]]) -> None:
        self.depth += 1
        if self.skipping or self.drop(name.rpartition(":")[2], dict(attrs)):
            self.skipping += 1
            return
        super().start(name, self.change(name, attrs) if self.change else attrs)

    def end(self, name: str) -> None:
        self.depth -= 1
        if self.skipping:
            self.skipping -= 1
            return
        if self.depth == 0 and self.before_root_end:
            prefix = name.rpartition(":")[0]
            extra = self.before_root_end
            if prefix:  # the added element in the root's namespace
                extra = extra.replace("<", f"<{prefix}:", 1)
            self.emit(extra)
        super().end(name)

    def text(self, data: str) -> None:
        if not self.skipping:
            super().text(data)


class _SheetValues(_Rewriter):
    """Replaces the listed cells of a worksheet by their values (adding missing cells);
    gives the cells of ``restyle`` their new style and drops the worksheet's
    conditional formats numbered (from 0, in file order) in ``drop_formats``."""

    def __init__(
        self,
        replacements: Mapping[int, dict[int, CellValue]],
        restyle: Mapping[tuple[int, int], int] | None = None,
        drop_formats: set[int] | frozenset[int] = frozenset(),
    ) -> None:
        super().__init__()
        self.rows = {r: dict(cells) for r, cells in replacements.items()}
        self.restyle = restyle or {}
        self.drop_formats = drop_formats
        self.depth = 0
        self.formats_seen = 0
        self.skipping = 0
        self.in_data = False
        self.row: int | None = None
        self.last_row = 0
        self.last_col = 0
        self.prefix = ""
        self.cell: list[str] | None = None
        self.cell_at: tuple[int, int] = (0, 0)
        self.cell_attrs: list[tuple[str, str]] = []
        self.cell_depth = 0

    # -- elements
    def start(self, name: str, attrs: list[tuple[str, str]]) -> None:
        self.depth += 1
        if self.skipping:
            self.skipping += 1
            return
        if self.depth == 2 and name.rpartition(":")[2] == "conditionalFormatting":
            self.formats_seen += 1
            if self.formats_seen - 1 in self.drop_formats:
                self.skipping = 1
                return
        if self.cell is not None:
            self.cell_depth += 1
            self.cell.append(_start_tag(name, attrs))
            return
        prefix, _, local = name.rpartition(":")
        if local == "sheetData":
            self.in_data, self.prefix = True, prefix + ":" if prefix else ""
        elif local == "row" and self.in_data:
            found = dict(attrs).get("r")
            row = int(found) if found else self.last_row + 1
            self._flush_rows(below=row)
            self.row, self.last_row, self.last_col = row, row, 0
            if row in self.rows:
                attrs = [(k, v) for k, v in attrs if k != "spans"]
        elif local == "c" and self.row is not None:
            found = dict(attrs).get("r")
            at = cell_index(found) if found else (self.row, self.last_col + 1)
            self.last_col = at[1]
            self._flush_cells(self.row, below=at[1])
            if at in self.restyle:
                attrs = [(k, v) for k, v in attrs if k != "s"] + [("s", str(self.restyle[at]))]
            self.cell, self.cell_at, self.cell_attrs, self.cell_depth = (
                [_start_tag(name, attrs)],
                at,
                attrs,
                0,
            )
            return
        super().start(name, attrs)

    def end(self, name: str) -> None:
        self.depth -= 1
        if self.skipping:
            self.skipping -= 1
            return
        if self.cell is not None:
            if self.cell_depth:
                self.cell_depth -= 1
                self.cell.append(f"</{name}>")
                return
            row, col = self.cell_at
            pending = self.rows.get(row, {})
            if col in pending:
                keep = [(k, v) for k, v in self.cell_attrs if k not in ("t", "cm", "vm")]
                self.emit(_value_cell(name.rpartition(":")[0], keep, pending.pop(col)))
            else:
                self.emit("".join(self.cell) + f"</{name}>")
            self.cell = None
            return
        local = name.rpartition(":")[2]
        if local == "row" and self.row is not None:
            self._flush_cells(self.row, below=None)
            self.rows.pop(self.row, None)
            self.row = None
        elif local == "sheetData" and self.in_data:
            self._flush_rows(below=None)
            self.in_data = False
        super().end(name)

    def text(self, data: str) -> None:
        if self.skipping:
            return
        if self.cell is not None:
            self.cell.append(_escape_text(data))
        else:
            super().text(data)

    # -- cells and rows the source does not have
    def _flush_cells(self, row: int, below: int | None) -> None:
        pending = self.rows.get(row, {})
        for col in sorted(c for c in pending if below is None or c < below):
            attrs = [("r", cell_name(row, col))]
            if (row, col) in self.restyle:
                attrs.append(("s", str(self.restyle[row, col])))
            self.emit(_value_cell(self.prefix[:-1], attrs, pending.pop(col)))

    def _flush_rows(self, below: int | None) -> None:
        for row in sorted(r for r in self.rows if below is None or r < below):
            if self.rows[row]:
                self.emit(f'<{self.prefix}row r="{row}">')
                self._flush_cells(row, below=None)
                self.emit(f"</{self.prefix}row>")
            del self.rows[row]


def _value_cell(prefix: str, attrs: list[tuple[str, str]], value: CellValue) -> str:
    p = f"{prefix}:" if prefix else ""
    if value is None:
        return _start_tag(f"{p}c", attrs, close=True)
    if isinstance(value, ExcelError):
        kind, body = "e", f"<{p}v>{_escape_text(value.code)}</{p}v>"
    elif isinstance(value, bool):
        kind, body = "b", f"<{p}v>{int(value)}</{p}v>"
    elif isinstance(value, (int, float)):
        kind, body = "", f"<{p}v>{value!r}</{p}v>"
    else:
        text = _ILLEGAL_XML.sub(lambda m: f"_x{ord(m.group()):04X}_", str(value))
        kind = "inlineStr"
        body = f'<{p}is><{p}t xml:space="preserve">{_escape_text(text)}</{p}t></{p}is>'
    if kind:
        attrs = [*attrs, ("t", kind)]
    return _start_tag(f"{p}c", attrs) + body + f"</{p}c>"


# --------------------------------------------------------------------------- the workbook


def write_values(
    recalc: Recalculation,
    target: str | os.PathLike[str],
    properties: Mapping[str, str] | None = None,
    print_to: Mapping[str, int] | None = None,
) -> Path:
    """Write the recalculated workbook, values in place of formulas, to ``target`` (.xlsx).

    ``print_to`` (sheet -> row): a sheet whose print area is to reach down to that row
    (cells added below it: the inputs changed since a sign-off on the Checks sheet).

    ``properties`` (name -> text: the engagement, the source's hash, the master check)
    are written as the workbook's custom document properties (File > Info > Properties >
    Advanced in Excel), replacing any of the same name.
    The source is never modified; ``target`` may not be the source."""
    target = Path(target)
    if target.suffix.lower() != ".xlsx":
        raise ValueError(f"{target}: results are written as an Excel workbook (.xlsx)")
    if recalc.vetted is None:
        raise ValueError("this recalculation does not carry its source workbook")
    replacements: dict[str, dict[int, dict[int, CellValue]]] = {}
    for sheet, cell in recalc.computed:
        row, col = cell_index(cell)
        replacements.setdefault(sheet, {}).setdefault(row, {})[col] = recalc.values.get(
            (sheet, cell)
        )

    added_rows = dict(print_to or {})
    with zipfile.ZipFile(io.BytesIO(recalc.vetted.data)) as source:
        parts = sheet_parts(source)
        sheet_of_part = {part.lower(): title for title, part in parts.items()}
        removed = {
            info.filename.lower()
            for info in source.infolist()
            if info.filename.lower() == "xl/calcchain.xml" or _MACRO_PARTS.search(info.filename)
        }
        names = {info.filename.lower() for info in source.infolist()}
        add_custom = bool(properties) and _CUSTOM_PART not in names
        colours, restyle, drop = _fixed_colours(recalc, source, parts)
        with (
            atomic_path(target, protect=[recalc.source]) as temporary,
            zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as out,
        ):
            for info in source.infolist():
                lower = info.filename.lower()
                if lower in removed:
                    continue
                data = source.read(info)
                if lower in sheet_of_part:
                    title = sheet_of_part[lower]
                    data = _SheetValues(
                        replacements.get(title, {}), restyle.get(title), drop.get(title, set())
                    ).run(data)
                elif colours is not None and lower == colours[0]:
                    data = colours[1].render()
                elif lower == "xl/workbook.xml":
                    data = _print_setup(data, recalc, added_rows)
                elif lower == "[content_types].xml":
                    data = _content_types(data, removed, add_custom)
                elif lower.endswith(".rels"):
                    data = _relationships(data, add_custom and lower == "_rels/.rels")
                elif lower == _CUSTOM_PART and properties:
                    data = _CustomProperties(properties).run(data)
                elif lower.startswith("xl/charts/chart") and lower.endswith(".xml"):
                    data = refresh_caches(data, recalc, lambda: cell_formats(recalc))
                copy = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                copy.compress_type = zipfile.ZIP_DEFLATED
                copy.external_attr = info.external_attr
                out.writestr(copy, data)
            if add_custom and properties:
                empty = f'<Properties xmlns="{_CUSTOM_NS}" xmlns:vt="{_VT_NS}"></Properties>'
                added = _CustomProperties(properties).run(empty.encode())
                out.writestr("docProps/custom.xml", added)
    return target


def _fixed_colours(
    recalc: Recalculation, source: zipfile.ZipFile, parts: Mapping[str, str]
) -> tuple[
    tuple[str, StaticColours] | None,
    dict[str, dict[tuple[int, int], int]],
    dict[str, set[int]],
]:
    """The conditional colours made fixed (:mod:`~nj_incentives.workpapers.recalc.colours`): the
    styles part (its lower-case name) with the cell formats they need, each sheet's
    restyled cells and the conditional formats it drops."""
    styles = styles_part(source)
    if styles is None or styles not in source.namelist():
        return None, {}, {}
    colours = StaticColours(source.read(styles))
    values: dict[str, dict[tuple[int, int], CellValue]] = {}
    for (title, cell), value in recalc.values.items():
        values.setdefault(title, {})[cell_index(cell)] = value
    restyle: dict[str, dict[tuple[int, int], int]] = {}
    drop: dict[str, set[int]] = {}
    for title, part in parts.items():
        if part not in source.namelist():
            continue
        data = source.read(part)
        logical = any(isinstance(v, bool) for v in values.get(title, {}).values())
        if not logical and b"conditionalFormatting" not in data:
            continue  # nothing to colour or to show as TRUE/FALSE: not parsed
        found, cell_styles = blocks(data)
        restyle[title], drop[title] = colours.colour_sheet(
            found, cell_styles, values.get(title, {})
        )
    return (styles.lower(), colours), restyle, drop


_CUSTOM_PART = "docprops/custom.xml"
_CUSTOM_NS = "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"
_VT_NS = "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"
_CUSTOM_TYPE = "application/vnd.openxmlformats-officedocument.custom-properties+xml"
_CUSTOM_REL = (
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/custom-properties"
)
_PROPERTY_FMTID = "{D5CDD505-2E9C-101B-9397-08002B2CF9AE}"


class _CustomProperties(_Rewriter):
    """docProps/custom.xml with ``properties`` (text) in place of any of the same name."""

    def __init__(self, properties: Mapping[str, str]) -> None:
        super().__init__()
        self.properties = {k: _ILLEGAL_XML.sub("", str(v)) for k, v in properties.items()}
        self.skipping = 0
        self.depth = 0
        self.pid = 1

    def start(self, name: str, attrs: list[tuple[str, str]]) -> None:
        self.depth += 1
        found = dict(attrs)
        if self.depth == 2 and "pid" in found:
            with contextlib.suppress(ValueError):
                self.pid = max(self.pid, int(found["pid"]))
        if self.skipping or (self.depth == 2 and found.get("name") in self.properties):
            self.skipping += 1
            return
        if self.depth == 1:
            self.root = name
        super().start(name, attrs)

    def end(self, name: str) -> None:
        self.depth -= 1
        if self.skipping:
            self.skipping -= 1
            return
        if self.depth == 0:  # the root closes: the properties go last
            prefix = self.root.rpartition(":")[0]
            tag = f"{prefix}:property" if prefix else "property"
            for key, value in self.properties.items():
                self.pid += 1
                self.emit(
                    _start_tag(
                        tag, [("fmtid", _PROPERTY_FMTID), ("pid", str(self.pid)), ("name", key)]
                    )
                    + f'<vt:lpwstr xmlns:vt="{_VT_NS}">{_escape_text(value)}</vt:lpwstr>'
                    + f"</{tag}>"
                )
        super().end(name)

    def text(self, data: str) -> None:
        if not self.skipping:
            super().text(data)


_DEFINED_NAME = re.compile(r"<definedName\b([^>]*)>([^<]*)</definedName>")
_SHEET_ELEMENT = re.compile(r"<sheet\b([^>]*?)(/?)>")
_ATTRIBUTE = re.compile(r'([\w:]+)="([^"]*)"')
_AREA = re.compile(r"('?)(.+?)\1!\$?([A-Z]+)\$?(\d+):\$?([A-Z]+)\$?(\d+)")


def _unescape(text: str) -> str:
    from xml.sax.saxutils import unescape

    return unescape(text, {"&apos;": "'", "&quot;": '"'})


def printed_rows(recalc: Recalculation, area: str) -> int | None:
    """The last row (1-based) of a :data:`~nj_incentives.core.workpaper.PRINTED_ROWS`
    table (``'Sheet'!$C$7:$Z$256``) that holds something: None when none does (the
    table prints whole, a form)."""
    found = _AREA.fullmatch(area)
    if found is None:
        return None
    sheet = found.group(2).replace("''", "'")
    first, last = int(found.group(4)), int(found.group(6))
    left, right = cell_index(f"{found.group(3)}1")[1], cell_index(f"{found.group(5)}1")[1]
    filled = None
    for (where, cell), value in recalc.values.items():
        if where != sheet or value is None or value == "":
            continue
        row, col = cell_index(cell)
        if first <= row <= last and left <= col <= right and (filled is None or row > filled):
            filled = row
    return filled


def _print_setup(data: bytes, recalc: Recalculation, extend: Mapping[str, int]) -> bytes:
    """workbook.xml as the results print: each sheet of
    :data:`~nj_incentives.core.workpaper.UNPRINTED_SHEETS` hidden, without a print area
    (LibreOffice prints a hidden sheet that has one); a sheet whose print area ends with
    its :data:`~nj_incentives.core.workpaper.PRINTED_ROWS` table printed through the
    table's last row filled, whoever filled it (as it was when none is: a form); a
    sheet of
    ``extend`` (sheet -> row) printed at least down to that row; anything else as it
    was."""
    from nj_incentives.core.workpaper import PRINTED_ROWS, UNPRINTED_SHEETS

    text = data.decode("utf-8")
    sheets = [
        _unescape(dict(_ATTRIBUTE.findall(attrs)).get("name", ""))
        for attrs, _ in _SHEET_ELEMENT.findall(text)
    ]

    def hide(match: re.Match[str]) -> str:
        attrs = dict(_ATTRIBUTE.findall(match.group(1)))
        if _unescape(attrs.get("name", "")) not in UNPRINTED_SHEETS or "state" in attrs:
            return match.group(0)
        return f'<sheet{match.group(1)} state="hidden"{match.group(2)}>'

    text = _SHEET_ELEMENT.sub(hide, text)
    #: sheet -> (its table's first row, last row, the last row it prints)
    tables: dict[str, tuple[int, int, int]] = {}
    for attrs, area in _DEFINED_NAME.findall(text):
        named = dict(_ATTRIBUTE.findall(attrs))
        index = named.get("localSheetId", "")
        if named.get("name") == PRINTED_ROWS and index.isdigit() and int(index) < len(sheets):
            table = _AREA.fullmatch(_unescape(area))
            if table is None:
                continue
            first, last = int(table.group(4)), int(table.group(6))
            filled = printed_rows(recalc, _unescape(area))
            if filled is not None:  # none filled: the area as it was (a form)
                tables[sheets[int(index)]] = (first, last, max(filled, first - 1))

    def change(match: re.Match[str]) -> str:
        named = dict(_ATTRIBUTE.findall(match.group(1)))
        index = named.get("localSheetId", "")
        if named.get("name") != "_xlnm.Print_Area" or not index.isdigit():
            return match.group(0)
        if int(index) >= len(sheets):
            return match.group(0)
        sheet = sheets[int(index)]
        if sheet in UNPRINTED_SHEETS:
            return ""
        found = _AREA.fullmatch(_unescape(match.group(2)))
        if found is None:
            return match.group(0)
        last = int(found.group(6))
        if sheet in tables:
            first, bottom, printed = tables[sheet]
            if first - 1 <= last <= bottom + 1:  # the area ends with the table
                last = printed
        last = max(last, extend.get(sheet, 0))
        if last == int(found.group(6)):
            return match.group(0)
        quote = found.group(1)
        area = f"{quote}{found.group(2)}{quote}!${found.group(3)}${found.group(4)}:"
        area += f"${found.group(5)}${last}"
        return f"<definedName{match.group(1)}>{_escape_text(area)}</definedName>"

    text = _DEFINED_NAME.sub(change, text)
    text = re.sub(r"<definedNames>\s*</definedNames>", "", text)
    return text.encode("utf-8")


def _content_types(data: bytes, removed: set[str], add_custom: bool = False) -> bytes:
    def drop(local: str, attrs: dict[str, str]) -> bool:
        if local == "Override":
            return attrs.get("PartName", "").lstrip("/").lower() in removed
        if local == "Default":
            return "vbaproject" in attrs.get("ContentType", "").lower()
        return False

    def change(name: str, attrs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(k, _XLSX_MAIN if v.lower() == _XLSM_MAIN else v) for k, v in attrs]

    extra = (
        _start_tag(
            "Override",
            [("PartName", "/docProps/custom.xml"), ("ContentType", _CUSTOM_TYPE)],
            close=True,
        )
        if add_custom
        else ""
    )
    return _Filter(drop, change, before_root_end=extra).run(data)


def _relationships(data: bytes, add_custom: bool = False) -> bytes:
    def drop(local: str, attrs: dict[str, str]) -> bool:
        kind = attrs.get("Type", "").lower()
        return local == "Relationship" and (kind.endswith("/calcchain") or "vbaproject" in kind)

    extra = (
        _start_tag(
            "Relationship",
            [("Id", "rIdNjCustom"), ("Type", _CUSTOM_REL), ("Target", "docProps/custom.xml")],
            close=True,
        )
        if add_custom
        else ""
    )
    return _Filter(drop, before_root_end=extra).run(data)


# --------------------------------------------------------------------------- CSV


def neutralise_csv_text(text: str) -> str:
    """``text`` made safe for a CSV cell: a leading apostrophe if a spreadsheet would
    otherwise read it as a formula (OWASP's CSV injection rule), also after each line
    break inside it (:mod:`nj_incentives.support.csv_safety`)."""
    return neutralise_text(text)


def _csv_cell(value: CellValue) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, (int, ExcelError)):
        return str(value)
    return neutralise_csv_text(str(value))


def write_csv(recalc: Recalculation, sheet: str, target: str | os.PathLike[str]) -> Path:
    """Write one sheet's values as CSV (UTF-8 with BOM, which Excel reads), atomically."""
    target = Path(target)
    cells = [
        (cell_index(cell), value)
        for (title, cell), value in recalc.values.items()
        if title == sheet
    ]
    if not cells:
        raise ValueError(f"no sheet named {sheet!r} with values")
    rows = max(r for (r, _c), _v in cells)
    cols = max(c for (_r, c), _v in cells)
    grid: list[list[str]] = [[""] * cols for _ in range(rows)]
    for (r, c), value in cells:
        grid[r - 1][c - 1] = _csv_cell(value)
    with (
        atomic_path(target, protect=[recalc.source]) as temporary,
        temporary.open("w", encoding="utf-8-sig", newline="") as handle,
    ):
        csv.writer(handle).writerows(grid)
    return target


# --------------------------------------------------------------------------- summary


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain-text table: columns aligned, numbers to the right."""
    text_rows = [[_table_cell(v) for v in row] for row in rows]
    widths = [
        max([len(h), *(len(r[i]) for r in text_rows if i < len(r))]) for i, h in enumerate(headers)
    ]
    numeric = [
        all(
            isinstance(row[i], (int, float)) and not isinstance(row[i], bool)
            for row in rows
            if i < len(row)
        )
        and bool(rows)
        for i in range(len(headers))
    ]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            (c.rjust(w) if num else c.ljust(w))
            for c, w, num in zip(cells, widths, numeric, strict=False)
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(list(headers)), rule, *(line(r) for r in text_rows)])


def _table_cell(value: object) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return "" if value is None else str(value)


SUMMARY_HEADERS = ("Workbook", "Formulas", "NJ_* calls", "Errors", "Master check", "Seconds")


def summary_rows(
    recalcs: Sequence[Recalculation], check_name: str = "MasterCheck"
) -> list[list[object]]:
    """One row per recalculated workbook, under :data:`SUMMARY_HEADERS`."""
    rows: list[list[object]] = []
    for recalc in recalcs:
        try:
            check = recalc.value(check_name)
        except ValueError:
            check = None
        shown = check if isinstance(check, bool) else ("(none)" if check is None else str(check))
        rows.append(
            [
                recalc.source.name,
                len(recalc.formulas),
                sum(recalc.calls.values()),
                len(recalc.error_cells()),
                shown,
                round(recalc.seconds, 2),
            ]
        )
    return rows


def summary_table(
    recalcs: Sequence[Recalculation],
    check_name: str = "MasterCheck",
    file: IO[str] | None = None,
    max_errors: int = 20,
) -> str:
    """The summary as text (printed to ``file`` if given), followed by the error cells
    (at most ``max_errors`` per workbook) and the notes."""
    lines = [format_table(SUMMARY_HEADERS, summary_rows(recalcs, check_name))]
    for recalc in recalcs:
        errors = recalc.error_cells()
        for cell, text in errors[:max_errors]:
            lines.append(f"{recalc.source.name}: {cell}: {text}")
        if len(errors) > max_errors:
            more = len(errors) - max_errors
            lines.append(f"{recalc.source.name}: ... and {more} more error cells")
        for note in recalc.notes:
            lines.append(f"{recalc.source.name}: {note}")
    text = "\n".join(lines)
    if file is not None:
        print(text, file=file)
    return text
