"""xlwings Server under load (issue 22 item 7): figures printed, never a failure on speed.

Run with ``pytest tests/benchmarks/test_server_bench.py -m benchmark -s``; the figures go
in docs/performance.md, "The served app". Set ``NJ_BENCH_BASE`` to the
``addin`` folder of an older tree to serve that tree too (``xlwings_server.main:main_app``
as it was deployed before), side by side with this one (``nj_incentives.runtimes.serving:app``).

1. xlwings' cell reading (``_xlofficejs.Engine.clean_value_data``) per cell, with xlwings'
   own ``JsNull`` check (an import attempt per cell) and with the cached one, as a ratio to
   a plain Python pass over the same cells (the floor), alternated, median of rounds.
2. On the real server (127.0.0.1): a 1,000 x 1,000 range (the time to its answer, and
   the time a small call made meanwhile waits); a 20,000-row NJ_SCENARIOS table (its time
   per cell); the status codes of 2,000 malformed requests.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nj_incentives.runtimes import serving
from nj_incentives.runtimes import xlwings_classic as excel
from officejs import payload
from test_server_load import GRANT_ARGS, MALFORMED, random_malformed, start, stop

pytestmark = [
    pytest.mark.benchmark,
    pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js path"),
]

ROUNDS = 5
BIG_TIMEOUT = 180  # seconds a large request is given (before the fix: minutes)


def _per_cell(function: Callable[[], object], cells: int) -> float:
    start = time.perf_counter()
    function()
    return (time.perf_counter() - start) / cells * 1e6


def test_cell_reading_per_cell() -> None:
    import xlwings.utils
    from xlwings.pro import _xlofficejs

    rows = [[float(r * 100 + c) + 0.5 for c in range(100)] for r in range(200)]  # 20,000
    cells = 20_000
    cached = xlwings.utils.is_jsnull

    def read() -> object:
        return _xlofficejs.Engine.clean_value_data(rows, None, None, None, True)

    def floor() -> object:
        return [[c if c != "" else None for c in row] for row in rows]

    figures: dict[str, list[float]] = {"xlwings": [], "cached": [], "floor": []}
    for _ in range(ROUNDS):
        xlwings.utils.is_jsnull = serving.REPLACED["is_jsnull"]
        try:
            figures["xlwings"].append(_per_cell(read, cells))
        finally:
            xlwings.utils.is_jsnull = cached
        figures["cached"].append(_per_cell(read, cells))
        figures["floor"].append(_per_cell(floor, cells))
    median = {k: statistics.median(v) for k, v in figures.items()}
    print(
        f"\ncell reading, µs per cell (median of {ROUNDS}): xlwings' check "
        f"{median['xlwings']:.2f}, cached {median['cached']:.3f}, floor {median['floor']:.3f}; "
        f"before / after {median['xlwings'] / median['cached']:,.0f}x, "
        f"after / floor {median['cached'] / median['floor']:.1f}x"
    )


def _scenario_table(rows: int) -> list[list[object]]:
    table: list[list[object]] = [["id", "accrual_year", "conversion_amount"]]
    table += [[f"S{n}", 2012 + n % 8, 100000 + n] for n in range(rows)]
    return table


def _started(root: Path, app: str, base: str | None) -> tuple[Any, Any]:
    saved = os.environ.get("PYTHONPATH")
    if base:
        os.environ["PYTHONPATH"] = base
    try:
        return start(root, app)
    finally:
        if base:
            if saved is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = saved


def _timed(served: Any, body: bytes, timeout: float = BIG_TIMEOUT) -> tuple[object, float]:
    began = time.perf_counter()
    try:
        status: object = served.post(body, timeout=timeout)[0]
    except OSError:
        status = f"no answer in {timeout:.0f} s"
    return status, time.perf_counter() - began


def _big_with_another(served: Any, body: bytes) -> tuple[object, float, object, float]:
    """The large request, and a small one sent 0.2 s after it: (status, seconds) each."""
    small = json.dumps(payload("NJ_BEIP_GRANT", GRANT_ARGS)).encode()
    answer: list[tuple[object, float]] = []
    thread = threading.Thread(target=lambda: answer.append(_timed(served, body)))
    thread.start()
    time.sleep(0.2)  # the large request is on its way
    status, waited = _timed(served, small)
    thread.join()
    return (*answer[0], status, waited)


def _serve(label: str, root: Path, app: str, base: str | None) -> dict[str, Any]:
    """Each measurement on a server of its own (one that is still busy with a request
    whose client gave up would delay the next)."""
    grid = [[float(r * 1000 + c) + 0.25 for c in range(1000)] for r in range(1000)]
    figures: dict[str, Any] = {"label": label}
    measurements: dict[str, Callable[[Any], Any]] = {
        "1000x1000 floats": lambda served: _big_with_another(
            served, json.dumps(payload("NJ_SCENARIOS", [grid])).encode()
        ),
        "1000x1000 ints": lambda served: _big_with_another(
            served, json.dumps(payload("NJ_SCENARIOS", [[[1] * 1000] * 1000])).encode()
        ),
        "scenarios 20,000 rows": lambda served: _timed(
            served, json.dumps(payload("NJ_SCENARIOS", [_scenario_table(20_000)])).encode()
        ),
        "malformed": _malformed_loop,
    }
    only = os.environ.get("NJ_BENCH_ONLY", "")  # e.g. "malformed": these measurements only
    for number, (name, measure) in enumerate(measurements.items()):
        if only and name not in only.split(","):
            continue
        process, served = _started(root / str(number), app, base)
        try:
            figures[name] = measure(served)
        finally:
            stop(process)
    return figures


def _malformed_loop(served: Any) -> tuple[dict[str, int], float]:
    rng = random.Random(22)
    bodies = [body for _what, body, _ in MALFORMED] * 36
    bodies += [random_malformed(rng) for _ in range(2000 - len(bodies))]
    statuses: dict[str, int] = {}
    began = time.perf_counter()
    for body in bodies[:2000]:
        code, _seconds = _timed(served, body, timeout=60)
        statuses[str(code)] = statuses.get(str(code), 0) + 1
    return statuses, time.perf_counter() - began


def test_server_under_load(tmp_path: Path) -> None:
    runs = []
    base = os.environ.get("NJ_BENCH_BASE")
    if base:
        runs.append(_serve("before", tmp_path / "before", "xlwings_server.main:main_app", base))
    runs.append(_serve("after", tmp_path / "after", "nj_incentives.runtimes.serving:app", None))
    for figures in runs:
        print(f"\nxlwings Server, {figures['label']}:")
        for name in ("1000x1000 floats", "1000x1000 ints"):
            if name not in figures:
                continue
            status, seconds, small_status, waited = figures[name]
            print(
                f"  {name}: {status} in {seconds:.2f} s ({seconds:.2f} µs a cell: 1,000,000 cells);"
                f" a small call meanwhile: {small_status} after {waited:.2f} s"
            )
        if "scenarios 20,000 rows" in figures:
            status, seconds = figures["scenarios 20,000 rows"]
            print(
                f"  NJ_SCENARIOS 20,000 rows x 3: {status} in {seconds:.2f} s "
                f"({seconds / 60_003 * 1e6:.1f} µs a cell)"
            )
        if "malformed" in figures:
            statuses, seconds = figures["malformed"]
            print(f"  2,000 malformed requests in {seconds:.1f} s: {statuses}")
