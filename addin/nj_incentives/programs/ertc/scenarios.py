"""The ERTC's section of the scenario table: the credit over privilege periods (``ertc``,
N.J.S.A. 52:27BBB-55b., c.); its input columns (the runner: :mod:`nj_incentives.scenarios`;
docs/scenarios.md)."""

from __future__ import annotations

from nj_incentives.core.inputs import InputKind, InputRule
from nj_incentives.core.scenario_inputs import (
    GROWTH,
    PERIODS_INPUT,
    InputSpec,
    Kind,
    count_input,
    money_input,
    positions_input,
)
from nj_incentives.programs.ertc import figures as ERTC
from nj_incentives.programs.ertc import rules as ertc

__all__ = ["INPUTS", "SECTIONS"]

#: The program's sections.
SECTIONS = ("ertc",)

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
