"""The ERTC's section of the scenario table: the credit over privilege periods (``ertc``,
N.J.S.A. 52:27BBB-55b., c.); its input columns, its result columns and its computation,
twice: the exact vectorized kernel over int64 cents (the core's rules run by the int64
evaluator) and the scalar path, one row through the core, which the kernel must equal and
which gives every row error message (the runner: :mod:`nj_incentives.scenarios`; the
vocabulary: :mod:`nj_incentives.core.scenario_sections`; docs/scenarios.md).

Exactness. Money is a count of cents; positions are integers / 10^8. The refund
``cents_down(remaining x y2 / y1)``, whose product can pass 2^63, is a float estimate
corrected exactly with the remainder computed modulo 2^64 (the int64 evaluator's
``muldiv_floor``). A privilege-period error of the scalar path says which period
("period 2: ..."), as the core itself says "year 3: ..." for a grant year.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import numpy as np

from nj_incentives.core.common import InputError, as_money, as_number
from nj_incentives.core.inputs import MAX_DATE, InputKind, InputRule
from nj_incentives.core.rules import Ratio
from nj_incentives.core.scenario_inputs import (
    GROWTH,
    MAX_MONEY_CENTS,
    PERIODS_INPUT,
    InputSpec,
    Kind,
    count_input,
    money_input,
    positions_input,
)
from nj_incentives.core.scenario_sections import (
    I64,
    INT64,
    SCALE,
    Columns,
    OutKind,
    Outputs,
    OutputSpec,
    RowLimits,
    Section,
    SectionOut,
    Shape,
    Values,
    next_period_end_rule,
)
from nj_incentives.core.scenario_sections import cell as _get
from nj_incentives.core.scenario_sections import fill_copy as _fill_copy
from nj_incentives.core.scenario_sections import fill_dates as _fill_dates
from nj_incentives.core.scenario_sections import fill_forward as _fill_forward
from nj_incentives.core.scenario_sections import fill_money as _fill_money
from nj_incentives.core.scenario_sections import grown as _grown
from nj_incentives.core.scenario_sections import last_given as _last_given
from nj_incentives.core.scenario_sections import located as _located
from nj_incentives.core.scenario_sections import nothing as _nothing
from nj_incentives.core.scenario_sections import or_default as _or
from nj_incentives.programs.ertc import figures as ERTC
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.ertc.functions import ERTC_PERIOD_COLUMNS

__all__ = [
    "INPUTS",
    "SECTIONS",
    "credit_year_ends",
    "ertc_kernel",
    "ertc_outputs",
    "ertc_row",
    "example_columns",
]

#: The program's input columns.
INPUTS: tuple[InputSpec, ...] = (
    # ------------------------------------------------------------------ ertc
    InputSpec(
        "operations_start",
        Kind.DATE,
        "ertc",
        "Date initial or expanded operations began (credit years follow it; 52:27BBB-55e.).",
        InputRule(InputKind.DATE, ertc.CITE_E),
    ),
    InputSpec(
        "year1_new",
        Kind.POSITIONS,
        "ertc",
        f"New full-time positions in credit year one ({ERTC.CREDIT_YEAR_ONE_AMOUNT.summary()} each;"
        " 52:27BBB-55a.).",
        positions_input(ertc.CITE_A),
    ),
    InputSpec(
        "year2_new",
        Kind.POSITIONS,
        "ertc",
        f"New full-time positions in credit year two"
        f" ({ERTC.CREDIT_YEAR_TWO_AMOUNT.summary()} each).",
        positions_input(ertc.CITE_A),
    ),
    InputSpec(
        "period_end_{k}",
        Kind.DATE,
        "ertc",
        "End date of privilege period k (strictly increasing).",
        InputRule(InputKind.DATE, ertc.CITE_B1),
        family="period",
    ),
    InputSpec(
        "liability_{k}",
        Kind.MONEY,
        "ertc",
        "Tax liability otherwise due for period k.",
        money_input(ertc.CITE_B3),
        family="period",
    ),
    InputSpec(
        "other_credits_{k}",
        Kind.MONEY,
        "ertc",
        "Other credits taken before this one in period k (blank = 0).",
        money_input(ertc.CITE_PRIORITY),
        family="period",
    ),
    InputSpec(
        "minimum_tax_{k}",
        Kind.MONEY,
        "ertc",
        "Statutory minimum tax of period k (54:10A-5(e)).",
        money_input(ertc.CITE_B3),
        family="period",
    ),
    InputSpec(
        "periods",
        Kind.COUNT,
        "ertc",
        "Convenience: the number of periods. With it, periods after it are ignored and"
        " blank period columns are filled forward from the period before (end date + 12"
        " months, liability x (1 + liability_growth), other credits and minimum tax"
        " repeated).",
        PERIODS_INPUT,
    ),
    InputSpec(
        "liability_growth",
        Kind.GROWTH,
        "ertc",
        "Convenience (with periods): growth of a filled-forward liability; default 0.",
        GROWTH,
        trigger=False,
    ),
    InputSpec(
        "carryforward_years",
        Kind.COUNT,
        "ertc",
        "Periods an unused credit may be carried forward (blank = no limit, the statute;"
        " 5 = the 2013 Form 313 instructions).",
        count_input(f"{ertc.CITE_B2}; {ertc.CITE_FORM_313}"),
        trigger=False,
    ),
    InputSpec(
        "opening_year1",
        Kind.MONEY,
        "ertc",
        "Unused credit of credit year one carried into period 1, allowed before it (a schedule"
        " that starts after credit year one ended, as a rolled-forward workpaper; blank = none:"
        " credit year one ends in a period given).",
        money_input(ertc.CITE_B2),
        trigger=False,
    ),
    InputSpec(
        "opening_year1_before",
        Kind.COUNT,
        "ertc",
        "Periods before period 1 in which credit year one's credit carried in was allowed"
        " (1 = the period just before); needed with carryforward_years.",
        count_input(ertc.CITE_B2),
        trigger=False,
    ),
    InputSpec(
        "opening_year2",
        Kind.MONEY,
        "ertc",
        "Unused credit of credit year two carried into period 1, allowed before it (a schedule"
        " that starts after credit year two ended, as a rolled-forward workpaper; blank = none:"
        " credit year two ends in a period given).",
        money_input(ertc.CITE_B2),
        trigger=False,
    ),
    InputSpec(
        "opening_year2_before",
        Kind.COUNT,
        "ertc",
        "Periods before period 1 in which credit year two's credit carried in was allowed"
        " (1 = the period just before); needed with carryforward_years.",
        count_input(ertc.CITE_B2),
        trigger=False,
    ),
    InputSpec(
        "fractional",
        Kind.BOOL,
        "ertc",
        "TRUE to price fractional positions; default FALSE (whole positions).",
        InputRule(InputKind.BOOLEAN, ertc.CITE_A),
        trigger=False,
    ),
    InputSpec(
        "tax_type",
        Kind.CHOICE,
        "ertc",
        '"cbt" (default) or "insurance".',
        InputRule(InputKind.CHOICE, ertc.CITE_A, choices=ertc.TAX_TYPES),
        trigger=False,
    ),
    InputSpec(
        "ratio_fractional",
        Kind.BOOL,
        "ertc",
        "TRUE: the sustained effort ratio from the measured, fractional positions; FALSE:"
        " whole positions; blank = as fractional. Computed by the exact path.",
        InputRule(InputKind.BOOLEAN, ertc.CITE_RATIO),
        trigger=False,
    ),
    InputSpec(
        "refund_period_limit",
        Kind.CHOICE,
        "ertc",
        '"b3" (default) or "notwithstanding" (52:27BBB-55c.(1); docs/interpretations.md).'
        " Computed by the exact path.",
        InputRule(InputKind.CHOICE, ertc.CITE_C1, choices=ertc.REFUND_PERIOD_LIMITS),
        trigger=False,
    ),
)

_S_POS = SCALE[Kind.POSITIONS]
_INT64 = INT64
_ZERO = Decimal("0.00")
_PERIOD_MEASURES = ("period_end", "liability", "other_credits", "minimum_tax")
#: the scalar path's reading of the columns above (their rules, the runner's limits)
_LIMITS = RowLimits(INPUTS)
_money_limit, _count_limit, _growth = _LIMITS.money, _LIMITS.count, _LIMITS.growth


# =========================================================================== outputs


def ertc_outputs(layout: Shape) -> list[OutputSpec]:
    """The ertc section's result columns."""
    m, i, f = OutKind.MONEY, OutKind.INT, OutKind.FLOAT
    out = [
        OutputSpec("ertc_year1_credit", m, "ertc", "Credit for credit year one."),
        OutputSpec("ertc_year2_credit", m, "ertc", "Credit for credit year two."),
        OutputSpec("ertc_sustained_effort_ratio", f, "ertc", "Ratio, to 10 places."),
        OutputSpec(
            "ertc_year1_period",
            i,
            "ertc",
            "Period (1..) year one is allowed in; 0 or less: before period 1 (carried in).",
        ),
        OutputSpec(
            "ertc_year2_period",
            i,
            "ertc",
            "Period (1..) year two is allowed in; 0 or less: before period 1 (carried in).",
        ),
        OutputSpec("ertc_credits_allowed", m, "ertc", "Credits allowed."),
        OutputSpec("ertc_used", m, "ertc", "Credit used against the tax."),
        OutputSpec("ertc_refunded", m, "ertc", "Year-one credit refunded."),
        OutputSpec("ertc_expired", m, "ertc", "Credit expired (carryforward limit)."),
        OutputSpec("ertc_carried_forward", m, "ertc", "Unused after the last period."),
    ]
    if layout.detail:  # the ERTC schedule's, once per period (the catalog's)
        for column in ERTC_PERIOD_COLUMNS:
            doc = column.doc.replace("the period", "period k") + "."
            out += [
                OutputSpec(f"{column.scenario}_{k}", m, "ertc", doc)
                for k in range(1, layout.periods + 1)
            ]
    return out


# =========================================================================== ertc
# N.J.S.A. 52:27BBB-55a., b., c., e.: the core's rules (ertc.credit_years_rule,
# allowance_period_rule, credit_amount_rule, sustained_effort_ratio_rule, schedule_rule)
# run by the int64 evaluator; the kernel only reads the columns, fills them forward and
# says which rows it computed.

#: The last date any input or result may be (core.inputs.MAX_DATE), in days from 1970.
_LAST_DAY = (MAX_DATE - dt.date(1970, 1, 1)).days
#: What a row's missing periods end on, so that the b.(1) count of periods ending before
#: a credit year counts only the row's own: the last date (a computed row's credit years
#: end on it or before, and it is deemed to end on itself, December 31), within the
#: int64 evaluator's date tables (a day beyond them sent whole columns to the arithmetic).
_NO_PERIOD = _LAST_DAY
_INSURANCE = ertc.TAX_TYPES.index("insurance")


def credit_year_ends(start_days: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Last days of credit years one and two (52:27BBB-55e.: ``ertc.credit_years_rule``)."""
    _, one_end, _, two_end = ertc.credit_years_rule(_INT64, start_days)
    return one_end, two_end


def _next_period_end(end_days: np.ndarray) -> np.ndarray:
    return np.asarray(next_period_end_rule(_INT64, end_days))


def ertc_kernel(chunk: Columns, layout: Shape) -> SectionOut:
    """The credit schedule of every row (the core's ``ertc.credit_schedule``)."""
    n = chunk.n
    present = chunk.present("ertc")
    if not present.any():
        return _nothing(n)
    fast = present.copy()
    width = layout.periods

    periods = chunk.col("periods")
    has_periods = ~periods.blank
    fast &= ~periods.bad  # 1 to MAX_PERIODS: the column's declaration (convert reads it)
    measures = ("period_end", "liability", "other_credits", "minimum_tax")
    cols = {m: [chunk.col(f"{m}_{k}") for k in range(1, width + 1)] for m in measures}
    last = np.zeros(n, I64)
    for k in range(1, width + 1):
        given = np.zeros(n, bool)
        for m in measures:
            given |= ~cols[m][k - 1].blank
        last[given] = k
    count = np.where(has_periods, periods.values, last)
    fast &= (count >= 1) & (count <= width)
    for k in range(1, width + 1):
        for m in measures:
            fast &= ~((k <= count) & cols[m][k - 1].bad)
    growth = chunk.col("liability_growth")
    fast &= ~growth.bad

    values = {m: [c.values for c in cols[m]] for m in measures}
    blank = {m: [c.blank for c in cols[m]] for m in measures}
    fill = has_periods & fast
    _fill_forward(values["period_end"], blank["period_end"], fill, count, _next_period_end)
    _fill_forward(values["liability"], blank["liability"], fill, count, _grown(growth))
    for m in ("other_credits", "minimum_tax"):
        _fill_forward(values[m], blank[m], fill, count, lambda previous: previous)
    for k in range(1, width + 1):
        inside = k <= count
        for m in ("period_end", "liability", "minimum_tax"):
            fast &= ~(inside & blank[m][k - 1])
        fast &= ~(inside & (values["liability"][k - 1] > MAX_MONEY_CENTS))
        if k > 1:  # the core's check of consecutive period ends (52:27BBB-55b.(1))
            ends = values["period_end"]
            increasing, within = ertc.period_order_rule(_INT64, ends[k - 2], ends[k - 1])
            fast &= ~inside | (increasing & within)

    start = chunk.col("operations_start")
    y1, y2 = chunk.col("year1_new"), chunk.col("year2_new")
    fractional, tax_type = chunk.col("fractional"), chunk.col("tax_type")
    carry = chunk.col("carryforward_years")
    fast &= start.ok & y1.ok & y2.ok & ~fractional.bad & ~tax_type.bad & ~carry.bad
    # the switches of issue 10, item 5 the kernel does not compute: the exact path
    fast &= chunk.col("ratio_fractional").blank & chunk.col("refund_period_limit").blank
    priced_fractions = fractional.values == 1  # a.: the core's check of the counts
    fast &= ertc.positions_priced_rule(_INT64, Ratio(y1.values, _S_POS), priced_fractions)
    fast &= ertc.positions_priced_rule(_INT64, Ratio(y2.values, _S_POS), priced_fractions)

    # b.(1): the period in which or with which each credit year ends
    _, one_end, _, two_end = ertc.credit_years_rule(_INT64, np.where(fast, start.values, 0))
    fast &= two_end <= _LAST_DAY  # the core refuses credit years past the last date
    ends = [
        np.where(fast & (k <= count), values["period_end"][k - 1], _NO_PERIOD)
        for k in range(1, width + 1)
    ]
    index_1, found_1, first_start = ertc.allowance_period_rule(_INT64, ends, count, one_end)
    index_2, found_2, _ = ertc.allowance_period_rule(_INT64, ends, count, two_end)

    # a., e.: the credits and the ratio; positions / 10^8
    positions_1 = Ratio(np.where(fast, y1.values, 0), _S_POS)
    positions_2 = Ratio(np.where(fast, y2.values, 0), _S_POS)
    credit_1 = ertc.credit_amount_rule(_INT64, positions_1, 1)  # <= 2.5 x 10^11 cents
    credit_2 = ertc.credit_amount_rule(_INT64, positions_2, 2)
    keep = np.where(carry.blank, -1, carry.values)

    # b.(2): the credit carried into period 1, allowed before it (blank: none)
    opening = []
    allowed = []
    for n, index, found, year_end, credit in (
        (1, index_1, found_1, one_end, credit_1),
        (2, index_2, found_2, two_end, credit_2),
    ):
        amount, before = chunk.col(f"opening_year{n}"), chunk.col(f"opening_year{n}_before")
        fast &= ~amount.bad & ~before.bad
        given_ = ~amount.blank
        # a count given without its amount, a limit without the count: the core's message
        fast &= ~(amount.blank & ~before.blank)
        fast &= ~(given_ & ~carry.blank & before.blank & (amount.values > 0))
        fast &= before.blank | (before.values >= 1)
        cents = np.where(given_, amount.values, 0)
        periods_before = np.where(before.blank, 1, before.values)
        where, agree = ertc.opening_rule(
            _INT64, index, found, first_start, year_end, given_, cents, periods_before, credit, keep
        )
        fast &= agree
        opening.append(np.where(fast, cents, 0))
        allowed.append(where)
    allowed_1, allowed_2 = allowed
    fast &= allowed_1 <= allowed_2  # the core's check of the order (b.(1))
    terms = ertc.ScheduleTerms(
        allowed_1=allowed_1,
        allowed_2=allowed_2,
        credit_1=credit_1,
        credit_2=credit_2,
        year1_new=positions_1,
        year2_new=positions_2,
        keep=keep,
        insurance=tax_type.values == _INSURANCE,
        opening_1=opening[0],
        opening_2=opening[1],
    )
    ratio = ertc.sustained_effort_ratio_rule(_INT64, positions_1, positions_2)

    # b.(1)-(3), c.(2), b.(2): period by period; a row's missing periods have no tax
    rows_in = [fast & (index < count) for index in range(width)]
    figures = ertc.schedule_rule(
        _INT64,
        terms,
        [np.where(rows_in[i], values["liability"][i], 0) for i in range(width)],
        [
            np.where(rows_in[i] & ~blank["other_credits"][i], values["other_credits"][i], 0)
            for i in range(width)
        ],
        [np.where(rows_in[i], values["minimum_tax"][i], 0) for i in range(width)],
    )
    totals = ertc.schedule_totals_rule(_INT64, figures, count)  # read where ``fast``
    detail: dict[str, dict[int, tuple[np.ndarray, np.ndarray]]] = {}
    for index, row in enumerate(figures):
        within = rows_in[index]
        for column in ERTC_PERIOD_COLUMNS:
            figure = np.asarray(getattr(row, column.field))  # read where ``within`` only
            if figure.ndim == 0:  # a constant (no credit yet): one value a row
                figure = np.full(n, figure, I64)
            detail.setdefault(column.scenario, {})[index + 1] = (figure, within)

    out: dict[str, tuple[np.ndarray, np.ndarray]] = {
        "ertc_year1_credit": (np.asarray(terms.credit_1), fast),
        "ertc_year2_credit": (np.asarray(terms.credit_2), fast),
        "ertc_sustained_effort_ratio": (
            np.asarray(ratio.num).astype(np.float64) / ratio.den,
            fast,
        ),
        "ertc_year1_period": (allowed_1 + 1, fast),
        "ertc_year2_period": (allowed_2 + 1, fast),
        "ertc_credits_allowed": (np.asarray(totals.credits_allowed), fast),
        "ertc_used": (np.asarray(totals.used), fast),
        "ertc_refunded": (np.asarray(totals.refunded), fast),
        "ertc_expired": (np.asarray(totals.expired), fast),
        "ertc_carried_forward": (np.asarray(totals.carried_out), fast),
    }
    for stem, by_period in detail.items():
        for k, value in by_period.items():
            out[f"{stem}_{k}"] = value
    return SectionOut(present, fast, out)


# =========================================================================== the scalar path
# One row at a time, straight through the calculation core (the reference the kernel
# must equal, and the source of every row error message).


# =========================================================================== ertc


def ertc_row(values: Values, layout: Shape) -> Outputs:
    """The ERTC section of one row: ``ertc.credit_schedule`` (52:27BBB-55b., c.)."""
    rate = _growth(values, "liability_growth")
    count_value = _get(values, "periods")
    if count_value is not None:
        count = _LIMITS.rule("periods").parse(count_value, "periods")
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


# =========================================================================== the section


def _ertc(chunk: Columns, layout: Shape, done: Any) -> SectionOut:
    return ertc_kernel(chunk, layout)


#: The program's sections.
SECTIONS = (Section("ertc", ertc_outputs, _ertc, ertc_row, periods_column="periods"),)


# =========================================================================== an example


def example_columns(rng: np.random.Generator, n: int) -> dict[str, Any]:
    """The ERTC columns of ``n`` rows of the synthetic portfolio (the runner's
    ``example_portfolio``): a credit over four annual privilege periods. Plausible
    figures, not data."""
    return {
        "operations_start": np.datetime64("2021-01-01")
        + rng.integers(0, 365, n).astype("timedelta64[D]"),
        "year1_new": rng.integers(0, 40, n),
        "year2_new": rng.integers(0, 40, n),
        "periods": 4,
        "period_end_1": np.datetime64("2021-12-31"),
        "liability_1": np.round(rng.lognormal(10.5, 1.2, n), 2),
        "liability_growth": np.round(rng.normal(0.05, 0.05, n), 4),
        "other_credits_1": np.round(rng.uniform(0, 2000, n), 2),
        "minimum_tax_1": rng.choice([500.0, 750.0, 1000.0, 1500.0, 2000.0], n),
        "carryforward_years": rng.choice([1.0, 2.0, 5.0, np.nan, np.nan], n),
    }
