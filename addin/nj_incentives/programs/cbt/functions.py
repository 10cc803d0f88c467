"""The Corporation Business Tax's NJ_* functions: the statutory minimum and the tax-year
numbering of Form CBT-100 (declarations: :mod:`nj_incentives.core.declarations`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from nj_incentives.core.cells import (
    Cell,
    given,
    money,
)
from nj_incentives.core.declarations import Catalog, ExplainTopic, a_date, single, switch
from nj_incentives.programs.cbt import figures as CBT

__all__ = ["CBT_FORM", "FUNCTIONS", "NUMBERING", "TOPICS", "YEAR_END_MONTH"]

#: Every NJ_* function of the program, in the order the catalog shows them.
FUNCTIONS = Catalog()
calculation = FUNCTIONS.calculation

#: What the tax-year functions cite.
CBT_FORM = "Form CBT-100"

#: How a return's tax year is numbered (the tax-year functions, and BEIP's conversion).
NUMBERING = switch(
    '"form" (the Division numbers a return by its form year: a period ending July-December'
    ' of N or January-June of N+1 is tax year N) or "calendar"; blank = "form"',
    ("form", "calendar"),
)
#: The month a filer's privilege period ends.
YEAR_END_MONTH = single(
    "Month the filer's privilege period ends, 1-12 (6 = a June-30 filer); blank = 12"
)


calculation(
    "NJ_TAX_YEAR",
    cite=CBT_FORM,
    description=(
        "Tax year N of the CBT return for a period ending on period_end, deemed to a month end"
        " within 7 days (N.J.A.C. 18:7-2.3(b): 2023-07-01 is 2023-06-30): ending July-December"
        " of N or January-June of N+1 (Form CBT-100's year); or the calendar year."
    ),
    example=(dt.date(2023, 6, 30),),
    optional=("numbering",),
    period_end=a_date("Last day of the privilege period (Excel date)"),
    numbering=NUMBERING,
)


calculation(
    "NJ_TAX_PERIOD_END",
    cite=CBT_FORM,
    description=(
        "Last day of the privilege period numbered tax_year for a filer whose year ends in "
        "year_end_month: tax year 2022 of a June-30 filer ends 2023-06-30 (Form CBT-100 "
        "numbering)."
    ),
    example=(2022, 6),
    optional=("year_end_month", "numbering"),
    tax_year=single("Tax year of the return (e.g. 2022)"),
    year_end_month=YEAR_END_MONTH,
    numbering=NUMBERING,
)


#: The months of a full privilege period (a shorter one tests the group payroll by month).
_FULL = CBT.FULL_PERIOD_MONTHS.brief()


calculation(
    "NJ_CBT_MIN_TAX",
    cite="N.J.S.A. 54:10A-5(e)",
    description=(
        "Corporation Business Tax statutory minimum by New Jersey gross receipts, for periods "
        "beginning in 2012 and after (N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b))."
    ),
    example=(300000,),
    optional=(
        "s_corporation",
        "group_payroll",
        "group_rule_for_s_corporations",
        "period_start_year",
        "months",
        "short_period_test",
    ),
    nj_gross_receipts=single("New Jersey gross receipts for the privilege period, dollars"),
    s_corporation=single("TRUE for a New Jersey S corporation; blank = FALSE"),
    group_payroll=single(
        "Total payroll of the affiliated or controlled group for the privilege period, dollars;"
        " blank = 0"
    ),
    group_rule_for_s_corporations=single(
        f"TRUE if the {CBT.GROUP_PAYROLL_THRESHOLD.brief()} group payroll rule also binds S"
        " corporations; blank = TRUE"
    ),
    period_start_year=single(
        "Year the privilege period begins (the table is for 2012 and after); blank = assumed"
    ),
    months=single(
        f"Months of the privilege period, 1 to {_FULL}; fewer test the group payroll by month;"
        f" blank = {_FULL}"
    ),
    short_period_test=switch(
        f'"per_month" (payroll above {CBT.GROUP_PAYROLL_PER_MONTH.brief()} a month, Form 313'
        f' instructions) or "prorated" ({CBT.GROUP_PAYROLL_THRESHOLD.brief()} x months /'
        f' {_FULL}); blank = "per_month"',
        ("per_month", "prorated"),
    ),
)


# =========================================================================== adapters
# How each function runs: its cells to the core's result (the rules imported on the first
# call, not at import) and that result to cells.


@FUNCTIONS.adapter(show=lambda numbered: numbered.year)
def NJ_TAX_YEAR(period_end: Cell, numbering: Cell = None) -> Any:
    from nj_incentives.programs.cbt import rules as cbt

    return cbt.tax_year(period_end, **given(numbering=numbering))


@FUNCTIONS.adapter(show=lambda day: day)
def NJ_TAX_PERIOD_END(tax_year: Cell, year_end_month: Cell = None, numbering: Cell = None) -> Any:
    from nj_incentives.programs.cbt import rules as cbt

    return cbt.period_end_for(tax_year, **given(month=year_end_month, numbering=numbering))


@FUNCTIONS.adapter(show=lambda minimum: money(minimum.amount))
def NJ_CBT_MIN_TAX(
    nj_gross_receipts: Cell,
    s_corporation: Cell = None,
    group_payroll: Cell = None,
    group_rule_for_s_corporations: Cell = None,
    period_start_year: Cell = None,
    months: Cell = None,
    short_period_test: Cell = None,
) -> Any:
    from nj_incentives.programs.cbt import rules as cbt

    return cbt.minimum_tax(
        nj_gross_receipts,
        **given(
            s_corporation=s_corporation,
            group_payroll=group_payroll,
            group_rule_for_s_corporations=group_rule_for_s_corporations,
            period_start_year=period_start_year,
            months=months,
            short_period_test=short_period_test,
        ),
    )


#: The program's ``nj-incentives explain`` topics.
TOPICS = (
    ExplainTopic(
        "min-tax",
        "NJ_CBT_MIN_TAX",
        "nj_incentives.programs.cbt.rules:minimum_tax",
        positional=("nj_gross_receipts",),
    ),
)
