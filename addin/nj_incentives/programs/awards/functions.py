"""The NJ_* functions of an award's obligations: its compliance calendar and its
recapture exposure (issue 33, items 2-3). Declarations: :mod:`nj_incentives.core.declarations`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from nj_incentives.core.cells import Cell, CellResult, given
from nj_incentives.core.declarations import (
    Catalog,
    ResultColumn,
    a_date,
    each,
    each_date,
    result_table,
    single,
    switch,
)

__all__ = ["CALENDAR_COLUMNS", "EXPOSURE_COLUMNS", "FUNCTIONS"]

FUNCTIONS = Catalog()
calculation = FUNCTIONS.calculation

#: What the calendar and the exposure cite.
_CITE = "N.J.S.A. 34:1B-130, -131; 34:1B-120; N.J.A.C. 19:31Q-1.11, -1.15; 19:31H-1.12"

CALENDAR_COLUMNS = (
    ResultColumn("Due", "due", "date", "The day it is due (a continuing test: its year's end)"),
    ResultColumn("Kind", "kind", "text", "report, employment, commitment or payment"),
    ResultColumn("Obligation", "obligation", "text", "What the award requires"),
    ResultColumn("Year", "year", "value", "The grant year or tax year it concerns"),
    ResultColumn("Consequence", "consequence", "text", "What the rule attaches to a failure"),
    ResultColumn("Citation", "citation", "text", "The rule"),
    ResultColumn("Note", "note", "text", "A weekend due date, a secondary source, no due date"),
    ResultColumn(
        "Status",
        "status",
        "text",
        "past due, filed, filed late, paid, open, ended (blank: no as_of, nothing done)",
    ),
)
EXPOSURE_COLUMNS = (
    ResultColumn("Year", "year", "int", "Year of the credit or grant"),
    ResultColumn("Credit", "credit", "money", "Credit (BEIP: grant) taken for the year"),
    ResultColumn("Cumulative", "cumulative", "money", "Taken so far"),
    ResultColumn(
        "Report forfeiture", "report_forfeiture", "money", "Forfeited if the year's report fails"
    ),
    ResultColumn(
        "Employment reduction",
        "employment_reduction",
        "money",
        "BRRAG's proportional reduction, UTH's 20% (where jobs are given)",
    ),
    ResultColumn(
        "At risk",
        "at_risk",
        "money",
        "If the commitment fails: taken x share + interest, penalties",
    ),
)

_PROGRAM = switch('"beip", "brrag", "uth" or "grow_nj"', ("beip", "brrag", "uth", "grow_nj"))

calculation(
    "NJ_AWARD_CALENDAR",
    cite=_CITE,
    description=(
        "An award's dated obligations by date (reports, employment tests, the commitment, "
        f"c.40's extension and payments): Due, Kind, Obligation, Year, ... ({_CITE})."
    ),
    columns=CALENDAR_COLUMNS,
    example=("grow_nj", dt.date(2019, 12, 31), 10),
    optional=(
        "commitment_end",
        "c40_waiver",
        "base_employment",
        "statewide_base",
        "as_of",
        "secondary",
        "filed",
        "payments_made",
    ),
    program=_PROGRAM,
    first_period_end=a_date("Last day of the first grant year or credit tax period"),
    years=single("Years of the term or eligibility period, 1 to 20"),
    commitment_end=a_date(
        "Last day of the commitment (the agreement's); blank for BEIP and Grow NJ: 1.5 x the"
        " years from the first period's first day; required for BRRAG and UTH"
    ),
    c40_waiver=single("TRUE if the remote-work waiver of P.L.2024, c.40 is kept"),
    base_employment=single("BEIP: the Base Employment Number (the 80% test shows its floor)"),
    statewide_base=single("Grow NJ, UTH: Statewide full-time employees before approval"),
    as_of=a_date(
        "A report or payment due before this day and not done is past due (a test: ended);"
        " blank = no status"
    ),
    secondary=switch(
        'UTH\'s 120-day report (secondary): "assumed" (shown) or "omit"', ("assumed", "omit")
    ),
    filed=each_date(
        "The day each period's report (BRRAG: certificate) was filed, one cell a period;"
        " blank = not filed"
    ),
    payments_made=single("TRUE if P.L.2024, c.40's payments have been made"),
)

calculation(
    "NJ_RECAPTURE_EXPOSURE",
    cite=_CITE,
    description=(
        "An award's amount at risk by year (the year's report, employment, the commitment "
        f"x the Authority's recapture share, an input) ({_CITE})."
    ),
    columns=EXPOSURE_COLUMNS,
    example=("grow_nj", 2020, [400000, 400000, 400000], 1),
    optional=("recapture_share", "interest", "penalties", "agreed_jobs", "actual_jobs"),
    program=_PROGRAM,
    first_year=single("Year of the first credit (grant) taken"),
    credits=each("Credit (BEIP: grant) taken each year, dollars: one cell per year"),
    recapture_share=single(
        "Share the Authority would recapture, 0 to 1 (its discretion: an input); blank = 1"
    ),
    interest=single("Interest the Authority would add, dollars (Grow NJ: deficiency rate)"),
    penalties=single("Penalties and costs, dollars"),
    agreed_jobs=single("BRRAG: retained jobs of the project agreement"),
    actual_jobs=each("BRRAG: retained jobs each year; UTH: new full-time positions each year"),
)


def _calendar_table(calendar: Any) -> list[list[CellResult]]:
    return result_table(CALENDAR_COLUMNS, calendar.rows)


def _exposure_table(exposure: Any) -> list[list[CellResult]]:
    return result_table(EXPOSURE_COLUMNS, exposure.rows)


@FUNCTIONS.adapter(show=_calendar_table)
def NJ_AWARD_CALENDAR(
    program: Cell,
    first_period_end: Cell,
    years: Cell,
    commitment_end: Cell = None,
    c40_waiver: Cell = None,
    base_employment: Cell = None,
    statewide_base: Cell = None,
    as_of: Cell = None,
    secondary: Cell = None,
    filed: Cell = None,
    payments_made: Cell = None,
) -> Any:
    from nj_incentives.programs.awards import rules as awards

    return awards.award_calendar(
        program,
        first_period_end,
        years,
        **given(
            commitment_end=commitment_end,
            c40_waiver=c40_waiver,
            base_employment=base_employment,
            statewide_base=statewide_base,
            as_of=as_of,
            secondary=secondary,
            filed=filed,
            payments_made=payments_made,
        ),
    )


@FUNCTIONS.adapter(show=_exposure_table)
def NJ_RECAPTURE_EXPOSURE(
    program: Cell,
    first_year: Cell,
    credits: Cell,
    recapture_share: Cell = None,
    interest: Cell = None,
    penalties: Cell = None,
    agreed_jobs: Cell = None,
    actual_jobs: Cell = None,
) -> Any:
    from nj_incentives.programs.awards import rules as awards

    values: Sequence[Any] = credits if isinstance(credits, list) else [credits]
    return awards.recapture_exposure(
        program,
        first_year,
        values,
        **given(
            recapture_share=recapture_share,
            interest=interest,
            penalties=penalties,
            agreed_jobs=agreed_jobs,
            actual_jobs=actual_jobs,
        ),
    )
