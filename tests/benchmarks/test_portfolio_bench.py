"""Benchmark of the portfolio section: its int64 kernel against its exact path (issue 33,
item 4), on the same rows. Figures printed, never a failure. Run with::

    pytest tests/benchmarks/test_portfolio_bench.py -m benchmark -s

``NJ_BENCH_ROWS`` portfolio rows (default 100,000; every row one the kernel takes: five
periods, each of the six programs given a credit in a period with probability 1/2) go
through the runner (``_run_frame``, the pandas engine, money in cents) once by the kernel
and once forced to the exact path (every row :func:`~...portfolio.rules.portfolio`),
alternately, ``NJ_BENCH_ROUNDS`` times (default 3); the figure is the median of each and
the ratio of the medians. The two results are compared cell by cell (the same table).
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np
import pandas as pd
import pytest

from nj_incentives.programs.portfolio import rules as P

pytestmark = pytest.mark.benchmark


def portfolio_frame(n: int, seed: int = 2026) -> pd.DataFrame:
    """``n`` valid portfolio rows: five periods from 2024-12-31, liabilities up to
    $500,000, minimum tax $2,000, credits up to $200,000 (half the cells blank)."""
    rng = np.random.default_rng(seed)
    columns: dict[str, object] = {
        "id": np.arange(n),
        "portfolio_first_period_end": np.full(n, "2024-12-31", dtype=object),
        "portfolio_uth_carryforward": rng.choice([0, 1, 3, 7], n).astype(float),
        "portfolio_brrag_periods": rng.choice(np.array(["statute", "rule"], dtype=object), n),
    }
    for k in range(1, 6):
        columns[f"portfolio_liability_{k}"] = np.round(rng.random(n) * 500000, 2)
        columns[f"portfolio_minimum_tax_{k}"] = np.full(n, 2000.0)
        for key in P.PROGRAMS:
            credit = np.round(rng.random(n) * 200000, 2)
            credit[rng.random(n) < 0.5] = np.nan
            columns[f"portfolio_{key}_credit_{k}"] = credit
    return pd.DataFrame(columns)


def test_portfolio_kernel_against_the_exact_path() -> None:
    from nj_incentives.scenarios.runner import _run_frame, plan_layout

    n = int(os.environ.get("NJ_BENCH_ROWS", "100000"))
    rounds = int(os.environ.get("NJ_BENCH_ROUNDS", "3"))
    frame = portfolio_frame(n)
    layout = plan_layout(frame)
    times: dict[str, list[float]] = {"kernel": [], "exact": []}
    results: dict[str, pd.DataFrame] = {}
    for _ in range(rounds):  # alternated: kernel, exact, kernel, exact, ...
        for path in ("kernel", "exact"):
            start = time.perf_counter()
            results[path] = _run_frame(frame, layout, money="cents", force_scalar=path == "exact")
            times[path].append(time.perf_counter() - start)
    pd.testing.assert_frame_equal(results["kernel"], results["exact"])
    assert results["kernel"]["error"].isna().all()
    kernel, exact = (statistics.median(times[p]) for p in ("kernel", "exact"))
    print(
        f"\nportfolio, {n:,} rows, {rounds} alternated rounds: kernel {kernel:.2f} s "
        f"({min(times['kernel']):.2f}-{max(times['kernel']):.2f}), exact path {exact:.2f} s "
        f"({min(times['exact']):.2f}-{max(times['exact']):.2f}); exact / kernel "
        f"{exact / kernel:.1f}x"
    )
