"""Every template and filled example prints as a reviewer would sign it (issue 13 item 1).

All six workbooks are rendered to PDF in ONE LibreOffice headless call (its own profile
directory), then each page is read back with pdftotext. The workbooks use Arial, which
LibreOffice prints with its metric twin Liberation Sans, so the pages are Excel's. Which
font fontconfig resolves Arial to is checked first (``tooling.need_font``): without an
Arial-metric font every sheet prints on about twice the pages, so the module skips with
the reason (fails under CI=true; ``.ci/install-system`` installs ``fonts-liberation2``).

What is checked, per page: the page header (template, version) and footer (sheet, "page
x of y"); the engagement band repeated at the top (so no page is a spill of columns
cut off the right of another); per sheet, the number of pages; and per section of each
sheet that fits on a page, that its last row prints on the page of its heading (no table
starts at the foot of one page and ends on the next).

To look at the pages: ``soffice --headless --convert-to pdf workbooks/*.xlsx`` then
``pdftoppm -r 60 -png FILE.pdf page``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from nj_incentives import __version__
from nj_incentives.core.workpaper import ABOUT, CHECKS, CONFIG, is_companion
from nj_incentives.programs.ertc.templates import form_313
from nj_incentives.programs.ertc.templates.form_313 import MAX_EMPLOYEES, ROSTER_SHEETS
from nj_incentives.workpapers.fill import fill
from nj_incentives.workpapers.templates import page, pages
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY, EXAMPLES, TEMPLATES
from nj_incentives.workpapers.templates.builder import FONT
from tooling import libreoffice_convert, need, need_font

pytestmark = pytest.mark.libreoffice


def _template(path: Path) -> str:
    return path.stem.removesuffix("-example")


WORKBOOKS = [DEFAULT_DIRECTORY / name for name in TEMPLATES] + [
    DEFAULT_DIRECTORY / "examples" / name for name in EXAMPLES
]

#: Pages per sheet of each blank template (the ERTC roster prints its 250 rows, a form to
#: fill in by hand). The About sheet prints without the xlwings setup steps (on screen
#: only, issue 31 item 3: it printed 4 pages) and the xlwings.conf sheet is hidden, so
#: never printed (was 1 page).
PAGES: dict[str, dict[str, int]] = {
    "beip-grant-schedule": {
        "About": 2,
        # with the sign-off block and the tick and source columns (issue 20 item 2); one
        # page since the blank row after the years table is no longer printed; issue 33:
        # the compliance calendar's inputs on a second; one again since wrapped rows are
        # measured in Arial's widths (issue 31: a label was a line taller than printed)
        "Inputs": 1,
        # the base years (N.J.S.A. 34:1B-125, issue 34 item 6) above the schedule: the
        # combined-limit table and the totals print on a second page (the break between
        # two sections, the header repeated)
        "Calculations": 2,
        "Outputs": 1,
        # issue 31: the Return sheet, why a cash grant goes on no return line
        "Return": 1,
        # issue 33: the award's obligations, 31 rows of four wrapped lines (its reports,
        # employment tests and commitment), landscape, looked at in PNG
        "Calendar": 3,
        # the calendar's inputs and their checks, the past-due line: a second page
        "Checks": 2,
    },
    "beip-credit-conversion": {
        # its sheet list longer by the Return and Calendar sheets: 3 pages, 2 since wrapped
        # rows are measured in Arial's widths (issue 31: 'Law current to' was 3 lines too
        # tall), looked at in PNG
        "About": 2,
        # issue 19: the inputs of P.L.2024, c.40's waiver; issue 20: the sign-off block;
        # issue 33: the compliance calendar's inputs and the reports filed (a fifth page);
        # issue 31: four, the wrapped labels' rows as tall as they print (looked at)
        "Inputs": 4,
        # ... and its payment for each tax year from 2024; issue 31 item 5: the Corporate
        # Transit Fee's row pushed the remote-work payments onto an eighth page; seven since
        # the wrapped headers and labels are measured (looked at in PNG)
        "Calculations": 7,
        "Outputs": 1,
        "Return": 1,  # issue 31: one tax year's return, Form 324 and Schedule A-3
        "Calendar": 3,  # 37 rows of four wrapped lines, landscape (issue 33)
        # upright (portrait), the master check and the header on each page: an input check
        # per input (issue 20 item 6) before the template's; issue 33: two more inputs
        # (c.40's payment made, commitment extended) and their checks: a third page
        "Checks": 3,
    },
    "portfolio": {
        "About": 2,
        "Inputs": 2,  # the periods, then the awards and the readings
        # NJ_PORTFOLIO's 81 rows of four wrapped lines (the return line: Schedule A-3's
        # line and the credit form), landscape, and the totals: looked at in PNG
        "Calculations": 6,
        "Outputs": 1,
        "Return": 1,  # issue 31: one tax year's return, Schedule A-3 and Form 324's refund
        "Checks": 1,
    },
    "ertc-form-313": {
        # its longer list of sheets: the sources printed on a third page while the 'Law
        # current to' row was estimated 12 lines for the 9 it prints (issue 31); 2 pages
        "About": 2,
        "Inputs": 2,  # wider with the tick and source columns: scaled to fewer pages
        # the roster (Form 313 Part II), 250 rows a sheet, its header on every page (with
        # its tick and source columns, scaled to fit: fewer pages)
        ROSTER_SHEETS["base"]: 5,
        ROSTER_SHEETS["year1"]: 3,
        ROSTER_SHEETS["year2"]: 3,
        # the totals, with the credit carried into the first period (issue 20 item 4);
        # since the issue 31-32 layout changes the sheet prints on two pages (looked at
        # in PNG): Part I to the new-positions credits, then the minimum tax, the credit
        # per period and the totals, each break between two sections
        "Calculations": 2,
        "Outputs": 1,
        "Return": 1,  # issue 31: one tax year's return, Form 313 and Schedule A-3
        "Checks": 2,  # an input check per input (issue 20 item 6), the header on each page
    },
    # the credit ledgers (issue 33 item 5): Inputs the award, then the 30 (Emerge 14)
    # periods' liabilities and the transfers and sales on a second page; the schedule
    # and its totals on one landscape page; looked at in PNG; issue 31: the Return sheet
    **{
        ledger: {
            "About": 2,
            "Inputs": 2,
            "Calculations": 1,
            "Outputs": 1,
            "Return": 1,
            "Checks": 1,
        }
        for ledger in ("grow-nj-credit-schedule", "emerge-credit-schedule")
    },
}
# Grow NJ's 30 periods: the return's tax year of each (issue 31) on a second page
PAGES["grow-nj-credit-schedule"]["Calculations"] = 2

#: The filled examples print their roster through the last employee (12: one page a
#: period), not its 250 rows (issue 31 item 3); anything else as the template.
EXAMPLE_PAGES: dict[str, dict[str, int]] = {
    **PAGES,
    "ertc-form-313": {**PAGES["ertc-form-313"], **dict.fromkeys(ROSTER_SHEETS.values(), 1)},
    # the Emerge example's 10 periods and one surrender: Inputs on one page
    "emerge-credit-schedule": {**PAGES["emerge-credit-schedule"], "Inputs": 1},
}


#: A copy of the grant template filled with ``fill --cache-values`` (unsigned), printed in
#: the same LibreOffice run as the shipped files (issue 31 item 3): what a user prints.
FILLED = "grant-filled-cached"
FILLED_DATA = {
    "EngagementClient": "Print LLC (fictitious)",
    "EngagementPreparer": "A. Preparer",
    "AgreementDate": "2010-01-01",
    "Term": 3,
    "GrantPct": "50%",
    "Withholdings": [600000, 600000, 650000],
    "NewEmployees": [10, 12, 14],
}

#: What LibreOffice prints from its saved values: the signed examples and the filled copy.
SAVED_VALUES = [path.stem for path in WORKBOOKS if path.stem.endswith("-example")] + [FILLED]


def pages_of(path: Path) -> dict[str, int]:
    """The pages per sheet ``path`` (a template or its example) prints."""
    table = EXAMPLE_PAGES if path.stem.endswith("-example") else PAGES
    return table[_template(path)]


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """file stem -> the text of each page of its PDF."""
    soffice = need("soffice", "renders the templates to PDF")
    pdftotext = need("pdftotext", "reads the rendered pages back")
    need_font(FONT, "LibreOffice paginates the templates as Excel does only with its metrics")
    folder = tmp_path_factory.mktemp("print")
    for path in WORKBOOKS:
        shutil.copy(path, folder / path.name)
    profile = folder / "profile"
    copies = [folder / path.name for path in WORKBOOKS]
    copies.append(
        fill(_template(WORKBOOKS[0]), FILLED_DATA, folder / f"{FILLED}.xlsx", cache=True).path
    )
    libreoffice_convert(
        soffice, copies, folder / "pdf", profile, "pdf", norestore=True, timeout=300, check=True
    )
    pages = {}
    for path in copies:
        pdf = folder / "pdf" / f"{path.stem}.pdf"
        assert pdf.exists(), f"LibreOffice wrote no PDF for {path.name}"
        text = subprocess.run(
            [pdftotext, "-layout", str(pdf), "-"],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        pages[path.stem] = [p for p in text.split("\f") if p.strip()]
    return pages


def _sheet(page_text: str) -> str:
    found = re.search(r"Sheet: (\S+(?: \S+)*)", page_text)
    assert found, f"a page without its footer:\n{page_text[:400]}"
    return found.group(1)


@pytest.mark.parametrize("path", WORKBOOKS, ids=lambda path: path.stem)
def test_every_page_has_its_header_footer_and_the_engagement(
    pdfs: dict[str, list[str]], path: Path
) -> None:
    pages = pdfs[path.stem]
    title = openpyxl.load_workbook(path).properties.title
    for number, text in enumerate(pages, 1):
        assert f"Page {number} of {len(pages)}" in text
        assert title in text
        assert f"Template {_template(path)}, nj-incentives {__version__}" in text
        if _sheet(text) != CONFIG:
            # the band, repeated on every page: a page without it is columns cut off
            # the right-hand side of another page
            assert "Client:" in _squash(text), (number, _sheet(text))
            assert "Reviewed by:" in _squash(text), (number, _sheet(text))


@pytest.mark.parametrize("path", WORKBOOKS, ids=lambda path: path.stem)
def test_pages_per_sheet(pdfs: dict[str, list[str]], path: Path) -> None:
    counted = Counter(_sheet(text) for text in pdfs[path.stem])
    assert dict(counted) == pages_of(path)


def test_the_page_counts_in_the_docs_are_current(pdfs: dict[str, list[str]]) -> None:
    """docs/filling.md's table of the examples' printed pages is what they print (the
    PDFs above: no LibreOffice run of its own)."""
    doc = DEFAULT_DIRECTORY.parent / "docs" / "filling.md"
    printed = {name: pdfs[Path(name).stem] for name in EXAMPLES}
    text = doc.read_text(encoding="utf-8")
    assert pages.rewrite(text, pages.table(printed)) == text, (
        "the page counts changed: run python -m nj_incentives.workpapers.templates.pages"
    )


def _sections(path: Path) -> list[tuple[str, str, str, int]]:
    """(sheet, heading, the label of its last row, rows) of each section of each sheet
    (a heading is a bold cell in column A filled with the section colour)."""
    book = openpyxl.load_workbook(path)
    found = []
    for ws in book.worksheets:
        if ws.sheet_state == "hidden":  # never printed
            continue
        # the rows printed: the About sheet's setup steps below its print area are not
        last = min(ws.max_row, int(re.findall(r"\d+", str(ws.print_area))[-1]))
        headings = [
            cell.row
            for cell in ws["A"]
            if cell.value
            and cell.row <= last
            and cell.fill.fill_type
            and cell.fill.fgColor.rgb == "FFD9E1F2"
        ]
        for n, row in enumerate(headings):
            end = headings[n + 1] - 1 if n + 1 < len(headings) else last
            labels = [
                (r, str(ws.cell(r, 1).value))
                for r in range(row + 1, end + 1)
                if isinstance(ws.cell(r, 1).value, str) and ws.cell(r, 1).value.strip()
            ]
            if labels:
                found.append((ws.title, str(ws.cell(row, 1).value), labels[-1][1], end - row + 1))
    return found


def _heads(line: str, heading: str) -> bool:
    """``line`` starts with the printed section heading (its first 40 characters), and a
    short heading ends there (or before a wide gap to a value beside it): not the start
    of a label such as "The taxpayer receives ..."."""
    line, heading = line.strip(), _squash(heading).strip()
    if len(heading) > 40:
        return _squash(line).startswith(heading[:40])
    return re.match(re.escape(heading) + r"(?:\s{2,}|$)", line) is not None


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("path", WORKBOOKS, ids=lambda path: path.stem)
def test_no_section_that_fits_a_page_is_cut(pdfs: dict[str, list[str]], path: Path) -> None:
    pages = [_squash(text) for text in pdfs[path.stem]]
    sheets = [_sheet(text) for text in pdfs[path.stem]]
    checked = 0
    for sheet, heading, last_label, rows in _sections(path):
        if rows > 30:  # longer than a page: it runs on, under the repeated titles
            continue
        if heading.startswith("="):  # a heading a formula words (the sign-off's): its
            continue  # printed text is its value, which the file does not hold
        where = [
            n
            for n, text in enumerate(pdfs[path.stem])
            if sheets[n] == sheet and any(_heads(line, heading) for line in text.splitlines())
        ]
        assert where, f"{sheet}: section {heading!r} is not printed"
        ending = _squash(last_label)[:16]
        assert ending in pages[where[0]], (
            f"{sheet}: section {heading!r} starts on page {where[0] + 1} but its last row "
            f"{last_label!r} is not on it"
        )
        checked += 1
    assert checked >= 5  # the check looked at something


def test_the_print_scale_is_readable() -> None:
    """Fit to one page wide, but never so small that a reviewer needs a magnifier."""
    for path in WORKBOOKS:
        book = openpyxl.load_workbook(path)
        for ws in book.worksheets:
            if ws.sheet_state == "hidden":  # never printed (xlwings.conf, a companion)
                assert ws.title == CONFIG or is_companion(ws.title), (path.name, ws.title)
                assert not ws.print_area, (path.name, ws.title)
                continue
            scale: Any = ws.page_setup.scale
            assert scale is None or int(scale) >= 50, (path.name, ws.title, scale)
            assert ws.print_area, (path.name, ws.title)
            assert ws.page_setup.paperSize in (None, page.PAPER, str(page.PAPER))


_PERIOD = {"base": "Base", "year1": "Year one", "year2": "Year two"}


@pytest.mark.parametrize(
    "path", [p for p in WORKBOOKS if _template(p) == "ertc-form-313"], ids=lambda p: p.stem
)
def test_continuation_pages_repeat_the_roster_header(
    pdfs: dict[str, list[str]], path: Path
) -> None:
    """Each page of the 250-row roster shows its column headers and units above its rows
    (Excel's print titles: the sheet's title rows, the band and the table's header). The
    blank template prints all 250 rows (a form); the example prints its employees and no
    row after the last (issue 31 item 3)."""
    book = openpyxl.load_workbook(path)
    pages = pdfs[path.stem]
    filled = path.stem.endswith("-example")
    printed = len(form_313.EXAMPLE["employees"]) if filled else MAX_EMPLOYEES
    for key, sheet in ROSTER_SHEETS.items():
        ws = book[sheet]
        header = next(
            row
            for row in range(1, 12)
            if ws.cell(row, 1).value == "Row"  # the table's header, label column
        )
        assert ws.print_title_rows == f"$1:${header + 1}", (sheet, ws.print_title_rows)
        own = [text for text in pages if _sheet(text) == sheet]
        assert filled or len(own) > 1, f"{sheet}: the roster should run over several pages"
        rows_seen: set[int] = set()
        for number, text in enumerate(own, 1):
            rows = [int(n) for n in re.findall(r"^\s*Employee (\d+)\b", text, re.M)]
            assert rows, f"{sheet} page {number}: no roster rows"
            rows_seen.update(rows)
            # above the rows: the headers of the label column, the names and the months
            # (wrapped: "Base" over "month 12"), and the units row
            top = text[: text.index(f"Employee {rows[0]}")]
            for heading in ("Row", "Employee", _PERIOD[key].split()[0], "month 1", "month 12"):
                assert heading in top, f"{sheet} page {number}: no {heading!r} above the rows"
            assert "hours" in top, f"{sheet} page {number}: no units above the rows"
        assert rows_seen == set(range(1, printed + 1)), sheet


@pytest.mark.parametrize("stem", SAVED_VALUES)
def test_libreoffice_prints_the_saved_values_and_true_checks(
    pdfs: dict[str, list[str]], stem: str
) -> None:
    """Printed through LibreOffice (no NJ_* functions), a filled and signed example and a
    ``fill --cache-values`` copy show their saved figures and checks (issue 31 item 3):
    no #NAME? (each table is computed on a hidden sheet and shown by ordinary formulas,
    whose saved values LibreOffice keeps), the master check and every check TRUE."""
    pages = pdfs[stem]
    sheets = [_sheet(text) for text in pages]
    shown = [text for text, sheet in zip(pages, sheets, strict=True) if sheet != ABOUT]
    assert not [text for text in shown if "#NAME?" in text]
    checks = [text for text, sheet in zip(pages, sheets, strict=True) if sheet == CHECKS]
    results = [line.split()[-1] for text in checks for line in text.splitlines() if line.strip()]
    assert all(re.search(r"^Master check\s+TRUE$", text, re.M) for text in checks)
    assert "FALSE" not in results
    assert "0" not in results
    # the checks' rows, each printed TRUE (the master check and its sign-off lines too)
    path = DEFAULT_DIRECTORY / "examples" / f"{stem}.xlsx"
    book = openpyxl.load_workbook(path if path.exists() else WORKBOOKS[0])
    declared = sum(
        1 for (cell,) in book[CHECKS].iter_rows(min_col=3, max_col=3) if cell.data_type == "f"
    )
    # the master check and the sign-off lines repeat on each page; a copy not signed shows
    # its two sign-off lines without a result
    assert results.count("TRUE") >= declared - (0 if path.exists() else 2)


def test_the_printed_schedule_is_the_saved_one(pdfs: dict[str, list[str]]) -> None:
    """Grant year 3 of the grant example, as LibreOffice prints it from the saved values:
    withholdings 650,000.00 x 50% = 325,000.00 before the cap; the $50,000 average cap x
    14 new employees = 700,000.00, less 300,000.00 + 300,000.00 granted in years 1-2,
    leaves 100,000.00 of room, so the grant is 100,000.00 and the cumulative grant
    300,000.00 + 300,000.00 + 100,000.00 = 700,000.00; the filled copy (the same first
    three years) prints the same row."""
    row = "Grant year 3 3 650,000.00 0.00 325,000.00 100,000.00 100,000.00 700,000.00"
    for stem in ("beip-grant-schedule-example", FILLED):
        calculations = [_squash(text) for text in pdfs[stem] if _sheet(text) == "Calculations"]
        assert any(row in text for text in calculations), stem
        # the years past the term print blank, not #NAME? or 0 (a blank's saved value)
        assert any("Grant year 6 Grant year 7" in text for text in calculations), stem
