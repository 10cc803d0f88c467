"""A small layer over xlsxwriter for template workbooks in the FAST / ICAEW style.

Every template has the same sheets, in this order:

- **About**: what the workbook does, the package version, the law it is current to,
  how to enable the NJ_* functions in each runtime, the colour key, the sheet map;
- **Inputs**: every assumption, in ONE input style (blue on pale yellow, unlocked), each
  with its units and data validation, and a workbook-level name;
- **Calculations**: formulas only, no typed constants; tables come from the NJ_* array
  functions as dynamic-array formulas saved over explicit ranges (Excel 365 spills them;
  the headless engine recalculates them over the saved range: see
  :mod:`nj_incentives.workpapers.recalc.engine` for why), written on the sheet's hidden
  companion (``Calculations NJ``) at the same cells and shown here by ordinary formulas
  (:meth:`SheetWriter.array`), so that an application without the NJ_* functions
  (LibreOffice) prints their saved values; the figures' formulas read the companion;
- **Outputs**: the results a reader needs and a native chart;
- **Checks**: one TRUE/FALSE line per check (each wrapped in ``IFERROR(..., FALSE)`` so
  an error fails the check instead of hiding it), and the master check
  ``=AND(...)`` named ``MasterCheck``;
- the companion sheets (hidden, protected, never printed), one per sheet of tables;
- **xlwings.conf**: ``UDF Modules = nj_incentives.excel`` in A1:B1, which the classic
  xlwings add-in reads (keys in column A from A1 down, values in column B; a key present
  there overrides the add-in's own setting, so nothing else is written in column A).

Every sheet is protected without a password (protection guards against accidents; the
About sheet says so); only input cells are unlocked. The build is deterministic: fixed
document properties and creation date, and xlsxwriter's fixed zip timestamps, so a
rebuild of the same template is byte-for-byte the same file with the same xlsxwriter.

A template declares what it holds (:mod:`nj_incentives.core.workpaper`, the schema: its
line items, the sheet names, the engagement and sign-off fields) and this engine writes
it: :meth:`TemplateBuilder.lay_out` interprets the line items, each written on its sheet
below what is there; no template touches a worksheet, and none counts rows.
:func:`build_template` writes a template module's :class:`~nj_incentives.core.workpaper.Workpaper`.
The addresses (:class:`Ref`, :class:`TableRefs`) are the engine's: a declaration names
what it reads, the engine finds where it is.

A declared formula names what it reads: a defined name, or a reference the builder
replaces by the address (:meth:`TemplateBuilder.resolve`: ``[[at:Withholdings:row]]`` the
same row's withholdings, ``[[data:Schedule:Grant]]`` a column of a named table...).

Every figure a template shows comes from an NJ_* function: a rule of law, a reading of
it or a switch between readings is computed by the core, never by an Excel formula. What
a formula around the NJ_* results may do is presentation only, and limited to:

- show an NJ_* result's cell (a spilled table's cell, its first row or its last with
  INDEX/COUNT, :data:`NOT_COMPUTED` when the table has no row) or an
  input again for the reader (the conversion template's liabilities beside the credits);
- blank a row no input fills (``IF(ISNUMBER(year), ..., "")``, ``IF(ISBLANK(end), "", ...)``),
  read a blank amount as none (``IF(ISBLANK(x), 0, x)``), or skip a function the inputs
  say does not apply (no sale proposed, no election made: no figure, or 0 owed);
- foot an NJ_* result: totals (:class:`Total`: ``SUM``, or :data:`NOT_COMPUTED` when a cell
  is not a number), the conversion matrix (``SUMIFS`` of the schedules by tax year and
  accrual year, and its row totals), a count of the years with a result above 0;
- check: each line of the Checks sheet compares NJ_* results, totals and inputs.

Usage::

    TEMPLATE = (
        Title("Inputs"),
        Section("Grant agreement"),
        Item("Grant percentage", "GrantPct", Kind.PERCENT, "%", key="pct", maximum=0.8),
        InputTable(YEARS, (Column("Withholdings", Kind.MONEY, "$", name="W", key="w"),)),
        Title("Calculations", sheet=CALCULATIONS),
        ArrayTable("NJ_BEIP_GRANT_SCHEDULE(W,...)", COLUMNS, rows=10, name="Schedule"),
        Total("Total grant", "[[data:Schedule:Grant]]", name="TotalGrant"),
        Check.equal("The grants sum to the total", "SUM([[data:Schedule:Grant]])", "TotalGrant"),
    )
    with TemplateBuilder(path, title="BEIP grant schedule", template_id="beip-grant") as b:
        b.lay_out(TEMPLATE, {"pct": 0.5, "w": [600000, 650000]})

or, for a template module (``programs/beip/templates/grant.py``)::

    build_template(grant, path, grant.EXAMPLE)
"""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import xlsxwriter
from xlsxwriter.utility import xl_rowcol_to_cell
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from nj_incentives.core.cells import quote_sheet
from nj_incentives.core.workpaper import (
    ABOUT,
    ALL_ENGAGEMENT_FIELDS,
    CALCULATIONS,
    CENT_TOLERANCE,
    CHECKS,
    CONFIG,
    ENGAGEMENT_FIELDS,
    INPUTS,
    INPUTS_HASH,
    NOT_COMPUTED,
    NUMERIC_KINDS,
    OUTPUTS,
    PRINTED_ROWS,
    SIGNOFF_CHANGED,
    SIGNOFF_CURRENT,
    SIGNOFF_INPUTS,
    SIGNOFF_NO_DATE,
    SIGNOFF_NO_HASH,
    SIGNOFF_NOT_COMPUTED,
    SIGNOFF_NOT_SIGNED,
    SIGNOFF_ROLES,
    SIGNOFF_STATUS,
    SIGNOFF_UNCHANGED,
    SIGNOFF_UNKNOWN,
    SOURCE_SUFFIX,
    TICK_SUFFIX,
    TICKMARKS,
    UNPRINTED_SHEETS,
    ArrayTable,
    Chart,
    Check,
    Column,
    FormulaTable,
    InputTable,
    Kind,
    LineItem,
    Note,
    Section,
    Skip,
    SourceHeading,
    Span,
    Spill,
    Title,
    Total,
    Workpaper,
    companion,
)
from nj_incentives.runtimes import setup_steps
from nj_incentives.version import LAW_CURRENT_TO, __version__
from nj_incentives.workpapers.templates import page

__all__ = [
    "BUILD_DATE",
    "FONT",
    "UDF_MODULE",
    "Ref",
    "SheetWriter",
    "TableRefs",
    "Template",
    "TemplateBuilder",
    "audit",
    "build_template",
    "fingerprint",
    "nth_cell",
    "numbers_only",
    "source_name",
    "validation",
]

#: The creation date written into every template (a rebuild must not change the file).
BUILD_DATE = dt.datetime(2025, 1, 1)


#: The module the classic add-in imports (the ``UDF Modules`` setting).
UDF_MODULE = setup_steps.UDF_MODULE


#: An Office.js custom-functions namespace (manifest ``<Namespace>``: at most 32
#: characters; sub-namespaces are separated by dots).
_FUNCTION_NAMESPACE = re.compile(r"(?=.{1,32}$)[A-Z][A-Z0-9_]*(?:\.[A-Z][A-Z0-9_]*)*")

#: The row (0-based) of every sheet's engagement band, below its title and subtitle.
BAND_ROW = 2
#: A column this wide (characters) or wider wraps the sources written beside figures.
SOURCE_WIDTH = 30
#: The width of the About sheet's text column, characters.
ABOUT_TEXT_WIDTH = 95.0

#: A check's number format: TRUE for a number other than 0, FALSE for 0.
CHECK_FORMAT = '"TRUE";"TRUE";"FALSE"'

NUMBER_FORMATS: dict[Kind, str] = {
    Kind.MONEY: "#,##0.00;[Red]-#,##0.00",
    Kind.PERCENT: "0.00%",
    Kind.DATE: "yyyy-mm-dd",
    Kind.COUNT: "#,##0",
    Kind.YEAR: "0",
    Kind.NUMBER: "#,##0.00########",
    Kind.YESNO: "@",
    Kind.CHOICE: "@",
    Kind.TEXT: "@",
    # a check's cached value is stored as the number 1 or 0 (cached.py: LibreOffice drops
    # a cached boolean): shown TRUE or FALSE as Excel shows a boolean (which ignores it)
    Kind.CHECK: CHECK_FORMAT,
}

#: The characters the engagement band's height leaves room for, per field, when the
#: workbook is built without them (a realistic long client, firm names with credentials):
#: the band is one merged row, which Excel does not autofit to what is typed later.
BAND_ROOM = {
    "client": 60,
    "entity_id": 20,
    "period": 40,
    "preparer": 45,
    "reviewer": 45,
    "date": 10,
}

#: The headers of the tickmark and source columns.
TICK_HEADER, SOURCE_HEADER = "Tick", "Source (document, date, reference)"
SOURCE_COLUMN_WIDTH = 34.0
TICK_COLUMN_WIDTH = 6.0

#: The letter of each input kind in the inputs hash's ``kinds``
#: (nj_incentives.functions.inputs_hash).
_HASH_KINDS: dict[Kind, str] = {
    Kind.TEXT: "t",
    Kind.MONEY: "m",
    Kind.PERCENT: "p",
    Kind.DATE: "d",
    Kind.COUNT: "c",
    Kind.YEAR: "y",
    Kind.NUMBER: "n",
    Kind.YESNO: "b",
    Kind.CHOICE: "h",
}

#: The defined name of the engagement band's text (on Inputs; every sheet shows it).
ENGAGEMENT_LINE = "EngagementLine"

#: The workbook's font: Arial 10 (Excel's metrics for it are LibreOffice's for its
#: metric twin, Liberation Sans; Calibri has no such twin installed by default).
FONT, FONT_SIZE = "Arial", page.FONT_SIZE

# The palette: one input style, and the conventional FAST roles.
INPUT_FONT = "#0000FF"
INPUT_FILL = "#FFF2CC"
HEADER_FILL = "#1F3864"
SECTION_FILL = "#D9E1F2"
OUTPUT_FILL = "#E2EFDA"
UNIT_FONT = "#595959"
CHECK_OK_FILL = "#C6EFCE"
CHECK_OK_FONT = "#006100"
CHECK_FAIL_FILL = "#FFC7CE"
CHECK_FAIL_FONT = "#9C0006"
#: What a refusal check's line adds after its subject when a cell is refused (then the
#: cell, its value, the rule and citation: NJ_INPUT_REFUSED's text).
REFUSED = "; the first cell refused: "
#: Characters of that text a refusal check's printed row leaves room for.
REFUSAL_ROOM = 110
#: A stand-in of that many characters for the row's height: words of digits (wider than
#: most letters), broken at spaces as a message is.
REFUSAL_TEXT = ("0000 " * REFUSAL_ROOM)[:REFUSAL_ROOM]
BORDER_COLOR = "#BFBFBF"

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
#: ``[[cell:Header]]`` and the like: a formula's reference to its own table's cells
_TABLE_REFERENCE = re.compile(r"\[\[([a-z]+(?::[^\]:]+)+)\]\]")
_CELL_LIKE = re.compile(r"^(?:[A-Za-z]{1,3}\d+|[Rr]\d*[Cc]\d*)$")


# --------------------------------------------------------------------------- references


@dataclass(frozen=True)
class Ref:
    """A cell or a rectangular range on a sheet (0-based row and column, inclusive)."""

    sheet: str
    row: int
    col: int
    last_row: int | None = None
    last_col: int | None = None

    @property
    def bottom(self) -> int:
        return self.row if self.last_row is None else self.last_row

    @property
    def right(self) -> int:
        return self.col if self.last_col is None else self.last_col

    @property
    def rows(self) -> int:
        return self.bottom - self.row + 1

    @property
    def cols(self) -> int:
        return self.right - self.col + 1

    @property
    def is_cell(self) -> bool:
        return self.rows == self.cols == 1

    def _span(self, absolute: bool) -> str:
        first = str(xl_rowcol_to_cell(self.row, self.col, absolute, absolute))
        if self.is_cell:
            return first
        return first + ":" + str(xl_rowcol_to_cell(self.bottom, self.right, absolute, absolute))

    @property
    def local(self) -> str:
        """``$C$5`` or ``$C$5:$C$14`` (same-sheet formulas)."""
        return self._span(True)

    @property
    def a(self) -> str:
        """``Inputs!$C$5`` (formulas on any sheet)."""
        return f"{quote_sheet(self.sheet)}!{self._span(True)}"

    @property
    def a1(self) -> str:
        """``Inputs!C5`` without dollars (for messages and reports)."""
        return f"{quote_sheet(self.sheet)}!{self._span(False)}"

    def cell(self, i: int = 0, j: int = 0) -> Ref:
        """The cell ``i`` rows down and ``j`` columns right of the top left."""
        if not (0 <= i < self.rows and 0 <= j < self.cols):
            raise IndexError(f"({i}, {j}) is outside {self.a1}")
        return Ref(self.sheet, self.row + i, self.col + j)

    def column(self, j: int) -> Ref:
        if not 0 <= j < self.cols:
            raise IndexError(f"column {j} is outside {self.a1}")
        return Ref(self.sheet, self.row, self.col + j, self.bottom, self.col + j)

    def line(self, i: int) -> Ref:
        """Row ``i`` (0-based) of the range, all its columns."""
        if not 0 <= i < self.rows:
            raise IndexError(f"row {i} is outside {self.a1}")
        return Ref(self.sheet, self.row + i, self.col, self.row + i, self.right)

    def span(self, first: int, last: int) -> Ref:
        """Columns ``first`` to ``last`` (0-based, inclusive) of the range."""
        if not 0 <= first <= last < self.cols:
            raise IndexError(f"columns {first}-{last} are outside {self.a1}")
        return Ref(self.sheet, self.row, self.col + first, self.bottom, self.col + last)

    def body(self, header_rows: int = 1) -> Ref:
        """The range without its first ``header_rows`` rows."""
        return Ref(self.sheet, self.row + header_rows, self.col, self.bottom, self.right)

    def cells(self) -> Iterator[Ref]:
        for r in range(self.row, self.bottom + 1):
            for c in range(self.col, self.right + 1):
                yield Ref(self.sheet, r, c)

    def chart_range(self) -> list[Any]:
        return [self.sheet, self.row, self.col, self.bottom, self.right]


def nth_cell(qualified: str, n: int) -> str:
    """The n-th cell (0-based) of a one-column range given as ``Sheet!$C$12:$C$21``."""
    sheet, _, cells = qualified.rpartition("!")
    first = cells.split(":")[0]
    column = first.split("$")[1]
    row = int(first.split("$")[2]) + n
    return f"{sheet}!${column}${row}"


class TableRefs(dict[str, Ref]):
    """The data range of each column of a table, by header; ``header`` is the header
    row over the table's value columns."""

    def __init__(self, columns: Mapping[str, Ref], header: Ref) -> None:
        super().__init__(columns)
        self.header = header


# --------------------------------------------------------------------------- line items


#: A reference to a named range or table in a declared formula: ``[[kind:part:...]]``
#: (parts may be empty: a slice ``1:``), resolved by :meth:`TemplateBuilder.resolve`
_REFERENCE = re.compile(r"\[\[([a-z]+)((?::[^\]:]*)*)\]\]")
#: the kinds of reference a table of formulas resolves itself (its own cells, by header)
_OWN_TABLE_KINDS = frozenset({"cell", "row", "column", "header"})

#: An NJ_* function call in a formula (spelled with the template's namespace)
_NJ_CALL = re.compile(r"(?<![A-Za-z0-9_.])(NJ_[A-Z0-9_]+)\(")
#: an NJ_* function called, however spelled (``XLWINGS.NJ_BEIP_GRANT(``)
_NJ_NAME = re.compile(r"(?<![A-Za-z0-9_])(NJ_[A-Z0-9_]+)\(")


# --------------------------------------------------------------------------- styles


class Styles:
    """The workbook's formats, created once per (role, kind)."""

    ROLES = (
        "input",
        "input_tick",
        "input_source",
        "tick_key",
        "plain",
        "calc",
        "output",
        "total",
        "header",
        "label",
        "unit",
        "title",
        "subtitle",
        "subtitle_wrapped",
        "section",
        "note",
        "check",
        "link",
        "band",
        "source",
    )

    def __init__(self, workbook: Workbook) -> None:
        self.workbook = workbook
        self._cache: dict[tuple[str, Kind | None], Any] = {}

    def __call__(self, role: str, kind: Kind | None = None) -> Any:
        key = (role, kind)
        if key not in self._cache:
            self._cache[key] = self.workbook.add_format(self._properties(role, kind))
        return self._cache[key]

    @staticmethod
    def _properties(role: str, kind: Kind | None) -> dict[str, Any]:
        props: dict[str, Any] = {"font_name": FONT, "font_size": FONT_SIZE, "valign": "top"}
        if kind is not None:
            props["num_format"] = NUMBER_FORMATS[kind]
        if role == "input_key":  # the colour key's sample of the input style: locked
            props.update(
                font_color=INPUT_FONT, bg_color=INPUT_FILL, border=1, border_color=BORDER_COLOR
            )
        elif role in ("input", "input_tick", "input_source"):
            props.update(
                font_color=INPUT_FONT,
                bg_color=INPUT_FILL,
                border=1,
                border_color=BORDER_COLOR,
                locked=False,
            )
            if role == "input_tick":
                props.update(align="center", bold=True)
            elif role == "input_source":
                props.update(italic=True)
        elif role == "tick_key":
            props.update(bold=True, align="center", font_color=INPUT_FONT)
        elif role == "output":
            props.update(bg_color=OUTPUT_FILL, border=1, border_color=BORDER_COLOR)
        elif role == "total":
            props.update(bold=True, top=1, bottom=6)
        elif role == "header":
            props.update(
                bold=True,
                font_color="#FFFFFF",
                bg_color=HEADER_FILL,
                text_wrap=True,
                align="center",
                valign="vcenter",
            )
        elif role == "unit":
            props.update(italic=True, font_color=UNIT_FONT)
        elif role == "title":
            props.update(bold=True, font_size=14, font_color=HEADER_FILL)
        elif role == "subtitle":
            props.update(italic=True, font_color=UNIT_FONT)
        elif role == "subtitle_wrapped":
            props.update(italic=True, font_color=UNIT_FONT, text_wrap=True)
        elif role == "section":
            props.update(bold=True, bg_color=SECTION_FILL)
        elif role == "note":
            props.update(text_wrap=True)
        elif role == "check":
            props.update(bold=True, align="center", border=1, border_color=BORDER_COLOR)
        elif role == "link":
            props.update(font_color="#375623")
        elif role == "label":
            props.update(text_wrap=True)
        elif role == "source":
            props.update(italic=True, font_color=UNIT_FONT, text_wrap=True)
        elif role == "band":
            props.update(
                bold=True,
                font_color=HEADER_FILL,
                text_wrap=True,
                bottom=1,
                bottom_color=HEADER_FILL,
            )
        return props


# --------------------------------------------------------------------------- sheets


class SheetWriter:
    """Writes one sheet top to bottom: label in A, units in B, values from C."""

    LABEL, UNIT, VALUE = 0, 1, 2

    def __init__(self, builder: TemplateBuilder, worksheet: Worksheet) -> None:
        self.builder = builder
        self.ws = worksheet
        self.name = worksheet.get_name()
        self.row = 0
        self.widths: dict[int, float] = {self.LABEL: 46, self.UNIT: 12, self.VALUE: 16}
        self.numeric_ranges: list[Ref] = []
        #: row -> height (points) set at :meth:`finish`
        self.heights: dict[int, float] = {}
        #: (row, text, column, bold) of each wrapped label: its row grows to fit
        self.wrapped: list[tuple[int, str, int, bool]] = []
        #: (row, col, text) of each note, merged across the sheet at :meth:`finish`
        self.notes: list[tuple[int, int, str]] = []
        #: rows where a section starts: page breaks keep a section on one page if it fits
        self.blocks: list[int] = []
        self.max_col = self.VALUE
        #: a section heading waits for its table (they print on one page)
        self._heading = False
        #: None: portrait or landscape, whichever prints larger
        self.landscape: bool | None = None
        #: the last row of a table header repeated with the print titles (see
        #: :meth:`input_table`'s ``repeat_header``); None: the title rows only
        self.repeat_through: int | None = None
        #: the last input table written: its rows (a :class:`Ref` from its first column
        #: to its last, below the header and units) and the last row filled (None:
        #: nothing given, the table prints whole as a form); see :meth:`printed_last_row`
        self.last_table: tuple[Ref, int | None] | None = None

    # -- text
    def title(self, text: str, subtitle: str = "") -> None:
        """The sheet's title (row 1), subtitle (row 2) and the engagement band (row 3):
        the three rows repeated at the top of every printed page. On the Inputs sheet the
        engagement fields follow."""
        self.ws.write_string(0, 0, text, self.builder.style("title"))
        self.heights[0] = 24
        if subtitle:
            self.ws.write_string(1, 0, subtitle, self.builder.style("subtitle"))
        self.row = BAND_ROW + 2
        if self.name == INPUTS:
            self.builder.write_engagement(self)

    def section(self, text: str, width: int = 3) -> None:
        self.blocks.append(self.row)
        self._heading = True
        for col in range(width):
            self.ws.write_blank(self.row, col, None, self.builder.style("section"))
        self.ws.write_string(self.row, 0, text, self.builder.style("section"))
        self.max_col = max(self.max_col, width - 1)
        self.row += 1

    def note(self, text: str, col: int = 0) -> None:
        """A line of instructions, wrapped across the sheet's width (its row grows to
        fit, so it never runs into the table below)."""
        self.notes.append((self.row, col, text))
        self.row += 1

    def source_heading(self, text: str, width: float) -> None:
        """A heading over the sources written beside the figures below (:meth:`formula`'s
        ``source``), in a column ``width`` characters wide."""
        self.ws.write_string(self.row, self.VALUE + 1, text, self.builder.style("section"))
        self.row += 1
        self.width(self.VALUE + 1, width)

    def skip(self, rows: int = 1) -> None:
        self.row += rows

    def source_cells(self, first: int, last: int, col: int, name: str) -> None:
        """The tickmark (column ``col``) and source (``col + 1``) inputs of rows ``first``
        to ``last``, named ``<name>Tick`` and ``<name>Source``, their values from the
        builder's ``values["sources"]`` by those names (a text, or one per row)."""
        given = self.builder.sources
        for offset, suffix, kind_help in (
            (
                0,
                TICK_SUFFIX,
                "Tickmark: one or more letters of the legend on Inputs "
                f"({', '.join(mark for mark, _ in TICKMARKS)}).",
            ),
            (
                1,
                SOURCE_SUFFIX,
                "Where the value comes from: the document, its date and reference (e.g. "
                "NJEDA approval letter 2010-01-05, certificate number, WR-30 quarter).",
            ),
        ):
            where = Ref(self.name, first, col + offset, last, col + offset)
            shown = given.get(name + suffix)
            texts = list(shown) if isinstance(shown, (list, tuple)) else [shown]
            for i, cell in enumerate(where.cells()):
                text = texts[i] if i < len(texts) else None
                style = self.builder.style("input_source" if offset else "input_tick", Kind.TEXT)
                if text is None or text == "":
                    self.ws.write_blank(cell.row, cell.col, None, style)
                else:
                    self.ws.write_string(cell.row, cell.col, str(text), style)
            self.ws.data_validation(
                where.row,
                where.col,
                where.bottom,
                where.col,
                validation(
                    Kind.TEXT,
                    TICK_HEADER if offset == 0 else "Source",
                    help=kind_help,
                ),
            )
            self.builder.define_name(name + suffix, where)
            if where.col not in self.widths:  # never narrows or widens a table's column
                # a long table printed on pages of its own (the roster) keeps its scale
                source = SOURCE_COLUMN_WIDTH if self.repeat_through is None else 18.0
                self.width(where.col, source if offset else TICK_COLUMN_WIDTH)
            self.max_col = max(self.max_col, where.col)

    def block(self) -> None:
        """A table starts: with the heading above it, or a block of its own."""
        if not self._heading:
            self.blocks.append(self.row)
        self._heading = False

    def narrow_labels(self, label: float, unit: float) -> None:
        """Narrower label and unit columns (a sheet holding one table with short row
        labels and its units in a row of their own)."""
        self.widths[self.LABEL], self.widths[self.UNIT] = label, unit

    def width(self, col: int, width: float) -> None:
        self.widths[col] = max(self.widths.get(col, 0), width)
        self.max_col = max(self.max_col, col)

    # -- inputs
    def input(
        self,
        label: str,
        name: str,
        kind: Kind,
        unit: str,
        value: object = None,
        *,
        choices: Sequence[str] = (),
        minimum: float | dt.date | None = None,
        maximum: float | dt.date | None = None,
        help: str = "",
        prompt: str = "",
        hashed: bool = True,
        sourced: bool = True,
    ) -> Ref:
        """One input cell: label, units, the value in the input style, its validation and
        its workbook-level ``name``. ``prompt``: the input prompt's title, for a label
        longer than Excel's 32 characters (the label then opens the prompt's text).
        ``hashed``: part of the inputs hash a sign-off stores (not the sign-off's own
        cells); ``sourced``: with a tickmark and a source cell to its right
        (``<name>Tick``, ``<name>Source``)."""
        ref = Ref(self.name, self.row, self.VALUE)
        self._label_unit(label, unit)
        self._write_value(ref, value, kind, "input")
        if hashed:
            self.builder.hashed.append((ref, kind, True))
        if sourced:
            self.source_cells(ref.row, ref.row, self.VALUE + 1, name)
        self.ws.data_validation(
            ref.row,
            ref.col,
            ref.row,
            ref.col,
            validation(
                kind,
                label,
                choices=choices,
                minimum=minimum,
                maximum=maximum,
                help=help,
                prompt=prompt,
            ),
        )
        self.builder.input_cells.append(ref)
        self.builder.define_name(name, ref)
        self.row += 1
        return ref

    def input_table(
        self,
        row_labels: Sequence[str],
        columns: Sequence[Column],
        values: Mapping[str, Sequence[object]] | None = None,
        *,
        label_header: str = "",
        leading: Sequence[tuple[Column, Sequence[str]]] = (),
        repeat_header: bool = False,
        leading_values: Sequence[Sequence[object] | None] = (),
        source: str = "",
    ) -> dict[str, Ref]:
        """A table of inputs: a header row, a units row, one row per label; each column
        validated and named (``Column.name``). Returns the data range of each column by
        header. ``leading``: formula columns (one formula per row, locked) written
        before the input columns, e.g. a name shown again from another sheet.

        ``repeat_header``: the table runs over several printed pages and its header and
        units rows repeat under the print titles on every page. Excel repeats one set of
        rows per sheet, so the table must be the sheet's only one and start right below
        the engagement band (a sheet of its own, after its :meth:`title`)."""
        values = values or {}
        if repeat_header:
            if self.repeat_through is not None or self.row > BAND_ROW + 2 or self.blocks:
                raise ValueError(
                    f"{self.name}: a table whose header repeats on every page must be the "
                    f"sheet's only one, right below the engagement band (row {BAND_ROW + 3}), "
                    f"not at row {self.row + 1}"
                )
            self.repeat_through = self.row + 1  # the header and the units rows
        self.block()
        offset = len(leading)
        self._table_header(label_header, [column for column, _ in leading] + list(columns))
        first = self.row
        for i, row_label in enumerate(row_labels):
            self.ws.write_string(first + i, self.LABEL, row_label)
        found: dict[str, Ref] = {}
        for j, (column, formulas) in enumerate(leading):
            col = self.VALUE + j
            cached = leading_values[j] if j < len(leading_values) else None
            for i, text in enumerate(formulas[: len(row_labels)]):
                style = self.builder.style("calc", column.kind)
                if cached is None:  # xlsxwriter's cached result: 0
                    self.ws.write_formula(first + i, col, _formula(text), style)
                else:  # the value it shows, or "" (blank) below the last one given
                    value = cached[i] if i < len(cached) and cached[i] is not None else ""
                    self.ws.write_formula(first + i, col, _formula(text), style, value)
            self.width(col, column.width)
            ref = Ref(self.name, first, col, first + len(row_labels) - 1, col)
            if column.name:
                self.builder.define_name(column.name, ref)
            found[column.header] = ref
        for j, column in enumerate(columns):
            col = self.VALUE + offset + j
            ref = Ref(self.name, first, col, first + len(row_labels) - 1, col)
            given = list(values.get(column.header, ()))
            for i in range(len(row_labels)):
                cell = ref.cell(i, 0)
                self._write_value(cell, given[i] if i < len(given) else None, column.kind, "input")
                self.builder.input_cells.append(cell)
                self.builder.hashed.append((cell, column.kind, False))
            self.ws.data_validation(
                ref.row,
                ref.col,
                ref.bottom,
                ref.col,
                validation(
                    column.kind,
                    column.header,
                    choices=column.choices,
                    minimum=column.minimum,
                    maximum=column.maximum,
                    help=column.help,
                    prompt=column.prompt,
                ),
            )
            self.width(col, column.width)
            if column.name:
                self.builder.define_name(column.name, ref)
            found[column.header] = ref
        if source:
            right = self.VALUE + offset + len(columns)
            for col, text in ((right, TICK_HEADER), (right + 1, SOURCE_HEADER)):
                self.ws.write_string(first - 2, col, text, self.builder.style("header"))
                self.wrapped.append((first - 2, text, col, True))
                self.ws.write_string(first - 1, col, "", self.builder.style("unit"))
            self.source_cells(first, first + len(row_labels) - 1, right, source)
        right = self.max_col if source else self.VALUE + offset + len(columns) - 1
        body = Ref(self.name, first, self.VALUE, first + len(row_labels) - 1, right)
        self.last_table = (body, _last_filled(first, values, leading_values, self.builder, source))
        self.row = first + len(row_labels) + 1
        return found

    # -- calculations and outputs
    def formula(
        self,
        label: str,
        formula: str,
        kind: Kind,
        unit: str,
        *,
        name: str | None = None,
        role: str = "calc",
        source: str = "",
    ) -> Ref:
        """One formula cell with its label and units (``role``: calc, output or total);
        ``source``: where the figure goes on the form, or the law it comes from, written
        to the right of the value."""
        ref = Ref(self.name, self.row, self.VALUE)
        self._label_unit(label, unit)
        self.ws.write_formula(ref.row, ref.col, _formula(formula), self.builder.style(role, kind))
        if source:
            # wrapped in a column wide enough for it; else running on over the empty
            # cells to its right
            wide = self.widths.get(ref.col + 1, 0) >= SOURCE_WIDTH
            style = self.builder.style("source" if wide else "unit")
            self.ws.write_string(ref.row, ref.col + 1, source, style)
            if wide:
                self.wrapped.append((ref.row, source, ref.col + 1, False))
            self.max_col = max(self.max_col, ref.col + 1)
        if kind in NUMERIC_KINDS:
            self.numeric_ranges.append(ref)
        if name:
            self.builder.define_name(name, ref)
        self.row += 1
        return ref

    def total(
        self,
        label: str,
        ref: Ref,
        kind: Kind = Kind.MONEY,
        unit: str = "$",
        *,
        name: str | None = None,
        role: str = "total",
    ) -> Ref:
        """The sum of ``ref``, or a message when any of its cells is not a number.

        Excel's SUM skips text, and a rejected input shows as text: a plain SUM would
        turn an invalid schedule into a total of 0. This total shows
        :data:`NOT_COMPUTED` instead, so outputs and checks that use it fail visibly."""
        conditions = [numbers_only(ref)]
        conditions += [ok for table, ok in self.builder.tables.items() if _inside(ref, table)]
        test = conditions[0] if len(conditions) == 1 else f"AND({','.join(conditions)})"
        formula = f'IF({test},SUM({ref.a}),"{NOT_COMPUTED}")'
        return self.formula(label, formula, kind, unit, name=name, role=role)

    def array_table(
        self,
        formula: str,
        columns: Sequence[Column],
        rows: int,
        *,
        header_from_function: bool = True,
        label: str = "",
        row_labels: Sequence[str | int] = (),
        label_header: str = "",
        role: str = "calc",
        name: str | None = None,
        dynamic: bool = True,
        lines: int = 1,
    ) -> Ref:
        """A table-returning function as an array formula over an explicit range.

        ``rows`` is the largest number of data rows the function can return. With
        ``header_from_function`` the function returns its own header row, which is the
        range's first row; otherwise the builder writes the column headers above the
        range. Returns the whole range (header included when the function returns it).

        ``dynamic`` (the default) writes a dynamic-array formula saved over the range:
        Excel 365 spills the actual result (a shorter table leaves the rest of the range
        blank) and the headless engine does the same; Excel 2019 and earlier show it as a
        legacy array formula, with #N/A below a shorter table. ``dynamic=False`` writes a
        legacy array formula ``{=F()}`` (#N/A padding everywhere). ``lines``: each data
        row that many lines high (a table of sentences, its ``role`` one that wraps: note)."""
        if label:
            self.section(label, width=self.VALUE + len(columns))
        self.block()
        top = self.row
        if not header_from_function:
            self._table_header("", columns, units=True)
            top = self.row
        elif any(c.unit for c in columns):
            for j, column in enumerate(columns):
                self.ws.write_string(top, self.VALUE + j, column.unit, self.builder.style("unit"))
            top += 1
        data_top = top + (1 if header_from_function else 0)
        if header_from_function:
            for j, column in enumerate(columns):
                self.wrapped.append((top, column.header, self.VALUE + j, True))
        ref = Ref(self.name, top, self.VALUE, data_top + rows - 1, self.VALUE + len(columns) - 1)
        anchor_style = (
            self.builder.style("header")
            if header_from_function
            else self.builder.style(role, columns[0].kind)
        )
        styles = {
            (cell.row, cell.col): (
                anchor_style
                if (cell.row, cell.col) == (ref.row, ref.col)
                else self.builder.style("header")
                if header_from_function and cell.row == ref.row
                else self.builder.style(role, columns[cell.col - self.VALUE].kind)
            )
            for cell in ref.cells()
        }
        self.array(ref, formula, styles, dynamic=dynamic)
        self.caption(ref.bottom + 1, formula)
        if label_header:  # beside the function's header row
            self.ws.write_string(ref.row, self.LABEL, label_header, self.builder.style("header"))
        for i, row_label in enumerate(row_labels[:rows]):
            if isinstance(row_label, int):  # a year: a number the formulas can match
                self.ws.write_number(
                    data_top + i, self.LABEL, row_label, self.builder.style("label", Kind.YEAR)
                )
            else:
                self.ws.write_string(data_top + i, self.LABEL, row_label)
        if lines > 1:  # the results are not known here: every data row gets the lines
            for r in range(data_top, data_top + rows):
                self.heights[r] = max(self.heights.get(r, 0), lines * page.LINE_HEIGHT + 2)
        # What formulas read (names, totals, checks, references): the table as computed,
        # on the companion sheet when it has one, where the rows past the function's
        # result are blank as in a spill (the cells shown read blank as "", which
        # arithmetic refuses); the visible range keeps the styles and what is printed.
        computed = self.companion.get_name() if self.companion is not None else self.name
        for j, column in enumerate(columns):
            self.width(self.VALUE + j, column.width)
            body = Ref(self.name, data_top, self.VALUE + j, data_top + rows - 1, self.VALUE + j)
            if column.kind in NUMERIC_KINDS:
                self.numeric_ranges.append(body)
            if column.name:
                self.builder.define_name(column.name, replace(body, sheet=computed))
        ref = replace(ref, sheet=computed)
        if name:
            self.builder.define_name(name, ref)
        # A failed call shows its message in the top-left cell only (the rest of a
        # dynamic array stays blank), so the table's own check looks there.
        anchor = ref.cell(0, 0).a
        ok = f'{anchor}="{columns[0].header}"' if header_from_function else f"ISNUMBER({anchor})"
        self.builder.tables[ref] = ok
        what = label or formula.split("(", 1)[0].lstrip("=")
        self.builder.check(f"{what}: the function returned its table", ok)
        self.row = ref.bottom + 2
        return ref

    def formula_table(
        self,
        columns: Sequence[Column],
        formulas: Sequence[Sequence[str | float | Spill | None]],
        *,
        row_labels: Sequence[str] = (),
        label_header: str = "",
        role: str = "calc",
    ) -> TableRefs:
        """A table of ordinary formulas (one per cell), with headers and units above.

        A cell is a formula, a number (a constant such as the year a row is about) or a
        :class:`Spill`: a function returning a block of rows and columns, written as one
        dynamic-array formula at its top-left cell, the others it covers given as None.
        A column's ``role`` overrides the table's (e.g. a total column).

        A formula reads the table's own cells by header, not by address (the builder
        places the table): ``[[cell:H]]`` the cell of column H in the same row,
        ``[[row:H1:H2]]`` the same row's cells from column H1 to H2, ``[[column:H]]``
        column H's data cells, ``[[header:H1:H2]]`` the header cells of H1 to H2 (same-sheet
        addresses)."""
        self.block()
        self._table_header(label_header, columns, units=True)
        first = self.row
        where_of = {column.header: self.VALUE + j for j, column in enumerate(columns)}
        last_row = first + len(formulas) - 1

        def resolve(text: str, row: int, qualified: bool = False) -> str:
            """The table's own references as same-sheet addresses (sheet-qualified for a
            formula written on the companion sheet)."""

            def ref(match: re.Match[str]) -> str:
                kind, *heads = match.group(1).split(":")
                cols = [where_of[h] for h in heads]
                if kind == "cell" and len(cols) == 1:
                    found = Ref(self.name, row, cols[0])
                elif kind == "row" and len(cols) == 2:
                    found = Ref(self.name, row, cols[0], row, cols[1])
                elif kind == "column" and len(cols) == 1:
                    found = Ref(self.name, first, cols[0], last_row, cols[0])
                elif kind == "header" and len(cols) == 2:
                    found = Ref(self.name, first - 2, cols[0], first - 2, cols[1])
                else:
                    raise ValueError(f"{match.group(0)}: not a reference to the table's cells")
                return found.a if qualified else found.local

            return _TABLE_REFERENCE.sub(ref, text)

        covered: set[tuple[int, int]] = set()
        spills: list[str] = []
        for i, row in enumerate(formulas):
            if i < len(row_labels):
                self.ws.write_string(first + i, self.LABEL, row_labels[i])
            for j, text in enumerate(row):
                column = columns[j]
                style = self.builder.style(column.role or role, column.kind)
                where = (first + i, self.VALUE + j)
                if text is None:
                    if where not in covered:
                        raise ValueError(f"row {i + 1}, column {column.header!r}: no formula")
                    if not self.companion:
                        self.ws.write_blank(*where, None, style)
                elif isinstance(text, Spill):
                    block = Ref(
                        self.name,
                        where[0],
                        where[1],
                        where[0] + text.height - 1,
                        where[1] + text.width - 1,
                    )
                    covered.update((cell.row, cell.col) for cell in block.cells())
                    spilled = resolve(text.formula, where[0], self.companion is not None)
                    self.array(block, spilled, {(c.row, c.col): style for c in block.cells()})
                    spills.append(spilled)
                elif isinstance(text, (int, float)):
                    self.ws.write_number(*where, text, style)
                else:
                    self.ws.write_formula(*where, _formula(resolve(text, where[0])), style)
        found: dict[str, Ref] = {}
        for j, column in enumerate(columns):
            ref = Ref(self.name, first, self.VALUE + j, first + len(formulas) - 1, self.VALUE + j)
            self.width(self.VALUE + j, column.width)
            if column.kind in NUMERIC_KINDS:
                self.numeric_ranges.append(ref)
            if column.name:
                self.builder.define_name(column.name, ref)
            found[column.header] = ref
        if spills:
            self.caption(first + len(formulas), *spills)
        self.row = first + len(formulas) + 1
        return TableRefs(
            found, Ref(self.name, first - 2, self.VALUE, first - 2, self.VALUE + len(columns) - 1)
        )

    @property
    def companion(self) -> Worksheet | None:
        """The hidden sheet holding this sheet's array formulas (None: they are written
        on this sheet, the template writes no companion sheets)."""
        return self.builder.companions.get(self.name)

    def array(
        self,
        ref: Ref,
        formula: str,
        styles: Mapping[tuple[int, int], Any],
        *,
        dynamic: bool = True,
    ) -> None:
        """The array formula ``formula`` over ``ref`` (a dynamic array, or a legacy one),
        each cell in its style. With a companion sheet the formula is written there, at
        the same addresses, and each cell of ``ref`` shows its companion's cell by an
        ordinary formula, a blank one blank: an application without the NJ_* functions
        keeps an ordinary formula's saved value, and recomputes an array formula's
        (``#NAME?``); see :func:`shown_formula`."""
        hidden = self.companion
        target = self.ws if hidden is None else hidden
        anchor = styles[(ref.row, ref.col)] if hidden is None else None
        if dynamic:
            target.write_dynamic_array_formula(
                ref.row, ref.col, ref.bottom, ref.right, _formula(formula), anchor
            )
        else:
            target.write_array_formula(
                ref.row, ref.col, ref.bottom, ref.right, "{" + _formula(formula) + "}", anchor
            )
        for cell in ref.cells():
            if hidden is not None:
                shown = f"{quote_sheet(hidden.get_name())}!{cell.local.replace('$', '')}"
                self.ws.write_formula(
                    cell.row, cell.col, shown_formula(shown), styles[(cell.row, cell.col)]
                )
            if (cell.row, cell.col) == (ref.row, ref.col):
                continue
            if hidden is None:
                self.ws.write_number(cell.row, cell.col, 0, styles[(cell.row, cell.col)])
            else:
                hidden.write_number(cell.row, cell.col, 0)
        self.builder.array_formulas.append(ref)

    def caption(self, row: int, *formulas: str) -> None:
        """Below a table shown from its companion sheet: which NJ_* functions compute it,
        and where (a reviewer in Excel reads the formula there; the sheet is hidden)."""
        hidden = self.companion
        if hidden is None:
            return
        names = list(dict.fromkeys(m.group(1) for f in formulas for m in _NJ_NAME.finditer(f)))
        what = ", ".join(names) if names else "array formulas"
        self.ws.write_string(
            row,
            self.LABEL,
            f"Computed by {what} on the hidden sheet {hidden.get_name()}, same cells",
            self.builder.style("subtitle"),
        )

    def chart(
        self,
        title: str,
        categories: Ref,
        series: Sequence[tuple[str, Ref]],
        *,
        kind: str = "column",
        stacked: bool = False,
        y_title: str = "",
        x_title: str = "",
        height_rows: int = 18,
    ) -> None:
        """A native Excel chart below the current row."""
        options: dict[str, Any] = {"type": kind}
        if stacked:
            options["subtype"] = "stacked"
        chart = self.builder.workbook.add_chart(options)
        for series_name, values in series:
            chart.add_series(
                {
                    "name": series_name,
                    "categories": categories.chart_range(),
                    "values": values.chart_range(),
                }
            )
        chart.set_title({"name": title})
        chart.set_y_axis(
            {"name": y_title, "num_format": "#,##0", "major_gridlines": {"visible": True}}
        )
        chart.set_x_axis({"name": x_title})
        chart.set_legend({"position": "bottom"})
        # as wide as the sheet's columns (so it prints inside the print area), and as
        # tall as the rows it stands on (kept on one page)
        pixels = sum(
            page.column_points(self.widths.get(col, page.DEFAULT_WIDTH)) / 0.75
            for col in range(self.max_col + 1)
        )
        self.block()
        self.ws.insert_chart(
            self.row,
            0,
            chart,
            {
                "x_scale": pixels / 480,
                "y_scale": height_rows * page.DEFAULT_ROW_PIXELS / 288,
                "object_position": 1,
            },
        )
        self.row += height_rows + 1

    # -- helpers
    def _label_unit(self, label: str, unit: str) -> None:
        self.ws.write_string(self.row, self.LABEL, label, self.builder.style("label"))
        self.wrapped.append((self.row, label, self.LABEL, False))
        if unit:
            self.ws.write_string(self.row, self.UNIT, unit, self.builder.style("unit"))

    def _table_header(
        self, label_header: str, columns: Sequence[Column], units: bool = True, offset: int = 0
    ) -> None:
        header = self.builder.style("header")
        self.ws.write_string(self.row, self.LABEL, label_header, header)
        for j, column in enumerate(columns):
            if column.number_header:
                self.ws.write_number(
                    self.row, self.VALUE + offset + j, float(column.header), header
                )
                continue
            self.ws.write_string(self.row, self.VALUE + offset + j, column.header, header)
            self.wrapped.append((self.row, column.header, self.VALUE + offset + j, True))
        self.heights[self.row] = max(self.heights.get(self.row, 0), 30)
        self.row += 1
        if units:
            for j, column in enumerate(columns):
                self.ws.write_string(
                    self.row, self.VALUE + offset + j, column.unit, self.builder.style("unit")
                )
            self.row += 1

    def _write_value(self, ref: Ref, value: object, kind: Kind, role: str) -> None:
        style = self.builder.style(role, kind)
        if value is None:
            self.ws.write_blank(ref.row, ref.col, None, style)
        elif isinstance(value, bool):
            self.ws.write_string(ref.row, ref.col, "Yes" if value else "No", style)
        elif isinstance(value, (dt.date, dt.datetime)):
            moment = (
                value
                if isinstance(value, dt.datetime)
                else dt.datetime(value.year, value.month, value.day)
            )
            self.ws.write_datetime(ref.row, ref.col, moment, style)
        elif isinstance(value, (int, float)):
            self.ws.write_number(ref.row, ref.col, value, style)
        else:
            self.ws.write_string(ref.row, ref.col, str(value), style)

    def finish(self) -> None:
        for col, width in sorted(self.widths.items()):
            self.ws.set_column(col, col, width)
        fail = self.builder.workbook.add_format(
            {"bg_color": CHECK_FAIL_FILL, "font_color": CHECK_FAIL_FONT}
        )
        for ref in self.numeric_ranges:
            top_left = xl_rowcol_to_cell(ref.row, ref.col)
            self.ws.conditional_format(
                ref.row,
                ref.col,
                ref.bottom,
                ref.right,
                {
                    "type": "formula",
                    "criteria": f'=AND({top_left}<>"",NOT(ISNUMBER({top_left})))',
                    "format": fail,
                },
            )
        self._write_notes_and_band()
        if self.last_table is not None and self.last_table[0].bottom + 1 >= self.row - 1:
            self.builder.workbook.define_name(
                f"{quote_sheet(self.name)}!{PRINTED_ROWS}", "=" + self.last_table[0].a
            )
        self.builder.page_setup(self.ws, self.layout())
        self.ws.protect("", {"format_columns": True, "format_rows": True})

    def layout(self) -> page.Layout:
        """The sheet's contents as its page setup sees them."""
        heights = page.wrapped_heights(
            (
                (row, text, self.widths.get(col, page.DEFAULT_WIDTH), bold)
                for row, text, col, bold in self.wrapped
            ),
            {**self.heights, BAND_ROW: self.builder.band_height(self.widths, self.max_col)},
        )
        return page.Layout(
            last_row=max(self.printed_last_row(), BAND_ROW),
            last_col=self.max_col,
            widths=self.widths,
            heights=heights,
            blocks=self.blocks,
            repeat_rows=(0, self.repeat_through or BAND_ROW),
            landscape=self.landscape,
        )

    def printed_last_row(self) -> int:
        """The last row the sheet prints: its last, unless it ends with an input table
        (and the blank row after it) filled only in part, whose empty rows past the last
        filled one are not printed (a roster of 250 rows filled for 60 employees prints
        60). A table given nothing prints whole: a form to fill in by hand. Such a table
        is named :data:`PRINTED_ROWS` on its sheet, so that a results workbook prints
        it through the last row filled when it was recalculated
        (:mod:`nj_incentives.workpapers.recalc.results`), whoever filled it."""
        last = self.row - 1
        if self.last_table is None:
            return last
        body, filled = self.last_table
        if body.bottom + 1 < last:  # something follows the table: it prints whole
            return last
        if filled is None:
            return last
        return max(filled, body.row - 1)  # at least the header and units

    def _write_notes_and_band(self) -> None:
        note = self.builder.style("note")
        for row, col, text in self.notes:
            last = max(self.max_col, col + 1)
            self.ws.merge_range(row, col, row, last, text, note)
            width = page.merged_note_width(self.widths, col, last)
            self.heights[row] = max(self.heights.get(row, 0), page.text_height(text, width))
        self.builder.write_band(self.ws, self.max_col)


def validation(
    kind: Kind,
    label: str,
    *,
    choices: Sequence[str] = (),
    minimum: float | dt.date | None = None,
    maximum: float | dt.date | None = None,
    help: str = "",
    prompt: str = "",
) -> dict[str, Any]:
    """The data validation of an input of ``kind``: what Excel accepts and what it says.

    The input prompt's title is ``prompt``, or the label when it fits Excel's 32
    characters; a longer label needs a ``prompt`` written to fit, and then opens the
    prompt's text, so nothing is cut. Texts too long for Excel are refused, not cut."""
    rule: dict[str, Any]
    if kind is Kind.MONEY:
        low = 0 if minimum is None else minimum
        rule = {"validate": "decimal", "criteria": ">=", "value": low}
        message = f"Enter an amount in dollars, at least {low:,}."
        if maximum is not None:
            rule = {
                "validate": "decimal",
                "criteria": "between",
                "minimum": low,
                "maximum": maximum,
            }
            message = f"Enter an amount in dollars between {low:,} and {maximum:,}."
    elif kind is Kind.PERCENT:
        low = 0 if minimum is None else minimum
        high = 1 if maximum is None else maximum
        rule = {"validate": "decimal", "criteria": "between", "minimum": low, "maximum": high}
        message = f"Enter a percentage between {low:.0%} and {high:.0%} (type 50% or 0.5, not 50)."
    elif kind is Kind.DATE:
        low_date = minimum if isinstance(minimum, dt.date) else dt.date(1990, 1, 1)
        high_date = maximum if isinstance(maximum, dt.date) else dt.date(2100, 12, 31)
        rule = {
            "validate": "date",
            "criteria": "between",
            "minimum": dt.datetime(low_date.year, low_date.month, low_date.day),
            "maximum": dt.datetime(high_date.year, high_date.month, high_date.day),
        }
        message = f"Enter a date between {low_date:%Y-%m-%d} and {high_date:%Y-%m-%d}."
    elif kind is Kind.COUNT:
        low = 0 if minimum is None else minimum
        high = 1_000_000 if maximum is None else maximum
        rule = {"validate": "integer", "criteria": "between", "minimum": low, "maximum": high}
        message = f"Enter a whole number between {low:,} and {high:,}."
    elif kind is Kind.YEAR:
        low = 1990 if minimum is None else minimum
        high = 2100 if maximum is None else maximum
        rule = {"validate": "integer", "criteria": "between", "minimum": low, "maximum": high}
        message = f"Enter a year between {low} and {high}."
    elif kind is Kind.NUMBER:
        low = -1e15 if minimum is None else minimum
        high = 1e15 if maximum is None else maximum
        rule = {"validate": "decimal", "criteria": "between", "minimum": low, "maximum": high}
        message = "Enter a number."
    elif kind is Kind.YESNO:
        rule = {"validate": "list", "source": ["Yes", "No"]}
        message = "Choose Yes or No."
    elif kind is Kind.CHOICE:
        if not choices:
            raise ValueError(f"{label}: a choice input needs its choices")
        rule = {"validate": "list", "source": list(choices)}
        message = "Choose one of: " + ", ".join(choices) + "."
    elif kind is Kind.TEXT:
        rule = {"validate": "length", "criteria": "<=", "value": 255}
        message = "Enter at most 255 characters."
    else:
        raise ValueError(f"{label}: {kind} is not an input kind")
    body = help or message
    if len(label) > PROMPT_TITLE_LIMIT or (prompt and prompt != label):
        body = f"{label}. {body}"
    rule.update(
        {
            "ignore_blank": True,
            "error_type": "stop",
            "error_title": "Invalid input",
            "error_message": _fits(message, 255, label, "error message"),
            "input_title": _fits(prompt or label, PROMPT_TITLE_LIMIT, label, "prompt title"),
            "input_message": _fits(body, 255, label, "prompt text"),
        }
    )
    return rule


#: Excel's limit on a data-validation prompt's title.
PROMPT_TITLE_LIMIT = 32


def _fits(text: str, limit: int, label: str, what: str) -> str:
    if len(text) > limit:
        hint = " (give the input a prompt= title)" if what == "prompt title" else ""
        raise ValueError(
            f"{label!r}: the {what} has {len(text)} characters, Excel shows {limit}{hint}: {text!r}"
        )
    return text


def _formula(text: str) -> str:
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    return text if text.startswith("=") else "=" + text


# --------------------------------------------------------------------------- the workbook


@dataclass(frozen=True)
class _Table:
    """Where a declared table is: its whole range, its data and each column's data."""

    whole: Ref
    data: Ref
    columns: Mapping[str, Ref]

    def column(self, header: str) -> Ref:
        if header not in self.columns:
            raise ValueError(f"no column {header!r} (the table has {', '.join(self.columns)})")
        return self.columns[header]


@dataclass
class _Check:
    label: str
    formula: str
    citation: str = ""
    refusal: str = ""
    subject: str = ""
    joiner: str = ""


class TemplateBuilder:
    """Builds one template workbook; use as a context manager (``close`` writes it)."""

    def __init__(
        self,
        path: str | Path,
        *,
        title: str,
        template_id: str,
        description: str = "",
        function_namespace: str = "",
        engagement: Mapping[str, object] | None = None,
        input_sheets: Sequence[str] = (),
        sources: Mapping[str, object] | None = None,
        output_sheets: Sequence[tuple[str, str]] = (),
        companions: Sequence[str] = (),
    ) -> None:
        """``companions``: the sheets whose tables' array formulas are written on a
        hidden companion sheet each (:func:`~nj_incentives.core.workpaper.companion`),
        after the visible sheets, and shown on them by ordinary references.
        ``input_sheets``: sheets of inputs of their own, after Inputs (a table too
        long for one page, whose header repeats on every printed page);
        ``output_sheets``: sheets of figures of their own after Outputs (the Return
        sheet), each (name, what it holds), laid out and printed as the others.
        ``sources``: the
        tickmarks and sources by their cells' names (``AgreementDateSource``: a text;
        a table's ``WithholdingsSource``: one per row)."""
        self.path = Path(path)
        #: the engagement fields' values (keys as in :data:`ENGAGEMENT_FIELDS`); blank if none
        self.engagement = dict(engagement or {})
        self.title = title
        self.template_id = template_id
        self.description = description
        self.namespace = function_namespace.rstrip(".").upper()
        if self.namespace and not _FUNCTION_NAMESPACE.fullmatch(self.namespace):
            raise ValueError(
                f"function_namespace = {function_namespace!r}: an Office.js namespace is "
                "letters, digits and underscores, starting with a letter, at most 32 "
                "characters (e.g. XLWINGS)"
            )
        # xlsxwriter writes its zip into memory and close() writes the bytes at once: a
        # zip it opened on the file itself stays open when a write fails (a full disk),
        # and Python then prints "Exception ignored in ZipFile.__del__" at exit
        self._sink = io.BytesIO()
        self.workbook = xlsxwriter.Workbook(
            self._sink,
            {
                "in_memory": True,
                "strings_to_numbers": False,
                "strings_to_formulas": False,
                "strings_to_urls": False,
                # Arial 10: LibreOffice prints it with Liberation Sans, whose metrics are
                # Arial's, so the PDFs the tests render paginate as Excel prints
                "default_format_properties": {"font_name": FONT, "font_size": FONT_SIZE},
                "default_row_height": page.DEFAULT_ROW_PIXELS,
                "default_column_width": 64,
            },
        )
        self.workbook.set_properties(
            {
                "title": title,
                "subject": "New Jersey business incentives",
                "author": "nj-incentives",
                "company": "",
                "keywords": "BEIP, ERTC, CBT, New Jersey",
                "comments": (
                    f"Built by nj-incentives {__version__}. Law current to: {LAW_CURRENT_TO}"
                ),
                "created": BUILD_DATE,
            }
        )
        self.workbook.set_custom_property("nj_incentives_template", template_id)
        self.workbook.set_custom_property("nj_incentives_version", __version__)
        self.workbook.set_size(1600, 1000)
        self.style = Styles(self.workbook)
        self.names: dict[str, str] = {}
        self.input_cells: list[Ref] = []
        #: every input cell the inputs hash covers, with its kind and whether it is a
        #: single input (not a table's cell), in the order written
        self.hashed: list[tuple[Ref, Kind, bool]] = []
        #: the tickmarks' and sources' values by their cells' names (``AgreementDateSource``)
        self.sources: dict[str, object] = dict(sources or {})
        #: where the live inputs hash goes (on Inputs, written at :meth:`close`)
        self.hash_cell: Ref | None = None
        self.array_formulas: list[Ref] = []
        #: each table-returning formula -> the condition that it returned its table
        self.tables: dict[Ref, str] = {}
        #: the range of each defined name
        self.refs: dict[str, Ref] = {}
        #: each declared table with a name, by name (what references read)
        self.declared_tables: dict[str, _Table] = {}
        self.checks: list[_Check] = []
        self.about_sheet = self.workbook.add_worksheet(ABOUT)
        self.inputs = SheetWriter(self, self.workbook.add_worksheet(INPUTS))
        reserved = {ABOUT, INPUTS, CALCULATIONS, OUTPUTS, CHECKS, CONFIG}
        for title in (*input_sheets, *(name for name, _ in output_sheets)):
            if title in reserved or len(title) > 31 or any(ch in title for ch in "[]:*?/\\'"):
                raise ValueError(f"{title!r} cannot be an input sheet's name")
        #: the input sheets after Inputs, by name
        self.input_sheets: dict[str, SheetWriter] = {
            title: SheetWriter(self, self.workbook.add_worksheet(title)) for title in input_sheets
        }
        self.calculations = SheetWriter(self, self.workbook.add_worksheet(CALCULATIONS))
        self.outputs = SheetWriter(self, self.workbook.add_worksheet(OUTPUTS))
        #: the sheets of figures after Outputs, by name, and what each holds
        self.output_sheets: dict[str, SheetWriter] = {
            title: SheetWriter(self, self.workbook.add_worksheet(title))
            for title, _ in output_sheets
        }
        self.output_notes = dict(output_sheets)
        self.checks_sheet = self.workbook.add_worksheet(CHECKS)
        #: each sheet with a companion -> its companion (hidden, after the visible sheets)
        self.companions: dict[str, Worksheet] = {
            sheet: self.workbook.add_worksheet(companion(sheet)) for sheet in companions
        }
        self.config_sheet = self.workbook.add_worksheet(CONFIG)
        self.about_notes: list[tuple[str, str]] = []
        self._closed = False

    # -- formulas
    def fn(self, name: str) -> str:
        """An NJ_* function name as this template's runtime spells it."""
        return f"{self.namespace}.{name}" if self.namespace else name

    def define_name(self, name: str, ref: Ref) -> None:
        """A workbook-level name for ``ref`` (checked: not a cell address, not taken)."""
        if not _NAME.match(name) or _CELL_LIKE.match(name) or _is_cell_reference(name):
            raise ValueError(f"{name!r} cannot be a defined name (it reads as a cell address)")
        key = name.upper()
        if key in (n.upper() for n in self.names):
            raise ValueError(f"the name {name!r} is already defined")
        self.names[name] = ref.a
        self.refs[name] = ref
        self.workbook.define_name(name, "=" + ref.a)

    def resolve(self, formula: str, row: int | None = None) -> str:
        """``formula`` with each reference to a named range or table replaced by its
        address (the builder places them; a template never counts rows):

        - ``[[name:N]]``: the range of the defined name N; ``[[at:N:i]]`` its i-th cell
          (0-based, down a column or along a row); ``[[line:N:i]]`` its i-th row;
          ``[[between:N1:N2]]`` the range from the cell N1 to the cell N2;
        - ``[[data:T]]``: the data of the table T (without a header the function
          returns); ``[[data:T:H]]`` its column H, ``[[data:T:H:a:b]]`` the rows a to b
          of it (a Python slice: ``1:``, ``:-1``); ``[[columns:T:H1:H2]]`` its columns H1
          to H2; ``[[at:T:H:i]]`` the i-th cell of column H;
        - ``[[address:N]]``: the address of the defined name N as text, ``"'Part II base
          year'!D6:O255"`` (what NJ_INPUT_REFUSED names a refused cell by);
        - ``[[stack:T1:T2:H]]``: column H of the tables T1 to T2 laid out one below the
          other, from T1's first row (its header) to T2's last; ``[[labels:T1:T2]]`` their
          row labels' column.

        ``i`` is a number or ``row``: the row of the table being written. A table's
        references to its own cells (``[[cell:H]]``...) are left to the table."""

        def replace(match: re.Match[str]) -> str:
            kind, parts = match.group(1), match.group(2).split(":")[1:]
            if kind in _OWN_TABLE_KINDS:
                return match.group(0)
            if kind == "address" and len(parts) == 1:  # the text 'Sheet'!D6:O255
                address = self._reference("name", parts, row, formula).a1
                return '"' + address.replace('"', '""') + '"'
            return self._reference(kind, parts, row, formula).a

        return _REFERENCE.sub(replace, formula)

    def shown(self, ref: Ref) -> Ref:
        """``ref`` where it is shown: a range of a companion sheet at the same cells of
        its visible sheet."""
        for sheet, hidden in self.companions.items():
            if ref.sheet == hidden.get_name():
                return replace(ref, sheet=sheet)
        return ref

    def lookup(self, reference: str) -> Ref:
        """The range of one reference (``[[data:Schedule:Grant]]``, as :meth:`resolve`)."""
        match = _REFERENCE.fullmatch(reference.strip())
        if not match:
            raise ValueError(f"{reference!r} is not one reference")
        return self._reference(match.group(1), match.group(2).split(":")[1:], None, reference)

    def _reference(self, kind: str, parts: list[str], row: int | None, formula: str) -> Ref:
        def index(text: str) -> int:
            if text == "row":
                if row is None:
                    raise ValueError(f"{formula!r}: 'row' outside a table")
                return row
            return int(text)

        def table(name: str) -> _Table:
            if name not in self.declared_tables:
                raise ValueError(f"{formula!r}: no table named {name!r}")
            return self.declared_tables[name]

        def named(name: str) -> Ref:
            if name not in self.refs:
                raise ValueError(f"{formula!r}: no range named {name!r}")
            return self.refs[name]

        if kind == "name" and len(parts) == 1:
            return named(parts[0])
        if kind == "at" and len(parts) == 2:
            ref, i = named(parts[0]), index(parts[1])
            return ref.cell(i, 0) if ref.cols == 1 else ref.cell(0, i)
        if kind == "line" and len(parts) == 2:
            return named(parts[0]).line(index(parts[1]))
        if kind == "between" and len(parts) == 2:
            first, last = named(parts[0]), named(parts[1])
            return Ref(first.sheet, first.row, first.col, last.bottom, last.right)
        if kind == "data" and len(parts) == 1:
            return table(parts[0]).data
        if kind == "data" and len(parts) in (2, 4):
            column = table(parts[0]).column(parts[1])
            if len(parts) == 2:
                return column
            cut = slice(int(parts[2]) if parts[2] else None, int(parts[3]) if parts[3] else None)
            rows = range(column.row, column.bottom + 1)[cut]
            return Ref(column.sheet, rows[0], column.col, rows[-1], column.last_col)
        if kind == "columns" and len(parts) == 3:
            first, last = (table(parts[0]).column(h) for h in parts[1:])
            return Ref(first.sheet, first.row, first.col, last.bottom, last.right)
        if kind == "at" and len(parts) == 3:
            return table(parts[0]).column(parts[1]).cell(index(parts[2]), 0)
        if kind in ("stack", "labels") and len(parts) == (3 if kind == "stack" else 2):
            top, bottom = table(parts[0]).whole, table(parts[1]).whole
            if kind == "stack":
                return Ref(top.sheet, top.row, table(parts[0]).column(parts[2]).col, bottom.bottom)
            # the labels are written on the visible sheet (not on a companion)
            return self.shown(Ref(top.sheet, top.row, SheetWriter.LABEL, bottom.bottom))
        raise ValueError(f"{formula!r}: [[{kind}:{':'.join(parts)}]] is not a reference")

    # -- line items
    def spell(self, formula: str) -> str:
        """``formula`` with each NJ_* function spelled as this template's runtime needs."""
        return _NJ_CALL.sub(lambda m: self.fn(m.group(1)) + "(", formula)

    def writer(self, sheet: str) -> SheetWriter:
        """The writer of a sheet of line items (Inputs, an input sheet, Calculations,
        Outputs)."""
        writers = {
            INPUTS: self.inputs,
            **self.input_sheets,
            CALCULATIONS: self.calculations,
            OUTPUTS: self.outputs,
            **self.output_sheets,
        }
        if sheet not in writers:
            raise ValueError(f"{sheet!r} is not a sheet of line items ({', '.join(writers)})")
        return writers[sheet]

    def lay_out(
        self, items: Sequence[LineItem], values: Mapping[str, object] | None = None
    ) -> dict[str, Ref]:
        """Write ``items`` in order, each on its sheet below what is there (inputs take
        their ``values[key]``). Returns the cell of each named item, by name."""
        values = values or {}
        given_sources = values.get("sources")
        if isinstance(given_sources, Mapping):
            self.sources.update(given_sources)
        found: dict[str, Ref] = {}
        for item in items:
            if isinstance(item, Title):
                writer = self.writer(item.sheet)
                writer.title(item.text, item.subtitle)
                writer.landscape = item.landscape
                if item.narrow:
                    writer.narrow_labels(*item.narrow)
            elif isinstance(item, SourceHeading):
                self.writer(item.sheet).source_heading(item.text, item.width)
            elif isinstance(item, InputTable):
                self._input_table(item, values)
            elif isinstance(item, ArrayTable):
                self._array_table(item)
            elif isinstance(item, FormulaTable):
                self._formula_table(item)
            elif isinstance(item, Total):
                ref = self.writer(item.sheet).total(
                    item.label,
                    self.lookup(item.of),
                    item.kind,
                    item.unit,
                    name=item.name,
                    role=item.role,
                )
                if item.name:
                    found[item.name] = ref
            elif isinstance(item, Chart):  # drawn from the cells shown (and printed)
                self.writer(item.sheet).chart(
                    item.title,
                    self.shown(self.lookup(item.categories)),
                    [
                        (name, self.shown(self.lookup(values_ref)))
                        for name, values_ref in item.series
                    ],
                    y_title=item.y_title,
                    x_title=item.x_title,
                )
            elif isinstance(item, Check):
                self.check(
                    item.label,
                    self.resolve(self.spell(item.formula)) if item.formula else "",
                    item.citation,
                    refusal=self.resolve(self.spell(item.refusal)) if item.refusal else "",
                    subject=item.subject,
                    joiner=item.joiner,
                )
            elif isinstance(item, Section):
                self.writer(item.sheet).section(item.text, width=item.width)
            elif isinstance(item, Note):
                self.writer(item.sheet).note(item.text)
            elif isinstance(item, Skip):
                self.writer(item.sheet).skip(item.rows)
            elif item.formula:
                ref = self.writer(item.sheet or CALCULATIONS).formula(
                    item.label,
                    self.resolve(self.spell(item.formula)),
                    item.kind,
                    item.unit,
                    name=item.name,
                    role=item.role,
                    source=item.source,
                )
                if item.name:
                    found[item.name] = ref
            else:
                if not item.name:
                    raise ValueError(f"{item.label!r}: an input needs a name")
                value = values.get(item.key, item.default) if item.key else item.default
                if item.kind is Kind.YESNO and value is not None and not isinstance(value, str):
                    value = bool(value)  # True/False as Yes/No
                found[item.name] = self.writer(item.sheet or INPUTS).input(
                    item.label,
                    item.name,
                    item.kind,
                    item.unit,
                    value,
                    choices=item.choices,
                    minimum=item.minimum,
                    maximum=item.maximum,
                    help=item.help,
                    prompt=item.prompt,
                )
        return found

    def _input_table(self, table: InputTable, values: Mapping[str, object]) -> None:
        count = len(table.row_labels)
        given: dict[str, Sequence[object]] = {}
        for column in table.columns:
            found = values.get(column.key) if column.key else None
            if isinstance(found, Mapping):
                found = [found.get(key) for key in table.row_keys]
            found = list(found) if isinstance(found, (list, tuple)) else []
            if not found and column.default is not None:
                found = [column.default] * count
            given[column.header] = found
        leading = [
            (
                column,
                [self.resolve(self.spell(formula), row=i) for i in range(count)],
            )
            for column, formula in table.leading
        ]
        shown: list[Sequence[object] | None] = []
        for key in table.shows:
            found = values.get(key) if key else None
            shown.append(list(found) if isinstance(found, (list, tuple)) else None)
        writer = self.writer(table.sheet)
        columns = writer.input_table(
            table.row_labels,
            table.columns,
            given,
            label_header=table.label_header,
            leading=leading,
            repeat_header=table.repeat_header,
            leading_values=shown,
            source=source_name(table),
        )
        first = next(iter(columns.values()))
        whole = Ref(writer.name, first.row, first.col, first.bottom, first.col + len(columns) - 1)
        self._declare(table.name, whole, whole, columns, table.spans, header_row=first.row - 2)

    def _array_table(self, table: ArrayTable) -> None:
        ref = self.writer(table.sheet).array_table(
            self.resolve(self.spell(table.formula)),
            table.columns,
            table.rows,
            header_from_function=table.header_from_function,
            label=table.label,
            row_labels=table.row_labels,
            label_header=table.label_header,
            role=table.role,
            name=table.name,
            dynamic=table.dynamic,
            lines=table.lines,
        )
        data = ref.body() if table.header_from_function else ref
        columns = {column.header: data.column(j) for j, column in enumerate(table.columns)}
        self._declare(table.name or "", ref, data, columns, ())

    def _formula_table(self, table: FormulaTable) -> None:
        rows = [
            [
                Spill(self.resolve(self.spell(cell.formula), row=i), cell.width, cell.height)
                if isinstance(cell, Spill)
                else self.resolve(self.spell(cell), row=i)
                if isinstance(cell, str)
                else cell
                for cell in line
            ]
            for i, line in enumerate(table.rows)
        ]
        found = self.writer(table.sheet).formula_table(
            table.columns,
            rows,
            row_labels=table.row_labels,
            label_header=table.label_header,
            role=table.role,
        )
        self._fit_shown(table, found)
        first = next(iter(found.values()))
        whole = Ref(first.sheet, first.row, first.col, first.bottom, found.header.right)
        self._declare(table.name, whole, whole, found, table.spans, header_row=found.header.row)

    def _fit_shown(self, table: FormulaTable, found: TableRefs) -> None:
        """Each row of ``table`` as tall as the longest text its cells may show wrapped
        (:attr:`FormulaTable.shows`): a formula's text is not known to the row's height,
        and Excel does not fit a row to a formula's result when the file is opened. The
        row's label is wrapped too, at the top of the row as its cells are."""
        writer = self.writer(table.sheet)
        first = next(iter(found.values()))
        for i, shown in enumerate(table.shows):
            row = first.row + i
            if i < len(table.row_labels):
                label = table.row_labels[i]
                writer.ws.write_string(row, writer.LABEL, label, self.style("label"))
                writer.wrapped.append((row, label, writer.LABEL, False))
            for column, texts in zip(table.columns, shown, strict=False):
                col = found[column.header].col
                writer.wrapped.extend((row, text, col, False) for text in texts)

    def _declare(
        self,
        name: str,
        whole: Ref,
        data: Ref,
        columns: Mapping[str, Ref],
        spans: Sequence[Span],
        header_row: int = 0,
    ) -> None:
        """A declared table: its name for references, and the defined names of its spans."""
        if name:
            if name in self.declared_tables:
                raise ValueError(f"two tables are named {name!r}")
            self.declared_tables[name] = _Table(whole, data, dict(columns))
        for span in spans:
            first, last = columns[span.first], columns[span.last]
            if span.header:
                self.define_name(
                    span.name, Ref(first.sheet, header_row, first.col, header_row, last.col)
                )
            else:
                self.define_name(
                    span.name, Ref(first.sheet, first.row, first.col, last.bottom, last.col)
                )

    # -- the engagement and the page
    def write_engagement(self, writer: SheetWriter) -> None:
        """The engagement fields, first on Inputs, each a text input (the dates dates)
        with its defined name; then the sign-off (:data:`SIGNOFF_INPUTS`), the live
        inputs hash (written at :meth:`close`, once every input is known) and the
        tickmark legend."""
        writer.section("Engagement (printed at the top of every page)")
        for field in ALL_ENGAGEMENT_FIELDS:
            if field is SIGNOFF_INPUTS[0]:
                writer.skip()
                writer.section(
                    "Sign-off (nj-incentives sign, or copy 'Inputs hash now' into the hash "
                    "cell when you sign; the Checks sheet flags inputs changed since)",
                    width=writer.VALUE + 3,
                )
            writer.input(
                field.label,
                field.name,
                field.kind,
                field.unit,
                self.engagement.get(field.key),
                help=field.help,
                hashed=field in ENGAGEMENT_FIELDS and field not in SIGNOFF_INPUTS,
                sourced=False,
            )
        self.hash_cell = Ref(writer.name, writer.row, writer.VALUE)
        writer._label_unit("Inputs hash now (every input above and below)", "hash")
        self.define_name(INPUTS_HASH, self.hash_cell)
        writer.row += 1
        writer.skip()
        writer.section("Tickmarks (the Tick column beside each input)", width=writer.VALUE + 3)
        for mark, meaning in TICKMARKS:
            writer.ws.write_string(writer.row, writer.LABEL, mark, self.style("tick_key"))
            writer.ws.write_string(writer.row, writer.UNIT, meaning, self.style("unit"))
            writer.row += 1
        writer.skip()

    def hash_formula(self) -> str:
        """``NJ_INPUTS_HASH("kinds", range, ...)`` over every hashed input: a single
        input its own cell; a table's column one range, and side-by-side columns of the
        same rows and kind one block (the roster's twelve months)."""
        runs: list[list[Any]] = []  # [sheet, row, col, bottom, right, letter]
        for ref, kind, single in self.hashed:
            letter = _HASH_KINDS[kind]
            last = runs[-1] if runs else None
            if (
                not single
                and last is not None
                and last[6] is False
                and last[0] == ref.sheet
                and last[2] == last[4] == ref.col
                and last[3] + 1 == ref.row
                and last[5] == letter
            ):
                last[3] = ref.row
            else:
                runs.append([ref.sheet, ref.row, ref.col, ref.row, ref.col, letter, single])
        blocks: list[list[Any]] = []
        for run in runs:
            last = blocks[-1] if blocks else None
            if (
                last is not None
                and last[0] == run[0]
                and (last[1], last[3]) == (run[1], run[3])
                and last[4] + 1 == run[2]
                and last[5] == run[5]
                and not last[6]
                and not run[6]
            ):
                last[4] = run[4]
            else:
                blocks.append(list(run))
        kinds = "".join(block[5] for block in blocks)
        ranges = [Ref(b[0], b[1], b[2], b[3], b[4]).a for b in blocks]
        return f'{self.fn("NJ_INPUTS_HASH")}("{kinds}",{",".join(ranges)})'

    def write_band(self, ws: Worksheet, last_col: int) -> None:
        """Row 3 of a sheet: the engagement by formula, across the printed width. On
        Inputs it is the formula, named :data:`ENGAGEMENT_LINE`; elsewhere a reference."""
        style = self.style("band")
        last_col = max(last_col, 1)
        ws.merge_range(BAND_ROW, 0, BAND_ROW, last_col, "", style)
        if ws.get_name() == INPUTS:
            stored = {who: hashed for _role, who, _when, hashed in SIGNOFF_ROLES}
            parts = [
                f'"{field.label}: "&'
                + (
                    f'IF(ISNUMBER({field.name}),TEXT({field.name},"yyyy-mm-dd"),"")'
                    if field.kind is Kind.DATE
                    else field.name
                )
                # "(stale)" beside a name whose stored inputs hash is not the live one
                + (
                    f'&IFERROR(IF(AND({field.name}<>"",{stored[field.name]}<>"",'
                    f'{stored[field.name]}<>{INPUTS_HASH})," (stale)",""),"")'
                    if field.name in stored
                    else ""
                )
                for field in ENGAGEMENT_FIELDS
            ]
            # two lines: the client, entity and period; then who prepared, reviewed, when
            line = '&"   |   "&'
            formula = line.join(parts[:3]) + "&CHAR(10)&" + line.join(parts[3:])
            ws.write_formula(BAND_ROW, 0, "=" + formula, style, self.engagement_line())
            self.define_name(ENGAGEMENT_LINE, Ref(INPUTS, BAND_ROW, 0))
        else:
            ws.write_formula(BAND_ROW, 0, f"={ENGAGEMENT_LINE}", style, self.engagement_line())

    def band_height(self, widths: Mapping[int, float], last_col: int) -> float:
        """The band's row height: its two lines wrapped across the sheet's printed width,
        each field as built or, when shorter, as long as :data:`BAND_ROOM` allows for it
        (a merged cell is not autofitted: the names typed later must fit too)."""
        width = page.merged_note_width(widths, 0, max(last_col, 1))
        return page.text_height(self.engagement_line(room=True), width, bold=True)

    def engagement_line(self, room: bool = False) -> str:
        """What the band's formula shows for the values built in (its cached value, so
        that a reader that does not recalculate shows the same line): two lines. With
        ``room``, each field at least the length :data:`BAND_ROOM` gives it (to size the
        row for the values typed later)."""
        shown = []
        for field in ENGAGEMENT_FIELDS:
            value = self.engagement.get(field.key)
            if isinstance(value, (dt.date, dt.datetime)):
                text = f"{value:%Y-%m-%d}"
            else:
                text = "" if value is None else str(value)
            if room and len(text) < BAND_ROOM.get(field.key, 0):
                text = ("Wide name " * 10)[: BAND_ROOM[field.key]]
            shown.append(f"{field.label}: {text}")
        return "   |   ".join(shown[:3]) + "\n" + "   |   ".join(shown[3:])

    def page_setup(self, ws: Worksheet, layout: page.Layout) -> None:
        """The sheet's page setup; a sheet of :data:`UNPRINTED_SHEETS` is hidden instead,
        with no print area (LibreOffice prints a hidden sheet that has one)."""
        if ws.get_name() in UNPRINTED_SHEETS:
            for row, height in sorted(layout.heights.items()):
                ws.set_row(row, height)
            ws.hide()
            return
        page.setup(
            ws,
            layout,
            title=self.title,
            template_id=self.template_id,
            version=__version__,
        )

    # -- checks
    def check(
        self,
        label: str,
        formula: str,
        citation: str = "",
        *,
        refusal: str = "",
        subject: str = "",
        joiner: str = "",
    ) -> None:
        """A check: ``formula`` must be TRUE. An error counts as FALSE. With ``refusal``
        (:meth:`Check.refused`), TRUE when that formula gives blank; else the line reads
        ``subject`` (``label`` if none), ``joiner`` (the first cell refused, if none) and
        the refusal's text (:meth:`Check.detailed`)."""
        self.checks.append(
            _Check(
                label,
                _formula(formula)[1:] if formula else "",
                citation,
                _formula(refusal)[1:] if refusal else "",
                subject or label,
                joiner,
            )
        )

    def check_numbers(self, label: str, ref: Ref) -> None:
        """Every cell of ``ref`` is a number or blank (no error, no message text)."""
        self.check(label, numbers_only(ref))

    def check_equal(self, label: str, a: str, b: str, citation: str = "") -> None:
        """``a`` and ``b`` (formulas or references) agree to half a cent."""
        self.check(label, f"ABS(({a})-({b}))<{CENT_TOLERANCE}", citation)

    def check_at_most(self, label: str, a: str, b: str, citation: str = "") -> None:
        """``a`` does not exceed ``b`` (half a cent of tolerance)."""
        self.check(label, f"({a})<=({b})+{CENT_TOLERANCE}", citation)

    # -- about
    def about(
        self, purpose: str, sheet_notes: Sequence[tuple[str, str]] = (), sources: Sequence[str] = ()
    ) -> None:
        """The About sheet's text (written at :meth:`close`)."""
        self.description = purpose
        self.about_notes = [*sheet_notes]
        self._sources = list(sources)

    def _write_about(self) -> None:
        ws, style = self.about_sheet, self.style
        row = 0
        widths = {0: 40.0, 1: ABOUT_TEXT_WIDTH}
        heights: dict[int, float] = {0: 24, BAND_ROW: self.band_height(widths, 1)}
        blocks: list[int] = []

        def line(text: str = "", role: str | None = None, value: str | None = None) -> None:
            nonlocal row
            if value is None:
                if text and role in (None, "note"):  # a paragraph across both columns
                    ws.merge_range(row, 0, row, 1, text, style("note"))
                    width = page.merged_note_width(widths, 0, 1)
                    heights[row] = page.text_height(text, width)
                elif text:
                    ws.write_string(row, 0, text, style(role) if role else style("note"))
                    if role == "section":
                        blocks.append(row)
            else:
                ws.write_string(row, 0, text, style("label"))
                ws.write_string(row, 1, value, style("note"))
                needed = max(page.text_height(text, widths[0]), page.text_height(value, widths[1]))
                if needed > page.DEFAULT_ROW_HEIGHT + 2:
                    heights[row] = needed
            row += 1

        line(self.title, "title")
        line("Read this page before using the workbook.", "subtitle")
        self.write_band(ws, 1)
        row = BAND_ROW + 2
        line(self.description or "", "note")
        line()
        line("Package", value=f"nj-incentives {__version__}")
        line("Law current to", value=LAW_CURRENT_TO)
        line("Template", value=self.template_id)
        line("Check", value="Checks!MasterCheck must be TRUE before any figure is used.")
        line("Printing", value=PRINTING)
        line()
        line("Sheets", "section")
        sheets = [
            (ABOUT, "this page"),
            (INPUTS, "every assumption: type only in the yellow cells (blue figures)"),
            *((title, "more inputs: type only in the yellow cells") for title in self.input_sheets),
            (CALCULATIONS, "formulas only, using the NJ_* functions"),
            (OUTPUTS, "the results and the chart"),
            *self.output_notes.items(),
            (CHECKS, "each check TRUE/FALSE; the master check must be TRUE"),
            (CONFIG, "hidden, not printed: the classic xlwings add-in's UDF Modules setting"),
        ]
        notes = dict(self.about_notes)
        for name, text in sheets:
            line(name, value=notes.get(name, text))
        line()
        line("Colour key", "section")
        ws.write_string(row, 0, "Input (type here)", style("input_key"))
        ws.write_string(row, 1, "the only cells you can change; each has units and validation")
        row += 1
        ws.write_string(row, 0, "Calculation", style("calc"))
        ws.write_string(row, 1, "formula; protected")
        row += 1
        ws.write_string(row, 0, "Output", style("output"))
        ws.write_string(row, 1, "result; protected")
        row += 1
        ws.write_string(
            row,
            0,
            "Red cell",
            self.workbook.add_format({"bg_color": CHECK_FAIL_FILL, "font_color": CHECK_FAIL_FONT}),
        )
        ws.write_string(row, 1, "a function rejected its inputs: the cell shows why")
        row += 1
        line()
        prefix = f"{self.namespace}." if self.namespace else ""
        line("Formulas and checks", "section")
        spelling = (
            f"for an Office.js add-in with the namespace {self.namespace}"
            if self.namespace
            else "the classic add-in's and xlwings Lite's spelling"
        )
        line(
            "Formula spelling", value=f"This workbook's formulas read ={prefix}NJ_... ({spelling})."
        )
        line(
            "",
            value="nj-incentives doctor THIS_FILE checks the spelling and the xlwings.conf sheet.",
        )
        line(
            "Without Excel",
            value="nj-incentives calc THIS_FILE recalculates every formula headlessly and prints",
        )
        line("", value="the checks; --memo writes a calculation memo.")
        setup_line = row  # its text names the row the setup starts on, known below
        line("Setup", value="")
        line()
        line("Protection", "section")
        line(
            "Every sheet is protected without a password, to prevent accidental edits; only "
            "the input cells are unlocked (Review > Unprotect Sheet to change a formula)."
        )
        if getattr(self, "_sources", None):
            line()
            line("Sources", "section")
            for source in self._sources:
                line(source)
        printed = row - 1  # the setup steps below are for the screen: not printed
        line()
        text = (
            f"How to enable the NJ_* functions in Excel, and their licences: from row "
            f"{row + 2} of this sheet, on screen (not printed)."
        )
        ws.write_string(setup_line, 1, text, style("note"))
        heights[setup_line] = max(page.text_height(text, widths[1]), page.DEFAULT_ROW_HEIGHT)
        line("Enabling the NJ_* functions (on screen; not printed)", "section")
        for heading, steps in (
            ("Classic add-in (Windows), in this order", setup_steps.CLASSIC),
            ("xlwings Lite (Windows, Mac, web)", setup_steps.LITE),
            ("xlwings Server", setup_steps.SERVER),
        ):
            line(heading, "section")
            for n, step in enumerate(steps, 1):
                for k, text in enumerate(step.lines):
                    line(f"{n}. {step.title}" if k == 0 else "", value=text)
            line()
        line("Licences", "section")
        for runtime, text in setup_steps.LICENCES:
            line(runtime, value=text)
        ws.set_column(0, 0, widths[0])
        ws.set_column(1, 1, widths[1], style("note"))
        self.page_setup(
            ws,
            page.Layout(
                last_row=printed, last_col=1, widths=widths, heights=heights, blocks=blocks
            ),
        )
        ws.protect("", {"format_columns": True, "format_rows": True})

    def _write_checks(self) -> None:
        ws, style = self.checks_sheet, self.style
        ws.write_string(0, 0, "Checks", style("title"))
        ws.merge_range(1, 0, 1, 2, CHECKS_SUBTITLE, style("subtitle_wrapped"))
        self.write_band(ws, 2)
        top = BAND_ROW + 2
        ws.write_string(top, 0, "Master check", style("section"))
        ws.write_string(top, 1, "", style("section"))
        first = top + 3 + self._write_signoff_lines(ws, top + 1)
        last = first + max(len(self.checks), 1) - 1
        column = Ref(CHECKS, first, 2, last, 2)
        master = Ref(CHECKS, top, 2)
        ws.write_formula(
            master.row, master.col, f"=AND({column.local})", style("check", Kind.CHECK)
        )
        self.define_name("MasterCheck", master)
        header = style("header")
        for col, text in enumerate(("Check", "Citation", "Result")):
            ws.write_string(first - 1, col, text, header)
        refusals = any(check.refusal for check in self.checks)
        if refusals:  # a hidden column: the one call a refusal check makes
            ws.write_string(first - 1, 3, "First cell refused", header)
        if not self.checks:
            ws.write_formula(first, 2, "=TRUE", style("check", Kind.CHECK))
        for i, check in enumerate(self.checks):
            ws.write_string(first + i, 1, check.citation, style("source"))  # wrapped
            if not check.refusal:
                ws.write_string(first + i, 0, check.label, style("note"))
                ws.write_formula(
                    first + i, 2, f"=IFERROR({check.formula},FALSE)", style("check", Kind.CHECK)
                )
                continue
            detail = Ref(CHECKS, first + i, 3).local
            ws.write_formula(first + i, 3, f"={check.refusal}", style("note"))
            label, subject = (
                '"' + text.replace('"', '""') + '"' for text in (check.label, check.subject)
            )
            ws.write_formula(
                first + i,
                0,
                f'=IFERROR(IF({detail}="",{label},{subject}&"{check.joiner or REFUSED}"&{detail}),'
                f"{label})",
                style("note"),
                check.label,
            )
            ws.write_formula(
                first + i, 2, f'=IFERROR({detail}="",FALSE)', style("check", Kind.CHECK)
            )
        ok = self.workbook.add_format({"bg_color": CHECK_OK_FILL, "font_color": CHECK_OK_FONT})
        fail = self.workbook.add_format(
            {"bg_color": CHECK_FAIL_FILL, "font_color": CHECK_FAIL_FONT}
        )
        for top, bottom in ((master.row, master.row), (first, last)):
            ws.conditional_format(
                top, 2, bottom, 2, {"type": "cell", "criteria": "==", "value": "TRUE", "format": ok}
            )
            ws.conditional_format(
                top,
                2,
                bottom,
                2,
                {"type": "cell", "criteria": "!=", "value": "TRUE", "format": fail},
            )
        widths = {0: 70.0, 1: 28.0, 2: 12.0}
        for col, width in widths.items():
            ws.set_column(col, col, width)
        if refusals:
            ws.set_column(3, 3, 40.0, None, {"hidden": True})
        heights = page.wrapped_heights(
            (
                (first + i, text, widths[col])
                for i, check in enumerate(self.checks)
                for col, text in (
                    # a refusal check: room for the longer of its lines, the label or
                    # the subject and the cell, value and rule it may name
                    (
                        0,
                        max(
                            check.label,
                            check.subject + (check.joiner or REFUSED) + REFUSAL_TEXT,
                            key=len,
                        )
                        if check.refusal
                        else check.label,
                    ),
                    (1, check.citation),
                )
            ),
            {
                0: 24,
                1: page.text_height(CHECKS_SUBTITLE, page.merged_note_width(widths, 0, 2)),
                BAND_ROW: self.band_height(widths, 2),
            },
        )
        self.page_setup(
            ws,
            page.Layout(
                last_row=last,
                last_col=2,
                widths=widths,
                heights=heights,
                repeat_rows=(0, first - 1),  # the master check and the header on every page
                landscape=False,  # a list: upright, more checks a page
            ),
        )
        ws.freeze_panes(first, 0)
        ws.protect("", {"format_columns": True, "format_rows": True})

    def _write_signoff_lines(self, ws: Worksheet, row: int) -> int:
        """The sign-off lines under the master check: the preparer's and the reviewer's
        (``prepared 2026-11-20 by A. Preparer; inputs unchanged since``), each with TRUE
        (the inputs hash it stored is the live one), FALSE (inputs changed since) or
        blank (not signed with a hash); then :data:`SIGNOFF_CURRENT`, FALSE when a
        sign-off's inputs changed since. Not part of the master check, which is about
        the figures (docs/filling.md "Sign-off"). Returns the number of rows."""
        style = self.style
        status_cells = []
        # the section's heading is the banner when a sign-off no longer holds (its line,
        # and SignoffCurrent, below: defined after, computed before)
        heading = "Sign-off (not part of the master check: docs/filling.md)"
        banner = (
            "SIGN-OFF STALE: an input changed since it was signed (the lines below): "
            "review the change and sign again"
        )
        ws.write_formula(
            row,
            0,
            f'=IF({SIGNOFF_CURRENT}=FALSE,"{banner}","{heading}")',
            style("section"),
            heading,
        )
        ws.write_string(row, 1, "", style("section"))
        ws.write_string(row, 2, "", style("section"))
        row += 1
        for i, (role, who, when, stored) in enumerate(SIGNOFF_ROLES):
            text = (
                f'IF({who}="","{SIGNOFF_NOT_SIGNED[role]}","{role} "&'
                f'IF(ISNUMBER({when}),TEXT({when},"yyyy-mm-dd"),"{SIGNOFF_NO_DATE}")&" by "&{who}&'
                f'IF({stored}="","{SIGNOFF_NO_HASH}",IFERROR(IF({stored}={INPUTS_HASH},'
                f'"{SIGNOFF_UNCHANGED}","{SIGNOFF_CHANGED}"),"{SIGNOFF_NOT_COMPUTED}")))'
            )
            # one line, running on over the empty column B (a wrapped line in the rows
            # repeated on every printed page crashed LibreOffice's PDF export)
            ws.write_formula(row + i, 0, "=" + text, style("plain"), SIGNOFF_NOT_SIGNED[role])
            self.define_name(SIGNOFF_STATUS[i], Ref(CHECKS, row + i, 0))
            current = (
                f'=IF(OR({who}="",{stored}=""),"",'
                f'IFERROR({stored}={INPUTS_HASH},"{SIGNOFF_UNKNOWN}"))'
            )
            ws.write_formula(row + i, 2, current, style("check", Kind.CHECK), "")
            status_cells.append(Ref(CHECKS, row + i, 2).local)
        last = row + len(SIGNOFF_ROLES)
        ws.write_string(last, 0, "Every sign-off's inputs unchanged since it was signed")
        ws.write_formula(
            last,
            2,
            f'=IF(ISERROR({INPUTS_HASH}),"{SIGNOFF_UNKNOWN}",'
            f"AND({','.join(c + '<>FALSE' for c in status_cells)}))",
            style("check", Kind.CHECK),
            True,
        )
        self.define_name(SIGNOFF_CURRENT, Ref(CHECKS, last, 2))
        # no conditional colours on these cells: with a "cell is" or a formula rule over
        # them, LibreOffice 7.4's PDF export of a signed workbook aborted ("Unspecified
        # Application Error") in most runs; their text says TRUE or FALSE
        return last - row + 2

    def _write_config(self) -> None:
        ws = self.config_sheet
        written = [key for key in setup_steps.CONF_KEYS if key.written]
        optional = [key for key in setup_steps.CONF_KEYS if not key.written]
        for row, key in enumerate(written):
            ws.write_string(row, 0, key.key)
            ws.write_string(row, 1, key.value)
        notes = [
            "Read by the classic xlwings add-in (Windows): keys in column A from A1 down, "
            "values in column B; the first empty cell of column A ends the list, and a key "
            "here overrides the xlwings ribbon for this workbook.",
            "Optional keys (this sheet is protected: Review > Unprotect Sheet first, no "
            "password; type each in the next row of A:B, then protect the sheet again):",
            *(f"{key.key} = {key.value}: {key.why}" for key in optional),
        ]
        for row, text in enumerate(notes):
            ws.write_string(row, 3, text, self.style("note"))
        ws.set_column(0, 0, 16)
        ws.set_column(1, 1, 24)
        ws.set_column(3, 3, 100)
        widths = {0: 16.0, 1: 24.0, 2: page.DEFAULT_WIDTH, 3: 100.0}
        self.page_setup(
            ws,
            page.Layout(
                last_row=max(len(written), len(notes)) - 1,
                last_col=3,
                widths=widths,
                heights=page.wrapped_heights(
                    (row, text, widths[3]) for row, text in enumerate(notes)
                ),
                repeat_rows=None,  # column A holds the add-in's keys only: no engagement band
            ),
        )
        ws.protect("", {"format_columns": True, "format_rows": True})

    # -- closing
    def close(self) -> Path:
        """Write the remaining sheets, protect everything and save the file."""
        if self._closed:
            return self.path
        self._write_about()
        if self.hash_cell is not None and self.hashed:
            self.inputs.ws.write_formula(
                self.hash_cell.row,
                self.hash_cell.col,
                "=" + self.hash_formula(),
                self.style("calc", Kind.TEXT),
                "",
            )
        for writer in (
            self.inputs,
            *self.input_sheets.values(),
            self.calculations,
            self.outputs,
            *self.output_sheets.values(),
        ):
            writer.finish()
        self._write_checks()
        for hidden in self.companions.values():
            hidden.hide()
            hidden.protect("", {"format_columns": True, "format_rows": True})
        self._write_config()
        self.inputs.ws.activate()
        self.workbook.close()
        self._closed = True
        self.path.write_bytes(self._sink.getvalue())
        return self.path

    def __enter__(self) -> TemplateBuilder:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is None:
            self.close()


#: Where a workbook prints its figures (the About sheet, issue 31 item 3): each NJ_* table
#: is computed on a hidden companion sheet and shown by ordinary formulas, whose saved
#: values LibreOffice 7.4 keeps (it recomputes an array formula calling a function it does
#: not know, and a formula whose saved value is a boolean); nj-incentives saves the checks'
#: TRUE and FALSE as 1 and 0, shown TRUE and FALSE (docs/filling.md, "Printing from
#: LibreOffice").
PRINTING = (
    "Anywhere, LibreOffice included, once nj-incentives has saved its figures in it (fill "
    "--cache-values, sign, calc's results workbook, the shipped examples): the figures "
    "and checks print as saved. A copy last saved by Excel: print it from Excel."
)
CHECKS_SUBTITLE = (
    "Every check must be TRUE; the master check is TRUE only when all are. Without the "
    "NJ_* functions (LibreOffice, a preview) the checks print as nj-incentives last saved "
    "them (fill --cache-values, sign, calc); a copy last saved by Excel, from Excel."
)


def _last_filled(
    first: int,
    values: Mapping[str, Sequence[object]],
    leading_values: Sequence[Sequence[object] | None],
    builder: TemplateBuilder,
    source: str,
) -> int | None:
    """The last row of a table starting at row ``first`` holding something given (an
    input, a value a leading column shows again, a tickmark or a source); None when
    nothing is given at all."""
    columns: list[Sequence[object]] = [*values.values()]
    columns += [shown for shown in leading_values if shown is not None]
    if source:
        for suffix in (TICK_SUFFIX, SOURCE_SUFFIX):
            given = builder.sources.get(source + suffix)
            if isinstance(given, (list, tuple)):
                columns.append(given)
            elif given is not None and given != "":
                columns.append([given])  # one text: the first row's
    last = None
    for column in columns:
        for i, value in enumerate(column):
            if value is not None and value != "" and (last is None or i > last):
                last = i
    return None if last is None else first + last


def source_name(table: InputTable) -> str:
    """The name an input table's tickmark and source columns take (``<name>Tick``,
    ``<name>Source``): its first named input column's, else its first span's, else the
    table's own name; "" for none (no such columns)."""
    for column in table.columns:
        if column.name:
            return column.name
    if table.spans:
        return table.spans[0].name
    return table.name


def shown_formula(cell: str) -> str:
    """The ordinary formula showing the companion's ``cell`` (``'Calculations NJ'!C5``):
    its value; a blank (a row past the table's result) as ""; an error as "" too: an
    application without the NJ_* functions that recomputes the cell (LibreOffice does when
    its saved value is the empty text, as Excel saves "") finds the array formula's
    #NAME? there, and a table shorter than its range shows #N/A below it as a legacy array
    (Excel 2019). The figures' formulas and the table's own check read the companion, so
    an error still fails the checks."""
    return f'=IFERROR(IF(ISBLANK({cell}),"",{cell}),"")'


def numbers_only(ref: Ref) -> str:
    """A condition: every cell of ``ref`` is a number or blank (``""`` counts as blank,
    as in Excel's COUNTBLANK); any text or error makes it FALSE."""
    return f"COUNT({ref.a})+COUNTBLANK({ref.a})=ROWS({ref.a})*COLUMNS({ref.a})"


def _inside(inner: Ref, outer: Ref) -> bool:
    return (
        inner.sheet == outer.sheet
        and outer.row <= inner.row
        and inner.bottom <= outer.bottom
        and outer.col <= inner.col
        and inner.right <= outer.right
    )


def _is_cell_reference(name: str) -> bool:
    match = re.fullmatch(r"([A-Za-z]{1,3})(\d+)", name)
    if not match:
        return False
    letters, digits = match.groups()
    col = 0
    for ch in letters.upper():
        col = col * 26 + ord(ch) - 64
    return col <= 16384 and 0 < int(digits) <= 1_048_576


# --------------------------------------------------------------------------- auditing builds


def audit(path: str | Path) -> list[str]:
    """What breaks the template rules in a built workbook: an unprotected sheet; an
    unlocked cell without the input style or without data validation; a locked cell in
    the input style. Empty when the workbook follows them."""
    import openpyxl

    book = openpyxl.load_workbook(path)
    problems = []
    input_fill = "FF" + INPUT_FILL[1:].upper()
    for ws in book.worksheets:
        if not ws.protection.sheet:
            problems.append(f"{ws.title}: not protected")
        validated: set[str] = set()
        for dv in ws.data_validations.dataValidation:
            for rng in dv.sqref.ranges:
                validated.update(
                    cell.coordinate
                    for row in ws.iter_rows(
                        min_row=rng.min_row,
                        max_row=rng.max_row,
                        min_col=rng.min_col,
                        max_col=rng.max_col,
                    )
                    for cell in row
                )
        for row in ws.iter_rows():
            for cell in row:
                styled = bool(cell.fill.fill_type) and cell.fill.fgColor.rgb == input_fill
                where = f"{ws.title}!{cell.coordinate}"
                if not cell.protection.locked:
                    if not styled:
                        problems.append(f"{where}: unlocked but not in the input style")
                    if cell.coordinate not in validated:
                        problems.append(f"{where}: an input without data validation")
                elif styled and ws.title != ABOUT:
                    problems.append(f"{where}: in the input style but locked")
    return problems


# --------------------------------------------------------------------------- comparing builds


def fingerprint(path: str | Path) -> dict[str, Any]:
    """What a rebuild must reproduce: per sheet every cell's value or formula (array
    formulas with their range), number format, font, fill and lock; data validations,
    conditional formats, protection and merged cells; the workbook's defined names and
    document properties. Independent of zip timestamps and XML byte order."""
    import openpyxl

    book = openpyxl.load_workbook(path)
    result: dict[str, Any] = {
        "sheets": book.sheetnames,
        "names": {name: dn.attr_text for name, dn in sorted(book.defined_names.items())},
        "properties": {
            "title": book.properties.title,
            "creator": book.properties.creator,
            "created": str(book.properties.created),
        },
    }
    for ws in book.worksheets:
        cells = {}
        for row in ws.iter_rows():
            for cell in row:
                value = cell.value
                if value is None and not cell.has_style:
                    continue
                if hasattr(value, "text") and hasattr(value, "ref"):
                    value = ("array", value.ref, value.text)
                cells[cell.coordinate] = (
                    value if not isinstance(value, (dt.date, dt.datetime)) else str(value),
                    cell.number_format,
                    (
                        cell.font.b,
                        cell.font.i,
                        str(cell.font.color.rgb) if cell.font.color else None,
                    ),
                    str(cell.fill.fgColor.rgb) if cell.fill and cell.fill.fill_type else None,
                    cell.protection.locked,
                )
        result[ws.title] = {
            "cells": cells,
            "validations": sorted(
                (str(dv.sqref), dv.type, dv.operator, dv.formula1, dv.formula2, dv.error, dv.prompt)
                for dv in ws.data_validations.dataValidation
            ),
            "conditional": sorted(
                (str(rng.sqref), tuple((r.type, r.operator, tuple(r.formula or ())) for r in rules))
                for rng, rules in ws.conditional_formatting._cf_rules.items()
            ),
            "protected": bool(ws.protection.sheet),
            "merged": sorted(str(m) for m in ws.merged_cells.ranges),
            "widths": {k: v.width for k, v in sorted(ws.column_dimensions.items()) if v.width},
            "charts": len(getattr(ws, "_charts", ())),
        }
    return result


class Template(Protocol):
    """A template's declaration, as the engine reads it: a module of a program's
    ``templates`` part (``programs/beip/templates/grant.py``)."""

    TEMPLATE_ID: str

    def workpaper(self, values: Mapping[str, Any] | None = None) -> Workpaper: ...


def companion_sheets(paper: Workpaper) -> tuple[str, ...]:
    """The sheets of ``paper`` holding an array formula (a table of an NJ_* function, a
    formula table's spilled block), in the workbook's order: each gets a companion."""
    sheets = {
        item.sheet
        for item in paper.items
        if isinstance(item, ArrayTable)
        or (
            isinstance(item, FormulaTable)
            and any(isinstance(cell, Spill) for line in item.rows for cell in line)
        )
    }
    order = [INPUTS, *paper.input_sheets, CALCULATIONS, OUTPUTS]
    order += [name for name, _ in paper.output_sheets]
    return tuple(sheet for sheet in order if sheet in sheets)


def build_template(
    template: Template,
    path: str | Path,
    values: Mapping[str, Any] | None = None,
    function_namespace: str = "",
) -> Path:
    """Write ``template`` to ``path`` (blank inputs), or a filled workbook with ``values``
    (keys as in the template's ``EXAMPLE``)."""
    paper = template.workpaper(values)
    with TemplateBuilder(
        path,
        title=paper.title,
        template_id=paper.template_id,
        function_namespace=function_namespace,
        engagement=paper.engagement,
        input_sheets=paper.input_sheets,
        output_sheets=paper.output_sheets,
        companions=companion_sheets(paper),
    ) as b:
        b.about(paper.purpose, sheet_notes=paper.sheet_notes, sources=paper.sources)
        b.lay_out(paper.items, paper.values)
    return Path(path)
