"""``nj-incentives explain``: one result from the command line, with its steps and citations.

Each topic maps command-line arguments onto one function of the calculation core and
prints what it returns: the result (a table where the result is a schedule), then the
numbered steps, each with its arithmetic and the subsection of law behind it. Input
errors print the core's message (argument, value, rule, citation) and exit with 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from pydantic import BaseModel

from nj_incentives import LAW_CURRENT_TO, __version__
from nj_incentives.law import beip, cbt, ertc
from nj_incentives.law.common import Explained, InputError

__all__ = ["add_arguments", "render", "run"]


def _list(text: str) -> list[str]:
    """``"1000000, 1100000"`` -> ``["1000000", "1100000"]`` (blanks kept as "")."""
    return [item.strip() for item in text.split(",")]


def _periods(text: str) -> list[ertc.PrivilegePeriod]:
    """``END:LIABILITY:OTHER:MINIMUM,...`` -> privilege periods (validated by the core)."""
    periods: list[ertc.PrivilegePeriod] = []
    for number, item in enumerate(_list(text), 1):
        fields = item.split(":")
        if len(fields) != 4:
            raise InputError(
                "--periods",
                item,
                f"period {number} must be END:LIABILITY:OTHER_CREDITS:MINIMUM_TAX",
            )
        end, liability, other, minimum = fields
        periods.extend(ertc.privilege_periods([end], [liability], [other], [minimum]))
    return periods


# Each topic: (help, arguments to add, function of the parsed arguments -> result)
Topic = tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[Any], Explained]]


def _conversion_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("accrual_year", help="calendar year the grant accrued, 2008-2025")
    p.add_argument("amount", help="approved amount accrued but not paid, in dollars")
    p.add_argument("--approval-date", help="date the amount was approved (YYYY-MM-DD)")


def _grant_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("withholdings", help="withholdings of the business for the year, dollars")
    p.add_argument("pct", help="grant percentage of withholdings as a fraction (0.5 = 50%%)")
    p.add_argument("--partner-tax", default="0", help="partners' estimated tax, dollars")
    p.add_argument("--partner-pct", default="0", help="grant percentage of partners' tax")
    p.add_argument("--smart-growth", action="store_true", help="the grant promotes smart growth")


def _grant_schedule_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--withholdings", required=True, type=_list, help="one per year, commas")
    p.add_argument("--new-employees", required=True, type=_list, help="certified, one per year")
    p.add_argument("--pct", required=True, help="grant percentage of withholdings (fraction)")
    p.add_argument("--agreement-date", required=True, help="date of the agreement (YYYY-MM-DD)")
    p.add_argument("--partner-tax", type=_list, help="partners' estimated tax, one per year")
    p.add_argument("--partner-pct", default="0", help="grant percentage of partners' tax")
    p.add_argument("--smart-growth", action="store_true", help="the grant promotes smart growth")


def _combined_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("base_amount", help="withholdings (or partners' estimated tax), dollars")
    p.add_argument("other_grants", help="other State grants (not Customized Training), dollars")
    p.add_argument("basis", help='"withholdings" or "partners"')
    p.add_argument("--smart-growth", action="store_true", help="the grant promotes smart growth")


def _credit_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("credit", help="BEIP tax credit issued for the period, dollars")
    p.add_argument("tax_liability", help="tax liability otherwise due, dollars")


def _transfer_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("certificate_amount", help="amount of the transfer certificate, dollars")
    p.add_argument("transfer_amount", help="amount of credit sold or assigned, dollars")
    p.add_argument("consideration", help="price received, dollars")
    p.add_argument("--discount-rate", default="0", help="annual rate to present value")
    p.add_argument("--years", default="0", help="years discounted")


def _remote_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("election_date", help="date of the election (YYYY-MM-DD)")
    p.add_argument("share_at_facility", help="least share of time at the facility (fraction)")


def _ertc_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--operations-start", required=True, help="start of operations (YYYY-MM-DD)")
    p.add_argument("--year1-new", required=True, help="new full-time positions, credit year one")
    p.add_argument("--year2-new", required=True, help="new full-time positions, credit year two")
    p.add_argument(
        "--periods",
        required=True,
        type=_periods,
        help="privilege periods as END:LIABILITY:OTHER_CREDITS:MINIMUM_TAX, comma-separated",
    )
    p.add_argument("--carryforward-years", help="limit carryforward to N periods (default none)")
    p.add_argument("--fractional", action="store_true", help="count fractional positions")
    p.add_argument("--tax-type", default="cbt", help='"cbt" (default) or "insurance"')


def _min_tax_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("nj_gross_receipts", help="New Jersey gross receipts, dollars")
    p.add_argument("--s-corporation", action="store_true", help="the taxpayer is an S corporation")
    p.add_argument("--group-payroll", default="0", help="total payroll of the group, dollars")


TOPICS: dict[str, Topic] = {
    "conversion": (
        "conversion of an accrued grant to tax-credit installments, 34:1B-129e.",
        _conversion_args,
        lambda a: beip.conversion_schedule(a.accrual_year, a.amount, a.approval_date),
    ),
    "grant": (
        "annual BEIP grant, 34:1B-129a.-b.",
        _grant_args,
        lambda a: beip.annual_grant(
            a.withholdings, a.pct, a.partner_tax, a.partner_pct, a.smart_growth
        ),
    ),
    "grant-schedule": (
        "BEIP grant over its term with the $50,000 average cap, 34:1B-129a.-c.",
        _grant_schedule_args,
        lambda a: beip.grant_schedule(
            a.withholdings,
            a.new_employees,
            a.pct,
            a.agreement_date,
            a.smart_growth,
            a.partner_tax,
            a.partner_pct,
        ),
    ),
    "combined-limit": (
        "largest BEIP grant under the combined State grants limit, 34:1B-134",
        _combined_args,
        lambda a: beip.combined_limit(a.base_amount, a.other_grants, a.basis, a.smart_growth),
    ),
    "credit": (
        "BEIP credit applied against the tax and the overpayment, 34:1B-129f.",
        _credit_args,
        lambda a: beip.apply_credit(a.credit, a.tax_liability),
    ),
    "transfer": (
        "check a sale of a tax credit transfer certificate, 34:1B-129g.",
        _transfer_args,
        lambda a: beip.transfer_check(
            a.certificate_amount, a.transfer_amount, a.consideration, a.discount_rate, a.years
        ),
    ),
    "remote-work": (
        "check a remote-work election, 34:1B-129h.",
        _remote_args,
        lambda a: beip.remote_work_check(a.election_date, a.share_at_facility),
    ),
    "ertc": (
        "Economic Recovery Tax Credit over privilege periods, 52:27BBB-55",
        _ertc_args,
        lambda a: ertc.credit_schedule(
            a.operations_start,
            a.year1_new,
            a.year2_new,
            a.periods,
            a.carryforward_years,
            a.fractional,
            a.tax_type,
        ),
    ),
    "min-tax": (
        "CBT statutory minimum tax, 54:10A-5(e)",
        _min_tax_args,
        lambda a: cbt.minimum_tax(a.nj_gross_receipts, a.s_corporation, a.group_payroll),
    ),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one sub-command per topic to ``nj-incentives explain``."""
    topics = parser.add_subparsers(dest="topic", metavar="TOPIC", required=True)
    for name, (help_text, add, _compute) in TOPICS.items():
        add(topics.add_parser(name, help=help_text, description=help_text))


def run(args: argparse.Namespace) -> int:
    """Compute the topic's result and print it; exit 2 with the message on bad input."""
    compute = TOPICS[args.topic][2]
    try:
        result = compute(args)
    except InputError as error:
        print(f"nj-incentives explain {args.topic}: {error}", file=sys.stderr)
        return 2
    print(render(result))
    return 0


def _cell(value: object) -> str:
    if isinstance(value, BaseModel):
        fields = (name for name in type(value).model_fields if name != "steps")
        return ", ".join(
            f"{name.replace('_', ' ')} {_cell(getattr(value, name))}" for name in fields
        )
    if isinstance(value, Decimal):
        return f"{value:,.2f}" if value == value.quantize(Decimal("0.01")) else f"{value:f}"
    if value is None:
        return "-"
    return str(value)


def _table(rows: Sequence[Any]) -> list[str]:
    names = [name for name in type(rows[0]).model_fields if name != "note"]
    cells = [[_cell(getattr(row, name)) for name in names] for row in rows]
    widths = [max(len(name), *(len(line[i]) for line in cells)) for i, name in enumerate(names)]
    header = [name.replace("_", " ") for name in names]
    return [
        "  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True))
        for line in [header, *cells]
    ]


def render(result: Explained) -> str:
    """The result as text: its figures (a table for schedules), then its numbered steps."""
    lines: list[str] = []
    rows = getattr(result, "rows", None)
    for name in type(result).model_fields:
        if name in {"steps", "rows"}:
            continue
        lines.append(f"{name.replace('_', ' ')}: {_cell(getattr(result, name))}")
    if rows:
        lines += ["", *_table(rows)]
    lines += ["", "Steps:", result.explain(), "", f"nj-incentives {__version__}; {LAW_CURRENT_TO}"]
    return "\n".join(lines)
