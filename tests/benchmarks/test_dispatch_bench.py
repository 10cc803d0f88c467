"""Every catalog function through the Office.js dispatch, before and after (issue 12, item 8).

Figures printed, never a failure on speed. Run with::

    git archive da322bd addin | tar -x -C /tmp/before
    NJ_BENCH_BEFORE=/tmp/before/addin pytest tests/benchmarks/test_dispatch_bench.py \\
        -m benchmark -s

For each tree (``NJ_BENCH_BEFORE``, the ``addin`` folder of an earlier commit, and this
checkout) and each runtime, fresh interpreters alternate (before, after, before, after
...; ``NJ_BENCH_RUNS`` of each, default 5) and the medians are printed side by side. In
each interpreter, for every NJ_* function of the catalog with its documented example:

- the per-call cost through ``xlwings.server.custom_functions_call`` (the dispatch of
  xlwings Lite and xlwings Server), payloads shaped as Office.js sends them;
- the same for a **same-arity identity** (``SAME_n(a1, ..., an)`` returning ``a1``) given
  exactly the same payload, through the same dispatch, interleaved with the function so
  that drift hits both alike: the ratio function / identity is the goal's figure (<= 1.2x);
- the direct core time: the law call the adapter makes (its ``compute``, the cells already
  converted; NJ_EXPLAIN reads the steps too, as it shows them);
- the floor: what the ratio would be if the adapter cost nothing beyond the core, =
  (identity + core + xlwings' conversion of the result minus that of the identity's
  result) / identity.

Two runtimes: CPython as it is (xlwings Server; xlwings' failing ``from pyodide.ffi import
JsNull`` for each argument makes the dispatch itself expensive), and with a stand-in
``pyodide.ffi`` importable (as in xlwings Lite, where the dispatch is cheap and the
functions' own cost shows).

``-k overhead`` (issue 35) measures the dispatch alone: each function's call through the
dispatch less the same call on the pure function table with the same cells, against the
identity's (through the dispatch less called directly), in CPU seconds, alternated,
medians; for every catalog function (``overhead_of_every``, with a stand-in handing back
the function's answer: the dispatch with the calculation taken out) and for
NJ_SCENARIOS by table size (``overhead_by_table``). ``NJ_BENCH_TREE`` points them at
another commit's ``addin``. The rounds alternate which of a pair they time first (the
dispatch or the direct call; ``NJ_BENCH_ORDER``), and the figures are given timing the
dispatch first (every earlier session's) and for both orders; ``NJ_BENCH_GC=off``
disables the collector during the timings, as timeit does. Figures and command:
docs/performance.md, "The dispatch's own overhead".

``-k small_path``: ``scenarios_table`` through the scalar core against the vectorized
runner by row count, where NJ_SCENARIOS's small-table path stops paying
(docs/performance.md, "NJ_SCENARIOS through the dispatch").
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
RUNS = int(os.environ.get("NJ_BENCH_RUNS", "5"))  # fresh interpreters per tree and runtime
ROUNDS = int(os.environ.get("NJ_BENCH_ROUNDS", "9"))  # timings per figure; the fastest kept
#: Calls per timing: few calls and many rounds find the uninterrupted timings on a loaded
#: machine (under load 20, 9 rounds of 40 calls rarely do: NJ_BENCH_CALLS=5
#: NJ_BENCH_ROUNDS=200).
CALLS = int(os.environ.get("NJ_BENCH_CALLS", "40"))
#: Comma-separated names to measure only those (default: every catalog function).
FUNCTIONS = os.environ.get("NJ_BENCH_FUNCTIONS", "")

#: One interpreter's measurement: argv = [runtime, calls, rounds, names or ""]; prints one
#: JSON line.
_MEASURE = r"""
import asyncio, json, sys, time, types
if sys.argv[1] == "pyodide":
    ffi = types.ModuleType("pyodide.ffi")
    ffi.JsNull = type("JsNull", (), {})
    pyodide = types.ModuleType("pyodide")
    pyodide.ffi = ffi
    sys.modules.update({"pyodide": pyodide, "pyodide.ffi": ffi})
import xlwings as xw
from xlwings.pro import udfs_officejs
from nj_incentives import excel
try:
    from nj_incentives.core import cells
except ImportError:  # NJ_BENCH_BEFORE: an earlier tree (6d66094: functions/; before it: top)
    try:
        from nj_incentives.functions import cells
    except ImportError:
        from nj_incentives import cells

CALLS, ROUNDS = int(sys.argv[2]), int(sys.argv[3])
call = udfs_officejs.custom_functions_call


def serial(value):
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if hasattr(value, "toordinal"):
        return cells.to_cell_values(value)
    return value


def arg(value):
    if value is None:
        return None
    if isinstance(value, list):
        rows = value if value and isinstance(value[0], list) else [value]
        return [[serial(cell) for cell in row] for row in rows]
    return [[serial(value)]]


def payload(name, args):
    return {
        "client": "Office.js", "func_name": name, "args": args,
        "caller_address": "Sheet1!B2", "session_id": "benchmark",
        "culture_info_name": "en-US", "date_format": "M/d/yyyy",
        "version": xw.__version__, "runtime": "1.4",
    }


def example_args(entry):
    count = len(entry.arguments)
    args = [arg(value) for value in entry.example[:count]]
    args += [None] * (count - len(args))
    if entry.vararg is not None:
        args.append([arg(value) for value in entry.example[count:]])
    return args


def identity(arity):
    parameters = ", ".join(["a1", *[f"a{i}=None" for i in range(2, arity + 1)]])
    namespace = {}
    exec(f"def SAME_{arity}({parameters}):\n    return a1\n", namespace)
    module = types.ModuleType("identity")
    setattr(module, f"SAME_{arity}", xw.func(namespace[f"SAME_{arity}"]))
    return module


async def per_call(data, module, calls=CALLS):
    start = time.perf_counter()
    for _ in range(calls):
        await call(data, module)
    return (time.perf_counter() - start) / calls


def best(function, calls=CALLS):
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(calls):
            function()
        times.append((time.perf_counter() - start) / calls)
    return min(times)


async def convert_seconds(result, ret, data):
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(CALLS):
            await udfs_officejs.convert(result, ret, data)
        times.append((time.perf_counter() - start) / CALLS)
    return min(times)


async def measure():
    out = {}
    only = sys.argv[4].split(",") if sys.argv[4] else list(excel.CATALOG)
    for entry in (excel.CATALOG[name] for name in only):
        args = example_args(entry)
        spread = args if entry.vararg is None else [*args[:-1], *args[-1]]
        same = identity(len(spread))
        calls = {
            "function": (payload(entry.name, args), excel),
            "identity": (payload(f"SAME_{len(spread)}", spread), same),
        }
        for data, module in calls.values():  # warm up (imports the core)
            await call(data, module)
        slow = entry.name == "NJ_SCENARIOS"
        count = min(10, CALLS) if slow else CALLS
        fastest = dict.fromkeys(calls, float("inf"))
        for _ in range(ROUNDS):  # interleaved, so that drift hits both alike
            for key, (data, module) in calls.items():
                fastest[key] = min(fastest[key], await per_call(data, module, count))
        # The core: the cells as the dispatch hands them to the adapter, converted once.
        seen = {}
        def capture(*cells_in):
            seen["args"] = cells_in
            return 0
        capture.__xlfunc__ = getattr(excel, entry.name).__xlfunc__
        holder = types.ModuleType("capture")
        setattr(holder, entry.name, capture)
        await call(payload(entry.name, args), holder)
        converted = entry.convert(seen["args"], {})
        if entry.name == "NJ_EXPLAIN":
            core = best(lambda: entry.compute(*converted).steps, count)
        else:
            core = best(lambda: entry.compute(*converted), count)
        shown = cells.finite(entry.show(entry.compute(*converted)), entry.name)
        ret = getattr(excel, entry.name).__xlfunc__["ret"]
        out_function = await convert_seconds(shown, ret, calls["function"][0])
        same_ret = getattr(same, f"SAME_{len(spread)}").__xlfunc__["ret"]
        same_result = seen["args"][0] if seen["args"] else None
        out_identity = await convert_seconds(same_result, same_ret, calls["identity"][0])
        out[entry.name] = {
            "arity": len(spread),
            "function": fastest["function"],
            "identity": fastest["identity"],
            "core": core,
            "output": out_function - out_identity,
        }
    return out


print(json.dumps(asyncio.run(measure())))
"""


def _trees() -> dict[str, str | None]:
    before = os.environ.get("NJ_BENCH_BEFORE")
    return {"before": before, "after": None} if before else {"after": None}


def _measure(tree: str | None, runtime: str) -> dict[str, dict[str, float]]:
    environment = {
        **os.environ,
        "XLWINGS_ON_SERVER": "true",
        "XLWINGS_LICENSE_KEY": "noncommercial",
    }
    # Both trees on PYTHONPATH (this checkout's addin for "after"): on CPython every failing
    # ``from pyodide.ffi import JsNull`` scans sys.path, so one path entry more on one side
    # only would make that side's identity, and its function, dearer.
    environment["PYTHONPATH"] = tree or str(HERE.parents[1] / "addin")
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, runtime, str(CALLS), str(ROUNDS), FUNCTIONS],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, dict[str, float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _median(runs: list[dict[str, dict[str, float]]], name: str, key: str) -> float:
    """The median over the runs (NaN for a function the tree does not have)."""
    if not all(name in run for run in runs):
        return float("nan")
    return statistics.median(run[name][key] for run in runs)


def _ratio(runs: list[dict[str, dict[str, float]]], name: str) -> float:
    if not all(name in run for run in runs):
        return float("nan")
    return statistics.median(run[name]["function"] / run[name]["identity"] for run in runs)


def _floor(runs: list[dict[str, dict[str, float]]], name: str) -> float:
    return statistics.median(
        (run[name]["identity"] + run[name]["core"] + max(0.0, run[name]["output"]))
        / run[name]["identity"]
        for run in runs
    )


def test_every_catalog_function_before_and_after() -> None:
    trees = _trees()
    runtimes = ("cpython", "pyodide")
    results: dict[tuple[str, str], list[Any]] = {
        (label, runtime): [] for label in trees for runtime in runtimes
    }
    for _ in range(RUNS):
        for runtime in runtimes:
            for label, tree in trees.items():  # alternating: before, after, before ...
                results[label, runtime].append(_measure(tree, runtime))
    labels = list(trees)
    names = list(results[labels[-1], "cpython"][0])
    print(f"\nOffice.js dispatch, median of {RUNS} fresh interpreters per tree and runtime")
    print("ratio = function / same-arity identity through the same dispatch (goal <= 1.2x);")
    print("core = the adapter's law call, us; floor = (identity + core + output) / identity")
    header = f"{'function':32} {'n':>2}"
    for runtime in runtimes:
        short = "CPy" if runtime == "cpython" else "Lite"
        header += "".join(f" {short + ' ' + label:>12}" for label in labels)
        header += f" {short + ' floor':>11}"
    header += "".join(f" {'core ' + label:>12}" for label in labels)
    header += f" {'ident CPy':>10} {'ident Lite':>10}"
    print(header)
    for name in names:
        line = f"{name:32} {results[labels[-1], 'cpython'][0][name]['arity']:2d}"
        for runtime in runtimes:
            line += "".join(f" {_ratio(results[label, runtime], name):11.2f}x" for label in labels)
            line += f" {_floor(results[labels[-1], runtime], name):10.2f}x"
        line += "".join(
            f" {_median(results[label, 'pyodide'], name, 'core') * 1e6:12.1f}" for label in labels
        )
        line += "".join(
            f" {_median(results[labels[-1], runtime], name, 'identity') * 1e6:10.1f}"
            for runtime in runtimes
        )
        print(line)
    # The absolute per-call times on CPython: a dispatch made cheaper (the identity) raises
    # the ratio of a function whose own time did not change.
    print("\nCPython per call, us (median): the function and the identity, per tree")
    print(f"{'function':36}" + "".join(f" {'fn ' + lb:>11} {'ident ' + lb:>12}" for lb in labels))
    for name in names:
        line = f"{name:36}"
        for label in labels:
            runs = results[label, "cpython"]
            line += f" {_median(runs, name, 'function') * 1e6:11.1f}"
            line += f" {_median(runs, name, 'identity') * 1e6:12.1f}"
        print(line)
    for runtime in runtimes:
        for label in labels:
            ratios = [
                ratio
                for ratio in (_ratio(results[label, runtime], name) for name in names)
                if ratio == ratio  # functions the tree has
            ]
            within = sum(ratio <= 1.2 for ratio in ratios)
            print(
                f"{runtime:8} {label:6}: median ratio {statistics.median(ratios):.2f}x, max"
                f" {max(ratios):.2f}x, {within} of {len(ratios)} at most 1.2x"
            )
    assert names


# =========================================================================== NJ_SCENARIOS by size

#: One interpreter's NJ_SCENARIOS by table size: argv = [runtime, rounds, sizes]; prints one
#: JSON line {rows: {"function": s, "identity": s, "cells": n}}.
_BY_SIZE = r"""
import asyncio, json, sys, time, types
if sys.argv[1] == "pyodide":
    ffi = types.ModuleType("pyodide.ffi")
    ffi.JsNull = type("JsNull", (), {})
    pyodide = types.ModuleType("pyodide")
    pyodide.ffi = ffi
    sys.modules.update({"pyodide": pyodide, "pyodide.ffi": ffi})
import xlwings as xw
from xlwings.pro import udfs_officejs
from nj_incentives import excel

ROUNDS = int(sys.argv[2])
SIZES = [int(n) for n in sys.argv[3].split(",")]
call = udfs_officejs.custom_functions_call
HEADER = ["id", "agreement_date", "pct", "withholdings_1", "withholdings_2",
          "withholdings_3", "new_employees_1", "new_employees_2", "new_employees_3",
          "accrual_year", "conversion_amount"]


def table(rows):
    # 11 columns a row: a 3-year BEIP grant (40909 = 2012-01-01) and a conversion
    return [HEADER] + [
        [f"r{i}", 40909, 0.5, 100000 + i, 110000, 120000, 10, 11, 12, 2012, 1250000 + i]
        for i in range(rows)
    ]


def payload(name, args):
    return {
        "client": "Office.js", "func_name": name, "args": args,
        "caller_address": "Sheet1!B2", "session_id": "benchmark",
        "culture_info_name": "en-US", "date_format": "M/d/yyyy",
        "version": xw.__version__, "runtime": "1.4",
    }


same = types.ModuleType("identity")
def SAME_1(a1):
    return a1
same.SAME_1 = xw.func(SAME_1)


async def per_call(data, module, calls):
    start = time.perf_counter()
    for _ in range(calls):
        await call(data, module)
    return (time.perf_counter() - start) / calls


async def measure():
    out = {}
    for rows in SIZES:
        cells = table(rows)
        calls = {
            "function": (payload("NJ_SCENARIOS", [cells]), excel),
            "identity": (payload("SAME_1", [cells]), same),
        }
        for data, module in calls.values():  # warm up
            await call(data, module)
        count = max(1, 20 // rows)
        fastest = dict.fromkeys(calls, float("inf"))
        for _ in range(ROUNDS):  # interleaved, so that drift hits both alike
            for key, (data, module) in calls.items():
                fastest[key] = min(fastest[key], await per_call(data, module, count))
        out[rows] = {**fastest, "cells": len(HEADER) * (rows + 1)}
    return out


print(json.dumps(asyncio.run(measure())))
"""

SIZES = os.environ.get("NJ_BENCH_SIZES", "1,10,100,1000")


def test_scenarios_by_table_size() -> None:
    """NJ_SCENARIOS of 1 to 1,000 rows of 11 columns (a 3-year grant and a conversion)
    against ``SAME_1`` of the same table through the same dispatch (issue 35): the ratio
    at each size, the fixed cost (the 1-row call less its cells at the per-cell cost)
    and the cost per input cell (between the two largest sizes), each the median of
    ``NJ_BENCH_RUNS`` fresh interpreters alternating trees (``NJ_BENCH_BEFORE``)."""
    trees = _trees()
    runtimes = ("cpython", "pyodide")
    results: dict[tuple[str, str], list[Any]] = {
        (label, runtime): [] for label in trees for runtime in runtimes
    }
    environment = {
        **os.environ,
        "XLWINGS_ON_SERVER": "true",
        "XLWINGS_LICENSE_KEY": "noncommercial",
    }
    for _ in range(RUNS):
        for runtime in runtimes:
            for label, tree in trees.items():  # alternating: before, after, before ...
                environment["PYTHONPATH"] = tree or str(HERE.parents[1] / "addin")
                done = subprocess.run(
                    [sys.executable, "-c", _BY_SIZE, runtime, str(ROUNDS), SIZES],
                    env=environment,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                results[label, runtime].append(json.loads(done.stdout.strip().splitlines()[-1]))
    sizes = list(results[next(iter(trees)), "cpython"][0])
    low, high = sizes[-2], sizes[-1]

    def slope(run: dict[str, dict[str, float]], key: str) -> float:
        return (run[high][key] - run[low][key]) / (run[high]["cells"] - run[low]["cells"])

    print(f"\nNJ_SCENARIOS by table size (11 columns), median of {RUNS} interpreters, us")
    for runtime in runtimes:
        for label in trees:
            runs = results[label, runtime]
            line = f"{runtime:8} {label:6}"
            for rows in sizes:
                fn = statistics.median(run[rows]["function"] for run in runs)
                ratio = statistics.median(
                    run[rows]["function"] / run[rows]["identity"] for run in runs
                )
                line += f" | {rows} rows {fn * 1e6:,.0f} ({ratio:.2f}x)"
            per_fn = statistics.median(slope(run, "function") for run in runs)
            per_id = statistics.median(slope(run, "identity") for run in runs)
            first = sizes[0]
            fixed = statistics.median(
                run[first]["function"] - run[first]["cells"] * slope(run, "function")
                for run in runs
            )
            fixed_id = statistics.median(
                run[first]["identity"] - run[first]["cells"] * slope(run, "identity")
                for run in runs
            )
            line += (
                f" | per cell {per_fn * 1e6:.2f} / identity {per_id * 1e6:.2f}"
                f" = {per_fn / per_id:.2f}x | fixed {fixed * 1e6:,.0f} / identity"
                f" {fixed_id * 1e6:,.0f}"
            )
            print(line)
    assert sizes


# ================================================================ the dispatch's own overhead

#: The cells exactly as the dispatch hands them to the Python function (a stand-in with
#: the function's declaration records them): shared by the overhead scripts below.
_CAPTURED = r"""
async def captured(name, data, function):
    seen = {}
    def capture(*cells_in):
        seen["args"] = cells_in
        return 0
    capture.__xlfunc__ = function.__xlfunc__
    holder = types.ModuleType("capture")
    setattr(holder, name, capture)
    await call(data, holder)
    return seen["args"]
"""

#: One interpreter's dispatch overhead for every catalog function: argv = [runtime, calls,
#: rounds, names or ""]; prints one JSON line {name: {"function": [s...], "identity": [s...],
#: "arity": n}}, one overhead a round. The script shares _MEASURE's payloads and identity.
_OVERHEAD = (
    _MEASURE.split("async def per_call")[0]
    + r"""
import copy, gc, inspect, os
from nj_incentives.functions import CATALOG

# CPU seconds of this process (time.process_time), not wall time: on a loaded machine the
# time the process waits for a core is neither dispatch nor calculation.
# NJ_BENCH_GC=off: the collector disabled during each round's timings, as timeit does
# (the collections then fall between rounds). NJ_BENCH_ORDER: which of a pair a round
# times first, the call through the dispatch or the direct call: "alternate" (the
# default: dispatch first in even rounds, direct first in odd ones), "dispatch-first"
# or "direct-first". Each round's pair carries a third figure, 1 where direct was first.
GC_OFF = os.environ.get("NJ_BENCH_GC", "on") == "off"
ORDER = os.environ.get("NJ_BENCH_ORDER", "alternate")


def direct_first(turn):
    return ORDER == "direct-first" or (ORDER == "alternate" and turn % 2 == 1)


def per_call_direct(function, args, calls):
    start = time.process_time()
    for _ in range(calls):
        function(*args)
    return (time.process_time() - start) / calls


async def per_call(data, module, calls):
    start = time.process_time()
    for _ in range(calls):
        await call(data, module)
    return (time.process_time() - start) / calls


"""
    + _CAPTURED
    + r"""


async def measure():
    out = {}
    only = sys.argv[4].split(",") if sys.argv[4] else list(excel.CATALOG)
    for entry in (excel.CATALOG[name] for name in only):
        args = example_args(entry)
        spread = args if entry.vararg is None else [*args[:-1], *args[-1]]
        same = identity(len(spread))
        same_name = f"SAME_{len(spread)}"
        data_fn = payload(entry.name, args)
        data_id = payload(same_name, spread)
        # direct: the same call on the pure function table (functions/), the same cells
        # the dispatch hands over; the identity's own Python function likewise
        fn_args = await captured(entry.name, data_fn, getattr(excel, entry.name))
        id_function = getattr(same, same_name)
        id_args = await captured(same_name, data_id, id_function)
        direct_fn = CATALOG[entry.name].cells
        direct_id = getattr(id_function, "__wrapped__", id_function)
        answer = direct_fn(*fn_args)
        # The dispatch with the calculation taken out: a stand-in with the function's own
        # xlwings declaration and signature handing back its answer, computed once
        def stand_in(*cells_in, **named):
            return answer
        real = getattr(excel, entry.name)
        stand_in.__xlfunc__ = real.__xlfunc__
        stand_in.__signature__ = inspect.signature(real)
        stand_in.__annotations__ = real.__annotations__
        holder = types.ModuleType("stand_in")
        setattr(holder, entry.name, stand_in)
        # the same with a fresh copy of the answer a call, as a function makes it (the
        # stand-in's one answer stays in the processor's caches from call to call)
        def fresh_in(*cells_in, **named):
            return copy.deepcopy(answer)
        fresh_in.__xlfunc__ = real.__xlfunc__
        fresh_in.__signature__ = inspect.signature(real)
        fresh_in.__annotations__ = real.__annotations__
        # the hints nj_incentives worked out once for xlwings' special-argument step
        # (serving.declare_special_hints; a tree before it has none)
        for copy_to in (stand_in, fresh_in):
            if hasattr(real, "__nj_special_hints__"):
                copy_to.__nj_special_hints__ = real.__nj_special_hints__
        fresh_holder = types.ModuleType("fresh_in")
        setattr(fresh_holder, entry.name, fresh_in)
        await call(data_fn, excel)  # warm up
        await call(data_id, same)
        await call(data_fn, holder)
        await call(data_fn, fresh_holder)
        slow = entry.name in ("NJ_SCENARIOS",)
        count = min(5, CALLS) if slow else CALLS
        async def pair(data, module, function, args, calls, first):
            # (through the dispatch, direct, 1 if direct was timed first)
            if first:
                direct = per_call_direct(function, args, calls)
                return (await per_call(data, module, calls), direct, 1)
            return (await per_call(data, module, calls), per_call_direct(function, args, calls), 0)

        function, ident, stand, fresh = [], [], [], []
        for turn in range(ROUNDS):  # alternated: the function, the identity, the stand-ins
            first = direct_first(turn)
            if GC_OFF:
                gc.disable()
            function.append(await pair(data_fn, excel, direct_fn, fn_args, count, first))
            ident.append(await pair(data_id, same, direct_id, id_args, count, first))
            stand.append(await pair(data_fn, holder, stand_in, fn_args, CALLS, first))
            fresh.append(await pair(data_fn, fresh_holder, fresh_in, fn_args, count, first))
            gc.enable()
        out[entry.name] = {
            "arity": len(spread), "function": function, "identity": ident, "stand_in": stand,
            "fresh": fresh,
        }
    return out


print(json.dumps(asyncio.run(measure())))
"""
)


def _overhead(rounds: list[list[float]], order: str = "dispatch-first") -> float:
    """The median over the rounds of (through the dispatch - direct): of the rounds that
    timed the dispatch first (``order="dispatch-first"``, every earlier session's figure),
    of those that timed the direct call first (``"direct-first"``), or the mean of the
    two (``"both"``: the block a round times first costs more, docs/performance.md); a
    round without its order's flag timed the dispatch first. Where a run has rounds of
    one order only, that order's."""
    split: dict[int, list[float]] = {0: [], 1: []}
    for through, direct, *flag in rounds:
        split[int(flag[0]) if flag else 0].append(through - direct)
    medians = {first: statistics.median(values) for first, values in split.items() if values}
    wanted = {"dispatch-first": [0], "direct-first": [1], "both": [0, 1]}[order]
    found = [medians[first] for first in wanted if first in medians] or list(medians.values())
    return statistics.fmean(found)


def test_dispatch_overhead_of_every_function() -> None:
    """Each catalog function's dispatch overhead = its call through the Office.js dispatch
    less the same call on the pure function table (``CATALOG[name].cells``, the cells the
    dispatch hands over), against the same-arity identity's (``SAME_n`` through the
    dispatch less ``SAME_n`` called directly): the goal of issue 35 is about the dispatch,
    and a function's own calculation is not dispatch. The four timings alternate in each
    round; the overhead is the median over ``NJ_BENCH_ROUNDS`` rounds, then the median
    over ``NJ_BENCH_RUNS`` fresh interpreters."""
    runtimes = ("cpython", "pyodide")
    environment = {
        **os.environ,
        "XLWINGS_ON_SERVER": "true",
        "XLWINGS_LICENSE_KEY": "noncommercial",
        # NJ_BENCH_TREE: the addin folder of another commit (git archive), else this one
        "PYTHONPATH": os.environ.get("NJ_BENCH_TREE") or str(HERE.parents[1] / "addin"),
    }
    results: dict[str, list[Any]] = {runtime: [] for runtime in runtimes}
    for _ in range(RUNS):
        for runtime in runtimes:
            done = subprocess.run(
                [sys.executable, "-c", _OVERHEAD, runtime, str(CALLS), str(ROUNDS), FUNCTIONS],
                env=environment,
                capture_output=True,
                text=True,
                check=True,
            )
            results[runtime].append(json.loads(done.stdout.strip().splitlines()[-1]))
    names = list(results["cpython"][0])

    def figures(runtime: str, name: str) -> tuple[float, ...]:
        runs = results[runtime]
        fn = statistics.median(_overhead(run[name]["function"]) for run in runs)
        ident = statistics.median(_overhead(run[name]["identity"]) for run in runs)
        ratio = statistics.median(
            _overhead(run[name]["function"]) / _overhead(run[name]["identity"]) for run in runs
        )
        both = statistics.median(
            _overhead(run[name]["function"], "both") / _overhead(run[name]["identity"], "both")
            for run in runs
        )
        direct = statistics.median(
            statistics.median(d for _, d, *_ in run[name]["function"]) for run in runs
        )
        stand = statistics.median(
            _overhead(run[name]["stand_in"]) / _overhead(run[name]["identity"]) for run in runs
        )
        fresh = statistics.median(
            _overhead(run[name]["fresh"]) / _overhead(run[name]["identity"]) for run in runs
        )
        # what the calculation costs more inside the dispatch than alone: the function's
        # overhead less the fresh stand-in's, as a share of the calculation
        excess = statistics.median(
            (_overhead(run[name]["function"], "both") - _overhead(run[name]["fresh"], "both"))
            / statistics.median(d for _, d, *_ in run[name]["function"])
            for run in runs
        )
        return fn, ident, ratio, direct, stand, fresh, excess, both

    print(f"\nDispatch overhead (through the Office.js dispatch - direct), us, median of {RUNS}")
    print("interpreters x the medians of their rounds; ratio = function's / identity's")
    print("(goal <= 1.5x); stand-in = the same through a stand-in that hands back the")
    print("function's answer (the dispatch with the calculation taken out) / identity's;")
    print("fresh = the same stand-in handing back a fresh copy of the answer a call;")
    print("both = the ratio with each overhead the mean of the rounds timing the dispatch")
    print("first and those timing the direct call first (fn, id, ratio, stand, fresh: the")
    print("dispatch-first rounds, every earlier session's figure); excess = (function's")
    print("overhead - fresh's) / direct, both orders: the calculation's extra cost inside")
    print("the dispatch; direct = the function's own calculation (CPython), us")
    gc_off = os.environ.get("NJ_BENCH_GC", "on") == "off"
    order = os.environ.get("NJ_BENCH_ORDER", "alternate")
    print(f"collector {'off during the timings' if gc_off else 'on'}, order {order}")
    header = f"{'function':32} {'n':>2}"
    for runtime in runtimes:
        short = "CPy" if runtime == "cpython" else "Lite"
        header += f" {short + ' fn':>9} {short + ' id':>9} {short + ' ratio':>10}"
        header += f" {short + ' both':>10} {short + ' stand':>10} {short + ' fresh':>10}"
        header += f" {short + ' exc':>9}"
    header += f" {'direct':>9}"
    print(header)
    ratios: dict[str, list[float]] = {runtime: [] for runtime in runtimes}
    boths: dict[str, list[float]] = {runtime: [] for runtime in runtimes}
    stands: dict[str, list[float]] = {runtime: [] for runtime in runtimes}
    excesses: dict[str, list[float]] = {runtime: [] for runtime in runtimes}
    for name in names:
        line = f"{name:32} {results['cpython'][0][name]['arity']:2d}"
        for runtime in runtimes:
            fn, ident, ratio, direct, stand, fresh, excess, both = figures(runtime, name)
            ratios[runtime].append(ratio)
            boths[runtime].append(both)
            stands[runtime].append(stand)
            excesses[runtime].append(excess)
            line += f" {fn * 1e6:9.1f} {ident * 1e6:9.1f} {ratio:9.2f}x {both:9.2f}x"
            line += f" {stand:9.2f}x {fresh:9.2f}x {excess * 100:8.1f}%"
        line += f" {direct * 1e6:9.1f}"
        print(line)
    for runtime in runtimes:
        worst = max(range(len(names)), key=lambda i: ratios[runtime][i])
        within = sum(ratio <= 1.5 for ratio in ratios[runtime])
        print(
            f"{runtime:8}: median {statistics.median(ratios[runtime]):.2f}x, worst"
            f" {ratios[runtime][worst]:.2f}x ({names[worst]}), {within} of {len(names)}"
            " at most 1.5x"
        )
        worst = max(range(len(names)), key=lambda i: stands[runtime][i])
        within = sum(ratio <= 1.5 for ratio in stands[runtime])
        print(
            f"{runtime:8}: stand-in: median {statistics.median(stands[runtime]):.2f}x, worst"
            f" {stands[runtime][worst]:.2f}x ({names[worst]}), {within} of {len(names)}"
            " at most 1.5x"
        )
        worst = max(range(len(names)), key=lambda i: boths[runtime][i])
        within = sum(ratio <= 1.5 for ratio in boths[runtime])
        print(
            f"{runtime:8}: both orders: median {statistics.median(boths[runtime]):.2f}x, worst"
            f" {boths[runtime][worst]:.2f}x ({names[worst]}), {within} of {len(names)}"
            " at most 1.5x"
        )
        print(
            f"{runtime:8}: excess: median {statistics.median(excesses[runtime]) * 100:.1f}%,"
            f" range {min(excesses[runtime]) * 100:.1f}% to {max(excesses[runtime]) * 100:.1f}%"
        )
    assert names


#: One interpreter's NJ_SCENARIOS dispatch overhead by table size: argv = [runtime, rounds,
#: sizes]; prints one JSON line {rows: {"function": [[through, direct]...], "identity": [...],
#: "cells": n}} (CPU seconds a call, each round's pair).
_OVERHEAD_BY_SIZE = (
    _BY_SIZE.split("async def per_call")[0]
    + r"""
import gc

from nj_incentives.functions import CATALOG


async def per_call(data, module, calls):
    start = time.process_time()
    for _ in range(calls):
        await call(data, module)
    return (time.process_time() - start) / calls


def per_call_direct(function, args, calls):
    start = time.process_time()
    for _ in range(calls):
        function(*args)
    return (time.process_time() - start) / calls


"""
    + _CAPTURED
    + r"""


async def measure():
    out = {}
    direct_fn = CATALOG["NJ_SCENARIOS"].cells
    for rows in SIZES:
        cells = table(rows)
        data_fn = payload("NJ_SCENARIOS", [cells])
        data_id = payload("SAME_1", [cells])
        fn_args = await captured("NJ_SCENARIOS", data_fn, excel.NJ_SCENARIOS)
        id_args = await captured("SAME_1", data_id, same.SAME_1)
        direct_fn(*fn_args)  # warm up
        await call(data_fn, excel)
        await call(data_id, same)
        count = max(1, 20 // rows)
        function, ident = [], []
        for turn in range(ROUNDS):  # alternated; the order of each pair too
            # a full collection between rounds, not inside one: where the collector's
            # allocation count lets a full collection fall (66 ms at 1,000 rows, measured)
            # would otherwise be charged to one call of one round
            gc.collect()
            if turn % 2:  # direct first (flag 1), as NJ_BENCH_ORDER=alternate above
                direct = per_call_direct(direct_fn, fn_args, count)
                function.append((await per_call(data_fn, excel, count), direct, 1))
                id_direct = per_call_direct(SAME_1, id_args, count)
                ident.append((await per_call(data_id, same, count), id_direct, 1))
                continue
            through = await per_call(data_fn, excel, count)
            function.append((through, per_call_direct(direct_fn, fn_args, count), 0))
            id_through = await per_call(data_id, same, count)
            ident.append((id_through, per_call_direct(SAME_1, id_args, count), 0))
        out[rows] = {"function": function, "identity": ident, "cells": len(HEADER) * (rows + 1)}
    return out


print(json.dumps(asyncio.run(measure())))
"""
)


def test_scenarios_overhead_by_table_size() -> None:
    """NJ_SCENARIOS's dispatch overhead (through the dispatch less the same call on the
    pure function table) and ``SAME_1``'s (through the dispatch less ``SAME_1`` called)
    for tables of ``NJ_BENCH_SIZES`` rows of 11 columns: each per call, and per input
    cell the slope between the two largest sizes (goal: at most 2x the identity's);
    CPU seconds, the medians of the alternated rounds, then of ``NJ_BENCH_RUNS``
    interpreters."""
    runtimes = ("cpython", "pyodide")
    environment = {
        **os.environ,
        "XLWINGS_ON_SERVER": "true",
        "XLWINGS_LICENSE_KEY": "noncommercial",
        # NJ_BENCH_TREE: the addin folder of another commit (git archive), else this one
        "PYTHONPATH": os.environ.get("NJ_BENCH_TREE") or str(HERE.parents[1] / "addin"),
    }
    results: dict[str, list[Any]] = {runtime: [] for runtime in runtimes}
    for _ in range(RUNS):
        for runtime in runtimes:
            done = subprocess.run(
                [sys.executable, "-c", _OVERHEAD_BY_SIZE, runtime, str(ROUNDS), SIZES],
                env=environment,
                capture_output=True,
                text=True,
                check=True,
            )
            results[runtime].append(json.loads(done.stdout.strip().splitlines()[-1]))
    sizes = list(results["cpython"][0])
    low, high = sizes[-2], sizes[-1]

    def slope(run: dict[str, Any], key: str, order: str) -> float:
        rise = _overhead(run[high][key], order) - _overhead(run[low][key], order)
        return float(rise / (run[high]["cells"] - run[low]["cells"]))

    print(f"\nNJ_SCENARIOS dispatch overhead by table size, median of {RUNS} interpreters,")
    print("CPU us: function's overhead / identity's (ratio); the function's own calculation")
    print("(direct) is not dispatch; the rounds timing the dispatch first (every earlier")
    print("session's figure), then both orders (the mean of those and the direct-first ones)")
    for order in ("dispatch-first", "both"):
        for runtime in runtimes:
            runs = results[runtime]
            line = f"{runtime:8} {order:14}"
            for rows in sizes:
                fn = statistics.median(_overhead(run[rows]["function"], order) for run in runs)
                ident = statistics.median(_overhead(run[rows]["identity"], order) for run in runs)
                direct = statistics.median(
                    statistics.median(d for _, d, *_ in run[rows]["function"]) for run in runs
                )
                line += (
                    f" | {rows} rows {fn * 1e6:,.0f} / {ident * 1e6:,.0f} ="
                    f" {fn / ident:.2f}x (direct {direct * 1e6:,.0f})"
                )
            per_fn = statistics.median(slope(run, "function", order) for run in runs)
            per_id = statistics.median(slope(run, "identity", order) for run in runs)
            line += (
                f" | per cell {per_fn * 1e6:.2f} / identity {per_id * 1e6:.2f}"
                f" = {per_fn / per_id:.2f}x"
            )
            print(line)
    assert sizes


# ============================================================ NJ_SCENARIOS's small-table path

#: Rows of the four shapes the crossover is measured on (header, one row): the table of
#: ``by_table_size`` (a 3-year grant and a conversion), the catalog's example (a
#: conversion), an ERTC schedule of five privilege periods, and a row of every section (a
#: 10-year grant, its conversion applied against nine tax years, five ERTC periods).
_SMALL_SHAPES: dict[str, tuple[list[str], list[object]]] = {
    "grant+conversion": (
        ["agreement_date", "pct", "withholdings_1", "withholdings_2", "withholdings_3",
         "new_employees_1", "new_employees_2", "new_employees_3", "accrual_year",
         "conversion_amount"],
        [40909, 0.5, 100000, 110000, 120000, 10, 11, 12, 2012, 1250000],
    ),
    "conversion": (["accrual_year", "conversion_amount"], [2012, 1250000]),
    "ertc 5 periods": (
        ["operations_start", "year1_new", "year2_new", "tax_type", "periods", "period_end_1",
         "liability_1", "minimum_tax_1", "liability_growth"],
        ["2023-01-01", 20, 10, "cbt", 5, "2023-12-31", 80000, 2000, 0.05],
    ),
    "every section": (
        ["agreement_date", "pct", "term", "withholdings_1", "withholdings_growth",
         "new_employees_1", "accrual_year", "conversion_amount",
         *[f"tax_liability_{year}" for year in range(2017, 2026)],
         "operations_start", "year1_new", "year2_new", "tax_type", "periods", "period_end_1",
         "liability_1", "minimum_tax_1", "liability_growth"],
        [40909, 0.5, 10, 100000, 0.03, 10, 2012, 1250000, *[90000] * 9,
         "2023-01-01", 20, 10, "cbt", 5, "2023-12-31", 80000, 2000, 0.05],
    ),
}  # fmt: skip


def test_scenarios_small_path_crossover() -> None:
    """``scenarios_table`` of 1 to 32 rows through the scalar core (``small=True``) and
    the vectorized runner (``small=False``), alternated, CPU time, the median of
    ``NJ_BENCH_ROUNDS`` rounds of ``NJ_BENCH_CALLS`` calls: where the small path stops
    being cheaper (``table.SMALL_ROWS`` stays below it). In this process: the function
    alone, no dispatch."""
    import time

    from nj_incentives.scenarios.table import SMALL_ROWS, scenarios_table

    sizes = [int(n) for n in os.environ.get("NJ_BENCH_SIZES", "1,2,4,8,12,16,24,32").split(",")]
    calls = max(1, CALLS // 10)
    print(f"\nNJ_SCENARIOS small path / vectorized runner (SMALL_ROWS = {SMALL_ROWS}), CPU ms,")
    print(f"median of {ROUNDS} alternated rounds of {calls} calls")
    for shape, (header, row) in _SMALL_SHAPES.items():
        line = f"{shape:17}"
        for rows in sizes:
            table = [header, *([row] * rows)]
            assert scenarios_table(table, small=True) == scenarios_table(table, small=False)
            times: dict[bool, list[float]] = {True: [], False: []}
            for turn in range(ROUNDS):
                for small in (True, False) if turn % 2 else (False, True):
                    start = time.process_time()
                    for _ in range(calls):
                        scenarios_table(table, small=small)
                    times[small].append((time.process_time() - start) / calls)
            fast, slow = statistics.median(times[True]), statistics.median(times[False])
            line += f" | {rows}: {fast * 1e3:.2f}/{slow * 1e3:.2f} = {fast / slow:.2f}x"
        print(line)
    assert sizes


# ======================================================== a calculation after other work

#: One interpreter's timings of a function's direct call back to back with itself and
#: right after other work: argv = [runtime, calls, rounds, names or ""]; prints one JSON
#: line {name: {key: [s a call, one a round]}}. Shares _MEASURE's payloads and identity.
_AFTER_WORK = (
    _MEASURE.split("async def per_call")[0]
    + r"""
from nj_incentives.functions import CATALOG

HEAVY = ["NJ_GROW_NJ_SCHEDULE", "NJ_EMERGE_SCHEDULE", "NJ_PORTFOLIO", "NJ_AWARD_CALENDAR",
         "NJ_SCENARIOS", "NJ_ERTC_SCHEDULE", "NJ_BEIP_GRANT"]


def arithmetic():
    # about 50 us of the interpreter's arithmetic, touching almost no memory
    total = 0
    for i in range(1500):
        total += i * i
    return total


"""
    + _CAPTURED
    + r"""


async def timed(steps, calls):
    # CPU seconds a call of the steps in turn (each a function; a coroutine is awaited)
    start = time.process_time()
    for _ in range(calls):
        for step in steps:
            done = step()
            if done is not None and hasattr(done, "__await__"):
                await done
    return (time.process_time() - start) / calls


async def measure():
    out = {}
    only = sys.argv[4].split(",") if sys.argv[4] else HEAVY
    other = CATALOG["NJ_TAX_YEAR"]
    other_args = await captured(
        "NJ_TAX_YEAR", payload("NJ_TAX_YEAR", example_args(other)), excel.NJ_TAX_YEAR
    )
    for entry in (excel.CATALOG[name] for name in only):
        args = example_args(entry)
        spread = args if entry.vararg is None else [*args[:-1], *args[-1]]
        same = identity(len(spread))
        data_fn = payload(entry.name, args)
        data_id = payload(f"SAME_{len(spread)}", spread)
        fn_args = await captured(entry.name, data_fn, getattr(excel, entry.name))
        direct_fn = CATALOG[entry.name].cells
        direct = lambda: direct_fn(*fn_args)
        fillers = {
            "identity's dispatch": lambda: call(data_id, same),
            "arithmetic": arithmetic,
            "NJ_TAX_YEAR direct": lambda: other.cells(*other_args),
        }
        through = lambda: call(data_fn, excel)
        for step in (direct, through, *fillers.values()):  # warm up
            done = step()
            if done is not None and hasattr(done, "__await__"):
                await done
        count = min(5, CALLS) if entry.name == "NJ_SCENARIOS" else CALLS
        figures = {"direct": [], "through": []}
        for turn in range(ROUNDS):
            figures["direct"].append(await timed([direct], count))
            figures["through"].append(await timed([through], count))
            for key, filler in (fillers.items() if turn % 2 else reversed(fillers.items())):
                figures.setdefault(key, []).append(await timed([filler], count))
                figures.setdefault(key + " + direct", []).append(
                    await timed([filler, direct], count)
                )
        out[entry.name] = figures
    return out


print(json.dumps(asyncio.run(measure())))
"""
)


def test_calculation_after_other_work() -> None:
    """A function's direct call timed back to back with itself (the ``direct`` of the
    overhead figures) against the same call right after other work, call by call: the
    identity's call through the dispatch, a loop of arithmetic, another NJ_* function's
    direct call (``NJ_TAX_YEAR``). after = (other work + direct) - other work alone -
    direct alone, CPU seconds, the median over the rounds, then over ``NJ_BENCH_RUNS``
    interpreters (CPython). Beside it, the function's overhead above the identity's
    (through the dispatch - direct - the identity's call through the dispatch, the same
    rounds): what the "excess" of the overhead figures is (docs/performance.md)."""
    environment = {
        **os.environ,
        "XLWINGS_ON_SERVER": "true",
        "XLWINGS_LICENSE_KEY": "noncommercial",
        "PYTHONPATH": os.environ.get("NJ_BENCH_TREE") or str(HERE.parents[1] / "addin"),
    }
    runs = []
    for _ in range(RUNS):
        done = subprocess.run(
            [sys.executable, "-c", _AFTER_WORK, "cpython", str(CALLS), str(ROUNDS), FUNCTIONS],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    names = list(runs[0])
    fillers = [key for key in runs[0][names[0]] if key not in ("direct", "through")]
    fillers = [key for key in fillers if not key.endswith(" + direct")]

    def median(run: dict[str, list[float]], key: str) -> float:
        return statistics.median(run[key])

    print(
        f"\nA calculation back to back with itself and after other work, CPU us, median of {RUNS}"
    )
    print("interpreters x the medians of their rounds; after X = (X + direct) - X - direct;")
    print("above identity = through the dispatch - direct - the identity's dispatch")
    header = f"{'function':22} {'direct':>8} {'above identity':>15}"
    header += "".join(f" {'after ' + key:>28}" for key in fillers)
    print(header)
    for name in names:
        direct = statistics.median(median(run[name], "direct") for run in runs)
        above = statistics.median(
            median(run[name], "through")
            - median(run[name], "direct")
            - median(run[name], "identity's dispatch")
            for run in runs
        )
        line = f"{name:22} {direct * 1e6:8.1f} {above * 1e6:15.1f}"
        for key in fillers:
            after = statistics.median(
                median(run[name], key + " + direct")
                - median(run[name], key)
                - median(run[name], "direct")
                for run in runs
            )
            line += f" {after * 1e6:18.1f} ({after / direct * 100:5.1f}%)"
        print(line)
    assert names
