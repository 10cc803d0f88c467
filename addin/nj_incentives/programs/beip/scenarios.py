"""BEIP's sections of the scenario table: the grant over its term (``grant``), its
conversion to tax credits (``conversion``) and their use against each tax year's liability
(``credit``, which needs ``conversion``); their input columns (the runner:
:mod:`nj_incentives.scenarios`; docs/scenarios.md)."""

from __future__ import annotations

from nj_incentives.core import parameters as P
from nj_incentives.core.inputs import InputKind, InputRule
from nj_incentives.core.scenario_inputs import (
    GROWTH,
    InputSpec,
    Kind,
    count_input,
    money_input,
)
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as beip

__all__ = ["INPUTS", "SECTIONS"]

#: The program's sections, in the order the results show them.
SECTIONS = ("grant", "conversion", "credit")

#: The program's input columns, section by section.
INPUTS: tuple[InputSpec, ...] = (
    # ------------------------------------------------------------------ grant
    InputSpec(
        "agreement_date",
        Kind.DATE,
        "grant",
        f"Date the grant agreement was entered into; the {BEIP.AVERAGE_CAP.summary()} average cap"
        f" applies to agreements on or after {BEIP.CAP_AGREEMENTS_FROM.single.isoformat()}"
        " (34:1B-129a.).",
        InputRule(InputKind.DATE, beip.CITE_A),
    ),
    InputSpec(
        "pct",
        Kind.FRACTION,
        "grant",
        "Grant percentage of withholdings, as a fraction: 0 (basis not used) or 10%-50%"
        " (80% with smart growth) (34:1B-129a., b.).",
        InputRule(InputKind.FRACTION, beip.CITE_A),
    ),
    InputSpec(
        "partner_pct",
        Kind.FRACTION,
        "grant",
        "Grant percentage of the partners' estimated tax: 0 (default, basis not used) or"
        " 10%-30% (50% with smart growth).",
        InputRule(InputKind.FRACTION, beip.CITE_A),
    ),
    InputSpec(
        "smart_growth",
        Kind.BOOL,
        "grant",
        "TRUE if the grant promotes smart growth (34:1B-129b.); default FALSE.",
        InputRule(InputKind.BOOLEAN, beip.CITE_B),
        trigger=False,
    ),
    InputSpec(
        "withholdings_{k}",
        Kind.MONEY,
        "grant",
        "Withholdings of the business in grant year k (k = 1..10).",
        money_input(beip.CITE_A),
        family="year",
    ),
    InputSpec(
        "new_employees_{k}",
        Kind.COUNT,
        "grant",
        "New employees certified for grant year k (whole number).",
        count_input(beip.CITE_CAP),
        family="year",
    ),
    InputSpec(
        "partner_tax_{k}",
        Kind.MONEY,
        "grant",
        "Estimated tax of the partners in grant year k (all blank = none).",
        money_input(beip.CITE_A),
        family="year",
    ),
    InputSpec(
        "term",
        Kind.COUNT,
        "grant",
        "Convenience: the term in years (1-10). With it, years after the term are ignored"
        " and blank years within it are filled forward (see withholdings_growth).",
        beip.TERM_INPUT,
    ),
    InputSpec(
        "withholdings_growth",
        Kind.GROWTH,
        "grant",
        "Convenience (with term): a blank withholdings_k is withholdings_(k-1) x"
        " (1 + growth), rounded down to the cent; default 0.",
        GROWTH,
        trigger=False,
    ),
    InputSpec(
        "partner_tax_growth",
        Kind.GROWTH,
        "grant",
        "Convenience (with term): the same for partner_tax_k; default 0.",
        GROWTH,
        trigger=False,
    ),
    InputSpec(
        "cap_method",
        Kind.CHOICE,
        "grant",
        f'Reading of the {BEIP.AVERAGE_CAP.summary()} average cap: "per_year" (default),'
        ' "whole_term" or "proportional" (docs/interpretations.md). Computed by the vectorized'
        " kernel.",
        InputRule(InputKind.CHOICE, beip.CITE_CAP, choices=beip.CAP_METHODS),
        trigger=False,
    ),
    InputSpec(
        "law_as_of",
        Kind.DATE,
        "grant",
        "The law as it stood on this date (optional; blank: every version modelled, chosen by"
        ' the row\'s own dates; docs/interpretations.md "Law as of"). Versions:'
        f" {P.versions_text('beip')}.",
        InputRule(InputKind.DATE, "docs/interpretations.md"),
        trigger=False,
    ),
    # ------------------------------------------------------------------ conversion
    InputSpec(
        "accrual_year",
        Kind.COUNT,
        "conversion",
        "Calendar year (2008-2025) the grant accrued but was not paid (34:1B-129e.).",
        beip.ACCRUAL_YEAR_INPUT,
    ),
    InputSpec(
        "conversion_amount",
        Kind.MONEY,
        "conversion",
        "The approved amount converted to tax credits (the core's ``amount``).",
        money_input(beip.CITE_E),
    ),
    InputSpec(
        "approval_date",
        Kind.DATE,
        "conversion",
        "Date the amount was approved (optional; matters for accruals 2008-2013 only:"
        " late approval, 34:1B-129e.(1)).",
        InputRule(InputKind.DATE, beip.CITE_E),
    ),
    InputSpec(
        "grant_approval_date",
        Kind.DATE,
        "conversion",
        "Date the business was approved for the grant (optional; must be before"
        f" {beip.ENACTMENT_P_L_2015_C_194}, 34:1B-129e.). Computed by the exact path.",
        InputRule(InputKind.DATE, beip.CITE_E),
        trigger=False,
    ),
    InputSpec(
        "direction_date",
        Kind.DATE,
        "conversion",
        "Date the business directed the conversion (optional;"
        f" {beip.ENACTMENT_P_L_2015_C_194} to {beip.DIRECTION_DEADLINE}, the published"
        " deadline, or to the switch direction_deadline's day, 34:1B-129e.). Computed by the"
        " exact path.",
        InputRule(InputKind.DATE, beip.CITE_E),
        trigger=False,
    ),
    InputSpec(
        "direction_deadline",
        Kind.CHOICE,
        "conversion",
        'Last day of the direction window: "published" (default,'
        f' {beip.DIRECTION_DEADLINE_PUBLISHED}) or "strict" ({beip.DIRECTION_DAY_180}, day'
        f" {beip.DIRECTION_DAYS}) (34:1B-129e.; docs/interpretations.md). Computed by the"
        " exact path.",
        InputRule(InputKind.CHOICE, beip.CITE_E, choices=beip.DIRECTION_DEADLINE_READINGS),
        trigger=False,
    ),
    # ------------------------------------------------------------------ credit
    InputSpec(
        "tax_liability_{year}",
        Kind.MONEY,
        "credit",
        "Tax liability of tax year YYYY, against which that year's installment is applied"
        " first (34:1B-129f.).",
        money_input(beip.CITE_F),
        family="tax_year",
    ),
    InputSpec(
        "credit_minimum_tax",
        Kind.MONEY,
        "credit",
        "The alternative reading of 34:1B-129f.: the statutory minimum the credit may not"
        " take each year's tax below (blank = 0, the default reading). Computed by the"
        " exact path.",
        money_input(beip.CITE_F),
        trigger=False,
    ),
)
