"""Benchmark of the scenario runner (issue 6): figures printed, never a failure.

Run with ``pytest tests/benchmarks/test_scenarios_bench.py -m benchmark -s``; the figures
go in docs/performance.md, "Scenario runner".

What is measured, in a fresh Python process (so that its peak memory is this run's):

- the table: :func:`nj_incentives.scenarios.generate.example_portfolio` (every section in
  every row: a BEIP grant with a 1-10 year term filled forward from year 1, a conversion
  of an accrual 2008-2025 applied against nine tax years' liabilities, an ERTC over four
  privilege periods), with one row in a thousand made bad (pct 0.95) so that the scalar
  path that explains bad rows is part of the run;
- **end to end** = ``run_scenarios(df)``: from the pandas DataFrame in memory to the
  results DataFrame (checking the columns, planning the layout, reading every column
  into exact integers, the kernel, the core's messages for the bad rows, and building
  the results frame: float dollars, nullable ints, the error column). Not included:
  building the input table and reading or writing files;
- **peak memory** = the process's peak resident set size (``ru_maxrss``), which includes
  the interpreter and libraries, the input table and the results;
- **the loop** = the same rows one at a time through the calculation core
  (:func:`nj_incentives.scenarios.scalar.run_row`: each row's cells as a dict, blank as
  None, then the core's ``grant_schedule``, ``conversion_schedule``, ``apply_credit`` per
  tax year and ``credit_schedule``), timed on a sample of rows and scaled to the table;
- **the floor** = :func:`scenarios_floor.floor_run` (tests/benchmarks/scenarios_floor.py),
  the simplest numpy version of the same four sections for this table, the same frame
  out, timed in the same process after the run (issue 14, item 1: the run at most 1.5x
  it); and the **memory floor**: the interpreter and libraries after import + the input
  frame + the results frame (the peak at most 1.1x it);
- **the summary** = ``analysis.summary`` of the results (its numeric columns), timed
  in the same process (issue 14: at most 10% of the run).

``test_before_and_after`` (``NJ_BENCH_BEFORE=/path/to/old/addin``, e.g. ``git archive
da322bd addin | tar -x -C /tmp/before``) measures both trees in the same session,
alternating fresh processes ``NJ_BENCH_RUNS`` times (default 3), and prints every run and
the medians; ``NJ_BENCH_ROWS`` sets the rows (default 1,000,000); ``NJ_BENCH_TREES``
(``label=/path/addin,...``) adds more trees to the alternation.
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

HERE = Path(__file__).resolve().parent
ROWS = int(os.environ.get("NJ_BENCH_ROWS", "1000000"))
RUNS = int(os.environ.get("NJ_BENCH_RUNS", "3"))
LOOP_SAMPLE = 2_000

_SCRIPT = r"""
import json, resource, sys, time
import numpy as np

rows, sample = int(sys.argv[1]), int(sys.argv[2])
rss_kib = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
import pandas as pd
from nj_incentives.scenarios import run_scenarios, plan_layout
from nj_incentives.scenarios import scalar
from nj_incentives.scenarios.convert import raw_values, is_blank
from nj_incentives.scenarios.generate import example_portfolio
imported = time.perf_counter() - started
after_import = rss_kib()

df = example_portfolio(rows, seed=2026)
df.loc[df.index[::1000], "pct"] = 0.95  # one row in a thousand is bad
input_mib = df.memory_usage(deep=True).sum() / 2**20
before_run = rss_kib()

start = time.perf_counter()
results = run_scenarios(df)
wall = time.perf_counter() - start
peak = rss_kib()
output_mib = results.memory_usage(deep=True).sum() / 2**20
errors = int(results["error"].notna().sum())
output_columns = results.shape[1]

from nj_incentives.scenarios import analysis
start = time.perf_counter()
analysis.summary(results, analysis.numeric_outputs(results))
summary = time.perf_counter() - start
del results
import gc; gc.collect()

sys.path.insert(0, sys.argv[3])
from scenarios_floor import floor_run
start = time.perf_counter()
floor = floor_run(df)
floor_s = time.perf_counter() - start
del floor

# the per-row loop over the scalar core, on a sample of the same table
layout = plan_layout(df)
picked = np.random.default_rng(1).choice(rows, sample, replace=False)
part = df.iloc[np.sort(picked)]
columns = {c: raw_values(part[c], np.arange(len(part))) for c in part.columns if c != "id"}
sections = {"grant": True, "conversion": True, "credit": True, "ertc": True}
start = time.perf_counter()
loop_errors = 0
for i in range(len(part)):
    cells = {c: v[i] for c, v in columns.items()}
    out, messages = scalar.run_row(cells, layout, sections)
    loop_errors += bool(messages)
loop = time.perf_counter() - start

print(json.dumps({
    "rows": rows, "wall_s": wall, "rows_per_s": rows / wall, "peak_mib": peak / 1024,
    "rss_after_import_mib": after_import / 1024, "rss_before_run_mib": before_run / 1024,
    "input_mib": input_mib, "output_mib": output_mib, "output_columns": output_columns,
    "errors": errors, "import_s": imported,
    "loop_rows": sample, "loop_s": loop, "loop_us_per_row": loop / sample * 1e6,
    "loop_scaled_s": loop / sample * rows, "ratio": loop / sample * rows / wall,
    "loop_errors": loop_errors, "summary_s": summary, "summary_share": summary / wall,
    "floor_s": floor_s, "floor_ratio": wall / floor_s,
    "memory_floor_mib": after_import / 1024 + input_mib + output_mib,
    "memory_ratio": peak / 1024 / (after_import / 1024 + input_mib + output_mib),
}))
"""


def measure(
    rows: int = ROWS, sample: int = LOOP_SAMPLE, tree: str | None = None
) -> dict[str, float]:
    """The figures of one run in a fresh process (``tree``: an ``addin`` folder to run
    instead of this checkout's)."""
    env = {**os.environ, "PYTHONPATH": tree} if tree else None
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(rows), str(sample), str(HERE)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"


def test_one_million_scenarios_end_to_end() -> None:
    f = measure()
    print()
    print(f"scenario runner, {f['rows']:,.0f} scenarios, pandas engine, 2 cores:")
    print(f"  end to end (DataFrame in -> results DataFrame out): {f['wall_s']:.2f} s")
    print(f"    = {f['rows_per_s']:,.0f} scenarios/s; {f['errors']:,.0f} rows with errors")
    print(f"  peak RSS of the process: {f['peak_mib']:,.0f} MiB")
    print(
        f"    (after imports {f['rss_after_import_mib']:,.0f} MiB; with the input table"
        f" {f['rss_before_run_mib']:,.0f} MiB; input frame {f['input_mib']:,.0f} MiB;"
        f" results frame {f['output_mib']:,.0f} MiB, {f['output_columns']:.0f} columns)"
    )
    print(
        f"  per-row loop over the scalar core: {f['loop_us_per_row']:,.0f} us/row on"
        f" {f['loop_rows']:,.0f} rows, scaled to {f['rows']:,.0f}: {f['loop_scaled_s']:,.0f} s"
    )
    print(f"  ratio loop / vectorized: {f['ratio']:,.0f}x")
    print(
        f"  floor (numpy, same sections): {f['floor_s']:.2f} s; run / floor {f['floor_ratio']:.2f}x"
    )
    print(
        f"  memory floor (imports + input + results) {f['memory_floor_mib']:,.0f} MiB;"
        f" peak / floor {f['memory_ratio']:.2f}x"
    )
    print(f"  summary {f['summary_s']:.2f} s = {f['summary_share']:.1%} of the run")
    print("  targets (issue 14): >= 300x the loop, <= 1.5x the floor, <= 1.1x memory, <= 10%")


_FIGURES = (
    ("wall_s", "wall time, s", "{:.2f}"),
    ("ratio", "loop / run", "{:.0f}x"),
    ("floor_s", "numpy floor, s", "{:.2f}"),
    ("floor_ratio", "run / floor", "{:.2f}x"),
    ("peak_mib", "peak RSS, MiB", "{:,.0f}"),
    ("memory_floor_mib", "memory floor, MiB", "{:,.0f}"),
    ("memory_ratio", "peak / memory floor", "{:.2f}x"),
    ("summary_s", "summary, s", "{:.2f}"),
    ("summary_share", "summary / run", "{:.1%}"),
    ("loop_us_per_row", "loop, us a row", "{:,.0f}"),
)


def test_before_and_after() -> None:
    """Both trees in one session, alternating fresh processes; every run and the medians."""
    before = os.environ.get("NJ_BENCH_BEFORE")
    trees: dict[str, str | None] = {"before": before} if before else {}
    trees["after"] = None
    # more trees, alternated with these: NJ_BENCH_TREES="label=/path/addin,label2=/path2"
    for item in filter(None, os.environ.get("NJ_BENCH_TREES", "").split(",")):
        label, _, tree = item.partition("=")
        trees[label] = tree
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in trees}
    for i in range(RUNS):
        for label, tree in trees.items():
            load = _load()
            figures = measure(tree=tree)
            figures["load"] = float(load) if load != "?" else -1.0
            runs[label].append(figures)
            print(f"\nrun {i + 1} {label} (load {load}): " + json.dumps(figures))
    print(f"\n{ROWS:,} scenarios, medians of {RUNS} alternated runs:")
    print(f"{'':22}" + "".join(f"{label:>14}" for label in trees))
    for key, name, form in _FIGURES:
        medians = [statistics.median(f[key] for f in runs[label]) for label in trees]
        print(f"{name:22}" + "".join(f"{form.format(m):>14}" for m in medians))
    loads = [f["load"] for label in trees for f in runs[label]]
    print(f"load average at the runs' starts: {min(loads):.2f}-{max(loads):.2f}")
