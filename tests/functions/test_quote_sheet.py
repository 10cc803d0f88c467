"""One way to write a sheet title in a reference (nj_incentives.core.cells.quote_sheet), used
by
the template builder, the recalculation engine, its template notes and the memo."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openpyxl.formula.tokenizer import Tokenizer

from nj_incentives.core.cells import quote_sheet
from nj_incentives.workpapers.recalc.engine import split_reference


@pytest.mark.parametrize(
    ("title", "written"),
    [
        ("Inputs", "Inputs"),
        ("BEIP_inputs", "BEIP_inputs"),
        ("BEIP inputs", "'BEIP inputs'"),
        ("xlwings.conf", "'xlwings.conf'"),  # as the builder wrote it before
        ("2024", "'2024'"),  # starts with a digit
        ("FY2024", "'FY2024'"),  # column FY, row 2024: a cell's name
        ("R2C3", "'R2C3'"),  # an R1C1 reference
        ("R", "'R'"),
        ("Results", "Results"),
        ("O'Brien", "'O''Brien'"),  # a quote inside is doubled
    ],
)
def test_examples(title: str, written: str) -> None:
    assert quote_sheet(title) == written


#: Titles Excel allows: 1 to 31 characters, none of : \ / ? * [ ], not starting or ending
#: with a quote.
titles = st.text(
    st.characters(blacklist_characters=":\\/?*[]", blacklist_categories=("Cs", "Cc")),
    min_size=1,
    max_size=31,
).filter(lambda t: not t.startswith("'") and not t.endswith("'") and t.strip() == t)


@given(title=titles)
def test_a_written_title_reads_back_as_one_reference(title: str) -> None:
    reference = f"{quote_sheet(title)}!$B$2"
    assert split_reference(reference, [title]) == (title, "$B$2")
    tokens = [t for t in Tokenizer(f"={reference}").items if t.type != "WHITE-SPACE"]
    assert [(t.type, t.subtype) for t in tokens] == [("OPERAND", "RANGE")]
