"""Grow NJ's NJ_* functions: the annual credit, the credit schedule with transfers and
sales to the State, and the State's purchase price (declarations:
:mod:`nj_incentives.core.declarations`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from nj_incentives.core.cells import Cell, given, money
from nj_incentives.core.declarations import (
    Catalog,
    ExplainTopic,
    ResultColumn,
    a_date,
    each,
    grid,
    result_table,
    single,
    switch,
)
from nj_incentives.core.ledger_cells import event_cells, ledger_columns
from nj_incentives.programs.grow_nj import figures as G

__all__ = ["FUNCTIONS", "SCHEDULE_COLUMNS", "TOPICS"]

FUNCTIONS = Catalog()
calculation = FUNCTIONS.calculation

SCHEDULE_COLUMNS: tuple[ResultColumn, ...] = ledger_columns()

_EVENTS = grid(
    "Transfers and sales, a row each: kind (transfer, sale), date, period (whose credit),"
    " amount (sale: blank = all left), price (sale: blank = the most), issued; a header row"
    " is skipped; blank = none"
)
_YEARS = single(
    f"Years of the eligibility period in the approval, at most {G.ELIGIBILITY_YEARS.brief()};"
    " blank = the longest"
)


calculation(
    "NJ_GROW_NJ_ANNUAL_CREDIT",
    cite="N.J.A.C. 19:31Q-1.9(a)",
    description=(
        "Grow NJ credit allowed each period: the approved award / the years of the eligibility"
        " period, fractions of a cent rounded down (N.J.A.C. 19:31Q-1.9(a))."
    ),
    example=(1000000, 3),
    optional=("eligibility_years",),
    award=single("Total credit approved (the approval letter), dollars"),
    eligibility_years=_YEARS,
)

calculation(
    "NJ_GROW_NJ_SCHEDULE",
    cite="N.J.S.A. 34:1B-247",
    description=(
        "Grow NJ credit by period: annual credit, carryforward 20 periods, transfers (at least"
        " $25,000 for 75%) and sales to the State; spills "
        "Period..Carried out (N.J.S.A. 34:1B-247, -248; N.J.A.C. 18:34-1.7(a))."
    ),
    example=(1000000, dt.date(2020, 12, 31), [40000] * 12, 10),
    optional=("eligibility_years", "events", "transfer_window", "boundary"),
    columns=SCHEDULE_COLUMNS,
    award=single("Total credit approved (the approval letter), dollars"),
    first_period_end=a_date("Last day of the first privilege period the credit is allowed in"),
    liabilities=each(
        "The tax the credit may be used against, one a period (after the credits applied before"
        " it, N.J.A.C. 18:7-3.17); the schedule has as many periods"
    ),
    eligibility_years=_YEARS,
    events=_EVENTS,
    transfer_window=switch(
        '"statute" (34:1B-247: any time the credit may be used) or "rule" (19:31Q-1.9: within'
        ' 3 years of issuance); blank = "statute"',
        ("statute", "rule"),
    ),
    boundary=switch(
        '"lower" or "higher": the State\'s share for a credit presented exactly 1, 2 or 3 years'
        ' before it expires (18:34-1.7(a) names no bracket); blank = "lower"',
        ("lower", "higher"),
    ),
)

calculation(
    "NJ_GROW_NJ_STATE_PURCHASE",
    cite="N.J.A.C. 18:34-1.7(a)",
    description=(
        "Most the Director may pay for a Grow NJ credit: 20%, 40%, 60% or 75% by the years"
        " before it expires, none within 90 days; as a 1x2 row: share, price (N.J.A.C."
        " 18:34-1.7(a))."
    ),
    example=(100000, dt.date(2040, 12, 31), dt.date(2036, 7, 15)),
    optional=("boundary",),
    credit=single("The credit presented, dollars (a credit is sold whole)"),
    expires=a_date("Last day of the last period the credit may be used in"),
    presented=a_date("Day the credit is presented to the Director"),
    boundary=switch(
        '"lower" or "higher" (exactly 1, 2 or 3 years before); blank = "lower"', ("lower", "higher")
    ),
)


@FUNCTIONS.adapter(show=lambda credit: money(credit.amount))
def NJ_GROW_NJ_ANNUAL_CREDIT(award: Cell, eligibility_years: Cell = None) -> Any:
    from nj_incentives.programs.grow_nj import rules

    return rules.annual_credit(award, eligibility_years)


@FUNCTIONS.adapter(show=lambda ledger: result_table(SCHEDULE_COLUMNS, ledger.rows))
def NJ_GROW_NJ_SCHEDULE(
    award: Cell,
    first_period_end: Cell,
    liabilities: Cell,
    eligibility_years: Cell = None,
    events: Cell = None,
    transfer_window: Cell = None,
    boundary: Cell = None,
) -> Any:
    from nj_incentives.programs.grow_nj import rules

    return rules.credit_schedule(
        award,
        first_period_end,
        liabilities,
        **given(
            eligibility_years=eligibility_years,
            events=event_cells(events),
            transfer_window=transfer_window,
            boundary=boundary,
        ),
    )


@FUNCTIONS.adapter(
    show=lambda found: [[float(found.share), money(found.maximum_price) if found.eligible else 0.0]]
)
def NJ_GROW_NJ_STATE_PURCHASE(
    credit: Cell, expires: Cell, presented: Cell, boundary: Cell = None
) -> Any:
    from nj_incentives.programs.grow_nj import rules

    return rules.state_purchase(credit, expires, presented, **given(boundary=boundary))


#: The program's ``nj-incentives explain`` topics.
TOPICS = (
    ExplainTopic(
        "grow-nj-annual",
        "NJ_GROW_NJ_ANNUAL_CREDIT",
        "nj_incentives.programs.grow_nj.rules:annual_credit",
        positional=("award",),
    ),
    ExplainTopic(
        "grow-nj-purchase",
        "NJ_GROW_NJ_STATE_PURCHASE",
        "nj_incentives.programs.grow_nj.rules:state_purchase",
        positional=("credit", "expires", "presented"),
    ),
)
