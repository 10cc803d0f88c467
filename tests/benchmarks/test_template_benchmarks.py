"""Benchmarks of the filled template examples (issue 5): figures printed, never a failure.

Run with ``pytest tests/benchmarks/test_template_benchmarks.py -m benchmark -s``; the
figures size the examples for docs/performance.md, "Headless recalculation".

- warm: ``recalculate(example)`` in one process once the engine is imported (what
  ``nj-incentives calc`` pays per workbook after the first), median of 5;
- cold: a fresh ``python -m nj_incentives.cli calc EXAMPLE`` process, wall clock (what a
  user waits for one workbook), median of 3, as shipped and with the two import
  deferrals undone (scipy.stats and xlwings' matplotlib/pandas imported up front);
- the NJ_* formula cells and calls of each template.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nj_incentives.workpapers.recalc import recalculate
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY, EXAMPLES

pytestmark = pytest.mark.benchmark

WARM_ROUNDS = 5
COLD_ROUNDS = 3
PATHS = [DEFAULT_DIRECTORY / "examples" / name for name in EXAMPLES]


def test_examples_warm_and_their_calls() -> None:
    recalculate(PATHS[0])  # imports and first-use costs
    print(f"\nwarm recalculation, median of {WARM_ROUNDS} (load+compile, calculate):")
    for path in PATHS:
        times, result = [], None
        for _ in range(WARM_ROUNDS):
            start = time.perf_counter()
            result = recalculate(path)
            times.append(time.perf_counter() - start)
        assert result is not None
        assert result.value("MasterCheck") is True
        cells = result.nj_formula_cells()
        listed = ", ".join(f"{name.removeprefix('NJ_')} {n}" for name, n in cells.items())
        print(
            f"  {path.stem}: {len(result.formulas)} formulas; NJ_* formula cells "
            f"{sum(cells.values())} ({listed}); NJ_* calls {sum(result.calls.values())}; "
            f"{statistics.median(times):.2f} s ({result.load_seconds:.2f} + "
            f"{result.calc_seconds:.2f})"
        )


PRELOAD = "import scipy.stats, xlwings; "
SCRIPT = "from nj_incentives.cli import main; import sys; sys.exit(main(sys.argv[1:]))"


def _cold(args: list[str], preload: str, folder: Path) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XLWINGS_")}
    times = []
    for _ in range(COLD_ROUNDS):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", preload + SCRIPT, *args],
            check=True,
            capture_output=True,
            cwd=folder,
            env=env,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def test_examples_cold(tmp_path: Path) -> None:
    print(f"\nfresh process, wall clock, median of {COLD_ROUNDS}: as shipped / deferrals undone")
    for path in PATHS:
        args = ["calc", str(path), "-o", str(tmp_path)]
        shipped = _cold(args, "", tmp_path)
        undone = _cold(args, PRELOAD, tmp_path)
        print(f"  nj-incentives calc {path.name}: {shipped:.2f} / {undone:.2f} s")
    shipped = _cold(["calc", "--memo", "out/memo.html"], "", tmp_path)
    undone = _cold(["calc", "--memo", "out/memo.html"], PRELOAD, tmp_path)
    print(f"  nj-incentives calc --memo out/memo.html (3 examples): {shipped:.2f} / {undone:.2f} s")
    startup = _cold(["calc", "--help"], "", tmp_path)
    print(f"  nj-incentives calc --help (interpreter and command line only): {startup:.2f} s")
