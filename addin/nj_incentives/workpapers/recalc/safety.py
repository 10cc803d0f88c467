"""Opening a workbook that may come from anyone, without trusting or executing it.

An ``.xlsx`` file is a zip archive of XML parts. Before any spreadsheet library sees a
file, :func:`vet_workbook` reads the whole archive once, in memory, under limits:

- the file itself: at most :attr:`Limits.max_file_bytes` on disk;
- zip bombs: at most :attr:`Limits.max_members` parts, each at most
  :attr:`Limits.max_member_bytes` uncompressed, all together at most
  :attr:`Limits.max_total_bytes`, and no part over 1 MiB that inflates more than
  :attr:`Limits.max_ratio` times its compressed size. Sizes are counted while
  decompressing, never taken from the archive's own headers;
- malformed archives: not a zip, duplicate or unsafe part names, encrypted parts,
  compression methods Excel does not write, a missing workbook part;
- XML tricks: every XML part is parsed with ``defusedxml`` with document type
  declarations forbidden (no DOCTYPE, hence no entity expansion "billion laughs" and no
  external entities); VML parts, which Excel writes as loose XML, are scanned for
  ``<!DOCTYPE`` / ``<!ENTITY`` instead;
- password-protected (encrypted) workbooks and legacy ``.xls`` files (OLE containers)
  and binary ``.xlsb`` workbooks are refused: they cannot be inspected;
- every part, whatever its name, is checked for DTDs: a part that looks like XML is
  parsed as XML (a worksheet part named ``.dat`` is still XML, in UTF-16 too), any other
  part is scanned for ``<!DOCTYPE`` / ``<!ENTITY`` in UTF-8, UTF-16 and UTF-32;
- the sheets' size: declared (``<dimension>``) and actual extents at most
  :attr:`Limits.max_rows` x :attr:`Limits.max_columns` and :attr:`Limits.max_area`
  cells, at most :attr:`Limits.max_cells` cells and :attr:`Limits.max_formulas`
  formulas (a 20 KB file with one cell at XFD1048576 is refused here, before any
  library allocates a grid for it). Positions are read as the engine's reader (openpyxl)
  reads them: a cell without an ``r`` is the next column of its row, ``XFD01048576`` is
  XFD1048576, and an array formula's ``ref``, merged cells and hyperlinks over a range
  count with every cell they cover; a shared-string index the workbook lacks is refused;
- formulas that would reach outside the workbook are refused: DDE (``=cmd|'/C calc'!A0``),
  ``CALL``/``REGISTER``/``EXEC``/``RTD``/``WEBSERVICE``, DDE and OLE links; so are
  whole-row and whole-column references (``ROWS(1:1048576)``), which the engine cannot
  evaluate exactly, and references computed while calculating (``OFFSET``, ``INDIRECT``
  of anything but one quoted reference), which it can neither evaluate nor follow for
  circular references. The message names the cell (``Sheet1!A1``). Defined names are
  formulas every cell that uses them computes: they get the same rules (but for the
  whole rows and columns of a sheet's print titles and print area). Formulas are read
  with openpyxl's tokenizer (:func:`formula_problem`).

:func:`budgets` bounds the recalculation itself in time (:attr:`Limits.max_seconds`)
and memory (:attr:`Limits.max_memory_bytes`); the defaults are documented in
``docs/install.md`` ("Limits for untrusted workbooks") and the ``calc`` command's
options override them.

What the vetted file may contain but is never acted upon:

- **macros** (``.xlsm``, ``vbaProject.bin``): ignored. Nothing here can run VBA; the
  formula engine never reads the VBA project; the results workbook is an ``.xlsx``
  without it. (A workbook filled with the classic xlwings add-in is typically an
  ``.xlsm`` that holds the generated VBA wrappers, so refusing macro-enabled files would
  refuse the product's own workbooks.) The vetting report says that macros were present.
- **external links** (``externalLinkN.xml``): never followed. The engine refuses to open
  any workbook other than the vetted one; a formula that refers to another workbook
  evaluates to ``#REF!`` and is reported.

The vetted bytes are what the engine and the results writer use (see
:func:`vetted_copy`), so the file cannot change between the check and the use.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import io
import math
import os
import posixpath
import re
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring, iterparse

__all__ = [
    "BudgetExceeded",
    "Limits",
    "SheetStats",
    "UnsafeWorkbookError",
    "VettedWorkbook",
    "array_formulas",
    "budgets",
    "dynamic_arrays",
    "sheet_parts",
    "vet_bytes",
    "vet_workbook",
    "vetted_copy",
]

MIB = 1024 * 1024


def _size(n: float) -> str:
    """``1000`` -> ``'1,000 bytes'``; ``1572864`` -> ``'1.5 MiB'``."""
    return f"{n / MIB:,.1f} MiB" if n >= MIB / 10 else f"{int(n):,} bytes"


class UnsafeWorkbookError(ValueError):
    """A workbook refused before it was opened; the message says why, for the user."""


class BudgetExceeded(UnsafeWorkbookError):
    """A recalculation stopped because it exceeded its time or memory budget."""


@dataclass(frozen=True)
class Limits:
    """How large and how compressed a workbook may be.

    The defaults are far above what the templates need (a filled template is about
    50 KB on disk and under 1 MB uncompressed) and far below what would hurt a small
    machine. The ratio limit is the one Apache POI applies by default (1%), and only to
    parts over :attr:`ratio_applies_above` bytes: small XML parts legitimately compress
    very well.
    """

    max_file_bytes: int = 25 * MIB
    max_members: int = 2_000
    max_member_bytes: int = 100 * MIB
    max_total_bytes: int = 200 * MIB
    max_ratio: float = 100.0
    ratio_applies_above: int = 1 * MIB
    #: the sheets' size, declared and actual (a template is under 200 rows x 20 columns)
    max_rows: int = 100_000
    max_columns: int = 1_000
    max_area: int = 5_000_000
    max_cells: int = 200_000
    max_formulas: int = 50_000
    #: the text of formulas and defined names together (each at most Excel's 8,192
    #: characters): what the tokenizer may read, about 5 s at worst
    max_formula_characters: int = 10_000_000
    #: the recalculation's budget (None: unbounded)
    max_seconds: float | None = 300.0
    max_memory_bytes: int | None = 4096 * MIB
    #: the formulas will be recalculated: refuse those whose references are computed
    #: while calculating (OFFSET, INDIRECT of a computed text). False where only the
    #: saved values are read (scenario XLSX inputs).
    recalculating: bool = True

    def with_overrides(self, **overrides: object) -> Limits:
        """These limits with the given fields replaced (None values ignored)."""
        import dataclasses

        given = {name: value for name, value in overrides.items() if value is not None}
        return dataclasses.replace(self, **given)  # type: ignore[arg-type]


DEFAULT_LIMITS = Limits()

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_MAGIC = b"PK\x03\x04"
_XML_SUFFIXES = (".xml", ".rels")
_LOOSE_XML_SUFFIXES = (".vml",)
_MACRO_PART_NAMES = ("vbaproject.bin", "vbaprojectsignature.bin", "vbaprojectsignatureagile.bin")
_BINARY_WORKBOOK = "application/vnd.ms-excel.sheet.binary.macroenabled.main"
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class VettedWorkbook:
    """A workbook that passed :func:`vet_workbook`: its bytes and what it contains."""

    path: Path
    data: bytes = field(repr=False)
    members: int
    uncompressed_bytes: int
    has_macros: bool
    external_links: int
    #: per worksheet part: what the vetting counted
    sheets: dict[str, SheetStats] = field(default_factory=dict)

    @property
    def notes(self) -> tuple[str, ...]:
        """What the file contains that is deliberately ignored, for the summary."""
        notes = []
        if self.has_macros:
            notes.append("macros present: ignored (never run, not copied to results)")
        if self.external_links:
            notes.append(
                f"{self.external_links} external link(s) present: not followed "
                "(references to other workbooks evaluate to #REF!)"
            )
        return tuple(notes)


def vet_workbook(path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> VettedWorkbook:
    """Read ``path`` and check it is a well-formed, reasonably sized ``.xlsx``/``.xlsm``.

    Raises :class:`UnsafeWorkbookError` with a message for the user otherwise.
    """
    path = Path(path)
    name = path.name
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise UnsafeWorkbookError(f"{name}: no such file") from None
    if not path.is_file():
        raise UnsafeWorkbookError(f"{name}: not a file")
    if size > limits.max_file_bytes:
        raise UnsafeWorkbookError(
            f"{name}: the file is {_size(size)}, more than the "
            f"{_size(limits.max_file_bytes)} allowed"
        )
    with path.open("rb") as handle:
        data = handle.read(limits.max_file_bytes + 1)
    if len(data) > limits.max_file_bytes:
        raise UnsafeWorkbookError(f"{name}: the file grew while it was read")
    return _vet_bytes(path, data, limits)


def vet_bytes(
    path: str | os.PathLike[str], data: bytes, limits: Limits = DEFAULT_LIMITS
) -> VettedWorkbook:
    """:func:`vet_workbook` of a workbook's bytes already read (``path`` names it)."""
    if len(data) > limits.max_file_bytes:
        raise UnsafeWorkbookError(
            f"{Path(path).name}: the file is {_size(len(data))}, more than the "
            f"{_size(limits.max_file_bytes)} allowed"
        )
    return _vet_bytes(Path(path), data, limits)


def _vet_bytes(path: Path, data: bytes, limits: Limits) -> VettedWorkbook:
    name = path.name
    if data.startswith(_OLE_MAGIC):
        raise UnsafeWorkbookError(
            f"{name}: this is a password-protected (encrypted) workbook or a legacy .xls "
            "file; remove the password and save it as an Excel Workbook (.xlsx)"
        )
    if not data.startswith(_ZIP_MAGIC):
        raise UnsafeWorkbookError(f"{name}: not an Excel workbook (.xlsx): not a zip archive")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise UnsafeWorkbookError(f"{name}: malformed workbook archive ({exc})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.max_members:
            raise UnsafeWorkbookError(
                f"{name}: the archive has {len(infos)} parts, more than the "
                f"{limits.max_members} allowed"
            )
        names = _check_names(name, infos)
        if "[content_types].xml" not in names or "xl/workbook.xml" not in names:
            if "xl/workbook.bin" in names:
                raise UnsafeWorkbookError(
                    f"{name}: binary workbooks (.xlsb) are not supported; "
                    "save it as an Excel Workbook (.xlsx)"
                )
            raise UnsafeWorkbookError(f"{name}: not an Excel workbook (.xlsx): no workbook part")
        total = 0
        has_macros = False
        external_links = 0
        stats: dict[str, SheetStats] = {}
        # shared by the parts: the characters left to read, and the limit
        characters = [limits.max_formula_characters, limits.max_formula_characters]
        for info in infos:
            part_stats = SheetStats(
                stop_cells=limits.max_cells,
                stop_formulas=limits.max_formulas,
                recalculating=limits.recalculating,
                characters=characters,
            )
            total += _check_member(name, archive, info, limits, total, part_stats)
            if part_stats.seen:
                stats[info.filename] = part_stats
            lower = info.filename.lower()
            if posixpath.basename(lower) in _MACRO_PART_NAMES:
                has_macros = True
            if lower.startswith("xl/externallinks/") and lower.endswith(".xml"):
                external_links += 1
        content_types = archive.read("[Content_Types].xml").decode("utf-8", "replace").lower()
        if _BINARY_WORKBOOK in content_types:
            raise UnsafeWorkbookError(
                f"{name}: binary workbooks (.xlsb) are not supported; "
                "save it as an Excel Workbook (.xlsx)"
            )
        if "macroenabled" in content_types:
            has_macros = True
        titles = {part: title for title, part in _sheet_parts_or_empty(archive).items()}
        _check_sheets(name, stats, titles, limits)
        _check_shared_strings(name, archive, stats, titles)
    return VettedWorkbook(
        path=path,
        data=data,
        members=len(infos),
        uncompressed_bytes=total,
        has_macros=has_macros,
        external_links=external_links,
        sheets=stats,
    )


def _check_names(name: str, infos: list[zipfile.ZipInfo]) -> set[str]:
    seen: set[str] = set()
    for info in infos:
        member = info.filename
        lower = member.lower()
        if lower in seen:
            raise UnsafeWorkbookError(
                f"{name}: malformed workbook archive (duplicate part {member!r})"
            )
        seen.add(lower)
        parts = member.replace("\\", "/").split("/")
        if member.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
            raise UnsafeWorkbookError(
                f"{name}: malformed workbook archive (unsafe part name {member!r})"
            )
        if info.flag_bits & 0x1:
            raise UnsafeWorkbookError(f"{name}: the archive has encrypted parts ({member!r})")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise UnsafeWorkbookError(
                f"{name}: malformed workbook archive (part {member!r} uses a compression "
                "method Excel does not write)"
            )
    return seen


class _Counted(io.RawIOBase):
    """A reader over one archive part that enforces the size limits as it inflates."""

    def __init__(
        self,
        workbook: str,
        raw: IO[bytes],
        info: zipfile.ZipInfo,
        limits: Limits,
        total_before: int,
    ) -> None:
        self.workbook = workbook
        self.raw = raw
        self.info = info
        self.limits = limits
        self.total_before = total_before
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        chunk = self.raw.read(min(len(buffer), _CHUNK))
        n = len(chunk)
        buffer[:n] = chunk
        self.count += n
        self._check()
        return n

    def drain(self) -> None:
        buffer = memoryview(bytearray(_CHUNK))
        while self.readinto(buffer):
            pass

    def _check(self) -> None:
        name, limits, member = self.workbook, self.limits, self.info.filename
        if self.count > limits.max_member_bytes:
            raise UnsafeWorkbookError(
                f"{name}: part {member!r} inflates to more than "
                f"{_size(limits.max_member_bytes)} (zip bomb?)"
            )
        if self.total_before + self.count > limits.max_total_bytes:
            raise UnsafeWorkbookError(
                f"{name}: the archive inflates to more than "
                f"{_size(limits.max_total_bytes)} (zip bomb?)"
            )
        if self.count > limits.ratio_applies_above:
            ratio = self.count / max(self.info.compress_size, 1)
            if ratio > limits.max_ratio:
                raise UnsafeWorkbookError(
                    f"{name}: part {member!r} inflates more than {limits.max_ratio:.0f} "
                    "times its compressed size (zip bomb?)"
                )


def _check_member(
    name: str,
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    limits: Limits,
    total: int,
    stats: SheetStats | None = None,
) -> int:
    """Inflate one part under the limits; parse it if it is XML (whatever its name), scan
    it for DTDs otherwise. Returns its size."""
    member = info.filename
    lower = member.lower()
    try:
        with archive.open(info) as raw:
            counted = _Counted(name, raw, info, limits, total)
            if lower.endswith(_XML_SUFFIXES):
                _parse_xml(name, member, counted, stats)
            elif lower.endswith(_LOOSE_XML_SUFFIXES):
                _scan_loose_xml(name, member, counted)
            else:
                reader = io.BufferedReader(counted, _CHUNK)
                head = reader.peek(_CHUNK)[:512]
                if _looks_like_xml(head):
                    _parse_xml(name, member, reader, stats)
                else:
                    _scan_loose_xml(name, member, reader)
            counted.drain()
            return counted.count
    except UnsafeWorkbookError:
        raise
    except _StopCounting:
        return 0
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, RuntimeError) as exc:
        raise UnsafeWorkbookError(f"{name}: malformed workbook archive ({member}: {exc})") from None


def _parse_xml(
    name: str,
    member: str,
    stream: io.RawIOBase | io.BufferedIOBase,
    stats: SheetStats | None = None,
) -> None:
    reader = stream if isinstance(stream, io.BufferedIOBase) else io.BufferedReader(stream, _CHUNK)
    try:
        if stats is None:
            for _event, element in iterparse(reader, forbid_dtd=True):
                element.clear()
            return
        for event, element in iterparse(reader, ("start", "end"), forbid_dtd=True):
            if event == "start":
                stats.start(element)
            else:
                stats.see(element)
                element.clear()
    except DefusedXmlException as exc:
        raise UnsafeWorkbookError(
            f"{name}: part {member!r} declares a DOCTYPE or entities ({type(exc).__name__}); "
            "Excel never writes these (XML entity attack?)"
        ) from None
    except (UnsafeWorkbookError, _StopCounting):
        raise
    except Exception as exc:  # ParseError and what expat raises on malformed input
        raise UnsafeWorkbookError(f"{name}: malformed XML in part {member!r} ({exc})") from None


#: The marks of a DTD in every encoding an XML parser detects by itself (UTF-8 and
#: ASCII-compatible ones, UTF-16 and UTF-32 either way round).
_DTD_MARKS = tuple(
    mark.encode(codec)
    for mark in ("<!DOCTYPE", "<!ENTITY")
    for codec in ("ascii", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
)
_XML_STARTS = tuple(
    "<".encode(codec) for codec in ("ascii", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
)
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff", b"\xff\xfe", b"\xfe\xff")


def _looks_like_xml(head: bytes) -> bool:
    """A part that starts like XML in any encoding a parser detects: a byte-order mark,
    or ``<`` in UTF-8, UTF-16 or UTF-32 after white space."""
    if head.startswith(_BOMS):
        return True
    return head.lstrip(b" \t\r\n").startswith(_XML_STARTS)


def _scan_loose_xml(name: str, member: str, stream: io.RawIOBase | io.BufferedIOBase) -> None:
    tail = b""
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            return
        window = (tail + chunk).upper()
        if any(mark in window for mark in _DTD_MARKS):
            raise UnsafeWorkbookError(
                f"{name}: part {member!r} declares a DOCTYPE or entities; "
                "Excel never writes these (XML entity attack?)"
            )
        tail = window[-64:]


# --------------------------------------------------------------------------- sheet size

#: ``<dimension ref>`` corners, as before (the declared extent)
_CELL_REF = re.compile(r"\$?([A-Za-z]{1,3})\$?([0-9]{1,7})")
_STRING_LITERAL = re.compile(r'"(?:[^"]|"")*"')
_QUOTED_SHEET = re.compile(r"'(?:[^']|'')*'!")
#: Functions that call other programs, libraries or the network.
_OUTSIDE_FUNCTIONS = frozenset({"CALL", "REGISTER", "REGISTER.ID", "EXEC", "RTD", "WEBSERVICE"})
_FUNCTION_PREFIXES = ("_XLFN.", "_XLWS.", "@")
#: A formula none of whose rules can apply has none of these, no ``:`` and no ``|``.
_TRIGGERS = (*_OUTSIDE_FUNCTIONS, "OFFSET", "INDIRECT")
#: Built-in names whose whole rows or columns are what Excel writes (print titles, a
#: print area of whole columns) when local to a sheet, which the engine never computes.
_PRINT_NAMES = frozenset({"_XLNM.PRINT_TITLES", "_XLNM.PRINT_AREA"})
# The fallback for a formula the tokenizer cannot read (a spill reference ``A1#``): the
# same rules on its text outside string literals and quoted sheet names.
_OUTSIDE_CALLS = re.compile(
    r"(?<![A-Za-z0-9_.])(?:_xlfn\.)?(CALL|REGISTER|REGISTER\.ID|EXEC|RTD|WEBSERVICE)\s*\(",
    re.IGNORECASE,
)
_OFFSET = re.compile(r"(?<![A-Za-z0-9_.])(?:_xlfn\.)?OFFSET\s*\(", re.IGNORECASE)
_INDIRECT = re.compile(r"(?<![A-Za-z0-9_.])(?:_xlfn\.)?INDIRECT\s*\(", re.IGNORECASE)
_INDIRECT_LITERAL = re.compile(r'\s*""\s*\)')
_WHOLE_LINE = re.compile(
    r"(?<![A-Za-z0-9_.$:])(?:\$?[0-9]+:\$?[0-9]+|\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3})"
    r"(?![A-Za-z0-9_(!.])"
)
_COLUMN = re.compile(r"\$?[A-Za-z]{1,3}")
_ROW = re.compile(r"\$?[0-9]+")


@functools.lru_cache(maxsize=4096)
def _column_number(letters: str) -> int:
    number = 0
    for letter in letters.upper():
        number = number * 26 + ord(letter) - 64
    return number


_CANONICAL = re.compile(r"([A-Z]{1,3})([1-9][0-9]{0,6})")


def _engine_position(coordinate: str) -> tuple[int, int]:
    """(row, column) of a cell's ``r`` attribute as the engine's reader (openpyxl) reads
    it: ``XFD01048576`` is XFD1048576. Raises ValueError if it cannot read it."""
    canonical = _CANONICAL.fullmatch(coordinate)
    if canonical:  # what Excel writes: the same reading, without the call
        return int(canonical.group(2)), _column_number(canonical.group(1))
    from openpyxl.utils.cell import coordinate_to_tuple

    try:
        row, column = coordinate_to_tuple(coordinate)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"the cell reference {coordinate[:40]!r} is not valid") from exc
    return int(row), int(column)


def _engine_row(text: str) -> int:
    """A ``<row r>`` attribute as openpyxl reads it (``"7"``, ``"7.0"``)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not number.is_integer():
        raise ValueError(f"the row number {text[:40]!r} is not valid")
    return int(number)


def _engine_range(ref: str) -> tuple[int, int, int, int]:
    """(first row, first column, last row, last column) of a ``ref`` attribute as openpyxl
    reads it (``A201:XFD1048576``; a whole column or row reaches the sheet's edge)."""
    from openpyxl.utils.cell import range_boundaries

    try:
        c1, r1, c2, r2 = range_boundaries(ref)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"the range {ref[:40]!r} is not valid") from exc
    return (
        int(r1 or 1),
        int(c1 or 1),
        int(r2 or _SHEET_ROWS),
        int(c2 or _SHEET_COLUMNS),
    )


_SHEET_ROWS, _SHEET_COLUMNS = 1_048_576, 16_384
#: Excel's limit on the length of a formula ("Excel specifications and limits")
_EXCEL_FORMULA_CHARACTERS = 8_192
#: Elements whose ``ref`` the engine turns into cells, one per cell of the range:
#: openpyxl's merged cells and hyperlinks over a range, the formulas engine's array
#: formulas. A shared formula's ``ref`` only reaches as far as the cells it is in.
_CELLS_OF_REF = {"mergeCell": "merged cells over", "hyperlink": "a hyperlink over"}


@dataclass
class SheetStats:
    """What the vetting counted in one part: cells, formulas, extents, refusals.

    Positions are read as the engine's reader (openpyxl) reads them: a cell without an
    ``r`` is the next column of its row, a row without one the next row; ``r`` values
    are parsed by openpyxl's own functions (``XFD01048576`` is XFD1048576), and the
    ranges that become cells (array formulas, merged cells, hyperlinks) count with every
    cell they cover."""

    cells: int = 0
    formulas: int = 0
    max_row: int = 0
    max_column: int = 0
    far_cell: str = ""
    declared: str = ""
    declared_rows: int = 0
    declared_columns: int = 0
    refused: str = ""
    #: the cell of the refused formula ("A1")
    refused_cell: str = ""
    #: the refusal is of a defined name (its message says which)
    refused_name: bool = False
    #: stop counting past these (the file is refused then anyway)
    stop_cells: int = 0
    stop_formulas: int = 0
    #: refuse the formulas that cannot be recalculated here (:func:`formula_problem`)
    recalculating: bool = True
    #: the formula characters left to read and the limit, shared by the workbook's parts
    characters: list[int] | None = None
    #: shared strings: how many the part holds (``<si>``), the highest index a cell
    #: refers to (-1: none) and that cell
    strings: int = 0
    max_string: int = -1
    string_cell: str = ""
    #: openpyxl's row and column counters, the position and type of the cell being read
    _row: int = 0
    _column: int = 0
    _position: tuple[int, int] = (0, 0)
    _type: str = ""

    @property
    def _cell(self) -> str:
        """The cell being read, as an address ("B7"); none outside cells (a chart)."""
        row, column = self._position
        return f"{_column_letters(column)}{row}" if row and column else ""

    @property
    def seen(self) -> bool:
        return bool(self.cells or self.formulas or self.declared or self.refused or self.strings)

    def start(self, element: Any) -> None:
        """Note one element's start (its attributes): rows and cells take positions. An
        address or range the engine cannot read is refused (ValueError) in the
        spreadsheet's own namespace, which is all the engine reads; elsewhere (a custom
        XML part) it is passed over."""
        try:
            self._start(element)
        except ValueError:
            if str(element.tag).startswith(f"{{{_MAIN_NS}}}"):
                raise

    def _start(self, element: Any) -> None:
        local = _local(element.tag)
        if local == "row":
            text = element.get("r")
            self._row = _engine_row(text) if text is not None else self._row + 1
            self._column = 0
        elif local == "c":
            coordinate = element.get("r")
            if coordinate:
                row, column = _engine_position(coordinate)
                self._column = column
            else:
                self._column += 1
                row, column = self._row, self._column
            self._position = (row, column)
            self._type = element.get("t", "n")
            if row > self.max_row or column > self.max_column:
                where = coordinate or f"{self._cell} (no address: placed by its order in its row)"
                self._reach(row, column, f"a cell at {where}")
        elif local in _CELLS_OF_REF and element.get("ref"):
            self._covers(element.get("ref"), _CELLS_OF_REF[local])

    def see(self, element: Any) -> None:
        """Count one parsed element (called at its end, children first)."""
        local = _local(element.tag)
        if local == "c":
            self.cells += 1
            self._type = ""
            if self.stop_cells and self.cells > self.stop_cells:
                raise _StopCounting
        elif local == "v" and self._type == "s" and element.text:
            self._string_index(element.text)
        elif local == "si":
            self.strings += 1
        elif local == "f":
            self.formulas += 1
            if self.stop_formulas and self.formulas > self.stop_formulas:
                raise _StopCounting
            ref = element.get("ref")
            if ref and str(element.tag).startswith(f"{{{_MAIN_NS}}}"):
                if element.get("t") == "array":
                    self._covers(ref, "an array formula over")
                else:
                    _, _, r2, c2 = _engine_range(ref)
                    self._reach(r2, c2, f"a shared formula over {ref}")
            if not self.refused:
                problem = self._text(element.text or "") or formula_problem(
                    element.text or "", self.recalculating
                )
                if problem:
                    self.refused = f"{problem}: ={(element.text or '')[:60]}"
                    self.refused_cell = self._cell
        elif local == "definedName":
            if not self.refused:
                name = element.get("name", "")
                text = element.text or ""
                local_to_sheet = element.get("localSheetId") is not None
                problem = self._text(text) or defined_name_problem(
                    name, text, self.recalculating, local_to_sheet
                )
                if problem:
                    self.refused = f"the defined name {name} (={text[:60]}): {problem}"
                    self.refused_name = True
        elif local == "dimension":
            self.declared = element.get("ref", "")
            corners = [_CELL_REF.fullmatch(part) for part in self.declared.split(":")]
            if all(corners):
                rows = [int(m.group(2)) for m in corners if m]
                columns = [_column_number(m.group(1)) for m in corners if m]
                self.declared_rows = max(rows) - min(rows) + 1
                self.declared_columns = max(columns) - min(columns) + 1
        elif local in ("ddeLink", "oleLink"):
            kind = "a DDE link" if local == "ddeLink" else "an OLE link"
            self.refused = f"{kind} to another program ({element.get('ddeService', '')})"

    def _covers(self, ref: str, what: str) -> None:
        """A range the engine makes one cell of each of its cells."""
        r1, c1, r2, c2 = _engine_range(ref)
        self._reach(r2, c2, f"{what} {ref}")
        self.cells += (r2 - r1 + 1) * (c2 - c1 + 1) - 1
        if self.stop_cells and self.cells > self.stop_cells:
            raise _StopCounting

    def _text(self, text: str) -> str:
        """Why a formula's text is refused for its length alone (Excel's 8,192
        characters; all formulas together within :attr:`Limits.max_formula_characters`)."""
        if len(text) > _EXCEL_FORMULA_CHARACTERS:
            return (
                f"a formula of {len(text):,} characters, more than the "
                f"{_EXCEL_FORMULA_CHARACTERS:,} Excel allows"
            )
        if self.characters is not None:
            self.characters[0] -= len(text)
            if self.characters[0] < 0:
                return (
                    "the formulas and defined names together are longer than the "
                    f"{self.characters[1]:,} characters allowed"
                )
        return ""

    def _string_index(self, text: str) -> None:
        """A shared-string cell's index, read as openpyxl reads it (``int``)."""
        try:
            index = int(text)
        except ValueError:
            index = -1
        if index < 0 and not self.refused:
            self.refused = f"the cell's shared-string index {text[:40]!r} is not an index"
            self.refused_cell = self._cell
        if index > self.max_string:
            self.max_string, self.string_cell = index, self._cell

    def _reach(self, row: int, column: int, what: str) -> None:
        if row > self.max_row or column > self.max_column:
            self.far_cell = what
        self.max_row = max(self.max_row, row)
        self.max_column = max(self.max_column, column)


@functools.lru_cache(maxsize=1024)
def _local(tag: object) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _column_letters(column: int) -> str:
    letters = ""
    while column > 0:
        column, rest = divmod(column - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


class _StopCounting(Exception):
    """A part already over a limit: its parse stops (the vetting refuses the file)."""


@functools.lru_cache(maxsize=4096)  # a text repeated down a column is read once
def formula_problem(formula: str, recalculating: bool = True) -> str:
    """Why a formula's text is refused (empty if it is not): it would call another
    program or the network, reference whole rows or columns, or (``recalculating``)
    compute a reference while calculating (OFFSET, INDIRECT of a computed text), which
    the headless engine can neither evaluate nor follow for circular references.

    Read with openpyxl's formula tokenizer (string literals, quoted sheet names and
    structured references are its to tell apart); a DDE reference (``app|topic!item``,
    the application quoted or not) is a ``|`` outside string literals and quoted names.
    A formula the tokenizer cannot read (a spill reference ``A1#``) is checked on its
    text outside literals and quoted names."""
    from openpyxl.formula.tokenizer import Tokenizer

    text = formula if formula.startswith("=") else "=" + formula
    upper = text.upper()
    if ":" not in text and "|" not in text and not any(name in upper for name in _TRIGGERS):
        return ""  # no rule can apply: not worth tokenizing (most formulas)
    if "|" in text and "|" in _outside_quotes(text):
        return "a DDE formula (it would start another program) is refused"
    try:
        tokens = Tokenizer(text).items
    except Exception:  # TokenizerError, and what a malformed text makes it raise
        return _text_problem(text, recalculating)
    return _token_problem(tokens, recalculating)


def defined_name_problem(
    name: str, text: str, recalculating: bool = True, local_to_sheet: bool = False
) -> str:
    """Why a defined name's formula is refused: the rules of :func:`formula_problem`
    (a name is a formula every cell that uses it computes), except whole rows and columns
    in a sheet's own print titles and print area, which Excel writes so, and in any name
    of a workbook that is only read (a scenario XLSX: its names are never computed)."""
    problem = formula_problem(text, recalculating)
    if problem.startswith("the whole-row or whole-column") and (
        not recalculating or (local_to_sheet and name.upper() in _PRINT_NAMES)
    ):
        return ""
    return problem


def _outside_quotes(text: str) -> str:
    """``text`` without the contents of its string literals ("..."), quoted names
    ('...') and structured references' escaped characters (``Table1[a'#]``)."""
    kept: list[str] = []
    quote = ""
    depth = 0
    position = 0
    while position < len(text):
        char = text[position]
        if quote:
            if char == quote:
                if text[position + 1 : position + 2] == quote:
                    position += 2
                    continue
                quote = ""
                kept.append(char)
        elif depth:
            if char == "'":
                position += 1  # escapes the next character
            elif char == "[":
                depth += 1
            elif char == "]":
                depth -= 1
        else:
            if char in "\"'":
                quote = char
            elif char == "[":
                depth = 1
            kept.append(char)
        position += 1
    return "".join(kept)


def _token_problem(tokens: list[Any], recalculating: bool) -> str:
    from openpyxl.formula.tokenizer import Token

    significant = [token for token in tokens if token.type != Token.WSPACE]
    found: dict[int, str] = {}  # rank -> the first problem of that kind
    references: list[str] = []
    previous_range = False
    for number, token in enumerate(significant):
        is_range = token.type == Token.OPERAND and token.subtype == Token.RANGE
        if is_range:
            if previous_range and (references[-1].endswith(":") or token.value.startswith(":")):
                references[-1] += token.value
            else:
                references.append(token.value)
        previous_range = is_range
        if token.type != Token.FUNC or token.subtype != Token.OPEN:
            continue
        head, colon, called = token.value[:-1].rpartition(":")
        if colon:  # A1:OFFSET( is the range A1:OFFSET(...)
            references.append(head + ":")
        function, shorter = called.rpartition("!")[2].upper(), ""
        while shorter != function:  # _xlfn._xlws.SORT, @OFFSET
            shorter = function
            for prefix in _FUNCTION_PREFIXES:
                function = function.removeprefix(prefix)
        if function in _OUTSIDE_FUNCTIONS:
            found.setdefault(1, f"{function} (a call to another program or the network) is refused")
        literal = (
            number + 2 < len(significant)
            and significant[number + 1].type == Token.OPERAND
            and significant[number + 1].subtype == Token.TEXT
            and significant[number + 2].type == Token.FUNC
            and significant[number + 2].subtype == Token.CLOSE
        )
        if recalculating and (function == "OFFSET" or (function == "INDIRECT" and not literal)):
            found.setdefault(2, _dynamic_message(function))
    for reference in references:
        if _whole_line(reference):
            found.setdefault(3, _whole_line_message(reference.rstrip(":")))
            break
    return found[min(found)] if found else ""


def _whole_line(reference: str) -> bool:
    """A reference with a whole row or column as one of its corners (``A:A``,
    ``Sheet!$1:$1048576``, ``A1:B``)."""
    parts = _outside_quotes(reference).split(":")
    if len(parts) < 2:
        return False
    corners = [part.rpartition("!")[2].lstrip("@") for part in parts]
    return any(_COLUMN.fullmatch(c) or _ROW.fullmatch(c) for c in corners if c)


def _dynamic_message(function: str) -> str:
    taken = ' (INDIRECT of one quoted reference, INDIRECT("B1"), is taken)'
    return (
        f"{function} computes its reference while calculating: it cannot be recalculated"
        " here or checked for circular references; use INDEX(range, row, column) or a"
        f" direct reference{taken if function == 'INDIRECT' else ''}"
    )


def _whole_line_message(reference: str) -> str:
    return (
        f"the whole-row or whole-column reference {reference} cannot be recalculated "
        "exactly here; use an explicit range (A1:A1000)"
    )


def _text_problem(text: str, recalculating: bool) -> str:
    """The rules on a text the tokenizer cannot read (outside literals and quoted names)."""
    text = _STRING_LITERAL.sub('""', text)
    text = _QUOTED_SHEET.sub("Sheet!", text)
    called = _OUTSIDE_CALLS.search(text)
    if called:
        function = called.group(1).upper()
        return f"{function} (a call to another program or the network) is refused"
    dynamic = _OFFSET.search(text) if recalculating else None
    if dynamic is None and recalculating:
        dynamic = next(
            (m for m in _INDIRECT.finditer(text) if not _INDIRECT_LITERAL.match(text, m.end())),
            None,
        )
    if dynamic is not None:
        return _dynamic_message(dynamic.group(0).rstrip("( ").upper().removeprefix("_XLFN."))
    whole = _WHOLE_LINE.search(text)
    return _whole_line_message(whole.group(0)) if whole else ""


def _sheet_parts_or_empty(archive: zipfile.ZipFile) -> dict[str, str]:
    try:
        return sheet_parts(archive)
    except Exception:  # a malformed workbook part: the engine reports it
        return {}


def _check_sheets(
    name: str, stats: dict[str, SheetStats], titles: dict[str, str], limits: Limits
) -> None:
    """The sheets' declared and actual size within the limits; no refused formula."""
    cells = formulas = 0
    for part, counted in stats.items():
        where = titles.get(part, part)
        if counted.refused_name:
            raise UnsafeWorkbookError(f"{name}: {counted.refused}")
        if counted.refused:
            cell = f"!{counted.refused_cell}" if counted.refused_cell else ""
            raise UnsafeWorkbookError(f"{name}: {where}{cell}: {counted.refused}")
        for kind, rows, columns, at in (
            ("declares", counted.declared_rows, counted.declared_columns, counted.declared),
            ("has", counted.max_row, counted.max_column, counted.far_cell),
        ):
            if rows > limits.max_rows or columns > limits.max_columns:
                raise UnsafeWorkbookError(
                    f"{name}: sheet {where!r} {kind} {at}, beyond the {limits.max_rows:,} rows x "
                    f"{limits.max_columns:,} columns allowed (--max-rows, --max-columns)"
                )
            if rows * columns > limits.max_area:
                raise UnsafeWorkbookError(
                    f"{name}: sheet {where!r} {kind} {at}: {rows:,} x {columns:,} cells, more "
                    f"than the {limits.max_area:,} allowed (--max-area)"
                )
        cells += counted.cells
        formulas += counted.formulas
    if cells > limits.max_cells:
        raise UnsafeWorkbookError(
            f"{name}: more than the {limits.max_cells:,} cells allowed (--max-cells)"
        )
    if formulas > limits.max_formulas:
        raise UnsafeWorkbookError(
            f"{name}: more than the {limits.max_formulas:,} formulas allowed (--max-formulas)"
        )


_SHARED_STRINGS = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"


def _check_shared_strings(
    name: str, archive: zipfile.ZipFile, stats: dict[str, SheetStats], titles: dict[str, str]
) -> None:
    """Every shared-string cell refers to a string the workbook has (the part that
    ``[Content_Types].xml`` names, as openpyxl finds it; none: no strings)."""
    part = ""
    with contextlib.suppress(Exception):  # a malformed part: no shared strings found
        types = fromstring(archive.read("[Content_Types].xml"))
        for override in types:
            if override.get("ContentType") == _SHARED_STRINGS:
                part = str(override.get("PartName", "")).lstrip("/")
    held = stats[part].strings if part in stats else 0
    for sheet, counted in stats.items():
        if counted.max_string >= held:
            raise UnsafeWorkbookError(
                f"{name}: {titles.get(sheet, sheet)}!{counted.string_cell}: the cell refers to "
                f"shared string index {counted.max_string:,}; the workbook has {held:,} shared "
                "strings (a damaged or hand-made file)"
            )


# --------------------------------------------------------------------------- budgets


def _address_space() -> int | None:
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


@contextlib.contextmanager
def budgets(limits: Limits, what: str = "the recalculation") -> Iterator[None]:
    """Bound the block in time and memory; raises :class:`BudgetExceeded` past either.

    Time: a timer interrupts the block after :attr:`Limits.max_seconds` (main thread, on
    systems with ``signal.setitimer``; elsewhere the cell and formula limits bound it).
    Memory: the process may grow its address space by at most
    :attr:`Limits.max_memory_bytes` during the block (systems with ``resource`` and
    ``/proc``: Linux; elsewhere the size limits bound it).
    """
    import signal
    import threading

    if _BUDGETED:  # already inside a budget (the outer one bounds this block too)
        yield
        return
    _BUDGETED.append(True)
    restore: list[Any] = [_BUDGETED.pop]
    seconds = limits.max_seconds
    timed = (
        seconds is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if timed:

        def expire(_signum: int, _frame: object) -> None:
            raise _TimeUp

        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)  # type: ignore[arg-type]
        restore.append(
            lambda: (
                signal.setitimer(signal.ITIMER_REAL, 0),
                signal.signal(signal.SIGALRM, previous),
            )
        )
    memory = limits.max_memory_bytes
    current = _address_space() if memory is not None else None
    if memory is not None and current is not None:
        try:
            import resource

            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            cap = current + memory
            if hard == resource.RLIM_INFINITY or cap < hard:
                resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
                restore.append(lambda: resource.setrlimit(resource.RLIMIT_AS, (soft, hard)))
        except (ImportError, ValueError, OSError):
            pass
    try:
        yield
    except _TimeUp:
        raise BudgetExceeded(
            f"{what} took more than the {seconds:,.0f} s allowed (--max-seconds)"
        ) from None
    except (MemoryError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno != errno.ENOMEM:
            raise
        # a library that maps memory itself says ENOMEM (OSError) where Python says MemoryError
        raise BudgetExceeded(
            f"{what} needed more than the {_size(memory or 0)} of memory allowed (--max-memory-mb)"
        ) from None
    finally:
        for undo in reversed(restore):
            undo()


#: Non-empty while a budget is active (budgets do not nest: the outermost applies).
_BUDGETED: list[bool] = []


class _TimeUp(BaseException):
    """Raised by the timer inside the budgeted block (a BaseException: no library's
    ``except Exception`` swallows it)."""


@contextlib.contextmanager
def vetted_copy(vetted: VettedWorkbook) -> Iterator[Path]:
    """The vetted bytes as a file alone in a fresh private directory, for libraries that
    need a path. Nothing else is in that directory, so a relative external reference
    finds nothing there; the engine refuses other workbooks in any case."""
    suffix = (
        vetted.path.suffix.lower() if vetted.path.suffix.lower() in (".xlsx", ".xlsm") else ".xlsx"
    )
    stem = (
        "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in vetted.path.stem) or "workbook"
    )
    with tempfile.TemporaryDirectory(prefix="nj-incentives-") as tmp:
        copy = Path(tmp) / f"{stem}{suffix}"
        copy.write_bytes(vetted.data)
        yield copy


# --------------------------------------------------------------------------- reading parts

_MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def sheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    """Sheet title -> the name of its worksheet part in a (vetted) archive."""
    workbook = fromstring(archive.read("xl/workbook.xml"))
    rels_name = "xl/_rels/workbook.xml.rels"
    targets: dict[str, str] = {}
    if rels_name in archive.namelist():
        for rel in fromstring(archive.read(rels_name)):
            target = rel.get("Target", "")
            if target.startswith("/"):
                part = target.lstrip("/")
            else:
                part = posixpath.normpath(posixpath.join("xl", target))
            targets[rel.get("Id", "")] = part
    parts = {}
    for sheet in workbook.iter(f"{{{_MAIN_NS}}}sheet"):
        rid = sheet.get(f"{{{_REL_NS}}}id", "")
        if rid in targets:
            parts[sheet.get("name", "")] = targets[rid]
    return parts


def dynamic_arrays(vetted: VettedWorkbook) -> dict[tuple[str, str], str]:
    """The dynamic-array formulas of a vetted workbook: (sheet title, anchor) -> the range
    it spilled into when saved. Excel marks them with cell metadata (``cm``) on the anchor
    of an array formula; a legacy array formula ({=...}) has none."""
    return array_formulas(vetted, dynamic_only=True)


def array_formulas(
    vetted: VettedWorkbook, *, dynamic_only: bool = False
) -> dict[tuple[str, str], str]:
    """Every array formula, dynamic or legacy (only the dynamic ones with
    ``dynamic_only``): (sheet title, anchor) -> its range."""
    from xml.parsers import expat

    found: dict[tuple[str, str], str] = {}
    with zipfile.ZipFile(io.BytesIO(vetted.data)) as archive:
        for title, part in sheet_parts(archive).items():
            if part not in archive.namelist():
                continue
            state: dict[str, str | None] = {"cell": None}

            def start(
                name: str,
                attrs: dict[str, str],
                title: str = title,
                state: dict[str, str | None] = state,
            ) -> None:
                local = name.rpartition(":")[2]
                if local == "c":
                    marked = "cm" in attrs or not dynamic_only
                    state["cell"] = attrs.get("r") if marked else None
                elif local == "f" and state["cell"] and attrs.get("t") == "array":
                    found[(title, state["cell"])] = attrs.get("ref", state["cell"])

            parser = expat.ParserCreate()
            parser.StartElementHandler = start
            parser.Parse(archive.read(part), True)
    return found
