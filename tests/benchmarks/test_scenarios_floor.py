"""The benchmark's floor (tests/benchmarks/scenarios_floor.py) computes what the runner
computes: ``floor_run(df)`` equals ``run_scenarios(df)`` on a sample of the benchmark's
table, bad rows included. Not a benchmark: it runs with the suite, so the floor the
runner is measured against stays correct."""

from __future__ import annotations

import pandas as pd

from nj_incentives.scenarios import run_scenarios
from nj_incentives.scenarios.generate import example_portfolio
from scenarios_floor import floor_run


def test_the_floor_gives_the_runners_results() -> None:
    df = example_portfolio(6_000, seed=2026)
    df.loc[df.index[::1000], "pct"] = 0.95  # one row in a thousand is bad, as benchmarked
    expected = run_scenarios(df)
    got = floor_run(df)
    assert expected["error"].notna().sum() == 6
    pd.testing.assert_frame_equal(got, expected)
