"""The portfolio's NJ_* function: several awards against one CBT liability a period, in
the order of N.J.A.C. 18:7-3.17 (declarations: :mod:`nj_incentives.core.declarations`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from nj_incentives.core.cells import Cell, as_rows, given
from nj_incentives.core.declarations import (
    Catalog,
    ResultColumn,
    a_date,
    each,
    grid,
    result_table,
    single,
    switch,
)

__all__ = ["FUNCTIONS", "PORTFOLIO_COLUMNS"]

FUNCTIONS = Catalog()
calculation = FUNCTIONS.calculation

PORTFOLIO_COLUMNS = (
    ResultColumn("Period", "period", "int", "Number of the privilege period, from 1"),
    ResultColumn("Period end", "period_end", "date", "Last day of the privilege period"),
    ResultColumn("Place", "place", "number", "Place in the order of N.J.A.C. 18:7-3.17"),
    ResultColumn("Program", "program", "text", "The credit's program"),
    ResultColumn("Entity", "entity", "text", "The entity holding the award"),
    ResultColumn("Liability", "liability", "money", "The period's CBT liability"),
    ResultColumn("New credit", "new_credit", "money", "Credit allowed in the period"),
    ResultColumn("Carried in", "carried_in", "money", "Unused credit carried into it"),
    ResultColumn("Limit", "limit", "money", "Most of the program's credit usable in it"),
    ResultColumn("Used", "used", "money", "Credit applied against the liability"),
    ResultColumn("Refunded", "refunded", "money", "Excess refunded as an overpayment (BEIP)"),
    ResultColumn("Expired", "expired", "money", "Credit lost at the end of its carryforward"),
    ResultColumn("Carried out", "carried_out", "money", "Unused credit after the period"),
    ResultColumn("Tax after", "tax_after", "money", "Liability left after it and those before"),
    ResultColumn("Return line", "line", "text", "Where the credit goes on the return"),
)


calculation(
    "NJ_PORTFOLIO",
    cite="N.J.A.C. 18:7-3.17",
    description=(
        "Awards (BEIP, BRRAG, ERTC, UTH, Grow NJ, Emerge) of one or more entities against one"
        " CBT liability a period, in the order of N.J.A.C. 18:7-3.17, each within its limits and"
        " carryforward; spills Period..Return line."
    ),
    example=(
        [
            ["entity", "program", "period", "amount"],
            ["A", "beip", 1, 30000],
            ["A", "ertc", 1, 40000],
            ["B", "grow_nj", 1, 100000],
        ],
        dt.date(2024, 12, 31),
        [100000, 60000],
        [2000, 2000],
    ),
    optional=(
        "minimum_taxes",
        "floors",
        "uth_carryforward",
        "ertc_carryforward",
        "brrag_periods",
        "emerge_place",
    ),
    columns=PORTFOLIO_COLUMNS,
    awards=grid(
        "The awards, a row each: entity, program (beip, brrag, ertc, uth, grow_nj, emerge),"
        " period (the number of the period the credit is allowed in), amount; a header row"
        " is skipped"
    ),
    first_period_end=a_date("Last day of the first privilege period"),
    liabilities=each("The CBT liability before these credits, one a period"),
    minimum_taxes=each(
        "The statutory minimum tax, one a period (N.J.S.A. 54:10A-5(e)): the ERTC stops there;"
        " blank = 0"
    ),
    floors=single(
        'Other programs that stop at the minimum too, e.g. "beip, grow_nj" (not found:'
        " open question 17); blank = none"
    ),
    uth_carryforward=single(
        "Periods an Urban Transit Hub credit is carried forward (not found: needed with a UTH"
        " award; 0 = none)"
    ),
    ertc_carryforward=single(
        "Periods an ERTC credit is carried forward; blank = no limit (b.(2)); 5 = Form 313"
    ),
    brrag_periods=switch(
        '"statute" (only the period set, 34:1B-115.3 a.) or "rule" (and the next, 19:31N-1.1(b));'
        ' blank = "statute"',
        ("statute", "rule"),
    ),
    emerge_place=single(
        "Emerge's place in the order (not in N.J.A.C. 18:7-3.17); blank = 19, after Grow NJ"
    ),
)


@FUNCTIONS.adapter(show=lambda found: result_table(PORTFOLIO_COLUMNS, found.rows))
def NJ_PORTFOLIO(
    awards: Cell,
    first_period_end: Cell,
    liabilities: Cell,
    minimum_taxes: Cell = None,
    floors: Cell = None,
    uth_carryforward: Cell = None,
    ertc_carryforward: Cell = None,
    brrag_periods: Cell = None,
    emerge_place: Cell = None,
) -> Any:
    from nj_incentives.programs.portfolio import rules

    return rules.portfolio(
        as_rows(awards),
        first_period_end,
        liabilities,
        **given(
            minimum_taxes=minimum_taxes,
            floors=floors,
            uth_carryforward=uth_carryforward,
            ertc_carryforward=ertc_carryforward,
            brrag_periods=brrag_periods,
            emerge_place=emerge_place,
        ),
    )
