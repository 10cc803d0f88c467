"""The time of a fuzz call, per runtime: the figure behind fuzzcorpus.CALL_BUDGET_S.

No test asserts wall time (issue 21 item 3): the fuzz suite checks each call's CPU time
against a generous bound (``fuzzcorpus.CALL_BUDGET_S``, meant to catch a runaway, not a
slow call), and this benchmark reports what a call takes, wall clock and CPU, so that
the margin can be read: median, 99th percentile and slowest, and the slowest as a share
of the bound. Printed, never a failure.

Run with ``pytest tests/benchmarks/test_fuzz_bench.py -m benchmark -s`` (the Pyodide case
boots Pyodide under Node, as tests/runtimes/test_runtime_pyodide.py does: about two minutes).
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import fuzzcorpus

pytestmark = pytest.mark.benchmark


def _figures(label: str, seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"{label}: {len(ordered)} calls, median {statistics.median(ordered) * 1e3:.2f} ms, "
        f"p99 {p99 * 1e3:.2f} ms, slowest {ordered[-1] * 1e3:.1f} ms = "
        f"{ordered[-1] / fuzzcorpus.CALL_BUDGET_S:.2%} of the {fuzzcorpus.CALL_BUDGET_S:g} s bound"
    )


def test_fuzz_call_time_in_cpython() -> None:
    import xlwings.server

    from nj_incentives.runtimes import xlwings_classic as excel
    from officejs import payload
    from test_fuzz import CORPUS, RANDOM, hypothesis_calls

    saved = sys.modules.get("pyodide")
    sys.modules["pyodide"] = None  # type: ignore[assignment]  # as tests/runtimes/test_fuzz.py
    loop = asyncio.new_event_loop()
    wall: list[float] = []
    cpu: list[float] = []
    try:
        for call in [*CORPUS, *RANDOM, *hypothesis_calls()]:
            request = payload(call["func_name"], call["args"])
            started, started_cpu = time.perf_counter(), time.process_time()
            with contextlib.suppress(Exception):  # an input error: timed all the same
                loop.run_until_complete(xlwings.server.custom_functions_call(request, excel))
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
    finally:
        loop.close()
        if saved is None:
            del sys.modules["pyodide"]
        else:
            sys.modules["pyodide"] = saved
    print()
    print(_figures("CPython wall", wall))
    print(_figures("CPython CPU ", cpu))


def test_fuzz_call_time_in_pyodide(tmp_path: Path) -> None:
    import test_runtime_pyodide as runtime
    from tooling import need

    node = need("node", "runs Pyodide")
    run: dict[str, Any] = runtime.run_in_pyodide(node, tmp_path)
    there = run["pyodide"]["fuzz"]
    print()
    print(_figures("Pyodide (process_time = wall clock there)", there["seconds"]))
    print(f"Pyodide boot and install: {run['pyodide']['timings_ms']['boot'] / 1e3:.1f} s")
