"""``run_scenarios``: a DataFrame of scenarios in, a DataFrame of results out.

The pandas engine cuts the table into chunks; each chunk goes through the exact kernel
of every registered section (its program's, :data:`~.columns.REGISTERED`, on a
:class:`~.kernel.Chunk`), and the few rows the kernel leaves (bad inputs, values it cannot
hold exactly) through the scalar core (:mod:`~.scalar`). The Dask
engine maps the same function over dask.dataframe partitions. Results are identical,
row for row: rows out = rows in, same order, same ``id``.
"""

from __future__ import annotations

import functools
import importlib
import logging
import math
import re
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from nj_incentives.core.scenario_sections import ConvertedColumn, SectionOut
from nj_incentives.scenarios import kernel, scalar
from nj_incentives.scenarios.columns import (
    REGISTERED,
    SECTIONS,
    Layout,
    OutKind,
    OutputSpec,
    ScenarioError,
    check_columns,
    input_spec,
)
from nj_incentives.scenarios.convert import (
    convert_floats,
    decimal_cents,
    plain_array,
    raw_cells,
    raw_values,
)

__all__ = [
    "CHUNK_ROWS",
    "Engine",
    "Money",
    "failed_row_message",
    "layout_of_columns",
    "plan_layout",
    "run_scenarios",
    "scenario_columns",
]

Engine = Literal["pandas", "dask"]
Money = Literal["float", "cents", "decimal"]

#: Rows per kernel chunk: bounds the kernel's temporary arrays (about 1.2 KB a row: 75 MiB
#: a chunk, within 10% of the results frame of 1,000,000 rows; no slower than larger
#: chunks on this machine, docs/performance.md).
CHUNK_ROWS = 65_536
#: Rows per step when a progress bar is drawn (the bar moves at each step).
PROGRESS_ROWS = 16_384
logger = logging.getLogger(__name__)


# ======================================================================= layout


def _section_of(column: str) -> str | None:
    found = input_spec(column)
    return found[0].section if found else None


def _named_layout(columns: Sequence[object], detail: bool) -> Layout:
    """What the column names alone decide: the sections, the periods and tax years named
    by ``period_end_{k}`` / ``tax_liability_{year}`` columns (2017-2025 at least)."""
    sections = {s for s in map(_section_of, map(str, columns)) if s}
    periods = 0
    first_year, last_year = 2017, 2025
    for name in map(str, columns):
        found = input_spec(name)
        index = found[1] if found is not None else None
        if found is None or index is None:
            continue
        if found[0].family == "period":
            periods = max(periods, index)
        elif found[0].family == "tax_year":
            first_year, last_year = min(first_year, index), max(last_year, index)
    for section in REGISTERED:  # a section's needs get result columns with it
        if section.name in sections:
            sections.update(section.needs)
    has_periods = any(s.periods_column and s.name in sections for s in REGISTERED)
    return Layout(
        periods=periods if has_periods else 0,
        first_tax_year=first_year,
        last_tax_year=last_year,
        detail=detail,
        sections=tuple(s for s in SECTIONS if s in sections),
    )


def _rows_layout(chunk: kernel.Chunk, layout: Layout) -> Layout:
    """``layout`` widened to what the rows of ``chunk`` need: the largest usable
    ``periods`` value, the tax years of every readable conversion."""
    periods, first_year, last_year = layout.periods, layout.first_tax_year, layout.last_tax_year
    if not chunk.n:
        return layout
    for section in REGISTERED:
        if section.name not in layout.sections:
            continue
        if section.periods_column and section.periods_column in chunk.frame.columns:
            counts = chunk.col(section.periods_column)
            usable = counts.ok  # 1 to MAX_PERIODS: the column's declaration
            if usable.any():
                periods = max(periods, int(counts.values[usable].max()))
        if section.tax_years is not None and _has_columns(chunk, section.name):
            ok, start, last = section.tax_years(chunk)
            if ok.any():
                first_year = min(first_year, int(start[ok].min()))
                last_year = max(last_year, int(last[ok].max()))
    if (periods, first_year, last_year) == (
        layout.periods,
        layout.first_tax_year,
        layout.last_tax_year,
    ):
        return layout
    return replace(layout, periods=periods, first_tax_year=first_year, last_tax_year=last_year)


def _has_columns(chunk: kernel.Chunk, section: str) -> bool:
    return any(True for _ in chunk.section_columns(section))


class _Arrays:
    """A few rows' columns as :class:`kernel.Chunk` reads a frame (its column names, its
    length, a column as a Series), each column made a Series only when read."""

    def __init__(self, columns: Mapping[str, np.ndarray], n: int) -> None:
        self.columns = list(columns)
        self._arrays = columns
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, name: str) -> pd.Series:
        return pd.Series(self._arrays[name], index=pd.RangeIndex(self._n))


class _ArraysChunk(kernel.Chunk):
    """A :class:`kernel.Chunk` of a few rows' arrays (:class:`_Arrays`): a float64 column
    converted straight from its array (what :func:`~.convert.convert` does with a float64
    Series: :func:`~.convert.convert_floats`), any other through its Series."""

    def __init__(self, columns: Mapping[str, np.ndarray], n: int) -> None:
        super().__init__(cast(pd.DataFrame, _Arrays(columns, n)))
        self._arrays = columns

    def col(self, name: str) -> ConvertedColumn:
        column = self._cache.get(name)
        if column is None:
            array = self._arrays.get(name)
            found = input_spec(name)
            if array is not None and array.dtype == np.float64 and found is not None:
                column = self._cache[name] = convert_floats(array, found[0])
            else:
                column = super().col(name)
        return column


@functools.lru_cache(maxsize=64)
def _named_layout_of(columns: tuple[str, ...], detail: bool) -> Layout:
    """:func:`_named_layout` of a header, kept: it depends on the names only."""
    return _named_layout(columns, detail)


def layout_of_columns(columns: Mapping[str, np.ndarray], n: int, detail: bool = True) -> Layout:
    """The layout :func:`run_scenarios` gives a table of ``n`` rows (at most
    :data:`CHUNK_ROWS`: one chunk) of these columns, decided by the same readings
    (:func:`_named_layout`, then :func:`_rows_layout` on the kernel's own conversion of
    the columns it reads: ``periods``, the conversion's years), without a frame:
    ``NJ_SCENARIOS``'s small tables (:mod:`nj_incentives.scenarios.table`)."""
    return _rows_layout(_ArraysChunk(columns, n), _named_layout_of(tuple(columns), detail))


def plan_layout(df: pd.DataFrame, detail: bool = True) -> Layout:
    """The result columns a table needs: its sections, periods and tax years.

    A section gets result columns when the table has any of its input columns; the
    per-period columns run to the largest ``period_end_{k}`` column or ``periods``
    value; the per-tax-year columns span 2017-2025 and any other year a row's
    installments or a ``tax_liability_{year}`` column reach. (The pandas engine plans
    the same layout chunk by chunk, :func:`_run_frame`.)
    """
    return _rows_layout(kernel.Chunk(df), _named_layout(list(df.columns), detail))


# ======================================================================= one chunk


@dataclass
class _Part:
    """What one chunk computed: the kernel's sections, the scalar path's rows, the errors."""

    n: int
    outs: dict[str, SectionOut]
    #: (row in the chunk, its results by column) for the rows the scalar path computed
    rows: list[tuple[int, dict[str, object]]]
    errors: list[str | None]


#: The chunk whose columns the layout already read (per thread: Dask's threads run
#: frames side by side), so that the kernel does not read them again.
_READ = threading.local()


def _chunk_of(frame: pd.DataFrame) -> kernel.Chunk:
    chunk: kernel.Chunk | None = getattr(_READ, "chunk", None)
    return chunk if chunk is not None and chunk.frame is frame else kernel.Chunk(frame)


def _compute_chunk(frame: pd.DataFrame, layout: Layout, force_scalar: bool = False) -> _Part:
    """Results of one chunk: the kernel's sections, and the scalar path's rows."""
    n = len(frame)
    chunk = _chunk_of(frame)
    outs: dict[str, SectionOut] = {}
    for section in REGISTERED:  # in order: a section after those it needs
        if section.name in layout.sections:
            outs[section.name] = section.kernel(chunk, layout, outs)
    if force_scalar:
        for out in outs.values():
            out.fast = np.zeros(n, bool)
            out.values = {}

    errors: list[str | None] = [None] * n
    computed: list[tuple[int, dict[str, object]]] = []
    scalar_rows = {name: out.scalar for name, out in outs.items()}
    needs = np.zeros(n, bool)
    for mask in scalar_rows.values():
        needs |= mask
    rows = np.flatnonzero(needs)
    if len(rows):
        raw = {
            str(name): raw_cells(plain[rows])
            if (plain := chunk.arrays.get(str(name))) is not None
            else raw_values(frame[name], rows)
            for name in frame.columns
            if input_spec(str(name)) is not None
        }
        for i, row in enumerate(rows):
            cells = {name: column[i] for name, column in raw.items()}
            present = {name: bool(mask[row]) for name, mask in scalar_rows.items()}
            results, messages = scalar.run_row(cells, layout, present)
            computed.append((int(row), results))
            if messages:
                errors[row] = " | ".join(messages)
    return _Part(n, outs, computed, errors)


def _isolated_chunk(
    frame: pd.DataFrame, layout: Layout, force_scalar: bool = False
) -> list[tuple[int, _Part]]:
    """:func:`_compute_chunk` (as one part at offset 0), but a failure that is not an
    input error (a defect, or a value no check foresaw) never stops the batch: the chunk
    is split in halves until the failing rows are alone, and each of those gets its
    error; the others compute. The parts, each with its offset in ``frame``."""
    try:
        return [(0, _compute_chunk(frame, layout, force_scalar))]
    except Exception as exc:
        n = len(frame)
        if n > 1:
            middle = n // 2
            first = _isolated_chunk(frame.iloc[:middle], layout, force_scalar)
            second = _isolated_chunk(frame.iloc[middle:], layout, force_scalar)
            return first + [(middle + offset, part) for offset, part in second]
        logger.error("scenario row failed unexpectedly", exc_info=exc)
        return [(0, _failed_row(exc))]


def failed_row_message(exc: Exception) -> str:
    """The error of a row whose computation failed unexpectedly (not an input error)."""
    first_line = (str(exc).strip().splitlines() or [""])[0][:160]
    return (
        f"row = (this row): could not be computed ({type(exc).__name__}: {first_line}); "
        f"please report it ({scalar.RUNNER_LIMIT})"
    )


def _failed_row(exc: Exception) -> _Part:
    """One row whose computation failed: no results, and its error naming the failure."""
    return _Part(1, {}, [], [failed_row_message(exc)])


# ======================================================================= result frame


#: Each section's result column valid where it computed (a tax-year column added later
#: holds 0 there).
_TAX_YEAR_TOTAL = {s.name: s.tax_year_total for s in REGISTERED if s.tax_year_total}


class _Sink:
    """The result columns of a whole frame, allocated once and written chunk by chunk:
    each chunk's values go straight into their rows of the final column (money as float
    dollars, nullable ints, ...); nothing is filled beforehand."""

    def __init__(self, n: int, money: Money) -> None:
        self.n = n
        self.money = money
        self.specs: dict[str, OutputSpec] = {}
        self.columns: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
        self.errors = np.empty(n, dtype=object)  # None: no error (what np.empty holds)

    def _allocate(self, spec: OutputSpec) -> tuple[np.ndarray, np.ndarray | None]:
        n, money = self.n, self.money
        if spec.kind is OutKind.FLOAT or (spec.kind is OutKind.MONEY and money == "float"):
            return np.empty(n), None
        if spec.kind is OutKind.MONEY and money == "decimal":
            return np.empty(n, dtype=object), None  # None where blank
        if spec.kind is OutKind.BOOL:
            return np.empty(n, bool), np.empty(n, bool)
        if spec.kind is OutKind.TEXT:  # codes of spec.categories (a categorical's own)
            return np.empty(n, _code_dtype(spec)), np.empty(n, bool)
        return np.empty(n, np.int64), np.empty(n, bool)

    def add(self, specs: Sequence[OutputSpec], done: int) -> None:
        """Columns for ``specs`` not yet held; in the ``done`` rows already written, a new
        tax-year column is 0 where its section computed (a tax year without an
        installment: the kernel's and the core's 0) and blank elsewhere; a new period
        column is blank (those rows have fewer periods)."""
        for spec in specs:
            if spec.name in self.columns:
                continue
            self.columns[spec.name] = self._allocate(spec)
            self.specs[spec.name] = spec
            if not done:
                continue
            known = _TAX_YEAR_TOTAL.get(spec.section)
            valid = self.valid(known, done) if known in self.columns else None
            self.write(spec, 0, done, np.zeros(1, np.int64), valid, {})

    def valid(self, name: str, stop: int) -> np.ndarray:
        """The rows ``0 .. stop - 1`` of a column that hold a value."""
        values, mask = self.columns[name]
        if mask is not None:
            return ~mask[:stop]
        if values.dtype == object:
            return np.fromiter((v is not None for v in values[:stop]), bool, stop)
        held: np.ndarray = ~np.isnan(values[:stop])
        return held

    def write(
        self,
        spec: OutputSpec,
        start: int,
        stop: int,
        values: np.ndarray | None,
        valid: np.ndarray | None,
        blanks: dict[int, tuple[np.ndarray, int, np.ndarray | None]],
    ) -> None:
        """Rows ``start .. stop - 1`` of a column: ``values`` (kernel units: cents, counts,
        0/1, the float ratio) where ``valid``, blank elsewhere (``values`` None: all blank).
        ``blanks``: each mask's negation, its count and (when few) its rows, shared by
        the columns of a chunk."""
        target, mask = self.columns[spec.name]
        part = target[start:stop]
        if valid is None or values is None:
            if mask is not None:
                mask[start:stop] = True
                part[:] = 0
            elif part.dtype != object:
                part.fill(np.nan)
            return
        found = blanks.get(id(valid))
        if found is None:
            invalid = ~valid
            count = int(np.count_nonzero(invalid))
            # a few blank rows (a section's failed rows): set by index, not by a pass
            few = np.flatnonzero(invalid) if count and count * 16 < len(invalid) else None
            found = blanks[id(valid)] = (invalid, count, few)
        invalid, count, few = found
        if mask is not None:
            np.copyto(part, values, casting="unsafe")  # int64 or 0/1 -> bool
            np.copyto(mask[start:stop], invalid)
            return
        if spec.kind is OutKind.FLOAT:
            np.copyto(part, values)
        elif self.money == "float":
            # cents / 100 is the double nearest the decimal amount (15 digits at most)
            np.divide(values, 100, out=part)
        else:  # Decimal objects (money="decimal"), valid rows only
            cents = np.broadcast_to(values, valid.shape)
            for i in np.flatnonzero(valid):
                part[i] = Decimal(int(cents[i])).scaleb(-2)
            return
        if few is not None:
            part[few] = np.nan
        elif count:
            np.copyto(part, np.nan, where=invalid)

    def put_value(self, spec: OutputSpec, row: int, value: object) -> None:
        """One result of the scalar path (a Decimal, int, bool, float or, in a text
        column, one of its categories) into its row."""
        target, mask = self.columns[spec.name]
        stored = spec.categories.index(str(value)) if spec.categories else _stored(value, spec.kind)
        if mask is not None:
            target[row] = stored
            mask[row] = False
        elif spec.kind is OutKind.FLOAT:
            target[row] = stored
        elif self.money == "float":
            target[row] = np.float64(stored) / 100
        else:
            target[row] = Decimal(int(stored)).scaleb(-2)

    def put(self, start: int, part: _Part, specs: Sequence[OutputSpec]) -> None:
        """One part's results into rows ``start .. start + part.n - 1``."""
        stop = start + part.n
        blanks: dict[int, tuple[np.ndarray, int, np.ndarray | None]] = {}
        for spec in specs:
            section = part.outs.get(spec.section)
            found = section.values.get(spec.name) if section is not None else None
            values, valid = found if found is not None else (None, None)
            self.write(spec, start, stop, values, valid, blanks)
        for row, results in part.rows:
            for name, value in results.items():
                held = self.specs.get(name)
                if held is not None and value is not None:
                    self.put_value(held, start + row, value)
        self.errors[start:stop] = part.errors

    def arrays(self, specs: Sequence[OutputSpec]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for spec in specs:
            values, mask = self.columns[spec.name]
            if mask is None:
                out[spec.name] = values
            elif spec.kind is OutKind.TEXT:
                values[mask] = -1  # blank (the sink is done with the column)
                kind = pd.CategoricalDtype(list(spec.categories))
                out[spec.name] = pd.Categorical.from_codes(values, dtype=kind)
            elif spec.kind is OutKind.BOOL:
                out[spec.name] = pd.arrays.BooleanArray(values, mask)
            else:
                out[spec.name] = pd.arrays.IntegerArray(values, mask)
        return out


def _code_dtype(spec: OutputSpec) -> np.dtype[Any]:
    """The codes of a text column: the smallest integer type pandas keeps for its
    categories (int8 up to 127), so the categorical takes them without a copy."""
    return np.dtype(np.int8 if len(spec.categories) < 127 else np.int32)


def _stored(value: object, kind: OutKind) -> int | float:
    if kind is OutKind.MONEY:
        assert isinstance(value, Decimal)
        return decimal_cents(value)
    if kind is OutKind.FLOAT:
        return float(value)  # type: ignore[arg-type]
    return int(value)  # type: ignore[call-overload, no-any-return]


def _chunks(n: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n, size):
        yield start, min(n, start + size)


def _run_frame(
    frame: pd.DataFrame,
    layout: Layout,
    money: Money = "float",
    keep: Sequence[str] = (),
    chunk_rows: int = CHUNK_ROWS,
    progress: bool = False,
    force_scalar: bool = False,
    progress_delay: float = 0.0,
    grow: bool = False,
) -> pd.DataFrame:
    """The pandas engine on one frame (the whole table, or one Dask partition).

    ``grow``: ``layout`` is what the column names decide (:func:`_named_layout`), and
    each chunk widens it to what its rows need as it is computed (the same layout as
    :func:`plan_layout` of the whole frame, without a pass over it first).
    """
    columns = _frame_columns(
        frame, layout, money, keep, chunk_rows, progress, force_scalar, progress_delay, grow
    )
    return pd.DataFrame(columns, index=frame.index, copy=False)


def _frame_columns(
    frame: pd.DataFrame,
    layout: Layout,
    money: Money = "float",
    keep: Sequence[str] = (),
    chunk_rows: int = CHUNK_ROWS,
    progress: bool = False,
    force_scalar: bool = False,
    progress_delay: float = 0.0,
    grow: bool = False,
    arrays: Mapping[str, np.ndarray] | None = None,
) -> dict[str, Any]:
    """:func:`_run_frame`'s columns by name, in order (``id`` and ``error`` as Series of
    ``frame``'s index, the results as arrays), before they are made a frame.
    ``arrays``: numpy arrays already holding some of ``frame``'s columns (the same
    values), read instead of the frame's."""
    n = len(frame)
    sink = _Sink(n, money)
    sink.add(layout.outputs(), 0)
    bar: Any = None
    if progress:
        from nj_incentives.support.progress import bar as progress_bar

        # rows in steps of at most PROGRESS_ROWS, so that the bar moves
        chunk_rows = min(chunk_rows, PROGRESS_ROWS)
        bar = progress_bar(n, progress_delay, desc="scenarios", unit="row", unit_scale=True)
    # the plain numpy input columns, read once a call: each chunk takes its rows of
    # them (a view) instead of a Series a column a chunk
    held = arrays or {}
    plain = {
        str(name): held[str(name)] if str(name) in held else frame[name].to_numpy()
        for name, dtype in frame.dtypes.items()
        if plain_array(dtype) and input_spec(str(name)) is not None
    }
    try:
        for start, stop in _chunks(n, chunk_rows):
            part = frame.iloc[start:stop]
            rows = {name: values[start:stop] for name, values in plain.items()}
            _READ.chunk = kernel.Chunk(part, rows)
            if grow:
                wider = _rows_layout(_READ.chunk, layout)
                if wider != layout:
                    layout = wider
                    sink.add(layout.outputs(), start)
            specs = layout.outputs()
            try:
                parts = _isolated_chunk(part, layout, force_scalar)
            finally:
                _READ.chunk = None
            while parts:  # each part's arrays freed once written
                offset, computed = parts.pop(0)
                sink.put(start + offset, computed, specs)
                del computed
            if bar is not None:
                bar.update(stop - start)
    finally:
        if bar is not None:
            bar.close()
    columns: dict[str, Any] = {"id": frame["id"]}
    for name in ("label", *keep):
        if name in frame.columns and name not in columns:
            columns[name] = frame[name]
    columns["error"] = pd.Series(sink.errors, index=frame.index, dtype=object)  # None: no error
    columns.update(sink.arrays(layout.outputs()))
    return columns


# ======================================================================= public API


def run_scenarios(
    df: pd.DataFrame,
    *,
    engine: Engine = "pandas",
    money: Money = "float",
    detail: bool = True,
    keep: Sequence[str] = (),
    progress: bool = False,
    scheduler: str | None = None,
    npartitions: int | None = None,
    chunk_rows: int = CHUNK_ROWS,
    layout: Layout | None = None,
    progress_delay: float = 0.0,
) -> pd.DataFrame:
    """Compute every scenario of ``df`` (one per row) on the calculation core, exactly.

    Input columns are described in ``docs/scenarios.md``; unknown columns are refused
    (:class:`ScenarioError`) unless named in ``keep`` (copied to the results, like
    ``label``). The results have one row per input row, in the same order and with the
    same index: ``id`` (the input's ``id`` column, else the row number from 1), any
    ``label`` / ``keep`` columns, ``error`` (the core's messages for the row's failed
    sections, joined by " | "; None when every present section computed) and the result
    columns of :meth:`Layout.outputs`. A section that is blank in a row, or failed, has
    blank (NaN / NA) results in that row; the other sections are computed.

    - ``money``: ``"float"`` (dollars; the double nearest each exact amount, which prints
      as the exact cents), ``"cents"`` (nullable Int64 cents) or ``"decimal"`` (exact
      ``Decimal`` objects; slow, for small tables).
    - ``detail``: False keeps only the totals (no per-year / per-period columns).
    - ``engine="dask"``: the same kernel over dask.dataframe partitions
      (``npartitions``; ``scheduler``: a distributed scheduler address such as
      ``"tcp://10.0.0.5:8786"``, or a local Dask scheduler name such as ``"threads"``).
    - ``progress``: a tqdm progress bar on standard error over the rows (pandas engine;
      the local Dask scheduler's bar with ``engine="dask"``), drawn once the run has
      lasted ``progress_delay`` seconds.
    """
    if money not in ("float", "cents", "decimal"):
        raise ScenarioError(f"money must be 'float', 'cents' or 'decimal', not {money!r}")
    df = _checked(df, keep)
    if layout is not None and layout.detail != detail:
        layout = replace(layout, detail=detail)
    if engine == "pandas":
        grow = layout is None  # the layout planned chunk by chunk
        return _run_frame(
            df,
            _named_layout(list(df.columns), detail) if layout is None else layout,
            money,
            keep,
            chunk_rows,
            progress,
            progress_delay=progress_delay,
            grow=grow,
        )
    if layout is None:
        layout = plan_layout(df, detail)
    if engine == "dask":
        return _run_dask(
            df, layout, money, keep, chunk_rows, scheduler, npartitions, progress, progress_delay
        )
    raise ScenarioError(f"engine must be 'pandas' or 'dask', not {engine!r}")


def _checked(df: pd.DataFrame, keep: Sequence[str]) -> pd.DataFrame:
    """``df`` with its columns checked (:func:`check_columns`) and its ``id`` column
    (the row number from 1 where it has none)."""
    check_columns(df.columns, keep)
    clash = {"id", "label", "error"} & set(keep)
    if clash:
        raise ScenarioError(f"keep: {', '.join(sorted(clash))} is always in the results")
    if "id" not in df.columns:
        df = df.assign(id=np.arange(1, len(df) + 1))
    return df


def scenario_columns(
    df: pd.DataFrame, arrays: Mapping[str, np.ndarray] | None = None
) -> dict[str, Any]:
    """The columns of ``run_scenarios(df)`` (the pandas engine, money as float dollars,
    every detail column), by name in the frame's order, without making the frame: what
    ``NJ_SCENARIOS`` makes cells of (:mod:`nj_incentives.scenarios.table`). ``id`` and
    ``error`` are Series, the results arrays: each column's ``.array`` in the frame.
    ``arrays``: the numpy arrays ``df`` was made of (read instead of its columns where
    the frame holds them as plain numpy columns)."""
    df = _checked(df, ())
    return _frame_columns(df, _named_layout(list(df.columns), True), grow=True, arrays=arrays)


_ADDRESS = re.compile(r"^[a-z]+://|^[\w.\-]+:\d+$")


def _run_dask(
    df: pd.DataFrame,
    layout: Layout,
    money: Money,
    keep: Sequence[str],
    chunk_rows: int,
    scheduler: str | None,
    npartitions: int | None,
    progress: bool,
    progress_delay: float = 0.0,
) -> pd.DataFrame:
    """The Dask engine: ``map_partitions`` of the pandas engine's frame function."""
    try:
        dask: Any = importlib.import_module("dask")
        dd: Any = importlib.import_module("dask.dataframe")
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ScenarioError(
            "the dask engine needs the optional extra: pip install 'nj-incentives[dask]'"
        ) from error
    partitions = npartitions or max(1, math.ceil(len(df) / 250_000))
    with dask.config.set({"dataframe.convert-string": False}), warnings.catch_warnings():
        # dask joins the partitions' categorical columns (grant_version) one by one into a
        # frame of ~100 extension-array columns, which pandas calls "highly fragmented":
        # nothing to act on, and not the user's concern
        warnings.filterwarnings(
            "ignore", "DataFrame is highly fragmented", pd.errors.PerformanceWarning
        )
        ddf = dd.from_pandas(df, npartitions=max(1, min(partitions, len(df) or 1)), sort=False)
        meta = _run_frame(df.iloc[:0], layout, money, keep)
        result = ddf.map_partitions(
            _run_frame,
            layout,
            money,
            tuple(keep),
            chunk_rows,
            meta=meta,
            enforce_metadata=False,
        )
        if scheduler and _ADDRESS.search(scheduler):
            distributed: Any = importlib.import_module("distributed")
            with distributed.Client(scheduler, set_as_default=False) as client:
                computed = client.compute(result).result()
        elif progress and scheduler is None:
            diagnostics: Any = importlib.import_module("dask.diagnostics")
            with diagnostics.ProgressBar(minimum=progress_delay):
                computed = result.compute()
        else:
            computed = result.compute(scheduler=scheduler) if scheduler else result.compute()
    out: pd.DataFrame = computed
    # the partitions' pass-through columns may come back as object: restore the table's dtypes
    for name, dtype in meta.dtypes.items():
        if out[name].dtype != dtype:
            out[name] = out[name].astype(dtype)
    return out
