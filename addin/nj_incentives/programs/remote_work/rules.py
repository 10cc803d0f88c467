"""The remote-work election: N.J.S.A. 34:1B-129 h. and the same text in the other
programs that adopted it (the shared provision ``remote_work``; its users are the programs
whose ``Program.uses`` names it).

P.L.2022, c.134 enacted one text in four sections: BEIP (34:1B-129 h.), BRRAG (34:1B-120
b.), Urban Transit Hub (34:1B-209) and Grow NJ (34:1B-247) (shared/legal-notes.md section
6.1); P.L.2024, c.40 and the January 2024 act amended all four. The rules below are that
text once, in its three versions; they cite 34:1B-129 h., the section of the one program
that uses them today (BEIP). Their figures: :mod:`nj_incentives.programs.remote_work.figures`.
Every reading is in ``docs/interpretations.md``, "Remote-work election (h., h.(1), h.(2))"
and "Subsection h. in its 2024 versions".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import partial

from nj_incentives.core import parameters as P
from nj_incentives.core.common import (
    DateLike,
    Explained,
    InputError,
    Number,
    Step,
    as_bool,
    as_choice,
    as_date,
    as_fraction,
    as_law_as_of,
    as_money,
    fmt_pct,
    within_dates,
)
from nj_incentives.core.rules import EXACT, Rules, V, explain
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.remote_work import figures as RW

__all__ = [
    "C40_COMMITMENT_EXTENSION_MONTHS",
    "C40_FIRST_TAX_YEAR",
    "C40_FROM",
    "C40_MINIMUM_SHARE_AT_FACILITY",
    "C40_PAYMENT_SHARE",
    "C40_PERIOD_READINGS",
    "CITE_EO",
    "CITE_H",
    "CITE_H1",
    "CITE_H2",
    "CITE_H_C40",
    "CITE_H_JANUARY_2024",
    "CITE_H_SOURCES",
    "ELECTION_DEADLINE_READINGS",
    "ELECTION_FROM_READINGS",
    "EMERGENCY_DECLARED",
    "EMERGENCY_ENDED",
    "EXTENDED_WAIVER_END",
    "H_VERSIONS",
    "H_VERSION_2022",
    "H_VERSION_C40",
    "H_VERSION_JANUARY_2024",
    "JANUARY_2024_ACT_APPROVED",
    "MINIMUM_SHARE_AT_FACILITY",
    "MOVED_ELECTION_BEFORE",
    "P_L_2024_C_40_APPROVED",
    "REMOTE_WORK_ELECTION_BEFORE",
    "REMOTE_WORK_PAYMENT_SHARE",
    "REMOTE_WORK_TAX_YEAR",
    "REMOTE_WORK_WAIVER_END",
    "REMOTE_WORK_WAIVER_START",
    "SECTION",
    "WAIVED_SHARE_AT_FACILITY",
    "CommitmentExtension",
    "RemoteWorkCheck",
    "RemoteWorkPayment",
    "commitment_extension_rule",
    "remote_work_c40_rule",
    "remote_work_check",
    "remote_work_commitment_end",
    "remote_work_payment",
    "remote_work_payment_rule",
    "remote_work_rule",
    "remote_work_version",
]

#: The section cited: BEIP's, the one user today (the same text: the module docstring).
SECTION = "N.J.S.A. 34:1B-129"
CITE_H = f"{SECTION}h."
CITE_H1 = f"{SECTION}h.(1)"
CITE_H2 = f"{SECTION}h.(2)"


def _steps_of(rule: Callable[..., object], *args: object) -> tuple[Step, ...]:
    """The explanation of a rule run on ``args`` (for a result's lazy ``steps``)."""
    return explain(rule, *args)[1]


# =========================================================================== h.
# Subsection h. in three versions (shared/legal-notes.md, section 5; docs/interpretations.md,
# "Remote-work election (h., h.(1), h.(2))" and "Subsection h. in its 2024 versions"):
#
# 1. P.L.2022, c.134, the text in shared/statutes: "Following the termination of the public
#    health emergency declared ... pursuant to Executive Order No. 103 of 2020, ... a
#    business ... may elect, before December 31, 2023, to waive, for the period beginning
#    on July 1, 2022 and ending on December 31, 2023, the requirement that a full-time
#    employee ... spend at least 60 percent of the employee's time at the qualified
#    business facility", provided (1) every full-time employee spends at least 10 percent
#    there through the 2023 tax period and (2) the business pays five percent of the tax
#    credit it receives for the 2022 tax period. The emergency of Executive Order No. 103
#    (declared March 9, 2020) was ended by Executive Order No. 244, effective June 4, 2021
#    (legal notes, section 4): our reading is that the election must be made on or after
#    that day (switch ``election_from``).
# 2. The January 2024 act (A-5840/S-4217, approved January 12, 2024; chapter number not
#    found): the waiver runs through March 31, 2024. Whether the election deadline moved
#    with it is not known: switch ``election_deadline`` ("unchanged" default, "moved").
# 3. P.L.2024, c.40 (A-4046, approved July 10, 2024): the waiver covers July 1, 2022
#    through March 31, 2024; for the tax period beginning on April 1, 2024 and every later
#    one, a facility outside an enhanced area or a government-restricted municipality (a
#    fact the user states) may have the 60% requirement waived provided every full-time
#    employee spends at least 40% of the time at the facility during the tax period, the
#    commitment period is extended by two years and the business pays the Authority a
#    non-refundable 10% of the maximum tax credit for that tax period. Inside such an area
#    there is no waiver from April 1, 2024.
#
# The 2024 figures come from the bill records and practitioners' summaries (NJBIA, January
# 2024; BillTrack50; Deloitte "State Tax Matters", July 12, 2024), not the enacted text:
# to be confirmed against it (CITE_H_SOURCES).

#: The figures of h. a ``law_as_of`` is checked against: refused before their first
#: version modelled (P.L.2022, c.134), whichever h. function reads them.
H_FIGURES = (
    RW.REMOTE_WORK_ELECTION_BEFORE,
    RW.REMOTE_WORK_WAIVER_START,
    RW.REMOTE_WORK_WAIVER_END,
    RW.MINIMUM_SHARE_AT_FACILITY,
    RW.REMOTE_WORK_PAYMENT_SHARE,
)
#: "may elect, before December 31, 2023". N.J.S.A. 34:1B-129h. (P.L.2022, c.134)
REMOTE_WORK_ELECTION_BEFORE = RW.REMOTE_WORK_ELECTION_BEFORE.single
#: The public health emergency of Executive Order No. 103 (2020) was declared March 9, 2020
EMERGENCY_DECLARED = RW.EMERGENCY_DECLARED.single
#: ... and ended by Executive Order No. 244 (2021), effective June 4, 2021.
EMERGENCY_ENDED = RW.EMERGENCY_ENDED.single
#: ``election_from``: "emergency_ended" (default, on or after EMERGENCY_ENDED) or
#: "emergency_declared" (the alternative: any date after EMERGENCY_DECLARED).
ELECTION_FROM_READINGS = ("emergency_ended", "emergency_declared")
CITE_EO = "Executive Order No. 103 (2020); Executive Order No. 244 (2021)"
#: "the period beginning on July 1, 2022 and ending on December 31, 2023". 34:1B-129h.
REMOTE_WORK_WAIVER_START = RW.REMOTE_WORK_WAIVER_START.single
#: P.L.2022, c.134's end of the waiver period (later versions: EXTENDED_WAIVER_END)
REMOTE_WORK_WAIVER_END = RW.REMOTE_WORK_WAIVER_END.base
#: the requirement waived: "at least 60 percent of the employee's time". 34:1B-129h.
WAIVED_SHARE_AT_FACILITY = RW.WAIVED_SHARE_AT_FACILITY.single
#: "at least 10 percent of the employee's time at the qualified business facility". h.(1)
MINIMUM_SHARE_AT_FACILITY = RW.MINIMUM_SHARE_AT_FACILITY.base
#: "five percent of the amount of tax credit ... for the 2022 tax period". h.(2)
REMOTE_WORK_PAYMENT_SHARE = RW.REMOTE_WORK_PAYMENT_SHARE.base
#: h.(2): "the 2022 tax period".
REMOTE_WORK_TAX_YEAR = RW.REMOTE_WORK_TAX_YEAR.single

#: The versions of h., by the act that made each (what every result names).
H_VERSION_2022 = BEIP.BASE_BEIP.name
H_VERSION_JANUARY_2024 = RW.JANUARY_2024_ACT.name
H_VERSION_C40 = RW.P_L_2024_C_40.name
H_VERSIONS = (H_VERSION_2022, H_VERSION_JANUARY_2024, H_VERSION_C40)
#: The January 2024 act: approved January 12, 2024; P.L.2024, c.40: July 10, 2024.
JANUARY_2024_ACT_APPROVED = RW.JANUARY_2024_ACT.date
P_L_2024_C_40_APPROVED = RW.P_L_2024_C_40.date
#: The January 2024 act and P.L.2024, c.40: the waiver runs through March 31, 2024.
EXTENDED_WAIVER_END = RW.REMOTE_WORK_WAIVER_END.at(None, JANUARY_2024_ACT_APPROVED)
#: ``election_deadline="moved"``: the election "before" the day after the new waiver end.
MOVED_ELECTION_BEFORE = EXTENDED_WAIVER_END + dt.timedelta(days=1)
#: ``election_deadline``: under the January 2024 act the election must still be made
#: before December 31, 2023 ("unchanged", default) or before April 1, 2024 ("moved").
ELECTION_DEADLINE_READINGS = ("unchanged", "moved")
#: P.L.2024, c.40: "for the tax period beginning on April 1, 2024 and every later tax
#: period" (the time from this day: docs/interpretations.md).
C40_FROM = RW.REMOTE_WORK_C40_FROM.single
#: P.L.2024, c.40 (1): "at least 40%" of the employee's time at the facility.
C40_MINIMUM_SHARE_AT_FACILITY = RW.MINIMUM_SHARE_AT_FACILITY.at(C40_FROM)
#: P.L.2024, c.40 (2): the commitment period extended "by two years" (24 months).
C40_COMMITMENT_EXTENSION_MONTHS = RW.REMOTE_WORK_COMMITMENT_EXTENSION_MONTHS.single
#: P.L.2024, c.40 (3): a non-refundable payment of "10%" of the maximum tax credit.
C40_PAYMENT_SHARE = RW.REMOTE_WORK_PAYMENT_SHARE.at(C40_FROM)
#: Where the 2024 figures come from.
CITE_H_SOURCES = "from the bill record and summaries: confirm against the enacted text"
CITE_H_JANUARY_2024 = f"{CITE_H} as amended by the {H_VERSION_JANUARY_2024}; {CITE_H_SOURCES}"
CITE_H_C40 = f"{CITE_H} as amended by {H_VERSION_C40}; {CITE_H_SOURCES}"
#: ``c40_periods``: which tax periods the 10% payment of P.L.2024, c.40 is for: every one
#: that ends on or after April 1, 2024 ("containing", default: the period containing that
#: day and every later one) or the returns numbered 2024 and later ("numbered").
C40_PERIOD_READINGS = ("containing", "numbered")
#: ``c40_periods="numbered"``: the first tax year numbered under P.L.2024, c.40.
C40_FIRST_TAX_YEAR = C40_FROM.year


def remote_work_version(
    period_start: dt.date | None, election_date: dt.date | None, as_of: dt.date | None = None
) -> str:
    """The version of h. that governs a time from ``period_start`` (the first day
    checked; None: the waiver period of P.L.2022, c.134), for an election made on
    ``election_date``, under the law as of ``as_of`` (None: every modelled act): from
    April 1, 2024, P.L.2024, c.40; from January 1, 2024, or for an election made on or
    after the January 2024 act's approval, the January 2024 act; otherwise P.L.2022,
    c.134 (docs/interpretations.md). An act not yet approved on ``as_of`` is not read."""

    def known(approved: dt.date) -> bool:
        return as_of is None or as_of >= approved

    if period_start is not None and period_start >= C40_FROM and known(P_L_2024_C_40_APPROVED):
        return H_VERSION_C40
    later = (period_start is not None and period_start > REMOTE_WORK_WAIVER_END) or (
        election_date is not None and election_date >= JANUARY_2024_ACT_APPROVED
    )
    if later and known(JANUARY_2024_ACT_APPROVED):
        return H_VERSION_JANUARY_2024
    return H_VERSION_2022


class RemoteWorkPayment(Explained):
    """The payment owed to the Authority under h. (N.J.S.A. 34:1B-129h.(2); P.L.2024, c.40)."""

    amount: Decimal
    #: the credit the payment is a share of: received for the 2022 tax period (P.L.2022,
    #: c.134), or the maximum for a tax period from April 1, 2024 (P.L.2024, c.40)
    credit: Decimal
    #: the version of h. applied (:data:`H_VERSIONS`)
    version: str = H_VERSION_2022
    share: Decimal = REMOTE_WORK_PAYMENT_SHARE
    #: the tax year of the period the payment is for (None: not given, the 2022 period)
    tax_year: int | None = None
    #: False: the c.40 payment is non-refundable (the 2022 payment's text says nothing)
    refundable: bool | None = None

    @property
    def credit_2022(self) -> Decimal:
        """The credit (the name before issue 19)."""
        return self.credit


def remote_work_payment(
    credit: Number,
    period_end: DateLike | None = None,
    numbering: str = "form",
    c40_periods: str = "containing",
    law_as_of: DateLike | None = None,
) -> RemoteWorkPayment:
    """The payment owed under h. for one tax period: N.J.S.A. 34:1B-129h.(2); P.L.2024, c.40.

    Without ``period_end`` (the version before issue 19): 5% of the credit received for
    the 2022 tax period, rounded down (P.L.2022, c.134, h.(2)). With ``period_end``, the
    last day of the privilege period (a 52-53-week year by the day it is deemed to end),
    the version is the period's: the 2022 tax period (:func:`cbt.tax_year`; a June-30
    filer's ends 2023-06-30), 5% of the credit received for it; a period that ends on or
    after April 1, 2024 (``c40_periods="numbered"``: tax year 2024 and later), the
    non-refundable 10% of the maximum tax credit for that period (P.L.2024, c.40). Any
    other period owes nothing under either, and is refused. ``law_as_of``: the law as it
    stood on that date (before July 10, 2024: no c.40 payment).
    """
    version_cite = CITE_H2
    amount_of = as_money(credit, "credit", CITE_H2)
    # checked even when no period_end uses it: a given argument is never ignored unread
    as_choice(numbering, "numbering", cbt.TAX_YEAR_NUMBERINGS, cbt.CITE_FORM_YEAR)
    periods = as_choice(c40_periods, "c40_periods", C40_PERIOD_READINGS, CITE_H_C40)
    as_of = as_law_as_of(law_as_of, "beip", H_FIGURES)
    c40_known = as_of is None or as_of >= P_L_2024_C_40_APPROVED
    steps: list[Step] = []
    version, share, year = H_VERSION_2022, REMOTE_WORK_PAYMENT_SHARE, None
    refundable: bool | None = None
    if period_end is not None:
        numbered = cbt.tax_year(period_end, numbering)
        deemed = numbered.deemed_end or numbered.period_end
        year = numbered.year
        by_date = deemed >= C40_FROM if periods == "containing" else year >= C40_FIRST_TAX_YEAR
        if by_date and c40_known:
            version, share, refundable = H_VERSION_C40, C40_PAYMENT_SHARE, False
            version_cite = CITE_H_C40
        elif numbered.year != REMOTE_WORK_TAX_YEAR:
            if by_date:
                which = (
                    f"is one, but law_as_of {as_of} is before {H_VERSION_C40}"
                    f" ({P_L_2024_C_40_APPROVED})"
                )
            elif periods == "containing":
                which = f"ends before {C40_FROM}"
            else:
                which = f"is numbered before {C40_FIRST_TAX_YEAR}"
            deemed_text = (
                f", deemed to end {deemed} (within {cbt.DEEMED_MONTH_END_DAYS} days of a"
                f" month end, {cbt.CITE_52_53_WEEK}),"
                if deemed != numbered.period_end
                else ""
            )
            rule = (
                f"the period ending {numbered.period_end}{deemed_text} is tax year"
                f" {numbered.year}"
                f" ({numbered.numbering} numbering): h.(2) ({H_VERSION_2022}) asks"
                f" {fmt_pct(REMOTE_WORK_PAYMENT_SHARE)} of the credit for the"
                f" {REMOTE_WORK_TAX_YEAR} tax period, and {H_VERSION_C40} its"
                f" {fmt_pct(C40_PAYMENT_SHARE)} for a tax period from {C40_FROM}; this period"
                f" {which} (c40_periods {periods!r})"
            )
            cite = f"{CITE_H2}; {cbt.CITE_FORM_YEAR}"
            if deemed_text:
                cite += f"; {cbt.CITE_52_53_WEEK}"
            raise InputError("period_end", period_end, rule, cite)
        steps.extend(numbered.steps)
    version_step = Step(
        label="Version of subsection h. applied",
        value=version,
        arithmetic=(
            f"{version}: a non-refundable {fmt_pct(share)} of the maximum tax credit for a"
            f" tax period from {C40_FROM} (c40_periods {periods!r})"
            if version == H_VERSION_C40
            else f"{version}: {fmt_pct(share)} of the credit for the {REMOTE_WORK_TAX_YEAR}"
            " tax period"
        ),
        citation=version_cite,
    )
    steps.append(version_step)
    payment = remote_work_payment_rule(EXACT, amount_of, share, version_cite)
    explained = partial(
        _then_steps, steps, remote_work_payment_rule, amount_of, share, version_cite
    )
    return RemoteWorkPayment(
        amount=payment,
        credit=amount_of,
        version=version,
        share=share,
        tax_year=year,
        refundable=refundable,
        steps=explained,
    )


def remote_work_payment_rule(
    r: Rules, credit: V, share: V = REMOTE_WORK_PAYMENT_SHARE, cite: str = CITE_H2
) -> V:
    """h.(2): "five percent of the amount of tax credit" received for the 2022 tax period
    (P.L.2022, c.134); P.L.2024, c.40: 10% of the maximum tax credit for a tax period from
    April 1, 2024 (``share``), rounded down to the cent."""
    return r.share(credit, share, label="Payment to the Authority", cite=cite)


def _then_steps(
    first: Sequence[Step], rule: Callable[..., object], *args: object
) -> tuple[Step, ...]:
    """Steps already known (e.g. a period's tax year), then the rule's."""
    return (*first, *_steps_of(rule, *args))


class RemoteWorkCheck(Explained):
    """Whether the remote-work waiver of subsection h. holds (N.J.S.A. 34:1B-129h., h.(1);
    the January 2024 act; P.L.2024, c.40)."""

    ok: bool
    #: every reason the election fails, each with its citation (empty when ok)
    reasons: tuple[str, ...]
    #: the version of h. applied (:data:`H_VERSIONS`)
    version: str = H_VERSION_2022
    #: P.L.2024, c.40: the commitment period's end extended by two years (None: not
    #: given, or another version)
    extended_commitment_end: dt.date | None = None


def remote_work_check(
    election_date: DateLike,
    share_at_facility: Number,
    election_from: str = "emergency_ended",
    period_start: DateLike | None = None,
    enhanced_area: bool | int | str | None = None,
    commitment_end: DateLike | None = None,
    election_deadline: str = "unchanged",
    law_as_of: DateLike | None = None,
) -> RemoteWorkCheck:
    """Every reason the remote-work waiver of h. fails, or OK, under the version of h. for
    the time checked: N.J.S.A. 34:1B-129h., h.(1); the January 2024 act; P.L.2024, c.40.

    ``period_start``: the first day of the tax period (or the part of it) checked; blank:
    the waiver period of P.L.2022, c.134 (the behaviour before issue 19).

    - P.L.2022, c.134 (a time from July 1, 2022 to December 31, 2023, an election made
      before January 12, 2024): the election must follow the termination of the public
      health emergency of Executive Order No. 103 (on or after June 4, 2021, when
      Executive Order No. 244 ended it; ``election_from="emergency_declared"``: any date
      after March 9, 2020), be made before December 31, 2023, and full-time employees
      must spend at least 10% of their time at the facility (h.(1)).
    - The January 2024 act (a time from January 1 to March 31, 2024, or an election made
      on or after January 12, 2024): the same, the waiver running through March 31, 2024;
      the election before December 31, 2023 (``election_deadline="unchanged"``, default)
      or before April 1, 2024 ("moved").
    - P.L.2024, c.40 (a time from April 1, 2024): ``enhanced_area`` (TRUE if the facility
      is in an enhanced area or a government-restricted municipality; required) must be
      FALSE (inside, no waiver: the 60% requirement applies); at least 40% of the time at
      the facility; the commitment period extended by two years
      (``extended_commitment_end`` = ``commitment_end`` + 2 years, where given); the 10%
      payment is :func:`remote_work_payment`'s.

    ``law_as_of``: the law as it stood on that date (an act approved later is not read).
    """
    elected = as_date(election_date, "election_date", CITE_H)
    share = as_fraction(share_at_facility, "share_at_facility", CITE_H1)
    reading = as_choice(election_from, "election_from", ELECTION_FROM_READINGS, CITE_H)
    deadline_reading = as_choice(
        election_deadline, "election_deadline", ELECTION_DEADLINE_READINGS, CITE_H_JANUARY_2024
    )
    start = None if period_start is None else as_date(period_start, "period_start", CITE_H)
    end = None if commitment_end is None else as_date(commitment_end, "commitment_end", CITE_H_C40)
    as_of = as_law_as_of(law_as_of, "beip", H_FIGURES)
    version = remote_work_version(start, elected, as_of)
    if version == H_VERSION_C40:
        return _c40_check(elected, share, start, enhanced_area, end)
    if enhanced_area is not None:  # read, never ignored: before April 1, 2024 it does not matter
        as_bool(enhanced_area, "enhanced_area", CITE_H_C40)
    declared = reading == "emergency_declared"
    january = version == H_VERSION_JANUARY_2024
    before = (
        MOVED_ELECTION_BEFORE
        if january and deadline_reading == "moved"
        else REMOTE_WORK_ELECTION_BEFORE
    )
    cite = CITE_H_JANUARY_2024 if january else CITE_H
    follows, before_deadline, enough, _ = remote_work_rule(EXACT, elected, share, declared, before)
    if declared:
        lower = f"after {EMERGENCY_DECLARED}, when the emergency was declared"
    else:
        lower = f"on or after {EMERGENCY_ENDED}, when Executive Order No. 244 ended the emergency"
    reasons: list[str] = []
    waiver_end = EXTENDED_WAIVER_END if january else REMOTE_WORK_WAIVER_END
    if start is not None and not REMOTE_WORK_WAIVER_START <= start <= waiver_end:
        reasons.append(
            f"period_start {start} is outside the waiver period of h. ({version}):"
            f" {REMOTE_WORK_WAIVER_START} to {waiver_end} ({cite})"
        )
    if not follows:
        reasons.append(
            f"election_date {elected} does not follow the termination of the public health"
            f" emergency of Executive Order No. 103: it must be {lower} ({CITE_H}; {CITE_EO})"
        )
    if not before_deadline:
        which = f"; election_deadline {deadline_reading!r}" if january else f" ({H_VERSION_2022})"
        reasons.append(f"election_date {elected} is not before {before}{which} ({cite})")
    if not enough:
        reasons.append(
            f"share_at_facility {fmt_pct(share)} is less than"
            f" {fmt_pct(MINIMUM_SHARE_AT_FACILITY)} ({CITE_H1})"
        )
    waiver = Step(
        label="Waiver period",
        value=version,
        arithmetic=f"{version}: {REMOTE_WORK_WAIVER_START} to {waiver_end}: the"
        f" {fmt_pct(WAIVED_SHARE_AT_FACILITY)} on-site requirement is waived",
        citation=cite,
    )
    result = Step(label="Result", value="OK" if not reasons else "; ".join(reasons), citation=cite)
    args = (elected, share, declared, before)
    steps = partial(_around_steps, waiver, result, remote_work_rule, *args)
    return RemoteWorkCheck(ok=not reasons, reasons=tuple(reasons), version=version, steps=steps)


def _c40_check(
    elected: dt.date,
    share: Decimal,
    start: dt.date | None,
    enhanced_area: object,
    commitment_end: dt.date | None,
) -> RemoteWorkCheck:
    """P.L.2024, c.40, for a time from April 1, 2024 (:func:`remote_work_check`)."""
    if enhanced_area is None:
        rule = (
            f"is required for a period from {C40_FROM} ({H_VERSION_C40}): TRUE if the"
            " facility is in an enhanced area or a government-restricted municipality"
            " (no waiver there), FALSE if not"
        )
        raise InputError("enhanced_area", None, rule, CITE_H_C40)
    inside = as_bool(enhanced_area, "enhanced_area", CITE_H_C40)
    outside, enough, ok = remote_work_c40_rule(EXACT, share, inside)
    extended = None
    if commitment_end is not None:
        extended = within_dates(
            commitment_extension_rule(EXACT, commitment_end),
            "the commitment period extended by two years",
            "commitment_end",
            commitment_end,
            CITE_H_C40,
        )
    reasons: list[str] = []
    if not outside:
        reasons.append(
            f"no waiver from {C40_FROM}: the facility is in an enhanced area or a"
            " government-restricted municipality, where the"
            f" {fmt_pct(WAIVED_SHARE_AT_FACILITY)} on-site requirement applies ({CITE_H_C40})"
        )
    if outside and not enough:
        reasons.append(
            f"share_at_facility {fmt_pct(share)} is less than"
            f" {fmt_pct(C40_MINIMUM_SHARE_AT_FACILITY)} during the tax period ({CITE_H_C40})"
        )
    assert ok == (not reasons)
    law = Step(
        label="Version of subsection h. applied",
        value=H_VERSION_C40,
        arithmetic=f"{H_VERSION_C40}: from {C40_FROM} (period_start {start}; election"
        f" {elected}), outside an enhanced area or a government-restricted municipality: at"
        f" least {fmt_pct(C40_MINIMUM_SHARE_AT_FACILITY)} at the facility, the commitment"
        " period extended by two years, a non-refundable"
        f" {fmt_pct(C40_PAYMENT_SHARE)} of the maximum tax credit for the tax period"
        " (NJ_BEIP_REMOTE_WORK_PAYMENT)",
        citation=CITE_H_C40,
    )
    result = Step(
        label="Result", value="OK" if not reasons else "; ".join(reasons), citation=CITE_H_C40
    )

    def steps() -> tuple[Step, ...]:
        found = [law, *_steps_of(remote_work_c40_rule, share, inside)]
        if commitment_end is not None:
            found += _steps_of(commitment_extension_rule, commitment_end)
        return (*found, result)

    return RemoteWorkCheck(
        ok=not reasons,
        reasons=tuple(reasons),
        version=H_VERSION_C40,
        extended_commitment_end=extended if outside else None,
        steps=steps,
    )


def remote_work_rule(
    r: Rules,
    election_date: V,
    share_at_facility: V,
    from_declared: bool = False,
    election_before: dt.date = REMOTE_WORK_ELECTION_BEFORE,
) -> tuple[V, V, V, V]:
    """h., h.(1): (the election follows the termination of the public health emergency,
    it is made before ``election_before`` (December 31, 2023; April 1, 2024 under the
    January 2024 act read with the deadline moved), full-time employees spend at least 10%
    of their time at the facility, the first two: the election is in time). The
    emergency ended on June 4, 2021 (Executive Order No. 244); ``from_declared`` (the
    alternative reading): any day after March 9, 2020 follows it."""
    if from_declared:
        follows = r.gt(election_date, EMERGENCY_DECLARED)
        after = f"after {EMERGENCY_DECLARED}"
    else:
        follows = r.ge(election_date, EMERGENCY_ENDED)
        after = f"on or after {EMERGENCY_ENDED}"
    before_deadline = r.lt(election_date, election_before)
    in_time = r.both(
        follows,
        before_deadline,
        label=f"Election date ({after} and before {election_before})",
        cite=f"{CITE_H}; {CITE_EO}",
    )
    enough = r.ge(
        share_at_facility,
        MINIMUM_SHARE_AT_FACILITY,
        label=f"Time at the facility (at least {fmt_pct(MINIMUM_SHARE_AT_FACILITY)})",
        cite=CITE_H1,
    )
    return follows, before_deadline, enough, in_time


def remote_work_c40_rule(r: Rules, share_at_facility: V, enhanced_area: V) -> tuple[V, V, V]:
    """P.L.2024, c.40, from the tax period beginning April 1, 2024: (the facility is outside
    an enhanced area or a government-restricted municipality, every full-time employee
    spends at least 40% of the time at it, both: the requirement is waived)."""
    inside = r.given(
        enhanced_area,
        label="Facility in an enhanced area or a government-restricted municipality",
        cite=CITE_H_C40,
    )
    outside = r.not_(inside)
    enough = r.ge(
        share_at_facility,
        C40_MINIMUM_SHARE_AT_FACILITY,
        label=f"Time at the facility (at least {fmt_pct(C40_MINIMUM_SHARE_AT_FACILITY)})",
        cite=CITE_H_C40,
    )
    waived = r.both(outside, enough, label="Requirement waived", cite=CITE_H_C40)
    return outside, enough, waived


def commitment_extension_rule(r: Rules, commitment_end: V) -> V:
    """P.L.2024, c.40 (2): the business extends its commitment period by two years: the
    last day of the commitment period, 24 months later."""
    return r.add_months(
        commitment_end,
        C40_COMMITMENT_EXTENSION_MONTHS,
        label="Commitment period extended by two years",
        cite=CITE_H_C40,
    )


class CommitmentExtension(Explained):
    """The commitment period extended for the waiver from April 1, 2024 (P.L.2024, c.40)."""

    commitment_end: dt.date
    extended_end: dt.date
    version: str = H_VERSION_C40


def remote_work_commitment_end(
    commitment_end: DateLike, law_as_of: DateLike | None = None
) -> CommitmentExtension:
    """The last day of the commitment period once extended by two years, as P.L.2024, c.40
    asks of a business whose facility (outside an enhanced area or a
    government-restricted municipality) has the 60% requirement waived from April 1, 2024:
    ``commitment_end`` + 24 months (a shorter month's last day where the day is missing:
    2026-02-29 does not exist, 2024-02-29 + 24 months = 2026-02-28).

    ``law_as_of`` before P.L.2024, c.40 (July 10, 2024): the law then knew no extension,
    and the commitment period ends on ``commitment_end``; ``version`` names the latest
    version of h. known on that date."""
    end = as_date(commitment_end, "commitment_end", CITE_H_C40)
    as_of = as_law_as_of(law_as_of, "beip", H_FIGURES)
    if as_of is not None and as_of < P_L_2024_C_40_APPROVED:
        version = P.applied("beip", ((RW.REMOTE_WORK_WAIVER_END, None),), as_of).name
        step = Step(
            label="Commitment period (not extended)",
            value=end,
            arithmetic=f"law_as_of {as_of} is before {H_VERSION_C40}"
            f" ({P_L_2024_C_40_APPROVED}): {version} extends no commitment period",
            citation=CITE_H,
        )
        return CommitmentExtension(
            commitment_end=end, extended_end=end, version=version, steps=(step,)
        )
    extended = within_dates(
        commitment_extension_rule(EXACT, end),
        "the commitment period extended by two years",
        "commitment_end",
        commitment_end,
        CITE_H_C40,
    )
    return CommitmentExtension(
        commitment_end=end,
        extended_end=extended,
        steps=partial(_steps_of, commitment_extension_rule, end),
    )


def _around_steps(
    first: Step, last: Step, rule: Callable[..., object], *args: object
) -> tuple[Step, ...]:
    """A check's explanation: a statement of the law, the rule's steps, the result."""
    return (first, *_steps_of(rule, *args), last)
