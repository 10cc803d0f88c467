"""The layout the credit-ledger templates share: a credit the Authority approves as one
award, allowed in equal parts over the eligibility period and carried forward, sold by
transfer certificate or to the State (Grow NJ, ``programs/grow_nj/templates``; Emerge,
``programs/emerge/templates``; issue 33 item 5).

Each program's template module declares what is its own (its schedule function and its
arguments, its switches, its transfer and sale rules and their citations:
:class:`LedgerTemplate`); this module lays out the rest alike:

- **Inputs**: the award from the approval letter (an input: the Authority decides it,
  nothing here computes it), the years of the eligibility period, the last day of the
  first privilege period the credit is allowed in, the program's switches; one row a
  privilege period with the tax the credit may be used against (after the credits applied
  before it, N.J.A.C. 18:7-3.17); a table of transfers and sales to the State.
- **Calculations**: the annual credit and the schedule from the program's NJ_* functions
  (period, period end, new credit, carried in, limit, used, transferred, sold to the
  State, proceeds, expired, carried out) and their totals.
- **Outputs**: the figures a reader needs, each with its citation, and a chart.
- **Return**: the tax year's row of the schedule on the return (its own printed sheet,
  :mod:`nj_incentives.programs.return_sheet`): the program's credit form's dated lines
  where one is known (Grow NJ: Form 320) and Schedule A-3's line of the program.
- **Checks**: each input as the functions read it, the schedule against its inputs (a
  row a period given, the annual credit in each period of the eligibility period, the
  balance of every period and of the whole), and each transfer and sale against the
  program's rule.

It rolls to its next privilege period (``nj-incentives rollforward``: the schedule is
computed again from the award, so nothing is typed over; the next period's liability is
the new input) and reads a DATA file by its input names (``fill``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from nj_incentives.core.declarations import ResultColumn
from nj_incentives.core.workpaper import (
    CALCULATIONS,
    CENT_TOLERANCE,
    NOT_COMPUTED,
    OUTPUTS,
    RETURN_SHEET,
    ArrayTable,
    CarriedFigure,
    Chart,
    Check,
    Column,
    FormulaTable,
    InputTable,
    Item,
    Kind,
    Last,
    LineItem,
    Note,
    ReturnBlock,
    RolledPeriod,
    RollForward,
    RollRefused,
    Section,
    Skip,
    SourceHeading,
    Span,
    Title,
    Total,
    Workpaper,
    last_row,
    money,
    named_period,
)
from nj_incentives.programs import forms as F
from nj_incentives.programs import return_sheet as returns
from nj_incentives.programs import template_inputs as inputs

__all__ = ["EVENT_KINDS", "LedgerTemplate", "schedule_columns"]

#: The kinds of an events row (:mod:`nj_incentives.core.ledger`).
EVENT_KINDS = ("transfer", "sale")

_SCHEDULE = "[[data:Schedule:{}]]".format
_TOLERANCE = CENT_TOLERANCE


def schedule_columns(declared: tuple[ResultColumn, ...]) -> tuple[Column, ...]:
    """A schedule function's result columns (as its catalog declares them) as the
    template's columns."""
    return tuple(
        Column(column.header, Kind.COUNT, "", width=8)
        if column.unit == "int"
        else Column(column.header, Kind.DATE, "date", width=12)
        if column.unit == "date"
        else Column(column.header, Kind.MONEY, "$", width=14)
        for column in declared
    )


def _figure(value: Decimal) -> str:
    """A figure as a formula's number, in the fewest digits (0.9, not 0.90: as a
    LibreOffice save writes it, so that its copy is the template's formula again)."""
    return f"{value.normalize():f}"


def _pct(value: Decimal) -> str:
    return f"{value * 100:f}".rstrip("0").rstrip(".") + "%"


@dataclass(frozen=True)
class LedgerTemplate:
    """One program's credit-ledger template: what is its own.

    ``schedule``: the schedule function's call over the template's names (``Award``,
    ``FirstPeriodEnd``, ``Liabilities``, ``EligibilityYears``, ``Events`` and the
    switches); ``annual``: the annual credit's formula (an NJ_* call, or the schedule's
    first new credit); ``years``: the eligibility years' input; ``switches``: the
    program's readings, as inputs; ``periods``: the privilege periods the template has
    rows for; ``transfer_minimum`` and ``transfer_share``: the smallest transfer and the
    least consideration as a share (34:1B-248, -346); ``sale_share``: the most the State
    pays as a share of the credit sold, and ``sale_exact``: whether it pays exactly that
    (Emerge's surrender) or at most (Grow NJ's purchase)."""

    template_id: str
    program: str
    #: the program's key (:data:`nj_incentives.programs.forms.CREDIT_FORMS`: its credit
    #: form, and its item of Schedule A-3)
    key: str
    title: str
    purpose: str
    sources: tuple[str, ...]
    schedule: str
    schedule_columns: tuple[ResultColumn, ...]
    annual: str
    annual_source: str
    schedule_cite: str
    years: Item
    periods: int
    carryforward: str
    cite_award: str
    cite_carryforward: str
    cite_transfer: str
    cite_sale: str
    transfer_minimum: Decimal
    transfer_share: Decimal
    sale_share: Decimal
    sale_exact: bool
    switches: tuple[Item, ...] = ()
    event_rows: int = 8
    event_help: str = ""
    issued_help: str = ""
    price_help: str = ""

    # ----------------------------------------------------------------- inputs

    def period_labels(self) -> tuple[str, ...]:
        return tuple(f"Period {n}" for n in range(1, self.periods + 1))

    def award_items(self) -> tuple[LineItem, ...]:
        return (
            Title(
                "Inputs",
                "Type only in the yellow cells. Money in dollars; dates as dates.",
            ),
            Section("The award (the approval letter)"),
            Item(
                "Total credit approved",
                "Award",
                Kind.MONEY,
                "$",
                key="award",
                help="The award in the Authority's approval letter, dollars. An amount the "
                f"Authority decides: an input, never computed here ({self.cite_award}).",
            ),
            self.years,
            Item(
                "Last day of the first privilege period",
                "FirstPeriodEnd",
                Kind.DATE,
                "date",
                key="first_period_end",
                prompt="First period end",
                help="The last day of the first privilege (tax) period the credit is allowed "
                "in; each later period ends a year after the one before "
                f"({self.cite_carryforward}).",
            ),
            *self.switches,
        )

    def period_items(self) -> tuple[LineItem, ...]:
        return (
            Section("Per privilege period (one row a tax period; leave later periods blank)"),
            Note(
                "The liability is the tax the credit may be used against in the period, "
                "after the credits applied before it in the order of N.J.A.C. 18:7-3.17 "
                "(a portfolio of awards computes that order). The schedule has a row for "
                "each period given; a credit is carried forward "
                f"{self.carryforward} periods, then expires ({self.cite_carryforward})."
            ),
            InputTable(
                self.period_labels(),
                (
                    Column(
                        "Liability",
                        Kind.MONEY,
                        "$",
                        name="Liabilities",
                        key="liabilities",
                        help="The tax the credit may be used against in the period, dollars "
                        "(0 if none).",
                    ),
                ),
                label_header="Privilege period",
            ),
        )

    def event_items(self) -> tuple[LineItem, ...]:
        return (
            Section("Transfers and sales to the State (a row each; blank rows are skipped)", 8),
            Note(self.event_help),
            InputTable(
                tuple(f"Event {n}" for n in range(1, self.event_rows + 1)),
                (
                    Column(
                        "Kind",
                        Kind.CHOICE,
                        "choice",
                        name="EventKind",
                        key="event_kind",
                        choices=EVENT_KINDS,
                        width=11,
                        help='"transfer" (a transfer certificate) or "sale" (to the State).',
                    ),
                    Column(
                        "Date",
                        Kind.DATE,
                        "date",
                        name="EventDate",
                        key="event_date",
                        width=12,
                        help="The day of the sale; the schedule places it in its period.",
                    ),
                    Column(
                        "Credit of period",
                        Kind.COUNT,
                        "period",
                        name="EventPeriod",
                        key="event_period",
                        minimum=1,
                        maximum=self.periods,
                        width=10,
                        help="The number of the period whose credit is sold (1 = the first).",
                    ),
                    Column(
                        "Amount",
                        Kind.MONEY,
                        "$",
                        name="EventAmount",
                        key="event_amount",
                        help="Credit sold, dollars (a sale to the State: blank = all of that "
                        "period's credit left, sold whole, N.J.A.C. 18:34-1.3(a)).",
                    ),
                    Column(
                        "Price",
                        Kind.MONEY,
                        "$",
                        name="EventPrice",
                        key="event_price",
                        help=self.price_help,
                    ),
                    Column(
                        "Issued",
                        Kind.DATE,
                        "date",
                        name="EventIssued",
                        key="event_issued",
                        width=12,
                        help=self.issued_help,
                    ),
                ),
                label_header="Event",
                spans=(Span("Events", "Kind", "Issued"),),
            ),
        )

    # ----------------------------------------------------------------- calculations

    def calculation_items(self) -> tuple[LineItem, ...]:
        last = f"COUNT({_SCHEDULE('Period end')})"
        return (
            Title(
                "Calculations",
                "Formulas only: every figure comes from the NJ_* functions.",
                sheet=CALCULATIONS,
            ),
            ArrayTable(
                self.schedule,
                schedule_columns(self.schedule_columns),
                rows=self.periods,
                label=f"Credit schedule by privilege period ({self.schedule_cite})",
                name="Schedule",
            ),
            Section("Totals", width=3, sheet=CALCULATIONS),
            Item(
                "Annual credit: the award / the eligibility years",
                "AnnualCredit",
                Kind.MONEY,
                "$",
                self.annual,
                role="total",
            ),
            Total("Credit allowed", _SCHEDULE("New credit"), name="TotalAllowed"),
            Total("Credit used", _SCHEDULE("Used"), name="TotalUsed"),
            Total("Credit transferred", _SCHEDULE("Transferred"), name="TotalTransferred"),
            Total("Credit sold to the State", _SCHEDULE("Sold to State"), name="TotalSold"),
            Total("Proceeds of transfers and sales", _SCHEDULE("Proceeds"), name="TotalProceeds"),
            Total("Credit expired", _SCHEDULE("Expired"), name="TotalExpired"),
            Item(
                "Credit carried forward after the last period",
                "CarriedForward",
                Kind.MONEY,
                "$",
                f'IF({last}>0,INDEX({_SCHEDULE("Carried out")},{last}),"{NOT_COMPUTED}")',
                role="total",
            ),
            Item(
                "Last period of the schedule ends",
                "LastPeriodEnd",
                Kind.DATE,
                "date",
                f'IF({last}>0,INDEX({_SCHEDULE("Period end")},{last}),"{NOT_COMPUTED}")',
                role="total",
            ),
            Section(
                "The return's tax year of each privilege period (the Return sheet shows one)",
                width=3,
                sheet=CALCULATIONS,
            ),
            FormulaTable(
                (Column("Tax year", Kind.YEAR, "year", name="ReturnTaxYears"),),
                tuple(
                    (
                        "IF(ISNUMBER([[at:Schedule:Period end:row]]),"
                        'NJ_TAX_YEAR([[at:Schedule:Period end:row]]),"")',
                    )
                    for _ in range(self.periods)
                ),
                row_labels=self.period_labels(),
                label_header="Privilege period",
                name="ReturnPeriods",
            ),
        )

    def output_items(self) -> tuple[LineItem, ...]:
        def output(label: str, formula: str, source: str, kind: Kind = Kind.MONEY) -> Item:
            unit = "$" if kind is Kind.MONEY else "date" if kind is Kind.DATE else "TRUE/FALSE"
            return Item(
                label, None, kind, unit, formula, role="output", source=source, sheet=OUTPUTS
            )

        return (
            Title(
                "Outputs",
                "Valid only when Checks!MasterCheck is TRUE.",
                sheet=OUTPUTS,
                landscape=False,
            ),
            SourceHeading("The law it comes from", 48),
            output("All checks pass", "MasterCheck", "the Checks sheet", Kind.CHECK),
            output("Total credit approved (input)", "Award", self.cite_award),
            output("Credit allowed each period", "AnnualCredit", self.annual_source),
            output("Credit allowed in the periods given", "TotalAllowed", self.annual_source),
            output("Credit used against the tax", "TotalUsed", self.cite_carryforward),
            output(
                "Credit transferred (transfer certificates)", "TotalTransferred", self.cite_transfer
            ),
            output("Credit sold to the State", "TotalSold", self.cite_sale),
            output(
                "Proceeds of transfers and sales",
                "TotalProceeds",
                f"{self.cite_transfer}; {self.cite_sale}",
            ),
            output("Credit expired", "TotalExpired", self.cite_carryforward),
            output(
                "Credit carried forward after the last period",
                "CarriedForward",
                self.cite_carryforward,
            ),
            output(
                "Last period of the schedule ends",
                "LastPeriodEnd",
                self.cite_carryforward,
                Kind.DATE,
            ),
            Skip(sheet=OUTPUTS),
            Chart(
                f"{self.program} credit by privilege period",
                _SCHEDULE("Period"),
                (
                    ("New credit", _SCHEDULE("New credit")),
                    ("Used", _SCHEDULE("Used")),
                    ("Carried out", _SCHEDULE("Carried out")),
                ),
                y_title="$",
                x_title="Privilege period",
            ),
        )

    # ----------------------------------------------------------------- checks

    def _checks(self, read: Callable[[str], str]) -> tuple[Check, ...]:
        liabilities, years = read("Liabilities"), read("EligibilityYears")
        kind = read("EventKind")
        # a blank amount or price (a sale's) is none: 0 in the sums
        amount, price = (_number(read(name)) for name in ("EventAmount", "EventPrice"))
        new, ends = _SCHEDULE("New credit"), _SCHEDULE("Period end")
        transfer = f'--({kind}="transfer")'
        sale = f'--({kind}="sale")'
        share = _pct(self.transfer_share)
        sale_proceeds = f"([[name:TotalProceeds]]-SUMPRODUCT({transfer}*{price}))"
        return (
            Check(
                "The award and the first period's end are given",
                f"AND(COUNT({read('Award')})=1,COUNT({read('FirstPeriodEnd')})=1)",
                self.cite_award,
            ),
            Check(
                "The years of the eligibility period are given (the approval's)",
                f"COUNT({years})=1",
                self.cite_award,
            ),
            Check(
                "The schedule has a row for every period given",
                f"COUNT({ends})=COUNT({liabilities})",
                self.cite_carryforward,
            ),
            Check.numbers("The schedule holds numbers only", "[[data:Schedule]]"),
            Check(
                "Every transfer or sale gives its date and the period whose credit it sells",
                f"AND(COUNT({read('EventDate')})=SUMPRODUCT({transfer}+{sale}),"
                f"COUNT({read('EventPeriod')})=SUMPRODUCT({transfer}+{sale}),"
                f"COUNT({read('EventIssued')})<=SUMPRODUCT({transfer}+{sale}))",
                self.cite_transfer,
            ),
            Check(
                "Each of the first periods, one a year of the eligibility period, is allowed "
                "the annual credit, and no later one any",
                f'AND(COUNTIF({new},">0")=MIN({years},COUNT({ends})),'
                f"SUMPRODUCT(--({new}>0),--(ABS({new}-[[name:AnnualCredit]])>={_TOLERANCE}))=0,"
                f"SUMPRODUCT(--({new}>0),--({_SCHEDULE('Period')}>{years}))=0)",
                self.annual_source,
            ),
            Check.equal(
                "Credit allowed = used + transferred + sold + expired + carried forward",
                "[[name:TotalAllowed]]",
                "[[name:TotalUsed]]+[[name:TotalTransferred]]+[[name:TotalSold]]"
                "+[[name:TotalExpired]]+[[name:CarriedForward]]",
                self.cite_carryforward,
            ),
            Check(
                "Each period: carried out = carried in + new credit - used - transferred - sold"
                " - expired",
                f"SUMPRODUCT(--(ABS({_SCHEDULE('Carried in')}+{new}-{_SCHEDULE('Used')}"
                f"-{_SCHEDULE('Transferred')}-{_SCHEDULE('Sold to State')}"
                f"-{_SCHEDULE('Expired')}-{_SCHEDULE('Carried out')})>={_TOLERANCE}))=0",
                self.cite_carryforward,
            ),
            Check(
                "Each period carries in what the period before carried out",
                "SUMPRODUCT(--ISNUMBER([[data:Schedule:Carried in:1:]]),"
                "--(ABS([[data:Schedule:Carried in:1:]]-[[data:Schedule:Carried out::-1]])"
                f">={_TOLERANCE}))=0",
                self.cite_carryforward,
            ),
            Check(
                "No period's credit used exceeds its liability",
                f"SUMPRODUCT(--({_SCHEDULE('Used')}>{_SCHEDULE('Limit')}+{_TOLERANCE}))=0",
                self.cite_carryforward,
            ),
            Check.equal(
                "The credit transferred is the sum of the transfers given",
                "[[name:TotalTransferred]]",
                f"SUMPRODUCT({transfer}*{amount})",
                self.cite_transfer,
            ),
            Check(
                f"Every transfer sells at least ${self.transfer_minimum:,.0f} of credit for "
                f"at least {share} of it",
                f"SUMPRODUCT({transfer}*({amount}<{_figure(self.transfer_minimum)}))"
                f"+SUMPRODUCT({transfer}*({price}<{amount}*{_figure(self.transfer_share)}"
                f"-{_TOLERANCE}))=0",
                self.cite_transfer,
            ),
            (
                Check(
                    f"The State pays {_pct(self.sale_share)} of the credit sold to it "
                    "(each rounded down to the cent)",
                    f"AND({sale_proceeds}<=[[name:TotalSold]]*{_figure(self.sale_share)}+{_TOLERANCE},"
                    f"{sale_proceeds}>[[name:TotalSold]]*{_figure(self.sale_share)}"
                    f"-0.01*SUMPRODUCT({sale}*1)-{_TOLERANCE})",
                    self.cite_sale,
                )
                if self.sale_exact
                else Check(
                    f"The State pays at most {_pct(self.sale_share)} of the credit sold to it",
                    f"{sale_proceeds}<=[[name:TotalSold]]*{_figure(self.sale_share)}+{_TOLERANCE}",
                    self.cite_sale,
                )
            ),
        )

    # ----------------------------------------------------------------- the return

    def return_spec(self) -> returns.ReturnSpec:
        """The return of a tax year: the schedule's row of the privilege period whose
        return that tax year is, each figure on the line of the program's credit form
        (:data:`~nj_incentives.programs.forms.CREDIT_FORMS`; none known: its law only) and
        of Schedule A-3, in the edition in force for the tax year."""
        form = F.CREDIT_FORMS[self.key]

        def figure(label: str, header: str, item: str | None, law: str) -> returns.ReturnFigure:
            if item is None or not form:
                return returns.ReturnFigure(label, f"Schedule:{header}", law=law)
            return returns.ReturnFigure(label, f"Schedule:{header}", form, item, law)

        unknown = (
            ()
            if form
            else (
                f"No {self.program} credit form was found (searched, docs/interpretations.md, "
                "Form lines and their editions): only Schedule A-3's line is given; the other "
                "figures go on no form line here.",
            )
        )
        return returns.ReturnSpec(
            self.template_id,
            f"The return: {form + ' and ' if form else ''}{F.SCHEDULE_A3.form} (the edition in "
            "force for the tax year)",
            (
                figure(
                    "Credit allowed for the period (new credit)",
                    "New credit",
                    "approved",
                    self.annual_source,
                ),
                figure(
                    "Credit carried in from the prior period",
                    "Carried in",
                    "carried_in",
                    self.cite_carryforward,
                ),
                figure(
                    "Liability the credit may be used against",
                    "Limit",
                    None,
                    self.cite_carryforward,
                ),
                figure("Allowable credit (used)", "Used", "allowable", self.cite_carryforward),
                returns.ReturnFigure(
                    f"{self.program} credit",
                    "Schedule:Used",
                    "Schedule A-3",
                    self.key,
                    "N.J.A.C. 18:7-3.17",
                ),
                figure(
                    "Transferred (transfer certificates)", "Transferred", None, self.cite_transfer
                ),
                figure("Sold to the State", "Sold to State", None, self.cite_sale),
                figure(
                    "Proceeds of transfers and sales",
                    "Proceeds",
                    None,
                    f"{self.cite_transfer}; {self.cite_sale}",
                ),
                figure("Expired", "Expired", None, self.cite_carryforward),
                figure("Carried forward", "Carried out", None, self.cite_carryforward),
            ),
            years="ReturnTaxYears",
            ends="Schedule:Period end",
            default="MAX(ReturnTaxYears)",
            default_text="the tax year of the last privilege period with a liability entered",
            notes=(
                *unknown,
                "The liability is the input's: the tax after the credits applied before this "
                "one (N.J.A.C. 18:7-3.17), the CBT before the Corporate Transit Fee. A line "
                "'to be confirmed' is not given by our sources for that edition "
                "(docs/interpretations.md, Form lines and their editions).",
            ),
        )

    def return_of(self) -> Callable[[Callable[[str], Any], int], ReturnBlock | None]:
        """The template's ``RETURN``: the Return sheet's figures of a tax year, read from
        the same cells (None: no privilege period of that tax year)."""
        spec = self.return_spec()

        def of(read: Callable[[str], Any], tax_year: int) -> ReturnBlock | None:
            return returns.block(spec, read, tax_year)

        return of

    # ----------------------------------------------------------------- the whole

    def _before_checks(self) -> tuple[LineItem, ...]:
        return (
            *self.award_items(),
            *self.period_items(),
            *self.event_items(),
            *self.calculation_items(),
            *self.output_items(),
            *returns.sheet_items(self.return_spec()),
        )

    def checks(self) -> tuple[Check, ...]:
        """The Checks sheet's lines: each input as the functions read it, then the
        schedule's (each input read by :func:`~nj_incentives.programs.template_inputs.reader`,
        as the functions read it)."""
        items = (*self._before_checks(), *self._checks(str))
        return (*inputs.input_checks(items), *self._checks(inputs.reader(items)))

    def template(self) -> tuple[LineItem, ...]:
        """The whole template, in the order the builder lays it out."""
        return (*self._before_checks(), *self.checks())

    def workpaper(self, items: tuple[LineItem, ...], values: Mapping[str, Any] | None) -> Workpaper:
        values = values or {}
        return Workpaper(
            self.template_id,
            self.title,
            self.purpose,
            items,
            values,
            engagement=values.get("engagement"),
            sources=self.sources,
            output_sheets=(
                (RETURN_SHEET, f"one tax year's return: {self.return_spec().heading[12:]}"),
            ),
        )

    # ----------------------------------------------------------------- roll forward

    def roll_forward(self) -> RollForward:
        """The next privilege period: the schedule is computed again from the award; the
        next period's liability is the new input."""
        periods, carryforward = self.periods, self.cite_carryforward

        def roll(values: dict[str, object], last: Last) -> RolledPeriod:
            filled = last_row(values.get("Liabilities") or [])  # type: ignore[arg-type]
            named = named_period(
                values, r"privilege periods? (\d{1,2})(?:\s*(?:-|to)\s*(\d{1,2}))?"
            )
            period = int(named) if named and 0 < int(named) <= filled else filled
            where, refers = last.where, last.refers
            if period == 0:
                raise RollRefused(
                    f"{where} {refers.get('LIABILITIES', 'Liabilities')}: no privilege period "
                    "has a liability yet: nothing to roll forward from (fill the first period)"
                )
            if period + 1 > periods:
                raise RollRefused(
                    f"{where} {refers.get('LIABILITIES', 'Liabilities')}: privilege period "
                    f"{period + 1} is past the template's {periods} periods; nothing to roll "
                    "forward to"
                )
            carried: list[str] = []
            figures: list[CarriedFigure] = []
            schedule = last.names.get("Schedule")
            if isinstance(schedule, list) and len(schedule) > period:
                header = schedule[0]
                row = schedule[period]
                if "Carried out" in header and "Period end" in header:
                    out = row[header.index("Carried out")]
                    end = row[header.index("Period end")]
                    shown = _date_text(end)
                    carried.append(
                        f"credit carried out of privilege period {period} (ending {shown}): "
                        f"{money(out)}, carried by the schedule into period {period + 1} "
                        f"({carryforward})"
                    )
                    amount = round(float(out), 2) if isinstance(out, (int, float)) else None
                    figures.append(
                        CarriedFigure("Carried out", amount, "$", f"privilege period {period}")
                    )
            return RolledPeriod(
                f"privilege period {period}",
                f"privilege period {period + 1}",
                carried,
                period + 1,
                tuple(figures),
            )

        def engagement_period(values: Mapping[str, object], current: str) -> str:
            return f"Privilege period {current} of the {self.program} credit"

        return RollForward(
            carried=(("Schedule: Carried out", "(the periods kept)", carryforward),),
            new_period=("Liabilities",),
            roll=roll,
            engagement_period=engagement_period,
        )


def _number(read: str) -> str:
    """``read`` (an NJ_INPUT call over a range), each blank cell as 0."""
    return f"IF(ISNUMBER({read}),{read},0)"


def _date_text(value: object) -> str:
    """A date cell's value as ISO text (an Excel serial, a date or text as it is)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (dt.date(1899, 12, 30) + dt.timedelta(days=int(value))).isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)
