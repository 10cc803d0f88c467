"""Dask file-to-file runs: the workers read, compute and write their partitions.

For ``nj-incentives scenarios IN.parquet -o OUT.{parquet,csv} --engine dask``: the
client plans the layout from the few columns that decide it (as a streaming run does,
:func:`~.stream.plan_layout_streaming`) and cuts the input's row groups into tasks,
about two per worker thread. Each task runs on a worker: it reads its rows from the
input file itself, computes them chunk by chunk with the same kernel, and writes them
to a part file beside the output, returning only its counts, its first failed rows and
its part of the summary (:class:`~.analysis.SummaryBuilder`). No table goes through
the client. The client then joins the parts in row order into the output (Parquet
row group by row group, CSV byte for byte) and removes them. The results are the same
file as the pandas engine's streaming run.

The input and output paths must be the same for the client and every worker (a shared
folder on a cluster). ``scheduler``: a distributed scheduler address
(``tcp://host:8786``); without one, a local cluster of one single-threaded worker
process per core is started for the run.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nj_incentives.scenarios.analysis import SummaryBuilder
from nj_incentives.scenarios.columns import Layout, ScenarioError
from nj_incentives.scenarios.runner import Money

__all__ = ["Part", "run_parquet_to_file"]


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


def _tasks(source: Path, parts_dir: Path, wanted: int, batch_rows: int) -> list[Part]:
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(source).metadata
    groups = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
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
    layout: Layout,
    total: int,
    money: Money,
    keep: Sequence[str],
) -> dict[str, Any]:
    """A worker's task: read, compute and write one part; its counts and summary."""
    import pyarrow.parquet as pq

    from nj_incentives.scenarios.io import CsvWriter, ParquetWriter
    from nj_incentives.scenarios.runner import run_scenarios
    from nj_incentives.scenarios.stream import PARQUET_READ, batch_frame, row_ids

    builder = SummaryBuilder(total)
    writer: Any = CsvWriter(Path(part.path), header=part.first_row == 0) if fmt == "csv" else None
    writer = writer or ParquetWriter(Path(part.path))
    rows = errors = 0
    failed: list[tuple[int, Any, str]] = []
    file = pq.ParquetFile(part.source, **PARQUET_READ)
    try:
        batches = file.iter_batches(batch_size=part.batch_rows, row_groups=[part.group])
        for i, batch in enumerate(batches):
            if i < part.first:
                continue
            if i >= part.last:
                break
            frame = batch_frame(batch, "parquet")
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
    workers = os.cpu_count() or 1
    with (
        distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        yield client


def run_parquet_to_file(
    source: Path,
    target: Path,
    fmt: str,
    layout: Layout,
    total: int,
    *,
    money: Money,
    keep: Sequence[str],
    scheduler: str | None,
    partitions: int | None,
    batch_rows: int,
    stamp: dict[str, Any],
) -> tuple[int, int, SummaryBuilder, list[tuple[int, Any, str]]]:
    """Run a Parquet table on Dask workers into ``target`` (CSV or Parquet); the rows,
    rows with errors, the summary and the first failed rows (row number, id, error)."""
    parts_dir = Path(
        tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".parts")
    )
    try:
        with _client(scheduler) as client:
            threads = sum(client.nthreads().values()) or 1
            tasks = _tasks(source, parts_dir, partitions or 2 * threads, batch_rows)
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
            done = client.gather(futures)
        rows = sum(d["rows"] for d in done)
        errors = sum(d["errors"] for d in done)
        if rows != total:
            raise ScenarioError(f"{source}: the file changed during the run; run it again")
        summary = SummaryBuilder.merged([d["summary"] for d in done])
        failed = [f for d in done for f in d["failed"]][:5]
        _join(tasks, target, fmt, stamp | {"rows": rows, "rows_with_errors": errors})
        return rows, errors, summary, failed
    finally:
        shutil.rmtree(parts_dir, ignore_errors=True)


def _join(tasks: list[Part], target: Path, fmt: str, stamp: dict[str, Any]) -> None:
    """The parts, in row order, as one file."""
    if fmt == "csv":
        with target.open("wb") as out:
            for task in tasks:
                with open(task.path, "rb") as part:
                    shutil.copyfileobj(part, out, 1 << 20)
        return
    import json

    import pyarrow.parquet as pq

    from nj_incentives.scenarios.io import parquet_options

    writer: Any = None
    try:
        for task in tasks:
            file = pq.ParquetFile(task.path)
            if writer is None:
                schema = file.schema_arrow
                writer = pq.ParquetWriter(target, schema, **parquet_options(schema))
            for g in range(file.metadata.num_row_groups):
                writer.write_table(file.read_row_group(g))
    finally:
        if writer is not None:
            writer.add_key_value_metadata(
                {"nj_incentives": json.dumps(stamp, sort_keys=True, default=str)}
            )
            writer.close()
