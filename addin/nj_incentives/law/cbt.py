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
from decimal import Decimal
from typing import NamedTuple, TypeAlias

from nj_incentives.law import parameters as P
from nj_incentives.law.common import (
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
)

__all__ = [
    "FORM_YEAR_FIRST_MONTH",
    "GROUP_MINIMUM_TAX",
    "GROUP_PAYROLL_THRESHOLD",
    "MINIMUM_TAX_TABLE",
    "TABLE_FIRST_PERIOD_YEAR",
    "TAX_YEAR_NUMBERINGS",
    "MinimumTax",
    "MinimumTaxBracket",
    "TaxYear",
    "bracket_for",
    "minimum_tax",
    "period_end_for",
    "tax_year",
    "tax_year_number",
    "year_end_month",
]

CITE_MINIMUM = "N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b)"
CITE_S_CORPORATION = f"{CITE_MINIMUM}; P.L.2011, c.84"
CITE_GROUP = "N.J.A.C. 18:7-3.4(b)1"
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
    MinimumTaxBracket(*row) for row in P.MINIMUM_TAX_TABLE.single
)
#: The table covers privilege periods beginning in this calendar year and after.
TABLE_FIRST_PERIOD_YEAR = P.TABLE_FIRST_PERIOD_YEAR.single
#: N.J.A.C. 18:7-3.4(b)1: a member of an affiliated or controlled group (I.R.C. 1504 or
#: 1563) whose group has total payroll of $5,000,000 or more ...
GROUP_PAYROLL_THRESHOLD = P.GROUP_PAYROLL_THRESHOLD.single
#: ... pays a minimum tax of $2,000 (N.J.A.C. 18:7-3.4(b)1).
GROUP_MINIMUM_TAX = P.GROUP_MINIMUM_TAX.single


class MinimumTax(Explained):
    """The statutory minimum tax (``amount``) and how it was found."""

    amount: Decimal
    #: The gross-receipts bracket, as the table states it.
    bracket: str
    s_corporation: bool
    #: Whether the $2,000 group-payroll minimum applies (N.J.A.C. 18:7-3.4(b)1).
    group_rule_applied: bool


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
) -> MinimumTax:
    """The CBT statutory minimum tax, N.J.S.A. 54:10A-5(e) and N.J.A.C. 18:7-3.4(b).

    By New Jersey gross receipts (C corporation or S corporation column); $2,000 for a
    member of a group whose total payroll (``group_payroll``; 0 when not a member) is
    $5,000,000 or more (N.J.A.C. 18:7-3.4(b)1). Whether the group rule reaches S
    corporations is uncertain: ``group_rule_for_s_corporations`` (default True) is the
    switch. The table is for privilege periods beginning in 2012 and after
    (``period_start_year``, default: assumed).
    """
    _check_period_start(period_start_year)
    receipts = as_money(nj_gross_receipts, "nj_gross_receipts", CITE_MINIMUM)
    is_s = as_bool(s_corporation, "s_corporation", CITE_S_CORPORATION)
    payroll = as_money(group_payroll, "group_payroll", CITE_GROUP)
    group_rule_s = as_bool(
        group_rule_for_s_corporations, "group_rule_for_s_corporations", CITE_READING
    )
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
    group_applies = payroll >= GROUP_PAYROLL_THRESHOLD and (not is_s or group_rule_s)
    amount = max(table_amount, GROUP_MINIMUM_TAX) if group_applies else table_amount
    steps.append(_group_step(payroll, is_s, group_rule_s, group_applies, amount))
    return MinimumTax(
        amount=amount,
        bracket=row.label,
        s_corporation=is_s,
        group_rule_applied=group_applies,
        steps=tuple(steps),
    )


def _check_period_start(period_start_year: Number | None) -> None:
    """The table covers privilege periods beginning in 2012 and after."""
    if period_start_year is None:
        return
    year = as_int(period_start_year, "period_start_year", CITE_MINIMUM)
    if year < TABLE_FIRST_PERIOD_YEAR:
        rule = (
            f"the minimum-tax table covers privilege periods beginning in "
            f"{TABLE_FIRST_PERIOD_YEAR} and after"
        )
        raise InputError("period_start_year", period_start_year, rule, CITE_MINIMUM)


def _group_step(
    payroll: Decimal, is_s: bool, group_rule_s: bool, applies: bool, amount: Decimal
) -> Step:
    threshold = fmt_money(GROUP_PAYROLL_THRESHOLD)
    if payroll < GROUP_PAYROLL_THRESHOLD:
        how = f"group payroll {fmt_money(payroll)} < {threshold}: rule does not apply"
    elif is_s and not group_rule_s:
        how = "S corporation, group rule switched off for S corporations"
    else:
        how = f"group payroll {fmt_money(payroll)} >= {threshold}: {fmt_money(GROUP_MINIMUM_TAX)}"
    citation = CITE_GROUP
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


class TaxYear(Explained):
    """The number of the return for a privilege period ending on ``period_end``."""

    year: int
    period_end: dt.date
    numbering: str


def _numbering(value: object) -> str:
    return as_choice(value, "numbering", TAX_YEAR_NUMBERINGS, CITE_FORM_YEAR)


def tax_year(period_end: DateLike, numbering: str = "form") -> TaxYear:
    """The tax year N of the return for a privilege period ending on ``period_end``.

    Form CBT-100 numbering (default): a period ending in July-December of N, or in
    January-June of N+1, is tax year N (the 2022 CBT-100 covers periods ending July 31,
    2022 through June 30, 2023; a period ending in July 2022 is read as 2022 as well).
    ``numbering="calendar"``: the calendar year in which the period ends.
    """
    end = as_date(period_end, "period_end", CITE_FORM_YEAR)
    kind = _numbering(numbering)
    if kind == "calendar":
        year = end.year
        how = f"period ends {end}: calendar year {year} (numbering by the calendar year)"
    elif end.month >= FORM_YEAR_FIRST_MONTH:
        year = end.year
        how = f"period ends {end}, in July-December {year}: form year {year}"
    else:
        year = end.year - 1
        how = f"period ends {end}, in January-June {end.year}: form year {year}"
    step = Step(label="Tax year of the return", value=year, arithmetic=how, citation=CITE_FORM_YEAR)
    return TaxYear(year=year, period_end=end, numbering=kind, steps=(step,))


def tax_year_number(period_end: DateLike, numbering: str = "form") -> int:
    """:func:`tax_year` as a number."""
    return tax_year(period_end, numbering).year


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
    year = as_int(tax_year_, "tax_year", CITE_FORM_YEAR, low=1900, high=9998)
    chosen = year_end_month(month)
    kind = _numbering(numbering)
    ends_in = year + 1 if kind == "form" and chosen < FORM_YEAR_FIRST_MONTH else year
    return dt.date(ends_in, chosen, calendar.monthrange(ends_in, chosen)[1])
