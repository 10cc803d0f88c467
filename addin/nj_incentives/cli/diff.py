"""``nj-incentives diff``: two versions of a workpaper side by side (its library is
:mod:`nj_incentives.workpapers.diff`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from nj_incentives.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, json_option

EPILOG = """\
\b
exit status: 0 the same; 1 they differ (each difference listed with its cause); 2 a
workbook could not be recalculated, or wrong arguments.

\b
examples:
  nj-incentives diff grant-2023.xlsx grant-2024.xlsx        last year against its roll forward
  nj-incentives diff before.xlsx after.xlsx --html diff.html
  nj-incentives diff before.xlsx after.xlsx --return 2023   only the 2023 return's lines
  nj-incentives diff ertc.xlsx --law-as-of 2023-06-30 --law-as-of 2025-01-01
"""


@click.command(
    "diff",
    help="Compare two workbooks (or one under two --law-as-of dates): inputs, outputs, "
    "return lines, switches, the law applied, engagement and sign-offs, each difference "
    "with its cause.",
    epilog=EPILOG,
)
@click.argument("a", metavar="A.xlsx", type=click.Path(path_type=Path))
@click.argument("b", metavar="[B.xlsx]", required=False, type=click.Path(path_type=Path))
@click.option(
    "--law-as-of",
    "law_as_of",
    metavar="DATE",
    multiple=True,
    help="the law as it stood on DATE for both; given twice, A's then B's (B omitted: A "
    "under each)",
)
@click.option(
    "--html",
    "html_path",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="also write a memo-style HTML report (print it to PDF from a browser)",
)
@click.option(
    "--return",
    "tax_year",
    metavar="YEAR",
    type=click.IntRange(1900, 2200),
    help="compare the return lines of tax year YEAR only (CBT-100 numbering; default: "
    "each tax year both workbooks cover)",
)
@json_option
def command(
    a: Path,
    b: Path | None,
    law_as_of: tuple[str, ...],
    html_path: Path | None,
    tax_year: int | None,
    as_json: bool,
) -> int:
    """``nj-incentives diff``."""
    from nj_incentives.cli.calc import law_as_of_option

    def fail(message: str) -> int:
        print(f"nj-incentives diff: {message}", file=sys.stderr)
        if as_json:
            print(json.dumps({"status": EXIT_USAGE, "error": message}))
        return EXIT_USAGE

    if len(law_as_of) > 2:
        return fail("--law-as-of: give it once (both) or twice (A's, then B's)")
    try:
        days = [law_as_of_option(value) for value in law_as_of]
    except ValueError as error:
        return fail(f"--law-as-of: {error}")
    if b is None and len(days) != 2:
        return fail("give B.xlsx, or --law-as-of twice to compare A under two dates")
    first, second = [*days, None, None][:2] if len(days) != 1 else (days[0], days[0])
    from nj_incentives.workpapers.api import CalcError
    from nj_incentives.workpapers.diff import as_json as document
    from nj_incentives.workpapers.diff import compare, html, text

    try:
        found = compare(a, b, law_as_of_a=first, law_as_of_b=second, tax_year=tax_year)
    except CalcError as error:
        return fail(str(error))
    if html_path is not None:
        from nj_incentives.support.files import atomic_path

        try:
            with atomic_path(html_path, protect=[a, *([b] if b else [])]) as temporary:
                temporary.write_text(html(found), encoding="utf-8")
        except (OSError, ValueError) as error:
            return fail(f"--html {html_path}: not written: {error}")
    if as_json:
        print(json.dumps(document(found), indent=2, default=str))
    else:
        print(text(found))
        if html_path is not None:
            print(f"Report written: {html_path}")
    return EXIT_FAILED if found.differences else EXIT_OK
