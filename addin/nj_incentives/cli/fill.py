"""``nj-incentives fill``: the command (its library is :mod:`nj_incentives.workpapers.fill`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import click

from nj_incentives.cli import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    cache_values_option,
    force_option,
    json_option,
    namespace_option,
)
from nj_incentives.workpapers.fill import FillError, fill, resolve_template, template_inputs

EPILOG = """\
\b
exit status: 0 written; 1 a value or payroll row refused (each named, nothing written),
or written but incomplete (a roster template with no roster: noted); 2 not done: unknown
template or input name, not one of our workbooks, a file missing or unreadable, the
output exists (without --force) or is open in Excel.

\b
examples:
  nj-incentives fill beip-grant-schedule grant.yaml -o filled/grant.xlsx
  nj-incentives fill ertc-form-313 ertc.json --hours payroll.csv -o ertc.xlsx
  nj-incentives fill ertc-form-313 --inputs      the template's input names
  nj-incentives fill ertc-form-313 clients.csv --each client --hours-column payroll -o filled/
"""


@click.command(
    "fill",
    help="Fill a template with DATA (YAML, JSON or CSV keyed by the template's input "
    "names) and write it as OUT.xlsx; every value is checked first, nothing is written "
    "if any is refused.",
    epilog=EPILOG,
)
@click.argument("template", metavar="TEMPLATE")
@click.argument("data", metavar="[DATA]", required=False, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    metavar="OUT.xlsx",
    type=click.Path(path_type=Path),
    help="the workbook to write",
)
@click.option(
    "--hours",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="payroll hours (.csv or .xlsx) for the ERTC roster: one row per employee and month, "
    "or one row per employee with twelve month columns",
)
@force_option("OUT.xlsx")
@cache_values_option
@click.option(
    "--inputs", "list_inputs", is_flag=True, help="list the template's input names and stop"
)
@click.option(
    "--each",
    metavar="KEY",
    help="DATA is a TABLE of clients (.csv: one a row; .json/.yaml: a list, or client "
    "-> object): write one workbook per client, -o DIR/<KEY>.xlsx, KEY the field naming each",
)
@click.option(
    "--hours-column",
    metavar="FIELD",
    help="with --each: the field naming each client's payroll file (relative to TABLE)",
)
@namespace_option
@json_option
def command(
    template: str,
    data: Path | None,
    output: Path | None,
    hours: Path | None,
    force: bool,
    cache: bool,
    list_inputs: bool,
    each: str | None,
    hours_column: str | None,
    namespace: str,
    as_json: bool,
) -> int:
    """``nj-incentives fill``."""
    if each is not None or hours_column is not None:
        return run_each(
            template,
            data,
            output,
            key=each,
            hours=hours_column,
            payroll=hours,
            force=force,
            cache=cache,
            namespace=namespace,
            as_json=as_json,
        )
    return run(
        template,
        data,
        output,
        hours=hours,
        force=force,
        cache=cache,
        list_inputs=list_inputs,
        namespace=namespace,
        as_json=as_json,
    )


def run_each(
    template: str,
    table: Path | None,
    directory: Path | None,
    *,
    key: str | None,
    hours: str | None = None,
    payroll: Path | None = None,
    force: bool = False,
    cache: bool = False,
    namespace: str = "",
    as_json: bool = False,
    out: Callable[[str], None] = print,
) -> int:
    """``fill --each``: one workbook per client of TABLE; every one written or named."""
    from nj_incentives.workpapers.batch import fill_each

    usage = None
    if key is None:
        usage = "--hours-column: give --each KEY too (a TABLE of clients)"
    elif payroll is not None:
        usage = "--each: --hours is one payroll file; give --hours-column FIELD per client"
    elif table is None:
        usage = "TABLE: give a .csv or .json table of clients"
    elif directory is None:
        usage = "-o DIR: the folder for the workbooks (one per client)"
    if usage is not None:
        return report_refusal(FillError([usage], EXIT_USAGE), as_json, out)
    if key is None or table is None or directory is None:  # refused above
        return EXIT_USAGE
    try:
        batch = fill_each(
            template,
            table,
            directory,
            key=key,
            hours=hours,
            force=force,
            namespace=namespace,
            cache=cache,
        )
    except FillError as error:
        return report_refusal(error, as_json, out)
    for _key, filled in batch.written:
        for note in filled.notes:
            print(f"nj-incentives fill: note: {note}", file=sys.stderr)
    for refused in batch.refused:
        for message in refused.messages[:SHOWN]:
            print(f"nj-incentives fill: refused: {message}", file=sys.stderr)
    if as_json:
        out(
            json.dumps(
                {
                    "status": batch.status,
                    "template": batch.template,
                    "written": [
                        {"key": k, "written": str(f.path), "notes": f.notes}
                        for k, f in batch.written
                    ],
                    "refused": [
                        {"key": r.key, "status": r.status, "errors": r.messages}
                        for r in batch.refused
                    ],
                }
            )
        )
    else:
        for _key, filled in batch.written:
            out(str(filled.path))
        out(
            f"{len(batch.written)} of {len(batch.written) + len(batch.refused)} clients "
            f"written to {directory}"
            + (f"; refused: {', '.join(r.key for r in batch.refused)}" if batch.refused else "")
        )
    if batch.written:
        print(
            f"Next: nj-incentives calc {directory}/*.xlsx --memo-each {directory}/memos",
            file=sys.stderr,
        )
    return batch.status


def run(
    template: str,
    data: Path | None,
    output: Path | None,
    *,
    hours: Path | None = None,
    force: bool = False,
    cache: bool = False,
    list_inputs: bool = False,
    namespace: str = "",
    as_json: bool = False,
    out: Callable[[str], None] = print,
) -> int:
    """Fill, print what was written or why not; the exit status."""
    if list_inputs:
        try:
            inputs = template_inputs(resolve_template(template))
        except FillError as error:
            return report_refusal(error, as_json, out)
        if as_json:
            out(
                json.dumps(
                    [
                        {"name": i.name, "key": i.key, "kind": i.kind, "rows": i.rows}
                        for i in inputs.values()
                    ]
                )
            )
        else:
            for declared in inputs.values():
                rows = f" x{declared.rows} rows" if declared.rows else ""
                out(f"{declared.name:<28} {declared.kind}{rows}  {declared.label}")
        return EXIT_OK
    if output is None:
        return report_refusal(
            FillError(["-o OUT.xlsx: where to write the filled workbook"], EXIT_USAGE), as_json, out
        )
    if data is None and hours is None:
        return report_refusal(
            FillError(["DATA: give a .yaml, .json or .csv file of inputs"], EXIT_USAGE),
            as_json,
            out,
        )
    try:
        filled = fill(
            template, data, output, hours=hours, force=force, namespace=namespace, cache=cache
        )
    except FillError as error:
        return report_refusal(error, as_json, out)
    roster = (
        f", {filled.employees:,} employees on {filled.roster_sheets} roster sheet(s) per period"
        if filled.roster_sheets  # a template with a roster (at least one sheet)
        else ""
    )
    status = EXIT_FAILED if filled.incomplete else EXIT_OK
    if as_json:
        out(
            json.dumps(
                {
                    "status": status,
                    "written": str(filled.path),
                    "template": filled.template,
                    "inputs": filled.inputs,
                    "employees": filled.employees,
                    "roster_sheets": filled.roster_sheets,
                    "notes": filled.notes,
                }
            )
        )
    else:
        out(f"{filled.path}: the {filled.template} template, {len(filled.inputs)} inputs{roster}")
    for note in filled.notes:
        print(f"nj-incentives fill: note: {note}", file=sys.stderr)
    print(f"Next: nj-incentives calc {filled.path}", file=sys.stderr)
    return status


#: The most refusals printed (the JSON document has them all).
SHOWN = 50


def report_refusal(
    error: FillError, as_json: bool, out: Callable[[str], None], command: str = "fill"
) -> int:
    """Print why nothing was written (the first :data:`SHOWN` refusals on stderr, all of
    them in the JSON document) for ``nj-incentives COMMAND``; the exit status."""
    messages = error.messages
    for message in messages[:SHOWN]:
        print(f"nj-incentives {command}: {message}", file=sys.stderr)
    if len(messages) > SHOWN:
        print(f"nj-incentives {command}: ... and {len(messages) - SHOWN} more", file=sys.stderr)
    print(f"nj-incentives {command}: nothing written", file=sys.stderr)
    if as_json:
        out(json.dumps({"status": error.status, "errors": messages, "written": None}))
    return error.status
