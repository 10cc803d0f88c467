"""Reading scenario tables and writing results: CSV, XLSX, Parquet; atomically; stamped.

- Reading by extension: ``.csv``, ``.xlsx`` / ``.xlsm`` (python-calamine: cells are read,
  nothing in the workbook is executed; the first sheet unless one is named),
  ``.parquet`` / ``.pq``.
- Writing by extension. Every file is written to a temporary file in the same directory,
  then moved into place with ``os.replace`` (atomic on one file system): a reader never
  sees half a file, and a failed run leaves the old file untouched. No output may be an
  input of the run (the table or a spec file): the writer refuses.
- The stamp (package version, law currency, hashes of the inputs, the Monte Carlo seed,
  the engagement: client, entity id, period, preparer, reviewer, date)
  goes into the XLSX as the sheet "Run", into the Parquet file's key-value metadata under
  the key ``nj_incentives`` (written when the file is closed), and beside a CSV as
  ``<stem>.json``.
- CSV: every text field quoted; formula-leading text in headers and values neutralised,
  also after a CR or LF inside a value (:mod:`nj_incentives.support.csv_safety`); money to the
  cent. XLSX text is always written as text (never as a formula).
- The writers (:class:`CsvWriter`, :class:`ParquetWriter`) take the results chunk by
  chunk, so that a streaming run (:mod:`~.stream`) writes as it computes.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nj_incentives.scenarios.analysis import Tornado, charted, format_value, label, unit
from nj_incentives.scenarios.columns import ScenarioError
from nj_incentives.scenarios.paths import (
    FORMATS,
    claim_outputs,
    file_sha256,
    format_of,
    refuse_inputs,
    write_stamp_json,
)
from nj_incentives.support.csv_safety import neutralise_arrow, neutralise_text
from nj_incentives.support.files import atomic_write

__all__ = [
    "FORMATS",
    "Outputs",
    "claim_outputs",
    "file_sha256",
    "format_of",
    "neutralise_csv",
    "parquet_options",
    "read_table",
    "refuse_inputs",
    "write_results",
    "xlsx_warning",
]

#: Rows an XLSX sheet holds below its header (Excel's limit is 1,048,576 rows).
XLSX_MAX_ROWS = 1_048_575
#: Above this many rows an XLSX output is warned about (docs/scenarios.md): XLSX writes
#: every cell as XML, about 45 times slower than Parquet (200,000 rows of 94 columns:
#: minutes, against seconds), and Excel opens it slowly.
XLSX_WARN_ROWS = 50_000
#: Rows between two progress reports of an XLSX write.
XLSX_PROGRESS_ROWS = 10_000


def xlsx_warning(rows: int, output: Path) -> str | None:
    """The warning for an XLSX output of ``rows`` rows (None up to :data:`XLSX_WARN_ROWS`)."""
    if rows <= XLSX_WARN_ROWS:
        return None
    stem = Path(output).with_suffix("")
    return (
        f"warning: {rows:,} rows to XLSX (more than {XLSX_WARN_ROWS:,}) take minutes to write"
        f" and to open; {stem}.parquet or {stem}.csv writes them in seconds (add"
        " --totals-only to leave out the per-year columns)"
    )


# ======================================================================= reading


def read_table(path: Path, sheet: str | None = None) -> pd.DataFrame:
    """A scenario table from a CSV, XLSX or Parquet file (see the module docstring)."""
    if not path.is_file():
        raise ScenarioError(f"input file not found: {path}")
    fmt = format_of(path)
    if sheet is not None and fmt != "xlsx":
        raise ScenarioError("--sheet applies to XLSX input only")
    try:
        if fmt == "csv":
            frame = read_csv_table(path)
        elif fmt == "xlsx":
            frame = _read_xlsx(path, sheet)
        else:
            import pyarrow.parquet as pq

            refuse_repeated_columns(pq.read_schema(path).names)
            frame = pd.read_parquet(path)
    except ScenarioError:
        raise
    except (ValueError, OSError, KeyError) as error:
        raise ScenarioError(f"{path}: cannot read the scenario table ({error})") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    unnamed = [c for c in frame.columns if c.startswith("Unnamed:")]
    for column in unnamed:  # a trailing empty column in a spreadsheet export
        if frame[column].isna().all():
            frame = frame.drop(columns=column)
    return frame


def csv_header(path: Path) -> list[str]:
    """The first row of a CSV file: its column names as written."""
    import csv

    with path.open(newline="", encoding="utf-8-sig") as handle:
        return next(csv.reader(handle), [])


def read_csv_table(path: Path) -> pd.DataFrame:
    """A scenario CSV as pandas reads it, with one rule for blanks and text (the streaming
    reader's too, :mod:`.stream`): a field is blank only when empty (no word such as
    ``NA``, ``NaN`` or ``#N/A`` is taken for a blank), text is kept as written (a label
    ``" =1+1"`` keeps its space), and every input column is read as text, so that its
    numbers are read by the input rules (:mod:`.convert`), not parsed before them
    (``1e-999999999`` read as 0.0; ``True`` and ``0`` read as TRUE and FALSE)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from nj_incentives.scenarios.columns import input_spec
    from nj_incentives.scenarios.convert import numbers_from_text

    header = csv_header(path)
    refuse_repeated_columns(header)
    inputs = [name for name in header if input_spec(name.strip()) is not None]
    try:  # pyarrow's reader, as the streaming run's (a tenth of pandas' time for text)
        options = pacsv.ConvertOptions(
            column_types={name: pa.string() for name in inputs},
            null_values=[""],
            strings_can_be_null=True,
        )
        frame: pd.DataFrame = pacsv.read_csv(path, convert_options=options).to_pandas()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        # another column's types change down the file: pandas reads it whole
        text = dict.fromkeys(inputs, "str")
        frame = pd.read_csv(path, dtype=text, keep_default_na=False, na_values=[""])
    return numbers_from_text(frame)


def refuse_repeated_columns(names: Iterable[object]) -> None:
    """:class:`ScenarioError` naming the first column that appears twice (names compared
    as the runner reads them: without surrounding spaces), before a reader sees them (a
    Parquet reader otherwise fails with its whole schema as the message)."""
    seen: set[str] = set()
    for name in names:
        key = str(name).strip()
        if key in seen:
            raise ScenarioError(f"column {key!r} appears twice")
        seen.add(key)


#: The most cells (rows x columns) a scenario XLSX sheet may span: calamine allocates a
#: grid of that size (about 32 bytes a cell) before reading a value.
XLSX_MAX_AREA = 40_000_000


def _read_xlsx(path: Path, sheet: str | None) -> pd.DataFrame:
    """A workbook that may come from anyone: vetted first (zip bombs, XML entity tricks,
    malformed archives: :mod:`nj_incentives.workpapers.recalc.safety`), then its cells read from the
    vetted bytes; nothing in it is executed or followed."""
    from nj_incentives.workpapers.recalc.safety import Limits, UnsafeWorkbookError, vet_workbook

    mib = 1024 * 1024
    # the runner's documented limits for XLSX inputs (docs/scenarios.md, "Runner limits"):
    # checked on the declared and the actual extent before calamine allocates its grid
    limits = Limits(
        max_file_bytes=512 * mib,
        max_member_bytes=4096 * mib,
        max_total_bytes=8192 * mib,
        max_rows=1_048_576,
        max_columns=2_000,
        max_area=XLSX_MAX_AREA,
        max_cells=XLSX_MAX_AREA,
        max_formulas=XLSX_MAX_AREA,
        recalculating=False,  # only the saved values are read
    )
    try:
        vetted = vet_workbook(path, limits)
    except UnsafeWorkbookError as error:
        raise ScenarioError(f"{path}: {error}") from None
    # The cells as they are (dtype=object: TRUE/FALSE stays a boolean, text stays text),
    # then each column's type from its cells: pandas' own reading made a FALSE in a
    # column of numbers 0 and numeric text a number (issue 22: FALSE computed as 0.00).
    # A column of numbers with a TRUE/FALSE in it stays a column of cells, read by the
    # input rules (:mod:`.convert`): "must be a number, not TRUE/FALSE".
    frame = pd.read_excel(
        io.BytesIO(vetted.data), sheet_name=sheet or 0, engine="calamine", dtype=object
    )
    return frame.infer_objects()


# ======================================================================= writing


def neutralise_csv(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame as the CSV writer writes its text: formula-leading text (headers too)
    prefixed with an apostrophe (:mod:`nj_incentives.support.csv_safety`)."""
    out = frame.rename(columns=lambda c: neutralise_text(str(c)))
    for column in out.columns:
        series = out[column]
        if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
            out[column] = series.astype(object).map(
                lambda v: neutralise_text(v) if isinstance(v, str) else v
            )
    return out


# ----------------------------------------------------------------------- result writers


def _text_array(series: pd.Series) -> Any:
    """A text column as a pyarrow string array (blank: null; other objects: their str)."""
    import pyarrow as pa

    try:
        return pa.array(series, type=pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        values = [None if _blank(v) else str(v) for v in series.tolist()]
        return pa.array(values, type=pa.string())


def _blank(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def arrow_table(frame: pd.DataFrame, schema: Any = None) -> Any:
    """``frame`` as a pyarrow table: text columns as strings (an all-blank ``error``
    column stays a string column, so every chunk of a run has the same schema); with
    ``schema`` (the first chunk's), cast to it."""
    import pyarrow as pa

    arrays = []
    for name in frame.columns:
        series = frame[name]
        if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
            arrays.append(_text_array(series))
        else:
            arrays.append(pa.Array.from_pandas(series))
    table = pa.Table.from_arrays(arrays, names=[str(c) for c in frame.columns])
    # pandas' own metadata (nullable Int64 / boolean dtypes come back as they were)
    pandas_meta = pa.Schema.from_pandas(frame.iloc[:0], preserve_index=False).metadata
    table = table.replace_schema_metadata(pandas_meta)
    if schema is not None and not table.schema.equals(schema):
        table = table.cast(schema)
    return table


def money_columns(frame: pd.DataFrame) -> set[str]:
    """Result columns of money in float dollars (written to the cent in a CSV)."""
    from nj_incentives.scenarios.columns import input_spec

    return {
        str(c)
        for c in frame.columns
        if pd.api.types.is_float_dtype(frame[c].dtype)
        and str(c) not in _NOT_MONEY
        and input_spec(str(c)) is None
    }


_NOT_MONEY = {"ertc_sustained_effort_ratio"}


class CsvWriter:
    """Results written as CSV chunk by chunk (pyarrow's writer).

    Every text field is quoted (so a quote, comma, CR or LF never splits a row), text and
    headers are neutralised (:mod:`nj_incentives.support.csv_safety`), money columns are written
    to the cent (``1234.50``, never ``1.2345e+03``), blanks are empty fields.
    """

    def __init__(self, path: Path, money: Iterable[str] | None = None, header: bool = True) -> None:
        self.path = Path(path)
        self.header = header
        #: columns written to the cent (None: the result money columns of the first chunk)
        self.money = None if money is None else set(money)
        self.schema: Any = None
        self._writer: Any = None
        self._sink: Any = None

    def write(self, frame: pd.DataFrame) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as pacsv

        table = arrow_table(frame, self.schema)
        if self.schema is None:
            self.schema = table.schema
        if self.money is None:
            self.money = money_columns(frame)
        columns = []
        for name, column in zip(table.column_names, table.columns, strict=True):
            if pa.types.is_dictionary(column.type):  # a text result column: its text
                column = pc.cast(column, pa.string())
            if pa.types.is_string(column.type):
                column = neutralise_arrow(column)
            elif name in self.money and pa.types.is_floating(column.type):
                # the double nearest an amount in cents, written as that amount
                column = pc.cast(column, pa.decimal128(20, 2))
            columns.append(column)
        names = [neutralise_text(n) for n in table.column_names]
        out = pa.Table.from_arrays(columns, names=names)
        if self._writer is None:
            self._sink = open(self.path, "wb")  # noqa: SIM115 - closed in close()
            options = pacsv.WriteOptions(quoting_style="needed", include_header=self.header)
            self._writer = pacsv.CSVWriter(self._sink, out.schema, write_options=options)
        self._writer.write_table(out)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._sink is not None:
            self._sink.close()


def parquet_options(schema: Any) -> dict[str, Any]:
    """Options of every results Parquet file: dictionary encoding for the text columns
    only (the error column and the like, and the text result columns, which arrive as
    dictionary arrays: a version column is a few act names over every row). The money
    and ratio columns are nearly all distinct values, so a dictionary per column is built
    and then abandoned for each page: with it on every column, writing 400,000 x 93
    results took 2.39 s and 111 MB; text columns only, 1.07 s and 104 MB
    (docs/performance.md)."""
    import pyarrow as pa

    text = [
        f.name
        for f in schema
        if pa.types.is_string(f.type)
        or pa.types.is_large_string(f.type)
        or pa.types.is_dictionary(f.type)
    ]
    return {"use_dictionary": text, "compression": "snappy"}


class ParquetWriter:
    """Results written as Parquet row groups chunk by chunk; the stamp goes in the
    file's metadata (key ``nj_incentives``) when the writer closes."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.schema: Any = None
        self._writer: Any = None

    def write(self, frame: pd.DataFrame) -> None:
        import pyarrow.parquet as pq

        table = arrow_table(frame, self.schema)
        if self._writer is None:
            self.schema = table.schema
            self._writer = pq.ParquetWriter(
                self.path, table.schema, **parquet_options(table.schema)
            )
        self._writer.write_table(table)

    def close(self, stamp: Mapping[str, Any] | None = None) -> None:
        if self._writer is None:
            return
        if stamp is not None:
            text = json.dumps(stamp, sort_keys=True, default=str)
            self._writer.add_key_value_metadata({"nj_incentives": text})
        self._writer.close()


@dataclass
class Outputs:
    """Everything one run writes."""

    results: pd.DataFrame
    stamp: dict[str, Any]
    summary: pd.DataFrame
    tornado: Tornado | None = None
    distribution: pd.DataFrame | None = None
    target: str | None = None
    #: PNG renderers: file suffix -> function writing the PNG to a path
    pngs: Mapping[str, Callable[[Path], None]] | None = None


def planned_paths(output: Path, outputs: Outputs) -> list[Path]:
    """Every file a run will write."""
    fmt = format_of(output)
    paths = [output]
    stem = output.with_suffix("")
    if fmt == "csv":
        paths.append(Path(f"{stem}.json"))
    if fmt in ("csv", "parquet"):
        paths.append(Path(f"{stem}.summary.csv"))
    for suffix in outputs.pngs or {}:
        paths.append(Path(f"{stem}.{suffix}.png"))
    return paths


def write_results(
    output: Path,
    outputs: Outputs,
    inputs: Iterable[Path] = (),
    progress: Callable[[int], None] | None = None,
) -> list[Path]:
    """Write the results (and summary, stamp, charts) atomically; the paths written.
    ``progress``: called with the rows written so far while an XLSX sheet is written
    (every :data:`XLSX_PROGRESS_ROWS` rows)."""
    output = Path(output)
    fmt = format_of(output)
    paths = planned_paths(output, outputs)
    refuse_inputs(paths, inputs)
    output.parent.mkdir(parents=True, exist_ok=True)  # as calc and fill do
    stem = output.with_suffix("")
    if fmt == "csv":
        atomic_write(output, lambda p: write_csv(p, outputs.results))
        write_stamp_json(Path(f"{stem}.json"), outputs.stamp)
    elif fmt == "parquet":
        atomic_write(output, lambda p: _write_parquet(p, outputs.results, outputs.stamp))
    else:
        if len(outputs.results) > XLSX_MAX_ROWS:
            raise ScenarioError(
                f"{len(outputs.results):,} rows do not fit an Excel sheet"
                f" ({XLSX_MAX_ROWS:,}): write CSV or Parquet"
            )
        atomic_write(output, lambda p: _write_xlsx(p, outputs, progress))
    if fmt in ("csv", "parquet"):
        write_summary_csv(Path(f"{stem}.summary.csv"), outputs.summary)
    for suffix, render in (outputs.pngs or {}).items():
        atomic_write(Path(f"{stem}.{suffix}.png"), render)
    return paths


def write_csv(path: Path, frame: pd.DataFrame, money: Iterable[str] | None = None) -> None:
    """A frame as one CSV file (:class:`CsvWriter`); ``money``: the columns written to
    the cent (default: the result columns of money)."""
    writer = CsvWriter(path, money_columns(frame) if money is None else money)
    try:
        writer.write(frame)
    finally:
        writer.close()


def write_summary_csv(path: Path, summary: pd.DataFrame) -> None:
    atomic_write(path, lambda p: write_csv(p, summary, money=()))


def _write_parquet(path: Path, results: pd.DataFrame, stamp: Mapping[str, Any]) -> None:
    writer = ParquetWriter(path)
    try:
        writer.write(results)
    finally:
        writer.close(stamp)


# ----------------------------------------------------------------------- XLSX


def _cell(value: object) -> object:
    """A value as xlsxwriter takes it; None for a blank cell."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) or math.isinf(value) else float(value)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    return value


def _column_writer(worksheet: Any, series: pd.Series, formats: dict[str, Any], name: str) -> Any:
    """(cell values with None for a blank, the worksheet method, the format) of a column."""
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_integer_dtype(dtype):
        objects = series.astype(object)
        blank = series.isna().to_numpy()
        cells: list[Any] = objects.to_numpy().tolist()
        if blank.any():
            for i in np.flatnonzero(blank):
                cells[i] = None
        method = worksheet.write_boolean if pd.api.types.is_bool_dtype(dtype) else None
        return cells, method or worksheet.write_number, None
    if pd.api.types.is_float_dtype(dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        boxed = values.astype(object)
        boxed[~np.isfinite(values)] = None
        money = None if name in _NOT_MONEY else formats["money"]
        return boxed.tolist(), worksheet.write_number, money
    if pd.api.types.is_datetime64_any_dtype(dtype):
        cells = [None if _blank(v) else v.to_pydatetime() for v in series.tolist()]
        return cells, worksheet.write_datetime, formats["date"]
    cells = [_cell(v) for v in series.tolist()]

    def write_any(row: int, col: int, value: object, fmt: Any) -> None:
        if isinstance(value, bool):
            worksheet.write_boolean(row, col, value)
        elif isinstance(value, (int, float)):
            worksheet.write_number(row, col, value, formats["money"])
        elif hasattr(value, "year"):
            worksheet.write_datetime(row, col, value, formats["date"])
        else:
            worksheet.write_string(row, col, str(value))

    if all(v is None or isinstance(v, str) for v in cells):
        return cells, worksheet.write_string, None
    return cells, write_any, None


def _write_rows(
    worksheet: Any,
    frame: pd.DataFrame,
    first_row: int,
    formats: dict[str, Any],
    progress: Callable[[int], None] | None = None,
) -> None:
    """The frame's cells from ``first_row`` down, in row order (constant-memory mode);
    ``progress`` is called with the frame's rows written, every
    :data:`XLSX_PROGRESS_ROWS` rows."""
    step = XLSX_PROGRESS_ROWS
    for start in range(0, len(frame), step) if progress is not None else (0,):
        part = frame.iloc[start : start + step] if progress is not None else frame
        columns = [
            _column_writer(worksheet, part[name], formats, str(name)) for name in part.columns
        ]
        writers = [(c, method, fmt) for c, (_cells, method, fmt) in enumerate(columns)]
        for row, values in enumerate(
            zip(*(cells for cells, _m, _f in columns), strict=True), first_row + start
        ):
            for (c, method, fmt), value in zip(writers, values, strict=True):
                if value is not None:
                    method(row, c, value, fmt)
        if progress is not None:
            progress(start + len(part))


def _xlsx_formats(workbook: Any) -> dict[str, Any]:
    return {
        "header": workbook.add_format({"bold": True, "bg_color": "#DDEBF7", "text_wrap": True}),
        "money": workbook.add_format({"num_format": "#,##0.00"}),
        "date": workbook.add_format({"num_format": "yyyy-mm-dd"}),
        "bold": workbook.add_format({"bold": True}),
    }


class _ZipSink(io.RawIOBase):
    """The file xlsxwriter's zip is written to. After a failed write (a full disk) it
    takes no more: the zip's own clean-up (``ZipFile.__del__`` writing its end record)
    then cannot fail a second time and print a traceback; :meth:`failure` is the first
    error, which the writer raises."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self._file = open(path, "wb")  # noqa: SIM115 - closed in close()
        self.failure: OSError | None = None

    def _guard(self, action: Callable[[], Any], otherwise: Any) -> Any:
        if self.failure is not None:
            return otherwise
        try:
            return action()
        except OSError as error:
            self.failure = error
            raise

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def fileno(self) -> int:
        number: int = self._file.fileno()
        return number

    def write(self, data: Any) -> int:
        size = len(memoryview(data))
        if self._file.closed and self.failure is not None:
            return size
        written: int = self._guard(lambda: self._file.write(data), size)
        return written

    def tell(self) -> int:
        if self.failure is not None or self._file.closed:
            return 0
        where: int = self._file.tell()
        return where

    def seek(self, offset: int, whence: int = 0) -> int:
        if self.failure is not None or self._file.closed:  # the zip's clean-up, after all
            return 0
        where: int = self._file.seek(offset, whence)
        return where

    def flush(self) -> None:
        if not self._file.closed:
            self._guard(self._file.flush, None)

    def close(self) -> None:
        """Close the file; a failure to flush it is raised (once) and recorded."""
        if self._file.closed:
            super().close()
            return
        try:
            self._guard(self._file.close, None)
        finally:
            if not self._file.closed:  # a failed flush leaves it open
                with contextlib.suppress(OSError):
                    self._file.close()
            super().close()


class XlsxWriter:
    """Results written to an XLSX sheet "Results" chunk by chunk, in xlsxwriter's
    constant-memory mode (each row goes to disk once written: memory stays flat); then
    :meth:`finish` adds the sheets Summary, Charts (with a target) and Run.

    xlsxwriter's temporary files go to a folder of this writer's, removed when it
    finishes or fails; a failed write of the workbook (a full disk) is raised as the
    :class:`OSError` it is, not as xlsxwriter's ``FileCreateError``, and leaves no zip
    clean-up to fail again later (:class:`_ZipSink`)."""

    def __init__(self, path: Path, progress: Callable[[int], None] | None = None) -> None:
        import tempfile

        import xlsxwriter

        self._progress = progress
        self._tmpdir = tempfile.mkdtemp(prefix="nj-incentives-xlsx-")
        self._sink = _ZipSink(path)
        options = {"constant_memory": True, "strings_to_formulas": False, "tmpdir": self._tmpdir}
        self.workbook = xlsxwriter.Workbook(self._sink, options)
        self.formats = _xlsx_formats(self.workbook)
        self.sheet = self.workbook.add_worksheet("Results")
        self.rows = 0
        self.columns: list[str] | None = None

    def write(self, frame: pd.DataFrame) -> None:
        if self.columns is None:
            self.columns = [str(c) for c in frame.columns]
            self.sheet.write_row(0, 0, self.columns, self.formats["header"])
            if self.columns:
                self.sheet.set_column(0, len(self.columns) - 1, 14)
        if self.rows + len(frame) > XLSX_MAX_ROWS:
            raise ScenarioError(
                f"more than {XLSX_MAX_ROWS:,} rows do not fit an Excel sheet: write CSV or Parquet"
            )
        done = self.rows
        report = self._progress
        tick = None if report is None else (lambda rows: report(done + rows))
        _write_rows(self.sheet, frame, self.rows + 1, self.formats, tick)
        self.rows += len(frame)

    def finish(self, outputs: Outputs) -> None:
        if self.columns:
            self.sheet.freeze_panes(1, 1)
            self.sheet.autofilter(0, 0, max(self.rows, 1), len(self.columns) - 1)
        workbook, formats = self.workbook, self.formats
        summary = workbook.add_worksheet("Summary")
        summary.write_row(0, 0, [str(c) for c in outputs.summary.columns], formats["header"])
        _write_rows(summary, outputs.summary, 1, formats)
        summary.freeze_panes(1, 1)
        summary.set_column(0, 0, 30)
        summary.set_column(1, max(1, len(outputs.summary.columns) - 1), 14)
        if outputs.tornado is not None or outputs.distribution is not None:
            _write_charts(workbook, outputs, formats)
        run = workbook.add_worksheet("Run")
        run.write_row(0, 0, ["Item", "Value"], formats["header"])
        for row, (key, value) in enumerate(sorted(outputs.stamp.items()), 1):
            run.write_string(row, 0, key, formats["bold"])
            text = (
                value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
            )
            run.write_string(row, 1, text)
        run.set_column(0, 0, 22)
        run.set_column(1, 1, 100)
        try:
            workbook.close()
            self._sink.close()
        except Exception as error:
            failure = self._sink.failure
            if failure is not None:
                raise failure from None
            wrapped = error.args[0] if error.args else None
            if isinstance(wrapped, OSError):  # xlsxwriter's FileCreateError
                raise wrapped from None
            raise
        finally:
            self.discard()
        if self._sink.failure is not None:  # a write failed and nothing said so
            raise self._sink.failure

    def discard(self) -> None:
        """Close every file of the writer and remove its temporary folder (after
        :meth:`finish`, or instead of it when the run failed)."""
        import shutil

        self.workbook.fileclosed = True
        for worksheet in self.workbook.worksheets():
            with contextlib.suppress(Exception):
                worksheet._opt_close()
        with contextlib.suppress(OSError):  # already raised by finish, or the run failed
            self._sink.close()
        shutil.rmtree(self._tmpdir, ignore_errors=True)


def _write_xlsx(
    path: Path, outputs: Outputs, progress: Callable[[int], None] | None = None
) -> None:
    writer = XlsxWriter(path, progress)
    try:
        writer.write(outputs.results)
        writer.finish(outputs)
    finally:
        writer.discard()


def _number(sheet: Any, row: int, column: int, value: float, fmt: Any = None) -> None:
    """A number, or a blank cell for NaN / infinity."""
    if math.isfinite(value):
        sheet.write_number(row, column, value, fmt)
    else:
        sheet.write_blank(row, column, None, fmt)


def _write_charts(workbook: Any, outputs: Outputs, formats: dict[str, Any]) -> None:
    sheet = workbook.add_worksheet("Charts")
    target = outputs.target or ""
    row = 0
    if outputs.tornado is not None:
        table = charted(outputs.tornado)
        base = outputs.tornado.base_value
        sheet.write_string(
            row, 0, f"Tornado: {label(target)}, base case: {outputs.tornado.base_label}",
            formats["bold"],
        )  # fmt: skip
        _number(sheet, row, 1, base, formats["money"])
        header = ["input", "low", "base", "high", "target_low", "target_high", "swing"]
        sheet.write_row(row + 1, 0, [*header, "delta_low", "delta_high"], formats["header"])
        first = row + 2
        numbers = table[header[1:]].to_numpy(dtype=np.float64)
        for i, (name, figures) in enumerate(zip(table["input"], numbers, strict=True)):
            key = str(name)
            low_high = f"{format_value(figures[0], key)} to {format_value(figures[2], key)}"
            sheet.write_string(first + i, 0, f"{label(key)} ({low_high})")
            for c, value in enumerate(figures, 1):
                _number(sheet, first + i, c, float(value))
            _number(sheet, first + i, 7, float(figures[3]) - base)  # target_low
            _number(sheet, first + i, 8, float(figures[4]) - base)  # target_high
        last = first + max(len(table), 1) - 1
        chart = workbook.add_chart({"type": "bar"})
        series = ((7, "input at low", "#4C72B0"), (8, "input at high", "#DD8452"))
        for column, name, colour in series:
            options: dict[str, Any] = {
                "name": name,
                "categories": ["Charts", first, 0, last, 0],
                "values": ["Charts", first, column, last, column],
                "fill": {"color": colour},
            }
            if column == 7:
                options["overlap"] = 100  # both bars of an input start at the base case
            chart.add_series(options)
        height = max(300, 32 * len(table) + 120)
        money = '"$"#,##0;-"$"#,##0' if unit(target) == "money" else "#,##0"
        chart.set_title({"name": f"Tornado: change in {label(target)} from the base case"})
        chart.set_y_axis({"reverse": True})
        chart.set_x_axis(
            {"name": f"{label(target)} minus the base case ({base:,.2f})", "num_format": money}
        )
        chart.set_legend({"position": "bottom"})
        chart.set_size({"width": 760, "height": height})
        sheet.insert_chart(row, 11, chart)
        row = max(last + 3, row + height // 20 + 2)
    if outputs.distribution is not None:
        bins = outputs.distribution
        sheet.write_string(row, 0, f"Distribution: {target}", formats["bold"])
        sheet.write_row(row + 1, 0, ["bin_low", "bin_high", "count", "bin"], formats["header"])
        first = row + 2
        edges = bins[["bin_low", "bin_high"]].to_numpy(dtype=np.float64)
        counts = bins["count"].to_numpy(dtype=np.int64)
        for i, ((low, high), count) in enumerate(zip(edges, counts, strict=True)):
            sheet.write_number(first + i, 0, float(low), formats["money"])
            sheet.write_number(first + i, 1, float(high), formats["money"])
            sheet.write_number(first + i, 2, int(count))
            low_text = format_value(low, target, whole=True)
            sheet.write_string(first + i, 3, f"{low_text} to {format_value(high, target, True)}")
        last = first + max(len(bins), 1) - 1
        chart = workbook.add_chart({"type": "column"})
        chart.add_series(
            {
                "name": "scenarios",
                "categories": ["Charts", first, 3, last, 3],
                "values": ["Charts", first, 2, last, 2],
                "gap": 5,
                "fill": {"color": "#4C72B0"},
            }
        )
        chart.set_title({"name": f"Distribution of {label(target)} ({counts.sum():,} scenarios)"})
        chart.set_x_axis({"name": label(target)})
        chart.set_y_axis({"name": "scenarios"})
        chart.set_legend({"none": True})
        chart.set_size({"width": 760, "height": 360})
        sheet.insert_chart(row, 11, chart)
    sheet.set_column(0, 0, 26)
    sheet.set_column(1, 9, 14)
