"""Benchmarks of the README's main job (issue 23 items 3-4): figures printed, never a failure.

Run with ``pytest tests/benchmarks/test_main_job_bench.py -m benchmark -s`` (figures in
docs/performance.md, "The main job against its floor"). Every figure is a fresh
process (``python -m nj_incentives.cli`` with the tree's ``addin/`` first on PYTHONPATH),
the commands alternated, ``NJ_BENCH_REPEATS`` rounds (default 5), medians:

- ``nj-incentives calc --memo out/memo.html`` against its floor
  (``main_job_floor.py``: open the three workbooks, their NJ_* calls through the package's
  functions, write the results workbooks) and, when ``NJ_BENCH_OLD_TREE`` names a checkout
  of an earlier commit (``git worktree add /tmp/old f517ce6``), against that tree's main job
  (its own examples, as its user ran it);
- ``calc`` over 40 filled workbooks of one template against 40 times the floor of one (and
  the floor of the 40 in one process);
- what a first run pays once: Python compiling the package and its libraries to bytecode
  (an empty ``PYTHONPYCACHEPREFIX``), font and matplotlib caches (empty ``XDG_CACHE_HOME``
  and ``MPLCONFIGDIR``), and building the templates' prebuilt forms (done when the
  templates are built; a user never pays it: the forms ship).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.benchmark

REPEATS = int(os.environ.get("NJ_BENCH_REPEATS", "5"))
ROOT = Path(__file__).resolve().parents[2]
FLOOR = Path(__file__).with_name("main_job_floor.py")
OLD = os.environ.get("NJ_BENCH_OLD_TREE")


def _env(tree: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree / "addin"), **extra)
    env.pop("XLWINGS_ON_SERVER", None)
    env.pop("XLWINGS_LICENSE_KEY", None)
    return env


def _wall(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    cwd.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True, timeout=900)
    return time.perf_counter() - start


def _calc(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "nj_incentives.cli", "calc", *arguments]


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _show(label: str, times: list[float]) -> float:
    median = statistics.median(times)
    print(f"  {label}: median {median:.2f} s ({' '.join(f'{t:.2f}' for t in times)})")
    return median


def test_main_job_against_its_floor_and_an_earlier_tree(tmp_path: Path) -> None:
    from nj_incentives.cli.calc import bundled_examples

    examples = [str(p) for p in bundled_examples()]
    record = tmp_path / "calls.pickle"
    env = _env(ROOT)
    subprocess.run([sys.executable, str(FLOOR), "record", str(record), *examples], check=True)
    runs: dict[str, list[float]] = {"calc": [], "floor": [], "old": []}
    print(f"\nThe main job, fresh processes, {REPEATS} alternated rounds (load {_load()}):")
    for n in range(REPEATS):
        main_job = _calc("--memo", "out/memo.html")
        runs["calc"].append(_wall(main_job, tmp_path / f"calc{n}", env))
        floor = [sys.executable, str(FLOOR), "run", str(record), "out", *examples]
        runs["floor"].append(_wall(floor, tmp_path / f"floor{n}", env))
        if OLD:
            runs["old"].append(_wall(main_job, tmp_path / f"old{n}", _env(Path(OLD))))
    calc = _show("nj-incentives calc --memo out/memo.html", runs["calc"])
    floor = _show("floor (open, NJ_* calls, write results)", runs["floor"])
    print(f"  calc / floor: {calc / floor:.2f}x (target <= 2x)")
    if OLD:
        old = _show(f"the main job at {OLD}", runs["old"])
        print(f"  calc / earlier tree: {calc / old:.2f}x (target <= 1x)")
    print(f"  load after: {_load()}")


def test_forty_filled_workbooks_of_one_template(tmp_path: Path) -> None:
    from nj_incentives.programs.beip.templates import grant as beip_grant
    from nj_incentives.workpapers.templates.builder import build_template

    folder = tmp_path / "filled"
    folder.mkdir()
    paths = []
    for n in range(40):  # the example, its withholdings and new employees moved a little
        values = dict(beip_grant.EXAMPLE)
        values["withholdings"] = [w + 1000 * n for w in beip_grant.EXAMPLE["withholdings"]]
        values["new_employees"] = [e + n % 3 for e in beip_grant.EXAMPLE["new_employees"]]
        paths.append(str(build_template(beip_grant, folder / f"grant-{n:02d}.xlsx", values)))
    record = tmp_path / "calls.pickle"
    env = _env(ROOT)
    subprocess.run([sys.executable, str(FLOOR), "record", str(record), *paths], check=True)
    runs: dict[str, list[float]] = {"calc": [], "one": [], "forty": []}
    print(f"\n40 filled grant schedules, fresh processes, {REPEATS} rounds (load {_load()}):")
    for n in range(REPEATS):
        runs["calc"].append(_wall(_calc(*paths, "-o", "out"), tmp_path / f"c{n}", env))
        one = [sys.executable, str(FLOOR), "run", str(record), "out", paths[0]]
        runs["one"].append(_wall(one, tmp_path / f"o{n}", env))
        forty = [sys.executable, str(FLOOR), "run", str(record), "out", *paths]
        runs["forty"].append(_wall(forty, tmp_path / f"f{n}", env))
    calc = _show("calc, 40 workbooks", runs["calc"])
    one = _show("floor of one workbook", runs["one"])
    forty = _show("floor of the 40 in one process", runs["forty"])
    print(f"  calc / (40 x floor of one): {calc / (40 * one):.2f}x (target <= 1.2x)")
    print(f"  calc / floor of the 40: {calc / forty:.2f}x")


def test_first_run_costs(tmp_path: Path) -> None:
    from nj_incentives.support.shipped import TEMPLATES, shipped_file
    from nj_incentives.workpapers.recalc import prebuilt

    env = _env(ROOT)
    command = _calc("--memo", "out/memo.html")
    warm, bytecode, caches = [], [], []
    print(f"\nFirst-run costs, {REPEATS} alternated rounds (load {_load()}):")
    for n in range(REPEATS):
        warm.append(_wall(command, tmp_path / f"w{n}", env))
        with tempfile.TemporaryDirectory() as empty:
            cold = dict(env, PYTHONPYCACHEPREFIX=empty)
            bytecode.append(_wall(command, tmp_path / f"b{n}", cold))
        with tempfile.TemporaryDirectory() as empty:
            cold = dict(env, XDG_CACHE_HOME=empty, MPLCONFIGDIR=empty)
            caches.append(_wall(command, tmp_path / f"f{n}", cold))
    run = _show("the main job, caches warm", warm)
    cold_bytecode = _show("no bytecode yet (first import after install)", bytecode)
    cold_caches = _show("empty font and matplotlib caches", caches)
    for label, cold in (("bytecode", cold_bytecode), ("font caches", cold_caches)):
        print(f"  {label}, once: {cold - run:+.2f} s ({(cold - run) / run:.2f}x the run)")
    start = time.perf_counter()
    for name in TEMPLATES:
        prebuilt.build_form(shipped_file(name))
    built = time.perf_counter() - start
    prebuilt.load_forms.cache_clear()
    start = time.perf_counter()
    prebuilt.load_forms()
    loaded = time.perf_counter() - start
    print(f"  building the three forms (with the templates, never by a user): {built:.2f} s")
    print(f"  loading the three shipped forms (every run): {loaded * 1000:.0f} ms")
