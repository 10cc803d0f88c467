"""Benchmarks of file-to-file scenario runs (issue 14 item 2): figures printed, never a failure.

Run with ``pytest tests/benchmarks/test_files_bench.py -m benchmark -s``; the figures go
in docs/performance.md, "File formats". Every figure is a ratio to an anchor measured in the
same run, alternated with it (subject, anchor, subject, anchor, ...), median of the
repeats; each run in a fresh process so that its peak memory (``ru_maxrss``) is its own.
``NJ_BENCH_ROWS`` (default 1,000,000) and ``NJ_BENCH_REPEATS`` (default 3) scale it.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.benchmark

ROWS = int(os.environ.get("NJ_BENCH_ROWS", "1000000"))
REPEATS = int(os.environ.get("NJ_BENCH_REPEATS", "3"))


_PRELUDE = r"""
import json, resource, sys, time
from pathlib import Path
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""


def fresh(script: str, *args: object) -> dict[str, float]:
    """Run ``script`` in a fresh interpreter; the JSON it prints last."""
    done = subprocess.run(
        [sys.executable, "-c", _PRELUDE + script, *map(str, args)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def cli(*args: object) -> dict[str, float]:
    """Wall time and peak memory of ``nj-incentives scenarios ARGS`` in a fresh process."""
    return fresh(
        r"""
from nj_incentives.cli import main
start = time.perf_counter()
status = main(["scenarios", *sys.argv[1:], "--no-progress"])
print(json.dumps({"s": time.perf_counter() - start, "peak_mib": peak(), "status": status}))
""",
        *args,
    )


def alternate(
    subject: Callable[[], dict[str, float]], anchor: Callable[[], dict[str, float]]
) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    subjects, anchors = [], []
    for _ in range(REPEATS):
        subjects.append(subject())
        anchors.append(anchor())
    return subjects, anchors


def med(runs: list[dict[str, float]], key: str = "s") -> float:
    return statistics.median(r[key] for r in runs)


def report(name: str, subjects: list[dict[str, float]], anchors: list[dict[str, float]]) -> None:
    s, a = med(subjects), med(anchors)
    print(
        f"  {name}: {s:.2f} s against {a:.2f} s = {s / a:.2f}x"
        f"  (subject {[round(r['s'], 2) for r in subjects]},"
        f" anchor {[round(r['s'], 2) for r in anchors]})"
    )


def make_table(path: Path, rows: int) -> None:
    """The benchmark table (one row in a thousand bad), written in pieces of 1,000,000;
    Parquet in row groups of 131,072 rows (a streaming run holds one row group at a time,
    so that the small and the large table are read alike)."""
    fresh(
        r"""
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.csv as pacsv
from nj_incentives.scenarios.generate import example_portfolio
path, rows = Path(sys.argv[1]), int(sys.argv[2])
piece = min(rows, 1_000_000)
df = example_portfolio(piece, seed=2026)
df.loc[df.index[::1000], "pct"] = 0.95
table = pa.Table.from_pandas(df, preserve_index=False)
writer = None
for start in range(0, rows, piece):
    part = table.slice(0, min(piece, rows - start))
    ids = pa.array([f"s{start + i}" for i in range(part.num_rows)])
    part = part.set_column(part.schema.get_field_index("id"), "id", ids)
    if writer is None:
        writer = (pq.ParquetWriter(path, part.schema) if path.suffix == ".parquet"
                  else pacsv.CSVWriter(path, part.schema))
    writer.write_table(part, **({"row_group_size": 131_072} if path.suffix == ".parquet" else {}))
writer.close()
print(json.dumps({"ok": 1}))
""",
        path,
        rows,
    )


def test_csv_writer_against_pyarrow(tmp_path: Path) -> None:
    figures = fresh(
        r"""
import statistics
import pyarrow as pa, pyarrow.csv as pacsv
from nj_incentives.scenarios import run_scenarios
from nj_incentives.scenarios.analysis import summary
from nj_incentives.scenarios.generate import example_portfolio
from nj_incentives.scenarios.io import write_csv
rows, repeats, folder = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
df = example_portfolio(rows, seed=2026)
df.loc[df.index[::1000], "pct"] = 0.95
start = time.perf_counter(); results = run_scenarios(df); run = time.perf_counter() - start
ours, anchor, summ = [], [], []
for _ in range(repeats):
    start = time.perf_counter(); write_csv(folder / "ours.csv", results)
    ours.append(time.perf_counter() - start)
    start = time.perf_counter()
    pacsv.write_csv(pa.Table.from_pandas(results, preserve_index=False), folder / "anchor.csv")
    anchor.append(time.perf_counter() - start)
    start = time.perf_counter(); summary(results); summ.append(time.perf_counter() - start)
print(json.dumps({"ours": ours, "anchor": anchor, "summary": summ, "run": run,
                  "cols": results.shape[1]}))
""",
        ROWS,
        REPEATS,
        tmp_path,
    )
    ours, anchor = statistics.median(figures["ours"]), statistics.median(figures["anchor"])  # type: ignore[arg-type]
    summ = statistics.median(figures["summary"])  # type: ignore[arg-type]
    print()
    print(f"CSV writer, {ROWS:,} x {figures['cols']:.0f} results, same frame, median of {REPEATS}:")
    print(f"  write_csv (quoted, neutralised, money to the cent): {ours:.2f} s {figures['ours']}")
    print(f"  anchor pyarrow.csv.write_csv(Table.from_pandas): {anchor:.2f} s {figures['anchor']}")
    print(f"  ratio {ours / anchor:.2f}x (target <= 1.5x)")
    print(
        f"  summary of the run: {summ:.2f} s against the run itself {figures['run']:.2f} s"
        f" = {summ / figures['run']:.1%} (target <= 10%)"
    )


def test_csv_to_csv_against_a_plain_pipeline(tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    make_table(source, ROWS)
    # The clock starts before the imports, as the command's does: ``main`` imports pandas,
    # pyarrow and the scenario modules only when the command runs (about 4 s at load 13).
    plain = r"""
start = time.perf_counter()
import pyarrow as pa, pyarrow.csv as pacsv
from nj_incentives.scenarios import run_scenarios
df = pacsv.read_csv(sys.argv[1]).to_pandas()
results = run_scenarios(df)
pacsv.write_csv(pa.Table.from_pandas(results, preserve_index=False), sys.argv[2])
print(json.dumps({"s": time.perf_counter() - start, "peak_mib": peak()}))
"""
    subjects, anchors = alternate(
        lambda: cli(source, "-o", tmp_path / "out.csv"),
        lambda: fresh(plain, source, tmp_path / "plain.csv"),
    )
    print()
    print(f"CSV to CSV, {ROWS:,} scenarios, fresh processes, median of {REPEATS}:")
    report("nj-incentives scenarios in.csv -o out.csv / plain pyarrow pipeline", subjects, anchors)
    print(
        f"  peak memory: {med(subjects, 'peak_mib'):,.0f} MiB against"
        f" {med(anchors, 'peak_mib'):,.0f} MiB (target time <= 1.5x)"
    )


def test_parquet_memory_does_not_grow_with_rows(tmp_path: Path) -> None:
    small, large = tmp_path / "small.parquet", tmp_path / "large.parquet"
    make_table(small, ROWS)
    make_table(large, ROWS * 10)
    subjects, anchors = alternate(
        lambda: cli(large, "-o", tmp_path / "large.out.parquet"),
        lambda: cli(small, "-o", tmp_path / "small.out.parquet"),
    )
    big, base = med(subjects, "peak_mib"), med(anchors, "peak_mib")
    print()
    print(f"Parquet to Parquet, streaming, median of {REPEATS}:")
    print(
        f"  {ROWS * 10:,} rows: {med(subjects):.1f} s, peak {big:,.0f} MiB;"
        f" {ROWS:,} rows: {med(anchors):.1f} s, peak {base:,.0f} MiB;"
        f" peak ratio {big / base:.2f}x (target <= 1.2x)"
    )


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_streaming_memory_is_flat_from_1m_to_4m_rows(tmp_path: Path, fmt: str) -> None:
    """Issue 35: the peak of a streaming run (CSV or Parquet in, Parquet out) at ``ROWS``
    (1,000,000), twice and four times as many rows, each a fresh process (its
    ``ru_maxrss``), the sizes alternated; the largest median peak over the smallest:
    within 10%."""
    sizes = (ROWS, ROWS * 2, ROWS * 4)
    for rows in sizes:
        make_table(tmp_path / f"in{rows}.{fmt}", rows)
    runs: dict[int, list[dict[str, float]]] = {rows: [] for rows in sizes}
    for _ in range(REPEATS):
        for rows in sizes:
            out = tmp_path / f"out{rows}.parquet"
            runs[rows].append(cli(tmp_path / f"in{rows}.{fmt}", "-o", out))
    peaks = {rows: med(runs[rows], "peak_mib") for rows in sizes}
    print()
    print(f"{fmt.upper()} to Parquet, streaming, median of {REPEATS}:")
    for rows in sizes:
        print(
            f"  {rows:,} rows: {med(runs[rows]):.1f} s, peak {peaks[rows]:,.0f} MiB"
            f" {[round(r['peak_mib']) for r in runs[rows]]}"
        )
    ratio = max(peaks.values()) / min(peaks.values())
    print(f"  largest / smallest peak {ratio:.2f}x (target <= 1.10x)")


def test_xlsx_writer_against_to_excel(tmp_path: Path) -> None:
    rows = max(1, ROWS // 10)
    source = tmp_path / "in.parquet"
    make_table(source, rows)
    to_excel = r"""
import pandas as pd
from nj_incentives.scenarios import run_scenarios
results = run_scenarios(pd.read_parquet(sys.argv[1]))
start = time.perf_counter()
results.to_excel(sys.argv[2], engine="xlsxwriter", index=False)
print(json.dumps({"s": time.perf_counter() - start, "peak_mib": peak()}))
"""
    ours = r"""
import pandas as pd
from nj_incentives.scenarios import run_scenarios
from nj_incentives.scenarios.io import XlsxWriter
results = run_scenarios(pd.read_parquet(sys.argv[1]))
start = time.perf_counter()
writer = XlsxWriter(Path(sys.argv[2])); writer.write(results)
writer.workbook.close()
print(json.dumps({"s": time.perf_counter() - start, "peak_mib": peak()}))
"""
    # Raw xlsxwriter (issue 35: "keep XLSX writing at most 1.5x raw xlsxwriter"): the
    # same frame's header and rows by write_row, constant memory, no formats, a missing
    # value as a blank (converted before the clock starts): the least any writer of these
    # cells can do.
    raw = r"""
import pandas as pd
import xlsxwriter
from nj_incentives.scenarios import run_scenarios
results = run_scenarios(pd.read_parquet(sys.argv[1]))
cells = results.astype(object).where(results.notna(), None)  # pd.NA is no xlsxwriter type
start = time.perf_counter()
book = xlsxwriter.Workbook(sys.argv[2], {"constant_memory": True, "nan_inf_to_errors": True})
sheet = book.add_worksheet("Results")
sheet.write_row(0, 0, [str(c) for c in results.columns])
for r, values in enumerate(cells.itertuples(index=False, name=None), 1):
    sheet.write_row(r, 0, values)
book.close()
print(json.dumps({"s": time.perf_counter() - start, "peak_mib": peak()}))
"""
    subjects: list[dict[str, float]] = []
    anchors: list[dict[str, float]] = []
    raws: list[dict[str, float]] = []
    for _ in range(REPEATS):  # alternated: ours, to_excel, raw
        subjects.append(fresh(ours, source, tmp_path / "ours.xlsx"))
        anchors.append(fresh(to_excel, source, tmp_path / "anchor.xlsx"))
        raws.append(fresh(raw, source, tmp_path / "raw.xlsx"))
    print()
    print(f"XLSX of {rows:,} results (same frame), fresh processes, median of {REPEATS}:")
    report("XlsxWriter (constant memory) / DataFrame.to_excel(xlsxwriter)", subjects, anchors)
    report("XlsxWriter (constant memory) / raw xlsxwriter write_row", subjects, raws)
    print(
        f"  peak memory of the process: {med(subjects, 'peak_mib'):,.0f} MiB against"
        f" {med(anchors, 'peak_mib'):,.0f} MiB"
    )
    whole = cli(source, "-o", tmp_path / "cli.xlsx")
    print(
        f"  nj-incentives scenarios in.parquet -o out.xlsx (streaming): {whole['s']:.1f} s,"
        f" peak {whole['peak_mib']:,.0f} MiB"
    )


def _fresh_in(tree: str | None, script: str, *args: object) -> dict[str, float]:
    """``fresh`` with the package from ``tree`` (an ``addin`` folder) instead of this
    checkout's, or this checkout's (None)."""
    env = {**os.environ, "PYTHONPATH": tree} if tree else None
    done = subprocess.run(
        [sys.executable, "-c", _PRELUDE + script, *map(str, args)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


_READ_AND_RUN = r"""
from nj_incentives.scenarios import run_scenarios
from nj_incentives.scenarios.io import read_table
start = time.perf_counter()
results = run_scenarios(read_table(Path(sys.argv[1])))
print(json.dumps({"s": time.perf_counter() - start, "peak_mib": peak(),
                  "errors": int(results["error"].notna().sum())}))
"""

_CLI = r"""
from nj_incentives.cli import main
start = time.perf_counter()
status = main(["scenarios", *sys.argv[1:], "--no-progress"])
print(json.dumps({"s": time.perf_counter() - start, "peak_mib": peak(), "status": status}))
"""


def test_csv_input_read_by_the_input_rules_before_and_after(tmp_path: Path) -> None:
    """Issue 22 item 2: every input column of a CSV is read as text and parsed by the
    input rules (:mod:`nj_incentives.scenarios.convert`) instead of by the CSV reader.
    The same file run by the tree before (``NJ_BENCH_BEFORE=/path/to/old/addin``, e.g.
    ``git archive fc30210 addin | tar -x -C /tmp/before``) and by this one, fresh
    processes alternated, median of ``NJ_BENCH_REPEATS``."""
    before = os.environ.get("NJ_BENCH_BEFORE")
    if not before:
        pytest.skip("NJ_BENCH_BEFORE (the addin folder of the tree before) is not set")
    source = tmp_path / "in.csv"
    make_table(source, ROWS)
    print()
    print(f"CSV input, {ROWS:,} scenarios, the tree before / this one, median of {REPEATS}:")
    for name, script, args in (
        ("read_table + run_scenarios (in memory)", _READ_AND_RUN, (source,)),
        ("nj-incentives scenarios in.csv -o out.csv (streaming)", _CLI,
         (source, "-o", tmp_path / "out.csv")),
    ):  # fmt: skip
        after_runs, before_runs = [], []
        for _ in range(REPEATS):
            before_runs.append(_fresh_in(before, script, *args))
            after_runs.append(_fresh_in(None, script, *args))
        a, b = med(after_runs), med(before_runs)
        print(
            f"  {name}: after {a:.2f} s, before {b:.2f} s = {a / b:.2f}x"
            f"  (after {[round(r['s'], 2) for r in after_runs]},"
            f" before {[round(r['s'], 2) for r in before_runs]});"
            f" peak {med(after_runs, 'peak_mib'):,.0f} MiB against"
            f" {med(before_runs, 'peak_mib'):,.0f} MiB"
        )
