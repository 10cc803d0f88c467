"""``nj-incentives rollforward``: the command (its library is
:mod:`nj_incentives.workpapers.rollforward`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import click

from nj_incentives.cli import (
    EXIT_OK,
    EXIT_USAGE,
    cache_values_option,
    force_option,
    json_option,
    namespace_option,
)
from nj_incentives.cli.fill import report_refusal
from nj_incentives.workpapers.fill import FillError
from nj_incentives.workpapers.rollforward import rollforward

EPILOG = """\
\b
exit status: 0 written; 1 a value refused (a cell of LAST or DATA) or the next period
past the law's last year (named, nothing written); 2 not done: LAST missing or not one
of our workbooks, an unknown input name in DATA, the output exists (without --force).

\b
examples:
  nj-incentives rollforward ertc-2025.xlsx -o ertc-2026.xlsx
  nj-incentives rollforward conversion-2023.xlsx next.yaml -o conversion-2024.xlsx
"""


@click.command(
    "rollforward",
    help="Roll a workbook of one of the templates forward to its next period: its inputs "
    "kept, the next period added (its figures from DATA, if given), last year's outputs "
    "carried in, the sign-offs cleared; written as NEXT.xlsx.",
    epilog=EPILOG,
)
@click.argument("last", metavar="LAST.xlsx", type=click.Path(path_type=Path))
@click.argument("data", metavar="[DATA]", required=False, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    metavar="NEXT.xlsx",
    type=click.Path(path_type=Path),
    help="the workbook to write",
)
@force_option("NEXT.xlsx")
@cache_values_option
@namespace_option
@json_option
def command(
    last: Path,
    data: Path | None,
    output: Path | None,
    force: bool,
    cache: bool,
    namespace: str,
    as_json: bool,
) -> int:
    """``nj-incentives rollforward``."""
    return run(last, data, output, force=force, cache=cache, namespace=namespace, as_json=as_json)


def run(
    last: Path,
    data: Path | None,
    output: Path | None,
    *,
    force: bool = False,
    cache: bool = False,
    namespace: str = "",
    as_json: bool = False,
    out: Callable[[str], None] = print,
) -> int:
    """Roll forward, print what was written or why not; the exit status."""
    if output is None:
        return _failed(
            FillError(["-o NEXT.xlsx: where to write the rolled workbook"], EXIT_USAGE),
            as_json,
            out,
        )
    try:
        rolled = rollforward(last, output, data, force=force, namespace=namespace, cache=cache)
    except FillError as error:
        return _failed(error, as_json, out)
    if as_json:
        out(
            json.dumps(
                {
                    "status": EXIT_OK,
                    "written": str(rolled.path),
                    "template": rolled.template,
                    "from": rolled.period_from,
                    "to": rolled.period_to,
                    "carried": [asdict(figure) for figure in rolled.figures],
                    "carried_lines": rolled.carried,
                    "cleared": rolled.cleared,
                    "last_master_check": rolled.master_check,
                    "to_enter": rolled.to_enter,
                    "notes": rolled.notes,
                    "signoffs_not_current": list(rolled.signoffs_not_current),
                    "notes_carried": rolled.notes_carried,
                    "notes_dropped": rolled.notes_dropped,
                }
            )
        )
    else:
        out(
            f"{rolled.path}: the {rolled.template} template rolled forward from the "
            f"{rolled.period_from} to the {rolled.period_to}"
        )
        for line in rolled.carried:
            out(f"  carried: {line}")
        if rolled.to_enter:
            out("  the new period's figures to enter: " + ", ".join(rolled.to_enter))
        out(
            "  sign-offs cleared: "
            + (", ".join(rolled.cleared) if rolled.cleared else "none signed")
        )
    for note in rolled.notes:
        print(f"nj-incentives rollforward: {note}", file=sys.stderr)
    for line in rolled.signoffs_not_current:
        print(
            f"nj-incentives rollforward: {last}: SIGN-OFF NOT CURRENT: {line}: the figures "
            "carried come from a workbook whose review no longer covers them",
            file=sys.stderr,
        )
    if rolled.notes_carried or rolled.notes_dropped:
        print(
            f"nj-incentives rollforward: review notes: {rolled.notes_carried} open carried "
            f"into {rolled.path.name}, {rolled.notes_dropped} cleared dropped",
            file=sys.stderr,
        )
    if rolled.master_check is not True:
        print(
            f"nj-incentives rollforward: {last}: its master check is {rolled.master_check}: "
            "the figures carried come from a workbook whose checks fail",
            file=sys.stderr,
        )
    print(f"Next: nj-incentives calc {rolled.path}", file=sys.stderr)
    return EXIT_OK


def _failed(error: FillError, as_json: bool, out: Callable[[str], None]) -> int:
    return report_refusal(error, as_json, out, "rollforward")
