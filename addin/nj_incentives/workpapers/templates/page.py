"""How a template sheet prints: paper, orientation, scale, print area, print titles,
header and footer, row heights of wrapped text, and page breaks between tables.

Excel's page setup cannot read a cell, so the page header and footer carry only what is
known when the template is built (the template, the package version, the sheet, "page x
of y", the law's currency), and the engagement (client, entity, period, preparer,
reviewer, date) is printed from the sheet itself: row 3 of every sheet is a formula
showing the engagement fields of the Inputs sheet, and rows 1-3 (title, subtitle,
engagement) are the sheet's print titles, repeated at the top of every page.

The scale is computed here, not left to Excel's "fit to 1 page wide": Excel ignores
manual page breaks on a sheet set to fit to pages, and the breaks are what keeps a
table from starting at the foot of one page and ending on the next. The scale is the
one that makes the print area exactly one page wide (with a safety margin for fonts
that print wider than Calibri, such as LibreOffice's substitute), so the result is the
same as fit-to-width.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from xlsxwriter.worksheet import Worksheet

__all__ = [
    "DEFAULT_ROW_HEIGHT",
    "LINE_HEIGHT",
    "Layout",
    "column_points",
    "lines",
    "page_breaks",
    "print_scale",
    "setup",
    "text_height",
]

#: The default row height of Arial 10 (the templates' font), pixels and points.
DEFAULT_ROW_PIXELS = 17
DEFAULT_ROW_HEIGHT = 12.75
#: One line of wrapped Arial 10, points.
LINE_HEIGHT = 12.75
#: Excel's default column width, characters.
DEFAULT_WIDTH = 8.43
#: The templates' font size (Arial), points, and the width of one character of a column's
#: width (a digit: 7 pixels at 0.75 points a pixel; the column's 5 pixels of padding aside).
FONT_SIZE = 10
DIGIT_POINTS = 7 * 0.75

#: US Letter (xlsxwriter paper 1), inches.
PAPER = 1
PAGE_WIDTH, PAGE_HEIGHT = 8.5, 11.0
MARGIN_LEFT = MARGIN_RIGHT = 0.5
MARGIN_TOP = MARGIN_BOTTOM = 0.75
HEADER_MARGIN = FOOTER_MARGIN = 0.3
#: The share of the page the scale fills: LibreOffice draws a column about 6% wider
#: than Excel (it does not round Arial's digit to 7 whole pixels), and a little more
#: room is kept for the printer's own rounding.
SAFETY = 0.9
#: A portrait page is used when the sheet prints at this scale or more on it.
PORTRAIT_FROM = 90


def column_points(width: float) -> float:
    """The printed width of a column ``width`` characters wide (Arial 10: 7 pixels a
    digit and 5 of padding; 0.75 points a pixel)."""
    if width <= 0:
        return 0.0
    return math.trunc(width * 7 + 5) * 0.75


@functools.cache
def _char_widths(bold: bool) -> Mapping[str, int]:
    """Arial's advance widths (thousandths of an em), regular or bold: Helvetica's, whose
    metrics Arial shares, as fpdf2 (the PDF memo's library) ships them for its core fonts."""
    from fpdf.fonts import CORE_FONTS_CHARWIDTHS

    widths: Mapping[str, int] = CORE_FONTS_CHARWIDTHS["helveticaB" if bold else "helvetica"]
    return widths


def text_points(text: str, bold: bool = False, size: float = FONT_SIZE) -> float:
    """The printed width of ``text`` in Arial ``size`` points (a character fpdf2 has no
    width for counts as an em). Excel draws Arial 10 a little narrower (each glyph a whole
    number of pixels: a digit 7 pixels, not 7.4) and LibreOffice's columns are wider than
    Excel's, so a line measured to fit fits in both."""
    widths = _char_widths(bold)
    return sum(widths.get(char, 1000) for char in text) * size / 1000


#: Where a line may break inside a word: after a hyphen (Excel and LibreOffice both do).
_PIECES = re.compile(r"[^-]*-+|[^-]+")


def lines(text: str, width: float, bold: bool = False) -> int:
    """How many lines ``text`` wraps to in a column ``width`` characters wide.

    Each word is measured in Arial's widths (:func:`text_points`) and placed as Excel and
    LibreOffice wrap: at spaces and after hyphens, a word wider than the column broken
    where it reaches the edge. So the row fits its text, and is not taller than it (a
    count of characters each as wide as a digit made a long citation three lines taller
    than it prints)."""
    room = max(width * DIGIT_POINTS, DIGIT_POINTS)
    space = text_points(" ", bold)
    count = 0
    for paragraph in text.split("\n"):
        used, here = 0.0, 1
        for word in paragraph.split():
            for k, piece in enumerate(_PIECES.findall(word)):
                size = text_points(piece, bold)
                gap = space if k == 0 and used else 0.0
                if used + gap + size <= room:
                    used += gap + size
                    continue
                if used:  # the piece starts a new line
                    here += 1
                used = size
                while used > room:  # wider than the column: broken at its edge
                    here += 1
                    used -= room
        count += here
    return count


def text_height(
    text: str, width: float, line_height: float = LINE_HEIGHT, bold: bool = False
) -> float:
    """A row height that fits ``text`` wrapped in a column ``width`` characters wide."""
    return max(lines(text, width, bold), 1) * line_height + 2


def _printable(landscape: bool) -> tuple[float, float]:
    """(width, height) in points inside the margins."""
    width, height = (PAGE_HEIGHT, PAGE_WIDTH) if landscape else (PAGE_WIDTH, PAGE_HEIGHT)
    return (
        (width - MARGIN_LEFT - MARGIN_RIGHT) * 72,
        (height - MARGIN_TOP - MARGIN_BOTTOM) * 72,
    )


def print_scale(width_points: float, landscape: bool) -> int:
    """The largest scale (10-100%) at which ``width_points`` fit one page wide."""
    available = _printable(landscape)[0] * SAFETY
    return max(10, min(100, math.floor(available / max(width_points, 1) * 100)))


@dataclass
class Layout:
    """What a sheet's page setup needs to know about its contents."""

    last_row: int
    last_col: int
    widths: Mapping[int, float]
    heights: Mapping[int, float] = field(default_factory=dict)
    #: rows where a block (a section with its table) starts; kept on one page if it fits
    blocks: Sequence[int] = ()
    #: rows repeated at the top of every page (first, last), 0-based
    repeat_rows: tuple[int, int] | None = (0, 2)
    landscape: bool | None = None

    def width_points(self) -> float:
        return sum(
            column_points(self.widths.get(col, DEFAULT_WIDTH)) for col in range(self.last_col + 1)
        )

    def height(self, row: int) -> float:
        return self.heights.get(row, DEFAULT_ROW_HEIGHT)

    def orientation(self) -> bool:
        """True for landscape."""
        if self.landscape is not None:
            return self.landscape
        return print_scale(self.width_points(), landscape=False) < PORTRAIT_FROM

    def scale(self) -> int:
        return print_scale(self.width_points(), self.orientation())


def page_breaks(layout: Layout) -> list[int]:
    """Rows before which a page break keeps each block whole: a block that does not fit
    in what is left of a page starts the next one (a block longer than a page starts a
    page and runs on, with the print titles repeated)."""
    scale = layout.scale() / 100
    page = _printable(layout.orientation())[1] / scale
    titles = 0.0
    if layout.repeat_rows is not None:
        first, last = layout.repeat_rows
        titles = sum(layout.height(r) for r in range(first, last + 1))
    capacity = page * 0.96  # room for what the estimate misses
    starts = sorted({b for b in layout.blocks if 0 < b <= layout.last_row})
    bounds = [0, *starts, layout.last_row + 1]
    breaks: list[int] = []
    used = 0.0
    for start, end in itertools.pairwise(bounds):
        height = sum(layout.height(r) for r in range(start, end))
        if used + height > capacity and used > titles + DEFAULT_ROW_HEIGHT:
            breaks.append(start)
            used = titles
        for row in range(start, end):
            row_height = layout.height(row)
            if used + row_height > page:  # the printer breaks here by itself
                used = titles
            used += row_height
    return breaks


def _escape(text: str) -> str:
    return text.replace("&", "&&")


def setup(
    ws: Worksheet,
    layout: Layout,
    *,
    title: str,
    template_id: str,
    version: str,
) -> None:
    """Apply the page setup of ``layout`` to ``ws``: Letter paper, the orientation and
    the scale that print one page wide, the print area, the print titles, the page breaks
    and the header and footer (the law's currency is on the About sheet: it is longer
    than a footer holds)."""
    for row, height in sorted(layout.heights.items()):
        ws.set_row(row, height)
    ws.set_paper(PAPER)
    if layout.orientation():
        ws.set_landscape()
    else:
        ws.set_portrait()
    ws.set_margins(MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM)
    ws.print_area(0, 0, layout.last_row, layout.last_col)
    if layout.repeat_rows is not None:
        ws.repeat_rows(*layout.repeat_rows)
    ws.set_print_scale(layout.scale())
    breaks = page_breaks(layout)
    if breaks:
        ws.set_h_pagebreaks(breaks)
    ws.set_header(
        f"&L&B{_escape(title)}&B&RTemplate {_escape(template_id)}, nj-incentives "
        f"{_escape(version)}",
        {"margin": HEADER_MARGIN},
    )
    ws.set_footer("&LSheet: &A&CPage &P of &N&RPrinted &D &T", {"margin": FOOTER_MARGIN})


def merged_note_width(widths: Mapping[int, float], first: int, last: int) -> float:
    """The width in characters of columns ``first`` to ``last`` merged."""
    points = sum(column_points(widths.get(c, DEFAULT_WIDTH)) for c in range(first, last + 1))
    return (points / 0.75 - 5) / 7


def wrapped_heights(
    cells: Iterable[tuple[int, str, float] | tuple[int, str, float, bool]],
    base: Mapping[int, float] | None = None,
) -> dict[int, float]:
    """Row heights fitting each (row, text, width) of wrapped text, or (row, text, width,
    bold), never lower than ``base``."""
    heights = dict(base or {})
    for row, text, width, *bold in cells:
        needed = text_height(text, width, bold=bool(bold and bold[0]))
        if needed > heights.get(row, DEFAULT_ROW_HEIGHT):
            heights[row] = needed
    return heights
