"""Template 1: the BEIP grant schedule (N.J.S.A. 34:1B-129a.-c., 34:1B-134; N.J.A.C. 19:31I-1.4).

Inputs: the agreement (date, term, percentages, smart growth, the basis of the combined
limit) and, per grant year, withholdings, partners' estimated tax, certified new
employees and other State grants. Calculations: the statutory percentage limits, the
grant schedule from ``NJ_BEIP_GRANT_SCHEDULE`` (grant before cap, cap room, grant,
cumulative) and, per year, the combined-grants limit of 34:1B-134 (``NJ_BEIP_COMBINED_LIMIT``)
with the excess over it and the grant within it. Outputs: the totals and a chart.

The template is declared: :data:`TEMPLATE` holds its line items (inputs, tables, figures,
chart, checks), which the builder lays out; each formula names what it reads. Every
figure comes from an NJ_* function; the formulas around them are presentation only
(builder.py's docstring lists what they may do).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from nj_incentives.core.workpaper import (
    CALCULATIONS,
    INPUTS,
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
    RolledPeriod,
    RollForward,
    RollRefused,
    Section,
    Skip,
    Spill,
    Title,
    Total,
    Workpaper,
    last_row,
    money,
    named_period,
)
from nj_incentives.programs import return_sheet as returns
from nj_incentives.programs import template_inputs as inputs
from nj_incentives.programs.awards import sheet as calendar
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.beip.functions import GRANT_SCHEDULE_COLUMNS

#: The average cap as the template's texts show it (every version).
_CAP = BEIP.AVERAGE_CAP.summary()

#: The first version of the figures the grant schedule reads: a ``LawAsOf`` before it is
#: refused (issue 34).
_FIRST_GRANT_ACT = min((f.versions[0].act for f in beip.GRANT_FIGURES), key=lambda a: a.date)

__all__ = [
    "EXAMPLE",
    "MAX_TERM",
    "NO_RETURN_LINE",
    "RETURN",
    "ROLL_FORWARD",
    "TEMPLATE_ID",
    "workpaper",
]

TEMPLATE_ID = "beip-grant-schedule"
#: The longest grant term, N.J.S.A. 34:1B-129c. (one row per possible grant year).
MAX_TERM = beip.MAXIMUM_TERM_YEARS
YEARS = tuple(f"Grant year {n}" for n in range(1, MAX_TERM + 1))

#: NJ_BEIP_GRANT_SCHEDULE's result columns, as the catalog declares them
SCHEDULE_COLUMNS = tuple(
    Column(column.header, Kind.COUNT, "", width=8)
    if column.unit == "int"
    else Column(column.header, Kind.MONEY, "$")
    for column in GRANT_SCHEDULE_COLUMNS
)

#: The filled example: a 2010 agreement (the $50,000 average cap applies), five years.
EXAMPLE: Mapping[str, Any] = {
    "engagement": {
        "client": "Example Manufacturing LLC (fictitious)",
        "entity_id": "00-0000000 (example)",
        "period": "Grant years 1-5 (2010-2014)",
        "preparer": "A. Preparer",
        "reviewer": "R. Reviewer",
        "date": dt.date(2026, 12, 1),
    },
    "agreement_date": dt.date(2010, 1, 1),
    "term": 5,
    "pct": 0.5,
    "partner_pct": 0,
    "smart_growth": False,
    "limit_basis": "withholdings",
    "withholdings": [600000, 600000, 650000, 700000, 700000],
    "partner_tax": [],
    "new_employees": [10, 12, 14, 15, 15],
    "other_grants": [0, 50000, 0, 0, 100000],
    "first_year_end": dt.date(2010, 12, 31),
    "base_employment": 250,
    # each year's report filed by March 1 (2015-03-01 a Sunday: filed the Thursday before)
    "report_filed": [
        dt.date(2011, 2, 25),
        dt.date(2012, 2, 28),
        dt.date(2013, 2, 27),
        dt.date(2014, 2, 27),
        dt.date(2015, 2, 26),
    ],
    "obligations_as_of": dt.date(2026, 12, 1),
}


#: The agreement's inputs (Inputs, first section).
AGREEMENT: tuple[LineItem, ...] = (
    Title(
        "Inputs",
        "Type only in the yellow cells. Percentages as percentages (50%), money in dollars.",
    ),
    Section("Grant agreement"),
    Item(
        "Agreement date",
        "AgreementDate",
        Kind.DATE,
        "date",
        key="agreement_date",
        help=f"Date the grant agreement was entered into (the {_CAP} average cap applies to "
        f"agreements from {BEIP.CAP_AGREEMENTS_FROM.single.isoformat()}, N.J.S.A. 34:1B-129a.;"
        " N.J.A.C. 19:31I-1.4(a)).",
    ),
    Item(
        "Term",
        "Term",
        Kind.COUNT,
        "years",
        key="term",
        minimum=1,
        maximum=MAX_TERM,
        help="Number of grant years in the agreement, 1 to 10 (N.J.S.A. 34:1B-129c.).",
    ),
    Item(
        "Grant percentage of withholdings",
        "GrantPct",
        Kind.PERCENT,
        "%",
        key="pct",
        maximum=float(beip.SMART_GROWTH_MAXIMUM_PCT_OF_WITHHOLDINGS),
        help="As agreed: 10% to 50% (N.J.S.A. 34:1B-129a.), up to 80% with smart growth "
        "(b.); 0% if the grant is based on partners' tax only.",
    ),
    Item(
        "Grant percentage of partners' estimated tax",
        "PartnerPct",
        Kind.PERCENT,
        "%",
        key="partner_pct",
        default=0,
        maximum=float(beip.SMART_GROWTH_MAXIMUM_PCT_OF_PARTNERS_TAX),
        prompt="Grant % of partners' tax",
        help="As agreed: 10% to 30%, 50% with smart growth (N.J.S.A. 34:1B-129a., b.); "
        "0% if not used.",
    ),
    Item(
        "Located in a smart growth area",
        "SmartGrowth",
        Kind.YESNO,
        "yes/no",
        key="smart_growth",
        default=False,
        help="Yes if the grant promotes smart growth: raises the maximum percentages "
        "(N.J.S.A. 34:1B-129b.) and the combined-grants limit (34:1B-134(c)).",
    ),
    Item(
        "Basis of the combined-grants limit",
        "LimitBasis",
        Kind.CHOICE,
        "choice",
        key="limit_basis",
        default="withholdings",
        choices=("withholdings", "partners"),
        prompt="Basis of the combined limit",
        help="What the 34:1B-134 limit is a share of: withholdings, or partners' estimated tax.",
    ),
    Item(
        f"Reading of the {_CAP} average cap",
        "CapMethod",
        Kind.CHOICE,
        "choice",
        key="cap_method",
        default="per_year",
        choices=tuple(beip.CAP_METHODS),
        prompt="Reading of the average cap",
        help='"per_year": the N.J.A.C. 19:31I-1.4(a) example (default); "whole_term": one test '
        'over the term; "proportional": the same, every year reduced alike.',
    ),
    Item(
        "Law as of (blank: the law in force)",
        "LawAsOf",
        Kind.DATE,
        "date",
        key="law_as_of",
        prompt="Law as of",
        help="Blank: the law in force. A date: the law on that day (docs/interpretations.md),"
        f" from {_FIRST_GRANT_ACT.label()}, the first version of the grant's figures.",
    ),
)


#: Inputs: one row per grant year.
PER_YEAR: tuple[LineItem, ...] = (
    Section("Per grant year (one row per year of the term; leave later years blank)"),
    InputTable(
        YEARS,
        (
            Column(
                "Withholdings",
                Kind.MONEY,
                "$",
                name="Withholdings",
                key="withholdings",
                help="Withholdings of the new employees in the grant year, dollars.",
            ),
            Column(
                "Partners' estimated tax",
                Kind.MONEY,
                "$",
                name="PartnerTax",
                key="partner_tax",
                help="Partners' estimated tax on the new employees' share; blank if none.",
            ),
            Column(
                "Certified new employees",
                Kind.COUNT,
                "people",
                name="NewEmployees",
                key="new_employees",
                help="New employees certified in the annual report for the year.",
            ),
            Column(
                "Other State grants",
                Kind.MONEY,
                "$",
                name="OtherGrants",
                key="other_grants",
                default=0,
                help="All other State grants for the year (0 if none), N.J.S.A. 34:1B-134(b).",
            ),
            Column(
                "Annual report filed on",
                Kind.DATE,
                "date",
                name="ReportFiled",
                key="report_filed",
                help="The day the year's annual report was filed (due March 1 after the grant "
                "year, N.J.S.A. 34:1B-131 a.); blank if not filed.",
            ),
        ),
        label_header="Grant year",
        sheet=INPUTS,
    ),
)

#: Inputs: the award's obligations (the Calendar sheet).
OBLIGATIONS: tuple[LineItem, ...] = (
    Section("Compliance calendar (N.J.S.A. 34:1B-130, -131; N.J.A.C. 19:31I-1.6)"),
    Item(
        "Last day of grant year 1",
        "FirstYearEnd",
        Kind.DATE,
        "date",
        key="first_year_end",
        prompt="Grant year 1 ends",
        help="As the agreement sets the grant years; each later grant year ends 12 months "
        "later. The Calendar's reports, employment tests and commitment run from it; blank: "
        "no Calendar.",
    ),
    Item(
        "Base Employment Number",
        "BaseEmployment",
        Kind.COUNT,
        "people",
        key="base_employment",
        help="As the agreement states it: at least 80% kept for the commitment duration "
        "(N.J.A.C. 19:31I-1.6(a)). Blank: the Calendar shows the test without its floor.",
    ),
    Item(
        "Last day of the commitment (blank: 1.5 times the term)",
        "CommitmentEnd",
        Kind.DATE,
        "date",
        key="commitment_end",
        prompt="Commitment ends",
        help="The agreement's; blank: 1.5 times the term from the first day of grant year 1 "
        "(N.J.S.A. 34:1B-130 d., k.; docs/interpretations.md).",
    ),
    calendar.as_of_input(),
)

#: The Calendar sheet: the award's obligations, past due as of ObligationsAsOf.
CALENDAR_ITEMS = calendar.calendar_sheet(
    'NJ_AWARD_CALENDAR("beip",FirstYearEnd,Term,CommitmentEnd,FALSE,BaseEmployment,"",'
    'ObligationsAsOf,"",ReportFiled)',
    rows=31,
    program="beip",
    citation="N.J.S.A. 34:1B-130, -131 a.; N.J.A.C. 19:31I-1.6",
    when="FirstYearEnd",
)

_PCT_COLUMNS = (Column("Minimum", Kind.PERCENT, "%"), Column("Maximum", Kind.PERCENT, "%"))

#: One row of the combined-limit table (``row``: the grant year's row): the limit base,
#: the other grants and the limit for a year of the schedule, and the grant over the
#: limit and within it (one row of two from NJ_BEIP_GRANT_OVER_LIMIT).
_LIMIT_ROW: tuple[str | Spill | None, ...] = (
    "IF(ISNUMBER([[at:Schedule:Year:row]]),NJ_BEIP_LIMIT_BASE(LimitBasis,"
    '[[at:Withholdings:row]],[[at:PartnerTax:row]]),"")',
    'IF(ISNUMBER([[at:Schedule:Year:row]]),[[at:OtherGrants:row]],"")',
    "IF(ISNUMBER([[at:Schedule:Year:row]]),NJ_BEIP_COMBINED_LIMIT([[cell:Limit base]],"
    '[[at:OtherGrants:row]],LimitBasis,SmartGrowth),"")',
    Spill(
        "IF(ISNUMBER([[at:Schedule:Year:row]]),NJ_BEIP_GRANT_OVER_LIMIT([[at:Schedule:Grant:row]],"
        '[[cell:Combined limit]]),{"",""})',
        2,
    ),
    None,
)

#: Calculations: the percentage limits, the schedule, the combined limit and the totals.
CALCULATION_ITEMS: tuple[LineItem, ...] = (
    Title(
        "Calculations",
        "Formulas only: every figure comes from the NJ_* functions.",
        sheet=CALCULATIONS,
    ),
    Section("Base years (N.J.S.A. 34:1B-125)", width=4, sheet=CALCULATIONS),
    # derived from the agreement date, read as the agreement's effective date
    ArrayTable(
        "NJ_BEIP_BASE_YEARS(AgreementDate)",
        (
            Column("Base year", Kind.YEAR, "", width=8),
            Column("First day", Kind.DATE, "date"),
            Column("Last day", Kind.DATE, "date"),
        ),
        rows=beip.BASE_YEAR_COUNT,
        label="The first two complete calendar years following the agreement date",
        row_labels=tuple(f"Base year {n}" for n in range(1, beip.BASE_YEAR_COUNT + 1)),
        name="BaseYears",
    ),
    Section("Percentage limits (N.J.S.A. 34:1B-129a., b.)", width=4, sheet=CALCULATIONS),
    ArrayTable(
        'NJ_BEIP_PCT_LIMITS("withholdings",SmartGrowth)',
        _PCT_COLUMNS,
        rows=1,
        header_from_function=False,
        row_labels=("Percentage of withholdings",),
        name="PctLimits",
    ),
    ArrayTable(
        'NJ_BEIP_PCT_LIMITS("partners",SmartGrowth)',
        _PCT_COLUMNS,
        rows=1,
        header_from_function=False,
        row_labels=("Percentage of partners' tax",),
        name="PartnerPctLimits",
    ),
    ArrayTable(
        "NJ_BEIP_GRANT_SCHEDULE(Withholdings,NewEmployees,GrantPct,AgreementDate,"
        "SmartGrowth,PartnerTax,PartnerPct,CapMethod,LawAsOf)",
        SCHEDULE_COLUMNS,
        rows=MAX_TERM,
        label="Grant schedule (N.J.S.A. 34:1B-129a.-c.; N.J.A.C. 19:31I-1.4(a))",
        row_labels=YEARS,
        name="Schedule",
    ),
    Section(
        "Combined State grants limit (N.J.S.A. 34:1B-134(b), (c))", width=6, sheet=CALCULATIONS
    ),
    FormulaTable(
        (
            Column("Limit base", Kind.MONEY, "$", name="LimitBase"),
            Column("Other State grants", Kind.MONEY, "$"),
            Column("Combined limit", Kind.MONEY, "$", name="CombinedLimit"),
            Column("Grant over the limit", Kind.MONEY, "$", name="GrantOverLimit"),
            Column("Grant within the limit", Kind.MONEY, "$", name="GrantWithinLimit"),
        ),
        tuple(_LIMIT_ROW for _ in range(MAX_TERM)),
        row_labels=YEARS,
        name="Limits",
    ),
    Section("Totals", width=3, sheet=CALCULATIONS),
    Total("Total grant", "[[data:Schedule:Grant]]", name="TotalGrant"),
    Total(
        "Total grant within the combined limit",
        "[[data:Limits:Grant within the limit]]",
        name="TotalGrantWithinLimit",
    ),
    Total(
        "Total grant over the combined limit",
        "[[data:Limits:Grant over the limit]]",
        name="TotalGrantOverLimit",
    ),
)


def _output(label: str, kind: Kind, unit: str, formula: str, name: str | None = None) -> Item:
    """A figure on Outputs; ``name``: the output cell's own defined name, for a figure that
    is not a name itself (what ``calc --json`` calls it)."""
    return Item(label, name, kind, unit, formula, role="output", sheet=OUTPUTS)


#: Outputs: the figures a reader needs and the chart.
OUTPUT_ITEMS: tuple[LineItem, ...] = (
    Title("Outputs", "Valid only when Checks!MasterCheck is TRUE.", sheet=OUTPUTS),
    _output("All checks pass", Kind.CHECK, "TRUE/FALSE", "MasterCheck"),
    Item(
        f"The {_CAP} average cap applies",
        "CapApplies",
        Kind.TEXT,
        "yes/no",
        "NJ_BEIP_CAP_APPLIES(AgreementDate,LawAsOf)",
        role="output",
        sheet=OUTPUTS,
    ),
    _output("Total grant", Kind.MONEY, "$", "TotalGrant"),
    _output(
        "Total grant within the combined limit",
        Kind.MONEY,
        "$",
        "TotalGrantWithinLimit",
    ),
    _output(
        "Total grant over the combined limit (needs the Treasurer's approval)",
        Kind.MONEY,
        "$",
        "TotalGrantOverLimit",
    ),
    _output(
        "Years over the combined limit",
        Kind.COUNT,
        "years",
        'COUNTIF(GrantOverLimit,">0")',
        "YearsOverLimit",
    ),
    Skip(sheet=OUTPUTS),
    Chart(
        "BEIP grant by year",
        "[[data:Schedule:Year]]",
        (
            ("Grant before cap", "[[data:Schedule:Grant before cap]]"),
            ("Grant", "[[data:Schedule:Grant]]"),
            ("Grant within the combined limit", "[[data:Limits:Grant within the limit]]"),
        ),
        y_title="$",
        x_title="Grant year",
    ),
)

_GRANT, _BEFORE, _CAP_ROOM = (
    "[[data:Schedule:Grant]]",
    "[[data:Schedule:Grant before cap]]",
    "[[data:Schedule:Cap room]]",
)


def _checks(read: Callable[[str], str]) -> tuple[Check, ...]:
    """The Checks sheet's lines (after each table's own "returned its table"), each input
    read by ``read`` (:func:`nj_incentives.programs.template_inputs.reader`: as the NJ_*
    functions
    read it, so that "40%" or "5" typed as text counts as the functions count it)."""
    term, pct, partner_pct = read("Term"), read("GrantPct"), read("PartnerPct")
    return (
        Check(
            "Withholdings are given for every year of the term, and only those",
            f"COUNT({read('Withholdings')})={term}",
            "N.J.S.A. 34:1B-129c.",
        ),
        Check(
            "Certified new employees are given for every year of the term",
            f"COUNT({read('NewEmployees')})={term}",
            "N.J.A.C. 19:31I-1.4(a)",
        ),
        Check("The schedule covers the term", f"COUNT([[data:Schedule:Year]])={term}"),
        Check.numbers("The schedule holds numbers only", "[[data:Schedule]]"),
        Check(
            "The grant percentage is within the statutory limits (or 0%)",
            f"OR({pct}=0,AND({pct}>=INDEX(PctLimits,1),{pct}<=INDEX(PctLimits,2)))",
            "N.J.S.A. 34:1B-129a.",
        ),
        Check(
            "The partners' percentage is within the statutory limits (or 0%)",
            f"OR({partner_pct}=0,AND({partner_pct}>=INDEX(PartnerPctLimits,1),"
            f"{partner_pct}<=INDEX(PartnerPctLimits,2)))",
            "N.J.S.A. 34:1B-129b.",
        ),
        Check(
            "No year's grant exceeds its grant before the cap",
            f"SUMPRODUCT(--({_GRANT}>{_BEFORE}))=0",
        ),
        Check(
            "No year's grant exceeds its cap room",
            f"SUMPRODUCT(--ISNUMBER({_CAP_ROOM}),--({_GRANT}>{_CAP_ROOM}))=0",
            "N.J.A.C. 19:31I-1.4(a)",
        ),
        Check.equal(
            "The grants sum to the last cumulative grant",
            "[[name:TotalGrant]]",
            "MAX([[data:Schedule:Cumulative grant]])",
        ),
        *(
            Check(
                f"The combined-limit table has a number for each year: {header.lower()}",
                f"COUNT([[data:Limits:{header}]])={term}",
                "N.J.S.A. 34:1B-134(b), (c)",
            )
            for header in (
                "Limit base",
                "Combined limit",
                "Grant over the limit",
                "Grant within the limit",
            )
        ),
        Check.equal(
            "Grant within the limit plus grant over it equals the grant",
            "[[name:TotalGrantWithinLimit]]+[[name:TotalGrantOverLimit]]",
            "[[name:TotalGrant]]",
            "N.J.S.A. 34:1B-134(b)",
        ),
        Check(
            "No year's grant within the limit exceeds the combined limit",
            "SUMPRODUCT(--([[data:Limits:Grant within the limit]]>"
            "[[data:Limits:Combined limit]]))=0",
            "N.J.S.A. 34:1B-134(b), (c)",
        ),
        calendar.fits_check("N.J.S.A. 34:1B-130, -131 a.; N.J.A.C. 19:31I-1.6"),
        calendar.past_due_check("N.J.S.A. 34:1B-131 a."),
    )


_BEFORE_CHECKS: tuple[LineItem, ...] = (
    *AGREEMENT,
    *PER_YEAR,
    *OBLIGATIONS,
    *CALCULATION_ITEMS,
    *OUTPUT_ITEMS,
    *CALENDAR_ITEMS,
)
#: The inputs as the functions read them (each rule as ``fill`` has it: the same items).
_READ = inputs.reader((*_BEFORE_CHECKS, *_checks(str)))
#: The Checks sheet's lines: each input as the functions read it, then the template's.
CHECKS: tuple[LineItem, ...] = (
    *inputs.input_checks((*_BEFORE_CHECKS, *_checks(str))),
    *_checks(_READ),
)


#: Why a grant goes on no line of a return (issue 31): the law gives none for a cash grant.
NO_RETURN_LINE = (
    "No return line: a BEIP grant is paid in cash (N.J.S.A. 34:1B-129a.), not a tax credit: "
    "on no line of Form 324, Form 313 or Schedule A-3 (shared/legal-notes.md sections 1, 7). "
    "A converted grant (e.) goes on Form 324."
)
#: What the grant asks of the return (the Return sheet's second note).
_ANNUAL_REPORT = (
    "Our sources give no other return line for a grant. What the grant asks of the return is "
    "a copy of it with the annual report, by March 1 for the preceding grant year (N.J.S.A. "
    "34:1B-131a.)."
)
#: The Return sheet (its own printed page): why no line.
RETURN_ITEMS: tuple[LineItem, ...] = returns.no_line_items(
    "The return: no line for a cash grant", NO_RETURN_LINE, _ANNUAL_REPORT
)
#: The return of a tax year (:data:`nj_incentives.core.workpaper.ReturnOf`): no line.
RETURN = returns.no_line_block(TEMPLATE_ID, NO_RETURN_LINE)

#: The whole template, in the order the builder lays it out.
TEMPLATE: tuple[LineItem, ...] = (
    *AGREEMENT,
    *PER_YEAR,
    *OBLIGATIONS,
    *CALCULATION_ITEMS,
    *OUTPUT_ITEMS,
    *RETURN_ITEMS,
    *CALENDAR_ITEMS,
    *CHECKS,
)


def workpaper(values: Mapping[str, Any] | None = None) -> Workpaper:
    """The workbook for ``values`` (keys as in :data:`EXAMPLE`; none: the blank template)."""
    values = values or {}
    return Workpaper(
        TEMPLATE_ID,
        "BEIP grant schedule",
        "The Business Employment Incentive Program grant year by year: the grant before "
        f"the cap (N.J.S.A. 34:1B-129a., b.), the {_CAP} average cap per new employee "
        "(N.J.A.C. 19:31I-1.4(a)), and the combined limit on State grants "
        "(N.J.S.A. 34:1B-134(b), (c)). The grant percentage and term are set by the "
        "Authority in the agreement: enter them as agreed.",
        TEMPLATE,
        values,
        engagement=values.get("engagement"),
        output_sheets=(
            (RETURN_SHEET, "the return: why a cash grant goes on no line"),
            (
                calendar.CALENDAR,
                "the award's dated obligations (annual reports, the 80% employment test, the "
                "commitment), past due as of Inputs' 'Obligations as of'",
            ),
        ),
        sources=(
            "N.J.S.A. 34:1B-129 (as amended through P.L.2022, c.134)",
            "N.J.S.A. 34:1B-134 (grant limitations)",
            f"N.J.A.C. 19:31I-1.4(a) (average of {_CAP} per new employee)",
            "N.J.S.A. 34:1B-130, -131 a.; N.J.A.C. 19:31I-1.6 (the award's obligations)",
        ),
    )


# --------------------------------------------------------------------------- roll forward


def _roll(values: dict[str, object], last: Last) -> RolledPeriod:
    """The next grant year: the last with withholdings, partners' tax or new employees
    (or the one the engagement's period names); refused past the term."""
    filled = max(
        last_row(values.get(n) or [])  # type: ignore[arg-type]
        for n in ("Withholdings", "PartnerTax", "NewEmployees")
    )
    named = named_period(
        values,
        r"grant years? (\d{1,2})(?:\s*(?:-|to)\s*(\d{1,2}))?",
        r"\byears?\s+(\d{1,2})\b",
    )
    year = int(named) if named and 0 < int(named) <= filled else filled
    where, refers = last.where, last.refers
    if year == 0:
        raise RollRefused(
            f"{where} {refers.get('WITHHOLDINGS', 'Withholdings')}: no grant year has "
            "withholdings, partners' tax or new employees yet: nothing to roll forward from "
            "(fill the first grant year)"
        )
    term = values.get("Term")
    limit = term if isinstance(term, int) and 0 < term <= beip.MAXIMUM_TERM_YEARS else None
    final = limit or beip.MAXIMUM_TERM_YEARS
    if year + 1 > final:
        why = (
            f"Term = {term}: grant year {year + 1} is past the term of the grant"
            if limit
            else f"grant year {year + 1} is past the longest term"
        )
        if named:
            why += f" (EngagementPeriod {values.get('EngagementPeriod')!r} names grant year {year})"
        raise RollRefused(
            f"{where} {refers.get('TERM', 'Term')}: {why} (a term of at most "
            f"{beip.MAXIMUM_TERM_YEARS} years, {beip.CITE_C}); nothing to roll forward to"
        )
    carried = []
    figures: list[CarriedFigure] = []
    schedule = last.names.get("Schedule")
    if isinstance(schedule, list) and len(schedule) > year:
        header = schedule[0]
        if "Cumulative grant" in header:
            cumulative = schedule[year][header.index("Cumulative grant")]
            carried.append(
                f"cumulative grant through grant year {year}: {money(cumulative)}, carried by "
                f"the schedule into grant year {year + 1} (the average cap over the term, "
                f"{beip.CITE_CAP})"
            )
            amount = round(float(cumulative), 2) if isinstance(cumulative, (int, float)) else None
            figures.append(CarriedFigure("Cumulative grant", amount, "$", f"grant year {year}"))
    return RolledPeriod(
        f"grant year {year}", f"grant year {year + 1}", carried, year + 1, tuple(figures)
    )


def _engagement_period(values: Mapping[str, object], current: str) -> str:
    term = values.get("Term")
    return f"Grant year {current} of {term}" if term else f"Grant year {current}"


#: The grant's next grant year (``nj-incentives rollforward``): the cumulative grant is
#: carried by the schedule from the grant years kept.
ROLL_FORWARD = RollForward(
    carried=(
        (
            "Schedule: Cumulative grant",
            "(the grant years kept)",
            "N.J.S.A. 34:1B-129a. (the average cap over the term), c.",
        ),
    ),
    new_period=("Withholdings", "PartnerTax", "NewEmployees", "OtherGrants"),
    roll=_roll,
    engagement_period=_engagement_period,
    entered_if={"PartnerTax": "PartnerPct"},  # no partners' grant percentage: no partners' tax
)
