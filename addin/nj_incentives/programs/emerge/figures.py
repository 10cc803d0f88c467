"""Emerge's dated figures: P.L.2020, c.156, ss.68-81 (N.J.S.A. 34:1B-336 et seq.) and
N.J.A.C. 19:31U-1 (shared/legal-notes.md section 6.4; model:
:mod:`nj_incentives.core.parameters`).

Only the figures of the credit's use are here (its schedule, carryforward, transfer and
surrender); the per-job amounts, bonuses and caps the notes give as secondary are not
modelled: the approved award is an input.
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

declare_statute(
    "emerge",
    "Emerge Program",
    "N.J.S.A. 34:1B-336 et seq.",
    not_modelled=(
        "the base and bonus amounts per job, the $8,000 cap and the retained-job amount"
        " (34:1B-343; bonuses and caps secondary): the approved award is an input",
        "the eligibility period (up to 7 years, secondary): an input",
        "forfeiture and reduction (34:1B-344; N.J.A.C. 19:31U-1.14): a period's credit"
        " forfeited is an input",
    ),
)

#: P.L.2020, c.156 (the Economic Recovery Act of 2020), ss.68-81, approved January 7,
#: 2021; N.J.A.C. 19:31U-1, the rules adopted under it.
P_L_2020_C_156 = declare_act(
    "emerge",
    "P.L.2020, c.156",
    dt.date(2021, 1, 7),
    source=(
        "N.J.S.A. 34:1B-346 (getpocketlaw mirror [S51]); N.J.A.C. 19:31U-1.11 (casetext"
        " mirror [S50]) (shared/legal-notes.md 6.4)"
    ),
    note="the rule's adoption date is not in the notes: its figures are dated by the act",
)
#: N.J.A.C. 18:34-1.7(b), adopted by 54 N.J.R. 1641(b), effective August 15, 2022.
N_J_A_C_18_34 = declare_source(
    "emerge",
    "N.J.A.C. 18:34-1 (54 N.J.R. 1641(b))",
    dt.date(2022, 8, 15),
    source=(
        "N.J.A.C. 18:34-1.7(b), adopted by 54 N.J.R. 1641(b), effective 8/15/2022 (casetext"
        " mirror [S33]); N.J.S.A. 52:18A-263 a. [S32] (shared/legal-notes.md 6.4)"
    ),
)

_346 = "N.J.S.A. 34:1B-346"

CARRYFORWARD_PERIODS: Parameter[int] = declare_figure(
    "emerge.carryforward_periods",
    "emerge",
    "Tax periods a credit may be carried forward",
    "N.J.A.C. 19:31U-1.11(b)",
    Selector.APPROVAL_DATE,
    "count",
    Version(7, P_L_2020_C_156),
)
TRANSFER_WINDOW_YEARS: Parameter[int] = declare_figure(
    "emerge.transfer_window_years",
    "emerge",
    "A credit may be transferred within this many years of the period it is allowed in",
    f"{_346} a., b.(1)",
    Selector.APPROVAL_DATE,
    "count",
    Version(3, P_L_2020_C_156),
)
TRANSFER_MINIMUM_AMOUNT: Parameter[Decimal] = declare_figure(
    "emerge.transfer_minimum_amount",
    "emerge",
    "Smallest amount of credit a transfer certificate may sell",
    f"{_346} b.(1)",
    Selector.FIXED,
    "money",
    Version(Decimal("25000"), P_L_2020_C_156),
)
TRANSFER_MINIMUM_CONSIDERATION: Parameter[Decimal] = declare_figure(
    "emerge.transfer_minimum_consideration",
    "emerge",
    "Smallest consideration for a transferred credit, share of the credit (before discounting)",
    f"{_346} b.(1)",
    Selector.FIXED,
    "fraction",
    Version(Decimal("0.85"), P_L_2020_C_156),
)
SURRENDER_WAIT_YEARS: Parameter[int] = declare_figure(
    "emerge.surrender_wait_years",
    "emerge",
    "A credit presented to the State no earlier than this many years after issuance",
    "N.J.A.C. 18:34-1.7(b)",
    Selector.FIXED,
    "count",
    Version(2, N_J_A_C_18_34),
)
SURRENDER_SHARE: Parameter[Decimal] = declare_figure(
    "emerge.surrender_share",
    "emerge",
    "The State reimburses a surrendered credit at this share of its value",
    "N.J.A.C. 18:34-1.7(b)",
    Selector.FIXED,
    "fraction",
    Version(Decimal("0.90"), N_J_A_C_18_34),
)
