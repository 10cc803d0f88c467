"""The remote-work election's dated figures: N.J.S.A. 34:1B-129 h. and its twins
(shared/legal-notes.md section 6.1), with the two acts that amended it after P.L.2022,
c.134 (model: :mod:`nj_incentives.core.parameters`).

The figures are keyed by the provision (``remote_work.*``); their law-currency record is
BEIP's section (``statute="beip"``: the acts are versions of N.J.S.A. 34:1B-129, its one
user today, and its first version is BEIP's base text), so the law-currency texts, the
amendment tables and each result's ``version`` read as they did. When BRRAG, Urban
Transit Hub and Grow NJ are added, each section's record will list the same acts.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from nj_incentives.core.parameters import Parameter, Selector, Version, declare_act, declare_figure
from nj_incentives.programs.beip.figures import BASE_BEIP

_B = "N.J.S.A. 34:1B-129"

# h.: remote work, in three versions (shared/legal-notes.md section 5): P.L.2022, c.134
# (the text in shared/statutes), the January 2024 act and P.L.2024, c.40. The enacted text
# of the 2024 acts was not reachable: their figures come from the bill records and
# practitioners' summaries, which agree with each other (confirmed=False).
JANUARY_2024_ACT = declare_act(
    "beip",
    "January 2024 act (A-5840/S-4217)",
    dt.date(2024, 1, 12),
    source=(
        "A-5840/S-4217 of the 2022-2023 session, enrolled January 8, approved January 12,"
        ' 2024 (chapter number not found); NJBIA, January 2024: "only until April 1, 2024.'
        ' The requirement was previously set to expire at the end of 2023"'
    ),
    confirmed=False,
    note="whether the election deadline moved is not known: switch election_deadline",
)
P_L_2024_C_40 = declare_act(
    "beip",
    "P.L.2024, c.40",
    dt.date(2024, 7, 10),
    source=(
        "A-4046 of the 2024-2025 session, approved July 10, 2024; BillTrack50 bill record;"
        ' Deloitte "State Tax Matters", July 12, 2024; the 10%: OLS Legislative Fiscal'
        ' Estimate to A-4046 [Third Reprint], July 3, 2024 ("payments made by businesses'
        " equal to 10 percent of maximum annual tax credit the business is eligible to"
        ' receive for a tax period", shared/legal-notes.md section 7)'
    ),
    confirmed=False,
    note="the enacted text was not found: the OLS estimate is of the bill, not the act",
)
#: The first day of P.L.2024, c.40's rule: "for the tax period beginning on April 1, 2024
#: and every later tax period".
_C40_FROM = dt.date(2024, 4, 1)
REMOTE_WORK_C40_FROM: Parameter[dt.date] = declare_figure(
    "remote_work.c40_from",
    "beip",
    "First day of the 40% on-site rule (outside an enhanced area or a"
    " government-restricted municipality) and of no waiver inside one",
    f"{_B}h. as amended by P.L.2024, c.40",
    Selector.FIXED,
    "date",
    Version(_C40_FROM, P_L_2024_C_40, change="new rule from April 1, 2024"),
    quote="for the tax period beginning on April 1, 2024 and every later tax period",
)
REMOTE_WORK_COMMITMENT_EXTENSION_MONTHS: Parameter[int] = declare_figure(
    "remote_work.commitment_extension_months",
    "beip",
    "Extension of the commitment period for the waiver from April 1, 2024, months",
    f"{_B}h. as amended by P.L.2024, c.40",
    Selector.TAX_PERIOD,
    "count",
    Version(
        24,
        P_L_2024_C_40,
        change="the business extends its commitment period by two years",
        modelled="extended_commitment_end = commitment_end + 24 months (an output date)",
    ),
    quote="extends by two years the term of its commitment period",
)
REMOTE_WORK_ELECTION_BEFORE: Parameter[dt.date] = declare_figure(
    "remote_work.election_before",
    "beip",
    "Remote-work election made before",
    f"{_B}h.",
    Selector.TAX_PERIOD,
    "date",
    Version(dt.date(2023, 12, 31), BASE_BEIP),
    quote="may elect, before December 31, 2023",
)
EMERGENCY_DECLARED: Parameter[dt.date] = declare_figure(
    "remote_work.emergency_declared",
    "beip",
    "Public health emergency of Executive Order No. 103 declared",
    "Executive Order No. 103 (2020)",
    Selector.FIXED,
    "date",
    Version(dt.date(2020, 3, 9), BASE_BEIP),
)
EMERGENCY_ENDED: Parameter[dt.date] = declare_figure(
    "remote_work.emergency_ended",
    "beip",
    "Public health emergency of Executive Order No. 103 ended",
    "Executive Order No. 244 (2021)",
    Selector.FIXED,
    "date",
    Version(dt.date(2021, 6, 4), BASE_BEIP),
)
#: The other date the sources give for the end (shared/legal-notes.md section 6.5, 16):
#: the Assembly Appropriations Committee's statement to A-6261 (2022-01-06) says the
#: emergency "ended on July 4, 2021", the day most orders expired, 30 days after Executive
#: Order No. 244 was signed. Recorded, not applied: the election's lower bound stays June 4,
#: 2021 (docs/interpretations.md, "Remote-work election").
EMERGENCY_ORDERS_EXPIRED: Parameter[dt.date] = declare_figure(
    "remote_work.emergency_orders_expired",
    "beip",
    "Public health emergency of Executive Order No. 103: orders expired (the other date"
    " given for its end; recorded, not applied)",
    "Assembly Appropriations Committee statement to A-6261 (2022-01-06)",
    Selector.FIXED,
    "date",
    Version(dt.date(2021, 7, 4), BASE_BEIP),
    quote="ended on July 4, 2021",
)
REMOTE_WORK_WAIVER_START: Parameter[dt.date] = declare_figure(
    "remote_work.waiver_start",
    "beip",
    "Remote-work waiver period begins",
    f"{_B}h.",
    Selector.TAX_PERIOD,
    "date",
    Version(dt.date(2022, 7, 1), BASE_BEIP),
    quote="for the period beginning on July 1, 2022",
)
REMOTE_WORK_WAIVER_END: Parameter[dt.date] = declare_figure(
    "remote_work.waiver_end",
    "beip",
    "Remote-work waiver period ends",
    f"{_B}h.",
    Selector.TAX_PERIOD,
    "date",
    Version(dt.date(2023, 12, 31), BASE_BEIP),
    Version(
        dt.date(2024, 3, 31),
        JANUARY_2024_ACT,
        change="waiver through March 31, 2024 (was December 31, 2023)",
        modelled="the waiver period of an election under the January 2024 act",
    ),
    Version(
        dt.date(2024, 3, 31),
        P_L_2024_C_40,
        change="waiver July 1, 2022 through March 31, 2024 (restated)",
        modelled="unchanged from the January 2024 act",
    ),
    quote="and ending on December 31, 2023",
)
WAIVED_SHARE_AT_FACILITY: Parameter[Decimal] = declare_figure(
    "remote_work.waived_share_at_facility",
    "beip",
    "On-site share the waiver waives",
    f"{_B}h.",
    Selector.TAX_PERIOD,
    "fraction",
    Version(Decimal("0.60"), BASE_BEIP),
    quote="at least 60 percent of the employee's time",
)
MINIMUM_SHARE_AT_FACILITY: Parameter[Decimal] = declare_figure(
    "remote_work.minimum_share_at_facility",
    "beip",
    "On-site share required under the waiver",
    f"{_B}h.(1)",
    Selector.TAX_PERIOD,
    "fraction",
    Version(Decimal("0.10"), BASE_BEIP),
    Version(
        Decimal("0.40"),
        P_L_2024_C_40,
        applies_from=_C40_FROM,
        change="from the tax period beginning April 1, 2024, outside an enhanced area or a"
        " government-restricted municipality: at least 40% of the time at the facility",
        modelled="remote_work_check with period_start from 2024-04-01 (enhanced_area an"
        " input; inside one, no waiver)",
    ),
    quote="at least 10 percent of the employee's time at the qualified business facility",
)
REMOTE_WORK_PAYMENT_SHARE: Parameter[Decimal] = declare_figure(
    "remote_work.payment_share",
    "beip",
    "Remote-work payment, share of the credit",
    f"{_B}h.(2)",
    Selector.TAX_PERIOD,
    "fraction",
    Version(Decimal("0.05"), BASE_BEIP),
    Version(
        Decimal("0.10"),
        P_L_2024_C_40,
        applies_from=_C40_FROM,
        change="a non-refundable payment of 10% of the maximum tax credit for each tax"
        " period from April 1, 2024",
        modelled="remote_work_payment with a period_end on or after 2024-04-01 (the"
        " conversion template: each tax year from 2024)",
    ),
    quote="five percent of the amount of tax credit",
)
REMOTE_WORK_TAX_YEAR: Parameter[int] = declare_figure(
    "remote_work.tax_year",
    "beip",
    "Tax period of the remote-work payment",
    f"{_B}h.(2)",
    Selector.TAX_PERIOD,
    "year",
    Version(2022, BASE_BEIP),
    quote="for the 2022 tax period",
)
