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

The template is declared: :data:`TEMPLATE` holds its line items (inputs, tables, figures,
chart, checks), which the builder lays out; each formula names what it reads. Every
figure comes from an NJ_* function; the formulas around them are presentation only
(builder.py's docstring lists what they may do).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from nj_incentives.core.workpaper import (
    CALCULATIONS,
    CENT_TOLERANCE,
    NOT_COMPUTED,
    OUTPUTS,
    RETURN_SHEET,
    ROSTER_KEY,
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
    Roster,
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
    set_row,
)
from nj_incentives.programs import forms as F
from nj_incentives.programs import return_sheet as returns
from nj_incentives.programs import template_inputs as inputs
from nj_incentives.programs.cbt import figures as CBT
from nj_incentives.programs.cbt import transit_fee
from nj_incentives.programs.ertc import figures as ERTC
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.ertc.functions import CREDIT_YEARS_COLUMNS, ERTC_SCHEDULE_COLUMNS

#: The credit amounts as the template's texts show them (every version).
_ONE = ERTC.CREDIT_YEAR_ONE_AMOUNT.summary()
_TWO = ERTC.CREDIT_YEAR_TWO_AMOUNT.summary()

__all__ = [
    "EXAMPLE",
    "MAX_EMPLOYEES",
    "MAX_PERIODS",
    "MAX_ROSTER_SHEETS",
    "PERIODS",
    "RETURN",
    "ROLL_FORWARD",
    "ROSTER",
    "ROSTER_SHEETS",
    "TEMPLATE_ID",
    "return_block",
    "roster_sheet_names",
    "roster_sheets_needed",
    "template",
    "workpaper",
]

TEMPLATE_ID = "ertc-form-313"
#: Rows of the employee roster (Form 313 Part II) on one sheet; the sheet states the limit.
#: A larger roster continues on further sheets per period (:func:`template`).
MAX_EMPLOYEES = 250
#: The most roster sheets per period a filled workbook may have (40 x 250 = 10,000
#: employees; the recalculation's cell limits bind before that).
MAX_ROSTER_SHEETS = 40
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


def _periods(operations_start: dt.date) -> tuple[tuple[dt.date, dt.date], ...]:
    """The base year and credit years one and two of ``operations_start`` (e.)."""
    base = ertc.base_year(operations_start)
    years = ertc.credit_years(operations_start)
    return (
        (base.start, base.end),
        (years.year_one_start, years.year_one_end),
        (years.year_two_start, years.year_two_end),
    )


#: The Part II roster (``fill``'s ``employees`` and ``--hours``, ``rollforward``).
ROSTER = Roster(
    label="the Part II roster",
    per_sheet=MAX_EMPLOYEES,
    most_sheets=MAX_ROSTER_SHEETS,
    fields=(
        ("name", "EmployeeNames", "employee_names"),
        ("temporary", "Temporary", "temporary"),
        ("excluded", "Excluded", "excluded"),
    ),
    hours=tuple((key, f"Hours{name}") for key, _, name in PERIODS),
    hours_rule=ertc.HOURS_INPUT,
    flag_citation=ertc.CITE_E,
    months=MONTHS,
    period_labels=("base year", "credit year one", "credit year two"),
    period_names={
        "base_year": "base",
        "0": "base",
        "year_1": "year1",
        "year_one": "year1",
        "credit_year_one": "year1",
        "credit_year_1": "year1",
        "1": "year1",
        "year_2": "year2",
        "year_two": "year2",
        "credit_year_two": "year2",
        "credit_year_2": "year2",
        "2": "year2",
    },
    calendar_from="operations_start",
    calendar=_periods,
)


def roster_sheets_needed(employees: int) -> int:
    """Roster sheets per period for ``employees`` rows (at least one)."""
    return ROSTER.sheets(employees)


def roster_sheet_names(sheets: int = 1) -> dict[str, tuple[str, ...]]:
    """Each period's roster sheets: its sheet, then ``(2)``, ``(3)`` ... (continuations)."""
    return {
        key: (title, *(f"{title} ({n})" for n in range(2, sheets + 1)))
        for key, title in ROSTER_SHEETS.items()
    }


def _suffix(part: int) -> str:
    """The suffix of part ``part``'s defined names: none for the first sheet."""
    return "" if part == 1 else str(part)


def _key_suffix(part: int) -> str:
    """The suffix of part ``part``'s value keys: none for the first sheet (a separator
    keeps ``year1_month_1`` of part 2 apart from ``year1_month_12``)."""
    return "" if part == 1 else f"_part_{part}"


#: NJ_ERTC_SCHEDULE's result columns, as the catalog declares them
SCHEDULE_COLUMNS = tuple(
    Column(column.header, Kind.DATE, "date", width=12)
    if column.unit == "date"
    else Column(column.header, Kind.MONEY, "$")
    for column in ERTC_SCHEDULE_COLUMNS
)

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
    ROSTER_KEY: [
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


def workpaper(values: Mapping[str, Any] | None = None) -> Workpaper:
    """The workbook for ``values`` (keys as in :data:`EXAMPLE`; none: the blank template):
    as many roster sheets a period as its employees need."""
    values = values or {}
    sheets = roster_sheets_needed(len(values.get(ROSTER_KEY, ())))
    if sheets > MAX_ROSTER_SHEETS:
        raise ValueError(
            f"{len(values[ROSTER_KEY])} employees: at most "
            f"{MAX_ROSTER_SHEETS * MAX_EMPLOYEES} ({MAX_ROSTER_SHEETS} sheets of "
            f"{MAX_EMPLOYEES} per period)"
        )
    names = roster_sheet_names(sheets)
    return Workpaper(
        TEMPLATE_ID,
        "Economic Recovery Tax Credit (Form 313 worksheet)",
        "The Economic Recovery Tax Credit for new full-time positions at a location in a "
        "qualified municipality (N.J.S.A. 52:27BBB-55), laid out after NJ "
        f"{F.FORM_313.name}: Part "
        "I screening questions, Part II the employees and their monthly hours, Part III "
        "the computation with the per-period limit, the refund at the end of credit year "
        "two and the carryforward. The CBT statutory minimum tax (N.J.S.A. 54:10A-5(e)) is "
        "computed from each period's New Jersey gross receipts.",
        sheet_notes=[
            (
                "Inputs",
                "Part I screening, the taxpayer, Part III periods: type only in the yellow cells",
            ),
            (
                ROSTER_SHEETS["base"],
                "Part II, the employee roster: names, the two flags and the base year's "
                "monthly hours",
            ),
            *(
                (sheet, f"Part II, continued: employees {_first_row(n)} to {_last_row(n)}")
                for n, sheet in enumerate(names["base"][1:], 2)
            ),
            (ROSTER_SHEETS["year1"], "Part II: the same employees' hours in credit year one"),
            *(
                (
                    sheet,
                    f"Part II, continued: year one, employees {_first_row(n)} to {_last_row(n)}",
                )
                for n, sheet in enumerate(names["year1"][1:], 2)
            ),
            (ROSTER_SHEETS["year2"], "Part II: the same employees' hours in credit year two"),
            *(
                (
                    sheet,
                    f"Part II, continued: year two, employees {_first_row(n)} to {_last_row(n)}",
                )
                for n, sheet in enumerate(names["year2"][1:], 2)
            ),
            (
                "Calculations",
                "eligibility, credit years, average positions per period, new positions "
                "and credits, minimum tax per period, the credit schedule",
            ),
        ],
        sources=[
            "N.J.S.A. 52:27BBB-55 (P.L.2002, c.43, s.56, as amended through P.L.2003, c.194)",
            "N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b) (CBT statutory minimum)",
            f"NJ {F.FORM_313.name}, {F.FORM_313.title} (Parts I-III)",
            "docs/interpretations.md: credit years, position counts, limit, refund, "
            f"carryforward (the five years of the {ertc.CITE_FORM_313} as a switch)",
        ],
        items=template(sheets),
        values=_table_values(values),
        engagement=values.get("engagement"),
        input_sheets=[sheet for key, _, _ in PERIODS for sheet in names[key]],
        output_sheets=((RETURN_SHEET, "one tax year's return: Form 313 and Schedule A-3"),),
    )


def _first_row(part: int) -> int:
    return (part - 1) * MAX_EMPLOYEES + 1


def _last_row(part: int) -> int:
    return part * MAX_EMPLOYEES


# --------------------------------------------------------------------------- inputs


def _roster_columns(part: int = 1) -> tuple[Column, ...]:
    """The first roster table's columns before its hours: the employee and the flags
    (on a continuation sheet, ``part`` 2 or later, named with the part's number)."""
    n = _suffix(part)
    return (
        Column(
            "Employee",
            Kind.TEXT,
            "name",
            name=f"EmployeeNames{n}",
            key=f"employee_names{_key_suffix(part)}",
            help="Name or payroll identifier (for the reader; not used in the computation).",
            width=22,
        ),
        Column(
            "Temporary or seasonal",
            Kind.YESNO,
            "yes/no",
            name=f"Temporary{n}",
            key=f"temporary{_key_suffix(part)}",
            help="Yes for temporary or seasonal employment: counts in no period (e.). Blank = No.",
            width=11,
        ),
        Column(
            "Owner or owner's relative",
            Kind.YESNO,
            "yes/no",
            name=f"Excluded{n}",
            key=f"excluded{_key_suffix(part)}",
            help="Yes for an owner, or an owner's spouse, dependant, ancestor or descendant: "
            "not an employee of the taxpayer (e.). Blank = No.",
            width=11,
        ),
    )


def _month_columns(key: str, part: int = 1) -> tuple[Column, ...]:
    """The twelve monthly hours of one period (on roster sheet ``part``)."""
    return tuple(
        Column(
            f"{_SHORT[key]} month {m}",
            Kind.NUMBER,
            "hours",
            minimum=0,
            maximum=744,
            key=f"{key}_month_{m}{_key_suffix(part)}",
            help=f"Hours worked in month {m} of the {_SHORT[key].lower()} period; a blank "
            "month is 0 hours (not yet employed).",
            width=8,
        )
        for m in range(1, MONTHS + 1)
    )


#: Inputs: Part I's screening questions and the taxpayer.
SCREENING: tuple[LineItem, ...] = (
    Title(
        "Inputs",
        "Type only in the yellow cells. Money in dollars, hours per month, dates as dates.",
    ),
    Section(f"Part I: screening ({F.FORM_313.name} Part I; N.J.S.A. 52:27BBB-55a., d.)"),
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
    # S corporation (the minimum tax's column; no Corporate Transit Fee) and public utility
    # (no Corporate Transit Fee): P.L.2011, c.84; P.L.2024, c.20
    *transit_fee.kind_items(),
    Item(
        "Payroll of the affiliated or controlled group",
        "GroupPayroll",
        Kind.MONEY,
        "$",
        key="group_payroll",
        default=0,
        prompt="Payroll of the group",
        help=f"Total payroll of the group; {CBT.GROUP_PAYROLL_THRESHOLD.summary()} or more sets a"
        f" {CBT.GROUP_MINIMUM_TAX.summary()} minimum (N.J.A.C. 18:7-3.4(b)1). 0 if not in a group.",
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
        help="Blank: no limit (the statute, b.(2)). 5: the five years of the "
        f"{ertc.CITE_FORM_313}.",
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
        help="non_full_time (default): the three months among those under"
        f" {ERTC.FULL_TIME_HOURS_PER_MONTH.summary()}; "
        "all_months: any month of 86 2/3 hours or more (e.).",
    ),
)


def _table_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with the columns of the input tables by key: the periods' and the
    employees' figures, each a list (one per row)."""
    found: dict[str, Any] = dict(values)
    if "periods" in values:
        periods = list(values["periods"])
        for i, key in enumerate(("period_ends", "gross_receipts", "period_liabilities", "others")):
            found[key] = [p[i] for p in periods]
    if ROSTER_KEY not in values:
        return found
    employees = list(values[ROSTER_KEY])
    for part in range(1, roster_sheets_needed(len(employees)) + 1):
        rows = employees[(part - 1) * MAX_EMPLOYEES : part * MAX_EMPLOYEES]
        n = _key_suffix(part)
        found |= {
            f"employee_names{n}": [e["name"] for e in rows],
            f"temporary{n}": [e.get("temporary", False) for e in rows],
            f"excluded{n}": [e.get("excluded", False) for e in rows],
        }
        for key, _, _ in PERIODS:
            for m in range(MONTHS):
                found[f"{key}_month_{m + 1}{n}"] = [e[key][m] for e in rows]
    return found


_PERIOD_LABELS = tuple(f"Period {n}" for n in range(1, MAX_PERIODS + 1))


def _continued(sheets: int) -> str:
    """What the Inputs note says of continuation sheets (none in the blank template)."""
    if sheets == 1:
        return ""
    return (
        f" This roster continues on {sheets - 1} more sheet(s) per period "
        f"('{ROSTER_SHEETS['base']} (2)' and on: rows Employee {MAX_EMPLOYEES + 1} to "
        f"Employee {sheets * MAX_EMPLOYEES}), the same employee in the same row of the same "
        "part of each period."
    )


def _part_ii_and_iii(sheets: int = 1) -> tuple[LineItem, ...]:
    """Inputs: where Part II is (``sheets`` roster sheets per period), and Part III's
    periods."""
    return (
        Skip(),
        Section(
            f"Part II: employees and monthly hours ({F.FORM_313.name} Part II; "
            "N.J.S.A. 52:27BBB-55e.)"
        ),
        Note(
            f"The roster is on the sheets {', '.join(ROSTER_SHEETS.values())}: one sheet per "
            f"period, {MAX_EMPLOYEES} employees each (rows Employee 1 to Employee "
            f"{MAX_EMPLOYEES}); leave the rows after the last employee blank. An employee keeps "
            "the same row on all three sheets: the name and flags on the first, with the base "
            "year's hours. Month 1 is the first month of each period (the dates are on "
            "Calculations). A blank month in a used row is 0 hours (not yet employed, or gone); "
            "a wholly blank row is no employee." + _continued(sheets)
        ),
        *_PART_III,
    )


_PART_III: tuple[LineItem, ...] = (
    Skip(),
    Section(
        f"Part III: privilege periods, in order ({F.FORM_313.name} Part III; "
        "N.J.S.A. 52:27BBB-55b.)"
    ),
    Note(
        "One row per privilege period from the one in which credit year one ends (earlier "
        "periods may be listed too); later rows blank."
    ),
    InputTable(
        _PERIOD_LABELS,
        (
            Column(
                "Period end",
                Kind.DATE,
                "date",
                name="PeriodEnds",
                key="period_ends",
                help="Last day of the privilege period; periods in order, consecutive.",
            ),
            Column(
                "New Jersey gross receipts",
                Kind.MONEY,
                "$",
                name="GrossReceipts",
                key="gross_receipts",
                help="For the CBT statutory minimum tax (N.J.S.A. 54:10A-5(e)).",
            ),
            Column(
                "Tax liability",
                Kind.MONEY,
                "$",
                name="Liabilities",
                key="period_liabilities",
                help="Tax otherwise due for the period, before this credit: the CBT before "
                "the Corporate Transit Fee (P.L.2024, c.20; no credit reduces the fee).",
            ),
            transit_fee.column("TransitFees"),
            Column(
                "Other credits taken",
                Kind.MONEY,
                "$",
                name="OtherCredits",
                key="others",
                help="Credits applied before this one in the period (N.J.A.C. 18:7-3.17); 0 if "
                "none.",
            ),
        ),
        label_header="Period",
    ),
    Skip(),
    Section(
        f"Credit carried into the first period ({F.FORM_313_CARRYOVER.label(what=False)}; "
        "N.J.S.A. 52:27BBB-55b.(2))"
    ),
    Note(
        "Only when period 1 comes after credit year one (or two) ended, as in a workbook "
        "rolled forward past its first periods (nj-incentives rollforward writes these): "
        "each credit year's unused credit carried into period 1 (0 if none is left) and how "
        "many periods before period 1 it was allowed in (1 = the period just before; needed "
        "with a carryforward limit). Blank: nothing carried in."
    ),
    InputTable(
        ("Credit year one", "Credit year two"),
        (
            Column(
                "Credit carried into period 1",
                Kind.MONEY,
                "$",
                name="OpeningCarried",
                key="opening_carried",
                help="Unused credit of this credit year carried into period 1 (b.(2)); blank "
                "when its credit year ends in a period listed above.",
            ),
            Column(
                "Allowed, periods before period 1",
                Kind.COUNT,
                "periods",
                name="OpeningBefore",
                key="opening_before",
                minimum=1,
                maximum=50,
                help="The privilege period its credit was allowed in (b.(1)), counted back "
                "from period 1: 1 = the period just before.",
            ),
        ),
        label_header="Credit",
    ),
)

#: Inputs: where Part II is, and Part III's periods (the blank template's).
PART_II_AND_III = _part_ii_and_iii()


def _rows(part: int) -> tuple[str, ...]:
    return tuple(f"Employee {n}" for n in range(_first_row(part), _last_row(part) + 1))


def _roster(
    key: str, label: str, name: str, part: int = 1, sheets: int = 1
) -> tuple[LineItem, ...]:
    """One Part II sheet: the roster's hours of one period (the first sheet also the
    names and the flags; the others show the names again). ``part`` 2 or later: a
    continuation sheet of the same period, rows ``Employee 251`` on."""
    sheet = roster_sheet_names(sheets)[key][part - 1]
    first = key == PERIODS[0][0]
    n = _suffix(part)
    continued = f" (continued: rows {_first_row(part)} to {_last_row(part)})" if part > 1 else ""
    return (
        Title(
            f"Part II: {label.lower()}{continued}",
            f"{F.FORM_313.name} Part II, hours per month; {MAX_EMPLOYEES} rows, the same "
            "employee in the same row on all three sheets.",
            sheet=sheet,
            # a long narrow table prints more rows a page upright (unless too small to read)
            landscape=None if first else False,
            narrow=(14, 2),
        ),
        InputTable(
            _rows(part),
            (_roster_columns(part) if first else ()) + _month_columns(key, part),
            label_header="Row",
            leading=()
            if first
            else (
                (
                    Column("Employee", Kind.TEXT, "name", width=22),
                    f'IF([[at:EmployeeNames{n}:row]]="","",[[at:EmployeeNames{n}:row]])',
                ),
            ),
            repeat_header=True,
            spans=(
                Span(f"Hours{name}{n}", f"{_SHORT[key]} month 1", f"{_SHORT[key]} month {MONTHS}"),
            ),
            sheet=sheet,
            shows=() if first else (f"employee_names{_key_suffix(part)}",),
        ),
    )


# --------------------------------------------------------------------------- calculations


def _positions_and_credits() -> tuple[LineItem, ...]:
    """Calculations: the new positions (from the average positions of the base year and
    the credit years), the credits and the sustained effort ratio."""
    on = CALCULATIONS
    ordinal = {1: "one", 2: "two"}
    base, year1, year2 = (f"[[at:Positions{name}:Average positions:0]]" for _, _, name in PERIODS)
    return (
        Section("New full-time positions and credits (N.J.S.A. 52:27BBB-55a., e.)", sheet=on),
        Item(
            "New full-time positions, credit year one",
            "Year1New",
            Kind.NUMBER,
            "positions",
            f"NJ_ERTC_NEW_POSITIONS({base},{year1},Fractional)",
            source=f"{F.FORM_313_LINE_7.label(what=False)} (the positions)",
        ),
        Item(
            "New full-time positions, credit year two",
            "Year2New",
            Kind.NUMBER,
            "positions",
            f"NJ_ERTC_NEW_POSITIONS({base},{year2},Fractional)",
            source=f"{F.FORM_313_YEAR_TWO.label(what=False)} (the positions)",
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
                f"NJ_ERTC_NEW_POSITIONS({base},{measured},RatioFractional)",
            )
            for n, measured in ((1, year1), (2, year2))
        ),
        Item(
            f"Credit for credit year one ({_ONE} a position)",
            "CreditYearOne",
            Kind.MONEY,
            "$",
            "NJ_ERTC_CREDIT(Year1New,1,Fractional)",
            source=F.FORM_313_LINE_7.label(),
        ),
        Item(
            f"Credit for credit year two ({_TWO} a position)",
            "CreditYearTwo",
            Kind.MONEY,
            "$",
            "NJ_ERTC_CREDIT(Year2New,2,Fractional)",
            source=F.FORM_313_YEAR_TWO.label(),
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
            "NJ_ERTC_RATIO_FRACTIONAL(Fractional,RatioMeasured)",
        ),
        Skip(sheet=on),
    )


_SCHEDULE = "[[data:CreditSchedule:{}]]".format


def _stacked(name: str, sheets: int) -> str:
    """The defined name ``name``, or over ``sheets`` roster sheets every part's, stacked
    (Excel 365's VSTACK: one table, the rows of sheet 1, then sheet 2 ...)."""
    if sheets == 1:
        return name
    return f"_xlfn.VSTACK({','.join(name + _suffix(p) for p in range(1, sheets + 1))})"


def _calculation_items(sheets: int = 1) -> tuple[LineItem, ...]:
    """Calculations, in order (the roster read from ``sheets`` sheets per period)."""
    flags = f"{_stacked('Temporary', sheets)},{_stacked('Excluded', sheets)}"
    return (*_CALCULATIONS_BEFORE, *_average_positions(flags, sheets), *_CALCULATIONS_AFTER)


#: Each roster's first month (its months are dated: N.J.S.A. 52:27BBB-55e. figures are read
#: at each month's date): the base year's first day and the credit years', all computed
#: from the Inputs' OperationsStart.
_FIRST_MONTH = {
    "Base": "BaseYearStart",
    "Year1": "[[at:CreditYears:First day:0]]",
    "Year2": "[[at:CreditYears:First day:1]]",
}


def _average_positions(flags: str, sheets: int) -> tuple[LineItem, ...]:
    return tuple(
        ArrayTable(
            f"NJ_ERTC_AVG_POSITIONS({_stacked('Hours' + name, sheets)},{flags},PartTimeMonths,"
            f"{_FIRST_MONTH[name]})",
            (
                Column("Average positions", Kind.NUMBER, "positions"),
                Column("Part-time equivalents", Kind.NUMBER, "positions"),
            ),
            rows=1,
            header_from_function=False,
            label=f"Part II: {label}, average full-time positions and equivalents (e.)",
            row_labels=(label,),
            name=f"Positions{name}",
        )
        for _, label, name in PERIODS
    )


_CALCULATIONS_BEFORE: tuple[LineItem, ...] = (
    Title(
        "Calculations",
        "Formulas only: every figure comes from the NJ_* functions.",
        sheet=CALCULATIONS,
    ),
    Section("Part I: eligibility (N.J.S.A. 52:27BBB-55a., d.)", width=3, sheet=CALCULATIONS),
    Item(
        "The credit may be claimed at this location (OK, or every reason not)",
        "Eligibility",
        Kind.TEXT,
        "verdict",
        "NJ_ERTC_ELIGIBILITY_CHECK(ReceivesUEZBenefit,PriorCreditPeriod,InQualifiedMunicipality)",
    ),
    Skip(sheet=CALCULATIONS),
    ArrayTable(
        "NJ_ERTC_CREDIT_YEARS(OperationsStart)",
        tuple(
            Column(column.header, Kind.COUNT, "")
            if column.unit == "int"
            else Column(column.header, Kind.DATE, "date")
            for column in CREDIT_YEARS_COLUMNS
        ),
        rows=2,
        label="Credit years (N.J.S.A. 52:27BBB-55e.)",
        name="CreditYears",
    ),
    ArrayTable(
        "NJ_ERTC_BASE_YEAR(OperationsStart)",
        (
            Column("First day", Kind.DATE, "date", name="BaseYearStart"),
            Column("Last day", Kind.DATE, "date", name="BaseYearEnd"),
        ),
        rows=1,
        label="Base year: the twelve months before credit year one (N.J.S.A. 52:27BBB-55e.)",
        row_labels=("Base year",),
        name="BaseYear",
    ),
)


#: The return, per privilege period: its tax year (CBT-100 numbering, a 52-53-week year
#: by the day it is deemed to end), beside the credit schedule's rows (what the Return
#: sheet and ``calc --return`` read, with the schedule's columns).
_RETURN_PERIODS: tuple[LineItem, ...] = (
    Section(
        "The return's tax year of each privilege period (the Return sheet shows one)",
        width=3,
        sheet=CALCULATIONS,
    ),
    FormulaTable(
        (Column("Tax year", Kind.YEAR, "year", name="ReturnTaxYears"),),
        tuple(
            ('IF(ISBLANK([[at:PeriodEnds:row]]),"",NJ_TAX_YEAR([[at:PeriodEnds:row]]))',)
            for _ in range(MAX_PERIODS)
        ),
        row_labels=_PERIOD_LABELS,
        label_header="Period",
        name="ReturnPeriods",
    ),
    Section(
        "Corporate Transit Fee per period (P.L.2024, c.20; apart from the CBT, no credit "
        "reduces it)",
        width=3,
        sheet=CALCULATIONS,
    ),
    FormulaTable(
        (Column("Corporate Transit Fee", Kind.MONEY, "$", name="ReturnTransitFees"),),
        tuple((transit_fee.amount("[[at:TransitFees:row]]"),) for _ in _PERIOD_LABELS),
        row_labels=_PERIOD_LABELS,
        label_header="Period",
        name="TransitFeePeriods",
    ),
)


_CALCULATIONS_AFTER: tuple[LineItem, ...] = (
    *_positions_and_credits(),
    Section(
        "Part III: statutory minimum tax per period (N.J.S.A. 54:10A-5(e))",
        width=3,
        sheet=CALCULATIONS,
    ),
    FormulaTable(
        (Column("Minimum tax", Kind.MONEY, "$", name="MinimumTaxes"),),
        tuple(
            (
                'IF(ISBLANK([[at:PeriodEnds:row]]),"",NJ_CBT_MIN_TAX([[at:GrossReceipts:row]],'
                "SCorporation,GroupPayroll))",
            )
            for _ in range(MAX_PERIODS)
        ),
        row_labels=_PERIOD_LABELS,
    ),
    ArrayTable(
        "NJ_ERTC_SCHEDULE(OperationsStart,Year1ForRatio,Year2ForRatio,PeriodEnds,"
        "Liabilities,OtherCredits,MinimumTaxes,CarryforwardYears,Fractional,TaxType,"
        "RatioFractional,RefundPeriodLimit,OpeningCarried,OpeningBefore)",
        SCHEDULE_COLUMNS,
        rows=MAX_PERIODS,
        label="Part III: the credit per privilege period (N.J.S.A. 52:27BBB-55b., c.)",
        row_labels=_PERIOD_LABELS,
        name="CreditSchedule",
    ),
    Section("Totals", width=3, sheet=CALCULATIONS),
    Item(
        "Credit carried into the first period (allowed before it)",
        "CarriedIn",
        Kind.MONEY,
        "$",
        f"IF(COUNT({_SCHEDULE('Period end')})>0,[[at:CreditSchedule:Carried in:0]],"
        f'"{NOT_COMPUTED}")',
        role="total",
    ),
    Total("Credit allowed (years one and two)", _SCHEDULE("New credit"), name="TotalAllowed"),
    Total("Credit used", _SCHEDULE("Used"), name="TotalUsed"),
    Total("Credit refunded (overpayment)", _SCHEDULE("Refund"), name="TotalRefund"),
    Total("Credit expired", _SCHEDULE("Expired"), name="TotalExpired"),
    Item(
        "Credit carried forward after the last period",
        "CarriedForward",
        Kind.MONEY,
        "$",
        f"IF(COUNT({_SCHEDULE('Period end')})>0,INDEX({_SCHEDULE('Carried out')},"
        f'COUNT({_SCHEDULE("Period end")})),"{NOT_COMPUTED}")',
        role="total",
    ),
    *_RETURN_PERIODS,
)


# --------------------------------------------------------------------------- outputs


def _output(
    label: str, formula: str, kind: Kind, unit: str, source: str, name: str | None = None
) -> Item:
    """A figure on Outputs, with where it goes on Form 313 (or the law it comes from);
    ``name``: the output cell's own defined name, for a figure that is not a name itself
    (what ``calc --json`` calls it)."""
    return Item(label, name, kind, unit, formula, role="output", source=source, sheet=OUTPUTS)


OUTPUT_ITEMS: tuple[LineItem, ...] = (
    # the figures and the chart on one portrait page
    Title("Outputs", "Valid only when Checks!MasterCheck is TRUE.", sheet=OUTPUTS, landscape=False),
    SourceHeading("Where on the return (or in the law)", 48),
    _output("All checks pass", "MasterCheck", Kind.CHECK, "TRUE/FALSE", "the Checks sheet"),
    _output(
        "Part I: eligibility",
        "Eligibility",
        Kind.TEXT,
        "verdict",
        f"{F.FORM_313_PART_I.label(what=False)}; {_CITE}a., d.",
    ),
    *(
        _output(
            f"Credit year {ordinal}: {which} day",
            f"[[at:CreditYears:{which.capitalize()} day:{n}]]",
            Kind.DATE,
            "date",
            f"{_CITE}e.",
            f"CreditYear{ordinal.capitalize()}{which.capitalize()}Day",
        )
        for n, ordinal in enumerate(("one", "two"))
        for which in ("first", "last")
    ),
    _output(
        "New full-time positions, credit year one",
        "Year1New",
        Kind.NUMBER,
        "positions",
        f"{F.FORM_313_LINE_7.label(what=False)} (the positions); from Part II",
    ),
    _output(
        "New full-time positions, credit year two",
        "Year2New",
        Kind.NUMBER,
        "positions",
        f"{F.FORM_313_YEAR_TWO.label(what=False)} (the positions); from Part II",
    ),
    _output(
        "Credit for credit year one",
        "CreditYearOne",
        Kind.MONEY,
        "$",
        F.FORM_313_LINE_7.label(what=False),
    ),
    _output(
        "Credit for credit year two",
        "CreditYearTwo",
        Kind.MONEY,
        "$",
        f"{F.FORM_313_YEAR_TWO.label(what=False)} (at {_TWO}); {_CITE}a.",
    ),
    _output("Sustained effort ratio", "SustainedEffortRatio", Kind.NUMBER, "ratio", f"{_CITE}e."),
    _output(
        "Credit used, all periods",
        "TotalUsed",
        Kind.MONEY,
        "$",
        f"{F.FORM_313_LIMIT.label(what=False)} (after the 50% / minimum-tax limit and other "
        f"credits); to {F.SCHEDULE_A3_ERTC.label()}",
    ),
    _output(
        "Credit carried in from earlier periods",
        "CarriedIn",
        Kind.MONEY,
        "$",
        f"{_CITE}b.(2) (the credit carried into the first period, on Inputs)",
    ),
    _output("Credit refunded (overpayment)", "TotalRefund", Kind.MONEY, "$", f"{_CITE}c.(2)"),
    _output(
        "Credit expired",
        "TotalExpired",
        Kind.MONEY,
        "$",
        f"{_CITE}b.(2) (a limit only as a switch: {ertc.CITE_FORM_313})",
    ),
    _output(
        "Credit carried forward after the last period",
        "CarriedForward",
        Kind.MONEY,
        "$",
        f"{F.FORM_313_CARRYOVER.label(what=False)} (carryover); {_CITE}b.(2)",
    ),
    Skip(sheet=OUTPUTS),
    Chart(
        "Economic Recovery Tax Credit by privilege period",
        _SCHEDULE("Period end"),
        (
            ("Used", _SCHEDULE("Used")),
            ("Refunded", _SCHEDULE("Refund")),
            ("Carried forward", _SCHEDULE("Carried out")),
        ),
        y_title="$",
        x_title="Privilege period ending",
    ),
)


# --------------------------------------------------------------------------- checks

_TOLERANCE = CENT_TOLERANCE


def _checks(read: Callable[[str], str]) -> tuple[Check, ...]:
    """The Checks sheet's lines, each input read by ``read``
    (:func:`nj_incentives.programs.template_inputs.reader`: as the NJ_* functions read it, so
    that
    a date or an amount typed as text counts as the functions count it)."""
    ends = read("PeriodEnds")
    return (
        Check(
            "Part I: the taxpayer may claim the credit at this location",
            'Eligibility="OK"',
            "N.J.S.A. 52:27BBB-55a., d.",
        ),
        Check.numbers(
            "New positions, credits and the sustained effort ratio are numbers",
            "[[between:Year1New:SustainedEffortRatio]]",
        ),
        Check(
            "A minimum tax is computed for every period given",
            f"COUNT(MinimumTaxes)=COUNT({ends})",
            "N.J.S.A. 54:10A-5(e)",
        ),
        Check(
            "Every period given has its tax liability and other credits (0 if none)",
            f"AND(COUNT({read('Liabilities')})=COUNT({ends}),"
            f"COUNT({read('OtherCredits')})=COUNT({ends}))",
            "N.J.S.A. 52:27BBB-55b.(3)",
        ),
        Check(
            "The schedule has a row for every period given",
            f"COUNT({_SCHEDULE('Period end')})=COUNT({ends})",
            "N.J.S.A. 52:27BBB-55b.(1)",
        ),
        Check.equal(
            "The schedule allows the credits of credit years one and two (but one carried in),"
            " or names one allowed for a period after the last one given",
            f"[[name:TotalAllowed]]+SUM({_SCHEDULE('Allowed later')})",
            f"IF({inputs.blank('[[at:OpeningCarried:0]]')},CreditYearOne,0)"
            f"+IF({inputs.blank('[[at:OpeningCarried:1]]')},CreditYearTwo,0)",
            "N.J.S.A. 52:27BBB-55a., b.(1)",
        ),
        Check.equal(
            "Credit carried in + allowed = used + refunded + expired + carried forward",
            "[[name:CarriedIn]]+[[name:TotalAllowed]]",
            "[[name:TotalUsed]]+[[name:TotalRefund]]+[[name:TotalExpired]]+[[name:CarriedForward]]",
            "N.J.S.A. 52:27BBB-55b., c.",
        ),
        Check(
            "No period's credit used exceeds its limit",
            f"SUMPRODUCT(--({_SCHEDULE('Used')}>{_SCHEDULE('Limit')}+{_TOLERANCE}))=0",
            "N.J.S.A. 52:27BBB-55b.(3)",
        ),
        Check(
            "Each period: carried out = carried in + new credit - used - refund - expired",
            f"SUMPRODUCT(--(ABS({_SCHEDULE('Carried in')}+{_SCHEDULE('New credit')}"
            f"-{_SCHEDULE('Used')}-{_SCHEDULE('Refund')}-{_SCHEDULE('Expired')}"
            f"-{_SCHEDULE('Carried out')})>={_TOLERANCE}))=0",
            "N.J.S.A. 52:27BBB-55b.(2)",
        ),
        Check(
            "Each period carries in what the period before carried out",
            "SUMPRODUCT(--ISNUMBER([[data:CreditSchedule:Carried in:1:]]),"
            "--(ABS([[data:CreditSchedule:Carried in:1:]]-[[data:CreditSchedule:Carried out::-1]])"
            f">={_TOLERANCE}))=0",
            "N.J.S.A. 52:27BBB-55b.(2)",
        ),
        Check.at_most(
            "The refund does not exceed the credit for credit year one",
            "[[name:TotalRefund]]",
            "CreditYearOne",
            "N.J.S.A. 52:27BBB-55c.(2)",
        ),
        Check.numbers(
            "The Corporate Transit Fees entered are numbers (blank: none)",
            "[[name:TransitFees]]",
            transit_fee.CITE,
        ),
        transit_fee.check(
            [
                (
                    f"[[at:TransitFees:{k}]]",
                    transit_fee.begins(
                        f"[[at:PeriodEnds:{k}]]", f"[[at:PeriodEnds:{k - 1}]]" if k else None
                    ),
                    label,
                )
                for k, label in enumerate(_PERIOD_LABELS)
            ]
        ),
        transit_fee.kind_check(
            [(f"[[at:TransitFees:{k}]]", label) for k, label in enumerate(_PERIOD_LABELS)],
            read,
        ),
    )


# --------------------------------------------------------------------------- the return


def _money(value: object) -> Decimal | None:
    """A recalculated amount as dollars to the cent (None: not a number)."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return Decimal(str(value)).quantize(Decimal("0.01"))


def _later_notes(read: Callable[[str], Any], k: int) -> list[str]:
    """On the last period's row: each credit year's credit allowed for a later period
    (the one in which it ends), as :func:`nj_incentives.programs.ertc.rules.later_text`."""
    from nj_incentives.core.cells import date_from_serial

    if not _money(returns.values(read, "CreditSchedule:Allowed later")[k]):
        return []
    years = read("CreditYears")
    ends = [
        date_from_serial(float(row[2])) if isinstance(row[2], (int, float)) else None
        for row in (years[1:3] if isinstance(years, list) else [])
    ]
    notes = []
    for n, (name, allowed) in enumerate(
        (
            ("CreditYearOne", "CreditSchedule:Year one credit"),
            ("CreditYearTwo", "CreditSchedule:Year two credit"),
        ),
        1,
    ):
        amount = _money(read(name))
        given = [_money(v) for v in returns.values(read, allowed)]
        carried = _money(returns.values(read, "OpeningCarried")[n - 1 : n] or None)
        end = ends[n - 1] if n - 1 < len(ends) else None
        if amount and end and carried is None and not any(given):
            notes.append(ertc.later_text(n, end, amount))
    return notes


_B = "N.J.S.A. 52:27BBB-55b."
#: The return of a privilege period's tax year: the schedule's row of that period and its
#: new credit split by credit year (Calculations, "The return, per privilege period"),
#: each on the line of the edition of each form in force for the tax year.
RETURN_SPEC = returns.ReturnSpec(
    TEMPLATE_ID,
    f"The return: {F.FORM_313.form} and {F.SCHEDULE_A3.form} (the edition in force for the "
    "tax year)",
    (
        returns.ReturnFigure(
            "Credit for credit year one",
            "CreditSchedule:Year one credit",
            "Form 313",
            "year_one",
            f"{_B}(1)",
        ),
        returns.ReturnFigure(
            "Credit for credit year two",
            "CreditSchedule:Year two credit",
            "Form 313",
            "year_two",
            f"{_B}(1)",
        ),
        returns.ReturnFigure("Credit carried in", "CreditSchedule:Carried in", law=f"{_B}(2)"),
        returns.ReturnFigure(
            "Other tax credits taken",
            "OtherCredits",
            "Form 313",
            "other_credits",
            "N.J.A.C. 18:7-3.17",
        ),
        returns.ReturnFigure(
            "Limit (50% of the liability, down to the minimum tax)",
            "CreditSchedule:Limit",
            law=f"{_B}(3)",
        ),
        returns.ReturnFigure(
            "Allowable credit", "CreditSchedule:Used", "Form 313", "allowable", f"{_B}(3)"
        ),
        returns.ReturnFigure(
            "Economic Recovery Tax Credit",
            "CreditSchedule:Used",
            "Schedule A-3",
            "ertc",
            "N.J.A.C. 18:7-3.17",
        ),
        returns.ReturnFigure("Refund (overpayment)", "CreditSchedule:Refund", law=f"{_CITE}c.(2)"),
        returns.ReturnFigure("Expired", "CreditSchedule:Expired", law=f"{_B}(2)"),
        returns.ReturnFigure(
            "Carried forward", "CreditSchedule:Carried out", "Form 313", "carryover", f"{_B}(2)"
        ),
        returns.ReturnFigure(
            "Allowed for a later period (not in this workpaper)",
            "CreditSchedule:Allowed later",
            law=f"{_B}(1)",
        ),
        transit_fee.figure("ReturnTransitFees"),
    ),
    years="ReturnTaxYears",
    ends="CreditSchedule:Period end",
    default="MAX(ReturnTaxYears)",
    default_text="the tax year of the last privilege period entered (the engagement's)",
    notes=(
        "A credit year's credit is allowed for the privilege period in which the credit year "
        "ends (b.(1)); a line 'to be confirmed' is not given by our sources for that edition "
        "(docs/interpretations.md, Form lines and their editions).",
    ),
    more_notes=_later_notes,
)


def return_block(read: Callable[[str], Any], tax_year: int) -> ReturnBlock | None:
    """Form 313 and Schedule A-3 for ``tax_year``: the row of the privilege period whose
    return is that tax year (CBT-100 numbering, a 52-53-week year by the day it is deemed
    to end), read from the cells the Return sheet reads (:data:`RETURN_SPEC`), on the
    edition of each form in force for it. None: no period of that tax year."""
    return returns.block(RETURN_SPEC, read, tax_year)


#: The Return sheet (its own printed page).
RETURN_ITEMS: tuple[LineItem, ...] = returns.sheet_items(RETURN_SPEC)


def _draft(sheets: int = 1) -> tuple[LineItem, ...]:
    """The inputs as the functions read them (each rule as ``fill`` has it: the same
    items), with ``sheets`` roster sheets per period."""
    return (
        *SCREENING,
        *_part_ii_and_iii(sheets),
        *(
            item
            for key, label, name in PERIODS
            for part in range(1, sheets + 1)
            for item in _roster(key, label, name, part, sheets)
        ),
        *_calculation_items(sheets),
        *OUTPUT_ITEMS,
        *RETURN_ITEMS,
        *_checks(str),
    )


_DRAFT = _draft()


def _roster_checks(sheets: int = 1) -> tuple[Check, ...]:
    """One check per roster range, one NJ_INPUT_REFUSED call each (not one a cell: a
    250 x 12 roster stays cheap to recalculate): every sheet's hours by the rule the
    functions and the payroll import read them by (``ertc.HOURS_INPUT``), and a
    continuation sheet's two flags (the first sheet's have their input checks). A
    failed one names the sheet (and column), then the first cell refused, its value, the
    rule broken and its citation, each once."""
    names = roster_sheet_names(sheets)
    hours = ertc.HOURS_INPUT
    flags = inputs.rules(_draft(sheets)) if sheets > 1 else {}
    found = []
    for key, _, name in PERIODS:
        for part in range(1, sheets + 1):
            sheet = names[key][part - 1]
            found.append(
                Check.refused(
                    f"{sheet}: each month's hours are a number, not negative, and {hours.rule}",
                    f"{sheet}, hours",
                    inputs.refusal_formula(f"Hours{name}{_suffix(part)}", hours),
                    hours.citation,
                )
            )
            if key != PERIODS[0][0] or part == 1:
                continue
            for column in _roster_columns(part)[1:]:
                rule = flags[str(column.name)]
                assert rule is not None
                found.append(
                    Check.refused(
                        f"{sheet}, {column.header}: {rule.describe()}",
                        f"{sheet}, {column.header}",
                        inputs.refusal_formula(str(column.name), rule),
                        rule.citation,
                    )
                )
    return tuple(found)


def checks(sheets: int = 1) -> tuple[LineItem, ...]:
    """The Checks sheet's lines with ``sheets`` roster sheets per period: each input as
    the functions read it, each roster range, then the template's."""
    return (
        *inputs.input_checks(_DRAFT),
        *_roster_checks(sheets),
        *_checks(inputs.reader(_DRAFT)),
    )


#: The Checks sheet's lines (the blank template's).
CHECKS: tuple[LineItem, ...] = checks()


#: Calculations, in order (the blank template's).
CALCULATION_ITEMS = _calculation_items()


def template(sheets: int = 1) -> tuple[LineItem, ...]:
    """The whole template, in the order the builder lays it out, with ``sheets`` roster
    sheets per period (1: the blank template; more for a larger roster)."""
    return (
        *SCREENING,
        *_part_ii_and_iii(sheets),
        *(
            item
            for key, label, name in PERIODS
            for part in range(1, sheets + 1)
            for item in _roster(key, label, name, part, sheets)
        ),
        *_calculation_items(sheets),
        *OUTPUT_ITEMS,
        *RETURN_ITEMS,
        *checks(sheets),
    )


#: The whole template, in the order the builder lays it out.
TEMPLATE: tuple[LineItem, ...] = template()


# --------------------------------------------------------------------------- roll forward


def _year_end(day: dt.date) -> dt.date:
    """The same period end one year later (a month's last day stays the month's last)."""
    import calendar

    if (day + dt.timedelta(days=1)).day == 1:
        last = calendar.monthrange(day.year + 1, day.month)[1]
        return dt.date(day.year + 1, day.month, last)
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return dt.date(day.year + 1, 2, 28)


def _roll(values: dict[str, object], last: Last) -> RolledPeriod:
    """The next privilege period (its end one year after the last); 8 periods full, the
    oldest dropped and its outcome carried in (:func:`_drop_periods`)."""
    ends = list(values.get("PeriodEnds") or [])  # type: ignore[call-overload]
    period = last_row(ends)
    named = named_period(
        values, r"period ending (\d{4}-\d{2}-\d{2})", r"(?<![\d-])(\d{4}(?:-\d{2}-\d{2})?)(?!\d)"
    )
    days = [e.isoformat() if isinstance(e, dt.date) else None for e in ends[:period]]
    if named in days:
        period = days.index(named) + 1
    elif named and len(named) == 4:  # a year ("FY 2025"): the period ending in it
        years = [day[:4] if day else None for day in days]
        if named in years:
            period = len(years) - years[::-1].index(named)
    where = last.where
    ref = last.refers.get("PERIODENDS", "PeriodEnds")
    if period == 0:
        raise RollRefused(
            f"{where} {ref}: no privilege period yet: nothing to roll forward from (fill the "
            "first period)"
        )
    final = ends[period - 1]
    if not isinstance(final, dt.date):
        raise RollRefused(f"{where} {ref}: PeriodEnds[{period}] = {final!r} is not a date")
    carried: list[str] = []
    figures: list[CarriedFigure] = []
    kept = ends[period] if period < len(ends) else None
    if period + 1 > MAX_PERIODS:
        carried += _drop_periods(values, last, period + 1 - MAX_PERIODS, ref, figures)
        period, kept = MAX_PERIODS - 1, None
    following = kept if isinstance(kept, dt.date) and kept > final else _year_end(final)
    set_row(values, "PeriodEnds", period + 1, following)
    forward = _carried_out(last, final)
    carried.append(
        f"credit carried forward after the period ending {final}: {money(forward)}, carried "
        f"in to the period ending {following} by the schedule ({ertc.CITE_B2})"
    )
    figure = CarriedFigure(
        "CarriedForward",
        round(float(forward), 2) if isinstance(forward, (int, float)) else None,
        "$",
        final.isoformat(),
    )
    return RolledPeriod(
        f"privilege period ending {final}",
        f"privilege period ending {following}",
        carried,
        period + 1,
        (*figures, figure),
    )


def _carried_out(last: Last, final: dt.date) -> object:
    """The credit carried out of the period ending ``final``: its row of the schedule
    (``CreditSchedule``'s "Carried out"), not the figure after the workbook's last period
    (``CarriedForward``), which differs when later periods are already in the workbook."""
    from nj_incentives.core.cells import date_from_serial

    table = last.names.get("CreditSchedule")
    if isinstance(table, list) and table and isinstance(table[0], list):
        header = table[0]
        if "Carried out" in header and "Period end" in header:
            at, out = header.index("Period end"), header.index("Carried out")
            for row in table[1:]:
                end = row[at] if isinstance(row, list) and len(row) > out else None
                if isinstance(end, (int, float)) and date_from_serial(float(end)) == final:
                    return row[out]
    return last.names.get("CarriedForward")


def _drop_periods(
    values: dict[str, object],
    last: Last,
    drop: int,
    ref: str,
    figures: list[CarriedFigure] | None = None,
) -> list[str]:
    """The template's periods are full: its first ``drop`` periods dropped (every period
    row moves up), and what they carry out written as the credit carried into the new
    first period, per credit year with the period it was allowed in (``OpeningCarried``,
    ``OpeningBefore``: :func:`nj_incentives.programs.ertc.rules.opening_after`, N.J.S.A.
    52:27BBB-55b.(2)), so that the rolled schedule's figures are those of one schedule over
    every period."""
    schedule = last.results.get("NJ_ERTC_SCHEDULE")
    if not isinstance(schedule, ertc.CreditSchedule) or len(schedule.rows) < drop:
        raise RollRefused(
            f"{last.where} {ref}: all {MAX_PERIODS} privilege periods of the template are used "
            "and the credit schedule is not computed (see its Checks sheet): what the first "
            f"period carries out is not known, nothing to carry in ({ertc.CITE_B2})"
        )
    amounts, before = ertc.opening_after(schedule, drop)
    ends = [row.period_end for row in schedule.rows[:drop]]
    # the period table: every input with one row per period
    for name in [name for name, rows in last.rows.items() if rows == MAX_PERIODS]:
        column = list(values.get(name) or [])  # type: ignore[call-overload]
        values[name] = column[drop:] + [None] * min(drop, len(column))
    values["OpeningCarried"] = [None if a is None else float(a) for a in amounts]
    values["OpeningBefore"] = before
    for suffix in ("Tick", "Source"):
        values[f"OpeningCarried{suffix}"] = None  # a new figure: not yet ticked or sourced
    which = ("one", "two")
    lines = [
        f"the periods ending {ends[0]}"
        + (f" to {ends[-1]}" if drop > 1 else "")
        + f" dropped: all {MAX_PERIODS} privilege periods of the template were used; "
        "the rest moved up a row"
    ]
    for n, (amount, periods) in enumerate(zip(amounts, before, strict=True)):
        if amount is None or periods is None:
            continue
        index = drop - periods
        allowed = (
            f"allowed in the period ending {schedule.rows[index].period_end}"
            if index >= 0
            else f"allowed {-index} period(s) before the first LAST shows"
        )
        if figures is not None:
            after = ends[-1].isoformat()
            figures.append(CarriedFigure(f"OpeningCarried[{n + 1}]", float(amount), "$", after))
            figures.append(CarriedFigure(f"OpeningBefore[{n + 1}]", periods, "periods", after))
        lines.append(
            f"OpeningCarried[{n + 1}] = {money(float(amount))}, OpeningBefore[{n + 1}] = "
            f"{periods}: credit year {which[n]}'s credit ({allowed}) unused after the "
            f"period ending {ends[-1]}, carried into the new first period ({ertc.CITE_B2})"
        )
    return lines


def _engagement_period(values: Mapping[str, object], current: str) -> str:
    ends = [v for v in values.get("PeriodEnds") or [] if isinstance(v, dt.date)]  # type: ignore[attr-defined]
    return f"Privilege period ending {current} (periods ending {ends[0]} to {ends[-1]})"


#: The ERTC's next privilege period (``nj-incentives rollforward``): the carryforward is
#: carried by the schedule from the periods kept; 8 periods full, the oldest is dropped.
ROLL_FORWARD = RollForward(
    carried=(
        (
            "CarriedForward",
            "Carried in of the new period (the periods kept)",
            "N.J.S.A. 52:27BBB-55b.(2)",
        ),
        (
            "the oldest period's carried out, per credit year (8 periods full)",
            "OpeningCarried, OpeningBefore (the oldest period dropped)",
            "N.J.S.A. 52:27BBB-55b.(1), (2), c.(2)",
        ),
    ),
    new_period=("GrossReceipts", "Liabilities", "OtherCredits"),
    roll=_roll,
    engagement_period=_engagement_period,
)


#: The return of a tax year (:data:`nj_incentives.core.workpaper.ReturnOf`).
RETURN = return_block
