"""A program: one statute or shared provision, as the rest of the package sees it.

Each folder of :mod:`nj_incentives.programs` declares one :class:`Program` in its
``__init__.py`` (``PROGRAM = Program(...)``): what it is, and the modules of the folder
that declare its parts (its dated figures, rules, NJ_* function declarations, template
declarations, scenario sections, memo mappings). The parts are named, not imported, so
that reading the registry costs little; :meth:`Program.part` imports one on first use. The
one exception is ``figures``: the registry imports every program's figures as it loads,
so that the registries of :mod:`nj_incentives.core.parameters` hold every figure. A
shared provision (``remote_work``) is a program that others name in their ``uses``
(:func:`nj_incentives.programs.users`).
Every list the package shows (the catalog, the Excel functions, the templates, ``fill``,
``rollforward``, ``explain``, the memo, the scenario columns, the generated docs) is
derived from :data:`nj_incentives.programs.PROGRAMS`, never written by hand.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType

__all__ = ["PARTS", "Program"]

#: The parts a program may declare, each a module of its folder (``figures`` is
#: ``programs/<key>/figures.py``).
PARTS = ("figures", "rules", "functions", "templates", "scenarios", "memo")


@dataclass(frozen=True)
class Program:
    """One statute or shared provision."""

    #: the folder's name under ``programs/`` (``beip``, ``remote_work``)
    key: str
    #: what a reader calls it ("Business Employment Incentive Program")
    title: str
    #: the provision ("N.J.S.A. 34:1B-129")
    citation: str
    #: the parts this program's folder declares (a subset of :data:`PARTS`)
    parts: tuple[str, ...] = ()
    #: the shared provisions (other programs' keys) whose rules this program applies
    uses: tuple[str, ...] = ()
    #: the package the folder is (set by the registry; a test's program lives elsewhere)
    package: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        unknown = [part for part in self.parts if part not in PARTS]
        if unknown:
            raise ValueError(f"program {self.key!r}: unknown parts {unknown}; known: {PARTS}")

    def has(self, part: str) -> bool:
        return part in self.parts

    def part(self, part: str) -> ModuleType:
        """The module declaring ``part`` (imported on first use)."""
        if part not in self.parts:
            raise LookupError(f"program {self.key!r} declares no {part!r}")
        return importlib.import_module(
            f"{self.package or 'nj_incentives.programs.' + self.key}.{part}"
        )
