"""A template's Return sheet and its return block, declared once (issue 31, item 1).

A template that puts figures on a return declares a :class:`ReturnSpec`: each figure of
the return (:class:`ReturnFigure`: its label, the per-tax-year cells it is read from,
the form line it goes on, the law), the workbook's column of tax years and of period
ends, and the tax year shown by default. From that one declaration come

- :func:`sheet_items`: the Return sheet (its own printed page), in formulas: an input
  cell chooses the tax year (blank: the default, the engagement's last period), each
  figure is read from its per-year cells by the tax year's row, and each form line's
  label is a formula over the tax year choosing the form edition in force for it
  (:func:`edition_formula`, from :mod:`nj_incentives.programs.forms`: a 2022 return shows
  the 2021 Form 324 numbering);
- :func:`block`: the same figures, read from the same cells of a recalculated workbook,
  as a :class:`~nj_incentives.core.workpaper.ReturnBlock` (``calc --return``, ``--json``
  and memo page 1).

So the sheet, ``calc`` and the memo read one set of cells, not two computations.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from nj_incentives.core.forms import Line
from nj_incentives.core.workpaper import (
    RETURN_SHEET,
    Column,
    FormulaTable,
    Item,
    Kind,
    LineItem,
    Note,
    ReturnBlock,
    ReturnLine,
    Section,
    Title,
)
from nj_incentives.programs import forms as F

__all__ = [
    "CHOSEN",
    "ReturnFigure",
    "ReturnSkip",
    "ReturnSpec",
    "block",
    "combined_filer_item",
    "combined_filer_skip",
    "edition_formula",
    "edition_texts",
    "no_line_block",
    "no_line_items",
    "sheet_items",
]

#: The Return sheet's input (the tax year chosen) and the tax year it shows.
CHOSEN, SHOWN = "ReturnYearChosen", "ReturnTaxYear"
#: What a figure shows for a tax year the workpaper holds no period of.
NO_PERIOD = "no period of this tax year"
#: What the form line's column shows for a figure that goes on no form line.
ON_NO_LINE = "(on no form line)"
#: The Return sheet's columns, characters: the figures' labels and units, the form lines
#: and the law (all but the units wrapped; the law wide enough for two citations a line,
#: not broken at a hyphen)
LABEL_WIDTH, UNIT_WIDTH, FORM_WIDTH, LAW_WIDTH = 40, 12, 72, 42


@dataclass(frozen=True)
class ReturnFigure:
    """One figure of the return: ``source`` the per-tax-year cells it is read from (a
    defined name of one column, or ``"Table:Header"``: a column of a declared table);
    ``form`` and ``item`` the form line it goes on (:func:`nj_incentives.programs.forms.
    line`; None: no form line holds it, ``law`` names where it comes from)."""

    label: str
    source: str
    form: str | None = None
    item: str | None = None
    law: str = ""
    #: the figure is not computed for the return when the spec's :class:`ReturnSkip`
    #: input is Yes (a Part the filer skips)
    skippable: bool = False

    def reference(self) -> str:
        return _reference(self.source)

    def line(self, tax_year: int) -> Line | None:
        return (
            None
            if self.form is None or self.item is None
            else F.line(self.form, self.item, tax_year)
        )


@dataclass(frozen=True)
class ReturnSkip:
    """A Yes/No input under which the :attr:`ReturnFigure.skippable` figures are not
    computed for the return (a combined return filer skips Form 324's Part III): ``name``
    its defined name and ``label`` its label on the Inputs sheet, ``read`` the formula
    reading it as the functions read a boolean
    (:func:`nj_incentives.programs.template_inputs.read_formula`), ``where`` what such a
    figure's form line shows instead, ``amount`` what its amount shows, ``note`` the
    block's note (why)."""

    name: str
    label: str
    read: str
    where: str
    amount: str
    note: str


@dataclass(frozen=True)
class ReturnSpec:
    """A template's return: its figures, the tax year of each row of their cells
    (``years``: a source as :class:`ReturnFigure`'s, or the consecutive tax years of a
    table with one row a year), the period end of each row (``ends``), the default tax
    year (``default``: a formula, the engagement's period) and the template's heading
    and notes for the sheet."""

    template: str
    heading: str
    figures: tuple[ReturnFigure, ...]
    years: str | tuple[int, ...]
    ends: str
    default: str
    default_text: str
    notes: tuple[str, ...] = ()
    #: notes of a tax year's block beyond the forms' (``(read, row) -> notes``)
    more_notes: Callable[[Callable[[str], Any], int], Sequence[str]] | None = None
    #: the input under which the skippable figures are not computed (None: none)
    skip: ReturnSkip | None = None

    def forms(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.form for f in self.figures if f.form))


def _reference(source: str) -> str:
    return f"[[data:{source}]]" if ":" in source else f"[[name:{source}]]"


def _text(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


#: What a form line's label adds for a tax year before the form's first edition found.
EARLIEST = " (the earliest edition found)"


def _editions(form: str, item: str) -> list[tuple[int | None, str]]:
    """(the year it applies from, the label of ``item``) of each edition of ``form``,
    oldest first."""
    return [
        (edition.year, F.FORMS[form].line(item, edition.year or 0).label(what=False))
        for edition, _ in F.FORMS[form].editions
    ]


def edition_texts(form: str, item: str) -> tuple[str, ...]:
    """Every text :func:`edition_formula` may show: each edition's label, and the first
    edition's for a tax year before it (the Return sheet's rows are made tall enough for
    the longest, wrapped)."""
    labels = _editions(form, item)
    return (labels[0][1] + EARLIEST, *(label for _, label in labels))


def edition_formula(form: str, item: str, year: str) -> str:
    """A formula giving the form, edition, part and line of ``item`` of ``form`` in the
    edition in force for the tax year in the cell ``year`` (the row's label says what it
    holds): the editions' labels, newest first, each from
    the year its edition applies (a year before the first edition reads the first,
    whose label then says so)."""
    labels = _editions(form, item)
    text = _text(labels[0][1] + EARLIEST)
    for applies, label in labels:
        text = _text(label) if applies is None else f"IF({year}>={applies},{_text(label)},{text})"
    return text


def _row(spec: ReturnSpec) -> str:
    """The row of the shown tax year in the per-year cells (#N/A: none)."""
    if isinstance(spec.years, tuple):
        first, last = spec.years[0], spec.years[-1]
        return f"IF(AND({SHOWN}>={first},{SHOWN}<={last}),{SHOWN}-{first - 1},NA())"
    return f"MATCH({SHOWN},{_reference(spec.years)},0)"


def sheet_items(spec: ReturnSpec) -> tuple[LineItem, ...]:
    """The Return sheet: the tax year (chosen, or the default), its period end, and each
    figure with its form, edition and line for that year, and the law."""
    on = RETURN_SHEET
    low, high = (spec.years[0], spec.years[-1]) if isinstance(spec.years, tuple) else (1990, 2100)
    # a tax year before a form's first edition found: its label says so (edition_formula)
    at = _row(spec)
    return (
        Title(
            "Return",
            "One tax year's return from this workpaper, each figure on the line of the form "
            "edition in force for that tax year. Valid only when Checks!MasterCheck is TRUE.",
            sheet=on,
            landscape=None,  # whichever prints larger (the figures and their form lines)
            narrow=(LABEL_WIDTH, UNIT_WIDTH),
        ),
        Section(spec.heading, width=5, sheet=on),
        Item(
            "Tax year of the return (blank: the default)",
            CHOSEN,
            Kind.YEAR,
            "year",
            key="return_tax_year",
            minimum=low,
            maximum=high,
            help=f"The tax year (CBT-100 numbering) whose return this sheet shows; blank: "
            f"{spec.default_text}.",
            prompt="Tax year of the return",
            sheet=on,
        ),
        Item(
            "Tax year shown",
            SHOWN,
            Kind.YEAR,
            "year",
            f"IF(ISBLANK({CHOSEN}),{spec.default},{CHOSEN})",
            sheet=on,
        ),
        Item(
            "Privilege period ending",
            "ReturnPeriodEnd",
            Kind.DATE,
            "date",
            f"IFERROR(INDEX({_reference(spec.ends)},{at}),{_text(NO_PERIOD)})",
            sheet=on,
        ),
        Item("All checks pass", None, Kind.CHECK, "TRUE/FALSE", "MasterCheck", sheet=on),
        FormulaTable(
            (
                # the form line's label and the law wrap (role label), each row as tall as
                # the longest label its formula may show (``shows``): a long Schedule A-3
                # label ran over the law, and the law was cut at the amount
                Column(
                    "Form, edition, part and line", Kind.TEXT, "", width=FORM_WIDTH, role="label"
                ),
                Column("Law", Kind.TEXT, "", width=LAW_WIDTH, role="label"),
                Column("Amount", Kind.MONEY, "$", name="ReturnAmounts", width=14),
            ),
            tuple(
                _skipping(
                    spec,
                    figure,
                    edition_formula(figure.form, figure.item, SHOWN)
                    if figure.form and figure.item
                    else _text(ON_NO_LINE),
                    _text(figure.law),
                    f"IFERROR(INDEX({figure.reference()},{at}),{_text(NO_PERIOD)})",
                )
                for figure in spec.figures
            ),
            row_labels=tuple(figure.label for figure in spec.figures),
            label_header="Figure",
            name="ReturnSheet",
            sheet=on,
            shows=tuple(
                (
                    (
                        edition_texts(figure.form, figure.item)
                        if figure.form and figure.item
                        else (ON_NO_LINE,)
                    )
                    + ((spec.skip.where,) if spec.skip and figure.skippable else ()),
                    (figure.law,),
                    (),
                )
                for figure in spec.figures
            ),
        ),
        *(Note(text, sheet=on) for text in spec.notes),
        *((Note(spec.skip.note, sheet=on),) if spec.skip else ()),
    )


def _skipping(
    spec: ReturnSpec, figure: ReturnFigure, where: str, law: str, amount: str
) -> tuple[str, str, str]:
    """A figure's row of the Return sheet: under the spec's skip input answered Yes, a
    skippable figure's form line says why and its amount is a text, never a number (a
    refused answer shows the refusal in both)."""
    from nj_incentives.programs.template_inputs import switch

    if spec.skip is None or not figure.skippable:
        return where, law, amount
    read = spec.skip.read
    return (
        switch(read, _text(spec.skip.where), where),
        law,
        switch(read, _text(spec.skip.amount), amount),
    )


def skipped(spec: ReturnSpec, read: Callable[[str], Any]) -> tuple[bool, str | None]:
    """Whether the spec's skip input is Yes in a recalculated workbook, and the note of a
    refused answer (None: read)."""
    from nj_incentives.core.inputs import InputError, as_bool

    if spec.skip is None:
        return False, None
    value = read(spec.skip.name)
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, list):
        value = value[0] if value else None
    if value is None or (isinstance(value, str) and not value.strip()):
        return False, None
    try:
        return as_bool(value, spec.skip.name), None
    except InputError as error:
        return True, f"{spec.skip.label}: {error}; the figures it decides are not shown"


def _amount(value: object) -> Decimal | None:
    """A recalculated amount as dollars to the cent (None: not a number)."""
    if isinstance(value, list):  # a one-cell row of a column
        value = value[0] if value else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return Decimal(str(value)).quantize(Decimal("0.01"))


def values(read: Callable[[str], Any], source: str) -> list[object]:
    """The per-row values of ``source`` (:class:`ReturnFigure`) in a recalculated
    workbook: a named column's cells, or a declared table's column (below its header)."""
    if ":" in source:
        name, header = source.split(":", 1)
        table = read(name)
        if not isinstance(table, list) or not table:
            return []
        heads = [str(h) for h in table[0]] if isinstance(table[0], list) else []
        if header not in heads:
            return []
        j = heads.index(header)
        return [row[j] if isinstance(row, list) and j < len(row) else None for row in table[1:]]
    column = read(source)
    if not isinstance(column, list):
        return [column]
    return [row[0] if isinstance(row, list) and row else row for row in column]


def row_of(spec: ReturnSpec, read: Callable[[str], Any], tax_year: int) -> int | None:
    """The row of ``tax_year`` in the per-year cells (None: no period of that year)."""
    if isinstance(spec.years, tuple):
        return spec.years.index(tax_year) if tax_year in spec.years else None
    years = values(read, spec.years)
    found = [
        k
        for k, year in enumerate(years)
        if isinstance(year, (int, float)) and not isinstance(year, bool) and int(year) == tax_year
    ]
    return found[0] if found else None


def block(spec: ReturnSpec, read: Callable[[str], Any], tax_year: int) -> ReturnBlock | None:
    """The return of ``tax_year``: the Return sheet's figures for that year, read from the
    same cells (None: the workbook holds no period of that tax year)."""
    from nj_incentives.core.cells import date_from_serial

    k = row_of(spec, read, tax_year)
    if k is None:
        return None
    ends = values(read, spec.ends)
    serial = ends[k] if k < len(ends) else None
    end: dt.date | None = None
    if isinstance(serial, (int, float)) and not isinstance(serial, bool):
        end = date_from_serial(float(serial))
    lines = []
    skip, refused = skipped(spec, read)
    for figure in spec.figures:
        if skip and spec.skip is not None and figure.skippable:
            lines.append(ReturnLine(figure.label, None, None, spec.skip.where))
            continue
        column = values(read, figure.source)
        lines.append(
            ReturnLine(
                figure.label,
                _amount(column[k]) if k < len(column) else None,
                figure.line(tax_year),
                figure.law,
            )
        )
    notes = list(spec.more_notes(read, k) if spec.more_notes else ())
    if skip and spec.skip is not None:
        notes.append(refused or spec.skip.note)
    for form in spec.forms():
        if F.FORMS[form].before_first(tax_year):
            notes.append(
                f"no {form} edition for tax year {tax_year} was found: the lines are the "
                f"{F.FORMS[form].edition(tax_year).name}'s"
            )
    return ReturnBlock(spec.template, tax_year, end, tuple(lines), tuple(notes))


#: The Yes/No input of a combined return filer (Form 324, 2023 edition: Part III skipped,
#: Part IV completed; shared/legal-notes.md section 7; no source gives Part IV's lines).
COMBINED, COMBINED_LABEL = "CombinedReturnFiler", "Combined return filer (Form 324 Part IV)"
#: What such a filer's Part III figures show on the Return sheet in place of a form line,
#: and in place of an amount.
COMBINED_WHERE = (
    "combined return filer: Form 324 Part III skipped, Part IV completed (its lines: no "
    "source found)"
)
COMBINED_AMOUNT = "not computed: Part IV"


def combined_filer_item() -> Item:
    """The input: Yes/No, default No (fill key ``combined_return_filer``)."""
    return Item(
        COMBINED_LABEL,
        COMBINED,
        Kind.YESNO,
        "yes/no",
        key="combined_return_filer",
        default=False,
        prompt="Combined return filer?",
        help="No (default): Form 324 Part III on the Return sheet. Yes: a combined return "
        "filer skips Part III for Part IV, whose lines no source found gives: the Part III "
        "figures are not computed for the return.",
    )


def combined_filer_skip(figures: str) -> ReturnSkip:
    """The :class:`ReturnSkip` of :func:`combined_filer_item` (``figures``: the note's
    clause saying which of the template's figures are not computed)."""
    from nj_incentives.core.inputs import InputKind, InputRule
    from nj_incentives.programs.template_inputs import read_formula

    return ReturnSkip(
        COMBINED,
        COMBINED_LABEL,
        # the rule template_inputs.rules finds for it: a boolean no NJ_* function reads
        read_formula(COMBINED, InputRule(InputKind.BOOLEAN, "")),
        COMBINED_WHERE,
        COMBINED_AMOUNT,
        f"A combined return filer (the input '{COMBINED_LABEL}' Yes) skips Form 324's Part "
        "III and completes Part IV (the 2023 edition; shared/legal-notes.md section 7), whose "
        f"lines no source found gives: {figures} (docs/interpretations.md, Form 324 Part IV).",
    )


def no_line_items(heading: str, text: str, *more: str) -> tuple[LineItem, ...]:
    """The Return sheet of a template whose figures go on no return line: why, cited
    (``text``, the block's note too), and ``more`` notes."""
    return (
        Title(
            "Return",
            "What this workpaper puts on a tax return, and where.",
            sheet=RETURN_SHEET,
            landscape=False,
        ),
        Section(heading, width=5, sheet=RETURN_SHEET),
        Note(text, sheet=RETURN_SHEET),
        *(Note(note, sheet=RETURN_SHEET) for note in more),
    )


def no_line_block(template: str, text: str) -> Callable[[Callable[[str], Any], int], ReturnBlock]:
    """The ``RETURN`` of such a template: every tax year's block has no line, and says why
    (the Return sheet's text)."""

    def of(read: Callable[[str], Any], tax_year: int) -> ReturnBlock:
        del read
        return ReturnBlock(template, tax_year, None, (), (text,))

    return of
