"""xlwings Server's formula re-entry: the script ``nj_reenter_formulas``, run on the server.

Excel leaves an Office.js custom function written into the file as text at ``#NAME?``
until the formula is re-entered (OfficeDev/office-js#6611; docs/install.md). xlwings Lite
re-enters the workbook's own formulas (:mod:`nj_incentives.lite`), reading them through
Lite's async API. xlwings Server cannot read formulas: its client sends a script the
workbook's values, not its formulas, and its on-demand reads (``get_formula``) exist only
in Lite. So this script writes the formulas the workbook's template holds, which the
package ships: it finds the template by the title in ``About!A1`` (each template's
first cell) and re-enters every NJ_* formula of that template on the workbook's sheets,
spelled with this server's namespace (:func:`nj_incentives.lite.runtime_namespace`:
``XLWINGS`` in prod, ``XLWINGS_DEV`` in dev ...): a dynamic array at its anchor cell
(Office.js's ``range.formulas`` spills it), a legacy array formula over its range, any
other formula cell by cell. The template's formulas are its filled example's (a user
fills only input cells, which are not formulas), so a workbook filled from a template
gets its own formulas back. A workbook that is not one of the templates, or whose sheets
are not the template's, is left alone with a message saying what to do instead (Find &
Replace of ``=`` with ``=``). Excel refuses to change cells of a protected sheet:
unprotect the template's sheets first (Review > Unprotect Sheet; no password).

The project's ``custom_scripts/__init__.py`` imports it (``from nj_incentives.server
import *``: docs/install.md, xlwings Server), and a task pane button runs it
(``xw-click="nj_reenter_formulas"``). The messages go to the user as an alert.
"""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import xlwings as xw

from nj_incentives.runtimes.lite import Reentered, runtime_namespace
from nj_incentives.runtimes.spelling import calls, respell
from nj_incentives.support.shipped import TEMPLATES, shipped_file

__all__ = ["nj_reenter_formulas"]

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"


@dataclass(frozen=True)
class TemplateFormula:
    """One NJ_* formula of a shipped template: where, its text ("=..."), and how Excel
    holds it ("cell"; "dynamic": a dynamic array anchored there; "array": a legacy array
    formula over ``ref``)."""

    sheet: str
    address: str
    formula: str
    kind: str
    ref: str


@dataclass(frozen=True)
class Template:
    name: str
    title: str
    sheets: tuple[str, ...]
    formulas: tuple[TemplateFormula, ...]


def _xml(archive: zipfile.ZipFile, part: str) -> ElementTree.Element:
    return ElementTree.fromstring(archive.read(part))


def _read_template(path: Path) -> Template:
    """A shipped template's title (About!A1), sheets and NJ_* formulas (our own file:
    trusted, read with the standard library)."""
    with zipfile.ZipFile(path) as archive:
        rels = {
            rel.get("Id"): posixpath.join("xl", rel.get("Target", "").lstrip("/"))
            for rel in _xml(archive, "xl/_rels/workbook.xml.rels").iter(f"{_PKG_REL}Relationship")
        }
        sheets = [
            (sheet.get("name", ""), rels[sheet.get(f"{_REL}id")])
            for sheet in _xml(archive, "xl/workbook.xml").iter(f"{_MAIN}sheet")
        ]
        strings = (
            [
                "".join(t.text or "" for t in item.iter(f"{_MAIN}t"))
                for item in _xml(archive, "xl/sharedStrings.xml").iter(f"{_MAIN}si")
            ]
            if "xl/sharedStrings.xml" in archive.namelist()
            else []
        )
        title, formulas = "", []
        for sheet, part in sheets:
            for cell in _xml(archive, part).iter(f"{_MAIN}c"):
                address = cell.get("r", "")
                value = cell.find(f"{_MAIN}v")
                if sheet == sheets[0][0] and address == "A1" and value is not None:
                    shared = cell.get("t") == "s"
                    title = strings[int(value.text or 0)] if shared else (value.text or "")
                found = cell.find(f"{_MAIN}f")
                if found is None or not found.text or not calls(found.text):
                    continue
                kind = "cell"
                if found.get("t") == "array":
                    kind = "dynamic" if cell.get("cm") else "array"
                formulas.append(
                    TemplateFormula(sheet, address, "=" + found.text, kind, found.get("ref", ""))
                )
    return Template(path.stem, title, tuple(s for s, _ in sheets), tuple(formulas))


@cache
def templates() -> dict[str, Template]:
    """The shipped templates by their About!A1 title."""
    found = {}
    for name in TEMPLATES:
        path = shipped_file(name)
        if path.is_file():
            template = _read_template(path)
            found[template.title] = template
    return found


def _title(book: Any) -> str | None:
    names = [sheet.name for sheet in book.sheets]
    if not names:
        return None
    value = book.sheets[names[0]]["A1"].value
    return value if isinstance(value, str) else None


def reenter(book: Any, namespace: str | None = None) -> Reentered:
    """Write every NJ_* formula of ``book``'s template into ``book``, spelled for
    ``namespace`` (default: this server's). Raises ValueError (the message for the user)
    when ``book`` is not one of the templates."""
    namespace = runtime_namespace() if namespace is None else namespace
    title = _title(book)
    template = templates().get(title or "")
    if template is None:
        known = ", ".join(sorted(templates()))
        raise ValueError(
            f"This workbook is not an nj-incentives template (its first sheet's A1 is "
            f"{title!r}; the templates' are {known}). Re-enter its NJ_* formulas by hand: "
            "Review > Unprotect Sheet, then Home > Find & Select > Replace, = with =, "
            "Replace All."
        )
    present = {sheet.name for sheet in book.sheets}
    absent = [name for name in template.sheets if name not in present]
    if absent:
        raise ValueError(
            f"This workbook has the title of the template {template.name} but not its "
            f"sheet(s) {', '.join(absent)}: nothing re-entered. Use a fresh copy "
            "(nj-incentives templates DIR --runtime server) or re-enter by hand "
            "(Home > Find & Select > Replace, = with =)."
        )
    done = Reentered(namespace)
    for item in template.formulas:
        sheet = book.sheets[item.sheet]
        text = respell(item.formula, namespace)
        if item.kind == "array":
            sheet[item.ref].formula_array = text
            done.arrays.setdefault(item.sheet, []).append(item.ref)
        else:  # a cell, or a dynamic array's anchor: Office.js spills it again
            sheet[item.address].formula = text
            done.cells.setdefault(item.sheet, []).append(item.address)
    return done


@xw.script
def nj_reenter_formulas(book: xw.Book) -> None:
    """Re-enter every NJ_* formula of this workbook (an nj-incentives template) so that
    Excel binds them to this server's functions (run it once after opening a template;
    unprotect the sheets first: Review > Unprotect Sheet, no password)."""
    try:
        done = reenter(book)
    except ValueError as error:
        book.app.alert(str(error), title="nj-incentives")
        return
    book.app.alert(done.summary(), title="nj-incentives")
