"""The NJ_* Excel functions: thin adapters from worksheet cells onto the calculation core.

This is the module users name under "UDF Modules" (classic xlwings add-in on Windows) and
import in xlwings Lite / xlwings Server (Office.js). Python names are the Excel names.
Each function only converts cells to the core's inputs and the core's result back to
cells; every rule of law lives in :mod:`nj_incentives.law`. The core is imported on the
first call, not at import: importing this module costs little more than ``import xlwings``.

The cell conventions (blanks, ranges, serial dates, error cells, how results become
cells) are those of :mod:`nj_incentives.cells`. Functions are deterministic and not
volatile.

Beyond issue 4's catalog (names and argument order fixed), some functions take further
optional arguments at the end (e.g. ``NJ_BEIP_TRANSFER_CHECK``'s discount_rate and
years, ``NJ_ERTC_SCHEDULE``'s fractional and tax_type), and three functions are added:
``NJ_ERTC_CREDIT_YEARS``, ``NJ_ERTC_ELIGIBILITY_CHECK`` and ``NJ_EXPLAIN`` (the steps
behind any function's result, with their citations).

Errors (:func:`nj_incentives.cells.error_message`): a bad input never yields a number and
never a traceback. The message is short: ``argument = value: rule (citation)``.

- Office.js (xlwings Lite, xlwings Server): the function raises ``xlwings.XlwingsError``
  with the message; the cell shows #VALUE! and the message on hover.
- Classic add-in and plain Python calls: the function returns the text
  ``"#VALUE! " + message``; classic xlwings cannot return a real Excel error value.

For the headless recalculation, :func:`functions` gives ``{EXCEL_NAME: callable}`` with
errors as that text (``errors="text"``) or raised (``errors="raise"``, also available as
:data:`FUNCTIONS`), independent of the xlwings runtime.
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

import xlwings as xw

from nj_incentives.cells import (
    Cell,
    CellResult,
    MissingPackage,
    as_date_cell,
    as_rows,
    as_scalar,
    as_table,
    as_vector,
    error_message,
    error_text,
    finite,
    formula_text,
    given,
    input_error,
    is_blank,
    money,
    number,
    python_value,
    refuse_error_cells,
    serial_to_date,
    to_cell_values,
    trim_blanks,
    verdict,
)
from nj_incentives.vba import vba_identifier_problem
from nj_incentives.version import LAW_CURRENT_TO, __version__

if TYPE_CHECKING:
    from nj_incentives.law.common import Explained

__all__ = [
    "CATALOG",
    "CATEGORY",
    "FUNCTIONS",
    "RUNTIME",
    "ExcelFunction",
    "functions",
]

logger = logging.getLogger(__name__)

#: The Excel function category shown by the classic add-in's Insert Function dialog.
CATEGORY = "NJ Incentives"


def _runtime() -> Literal["office.js", "classic", "plain"]:
    """Which xlwings decorators ``import xlwings`` bound (they are chosen at import time)."""
    module = getattr(xw.func, "__module__", "") or ""
    if module.startswith("xlwings.pro"):  # xlwings.server: xlwings Lite and xlwings Server
        return "office.js"
    if module == "xlwings.udfs":  # Windows with pywin32: the classic COM add-in
        return "classic"
    return "plain"


#: ``"office.js"``, ``"classic"`` or ``"plain"``: decides how errors reach the cell.
RUNTIME = _runtime()


# =========================================================================== errors


def _failed(function: str, exc: Exception) -> str:
    """Report a failed call the way the runtime can show it (see the module docstring)."""
    from nj_incentives.law.common import InputError

    if not isinstance(exc, InputError | MissingPackage):
        logger.error("%s failed unexpectedly", function, exc_info=exc)
    if RUNTIME == "office.js":
        raise xw.XlwingsError(error_message(exc, function)) from None
    return error_text(exc, function)


@dataclass(frozen=True)
class Argument:
    """One argument of an Excel function: its help text and how its cells are read."""

    name: str
    doc: str
    #: "one" (a single cell), "date", "vector" (one per year/period/employee),
    #: "dates" (a vector of dates), "table" (rows x columns), "raw" (passed as given)
    kind: str
    optional: bool = False

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
        return python_value(value)


def single(doc: str) -> tuple[str, str]:
    """A single-cell argument (number, text or boolean)."""
    return "one", doc


def a_date(doc: str) -> tuple[str, str]:
    """A single date cell."""
    return "date", doc


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


# =========================================================================== the registry


@dataclass(frozen=True)
class ExcelFunction:
    """One catalog function: what Excel shows about it, and its two halves.

    ``compute`` turns the (converted) cells into the core's result; ``show`` turns that
    result into cell values. Metadata lives here so that it is the same whether or not
    xlwings attached its own (``xw.func`` is a no-op outside a runtime).
    """

    name: str
    description: str
    citation: str
    arguments: tuple[Argument, ...]
    vararg: Argument | None
    example: tuple[Cell, ...]
    compute: Callable[..., Any]
    show: Callable[[Any], CellResult]

    @property
    def message_citation(self) -> str:
        """What a message about this function's cells cites: its law, or its reference."""
        return self.citation or f"{self.name}, docs/functions.md"

    def convert(self, args: Sequence[Cell], kwargs: dict[str, Cell]) -> list[Cell]:
        """The arguments as the core's inputs; blank required arguments are errors."""
        citation = self.message_citation
        count = len(self.arguments)
        if len(args) > count and self.vararg is None:
            raise TypeError(f"{self.name} takes at most {count} arguments ({len(args)} given)")
        values: list[Cell] = list(args[:count]) + [None] * (count - len(args[:count]))
        for name, value in kwargs.items():
            index = next((i for i, a in enumerate(self.arguments) if a.name == name), None)
            if index is None:
                raise TypeError(f"{self.name} has no argument {name!r}")
            values[index] = value
        for index, argument in enumerate(self.arguments):
            value = values[index]
            if argument.kind != "raw":  # a table's error cells are its rows' errors
                refuse_error_cells(value, argument.name, citation)
            if is_blank(python_value(value)):
                if not argument.optional:
                    raise input_error(argument.name, None, "is required", citation)
                values[index] = None
            else:
                values[index] = argument.convert(value, citation)
        extras = [python_value(extra) for extra in args[count:]]
        for extra in extras:
            refuse_error_cells(extra, self.vararg.name if self.vararg else "", citation)
        return values + extras

    def result(self, *args: Cell, **kwargs: Cell) -> Any:
        """The core's result for these cells (raises the core's InputError)."""
        return self.compute(*self.convert(args, kwargs))

    def cells(self, *args: Cell, **kwargs: Cell) -> CellResult:
        """The cell values for these cells (raises on bad input)."""
        return finite(self.show(self.result(*args, **kwargs)), self.name)

    def formula(self, args: Sequence[Cell] | None = None, namespace: str = "") -> str:
        """The formula text calling this function (the example's by default)."""
        values = list(self.example if args is None else args)
        while values and values[-1] is None:
            values.pop()
        prefix = f"{namespace}." if namespace else ""
        return f"={prefix}{self.name}({', '.join(formula_text(v) for v in values)})"


#: Every Excel function, by name, in catalog order.
CATALOG: dict[str, ExcelFunction] = {}


def excel_function(
    *,
    cite: str,
    example: tuple[Cell, ...],
    show: Callable[[Any], CellResult] = lambda result: result,
    **docs: tuple[str, str],
) -> Callable[[Callable[..., Any]], Callable[..., CellResult]]:
    """Register ``compute`` as the Excel function of the same name.

    ``cite`` is the law the function applies (empty for the two that apply none); ``docs``
    gives every parameter's kind and help text (meaning and unit). The returned
    function is decorated with ``xw.func`` and ``xw.arg(name, doc=...)`` for every
    argument; it converts the cells, calls ``compute``, ``show``s the result, and turns
    any failure into the runtime's error (module docstring). The docstring (description
    with its citation) is what Excel's Insert Function dialog shows.
    """

    def register(compute: Callable[..., Any]) -> Callable[..., CellResult]:
        name = compute.__name__
        description = " ".join((compute.__doc__ or "").split())
        parameters = list(inspect.signature(compute).parameters.values())
        names = [p.name for p in parameters]
        problems = [
            problem
            for problem in (vba_identifier_problem(n) for n in [name, *names])
            if problem is not None
        ]
        if sorted(docs) != sorted(names):
            problems.append(f"help text for {sorted(docs)} but arguments {names}")
        if (cite and cite not in description) or len(description) > 255:
            problems.append("the docstring must cite the law and fit in 255 characters")
        if problems:
            raise TypeError(f"{name}: " + "; ".join(problems))
        arguments = tuple(
            Argument(p.name, docs[p.name][1], docs[p.name][0], p.default is not p.empty)
            for p in parameters
            if p.kind is not p.VAR_POSITIONAL
        )
        varargs = [p for p in parameters if p.kind is p.VAR_POSITIONAL]
        vararg = Argument(varargs[0].name, docs[varargs[0].name][1], "raw") if varargs else None
        entry = ExcelFunction(name, description, cite, arguments, vararg, example, compute, show)
        CATALOG[name] = entry

        @functools.wraps(compute)
        def cell_function(*args: Cell, **kwargs: Cell) -> CellResult:
            try:
                return finite(show(compute(*entry.convert(args, kwargs))), name)
            except Exception as exc:
                return _failed(name, exc)

        # xlwings reads converters from annotations: none here, the cells arrive as they are.
        cell_function.__annotations__ = {}
        cell_function.__doc__ = description
        decorated: Callable[..., CellResult] = cell_function
        for parameter in reversed(parameters):
            # err_to_str: an error cell arrives as its text ("#N/A"), not as a blank
            decorated = xw.arg(parameter.name, doc=docs[parameter.name][1], err_to_str=True)(
                decorated
            )
        return xw.func(category=CATEGORY)(decorated)

    return register


def functions(
    errors: Literal["text", "raise"] = "text",
) -> dict[str, Callable[..., CellResult]]:
    """``{EXCEL_NAME: callable}`` for engines other than xlwings (the headless recalculation).

    Each callable takes cell values (None for a blank cell; numbers, text, booleans,
    dates or serial numbers; ranges as lists of rows or numpy arrays) and returns cell
    values (:func:`to_cell_values`: dates as serial numbers). With ``errors="text"`` a bad
    input returns ``"#VALUE! argument = value: rule (citation)"`` (:func:`error_text`);
    with ``errors="raise"`` the exception propagates (the core's ``InputError`` carries
    ``argument``, ``value``, ``rule`` and ``citation``). The same whatever runtime
    xlwings was imported for.
    """

    def plain(entry: ExcelFunction) -> Callable[..., CellResult]:
        def call(*args: Cell, **kwargs: Cell) -> CellResult:
            if errors == "raise":
                return to_cell_values(entry.cells(*args, **kwargs))
            try:
                return to_cell_values(entry.cells(*args, **kwargs))
            except Exception as exc:
                return error_text(exc, entry.name)

        call.__name__ = call.__qualname__ = entry.name
        call.__doc__ = entry.description
        return call

    return {name: plain(entry) for name, entry in CATALOG.items()}


# =========================================================================== shared help

_BASIS = single(
    'What the percentage applies to: "withholdings" or "partners" (estimated tax of the '
    "partners of an eligible partnership); any case"
)
_SMART_GROWTH = single(
    "TRUE if the grant promotes smart growth (N.J.S.A. 34:1B-129b.); blank = FALSE"
)
_DISCOUNT_RATE = single(
    "Annual rate for discounting to present value, a fraction (5% = 0.05); blank = 0"
)
_YEARS = single("Years to discount over (may be fractional); blank = 0")
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

_BEIP = "N.J.S.A. 34:1B-129"


# =========================================================================== BEIP


@excel_function(
    cite=f"{_BEIP}a., b.",
    example=("withholdings", True),
    show=lambda limits: [[float(limits[0]), float(limits[1])]],
    basis=_BASIS,
    smart_growth=_SMART_GROWTH,
)
def NJ_BEIP_PCT_LIMITS(basis: Cell, smart_growth: Cell = None) -> tuple[Decimal, Decimal]:
    """Lowest and highest BEIP grant percentage for a basis, as a 1x2 row of fractions:
    withholdings 10%-50%, partners' tax 10%-30%; 80% / 50% with smart growth
    (N.J.S.A. 34:1B-129a., b.)."""
    from nj_incentives.law import beip

    return beip.pct_limits(basis, **given(smart_growth=smart_growth))


@excel_function(
    cite=f"{_BEIP}a., b.",
    example=(1250000, 0.2),
    show=lambda grant: money(grant.amount),
    withholdings=single("Withholdings of the business's new employees for the year, in dollars"),
    pct=single("Grant percentage of withholdings, a fraction (20% = 0.2); 0 if not used"),
    partner_tax=single(
        "Estimated tax of the partners of an eligible partnership, dollars; blank = 0"
    ),
    partner_pct=single("Grant percentage of the partners' estimated tax, a fraction; blank = 0"),
    smart_growth=_SMART_GROWTH,
)
def NJ_BEIP_GRANT(
    withholdings: Cell,
    pct: Cell,
    partner_tax: Cell = None,
    partner_pct: Cell = None,
    smart_growth: Cell = None,
) -> Any:
    """Annual BEIP grant before the cap: withholdings x pct + partners' estimated tax x
    partner_pct, each part rounded down to the cent (N.J.S.A. 34:1B-129a., b.)."""
    from nj_incentives.law import beip

    return beip.annual_grant(
        withholdings,
        pct,
        **given(partner_tax=partner_tax, partner_pct=partner_pct, smart_growth=smart_growth),
    )


GRANT_SCHEDULE_HEADER = [
    "Year",
    "Withholdings",
    "Partner tax",
    "Grant before cap",
    "Cap room",
    "Grant",
    "Cumulative grant",
]


def _grant_schedule_table(schedule: Any) -> list[list[CellResult]]:
    return [GRANT_SCHEDULE_HEADER] + [
        [
            row.year,
            money(row.withholdings),
            money(row.partner_tax),
            money(row.grant_before_cap),
            number(row.cap_room),
            money(row.grant),
            money(row.cumulative),
        ]
        for row in schedule.rows
    ]


@excel_function(
    cite=f"{_BEIP}a.-c.; N.J.A.C. 19:31I-1.4(a)",
    example=([600000, 600000, 600000], [10, 12, 2], 0.5, dt.date(2010, 1, 1)),
    show=_grant_schedule_table,
    withholdings=each("Withholdings per grant year, dollars: one cell per year (the term)"),
    new_employees=each("New employees certified per grant year: one cell per year"),
    pct=single("Grant percentage of withholdings, a fraction (50% = 0.5); 0 if not used"),
    agreement_date=a_date("Date the grant agreement was entered into (Excel date)"),
    smart_growth=_SMART_GROWTH,
    partner_tax=each("Partners' estimated tax per grant year, dollars; blank = 0 each year"),
    partner_pct=single("Grant percentage of the partners' estimated tax, a fraction; blank = 0"),
    cap_method=single(
        'How the $50,000 average cap applies: "per_year" (N.J.A.C. 19:31I-1.4(a) example),'
        ' "whole_term" or "proportional"; blank = "per_year"'
    ),
)
def NJ_BEIP_GRANT_SCHEDULE(
    withholdings: Cell,
    new_employees: Cell,
    pct: Cell,
    agreement_date: Cell,
    smart_growth: Cell = None,
    partner_tax: Cell = None,
    partner_pct: Cell = None,
    cap_method: Cell = None,
) -> Any:
    """BEIP grant year by year over the term, after the $50,000 average cap: Year,
    Withholdings, Partner tax, Grant before cap, Cap room, Grant, Cumulative grant
    (N.J.S.A. 34:1B-129a.-c.; N.J.A.C. 19:31I-1.4(a))."""
    from nj_incentives.law import beip

    return beip.grant_schedule(
        withholdings,
        new_employees,
        pct,
        agreement_date,
        **given(
            smart_growth=smart_growth,
            partner_tax=partner_tax,
            partner_pct=partner_pct,
            cap_method=cap_method,
        ),
    )


@excel_function(
    cite="N.J.S.A. 34:1B-134(b), (c)",
    example=(1000000, 150000, "withholdings"),
    show=lambda limit: money(limit.amount),
    base_amount=single(
        "Withholdings (or partners' estimated tax) the limit is a share of, dollars"
    ),
    other_grants=single("All other State grants, dollars (Office of Customized Training excluded)"),
    basis=_BASIS,
    smart_growth=_SMART_GROWTH,
)
def NJ_BEIP_COMBINED_LIMIT(
    base_amount: Cell, other_grants: Cell, basis: Cell, smart_growth: Cell = None
) -> Any:
    """Largest BEIP grant the combined State grants limit allows without the Treasurer's
    approval: 50% of withholdings (30% of partners' tax; 80% / 50% with smart growth) less
    other grants (N.J.S.A. 34:1B-134(b), (c))."""
    from nj_incentives.law import beip

    return beip.combined_limit(base_amount, other_grants, basis, **given(smart_growth=smart_growth))


CONVERSION_SCHEDULE_HEADER = ["Tax year", "Share", "Installment"]


def _conversion_table(schedule: Any) -> list[list[CellResult]]:
    """Tax year, Share, Installment; and Period end (the return) for a filer whose year
    does not end in December or who numbers by the calendar year (a calendar-year filer's
    table keeps its three columns)."""
    calendar_filer = (schedule.year_end_month, schedule.numbering) == (12, "form")
    header = CONVERSION_SCHEDULE_HEADER + ([] if calendar_filer else ["Period end"])
    return [header] + [
        [row.tax_year, float(row.share), money(row.amount)]
        + ([] if calendar_filer else [row.period_end])
        for row in schedule.rows
    ]


_ACCRUAL_YEAR = single("Calendar year the approved grant accrued but was not paid, 2008 to 2025")
_APPROVAL_DATE = a_date(
    "Date the Authority approved the amount (Excel date); matters for 2008-2013 only; blank = "
    "approved by July 1, 2016"
)


@excel_function(
    cite=f"{_BEIP}e.(1)-(13)",
    example=(2016, 100000),
    show=lambda schedule: _conversion_table(schedule),
    accrual_year=_ACCRUAL_YEAR,
    amount=single("Approved grant amount converted to tax credits, dollars"),
    approval_date=_APPROVAL_DATE,
    grant_approval_date=a_date(
        "Date the business was approved for the grant, before 2015-11-09; blank = not checked"
    ),
    direction_date=a_date(
        "Date the business directed the conversion; 2015-11-09 to 2016-05-07; blank = not checked"
    ),
    year_end_month=_YEAR_END_MONTH,
    numbering=_NUMBERING,
)
def NJ_BEIP_CONVERSION_SCHEDULE(
    accrual_year: Cell,
    amount: Cell,
    approval_date: Cell = None,
    grant_approval_date: Cell = None,
    direction_date: Cell = None,
    year_end_month: Cell = None,
    numbering: Cell = None,
) -> Any:
    """Tax credits a grant accrued but not paid converts to: Tax year, Share, Installment,
    Period end (the return it goes on); each rounded down to the cent, the last taking the
    remainder (N.J.S.A. 34:1B-129e.(1)-(13))."""
    from nj_incentives.law import beip

    return beip.conversion_schedule(
        accrual_year,
        amount,
        **given(
            approval_date=approval_date,
            year_end_month=year_end_month,
            numbering=numbering,
            grant_approval_date=grant_approval_date,
            direction_date=direction_date,
        ),
    )


@excel_function(
    cite=f"{_BEIP}e.(1)-(13)",
    example=(2012, 1250000, 2018),
    show=money,
    accrual_year=_ACCRUAL_YEAR,
    amount=single("Approved grant amount converted to tax credits, dollars"),
    tax_year=single(
        "Tax year whose installment is wanted (e.g. 2018), or the last day of the privilege"
        " period of the return (an Excel date)"
    ),
    approval_date=_APPROVAL_DATE,
    numbering=_NUMBERING,
)
def NJ_BEIP_CONVERSION_INSTALLMENT(
    accrual_year: Cell,
    amount: Cell,
    tax_year: Cell,
    approval_date: Cell = None,
    numbering: Cell = None,
) -> Decimal:
    """Tax credit issued for one tax year, or for the return of the privilege period ending
    on the date given, from a converted grant; 0 if none (N.J.S.A. 34:1B-129e.(1)-(13))."""
    from nj_incentives.law import beip

    period_end = _period_end_or_none(tax_year)
    return beip.conversion_installment(
        accrual_year,
        amount,
        None if period_end is not None else tax_year,
        **given(approval_date=approval_date, period_end=period_end, numbering=numbering),
    )


#: A number above this in a "tax year or period end" cell is an Excel date serial.
_LARGEST_YEAR = 9999


def _period_end_or_none(value: Cell) -> dt.date | None:
    """A "tax year or period end" cell: the date when it holds one (a date, ISO date text,
    or a serial number above 9999), else None (a tax year)."""
    if isinstance(value, dt.date):
        return value.date() if isinstance(value, dt.datetime) else value
    if isinstance(value, str) and len(value.strip()) >= 10 and value.strip()[4] == "-":
        from nj_incentives.law.common import as_date

        return as_date(value, "tax_year", f"{_BEIP}e.")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > _LARGEST_YEAR:
        return serial_to_date(float(value), "tax_year", f"{_BEIP}e.")
    return None


_CREDIT = single("BEIP tax credit issued for the tax period, dollars")
_TAX_LIABILITY = single("Tax otherwise due for the period, dollars")
_MINIMUM_TAX_FLOOR = single(
    "Statutory minimum the credit may not take the tax below (the alternative reading);"
    " blank = 0 (the credit may take the tax to 0)"
)


@excel_function(
    cite=f"{_BEIP}f.",
    example=(300000, 200000),
    show=lambda application: money(application.applied),
    credit=_CREDIT,
    tax_liability=_TAX_LIABILITY,
    minimum_tax=_MINIMUM_TAX_FLOOR,
)
def NJ_BEIP_CREDIT_APPLIED(credit: Cell, tax_liability: Cell, minimum_tax: Cell = None) -> Any:
    """BEIP credit applied against the tax, before all other credits and payments:
    min(credit, tax_liability - minimum_tax) (N.J.S.A. 34:1B-129f.)."""
    from nj_incentives.law import beip

    return beip.apply_credit(credit, tax_liability, **given(minimum_tax=minimum_tax))


@excel_function(
    cite=f"{_BEIP}f.",
    example=(300000, 200000),
    show=lambda application: money(application.overpayment),
    credit=_CREDIT,
    tax_liability=_TAX_LIABILITY,
    minimum_tax=_MINIMUM_TAX_FLOOR,
)
def NJ_BEIP_CREDIT_REFUND(credit: Cell, tax_liability: Cell, minimum_tax: Cell = None) -> Any:
    """Excess of the BEIP credit over the tax, refunded as an overpayment
    (N.J.S.A. 34:1B-129f.)."""
    from nj_incentives.law import beip

    return beip.apply_credit(credit, tax_liability, **given(minimum_tax=minimum_tax))


@excel_function(
    cite=f"{_BEIP}g.(3)",
    example=(1000000, 0.05, 2),
    show=lambda price: money(price.amount),
    transfer_amount=single("Amount of tax credit transferred, dollars"),
    discount_rate=_DISCOUNT_RATE,
    years=_YEARS,
    sale_date=a_date("Date of the sale (Excel date); with credit_period_end it sets the years"),
    credit_period_end=a_date("Last day of the tax period the credit is issued for (Excel date)"),
)
def NJ_BEIP_TRANSFER_MIN_PRICE(
    transfer_amount: Cell,
    discount_rate: Cell = None,
    years: Cell = None,
    sale_date: Cell = None,
    credit_period_end: Cell = None,
) -> Any:
    """Lowest lawful consideration for a transfer certificate: 75% of the amount, then
    discounted to present value, / (1 + discount_rate) ^ years, rounded down to the cent
    (N.J.S.A. 34:1B-129g.(3))."""
    from nj_incentives.law import beip

    return beip.transfer_min_price(
        transfer_amount,
        **given(
            discount_rate=discount_rate,
            years=years,
            sale_date=sale_date,
            credit_period_end=credit_period_end,
        ),
    )


@excel_function(
    cite=f"{_BEIP}g.(3)",
    example=(1000000, 50000, 30000),
    show=lambda check: verdict(check.ok, check.reasons),
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
    max_discount_rate=single(
        "Highest yearly discount rate accepted as a discount to present value; blank = 0.2"
    ),
)
def NJ_BEIP_TRANSFER_CHECK(
    certificate_amount: Cell,
    transfer_amount: Cell,
    consideration: Cell,
    discount_rate: Cell = None,
    years: Cell = None,
    sale_date: Cell = None,
    credit_period_end: Cell = None,
    seller_is_transferee: Cell = None,
    max_discount_rate: Cell = None,
) -> Any:
    """ "OK" if a proposed sale of a transfer certificate is lawful, or every reason it is
    not, with citations (N.J.S.A. 34:1B-129g.(3))."""
    from nj_incentives.law import beip

    return beip.transfer_check(
        certificate_amount,
        transfer_amount,
        consideration,
        **given(
            discount_rate=discount_rate,
            years=years,
            sale_date=sale_date,
            credit_period_end=credit_period_end,
            seller_is_transferee=seller_is_transferee,
            max_discount_rate=max_discount_rate,
        ),
    )


@excel_function(
    cite=f"{_BEIP}h.(2)",
    example=(412345.67,),
    show=lambda payment: money(payment.amount),
    credit_2022=single("Tax credit received for the 2022 tax period, dollars"),
    period_end=a_date(
        "Last day of that privilege period, checked to be the 2022 tax period; blank = not checked"
    ),
    numbering=_NUMBERING,
)
def NJ_BEIP_REMOTE_WORK_PAYMENT(
    credit_2022: Cell, period_end: Cell = None, numbering: Cell = None
) -> Any:
    """Payment owed for the remote-work election: 5% of the 2022 tax credit, rounded down
    to the cent (N.J.S.A. 34:1B-129h.(2))."""
    from nj_incentives.law import beip

    return beip.remote_work_payment(
        credit_2022, **given(period_end=period_end, numbering=numbering)
    )


@excel_function(
    cite=f"{_BEIP}h.",
    example=(dt.date(2023, 6, 30), 0.25),
    show=lambda check: verdict(check.ok, check.reasons),
    election_date=a_date("Date the business made the remote-work election (Excel date)"),
    share_at_facility=single("Share of full-time employees' time at the facility, a fraction"),
    election_from=single(
        '"emergency_ended" (on or after 2021-06-04, Executive Order No. 244) or'
        ' "emergency_declared" (after 2020-03-09); blank = "emergency_ended"'
    ),
)
def NJ_BEIP_REMOTE_WORK_CHECK(
    election_date: Cell, share_at_facility: Cell, election_from: Cell = None
) -> Any:
    """ "OK" if a remote-work election meets subsection h. (made after the emergency ended,
    before December 31, 2023; at least 10% of time at the facility), or every reason it
    does not (N.J.S.A. 34:1B-129h., h.(1))."""
    from nj_incentives.law import beip

    return beip.remote_work_check(
        election_date, share_at_facility, **given(election_from=election_from)
    )


# =========================================================================== ERTC

_ERTC = "N.J.S.A. 52:27BBB-55"


@excel_function(
    cite=f"{_ERTC}e.",
    example=(2100,),
    show=lambda equivalents: float(equivalents.fte),
    part_time_hours=single("Aggregated hours of part-time positions in the period"),
    months=single("Months in the period; blank = 12"),
)
def NJ_ERTC_FTE(part_time_hours: Cell, months: Cell = None) -> Any:
    """Full-time position equivalents of part-time hours: hours / (140 x months), to 10
    places (N.J.S.A. 52:27BBB-55e.)."""
    from nj_incentives.law import ertc

    return ertc.explain_fte(part_time_hours, **given(months=months))


@excel_function(
    cite=f"{_ERTC}e.",
    example=([[160] * 12, [100] * 12], None, None),
    show=lambda count: [[float(count.average), float(count.fte)]],
    hours=raw(
        "Hours worked: one row per employee, 12 columns (one per month); a blank month is 0,"
        " a blank row no employee"
    ),
    temporary=each("TRUE for a temporary or seasonal employee, one per row; blank = FALSE"),
    excluded=each("TRUE for an owner or owner's relative, one per row; blank = FALSE"),
    part_time_months=single(
        'Months the part-time test counts: "non_full_time" or "all_months"; blank = "non_full_time"'
    ),
)
def NJ_ERTC_AVG_POSITIONS(
    hours: Cell, temporary: Cell = None, excluded: Cell = None, part_time_months: Cell = None
) -> Any:
    """Average full-time positions in a 12-month period and, second, the part-time
    full-time equivalents included in it, as a 1x2 row (N.J.S.A. 52:27BBB-55e.)."""
    from nj_incentives.law import ertc

    table = _roster_rows(hours)
    count = len(table)
    flags = {
        name: None if values is None else _flags(values, count)
        for name, values in (("temporary", temporary), ("excluded", excluded))
    }
    return ertc.average_positions(
        ertc.roster(table, **given(**flags)), **given(part_time_months=part_time_months)
    )


def _roster_rows(hours: Cell) -> list[list[Cell]]:
    """The roster's rows, trailing blank rows cut, each row as wide as the range (a blank
    month stays a blank cell: the core reads it as 0 hours, or a wholly blank row as no
    employee)."""
    rows = trim_blanks(as_rows(hours))
    return [[None if is_blank(cell) else cell for cell in row] for row in rows]


def _flags(values: list[Cell], count: int) -> list[Cell]:
    """One flag per roster row: a blank cell, or a missing one at the end, is FALSE."""
    flags = [False if value is None else value for value in values]
    return flags + [False] * (count - len(flags))


@excel_function(
    cite=f"{_ERTC}e.",
    example=(20.5, 31.25),
    show=lambda positions: float(positions.count),
    base_avg=single("Average positions in the 12 months before credit year one"),
    year_avg=single("Average positions in the credit year"),
    fractional=_FRACTIONAL,
)
def NJ_ERTC_NEW_POSITIONS(base_avg: Cell, year_avg: Cell, fractional: Cell = None) -> Any:
    """New full-time positions: max(0, year_avg - base_avg), rounded down to whole
    positions unless fractional (N.J.S.A. 52:27BBB-55e.)."""
    from nj_incentives.law import ertc

    return ertc.explain_new_positions(base_avg, year_avg, **given(fractional=fractional))


@excel_function(
    cite=f"{_ERTC}a.",
    example=(10, 1),
    show=lambda credit: money(credit.amount),
    new_positions=single("New full-time positions in the credit year"),
    credit_year=single("Credit year: 1 ($2,500 per position) or 2 ($1,250)"),
    fractional=_FRACTIONAL,
)
def NJ_ERTC_CREDIT(new_positions: Cell, credit_year: Cell, fractional: Cell = None) -> Any:
    """Economic Recovery Tax Credit for one credit year: $2,500 per new full-time position
    in year one, $1,250 in year two (N.J.S.A. 52:27BBB-55a.)."""
    from nj_incentives.law import ertc

    return ertc.credit_amount(new_positions, credit_year, **given(fractional=fractional))


_YEAR1_NEW = single("New full-time positions in credit year one")
_YEAR2_NEW = single("New full-time positions in credit year two")


@excel_function(
    cite=f"{_ERTC}e.",
    example=(10, 8),
    show=lambda ratio: float(ratio.ratio),
    year1_new=_YEAR1_NEW,
    year2_new=_YEAR2_NEW,
)
def NJ_ERTC_SUSTAINED_EFFORT_RATIO(year1_new: Cell, year2_new: Cell) -> Any:
    """Sustained effort ratio: year-two new positions / year-one new positions, at most 1;
    0 when year one has none (N.J.S.A. 52:27BBB-55e.)."""
    from nj_incentives.law import ertc

    return ertc.explain_sustained_effort_ratio(year1_new, year2_new)


@excel_function(
    cite=f"{_ERTC}b.(3)",
    example=(10000, 1000, 2000),
    show=lambda limit: money(limit.amount),
    tax_liability=single("Tax liability otherwise due for the privilege period, dollars"),
    other_credits=single("Other credits taken in the period (applied first), dollars"),
    minimum_tax=single("Statutory minimum tax for the period, dollars (see NJ_CBT_MIN_TAX)"),
    tax_type=_TAX_TYPE,
)
def NJ_ERTC_CREDIT_LIMIT(
    tax_liability: Cell, other_credits: Cell, minimum_tax: Cell, tax_type: Cell = None
) -> Any:
    """Most of the credit usable in a period: max(0, min(50% of the liability, liability -
    minimum tax) - other credits); insurance taxes: liability - other credits
    (N.J.S.A. 52:27BBB-55b.(3))."""
    from nj_incentives.law import ertc

    return ertc.credit_limit(tax_liability, other_credits, minimum_tax, **given(tax_type=tax_type))


@excel_function(
    cite=f"{_ERTC}c.(2)",
    example=(17000, 10, 8),
    show=lambda refund: money(refund.amount),
    year1_remaining=single("Year-one credit unused after the period in which credit year two ends"),
    year1_new=_YEAR1_NEW,
    year2_new=_YEAR2_NEW,
)
def NJ_ERTC_REFUND(year1_remaining: Cell, year1_new: Cell, year2_new: Cell) -> Any:
    """Year-one credit refunded as an overpayment: the unused year-one credit x the
    sustained effort ratio, rounded down to the cent (N.J.S.A. 52:27BBB-55c.(2))."""
    from nj_incentives.law import ertc

    return ertc.explain_refund(year1_remaining, year1_new, year2_new)


ERTC_SCHEDULE_HEADER = [
    "Period end",
    "New credit",
    "Carried in",
    "Limit",
    "Used",
    "Refund",
    "Carried out",
    "Expired",
]


def _ertc_schedule_table(schedule: Any) -> list[list[CellResult]]:
    return [ERTC_SCHEDULE_HEADER] + [
        [
            row.period_end,
            money(row.new_credit),
            money(row.carried_in),
            money(row.limit),
            money(row.used),
            money(row.refund),
            money(row.carried_out),
            money(row.expired),
        ]
        for row in schedule.rows
    ]


@excel_function(
    cite=f"{_ERTC}b., c.",
    example=(
        dt.date(2023, 1, 1),
        10,
        8,
        ["2023-12-31", "2024-12-31", "2025-12-31", "2026-12-31"],
        [8000, 10000, 50000, 50000],
        [0, 1000, 0, 0],
        [2000, 2000, 2000, 2000],
    ),
    show=_ertc_schedule_table,
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
)
def NJ_ERTC_SCHEDULE(
    operations_start: Cell,
    year1_new: Cell,
    year2_new: Cell,
    period_ends: Cell,
    liabilities: Cell,
    other_credits: Cell,
    minimum_taxes: Cell,
    carryforward_years: Cell = None,
    fractional: Cell = None,
    tax_type: Cell = None,
    ratio_fractional: Cell = None,
    refund_period_limit: Cell = None,
) -> Any:
    """Credit per privilege period: Period end, New credit, Carried in, Limit, Used,
    Refund, Carried out, Expired (N.J.S.A. 52:27BBB-55b., c.)."""
    from nj_incentives.law import ertc

    periods = ertc.privilege_periods(period_ends, liabilities, other_credits, minimum_taxes)
    return ertc.credit_schedule(
        operations_start,
        year1_new,
        year2_new,
        periods,
        **given(
            carryforward_years=carryforward_years,
            fractional=fractional,
            tax_type=tax_type,
            ratio_fractional=ratio_fractional,
            refund_period_limit=refund_period_limit,
        ),
    )


CREDIT_YEARS_HEADER = ["Credit year", "First day", "Last day"]


@excel_function(
    cite=f"{_ERTC}e.",
    example=(dt.date(2023, 3, 15),),
    show=lambda years: [
        CREDIT_YEARS_HEADER,
        [1, years.year_one_start, years.year_one_end],
        [2, years.year_two_start, years.year_two_end],
    ],
    operations_start=a_date("Date initial or expanded operations began (Excel date)"),
)
def NJ_ERTC_CREDIT_YEARS(operations_start: Cell) -> Any:
    """Credit years one and two: the first twelve calendar months following initial or
    expanded operations, and the next twelve; Credit year, First day, Last day
    (N.J.S.A. 52:27BBB-55e.)."""
    from nj_incentives.law import ertc

    return ertc.credit_years(operations_start)


@excel_function(
    cite=f"{_ERTC}a., d.",
    example=(False, False),
    show=lambda check: verdict(check.ok, check.reasons),
    receives_uez_benefit=single("TRUE if the taxpayer receives an Urban Enterprise Zones benefit"),
    prior_credit_period_at_location=single(
        "TRUE if the location already had its 24-month credit period"
    ),
    in_qualified_municipality=single(
        "TRUE if the location is in a qualified municipality; blank = TRUE"
    ),
)
def NJ_ERTC_ELIGIBILITY_CHECK(
    receives_uez_benefit: Cell,
    prior_credit_period_at_location: Cell,
    in_qualified_municipality: Cell = None,
) -> Any:
    """ "OK" if the taxpayer may receive the Economic Recovery Tax Credit at the location, or
    every reason it may not (N.J.S.A. 52:27BBB-55a., d.)."""
    from nj_incentives.law import ertc

    return ertc.eligibility_check(
        receives_uez_benefit,
        prior_credit_period_at_location,
        **given(in_qualified_municipality=in_qualified_municipality),
    )


# =========================================================================== CBT

_CBT_FORM = "Form CBT-100"


@excel_function(
    cite=_CBT_FORM,
    example=(dt.date(2023, 6, 30),),
    show=lambda numbered: numbered.year,
    period_end=a_date("Last day of the privilege period (Excel date)"),
    numbering=_NUMBERING,
)
def NJ_TAX_YEAR(period_end: Cell, numbering: Cell = None) -> Any:
    """Tax year N of the CBT return for a privilege period ending on period_end: ending
    July-December of N or January-June of N+1 (the Division's form year, Form CBT-100);
    or the calendar year of the end."""
    from nj_incentives.law import cbt

    return cbt.tax_year(period_end, **given(numbering=numbering))


@excel_function(
    cite=_CBT_FORM,
    example=(2022, 6),
    show=lambda day: day,
    tax_year=single("Tax year of the return (e.g. 2022)"),
    year_end_month=_YEAR_END_MONTH,
    numbering=_NUMBERING,
)
def NJ_TAX_PERIOD_END(tax_year: Cell, year_end_month: Cell = None, numbering: Cell = None) -> Any:
    """Last day of the privilege period numbered tax_year for a filer whose year ends in
    year_end_month: tax year 2022 of a June-30 filer ends 2023-06-30 (Form CBT-100
    numbering)."""
    from nj_incentives.law import cbt

    return cbt.period_end_for(tax_year, **given(month=year_end_month, numbering=numbering))


@excel_function(
    cite="N.J.S.A. 54:10A-5(e)",
    example=(300000,),
    show=lambda minimum: money(minimum.amount),
    nj_gross_receipts=single("New Jersey gross receipts for the privilege period, dollars"),
    s_corporation=single("TRUE for a New Jersey S corporation; blank = FALSE"),
    group_payroll=single("Total payroll of the affiliated or controlled group, dollars; blank = 0"),
    group_rule_for_s_corporations=single(
        "TRUE if the $5,000,000 group payroll rule also binds S corporations; blank = TRUE"
    ),
    period_start_year=single(
        "Year the privilege period begins (the table is for 2012 and after); blank = assumed"
    ),
)
def NJ_CBT_MIN_TAX(
    nj_gross_receipts: Cell,
    s_corporation: Cell = None,
    group_payroll: Cell = None,
    group_rule_for_s_corporations: Cell = None,
    period_start_year: Cell = None,
) -> Any:
    """Corporation Business Tax statutory minimum by New Jersey gross receipts, for periods
    beginning in 2012 and after (N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b))."""
    from nj_incentives.law import cbt

    return cbt.minimum_tax(
        nj_gross_receipts,
        **given(
            s_corporation=s_corporation,
            group_payroll=group_payroll,
            group_rule_for_s_corporations=group_rule_for_s_corporations,
            period_start_year=period_start_year,
        ),
    )


# =========================================================================== about


@excel_function(
    cite="",
    example=(),
    part=single('Blank = both; "version" = the package version; "law" = the law current to'),
)
def NJ_INCENTIVES_VERSION(part: Cell = None) -> str:
    """Version of nj-incentives and the statutes as amended that it implements (the law it
    is current to)."""
    from nj_incentives.law.common import as_choice

    if part is None:
        return f"nj-incentives {__version__}; law current to: {LAW_CURRENT_TO}"
    chosen = as_choice(part, "part", ("version", "law"), "NJ_INCENTIVES_VERSION, docs/functions.md")
    return __version__ if chosen == "version" else LAW_CURRENT_TO


@excel_function(
    cite="",
    example=([["id", "accrual_year", "conversion_amount"], ["A", 2012, 1250000]],),
    show=lambda table: table,
    table=raw(
        "Scenario table: a header row of column names (docs/scenarios.md), then one "
        "scenario per row"
    ),
)
def NJ_SCENARIOS(table: Cell) -> Any:
    """Runs a scenario table on the calculation core (N.J.S.A. 34:1B-129, 52:27BBB-55) and
    spills the results with a header row; a bad row's message is in its error column."""
    try:
        from nj_incentives.scenarios.columns import ScenarioError
        from nj_incentives.scenarios.table import scenarios_table
    except ImportError as missing:  # e.g. Pyodide without numpy/pandas wheels
        raise MissingPackage(
            f"NJ_SCENARIOS needs numpy and pandas, which this Python does not have "
            f"({missing}): install pandas (in xlwings Lite: add it to requirements.txt), "
            "or run the table with nj-incentives scenarios"
        ) from None

    rows = as_rows(table)
    try:
        return scenarios_table(rows)
    except ScenarioError as error:
        citation = "NJ_SCENARIOS, docs/scenarios.md"
        raise input_error("table", rows[0] if rows else None, str(error), citation) from None


EXPLAIN_HEADER = ["Step", "Value", "Arithmetic", "Citation"]


def _step_value(value: object) -> CellResult:
    if isinstance(value, Decimal):
        return float(value)
    return value


def _explanation(result: Explained) -> list[list[CellResult]]:
    return [EXPLAIN_HEADER] + [
        [step.label, _step_value(step.value), step.arithmetic, step.citation]
        for step in result.steps
    ]


@excel_function(
    cite="",
    example=("NJ_BEIP_GRANT", 1250000, 0.2),
    show=_explanation,
    function_name=single('Name of the NJ_ function to explain, e.g. "NJ_BEIP_GRANT"'),
    args=single("That function's arguments, in its order"),
)
def NJ_EXPLAIN(function_name: Cell, *args: Cell) -> Explained:
    """Steps behind an NJ_ function's result: Step, Value, Arithmetic, Citation; each step
    with its citation."""
    from nj_incentives.law.common import Explained

    chosen = str(function_name).strip().upper()
    if chosen not in CATALOG or chosen == "NJ_EXPLAIN":
        rule = "must be the name of an NJ_ function"
        raise input_error("function_name", function_name, rule, "NJ_EXPLAIN, docs/functions.md")
    result = CATALOG[chosen].result(*args)
    if not isinstance(result, Explained):
        rule = "gives a value without explanation steps"
        raise input_error("function_name", function_name, rule, "NJ_EXPLAIN, docs/functions.md")
    return result


#: ``functions(errors="raise")``: the plain callables, by Excel name, raising on bad input
#: (the core's ``InputError``; :func:`error_text` gives the cell text for any exception).
FUNCTIONS: dict[str, Callable[..., CellResult]] = functions(errors="raise")

# ``from nj_incentives.excel import *`` (xlwings Lite's main.py) brings every function.
__all__ += list(CATALOG)
