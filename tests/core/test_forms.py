"""Form lines with their edition (issue 20, item 3): Form 324 and the BEIP line of
Schedule A-3 beside the conversion template's credit for each tax year, the Form 313
lines of the ERTC template labelled with its 2023 edition, every label generated from
law/forms.py, and no line number the legal notes do not give."""

from __future__ import annotations

import os
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from nj_incentives.core.workpaper import FormulaTable, Item, Section, SourceHeading, Title
from nj_incentives.programs import forms as F
from nj_incentives.programs.beip.templates import conversion as beip_conversion
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.workpapers.recalc import recalculate
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY

FILLED = DEFAULT_DIRECTORY / "examples" / "beip-credit-conversion-example.xlsx"
NOTES = Path(__file__).resolve().parents[3] / "shared" / "legal-notes.md"
if not NOTES.exists():
    NOTES = Path("/work/shared/legal-notes.md")


def _notes_section(number: int) -> str:
    text = NOTES.read_text(encoding="utf-8")
    start = text.index(f"\n## {number}.")
    end = text.find("\n## ", start + 1)
    return re.sub(r"\s+", " ", text[start : end if end > 0 else None])


def test_every_label_names_its_form_and_edition() -> None:
    for line in F.LINES:
        label = line.label()
        assert label.startswith(line.edition.name), label
        assert line.edition.form in label
        edition = line.edition
        if edition.year is None:
            assert "(edition to be confirmed)" in label
        else:
            assert f"({edition.year} edition" in label
    assert F.FORM_313.name == "Form 313 (2023 edition, rev. October 2023)"
    assert F.FORM_324_LIABILITY.label() == (
        "Form 324 (2023 edition) Part III, line 4: tax liability from page 1, line 2a of the "
        "CBT-100 / CBT-100S (the CBT before the Corporate Transit Fee)"
    )
    assert F.SCHEDULE_A3_BEIP.label() == (
        "Schedule A-3 of the CBT-100 (2017 edition) BEIP line (line number to be confirmed)"
    )


def test_a_return_reads_the_edition_in_force_for_its_tax_year() -> None:
    # Form 324: the 2023 edition from tax year 2023 (no later one found), the 2021
    # edition (10-21, the same items one line higher) for 2021 and 2022, the 2017 one
    # before; a year before the first edition found reads the first and says so
    approved = {year: F.line("Form 324", "approved", year) for year in (2017, 2022, 2023, 2025)}
    assert [approved[y].where() for y in (2017, 2022, 2023, 2025)] == [
        "Part II, line 3",
        "Part II, line 4",
        "Part II, line 3",
        "Part II, line 3",
    ]
    assert approved[2022].edition.name == "Form 324 (2021 edition, rev. 10-21)"
    assert [F.line("Form 324", "liability", y).number for y in (2020, 2022, 2024)] == [
        "5",
        "5",
        "4",
    ]
    assert F.line("Form 324", "net", 2022).where() == "Part III, line 7"
    assert F.FORMS["Form 324"].before_first(2015)
    assert not F.FORMS["Form 324"].before_first(2017)
    # Form 313: line 7 in the 2022 and 2023 editions; the limits in Part IV (line 18),
    # numbered as in 2013 and to be confirmed for the later editions
    assert F.line("Form 313", "year_one", 2022).where() == "Part III, line 7"
    assert F.line("Form 313", "year_one", 2015).where() == "Part III, line to be confirmed"
    assert F.line("Form 313", "allowable", 2015).where() == "Part IV, line 18"
    assert F.line("Form 313", "allowable", 2025).where() == "Part IV, line 18 (to be confirmed)"
    # Schedule A-3: no line number found for any year
    assert "to be confirmed" in F.line("Schedule A-3", "ertc", 2025).where()
    with pytest.raises(KeyError, match="no line 'fee'"):
        F.line("Form 324", "fee", 2025)


def test_a_line_without_a_number_says_it_is_to_be_confirmed() -> None:
    for line in F.LINES:
        if line.number is None or not line.confirmed:
            assert "to be confirmed" in line.where(), line
        else:
            assert "to be confirmed" not in line.where(), line


@pytest.mark.skipif(
    not NOTES.exists() and os.environ.get("CI") != "true",
    reason="the shared legal notes (../shared/legal-notes.md) are not beside this checkout",
)
def test_every_line_number_is_one_the_legal_notes_give() -> None:
    # only the lines the notes give carry a number (section 7, with sources): Form 324
    # 2023 Part II line 3, Part III lines 4-6; 2021 one higher; 2017 lines 3 and 5;
    # Form 313 Part III line 7 (2022, 2023), Part IV lines 16 and 18 (2013; to be confirmed
    # for the later editions); none invented
    numbered = {
        (ln.edition.form, ln.edition.year, ln.part, ln.number) for ln in F.LINES if ln.number
    }
    assert numbered == {
        ("Form 324", 2023, "Part II", "3"),
        ("Form 324", 2023, "Part III", "4"),
        ("Form 324", 2023, "Part III", "5"),
        ("Form 324", 2023, "Part III", "6"),
        ("Form 324", 2021, "Part II", "4"),
        ("Form 324", 2021, "Part III", "5"),
        ("Form 324", 2021, "Part III", "6"),
        ("Form 324", 2021, "Part III", "7"),
        ("Form 324", 2017, "Part II", "3"),
        ("Form 324", 2017, "Part III", "5"),
        *(("Form 313", year, "Part III", "7") for year in (2022, 2023)),
        *(("Form 313", year, "Part IV", n) for year in (2013, 2022, 2023) for n in ("16", "18")),
        # issue 33: the credit forms of BRRAG, UTH and Grow NJ, from stored copies of the
        # forms the notes do not cover (each source names its copy; docs/interpretations.md
        # "Schedule A-3 for BRRAG, ...", with what was searched): the approved credit and
        # the credit carried in; Form 320 2023 Part III line 6 the liability
        ("Form 316", 2015, "Part II", "3"),
        ("Form 316", 2023, "Part II", "3"),
        ("Form 316", 2023, "Part II", "4"),
        ("Form 319", 2021, "Part II", "4"),
        ("Form 320", 2016, "Part II", "4"),
        ("Form 320", 2016, "Part II", "5"),
        *(("Form 320", year, "Part II", n) for year in (2022, 2023) for n in ("3", "4")),
        ("Form 320", 2023, "Part III", "6"),
    }
    section = _notes_section(7)
    copies = {"Form 316", "Form 319", "Form 320"}
    for line in F.LINES:
        if line.number and line.edition.form in copies:
            # a stored copy of that very edition, named (never a number from elsewhere)
            assert f"({line.edition.form}, {line.edition.year}" in line.source, line
        elif line.number:
            assert "section 7" in line.source, line
            assert line.edition.form in section
            assert f"line {line.number}" in section or f"{line.number} " in section, line
        if line.number and line.edition.year != 2013 and line.part in {"Part IV", "Part V"}:
            assert not line.confirmed, line  # the 2013 layout, to be confirmed later


def test_the_docs_list_every_line_as_the_templates_print_it() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "interpretations.md").read_text(
        encoding="utf-8"
    )
    assert F.markdown() in docs  # the generated block is current
    assert "### Form 324 and Schedule A-3: which lines, which edition" in docs


def _texts(items: Any) -> list[str]:
    found: list[str] = []
    for item in items:
        if isinstance(item, Item):
            found += [item.label, item.source, item.help]
        elif isinstance(item, (Section, SourceHeading)):
            found.append(item.text)
        elif isinstance(item, Title):
            found += [item.text, item.subtitle]
        elif isinstance(item, FormulaTable):
            found += [column.header for column in item.columns]
    return [text for text in found if text]


#: The Return sheet's heading: its lines name the edition in force for the year shown.
IN_FORCE = "(the edition in force for the tax year)"


def test_the_ertc_template_names_form_313_with_its_edition() -> None:
    mentions = [t for t in _texts(ertc_credit.TEMPLATE) if "Form 313" in t]
    assert len(mentions) >= 10
    for text in mentions:
        # the 2023 edition's lines, or the 2013 instructions (the five-year switch), or
        # the Return sheet's heading, whose lines name the edition of the year shown
        assert (
            F.FORM_313.name in text or "Form 313 instructions (2013)" in text or IN_FORCE in text
        ), text
    sources = [item.source for item in ertc_credit.TEMPLATE if isinstance(item, Item)]
    assert f"{F.FORM_313_LINE_7.label(what=False)} (the positions); from Part II" in sources
    assert F.FORM_313_LINE_7.label() in sources  # the credit of credit year one


def test_the_conversion_template_labels_form_324_and_schedule_a3() -> None:
    table = next(
        item
        for item in beip_conversion.TEMPLATE
        if isinstance(item, FormulaTable) and item.name == "ReturnLines"
    )
    assert [column.header for column in table.columns] == [
        F.FORM_324_APPROVED.label(),
        F.FORM_324_LIABILITY.label(),
        F.FORM_324_ALLOWABLE.label(),
        F.FORM_324_REFUND.label(),
        F.SCHEDULE_A3_BEIP.label(),
    ]
    texts = _texts(beip_conversion.TEMPLATE)
    for text in texts:
        # a combined return filer's Part IV: every edition's (shared/legal-notes.md section
        # 5 states it with no edition), and no line of it is labelled
        combined = "combined return filer" in text.lower() and "Part IV" in text
        if "Form 324" in text:
            assert F.FORM_324.name in text or IN_FORCE in text or combined, text
        if "Schedule A-3" in text:
            assert F.SCHEDULE_A3.name in text or IN_FORCE in text or combined, text


@pytest.fixture(scope="module")
def example() -> Any:
    return recalculate(FILLED)


def _column(example: Any, name: str) -> list[Any]:
    return [row[0] for row in example.value(name)]


@pytest.mark.recalc
def test_the_return_lines_are_the_credit_of_each_tax_year(example: Any) -> None:
    assert example.value("MasterCheck") is True
    issued = _column(example, "CreditIssued")
    applied = _column(example, "CreditApplied")
    refund = _column(example, "CreditRefund")
    assert _column(example, "Form324ApprovedCredit") == issued
    assert _column(example, "Form324AllowableCredit") == applied
    assert _column(example, "ScheduleA3BEIP") == applied
    assert _column(example, "Form324Refund") == refund
    liabilities = beip_conversion.EXAMPLE["liabilities"]
    shown = _column(example, "Form324TaxLiability")
    assert shown == [liabilities.get(year, "") for year in beip_conversion.TAX_YEARS]
    # tax year 2018 (the second row): 274,000.02 issued against a liability of 120,000:
    # 120,000 allowable (line 4 caps it), 154,000.02 refunded
    assert Decimal(str(shown[1])) == 120_000
    assert Decimal(str(applied[1])) == Decimal("120000")
    assert Decimal(repr(refund[1])).quantize(Decimal("0.01")) == Decimal("154000.02")
