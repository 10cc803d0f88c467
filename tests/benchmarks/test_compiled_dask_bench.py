"""Benchmarks of recalculation without compiling (issue 14 item 4: today the templates'
prebuilt forms, the compiled model being retired in issue 30) and Dask file runs (item 3).

Run with ``pytest tests/benchmarks/test_compiled_dask_bench.py -m benchmark -s``; figures
printed, never a failure; each a ratio to an anchor measured in the same run, alternated,
median of ``NJ_BENCH_REPEATS`` (default 5 for recalculation, 3 for Dask).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from test_files_bench import cli, make_table, med  # the same folder (rootless import)

pytestmark = pytest.mark.benchmark

DATA = Path(__file__).resolve().parents[2] / "workbooks" / "examples"
DASK_ROWS = int(os.environ.get("NJ_BENCH_DASK_ROWS", "2000000"))


_RECALC_ALWAYS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry"
 xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">
<prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


def _libreoffice(path: Path, profile: Path, out: Path) -> float:
    """Wall time of LibreOffice loading ``path``, recalculating every formula on load
    (OOXMLRecalcMode=0) and saving it: a fresh soffice process, its own profile."""
    start = time.perf_counter()
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{profile}",
            "--headless",
            "--convert-to",
            "xlsx:Calc MS Excel 2007 XML",
            "--outdir",
            str(out),
            str(path),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return time.perf_counter() - start


def test_prebuilt_recalculation_against_full() -> None:
    from nj_incentives.workpapers.recalc import engine, prebuilt
    from nj_incentives.workpapers.recalc.safety import DEFAULT_LIMITS, vet_workbook

    repeats = int(os.environ.get("NJ_BENCH_REPEATS", "5"))
    office = shutil.which("soffice")
    profile = Path(tempfile.mkdtemp(prefix="nj-lo-profile-"))
    if office:
        (profile / "user").mkdir(parents=True)
        (profile / "user" / "registrymodifications.xcu").write_text(_RECALC_ALWAYS)
    print()
    print(f"Recalculation in a running process, median of {repeats} alternated runs:")
    engine.recalculate_vetted(vet_workbook(sorted(DATA.glob("*-example.xlsx"))[0]))  # imports
    for example in sorted(DATA.glob("*-example.xlsx")):
        prebuilt.recalculate_template(vet_workbook(example, DEFAULT_LIMITS))  # the forms loaded
        full, fast, soffice = [], [], []
        for _ in range(repeats):
            start = time.perf_counter()
            engine.recalculate_vetted(vet_workbook(example, DEFAULT_LIMITS))
            full.append(time.perf_counter() - start)
            start = time.perf_counter()
            result = prebuilt.recalculate_template(vet_workbook(example, DEFAULT_LIMITS))
            fast.append(time.perf_counter() - start)
            assert result.method == "prebuilt"
            if office:
                with tempfile.TemporaryDirectory() as out:
                    soffice.append(_libreoffice(example, profile, Path(out)))
        f, c = statistics.median(full), statistics.median(fast)
        line = f"  {example.name}: full {f:.3f} s, prebuilt {c:.3f} s = {f / c:.1f}x faster"
        if soffice:
            s = statistics.median(soffice)
            line += f"; LibreOffice load + recalc + save (fresh soffice) {s:.2f} s = {s / c:.1f}x"
        print(line)
        print(f"    full {[round(x, 3) for x in full]} prebuilt {[round(x, 3) for x in fast]}")
    if not office:
        print("  (LibreOffice not installed: its comparison skipped)")
    shutil.rmtree(profile, ignore_errors=True)


def _cli_from(tree: str | None, *args: object) -> dict[str, float]:
    """``cli(*args)`` with ``tree`` (an ``addin/`` folder) first on the path, if given."""
    if tree is None:
        return cli(*args)
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = tree + (os.pathsep + before if before else "")
    try:
        return cli(*args)
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def test_dask_files_against_pandas(tmp_path: Path) -> None:
    """Issue 23 item 3: ``--engine dask --scheduler`` on a running LocalCluster of 2
    single-thread worker processes (started here, outside the timed runs), ``--engine
    pandas``, and ``--engine dask`` starting its own cluster (the start timed), fresh CLI
    processes alternated, median of ``NJ_BENCH_REPEATS``. ``NJ_BENCH_BEFORE`` (an older
    tree's ``addin/`` folder) adds the same three runs of that tree, alternated with these
    (its own running cluster, whose workers import that tree). This tree also runs on a
    second cluster whose workers start without ``MALLOC_TRIM_THRESHOLD_`` (Dask's nanny
    sets it by default; a task now keeps its heap on such workers, dask_files._heap_kept,
    so the two clusters should take the same time)."""
    distributed = pytest.importorskip("distributed")
    import dask

    repeats = int(os.environ.get("NJ_BENCH_REPEATS", "3"))
    old = os.environ.get("NJ_BENCH_BEFORE")
    source = tmp_path / "in.parquet"
    make_table(source, DASK_ROWS)
    trees = {"after": None, **({"before": old} if old else {})}
    runs: dict[tuple[str, str], list[dict[str, float]]] = {}
    loads: list[float] = []
    # Starting a LocalCluster of processes sets OMP_NUM_THREADS=1, MKL_NUM_THREADS=1,
    # OPENBLAS_NUM_THREADS=1 and MALLOC_TRIM_THRESHOLD_ in this process's environment
    # (distributed's nanny pre-spawn environment), which every command and cluster started
    # after it would inherit: the commands' Arrow thread pool then had one thread, and the
    # pandas engine took about twice its time (13 s -> 24 s at 2,000,000 rows), flattering
    # Dask. Every cluster and command starts from the environment a user's shell gives it.
    user_env = dict(os.environ)

    import psutil

    # Each configuration is timed with only its own cluster running: the other clusters'
    # worker and nanny processes are stopped (SIGSTOP) meanwhile, and all of them for the
    # pandas runs. Two idle clusters used 4.4 CPU-s in 20 s (0.22 of the 2 cores), which
    # a user's one running cluster does not have beside it (the idle gap, at most a
    # round, is well within the scheduler's 5-minute worker TTL).
    processes: dict[str, list[Any]] = {}

    def only(address: str | None) -> None:
        for key, group in processes.items():
            for process in group:
                with contextlib.suppress(psutil.Error):
                    (process.resume if key == address else process.suspend)()

    def resume_all() -> None:
        for group in processes.values():
            for process in group:
                with contextlib.suppress(psutil.Error):
                    process.resume()

    def start(tree: str | None, **config: Any) -> str:
        before = {p.pid for p in psutil.Process().children(recursive=True)}
        os.environ.clear()
        os.environ.update(user_env)
        # the workers are spawned with the tree first on the path: multiprocessing's spawn
        # gives a child this process's sys.path (PYTHONPATH alone was overridden by it, so
        # an older tree's cluster had run this tree's code)
        path = list(sys.path)
        if tree is not None:
            sys.path.insert(0, tree)
        try:
            with dask.config.set(config):
                cluster = stack.enter_context(
                    distributed.LocalCluster(
                        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
                    )
                )
        finally:
            sys.path[:] = path
        os.environ.clear()
        os.environ.update(user_env)
        address = str(cluster.scheduler_address)
        processes[address] = [
            p for p in psutil.Process().children(recursive=True) if p.pid not in before
        ]
        return address

    kinds = ["running", "pandas", "own"]
    with contextlib.ExitStack() as stack:
        addresses = {name: start(tree) for name, tree in trees.items()}
        untrimmed = start(
            None, **{"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
        )
        stack.callback(resume_all)  # (LIFO) before the clusters close, even on an error
        for _ in range(repeats):
            for name, tree in trees.items():
                loads.append(os.getloadavg()[0])
                out = tmp_path / f"{name}"
                dask_args = ("--engine", "dask", "--scheduler")
                only(addresses[name])
                runs.setdefault((name, "running"), []).append(
                    _cli_from(tree, source, "-o", f"{out}-d.parquet", *dask_args, addresses[name])
                )
                if tree is None:
                    only(untrimmed)
                    runs.setdefault((name, "no-trim"), []).append(
                        _cli_from(tree, source, "-o", f"{out}-n.parquet", *dask_args, untrimmed)
                    )
                only(None)
                runs.setdefault((name, "pandas"), []).append(
                    _cli_from(tree, source, "-o", f"{out}-p.parquet")
                )
                # issue 23: the command starting its own cluster
                runs.setdefault((name, "own"), []).append(
                    _cli_from(tree, source, "-o", f"{out}-o.parquet", "--engine", "dask")
                )
        resume_all()
    loads.append(os.getloadavg()[0])
    import pyarrow.parquet as pq

    print()
    print(f"Parquet to Parquet, {DASK_ROWS:,} rows, LocalCluster of 2 single-thread workers:")
    print(f"  load average (1 min) at each round: {[round(x, 1) for x in loads]}")
    for name, tree in trees.items():
        pandas_file = pq.read_table(tmp_path / f"{name}-p.parquet")
        files = "don" if tree is None else "do"
        same = all(
            pq.read_table(tmp_path / f"{name}-{k}.parquet").equals(pandas_file) for k in files
        )
        d, p, o = (med(runs[(name, k)]) for k in kinds)
        print(f"  {name}: identical results: {same}")
        print(
            f"    --engine dask --scheduler (running cluster) {d:.1f} s against --engine"
            f" pandas {p:.1f} s = {d / p:.2f}x (wall; the target is -k cpu_per_row)"
        )
        if tree is None:
            n = med(runs[(name, "no-trim")])
            print(
                f"    the same on workers started without MALLOC_TRIM_THRESHOLD_ {n:.1f} s"
                f" = {n / p:.2f}x"
            )
        print(f"    --engine dask, its own cluster {o:.1f} s = {o / p:.2f}x (target <= 1.0x)")
        for k in [*kinds, *(["no-trim"] if tree is None else [])]:
            print(f"      {k:8} {[round(r['s'], 1) for r in runs[(name, k)]]}")
        peaks = med(runs[(name, "running")], "peak_mib"), med(runs[(name, "pandas")], "peak_mib")
        print(
            f"    peak memory of the client: dask {peaks[0]:,.0f} MiB, pandas {peaks[1]:,.0f} MiB"
        )


_CLI_CPU = r"""
from nj_incentives.cli import main
start = time.perf_counter()
status = main(["scenarios", *sys.argv[1:], "--no-progress"])
use = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"s": time.perf_counter() - start, "peak_mib": peak(), "status": status,
                  "cpu": use.ru_utime + use.ru_stime, "user": use.ru_utime,
                  "sys": use.ru_stime}))
"""


def test_dask_files_cpu_per_row_on_a_cluster(tmp_path: Path) -> None:
    """Issue 35: the Dask engine's target is the engine, not how processes share cores:
    the same rows and bytes as the pandas engine, and at most 1.05x its CPU-seconds a row,
    on a running cluster of several worker processes. The cluster is started as a user
    starts one (``dask scheduler`` and ``dask worker``, the current spelling of
    ``dask-scheduler`` / ``dask-worker``, on 127.0.0.1; ``NJ_BENCH_DASK_WORKERS`` worker
    processes, default 3, a thread each, each under its nanny), outside the measured runs.
    A run's CPU-seconds: the command's own (``getrusage``: every thread), and for Dask
    also every process of the cluster (scheduler, nannies, workers: ``psutil``, before and
    after the run). Fresh CLI processes, pandas and Dask alternated, median of
    ``NJ_BENCH_REPEATS`` (default 3)."""
    import psutil

    pytest.importorskip("distributed")
    from nj_incentives.scenarios.parquet_join import footer_of
    from test_files_bench import fresh

    repeats = int(os.environ.get("NJ_BENCH_REPEATS", "3"))
    workers = int(os.environ.get("NJ_BENCH_DASK_WORKERS", "3"))
    source = tmp_path / "in.parquet"
    make_table(source, DASK_ROWS)  # row groups of 131,072 rows: whole chunks
    bin_dir = Path(sys.executable).parent
    dask_cli = str(bin_dir / "dask") if (bin_dir / "dask").exists() else "dask"
    info = tmp_path / "scheduler.json"
    # NJ_BENCH_DASK_QUIET=1: the cluster started with the settings docs/scenarios.md gives
    # for a cluster that runs these tasks (the admin tick, system and memory monitors at
    # 2-10 s, no statistical profiler): an idle cluster's CPU, and the profiler's sampling
    # of every task, are most of what Dask adds
    quiet_env = {
        "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "2s",
        "DASK_DISTRIBUTED__ADMIN__TICK__CYCLE": "5s",
        "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "10s",
        "DASK_DISTRIBUTED__WORKER__MEMORY__MONITOR_INTERVAL": "2s",
        "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
    }
    settings = os.environ.get("NJ_BENCH_DASK_QUIET") == "1"
    quiet = {
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.DEVNULL,
        "env": {**os.environ, **(quiet_env if settings else {})},
    }
    scheduler = subprocess.Popen(
        [dask_cli, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
         "--scheduler-file", str(info)],
        **quiet,
    )  # fmt: skip
    worker = subprocess.Popen(
        [dask_cli, "worker", "--scheduler-file", str(info), "--host", "127.0.0.1",
         "--nworkers", str(workers), "--nthreads", "1", "--no-dashboard"],
        **quiet,
    )  # fmt: skip
    try:
        for _ in range(600):
            if info.exists() and info.stat().st_size:
                break
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        import distributed

        with distributed.Client(address) as client:
            client.wait_for_workers(workers, timeout=120)

        def cluster_cpu() -> float:
            total = 0.0
            for top in (scheduler, worker):
                process = psutil.Process(top.pid)
                for one in (process, *process.children(recursive=True)):
                    with contextlib.suppress(psutil.Error):
                        times = one.cpu_times()
                        total += times.user + times.system
            return total

        # a running cluster: its workers have imported pandas, pyarrow and the package
        # (a fresh cluster's first run does that, 2-3 CPU-s a worker: not measured)
        fresh(_CLI_CPU, source, "-o", tmp_path / "warm.parquet", "--engine", "dask",
              "--scheduler", address)  # fmt: skip
        pandas_runs, dask_runs = [], []
        for _ in range(repeats):
            before = cluster_cpu()
            pandas_runs.append(fresh(_CLI_CPU, source, "-o", tmp_path / "pandas.parquet"))
            pandas_runs[-1]["idle_cluster_cpu"] = cluster_cpu() - before
            before = cluster_cpu()
            run = fresh(
                _CLI_CPU, source, "-o", tmp_path / "dask.parquet", "--engine", "dask",
                "--scheduler", address,
            )  # fmt: skip
            run["cluster_cpu"] = cluster_cpu() - before
            run["cpu"] += run["cluster_cpu"]
            dask_runs.append(run)
    finally:
        for top in (worker, scheduler):
            top.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                top.wait(timeout=30)
            if top.poll() is None:
                top.kill()
    import pyarrow.parquet as pq

    on_dask, on_pandas = tmp_path / "dask.parquet", tmp_path / "pandas.parquet"
    rows = pq.read_metadata(on_pandas).num_rows
    same_rows = pq.read_table(on_dask).equals(pq.read_table(on_pandas))
    with on_dask.open("rb") as d, on_pandas.open("rb") as p:
        end_d = footer_of(d, on_dask.stat().st_size)[1]
        end_p = footer_of(p, on_pandas.stat().st_size)[1]
    same_bytes = end_d == end_p and on_dask.read_bytes()[:end_d] == on_pandas.read_bytes()[:end_p]
    per_row = [1e6 * med(r, "cpu") / rows for r in (dask_runs, pandas_runs)]
    print()
    print(
        f"Parquet to Parquet, {rows:,} rows; `dask scheduler` + `dask worker --nworkers"
        f" {workers} --nthreads 1` on 127.0.0.1"
        f" ({'the settings of docs/scenarios.md' if settings else 'default settings'});"
        f" median of {repeats}, alternated:"
    )
    print(f"  the same rows: {same_rows}; the same bytes but the footer (stamp): {same_bytes}")
    print(
        f"  CPU-seconds a row: dask {per_row[0]:.2f} us (the command"
        f" {[round(r['cpu'] - r['cluster_cpu'], 1) for r in dask_runs]} s + the cluster"
        f" {[round(r['cluster_cpu'], 1) for r in dask_runs]} s), pandas {per_row[1]:.2f} us"
        f" ({[round(r['cpu'], 1) for r in pandas_runs]} s)"
        f" = {per_row[0] / per_row[1]:.3f}x (target <= 1.05x)"
    )
    split = ", ".join(f"{r['user']:.2f} + {r['sys']:.2f}" for r in dask_runs)
    print(f"  the Dask command's own CPU-s, user + system: {split}")
    idle = med(pandas_runs, "idle_cluster_cpu") / med(pandas_runs)
    print(f"  the idle cluster meanwhile (pandas runs): {idle:.3f} CPU-s a second")
    print(
        f"  wall: dask {med(dask_runs):.1f} s {[round(r['s'], 1) for r in dask_runs]},"
        f" pandas {med(pandas_runs):.1f} s {[round(r['s'], 1) for r in pandas_runs]};"
        f" load average {os.getloadavg()[0]:.1f}"
    )


#: One roster measurement in a fresh interpreter: argv = [this folder, repeats]; prints
#: one JSON line. Run as it is (CPython: xlwings Server's path) or after
#: test_excel_benchmarks.PYODIDE_STUB (``pyodide.ffi`` importable, as in xlwings Lite).
_ROSTER = r"""
import asyncio, json, sys, time
sys.path.insert(0, sys.argv[1])
import xlwings.server
from test_excel_benchmarks import _baseline_module, _payload
from nj_incentives import excel

roster = [[160 if (r + m) % 7 else 100 for m in range(12)] for r in range(10_000)]
module = _baseline_module(set())
function = _payload("NJ_ERTC_AVG_POSITIONS", [roster, None, None, None])
identity = _payload("IDENTITY", [roster])


async def timed(payload, where):
    start = time.perf_counter()
    await xlwings.server.custom_functions_call(payload, where)
    return time.perf_counter() - start


async def measure(repeats):
    ours, anchor = [], []
    for _ in range(repeats):
        ours.append(await timed(function, excel))
        anchor.append(await timed(identity, module))
    return ours, anchor


ours, anchor = asyncio.run(measure(int(sys.argv[2])))
plain = excel.functions()["NJ_ERTC_AVG_POSITIONS"]
start = time.perf_counter()
plain(roster)
print(json.dumps({"ours": ours, "anchor": anchor, "direct": time.perf_counter() - start}))
"""


@pytest.mark.parametrize("runtime", ["cpython", "pyodide"])
def test_large_roster_through_the_office_js_dispatch(runtime: str) -> None:
    """Issue 14 item 5: a 10,000 x 12 roster through NJ_ERTC_AVG_POSITIONS against a
    same-shape IDENTITY through the same dispatch, and the direct call without xlwings.
    ``pyodide``: a stand-in ``pyodide.ffi`` imports (as in xlwings Lite), so xlwings' own
    per-cell conversion is cheap and the function's cost shows."""
    import json
    import sys

    from test_excel_benchmarks import PYODIDE_STUB

    repeats = int(os.environ.get("NJ_BENCH_REPEATS", "3"))
    script = (PYODIDE_STUB if runtime == "pyodide" else "") + _ROSTER
    done = subprocess.run(
        [sys.executable, "-c", script, str(Path(__file__).parent), str(repeats)],
        capture_output=True,
        text=True,
        check=True,
        timeout=3600,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    o, a = statistics.median(found["ours"]), statistics.median(found["anchor"])
    where = "pyodide.ffi importable" if runtime == "pyodide" else "CPython"
    print()
    print(f"10,000 x 12 roster through the Office.js dispatch ({where}), median of {repeats}")
    print(
        f"  NJ_ERTC_AVG_POSITIONS {o:.2f} s against IDENTITY of the same range {a:.2f} s"
        f" = {o / a:.1f}x (target <= 2x); the function called directly: {found['direct']:.2f} s"
    )
    print(f"    function {[round(t, 2) for t in found['ours']]}")
    print(f"    identity {[round(t, 2) for t in found['anchor']]}")
