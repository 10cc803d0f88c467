"""What a run's results say: percentiles per output, a tornado chart, a distribution plot.

- :func:`summary`: count, mean, min, P5, P10, P25, P50, P75, P90, P95, max of every
  numeric result column (blank results, i.e. sections not computed or failed, are left
  out of each column's figures), in one pass (:class:`SummaryBuilder`); percentiles by
  nearest rank (each one of the values: in cents for money); beyond
  :data:`SAMPLE_ROWS` rows they come from a uniform sample of that many rows (its size
  in ``percentile_count``), except for the run's target, always exact: the P95 the
  command prints, the summary's and the chart's are one figure.
- :func:`tornado`: for each varied input, the target output with that input at its low
  and at its high value and every other input at the base case (one at a time), sorted
  by the swing. The base case is always a real one, named on the chart: the base row's
  stated input values (a grid or a Monte Carlo draw; a varied column the base row leaves
  blank takes the grid's middle value or the draws' median, and the label says so), or,
  for a plain table, the first scenario with the target, by its id. Low / high: a grid's
  smallest and largest value; a Monte Carlo draw's or a table column's P10 / P90.
- :func:`distribution`: the histogram of the target output (not for a grid, whose
  scenarios are chosen, not drawn), only with at least
  :data:`MIN_HISTOGRAM_VALUES` computed values; bins chosen from the data (numpy's
  ``"auto"``: the larger of Sturges and Freedman-Diaconis) unless a number is given. P5 /
  P95 are marked only from :data:`MIN_TAIL_VALUES` values (fewer cannot locate a 5% tail).

- :func:`sweep`: the target across the input that moves it most (a line) and over the
  two that move it most (a heat map), every other input at the tornado's base case; a
  grid's own values (up to :data:`HEATMAP_STEPS` a side), else evenly spread from low to
  high.

Charts are drawn with matplotlib's Agg canvas (no display, no pyplot state) as PNG; the
XLSX writer draws the same data as native Excel charts (:mod:`~.io`). Axes and bars carry
human labels (:func:`label`: "Total grant paid", not ``grant_total``) and money axes are
in dollars (``$1,250,000``, never a ``1e6`` offset).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nj_incentives.functions.catalog import ERTC_PERIOD_COLUMNS
from nj_incentives.scenarios.columns import Kind, ScenarioError, input_spec

__all__ = [
    "HEATMAP_STEPS",
    "LINE_STEPS",
    "MIN_HISTOGRAM_VALUES",
    "MIN_TAIL_VALUES",
    "PERCENTILES",
    "SAMPLE_ROWS",
    "SummaryBuilder",
    "Sweep",
    "Tornado",
    "charted",
    "distribution",
    "distribution_png",
    "format_value",
    "heatmap_png",
    "input_ranges",
    "label",
    "line_png",
    "numeric_outputs",
    "percentile_marks",
    "summary",
    "sweep",
    "sweep_values",
    "tornado",
    "tornado_png",
    "unit",
]

#: A histogram needs at least this many computed values (fewer: the chart is not drawn).
MIN_HISTOGRAM_VALUES = 30
#: P5 / P95 are marked from this many values (at 100, 5 values lie beyond each).
MIN_TAIL_VALUES = 100

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


#: Rows whose values give the percentiles of a larger run (a uniform sample, fixed seed).
SAMPLE_ROWS = 50_000
#: Rows of a column summarised at a time (512 KiB of float64: a block stays in the cache).
_BLOCK_ROWS = 65_536
_SUMMARY_COLUMNS = [
    "output",
    "count",
    "mean",
    "min",
    *(f"p{p}" for p in PERCENTILES),
    "max",
    "percentile_count",
]


@functools.lru_cache(maxsize=4)
def _sample_rows(total_rows: int) -> np.ndarray:
    """The row numbers whose values the percentiles of a run of ``total_rows`` rows come
    from (a fixed seed); computed once per process and run: a Dask worker builds a summary
    for every task of a run (24 ms each at 2,000,000 rows). Read-only."""
    rng = np.random.default_rng(20261201)
    picks = np.sort(rng.choice(total_rows, SAMPLE_ROWS, replace=False))
    picks.flags.writeable = False
    return picks


class SummaryBuilder:
    """The summary of a run built in one pass over its results, chunk by chunk.

    Count, mean, min and max are exact over every row. The percentiles (by nearest rank:
    each is a value of the column, a money column's an amount to the cent) are exact for
    a run of up to :data:`SAMPLE_ROWS` rows and for the columns ``exact``; for a larger
    run the others are those of a uniform random sample of that many rows (chosen by row
    number with a fixed seed, so the same run gives the same summary however it is
    chunked); ``percentile_count`` says how many values they come from (below ``count``:
    a sample, named so).
    """

    def __init__(
        self, total_rows: int, columns: Sequence[str] | None = None, exact: Sequence[str] = ()
    ) -> None:
        self.total = total_rows
        self.columns = list(columns) if columns is not None else None
        self.exact = set(exact)
        self.picks: np.ndarray | None = None
        if total_rows > SAMPLE_ROWS:
            self.picks = _sample_rows(total_rows)
        self._stats: dict[str, list[float]] = {}
        self._samples: dict[str, list[np.ndarray]] = {}

    def add(self, results: pd.DataFrame, start: int = 0) -> None:
        """Results of rows ``start`` .. ``start + len(results) - 1`` of the run."""
        if self.columns is None:
            self.columns = numeric_outputs(results)
        n = len(results)
        # blocks of rows: a column is read from memory once, then counted, summed and
        # searched for its extremes (and sampled) while the block is in the cache
        blocks = []
        for lo in range(0, n, _BLOCK_ROWS):
            hi = min(n, lo + _BLOCK_ROWS)
            if self.picks is None:
                taken: np.ndarray | slice = slice(None)
            else:
                first, last = np.searchsorted(self.picks, [start + lo, start + hi])
                taken = self.picks[first:last] - (start + lo)
            blocks.append((lo, hi, taken))
        for name in self.columns:
            series = results[name]
            if series.dtype == np.float64:
                values = series.to_numpy()
            elif pd.api.types.is_integer_dtype(series.dtype):
                values = series.to_numpy(dtype=np.float64, na_value=np.nan)
            else:
                values = _floats(series)
            stats = self._stats.setdefault(name, [0, 0.0, np.inf, -np.inf])
            samples = self._samples.setdefault(name, [])
            every = name in self.exact
            for lo, hi, taken in blocks:
                block = values[lo:hi]
                samples.append(block if every else block[taken])
                total = np.add.reduce(block)  # the plain (pairwise) sum: NaN if any blank
                if total == total:  # no blank in the block (the values are finite)
                    stats[0] += len(block)
                    stats[1] += float(total)
                    stats[2] = min(stats[2], float(np.min(block)))
                    stats[3] = max(stats[3], float(np.max(block)))
                    continue
                present = block == block  # not NaN
                count = int(np.count_nonzero(present))
                if count:  # no copies: sum over the present values, min / max skipping NaN
                    stats[0] += count
                    stats[1] += float(np.add.reduce(block, where=present))
                    stats[2] = min(stats[2], float(np.fmin.reduce(block)))
                    stats[3] = max(stats[3], float(np.fmax.reduce(block)))

    @classmethod
    def merged(cls, parts: Sequence[SummaryBuilder]) -> SummaryBuilder:
        """One builder from the builders of consecutive parts of a run, in row order."""
        whole = cls(parts[0].total if parts else 0)
        for part in parts:
            if whole.columns is None:
                whole.columns = part.columns
            for name, (count, total, low, high) in part._stats.items():
                stats = whole._stats.setdefault(name, [0, 0.0, np.inf, -np.inf])
                stats[0] += count
                stats[1] += total
                stats[2] = min(stats[2], low)
                stats[3] = max(stats[3], high)
            for name, samples in part._samples.items():
                whole._samples.setdefault(name, []).extend(samples)
        return whole

    def frame(self) -> pd.DataFrame:
        rows = []
        for name in self.columns or []:
            count, total, low, high = self._stats.get(name, [0, 0.0, np.inf, -np.inf])
            row: dict[str, object] = {"output": name, "count": int(count)}
            if count:
                parts = self._samples[name]
                sample = np.concatenate(parts) if len(parts) > 1 else parts[0]
                sample = sample[~np.isnan(sample)]
                row["mean"] = total / count
                row["min"] = low
                for p, q in zip(PERCENTILES, _percentiles(sample), strict=True):
                    row[f"p{p}"] = float(q)
                row["max"] = high
                row["percentile_count"] = int(sample.size)
            else:
                row["percentile_count"] = 0
            rows.append(row)
        return pd.DataFrame(rows, columns=_SUMMARY_COLUMNS)


def _percentiles(values: np.ndarray) -> np.ndarray:
    """The :data:`PERCENTILES` of ``values`` by nearest rank (numpy's ``inverted_cdf``:
    the smallest value with at least p% of the values at or below it), from one sort.
    Each is one of the values: a money column's P95 is an amount, to the cent, that a
    scenario produced (an interpolated 18,810.8295 is no amount of money)."""
    ordered = np.sort(values)
    count = ordered.size
    # rank ceil(p x n / 100) in whole numbers (no float rounding at p x n / 100 = k)
    ranks = np.array([max(1, -(-p * count // 100)) for p in PERCENTILES], dtype=np.int64)
    out: np.ndarray = ordered[ranks - 1]
    return out


def percentile_marks(values: pd.Series | np.ndarray) -> dict[int, float]:
    """P5, P50 and P95 of every computed value (blanks left out), as the summary gives
    them for the run's target (:func:`summary` with ``exact``): the chart's marks."""
    data = _floats(pd.Series(values)) if not isinstance(values, np.ndarray) else values
    data = data[~np.isnan(data)]
    found = dict(zip(PERCENTILES, _percentiles(data).tolist(), strict=True))
    return {p: float(found[p]) for p in (5, 50, 95)}


def summary(
    results: pd.DataFrame, columns: Sequence[str] | None = None, exact: Sequence[str] = ()
) -> pd.DataFrame:
    """Percentiles of every numeric result column: one row per column (exact up to
    :data:`SAMPLE_ROWS` rows, from a sample of that many beyond: :class:`SummaryBuilder`;
    always exact for the columns ``exact``: a run's target, whose P5 / P50 / P95 the
    command prints and the chart marks)."""
    builder = SummaryBuilder(len(results), columns, exact)
    builder.add(results)
    return builder.frame()


# ======================================================================= labels

_LABELS = {
    # inputs
    "agreement_date": "Agreement date",
    "pct": "Grant percentage of withholdings",
    "partner_pct": "Grant percentage of partners' tax",
    "term": "Grant term (years)",
    "withholdings_growth": "Withholdings growth a year",
    "partner_tax_growth": "Partners' tax growth a year",
    "accrual_year": "Accrual year",
    "conversion_amount": "Amount converted",
    "approval_date": "Approval date",
    "operations_start": "Start of operations",
    "year1_new": "New positions, credit year one",
    "year2_new": "New positions, credit year two",
    "periods": "Privilege periods",
    "liability_growth": "Liability growth a year",
    "carryforward_years": "Carryforward limit (periods)",
    # outputs
    "grant_term": "Grant term (years)",
    "grant_before_cap_total": "Total grant before the cap",
    "grant_total": "Total grant paid",
    "grant_cap_reduction": "Reduction by the average cap",
    "conversion_paragraph": "Conversion paragraph of 34:1B-129e.",
    "conversion_first_year": "First tax year of the installments",
    "conversion_total": "Total converted to credits",
    "credit_applied_total": "Credit applied against the tax",
    "credit_refund_total": "Credit refunded as overpayment",
    "ertc_year1_credit": "ERTC, credit year one",
    "ertc_year2_credit": "ERTC, credit year two",
    "ertc_sustained_effort_ratio": "ERTC sustained-effort ratio",
    "ertc_year1_period": "Period of the year-one credit",
    "ertc_year2_period": "Period of the year-two credit",
    "ertc_credits_allowed": "ERTC allowed",
    "ertc_used": "ERTC used against the tax",
    "ertc_refunded": "ERTC refunded",
    "ertc_expired": "ERTC expired",
    "ertc_carried_forward": "ERTC carried forward",
}
_FAMILY_LABELS = (
    (r"withholdings_(\d+)", "Withholdings, grant year {}"),
    (r"new_employees_(\d+)", "New employees, grant year {}"),
    (r"partner_tax_(\d+)", "Partners' estimated tax, grant year {}"),
    (r"tax_liability_(\d+)", "Tax liability {}"),
    (r"period_end_(\d+)", "End of privilege period {}"),
    (r"liability_(\d+)", "Tax liability, period {}"),
    (r"other_credits_(\d+)", "Other credits, period {}"),
    (r"minimum_tax_(\d+)", "Minimum tax, period {}"),
    (r"grant_before_cap_(\d+)", "Grant before the cap, year {}"),
    (r"grant_(\d+)", "Grant paid, year {}"),
    (r"installment_(\d+)", "Credit installment {}"),
    (r"credit_applied_(\d+)", "Credit applied {}"),
    (r"credit_refund_(\d+)", "Credit refunded {}"),
    *(
        (rf"{column.scenario}_(\d+)", f"ERTC {column.header.lower()}, period {{}}")
        for column in ERTC_PERIOD_COLUMNS
    ),
)
_NOT_MONEY = {
    "grant_term",
    "conversion_paragraph",
    "conversion_first_year",
    "ertc_sustained_effort_ratio",
    "ertc_year1_period",
    "ertc_year2_period",
}


def label(column: str) -> str:
    """A column's name as a person reads it: ``grant_total`` -> "Total grant paid"."""
    if column in _LABELS:
        return _LABELS[column]
    for pattern, text in _FAMILY_LABELS:
        match = re.fullmatch(pattern, column)
        if match:
            return text.format(match.group(1))
    return column.replace("_", " ").strip().capitalize()


def unit(column: str) -> str:
    """ "money", "fraction" (a percentage), "count" or "number": how to show its values."""
    found = input_spec(column)
    if found is not None:
        kind = found[0].kind
        if kind is Kind.MONEY:
            return "money"
        if kind in (Kind.FRACTION, Kind.GROWTH):
            return "fraction"
        return "count" if kind in (Kind.COUNT, Kind.POSITIONS) else "number"
    if column in _NOT_MONEY:
        return "number" if column == "ertc_sustained_effort_ratio" else "count"
    return "money"  # every other result column is an amount of money


def format_value(value: float, column: str, whole: bool = False) -> str:
    """A value as the column's unit shows it: $1,250,000.00, 50%, 12."""
    if not np.isfinite(value):
        return "-"
    kind = unit(column)
    if kind == "money":
        text = f"${abs(value):,.0f}" if whole else f"${abs(value):,.2f}"
        return "-" + text if value < 0 else text
    if kind == "fraction":
        return f"{value * 100:,.4g}%"
    if kind == "count":
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
    return f"{value:,.4g}"


def _axis_formatter(column: str):  # type: ignore[no-untyped-def]
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda x, _pos: _tex(format_value(x, column, whole=True)))


def _tex(text: str) -> str:
    """Text for matplotlib, which reads a pair of ``$`` as mathematics."""
    return text.replace("$", r"\$")


# ======================================================================= tornado


@dataclass(frozen=True)
class Tornado:
    """The tornado of one target: one row per input, largest swing first."""

    target: str
    base_value: float
    table: pd.DataFrame  # input, low, base, high, target_low, target_high, swing
    #: what the base case is: "scenario 'x' as stated", "the base row's stated inputs"
    base_label: str = "the base case"


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
            given = _numeric([(base or {}).get(column)])
            centre = float(given[0]) if given is not None else mid
            ranges[column] = tuple(_rounded(v, column) for v in (low, centre, high))  # type: ignore[assignment]
        if ranges[column][0] == ranges[column][2]:
            del ranges[column]  # does not vary
    return ranges


def tornado(
    base_row: Mapping[str, object],
    ranges: Mapping[str, tuple[float, float, float]],
    target: str,
    run: Callable[[pd.DataFrame], pd.DataFrame],
    base_label: str = "the base case",
) -> Tornado:
    """One-at-a-time sensitivity of ``target`` to each input over its (low, high), every
    other input at ``base_row`` (the centre of each range: give the base row's own values
    as the centres, see :func:`input_ranges`, so the base case is that row)."""
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
    return Tornado(target, float(values[0]), frame_out.reset_index(drop=True), base_label)


def _bin_edges(data: np.ndarray, bins: int | str) -> np.ndarray:
    """Bin edges from the data (numpy's rule, or ``bins`` equal bins); a single value gets
    one bin around it."""
    if float(data.min()) == float(data.max()):
        centre = float(data.min())
        half = max(abs(centre) * 0.005, 0.5)
        return np.array([centre - half, centre + half])
    return np.histogram_bin_edges(data, bins=bins)


def distribution(values: pd.Series, bins: int | str = "auto") -> pd.DataFrame | None:
    """Histogram of a result column: bin_low, bin_high, count; None with fewer than
    :data:`MIN_HISTOGRAM_VALUES` computed values (a histogram of a handful says nothing)."""
    data = _floats(values)
    data = data[~np.isnan(data)]
    if data.size < MIN_HISTOGRAM_VALUES:
        return None
    counts, edges = np.histogram(data, bins=_bin_edges(data, bins))
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


#: Characters of a chart's caption line (a 9-inch figure at the default font size).
_CAPTION_CHARACTERS = 95


def tornado_png(result: Tornado, path: Path) -> None:
    """The tornado chart as a PNG: bars from the base value to the target at low / high,
    each input labelled with its low and high values, the base case named."""
    import textwrap

    table = charted(result)
    target = label(result.target)
    # the caption wrapped to the figure's width (one long line was cut off at the edge)
    caption = textwrap.wrap(
        f"{target}; base case {format_value(result.base_value, result.target)}: "
        f"{result.base_label}",
        _CAPTION_CHARACTERS,
    )
    figure = _figure(9, max(2.8, 0.55 * len(table) + 1.7 + 0.22 * len(caption)))
    axes = figure.add_subplot()
    names = [
        _tex(
            f"{label(str(name))}\n{format_value(low, str(name))} to"
            f" {format_value(high, str(name))} (base {format_value(base, str(name))})"
        )
        for name, low, base, high in zip(
            table["input"], table["low"], table["base"], table["high"], strict=True
        )
    ][::-1]
    lows = table["target_low"].to_numpy()[::-1] - result.base_value
    highs = table["target_high"].to_numpy()[::-1] - result.base_value
    positions = np.arange(len(names))
    axes.barh(positions, lows, left=result.base_value, color="#4c72b0", label="input at low")
    axes.barh(positions, highs, left=result.base_value, color="#dd8452", label="input at high")
    axes.axvline(result.base_value, color="black", linewidth=0.8)
    axes.set_yticks(positions, names, fontsize="small")
    axes.xaxis.set_major_formatter(_axis_formatter(result.target))
    axes.set_xlabel(_tex("\n".join(caption)))
    axes.set_title(f"Tornado: effect of each input on {target}")
    axes.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, format="png")


def distribution_png(values: pd.Series, target: str, path: Path, bins: int | str = "auto") -> bool:
    """The distribution of the target as a PNG histogram with its median marked (and P5 /
    P95 from :data:`MIN_TAIL_VALUES` values); False (nothing written) with fewer than
    :data:`MIN_HISTOGRAM_VALUES` values."""
    data = _floats(values)
    data = data[~np.isnan(data)]
    if data.size < MIN_HISTOGRAM_VALUES:
        return False
    figure = _figure(8, 4.5)
    axes = figure.add_subplot()
    axes.hist(data, bins=_bin_edges(data, bins), color="#4c72b0", edgecolor="white")
    marks = ((5, ":"), (50, "-"), (95, ":")) if data.size >= MIN_TAIL_VALUES else ((50, "-"),)
    found = percentile_marks(data)  # the summary's figures for the target (exact)
    for p, style in marks:
        q = found[p]
        shown = format_value(q, target)
        axes.axvline(q, color="black", linestyle=style, linewidth=1, label=_tex(f"P{p} {shown}"))
    axes.legend(loc="best", fontsize="small")
    axes.xaxis.set_major_formatter(_axis_formatter(target))
    axes.set_xlabel(label(target))
    axes.set_ylabel("scenarios")
    axes.set_title(f"Distribution of {label(target)} ({data.size:,} scenarios)")
    figure.tight_layout()
    figure.savefig(path, format="png")
    return True


# ======================================================================= heat map, line

#: Values of an input a heat map's side takes (a grid's own values when it has no more).
HEATMAP_STEPS = 15
#: Values of an input a line chart takes.
LINE_STEPS = 41


@dataclass(frozen=True)
class Sweep:
    """The target over one input (a line) or two (a heat map), every other input at the
    base case: ``values[i]`` at ``inputs[0] = axes[0][i]`` (a line), ``values[j, i]`` at
    ``inputs[0] = axes[0][i]`` and ``inputs[1] = axes[1][j]`` (a heat map)."""

    target: str
    inputs: tuple[str, ...]
    axes: tuple[tuple[float, ...], ...]
    values: np.ndarray
    base_label: str = "the base case"
    #: the first input's value in the base case (a line marks it)
    base: float | None = None


def sweep_values(
    column: str,
    ranges: Mapping[str, tuple[float, float, float]],
    grid: Mapping[str, Sequence[object]] | None,
    steps: int,
) -> list[float]:
    """The values an input takes in a heat map or a line: a grid's own (every one, or
    ``steps`` of them evenly spread), else ``steps`` from its low to its high (rounded
    to its unit: whole positions, cents)."""
    low, _, high = ranges[column]
    if grid is not None and column in grid:
        found = _numeric(list(grid[column]))
        values = np.unique(found) if found is not None else np.array([low, high])
        if values.size > steps:
            values = values[np.unique(np.linspace(0, values.size - 1, steps).round().astype(int))]
        return [float(v) for v in values]
    spread = np.linspace(low, high, steps)
    return sorted({_rounded(float(v), column) for v in spread})


def sweep(
    base_row: Mapping[str, object],
    ranges: Mapping[str, tuple[float, float, float]],
    inputs: Sequence[str],
    axes: Sequence[Sequence[float]],
    target: str,
    run: Callable[[pd.DataFrame], pd.DataFrame],
    base_label: str = "the base case",
) -> Sweep:
    """The target over one or two inputs (every combination of their ``axes``), every
    other input at the base case (the centres of ``ranges``, as the tornado's)."""
    base = {**base_row, **{column: r[1] for column, r in ranges.items()}}
    rows = []
    if len(inputs) == 1:
        rows = [{**base, inputs[0]: x} for x in axes[0]]
    else:
        rows = [{**base, inputs[0]: x, inputs[1]: y} for y in axes[1] for x in axes[0]]
    frame = pd.DataFrame(rows)
    frame["id"] = [f"sweep-{i}" for i in range(len(rows))]
    values = _floats(run(frame)[target])
    if len(inputs) == 2:
        values = values.reshape(len(axes[1]), len(axes[0]))
    centre = _numeric([base.get(inputs[0])])
    first = float(centre[0]) if centre is not None else None
    return Sweep(target, tuple(inputs), tuple(tuple(a) for a in axes), values, base_label, first)


def _caption(result: Sweep) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(f"Every other input: {result.base_label}", _CAPTION_CHARACTERS))


def line_png(result: Sweep, path: Path) -> None:
    """The target across one input as a PNG line (the base case marked)."""
    column = result.inputs[0]
    xs = np.asarray(result.axes[0])
    figure = _figure(8, 4.8)
    axes = figure.add_subplot()
    axes.plot(xs, result.values, color="#4c72b0", marker="o" if xs.size <= 15 else None)
    if result.base is not None:
        axes.axvline(result.base, color="black", linewidth=0.8, linestyle=":")
        shown = format_value(result.base, column)
        axes.annotate(
            _tex(f"base case {shown}"),
            (result.base, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(3, -12),
            textcoords="offset points",
            fontsize="small",
        )
    axes.xaxis.set_major_formatter(_axis_formatter(column))
    if unit(column) == "count":  # whole positions: no tick at 7.5
        from matplotlib.ticker import MaxNLocator

        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.yaxis.set_major_formatter(_axis_formatter(result.target))
    axes.set_xlabel(_tex(f"{label(column)}\n{_caption(result)}"))
    axes.set_ylabel(label(result.target))
    axes.grid(True, color="#dddddd")
    axes.set_title(f"{label(result.target)} across {label(column)}")
    figure.tight_layout()
    figure.savefig(path, format="png")


def heatmap_png(result: Sweep, path: Path) -> None:
    """The target over two inputs as a PNG heat map, each cell labelled with its value
    when the cells are few enough to read."""
    import textwrap

    x_column, y_column = result.inputs
    xs, ys = result.axes
    figure = _figure(9, 6.2)
    axes = figure.add_subplot()
    image = axes.imshow(result.values, origin="lower", aspect="auto", cmap="viridis")
    axes.set_xticks(
        range(len(xs)),
        [_tex(format_value(v, x_column, whole=True)) for v in xs],
        rotation=45,
        ha="right",
    )
    axes.set_yticks(range(len(ys)), [_tex(format_value(v, y_column, whole=True)) for v in ys])
    if len(xs) * len(ys) <= 64:
        middle = np.nanmean(result.values) if np.isfinite(result.values).any() else 0
        for j in range(len(ys)):
            for i in range(len(xs)):
                value = float(result.values[j, i])
                colour = "black" if value > middle else "white"
                shown = _tex(format_value(value, result.target, whole=True))
                axes.text(i, j, shown, ha="center", va="center", fontsize=7, color=colour)
    bar = figure.colorbar(image, ax=axes, format=_axis_formatter(result.target))
    bar.set_label(label(result.target))
    axes.set_xlabel(_tex(f"{label(x_column)}\n{_caption(result)}"))
    axes.set_ylabel(label(y_column))
    title = f"{label(result.target)} over {label(x_column)} and {label(y_column)}"
    axes.set_title("\n".join(textwrap.wrap(title, 80)))
    figure.tight_layout()
    figure.savefig(path, format="png")
