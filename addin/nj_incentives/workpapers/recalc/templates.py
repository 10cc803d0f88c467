"""Which shipped template a workbook is, and its spilled ranges restored whoever saved it.

Excel 365 marks each dynamic array with cell metadata (the ``cm`` attribute of its anchor
cell and ``xl/metadata.xml``). Most other tools that save an .xlsx drop that marking and
keep the formula as a legacy array formula over the range it last spilled into:
openpyxl (and pandas, which writes through openpyxl), LibreOffice (7.x, "Calc MS Excel
2007 XML", which also writes NJ_* names in lower case; the engine reads every spelling).
A dynamic array spills its result and leaves the rest of its range blank; a legacy array
formula fills the rest with #N/A (Excel does, and so does the engine). A template's
tables are usually shorter than their ranges, so such a copy fails its checks.

:func:`recognise_template` says which shipped template a workbook is: by the
``nj_incentives_template`` custom document property (Excel, LibreOffice, openpyxl and
pandas keep it) or, when a tool dropped the property, by its sheets and the places of its
array formulas. :func:`restore_spills` then gives back, for every array formula that the
template writes as a dynamic array over the same range, its dynamic-array marking (the
recalculation treats it as one again), with a note saying what it restored and which
tool saved the file. An array formula calling an NJ_* function that cannot be restored
(the template has no such formula there, the file names a template this version does not
ship, or it is no template at all) is computed as the file says, and a note names its
ranges and why. Excel itself shows #N/A below those tables until the formulas are
re-entered (``nj_reenter_formulas``) or the template is filled again (``nj-incentives
fill``). ``calc`` prints these notes; ``doctor`` reports the same from
:func:`spill_report`.
"""

from __future__ import annotations

import functools
import io
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field

from nj_incentives.core.cells import cell_index, quote_sheet
from nj_incentives.support.shipped import shipped_workbooks
from nj_incentives.workpapers.recalc.safety import (
    VettedWorkbook,
    array_formulas,
    dynamic_arrays,
    sheet_parts,
)

__all__ = [
    "SPILL_NOTE",
    "SpillReport",
    "TemplateLayout",
    "TemplateMatch",
    "recognise_template",
    "restore_spills",
    "saved_by",
    "shipped_layouts",
    "spill_report",
    "template_id",
]

Address = tuple[str, str]

#: How every note of :func:`spill_report` begins (``calc`` prints them).
SPILL_NOTE = "saved by "

_APPLICATION = re.compile(r"<(?:\w+:)?Application>([^<]*)</(?:\w+:)?Application>")
_PROPERTY = re.compile(r"<(?:\w+:)?property\b([^>]*)>(.*?)</(?:\w+:)?property>", re.S)
_NAME = re.compile(r"""\bname\s*=\s*["']([^"']*)["']""")
_VALUE = re.compile(r"<(?:\w+:)?lpwstr>([^<]*)</(?:\w+:)?lpwstr>")
_NJ_CALL = re.compile(r"(?<![A-Za-z0-9_])(?:[A-Za-z_][A-Za-z0-9_.]*\.)?NJ_[A-Z0-9_]+\s*\(", re.I)


def _part(data: bytes, name: str) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        if name not in archive.namelist():
            return ""
        return archive.read(name).decode("utf-8", "replace")


def saved_by(vetted: VettedWorkbook) -> str:
    """The application that last saved the file (``docProps/app.xml``), or ""."""
    found = _APPLICATION.search(_part(vetted.data, "docProps/app.xml"))
    return found.group(1).strip() if found else ""


def template_id(vetted: VettedWorkbook) -> str:
    """The nj-incentives template the file says it was built from (custom property), or ""."""
    for attributes, body in _PROPERTY.findall(_part(vetted.data, "docProps/custom.xml")):
        name = _NAME.search(attributes)
        if name and name.group(1).strip().lower() == "nj_incentives_template":
            value = _VALUE.search(body)
            return value.group(1).strip() if value else ""
    return ""


@dataclass(frozen=True)
class TemplateLayout:
    """A shipped template's layout: its sheets and array formulas (dynamic or not)."""

    template: str
    file: str
    sheets: tuple[str, ...]
    #: (sheet, anchor) -> range of each dynamic array
    dynamic: Mapping[Address, str] = field(repr=False)
    #: (sheet, anchor) -> range of every array formula
    arrays: Mapping[Address, str] = field(repr=False)


@dataclass(frozen=True)
class TemplateMatch:
    """A workbook recognised as a shipped template, and how."""

    layout: TemplateLayout
    #: "custom property" or "sheets and array formulas"
    how: str

    @property
    def template(self) -> str:
        return self.layout.template


@functools.cache
def shipped_layouts() -> dict[str, TemplateLayout]:
    """Template id -> its layout, from the shipped blank templates and examples.

    They are the package's own files, not files a user gave, so they are read without
    the vetting that bounds untrusted workbooks (as the sign-off reads the blank
    templates, :func:`nj_incentives.workpapers.signoff._template_graph`): vetting parsed
    every part of the twelve once more, 1-2 s of each ``fill`` and ``rollforward``; what
    is read here (the custom property, the sheets, the array formulas) is the bytes."""
    found: dict[str, TemplateLayout] = {}
    for path in sorted(shipped_workbooks(), key=lambda p: p.name):
        data = path.read_bytes()
        vetted = VettedWorkbook(path, data, 0, len(data), False, 0)
        template = template_id(vetted)
        if template and template not in found:
            with zipfile.ZipFile(io.BytesIO(vetted.data)) as archive:
                sheets = tuple(sheet_parts(archive))
            found[template] = TemplateLayout(
                template, path.name, sheets, dynamic_arrays(vetted), array_formulas(vetted)
            )
    return found


def _sheets(vetted: VettedWorkbook) -> tuple[str, ...]:
    with zipfile.ZipFile(io.BytesIO(vetted.data)) as archive:
        return tuple(sheet_parts(archive))


def recognise_template(
    vetted: VettedWorkbook, arrays: Mapping[Address, str] | None = None
) -> TemplateMatch | None:
    """The shipped template ``vetted`` is, whoever saved it, or None.

    By its ``nj_incentives_template`` property when it has one (a property naming a
    template this version does not ship is not overruled); without the property, the
    template whose sheets it has (in order; a filled roster may add sheets after them)
    and whose array formulas, every one, it has at the same places over the same ranges."""
    layouts = shipped_layouts()
    named = template_id(vetted)
    if named:
        layout = layouts.get(named)
        return TemplateMatch(layout, "custom property") if layout else None
    sheets = set(_sheets(vetted))
    arrays = array_formulas(vetted) if arrays is None else arrays
    for layout in layouts.values():
        if (
            set(layout.sheets) <= sheets
            and layout.arrays
            and all(arrays.get(anchor) == ref for anchor, ref in layout.arrays.items())
        ):
            return TemplateMatch(layout, "sheets and array formulas")
    return None


@dataclass(frozen=True)
class SpillReport:
    """What a workbook's array formulas need: those restored as the template's dynamic
    arrays, those left as legacy array formulas, and what to say about them."""

    match: TemplateMatch | None
    application: str
    #: (sheet, anchor) -> range: lost dynamic arrays restored from the template's layout
    restored: Mapping[Address, str]
    #: (sheet, anchor) -> range: legacy array formulas calling NJ_* not restored
    unrestored: Mapping[Address, str]
    notes: tuple[str, ...]

    @staticmethod
    def ranges(found: Mapping[Address, str], most: int = 5) -> str:
        """``Sheet!A1:B2, ...`` (the first ``most``, then how many more)."""
        order = sorted(found, key=lambda a: (a[0], cell_index(a[1])))
        shown = [f"{quote_sheet(sheet)}!{found[(sheet, cell)]}" for sheet, cell in order]
        more = f" and {len(shown) - most} more" if len(shown) > most else ""
        return ", ".join(shown[:most]) + more


def _calls_nj(vetted: VettedWorkbook, anchors: set[Address]) -> set[Address]:
    """The anchors among ``anchors`` whose formula calls an NJ_* function."""
    from xml.parsers import expat

    found: set[Address] = set()
    with zipfile.ZipFile(io.BytesIO(vetted.data)) as archive:
        for title, part in sheet_parts(archive).items():
            wanted = {cell for sheet, cell in anchors if sheet == title}
            if not wanted or part not in archive.namelist():
                continue
            state: dict[str, object] = {"cell": None, "text": []}

            def start(name: str, attrs: dict[str, str], state: dict[str, object] = state) -> None:
                local = name.rpartition(":")[2]
                if local == "c":
                    state["cell"] = attrs.get("r")
                elif local == "f":
                    state["text"] = []

            def text(data: str, state: dict[str, object] = state) -> None:
                chunks = state["text"]
                assert isinstance(chunks, list)
                chunks.append(data)

            def end(
                name: str,
                state: dict[str, object] = state,
                wanted: set[str] = wanted,
                title: str = title,
            ) -> None:
                if name.rpartition(":")[2] == "f" and state["cell"] in wanted:
                    chunks = state["text"]
                    assert isinstance(chunks, list)
                    if _NJ_CALL.search("".join(chunks)):
                        found.add((title, str(state["cell"])))

            parser = expat.ParserCreate(namespace_separator=":")
            parser.StartElementHandler = start
            parser.CharacterDataHandler = text
            parser.EndElementHandler = end
            parser.Parse(archive.read(part), True)
    return found


def spill_report(
    vetted: VettedWorkbook, dynamic: Mapping[Address, str] | None = None
) -> SpillReport:
    """The array formulas of ``vetted`` that lost their dynamic-array marking: those the
    recognised template restores, those it cannot (module docstring), and notes."""
    arrays = array_formulas(vetted)
    dynamic = dynamic_arrays(vetted) if dynamic is None else dynamic
    lost = {anchor: ref for anchor, ref in arrays.items() if anchor not in dynamic}
    application = saved_by(vetted)
    if not lost:
        return SpillReport(None, application, {}, {}, ())
    match = recognise_template(vetted, arrays)
    layout = match.layout if match else None
    restored = {a: ref for a, ref in lost.items() if layout.dynamic.get(a) == ref} if layout else {}
    legacy_in_template = {a for a, ref in lost.items() if layout and layout.arrays.get(a) == ref}
    candidates = {a for a in lost if a not in restored and a not in legacy_in_template}
    unrestored = {a: lost[a] for a in _calls_nj(vetted, candidates)}
    who = _who(application)
    notes = []
    if restored:
        notes.append(
            f"{who}, which drops Excel's dynamic-array marking: {len(restored)} spilled "
            f"range(s) restored from the {match.template if match else ''} template's layout "
            f"(recognised by its {match.how if match else ''}) and recalculated as dynamic "
            f"arrays, blank below a shorter result: {SpillReport.ranges(restored)}; Excel "
            "shows #N/A there until they are re-entered (nj_reenter_formulas) or the "
            "template is filled again (nj-incentives fill)"
        )
    if unrestored:
        named = template_id(vetted)
        if match:
            why = f"the {match.template} template of this version has no such formula there"
        elif named:
            why = f"the file names template {named!r}, which this version does not ship"
        else:
            why = "the file matches no nj-incentives template"
        notes.append(
            f"{who}: {SpillReport.ranges(unrestored)} computed as legacy array formulas "
            f"(#N/A below a shorter result) because {why}; re-enter them in Excel 365 as "
            "dynamic arrays or fill the template again"
        )
    return SpillReport(match, application, restored, unrestored, tuple(notes))


def _who(application: str) -> str:
    if not application:
        return "saved by a tool that names itself nowhere"
    if "libreoffice" in application.lower():
        return f"saved by LibreOffice ({application})"
    return f"saved by {application}"


def restore_spills(
    vetted: VettedWorkbook, dynamic: Mapping[Address, str]
) -> tuple[dict[Address, str], list[str]]:
    """The dynamic arrays ``vetted`` lost that its template has (to recalculate as dynamic
    arrays again) and the notes saying what was done (:func:`spill_report`)."""
    report = spill_report(vetted, dynamic)
    return dict(report.restored), list(report.notes)
