"""Every template and filled example (issue 5): the committed file is what the builder
makes today, and its inputs are styled and validated with everything else locked.

After a deliberate change to a template, rebuild: ``python -m
nj_incentives.workpapers.templates.build``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest

from nj_incentives import programs
from nj_incentives.core.workpaper import NOT_COMPUTED, companion
from nj_incentives.support import shipped
from nj_incentives.workpapers import fill
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY, EXAMPLES, TEMPLATES
from nj_incentives.workpapers.templates.builder import audit, fingerprint

WORKBOOKS: dict[Path, Callable[[Path], Path]] = {
    **{DEFAULT_DIRECTORY / name: build for name, build in TEMPLATES.items()},
    **{DEFAULT_DIRECTORY / "examples" / name: build for name, build in EXAMPLES.items()},
}


@pytest.mark.parametrize("committed", list(WORKBOOKS), ids=lambda path: path.stem)
def test_the_committed_workbook_is_current(committed: Path, tmp_path: Path) -> None:
    rebuilt = WORKBOOKS[committed](tmp_path / committed.name)
    assert fingerprint(rebuilt) == fingerprint(committed), (
        "rebuild with: python -m nj_incentives.workpapers.templates.build"
    )


@pytest.mark.parametrize("path", list(WORKBOOKS), ids=lambda path: path.stem)
def test_inputs_are_styled_validated_and_the_rest_locked(path: Path) -> None:
    assert audit(path) == []


def test_every_list_of_templates_is_the_registrys() -> None:
    """The shipped files, the build, fill and the templates' own ids all come from the
    program registry (each program's ``templates`` part), in its order: no list by hand,
    none matched by position."""
    ids = tuple(programs.templates())
    assert ids == (
        "beip-grant-schedule",
        "beip-credit-conversion",
        "ertc-form-313",
        "grow-nj-credit-schedule",
        "emerge-credit-schedule",
        "portfolio",
    )
    assert shipped.TEMPLATES == tuple(TEMPLATES) == tuple(f"{i}.xlsx" for i in ids)
    assert shipped.EXAMPLES == tuple(EXAMPLES) == tuple(f"{i}-example.xlsx" for i in ids)
    assert ids == fill.TEMPLATE_IDS
    assert [programs.template(i).TEMPLATE_ID for i in ids] == list(ids)
    with pytest.raises(LookupError, match="no template 'beip-grant'; registered: beip-grant"):
        programs.template("beip-grant")


def test_every_template_has_a_filled_example() -> None:
    assert {name.removesuffix(".xlsx") for name in TEMPLATES} == {
        name.removesuffix("-example.xlsx") for name in EXAMPLES
    }


ENGAGEMENT_NAMES = {
    "EngagementClient",
    "EngagementEntityId",
    "EngagementPeriod",
    "EngagementPreparer",
    "EngagementReviewer",
    "EngagementDate",
}


@pytest.mark.parametrize("path", list(WORKBOOKS), ids=lambda path: path.stem)
def test_the_engagement_fields_are_named_inputs_on_inputs(path: Path) -> None:
    import openpyxl

    names = openpyxl.load_workbook(path).defined_names
    for name in ENGAGEMENT_NAMES:
        assert names[name].attr_text.startswith("Inputs!"), name
    assert names["EngagementLine"].attr_text == "Inputs!$A$3"


@pytest.mark.recalc
def test_the_examples_fill_the_engagement_and_every_sheet_shows_it() -> None:
    # recalculated as calc does (the template's prebuilt form: the full recalculation's
    # values, tests/workpapers/recalc/test_recalc_prebuilt.py)
    from tooling import recalculate_as_calc

    path = DEFAULT_DIRECTORY / "examples" / "ertc-form-313-example.xlsx"
    result = recalculate_as_calc(path)
    line = result.value("EngagementLine")
    assert line.startswith("Client: Example Manufacturing LLC (fictitious)   |   Entity ID: ")
    assert line.endswith("Reviewed by: R. Reviewer   |   Date: 2026-12-01")
    for sheet in ("Calculations", "Outputs", "Checks", "About"):
        assert result.value(f"{sheet}!A3") == line, sheet


#: The formulas around NJ_* results a template may show (builder.py's docstring): each
#: is presentation, none computes a rule, a reading or a switch.
_NOT = re.escape(f'"{NOT_COMPUTED}"')
PRESENTATION = {
    "a name or a cell shown again": re.compile(
        r"^=(?:[A-Za-z_][\w.]*|(?:'[^']+'|\w+)!\$[A-Z]+\$\d+(?::\$[A-Z]+\$\d+)?)$"
    ),
    "an input shown beside a result's row": re.compile(r'^=IF\(ISNUMBER\([^()]+\),[^()]+,""\)$'),
    "a blank shown as none": re.compile(r'^=IF\(ISBLANK\(([^()]+)\),(?:0|""),\1\)$'),
    "a total": re.compile(
        rf"^=IF\((?:AND\()?COUNT\(.*\)\)?,(?:ROUND\()?SUM\(.*\)(?:,2\))?,{_NOT}\)$"
    ),
    "a count of results above 0": re.compile(r'^=COUNTIF\([^,()]+,">0"\)$'),
    "the first row of a result": re.compile(
        rf"^=IF\(COUNT\([^()]+\)>0,(?:'[^']+'|\w+)!\$[A-Z]+\$\d+,{_NOT}\)$"
    ),
    "the last row of a result": re.compile(
        rf"^=IF\(COUNT\(([^()]+)\)>0,INDEX\([^()]+,COUNT\(\1\)\),{_NOT}\)$"
    ),
    # the portfolio's return per period (issue 31): a column of NJ_PORTFOLIO's rows at the
    # first row of a period, and a program's credit used in a period, summed over entities
    "a result's row of a period": re.compile(
        r'^=IFERROR\(INDEX\([^(),]+,MATCH\(\d+,[^(),]+,0\)\),""\)$'
    ),
    "a result summed by period and program": re.compile(
        r'^=SUMIFS\([^(),]+,[^(),]+,\d+,[^(),]+,"[a-z_]+"\)$'
    ),
    "the matrix of the schedules": re.compile(
        rf"^=IF\(COUNTIF\(.+\)=ROWS\(ApprovedAmounts\),SUMIFS\(.+\),{_NOT}\)$"
    ),
}


#: A cell showing the same cell of its sheet's companion, blank as blank.
_SHOWN = re.compile(r"""=IFERROR\(IF\(ISBLANK\('([^']+) NJ'!([A-Z]+\d+)\),"",'\1 NJ'!\2\),""\)""")


def _presentation(formula: str) -> str | None:
    if "NJ_" in formula:
        return "an NJ_* function"
    return next((kind for kind, pattern in PRESENTATION.items() if pattern.match(formula)), None)


def test_the_selection_formulas_the_templates_once_had_are_not_presentation() -> None:
    """The test below can fail: the Excel selections issue 12 moved into NJ_* functions."""
    for formula in (
        '=IF(ISNUMBER(Calculations!$C$17),IF(LimitBasis="partners",Inputs!$D$24,Inputs!$C$24),"")',
        '=IF(COUNT(Calculations!$G$17:$G$26)>0,"Yes","No")',
        '=IF(RatioMeasured="Yes",Year1Measured,Year1New)',
        '=IF(RatioMeasured="Yes","Yes",Fractional)',
        "=EDATE(Calculations!$D$12,-12)",
        "=MAX(0,Calculations!$H$17-Calculations!$E$31)",
    ):
        assert _presentation(formula) is None, formula


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_every_figure_comes_from_an_nj_function_or_is_presentation(name: str) -> None:
    """Every formula on Calculations and Outputs calls an NJ_* function or is one of the
    presentations above (issue 12 item 6); most figures are NJ_* results, a table-returning
    function's counted by the cells it fills (a credit schedule is one call over 30 rows,
    beside a few totals each shown again on Outputs)."""
    book = openpyxl.load_workbook(DEFAULT_DIRECTORY / name)
    found: dict[str | None, int] = {}
    # a table is computed on the sheet's hidden companion (issue 31 item 3), at the cells
    # that show it by ordinary references (not counted: the companion's call is)
    sheets = [s for s in ("Calculations", "Outputs") for s in (s, companion(s))]
    for sheet in (s for s in sheets if s in book.sheetnames):
        for row in book[sheet].iter_rows():
            for cell in row:
                text = getattr(cell.value, "text", cell.value)  # an array formula's text
                if not isinstance(text, str) or not text.startswith("="):
                    continue
                if _SHOWN.fullmatch(text) and _SHOWN.fullmatch(text).group(2) == cell.coordinate:
                    continue
                kind = _presentation(text)
                assert kind is not None, f"{name} {sheet}!{cell.coordinate}: {text}"
                spread = getattr(cell.value, "ref", None)
                filled = spread and kind == "an NJ_* function"
                cells = sum(map(len, openpyxl.utils.cell.rows_from_range(spread))) if filled else 1
                found[kind] = found.get(kind, 0) + cells
    assert found["an NJ_* function"] > sum(n for k, n in found.items() if k != "an NJ_* function")


#: An engagement as a firm types it into a blank template (names with credentials).
LONG_ENGAGEMENT = (
    "Client: Garden State Precision Manufacturing Holdings, LLC (Newark)   |   Entity ID: "
    "NJ-123456789/000   |   Tax period(s): Privilege periods 2023-2027\n"
    "Prepared by: Alexandra Montgomery-Whitfield, CPA   |   Reviewed by: Christopher J. "
    "Vanderbilt-Harrington, CPA, CFE   |   Date: 2026-11-30"
)


@pytest.mark.parametrize("path", list(WORKBOOKS), ids=lambda path: path.stem)
def test_the_band_of_a_blank_template_fits_long_names_typed_later(path: Path) -> None:
    # before: a blank template's band was two lines high (27.75 points) on every sheet; a
    # merged row is not autofitted, so with a real client and reviewer typed in, the
    # "Prepared by / Reviewed by / Date" line printed cut off over the row below. Now the
    # band is two lines of text (the client's, then who prepared and reviewed it) and its
    # row leaves room for names as long as these on each sheet's printed width
    import openpyxl

    from nj_incentives.workpapers.templates import page

    book = openpyxl.load_workbook(path)
    checked = 0
    for sheet in book.worksheets:
        band = next(
            (r for r in sheet.merged_cells.ranges if r.min_row == 3 and r.min_col == 1), None
        )
        if band is None:
            continue  # xlwings.conf: no band
        widths: dict[int, float] = {}
        for dimension in sheet.column_dimensions.values():
            for column in range(dimension.min or 1, (dimension.max or dimension.min or 1) + 1):
                widths[column - 1] = dimension.width or page.DEFAULT_WIDTH
        width = page.merged_note_width(widths, 0, band.max_col - 1)
        needed = page.lines(LONG_ENGAGEMENT, width, bold=True) * page.LINE_HEIGHT
        assert (sheet.row_dimensions[3].height or 0) >= needed, (sheet.title, needed)
        checked += 1
    assert checked >= 4
