"""Benchmark of the explaining evaluator and the rules moved last onto the rule language
(issue 12, items 1 and 2): figures printed, never a failure.

Run with ``pytest tests/benchmarks/test_explain_bench.py -m benchmark -s``; with
``NJ_BENCH_BEFORE=/path/to/old/addin`` (``git archive da322bd addin | tar -x -C /tmp/before``)
both trees are measured in the same run, alternating (before, after, before, ...), each in
a fresh interpreter; each figure is the best of 5 timed loops in a process, the table the
median over ``NJ_BENCH_ROUNDS`` (default 5) rounds. The direct core time of each function
this work changed, without and with its explanation (``.steps`` read, as ``NJ_EXPLAIN``,
``nj-incentives explain`` and the memo do). The figures go in docs/performance.md.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

import pytest

pytestmark = pytest.mark.benchmark

ROUNDS = int(os.environ.get("NJ_BENCH_ROUNDS", "5"))

_CORE = r"""
import json, sys, time
from decimal import Decimal as D
from nj_incentives.law import beip, ertc

P4 = ertc.privilege_periods(
    ["2024-12-31", "2025-12-31", "2026-12-31", "2027-12-31"],
    [10000, 50000, 3000, 80000], [0, 1000, 0, 0], [2000, 2000, 500, 2000],
)
W3, E3 = [D(1000000), D(1200000), D(1500000)], [10, 4, 12]
ROSTER = [ertc.EmployeeHours(hours=tuple(D(h) for h in row)) for row in (
    [160] * 12, [160] * 6 + [100] * 6, [90] * 12, [40] * 12,
    [140, 0, 0, 87, 87, 87, 0, 0, 0, 0, 0, 0],
)]
CASES = {
    "beip.annual_grant": (beip.annual_grant, (D("1250000"), D("0.2"))),
    "beip.grant_schedule, per_year (3 years, capped)": (
        beip.grant_schedule, (W3, E3, D("0.5"), "2010-01-01")),
    "beip.grant_schedule, whole_term": (
        beip.grant_schedule, (W3, E3, D("0.5"), "2010-01-01", False, None, 0, "whole_term")),
    "beip.grant_schedule, proportional": (
        beip.grant_schedule, (W3, E3, D("0.5"), "2010-01-01", False, None, 0, "proportional")),
    "beip.conversion_schedule (e.(1), late)": (
        beip.conversion_schedule, (2012, D("100000"), "2017-03-15")),
    "beip.apply_credit": (beip.apply_credit, (D("250000"), D("180000"))),
    "beip.transfer_check (discounted over the dates)": (
        beip.transfer_check,
        (D(250000), D(150000), D(100000), "0.05", None, "2024-01-01", "2026-12-31")),
    "beip.remote_work_check": (beip.remote_work_check, ("2022-01-15", "0.3")),
    "beip.remote_work_payment": (beip.remote_work_payment, (D("123456.78"), "2022-12-31")),
    "ertc.eligibility_check": (ertc.eligibility_check, (False, False, True)),
    "ertc.explain_fte": (ertc.explain_fte, ("2520.5", 12)),
    "ertc.average_positions (5 employees)": (ertc.average_positions, (ROSTER,)),
    "ertc.credit_schedule (4 periods)": (ertc.credit_schedule, ("2024-03-15", 10, 7, P4)),
}
out = {}
for name, (function, args) in CASES.items():
    for explained in (False, True):
        def once():
            result = function(*args)
            if explained:
                result.steps
        once()
        start = time.perf_counter()
        once()
        calls = max(20, int(0.02 / max(1e-6, time.perf_counter() - start)))
        best = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(calls):
                once()
            best.append((time.perf_counter() - start) / calls * 1e6)
        out[name + (" + steps" if explained else "")] = min(best)
print(json.dumps(out))
"""


@pytest.fixture(autouse=True)
def _only_when_asked(request: pytest.FixtureRequest) -> None:
    """A few minutes: run only with ``-m benchmark``."""
    if "benchmark" not in str(request.config.getoption("-m") or ""):
        pytest.skip("benchmark: run with -m benchmark")


def _measure(tree: str | None) -> dict[str, float]:
    environment = dict(os.environ)
    if tree:
        environment["PYTHONPATH"] = tree
    done = subprocess.run(
        [sys.executable, "-c", _CORE], env=environment, capture_output=True, text=True, check=True
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def test_core_time_with_and_without_steps() -> None:
    before = os.environ.get("NJ_BENCH_BEFORE")
    trees = {"before": before, "after": None} if before else {"after": None}
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in trees}
    for _ in range(ROUNDS):
        for label, tree in trees.items():
            runs[label].append(_measure(tree))
    print(f"\nload: {os.getloadavg()[0]:.2f} (1 min); medians of {ROUNDS} rounds, us per call")
    print("| call | " + " | ".join(f"{label} us" for label in trees) + " | after / before |")
    print("|---|" + "---:|" * (len(trees) + 1))
    for name in runs["after"][0]:
        medians = {label: statistics.median(r[name] for r in runs[label]) for label in trees}
        ratio = medians["after"] / medians["before"] if before else float("nan")
        cells = " | ".join(f"{medians[label]:,.1f}" for label in trees)
        print(f"| `{name}` | {cells} | {ratio:.2f} |")
