"""``nj-incentives scenarios``: run a table, a grid or a Monte Carlo draw of scenarios.

    nj-incentives scenarios INPUT -o OUTPUT [--grid SPEC | --monte-carlo N --distributions SPEC
        [--seed S]] [--target COLUMN] [--engine pandas|dask [--scheduler ADDRESS]]

INPUT is a scenario table (CSV, XLSX, Parquet; one scenario per row, columns in
``docs/scenarios.md``); with ``--grid`` or ``--monte-carlo`` its rows are the base cases.
OUTPUT's extension picks the format (.csv, .xlsx, .parquet). Beside the results the run
writes a summary (percentiles per output), and with ``--target`` a tornado chart and a
distribution plot (PNG files, and native charts in an XLSX output). Every run is
stamped (see :mod:`nj_incentives.scenarios.io`). Exit status (as every subcommand,
:data:`nj_incentives.cli.EXIT_CODES`): 0 every row computed; 1 the run completed but rows
have errors (the first ones are named, all are in the results' error column); 2 it could
not run (wrong arguments, an input missing or unreadable). ``--json`` prints the outcome
as one JSON document.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import click

from nj_incentives.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, json_option
from nj_incentives.support import files
from nj_incentives.support.progress import settings as progress_settings
from nj_incentives.version import LAW_CURRENT_TO, __version__

if TYPE_CHECKING:  # imported where a frame is made: the Dask engine's client does without
    import pandas as pd

__all__ = ["command", "run"]

_EPILOG = """\
\b
grid SPEC: "pct=0.3,0.4,0.5;year1_new=5:20:5" (values, or start:stop:step inclusive;
  percents too: pct=30%,40%,50%), or a .json/.yaml file mapping each column to a list.
\b
distributions SPEC: "pct=uniform(0.2,0.5);year1_new=poisson(12)" or a .json/.yaml
  file; see docs/scenarios.md for every distribution and option.
"""


class _Bins(click.ParamType):  # type: ignore[type-arg]
    """``auto`` (numpy's choice from the data, the default), ``fd``, ``sturges`` or N."""

    name = "bins"
    RULES = ("auto", "fd", "sturges", "doane", "scott", "stone", "rice", "sqrt")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int):
            return value
        text = str(value).strip().lower()
        if text in self.RULES:
            return text
        try:
            number = int(text)
        except ValueError:
            number = 0
        if number < 1:
            self.fail(
                f"{value!r}: expected a number of bins (e.g. 20) or a rule: "
                + ", ".join(self.RULES),
                param,
                ctx,
            )
        return number


def _positive(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    if value is not None and value < 1:
        raise click.BadParameter(f"{value}: expected a whole number of at least 1", ctx, param)
    return value


@click.command(
    "scenarios",
    help="Run a table, a grid or a Monte Carlo draw of scenarios on the calculation core. "
    "INPUT is a scenario table (.csv, .xlsx, .parquet; one scenario per row, columns in "
    "docs/scenarios.md); with --grid or --monte-carlo its rows are the base cases. The "
    "output's extension picks its format; a summary and a stamp are written beside it, and "
    "with --target a tornado chart and a distribution plot.",
    epilog=_EPILOG,
)
@click.argument("input", metavar="INPUT", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(path_type=Path),
    help="results file: .csv, .xlsx or .parquet",
)
@click.option("--sheet", help="sheet of an XLSX input (default: the first)")
@click.option("--grid", metavar="SPEC", help="cartesian product of values over each row")
@click.option(
    "--monte-carlo",
    metavar="N",
    type=int,
    callback=_positive,
    help="N random draws over each row (reproducible)",
)
@click.option("--distributions", metavar="SPEC", help="what --monte-carlo draws (inline or a file)")
@click.option("--seed", type=int, help="random seed of --monte-carlo (default: a new one, stamped)")
@click.option("--target", metavar="COLUMN", help="result column for the charts")
@click.option(
    "--bins",
    type=_Bins(),
    default="auto",
    show_default=True,
    help="histogram bins: a number or a rule numpy applies to the data (auto, fd, sturges)",
)
@click.option(
    "--engine", type=click.Choice(["pandas", "dask"]), default="pandas", show_default=True
)
@click.option("--scheduler", metavar="ADDRESS", help="Dask scheduler address (tcp://host:8786)")
@click.option(
    "--partitions",
    type=int,
    callback=_positive,
    help="Dask partitions (default: 250,000 rows each)",
)
@click.option(
    "--money",
    type=click.Choice(["float", "cents"]),
    default="float",
    show_default=True,
    help="money as dollars or as integer cents",
)
@click.option("--totals-only", is_flag=True, help="no per-year / per-period columns")
@click.option("--keep", multiple=True, metavar="COLUMN", help="input column to copy to the results")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="a progress bar on standard error (default: on a terminal, once the run has "
    "lasted 2 seconds)",
)
@click.option("--client", metavar="TEXT", help="engagement: the client (recorded in the stamp)")
@click.option("--entity-id", metavar="TEXT", help="engagement: the entity id (FEIN, NJ tax id)")
@click.option("--period", metavar="TEXT", help="engagement: the tax period(s) modelled")
@click.option("--preparer", metavar="TEXT", help="engagement: who prepared the run")
@click.option("--reviewer", metavar="TEXT", help="engagement: who reviews it")
@json_option
def command(**values: Any) -> int:
    """``nj-incentives scenarios``."""
    values["keep"] = list(values["keep"])
    return run(SimpleNamespace(**values))


def _fail(message: str, as_json: bool = False) -> int:
    print(f"nj-incentives scenarios: error: {message}", file=sys.stderr)
    if as_json:
        print(json.dumps({"status": EXIT_USAGE, "error": message}))
    return EXIT_USAGE


def run(args: Any) -> int:
    """Run the command (``args``: the options by name); the exit status."""
    from nj_incentives.scenarios.errors import ScenarioError

    as_json = bool(getattr(args, "as_json", False))
    try:
        return _run(args)
    except ScenarioError as error:
        return _fail(str(error), as_json)
    except files.DiskFullError as error:  # no room for an output: one line, exit 2
        return _fail(f"cannot write {error.filename}: {error.strerror}", as_json)
    except OSError as error:  # a file that cannot be read or written: no traceback
        return _fail(f"{error.filename or ''} {error.strerror or error}".strip(), as_json)


def _engagement(args: Any, moment: dt.datetime) -> dict[str, str]:
    """The engagement the run is for (the options; blank where not given), with the labels
    of the templates' engagement fields, dated the day of ``moment`` in UTC: the same
    instant and clock as the stamp's ``created_utc`` (and the memo's date)."""
    given = {
        "Client": "client",
        "Entity id": "entity_id",
        "Tax period(s)": "period",
        "Preparer": "preparer",
        "Reviewer": "reviewer",
    }
    found = {label: str(getattr(args, name, None) or "").strip() for label, name in given.items()}
    found["Date"] = moment.astimezone(dt.UTC).date().isoformat()
    return found


class _InputHashes:
    """The stamp's hashes: the input file's SHA-256, read in a thread from the start of
    the run (it reads the whole file, which the run's first chunk does not wait for: at
    2,000,000 rows 0.26-0.30 s that the run's first chunk or the Dask workers' first
    tasks had waited for), and the inputs hash over it and what :meth:`update` adds (the
    options that shape the rows). :meth:`into` waits for the file's hash and puts both
    in the stamp; a file that cannot be read raises there, as it did when read first."""

    def __init__(self, source: Path, file_sha256: Callable[[Path], str]) -> None:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(1, thread_name_prefix="nj-input-sha256")
        self._file = pool.submit(file_sha256, source)
        pool.shutdown(wait=False)
        self._added: list[bytes] = []

    def update(self, data: bytes) -> None:
        self._added.append(data)

    def into(self, stamp: dict[str, Any]) -> None:
        digest = self._file.result()
        hasher = hashlib.sha256(digest.encode())
        for data in self._added:
            hasher.update(data)
        stamp["input_file_sha256"] = digest
        stamp["inputs_sha256"] = hasher.hexdigest()


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))


def _run(args: Any) -> int:
    from nj_incentives.scenarios.errors import ScenarioError
    from nj_incentives.scenarios.paths import claim_outputs, format_of, refuse_inputs

    started = time.perf_counter()
    source: Path = args.input
    output: Path = args.output
    format_of(output)
    spec_files = [Path(s) for s in (args.grid, args.distributions) if s and Path(s).is_file()]
    inputs = [source, *spec_files]
    refuse_inputs([output], inputs)
    claim_outputs(output)
    if args.grid and args.monte_carlo is not None:
        raise ScenarioError("--grid and --monte-carlo are alternatives: give one of them")
    if args.monte_carlo is None and (args.distributions or args.seed is not None):
        raise ScenarioError("--distributions and --seed go with --monte-carlo N")
    if args.monte_carlo is not None and not args.distributions:
        raise ScenarioError("--monte-carlo N needs --distributions SPEC (what to draw)")
    if args.scheduler and args.engine != "dask":
        raise ScenarioError("--scheduler goes with --engine dask")

    if not source.is_file():
        raise ScenarioError(f"input file not found: {source}")
    if args.engine == "dask" and _streamable(args):
        # the workers' run (scenarios.dask_files): connect, or start the local cluster,
        # and warm the workers up while this process hashes the input and plans the layout
        from nj_incentives.scenarios.dask_files import EarlyClient

        with EarlyClient(args.scheduler) as early:
            return _run_table(args, source, output, inputs, started, early)
    return _run_table(args, source, output, inputs, started, None)


def _run_table(
    args: Any, source: Path, output: Path, inputs: list[Path], started: float, early: Any
) -> int:
    from nj_incentives.scenarios.paths import file_sha256

    hasher = _InputHashes(source, file_sha256)
    now = dt.datetime.now(dt.UTC)
    stamp: dict[str, Any] = {
        "package": "nj-incentives",
        "version": __version__,
        "law_current_to": LAW_CURRENT_TO,
        "input_file": source.name,
        "input_file_sha256": "",  # hasher.into(stamp)
        "created_utc": now.isoformat(timespec="seconds"),
        "engine": args.engine,
        "engagement": _engagement(args, now),
    }
    if _streamable(args):
        if args.engine == "dask":
            status = _run_dask_files(args, stamp, hasher, inputs, started, early)
        else:
            status = _run_streaming(args, stamp, hasher, inputs, started)
        if status is not None:
            return status

    import pandas as pd

    from nj_incentives.scenarios import analysis, generate
    from nj_incentives.scenarios.columns import check_columns
    from nj_incentives.scenarios.io import Outputs, planned_paths, read_table, write_results
    from nj_incentives.scenarios.paths import refuse_inputs
    from nj_incentives.scenarios.runner import run_scenarios

    base = read_table(source, args.sheet)
    check_columns(base.columns, args.keep)
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
    hasher.into(stamp)

    progress, delay = progress_settings(args.progress)
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
        progress_delay=delay,
        scheduler=args.scheduler,
        npartitions=args.partitions,
        **options,
    )
    if varied:  # echo the varied inputs after id / label / error
        at = list(results.columns).index("error") + 1
        echoed = [c for c in varied if c not in results.columns]  # a kept one is there
        echo = pd.DataFrame({c: scenarios[c].to_numpy() for c in echoed}, index=results.index)
        # one concatenation, not an insert a column (pandas' fragmented-frame warning)
        results = pd.concat([results.iloc[:, :at], echo, results.iloc[:, at:]], axis=1)
    errors = int(results["error"].notna().sum())
    stamp.update(rows=len(results), rows_with_errors=errors)

    exact = [args.target] if args.target else []  # its P95 printed, summarised, charted
    summary = analysis.summary(results, analysis.numeric_outputs(results, varied), exact)
    outputs = Outputs(results=results, stamp=stamp, summary=summary)
    notes: list[str] = []
    if args.target:
        notes = _charts(args, outputs, base, scenarios, varied, grid, options)
    refuse_inputs(planned_paths(output, outputs), inputs)
    report, close = _xlsx_progress(args, output, len(results))
    try:
        written = write_results(output, outputs, inputs, report)
    finally:
        close()

    failed = _failed_rows(results)
    return _report(args, stamp, errors, failed, written, started, summary, outputs.target, notes)


def _xlsx_progress(args: Any, output: Path, rows: int) -> tuple[Any, Any]:
    """The warning for a large XLSX output (printed now), and its progress (report,
    close): a bar on a terminal, a line every few seconds in a log."""
    from nj_incentives.scenarios.io import XLSX_WARN_ROWS, format_of, xlsx_warning
    from nj_incentives.support.progress import reporter

    if format_of(output) != "xlsx":
        return None, lambda: None
    warning = xlsx_warning(rows, output)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    if rows <= XLSX_WARN_ROWS:
        return None, lambda: None
    return reporter(rows, f"writing {output.name}", args.progress)


def _report(
    args: Any,
    stamp: dict[str, Any],
    errors: int,
    failed: list[tuple[str, str]],
    written: list[Path],
    started: float,
    summary: pd.DataFrame | None,
    target: str | None,
    notes: list[str] | None = None,
) -> int:
    """What the run printed (and its --json document); the exit status."""
    rows = int(stamp["rows"])
    elapsed = time.perf_counter() - started
    status = EXIT_FAILED if errors else EXIT_OK
    out = sys.stderr if args.as_json else sys.stdout
    print(f"{rows:,} scenarios in {elapsed:.1f} s; {errors:,} with errors", file=out)
    for where, message in failed:
        print(f"  {where}: {message}", file=sys.stderr)
    if errors > len(failed):
        print(f"  ... and {errors - len(failed):,} more (the error column)", file=sys.stderr)
    target_line: dict[str, Any] | None = None
    if args.target and target and summary is not None:
        row = summary.loc[summary["output"] == target]
        if len(row) and row["count"].iloc[0]:
            r = row.iloc[0]
            target_line = {k: float(r[k]) for k in ("p5", "p50", "p95", "mean")}
            sampled = int(r["percentile_count"]) < int(r["count"])
            target_line["percentile_count"] = int(r["percentile_count"])
            print(
                f"{target}: P5 {r['p5']:,.2f}  P50 {r['p50']:,.2f}  P95 {r['p95']:,.2f}"
                f"  mean {r['mean']:,.2f}"
                + (
                    f" (percentiles of a {int(r['percentile_count']):,}-row sample)"
                    if sampled
                    else ""
                ),
                file=out,
            )
    notes = notes or []
    for note in notes:
        print(note, file=out)
    if "seed" in stamp:
        print(f"seed: {stamp['seed']}", file=out)
    for path in written:
        print(f"wrote {path}", file=out)
    if args.as_json:
        document = {
            "status": status,
            "rows": rows,
            "rows_with_errors": errors,
            "errors": [{"row": where, "error": message} for where, message in failed],
            "seconds": round(elapsed, 2),
            "seed": stamp.get("seed"),
            "target": target if args.target else None,
            "target_summary": target_line,
            "notes": notes,
            "written": [str(path) for path in written],
            "stamp": stamp,
        }
        print(json.dumps(document, indent=2, default=str))
    return status


def _failed_rows(results: pd.DataFrame, limit: int = 5, before: int = 0) -> list[tuple[str, str]]:
    """The first rows with an error: ("row N (id X)", message); ``before``: rows of the
    run before these results (a streamed chunk)."""
    import pandas as pd

    if "error" not in results.columns:
        return []
    found: list[tuple[str, str]] = []
    for position in results["error"].notna().to_numpy().nonzero()[0][:limit]:
        row = results.iloc[int(position)]
        ident = row.get("id") if "id" in results.columns else None
        where = f"row {before + int(position) + 1}" + (
            f" (id {ident})" if ident is not None and not pd.isna(ident) else ""
        )
        found.append((where, str(row["error"])))
    return found


def _streamable(args: Any) -> bool:
    """A plain table from a CSV or Parquet file, pandas engine, no charts: run it in
    chunks (:mod:`nj_incentives.scenarios.stream`)."""
    from nj_incentives.scenarios.paths import format_of

    plain = not args.grid and args.monte_carlo is None and not args.target
    source, output = format_of(args.input), format_of(args.output)
    if args.engine == "dask":  # the workers read and write (scenarios.dask_files)
        return plain and source == "parquet" and output in ("csv", "parquet")
    return plain and source in ("csv", "parquet")


def _run_streaming(
    args: Any,
    stamp: dict[str, Any],
    hasher: Any,
    inputs: list[Path],
    started: float,
) -> int | None:
    """The run in chunks; None when the file cannot be read in chunks (run in memory)."""
    import pandas as pd

    from nj_incentives.scenarios import stream
    from nj_incentives.scenarios.columns import ScenarioError, check_columns
    from nj_incentives.scenarios.io import (
        XLSX_MAX_ROWS,
        CsvWriter,
        Outputs,
        ParquetWriter,
        XlsxWriter,
        write_summary_csv,
    )
    from nj_incentives.scenarios.paths import format_of, refuse_inputs, write_stamp_json

    source: Path = args.input
    output: Path = args.output
    try:
        reader = stream.StreamReader(source, format_of(source), stream.STREAM_ROWS)
    except stream.CannotStream:
        return None
    check_columns(reader.columns, args.keep)
    keep = [c for c in args.keep if c in reader.columns]
    stamp["mode"] = "table"
    hasher.update(_canonical({"sheet": args.sheet}).encode())
    stamp["inputs_sha256"] = ""  # filled in before the stamp is written: hasher.into(stamp)
    fmt = format_of(output)
    stem = output.with_suffix("")
    paths = [output]
    if fmt == "csv":
        paths.append(Path(f"{stem}.json"))
    if fmt in ("csv", "parquet"):
        paths.append(Path(f"{stem}.summary.csv"))
    refuse_inputs(paths, inputs)
    output.parent.mkdir(parents=True, exist_ok=True)  # as calc and fill do
    try:
        layout, total = stream.plan_layout_streaming(reader, not args.totals_only)
    except stream.CannotStream:
        return None
    if total == 0:
        return None
    progress, delay = progress_settings(args.progress)
    found: dict[str, Any] = {}

    failed: list[tuple[str, str]] = []
    offset = [0]

    def run_into(write: Any) -> None:
        def write_chunk(results: pd.DataFrame) -> None:
            write(results)
            if len(failed) < 5:
                failed.extend(_failed_rows(results, 5 - len(failed), offset[0]))
            offset[0] += len(results)

        found["run"] = stream.stream_results(
            reader,
            layout,
            total,
            write_chunk,
            money=args.money,
            keep=keep,
            progress=progress,
            progress_delay=delay,
        )
        rows, errors, _summary = found["run"]
        stamp.update(rows=rows, rows_with_errors=errors)

    def write_file(path: Path) -> None:
        if fmt == "csv":
            csv_writer = CsvWriter(path)
            try:
                run_into(csv_writer.write)
            finally:
                csv_writer.close()
            hasher.into(stamp)
        elif fmt == "parquet":
            parquet_writer = ParquetWriter(path)
            try:
                run_into(parquet_writer.write)
                hasher.into(stamp)
            finally:
                parquet_writer.close(stamp)
        else:
            report, close = _xlsx_progress(args, output, total)
            xlsx_writer = XlsxWriter(path, report)
            try:
                run_into(xlsx_writer.write)
                hasher.into(stamp)
                summary = found["run"][2].frame()
                xlsx_writer.finish(Outputs(results=pd.DataFrame(), stamp=stamp, summary=summary))
            finally:
                close()
                xlsx_writer.discard()

    if fmt == "xlsx" and total > XLSX_MAX_ROWS:
        raise ScenarioError(
            f"{total:,} rows do not fit an Excel sheet ({XLSX_MAX_ROWS:,}): write CSV or Parquet"
        )
    try:
        files.atomic_write(output, write_file)
    except stream.CannotStream:
        return None
    _rows, errors, builder = found["run"]
    summary = builder.frame()
    if fmt == "csv":
        write_stamp_json(Path(f"{stem}.json"), stamp)
    if fmt in ("csv", "parquet"):
        write_summary_csv(Path(f"{stem}.summary.csv"), summary)
    return _report(args, stamp, errors, failed, paths, started, summary, None)


def _run_dask_files(
    args: Any,
    stamp: dict[str, Any],
    hasher: Any,
    inputs: list[Path],
    started: float,
    early: Any,
) -> int | None:
    """The Dask engine's run of a Parquet file (:mod:`nj_incentives.scenarios.dask_files`);
    None when the file cannot be read in chunks (run in memory).

    This process reads the file's footer (its columns and row groups), has a worker
    check the columns and plan the layout, and joins the parts the workers write: it
    imports neither pandas, pyarrow, the kernel nor the columns' declarations (every
    program's rules), which the workers have imported (1,000,000 rows: 0.7-0.8 CPU-s of
    the command's 1.8-2.1 before; docs/performance.md)."""
    from nj_incentives.scenarios import stream
    from nj_incentives.scenarios.dask_files import (
        file_outline,
        plan_on_cluster,
        run_parquet_to_file,
    )
    from nj_incentives.scenarios.paths import format_of, refuse_inputs, write_stamp_json

    source: Path = args.input
    output: Path = args.output
    shape = file_outline(source)
    try:
        columns = stream.table_columns(shape.names)
    except stream.CannotStream:
        return None
    # the columns are checked by the worker that plans the layout (check_columns)
    planned = plan_on_cluster(early.get(), source, not args.totals_only, args.keep)
    keep = [c for c in args.keep if c in columns]
    stamp["mode"] = "table"
    hasher.update(_canonical({"sheet": args.sheet}).encode())
    stamp["inputs_sha256"] = ""  # filled in before the stamp is written: hasher.into(stamp)
    fmt = format_of(output)
    stem = output.with_suffix("")
    paths = [output, *([Path(f"{stem}.json")] if fmt == "csv" else [])]
    paths.append(Path(f"{stem}.summary.csv"))
    refuse_inputs(paths, inputs)
    if planned is None or planned[1] == 0:
        return None
    output.parent.mkdir(parents=True, exist_ok=True)  # as calc and fill do
    layout, total = planned
    found: dict[str, Any] = {}

    def write_file(path: Path) -> None:
        found["run"] = run_parquet_to_file(
            source,
            path,
            fmt,
            layout,
            total,
            money=args.money,
            keep=keep,
            scheduler=args.scheduler,
            partitions=args.partitions,
            batch_rows=stream.STREAM_ROWS,
            groups=shape.groups,
            stamp=stamp,
            early=early,
            stamped=lambda: hasher.into(stamp),
        )
        stamp.update(rows=found["run"][0], rows_with_errors=found["run"][1])

    files.atomic_write(output, write_file)
    _rows, errors, summary_csv, first = found["run"]
    failed = [
        (f"row {number}" + (f" (id {ident})" if ident is not None else ""), message)
        for number, ident, message in first
    ]
    if fmt == "csv":
        write_stamp_json(Path(f"{stem}.json"), stamp)

    def write_summary(path: Path) -> None:
        path.write_bytes(summary_csv)

    files.atomic_write(Path(f"{stem}.summary.csv"), write_summary)
    return _report(args, stamp, errors, failed, paths, started, None, None)


def _charts(
    args: Any,
    outputs: Any,
    base: pd.DataFrame,
    scenarios: pd.DataFrame,
    varied: list[str],
    grid: dict[str, list[object]] | None,
    options: dict[str, Any],
) -> list[str]:
    """The tornado and the distribution of ``--target`` (data, PNG renderers); notes on
    what was not drawn."""
    import pandas as pd

    from nj_incentives.scenarios import analysis
    from nj_incentives.scenarios.columns import ScenarioError, input_spec
    from nj_incentives.scenarios.runner import run_scenarios

    notes: list[str] = []
    target = args.target
    numeric = analysis.numeric_outputs(outputs.results, varied)
    if target not in numeric:
        raise ScenarioError(
            f"--target {target!r} is not a numeric result column; choose one of: "
            + ", ".join(numeric[:12])
            + (", ..." if len(numeric) > 12 else "")
        )
    outputs.target = target
    # a grid's scenarios are chosen, not drawn: their histogram is no distribution
    outputs.distribution = (
        None if grid is not None else analysis.distribution(outputs.results[target], args.bins)
    )
    inputs = varied or [
        str(c)
        for c in scenarios.columns
        if input_spec(str(c)) is not None and scenarios[c].nunique(dropna=True) > 1
    ]
    columns = set(scenarios.columns)
    if varied:  # a grid or a draw: the base row's stated inputs
        base_row: dict[str, Any] = {str(k): v for k, v in base.iloc[0].items()} if len(base) else {}
        ident = base_row.get("id")
        where = f"base row {ident!r}" if ident is not None and not pd.isna(ident) else "base row 1"
        stated = [c for c in varied if c in base_row and not pd.isna(base_row[c])]
        unstated = [c for c in varied if c not in stated]
        base_label = f"the inputs stated in {where}"
        if unstated:
            middle = "the grid's middle value" if grid is not None else "the median draw"
            base_label += "; " + ", ".join(analysis.label(c) for c in unstated) + f" at {middle}"
    else:  # a plain table: the first scenario that has the target, as stated
        found = outputs.results[target].notna().to_numpy().nonzero()[0]
        position = int(found[0]) if len(found) else 0
        base_row = {str(k): v for k, v in scenarios.iloc[position].items()}
        ident = outputs.results["id"].iloc[position] if "id" in outputs.results else None
        base_label = f"scenario {ident!r} as stated" if ident is not None else "row 1 as stated"
    ranges = analysis.input_ranges(scenarios, inputs, grid=grid, base=base_row)
    renderers: dict[str, Any] = {}
    if ranges:
        row = {k: v for k, v in base_row.items() if k in columns}

        def run(frame: pd.DataFrame) -> pd.DataFrame:
            return run_scenarios(
                frame, **{**options, "keep": [c for c in options["keep"] if c in frame]}
            )

        result = analysis.tornado(row, ranges, target, run, base_label)
        outputs.tornado = result
        renderers["tornado"] = lambda path: analysis.tornado_png(result, path)
        # the inputs that move the target most: a line across the first, a heat map
        # over the first two (every other input at the tornado's base case)
        moving = [str(c) for c in analysis.charted(result)["input"] if c in ranges]
        if moving and result.table["swing"].max() > 0:
            first = moving[0]
            xs = analysis.sweep_values(first, ranges, grid, analysis.LINE_STEPS)
            line = analysis.sweep(row, ranges, [first], [xs], target, run, base_label)
            renderers["line"] = lambda path: analysis.line_png(line, path)
        if len(moving) >= 2:
            pair = moving[:2]
            axes = [analysis.sweep_values(c, ranges, grid, analysis.HEATMAP_STEPS) for c in pair]
            heat = analysis.sweep(row, ranges, pair, axes, target, run, base_label)
            renderers["heatmap"] = lambda path: analysis.heatmap_png(heat, path)
        else:
            notes.append("heat map not drawn: fewer than two inputs move the target")
    else:
        notes.append("tornado not drawn: no numeric input varies")
    values = outputs.results[target]
    if outputs.distribution is not None:
        renderers["distribution"] = lambda path: analysis.distribution_png(
            values, target, path, args.bins
        )
    elif grid is not None:
        notes.append("distribution not drawn: a grid's scenarios are chosen, not drawn")
    else:
        count = int(pd.to_numeric(values, errors="coerce").notna().sum())
        notes.append(
            f"distribution not drawn: {count:,} computed value(s) of {target}; a histogram "
            f"needs at least {analysis.MIN_HISTOGRAM_VALUES}"
        )
    outputs.pngs = renderers
    return notes
