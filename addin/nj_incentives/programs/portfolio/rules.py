"""A portfolio of awards against one CBT liability a period (issue 33 item 4;
shared/legal-notes.md 6.2.5).

Each award is a credit of a program held by an entity and allowed in a period (its
vintage). In each period the credits are applied against the one liability in the order
of N.J.A.C. 18:7-3.17(a) (BEIP 1st, BRRAG 8th, the ERTC 14th, Urban Transit Hub 16th, Grow
NJ 18th; Emerge is not in the list, which predates it: its place is a switch, after Grow
NJ by default), each within its own limits:

- BEIP (N.J.S.A. 34:1B-129 f.): applied before all other credits against the tax (less a
  statutory minimum when the user applies one: ``floors``); what exceeds it is refunded as
  an overpayment, not carried.
- BRRAG (34:1B-115.3 a.): usable only in the period the agreement sets, then it expires;
  the rule's "and the tax period next following" (N.J.A.C. 19:31N-1.1(b)) as a switch.
- ERTC (52:27BBB-55 b.(3)): with all the other credits at most 50% of the liability and
  not below the statutory minimum; carried forward without limit (b.(2)), the Form 313
  five years as a switch.
- Urban Transit Hub: its carryforward was not found (6.5, question 12): an input.
- Grow NJ: 20 periods (34:1B-247); Emerge: 7 (N.J.A.C. 19:31U-1.11(b)).

Carryovers are applied in the same sequence, only where the program allows them
(18:7-3.17(b)); within a program, the oldest credit first, entities in the order given.
A floor at the statutory minimum for programs other than the ERTC is the user's answer to
open question 17 (``floors``). Readings: docs/interpretations.md, "Portfolio of awards".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

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
    cents_down,
)
from nj_incentives.core.inputs import control_character, is_blank
from nj_incentives.core.rules import EXACT, ZERO, Rules, V, explain
from nj_incentives.programs import forms
from nj_incentives.programs.cbt import figures as CBT
from nj_incentives.programs.cbt import rules as CBT_RULES
from nj_incentives.programs.emerge import figures as EMERGE
from nj_incentives.programs.ertc import figures as ERTC
from nj_incentives.programs.grow_nj import figures as GROW

__all__ = [
    "CITE_ORDER",
    "PROGRAMS",
    "Holding",
    "Portfolio",
    "PortfolioRow",
    "Terms",
    "portfolio",
    "portfolio_rule",
    "program_terms",
    "return_line",
]

CITE_ORDER = "N.J.A.C. 18:7-3.17"
CITE_READING = "docs/interpretations.md"
#: The programs a portfolio takes, by key.
PROGRAMS = ("beip", "brrag", "ertc", "uth", "grow_nj", "emerge")
#: ``brrag_periods``: "statute" (only the period set) or "rule" (and the next one).
BRRAG_READINGS = ("statute", "rule")


@dataclass(frozen=True)
class Terms:
    """One program's place and limits in the portfolio."""

    key: str
    title: str
    place: Decimal
    #: periods a credit may be carried forward (None: no limit; 0: the period only)
    keep: int | None
    #: the share of the liability all credits with this one may not exceed (ERTC 50%)
    share: Decimal | None
    #: not below the statutory minimum
    floor: bool
    #: what is left of a period's credit is refunded (BEIP f.) rather than expired
    refund: bool
    cite: str


class PortfolioRow(BaseModel):
    """One program's credit of one entity in one period (dollars, to the cent;
    ``carried_out = carried_in + new_credit - used - refunded - expired``)."""

    model_config = ConfigDict(frozen=True)

    period: int
    period_end: dt.date
    place: Decimal
    program: str
    entity: str
    liability: Decimal
    new_credit: Decimal
    carried_in: Decimal
    limit: Decimal
    used: Decimal
    refunded: Decimal
    expired: Decimal
    carried_out: Decimal
    #: the liability left after this credit and those before it
    tax_after: Decimal
    #: where the credit goes on the return of the period's tax year (:func:`return_line`)
    line: str


class Portfolio(Explained):
    """The portfolio over its periods: a row per program, entity and period (in the order
    applied), and what each period's tax is after every credit."""

    rows: tuple[PortfolioRow, ...]
    tax_after: tuple[Decimal, ...]
    used: Decimal
    refunded: Decimal
    expired: Decimal
    carried_out: Decimal


@dataclass(frozen=True)
class _Award:
    row: int
    entity: str
    program: str
    period: int
    amount: Decimal


def program_terms(
    keys: set[str],
    floors: set[str],
    uth_carryforward: int | None,
    ertc_carryforward: int | None,
    brrag_periods: str,
    emerge_place: Decimal,
) -> list[Terms]:
    """The terms of the programs ``keys`` (read inputs), in the order applied (the
    portfolio's and the scenario kernel's one source of places and limits)."""
    every = {
        "beip": Terms(
            "beip",
            "BEIP",
            Decimal(CBT.ORDER_BEIP.single),
            0,
            None,
            "beip" in floors,
            True,
            "N.J.S.A. 34:1B-129 f.",
        ),
        "brrag": Terms(
            "brrag",
            "BRRAG",
            Decimal(CBT.ORDER_BRRAG.single),
            0 if brrag_periods == "statute" else 1,
            None,
            "brrag" in floors,
            False,
            "N.J.S.A. 34:1B-115.3 a.; N.J.A.C. 19:31N-1.1(b)",
        ),
        "ertc": Terms(
            "ertc",
            "ERTC",
            Decimal(CBT.ORDER_ERTC.single),
            ertc_carryforward,
            ERTC.LIABILITY_SHARE_LIMIT.single,
            True,
            False,
            "N.J.S.A. 52:27BBB-55 b.(2), b.(3)",
        ),
        "uth": Terms(
            "uth",
            "Urban Transit Hub",
            Decimal(CBT.ORDER_UTH.single),
            uth_carryforward,
            None,
            "uth" in floors,
            False,
            "N.J.S.A. 34:1B-209 (carryforward an input)",
        ),
        "grow_nj": Terms(
            "grow_nj",
            "Grow NJ",
            Decimal(CBT.ORDER_GROW_NJ.single),
            GROW.CARRYFORWARD_PERIODS.single,
            None,
            "grow_nj" in floors,
            False,
            "N.J.S.A. 34:1B-247; N.J.A.C. 19:31Q-1.9(c)",
        ),
        "emerge": Terms(
            "emerge",
            "Emerge",
            emerge_place,
            EMERGE.CARRYFORWARD_PERIODS.single,
            None,
            "emerge" in floors,
            False,
            "N.J.A.C. 19:31U-1.11(b)",
        ),
    }
    chosen = [every[key] for key in PROGRAMS if key in keys]
    return sorted(chosen, key=lambda terms: terms.place)


@dataclass(frozen=True)
class Holding:
    """One program's credits of one entity: their new credit per period."""

    terms: Terms
    entity: str
    new: tuple[V, ...]


class _Figures(NamedTuple):
    """One holding's figures in one period (values of a rule)."""

    new: V
    carried_in: V
    limit: V
    used: V
    refunded: V
    expired: V
    carried_out: V
    tax_after: V


def portfolio_rule(
    r: Rules,
    holdings: Sequence[Holding],
    liabilities: Sequence[V],
    minimums: Sequence[V],
    names: Sequence[str] | None = None,
) -> tuple[list[list[_Figures]], list[V]]:
    """Every period: the holdings in their order (programs by place, entities as given),
    each using its credit oldest first within its program's limit: the liability left
    (less the statutory minimum where the program has that floor; within the ERTC's
    share of the liability with every credit before it), then refunding (BEIP) or
    expiring what its program does not carry. (per period, per holding its figures; per
    period the tax after every credit)."""
    vintages = [L.Vintages() for _ in holdings]
    periods: list[list[_Figures]] = []
    after_all: list[V] = []
    for index, (liability, minimum) in enumerate(zip(liabilities, minimums, strict=True)):
        name = names[index] if names else ""
        others: V = ZERO
        found: list[_Figures] = []
        by_program: dict[str, list[int]] = {}
        for number, holding in enumerate(holdings):
            by_program.setdefault(holding.terms.key, []).append(number)
        for numbers in by_program.values():
            terms = holdings[numbers[0]].terms
            left = r.max(0, r.sub(liability, others))
            if terms.floor:
                left = r.max(0, r.sub(r.sub(liability, minimum), others))
            if terms.share is not None:
                half = r.share(liability, terms.share)
                left = r.max(0, r.sub(r.min(half, r.sub(liability, minimum)), others))
            limit = r.subtotal(left)
            room = limit
            for number in numbers:
                holding, kept = holdings[number], vintages[number]
                carried_in = kept.total(r)
                kept.left[index] = holding.new[index]
                order = sorted(kept.left)
                used, left, room = r.draw(room, [kept.left[vintage] for vintage in order])
                kept.left.update(zip(order, left, strict=True))
                gone: V = ZERO
                if terms.keep is not None:
                    for vintage in [v for v in kept.left if v + terms.keep <= index]:
                        gone = r.add(gone, kept.left.pop(vintage))
                gone = r.subtotal(gone)
                used_total = r.total(
                    used,
                    label=f"{name}{terms.title} ({holding.entity}) used" if name else "",
                    cite=f"{CITE_ORDER}; {terms.cite}",
                )
                others = r.subtotal(r.add(others, used_total))
                refunded = gone if terms.refund else ZERO
                expired = ZERO if terms.refund else gone
                carried_out = r.sub(r.sub(r.add(carried_in, holding.new[index]), used_total), gone)
                found.append(
                    _Figures(
                        new=holding.new[index],
                        carried_in=carried_in,
                        limit=limit,
                        used=used_total,
                        refunded=refunded,
                        expired=expired,
                        carried_out=carried_out,
                        tax_after=r.sub(liability, others),
                    )
                )
        tax_after = r.sub(
            liability, others, label=f"{name}tax after the credits" if name else "", cite=CITE_ORDER
        )
        periods.append(found)
        after_all.append(tax_after)
    return periods, after_all


def _entity(value: object, argument: str) -> str:
    """The name of the entity holding an award: text, not a number, an error cell or a
    formula (a number there is most often a column out of place), at most 100 characters."""
    name = value.strip() if isinstance(value, str) else ""
    rule = ""
    if not name:
        rule = "name the entity holding the award (text)"
    elif len(name) > 100:
        rule = "an entity's name is at most 100 characters"
    elif control_character(name):
        rule = control_character(name)
    elif name[0] in "#=":
        rule = "an error cell or a formula, not the name of an entity"
    else:
        try:
            float(name.replace(",", ""))
        except ValueError:
            return name
        rule = (
            "a number, not the name of an entity: are the columns entity, program, period, amount?"
        )
    raise InputError(argument, value, rule, CITE_ORDER)


#: The awards table's header row (optional; when given, exactly these, in this order).
HEADER = ("entity", "program", "period", "amount")


def _awards(table: Sequence[Sequence[object]], periods: int) -> list[_Award]:
    found: list[_Award] = []
    for number, raw in enumerate(table, 1):
        cells = [None if is_blank(cell) else cell for cell in list(raw)[:4]]
        cells += [None] * (4 - len(cells))
        if all(cell is None for cell in cells):
            continue
        if number == 1 and isinstance(cells[0], str) and cells[0].strip().lower() == "entity":
            # a header row: read only when it is the header, never a garbled one skipped
            for cell, name in zip(cells, HEADER, strict=True):
                if not (isinstance(cell, str) and cell.strip().lower() == name):
                    rule = f"the header row reads {', '.join(HEADER)}: this cell is {name}"
                    raise InputError(f"awards row 1 {name}", cell, rule, CITE_ORDER)
            continue
        where = f"awards row {number}"
        entity = _entity(cells[0], f"{where} entity")
        program = as_choice(cells[1], f"{where} program", PROGRAMS, CITE_ORDER)
        if cells[2] is None:
            raise InputError(
                f"{where} period", None, "give the period the credit is allowed in", CITE_ORDER
            )
        period = as_int(
            cells[2],
            f"{where} period",
            CITE_ORDER,
            low=1,
            high=periods,
            rule=f"must be the number of a period of the portfolio, 1 to {periods}",
        )
        if cells[3] is None:
            raise InputError(f"{where} amount", None, "give the credit allowed", CITE_ORDER)
        amount = as_money(cells[3], f"{where} amount", CITE_ORDER)
        found.append(_Award(number, entity, program, period, amount))
    if not found:
        raise InputError(
            "awards", None, "give at least one award (entity, program, period, amount)", CITE_ORDER
        )
    return found


def portfolio(
    awards: Sequence[Sequence[object]],
    first_period_end: DateLike,
    liabilities: Sequence[Number],
    minimum_taxes: Sequence[Number] | None = None,
    floors: str = "",
    uth_carryforward: Number | None = None,
    ertc_carryforward: Number | None = None,
    brrag_periods: str = "statute",
    emerge_place: Number | None = None,
) -> Portfolio:
    """The awards (rows ``entity, program, period, amount``; a header row skipped) applied
    against the liabilities of consecutive 12-month periods (the module docstring)."""
    first = as_date(first_period_end, "first_period_end", CITE_ORDER)
    if not liabilities:
        raise InputError("liabilities", None, "give one liability a period", CITE_ORDER)
    taxes = [as_money(v, f"liabilities[{n}]", CITE_ORDER) for n, v in enumerate(liabilities, 1)]
    given_minimums = list(minimum_taxes or [])
    if given_minimums and len(given_minimums) != len(taxes):
        rule = f"give one a period ({len(taxes)}), as the liabilities"
        raise InputError("minimum_taxes", given_minimums, rule, "N.J.S.A. 54:10A-5(e)")
    minimums = [
        as_money(v, f"minimum_taxes[{n}]", "N.J.S.A. 54:10A-5(e)")
        for n, v in enumerate(given_minimums, 1)
    ] or [ZERO] * len(taxes)
    read = _awards(awards, len(taxes))
    keys = {award.program for award in read}
    if floors is not None and not isinstance(floors, str):
        rule = 'must be text: program keys separated by commas ("beip,ertc"), or blank'
        raise InputError("floors", floors, rule, f"{CITE_READING} (open question 17)")
    # in the order given (a set's order varies with the hash seed: the message named a
    # different bad key from one run to the next)
    floor_keys = list(
        dict.fromkeys(part.strip().lower() for part in (floors or "").split(",") if part.strip())
    )
    for key in floor_keys:
        as_choice(key, "floors", PROGRAMS, f"{CITE_READING} (open question 17)")
    # read when given, an Urban Transit Hub award or not: a bad value is never ignored
    uth_keep = (
        None
        if uth_carryforward is None
        else as_int(uth_carryforward, "uth_carryforward", CITE_READING, low=0, high=100)
    )
    if "uth" in keys and uth_keep is None:
        rule = "the Urban Transit Hub carryforward was not found: give it (periods, 0 = none)"
        raise InputError("uth_carryforward", None, rule, f"{CITE_READING} (open question 12)")
    ertc_keep = (
        None
        if ertc_carryforward is None
        else as_int(
            ertc_carryforward, "ertc_carryforward", "N.J.S.A. 52:27BBB-55 b.(2)", low=0, high=100
        )
    )
    brrag = as_choice(brrag_periods, "brrag_periods", BRRAG_READINGS, "N.J.S.A. 34:1B-115.3 a.")
    place = Decimal(CBT.ORDER_GROW_NJ.single) + 1
    if emerge_place is not None:
        place = _emerge_place(emerge_place)
    terms = program_terms(keys, set(floor_keys), uth_keep, ertc_keep, brrag, place)
    holdings: list[Holding] = []
    for term in terms:
        entities: list[str] = []
        for award in read:
            if award.program == term.key and award.entity not in entities:
                entities.append(award.entity)
        for entity in entities:
            new = [ZERO] * len(taxes)
            for award in read:
                if award.program == term.key and award.entity == entity:
                    new[award.period - 1] = new[award.period - 1] + award.amount
            holdings.append(Holding(term, entity, tuple(new)))
    ends = L.period_ends(first, len(taxes))
    years = [CBT_RULES.tax_year_number(end) for end in ends]
    lines = [{term.key: return_line(term.key, year) for term in terms} for year in years]
    periods, after = portfolio_rule(EXACT, holdings, taxes, minimums)
    rows = tuple(
        PortfolioRow(
            period=index + 1,
            period_end=ends[index],
            place=holding.terms.place,
            program=holding.terms.key,
            entity=holding.entity,
            liability=taxes[index],
            new_credit=cents_down(f.new),
            carried_in=cents_down(f.carried_in),
            limit=cents_down(f.limit),
            used=cents_down(f.used),
            refunded=cents_down(f.refunded),
            expired=cents_down(f.expired),
            carried_out=cents_down(f.carried_out),
            tax_after=cents_down(f.tax_after),
            line=lines[index][holding.terms.key],
        )
        for index, found in enumerate(periods)
        for holding, f in zip(holdings, found, strict=True)
    )
    last = len(taxes) - 1
    return Portfolio(
        rows=rows,
        tax_after=tuple(cents_down(x) for x in after),
        used=sum((row.used for row in rows), ZERO),
        refunded=sum((row.refunded for row in rows), ZERO),
        expired=sum((row.expired for row in rows), ZERO),
        carried_out=sum((row.carried_out for row in rows if row.period == last + 1), ZERO),
        steps=partial(_steps, holdings, taxes, minimums, ends),
    )


def return_line(program: str, tax_year: int) -> str:
    """Where a program's credit goes on the CBT return of ``tax_year``: its Schedule A-3
    line and the credit form it comes from, each the edition in force for that year
    (:mod:`nj_incentives.programs.forms`; a line number no source gives is labelled "to be
    confirmed"). A period's tax year: the CBT-100's numbering of its end
    (:func:`nj_incentives.programs.cbt.rules.tax_year`)."""
    text = forms.line("Schedule A-3", program, tax_year).label()
    form = forms.CREDIT_FORMS[program]
    if form is None:
        return f"{text}; its credit form not found"
    return f"{text}; from {forms.FORMS[form].edition(tax_year).name}"


def _emerge_place(value: Number) -> Decimal:
    """Emerge's place (a number: 18.5 between Grow NJ and the next)."""
    from nj_incentives.core.common import as_number

    place = as_number(value, "emerge_place", CITE_READING)
    if place <= 0:
        raise InputError(
            "emerge_place", value, "must be a place in the order, above 0", CITE_READING
        )
    return place


def _steps(
    holdings: list[Holding],
    taxes: list[Decimal],
    minimums: list[Decimal],
    ends: Sequence[dt.date],
) -> tuple[Step, ...]:
    names = [f"Period ending {end}: " for end in ends]
    order = Step(
        label="Order applied (N.J.A.C. 18:7-3.17(a); Emerge's place a switch)",
        value=", ".join(f"{h.terms.title} ({h.entity})" for h in holdings),
        citation=CITE_ORDER,
    )
    return (order, *explain(portfolio_rule, holdings, taxes, minimums, names)[1])
