"""Every template and filled example (issue 5): the committed file is what the builder
makes today, and its inputs are styled and validated with everything else locked.

After a deliberate change to a template, rebuild: ``python -m nj_incentives.workbooks.build``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from nj_incentives.workbooks.build import DEFAULT_DIRECTORY, EXAMPLES, TEMPLATES
from nj_incentives.workbooks.builder import audit, fingerprint

WORKBOOKS: dict[Path, Callable[[Path], Path]] = {
    **{DEFAULT_DIRECTORY / name: build for name, build in TEMPLATES.items()},
    **{DEFAULT_DIRECTORY / "examples" / name: build for name, build in EXAMPLES.items()},
}


@pytest.mark.parametrize("committed", list(WORKBOOKS), ids=lambda path: path.stem)
def test_the_committed_workbook_is_current(committed: Path, tmp_path: Path) -> None:
    rebuilt = WORKBOOKS[committed](tmp_path / committed.name)
    assert fingerprint(rebuilt) == fingerprint(committed), (
        "rebuild with: python -m nj_incentives.workbooks.build"
    )


@pytest.mark.parametrize("path", list(WORKBOOKS), ids=lambda path: path.stem)
def test_inputs_are_styled_validated_and_the_rest_locked(path: Path) -> None:
    assert audit(path) == []


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


def test_the_examples_fill_the_engagement_and_every_sheet_shows_it() -> None:
    from nj_incentives.recalc import recalculate

    path = DEFAULT_DIRECTORY / "examples" / "ertc-form-313-example.xlsx"
    result = recalculate(path)
    line = result.value("EngagementLine")
    assert line.startswith("Client: Example Manufacturing LLC (fictitious)   |   Entity ID: ")
    assert line.endswith("Reviewed by: R. Reviewer   |   Date: 2026-12-01")
    for sheet in ("Calculations", "Outputs", "Checks", "About"):
        assert result.value(f"{sheet}!A3") == line, sheet
