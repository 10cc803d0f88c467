"""The registry: every statute and shared provision the package knows, one line each.

A program is a folder of this package (``programs/<key>/``) whose ``__init__.py``
declares ``PROGRAM`` (:class:`nj_incentives.core.program.Program`). Registering it is
adding its key to :data:`KEYS`; every list of the package is derived from
:data:`PROGRAMS` (docs/architecture.md, "Adding a statute").

The programs' dated figures are the one part imported with the registry: each
``programs/<key>/figures.py`` registers its statutes, acts and figures in
:mod:`nj_incentives.core.parameters` (``STATUTES``, ``ACTS``, ``PARAMETERS``) as it is
imported, so every module that reaches a program (any ``nj_incentives.programs`` module
imports this one first) sees every figure, in the order of :data:`KEYS`; and
``nj_incentives/__init__`` imports this module (through :mod:`nj_incentives.version`), so
any import of the package does.
"""

from __future__ import annotations

import importlib
from dataclasses import replace

from nj_incentives.core.program import Program

__all__ = ["KEYS", "PROGRAMS", "program"]

#: The registered programs, in the order every list shows them.
KEYS = (
    "beip",
    "remote_work",
    "ertc",
    "cbt",
)


def _load(key: str) -> Program:
    package = f"{__name__}.{key}"
    declared: Program = importlib.import_module(package).PROGRAM
    if declared.key != key:
        raise ValueError(f"{package}.PROGRAM has key {declared.key!r}, registered as {key!r}")
    return replace(declared, package=package)


#: Every registered program (its declaration; its parts but its figures are imported on
#: first use).
PROGRAMS: tuple[Program, ...] = tuple(_load(key) for key in KEYS)

for _declared in PROGRAMS:
    if _declared.has("figures"):
        _declared.part("figures")  # registers the program's figures (see the docstring)


def program(key: str) -> Program:
    """The registered program ``key``."""
    for found in PROGRAMS:
        if found.key == key:
            return found
    raise LookupError(f"no program {key!r}; registered: {', '.join(KEYS)}")
