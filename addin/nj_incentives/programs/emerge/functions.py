"""Emerge's NJ_* functions: the credit schedule with transfers and surrenders, and the
surrender price (declarations: :mod:`nj_incentives.core.declarations`)."""

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
)
from nj_incentives.core.ledger_cells import event_cells, ledger_columns

__all__ = ["FUNCTIONS", "SCHEDULE_COLUMNS", "TOPICS"]

FUNCTIONS = Catalog()
calculation = FUNCTIONS.calculation

SCHEDULE_COLUMNS: tuple[ResultColumn, ...] = ledger_columns()


calculation(
    "NJ_EMERGE_SCHEDULE",
    cite="N.J.A.C. 19:31U-1.11",
    description=(
        "Emerge credit by period: award / eligibility years, carryforward 7 periods, transfers"
        " (3 years, at least $25,000 for 85%) and surrenders at 90%; spills Period..Carried out"
        " (N.J.A.C. 19:31U-1.11; N.J.S.A. 34:1B-346)."
    ),
    example=(700000, dt.date(2022, 12, 31), [60000] * 10, 7),
    optional=("events",),
    columns=SCHEDULE_COLUMNS,
    award=single("Total credit approved (the approval letter), dollars"),
    first_period_end=a_date("Last day of the first privilege period the credit is allowed in"),
    liabilities=each(
        "The tax the credit may be used against, one a period (after the credits applied before"
        " it); the schedule has as many periods"
    ),
    eligibility_years=single("Years of the eligibility period in the approval"),
    events=grid(
        "Transfers and surrenders, a row each: kind (transfer, sale), date, period (whose"
        " credit), amount (sale: blank = all left), price (sale: blank = 90%), issued (needed"
        " for a sale); a header row is skipped; blank = none"
    ),
)

calculation(
    "NJ_EMERGE_SURRENDER",
    cite="N.J.A.C. 18:34-1.7(b)",
    description=(
        "What the State pays for an Emerge credit presented at least 2 years after issuance:"
        " 90% of it, rounded down to the cent; 0 earlier (N.J.A.C. 18:34-1.7(b))."
    ),
    example=(100000, dt.date(2024, 3, 15), dt.date(2026, 4, 1)),
    credit=single("The credit presented, dollars (a credit is surrendered whole)"),
    issued=a_date("Day the credit was issued (its certificate)"),
    presented=a_date("Day the credit is presented to the State"),
)


@FUNCTIONS.adapter(show=lambda ledger: result_table(SCHEDULE_COLUMNS, ledger.rows))
def NJ_EMERGE_SCHEDULE(
    award: Cell,
    first_period_end: Cell,
    liabilities: Cell,
    eligibility_years: Cell,
    events: Cell = None,
) -> Any:
    from nj_incentives.programs.emerge import rules

    return rules.credit_schedule(
        award,
        first_period_end,
        liabilities,
        eligibility_years,
        **given(events=event_cells(events)),
    )


@FUNCTIONS.adapter(show=lambda found: money(found.price))
def NJ_EMERGE_SURRENDER(credit: Cell, issued: Cell, presented: Cell) -> Any:
    from nj_incentives.programs.emerge import rules

    return rules.surrender(credit, issued, presented)


#: The program's ``nj-incentives explain`` topics.
TOPICS = (
    ExplainTopic(
        "emerge-surrender",
        "NJ_EMERGE_SURRENDER",
        "nj_incentives.programs.emerge.rules:surrender",
        positional=("credit", "issued", "presented"),
    ),
)
