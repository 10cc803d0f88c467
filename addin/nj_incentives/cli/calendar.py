"""``nj-incentives calendar``: an award's compliance calendar (NJ_AWARD_CALENDAR's rows,
from the ``awards`` program of the registry) written as CSV and as iCalendar (``.ics``,
RFC 5545: one all-day event a dated obligation, so a practice's calendar shows each
report, test and commitment on its day)."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from nj_incentives.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, json_option
from nj_incentives.core.common import InputError
from nj_incentives.programs import program as registered
from nj_incentives.support.csv_safety import neutralise_text
from nj_incentives.support.files import atomic_write
from nj_incentives.version import __version__

__all__ = ["command", "ics_text", "run"]

EPILOG = """\
\b
exit status: 0 written; 1 written, and an obligation is past due (--as-of); 2 not
written (a bad argument: the message names it, the rule and its citation).

\b
examples:
  nj-incentives calendar grow_nj 2019-12-31 10 --csv gnj.csv --ics gnj.ics
  nj-incentives calendar beip 2010-12-31 10 --c40-waiver --as-of 2026-12-04 --json
  nj-incentives calendar brrag 2023-06-30 1 --commitment-end 2032-06-30 --ics brrag.ics
"""

#: The CSV's columns: the calendar's fields.
FIELDS = ("due", "kind", "obligation", "year", "consequence", "citation", "note", "status")


def _escape(text: str) -> str:
    """RFC 5545 3.3.11: backslash, semicolon, comma and newline escaped."""
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def _fold(line: str) -> str:
    """RFC 5545 3.1: lines of at most 75 octets, continued with CRLF and a space."""
    data = line.encode("utf-8")
    parts: list[str] = []
    while len(data) > (75 if not parts else 74):
        cut = 75 if not parts else 74
        while cut > 0 and (data[cut] & 0xC0) == 0x80:  # never inside a UTF-8 sequence
            cut -= 1
        parts.append(data[:cut].decode("utf-8"))
        data = data[cut:]
    parts.append(data.decode("utf-8"))
    return "\r\n ".join(parts)


def ics_text(program: str, rows: Sequence[Any], stamp: dt.datetime) -> str:
    """The calendar as an iCalendar file: one all-day VEVENT per obligation (its summary
    the obligation, its description the consequence, citation and note), with a UID
    stable for the same obligation, so a re-import updates rather than duplicates."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:-//nj-incentives//{__version__}//EN",
        "CALSCALE:GREGORIAN",
        f"X-WR-CALNAME:{_escape(f'{program} award obligations')}",
    ]
    made = stamp.strftime("%Y%m%dT%H%M%SZ")
    for row in rows:
        key = f"{program}|{row.due}|{row.kind}|{row.obligation}"
        uid = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
        description = f"{row.consequence} ({row.citation})" + (
            f" Note: {row.note}" if row.note else ""
        )
        lines += [
            "BEGIN:VEVENT",
            f"UID:{uid}@nj-incentives",
            f"DTSTAMP:{made}",
            f"DTSTART;VALUE=DATE:{row.due:%Y%m%d}",
            f"DTEND;VALUE=DATE:{row.due + dt.timedelta(days=1):%Y%m%d}",
            f"SUMMARY:{_escape(f'[{program}] {row.obligation}')}",
            f"DESCRIPTION:{_escape(description)}",
            f"CATEGORIES:{_escape(row.kind)}",
            "TRANSP:TRANSPARENT",
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return "".join(_fold(line) + "\r\n" for line in lines)


def _write_csv(path: Path, rows: Sequence[Any]) -> None:
    def write(temporary: Path) -> None:
        with temporary.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(FIELDS)
            for row in rows:
                values = [getattr(row, field) for field in FIELDS]
                writer.writerow(
                    [
                        neutralise_text(v) if isinstance(v, str) else ("" if v is None else v)
                        for v in values
                    ]
                )

    atomic_write(path, write)


def _write_ics(path: Path, text: str) -> None:
    def write(temporary: Path) -> None:
        temporary.write_bytes(text.encode("utf-8"))

    atomic_write(path, write)


@click.command(
    "calendar",
    help="An award's compliance calendar (annual reports, employment tests, the commitment, "
    "P.L.2024, c.40's extension and payments) as CSV and iCalendar.",
    epilog=EPILOG,
)
@click.argument("program_key", metavar="PROGRAM")
@click.argument("first_period_end", metavar="FIRST_PERIOD_END")
@click.argument("years", metavar="YEARS")
@click.option("--commitment-end", metavar="YYYY-MM-DD", help="the agreement's commitment end")
@click.option("--c40-waiver", is_flag=True, help="the remote-work waiver of P.L.2024, c.40 is kept")
@click.option("--base-employment", metavar="N", help="BEIP: the Base Employment Number")
@click.option("--statewide-base", metavar="N", help="Grow NJ, UTH: Statewide employees before")
@click.option("--as-of", metavar="YYYY-MM-DD", help="mark obligations due before it past due")
@click.option("--secondary", metavar="assumed|omit", help="UTH's 120-day report (secondary)")
@click.option("--csv", "csv_path", metavar="OUT.csv", type=click.Path(path_type=Path))
@click.option("--ics", "ics_path", metavar="OUT.ics", type=click.Path(path_type=Path))
@json_option
def command(program_key: str, first_period_end: str, years: str, **options: Any) -> int:
    """``nj-incentives calendar``."""
    return run(program_key, first_period_end, years, **options)


def run(
    program_key: str,
    first_period_end: str,
    years: str,
    *,
    commitment_end: str | None = None,
    c40_waiver: bool = False,
    base_employment: str | None = None,
    statewide_base: str | None = None,
    as_of: str | None = None,
    secondary: str | None = None,
    csv_path: Path | None = None,
    ics_path: Path | None = None,
    as_json: bool = False,
    out: Callable[[str], None] = print,
    now: dt.datetime | None = None,
) -> int:
    """Compute the calendar and write it; the exit status."""
    import json

    awards = registered("awards").part("rules")
    given = {
        "commitment_end": commitment_end,
        "c40_waiver": True if c40_waiver else None,
        "base_employment": base_employment,
        "statewide_base": statewide_base,
        "as_of": as_of,
        "secondary": secondary,
    }
    try:
        calendar = awards.award_calendar(
            program_key,
            first_period_end,
            years,
            **{k: v for k, v in given.items() if v is not None},
        )
    except InputError as error:
        print(f"nj-incentives calendar: {error}", file=sys.stderr)
        print("nj-incentives calendar: nothing written", file=sys.stderr)
        if as_json:
            out(json.dumps({"status": EXIT_USAGE, "error": str(error), "written": []}))
        return EXIT_USAGE
    written: list[str] = []
    if csv_path is not None:
        _write_csv(csv_path, calendar.rows)
        written.append(str(csv_path))
    if ics_path is not None:
        stamp = now or dt.datetime.now(dt.UTC)
        _write_ics(ics_path, ics_text(calendar.program, calendar.rows, stamp))
        written.append(str(ics_path))
    late = calendar.past_due
    status = EXIT_FAILED if late else EXIT_OK
    if as_json:
        rows = [
            {
                field: (str(v) if isinstance(v, dt.date) else v)
                for field in FIELDS
                for v in [getattr(row, field)]
            }
            for row in calendar.rows
        ]
        out(json.dumps({"status": status, "written": written, "past_due": len(late), "rows": rows}))
    else:
        for row in calendar.rows:
            flag = f" [{row.status}]" if row.status else ""
            out(f"{row.due}  {row.kind:<10} {row.obligation}{flag}")
        for path in written:
            out(f"wrote {path}")
    if late:
        print(
            f"nj-incentives calendar: {len(late)} obligation(s) past due as of {as_of}",
            file=sys.stderr,
        )
    return status
