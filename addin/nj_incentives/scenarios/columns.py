"""The scenario table: every input and output column, and the runner's own limits.

One row is one scenario. Its columns fall into four independent sections; a section
whose columns are all blank in a row is simply not computed for that row:

- ``grant``: the BEIP grant over its term and the $50,000 average cap
  (N.J.S.A. 34:1B-129a.-c.; N.J.A.C. 19:31I-1.4(a));
- ``conversion``: the grant converted to tax credits (34:1B-129e.(1)-(13));
- ``credit``: those credits applied against each tax year's liability (34:1B-129f.);
  needs the ``conversion`` section;
- ``ertc``: the Economic Recovery Tax Credit over privilege periods (N.J.S.A.
  52:27BBB-55b., c.).

The full description of every column is ``docs/scenarios.md``; this module is the
machine-readable version of it (:data:`INPUTS`, :func:`input_spec`, :class:`Layout`).

One declaration per input: each column's :attr:`InputSpec.rule` is a
:class:`~nj_incentives.core.inputs.InputRule` (its kind, its bounds taken from the law's
constants or the runner's limits below, and its citation). The vectorised masks
(:mod:`nj_incentives.scenarios.convert`) and the scalar path's runner limits
(:mod:`nj_incentives.scenarios.scalar`) both read it; nothing else states a bound.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from nj_incentives.core import parameters as P
from nj_incentives.core.inputs import MAX_DATE, MIN_DATE, InputKind, InputRule
from nj_incentives.functions.catalog import (
    CONVERSION_YEAR_COLUMNS,
    ERTC_PERIOD_COLUMNS,
    GRANT_YEAR_COLUMNS,
)
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import rules as ertc

__all__ = [
    "FIRST_TAX_YEAR",
    "INPUTS",
    "LAST_TAX_YEAR",
    "MAX_DATE",
    "MAX_MONEY_CENTS",
    "MAX_PERIODS",
    "MAX_POSITIONS",
    "MAX_TERM",
    "MIN_DATE",
    "RESERVED",
    "RUNNER_LIMIT",
    "SCALE",
    "SECTIONS",
    "InputSpec",
    "Kind",
    "Layout",
    "OutKind",
    "OutputSpec",
    "ScenarioError",
    "check_columns",
    "column_spec",
    "input_rule",
    "input_spec",
    "version_categories",
]


class ScenarioError(ValueError):
    """A problem with the scenario table as a whole (not with one row): unknown columns,
    an unreadable file, a bad grid or Monte Carlo spec. Row problems never raise: they go
    in the row's ``error`` column."""


class Kind(StrEnum):
    """What an input column holds, and so how it is read."""

    MONEY = "money"  # dollars, non-negative, to the cent
    FRACTION = "fraction"  # a percentage as a fraction, 0 to 1 (0.5 = 50%)
    GROWTH = "growth"  # a yearly growth rate, -1 to 1 (0.03 = 3% a year); runner convenience
    COUNT = "count"  # a whole number
    POSITIONS = "positions"  # new full-time positions (whole unless ``fractional``)
    DATE = "date"
    BOOL = "bool"
    CHOICE = "choice"


#: The kernel holds every value as an int64 count of these units (exact decimal scaling).
SCALE: dict[Kind, int] = {
    Kind.MONEY: 100,  # cents
    Kind.FRACTION: 10**9,  # 0.000000001 (a percentage to 7 decimals of a percent)
    Kind.GROWTH: 10**9,
    Kind.POSITIONS: 10**8,
    Kind.COUNT: 1,
}

# ----------------------------------------------------------------------- runner limits
# Not rules of law: bounds that keep every amount exact in int64 cents and in the float
# dollars of the results (at most 15 significant digits). A value beyond them is a row
# error naming the limit, citing :data:`RUNNER_LIMIT`. The rules of law come from law/.

#: The citation of the runner's own limits (not rules of law).
RUNNER_LIMIT = "scenario runner limit, docs/scenarios.md"
#: The largest money input, $100,000,000,000.00, in cents.
MAX_MONEY_CENTS = 10**13
_MAX_MONEY = Decimal(MAX_MONEY_CENTS) / 100
#: The largest count of new employees or new positions.
MAX_POSITIONS = 10**6
#: Term of the grant: N.J.S.A. 34:1B-129c. ("shall not exceed 10 years").
MAX_TERM = beip.MAXIMUM_TERM_YEARS
#: The most privilege periods one ERTC scenario may have.
MAX_PERIODS = 40
#: Tax years a credit-application column may name.
FIRST_TAX_YEAR, LAST_TAX_YEAR = 2000, 2099
# MIN_DATE, MAX_DATE: the dates every input takes (law/inputs.py; filled-forward period
# ends may run later).

_ABOVE_MONEY = f"exceeds the scenario runner's limit of {_MAX_MONEY:,.2f}"
_ABOVE_COUNT = f"exceeds the scenario runner's limit of {MAX_POSITIONS:,}"


def _money(citation: str) -> InputRule:
    """Dollars and cents, not negative, at most the runner's money limit."""
    return InputRule(
        InputKind.MONEY, citation, high=_MAX_MONEY, rule=_ABOVE_MONEY, bound_citation=RUNNER_LIMIT
    )


def _count(citation: str) -> InputRule:
    """A whole number, not negative, at most the runner's count limit."""
    return InputRule(
        InputKind.COUNT, citation, 0, MAX_POSITIONS, _ABOVE_COUNT, bound_citation=RUNNER_LIMIT
    )


def _positions(citation: str) -> InputRule:
    """New full-time positions, not negative, at most the runner's count limit."""
    return InputRule(
        InputKind.QUANTITY,
        citation,
        high=MAX_POSITIONS,
        rule=_ABOVE_COUNT,
        bound_citation=RUNNER_LIMIT,
    )


#: A yearly growth rate of the fill-forward convenience (not law): -100% to 100% a year.
_GROWTH = InputRule(
    InputKind.NUMBER, RUNNER_LIMIT, low=-1, high=1, rule="must be from -100% to 100% a year"
)

SECTIONS = ("grant", "conversion", "credit", "ertc")

#: Columns that are not inputs of any section: passed through to the results.
RESERVED = ("id", "label")


@dataclass(frozen=True)
class InputSpec:
    """One input column (or one family: ``withholdings_{k}``)."""

    name: str
    kind: Kind
    section: str
    doc: str
    #: the one declaration of what the column takes: kind, bounds, citation
    rule: InputRule
    #: a non-blank value makes the section present in the row (options do not)
    trigger: bool = True
    #: ``withholdings_{k}``: k = 1..MAX_TERM; ``period_end_{k}``: 1..MAX_PERIODS;
    #: ``tax_liability_{year}``: a tax year
    family: str = ""


_PERIODS = InputRule(
    InputKind.COUNT,
    RUNNER_LIMIT,
    1,
    MAX_PERIODS,
    f"the number of periods must be from 1 to {MAX_PERIODS}",
)

INPUTS: tuple[InputSpec, ...] = (
    # ------------------------------------------------------------------ grant
    InputSpec(
        "agreement_date",
        Kind.DATE,
        "grant",
        f"Date the grant agreement was entered into; the {P.AVERAGE_CAP.summary()} average cap"
        f" applies to agreements on or after {P.CAP_AGREEMENTS_FROM.single.isoformat()}"
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
        _money(beip.CITE_A),
        family="year",
    ),
    InputSpec(
        "new_employees_{k}",
        Kind.COUNT,
        "grant",
        "New employees certified for grant year k (whole number).",
        _count(beip.CITE_CAP),
        family="year",
    ),
    InputSpec(
        "partner_tax_{k}",
        Kind.MONEY,
        "grant",
        "Estimated tax of the partners in grant year k (all blank = none).",
        _money(beip.CITE_A),
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
        _GROWTH,
        trigger=False,
    ),
    InputSpec(
        "partner_tax_growth",
        Kind.GROWTH,
        "grant",
        "Convenience (with term): the same for partner_tax_k; default 0.",
        _GROWTH,
        trigger=False,
    ),
    InputSpec(
        "cap_method",
        Kind.CHOICE,
        "grant",
        f'Reading of the {P.AVERAGE_CAP.summary()} average cap: "per_year" (default),'
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
        _money(beip.CITE_E),
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
        _money(beip.CITE_F),
        family="tax_year",
    ),
    InputSpec(
        "credit_minimum_tax",
        Kind.MONEY,
        "credit",
        "The alternative reading of 34:1B-129f.: the statutory minimum the credit may not"
        " take each year's tax below (blank = 0, the default reading). Computed by the"
        " exact path.",
        _money(beip.CITE_F),
        trigger=False,
    ),
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
        f"New full-time positions in credit year one ({P.CREDIT_YEAR_ONE_AMOUNT.summary()} each;"
        " 52:27BBB-55a.).",
        _positions(ertc.CITE_A),
    ),
    InputSpec(
        "year2_new",
        Kind.POSITIONS,
        "ertc",
        f"New full-time positions in credit year two ({P.CREDIT_YEAR_TWO_AMOUNT.summary()} each).",
        _positions(ertc.CITE_A),
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
        _money(ertc.CITE_B3),
        family="period",
    ),
    InputSpec(
        "other_credits_{k}",
        Kind.MONEY,
        "ertc",
        "Other credits taken before this one in period k (blank = 0).",
        _money(ertc.CITE_PRIORITY),
        family="period",
    ),
    InputSpec(
        "minimum_tax_{k}",
        Kind.MONEY,
        "ertc",
        "Statutory minimum tax of period k (54:10A-5(e)).",
        _money(ertc.CITE_B3),
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
        _PERIODS,
    ),
    InputSpec(
        "liability_growth",
        Kind.GROWTH,
        "ertc",
        "Convenience (with periods): growth of a filled-forward liability; default 0.",
        _GROWTH,
        trigger=False,
    ),
    InputSpec(
        "carryforward_years",
        Kind.COUNT,
        "ertc",
        "Periods an unused credit may be carried forward (blank = no limit, the statute;"
        " 5 = the 2013 Form 313 instructions).",
        _count(f"{ertc.CITE_B2}; {ertc.CITE_FORM_313}"),
        trigger=False,
    ),
    InputSpec(
        "opening_year1",
        Kind.MONEY,
        "ertc",
        "Unused credit of credit year one carried into period 1, allowed before it (a schedule"
        " that starts after credit year one ended, as a rolled-forward workpaper; blank = none:"
        " credit year one ends in a period given).",
        _money(ertc.CITE_B2),
        trigger=False,
    ),
    InputSpec(
        "opening_year1_before",
        Kind.COUNT,
        "ertc",
        "Periods before period 1 in which credit year one's credit carried in was allowed"
        " (1 = the period just before); needed with carryforward_years.",
        _count(ertc.CITE_B2),
        trigger=False,
    ),
    InputSpec(
        "opening_year2",
        Kind.MONEY,
        "ertc",
        "Unused credit of credit year two carried into period 1, allowed before it (a schedule"
        " that starts after credit year two ended, as a rolled-forward workpaper; blank = none:"
        " credit year two ends in a period given).",
        _money(ertc.CITE_B2),
        trigger=False,
    ),
    InputSpec(
        "opening_year2_before",
        Kind.COUNT,
        "ertc",
        "Periods before period 1 in which credit year two's credit carried in was allowed"
        " (1 = the period just before); needed with carryforward_years.",
        _count(ertc.CITE_B2),
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

_BY_NAME = {spec.name: spec for spec in INPUTS if not spec.family}
_FAMILIES = {spec.name.split("{")[0]: spec for spec in INPUTS if spec.family}
_FAMILY_RE = re.compile(r"^([a-z0-9_]+_)(\d+)$")


def input_spec(column: str) -> tuple[InputSpec, int | None] | None:
    """The spec of an input column and its index (year k, period k or tax year), or None."""
    if column in _BY_NAME:
        return _BY_NAME[column], None
    match = _FAMILY_RE.match(column)
    if not match:
        return None
    spec = _FAMILIES.get(match.group(1))
    if spec is None:
        return None
    index = int(match.group(2))
    if match.group(2) != str(index):  # no leading zeros: withholdings_01 is not a column
        return None
    limits = {
        "year": (1, MAX_TERM),
        "period": (1, MAX_PERIODS),
        "tax_year": (FIRST_TAX_YEAR, LAST_TAX_YEAR),
    }
    low, high = limits[spec.family]
    return (spec, index) if low <= index <= high else None


def column_spec(column: str) -> InputSpec:
    """The spec of an input column (KeyError for a column that is not an input)."""
    found = input_spec(column)
    if found is None:
        raise KeyError(column)
    return found[0]


def input_rule(column: str) -> InputRule:
    """The declaration of an input column: kind, bounds, citation (KeyError if none)."""
    return column_spec(column).rule


def _all_names() -> list[str]:
    names = [*RESERVED, *_BY_NAME]
    for spec in INPUTS:
        if spec.family == "year":
            names += [spec.name.format(k=k) for k in range(1, MAX_TERM + 1)]
        elif spec.family == "period":
            names += [spec.name.format(k=k) for k in range(1, 6)]
        elif spec.family == "tax_year":
            names += [spec.name.format(year=y) for y in range(2017, 2026)]
    return names


def check_columns(columns: Iterable[object], keep: Sequence[str] = ()) -> None:
    """Raise :class:`ScenarioError` for any column that is neither an input, ``id``,
    ``label`` nor one of ``keep`` (with the closest known names)."""
    unknown: list[str] = []
    for column in columns:
        name = str(column)
        if name in RESERVED or name in keep or input_spec(name) is not None:
            continue
        unknown.append(name)
    if unknown:
        known = _all_names()
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=1)
            hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise ScenarioError(
            "unknown scenario column(s): "
            + ", ".join(hints)
            + "; see docs/scenarios.md (descriptive columns: pass them in keep=[...])"
        )
    seen: set[str] = set()
    for column in columns:
        name = str(column)
        if name in seen:
            raise ScenarioError(f"column {name!r} appears twice")
        seen.add(name)


# ======================================================================= outputs


class OutKind(StrEnum):
    MONEY = "money"
    INT = "int"
    BOOL = "bool"
    FLOAT = "float"
    TEXT = "text"


@dataclass(frozen=True)
class OutputSpec:
    name: str
    kind: OutKind
    section: str
    doc: str
    #: a text column's values (OutKind.TEXT): the kernel holds each row's as its
    #: position here (a code), the results as a categorical (a dictionary column)
    categories: tuple[str, ...] = ()


def version_categories(statute: str) -> tuple[str, ...]:
    """The values of a column naming the version applied: the names of the acts modelled
    for ``statute`` in :func:`~nj_incentives.core.parameters.act_order` (a code is a
    position in it)."""
    return tuple(act.name for act in P.act_order(statute))


@dataclass(frozen=True)
class Layout:
    """The shape of a run's results: how many periods and which tax years get columns.

    All partitions of a run share one layout, so their results have the same columns.
    """

    periods: int = 0
    first_tax_year: int = 2017
    last_tax_year: int = 2025
    #: per-year and per-period columns (False: totals only)
    detail: bool = True
    #: the sections that get result columns (those with input columns in the table)
    sections: tuple[str, ...] = SECTIONS

    @property
    def tax_years(self) -> range:
        return range(self.first_tax_year, self.last_tax_year + 1)

    def outputs(self) -> list[OutputSpec]:
        """Every result column of the sections, in order (``id`` etc. come first)."""
        m, i, b, f = OutKind.MONEY, OutKind.INT, OutKind.BOOL, OutKind.FLOAT
        out = [
            OutputSpec("grant_term", i, "grant", "Term of the grant in years."),
            OutputSpec(
                "grant_cap_applies",
                b,
                "grant",
                f"The {P.AVERAGE_CAP.summary()} average cap applies.",
            ),
            OutputSpec("grant_before_cap_total", m, "grant", "Sum of the grants before the cap."),
            OutputSpec("grant_total", m, "grant", "Total grant paid after the cap."),
            OutputSpec("grant_cap_reduction", m, "grant", "What the cap took away."),
            OutputSpec(
                "grant_version",
                OutKind.TEXT,
                "grant",
                "The act whose version of 34:1B-129a. the cap applied (the core's"
                " ``version``: beip.cap_version).",
                version_categories("beip"),
            ),
        ]
        if self.detail:  # the grant schedule's columns, once per grant year (the catalog's)
            for column in GRANT_YEAR_COLUMNS:
                doc = f"{column.doc}: grant year k."
                out += [
                    OutputSpec(f"{column.scenario}_{k}", m, "grant", doc)
                    for k in range(1, MAX_TERM + 1)
                ]
        out += [
            OutputSpec("conversion_paragraph", i, "conversion", "Paragraph of 34:1B-129e."),
            OutputSpec("conversion_first_year", i, "conversion", "First tax year of the credits."),
            OutputSpec("conversion_total", m, "conversion", "Sum of the installments."),
        ]
        if self.detail:  # the conversion schedule's, once per tax year (the catalog's)
            for column in CONVERSION_YEAR_COLUMNS:
                doc = f"{column.doc}: tax year y."
                out += [
                    OutputSpec(f"{column.scenario}_{y}", m, "conversion", doc)
                    for y in self.tax_years
                ]
        out += [
            OutputSpec("credit_applied_total", m, "credit", "Credit applied against the tax."),
            OutputSpec("credit_refund_total", m, "credit", "Excess refunded as overpayment."),
        ]
        if self.detail:
            out += [
                OutputSpec(f"credit_applied_{y}", m, "credit", "Applied in tax year y.")
                for y in self.tax_years
            ]
            out += [
                OutputSpec(f"credit_refund_{y}", m, "credit", "Overpayment of tax year y.")
                for y in self.tax_years
            ]
        out += [
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
        if self.detail:  # the ERTC schedule's, once per period (the catalog's)
            for column in ERTC_PERIOD_COLUMNS:
                doc = column.doc.replace("the period", "period k") + "."
                out += [
                    OutputSpec(f"{column.scenario}_{k}", m, "ertc", doc)
                    for k in range(1, self.periods + 1)
                ]
        return [spec for spec in out if spec.section in self.sections]
