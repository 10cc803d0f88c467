"""What the scenario runner's version column (``grant_version``, issue 19) adds to a run,
piece by piece over 1,000,000 rows in the runner's chunks (median of 15 each): figures
printed, never a failure. Run with
``pytest tests/benchmarks/test_version_column_bench.py -m benchmark -s``; the figures are
in docs/performance.md, "Scenario runner"."""

from __future__ import annotations

import datetime as dt
import statistics
import time
from collections.abc import Callable
from decimal import Decimal

import numpy as np
import pytest

from nj_incentives.core import parameters as P
from nj_incentives.core.rules import Int64
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as beip
from nj_incentives.scenarios.columns import Layout
from nj_incentives.scenarios.runner import CHUNK_ROWS, _Sink

pytestmark = pytest.mark.benchmark

ROWS = 1_000_000
R = Int64()


def _median(work: Callable[[], object], runs: int = 15) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def test_version_column_pieces() -> None:
    days = np.random.default_rng(1).integers(10_000, 20_000, ROWS).astype(np.int64)
    spec = next(s for s in Layout().outputs() if s.name == "grant_version")

    def kernel() -> None:  # the kernel's part, chunk by chunk
        for start in range(0, ROWS, CHUNK_ROWS):
            code = beip.cap_version_rule(R, days[start : start + CHUNK_ROWS], None)
            np.broadcast_to(np.asarray(code, np.int64), (min(CHUNK_ROWS, ROWS - start),))

    def sink() -> None:  # the codes into the results column, one blank row in 1,000
        held = _Sink(ROWS, "float")
        held.add([spec], 0)
        valid = np.ones(CHUNK_ROWS, bool)
        valid[::1000] = False
        for start in range(0, ROWS, CHUNK_ROWS):
            rows = min(CHUNK_ROWS, ROWS - start)
            codes = np.broadcast_to(np.asarray(0, np.int64), (rows,))
            held.write(spec, start, start + rows, codes, valid[:rows], {})
        held.arrays([spec])

    plain, written = _median(kernel), _median(sink)
    later = P.Version(Decimal(60000), BEIP.BASE_BEIP, applies_from=dt.date(2099, 1, 1))
    with P.amended(BEIP.AVERAGE_CAP, later):  # every read of the cap the per-row lookup
        dated = _median(kernel)
    print(f"\ngrant_version over {ROWS:,} rows, medians of 15:")
    print(f"  kernel, every figure with one version: {plain * 1e3:.2f} ms")
    print(f"  kernel, the average cap dated: {dated * 1e3:.2f} ms")
    print(f"  sink: codes written, blanks set, the categorical built: {written * 1e3:.2f} ms")
