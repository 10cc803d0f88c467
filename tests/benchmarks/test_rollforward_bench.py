"""Benchmark of ``nj-incentives rollforward`` (issue 20, item 4): figures printed, never a
failure.

Run with ``pytest tests/benchmarks/test_rollforward_bench.py -m benchmark -s``; the
figures go in docs/performance.md, "Roll forward".

For each template, its filled example with the engagement's period set to a year inside
it (so that it rolls: ERTC the period ending 2026-12-31, the conversion tax year 2023, the
grant year 3 of 5), two commands alternating, each a fresh process as a user runs them,
median of ``NJ_BENCH_ROUNDS`` (default 3):

- **rollforward**: ``nj-incentives rollforward LAST.xlsx -o NEXT.xlsx --force`` (one
  recalculation of LAST, as ``calc`` does, then the template built with its inputs);
- **calc** (the anchor): ``nj-incentives calc LAST.xlsx -o OUT`` of the same workbook.

A fourth case rolls the ERTC example filled to the template's 8 periods: the roll drops
the oldest period and carries its outcome in (the path a workbook takes from its ninth
year on).

The issue's budget: a roll forward at most 1.5x one ``calc``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nj_incentives.programs.beip.templates import conversion as beip_conversion
from nj_incentives.programs.beip.templates import grant as beip_grant
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.workpapers.templates.builder import build_template

pytestmark = pytest.mark.benchmark

ROUNDS = int(os.environ.get("NJ_BENCH_ROUNDS", "3"))
SCRIPT = "from nj_incentives.cli import main; import sys; sys.exit(main(sys.argv[1:]))"
PERIODS = {
    ertc_credit: "Privilege period ending 2026-12-31",
    beip_conversion: "Tax year 2023",
    beip_grant: "Grant year 3 of 5",
}


def _run(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], cwd=cwd, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return elapsed


def _full_ertc() -> dict[str, object]:
    """The ERTC example with the template's 8 periods (2023-2030), engaged on the last:
    its roll drops the period ending 2023-12-31 and carries its outcome in."""
    example = dict(ertc_credit.EXAMPLE)
    periods = list(example["periods"])  # type: ignore[call-overload]
    last = periods[-1][0]
    periods += [(last.replace(year=last.year + k), 2_000_000, 8_000, 0) for k in (1, 2, 3)]
    example["periods"] = periods
    example["engagement"] = dict(example["engagement"]) | {  # type: ignore[call-overload]
        "period": "Privilege period ending 2030-12-31"
    }
    return example


def test_a_roll_forward_against_one_calc(tmp_path: Path) -> None:
    lines = []
    cases = [(m, dict(m.EXAMPLE), p, m.TEMPLATE_ID) for m, p in PERIODS.items()]
    full = "ertc-form-313, 8 periods (drops 2023, carries it in)"
    cases.append((ertc_credit, _full_ertc(), None, full))
    data = tmp_path / "next-period.json"
    data.write_text('{"GrossReceipts": 2000000, "Liabilities": 8000, "OtherCredits": 0}')
    for module, example, period, name in cases:
        if period is not None:
            example["engagement"] = dict(example["engagement"]) | {"period": period}
        last = build_template(module, tmp_path / f"{module.TEMPLATE_ID}.xlsx", example)
        roll = ["rollforward", str(last), "-o", str(tmp_path / "next.xlsx"), "--force"]
        if period is None:
            roll.insert(2, str(data))
        calc = ["calc", str(last), "-o", str(tmp_path / "out"), "--no-progress"]
        _run(roll, tmp_path)  # warm the file cache and the prebuilt forms
        _run(calc, tmp_path)
        rolls, calcs = [], []
        for _ in range(ROUNDS):
            rolls.append(_run(roll, tmp_path))
            calcs.append(_run(calc, tmp_path))
        r, c = statistics.median(rolls), statistics.median(calcs)
        lines.append(f"| {name} | {r:.2f} s | {c:.2f} s | {r / c:.2f}x |")
    print()
    print(f"| Workbook | rollforward | calc (anchor) | ratio | (median of {ROUNDS})")
    print("|---|---|---|---|")
    print("\n".join(lines))
