"""The NJ_* functions of the remote-work election, subsection h. (N.J.S.A. 34:1B-129 h.;
P.L.2022, c.134; P.L.2024, c.40): BEIP's today, so named NJ_BEIP_REMOTE_WORK_...
Declarations: :mod:`nj_incentives.core.declarations`."""

from __future__ import annotations

import datetime as dt
from typing import Any

from nj_incentives.core.cells import (
    Cell,
    given,
    money,
    verdict,
)
from nj_incentives.core.declarations import Catalog, ExplainTopic, a_date, single, switch
from nj_incentives.programs.beip.functions import BEIP_LAW, LAW_AS_OF
from nj_incentives.programs.cbt.functions import NUMBERING
from nj_incentives.programs.remote_work import figures as RW

__all__ = ["FUNCTIONS", "TOPICS"]

#: Every NJ_* function of the provision, in the order the catalog shows them.
FUNCTIONS = Catalog()
calculation = FUNCTIONS.calculation

#: The first day of P.L.2024, c.40's rule and the election deadline of P.L.2022, c.134.
_C40 = RW.REMOTE_WORK_C40_FROM.single
_ELECT = RW.REMOTE_WORK_ELECTION_BEFORE.single
_MOVED = RW.REMOTE_WORK_WAIVER_END.at() + dt.timedelta(days=1)


calculation(
    "NJ_BEIP_REMOTE_WORK_PAYMENT",
    cite=f"{BEIP_LAW}h.(2)",
    description=(
        "Remote-work payment to the Authority: 5% of the 2022 tax credit (P.L.2022, c.134); for a "
        f"period ending from {_C40}, 10% of its maximum credit, non-refundable (P.L.2024, "
        "c.40); rounded down to the cent (N.J.S.A. 34:1B-129h.(2))."
    ),
    example=(412345.67,),
    optional=("period_end", "numbering", "c40_periods", "law_as_of"),
    credit=single(
        "Tax credit for the tax period, dollars: received for 2022, or the maximum for a"
        f" period from {_C40}"
    ),
    period_end=a_date(
        "Last day of the privilege period; it chooses the version; blank = the 2022 tax"
        " period (not checked)"
    ),
    numbering=NUMBERING,
    c40_periods=switch(
        f'"containing" (the period ending on or after {_C40} and later ones) or'
        ' "numbered" (tax years 2024 and later); blank = "containing"',
        ("containing", "numbered"),
    ),
    law_as_of=LAW_AS_OF,
)


calculation(
    "NJ_BEIP_REMOTE_WORK_CHECK",
    cite=f"{BEIP_LAW}h.",
    description=(
        '"OK" if the remote-work waiver holds for the time checked under its version of h. '
        f"(P.L.2022, c.134; January 2024 act; P.L.2024, c.40 from {_C40}), or every reason it "
        "does not (N.J.S.A. 34:1B-129h., h.(1))."
    ),
    example=(dt.date(2023, 6, 30), 0.25),
    optional=(
        "election_from",
        "period_start",
        "enhanced_area",
        "commitment_end",
        "election_deadline",
        "law_as_of",
    ),
    election_date=a_date("Date the business made the remote-work election (Excel date)"),
    share_at_facility=single("Share of full-time employees' time at the facility, a fraction"),
    election_from=switch(
        f'"emergency_ended" (on or after {RW.EMERGENCY_ENDED.single}, Executive Order No. 244)'
        f' or "emergency_declared" (after {RW.EMERGENCY_DECLARED.single}); blank ='
        ' "emergency_ended"',
        ("emergency_ended", "emergency_declared"),
    ),
    period_start=a_date(
        "First day of the tax period (or part) checked; it chooses the version; blank = the"
        " 2022-2023 waiver period"
    ),
    enhanced_area=single(
        f"From {_C40}: TRUE if the facility is in an enhanced area or a"
        " government-restricted municipality (no waiver there), FALSE if not"
    ),
    commitment_end=a_date(
        f"Last day of the commitment period (from {_C40} it is extended by two years)"
    ),
    election_deadline=switch(
        f'Under the January 2024 act: "unchanged" (elect before {_ELECT}) or "moved"'
        f' (before {_MOVED}); blank = "unchanged"',
        ("unchanged", "moved"),
    ),
    law_as_of=LAW_AS_OF,
)


calculation(
    "NJ_BEIP_REMOTE_WORK_COMMITMENT_END",
    cite=f"{BEIP_LAW}h.",
    description=(
        "Last day of the commitment period extended by two years, as P.L.2024, c.40 asks for the "
        f"remote-work waiver from {_C40} (N.J.S.A. 34:1B-129h. as amended)."
    ),
    example=(dt.date(2026, 6, 30),),
    optional=("law_as_of",),
    commitment_end=a_date("Last day of the commitment period of the incentive agreement"),
    law_as_of=LAW_AS_OF,
)


# =========================================================================== adapters
# How each function runs: its cells to the core's result (the rules imported on the first
# call, not at import) and that result to cells.


@FUNCTIONS.adapter(show=lambda payment: money(payment.amount))
def NJ_BEIP_REMOTE_WORK_PAYMENT(
    credit: Cell,
    period_end: Cell = None,
    numbering: Cell = None,
    c40_periods: Cell = None,
    law_as_of: Cell = None,
) -> Any:
    from nj_incentives.programs.remote_work import rules as remote_work

    return remote_work.remote_work_payment(
        credit,
        **given(
            period_end=period_end,
            numbering=numbering,
            c40_periods=c40_periods,
            law_as_of=law_as_of,
        ),
    )


@FUNCTIONS.adapter(show=lambda check: verdict(check.ok, check.reasons))
def NJ_BEIP_REMOTE_WORK_CHECK(
    election_date: Cell,
    share_at_facility: Cell,
    election_from: Cell = None,
    period_start: Cell = None,
    enhanced_area: Cell = None,
    commitment_end: Cell = None,
    election_deadline: Cell = None,
    law_as_of: Cell = None,
) -> Any:
    from nj_incentives.programs.remote_work import rules as remote_work

    return remote_work.remote_work_check(
        election_date,
        share_at_facility,
        **given(
            election_from=election_from,
            period_start=period_start,
            enhanced_area=enhanced_area,
            commitment_end=commitment_end,
            election_deadline=election_deadline,
            law_as_of=law_as_of,
        ),
    )


@FUNCTIONS.adapter(show=lambda extension: extension.extended_end)
def NJ_BEIP_REMOTE_WORK_COMMITMENT_END(commitment_end: Cell, law_as_of: Cell = None) -> Any:
    from nj_incentives.programs.remote_work import rules as remote_work

    return remote_work.remote_work_commitment_end(commitment_end, **given(law_as_of=law_as_of))


#: The provision's ``nj-incentives explain`` topics.
TOPICS = (
    ExplainTopic(
        "remote-work",
        "NJ_BEIP_REMOTE_WORK_CHECK",
        "nj_incentives.programs.remote_work.rules:remote_work_check",
        positional=("election_date", "share_at_facility"),
    ),
)
