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

import datetime as dt
import io
import re
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
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
class SignOff:
    """One sign-off of a workbook: ``role`` "prepared" or "reviewed", who (``name``, ""
    when nobody signed), when (``date``), the inputs hash stored when they signed
    (``stored``, "" for none) and the live one (``current``; None where it could not be
    computed)."""

    role: str
    name: str
    date: dt.date | None
    stored: str
    current: str | None

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
    def line(self) -> str:
        """What the Checks sheet's sign-off line says (the same text)."""
        from nj_incentives.core import workpaper as b

        if not self.signed:
            return b.SIGNOFF_NOT_SIGNED[self.role]
        when = self.date.isoformat() if self.date else b.SIGNOFF_NO_DATE
        text = f"{self.role} {when} by {self.name}"
        if not self.stored:
            return text + b.SIGNOFF_NO_HASH
        if self.current is None:
            return text + b.SIGNOFF_NOT_COMPUTED
        return text + (b.SIGNOFF_CHANGED if self.stale else b.SIGNOFF_UNCHANGED)

    def as_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "name": self.name,
            "date": self.date.isoformat() if self.date else None,
            "stored_hash": self.stored or None,
            "current_hash": self.current,
            "stale": self.stale,
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
    return [
        SignOff(role, _text(get(who)), _date(get(when)), _text(get(stored)), current)
        for role, who, when, stored in SIGNOFF_ROLES
    ]


def lines(source: str | Path | Recalculation | Mapping[str, Any]) -> list[str]:
    """The sign-off lines of :func:`status` (for a memo or a report)."""
    return [signoff.line for signoff in status(source)]


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
        if strings is None:
            raise SignError("the workbook has no shared strings part: save it in Excel first")
        count = len(re.findall(r"<si>|<si\s", strings))
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
    return xml[: match.start()] + f'<c r="{cell}"{attributes}>{inner}</c>' + xml[match.end() :]


@dataclass(frozen=True)
class Signed:
    """What :func:`sign` wrote: the workbook and its sign-offs after signing."""

    path: Path
    signoffs: list[SignOff]
    master_check: object


def sign(
    workbook: str | Path,
    *,
    preparer: str | None = None,
    reviewer: str | None = None,
    date: dt.date | str | None = None,
    output: str | Path | None = None,
) -> Signed:
    """Sign ``workbook`` as its preparer or its reviewer (or both) on ``date`` (default
    today): their name, the date and the live inputs hash go into the sign-off cells,
    the date also into the workpaper's date (``EngagementDate``). Written to ``output``
    (default: the workbook itself, replaced atomically). Raises :class:`SignError`
    when nothing was written. Example::

        from nj_incentives.workpapers.signoff import sign, status
        sign("ertc.xlsx", reviewer="R. Reviewer", date="2026-11-30")
        [s.line for s in status("ertc.xlsx")]
    """
    from nj_incentives.core.workpaper import INPUTS_HASH, SIGNOFF_ROLES
    from nj_incentives.support.files import atomic_path

    path = Path(workbook)
    who = {"prepared": preparer, "reviewed": reviewer}
    if not any(name and name.strip() for name in who.values()):
        raise SignError("give --preparer NAME or --reviewer NAME (or both)")
    for role, name in who.items():
        if name is not None and (not name.strip() or len(name) > 255):
            raise SignError(f"the {role[:-1]}r's name must be 1 to 255 characters, not {name!r}")
    day = _sign_date(date)
    if path.with_name("~$" + path.name).exists():
        raise SignError(
            f"{path}: open in Excel (its owner file ~${path.name} is beside it): save and "
            "close it there, or sign it in Excel"
        )
    recalc = _recalculate(path)
    current = status(recalc)
    if not current:
        raise SignError(
            f"{path}: has no sign-off block (no defined name {INPUTS_HASH}): a workbook built "
            "by an older nj-incentives; fill this version's template (nj-incentives fill)"
        )
    live = current[0].current
    if live is None:
        raise SignError(
            f"{path}: the inputs hash could not be computed: {recalc.value(INPUTS_HASH)}"
        )
    values: dict[str, str | dt.date | float] = {}
    for role, name_cell, date_cell, hash_cell in SIGNOFF_ROLES:
        name = who[role]
        if name:
            values[name_cell] = name.strip()
            values[date_cell] = day
            values[hash_cell] = live
    values["EngagementDate"] = day
    import tempfile

    from nj_incentives.workpapers.templates.cached import write_cached_values

    updated = _write_cells(path.read_bytes(), values)
    target = Path(output) if output is not None else path
    with tempfile.TemporaryDirectory(prefix="nj-incentives-sign-") as folder:
        staged = Path(folder) / "signed.xlsx"
        staged.write_bytes(updated)
        after = _recalculate(staged)
        # the formulas' cached results, so that a viewer that does not recalculate
        # (a preview, a LibreOffice print) shows the sign-off as Excel would
        write_cached_values(staged, {a: after.values.get(a) for a in after.computed})
        with atomic_path(target) as temporary:
            temporary.write_bytes(staged.read_bytes())
    from nj_incentives.workpapers.memo.sheets import master_check

    return Signed(target, status(after), master_check(after))


def _sign_date(date: dt.date | str | None) -> dt.date:
    if date is None:
        return dt.date.today()
    if isinstance(date, dt.datetime):
        return date.date()
    if isinstance(date, dt.date):
        return date
    try:
        return dt.date.fromisoformat(str(date).strip())
    except ValueError:
        raise SignError(f"--date {date!r}: expected a date as YYYY-MM-DD") from None
