"""Grow NJ's credit schedule with the approved award as input (shared/legal-notes.md 6.2.2
and 6.3; issue 33 item 5).

- The annual credit: the award divided by the years of the eligibility period, fractions
  of a cent rounded down (N.J.A.C. 19:31Q-1.9(a)); no more may be taken in a period
  (N.J.S.A. 34:1B-247).
- Carryforward: usable in the period allowed or the next 20 tax periods, then it expires
  (34:1B-247; 19:31Q-1.9(c)); used oldest first (:mod:`nj_incentives.core.ledger`).
- Transfer certificates (N.J.S.A. 34:1B-248): sold in amounts of at least $25,000, for at
  least 75% of the credit transferred (before discounting). The window: the statute's
  "at any time" while the credit can be used (default), or the rule's three years from
  issuance (N.J.A.C. 19:31Q-1.9; switch ``transfer_window``: open question 10).
- Sale to the State (N.J.S.A. 52:18A-263; N.J.A.C. 18:34-1.3, 1.7(a)): a credit whole,
  presented at least 90 days before it expires, for at most 20%, 40%, 60% or 75% of it by
  the time to its expiration; the Director decides the price within that (an input; the
  most is shown without it). The text leaves a presentation exactly one, two or three
  years before the expiration in no bracket: switch ``boundary`` ("lower": the smaller
  share, default; "higher").

Periods are 12-month privilege periods, the first ending on ``first_period_end``; the
liability of each is the tax the credit may be used against (after the credits applied
before it, N.J.A.C. 18:7-3.17: the portfolio computes that order). Readings:
docs/interpretations.md, "Grow NJ and Emerge credit schedules".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from functools import partial

from nj_incentives.core import ledger as L
from nj_incentives.core.common import (
    DateLike,
    Explained,
    InputError,
    Number,
    Step,
    as_choice,
    as_date,
    as_int,
    as_money,
    fmt_money,
    fmt_pct,
)
from nj_incentives.core.rules import EXACT, Rules, V, explain
from nj_incentives.programs.grow_nj import figures as G

__all__ = [
    "BOUNDARIES",
    "CITE_ANNUAL",
    "CITE_CARRYFORWARD",
    "CITE_PURCHASE",
    "CITE_TRANSFER",
    "TRANSFER_WINDOWS",
    "AnnualCredit",
    "StatePurchase",
    "annual_credit",
    "annual_credit_rule",
    "credit_schedule",
    "purchase_share_rule",
    "state_purchase",
]

CITE_ANNUAL = "N.J.A.C. 19:31Q-1.9(a); N.J.S.A. 34:1B-247"
CITE_CARRYFORWARD = "N.J.S.A. 34:1B-247; N.J.A.C. 19:31Q-1.9(c)"
CITE_TRANSFER = "N.J.S.A. 34:1B-248"
CITE_TRANSFER_RULE = "N.J.A.C. 19:31Q-1.9"
CITE_PURCHASE = "N.J.S.A. 52:18A-263; N.J.A.C. 18:34-1.7(a)"
CITE_WHOLE = "N.J.A.C. 18:34-1.3(a)"
CITE_READING = "docs/interpretations.md"

#: ``transfer_window``: "statute" (34:1B-247: any time the credit may be used) or "rule"
#: (19:31Q-1.9: within three years of issuance).
TRANSFER_WINDOWS = ("statute", "rule")
#: ``boundary``: the share for a credit presented exactly one, two or three years before
#: it expires, which 18:34-1.7(a) puts in no bracket: "lower" (the smaller) or "higher".
BOUNDARIES = ("lower", "higher")


def _years(eligibility_years: Number | None, approval_date: dt.date | None, citation: str) -> int:
    longest = G.ELIGIBILITY_YEARS.at(approval_date)
    if eligibility_years is None:
        return longest
    return as_int(
        eligibility_years,
        "eligibility_years",
        citation,
        low=1,
        high=longest,
        rule=f"must be a whole number of years from 1 to {longest} (N.J.S.A. 34:1B-244 a.)",
    )


# =========================================================================== the annual credit


class AnnualCredit(Explained):
    """The credit allowed a period (``amount``): the award / the eligibility years."""

    amount: Decimal
    award: Decimal
    eligibility_years: int


def annual_credit_rule(r: Rules, award: V, years: V) -> V:
    """N.J.A.C. 19:31Q-1.9(a): the total credit / the years of the eligibility period,
    fractions of a cent rounded down."""
    return r.div(
        award,
        years,
        label="Annual credit: award / years of the eligibility period, rounded down to the cent",
        cite=CITE_ANNUAL,
    )


def annual_credit(
    award: Number, eligibility_years: Number | None = None, approval_date: DateLike | None = None
) -> AnnualCredit:
    """The credit allowed in each period of the eligibility period (:func:`annual_credit_rule`).
    ``eligibility_years`` blank: the longest, 10 (34:1B-244 a.)."""
    total = as_money(award, "award", CITE_ANNUAL)
    approval = None if approval_date is None else as_date(approval_date, "approval_date")
    years = _years(eligibility_years, approval, CITE_ANNUAL)
    amount = annual_credit_rule(EXACT, total, years)
    return AnnualCredit(
        amount=amount,
        award=total,
        eligibility_years=years,
        steps=partial(lambda: explain(annual_credit_rule, total, years)[1]),
    )


# =========================================================================== sale to the State


class StatePurchase(Explained):
    """The most the Director may pay for a credit presented on ``presented``."""

    credit: Decimal
    expires: dt.date
    presented: dt.date
    #: whether it may be presented (at least 90 days before it expires)
    eligible: bool
    share: Decimal
    maximum_price: Decimal


def purchase_share_rule(r: Rules, presented: V, expires: V, lower: V) -> tuple[V, V]:
    """N.J.A.C. 18:34-1.7(a)1-4: (the most the Director may pay, as a share of the credit;
    whether it may be presented: at least 90 days before its expiration, 18:34-1.3(a)).
    At exactly one, two or three years before it, the bracket ``lower`` chooses (the
    smaller share) or the next."""
    years = [r.add_months(expires, -12 * n) for n in (3, 2, 1)]
    shares = [
        G.STATE_PURCHASE_OVER_3_YEARS.single,
        G.STATE_PURCHASE_2_TO_3_YEARS.single,
        G.STATE_PURCHASE_1_TO_2_YEARS.single,
    ]
    last_day = r.add_days(expires, -G.STATE_PURCHASE_MINIMUM_DAYS.single)
    eligible = r.le(
        presented, last_day, label="Presented at least 90 days before it expires", cite=CITE_WHOLE
    )
    share = r.where(eligible, G.STATE_PURCHASE_UNDER_1_YEAR.single, Decimal(0))
    for year, fraction in zip(reversed(years), reversed(shares), strict=True):
        before = r.either(r.lt(presented, year), r.both(lower, r.eq(presented, year)))
        share = r.where(before, fraction, share)
    return share, eligible


def state_purchase(
    credit: Number, expires: DateLike, presented: DateLike, boundary: str = "lower"
) -> StatePurchase:
    """The most the Director may pay for ``credit`` expiring on ``expires`` (the last day
    of the last period it may be used in), presented on ``presented``
    (:func:`purchase_share_rule`; the price rounded down to the cent)."""
    amount = as_money(credit, "credit", CITE_PURCHASE)
    end = as_date(expires, "expires", CITE_PURCHASE)
    day = as_date(presented, "presented", CITE_PURCHASE)
    lower = as_choice(boundary, "boundary", BOUNDARIES, CITE_READING) == "lower"
    share, eligible = purchase_share_rule(EXACT, day, end, lower)
    price = EXACT.share(amount, share)

    def steps() -> tuple[Step, ...]:
        found = explain(purchase_share_rule, day, end, lower)[1]
        return (
            *found,
            Step(
                label="Most the Director may pay: credit x share, rounded down to the cent",
                value=price,
                arithmetic=f"{fmt_money(amount)} x {fmt_pct(share)} = {fmt_money(price)}",
                citation=CITE_PURCHASE,
            ),
        )

    return StatePurchase(
        credit=amount,
        expires=end,
        presented=day,
        eligible=bool(eligible),
        share=share,
        maximum_price=price,
        steps=steps,
    )


# =========================================================================== the schedule


def _expiry(ends: Sequence[dt.date], last_index: int) -> dt.date:
    """The end of period ``last_index`` (beyond the schedule: 12-month periods on)."""
    if last_index < len(ends):
        return ends[last_index]
    day = ends[-1]
    for _ in range(last_index - len(ends) + 1):
        day = L.next_period_end(day)
    return day


def credit_schedule(
    award: Number,
    first_period_end: DateLike,
    liabilities: Sequence[Number],
    eligibility_years: Number | None = None,
    events: Sequence[Sequence[object]] | None = None,
    transfer_window: str = "statute",
    boundary: str = "lower",
    approval_date: DateLike | None = None,
) -> L.CreditLedger:
    """Grow NJ's credit over the periods of ``liabilities`` (the module docstring): each of
    the first ``eligibility_years`` periods is allowed the annual credit; the events
    (rows ``kind, date, period, amount, price, issued``: :func:`~.ledger.read_events`)
    transfer or sell credit of a period; the rest is used against each period's
    liability, oldest first, and expires after 20 periods."""
    total = as_money(award, "award", CITE_ANNUAL)
    first = as_date(first_period_end, "first_period_end", CITE_CARRYFORWARD)
    approval = None if approval_date is None else as_date(approval_date, "approval_date")
    years = _years(eligibility_years, approval, CITE_ANNUAL)
    if not liabilities:
        raise InputError("liabilities", None, "give one liability a period", CITE_CARRYFORWARD)
    limits = [
        as_money(value, f"liabilities[{n}]", CITE_CARRYFORWARD)
        for n, value in enumerate(liabilities, 1)
    ]
    window = as_choice(transfer_window, "transfer_window", TRANSFER_WINDOWS, CITE_READING)
    lower = as_choice(boundary, "boundary", BOUNDARIES, CITE_READING) == "lower"
    keep = G.CARRYFORWARD_PERIODS.at(approval)
    ends = L.period_ends(first, len(limits))
    annual = annual_credit_rule(EXACT, total, years)
    read = L.read_events(events, len(limits), CITE_TRANSFER)
    _check_transfers(read, window, approval)
    placed = L.place_events(read, ends, years, keep, CITE_TRANSFER)
    new = [annual if index < years else Decimal("0.00") for index in range(len(ends))]
    periods, taken = L.ledger_rule(EXACT, new, limits, keep, placed)
    L.check_taken(read, placed, taken, CITE_TRANSFER, CITE_WHOLE)
    proceeds: list[Decimal] = []
    for event, place, took in zip(read, placed, taken, strict=True):
        if event.kind == "transfer":
            assert event.price is not None  # _check_transfers
            proceeds.append(event.price)
            continue
        expires = _expiry(ends, place.vintage + keep)
        share, eligible = purchase_share_rule(EXACT, event.date, expires, lower)
        where = f"events row {event.row}"
        if not eligible:
            rule = (
                f"the credit of period {event.vintage} expires {expires}: it must be presented"
                f" at least {G.STATE_PURCHASE_MINIMUM_DAYS.single} days before"
            )
            raise InputError(f"{where} date", event.date, rule, CITE_WHOLE)
        most = EXACT.share(took, share)
        if event.price is not None and event.price > most:
            rule = (
                f"is more than the Director may pay ({fmt_pct(share)} of {took:,.2f} = {most:,.2f})"
            )
            raise InputError(f"{where} price", event.price, rule, CITE_PURCHASE)
        proceeds.append(most if event.price is None else event.price)

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
            found.append(_event_step(event, place, took, paid))
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


def _check_transfers(events: Sequence[L.EventInput], window: str, approval: dt.date | None) -> None:
    """34:1B-248: at least $25,000, for at least 75% of it; the rule's window (switch)."""
    smallest = G.TRANSFER_MINIMUM_AMOUNT.single
    consideration = G.TRANSFER_MINIMUM_CONSIDERATION.single
    for event in events:
        if event.kind != "transfer":
            continue
        where = f"events row {event.row}"
        if event.amount is None:
            raise InputError(
                f"{where} amount", None, "a transfer needs the amount of credit sold", CITE_TRANSFER
            )
        if event.amount < smallest:
            smallest_text = G.TRANSFER_MINIMUM_AMOUNT.text()
            rule = f"a transfer certificate sells at least {smallest_text} of credit"
            raise InputError(f"{where} amount", event.amount, rule, CITE_TRANSFER)
        if event.price is None:
            raise InputError(
                f"{where} price", None, "a transfer needs its consideration", CITE_TRANSFER
            )
        if event.price < event.amount * consideration:
            rule = (
                f"the consideration must be at least {fmt_pct(consideration)} of the credit"
                f" transferred ({fmt_money(event.amount * consideration)})"
            )
            raise InputError(f"{where} price", event.price, rule, CITE_TRANSFER)
        if window == "rule":
            if event.issued is None:
                rule = (
                    "the rule's window (transfer_window \"rule\") runs from the credit's"
                    " issuance: give it"
                )
                raise InputError(f"{where} issued", None, rule, CITE_TRANSFER_RULE)
            years = G.RULE_TRANSFER_WINDOW_YEARS.at(approval)
            last = add_years(event.issued, years)
            if event.date > last:
                rule = f"after {last}, {years} years from the credit's issuance (the rule's window)"
                raise InputError(f"{where} date", event.date, rule, CITE_TRANSFER_RULE)


def add_years(day: dt.date, years: int) -> dt.date:
    """``day`` moved by whole years (February 29 to February 28)."""
    moved: dt.date = EXACT.add_months(day, 12 * years)
    return moved


def _event_step(event: L.EventInput, place: L.LedgerEvent, took: Decimal, paid: Decimal) -> Step:
    if event.kind == "transfer":
        return Step(
            label=f"Period {place.period + 1}: transfer of period {event.vintage}'s credit",
            value=took,
            arithmetic=f"{fmt_money(took)} transferred for {fmt_money(paid)}",
            citation=CITE_TRANSFER,
        )
    return Step(
        label=f"Period {place.period + 1}: sale of period {event.vintage}'s credit to the State",
        value=took,
        arithmetic=f"{fmt_money(took)} sold for {fmt_money(paid)}",
        citation=CITE_PURCHASE,
    )
