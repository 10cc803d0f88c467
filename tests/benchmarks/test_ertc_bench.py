"""Benchmark of the ERTC core and its share of a scenario run, before and after (issue 12).

Figures printed, never a failure. Run with::

    mkdir -p /tmp/before && git archive <before-commit> addin | tar -x -C /tmp/before
    NJ_BENCH_BEFORE=/tmp/before/addin pytest tests/benchmarks/test_ertc_bench.py -m benchmark -s

Each measurement runs in a fresh Python process, alternately on the code under
``NJ_BENCH_BEFORE`` and on this checkout, ``NJ_BENCH_ROUNDS`` times (default 3); the
figure is the median over the rounds (the machine is shared and noisy).

- **direct core time** of each NJ_ERTC_* function: the core function its adapter calls
  (``ertc.credit_schedule`` for NJ_ERTC_SCHEDULE, ...) on fixed arguments, the amounts
  only (the steps not read), best of 5 repeats of a timed loop; and, for the functions
  whose result explains itself, the same call with its steps read (``NJ_EXPLAIN``);
- **the ERTC share of a scenario run**: ``run_scenarios`` on ``example_portfolio(rows)``
  (default 1,000,000 rows; ``NJ_BENCH_ROWS``), with the kernel's ``ertc_schedule``
  timed inside the same run.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.benchmark

HERE = Path(__file__).resolve().parents[2] / "addin"

_CORE = r"""
import json, sys, timeit
try:
    from nj_incentives.programs.ertc import rules as ertc
except ImportError:  # NJ_BENCH_BEFORE: a tree from before the layout of 6d66094
    from nj_incentives.law import ertc

periods = ertc.privilege_periods(
    ["2023-12-31", "2024-12-31", "2025-12-31", "2026-12-31"],
    [8000, 10000, 50000, 50000], [0, 1000, 0, 0], [2000, 2000, 2000, 2000],
)
calls = {
    "NJ_ERTC_CREDIT": lambda: ertc.credit_amount(10, 1),
    "NJ_ERTC_SUSTAINED_EFFORT_RATIO": lambda: ertc.explain_sustained_effort_ratio(10, 8),
    "NJ_ERTC_CREDIT_LIMIT": lambda: ertc.credit_limit(10000, 1000, 2000),
    "NJ_ERTC_REFUND": lambda: ertc.explain_refund(17000, 10, 8),
    "NJ_ERTC_SCHEDULE": lambda: ertc.credit_schedule("2023-01-01", 10, 8, periods),
    "NJ_ERTC_CREDIT_YEARS": lambda: ertc.credit_years("2023-03-15"),
    "NJ_ERTC_BASE_YEAR": lambda: ertc.base_year("2023-03-15"),
    "NJ_ERTC_NEW_POSITIONS": lambda: ertc.explain_new_positions("12.5", "20.25"),
    "NJ_ERTC_FTE": lambda: ertc.explain_fte(1680, 12),
}
out = {}
for name, call in calls.items():
    call()
    loops = 2000 if name != "NJ_ERTC_SCHEDULE" else 500
    amounts = min(timeit.repeat(call, number=loops, repeat=5)) / loops
    explained = min(timeit.repeat(lambda: call().steps, number=loops, repeat=5)) / loops
    out[name] = {"amounts": amounts, "explained": explained}
print(json.dumps(out))
"""

_SCENARIOS = r"""
import json, sys, time
from nj_incentives.scenarios import kernel, run_scenarios
from nj_incentives.scenarios.generate import example_portfolio

rows = int(sys.argv[1])
df = example_portfolio(rows, seed=2026)
spent = [0.0]
try:  # the ERTC's kernel: its program's (a tree from before the move: the runner's)
    from nj_incentives.programs.ertc import scenarios as owner

    name = "ertc_kernel"
    getattr(owner, name)
except (ImportError, AttributeError):
    owner, name = kernel, "ertc_schedule"
original = getattr(owner, name)

def timed(*args, **kwargs):
    start = time.perf_counter()
    try:
        return original(*args, **kwargs)
    finally:
        spent[0] += time.perf_counter() - start

setattr(owner, name, timed)
start = time.perf_counter()
run_scenarios(df)
total = time.perf_counter() - start
print(json.dumps({"total": total, "ertc": spent[0]}))
"""


def _run(script: str, path: Path, *args: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(path)}
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=3600,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _versions() -> dict[str, Path]:
    before = os.environ.get("NJ_BENCH_BEFORE")
    if not before:
        pytest.skip("set NJ_BENCH_BEFORE to the addin/ folder of the code to compare with")
    return {"before": Path(before), "after": HERE}


def test_ertc_core_before_after() -> None:
    versions = _versions()
    rounds = int(os.environ.get("NJ_BENCH_ROUNDS", "3"))
    runs: dict[str, list[dict[str, dict[str, float]]]] = {name: [] for name in versions}
    for _ in range(rounds):
        for name, path in versions.items():
            runs[name].append(_run(_CORE, path))  # type: ignore[arg-type]
    print("\nfunction | before amounts | after amounts | ratio | before +steps | after +steps")
    for function in runs["after"][0]:
        figures = {
            (name, kind): statistics.median(run[function][kind] for run in runs[name]) * 1e6
            for name in versions
            for kind in ("amounts", "explained")
        }
        ratio = figures["after", "amounts"] / figures["before", "amounts"]
        print(
            f"{function} | {figures['before', 'amounts']:.1f} us | "
            f"{figures['after', 'amounts']:.1f} us | {ratio:.2f}x | "
            f"{figures['before', 'explained']:.1f} us | {figures['after', 'explained']:.1f} us"
        )


def test_ertc_share_of_a_scenario_run() -> None:
    versions = _versions()
    rounds = int(os.environ.get("NJ_BENCH_ROUNDS", "3"))
    rows = os.environ.get("NJ_BENCH_ROWS", "1000000")
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in versions}
    for _ in range(rounds):
        for name, path in versions.items():
            runs[name].append(_run(_SCENARIOS, path, rows))  # type: ignore[arg-type]
    print(f"\n{rows} rows | run_scenarios | ERTC kernel | share")
    for name in versions:
        total = statistics.median(run["total"] for run in runs[name])
        ertc_time = statistics.median(run["ertc"] for run in runs[name])
        print(f"{name} | {total:.2f} s | {ertc_time:.2f} s | {ertc_time / total:.1%}")
