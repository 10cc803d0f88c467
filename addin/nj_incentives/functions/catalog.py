"""The catalog: every NJ_* calculation's name, description, citation, arguments (with
their help text and how their cells are read), example and result columns, declared once.

Everything that shows or checks a calculation's shape reads it from here: the Excel
adapters (:mod:`nj_incentives.excel`, which add the two halves that call the core and
turn its result into cells), ``NJ_EXPLAIN`` and the memo (through the adapters), the
function reference (:mod:`nj_incentives.functions.reference` -> ``docs/functions.md``), the scenario
runner's per-period result columns (:mod:`nj_incentives.scenarios.columns`) and the
templates' tables. Pure data: no xlwings, and the core is not imported (arrows point
toward :mod:`nj_incentives.core`, never out of it).
"""

from __future__ import annotations

import datetime as dt
import functools
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from nj_incentives.core import parameters as P
from nj_incentives.core.cells import (
    Cell,
    as_date_cell,
    as_scalar,
    as_table,
    as_vector,
    formula_text,
    input_error,
    is_blank,
    python_value,
    refuse_error_cells,
    serial_to_date,
)
from nj_incentives.runtimes.vba import vba_identifier_problem

#: Figures of law as the texts below show them (law.parameters: every version).
_CAP = P.AVERAGE_CAP.brief()
_CAP_FROM = P.CAP_AGREEMENTS_FROM.single.isoformat()
_ERTC_ONE = P.CREDIT_YEAR_ONE_AMOUNT.brief()
_ERTC_TWO = P.CREDIT_YEAR_TWO_AMOUNT.brief()

__all__ = [
    "BASE_YEAR_COLUMNS",
    "BEIP_LAW",
    "CALCULATIONS",
    "CBT_FORM",
    "CONVERSION_SCHEDULE_COLUMNS",
    "CONVERSION_YEAR_COLUMNS",
    "CREDIT_YEARS_COLUMNS",
    "ERTC_LAW",
    "ERTC_PERIOD_COLUMNS",
    "ERTC_SCHEDULE_COLUMNS",
    "EXPLAIN_COLUMNS",
    "GRANT_SCHEDULE_COLUMNS",
    "GRANT_YEAR_COLUMNS",
    "Argument",
    "Calculation",
    "ResultColumn",
    "a_date",
    "calculation",
    "each",
    "each_date",
    "grid",
    "headers",
    "law_date",
    "raw",
    "result_table",
    "single",
]

# =========================================================================== arguments


@dataclass(frozen=True)
class Argument:
    """One argument of an Excel function: its help text and how its cells are read."""

    name: str
    doc: str
    #: "one" (a single cell), "date", "vector" (one per year/period/employee),
    #: "dates" (a vector of dates), "table" (rows x columns), "raw" (passed as given),
    #: "law" (a ``law_as_of`` date: its refusal names the versions available)
    kind: str
    optional: bool = False

    def read(self, value: Cell, citation: str) -> Cell:
        """The cells as the core's input: error cells refused, a blank None (or the error
        "is required"), anything else as :meth:`convert` reads it. The general path;
        :meth:`Calculation.convert` takes the common cells directly, with the same result."""
        if self.kind != "raw":  # a table's error cells are its rows' errors
            refuse_error_cells(value, self.name, citation)
        if is_blank(python_value(value)):
            if not self.optional:
                raise input_error(self.name, None, "is required", citation)
            return None
        return self.convert(value, citation)

    def convert(self, value: Cell, citation: str) -> Cell:
        """The cells as the core's input (a blank argument has been handled already)."""
        if self.kind == "one":
            return as_scalar(value, self.name, citation)
        if self.kind == "date":
            return as_date_cell(as_scalar(value, self.name, citation), self.name, citation)
        if self.kind == "vector":
            return as_vector(value, self.name, citation)
        if self.kind == "dates":
            return [
                as_date_cell(cell, self.name, citation)
                for cell in as_vector(value, self.name, citation)
            ]
        if self.kind == "table":
            return as_table(value, self.name, citation)
        if self.kind == "law":
            return law_date_cell(value, self.name, citation)
        return python_value(value)


def law_date_cell(value: Cell, argument: str, citation: str) -> Cell:
    """A ``law_as_of`` cell: a date cell (:func:`~nj_incentives.core.cells.as_date_cell`) whose
    refusal, like the core's (:func:`nj_incentives.core.inputs.as_law_as_of`), names the
    versions available of the statute ``citation`` cites."""
    try:
        return as_date_cell(value, argument, citation)
    except ValueError as error:
        from nj_incentives.core.inputs import CITE_LAW_AS_OF, InputError

        if not isinstance(error, InputError):
            raise
        statute = next(
            (key for key, law in P.STATUTES.items() if citation.startswith(law.citation)), None
        )
        versions = "" if statute is None else f"; versions available: {P.versions_text(statute)}"
        raise input_error(argument, error.value, error.rule + versions, CITE_LAW_AS_OF) from None


def single(doc: str) -> tuple[str, str]:
    """A single-cell argument (number, text or boolean)."""
    return "one", doc


def a_date(doc: str) -> tuple[str, str]:
    """A single date cell."""
    return "date", doc


def law_date(doc: str) -> tuple[str, str]:
    """A ``law_as_of`` date cell (its refusal names the versions available)."""
    return "law", doc


def each(doc: str) -> tuple[str, str]:
    """A row or column of values, one per year, period or employee."""
    return "vector", doc


def each_date(doc: str) -> tuple[str, str]:
    """A row or column of dates."""
    return "dates", doc


def raw(doc: str) -> tuple[str, str]:
    """A range passed on as it is (a table with a header row of names)."""
    return "raw", doc


def grid(doc: str) -> tuple[str, str]:
    """A table of cells (rows x columns)."""
    return "table", doc


# =========================================================================== result columns

#: What a result column holds: money and fractions are shown as the float of the exact
#: figure; "value" shows a Decimal as a float and anything else as it is.
Unit = Literal["date", "money", "int", "fraction", "number", "text", "value"]


@dataclass(frozen=True)
class ResultColumn:
    """One column of a calculation's result table: its header, the field of the core's
    row it shows, what it holds and what it means."""

    header: str
    field: str
    unit: Unit
    doc: str
    #: the stem of the scenario runner's result columns that give this column once per
    #: grant year, tax year or privilege period (``<stem>_<k>``); blank: none
    scenario: str = ""

    def cell(self, row: object) -> Cell:
        """This column's cell for one row of the core's result."""
        return self.shown(getattr(row, self.field))

    @functools.cached_property
    def shown(self) -> Callable[[object], Cell]:
        """How this column shows one value of its field (:meth:`cell` without the look-up;
        chosen once per column, not per cell)."""
        if self.unit == "value":
            return _value_cell
        if self.unit in ("money", "fraction", "number"):
            return _number_cell
        return _as_is


def _as_is(value: object) -> Cell:
    return value


def _value_cell(value: object) -> Cell:
    """A "value" cell: a Decimal as its float, anything else as it is."""
    return float(value) if isinstance(value, Decimal) else value


def _number_cell(value: object) -> Cell:
    """A money, fraction or number cell: the float of the exact figure; None, booleans,
    whole numbers, text and dates as they are."""
    if type(value) is Decimal:  # the common case, directly
        return float(value)
    if value is None or isinstance(value, bool | int | str | dt.date):
        return value
    return float(value)  # type: ignore[arg-type]


def headers(columns: Sequence[ResultColumn]) -> list[str]:
    """The header row of a result table."""
    return [column.header for column in columns]


def result_table(columns: Sequence[ResultColumn], rows: Iterable[object]) -> list[list[Cell]]:
    """A result table: the header row, then each row of the core's result as the columns
    show it (:meth:`ResultColumn.cell`)."""
    fields = operator.attrgetter(*(column.field for column in columns))
    shown = [column.shown for column in columns]
    if len(shown) == 1:  # attrgetter of one field gives the value, not a tuple
        only = shown[0]
        return [headers(columns)] + [[only(fields(row))] for row in rows]
    return [headers(columns)] + [
        [show(value) for show, value in zip(shown, fields(row), strict=True)] for row in rows
    ]


def _listed(columns: Sequence[ResultColumn]) -> str:
    """The headers as a description names them: "Year, Grant, Cumulative grant"."""
    return ", ".join(headers(columns))


GRANT_SCHEDULE_COLUMNS = (
    ResultColumn("Year", "year", "int", "Grant year, 1 to the term"),
    ResultColumn(
        "Withholdings", "withholdings", "money", "Withholdings of the year's new employees"
    ),
    ResultColumn("Partner tax", "partner_tax", "money", "Partners' estimated tax of the year"),
    ResultColumn(
        "Grant before cap",
        "grant_before_cap",
        "money",
        "The year's grant before the cap",
        scenario="grant_before_cap",
    ),
    ResultColumn(
        "Cap room",
        "cap_room",
        "number",
        f"What the {_CAP} average cap still allows in the year (blank: the cap does not apply)",
    ),
    ResultColumn(
        "Grant", "grant", "money", "Grant paid for the year, after the cap", scenario="grant"
    ),
    ResultColumn("Cumulative grant", "cumulative", "money", "Grants paid so far"),
)

#: The fourth column is shown only for a filer whose year does not end in December or
#: who numbers by the calendar year (see ``NJ_BEIP_CONVERSION_SCHEDULE``).
CONVERSION_SCHEDULE_COLUMNS = (
    ResultColumn("Tax year", "tax_year", "int", "Tax year the credit is issued for"),
    ResultColumn("Share", "share", "fraction", "Share of the converted amount"),
    ResultColumn(
        "Installment",
        "amount",
        "money",
        "Tax credit issued for the tax year",
        scenario="installment",
    ),
    ResultColumn(
        "Period end", "period_end", "date", "Last day of the privilege period of the return"
    ),
)

ERTC_SCHEDULE_COLUMNS = (
    ResultColumn("Period end", "period_end", "date", "Last day of the privilege period"),
    ResultColumn(
        "New credit",
        "new_credit",
        "money",
        "Credit allowed in the period",
        scenario="ertc_new_credit",
    ),
    ResultColumn("Carried in", "carried_in", "money", "Unused credit carried into the period"),
    ResultColumn(
        "Limit", "limit", "money", "Most of the credit usable in the period", scenario="ertc_limit"
    ),
    ResultColumn("Used", "used", "money", "Credit used in the period", scenario="ertc_used"),
    ResultColumn(
        "Refund",
        "refund",
        "money",
        "Year-one credit refunded in the period",
        scenario="ertc_refund",
    ),
    ResultColumn(
        "Carried out",
        "carried_out",
        "money",
        "Unused credit after the period",
        scenario="ertc_carried_out",
    ),
    ResultColumn(
        "Expired", "expired", "money", "Credit expired in the period", scenario="ertc_expired"
    ),
)

#: The schedules' columns the scenario runner gives once per grant year (``grant_<k>``),
#: tax year (``installment_<year>``) or privilege period (``ertc_used_<k>``): ``scenario``.
GRANT_YEAR_COLUMNS = tuple(column for column in GRANT_SCHEDULE_COLUMNS if column.scenario)
CONVERSION_YEAR_COLUMNS = tuple(column for column in CONVERSION_SCHEDULE_COLUMNS if column.scenario)
ERTC_PERIOD_COLUMNS = tuple(column for column in ERTC_SCHEDULE_COLUMNS if column.scenario)

CREDIT_YEARS_COLUMNS = (
    ResultColumn("Credit year", "number", "int", "1 or 2"),
    ResultColumn("First day", "start", "date", "First day of the credit year"),
    ResultColumn("Last day", "end", "date", "Last day of the credit year"),
)

BASE_YEAR_COLUMNS = (
    ResultColumn("First day", "start", "date", "First day of the base year"),
    ResultColumn(
        "Last day", "end", "date", "Last day of the base year, the day before credit year one"
    ),
)

EXPLAIN_COLUMNS = (
    ResultColumn("Step", "label", "text", "What the step computes"),
    ResultColumn("Value", "value", "value", "The step's figure"),
    ResultColumn("Arithmetic", "arithmetic", "text", "How it was computed"),
    ResultColumn("Citation", "citation", "text", "The law it applies"),
)


# =========================================================================== calculations


@dataclass(frozen=True)
class Calculation:
    """One catalog calculation: what Excel shows about it and how its cells are read.

    The description (with its citation) is what Excel's Insert Function dialog shows;
    ``columns`` are the header and fields of a result table (None: a single value or a
    row without header).
    """

    name: str
    description: str
    citation: str
    arguments: tuple[Argument, ...]
    vararg: Argument | None
    example: tuple[Cell, ...]
    columns: tuple[ResultColumn, ...] | None = None

    @functools.cached_property
    def message_citation(self) -> str:
        """What a message about this function's cells cites: its law, or its reference."""
        return self.citation or f"{self.name}, docs/functions.md"

    def convert(self, args: Sequence[Cell], kwargs: dict[str, Cell]) -> list[Cell]:
        """The arguments as the core's inputs; blank required arguments are errors."""
        citation = self.message_citation
        arguments = self.arguments
        count = len(arguments)
        if len(args) > count and self.vararg is None:
            raise TypeError(f"{self.name} takes at most {count} arguments ({len(args)} given)")
        values: list[Cell] = list(args[:count])
        if len(values) < count:
            values += [None] * (count - len(values))
        for name, value in kwargs.items():
            index = next((i for i, a in enumerate(arguments) if a.name == name), None)
            if index is None:
                raise TypeError(f"{self.name} has no argument {name!r}")
            values[index] = value
        for index, argument in enumerate(arguments):
            value = values[index]
            # The common cells directly, with the outcome of Argument.read (the general path): a
            # number, TRUE/FALSE or plain text in a single cell is the core's input as it
            # is; a number in a date cell is a serial; a blank takes the default.
            kind = type(value)
            if value is None:
                if not argument.optional:
                    raise input_error(argument.name, None, "is required", citation)
                continue
            if kind is float or kind is int or kind is bool:
                if argument.kind == "one":
                    continue
                if argument.kind == "date" and kind is not bool:
                    values[index] = serial_to_date(float(value), argument.name, citation)
                    continue
            elif (
                kind is str
                and "#" not in value
                and argument.kind in ("one", "date")
                and value.strip()
            ):
                continue
            elif kind is list and argument.kind in ("vector", "dates") and _plain(value):
                # a row or column of numbers or text (xlwings passes it as a flat list)
                if argument.kind == "vector":
                    values[index] = list(value)
                else:
                    values[index] = [as_date_cell(c, argument.name, citation) for c in value]
                continue
            values[index] = argument.read(value, citation)
        # The further arguments (NJ_EXPLAIN's ``args``) are another function's: it reads
        # them, and its own argument names an error cell among them (``pct``, not ``args``).
        extras = [python_value(extra) for extra in args[count:]]
        return values + extras

    def formula(self, args: Sequence[Cell] | None = None, namespace: str = "") -> str:
        """The formula text calling this function (the example's by default)."""
        values = list(self.example if args is None else args)
        while values and values[-1] is None:
            values.pop()
        prefix = f"{namespace}." if namespace else ""
        return f"={prefix}{self.name}({', '.join(formula_text(v) for v in values)})"


def _plain(cells: list[Cell]) -> bool:
    """A flat, non-empty list of numbers, TRUE/FALSE and non-blank text that cannot be an
    error value: no cell of it is blank or an error, none is a range."""
    for cell in cells:
        kind = type(cell)
        if kind is float or kind is int or kind is bool:
            continue
        if kind is not str or "#" in cell or not cell.strip():
            return False
    return bool(cells)


#: Every calculation, by Excel name, in catalog order.
CALCULATIONS: dict[str, Calculation] = {}


def calculation(
    name: str,
    *,
    cite: str,
    description: str,
    example: tuple[Cell, ...],
    optional: tuple[str, ...] = (),
    vararg: str | None = None,
    columns: tuple[ResultColumn, ...] | None = None,
    **docs: tuple[str, str],
) -> Calculation:
    """Declare the calculation ``name``: ``docs`` gives every argument, in order, as its
    kind and help text (meaning and unit; :func:`single`, :func:`a_date` ...), the
    ``optional`` ones may be blank, ``vararg`` takes any further arguments. ``cite`` is the
    law it applies (empty for the few that apply none); the description must cite it and
    fit in Excel's 255 characters; every name must be usable in VBA (the classic add-in's
    wrappers)."""
    names = [n for n in docs if n != vararg]
    problems = [
        problem
        for problem in (vba_identifier_problem(n) for n in [name, *docs])
        if problem is not None
    ]
    if vararg is not None and vararg not in docs:
        problems.append(f"no help text for {vararg!r}")
    if not set(optional) <= set(names):
        problems.append(f"optional {sorted(set(optional) - set(names))} are not arguments")
    first_optional = min((names.index(n) for n in optional), default=len(names))
    if set(names[first_optional:]) != set(optional):
        problems.append("a required argument follows an optional one")
    if (cite and cite not in description) or len(description) > 255:
        problems.append("the description must cite the law and fit in 255 characters")
    if name in CALCULATIONS:
        problems.append("declared twice")
    if problems:
        raise TypeError(f"{name}: " + "; ".join(problems))
    entry = Calculation(
        name,
        description,
        cite,
        tuple(Argument(n, docs[n][1], docs[n][0], n in optional) for n in names),
        Argument(vararg, docs[vararg][1], "raw") if vararg is not None else None,
        example,
        columns,
    )
    CALCULATIONS[name] = entry
    return entry


# =========================================================================== shared help


#: The laws the calculations cite (each entry adds its subsection).
BEIP_LAW = "N.J.S.A. 34:1B-129"
ERTC_LAW = "N.J.S.A. 52:27BBB-55"
CBT_FORM = "Form CBT-100"


_BASIS = single(
    'What the percentage applies to: "withholdings" or "partners" (estimated tax of the '
    "partners of an eligible partnership); any case"
)
_LAW_AS_OF_BEIP = law_date(
    "The law as it stood on this date (Excel date); blank = every version modelled, chosen by"
    f" the calculation's own date. Versions: {P.versions_text('beip')}"
)
_LAW_AS_OF_ERTC = law_date(
    "The law as it stood on this date (Excel date); blank = every version modelled, chosen by"
    f" the calculation's own date. Versions: {P.versions_text('ertc')}"
)
_SMART_GROWTH = single(
    "TRUE if the grant promotes smart growth (N.J.S.A. 34:1B-129b.); blank = FALSE"
)
_DISCOUNT_RATE = single(
    "Annual rate for discounting to present value, a fraction (5% = 0.05); blank = 0"
)
_MAX_DISCOUNT_RATE = single(
    "Highest yearly discount rate accepted as a discount to present value; blank = 0.2"
)
_FRACTIONAL = single(
    "TRUE to keep fractional positions; blank = FALSE (whole positions, rounded down)"
)
_TAX_TYPE = single(
    '"cbt" (Corporation Business Tax) or "insurance" (premiums taxes); blank = "cbt"'
)
_NUMBERING = single(
    '"form" (the Division numbers a return by its form year: a period ending July-December'
    ' of N or January-June of N+1 is tax year N) or "calendar"; blank = "form"'
)
_YEAR_END_MONTH = single(
    "Month the filer's privilege period ends, 1-12 (6 = a June-30 filer); blank = 12"
)
_ACCRUAL_YEAR = single("Calendar year the approved grant accrued but was not paid, 2008 to 2025")
_APPROVAL_DATE = a_date(
    "Date the Authority approved the amount (Excel date); matters for 2008-2013 only; blank = "
    f"approved by {P.STATE_FISCAL_YEAR_2017_START.text()}"
)
_CREDIT = single("BEIP tax credit issued for the tax period, dollars")
_TAX_LIABILITY = single("Tax otherwise due for the period, dollars")
_MINIMUM_TAX_FLOOR = single(
    "Statutory minimum the credit may not take the tax below (the alternative reading);"
    " blank = 0 (the credit may take the tax to 0)"
)
_YEAR1_NEW = single("New full-time positions in credit year one")
_YEAR2_NEW = single("New full-time positions in credit year two")


# =========================================================================== the calculations

calculation(
    "NJ_BEIP_PCT_LIMITS",
    cite=f"{BEIP_LAW}a., b.",
    description=(
        "Lowest and highest BEIP grant percentage for a basis, as a 1x2 row of fractions: "
        "withholdings 10%-50%, partners' tax 10%-30%; 80% / 50% with smart growth (N.J.S.A. "
        "34:1B-129a., b.)."
    ),
    example=("withholdings", True),
    optional=("smart_growth",),
    basis=_BASIS,
    smart_growth=_SMART_GROWTH,
)


calculation(
    "NJ_BEIP_GRANT",
    cite=f"{BEIP_LAW}a., b.",
    description=(
        "Annual BEIP grant before the cap: withholdings x pct + partners' estimated tax x "
        "partner_pct, each part rounded down to the cent (N.J.S.A. 34:1B-129a., b.)."
    ),
    example=(1250000, 0.2),
    optional=("partner_tax", "partner_pct", "smart_growth"),
    withholdings=single("Withholdings of the business's new employees for the year, in dollars"),
    pct=single("Grant percentage of withholdings, a fraction (20% = 0.2); 0 if not used"),
    partner_tax=single(
        "Estimated tax of the partners of an eligible partnership, dollars; blank = 0"
    ),
    partner_pct=single("Grant percentage of the partners' estimated tax, a fraction; blank = 0"),
    smart_growth=_SMART_GROWTH,
)


calculation(
    "NJ_BEIP_CAP_APPLIES",
    cite=f"{BEIP_LAW}a.",
    description=(
        f'Whether the {_CAP} average cap per new employee binds the agreement: "Yes" for an '
        f'agreement entered into on or after {_CAP_FROM}, else "No" (N.J.S.A. 34:1B-129a.; '
        "N.J.A.C. 19:31I-1.4(a))."
    ),
    example=(dt.date(2010, 1, 1),),
    optional=("law_as_of",),
    agreement_date=a_date("Date the grant agreement was entered into (Excel date)"),
    law_as_of=_LAW_AS_OF_BEIP,
)


calculation(
    "NJ_BEIP_GRANT_SCHEDULE",
    cite=f"{BEIP_LAW}a.-c.; N.J.A.C. 19:31I-1.4(a)",
    description=(
        f"BEIP grant year by year over the term, after the {_CAP} average cap: "
        f"{_listed(GRANT_SCHEDULE_COLUMNS)} (N.J.S.A. 34:1B-129a.-c.; N.J.A.C. 19:31I-1.4(a))."
    ),
    columns=GRANT_SCHEDULE_COLUMNS,
    example=([600000, 600000, 600000], [10, 12, 2], 0.5, dt.date(2010, 1, 1)),
    optional=("smart_growth", "partner_tax", "partner_pct", "cap_method", "law_as_of"),
    withholdings=each("Withholdings per grant year, dollars: one cell per year (the term)"),
    new_employees=each("New employees certified per grant year: one cell per year"),
    pct=single("Grant percentage of withholdings, a fraction (50% = 0.5); 0 if not used"),
    agreement_date=a_date("Date the grant agreement was entered into (Excel date)"),
    smart_growth=_SMART_GROWTH,
    partner_tax=each("Partners' estimated tax per grant year, dollars; blank = 0 each year"),
    partner_pct=single("Grant percentage of the partners' estimated tax, a fraction; blank = 0"),
    cap_method=single(
        f'How the {_CAP} average cap applies: "per_year" (N.J.A.C. 19:31I-1.4(a) example),'
        ' "whole_term" or "proportional"; blank = "per_year"'
    ),
    law_as_of=_LAW_AS_OF_BEIP,
)


calculation(
    "NJ_BEIP_LIMIT_BASE",
    cite="N.J.S.A. 34:1B-134(b)",
    description=(
        "What the combined State grants limit is a share of: the withholdings, or the "
        'partners\' estimated tax when basis is "partners"; the other may be blank '
        "(N.J.S.A. 34:1B-134(b))."
    ),
    example=("withholdings", 600000),
    optional=("withholdings", "partner_tax"),
    basis=_BASIS,
    withholdings=single("Withholdings of the year's new employees, dollars"),
    partner_tax=single("Partners' estimated tax of the year, dollars"),
)


calculation(
    "NJ_BEIP_COMBINED_LIMIT",
    cite="N.J.S.A. 34:1B-134(b), (c)",
    description=(
        "Largest BEIP grant the combined State grants limit allows without the Treasurer's "
        "approval: 50% of withholdings (30% of partners' tax; 80% / 50% with smart growth) less "
        "other grants (N.J.S.A. 34:1B-134(b), (c))."
    ),
    example=(1000000, 150000, "withholdings"),
    optional=("smart_growth",),
    base_amount=single(
        "Withholdings (or partners' estimated tax) the limit is a share of, dollars"
    ),
    other_grants=single("All other State grants, dollars (Office of Customized Training excluded)"),
    basis=_BASIS,
    smart_growth=_SMART_GROWTH,
)


calculation(
    "NJ_BEIP_GRANT_OVER_LIMIT",
    cite="N.J.S.A. 34:1B-134(b)",
    description=(
        "A grant split at the combined State grants limit, as a 1x2 row: over it (needs the "
        "State Treasurer's approval), max(0, grant - combined_limit), and within it "
        "(N.J.S.A. 34:1B-134(b))."
    ),
    example=(300000, 250000),
    grant=single("The year's BEIP grant, dollars"),
    combined_limit=single(
        "Largest BEIP grant the combined limit allows, dollars (NJ_BEIP_COMBINED_LIMIT)"
    ),
)


calculation(
    "NJ_BEIP_CONVERSION_SCHEDULE",
    cite=f"{BEIP_LAW}e.(1)-(13)",
    description=(
        "Tax credits a grant accrued but not paid converts to: "
        f"{_listed(CONVERSION_SCHEDULE_COLUMNS)} (the return it goes on); each rounded down to"
        " the cent, the last taking the remainder (N.J.S.A. 34:1B-129e.(1)-(13))."
    ),
    columns=CONVERSION_SCHEDULE_COLUMNS,
    example=(2016, 100000),
    optional=(
        "approval_date",
        "grant_approval_date",
        "direction_date",
        "year_end_month",
        "numbering",
        "direction_deadline",
    ),
    accrual_year=_ACCRUAL_YEAR,
    amount=single("Approved grant amount converted to tax credits, dollars"),
    approval_date=_APPROVAL_DATE,
    grant_approval_date=a_date(
        "Date the business was approved for the grant, before"
        f" {P.ENACTMENT_P_L_2015_C_194.single}; blank = not checked"
    ),
    direction_date=a_date(
        f"Date the business directed the conversion; {P.ENACTMENT_P_L_2015_C_194.single} to"
        f" {P.DIRECTION_DEADLINE_PUBLISHED.single}; blank = not checked"
    ),
    year_end_month=_YEAR_END_MONTH,
    numbering=_NUMBERING,
    direction_deadline=single(
        f'"published" (through {P.DIRECTION_DEADLINE_PUBLISHED.single}, the Authority\'s'
        ' deadline) or "strict" (through 2016-07-09, day 180); blank = "published"'
    ),
)


calculation(
    "NJ_BEIP_CONVERSION_INSTALLMENT",
    cite=f"{BEIP_LAW}e.(1)-(13)",
    description=(
        "Tax credit issued for one tax year, or for the return of the privilege period ending on "
        "the date given, from a converted grant; 0 if none (N.J.S.A. 34:1B-129e.(1)-(13))."
    ),
    example=(2012, 1250000, 2018),
    optional=("approval_date", "numbering"),
    accrual_year=_ACCRUAL_YEAR,
    amount=single("Approved grant amount converted to tax credits, dollars"),
    tax_year=single(
        "Tax year whose installment is wanted (e.g. 2018), or the last day of the privilege"
        " period of the return (an Excel date)"
    ),
    approval_date=_APPROVAL_DATE,
    numbering=_NUMBERING,
)


calculation(
    "NJ_BEIP_CREDIT_APPLIED",
    cite=f"{BEIP_LAW}f.",
    description=(
        "BEIP credit applied against the tax, before all other credits and payments: min(credit, "
        "tax_liability - minimum_tax) (N.J.S.A. 34:1B-129f.)."
    ),
    example=(300000, 200000),
    optional=("minimum_tax",),
    credit=_CREDIT,
    tax_liability=_TAX_LIABILITY,
    minimum_tax=_MINIMUM_TAX_FLOOR,
)


calculation(
    "NJ_BEIP_CREDIT_REFUND",
    cite=f"{BEIP_LAW}f.",
    description=(
        "Excess of the BEIP credit over the tax, refunded as an overpayment (N.J.S.A. 34:1B-129f.)."
    ),
    example=(300000, 200000),
    optional=("minimum_tax",),
    credit=_CREDIT,
    tax_liability=_TAX_LIABILITY,
    minimum_tax=_MINIMUM_TAX_FLOOR,
)


calculation(
    "NJ_BEIP_TRANSFER_MIN_PRICE",
    cite=f"{BEIP_LAW}g.(3)",
    description=(
        "Lowest lawful consideration for a transfer certificate: 75% of the amount, then "
        "discounted to present value from the sale to the credit's tax period end, / (1 + "
        "discount_rate) ^ years, rounded down to the cent (N.J.S.A. 34:1B-129g.(3))."
    ),
    example=(200000, 0.1, None, dt.date(2024, 12, 31), dt.date(2025, 12, 31)),
    optional=("discount_rate", "years", "sale_date", "credit_period_end", "max_discount_rate"),
    transfer_amount=single("Amount of tax credit transferred, dollars"),
    discount_rate=_DISCOUNT_RATE,
    years=single(
        "Years to discount over; blank = from sale_date to credit_period_end (needed to"
        " discount, as NJ_BEIP_TRANSFER_CHECK)"
    ),
    sale_date=a_date("Date of the sale (Excel date); with credit_period_end it sets the years"),
    credit_period_end=a_date("Last day of the tax period the credit is issued for (Excel date)"),
    max_discount_rate=_MAX_DISCOUNT_RATE,
)


calculation(
    "NJ_BEIP_TRANSFER_CHECK",
    cite=f"{BEIP_LAW}g.(3)",
    description=(
        '"OK" if a proposed sale of a transfer certificate is lawful, or every reason it is not, '
        "with citations (N.J.S.A. 34:1B-129g.(3))."
    ),
    example=(1000000, 50000, 30000),
    optional=(
        "discount_rate",
        "years",
        "sale_date",
        "credit_period_end",
        "seller_is_transferee",
        "max_discount_rate",
    ),
    certificate_amount=single("Refundable credit on the transfer certificate, dollars"),
    transfer_amount=single("Amount of credit sold or assigned, dollars"),
    consideration=single("Price paid for it, dollars"),
    discount_rate=_DISCOUNT_RATE,
    years=single(
        "Years to discount over; blank = from sale_date to credit_period_end (needed to discount)"
    ),
    sale_date=a_date("Date of the sale or assignment (Excel date); blank = no discounting"),
    credit_period_end=a_date(
        "Last day of the tax period the credit is issued for, and used in (Excel date)"
    ),
    seller_is_transferee=single(
        "TRUE if the seller itself bought the credit (a transferee may not transfer it);"
        " blank = FALSE"
    ),
    max_discount_rate=_MAX_DISCOUNT_RATE,
)


#: The first day of P.L.2024, c.40's rule and the election deadline of P.L.2022, c.134.
_C40 = P.REMOTE_WORK_C40_FROM.single
_ELECT = P.REMOTE_WORK_ELECTION_BEFORE.single
_MOVED = P.REMOTE_WORK_WAIVER_END.at() + dt.timedelta(days=1)


calculation(
    "NJ_BEIP_REMOTE_WORK_PAYMENT",
    cite=f"{BEIP_LAW}h.(2)",
    description=(
        "Remote-work payment to the Authority: 5% of the 2022 tax credit (P.L.2022, c.134); for a "
        f"period ending from {_C40}, 10% of its maximum credit, non-refundable (P.L.2024, "
        "c.40); rounded down to the cent (N.J.S.A. 34:1B-129h.(2))."
    ),
    example=(412345.67,),
    optional=("period_end", "numbering", "c40_periods", "law_as_of"),
    credit=single(
        "Tax credit for the tax period, dollars: received for 2022, or the maximum for a"
        f" period from {_C40}"
    ),
    period_end=a_date(
        "Last day of the privilege period; it chooses the version; blank = the 2022 tax"
        " period (not checked)"
    ),
    numbering=_NUMBERING,
    c40_periods=single(
        f'"containing" (the period ending on or after {_C40} and later ones) or'
        ' "numbered" (tax years 2024 and later); blank = "containing"'
    ),
    law_as_of=_LAW_AS_OF_BEIP,
)


calculation(
    "NJ_BEIP_REMOTE_WORK_CHECK",
    cite=f"{BEIP_LAW}h.",
    description=(
        '"OK" if the remote-work waiver holds for the time checked under its version of h. '
        f"(P.L.2022, c.134; January 2024 act; P.L.2024, c.40 from {_C40}), or every reason it "
        "does not (N.J.S.A. 34:1B-129h., h.(1))."
    ),
    example=(dt.date(2023, 6, 30), 0.25),
    optional=(
        "election_from",
        "period_start",
        "enhanced_area",
        "commitment_end",
        "election_deadline",
        "law_as_of",
    ),
    election_date=a_date("Date the business made the remote-work election (Excel date)"),
    share_at_facility=single("Share of full-time employees' time at the facility, a fraction"),
    election_from=single(
        f'"emergency_ended" (on or after {P.EMERGENCY_ENDED.single}, Executive Order No. 244)'
        f' or "emergency_declared" (after {P.EMERGENCY_DECLARED.single}); blank ='
        ' "emergency_ended"'
    ),
    period_start=a_date(
        "First day of the tax period (or part) checked; it chooses the version; blank = the"
        " 2022-2023 waiver period"
    ),
    enhanced_area=single(
        f"From {_C40}: TRUE if the facility is in an enhanced area or a"
        " government-restricted municipality (no waiver there), FALSE if not"
    ),
    commitment_end=a_date(
        f"Last day of the commitment period (from {_C40} it is extended by two years)"
    ),
    election_deadline=single(
        f'Under the January 2024 act: "unchanged" (elect before {_ELECT}) or "moved"'
        f' (before {_MOVED}); blank = "unchanged"'
    ),
    law_as_of=_LAW_AS_OF_BEIP,
)


calculation(
    "NJ_BEIP_REMOTE_WORK_COMMITMENT_END",
    cite=f"{BEIP_LAW}h.",
    description=(
        "Last day of the commitment period extended by two years, as P.L.2024, c.40 asks for the "
        f"remote-work waiver from {_C40} (N.J.S.A. 34:1B-129h. as amended)."
    ),
    example=(dt.date(2026, 6, 30),),
    optional=("law_as_of",),
    commitment_end=a_date("Last day of the commitment period of the incentive agreement"),
    law_as_of=_LAW_AS_OF_BEIP,
)


calculation(
    "NJ_ERTC_FTE",
    cite=f"{ERTC_LAW}e.",
    description=(
        "Full-time position equivalents of part-time hours: hours / (140 x months), to 10 places "
        "(N.J.S.A. 52:27BBB-55e.)."
    ),
    example=(2100,),
    optional=("months", "first_month", "law_as_of"),
    part_time_hours=single("Aggregated hours of part-time positions in the period"),
    months=single("Months in the period; blank = 12"),
    first_month=a_date(
        "Any day of the period's first month: each month reads the full-time hours at its own"
        f" date ({P.FULL_TIME_HOURS_PER_MONTH.brief()} a month); blank = undated"
    ),
    law_as_of=_LAW_AS_OF_ERTC,
)


calculation(
    "NJ_ERTC_AVG_POSITIONS",
    cite=f"{ERTC_LAW}e.",
    description=(
        "Average full-time positions in a 12-month period and, second, the part-time full-time "
        "equivalents included in it, as a 1x2 row (N.J.S.A. 52:27BBB-55e.)."
    ),
    example=([[160] * 12, [100] * 12], None, None),
    optional=("temporary", "excluded", "part_time_months", "first_month", "law_as_of"),
    hours=raw(
        "Hours worked: one row per employee, 12 columns (one per month); a blank month is 0,"
        " a blank row no employee"
    ),
    temporary=each("TRUE for a temporary or seasonal employee, one per row; blank = FALSE"),
    excluded=each("TRUE for an owner or owner's relative, one per row; blank = FALSE"),
    part_time_months=single(
        'Months the part-time test counts: "non_full_time" or "all_months"; blank = "non_full_time"'
    ),
    first_month=a_date(
        "Any day of the roster's first month: each month reads its figures at its own date"
        f" ({P.FULL_TIME_HOURS_PER_MONTH.brief()} a month full time); blank = undated"
    ),
    law_as_of=_LAW_AS_OF_ERTC,
)


calculation(
    "NJ_ERTC_NEW_POSITIONS",
    cite=f"{ERTC_LAW}e.",
    description=(
        "New full-time positions: max(0, year_avg - base_avg), rounded down to whole positions "
        "unless fractional (N.J.S.A. 52:27BBB-55e.)."
    ),
    example=(20.5, 31.25),
    optional=("fractional",),
    base_avg=single("Average positions in the 12 months before credit year one"),
    year_avg=single("Average positions in the credit year"),
    fractional=_FRACTIONAL,
)


calculation(
    "NJ_ERTC_CREDIT",
    cite=f"{ERTC_LAW}a.",
    description=(
        f"Economic Recovery Tax Credit for one credit year: {_ERTC_ONE} per new full-time position"
        f" in year one, {_ERTC_TWO} in year two (N.J.S.A. 52:27BBB-55a.)."
    ),
    example=(10, 1),
    optional=("fractional",),
    new_positions=single("New full-time positions in the credit year"),
    credit_year=single(f"Credit year: 1 ({_ERTC_ONE} per position) or 2 ({_ERTC_TWO})"),
    fractional=_FRACTIONAL,
)


calculation(
    "NJ_ERTC_SUSTAINED_EFFORT_RATIO",
    cite=f"{ERTC_LAW}e.",
    description=(
        "Sustained effort ratio: year-two new positions / year-one new positions, at most 1; 0 "
        "when year one has none (N.J.S.A. 52:27BBB-55e.)."
    ),
    example=(10, 8),
    year1_new=_YEAR1_NEW,
    year2_new=_YEAR2_NEW,
)


calculation(
    "NJ_ERTC_RATIO_FRACTIONAL",
    cite=f"{ERTC_LAW}e.",
    description=(
        'Whether the sustained effort ratio counts fractional positions, "Yes"/"No": as the '
        "credits count them (fractional), or the measured increases when ratio_measured "
        "(N.J.S.A. 52:27BBB-55e.; docs/interpretations.md)."
    ),
    example=(False, True),
    optional=("fractional", "ratio_measured"),
    fractional=_FRACTIONAL,
    ratio_measured=single(
        "TRUE: the ratio from the measured increases, fractions kept; blank/FALSE = the "
        "positions the credits count"
    ),
)


calculation(
    "NJ_ERTC_CREDIT_LIMIT",
    cite=f"{ERTC_LAW}b.(3)",
    description=(
        "Most of the credit usable in a period: max(0, min(50% of the liability, liability - "
        "minimum tax) - other credits); insurance taxes: liability - other credits (N.J.S.A. "
        "52:27BBB-55b.(3))."
    ),
    example=(10000, 1000, 2000),
    optional=("tax_type",),
    tax_liability=single("Tax liability otherwise due for the privilege period, dollars"),
    other_credits=single("Other credits taken in the period (applied first), dollars"),
    minimum_tax=single("Statutory minimum tax for the period, dollars (see NJ_CBT_MIN_TAX)"),
    tax_type=_TAX_TYPE,
)


calculation(
    "NJ_ERTC_REFUND",
    cite=f"{ERTC_LAW}c.(2)",
    description=(
        "Year-one credit refunded as an overpayment: the unused year-one credit x the sustained "
        "effort ratio, rounded down to the cent (N.J.S.A. 52:27BBB-55c.(2))."
    ),
    example=(17000, 10, 8),
    year1_remaining=single("Year-one credit unused after the period in which credit year two ends"),
    year1_new=_YEAR1_NEW,
    year2_new=_YEAR2_NEW,
)


calculation(
    "NJ_ERTC_SCHEDULE",
    cite=f"{ERTC_LAW}b., c.",
    description=(
        f"Credit per privilege period: {_listed(ERTC_SCHEDULE_COLUMNS)} "
        "(N.J.S.A. 52:27BBB-55b., c.)."
    ),
    columns=ERTC_SCHEDULE_COLUMNS,
    example=(
        dt.date(2023, 1, 1),
        10,
        8,
        ["2023-12-31", "2024-12-31", "2025-12-31", "2026-12-31"],
        [8000, 10000, 50000, 50000],
        [0, 1000, 0, 0],
        [2000, 2000, 2000, 2000],
    ),
    optional=(
        "carryforward_years",
        "fractional",
        "tax_type",
        "ratio_fractional",
        "refund_period_limit",
        "opening_carried",
        "opening_before",
    ),
    operations_start=a_date("Date initial or expanded operations began (Excel date)"),
    year1_new=_YEAR1_NEW,
    year2_new=_YEAR2_NEW,
    period_ends=each_date("Last day of each privilege period, in order: one cell per period"),
    liabilities=each("Tax liability otherwise due, dollars: one per period"),
    other_credits=each("Other credits taken (applied first), dollars: one per period"),
    minimum_taxes=each("Statutory minimum tax, dollars: one per period"),
    carryforward_years=single(
        "Periods unused credit may be carried forward; blank = no limit (statute); "
        "Form 313 instructions: 5"
    ),
    fractional=_FRACTIONAL,
    tax_type=_TAX_TYPE,
    ratio_fractional=single(
        "TRUE: the sustained effort ratio from the measured (fractional) positions; FALSE:"
        " whole positions; blank = as fractional"
    ),
    refund_period_limit=single(
        '"b3": year-one credit held to the b.(3) limit before the refund; "notwithstanding":'
        ' not (c.(1)); blank = "b3"'
    ),
    opening_carried=each(
        "Unused credit carried into the first period, dollars: credit year one's, then credit"
        " year two's (allowed before the first period); blank = none (that credit year ends in"
        " a period given)"
    ),
    opening_before=each(
        "Periods before the first in which each credit carried in was allowed (1 = the period"
        " just before): year one, year two; needed with carryforward_years"
    ),
)


calculation(
    "NJ_ERTC_CREDIT_YEARS",
    cite=f"{ERTC_LAW}e.",
    description=(
        "Credit years one and two: the first twelve calendar months following initial or expanded"
        f" operations, and the next twelve; {_listed(CREDIT_YEARS_COLUMNS)} (N.J.S.A. "
        "52:27BBB-55e.)."
    ),
    columns=CREDIT_YEARS_COLUMNS,
    example=(dt.date(2023, 3, 15),),
    operations_start=a_date("Date initial or expanded operations began (Excel date)"),
)


calculation(
    "NJ_ERTC_BASE_YEAR",
    cite=f"{ERTC_LAW}e.",
    description=(
        "The base year of the position counts: the twelve-month period preceding credit year "
        f"one; {_listed(BASE_YEAR_COLUMNS)} (N.J.S.A. 52:27BBB-55e.)."
    ),
    columns=BASE_YEAR_COLUMNS,
    example=(dt.date(2023, 3, 15),),
    operations_start=a_date("Date initial or expanded operations began (Excel date)"),
)


calculation(
    "NJ_ERTC_ELIGIBILITY_CHECK",
    cite=f"{ERTC_LAW}a., d.",
    description=(
        '"OK" if the taxpayer may receive the Economic Recovery Tax Credit at the location, or '
        "every reason it may not (N.J.S.A. 52:27BBB-55a., d.)."
    ),
    example=(False, False),
    optional=("in_qualified_municipality",),
    receives_uez_benefit=single("TRUE if the taxpayer receives an Urban Enterprise Zones benefit"),
    prior_credit_period_at_location=single(
        "TRUE if the location already had its 24-month credit period"
    ),
    in_qualified_municipality=single(
        "TRUE if the location is in a qualified municipality; blank = TRUE"
    ),
)


calculation(
    "NJ_TAX_YEAR",
    cite=CBT_FORM,
    description=(
        "Tax year N of the CBT return for a privilege period ending on period_end: ending "
        "July-December of N or January-June of N+1 (the Division's form year, Form CBT-100); or "
        "the calendar year of the end."
    ),
    example=(dt.date(2023, 6, 30),),
    optional=("numbering",),
    period_end=a_date("Last day of the privilege period (Excel date)"),
    numbering=_NUMBERING,
)


calculation(
    "NJ_TAX_PERIOD_END",
    cite=CBT_FORM,
    description=(
        "Last day of the privilege period numbered tax_year for a filer whose year ends in "
        "year_end_month: tax year 2022 of a June-30 filer ends 2023-06-30 (Form CBT-100 "
        "numbering)."
    ),
    example=(2022, 6),
    optional=("year_end_month", "numbering"),
    tax_year=single("Tax year of the return (e.g. 2022)"),
    year_end_month=_YEAR_END_MONTH,
    numbering=_NUMBERING,
)


#: The months of a full privilege period (a shorter one tests the group payroll by month).
_FULL = P.FULL_PERIOD_MONTHS.brief()


calculation(
    "NJ_CBT_MIN_TAX",
    cite="N.J.S.A. 54:10A-5(e)",
    description=(
        "Corporation Business Tax statutory minimum by New Jersey gross receipts, for periods "
        "beginning in 2012 and after (N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b))."
    ),
    example=(300000,),
    optional=(
        "s_corporation",
        "group_payroll",
        "group_rule_for_s_corporations",
        "period_start_year",
        "months",
        "short_period_test",
    ),
    nj_gross_receipts=single("New Jersey gross receipts for the privilege period, dollars"),
    s_corporation=single("TRUE for a New Jersey S corporation; blank = FALSE"),
    group_payroll=single(
        "Total payroll of the affiliated or controlled group for the privilege period, dollars;"
        " blank = 0"
    ),
    group_rule_for_s_corporations=single(
        f"TRUE if the {P.GROUP_PAYROLL_THRESHOLD.brief()} group payroll rule also binds S"
        " corporations; blank = TRUE"
    ),
    period_start_year=single(
        "Year the privilege period begins (the table is for 2012 and after); blank = assumed"
    ),
    months=single(
        f"Months of the privilege period, 1 to {_FULL}; fewer test the group payroll by month;"
        f" blank = {_FULL}"
    ),
    short_period_test=single(
        f'"per_month" (payroll above {P.GROUP_PAYROLL_PER_MONTH.brief()} a month, Form 313'
        f' instructions) or "prorated" ({P.GROUP_PAYROLL_THRESHOLD.brief()} x months /'
        f' {_FULL}); blank = "per_month"'
    ),
)


calculation(
    "NJ_INPUT",
    cite="",
    description=(
        "An input read as every NJ_ function reads its kind (money, fraction, count, number, "
        'quantity, date, boolean, choice): "40%" is 0.4, "320,000.00" is 320000; a range '
        "cell by cell; a refused value is the error naming the input, the rule and citation."
    ),
    example=("fraction", "pct", "40%", 0, 0.8),
    optional=("value", "low", "high", "citation", "rule", "choices"),
    kind=single(
        'How the value is read: "money", "fraction", "count", "number", "quantity", '
        '"date", "boolean" or "choice"'
    ),
    input_name=single('The input\'s name, for the message (e.g. "Term")'),
    value=raw("The input: a cell or a range (read cell by cell); blank cells stay blank"),
    low=single("Lowest value allowed; blank = none beyond the kind's own"),
    high=single("Highest value allowed; blank = none beyond the kind's own"),
    citation=single(
        "What a refusal cites (the law or the reading); blank = NJ_INPUT's own reference"
    ),
    rule=single("The rule as a refusal states it; blank = the bounds in words"),
    choices=single('A choice\'s allowed words, separated by "|"'),
)


calculation(
    "NJ_INPUT_REFUSED",
    cite="",
    description=(
        "The first cell of an input range that NJ_INPUT would refuse, as its message: the "
        "cell (by the range's address), the value, the rule and citation; blank when every "
        "cell is blank or read. One call checks a whole range (a roster of 250 x 12)."
    ),
    example=("quantity", "'Hours'!B2:M3", [[160, 160], [-5, 0]], 0, 744),
    optional=("value", "low", "high", "citation", "rule", "choices"),
    kind=single(
        'How each cell is read: "money", "fraction", "count", "number", "quantity", '
        '"date", "boolean" or "choice"'
    ),
    input_name=single(
        "The range's address as text (\"'Sheet'!D6:O255\"): a refused cell is named by "
        "its own address; other text names cells name[1], name[2] ... along the rows"
    ),
    value=raw("The range, read cell by cell; blank cells are accepted"),
    low=single("Lowest value allowed; blank = none beyond the kind's own"),
    high=single("Highest value allowed; blank = none beyond the kind's own"),
    citation=single(
        "What a refusal cites (the law or the reading); blank = NJ_INPUT's own reference"
    ),
    rule=single("The rule as a refusal states it; blank = the bounds in words"),
    choices=single('A choice\'s allowed words, separated by "|"'),
)


calculation(
    "NJ_INCENTIVES_VERSION",
    cite="",
    description=(
        "Version of nj-incentives and the statutes as amended that it implements (the law it is "
        "current to)."
    ),
    example=(),
    optional=("part",),
    part=single('Blank = both; "version" = the package version; "law" = the law current to'),
)


calculation(
    "NJ_INPUTS_HASH",
    cite="",
    description=(
        "Hash of a workbook's inputs as the input rules read them (a reformat leaves it "
        "unchanged): a sign-off stores it, the Checks sheet compares it (docs/filling.md)."
    ),
    example=("mp", 600000, 0.5),
    vararg="inputs",
    kinds=single(
        "One letter per range, its kind: t text, m money, p percent, d date, c count, y year, "
        'n number, b yes/no, h choice (e.g. "mpd")'
    ),
    inputs=single("The input ranges, in the order of the letters"),
)


calculation(
    "NJ_SCENARIOS",
    cite="",
    description=(
        "Runs a scenario table on the calculation core (N.J.S.A. 34:1B-129, 52:27BBB-55) and "
        "spills the results with a header row; a bad row's message is in its error column."
    ),
    example=([["id", "accrual_year", "conversion_amount"], ["A", 2012, 1250000]],),
    table=raw(
        "Scenario table: a header row of column names (docs/scenarios.md), then one "
        "scenario per row"
    ),
)


calculation(
    "NJ_EXPLAIN",
    cite="",
    description=(
        f"Steps behind an NJ_ function's result: {_listed(EXPLAIN_COLUMNS)}; each step with"
        " its citation."
    ),
    columns=EXPLAIN_COLUMNS,
    example=("NJ_BEIP_GRANT", 1250000, 0.2),
    vararg="args",
    function_name=single('Name of the NJ_ function to explain, e.g. "NJ_BEIP_GRANT"'),
    args=single("That function's arguments, in its order"),
)
