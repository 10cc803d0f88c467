"""Sign-offs that go stale: who prepared and reviewed a workbook, when, and whether its
inputs changed since (``nj-incentives sign``; :func:`status` for the memo and ``calc``).

Every template's Inputs carries a sign-off block
(:data:`nj_incentives.core.workpaper.SIGNOFF_INPUTS`): the preparer, the date they
signed and the inputs hash they signed, the same for the reviewer, and the workpaper's
date. ``Inputs hash now`` (the defined name ``InputsHash``) is ``=NJ_INPUTS_HASH(...)``
over every input the template declares except the sign-off's own cells and the tickmark
and source columns (:mod:`nj_incentives.functions.inputs_hash`: the values as the input rules read
them, so a reformat leaves it unchanged). The Checks sheet compares each stored hash with
the live one: ``reviewed 2026-11-30 by R. Reviewer; inputs changed since``.

To sign without Excel: ``nj-incentives sign WORKBOOK --preparer NAME`` (or
``--reviewer NAME``, ``--date YYYY-MM-DD``; default today), or :func:`sign` from Python:
the workbook is recalculated headlessly (the hash is computed by the same function Excel
calls, on the same cells), then the name, the date, the hash and the workpaper's date are
written into their cells and every formula's cached result is refreshed, so that a viewer
that does not recalculate shows the sign-off too. Nothing else in the file changes (its
formulas, dynamic arrays, validation, protection and print setup are untouched). In
Excel: type the name and date, then copy ``Inputs hash now`` into the hash cell (Paste
Special > Values).

Exit status of ``sign``: 0 signed; 1 signed, but the master check is FALSE (the
sign-off is written: a preparer may sign a workbook with open points; the message says
so); 2 not signed: not one of our workbooks, a file missing or unsafe, a bad date, the
workbook open in Excel.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import functools
import io
import json
import re
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree.ElementTree import fromstring
from xml.sax.saxutils import escape

from nj_incentives.support.status import EXIT_USAGE

if TYPE_CHECKING:
    from nj_incentives.workpapers.recalc import Recalculation

__all__ = [
    "SignError",
    "SignOff",
    "lines",
    "sign",
    "status",
]

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


class SignError(ValueError):
    """Not signed: ``status`` 2, the reason in the message."""

    status = EXIT_USAGE


@dataclass(frozen=True)
class Change:
    """One declared input that differs from what a sign-off signed: its ``name``
    (``Withholdings[3]`` for a range's third cell), ``cell`` (``Inputs!C42``), the value
    signed and the value now (as the input rules read them; "" for blank)."""

    name: str
    cell: str
    signed: str
    now: str

    @property
    def line(self) -> str:
        signed, now = self.signed or "(blank)", self.now or "(blank)"
        return f"{self.name} ({self.cell}): signed {signed}, now {now}"

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "cell": self.cell, "signed": self.signed, "now": self.now}


@dataclass(frozen=True)
class SignOff:
    """One sign-off of a workbook: ``role`` "prepared" or "reviewed" (or "reviewed
    (second)"), who (``name``, "" when nobody signed), when (``date``), the inputs hash
    stored when they signed (``stored``, "" for none) and the live one computed from the
    template's declared inputs (``current``; None where it could not be computed); the
    cells whose formulas differ from the template's (``formulas``, the first few;
    ``formulas_count``); each input changed since (``changes``, when the values signed
    were stored: :func:`sign` stores them)."""

    role: str
    name: str
    date: dt.date | None
    stored: str
    current: str | None
    formulas: tuple[str, ...] = ()
    formulas_count: int = 0
    changes: tuple[Change, ...] = ()

    @property
    def signed(self) -> bool:
        return bool(self.name)

    @property
    def stale(self) -> bool | None:
        """True when the inputs changed since the sign-off; None when that cannot be
        told (not signed, no hash stored, or the live hash not computed)."""
        if not self.signed or not self.stored or self.current is None:
            return None
        return self.stored.strip().upper() != self.current.strip().upper()

    @property
    def current_ok(self) -> bool:
        """Signed, inputs unchanged since, and the template's formulas: a sign-off that
        still holds."""
        return self.signed and self.stale is False and not self.formulas_count

    @property
    def line(self) -> str:
        """What the Checks sheet's sign-off line says (the same text), and, when the
        formulas differ from the template's, that too."""
        from nj_incentives.core import workpaper as b

        if not self.signed:
            return b.SIGNOFF_NOT_SIGNED.get(self.role, f"not {self.role} (no sign-off)")
        when = self.date.isoformat() if self.date else b.SIGNOFF_NO_DATE
        text = f"{self.role} {when} by {self.name}"
        if not self.stored:
            text += b.SIGNOFF_NO_HASH
        elif self.current is None:
            text += b.SIGNOFF_NOT_COMPUTED
        else:
            text += b.SIGNOFF_CHANGED if self.stale else b.SIGNOFF_UNCHANGED
        if self.formulas_count:
            more = self.formulas_count - len(self.formulas)
            shown = ", ".join(self.formulas) + (f" and {more} more" if more > 0 else "")
            text += f"; FORMULAS DIFFER from the template ({self.formulas_count}: {shown})"
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "name": self.name,
            "date": self.date.isoformat() if self.date else None,
            "stored_hash": self.stored or None,
            "current_hash": self.current,
            "stale": self.stale,
            "formulas_differ": self.formulas_count,
            "formulas_differing": list(self.formulas),
            "changed_inputs": [change.as_dict() for change in self.changes],
            "line": self.line,
        }


def _scalar(value: Any) -> Any:
    while isinstance(value, list):
        value = value[0] if value else None
    return value


def _text(value: Any) -> str:
    from nj_incentives.workpapers.recalc.engine import ExcelError

    value = _scalar(value)
    if value is None or isinstance(value, ExcelError):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _date(value: Any) -> dt.date | None:
    from nj_incentives.core.cells import date_from_serial

    value = _scalar(value)
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return date_from_serial(float(value))
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


def _values(source: Recalculation | Mapping[str, Any]) -> Callable[[str], Any]:
    if isinstance(source, Mapping):
        return lambda name: source.get(name)

    def get(name: str) -> Any:
        try:
            return source.value(name)
        except ValueError:
            return None

    return get


# --------------------------------------------------------------------------- what the template says


@dataclass(frozen=True)
class Inspection:
    """A workbook seen through its template (never through its own hash cell): the
    shipped template it is (``template``, "" for none), the inputs hash computed here
    from the template's declared input cells (``hash_now``; None when not computable),
    each declared input cell's value as the hash reads it (``values``: "Inputs!C31" ->
    canonical text; ``labels``: "Inputs!C31" -> "GrantPct") and the cells and names
    whose formulas differ from the template's (``formulas``, the first few;
    ``formulas_count`` all of them)."""

    template: str = ""
    hash_now: str | None = None
    values: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    formulas: tuple[str, ...] = ()
    formulas_count: int = 0


#: How many differing formulas a line names.
_SHOWN = 3
_REFERENCE = re.compile(
    r"(?:'((?:[^']|'')+)'|([^!',]+))!\$?([A-Z]{1,3})\$?(\d+)(?::\$?([A-Z]{1,3})\$?(\d+))?"
)


def _cells_of(sheet: str, first: str, row: str, last: str | None, end: str | None) -> list[str]:
    from nj_incentives.core.cells import cell_name, range_bounds

    (r1, c1), (r2, c2) = range_bounds(f"{first}{row}:{last or first}{end or row}")
    return [f"{sheet}!{cell_name(r, c)}" for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]


@functools.cache
def _template_graph(template: str, roster_sheets: int = 1) -> Any:
    """The shipped template's formula graph (its blank workbook), or None; with
    ``roster_sheets`` more than 1, the graph of the template as the builder writes it
    with that many roster sheets a period (a larger roster's workbook, whose inputs hash
    and formulas cover its continuation sheets:
    :func:`~nj_incentives.workpapers.recalc.prebuilt.continued_template`).

    The blank workbook is the package's own file, not a file a user gave, so it is read
    without the vetting that bounds untrusted workbooks (which parsed every part of it
    once more on each ``calc``: about 0.1 s a template, since the tables' companion sheets
    about a fifth of the main job). :func:`read_graph` reads only its bytes."""
    from nj_incentives.support.shipped import TEMPLATES
    from nj_incentives.workpapers.recalc.prebuilt import continued_template, read_graph
    from nj_incentives.workpapers.recalc.safety import VettedWorkbook

    name = f"{template}.xlsx"
    if name not in TEMPLATES:
        return None
    try:
        with continued_template(name, roster_sheets) as path:
            data = path.read_bytes()
        return read_graph(VettedWorkbook(path, data, 0, len(data), False, 0))
    except Exception:  # not shipped here, or not readable: nothing to compare with
        return None


def _roster_sheets(recalc: Recalculation, template: str) -> int:
    """The roster sheets a period of the workbook of ``template`` (1 unless its sheets are
    the template's with a roster continued on further sheets)."""
    from nj_incentives.workpapers.recalc.prebuilt import continued_roster_sheets

    return continued_roster_sheets(f"{template}.xlsx", tuple(recalc.sheets))


@functools.cache
def _declared(
    template: str, roster_sheets: int = 1
) -> tuple[str, tuple[tuple[str, tuple[str, ...]], ...], dict[str, str]]:
    """The template's hashed inputs: its kinds, each range's cells ("Inputs!C31"), and
    each cell's input name (``Withholdings[3]`` for the third cell of a range); with
    ``roster_sheets`` roster sheets a period (:func:`_template_graph`)."""
    from nj_incentives.core.workpaper import INPUTS_HASH

    graph = _template_graph(template, roster_sheets)
    if graph is None or INPUTS_HASH.upper() not in graph.names:
        return "", (), {}
    where = _REFERENCE.fullmatch(graph.names[INPUTS_HASH.upper()][1].strip().lstrip("="))
    if where is None:
        return "", (), {}
    sheet = (where.group(1) or "").replace("''", "'") or where.group(2)
    formula = graph.formulas.get((sheet, f"{where.group(3)}{where.group(4)}"), "")
    call = re.fullmatch(r"\s*(?:_xludf\.)?NJ_INPUTS_HASH\(\"([a-z]+)\",(.*)\)\s*", formula, re.I)
    if call is None:
        return "", (), {}
    ranges = []
    for found in _REFERENCE.finditer(call.group(2)):
        title = (found.group(1) or "").replace("''", "'") or found.group(2)
        ranges.append((title, tuple(_cells_of(title, *found.groups()[2:]))))
    labels: dict[str, str] = {}
    for _key, (written, text, _hidden) in sorted(graph.names.items()):
        ref = _REFERENCE.fullmatch(text.strip().lstrip("="))
        if ref is None:
            continue
        title = (ref.group(1) or "").replace("''", "'") or ref.group(2)
        cells = _cells_of(title, *ref.groups()[2:])
        for number, cell in enumerate(cells, 1):
            labels.setdefault(cell, written if len(cells) == 1 else f"{written}[{number}]")
    if len(call.group(1)) != len(ranges):
        return "", (), {}
    return call.group(1).lower(), tuple(ranges), labels


def _formula_differences(recalc: Recalculation, template: str, roster_sheets: int = 1) -> list[str]:
    """The cells and defined names whose formulas differ from the template's (with
    ``roster_sheets`` roster sheets a period)."""
    from nj_incentives.workpapers.recalc.prebuilt import normal_formula as _normal
    from nj_incentives.workpapers.recalc.prebuilt import read_graph

    if recalc.method == "prebuilt":  # matched the template's formula graph
        return []
    theirs = _template_graph(template, roster_sheets)
    ours = read_graph(recalc.vetted) if recalc.vetted is not None else None
    if theirs is None:
        return []
    if ours is None:
        return ["(the workbook's formulas could not be read to compare)"]
    found: list[str] = []
    for key, (written, text, _hidden) in sorted(theirs.names.items()):
        mine = ours.names.get(key)
        if mine is None or _normal(mine[1]) != _normal(text):
            found.append(f"name {written}")
    sheets = set(theirs.sheets)
    constants = ours.constants()  # LibreOffice's TRUE() / FALSE() in an input: a value
    cells = {a for a in ours.formulas if a[0] in sheets} | set(theirs.formulas)
    cells -= {a for a in constants if a not in theirs.formulas}
    from nj_incentives.core.cells import cell_index

    for sheet, cell in sorted(
        cells, key=lambda a: (theirs.sheets.index(a[0]) if a[0] in sheets else 99, cell_index(a[1]))
    ):
        a, b = ours.formulas.get((sheet, cell)), theirs.formulas.get((sheet, cell))
        if (
            a is None
            or b is None
            or _normal(a) != _normal(b)
            or ours.arrays.get((sheet, cell)) != theirs.arrays.get((sheet, cell))
        ):
            found.append(f"{sheet}!{cell}")
    return found


def inspect(recalc: Recalculation) -> Inspection:
    """The workbook seen through its shipped template (:class:`Inspection`)."""
    from nj_incentives.core.inputs import InputError
    from nj_incentives.functions.inputs_hash import canonical, inputs_hash
    from nj_incentives.workpapers.recalc.templates import recognise_template

    if recalc.vetted is None:
        return Inspection()
    from nj_incentives.support.shipped import TEMPLATES
    from nj_incentives.workpapers.recalc.templates import template_id

    template = template_id(recalc.vetted)  # its custom property: no shipped file read
    if f"{template}.xlsx" not in TEMPLATES:
        try:
            match = recognise_template(recalc.vetted)
        except Exception:  # no shipped layouts readable here
            match = None
        if match is None:
            return Inspection()
        template = match.template
    roster_sheets = _roster_sheets(recalc, template)
    kinds, ranges, labels = _declared(template, roster_sheets)
    values: dict[str, str] = {}
    hash_now: str | None = None
    if kinds:
        columns = []
        for kind, (_title, cells) in zip(kinds, ranges, strict=True):
            column = []
            for cell in cells:
                sheet, ref = cell.rsplit("!", 1)
                value = recalc.values.get((sheet, ref))
                column.append(value)
                text = canonical(kind, value)
                if text:
                    values[cell] = text
            columns.append(column)
        try:
            hash_now = inputs_hash(kinds, *columns)
        except InputError:
            hash_now = None
    differ = _formula_differences(recalc, template, roster_sheets)
    return Inspection(template, hash_now, values, labels, tuple(differ[:_SHOWN]), len(differ))


# --------------------------------------------------------------------------- the record


#: The custom document properties holding the sign-off record (Excel, LibreOffice and
#: openpyxl keep custom properties): ``nj_incentives_signoff_1``, ``_2``, ... each at most
#: :data:`_CHUNK` characters (Excel's limit for a property's text), together the base64
#: of the zlib-compressed JSON record.
RECORD_PROPERTY = "nj_incentives_signoff_"
_CHUNK = 255
#: The largest record read back (compressed text), and the most inputs' values stored.
MAX_RECORD = 4_000_000
_PROPERTY_ENTRY = re.compile(
    r"<(?:\w+:)?property\b([^>]*)>(.*?)</(?:\w+:)?property>|<(?:\w+:)?property\b[^>]*/>", re.S
)
_PROPERTY_NAME = re.compile(r"""\bname\s*=\s*["']([^"']*)["']""")
_PROPERTY_TEXT = re.compile(r"<(?:\w+:)?lpwstr>([^<]*)</(?:\w+:)?lpwstr>")


def read_record(data: bytes) -> dict[str, Any]:
    """The sign-off record of a workbook's bytes ({} when none or unreadable): for each
    role ("prepared", "reviewed", "reviewed2") who, when, the hash and the values
    signed; "override" (a review before any preparation, allowed by whom and why),
    "finalized" and "notes" (the review notes)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if "docProps/custom.xml" not in archive.namelist():
                return {}
            text = archive.read("docProps/custom.xml").decode("utf-8", "replace")
    except (zipfile.BadZipFile, OSError, KeyError):
        return {}
    chunks: dict[int, str] = {}
    for found in _PROPERTY_ENTRY.finditer(text):
        name = _PROPERTY_NAME.search(found.group(1) or "")
        if not name or not name.group(1).startswith(RECORD_PROPERTY):
            continue
        number = name.group(1)[len(RECORD_PROPERTY) :]
        value = _PROPERTY_TEXT.search(found.group(2) or "")
        if number.isdigit() and value:
            chunks[int(number)] = value.group(1).strip()
    joined = "".join(chunks[n] for n in sorted(chunks))
    if not joined or len(joined) > MAX_RECORD:
        return {}
    try:
        raw = zlib.decompressobj().decompress(
            base64.b64decode(joined, validate=True), MAX_RECORD * 8
        )
        record = json.loads(raw.decode("utf-8"))
    except (ValueError, zlib.error, UnicodeDecodeError):
        return {}
    return record if isinstance(record, dict) else {}


def _record(source: Any) -> dict[str, Any]:
    vetted = getattr(source, "vetted", None)
    return read_record(vetted.data) if vetted is not None else {}


def record_properties(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The custom properties (name, text) holding ``record``."""
    packed = base64.b64encode(
        zlib.compress(json.dumps(record, sort_keys=True, separators=(",", ":")).encode(), 9)
    ).decode("ascii")
    return [
        (f"{RECORD_PROPERTY}{i // _CHUNK + 1}", packed[i : i + _CHUNK])
        for i in range(0, len(packed), _CHUNK)
    ]


def _changes(signed: Mapping[str, Any], seen: Inspection) -> tuple[Change, ...]:
    """The declared inputs whose value differs from the values ``signed`` stored."""
    stored = signed.get("values") if isinstance(signed, Mapping) else None
    if not isinstance(stored, Mapping) or seen.hash_now is None:
        return ()
    if str(signed.get("hash", "")).upper() == seen.hash_now.upper():
        return ()
    from nj_incentives.core.cells import cell_index

    cells = set(stored) | set(seen.values)
    found = []
    for cell in sorted(cells, key=lambda c: (c.rsplit("!", 1)[0], cell_index(c.rsplit("!", 1)[1]))):
        before, now = str(stored.get(cell, "")), seen.values.get(cell, "")
        if before != now:
            found.append(Change(seen.labels.get(cell, cell), cell, before, now))
    return tuple(found)


def status(source: str | Path | Recalculation | Mapping[str, Any]) -> list[SignOff]:
    """Each sign-off of a workbook (preparer, then reviewer) and whether its inputs
    changed since: ``source`` is a recalculated workbook (what ``calc`` and the memo
    hold), a mapping of defined names to values (``EngagementReviewer``,
    ``EngagementReviewedOn``, ``EngagementReviewerHash``, ``InputsHash`` ...), or a
    workbook's path (recalculated here). Empty for a workbook without a sign-off block
    (built before it). ``[s.line for s in status(...)]`` are the lines to print::

        >>> [s.line for s in status("ertc.xlsx")]  # doctest: +SKIP
        ['prepared 2026-11-20 by A. Preparer; inputs unchanged since',
         'reviewed 2026-11-30 by R. Reviewer; inputs changed since']

    For a workbook, the inputs hash is computed here from the cells its shipped template
    declares as inputs (:func:`inspect`), never read from the workbook's own hash cell,
    and a workbook whose formulas differ from its template's says so on each sign-off
    (:attr:`SignOff.formulas`); only a mapping's ``InputsHash`` is taken as given.
    """
    from nj_incentives.core.workpaper import INPUTS_HASH, SIGNOFF_ROLES
    from nj_incentives.workpapers.recalc.engine import ExcelError

    if isinstance(source, (str, Path)):
        source = _recalculate(Path(source))
    get = _values(source)
    current_value = _scalar(get(INPUTS_HASH))
    if current_value is None and not isinstance(source, Mapping):
        names = getattr(source, "names", {})
        if not any(name.upper() == INPUTS_HASH.upper() for name in names):
            return []
    current = (
        None
        if current_value is None or isinstance(current_value, ExcelError)
        else _text(current_value)
    )
    if current is not None and not re.fullmatch(r"[0-9A-F]{4}(?:-[0-9A-F]{4}){3}", current):
        current = None  # a function's error message, not a hash
    seen = Inspection()
    if not isinstance(source, Mapping):
        seen = inspect(source)
        current = seen.hash_now  # never the workbook's own cell
    record = _record(source)
    return [
        SignOff(
            role,
            _text(get(who)),
            _date(get(when)),
            _text(get(stored)),
            current,
            formulas=seen.formulas,
            formulas_count=seen.formulas_count,
            changes=_changes(record.get(role, {}), seen) if seen.template else (),
        )
        for role, who, when, stored in SIGNOFF_ROLES
    ] + signoffs_from_record(record, seen)


def record_lines(source: Recalculation | Mapping[str, Any]) -> list[str]:
    """What the sign-off record adds to the sign-off lines: a review made over the order
    (who, when, why), the finalizing, and the open review notes' count."""
    record = _record(source)
    found = []
    override = record.get("override")
    if isinstance(override, Mapping):
        found.append(
            f"OVERRIDE: {override.get('what', '')} ({override.get('by', '')}, "
            f"{override.get('date', '')}: {override.get('reason', '')})"
        )
    done = record.get("finalized")
    if isinstance(done, Mapping):
        found.append(f"finalized {done.get('date', '')} by {done.get('name', '')} (protected)")
    notes = [n for n in record.get("notes", []) if isinstance(n, Mapping)]
    still = [n for n in notes if not n.get("cleared")]
    if notes:
        found.append(f"review notes: {len(still)} open, {len(notes) - len(still)} cleared")
    return found


def checked(recalc: Recalculation) -> Recalculation:
    """``recalc`` with its Checks sheet's sign-off cells (``SignoffPrepared``,
    ``SignoffReviewed``, ``SignoffCurrent``) and ``InputsHash`` holding what
    :func:`status` found, not what the workbook's own formulas say (they compare with
    the workbook's own hash cell, which a user can overwrite): the results workbook
    ``calc`` writes shows on its Checks sheet a sign-off over changed formulas or
    changed inputs as such."""
    from dataclasses import replace

    from nj_incentives.core.workpaper import INPUTS_HASH, SIGNOFF_CURRENT, SIGNOFF_STATUS
    from nj_incentives.workpapers.memo.calls import defined_names

    found = status(recalc)
    if len(found) < 2:
        return recalc
    refers = defined_names(recalc)
    holds = all(one.current_ok or not one.signed for one in found)
    wanted: dict[str, Any] = {
        SIGNOFF_STATUS[0]: found[0].line,
        SIGNOFF_STATUS[1]: found[1].line,
        SIGNOFF_CURRENT: holds if found[0].current is not None else None,
        INPUTS_HASH: found[0].current,
    }
    values = dict(recalc.values)
    names = dict(recalc.names)
    for name, value in wanted.items():
        where = refers.get(name.upper(), "").replace("$", "")
        if value is None or "!" not in where or ":" in where:
            continue
        sheet, cell = where.rsplit("!", 1)
        sheet = sheet.strip("'").replace("''", "'")
        if (sheet, cell) in values:
            values[(sheet, cell)] = value
        line = next((one for one in found[:2] if one.line == value), None)
        beside = (sheet, "C" + cell.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        if line is not None and beside in values and line.signed and line.stored:
            values[beside] = line.current_ok  # the line's own TRUE/FALSE, column C
        for key in names:
            if key.upper() == name.upper():
                names[key] = value
    # the band on every printed page: "(stale)" beside a name whose sign-off no longer holds
    band = _scalar(recalc.names.get("EngagementLine"))
    if isinstance(band, str):
        marked = band
        for one, label in ((found[0], "Prepared by: "), (found[1], "Reviewed by: ")):
            said = f"{label}{one.name}"
            if f"{said} (stale)" in marked:  # the template's own formula said so
                continue
            if one.signed and not one.current_ok and said in marked:
                marked = marked.replace(f"{label}{one.name}", f"{label}{one.name} (stale)", 1)
        if marked != band:
            for address in recalc.computed:
                if values.get(address) == band:
                    values[address] = marked
            names = {k: (marked if v == band else v) for k, v in names.items()}
    where = refers.get(SIGNOFF_CURRENT.upper(), "").replace("$", "")
    added = _changes_listed(found, values, where.rsplit("!", 1)[0].strip("'").replace("''", "'"))
    computed = recalc.computed | frozenset(added) if added else recalc.computed
    return replace(recalc, values=values, names=names, computed=computed)


#: The heading of the list of inputs changed since a sign-off, below the Checks sheet's
#: checks in the results workbook ``calc`` writes
CHANGES_HEADING = "Inputs changed since "


def _changes_listed(found: Sequence[SignOff], values: dict[Any, Any], sheet: str) -> list[Any]:
    """Below the last row of ``sheet`` (the Checks sheet) in ``values``: for each stale
    sign-off (those with the same changes together), a heading naming it ("Inputs changed
    since prepared 2026-11-25 by A. Preparer:"), a header ("Input (cell)", "Value
    signed", "Value now") and a row an input, in columns A to C (the printed ones).
    The addresses added (none: no sign-off lists a change, or no such sheet)."""
    groups: dict[tuple[Change, ...], list[SignOff]] = {}
    for one in found:
        if one.changes:
            groups.setdefault(one.changes, []).append(one)
    rows = [row for (name, cell) in values if name == sheet for row in [_row_of(cell)]]
    if not groups or not sheet or not rows:
        return []
    row = max(rows) + 2
    added = []

    def put(column: str, value: str) -> None:
        values[(sheet, f"{column}{row}")] = value
        added.append((sheet, f"{column}{row}"))

    for changes, signoffs in groups.items():
        who = " and ".join(
            f"{one.role} {one.date.isoformat() if one.date else '(no date)'} by {one.name}"
            for one in signoffs
        )
        put("A", f"{CHANGES_HEADING}{who}:")
        row += 1
        put("A", "Input (cell)")
        put("B", "Value signed")
        put("C", "Value now")
        for change in changes:
            row += 1
            put("A", f"{change.name} ({change.cell})")
            put("B", change.signed or "(blank)")
            put("C", change.now or "(blank)")
        row += 2
    return added


def _row_of(cell: str) -> int:
    digits = cell.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz$")
    return int(digits) if digits.isdigit() else 0


def lines(source: str | Path | Recalculation | Mapping[str, Any]) -> list[str]:
    """The sign-off lines of :func:`status` (for a memo or a report)."""
    return [signoff.line for signoff in status(source)]


def recalculate(path: Path) -> Recalculation:
    """The workbook at ``path`` vetted and recalculated as ``calc`` does (a
    :class:`SignError` for a file it cannot read)."""
    return _recalculate(path)


def _recalculate(path: Path) -> Recalculation:
    from nj_incentives.workpapers.recalc import UnsafeWorkbookError, vet_workbook
    from nj_incentives.workpapers.recalc.prebuilt import recalculate_template

    if path.name.startswith("~$"):
        raise SignError(
            f"{path}: an Excel owner file (Excel keeps it beside {path.name[2:]} while that "
            "is open): sign the workbook itself, once saved and closed"
        )
    try:
        vetted = vet_workbook(path)
    except FileNotFoundError:
        raise SignError(f"{path}: no such file") from None
    except (UnsafeWorkbookError, OSError) as error:
        raise SignError(f"{path}: refused: {error}") from error
    result: Recalculation = recalculate_template(vetted)
    return result


# --------------------------------------------------------------------------- signing


def defined_ranges(data: bytes) -> dict[str, tuple[str, str]]:
    """Workbook-level defined name (upper case) -> (the name as written, its first cell
    "Sheet!A1"), for names of a cell or a range (a review note's target)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        root = fromstring(archive.read("xl/workbook.xml"))
    found: dict[str, tuple[str, str]] = {}
    for element in root.iter(f"{{{_MAIN}}}definedName"):
        if element.get("localSheetId") is not None:
            continue
        text = (element.text or "").strip()
        match = re.match(r"(?:'((?:[^']|'')+)'|([^!']+))!\$?([A-Z]{1,3})\$?(\d+)(?::|$)", text)
        if match:
            sheet = (match.group(1) or "").replace("''", "'") or match.group(2)
            name = element.get("name", "")
            found[name.upper()] = (name, f"{sheet}!{match.group(3)}{match.group(4)}")
    return found


def _defined_cells(archive: zipfile.ZipFile) -> dict[str, tuple[str, str]]:
    """Workbook-level defined name (upper case) -> (sheet title, "C12") for one-cell names."""
    root = fromstring(archive.read("xl/workbook.xml"))
    found: dict[str, tuple[str, str]] = {}
    for element in root.iter(f"{{{_MAIN}}}definedName"):
        if element.get("localSheetId") is not None:
            continue
        text = (element.text or "").strip()
        match = re.fullmatch(r"(?:'((?:[^']|'')+)'|([^!']+))!\$?([A-Z]{1,3})\$?(\d+)", text)
        if match:
            sheet = (match.group(1) or "").replace("''", "'") or match.group(2)
            found[element.get("name", "").upper()] = (sheet, f"{match.group(3)}{match.group(4)}")
    return found


_CELL = r'<c r="{ref}"(?P<attributes>[^>]*?)(?:/>|>(?P<content>.*?)</c>)'


def _write_cells(data: bytes, values: Mapping[str, str | dt.date | float]) -> bytes:
    """The workbook ``data`` with ``values`` (defined name -> text, date or number)
    written into their cells (text as shared strings, dates as serial numbers, each
    cell's style kept)."""
    from nj_incentives.core.cells import serial_from_date
    from nj_incentives.workpapers.recalc.safety import sheet_parts

    with zipfile.ZipFile(io.BytesIO(data)) as source:
        names = _defined_cells(source)
        parts = sheet_parts(source)
        strings_part = "xl/sharedStrings.xml"
        strings = (
            source.read(strings_part).decode("utf-8") if strings_part in source.namelist() else None
        )
        # a workbook saved without shared strings (openpyxl, a script): inline strings
        count = 0 if strings is None else len(re.findall(r"<si>|<si\s", strings))
        added: list[str] = []
        edits: dict[str, dict[str, str]] = {}
        for name, value in values.items():
            where = names.get(name.upper())
            if where is None or where[0] not in parts:
                raise SignError(f"the workbook has no cell named {name}: not one of our templates?")
            sheet, cell = where
            if isinstance(value, dt.date):
                edits.setdefault(parts[sheet], {})[cell] = f"<v>{serial_from_date(value)}</v>"
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                edits.setdefault(parts[sheet], {})[cell] = f"<v>{value!r}</v>"
            elif strings is None:
                text = f'<is><t xml:space="preserve">{escape(str(value))}</t></is>'
                edits.setdefault(parts[sheet], {})[cell] = "\x00i" + text
            else:
                added.append(f'<si><t xml:space="preserve">{escape(str(value))}</t></si>')
                edits.setdefault(parts[sheet], {})[cell] = f"\x00s<v>{count + len(added) - 1}</v>"
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as target:
            for info in source.infolist():
                part = source.read(info)
                if info.filename == strings_part and added:
                    text = part.decode("utf-8")
                    unique = count + len(added)
                    text = re.sub(r'uniqueCount="\d+"', f'uniqueCount="{unique}"', text, count=1)
                    total = re.search(r'\bcount="(\d+)"', text)
                    if total:
                        text = re.sub(
                            r'\bcount="\d+"',
                            f'count="{int(total.group(1)) + len(added)}"',
                            text,
                            count=1,
                        )
                    text = text.replace("</sst>", "".join(added) + "</sst>")
                    part = text.encode("utf-8")
                elif info.filename in edits:
                    xml = part.decode("utf-8")
                    for cell, inner in edits[info.filename].items():
                        xml = _set_cell(xml, cell, inner)
                    part = xml.encode("utf-8")
                target.writestr(info, part, compress_type=info.compress_type)
    return buffer.getvalue()


def _set_cell(xml: str, cell: str, inner: str) -> str:
    pattern = re.compile(_CELL.format(ref=cell), re.DOTALL)
    match = pattern.search(xml)
    if match is None:
        raise SignError(
            f"cell {cell} is not in the sheet's file (an input cell removed?): save the "
            "workbook in Excel and sign again"
        )
    attributes = re.sub(r'\s+t="[^"]*"', "", match.group("attributes"))
    if inner.startswith("\x00s"):
        attributes += ' t="s"'
        inner = inner[2:]
    elif inner.startswith("\x00i"):
        attributes += ' t="inlineStr"'
        inner = inner[2:]
    return xml[: match.start()] + f'<c r="{cell}"{attributes}>{inner}</c>' + xml[match.end() :]


@dataclass(frozen=True)
class Signed:
    """What :func:`sign` wrote: the workbook and its sign-offs after signing."""

    path: Path
    signoffs: list[SignOff]
    master_check: object
    #: the record written (:func:`read_record`)
    record: Mapping[str, Any] = field(default_factory=dict)


#: How many times :func:`sign` reads the workbook again when another run wrote it
#: meanwhile (each time signing what the other run wrote).
RETRIES = 5
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def _name(role: str, name: str | None) -> str | None:
    if name is None:
        return None
    if not name.strip() or len(name) > 255:
        raise SignError(f"--{role} {name!r}: the name must be 1 to 255 characters")
    if _CONTROL.search(name):
        raise SignError(
            f"--{role} {name!r}: the name holds a control or direction character "
            f"({_CONTROL.search(name).group()!r}); type the name as it is printed"  # type: ignore[union-attr]
        )
    return name.strip()


def sign(
    workbook: str | Path,
    *,
    preparer: str | None = None,
    reviewer: str | None = None,
    second_reviewer: str | None = None,
    date: dt.date | str | None = None,
    output: str | Path | None = None,
    force: bool = False,
    override: str | None = None,
    finalize: str | None = None,
) -> Signed:
    """Sign ``workbook`` as its preparer, its reviewer or its second reviewer on ``date``
    (default today); or, with ``finalize`` (the name of who finalizes), finalize it.

    Each name, the date and the inputs hash (computed from the template's declared
    inputs) go into the sign-off cells, the date also into the workpaper's date
    (``EngagementDate``); the values of the inputs signed go into the sign-off record
    (custom document properties, :func:`read_record`), so that a later change is listed
    input by input. The rules firms' workpaper tools enforce:

    - the reviewer signs after a current preparer sign-off, on or after its date (a
      review before or without one is refused unless ``override`` gives the reason: the
      record, ``sign --status``, calc and the memo show it);
    - a second reviewer signs after a current first review, on or after its date;
    - finalizing needs current preparer and reviewer sign-offs, the template's formulas
      and no open review note; it protects every sheet and the workbook's structure and
      records who finalized it and when; a finalized workbook is not signed again;
    - a workbook whose formulas differ from its template's is not signed unless ``force``;
      an existing ``output`` other than ``workbook`` is not replaced unless ``force``.

    Written to ``output`` (default: the workbook itself, replaced atomically; when another
    run wrote it meanwhile, it is read and signed again, up to :data:`RETRIES` times).
    Raises :class:`SignError` when nothing was written. Example::

        from nj_incentives.workpapers.signoff import sign, status
        sign("ertc.xlsx", reviewer="R. Reviewer", date="2026-11-30")
        [s.line for s in status("ertc.xlsx")]
    """
    from nj_incentives.support.files import ConcurrentWriteError, reclaim, same_file

    path = Path(workbook)
    who = {
        "prepared": _name("preparer", preparer),
        "reviewed": _name("reviewer", reviewer),
        "reviewed2": _name("second-reviewer", second_reviewer),
    }
    finalizer = _name("finalize", finalize)
    if not any(who.values()) and not finalizer:
        raise SignError(
            "give --preparer NAME or --reviewer NAME (or --second-reviewer NAME, --finalize NAME)"
        )
    if override is not None and (not override.strip() or _CONTROL.search(override)):
        raise SignError(
            f"--override {override!r}: give the reason in words (no control characters)"
        )
    day = sign_date(date)
    if path.with_name("~$" + path.name).exists():
        raise SignError(
            f"{path}: open in Excel (its owner file ~${path.name} is beside it): save and "
            "close it there, or sign it in Excel"
        )
    target = Path(output) if output is not None else path
    if target.is_dir():
        raise SignError(f"-o {target}: is a folder: give the signed workbook's file name")
    if output is not None and target.exists() and not same_file(target, path) and not force:
        raise SignError(
            f"-o {target}: exists and is not {path.name}: not replaced (give --force to "
            "replace it, or another name)"
        )
    for _attempt in range(RETRIES):
        try:
            reclaim(target)
            return _sign_once(path, target, who, finalizer, day, override, force)
        except ConcurrentWriteError as error:
            with contextlib.suppress(OSError):
                error.kept.unlink()
        except OSError as error:  # a read-only or full disk, a folder that cannot be made
            where = error.filename or target
            raise SignError(f"{where}: cannot be written: {error.strerror or error}") from None
    raise SignError(f"{target}: another run kept writing it ({RETRIES} tries): sign it again")


def _sign_once(
    path: Path,
    target: Path,
    who: Mapping[str, str | None],
    finalizer: str | None,
    day: dt.date,
    override: str | None,
    force: bool,
) -> Signed:
    from nj_incentives.core.workpaper import INPUTS_HASH, SIGNOFF_ROLES
    from nj_incentives.support.files import ConcurrentWriteError, atomic_path

    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SignError(f"{path}: no such file") from None
    except OSError as error:
        raise SignError(f"{path}: cannot be read: {error.strerror or error}") from None
    recalc = _recalculate(path)
    current = status(recalc)
    if not current:
        raise SignError(
            f"{path}: has no sign-off block (no defined name {INPUTS_HASH}): a workbook built "
            "by an older nj-incentives; fill this version's template (nj-incentives fill)"
        )
    seen = inspect(recalc)
    live = seen.hash_now
    if live is None:
        raise SignError(
            f"{path}: the inputs hash could not be computed from its template's declared "
            "inputs: not one of this version's templates?"
        )
    if seen.formulas_count and not force:
        raise SignError(
            f"{path}: {current[0].line.split('; ', 1)[-1]}: a sign-off covers the "
            "template's formulas; fill the template again, or give --force to sign anyway "
            "(every status then says so)"
        )
    record = read_record(data)
    if record.get("finalized"):
        done = record["finalized"]
        raise SignError(
            f"{path}: finalized {done.get('date', '')} by {done.get('name', '')}: a "
            "finalized workpaper is not signed again (roll it forward for the next period)"
        )
    by_role = {s.role: s for s in current}
    for second in signoffs_from_record(record, seen):
        by_role[second.role] = second
    values: dict[str, str | dt.date | float] = {}
    prepared = by_role["prepared"]
    if who["reviewed"] and not who["prepared"]:
        problem = ""
        if not prepared.signed or not prepared.stored:
            problem = "nobody has signed it as its preparer"
        elif prepared.stored.upper() != live.upper():
            problem = "the inputs changed since the preparer signed"
        elif prepared.date is not None and day < prepared.date:
            raise SignError(
                f"--date {day.isoformat()}: a review on {day.isoformat()} is before the "
                f"preparation on {prepared.date.isoformat()}: review on or after it"
            )
        if problem and override is None:
            raise SignError(
                f"{path}: {problem}: the preparer signs first (nj-incentives sign "
                "--preparer NAME), or give --override REASON to review anyway (the memo "
                "and every status show the override)"
            )
        if problem:
            record["override"] = {
                "by": who["reviewed"],
                "date": day.isoformat(),
                "what": f"reviewed although {problem}",
                "reason": override.strip() if override else "",
            }
        else:
            record.pop("override", None)
    if who["prepared"] and not who["reviewed"]:
        record.pop("override", None)
    if who["reviewed2"]:
        first = by_role["reviewed"] if not who["reviewed"] else None
        if first is not None and (not first.signed or first.stored.upper() != live.upper()):
            raise SignError(
                f"{path}: the second reviewer signs after a current first review "
                "(nj-incentives sign --reviewer NAME first)"
            )
        if first is not None and first.date is not None and day < first.date:
            raise SignError(
                f"--date {day.isoformat()}: before the first review on "
                f"{first.date.isoformat()}: the second review is on or after it"
            )
    for role, name_cell, date_cell, hash_cell in SIGNOFF_ROLES:
        name = who[role]
        if name:
            values[name_cell] = name
            values[date_cell] = day
            values[hash_cell] = live
            record[role] = {
                "name": name,
                "date": day.isoformat(),
                "hash": live,
                "values": dict(seen.values),
            }
    if who["reviewed2"]:
        record["reviewed2"] = {
            "name": who["reviewed2"],
            "date": day.isoformat(),
            "hash": live,
            "values": dict(seen.values),
        }
    if who["prepared"] or who["reviewed"]:
        record.pop("reviewed2", None) if not who["reviewed2"] else None
    protect = False
    if finalizer:
        after_signing = {
            role: (who[role] is not None) or by_role[role].current_ok
            for role in ("prepared", "reviewed")
        }
        missing = [role for role, ok in after_signing.items() if not ok]
        if missing:
            raise SignError(
                f"{path}: not finalized: its {' and '.join(missing)} sign-off "
                f"{'is' if len(missing) == 1 else 'are'} missing or no longer current"
            )
        open_notes = [note for note in record.get("notes", []) if not note.get("cleared")]
        if open_notes:
            first_note = open_notes[0]
            raise SignError(
                f"{path}: not finalized: {len(open_notes)} open review note(s), the first on "
                f"{first_note.get('target')}: {first_note.get('text')!r} (nj-incentives note "
                "clear)"
            )
        last = max(
            (d for d in (by_role["reviewed"].date, day if who["reviewed"] else None) if d),
            default=day,
        )
        if day < last:
            raise SignError(
                f"--date {day.isoformat()}: before the review on {last.isoformat()}: "
                "finalize on or after it"
            )
        record["finalized"] = {"name": finalizer, "date": day.isoformat(), "hash": live}
        protect = True
    values["EngagementDate"] = day
    import tempfile

    from nj_incentives.workpapers.templates.cached import write_cached_values

    updated = _write_cells(data, values)
    updated = write_record(updated, record)
    if protect:
        updated = protect_workbook(updated)
    try:
        with tempfile.TemporaryDirectory(prefix="nj-incentives-sign-") as folder:
            staged = Path(folder) / "signed.xlsx"
            staged.write_bytes(updated)
            after = _recalculate(staged)
            # the formulas' cached results, so that a viewer that does not recalculate
            # (a preview, a LibreOffice print) shows the sign-off as Excel would
            write_cached_values(staged, {a: after.values.get(a) for a in after.computed})
            with atomic_path(target) as temporary:
                temporary.write_bytes(staged.read_bytes())
    except ConcurrentWriteError:
        raise
    except OSError as error:
        where = error.filename or target
        raise SignError(f"{where}: cannot be written: {error.strerror or error}") from None
    from nj_incentives.workpapers.memo.sheets import master_check

    return Signed(target, status(after), master_check(after), record)


def signoffs_from_record(record: Mapping[str, Any], seen: Inspection) -> list[SignOff]:
    """The sign-offs that live only in the record: the second reviewer's."""
    found = []
    second = record.get("reviewed2")
    if isinstance(second, Mapping) and second.get("name"):
        found.append(
            SignOff(
                "reviewed (second)",
                str(second.get("name", "")),
                _date(second.get("date")),
                str(second.get("hash", "")),
                seen.hash_now,
                formulas=seen.formulas,
                formulas_count=seen.formulas_count,
                changes=_changes(second, seen) if seen.template else (),
            )
        )
    return found


_CUSTOM = "docProps/custom.xml"
_CUSTOM_TYPE = "application/vnd.openxmlformats-officedocument.custom-properties+xml"
_CUSTOM_REL = (
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/custom-properties"
)
_FMTID = "{D5CDD505-2E9C-101B-9397-08002B2CF9AE}"
_VT = "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"


def write_record(data: bytes, record: Mapping[str, Any]) -> bytes:
    """The workbook ``data`` with ``record`` as its sign-off record (custom document
    properties, replacing an earlier record; the part created when it has none)."""
    properties = record_properties(record) if record else []
    with zipfile.ZipFile(io.BytesIO(data)) as source:
        names = source.namelist()
        if _CUSTOM in names:
            text = source.read(_CUSTOM).decode("utf-8")
        else:
            text = (
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/'
                f'custom-properties" xmlns:vt="{_VT}"></Properties>'
            )

        def keep(found: re.Match[str]) -> str:
            name = _PROPERTY_NAME.search(found.group(1) or found.group(0))
            return "" if name and name.group(1).startswith(RECORD_PROPERTY) else found.group(0)

        text = _PROPERTY_ENTRY.sub(keep, text)
        pids = [int(n) for n in re.findall(r'\bpid\s*=\s*"(\d+)"', text)]
        prefix = re.search(r"<(\w+:)?Properties\b", text)
        vt = re.search(r'xmlns:(\w+)="' + re.escape(_VT) + '"', text)
        p = prefix.group(1) or "" if prefix else ""
        v = vt.group(1) if vt else "vt"
        if vt is None:
            text = re.sub(
                r"<(\w+:)?Properties\b", lambda m: m.group(0) + f' xmlns:vt="{_VT}"', text, count=1
            )
        start = max([1, *pids]) + 1
        added = "".join(
            f'<{p}property fmtid="{_FMTID}" pid="{start + i}" name="{name}">'
            f"<{v}:lpwstr>{value}</{v}:lpwstr></{p}property>"
            for i, (name, value) in enumerate(properties)
        )
        if re.search(rf"</{re.escape(p)}Properties>", text):
            text = re.sub(
                rf"</{re.escape(p)}Properties>", lambda m: added + m.group(0), text, count=1
            )
        else:  # <Properties/>
            text = re.sub(
                r"<((?:\w+:)?Properties)([^>]*)/>",
                lambda m: f"<{m.group(1)}{m.group(2)}>{added}</{m.group(1)}>",
                text,
                count=1,
            )
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
            for info in source.infolist():
                part = source.read(info)
                if info.filename == _CUSTOM:
                    part = text.encode("utf-8")
                elif info.filename == "[Content_Types].xml" and _CUSTOM not in names:
                    part = part.replace(
                        b"</Types>",
                        f'<Override PartName="/{_CUSTOM}" ContentType="{_CUSTOM_TYPE}"/>'
                        "</Types>".encode(),
                    )
                elif info.filename == "_rels/.rels" and _CUSTOM not in names:
                    part = part.replace(
                        b"</Relationships>",
                        f'<Relationship Id="rIdNjSignoff" Type="{_CUSTOM_REL}" Target="{_CUSTOM}"/>'
                        "</Relationships>".encode(),
                    )
                target.writestr(info, part, compress_type=info.compress_type)
            if _CUSTOM not in names:
                target.writestr(_CUSTOM, text.encode("utf-8"))
    return buffer.getvalue()


_PROTECTION = (
    '<sheetProtection sheet="1" objects="1" scenarios="1" '
    'selectLockedCells="1" selectUnlockedCells="1"/>'
)
_SHARING = '<fileSharing readOnlyRecommended="1"/>'


def protect_workbook(data: bytes) -> bytes:
    """``data`` finalized: every sheet protected with no cell selectable or editable (its
    own protection's password, if any, kept), the workbook's structure locked, and the
    file marked read-only recommended. Protection without a password is a lock against
    accidents, not against a person: docs/filling.md "Sign-off"."""
    from nj_incentives.workpapers.recalc.safety import sheet_parts

    with zipfile.ZipFile(io.BytesIO(data)) as source:
        sheets = set(sheet_parts(source).values())
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
            for info in source.infolist():
                part = source.read(info)
                if info.filename in sheets:
                    xml = part.decode("utf-8")
                    if re.search(r"<sheetProtection\b", xml):
                        xml = re.sub(
                            r"<sheetProtection\b([^>]*?)/>",
                            lambda m: _locked(m.group(1)),
                            xml,
                            count=1,
                        )
                    else:  # after sheetData (and sheetCalcPr), as the schema orders it
                        xml = re.sub(
                            r"(</sheetData>(?:<sheetCalcPr[^>]*/>)?)",
                            lambda m: m.group(1) + _PROTECTION,
                            xml,
                            count=1,
                        )
                    part = xml.encode("utf-8")
                elif info.filename == "xl/workbook.xml":
                    xml = part.decode("utf-8")
                    if "<workbookProtection" not in xml:
                        xml = re.sub(
                            r"(<bookViews\b)",
                            r'<workbookProtection lockStructure="1"/>\1',
                            xml,
                            count=1,
                        )
                    if "<fileSharing" not in xml:
                        after = (
                            r"(<fileVersion\b[^>]*/>)"
                            if "<fileVersion" in xml
                            else r"(<workbook\b[^>]*>)"
                        )
                        xml = re.sub(after, lambda m: m.group(1) + _SHARING, xml, count=1)
                    part = xml.encode("utf-8")
                target.writestr(info, part, compress_type=info.compress_type)
    return buffer.getvalue()


def _locked(attributes: str) -> str:
    for key in ("sheet", "objects", "scenarios", "selectLockedCells", "selectUnlockedCells"):
        attributes = re.sub(rf'\s{key}="[^"]*"', "", attributes)
    return (
        f'<sheetProtection{attributes} sheet="1" objects="1" scenarios="1" '
        'selectLockedCells="1" selectUnlockedCells="1"/>'
    )


def sign_date(date: dt.date | str | None) -> dt.date:
    """``--date``: the one date rule of every option (ISO YYYY-MM-DD, 1900-01-01 to
    2199-12-31: :func:`nj_incentives.core.inputs.as_date`)."""
    from nj_incentives.core.inputs import InputError, as_date

    if date is None:
        return dt.date.today()
    try:
        return as_date(date, "--date", "docs/filling.md")
    except InputError as error:
        raise SignError(f"--date {date!r}: {error.rule}") from None
