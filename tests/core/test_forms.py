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
        "Form 324 (edition to be confirmed) Part III, line 4: tax liability (CBT-100 / CBT-100S)"
    )
    assert F.SCHEDULE_A3_BEIP.label() == (
        "Schedule A-3 of the CBT-100 (2017 edition) BEIP line (line number to be confirmed)"
    )


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
    # only the lines the notes give carry a number: Form 324 Part II line 3, Part III
    # lines 4-6 (section 5), Form 313 Part III line 7 (section 2); none invented
    numbered = {(ln.edition.form, ln.part, ln.number) for ln in F.LINES if ln.number}
    assert numbered == {
        ("Form 324", "Part II", "3"),
        ("Form 324", "Part III", "4"),
        ("Form 324", "Part III", "5"),
        ("Form 324", "Part III", "6"),
        ("Form 313", "Part III", "7"),
    }
    for line in F.LINES:
        if line.number:
            section = _notes_section(int(line.source.split("section ")[1][0]))
            assert line.edition.form in section
            assert f"line {line.number}" in section, line


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


def test_the_ertc_template_names_form_313_with_its_edition() -> None:
    mentions = [t for t in _texts(ertc_credit.TEMPLATE) if "Form 313" in t]
    assert len(mentions) >= 10
    for text in mentions:
        # the 2023 edition's lines, or the 2013 instructions (the five-year switch)
        assert F.FORM_313.name in text or "Form 313 instructions (2013)" in text, text
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
        if "Form 324" in text:
            assert F.FORM_324.name in text, text
        if "Schedule A-3" in text:
            assert F.SCHEDULE_A3.name in text, text


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
