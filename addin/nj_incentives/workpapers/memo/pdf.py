"""The memo as a paginated PDF, drawn from the document blocks with fpdf2 (see
docs/install.md, "The calculation memo as PDF", for why fpdf2)."""

from __future__ import annotations

import importlib.util
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from nj_incentives.version import __version__
from nj_incentives.workpapers.memo.document import (
    Block,
    Code,
    Heading,
    Items,
    Memo,
    PageBreak,
    Paragraph,
    Quote,
    Table,
    is_numeric,
    padded,
)

#: The fonts (DejaVu Sans, its bold and oblique, and DejaVu Sans Mono for
#: formulas) as matplotlib ships them (``mpl-data/fonts/ttf``): one well-kept PyPI package
#: (in the ``calc`` extra) that carries DejaVu, which covers Latin, Greek, Cyrillic,
#: Armenian, Georgian, Hebrew and Arabic among others. matplotlib is not imported.
FONT_FILES = {
    ("DejaVu", ""): "DejaVuSans.ttf",
    ("DejaVu", "B"): "DejaVuSans-Bold.ttf",
    ("DejaVu", "I"): "DejaVuSans-Oblique.ttf",
    ("DejaVuMono", ""): "DejaVuSansMono.ttf",
}
SANS, MONO = "DejaVu", "DejaVuMono"

#: Bounds on text from a workbook, so that any text prints within the page and the time
#: budget: a table cell at most :data:`CELL_LINES` lines, a paragraph at most
#: :data:`TEXT_CHARACTERS` characters, the running header three lines and the footer
#: two; what is cut ends with a note saying how long the text was.
CELL_LINES = 16
#: A table cell of at most this many characters is never cut: even in the narrowest
#: column (about 8 mm) it is at most about 40 lines, 90 mm, within a page.
CELL_KEEP = 200
#: The sizes of body text and tables relative to the first (Helvetica) design: DejaVu Sans
#: is wider and taller in the x-height, so it reads as well a little smaller.
NARROWER = 0.9
#: Body text: its size (points) and line height (mm).
BODY, LINE = 8.5 * NARROWER, 4.2 * NARROWER
TEXT_CHARACTERS = 3_000
#: The small tables of page 1 (summary, law, settings, sign-off): their size (points) and
#: line height (mm a point), tighter than the others' 0.40 so that page 1 holds them all
SMALL, SMALL_LINE = 6.3, 0.38
#: Text measured for a table cell before it is cut to its lines (a bound on the work).
CELL_CHARACTERS = 2_000


def font_directory() -> Path:
    """The folder of matplotlib's DejaVu fonts (found without importing matplotlib)."""
    spec = importlib.util.find_spec("matplotlib")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        found = Path(folder) / "mpl-data" / "fonts" / "ttf"
        if (found / FONT_FILES[(SANS, "")]).is_file():
            return found
    raise ModuleNotFoundError(
        "the PDF memo's font (DejaVu Sans) comes with matplotlib", name="matplotlib"
    )


def cut_note(length: int) -> str:
    """What a cut text ends with."""
    return f" … [cut: {length:,} characters in all]"


def bounded(text: object, limit: int = TEXT_CHARACTERS) -> str:
    """``text`` (one line of whitespace runs kept) cut to ``limit`` characters, with the
    note."""
    plain = str(text)
    if len(plain) <= limit:
        return plain
    return plain[:limit].rstrip() + cut_note(len(plain))


def clipped(
    pdf: Any, text: str, width: float, lines: int, length: int | None = None, keep: int = 0
) -> str:
    """``text`` as at most ``lines`` lines of ``width`` (mm) in the current font: the
    lines fpdf2 would break it into, the last one ending with the note when cut
    (``length``: of the whole text, when ``text`` is already its first part). A text of
    at most ``keep`` characters is never cut."""
    plain = str(text)
    length = len(plain) if length is None else length
    cut = length > len(plain)
    if not cut and len(plain) <= keep:
        return plain
    if not plain and not cut:
        return plain
    widest = pdf.get_string_width("W")  # no wider character in the text fonts
    if not cut and "\n" not in plain and len(plain) * widest <= width * (lines - 1) / 2:
        return plain  # surely within: word wrapping fills each line at least half
    head = plain[:CELL_CHARACTERS]
    found = pdf.multi_cell(width, 1, head, dry_run=True, output="LINES")
    if len(found) <= lines and len(head) == length:
        return plain
    note = cut_note(length)
    kept = [str(line) for line in found[:lines]] or [""]
    last = kept[-1]
    while last and pdf.get_string_width(last + note) > width:
        last = last[: len(last) - max(1, len(last) // 8)]
    kept[-1] = last.rstrip() + note
    return "\n".join(kept)


def right_to_left(*texts: str) -> bool:
    """Whether any of ``texts`` holds right-to-left text (Hebrew, Arabic: bidirectional
    classes R, AL, AN), which fpdf2 lays out only with its text shaping (uharfbuzz)."""
    kinds = ("R", "AL", "AN")
    return any(
        ord(ch) >= 0x590 and unicodedata.bidirectional(ch) in kinds for text in texts for ch in text
    )


def _block_texts(block: Block) -> Iterator[str]:
    """The texts of a block as drawn: their first TEXT_CHARACTERS at most (none is drawn
    longer), so that a scan of them is bounded too."""
    found: Iterator[str] = iter(())
    if isinstance(block, Heading | Paragraph):
        found = iter((block.text,))
    elif isinstance(block, Code):
        found = iter((block.label, block.text))
    elif isinstance(block, Table):
        found = iter((block.caption, *block.headers, *(cell for row in block.rows for cell in row)))
    elif isinstance(block, Items):
        found = iter(block.items)
    for text in found:
        yield str(text)[:TEXT_CHARACTERS]


def _texts(memo: Memo) -> Iterator[str]:
    for text in (memo.title, memo.running, memo.footer):
        yield text[:TEXT_CHARACTERS]
    for block in memo.blocks:
        if isinstance(block, Heading):
            yield (block.running or "")[:TEXT_CHARACTERS]
            yield (block.footer or "")[:TEXT_CHARACTERS]
        yield from _block_texts(block)


def missing_glyphs(memo: Memo, covered: Callable[[int], bool]) -> int:
    """How many characters of the memo's text the font has no glyph for."""
    return sum(
        1
        for text in _texts(memo)
        for ch in text
        if ord(ch) > 0x24F and not ch.isspace() and not covered(ord(ch))
    )


def _natural_widths(table: Table, measure: Callable[[str], float]) -> list[float]:
    """Each column's width for its longest text on one line."""
    return [
        max(
            measure(table.headers[c]) * 1.12,  # headers are bold
            *(measure(str(r[c])) for r in table.rows if c < len(r)),
        )
        + 2.5
        for c in range(len(table.headers))
    ]


def _column_widths(
    table: Table, width: float, measure: Callable[[str], float]
) -> tuple[float, ...]:
    """Widths from each column's longest word (its floor) and its typical text on one
    line (what it wants), fitted to ``width``."""
    wants, floors = [], []
    for c in range(len(table.headers)):
        texts = [table.headers[c], *(row[c] if c < len(row) else "" for row in table.rows)]
        longest_word = max(
            (
                measure(w) * (1.12 if i == 0 else 1.0)
                for i, t in enumerate(texts)
                for w in str(t).split()
            ),
            default=1.0,
        )
        lengths = sorted(measure(str(t)) for t in texts)
        typical = lengths[int(0.9 * (len(lengths) - 1))]
        # a short text (a row label, "Employee 12") is not broken where the room allows
        floors.append(max(min(longest_word, 45.0), min(typical, 16.0)) + 2.5)
        wants.append(max(floors[-1], min(typical, 120.0) + 2.5))
    total = sum(wants)
    if total <= width:
        return tuple(w * width / total for w in wants)
    spare = width - sum(floors)
    if spare <= 0:
        return tuple(f * width / sum(floors) for f in floors)
    extra = [w - f for w, f in zip(wants, floors, strict=True)]
    share = spare / sum(extra) if sum(extra) else 0
    return tuple(f + e * share for f, e in zip(floors, extra, strict=True))


def spelled(memo: Memo, covered: Callable[[int], bool]) -> Memo:
    """``memo`` with each character its font has no glyph for (``covered`` false: CJK
    text in DejaVu Sans) written as its code point, ``[U+4E2D]``, so that no text of the
    PDF is left blank."""
    import dataclasses

    def text(value: str) -> str:
        return "".join(
            f"[U+{ord(ch):04X}]"
            if ord(ch) > 0x24F and not ch.isspace() and not covered(ord(ch))
            else ch
            for ch in value
        )

    def mapped(value: Any) -> Any:
        if isinstance(value, str):
            return text(value)
        if isinstance(value, tuple):
            return tuple(mapped(item) for item in value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {
                f.name: mapped(getattr(value, f.name))
                for f in dataclasses.fields(value)
                if isinstance(getattr(value, f.name), (str, tuple))
            }
            return dataclasses.replace(value, **changes)
        return value

    return Memo(
        text(memo.title),
        [mapped(block) for block in memo.blocks],
        text(memo.running),
        text(memo.footer),
    )


def _cmap(font: Path) -> set[int]:
    """The code points ``font`` has a glyph for."""
    from fontTools.ttLib import TTFont

    with TTFont(str(font), lazy=True) as loaded:
        return set(loaded.getBestCmap() or {})


def to_pdf(memo: Memo) -> bytes:
    """The memo as a paginated PDF (US Letter): the engagement and the title on every
    page, "Page x of y", the version, date, preparer and reviewer in the footer; tables
    with their header row repeated on each page, wide ones in parts (:func:`wrapped`).
    Set in DejaVu Sans (any script DejaVu covers; right-to-left text laid out by fpdf2's
    text shaping); text from a workbook bounded (:data:`CELL_LINES`,
    :data:`TEXT_CHARACTERS`; the running header three lines, the footer two), cut with a
    note."""
    from fpdf import FPDF
    from fpdf.fonts import FontFace

    fonts = font_directory()
    cmap = _cmap(fonts / FONT_FILES[(SANS, "")])
    missing = missing_glyphs(memo, lambda code: code in cmap)
    if missing:
        memo = spelled(memo, lambda code: code in cmap)
    shaping: Any = None  # fpdf2's text shaping parameters, when any text needs them

    def shaped(*texts: str) -> Any:
        return shaping if shaping is not None and right_to_left(*texts) else None

    #: (text, width, lines) -> the running header's or footer's text, clipped
    clips: dict[tuple[str, float, int], str] = {}

    class Document(FPDF):
        #: what the header and footer of this page show, and of the pages from the next
        #: one on (a section's heading sets ``coming``; the header of a new page takes it,
        #: after the footer of the page before was drawn with the old one)
        running, foot = memo.running, memo.footer
        coming: tuple[str, str] | None = None

        def within(self, text: str, room: float, lines: int) -> str:
            """The running header's or footer's text clipped to ``lines`` lines (once: each
            page repeats it); shaped text with room to spare, as it measures a little off."""
            key = (text, room, lines)
            if key not in clips:
                spare = 6 if self.text_shaping else 0
                clips[key] = clipped(self, text, room - spare, lines)
            return clips[key]

        def header(self) -> None:
            if self.coming is not None:
                self.running, self.foot = self.coming
                self.coming = None
            saved, self.text_shaping = self.text_shaping, shaped(self.running)
            self.draw_header()
            self.text_shaping = saved

        def footer(self) -> None:
            saved, self.text_shaping = self.text_shaping, shaped(self.foot)
            self.draw_footer()
            self.text_shaping = saved

        def draw_header(self) -> None:
            self.set_font(SANS, "", 7.5)
            self.set_text_color(90, 90, 90)
            title = memo.title
            room = self.epw - self.get_string_width(title) - 6
            top = self.get_y()
            self.multi_cell(room, 3.6, self.within(self.running, room, 3), align="L",
                            new_x="LMARGIN", new_y="NEXT")  # fmt: skip
            below = self.get_y()
            self.set_xy(self.l_margin, top)
            self.cell(0, 3.6, title, align="R", new_x="LMARGIN", new_y="NEXT")
            self.set_y(max(below, self.get_y()))
            self.set_draw_color(31, 56, 100)
            self.line(self.l_margin, self.get_y() + 0.5, self.w - self.r_margin, self.get_y() + 0.5)
            self.ln(4)
            self.set_text_color(26, 26, 26)

        def draw_footer(self) -> None:
            self.set_font(SANS, "", 7.5)
            self.set_text_color(90, 90, 90)
            number = f"Page {self.page_no()} of {{nb}}"
            room = self.epw - self.get_string_width(f"Page {self.page_no()} of 999") - 6
            text = self.within(self.foot, room, 2)
            lines = 1 if "\n" not in text and self.get_string_width(text) <= room else 2
            self.set_y(-8 - 3.6 * lines)
            self.multi_cell(room, 3.6, text, align="L", new_x="LMARGIN", new_y="TOP")
            self.set_xy(self.l_margin, -8 - 3.6 * lines)
            self.cell(0, 3.6, number, align="R")

    pdf = Document(orientation="portrait", unit="mm", format="letter")
    for (family, style), name in FONT_FILES.items():
        pdf.add_font(family, style, fonts / name)
    # fpdf2's text shaping (uharfbuzz) puts right-to-left runs in visual order and joins
    # Arabic letters; it costs, so it is on only for a block (and a running header or
    # footer) that holds such text
    if right_to_left(*_texts(memo)):
        try:
            pdf.set_text_shaping(True)
            shaping = pdf.text_shaping
        except Exception:  # uharfbuzz missing: the text prints in its stored order
            shaping = None
        pdf.text_shaping = None
    pdf.set_margins(14, 14, 14)
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.set_title(memo.title)
    pdf.set_creator(f"nj-incentives {__version__}")
    pdf.alias_nb_pages()
    pdf.add_page()
    pdf.set_font(SANS, "B", 15)
    pdf.set_text_color(31, 56, 100)
    pdf.multi_cell(0, 7, memo.title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(26, 26, 26)
    pdf.ln(1)
    if missing:
        pdf.set_font(SANS, "I", 8)
        pdf.multi_cell(0, 4, f"{missing:,} characters of this memo have no glyph in its font "
                       "(DejaVu Sans) and are written as their code points ([U+4E2D]); the "
                       "HTML memo shows them.",
                       new_x="LMARGIN", new_y="NEXT")  # fmt: skip
    sizes = {1: 15.0, 2: 12.5, 3: 10.5, 4: 9.0, 5: 8.0}
    fresh = True  # nothing below the header on this page yet
    for index, block in enumerate(memo.blocks):
        pdf.text_shaping = shaped(*_block_texts(block))
        if isinstance(block, PageBreak):
            following = memo.blocks[index + 1] if index + 1 < len(memo.blocks) else None
            if isinstance(following, Heading) and following.running is not None:
                # the new page's header and footer name it
                pdf.coming = (following.running, following.footer or memo.footer)
            if not fresh:
                pdf.add_page()
                fresh = True
            continue
        if isinstance(block, Heading):
            if block.running is not None and pdf.coming is None:
                pdf.coming = (block.running, block.footer or memo.footer)  # from the next page
            if pdf.get_y() > pdf.h - 45:  # keep a heading with what follows it
                pdf.add_page()
            pdf.ln(1.5 if block.level > 2 else 1)
            pdf.set_font(SANS, "B", sizes.get(block.level, 9.0))
            if block.level <= 2:
                pdf.set_text_color(31, 56, 100)
            pdf.multi_cell(0, sizes.get(block.level, 9.0) * 0.5, bounded(block.text, 500),
                           new_x="LMARGIN", new_y="NEXT")  # fmt: skip
            pdf.set_text_color(26, 26, 26)
            if block.level == 2:
                y = pdf.get_y()
                pdf.line(pdf.l_margin, y, pdf.w - pdf.r_margin, y)
            pdf.ln(1)
        elif isinstance(block, Paragraph):
            following = memo.blocks[index + 1] if index + 1 < len(memo.blocks) else None
            if block.strong and isinstance(following, Table) and pdf.get_y() > pdf.h - 45:
                pdf.add_page()  # a table's title stays with the table
            if block.warning:  # set apart: dark red on light red, boxed
                pdf.set_font(SANS, "B", BODY + 1)
                pdf.set_text_color(156, 0, 6)
                pdf.set_fill_color(255, 199, 206)
                pdf.set_draw_color(156, 0, 6)
                pdf.multi_cell(0, LINE + 0.4, bounded(block.text), border=1, fill=True,
                               padding=1, new_x="LMARGIN", new_y="NEXT")  # fmt: skip
                pdf.set_text_color(26, 26, 26)
                pdf.set_draw_color(31, 56, 100)
                pdf.ln(1.5)
            else:
                pdf.set_font(SANS, "B" if block.strong else "", BODY)
                pdf.multi_cell(0, LINE, bounded(block.text), new_x="LMARGIN", new_y="NEXT")
                pdf.ln(1.2)
        elif isinstance(block, Code):
            pdf.set_font(SANS, "", 8)
            pdf.cell(pdf.get_string_width(block.label + ": ") + 1, 4,
                     block.label + ":", new_x="LMARGIN", new_y="NEXT")  # fmt: skip
            pdf.set_font(MONO, "", 7.5)
            pdf.set_fill_color(243, 243, 243)
            pdf.multi_cell(0, 3.6, bounded(" ".join(block.text.split())), fill=True,
                           new_x="LMARGIN", new_y="NEXT")  # fmt: skip
            pdf.ln(1.2)
        elif isinstance(block, Table):
            _pdf_table(pdf, block, FontFace)
        elif isinstance(block, Items) and block.small and _two_columns(pdf, block.items):
            pass  # a list of short items (the readings applied), in two columns
        elif isinstance(block, Items):
            size, height = (6.8, 3.3) if block.small else (BODY, LINE)
            pdf.set_font(SANS, "", size)
            for item in block.items:
                pdf.set_x(pdf.l_margin + 2)
                pdf.multi_cell(0, height, "- " + bounded(item), align="L",
                               new_x="LMARGIN", new_y="NEXT")  # fmt: skip
            pdf.ln(1.2)
        elif isinstance(block, Quote):
            _pdf_quote(pdf, block)
        fresh = False
    data = pdf.output()
    return bytes(data)


#: A small list of at least this many items prints in two columns.
TWO_COLUMN_ITEMS = 4


def _two_columns(pdf: Any, items: tuple[str, ...]) -> bool:
    """A list of short items in two columns, the first half (by lines) on the left, each
    item whole in one column; False (nothing drawn) when it is too short for it or
    taller than a page (it prints in one column then)."""
    if len(items) < TWO_COLUMN_ITEMS:
        return False
    pdf.set_font(SANS, "", 6.8)
    gutter, height = 5.0, 3.0
    width = (pdf.epw - gutter) / 2
    texts = ["- " + bounded(item) for item in items]
    lines = [len(pdf.multi_cell(width, height, t, dry_run=True, output="LINES")) for t in texts]
    split, above = len(texts), 0
    for index, count in enumerate(lines):
        if above >= sum(lines) / 2:
            split = index
            break
        above += count
    need = max(sum(lines[:split]), sum(lines[split:])) * height
    if need > pdf.h - pdf.b_margin - pdf.get_y():
        if need > (pdf.h - pdf.b_margin - pdf.t_margin) * 0.7:
            return False
        pdf.add_page()
    top = pdf.get_y()
    for column, chunk in enumerate((texts[:split], texts[split:])):
        pdf.set_y(top)
        for text in chunk:
            pdf.set_x(pdf.l_margin + column * (width + gutter))
            pdf.multi_cell(width, height, text, align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.set_y(top + need)
    pdf.ln(1.2)
    return True


def _pdf_table(pdf: Any, table: Table, font_face: Any) -> None:
    columns = len(table.headers)
    # DejaVu Sans sets about 10% wider than the Helvetica these sizes were first chosen for
    font = (8.0 if columns <= 5 else 7.0 if columns <= 9 else 6.2) * NARROWER
    if table.small:  # page 1's tables: a line of 6.3 points in 2.4 mm, 1.08 times the size
        font = min(font, SMALL)
    if table.caption:
        pdf.set_font(SANS, "I", 7.5)
        pdf.multi_cell(0, 3.8, table.caption, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(SANS, "", font)
    width = pdf.epw - 0.01
    # the text measured and drawn: a cell's first CELL_CHARACTERS at most (its lines below)
    texts = [table.headers, *(padded(row, table.headers) for row in table.rows)]
    lengths = [[len(str(text)) for text in row] for row in texts]
    heads = [tuple(str(text)[:CELL_CHARACTERS] for text in row) for row in texts]
    table = Table(heads[0], tuple(heads[1:]), table.caption, table.small)

    def measure(text: str) -> float:
        return float(pdf.get_string_width(text))

    widths = _column_widths(table, width, measure)
    if columns <= 3:  # a narrow table at its natural width, not stretched
        wants = _natural_widths(table, measure)
        if sum(wants) < width:
            widths, width = tuple(wants), sum(wants)
    numeric = [
        bool(table.rows)
        and all(is_numeric(row[c]) or not str(row[c]).strip() for row in table.rows if c < len(row))
        and any(c < len(row) and is_numeric(row[c]) for row in table.rows)
        for c in range(columns)
    ]
    align = tuple("RIGHT" if n else "LEFT" for n in numeric)
    # each cell at most CELL_LINES lines of its column (or CELL_KEEP characters), so that
    # every row fits on a page
    room = [w * width / sum(widths) - 2 * 0.8 - 0.3 for w in widths]
    pdf.set_font(SANS, "B", font)
    headers = tuple(
        clipped(pdf, text, room[c], CELL_LINES, lengths[0][c], CELL_KEEP)
        for c, text in enumerate(heads[0])
    )
    pdf.set_font(SANS, "", font)
    rows = tuple(
        tuple(
            clipped(pdf, text, room[c], CELL_LINES, lengths[r][c], CELL_KEEP)
            for c, text in enumerate(row)
        )
        for r, row in enumerate(heads[1:], 1)
    )
    if pdf.get_y() > pdf.h - (26 if table.small and len(rows) <= 3 else 35):
        pdf.add_page()
    with pdf.table(
        col_widths=widths,
        width=width,
        align="LEFT",
        text_align=align,
        line_height=font * (SMALL_LINE if table.small else 0.40),
        padding=(0.08 if table.small else 0.25, 0.8),
        headings_style=font_face(emphasis="BOLD", fill_color=(217, 225, 242)),
        borders_layout="ALL",
        repeat_headings=1,
    ) as grid:
        heading = grid.row()
        for text in headers:
            heading.cell(text, align="LEFT")
        for row in rows:
            line = grid.row()
            for text in row:
                line.cell(text)
    pdf.ln(1.6)


def _pdf_quote(pdf: Any, quote: Quote) -> None:
    """An interpretation: its items with **bold** runs as bold and `code` as mono."""
    left = pdf.l_margin + 3
    top = pdf.get_y()
    for bullet, runs in quote.items():
        pdf.set_x(left)
        pdf.set_font(SANS, "", BODY)
        if bullet:
            pdf.write(LINE, "- ")
        for text, style in runs:
            if style == "b":
                pdf.set_font(SANS, "B", BODY)
            elif style == "code":
                pdf.set_font(MONO, "", BODY - 0.5)
            else:
                pdf.set_font(SANS, "", BODY)
            pdf.write(LINE, text)
        pdf.ln(5)
    bottom = pdf.get_y()
    if bottom > top:  # the bar beside it, on this page
        pdf.set_draw_color(217, 225, 242)
        pdf.set_line_width(1)
        pdf.line(pdf.l_margin + 0.5, top, pdf.l_margin + 0.5, bottom - 1)
        pdf.set_line_width(0.2)
        pdf.set_draw_color(31, 56, 100)
    pdf.ln(1)
