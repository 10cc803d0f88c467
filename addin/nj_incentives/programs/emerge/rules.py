"""Emerge's credit schedule with the approved award as input (shared/legal-notes.md 6.4;
issue 33 item 5).

- The annual credit: the award / the years of the eligibility period, fractions of a cent
  rounded down (N.J.A.C. 19:31U-1.11(a)).
- Carryforward: usable in the period allowed or the next 7 tax periods, then it expires
  (19:31U-1.11(b)); used oldest first (:mod:`nj_incentives.core.ledger`).
- Transfer certificates (N.J.S.A. 34:1B-346 a., b.(1)): within 3 years of the period the
  credit is allowed in (read: by the last day of that period + 3 years), in amounts of at
  least $25,000, for at least 85% of the credit (before discounting).
- Surrender to the State (N.J.A.C. 18:34-1.7(b); 52:18A-263 a.): a credit whole (18:34-1.3(a)),
  presented no earlier than 2 years after its issuance (a date from the certificate: an
  input), reimbursed at 90% of its value, rounded down to the cent.

Readings: docs/interpretations.md, "Grow NJ and Emerge credit schedules".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

from nj_incentives.core import ledger as L
from nj_incentives.core.common import (
    DateLike,
    Explained,
    InputError,
    Number,
    Step,
    as_date,
    as_int,
    as_money,
    fmt_money,
    fmt_pct,
)
from nj_incentives.core.rules import EXACT, Rules, V, explain
from nj_incentives.programs.emerge import figures as E

__all__ = [
    "CITE_ANNUAL",
    "CITE_CARRYFORWARD",
    "CITE_SURRENDER",
    "CITE_TRANSFER",
    "Surrender",
    "annual_credit_rule",
    "credit_schedule",
    "surrender",
    "surrender_rule",
]

CITE_ANNUAL = "N.J.A.C. 19:31U-1.11(a)"
CITE_CARRYFORWARD = "N.J.A.C. 19:31U-1.11(b)"
CITE_TRANSFER = "N.J.S.A. 34:1B-346"
CITE_SURRENDER = "N.J.A.C. 18:34-1.7(b); N.J.S.A. 52:18A-263 a."
CITE_WHOLE = "N.J.A.C. 18:34-1.3(a)"
#: An input bound, not law: the longest eligibility period the schedule takes (Emerge's
#: "up to 7 years" is secondary, shared/legal-notes.md 6.4).
LONGEST_YEARS = 20


def annual_credit_rule(r: Rules, award: V, years: V) -> V:
    """19:31U-1.11(a): the total credit / the years of the eligibility period, fractions of
    a cent rounded down."""
    return r.div(
        award,
        years,
        label="Annual credit: award / years of the eligibility period, rounded down to the cent",
        cite=CITE_ANNUAL,
    )


class Surrender(Explained):
    """What the State pays for a credit surrendered on ``presented``."""

    credit: Decimal
    issued: dt.date
    presented: dt.date
    #: the first day it may be presented (2 years after issuance)
    first_day: dt.date
    eligible: bool
    price: Decimal


def surrender_rule(r: Rules, credit: V, issued: V, presented: V) -> tuple[V, V, V]:
    """18:34-1.7(b): (the first day it may be presented, whether ``presented`` is on or
    after it, the reimbursement: 90% of the credit rounded down; 0 when not eligible)."""
    first = r.add_months(
        issued,
        12 * E.SURRENDER_WAIT_YEARS.single,
        label="First day the credit may be presented: issuance + 2 years",
        cite=CITE_SURRENDER,
    )
    eligible = r.ge(
        presented, first, label="Presented 2 years or more after issuance", cite=CITE_SURRENDER
    )
    price = r.where(
        eligible,
        r.share(credit, E.SURRENDER_SHARE.single),
        Decimal("0.00"),
        label="Reimbursed: 90% of the credit, rounded down to the cent",
        cite=CITE_SURRENDER,
    )
    return first, eligible, price


def surrender(credit: Number, issued: DateLike, presented: DateLike) -> Surrender:
    """A credit surrendered to the State (:func:`surrender_rule`)."""
    amount = as_money(credit, "credit", CITE_SURRENDER)
    day_issued = as_date(issued, "issued", CITE_SURRENDER)
    day = as_date(presented, "presented", CITE_SURRENDER)
    first, eligible, price = surrender_rule(EXACT, amount, day_issued, day)
    return Surrender(
        credit=amount,
        issued=day_issued,
        presented=day,
        first_day=first,
        eligible=bool(eligible),
        price=price,
        steps=lambda: explain(surrender_rule, amount, day_issued, day)[1],
    )


def credit_schedule(
    award: Number,
    first_period_end: DateLike,
    liabilities: Sequence[Number],
    eligibility_years: Number,
    events: Sequence[Sequence[object]] | None = None,
    approval_date: DateLike | None = None,
) -> L.CreditLedger:
    """Emerge's credit over the periods of ``liabilities`` (the module docstring): each
    of the first ``eligibility_years`` periods is allowed the annual credit; the events
    (rows ``kind, date, period, amount, price, issued``) transfer or surrender credit of a
    period; the rest is used against each period's liability, oldest first, and expires
    after 7 periods."""
    total = as_money(award, "award", CITE_ANNUAL)
    first = as_date(first_period_end, "first_period_end", CITE_CARRYFORWARD)
    approval = None if approval_date is None else as_date(approval_date, "approval_date")
    years = as_int(
        eligibility_years,
        "eligibility_years",
        CITE_ANNUAL,
        low=1,
        high=LONGEST_YEARS,
        rule=f"must be a whole number of years from 1 to {LONGEST_YEARS} (the approval's)",
    )
    if not liabilities:
        raise InputError("liabilities", None, "give one liability a period", CITE_CARRYFORWARD)
    limits = [
        as_money(value, f"liabilities[{n}]", CITE_CARRYFORWARD)
        for n, value in enumerate(liabilities, 1)
    ]
    keep = E.CARRYFORWARD_PERIODS.at(approval)
    ends = L.period_ends(first, len(limits))
    annual = annual_credit_rule(EXACT, total, years)
    read = L.read_events(events, len(limits), CITE_TRANSFER)
    placed = L.place_events(read, ends, years, keep, CITE_TRANSFER)
    _check_transfers(read, placed, ends, approval)
    new = [annual if index < years else Decimal("0.00") for index in range(len(ends))]
    periods, taken = L.ledger_rule(EXACT, new, limits, keep, placed)
    L.check_taken(read, placed, taken, CITE_TRANSFER, CITE_WHOLE)
    proceeds: list[Decimal] = []
    for event, took in zip(read, taken, strict=True):
        if event.kind == "transfer":
            assert event.price is not None  # _check_transfers
            proceeds.append(event.price)
            continue
        where = f"events row {event.row}"
        if event.issued is None:
            rule = "a surrender runs 2 years from the credit's issuance: give its date"
            raise InputError(f"{where} issued", None, rule, CITE_SURRENDER)
        first_day, eligible, price = surrender_rule(EXACT, took, event.issued, event.date)
        if not eligible:
            rule = f"is before {first_day}, 2 years after the credit's issuance ({event.issued})"
            raise InputError(f"{where} date", event.date, rule, CITE_SURRENDER)
        if event.price is not None and event.price != price:
            rule = f"the State reimburses 90% of the credit: {fmt_money(price)}"
            raise InputError(f"{where} price", event.price, rule, CITE_SURRENDER)
        proceeds.append(price)

    def steps() -> tuple[Step, ...]:
        names = [f"Period ending {end}: " for end in ends]
        found = list(explain(annual_credit_rule, total, years)[1])
        found += explain(
            L.ledger_rule,
            new,
            limits,
            keep,
            placed,
            (),
            names,
            CITE_CARRYFORWARD,
            CITE_CARRYFORWARD,
        )[1]
        for event, place, took, paid in zip(read, placed, taken, proceeds, strict=True):
            what = "transfer" if event.kind == "transfer" else "surrender to the State"
            found.append(
                Step(
                    label=f"Period {place.period + 1}: {what} of period {event.vintage}'s credit",
                    value=took,
                    arithmetic=f"{fmt_money(took)} for {fmt_money(paid)}",
                    citation=CITE_TRANSFER if event.kind == "transfer" else CITE_SURRENDER,
                )
            )
        return tuple(found)

    return L.build_ledger(
        award=total,
        eligibility_years=years,
        annual=annual,
        ends=ends,
        keep=keep,
        events=placed,
        proceeds=proceeds,
        explainer=steps,
        periods=periods,
    )


def _check_transfers(
    events: Sequence[L.EventInput],
    placed: Sequence[L.LedgerEvent],
    ends: Sequence[dt.date],
    approval: dt.date | None,
) -> None:
    """34:1B-346: within 3 years of the period allowed, at least $25,000, for at least 85%."""
    smallest = E.TRANSFER_MINIMUM_AMOUNT.single
    consideration = E.TRANSFER_MINIMUM_CONSIDERATION.single
    window = E.TRANSFER_WINDOW_YEARS.at(approval)
    for event, place in zip(events, placed, strict=True):
        if event.kind != "transfer":
            continue
        where = f"events row {event.row}"
        if event.amount is None:
            rule = "a transfer needs the amount of credit sold"
            raise InputError(f"{where} amount", None, rule, CITE_TRANSFER)
        if event.amount < smallest:
            smallest_text = E.TRANSFER_MINIMUM_AMOUNT.text()
            rule = f"a transfer certificate sells at least {smallest_text} of credit"
            raise InputError(f"{where} amount", event.amount, rule, f"{CITE_TRANSFER} b.(1)")
        if event.price is None:
            raise InputError(
                f"{where} price", None, "a transfer needs its consideration", CITE_TRANSFER
            )
        if event.price < event.amount * consideration:
            rule = (
                f"the consideration must be at least {fmt_pct(consideration)} of the credit"
                f" transferred ({fmt_money(event.amount * consideration)})"
            )
            raise InputError(f"{where} price", event.price, rule, f"{CITE_TRANSFER} b.(1)")
        last: dt.date = EXACT.add_months(ends[place.vintage], 12 * window)
        if event.date > last:
            rule = (
                f"after {last}, {window} years from the end of the period the credit is allowed"
                f" in (period {event.vintage})"
            )
            raise InputError(f"{where} date", event.date, rule, f"{CITE_TRANSFER} a., b.(1)")
