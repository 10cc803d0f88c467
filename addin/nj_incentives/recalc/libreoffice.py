"""Workbooks that were opened and saved in LibreOffice (issue 9, item 6).

A LibreOffice save (7.x, "Calc MS Excel 2007 XML") keeps every formula but drops the
dynamic-array marking (the ``cm`` cell metadata and ``xl/metadata.xml``) and writes NJ_*
names in lower case. The names are no trouble (the engine reads every spelling). The
marking is: a dynamic array spills its result and leaves the rest of its range blank,
while a legacy array formula fills the rest with #N/A (Excel does, and so does the
engine), so a template's tables, shorter than their ranges, fail their checks.

When the file says it was saved by LibreOffice (``docProps/app.xml``) and says which
nj-incentives template it is (the ``nj_incentives_template`` custom property, which
LibreOffice keeps), every array formula that the shipped template writes as a dynamic
array over the same range is recalculated as one again. What cannot be restored (an
array formula the template does not have, or a template this version does not ship)
is computed as the file now says, and :func:`restore_dynamic_arrays` says exactly why in
the recalculation's notes. Excel itself would show #N/A below those tables until the
formulas are re-entered (nj_reenter_formulas) or the template is filled again.
"""

from __future__ import annotations

import functools
import io
import re
import zipfile
from collections.abc import Mapping

from nj_incentives.recalc.safety import (
    VettedWorkbook,
    array_formulas,
    dynamic_arrays,
    vet_workbook,
)
from nj_incentives.shipped import shipped_workbooks

__all__ = ["array_formulas", "restore_dynamic_arrays", "saved_by", "template_id"]

Address = tuple[str, str]

_APPLICATION = re.compile(r"<(?:\w+:)?Application>([^<]*)</(?:\w+:)?Application>")
_TEMPLATE = re.compile(
    r'name="nj_incentives_template"\s*>\s*<vt:lpwstr>([^<]*)</vt:lpwstr>', re.IGNORECASE
)


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
    """The nj-incentives template the file was built from (custom property), or ""."""
    found = _TEMPLATE.search(_part(vetted.data, "docProps/custom.xml"))
    return found.group(1).strip() if found else ""


@functools.cache
def _shipped_templates() -> dict[str, tuple[dict[Address, str], dict[Address, str]]]:
    """Template id -> (its dynamic arrays, all its array formulas), from the package data."""
    shipped: dict[str, tuple[dict[Address, str], dict[Address, str]]] = {}
    for path in sorted(shipped_workbooks(), key=lambda p: p.name):
        vetted = vet_workbook(path)
        template = template_id(vetted)
        if template and template not in shipped:
            shipped[template] = (dynamic_arrays(vetted), array_formulas(vetted))
    return shipped


def restore_dynamic_arrays(
    vetted: VettedWorkbook, dynamic: Mapping[Address, str]
) -> tuple[dict[Address, str], list[str]]:
    """For a file saved by LibreOffice: the dynamic arrays it lost that the template
    had (to recalculate as dynamic arrays again) and notes saying what was done."""
    application = saved_by(vetted)
    if "libreoffice" not in application.lower():
        return {}, []
    lost = {a: ref for a, ref in array_formulas(vetted).items() if a not in dynamic}
    template = template_id(vetted)
    template_dynamic, template_arrays = _shipped_templates().get(template, ({}, {}))
    restored = {a: ref for a, ref in lost.items() if template_dynamic.get(a) == ref}
    unknown = sorted(a for a in lost if a not in restored and template_arrays.get(a) != lost[a])
    notes = []
    who = f"saved by LibreOffice ({application})" if application else "saved by LibreOffice"
    if restored:
        notes.append(
            f"{who}, which drops the dynamic-array marking: {len(restored)} array "
            f"formula(s) recalculated as the {template} template writes them (dynamic "
            "arrays, blank below a shorter result); Excel shows #N/A there until they "
            "are re-entered"
        )
    if unknown:
        where = ", ".join(f"{sheet}!{lost[(sheet, cell)]}" for sheet, cell in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        why = (
            f"the {template} template of this version has no such formula there"
            if template in _shipped_templates()
            else (
                f"the file names template {template!r}, which this version does not ship"
                if template
                else "the file names no nj-incentives template"
            )
        )
        notes.append(
            f"{who}, which drops the dynamic-array marking: {where}{more} computed as "
            f"legacy array formulas (#N/A below a shorter result) because {why}; "
            "re-enter them in Excel 365 or fill the template again"
        )
    return restored, notes
