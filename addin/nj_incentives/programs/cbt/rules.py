"""The Corporation Business Tax statutory minimum: N.J.S.A. 54:10A-5(e), N.J.A.C. 18:7-3.4(b).

For privilege periods beginning in calendar year 2012 and after, the minimum tax is set
by the taxpayer's New Jersey gross receipts, with a lower column for S corporations
(P.L.2011, c.84); a member of an affiliated or controlled group whose group payroll is
$5,000,000 or more pays $2,000 (N.J.A.C. 18:7-3.4(b)1). The Economic Recovery Tax
Credit may not reduce the tax below this minimum (N.J.S.A. 52:27BBB-55b.(3)).

The table is data, below, with its citation. Readings are recorded in
``docs/interpretations.md`` ("CBT statutory minimum").

The module also numbers a CBT return ("tax year N", :func:`tax_year`): the Division of
Taxation numbers a return by its form year, and both statutes name privilege periods by
that number (N.J.S.A. 34:1B-129e., h.).
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from typing import NamedTuple, TypeAlias

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
    as_money,
    fmt_money,
    within_dates,
)
from nj_incentives.core.rules import EXACT, Rules, V
from nj_incentives.programs.cbt import figures as CBT

__all__ = [
    "CITE_52_53_WEEK",
    "DEEMED_MONTH_END_DAYS",
    "FORM_YEAR_FIRST_MONTH",
    "GROUP_MINIMUM_TAX",
    "GROUP_PAYROLL_THRESHOLD",
    "MINIMUM_TAX_TABLE",
    "SHORT_PERIOD_TESTS",
    "TABLE_FIRST_PERIOD_YEAR",
    "TAX_YEAR_NUMBERINGS",
    "MinimumTax",
    "MinimumTaxBracket",
    "TaxYear",
    "bracket_for",
    "deemed_period_end",
    "deemed_period_end_rule",
    "minimum_tax",
    "period_end_for",
    "period_end_in",
    "tax_year",
    "tax_year_number",
    "year_end_month",
]

CITE_MINIMUM = "N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b)"
CITE_S_CORPORATION = f"{CITE_MINIMUM}; P.L.2011, c.84"
CITE_GROUP = "N.J.A.C. 18:7-3.4(b)1"
CITE_SHORT_PERIOD = f"{CITE_GROUP}; NJ Form 313 instructions (2013)"
CITE_READING = "docs/interpretations.md"

#: A yes/no input: TRUE/FALSE, 1/0 or the words Yes/No (read by ``common.as_bool``).
Flag: TypeAlias = bool | int | str


class MinimumTaxBracket(NamedTuple):
    """One row of the minimum-tax table: receipts from ``receipts_from`` (inclusive) to
    ``receipts_below`` (exclusive; None = no upper bound)."""

    label: str
    receipts_from: Decimal
    receipts_below: Decimal | None
    c_corporation: Decimal
    s_corporation: Decimal


#: N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b): the statutory minimum tax by New Jersey
#: gross receipts, for accounting or privilege periods beginning in 2012 and after.
#: S corporation column: P.L.2011, c.84.
MINIMUM_TAX_TABLE: tuple[MinimumTaxBracket, ...] = tuple(
    MinimumTaxBracket(*row) for row in CBT.MINIMUM_TAX_TABLE.single
)
#: The table covers privilege periods beginning in this calendar year and after.
TABLE_FIRST_PERIOD_YEAR = CBT.TABLE_FIRST_PERIOD_YEAR.single
#: N.J.A.C. 18:7-3.4(b)1: a member of an affiliated or controlled group (I.R.C. 1504 or
#: 1563) whose group has total payroll of $5,000,000 or more ...
GROUP_PAYROLL_THRESHOLD = CBT.GROUP_PAYROLL_THRESHOLD.single
#: ... pays a minimum tax of $2,000 (N.J.A.C. 18:7-3.4(b)1).
GROUP_MINIMUM_TAX = CBT.GROUP_MINIMUM_TAX.single
#: ``short_period_test``: how a privilege period of less than 12 months tests its group
#: payroll. "per_month" (default): the Form 313 instructions, "Tax periods of less than 12
#: months are subject to the higher minimum tax if the prorated total payroll exceeds
#: $416,667 per month" (payroll > the monthly figure x months); "prorated": the
#: regulation's $5,000,000 prorated by month (payroll >= $5,000,000 x months / 12).
#: docs/interpretations.md, "Group payroll rule for a period of less than 12 months".
SHORT_PERIOD_TESTS = ("per_month", "prorated")


class MinimumTax(Explained):
    """The statutory minimum tax (``amount``) and how it was found."""

    amount: Decimal
    #: The gross-receipts bracket, as the table states it.
    bracket: str
    s_corporation: bool
    #: Whether the $2,000 group-payroll minimum applies (N.J.A.C. 18:7-3.4(b)1).
    group_rule_applied: bool
    #: Months of the privilege period (12, or fewer for a short period).
    months: int = 12


def bracket_for(nj_gross_receipts: Number) -> MinimumTaxBracket:
    """The row of the minimum-tax table for New Jersey gross receipts,
    N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b)."""
    receipts = as_money(nj_gross_receipts, "nj_gross_receipts", CITE_MINIMUM)
    return next(
        row
        for row in MINIMUM_TAX_TABLE
        if row.receipts_from <= receipts
        and (row.receipts_below is None or receipts < row.receipts_below)
    )


def minimum_tax(
    nj_gross_receipts: Number,
    s_corporation: Flag = False,
    group_payroll: Number = 0,
    group_rule_for_s_corporations: Flag = True,
    period_start_year: Number | None = None,
    months: Number = 12,
    short_period_test: str = "per_month",
) -> MinimumTax:
    """The CBT statutory minimum tax, N.J.S.A. 54:10A-5(e) and N.J.A.C. 18:7-3.4(b).

    By New Jersey gross receipts (C corporation or S corporation column); $2,000 for a
    member of a group whose total payroll (``group_payroll``; 0 when not a member) is
    $5,000,000 or more (N.J.A.C. 18:7-3.4(b)1). Whether the group rule reaches S
    corporations is uncertain: ``group_rule_for_s_corporations`` (default True) is the
    switch. The table is for privilege periods beginning in 2012 and after
    (``period_start_year``, default: assumed).

    A privilege period of ``months`` < 12 (1 to 12, default 12) tests the group payroll
    for the period by month: by default (``short_period_test="per_month"``, the Form 313
    instructions) the $2,000 applies if the payroll exceeds $416,667 a month (payroll >
    416,667 x months); ``"prorated"``: if it is $5,000,000 x months / 12 or more. The
    figures are read from :mod:`~nj_incentives.core.parameters` at the period's beginning
    (January 1 of ``period_start_year``; blank: the latest version).
    """
    _check_period_start(period_start_year)
    day = _period_day(period_start_year)
    receipts = as_money(nj_gross_receipts, "nj_gross_receipts", CITE_MINIMUM)
    is_s = as_bool(s_corporation, "s_corporation", CITE_S_CORPORATION)
    payroll = as_money(group_payroll, "group_payroll", CITE_GROUP)
    group_rule_s = as_bool(
        group_rule_for_s_corporations, "group_rule_for_s_corporations", CITE_READING
    )
    full = CBT.FULL_PERIOD_MONTHS.at(day)
    count = as_int(
        months,
        "months",
        CITE_SHORT_PERIOD,
        low=1,
        high=full,
        rule=f"must be the months of the privilege period, 1 to {full} (a period of less than"
        f" {full} months tests the group payroll by month)",
    )
    test = as_choice(short_period_test, "short_period_test", SHORT_PERIOD_TESTS, CITE_READING)
    row = bracket_for(receipts)
    table_amount = row.s_corporation if is_s else row.c_corporation
    column = "S corporation" if is_s else "C corporation"
    steps = [
        Step(
            label=f"Minimum tax by NJ gross receipts ({column})",
            value=table_amount,
            arithmetic=f"{fmt_money(receipts)} is {row.label}: {fmt_money(table_amount)}",
            citation=CITE_S_CORPORATION if is_s else CITE_MINIMUM,
        )
    ]
    reaches, how = _group_payroll_test(payroll, count, full, test, day)
    group_minimum = CBT.GROUP_MINIMUM_TAX.at(day)
    group_applies = reaches and (not is_s or group_rule_s)
    amount = max(table_amount, group_minimum) if group_applies else table_amount
    steps.append(_group_step(how, reaches, is_s, group_rule_s, group_applies, amount, count < full))
    return MinimumTax(
        amount=amount,
        bracket=row.label,
        s_corporation=is_s,
        group_rule_applied=group_applies,
        months=count,
        steps=tuple(steps),
    )


#: The last year a date can have (a bound of the input, not a rule).
_LAST_YEAR = dt.MAXYEAR


def _period_day(period_start_year: Number | None) -> dt.date | None:
    """The date that selects the figures' versions: January 1 of the year the period
    begins (None: the latest version)."""
    if period_start_year is None:
        return None
    return dt.date(as_int(period_start_year, "period_start_year", CITE_MINIMUM), 1, 1)


def _cents(value: Fraction) -> str:
    """An exact amount as money text: to the cent, or "2,083,333.33..." where it has more
    places."""
    shown = fmt_money(Decimal(value.numerator) / Decimal(value.denominator))
    if (value * 100).denominator == 1:
        return shown
    down = (Decimal(value.numerator) / Decimal(value.denominator)).quantize(
        Decimal("0.01"), rounding=ROUND_DOWN
    )
    return f"{fmt_money(down)}..."


def _group_payroll_test(
    payroll: Decimal, months: int, full: int, test: str, day: dt.date | None
) -> tuple[bool, str]:
    """Whether the group payroll reaches the group minimum (N.J.A.C. 18:7-3.4(b)1), and
    how: a full period, $5,000,000 or more; a period of less than 12 months by month
    (:data:`SHORT_PERIOD_TESTS`), compared exactly."""
    threshold = CBT.GROUP_PAYROLL_THRESHOLD.at(day)
    given = f"group payroll {fmt_money(payroll)}"
    if months == full:
        reaches = payroll >= threshold
        sign = ">=" if reaches else "<"
        return reaches, f"{given} {sign} {fmt_money(threshold)}"
    period = f"for a {months}-month period"
    if test == "per_month":  # "exceeds $416,667 per month"
        per_month = CBT.GROUP_PAYROLL_PER_MONTH.at(day)
        bound = per_month * months
        reaches = payroll > bound
        sign = ">" if reaches else "<="
        return reaches, (
            f"{given} {period} {sign} {fmt_money(per_month)} a month x {months}"
            f" = {fmt_money(bound)} (Form 313 instructions: exceeds"
            f" {CBT.GROUP_PAYROLL_PER_MONTH.show(per_month)} per month)"
        )
    prorated = Fraction(threshold) * months / full
    reaches = Fraction(payroll) >= prorated
    sign = ">=" if reaches else "<"
    return reaches, (
        f"{given} {period} {sign} {fmt_money(threshold)} x {months} / {full}"
        f" = {_cents(prorated)} (prorated)"
    )


def _check_period_start(period_start_year: Number | None) -> None:
    """The table covers privilege periods beginning in 2012 and after."""
    if period_start_year is None:
        return
    year = as_int(
        period_start_year,
        "period_start_year",
        CITE_MINIMUM,
        high=_LAST_YEAR,
        rule=f"must be a calendar year, at most {_LAST_YEAR}",
    )
    if year < TABLE_FIRST_PERIOD_YEAR:
        rule = (
            f"the minimum-tax table covers privilege periods beginning in "
            f"{TABLE_FIRST_PERIOD_YEAR} and after"
        )
        raise InputError("period_start_year", period_start_year, rule, CITE_MINIMUM)


def _group_step(
    test: str,
    reaches: bool,
    is_s: bool,
    group_rule_s: bool,
    applies: bool,
    amount: Decimal,
    short: bool,
) -> Step:
    if not reaches:
        how = f"{test}: rule does not apply"
    elif is_s and not group_rule_s:
        how = "S corporation, group rule switched off for S corporations"
    else:
        how = f"{test}: {fmt_money(amount)}"
    citation = CITE_SHORT_PERIOD if short else CITE_GROUP
    if is_s:
        citation += f" (application to S corporations uncertain: {CITE_READING})"
    return Step(
        label="Statutory minimum tax" + (" (group payroll rule)" if applies else ""),
        value=amount,
        arithmetic=how,
        citation=citation,
    )


# =========================================================================== tax years
# Which return is "tax year N". The Division of Taxation numbers a CBT return by its form
# year: the 2022 CBT-100 is "For Tax Years Ending On or After July 31, 2022, Through June
# 30, 2023" (the form's heading; the CBT-100S and CBT-100U read the same). So a privilege
# period ending in July-December of N, or in January-June of N+1, is the "N" period. Our
# reading, with its alternative as the switch ``numbering``: docs/interpretations.md,
# "Which return is tax year N".

CITE_FORM_YEAR = (
    'Form CBT-100 heading ("For Tax Years Ending On or After July 31, 2022, Through'
    ' June 30, 2023"); docs/interpretations.md'
)
#: "form": the Division's form year (default); "calendar": the calendar year of the end.
TAX_YEAR_NUMBERINGS = ("form", "calendar")
#: A period ending in this month or later of year N is the form year N; one ending
#: before it, in January-June of N+1, is form year N as well.
FORM_YEAR_FIRST_MONTH = 7


# 52-53-week years. N.J.A.C. 18:7-2.3(b): a CBT return may be filed on a 52-53-week year,
# and "any fiscal year which ends within seven days from the end of any calendar month
# shall be deemed to have ended on the last day of that calendar month" (text as published
# through N.J.R. Vol. 56, No. 18, September 2024; shared/legal-notes.md, section 4). The
# deemed end is read before a return is numbered or matched to a credit year.

CITE_52_53_WEEK = "N.J.A.C. 18:7-2.3(b)"
#: "within seven days from the end of any calendar month". N.J.A.C. 18:7-2.3(b)
DEEMED_MONTH_END_DAYS: int = CBT.DEEMED_MONTH_END_DAYS.base


def deemed_period_end_rule(r: Rules, end: V) -> V:
    """N.J.A.C. 18:7-2.3(b): the day a privilege period ending on ``end`` is deemed to end.

    A period ending on day 1-7 of a month (1 to 7 days after the previous month's end) is
    deemed to end on the last day of the previous month; one ending in the last 7 days of
    a month (0 to 6 days before its end), on that month's last day; any other, on ``end``
    (docs/interpretations.md, "52-53-week years")."""
    if r is EXACT and type(end) is dt.date:  # a schedule asks again for the same days
        return _deemed_exact(end)
    return _deemed_end_of(r, end)


def _deemed_end_of(r: Rules, end: V) -> V:
    """:func:`deemed_period_end_rule`'s rule."""
    days = DEEMED_MONTH_END_DAYS  # one version (a count of days the calendar steps take)
    first = r.month_start(end)
    last = r.month_end(end)
    after_month_end = r.le(end, r.add_days(first, days - 1))
    before_month_end = r.ge(end, r.add_days(last, -(days - 1)))
    return r.where(
        after_month_end,
        r.add_days(first, -1),
        r.where(before_month_end, last, end),
        label=f"Deemed end of the period (within {days} days of a month end)",
        cite=CITE_52_53_WEEK,
    )


@functools.lru_cache(maxsize=4096)
def _deemed_exact(end: dt.date) -> dt.date:
    """The exact evaluator's :func:`_deemed_end_of` of a date, each day's computed once (a
    pure function of the date: the figure has one version)."""
    deemed: dt.date = _deemed_end_of(EXACT, end)
    return deemed


def deemed_period_end(period_end: DateLike, argument: str = "period_end") -> dt.date:
    """:func:`deemed_period_end_rule` of a date given as a cell or text."""
    end = as_date(period_end, argument, CITE_52_53_WEEK)
    deemed: dt.date = deemed_period_end_rule(EXACT, end)
    return deemed


def _deemed_text(end: dt.date, deemed: dt.date) -> str:
    """How the deemed end was found ("" where the period ends on a month's last day)."""
    if deemed == end:
        return ""
    apart = abs((end - deemed).days)
    days = f"{apart} day{'s' if apart != 1 else ''}"
    side = "after" if deemed < end else "before"
    return (
        f"period ends {end}, {days} {side} the end of {P.month_year(deemed)}: deemed to end"
        f" {deemed} ({CITE_52_53_WEEK}); "
    )


class TaxYear(Explained):
    """The number of the return for a privilege period ending on ``period_end``."""

    year: int
    period_end: dt.date
    numbering: str
    #: the day the period is deemed to end (N.J.A.C. 18:7-2.3(b)), which is numbered
    deemed_end: dt.date | None = None


def _numbering(value: object) -> str:
    return as_choice(value, "numbering", TAX_YEAR_NUMBERINGS, CITE_FORM_YEAR)


def tax_year(period_end: DateLike, numbering: str = "form") -> TaxYear:
    """The tax year N of the return for a privilege period ending on ``period_end``.

    Form CBT-100 numbering (default): a period ending in July-December of N, or in
    January-June of N+1, is tax year N (the 2022 CBT-100 covers periods ending July 31,
    2022 through June 30, 2023; a period ending July 8-24, 2022, not deemed to a month
    end, is read as 2022 as well).
    ``numbering="calendar"``: the calendar year in which the period ends.

    A 52-53-week year is numbered by the day it is deemed to end (N.J.A.C. 18:7-2.3(b),
    :func:`deemed_period_end_rule`): a period ending Saturday 2023-07-01 is deemed to end
    2023-06-30 and is tax year 2022; one ending 2023-07-08 is tax year 2023.
    """
    given_end = as_date(period_end, "period_end", CITE_FORM_YEAR)
    kind = _numbering(numbering)
    end = deemed_period_end_rule(EXACT, given_end)
    deemed = _deemed_text(given_end, end)
    citation = f"{CITE_FORM_YEAR}; {CITE_52_53_WEEK}" if deemed else CITE_FORM_YEAR
    year = _year_numbered(end, kind)
    if kind == "calendar":
        how = f"period ends {end}: calendar year {year} (numbering by the calendar year)"
    elif end.month >= FORM_YEAR_FIRST_MONTH:
        how = f"period ends {end}, in July-December {year}: form year {year}"
    else:
        how = f"period ends {end}, in January-June {end.year}: form year {year}"
    if deemed:  # "period ends 2023-07-01, 1 day after ...: deemed to end 2023-06-30; in ..."
        how = deemed + how.split(f"period ends {end}", 1)[1].lstrip(",: ")
    step = Step(label="Tax year of the return", value=year, arithmetic=how, citation=citation)
    return TaxYear(year=year, period_end=given_end, numbering=kind, deemed_end=end, steps=(step,))


def _year_numbered(deemed_end: dt.date, kind: str) -> int:
    """The number of the tax year of a period deemed to end on ``deemed_end`` (:func:`tax_year`)."""
    if kind == "calendar" or deemed_end.month >= FORM_YEAR_FIRST_MONTH:
        return deemed_end.year
    return deemed_end.year - 1


def tax_year_number(period_end: DateLike, numbering: str = "form") -> int:
    """:func:`tax_year` as a number (its explanation not built)."""
    given_end = as_date(period_end, "period_end", CITE_FORM_YEAR)
    kind = _numbering(numbering)
    return _year_numbered(deemed_period_end_rule(EXACT, given_end), kind)


def year_end_month(value: Number, argument: str = "year_end_month") -> int:
    """A filer's year-end month, 1 (January) to 12 (December)."""
    rule = "must be the month the filer's privilege period ends, 1 (January) to 12 (December)"
    return as_int(value, argument, CITE_FORM_YEAR, low=1, high=12, rule=rule)


def period_end_for(tax_year_: Number, month: Number = 12, numbering: str = "form") -> dt.date:
    """The last day of the privilege period numbered ``tax_year_`` for a filer whose year
    ends on the last day of ``month``: the inverse of :func:`tax_year`.

    Form numbering: month July-December ends in year N, January-June in N+1 (tax year
    2022 of a June-30 filer ends 2023-06-30); calendar numbering: in year N.
    """
    year = _tax_year_number(tax_year_)
    return _period_end(tax_year_, year, year_end_month(month), _numbering(numbering))


def period_end_in(tax_year_: Number, month: int, numbering: str) -> dt.date:
    """:func:`period_end_for` where the month and the numbering are already read (by
    :func:`year_end_month` and as one of :data:`TAX_YEAR_NUMBERINGS`): a schedule's ends,
    one a tax year, without reading them again for each."""
    return _period_end(tax_year_, _tax_year_number(tax_year_), month, numbering)


def _tax_year_number(tax_year_: Number) -> int:
    return as_int(tax_year_, "tax_year", CITE_FORM_YEAR, low=1900, high=9998)


def _period_end(tax_year_: Number, year: int, chosen: int, kind: str) -> dt.date:
    ends_in = year + 1 if kind == "form" and chosen < FORM_YEAR_FIRST_MONTH else year
    end = dt.date(ends_in, chosen, calendar.monthrange(ends_in, chosen)[1])
    return within_dates(
        end,
        f"the last day of tax year {year} ({kind} numbering)",
        "tax_year",
        tax_year_,
        CITE_FORM_YEAR,
    )
