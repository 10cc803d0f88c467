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
