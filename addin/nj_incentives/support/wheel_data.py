"""Build steps (setuptools commands, named in pyproject.toml's ``tool.setuptools.cmdclass``)
that ship the data files from their one home each.

The blank templates (``workbooks/``), the filled examples and the scenario runner's example
inputs (``workbooks/examples/``) and
``docs/interpretations.md`` live once in the repository. The source distribution carries
them at those paths; the wheel gets a copy in the package's ``nj_incentives/data/``
(:mod:`nj_incentives.support.shipped` finds them in either place). An editable install copies
nothing: it reads them where they live. Used by the build only, never imported at run time.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist


def _shipped() -> ModuleType:
    """nj_incentives.support.shipped, imported from this source tree: setuptools loads this
    module on its own, before the package is installed, and the names of the shipped
    templates come from the program registry (``nj_incentives.programs``: the registry
    and each program's ``templates`` part import nothing outside the standard library)."""
    source = str(Path(__file__).resolve().parents[2])
    if source not in sys.path:
        sys.path.insert(0, source)
    return importlib.import_module("nj_incentives.support.shipped")


_NAMES = _shipped()

__all__ = ["BuildWithData", "SdistWithData"]

#: Each shipped file's home, relative to the project root (the build's working directory).
HOMES = (
    *(Path("workbooks", name) for name in _NAMES.TEMPLATES),
    *(Path("workbooks", "examples", name) for name in _NAMES.EXAMPLES),
    *(Path("workbooks", "examples", name) for name in _NAMES.SCENARIO_EXAMPLES),
    Path("docs", _NAMES.INTERPRETATIONS),
    Path("docs", _NAMES.FUNCTIONS_REFERENCE),
)


class BuildWithData(build_py):  # type: ignore[misc]
    """build_py, then a copy of every shipped file into ``nj_incentives/data/``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        data = Path(self.build_lib) / "nj_incentives" / "data"
        self.mkpath(str(data))
        for home in HOMES:
            if not home.is_file():
                raise FileNotFoundError(
                    f"{home} is missing: build it first "
                    "(python -m nj_incentives.workpapers.templates.build)"
                )
            self.copy_file(str(home), str(data / home.name))


class SdistWithData(sdist):  # type: ignore[misc]
    """sdist with every shipped file at its home, for the wheel built from it."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        for home in HOMES:
            target = Path(base_dir) / home
            self.mkpath(str(target.parent))
            self.copy_file(str(home), str(target))
