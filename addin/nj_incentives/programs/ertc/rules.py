"""The Economic Recovery Tax Credit: N.J.S.A. 52:27BBB-55 (P.L.2002, c.43, s.56), NJ Form 313.

A credit against the Corporation Business Tax or the insurance premiums taxes for new
full-time positions at a location in a qualified municipality:

- a. $2,500 per new full-time position in credit year one, $1,250 in credit year two,
  for a taxpayer not receiving an Urban Enterprise Zone benefit;
- b. each credit allowed in the period in which its credit year ends, used within 50% of
  the CBT and down to the statutory minimum, the rest carried forward;
- c. the year-one credit still unused when credit year two ends is refunded in the
  proportion of the sustained effort ratio;
- d. a single 24-month credit period per location;
- e. the definitions: credit years, positions counted from payroll hours, the ratio.

The module follows the section's subsections in order. Position counts are exact
(``fractions.Fraction`` inside, reported to 10 places); money is ``Decimal`` rounded
down to the cent. Every reading of the text is in ``docs/interpretations.md``
("Economic Recovery Tax Credit").
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import partial
from typing import NamedTuple, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

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
    as_int,
    as_law_as_of,
    as_money,
    as_number,
    as_quantity,
    cents_down,
    fmt_money,
    fmt_number,
    within_dates,
)
from nj_incentives.core.inputs import InputKind, InputRule, is_blank
from nj_incentives.core.rules import EXACT, ZERO, Rules, V, explain
from nj_incentives.programs.cbt.rules import deemed_period_end_rule
from nj_incentives.programs.ertc import figures as ERTC

__all__ = [
    "AVERAGE_PLACES",
    "CREDIT_PERIOD_MONTHS",
    "CREDIT_YEAR_MONTHS",
    "CREDIT_YEAR_ONE_AMOUNT",
    "CREDIT_YEAR_TWO_AMOUNT",
    "DATED_MONTHS_MAX",
    "FORM_313_CARRYFORWARD_YEARS",
    "FTE_FIGURES",
    "FULL_TIME_HOURS_PER_MONTH",
    "LIABILITY_SHARE_LIMIT",
    "MAXIMUM_PERIOD_DAYS",
    "MONTH_FIGURES",
    "PART_TIME_HOURS_PER_MONTH",
    "PART_TIME_HOURS_PER_WEEK",
    "PART_TIME_MINIMUM_MONTHS",
    "PART_TIME_TESTS",
    "REFUND_PERIOD_LIMITS",
    "SUSTAINED_EFFORT_RATIO_MAXIMUM",
    "TAX_TYPES",
    "BaseYear",
    "CreditAmount",
    "CreditLimit",
    "CreditSchedule",
    "CreditYears",
    "EligibilityCheck",
    "EmployeeHours",
    "FullTimeEquivalents",
    "MonthFigures",
    "NewPositions",
    "PeriodFigures",
    "PeriodRow",
    "PositionCount",
    "PrivilegePeriod",
    "RatioPositions",
    "Refund",
    "ScheduleTerms",
    "ScheduleTotals",
    "SustainedEffortRatio",
    "allowance_period_rule",
    "average_positions",
    "base_year",
    "base_year_rule",
    "credit_amount",
    "credit_amount_rule",
    "credit_limit",
    "credit_limit_rule",
    "credit_schedule",
    "credit_years",
    "credit_years_rule",
    "eligibility_check",
    "eligibility_rule",
    "employee_positions_rule",
    "exact_average",
    "explain_fte",
    "explain_new_positions",
    "explain_refund",
    "explain_sustained_effort_ratio",
    "first_month_of",
    "fte",
    "fte_rule",
    "month_figures_rule",
    "new_positions",
    "opening_after",
    "opening_rule",
    "period_order_rule",
    "positions_priced_rule",
    "positions_rule",
    "privilege_periods",
    "ratio_positions",
    "refund",
    "refund_rule",
    "roster",
    "schedule_rule",
    "schedule_totals_rule",
    "sustained_effort_ratio",
    "sustained_effort_ratio_rule",
]

SECTION = "N.J.S.A. 52:27BBB-55"
CITE_A = f"{SECTION}a."
CITE_B1 = f"{SECTION}b.(1)"
CITE_B2 = f"{SECTION}b.(2)"
CITE_B3 = f"{SECTION}b.(3)"
CITE_C1 = f"{SECTION}c.(1)"
CITE_C2 = f"{SECTION}c.(2)"
CITE_D = f"{SECTION}d."
CITE_E = f"{SECTION}e."
CITE_CREDIT_YEARS = f'{CITE_E} "credit year one", "credit year two"'
CITE_EMPLOYEE = f'{CITE_E} "employee of the taxpayer"'
CITE_FULL_TIME = f'{CITE_E} "full time position"'
CITE_PART_TIME = f'{CITE_E} "part-time position"'
CITE_NEW_POSITION = f'{CITE_E} "new full time position"'
CITE_BASE_YEAR = f"{CITE_NEW_POSITION} (the twelve-month period preceding credit year one)"
CITE_RATIO = f'{CITE_E} "sustained effort ratio"'
#: The Director's order of credits (b.(3)): this credit is 14th, after the others.
CITE_PRIORITY = "N.J.A.C. 18:7-3.17"
CITE_FORM_313 = "NJ Form 313 instructions (2013)"
#: Readings of the text that are ours (docs/interpretations.md).
CITE_READING = "docs/interpretations.md"

#: A yes/no input: TRUE/FALSE, 1/0 or the words Yes/No (read by ``common.as_bool``).
Flag: TypeAlias = bool | int | str

# --------------------------------------------------------------------------- figures

#: N.J.S.A. 52:27BBB-55a.: "$2,500 for each new full-time position ... in credit year one".
CREDIT_YEAR_ONE_AMOUNT = ERTC.CREDIT_YEAR_ONE_AMOUNT.single
#: N.J.S.A. 52:27BBB-55a.: "$1,250 for each new full-time position ... in credit year two".
CREDIT_YEAR_TWO_AMOUNT = ERTC.CREDIT_YEAR_TWO_AMOUNT.single
#: N.J.S.A. 52:27BBB-55b.(3): with all other credits, "shall not exceed 50% of the tax
#: liability otherwise due" (Corporation Business Tax).
LIABILITY_SHARE_LIMIT = ERTC.LIABILITY_SHARE_LIMIT.single
#: N.J.S.A. 52:27BBB-55a.: the taxes the credit is taken against. "cbt": the Corporation
#: Business Tax, N.J.S.A. 54:10A-5; "insurance": the insurance premiums taxes.
TAX_TYPES = ("cbt", "insurance")
#: N.J.S.A. 52:27BBB-55d.: "a single 24-month continuous period" per location.
CREDIT_PERIOD_MONTHS = ERTC.CREDIT_PERIOD_MONTHS.single
#: N.J.S.A. 52:27BBB-55e.: each credit year is "twelve calendar months"; so is the
#: base period ("the twelve-month period preceding credit year one").
CREDIT_YEAR_MONTHS = ERTC.CREDIT_YEAR_MONTHS.single
#: N.J.S.A. 52:27BBB-55e. "full time position": "at least 140 hours per month".
FULL_TIME_HOURS_PER_MONTH = ERTC.FULL_TIME_HOURS_PER_MONTH.single
#: The most hours one employee can work in a month: 24 x 31 (a bound, not a rule).
MAX_MONTH_HOURS = 24 * 31
#: One employee's hours in one month, as :func:`roster` reads them (``nj-incentives fill``
#: reads payroll files by the same declaration): not negative, at most 744.
HOURS_INPUT = InputRule(
    InputKind.QUANTITY,
    CITE_FULL_TIME,
    high=MAX_MONTH_HOURS,
    rule="must be at most 744, the hours in a 31-day month",
)
#: N.J.S.A. 52:27BBB-55e. "part-time position": "at least 20 hours per week".
PART_TIME_HOURS_PER_WEEK = ERTC.PART_TIME_HOURS_PER_WEEK.single
#: N.J.S.A. 52:27BBB-55e. "part-time position": "for at least three months".
PART_TIME_MINIMUM_MONTHS = ERTC.PART_TIME_MINIMUM_MONTHS.single
#: Our reading of 20 hours a week with monthly payroll data: 20 x 52 / 12 = 86 2/3 hours
#: a month, compared exactly (docs/interpretations.md).
PART_TIME_HOURS_PER_MONTH = Fraction(
    PART_TIME_HOURS_PER_WEEK * ERTC.WEEKS_PER_YEAR.single, CREDIT_YEAR_MONTHS
)
#: N.J.S.A. 52:27BBB-55e. "sustained effort ratio": "not to exceed one".
SUSTAINED_EFFORT_RATIO_MAXIMUM = ERTC.SUSTAINED_EFFORT_RATIO_MAXIMUM.single
#: NJ Form 313 instructions (2013): unused credit carried forward five years, then
#: forfeited. The statute (b.(2)) states no limit: the value for the switch
#: ``carryforward_years``, not the default.
FORM_313_CARRYFORWARD_YEARS = ERTC.FORM_313_CARRYFORWARD_YEARS.single
#: Decimal places to which position averages, equivalents and ratios are reported.
AVERAGE_PLACES = 10
#: The longest privilege period between two end dates: 12 months, or 53 weeks for a
#: 52-53-week year (371 days; docs/interpretations.md).
MAXIMUM_PERIOD_DAYS = 371
#: ``part_time_months``: which months the part-time test of e. counts: "non_full_time"
#: (default, months under 140 hours only) or "all_months" (every month of 86 2/3 hours or
#: more, the full-time ones included).
PART_TIME_TESTS = ("non_full_time", "all_months")
#: ``refund_period_limit``: in the period in which credit year two ends, the year-one
#: credit is held to the b.(3) limit before the refund ("b3", default), or applied against
#: the whole liability less other credits first, c.(1) opening "Notwithstanding the
#: provisions of subsection b." ("notwithstanding").
REFUND_PERIOD_LIMITS = ("b3", "notwithstanding")


def _to_places(value: Fraction) -> Decimal:
    """An exact fraction as a Decimal to AVERAGE_PLACES places, half to even."""
    return Decimal(round(value * 10**AVERAGE_PLACES)).scaleb(-AVERAGE_PLACES)


def _non_negative(value: Number, argument: str, citation: str) -> Decimal:
    number = as_number(value, argument, citation)
    if number < 0:
        raise InputError(
            argument, value, "must not be negative: positions count from zero", citation
        )
    return number


def _positions(value: Number, argument: str, fractional: bool, citation: str) -> Decimal:
    """A count of new positions: whole unless ``fractional`` (:func:`positions_priced_rule`)."""
    number = _non_negative(value, argument, citation)
    if not positions_priced_rule(EXACT, number, fractional):
        rule = "must be a whole number of positions (set fractional to TRUE to price fractions)"
        raise InputError(argument, value, rule, citation)
    return number


# =========================================================================== a.


class EligibilityCheck(Explained):
    """Whether the section allows the credit at all: ``ok``, or every reason it does not."""

    ok: bool
    reasons: tuple[str, ...]


def eligibility_check(
    receives_uez_benefit: Flag,
    prior_credit_period_at_location: Flag,
    in_qualified_municipality: Flag = True,
) -> EligibilityCheck:
    """Whether the taxpayer may receive the credit, N.J.S.A. 52:27BBB-55a. and d.

    a.: the taxpayer conducts business "within a qualified municipality" and "is not
    receiving a benefit under the New Jersey Urban Enterprise Zones Act" (Form 313,
    Part I). d.: "no taxpayer shall be allowed more than a single 24-month continuous
    period" of credits for activity at a location, so a location that already had its
    credit period gets none. Every failing reason is listed, each with its citation.
    """
    uez = as_bool(receives_uez_benefit, "receives_uez_benefit", CITE_A)
    prior = as_bool(prior_credit_period_at_location, "prior_credit_period_at_location", CITE_D)
    municipality = as_bool(in_qualified_municipality, "in_qualified_municipality", CITE_A)
    args = (uez, prior, municipality)
    within, no_uez, first_period, _ = eligibility_rule(EXACT, *args)
    reasons: list[str] = []
    if not within:
        reasons.append(f"the location is not within a qualified municipality ({CITE_A})")
    if not no_uez:
        reasons.append(
            f"the taxpayer receives a benefit under the Urban Enterprise Zones Act ({CITE_A})"
        )
    if not first_period:
        reasons.append(
            f"the location already had the single {CREDIT_PERIOD_MONTHS}-month continuous "
            f"credit period ({CITE_D})"
        )
    steps = partial(_result_steps, eligibility_rule, args, reasons)
    return EligibilityCheck(ok=not reasons, reasons=tuple(reasons), steps=steps)


def eligibility_rule(
    r: Rules, receives_uez_benefit: V, prior_credit_period: V, in_qualified_municipality: V
) -> tuple[V, V, V, V]:
    """a. and d.: (within a qualified municipality, not receiving an Urban Enterprise Zone
    benefit, no earlier 24-month credit period at the location, all three: eligible)."""
    within = r.given(
        in_qualified_municipality, label="Within a qualified municipality", cite=CITE_A
    )
    uez = r.given(
        receives_uez_benefit, label="Receives an Urban Enterprise Zone benefit", cite=CITE_A
    )
    prior = r.given(
        prior_credit_period,
        label=f"Prior {CREDIT_PERIOD_MONTHS}-month credit period at this location",
        cite=CITE_D,
    )
    no_uez, first_period = r.not_(uez), r.not_(prior)
    eligible = r.both(within, no_uez, first_period, label="Eligible", cite=f"{SECTION}a., d.")
    return within, no_uez, first_period, eligible


def _result_steps(rule: object, args: tuple[object, ...], reasons: list[str]) -> tuple[Step, ...]:
    """A check's explanation: the rule's steps, then the result (OK, or every reason)."""
    result = Step(label="Result", value="OK" if not reasons else "; ".join(reasons))
    return (*_steps(rule, *args), result)


class CreditAmount(Explained):
    """The credit for one credit year: ``amount`` = ``rate`` x ``new_positions``."""

    amount: Decimal
    credit_year: int
    new_positions: Decimal
    rate: Decimal


def credit_amount(
    new_positions: Number, credit_year: Number, fractional: Flag = False
) -> CreditAmount:
    """The credit for new full-time positions in one credit year, N.J.S.A. 52:27BBB-55a.

    $2,500 per new full-time position in credit year one, $1,250 in credit year two.
    Positions are whole unless ``fractional`` (then the amount is rounded down to the
    cent).
    """
    year = as_int(credit_year, "credit_year", CITE_A, low=1, high=2, rule="must be 1 or 2")
    fraction_allowed = as_bool(fractional, "fractional", CITE_NEW_POSITION)
    positions = _positions(new_positions, "new_positions", fraction_allowed, CITE_A)
    return CreditAmount(
        amount=credit_amount_rule(EXACT, positions, year),
        credit_year=year,
        new_positions=positions,
        rate=_RATES[year],
        steps=partial(_steps, credit_amount_rule, positions, year),
    )


#: a.: the credit per new full-time position, by credit year.
_RATES = {1: CREDIT_YEAR_ONE_AMOUNT, 2: CREDIT_YEAR_TWO_AMOUNT}


def credit_amount_rule(r: Rules, new_positions: V, credit_year: int) -> V:
    """a.: $2,500 (credit year one) or $1,250 (credit year two) for each new full-time
    position, rounded down to the cent (fractional positions)."""
    rate = _RATES[credit_year]
    label = f"Credit year {credit_year}: {fmt_money(rate)} per new full-time position"
    return r.per_unit(new_positions, rate, label=label, cite=CITE_A)


def positions_priced_rule(r: Rules, new_positions: V, fractional: V) -> V:
    """a.: the credit is an amount "for each new full time position": the count priced is
    whole, unless ``fractional`` (fractions priced, a reading: docs/interpretations.md).
    The core's check of the count (an input error) and the scenario runner's mask."""
    return r.either(fractional, r.whole(new_positions))


def _steps(rule: object, *args: object) -> tuple[Step, ...]:
    """The explanation steps of ``rule(*args)`` (run only when the steps are read)."""
    return explain(rule, *args)[1]  # type: ignore[arg-type]


# =========================================================================== b.


class CreditLimit(Explained):
    """The most of this credit usable against one period's tax (``amount``)."""

    amount: Decimal
    tax_type: str
    tax_liability: Decimal
    other_credits: Decimal
    minimum_tax: Decimal
    #: 50% of the liability, rounded down to the cent (None for the insurance taxes).
    half_liability: Decimal | None
    #: The liability above the statutory minimum (None for the insurance taxes).
    above_minimum: Decimal | None


def credit_limit(
    tax_liability: Number, other_credits: Number, minimum_tax: Number, tax_type: str = "cbt"
) -> CreditLimit:
    """The most of this credit usable in a privilege period, N.J.S.A. 52:27BBB-55b.(3).

    This credit with all other credits may not exceed 50% of the tax liability otherwise
    due nor reduce the tax below the statutory minimum of N.J.S.A. 54:10A-5(e). Other
    credits come first (N.J.A.C. 18:7-3.17 lists this credit 14th):
    ``max(0, min(cents_down(50% x liability), liability - minimum_tax) - other_credits)``.
    For the insurance premiums taxes (``tax_type="insurance"``) b.(3) states no such
    limit: ``max(0, liability - other_credits)``.
    """
    kind = as_choice(tax_type, "tax_type", TAX_TYPES, CITE_A)
    liability = as_money(tax_liability, "tax_liability", CITE_B3)
    others = as_money(other_credits, "other_credits", CITE_PRIORITY)
    minimum = as_money(minimum_tax, "minimum_tax", CITE_B3)
    insurance = kind == "insurance"
    amount, half, above = credit_limit_rule(EXACT, liability, others, minimum, insurance)
    return CreditLimit(
        amount=amount,
        tax_type=kind,
        tax_liability=liability,
        other_credits=others,
        minimum_tax=minimum,
        half_liability=None if insurance else half,
        above_minimum=None if insurance else above,
        steps=partial(_limit_steps, liability, others, minimum, insurance),
    )


def credit_limit_rule(
    r: Rules, liability: V, other_credits: V, minimum_tax: V, insurance: V, name: str = ""
) -> tuple[V, V, V]:
    """b.(3): (the most of this credit usable in the period, 50% of the liability, the
    liability above the statutory minimum).

    CBT: ``max(0, min(cents_down(50% x liability), liability - minimum) - other credits)``;
    the insurance premiums taxes (``insurance``), for which b.(3) states no such limit:
    ``max(0, liability - other credits)``. ``name``: given (a period), only the limit is
    a step, labelled "{name}limit".
    """
    detail = not name
    half = r.share(
        liability,
        LIABILITY_SHARE_LIMIT,
        label="50% of the tax liability otherwise due" if detail else "",
        cite=CITE_B3,
    )
    above = r.sub(
        liability,
        minimum_tax,
        label="Tax liability above the statutory minimum" if detail else "",
        cite=f"{CITE_B3}; N.J.S.A. 54:10A-5(e)",
    )
    cbt_limit = r.max(
        0,
        r.sub(r.min(half, above), other_credits),
        label=f"{name}limit" if name else "Most of this credit usable in the period",
        cite=CITE_B3,
    )
    insurance_limit = r.max(
        0,
        r.sub(liability, other_credits),
        label=f"{name}limit"
        if name
        else ("Most of this credit usable against the insurance premiums tax"),
        cite=f"{CITE_A}; {CITE_B3} (limit stated for the CBT only; {CITE_READING})",
    )
    return r.where(insurance, insurance_limit, cbt_limit), half, above


def _limit_steps(
    liability: Decimal, others: Decimal, minimum: Decimal, insurance: bool
) -> tuple[Step, ...]:
    steps = explain(
        credit_limit_rule, liability, others, minimum, insurance, pick=lambda out: out[0]
    )[1]
    if insurance:
        return steps
    other = Step(
        label="Other credits, applied before this credit",
        value=others,
        arithmetic=fmt_money(others),
        citation=CITE_PRIORITY,
    )
    return (*steps[:-1], other, steps[-1])


class PrivilegePeriod(BaseModel):
    """One privilege (or reporting) period: its end date and the figures of its tax."""

    model_config = ConfigDict(frozen=True)

    end: dt.date
    liability: Decimal
    other_credits: Decimal = Decimal(0)
    minimum_tax: Decimal = Decimal(0)


def privilege_periods(
    period_ends: Sequence[DateLike],
    liabilities: Sequence[Number],
    other_credits: Sequence[Number],
    minimum_taxes: Sequence[Number],
) -> tuple[PrivilegePeriod, ...]:
    """The privilege periods from one column per figure, N.J.S.A. 52:27BBB-55b.

    The four sequences hold one value per period (as the schedule's spreadsheet
    arguments do); end dates must be strictly increasing.
    """
    count = len(period_ends)
    columns = {"liabilities": liabilities, "other_credits": other_credits}
    columns["minimum_taxes"] = minimum_taxes
    for argument, values in columns.items():
        if len(values) != count:
            rule = f"must give one value per period ({count} period ends, {len(values)} values)"
            raise InputError(argument, list(values), rule, CITE_B1)
    periods = tuple(
        PrivilegePeriod(
            end=as_date(end, "period_ends", CITE_B1),
            liability=as_money(liability, "liabilities", CITE_B3),
            other_credits=as_money(others, "other_credits", CITE_PRIORITY),
            minimum_tax=as_money(minimum, "minimum_taxes", CITE_B3),
        )
        for end, liability, others, minimum in zip(
            period_ends, liabilities, other_credits, minimum_taxes, strict=True
        )
    )
    return _checked_periods(periods, figures_read=True)


class _CheckedPeriods(tuple[PrivilegePeriod, ...]):
    """Privilege periods :func:`_checked_periods` has checked (frozen, in a tuple: they
    stay as checked, and the schedule does not check them again)."""

    __slots__ = ()


def _checked_periods(
    periods: Sequence[PrivilegePeriod], figures_read: bool = False
) -> tuple[PrivilegePeriod, ...]:
    """Non-negative figures and strictly increasing end dates, or InputError
    (``figures_read``: the figures were just read as money, not read again)."""
    if type(periods) is _CheckedPeriods:
        return periods
    ends = [period.end for period in periods]
    if not periods:
        raise InputError("period_ends", ends, "at least one privilege period is required", CITE_B1)
    for earlier, later in itertools.pairwise(ends):
        increasing, within = period_order_rule(EXACT, earlier, later)
        if not increasing:
            rule = f"period end dates must be strictly increasing ({later} follows {earlier})"
            raise InputError("period_ends", ends, rule, CITE_B1)
        if not within:
            rule = (
                f"the privilege period ending {later} would run from the day after {earlier}:"
                f" {(later - earlier).days} days, longer than 12 months (at most"
                f" {MAXIMUM_PERIOD_DAYS} days, a 53-week year); a period is missing"
            )
            raise InputError("period_ends", ends, rule, f"{CITE_B1}; {CITE_READING}")
    for period in () if figures_read else periods:
        as_money(period.liability, "liabilities", CITE_B3)
        as_money(period.other_credits, "other_credits", CITE_PRIORITY)
        as_money(period.minimum_tax, "minimum_taxes", CITE_B3)
    return _CheckedPeriods(periods)


def period_order_rule(r: Rules, earlier: V, later: V) -> tuple[V, V]:
    """b.(1): consecutive privilege periods: (the later period ends after the earlier one,
    and at most :data:`MAXIMUM_PERIOD_DAYS` days after it: a period of at most 12 months
    or 53 weeks, a reading: docs/interpretations.md). The core's check of the period ends
    (an input error) and the scenario runner's mask."""
    increasing = r.gt(later, earlier)
    within = r.le(r.add_days(later, -MAXIMUM_PERIOD_DAYS), earlier)
    return increasing, within


def allowance_period_rule(
    r: Rules, period_ends: Sequence[V], count: V, year_end: V
) -> tuple[V, V, V]:
    """b.(1): the credit for a credit year is allowed in the period "in which or with
    which" the credit year ends: (its index, whether one of the ``count`` periods given
    holds that day, the first day the first period covers).

    Period k > 0 covers (end of period k-1, its end]; the first is taken to cover the
    twelve months ending on its end date. Each end is the day the period is deemed to end
    (a 52-53-week year: N.J.A.C. 18:7-2.3(b), :func:`cbt.deemed_period_end_rule`): a
    period ending 2022-12-27 is deemed to end 2022-12-31 and a credit year ending that
    day ends "with" it. End dates strictly increase (deeming keeps their order), so the
    index is the number of periods deemed to end before the credit year does.
    """
    deemed = [deemed_period_end_rule(r, end) for end in period_ends]
    index = r.count(r.lt(end, year_end) for end in deemed)
    first_start = r.add_days(r.add_months(deemed[0], -CREDIT_YEAR_MONTHS), 1)
    found = r.both(r.lt(index, count), r.ge(year_end, first_start))
    return index, found, first_start


# =========================================================================== c.


class Refund(Explained):
    """The year-one credit refunded as an overpayment (``amount``)."""

    amount: Decimal
    year1_remaining: Decimal
    #: The sustained effort ratio, to 10 places (the refund uses the exact ratio).
    ratio: Decimal


def explain_refund(year1_remaining: Number, year1_new: Number, year2_new: Number) -> Refund:
    """The refundable part of the year-one credit, with its steps, N.J.S.A. 52:27BBB-55c.(2).

    The year-one credit remaining after the liabilities of the period in which credit
    year two ends and of all earlier periods, x the sustained effort ratio, is an
    overpayment: rounded down to the cent, computed exactly (the ratio 2/3 is not
    rounded first).
    """
    remaining = as_money(year1_remaining, "year1_remaining", CITE_C2)
    first = Fraction(_non_negative(year1_new, "year1_new", CITE_RATIO))
    second = Fraction(_non_negative(year2_new, "year2_new", CITE_RATIO))
    return Refund(
        amount=refund_rule(EXACT, remaining, first, second),
        year1_remaining=remaining,
        ratio=sustained_effort_ratio_rule(EXACT, first, second),
        steps=partial(_steps, refund_rule, remaining, first, second),
    )


def refund_rule(r: Rules, year1_remaining: V, year1_new: V, year2_new: V, name: str = "") -> V:
    """c.(2): the year-one credit remaining x the sustained effort ratio (e.: year-two new
    positions / year-one new positions, at most one), rounded down to the cent, exactly
    (the ratio 2/3 is not rounded first); 0 when year one has no new positions."""
    return r.muldiv(
        year1_remaining,
        r.min(year2_new, year1_new),
        year1_new,
        label=f"{name}refund" if name else "Year-one credit refunded (overpayment)",
        cite=f"{CITE_C2}; {CITE_RATIO}",
    )


def refund(year1_remaining: Number, year1_new: Number, year2_new: Number) -> Decimal:
    """The year-one credit refunded, N.J.S.A. 52:27BBB-55c.(2).

    ``cents_down(year1_remaining x min(1, year2_new / year1_new))``; 0 when year one has
    no new positions. See :func:`explain_refund` for the steps.
    """
    return explain_refund(year1_remaining, year1_new, year2_new).amount


class PeriodRow(BaseModel):
    """One privilege period of the credit schedule (money in dollars, to the cent).

    ``carried_out = carried_in + new_credit - used - refund - expired``.
    """

    model_config = ConfigDict(frozen=True)

    period_end: dt.date
    new_credit: Decimal
    carried_in: Decimal
    limit: Decimal
    used: Decimal
    refund: Decimal
    carried_out: Decimal
    expired: Decimal
    note: str = ""
    #: the part of ``carried_out`` that is credit year one's, and credit year two's
    #: (what a roll forward carries into the next workbook, :func:`opening_after`)
    carried_out_year1: Decimal = Decimal(0)
    carried_out_year2: Decimal = Decimal(0)
    #: on the last period's row: the credit of the credit years ending after it, allowed
    #: for the period in which each ends (b.(1)), not in this schedule; else 0
    allowed_later: Decimal = Decimal(0)
    #: the part of ``new_credit`` that is credit year one's credit, and credit year two's
    #: (each allowed for the period in which its credit year ends, b.(1)): the return's
    #: Form 313 lines (issue 31)
    new_credit_year1: Decimal = Decimal(0)
    new_credit_year2: Decimal = Decimal(0)


class CreditSchedule(Explained):
    """The credit over the privilege periods: one row each, and the totals.

    ``credits_allowed = used + refunded + expired + carried_out``.
    """

    rows: tuple[PeriodRow, ...]
    credit_years: CreditYears
    year_one_credit: Decimal
    year_two_credit: Decimal
    sustained_effort_ratio: Decimal
    carryforward_years: int | None
    tax_type: str
    credits_allowed: Decimal
    used: Decimal
    refunded: Decimal
    expired: Decimal
    #: Unused credit after the last period (its carried_out).
    carried_out: Decimal
    #: The credit carried into the first period (``opening_carried``, b.(2)).
    carried_in: Decimal = Decimal(0)
    #: The index of the period each credit year's credit is allowed in (b.(1)); negative:
    #: before the first period (-1 the period just before), its credit carried in.
    allowed_in: tuple[int, int] = (0, 0)
    #: The credits allowed for a period after the last one given (b.(1): "for the
    #: privilege period in which or with which" the credit year ends): (credit year, the
    #: day it ends, its credit). The periods given are computed without them: a period's
    #: figures depend only on the periods up to it.
    allowed_later: tuple[tuple[int, dt.date, Decimal], ...] = ()

    def later_texts(self) -> tuple[str, ...]:
        """Each credit allowed after the last period, as a reviewer reads it."""
        return tuple(later_text(*later) for later in self.allowed_later)


def later_text(year: int, ends_on: dt.date, amount: Decimal) -> str:
    """``"credit year two's credit, $17,500.00: allowed for the period in which credit year
    two ends (2026-03-31): not in this workpaper"``."""
    which = _ORDINAL[year]
    return (
        f"credit year {which}'s credit, ${fmt_money(amount)}: allowed for the period in which "
        f"credit year {which} ends ({ends_on}): not in this workpaper ({CITE_B1})"
    )


class ScheduleTerms(NamedTuple):
    """What the credit schedule knows before its first period (values of a rule)."""

    #: index of the period in which or with which credit year one ends (b.(1))
    allowed_1: V
    #: index of the period in which or with which credit year two ends (b.(1))
    allowed_2: V
    #: the credit for credit year one (a.)
    credit_1: V
    #: the credit for credit year two (a.)
    credit_2: V
    #: the new positions the sustained effort ratio is computed from (e.)
    year1_new: V
    year2_new: V
    #: b.(2) with a carryforward limit N: credit allowed in period a is usable through
    #: period a + N, then what is left expires; -1: no limit
    keep: V
    #: the insurance premiums taxes (b.(3)'s 50% and minimum-tax limit not stated)
    insurance: V
    #: b.(2): the unused credit of credit year one and of credit year two carried into the
    #: first period (allowed before it: ``allowed_*`` is then negative, -k = k periods
    #: before the first); 0 when none is carried in
    opening_1: V = ZERO
    opening_2: V = ZERO


class PeriodFigures(NamedTuple):
    """One period's figures (``carried_out = carried_in + new - used - refund - expired``)."""

    new_credit: V
    carried_in: V
    limit: V
    used: V
    refund: V
    expired: V
    carried_out: V
    #: the part of ``carried_out`` that is credit year one's, and credit year two's
    #: (b.(2) with a limit and c.(2) tell them apart: a roll forward carries each in)
    carried_out_1: V = ZERO
    carried_out_2: V = ZERO


def schedule_rule(
    r: Rules,
    terms: ScheduleTerms,
    liabilities: Sequence[V],
    other_credits: Sequence[V],
    minimum_taxes: Sequence[V],
    notwithstanding: bool = False,
    names: Sequence[str] | None = None,
) -> list[PeriodFigures]:
    """The credit over the privilege periods, N.J.S.A. 52:27BBB-55b. and c., one
    :class:`PeriodFigures` per period, in order within each period:

    - b.(1): the credit for a credit year is allowed in its period (``terms.allowed_*``);
    - b.(3): the limit (:func:`credit_limit_rule`), used by the unused credit oldest
      first (year one before year two); with ``notwithstanding`` (c.(1) "Notwithstanding
      the provisions of subsection b.", a reading), in the period in which credit year
      two ends the year-one credit is used against the whole liability less the other
      credits and the year-two credit within what b.(3) leaves after it;
    - c.(2): in the period in which credit year two ends, the year-one credit still
      unused x the sustained effort ratio is refunded (:func:`refund_rule`);
    - b.(2): the rest carries forward; with a carryforward limit, what is left of credit
      allowed ``keep`` periods ago expires. The credit carried into the first period
      (``terms.opening_*``, allowed before it) is used, refunded and expires as it would
      have in one schedule over every period.

    ``names``: each period's name in the explanation ("Period ending 2024-12-31: ").
    """
    remaining_1: V = terms.opening_1
    remaining_2: V = terms.opening_2
    has_keep = r.ge(terms.keep, 0)
    rows = []
    for index, (liability, others, minimum) in enumerate(
        zip(liabilities, other_credits, minimum_taxes, strict=True)
    ):
        name = names[index] if names else f"Period {index + 1}: "
        is_1, is_2 = r.eq(terms.allowed_1, index), r.eq(terms.allowed_2, index)
        carried_in = r.subtotal(r.add(remaining_1, remaining_2))
        new = r.subtotal(
            r.add(r.where(is_1, terms.credit_1, ZERO), r.where(is_2, terms.credit_2, ZERO))
        )
        remaining_1 = r.subtotal(r.where(is_1, terms.credit_1, remaining_1))
        remaining_2 = r.subtotal(r.where(is_2, terms.credit_2, remaining_2))
        limit, _, _ = credit_limit_rule(r, liability, others, minimum, terms.insurance, name)
        use_1 = r.min(limit, remaining_1)
        use_2 = r.min(r.sub(limit, r.subtotal(use_1)), remaining_2)
        shown = limit
        if notwithstanding:  # c.(1): the year-one credit not held to b.(3), a reading
            whole = r.max(0, r.sub(liability, others))
            whole_1 = r.min(whole, remaining_1)
            use_2 = r.where(
                is_2, r.min(r.max(0, r.sub(limit, r.subtotal(whole_1))), remaining_2), use_2
            )
            use_1 = r.where(is_2, whole_1, use_1)
            shown = r.where(is_2, r.max(whole, limit), limit)
        used = r.add(use_1, use_2, label=f"{name}used, oldest credit first", cite=CITE_B3)
        remaining_1 = r.subtotal(r.sub(remaining_1, use_1))
        remaining_2 = r.subtotal(r.sub(remaining_2, use_2))
        refunded = refund_rule(r, remaining_1, terms.year1_new, terms.year2_new, name)
        refund = r.where(is_2, refunded, ZERO)
        remaining_1 = r.subtotal(r.sub(remaining_1, refund))
        expire_1 = r.both(has_keep, r.eq(r.add(terms.allowed_1, terms.keep), index))
        expire_2 = r.both(has_keep, r.eq(r.add(terms.allowed_2, terms.keep), index))
        expired = r.subtotal(
            r.add(r.where(expire_1, remaining_1, ZERO), r.where(expire_2, remaining_2, ZERO))
        )
        remaining_1 = r.where(expire_1, ZERO, remaining_1)
        remaining_2 = r.where(expire_2, ZERO, remaining_2)
        carried_out = r.sub(
            r.sub(r.sub(r.add(carried_in, new), used), refund),
            expired,
            label=f"{name}carried out",
            cite=CITE_B2,
        )
        rows.append(
            PeriodFigures(
                new, carried_in, shown, used, refund, expired, carried_out, remaining_1, remaining_2
            )
        )
    return rows


class ScheduleTotals(NamedTuple):
    """The schedule's totals (``carried_in + credits_allowed = used + refunded + expired +
    carried_out``)."""

    credits_allowed: V
    used: V
    refunded: V
    expired: V
    #: unused credit after the last period (its carried_out)
    carried_out: V
    #: the credit carried into the first period (allowed before it, b.(2))
    carried_in: V = ZERO


def schedule_totals_rule(r: Rules, figures: Sequence[PeriodFigures], count: V) -> ScheduleTotals:
    """The totals of the credit schedule over its first ``count`` periods, N.J.S.A.
    52:27BBB-55b.(1)-(3), c.(2): the credits allowed, used, refunded and expired, summed,
    and what the last period carries out. ``count`` is ``len(figures)`` for one schedule;
    the scenario runner's rows have up to ``len(figures)`` periods each."""
    within = [r.lt(index, count) for index in range(len(figures))]

    def summed(values: Sequence[V]) -> V:
        return r.total(r.where(w, value, ZERO) for w, value in zip(within, values, strict=True))

    carried_out: V = ZERO
    for index, period in enumerate(figures):
        carried_out = r.where(r.eq(count, index + 1), period.carried_out, carried_out)
    return ScheduleTotals(
        credits_allowed=summed([f.new_credit for f in figures]),
        used=summed([f.used for f in figures]),
        refunded=summed([f.refund for f in figures]),
        expired=summed([f.expired for f in figures]),
        carried_out=carried_out,
        carried_in=figures[0].carried_in if figures else ZERO,
    )


def opening_rule(
    r: Rules,
    index: V,
    found: V,
    first_start: V,
    year_end: V,
    given: V,
    amount: V,
    before: V,
    credit: V,
    keep: V,
) -> tuple[V, V]:
    """b.(1), b.(2): a credit year's credit carried into the first period (``given``:
    ``amount`` of it unused, allowed ``before`` periods before the first): (the index of
    the period its credit is allowed in, -``before`` when carried in, else ``index``
    from :func:`allowance_period_rule`; whether the inputs agree).

    They agree when the credit is not carried in and its credit year ends in a period
    given (``found``), or when it is carried in, its credit year ended before the first
    period (b.(1): it was allowed in an earlier one), the amount is at most the credit
    (only unused credit carries, b.(2)) and, with a carryforward limit ``keep`` >= 0, the
    credit had not expired (``before`` <= ``keep``) unless nothing of it is left.
    """
    allowed = r.where(given, -before, index)  # -k: k periods before the first
    carried_ok = r.both(
        r.lt(year_end, first_start),
        r.le(amount, credit),
        r.either(r.lt(keep, 0), r.le(before, keep), r.le(amount, 0)),
    )
    return allowed, r.where(given, carried_ok, found)


def credit_schedule(
    operations_start: DateLike,
    year1_new: Number,
    year2_new: Number,
    periods: Sequence[PrivilegePeriod],
    carryforward_years: Number | None = None,
    fractional: Flag = False,
    tax_type: str = "cbt",
    ratio_fractional: Flag | None = None,
    refund_period_limit: str = "b3",
    opening_carried: Sequence[Number | None] | None = None,
    opening_before: Sequence[Number | None] | None = None,
) -> CreditSchedule:
    """The credit allowed, used, refunded, carried forward and expired per period,
    N.J.S.A. 52:27BBB-55b. and c. (:func:`schedule_rule`).

    b.(1): each year's credit is allowed in the period in which or with which its credit
    year ends. Per period, in order: the limit of b.(3) (:func:`credit_limit`); use of
    the unused credit, oldest first (year one before year two); c.(2): in the period in
    which credit year two ends, the year-one credit still unused x the sustained effort
    ratio is refunded; b.(2): the rest carries forward, without limit unless
    ``carryforward_years`` = N, when credit allowed in period a can be used through
    period a + N and what remains after it expires.

    Switches (docs/interpretations.md): ``ratio_fractional`` (default: as ``fractional``)
    TRUE computes the sustained effort ratio from the measured, fractional positions
    given (the credits still price whole positions unless ``fractional``), FALSE from
    whole positions; ``refund_period_limit="notwithstanding"`` applies the year-one
    credit against the whole liability (less other credits) in the period in which credit
    year two ends, before the refund, instead of holding it to the b.(3) limit.

    A schedule that starts after credit year one (or two) ended, as a workpaper rolled
    forward past its first periods does (b.(2), docs/interpretations.md "Credit carried
    into the first period"): ``opening_carried`` = [year one's, year two's] unused credit
    carried into the first period (blank: none: that credit year must end in a period
    given), ``opening_before`` = [the number of periods before the first in which each
    was allowed: 1 the period just before] (needed with ``carryforward_years``, when the
    credit expires by the period it was allowed in; blank without a limit).
    """
    years = credit_years(operations_start)
    checked = _checked_periods(periods)
    fraction_allowed = as_bool(fractional, "fractional", CITE_NEW_POSITION)
    ratio_fraction = (
        fraction_allowed
        if ratio_fractional is None
        else as_bool(ratio_fractional, "ratio_fractional", CITE_RATIO)
    )
    limit_reading = as_choice(
        refund_period_limit, "refund_period_limit", REFUND_PERIOD_LIMITS, CITE_C1
    )
    accept_fraction = fraction_allowed or ratio_fraction
    measured_1 = _positions(year1_new, "year1_new", accept_fraction, CITE_A)
    measured_2 = _positions(year2_new, "year2_new", accept_fraction, CITE_A)
    priced_1 = measured_1 if fraction_allowed else Decimal(math.floor(measured_1))
    priced_2 = measured_2 if fraction_allowed else Decimal(math.floor(measured_2))
    y1 = credit_amount(priced_1, 1, fractional)
    y2 = credit_amount(priced_2, 2, fractional)
    ratio_1 = Fraction(measured_1 if ratio_fraction else math.floor(measured_1))
    ratio_2 = Fraction(measured_2 if ratio_fraction else math.floor(measured_2))
    keep = _carryforward(carryforward_years)
    openings = _openings(opening_carried, opening_before, keep)
    allowed_in = {
        n: _allowed_in(checked, end, n, openings[n - 1], credit.amount, keep)
        for n, end, credit in ((1, years.year_one_end, y1), (2, years.year_two_end, y2))
    }
    if allowed_in[1] > allowed_in[2]:
        rule = (
            f"credit year one allowed {-allowed_in[1]} period(s) before the first, credit year "
            f"two {-allowed_in[2]}: year one's credit is allowed first (b.(1))"
        )
        raise InputError("opening_before", list(opening_before or []), rule, CITE_B1)
    plan = _Plan(
        allowed_in=allowed_in,
        keep=keep,
        tax_type=as_choice(tax_type, "tax_type", TAX_TYPES, CITE_A),
        notwithstanding=limit_reading == "notwithstanding",
    )
    terms = ScheduleTerms(
        allowed_1=plan.allowed_in[1],
        allowed_2=plan.allowed_in[2],
        credit_1=y1.amount,
        credit_2=y2.amount,
        year1_new=ratio_1,
        year2_new=ratio_2,
        keep=-1 if plan.keep is None else plan.keep,
        insurance=plan.tax_type == "insurance",
        opening_1=openings[0][0] or ZERO,
        opening_2=openings[1][0] or ZERO,
    )
    columns = (
        [period.liability for period in checked],
        [period.other_credits for period in checked],
        [period.minimum_tax for period in checked],
    )
    figures = [
        PeriodFigures(*map(cents_down, f))
        for f in schedule_rule(EXACT, terms, *columns, plan.notwithstanding)
    ]
    later = tuple(
        (n, end, credit.amount)
        for n, end, credit in ((1, years.year_one_end, y1), (2, years.year_two_end, y2))
        if plan.allowed_in[n] >= len(checked)
    )
    rows = [
        PeriodRow(
            period_end=period.end,
            new_credit=f.new_credit,
            carried_in=f.carried_in,
            limit=f.limit,
            used=f.used,
            refund=f.refund,
            carried_out=f.carried_out,
            expired=f.expired,
            note="; ".join(
                filter(
                    None,
                    (
                        _note(index, plan, f.expired, terms),
                        *(later_text(*credit) for credit in later if index == len(checked) - 1),
                    ),
                )
            ),
            carried_out_year1=f.carried_out_1,
            carried_out_year2=f.carried_out_2,
            allowed_later=(
                sum((amount for _, _, amount in later), ZERO) if index == len(checked) - 1 else ZERO
            ),
            new_credit_year1=y1.amount if plan.allowed_in[1] == index else ZERO,
            new_credit_year2=y2.amount if plan.allowed_in[2] == index else ZERO,
        )
        for index, (period, f) in enumerate(zip(checked, figures, strict=True))
    ]
    totals = schedule_totals_rule(EXACT, figures, len(figures))
    explainer = partial(
        _schedule_steps, years, y1, y2, terms, columns, plan.notwithstanding, checked, totals
    )
    return CreditSchedule(
        rows=tuple(rows),
        credit_years=years,
        year_one_credit=y1.amount,
        year_two_credit=y2.amount,
        sustained_effort_ratio=sustained_effort_ratio_rule(EXACT, ratio_1, ratio_2),
        carryforward_years=plan.keep,
        tax_type=plan.tax_type,
        credits_allowed=totals.credits_allowed,
        used=totals.used,
        refunded=totals.refunded,
        expired=totals.expired,
        carried_out=totals.carried_out,
        carried_in=cents_down(totals.carried_in),
        allowed_in=(plan.allowed_in[1], plan.allowed_in[2]),
        allowed_later=later,
        steps=partial(_with_later, explainer, later),
    )


def _with_later(
    explainer: Callable[[], tuple[Step, ...]], later: tuple[tuple[int, dt.date, Decimal], ...]
) -> tuple[Step, ...]:
    """The schedule's steps, then one for each credit allowed after its last period."""
    steps = explainer()
    return (
        *steps,
        *(
            Step(
                label="Allowed after the last period",
                value=amount,
                arithmetic=later_text(year, ends_on, amount),
                citation=CITE_B1,
            )
            for year, ends_on, amount in later
        ),
    )


@dataclass(frozen=True)
class _Plan:
    """What the schedule's notes know before the first period."""

    #: credit year -> index of the period in which or with which it ends (b.(1))
    allowed_in: dict[int, int]
    keep: int | None
    tax_type: str
    #: c.(1) "Notwithstanding ... subsection b.": the year-one credit is not held to the
    #: b.(3) limit in the period in which credit year two ends
    notwithstanding: bool = False


def _carryforward(carryforward_years: Number | None) -> int | None:
    """None (no limit, b.(2)) or the number of periods after allowance, or InputError."""
    if carryforward_years is None:
        return None
    return as_int(carryforward_years, "carryforward_years", f"{CITE_B2}; {CITE_FORM_313}", low=0)


_ORDINAL = {1: "one", 2: "two"}


def _openings(
    carried: Sequence[Number | None] | None,
    before: Sequence[Number | None] | None,
    keep: int | None,
) -> list[tuple[Decimal | None, int | None]]:
    """[(year one's credit carried into the first period or None, the periods before the
    first it was allowed in or None), the same for year two], or InputError."""
    cite = CITE_B2
    columns = {"opening_carried": list(carried or []), "opening_before": list(before or [])}
    for argument, values in columns.items():
        if len(values) > len(_ORDINAL):
            rule = f"one value per credit year (year one, year two), not {len(values)}"
            raise InputError(argument, values, rule, cite)
        values += [None] * (len(_ORDINAL) - len(values))
    found: list[tuple[Decimal | None, int | None]] = []
    for n, amount, periods in zip(
        _ORDINAL, columns["opening_carried"], columns["opening_before"], strict=True
    ):
        money = None if amount is None else as_money(amount, "opening_carried", cite)
        count = None if periods is None else as_int(periods, "opening_before", cite, low=1)
        if money is None and count is not None:
            rule = (
                f"gives when credit year {_ORDINAL[n]}'s credit was allowed, but not the "
                "credit carried in (opening_carried)"
            )
            raise InputError("opening_before", list(before or []), rule, cite)
        if keep is not None and money and count is None:
            rule = (
                f"is required for credit year {_ORDINAL[n]}'s credit carried in with a "
                f"carryforward limit of {keep} periods: it expires by the period it was "
                "allowed in (1 = the period before the first)"
            )
            raise InputError("opening_before", list(before or []), rule, f"{cite}; {CITE_FORM_313}")
        found.append((money, count))
    return found


def _allowed_in(
    periods: Sequence[PrivilegePeriod],
    ends_on: dt.date,
    year: int,
    opening: tuple[Decimal | None, int | None],
    credit: Decimal,
    keep: int | None,
) -> int:
    """The period "in which or with which" credit year ``year`` ends, b.(1); before the
    first (negative) when its credit is carried in (:func:`opening_rule`); or InputError."""
    ends = [period.end for period in periods]
    which = _ORDINAL[year]
    index, found, first_start = allowance_period_rule(EXACT, ends, len(ends), ends_on)
    amount, before = opening
    allowed, agree = opening_rule(
        EXACT,
        index,
        found,
        first_start,
        ends_on,
        amount is not None,
        amount or ZERO,
        before or 1,
        credit,
        -1 if keep is None else keep,
    )
    if agree:
        return int(allowed)
    if amount is None and ends_on >= first_start and int(index) == len(ends):
        # b.(1): credit year ``year`` ends after the last period given: its credit is
        # allowed for the period in which it ends, which is not in this schedule; the
        # periods given are computed from what is known by their end (index len(ends):
        # no period given allows it)
        return len(ends)
    if amount is None:
        rule = (
            f"credit year {which} ends {ends_on}, outside every period given "
            f"({first_start} to {periods[-1].end})"
        )
        if ends_on < first_start:
            rule += (
                f"; a schedule that starts after it gives credit year {which}'s unused credit "
                "carried in (opening_carried)"
            )
        raise InputError("period_ends", ends, rule, CITE_B1)
    if ends_on >= first_start:
        rule = (
            f"credit year {which} ends {ends_on}, not before the first period given (from "
            f"{first_start}): its credit is allowed in the period in which it ends (b.(1)), "
            "not carried in"
        )
        raise InputError("opening_carried", amount, rule, CITE_B1)
    if amount > credit:
        rule = (
            f"credit year {which}'s {fmt_money(amount)} carried in is more than its credit, "
            f"{fmt_money(credit)}: only unused credit carries forward"
        )
        raise InputError("opening_carried", amount, rule, CITE_B2)
    rule = (
        f"credit year {which}'s credit, allowed {before} periods before the first, expired "
        f"after {keep} (carryforward_years): none of it is left to carry in"
    )
    raise InputError("opening_carried", amount, rule, f"{CITE_B2}; {CITE_FORM_313}")


def opening_after(
    schedule: CreditSchedule, dropped: int
) -> tuple[list[Decimal | None], list[int | None]]:
    """What the first ``dropped`` periods of ``schedule`` carry into a schedule of the
    periods after them (a workpaper rolled forward past its first periods), b.(2): per
    credit year (one, two), its unused credit after period ``dropped`` (None when its
    credit year ends in a later period: allowed there, not carried) and the number of
    periods before the new first period in which it was allowed (:func:`credit_schedule`'s
    ``opening_carried`` and ``opening_before``). The schedule of the later periods with
    these gives the figures of ``schedule`` for those periods."""
    if not 1 <= dropped <= len(schedule.rows):
        raise ValueError(f"dropped = {dropped}: 1 to {len(schedule.rows)} periods")
    row = schedule.rows[dropped - 1]
    carried: list[Decimal | None] = []
    before: list[int | None] = []
    for allowed, amount in zip(
        schedule.allowed_in, (row.carried_out_year1, row.carried_out_year2), strict=True
    ):
        inside = allowed < dropped
        carried.append(amount if inside else None)
        before.append(dropped - allowed if inside else None)
    return carried, before


def _note(index: int, plan: _Plan, expired: Decimal, terms: ScheduleTerms) -> str:
    notes = []
    if index == 0 and min(plan.allowed_in.values()) < 0:
        carried = [
            f"credit year {which}'s {fmt_money(amount)}"
            for n, which, amount in ((1, "one", terms.opening_1), (2, "two", terms.opening_2))
            if plan.allowed_in[n] < 0
        ]
        notes.append(f"carried in from earlier periods: {', '.join(carried)} ({CITE_B2})")
    if plan.allowed_in[1] == index:
        notes.append(f"credit year one ends: year-one credit allowed ({CITE_B1})")
    if plan.allowed_in[2] == index:
        notes.append(f"credit year two ends: year-two credit allowed ({CITE_B1})")
        if plan.notwithstanding:
            notes.append(
                "year-one credit applied against the whole liability less other credits,"
                f" notwithstanding b.(3) ({CITE_C1})"
            )
        notes.append(f"year-one credit refunded by the sustained effort ratio ({CITE_C2})")
    if expired:
        notes.append(
            f"unused credit expired {plan.keep} periods after it was allowed ({CITE_FORM_313})"
        )
    return "; ".join(notes)


def _schedule_steps(
    years: CreditYears,
    y1: CreditAmount,
    y2: CreditAmount,
    terms: ScheduleTerms,
    columns: tuple[list[Decimal], list[Decimal], list[Decimal]],
    notwithstanding: bool,
    periods: Sequence[PrivilegePeriod],
    totals: ScheduleTotals,
) -> tuple[Step, ...]:
    """The schedule's steps (computed only when they are read)."""
    names = [f"Period ending {period.end}: " for period in periods]
    steps = [*years.steps, *y1.steps, *y2.steps]
    steps += _ratio_steps(terms.year1_new, terms.year2_new)
    steps += explain(schedule_rule, terms, *columns, notwithstanding, names)[1]
    opening = f"{fmt_money(totals.carried_in)} carried in + " if totals.carried_in else ""
    steps.append(
        Step(
            label=(
                "Credit carried in + credits allowed = used + refunded + expired + carried out"
                if totals.carried_in
                else "Credits allowed = used + refunded + expired + carried out"
            ),
            value=totals.credits_allowed,
            arithmetic=(
                f"{opening}{fmt_money(totals.credits_allowed)} = {fmt_money(totals.used)} + "
                f"{fmt_money(totals.refunded)} + {fmt_money(totals.expired)} + "
                f"{fmt_money(totals.carried_out)}"
            ),
            citation=f"{CITE_B1}-(3); {CITE_C2}",
        )
    )
    return tuple(steps)


# =========================================================================== d.
# The burden of proof and the Director's criteria for when operations begin are not
# computable: the operations start date is an input. The single 24-month period per
# location is checked by eligibility_check (above, with subsection a.).

# =========================================================================== e.


class CreditYears(Explained):
    """Credit year one and credit year two, first and last days."""

    year_one_start: dt.date
    year_one_end: dt.date
    year_two_start: dt.date
    year_two_end: dt.date


def credit_years(operations_start: DateLike) -> CreditYears:
    """Credit years one and two, N.J.S.A. 52:27BBB-55e.

    Credit year one is "the first twelve calendar months following initial or expanded
    operations": it starts on the first day of the month after ``operations_start``, or
    on that date when it is the first of a month. Credit year two is the next twelve.
    """
    start = as_date(operations_start, "operations_start", CITE_CREDIT_YEARS)
    one_start, one_end, two_start, two_end = credit_years_rule(EXACT, start)
    within_dates(
        two_end,
        "credit year two's last day",
        "operations_start",
        operations_start,
        CITE_CREDIT_YEARS,
    )
    return CreditYears(
        year_one_start=one_start,
        year_one_end=one_end,
        year_two_start=two_start,
        year_two_end=two_end,
        steps=partial(_credit_years_steps, start, one_start, one_end, two_start, two_end),
    )


def credit_years_rule(r: Rules, operations_start: V) -> tuple[V, V, V, V]:
    """e. "credit year one", "credit year two": (year one's first day, its last day, year
    two's first day, its last day). Year one is "the first twelve calendar months
    following initial or expanded operations": it starts on the 1st of the month after
    ``operations_start``, or on that day when it is the 1st of a month; year two is the
    next twelve months."""
    # the 1st of the month after the day before operations start: operations start
    # itself when it is a 1st
    one_start = r.add_months(r.month_start(r.add_days(operations_start, -1)), 1)
    two_start = r.add_months(one_start, CREDIT_YEAR_MONTHS)
    one_end = r.add_days(two_start, -1)
    two_end = r.add_days(r.add_months(two_start, CREDIT_YEAR_MONTHS), -1)
    return one_start, one_end, two_start, two_end


def _credit_years_steps(
    start: dt.date, one_start: dt.date, one_end: dt.date, two_start: dt.date, two_end: dt.date
) -> tuple[Step, ...]:
    how = "the 1st of a month" if start.day == 1 else "first day of the following month"
    return (
        Step(
            label="Credit year one",
            value=one_start,
            arithmetic=f"operations start {start} -> {how}: {one_start} to {one_end}",
            citation=CITE_CREDIT_YEARS,
        ),
        Step(
            label="Credit year two",
            value=two_start,
            arithmetic=f"the next twelve months: {two_start} to {two_end}",
            citation=CITE_CREDIT_YEARS,
        ),
    )


class BaseYear(Explained):
    """The twelve-month period preceding credit year one, first and last days."""

    start: dt.date
    end: dt.date


def base_year(operations_start: DateLike) -> BaseYear:
    """The base year of the position counts, N.J.S.A. 52:27BBB-55e.

    New full time positions "shall be measured by the increase, from the twelve-month
    period preceding credit year one to the measured credit year": the twelve calendar
    months that end the day before credit year one (:func:`credit_years`) starts.
    """
    one_start = credit_years(operations_start).year_one_start
    start, end = base_year_rule(EXACT, one_start)
    within_dates(
        start, "the base year's first day", "operations_start", operations_start, CITE_BASE_YEAR
    )
    step = Step(
        label="Base year",
        value=start,
        arithmetic=f"the twelve months before credit year one ({one_start}): {start} to {end}",
        citation=CITE_BASE_YEAR,
    )
    return BaseYear(start=start, end=end, steps=(step,))


def base_year_rule(r: Rules, year_one_start: V) -> tuple[V, V]:
    """e.: (first day, last day) of the twelve months that end the day before credit
    year one starts."""
    start = r.add_months(year_one_start, -CREDIT_YEAR_MONTHS)
    return start, r.add_days(year_one_start, -1)


class FullTimeEquivalents(Explained):
    """Full-time position equivalents of aggregated part-time hours (``fte``)."""

    fte: Decimal
    part_time_hours: Decimal
    months: int
    #: The first day of the period's first month (None: the months were not dated).
    first_month: dt.date | None = None
    #: The act whose version of the full-time hours applied (the latest of the months').
    version: str = ""


#: The most months a dated :func:`fte` reads one by one: 100 years (a bound of work, not a
#: figure of law; an undated period has none).
DATED_MONTHS_MAX = 1_200


def explain_fte(
    part_time_hours: Number,
    months: Number = 12,
    first_month: DateLike | None = None,
    law_as_of: DateLike | None = None,
) -> FullTimeEquivalents:
    """Full-time equivalents of part-time hours, with the steps, N.J.S.A. 52:27BBB-55e.

    Aggregated hours / (140 x months), reported to 10 places (140 hours a month is the
    statute's full-time position; the divisor is our reading; :func:`fte_rule`).

    ``first_month``: any day of the period's first month; each month reads the full-time
    hours at its own date, so an amendment from a month inside the period applies from
    that month (the hours divide by the sum of the months' full-time hours). Blank: the
    months are not dated (allowed while the figure has one version). ``law_as_of``: the
    law as it stood on that date (an act approved later is not read).
    """
    hours = as_quantity(part_time_hours, "part_time_hours", CITE_NEW_POSITION)
    first = first_month_of(first_month, figures=FTE_FIGURES)
    as_of = as_law_as_of(law_as_of, "ertc")
    if first is None:
        count = as_int(months, "months", CITE_NEW_POSITION, low=1)
    else:
        count = as_int(
            months,
            "months",
            CITE_NEW_POSITION,
            low=1,
            high=DATED_MONTHS_MAX,
            rule=f"must be from 1 to {DATED_MONTHS_MAX:,} with a first_month (each month is read)",
        )
    args = (hours, count, first, as_of)
    return FullTimeEquivalents(
        fte=fte_rule(EXACT, *args),
        part_time_hours=hours,
        months=count,
        first_month=first,
        version=_version(FTE_FIGURES, first, count, as_of),
        steps=partial(_fte_steps, *args),
    )


def fte_rule(r: Rules, part_time_hours: V, months: V, first_month: V = None, as_of: V = None) -> V:
    """e. "new full time position": full-time position equivalents of aggregated part-time
    hours, hours / (140 x months), to 10 places (half to even).

    ``first_month``: the first day of the period's first month (None: undated), with
    ``months`` then a whole number of months (not a column). Each month reads the
    full-time hours at its own date under the law as of ``as_of``; where they differ
    between months the divisor is their sum, hours / (sum over the months of that
    month's full-time hours), which with one figure is hours / (140 x months) to the
    digit (docs/interpretations.md, "e. A roster's months are dated")."""
    full_time = ERTC.FULL_TIME_HOURS_PER_MONTH
    values = _values(full_time)
    if first_month is None or len(values) == 1:  # one full-time figure for every month
        divisor = r.times(r.law(full_time, first_month, as_of), months)
        label = "Full-time position equivalents"
    else:  # the months grouped by the figure F they read: the sum of F x its months
        figures = [r.law(full_time, r.add_months(first_month, k), as_of) for k in range(months)]
        months_at = [
            r.count(
                (r.eq(f, value) for f in figures),
                label=f"Months of the period at {full_time.show(value)} a month",
                cite=CITE_FULL_TIME,
            )
            for value in values
        ]
        divisor = r.total(r.times(value, n) for value, n in zip(values, months_at, strict=True))
        by_month = _by_month([r.figure(full_time, f) for f in figures])
        label = (
            f"Full-time position equivalents (hours over the months' full-time hours: {by_month})"
        )
    return r.quotient(
        part_time_hours,
        divisor,
        AVERAGE_PLACES,
        label=label,
        cite=f"{CITE_NEW_POSITION}; {CITE_FULL_TIME}",
    )


def _fte_steps(
    hours: Decimal, months: int, first: dt.date | None, as_of: dt.date | None
) -> tuple[Step, ...]:
    """The steps of :func:`fte_rule`, after the one naming the first month."""
    steps = _steps(fte_rule, hours, months, first, as_of)
    if first is None:
        return steps
    return (_first_month_step(first, months), *steps)


def fte(
    part_time_hours: Number,
    months: Number = 12,
    first_month: DateLike | None = None,
    law_as_of: DateLike | None = None,
) -> Decimal:
    """Full-time position equivalents: hours / (140 x months), N.J.S.A. 52:27BBB-55e.

    Reported to 10 places; see :func:`explain_fte` for the steps and the dated months.
    """
    return explain_fte(part_time_hours, months, first_month, law_as_of).fte


class EmployeeHours(BaseModel):
    """One employee's hours in each of the 12 months of a measured period.

    ``temporary``: temporary or seasonal employment ("full time position", e.);
    ``excluded``: not an "employee of the taxpayer" (e.): an owner, or an owner's
    spouse, dependant, ancestor or descendant.
    """

    model_config = ConfigDict(frozen=True)

    hours: tuple[Decimal, ...]
    temporary: bool = False
    excluded: bool = False
    name: str = ""
    #: the employee's row in the roster read (1 for the first: :func:`roster`), by which
    #: the steps name them ("Employee 3"): a row with no hours in a period is skipped, not
    #: renumbered, so the employee of a row has one label in every period, as on the
    #: template's roster (Row "Employee 3"). 0: their place in the roster given.
    row: int = Field(default=0, ge=0)
    #: the hours tuple checked when the row was read (:func:`roster`): that very tuple is
    #: not checked again (a copy with other hours is)
    _checked: object = PrivateAttr(default=None)


def roster(
    hours: Sequence[Sequence[Number | None]],
    temporary: Sequence[Flag] | None = None,
    excluded: Sequence[Flag] | None = None,
) -> tuple[EmployeeHours, ...]:
    """A payroll roster from a table of hours (one row per employee, 12 monthly
    columns) and optional flags, one per employee, N.J.S.A. 52:27BBB-55e.

    A blank month in a row that has other hours is 0 hours (an employee not yet hired,
    or gone); a wholly blank row is no employee, and its flags are ignored. Each employee
    keeps their row's number (:attr:`EmployeeHours.row`): the rows of the employees
    without hours in the period are skipped, not closed up.
    """
    count = len(hours)
    flags = {
        "temporary": [False] * count if temporary is None else list(temporary),
        "excluded": [False] * count if excluded is None else list(excluded),
    }
    for argument, values in flags.items():
        if len(values) != count:
            rule = f"must give one value per employee ({count} rows of hours, {len(values)} values)"
            raise InputError(argument, values, rule, CITE_E)
    rows = []
    for number, (row, is_temporary, is_excluded) in enumerate(
        zip(hours, flags["temporary"], flags["excluded"], strict=True), 1
    ):
        if all(is_blank(value) for value in row):
            continue
        filled = [0 if is_blank(value) else value for value in row]
        months = _checked_hours(filled, number)  # type: ignore[arg-type]
        employee = EmployeeHours(
            hours=months,
            temporary=as_bool(is_temporary, "temporary", CITE_FULL_TIME),
            excluded=as_bool(is_excluded, "excluded", CITE_EMPLOYEE),
            row=number,
        )
        employee._checked = employee.hours
        rows.append(employee)
    return tuple(rows)


_HOURS_CITE, _HOURS_HIGH, _HOURS_RULE = HOURS_INPUT.citation, HOURS_INPUT.high, HOURS_INPUT.rule


def _checked_hours(row: Sequence[Number], number: int) -> tuple[Decimal, ...]:
    """Twelve non-negative monthly hours, or InputError naming ``hours``."""
    if len(row) != CREDIT_YEAR_MONTHS:
        rule = (
            f"employee {number} must have hours for each of the {CREDIT_YEAR_MONTHS} months "
            f"of the period (has {len(row)})"
        )
        raise InputError("hours", list(row), rule, CITE_E)
    return tuple(
        as_quantity(value, "hours", _HOURS_CITE, high=_HOURS_HIGH, rule=_HOURS_RULE)
        for value in row
    )


class PositionCount(Explained):
    """The average number of full-time positions and equivalents in a 12-month period.

    ``average = full_time_months / 12 + fte`` (exact inside, reported to 10 places).
    """

    full_time_months: int
    part_time_hours: Decimal
    fte: Decimal
    average: Decimal
    employees: int
    part_time_employees: int
    #: Temporary or seasonal employees and those who are not "employees of the taxpayer".
    not_counted: int
    #: The first day of the roster's first month (None: the months were not dated).
    first_month: dt.date | None = None
    #: The act whose version of the figures read by month applied (the latest of them).
    version: str = ""


def exact_average(full_time_months: int, part_time_hours: Decimal) -> Fraction:
    """The exact average positions, N.J.S.A. 52:27BBB-55e. "new full time position":
    full-time position-months / 12 + part-time hours / (140 x 12), i.e.
    (140 x full-time position-months + part-time hours) / 1,680.
    """
    months = CREDIT_YEAR_MONTHS
    return Fraction(full_time_months, months) + Fraction(part_time_hours) / (
        FULL_TIME_HOURS_PER_MONTH * months
    )


#: The figures a roster reads for each of its months (law.parameters), at the month's own
#: date (the part-time minimum and the months of the year at the first month's).
MONTH_FIGURES = (
    ERTC.FULL_TIME_HOURS_PER_MONTH,
    ERTC.PART_TIME_HOURS_PER_WEEK,
    ERTC.WEEKS_PER_YEAR,
    ERTC.PART_TIME_MINIMUM_MONTHS,
)
#: Those read at each month's date, and those read at the first month's (with the months
#: of the year, by which the part-time test's hours a week become a month's).
_BY_MONTH = (ERTC.FULL_TIME_HOURS_PER_MONTH, ERTC.PART_TIME_HOURS_PER_WEEK, ERTC.WEEKS_PER_YEAR)
_AT_FIRST_MONTH = (ERTC.PART_TIME_MINIMUM_MONTHS, ERTC.CREDIT_YEAR_MONTHS)


#: The figure :func:`fte` reads for each month of a dated period.
FTE_FIGURES = (ERTC.FULL_TIME_HOURS_PER_MONTH,)


def first_month_of(
    first_month: DateLike | None,
    argument: str = "first_month",
    figures: Sequence[P.Parameter[int]] = MONTH_FIGURES,
) -> dt.date | None:
    """The first day of a roster's (or a period's) first month (any day of the month may
    be given).

    Blank (None): the months are not dated, which is refused once one of ``figures``, the
    figures read by month, has more than one version (the months would decide which
    applies: docs/interpretations.md, "e. A roster's months are dated")."""
    if first_month is None:
        dated = [param for param in figures if param.dated]
        if dated:
            changes = "; ".join(f"{param.title}: {param.summary()}" for param in dated)
            rule = (
                "must be given (the first month of the period, a date): a figure read by month"
                f" has more than one version ({changes})"
            )
            raise InputError(argument, first_month, rule, CITE_E)
        return None
    return as_date(first_month, argument, CITE_E).replace(day=1)


def average_positions(
    roster: Sequence[EmployeeHours],
    part_time_months: str = "non_full_time",
    first_month: DateLike | None = None,
    law_as_of: DateLike | None = None,
) -> PositionCount:
    """The average full-time positions and equivalents in a 12-month period,
    N.J.S.A. 52:27BBB-55e. (:func:`positions_rule`).

    ``first_month``: any day of the roster's first month; the twelve months follow it, and
    each reads the figures of law (140 hours, 20 hours a week) at its own date, so an
    amendment from a month inside the period applies from that month. Blank: the months
    are not dated (allowed while each such figure has one version). ``law_as_of``: the
    law as it stood on that date (an act approved later is not read).

    A month of at least 140 hours is a full-time position-month (e. "full time
    position"). An employee with at least three non-full-time months of at least
    20 x 52 / 12 = 86 2/3 hours is in a part-time position (e. "part-time position"),
    and the hours of all their non-full-time months are aggregated into equivalents
    (/ 1,680). Temporary or seasonal employees and owners and their relatives count in
    neither. ``part_time_months="all_months"`` (the alternative reading of "at least 20
    hours per week for at least three months") counts the full-time months towards the
    three months as well.
    """
    test = as_choice(part_time_months, "part_time_months", PART_TIME_TESTS, CITE_PART_TIME)
    first = first_month_of(first_month)
    as_of = as_law_as_of(law_as_of, "ertc")
    for number, employee in enumerate(roster, 1):
        if employee._checked is not employee.hours:  # not read by roster()
            _checked_hours(employee.hours, employee.row or number)
    args = (_roster_columns(roster), test == "all_months", first, as_of)
    employees, months, hours, equivalents, average = positions_rule(EXACT, *args)
    return PositionCount(
        full_time_months=months,
        part_time_hours=hours,
        fte=equivalents,
        average=average,
        employees=len(roster),
        part_time_employees=sum(1 for _, part_time, _, _ in employees if part_time),
        not_counted=sum(1 for counted, *_ in employees if not counted),
        first_month=first,
        version=_version(_BY_MONTH, first, CREDIT_YEAR_MONTHS, as_of, _AT_FIRST_MONTH),
        steps=partial(_position_steps, *args),
    )


def _position_steps(
    employees: tuple[_Employee, ...],
    all_months: bool,
    first: dt.date | None,
    as_of: dt.date | None,
) -> tuple[Step, ...]:
    """The steps of :func:`positions_rule`, after the one naming the first month (the
    months of the labels count from it)."""
    steps = _steps(positions_rule, employees, all_months, first, as_of)
    if first is None:
        return steps
    return (_first_month_step(first, CREDIT_YEAR_MONTHS), *steps)


def _version(
    by_month: Sequence[P.Parameter[int]],
    first: dt.date | None,
    months: int,
    as_of: dt.date | None,
    at_first: Sequence[P.Parameter[int]] = (),
) -> str:
    """The act whose version a dated period's result applied (:func:`.parameters.applied`):
    ``by_month`` read at each of the ``months`` months from ``first`` (undated: their
    latest versions), ``at_first`` at the first month."""
    days = [None] if first is None else [EXACT.add_months(first, k) for k in range(months)]
    reads = [(param, day) for day in days for param in by_month]
    reads += [(param, days[0]) for param in at_first]
    return P.applied("ertc", reads, as_of).name


def _first_month_step(first: dt.date, months: int) -> Step:
    """The step naming a dated period's first month and its last day."""
    last = EXACT.add_days(EXACT.add_months(first, months), -1)
    return Step(
        label="First month of the period",
        value=first,
        arithmetic=f"month 1 is {P.month_year(first)}; month {months} ends {last}",
        citation=CITE_E,
    )


#: No hours (a quantity, not money: sums of hours keep the places of the hours given).
_NO_HOURS = Decimal(0)


class _Employee(NamedTuple):
    """One employee as the position rule reads them."""

    name: str
    hours: tuple[Decimal, ...]
    temporary: bool
    excluded: bool


def _roster_columns(roster: Sequence[EmployeeHours]) -> tuple[_Employee, ...]:
    """The employees named by their roster rows (:attr:`EmployeeHours.row`), else by
    their places in ``roster``."""
    return tuple(
        _Employee(
            f"Employee {employee.row or number}" + (f" ({employee.name})" if employee.name else ""),
            employee.hours,
            employee.temporary,
            employee.excluded,
        )
        for number, employee in enumerate(roster, 1)
    )


class MonthFigures(NamedTuple):
    """The figures of law a roster reads for each of its months (:func:`month_figures_rule`)."""

    #: hours a month of a full-time position, per month
    full_time: list[V]
    #: the distinct values the full-time figure has in any version (one: the common case)
    full_time_values: tuple[int, ...]
    #: per month, a month of ``hours`` qualifies for the part-time test: ``hours x
    #: per_year >= weekly[m] x weeks[m]``; or one threshold (``threshold``) for all
    weekly: list[V]
    weeks: list[V]
    per_year: V
    #: the monthly threshold where the part-time figures have one value each, else None
    threshold: Fraction | None
    minimum_months: V


def _values(param: P.Parameter[int]) -> tuple[int, ...]:
    """The distinct values of a figure over its versions (the rule's structure)."""
    return tuple(sorted({version.value for version in param.versions}))


def _by_month(texts: list[str]) -> str:
    """Per-month texts of a figure as one: "140 hours", or "140 hours in months 1-6, 150
    hours in months 7-12" (months counted from the roster's first)."""
    runs: list[tuple[str, int, int]] = []
    for month, text in enumerate(texts, 1):
        if runs and runs[-1][0] == text:
            runs[-1] = (text, runs[-1][1], month)
        else:
            runs.append((text, month, month))
    if len(runs) == 1:
        return runs[0][0]
    return ", ".join(
        f"{text} in month {low}" if low == high else f"{text} in months {low}-{high}"
        for text, low, high in runs
    )


def month_figures_rule(r: Rules, first_month: V = None, as_of: V = None) -> MonthFigures:
    """e.: the figures of law for each month of a roster whose first month begins on
    ``first_month`` (None: undated, the figures' latest versions): the full-time hours
    ("at least 140 hours per month") and the part-time test ("at least 20 hours per
    week", read as 20 x 52 / 12 a month) at each month's own date; the three months of
    the part-time test at the first month's; each under the law as of ``as_of``."""
    months = [
        None if first_month is None else r.add_months(first_month, k)
        for k in range(CREDIT_YEAR_MONTHS)
    ]
    full = [r.law(ERTC.FULL_TIME_HOURS_PER_MONTH, month, as_of) for month in months]
    weekly = [r.law(ERTC.PART_TIME_HOURS_PER_WEEK, month, as_of) for month in months]
    weeks = [r.law(ERTC.WEEKS_PER_YEAR, month, as_of) for month in months]
    per_year = r.law(ERTC.CREDIT_YEAR_MONTHS, months[0], as_of)
    single = all(
        len(_values(param)) == 1
        for param in (ERTC.PART_TIME_HOURS_PER_WEEK, ERTC.WEEKS_PER_YEAR, ERTC.CREDIT_YEAR_MONTHS)
    )
    threshold = (
        Fraction(
            ERTC.PART_TIME_HOURS_PER_WEEK.base * ERTC.WEEKS_PER_YEAR.base,
            ERTC.CREDIT_YEAR_MONTHS.base,
        )
        if single
        else None
    )
    return MonthFigures(
        full_time=full,
        full_time_values=_values(ERTC.FULL_TIME_HOURS_PER_MONTH),
        weekly=weekly,
        weeks=weeks,
        per_year=per_year,
        threshold=threshold,
        minimum_months=r.law(ERTC.PART_TIME_MINIMUM_MONTHS, months[0], as_of),
    )


def _texts(figure: Callable[[P.Parameter[int], V], str], figures: MonthFigures) -> tuple[str, str]:
    """How the labels name the month's figures: ("140 hours", "86 2/3 hours"), or by month
    ("140 hours in months 1-6, 150 hours in months 7-12"). ``figure``: the evaluator's
    :meth:`~nj_incentives.core.rules.Rules.figure` ("" but under the explainer)."""
    if len(figures.full_time_values) == 1:  # one figure for every month
        full = figure(ERTC.FULL_TIME_HOURS_PER_MONTH, figures.full_time[0])
    else:
        full = _by_month([figure(ERTC.FULL_TIME_HOURS_PER_MONTH, f) for f in figures.full_time])
    if figures.threshold is not None:
        return full, f"{_mixed(figures.threshold)} hours"
    part = _by_month(
        [
            f"{figure(ERTC.PART_TIME_HOURS_PER_WEEK, w)} a week x"
            f" {figure(ERTC.WEEKS_PER_YEAR, n)}"
            f" / {figure(ERTC.CREDIT_YEAR_MONTHS, figures.per_year)}"
            for w, n in zip(figures.weekly, figures.weeks, strict=True)
        ]
    )
    return full, part


def employee_positions_rule(
    r: Rules, employee: _Employee, all_months: bool, figures: MonthFigures | None = None
) -> tuple[V, V, V, V, list[V], list[V]]:
    """e.: what one employee contributes to the average: (counted, a part-time position,
    full-time position-months, part-time hours aggregated, each month full-time and
    counted, each month's part-time hours aggregated: only where the full-time figure differs
    between versions, else empty).

    "full time position": a month of at least 140 hours; temporary or seasonal
    employment and a person who is not an "employee of the taxpayer" (an owner or an
    owner's relative) count in neither. "part-time position": at least three months of
    at least 86 2/3 hours (20 hours a week), tested among the months that are not
    full-time (or among all months, ``all_months``); its non-full-time hours aggregate.
    Each month's figures are ``figures``' (:func:`month_figures_rule`; None: undated).
    """
    if figures is None:
        figures = month_figures_rule(r)
    full_text, part_text = _texts(r.figure, figures)
    name = employee.name
    month_hours = [r.quantity(h) for h in employee.hours]
    none = r.quantity(_NO_HOURS)
    counted = r.not_(
        r.either(employee.temporary, employee.excluded),
        label=f"{name}: counted (neither temporary or seasonal nor an owner or owner's relative)",
        cite=f"{CITE_FULL_TIME}; {CITE_EMPLOYEE}",
    )
    full = [r.ge(h, f) for h, f in zip(month_hours, figures.full_time, strict=True)]
    full_months = r.where(
        counted,
        r.count(full),
        0,
        label=f"{name}: full-time months ({full_text} or more)",
        cite=CITE_FULL_TIME,
    )
    threshold = figures.threshold
    if threshold is not None:
        meets = [r.ge(h, threshold) for h in month_hours]
    else:  # hours x 12 >= hours a week x 52, at each month's figures
        meets = [
            r.ge(r.times(h, figures.per_year), r.times(w, n))
            for h, w, n in zip(month_hours, figures.weekly, figures.weeks, strict=True)
        ]
    qualifying = r.count(
        m if all_months else r.both(r.not_(f), m) for m, f in zip(meets, full, strict=True)
    )
    which = "months" if all_months else "non-full-time months"
    minimum = figures.minimum_months
    least = r.figure(ERTC.PART_TIME_MINIMUM_MONTHS, minimum)
    part_time = r.both(
        counted,
        r.ge(qualifying, minimum),
        label=f"{name}: a part-time position (at least {least} {which} of {part_text} or more)",
        cite=CITE_PART_TIME,
    )
    others = [r.where(f, none, h) for h, f in zip(month_hours, full, strict=True)]
    other = r.total(others)
    hours = r.where(
        part_time,
        other,
        none,
        label=f"{name}: part-time hours aggregated (its non-full-time months)",
        cite=f"{CITE_PART_TIME}; {CITE_NEW_POSITION}",
    )
    # each month's part-time hours: needed only where the full-time figure differs by month
    each_hours = (
        [r.where(part_time, h, none) for h in others] if len(figures.full_time_values) > 1 else []
    )
    return counted, part_time, full_months, hours, [r.both(counted, f) for f in full], each_hours


def positions_rule(
    r: Rules,
    employees: Sequence[_Employee],
    all_months: bool,
    first_month: V = None,
    as_of: V = None,
) -> tuple[list[tuple[V, V, V, V]], V, V, V, V]:
    """e. "new full time position": the average number of full-time positions and
    equivalents in a 12-month period: ([(counted, part-time, full-time months, hours) per
    employee],
    full-time position-months, part-time hours, equivalents, average), the average
    full-time position-months / 12 + hours / (140 x 12), exact, reported to 10 places.

    ``first_month``: the first day of the roster's first month (None: undated). Each
    month reads its figures at its own date (:func:`month_figures_rule`); where the
    full-time hours differ between months, each month's hours count at its own figure:
    average = (sum over months of position-months + part-time hours / that month's
    full-time hours) / 12, exact (docs/interpretations.md, "e. A roster's months are
    dated"); each figure under the law as of ``as_of``."""
    figures = month_figures_rule(r, first_month, as_of)
    rows = [employee_positions_rule(r, employee, all_months, figures) for employee in employees]
    months = r.count(
        (month for *_, each, _ in rows for month in each),
        label="Full-time position-months",
        cite=CITE_FULL_TIME,
    )
    hours = r.total(
        (r.quantity(_NO_HOURS), *(h for _, _, _, h, _, _ in rows)),
        label="Part-time hours",
        cite=CITE_PART_TIME,
    )
    values = figures.full_time_values
    if len(values) == 1:  # one full-time figure for every month
        full_time = values[0]
        equivalents = fte_rule(r, hours, CREDIT_YEAR_MONTHS, None, as_of)
        average = r.quotient(
            r.add(r.times(full_time, months), hours),
            full_time * CREDIT_YEAR_MONTHS,
            AVERAGE_PLACES,
            label="Average full-time positions and equivalents",
            cite=CITE_NEW_POSITION,
        )
    else:  # the months grouped by the figure F they read: (months x F + hours) x L / F
        # over 12 x L, L the common multiple of the figures (exact; one rounding)
        common = math.lcm(*values)
        none = r.quantity(_NO_HOURS)
        month_count = [r.count(row[4][m] for row in rows) for m in range(CREDIT_YEAR_MONTHS)]
        month_hours = [
            r.total((none, *(row[5][m] for row in rows))) for m in range(CREDIT_YEAR_MONTHS)
        ]
        weighted_hours: list[V] = []
        weighted_all: list[V] = []
        for value in values:
            shown = ERTC.FULL_TIME_HOURS_PER_MONTH.show(value)
            at = [r.eq(f, value) for f in figures.full_time]
            group_hours = r.total(
                (none, *(r.where(a, h, none) for a, h in zip(at, month_hours, strict=True))),
                label=f"Part-time hours of the months at {shown} a month",
                cite=f"{CITE_PART_TIME}; {CITE_FULL_TIME}",
            )
            group_months = r.total(
                (0, *(r.where(a, c, 0) for a, c in zip(at, month_count, strict=True))),
                label=f"Full-time position-months of the months at {shown} a month",
                cite=CITE_FULL_TIME,
            )
            weight = common // value
            weighted_hours.append(r.times(group_hours, weight))
            weighted_all.append(r.times(r.add(r.times(value, group_months), group_hours), weight))
        divisor = common * CREDIT_YEAR_MONTHS
        equivalents = r.quotient(
            r.total(weighted_hours),
            divisor,
            AVERAGE_PLACES,
            label="Full-time position equivalents (each month's hours at its own full-time hours)",
            cite=f"{CITE_NEW_POSITION}; {CITE_FULL_TIME}",
        )
        average = r.quotient(
            r.total(weighted_all),
            divisor,
            AVERAGE_PLACES,
            label="Average full-time positions and equivalents (each month at its own"
            " full-time hours)",
            cite=CITE_NEW_POSITION,
        )
    employees_out = [(counted, part_time, full, h) for counted, part_time, full, h, _, _ in rows]
    return employees_out, months, hours, equivalents, average


def _mixed(value: Fraction) -> str:
    """260/3 -> '86 2/3'."""
    whole, rest = divmod(value, 1)
    return f"{whole} {rest}" if rest else str(whole)


class NewPositions(Explained):
    """New full-time positions: the increase in average positions over the base period."""

    count: Decimal
    difference: Decimal
    base_avg: Decimal
    year_avg: Decimal
    fractional: bool


def explain_new_positions(
    base_avg: Number, year_avg: Number, fractional: Flag = False
) -> NewPositions:
    """New full-time positions with the steps, N.J.S.A. 52:27BBB-55e. "new full time position".

    ``max(0, year_avg - base_avg)``, rounded down to whole positions unless
    ``fractional``. Each average is read to 10 places (as :func:`average_positions`
    reports it); with hours given to the cent the exact difference of two averages is a
    multiple of 1/168,000, so the whole count equals the one from the exact averages.
    """
    base = _average_input(base_avg, "base_avg")
    year = _average_input(year_avg, "year_avg")
    keep_fraction = as_bool(fractional, "fractional", CITE_NEW_POSITION)
    difference = max(Decimal(0), year - base)
    count = difference if keep_fraction else Decimal(math.floor(difference))
    how = "fractional positions kept" if keep_fraction else "rounded down to whole positions"
    step = Step(
        label="New full-time positions",
        value=count,
        arithmetic=(
            f"max(0, {fmt_number(year)} - {fmt_number(base)}) = {fmt_number(difference)}"
            f" -> {fmt_number(count)} ({how})"
        ),
        citation=CITE_NEW_POSITION,
    )
    return NewPositions(
        count=count,
        difference=difference,
        base_avg=base,
        year_avg=year,
        fractional=keep_fraction,
        steps=(step,),
    )


def _average_input(value: Number, argument: str) -> Decimal:
    """An average number of positions, read to AVERAGE_PLACES places."""
    number = _non_negative(value, argument, CITE_NEW_POSITION)
    return _to_places(Fraction(number))


def new_positions(base_avg: Number, year_avg: Number, fractional: Flag = False) -> Decimal:
    """New full-time positions, N.J.S.A. 52:27BBB-55e. "new full time position".

    The increase from the average of the twelve months before credit year one
    (``base_avg``) to the credit year's (``year_avg``); never negative; whole positions
    (rounded down) unless ``fractional``. See :func:`explain_new_positions`.
    """
    return explain_new_positions(base_avg, year_avg, fractional).count


class SustainedEffortRatio(Explained):
    """The sustained effort ratio (``ratio``, to 10 places)."""

    ratio: Decimal
    year1_new: Decimal
    year2_new: Decimal


def sustained_effort_ratio_rule(r: Rules, year1_new: V, year2_new: V) -> V:
    """e. "sustained effort ratio": credit year two new positions / credit year one new
    positions, "not to exceed one" (min(year two, year one) / year one), to 10 places;
    0 when year one has none."""
    return r.quotient(
        r.min(year2_new, year1_new),
        year1_new,
        AVERAGE_PLACES,
        label="Sustained effort ratio",
        cite=CITE_RATIO,
    )


def _ratio_steps(year1_new: Fraction, year2_new: Fraction) -> tuple[Step, ...]:
    if year1_new == 0:
        step = Step(
            label="Sustained effort ratio",
            value=Decimal(0),
            arithmetic="no new positions in credit year one = 0",
            citation=CITE_RATIO,
        )
        return (step,)
    return explain(sustained_effort_ratio_rule, year1_new, year2_new)[1]


def explain_sustained_effort_ratio(year1_new: Number, year2_new: Number) -> SustainedEffortRatio:
    """The sustained effort ratio with its step, N.J.S.A. 52:27BBB-55e."""
    first = _non_negative(year1_new, "year1_new", CITE_RATIO)
    second = _non_negative(year2_new, "year2_new", CITE_RATIO)
    ratio = sustained_effort_ratio_rule(EXACT, Fraction(first), Fraction(second))
    return SustainedEffortRatio(
        ratio=ratio,
        year1_new=first,
        year2_new=second,
        steps=partial(_ratio_steps, Fraction(first), Fraction(second)),
    )


def sustained_effort_ratio(year1_new: Number, year2_new: Number) -> Decimal:
    """The sustained effort ratio, N.J.S.A. 52:27BBB-55e.: credit year two new positions /
    credit year one new positions, at most 1; 0 when year one has none (to 10 places)."""
    ratio: Decimal = sustained_effort_ratio_rule(
        EXACT,
        Fraction(_non_negative(year1_new, "year1_new", CITE_RATIO)),
        Fraction(_non_negative(year2_new, "year2_new", CITE_RATIO)),
    )
    return ratio


class RatioPositions(Explained):
    """Whether the sustained effort ratio is computed from fractional positions."""

    fractional: bool


def ratio_positions(fractional: Flag = False, ratio_measured: Flag = False) -> RatioPositions:
    """The positions the sustained effort ratio is computed from, N.J.S.A. 52:27BBB-55e.
    (our reading, docs/interpretations.md "e. Sustained effort ratio: whole or measured
    positions"): by default those the credits count, whole positions unless ``fractional``
    prices fractions; with ``ratio_measured`` the measured increases, fractions kept.

    ``fractional`` of the result is TRUE when either holds: it is the ``fractional`` of
    the positions the ratio takes (:func:`new_positions`) and the ``ratio_fractional`` of
    :func:`credit_schedule`.
    """
    priced = as_bool(fractional, "fractional", CITE_NEW_POSITION)
    measured = as_bool(ratio_measured, "ratio_measured", f"{CITE_RATIO}; {CITE_READING}")
    kept = priced or measured
    if measured:
        why = "the measured increases, fractions kept (ratio_measured)"
    elif priced:
        why = "the positions the credits count: fractional positions are priced"
    else:
        why = "the positions the credits count: whole positions"
    step = Step(
        label="Ratio from fractional positions",
        value=kept,
        arithmetic=why,
        citation=f"{CITE_RATIO}; {CITE_READING}",
    )
    return RatioPositions(fractional=kept, steps=(step,))


CreditSchedule.model_rebuild()
