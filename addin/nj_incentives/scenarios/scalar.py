"""The scalar path: one scenario row at a time, straight through the calculation core.

This is the reference the kernel must equal, the source of every row error message
(the core's :class:`~nj_incentives.core.common.InputError` text), and the per-row loop
the benchmark compares with. A row's values are a mapping column -> plain Python value,
blank cells as None (:func:`nj_incentives.scenarios.convert.raw_values`).

Messages are the core's, with three additions that locate the value in the table:
the conversion's ``amount`` is named ``conversion_amount`` (its column); a credit
application error says which tax year ("tax year 2019: ..."), and a privilege-period
error which period ("period 2: ..."), as the core itself says "year 3: ..." for a grant
year. The runner's own limits (:mod:`nj_incentives.scenarios.columns`) raise an
``InputError`` whose citation is "scenario runner limit".
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from decimal import Decimal, localcontext
from typing import Any

from nj_incentives.core.common import InputError, as_date, as_money, as_number
from nj_incentives.core.rules import EXACT, Rules, V
from nj_incentives.functions.catalog import (
    CONVERSION_YEAR_COLUMNS,
    ERTC_PERIOD_COLUMNS,
    GRANT_YEAR_COLUMNS,
)
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.scenarios.columns import RUNNER_LIMIT, SECTIONS, Layout, input_rule

__all__ = [
    "RUNNER_LIMIT",
    "conversion",
    "credit",
    "ertc_schedule",
    "grant",
    "grown_rule",
    "next_period_end_rule",
    "run_row",
]

Values = Mapping[str, Any]
Outputs = dict[str, object]

_ZERO = Decimal("0.00")
_PERIOD_MEASURES = ("period_end", "liability", "other_credits", "minimum_tax")


# ----------------------------------------------------------------------- runner limits


def _get(values: Values, column: str) -> Any:
    """A cell of the row (None when blank or absent)."""
    return values.get(column)


def _or(value: Any, default: str) -> Any:
    """A switch cell, or the core's default where it is blank."""
    return default if value is None else value


def _money_limit(values: Values, column: str, amount: Decimal) -> None:
    """The column's declared bounds (the runner's money limit, columns.py); the message
    shows the cell (or the filled-in amount)."""
    shown = values.get(column)
    shown = amount if shown is None else shown
    if amount != amount.quantize(Decimal("0.01")):
        rule = "has fractions of a cent: the scenario runner takes money to the cent"
        raise InputError(column, shown, rule, RUNNER_LIMIT)
    input_rule(column).check_bounds(amount, shown, column)


def _count_limit(values: Values, column: str, count: Decimal | int) -> None:
    """The column's declared bounds (the runner's count limit, columns.py)."""
    shown = values.get(column)
    input_rule(column).check_bounds(count, count if shown is None else shown, column)


def _growth(values: Values, column: str) -> Decimal:
    """A fill-forward growth rate (a runner convenience, not law), as declared in columns.py."""
    value = _get(values, column)
    if value is None:
        return Decimal(0)
    rate: Decimal = input_rule(column).parse(value, column)
    return rate


def grown_rule(r: Rules, previous: V, growth: V) -> V:
    """Runner convenience (not law), for both evaluators: a filled-forward amount, the one
    before x (1 + ``growth``, a fraction from -1 to 1), rounded down to the cent."""
    return r.share(previous, r.add(1, growth))


def _fill_money(seq: list[Any], rate: Decimal) -> None:
    """Blank entries after the first filled from the one before by :func:`grown_rule`."""
    for k in range(1, len(seq)):
        if seq[k] is None and seq[k - 1] is not None:
            try:
                previous = as_money(seq[k - 1], "value")
            except InputError:
                seq[k] = seq[k - 1]  # the core reports the earlier value
                continue
            with localcontext() as context:
                context.prec = 80  # exact: a rate may have up to 40 decimals
                seq[k] = grown_rule(EXACT, previous, rate)


def _fill_copy(seq: list[Any]) -> None:
    for k in range(1, len(seq)):
        if seq[k] is None and seq[k - 1] is not None:
            seq[k] = seq[k - 1]


def next_period_end_rule(r: Rules, day: V) -> V:
    """Runner convenience (not law), for both evaluators: the period end after ``day``,
    the same day a year later; a month's last day stays its month's last day."""
    later = r.add_months(day, 12)
    return r.where(r.eq(day, r.month_end(day)), r.month_end(later), later)


def next_period_end(day: dt.date) -> dt.date:
    """The same day a year later; a month's last day stays its month's last day."""
    end: dt.date = next_period_end_rule(EXACT, day)
    return end


def _fill_dates(seq: list[Any]) -> None:
    for k in range(1, len(seq)):
        if seq[k] is None and seq[k - 1] is not None:
            try:
                seq[k] = next_period_end(as_date(seq[k - 1], "value"))
            except InputError:
                seq[k] = seq[k - 1]


def _last_given(values: Values, prefixes: tuple[str, ...]) -> int:
    last = 0
    for column, value in values.items():
        match = re.fullmatch(r"(.+)_(\d+)", column)
        if match and match.group(1) in prefixes and value is not None:
            last = max(last, int(match.group(2)))
    return last


def _located(error: InputError, where: str, argument: str | None = None) -> InputError:
    """The core's error with its location ("period 2: ...") and, optionally, the column."""
    return InputError(
        argument or error.argument, error.value, f"{where}: {error.rule}", error.citation
    )


# =========================================================================== grant


def grant(values: Values) -> Outputs:
    """The grant section of one row: ``beip.grant_schedule`` (34:1B-129a.-c.)."""
    rate_w = _growth(values, "withholdings_growth")
    rate_p = _growth(values, "partner_tax_growth")
    term_value = _get(values, "term")
    if term_value is not None:
        term = beip.validate_term(term_value)
    else:
        term = _last_given(values, ("withholdings", "new_employees", "partner_tax"))
    years = range(1, term + 1)
    withholdings: list[Any] = [_get(values, f"withholdings_{k}") for k in years]
    employees: list[Any] = [_get(values, f"new_employees_{k}") for k in years]
    partner_tax: list[Any] = [_get(values, f"partner_tax_{k}") for k in years]
    if term_value is not None:
        _fill_money(withholdings, rate_w)
        _fill_copy(employees)
        _fill_money(partner_tax, rate_p)
    smart = _get(values, "smart_growth")
    partner_pct = _get(values, "partner_pct")
    schedule = beip.grant_schedule(
        withholdings,
        employees,
        _get(values, "pct"),
        _get(values, "agreement_date"),
        smart_growth=False if smart is None else smart,
        partner_tax=None if all(v is None for v in partner_tax) else partner_tax,
        partner_pct=0 if partner_pct is None else partner_pct,
        cap_method=_or(_get(values, "cap_method"), "per_year"),
        law_as_of=_get(values, "law_as_of"),
    )
    for row in schedule.rows:
        _money_limit(values, f"withholdings_{row.year}", row.withholdings)
        _money_limit(values, f"partner_tax_{row.year}", row.partner_tax)
        _count_limit(values, f"new_employees_{row.year}", row.new_employees)
    before = sum((row.grant_before_cap for row in schedule.rows), _ZERO)
    out: Outputs = {
        "grant_term": schedule.term,
        "grant_cap_applies": schedule.cap_applies,
        "grant_before_cap_total": before,
        "grant_total": schedule.total,
        "grant_cap_reduction": before - schedule.total,
        "grant_version": schedule.version,
    }
    for row in schedule.rows:
        for column in GRANT_YEAR_COLUMNS:
            out[f"{column.scenario}_{row.year}"] = getattr(row, column.field)
    return out


# =========================================================================== conversion


def conversion(values: Values, layout: Layout) -> Outputs:
    """The conversion section of one row: ``beip.conversion_schedule`` (34:1B-129e.)."""
    try:
        schedule = beip.conversion_schedule(
            _get(values, "accrual_year"),
            _get(values, "conversion_amount"),
            _get(values, "approval_date"),
            grant_approval_date=_get(values, "grant_approval_date"),
            direction_date=_get(values, "direction_date"),
            direction_deadline=_or(_get(values, "direction_deadline"), "published"),
        )
    except InputError as error:
        if error.argument == "amount":
            raise InputError("conversion_amount", error.value, error.rule, error.citation) from None
        raise
    _money_limit(values, "conversion_amount", schedule.total)
    out: Outputs = {
        "conversion_paragraph": schedule.paragraph,
        "conversion_first_year": schedule.first_tax_year,
        "conversion_total": sum((row.amount for row in schedule.rows), _ZERO),
    }
    outside = sorted({row.tax_year for row in schedule.rows} - set(layout.tax_years))
    if outside:  # pragma: no cover - the layout is planned from the same rows
        raise InputError(
            "approval_date", _get(values, "approval_date"), "outside the run's tax years"
        )
    for column in CONVERSION_YEAR_COLUMNS:
        by_year = {row.tax_year: getattr(row, column.field) for row in schedule.rows}
        for tax_year in layout.tax_years:
            out[f"{column.scenario}_{tax_year}"] = by_year.get(tax_year, _ZERO)
    return out


# =========================================================================== credit


_CONVERSION_COLUMNS = ("accrual_year", "conversion_amount", "approval_date")
#: the conversion's installment of each tax year, the catalog's result column
(_INSTALLMENT,) = (column.scenario for column in CONVERSION_YEAR_COLUMNS)


def credit(values: Values, layout: Layout) -> Outputs | None:
    """The credit section of one row: each installment through ``beip.apply_credit`` (f.).

    None when the row's conversion itself failed (its error is already reported).
    """
    if all(_get(values, column) is None for column in _CONVERSION_COLUMNS):
        rule = (
            "is required to apply credits: tax_liability_YYYY is given but no conversion"
            " (accrual_year, conversion_amount)"
        )
        raise InputError("conversion_amount", None, rule, beip.CITE_F)
    try:
        converted = conversion(values, layout)
    except InputError:
        return None
    out: Outputs = {}
    applied_total, refund_total = _ZERO, _ZERO
    floor = _get(values, "credit_minimum_tax")
    if floor is not None:
        _money_limit(values, "credit_minimum_tax", as_money(floor, "credit_minimum_tax"))
    for tax_year in layout.tax_years:
        installment = converted[f"{_INSTALLMENT}_{tax_year}"]
        assert isinstance(installment, Decimal)
        liability = _get(values, f"tax_liability_{tax_year}")
        if liability is None and installment == 0:
            applied, refund = _ZERO, _ZERO
        else:
            try:
                result = beip.apply_credit(installment, liability, 0 if floor is None else floor)
            except InputError as error:
                column = f"tax_liability_{tax_year}"
                raise _located(error, f"tax year {tax_year}", column) from None
            _money_limit(values, f"tax_liability_{tax_year}", result.tax_liability)
            applied, refund = result.applied, result.overpayment
        out[f"credit_applied_{tax_year}"] = applied
        out[f"credit_refund_{tax_year}"] = refund
        applied_total += applied
        refund_total += refund
    return {"credit_applied_total": applied_total, "credit_refund_total": refund_total, **out}


# =========================================================================== ertc


def ertc_schedule(values: Values, layout: Layout) -> Outputs:
    """The ERTC section of one row: ``ertc.credit_schedule`` (52:27BBB-55b., c.)."""
    rate = _growth(values, "liability_growth")
    count_value = _get(values, "periods")
    if count_value is not None:
        count = input_rule("periods").parse(count_value, "periods")
    else:
        count = _last_given(values, _PERIOD_MEASURES)
    numbers = range(1, count + 1)
    seqs: dict[str, list[Any]] = {
        m: [_get(values, f"{m}_{k}") for k in numbers] for m in _PERIOD_MEASURES
    }
    if count_value is not None:
        _fill_dates(seqs["period_end"])
        _fill_money(seqs["liability"], rate)
        _fill_copy(seqs["other_credits"])
        _fill_copy(seqs["minimum_tax"])
    seqs["other_credits"] = [_ZERO if v is None else v for v in seqs["other_credits"]]
    ends, liabilities = seqs["period_end"], seqs["liability"]
    others, minimums = seqs["other_credits"], seqs["minimum_tax"]
    for k in numbers:
        try:
            ertc.privilege_periods(
                [ends[k - 1]],
                [liabilities[k - 1]],
                [others[k - 1]],
                [minimums[k - 1]],
            )
        except InputError as error:
            raise _located(error, f"period {k}") from None
    periods = ertc.privilege_periods(ends, liabilities, others, minimums)
    carry = _get(values, "carryforward_years")
    fractional = _get(values, "fractional")
    tax_type = _get(values, "tax_type")
    schedule = ertc.credit_schedule(
        _get(values, "operations_start"),
        _get(values, "year1_new"),
        _get(values, "year2_new"),
        periods,
        carryforward_years=carry,
        fractional=False if fractional is None else fractional,
        tax_type="cbt" if tax_type is None else tax_type,
        ratio_fractional=_get(values, "ratio_fractional"),
        refund_period_limit=_or(_get(values, "refund_period_limit"), "b3"),
        opening_carried=[_get(values, "opening_year1"), _get(values, "opening_year2")],
        opening_before=[_get(values, "opening_year1_before"), _get(values, "opening_year2_before")],
    )
    for column in ("year1_new", "year2_new"):
        _count_limit(values, column, as_number(_get(values, column), column))
    for k, period in enumerate(periods, 1):
        _money_limit(values, f"liability_{k}", period.liability)
        _money_limit(values, f"other_credits_{k}", period.other_credits)
        _money_limit(values, f"minimum_tax_{k}", period.minimum_tax)
    for column in ("opening_year1", "opening_year2"):
        if _get(values, column) is not None:
            _money_limit(values, column, as_money(_get(values, column), column, ertc.CITE_B2))
    one, two = schedule.allowed_in  # b.(1); negative: before period 1 (carried in)
    out: Outputs = {
        "ertc_year1_credit": schedule.year_one_credit,
        "ertc_year2_credit": schedule.year_two_credit,
        "ertc_sustained_effort_ratio": float(schedule.sustained_effort_ratio),
        "ertc_year1_period": one + 1,
        "ertc_year2_period": two + 1,
        "ertc_credits_allowed": schedule.credits_allowed,
        "ertc_used": schedule.used,
        "ertc_refunded": schedule.refunded,
        "ertc_expired": schedule.expired,
        "ertc_carried_forward": schedule.carried_out,
    }
    for k, row in enumerate(schedule.rows, 1):
        for period_column in ERTC_PERIOD_COLUMNS:
            out[f"{period_column.scenario}_{k}"] = getattr(row, period_column.field)
    return out


# =========================================================================== a row


def section(name: str, values: Values, layout: Layout) -> Outputs | None:
    """One section of one row (raises the core's InputError)."""
    if name == "grant":
        return grant(values)
    if name == "conversion":
        return conversion(values, layout)
    if name == "credit":
        return credit(values, layout)
    if name == "ertc":
        return ertc_schedule(values, layout)
    raise ValueError(name)  # pragma: no cover


def run_row(
    values: Values, layout: Layout, present: Mapping[str, bool]
) -> tuple[Outputs, list[str]]:
    """Every present section of one row: (results, error messages in section order)."""
    out: Outputs = {}
    errors: list[str] = []
    for name in SECTIONS:
        if not present.get(name):
            continue
        try:
            result = section(name, values, layout)
        except InputError as error:
            errors.append(str(error))
            continue
        except (ArithmeticError, ValueError, TypeError, OverflowError, KeyError) as error:
            # not an input error the core foresaw: still only this row's error
            first_line = (str(error).strip().splitlines() or [""])[0][:160]
            errors.append(
                f"{name} = (this row): could not be computed ({type(error).__name__}: "
                f"{first_line}); please report it ({RUNNER_LIMIT})"
            )
            continue
        if result is not None:
            out.update(result)
    return out, errors
