"""The results workbooks ``calc`` writes print through LibreOffice (to PDF), every time.

LibreOffice 7.4's PDF export aborted ("Unspecified Application Error", signal 6 in
``ScPatternAttr::GetItem``) on the results workbooks of the grant and Form 313 examples
in most runs (the conversion example's in some): the Checks sheet's conditional colours
("cell is TRUE" green, "cell is not TRUE" red) over check cells that hold values, not
formulas. The writer now applies the colours as fixed cell formats
(:mod:`nj_incentives.workpapers.recalc.colours`). The abort was intermittent, so each workbook is
exported in several runs; every run must write a PDF with pages. A run is one LibreOffice
process with its own profile printing the three workbooks, in an order rotated from run
to run so that each is first in a fresh process once (an abort ends the process: the
workbook and those after it get no PDF and fail). Four LibreOffice starts in all, where
one a workbook and run (and three more for the pages' text) made fifteen; the pages' text
is read from the first run's PDFs. The same exports of the same workbooks are checked.
The results of the examples added since (the Grow NJ and Emerge credit schedules, issue
33), written by the same writer with the same fixed colours, are printed in the first run
only, after the three: their pages are checked, at a LibreOffice export each rather than
four (the CI budget).

The pages themselves: as many per sheet as the template's
(tests/workpapers/templates/test_templates_print.py checks those), and the checks print
TRUE, not 1 (LibreOffice shows a TRUE that is not a formula's result in the cell's number
format). To look at them:
``nj-incentives calc -o out``, ``soffice --headless --convert-to pdf out/*-results.xlsx``,
then ``pdftoppm -r 60 -png FILE.pdf page``.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import pytest

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc.run)
from nj_incentives.cli import calc
from nj_incentives.workpapers.templates.builder import FONT
from test_templates_print import EXAMPLE_PAGES
from tooling import libreoffice_convert, need, need_font

pytestmark = pytest.mark.libreoffice

#: runs per workbook: before the fix the grant example's export aborted in 4 of 4 runs,
#: the Form 313 example's in 3 of 4 and 1 of 2, the conversion example's in 2 of 4
RUNS = 4
#: the examples whose exports aborted, printed in every run (the others: the first only)
ABORTED = (
    "beip-grant-schedule-example.xlsx",
    "beip-credit-conversion-example.xlsx",
    "ertc-form-313-example.xlsx",
)

#: Where a results workbook prints otherwise than its template (looked at in PNG): the
#: portfolio's NJ_PORTFOLIO range is 81 rows, which LibreOffice fills with #NAME? in the
#: template and the example (6 pages); the results workbook holds the 25 rows the function
#: filled and blanks, which LibreOffice prints on 3.
#: The grant's Calendar: the example prints NJ_AWARD_CALENDAR's 31 rows of #NAME? on 3
#: pages; the results workbook its 13 obligations on the first (since the engagement band
#: is measured in Arial Bold's widths, issue 31: the thirteenth no longer runs onto a
#: second page) and the status note below the blank rows on a second.
RESULTS_PAGES = {"portfolio": {"Calculations": 3}, "beip-grant-schedule": {"Calendar": 2}}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Example name -> its results workbook, written by ``calc`` as the main job does."""
    folder = tmp_path_factory.mktemp("results")
    with contextlib.redirect_stdout(io.StringIO()):
        status = calc.run(calc.bundled_examples(), folder, progress=False)
    assert status == 0
    found = {
        name: folder / name.replace(".xlsx", "-results.xlsx") for name in calc.BUNDLED_EXAMPLES
    }
    assert all(path.is_file() for path in found.values()), found
    return found


class Run(NamedTuple):
    """One LibreOffice process's run: the order it printed the workbooks in, the PDF each
    should have given, what LibreOffice said."""

    order: list[str]
    pdfs: dict[str, Path]
    said: str


@pytest.fixture(scope="module")
def runs(results: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> list[Run]:
    """The three results workbooks printed to PDF ``RUNS`` times: each run one LibreOffice
    process with its own profile, printing all three, the order rotated so that each
    workbook is the first a fresh process prints in at least one run. An abort while
    printing one workbook ends its process: that workbook and the ones after it in the
    run have no PDF, and the test below fails for each of them."""
    soffice = need("soffice", "prints the results workbooks to PDF")
    folder = tmp_path_factory.mktemp("runs")
    names = [name for name in results if name in ABORTED]
    later = [name for name in results if name not in ABORTED]
    done = []
    for run in range(RUNS):
        order = names[run % len(names) :] + names[: run % len(names)] + (later if run == 0 else [])
        outdir = folder / f"pdf{run}"
        finished = libreoffice_convert(
            soffice, [results[n] for n in order], outdir, folder / f"p{run}", "pdf", norestore=True
        )
        said = f"exit {finished.returncode}: {(finished.stdout + finished.stderr).strip()[:300]}"
        done.append(Run(order, {n: outdir / f"{results[n].stem}.pdf" for n in order}, said))
    return done


def pages(pdfinfo: str, pdf: Path) -> int:
    info = subprocess.run(
        [pdfinfo, str(pdf)], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    found = re.search(r"^Pages:\s+(\d+)", info, re.M)
    assert found, info
    return int(found.group(1))


@pytest.mark.parametrize("name", calc.BUNDLED_EXAMPLES)
def test_every_results_workbook_prints_to_pdf_every_time(runs: list[Run], name: str) -> None:
    pdfinfo = need("pdfinfo", "counts the pages of the PDF")
    if name in ABORTED:
        assert any(run.order[0] == name for run in runs)  # first in a fresh process once
    failed = []
    for number, run in enumerate(runs, 1):
        if name not in run.pdfs:  # a later example: printed in the first run
            continue
        pdf = run.pdfs[name]
        if not pdf.is_file() or pdf.stat().st_size == 0:
            failed.append(f"run {number} (order {run.order}): no PDF ({run.said})")
        elif pages(pdfinfo, pdf) < 1:
            failed.append(f"run {number}: a PDF without pages")
    printed = sum(name in run.pdfs for run in runs)
    assert printed == (RUNS if name in ABORTED else 1)
    assert not failed, f"{name}: {len(failed)} of {printed} runs failed: {failed}"


@pytest.fixture(scope="module")
def printed(runs: list[Run]) -> dict[str, list[str]]:
    """Example name -> the text of each printed page of its results workbook (the first
    run's PDFs)."""
    pdftotext = need("pdftotext", "reads the printed pages back")
    need_font(FONT, "LibreOffice paginates the workbooks as Excel does only with its metrics")
    text = {}
    for name, pdf in runs[0].pdfs.items():
        assert pdf.is_file(), runs[0].said
        out = subprocess.run(
            [pdftotext, "-layout", str(pdf), "-"],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        text[name] = [page for page in out.split("\f") if page.strip()]
    return text


@pytest.mark.parametrize("name", calc.BUNDLED_EXAMPLES)
def test_the_results_print_as_the_template_does(printed: dict[str, list[str]], name: str) -> None:
    """The pages per sheet of the template, no column too narrow for its figures (#####),
    and the checks as TRUE: the master check on the Checks and Outputs pages."""
    text = printed[name]
    sheets = Counter(
        found.group(1) if (found := re.search(r"Sheet: (\S+(?: \S+)*)", page)) else "?"
        for page in text
    )
    template = name.removesuffix("-example.xlsx")
    assert dict(sheets) == {**EXAMPLE_PAGES[template], **RESULTS_PAGES.get(template, {})}
    assert not [n for n, page in enumerate(text, 1) if "###" in page]
    for sheet, label in (("Checks", "Master check"), ("Outputs", "All checks pass")):
        page = next(page for page in text if f"Sheet: {sheet}" in page)
        line = next(line for line in page.splitlines() if line.strip().startswith(label))
        assert re.search(r"\bTRUE\b", line.replace("TRUE/FALSE", "")), line
