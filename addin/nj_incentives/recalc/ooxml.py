"""What both readers of a workbook's XML take from it the same way: a tag's local name, the
shared strings and a cell's number (:mod:`.prebuilt` and :mod:`.compiled`; no imports
that cost anything, so the prebuilt path stays as cheap to import as it is)."""

from __future__ import annotations

import zipfile


def local_name(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def shared_strings(archive: zipfile.ZipFile) -> list[str]:
    """The shared strings as the engine's reader reads them (its own function)."""
    from formulas.excel.xlreader import read_string_table

    names = {info.filename.lower(): info.filename for info in archive.infolist()}
    name = names.get("xl/sharedstrings.xml")
    if name is None:
        return []
    with archive.open(name) as source:
        strings: list[str] = read_string_table(False, source)
    return strings


def cell_number(text: str) -> int | float:
    # openpyxl's _cast_number, then the engine's rounding of floats to 15 digits
    if "." in text or "E" in text or "e" in text:
        return round(float(text), 15)
    return int(text)
