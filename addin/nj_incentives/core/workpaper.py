"""The workpaper schema: what a template declares, and the contract its cells keep.

A template is declared, not drawn: a sequence of line items (:data:`LineItem`) that the
layout engine (:mod:`nj_incentives.workpapers.templates.builder`, over xlsxwriter) writes
on its sheets, each below what is there; no declaration touches a worksheet or counts
rows. A program declares its templates with these names only (``programs/<key>/
templates/``), so this module imports nothing but the standard library:

- :class:`Title`, :class:`Section`, :class:`Note`, :class:`Skip`, :class:`SourceHeading`;
- :class:`Item`: one input (label, name, kind, unit, validation, help) or one figure (a
  formula over defined names; NJ_* functions are spelled for the runtime by the engine);
- :class:`InputTable`: a table of inputs, one :class:`Column` each (validation, name, the
  key of its values);
- :class:`ArrayTable`: a table-returning NJ_* function as one dynamic-array formula;
- :class:`FormulaTable`: a table of formulas, each reading its own table's cells by header
  (``[[cell:H]]``) and a :class:`Spill` for a row- or block-returning function;
- :class:`Total`, :class:`Chart`, :class:`Check` (the Checks sheet's lines).

A template module declares its ``TEMPLATE_ID``, its line items, its filled ``EXAMPLE``
and ``workpaper(values)``, the :class:`Workpaper` the engine writes for those values
(its title, its About sheet's text, its line items); and, if it has them, its payroll
roster (``ROSTER``, :class:`Roster`) and how it rolls to its next period
(``ROLL_FORWARD``, :class:`RollForward`), which ``fill`` and ``rollforward`` read.

The rest is the contract between a template's cells and the code that reads them: the
sheet names, the engagement and sign-off fields and their defined names
(:data:`ENGAGEMENT_FIELDS`, :data:`SIGNOFF_INPUTS`: the memo, ``sign``, ``fill`` and
``rollforward`` read them), the sign-off lines' words, the tickmarks and the suffixes of
the source cells' names. The builder's docstring says what a formula around the NJ_*
results may do (presentation only).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from nj_incentives.core.forms import Line

if TYPE_CHECKING:
    from nj_incentives.core.inputs import InputRule

__all__ = [
    "ABOUT",
    "ALL_ENGAGEMENT_FIELDS",
    "CALCULATIONS",
    "CENT_TOLERANCE",
    "CHECKS",
    "COMPANION_SUFFIX",
    "CONFIG",
    "ENGAGEMENT_FIELDS",
    "INPUTS",
    "INPUTS_HASH",
    "NOT_COMPUTED",
    "NUMERIC_KINDS",
    "OUTPUTS",
    "PRINTED_ROWS",
    "RETURN_SHEET",
    "ROSTER_KEY",
    "SIGNOFF_CURRENT",
    "SIGNOFF_FIELDS",
    "SIGNOFF_INPUTS",
    "SIGNOFF_ROLES",
    "SIGNOFF_STATUS",
    "SOURCE_SUFFIX",
    "TICKMARKS",
    "TICK_SUFFIX",
    "UNPRINTED_SHEETS",
    "ArrayTable",
    "CarriedFigure",
    "Chart",
    "Check",
    "Column",
    "EngagementField",
    "FormulaTable",
    "InputTable",
    "Item",
    "Kind",
    "Last",
    "LineItem",
    "Note",
    "ReturnBlock",
    "ReturnLine",
    "ReturnOf",
    "RollForward",
    "RollRefused",
    "RolledPeriod",
    "Roster",
    "Section",
    "Skip",
    "SourceHeading",
    "Span",
    "Spill",
    "Title",
    "Total",
    "Workpaper",
    "blank",
    "column_values",
    "companion",
    "is_companion",
    "last_row",
    "money",
    "named_period",
    "row_cell",
    "set_row",
]

#: Sheet names, in order.
ABOUT, INPUTS, CALCULATIONS, OUTPUTS, CHECKS, CONFIG = (
    "About",
    "Inputs",
    "Calculations",
    "Outputs",
    "Checks",
    "xlwings.conf",
)

#: The sheets a person never prints: hidden (Excel and LibreOffice print no hidden sheet;
#: the classic xlwings add-in reads a hidden xlwings.conf as a visible one).
UNPRINTED_SHEETS = (CONFIG,)

#: The hidden sheet beside a visible sheet of tables (``Calculations NJ``): it holds, at
#: the same cell addresses, the array formulas of that sheet's tables, which the visible
#: sheet shows through ordinary references. LibreOffice (and any application without the
#: NJ_* functions) keeps the saved value of an ordinary formula but recomputes an array
#: formula calling a function it does not know (#NAME?), and what reads it; a table kept
#: out of sight prints its saved values (issue 31; docs/filling.md, "Printing").
COMPANION_SUFFIX = " NJ"


def companion(sheet: str) -> str:
    """The hidden sheet holding ``sheet``'s array formulas (:data:`COMPANION_SUFFIX`)."""
    return sheet + COMPANION_SUFFIX


def is_companion(sheet: str) -> bool:
    """Whether ``sheet`` is a companion sheet of array formulas."""
    return sheet.endswith(COMPANION_SUFFIX)


#: The sheet-level name of the rows of a table that ends its sheet: the sheet prints them
#: through the last one filled (all of them when none is: a form to fill in by hand).
PRINTED_ROWS = "PrintedRows"
#: The sheet of a template's return (its own printed page, after Outputs): the figures of
#: one tax year's return, each on the line of the form edition in force for that year.
RETURN_SHEET = "Return"

#: What a total shows when a cell it adds up is not a number.
NOT_COMPUTED = "not computed: see Checks"

#: Tolerance of the money checks: half a cent.
CENT_TOLERANCE = 0.005


class Kind(StrEnum):
    """What a cell holds; decides its number format and its validation."""

    MONEY = "money"
    PERCENT = "percent"
    DATE = "date"
    COUNT = "count"
    YEAR = "year"
    NUMBER = "number"
    YESNO = "yesno"
    CHOICE = "choice"
    TEXT = "text"
    CHECK = "check"


NUMERIC_KINDS = frozenset({Kind.MONEY, Kind.PERCENT, Kind.DATE, Kind.COUNT, Kind.YEAR, Kind.NUMBER})


@dataclass(frozen=True)
class EngagementField:
    """One engagement field on Inputs; its defined ``name`` is the contract with the memo,
    the results workbook and the run stamp."""

    key: str
    label: str
    name: str
    kind: Kind
    unit: str
    help: str
    #: shown in the engagement band at the top of every printed page
    band: bool = True


#: The engagement fields every template's Inputs carries, in order (``key``: the key
#: in a template's ``values["engagement"]``).
ENGAGEMENT_FIELDS: tuple[EngagementField, ...] = (
    EngagementField(
        "client",
        "Client",
        "EngagementClient",
        Kind.TEXT,
        "name",
        "The taxpayer, as on its returns.",
    ),
    EngagementField(
        "entity_id",
        "Entity ID",
        "EngagementEntityId",
        Kind.TEXT,
        "id",
        "The filing entity's New Jersey tax ID or FEIN (typed as text: 12-3456789).",
    ),
    EngagementField(
        "period",
        "Tax period(s)",
        "EngagementPeriod",
        Kind.TEXT,
        "text",
        "The tax period or periods this workpaper covers, e.g. 2023-01-01 to 2027-12-31.",
    ),
    EngagementField(
        "preparer", "Prepared by", "EngagementPreparer", Kind.TEXT, "name", "Who prepared it."
    ),
    EngagementField(
        "reviewer", "Reviewed by", "EngagementReviewer", Kind.TEXT, "name", "Who reviewed it."
    ),
    EngagementField(
        "date",
        "Date",
        "EngagementDate",
        Kind.DATE,
        "date",
        "The date of the workpaper (prepared or last reviewed).",
    ),
)

#: The sign-off's further inputs (beside the preparer, the reviewer and the date of
#: :data:`ENGAGEMENT_FIELDS`): when each signed, and the hash of the inputs they signed
#: (:mod:`nj_incentives.functions.inputs_hash`), which ``nj-incentives sign`` writes.
_SIGNOFF_EXTRA: tuple[EngagementField, ...] = (
    EngagementField(
        "prepared_on",
        "Prepared on",
        "EngagementPreparedOn",
        Kind.DATE,
        "date",
        "The date the preparer signed (nj-incentives sign --preparer).",
        band=False,
    ),
    EngagementField(
        "preparer_hash",
        "Preparer's inputs hash",
        "EngagementPreparerHash",
        Kind.TEXT,
        "hash",
        "The inputs hash when the preparer signed: copy 'Inputs hash now' here (Paste "
        "Special > Values), or let nj-incentives sign write it.",
        band=False,
    ),
    EngagementField(
        "reviewed_on",
        "Reviewed on",
        "EngagementReviewedOn",
        Kind.DATE,
        "date",
        "The date the reviewer signed (nj-incentives sign --reviewer).",
        band=False,
    ),
    EngagementField(
        "reviewer_hash",
        "Reviewer's inputs hash",
        "EngagementReviewerHash",
        Kind.TEXT,
        "hash",
        "The inputs hash when the reviewer signed: copy 'Inputs hash now' here (Paste "
        "Special > Values), or let nj-incentives sign write it.",
        band=False,
    ),
)
_BY_KEY = {field.key: field for field in (*ENGAGEMENT_FIELDS, *_SIGNOFF_EXTRA)}

#: The sign-off block on Inputs, in order: who prepared it, when, the inputs hash they
#: signed; the same for the reviewer; the workpaper's date.
SIGNOFF_INPUTS: tuple[EngagementField, ...] = tuple(
    _BY_KEY[key]
    for key in (
        "preparer",
        "prepared_on",
        "preparer_hash",
        "reviewer",
        "reviewed_on",
        "reviewer_hash",
        "date",
    )
)

#: The sign-off cells' defined names: what a roll forward clears (both sign-offs' names,
#: dates and inputs hashes, and the workpaper's date); the inputs hash leaves them out,
#: as it leaves out the sources and tickmarks.
SIGNOFF_FIELDS: tuple[str, ...] = tuple(field.name for field in SIGNOFF_INPUTS)

#: Every engagement input on Inputs (the band's and the sign-off's), in the order written.
ALL_ENGAGEMENT_FIELDS: tuple[EngagementField, ...] = (
    *(field for field in ENGAGEMENT_FIELDS if field not in SIGNOFF_INPUTS),
    *SIGNOFF_INPUTS,
)

#: The defined name of the live inputs hash on Inputs (``=NJ_INPUTS_HASH(...)``).
INPUTS_HASH = "InputsHash"
#: The defined names of the Checks sheet's sign-off lines (text) and of the cell that is
#: FALSE when a sign-off's inputs changed since (not part of the master check).
SIGNOFF_STATUS = ("SignoffPrepared", "SignoffReviewed")
SIGNOFF_CURRENT = "SignoffCurrent"

#: Each sign-off: its word, and the names of who signed, when, and the hash stored.
SIGNOFF_ROLES: tuple[tuple[str, str, str, str], ...] = (
    ("prepared", "EngagementPreparer", "EngagementPreparedOn", "EngagementPreparerHash"),
    ("reviewed", "EngagementReviewer", "EngagementReviewedOn", "EngagementReviewerHash"),
)
#: What a sign-off line says (the Checks sheet's formulas and nj_incentives.workpapers.signoff).
SIGNOFF_NOT_SIGNED = {
    "prepared": "not prepared (no sign-off)",
    "reviewed": "not reviewed (no sign-off)",
}
SIGNOFF_NO_DATE = "(no date)"
SIGNOFF_NO_HASH = "; no inputs hash stored"
SIGNOFF_UNCHANGED = "; inputs unchanged since"
SIGNOFF_CHANGED = "; inputs changed since"
SIGNOFF_NOT_COMPUTED = "; inputs hash not computed here (no add-in functions)"
SIGNOFF_UNKNOWN = "not computed"

#: The tickmarks and what each means (the legend printed on Inputs).
TICKMARKS: tuple[tuple[str, str], ...] = (
    ("A", "agreed to the source document named beside the input"),
    ("R", "recomputed: the figure was recalculated and agrees"),
    ("P", "agreed to the prior year's workpaper"),
    ("T", "traced to the return or form line named in the source"),
    ("C", "confirmed with the client or a third party"),
    ("E", "estimate or judgment: the source says whose and why"),
)
#: The suffixes of the defined names of an input's tickmark and source cells
#: (``AgreementDateTick``, ``AgreementDateSource``; a table's: its first column's name).
TICK_SUFFIX, SOURCE_SUFFIX = "Tick", "Source"


@dataclass(frozen=True)
class Column:
    """One column of an input or result table."""

    header: str
    kind: Kind
    unit: str = ""
    name: str | None = None
    choices: tuple[str, ...] = ()
    minimum: float | dt.date | None = None
    maximum: float | dt.date | None = None
    help: str = ""
    width: float = 16
    #: the title of the input prompt when the header is longer than Excel's 32 characters
    prompt: str = ""
    #: the cells' role in a table of formulas (calc, output, total, label); "" = the table's
    role: str = ""
    #: the header written as a number (a year heading a column of a matrix)
    number_header: bool = False
    #: an input column's values in a filled workbook: ``values[key]`` (:class:`InputTable`)
    key: str = ""
    #: an input column's value in every row when the values give none
    default: object = None


@dataclass(frozen=True)
class Spill:
    """A formula returning ``height`` rows of ``width`` cells (a dynamic array), in a
    table of formulas, written at its top-left cell: the other cells it covers are None."""

    formula: str
    width: int = 1
    height: int = 1


@dataclass(frozen=True)
class Item:
    """One line item of a template: an input (no ``formula``) or a figure (a formula over
    defined names; NJ_* functions are spelled as the template's runtime needs).

    ``key``: where a filled workbook's ``values`` hold the input (``default`` if absent);
    ``name``: the workbook-level name of its cell; ``sheet``: "" for Inputs (an input) or
    Calculations (a figure); ``role``: calc, output or total; ``source``: where the
    figure goes on the form, or the law it comes from."""

    label: str
    name: str | None
    kind: Kind
    unit: str
    formula: str = ""
    key: str = ""
    default: object = None
    choices: tuple[str, ...] = ()
    minimum: float | dt.date | None = None
    maximum: float | dt.date | None = None
    help: str = ""
    prompt: str = ""
    role: str = "calc"
    source: str = ""
    sheet: str = ""


@dataclass(frozen=True)
class Section:
    """A section heading (``width``: the columns its fill spans)."""

    text: str
    width: int = 3
    sheet: str = INPUTS


@dataclass(frozen=True)
class Note:
    """A line of instructions, wrapped across the sheet."""

    text: str
    sheet: str = INPUTS


@dataclass(frozen=True)
class Skip:
    """Blank rows."""

    rows: int = 1
    sheet: str = INPUTS


@dataclass(frozen=True)
class Title:
    """A sheet's title and subtitle (its first rows; on Inputs the engagement fields
    follow), and how it prints: ``landscape`` (None: whichever prints larger) and
    ``narrow``: narrower (label, unit) columns for a sheet of one table with short row
    labels."""

    text: str
    subtitle: str = ""
    sheet: str = INPUTS
    landscape: bool | None = None
    narrow: tuple[float, float] | None = None


@dataclass(frozen=True)
class SourceHeading:
    """A heading over the sources written beside the figures below it, in a column
    ``width`` characters wide."""

    text: str
    width: float
    sheet: str = OUTPUTS


@dataclass(frozen=True)
class Span:
    """A defined ``name`` for the columns ``first`` to ``last`` (headers) of a table: their
    data cells, or with ``header`` their header cells."""

    name: str
    first: str
    last: str
    header: bool = False


@dataclass(frozen=True)
class InputTable:
    """A table of inputs: a header row, a units row and one row per label, each column
    validated and named (:class:`Column`). A filled workbook's ``values[column.key]`` is
    a sequence (one value per row) or, with ``row_keys``, a mapping from a row's key to
    its value; a column's ``default`` fills every row when the values give none.
    ``leading``: formula columns (one formula per row, locked) before the inputs, whose
    formulas may read ``[[at:Name:row]]`` (see :meth:`TemplateBuilder.resolve`).
    ``repeat_header``: the header repeats on every printed page (the sheet's only
    table). ``name``: how other formulas refer to the table (``[[data:Name:Header]]``)."""

    row_labels: tuple[str, ...]
    columns: tuple[Column, ...]
    label_header: str = ""
    row_keys: tuple[object, ...] = ()
    leading: tuple[tuple[Column, str], ...] = ()
    repeat_header: bool = False
    spans: tuple[Span, ...] = ()
    name: str = ""
    sheet: str = INPUTS
    #: per leading column, the key of the input values it shows again (a name from
    #: another sheet): a filled workbook caches them as the formulas' results, so that
    #: a viewer that does not recalculate (a LibreOffice print) shows them; "" for none
    shows: tuple[str, ...] = ()


@dataclass(frozen=True)
class ArrayTable:
    """A table-returning NJ_* function as one dynamic-array formula over ``rows`` rows
    (:meth:`SheetWriter.array_table`). ``name``: the workbook-level name of its whole
    range, and how formulas refer to its data (``[[data:Name:Header]]``,
    ``[[at:Name:Header:i]]``)."""

    formula: str
    columns: tuple[Column, ...]
    rows: int
    header_from_function: bool = True
    label: str = ""
    row_labels: tuple[str | int, ...] = ()
    label_header: str = ""
    role: str = "calc"
    name: str | None = None
    dynamic: bool = True
    sheet: str = CALCULATIONS
    #: each data row this many lines high, its text wrapped (a table of sentences)
    lines: int = 1


@dataclass(frozen=True)
class FormulaTable:
    """A table of formulas, one per cell (a number, a :class:`Spill`, or None under a
    spill), read by :meth:`SheetWriter.formula_table`: a formula reads its own table's
    cells by header (``[[cell:H]]``...) and any named range or table by name
    (:meth:`TemplateBuilder.resolve`; ``row`` is the row's index). ``name``: how other
    formulas refer to the table; ``spans``: defined names over some of its columns.
    ``shows``: for a formula choosing among texts known when the template is built (a
    form line's label by edition), the texts each cell may show, row by row and column by
    column (``()``: none given): each row is made as tall as the longest of them wrapped
    at its column's width (a column whose ``role`` wraps: ``label``)."""

    columns: tuple[Column, ...]
    rows: tuple[tuple[str | float | Spill | None, ...], ...]
    row_labels: tuple[str, ...] = ()
    label_header: str = ""
    role: str = "calc"
    name: str = ""
    spans: tuple[Span, ...] = ()
    sheet: str = CALCULATIONS
    shows: tuple[tuple[tuple[str, ...], ...], ...] = ()


@dataclass(frozen=True)
class Total:
    """The sum of a range (``of``: a reference, e.g. ``[[data:Schedule:Grant]]``), or
    :data:`NOT_COMPUTED` when any of its cells is not a number
    (:meth:`SheetWriter.total`)."""

    label: str
    of: str
    name: str | None = None
    kind: Kind = Kind.MONEY
    unit: str = "$"
    role: str = "total"
    sheet: str = CALCULATIONS


@dataclass(frozen=True)
class Chart:
    """A native Excel chart: ``categories`` and each series' values are references
    (``[[data:Table:Header]]``)."""

    title: str
    categories: str
    series: tuple[tuple[str, str], ...]
    y_title: str = ""
    x_title: str = ""
    sheet: str = OUTPUTS


@dataclass(frozen=True)
class Check:
    """One line of the Checks sheet: ``formula`` must be TRUE (an error counts as FALSE).
    Its constructors :meth:`equal`, :meth:`at_most` and :meth:`numbers` write the
    common ones; :meth:`refused` a check that names the first cell its rule refuses."""

    label: str
    formula: str
    citation: str = ""
    #: A formula giving blank, or the text naming the first cell refused (NJ_INPUT_REFUSED):
    #: the check is TRUE when it is blank, else its line says which cell and why.
    refusal: str = ""
    #: What a refused line says before the cell: the label without its rule, which the
    #: refusal states with its citation (each once: the cell, value, rule and citation).
    subject: str = ""
    #: What joins ``subject`` and the refusal's text ("": "; the first cell refused: ")
    joiner: str = ""

    @classmethod
    def refused(cls, label: str, subject: str, refusal: str, citation: str = "") -> Check:
        """TRUE when ``refusal`` (one NJ_INPUT_REFUSED call over a whole range) is blank,
        and the line reads ``label``; else FALSE, and the line reads ``subject; the first
        cell refused: 'Sheet'!E7 = 800: rule (citation)``."""
        return cls(label, "", citation, refusal, subject)

    @classmethod
    def detailed(
        cls, label: str, subject: str, detail: str, citation: str = "", joiner: str = ": "
    ) -> Check:
        """TRUE when ``detail`` (a formula giving text) is blank, and the line reads
        ``label``; else FALSE, and the line reads ``subject``, ``joiner`` and the text (what
        failed, e.g. the obligations past due)."""
        return cls(label, "", citation, detail, subject, joiner)

    @classmethod
    def equal(cls, label: str, a: str, b: str, citation: str = "") -> Check:
        """``a`` and ``b`` (formulas or references) agree to half a cent."""
        return cls(label, f"ABS(({a})-({b}))<{CENT_TOLERANCE}", citation)

    @classmethod
    def at_most(cls, label: str, a: str, b: str, citation: str = "") -> Check:
        """``a`` does not exceed ``b`` (half a cent of tolerance)."""
        return cls(label, f"({a})<=({b})+{CENT_TOLERANCE}", citation)

    @classmethod
    def numbers(cls, label: str, ref: str, citation: str = "") -> Check:
        """Every cell of ``ref`` (a reference) is a number or blank."""
        return cls(label, f"COUNT({ref})+COUNTBLANK({ref})=ROWS({ref})*COLUMNS({ref})", citation)


#: What :meth:`TemplateBuilder.lay_out` interprets.
LineItem = (
    Item
    | Section
    | Note
    | Skip
    | Title
    | SourceHeading
    | InputTable
    | ArrayTable
    | FormulaTable
    | Total
    | Chart
    | Check
)


@dataclass(frozen=True)
class Workpaper:
    """One workbook as a template lays it out for some values: what the engine writes
    (:func:`nj_incentives.workpapers.templates.builder.build_template`)."""

    #: the template's id (``beip-grant-schedule``), stored in the workbook's properties
    template_id: str
    #: the workbook's title (its document properties, its sheets' titles)
    title: str
    #: the About sheet's paragraph: what the workbook does
    purpose: str
    #: the line items, in the order the engine lays them out
    items: tuple[LineItem, ...]
    #: the values a filled workbook holds (keys as in the template's ``EXAMPLE``)
    values: Mapping[str, Any] = field(default_factory=dict)
    #: the engagement fields' values (keys as in :data:`ENGAGEMENT_FIELDS`)
    engagement: Mapping[str, Any] | None = None
    #: the About sheet's notes on some sheets: (sheet, what it holds)
    sheet_notes: Sequence[tuple[str, str]] = ()
    #: the About sheet's sources of law
    sources: Sequence[str] = ()
    #: sheets of inputs of their own, after Inputs (a table too long for one page)
    input_sheets: Sequence[str] = ()
    #: sheets of figures of their own, after Outputs (:data:`RETURN_SHEET`), each with
    #: what it holds for the About sheet
    output_sheets: Sequence[tuple[str, str]] = ()


# --------------------------------------------------------------------------- payroll roster

#: the key of a template's values (and of ``fill``'s DATA) that holds its roster's
#: employees, each a mapping as :class:`Roster` describes
ROSTER_KEY = "employees"


@dataclass(frozen=True)
class Roster:
    """A template's payroll roster (``ROSTER`` in its module): one row per employee, on
    roster sheets of ``per_sheet`` rows, at most ``most_sheets`` of them per period.
    ``fill`` takes it as ``employees`` in DATA (each a mapping of the ``fields``' keys and
    each period's monthly hours) or from a payroll file (``--hours``); ``rollforward``
    reads it back from the workbook by its defined names.

    ``fields``: per employee field, (its key in an employee's entry, its column's defined
    name on the first roster sheet (a further sheet's ends in 2, 3, ...), the column's key
    in the builder's values); the first is the employee's name, the others yes/no flags
    read by ``flag_citation``'s rule. ``hours``: per period, (its key in an employee's
    entry, the defined name of its hours on the first roster sheet), each month's hours
    read by ``hours_rule`` (a month's hours, and a month's hours summed over a payroll
    file's rows). ``months``: months in each period.

    A payroll file (``--hours``, :mod:`nj_incentives.workpapers.payroll`) names a period
    by its key or one of its ``period_names``, and may give calendar months instead,
    placed by ``calendar``: from the date the template's data names ``calendar_from``
    by (its key in DATA, e.g. ``operations_start``), each period's first and last day, in
    the order of ``hours``; ``period_labels`` name the periods in messages."""

    label: str
    per_sheet: int
    most_sheets: int
    fields: tuple[tuple[str, str, str], ...]
    hours: tuple[tuple[str, str], ...]
    hours_rule: InputRule
    flag_citation: str
    months: int = 12
    period_labels: tuple[str, ...] = ()
    period_names: Mapping[str, str] = field(default_factory=dict)
    calendar_from: str = ""
    calendar: Callable[[dt.date], tuple[tuple[dt.date, dt.date], ...]] | None = None

    @property
    def periods(self) -> tuple[str, ...]:
        """The periods' keys, in order."""
        return tuple(key for key, _ in self.hours)

    def sheets(self, employees: int) -> int:
        """Roster sheets per period for ``employees`` rows (at least one)."""
        return max(1, -(-employees // self.per_sheet))

    def blank_employee(self) -> dict[str, Any]:
        """An employee's entry with every field and every month's hours blank."""
        return {key: None for key, _, _ in self.fields} | {
            key: [None] * self.months for key in self.periods
        }


# --------------------------------------------------------------------------- roll forward
#
# A template that rolls to its next period declares ``ROLL_FORWARD`` (:class:`RollForward`);
# ``nj-incentives rollforward`` (:mod:`nj_incentives.workpapers.rollforward`) recalculates
# the last period's workbook, reads its inputs back and hands them over as plain data
# (:class:`Last`), and writes what the template's ``roll`` returns. A template that
# declares none is refused by name.


class RollRefused(ValueError):
    """The workbook cannot be rolled forward (a period past the law's last year, none to
    roll from): the message names the cell; nothing is written (status 1)."""


@dataclass(frozen=True)
class Last:
    """The last period's workbook as a roll forward reads it, plain data: ``names``,
    every defined name's recalculated value (a range's as a list of rows); ``refers``,
    each defined name (upper case) -> its cells (``Inputs!C52:C59``); ``where``, the
    workbook's file name (how messages begin); ``rows``, each input's rows (0: one cell);
    ``results``, an NJ_* function's name -> its result in the workbook (its first
    computed call; read on demand)."""

    names: Mapping[str, Any]
    refers: Mapping[str, str]
    where: str
    rows: Mapping[str, int]
    results: Mapping[str, object]


@dataclass(frozen=True)
class CarriedFigure:
    """One figure a roll carries, as a program reads it (``rollforward --json``): what
    it is (a defined name, ``CarriedForward``, or ``OpeningCarried[1]``), its value (a
    number; a date as ISO text; None for blank), its unit (``$``, ``date``, ``periods``)
    and the period it is the figure of or after (``"2025-12-31"``, ``"tax year 2023"``)."""

    name: str
    value: float | int | str | None
    unit: str
    period: str


@dataclass(frozen=True)
class RolledPeriod:
    """What a template's ``roll`` did: the periods rolled from and to (``"tax year
    2023"``), what was carried (one line each), and the new period's row (1-based) in
    the template's period tables; ``figures``: the figures carried, as numbers."""

    period_from: str
    period_to: str
    carried: list[str]
    row: int
    figures: tuple[CarriedFigure, ...] = ()


@dataclass(frozen=True)
class RollForward:
    """How a template rolls to its next period.

    ``carried``: which of last year's outputs become which of this year's inputs, and why
    (output, input, citation; docs/filling.md, "Rolling forward"). ``new_period``: the
    inputs of the new period (a row of each), in the order of the template; ``entered_if``:
    an input of them to enter only when another input is given (``PartnerTax`` when
    ``PartnerPct``). ``roll(values, last)``: the inputs of the last workbook (name ->
    value, as DATA gives them) rolled in place to the next period, or
    :class:`RollRefused`. ``engagement_period(values, current)``: the engagement's period
    after the roll (``current``: the new period's last word, ``"2024"``)."""

    carried: tuple[tuple[str, str, str], ...]
    new_period: tuple[str, ...]
    roll: Callable[[dict[str, object], Last], RolledPeriod]
    engagement_period: Callable[[Mapping[str, object], str], str]
    entered_if: Mapping[str, str] = field(default_factory=dict)


def blank(value: object) -> bool:
    """A blank cell: none, or text of spaces only."""
    return value is None or (isinstance(value, str) and not value.strip())


def money(value: object) -> str:
    """An amount as a roll forward reports it (``$245,000.16``)."""
    return f"${float(value):,.2f}" if isinstance(value, (int, float)) else str(value)


def last_row(column: Sequence[object]) -> int:
    """The number (1-based) of the last non-blank row, 0 if none."""
    return max((n for n, v in enumerate(column, 1) if not blank(v)), default=0)


def set_row(values: dict[str, object], name: str, row: int, value: object) -> None:
    """Row ``row`` (1-based) of the table column ``name`` set to ``value``."""
    column = list(values.get(name) or [])  # type: ignore[call-overload]
    column += [None] * (row - len(column))
    column[row - 1] = value
    values[name] = column


def column_values(value: object) -> list[object]:
    """A named range's rows as one column's values, trailing blanks dropped."""
    if not isinstance(value, list):
        return [value]
    cells = [row[0] if isinstance(row, list) and row else row for row in value]
    while cells and (cells[-1] is None or cells[-1] == ""):
        cells.pop()
    return cells


def named_period(
    values: Mapping[str, object], pattern: str, loose: str | None = None
) -> str | None:
    """The current period as the engagement's period names it (a roll forward writes
    "Grant year 3 of 5", "Tax year 2024 ..."; a range names its last): None if it
    names none. ``loose``: how a person's own wording names it ("FY 2023", "2022-2023",
    "Year 2 of 5"), tried when ``pattern`` finds nothing: its last match (a free-text
    period is not passed over for the last period with figures, which may be a
    projection: a roll from it would skip a year)."""
    import re

    text = values.get("EngagementPeriod")
    if not isinstance(text, str):
        return None
    match = re.search(pattern, text, re.IGNORECASE)
    if match is None:
        found = re.findall(loose, text, re.IGNORECASE) if loose else []
        return str(found[-1]) if found else None
    return str(match.groups()[-1] or match.group(1))


def row_cell(reference: str, row: int) -> str:
    """The cell of row ``row`` (1-based) of a one-column range ``Sheet!C40:C47``."""
    import re

    sheet, _, cells = reference.rpartition("!")
    match = re.fullmatch(r"([A-Z]{1,3})(\d+)(?::[A-Z]{1,3}\d+)?", cells)
    if not match:
        return reference
    return f"{sheet}!{match.group(1)}{int(match.group(2)) + row - 1}"


# --------------------------------------------------------------------------- the return


@dataclass(frozen=True)
class ReturnLine:
    """One figure of a return: the form line it goes on (``line``, the edition in force
    for the tax year: :mod:`nj_incentives.core.forms`; None: a figure no form line holds,
    named by ``label``), its amount in dollars (None: not computed by this workpaper) and
    a note."""

    label: str
    amount: Decimal | None
    line: Line | None = None
    note: str = ""

    def text(self) -> str:
        """``"Form 313 (2023 edition, rev. October 2023) Part III, line 7: $32,500.00"``."""
        where = self.line.label(what=False) if self.line is not None else ""
        head = f"{self.label} ({where})" if where else self.label
        amount = "not computed here" if self.amount is None else f"${self.amount:,.2f}"
        return f"{head}: {amount}" + (f" ({self.note})" if self.note else "")


@dataclass(frozen=True)
class ReturnBlock:
    """What goes on one tax year's return from a workpaper: its lines, each on the form
    edition in force for that year, and notes (a credit allowed for a later period, an
    edition older than the tax year)."""

    template: str
    tax_year: int
    period_end: dt.date | None
    lines: tuple[ReturnLine, ...]
    notes: tuple[str, ...] = ()

    def text(self) -> str:
        """The block as a reviewer reads it, one line a figure."""
        period = f" (privilege period ending {self.period_end})" if self.period_end else ""
        rows = [f"Return for tax year {self.tax_year}{period}: {self.template}"]
        rows += [f"  {line.text()}" for line in self.lines]
        rows += [f"  Note: {note}" for note in self.notes]
        return "\n".join(rows)

    def as_dict(self) -> dict[str, object]:
        """The block for JSON: every amount a number (dollars, to the cent) or null."""
        return {
            "template": self.template,
            "tax_year": self.tax_year,
            "period_end": None if self.period_end is None else self.period_end.isoformat(),
            "lines": [
                {
                    "label": line.label,
                    "form": None if line.line is None else line.line.edition.form,
                    "edition": None if line.line is None else line.line.edition.year,
                    "part": None if line.line is None else line.line.part,
                    "line": None if line.line is None else line.line.number,
                    "where": None if line.line is None else line.line.label(what=False),
                    "amount": None if line.amount is None else float(line.amount),
                    "note": line.note,
                }
                for line in self.lines
            ],
            "notes": list(self.notes),
        }


#: A template's return: ``RETURN(read, tax_year)`` over a recalculated workbook's named
#: values (``read(name)``, as the recalculation gives them: a table a list of rows, a
#: date an Excel serial), or None when the workbook holds no period of that tax year.
ReturnOf = Callable[[Callable[[str], Any], int], "ReturnBlock | None"]
