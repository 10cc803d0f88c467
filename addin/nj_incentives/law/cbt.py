"""The Corporation Business Tax statutory minimum: N.J.S.A. 54:10A-5(e), N.J.A.C. 18:7-3.4(b).

For privilege periods beginning in calendar year 2012 and after, the minimum tax is set
by the taxpayer's New Jersey gross receipts, with a lower column for S corporations
(P.L.2011, c.84); a member of an affiliated or controlled group whose group payroll is
$5,000,000 or more pays $2,000 (N.J.A.C. 18:7-3.4(b)1). The Economic Recovery Tax
Credit may not reduce the tax below this minimum (N.J.S.A. 52:27BBB-55b.(3)).

The table is data, below, with its citation. Readings are recorded in
``docs/interpretations.md`` ("CBT statutory minimum").
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple, TypeAlias

from nj_incentives.law.common import (
    Explained,
    InputError,
    Number,
    Step,
    as_bool,
    as_int,
    as_money,
    fmt_money,
)

__all__ = [
    "GROUP_MINIMUM_TAX",
    "GROUP_PAYROLL_THRESHOLD",
    "MINIMUM_TAX_TABLE",
    "TABLE_FIRST_PERIOD_YEAR",
    "MinimumTax",
    "MinimumTaxBracket",
    "bracket_for",
    "minimum_tax",
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
MINIMUM_TAX_TABLE: tuple[MinimumTaxBracket, ...] = (
    MinimumTaxBracket(
        "less than $100,000", Decimal(0), Decimal(100_000), Decimal(500), Decimal(375)
    ),
    MinimumTaxBracket(
        "$100,000 to less than $250,000",
        Decimal(100_000),
        Decimal(250_000),
        Decimal(750),
        Decimal("562.50"),
    ),
    MinimumTaxBracket(
        "$250,000 to less than $500,000",
        Decimal(250_000),
        Decimal(500_000),
        Decimal(1_000),
        Decimal(750),
    ),
    MinimumTaxBracket(
        "$500,000 to less than $1,000,000",
        Decimal(500_000),
        Decimal(1_000_000),
        Decimal(1_500),
        Decimal(1_125),
    ),
    MinimumTaxBracket(
        "$1,000,000 or more", Decimal(1_000_000), None, Decimal(2_000), Decimal(1_500)
    ),
)
#: The table covers privilege periods beginning in this calendar year and after.
TABLE_FIRST_PERIOD_YEAR = 2012
#: N.J.A.C. 18:7-3.4(b)1: a member of an affiliated or controlled group (I.R.C. 1504 or
#: 1563) whose group has total payroll of $5,000,000 or more ...
GROUP_PAYROLL_THRESHOLD = Decimal(5_000_000)
#: ... pays a minimum tax of $2,000 (N.J.A.C. 18:7-3.4(b)1).
GROUP_MINIMUM_TAX = Decimal(2_000)


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
    group_rule_s = as_bool(group_rule_for_s_corporations, "group_rule_for_s_corporations")
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
