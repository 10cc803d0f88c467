"""The floor of the scenario benchmark (issue 14, item 1): the simplest correct numpy
version of the four sections, for the benchmark's table only.

``floor_run(df)`` computes what ``run_scenarios(df)`` computes for a table shaped like
:func:`nj_incentives.scenarios.generate.example_portfolio` (float, int and datetime64
columns; every row with all four sections; ``term`` and ``periods`` given; only
``withholdings_1``, ``new_employees_1``, ``period_end_1``, ``liability_1``,
``other_credits_1`` and ``minimum_tax_1`` given, the later years and periods filled
forward) and returns the same results frame: float dollars, nullable ints, the error
column. It is straight numpy in int64 cents, one pass over the whole table (no chunks),
written for this table and nothing else: no reading of text, Decimal or object columns,
no blank cells, no exactness checks of the floats (the table is in cents), no
switches. The only input checks are those the table's rows can fail (a grant percentage
out of bounds); rows that fail go through the same scalar core the runner uses
(:func:`nj_incentives.scenarios.scalar.run_row`), so both pay for the same messages.
tests/benchmarks/test_scenarios_floor.py checks ``floor_run(df) == run_scenarios(df)``
on a sample; tests/benchmarks/test_scenarios_bench.py times the two side by side.

The law's figures are imported (constants, the paragraphs of e.); the arithmetic is
written out here in numpy, not through the rule language.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from nj_incentives.core import parameters as P
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.scenarios.columns import Layout

try:
    from nj_incentives.scenarios.columns import version_categories
except ImportError:  # a tree from before the version column (a benchmark's "before")
    version_categories = None  # type: ignore[assignment]
from nj_incentives.scenarios.convert import raw_values
from nj_incentives.scenarios.scalar import run_row

I64 = np.int64
PCT = 10**9  # fractions as integers / 10^9
DAY = np.timedelta64(1, "D")


def _cents(series: pd.Series) -> np.ndarray:
    return np.rint(series.to_numpy(np.float64) * 100).astype(I64)


def _scaled(series: pd.Series, scale: int) -> np.ndarray:
    return np.rint(series.to_numpy(np.float64) * scale).astype(I64)


def _share(amount: np.ndarray, num: np.ndarray | int, den: int) -> np.ndarray:
    """floor(amount x num / den), without overflow (amount >= 0)."""
    if int(amount.max()) * int(np.max(num)) < 2**63:
        return (amount * num) // den
    q, r = np.divmod(amount, den)
    return q * num + (r * num) // den


def _days(series: pd.Series) -> np.ndarray:
    return series.to_numpy("datetime64[D]")


def _month_end(day: np.ndarray) -> np.ndarray:
    return (day.astype("datetime64[M]") + 1).astype("datetime64[D]") - DAY


def _add_months(day: np.ndarray, months: int) -> np.ndarray:
    month = day.astype("datetime64[M]")
    first = month.astype("datetime64[D]")
    later = month + months
    start = later.astype("datetime64[D]")
    end = (later + 1).astype("datetime64[D]") - DAY
    return np.minimum(start + (day - first), end)


# =========================================================================== sections


def _grant(df: pd.DataFrame, n: int) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
    term = df["term"].to_numpy(I64, copy=True)
    pct = _scaled(df["pct"], PCT)
    smart = df["smart_growth"].to_numpy(bool)
    growth = _scaled(df["withholdings_growth"], PCT)
    high = np.where(smart, 8 * PCT // 10, 5 * PCT // 10)  # 34:1B-129a., b.
    ok = (pct >= PCT // 10) & (pct <= high)
    capped = _days(df["agreement_date"]) >= np.datetime64(beip.CAP_AGREEMENTS_FROM)
    cap = int(beip.AVERAGE_CAP_PER_NEW_EMPLOYEE * 100)
    w = _cents(df["withholdings_1"])
    employees = df["new_employees_1"].to_numpy(I64)
    paid = np.zeros(n, I64)
    before_total = np.zeros(n, I64)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    before_cols, grant_cols = {}, {}
    for k in range(1, beip.MAXIMUM_TERM_YEARS + 1):
        inside = k <= term
        if k > 1:
            w = _share(w, PCT + growth, PCT)
        before = np.where(inside, _share(w, pct, PCT), 0)
        room = np.maximum(0, cap * employees - paid)
        grant = np.where(capped, np.minimum(before, room), before)
        paid += grant
        before_total += before
        before_cols[f"grant_before_cap_{k}"] = (before, inside)
        grant_cols[f"grant_{k}"] = (grant, inside)
    true = np.ones(n, bool)
    out["grant_term"] = (term, true)
    out["grant_cap_applies"] = (capped, true)
    out["grant_before_cap_total"] = (before_total, true)
    out["grant_total"] = (paid, true)
    out["grant_cap_reduction"] = (before_total - paid, true)
    if version_categories is not None:
        # the version applied: the cap's figures have one version each, one act a row
        act = P.act_order("beip").index(BEIP.AVERAGE_CAP.versions[0].act)
        out["grant_version"] = (np.full(n, act, np.int8), true)
    out.update(before_cols)
    out.update(grant_cols)
    return ok, out


def _paragraphs() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    years = range(beip.FIRST_ACCRUAL_YEAR, beip.LAST_ACCRUAL_YEAR + 1)
    rows = [beip.conversion_paragraph(year) for year in years]
    den = math.lcm(*(Fraction(s).denominator for p in rows for s in p.fractions))
    width = max(len(p.fractions) for p in rows)
    shares = np.zeros((len(rows), width), I64)
    for i, p in enumerate(rows):
        for j, share in enumerate(p.fractions):
            shares[i, j] = Fraction(share) * den
    return (
        np.array([p.paragraph for p in rows], I64),
        np.array([p.first_tax_year for p in rows], I64),
        np.array([len(p.fractions) for p in rows], I64),
        np.array([p.late_approval_rule for p in rows], bool),
        shares,
        den,
    )


def _conversion_credit(
    df: pd.DataFrame, n: int
) -> tuple[range, dict[str, tuple[np.ndarray, np.ndarray]]]:
    paragraph, first, count, late_rule, shares, den = _paragraphs()
    index = df["accrual_year"].to_numpy(I64) - beip.FIRST_ACCRUAL_YEAR
    approval = _days(df["approval_date"])
    month = approval.astype("datetime64[M]").astype(I64)
    fiscal = month // 12 + 1970 + (month % 12 >= 6)  # July on: the next State fiscal year
    late = late_rule[index] & (approval >= np.datetime64(beip.STATE_FISCAL_YEAR_2017_START))
    start = np.where(late, fiscal, first[index])
    counts = count[index]
    years = range(min(2017, int(start.min())), max(2025, int((start + counts - 1).max())) + 1)
    amount = _cents(df["conversion_amount"])
    by_year = np.zeros((len(years), n), I64)
    issued = np.zeros(n, I64)
    rows = np.arange(n)
    for j in range(shares.shape[1]):
        part = np.where(counts == j + 1, amount - issued, _share(amount, shares[index, j], den))
        part = np.where(counts > j, part, 0)
        issued += part
        by_year[np.minimum(start - years.start + j, len(years) - 1), rows] += part
    true = np.ones(n, bool)
    out = {
        "conversion_paragraph": (paragraph[index], true),
        "conversion_first_year": (start, true),
        "conversion_total": (amount, true),
    }
    for i, year in enumerate(years):
        out[f"installment_{year}"] = (by_year[i], true)
    applied_total, refund_total = np.zeros(n, I64), np.zeros(n, I64)
    applied_cols, refund_cols = {}, {}
    for i, year in enumerate(years):
        liability = _cents(df[f"tax_liability_{year}"])  # 34:1B-129f.
        applied = np.minimum(by_year[i], liability)
        refund = by_year[i] - applied
        applied_total += applied
        refund_total += refund
        applied_cols[f"credit_applied_{year}"] = (applied, true)
        refund_cols[f"credit_refund_{year}"] = (refund, true)
    out["credit_applied_total"] = (applied_total, true)
    out["credit_refund_total"] = (refund_total, true)
    out.update(applied_cols)
    out.update(refund_cols)
    return years, out


def _ertc(
    df: pd.DataFrame, n: int
) -> tuple[np.ndarray, int, dict[str, tuple[np.ndarray, np.ndarray]]]:
    periods = int(df["periods"].max())
    count = df["periods"].to_numpy(I64)
    start = _days(df["operations_start"])
    one_start = (start - DAY).astype("datetime64[M]").astype("datetime64[D]")
    one_start = _add_months(one_start, 1)
    two_start = _add_months(one_start, 12)
    one_end, two_end = two_start - DAY, _add_months(two_start, 12) - DAY
    ends = [_days(df["period_end_1"])]
    for _ in range(1, periods):
        last = ends[-1]
        later = _add_months(last, 12)
        ends.append(np.where(last == _month_end(last), _month_end(later), later))
    first_start = _add_months(ends[0], -12) + DAY
    allowed_1 = sum((e < one_end).astype(I64) for e in ends)
    allowed_2 = sum((e < two_end).astype(I64) for e in ends)
    ok = (allowed_2 < count) & (one_end >= first_start)
    y1, y2 = df["year1_new"].to_numpy(I64), df["year2_new"].to_numpy(I64)
    credit_1 = y1 * int(ertc.CREDIT_YEAR_ONE_AMOUNT * 100)
    credit_2 = y2 * int(ertc.CREDIT_YEAR_TWO_AMOUNT * 100)
    smaller = np.minimum(y1, y2)
    q, rem = np.divmod(smaller * 10**ertc.AVERAGE_PLACES, np.maximum(y1, 1))
    q += (2 * rem > y1) | ((2 * rem == y1) & (q % 2 == 1))
    keep = np.nan_to_num(df["carryforward_years"].to_numpy(np.float64), nan=-1).astype(I64)
    liability = _cents(df["liability_1"])
    growth = _scaled(df["liability_growth"], PCT)
    others, minimum = _cents(df["other_credits_1"]), _cents(df["minimum_tax_1"])
    remaining_1, remaining_2 = np.zeros(n, I64), np.zeros(n, I64)
    totals = {name: np.zeros(n, I64) for name in ("allowed", "used", "refunded", "expired")}
    carried = np.zeros(n, I64)
    detail: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    for index in range(periods):
        within = index < count
        if index:
            liability = _share(liability, PCT + growth, PCT)
        is_1, is_2 = allowed_1 == index, allowed_2 == index
        new = np.where(is_1, credit_1, 0) + np.where(is_2, credit_2, 0)
        remaining_1 = np.where(is_1, credit_1, remaining_1)
        remaining_2 = np.where(is_2, credit_2, remaining_2)
        half = liability // 2  # b.(3): 50% of the liability, rounded down
        limit = np.maximum(0, np.minimum(half, liability - minimum) - others)
        use_1 = np.minimum(limit, remaining_1)
        use_2 = np.minimum(limit - use_1, remaining_2)
        remaining_1 = remaining_1 - use_1
        remaining_2 = remaining_2 - use_2
        refund = np.where(is_2, remaining_1 * smaller // np.maximum(y1, 1), 0)  # c.(2)
        remaining_1 = remaining_1 - refund
        expire_1 = (keep >= 0) & (allowed_1 + keep == index)
        expire_2 = (keep >= 0) & (allowed_2 + keep == index)
        expired = np.where(expire_1, remaining_1, 0) + np.where(expire_2, remaining_2, 0)
        remaining_1 = np.where(expire_1, 0, remaining_1)
        remaining_2 = np.where(expire_2, 0, remaining_2)
        carried = remaining_1 + remaining_2
        used = use_1 + use_2
        totals["allowed"] += np.where(within, new, 0)
        totals["used"] += np.where(within, used, 0)
        totals["refunded"] += np.where(within, refund, 0)
        totals["expired"] += np.where(within, expired, 0)
        figures = {
            "new_credit": new,
            "limit": limit,
            "used": used,
            "refund": refund,
            "carried_out": carried,
            "expired": expired,
        }
        for name, values in figures.items():
            detail.setdefault(name, []).append((values, within))
    true = np.ones(n, bool)
    out = {
        "ertc_year1_credit": (credit_1, true),
        "ertc_year2_credit": (credit_2, true),
        "ertc_sustained_effort_ratio": (np.where(y1 > 0, q, 0) / 10**ertc.AVERAGE_PLACES, true),
        "ertc_year1_period": (allowed_1 + 1, true),
        "ertc_year2_period": (allowed_2 + 1, true),
        "ertc_credits_allowed": (totals["allowed"], true),
        "ertc_used": (totals["used"], true),
        "ertc_refunded": (totals["refunded"], true),
        "ertc_expired": (totals["expired"], true),
        "ertc_carried_forward": (carried, true),
    }
    for name, by_period in detail.items():
        for k, value in enumerate(by_period, 1):
            out[f"ertc_{name}_{k}"] = value
    return ok, periods, out


# =========================================================================== the frame

_INTS = {"grant_term", "conversion_paragraph", "conversion_first_year"}
_INTS |= {"ertc_year1_period", "ertc_year2_period"}
#: text columns: their categories (the results hold a categorical)
_TEXT = {"grant_version": version_categories("beip")} if version_categories is not None else {}


def floor_run(df: pd.DataFrame) -> pd.DataFrame:
    """The results frame of ``run_scenarios(df)`` for the benchmark's table (module doc)."""
    n = len(df)
    grant_ok, grant = _grant(df, n)
    years, conversion = _conversion_credit(df, n)
    ertc_ok, periods, ertc_out = _ertc(df, n)
    results: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for ok, values in ((grant_ok, grant), (None, conversion), (ertc_ok, ertc_out)):
        for name, (v, valid) in values.items():
            results[name] = (v, valid if ok is None else valid & ok)
    errors = np.empty(n, object)
    bad = np.flatnonzero(~grant_ok | ~ertc_ok)
    if len(bad):  # the rows the law refuses: the scalar core, as in the runner
        layout = Layout(periods=periods, first_tax_year=years.start, last_tax_year=years.stop - 1)
        raw = {str(c): raw_values(df[c], bad) for c in df.columns}
        for i, row in enumerate(bad):
            cells = {c: v[i] for c, v in raw.items()}
            present = {"grant": not grant_ok[row], "ertc": not ertc_ok[row]}
            found, messages = run_row(cells, layout, present)
            for name, value in found.items():
                column, valid = results[name]
                if name in _TEXT:
                    column[row] = _TEXT[name].index(str(value))
                elif column.dtype == bool or name in _INTS:
                    column[row] = value
                elif column.dtype == np.float64:
                    column[row] = float(value)  # type: ignore[arg-type]
                else:
                    column[row] = int(value * 100)  # type: ignore[operator]
                valid[row] = True
            errors[row] = " | ".join(messages) if messages else None
    columns: dict[str, object] = {"id": df["id"]}
    columns["error"] = pd.Series(errors, index=df.index, dtype=object)
    for name, (column, valid) in results.items():
        if name in _TEXT:
            columns[name] = pd.Categorical.from_codes(np.where(valid, column, -1), _TEXT[name])
        elif column.dtype == bool:
            columns[name] = pd.arrays.BooleanArray(column, ~valid)
        elif name in _INTS:
            columns[name] = pd.arrays.IntegerArray(column, ~valid)
        else:
            dollars = column.copy() if column.dtype == np.float64 else column / 100
            if not valid.all():
                dollars[~valid] = np.nan
            columns[name] = dollars
    return pd.DataFrame(columns, index=df.index, copy=False)
