"""``nj-incentives explain``: one result from the command line, with its steps and citations.

Each topic maps command-line arguments onto one function of the calculation core and
prints what it returns: the result (a table where the result is a schedule), then the
numbered steps, each with its arithmetic and the subsection of law behind it (``--json``:
the same as one JSON document, amounts as exact decimal text). Percentages are taken as
fractions (0.5) or percents (50%). Input errors print the core's message (argument, value,
rule, citation) and exit with 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import click
from pydantic import BaseModel

from nj_incentives.cli import EXIT_OK, EXIT_USAGE, Fraction, json_option
from nj_incentives.law import beip, cbt, ertc
from nj_incentives.law.common import Explained, InputError
from nj_incentives.version import LAW_CURRENT_TO, __version__

__all__ = ["TOPICS", "command", "render"]


def _list(text: str) -> list[str]:
    """``"1000000, 1100000"`` -> ``["1000000", "1100000"]`` (blanks kept as "")."""
    return [item.strip() for item in text.split(",")]


class _List(click.ParamType):  # type: ignore[type-arg]
    """Comma-separated values, one per year (blanks kept)."""

    name = "list"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "V1,V2,..."

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return _list(value) if isinstance(value, str) else value


class _Periods(click.ParamType):  # type: ignore[type-arg]
    """``END:LIABILITY:OTHER:MINIMUM,...`` -> privilege periods (validated by the core)."""

    name = "periods"
    FORMAT = "END:LIABILITY:OTHER_CREDITS:MINIMUM_TAX per period, comma-separated"
    EXAMPLE = "2024-12-31:10000:0:2000,2025-12-31:50000:0:2000"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "END:LIABILITY:OTHER:MINIMUM,..."

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        periods: list[ertc.PrivilegePeriod] = []
        for number, item in enumerate(_list(value), 1):
            fields = item.split(":")
            if len(fields) != 4:
                self.fail(
                    f"period {number} {item!r} has {len(fields)} field(s); expected "
                    f"{self.FORMAT}, e.g. {self.EXAMPLE}",
                    param,
                    ctx,
                )
            end, liability, other, minimum = fields
            try:
                periods.extend(ertc.privilege_periods([end], [liability], [other], [minimum]))
            except InputError as error:
                self.fail(f"period {number} {item!r}: {error} (expected {self.FORMAT})", param, ctx)
        return periods


FRACTION = Fraction()
LIST = _List()

# Each topic: (help, its parameters, function of the parsed arguments -> result)
Topic = tuple[str, list[click.Parameter], Callable[[Any], Explained]]


def _arg(name: str, help_text: str, type: Any = None) -> click.Argument:
    argument = click.Argument([name], type=type, metavar=name.upper())
    argument.help = help_text
    return argument


def _opt(*names: str, help: str, **kwargs: Any) -> click.Option:
    return click.Option(list(names), help=help, **kwargs)


def _smart() -> click.Option:
    return _opt("--smart-growth", is_flag=True, help="the grant promotes smart growth")


_CONVERSION: list[click.Parameter] = [
    _arg("accrual_year", "calendar year the grant accrued, 2008-2025"),
    _arg("amount", "approved amount accrued but not paid, in dollars"),
    _opt("--approval-date", help="date the amount was approved (YYYY-MM-DD)"),
]
_GRANT: list[click.Parameter] = [
    _arg("withholdings", "withholdings of the business for the year, dollars"),
    _arg("pct", "grant percentage of withholdings: 0.5 or 50%", FRACTION),
    _opt("--partner-tax", default="0", help="partners' estimated tax, dollars"),
    _opt("--partner-pct", default="0", type=FRACTION, help="grant percentage of partners' tax"),
    _smart(),
]
_GRANT_SCHEDULE: list[click.Parameter] = [
    _opt("--withholdings", required=True, type=LIST, help="one per year, commas"),
    _opt("--new-employees", required=True, type=LIST, help="certified, one per year, commas"),
    _opt("--pct", required=True, type=FRACTION, help="grant percentage of withholdings"),
    _opt("--agreement-date", required=True, help="date of the agreement (YYYY-MM-DD)"),
    _opt("--partner-tax", type=LIST, help="partners' estimated tax, one per year, commas"),
    _opt("--partner-pct", default="0", type=FRACTION, help="grant percentage of partners' tax"),
    _smart(),
]
_COMBINED: list[click.Parameter] = [
    _arg("base_amount", "withholdings (or partners' estimated tax), dollars"),
    _arg("other_grants", "other State grants (not Customized Training), dollars"),
    _arg("basis", '"withholdings" or "partners"'),
    _smart(),
]
_CREDIT: list[click.Parameter] = [
    _arg("credit", "BEIP tax credit issued for the period, dollars"),
    _arg("tax_liability", "tax liability otherwise due, dollars"),
]
_TRANSFER: list[click.Parameter] = [
    _arg("certificate_amount", "amount of the transfer certificate, dollars"),
    _arg("transfer_amount", "amount of credit sold or assigned, dollars"),
    _arg("consideration", "price received, dollars"),
    _opt("--discount-rate", default="0", type=FRACTION, help="annual rate to present value"),
    _opt("--years", default="0", help="years discounted"),
]
_REMOTE: list[click.Parameter] = [
    _arg("election_date", "date of the election (YYYY-MM-DD)"),
    _arg("share_at_facility", "least share of time at the facility: 0.6 or 60%", FRACTION),
]
_ERTC: list[click.Parameter] = [
    _opt("--operations-start", required=True, help="start of operations (YYYY-MM-DD)"),
    _opt("--year1-new", required=True, help="new full-time positions, credit year one"),
    _opt("--year2-new", required=True, help="new full-time positions, credit year two"),
    _opt("--periods", required=True, type=_Periods(), help="privilege periods: " + _Periods.FORMAT),
    _opt("--carryforward-years", help="limit carryforward to N periods (default none)"),
    _opt("--fractional", is_flag=True, help="count fractional positions"),
    _opt("--tax-type", default="cbt", help='"cbt" (default) or "insurance"'),
]
_MIN_TAX: list[click.Parameter] = [
    _arg("nj_gross_receipts", "New Jersey gross receipts, dollars"),
    _opt("--s-corporation", is_flag=True, help="the taxpayer is an S corporation"),
    _opt("--group-payroll", default="0", help="total payroll of the group, dollars"),
]


TOPICS: dict[str, Topic] = {
    "conversion": (
        "conversion of an accrued grant to tax-credit installments, 34:1B-129e.",
        _CONVERSION,
        lambda a: beip.conversion_schedule(a.accrual_year, a.amount, a.approval_date),
    ),
    "grant": (
        "annual BEIP grant, 34:1B-129a.-b.",
        _GRANT,
        lambda a: beip.annual_grant(
            a.withholdings, a.pct, a.partner_tax, a.partner_pct, a.smart_growth
        ),
    ),
    "grant-schedule": (
        "BEIP grant over its term with the $50,000 average cap, 34:1B-129a.-c.",
        _GRANT_SCHEDULE,
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
        _COMBINED,
        lambda a: beip.combined_limit(a.base_amount, a.other_grants, a.basis, a.smart_growth),
    ),
    "credit": (
        "BEIP credit applied against the tax and the overpayment, 34:1B-129f.",
        _CREDIT,
        lambda a: beip.apply_credit(a.credit, a.tax_liability),
    ),
    "transfer": (
        "check a sale of a tax credit transfer certificate, 34:1B-129g.",
        _TRANSFER,
        lambda a: beip.transfer_check(
            a.certificate_amount, a.transfer_amount, a.consideration, a.discount_rate, a.years
        ),
    ),
    "remote-work": (
        "check a remote-work election, 34:1B-129h.",
        _REMOTE,
        lambda a: beip.remote_work_check(a.election_date, a.share_at_facility),
    ),
    "ertc": (
        "Economic Recovery Tax Credit over privilege periods, 52:27BBB-55",
        _ERTC,
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
        _MIN_TAX,
        lambda a: cbt.minimum_tax(a.nj_gross_receipts, a.s_corporation, a.group_payroll),
    ),
}


def _topic_command(name: str, topic: Topic) -> click.Command:
    help_text, params, compute = topic

    def callback(as_json: bool, **values: Any) -> int:
        return _run(name, compute, SimpleNamespace(**values), as_json)

    command = click.Command(
        name,
        callback=callback,
        params=[*params],
        help=help_text,
        short_help=help_text,
    )
    return json_option(command)  # type: ignore[no-any-return]


@click.group(
    "explain",
    help="Compute one result and print it with its steps and citations. Percentages are "
    "fractions (0.5) or percents (50%).",
)
def command() -> None:
    """``nj-incentives explain TOPIC``."""


for _name, _topic in TOPICS.items():
    command.add_command(_topic_command(_name, _topic))


def _run(topic: str, compute: Callable[[Any], Explained], values: Any, as_json: bool) -> int:
    """Compute the topic's result and print it; exit 2 with the message on bad input."""
    try:
        result = compute(values)
    except InputError as error:
        print(f"nj-incentives explain {topic}: {error}", file=sys.stderr)
        if as_json:
            print(json.dumps({"topic": topic, "ok": False, "error": str(error)}))
        return EXIT_USAGE
    if as_json:
        document = {
            "topic": topic,
            "ok": True,
            "result": result.model_dump(mode="json"),
            "version": __version__,
            "law_current_to": LAW_CURRENT_TO,
        }
        print(json.dumps(document, indent=2))
    else:
        print(render(result))
    return EXIT_OK


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
