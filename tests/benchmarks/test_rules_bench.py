"""Benchmark of the rule language (issue 12, items 1, 2, 8): figures printed, never a failure.

Run with ``pytest tests/benchmarks/test_rules_bench.py -m benchmark -s``; with
``NJ_BENCH_BEFORE=/path/to/old/addin`` (the ``addin`` folder of an earlier commit, e.g.
``git archive df8433e addin | tar -x -C /tmp/before``) every figure is measured for both
trees in the same run, alternating (before, after, before, after, ...), each in a fresh
interpreter, and the medians are printed side by side. It measures a change against its
parent: its figures went into docs/performance.md with the change (git log -p
docs/performance.md).

1. Direct core time per BEIP function: the amounts (``law.beip``'s functions called
   as the Excel adapters call them), and the same with the explanation read (``.steps``).
2. The dispatch ratio of each BEIP NJ_* function to the one-argument IDENTITY and to a
   baseline given the same arguments, through the Office.js dispatch
   (:func:`test_excel_benchmarks.measure_dispatch`), on CPython and with ``pyodide.ffi``
   importable (as in xlwings Lite). Every catalog function against a same-arity identity:
   ``test_dispatch_bench.py``.
3. 1,000,000 scenarios end to end (:func:`test_scenarios_bench.measure`).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.benchmark

HERE = Path(__file__).resolve().parent
RUNS = int(os.environ.get("NJ_BENCH_RUNS", "5"))  # fresh interpreters per tree, alternating
SCENARIO_RUNS = int(os.environ.get("NJ_BENCH_SCENARIO_RUNS", "3"))

#: The NJ_* functions whose rules this work rewrote (plus NJ_EXPLAIN, which reads steps).
BEIP_FUNCTIONS = (
    "NJ_BEIP_PCT_LIMITS",
    "NJ_BEIP_GRANT",
    "NJ_BEIP_GRANT_SCHEDULE",
    "NJ_BEIP_CONVERSION_SCHEDULE",
    "NJ_BEIP_CONVERSION_INSTALLMENT",
    "NJ_BEIP_CREDIT_APPLIED",
    "NJ_BEIP_CREDIT_REFUND",
    "NJ_EXPLAIN",
)

#: The direct calls: name -> (function, arguments), each the core's own entry point.
_CORE = r"""
import json, sys, time, statistics
from decimal import Decimal as D
try:
    from nj_incentives.programs.beip import rules as beip
except ImportError:  # NJ_BENCH_BEFORE: a tree from before the layout of 6d66094
    from nj_incentives.law import beip

W10 = [D(1_000_000 + 50_000 * k) for k in range(10)]
E10 = [10, 4, 12, 12, 3, 20, 8, 8, 15, 9]
CASES = {
    "annual_grant": (beip.annual_grant, (D("1250000"), D("0.2"))),
    "grant_schedule (3 years, capped)": (
        beip.grant_schedule,
        ([D(1000000), D(1200000), D(1500000)], [10, 4, 12], D("0.5"), "2010-01-01"),
    ),
    "grant_schedule (10 years, capped)": (
        beip.grant_schedule, (W10, E10, D("0.5"), "2010-01-01")
    ),
    "cap_applies": (beip.cap_applies, ("2010-01-01",)),
    "conversion_schedule (e.(1), late)": (
        beip.conversion_schedule, (2012, D("100000"), "2017-03-15")
    ),
    "conversion_schedule (e.(4))": (beip.conversion_schedule, (2016, D("100000"))),
    "conversion_installment": (beip.conversion_installment, (2012, D("100000"), 2019)),
    "apply_credit": (beip.apply_credit, (D("250000"), D("180000"))),
}
CALLS, ROUNDS = 400, 7
out = {}
for name, (function, args) in CASES.items():
    for explained in (False, True):
        if explained and not hasattr(function(*args), "steps"):
            continue
        times = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            for _ in range(CALLS):
                result = function(*args)
                if explained:
                    result.steps
            times.append((time.perf_counter() - start) / CALLS)
        out[name + (" + steps" if explained else "")] = min(times)
print(json.dumps(out))
"""

_DISPATCH = r"""
import json, sys, types
if sys.argv[2] == "pyodide":
    ffi = types.ModuleType("pyodide.ffi")
    ffi.JsNull = type("JsNull", (), {})
    pyodide = types.ModuleType("pyodide")
    pyodide.ffi = ffi
    sys.modules.update({"pyodide": pyodide, "pyodide.ffi": ffi})
sys.path.insert(0, sys.argv[1])
from nj_incentives import excel
import test_excel_benchmarks
names = sys.argv[3].split(",")
excel.CATALOG = {name: excel.CATALOG[name] for name in names if name in excel.CATALOG}
print(json.dumps(test_excel_benchmarks.measure_dispatch()))
"""


def _trees() -> dict[str, str | None]:
    before = os.environ.get("NJ_BENCH_BEFORE")
    return {"before": before, "after": None} if before else {"after": None}


def _run(code: list[str], tree: str | None, env: dict[str, str] | None = None) -> Any:
    environment = {**os.environ, **(env or {})}
    if tree:
        environment["PYTHONPATH"] = tree
    done = subprocess.run(
        [sys.executable, *code], env=environment, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _alternate(code: list[str], runs: int, env: dict[str, str] | None = None) -> dict[str, list]:
    trees = _trees()
    results: dict[str, list[Any]] = {label: [] for label in trees}
    for _ in range(runs):
        for label, tree in trees.items():
            results[label].append(
                _run([_benchmarks(tree) if c == "{BENCH}" else c for c in code], tree, env)
            )
    return results


def _benchmarks(tree: str | None) -> str:
    """The benchmarks folder that goes with a tree: an earlier tree's own copy of
    test_excel_benchmarks.py where there is one beside it (``<tree>/../tests/benchmarks``)."""
    if tree:
        own = Path(tree).resolve().parent / "tests" / "benchmarks"
        if (own / "test_excel_benchmarks.py").exists():
            return str(own)
    return str(HERE)


def test_direct_core_time_per_beip_function() -> None:
    results = _alternate(["-c", _CORE], RUNS)
    labels = list(results)
    print(f"\ndirect core time per call, us (median of {RUNS} fresh interpreters each):")
    print(f"{'call':44}" + "".join(f"{label:>10}" for label in labels) + "   ratio")
    for name in results["after"][0]:
        medians = [
            statistics.median(run[name] for run in results[label] if name in run) * 1e6
            if all(name in run for run in results[label])
            else float("nan")
            for label in labels
        ]
        ratio = f"{medians[-1] / medians[0]:7.2f}" if len(medians) > 1 else ""
        print(f"{name:44}" + "".join(f"{m:10.1f}" for m in medians) + f"   {ratio}")


@pytest.mark.parametrize("runtime", ["cpython", "pyodide"])
def test_dispatch_ratio_of_the_beip_functions(runtime: str) -> None:
    env = {"XLWINGS_ON_SERVER": "true", "XLWINGS_LICENSE_KEY": "noncommercial"}
    code = ["-c", _DISPATCH, "{BENCH}", runtime, ",".join(BEIP_FUNCTIONS)]
    results = _alternate(code, max(1, RUNS // 2), env)
    labels = list(results)
    where = "pyodide.ffi importable (as in xlwings Lite)" if runtime == "pyodide" else "CPython"
    print(
        f"\nOffice.js dispatch, {where}: ratio to the one-argument IDENTITY, then to the"
        " same-arguments baseline (median of runs; tests/benchmarks/test_dispatch_bench.py"
        " measures every function against a same-arity identity)"
    )
    print(f"{'function':34}" + "".join(f"{label:>10}" for label in labels) * 2)
    for index, row in enumerate(results["after"][0]):
        name = row[0]
        ratios = [
            statistics.median(run[index][2] / run[index][baseline] for run in results[label])
            for baseline in (3, 4)
            for label in labels
        ]
        print(f"{name:34}" + "".join(f"{r:9.2f}x" for r in ratios))


def test_one_million_scenarios_before_and_after() -> None:
    sys.path.insert(0, str(HERE))
    import test_scenarios_bench

    trees = _trees()
    walls: dict[str, list[float]] = {label: [] for label in trees}
    loops: dict[str, list[float]] = {label: [] for label in trees}
    for _ in range(SCENARIO_RUNS):
        for label, tree in trees.items():
            old = os.environ.get("PYTHONPATH")
            if tree:
                os.environ["PYTHONPATH"] = tree
            try:
                figures = test_scenarios_bench.measure()
            finally:
                if tree:
                    if old is None:
                        del os.environ["PYTHONPATH"]
                    else:
                        os.environ["PYTHONPATH"] = old
            walls[label].append(figures["wall_s"])
            loops[label].append(figures["loop_us_per_row"])
    print(f"\n1,000,000 scenarios end to end (median of {SCENARIO_RUNS} runs each, alternating):")
    for label in trees:
        print(
            f"  {label:7}: {statistics.median(walls[label]):6.2f} s"
            f" (runs {', '.join(f'{w:.2f}' for w in walls[label])});"
            f" scalar loop {statistics.median(loops[label]):,.0f} us/row"
        )


_RULE = r"""
import json, time
from decimal import Decimal as D
import numpy as np
try:
    from nj_incentives.core.rules import EXACT, Int64, Ratio, explain
    from nj_incentives.programs.beip import rules as beip
except ImportError:  # NJ_BENCH_BEFORE: a tree from before the layout of 6d66094
    from nj_incentives.law import beip
    from nj_incentives.law.rules import EXACT, Int64, Ratio, explain

W = [D(1000000), D(1200000), D(1500000)]
P = [D(0)] * 3
E = [10, 4, 12]
args = (W, P, E, D("0.5"), D(0), __import__("datetime").date(2010, 1, 1))
out = {}
for name, call in (
    ("grant_years, exact", lambda: beip.grant_years(EXACT, *args)),
    ("grant_years, explained", lambda: explain(beip.grant_years, *args)),
):
    call()
    best = float("inf")
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(2000):
            call()
        best = min(best, (time.perf_counter() - start) / 2000)
    out[name] = best * 1e6
out["steps"] = len(explain(beip.grant_years, *args, pick=lambda o: o[1])[1])
rows = 1_000_000
rng = np.random.default_rng(1)
col = lambda low, high: rng.integers(low, high, rows)
w = [col(0, 10**11) for _ in range(3)]
e = [col(0, 40) for _ in range(3)]
zero = np.zeros(rows, np.int64)
pct = Ratio(np.full(rows, 500_000_000), 10**9)
start = time.perf_counter()
beip.grant_years(Int64(), w, [zero] * 3, e, pct, Ratio(zero, 10**9), np.full(rows, 14610))
out["grant_years, int64, ns/row"] = (time.perf_counter() - start) / rows * 1e9
print(json.dumps(out))
"""


def test_the_grant_rule_alone_exact_and_int64() -> None:
    """The rule text of the grant years with the cap (3 years), without parsing the inputs
    or building results: exact, explained, and int64 over 1,000,000 rows."""
    figures = _run(["-c", _RULE], None)
    print("\nbeip.grant_years (3 years, the cap binding in years 2 and 3):")
    print(
        f"  exact {figures['grant_years, exact']:.1f} us; explained"
        f" {figures['grant_years, explained']:.1f} us ({figures['steps']:.0f} steps)"
    )
    print(f"  int64 over 1,000,000 rows: {figures['grant_years, int64, ns/row']:.0f} ns/row")
