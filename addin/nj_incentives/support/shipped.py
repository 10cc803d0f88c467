"""Where the shipped files are: one home each, found the same way installed or not.

Each file lives once in the repository, in its fixed place: the blank templates in
``workbooks/``, the filled examples in ``workbooks/examples/`` (both built by
``python -m nj_incentives.workpapers.templates.build``), the recorded readings of the law in
``docs/interpretations.md`` and the function reference ``docs/functions.md`` (whose
sections link to them); the scenario runner's example inputs
(``workbooks/examples/scenarios*``) beside the filled examples. Building the wheel copies
them into the package's ``nj_incentives/data/`` (``setup.py``'s build step); a checkout
(an editable install included) has no such folder and reads them where they live.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

from nj_incentives.programs import templates as registered_templates

__all__ = [
    "EXAMPLES",
    "FUNCTIONS_REFERENCE",
    "INTERPRETATIONS",
    "SCENARIO_EXAMPLES",
    "TEMPLATES",
    "home",
    "in_checkout",
    "shipped_file",
    "shipped_workbooks",
]

#: The blank templates (workbooks/) and the filled examples (workbooks/examples/), by
#: file name: one of each per registered template (each program's ``templates`` part
#: names its own; reading the names imports none of the law), in the registry's order.
TEMPLATES = tuple(f"{template_id}.xlsx" for template_id in registered_templates())
EXAMPLES = tuple(f"{template_id}-example.xlsx" for template_id in registered_templates())
#: The scenario runner's example inputs (workbooks/examples/; docs/scenarios.md) and the
#: interpretations (docs/): their homes relative to the repository.
SCENARIO_EXAMPLES = (
    "scenarios.csv",
    "scenarios.xlsx",
    "scenarios-base.csv",
    "scenarios-grid.json",
    "scenarios-montecarlo.json",
)
INTERPRETATIONS = "interpretations.md"
#: The function reference (docs/functions.md, generated), shipped beside the readings its
#: sections link to: what each function's help link opens once published.
FUNCTIONS_REFERENCE = "functions.md"

_PACKAGE = Path(__file__).resolve().parents[1]
_REPOSITORY = _PACKAGE.parents[1]


def in_checkout() -> bool:
    """True when this package is the ``addin/nj_incentives`` of a repository checkout
    (an editable install included); False in an installed wheel's site-packages."""
    return (_REPOSITORY / "pyproject.toml").is_file() and _PACKAGE == (
        _REPOSITORY / "addin" / "nj_incentives"
    )


def home(name: str) -> Path:
    """Where ``name`` lives in the repository (``workbooks/``, ``workbooks/examples/`` or
    ``docs/``)."""
    if name in TEMPLATES:
        return _REPOSITORY / "workbooks" / name
    if name in EXAMPLES or name in SCENARIO_EXAMPLES:
        return _REPOSITORY / "workbooks" / "examples" / name
    if name in (INTERPRETATIONS, FUNCTIONS_REFERENCE):
        return _REPOSITORY / "docs" / name
    raise KeyError(f"{name!r} is not a shipped file")


def shipped_file(name: str) -> Path:
    """The shipped file ``name``: the installed package's ``data/`` copy, or in a checkout
    its home in the repository (which may be missing until the build has run)."""
    try:
        packaged = Path(str(importlib.resources.files("nj_incentives").joinpath("data", name)))
    except (ModuleNotFoundError, FileNotFoundError):  # pragma: no cover - odd loaders
        packaged = _PACKAGE / "data" / name
    if packaged.is_file() or not in_checkout():
        return packaged
    return home(name)


def shipped_workbooks() -> list[Path]:
    """Every shipped template and example that is there (in the order of the names)."""
    found = [shipped_file(name) for name in (*TEMPLATES, *EXAMPLES)]
    return [path for path in found if path.is_file()]
