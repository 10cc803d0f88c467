"""The NJ_* functions of the remote-work election (P.L.2022, c.134; the January 2024 act;
P.L.2024, c.40) for the four programs whose sections hold its text: NJ_REMOTE_WORK_*
with the program as their first argument (``beip``, ``brrag``, ``uth``, ``grow_nj``), and
BEIP's names, NJ_BEIP_REMOTE_WORK_*, which keep working (N.J.S.A. 34:1B-129 h.).
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
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip.functions import BEIP_LAW, LAW_AS_OF
from nj_incentives.programs.cbt.functions import NUMBERING
from nj_incentives.programs.remote_work import figures as RW

__all__ = ["FUNCTIONS", "TOPICS"]

#: Every NJ_* function of the provision, in the order the catalog shows them.
FUNCTIONS = Catalog()
calculation = FUNCTIONS.calculation

#: The first day of P.L.2024, c.40's rule and the election deadline of P.L.2022, c.134
#: (the same in the four sections: BEIP's figures shown).
_C40 = BEIP.H.c40_from.single
_ELECT = BEIP.H.election_before.single
_MOVED = BEIP.H.waiver_end.at() + dt.timedelta(days=1)
#: The programs that apply the remote-work text, as their figures declare it
#: (``declare_subsection_h``: loaded with the registry, in its order), and their sections.
_SUBSECTIONS = dict(RW.SUBSECTIONS)


def _short(subsection: RW.SubsectionH) -> str:
    """ "34:1B-129 h." (the section without "N.J.S.A.", then its letter)."""
    section = subsection.section.removeprefix("N.J.S.A. ")
    return f"{section} {subsection.letter}" if subsection.letter else section


#: The sections (the law the NJ_REMOTE_WORK_* functions cite).
_SECTIONS = "N.J.S.A. " + "; ".join(h.cite.removeprefix("N.J.S.A. ") for h in _SUBSECTIONS.values())
_CHOICES = [f'"{key}" ({_short(h)})' for key, h in _SUBSECTIONS.items()]
_PROGRAM = switch(
    f"{', '.join(_CHOICES[:-1])} or {_CHOICES[-1]}: the program whose section applies",
    tuple(_SUBSECTIONS),
)
_TEXT_IDENTITY = switch(
    '"assumed" (UTH and Grow NJ read as BEIP\'s text, asserted by summaries) or'
    ' "verified_only" (refuse them); blank = "assumed"',
    ("assumed", "verified_only"),
)
_CREDIT = single(
    f"Tax credit for the tax period, dollars: received for 2022, or the maximum for a period"
    f" from {_C40}"
)
_PERIOD_END = a_date(
    "Last day of the privilege period; it chooses the version; blank = the 2022 tax period"
    " (not checked)"
)
_C40_PERIODS = switch(
    f'"containing" (periods ending on or after {_C40}), "numbered" (tax years 2024 on) or'
    f' "beginning" (periods beginning on or after {_C40}); blank = "containing"',
    ("containing", "numbered", "beginning"),
)
_ENHANCED = single(
    f"From {_C40}: TRUE if the facility is in an enhanced area or a"
    " government-restricted municipality (no waiver there), FALSE if not"
)
_PAY_ENHANCED = single(
    f"From {_C40}: TRUE if the facility is in an enhanced area or a government-restricted"
    " municipality (no waiver, so no payment: 0); blank = not stated"
)
_PERIOD_START_PAY = a_date(
    'First day of the period, for c40_periods "beginning" (deemed as a 52-53-week end is);'
    " blank = the 12 months ending on period_end"
)
_ELECTION_DATE = a_date("Date the business made the remote-work election (Excel date)")
_SHARE = single("Share of full-time employees' time at the facility, a fraction")
_ELECTION_FROM = switch(
    f'"emergency_ended" (on or after {RW.EMERGENCY_ENDED.single}, Executive Order No. 244)'
    f' or "emergency_declared" (after {RW.EMERGENCY_DECLARED.single}); blank ='
    ' "emergency_ended"',
    ("emergency_ended", "emergency_declared"),
)
_PERIOD_START = a_date(
    "First day of the tax period (or part) checked, deemed as a 52-53-week end is; it"
    " chooses the version; blank = the 2022-2023 waiver period"
)
_COMMITMENT_END = a_date(
    f"Last day of the commitment period (from {_C40} it is extended by two years)"
)
_DEADLINE = switch(
    f'Under the January 2024 act: "unchanged" (elect before {_ELECT}) or "moved"'
    f' (before {_MOVED}); blank = "unchanged"',
    ("unchanged", "moved"),
)
_PAYMENT_MADE = single(
    f"From {_C40}: TRUE once the non-refundable 10% payment for the period is made; blank or"
    " FALSE: the waiver is not confirmed"
)
_EXTENDED = single(
    f"From {_C40}: TRUE once the commitment period is extended by two years; blank or FALSE:"
    " the waiver is not confirmed"
)
_REDUCTION = a_date(
    "Grow NJ and UTH: date of the request to reduce the Statewide employees of the agreement"
    " (before the day P.L.2024, c.40 sets; secondary)"
)


calculation(
    "NJ_REMOTE_WORK_PAYMENT",
    cite=_SECTIONS,
    description=(
        f"Remote-work payment to the Authority ({_SECTIONS}): 5% of the 2022 credit "
        f"(P.L.2022, c.134); for a period from {_C40}, 10% of its maximum credit, "
        "non-refundable (P.L.2024, c.40); to the cent, down."
    ),
    example=("beip", 1000000, dt.date(2025, 3, 31)),
    optional=(
        "period_end",
        "numbering",
        "c40_periods",
        "law_as_of",
        "enhanced_area",
        "period_start",
        "text_identity",
    ),
    program=_PROGRAM,
    credit=_CREDIT,
    period_end=_PERIOD_END,
    numbering=NUMBERING,
    c40_periods=_C40_PERIODS,
    law_as_of=LAW_AS_OF,
    enhanced_area=_PAY_ENHANCED,
    period_start=_PERIOD_START_PAY,
    text_identity=_TEXT_IDENTITY,
)


calculation(
    "NJ_REMOTE_WORK_CHECK",
    cite=_SECTIONS,
    description=(
        '"OK" if the remote-work waiver holds for the time checked under its version '
        f"({_SECTIONS}; P.L.2022, c.134; January 2024 act; P.L.2024, c.40 from {_C40}), "
        "or every reason it does not."
    ),
    example=("beip", dt.date(2023, 6, 30), 0.25),
    optional=(
        "election_from",
        "period_start",
        "enhanced_area",
        "commitment_end",
        "election_deadline",
        "law_as_of",
        "payment_made",
        "commitment_extended",
        "reduction_request_date",
        "text_identity",
    ),
    program=_PROGRAM,
    election_date=_ELECTION_DATE,
    share_at_facility=_SHARE,
    election_from=_ELECTION_FROM,
    period_start=_PERIOD_START,
    enhanced_area=_ENHANCED,
    commitment_end=_COMMITMENT_END,
    election_deadline=_DEADLINE,
    law_as_of=LAW_AS_OF,
    payment_made=_PAYMENT_MADE,
    commitment_extended=_EXTENDED,
    reduction_request_date=_REDUCTION,
    text_identity=_TEXT_IDENTITY,
)


calculation(
    "NJ_REMOTE_WORK_COMMITMENT_END",
    cite=_SECTIONS,
    description=(
        "Last day of the commitment period extended by two years, as P.L.2024, c.40 asks for "
        f"the remote-work waiver from {_C40} ({_SECTIONS})."
    ),
    example=("beip", dt.date(2026, 6, 30)),
    optional=("law_as_of", "text_identity"),
    program=_PROGRAM,
    commitment_end=a_date("Last day of the commitment period of the incentive agreement"),
    law_as_of=LAW_AS_OF,
    text_identity=_TEXT_IDENTITY,
)


calculation(
    "NJ_BEIP_REMOTE_WORK_PAYMENT",
    cite=f"{BEIP_LAW}h.(2)",
    description=(
        "Remote-work payment to the Authority: 5% of the 2022 tax credit (P.L.2022, c.134); for a "
        f"period ending from {_C40}, 10% of its maximum credit, non-refundable (P.L.2024, "
        "c.40); rounded down to the cent (N.J.S.A. 34:1B-129h.(2))."
    ),
    example=(412345.67,),
    optional=(
        "period_end",
        "numbering",
        "c40_periods",
        "law_as_of",
        "enhanced_area",
        "period_start",
    ),
    credit=_CREDIT,
    period_end=_PERIOD_END,
    numbering=NUMBERING,
    c40_periods=_C40_PERIODS,
    law_as_of=LAW_AS_OF,
    enhanced_area=_PAY_ENHANCED,
    period_start=_PERIOD_START_PAY,
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
        "payment_made",
        "commitment_extended",
    ),
    election_date=_ELECTION_DATE,
    share_at_facility=_SHARE,
    election_from=_ELECTION_FROM,
    period_start=_PERIOD_START,
    enhanced_area=_ENHANCED,
    commitment_end=_COMMITMENT_END,
    election_deadline=_DEADLINE,
    law_as_of=LAW_AS_OF,
    payment_made=_PAYMENT_MADE,
    commitment_extended=_EXTENDED,
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
def NJ_REMOTE_WORK_PAYMENT(
    program: Cell,
    credit: Cell,
    period_end: Cell = None,
    numbering: Cell = None,
    c40_periods: Cell = None,
    law_as_of: Cell = None,
    enhanced_area: Cell = None,
    period_start: Cell = None,
    text_identity: Cell = None,
) -> Any:
    from nj_incentives.programs.remote_work import rules as remote_work

    return remote_work.remote_work_payment(
        credit,
        program=program,
        **given(
            period_end=period_end,
            numbering=numbering,
            c40_periods=c40_periods,
            law_as_of=law_as_of,
            enhanced_area=enhanced_area,
            period_start=period_start,
            text_identity=text_identity,
        ),
    )


@FUNCTIONS.adapter(show=lambda check: verdict(check.ok, check.reasons))
def NJ_REMOTE_WORK_CHECK(
    program: Cell,
    election_date: Cell,
    share_at_facility: Cell,
    election_from: Cell = None,
    period_start: Cell = None,
    enhanced_area: Cell = None,
    commitment_end: Cell = None,
    election_deadline: Cell = None,
    law_as_of: Cell = None,
    payment_made: Cell = None,
    commitment_extended: Cell = None,
    reduction_request_date: Cell = None,
    text_identity: Cell = None,
) -> Any:
    from nj_incentives.programs.remote_work import rules as remote_work

    return remote_work.remote_work_check(
        election_date,
        share_at_facility,
        program=program,
        **given(
            election_from=election_from,
            period_start=period_start,
            enhanced_area=enhanced_area,
            commitment_end=commitment_end,
            election_deadline=election_deadline,
            law_as_of=law_as_of,
            payment_made=payment_made,
            commitment_extended=commitment_extended,
            reduction_request_date=reduction_request_date,
            text_identity=text_identity,
        ),
    )


@FUNCTIONS.adapter(show=lambda extension: extension.extended_end)
def NJ_REMOTE_WORK_COMMITMENT_END(
    program: Cell, commitment_end: Cell, law_as_of: Cell = None, text_identity: Cell = None
) -> Any:
    from nj_incentives.programs.remote_work import rules as remote_work

    return remote_work.remote_work_commitment_end(
        commitment_end,
        program=program,
        **given(law_as_of=law_as_of, text_identity=text_identity),
    )


@FUNCTIONS.adapter(show=lambda payment: money(payment.amount))
def NJ_BEIP_REMOTE_WORK_PAYMENT(
    credit: Cell,
    period_end: Cell = None,
    numbering: Cell = None,
    c40_periods: Cell = None,
    law_as_of: Cell = None,
    enhanced_area: Cell = None,
    period_start: Cell = None,
) -> Any:
    from nj_incentives.programs.remote_work import rules as remote_work

    return remote_work.remote_work_payment(
        credit,
        **given(
            period_end=period_end,
            numbering=numbering,
            c40_periods=c40_periods,
            law_as_of=law_as_of,
            enhanced_area=enhanced_area,
            period_start=period_start,
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
    payment_made: Cell = None,
    commitment_extended: Cell = None,
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
            payment_made=payment_made,
            commitment_extended=commitment_extended,
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
