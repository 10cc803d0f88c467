"""``run_scenarios``: a DataFrame of scenarios in, a DataFrame of results out.

The pandas engine cuts the table into chunks; each chunk goes through the exact kernel
(:mod:`nj_incentives.scenarios.kernel`), and the few rows the kernel leaves (bad inputs,
values it cannot hold exactly) through the scalar core (:mod:`~.scalar`). The Dask
engine maps the same function over dask.dataframe partitions. Results are identical,
row for row: rows out = rows in, same order, same ``id``.
"""

from __future__ import annotations

import importlib
import logging
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, Literal

import numpy as np
import pandas as pd

from nj_incentives.scenarios import kernel, scalar
from nj_incentives.scenarios.columns import (
    MAX_PERIODS,
    SECTIONS,
    Layout,
    OutKind,
    OutputSpec,
    ScenarioError,
    check_columns,
    column_spec,
    input_spec,
)
from nj_incentives.scenarios.convert import convert, decimal_cents, raw_values

__all__ = ["CHUNK_ROWS", "Engine", "Money", "plan_layout", "run_scenarios"]

Engine = Literal["pandas", "dask"]
Money = Literal["float", "cents", "decimal"]

#: Rows per kernel chunk: bounds the kernel's temporary arrays (about 100 x 8 bytes a row).
CHUNK_ROWS = 131_072
#: Rows per step when a progress bar is drawn (the bar moves at each step).
PROGRESS_ROWS = 16_384
logger = logging.getLogger(__name__)


# ======================================================================= layout


def _section_of(column: str) -> str | None:
    found = input_spec(column)
    return found[0].section if found else None


def plan_layout(df: pd.DataFrame, detail: bool = True) -> Layout:
    """The result columns a table needs: its sections, periods and tax years.

    A section gets result columns when the table has any of its input columns; the
    per-period columns run to the largest ``period_end_{k}`` column or ``periods``
    value; the per-tax-year columns span 2017-2025 and any other year a row's
    installments or a ``tax_liability_{year}`` column reach.
    """
    sections = {s for s in map(_section_of, map(str, df.columns)) if s}
    periods = 0
    first_year, last_year = 2017, 2025
    for name in map(str, df.columns):
        found = input_spec(name)
        index = found[1] if found is not None else None
        if found is None or index is None:
            continue
        if found[0].family == "period":
            periods = max(periods, index)
        elif found[0].family == "tax_year":
            first_year, last_year = min(first_year, index), max(last_year, index)
    if "periods" in df.columns and len(df):
        counts = convert(df["periods"], column_spec("periods"))
        usable = counts.ok & (counts.values <= MAX_PERIODS)
        if usable.any():
            periods = max(periods, int(counts.values[usable].max()))
    if "conversion" in sections and len(df):
        ok, start, last = kernel.conversion_years(kernel.Chunk(df))
        if ok.any():
            first_year = min(first_year, int(start[ok].min()))
            last_year = max(last_year, int(last[ok].max()))
    if "credit" in sections:
        sections.add("conversion")
    return Layout(
        periods=periods if "ertc" in sections else 0,
        first_tax_year=first_year,
        last_tax_year=last_year,
        detail=detail,
        sections=tuple(s for s in SECTIONS if s in sections),
    )


# ======================================================================= one chunk


@dataclass
class _Buffer:
    values: np.ndarray  # int64 (money in cents, counts, flags) or float64
    valid: np.ndarray


def _compute_chunk(
    frame: pd.DataFrame, layout: Layout, force_scalar: bool = False
) -> tuple[dict[str, _Buffer], list[str | None]]:
    """Results of one chunk: buffers per output column, and each row's error (or None)."""
    n = len(frame)
    chunk = kernel.Chunk(frame)
    outs: dict[str, kernel.SectionOut] = {}
    if "grant" in layout.sections:
        outs["grant"] = kernel.grant(chunk)
    if "conversion" in layout.sections:
        outs["conversion"] = kernel.conversion(chunk, layout)
    if "credit" in layout.sections:
        outs["credit"] = kernel.credit(chunk, layout, outs["conversion"])
    if "ertc" in layout.sections:
        outs["ertc"] = kernel.ertc_schedule(chunk, layout)
    if force_scalar:
        for out in outs.values():
            out.fast = np.zeros(n, bool)

    specs = layout.outputs()
    buffers: dict[str, _Buffer] = {}
    for spec in specs:
        section = outs.get(spec.section)
        found = section.values.get(spec.name) if section is not None else None
        if found is None:
            dtype = np.float64 if spec.kind is OutKind.FLOAT else np.int64
            buffers[spec.name] = _Buffer(np.zeros(n, dtype), np.zeros(n, bool))
        else:
            values, valid = found
            buffers[spec.name] = _Buffer(values, valid & section.fast)  # type: ignore[union-attr]

    errors: list[str | None] = [None] * n
    scalar_rows = {name: out.scalar for name, out in outs.items()}
    needs = np.zeros(n, bool)
    for mask in scalar_rows.values():
        needs |= mask
    rows = np.flatnonzero(needs)
    if len(rows):
        raw = {
            str(name): raw_values(frame[name], rows)
            for name in frame.columns
            if input_spec(str(name)) is not None
        }
        kinds = {spec.name: spec.kind for spec in specs}
        for i, row in enumerate(rows):
            cells = {name: column[i] for name, column in raw.items()}
            present = {name: bool(mask[row]) for name, mask in scalar_rows.items()}
            results, messages = scalar.run_row(cells, layout, present)
            for name, value in results.items():
                buffer = buffers.get(name)
                if buffer is None or value is None:
                    continue
                buffer.valid[row] = True
                buffer.values[row] = _stored(value, kinds[name])
            if messages:
                errors[row] = " | ".join(messages)
    return buffers, errors


def _isolated_chunk(
    frame: pd.DataFrame, layout: Layout, force_scalar: bool = False
) -> tuple[dict[str, _Buffer], list[str | None]]:
    """:func:`_compute_chunk`, but a failure that is not an input error (a defect, or a
    value no check foresaw) never stops the batch: the chunk is split in halves until
    the failing rows are alone, and each of those gets its error; the others compute."""
    try:
        return _compute_chunk(frame, layout, force_scalar)
    except Exception as exc:
        n = len(frame)
        if n > 1:
            middle = n // 2
            first = _isolated_chunk(frame.iloc[:middle], layout, force_scalar)
            second = _isolated_chunk(frame.iloc[middle:], layout, force_scalar)
            return _joined(first, second)
        logger.error("scenario row failed unexpectedly", exc_info=exc)
        return _failed_row(layout, exc)


def _joined(
    first: tuple[dict[str, _Buffer], list[str | None]],
    second: tuple[dict[str, _Buffer], list[str | None]],
) -> tuple[dict[str, _Buffer], list[str | None]]:
    buffers = {
        name: _Buffer(
            np.concatenate([buffer.values, second[0][name].values]),
            np.concatenate([buffer.valid, second[0][name].valid]),
        )
        for name, buffer in first[0].items()
    }
    return buffers, first[1] + second[1]


def _failed_row(layout: Layout, exc: Exception) -> tuple[dict[str, _Buffer], list[str | None]]:
    """One row whose computation failed: no results, and its error naming the failure."""
    buffers = {
        spec.name: _Buffer(
            np.zeros(1, np.float64 if spec.kind is OutKind.FLOAT else np.int64), np.zeros(1, bool)
        )
        for spec in layout.outputs()
    }
    first_line = (str(exc).strip().splitlines() or [""])[0][:160]
    message = (
        f"row = (this row): could not be computed ({type(exc).__name__}: {first_line}); "
        f"please report it ({scalar.RUNNER_LIMIT})"
    )
    return buffers, [message]


def _stored(value: object, kind: OutKind) -> int | float:
    if kind is OutKind.MONEY:
        assert isinstance(value, Decimal)
        return decimal_cents(value)
    if kind is OutKind.FLOAT:
        return float(value)  # type: ignore[arg-type]
    return int(value)  # type: ignore[call-overload, no-any-return]


# ======================================================================= result frame


class _Sink:
    """The results of a whole frame, filled chunk by chunk."""

    def __init__(self, n: int, specs: list[OutputSpec], money: Money) -> None:
        self.specs = specs
        self.money = money
        self.columns: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
        for spec in specs:
            if spec.kind is OutKind.FLOAT or (spec.kind is OutKind.MONEY and money == "float"):
                self.columns[spec.name] = (np.full(n, np.nan), None)
            elif spec.kind is OutKind.MONEY and money == "decimal":
                self.columns[spec.name] = (np.full(n, None, dtype=object), None)
            elif spec.kind is OutKind.BOOL:
                self.columns[spec.name] = (np.zeros(n, bool), np.ones(n, bool))
            else:
                self.columns[spec.name] = (np.zeros(n, np.int64), np.ones(n, bool))
        self.errors = np.full(n, None, dtype=object)

    def put(self, start: int, buffers: dict[str, _Buffer], errors: list[str | None]) -> None:
        stop = start + len(errors)
        for spec in self.specs:
            buffer = buffers[spec.name]
            target, mask = self.columns[spec.name]
            part = target[start:stop]
            valid = buffer.valid
            if spec.kind is OutKind.FLOAT:
                np.copyto(part, buffer.values, where=valid)
            elif spec.kind is OutKind.MONEY and self.money == "float":
                # cents / 100 is the double nearest the decimal amount (15 digits at most)
                np.divide(buffer.values, 100, out=part, where=valid)
            elif spec.kind is OutKind.MONEY and self.money == "decimal":
                for i in np.flatnonzero(valid):
                    part[i] = Decimal(int(buffer.values[i])).scaleb(-2)
            else:
                part[:] = buffer.values.astype(part.dtype)
                assert mask is not None
                mask[start:stop] = ~valid
        self.errors[start:stop] = errors

    def arrays(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for spec in self.specs:
            values, mask = self.columns[spec.name]
            if mask is None:
                out[spec.name] = values
            elif spec.kind is OutKind.BOOL:
                out[spec.name] = pd.arrays.BooleanArray(values, mask)
            else:
                out[spec.name] = pd.arrays.IntegerArray(values, mask)
        return out


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
) -> pd.DataFrame:
    """The pandas engine on one frame (the whole table, or one Dask partition)."""
    n = len(frame)
    sink = _Sink(n, layout.outputs(), money)
    bar: Any = None
    if progress:
        from nj_incentives.progress import bar as progress_bar

        # rows in steps of at most PROGRESS_ROWS, so that the bar moves
        chunk_rows = min(chunk_rows, PROGRESS_ROWS)
        bar = progress_bar(n, progress_delay, desc="scenarios", unit="row", unit_scale=True)
    try:
        for start, stop in _chunks(n, chunk_rows):
            buffers, errors = _isolated_chunk(frame.iloc[start:stop], layout, force_scalar)
            sink.put(start, buffers, errors)
            del buffers
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
    columns.update(sink.arrays())
    return pd.DataFrame(columns, index=frame.index, copy=False)


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
    check_columns(df.columns, keep)
    clash = {"id", "label", "error"} & set(keep)
    if clash:
        raise ScenarioError(f"keep: {', '.join(sorted(clash))} is always in the results")
    if "id" not in df.columns:
        df = df.assign(id=np.arange(1, len(df) + 1))
    if layout is None:
        layout = plan_layout(df, detail)
    elif layout.detail != detail:
        layout = replace(layout, detail=detail)
    if engine == "pandas":
        return _run_frame(
            df, layout, money, keep, chunk_rows, progress, progress_delay=progress_delay
        )
    if engine == "dask":
        return _run_dask(
            df, layout, money, keep, chunk_rows, scheduler, npartitions, progress, progress_delay
        )
    raise ScenarioError(f"engine must be 'pandas' or 'dask', not {engine!r}")


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
    with dask.config.set({"dataframe.convert-string": False}):
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
