"""Dask file-to-file runs: the workers read, compute and write their partitions.

For ``nj-incentives scenarios IN.parquet -o OUT.{parquet,csv} --engine dask``: the
client reads the input's columns and row groups from its footer (:func:`file_outline`),
a worker plans the layout from the few columns that decide it (as a streaming run does,
:func:`~.stream.plan_layout_streaming`; :func:`plan_file`), and the client cuts the
input's row groups into tasks, about two per worker thread. Each task runs on a worker:
it reads its rows from the input file itself, computes them chunk by chunk with the
same kernel, and writes them to a part file beside the output, returning its counts,
its first failed rows and its part of the summary (:class:`~.analysis.SummaryBuilder`);
the client fetches the counts, and a worker merges the summaries into the summary
CSV's bytes (:func:`_summary_csv`). No table goes through the client, which imports
neither pandas nor pyarrow (nor the kernel): at 1,000,000 rows that was 0.4-0.5 of its
1.8-2.1 CPU-seconds, and it received every part's sample of the summary (39 MB). For a
Parquet output a part is Parquet, one row group per chunk, encoded by the worker with
the pandas engine's writer. The client joins each part into the output as soon as it
and the parts before it are done, while the workers compute the later ones, and removes
it: CSV byte for byte, Parquet row groups moved as the bytes the worker wrote
(:mod:`.parquet_join`), appended past the page cache where the system allows it
(:mod:`.appending`: the output's new pages were most of what the client cost). The
output holds the pandas engine's rows, values and schema; where the input's row groups
are whole chunks it is the pandas engine's file
byte for byte but for the stamp's engine and time.

The input and output paths must be the same for the client and every worker (a shared
folder on a cluster). ``scheduler``: a distributed scheduler address
(``tcp://host:8786``); without one, a local cluster is started for the run in this
process: one worker with a thread per core.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nj_incentives.scenarios.appending import Appender
from nj_incentives.scenarios.errors import ScenarioError
from nj_incentives.scenarios.parquet_join import (
    JoinError,
    Outline,
    ParquetJoiner,
    SchemaMismatch,
    outline,
)

if TYPE_CHECKING:  # the client imports neither pandas, pyarrow nor the columns'
    # declarations (every program's rules): only the workers do
    from nj_incentives.scenarios.columns import Layout
    from nj_incentives.scenarios.runner import Money

__all__ = ["EarlyClient", "Part", "file_outline", "plan_on_cluster", "run_parquet_to_file"]


@dataclass(frozen=True)
class Part:
    """One task: batches ``first`` .. ``last - 1`` of one row group of the input."""

    source: str
    group: int
    first: int
    last: int
    first_row: int  # the run's row number of the part's first row (from 0)
    batch_rows: int
    path: str


def file_outline(source: Path) -> Outline:
    """The input's column names and row groups, from its footer (:func:`.parquet_join.outline`:
    no pyarrow on the client); a footer that reader cannot follow is read by pyarrow, whose
    error for a file that is not Parquet is the command's message (as
    :class:`~.stream.StreamReader` says it)."""
    try:
        return outline(source)
    except JoinError:
        import pyarrow.parquet as pq

        try:
            file = pq.ParquetFile(source)
            meta = file.metadata
            groups = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
            return Outline([str(n) for n in file.schema_arrow.names], meta.num_rows, groups)
        except Exception as error:  # pyarrow raises several kinds for a bad file
            message = f"{source}: cannot read the scenario table ({error})"
            raise ScenarioError(message) from None


def plan_file(source: str, detail: bool, keep: Sequence[str]) -> tuple[Layout, int] | None:
    """A worker's task: the columns checked (:func:`~.columns.check_columns`, its
    :class:`ScenarioError` the command's message), then the layout of the whole table
    and its rows, planned as the pandas engine plans them
    (:func:`~.stream.plan_layout_streaming`); None when the file cannot be read in
    chunks."""
    from nj_incentives.scenarios import stream
    from nj_incentives.scenarios.columns import check_columns

    try:
        reader = stream.StreamReader(Path(source), "parquet")
        check_columns(reader.columns, keep)
        return stream.plan_layout_streaming(reader, detail)
    except stream.CannotStream:
        return None


def _rows_of(planned: tuple[Layout, int] | None) -> int | None:
    return None if planned is None else planned[1]


def plan_on_cluster(
    client: Any, source: Path, detail: bool, keep: Sequence[str]
) -> tuple[Any, int] | None:
    """:func:`plan_file` run on a worker: the plan stays there, as a future the tasks
    take (:func:`run_parquet_to_file`), and the client receives the rows only (or the
    columns' error). So the client reads no column and imports neither pandas, pyarrow,
    the kernel nor the columns' declarations; the workers have them (:func:`_warm_up`).
    (The plan's future, of a tuple: the scheduler tells the client the type of what a
    future holds, and a future of a Layout imported the declarations to name it; the
    rows); None when the file cannot be read in chunks."""
    planned = client.submit(plan_file, str(source), detail, list(keep), pure=False)
    rows: int | None = client.submit(_rows_of, planned, pure=False).result()
    if rows is None:
        return None
    return planned, rows


def _tasks(
    source: Path, parts_dir: Path, wanted: int, batch_rows: int, groups: Sequence[int]
) -> list[Part]:
    per_group = max(1, math.ceil(wanted / max(1, len(groups))))
    parts: list[Part] = []
    row = 0
    for g, rows in enumerate(groups):
        batches = max(1, math.ceil(rows / batch_rows))
        split = min(per_group, batches)
        for k in range(split):
            first, last = batches * k // split, batches * (k + 1) // split
            name = str(parts_dir / f"part-{len(parts):05d}")
            parts.append(
                Part(str(source), g, first, last, row + first * batch_rows, batch_rows, name)
            )
        row += rows
    return parts


def run_part(
    part: Part,
    fmt: str,
    layout: Layout | tuple[Layout, int],
    total: int,
    money: Money,
    keep: Sequence[str],
) -> dict[str, Any]:
    """A worker's task: read, compute and write one part; its counts and summary (with
    the worker's heap kept, :func:`_heap_kept`). ``layout``: the run's, or
    :func:`plan_file`'s (layout, rows)."""
    if isinstance(layout, tuple):
        layout = layout[0]
    with _heap_kept():
        import pyarrow.parquet as pq

        from nj_incentives.scenarios.analysis import SummaryBuilder
        from nj_incentives.scenarios.io import CsvWriter, ParquetWriter
        from nj_incentives.scenarios.runner import run_scenarios
        from nj_incentives.scenarios.stream import PARQUET_READ, batch_frame, row_ids

        builder = SummaryBuilder(total)
        writer: Any = (
            CsvWriter(Path(part.path), header=part.first_row == 0)
            if fmt == "csv"
            else ParquetWriter(Path(part.path))
        )
        rows = errors = 0
        failed: list[tuple[int, Any, str]] = []
        file = pq.ParquetFile(part.source, **PARQUET_READ)
        try:
            # read and converted in the task's thread: a worker runs a task a thread, so
            # Arrow's thread pool (a thread per core in every worker process) only hands
            # the columns from thread to thread (4-8% more CPU-seconds; docs/performance.md)
            batches = file.iter_batches(
                batch_size=part.batch_rows, row_groups=[part.group], use_threads=False
            )
            for i, batch in enumerate(batches):
                if i < part.first:
                    continue
                if i >= part.last:
                    break
                frame = batch_frame(batch, "parquet", threads=False)
                start = part.first_row + rows
                if "id" not in frame.columns:
                    frame.insert(0, "id", row_ids(start, len(frame)))
                results = run_scenarios(
                    frame,
                    money=money,
                    detail=layout.detail,
                    keep=keep,
                    layout=layout,
                )
                writer.write(results)
                builder.add(results, start)
                bad = results["error"].notna().to_numpy().nonzero()[0]
                errors += len(bad)
                for position in bad[: max(0, 5 - len(failed))]:
                    row = results.iloc[int(position)]
                    failed.append((start + int(position) + 1, row.get("id"), str(row["error"])))
                rows += len(results)
        finally:
            writer.close()
        return {"rows": rows, "errors": errors, "failed": failed, "summary": builder}


def _outcome(done: dict[str, Any]) -> dict[str, Any]:
    """On a worker: a part's counts and first failed rows, without its summary (which
    :func:`_summary_csv` merges where the parts are)."""
    return {k: v for k, v in done.items() if k != "summary"}


def _summary_csv(done: Sequence[dict[str, Any]]) -> bytes:
    """On a worker: the run's summary, merged from its parts' in row order, as the bytes
    of the summary CSV the pandas engine writes (:func:`~.io.write_summary_csv`)."""
    from nj_incentives.scenarios.analysis import SummaryBuilder
    from nj_incentives.scenarios.io import write_csv

    summary = SummaryBuilder.merged([d["summary"] for d in done]).frame()
    with tempfile.TemporaryDirectory(prefix="nj-summary-") as folder:
        path = Path(folder) / "summary.csv"
        write_csv(path, summary, money=())
        return path.read_bytes()


def _warm_up() -> None:
    """On a worker: import what :func:`run_part` imports (its first task would pay it)."""
    import pyarrow.parquet  # noqa: F401

    import nj_incentives.scenarios.io
    import nj_incentives.scenarios.kernel
    import nj_incentives.scenarios.runner
    import nj_incentives.scenarios.stream  # noqa: F401


# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: glibc's default mmap threshold, which a MALLOC_TRIM_THRESHOLD_ in the environment fixes
#: (it turns off the threshold's growth), and its largest on 64-bit
_MMAP_DEFAULT, _MMAP_MAX = 128 * 1024, 32 * 1024 * 1024
#: seconds a worker keeps its heap after its last task of a run ends: the run's next task
#: arrives within milliseconds, and each task would otherwise map its chunk's memory anew
HEAP_GRACE = 1.0
_heap_lock = threading.Lock()
_heap_users = 0
_heap_kept_now = False
_heap_timer: threading.Timer | None = None


@contextlib.contextmanager
def _heap_kept() -> Iterator[None]:
    """A task run with glibc's malloc keeping freed memory for the next chunk, on a worker
    started with ``MALLOC_TRIM_THRESHOLD_`` (as Dask's nanny starts every worker).

    That variable also fixes glibc's mmap threshold at 128 KiB, so every column of a chunk
    (1 MiB at 131,072 rows) is mapped from the kernel and returned to it when freed: two
    such workers spent 12-15 s of system time on 2,000,000 rows, against 2 s without the
    variable (docs/performance.md). While the worker runs these tasks the thresholds are
    glibc's defaults as they grow (mmap 32 MiB, trim 64 MiB); :data:`HEAP_GRACE` seconds
    after its last one ends (no other started meanwhile) they are set back to what the
    variable made them and ``malloc_trim`` returns the memory kept, which is what the
    variable is there for. Nothing changes on a worker without the variable or without
    glibc."""
    global _heap_users, _heap_kept_now, _heap_timer
    value = os.environ.get("MALLOC_TRIM_THRESHOLD_", "").strip()
    libc = _glibc() if value.isdigit() else None
    if libc is None:
        yield
        return
    with _heap_lock:
        _heap_users += 1
        if _heap_timer is not None:
            _heap_timer.cancel()
            _heap_timer = None
        if not _heap_kept_now:
            libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_MAX)
            libc.mallopt(_M_TRIM_THRESHOLD, 2 * _MMAP_MAX)
            _heap_kept_now = True
    try:
        yield
    finally:
        with _heap_lock:
            _heap_users -= 1
            if _heap_users == 0:
                _heap_timer = threading.Timer(HEAP_GRACE, _heap_given_back, (libc, int(value)))
                _heap_timer.daemon = True
                _heap_timer.start()


def _heap_given_back(libc: Any, trim: int) -> None:
    """The worker's thresholds as its variables set them; the memory kept returned."""
    global _heap_kept_now, _heap_timer
    with _heap_lock:
        if _heap_users or not _heap_kept_now:  # a task started meanwhile: it keeps it
            return
        mmap = os.environ.get("MALLOC_MMAP_THRESHOLD_", "").strip()
        libc.mallopt(_M_TRIM_THRESHOLD, trim)
        libc.mallopt(_M_MMAP_THRESHOLD, int(mmap) if mmap.isdigit() else _MMAP_DEFAULT)
        libc.malloc_trim(0)
        _heap_kept_now, _heap_timer = False, None


def _heap_settled() -> None:
    """Wait for a pending :func:`_heap_given_back` (tests)."""
    timer = _heap_timer
    if timer is not None:
        timer.join()


def _glibc() -> Any:
    """The process's C library, if it is glibc (``mallopt`` and ``malloc_trim``)."""
    import ctypes
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        return libc
    except (OSError, AttributeError):  # pragma: no cover - not glibc after all
        return None


class EarlyClient:
    """The run's Dask client, connected (or its local cluster started) in a background
    thread from the moment the command knows it will run on Dask, and each worker warmed
    up (:func:`_warm_up`), while the command hashes the input and plans the layout.

    :meth:`get` waits for it (and raises what connecting raised); :meth:`close` closes
    the client and the cluster it started, whether or not it was used."""

    def __init__(self, scheduler: str | None) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._stack = contextlib.ExitStack()
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="nj-dask-client")
        self._future = self._pool.submit(self._open, scheduler)

    def _open(self, scheduler: str | None) -> Any:
        client = self._stack.enter_context(_client(scheduler))
        client.run(_warm_up)
        return client

    def get(self) -> Any:
        return self._future.result()

    def close(self) -> None:
        try:
            self._future.result()
        except BaseException:  # reported by get(), if it was asked for
            pass
        finally:
            self._pool.shutdown()
            self._stack.close()

    def __enter__(self) -> EarlyClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def _client(scheduler: str | None) -> Iterator[Any]:
    try:
        distributed: Any = importlib.import_module("distributed")
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ScenarioError(
            "the dask engine needs the optional extra: pip install 'nj-incentives[dask]'"
        ) from error
    if scheduler:
        with distributed.Client(scheduler, set_as_default=False) as client:
            yield client
        return
    # The command's own cluster runs in this process: one worker, a thread per core. A
    # cluster of worker processes costs more to start than it saves on one machine (each
    # process and its nanny start an interpreter and import distributed, pandas, pyarrow
    # and this package: 2,000,000 rows took 1.42x the pandas engine that way, 0.78x in
    # threads, whose numpy, Arrow and Parquet work releases the GIL; docs/performance.md).
    # Worker processes: start a cluster and pass its address (--scheduler).
    with (
        distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=os.cpu_count() or 1,
            processes=False,
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        yield client


def run_parquet_to_file(
    source: Path,
    target: Path,
    fmt: str,
    layout: Any,
    total: int,
    *,
    money: Money,
    keep: Sequence[str],
    scheduler: str | None,
    partitions: int | None,
    batch_rows: int,
    groups: Sequence[int],
    stamp: dict[str, Any],
    early: EarlyClient | None = None,
    stamped: Callable[[], None] | None = None,
) -> tuple[int, int, bytes, list[tuple[int, Any, str]]]:
    """Run a Parquet table on Dask workers into ``target`` (CSV or Parquet); the rows,
    rows with errors, the summary CSV's bytes (merged and written by a worker) and the
    first failed rows (row number, id, error). ``layout``: a :class:`~.columns.Layout`,
    or the future of :func:`plan_file`'s (layout, rows) on the client's cluster
    (:func:`plan_on_cluster`). ``groups``:
    the rows of each of the input's row groups (:func:`file_outline`). ``early``: the
    client the command started connecting before (its ``scheduler``). ``stamped``:
    called once every part is done, before ``stamp`` goes in the file (the command fills
    in the input's hash, computed meanwhile)."""
    parts_dir = Path(
        tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".parts")
    )
    opened = contextlib.nullcontext(early.get()) if early is not None else _client(scheduler)
    try:
        with opened as client:
            threads = sum(client.nthreads().values()) or 1
            tasks = _tasks(source, parts_dir, partitions or 2 * threads, batch_rows, groups)
            futures = client.map(
                run_part,
                tasks,
                fmt=fmt,
                layout=layout,
                total=total,
                money=money,
                keep=list(keep),
                pure=False,
            )
            # the client fetches each part's counts only: the parts' summaries (a sample
            # of every column, 39 MB at 1,000,000 rows) are merged on a worker
            outcomes = client.map(_outcome, futures, pure=False)
            summary = client.submit(_summary_csv, futures, pure=False)
            # each part is joined as soon as it and the parts before it are done, while
            # the workers compute the later ones
            done: list[dict[str, Any]] = []
            with _Joiner(target, fmt) as joiner:
                for task, outcome in zip(tasks, outcomes, strict=True):
                    done.append(outcome.result())
                    joiner.add(task)
                rows = sum(d["rows"] for d in done)
                errors = sum(d["errors"] for d in done)
                if rows != total:
                    raise ScenarioError(f"{source}: the file changed during the run; run it again")
                if stamped is not None:
                    stamped()
                joiner.stamp = stamp | {"rows": rows, "rows_with_errors": errors}
            summary_csv: bytes = summary.result()
        failed = [f for d in done for f in d["failed"]][:5]
        return rows, errors, summary_csv, failed
    finally:
        shutil.rmtree(parts_dir, ignore_errors=True)


class _Joiner:
    """The parts, in row order, appended to one file as they arrive (CSV byte for byte;
    Parquet row groups as the bytes the workers encoded, :mod:`.parquet_join`); each part
    is removed once joined. The first part becomes the file (renamed: its bytes are not
    copied; the parts are written beside the output). ``stamp``, when set,
    goes in the Parquet file's metadata (key ``nj_incentives``). A Parquet part whose
    schema is not the first part's is cast to it, as the pandas engine casts every chunk
    to its first chunk's schema."""

    def __init__(self, target: Path, fmt: str) -> None:
        self.target, self.fmt = target, fmt
        self.stamp: dict[str, Any] | None = None
        self._csv: Appender | None = None
        self._parquet: ParquetJoiner | None = None
        self._schema: Any = None

    def __enter__(self) -> _Joiner:
        if self.fmt != "csv":
            self._parquet = ParquetJoiner(self.target)
        return self

    def add(self, task: Part) -> None:
        path = Path(task.path)
        if self.fmt == "csv":
            if self._csv is None:
                path.replace(self.target)
                self._csv = Appender(self.target, self.target.stat().st_size)
                return
            with path.open("rb") as part:
                self._csv.copy_from(part, 0, os.fstat(part.fileno()).st_size)
        elif self._parquet is not None and path.exists():  # a part with no rows: no file
            try:
                try:
                    self._parquet.add(path, move=True)
                except SchemaMismatch:
                    cast = _cast_part(path, self._first_schema())
                    try:
                        self._parquet.add(cast, cast=True)
                    finally:
                        cast.unlink()
            except JoinError as error:
                raise ScenarioError(f"{task.path}: {error}") from error
        path.unlink(missing_ok=True)

    def _first_schema(self) -> Any:
        """The first part's Arrow schema, read from its footer as it was (pyarrow
        imported only for a part to cast)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._schema is None and self._parquet is not None:
            footer = pa.BufferReader(self._parquet.first_part_footer())
            self._schema = pq.read_schema(footer)
        return self._schema

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if self.fmt == "csv":
            if self._csv is None:  # no part: an empty file
                self.target.write_bytes(b"")
            else:
                self._csv.close()
        if self._parquet is not None:
            if exc_type is not None:
                self._parquet.abort()
                return
            text = None
            if self.stamp is not None:
                text = {"nj_incentives": json.dumps(self.stamp, sort_keys=True, default=str)}
            self._parquet.close(text)


def _cast_part(path: Path, schema: Any) -> Path:
    """A part's row groups cast to ``schema`` (the first part's), encoded again."""
    import pyarrow.parquet as pq

    from nj_incentives.scenarios.io import parquet_options

    cast = path.with_name(path.name + ".cast")
    source = pq.ParquetFile(path)
    with pq.ParquetWriter(cast, schema, **parquet_options(schema)) as writer:
        for group in range(source.num_row_groups):
            writer.write_table(source.read_row_group(group).cast(schema))
    return cast
