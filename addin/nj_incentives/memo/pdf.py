"""The memo as a paginated PDF, drawn from the document blocks with fpdf2 (see
docs/install.md, "The calculation memo as PDF", for why fpdf2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nj_incentives.memo.document import (
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
from nj_incentives.version import __version__

#: Characters outside Latin-1 (the PDF's core fonts) as their plain equivalents.
_LATIN1 = str.maketrans(
    {
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
        "\u2212": "-", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
        "\u2026": "...", "\u2264": "<=", "\u2265": ">=", "\u2260": "!=", "\u2192": "->",
        "\u2022": "-", "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2248": "~",
        "\u2032": "'", "\u2033": '"',
    }
)  # fmt: skip


def _latin1(text: object) -> str:
    plain = str(text).translate(_LATIN1)
    return plain.encode("latin-1", "replace").decode("latin-1")


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
        floors.append(min(longest_word, 45.0) + 2.5)
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


def to_pdf(memo: Memo) -> bytes:
    """The memo as a paginated PDF (US Letter): the engagement and the title on every
    page, "Page x of y", the version, date, preparer and reviewer in the footer; tables
    with their header row repeated on each page, wide ones in parts (:func:`wrapped`)."""
    from fpdf import FPDF
    from fpdf.fonts import FontFace

    class Document(FPDF):
        #: what the header and footer of this page show, and of the pages from the next
        #: one on (a section's heading sets ``coming``; the header of a new page takes it,
        #: after the footer of the page before was drawn with the old one)
        running, foot = memo.running, memo.footer
        coming: tuple[str, str] | None = None

        def header(self) -> None:
            if self.coming is not None:
                self.running, self.foot = self.coming
                self.coming = None
            self.set_font("Helvetica", "", 7.5)
            self.set_text_color(90, 90, 90)
            title = _latin1(memo.title)
            room = self.epw - self.get_string_width(title) - 6
            top = self.get_y()
            self.multi_cell(room, 3.6, _latin1(self.running), align="L", new_x="LMARGIN",
                            new_y="NEXT")  # fmt: skip
            below = self.get_y()
            self.set_xy(self.l_margin, top)
            self.cell(0, 3.6, title, align="R", new_x="LMARGIN", new_y="NEXT")
            self.set_y(max(below, self.get_y()))
            self.set_draw_color(31, 56, 100)
            self.line(self.l_margin, self.get_y() + 0.5, self.w - self.r_margin, self.get_y() + 0.5)
            self.ln(4)
            self.set_text_color(26, 26, 26)

        def footer(self) -> None:
            self.set_font("Helvetica", "", 7.5)
            self.set_text_color(90, 90, 90)
            number = f"Page {self.page_no()} of {{nb}}"
            room = self.epw - self.get_string_width(f"Page {self.page_no()} of 999") - 6
            text = _latin1(self.foot)
            lines = 1 if self.get_string_width(text) <= room else 2
            self.set_y(-8 - 3.6 * lines)
            self.multi_cell(room, 3.6, text, align="L", new_x="LMARGIN", new_y="TOP")
            self.set_xy(self.l_margin, -8 - 3.6 * lines)
            self.cell(0, 3.6, number, align="R")

    pdf = Document(orientation="portrait", unit="mm", format="letter")
    pdf.set_margins(14, 14, 14)
    pdf.set_auto_page_break(auto=True, margin=20)
    pdf.set_title(_latin1(memo.title))
    pdf.set_creator(f"nj-incentives {__version__}")
    pdf.alias_nb_pages()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 15)
    pdf.set_text_color(31, 56, 100)
    pdf.multi_cell(0, 7, _latin1(memo.title), new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(26, 26, 26)
    pdf.ln(1)
    sizes = {1: 15.0, 2: 12.5, 3: 10.5, 4: 9.0}
    fresh = True  # nothing below the header on this page yet
    for index, block in enumerate(memo.blocks):
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
            pdf.ln(2 if block.level > 2 else 1)
            pdf.set_font("Helvetica", "B", sizes.get(block.level, 9.0))
            if block.level <= 2:
                pdf.set_text_color(31, 56, 100)
            pdf.multi_cell(0, sizes.get(block.level, 9.0) * 0.5, _latin1(block.text),
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
            pdf.set_font("Helvetica", "B" if block.strong else "", 8.5)
            pdf.multi_cell(0, 4.2, _latin1(block.text), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1.2)
        elif isinstance(block, Code):
            pdf.set_font("Helvetica", "", 8)
            pdf.cell(pdf.get_string_width(_latin1(block.label) + ": ") + 1, 4,
                     _latin1(block.label) + ":", new_x="LMARGIN", new_y="NEXT")  # fmt: skip
            pdf.set_font("Courier", "", 7.5)
            pdf.set_fill_color(243, 243, 243)
            pdf.multi_cell(0, 3.6, _latin1(" ".join(block.text.split())), fill=True,
                           new_x="LMARGIN", new_y="NEXT")  # fmt: skip
            pdf.ln(1.2)
        elif isinstance(block, Table):
            _pdf_table(pdf, block, FontFace)
        elif isinstance(block, Items):
            pdf.set_font("Helvetica", "", 8.5)
            for item in block.items:
                pdf.set_x(pdf.l_margin + 2)
                pdf.multi_cell(0, 4.2, "- " + _latin1(item), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1.2)
        elif isinstance(block, Quote):
            _pdf_quote(pdf, block)
        fresh = False
    data = pdf.output()
    return bytes(data)


def _pdf_table(pdf: Any, table: Table, font_face: Any) -> None:
    columns = len(table.headers)
    font = 8.0 if columns <= 5 else 7.0 if columns <= 9 else 6.2
    if table.caption:
        pdf.set_font("Helvetica", "I", 7.5)
        pdf.multi_cell(0, 3.8, _latin1(table.caption), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", font)
    width = pdf.epw - 0.01

    def measure(text: str) -> float:
        return float(pdf.get_string_width(_latin1(text)))

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
    if pdf.get_y() > pdf.h - 35:
        pdf.add_page()
    with pdf.table(
        col_widths=widths,
        width=width,
        align="LEFT",
        text_align=align,
        line_height=font * 0.40,
        padding=(0.35, 0.8),
        headings_style=font_face(emphasis="BOLD", fill_color=(217, 225, 242)),
        borders_layout="ALL",
        repeat_headings=1,
    ) as grid:
        heading = grid.row()
        for text in table.headers:
            heading.cell(_latin1(text), align="LEFT")
        for row in table.rows:
            line = grid.row()
            for text in padded(row, table.headers):
                line.cell(_latin1(text))
    pdf.ln(2)


def _pdf_quote(pdf: Any, quote: Quote) -> None:
    """An interpretation: its items with **bold** runs as bold and `code` as Courier."""
    left = pdf.l_margin + 3
    top = pdf.get_y()
    for bullet, runs in quote.items():
        pdf.set_x(left)
        pdf.set_font("Helvetica", "", 8.5)
        if bullet:
            pdf.write(4.2, "- ")
        for text, style in runs:
            if style == "b":
                pdf.set_font("Helvetica", "B", 8.5)
            elif style == "code":
                pdf.set_font("Courier", "", 8)
            else:
                pdf.set_font("Helvetica", "", 8.5)
            pdf.write(4.2, _latin1(text))
        pdf.ln(5)
    bottom = pdf.get_y()
    if bottom > top:  # the bar beside it, on this page
        pdf.set_draw_color(217, 225, 242)
        pdf.set_line_width(1)
        pdf.line(pdf.l_margin + 0.5, top, pdf.l_margin + 0.5, bottom - 1)
        pdf.set_line_width(0.2)
        pdf.set_draw_color(31, 56, 100)
    pdf.ln(1)
