"""The remote-work election: N.J.S.A. 34:1B-129 h. and the same text in the other
programs that adopted it (the shared provision ``remote_work``; its users are the programs
whose ``Program.uses`` names it).

P.L.2022, c.134 enacted one text in four sections: BEIP (34:1B-129 h.), BRRAG (34:1B-120
b.), Urban Transit Hub (34:1B-209) and Grow NJ (34:1B-247) (shared/legal-notes.md section
6.1); P.L.2024, c.40 and the January 2024 act amended all four. The rules below are that
text once, in its three versions, for the program given (``program``: ``beip`` by
default, ``brrag``, ``uth``, ``grow_nj``): each program's figures, acts and citations are
its own (``programs/<key>/figures.py``, ``declare_subsection_h``), read through
:func:`law`. The module's constants are BEIP's (the names before issue 33).
Every reading is in ``docs/interpretations.md``, "Remote-work election (h., h.(1), h.(2))"
and "Subsection h. in its 2024 versions".
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache, partial
from typing import Any

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
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.remote_work import figures as RW
from nj_incentives.programs.remote_work.figures import SUBSECTIONS, SubsectionH

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
    "TEXT_IDENTITY_READINGS",
    "WAIVED_SHARE_AT_FACILITY",
    "CommitmentExtension",
    "HLaw",
    "RemoteWorkCheck",
    "RemoteWorkPayment",
    "commitment_extension_rule",
    "deemed_period_start",
    "law",
    "remote_work_c40_rule",
    "remote_work_check",
    "remote_work_commitment_end",
    "remote_work_payment",
    "remote_work_payment_rule",
    "remote_work_rule",
    "remote_work_version",
]


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

#: Where the 2024 figures come from.
CITE_H_SOURCES = "from the bill record and summaries: confirm against the enacted text"
#: ``election_from``: "emergency_ended" (default, on or after the end of the emergency) or
#: "emergency_declared" (the alternative: any date after it was declared).
ELECTION_FROM_READINGS = ("emergency_ended", "emergency_declared")
CITE_EO = "Executive Order No. 103 (2020); Executive Order No. 244 (2021)"
#: ``election_deadline``: under the January 2024 act the election must still be made
#: before December 31, 2023 ("unchanged", default) or before April 1, 2024 ("moved").
ELECTION_DEADLINE_READINGS = ("unchanged", "moved")
#: ``c40_periods``: which tax periods the 10% payment of P.L.2024, c.40 is for: every one
#: that ends on or after April 1, 2024 ("containing", default: the period containing that
#: day and every later one), the returns numbered 2024 and later ("numbered"), or, the
#: text's literal words, the periods beginning on or after April 1, 2024 ("beginning").
C40_PERIOD_READINGS = ("containing", "numbered", "beginning")
#: ``text_identity``: a program whose remote-work text was not read (Urban Transit Hub,
#: Grow NJ: identity with 34:1B-129 h. asserted by summaries only) is computed as BEIP's
#: ("assumed", default) or refused ("verified_only").
TEXT_IDENTITY_READINGS = ("assumed", "verified_only")

#: The public health emergency of Executive Order No. 103 (2020) was declared March 9, 2020
EMERGENCY_DECLARED = RW.EMERGENCY_DECLARED.single
#: ... and ended by Executive Order No. 244 (2021), effective June 4, 2021.
EMERGENCY_ENDED = RW.EMERGENCY_ENDED.single


@dataclass(frozen=True)
class HLaw:
    """One program's subsection h. read: its figures' values, versions and citations."""

    h: SubsectionH
    cite: str
    cite1: str
    cite2: str
    cite_january: str
    cite_c40: str
    #: "may elect, before December 31, 2023"
    election_before: dt.date
    #: "the period beginning on July 1, 2022 and ending on December 31, 2023"
    waiver_start: dt.date
    waiver_end: dt.date
    #: the January 2024 act and P.L.2024, c.40: the waiver runs through March 31, 2024
    extended_waiver_end: dt.date
    #: ``election_deadline="moved"``: the election "before" the day after the new waiver end
    moved_election_before: dt.date
    #: the requirement waived: "at least 60 percent of the employee's time"
    waived_share: Decimal
    #: "at least 10 percent" (P.L.2022, c.134); 40% from April 1, 2024 (P.L.2024, c.40)
    minimum_share: Decimal
    c40_minimum_share: Decimal
    #: "five percent" of the credit for the 2022 tax period; 10% of the maximum (c.40)
    payment_share: Decimal
    c40_payment_share: Decimal
    tax_year: int
    #: "for the tax period beginning on April 1, 2024 and every later tax period"
    c40_from: dt.date
    c40_first_tax_year: int
    c40_commitment_extension_months: int
    january_approved: dt.date
    c40_approved: dt.date
    version_2022: str
    version_january: str
    version_c40: str
    #: Grow NJ, UTH: the request to reduce the Statewide employees made before (else None)
    reduce_statewide_before: dt.date | None

    @property
    def versions(self) -> tuple[str, str, str]:
        return (self.version_2022, self.version_january, self.version_c40)

    @property
    def reads(self) -> tuple[P.Parameter[Any], ...]:
        """The figures of the text a ``law_as_of`` is checked against: refused before their
        first version modelled (P.L.2022, c.134), whichever function reads them."""
        h = self.h
        return (
            h.election_before,
            h.waiver_start,
            h.waiver_end,
            h.minimum_share,
            h.payment_share,
        )


@cache
def _read(program: str) -> HLaw:
    h = SUBSECTIONS[program]
    cite = h.cite
    extended = h.waiver_end.at(None, h.january.date)
    c40_from = h.c40_from.single
    basis = "" if h.verified else " (identity with N.J.S.A. 34:1B-129h. asserted by summaries)"
    return HLaw(
        h=h,
        cite=cite + basis,
        cite1=h.paragraph(1) + basis,
        cite2=h.paragraph(2) + basis,
        cite_january=f"{cite} as amended by the {h.january.name}; {CITE_H_SOURCES}",
        cite_c40=f"{cite} as amended by {h.c40.name}; {CITE_H_SOURCES}",
        election_before=h.election_before.single,
        waiver_start=h.waiver_start.single,
        waiver_end=h.waiver_end.base,
        extended_waiver_end=extended,
        moved_election_before=extended + dt.timedelta(days=1),
        waived_share=h.waived_share.single,
        minimum_share=h.minimum_share.base,
        c40_minimum_share=h.minimum_share.at(c40_from),
        payment_share=h.payment_share.base,
        c40_payment_share=h.payment_share.at(c40_from),
        tax_year=h.tax_year.single,
        c40_from=c40_from,
        c40_first_tax_year=c40_from.year,
        c40_commitment_extension_months=h.commitment_extension_months.single,
        january_approved=h.january.date,
        c40_approved=h.c40.date,
        version_2022=h.base.name,
        version_january=h.january.name,
        version_c40=h.c40.name,
        reduce_statewide_before=(
            None if h.reduce_statewide_before is None else h.reduce_statewide_before.single
        ),
    )


def cite_programs() -> str:
    """The four sections that hold the text (for a refusal of an unknown program)."""
    return "; ".join(f"{key}: {h.cite}" for key, h in SUBSECTIONS.items()) + " (P.L.2022, c.134)"


def law(program: object = "beip", text_identity: object = "assumed") -> HLaw:
    """Program ``program``'s subsection h. (a key of the programs that apply the shared
    provision: ``beip``, ``brrag``, ``uth``, ``grow_nj``), refused by name if unknown, or,
    with ``text_identity="verified_only"``, if its remote-work text was not read."""
    key = as_choice(
        "beip" if program is None else program, "program", tuple(SUBSECTIONS), cite_programs()
    )
    found = _read(key)
    reading = as_choice(
        "assumed" if text_identity is None else text_identity,
        "text_identity",
        TEXT_IDENTITY_READINGS,
        found.cite,
    )
    if reading == "verified_only" and not found.h.verified:
        rule = (
            f"its remote-work text ({found.h.cite}) was not read: its identity with N.J.S.A."
            " 34:1B-129h. is asserted by summaries only, and text_identity 'verified_only'"
            " refuses it (blank or 'assumed' applies BEIP's text)"
        )
        raise InputError("program", program, rule, found.cite)
    return found


_BEIP = _read("beip")
#: BEIP's figures a ``law_as_of`` is checked against (the name before issue 33).
H_FIGURES = _BEIP.reads

# BEIP's subsection h. (the module's names before issue 33).
SECTION = _BEIP.h.section
CITE_H = _BEIP.cite
CITE_H1 = _BEIP.cite1
CITE_H2 = _BEIP.cite2
CITE_H_JANUARY_2024 = _BEIP.cite_january
CITE_H_C40 = _BEIP.cite_c40
REMOTE_WORK_ELECTION_BEFORE = _BEIP.election_before
REMOTE_WORK_WAIVER_START = _BEIP.waiver_start
REMOTE_WORK_WAIVER_END = _BEIP.waiver_end
WAIVED_SHARE_AT_FACILITY = _BEIP.waived_share
MINIMUM_SHARE_AT_FACILITY = _BEIP.minimum_share
REMOTE_WORK_PAYMENT_SHARE = _BEIP.payment_share
REMOTE_WORK_TAX_YEAR = _BEIP.tax_year
H_VERSION_2022 = _BEIP.version_2022
H_VERSION_JANUARY_2024 = _BEIP.version_january
H_VERSION_C40 = _BEIP.version_c40
H_VERSIONS = _BEIP.versions
JANUARY_2024_ACT_APPROVED = _BEIP.january_approved
P_L_2024_C_40_APPROVED = _BEIP.c40_approved
EXTENDED_WAIVER_END = _BEIP.extended_waiver_end
MOVED_ELECTION_BEFORE = _BEIP.moved_election_before
C40_FROM = _BEIP.c40_from
C40_MINIMUM_SHARE_AT_FACILITY = _BEIP.c40_minimum_share
C40_COMMITMENT_EXTENSION_MONTHS = _BEIP.c40_commitment_extension_months
C40_PAYMENT_SHARE = _BEIP.c40_payment_share
C40_FIRST_TAX_YEAR = _BEIP.c40_first_tax_year


def deemed_period_start(start: dt.date) -> dt.date:
    """The day a tax period beginning on ``start`` is deemed to begin: the day after the
    day the previous period is deemed to end (N.J.A.C. 18:7-2.3(b), read for the start as
    for the end: docs/interpretations.md). A period beginning 2024-03-31 (a 52-53-week
    year whose previous period ended Saturday 2024-03-30) is deemed to begin 2024-04-01."""
    previous: dt.date = cbt.deemed_period_end_rule(EXACT, start - dt.timedelta(days=1))
    return previous + dt.timedelta(days=1)


def _deemed_start_step(given: dt.date, deemed: dt.date, argument: str) -> Step:
    return Step(
        label="Deemed start of the period",
        value=deemed,
        arithmetic=f"{argument} {given}: the previous period ends {given - dt.timedelta(days=1)},"
        f" deemed to end {deemed - dt.timedelta(days=1)}; the period is deemed to begin {deemed}",
        citation=cbt.CITE_52_53_WEEK,
    )


def remote_work_version(
    period_start: dt.date | None,
    election_date: dt.date | None,
    as_of: dt.date | None = None,
    program: str = "beip",
) -> str:
    """The version of h. that governs a time from ``period_start`` (the first day
    checked; None: the waiver period of P.L.2022, c.134), for an election made on
    ``election_date``, under the law as of ``as_of`` (None: every modelled act): from
    April 1, 2024, P.L.2024, c.40; from January 1, 2024, or for an election made on or
    after the January 2024 act's approval, the January 2024 act; otherwise P.L.2022,
    c.134 (docs/interpretations.md). An act not yet approved on ``as_of`` is not read."""
    h = law(program)

    def known(approved: dt.date) -> bool:
        return as_of is None or as_of >= approved

    if period_start is not None and period_start >= h.c40_from and known(h.c40_approved):
        return h.version_c40
    later = (period_start is not None and period_start > h.waiver_end) or (
        election_date is not None and election_date >= h.january_approved
    )
    if later and known(h.january_approved):
        return h.version_january
    return h.version_2022


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
    #: the program whose subsection applied (``beip``, ``brrag``, ``uth``, ``grow_nj``)
    program: str = "beip"

    @property
    def credit_2022(self) -> Decimal:
        """The credit (the name before issue 19)."""
        return self.credit


def _twelve_months_ending(end: dt.date) -> dt.date:
    """The first day of the 12 months ending on ``end``."""
    year, month = (end.year - 1, end.month)
    last = calendar.monthrange(year, month)[1]
    return dt.date(year, month, min(end.day, last)) + dt.timedelta(days=1)


def remote_work_payment(
    credit: Number,
    period_end: DateLike | None = None,
    numbering: str = "form",
    c40_periods: str = "containing",
    law_as_of: DateLike | None = None,
    enhanced_area: bool | int | str | None = None,
    period_start: DateLike | None = None,
    program: str = "beip",
    text_identity: str = "assumed",
) -> RemoteWorkPayment:
    """The payment owed under h. for one tax period: N.J.S.A. 34:1B-129h.(2) (or the
    program's own section: ``program``); P.L.2024, c.40.

    Without ``period_end`` (the version before issue 19): 5% of the credit received for
    the 2022 tax period, rounded down (P.L.2022, c.134, h.(2)). With ``period_end``, the
    last day of the privilege period (a 52-53-week year by the day it is deemed to end),
    the version is the period's: the 2022 tax period (:func:`cbt.tax_year`; a June-30
    filer's ends 2023-06-30), 5% of the credit received for it; a c.40 period, the
    non-refundable 10% of the maximum tax credit for that period (P.L.2024, c.40). Which
    periods are c.40's (``c40_periods``): those ending on or after April 1, 2024
    ("containing", default), tax years 2024 and later ("numbered"), or those beginning on
    or after April 1, 2024 ("beginning", the literal words; the period's start is
    ``period_start``, deemed as an end is, or else the 12 months ending on its deemed
    end). Any other period owes nothing under either, and is refused. ``enhanced_area``
    TRUE in a c.40 period: no waiver there, so no payment (0). ``law_as_of``: the law as
    it stood on that date (before July 10, 2024: no c.40 payment).
    """
    h = law(program, text_identity)
    version_cite = h.cite2
    amount_of = as_money(credit, "credit", h.cite2)
    # checked even when no period_end uses it: a given argument is never ignored unread
    as_choice(numbering, "numbering", cbt.TAX_YEAR_NUMBERINGS, cbt.CITE_FORM_YEAR)
    periods = as_choice(c40_periods, "c40_periods", C40_PERIOD_READINGS, h.cite_c40)
    inside = None if enhanced_area is None else as_bool(enhanced_area, "enhanced_area", h.cite_c40)
    start = None if period_start is None else as_date(period_start, "period_start", h.cite_c40)
    as_of = as_law_as_of(law_as_of, h.h.statute, h.reads)
    c40_known = as_of is None or as_of >= h.c40_approved
    steps: list[Step] = []
    version, share, year = h.version_2022, h.payment_share, None
    refundable: bool | None = None
    if period_end is not None:
        numbered = cbt.tax_year(period_end, numbering)
        deemed = numbered.deemed_end or numbered.period_end
        year = numbered.year
        steps.extend(numbered.steps)
        if periods == "containing":
            by_date = deemed >= h.c40_from
        elif periods == "numbered":
            by_date = year >= h.c40_first_tax_year
        else:
            first = _twelve_months_ending(deemed) if start is None else deemed_period_start(start)
            if start is not None and first != start:
                steps.append(_deemed_start_step(start, first, "period_start"))
            elif start is None:
                steps.append(
                    Step(
                        label="Start of the period (12 months ending on its deemed end)",
                        value=first,
                        arithmetic=f"no period_start: the 12 months ending {deemed} begin {first}",
                        citation=h.cite_c40,
                    )
                )
            by_date = first >= h.c40_from
        if by_date and c40_known:
            version, share, refundable = h.version_c40, h.c40_payment_share, False
            version_cite = h.cite_c40
        elif numbered.year != h.tax_year:
            if by_date:
                which = (
                    f"is one, but law_as_of {as_of} is before {h.version_c40} ({h.c40_approved})"
                )
            elif periods == "containing":
                which = f"ends before {h.c40_from}"
            elif periods == "numbered":
                which = f"is numbered before {h.c40_first_tax_year}"
            else:
                which = f"begins before {h.c40_from}"
            deemed_text = (
                f", deemed to end {deemed} (within {cbt.DEEMED_MONTH_END_DAYS} days of a"
                f" month end, {cbt.CITE_52_53_WEEK}),"
                if deemed != numbered.period_end
                else ""
            )
            rule = (
                f"the period ending {numbered.period_end}{deemed_text} is tax year"
                f" {numbered.year}"
                f" ({numbered.numbering} numbering): {h.cite2} ({h.version_2022}) asks"
                f" {fmt_pct(h.payment_share)} of the credit for the"
                f" {h.tax_year} tax period, and {h.version_c40} its"
                f" {fmt_pct(h.c40_payment_share)} for a tax period from {h.c40_from}; this"
                f" period {which} (c40_periods {periods!r})"
            )
            cite = f"{h.cite2}; {cbt.CITE_FORM_YEAR}"
            if deemed_text:
                cite += f"; {cbt.CITE_52_53_WEEK}"
            raise InputError("period_end", period_end, rule, cite)
    if version == h.version_c40 and inside:
        no_waiver = Step(
            label="No waiver, so no payment",
            value=Decimal("0.00"),
            arithmetic=f"enhanced_area TRUE: from {h.c40_from} there is no waiver in an enhanced"
            " area or a government-restricted municipality (the"
            f" {fmt_pct(h.waived_share)} on-site requirement applies), so no payment is owed",
            citation=h.cite_c40,
        )
        return RemoteWorkPayment(
            amount=Decimal("0.00"),
            credit=amount_of,
            version=version,
            share=share,
            tax_year=year,
            refundable=False,
            program=h.h.program,
            steps=(*steps, no_waiver),
        )
    version_step = Step(
        label="Version of the remote-work text applied",
        value=version,
        arithmetic=(
            f"{version}: a non-refundable {fmt_pct(share)} of the maximum tax credit for a"
            f" tax period from {h.c40_from} (c40_periods {periods!r})"
            if version == h.version_c40
            else f"{version}: {fmt_pct(share)} of the credit for the {h.tax_year} tax period"
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
        program=h.h.program,
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
    #: the program whose subsection applied
    program: str = "beip"


def remote_work_check(
    election_date: DateLike,
    share_at_facility: Number,
    election_from: str = "emergency_ended",
    period_start: DateLike | None = None,
    enhanced_area: bool | int | str | None = None,
    commitment_end: DateLike | None = None,
    election_deadline: str = "unchanged",
    law_as_of: DateLike | None = None,
    program: str = "beip",
    payment_made: bool | int | str | None = None,
    commitment_extended: bool | int | str | None = None,
    reduction_request_date: DateLike | None = None,
    text_identity: str = "assumed",
) -> RemoteWorkCheck:
    """Every reason the remote-work waiver fails, or OK, under the version of the text for
    the time checked, in program ``program``'s section (N.J.S.A. 34:1B-129h. for BEIP,
    34:1B-120b. BRRAG, 34:1B-209 UTH, 34:1B-247 Grow NJ); the January 2024 act; P.L.2024,
    c.40.

    ``period_start``: the first day of the tax period (or the part of it) checked, deemed
    as a 52-53-week year's end is (:func:`deemed_period_start`); blank: the waiver period
    of P.L.2022, c.134 (the behaviour before issue 19).

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
      the facility; the commitment period extended by two years (``commitment_extended``
      TRUE; ``extended_commitment_end`` = ``commitment_end`` + 2 years, where given); the
      non-refundable 10% payment made (``payment_made`` TRUE; its amount is
      :func:`remote_work_payment`'s). Either left blank is a reason: the waiver is not
      confirmed without it.

    ``reduction_request_date`` (Grow NJ and UTH only): the date of the request to reduce
    the Statewide employees of the agreement, which P.L.2024, c.40 allows before
    December 31, 2024 (secondary: docs/interpretations.md); a later one is a reason.
    ``law_as_of``: the law as it stood on that date (an act approved later is not read).
    """
    h = law(program, text_identity)
    elected = as_date(election_date, "election_date", h.cite)
    share = as_fraction(share_at_facility, "share_at_facility", h.cite1)
    reading = as_choice(election_from, "election_from", ELECTION_FROM_READINGS, h.cite)
    deadline_reading = as_choice(
        election_deadline, "election_deadline", ELECTION_DEADLINE_READINGS, h.cite_january
    )
    given_start = None if period_start is None else as_date(period_start, "period_start", h.cite)
    start = None if given_start is None else deemed_period_start(given_start)
    end = None if commitment_end is None else as_date(commitment_end, "commitment_end", h.cite_c40)
    paid = None if payment_made is None else as_bool(payment_made, "payment_made", h.cite_c40)
    extended_flag = (
        None
        if commitment_extended is None
        else as_bool(commitment_extended, "commitment_extended", h.cite_c40)
    )
    request_reasons = _reduction_request(h, reduction_request_date)
    as_of = as_law_as_of(law_as_of, h.h.statute, h.reads)
    version = remote_work_version(start, elected, as_of, h.h.program)
    first: list[Step] = []
    if given_start is not None and start is not None and start != given_start:
        first.append(_deemed_start_step(given_start, start, "period_start"))
    if version == h.version_c40:
        return _c40_check(
            h,
            elected,
            share,
            start,
            enhanced_area,
            end,
            paid,
            extended_flag,
            request_reasons,
            first,
        )
    if enhanced_area is not None:  # read, never ignored: before April 1, 2024 it does not matter
        as_bool(enhanced_area, "enhanced_area", h.cite_c40)
    declared = reading == "emergency_declared"
    january = version == h.version_january
    before = (
        h.moved_election_before if january and deadline_reading == "moved" else h.election_before
    )
    cite = h.cite_january if january else h.cite
    follows, before_deadline, enough, _ = remote_work_rule(
        EXACT, elected, share, declared, before, h.minimum_share, h.cite, h.cite1
    )
    if declared:
        lower = f"after {EMERGENCY_DECLARED}, when the emergency was declared"
    else:
        lower = f"on or after {EMERGENCY_ENDED}, when Executive Order No. 244 ended the emergency"
    reasons: list[str] = []
    waiver_end = h.extended_waiver_end if january else h.waiver_end
    if start is not None and not h.waiver_start <= start <= waiver_end:
        reasons.append(
            f"period_start {start} is outside the waiver period of {h.h.cite} ({version}):"
            f" {h.waiver_start} to {waiver_end} ({cite})"
        )
    if not follows:
        reasons.append(
            f"election_date {elected} does not follow the termination of the public health"
            f" emergency of Executive Order No. 103: it must be {lower} ({h.cite}; {CITE_EO})"
        )
    if not before_deadline:
        which = f"; election_deadline {deadline_reading!r}" if january else f" ({h.version_2022})"
        reasons.append(f"election_date {elected} is not before {before}{which} ({cite})")
    if not enough:
        reasons.append(
            f"share_at_facility {fmt_pct(share)} is less than"
            f" {fmt_pct(h.minimum_share)} ({h.cite1})"
        )
    reasons.extend(request_reasons)
    waiver = Step(
        label="Waiver period",
        value=version,
        arithmetic=f"{version}: {h.waiver_start} to {waiver_end}: the"
        f" {fmt_pct(h.waived_share)} on-site requirement is waived ({h.h.program})",
        citation=cite,
    )
    result = Step(label="Result", value="OK" if not reasons else "; ".join(reasons), citation=cite)
    args = (elected, share, declared, before, h.minimum_share, h.cite, h.cite1)
    steps = partial(_around_steps, (*first, waiver), result, remote_work_rule, *args)
    return RemoteWorkCheck(
        ok=not reasons,
        reasons=tuple(reasons),
        version=version,
        program=h.h.program,
        steps=steps,
    )


def _reduction_request(h: HLaw, value: DateLike | None) -> list[str]:
    """The reasons a request to reduce the Statewide employees fails (Grow NJ, UTH)."""
    if value is None:
        return []
    if h.reduce_statewide_before is None:
        rule = (
            "is for Grow NJ and Urban Transit Hub agreements only (P.L.2024, c.40: a business"
            f" that modified its agreement under P.L.2022, c.134); {h.h.program} has none"
        )
        raise InputError("reduction_request_date", value, rule, h.cite_c40)
    day = as_date(value, "reduction_request_date", h.cite_c40)
    if day < h.reduce_statewide_before:
        return []
    return [
        f"reduction_request_date {day} is not before {h.reduce_statewide_before}: the request"
        " to reduce the Statewide employees of the agreement must be made before it"
        f" ({h.cite_c40}; secondary: Deloitte, the OLS estimate)"
    ]


def _c40_check(
    h: HLaw,
    elected: dt.date,
    share: Decimal,
    start: dt.date | None,
    enhanced_area: object,
    commitment_end: dt.date | None,
    paid: bool | None,
    extended_flag: bool | None,
    request_reasons: list[str],
    first: list[Step],
) -> RemoteWorkCheck:
    """P.L.2024, c.40, for a time from April 1, 2024 (:func:`remote_work_check`)."""
    if enhanced_area is None:
        rule = (
            f"is required for a period from {h.c40_from} ({h.version_c40}): TRUE if the"
            " facility is in an enhanced area or a government-restricted municipality"
            " (no waiver there), FALSE if not"
        )
        raise InputError("enhanced_area", None, rule, h.cite_c40)
    inside = as_bool(enhanced_area, "enhanced_area", h.cite_c40)
    outside, enough, _ = remote_work_c40_rule(EXACT, share, inside, h.c40_minimum_share, h.cite_c40)
    extended = None
    if commitment_end is not None:
        extended = within_dates(
            commitment_extension_rule(
                EXACT, commitment_end, h.c40_commitment_extension_months, h.cite_c40
            ),
            "the commitment period extended by two years",
            "commitment_end",
            commitment_end,
            h.cite_c40,
        )
    reasons: list[str] = []
    if not outside:
        reasons.append(
            f"no waiver from {h.c40_from}: the facility is in an enhanced area or a"
            " government-restricted municipality, where the"
            f" {fmt_pct(h.waived_share)} on-site requirement applies ({h.cite_c40})"
        )
    if outside and not enough:
        reasons.append(
            f"share_at_facility {fmt_pct(share)} is less than"
            f" {fmt_pct(h.c40_minimum_share)} during the tax period ({h.cite_c40})"
        )
    if outside:
        conditions = (
            (
                extended_flag,
                "commitment_extended",
                "the commitment period extended by two years",
            ),
            (
                paid,
                "payment_made",
                f"the non-refundable {fmt_pct(h.c40_payment_share)} of the maximum tax credit"
                " for the tax period paid to the Authority",
            ),
        )
        for met, argument, condition in conditions:
            if met is None:
                reasons.append(
                    f"{argument} is blank: the waiver from {h.c40_from} requires {condition};"
                    f" state TRUE once it is done ({h.cite_c40})"
                )
            elif not met:
                reasons.append(
                    f"{argument} FALSE: the waiver from {h.c40_from} requires {condition}"
                    f" ({h.cite_c40})"
                )
    reasons.extend(request_reasons)
    law_step = Step(
        label="Version of the remote-work text applied",
        value=h.version_c40,
        arithmetic=f"{h.version_c40}: from {h.c40_from} (period_start {start}; election"
        f" {elected}), outside an enhanced area or a government-restricted municipality: at"
        f" least {fmt_pct(h.c40_minimum_share)} at the facility, the commitment"
        " period extended by two years, a non-refundable"
        f" {fmt_pct(h.c40_payment_share)} of the maximum tax credit for the tax period"
        f" (NJ_REMOTE_WORK_PAYMENT; {h.h.program})",
        citation=h.cite_c40,
    )
    result = Step(
        label="Result", value="OK" if not reasons else "; ".join(reasons), citation=h.cite_c40
    )

    def steps() -> tuple[Step, ...]:
        found = [
            *first,
            law_step,
            *_steps_of(remote_work_c40_rule, share, inside, h.c40_minimum_share, h.cite_c40),
        ]
        if commitment_end is not None:
            found += _steps_of(
                commitment_extension_rule,
                commitment_end,
                h.c40_commitment_extension_months,
                h.cite_c40,
            )
        return (*found, result)

    return RemoteWorkCheck(
        ok=not reasons,
        reasons=tuple(reasons),
        version=h.version_c40,
        extended_commitment_end=extended if outside else None,
        program=h.h.program,
        steps=steps,
    )


def remote_work_rule(
    r: Rules,
    election_date: V,
    share_at_facility: V,
    from_declared: bool = False,
    election_before: dt.date = REMOTE_WORK_ELECTION_BEFORE,
    minimum_share: Decimal = MINIMUM_SHARE_AT_FACILITY,
    cite: str = CITE_H,
    cite1: str = CITE_H1,
) -> tuple[V, V, V, V]:
    """h., h.(1): (the election follows the termination of the public health emergency,
    it is made before ``election_before`` (December 31, 2023; April 1, 2024 under the
    January 2024 act read with the deadline moved), full-time employees spend at least
    ``minimum_share`` (10%) of their time at the facility, the first two: the election is
    in time). The emergency ended on June 4, 2021 (Executive Order No. 244);
    ``from_declared`` (the alternative reading): any day after March 9, 2020 follows it.
    ``cite``, ``cite1``: the program's subsection and its paragraph (1)."""
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
        cite=f"{cite}; {CITE_EO}",
    )
    enough = r.ge(
        share_at_facility,
        minimum_share,
        label=f"Time at the facility (at least {fmt_pct(minimum_share)})",
        cite=cite1,
    )
    return follows, before_deadline, enough, in_time


def remote_work_c40_rule(
    r: Rules,
    share_at_facility: V,
    enhanced_area: V,
    minimum_share: Decimal = C40_MINIMUM_SHARE_AT_FACILITY,
    cite: str = CITE_H_C40,
) -> tuple[V, V, V]:
    """P.L.2024, c.40, from the tax period beginning April 1, 2024: (the facility is outside
    an enhanced area or a government-restricted municipality, every full-time employee
    spends at least ``minimum_share`` (40%) of the time at it, both: the on-site share is
    met where a waiver is possible; the payment and the extension are the check's)."""
    inside = r.given(
        enhanced_area,
        label="Facility in an enhanced area or a government-restricted municipality",
        cite=cite,
    )
    outside = r.not_(inside)
    enough = r.ge(
        share_at_facility,
        minimum_share,
        label=f"Time at the facility (at least {fmt_pct(minimum_share)})",
        cite=cite,
    )
    waived = r.both(outside, enough, label="Requirement waived", cite=cite)
    return outside, enough, waived


def commitment_extension_rule(
    r: Rules,
    commitment_end: V,
    months: int = C40_COMMITMENT_EXTENSION_MONTHS,
    cite: str = CITE_H_C40,
) -> V:
    """P.L.2024, c.40 (2): the business extends its commitment period by two years: the
    last day of the commitment period, ``months`` (24) later."""
    return r.add_months(
        commitment_end,
        months,
        label="Commitment period extended by two years",
        cite=cite,
    )


class CommitmentExtension(Explained):
    """The commitment period extended for the waiver from April 1, 2024 (P.L.2024, c.40)."""

    commitment_end: dt.date
    extended_end: dt.date
    version: str = H_VERSION_C40
    program: str = "beip"


def remote_work_commitment_end(
    commitment_end: DateLike,
    law_as_of: DateLike | None = None,
    program: str = "beip",
    text_identity: str = "assumed",
) -> CommitmentExtension:
    """The last day of the commitment period once extended by two years, as P.L.2024, c.40
    asks of a business whose facility (outside an enhanced area or a
    government-restricted municipality) has the 60% requirement waived from April 1, 2024:
    ``commitment_end`` + 24 months (a shorter month's last day where the day is missing:
    2026-02-29 does not exist, 2024-02-29 + 24 months = 2026-02-28). What "the commitment
    period" is differs by program (BEIP 1.5 times the term, BRRAG the commitment duration,
    Grow NJ the incentive agreement's): the agreement's end date is the input.

    ``law_as_of`` before P.L.2024, c.40 (July 10, 2024): the law then knew no extension,
    and the commitment period ends on ``commitment_end``; ``version`` names the latest
    version of h. known on that date."""
    h = law(program, text_identity)
    end = as_date(commitment_end, "commitment_end", h.cite_c40)
    as_of = as_law_as_of(law_as_of, h.h.statute, h.reads)
    if as_of is not None and as_of < h.c40_approved:
        version = P.applied(h.h.statute, ((h.h.waiver_end, None),), as_of).name
        step = Step(
            label="Commitment period (not extended)",
            value=end,
            arithmetic=f"law_as_of {as_of} is before {h.version_c40}"
            f" ({h.c40_approved}): {version} extends no commitment period",
            citation=h.cite,
        )
        return CommitmentExtension(
            commitment_end=end,
            extended_end=end,
            version=version,
            program=h.h.program,
            steps=(step,),
        )
    months = h.c40_commitment_extension_months
    extended = within_dates(
        commitment_extension_rule(EXACT, end, months, h.cite_c40),
        "the commitment period extended by two years",
        "commitment_end",
        commitment_end,
        h.cite_c40,
    )
    return CommitmentExtension(
        commitment_end=end,
        extended_end=extended,
        program=h.h.program,
        steps=partial(_steps_of, commitment_extension_rule, end, months, h.cite_c40),
    )


def _around_steps(
    first: Sequence[Step], last: Step, rule: Callable[..., object], *args: object
) -> tuple[Step, ...]:
    """A check's explanation: a statement of the law, the rule's steps, the result."""
    return (*first, *_steps_of(rule, *args), last)
