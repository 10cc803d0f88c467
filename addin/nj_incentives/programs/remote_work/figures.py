"""The remote-work election's dated figures: one text, enacted by P.L.2022, c.134 in four
sections (N.J.S.A. 34:1B-129 h., 34:1B-120 b., 34:1B-209, 34:1B-247) and amended in all
four by the January 2024 act and P.L.2024, c.40 (shared/legal-notes.md section 6.1; model:
:mod:`nj_incentives.core.parameters`).

Each program that applies the provision declares its own subsection with
:func:`declare_subsection_h` in its ``figures.py``: the acts are filed on that program's
statute (so each section's law-currency record lists its own versions of the text) and the
figures are keyed by that program (``beip.remote_work.waiver_end``,
``grow_nj.remote_work.waiver_end``), each with its section's citation. Adding a program
that shares the text is its folder and its registry line: nothing here names it.

This module's own figures are the public health emergency the election follows
(Executive Orders No. 103 and No. 244), shared by the four sections; they are filed on the
provision's own record (``statute="remote_work"``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from nj_incentives.core.parameters import (
    Act,
    Parameter,
    Selector,
    Version,
    declare_act,
    declare_figure,
    declare_statute,
)

declare_statute(
    "remote_work",
    "Remote-work election: the public health emergency it follows",
    "Executive Orders No. 103 (2020) and No. 244 (2021)",
)
EXECUTIVE_ORDER_244 = declare_act(
    "remote_work",
    "Executive Order No. 244",
    dt.date(2021, 6, 4),
    source=(
        "public record of the orders' texts: Executive Order No. 103 declared the emergency on"
        " March 9, 2020; Executive Order No. 244, issued and effective June 4, 2021, ended it"
        " (shared/legal-notes.md section 4)"
    ),
)
EMERGENCY_DECLARED: Parameter[dt.date] = declare_figure(
    "remote_work.emergency_declared",
    "remote_work",
    "Public health emergency of Executive Order No. 103 declared",
    "Executive Order No. 103 (2020)",
    Selector.FIXED,
    "date",
    Version(dt.date(2020, 3, 9), EXECUTIVE_ORDER_244),
)
EMERGENCY_ENDED: Parameter[dt.date] = declare_figure(
    "remote_work.emergency_ended",
    "remote_work",
    "Public health emergency of Executive Order No. 103 ended",
    "Executive Order No. 244 (2021)",
    Selector.FIXED,
    "date",
    Version(dt.date(2021, 6, 4), EXECUTIVE_ORDER_244),
)
#: The other date the sources give for the end (shared/legal-notes.md section 6.5, 16):
#: the Assembly Appropriations Committee's statement to A-6261 (2022-01-06) says the
#: emergency "ended on July 4, 2021", the day most orders expired, 30 days after Executive
#: Order No. 244 was signed. Recorded, not applied: the election's lower bound stays June 4,
#: 2021 (docs/interpretations.md, "Remote-work election").
EMERGENCY_ORDERS_EXPIRED: Parameter[dt.date] = declare_figure(
    "remote_work.emergency_orders_expired",
    "remote_work",
    "Public health emergency of Executive Order No. 103: orders expired (the other date"
    " given for its end; recorded, not applied)",
    "Assembly Appropriations Committee statement to A-6261 (2022-01-06)",
    Selector.FIXED,
    "date",
    Version(dt.date(2021, 7, 4), EXECUTIVE_ORDER_244),
    quote="ended on July 4, 2021",
)

#: The first day of P.L.2024, c.40's rule: "for the tax period beginning on April 1, 2024
#: and every later tax period" (the same in the four sections).
_C40_FROM = dt.date(2024, 4, 1)

_JANUARY_2024_SOURCE = (
    "A-5840/S-4217 of the 2022-2023 session, enrolled January 8, approved January 12,"
    ' 2024 (chapter number not found); NJBIA, January 2024: "only until April 1, 2024.'
    ' The requirement was previously set to expire at the end of 2023"'
)
_C40_SOURCE = (
    "A-4046 of the 2024-2025 session, approved July 10, 2024; BillTrack50 bill record;"
    ' Deloitte "State Tax Matters", July 12, 2024; the 10%: OLS Legislative Fiscal'
    ' Estimate to A-4046 [Third Reprint], July 3, 2024 ("payments made by businesses'
    " equal to 10 percent of maximum annual tax credit the business is eligible to"
    ' receive for a tax period", shared/legal-notes.md section 7)'
)
_C40_NOTE = "the enacted text was not found: the OLS estimate is of the bill, not the act"


@dataclass(frozen=True)
class SubsectionH:
    """One program's remote-work subsection: its section, its acts and its figures."""

    #: the program that applies it (``beip``) and the statute record its acts are filed on
    program: str
    statute: str
    #: "N.J.S.A. 34:1B-120" and its letter ("b."; "" where not found: cited without one)
    section: str
    letter: str
    #: True: its P.L.2022, c.134 text was read and found word for word 34:1B-129 h.'s;
    #: False: the identity is asserted by summaries only (a documented assumption)
    verified: bool
    base: Act
    january: Act
    c40: Act
    election_before: Parameter[dt.date]
    waiver_start: Parameter[dt.date]
    waiver_end: Parameter[dt.date]
    waived_share: Parameter[Decimal]
    minimum_share: Parameter[Decimal]
    payment_share: Parameter[Decimal]
    tax_year: Parameter[int]
    c40_from: Parameter[dt.date]
    commitment_extension_months: Parameter[int]
    #: Grow NJ and UTH: a business that modified its agreement under c.134 may request,
    #: before this day, to reduce the Statewide employees of its agreement (None: no such
    #: request in this program's text)
    reduce_statewide_before: Parameter[dt.date] | None

    @property
    def cite(self) -> str:
        """The subsection ("N.J.S.A. 34:1B-129h."; without a letter: the section)."""
        return f"{self.section}{self.letter}" if self.letter else self.section

    def paragraph(self, number: int) -> str:
        """Its paragraph ``number`` ("N.J.S.A. 34:1B-129h.(1)"; without a letter: the
        section, "(1) of the remote-work text")."""
        if self.letter:
            return f"{self.section}{self.letter}({number})"
        return f"{self.section} ({number}) of the remote-work text"


#: Every program's subsection, by program key, as the programs' figures declare them.
SUBSECTIONS: dict[str, SubsectionH] = {}


def declare_subsection_h(
    program: str,
    statute: str,
    section: str,
    letter: str,
    base: Act,
    verified: bool,
    reduce_statewide_request: bool = False,
) -> SubsectionH:
    """Declare program ``program``'s remote-work subsection: the January 2024 act and
    P.L.2024, c.40 filed on ``statute`` (its record), and its figures keyed
    ``<program>.remote_work.*`` with ``section``'s citation. ``base``: the act of its
    P.L.2022, c.134 text (its statute's first version of the text)."""
    cite = f"{section}{letter}" if letter else section

    def para(number: int) -> str:
        return f"{cite}({number})" if letter else f"{section} ({number})"

    c40_cite = f"{cite} as amended by P.L.2024, c.40"
    january = declare_act(
        statute,
        "January 2024 act (A-5840/S-4217)",
        dt.date(2024, 1, 12),
        source=_JANUARY_2024_SOURCE,
        confirmed=False,
        note="whether the election deadline moved is not known: switch election_deadline",
    )
    c40 = declare_act(
        statute, "P.L.2024, c.40", dt.date(2024, 7, 10), _C40_SOURCE, False, _C40_NOTE
    )

    def figure(
        name: str,
        title: str,
        citation: str,
        selector: Selector,
        kind: str,
        *versions: Version[Any],
        quote: str = "",
    ) -> Parameter[Any]:
        return declare_figure(
            f"{program}.remote_work.{name}",
            statute,
            title,
            citation,
            selector,
            kind,
            *versions,
            quote=quote,
        )

    reduce_before = None
    if reduce_statewide_request:
        reduce_before = figure(
            "reduce_statewide_before",
            "Request to reduce the Statewide employees of the agreement made before (secondary)",
            c40_cite,
            Selector.FIXED,
            "date",
            Version(
                dt.date(2024, 12, 31),
                c40,
                change="a business that modified its agreement under P.L.2022, c.134 may"
                " request, before December 31, 2024, to reduce its Statewide employees"
                " (Deloitte; the OLS estimate: a one-year extension of the deadline)",
                modelled="remote_work_check's reduction_request_date: refused on or after it",
            ),
        )
    found = SubsectionH(
        program=program,
        statute=statute,
        section=section,
        letter=letter,
        verified=verified,
        base=base,
        january=january,
        c40=c40,
        election_before=figure(
            "election_before",
            "Remote-work election made before",
            cite,
            Selector.TAX_PERIOD,
            "date",
            Version(dt.date(2023, 12, 31), base),
            quote="may elect, before December 31, 2023",
        ),
        waiver_start=figure(
            "waiver_start",
            "Remote-work waiver period begins",
            cite,
            Selector.TAX_PERIOD,
            "date",
            Version(dt.date(2022, 7, 1), base),
            quote="for the period beginning on July 1, 2022",
        ),
        waiver_end=figure(
            "waiver_end",
            "Remote-work waiver period ends",
            cite,
            Selector.TAX_PERIOD,
            "date",
            Version(dt.date(2023, 12, 31), base),
            Version(
                dt.date(2024, 3, 31),
                january,
                change="waiver through March 31, 2024 (was December 31, 2023)",
                modelled="the waiver period of an election under the January 2024 act",
            ),
            Version(
                dt.date(2024, 3, 31),
                c40,
                change="waiver July 1, 2022 through March 31, 2024 (restated)",
                modelled="unchanged from the January 2024 act",
            ),
            quote="and ending on December 31, 2023",
        ),
        waived_share=figure(
            "waived_share_at_facility",
            "On-site share the waiver waives",
            cite,
            Selector.TAX_PERIOD,
            "fraction",
            Version(Decimal("0.60"), base),
            quote="at least 60 percent of the employee's time",
        ),
        minimum_share=figure(
            "minimum_share_at_facility",
            "On-site share required under the waiver",
            para(1),
            Selector.TAX_PERIOD,
            "fraction",
            Version(Decimal("0.10"), base),
            Version(
                Decimal("0.40"),
                c40,
                applies_from=_C40_FROM,
                change="from the tax period beginning April 1, 2024, outside an enhanced area"
                " or a government-restricted municipality: at least 40% of the time at the"
                " facility",
                modelled="remote_work_check with period_start from 2024-04-01 (enhanced_area"
                " an input; inside one, no waiver)",
            ),
            quote="at least 10 percent of the employee's time at the qualified business facility",
        ),
        payment_share=figure(
            "payment_share",
            "Remote-work payment, share of the credit",
            para(2),
            Selector.TAX_PERIOD,
            "fraction",
            Version(Decimal("0.05"), base),
            Version(
                Decimal("0.10"),
                c40,
                applies_from=_C40_FROM,
                change="a non-refundable payment of 10% of the maximum tax credit for each tax"
                " period from April 1, 2024",
                modelled="remote_work_payment with a period_end on or after 2024-04-01"
                " (c40_periods: containing, numbered or beginning)",
            ),
            quote="five percent of the amount of tax credit",
        ),
        tax_year=figure(
            "tax_year",
            "Tax period of the remote-work payment",
            para(2),
            Selector.TAX_PERIOD,
            "year",
            Version(2022, base),
            quote="for the 2022 tax period",
        ),
        c40_from=figure(
            "c40_from",
            "First day of the 40% on-site rule (outside an enhanced area or a"
            " government-restricted municipality) and of no waiver inside one",
            c40_cite,
            Selector.FIXED,
            "date",
            Version(_C40_FROM, c40, change="new rule from April 1, 2024"),
            quote="for the tax period beginning on April 1, 2024 and every later tax period",
        ),
        commitment_extension_months=figure(
            "commitment_extension_months",
            "Extension of the commitment period for the waiver from April 1, 2024, months",
            c40_cite,
            Selector.TAX_PERIOD,
            "count",
            Version(
                24,
                c40,
                change="the business extends its commitment period by two years",
                modelled="extended_commitment_end = commitment_end + 24 months (an output date)",
            ),
            quote="extends by two years the term of its commitment period",
        ),
        reduce_statewide_before=reduce_before,
    )
    SUBSECTIONS[program] = found
    return found
