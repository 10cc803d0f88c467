"""Conditional colours made fixed, for the results workbook.

A results workbook holds values, not formulas: its conditional formats can never change
colour again. LibreOffice 7.4 cannot print some of them: its PDF export aborts
("Unspecified Application Error", signal 6 in ``ScPatternAttr::GetItem`` while it
renders the pages) on the Checks sheet's "cell is TRUE" green / "cell is not TRUE" red
rules once the check cells hold values rather than formulas. So the results writer
evaluates every rule it can read here, on the recalculated values, applies the format of
the rules that hold to the cell itself (a cell style of its own: the same font, fill and
everything else, with the rule's font colour, bold, italic and fill), and drops the
conditional format. What a reviewer sees, on screen and on paper, is unchanged.

Rules read here, Excel's way: "cell is" (=, <>, >, <, >=, <=) against a constant (TRUE,
FALSE, a number, a quoted text), and the templates' not-a-number rule
``AND(X<>"",NOT(ISNUMBER(X)))`` on the range's top-left cell. A block with any other
rule (or a format other than a font colour, bold, italic or fill, or a cell it would
colour that the sheet does not list) is left as it is, live.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from xml.etree.ElementTree import Element

from defusedxml.ElementTree import fromstring

from nj_incentives.core.cells import cell_index, range_bounds
from nj_incentives.workpapers.recalc.engine import CellValue, ExcelError

__all__ = ["Block", "StaticColours", "blocks", "styles_part"]

_MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_M = f"{{{_MAIN_NS}}}"
_STYLES_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles"
#: a block covering more cells than this is left live (an A:A rule, say)
MAX_CELLS = 100_000
_NOT_A_NUMBER = re.compile(
    r'^AND\(\$?([A-Z]{1,3})\$?(\d+)<>"",NOT\(ISNUMBER\(\$?([A-Z]{1,3})\$?(\d+)\)\)\)$', re.I
)
#: what a logical value shows in LibreOffice, which shows a TRUE or FALSE that is not a
#: formula's result as 1 or 0 in the cell's own number format (Excel shows TRUE or FALSE
#: whatever the format)
BOOLEAN_FORMAT = '"TRUE";"TRUE";"FALSE"'
_LAST = 1 << 62  # after every rule's priority
_OPERATORS = {
    "equal": lambda c: c == 0,
    "notEqual": lambda c: c != 0,
    "greaterThan": lambda c: c > 0,
    "lessThan": lambda c: c < 0,
    "greaterThanOrEqual": lambda c: c >= 0,
    "lessThanOrEqual": lambda c: c <= 0,
}


@dataclass(frozen=True)
class Rule:
    kind: str
    operator: str
    dxf: int
    priority: int
    formulas: tuple[str, ...]
    stop: bool


@dataclass
class Block:
    """One ``<conditionalFormatting>`` of a sheet: its ranges and rules, in file order."""

    index: int
    sqref: str
    rules: list[Rule] = field(default_factory=list)

    def cells(self) -> list[tuple[int, int]] | None:
        """Every (row, column) the block covers; None if too many to colour one by one."""
        found: list[tuple[int, int]] = []
        for ref in self.sqref.split():
            (r1, c1), (r2, c2) = range_bounds(ref)
            if len(found) + (r2 - r1 + 1) * (c2 - c1 + 1) > MAX_CELLS:
                return None
            found.extend((r, c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1))
        return found

    def top_left(self) -> tuple[int, int]:
        return range_bounds(self.sqref.split()[0])[0]


def styles_part(archive: zipfile.ZipFile) -> str | None:
    """The name of the workbook's styles part, from the workbook's relationships."""
    rels = "xl/_rels/workbook.xml.rels"
    if rels not in archive.namelist():
        return None
    for rel in fromstring(archive.read(rels)):
        if rel.get("Type") == _STYLES_REL:
            target = str(rel.get("Target", ""))
            if target.startswith("/"):
                return target.lstrip("/")
            return posixpath.normpath(posixpath.join("xl", target))
    return None


def blocks(sheet_xml: bytes) -> tuple[list[Block], dict[tuple[int, int], int]]:
    """The sheet's conditional formats (its own, not those of an extension list) and the
    style index of each cell it lists."""
    root = fromstring(sheet_xml)
    found: list[Block] = []
    for index, element in enumerate(root.findall(f"{_M}conditionalFormatting")):
        block = Block(index, element.get("sqref", ""))
        for rule in element.findall(f"{_M}cfRule"):
            block.rules.append(
                Rule(
                    kind=rule.get("type", ""),
                    operator=rule.get("operator", ""),
                    dxf=int(rule.get("dxfId", "-1")),
                    priority=int(rule.get("priority", "0")),
                    formulas=tuple((f.text or "") for f in rule.findall(f"{_M}formula")),
                    stop=rule.get("stopIfTrue") in ("1", "true"),
                )
            )
        found.append(block)
    styles: dict[tuple[int, int], int] = {}
    data = root.find(f"{_M}sheetData")
    if data is not None:
        for row in data.iter(f"{_M}c"):
            ref = row.get("r")
            if ref:
                styles[cell_index(ref)] = int(row.get("s", "0"))
    return found, styles


# --------------------------------------------------------------------------- rules


def _constant(text: str) -> CellValue:
    text = text.strip()
    if text.upper() in ("TRUE", "FALSE"):
        return text.upper() == "TRUE"
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('""', '"')
    try:
        return float(text)
    except ValueError:
        raise _Unreadable(text) from None


class _Unreadable(Exception):
    """A rule this module does not evaluate: its block stays live."""


def _rank(value: CellValue) -> int:
    """Excel's order of types in a comparison: numbers < text < logical values."""
    if isinstance(value, bool):
        return 2
    if isinstance(value, str):
        return 1
    return 0


def _compare(value: CellValue, other: CellValue) -> int | None:
    """Excel's comparison of a cell with a constant (-1, 0, 1); None for an error."""
    if isinstance(value, ExcelError):
        return None
    if value is None:  # a blank cell compares as 0, "" or FALSE, as the other side
        value = False if isinstance(other, bool) else "" if isinstance(other, str) else 0.0
    left, right = _rank(value), _rank(other)
    if left != right:
        return -1 if left < right else 1
    if isinstance(value, str) and isinstance(other, str):
        text, constant = value.casefold(), other.casefold()
        return (text > constant) - (text < constant)
    if isinstance(value, (int, float)) and isinstance(other, (int, float)):
        return (value > other) - (value < other)
    return None


def _holds(
    rule: Rule, block: Block, at: tuple[int, int], values: Mapping[tuple[int, int], CellValue]
) -> bool:
    value = values.get(at)
    if rule.kind == "cellIs":
        if rule.operator not in _OPERATORS or len(rule.formulas) != 1:
            raise _Unreadable(rule.operator)
        compared = _compare(value, _constant(rule.formulas[0]))
        return compared is not None and bool(_OPERATORS[rule.operator](compared))
    if rule.kind == "expression" and len(rule.formulas) == 1:
        found = _NOT_A_NUMBER.match(rule.formulas[0].replace(" ", ""))
        top = block.top_left()
        if found and found.group(1, 2) == found.group(3, 4):
            if cell_index(found.group(1) + found.group(2)) != top:
                raise _Unreadable(rule.formulas[0])
            if isinstance(value, ExcelError):  # X<>"" is an error: the rule does not hold
                return False
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            return value is not None and value != "" and not number
    raise _Unreadable(rule.kind)


# --------------------------------------------------------------------------- styles


@dataclass(frozen=True)
class _Format:
    """What a rule's format sets: (tag, attributes) of its font colour, and its fill."""

    color: tuple[tuple[str, str], ...] | None = None
    bold: bool | None = None
    italic: bool | None = None
    fill: tuple[tuple[str, str], ...] | None = None
    number_format: str | None = None


def _dxf_format(dxf: Element) -> _Format:
    color = bold = italic = fill = None
    for part in dxf:
        tag = part.tag.removeprefix(_M)
        if tag == "font":
            for item in part:
                name = item.tag.removeprefix(_M)
                if name == "color":
                    color = tuple(sorted(item.attrib.items()))
                elif name in ("b", "i"):
                    on = item.get("val", "1") not in ("0", "false")
                    bold, italic = (on, italic) if name == "b" else (bold, on)
                else:
                    raise _Unreadable(name)
        elif tag == "fill":
            pattern = part.find(f"{_M}patternFill")
            if pattern is None or pattern.get("patternType") not in (None, "solid"):
                raise _Unreadable("fill")
            colour = pattern.find(f"{_M}bgColor")
            if colour is None:
                colour = pattern.find(f"{_M}fgColor")
            if colour is None:
                raise _Unreadable("fill")
            fill = tuple(sorted(colour.attrib.items()))
        else:
            raise _Unreadable(tag)
    return _Format(color, bold, italic, fill)


def _merge(formats: list[_Format]) -> _Format:
    """Rules in priority order: the first to set a property sets it (Excel's way)."""
    merged: dict[str, Any] = {}
    for found in formats:
        for key in ("color", "bold", "italic", "fill", "number_format"):
            if merged.get(key) is None:
                merged[key] = getattr(found, key)
    return _Format(**merged)


def _attrs(items: Any) -> str:
    return "".join(f' {k}="{_escape(v)}"' for k, v in items)


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def _element(element: Element, prefix: str, replace: Mapping[str, str] | None = None) -> str:
    """``element`` as text in the styles part's own namespace prefix (attributes only in
    no namespace, children likewise: what fonts and cell formats hold)."""
    tag = element.tag
    if not tag.startswith(_M):
        raise _Unreadable(tag)
    name = prefix + tag.removeprefix(_M)
    attrs = dict(element.attrib)
    if any(k.startswith("{") for k in attrs):
        raise _Unreadable(tag)
    attrs.update(replace or {})
    inner = "".join(_element(child, prefix) for child in element)
    if element.text and element.text.strip():
        raise _Unreadable(tag)
    return f"<{name}{_attrs(attrs.items())}>{inner}</{name}>"


def _children(root: Element, tag: str) -> list[Element]:
    found = root.find(f"{_M}{tag}")
    return [] if found is None else list(found)


class StaticColours:
    """The styles part, with a cell format added for each (format, rule format) pair
    the workbook's colours need."""

    def __init__(self, styles_xml: bytes) -> None:
        self.data = styles_xml
        root = fromstring(styles_xml)
        found = re.search(rb"<([\w.-]+:)?styleSheet\b", styles_xml)
        self.prefix = found.group(1).decode() if found and found.group(1) else ""
        self.fonts = _children(root, "fonts")
        self.fills = _children(root, "fills")
        self.xfs = _children(root, "cellXfs")
        self.dxfs = _children(root, "dxfs")
        self.formats = {
            f.get("formatCode", ""): int(f.get("numFmtId", "0")) for f in _children(root, "numFmts")
        }
        self.has_formats = root.find(f"{_M}numFmts") is not None
        self.format_count = len(_children(root, "numFmts"))
        self.new_formats: list[tuple[int, str]] = []
        self.added: dict[tuple[int, _Format], int] = {}
        self.new_fonts: list[str] = []
        self.new_fills: list[str] = []
        self.new_xfs: list[str] = []

    def number_format(self, code: str) -> int:
        """The id of the number format ``code``, added if the workbook has none."""
        if code in self.formats:
            return self.formats[code]
        taken = [*self.formats.values(), 163]
        self.formats[code] = max(taken) + 1
        self.new_formats.append((self.formats[code], code))
        return self.formats[code]

    def dxf(self, index: int) -> _Format:
        if not 0 <= index < len(self.dxfs):
            raise _Unreadable(f"dxf {index}")
        return _dxf_format(self.dxfs[index])

    def style(self, xf: int, wanted: _Format) -> int:
        """The index of a cell format: ``xf`` with ``wanted`` applied."""
        key = (xf, wanted)
        if key in self.added:
            return self.added[key]
        if not 0 <= xf < len(self.xfs) or self.fonts == [] or self.fills == []:
            raise _Unreadable(f"xf {xf}")
        base = self.xfs[xf]
        changes: dict[str, str] = {}
        p = self.prefix
        if wanted.color is not None or wanted.bold is not None or wanted.italic is not None:
            font = self.fonts[int(base.get("fontId", "0"))]
            kept = [
                _element(child, p)
                for child in font
                if child.tag.removeprefix(_M) not in ("color", "b", "i")
            ]
            bold = wanted.bold if wanted.bold is not None else font.find(f"{_M}b") is not None
            italic = wanted.italic if wanted.italic is not None else font.find(f"{_M}i") is not None
            old_colour = font.find(f"{_M}color")
            colour = (
                _attrs(wanted.color)
                if wanted.color is not None
                else _attrs(old_colour.attrib.items())
                if old_colour is not None
                else None
            )
            # a font's parts come in any order (CT_Font is a choice)
            head = (f"<{p}b/>" if bold else "") + (f"<{p}i/>" if italic else "")
            body = "".join(kept) + (f"<{p}color{colour}/>" if colour is not None else "")
            changes["fontId"] = str(len(self.fonts) + len(self.new_fonts))
            changes["applyFont"] = "1"
            self.new_fonts.append(f"<{p}font>{head}{body}</{p}font>")
        if wanted.fill is not None:
            changes["fillId"] = str(len(self.fills) + len(self.new_fills))
            changes["applyFill"] = "1"
            self.new_fills.append(
                f'<{p}fill><{p}patternFill patternType="solid"><{p}fgColor{_attrs(wanted.fill)}/>'
                f'<{p}bgColor indexed="64"/></{p}patternFill></{p}fill>'
            )
        if wanted.number_format is not None:
            changes["numFmtId"] = str(self.number_format(wanted.number_format))
            changes["applyNumberFormat"] = "1"
        self.new_xfs.append(_element(base, p, changes))
        index = len(self.xfs) + len(self.new_xfs) - 1
        self.added[key] = index
        return index

    def colour_sheet(
        self,
        sheet_blocks: list[Block],
        styles: Mapping[tuple[int, int], int],
        values: Mapping[tuple[int, int], CellValue],
    ) -> tuple[dict[tuple[int, int], int], set[int]]:
        """(cell -> its new style, the blocks made fixed) for one sheet: the colours of
        the rules that hold, and :data:`BOOLEAN_FORMAT` on every TRUE or FALSE."""
        wanted: dict[tuple[int, int], list[tuple[int, _Format]]] = {}
        fixed: set[int] = set()
        for block in sheet_blocks:
            try:
                cells = block.cells()
                if cells is None:
                    continue
                rules = sorted(block.rules, key=lambda r: r.priority)
                formats = {rule.dxf: self.dxf(rule.dxf) for rule in rules}
                holding: dict[tuple[int, int], list[tuple[int, _Format]]] = {}
                for at in cells:
                    for rule in rules:
                        if _holds(rule, block, at, values):
                            holding.setdefault(at, []).append((rule.priority, formats[rule.dxf]))
                            if rule.stop:
                                break
            except (_Unreadable, ValueError, IndexError):
                continue
            if any(at not in styles for at in holding):
                continue  # it colours a cell the sheet does not list: left live
            for at, found in holding.items():
                wanted.setdefault(at, []).extend(found)
            fixed.add(block.index)
        for at, value in values.items():
            if isinstance(value, bool):
                wanted.setdefault(at, []).append((_LAST, _Format(number_format=BOOLEAN_FORMAT)))
        restyled: dict[tuple[int, int], int] = {}
        for at, found in wanted.items():
            merged = _merge([fmt for _priority, fmt in sorted(found, key=lambda f: f[0])])
            try:
                restyled[at] = self.style(styles.get(at, 0), merged)
            except _Unreadable:
                return {}, set()  # a cell format this module cannot copy: all left live
        return restyled, fixed

    def render(self) -> bytes:
        """The styles part with the added number formats, fonts, fills and cell formats."""
        data = self.data
        p = self.prefix
        formats = [
            f'<{p}numFmt numFmtId="{n}" formatCode="{_escape(code)}"/>'
            for n, code in self.new_formats
        ]
        if formats and not self.has_formats:  # numFmts comes first in a styles part
            root = re.search(rb"<" + re.escape(p.encode()) + rb"styleSheet\b[^>]*>", data)
            if root is None:
                raise ValueError("styles part without its root")
            block = f'<{p}numFmts count="{len(formats)}">{"".join(formats)}</{p}numFmts>'
            data = data[: root.end()] + block.encode() + data[root.end() :]
            formats = []
        for tag, added, before in (
            ("numFmts", formats, self.format_count),
            ("fonts", self.new_fonts, len(self.fonts)),
            ("fills", self.new_fills, len(self.fills)),
            ("cellXfs", self.new_xfs, len(self.xfs)),
        ):
            if added:
                data = self._insert(data, tag, added, before)
        return data

    def _insert(self, data: bytes, tag: str, added: list[str], before: int) -> bytes:
        """``added`` at the end of ``tag``'s list, which had ``before`` items."""
        name = re.escape(self.prefix + tag).encode()
        close = re.search(rb"</" + name + rb">", data)
        if close is None:
            raise ValueError(f"styles part without a closing {tag}")
        data = data[: close.start()] + "".join(added).encode() + data[close.start() :]
        total = str(before + len(added)).encode()
        return re.sub(
            rb"(<" + name + rb"\b[^>]*?\bcount=\")\d+(\")",
            lambda m: m.group(1) + total + m.group(2),
            data,
            count=1,
        )
