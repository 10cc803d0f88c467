"""A credit's vintages, period by period: the machinery a carryforward statute is written
in (no statute here: each program gives its own figures and citations).

A *vintage* is the credit allowed in one period (its index; an opening vintage carried
into the first period has a negative index, -1 the period just before). In each period,
in this order (a reading, docs/interpretations.md "Credit ledgers: the order within a
period"):

1. the period's new credit becomes a vintage;
2. the events dated in the period take credit out of a named vintage: a transfer (a
   transfer certificate sold to another taxpayer) takes its amount, a sale to the State
   takes the whole vintage as it then stands (a partial credit cannot be sold);
3. the credit is used against the period's limit, oldest vintage first;
4. a vintage allowed ``keep`` periods before expires: what is left of it is lost.

Everything is written in the rule language (:mod:`nj_incentives.core.rules`): the exact
evaluator gives the amounts, the explaining one the steps, and the int64 one whole
columns of scenarios. Python loops run over the fixed structure (periods, vintages).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from nj_incentives.core.common import CENT, Explained
from nj_incentives.core.inputs import (
    InputError,
    as_choice,
    as_date,
    as_int,
    as_money,
    is_blank,
    within_dates,
)
from nj_incentives.core.ledger_cells import EVENT_COLUMNS
from nj_incentives.core.rules import ZERO, Rules, V
from nj_incentives.core.rules.exact import days_in_month

__all__ = [
    "EVENT_COLUMNS",
    "EVENT_KINDS",
    "CreditLedger",
    "EventInput",
    "LedgerEvent",
    "LedgerPeriod",
    "LedgerRow",
    "Vintages",
    "build_ledger",
    "check_taken",
    "ledger_period_rule",
    "ledger_rule",
    "next_period_end",
    "period_ends",
    "period_of",
    "place_events",
    "read_events",
]


@dataclass(frozen=True)
class LedgerEvent:
    """Credit taken out of vintage ``vintage`` (its period's index) in period ``period``:
    ``kind`` "transfer" takes ``amount``, "sale" the whole vintage as it stands."""

    period: int
    vintage: int
    kind: str
    amount: V = ZERO


class LedgerPeriod(NamedTuple):
    """One period of a ledger (``carried_out = carried_in + new - used - transferred -
    sold - expired``)."""

    new: V
    carried_in: V
    limit: V
    used: V
    transferred: V
    sold: V
    expired: V
    carried_out: V


class Vintages:
    """What is left of each vintage (index -> value of a rule), oldest first."""

    def __init__(self, opening: Sequence[tuple[int, V]] = ()) -> None:
        self.left: dict[int, V] = dict(sorted(opening))

    def total(self, r: Rules) -> V:
        return r.subtotal(r.total(self.left.values()))


def ledger_period_rule(
    r: Rules,
    vintages: Vintages,
    index: int,
    new: V,
    limit: V,
    keep: int | None,
    events: Sequence[LedgerEvent] = (),
    name: str = "",
    cite_use: str = "",
    cite_keep: str = "",
) -> tuple[LedgerPeriod, list[V]]:
    """Period ``index`` of a ledger (the module docstring's order), updating ``vintages``
    in place: (its figures, per event what it took). ``limit``: the most of the credit
    usable in the period; ``keep``: the periods a vintage may be carried forward (None:
    no limit). A transfer larger than its vintage takes what is left (the law function
    refuses it first: its taken amount is smaller than asked)."""
    carried_in = vintages.total(r)
    vintages.left[index] = new
    taken: list[V] = []
    transferred: list[V] = []
    sold: list[V] = []
    for event in events:
        left = vintages.left.get(event.vintage, ZERO)
        take = r.min(event.amount, left) if event.kind == "transfer" else left
        vintages.left[event.vintage] = r.subtotal(r.sub(left, take))
        taken.append(take)
        (transferred if event.kind == "transfer" else sold).append(take)
    order = sorted(vintages.left)
    used, kept, _ = r.draw(limit, [vintages.left[vintage] for vintage in order])
    vintages.left.update(zip(order, kept, strict=True))
    expired: V = ZERO
    if keep is not None:
        for vintage in [v for v in vintages.left if v + keep <= index]:
            expired = r.add(expired, vintages.left.pop(vintage))
    expired = r.subtotal(expired)
    used_total = r.total(
        used, label=f"{name}used, oldest credit first" if name else "", cite=cite_use
    )
    out_transferred = r.subtotal(r.total(transferred))
    out_sold = r.subtotal(r.total(sold))
    carried_out = r.sub(
        r.sub(r.sub(r.sub(r.add(carried_in, new), used_total), out_transferred), out_sold),
        expired,
        label=f"{name}carried out" if name else "",
        cite=cite_keep,
    )
    period = LedgerPeriod(
        new, carried_in, limit, used_total, out_transferred, out_sold, expired, carried_out
    )
    return period, taken


def ledger_rule(
    r: Rules,
    new: Sequence[V],
    limits: Sequence[V],
    keep: int | None,
    events: Sequence[LedgerEvent] = (),
    opening: Sequence[tuple[int, V]] = (),
    names: Sequence[str] | None = None,
    cite_use: str = "",
    cite_keep: str = "",
) -> tuple[list[LedgerPeriod], list[V]]:
    """Every period of a ledger (:func:`ledger_period_rule`): (the periods, per event in
    the order given what it took)."""
    vintages = Vintages(opening)
    rows: list[LedgerPeriod] = []
    taken: dict[int, V] = {}
    for index, (credit, limit) in enumerate(zip(new, limits, strict=True)):
        dated = [(n, e) for n, e in enumerate(events) if e.period == index]
        row, took = ledger_period_rule(
            r,
            vintages,
            index,
            credit,
            limit,
            keep,
            [e for _, e in dated],
            names[index] if names else "",
            cite_use,
            cite_keep,
        )
        rows.append(row)
        taken.update({n: t for (n, _), t in zip(dated, took, strict=True)})
    return rows, [taken.get(n, ZERO) for n in range(len(events))]


# =========================================================================== results and inputs


class LedgerRow(BaseModel):
    """One period of a credit's schedule as a law function returns it (dollars, to the
    cent; ``carried_out = carried_in + new_credit - used - transferred - sold - expired``)."""

    model_config = ConfigDict(frozen=True)

    period: int
    period_end: dt.date
    new_credit: Decimal
    carried_in: Decimal
    limit: Decimal
    used: Decimal
    transferred: Decimal
    sold: Decimal
    #: what the transfers and sales of the period bring (their consideration or price)
    proceeds: Decimal
    expired: Decimal
    carried_out: Decimal


class CreditLedger(Explained):
    """A credit's schedule over its periods, and its totals (``credits_allowed = used +
    transferred + sold + expired + carried_out``)."""

    rows: tuple[LedgerRow, ...]
    award: Decimal
    eligibility_years: int
    annual_credit: Decimal
    carryforward_periods: int | None
    credits_allowed: Decimal
    used: Decimal
    transferred: Decimal
    sold: Decimal
    proceeds: Decimal
    expired: Decimal
    carried_out: Decimal


@dataclass(frozen=True)
class EventInput:
    """One row of an events table as read (``kind`` "transfer" or "sale"; ``vintage`` the
    number, from 1, of the period whose credit it takes)."""

    row: int
    kind: str
    date: dt.date
    vintage: int
    amount: Decimal | None
    price: Decimal | None
    issued: dt.date | None


EVENT_KINDS = ("transfer", "sale")


def read_events(
    table: Sequence[Sequence[object]] | None, periods: int, citation: str
) -> tuple[EventInput, ...]:
    """An events table (rows of ``kind, date, period, amount, price, issued``; a header
    row and blank rows skipped) as :class:`EventInput`, each refusal naming the row."""
    found: list[EventInput] = []
    for number, raw in enumerate(table or (), 1):
        cells = [None if is_blank(cell) else cell for cell in list(raw)[: len(EVENT_COLUMNS)]]
        cells += [None] * (len(EVENT_COLUMNS) - len(cells))
        if all(cell is None for cell in cells):
            continue
        if number == 1 and isinstance(cells[0], str) and cells[0].strip().lower() == "kind":
            continue
        where = f"events row {number}"
        kind = as_choice(cells[0], f"{where} kind", EVENT_KINDS, citation)
        if cells[1] is None:
            raise InputError(f"{where} date", None, "is required", citation)
        day = as_date(cells[1], f"{where} date", citation)
        vintage = as_int(
            cells[2],
            f"{where} period",
            citation,
            low=1,
            high=periods,
            rule=f"must be the number of a period of the schedule, 1 to {periods}",
        )
        amount = None if cells[3] is None else as_money(cells[3], f"{where} amount", citation)
        price = None if cells[4] is None else as_money(cells[4], f"{where} price", citation)
        issued = None if cells[5] is None else as_date(cells[5], f"{where} issued", citation)
        found.append(EventInput(number, kind, day, vintage, amount, price, issued))
    return tuple(found)


def period_ends(first: dt.date, count: int) -> tuple[dt.date, ...]:
    """``count`` 12-month privilege periods, the first ending on ``first``, each later one
    the same day a year after (a month's last day stays its month's last day)."""
    ends = [first]
    for _ in range(count - 1):
        ends.append(next_period_end(ends[-1]))
    # a result is a date the inputs accept, or the first period end is refused (issue 34)
    within_dates(ends[-1], f"the last of {count} period ends", "first_period_end", first, "")
    return tuple(ends)


def next_period_end(day: dt.date) -> dt.date:
    """The same day a year later; a month's last day stays its month's last day."""
    later = day.replace(year=day.year + 1, day=1)
    last = days_in_month(later.year, later.month)
    if day.day == days_in_month(day.year, day.month):
        return later.replace(day=last)
    return later.replace(day=min(day.day, last))


def period_of(day: dt.date, ends: Sequence[dt.date]) -> int | None:
    """The index of the period containing ``day`` (period i runs from the day after
    period i-1's end; the first from the day after the same day a year before), or None."""
    first = ends[0]
    earlier = first.replace(day=1, year=first.year - 1)
    last = days_in_month(earlier.year, earlier.month)
    month_end = first.day == days_in_month(first.year, first.month)
    start = earlier.replace(day=last if month_end else min(first.day, last))
    for index, end in enumerate(ends):
        if start < day <= end:
            return index
        start = end
    return None


def build_ledger(
    *,
    award: Decimal,
    eligibility_years: int,
    annual: Decimal,
    ends: Sequence[dt.date],
    keep: int | None,
    events: Sequence[LedgerEvent],
    proceeds: Sequence[Decimal],
    explainer: object,
    periods: Sequence[LedgerPeriod],
) -> CreditLedger:
    """A :class:`CreditLedger` from ``periods``, the ledger the program ran
    (:func:`ledger_rule` under the exact evaluator, the annual credit in each of the first
    ``eligibility_years`` periods; run once, not again here), its inputs checked and its
    events priced: ``proceeds`` per event."""
    by_period = [ZERO] * len(ends)
    for event, amount in zip(events, proceeds, strict=True):
        by_period[event.period] += amount
    rows = tuple(
        # each figure cents_down (its quantize directly: the exact evaluator's are Decimal)
        LedgerRow(
            period=index + 1,
            period_end=end,
            new_credit=p.new.quantize(CENT, ROUND_DOWN),
            carried_in=p.carried_in.quantize(CENT, ROUND_DOWN),
            limit=p.limit.quantize(CENT, ROUND_DOWN),
            used=p.used.quantize(CENT, ROUND_DOWN),
            transferred=p.transferred.quantize(CENT, ROUND_DOWN),
            sold=p.sold.quantize(CENT, ROUND_DOWN),
            proceeds=by_period[index].quantize(CENT, ROUND_DOWN),
            expired=p.expired.quantize(CENT, ROUND_DOWN),
            carried_out=p.carried_out.quantize(CENT, ROUND_DOWN),
        )
        for index, (end, p) in enumerate(zip(ends, periods, strict=True))
    )
    return CreditLedger(
        rows=rows,
        award=award,
        eligibility_years=eligibility_years,
        annual_credit=annual,
        carryforward_periods=keep,
        credits_allowed=sum((row.new_credit for row in rows), ZERO),
        used=sum((row.used for row in rows), ZERO),
        transferred=sum((row.transferred for row in rows), ZERO),
        sold=sum((row.sold for row in rows), ZERO),
        proceeds=sum((row.proceeds for row in rows), ZERO),
        expired=sum((row.expired for row in rows), ZERO),
        carried_out=rows[-1].carried_out if rows else ZERO,
        steps=explainer,
    )


def place_events(
    events: Sequence[EventInput],
    ends: Sequence[dt.date],
    eligibility_years: int,
    keep: int | None,
    citation: str,
) -> list[LedgerEvent]:
    """Each event placed in the period its date falls in, with what every program's
    transfer or sale needs: the date in a period of the schedule, a credit allowed in its
    period (one of the eligibility years), allowed by then (a credit is never transferred
    or sold before the period it is allowed in), on or after its issuance when given, and
    not expired."""
    placed: list[LedgerEvent] = []
    for event in events:
        where = f"events row {event.row}"
        index = period_of(event.date, ends)
        if index is None:
            rule = f"falls in no period of the schedule (periods end {ends[0]} to {ends[-1]})"
            raise InputError(f"{where} date", event.date, rule, citation)
        vintage = event.vintage - 1
        if vintage >= eligibility_years:
            rule = (
                f"no credit is allowed in period {event.vintage}: the eligibility period is"
                f" {eligibility_years} years"
            )
            raise InputError(f"{where} period", event.vintage, rule, citation)
        if vintage > index:
            rule = (
                f"the credit of period {event.vintage} is not allowed before that period (the"
                f" {event.kind} is dated in period {index + 1})"
            )
            raise InputError(f"{where} period", event.vintage, rule, citation)
        if event.issued is not None and event.date < event.issued:
            rule = f"is before the credit's issuance ({event.issued})"
            raise InputError(f"{where} date", event.date, rule, citation)
        if keep is not None and vintage + keep < index:
            rule = (
                f"the credit of period {event.vintage} expired after period {vintage + keep + 1}"
                f" (carried forward at most {keep} periods)"
            )
            raise InputError(f"{where} period", event.vintage, rule, citation)
        amount = event.amount if event.kind == "transfer" and event.amount is not None else ZERO
        placed.append(LedgerEvent(index, vintage, event.kind, amount))
    return placed


def check_taken(
    events: Sequence[EventInput],
    placed: Sequence[LedgerEvent],
    taken: Sequence[Decimal],
    citation: str,
    sale_citation: str,
) -> None:
    """A transfer takes no more than is left of its credit; a sale takes a credit whole
    (an amount given must be what is left of it) and something."""
    for event, took in zip(events, taken, strict=True):
        where = f"events row {event.row}"
        if event.kind == "transfer" and event.amount is not None and took < event.amount:
            rule = (
                f"is more than is left of the credit of period {event.vintage} then ({took:,.2f})"
            )
            raise InputError(f"{where} amount", event.amount, rule, citation)
        if event.kind == "sale" and took <= 0:
            rule = f"nothing is left of the credit of period {event.vintage} to sell"
            raise InputError(f"{where} period", event.vintage, rule, sale_citation)
        if event.kind == "sale" and event.amount is not None and event.amount != took:
            rule = (
                f"a credit is sold whole: what is left of period {event.vintage}'s credit then is"
                f" {took:,.2f} (a partial credit is not accepted)"
            )
            raise InputError(f"{where} amount", event.amount, rule, sale_citation)
