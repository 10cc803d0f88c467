"""BEIP's sections of the scenario table: the grant over its term (``grant``), its
conversion to tax credits (``conversion``) and their use against each tax year's liability
(``credit``, which needs ``conversion``); their input columns, their result columns and
their computation, each section twice: the exact vectorized kernel over int64 cents (the
core's rules run by the int64 evaluator) and the scalar path, one row through the core,
which the kernel must equal and which gives every row error message (the runner:
:mod:`nj_incentives.scenarios`; the vocabulary: :mod:`nj_incentives.core.scenario_sections`;
docs/scenarios.md).

Exactness. Money is a count of cents; a fraction p is an integer P / 10^9. Every rounding
of the core is a floor of a non-negative rational, done in integers by the int64
evaluator. The runner's limits (:mod:`nj_incentives.core.scenario_inputs`) bound every
value, so no sum or product overflows int64; they are listed with each operation below.
The scalar path's messages are the core's, with two additions that locate the value in
the table: the conversion's ``amount`` is named ``conversion_amount`` (its column), and a
credit application error says which tax year ("tax year 2019: ...").
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from nj_incentives.core import parameters as P
from nj_incentives.core.common import InputError, as_money
from nj_incentives.core.inputs import MAX_DATE, InputKind, InputRule
from nj_incentives.core.rules import Ratio
from nj_incentives.core.scenario_inputs import (
    GROWTH,
    MAX_MONEY_CENTS,
    InputSpec,
    Kind,
    count_input,
    money_input,
)
from nj_incentives.core.scenario_sections import (
    I64,
    INT64,
    SCALE,
    Columns,
    ConvertedColumn,
    OutKind,
    Outputs,
    OutputSpec,
    RowLimits,
    Section,
    SectionOut,
    Shape,
    Values,
    version_categories,
)
from nj_incentives.core.scenario_sections import cell as _get
from nj_incentives.core.scenario_sections import fill_copy as _fill_copy
from nj_incentives.core.scenario_sections import fill_forward as _fill_forward
from nj_incentives.core.scenario_sections import fill_money as _fill_money
from nj_incentives.core.scenario_sections import grown as _grown
from nj_incentives.core.scenario_sections import kept as _kept
from nj_incentives.core.scenario_sections import last_given as _last_given
from nj_incentives.core.scenario_sections import located as _located
from nj_incentives.core.scenario_sections import nothing as _nothing
from nj_incentives.core.scenario_sections import or_default as _or
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.beip.functions import CONVERSION_YEAR_COLUMNS, GRANT_YEAR_COLUMNS

__all__ = [
    "INPUTS",
    "MAX_TERM",
    "SECTIONS",
    "conversion_kernel",
    "conversion_outputs",
    "conversion_row",
    "conversion_years",
    "credit_kernel",
    "credit_outputs",
    "credit_row",
    "example_columns",
    "grant_kernel",
    "grant_outputs",
    "grant_row",
]

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

#: Term of the grant: N.J.S.A. 34:1B-129c. ("shall not exceed 10 years").
MAX_TERM = beip.MAXIMUM_TERM_YEARS

_S_PCT = SCALE[Kind.FRACTION]
_YEARS = range(1, MAX_TERM + 1)
_INT64 = INT64
_ZERO = Decimal("0.00")
#: the scalar path's reading of the columns above (their rules, the runner's limits)
_LIMITS = RowLimits(INPUTS)
_money_limit, _count_limit, _growth = _LIMITS.money, _LIMITS.count, _LIMITS.growth


# =========================================================================== outputs


def grant_outputs(layout: Shape) -> list[OutputSpec]:
    """The grant section's result columns."""
    m, i, b = OutKind.MONEY, OutKind.INT, OutKind.BOOL
    out = [
        OutputSpec("grant_term", i, "grant", "Term of the grant in years."),
        OutputSpec(
            "grant_cap_applies",
            b,
            "grant",
            f"The {BEIP.AVERAGE_CAP.summary()} average cap applies.",
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
    if layout.detail:  # the grant schedule's columns, once per grant year (the catalog's)
        for column in GRANT_YEAR_COLUMNS:
            doc = f"{column.doc}: grant year k."
            out += [
                OutputSpec(f"{column.scenario}_{k}", m, "grant", doc)
                for k in range(1, MAX_TERM + 1)
            ]
    return out


def conversion_outputs(layout: Shape) -> list[OutputSpec]:
    """The conversion section's result columns."""
    m, i = OutKind.MONEY, OutKind.INT
    out = [
        OutputSpec("conversion_paragraph", i, "conversion", "Paragraph of 34:1B-129e."),
        OutputSpec("conversion_first_year", i, "conversion", "First tax year of the credits."),
        OutputSpec("conversion_total", m, "conversion", "Sum of the installments."),
    ]
    if layout.detail:  # the conversion schedule's, once per tax year (the catalog's)
        for column in CONVERSION_YEAR_COLUMNS:
            doc = f"{column.doc}: tax year y."
            out += [
                OutputSpec(f"{column.scenario}_{y}", m, "conversion", doc) for y in layout.tax_years
            ]
    return out


def credit_outputs(layout: Shape) -> list[OutputSpec]:
    """The credit section's result columns."""
    m = OutKind.MONEY
    out = [
        OutputSpec("credit_applied_total", m, "credit", "Credit applied against the tax."),
        OutputSpec("credit_refund_total", m, "credit", "Excess refunded as overpayment."),
    ]
    if layout.detail:
        out += [
            OutputSpec(f"credit_applied_{y}", m, "credit", "Applied in tax year y.")
            for y in layout.tax_years
        ]
        out += [
            OutputSpec(f"credit_refund_{y}", m, "credit", "Overpayment of tax year y.")
            for y in layout.tax_years
        ]
    return out


# =========================================================================== grant
# N.J.S.A. 34:1B-129a., b., c.; N.J.A.C. 19:31I-1.4(a): the core's rules beip.grant_bounds
# and beip.grant_years, run by the int64 evaluator; the kernel only reads the columns.


#: law_as_of: the first day a version of 34:1B-129 is modelled (day number), and the
#: day number that stands for a blank (every version known).
_FIRST_BEIP_DAY = (P.first_modelled("beip").date - dt.date(1970, 1, 1)).days
_ALL_VERSIONS = np.iinfo(np.int64).max


def _year_figures(
    values: list[np.ndarray], read: list[ConvertedColumn], k: int, in_year: list[np.ndarray]
) -> np.ndarray:
    """Year k's figures for the rule: a fast row's within its term, 0 past it (a year past
    the term adds 0). A row not fast may hold any value its reading left (its results
    are not used; every value stays within the reading's bounds times the growth of the
    years filled). Only a column given in the table can hold a figure past a fast row's
    term, and only from year 2 (every row's term is at least a year): filling forward
    writes within the term only (:func:`fill_forward`)."""
    if k == 1 or read[k - 1].absent:
        return values[k - 1]
    return _kept(values[k - 1], in_year[k - 1])


def grant_kernel(chunk: Columns) -> SectionOut:
    """The grant schedule of every row (the core's ``beip.grant_schedule``)."""
    n = chunk.n
    present = chunk.present("grant")
    if not present.any():
        return _nothing(n)
    fast = present.copy()

    term = chunk.col("term")
    has_term = ~term.blank
    fast &= ~term.bad  # 1 to 10 years: the declaration beip.TERM_INPUT (convert reads it)
    growth_w, growth_p = chunk.col("withholdings_growth"), chunk.col("partner_tax_growth")
    fast &= ~growth_w.bad & ~growth_p.bad

    cols = {
        name: [chunk.col(f"{name}_{k}") for k in _YEARS]
        for name in ("withholdings", "new_employees", "partner_tax")
    }
    # a column not in the chunk is blank in every row: nothing to read, fill or check
    last = np.zeros(n, I64)
    for k in _YEARS:
        given = [~cols[name][k - 1].blank for name in cols if not cols[name][k - 1].absent]
        if given:
            last[np.logical_or.reduce(given)] = k
    count = np.where(has_term, term.values, last)
    fast &= count >= 1
    within = [count >= k for k in _YEARS]  # year k within the row's term
    for k in _YEARS:
        for name in cols:
            if not cols[name][k - 1].absent:
                fast &= ~(within[k - 1] & cols[name][k - 1].bad)

    w = [c.values for c in cols["withholdings"]]
    w_blank = [c.blank for c in cols["withholdings"]]
    e = [c.values for c in cols["new_employees"]]
    e_blank = [c.blank for c in cols["new_employees"]]
    p = [c.values for c in cols["partner_tax"]]
    p_blank = [c.blank for c in cols["partner_tax"]]
    fill_rows = has_term & fast
    has_any = {name: not all(c.absent for c in cols[name]) for name in cols}
    if has_any["withholdings"]:
        _fill_forward(w, w_blank, fill_rows, count, _grown(growth_w), within)
    if has_any["new_employees"]:
        _fill_forward(e, e_blank, fill_rows, count, lambda previous: previous, within)
    any_partner = np.zeros(n, bool)
    if has_any["partner_tax"]:
        _fill_forward(p, p_blank, fill_rows, count, _grown(growth_p), within)
        for k in _YEARS:
            any_partner |= within[k - 1] & ~p_blank[k - 1]
    partners = bool(any_partner.any())
    for k in _YEARS:
        inside = within[k - 1]
        fast &= ~(inside & (w_blank[k - 1] | e_blank[k - 1]))
        fast &= ~(inside & (w[k - 1] > MAX_MONEY_CENTS))
        if partners:
            fast &= ~(inside & any_partner & p_blank[k - 1])
            fast &= ~(inside & (p[k - 1] > MAX_MONEY_CENTS))

    agreement = chunk.col("agreement_date")
    smart = chunk.col("smart_growth")
    pct = chunk.col("pct")
    partner_pct = chunk.col("partner_pct")
    fast &= agreement.ok & ~smart.bad & pct.ok & ~partner_pct.bad
    # partner_pct blank: 0 (the core default)
    pct_w, pct_p = Ratio(pct.values, _S_PCT), Ratio(partner_pct.values, _S_PCT)
    ok_w, ok_p, used = beip.grant_bounds(_INT64, pct_w, pct_p, smart.values == 1)
    fast &= ok_w & ok_p & used

    # the reading of the cap (beip.CAP_METHODS, blank: "per_year"): each computed by the
    # core's rule of that reading, the row's own picked (issue 19, item 8: the whole-term
    # and proportional readings left the vectorized path)
    method = chunk.col("cap_method")
    fast &= ~method.bad
    # law_as_of (blank: every version): a date before the first version modelled is the
    # scalar path's error (parameters.first_modelled); the rules read each row's figures
    law = chunk.col("law_as_of")
    fast &= ~law.bad & (law.blank | (law.values >= _FIRST_BEIP_DAY))
    as_of = None if law.blank.all() else np.where(law.blank, _ALL_VERSIONS, law.values)
    in_year = [fast & within[k - 1] for k in _YEARS]
    # no partners' tax in any row of the chunk: that part is 0 in every row (the same
    # value as 0 x each row's partner_pct), computed once
    partner_tax: list[Any] = [0] * MAX_TERM
    pct_partners: Any = Ratio(0, _S_PCT)
    if partners:
        partner_tax = [_kept(p[k - 1], in_year[k - 1] & any_partner) for k in _YEARS]
        pct_partners = pct_p
    columns = (
        [_year_figures(w, cols["withholdings"], k, in_year) for k in _YEARS],
        partner_tax,
        [_year_figures(e, cols["new_employees"], k, in_year) for k in _YEARS],
    )
    years, total = beip.grant_years(
        _INT64, *columns, pct_w, pct_partners, agreement.values, beip.CITE_A, as_of
    )
    for reading in ("whole_term", "proportional"):
        rows = fast & ~method.blank & (method.values == beip.CAP_METHODS.index(reading))
        if not rows.any():
            continue
        other, other_total, _ = beip.grant_years_over_term(
            _INT64,
            *columns,
            pct_w,
            pct_partners,
            agreement.values,
            reading == "proportional",
            as_of=as_of,
            term=count,
        )
        years = [
            (before, room, np.where(rows, paid_other, paid))
            for (before, room, paid), (_, _, paid_other) in zip(years, other, strict=True)
        ]
        total = np.where(rows, other_total, total)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    before_total = np.zeros(n, I64)  # <= 10 x 1.3 x 10^13
    by_year: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for k, (before, _, paid) in zip(_YEARS, years, strict=True):
        before_total += before
        fields = {"grant_before_cap": before, "grant": paid}  # beip.GrantYear's fields
        for column in GRANT_YEAR_COLUMNS:
            by_year[f"{column.scenario}_{k}"] = (fields[column.field], in_year[k - 1])
    capped = beip.cap_date_rule(_INT64, agreement.values, as_of)
    out["grant_term"] = (count, fast)
    out["grant_cap_applies"] = (capped.astype(I64), fast)
    out["grant_before_cap_total"] = (before_total, fast)
    out["grant_total"] = (total, fast)
    out["grant_cap_reduction"] = (before_total - total, fast)
    # the version applied, as the act's code (columns.version_categories): one constant
    # for every row while the cap's figures have one version each
    version = beip.cap_version_rule(_INT64, agreement.values, as_of)
    out["grant_version"] = (np.broadcast_to(np.asarray(version, I64), (n,)), fast)
    out.update(by_year)
    return SectionOut(present, fast, out)


# =========================================================================== conversion
# N.J.S.A. 34:1B-129e.(1)-(13): the core's rules beip.first_tax_year and beip.installments

_FIRST_ACCRUAL, _LAST_ACCRUAL = beip.FIRST_ACCRUAL_YEAR, beip.LAST_ACCRUAL_YEAR
_MAX_INSTALLMENTS = max(len(p.shares) for p in beip.CONVERSION_PARAGRAPHS)


def _paragraph_table() -> dict[str, np.ndarray]:
    """The paragraphs of e. by accrual year (from the core's CONVERSION_PARAGRAPHS): the
    shares as numerators over one common denominator (:data:`_SHARE_DEN`)."""
    years = range(_FIRST_ACCRUAL, _LAST_ACCRUAL + 1)
    rows = [beip.conversion_paragraph(year) for year in years]
    share_num = np.zeros((len(rows), _MAX_INSTALLMENTS), I64)
    for i, paragraph in enumerate(rows):
        for j, share in enumerate(paragraph.fractions):
            share_num[i, j] = Fraction(share) * _SHARE_DEN
    return {
        "paragraph": np.array([p.paragraph for p in rows], I64),
        "first": np.array([p.first_tax_year for p in rows], I64),
        "count": np.array([len(p.shares) for p in rows], I64),
        "late_rule": np.array([p.late_approval_rule for p in rows], bool),
        "share_num": share_num,
    }


#: the installment of each tax year (beip.ConversionRow.amount), the catalog's result column
(_INSTALLMENT,) = (column.scenario for column in CONVERSION_YEAR_COLUMNS)
_SHARE_DEN = math.lcm(
    *(Fraction(s).denominator for p in beip.CONVERSION_PARAGRAPHS for s in p.fractions)
)
_PARAGRAPHS = _paragraph_table()
#: the shares' numerators, installment by accrual year (one take reads a row's five)
_SHARE_NUM_BY_INSTALLMENT = np.ascontiguousarray(_PARAGRAPHS["share_num"].T)


def _accrual_index(chunk: Columns) -> np.ndarray:
    """Each row's accrual year as a row of the paragraph table (read once a chunk)."""
    found = chunk.memo.get("accrual_index")
    if found is None:
        year = chunk.col("accrual_year")
        found = np.clip(year.values - _FIRST_ACCRUAL, 0, _LAST_ACCRUAL - _FIRST_ACCRUAL)
        chunk.memo["accrual_index"] = found
    index: np.ndarray = found  # type: ignore[assignment]
    return index


def conversion_years(chunk: Columns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ok rows, first tax year, last tax year) of each row's conversion, for the layout
    (the core's rule ``beip.first_tax_year``)."""
    found = chunk.memo.get("conversion_years")
    if found is not None:
        return found  # type: ignore[return-value]
    year, approval = chunk.col("accrual_year"), chunk.col("approval_date")
    ok = year.ok & ~approval.bad  # 2008-2025: the declaration beip.ACCRUAL_YEAR_INPUT
    index = _accrual_index(chunk)
    start, _ = beip.first_tax_year(
        _INT64,
        _PARAGRAPHS["first"].take(index),
        _PARAGRAPHS["late_rule"].take(index),
        ~approval.blank,
        approval.values,  # 0 where blank (ConvertedColumn)
    )
    count = _PARAGRAPHS["count"].take(index)
    chunk.memo["installment_count"] = count
    years = ok, start, start + count - 1
    chunk.memo["conversion_years"] = years
    return years


def conversion_kernel(chunk: Columns, layout: Shape) -> SectionOut:
    """The conversion schedule of every row, one column per tax year of the layout
    (the core's rule ``beip.installments``)."""
    n = chunk.n
    present = chunk.present("conversion")
    if not present.any():
        return _nothing(n)
    amount = chunk.col("conversion_amount")
    ok, start, last = conversion_years(chunk)
    fast = present & ok & amount.ok
    fast &= (start >= layout.first_tax_year) & (last <= layout.last_tax_year)
    # a calendar filer's tax year N ends December 31 of N: none after the last date
    fast &= last <= MAX_DATE.year
    # the dates of e. checked by the core only: the exact path (issue 10, item 8)
    fast &= chunk.col("grant_approval_date").blank & chunk.col("direction_date").blank
    fast &= chunk.col("direction_deadline").blank
    index = _accrual_index(chunk)
    count = chunk.memo["installment_count"]  # conversion_years'
    total = _kept(amount.values, fast)  # <= 10^13 cents; x share numerator < 2^63
    share_num = _SHARE_NUM_BY_INSTALLMENT.take(index, axis=1)  # (installment, row)
    shares = [Ratio(share_num[j], _SHARE_DEN) for j in range(_MAX_INSTALLMENTS)]
    parts = beip.installments(_INT64, total, shares, count)

    out: dict[str, tuple[np.ndarray, np.ndarray]] = {
        "conversion_paragraph": (_PARAGRAPHS["paragraph"].take(index), fast),
        "conversion_first_year": (start, fast),
        "conversion_total": (total, fast),
    }
    years = layout.tax_years
    # installment j of a row goes to tax year start + j: fast rows' installments lie
    # within the layout's years; the rows below them take installment j of a row whose
    # count is j or less (0; start + j may pass the last tax year) and the other rows'
    # (0: their total is 0, their start the first year). Each (row, j) its own cell, so
    # each installment is one assignment by flat index, cell (tax year i, row) at
    # i x n + row (a third of the time of a (year, row) pair index).
    by_year = np.zeros((len(years) + _MAX_INSTALLMENTS - 1, n), I64)
    flat = by_year.reshape(-1)  # a view
    cell = _kept(start - years.start, fast)
    cell *= n
    cell += np.arange(n)
    for part in parts:
        flat[cell] = part
        cell += n
    for i, tax_year in enumerate(years):
        out[f"{_INSTALLMENT}_{tax_year}"] = (by_year[i], fast)
    return SectionOut(present, fast, out)


# =========================================================================== credit
# N.J.S.A. 34:1B-129f. (the core's rule beip.credit_application), one tax year at a time


def credit_kernel(chunk: Columns, layout: Shape, converted: SectionOut) -> SectionOut:
    """Each tax year's installment applied against that year's liability."""
    n = chunk.n
    present = chunk.present("credit")
    if not present.any():
        return _nothing(n)
    fast = present & converted.fast
    # the minimum-tax reading of f.: the exact path (issue 10, item 8)
    fast &= chunk.col("credit_minimum_tax").blank
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    applied_total = np.zeros(n, I64)
    refund_total = np.zeros(n, I64)
    applied_cols, refund_cols = {}, {}
    for tax_year in layout.tax_years:
        liability = chunk.col(f"tax_liability_{tax_year}")
        installment = converted.values[f"{_INSTALLMENT}_{tax_year}"][0]
        fast &= ~liability.bad & ~(liability.blank & (installment > 0))
        # f.: applied first against the tax, the excess an overpayment (beip.credit_application)
        tax = liability.values  # 0 where blank (ConvertedColumn)
        applied, refund, _ = beip.credit_application(_INT64, installment, tax, 0)
        applied_total += applied
        refund_total += refund
        applied_cols[f"credit_applied_{tax_year}"] = applied
        refund_cols[f"credit_refund_{tax_year}"] = refund
    out["credit_applied_total"] = (applied_total, fast)
    out["credit_refund_total"] = (refund_total, fast)
    out.update({name: (values, fast) for name, values in applied_cols.items()})
    out.update({name: (values, fast) for name, values in refund_cols.items()})
    return SectionOut(present, fast, out)


# =========================================================================== the scalar path
# One row at a time, straight through the calculation core (the reference the kernel
# must equal, and the source of every row error message).


# =========================================================================== grant


def grant_row(values: Values) -> Outputs:
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


def conversion_row(values: Values, layout: Shape) -> Outputs:
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


def credit_row(values: Values, layout: Shape) -> Outputs | None:
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
        converted = conversion_row(values, layout)
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


# =========================================================================== the sections


def _grant(chunk: Columns, layout: Shape, done: Any) -> SectionOut:
    return grant_kernel(chunk)


def _conversion(chunk: Columns, layout: Shape, done: Any) -> SectionOut:
    return conversion_kernel(chunk, layout)


def _credit(chunk: Columns, layout: Shape, done: Any) -> SectionOut:
    return credit_kernel(chunk, layout, done["conversion"])


def _grant_row(values: Values, layout: Shape) -> Outputs | None:
    return grant_row(values)


#: The program's sections, in the order the results show them.
SECTIONS = (
    Section("grant", grant_outputs, _grant, _grant_row, years=MAX_TERM),
    Section(
        "conversion",
        conversion_outputs,
        _conversion,
        conversion_row,
        tax_years=conversion_years,
        tax_year_total="conversion_total",
    ),
    Section(
        "credit",
        credit_outputs,
        _credit,
        credit_row,
        needs=("conversion",),
        tax_year_total="credit_applied_total",
    ),
)


# =========================================================================== an example


def example_columns(rng: np.random.Generator, n: int) -> dict[str, Any]:
    """The BEIP columns of ``n`` rows of the synthetic portfolio (the runner's
    ``example_portfolio``): a grant with a 1-10 year term (withholdings from year 1 with
    growth, new employees, some at the average cap, some agreements before the cap's,
    some smart growth); a conversion of an accrual 2008-2025 (some approved late) applied
    against the liabilities of 2017-2025. Plausible figures, not data."""
    day = np.datetime64(BEIP.CAP_AGREEMENTS_FROM.single)
    smart = rng.random(n) < 0.2
    pct = np.round(rng.uniform(0.1, 0.5, n), 4)
    columns: dict[str, Any] = {
        "agreement_date": day + rng.integers(-1500, 4000, n).astype("timedelta64[D]"),
        "pct": np.where(smart, np.round(pct * 1.6, 4), pct),
        "smart_growth": smart,
        "term": rng.integers(1, 11, n),
        "withholdings_1": np.round(rng.lognormal(13, 1, n), 2),
        "withholdings_growth": np.round(rng.normal(0.03, 0.02, n), 4),
        "new_employees_1": rng.integers(0, 60, n),
        "accrual_year": rng.integers(2008, 2026, n),
        "conversion_amount": np.round(rng.lognormal(12.5, 1, n), 2),
        "approval_date": np.datetime64("2016-01-01")
        + rng.integers(0, 1200, n).astype("timedelta64[D]"),
    }
    for year in range(2017, 2026):
        columns[f"tax_liability_{year}"] = np.round(rng.lognormal(11, 1.5, n), 2)
    return columns
