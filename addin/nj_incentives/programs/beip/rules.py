"""Business Employment Incentive Program (BEIP) grant: N.J.S.A. 34:1B-129.

The section as amended through P.L.2022, c.134 (``shared/statutes``), with the grant
limitations of N.J.S.A. 34:1B-134 and the $50,000 average cap of N.J.A.C. 19:31I-1.4(a).
The module follows the section: a. and b. (grant percentage), c. (term), the cap of a.,
the grant schedule, 34:1B-134 (combined State grants), e.(1)-(13) (conversion to tax
credits), f. (applying the credit), g. (transfer certificates); h. (remote work) is
the shared provision :mod:`nj_incentives.programs.remote_work.rules`.

What the law leaves to the Authority's judgment (the percentage within its bounds, the
term, the number of new employees certified) is an input, never computed here. Every
reading of an ambiguous text is in ``docs/interpretations.md``, "BEIP grant".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from enum import StrEnum
from fractions import Fraction
from functools import partial
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, computed_field

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
    as_int,
    as_law_as_of,
    as_money,
    as_number,
    fmt_money,
    fmt_number,
    fmt_pct,
)
from nj_incentives.core.inputs import MAX_DATE, InputKind, InputRule, is_blank
from nj_incentives.core.rules import EXACT, ZERO, Rules, V, explain
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.cbt import rules as cbt

__all__ = [
    "ACCRUAL_YEAR_INPUT",
    "AVERAGE_CAP_PER_NEW_EMPLOYEE",
    "CAP_AGREEMENTS_FROM",
    "CAP_METHODS",
    "COMBINED_LIMIT_PCT",
    "CONVERSION_PARAGRAPHS",
    "DIRECTION_DAYS",
    "DIRECTION_DAY_180",
    "DIRECTION_DEADLINE",
    "DIRECTION_DEADLINES",
    "DIRECTION_DEADLINE_PUBLISHED",
    "DIRECTION_DEADLINE_READINGS",
    "ENACTMENT_P_L_2015_C_194",
    "FIRST_ACCRUAL_YEAR",
    "LAST_ACCRUAL_YEAR",
    "MAXIMUM_DISCOUNT_RATE",
    "MAXIMUM_PCT_OF_PARTNERS_TAX",
    "MAXIMUM_PCT_OF_WITHHOLDINGS",
    "MAXIMUM_TERM_YEARS",
    "MINIMUM_CONSIDERATION_SHARE",
    "MINIMUM_GRANT_PCT",
    "PARAGRAPH_1_SHARES",
    "SMART_GROWTH_COMBINED_LIMIT_PCT",
    "SMART_GROWTH_MAXIMUM_PCT_OF_PARTNERS_TAX",
    "SMART_GROWTH_MAXIMUM_PCT_OF_WITHHOLDINGS",
    "STATE_FISCAL_YEAR_2017_START",
    "TERM_INPUT",
    "TRANSFER_MINIMUM",
    "AnnualGrant",
    "Basis",
    "CapApplies",
    "CombinedLimit",
    "ConversionParagraph",
    "ConversionSchedule",
    "CreditApplication",
    "GrantOverLimit",
    "GrantSchedule",
    "GrantYear",
    "Installment",
    "LimitBase",
    "TransferCheck",
    "TransferPrice",
    "annual_grant",
    "apply_credit",
    "base_years",
    "cap_applies",
    "cap_version",
    "cap_version_rule",
    "combined_limit",
    "conversion_installment",
    "conversion_paragraph",
    "conversion_schedule",
    "explain_cap_applies",
    "grant_over_limit",
    "grant_schedule",
    "limit_base",
    "pct_limits",
    "transfer_check",
    "transfer_discount_rule",
    "transfer_eligibility_rule",
    "transfer_min_price",
    "validate_term",
]

SECTION = "N.J.S.A. 34:1B-129"
CITE_A = f"{SECTION}a."
CITE_B = f"{SECTION}b."
CITE_C = f"{SECTION}c."
CITE_CAP = f"{SECTION}a.; N.J.A.C. 19:31I-1.4(a)"
CITE_E = f"{SECTION}e."
CITE_F = f"{SECTION}f."
CITE_G3 = f"{SECTION}g.(3)"
#: who may apply for a tax credit transfer certificate
CITE_G1_G2 = f"{SECTION}g.(1), (2)"
CITE_134B = "N.J.S.A. 34:1B-134(b)"
CITE_134C = "N.J.S.A. 34:1B-134(c)"
#: Readings of the text that are ours (docs/interpretations.md).
CITE_READING = "docs/interpretations.md"

_ZERO = Decimal("0.00")


class _Row(BaseModel):
    """A row of a result table (frozen, like every result)."""

    model_config = ConfigDict(frozen=True)


# =========================================================================== a., b.
# "the amount of the grant shall be not less than 10 percent and not more than 50 percent
# of the withholdings of the business, or not less than 10 percent and not more than 30
# percent of the estimated tax of the partners of an eligible partnership ..., or any
# combination thereof" (a.); "up to 80 percent of the withholdings ... or up to 50 percent
# of the estimated tax of the partners ... if the grant promotes smart growth" (b.).
# Which percentage within the bounds is the Authority's judgment (N.J.A.C. 19:31I-1.8):
# an input, validated, never invented.


class Basis(StrEnum):
    """What a grant percentage applies to (N.J.S.A. 34:1B-129a.)."""

    WITHHOLDINGS = "withholdings"
    PARTNERS = "partners"  # estimated tax of the partners of an eligible partnership


#: "not less than 10 percent" of either basis. N.J.S.A. 34:1B-129a. (b. keeps it)
MINIMUM_GRANT_PCT = BEIP.MINIMUM_GRANT_PCT.single
#: "not more than 50 percent of the withholdings". N.J.S.A. 34:1B-129a.
MAXIMUM_PCT_OF_WITHHOLDINGS = BEIP.MAXIMUM_PCT_OF_WITHHOLDINGS.single
#: "not more than 30 percent of the estimated tax of the partners". N.J.S.A. 34:1B-129a.
MAXIMUM_PCT_OF_PARTNERS_TAX = BEIP.MAXIMUM_PCT_OF_PARTNERS_TAX.single
#: "up to 80 percent of the withholdings" with smart growth. N.J.S.A. 34:1B-129b.
SMART_GROWTH_MAXIMUM_PCT_OF_WITHHOLDINGS = BEIP.SMART_GROWTH_MAXIMUM_PCT_OF_WITHHOLDINGS.single
#: "up to 50 percent of the estimated tax of the partners" with smart growth. 34:1B-129b.
SMART_GROWTH_MAXIMUM_PCT_OF_PARTNERS_TAX = BEIP.SMART_GROWTH_MAXIMUM_PCT_OF_PARTNERS_TAX.single

_MAXIMUM_PCT: dict[tuple[Basis, bool], Decimal] = {
    (Basis.WITHHOLDINGS, False): MAXIMUM_PCT_OF_WITHHOLDINGS,
    (Basis.PARTNERS, False): MAXIMUM_PCT_OF_PARTNERS_TAX,
    (Basis.WITHHOLDINGS, True): SMART_GROWTH_MAXIMUM_PCT_OF_WITHHOLDINGS,
    (Basis.PARTNERS, True): SMART_GROWTH_MAXIMUM_PCT_OF_PARTNERS_TAX,
}

_BASIS_NAME = {
    Basis.WITHHOLDINGS: "withholdings",
    Basis.PARTNERS: "partners' estimated tax",
}


def _basis(value: object, argument: str = "basis", citation: str = CITE_A) -> Basis:
    return Basis(as_choice(value, argument, [basis.value for basis in Basis], citation))


def _pct_citation(smart_growth: bool) -> str:
    return f"{SECTION}a., b." if smart_growth else CITE_A


def pct_limits(basis: Basis | str, smart_growth: bool = False) -> tuple[Decimal, Decimal]:
    """The lowest and highest grant percentage of a basis: N.J.S.A. 34:1B-129a. and b.

    Withholdings 10% to 50%, partners' estimated tax 10% to 30%; where the grant promotes
    smart growth the maximum is 80% and 50% (b.), the minimum stays 10%.
    """
    chosen = _basis(basis)
    smart = as_bool(smart_growth, "smart_growth", CITE_B)
    return MINIMUM_GRANT_PCT, _MAXIMUM_PCT[chosen, smart]


def pct_within_bounds(r: Rules, pct: V, smart_growth: V, basis: Basis) -> V:
    """A basis's percentage is 0 (the basis unused) or from the minimum to the maximum of
    its basis: N.J.S.A. 34:1B-129a. (10% to 50% / 30%), b. (smart growth: 80% / 50%)."""
    highest = r.where(
        smart_growth,
        r.le(pct, _MAXIMUM_PCT[basis, True]),
        r.le(pct, _MAXIMUM_PCT[basis, False]),
    )
    return r.either(r.eq(pct, 0), r.both(r.ge(pct, MINIMUM_GRANT_PCT), highest))


def grant_bounds(r: Rules, pct: V, partner_pct: V, smart_growth: V) -> tuple[V, V, V]:
    """(``pct`` within its bounds, ``partner_pct`` within its bounds, at least one basis
    used): N.J.S.A. 34:1B-129a., b. ("or any combination thereof")."""
    return (
        pct_within_bounds(r, pct, smart_growth, Basis.WITHHOLDINGS),
        pct_within_bounds(r, partner_pct, smart_growth, Basis.PARTNERS),
        r.either(r.not_(r.eq(pct, 0)), r.not_(r.eq(partner_pct, 0))),
    )


def _grant_pct(value: object, argument: str, basis: Basis, smart_growth: bool) -> Decimal:
    """A basis's percentage: 0 (basis unused) or within the bounds of a. / b."""
    citation = _pct_citation(smart_growth)
    pct = as_fraction(value, argument, citation)
    if not pct_within_bounds(EXACT, pct, smart_growth, basis):
        low, high = pct_limits(basis, smart_growth)
        where = " where the grant promotes smart growth" if smart_growth else ""
        rule = (
            f"must be from {fmt_pct(low)} to {fmt_pct(high)} of the {_BASIS_NAME[basis]}"
            f"{where}, or 0 if that basis is not used"
        )
        raise InputError(argument, value, rule, citation)
    return pct


def _grant_pcts(pct: object, partner_pct: object, smart: bool) -> tuple[Decimal, Decimal]:
    """Both percentages, checked by :func:`grant_bounds`."""
    pct_w = _grant_pct(pct, "pct", Basis.WITHHOLDINGS, smart)
    pct_p = _grant_pct(partner_pct, "partner_pct", Basis.PARTNERS, smart)
    if not grant_bounds(EXACT, pct_w, pct_p, smart)[2]:
        rule = "at least one basis must be used: pct (withholdings) or partner_pct (partners)"
        raise InputError("pct", pct, rule, _pct_citation(smart))
    return pct_w, pct_p


class AnnualGrant(Explained):
    """One year's grant before the $50,000 average cap (N.J.S.A. 34:1B-129a., b.)."""

    amount: Decimal
    withholdings_part: Decimal
    partners_part: Decimal
    pct: Decimal
    partner_pct: Decimal

    @computed_field  # type: ignore[prop-decorator]
    @property
    def arithmetic(self) -> str:
        """The whole computation on one line, e.g. "600,000.00 x 50% = 300,000.00"."""
        return self.steps[-1].arithmetic


def grant_before_cap(
    r: Rules, withholdings: V, pct: V, partner_tax: V, partner_pct: V, label: str, cite: str
) -> V:
    """One year's grant before the cap: N.J.S.A. 34:1B-129a., b.: withholdings x pct +
    partners' estimated tax x partner_pct, each part rounded down to the cent."""
    part_w = r.share(withholdings, pct)
    part_p = r.share(partner_tax, partner_pct)
    return r.add(part_w, part_p, label=label, cite=cite)


def _steps_of(rule: Callable[..., object], *args: object) -> tuple[Step, ...]:
    """The explanation of a rule run on ``args`` (for a result's lazy ``steps``)."""
    return explain(rule, *args)[1]


def _part(r: Rules, amount: V, share: V, label: str, cite: str) -> V:
    return r.share(amount, share, label=label, cite=cite)


def _annual_grant_steps(
    base: Decimal, pct_w: Decimal, tax: Decimal, pct_p: Decimal, citation: str
) -> tuple[Step, ...]:
    """Each part (a basis with percentage 0 "not used"), then the whole computation."""
    steps = []
    for label, amount, share in (
        ("Withholdings part", base, pct_w),
        ("Partners' estimated tax part", tax, pct_p),
    ):
        if share == 0:
            unused = f"{label}: basis not used (percentage 0)"
            steps.append(Step(label=unused, value=_ZERO, citation=citation))
        else:
            steps += explain(_part, amount, share, label, citation)[1]
    whole = explain(grant_before_cap, base, pct_w, tax, pct_p, "Annual grant", citation)[1]
    return (*steps, *whole)


def annual_grant(
    withholdings: Number,
    pct: Number,
    partner_tax: Number = 0,
    partner_pct: Number = 0,
    smart_growth: bool = False,
) -> AnnualGrant:
    """One year's grant before the cap: N.J.S.A. 34:1B-129a., b.

    withholdings x pct + partners' estimated tax x partner_pct ("or any combination
    thereof", a.; smart-growth maximums, b.), each part rounded down to the cent. A basis
    whose percentage is 0 is unused and contributes nothing; a used basis's percentage
    must lie within :func:`pct_limits`; at least one basis must be used.
    """
    smart = as_bool(smart_growth, "smart_growth", CITE_B)
    base = as_money(withholdings, "withholdings", CITE_A)
    pct_w = _grant_pct(pct, "pct", Basis.WITHHOLDINGS, smart)
    tax = as_money(partner_tax, "partner_tax", CITE_A)
    pct_p = _grant_pct(partner_pct, "partner_pct", Basis.PARTNERS, smart)
    if not grant_bounds(EXACT, pct_w, pct_p, smart)[2]:
        rule = "at least one basis must be used: pct (withholdings) or partner_pct (partners)"
        raise InputError("pct", pct, rule, _pct_citation(smart))
    citation = _pct_citation(smart)
    part_w, part_p = EXACT.share(base, pct_w), EXACT.share(tax, pct_p)
    total = grant_before_cap(EXACT, base, pct_w, tax, pct_p, "", "")
    return AnnualGrant(
        amount=total,
        withholdings_part=part_w,
        partners_part=part_p,
        pct=pct_w,
        partner_pct=pct_p,
        steps=partial(_annual_grant_steps, base, pct_w, tax, pct_p, citation),
    )


# =========================================================================== c.
#: "The term of the grant shall not exceed 10 years." N.J.S.A. 34:1B-129c.
MAXIMUM_TERM_YEARS = BEIP.MAXIMUM_TERM_YEARS.single


#: The term as an input (its one declaration: this check and the scenario runner's mask).
TERM_INPUT = InputRule(
    InputKind.COUNT,
    CITE_C,
    low=1,
    high=MAXIMUM_TERM_YEARS,
    rule=f"the term of the grant must be from 1 to {MAXIMUM_TERM_YEARS} years",
)


def validate_term(term: Number) -> int:
    """The term of the grant in whole years, 1 to 10: N.J.S.A. 34:1B-129c."""
    whole: int = TERM_INPUT.parse(term, "term")
    return whole


# =========================================================================== cap of a.
# "In no case shall the aggregate amount of the employment incentive grant awarded
# pursuant to a business employment incentive agreement entered into on or after July 1,
# 2003 exceed an average of $50,000 for all new employees over the term of the grant."
# N.J.A.C. 19:31I-1.4(a) applies it year by year from the annual reports: in year t the
# grant paid is min(grant_t, max(0, 50,000 x new_employees_t - grants paid before t)).

#: The cap and the date it starts from are dated figures (law.parameters): read at the
#: agreement date by the rules below. These names are the figures as enacted in the text
#: of shared/statutes (their first versions), kept for readers of the old constants.
AVERAGE_CAP_PER_NEW_EMPLOYEE = BEIP.AVERAGE_CAP.base
CAP_AGREEMENTS_FROM = BEIP.CAP_AGREEMENTS_FROM.base


def cap_date_rule(r: Rules, agreement_date: V, as_of: V = None) -> V:
    """The cap binds agreements entered into on or after July 1, 2003: N.J.S.A. 34:1B-129a.
    (both figures dated: ``parameters.AVERAGE_CAP``, ``parameters.CAP_AGREEMENTS_FROM``)."""
    start = r.law(BEIP.CAP_AGREEMENTS_FROM, agreement_date, as_of)
    cap = r.law(BEIP.AVERAGE_CAP, agreement_date, as_of)
    label = (
        f"The {r.figure(BEIP.AVERAGE_CAP, cap)} average cap applies (agreement entered into on or"
        f" after {r.figure(BEIP.CAP_AGREEMENTS_FROM, start)})"
    )
    return r.ge(agreement_date, start, label=label, cite=CITE_A)


def cap_room(r: Rules, new_employees: V, paid_before: V, cap: V, label: str = "") -> V:
    """What the cap still allows in a year: max(0, cap x that year's new employees -
    grants paid in earlier years), ``cap`` the average cap at the agreement date
    (:data:`~.parameters.AVERAGE_CAP`): N.J.S.A. 34:1B-129a.; N.J.A.C. 19:31I-1.4(a)."""
    allowed = r.times(cap, new_employees)
    return r.max(0, r.sub(allowed, paid_before), label=label, cite=CITE_CAP)


#: The figures a ``law_as_of`` of the cap's functions is checked against (issue 34: refused
#: only before their first version modelled).
CAP_FIGURES = (BEIP.AVERAGE_CAP, BEIP.CAP_AGREEMENTS_FROM)
#: ... and of the grant schedule: the bounds of a., b., the term of c. and the cap.
GRANT_FIGURES = (
    *CAP_FIGURES,
    BEIP.MINIMUM_GRANT_PCT,
    BEIP.MAXIMUM_PCT_OF_WITHHOLDINGS,
    BEIP.MAXIMUM_PCT_OF_PARTNERS_TAX,
    BEIP.SMART_GROWTH_MAXIMUM_PCT_OF_WITHHOLDINGS,
    BEIP.SMART_GROWTH_MAXIMUM_PCT_OF_PARTNERS_TAX,
    BEIP.MAXIMUM_TERM_YEARS,
)


# =========================================================================== base years
# "Base years": "the first two complete calendar years following the effective date of the
# agreement" (N.J.S.A. 34:1B-125, shared/legal-notes.md section 1).

#: The definition's citation.
CITE_BASE_YEARS = "N.J.S.A. 34:1B-125"
#: "the first two complete calendar years". N.J.S.A. 34:1B-125
BASE_YEAR_COUNT = BEIP.BASE_YEARS.single


class BaseYear(_Row):
    """One base year: a complete calendar year."""

    year: int
    start: dt.date
    end: dt.date


class BaseYears(Explained):
    """The base years of a BEIP agreement (N.J.S.A. 34:1B-125)."""

    effective_date: dt.date
    rows: tuple[BaseYear, ...]


def base_years(effective_date: DateLike) -> BaseYears:
    """The base years: "the first two complete calendar years following the effective date
    of the agreement" (N.J.S.A. 34:1B-125). An agreement effective 2010-01-01 has base
    years 2011 and 2012 (2010 begins on, not after, the date: docs/interpretations.md)."""
    date = as_date(effective_date, "effective_date", CITE_BASE_YEARS)
    # the first complete calendar year following the date: the year after its own (a
    # year beginning on the date does not follow it)
    first = date.year + 1
    years = [first + n for n in range(BASE_YEAR_COUNT)]
    if years[-1] > MAX_DATE.year:  # its last day would be past the last date accepted
        rule = (
            f"the base years' last day would be {years[-1]}-12-31, after {MAX_DATE}: results,"
            " like inputs, are dates up to it"
        )
        raise InputError("effective_date", effective_date, rule, CITE_BASE_YEARS)
    rows = tuple(
        BaseYear(year=year, start=dt.date(year, 1, 1), end=dt.date(year, 12, 31)) for year in years
    )
    step = Step(
        label="Base years",
        value=first,
        arithmetic=f"effective {date}: the first {BASE_YEAR_COUNT} complete calendar years"
        f" following it: {', '.join(str(y) for y in years)}",
        citation=CITE_BASE_YEARS,
    )
    return BaseYears(effective_date=date, rows=rows, steps=(step,))


def cap_applies(agreement_date: DateLike, law_as_of: DateLike | None = None) -> bool:
    """Whether the average cap binds the agreement: N.J.S.A. 34:1B-129a.

    True for agreements entered into on or after July 1, 2003 (``law_as_of``: the law as
    it stood on that date; blank: every modelled version).
    """
    date = as_date(agreement_date, "agreement_date", CITE_A)
    return bool(cap_date_rule(EXACT, date, as_law_as_of(law_as_of, "beip", CAP_FIGURES)))


def cap_version_rule(r: Rules, agreement_date: V, as_of: V = None) -> V:
    """The version of a. a cap result applied, as the act's code (its position in
    :func:`~.parameters.act_order`): the act that enacted the versions of the average cap
    and its start date in force for the agreement date under the law as of ``as_of``
    (:func:`~.parameters.applied`); per row under the int64 evaluator (the scenario
    runner's ``grant_version``)."""
    reads = ((BEIP.AVERAGE_CAP, agreement_date), (BEIP.CAP_AGREEMENTS_FROM, agreement_date))
    return r.applied("beip", reads, as_of)


def cap_version(agreement_date: dt.date, as_of: dt.date | None = None) -> str:
    """The name of the act whose version of a. a cap result applied
    (:func:`cap_version_rule`)."""
    code: int = cap_version_rule(EXACT, agreement_date, as_of)
    return P.act_order("beip")[code].name


class CapApplies(Explained):
    """Whether the average cap binds the agreement."""

    applies: bool
    #: the act whose version of the cap was applied (:func:`cap_version`)
    version: str = BEIP.BASE_BEIP.name


def explain_cap_applies(agreement_date: DateLike, law_as_of: DateLike | None = None) -> CapApplies:
    """Whether the average cap binds the agreement, with its step: agreements entered into
    on or after July 1, 2003 (N.J.S.A. 34:1B-129a.; N.J.A.C. 19:31I-1.4(a)); ``version``
    names the act whose figures applied."""
    date = as_date(agreement_date, "agreement_date", CITE_A)
    as_of = as_law_as_of(law_as_of, "beip", CAP_FIGURES)
    applies, steps = explain(cap_date_rule, date, as_of)
    return CapApplies(applies=bool(applies), version=cap_version(date, as_of), steps=steps)


# =========================================================================== schedule


class GrantYear(_Row):
    """One year of a grant schedule."""

    year: int
    withholdings: Decimal
    partner_tax: Decimal
    new_employees: int
    grant_before_cap: Decimal
    #: what the cap still allows this year; None where no cap applies (pre-July 2003)
    cap_room: Decimal | None
    grant: Decimal
    cumulative: Decimal
    note: str = ""


class GrantSchedule(Explained):
    """A grant over its term, year by year, after the $50,000 average cap."""

    term: int
    rows: tuple[GrantYear, ...]
    total: Decimal
    cap_applies: bool
    #: the act whose version of the cap was applied (:func:`cap_version`)
    version: str = BEIP.BASE_BEIP.name


def _sequence(value: object, argument: str) -> Sequence[object]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise InputError(argument, value, "must be one value per grant year", CITE_C)
    return value


def _for_year(error: InputError, year: int) -> InputError:
    """The same error, its rule prefixed by the grant year it concerns."""
    return InputError(error.argument, error.value, f"year {year}: {error.rule}", error.citation)


def _schedule_inputs(
    withholdings: Sequence[Number],
    new_employees: Sequence[Number],
    partner_tax: Sequence[Number] | None,
) -> tuple[list[Decimal], list[int], list[Decimal]]:
    """The three per-year columns, checked for the term (c.) and for equal lengths."""
    years = _sequence(withholdings, "withholdings")
    term = len(years)
    if not 1 <= term <= MAXIMUM_TERM_YEARS:
        rule = f"one value per grant year; the term must be from 1 to {MAXIMUM_TERM_YEARS} years"
        raise InputError("withholdings", list(years), f"{rule} (got {term})", CITE_C)
    columns: dict[str, Sequence[object]] = {
        "new_employees": _sequence(new_employees, "new_employees"),
        "partner_tax": [0] * term if partner_tax is None else _sequence(partner_tax, "partner_tax"),
    }
    for name, column in columns.items():
        if len(column) != term:
            rule = f"needs one value per grant year: {len(column)} given, withholdings has {term}"
            raise InputError(name, list(column), rule, CITE_C)
    money_w: list[Decimal] = []
    counts: list[int] = []
    money_p: list[Decimal] = []
    for year, (w, n, p) in enumerate(zip(years, *columns.values(), strict=True), 1):
        try:
            money_w.append(as_money(w, "withholdings", CITE_A))
            counts.append(as_int(n, "new_employees", CITE_CAP, low=0, rule="must not be negative"))
            money_p.append(as_money(p, "partner_tax", CITE_A))
        except InputError as error:
            raise _for_year(error, year) from None
    return money_w, counts, money_p


#: How the $50,000 average cap is applied (docs/interpretations.md, "The $50,000 average
#: cap"): "per_year" (default, N.J.A.C. 19:31I-1.4(a)'s own example), "whole_term" (one
#: test over the term, the years paid in order until it binds), "proportional" (one test
#: over the term, every year reduced in the same proportion).
CAP_METHODS = ("per_year", "whole_term", "proportional")


def term_cap_years(
    r: Rules,
    befores: Sequence[V],
    new_employees: Sequence[V],
    proportional: bool,
    average_cap: V,
    term: V = None,
) -> tuple[list[tuple[V, V]], V]:
    """The whole-term readings of the average cap (``average_cap``, per new employee, read
    at the agreement date: :data:`~.parameters.AVERAGE_CAP`) (:data:`CAP_METHODS`;
    docs/interpretations.md): N.J.S.A. 34:1B-129a.; N.J.A.C. 19:31I-1.4(a).
    ([(cap room, grant) per year], the total before the cap).

    One test over the term: the total paid may not exceed the cap x the average number of
    new employees over the term (their sum / the term), rounded down to the cent.
    "whole_term": the years are paid in order until the total reaches it (room =
    max(0, cap - grants paid before)). ``proportional``: where the grants before the cap
    exceed it, every year's grant x cap / their total, rounded down to the cent; the
    cents left over go to the last year with a grant, as far as its grant before the cap
    allows, the rest to the year before it, and so on: the years sum to the cap and none is
    paid more than its grant before the cap. ``term``: the number of years (default: of
    ``befores``; the scenario runner passes each row's, the later columns zero).
    """
    term = len(befores) if term is None else term
    before_total = r.total(befores, label="Grants before the cap", cite=CITE_CAP)
    shown = r.figure(BEIP.AVERAGE_CAP, average_cap)
    cap = r.muldiv(
        average_cap,
        r.total(new_employees),
        term,
        label=f"Average cap over the whole term ({shown} x the average new employees)",
        cite=CITE_CAP,
    )
    years: list[tuple[V, V]] = []
    if proportional:
        within = r.le(
            before_total,
            cap,
            label="Grants before the cap within the whole-term cap",
            cite=CITE_CAP,
        )
        # the total where it exceeds the cap (only then are the reduced years used)
        exceeding = r.subtotal(r.max(before_total, cap))
        parts = [
            r.muldiv(
                before,
                cap,
                exceeding,
                label=f"Year {year} after the proportional cap (grant x cap / grants before it)",
                cite=CITE_CAP,
            )
            for year, before in enumerate(befores, 1)
        ]
        label = "Cents left over, to the last year with a grant"
        left = r.sub(cap, r.total(parts), label=label, cite=CITE_CAP)
        # from the last year back, each takes what is left, up to its grant before the cap
        extras: list[V] = []
        remaining = left
        for before, part in reversed(list(zip(befores, parts, strict=True))):
            extra = r.min(r.sub(before, part), remaining)
            remaining = r.subtotal(r.sub(remaining, extra))
            extras.insert(0, extra)
        for before, part, extra in zip(befores, parts, extras, strict=True):
            grant = r.where(within, before, r.subtotal(r.add(part, extra)))
            years.append((grant, grant))
    else:
        paid_before: V = ZERO
        for year, before in enumerate(befores, 1):
            room = r.max(0, r.sub(cap, paid_before))
            label = (
                f"Year {year} grant after the whole-term cap (the smaller of the grant and"
                " what the cap leaves after the years before)"
            )
            grant = r.min(before, room, label=label, cite=CITE_CAP)
            paid_before = r.subtotal(r.add(paid_before, grant))
            years.append((room, grant))
    return years, before_total


def grant_years(
    r: Rules,
    withholdings: Sequence[V],
    partner_tax: Sequence[V],
    new_employees: Sequence[V],
    pct: V,
    partner_pct: V,
    agreement_date: V,
    citation: str = CITE_A,
    as_of: V = None,
) -> tuple[list[tuple[V, V, V]], V]:
    """The grant year by year, the per-year reading of the cap: N.J.S.A. 34:1B-129a., b.;
    N.J.A.C. 19:31I-1.4(a). ([(grant before cap, cap room, grant) per year], total paid).

    Year t's grant before the cap is :func:`grant_before_cap`; where the cap applies
    (:func:`cap_date_rule`) the grant paid is min(that, :func:`cap_room`), the room
    counting the grants paid in earlier years. A year reduced to zero does not extend the
    term; a later year can be paid again.

    N.J.A.C. 19:31I-1.4 (text current through N.J.R. Vol. 56, No. 21): "To the extent that
    the applicant has received grant funds in excess of $50,000 per new employee, the
    Authority will reduce the grant proportionally." This is the default because the
    regulation's own worked example tests the cap year by year from each annual report
    and withholds a year without room; "reduce the grant proportionally" is read as the
    reduction of that year's grant to the room (the alternative, every year reduced in
    one proportion over the term, is ``cap_method="proportional"``;
    docs/interpretations.md).
    """
    capped = cap_date_rule(r, agreement_date, as_of)
    average_cap = r.law(BEIP.AVERAGE_CAP, agreement_date, as_of)
    shown = r.figure(BEIP.AVERAGE_CAP, average_cap)
    paid_before: V = ZERO
    years = []
    for year, (w, p, n) in enumerate(zip(withholdings, partner_tax, new_employees, strict=True), 1):
        label = f"Year {year} grant before cap"
        before = grant_before_cap(r, w, pct, p, partner_pct, label, citation)
        room = cap_room(r, n, paid_before, average_cap)
        after = (
            f"Year {year} grant after the {shown} average cap (the smaller of the grant"
            " and the cap room)"
        )
        grant = r.where(capped, r.min(before, room, label=after, cite=CITE_CAP), before)
        paid_before = r.subtotal(r.add(paid_before, grant))
        years.append((before, room, grant))
    total = r.total((grant for _, _, grant in years), label="Total grant paid", cite=CITE_CAP)
    return years, total


def grant_years_over_term(
    r: Rules,
    withholdings: Sequence[V],
    partner_tax: Sequence[V],
    new_employees: Sequence[V],
    pct: V,
    partner_pct: V,
    agreement_date: V,
    proportional: bool,
    citation: str = CITE_A,
    as_of: V = None,
    term: V = None,
) -> tuple[list[tuple[V, V, V]], V, V]:
    """The grant year by year under a whole-term reading of the cap (:func:`term_cap_years`):
    N.J.S.A. 34:1B-129a., b.; N.J.A.C. 19:31I-1.4(a). ([(grant before cap, cap room, grant)
    per year], total paid, total before the cap), as :func:`grant_years`; where the cap
    does not apply (:func:`cap_date_rule`) every year is paid its grant before the cap."""
    capped = cap_date_rule(r, agreement_date, as_of)
    average_cap = r.law(BEIP.AVERAGE_CAP, agreement_date, as_of)
    befores = [
        grant_before_cap(r, w, pct, p, partner_pct, f"Year {year} grant before cap", citation)
        for year, (w, p) in enumerate(zip(withholdings, partner_tax, strict=True), 1)
    ]
    capped_years, before_total = term_cap_years(
        r, befores, new_employees, proportional, average_cap, term
    )
    years = [
        (before, room, r.where(capped, grant, before))
        for before, (room, grant) in zip(befores, capped_years, strict=True)
    ]
    total = r.total((grant for _, _, grant in years), label="Total grant paid", cite=CITE_CAP)
    return years, total, before_total


def _grant_schedule_steps(
    money_w: list[Decimal],
    money_p: list[Decimal],
    counts: list[int],
    pct_w: Decimal,
    pct_p: Decimal,
    date: dt.date,
    citation: str,
    method: str,
    as_of: dt.date | None = None,
) -> tuple[Step, ...]:
    term = len(money_w)
    text = f"{term} years (at most {MAXIMUM_TERM_YEARS})"
    steps = [Step(label="Term", value=term, arithmetic=text, citation=CITE_C)]
    capped = bool(cap_date_rule(EXACT, date, as_of))
    if method == "per_year" or not capped:
        args = (money_w, money_p, counts, pct_w, pct_p, date, citation, as_of)
        return (*steps, *explain(grant_years, *args, pick=lambda out: out[1])[1])
    proportional = method == "proportional"
    over_term = (money_w, money_p, counts, pct_w, pct_p, date, proportional, citation, as_of)
    return (*steps, *explain(grant_years_over_term, *over_term, pick=_whole_term_explained)[1])


def _whole_term_explained(out: tuple[list[tuple[V, V, V]], V, V]) -> tuple[V, V]:
    """What a whole-term schedule's explanation shows: the total paid and the total before
    the cap it is tested against."""
    return out[1], out[2]


def grant_schedule(
    withholdings: Sequence[Number],
    new_employees: Sequence[Number],
    pct: Number,
    agreement_date: DateLike,
    smart_growth: bool = False,
    partner_tax: Sequence[Number] | None = None,
    partner_pct: Number = 0,
    cap_method: str = "per_year",
    law_as_of: DateLike | None = None,
) -> GrantSchedule:
    """The grant year by year over its term: N.J.S.A. 34:1B-129a., b., c.; N.J.A.C. 19:31I-1.4(a).

    One value of ``withholdings`` (and of ``new_employees``, ``partner_tax``) per grant
    year; their number is the term (1 to 10, c.). Each year's grant is
    :func:`annual_grant`; for agreements entered into on or after July 1, 2003 it is then
    limited by the average cap (:data:`~.parameters.AVERAGE_CAP` at the agreement date),
    by ``cap_method`` (:data:`CAP_METHODS`): "per_year" (default): max(0, cap x that
    year's new employees - grants paid in earlier years); a year reduced to zero does not
    extend the term; a later year can be paid again (:func:`grant_years`). "whole_term":
    the total may not exceed the cap x the average new employees over the term, the years
    paid in order until it is reached. "proportional": the same total, every year's grant
    reduced in the same proportion. ``law_as_of``: the law as it stood on that date
    (default: every modelled version, chosen by the agreement date).
    """
    money_w, counts, money_p = _schedule_inputs(withholdings, new_employees, partner_tax)
    method = as_choice(cap_method, "cap_method", CAP_METHODS, CITE_CAP)
    date = as_date(agreement_date, "agreement_date", CITE_A)
    smart = as_bool(smart_growth, "smart_growth", CITE_B)
    pct_w, pct_p = _grant_pcts(pct, partner_pct, smart)
    citation = _pct_citation(smart)
    as_of = as_law_as_of(law_as_of, "beip", GRANT_FIGURES)
    capped = bool(cap_date_rule(EXACT, date, as_of))
    average_cap = BEIP.AVERAGE_CAP.at(date, as_of)
    if capped and method != "per_year":
        proportional = method == "proportional"
        args = (money_w, money_p, counts, pct_w, pct_p, date, proportional, CITE_A, as_of)
        years, _, _ = grant_years_over_term(EXACT, *args)
    else:
        args_y = (money_w, money_p, counts, pct_w, pct_p, date, CITE_A, as_of)
        years, _ = grant_years(EXACT, *args_y)
    rows: list[GrantYear] = []
    paid = _ZERO
    for year, ((before, room, grant), w, n, p) in enumerate(
        zip(years, money_w, counts, money_p, strict=True), 1
    ):
        note = ""
        if grant != before:
            reduced = f"grant reduced from {fmt_money(before)} to {fmt_money(grant)}"
            if method == "per_year":
                how = explain(cap_room, n, paid, average_cap, "cap room")[1][0].arithmetic
                note = f"cap room {how}; {reduced}"
            else:
                note = f"{method.replace('_', '-')} cap: {reduced}"
        paid += grant
        rows.append(
            GrantYear(
                year=year,
                withholdings=w,
                partner_tax=p,
                new_employees=n,
                grant_before_cap=before,
                cap_room=room if capped else None,
                grant=grant,
                cumulative=paid,
                note=note,
            )
        )
    steps = partial(
        _grant_schedule_steps,
        money_w,
        money_p,
        counts,
        pct_w,
        pct_p,
        date,
        citation,
        method,
        as_of,
    )
    return GrantSchedule(
        term=len(rows),
        rows=tuple(rows),
        total=paid,
        cap_applies=capped,
        version=cap_version(date, as_of),
        steps=steps,
    )


# =========================================================================== 34:1B-134
# (b) the BEIP grant plus all other State grants (Office of Customized Training grants
# excluded) may not exceed 50% of the withholdings (30% of the partners' estimated tax),
# except upon approval of the State Treasurer; (c) 80% / 50% where the grant promotes
# smart growth. (Text summarised in shared/legal-notes.md, section 1.)

#: 50% of withholdings / 30% of partners' estimated tax. N.J.S.A. 34:1B-134(b)
COMBINED_LIMIT_PCT = {
    Basis.WITHHOLDINGS: BEIP.COMBINED_LIMIT_PCT_OF_WITHHOLDINGS.single,
    Basis.PARTNERS: BEIP.COMBINED_LIMIT_PCT_OF_PARTNERS_TAX.single,
}
#: 80% / 50% where the grant promotes smart growth. N.J.S.A. 34:1B-134(c)
SMART_GROWTH_COMBINED_LIMIT_PCT = {
    Basis.WITHHOLDINGS: BEIP.SMART_GROWTH_COMBINED_LIMIT_PCT_OF_WITHHOLDINGS.single,
    Basis.PARTNERS: BEIP.SMART_GROWTH_COMBINED_LIMIT_PCT_OF_PARTNERS_TAX.single,
}


class LimitBase(Explained):
    """What the combined State grants limit is a share of."""

    amount: Decimal
    basis: Basis


def limit_base(
    basis: Basis | str, withholdings: Number | None = None, partner_tax: Number | None = None
) -> LimitBase:
    """What the combined State grants limit of N.J.S.A. 34:1B-134(b) is a share of: the
    withholdings of the new employees, or the partners' estimated tax of an eligible
    partnership (``basis``: the one the limit is on). The other may be blank; if given it
    must be an amount too (a bad input is never passed over)."""
    chosen = _basis(basis, citation=CITE_134B)
    amounts = {
        argument: None if value is None else as_money(value, argument, CITE_134B)
        for argument, value in (("withholdings", withholdings), ("partner_tax", partner_tax))
    }
    argument = "partner_tax" if chosen is Basis.PARTNERS else "withholdings"
    amount = amounts[argument]
    if amount is None:
        rule = f"is needed: the limit is on the {_BASIS_NAME[chosen]}"
        raise InputError(argument, amount, rule, CITE_134B)
    step = Step(
        label="Base of the combined State grants limit",
        value=amount,
        arithmetic=f"the {_BASIS_NAME[chosen]}: {fmt_money(amount)}",
        citation=CITE_134B,
    )
    return LimitBase(amount=amount, basis=chosen, steps=(step,))


class CombinedLimit(Explained):
    """The largest BEIP grant the combined State grants limit allows."""

    amount: Decimal
    basis: Basis
    limit_pct: Decimal
    #: limit_pct x base_amount, rounded down to the cent: all State grants together
    limit: Decimal
    other_grants: Decimal


def combined_limit_rule(
    r: Rules, base: V, limit_pct: V, other_grants: V, basis_name: str = "", cite: str = CITE_134B
) -> tuple[V, V]:
    """(All State grants together may not exceed limit_pct x the basis, rounded down; the
    largest BEIP grant: max(0, that - the other State grants)): N.J.S.A. 34:1B-134(b), (c)."""
    limit = r.share(
        base, limit_pct, label=f"All State grants together, on the {basis_name}", cite=cite
    )
    largest = r.max(
        0,
        r.sub(limit, other_grants),
        label="Largest BEIP grant (other State grants exclude Office of Customized Training"
        " grants; more only with the State Treasurer's approval)",
        cite=cite,
    )
    return limit, largest


def grant_over_limit_rule(r: Rules, grant: V, limit: V) -> tuple[V, V]:
    """(over, within): the grant over the combined limit, max(0, grant - limit), needs the
    State Treasurer's approval; the rest, grant - over, does not: N.J.S.A. 34:1B-134(b)."""
    over = r.max(
        0,
        r.sub(grant, limit),
        label="Grant over the combined limit (needs the State Treasurer's approval)",
        cite=CITE_134B,
    )
    within = r.sub(grant, over, label="Grant within the combined limit", cite=CITE_134B)
    return over, within


def combined_limit(
    base_amount: Number,
    other_grants: Number,
    basis: Basis | str,
    smart_growth: bool = False,
) -> CombinedLimit:
    """The largest BEIP grant allowed with the other State grants: N.J.S.A. 34:1B-134(b), (c).

    max(0, cents_down(limit_pct x base_amount) - other_grants), where limit_pct is 50% of
    withholdings or 30% of the partners' estimated tax (80% / 50% with smart growth) and
    ``other_grants`` excludes Office of Customized Training grants. The State Treasurer may
    approve more; this is the limit without that approval.
    """
    chosen = _basis(basis, citation=CITE_134B)
    smart = as_bool(smart_growth, "smart_growth", CITE_134C)
    citation = CITE_134C if smart else CITE_134B
    base = as_money(base_amount, "base_amount", citation)
    others = as_money(other_grants, "other_grants", citation)
    limit_pct = (SMART_GROWTH_COMBINED_LIMIT_PCT if smart else COMBINED_LIMIT_PCT)[chosen]
    args = (base, limit_pct, others, _BASIS_NAME[chosen], citation)
    limit, amount = combined_limit_rule(EXACT, *args)
    steps = partial(_steps_of, combined_limit_rule, *args)
    return CombinedLimit(
        amount=amount,
        basis=chosen,
        limit_pct=limit_pct,
        limit=limit,
        other_grants=others,
        steps=steps,
    )


class GrantOverLimit(Explained):
    """A year's BEIP grant split at the combined State grants limit."""

    grant: Decimal
    combined_limit: Decimal
    #: the part only the State Treasurer's approval allows
    over: Decimal
    within: Decimal


def grant_over_limit(grant: Number, combined_limit: Number) -> GrantOverLimit:
    """The grant over the combined limit, N.J.S.A. 34:1B-134(b).

    The grants together "shall not exceed" the limit "except upon approval of the State
    Treasurer": ``over = max(0, grant - combined_limit)`` needs that approval, and
    ``within = grant - over`` does not (``combined_limit``: the largest BEIP grant the
    limit allows, :func:`combined_limit`).
    """
    amount = as_money(grant, "grant", CITE_134B)
    limit = as_money(combined_limit, "combined_limit", CITE_134B)
    over, within = grant_over_limit_rule(EXACT, amount, limit)
    return GrantOverLimit(
        grant=amount,
        combined_limit=limit,
        over=over,
        within=within,
        steps=partial(_steps_of, grant_over_limit_rule, amount, limit),
    )


# =========================================================================== e.(1)-(13)
# A business approved for a grant before P.L.2015, c.194 could convert it to tax credits,
# issued "in the manner and for the amounts as follows", by the calendar year in which the
# grant accrued but was not paid. Each installment is rounded down to the cent and the
# last takes the remainder (docs/interpretations.md, "Rounding of money").


@dataclass(frozen=True)
class ConversionParagraph:
    """One paragraph of N.J.S.A. 34:1B-129e.: which accrual years, from when, what shares."""

    paragraph: int
    accrual_years: range
    first_tax_year: int
    #: share of the approved amount issued in each successive tax year (sums to 1)
    shares: tuple[Decimal, ...]
    #: "equal installments" rather than stated percentages
    equal: bool = True

    @property
    def citation(self) -> str:
        return f"{SECTION}e.({self.paragraph})"

    @property
    def late_approval_rule(self) -> bool:
        """Whether e.(1)'s late-approval rule applies (its grants accrued 2008-2013 only)."""
        return self.paragraph == 1

    @property
    def fractions(self) -> tuple[Fraction | Decimal, ...]:
        """The shares exactly: 1/n each for "equal installments", else the stated ones."""
        if self.equal:
            return (Fraction(1, len(self.shares)),) * len(self.shares)
        return self.shares


def _equal(count: int) -> tuple[Decimal, ...]:
    return (Decimal(1) / Decimal(count),) * count


#: e.(1): "five percent ...; 20 percent ...; 25 percent ...; 25 percent ...; 25 percent"
PARAGRAPH_1_SHARES = tuple(Decimal(s) for s in ("0.05", "0.20", "0.25", "0.25", "0.25"))

#: N.J.S.A. 34:1B-129e.(1)-(13): (paragraph, accrual years, first tax year, shares).
CONVERSION_PARAGRAPHS: tuple[ConversionParagraph, ...] = (
    ConversionParagraph(1, range(2008, 2014), 2017, PARAGRAPH_1_SHARES, equal=False),
    ConversionParagraph(2, range(2014, 2015), 2019, _equal(4)),
    ConversionParagraph(3, range(2015, 2016), 2019, _equal(4)),
    ConversionParagraph(4, range(2016, 2017), 2020, _equal(3)),
    ConversionParagraph(5, range(2017, 2018), 2020, _equal(3)),
    ConversionParagraph(6, range(2018, 2019), 2022, _equal(2)),
    ConversionParagraph(7, range(2019, 2020), 2022, _equal(2)),
    ConversionParagraph(8, range(2020, 2021), 2023, _equal(2)),
    ConversionParagraph(9, range(2021, 2022), 2023, _equal(2)),
    ConversionParagraph(10, range(2022, 2023), 2023, _equal(2)),
    ConversionParagraph(11, range(2023, 2024), 2023, _equal(2)),
    ConversionParagraph(12, range(2024, 2025), 2025, _equal(1)),
    ConversionParagraph(13, range(2025, 2026), 2025, _equal(1)),
)
FIRST_ACCRUAL_YEAR = CONVERSION_PARAGRAPHS[0].accrual_years.start  # 2008
LAST_ACCRUAL_YEAR = CONVERSION_PARAGRAPHS[-1].accrual_years.stop - 1  # 2025

#: e.(1): "approved by the authority by the commencement of State fiscal year 2017"
STATE_FISCAL_YEAR_2017_START = BEIP.STATE_FISCAL_YEAR_2017_START.single
#: New Jersey's State fiscal year N runs from July 1 of N-1 to June 30 of N.
_FISCAL_YEAR_START_MONTH = 7
#: e.: a business "approved for a grant prior to the enactment of P.L.2015, c.194" ...
#: P.L.2015, c.194 (S-3232/A-4834) was passed December 17, 2015 and approved (enacted)
#: January 11, 2016 (shared/legal-notes.md, section 4; an earlier version of the notes,
#: and of this module, said November 9, 2015: that was wrong).
ENACTMENT_P_L_2015_C_194 = BEIP.ENACTMENT_P_L_2015_C_194.single
#: ... may direct the conversion "within 180 days of the date of enactment".
DIRECTION_DAYS = BEIP.DIRECTION_DAYS.single
#: Day 180 after the enactment: Saturday, July 9, 2016 (the strict reading's last day).
DIRECTION_DAY_180 = ENACTMENT_P_L_2015_C_194 + dt.timedelta(days=DIRECTION_DAYS)
#: The deadline the Authority and practitioners published: close of business Monday,
#: July 11, 2016, the next business day after day 180 (Gibbons law alerts of January and
#: May 2016; Walton; Reed Smith, July 2016; legal notes, section 4). The default.
DIRECTION_DEADLINE_PUBLISHED = BEIP.DIRECTION_DEADLINE_PUBLISHED.single
#: ``direction_deadline``: "published" (default: through DIRECTION_DEADLINE_PUBLISHED)
#: or "strict" (through DIRECTION_DAY_180); docs/interpretations.md.
DIRECTION_DEADLINE_READINGS = ("published", "strict")
#: The last day of the direction window by reading.
DIRECTION_DEADLINES = {"published": DIRECTION_DEADLINE_PUBLISHED, "strict": DIRECTION_DAY_180}
#: The default reading's last day.
DIRECTION_DEADLINE = DIRECTION_DEADLINE_PUBLISHED


#: The accrual year as an input (its one declaration: this check and the runner's mask).
ACCRUAL_YEAR_INPUT = InputRule(
    InputKind.COUNT,
    CITE_E,
    low=FIRST_ACCRUAL_YEAR,
    high=LAST_ACCRUAL_YEAR,
    rule=f"subsection e. converts grants accrued in calendar years {FIRST_ACCRUAL_YEAR}"
    f" to {LAST_ACCRUAL_YEAR} only",
)


def _accrual_year(value: object) -> int:
    year: int = ACCRUAL_YEAR_INPUT.parse(value, "accrual_year")
    return year


def conversion_paragraph(accrual_year: Number) -> ConversionParagraph:
    """The paragraph of N.J.S.A. 34:1B-129e.(1)-(13) for a grant accrued in a calendar year."""
    year = _accrual_year(accrual_year)
    return next(p for p in CONVERSION_PARAGRAPHS if year in p.accrual_years)


def first_tax_year(
    r: Rules, paragraph_first_year: V, late_rule: V, approved: V, approval_date: V
) -> tuple[V, V]:
    """The tax year the installments commence, and whether e.(1)'s late approval moved it:
    N.J.S.A. 34:1B-129e.(1). A grant accrued 2008-2013 (``late_rule``) whose amount was
    approved (``approved``: an approval date is given) on or after the commencement of
    State fiscal year 2017 commences in the tax year numbered like the State fiscal year
    containing the approval (July 1 of N-1 to June 30 of N); any other, in the tax year its
    paragraph states."""
    cite = f"{SECTION}e.(1)"
    after = r.ge(
        approval_date,
        STATE_FISCAL_YEAR_2017_START,
        label="Approved on or after the commencement of State fiscal year 2017",
        cite=cite,
    )
    late = r.where(late_rule, r.where(approved, after, False), False)
    fiscal = r.fiscal_year(
        approval_date,
        _FISCAL_YEAR_START_MONTH,
        "State fiscal year",
        label="First tax year: the State fiscal year containing the approval (the return"
        " numbered that tax year, whatever the filer's year end)",
        cite=cite,
    )
    return r.where(late, fiscal, paragraph_first_year), late


def installments(
    r: Rules,
    amount: V,
    shares: Sequence[V],
    count: V,
    labels: Sequence[str] = (),
    cite: str = CITE_E,
) -> list[V]:
    """The installments of a converted grant: N.J.S.A. 34:1B-129e.(1)-(13). Installment j
    is the amount x its share, rounded down to the cent; the last (the ``count``-th) takes
    the remainder, so that they sum to the amount exactly; none beyond ``count``."""
    issued: V = 0
    parts = []
    for j, share in enumerate(shares):
        label = labels[j] if labels else ""
        part = r.where(
            r.eq(count, j + 1),
            r.sub(amount, issued, label=f"{label} (the remainder)" if j else label, cite=cite),
            r.share(amount, share, label=label, cite=cite),
        )
        part = r.where(r.gt(count, j), part, 0)
        issued = r.add(issued, part)
        parts.append(part)
    return parts


class Installment(_Row):
    """One tax year's credit in a conversion schedule."""

    tax_year: int
    #: share of the approved amount, as a fraction (one third is 0.333...)
    share: Decimal
    amount: Decimal
    #: the last day of the privilege period whose return is that tax year (the filer's
    #: year end, cbt.period_end_for): the return the installment goes on
    period_end: dt.date | None = None


class ConversionSchedule(Explained):
    """The tax credits a converted grant is issued as (N.J.S.A. 34:1B-129e.)."""

    accrual_year: int
    paragraph: int
    first_tax_year: int
    #: True where e.(1)'s late-approval rule moved the first tax year
    late_approval: bool
    rows: tuple[Installment, ...]
    total: Decimal
    year_end_month: int = 12
    numbering: str = "form"


def _check_enactment_dates(
    grant_approval: dt.date | None, direction: dt.date | None, deadline_reading: str = "published"
) -> None:
    """e.: approved for the grant before P.L.2015, c.194; directed within 180 days of it
    (through the published deadline, or day 180 itself: ``deadline_reading``)."""
    enacted = ENACTMENT_P_L_2015_C_194
    if grant_approval is not None and grant_approval >= enacted:
        rule = (
            "subsection e. converts grants of a business approved for a grant before the"
            f" enactment of P.L.2015, c.194 ({enacted}); approved {grant_approval}"
        )
        raise InputError("grant_approval_date", grant_approval, rule, CITE_E)
    deadline = DIRECTION_DEADLINES[deadline_reading]
    if direction is not None and not enacted <= direction <= deadline:
        if deadline_reading == "published":
            why = (
                f"day {DIRECTION_DAYS}, {DIRECTION_DAY_180}, was a Saturday; the Authority"
                f" published {deadline}"
            )
        else:
            why = f'day {DIRECTION_DAYS} itself (direction_deadline "strict")'
        rule = (
            f"the direction to convert must come within {DIRECTION_DAYS} days of the"
            f" enactment of P.L.2015, c.194 ({enacted}): from {enacted} to {deadline} ({why})"
        )
        raise InputError("direction_date", direction, rule, f"{CITE_E}; {CITE_READING}")


def _conversion_steps(
    year: int,
    paragraph: ConversionParagraph,
    approved: Decimal,
    approval: dt.date | None,
    rows: tuple[Installment, ...],
    month: int,
    kind: str,
) -> tuple[Step, ...]:
    cite = paragraph.citation
    count = len(rows)
    steps = [
        Step(
            label="Paragraph",
            value=paragraph.paragraph,
            arithmetic=f"accrued in {year}: paragraph ({paragraph.paragraph}), {count}"
            f" installment{'s' if count > 1 else ''}",
            citation=cite,
        )
    ]
    on = STATE_FISCAL_YEAR_2017_START if approval is None else approval
    args = (paragraph.first_tax_year, paragraph.late_approval_rule, approval is not None, on)
    (start, late), first_steps = explain(first_tax_year, *args, pick=lambda out: out[0])
    steps += first_steps
    if not late:
        why = f"{start}, as paragraph ({paragraph.paragraph}) states"
        if paragraph.late_approval_rule and approval is not None:
            why += " (approved by the commencement of State fiscal year 2017)"
        elif approval is not None:
            why += f"; approval_date {approval} ignored: the late-approval rule is in e.(1) only"
        steps.append(Step(label="First tax year", value=start, arithmetic=why, citation=cite))
    labels = [f"Tax year {row.tax_year}" for row in rows]
    args2 = (approved, paragraph.fractions, count, labels, cite)
    steps += explain(installments, *args2)[1]
    if (month, kind) != (12, "form"):
        steps.insert(
            len(steps) - count,
            Step(
                label="Returns the installments go on",
                value=rows[0].period_end,
                arithmetic=f"year ending in month {month}, {kind} numbering: "
                + "; ".join(
                    f"tax year {row.tax_year}: period ending {row.period_end}" for row in rows
                ),
                citation=f"{CITE_E}; {cbt.CITE_FORM_YEAR}",
            ),
        )
    return tuple(steps)


def conversion_schedule(
    accrual_year: Number,
    amount: Number,
    approval_date: DateLike | None = None,
    year_end_month: Number = 12,
    numbering: str = "form",
    grant_approval_date: DateLike | None = None,
    direction_date: DateLike | None = None,
    direction_deadline: str = "published",
) -> ConversionSchedule:
    """The tax credits for a grant accrued but not paid in a year: N.J.S.A. 34:1B-129e.(1)-(13).

    One installment per tax year from the paragraph's first tax year, each rounded down to
    the cent, the last taking the remainder. ``approval_date`` matters in paragraph (1)
    (accrued 2008-2013) only: approved on or after July 1, 2016, the five years commence in
    the tax year numbered like the State fiscal year that contains the approval date.

    Each installment names the return it goes on: the privilege period numbered that tax
    year for a filer whose year ends in ``year_end_month`` (default 12, a calendar-year
    filer), by the Division's form-year ``numbering`` (:func:`cbt.tax_year`; "calendar"
    the alternative). Where given, ``grant_approval_date`` must be before January 11, 2016
    (the enactment of P.L.2015, c.194) and ``direction_date`` from January 11, 2016 through
    July 11, 2016, the Authority's published deadline (``direction_deadline="strict"``:
    through July 9, 2016, day 180) (e.; docs/interpretations.md).
    """
    year = _accrual_year(accrual_year)
    paragraph = conversion_paragraph(year)
    approved = as_money(amount, "amount", paragraph.citation)
    approval = None if approval_date is None else as_date(approval_date, "approval_date", CITE_E)
    month = cbt.year_end_month(year_end_month)
    kind = as_choice(numbering, "numbering", cbt.TAX_YEAR_NUMBERINGS, cbt.CITE_FORM_YEAR)
    deadline_reading = as_choice(
        direction_deadline, "direction_deadline", DIRECTION_DEADLINE_READINGS, CITE_E
    )
    _check_enactment_dates(
        None
        if grant_approval_date is None
        else as_date(grant_approval_date, "grant_approval_date", CITE_E),
        None if direction_date is None else as_date(direction_date, "direction_date", CITE_E),
        deadline_reading,
    )
    on = STATE_FISCAL_YEAR_2017_START if approval is None else approval
    args = (paragraph.first_tax_year, paragraph.late_approval_rule, approval is not None, on)
    start, _ = first_tax_year(EXACT, *args)
    count = len(paragraph.shares)
    parts = installments(EXACT, approved, paragraph.fractions, count)
    try:
        # the month and the numbering read above, not again for each end
        ends = [cbt.period_end_in(start + i, month, kind) for i in range(count)]
    except InputError as error:  # only a late approval moves the installments so far
        rule = f"its installments run to tax year {start + count - 1}: {error.rule}"
        raise InputError("approval_date", approval_date, rule, error.citation) from None
    rows = tuple(
        Installment(tax_year=start + i, share=share, amount=part, period_end=end)
        for i, (share, part, end) in enumerate(zip(paragraph.shares, parts, ends, strict=True))
    )
    steps = partial(_conversion_steps, year, paragraph, approved, approval, rows, month, kind)
    return ConversionSchedule(
        accrual_year=year,
        paragraph=paragraph.paragraph,
        first_tax_year=start,
        late_approval=start != paragraph.first_tax_year,
        rows=rows,
        total=approved,
        year_end_month=month,
        numbering=kind,
        steps=steps,
    )


def conversion_installment(
    accrual_year: Number,
    amount: Number,
    tax_year: Number | None = None,
    approval_date: DateLike | None = None,
    period_end: DateLike | None = None,
    numbering: str = "form",
) -> Decimal:
    """The credit issued for one tax year (0.00 if none): N.J.S.A. 34:1B-129e.(1)-(13).

    The tax year is ``tax_year``, or the number of the return for the privilege period
    ending on ``period_end`` (:func:`cbt.tax_year`); give one of the two.
    """
    # checked even when no period_end uses it: a given argument is never ignored unread
    as_choice(numbering, "numbering", cbt.TAX_YEAR_NUMBERINGS, cbt.CITE_FORM_YEAR)
    if period_end is not None:
        number = cbt.tax_year_number(period_end, numbering)
        if tax_year is not None and as_int(tax_year, "tax_year", CITE_E) != number:
            rule = (
                f"the period ending {as_date(period_end, 'period_end')} is tax year {number}"
                f" ({numbering} numbering): give tax_year or period_end, or both agreeing"
            )
            raise InputError("tax_year", tax_year, rule, cbt.CITE_FORM_YEAR)
    elif tax_year is None:
        raise InputError("tax_year", None, "is required (or give period_end)", CITE_E)
    else:
        number = as_int(tax_year, "tax_year", CITE_E)
    schedule = conversion_schedule(accrual_year, amount, approval_date)
    return next((row.amount for row in schedule.rows if row.tax_year == number), _ZERO)


# =========================================================================== f.
# "The amount of the credit ... shall be applied against the tax otherwise due ... prior
# to all other credits and payments. If the credit exceeds the amount of tax liability ...
# that amount of excess shall be an overpayment for the purposes of R.S.54:49-15". Credits
# from e. "may only be applied in the tax period for which they are issued and shall not
# be carried forward": nothing carries over.


class CreditApplication(Explained):
    """A BEIP credit applied against one period's tax (N.J.S.A. 34:1B-129f.)."""

    credit: Decimal
    tax_liability: Decimal
    #: applied first, before all other credits and payments
    applied: Decimal
    #: the excess of the credit over the tax: refunded as an overpayment
    overpayment: Decimal
    #: the tax left for the other credits and payments
    remaining_liability: Decimal


def credit_application(
    r: Rules, credit: V, tax_liability: V, minimum_tax: V, cite: str = CITE_F
) -> tuple[V, V, V]:
    """The credit applied first against the tax, the excess an overpayment: N.J.S.A.
    34:1B-129f. (applied, overpayment, tax left for the other credits and payments).

    applied = min(credit, max(0, tax_liability - minimum_tax)) ("prior to all other
    credits and payments"); the excess of the credit is an overpayment (R.S.54:49-15).
    """
    against = r.max(0, r.sub(tax_liability, minimum_tax))
    applied = r.min(
        credit, against, label="Applied before all other credits and payments", cite=cite
    )
    overpayment = r.sub(
        credit, applied, label="Overpayment (refunded under R.S.54:49-15)", cite=CITE_F
    )
    remaining = r.sub(
        tax_liability, applied, label="Tax left for other credits and payments", cite=CITE_F
    )
    return applied, overpayment, remaining


def _credit_steps(amount: Decimal, tax: Decimal, floor: Decimal) -> tuple[Step, ...]:
    if floor == 0:
        return explain(credit_application, amount, tax, 0)[1]
    cite = f"{CITE_F}; N.J.S.A. 54:10A-5(e)"
    return explain(credit_application, amount, tax, floor, cite)[1]


def apply_credit(
    credit: Number, tax_liability: Number, minimum_tax: Number = 0
) -> CreditApplication:
    """The credit applied first against the tax, the excess an overpayment: N.J.S.A. 34:1B-129f.

    applied = min(credit, tax_liability - minimum_tax); overpayment = credit - applied;
    remaining_liability = tax_liability - applied (:func:`credit_application`). No
    rounding: the inputs' cents stay exact. ``minimum_tax`` 0 (default, our reading): f.
    applies the credit against "the tax otherwise due" and may take it below the CBT
    statutory minimum; the alternative holds the tax at the minimum (give the minimum,
    N.J.S.A. 54:10A-5(e)) and refunds the rest of the credit as an overpayment.
    """
    amount = as_money(credit, "credit", CITE_F)
    tax = as_money(tax_liability, "tax_liability", CITE_F)
    floor = as_money(minimum_tax, "minimum_tax", f"{CITE_F}; N.J.S.A. 54:10A-5(e)")
    applied, overpayment, remaining = credit_application(EXACT, amount, tax, floor)
    return CreditApplication(
        credit=amount,
        tax_liability=tax,
        applied=applied,
        overpayment=overpayment,
        remaining_liability=remaining,
        steps=partial(_credit_steps, amount, tax, floor),
    )


# =========================================================================== g.(3)
# A tax credit transfer certificate "may be sold or assigned, in full or in part, in an
# amount not less than $100,000, or the amount of the refundable tax credit issued if less
# than $100,000"; the sale "shall not be exchanged for consideration ... of less than 75
# percent of the transferred credit amount before considering any further discounting to
# present value which shall be permitted." "The tax credit transferee may not transfer its
# tax credit to any other party." The discount runs from the sale to the use of the
# credit, which "may only be applied in the tax period for which [it is] issued" (e.): to
# the end of that privilege period; the rate within a bound that is ours, not the law's
# (docs/interpretations.md, "Transfer certificates").

#: "in an amount not less than $100,000". N.J.S.A. 34:1B-129g.(3)
TRANSFER_MINIMUM = BEIP.TRANSFER_MINIMUM.single
#: "not ... less than 75 percent of the transferred credit amount". N.J.S.A. 34:1B-129g.(3)
MINIMUM_CONSIDERATION_SHARE = BEIP.MINIMUM_CONSIDERATION_SHARE.single
#: Our bound on a present-value discount rate (not a rule of law; the switch
#: ``max_discount_rate``): a yearly rate above it is not a discount to present value.
MAXIMUM_DISCOUNT_RATE = Decimal("0.20")
#: Days in a year of the discounting period (actual days / 365).
_DAYS_PER_YEAR = 365
#: digits carried while discounting, before the result is rounded down to the cent
_DISCOUNT_PRECISION = 50
#: a sanity bound on the discounting period (not a rule of law; keeps the power finite)
_MAXIMUM_DISCOUNT_YEARS = 100


class TransferPrice(Explained):
    """The lowest lawful consideration for a transfer (N.J.S.A. 34:1B-129g.(3))."""

    amount: Decimal
    #: 75% of the transferred amount, rounded down to the cent, before discounting
    undiscounted: Decimal
    discount_rate: Decimal
    years: Decimal


def _discount_years(years: Number) -> Decimal:
    span = as_number(years, "years", CITE_G3)
    if not 0 <= span <= _MAXIMUM_DISCOUNT_YEARS:
        rule = f"must be from 0 to {_MAXIMUM_DISCOUNT_YEARS} years (a present-value period)"
        raise InputError("years", years, rule, CITE_G3)
    return span


def transfer_min_price(
    transfer_amount: Number,
    discount_rate: Number = 0,
    years: Number | None = None,
    sale_date: DateLike | None = None,
    credit_period_end: DateLike | None = None,
    max_discount_rate: Number = MAXIMUM_DISCOUNT_RATE,
) -> TransferPrice:
    """The lowest consideration for a transferred credit: N.J.S.A. 34:1B-129g.(3).

    75% x transfer_amount / (1 + discount_rate) ^ years, rounded down to the cent: the 75%
    floor applies "before considering any further discounting to present value", which is
    permitted. The discount is :func:`transfer_check`'s, by the same rule
    (:func:`transfer_discount_rule`), so the two accept and refuse the same inputs: the
    years run from ``sale_date`` to ``credit_period_end``, the end of the credit's tax
    period (days / 365); ``years`` blank (None) is that whole period, a number shortens it
    (0: no discounting, the 75% floor; at most the period); ``years`` without the two
    dates cannot be discounted over (refused, unless ``discount_rate`` is 0); the rate at
    most ``max_discount_rate`` (20%, our bound).
    """
    amount = as_money(transfer_amount, "transfer_amount", CITE_G3)
    rate = as_fraction(discount_rate, "discount_rate", CITE_G3)
    bound = as_fraction(max_discount_rate, "max_discount_rate", CITE_G3)
    given, between, reasons, _ = _discount_period(years, sale_date, credit_period_end)
    if reasons:
        raise InputError("years", years, reasons[0].rsplit(" (", 1)[0], CITE_G3)
    asked = _asked_years(given)
    terms = transfer_discount_rule(EXACT, rate, bound, asked, between is not None)
    refused = _discount_refusals(terms, rate, bound, asked)
    if refused:
        argument, value, rule, _ = refused[0]
        raise InputError(argument, value, rule, CITE_G3)
    span = _discount_span(given, between)
    floor, price = transfer_price_rule(EXACT, amount, rate, span)
    return TransferPrice(
        amount=price,
        undiscounted=floor,
        discount_rate=rate,
        years=span,
        steps=partial(_steps_of, transfer_price_rule, amount, rate, span),
    )


def transfer_price_rule(r: Rules, transfer_amount: V, discount_rate: V, years: V) -> tuple[V, V]:
    """g.(3): the consideration may not be "less than 75 percent of the transferred credit
    amount before considering any further discounting to present value": (75% of the
    amount, rounded down to the cent; the same / (1 + discount_rate) ^ years, the lowest
    lawful consideration, rounded down to the cent)."""
    floor = r.share(
        transfer_amount,
        MINIMUM_CONSIDERATION_SHARE,
        label=f"{fmt_pct(MINIMUM_CONSIDERATION_SHARE)} of the transferred amount",
        cite=CITE_G3,
    )
    price = r.discount(
        transfer_amount,
        MINIMUM_CONSIDERATION_SHARE,
        discount_rate,
        years,
        _DISCOUNT_PRECISION,
        label="Discounted to present value (the lowest consideration)",
        cite=CITE_G3,
    )
    return floor, price


class DiscountTerms(NamedTuple):
    """What g.(3)'s "discounting to present value" asks of a discount (values of
    :func:`transfer_discount_rule`)."""

    rate_within_bound: V
    period_dated: V


def transfer_discount_rule(
    r: Rules, discount_rate: V, max_discount_rate: V, years: V, dated: V
) -> DiscountTerms:
    """g.(3): "further discounting to present value ... shall be permitted": (the yearly
    rate is at most ``max_discount_rate``, our bound, not the law's; a discount over
    ``years`` (a rate and years above 0) runs only over the time from the sale to the use
    of the credit, so it needs that period dated: ``dated``, sale_date and
    credit_period_end given). The one rule of :func:`transfer_min_price` and
    :func:`transfer_check`: both accept and refuse the same discounts."""
    rate_within = r.le(
        discount_rate,
        max_discount_rate,
        label="Discount rate at most the bound on a discount to present value",
        cite=CITE_G3,
    )
    discounting = r.both(r.gt(discount_rate, 0), r.gt(years, 0))
    dated_period = r.given(
        dated, label="Discounting period dated (sale_date and credit_period_end)", cite=CITE_G3
    )
    period = r.either(
        r.not_(discounting),
        dated_period,
        label="Discounted only over the time from the sale to the use of the credit",
        cite=f"{CITE_G3}; {CITE_E}",
    )
    return DiscountTerms(rate_within_bound=rate_within, period_dated=period)


def _discount_refusals(
    terms: DiscountTerms, rate: Decimal, bound: Decimal, years: Decimal
) -> list[tuple[str, object, str, str]]:
    """What :func:`transfer_discount_rule` refuses, as (argument, value, rule, reason):
    the refusal of :func:`transfer_min_price` (argument = value: rule) and the reason of
    :func:`transfer_check`, worded from the same outcome."""
    refused: list[tuple[str, object, str, str]] = []
    if not terms.period_dated:
        rule = (
            f"a discount to present value over {fmt_number(years)} years needs the sale date"
            " and the credit's tax period (sale_date, credit_period_end)"
        )
        refused.append(("years", years, rule, f"{rule} ({CITE_G3})"))
    if not terms.rate_within_bound:
        rule = (
            f"is above {fmt_pct(bound)} a year, the bound on a discount to present value"
            " (max_discount_rate)"
        )
        reason = (
            f"discount_rate {fmt_pct(rate)} is above {fmt_pct(bound)} a year, the bound on a"
            f" discount to present value (max_discount_rate; {CITE_G3})"
        )
        refused.append(("discount_rate", rate, rule, reason))
    return refused


def _asked_years(given: Decimal | None) -> Decimal:
    """The years a discount is asked over, for :func:`transfer_discount_rule`: blank
    (None) asks for none of its own (the dated period, where there is one)."""
    return Decimal(0) if given is None else given


def _discount_span(given: Decimal | None, between: Decimal | None) -> Decimal:
    """The years discounted over: the period from the sale to the credit's use, which
    ``years`` may shorten (0: none) but not lengthen, blank (None) the whole of it; none
    without the dated period."""
    if between is None:
        return Decimal(0)
    return between if given is None or given > between else given


class TransferCheck(Explained):
    """Whether a proposed sale of a transfer certificate is lawful (N.J.S.A. 34:1B-129g.(3))."""

    ok: bool
    #: every reason the sale fails, each with its citation (empty when ok)
    reasons: tuple[str, ...]
    minimum_transfer: Decimal
    minimum_price: Decimal
    #: the discounting period used, in years (0 without discounting)
    discount_years: Decimal = Decimal(0)
    #: g.(1), (2): the seller may apply for a certificate (None: neither fact stated)
    seller_may_apply: bool | None = None
    #: g.(3): the buyer may have a liability under a listed tax (None: not stated)
    buyer_may_buy: bool | None = None


def _discount_period(
    years: Number | None, sale_date: DateLike | None, credit_period_end: DateLike | None
) -> tuple[Decimal | None, Decimal | None, list[str], str]:
    """(years given or None for blank, years from the sale to the use of the credit or
    None, reasons, text)."""
    given = None if years is None or is_blank(years) else _discount_years(years)
    if sale_date is None and credit_period_end is None:
        return given, None, [], ""
    if sale_date is None or credit_period_end is None:
        missing = "sale_date" if sale_date is None else "credit_period_end"
        rule = "the discounting period needs both sale_date and credit_period_end"
        raise InputError(missing, None, rule, CITE_G3)
    sale = as_date(sale_date, "sale_date", CITE_G3)
    end = as_date(credit_period_end, "credit_period_end", CITE_G3)
    days = max(0, (end - sale).days)
    span = Decimal(days) / _DAYS_PER_YEAR
    text = (
        f"sale {sale} to the end of the credit's tax period {end}: {days} days / "
        f"{_DAYS_PER_YEAR} = {fmt_number(span.quantize(Decimal('0.0001'), ROUND_DOWN))} years"
    )
    reasons = []
    if given is not None and given > span:
        reasons.append(
            f"years {fmt_number(given)} is longer than the time from the sale to the use of"
            f" the credit ({days} days) ({CITE_G3})"
        )
    return given, span, reasons, text


def transfer_check(
    certificate_amount: Number,
    transfer_amount: Number,
    consideration: Number,
    discount_rate: Number = 0,
    years: Number | None = None,
    sale_date: DateLike | None = None,
    credit_period_end: DateLike | None = None,
    seller_is_transferee: bool | int | str = False,
    max_discount_rate: Number = MAXIMUM_DISCOUNT_RATE,
    seller_pays_tax: bool | int | str | None = None,
    credit_exceeds_liability: bool | int | str | None = None,
    buyer_may_owe_tax: bool | int | str | None = None,
) -> TransferCheck:
    """Every reason a proposed sale of credits fails, or OK: N.J.S.A. 34:1B-129g.(3).

    The seller must not itself be a transferee; the amount sold must be more than zero, at
    least min(100,000, certificate_amount) and at most the certificate; the consideration
    at least 75% of it, discounted to present value only over the time from ``sale_date``
    to ``credit_period_end`` (the end of the privilege period for which the credit is
    issued, the only one it may be applied in, e.) at a yearly rate of at most
    ``max_discount_rate`` (20%, our bound). ``years`` without the two dates cannot be
    discounted over; with them it may shorten, not lengthen, the period (blank: the whole
    period; 0: no discounting, the 75% floor).

    Who may sell, and to whom (facts the user states; blank: not checked): the seller may
    apply for a transfer certificate if it pays none of the listed taxes (g.(1):
    ``seller_pays_tax`` FALSE) or its credit under e. exceeds its tax liability (g.(2):
    ``credit_exceeds_liability`` TRUE); with either stated, a seller shown eligible by
    neither is a reason. The buyer must be a person "that may have a tax liability" under
    a listed tax (g.(3): ``buyer_may_owe_tax`` FALSE is a reason).
    """
    certificate = as_money(certificate_amount, "certificate_amount", CITE_G3)
    amount = as_money(transfer_amount, "transfer_amount", CITE_G3)
    paid = as_money(consideration, "consideration", CITE_G3)
    rate = as_fraction(discount_rate, "discount_rate", CITE_G3)
    bound = as_fraction(max_discount_rate, "max_discount_rate", CITE_G3)
    transferee = as_bool(seller_is_transferee, "seller_is_transferee", CITE_G3)
    facts = _TransferFacts(
        _fact(seller_pays_tax, "seller_pays_tax", CITE_G1_G2),
        _fact(credit_exceeds_liability, "credit_exceeds_liability", CITE_G1_G2),
        _fact(buyer_may_owe_tax, "buyer_may_owe_tax", CITE_G3),
    )
    given, span, reasons, period_text = _discount_period(years, sale_date, credit_period_end)
    asked = _asked_years(given)
    terms = transfer_discount_rule(EXACT, rate, bound, asked, span is not None)
    reasons += [reason for *_, reason in _discount_refusals(terms, rate, bound, asked)]
    used_years = _discount_span(given, span)
    _discount_years(used_years)  # the period between the dates, within the same bound
    args = (certificate, amount, paid, rate, bound, transferee, used_years)
    figures = transfer_rule(EXACT, *args)
    assert bool(figures.rate_within_bound) == bool(terms.rate_within_bound)
    eligibility = transfer_eligibility_rule(EXACT, *facts.values())
    may_apply = None if facts.unstated_seller else bool(eligibility.seller_may_apply)
    may_buy = None if facts.buyer is None else bool(eligibility.buyer_may_buy)
    reasons[:0] = _eligibility_reasons(facts, may_apply, may_buy)
    if transferee:
        reasons.insert(
            0,
            "the seller is a tax credit transferee, which may not transfer its tax credit to"
            f" any other party ({CITE_G3})",
        )
    if not figures.something_sold:
        reasons.append(f"nothing is transferred (transfer_amount is 0) ({CITE_G3})")
    if not figures.at_least_minimum:
        reasons.append(
            f"transfer_amount {fmt_money(amount)} is less than"
            f" {fmt_money(figures.minimum_transfer)}"
            f" (at least ${TRANSFER_MINIMUM:,.0f}, or the whole credit where it is less)"
            f" ({CITE_G3})"
        )
    if not figures.within_certificate:
        reasons.append(
            f"transfer_amount {fmt_money(amount)} exceeds the certificate"
            f" {fmt_money(certificate)} ({CITE_G3})"
        )
    if not figures.price_paid:
        reasons.append(
            f"consideration {fmt_money(paid)} is less than the minimum"
            f" {fmt_money(figures.minimum_price)}"
            f" ({fmt_pct(MINIMUM_CONSIDERATION_SHARE)} of the transferred amount"
            + (
                f", discounted to present value at {fmt_pct(rate)} a year over"
                f" {fmt_number(used_years.quantize(Decimal('0.0001'), ROUND_DOWN))} years"
                if figures.minimum_price != figures.undiscounted_price
                else ", with no discount to present value"
            )
            + f") ({CITE_G3})"
        )
    first = []
    if period_text:
        first.append(
            Step(
                label="Discounting period",
                value=used_years,
                arithmetic=period_text,
                citation=f"{CITE_G3}; {CITE_E}",
            )
        )
    result = Step(
        label="Result", value="OK" if not reasons else "; ".join(reasons), citation=CITE_G3
    )
    return TransferCheck(
        ok=not reasons,
        reasons=tuple(reasons),
        minimum_transfer=figures.minimum_transfer,
        minimum_price=figures.minimum_price,
        discount_years=used_years,
        seller_may_apply=may_apply,
        buyer_may_buy=may_buy,
        steps=partial(_transfer_steps, first, result, args, facts),
    )


class _TransferFacts(NamedTuple):
    """The facts of g.(1)-(3) a user states (None: blank, not stated)."""

    seller_pays: bool | None
    exceeds: bool | None
    buyer: bool | None

    @property
    def unstated_seller(self) -> bool:
        return self.seller_pays is None and self.exceeds is None

    def values(self) -> tuple[bool, bool, bool]:
        """The facts as :func:`transfer_eligibility_rule` reads them: a blank fact is
        the one that does not make the party eligible (it shows nothing)."""
        return (
            self.seller_pays is not False,
            self.exceeds is True,
            self.buyer is not False,
        )


def _fact(value: object, argument: str, citation: str) -> bool | None:
    return None if value is None or is_blank(value) else as_bool(value, argument, citation)


def _shown(value: bool | None) -> str:
    return "(blank)" if value is None else str(value).upper()


def _eligibility_reasons(
    facts: _TransferFacts, may_apply: bool | None, may_buy: bool | None
) -> list[str]:
    """The reasons g.(1)-(3) give against the sale, naming the inputs."""
    reasons = []
    if may_apply is False:
        reasons.append(
            f"seller_pays_tax {_shown(facts.seller_pays)} and credit_exceeds_liability"
            f" {_shown(facts.exceeds)}: only a business that pays none of the Corporation"
            " Business Tax and the insurance premiums taxes (g.(1)), or whose tax credit"
            " under subsection e. exceeds its tax liability (g.(2)), may apply for a tax"
            f" credit transfer certificate ({CITE_G1_G2})"
        )
    if may_buy is False:
        reasons.append(
            "buyer_may_owe_tax FALSE: the buyer may have no tax liability under the"
            " Corporation Business Tax or the insurance premiums taxes, and a certificate"
            f" may be sold only to a person that may have one ({CITE_G3})"
        )
    return reasons


class TransferEligibility(NamedTuple):
    """Who may sell and buy under g. (values of :func:`transfer_eligibility_rule`)."""

    seller_may_apply: V
    buyer_may_buy: V


def transfer_eligibility_rule(
    r: Rules, seller_pays_tax: V, credit_exceeds_liability: V, buyer_may_owe_tax: V
) -> TransferEligibility:
    """g.(1): "A business that does not pay taxes under [the CBT, the insurance premiums
    taxes] may apply ... for a tax credit transfer certificate"; g.(2): "A business that
    has received a tax credit pursuant to subsection e. ..., which credit exceeds the
    amount of the tax liability otherwise due, may apply"; g.(3): the certificate may be
    sold "to any other person that may have a tax liability" under those taxes."""
    pays = r.given(
        seller_pays_tax,
        label="Seller pays the Corporation Business Tax or an insurance premiums tax",
        cite=CITE_G1_G2,
    )
    exceeds = r.given(
        credit_exceeds_liability,
        label="Seller's tax credit under subsection e. exceeds its tax liability",
        cite=CITE_G1_G2,
    )
    may_apply = r.either(
        r.not_(pays),
        exceeds,
        label="Seller may apply for a tax credit transfer certificate (g.(1) or (2))",
        cite=CITE_G1_G2,
    )
    buyer = r.given(
        buyer_may_owe_tax,
        label="Buyer may have a tax liability under the listed taxes",
        cite=CITE_G3,
    )
    return TransferEligibility(seller_may_apply=may_apply, buyer_may_buy=buyer)


class TransferFigures(NamedTuple):
    """What g.(3) asks of a sale (values of :func:`transfer_rule`)."""

    minimum_transfer: V
    undiscounted_price: V
    minimum_price: V
    seller_may_sell: V
    rate_within_bound: V
    something_sold: V
    at_least_minimum: V
    within_certificate: V
    price_paid: V


def transfer_rule(
    r: Rules,
    certificate_amount: V,
    transfer_amount: V,
    consideration: V,
    discount_rate: V,
    max_discount_rate: V,
    seller_is_transferee: V,
    years: V,
) -> TransferFigures:
    """g.(3): a sale of tax credits is lawful when the seller is not itself a transferee
    ("a tax credit transferee ... may not transfer its tax credit to any other party"),
    the amount sold is more than zero, at least min($100,000, the certificate) and at most
    the certificate, and the consideration is at least 75% of it discounted to present
    value (:func:`transfer_price_rule`) at a rate of at most ``max_discount_rate`` (our
    bound, not the law's) over ``years``."""
    transferee = r.given(
        seller_is_transferee,
        label="Seller is a tax credit transferee (which may not transfer its tax credit to"
        " any other party)",
        cite=CITE_G3,
    )
    minimum_transfer = r.min(
        TRANSFER_MINIMUM,
        certificate_amount,
        label="Smallest amount that may be sold",
        cite=CITE_G3,
    )
    rate_within = r.le(discount_rate, max_discount_rate)
    floor, price = transfer_price_rule(
        r, transfer_amount, r.min(discount_rate, max_discount_rate), years
    )
    return TransferFigures(
        minimum_transfer=minimum_transfer,
        undiscounted_price=floor,
        minimum_price=price,
        seller_may_sell=r.not_(transferee),
        rate_within_bound=rate_within,
        something_sold=r.gt(transfer_amount, 0),
        at_least_minimum=r.ge(
            transfer_amount,
            minimum_transfer,
            label="Amount sold at least the smallest amount",
            cite=CITE_G3,
        ),
        within_certificate=r.le(transfer_amount, certificate_amount),
        price_paid=r.ge(
            consideration, price, label="Consideration at least the lowest", cite=CITE_G3
        ),
    )


def _transfer_steps(
    first: list[Step], result: Step, args: tuple[object, ...], facts: _TransferFacts
) -> tuple[Step, ...]:
    eligibility: tuple[Step, ...] = ()
    if facts != _TransferFacts(None, None, None):
        # the facts stated, and what they decide (a blank fact is no step: never shown as
        # a value the user did not give)
        blank = {
            "Seller pays": facts.seller_pays is None,
            "Seller's tax credit": facts.exceeds is None,
            "Seller may apply": facts.unstated_seller,
            "Buyer may": facts.buyer is None,
        }
        eligibility = tuple(
            step
            for step in _steps_of(transfer_eligibility_rule, *facts.values())
            if not any(step.label.startswith(start) and gone for start, gone in blank.items())
        )
    return (*first, *eligibility, *_steps_of(transfer_rule, *args), result)
