"""How the worksheet reader of the prebuilt path (:func:`.prebuilt.read_graph`, the one
reader of worksheet XML besides the ``formulas`` engine's own) reads a cell as the engine's
reader does: a tag's local name, the shared strings, a cell's number and an inline string
(no imports that cost anything, so the prebuilt path stays as cheap to import as it is).
The compiled-model path that shared it was retired in issue 30 (:mod:`.prebuilt`)."""

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


class InlineString:
    """A cell's inline string (``<c t="inlineStr"><is>...</is></c>``, as openpyxl and
    pandas write every text) read as the engine's reader reads it: openpyxl's
    ``Text.content``, the plain ``<t>`` followed by each run's ``<t>``, without the
    phonetic runs (``<rPh>``) and without the ``_xHHHH_`` unescaping of shared strings.

    Feed it the elements inside ``<is>`` (:meth:`start`, :meth:`text`, :meth:`end`, with
    local names); :attr:`value` is the text once ``</is>`` has closed. Anything that
    reader would read some other way (two plain ``<t>``, an element inside a ``<t>``) is
    :attr:`odd`: the caller takes the full path."""

    def __init__(self) -> None:
        self.path: list[str] = []
        self.plain_parts: list[str] = []
        self.run_parts: list[str] = []
        self.plain = 0
        self.odd = False
        self.value: str | None = None

    @property
    def open(self) -> bool:
        return bool(self.path)

    def start(self, local: str) -> None:
        if self.path and self.path[-1] == "t":
            self.odd = True
        self.path.append(local)
        if self.path == ["is", "t"]:
            self.plain += 1
            self.odd = self.odd or self.plain > 1

    def text(self, chunk: str) -> None:
        if self.path == ["is", "t"]:
            self.plain_parts.append(chunk)
        elif self.path == ["is", "r", "t"]:
            self.run_parts.append(chunk)

    def end(self) -> None:
        self.path.pop()
        if not self.path:
            self.value = "".join(self.plain_parts) + "".join(self.run_parts)
