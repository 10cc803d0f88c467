"""The PDF memo with hostile text (issue 22 item 6): any length, any script.

Before: an engagement field of 1,007 characters stopped the memo ("the row ... cannot be
rendered on a single page"), 2,007 to 10,000 raised RecursionError inside fpdf2 (the
footer or header overflowing its page), 10,007 ran past 120 s and 100,007 past 11
minutes; characters outside Latin-1 printed as ``?``. Now every text from a workbook is
bounded before fpdf2 sees it (a table cell to :data:`~nj_incentives.workpapers.memo.pdf.CELL_LINES`
lines, a paragraph to :data:`~nj_incentives.workpapers.memo.pdf.TEXT_CHARACTERS` characters, the
running header to three lines, the footer to two), cut with a note naming the length,
and the PDF is set in DejaVu Sans. The budget is tested by counting the characters fpdf2
is given, not by timing (the time is a figure of tests/benchmarks/test_memo_bench.py).
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual)
from nj_incentives.workpapers import memo
from nj_incentives.workpapers.memo import pdf as memo_pdf
from nj_incentives.workpapers.recalc import Recalculation, recalculate
from tooling import need

EXAMPLE = Path(__file__).resolve().parents[3] / "workbooks" / "examples"
FIELDS = ("EngagementClient", "EngagementEntityId", "EngagementPeriod", "EngagementPreparer",
          "EngagementReviewer")  # fmt: skip


@pytest.fixture(scope="module")
def grant() -> Recalculation:
    return recalculate(EXAMPLE / "beip-grant-schedule-example.xlsx")


def with_names(recalc: Recalculation, **names: object) -> Recalculation:
    found = dict(recalc.names)
    found.update(names)
    return dataclasses.replace(recalc, names=found)


def long_text(kind: str, length: int) -> str:
    pieces = {
        "words": "Acme Widgets Holding Company ",
        "one word": "A",
        "lines": "Acme Widgets\n",
    }
    piece = pieces[kind]
    return (piece * (length // len(piece) + 1))[:length]


@dataclasses.dataclass
class Drawn:
    """What fpdf2 was asked to draw: each text's length."""

    lengths: list[int] = dataclasses.field(default_factory=list)
    texts: list[str] = dataclasses.field(default_factory=list)


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Drawn:
    """Every text given to fpdf2's multi_cell, cell, write and table cells, recorded."""
    from fpdf import FPDF
    from fpdf.table import Row

    found = Drawn()

    def recording(original: Any, position: int) -> Any:
        def record(*args: Any, **kwargs: Any) -> Any:
            text = kwargs.get("text", args[position] if len(args) > position else "")
            if kwargs.get("dry_run"):
                return original(*args, **kwargs)
            found.lengths.append(len(str(text or "")))
            found.texts.append(str(text or "")[-200:])  # where a cut note is
            return original(*args, **kwargs)

        return record

    monkeypatch.setattr(FPDF, "multi_cell", recording(FPDF.multi_cell, 3))
    monkeypatch.setattr(FPDF, "cell", recording(FPDF.cell, 3))
    monkeypatch.setattr(FPDF, "write", recording(FPDF.write, 2))
    monkeypatch.setattr(Row, "cell", recording(Row.cell, 1))
    return found


NOTE_ROOM = len(memo_pdf.cut_note(10**9))


@pytest.mark.parametrize("length", [1_007, 2_007, 5_007, 10_007, 100_007])
@pytest.mark.parametrize("field", ["EngagementClient", "EngagementPreparer"])
@pytest.mark.recalc
def test_a_long_engagement_field_prints_cut_with_a_note(
    grant: Recalculation, drawn: Drawn, field: str, length: int
) -> None:
    text = long_text("words", length)
    data = memo.to_pdf(memo.build_memo([with_names(grant, **{field: text})]))
    assert data.startswith(b"%PDF-")
    # the work fpdf2 is given is bounded whatever the length: no text over the paragraph
    # bound and its note (before: the whole field, in the header or footer of every page)
    assert max(drawn.lengths) <= memo_pdf.TEXT_CHARACTERS + NOTE_ROOM
    assert sum(drawn.lengths) < 300_000  # the memo's own text is about 60,000 characters
    notes = [t for t in drawn.texts if f"cut: {length:,} characters in all" in t]
    if length > 2_000:
        assert notes, "the cut is said"


@pytest.mark.parametrize("kind", ["one word", "lines"])
@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.recalc
def test_every_field_and_shape_of_long_text_prints(
    grant: Recalculation, drawn: Drawn, field: str, kind: str
) -> None:
    """A word of 3,000 characters (no place to break) and 1,500 short lines."""
    text = long_text(kind, 3_000 if kind == "one word" else 19_500)
    data = memo.to_pdf(memo.build_memo([with_names(grant, **{field: text})]))
    assert data.startswith(b"%PDF-")
    assert max(drawn.lengths) <= memo_pdf.TEXT_CHARACTERS + NOTE_ROOM


def pages(data: bytes, tmp_path: Path) -> list[str]:
    tool = need("pdftotext", "reads the memo PDF's text page by page")
    target = tmp_path / "memo.pdf"
    target.write_bytes(data)
    text = subprocess.run(
        [tool, "-layout", str(target), "-"], capture_output=True, text=True, check=True
    ).stdout
    return text.split("\f")[:-1]


@pytest.mark.recalc
def test_a_100000_character_client_reads_cut_on_every_page(
    grant: Recalculation, tmp_path: Path
) -> None:
    name = long_text("words", 100_000)
    text = pages(memo.to_pdf(memo.build_memo([with_names(grant, EngagementClient=name)])), tmp_path)
    # the name holds "Acme" 3,449 times: a page shows it in the running header (three
    # lines, about 3 a line) and, on the summary and the file's page, in a table cell of
    # at most 16 lines
    for number, page in enumerate(text, 1):
        assert page.count("Acme") <= (100 if number <= 2 else 12), number
        assert f"Page {number} of {len(text)}" in page
    flat = " ".join(" ".join(text).split())
    assert "[cut: 100,000 characters in all]" in flat  # the summary's and the file's tables
    assert "Page 1 of" in flat


NAMES = {
    "Greek": "Ωμέγα Ανώνυμη Εταιρεία",
    "Cyrillic": "ООО «Привет»",
    "Latin": "Müller & Søn Łódź",
    "Hebrew": "שלום בע״מ",
    "Arabic": "شركة أكمي",
}


@pytest.mark.recalc
def test_names_in_other_scripts_print_in_their_letters(
    grant: Recalculation, tmp_path: Path
) -> None:
    client = " / ".join(NAMES.values())
    data = memo.to_pdf(memo.build_memo([with_names(grant, EngagementClient=client)]))
    tool = need("pdffonts", "lists the fonts the memo PDF embeds")
    target = tmp_path / "memo.pdf"
    target.write_bytes(data)
    fonts = subprocess.run([tool, str(target)], capture_output=True, text=True, check=True)
    assert "DejaVuSans" in fonts.stdout
    assert "Helvetica" not in fonts.stdout  # no core (Latin-1) font left
    first = pages(data, tmp_path)[0]
    for script in ("Greek", "Cyrillic", "Latin"):
        assert NAMES[script] in first, script
    # right to left: the letters are there (pdftotext gives them in drawing order, and
    # Arabic in its joined forms), never "?" as before
    hebrew = set(NAMES["Hebrew"]) - {" ", "״"}
    assert hebrew <= set(first)
    assert "?" not in first
    assert "no glyph" not in first  # DejaVu covers all of these


@pytest.mark.recalc
def test_characters_without_a_glyph_are_counted_in_a_note(
    grant: Recalculation, tmp_path: Path
) -> None:
    data = memo.to_pdf(memo.build_memo([with_names(grant, EngagementClient="日本語 Ltd")]))
    first = " ".join(pages(data, tmp_path)[0].split())
    # 日, 本, 語: three characters, counted in each place the memo's text holds them (the
    # summary, the file's table, the running header)
    match = re.search(r"([\d,]+) characters of this memo have no glyph in its font", first)
    assert match is not None
    assert int(match.group(1).replace(",", "")) >= 3


def test_right_to_left_is_detected() -> None:
    assert memo_pdf.right_to_left("Acme", "שלום")
    assert memo_pdf.right_to_left("شركة")
    assert not memo_pdf.right_to_left("Ωμέγα Привет Müller", "", "日本語")


@pytest.fixture(scope="module")
def document() -> Any:
    from fpdf import FPDF

    pdf = FPDF(unit="mm", format="letter")
    pdf.add_font(memo_pdf.SANS, "", memo_pdf.font_directory() / "DejaVuSans.ttf")
    pdf.set_font(memo_pdf.SANS, "", 8)
    pdf.add_page()
    return pdf


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(
        st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"], include_characters="\n"),
        max_size=3_000,
    )
    | st.from_regex(r"(?:[A-Za-z]{1,40}[ \n]){0,400}", fullmatch=True),
    width=st.floats(8, 180),
    lines=st.integers(1, 20),
    cut=st.booleans(),
)
def test_clipped_text_keeps_to_its_lines(
    document: Any, text: str, width: float, lines: int, cut: bool
) -> None:
    length = len(text) + (500 if cut else 0)
    shown = memo_pdf.clipped(document, text, width, lines, length)
    drawn = document.multi_cell(width, 1, shown, dry_run=True, output="LINES")
    # at most its lines, and the note's own where the room is narrower than the note
    note = document.multi_cell(width, 1, memo_pdf.cut_note(length), dry_run=True, output="LINES")
    assert len(drawn) <= lines + len(note)
    if cut or len(drawn) > lines or shown != text:
        assert shown.endswith(memo_pdf.cut_note(length))


def test_bounded_cuts_with_the_length() -> None:
    assert memo_pdf.bounded("x" * 10, 10) == "x" * 10
    assert memo_pdf.bounded("x" * 11, 10) == "x" * 10 + " … [cut: 11 characters in all]"
