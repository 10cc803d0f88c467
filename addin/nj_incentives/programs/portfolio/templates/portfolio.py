"""Template: a portfolio of awards against one Corporation Business Tax liability a period
(issue 33, item 4; N.J.A.C. 18:7-3.17).

Inputs: the first privilege period's last day; per period the CBT liability before these
credits and the statutory minimum tax; the awards, a row each (entity, program, the period
the credit is allowed in, its amount: BEIP certificates, BRRAG, ERTC, Urban Transit Hub,
Grow NJ and Emerge credits of one or more entities); the readings the notes leave open
(which programs stop at the minimum tax, the UTH and ERTC carryforwards, BRRAG's periods,
Emerge's place in the order).

Calculations: ``NJ_PORTFOLIO`` applies them period by period in the order of N.J.A.C.
18:7-3.17, each program within its own limits and carryforward, a row per program, entity
and period (used, refunded, expired, carried out, the tax after, the return line), and the
totals. Every figure comes from the NJ_* function; the totals are presentation only.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from nj_incentives.core.workpaper import (
    CALCULATIONS,
    OUTPUTS,
    RETURN_SHEET,
    ArrayTable,
    CarriedFigure,
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
    Span,
    Title,
    Total,
    Workpaper,
    last_row,
    money,
)
from nj_incentives.programs import forms as F
from nj_incentives.programs import return_sheet as returns
from nj_incentives.programs import template_inputs as inputs
from nj_incentives.programs.portfolio import rules as portfolio
from nj_incentives.programs.portfolio.functions import PORTFOLIO_COLUMNS

__all__ = ["AWARDS", "EXAMPLE", "PERIODS", "RETURN", "ROLL_FORWARD", "TEMPLATE_ID", "workpaper"]

TEMPLATE_ID = "portfolio"
#: Periods the workbook holds (rows of the period table).
PERIODS = 8
#: Awards the workbook holds (rows of the awards table).
AWARDS = 10
#: The result table's rows: every award its own holding in every period, and one blank
#: row (a check that nothing was cut off).
RESULT_ROWS = AWARDS * PERIODS + 1

#: Each program's name as the template shows it.
TITLES = {
    "beip": "BEIP",
    "brrag": "BRRAG",
    "ertc": "ERTC",
    "uth": "Urban Transit Hub",
    "grow_nj": "Grow NJ",
    "emerge": "Emerge",
}

#: The filled example: three entities, five programs over five calendar-year periods.
EXAMPLE: Mapping[str, Any] = {
    "engagement": {
        "client": "Example Holdings Inc. and subsidiaries (fictitious)",
        "entity_id": "00-0000000 (example)",
        "period": "Privilege periods 2024-2028",
        "preparer": "A. Preparer",
        "reviewer": "R. Reviewer",
        "date": dt.date(2026, 12, 1),
    },
    "first_period_end": dt.date(2024, 12, 31),
    "liabilities": [100000, 60000, 80000, 90000, 70000],
    "minimum_taxes": [2000, 2000, 2000, 2000, 2000],
    "award_entity": ["Parent", "Parent", "Sub A", "Sub A", "Sub B", "Sub B"],
    "award_program": ["beip", "ertc", "grow_nj", "grow_nj", "emerge", "brrag"],
    "award_period": [1, 1, 1, 2, 2, 2],
    "award_amount": [30000, 40000, 100000, 100000, 25000, 10000],
}


#: Inputs: the periods, the awards and the readings.
INPUT_ITEMS: tuple[LineItem, ...] = (
    Title(
        "Inputs",
        "Type only in the yellow cells. Money in dollars. One row per award; one per period.",
    ),
    Section("Privilege periods (N.J.A.C. 18:7-3.17; N.J.S.A. 54:10A-5(e))"),
    Item(
        "Last day of privilege period 1",
        "FirstPeriodEnd",
        Kind.DATE,
        "date",
        key="first_period_end",
        prompt="Period 1 ends",
        help="Each later period ends 12 months later (a 52-53-week filer: the period's "
        "nearest month end).",
    ),
    InputTable(
        tuple(f"Period {n}" for n in range(1, PERIODS + 1)),
        (
            Column(
                "CBT liability before these credits",
                Kind.MONEY,
                "$",
                name="Liabilities",
                key="liabilities",
                prompt="CBT liability",
                help="The period's Corporation Business Tax before the credits of this "
                "portfolio (the CBT-100 line the credits reduce); blank after the last period.",
            ),
            Column(
                "Statutory minimum tax",
                Kind.MONEY,
                "$",
                name="MinimumTaxes",
                key="minimum_taxes",
                default=0,
                help="N.J.S.A. 54:10A-5(e): the ERTC may not take the tax below it (and the "
                "programs named in 'Stop at the minimum tax' below); 0 if none.",
            ),
        ),
        label_header="Period",
    ),
    Skip(),
    Section("Awards (one row each: the credit allowed in a period)"),
    Note(
        "Program: beip, brrag, ertc, uth, grow_nj or emerge. Period: the number of the period "
        "the credit is allowed in (1 to 8). Amount: the credit allowed (a certificate, the "
        "year's Grow NJ credit, ...), as the approval or the credit's own workpaper gives it."
    ),
    InputTable(
        tuple(f"Award {n}" for n in range(1, AWARDS + 1)),
        (
            Column(
                "Entity",
                Kind.TEXT,
                "name",
                name="AwardEntity",
                key="award_entity",
                help="The entity holding the award (a member of the group filing the return).",
                width=18,
            ),
            Column(
                "Program",
                Kind.CHOICE,
                "choice",
                name="AwardProgram",
                key="award_program",
                choices=portfolio.PROGRAMS,
                help="beip, brrag, ertc, uth, grow_nj or emerge (N.J.A.C. 18:7-3.17's order).",
            ),
            Column(
                "Period",
                Kind.COUNT,
                "number",
                name="AwardPeriod",
                key="award_period",
                minimum=1,
                maximum=PERIODS,
                help="The period the credit is allowed in, 1 to 8 (the period table above).",
                width=9,
            ),
            Column(
                "Credit allowed",
                Kind.MONEY,
                "$",
                name="AwardAmount",
                key="award_amount",
                help="The credit allowed in that period, dollars.",
            ),
        ),
        label_header="Award",
        spans=(Span("Awards", "Entity", "Credit allowed"),),
    ),
    Skip(),
    Section("Readings the notes leave open (docs/interpretations.md, 'Portfolio of awards')"),
    Item(
        "Stop at the minimum tax too (programs, by key)",
        "Floors",
        Kind.TEXT,
        "text",
        key="floors",
        prompt="Stop at the minimum tax",
        help='E.g. "beip, grow_nj": those programs may not take the tax below the minimum '
        "either (not found: open question 17); blank: only the ERTC.",
    ),
    Item(
        "Urban Transit Hub carryforward",
        "UthCarryforward",
        Kind.COUNT,
        "periods",
        key="uth_carryforward",
        maximum=100,
        prompt="UTH carryforward",
        help="Periods a UTH credit is carried forward (not found: open question 12); needed "
        "with a UTH award; 0 = none.",
    ),
    Item(
        "ERTC carryforward (blank: no limit)",
        "ErtcCarryforward",
        Kind.COUNT,
        "periods",
        key="ertc_carryforward",
        maximum=100,
        prompt="ERTC carryforward",
        help="Blank: no limit (N.J.S.A. 52:27BBB-55 b.(2)); 5: the Form 313 instructions.",
    ),
    Item(
        "BRRAG credit usable in",
        "BrragPeriods",
        Kind.CHOICE,
        "choice",
        key="brrag_periods",
        default="statute",
        choices=portfolio.BRRAG_READINGS,
        prompt="BRRAG periods",
        help='"statute": only the period set (34:1B-115.3 a.); "rule": and the next one '
        "(N.J.A.C. 19:31N-1.1(b)).",
    ),
    Item(
        "Emerge's place in the order (blank: 19, after Grow NJ)",
        "EmergePlace",
        Kind.NUMBER,
        "place",
        key="emerge_place",
        prompt="Emerge's place",
        help="Emerge is not in N.J.A.C. 18:7-3.17 (which predates it): its place is yours.",
    ),
    # Form 324: a combined return filer skips Part III (BEIP's allowable credit and refund)
    # for Part IV, whose lines no source gives (docs/interpretations.md, Form 324 Part IV)
    returns.combined_filer_item(),
)

_RESULT_COLUMNS = tuple(
    Column(
        column.header,
        {
            "int": Kind.COUNT,
            "date": Kind.DATE,
            "number": Kind.NUMBER,
            "text": Kind.TEXT,
        }.get(column.unit, Kind.MONEY),
        {"money": "$", "date": "date"}.get(column.unit, ""),
        width={
            "Program": 8,
            "Entity": 10,
            "Return line": 38,
            "Period": 6,
            "Place": 6,
            "Period end": 10,
        }.get(column.header, 11),
    )
    for column in PORTFOLIO_COLUMNS
)

#: Calculations: the portfolio applied, per period and per program.
CALCULATION_ITEMS: tuple[LineItem, ...] = (
    Title(
        "Calculations",
        "Formulas only: every figure comes from NJ_PORTFOLIO.",
        sheet=CALCULATIONS,
        landscape=True,
        narrow=(12.0, 2.0),
    ),
    ArrayTable(
        "NJ_PORTFOLIO(Awards,FirstPeriodEnd,Liabilities,MinimumTaxes,Floors,UthCarryforward,"
        "ErtcCarryforward,BrragPeriods,EmergePlace)",
        _RESULT_COLUMNS,
        rows=RESULT_ROWS,
        label="The credits applied, period by period, in the order of N.J.A.C. 18:7-3.17",
        name="Portfolio",
        role="note",  # the return line wraps
        lines=4,
    ),
    Section("Totals", width=3, sheet=CALCULATIONS),
    Total("Credit allowed", "[[data:Portfolio:New credit]]", name="TotalAllowed"),
    Total("Credit used", "[[data:Portfolio:Used]]", name="TotalUsed"),
    Total("BEIP refunded as an overpayment", "[[data:Portfolio:Refunded]]", name="TotalRefunded"),
    Total("Credit expired", "[[data:Portfolio:Expired]]", name="TotalExpired"),
)

_USED = 'SUMIFS([[data:Portfolio:{}]],[[data:Portfolio:Period]],{},[[data:Portfolio:Program]],"{}")'


def _used_name(key: str) -> str:
    """The defined name of a program's column of credit used per period."""
    return "ReturnUsed" + key.title().replace("_", "")


_END = "INDEX([[data:Portfolio:Period end]],MATCH({},[[data:Portfolio:Period]],0))"

#: The return, per privilege period: its tax year (CBT-100 numbering, a 52-53-week year by
#: the day it is deemed to end), its last day, and each program's credit used in it (every
#: entity's) and BEIP's refund: what the Return sheet and ``calc --return`` read.
RETURN_PERIOD_ITEMS: tuple[LineItem, ...] = (
    Section(
        "The return of each privilege period (the Return sheet shows one tax year)",
        width=3,
        sheet=CALCULATIONS,
    ),
    FormulaTable(
        (
            Column("Tax year", Kind.YEAR, "year", name="ReturnTaxYears", width=8),
            Column("Period end", Kind.DATE, "date", name="ReturnPeriodEnds", width=11),
            *(
                Column(f"{TITLES[key]} used", Kind.MONEY, "$", name=_used_name(key), width=11)
                for key in portfolio.PROGRAMS
            ),
            Column("BEIP refunded", Kind.MONEY, "$", name="ReturnRefundedBeip", width=11),
        ),
        tuple(
            (
                f'IFERROR(NJ_TAX_YEAR({_END.format(n)}),"")',
                f'IFERROR({_END.format(n)},"")',
                *(_USED.format("Used", n, key) for key in portfolio.PROGRAMS),
                _USED.format("Refunded", n, "beip"),
            )
            for n in range(1, PERIODS + 1)
        ),
        row_labels=tuple(f"Period {n}" for n in range(1, PERIODS + 1)),
        label_header="Period",
        name="ReturnPeriods",
        sheet=CALCULATIONS,
    ),
)


def _output(label: str, kind: Kind, unit: str, formula: str, name: str | None = None) -> Item:
    return Item(label, name, kind, unit, formula, role="output", sheet=OUTPUTS)


#: Outputs: what the reader needs.
OUTPUT_ITEMS: tuple[LineItem, ...] = (
    Title("Outputs", "Valid only when Checks!MasterCheck is TRUE.", sheet=OUTPUTS),
    _output("All checks pass", Kind.CHECK, "TRUE/FALSE", "MasterCheck"),
    _output("Credit allowed", Kind.MONEY, "$", "TotalAllowed"),
    _output("Credit used against the CBT", Kind.MONEY, "$", "TotalUsed"),
    _output("BEIP refunded as an overpayment", Kind.MONEY, "$", "TotalRefunded"),
    _output("Credit expired unused", Kind.MONEY, "$", "TotalExpired"),
)


#: What the portfolio carries out of its last period (every program's, every entity's).
_CARRIED_OUT = (
    "SUMIFS([[data:Portfolio:Carried out]],[[data:Portfolio:Period]],"
    "MAX([[data:Portfolio:Period]]))"
)


def _checks(read: Callable[[str], str]) -> tuple[Check, ...]:
    """The Checks sheet's lines after each input's own."""
    return (
        Check(
            "The result table holds every row (its last row is blank)",
            'LEN([[data:Portfolio:Period:-1:]]&"")=0',
            portfolio.CITE_ORDER,
        ),
        Check.equal(
            "Every credit is accounted for: allowed = used + refunded + expired + carried out"
            " of the last period",
            "TotalAllowed",
            f"TotalUsed+TotalRefunded+TotalExpired+{_CARRIED_OUT}",
            portfolio.CITE_ORDER,
        ),
        Check(
            "No period's credits take its tax below zero (every Tax after is 0 or more)",
            'COUNTIF([[data:Portfolio:Tax after]],"<0")=0',
            portfolio.CITE_ORDER,
        ),
    )


# --------------------------------------------------------------------------- the return

#: The return of a tax year: each program's credit used in the privilege period of that
#: tax year (every entity's, "The return of each privilege period") on its Schedule A-3
#: line, and BEIP's refund on Form 324's, each in the edition in force for the tax year.
RETURN_SPEC = returns.ReturnSpec(
    TEMPLATE_ID,
    f"The return: {F.SCHEDULE_A3.form} and {F.FORM_324.form}'s refund (the edition in force "
    "for the tax year)",
    (
        *(
            figure
            for key in portfolio.PROGRAMS
            for figure in (
                returns.ReturnFigure(
                    f"{TITLES[key]} credit used",
                    _used_name(key),
                    "Schedule A-3",
                    key,
                    portfolio.CITE_ORDER,
                    # BEIP's: Form 324 Part III's allowable credit
                    skippable=key == "beip",
                ),
                *(
                    (
                        returns.ReturnFigure(
                            "BEIP refunded as an overpayment",
                            "ReturnRefundedBeip",
                            "Form 324",
                            "refund",
                            "N.J.S.A. 34:1B-129 f.",
                            skippable=True,
                        ),
                    )
                    if key == "beip"
                    else ()
                ),
            )
        ),
    ),
    years="ReturnTaxYears",
    ends="ReturnPeriodEnds",
    default="MAX(ReturnTaxYears)",
    default_text="the tax year of the last privilege period with a liability entered",
    notes=(
        "The credits of every entity of the portfolio, as one return applies them, in the "
        "order of N.J.A.C. 18:7-3.17. A line 'to be confirmed' is not given by our sources "
        "for that edition (docs/interpretations.md, Form lines and their editions).",
    ),
    skip=returns.combined_filer_skip(
        "BEIP's credit used (Part III's allowable credit, on Schedule A-3) and its refund "
        "(Part III) are not computed for the return here; the other programs' lines are as "
        "shown"
    ),
)


def return_block(read: Callable[[str], Any], tax_year: int) -> ReturnBlock | None:
    """Schedule A-3 (and Form 324's refund) for ``tax_year``: each program's credit used in
    the privilege period of that tax year, read from the cells the Return sheet reads
    (:data:`RETURN_SPEC`); None when no period of the portfolio falls in the tax year."""
    return returns.block(RETURN_SPEC, read, tax_year)


#: The return of a tax year (:data:`nj_incentives.core.workpaper.ReturnOf`).
RETURN = return_block

#: The Return sheet (its own printed page).
RETURN_ITEMS: tuple[LineItem, ...] = returns.sheet_items(RETURN_SPEC)


_BEFORE_CHECKS: tuple[LineItem, ...] = (
    *INPUT_ITEMS,
    *CALCULATION_ITEMS,
    *RETURN_PERIOD_ITEMS,
    *OUTPUT_ITEMS,
    *RETURN_ITEMS,
)
_READ = inputs.reader((*_BEFORE_CHECKS, *_checks(str)))
#: The Checks sheet's lines: each input as the functions read it, then the template's.
CHECKS: tuple[LineItem, ...] = (
    *inputs.input_checks((*_BEFORE_CHECKS, *_checks(str))),
    *_checks(_READ),
)

#: The whole template, in the order the builder lays it out.
TEMPLATE: tuple[LineItem, ...] = (*_BEFORE_CHECKS, *CHECKS)


def workpaper(values: Mapping[str, Any] | None = None) -> Workpaper:
    """The workbook for ``values`` (keys as in :data:`EXAMPLE`; none: the blank template)."""
    values = values or {}
    return Workpaper(
        TEMPLATE_ID,
        "Portfolio of awards",
        "Several awards (BEIP certificates, BRRAG, ERTC, Urban Transit Hub, Grow NJ and "
        "Emerge credits) of one or more entities against one Corporation Business Tax "
        "liability a period, applied in the order of N.J.A.C. 18:7-3.17, each within its "
        "program's limits (the ERTC's 50% of the liability and the statutory minimum, BEIP's "
        "refund of the excess) and carryforward (Grow NJ 20 periods, Emerge 7, BRRAG none), "
        "with each credit's return line. The amounts are the approvals' and the credits' own "
        "workpapers': enter them as allowed.",
        TEMPLATE,
        values,
        engagement=values.get("engagement"),
        sheet_notes=(
            (
                "Calculations",
                "NJ_PORTFOLIO's rows (a program, entity and period each: used, refunded, "
                "expired, carried out, the tax after it, its return line) and the totals",
            ),
        ),
        sources=(
            "N.J.A.C. 18:7-3.17 (the order of CBT credits; carryovers in the same sequence)",
            "N.J.S.A. 34:1B-129 f. (BEIP), 34:1B-115.3 a. (BRRAG), 52:27BBB-55 b. (ERTC), "
            "34:1B-247 (Grow NJ), N.J.A.C. 19:31U-1.11(b) (Emerge)",
            "docs/interpretations.md: 'Portfolio of awards'",
        ),
        output_sheets=((RETURN_SHEET, "one tax year's return: Schedule A-3 and Form 324"),),
    )


# --------------------------------------------------------------------------- roll forward


def _roll(values: dict[str, object], last: Last) -> RolledPeriod:
    """The next period: the one after the last with a liability; refused past the table's
    last period. The carryforwards are the function's, from the awards kept."""
    period = last_row(values.get("Liabilities") or [])  # type: ignore[arg-type]
    where, refers = last.where, last.refers
    if period == 0:
        raise RollRefused(
            f"{where} {refers.get('LIABILITIES', 'Liabilities')}: no period has a liability "
            "yet: nothing to roll forward from (fill period 1)"
        )
    if period >= PERIODS:
        raise RollRefused(
            f"{where} {refers.get('LIABILITIES', 'Liabilities')}: period {period} is the "
            f"workbook's last ({PERIODS} periods): start a new portfolio from its carryforwards"
            f" ({portfolio.CITE_ORDER})"
        )
    carried: list[str] = []
    figures: list[CarriedFigure] = []
    table = last.names.get("Portfolio")
    if isinstance(table, list) and table and isinstance(table[0], list):
        header = table[0]
        at = {name: header.index(name) for name in header if isinstance(name, str)}
        for row in table[1:]:
            if row[at["Period"]] != period:
                continue
            out = row[at["Carried out"]]
            if isinstance(out, (int, float)) and out > 0:
                what = f"{TITLES.get(row[at['Program']], row[at['Program']])} ({row[at['Entity']]})"
                carried.append(
                    f"{what}: {money(out)} carried out of period {period} into period "
                    f"{period + 1} by the function, from the awards kept ({portfolio.CITE_ORDER})"
                )
                figures.append(CarriedFigure(what, round(float(out), 2), "$", f"period {period}"))
    return RolledPeriod(
        f"period {period}", f"period {period + 1}", carried, period + 1, tuple(figures)
    )


def _engagement_period(values: Mapping[str, object], current: str) -> str:
    return f"Privilege periods 1-{current}"


#: The next privilege period (``nj-incentives rollforward``): the awards and the periods
#: kept, the new period's liability and minimum tax to enter; what each program carries
#: into it is the function's, from the awards kept.
ROLL_FORWARD = RollForward(
    carried=(
        (
            "Portfolio: Carried out",
            "(the awards and periods kept)",
            "N.J.A.C. 18:7-3.17(b); each program's carryforward",
        ),
    ),
    new_period=("Liabilities", "MinimumTaxes"),
    roll=_roll,
    engagement_period=_engagement_period,
)
