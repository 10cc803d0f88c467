"""``nj-incentives sign``: the command (its library is :mod:`nj_incentives.workpapers.signoff`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from nj_incentives.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, json_option
from nj_incentives.workpapers.signoff import (
    SignError,
    recalculate,
    record_lines,
    sign,
    status,
)

EPILOG = """\
\b
exit status: 0 signed; 1 signed, but the workbook's master check is FALSE; 2 not
signed (not one of our workbooks, a file missing, unsafe or not writable, a bad date,
open in Excel, a rule of signing broken). With --status: 0 when every sign-off holds
(signed, inputs unchanged since, the template's formulas), else 1.

\b
rules: the preparer signs first; the reviewer on or after the preparation (or with
--override REASON, shown by the memo and every status); a second reviewer after the
first; --finalize NAME needs current sign-offs and no open review note, then protects
every sheet. A sign-off is a record of who signed and a change flag over the declared
inputs and the template's formulas, not an electronic signature: anyone who can edit
the file can sign it.

\b
examples:
  nj-incentives sign ertc.xlsx --preparer "A. Preparer"
  nj-incentives sign ertc.xlsx --reviewer "R. Reviewer" --date 2026-11-30
  nj-incentives sign ertc.xlsx --status          each sign-off, and whether inputs changed since
  nj-incentives sign ertc.xlsx --second-reviewer "S. Partner"
  nj-incentives sign ertc.xlsx --finalize "S. Partner"
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
@click.option(
    "--second-reviewer", "second", metavar="NAME", help="sign as a second reviewer (optional)"
)
@click.option(
    "--override",
    metavar="REASON",
    help="review although the preparer has not signed (or the inputs changed since): the "
    "reason is recorded and shown",
)
@click.option(
    "--finalize",
    metavar="NAME",
    help="finalize: protect every sheet and record who and when (needs current sign-offs "
    "and no open review note)",
)
@click.option(
    "--force",
    is_flag=True,
    help="replace an existing -o file; sign a workbook whose formulas differ from its template",
)
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
    second: str | None,
    override: str | None,
    finalize: str | None,
    force: bool,
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
        second_reviewer=second,
        override=override,
        finalize=finalize,
        force=force,
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
    second_reviewer: str | None = None,
    override: str | None = None,
    finalize: str | None = None,
    force: bool = False,
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
            recalc = recalculate(workbook)
            found = status(recalc)
            extra = record_lines(recalc)
            # 1 unless every sign-off holds: signed, inputs unchanged, the template's formulas
            code = EXIT_OK if found and all(s.current_ok for s in found) else EXIT_FAILED
            if as_json:
                document = {"status": code, "signoffs": [s.as_dict() for s in found]}
                out(json.dumps({**document, "record": extra}))
            else:
                for signoff in found or []:
                    out(f"{workbook.name}: {signoff.line}")
                    for change in signoff.changes:
                        out(f"{workbook.name}:   changed since: {change.line}")
                for line in extra:
                    out(f"{workbook.name}: {line}")
                if not found:
                    out(f"{workbook.name}: no sign-off block (built before sign-offs)")
            return code
        signed = sign(
            workbook,
            preparer=preparer,
            reviewer=reviewer,
            second_reviewer=second_reviewer,
            override=override,
            finalize=finalize,
            force=force,
            date=date,
            output=output,
        )
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
        if signed.record.get("finalized"):
            out(f"{signed.path}: finalized: every sheet protected")
    return status_code
