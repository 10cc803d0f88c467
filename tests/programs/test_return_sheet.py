"""The Return sheet prints each form line and its law whole (issue 31).

Each form line's label is a formula choosing among the form editions' texts, known when
the template is built. The long Schedule A-3 labels ran over the Law column, whose
citations were cut at the Amount column: the two columns now wrap, and each row is as tall
as the longest text its formula may show (``ReturnSpec`` -> ``FormulaTable.shows``).
Printed through LibreOffice and looked at in PNG; the page counts are held in
tests/workpapers/templates/test_templates_print.py.
"""

from __future__ import annotations

import re

import openpyxl
import pytest
from openpyxl.utils import get_column_letter, range_boundaries

from nj_incentives.programs import forms as F
from nj_incentives.programs import return_sheet as R
from nj_incentives.workpapers.templates import page
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY, TEMPLATES

#: A text in a formula: "...", a quote inside it doubled.
_LITERAL = re.compile(r'"((?:[^"]|"")*)"')


def _texts(formula: str) -> list[str]:
    return [text.replace('""', '"') for text in _LITERAL.findall(formula)]


def test_the_texts_sized_for_are_every_text_the_formula_may_show() -> None:
    checked = 0
    for name, form in F.FORMS.items():
        for item in form.items():
            try:
                formula = R.edition_formula(name, item, "ReturnTaxYear")
            except KeyError:  # an item some edition lacks: no template shows it by year
                continue
            assert set(_texts(formula)) == set(R.edition_texts(name, item)), (name, item)
            checked += 1
    assert checked >= 20


def test_a_long_schedule_a3_label_is_sized_for_its_earliest_edition_text() -> None:
    # BRRAG's Schedule A-3 line, for a tax year before the 2017 edition: 671.96 points of
    # Arial 10 in a column 72 characters wide (72 x 7 pixels x 0.75 = 378 points): 1.78
    # columns' worth, 2 lines, 2 x 12.75 + 2 = 27.5 points
    texts = R.edition_texts("Schedule A-3", "brrag")
    longest = max(texts, key=page.text_points)
    assert longest.endswith(R.EARLIEST)
    assert round(page.text_points(longest), 2) == 671.96
    assert page.text_height(longest, R.FORM_WIDTH) == 27.5


@pytest.mark.parametrize("name", TEMPLATES, ids=lambda name: name.removesuffix(".xlsx"))
def test_each_return_row_is_as_tall_as_its_longest_text(name: str) -> None:
    book = openpyxl.load_workbook(DEFAULT_DIRECTORY / name)
    amounts = book.defined_names.get("ReturnAmounts")
    if amounts is None:  # a cash grant: its Return sheet says why no line applies
        assert "Return" in book.sheetnames
        return
    sheet, where = next(iter(amounts.destinations))
    ws = book[sheet]
    column, first, _, last = range_boundaries(where.replace("$", ""))
    assert column is not None
    assert first is not None
    assert last is not None
    for row in range(first, last + 1):
        # the label (A), the form line and the law (the two columns left of the amount)
        for col in (1, column - 2, column - 1):
            cell = ws.cell(row, col)
            assert cell.alignment.wrap_text, (name, cell.coordinate)
            value = str(cell.value)
            texts = _texts(value) if value.startswith("=") else [value]
            # the width as xlsxwriter stores it: the characters given and 5 pixels of padding
            width = (ws.column_dimensions[get_column_letter(col)].width or 0) - 5 / 7
            height = ws.row_dimensions[row].height or page.DEFAULT_ROW_HEIGHT
            for text in texts:
                assert height >= page.text_height(text, width), (name, cell.coordinate, text)
