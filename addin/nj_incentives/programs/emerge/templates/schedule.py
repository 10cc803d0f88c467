"""The Emerge credit schedule (N.J.A.C. 19:31U-1.11; N.J.S.A. 34:1B-346; N.J.A.C.
18:34-1.7(b)): the award from the approval letter, allowed in equal parts over the
eligibility period (the award / its years, rounded down to the cent), carried forward 7
periods, transferred by certificate within 3 years (at least $25,000, for at least 85%)
or surrendered to the State at 90% at least 2 years after its issuance.

Inputs: the award, the eligibility years, the first privilege period's end, a liability a
period, the transfers and surrenders. Calculations: ``NJ_EMERGE_SCHEDULE`` and its
totals (the annual credit is the schedule's first new credit: Emerge has no function of
its own for it). The layout is the credit ledgers' own
(:mod:`nj_incentives.programs.ledger_templates`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from nj_incentives.core.workpaper import NOT_COMPUTED, Check, Item, Kind, LineItem, Workpaper
from nj_incentives.programs.emerge import figures as E
from nj_incentives.programs.emerge import rules as emerge
from nj_incentives.programs.emerge.functions import SCHEDULE_COLUMNS
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

TEMPLATE_ID = "emerge-credit-schedule"
_KEEP = E.CARRYFORWARD_PERIODS.single
#: Rows of periods: a 7-year eligibility period (the usual one: "up to 7 years" is
#: secondary, shared/legal-notes.md 6.4) and the carryforward of its last credit (7 + 7).
#: A longer approval (the schedule takes up to 20 years) shows its first 14 periods and
#: what it carries out of the last.
PERIODS = 7 + _KEEP
_SMALLEST = E.TRANSFER_MINIMUM_AMOUNT.text()
_LEAST = f"{E.TRANSFER_MINIMUM_CONSIDERATION.single:.0%}"
_WINDOW = E.TRANSFER_WINDOW_YEARS.single
_SHARE = f"{E.SURRENDER_SHARE.single:.0%}"
_WAIT = E.SURRENDER_WAIT_YEARS.single

#: The filled example: the worked example of tests/programs/test_grow_nj_emerge.py. An
#: award of $700,000 over 7 years (100,000.00 a period), calendar periods 2023-2032,
#: 30,000 of tax a period; period 3's credit, issued 2025-03-15, surrendered on
#: 2027-03-15, exactly 2 years later, at 90%.
EXAMPLE: Mapping[str, Any] = {
    "engagement": {
        "client": "Example Biotech LLC (fictitious)",
        "entity_id": "00-0000000 (example)",
        "period": "Privilege periods 1-10 (2023-2032)",
        "preparer": "A. Preparer",
        "reviewer": "R. Reviewer",
        "date": dt.date(2026, 12, 1),
    },
    "award": 700_000,
    "eligibility_years": 7,
    "first_period_end": dt.date(2023, 12, 31),
    "liabilities": [30000] * 10,
    "event_kind": ["sale"],
    "event_date": [dt.date(2027, 3, 15)],
    "event_period": [3],
    "event_amount": [None],
    "event_price": [None],
    "event_issued": [dt.date(2025, 3, 15)],
}

LEDGER = LedgerTemplate(
    template_id=TEMPLATE_ID,
    key="emerge",
    program="Emerge",
    title="Emerge credit schedule",
    purpose=(
        "The Emerge Program tax credit period by period: the award the Authority approved "
        "(an input from the approval letter) divided by the years of the eligibility "
        "period, fractions of a cent rounded down (N.J.A.C. 19:31U-1.11(a)), used against "
        f"the tax and carried forward {_KEEP} periods (19:31U-1.11(b)), transferred by "
        f"certificate within {_WINDOW} years (at least {_SMALLEST} for at least {_LEAST}, "
        f"N.J.S.A. 34:1B-346) or surrendered to the State at {_SHARE} at least {_WAIT} years "
        "after its issuance (N.J.A.C. 18:34-1.7(b))."
    ),
    sources=(
        "N.J.S.A. 34:1B-336 et seq. (Emerge Program, P.L.2020, c.156, ss.68-81)",
        "N.J.S.A. 34:1B-346 (transfer certificates)",
        "N.J.A.C. 19:31U-1.11 (the credit per period, carryforward)",
        "N.J.A.C. 18:34-1.3(a), 18:34-1.7(b); N.J.S.A. 52:18A-263 a. (surrender)",
    ),
    schedule="NJ_EMERGE_SCHEDULE(Award,FirstPeriodEnd,Liabilities,EligibilityYears,Events)",
    schedule_columns=SCHEDULE_COLUMNS,
    # the schedule's first new credit: the award / the eligibility years
    annual="IF(COUNT([[data:Schedule:New credit]])>0,[[at:Schedule:New credit:0]],"
    f'"{NOT_COMPUTED}")',
    schedule_cite="N.J.A.C. 19:31U-1.11; N.J.S.A. 34:1B-346",
    annual_source=emerge.CITE_ANNUAL,
    years=Item(
        "Years of the eligibility period",
        "EligibilityYears",
        Kind.COUNT,
        "years",
        key="eligibility_years",
        minimum=1,
        maximum=emerge.LONGEST_YEARS,
        prompt="Eligibility years",
        help="As in the approval (usually up to 7): the award is allowed in equal parts over "
        "them (N.J.A.C. 19:31U-1.11(a)).",
    ),
    periods=PERIODS,
    carryforward=str(_KEEP),
    cite_award=emerge.CITE_ANNUAL,
    cite_carryforward=emerge.CITE_CARRYFORWARD,
    cite_transfer=emerge.CITE_TRANSFER,
    cite_sale=emerge.CITE_SURRENDER,
    transfer_minimum=E.TRANSFER_MINIMUM_AMOUNT.single,
    transfer_share=E.TRANSFER_MINIMUM_CONSIDERATION.single,
    sale_share=E.SURRENDER_SHARE.single,
    sale_exact=True,
    event_help=(
        f"A transfer certificate sells at least {_SMALLEST} of one period's credit for at "
        f"least {_LEAST} of it, within {_WINDOW} years of the period it is allowed in "
        f'(N.J.S.A. 34:1B-346). A surrender (kind "sale") gives the State a credit whole, '
        f"at least {_WAIT} years after its issuance, for {_SHARE} of it (N.J.A.C. "
        "18:34-1.3(a), 18:34-1.7(b)): give its issuance date."
    ),
    price_help=f"A transfer: the consideration (at least {_LEAST} of the credit, 34:1B-346 "
    f"b.(1)). A surrender: blank ({_SHARE}, 18:34-1.7(b)).",
    issued_help=f"The day the credit was issued (its certificate): needed for a surrender, "
    f"at least {_WAIT} years later (N.J.A.C. 18:34-1.7(b)).",
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
