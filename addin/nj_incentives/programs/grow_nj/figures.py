"""Grow NJ's dated figures: N.J.S.A. 34:1B-242 to -250 and N.J.A.C. 19:31Q-1
(shared/legal-notes.md sections 6.2.2 and 6.3; model: :mod:`nj_incentives.core.parameters`).

Sources are marked as in the notes: a statute's or rule's text (mirrors) is primary; a
figure the notes mark secondary is a documented assumption (docs/interpretations.md).
An amount the Authority decides (the award, a bonus) is an input, never a figure here.
"""

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
from nj_incentives.programs.remote_work.figures import SubsectionH, declare_subsection_h

declare_statute(
    "grow_nj",
    "Grow New Jersey Assistance Program",
    "N.J.S.A. 34:1B-242 to -250",
    not_modelled=(
        "the subsection letter of the remote-work text in N.J.S.A. 34:1B-247 (not found:"
        " cited without a letter)",
        "base and bonus amounts per job other than $5,000 (N.J.A.C. 19:31Q-1.8(b); secondary"
        " ranges only): the approved award is an input",
        "the facility-level forfeiture threshold of N.J.A.C. 19:31Q-1.15(b) (excerpt cut"
        " off): forfeiture for a period is an input",
        "the COVID suspension of the 2020-2024 tax periods (34:1B-247): an input",
    ),
)

#: P.L.2011, c.149 (signed January 5, 2012): the Grow NJ program as enacted.
P_L_2011_C_149 = declare_act(
    "grow_nj",
    "P.L.2011, c.149",
    dt.date(2012, 1, 5),
    source=(
        "Division of Taxation, Notice: Grow New Jersey Assistance Program (P.L.2011, c.149);"
        " N.J.S.A. 34:1B-245 (2013 edition, L.2011, c.149, s.4), justia (shared/legal-notes.md"
        " 6.3 [S46][S15])"
    ),
)
#: P.L.2013, c.161 (Economic Opportunity Act of 2013), effective September 18, 2013.
P_L_2013_C_161 = declare_act(
    "grow_nj",
    "P.L.2013, c.161",
    dt.date(2013, 9, 18),
    source=(
        "N.J.S.A. 34:1B-209.1 history (c.161, eff. 9/18/2013); N.J.A.C. 19:31Q-1.3, 19:31Q-1.9,"
        " 19:31Q-1.11, 19:31Q-1.15 (casetext mirrors; shared/legal-notes.md 6.2.2, 6.3)"
    ),
)
#: P.L.2014, c.63 (effective October 24, 2014): transfer certificates (34:1B-248).
P_L_2014_C_63 = declare_act(
    "grow_nj",
    "P.L.2014, c.63",
    dt.date(2014, 10, 24),
    source="N.J.S.A. 34:1B-248 as amended by P.L.2014, c.63 (onecle mirror [S31])",
)

_G = "N.J.S.A. 34:1B-247"

ELIGIBILITY_YEARS: Parameter[int] = declare_figure(
    "grow_nj.eligibility_years",
    "grow_nj",
    "Longest eligibility period (years)",
    "N.J.S.A. 34:1B-244 a.",
    Selector.APPROVAL_DATE,
    "count",
    Version(10, P_L_2011_C_149),
)
CARRYFORWARD_PERIODS: Parameter[int] = declare_figure(
    "grow_nj.carryforward_periods",
    "grow_nj",
    "Tax periods a credit may be carried forward",
    f"{_G}; N.J.A.C. 19:31Q-1.9(c)",
    Selector.APPROVAL_DATE,
    "count",
    Version(20, P_L_2011_C_149),
)
COMMITMENT_MULTIPLE: Parameter[Decimal] = declare_figure(
    "grow_nj.commitment_multiple",
    "grow_nj",
    "Commitment period, times the term of the tax credits",
    "N.J.S.A. 34:1B-245 d. (P.L.2011, c.149); N.J.A.C. 19:31Q-1.10(b)3",
    Selector.APPROVAL_DATE,
    "number",
    Version(Decimal("1.5"), P_L_2011_C_149),
)
ANNUAL_REPORT_DAYS: Parameter[int] = declare_figure(
    "grow_nj.annual_report_days",
    "grow_nj",
    "Annual report due, days after the end of the privilege period",
    "N.J.A.C. 19:31Q-1.11(a)1",
    Selector.TAX_PERIOD,
    "days",
    Version(120, P_L_2013_C_161),
)
STATEWIDE_REDUCTION: Parameter[Decimal] = declare_figure(
    "grow_nj.statewide_reduction",
    "grow_nj",
    "Statewide full-time employees may fall by at most (more: that period's credit forfeited)",
    "N.J.A.C. 19:31Q-1.15(a)",
    Selector.TAX_PERIOD,
    "fraction",
    Version(Decimal("0.20"), P_L_2013_C_161),
)

# --------------------------------------------------------------------------- the credit's use
# Issue 33 item 5: the credit schedule (19:31Q-1.9), transfer certificates (34:1B-248) and
# the sale to the State (52:18A-263; N.J.A.C. 18:34-1.3, 1.7(a)).

#: N.J.A.C. 18:34-1.3 and 18:34-1.7 (Director's Tax Credit Purchase Program), adopted by
#: 54 N.J.R. 1641(b), effective August 15, 2022, under N.J.S.A. 52:18A-263.
N_J_A_C_18_34 = declare_source(
    "grow_nj",
    "N.J.A.C. 18:34-1 (54 N.J.R. 1641(b))",
    dt.date(2022, 8, 15),
    source=(
        "N.J.S.A. 52:18A-263 (casetext mirror [S32]); N.J.A.C. 18:34-1.3(a), 18:34-1.7(a),"
        " adopted by 54 N.J.R. 1641(b), effective 8/15/2022 (casetext mirror [S33];"
        " shared/legal-notes.md 6.2.2)"
    ),
    note=(
        "the statute's own enactment date is not in the notes: the purchase figures are"
        " dated by the rule adopted under it"
    ),
)

_248 = "N.J.S.A. 34:1B-248"

TRANSFER_MINIMUM_AMOUNT: Parameter[Decimal] = declare_figure(
    "grow_nj.transfer_minimum_amount",
    "grow_nj",
    "Smallest amount of credit a transfer certificate may sell",
    _248,
    Selector.FIXED,
    "money",
    Version(Decimal("25000"), P_L_2014_C_63),
)
TRANSFER_MINIMUM_CONSIDERATION: Parameter[Decimal] = declare_figure(
    "grow_nj.transfer_minimum_consideration",
    "grow_nj",
    "Smallest consideration for a transferred credit, share of the credit (before discounting)",
    _248,
    Selector.FIXED,
    "fraction",
    Version(Decimal("0.75"), P_L_2014_C_63),
)
RULE_TRANSFER_WINDOW_YEARS: Parameter[int] = declare_figure(
    "grow_nj.rule_transfer_window_years",
    "grow_nj",
    "Transfer within this many years of issuance (the rule's reading; the statute: any time)",
    "N.J.A.C. 19:31Q-1.9 (conflict with N.J.S.A. 34:1B-247: switch transfer_window)",
    Selector.APPROVAL_DATE,
    "count",
    Version(3, P_L_2013_C_161),
)
STATE_PURCHASE_MAXIMUM: Parameter[Decimal] = declare_figure(
    "grow_nj.state_purchase_maximum",
    "grow_nj",
    "Most the Director may pay for a credit, share of the credit",
    "N.J.S.A. 52:18A-263 a.",
    Selector.FIXED,
    "fraction",
    Version(Decimal("0.75"), N_J_A_C_18_34),
)


def _purchase(key: str, title: str, share: str, paragraph: str) -> Parameter[Decimal]:
    return declare_figure(
        f"grow_nj.state_purchase_{key}",
        "grow_nj",
        f"Most the Director may pay for a credit presented {title}, share of the credit",
        f"N.J.A.C. 18:34-1.7(a){paragraph}",
        Selector.FIXED,
        "fraction",
        Version(Decimal(share), N_J_A_C_18_34),
    )


#: N.J.A.C. 18:34-1.7(a)1-4: the most the Director may pay, by the time between the
#: presentation and the credit's expiration (the exact boundaries: switch boundary).
STATE_PURCHASE_OVER_3_YEARS = _purchase(
    "over_3_years", "more than three years before its expiration", "0.20", "1"
)
STATE_PURCHASE_2_TO_3_YEARS = _purchase(
    "2_to_3_years", "more than two but less than three years before it", "0.40", "2"
)
STATE_PURCHASE_1_TO_2_YEARS = _purchase(
    "1_to_2_years", "more than one but less than two years before it", "0.60", "3"
)
STATE_PURCHASE_UNDER_1_YEAR = _purchase(
    "under_1_year", "less than one year but at least 90 days before it", "0.75", "4"
)
STATE_PURCHASE_MINIMUM_DAYS: Parameter[int] = declare_figure(
    "grow_nj.state_purchase_minimum_days",
    "grow_nj",
    "A credit presented for purchase at least this many days before it expires",
    "N.J.A.C. 18:34-1.3(a), 1.7(a)4",
    Selector.FIXED,
    "days",
    Version(90, N_J_A_C_18_34),
)

#: P.L.2022, c.134: the remote-work text in 34:1B-247 (by the bill records' statute lists).
P_L_2022_C_134 = declare_act(
    "grow_nj",
    "P.L.2022, c.134",
    dt.date(2022, 7, 1),
    source=(
        "the c.40 bill records list 34:1B-247 among the sections amended [S3][S4]; NJBIA: the"
        " bill provides accommodations to all four programs [S5] (shared/legal-notes.md 6.1.1)"
    ),
    confirmed=False,
    note=(
        "the remote-work text of 34:1B-247 was not retrievable: its identity with 34:1B-129 h."
        " is asserted by summaries (switch text_identity); modelled from July 1, 2022 as BEIP's"
    ),
)
#: The remote-work election in 34:1B-247 (letter not found), with the request of P.L.2024,
#: c.40 to reduce the Statewide employees before December 31, 2024.
H: SubsectionH = declare_subsection_h(
    "grow_nj",
    "grow_nj",
    "N.J.S.A. 34:1B-247",
    "",
    P_L_2022_C_134,
    verified=False,
    reduce_statewide_request=True,
)
