"""Hostile workbooks through ``calc`` and ``doctor`` (issue 22 items 4, 5, 8): time and
peak memory of each, printed, never a failure.

Run with ``pytest tests/benchmarks/test_hostile_bench.py -m benchmark -s``. Each run is a
fresh process under a hard address-space limit (``NJ_BENCH_MEMORY_MB``, default 2,048) and
a timeout (``NJ_BENCH_SECONDS``, default 60 s), so that a file the vetting does not stop
cannot take the shared machine with it: such a run shows "exceeded 2,048 MB" or
"exceeded 60 s". ``NJ_BENCH_BEFORE`` (a checkout's ``addin`` folder, e.g.
``/work/main/addin`` before the change) runs the same files with that tree first on
``sys.path``, side by side with this one.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import hostile_workbooks as hostile

pytestmark = pytest.mark.benchmark

MEMORY_MB = int(os.environ.get("NJ_BENCH_MEMORY_MB", "2048"))
SECONDS = float(os.environ.get("NJ_BENCH_SECONDS", "60"))
BEFORE = os.environ.get("NJ_BENCH_BEFORE", "")

_SCRIPT = r"""
import json, resource, sys, time
if sys.argv[1]:
    sys.path.insert(0, sys.argv[1])
from nj_incentives.cli import main
start = time.perf_counter()
status = main(sys.argv[2:])
seconds = time.perf_counter() - start
print(json.dumps({"s": seconds, "status": status}))
"""


def run(tree: str, *args: str) -> str:
    """``nj-incentives ARGS`` in a fresh process under the limits: its outcome, wall and
    CPU time and peak memory (the child's own ``ru_maxrss`` and CPU, from ``wait4``; the
    whole process: interpreter start and imports included)."""

    def limit() -> None:
        cap = MEMORY_MB * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-c", _SCRIPT, tree, *args],
            stdout=out_file,
            stderr=err_file,
            preexec_fn=limit,
        )
        timer = threading.Timer(SECONDS, child.kill)
        timer.start()
        _, code, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(code)
        elapsed = time.perf_counter() - started
        timer.cancel()
        peak = usage.ru_maxrss / 1024
        cpu = usage.ru_utime + usage.ru_stime
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read(), err_file.read()
    text = err.decode("utf-8", "replace")
    if elapsed >= SECONDS:
        return f"exceeded {SECONDS:.0f} s (killed; {cpu:.1f} s CPU, peak {peak:,.0f} MiB)"
    if "MemoryError" in text or "Cannot allocate memory" in text:
        return f"exceeded {MEMORY_MB:,} MB ({elapsed:.1f} s, {cpu:.1f} s CPU, peak {peak:,.0f} MiB)"
    last = (out.decode().strip().splitlines() or ["{}"])[-1]
    try:
        status = json.loads(last).get("status")
    except json.JSONDecodeError:
        status = "traceback" if "Traceback" in text else child.returncode
    lines = [line for line in text.splitlines() if line.strip()]
    message = (lines[-1] if "Traceback" in text else next(iter(lines), ""))[:110]
    traceback = " with a traceback" if "Traceback" in text else ""
    figures = f"{elapsed:.2f} s ({cpu:.2f} s CPU), peak {peak:,.0f} MiB"
    return f"exit {status}{traceback}, {figures} | {message}"


#: the generated corpus of tests/workpapers/recalc/test_hostile_files.py, and a larger file of
#: formulas
FILES: dict[str, Callable[[Path], Path]] = {
    **hostile.CORPUS,
    "300,000 formulas": lambda path: hostile.many_formulas(path, 300_000),
}


@pytest.mark.parametrize("command", ["calc", "doctor"])
def test_hostile_workbooks(command: str) -> None:
    trees = [("before", BEFORE)] if BEFORE else []
    trees.append(("after", ""))
    with tempfile.TemporaryDirectory() as tmp:
        print(f"\n{command}: limits {MEMORY_MB:,} MB address space, {SECONDS:.0f} s")
        for label, build in FILES.items():
            path = build(Path(tmp) / "hostile.xlsx")
            size = path.stat().st_size
            for tree_label, tree in trees:
                args = [command, str(path)]
                if command == "calc":
                    args += ["-o", str(Path(tmp) / "out.xlsx")]
                print(f"  {label} ({size:,} bytes) {tree_label}: {run(tree, *args)}")


_VET_SCRIPT = r"""
import json, statistics, sys, time
if sys.argv[1]:
    sys.path.insert(0, sys.argv[1])
from nj_incentives.workpapers.recalc import safety
from nj_incentives.workpapers.recalc.safety import vet_workbook
timings = {}
for path in sys.argv[2:]:
    vet_workbook(path)
    runs = []
    for _ in range(15):
        # a run's own cache only (a command vets one workbook per process)
        getattr(safety.formula_problem, "cache_clear", lambda: None)()
        start = time.process_time()
        vet_workbook(path)
        runs.append(time.process_time() - start)
    timings[path] = statistics.median(runs)
print(json.dumps(timings))
"""


def test_vetting_cost_on_the_templates() -> None:
    # what the finer vetting (tokenized formulas and names, positions as openpyxl reads
    # them) costs on the shipped templates: the median CPU time of 15 vettings (the
    # machine is shared), trees alternated in fresh processes, 3 rounds, the median round
    from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY

    paths = sorted(str(p) for p in Path(DEFAULT_DIRECTORY).glob("*.xlsx"))
    trees = [("before", BEFORE)] if BEFORE else []
    trees.append(("after", ""))
    rounds: dict[str, list[dict[str, float]]] = {label: [] for label, _ in trees}
    for _ in range(3):
        for label, tree in trees:
            done = subprocess.run(
                [sys.executable, "-c", _VET_SCRIPT, tree, *paths],
                capture_output=True,
                text=True,
                check=True,
            )
            rounds[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
    print("\nvetting a template, CPU time (median of 15, median of 3 rounds)")
    for path in paths:
        figures = {label: sorted(r[path] for r in rounds[label])[1] * 1000 for label, _ in trees}
        ratio = f", after / before {figures['after'] / figures['before']:.2f}x" if BEFORE else ""
        shown = ", ".join(f"{label} {ms:.1f} ms" for label, ms in figures.items())
        print(f"  {Path(path).name}: {shown}{ratio}")


def test_the_vetting_alone() -> None:
    # the refusal itself, in this process: wall and CPU time and the peak of Python's
    # allocations (tracemalloc; 25 MiB of it is the read buffer of --max-file-bytes)
    import tracemalloc

    print("\nvet_workbook alone (this tree): seconds, peak of allocations")
    with tempfile.TemporaryDirectory() as tmp:
        for label, build in FILES.items():
            path = build(Path(tmp) / "hostile.xlsx")
            wall, cpu = time.perf_counter(), time.process_time()
            outcome = _vet(path)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            tracemalloc.start()
            _vet(path)
            peak = tracemalloc.get_traced_memory()[1] / 1024 / 1024
            tracemalloc.stop()
            print(f"  {label}: {outcome} in {wall:.3f} s ({cpu:.3f} s CPU), peak {peak:.1f} MiB")


def _vet(path: Path) -> str:
    from nj_incentives.workpapers.recalc.safety import UnsafeWorkbookError, vet_workbook

    try:
        vet_workbook(path)
    except UnsafeWorkbookError:
        return "refused"
    return "passed"
