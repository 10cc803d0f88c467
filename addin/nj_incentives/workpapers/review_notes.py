"""Review notes: an open point a reviewer leaves on an input or output of a workbook, which
the preparer clears (``nj-incentives note add / list / clear``; issue 32 item 4).

A note is kept in the workbook's sign-off record (custom document properties:
:func:`nj_incentives.workpapers.signoff.read_record`), so it travels with the file through
Excel, LibreOffice and openpyxl, and changes no input (the inputs hash and every sign-off
stay as they were). It names its target by defined name (``GrantPct``, ``TotalGrant``) or
by cell (``Calculations!C43``); each open note is also shown as an Excel note (a comment)
on its cell, on a sheet that has no notes of its own (the writer does not merge with
notes typed in Excel; the record keeps the note either way). The memo lists every note
with its status and who cleared it; ``sign --finalize`` refuses while a note is open;
``rollforward`` carries the open notes into the next period's workbook and drops the
cleared ones.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import re
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from nj_incentives.workpapers.signoff import (
    RETRIES,
    SignError,
    read_record,
    write_record,
)

__all__ = ["MAX_NOTES", "Note", "add_note", "clear_note", "notes", "open_notes", "with_comments"]

#: The most notes a workbook keeps, and the longest note (characters).
MAX_NOTES = 500
MAX_TEXT = 2_000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class Note:
    """One review note: its number, target (a defined name or ``Sheet!A1``), the cell it
    is on, the text, who left it and when, and who cleared it and when (None: open)."""

    number: int
    target: str
    cell: str
    text: str
    by: str
    date: str
    cleared_by: str | None = None
    cleared_on: str | None = None

    @property
    def open(self) -> bool:
        return self.cleared_by is None

    @property
    def status(self) -> str:
        return "open" if self.open else f"cleared {self.cleared_on} by {self.cleared_by}"

    @property
    def line(self) -> str:
        where = f"#{self.number} {self.target} ({self.cell})"
        return f"{where}: {self.text} - {self.by} {self.date}; {self.status}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "target": self.target,
            "cell": self.cell,
            "text": self.text,
            "by": self.by,
            "date": self.date,
            "open": self.open,
            "cleared_by": self.cleared_by,
            "cleared_on": self.cleared_on,
        }


def _from_record(entry: Mapping[str, Any]) -> Note | None:
    try:
        cleared = entry.get("cleared")
        return Note(
            int(entry["number"]),
            str(entry["target"]),
            str(entry.get("cell", "")),
            str(entry["text"]),
            str(entry.get("by", "")),
            str(entry.get("date", "")),
            str(cleared.get("by", "")) if isinstance(cleared, Mapping) else None,
            str(cleared.get("date", "")) if isinstance(cleared, Mapping) else None,
        )
    except (KeyError, TypeError, ValueError):
        return None


def notes(record: Mapping[str, Any]) -> list[Note]:
    """The notes of a sign-off record (:func:`~.signoff.read_record`), in order."""
    found = (_from_record(e) for e in record.get("notes", []) if isinstance(e, Mapping))
    return [note for note in found if note is not None]


def open_notes(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The record entries of the open notes (what a roll forward carries)."""
    return [
        dict(e) for e in record.get("notes", []) if isinstance(e, Mapping) and not e.get("cleared")
    ]


def _word(argument: str, value: str | None, most: int = 255) -> str:
    if value is None or not value.strip() or len(value) > most:
        raise SignError(f"{argument} {value!r}: must be 1 to {most:,} characters")
    if _CONTROL.search(value):
        raise SignError(f"{argument} {value!r}: holds a control or direction character")
    return value.strip()


def _target_cell(data: bytes, target: str) -> tuple[str, str]:
    """(target as named, "Sheet!A1") for a defined name or a cell reference."""
    from nj_incentives.workpapers.signoff import defined_ranges

    ranges = defined_ranges(data)
    found = ranges.get(target.upper())
    if found is not None:
        return found[0], found[1]
    match = re.fullmatch(
        r"(?:'((?:[^']|'')+)'|([^!']+))!\$?([A-Za-z]{1,3})\$?(\d+)", target.strip()
    )
    if match:
        sheet = (match.group(1) or "").replace("''", "'") or match.group(2)
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            from nj_incentives.workpapers.recalc.safety import sheet_parts

            if sheet in sheet_parts(archive):
                cell = f"{sheet}!{match.group(3).upper()}{match.group(4)}"
                return cell, cell
    raise SignError(
        f"{target!r}: not a defined name or a cell (Sheet!A1) of the workbook: name the "
        "input or output by its defined name (GrantPct, TotalGrant) or its cell"
    )


def _update(path: Path, change: Callable[[bytes, dict[str, Any]], Any]) -> Any:
    """Apply ``change`` to the workbook's record and write it back (atomically; read
    again when another run wrote it meanwhile)."""
    from nj_incentives.support.files import ConcurrentWriteError, atomic_path, reclaim

    if path.with_name("~$" + path.name).exists():
        raise SignError(f"{path}: open in Excel (its owner file ~${path.name} is beside it)")
    for _attempt in range(RETRIES):
        try:
            reclaim(path)
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                raise SignError(f"{path}: no such file") from None
            _vetted(path)
            record = read_record(data)
            if record.get("finalized"):
                done = record["finalized"]
                raise SignError(
                    f"{path}: finalized {done.get('date', '')} by {done.get('name', '')}: "
                    "its notes are closed"
                )
            result = change(data, record)
            updated = with_comments(write_record(data, record), notes(record))
            with atomic_path(path) as temporary:
                temporary.write_bytes(updated)
            return result
        except ConcurrentWriteError as error:
            with contextlib.suppress(OSError):
                error.kept.unlink()
        except OSError as error:
            where = error.filename or path
            raise SignError(f"{where}: cannot be written: {error.strerror or error}") from None
    raise SignError(f"{path}: another run kept writing it ({RETRIES} tries): try again")


def _vetted(path: Path) -> None:
    from nj_incentives.workpapers.recalc import UnsafeWorkbookError, vet_workbook

    try:
        vet_workbook(path)
    except (UnsafeWorkbookError, OSError, ValueError) as error:
        raise SignError(f"{path}: refused: {error}") from None


def add_note(
    workbook: str | Path, target: str, text: str, *, by: str, date: dt.date | str | None = None
) -> Note:
    """Leave a review note on ``target`` (a defined name or ``Sheet!A1``) of ``workbook``."""
    from nj_incentives.workpapers.signoff import sign_date

    words = _word("TEXT", text, MAX_TEXT)
    who = _word("--by", by)
    day = sign_date(date).isoformat()

    def change(data: bytes, record: dict[str, Any]) -> Note:
        named, cell = _target_cell(data, target)
        entries = list(record.get("notes", []))
        if len(entries) >= MAX_NOTES:
            raise SignError(f"{workbook}: holds {MAX_NOTES} notes already: clear and roll some")
        number = (
            max((int(e.get("number", 0)) for e in entries if isinstance(e, Mapping)), default=0) + 1
        )
        entry = {
            "number": number,
            "target": named,
            "cell": cell,
            "text": words,
            "by": who,
            "date": day,
        }
        record["notes"] = [*entries, entry]
        note = _from_record(entry)
        assert note is not None
        return note

    result: Note = _update(Path(workbook), change)
    return result


def clear_note(
    workbook: str | Path, number: int, *, by: str, date: dt.date | str | None = None
) -> Note:
    """Clear review note ``number`` of ``workbook`` (who cleared it and when are kept)."""
    from nj_incentives.workpapers.signoff import sign_date

    who = _word("--by", by)
    day = sign_date(date).isoformat()

    def change(_data: bytes, record: dict[str, Any]) -> Note:
        entries = [dict(e) for e in record.get("notes", []) if isinstance(e, Mapping)]
        for entry in entries:
            if int(entry.get("number", 0)) == number:
                if entry.get("cleared"):
                    raise SignError(f"note #{number}: already {_from_record(entry).status}")  # type: ignore[union-attr]
                if day < str(entry.get("date", "")):
                    raise SignError(
                        f"--date {day}: before the note was left on {entry.get('date')}"
                    )
                entry["cleared"] = {"by": who, "date": day}
                record["notes"] = entries
                note = _from_record(entry)
                assert note is not None
                return note
        shown = ", ".join(f"#{e.get('number')}" for e in entries) or "none"
        raise SignError(f"note #{number}: no such note (the workbook's notes: {shown})")

    result: Note = _update(Path(workbook), change)
    return result


# --------------------------------------------------------------------------- Excel notes

_COMMENTS_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.comments+xml"
_VML_TYPE = "application/vnd.openxmlformats-officedocument.vmlDrawing"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_OURS = "nj_notes"


def _vml(cells: list[tuple[int, int]], number: int) -> str:
    shapes = "".join(
        f'<v:shape id="_x0000_s{number * 1024 + i + 1}" type="#_x0000_t202" '
        'style="position:absolute;margin-left:60pt;margin-top:2pt;width:180pt;height:70pt;'
        'z-index:1;visibility:hidden" fillcolor="#ffffe1" o:insetmode="auto">'
        '<v:fill color2="#ffffe1"/><v:shadow on="t" color="black" obscured="t"/>'
        '<v:path o:connecttype="none"/><v:textbox style="mso-direction-alt:auto">'
        '<div style="text-align:left"></div></v:textbox>'
        '<x:ClientData ObjectType="Note"><x:MoveWithCells/><x:SizeWithCells/>'
        f"<x:Anchor>{col + 1}, 15, {row}, 2, {col + 4}, 15, {row + 5}, 16</x:Anchor>"
        f"<x:AutoFill>False</x:AutoFill><x:Row>{row}</x:Row><x:Column>{col}</x:Column>"
        "</x:ClientData></v:shape>"
        for i, (row, col) in enumerate(cells)
    )
    return (
        '<xml xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:'
        'office:office" xmlns:x="urn:schemas-microsoft-com:office:excel">'
        f'<o:shapelayout v:ext="edit"><o:idmap v:ext="edit" data="{number}"/></o:shapelayout>'
        '<v:shapetype id="_x0000_t202" coordsize="21600,21600" o:spt="202" '
        'path="m,l,21600r21600,l21600,xe"><v:stroke joinstyle="miter"/>'
        '<v:path gradientshapeok="t" o:connecttype="rect"/></v:shapetype>'
        f"{shapes}</xml>"
    )


def with_comments(data: bytes, found: list[Note]) -> bytes:
    """``data`` with each open note as an Excel note on its cell (cleared ones removed),
    on every sheet that has no notes of its own (our parts are ``xl/nj_notes*``)."""
    from nj_incentives.core.cells import cell_index
    from nj_incentives.workpapers.recalc.safety import sheet_parts

    with zipfile.ZipFile(io.BytesIO(data)) as source:
        names = source.namelist()
        parts = sheet_parts(source)
        by_sheet: dict[str, list[Note]] = {}
        for note in found:
            if note.open and "!" in note.cell:
                by_sheet.setdefault(note.cell.rsplit("!", 1)[0], []).append(note)
        replaced: dict[str, bytes] = {}
        added: dict[str, bytes] = {}
        dropped = {n for n in names if n.startswith(f"xl/{_OURS}")}
        types = source.read("[Content_Types].xml").decode("utf-8")
        types = re.sub(rf'<Override PartName="/xl/{_OURS}[^"]*"[^>]*/>', "", types)
        for number, (title, part) in enumerate(parts.items(), 1):
            rels_name = part.replace("worksheets/", "worksheets/_rels/") + ".rels"
            sheet = source.read(part).decode("utf-8")
            rels = source.read(rels_name).decode("utf-8") if rels_name in names else ""
            ours = f'Target="../{_OURS}' in rels
            if "<legacyDrawing" in sheet and not ours:
                continue  # notes of its own (typed in Excel): not merged
            rels = re.sub(rf'<Relationship [^>]*Target="\.\./{_OURS}[^"]*"[^>]*/>', "", rels)
            sheet = re.sub(r'<legacyDrawing r:id="rIdNjNotes"/>', "", sheet)
            notes_here = by_sheet.get(title, [])
            if notes_here:
                comments = f"xl/{_OURS}{number}.xml"
                drawing = f"xl/{_OURS}{number}.vml"
                authors = list(dict.fromkeys(note.by for note in notes_here))
                cells = []
                body = []
                for note in notes_here:
                    ref = note.cell.rsplit("!", 1)[1]
                    row, col = cell_index(ref)
                    cells.append((row, col))
                    said = f"Review note #{note.number} ({note.by}, {note.date}): {note.text}"
                    body.append(
                        f'<comment ref="{ref}" authorId="{authors.index(note.by)}"><text><r>'
                        f'<t xml:space="preserve">{escape(said)}</t></r></text></comment>'
                    )
                added[comments] = (
                    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<comments '
                    'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><authors>'
                    + "".join(f"<author>{escape(a)}</author>" for a in authors)
                    + "</authors><commentList>"
                    + "".join(body)
                    + "</commentList></comments>"
                ).encode("utf-8")
                added[drawing] = _vml(cells, number).encode("utf-8")
                types = types.replace(
                    "</Types>",
                    f'<Override PartName="/{comments}" ContentType="{_COMMENTS_TYPE}"/>'
                    f'<Override PartName="/{drawing}" ContentType="{_VML_TYPE}"/></Types>',
                )
                entries = (
                    f'<Relationship Id="rIdNjComments" Type="{_REL}/comments" '
                    f'Target="../{_OURS}{number}.xml"/>'
                    f'<Relationship Id="rIdNjNotes" Type="{_REL}/vmlDrawing" '
                    f'Target="../{_OURS}{number}.vml"/>'
                )
                if not rels:
                    rels = (
                        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                        'relationships"></Relationships>'
                    )
                rels = rels.replace("</Relationships>", entries + "</Relationships>")
                later = re.search(
                    r"<(?:legacyDrawingHF|picture|oleObjects|controls|webPublishItems|"
                    r"tableParts|extLst)\b|</worksheet>",
                    sheet,
                )
                assert later is not None
                if 'xmlns:r="' not in sheet[: sheet.index(">", sheet.index("<worksheet")) + 1]:
                    sheet = sheet.replace("<worksheet ", f'<worksheet xmlns:r="{_REL}" ', 1)
                    later = re.search(
                        r"<(?:legacyDrawingHF|picture|oleObjects|controls|webPublishItems|"
                        r"tableParts|extLst)\b|</worksheet>",
                        sheet,
                    )
                    assert later is not None
                sheet = (
                    sheet[: later.start()]
                    + '<legacyDrawing r:id="rIdNjNotes"/>'
                    + sheet[later.start() :]
                )
            replaced[part] = sheet.encode("utf-8")
            if rels:
                replaced[rels_name] = rels.encode("utf-8")
        if "vml" not in re.findall(r'Extension="(\w+)"', types):
            pass  # each VML part has its own override
        replaced["[Content_Types].xml"] = types.encode("utf-8")
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
            for info in source.infolist():
                if info.filename in dropped:
                    continue
                part_bytes = replaced.pop(info.filename, None)
                target.writestr(
                    info,
                    source.read(info) if part_bytes is None else part_bytes,
                    compress_type=info.compress_type,
                )
            for name, part_bytes in {**replaced, **added}.items():
                target.writestr(name, part_bytes, compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
