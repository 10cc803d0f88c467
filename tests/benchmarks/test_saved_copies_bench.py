"""Benchmark: an openpyxl- or pandas-saved copy of an example on the prebuilt form against
the full recalculation (issue 23 item 2: such copies hold inline strings, which the form's
reader now reads). Figures printed, never a failure.

Run with ``pytest tests/benchmarks/test_saved_copies_bench.py -m benchmark -s``; each
example's copy recalculated by ``prebuilt.recalculate_template`` (vetting included) and by
``engine.recalculate_vetted`` (vetting included), alternated in one process after a first
run of each (imports), median of ``NJ_BENCH_REPEATS`` (default 5).
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.benchmark

REPEATS = int(os.environ.get("NJ_BENCH_REPEATS", "5"))


def test_saved_copies_on_the_prebuilt_form_against_full(tmp_path: Path) -> None:
    from nj_incentives.support import shipped
    from nj_incentives.workpapers.recalc import engine, prebuilt
    from nj_incentives.workpapers.recalc.safety import vet_workbook
    from test_any_saver import SAVERS

    print()
    print(f"saved copies, prebuilt form against the full recalculation, median of {REPEATS}:")
    for saver, save in SAVERS.items():
        for name in sorted(shipped.EXAMPLES):
            path = save(shipped.shipped_file(name), tmp_path / f"{saver}-{name}")

            def fast(path: Path = path) -> float:
                start = time.perf_counter()
                result = prebuilt.recalculate_template(vet_workbook(path))
                assert result.method == "prebuilt"
                return time.perf_counter() - start

            def full(path: Path = path) -> float:
                start = time.perf_counter()
                engine.recalculate_vetted(vet_workbook(path))
                return time.perf_counter() - start

            fast(), full()  # imports and caches, not measured
            fasts, fulls = [], []
            for _ in range(REPEATS):
                fasts.append(fast())
                fulls.append(full())
            f, g = statistics.median(fasts), statistics.median(fulls)
            print(
                f"  {saver:8} {name:38} prebuilt {f:.3f} s, full {g:.3f} s:"
                f" full / prebuilt {g / f:.1f}x"
            )
