"""The Corporation Business Tax minimum's dated figures: N.J.S.A. 54:10A-5(e) and
N.J.A.C. 18:7-3.4(b) (model: :mod:`nj_incentives.core.parameters`)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from nj_incentives.core.parameters import (
    Parameter,
    Selector,
    Version,
    declare_act,
    declare_figure,
    declare_source,
    declare_statute,
)

declare_statute(
    "cbt",
    "Corporation Business Tax statutory minimum",
    "N.J.S.A. 54:10A-5(e)",
    not_modelled=(
        "the minimum tax for privilege periods beginning before 2012",
        "that the $5,000,000 group-payroll minimum holds for S corporations (a secondary"
        " source: uncertain)",
    ),
)
BASE_CBT = declare_act(
    "cbt",
    "the table for periods beginning in 2012 (S corporations: P.L.2011, c.84)",
    dt.date(2012, 1, 1),
    source="shared/legal-notes.md section 3; N.J.A.C. 18:7-3.4(b)",
    note=(
        "the table for privilege periods beginning in 2012 and after; the acts' approval"
        " dates are not in the notes: modelled from January 1, 2012"
    ),
)

#: (label, receipts from, receipts below or None, C corporation, S corporation)
MINIMUM_TAX_TABLE: Parameter[tuple[tuple[str, Decimal, Decimal | None, Decimal, Decimal], ...]] = (
    declare_figure(
        "cbt.minimum_tax_table",
        "cbt",
        "Statutory minimum tax by New Jersey gross receipts",
        "N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b)",
        Selector.TAX_PERIOD,
        "table",
        Version(
            (
                ("less than $100,000", Decimal(0), Decimal(100_000), Decimal(500), Decimal(375)),
                (
                    "$100,000 to less than $250,000",
                    Decimal(100_000),
                    Decimal(250_000),
                    Decimal(750),
                    Decimal("562.50"),
                ),
                (
                    "$250,000 to less than $500,000",
                    Decimal(250_000),
                    Decimal(500_000),
                    Decimal(1_000),
                    Decimal(750),
                ),
                (
                    "$500,000 to less than $1,000,000",
                    Decimal(500_000),
                    Decimal(1_000_000),
                    Decimal(1_500),
                    Decimal(1_125),
                ),
                ("$1,000,000 or more", Decimal(1_000_000), None, Decimal(2_000), Decimal(1_500)),
            ),
            BASE_CBT,
        ),
    )
)
TABLE_FIRST_PERIOD_YEAR: Parameter[int] = declare_figure(
    "cbt.table_first_period_year",
    "cbt",
    "The table covers privilege periods beginning from",
    "N.J.S.A. 54:10A-5(e)",
    Selector.FIXED,
    "year",
    Version(2012, BASE_CBT),
)
GROUP_PAYROLL_THRESHOLD: Parameter[Decimal] = declare_figure(
    "cbt.group_payroll_threshold",
    "cbt",
    "Group payroll from which the group minimum applies",
    "N.J.A.C. 18:7-3.4(b)1",
    Selector.TAX_PERIOD,
    "money",
    Version(Decimal(5_000_000), BASE_CBT),
    quote="total payroll of $5,000,000 or more",
)
GROUP_MINIMUM_TAX: Parameter[Decimal] = declare_figure(
    "cbt.group_minimum_tax",
    "cbt",
    "Minimum tax of a member of a large group",
    "N.J.A.C. 18:7-3.4(b)1",
    Selector.TAX_PERIOD,
    "money",
    Version(Decimal(2_000), BASE_CBT),
)
#: An instruction, not an act: the group-payroll test of a privilege period shorter than
#: 12 months (shared/legal-notes.md section 5). Its per-month figure is the default
#: reading; ``short_period_test="prorated"`` reads the regulation's figure prorated instead
#: (docs/interpretations.md, "Group payroll rule for a period of less than 12 months").
FORM_313_2013_CBT = declare_source(
    "cbt",
    "NJ Form 313 instructions (2013)",
    dt.date(2013, 1, 1),
    source="NJ Form 313 instructions (2013), shared/legal-notes.md section 5",
    note="the group-payroll test of a privilege period of less than 12 months",
)
FULL_PERIOD_MONTHS: Parameter[int] = declare_figure(
    "cbt.full_period_months",
    "cbt",
    "Months of a full privilege period (a shorter one prorates the group-payroll test)",
    "NJ Form 313 instructions (2013)",
    Selector.TAX_PERIOD,
    "count",
    Version(12, FORM_313_2013_CBT),
    quote="Tax periods of less than 12 months",
)
GROUP_PAYROLL_PER_MONTH: Parameter[Decimal] = declare_figure(
    "cbt.group_payroll_per_month",
    "cbt",
    "Group payroll a month that a period of less than 12 months must exceed for the group minimum",
    "NJ Form 313 instructions (2013); N.J.A.C. 18:7-3.4(b)1",
    Selector.TAX_PERIOD,
    "money",
    Version(Decimal(416_667), FORM_313_2013_CBT),
    quote="subject to the higher minimum tax if the prorated total payroll exceeds $416,667"
    " per month",
)

#: N.J.A.C. 18:7-2.3(b): "any fiscal year which ends within seven days from the end of any
#: calendar month shall be deemed to have ended on the last day of that calendar month"
#: (text as published through N.J.R. Vol. 56, No. 18, September 2024).
DEEMED_MONTH_END_DAYS: Parameter[int] = declare_figure(
    "cbt.deemed_month_end_days",
    "cbt",
    "A 52-53-week year ending within this many days of a month end is deemed to end on it",
    "N.J.A.C. 18:7-2.3(b)",
    Selector.TAX_PERIOD,
    "days",
    Version(7, BASE_CBT),
    quote="ends within seven days from the end of any calendar month",
)

#: N.J.A.C. 18:7-3.17 (tax credits): the order in which the CBT credits are applied; the
#: notes read it on a mirror without its adoption date (shared/legal-notes.md 6.2.5 [S45]),
#: so it is a source dated by that reading, not an act of the CBT.
N_J_A_C_18_7_3_17 = declare_source(
    "cbt",
    "N.J.A.C. 18:7-3.17",
    dt.date(2026, 12, 4),
    source=(
        "N.J.A.C. 18:7-3.17(a), (b), casetext mirror (shared/legal-notes.md 6.2.5 [S45]; 2"
        " for the ERTC's place)"
    ),
    note="the rule's adoption date is not in the notes: dated by the research that read it",
)


def _place(key: str, title: str, place: int) -> Parameter[int]:
    return declare_figure(
        f"cbt.order_{key}",
        "cbt",
        f"Place of the {title} in the order of CBT credits",
        "N.J.A.C. 18:7-3.17(a)",
        Selector.FIXED,
        "count",
        Version(place, N_J_A_C_18_7_3_17),
    )


ORDER_BEIP = _place("beip", "BEIP credit", 1)
ORDER_BRRAG = _place("brrag", "BRRAG credit", 8)
ORDER_ERTC = _place("ertc", "Economic Recovery Tax Credit", 14)
ORDER_UTH = _place("uth", "Urban Transit Hub credit", 16)
ORDER_GROW_NJ = _place("grow_nj", "Grow NJ credit", 18)

#: The Corporate Transit Fee, P.L.2024, c.20 (shared/legal-notes.md section 7): a fee
#: beside the CBT that no credit reduces. Its sources in the notes are the Division of
#: Taxation's page and a practitioner's alert, both secondary: a documented assumption
#: (docs/interpretations.md, "The Corporate Transit Fee"). The templates take the fee as an
#: input (its base, allocated taxable net income, is not one) and check the privilege
#: period it is entered for against these dates.
P_L_2024_C_20 = declare_source(
    "cbt",
    "P.L.2024, c.20 (Corporate Transit Fee)",
    dt.date(2024, 1, 1),
    source=(
        "shared/legal-notes.md section 7 (secondary: Division of Taxation, nj.gov/treasury/"
        "taxation/cbt/corporatetransitfee.shtml; Sax LLP alert)"
    ),
    note=(
        "the act's text and approval date are not in the notes: dated by the first privilege"
        " period it applies to; a repeal bill exists, its status not found"
    ),
)
TRANSIT_FEE_RATE: Parameter[Decimal] = declare_figure(
    "cbt.transit_fee_rate",
    "cbt",
    "Corporate Transit Fee: rate on allocated taxable net income over the threshold",
    "P.L.2024, c.20",
    Selector.FIXED,
    "fraction",
    Version(Decimal("0.025"), P_L_2024_C_20),
    quote="2.5% of allocated taxable net income over $10 million",
)
TRANSIT_FEE_THRESHOLD: Parameter[Decimal] = declare_figure(
    "cbt.transit_fee_threshold",
    "cbt",
    "Corporate Transit Fee: allocated taxable net income above which the fee is due",
    "P.L.2024, c.20",
    Selector.FIXED,
    "money",
    Version(Decimal(10_000_000), P_L_2024_C_20),
)
TRANSIT_FEE_FIRST_PERIOD_BEGIN: Parameter[dt.date] = declare_figure(
    "cbt.transit_fee_first_period_begin",
    "cbt",
    "Corporate Transit Fee: privilege periods beginning on or after",
    "P.L.2024, c.20",
    Selector.FIXED,
    "date",
    Version(dt.date(2024, 1, 1), P_L_2024_C_20),
)
TRANSIT_FEE_LAST_PERIOD_BEGIN: Parameter[dt.date] = declare_figure(
    "cbt.transit_fee_last_period_begin",
    "cbt",
    "Corporate Transit Fee: privilege periods beginning on or before",
    "P.L.2024, c.20",
    Selector.FIXED,
    "date",
    Version(dt.date(2028, 12, 31), P_L_2024_C_20),
)
#: Who the fee is not due from, as the notes give it (the Division of Taxation's page,
#: secondary): the templates check a fee entered against the taxpayer's kind.
TRANSIT_FEE_NOT_DUE_FROM: Parameter[tuple[str, ...]] = declare_figure(
    "cbt.transit_fee_not_due_from",
    "cbt",
    "Corporate Transit Fee: taxpayers it is not due from",
    "P.L.2024, c.20",
    Selector.FIXED,
    "kinds",
    Version(("S corporation", "public utility"), P_L_2024_C_20),
    quote="not for S corporations or public utilities",
)
CITE_TRANSIT_FEE = "P.L.2024, c.20"
