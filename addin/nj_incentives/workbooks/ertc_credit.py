"""Template 3: the Economic Recovery Tax Credit, a Form 313 worksheet (N.J.S.A. 52:27BBB-55).

Laid out after Form 313's parts:

- **Part I, screening**: in a qualified municipality, an Urban Enterprise Zone benefit,
  an earlier 24-month credit period at the location -> ``NJ_ERTC_ELIGIBILITY_CHECK``.
  Form 313's questions about each position (did it exist before credit year one,
  temporary or seasonal, an owner or an owner's relative) are answered per employee in
  Part II: the base year's hours and the two flags.
- **Part II, employees**: one row per employee, monthly hours for the base year (the
  twelve months before credit year one) and credit years one and two ->
  ``NJ_ERTC_AVG_POSITIONS`` per period (one array call each over the whole roster),
  ``NJ_ERTC_NEW_POSITIONS``, ``NJ_ERTC_CREDIT`` and ``NJ_ERTC_SUSTAINED_EFFORT_RATIO``.
- **Part III, computation**: per privilege period the New Jersey gross receipts ->
  the CBT statutory minimum (``NJ_CBT_MIN_TAX``), which feeds the schedule of the credit
  allowed, used within the limit, refunded and carried forward (``NJ_ERTC_SCHEDULE``).

The dates of the credit years come from ``NJ_ERTC_CREDIT_YEARS``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nj_incentives.catalog import CREDIT_YEARS_COLUMNS, ERTC_SCHEDULE_COLUMNS
from nj_incentives.law import ertc
from nj_incentives.workbooks.builder import (
    CALCULATIONS,
    CENT_TOLERANCE,
    NOT_COMPUTED,
    OUTPUTS,
    Column,
    Item,
    Kind,
    LineItem,
    Note,
    Ref,
    Section,
    Skip,
    TemplateBuilder,
    nth_cell,
)

__all__ = [
    "EXAMPLE",
    "MAX_EMPLOYEES",
    "MAX_PERIODS",
    "PERIODS",
    "ROSTER_SHEETS",
    "TEMPLATE_ID",
    "build",
]

TEMPLATE_ID = "ertc-form-313"
#: Rows of the employee roster (Form 313 Part II); the sheet states the limit.
MAX_EMPLOYEES = 250
#: Rows of privilege periods: the two credit years end in two or three of them, and
#: unused credit carries forward into later ones.
MAX_PERIODS = 8
MONTHS = ertc.CREDIT_YEAR_MONTHS
#: (key, label, name) of the three measured twelve-month periods.
PERIODS = (
    ("base", "Base year (the 12 months before credit year one)", "Base"),
    ("year1", "Credit year one", "Year1"),
    ("year2", "Credit year two", "Year2"),
)
_SHORT = {"base": "Base", "year1": "Year one", "year2": "Year two"}
#: The roster's sheets (Form 313 Part II), one per period: 250 rows print on several
#: pages, and a sheet repeats one table's header on each (Excel's print titles).
ROSTER_SHEETS = {
    "base": "Part II base year",
    "year1": "Part II year one",
    "year2": "Part II year two",
}

#: NJ_ERTC_SCHEDULE's result columns, as the catalog declares them
SCHEDULE_COLUMNS = [
    Column(column.header, Kind.DATE, "date", width=12)
    if column.unit == "date"
    else Column(column.header, Kind.MONEY, "$")
    for column in ERTC_SCHEDULE_COLUMNS
]

_FT, _PT, _LOW = 160, 100, 90
#: The statute every figure cites when Form 313 names no line for it.
_CITE = "N.J.S.A. 52:27BBB-55"


def _months(*parts: tuple[int, int]) -> list[int]:
    """``(160, 9), (0, 3)`` -> nine months of 160 hours, then three of 0."""
    hours = [value for value, count in parts for _ in range(count)]
    if len(hours) != MONTHS:
        raise ValueError(f"{len(hours)} months given, not {MONTHS}")
    return hours


def _employee(
    name: str,
    base: list[int],
    year1: list[int],
    year2: list[int],
    temporary: bool = False,
    excluded: bool = False,
) -> dict[str, Any]:
    return {
        "name": name,
        "base": base,
        "year1": year1,
        "year2": year2,
        "temporary": temporary,
        "excluded": excluded,
    }


_FULL = _months((_FT, 12))
_NONE = _months((0, 12))

#: The filled example: operations from 2023-03-15, twelve employees (two part-time, one
#: temporary, one owner's relative), five calendar-year privilege periods.
EXAMPLE: Mapping[str, Any] = {
    "engagement": {
        "client": "Example Manufacturing LLC (fictitious)",
        "entity_id": "00-0000000 (example)",
        "period": "Privilege periods ending 2023-12-31 to 2027-12-31",
        "preparer": "A. Preparer",
        "reviewer": "R. Reviewer",
        "date": dt.date(2026, 12, 1),
    },
    "in_qualified_municipality": True,
    "receives_uez_benefit": False,
    "prior_credit_period_at_location": False,
    "operations_start": dt.date(2023, 3, 15),
    "tax_type": "cbt",
    "s_corporation": False,
    "group_payroll": 0,
    "fractional": False,
    "carryforward_years": None,
    "employees": [
        _employee("A. Rivera", _FULL, _FULL, _FULL),
        _employee("B. Chen", _FULL, _FULL, _FULL),
        _employee("C. Okafor", _FULL, _FULL, _months((_FT, 6), (0, 6))),
        _employee("D. Patel", _NONE, _months((0, 3), (_FT, 9)), _FULL),
        _employee("E. Novak", _NONE, _FULL, _FULL),
        _employee("F. Silva", _NONE, _FULL, _months((_FT, 3), (0, 9))),
        _employee("G. Müller", _NONE, _FULL, _FULL),
        _employee("H. Kim", _NONE, _months((0, 3), (_FT, 9)), _FULL),
        _employee("I. Haddad", _NONE, _months((_PT, 12)), _months((_PT, 12))),
        _employee("J. Lopez", _months((_LOW, 12)), _months((_LOW, 12)), _months((_LOW, 12))),
        _employee("K. Brown", _NONE, _months((_FT, 4), (0, 8)), _NONE, temporary=True),
        _employee("L. Rivera (owner's son)", _FULL, _FULL, _FULL, excluded=True),
    ],
    "periods": [
        # (end, New Jersey gross receipts, tax liability, other credits)
        (dt.date(2023, 12, 31), 800_000, 4_000, 0),
        (dt.date(2024, 12, 31), 1_200_000, 9_000, 1_000),
        (dt.date(2025, 12, 31), 1_500_000, 6_000, 500),
        (dt.date(2026, 12, 31), 450_000, 3_000, 0),
        (dt.date(2027, 12, 31), 2_000_000, 8_000, 0),
    ],
}


def build(
    path: str | Path, values: Mapping[str, Any] | None = None, function_namespace: str = ""
) -> Path:
    """Write the template to ``path`` (blank inputs), or a filled workbook with ``values``
    (keys as in :data:`EXAMPLE`)."""
    values = values or {}
    with TemplateBuilder(
        path,
        title="Economic Recovery Tax Credit (Form 313 worksheet)",
        template_id=TEMPLATE_ID,
        function_namespace=function_namespace,
        engagement=values.get("engagement"),
        input_sheets=list(ROSTER_SHEETS.values()),
    ) as b:
        b.about(
            "The Economic Recovery Tax Credit for new full-time positions at a location in a "
            "qualified municipality (N.J.S.A. 52:27BBB-55), laid out after NJ Form 313: Part "
            "I screening questions, Part II the employees and their monthly hours, Part III "
            "the computation with the per-period limit, the refund at the end of credit year "
            "two and the carryforward. The CBT statutory minimum tax (N.J.S.A. 54:10A-5(e)) is "
            "computed from each period's New Jersey gross receipts.",
            sheet_notes=[
                (
                    "Inputs",
                    "Part I screening, the taxpayer, Part III periods: type only in the "
                    "yellow cells",
                ),
                (
                    ROSTER_SHEETS["base"],
                    "Part II, the employee roster: names, the two flags and the base year's "
                    "monthly hours",
                ),
                (ROSTER_SHEETS["year1"], "Part II: the same employees' hours in credit year one"),
                (ROSTER_SHEETS["year2"], "Part II: the same employees' hours in credit year two"),
                (
                    "Calculations",
                    "eligibility, credit years, average positions per period, new positions "
                    "and credits, minimum tax per period, the credit schedule",
                ),
            ],
            sources=[
                "N.J.S.A. 52:27BBB-55 (P.L.2002, c.43, s.56, as amended through P.L.2003, c.194)",
                "N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b) (CBT statutory minimum)",
                "NJ Form 313, Economic Recovery Tax Credit (Parts I-III)",
                "docs/interpretations.md: credit years, position counts, limit, refund, "
                "carryforward (the Form 313 five years as a switch)",
            ],
        )
        _inputs(b, values)
        calc = _calculations(b)
        _outputs(b, calc)
        _checks(b, calc)
    return Path(path)


# --------------------------------------------------------------------------- inputs


def _roster_columns() -> list[Column]:
    """The first roster table's columns before its hours: the employee and the flags."""
    return [
        Column(
            "Employee",
            Kind.TEXT,
            "name",
            name="EmployeeNames",
            help="Name or payroll identifier (for the reader; not used in the computation).",
            width=22,
        ),
        Column(
            "Temporary or seasonal",
            Kind.YESNO,
            "yes/no",
            name="Temporary",
            help="Yes for temporary or seasonal employment: counts in no period (e.). Blank = No.",
            width=11,
        ),
        Column(
            "Owner or owner's relative",
            Kind.YESNO,
            "yes/no",
            name="Excluded",
            help="Yes for an owner, or an owner's spouse, dependant, ancestor or descendant: "
            "not an employee of the taxpayer (e.). Blank = No.",
            width=11,
        ),
    ]


def _month_columns(key: str) -> list[Column]:
    """The twelve monthly hours of one period."""
    return [
        Column(
            f"{_SHORT[key]} month {m}",
            Kind.NUMBER,
            "hours",
            minimum=0,
            maximum=744,
            help=f"Hours worked in month {m} of the {_SHORT[key].lower()} period; a blank "
            "month is 0 hours (not yet employed).",
            width=8,
        )
        for m in range(1, MONTHS + 1)
    ]


#: Inputs: Part I's screening questions and the taxpayer.
SCREENING: tuple[LineItem, ...] = (
    Section("Part I: screening (Form 313 Part I; N.J.S.A. 52:27BBB-55a., d.)"),
    Item(
        "The location is within a qualified municipality",
        "InQualifiedMunicipality",
        Kind.YESNO,
        "yes/no",
        key="in_qualified_municipality",
        prompt="In a qualified municipality?",
        help="Under the Municipal Rehabilitation and Economic Recovery Act (Camden).",
    ),
    Item(
        "The taxpayer receives an Urban Enterprise Zone benefit",
        "ReceivesUEZBenefit",
        Kind.YESNO,
        "yes/no",
        key="receives_uez_benefit",
        prompt="Receives a UEZ benefit?",
        help="Yes bars the credit (a.).",
    ),
    Item(
        "The location already had its 24-month credit period",
        "PriorCreditPeriod",
        Kind.YESNO,
        "yes/no",
        key="prior_credit_period_at_location",
        prompt="Earlier 24-month credit period?",
        help="Only a single 24-month continuous credit period per location (d.).",
    ),
    Note(
        "Positions that existed before credit year one, temporary or seasonal employment and "
        "owners or their relatives: answered per employee in Part II."
    ),
    Skip(),
    Section("The taxpayer"),
    Item(
        "Initial or expanded operations began",
        "OperationsStart",
        Kind.DATE,
        "date",
        key="operations_start",
        prompt="Operations began",
        help="Credit year one is the first twelve calendar months after this date (e.).",
    ),
    Item(
        "Tax the credit is taken against",
        "TaxType",
        Kind.CHOICE,
        "choice",
        key="tax_type",
        default="cbt",
        choices=tuple(ertc.TAX_TYPES),
        help="cbt: Corporation Business Tax (the 50% / minimum-tax limit applies); insurance: "
        "insurance premiums taxes.",
    ),
    Item(
        "The taxpayer is a New Jersey S corporation",
        "SCorporation",
        Kind.YESNO,
        "yes/no",
        key="s_corporation",
        default=False,
        prompt="New Jersey S corporation?",
        help="Selects the S corporation column of the minimum tax (P.L.2011, c.84).",
    ),
    Item(
        "Payroll of the affiliated or controlled group",
        "GroupPayroll",
        Kind.MONEY,
        "$",
        key="group_payroll",
        default=0,
        prompt="Payroll of the group",
        help="Total payroll of the group; $5,000,000 or more sets a $2,000 minimum "
        "(N.J.A.C. 18:7-3.4(b)1). 0 if not in a group.",
    ),
    Item(
        "Count fractional new positions",
        "Fractional",
        Kind.YESNO,
        "yes/no",
        key="fractional",
        default=False,
        help="No (default): whole new positions only, rounded down. Yes: price the "
        "fractional increase.",
    ),
    Item(
        "Carryforward limit",
        "CarryforwardYears",
        Kind.COUNT,
        "periods",
        key="carryforward_years",
        minimum=1,
        maximum=50,
        help="Blank: no limit (the statute, b.(2)). 5: the Form 313 instructions' five years.",
    ),
    Item(
        "Sustained effort ratio from the measured positions",
        "RatioMeasured",
        Kind.YESNO,
        "yes/no",
        key="ratio_measured",
        default=False,
        prompt="Ratio from measured positions?",
        help="No (default): the ratio of the positions the credits count. Yes: of the measured "
        "increases, fractions kept (e.; docs/interpretations.md).",
    ),
    Item(
        "Limit in the period in which credit year two ends",
        "RefundPeriodLimit",
        Kind.CHOICE,
        "choice",
        key="refund_period_limit",
        default="b3",
        choices=tuple(ertc.REFUND_PERIOD_LIMITS),
        prompt="Limit when credit year two ends",
        help="b3 (default): the b.(3) limit before the refund. notwithstanding: year-one credit "
        "against the whole liability first (c.(1)).",
    ),
    Item(
        "Months the part-time test counts",
        "PartTimeMonths",
        Kind.CHOICE,
        "choice",
        key="part_time_months",
        default="non_full_time",
        choices=tuple(ertc.PART_TIME_TESTS),
        prompt="Months of the part-time test",
        help="non_full_time (default): the three months among those under 140 hours; "
        "all_months: any month of 86 2/3 hours or more (e.).",
    ),
)


def _inputs(b: TemplateBuilder, values: Mapping[str, Any]) -> None:
    i = b.inputs
    i.title(
        "Inputs",
        "Type only in the yellow cells. Money in dollars, hours per month, dates as dates.",
    )
    b.lay_out(SCREENING, values)
    i.skip()
    i.section("Part II: employees and monthly hours (Form 313 Part II; N.J.S.A. 52:27BBB-55e.)")
    i.note(
        f"The roster is on the sheets {', '.join(ROSTER_SHEETS.values())}: one sheet per "
        f"period, {MAX_EMPLOYEES} employees each (rows Employee 1 to Employee {MAX_EMPLOYEES}); "
        "leave the rows after the last employee blank. An employee keeps the same row on all "
        "three sheets: the name and flags on the first, with the base year's hours. Month 1 is "
        "the first month of each period (the dates are on Calculations). A blank month in a "
        "used row is 0 hours (not yet employed, or gone); a wholly blank row is no employee."
    )
    i.skip()
    i.section("Part III: privilege periods, in order (Form 313 Part III; N.J.S.A. 52:27BBB-55b.)")
    i.note(
        "One row per privilege period from the one in which credit year one ends (earlier "
        "periods may be listed too); later rows blank."
    )
    periods = list(values.get("periods", ()))
    i.input_table(
        [f"Period {n}" for n in range(1, MAX_PERIODS + 1)],
        [
            Column(
                "Period end",
                Kind.DATE,
                "date",
                name="PeriodEnds",
                help="Last day of the privilege period; periods in order, consecutive.",
            ),
            Column(
                "New Jersey gross receipts",
                Kind.MONEY,
                "$",
                name="GrossReceipts",
                help="For the CBT statutory minimum tax (N.J.S.A. 54:10A-5(e)).",
            ),
            Column(
                "Tax liability",
                Kind.MONEY,
                "$",
                name="Liabilities",
                help="Tax otherwise due for the period, before this credit.",
            ),
            Column(
                "Other credits taken",
                Kind.MONEY,
                "$",
                name="OtherCredits",
                help="Credits applied before this one in the period (N.J.A.C. 18:7-3.17); 0 if "
                "none.",
            ),
        ],
        {
            "Period end": [p[0] for p in periods],
            "New Jersey gross receipts": [p[1] for p in periods],
            "Tax liability": [p[2] for p in periods],
            "Other credits taken": [p[3] for p in periods],
        },
        label_header="Period",
    )

    employees = list(values.get("employees", ()))
    rows = [f"Employee {n}" for n in range(1, MAX_EMPLOYEES + 1)]
    names: Ref | None = None
    for key, label, name in PERIODS:
        sheet = b.input_sheets[ROSTER_SHEETS[key]]
        sheet.title(
            f"Part II: {label.lower()}",
            f"Form 313 Part II, hours per month; {MAX_EMPLOYEES} rows, the same employee in the "
            "same row on all three sheets.",
        )
        sheet.narrow_labels(14, 2)
        # a long narrow table prints more rows a page upright (unless too small to read)
        sheet.landscape = None if key == "base" else False
        hours_values: dict[str, list[object]] = {
            f"{_SHORT[key]} month {m + 1}": [e[key][m] for e in employees] for m in range(MONTHS)
        }
        if names is None:
            hours_values |= {
                "Employee": [e["name"] for e in employees],
                "Temporary or seasonal": [e["temporary"] for e in employees],
                "Owner or owner's relative": [e["excluded"] for e in employees],
            }
            tables = sheet.input_table(
                rows,
                _roster_columns() + _month_columns(key),
                hours_values,
                label_header="Row",
                repeat_header=True,
            )
            names = tables["Employee"]
        else:
            shown = [f'IF({cell.a}="","",{cell.a})' for cell in names.cells()]
            tables = sheet.input_table(
                rows,
                _month_columns(key),
                hours_values,
                label_header="Row",
                leading=[(Column("Employee", Kind.TEXT, "name", width=22), shown)],
                repeat_header=True,
            )
        first = tables[f"{_SHORT[key]} month 1"]
        hours = Ref(first.sheet, first.row, first.col, first.bottom, first.col + MONTHS - 1)
        b.define_name(f"Hours{name}", hours)


# --------------------------------------------------------------------------- calculations


@dataclass(frozen=True)
class _Calculations:
    eligibility: Ref
    credit_years: Ref
    base_start: Ref
    base_end: Ref
    positions: dict[str, Ref]
    results: Ref
    minimum_taxes: Ref
    schedule: Ref
    columns: dict[str, Ref]
    total_allowed: Ref
    total_used: Ref
    total_refund: Ref
    total_expired: Ref
    carried_forward: Ref


def _positions_and_credits(base: str, year1: str, year2: str) -> list[LineItem]:
    """Calculations: the new positions (from the average positions ``base``, ``year1``
    and ``year2``), the credits and the sustained effort ratio."""
    on = CALCULATIONS
    ordinal = {1: "one", 2: "two"}
    return [
        Section("New full-time positions and credits (N.J.S.A. 52:27BBB-55a., e.)", sheet=on),
        Item(
            "New full-time positions, credit year one",
            "Year1New",
            Kind.NUMBER,
            "positions",
            f"NJ_ERTC_NEW_POSITIONS({base},{year1},Fractional)",
            source="Form 313 Part III, line 7 (the positions)",
        ),
        Item(
            "New full-time positions, credit year two",
            "Year2New",
            Kind.NUMBER,
            "positions",
            f"NJ_ERTC_NEW_POSITIONS({base},{year2},Fractional)",
            source="Form 313 Part III (year two)",
        ),
        *(
            Item(
                f"Measured increase in positions, credit year {ordinal[n]}",
                f"Year{n}Measured",
                Kind.NUMBER,
                "positions",
                f"NJ_ERTC_NEW_POSITIONS({base},{measured},TRUE)",
            )
            for n, measured in ((1, year1), (2, year2))
        ),
        *(
            Item(
                f"Positions for the ratio and schedule, credit year {ordinal[n]}",
                f"Year{n}ForRatio",
                Kind.NUMBER,
                "positions",
                f'IF(RatioMeasured="Yes",Year{n}Measured,Year{n}New)',
            )
            for n in (1, 2)
        ),
        Item(
            "Credit for credit year one ($2,500 a position)",
            "CreditYearOne",
            Kind.MONEY,
            "$",
            "NJ_ERTC_CREDIT(Year1New,1,Fractional)",
            source="Form 313 Part III, line 7",
        ),
        Item(
            "Credit for credit year two ($1,250 a position)",
            "CreditYearTwo",
            Kind.MONEY,
            "$",
            "NJ_ERTC_CREDIT(Year2New,2,Fractional)",
            source="Form 313 Part III (year two at $1,250)",
        ),
        Item(
            "Sustained effort ratio",
            "SustainedEffortRatio",
            Kind.NUMBER,
            "ratio",
            "NJ_ERTC_SUSTAINED_EFFORT_RATIO(Year1ForRatio,Year2ForRatio)",
        ),
        Item(
            "Ratio from fractional positions (the switch the schedule takes)",
            "RatioFractional",
            Kind.TEXT,
            "yes/no",
            'IF(RatioMeasured="Yes","Yes",Fractional)',
        ),
        Skip(sheet=on),
    ]


def _calculations(b: TemplateBuilder) -> _Calculations:
    c = b.calculations
    fn = b.fn
    c.title("Calculations", "Formulas only: every figure comes from the NJ_* functions.")
    c.section("Part I: eligibility (N.J.S.A. 52:27BBB-55a., d.)", width=3)
    eligibility = c.formula(
        "The credit may be claimed at this location (OK, or every reason not)",
        f"{fn('NJ_ERTC_ELIGIBILITY_CHECK')}(ReceivesUEZBenefit,PriorCreditPeriod,"
        "InQualifiedMunicipality)",
        Kind.TEXT,
        "verdict",
        name="Eligibility",
    )
    c.skip()
    credit_years = c.array_table(
        f"{fn('NJ_ERTC_CREDIT_YEARS')}(OperationsStart)",
        [
            Column(column.header, Kind.COUNT, "")
            if column.unit == "int"
            else Column(column.header, Kind.DATE, "date")
            for column in CREDIT_YEARS_COLUMNS
        ],
        rows=2,
        label="Credit years (N.J.S.A. 52:27BBB-55e.)",
        name="CreditYears",
    )
    base_year = c.array_table(
        f"{fn('NJ_ERTC_BASE_YEAR')}(OperationsStart)",
        [
            Column("First day", Kind.DATE, "date", name="BaseYearStart"),
            Column("Last day", Kind.DATE, "date", name="BaseYearEnd"),
        ],
        rows=1,
        label="Base year: the twelve months before credit year one (N.J.S.A. 52:27BBB-55e.)",
        row_labels=["Base year"],
        name="BaseYear",
    )
    base_start, base_end = base_year.cell(1, 0), base_year.cell(1, 1)
    positions: dict[str, Ref] = {}
    for key, label, name in PERIODS:
        positions[key] = c.array_table(
            f"{fn('NJ_ERTC_AVG_POSITIONS')}(Hours{name},Temporary,Excluded,PartTimeMonths)",
            [
                Column("Average positions", Kind.NUMBER, "positions"),
                Column("Part-time equivalents", Kind.NUMBER, "positions"),
            ],
            rows=1,
            header_from_function=False,
            label=f"Part II: {label}, average full-time positions and equivalents (e.)",
            row_labels=[label],
            name=f"Positions{name}",
        )
    base, year1, year2 = (positions[key].cell(0, 0).a for key in ("base", "year1", "year2"))
    figures = b.lay_out(_positions_and_credits(base, year1, year2))
    year1_new, ratio = figures["Year1New"], figures["SustainedEffortRatio"]
    results = Ref(c.name, year1_new.row, year1_new.col, ratio.row, ratio.col)
    c.section("Part III: statutory minimum tax per period (N.J.S.A. 54:10A-5(e))", width=3)
    ends, receipts = b.names["PeriodEnds"], b.names["GrossReceipts"]
    minimum = c.formula_table(
        [Column("Minimum tax", Kind.MONEY, "$", name="MinimumTaxes")],
        [
            [
                f'IF(ISBLANK({nth_cell(ends, n)}),"",{fn("NJ_CBT_MIN_TAX")}('
                f"{nth_cell(receipts, n)},SCorporation,GroupPayroll))"
            ]
            for n in range(MAX_PERIODS)
        ],
        row_labels=[f"Period {n}" for n in range(1, MAX_PERIODS + 1)],
    )["Minimum tax"]
    schedule = c.array_table(
        f"{fn('NJ_ERTC_SCHEDULE')}(OperationsStart,Year1ForRatio,Year2ForRatio,PeriodEnds,"
        "Liabilities,OtherCredits,MinimumTaxes,CarryforwardYears,Fractional,TaxType,"
        "RatioFractional,RefundPeriodLimit)",
        SCHEDULE_COLUMNS,
        rows=MAX_PERIODS,
        label="Part III: the credit per privilege period (N.J.S.A. 52:27BBB-55b., c.)",
        row_labels=[f"Period {n}" for n in range(1, MAX_PERIODS + 1)],
        name="CreditSchedule",
    )
    body = schedule.body()
    columns = {column.header: body.column(j) for j, column in enumerate(SCHEDULE_COLUMNS)}
    c.section("Totals", width=3)
    total_allowed = c.total("Credit allowed (years one and two)", columns["New credit"])
    total_used = c.total("Credit used", columns["Used"], name="TotalUsed")
    total_refund = c.total("Credit refunded (overpayment)", columns["Refund"], name="TotalRefund")
    total_expired = c.total("Credit expired", columns["Expired"], name="TotalExpired")
    ends_column = columns["Period end"].a
    carried_forward = c.formula(
        "Credit carried forward after the last period",
        f"IF(COUNT({ends_column})>0,INDEX({columns['Carried out'].a},COUNT({ends_column})),"
        f'"{NOT_COMPUTED}")',
        Kind.MONEY,
        "$",
        name="CarriedForward",
        role="total",
    )
    return _Calculations(
        eligibility=eligibility,
        credit_years=credit_years,
        base_start=base_start,
        base_end=base_end,
        positions=positions,
        results=results,
        minimum_taxes=minimum,
        schedule=schedule,
        columns=columns,
        total_allowed=total_allowed,
        total_used=total_used,
        total_refund=total_refund,
        total_expired=total_expired,
        carried_forward=carried_forward,
    )


# --------------------------------------------------------------------------- outputs


def _outputs(b: TemplateBuilder, calc: _Calculations) -> None:
    o = b.outputs
    o.title("Outputs", "Valid only when Checks!MasterCheck is TRUE.")
    years = calc.credit_years
    part3 = "Form 313 Part III"
    rows: Sequence[tuple[str, str, Kind, str, str]] = [
        ("All checks pass", "MasterCheck", Kind.CHECK, "TRUE/FALSE", "the Checks sheet"),
        (
            "Part I: eligibility",
            "Eligibility",
            Kind.TEXT,
            "verdict",
            f"Form 313 Part I; {_CITE}a., d.",
        ),
        ("Credit year one: first day", years.cell(1, 1).a, Kind.DATE, "date", f"{_CITE}e."),
        ("Credit year one: last day", years.cell(1, 2).a, Kind.DATE, "date", f"{_CITE}e."),
        ("Credit year two: first day", years.cell(2, 1).a, Kind.DATE, "date", f"{_CITE}e."),
        ("Credit year two: last day", years.cell(2, 2).a, Kind.DATE, "date", f"{_CITE}e."),
        (
            "New full-time positions, credit year one",
            "Year1New",
            Kind.NUMBER,
            "positions",
            f"{part3}, line 7 (the positions); from Part II",
        ),
        (
            "New full-time positions, credit year two",
            "Year2New",
            Kind.NUMBER,
            "positions",
            f"{part3} (year two); from Part II",
        ),
        ("Credit for credit year one", "CreditYearOne", Kind.MONEY, "$", f"{part3}, line 7"),
        (
            "Credit for credit year two",
            "CreditYearTwo",
            Kind.MONEY,
            "$",
            f"{part3} (year two at $1,250); {_CITE}a.",
        ),
        ("Sustained effort ratio", "SustainedEffortRatio", Kind.NUMBER, "ratio", f"{_CITE}e."),
        (
            "Credit used, all periods",
            "TotalUsed",
            Kind.MONEY,
            "$",
            f"{part3} (after the 50% / minimum-tax limit and other credits); "
            "to CBT-100 Schedule A-3",
        ),
        ("Credit refunded (overpayment)", "TotalRefund", Kind.MONEY, "$", f"{_CITE}c.(2)"),
        (
            "Credit expired",
            "TotalExpired",
            Kind.MONEY,
            "$",
            f"{_CITE}b.(2) (a limit only as a switch: Form 313 instructions)",
        ),
        (
            "Credit carried forward after the last period",
            "CarriedForward",
            Kind.MONEY,
            "$",
            f"{part3} (carryover); {_CITE}b.(2)",
        ),
    ]
    o.source_heading("Where on Form 313 (or in the law)", 48)
    b.lay_out(
        [
            Item(label, None, kind, unit, formula, role="output", source=source, sheet=OUTPUTS)
            for label, formula, kind, unit, source in rows
        ]
    )
    o.landscape = False  # the figures and the chart on one portrait page
    o.skip()
    o.chart(
        "Economic Recovery Tax Credit by privilege period",
        calc.columns["Period end"],
        [
            ("Used", calc.columns["Used"]),
            ("Refunded", calc.columns["Refund"]),
            ("Carried forward", calc.columns["Carried out"]),
        ],
        y_title="$",
        x_title="Privilege period ending",
    )


# --------------------------------------------------------------------------- checks


def _checks(b: TemplateBuilder, calc: _Calculations) -> None:
    col = calc.columns
    tolerance = CENT_TOLERANCE
    b.check(
        "Part I: the taxpayer may claim the credit at this location",
        'Eligibility="OK"',
        "N.J.S.A. 52:27BBB-55a., d.",
    )
    b.check_numbers(
        "New positions, credits and the sustained effort ratio are numbers", calc.results
    )
    b.check(
        "A minimum tax is computed for every period given",
        "COUNT(MinimumTaxes)=COUNT(PeriodEnds)",
        "N.J.S.A. 54:10A-5(e)",
    )
    b.check(
        "Every period given has its tax liability and other credits (0 if none)",
        "AND(COUNT(Liabilities)=COUNT(PeriodEnds),COUNT(OtherCredits)=COUNT(PeriodEnds))",
        "N.J.S.A. 52:27BBB-55b.(3)",
    )
    b.check(
        "The schedule has a row for every period given",
        f"COUNT({col['Period end'].a})=COUNT(PeriodEnds)",
        "N.J.S.A. 52:27BBB-55b.(1)",
    )
    b.check_equal(
        "The schedule allows the credits of credit years one and two",
        calc.total_allowed.a,
        "CreditYearOne+CreditYearTwo",
        "N.J.S.A. 52:27BBB-55a., b.(1)",
    )
    b.check_equal(
        "Credit allowed = used + refunded + expired + carried forward",
        calc.total_allowed.a,
        f"{calc.total_used.a}+{calc.total_refund.a}+{calc.total_expired.a}"
        f"+{calc.carried_forward.a}",
        "N.J.S.A. 52:27BBB-55b., c.",
    )
    b.check(
        "No period's credit used exceeds its limit",
        f"SUMPRODUCT(--({col['Used'].a}>{col['Limit'].a}+{tolerance}))=0",
        "N.J.S.A. 52:27BBB-55b.(3)",
    )
    b.check(
        "Each period: carried out = carried in + new credit - used - refund - expired",
        f"SUMPRODUCT(--(ABS({col['Carried in'].a}+{col['New credit'].a}-{col['Used'].a}"
        f"-{col['Refund'].a}-{col['Expired'].a}-{col['Carried out'].a})>={tolerance}))=0",
        "N.J.S.A. 52:27BBB-55b.(2)",
    )
    carried_in, carried_out = col["Carried in"], col["Carried out"]
    later_in = Ref(carried_in.sheet, carried_in.row + 1, carried_in.col, carried_in.bottom)
    earlier_out = Ref(carried_out.sheet, carried_out.row, carried_out.col, carried_out.bottom - 1)
    b.check(
        "Each period carries in what the period before carried out",
        f"SUMPRODUCT(--ISNUMBER({later_in.a}),--(ABS({later_in.a}-{earlier_out.a})>={tolerance}))=0",
        "N.J.S.A. 52:27BBB-55b.(2)",
    )
    b.check_at_most(
        "The refund does not exceed the credit for credit year one",
        calc.total_refund.a,
        "CreditYearOne",
        "N.J.S.A. 52:27BBB-55c.(2)",
    )
