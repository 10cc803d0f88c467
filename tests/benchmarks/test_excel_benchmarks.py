"""Benchmarks of the Excel functions (issue 4): figures printed, never a failure on speed.

Run with ``pytest tests/benchmarks/test_excel_benchmarks.py -m benchmark -s``; the
figures go in docs/performance.md, "Excel functions".

1. Per-call cost of each NJ_* function through the Office.js dispatch
   (``xlwings.server.custom_functions_call``, as xlwings Lite and xlwings Server call it),
   as a ratio to an identity function through the same dispatch in the same run (target:
   at most 1.5x). xlwings' dispatch costs something per argument and per cell, so the
   ratio is also given against a baseline function that receives exactly the same
   arguments (same payload) and returns 0: what remains is this package's own cost.
2. Cold import of ``nj_incentives.excel`` as a ratio to ``import xlwings`` alone, each
   in a fresh interpreter, repeated (target: at most 1.2x).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest
import xlwings as xw
import xlwings.server

from nj_incentives.core import cells
from nj_incentives.runtimes import xlwings_classic as excel

pytestmark = pytest.mark.benchmark

CALLS = 100  # calls per timing
ROUNDS = 5  # timings per function; the fastest is kept
IMPORT_RUNS = 9  # fresh interpreters per import measured; the median is kept


def _serial(value: object) -> object:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if hasattr(value, "toordinal"):
        return cells.to_cell_values(value)
    return value


def _arg(value: object) -> object:
    if value is None:
        return None
    if isinstance(value, list):
        rows = value if value and isinstance(value[0], list) else [value]
        return [[_serial(cell) for cell in row] for row in rows]
    return [[_serial(value)]]


def _payload(name: str, args: list[object]) -> dict[str, Any]:
    return {
        "client": "Office.js",
        "func_name": name,
        "args": args,
        "caller_address": "Sheet1!B2",
        "session_id": "benchmark",
        "culture_info_name": "en-US",
        "date_format": "M/d/yyyy",
        "version": xw.__version__,
        "runtime": "1.4",
    }


def _example_args(entry: excel.ExcelFunction) -> list[object]:
    count = len(entry.arguments)
    args = [_arg(value) for value in entry.example[:count]]
    args += [None] * (count - len(args))
    if entry.vararg is not None:
        args.append([_arg(value) for value in entry.example[count:]])
    return args


def _baseline_module(arities: set[int]) -> types.ModuleType:
    """IDENTITY(x) returns x; BASELINE_n(a1, [a2] ... [an]) returns 0. Same decorator."""
    module = types.ModuleType("baseline_udfs")

    def IDENTITY(x):  # type: ignore[no-untyped-def]  # annotations would be converters
        return x

    module.IDENTITY = xw.func(IDENTITY)  # type: ignore[attr-defined]
    for arity in sorted(arities):
        parameters = ", ".join(["a1", *[f"a{i}=None" for i in range(2, arity + 1)]])
        namespace: dict[str, Any] = {}
        exec(f"def BASELINE_{arity}({parameters}):\n    return 0\n", namespace)
        function = namespace[f"BASELINE_{arity}"]
        setattr(module, function.__name__, xw.func(function))
    return module


def _plain_args(entry: excel.ExcelFunction, args: list[object]) -> list[object]:
    """The same payload for a function without ``*args``: repeated arguments spread out."""
    if entry.vararg is None:
        return args
    return [*args[:-1], *args[-1]]  # type: ignore[misc]


async def _per_call(payload: dict[str, Any], module: types.ModuleType) -> float:
    start = time.perf_counter()
    for _ in range(CALLS):
        await xlwings.server.custom_functions_call(payload, module)
    return (time.perf_counter() - start) / CALLS


Row = tuple[str, int, float, float, float, float]


def measure_dispatch() -> list[Row]:
    """Per function: (name, arguments, seconds per call through the dispatch, per call of
    IDENTITY, per call of the same-arguments baseline, per direct plain call)."""
    entries = list(excel.CATALOG.values())
    baselines = _baseline_module(
        {len(_plain_args(entry, _example_args(entry))) for entry in entries}
    )

    async def measure() -> list[Row]:
        rows = []
        for entry in entries:
            args = _example_args(entry)
            spread = _plain_args(entry, args)
            calls = {
                "function": (_payload(entry.name, args), excel),
                "identity": (_payload("IDENTITY", [[[1]]]), baselines),
                "same_args": (_payload(f"BASELINE_{len(spread)}", spread), baselines),
            }
            for payload, module in calls.values():  # warm up (imports the core)
                await xlwings.server.custom_functions_call(payload, module)
            best = dict.fromkeys(calls, float("inf"))
            for _ in range(ROUNDS):  # interleaved, so that drift hits all three alike
                for key, (payload, module) in calls.items():
                    best[key] = min(best[key], await _per_call(payload, module))
            plain = excel.functions()[entry.name]
            start = time.perf_counter()
            for _ in range(CALLS):
                plain(*entry.example)
            direct = (time.perf_counter() - start) / CALLS
            rows.append(
                (
                    entry.name,
                    len(args),
                    best["function"],
                    best["identity"],
                    best["same_args"],
                    direct,
                )
            )
        return rows

    return asyncio.run(measure())


def _report(title: str, rows: list[Row]) -> None:
    print(f"\n{title}")
    print(
        f"{'function':32} {'args':>4} {'call us':>8} {'ident us':>8} {'ratio':>6}"
        f" {'same-args us':>12} {'ratio':>6} {'direct us':>9}"
    )
    for name, arity, function, ident, same, direct in rows:
        print(
            f"{name:32} {arity:4d} {function * 1e6:8.1f} {ident * 1e6:8.1f}"
            f" {function / ident:6.2f} {same * 1e6:12.1f} {function / same:6.2f}"
            f" {direct * 1e6:9.1f}"
        )
    ratios = [function / ident for _, _, function, ident, _, _ in rows]
    fair = [function / same for _, _, function, _, same, _ in rows]
    print(
        f"median ratio to IDENTITY: {statistics.median(ratios):.2f}x "
        f"(max {max(ratios):.2f}x); to the same-arguments baseline: "
        f"{statistics.median(fair):.2f}x (max {max(fair):.2f}x); target 1.5x"
    )


@pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js dispatch")
def test_per_call_cost_through_the_office_js_dispatch() -> None:
    rows = measure_dispatch()
    _report("Office.js dispatch on CPython (as xlwings Server runs it)", rows)
    assert all(function > 0 for _, _, function, _, _, _ in rows)


#: Run in a fresh interpreter: xlwings' dispatch tries ``from pyodide.ffi import JsNull``
#: for every argument and cell. On CPython that import fails each time, which costs
#: more than most functions; in xlwings Lite (Pyodide) it succeeds and is cached. A
#: stand-in ``pyodide.ffi`` module shows the per-call cost as in Lite.
PYODIDE_STUB = """
import sys, types
ffi = types.ModuleType("pyodide.ffi")
ffi.JsNull = type("JsNull", (), {})
pyodide = types.ModuleType("pyodide")
pyodide.ffi = ffi
sys.modules.update({"pyodide": pyodide, "pyodide.ffi": ffi})
"""

_AS_IN_PYODIDE = (
    PYODIDE_STUB
    + """
import json
sys.path.insert(0, sys.argv[1])
import test_excel_benchmarks
print(json.dumps(test_excel_benchmarks.measure_dispatch()))
"""
)


@pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js dispatch")
def test_per_call_cost_with_the_pyodide_import_succeeding() -> None:
    env = {**os.environ, "XLWINGS_ON_SERVER": "true", "XLWINGS_LICENSE_KEY": "noncommercial"}
    here = str(Path(__file__).resolve().parent)
    completed = subprocess.run(
        [sys.executable, "-c", _AS_IN_PYODIDE, here],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[Row] = [
        (str(name), int(arity), float(function), float(ident), float(same), float(direct))
        for name, arity, function, ident, same, direct in json.loads(
            completed.stdout.strip().splitlines()[-1]
        )
    ]
    _report("Office.js dispatch with pyodide.ffi importable (as in xlwings Lite)", rows)
    assert rows


def _import_seconds(statement: str, env: dict[str, str]) -> list[float]:
    """Seconds for ``statement`` in a fresh interpreter, then for the package on top of it."""
    code = (
        "import time; t = time.perf_counter(); "
        f"{statement}; a = time.perf_counter(); import nj_incentives.excel; "
        "b = time.perf_counter(); print(a - t, b - a)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return [float(x) for x in completed.stdout.strip().splitlines()[-1].split()]


def test_cold_import_of_the_headless_functions() -> None:
    """``import nj_incentives.functions`` (the table calc, the memo and sign-off call; no
    xlwings) against ``import nj_incentives.excel`` (the same table decorated for
    xlwings), alternated in fresh interpreters, medians of IMPORT_RUNS."""
    plain = {
        k: v for k, v in os.environ.items() if k not in ("XLWINGS_ON_SERVER", "XLWINGS_LICENSE_KEY")
    }
    times: dict[str, list[float]] = {"functions": [], "excel": []}
    for _ in range(IMPORT_RUNS):
        for name, found in times.items():
            code = (
                "import sys, time; t = time.perf_counter(); "
                f"import nj_incentives.{name}; print(time.perf_counter() - t, "
                "'xlwings' in sys.modules)"
            )
            done = subprocess.run(
                [sys.executable, "-c", code], env=plain, capture_output=True, text=True, check=True
            )
            seconds, xlwings = done.stdout.split()
            assert xlwings == ("False" if name == "functions" else "True")
            found.append(float(seconds))
    headless, excel = (statistics.median(times[n]) for n in ("functions", "excel"))
    print(
        f"\nimport nj_incentives.functions {headless * 1000:.0f} ms, import "
        f"nj_incentives.excel {excel * 1000:.0f} ms (fresh interpreters, medians of "
        f"{IMPORT_RUNS}): {headless / excel:.2f}x"
    )


def test_cold_import_compared_with_xlwings() -> None:
    """Two measures, each the median over fresh interpreters: the two imports in separate
    interpreters (alternating), and the package's extra cost right after ``import
    xlwings`` in the same interpreter (less exposed to a busy machine)."""
    plain = {
        k: v for k, v in os.environ.items() if k not in ("XLWINGS_ON_SERVER", "XLWINGS_LICENSE_KEY")
    }
    server = {**plain, "XLWINGS_ON_SERVER": "true", "XLWINGS_LICENSE_KEY": "noncommercial"}
    print()
    for label, env in (("plain (classic/recalc)", plain), ("Office.js server mode", server)):
        xlwings_times, module_times, extra_ratios = [], [], []
        for _ in range(IMPORT_RUNS):  # alternate, so that drift hits both alike
            base_alone, _ = _import_seconds("import xlwings", env)
            xlwings_times.append(base_alone)
            module_times.append(sum(_import_seconds("pass", env)))
            base, extra = _import_seconds("import xlwings", env)
            extra_ratios.append((base + extra) / base)
        base, ours = statistics.median(xlwings_times), statistics.median(module_times)
        print(
            f"{label}: import xlwings {base * 1000:.0f} ms, import nj_incentives.excel "
            f"{ours * 1000:.0f} ms (separate interpreters, medians of {IMPORT_RUNS}): "
            f"ratio {ours / base:.2f}x; after import xlwings in the same interpreter: "
            f"{statistics.median(extra_ratios):.3f}x (target 1.2x)"
        )
        assert base > 0
        assert ours > 0
