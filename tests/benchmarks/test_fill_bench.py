"""Benchmark of ``nj-incentives fill`` (issue 20, item 1c): figures printed, never a failure.

Run with ``pytest tests/benchmarks/test_fill_bench.py -m benchmark -s``; the figures go in
docs/performance.md, "Fill".

A 1,000-employee ERTC roster (4 roster sheets per period) two ways, alternating, each a
fresh process as a user runs them, median of ``NJ_BENCH_ROUNDS`` (default 3):

- **fill + calc**: ``nj-incentives fill ertc-form-313 DATA.json -o OUT.xlsx`` then
  ``nj-incentives calc OUT.xlsx``;
- **by hand + calc** (the anchor): ``nj-incentives calc`` of the same workbook filled by
  openpyxl directly (the blank four-sheet layout, every name, flag and hour written cell
  by cell and saved; openpyxl drops the dynamic-array marking, which ``calc`` restores).

The issue's budget: fill + calc at most 2x by hand + calc.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.workpapers.templates.builder import build_template

pytestmark = pytest.mark.benchmark

ROUNDS = int(os.environ.get("NJ_BENCH_ROUNDS", "3"))
EMPLOYEES = 1000
SCRIPT = "from nj_incentives.cli import main; import sys; sys.exit(main(sys.argv[1:]))"


def _roster() -> list[dict[str, Any]]:
    patterns = [
        ([160] * 12, [160] * 12, [160] * 12),
        ([0] * 12, [160] * 12, [160] * 12),
        ([100] * 12, [100] * 12, [0] * 6 + [100] * 6),
        ([0] * 12, [0] * 3 + [150] * 9, [150] * 4 + [0] * 8),
        ([90] * 12, [90] * 12, [90] * 12),
    ]
    return [
        {
            "name": f"Employee {n:04d}",
            "temporary": n % 97 == 0,
            "excluded": n % 101 == 0,
            "base": patterns[n % 5][0],
            "year1": patterns[n % 5][1],
            "year2": patterns[n % 5][2],
        }
        for n in range(1, EMPLOYEES + 1)
    ]


def _data(employees: list[dict[str, Any]]) -> dict[str, Any]:
    example = ertc_credit.EXAMPLE
    data: dict[str, Any] = {
        k: (v.isoformat() if hasattr(v, "isoformat") else v)
        for k, v in example.items()
        if k not in ("periods", "employees", "engagement")
    }
    columns = zip(*example["periods"], strict=True)
    for key, column in zip(
        ("PeriodEnds", "GrossReceipts", "Liabilities", "OtherCredits"), columns, strict=True
    ):
        data[key] = [v.isoformat() if hasattr(v, "isoformat") else v for v in column]
    return data | {"Employees": employees}


def _by_hand(employees: list[dict[str, Any]], blank: Path, target: Path) -> Path:
    """The four-sheet layout with no roster (built blank), filled by openpyxl."""
    book = openpyxl.load_workbook(blank)
    names = ertc_credit.roster_sheet_names(ertc_credit.roster_sheets_needed(len(employees)))
    per = ertc_credit.MAX_EMPLOYEES
    for key in ("base", "year1", "year2"):
        for part, sheet_name in enumerate(names[key]):
            sheet = book[sheet_name]
            rows = {
                str(sheet.cell(r, 1).value): r
                for r in range(1, sheet.max_row + 1)
                if str(sheet.cell(r, 1).value or "").startswith("Employee ")
            }
            first_hours = sheet.max_column - 11
            for n, employee in enumerate(employees[part * per : (part + 1) * per]):
                row = rows[f"Employee {part * per + n + 1}"]
                if key == "base":
                    sheet.cell(row, 3).value = employee["name"]  # C: the name, D and E: flags
                    sheet.cell(row, 4).value = "Yes" if employee["temporary"] else "No"
                    sheet.cell(row, 5).value = "Yes" if employee["excluded"] else "No"
                for m, hours in enumerate(employee[key]):
                    sheet.cell(row, first_hours + m).value = hours
    book.save(target)
    return target


def _run(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], cwd=cwd, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stderr[-2000:]
    return elapsed


def test_fill_and_calc_of_a_1000_employee_roster(tmp_path: Path) -> None:
    employees = _roster()
    data = tmp_path / "data.json"
    data.write_text(json.dumps(_data(employees)))
    nobody = {"name": None, "temporary": None, "excluded": None}
    nobody |= {key: [None] * 12 for key in ("base", "year1", "year2")}
    blank = build_template(
        ertc_credit,
        tmp_path / "blank.xlsx",
        dict(ertc_credit.EXAMPLE) | {"employees": [nobody] * EMPLOYEES},
    )
    hand = _by_hand(employees, blank, tmp_path / "hand.xlsx")
    filled_times, hand_times, fill_only = [], [], []
    for n in range(ROUNDS):
        out = tmp_path / f"filled-{n}.xlsx"
        fill_seconds = _run(["fill", "ertc-form-313", str(data), "-o", str(out)], tmp_path)
        calc_seconds = _run(
            ["calc", str(out), "-o", str(tmp_path / f"o{n}"), "--no-progress"], tmp_path
        )
        filled_times.append(fill_seconds + calc_seconds)
        fill_only.append(fill_seconds)
        hand_times.append(
            _run(["calc", str(hand), "-o", str(tmp_path / f"h{n}"), "--no-progress"], tmp_path)
        )
    filled, by_hand = statistics.median(filled_times), statistics.median(hand_times)
    print(
        f"\n{EMPLOYEES:,}-employee roster, median of {ROUNDS} (fresh processes, alternating):"
        f"\n  fill + calc: {filled:.2f} s (fill {statistics.median(fill_only):.2f} s)"
        f"\n  by hand (openpyxl) + calc: {by_hand:.2f} s"
        f"\n  ratio: {filled / by_hand:.2f}x (budget 2x)"
        f"\n  load: {os.getloadavg()[0]:.1f}"
    )
