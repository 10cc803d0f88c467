"""``nj-incentives sign``: the command (its library is :mod:`nj_incentives.workpapers.signoff`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from nj_incentives.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, json_option
from nj_incentives.workpapers.signoff import SignError, sign, status

EPILOG = """\
\b
exit status: 0 signed; 1 signed, but the workbook's master check is FALSE; 2 not
signed (not one of our workbooks, a file missing or unsafe, a bad date, open in Excel).

\b
examples:
  nj-incentives sign ertc.xlsx --preparer "A. Preparer"
  nj-incentives sign ertc.xlsx --reviewer "R. Reviewer" --date 2026-11-30
  nj-incentives sign ertc.xlsx --status          each sign-off, and whether inputs changed since
"""


@click.command(
    "sign",
    help="Sign a workbook as its preparer or reviewer: the name, the date and the hash of "
    "its inputs go into the sign-off cells; the Checks sheet, calc and the memo then say "
    "when inputs changed since.",
    epilog=EPILOG,
)
@click.argument("workbook", metavar="WORKBOOK", type=click.Path(path_type=Path))
@click.option("--preparer", metavar="NAME", help="sign as the preparer")
@click.option("--reviewer", metavar="NAME", help="sign as the reviewer")
@click.option("--date", "day", metavar="YYYY-MM-DD", help="the date signed (default: today)")
@click.option(
    "-o",
    "--output",
    metavar="OUT.xlsx",
    type=click.Path(path_type=Path),
    help="write the signed workbook here (default: WORKBOOK itself)",
)
@click.option("--status", "show", is_flag=True, help="print the sign-offs and stop")
@json_option
def command(
    workbook: Path,
    preparer: str | None,
    reviewer: str | None,
    day: str | None,
    output: Path | None,
    show: bool,
    as_json: bool,
) -> int:
    """``nj-incentives sign``."""
    return run(
        workbook,
        preparer=preparer,
        reviewer=reviewer,
        date=day,
        output=output,
        show=show,
        as_json=as_json,
    )


def run(
    workbook: Path,
    *,
    preparer: str | None = None,
    reviewer: str | None = None,
    date: str | None = None,
    output: Path | None = None,
    show: bool = False,
    as_json: bool = False,
    out: Callable[[str], None] = print,
) -> int:
    """Sign (or with ``show`` print the sign-offs); the exit status."""
    import json

    try:
        if show:
            found = status(workbook)
            if as_json:
                out(json.dumps({"status": EXIT_OK, "signoffs": [s.as_dict() for s in found]}))
            else:
                for signoff in found or []:
                    out(f"{workbook.name}: {signoff.line}")
                if not found:
                    out(f"{workbook.name}: no sign-off block (built before sign-offs)")
            return EXIT_OK
        signed = sign(workbook, preparer=preparer, reviewer=reviewer, date=date, output=output)
    except SignError as error:
        print(f"nj-incentives sign: {error}", file=sys.stderr)
        print("nj-incentives sign: nothing written", file=sys.stderr)
        if as_json:
            out(json.dumps({"status": EXIT_USAGE, "error": str(error), "written": None}))
        return EXIT_USAGE
    status_code = EXIT_OK
    if signed.master_check is not True:
        print(
            f"nj-incentives sign: {signed.path.name}: signed, but its master check is "
            f"{str(signed.master_check).upper()}: see nj-incentives calc {signed.path}",
            file=sys.stderr,
        )
        status_code = EXIT_FAILED
    if as_json:
        out(
            json.dumps(
                {
                    "status": status_code,
                    "written": str(signed.path),
                    "signoffs": [s.as_dict() for s in signed.signoffs],
                }
            )
        )
    else:
        for signoff in signed.signoffs:
            out(f"{signed.path}: {signoff.line}")
    return status_code
