"""The memo as a document: its blocks (headings, paragraphs, formulas, tables, lists,
quotes, page breaks), rendered by :mod:`.markup` (Markdown, HTML) and :mod:`.pdf`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, TypeAlias


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    #: the engagement this section is about (the running header from here on)
    running: str | None = None
    #: the footer's left part from here on: version, date, preparer and reviewer
    footer: str | None = None
    kind: ClassVar[str] = "heading"


@dataclass(frozen=True)
class Paragraph:
    text: str
    strong: bool = False
    #: a warning the reader must not miss (a master check that is not TRUE): set apart
    warning: bool = False
    kind: ClassVar[str] = "paragraph"


@dataclass(frozen=True)
class Code:
    """A formula, shown verbatim."""

    text: str
    label: str = ""
    kind: ClassVar[str] = "code"


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    #: "part 2 of 4: columns ..." when a wide table is shown in parts
    caption: str = ""
    #: set smaller in print (the summary page's tables, so that page 1 holds them)
    small: bool = False
    kind: ClassVar[str] = "table"


@dataclass(frozen=True)
class Items:
    items: tuple[str, ...]
    #: set smaller in print (a long list of references)
    small: bool = False
    kind: ClassVar[str] = "items"


@dataclass(frozen=True)
class Quote:
    """Text quoted from docs/interpretations.md (its own Markdown lines)."""

    lines: tuple[str, ...]
    kind: ClassVar[str] = "quote"

    def items(self) -> list[tuple[bool, list[tuple[str, str]]]]:
        """The quoted Markdown as (bullet?, [(text, style)]) items, style "" / "b" /
        "code": list items (continuation lines joined) and paragraphs."""
        found: list[tuple[bool, list[str]]] = []
        for line in self.lines:
            stripped = line.strip()
            if not stripped:
                found.append((False, []))
                continue
            if stripped.startswith(("- ", "* ")):
                found.append((True, [stripped[2:]]))
            elif found and found[-1][1]:
                found[-1][1].append(stripped)
            else:
                found.append((False, [stripped]))
        return [(bullet, _inline(" ".join(parts))) for bullet, parts in found if parts]


def _inline(text: str) -> list[tuple[str, str]]:
    """Markdown inline text as (text, style) runs: **bold** and `code`; the rest plain."""
    runs: list[tuple[str, str]] = []
    for piece in re.split(r"(\*\*[^*]+\*\*|`[^`]+`)", text):
        if not piece:
            continue
        if piece.startswith("**") and piece.endswith("**") and len(piece) > 4:
            runs.append((piece[2:-2].replace("`", ""), "b"))
        elif piece.startswith("`") and piece.endswith("`") and len(piece) > 2:
            runs.append((piece[1:-1], "code"))
        else:
            runs.append((piece, ""))
    return runs


@dataclass(frozen=True)
class PageBreak:
    """A new page in print (the PDF; the HTML when printed); nothing in Markdown."""

    kind: ClassVar[str] = "pagebreak"


Block: TypeAlias = Heading | Paragraph | Code | Table | Items | Quote | PageBreak


@dataclass
class Memo:
    title: str
    blocks: list[Block] = field(default_factory=list)
    #: the engagement of the whole memo (its running header until a section names one)
    running: str = ""
    #: the footer's left part: version, date, preparer / reviewer
    footer: str = ""

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)

    def sections(self) -> list[Section]:
        """The blocks in print sections: a new one at each heading that names its
        engagement (the HTML's named pages: their own running header and footer)."""
        found = [Section("memo", self.running, self.footer, [])]
        for block in self.blocks:
            if isinstance(block, Heading) and block.running is not None:
                name = f"engagement{len(found)}"
                found.append(Section(name, block.running, block.footer or self.footer, []))
                if found[-2].blocks and isinstance(found[-2].blocks[-1], PageBreak):
                    found[-2].blocks.pop()  # a new section starts a new page anyway
            found[-1].blocks.append(block)
        return [section for section in found if section.blocks]


@dataclass
class Section:
    """Blocks printed under one running header and footer."""

    name: str
    running: str
    footer: str
    blocks: list[Block]


def padded(row: Sequence[str], headers: Sequence[str]) -> list[str]:
    cells = list(row) + [""] * (len(headers) - len(row))
    return cells[: len(headers)]


NUMBER_CELL = re.compile(r"^[-+]?\$?[\d,]+(?:\.\d+)?%?$")


def is_numeric(text: str) -> bool:
    return bool(NUMBER_CELL.match(str(text).strip()))
