"""``nj-incentives note``: review notes on a workbook's inputs and outputs (its library is
:mod:`nj_incentives.workpapers.review_notes`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from nj_incentives.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, json_option

EPILOG = """\
\b
exit status: 0 done (list: no note open); 1 list: a note is open; 2 nothing written
(not one of our workbooks, no such target or note, a bad date, finalized, open in Excel).

\b
examples:
  nj-incentives note add ertc.xlsx GrantPct "agree 50% to the approval letter" --by "R. Reviewer"
  nj-incentives note list ertc.xlsx
  nj-incentives note clear ertc.xlsx 1 --by "A. Preparer"
"""


@click.group(
    "note",
    help="Review notes: leave an open point on an input or output (by its defined name or "
    "cell), list them, clear them. Kept in the workbook (and shown as an Excel note on the "
    "cell); the memo lists them; sign --finalize refuses while one is open; rollforward "
    "carries the open ones.",
    epilog=EPILOG,
)
def command() -> None:
    """``nj-incentives note``."""


def _fail(error: Exception, as_json: bool) -> int:
    print(f"nj-incentives note: {error}", file=sys.stderr)
    print("nj-incentives note: nothing written", file=sys.stderr)
    if as_json:
        print(json.dumps({"status": EXIT_USAGE, "error": str(error)}))
    return EXIT_USAGE


@command.command("add", help="leave a note on TARGET (a defined name or Sheet!A1)")
@click.argument("workbook", type=click.Path(path_type=Path))
@click.argument("target")
@click.argument("text")
@click.option("--by", required=True, metavar="NAME", help="who leaves it")
@click.option("--date", "day", metavar="YYYY-MM-DD", help="the date (default: today)")
@json_option
def add(workbook: Path, target: str, text: str, by: str, day: str | None, as_json: bool) -> int:
    from nj_incentives.workpapers.review_notes import add_note
    from nj_incentives.workpapers.signoff import SignError

    try:
        note = add_note(workbook, target, text, by=by, date=day)
    except SignError as error:
        return _fail(error, as_json)
    print(
        json.dumps({"status": EXIT_OK, "note": note.as_dict()})
        if as_json
        else f"{workbook}: {note.line}"
    )
    return EXIT_OK


@command.command("clear", help="clear note NUMBER (who and when are kept)")
@click.argument("workbook", type=click.Path(path_type=Path))
@click.argument("number", type=click.IntRange(1))
@click.option("--by", required=True, metavar="NAME", help="who clears it")
@click.option("--date", "day", metavar="YYYY-MM-DD", help="the date (default: today)")
@json_option
def clear(workbook: Path, number: int, by: str, day: str | None, as_json: bool) -> int:
    from nj_incentives.workpapers.review_notes import clear_note
    from nj_incentives.workpapers.signoff import SignError

    try:
        note = clear_note(workbook, number, by=by, date=day)
    except SignError as error:
        return _fail(error, as_json)
    print(
        json.dumps({"status": EXIT_OK, "note": note.as_dict()})
        if as_json
        else f"{workbook}: {note.line}"
    )
    return EXIT_OK


@command.command("list", help="list the notes, open and cleared")
@click.argument("workbook", type=click.Path(path_type=Path))
@json_option
def listing(workbook: Path, as_json: bool) -> int:
    from nj_incentives.workpapers.review_notes import notes
    from nj_incentives.workpapers.signoff import SignError, read_record

    try:
        if not workbook.is_file():
            raise SignError(f"{workbook}: no such file")
        data = workbook.read_bytes()
    except (SignError, OSError) as error:
        return _fail(error, as_json)
    found = notes(read_record(data))
    code = EXIT_FAILED if any(note.open for note in found) else EXIT_OK
    if as_json:
        print(json.dumps({"status": code, "notes": [note.as_dict() for note in found]}))
    else:
        for note in found:
            print(f"{workbook.name}: {note.line}")
        if not found:
            print(f"{workbook.name}: no review notes")
    return code
