"""File-to-file scenario runs in chunks: memory does not grow with the number of rows.

A table read from a CSV or Parquet file is run chunk by chunk: each chunk is read,
computed by :func:`~nj_incentives.scenarios.runner.run_scenarios` and written to the
results file (:class:`~nj_incentives.scenarios.io.CsvWriter`,
:class:`~.io.ParquetWriter`, or an XLSX sheet in xlsxwriter's constant-memory mode)
before the next is read. The result columns (periods, tax years) must be the same for
every chunk, so a first pass reads only the columns that decide them (``periods``,
``accrual_year``, ``approval_date``) and counts the rows (for a Parquet file, its
statistics prove the plan without that pass where they can: :func:`_layout_by_statistics`);
the results are the same, row for row, as those of the whole table in memory. The
summary comes from the same pass (:class:`~nj_incentives.scenarios.analysis.SummaryBuilder`).

A CSV file is read with pyarrow by the in-memory reader's rules
(:func:`~nj_incentives.scenarios.io.read_csv_table`): every input column as text, read
by the input rules (:mod:`.convert`); a field blank only when empty; text kept as
written. The other columns' types are inferred from the file's first
:data:`CSV_TYPES_BYTES`; if a later row does not fit them, :class:`CannotStream` is
raised before anything is written, and the caller runs the table in memory instead.

Memory: pyarrow's streaming CSV reader reads up to 32 blocks ahead of the consumer in a
background thread (Arrow's background generator) and decodes some more, so its memory
is that many blocks: with 16 MiB blocks it grew with the file up to about 650 MiB, the
whole of a 258 MB file. The blocks are therefore small (:data:`CSV_BLOCK_BYTES`) and
gathered into chunks of :data:`STREAM_ROWS` rows; the types are still inferred from
the same first 16 MiB as before, read once from a copy of the file's head.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from nj_incentives.scenarios.errors import ScenarioError

if TYPE_CHECKING:  # pandas and the columns' declarations are imported where they are
    # used: the Dask engine's client reads this module's constants and imports neither
    import pandas as pd

    from nj_incentives.scenarios.analysis import SummaryBuilder
    from nj_incentives.scenarios.columns import Layout
    from nj_incentives.scenarios.runner import Money

__all__ = [
    "STREAM_ROWS",
    "CannotStream",
    "StreamReader",
    "plan_layout_streaming",
    "stream_results",
    "table_columns",
]

#: Rows per chunk of a streaming run (Parquet batches; CSV blocks are sized in bytes).
STREAM_ROWS = 131_072
#: Buffered, unprefetched Parquet reading: pyarrow still decodes a row group at a time
#: (so a streaming run's memory follows the input's row-group size, not its row count),
#: but without holding its raw pages as well (about half the peak).
PARQUET_READ: dict[str, Any] = {"buffer_size": 1 << 20, "pre_buffer": False}
#: Bytes per block of a streamed CSV file: pyarrow's reader holds up to 32 blocks read
#: ahead and a few decoded (about 40 MiB at 1 MiB a block, whatever the file's size).
CSV_BLOCK_BYTES = 1 << 20
#: The CSV's non-input columns' types are inferred from its first this many bytes.
CSV_TYPES_BYTES = 16 << 20
_LAYOUT_COLUMNS = ("periods", "accrual_year", "approval_date")


class CannotStream(Exception):
    """The file cannot be read in chunks with one set of column types: run in memory."""


@dataclass
class StreamReader:
    """Chunks of a CSV or Parquet scenario table as pandas frames."""

    path: Path
    fmt: str  # "csv" or "parquet"
    chunk_rows: int = STREAM_ROWS
    _head: Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.fmt == "parquet":
            import pyarrow.parquet as pq

            try:
                self._names = [str(n) for n in pq.ParquetFile(self.path).schema_arrow.names]
            except Exception as error:  # pyarrow raises several kinds for a bad file
                message = f"{self.path}: cannot read the scenario table ({error})"
                raise ScenarioError(message) from None
        else:
            self._names = self._csv_names()
        self.columns = table_columns(self._names)
        if self.fmt == "csv":
            self._types = self._csv_types()
            self._head = None  # not needed again

    # ------------------------------------------------------------------ CSV

    def _csv_head(self) -> Any:
        """The file's first :data:`CSV_TYPES_BYTES` and a block beyond them, in memory: the
        column names and types are read from it, so that a reader opened for them does
        not read the rest of the file ahead (32 blocks)."""
        import pyarrow as pa

        if self._head is None:
            try:
                with open(self.path, "rb") as file:
                    self._head = pa.py_buffer(file.read(CSV_TYPES_BYTES + CSV_BLOCK_BYTES))
            except OSError as error:
                raise CannotStream(str(error)) from None
        return pa.BufferReader(self._head)

    def _csv_names(self) -> list[str]:
        import pyarrow as pa
        import pyarrow.csv as pacsv

        try:
            # a block within the head's first CSV_TYPES_BYTES: one that held the whole
            # head would end in the row the head cuts
            options = pacsv.ReadOptions(block_size=min(1 << 16, CSV_TYPES_BYTES))
            with pacsv.open_csv(self._csv_head(), read_options=options) as reader:
                return [str(n) for n in reader.schema.names]
        except pa.ArrowInvalid as error:
            raise CannotStream(str(error)) from None

    def _csv_batches(self, include: Sequence[str] | None = None) -> Iterator[Any]:
        import pyarrow as pa
        import pyarrow.csv as pacsv

        convert = pacsv.ConvertOptions(
            column_types=self._types,
            null_values=[""],  # blank only when empty: NaN or #N/A text is not a blank
            strings_can_be_null=True,
            include_columns=[r for r in self._names if r.strip() in include]
            if include is not None
            else None,
        )
        options = pacsv.ReadOptions(block_size=CSV_BLOCK_BYTES)
        try:
            with pacsv.open_csv(self.path, read_options=options, convert_options=convert) as reader:
                yield from _gathered(reader, self.chunk_rows)
        except pa.ArrowInvalid as error:
            raise CannotStream(str(error)) from None

    def _csv_types(self) -> dict[str, Any]:
        """Every column's type: the input columns text (their numbers are read by the
        input rules, not parsed before them: 1e-999999999 as 0.0, True and 0 as TRUE and
        FALSE), the others as pyarrow infers them from the file's first block of
        :data:`CSV_TYPES_BYTES` (:meth:`_csv_head`)."""
        import pyarrow as pa
        import pyarrow.csv as pacsv

        from nj_incentives.scenarios.columns import input_spec

        text = {raw: pa.string() for raw in self._names if input_spec(raw.strip()) is not None}
        convert = pacsv.ConvertOptions(
            column_types=text, null_values=[""], strings_can_be_null=True
        )
        options = pacsv.ReadOptions(block_size=CSV_TYPES_BYTES)
        try:
            # a tail beyond the block: the block ends where the file's first would
            with pacsv.open_csv(
                self._csv_head(), read_options=options, convert_options=convert
            ) as reader:
                return {field.name: field.type for field in reader.schema}
        except pa.ArrowInvalid as error:
            raise CannotStream(str(error)) from None

    # ------------------------------------------------------------------ both

    def _batches(self, include: Sequence[str] | None = None) -> Iterator[Any]:
        if self.fmt == "csv":
            yield from self._csv_batches(include)
            return
        import pyarrow.parquet as pq

        file = pq.ParquetFile(self.path, **PARQUET_READ)
        columns = [r for r in self._names if r.strip() in include] if include is not None else None
        yield from file.iter_batches(batch_size=self.chunk_rows, columns=columns)

    def frames(self, include: Sequence[str] | None = None) -> Iterator[pd.DataFrame]:
        """The table (or only the columns ``include``) as frames of about a chunk each."""
        for batch in self._batches(include):
            yield batch_frame(batch, self.fmt)

    def count_rows(self) -> int:
        if self.fmt == "parquet":
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(self.path).metadata.num_rows)
        return sum(len(f) for f in self.frames(self.columns[:1]))


def table_columns(names: Sequence[str]) -> list[str]:
    """A file's column names as the run reads them (trimmed); :class:`CannotStream` for
    blank or repeated ones (the in-memory reader names them)."""
    found = [str(n).strip() for n in names]
    if any(not n for n in found) or len(set(found)) != len(found):
        raise CannotStream("blank or repeated column names")
    return found


def _gathered(batches: Iterator[Any], rows: int) -> Iterator[Any]:
    """Small record batches gathered into tables of ``rows`` rows (the last fewer), in
    order, without copying them."""
    import pyarrow as pa

    pending: list[Any] = []
    have = 0
    for batch in batches:
        pending.append(batch)
        have += batch.num_rows
        while have >= rows:
            table = pa.Table.from_batches(pending)
            yield table.slice(0, rows)
            rest = table.slice(rows)
            pending, have = rest.to_batches(), rest.num_rows
    if have:
        yield pa.Table.from_batches(pending)


def batch_frame(batch: Any, fmt: str, threads: bool = True) -> pd.DataFrame:
    """A pyarrow record batch of the table as a pandas frame (names trimmed; text as
    written, as the in-memory reader reads it: a label " =1+1" keeps its space).
    ``threads``: False converts it in this thread (a Dask worker's task)."""
    import pyarrow as pa

    table = batch if isinstance(batch, pa.Table) else pa.Table.from_batches([batch])
    frame: pd.DataFrame = table.to_pandas(use_threads=threads)
    frame.columns = [str(c).strip() for c in frame.columns]
    if fmt == "csv":  # its input columns are text: read once where they read exactly
        from nj_incentives.scenarios.convert import numbers_from_text

        frame = numbers_from_text(frame)
    return frame


def plan_layout_streaming(reader: StreamReader, detail: bool) -> tuple[Layout, int]:
    """The layout of the whole table, and its number of rows, from one pass over the
    columns that decide it (the same layout as ``plan_layout`` of the whole table); for
    a Parquet file, from its statistics where they prove it (:func:`_layout_by_statistics`)."""
    import pandas as pd

    from nj_incentives.scenarios.runner import plan_layout

    base = plan_layout(pd.DataFrame(columns=reader.columns), detail)
    wanted = [c for c in _LAYOUT_COLUMNS if c in reader.columns]
    if not wanted:
        return base, reader.count_rows()
    if reader.fmt == "parquet":
        proved = _layout_by_statistics(reader, wanted, base)
        if proved is not None:
            return proved, reader.count_rows()
    periods, first, last, rows = base.periods, base.first_tax_year, base.last_tax_year, 0
    for frame in reader.frames(wanted):
        rows += len(frame)
        part = plan_layout(frame, detail)
        periods = max(periods, part.periods)
        first, last = min(first, part.first_tax_year), max(last, part.last_tax_year)
    layout = replace(
        base,
        periods=periods if "ertc" in base.sections else 0,
        first_tax_year=first,
        last_tax_year=last,
    )
    return layout, rows


#: The most rows the statistics' box may have (:func:`_layout_by_statistics`): 18 accrual
#: years by 1,200 approval days by one ``periods`` value is 21,600 rows, planned in 10 ms.
BOX_ROWS = 200_000


def _layout_by_statistics(reader: StreamReader, wanted: list[str], base: Layout) -> Layout | None:
    """The layout :func:`plan_layout_streaming` reads from the rows, proved from the
    Parquet file's statistics without reading them; None where they do not prove it.

    Each row adds to the layout what its own values of the ``wanted`` columns read as
    (the largest usable ``periods``; the first and last tax year of a conversion), so
    the layout of every combination of the values the statistics allow (the box: each
    integer from a column's min to its max, each day from a timestamp column's first day
    to its last, a blank where the column has nulls) contains the rows' layout. Where
    the box adds no tax year to the names' 2017-2025 (or whatever ``base`` spans), the
    rows add none either. Where it adds periods, the rows have them if a row holds the
    box's largest usable ``periods``, looked for in that column alone (the statistics
    are bounds: a writer may store a bound that is no row's value). A column of another
    type (text, floats, dates read as objects, time zones), a row group without
    statistics, or a box of more than :data:`BOX_ROWS` rows: None."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from nj_incentives.scenarios.runner import plan_layout

    file = pq.ParquetFile(reader.path)
    meta, schema = file.metadata, file.schema_arrow
    raw = {r.strip(): r for r in reader._names}
    leaves = [meta.schema.column(i).path for i in range(meta.num_columns)]
    arrays: dict[str, Any] = {}
    choices: list[tuple[str, Any, np.ndarray, bool]] = []
    size = 1
    for name in wanted:
        field = schema.field(raw[name])
        if raw[name] not in leaves:
            return None
        index = leaves.index(raw[name])
        kind = field.type
        if not (pa.types.is_integer(kind) or (pa.types.is_timestamp(kind) and kind.tz is None)):
            return None
        low: Any = None
        high: Any = None
        nulls = False
        for g in range(meta.num_row_groups):
            chunk = meta.row_group(g).column(index)
            stats = chunk.statistics
            if stats is None or not stats.has_null_count:
                return None
            nulls |= stats.null_count > 0
            if stats.null_count == chunk.num_values:
                continue  # every value blank: no extremes
            if not stats.has_min_max:
                return None
            low = stats.min if low is None else min(low, stats.min)
            high = stats.max if high is None else max(high, stats.max)
        if low is None:
            values = np.array([], dtype=np.int64)
        elif pa.types.is_integer(kind):
            values = np.arange(int(low), int(high) + 1, dtype=np.int64)
        else:  # every day a value can read as (a time of day reads as its day)
            days = np.arange(np.datetime64(low, "D"), np.datetime64(high, "D") + 1)
            values = days.astype(f"datetime64[{kind.unit}]")
        size *= len(values) + nulls
        if size > BOX_ROWS:
            return None
        choices.append((raw[name], kind, values, nulls))
    if size == 0:
        return base
    grids = np.meshgrid(*[np.arange(len(v) + n) for _, _, v, n in choices], indexing="ij")
    for (column, kind, values, _nulls), grid in zip(choices, grids, strict=True):
        at = grid.ravel()
        blank = at >= len(values)
        picked = values[np.where(blank, 0, at)] if len(values) else np.zeros(len(at), np.int64)
        arrays[column] = pa.array(picked, type=kind, mask=blank)
    box = plan_layout(batch_frame(pa.table(arrays), "parquet"), base.detail)
    years = (
        min(base.first_tax_year, box.first_tax_year),
        max(base.last_tax_year, box.last_tax_year),
    )
    if years != (base.first_tax_year, base.last_tax_year):
        return None
    periods = max(base.periods, box.periods)
    if periods != base.periods:
        if "periods" not in raw or "ertc" not in base.sections:
            return None
        column = raw["periods"]
        index = leaves.index(column)
        found = False
        for g in range(meta.num_row_groups):
            stats = meta.row_group(g).column(index).statistics
            if stats.has_min_max and stats.min <= periods <= stats.max:
                values = file.read_row_group(g, columns=[column]).column(0)
                if pc.any(pc.equal(values, periods)).as_py():
                    found = True
                    break
        if not found:
            return None
    return replace(base, periods=periods if "ertc" in base.sections else 0)


def row_ids(start: int, n: int) -> np.ndarray:
    """The default ``id`` of rows ``start`` .. ``start + n - 1`` (from 1, as in memory)."""
    return np.arange(start + 1, start + n + 1)


def stream_results(
    reader: StreamReader,
    layout: Layout,
    total: int,
    write: Callable[[pd.DataFrame], None],
    *,
    money: Money = "float",
    keep: Sequence[str] = (),
    progress: bool = False,
    progress_delay: float = 0.0,
) -> tuple[int, int, SummaryBuilder]:
    """Run the table chunk by chunk, handing each chunk's results to ``write``; the
    rows, the rows with errors and the summary of the whole run."""
    from nj_incentives.scenarios.analysis import SummaryBuilder
    from nj_incentives.scenarios.runner import run_scenarios

    builder = SummaryBuilder(total)
    done = errors = 0
    bar: Any = None
    if progress:
        from nj_incentives.support.progress import bar as progress_bar

        bar = progress_bar(total, progress_delay, desc="scenarios", unit="row", unit_scale=True)
    try:
        for frame in reader.frames():
            if "id" not in frame.columns:
                frame.insert(0, "id", row_ids(done, len(frame)))
            results = run_scenarios(
                frame, money=money, detail=layout.detail, keep=keep, layout=layout
            )
            write(results)
            builder.add(results, done)
            errors += int(results["error"].notna().sum())
            done += len(results)
            if bar is not None:
                bar.update(len(results))
    finally:
        if bar is not None:
            bar.close()
    if done == 0:
        raise CannotStream("no rows")
    if done != total:  # the file changed under the run
        raise ScenarioError(f"{reader.path}: the file changed during the run; run it again")
    return done, errors, builder
