"""``nj-incentives scenarios``: run a table, a grid or a Monte Carlo draw of scenarios.

    nj-incentives scenarios INPUT -o OUTPUT [--grid SPEC | --monte-carlo N --distributions SPEC
        [--seed S]] [--target COLUMN] [--engine pandas|dask [--scheduler ADDRESS]]

INPUT is a scenario table (CSV, XLSX, Parquet; one scenario per row, columns in
``docs/scenarios.md``); with ``--grid`` or ``--monte-carlo`` its rows are the base cases.
OUTPUT's extension picks the format (.csv, .xlsx, .parquet). Beside the results the run
writes a summary (percentiles per output), and with ``--target`` a tornado chart and a
distribution plot (PNG files, and native charts in an XLSX output). Every run is
stamped (see :mod:`nj_incentives.scenarios.io`). Exit status: 0 when the run completed
(rows with errors included: their count is printed), 1 when it could not run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import secrets
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from nj_incentives import LAW_CURRENT_TO, __version__

__all__ = ["add_arguments", "run"]

_EPILOG = """\
grid SPEC: "pct=0.3,0.4,0.5;year1_new=5:20:5" (values, or start:stop:step inclusive), or a
  .json/.yaml file mapping each column to a list.
distributions SPEC: "pct=uniform(0.2,0.5);year1_new=poisson(12)" or a .json/.yaml
  file; see docs/scenarios.md for every distribution and option.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``nj-incentives scenarios``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = _EPILOG
    parser.add_argument("input", type=Path, help="scenario table: .csv, .xlsx or .parquet")
    parser.add_argument(
        "-o", "--output", type=Path, required=True, help="results file: .csv, .xlsx or .parquet"
    )
    parser.add_argument("--sheet", help="sheet of an XLSX input (default: the first)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--grid", metavar="SPEC", help="cartesian product of values over each row")
    mode.add_argument(
        "--monte-carlo", metavar="N", type=int, help="N random draws over each row (reproducible)"
    )
    parser.add_argument(
        "--distributions", metavar="SPEC", help="what --monte-carlo draws (inline or a file)"
    )
    parser.add_argument(
        "--seed", type=int, help="random seed of --monte-carlo (default: a new one, stamped)"
    )
    parser.add_argument("--target", metavar="COLUMN", help="result column for the charts")
    parser.add_argument("--bins", type=int, default=30, help="histogram bins (default 30)")
    parser.add_argument("--engine", choices=("pandas", "dask"), default="pandas")
    parser.add_argument(
        "--scheduler", metavar="ADDRESS", help="Dask scheduler address (tcp://host:8786)"
    )
    parser.add_argument(
        "--partitions", type=int, help="Dask partitions (default: 250,000 rows each)"
    )
    parser.add_argument(
        "--money",
        choices=("float", "cents"),
        default="float",
        help="money as dollars (default) or as integer cents",
    )
    parser.add_argument(
        "--totals-only", action="store_true", help="no per-year / per-period columns"
    )
    parser.add_argument(
        "--keep",
        action="append",
        default=[],
        metavar="COLUMN",
        help="input column to copy to the results",
    )
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None)
    progress.add_argument("--no-progress", dest="progress", action="store_false")


def _fail(message: str) -> int:
    print(f"nj-incentives scenarios: error: {message}", file=sys.stderr)
    return 1


def run(args: argparse.Namespace) -> int:
    """Run the command; the exit status."""
    from nj_incentives.scenarios.columns import ScenarioError

    try:
        return _run(args)
    except ScenarioError as error:
        return _fail(str(error))
    except OSError as error:  # a file that cannot be read or written: no traceback
        return _fail(f"{error.filename or ''} {error.strerror or error}".strip())


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))


def _run(args: argparse.Namespace) -> int:
    from nj_incentives.scenarios import analysis, generate
    from nj_incentives.scenarios.columns import ScenarioError, check_columns
    from nj_incentives.scenarios.io import (
        Outputs,
        file_sha256,
        format_of,
        planned_paths,
        read_table,
        refuse_inputs,
        write_results,
    )
    from nj_incentives.scenarios.runner import run_scenarios

    started = time.perf_counter()
    source: Path = args.input
    output: Path = args.output
    format_of(output)
    spec_files = [Path(s) for s in (args.grid, args.distributions) if s and Path(s).is_file()]
    inputs = [source, *spec_files]
    refuse_inputs([output], inputs)
    if args.monte_carlo is None and (args.distributions or args.seed is not None):
        raise ScenarioError("--distributions and --seed go with --monte-carlo N")
    if args.monte_carlo is not None and not args.distributions:
        raise ScenarioError("--monte-carlo N needs --distributions SPEC (what to draw)")
    if args.scheduler and args.engine != "dask":
        raise ScenarioError("--scheduler goes with --engine dask")

    base = read_table(source, args.sheet)
    check_columns(base.columns, args.keep)
    hasher = hashlib.sha256(file_sha256(source).encode())
    stamp: dict[str, Any] = {
        "package": "nj-incentives",
        "version": __version__,
        "law_current_to": LAW_CURRENT_TO,
        "input_file": source.name,
        "input_file_sha256": file_sha256(source),
        "created_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "engine": args.engine,
    }
    varied: list[str] = []
    grid: dict[str, list[object]] | None = None
    if args.grid:
        grid = generate.parse_grid(args.grid)
        scenarios = generate.make_grid(base, grid)
        varied = list(grid)
        stamp["mode"] = "grid"
        stamp["grid"] = grid
        hasher.update(_canonical({"grid": grid, "sheet": args.sheet}).encode())
    elif args.monte_carlo is not None:
        dists = generate.parse_distributions(args.distributions)
        seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
        scenarios = generate.monte_carlo(base, dists, args.monte_carlo, seed)
        varied = [d.column for d in dists]
        spec = {d.column: d.describe() for d in dists}
        stamp.update(mode="monte-carlo", seed=seed, draws=args.monte_carlo, distributions=spec)
        hasher.update(
            _canonical(
                {"mc": spec, "n": args.monte_carlo, "seed": seed, "sheet": args.sheet}
            ).encode()
        )
    else:
        scenarios = base
        stamp["mode"] = "table"
        hasher.update(_canonical({"sheet": args.sheet}).encode())
    stamp["inputs_sha256"] = hasher.hexdigest()

    progress = args.progress if args.progress is not None else len(scenarios) >= 200_000
    keep = [c for c in args.keep if c in scenarios.columns]
    options: dict[str, Any] = {
        "money": args.money,
        "detail": not args.totals_only,
        "keep": keep,
    }
    results = run_scenarios(
        scenarios,
        engine=args.engine,
        progress=progress,
        scheduler=args.scheduler,
        npartitions=args.partitions,
        **options,
    )
    if varied:  # echo the varied inputs after id / label / error
        at = list(results.columns).index("error") + 1
        for offset, column in enumerate(varied):
            results.insert(at + offset, column, scenarios[column].to_numpy())
    errors = int(results["error"].notna().sum())
    stamp.update(rows=len(results), rows_with_errors=errors)

    summary = analysis.summary(results, analysis.numeric_outputs(results, varied))
    outputs = Outputs(results=results, stamp=stamp, summary=summary)
    if args.target:
        _charts(args, outputs, base, scenarios, varied, grid, options)
    refuse_inputs(planned_paths(output, outputs), inputs)
    written = write_results(output, outputs, inputs)

    elapsed = time.perf_counter() - started
    print(f"{len(results):,} scenarios in {elapsed:.1f} s; {errors:,} with errors")
    if args.target and outputs.target:
        row = summary.loc[summary["output"] == outputs.target]
        if len(row) and row["count"].iloc[0]:
            r = row.iloc[0]
            print(
                f"{outputs.target}: P5 {r['p5']:,.2f}  P50 {r['p50']:,.2f}  P95 {r['p95']:,.2f}"
                f"  mean {r['mean']:,.2f}"
            )
    if "seed" in stamp:
        print(f"seed: {stamp['seed']}")
    for path in written:
        print(f"wrote {path}")
    return 0


def _charts(
    args: argparse.Namespace,
    outputs: Any,
    base: pd.DataFrame,
    scenarios: pd.DataFrame,
    varied: list[str],
    grid: dict[str, list[object]] | None,
    options: dict[str, Any],
) -> None:
    """The tornado and the distribution of ``--target`` (data, PNG renderers)."""
    from nj_incentives.scenarios import analysis
    from nj_incentives.scenarios.columns import ScenarioError, input_spec
    from nj_incentives.scenarios.runner import run_scenarios

    target = args.target
    numeric = analysis.numeric_outputs(outputs.results, varied)
    if target not in numeric:
        raise ScenarioError(
            f"--target {target!r} is not a numeric result column; choose one of: "
            + ", ".join(numeric[:12])
            + (", ..." if len(numeric) > 12 else "")
        )
    outputs.target = target
    outputs.distribution = analysis.distribution(outputs.results[target], args.bins)
    inputs = varied or [
        str(c)
        for c in scenarios.columns
        if input_spec(str(c)) is not None and scenarios[c].nunique(dropna=True) > 1
    ]
    base_row: dict[str, Any] = {str(k): v for k, v in base.iloc[0].items()} if len(base) else {}
    ranges = analysis.input_ranges(scenarios, inputs, grid=grid, base=base_row)
    renderers: dict[str, Any] = {}
    if ranges:
        columns = set(scenarios.columns)
        if not varied:  # a plain table: the first row that has the target
            found = outputs.results[target].notna().to_numpy().nonzero()[0]
            picked = scenarios.iloc[int(found[0]) if len(found) else 0]
            base_row = {str(k): v for k, v in picked.items()}
        row = {k: v for k, v in base_row.items() if k in columns}

        def run(frame: pd.DataFrame) -> pd.DataFrame:
            return run_scenarios(
                frame, **{**options, "keep": [c for c in options["keep"] if c in frame]}
            )

        result = analysis.tornado(row, ranges, target, run)
        outputs.tornado = result
        renderers["tornado"] = lambda path: analysis.tornado_png(result, path)
    values = outputs.results[target]
    renderers["distribution"] = lambda path: analysis.distribution_png(
        values, target, path, args.bins
    )
    outputs.pngs = renderers
