"""Dask file-to-file runs (issue 14 item 3): the workers read and write their parts; the
output is the pandas engine's streaming output. On a LocalCluster started here (small)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest

from nj_incentives.cli import main
from nj_incentives.scenarios import stream
from nj_incentives.scenarios.generate import example_portfolio
from nj_incentives.scenarios.parquet_join import footer_of

pytestmark = pytest.mark.dask

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    frame = example_portfolio(3_000, seed=5)
    frame.loc[frame.index[::211], "pct"] = 0.95
    path = tmp_path_factory.mktemp("dask") / "in.parquet"
    frame.to_parquet(path, index=False, row_group_size=1_000)  # three row groups
    return path


def test_a_parquet_output_is_the_pandas_engines_row_groups_byte_for_byte(
    cluster: str, source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # where the input's row groups are whole chunks (1,000 rows, chunks of 500), the
    # workers encode the row groups the pandas engine encodes, and the client moves them
    # into the output unchanged (parquet_join): the file is the same up to its footer,
    # and the footer's every row group is the same
    monkeypatch.setattr(stream, "STREAM_ROWS", 500)
    on_dask, on_pandas = tmp_path / "dask.parquet", tmp_path / "pandas.parquet"
    dask_args = ["--engine", "dask", "--scheduler", cluster, "--partitions", "4"]
    assert main(["scenarios", str(source), "-o", str(on_dask), *dask_args]) == 1
    assert main(["scenarios", str(source), "-o", str(on_pandas)]) == 1
    with on_dask.open("rb") as d, on_pandas.open("rb") as p:
        end = footer_of(d, on_dask.stat().st_size)[1]
        assert footer_of(p, on_pandas.stat().st_size)[1] == end
    assert on_dask.read_bytes()[:end] == on_pandas.read_bytes()[:end]
    meta_d, meta_p = pq.read_metadata(on_dask), pq.read_metadata(on_pandas)
    assert meta_d.num_row_groups == meta_p.num_row_groups == 6  # 3,000 rows / 500
    for g in range(6):
        assert meta_d.row_group(g).to_dict() == meta_p.row_group(g).to_dict()
    # the footers differ only in the stamp's engine and time
    stamps = [json.loads(m.metadata[b"nj_incentives"]) for m in (meta_d, meta_p)]
    assert [s.pop("engine") for s in stamps] == ["dask", "pandas"]
    assert [bool(s.pop("created_utc")) for s in stamps] == [True, True]
    assert stamps[0] == stamps[1]
    # the input's hash, read in a thread while the workers ran, is the file's (not blank)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    assert stamps[0]["input_file_sha256"] == digest
    assert (
        stamps[0]["inputs_sha256"]
        == hashlib.sha256(digest.encode() + b'{"sheet":null}').hexdigest()
    )


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_workers_write_what_the_pandas_engine_writes(
    cluster: str, source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    monkeypatch.setattr(stream, "STREAM_ROWS", 400)  # passed to the workers with each task
    on_dask, on_pandas = tmp_path / f"dask{suffix}", tmp_path / f"pandas{suffix}"
    args = ["--money", "cents"]
    dask_args = ["--engine", "dask", "--scheduler", cluster, "--partitions", "5"]
    assert main(["scenarios", str(source), "-o", str(on_dask), *args, *dask_args]) == 1
    assert main(["scenarios", str(source), "-o", str(on_pandas), *args]) == 1
    if suffix == ".csv":
        assert on_dask.read_bytes() == on_pandas.read_bytes()
        stamp = json.loads(on_dask.with_suffix(".json").read_text())
    else:
        a, b = pq.read_table(on_dask), pq.read_table(on_pandas)
        assert a.equals(b)
        assert a.schema.remove_metadata().equals(b.schema.remove_metadata())
        pd.testing.assert_frame_equal(pd.read_parquet(on_dask), pd.read_parquet(on_pandas))
        stamp = json.loads(pq.read_metadata(on_dask).metadata[b"nj_incentives"])
    assert stamp["rows"] == 3_000
    assert stamp["rows_with_errors"] == 15
    assert stamp["engine"] == "dask"
    summaries = [pd.read_csv(p.with_suffix(".summary.csv")) for p in (on_dask, on_pandas)]
    pd.testing.assert_frame_equal(*summaries, check_exact=False, rtol=1e-12)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # parts removed


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A table of every kind of row: text ids and labels (quotes, commas, line breaks,
    non-ASCII, formula-like text), a kept text column with blanks, rows without a
    section's inputs, and bad rows of several kinds (a percentage out of range, a
    negative term, a text where a number goes, a blank required field)."""
    frame = example_portfolio(2_600, seed=23)
    n = len(frame)
    frame["id"] = [f"deal-{i}" if i % 7 else None for i in range(n)]
    frame["label"] = [
        ['Main St, "A"', "=1+1", "café\nline 2", "", None, "  padded "][i % 6] for i in range(n)
    ]
    frame["office"] = [None if i % 5 == 0 else f"office {i % 13}" for i in range(n)]
    frame.loc[frame.index[::97], "pct"] = 0.95
    frame.loc[frame.index[3::89], "term"] = -2
    frame["withholdings_1"] = frame["withholdings_1"].astype(object)
    frame.loc[frame.index[5::101], "withholdings_1"] = "abc"
    frame.loc[frame.index[7::103], "withholdings_1"] = None
    frame.loc[frame.index[11::53], "conversion_amount"] = float("nan")
    frame["withholdings_1"] = frame["withholdings_1"].astype(str).replace("None", "")
    path = tmp_path_factory.mktemp("mixed") / "mixed.parquet"
    frame.to_parquet(path, index=False, row_group_size=700)  # four row groups, one short
    return path


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_mixed_file_with_bad_rows_is_the_pandas_engine_s_output(
    cluster: str, mixed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    monkeypatch.setattr(stream, "STREAM_ROWS", 300)  # several chunks a row group
    on_dask, on_pandas = tmp_path / f"dask{suffix}", tmp_path / f"pandas{suffix}"
    keep = ["--keep", "office"]
    dask_args = ["--engine", "dask", "--scheduler", cluster]
    assert main(["scenarios", str(mixed), "-o", str(on_dask), *keep, *dask_args]) == 1
    assert main(["scenarios", str(mixed), "-o", str(on_pandas), *keep]) == 1
    if suffix == ".csv":
        assert on_dask.read_bytes() == on_pandas.read_bytes()
        stamp = json.loads(on_dask.with_suffix(".json").read_text())
    else:
        a, b = pq.read_table(on_dask), pq.read_table(on_pandas)
        assert a.equals(b)
        assert a.schema.remove_metadata().equals(b.schema.remove_metadata())
        # the same rows and values; the row groups follow each engine's chunks (a worker's
        # chunks end at its row group's end: identical files when the input's row groups
        # are whole chunks, as in the benchmark)
        stamp = json.loads(pq.read_metadata(on_dask).metadata[b"nj_incentives"])
    results = pd.read_parquet(on_dask) if suffix == ".parquet" else pd.read_csv(on_dask)
    assert stamp["rows"] == len(results) == 2_600
    assert stamp["rows_with_errors"] == int(results["error"].notna().sum())
    assert stamp["rows_with_errors"] > 60  # every kind of bad row is there
    summaries = [pd.read_csv(p.with_suffix(".summary.csv")) for p in (on_dask, on_pandas)]
    pd.testing.assert_frame_equal(*summaries, check_exact=False, rtol=1e-12)


def test_its_own_cluster_gives_the_same_file(
    mixed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no --scheduler: the command starts its local cluster (scenarios.dask_files.EarlyClient,
    # in the background while it hashes the input and plans the layout) in its own process,
    # a worker thread per core, starts no process, and closes the cluster
    import multiprocessing

    started = _recording_clusters(monkeypatch)
    on_dask, on_pandas = tmp_path / "dask.parquet", tmp_path / "pandas.parquet"
    keep = ["--keep", "office"]
    before = {p.pid for p in multiprocessing.active_children()}  # the module's cluster's
    assert main(["scenarios", str(mixed), "-o", str(on_dask), *keep, "--engine", "dask"]) == 1
    assert {p.pid for p in multiprocessing.active_children()} <= before
    (own,) = started
    assert own.status.name == "closed"
    assert main(["scenarios", str(mixed), "-o", str(on_pandas), *keep]) == 1
    assert pq.read_table(on_dask).equals(pq.read_table(on_pandas))


def _recording_clusters(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The local clusters the command starts from now on, as they are started."""
    started: list[Any] = []

    class Recording(distributed.LocalCluster):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(distributed, "LocalCluster", Recording)
    return started


def test_a_column_error_closes_the_cluster_it_started(
    mixed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the cluster was being started while the columns were checked: the message, exit 2,
    # and the cluster closed (EarlyClient.close waits for it and closes it)
    started = _recording_clusters(monkeypatch)
    out = tmp_path / "out.parquet"
    assert main(["scenarios", str(mixed), "-o", str(out), "--engine", "dask"]) == 2
    assert not out.exists()
    (own,) = started
    assert own.status.name == "closed"


def test_an_early_client_that_cannot_connect_says_so(tmp_path: Path, mixed: Path) -> None:
    # nothing listens there: the connection error is the command's message, exit 2.
    # distributed retries a refused connection until its connect timeout (30 s by
    # default, a user's dask config can change it); 2 s here
    import dask

    out = tmp_path / "out.parquet"
    dask_args = ["--engine", "dask", "--scheduler", "tcp://127.0.0.1:9"]
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        code = main(["scenarios", str(mixed), "-o", str(out), *dask_args, "--no-progress"])
    assert code == 2
    assert not out.exists()


def _page_faults(kept: bool) -> int:
    """On a worker, in a task: the minor page faults of making and freeing 200 columns of
    a chunk (1 MiB each), with the task's heap kept (dask_files._heap_kept) or not."""
    import contextlib
    import resource

    import numpy as np

    from nj_incentives.scenarios.dask_files import _heap_kept

    with _heap_kept() if kept else contextlib.nullcontext():
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(200):
            column = np.ones(131_072)
            del column
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_a_task_keeps_its_heap_on_workers_started_with_malloc_trim(cluster: str) -> None:
    # Dask's nanny starts the module's workers with MALLOC_TRIM_THRESHOLD_=65536, which
    # also pins glibc's mmap threshold at 128 KiB: each 1 MiB column is mapped and
    # unmapped, 256 page faults a column (200 x 256 = 51,200); within the task the
    # thresholds grow as glibc's defaults do, so the freed column is used again.
    # Restarted workers first: an earlier test's tasks leave free chunks in the heap under
    # what they keep (the int64 evaluator's date tables, 2.6 MB, built in a task with the
    # heap kept, pin their temporaries' space below them), and glibc serves a 1 MiB column
    # from such a chunk before it maps one, whatever the mmap threshold
    from nj_incentives.scenarios import dask_files

    with distributed.Client(cluster, set_as_default=False) as client:
        client.restart()
        assert set(client.run(os.getenv, "MALLOC_TRIM_THRESHOLD_").values()) == {"65536"}
        plain = client.submit(_page_faults, False, pure=False).result()
        kept = client.submit(_page_faults, True, pure=False).result()
        kept_again = client.submit(_page_faults, True, pure=False).result()
        client.run(dask_files._heap_settled)  # HEAP_GRACE after the last task
        after = client.submit(_page_faults, False, pure=False).result()
    assert plain > 40_000
    assert kept < 2_000
    assert kept_again < 1_000  # the next task, within the grace: the heap was kept
    assert after > 40_000  # set back after the grace: the worker trims again


def test_the_heap_thresholds_are_set_once_and_put_back_by_the_last_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from nj_incentives.scenarios import dask_files

    calls: list[tuple[str, int, int] | tuple[str, int]] = []

    class Libc:
        def mallopt(self, param: int, value: int) -> int:
            calls.append(("mallopt", param, value))
            return 1

        def malloc_trim(self, pad: int) -> int:
            calls.append(("trim", pad))
            return 1

    # an own-cluster run earlier in this process (its worker threads are this process's)
    # may have left its grace pending: settled with the real C library first
    dask_files._heap_settled()
    assert (dask_files._heap_users, dask_files._heap_kept_now) == (0, False)
    monkeypatch.setattr(dask_files, "_glibc", Libc)
    monkeypatch.setattr(dask_files, "HEAP_GRACE", 0.05)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    kept = [("mallopt", -3, 32 << 20), ("mallopt", -1, 64 << 20)]
    with dask_files._heap_kept():
        with dask_files._heap_kept():  # a second task on another thread of the worker
            pass
        assert calls == kept
    with dask_files._heap_kept():  # the run's next task, within the grace
        pass
    assert calls == kept
    dask_files._heap_settled()
    # the grace over: the worker's own trim threshold, glibc's fixed mmap threshold
    assert calls[2:] == [("mallopt", -1, 65536), ("mallopt", -3, 128 << 10), ("trim", 0)]
    calls.clear()
    with dask_files._heap_kept():  # the next run: kept again
        pass
    dask_files._heap_settled()
    assert calls == [*kept, ("mallopt", -1, 65536), ("mallopt", -3, 128 << 10), ("trim", 0)]
    calls.clear()
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_")
    with dask_files._heap_kept():  # a worker started without it: nothing is changed
        pass
    assert calls == []


def test_the_client_imports_neither_pandas_nor_pyarrow(
    cluster: str, source: Path, tmp_path: Path
) -> None:
    # the command on a running cluster, in a fresh process: the workers read, plan,
    # compute, write and summarise; this process reads the footer and joins the parts,
    # and needs none of pandas, pyarrow, the kernel or the columns' declarations (every
    # program's rules): 0.7-0.8 CPU-s of its 1.8-2.1 at 1,000,000 rows (performance.md)
    import subprocess
    import sys

    out = tmp_path / "out.parquet"
    script = (
        "import sys\n"
        "from nj_incentives.cli import main\n"
        "status = main(sys.argv[1:])\n"
        "heavy = ('pandas', 'pyarrow', 'nj_incentives.scenarios.kernel',"
        " 'nj_incentives.scenarios.columns')\n"
        "print([m for m in heavy if m in sys.modules], status)\n"
    )
    args = [str(source), "-o", str(out), "--engine", "dask", "--scheduler", cluster]
    done = subprocess.run(
        [sys.executable, "-c", script, "scenarios", *args, "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.stdout.strip().splitlines()[-1] == "[] 1", done.stderr
    assert pq.read_metadata(out).num_rows == 3_000
