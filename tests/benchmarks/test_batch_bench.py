"""Benchmark of forty clients in one run (issue 32 item 6): figures printed, never a
failure.

Run with ``pytest tests/benchmarks/test_batch_bench.py -m benchmark -s``; the figures go in
docs/performance.md, "Forty clients in one run".

``NJ_BENCH_CLIENTS`` (default 40) grant clients, two ways, alternating, in this one
process, median of ``NJ_BENCH_ROUNDS`` (default 3):

- **batch**: ``fill TEMPLATE clients.csv --each client -o DIR`` then ``calc DIR/*.xlsx
  --memo-each MEMOS`` (the commands' ``main``, in process);
- **per workbook** (the anchor: the same work through the Python API, one client at a
  time): ``api.fill``, ``api.calc`` and ``api.memo`` for each client.

The issue's budget: the batch at most 1.2x per workbook. ``NJ_BENCH_MEMO`` (default
``md``) is the memos' format (``pdf`` costs the same on both sides).
"""

from __future__ import annotations

import csv
import os
import shutil
import statistics
import time
from pathlib import Path

import pytest

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc.run)
from nj_incentives import cli
from nj_incentives.workpapers import api

pytestmark = pytest.mark.benchmark

ROUNDS = int(os.environ.get("NJ_BENCH_ROUNDS", "3"))
CLIENTS = int(os.environ.get("NJ_BENCH_CLIENTS", "40"))
MEMO = os.environ.get("NJ_BENCH_MEMO", "md")
HEADER = ["client", "EngagementClient", "AgreementDate", "Term", "GrantPct"]


def _table(path: Path) -> list[dict[str, object]]:
    rows = []
    for n in range(1, CLIENTS + 1):
        withholdings = [500_000 + 1_000 * n + 10_000 * year for year in range(5)]
        rows.append(
            {
                "client": f"client-{n:02d}",
                "EngagementClient": f"Client {n:02d} LLC (fictitious)",
                "AgreementDate": "2012-01-01",
                "Term": 5,
                "GrantPct": "50%",
                "Withholdings": withholdings,
                "NewEmployees": [20 + n % 5] * 5,
            }
        )
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow([*HEADER, "Withholdings", "NewEmployees"])
        for row in rows:
            lists = [
                ", ".join(map(str, row["Withholdings"])),
                ", ".join(map(str, row["NewEmployees"])),
            ]  # type: ignore[call-overload]
            out.writerow([row[k] for k in HEADER] + lists)
    return rows


def _batch(table: Path, root: Path) -> float:
    started = time.perf_counter()
    argv = ["fill", "beip-grant-schedule", str(table), "--each", "client", "-o", str(root / "w")]
    assert cli.main(argv) == 0
    workbooks = sorted((root / "w").glob("*.xlsx"))
    argv = ["calc", *map(str, workbooks), "-o", str(root / "r"), "--no-progress"]
    assert cli.main([*argv, "--memo-each", str(root / "m"), "--memo-format", MEMO]) == 0
    elapsed = time.perf_counter() - started
    assert len(list((root / "m").iterdir())) == CLIENTS
    return elapsed


def _per_workbook(rows: list[dict[str, object]], root: Path) -> float:
    started = time.perf_counter()
    (root / "m").mkdir(parents=True)
    for row in rows:
        data = {k: v for k, v in row.items() if k != "client"}
        filled = api.fill("beip-grant-schedule", data, root / f"{row['client']}.xlsx")
        result = api.calc(filled.path)
        assert result.master_check is True
        api.memo([result], root / "m" / f"{row['client']}-memo.{MEMO}")
    return time.perf_counter() - started


def test_forty_clients_in_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _table(tmp_path / "clients.csv")
    batch, single = [], []
    for n in range(ROUNDS):  # alternate, so that a slower moment falls on both
        for which, runs in (("batch", batch), ("single", single)):
            root = tmp_path / f"{which}-{n}"
            runs.append(
                _batch(tmp_path / "clients.csv", root)
                if which == "batch"
                else _per_workbook(rows, root)
            )
            shutil.rmtree(root)
    with capsys.disabled():
        b, s = statistics.median(batch), statistics.median(single)
        print(
            f"\n{CLIENTS} grant clients, memos .{MEMO}, median of {ROUNDS}: batch (fill --each"
            f" + calc --memo-each) {b:.2f} s; per workbook through the API (fill, calc, memo"
            f" each) {s:.2f} s; ratio {b / s:.2f} (budget 1.2)"
        )
