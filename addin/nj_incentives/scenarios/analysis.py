"""What a run's results say: percentiles per output, a tornado chart, a distribution plot.

- :func:`summary`: count, mean, min, P5, P10, P25, P50, P75, P90, P95, max of every
  numeric result column (blank results, i.e. sections not computed or failed, are left
  out of each column's figures).
- :func:`tornado`: for each varied input, the target output with that input at its low
  and at its high value and every other input at the base case (one at a time), sorted
  by the swing. Low / base / high: a grid's smallest, base-row (else middle) and largest
  value; a Monte Carlo draw's P10 / P50 / P90; otherwise (a plain table) the P10 / P50 /
  P90 of the column across rows, over the first row as the base case.
- :func:`distribution`: the histogram of the target output.

Charts are drawn with matplotlib's Agg canvas (no display, no pyplot state) as PNG; the
XLSX writer draws the same data as native Excel charts (:mod:`~.io`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nj_incentives.scenarios.columns import Kind, ScenarioError, input_spec

__all__ = [
    "PERCENTILES",
    "Tornado",
    "charted",
    "distribution",
    "distribution_png",
    "input_ranges",
    "numeric_outputs",
    "summary",
    "tornado",
    "tornado_png",
]

PERCENTILES = (5, 10, 25, 50, 75, 90, 95)
_NOT_OUTPUTS = {"id", "label", "error"}


def numeric_outputs(results: pd.DataFrame, inputs: Sequence[str] = ()) -> list[str]:
    """The numeric result columns (not id / label / echoed inputs)."""
    out = []
    for column in results.columns:
        name = str(column)
        if name in _NOT_OUTPUTS or name in inputs or input_spec(name) is not None:
            continue
        dtype = results[column].dtype
        if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
            out.append(name)
        elif dtype is np.dtype(object) and name.startswith(("grant_", "installment_", "credit_")):
            out.append(name)  # money="decimal"
    return out


def _floats(series: pd.Series) -> np.ndarray:
    return pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def summary(results: pd.DataFrame, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Percentiles of every numeric result column: one row per column."""
    names = list(columns) if columns is not None else numeric_outputs(results)
    rows = []
    for name in names:
        values = _floats(results[name])
        values = values[~np.isnan(values)]
        row: dict[str, object] = {"output": name, "count": int(values.size)}
        if values.size:
            row["mean"] = float(values.mean())
            row["min"] = float(values.min())
            for p, q in zip(PERCENTILES, np.percentile(values, PERCENTILES), strict=True):
                row[f"p{p}"] = float(q)
            row["max"] = float(values.max())
        rows.append(row)
    columns_out = ["output", "count", "mean", "min", *(f"p{p}" for p in PERCENTILES), "max"]
    return pd.DataFrame(rows, columns=columns_out)


# ======================================================================= tornado


@dataclass(frozen=True)
class Tornado:
    """The tornado of one target: one row per input, largest swing first."""

    target: str
    base_value: float
    table: pd.DataFrame  # input, low, base, high, target_low, target_high, swing


def _rounded(value: float, column: str) -> float:
    found = input_spec(column)
    kind = found[0].kind if found else Kind.MONEY
    places = {Kind.MONEY: 2, Kind.COUNT: 0, Kind.POSITIONS: 0}.get(kind, 4)
    return float(np.round(value, places))


def _numeric(values: Sequence[object] | np.ndarray) -> np.ndarray | None:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    array = array[~np.isnan(array)]
    return array if array.size else None


def input_ranges(
    scenarios: pd.DataFrame,
    varied: Sequence[str],
    *,
    grid: Mapping[str, Sequence[object]] | None = None,
    base: Mapping[str, object] | None = None,
) -> dict[str, tuple[float, float, float]]:
    """(low, base, high) of each numeric varied input (see the module docstring)."""
    ranges: dict[str, tuple[float, float, float]] = {}
    for column in varied:
        found = input_spec(column)
        if found is None or found[0].kind in (Kind.DATE, Kind.BOOL, Kind.CHOICE):
            continue
        if grid is not None and column in grid:
            values = _numeric(list(grid[column]))
            if values is None:
                continue
            middle = float(np.sort(values)[(values.size - 1) // 2])
            given = _numeric([(base or {}).get(column)])
            centre = float(given[0]) if given is not None else middle
            ranges[column] = (float(values.min()), centre, float(values.max()))
        else:
            values = _numeric(pd.to_numeric(scenarios[column], errors="coerce").to_numpy())
            if values is None:
                continue
            low, mid, high = np.percentile(values, (10, 50, 90))
            ranges[column] = tuple(_rounded(v, column) for v in (low, mid, high))  # type: ignore[assignment]
        if ranges[column][0] == ranges[column][2]:
            del ranges[column]  # does not vary
    return ranges


def tornado(
    base_row: Mapping[str, object],
    ranges: Mapping[str, tuple[float, float, float]],
    target: str,
    run: Callable[[pd.DataFrame], pd.DataFrame],
) -> Tornado:
    """One-at-a-time sensitivity of ``target`` to each input over its (low, high)."""
    base = {**base_row, **{column: r[1] for column, r in ranges.items()}}
    rows = [dict(base)]
    for column, (low, _, high) in ranges.items():
        rows.append({**base, column: low})
        rows.append({**base, column: high})
    frame = pd.DataFrame(rows)
    frame["id"] = [f"tornado-{i}" for i in range(len(rows))]
    results = run(frame)
    if target not in results.columns:
        raise ScenarioError(f"--target {target!r} is not a result column of this run")
    values = _floats(results[target])
    table = []
    for i, (column, (low, centre, high)) in enumerate(ranges.items()):
        at_low, at_high = values[1 + 2 * i], values[2 + 2 * i]
        table.append(
            {
                "input": column,
                "low": low,
                "base": centre,
                "high": high,
                "target_low": at_low,
                "target_high": at_high,
                "swing": abs(at_high - at_low),
            }
        )
    frame_out = pd.DataFrame(
        table, columns=["input", "low", "base", "high", "target_low", "target_high", "swing"]
    )
    frame_out = frame_out.sort_values("swing", ascending=False, na_position="last", kind="stable")
    return Tornado(target, float(values[0]), frame_out.reset_index(drop=True))


def distribution(values: pd.Series, bins: int = 30) -> pd.DataFrame:
    """Histogram of a result column: bin_low, bin_high, count."""
    data = _floats(values)
    data = data[~np.isnan(data)]
    if not data.size:
        return pd.DataFrame(columns=["bin_low", "bin_high", "count"])
    counts, edges = np.histogram(data, bins=bins)
    return pd.DataFrame({"bin_low": edges[:-1], "bin_high": edges[1:], "count": counts})


# ======================================================================= PNG


def _figure(width: float, height: float):  # type: ignore[no-untyped-def]
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(figure)
    return figure


def charted(result: Tornado) -> pd.DataFrame:
    """The tornado rows a chart shows: those that move the target (all, if none does)."""
    table = result.table.dropna(subset=["target_low", "target_high"])
    moving = table[table["swing"] > 0]
    return moving if len(moving) else table


def tornado_png(result: Tornado, path: Path) -> None:
    """The tornado chart as a PNG: bars from the base value to the target at low / high."""
    table = charted(result)
    figure = _figure(8, max(2.5, 0.45 * len(table) + 1.5))
    axes = figure.add_subplot()
    names = list(table["input"])[::-1]
    lows = table["target_low"].to_numpy()[::-1] - result.base_value
    highs = table["target_high"].to_numpy()[::-1] - result.base_value
    positions = np.arange(len(names))
    axes.barh(positions, lows, left=result.base_value, color="#4c72b0", label="input at low")
    axes.barh(positions, highs, left=result.base_value, color="#dd8452", label="input at high")
    axes.axvline(result.base_value, color="black", linewidth=0.8)
    axes.set_yticks(positions, names)
    axes.set_xlabel(f"{result.target} (base case {result.base_value:,.2f})")
    axes.set_title(f"Tornado: effect of each input on {result.target}")
    axes.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, format="png")


def distribution_png(values: pd.Series, target: str, path: Path, bins: int = 30) -> None:
    """The distribution of the target as a PNG histogram with P5 / P50 / P95 marked."""
    data = _floats(values)
    data = data[~np.isnan(data)]
    figure = _figure(8, 4.5)
    axes = figure.add_subplot()
    if data.size:
        axes.hist(data, bins=bins, color="#4c72b0", edgecolor="white")
        for p, style in ((5, ":"), (50, "-"), (95, ":")):
            q = float(np.percentile(data, p))
            axes.axvline(q, color="black", linestyle=style, linewidth=1, label=f"P{p} {q:,.2f}")
        axes.legend(fontsize="small")
    axes.set_xlabel(target)
    axes.set_ylabel("scenarios")
    axes.set_title(f"Distribution of {target} ({data.size:,} scenarios)")
    figure.tight_layout()
    figure.savefig(path, format="png")
