"""The exact vectorized kernel: every section of many scenarios at once, in int64 cents.

Each section function takes a :class:`Chunk` (the converted input columns of some rows)
and returns a :class:`SectionOut`: which rows have the section (``present``), which of
those the kernel computed (``fast``), and the result columns. A present row that is not
``fast`` goes to the scalar path (:mod:`nj_incentives.scenarios.scalar`), which gives
the core's result or the core's error message; the kernel never guesses a message.

Exactness. Money is a count of cents; a fraction p is an integer P / 10^9; positions are
integers / 10^8. Every rounding of the core is a floor of a non-negative rational, done
in integers:

- ``cents_down(a x p)`` = ``floor(a x P / D)`` = ``q x P + floor(r x P / D)`` with
  ``a = q x D + r`` (:func:`mul_frac`): no intermediate exceeds ``D x P <= 10^18``;
- the ERTC refund ``cents_down(remaining x y2 / y1)``, whose product can pass 2^63, is
  a float estimate corrected exactly with the remainder computed modulo 2^64
  (:func:`muldiv_floor`).

The runner's limits (:mod:`nj_incentives.scenarios.columns`) bound every value, so no
sum or product overflows int64; they are listed with each operation below.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from nj_incentives.core import parameters as P
from nj_incentives.core.rules import Int64, Ratio, mul_frac, muldiv_floor
from nj_incentives.functions.catalog import (
    CONVERSION_YEAR_COLUMNS,
    ERTC_PERIOD_COLUMNS,
    GRANT_YEAR_COLUMNS,
)
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.scenarios.columns import (
    MAX_MONEY_CENTS,
    MAX_TERM,
    SCALE,
    Kind,
    Layout,
    input_spec,
)
from nj_incentives.scenarios.convert import ConvertedColumn, convert
from nj_incentives.scenarios.scalar import grown_rule, next_period_end_rule

__all__ = [
    "Chunk",
    "SectionOut",
    "conversion",
    "credit",
    "ertc_schedule",
    "grant",
    "mul_frac",
    "muldiv_floor",
]

I64 = np.dtype(np.int64)
_S_PCT = SCALE[Kind.FRACTION]
_S_GROWTH = SCALE[Kind.GROWTH]
_S_POS = SCALE[Kind.POSITIONS]
_YEARS = range(1, MAX_TERM + 1)
_INT64 = Int64()


# ----------------------------------------------------------------------- calendar
# mul_frac, muldiv_floor and the day-number calendar (civil_from_days, days_from_civil,
# days_in_month) are the int64 evaluator's, in nj_incentives.core.rules.


# ----------------------------------------------------------------------- chunks


class Chunk:
    """The input columns of some scenario rows, converted on first use."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self.n = len(frame)
        self._cache: dict[str, ConvertedColumn] = {}
        self._empty = ConvertedColumn.empty(self.n)
        #: figures computed once a chunk (the conversion's tax years: layout and kernel)
        self.memo: dict[str, object] = {}

    def col(self, name: str) -> ConvertedColumn:
        column = self._cache.get(name)
        if column is None:
            if name in self.frame.columns:
                found = input_spec(name)
                if found is None:  # pragma: no cover - checked by check_columns
                    raise KeyError(name)
                column = convert(self.frame[name], found[0])
            else:
                column = self._empty
            self._cache[name] = column
        return column

    def section_columns(self, section: str, triggers_only: bool = False) -> Iterator[str]:
        """The input columns of a section present in this chunk."""
        for name in self.frame.columns:
            found = input_spec(str(name))
            wanted = found is not None and found[0].section == section
            if wanted and (not triggers_only or found[0].trigger):  # type: ignore[index]
                yield str(name)

    def present(self, section: str) -> np.ndarray:
        """Rows in which any triggering column of the section is non-blank."""
        present = np.zeros(self.n, bool)
        for name in self.section_columns(section, triggers_only=True):
            present |= ~self.col(name).blank
        return present


@dataclass
class SectionOut:
    """What the kernel computed for one section of a chunk."""

    present: np.ndarray
    fast: np.ndarray
    #: result column -> (values, valid rows); valid rows are always within ``fast``.
    #: Money in cents (int64); counts int64; flags 0/1; the ratio float64.
    values: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def scalar(self) -> np.ndarray:
        """Rows the scalar path must compute (or explain)."""
        rows: np.ndarray = self.present & ~self.fast
        return rows


def _nothing(n: int) -> SectionOut:
    return SectionOut(np.zeros(n, bool), np.zeros(n, bool))


# =========================================================================== grant
# N.J.S.A. 34:1B-129a., b., c.; N.J.A.C. 19:31I-1.4(a): the core's rules beip.grant_bounds
# and beip.grant_years, run by the int64 evaluator; the kernel only reads the columns.


def _fill_forward(
    values: list[np.ndarray],
    blank: list[np.ndarray],
    fill_rows: np.ndarray,
    count: np.ndarray,
    step: object,
) -> None:
    """Runner convenience: blank entries k = 2..count filled from k-1 by ``step`` (in place)."""
    for k in range(1, len(values)):
        fill = fill_rows & (k + 1 <= count) & blank[k] & ~blank[k - 1]
        if fill.any():
            values[k] = np.where(fill, step(values[k - 1]), values[k])  # type: ignore[operator]
            blank[k] = blank[k] & ~fill


def _grown(growth: ConvertedColumn) -> object:
    """The fill step :func:`~.scalar.grown_rule`: previous <= 2 x 10^13 cents, 1 + growth
    <= 2 x 10^9 / 10^9 (growth 0 where blank)."""
    rate = Ratio(growth.values, _S_GROWTH)

    def step(previous: np.ndarray) -> np.ndarray:
        return np.asarray(grown_rule(_INT64, previous, rate))

    return step


#: law_as_of: the first day a version of 34:1B-129 is modelled (day number), and the
#: day number that stands for a blank (every version known).
_FIRST_BEIP_DAY = (P.first_modelled("beip").date - dt.date(1970, 1, 1)).days
_ALL_VERSIONS = np.iinfo(np.int64).max


def grant(chunk: Chunk) -> SectionOut:
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
    last = np.zeros(n, I64)
    for k in _YEARS:
        given = np.zeros(n, bool)
        for name in cols:
            given |= ~cols[name][k - 1].blank
        last[given] = k
    count = np.where(has_term, term.values, last)
    fast &= count >= 1
    for k in _YEARS:
        inside = k <= count
        for name in cols:
            fast &= ~(inside & cols[name][k - 1].bad)

    w = [c.values for c in cols["withholdings"]]
    w_blank = [c.blank for c in cols["withholdings"]]
    e = [c.values for c in cols["new_employees"]]
    e_blank = [c.blank for c in cols["new_employees"]]
    p = [c.values for c in cols["partner_tax"]]
    p_blank = [c.blank for c in cols["partner_tax"]]
    _fill_forward(w, w_blank, has_term & fast, count, _grown(growth_w))
    _fill_forward(e, e_blank, has_term & fast, count, lambda previous: previous)
    _fill_forward(p, p_blank, has_term & fast, count, _grown(growth_p))

    any_partner = np.zeros(n, bool)
    for k in _YEARS:
        any_partner |= (k <= count) & ~p_blank[k - 1]
    for k in _YEARS:
        inside = k <= count
        fast &= ~(inside & (w_blank[k - 1] | e_blank[k - 1]))
        fast &= ~(inside & any_partner & p_blank[k - 1])
        fast &= ~(inside & ((w[k - 1] > MAX_MONEY_CENTS) | (p[k - 1] > MAX_MONEY_CENTS)))

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
    in_year = [fast & (k <= count) for k in _YEARS]
    columns = (
        [np.where(in_year[k - 1], w[k - 1], 0) for k in _YEARS],
        [np.where(in_year[k - 1] & any_partner, p[k - 1], 0) for k in _YEARS],
        [np.where(in_year[k - 1], e[k - 1], 0) for k in _YEARS],
    )
    years, total = beip.grant_years(
        _INT64, *columns, pct_w, pct_p, agreement.values, beip.CITE_A, as_of
    )
    for reading in ("whole_term", "proportional"):
        rows = fast & ~method.blank & (method.values == beip.CAP_METHODS.index(reading))
        if not rows.any():
            continue
        other, other_total, _ = beip.grant_years_over_term(
            _INT64,
            *columns,
            pct_w,
            pct_p,
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


def _accrual_index(chunk: Chunk) -> np.ndarray:
    year = chunk.col("accrual_year")
    index: np.ndarray = np.clip(year.values - _FIRST_ACCRUAL, 0, _LAST_ACCRUAL - _FIRST_ACCRUAL)
    return index


def conversion_years(chunk: Chunk) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
        _PARAGRAPHS["first"][index],
        _PARAGRAPHS["late_rule"][index],
        ~approval.blank,
        np.where(approval.blank, 0, approval.values),
    )
    years = ok, start, start + _PARAGRAPHS["count"][index] - 1
    chunk.memo["conversion_years"] = years
    return years


def conversion(chunk: Chunk, layout: Layout) -> SectionOut:
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
    # the dates of e. checked by the core only: the exact path (issue 10, item 8)
    fast &= chunk.col("grant_approval_date").blank & chunk.col("direction_date").blank
    fast &= chunk.col("direction_deadline").blank
    index = _accrual_index(chunk)
    count = _PARAGRAPHS["count"][index]
    total = np.where(fast, amount.values, 0)  # <= 10^13 cents; x share numerator < 2^63
    shares = [
        Ratio(_PARAGRAPHS["share_num"][index, j], _SHARE_DEN) for j in range(_MAX_INSTALLMENTS)
    ]
    parts = beip.installments(_INT64, total, shares, count)

    out: dict[str, tuple[np.ndarray, np.ndarray]] = {
        "conversion_paragraph": (_PARAGRAPHS["paragraph"][index], fast),
        "conversion_first_year": (start, fast),
        "conversion_total": (total, fast),
    }
    years = layout.tax_years
    by_year = np.zeros((len(years), n), I64)
    rows = np.arange(n)
    offset = np.where(fast, start - years.start, 0)
    for j, part in enumerate(parts):
        # installment j goes to tax year start + j (fast rows lie within the layout)
        column = np.minimum(offset + j, len(years) - 1)
        by_year[column, rows] += part
    for i, tax_year in enumerate(years):
        out[f"{_INSTALLMENT}_{tax_year}"] = (by_year[i], fast)
    return SectionOut(present, fast, out)


# =========================================================================== credit
# N.J.S.A. 34:1B-129f. (the core's rule beip.credit_application), one tax year at a time


def credit(chunk: Chunk, layout: Layout, converted: SectionOut) -> SectionOut:
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
        tax = np.where(liability.blank, 0, liability.values)
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


# =========================================================================== ertc
# N.J.S.A. 52:27BBB-55a., b., c., e.: the core's rules (ertc.credit_years_rule,
# allowance_period_rule, credit_amount_rule, sustained_effort_ratio_rule, schedule_rule)
# run by the int64 evaluator; the kernel only reads the columns, fills them forward and
# says which rows it computed.

#: A day number after every period end: what a row's missing periods end on, so that
#: the b.(1) count of periods ending before a credit year counts only the row's own.
_NO_PERIOD = 2**40
_INSURANCE = ertc.TAX_TYPES.index("insurance")


def credit_year_ends(start_days: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Last days of credit years one and two (52:27BBB-55e.: ``ertc.credit_years_rule``)."""
    _, one_end, _, two_end = ertc.credit_years_rule(_INT64, start_days)
    return one_end, two_end


def _next_period_end(end_days: np.ndarray) -> np.ndarray:
    return np.asarray(next_period_end_rule(_INT64, end_days))


def ertc_schedule(chunk: Chunk, layout: Layout) -> SectionOut:
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
