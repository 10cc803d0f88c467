"""Benchmark of the explaining evaluator and the rules moved last onto the rule language
(issue 12, items 1 and 2): figures printed, never a failure.

Run with ``pytest tests/benchmarks/test_explain_bench.py -m benchmark -s``; with
``NJ_BENCH_BEFORE=/path/to/old/addin`` (``git archive da322bd addin | tar -x -C /tmp/before``)
both trees are measured in ONE process: the old tree's package is copied under the name
``nj_before`` (its imports renamed), and each call is timed alternately, before, after,
before, ... (``NJ_BENCH_ROUNDS`` rounds of 20 calls each, default 15; the best of each).
One process with alternation keeps the ratio fair on a shared, loaded machine, where
separate processes see different loads. The direct core time of each function this work
changed, without and with its explanation (``.steps`` read, as ``NJ_EXPLAIN``,
``nj-incentives explain`` and the memo do). The figures go in docs/performance.md.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import time
from collections.abc import Callable
from decimal import Decimal as D
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytestmark = pytest.mark.benchmark

ROUNDS = int(os.environ.get("NJ_BENCH_ROUNDS", "30"))
#: each timed loop about this long: short enough to run between two of the scheduler's
#: interruptions on a loaded machine (the best loop is then an uninterrupted one)
LOOP_S = 0.002


def _cases(
    beip: ModuleType, ertc: ModuleType, remote_work: ModuleType | None = None
) -> dict[str, tuple[Callable[..., Any], tuple]]:
    # an old tree has subsection h. in its BEIP module
    remote_work = remote_work or beip
    periods = ertc.privilege_periods(
        ["2024-12-31", "2025-12-31", "2026-12-31", "2027-12-31"],
        [10000, 50000, 3000, 80000],
        [0, 1000, 0, 0],
        [2000, 2000, 500, 2000],
    )
    w3, e3 = [D(1000000), D(1200000), D(1500000)], [10, 4, 12]
    rows = (
        [160] * 12,
        [160] * 6 + [100] * 6,
        [90] * 12,
        [40] * 12,
        [140, 0, 0, *[87] * 3, *[0] * 6],
    )
    roster = [ertc.EmployeeHours(hours=tuple(D(h) for h in row)) for row in rows]
    grant = (w3, e3, D("0.5"), "2010-01-01")
    transfer = (D(250000), D(150000), D(100000), "0.05", None, "2024-01-01", "2026-12-31")
    return {
        "beip.annual_grant": (beip.annual_grant, (D("1250000"), D("0.2"))),
        "beip.grant_schedule, per_year (3 years, capped)": (beip.grant_schedule, grant),
        "beip.grant_schedule, whole_term": (
            beip.grant_schedule,
            (*grant, False, None, 0, "whole_term"),
        ),
        "beip.grant_schedule, proportional": (
            beip.grant_schedule,
            (*grant, False, None, 0, "proportional"),
        ),
        "beip.conversion_schedule (e.(1), late)": (
            beip.conversion_schedule,
            (2012, D("100000"), "2017-03-15"),
        ),
        "beip.apply_credit": (beip.apply_credit, (D("250000"), D("180000"))),
        "beip.transfer_check (discounted over the dates)": (beip.transfer_check, transfer),
        "remote_work.remote_work_check": (remote_work.remote_work_check, ("2022-01-15", "0.3")),
        "remote_work.remote_work_payment": (
            remote_work.remote_work_payment,
            (D("123456.78"), "2022-12-31"),
        ),
        "ertc.eligibility_check": (ertc.eligibility_check, (False, False, True)),
        "ertc.explain_fte": (ertc.explain_fte, ("2520.5", 12)),
        "ertc.average_positions (5 employees)": (ertc.average_positions, (roster,)),
        "ertc.credit_schedule (4 periods)": (ertc.credit_schedule, ("2024-03-15", 10, 7, periods)),
    }


def _old_tree(addin: str, into: Path) -> tuple[ModuleType, ModuleType, ModuleType | None]:
    """The old tree's BEIP, ERTC and (where it has one) remote-work rules modules
    (``law.beip``/``law.ertc`` before the layout, ``programs.<key>.rules`` after),
    imported as package ``nj_before``."""
    target = into / "nj_before"
    shutil.copytree(Path(addin) / "nj_incentives", target)
    for source in target.rglob("*.py"):
        source.write_text(source.read_text().replace("nj_incentives", "nj_before"))
    sys.path.insert(0, str(into))
    if not (target / "programs").is_dir():
        return (
            importlib.import_module("nj_before.law.beip"),
            importlib.import_module("nj_before.law.ertc"),
            None,
        )
    rules = target / "programs" / "remote_work" / "rules.py"
    return (
        importlib.import_module("nj_before.programs.beip.rules"),
        importlib.import_module("nj_before.programs.ertc.rules"),
        importlib.import_module("nj_before.programs.remote_work.rules") if rules.exists() else None,
    )


def _time(function: Callable[..., Any], args: tuple, explained: bool, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        result = function(*args)
        if explained:
            result.steps  # noqa: B018
    return (time.perf_counter() - start) / calls * 1e6


def test_core_time_with_and_without_steps(tmp_path: Path) -> None:
    from nj_incentives.programs.beip import rules as beip
    from nj_incentives.programs.ertc import rules as ertc
    from nj_incentives.programs.remote_work import rules as remote_work

    trees = {"after": _cases(beip, ertc, remote_work)}
    before = os.environ.get("NJ_BENCH_BEFORE")
    if before:
        trees = {"before": _cases(*_old_tree(before, tmp_path)), **trees}
    print(f"\nload {os.getloadavg()[0]:.2f}; best of {ROUNDS} alternated loops of ~{LOOP_S}s")
    print("| call | " + " | ".join(f"{label} us" for label in trees) + " | after / before |")
    print("|---|" + "---:|" * (len(trees) + 1))
    for name in trees["after"]:
        for explained in (False, True):
            best = {label: float("inf") for label in trees}
            single = _time(*trees["after"][name], explained, 1) / 1e6
            calls = max(1, int(LOOP_S / single))
            for _ in range(ROUNDS):
                for label, cases in trees.items():
                    function, args = cases[name]
                    best[label] = min(best[label], _time(function, args, explained, calls))
            ratio = best["after"] / best["before"] if before else float("nan")
            cells = " | ".join(f"{best[label]:,.1f}" for label in trees)
            print(f"| `{name}`{' + steps' if explained else ''} | {cells} | {ratio:.2f} |")
