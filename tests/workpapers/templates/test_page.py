"""How tall a wrapped row is: text measured in Arial's widths (issue 31).

A row of wrapped text was counted as if every character were as wide as a digit (plus
5%): the About sheet's 'Law current to' row was estimated 12 lines for the 9 it prints,
and the ERTC About sheet printed its sources on a third page. Each word is now measured
in Arial's (Helvetica's) widths and placed as Excel and LibreOffice wrap, at spaces and
after hyphens. The printed pages are held in tests/workpapers/templates/
test_templates_print.py; here the arithmetic.
"""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.workpapers.templates import page

# Arial 10, in points: "a" and "b" 5.56 wide (556/1000 em), bold "b" 6.11, a space 2.78
# (bold too); a column N characters wide holds N x 7 pixels x 0.75 = 5.25 N points of text.


def test_words_wrap_at_spaces() -> None:
    # width 10: 52.5 points. "aaaa" = 4 x 5.56 = 22.24; two words and a space 22.24 +
    # 2.78 + 22.24 = 47.26 <= 52.5; the third would end at 72.28: 2 lines
    assert page.lines("aaaa aaaa aaaa", 10) == 2
    # each line of a text is wrapped on its own: 2 + 1
    assert page.lines("aaaa aaaa aaaa\naaaa", 10) == 3
    assert page.lines("", 10) == 1


def test_bold_text_is_measured_wider() -> None:
    # width 9.5: 49.875 points. Regular "bbbb bbbb" 22.24 + 2.78 + 22.24 = 47.26: one
    # line; bold 24.44 + 2.78 + 24.44 = 51.66 > 49.875: two
    assert page.lines("bbbb bbbb", 9.5) == 1
    assert page.lines("bbbb bbbb", 9.5, bold=True) == 2


def test_a_line_breaks_after_a_hyphen_and_a_long_word_at_the_edge() -> None:
    # width 8: 42 points. "34:1B-129" is 29.46 + 16.68 = 46.14 wide: "34:1B-" on one
    # line, "129" on the next (Excel and LibreOffice both break after a hyphen)
    assert page.lines("34:1B-129", 8) == 2
    # 20 "a" = 111.2 points in a column of 26.25 (width 5): broken at the edge, 4.24
    # columns' worth: 5 lines
    assert page.lines("a" * 20, 5) == 5


def test_a_row_is_as_tall_as_its_lines() -> None:
    # 2 lines of 12.75 points, and 2 points of padding
    assert page.text_height("aaaa aaaa aaaa", 10) == 2 * 12.75 + 2


_TEXT = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:()-'")
_WIDTH = st.floats(min_value=2, max_value=150)


@given(_TEXT, _WIDTH, _WIDTH)
def test_a_wider_column_never_needs_more_lines(text: str, a: float, b: float) -> None:
    narrow, wide = sorted((a, b))
    assert page.lines(text, wide) <= page.lines(text, narrow)


@given(_TEXT, _WIDTH)
def test_no_line_holds_more_than_the_column(text: str, width: float) -> None:
    # the lines hold all the text's ink (its spaces aside): at least that many columns
    ink = sum(page.text_points(word) for word in text.split())
    assert page.lines(text, width) >= max(1, math.ceil(ink / (width * page.DIGIT_POINTS) - 1e-9))


@given(_TEXT, _WIDTH)
def test_bold_never_needs_fewer_lines(text: str, width: float) -> None:
    assert page.lines(text, width, bold=True) >= page.lines(text, width)
