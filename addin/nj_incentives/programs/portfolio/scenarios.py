"""The portfolio's section of the scenario table (``core/scenario_sections.py``): a row is
one entity's awards against its CBT liability over up to ``MAX_PERIODS`` periods, applied
by :func:`nj_incentives.programs.portfolio.rules.portfolio` (N.J.A.C. 18:7-3.17).

The kernel computes no row itself: every present row goes to the scalar (exact) path, one
:func:`~.rules.portfolio` call a row (a portfolio is a few programs over a few periods;
its int64 kernel is left for a later step, docs/scenarios.md)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np

from nj_incentives.core.common import InputError
from nj_incentives.core.inputs import InputKind, InputRule
from nj_incentives.core.scenario_inputs import (
    InputSpec,
    Kind,
    count_input,
    money_input,
)
from nj_incentives.core.scenario_sections import (
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
        _LIMITS.money(values, f"portfolio_liability_{k}", Decimal(liability))
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


def _kernel(chunk: Columns, layout: Shape, done: Any) -> SectionOut:
    """Every present row to the scalar path (no int64 kernel yet)."""
    present = chunk.present(_S)
    if not present.any():
        return nothing(chunk.n)
    return SectionOut(present, np.zeros(chunk.n, bool))


#: The program's sections.
SECTIONS = (Section(_S, portfolio_outputs, _kernel, portfolio_row),)


def example_columns(rng: np.random.Generator, n: int) -> dict[str, Any]:
    """The portfolio's columns of the synthetic portfolio (the runner's
    ``example_portfolio``, its benchmarks' rows): none, while the section has no int64
    kernel (a million rows through the exact path would measure that path, not the
    runner's)."""
    del rng, n
    return {}
