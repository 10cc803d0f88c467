"""The Grow NJ credit schedule (N.J.S.A. 34:1B-247, -248; N.J.A.C. 19:31Q-1.9; N.J.S.A.
52:18A-263, N.J.A.C. 18:34-1.7(a)): the award from the approval letter, allowed in equal
parts over the eligibility period (the award / its years, rounded down to the cent),
carried forward 20 periods, transferred by certificate (at least $25,000, for at least
75%) or sold to the State (at most 20%, 40%, 60% or 75% by the years before it expires).

Inputs: the award, the eligibility years, the first privilege period's end, the transfer
window's and the purchase bracket's readings (switches), a liability a period, the
transfers and sales. Calculations: ``NJ_GROW_NJ_ANNUAL_CREDIT`` and
``NJ_GROW_NJ_SCHEDULE`` and their totals. The layout is the credit ledgers' own
(:mod:`nj_incentives.programs.ledger_templates`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from nj_incentives.core.workpaper import Check, Item, Kind, LineItem, Workpaper
from nj_incentives.programs.grow_nj import figures as G
from nj_incentives.programs.grow_nj import rules as grow
from nj_incentives.programs.grow_nj.functions import SCHEDULE_COLUMNS
from nj_incentives.programs.ledger_templates import LedgerTemplate

__all__ = [
    "CHECKS",
    "EXAMPLE",
    "PERIODS",
    "RETURN",
    "ROLL_FORWARD",
    "TEMPLATE",
    "TEMPLATE_ID",
    "workpaper",
]

TEMPLATE_ID = "grow-nj-credit-schedule"
_LONGEST = G.ELIGIBILITY_YEARS.single
_KEEP = G.CARRYFORWARD_PERIODS.single
#: Rows of periods: the longest eligibility period and the carryforward of its last credit
#: (10 + 20), so that a schedule can run to the last day any credit may be used.
PERIODS = _LONGEST + _KEEP
_SMALLEST = G.TRANSFER_MINIMUM_AMOUNT.text()
_LEAST = f"{G.TRANSFER_MINIMUM_CONSIDERATION.single:.0%}"
_BRACKETS = ", ".join(
    f"{share.single:.0%}"
    for share in (
        G.STATE_PURCHASE_OVER_3_YEARS,
        G.STATE_PURCHASE_2_TO_3_YEARS,
        G.STATE_PURCHASE_1_TO_2_YEARS,
        G.STATE_PURCHASE_UNDER_1_YEAR,
    )
)

#: The filled example: the worked example of tests/programs/test_grow_nj_emerge.py. An
#: award of $1,000,000 over 10 years (100,000.00 a period), calendar periods 2020-2031,
#: 40,000 of tax a period through 2029; a transfer of 50,000 of period 2's credit for
#: 40,000 in 2022, period 5's credit sold to the State whole in 2026 (more than 3 years
#: before it expires: at most 20%).
EXAMPLE: Mapping[str, Any] = {
    "engagement": {
        "client": "Example Logistics Inc. (fictitious)",
        "entity_id": "00-0000000 (example)",
        "period": "Privilege periods 1-12 (2020-2031)",
        "preparer": "A. Preparer",
        "reviewer": "R. Reviewer",
        "date": dt.date(2026, 12, 1),
    },
    "award": 1_000_000,
    "eligibility_years": 10,
    "first_period_end": dt.date(2020, 12, 31),
    "transfer_window": "statute",
    "boundary": "lower",
    "liabilities": [40000] * 10 + [0, 0],
    "event_kind": ["transfer", "sale"],
    "event_date": [dt.date(2022, 6, 30), dt.date(2026, 6, 30)],
    "event_period": [2, 5],
    "event_amount": [50000, None],
    "event_price": [40000, None],
    "event_issued": [None, None],
}

LEDGER = LedgerTemplate(
    template_id=TEMPLATE_ID,
    key="grow_nj",
    program="Grow NJ",
    title="Grow NJ credit schedule",
    purpose=(
        "The Grow New Jersey Assistance Program tax credit period by period: the award the "
        "Authority approved (an input from the approval letter) divided by the years of the "
        "eligibility period, fractions of a cent rounded down (N.J.A.C. 19:31Q-1.9(a)), used "
        f"against the tax and carried forward {_KEEP} periods (N.J.S.A. 34:1B-247; N.J.A.C. "
        f"19:31Q-1.9(c)), transferred by certificate (at least {_SMALLEST} for at least "
        f"{_LEAST}, N.J.S.A. 34:1B-248) or sold to the State (at most {_BRACKETS} by the "
        "years before it expires, N.J.S.A. 52:18A-263; N.J.A.C. 18:34-1.7(a))."
    ),
    sources=(
        "N.J.S.A. 34:1B-242 to -250 (Grow New Jersey Assistance Program)",
        "N.J.S.A. 34:1B-248 (transfer certificates, as amended by P.L.2014, c.63)",
        "N.J.A.C. 19:31Q-1.9 (the credit per period, carryforward, transfer)",
        "N.J.S.A. 52:18A-263; N.J.A.C. 18:34-1.3, 18:34-1.7(a) (the Director's purchase)",
    ),
    schedule=(
        "NJ_GROW_NJ_SCHEDULE(Award,FirstPeriodEnd,Liabilities,EligibilityYears,Events,"
        "TransferWindow,Boundary)"
    ),
    schedule_columns=SCHEDULE_COLUMNS,
    annual="NJ_GROW_NJ_ANNUAL_CREDIT(Award,EligibilityYears)",
    schedule_cite="N.J.S.A. 34:1B-247, -248; 52:18A-263",
    annual_source=grow.CITE_ANNUAL,
    years=Item(
        "Years of the eligibility period",
        "EligibilityYears",
        Kind.COUNT,
        "years",
        key="eligibility_years",
        minimum=1,
        maximum=_LONGEST,
        prompt="Eligibility years",
        help=f"As in the approval, 1 to {_LONGEST} (N.J.S.A. 34:1B-244 a.): the award is "
        "allowed in equal parts over them (N.J.A.C. 19:31Q-1.9(a)).",
    ),
    periods=PERIODS,
    carryforward=str(_KEEP),
    cite_award=grow.CITE_ANNUAL,
    cite_carryforward=grow.CITE_CARRYFORWARD,
    cite_transfer=grow.CITE_TRANSFER,
    cite_sale=grow.CITE_PURCHASE,
    transfer_minimum=G.TRANSFER_MINIMUM_AMOUNT.single,
    transfer_share=G.TRANSFER_MINIMUM_CONSIDERATION.single,
    sale_share=G.STATE_PURCHASE_MAXIMUM.single,
    sale_exact=False,
    switches=(
        Item(
            "Transfer window",
            "TransferWindow",
            Kind.CHOICE,
            "choice",
            key="transfer_window",
            default="statute",
            choices=grow.TRANSFER_WINDOWS,
            help='"statute": any time the credit may be used (N.J.S.A. 34:1B-247, default); '
            '"rule": within 3 years of issuance (N.J.A.C. 19:31Q-1.9): the two conflict '
            "(docs/interpretations.md).",
        ),
        Item(
            "State's share at exactly 1, 2 or 3 years",
            "Boundary",
            Kind.CHOICE,
            "choice",
            key="boundary",
            default="lower",
            choices=grow.BOUNDARIES,
            prompt="Purchase bracket boundary",
            help="A credit presented exactly 1, 2 or 3 years before it expires is in no "
            'bracket of N.J.A.C. 18:34-1.7(a): "lower" the smaller share (default), '
            '"higher" the larger.',
        ),
    ),
    event_help=(
        f"A transfer certificate sells at least {_SMALLEST} of one period's credit for at "
        f"least {_LEAST} of it (N.J.S.A. 34:1B-248). The State buys a credit whole, "
        "presented at least 90 days before it expires, for at most "
        f"{_BRACKETS} of it by the years left (N.J.S.A. 52:18A-263; N.J.A.C. 18:34-1.3, "
        "1.7(a)); the Director decides the price within that: enter it, or leave it blank "
        "for the most."
    ),
    price_help=f"A transfer: the consideration (at least {_LEAST} of the credit, 34:1B-248). "
    "A sale to the State: the price the Director agreed; blank = the most (18:34-1.7(a)).",
    issued_help="The day the credit was issued (its certificate): needed for a transfer "
    'under the rule\'s window (TransferWindow "rule", N.J.A.C. 19:31Q-1.9).',
)

#: The Checks sheet's lines.
CHECKS: tuple[Check, ...] = LEDGER.checks()
#: The whole template, in the order the builder lays it out.
TEMPLATE: tuple[LineItem, ...] = LEDGER.template()

#: The return of a tax year (:data:`nj_incentives.core.workpaper.ReturnOf`): the Return
#: sheet's figures, read from the same cells.
RETURN = LEDGER.return_of()

#: The next privilege period (``nj-incentives rollforward``).
ROLL_FORWARD = LEDGER.roll_forward()


def workpaper(values: Mapping[str, Any] | None = None) -> Workpaper:
    """The workbook for ``values`` (keys as in :data:`EXAMPLE`; none: the blank template)."""
    return LEDGER.workpaper(TEMPLATE, values)
