"""The compiled floor of the scenario kernel (issue 35): one numba pass per section over
the benchmark's table, the same 92 result columns as the runner's kernel (with ``id`` and
``error``, the runner's 94), in int64 cents, for the table of
:func:`nj_incentives.scenarios.generate.example_portfolio` only.

It is :mod:`scenarios_floor` (the numpy floor) written as loops over rows and compiled:
the same reading of the table (floats to cents by ``rint(x * 100)``, the later years and
periods filled forward, no blank cells, no exactness checks, no switches), the same
arithmetic, one row at a time, each result written once. It needs numba, which the
package does not: run it from a separate environment
(``python -m venv /tmp/venv-numba && /tmp/venv-numba/bin/pip install numba -e .``)::

    PYTHONPATH=addin /tmp/venv-numba/bin/python tests/benchmarks/scenarios_compiled_floor.py \
        --rows 1000000 --repeats 5

It prints each section's user CPU seconds (median of the repeats, numba's compile done
first) and the kernel's (``run_scenarios``' section kernels over its 65,536-row chunks,
each chunk read afresh, as :func:`kernel_seconds` times them), alternated repeat by
repeat, and their ratios; ``--check ROWS`` first compares the two on that many rows
(every valid result equal to the cent).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
from numba import njit  # type: ignore[import-not-found]

from nj_incentives.core import parameters as P
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import rules as ertc

I64 = np.int64
PCT = 10**9
EPOCH = np.datetime64("1970-01-01", "D")


# ======================================================================= dates (days)


@njit(cache=True)
def _civil(z: int) -> tuple[int, int, int]:
    z += 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + 1 if m <= 2 else y), m, d


@njit(cache=True)
def _days(y: int, m: int, d: int) -> int:
    y -= 1 if m <= 2 else 0
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


@njit(cache=True)
def _month_days(y: int, m: int) -> int:
    if m == 2:
        return 29 if (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)) else 28
    return 30 if m in (4, 6, 9, 11) else 31


@njit(cache=True)
def _add_months(day: int, months: int) -> int:
    y, m, d = _civil(day)
    total = y * 12 + (m - 1) + months
    y2, m2 = total // 12, total % 12 + 1
    return _days(y2, m2, min(d, _month_days(y2, m2)))


@njit(cache=True)
def _is_month_end(day: int) -> bool:
    y, m, d = _civil(day)
    return d == _month_days(y, m)


@njit(cache=True)
def _month_end(day: int) -> int:
    y, m, _ = _civil(day)
    return _days(y, m, _month_days(y, m))


@njit(cache=True)
def _share(amount: int, num: int, den: int) -> int:
    """floor(amount x num / den) without overflow (amount >= 0, num x den < 2^63)."""
    q, r = divmod(amount, den)
    return q * num + (r * num) // den


# ======================================================================= sections


@njit(cache=True)
def grant_pass(  # type: ignore[no-untyped-def]
    term, pct_f, smart, growth_f, agreement, w1_f, employees, cap_day, cap, act
):
    n = term.shape[0]
    years = 10
    before_k = np.empty((years, n), np.int64)
    grant_k = np.empty((years, n), np.int64)
    totals = np.empty((6, n), np.int64)  # term, capped, before, total, reduction, version
    ok = np.empty(n, np.bool_)
    for i in range(n):
        pct = np.int64(np.rint(pct_f[i] * 1e9))
        growth = np.int64(np.rint(growth_f[i] * 1e9))
        high = 800_000_000 if smart[i] else 500_000_000
        ok[i] = 100_000_000 <= pct <= high
        capped = agreement[i] >= cap_day
        w = np.int64(np.rint(w1_f[i] * 100.0))
        room_total = cap * employees[i]
        paid = 0
        before_total = 0
        for k in range(years):
            if k > 0:
                w = _share(w, 1_000_000_000 + growth, 1_000_000_000)
            before = _share(w, pct, 1_000_000_000) if k < term[i] else 0
            grant = min(before, max(0, room_total - paid)) if capped else before
            paid += grant
            before_total += before
            before_k[k, i] = before
            grant_k[k, i] = grant
        totals[0, i] = term[i]
        totals[1, i] = capped
        totals[2, i] = before_total
        totals[3, i] = paid
        totals[4, i] = before_total - paid
        totals[5, i] = act
    return ok, totals, before_k, grant_k


@njit(cache=True)
def conversion_pass(  # type: ignore[no-untyped-def]
    accrual,
    approval,
    amount_f,
    paragraph,
    first,
    count,
    late_rule,
    shares,
    den,
    late_from,
    y0,
    width,
):
    n = accrual.shape[0]
    totals = np.empty((3, n), np.int64)  # paragraph, first year, total
    by_year = np.zeros((width, n), np.int64)
    for i in range(n):
        index = accrual[i] - 2008
        y, m, _ = _civil(approval[i])
        fiscal = y + 1 if m >= 7 else y
        start = fiscal if (late_rule[index] and approval[i] >= late_from) else first[index]
        amount = np.int64(np.rint(amount_f[i] * 100.0))
        c = count[index]
        issued = 0
        for j in range(c):
            part = amount - issued if j == c - 1 else _share(amount, shares[index, j], den)
            issued += part
            by_year[min(start - y0 + j, width - 1), i] += part
        totals[0, i] = paragraph[index]
        totals[1, i] = start
        totals[2, i] = amount
    return totals, by_year


@njit(cache=True)
def credit_pass(by_year, liabilities_f):  # type: ignore[no-untyped-def]
    width, n = by_year.shape
    applied_y = np.empty((width, n), np.int64)
    refund_y = np.empty((width, n), np.int64)
    totals = np.empty((2, n), np.int64)
    for i in range(n):
        applied_total = 0
        refund_total = 0
        for y in range(width):
            liability = np.int64(np.rint(liabilities_f[y, i] * 100.0))
            installment = by_year[y, i]
            applied = min(installment, liability)
            refund = installment - applied
            applied_y[y, i] = applied
            refund_y[y, i] = refund
            applied_total += applied
            refund_total += refund
        totals[0, i] = applied_total
        totals[1, i] = refund_total
    return totals, applied_y, refund_y


@njit(cache=True)
def ertc_pass(  # type: ignore[no-untyped-def]
    count,
    start,
    end1,
    y1,
    y2,
    keep_f,
    liability_f,
    growth_f,
    others_f,
    minimum_f,
    periods,
    amount_1,
    amount_2,
    places,
):
    n = count.shape[0]
    totals = np.empty((9, n), np.int64)
    ratio = np.empty(n, np.float64)
    detail = np.empty((6, periods, n), np.int64)
    ok = np.empty(n, np.bool_)
    ends = np.empty(periods, np.int64)
    scale = 10**places
    for i in range(n):
        y, m, _ = _civil(start[i] - 1)
        one_start = _add_months(_days(y, m, 1), 1)
        two_start = _add_months(one_start, 12)
        one_end = two_start - 1
        two_end = _add_months(two_start, 12) - 1
        ends[0] = end1[i]
        for k in range(1, periods):
            later = _add_months(ends[k - 1], 12)
            ends[k] = _month_end(later) if _is_month_end(ends[k - 1]) else later
        first_start = _add_months(ends[0], -12) + 1
        allowed_1 = 0
        allowed_2 = 0
        for k in range(periods):
            allowed_1 += ends[k] < one_end
            allowed_2 += ends[k] < two_end
        ok[i] = allowed_2 < count[i] and one_end >= first_start
        credit_1 = y1[i] * amount_1
        credit_2 = y2[i] * amount_2
        smaller = min(y1[i], y2[i])
        safe = max(y1[i], 1)
        q, rem = divmod(smaller * scale, safe)
        if 2 * rem > y1[i] or (2 * rem == y1[i] and q % 2 == 1):
            q += 1
        ratio[i] = (q if y1[i] > 0 else 0) / scale
        keep = -1 if np.isnan(keep_f[i]) else np.int64(keep_f[i])
        liability = np.int64(np.rint(liability_f[i] * 100.0))
        growth = np.int64(np.rint(growth_f[i] * 1e9))
        others = np.int64(np.rint(others_f[i] * 100.0))
        minimum = np.int64(np.rint(minimum_f[i] * 100.0))
        remaining_1 = 0
        remaining_2 = 0
        carried = 0
        t_allowed = 0
        t_used = 0
        t_refunded = 0
        t_expired = 0
        for k in range(periods):
            if k:
                liability = _share(liability, 1_000_000_000 + growth, 1_000_000_000)
            is_1 = allowed_1 == k
            is_2 = allowed_2 == k
            new = (credit_1 if is_1 else 0) + (credit_2 if is_2 else 0)
            if is_1:
                remaining_1 = credit_1
            if is_2:
                remaining_2 = credit_2
            limit = max(0, min(liability // 2, liability - minimum) - others)
            use_1 = min(limit, remaining_1)
            use_2 = min(limit - use_1, remaining_2)
            remaining_1 -= use_1
            remaining_2 -= use_2
            refund = remaining_1 * smaller // safe if is_2 else 0
            remaining_1 -= refund
            expired = 0
            if keep >= 0 and allowed_1 + keep == k:
                expired += remaining_1
                remaining_1 = 0
            if keep >= 0 and allowed_2 + keep == k:
                expired += remaining_2
                remaining_2 = 0
            carried = remaining_1 + remaining_2
            used = use_1 + use_2
            if k < count[i]:
                t_allowed += new
                t_used += used
                t_refunded += refund
                t_expired += expired
            detail[0, k, i] = new
            detail[1, k, i] = limit
            detail[2, k, i] = used
            detail[3, k, i] = refund
            detail[4, k, i] = carried
            detail[5, k, i] = expired
        totals[0, i] = credit_1
        totals[1, i] = credit_2
        totals[2, i] = allowed_1 + 1
        totals[3, i] = allowed_2 + 1
        totals[4, i] = t_allowed
        totals[5, i] = t_used
        totals[6, i] = t_refunded
        totals[7, i] = t_expired
        totals[8, i] = carried
    return ok, totals, ratio, detail


# ======================================================================= the table


def _day_numbers(series: pd.Series) -> np.ndarray:
    return (series.to_numpy("datetime64[D]") - EPOCH).astype(I64)


def _paragraphs() -> tuple[Any, ...]:
    years = range(beip.FIRST_ACCRUAL_YEAR, beip.LAST_ACCRUAL_YEAR + 1)
    rows = [beip.conversion_paragraph(year) for year in years]
    den = math.lcm(*(Fraction(s).denominator for p in rows for s in p.fractions))
    shares = np.zeros((len(rows), max(len(p.fractions) for p in rows)), I64)
    for i, p in enumerate(rows):
        for j, share in enumerate(p.fractions):
            shares[i, j] = Fraction(share) * den
    return (
        np.array([p.paragraph for p in rows], I64),
        np.array([p.first_tax_year for p in rows], I64),
        np.array([len(p.fractions) for p in rows], I64),
        np.array([p.late_approval_rule for p in rows], np.bool_),
        shares,
        den,
    )


_LATE_FROM = int((np.datetime64(beip.STATE_FISCAL_YEAR_2017_START, "D") - EPOCH).astype(I64))
_CAP_DAY = int((np.datetime64(beip.CAP_AGREEMENTS_FROM, "D") - EPOCH).astype(I64))
_ACT = P.act_order("beip").index(BEIP.AVERAGE_CAP.versions[0].act)
YEARS = range(2017, 2026)  # the table's tax years (its accruals' installments fall in them)


def compiled_sections(df: pd.DataFrame) -> dict[str, dict[str, np.ndarray]]:
    """Each section's result columns (int64 cents; the ratio float64) and ``ok`` rows."""
    out: dict[str, dict[str, np.ndarray]] = {}
    g_ok, g_totals, before_k, grant_k = grant_pass(
        df["term"].to_numpy(I64),
        df["pct"].to_numpy(np.float64),
        df["smart_growth"].to_numpy(np.bool_),
        df["withholdings_growth"].to_numpy(np.float64),
        _day_numbers(df["agreement_date"]),
        df["withholdings_1"].to_numpy(np.float64),
        df["new_employees_1"].to_numpy(I64),
        _CAP_DAY,
        int(beip.AVERAGE_CAP_PER_NEW_EMPLOYEE * 100),
        _ACT,
    )
    names = ["grant_term", "grant_cap_applies", "grant_before_cap_total", "grant_total"]
    names += ["grant_cap_reduction", "grant_version"]
    grant = dict(zip(names, g_totals, strict=True))
    for k in range(10):
        grant[f"grant_before_cap_{k + 1}"] = before_k[k]
        grant[f"grant_{k + 1}"] = grant_k[k]
    out["grant"] = {"ok": g_ok, **grant}

    paragraph, first, count, late_rule, shares, den = _paragraphs()
    c_totals, by_year = conversion_pass(
        df["accrual_year"].to_numpy(I64),
        _day_numbers(df["approval_date"]),
        df["conversion_amount"].to_numpy(np.float64),
        paragraph,
        first,
        count,
        late_rule,
        shares,
        den,
        _LATE_FROM,
        YEARS.start,
        len(YEARS),
    )
    conversion = dict(
        zip(
            ("conversion_paragraph", "conversion_first_year", "conversion_total"),
            c_totals,
            strict=True,
        )
    )
    for y, year in enumerate(YEARS):
        conversion[f"installment_{year}"] = by_year[y]
    out["conversion"] = conversion

    liabilities = np.stack([df[f"tax_liability_{y}"].to_numpy(np.float64) for y in YEARS])
    k_totals, applied_y, refund_y = credit_pass(by_year, liabilities)
    credit = {"credit_applied_total": k_totals[0], "credit_refund_total": k_totals[1]}
    for y, year in enumerate(YEARS):
        credit[f"credit_applied_{year}"] = applied_y[y]
    for y, year in enumerate(YEARS):
        credit[f"credit_refund_{year}"] = refund_y[y]
    out["credit"] = credit

    periods = int(df["periods"].max())
    e_ok, e_totals, ratio, detail = ertc_pass(
        df["periods"].to_numpy(I64),
        _day_numbers(df["operations_start"]),
        _day_numbers(df["period_end_1"]),
        df["year1_new"].to_numpy(I64),
        df["year2_new"].to_numpy(I64),
        df["carryforward_years"].to_numpy(np.float64),
        df["liability_1"].to_numpy(np.float64),
        df["liability_growth"].to_numpy(np.float64),
        df["other_credits_1"].to_numpy(np.float64),
        df["minimum_tax_1"].to_numpy(np.float64),
        periods,
        int(ertc.CREDIT_YEAR_ONE_AMOUNT * 100),
        int(ertc.CREDIT_YEAR_TWO_AMOUNT * 100),
        ertc.AVERAGE_PLACES,
    )
    names = ["ertc_year1_credit", "ertc_year2_credit", "ertc_year1_period", "ertc_year2_period"]
    names += ["ertc_credits_allowed", "ertc_used", "ertc_refunded", "ertc_expired"]
    names += ["ertc_carried_forward"]
    e: dict[str, np.ndarray] = {"ok": e_ok, "ertc_sustained_effort_ratio": ratio}
    e.update(zip(names, e_totals, strict=True))
    figures = ("new_credit", "limit", "used", "refund", "carried_out", "expired")
    for f, name in enumerate(figures):
        for k in range(periods):
            e[f"ertc_{name}_{k + 1}"] = detail[f, k]
    out["ertc"] = e
    return out


# ======================================================================= timing


def _user() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def compiled_seconds(df: pd.DataFrame) -> dict[str, float]:
    """User CPU of each section's compiled pass (the columns' extraction included)."""
    times: dict[str, float] = {}
    a = _user()
    out = compiled_sections(df)
    times["total"] = _user() - a
    del out
    # each section alone, for the per-section figures
    for name, run in _ALONE.items():
        a = _user()
        run(df)
        times[name] = _user() - a
    return times


def _grant_alone(df: pd.DataFrame) -> None:
    grant_pass(
        df["term"].to_numpy(I64),
        df["pct"].to_numpy(np.float64),
        df["smart_growth"].to_numpy(np.bool_),
        df["withholdings_growth"].to_numpy(np.float64),
        _day_numbers(df["agreement_date"]),
        df["withholdings_1"].to_numpy(np.float64),
        df["new_employees_1"].to_numpy(I64),
        _CAP_DAY,
        5_000_000,
        _ACT,
    )


_STATE: dict[str, Any] = {}


def _conversion_alone(df: pd.DataFrame) -> None:
    paragraph, first, count, late_rule, shares, den = _paragraphs()
    _STATE["by_year"] = conversion_pass(
        df["accrual_year"].to_numpy(I64),
        _day_numbers(df["approval_date"]),
        df["conversion_amount"].to_numpy(np.float64),
        paragraph,
        first,
        count,
        late_rule,
        shares,
        den,
        _LATE_FROM,
        YEARS.start,
        len(YEARS),
    )[1]


def _credit_alone(df: pd.DataFrame) -> None:
    liabilities = np.stack([df[f"tax_liability_{y}"].to_numpy(np.float64) for y in YEARS])
    credit_pass(_STATE["by_year"], liabilities)


def _ertc_alone(df: pd.DataFrame) -> None:
    ertc_pass(
        df["periods"].to_numpy(I64),
        _day_numbers(df["operations_start"]),
        _day_numbers(df["period_end_1"]),
        df["year1_new"].to_numpy(I64),
        df["year2_new"].to_numpy(I64),
        df["carryforward_years"].to_numpy(np.float64),
        df["liability_1"].to_numpy(np.float64),
        df["liability_growth"].to_numpy(np.float64),
        df["other_credits_1"].to_numpy(np.float64),
        df["minimum_tax_1"].to_numpy(np.float64),
        int(df["periods"].max()),
        int(ertc.CREDIT_YEAR_ONE_AMOUNT * 100),
        int(ertc.CREDIT_YEAR_TWO_AMOUNT * 100),
        ertc.AVERAGE_PLACES,
    )


_ALONE = {
    "grant": _grant_alone,
    "conversion": _conversion_alone,
    "credit": _credit_alone,
    "ertc": _ertc_alone,
}


def kernel_seconds(df: pd.DataFrame) -> dict[str, float]:
    """User CPU of the runner's section kernels over its chunks, each chunk read afresh
    (the columns' conversion counted in the section that reads them first)."""
    from nj_incentives.scenarios import kernel, runner
    from nj_incentives.scenarios.columns import REGISTERED

    layout = runner.plan_layout(df)
    times: dict[str, float] = {}
    for start, stop in runner._chunks(len(df), runner.CHUNK_ROWS):
        chunk = kernel.Chunk(df.iloc[start:stop])
        outs: dict[str, Any] = {}
        for section in REGISTERED:
            if section.name in layout.sections:
                a = _user()
                outs[section.name] = section.kernel(chunk, layout, outs)
                times[section.name] = times.get(section.name, 0.0) + _user() - a
    times["total"] = sum(times.values())
    return times


def check(rows: int) -> None:
    """The compiled floor equals the runner's results on every row both computed."""
    from nj_incentives.scenarios import run_scenarios
    from nj_incentives.scenarios.generate import example_portfolio

    df = example_portfolio(rows, seed=2026)
    df.loc[df.index[::1000], "pct"] = 0.95
    results = run_scenarios(df, money="cents")
    floor = compiled_sections(df)
    compared = 0
    for section, columns in floor.items():
        ok = columns.get("ok", np.ones(rows, bool))
        for name, values in columns.items():
            if name == "ok":
                continue
            got = results[name]
            valid = ok & got.notna().to_numpy()
            assert valid.sum() >= 0.05 * rows, (name, valid.sum())  # years past a term: NA
            if name == "ertc_sustained_effort_ratio":
                expected = got.to_numpy(np.float64)
            elif name == "grant_version":
                expected = got.cat.codes.to_numpy(I64)
            else:
                expected = got.to_numpy(I64, na_value=0)
            assert np.array_equal(values[valid], expected[valid]), (section, name)
            compared += 1
    print(json.dumps({"checked_rows": rows, "columns": compared}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--check", type=int, default=0)
    args = parser.parse_args()
    if args.check:
        check(args.check)
    from nj_incentives.scenarios.generate import example_portfolio

    df = example_portfolio(args.rows, seed=2026)
    df.loc[df.index[::1000], "pct"] = 0.95
    compiled_sections(df.iloc[:1000])  # compile (or load numba's cache) first
    kernel_seconds(df.iloc[:1000])
    runs: dict[str, list[dict[str, float]]] = {"kernel": [], "compiled": []}
    for _ in range(args.repeats):  # alternated
        runs["kernel"].append(kernel_seconds(df))
        runs["compiled"].append(compiled_seconds(df))
    medians = {
        who: {key: statistics.median(r[key] for r in found) for key in found[0]}
        for who, found in runs.items()
    }
    report = {
        key: {
            "kernel": round(medians["kernel"][key], 3),
            "compiled": round(medians["compiled"][key], 3),
            "ratio": round(medians["kernel"][key] / max(medians["compiled"][key], 1e-9), 2),
        }
        for key in ("grant", "conversion", "credit", "ertc", "total")
    }
    print(json.dumps({"rows": args.rows, "repeats": args.repeats, **report}, indent=1))


if __name__ == "__main__":
    main()
