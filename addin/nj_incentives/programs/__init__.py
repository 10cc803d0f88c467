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
from types import ModuleType

from nj_incentives.core import parameters as _parameters
from nj_incentives.core.program import Program

__all__ = ["KEYS", "PROGRAMS", "program", "template", "templates", "users"]

#: The registered programs, in the order every list shows them.
KEYS = (
    "beip",
    "remote_work",
    "ertc",
    "cbt",
    "brrag",
    "uth",
    "grow_nj",
    "emerge",
    "portfolio",
    "awards",
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

# The statutes' records in the registry's order (a program's figures may import a shared
# provision's, which registers its record first); one not named by a key keeps its place
# after them.
_RANK = {key: index for index, key in enumerate(KEYS)}
_statutes = sorted(_parameters.STATUTES.items(), key=lambda item: _RANK.get(item[0], len(KEYS)))
_parameters.STATUTES.clear()
_parameters.STATUTES.update(_statutes)


def program(key: str) -> Program:
    """The registered program ``key``."""
    for found in PROGRAMS:
        if found.key == key:
            return found
    raise LookupError(f"no program {key!r}; registered: {', '.join(KEYS)}")


def templates() -> dict[str, Program]:
    """Every registered template's id -> its program, in the registry's order (each
    program's ``templates`` part names its own; nothing of the law is imported)."""
    found: dict[str, Program] = {}
    for declaring in PROGRAMS:
        if declaring.has("templates"):
            for template_id in declaring.part("templates").TEMPLATES:
                if template_id in found:
                    raise ValueError(
                        f"template {template_id!r} declared by {found[template_id].key!r} "
                        f"and {declaring.key!r}"
                    )
                found[template_id] = declaring
    return found


def template(template_id: str) -> ModuleType:
    """The module declaring template ``template_id`` (its ``TEMPLATE_ID``, ``EXAMPLE``,
    line items and ``workpaper(values)``: :mod:`nj_incentives.core.workpaper`)."""
    found = templates()
    if template_id not in found:
        raise LookupError(f"no template {template_id!r}; registered: {', '.join(found)}")
    part = found[template_id].part("templates")
    module = importlib.import_module(f"{part.__name__}.{part.TEMPLATES[template_id]}")
    if template_id != module.TEMPLATE_ID:
        raise ValueError(
            f"{module.__name__}.TEMPLATE_ID is {module.TEMPLATE_ID!r}, not {template_id!r}"
        )
    return module


def users(key: str) -> tuple[Program, ...]:
    """The registered programs that apply the shared provision ``key`` (their
    ``Program.uses`` names it), in the registry's order."""
    program(key)  # a known key
    return tuple(found for found in PROGRAMS if key in found.uses)
