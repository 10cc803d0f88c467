"""The portfolio's section of the scenario table (``core/scenario_sections.py``): a row is
one entity's awards against its CBT liability over up to ``MAX_PERIODS`` periods, applied
by :func:`nj_incentives.programs.portfolio.rules.portfolio` (N.J.A.C. 18:7-3.17).

Computed twice, as the other sections are: the int64 kernel (:func:`_kernel`) runs the
core's own :func:`~.rules.portfolio_rule` with the int64 evaluator over whole columns of
cents, one call per group of rows with the same shape (periods, the UTH and ERTC
carryforwards, the BRRAG reading: what the rule's structure depends on); the scalar path
(:func:`portfolio_row`) takes one row through :func:`~.rules.portfolio` and gives every
error message. A row the kernel leaves (a blank liability, no award, a UTH award without
its carryforward, a cell the kernel cannot read exactly, a period end past the last date)
goes to the scalar path. A program with no award in a row is applied with a zero credit
in the kernel: it uses nothing, so every other figure is the same (the property test).
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

import numpy as np

from nj_incentives.core.common import InputError, as_money
from nj_incentives.core.inputs import MAX_DATE, InputKind, InputRule
from nj_incentives.core.scenario_inputs import (
    InputSpec,
    Kind,
    count_input,
    money_input,
)
from nj_incentives.core.scenario_sections import (
    I64,
    INT64,
    Columns,
    OutKind,
    OutputSpec,
    RowLimits,
    Section,
    SectionOut,
    Shape,
    Values,
    last_given,
    nothing,
)
from nj_incentives.core.scenario_sections import cell as _get
from nj_incentives.programs.cbt import figures as CBT
from nj_incentives.programs.portfolio import rules as P

__all__ = ["INPUTS", "SECTIONS", "portfolio_outputs", "portfolio_row"]

_S = "portfolio"
_CITE = P.CITE_ORDER

INPUTS: tuple[InputSpec, ...] = (
    InputSpec(
        "portfolio_first_period_end",
        Kind.DATE,
        _S,
        "Portfolio: last day of the first privilege period (12-month periods follow).",
        InputRule(InputKind.DATE, _CITE),
    ),
    InputSpec(
        "portfolio_liability_{k}",
        Kind.MONEY,
        _S,
        "Portfolio: the CBT liability of period k before these credits.",
        money_input(_CITE),
        family="period",
    ),
    InputSpec(
        "portfolio_minimum_tax_{k}",
        Kind.MONEY,
        _S,
        "Portfolio: the statutory minimum tax of period k (the ERTC stops there); blank = 0.",
        money_input("N.J.S.A. 54:10A-5(e)"),
        trigger=False,
        family="period",
    ),
    *(
        InputSpec(
            f"portfolio_{key}_credit_{{k}}",
            Kind.MONEY,
            _S,
            f"Portfolio: the {key} credit allowed in period k (the award's amount).",
            money_input(_CITE),
            family="period",
        )
        for key in P.PROGRAMS
    ),
    InputSpec(
        "portfolio_uth_carryforward",
        Kind.COUNT,
        _S,
        "Portfolio: periods a UTH credit is carried forward (not found: needed with one).",
        count_input("docs/interpretations.md (open question 12)"),
        trigger=False,
    ),
    InputSpec(
        "portfolio_ertc_carryforward",
        Kind.COUNT,
        _S,
        "Portfolio: periods an ERTC credit is carried forward; blank = no limit (b.(2)).",
        count_input("N.J.S.A. 52:27BBB-55 b.(2)"),
        trigger=False,
    ),
    InputSpec(
        "portfolio_brrag_periods",
        Kind.CHOICE,
        _S,
        'Portfolio: "statute" (default: the BRRAG credit in its period only) or "rule" (and'
        " the next, N.J.A.C. 19:31N-1.1(b)).",
        InputRule(InputKind.CHOICE, "N.J.S.A. 34:1B-115.3 a.", choices=P.BRRAG_READINGS),
        trigger=False,
    ),
)

_LIMITS = RowLimits(INPUTS)
_FAMILY_RE = re.compile(r"(.+)_(\d+)")
#: the most periods of carryforward the core takes (``portfolio``'s ``as_int(high=100)``)
_MAX_KEEP = 100
#: Emerge's place when the switch is not given (after Grow NJ: the core's default)
_EMERGE_PLACE = Decimal(CBT.ORDER_GROW_NJ.single) + 1
_MEASURES = (
    "portfolio_liability",
    "portfolio_minimum_tax",
    *(f"portfolio_{key}_credit" for key in P.PROGRAMS),
)


def portfolio_outputs(layout: Shape) -> list[OutputSpec]:
    """The portfolio section's result columns: per program what it used, refunded,
    expired and carried forward over the row's periods; per period the tax after."""
    m = OutKind.MONEY
    out: list[OutputSpec] = []
    for key in P.PROGRAMS:
        out += [
            OutputSpec(f"portfolio_{key}_used", m, _S, f"The {key} credit used, all periods."),
            OutputSpec(f"portfolio_{key}_expired", m, _S, f"The {key} credit expired."),
            OutputSpec(
                f"portfolio_{key}_carried_forward", m, _S, f"The {key} credit after the last."
            ),
        ]
    out.append(OutputSpec("portfolio_beip_refunded", m, _S, "BEIP excess refunded (f.)."))
    out.append(OutputSpec("portfolio_tax_after", m, _S, "Tax after the credits, all periods."))
    if layout.detail:
        out += [
            OutputSpec(f"portfolio_tax_after_{k}", m, _S, "Tax after the credits in period k.")
            for k in range(1, layout.periods + 1)
        ]
    return out


def portfolio_row(values: Values, layout: Shape) -> dict[str, object]:
    """The portfolio section of one row: :func:`~.rules.portfolio` over its periods."""
    count = last_given(values, _MEASURES)
    liabilities = [_get(values, f"portfolio_liability_{k}") for k in range(1, count + 1)]
    minimums = [_get(values, f"portfolio_minimum_tax_{k}") for k in range(1, count + 1)]
    awards: list[list[Any]] = []
    columns: list[str] = []  # each award row's column (a refusal names it)
    for key in P.PROGRAMS:
        for k in range(1, count + 1):
            amount = _get(values, f"portfolio_{key}_credit_{k}")
            if amount is not None:
                awards.append(["row", key, k, amount])
                columns.append(f"portfolio_{key}_credit_{k}")
    for k, liability in enumerate(liabilities, 1):
        if liability is None:
            rule = "is required for every period up to the last given"
            raise InputError(f"portfolio_liability_{k}", None, rule, _CITE)
    try:
        found = P.portfolio(
            awards,
            _get(values, "portfolio_first_period_end"),
            liabilities,
            [Decimal(0) if m is None else m for m in minimums],
            uth_carryforward=_get(values, "portfolio_uth_carryforward"),
            ertc_carryforward=_get(values, "portfolio_ertc_carryforward"),
            brrag_periods=_get(values, "portfolio_brrag_periods") or "statute",
        )
    except InputError as error:
        argument = _column(error.argument, columns)
        raise InputError(argument, error.value, error.rule, error.citation) from None
    for k, liability in enumerate(liabilities, 1):  # the runner's money limit
        column = f"portfolio_liability_{k}"  # read as the core read it (0.01, not a double)
        _LIMITS.money(values, column, as_money(liability, column, _CITE))
    out: dict[str, object] = {}
    zero = Decimal("0.00")
    for key in P.PROGRAMS:
        rows = [r for r in found.rows if r.program == key]
        out[f"portfolio_{key}_used"] = sum((r.used for r in rows), zero)
        out[f"portfolio_{key}_expired"] = sum((r.expired for r in rows), zero)
        out[f"portfolio_{key}_carried_forward"] = sum(
            (r.carried_out for r in rows if r.period == count), zero
        )
    out["portfolio_beip_refunded"] = found.refunded
    out["portfolio_tax_after"] = sum(found.tax_after, zero)
    if layout.detail:
        for k, tax in enumerate(found.tax_after, 1):
            out[f"portfolio_tax_after_{k}"] = tax
    return out


def _column(argument: str, columns: list[str]) -> str:
    """The scenario column an argument of :func:`~.rules.portfolio` came from."""
    if argument.startswith("awards row "):
        number = int(argument.split()[2])
        return columns[number - 1] if 0 < number <= len(columns) else argument
    if argument.startswith("liabilities["):
        return f"portfolio_liability_{argument[len('liabilities[') : -1]}"
    if argument.startswith("minimum_taxes["):
        return f"portfolio_minimum_tax_{argument[len('minimum_taxes[') : -1]}"
    return f"portfolio_{argument}"


_MAX_DAY = (MAX_DATE - dt.date(1970, 1, 1)).days


def _kernel(chunk: Columns, layout: Shape, done: Any) -> SectionOut:
    """The portfolio of every row the kernel can read exactly (the module docstring)."""
    del done
    n = chunk.n
    present = chunk.present(_S)
    if not present.any():
        return nothing(n)
    fast = present.copy()
    count = np.zeros(n, I64)  # each row's periods: its last given measure's
    width = 0  # the chunk's (the run's layout has no periods of its own for portfolios)
    for name in chunk.section_columns(_S):
        column = chunk.col(name)
        fast &= ~column.bad  # a cell the kernel cannot read: the core's message
        match = _FAMILY_RE.fullmatch(name)
        if match and match.group(1) in _MEASURES:
            k = int(match.group(2))
            width = max(width, k)
            count = np.where(~column.blank & (k > count), k, count)
    fast &= count >= 1
    cols = {m: [chunk.col(f"{m}_{k}") for k in range(1, width + 1)] for m in _MEASURES}
    awarded = {key: np.zeros(n, bool) for key in P.PROGRAMS}
    for k in range(1, width + 1):
        fast &= ~((k <= count) & cols["portfolio_liability"][k - 1].blank)  # required
        for key in P.PROGRAMS:
            awarded[key] |= ~cols[f"portfolio_{key}_credit"][k - 1].blank
    fast &= np.logical_or.reduce([awarded[key] for key in P.PROGRAMS])  # an award at all
    first = chunk.col("portfolio_first_period_end")
    fast &= first.ok
    # the last period end is a date the inputs accept (12-month periods: at most 366 days)
    fast &= first.values + 366 * (count - 1) <= _MAX_DAY
    uth, ertc = chunk.col("portfolio_uth_carryforward"), chunk.col("portfolio_ertc_carryforward")
    fast &= ~(awarded["uth"] & uth.blank)  # not found: required with a UTH award
    fast &= (uth.blank | (uth.values <= _MAX_KEEP)) & (ertc.blank | (ertc.values <= _MAX_KEEP))
    brrag = chunk.col("portfolio_brrag_periods")
    uth_keep = np.where(uth.blank, -1, uth.values)
    ertc_keep = np.where(ertc.blank, -1, ertc.values)
    reading = np.where(brrag.blank, 0, brrag.values)

    out: dict[str, np.ndarray] = {}
    for key in P.PROGRAMS:
        for figure in ("used", "expired", "carried_forward"):
            out[f"portfolio_{key}_{figure}"] = np.zeros(n, I64)
    out["portfolio_beip_refunded"] = np.zeros(n, I64)
    out["portfolio_tax_after"] = np.zeros(n, I64)
    after = [np.zeros(n, I64) for _ in range(width)]
    rows = np.flatnonzero(fast)
    shapes = np.stack([count[rows], uth_keep[rows], ertc_keep[rows], reading[rows]], axis=1)
    groups, which = np.unique(shapes, axis=0, return_inverse=True)
    for number, (periods, uth_k, ertc_k, brrag_k) in enumerate(groups.tolist()):
        at = rows[which.reshape(-1) == number]
        terms = P.program_terms(
            set(P.PROGRAMS),
            set(),
            None if uth_k < 0 else uth_k,
            None if ertc_k < 0 else ertc_k,
            P.BRRAG_READINGS[brrag_k],
            _EMERGE_PLACE,
        )
        holdings = [
            P.Holding(
                term,
                "row",
                tuple(cols[f"portfolio_{term.key}_credit"][k].values[at] for k in range(periods)),
            )
            for term in terms
        ]
        liabilities = [cols["portfolio_liability"][k].values[at] for k in range(periods)]
        minimums = [cols["portfolio_minimum_tax"][k].values[at] for k in range(periods)]
        found, taxes = P.portfolio_rule(INT64, holdings, liabilities, minimums)
        for figures in found:
            for holding, f in zip(holdings, figures, strict=True):
                key = holding.terms.key
                out[f"portfolio_{key}_used"][at] += _cents(f.used)
                out[f"portfolio_{key}_expired"][at] += _cents(f.expired)
                if key == "beip":
                    out["portfolio_beip_refunded"][at] += _cents(f.refunded)
        for holding, f in zip(holdings, found[-1], strict=True):
            out[f"portfolio_{holding.terms.key}_carried_forward"][at] = _cents(f.carried_out)
        for k, tax in enumerate(taxes):
            after[k][at] = _cents(tax)
            out["portfolio_tax_after"][at] += _cents(tax)
    values = {name: (column, fast) for name, column in out.items()}
    if layout.detail:  # the layout's periods (portfolio_outputs), given or not here
        for k in range(1, layout.periods + 1):
            tax = after[k - 1] if k <= width else np.zeros(n, I64)
            values[f"portfolio_tax_after_{k}"] = (tax, fast & (k <= count))
    return SectionOut(present, fast, values)


def _cents(value: Any) -> np.ndarray:
    """A figure of the int64 evaluator as int64 cents (a constant zero of the rule, a
    Decimal, where nothing was carried or expired)."""
    if isinstance(value, Decimal):
        return np.asarray(int(value * 100), I64)
    return np.asarray(value, I64)


#: The program's sections.
SECTIONS = (Section(_S, portfolio_outputs, _kernel, portfolio_row),)


def example_columns(rng: np.random.Generator, n: int) -> dict[str, Any]:
    """The portfolio's columns of the synthetic portfolio (the runner's
    ``example_portfolio``, its benchmarks' rows): none, so that the runner's benchmark
    figures in docs/performance.md stay comparable; the portfolio kernel is measured on
    its own (tests/benchmarks/test_portfolio_bench.py)."""
    del rng, n
    return {}
