"""The scenario table: every input and output column, and the runner's own limits.

One row is one scenario. Its columns fall into four independent sections; a section
whose columns are all blank in a row is simply not computed for that row:

- ``grant``: the BEIP grant over its term and the $50,000 average cap
  (N.J.S.A. 34:1B-129a.-c.; N.J.A.C. 19:31I-1.4(a));
- ``conversion``: the grant converted to tax credits (34:1B-129e.(1)-(13));
- ``credit``: those credits applied against each tax year's liability (34:1B-129f.);
  needs the ``conversion`` section;
- ``ertc``: the Economic Recovery Tax Credit over privilege periods (N.J.S.A.
  52:27BBB-55b., c.).

The full description of every column is ``docs/scenarios.md``; this module is the
machine-readable version of it (:data:`INPUTS`, :func:`input_spec`, :class:`Layout`). The
sections and their input columns are declared by their programs (``SECTIONS`` and
``INPUTS`` of ``programs/<key>/scenarios.py``: BEIP's grant, conversion and credit, the
ERTC's ertc) and joined here in the registry's order; their result columns are the
sections' own, and so is their computation (each a
:class:`~nj_incentives.core.scenario_sections.Section`: :data:`REGISTERED`; the runner runs
them generically).

One declaration per input: each column's :attr:`InputSpec.rule` is a
:class:`~nj_incentives.core.inputs.InputRule` (its kind, its bounds taken from the law's
constants or the runner's limits of :mod:`nj_incentives.core.scenario_inputs`, and its
citation). The vectorised masks
(:mod:`nj_incentives.scenarios.convert`) and the scalar path's runner limits
(the programs' scalar paths) both read it; nothing else states a bound.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nj_incentives.core.inputs import MAX_DATE, MIN_DATE, InputRule
from nj_incentives.core.scenario_inputs import (
    FIRST_TAX_YEAR,
    LAST_TAX_YEAR,
    MAX_MONEY_CENTS,
    MAX_PERIODS,
    MAX_POSITIONS,
    RUNNER_LIMIT,
    InputSpec,
    Kind,
)
from nj_incentives.core.scenario_sections import (
    SCALE,
    OutKind,
    OutputSpec,
    Section,
    version_categories,
)
from nj_incentives.programs import PROGRAMS
from nj_incentives.scenarios.errors import ScenarioError

__all__ = [
    "FIRST_TAX_YEAR",
    "INPUTS",
    "LAST_TAX_YEAR",
    "MAX_DATE",
    "MAX_MONEY_CENTS",
    "MAX_PERIODS",
    "MAX_POSITIONS",
    "MAX_TERM",
    "MIN_DATE",
    "REGISTERED",
    "RESERVED",
    "RUNNER_LIMIT",
    "SCALE",
    "SECTIONS",
    "InputSpec",
    "Kind",
    "Layout",
    "OutKind",
    "OutputSpec",
    "ScenarioError",
    "Section",
    "check_columns",
    "column_spec",
    "input_rule",
    "input_spec",
    "section_of",
    "version_categories",
]


# Kind, InputSpec and the runner's limits: core/scenario_inputs.py; SCALE, OutKind,
# OutputSpec and version_categories: core/scenario_sections.py (re-exported here).

#: Every section of the scenario table, with its computation: each registered program's
#: (``SECTIONS`` of its ``scenarios.py``), in the registry's order.
REGISTERED: tuple[Section, ...] = tuple(
    section
    for found in PROGRAMS
    if found.has("scenarios")
    for section in found.part("scenarios").SECTIONS
)

#: The names of the sections, in the order the results show them.
SECTIONS: tuple[str, ...] = tuple(section.name for section in REGISTERED)

_SECTION = {section.name: section for section in REGISTERED}

#: The most grant years a ``year`` family column numbers (the BEIP's term, 34:1B-129c.).
MAX_TERM = max((section.years for section in REGISTERED), default=0)
# MIN_DATE, MAX_DATE: the dates every input takes (core/inputs.py; filled-forward period
# ends may run later).


def section_of(name: str) -> Section:
    """The registered section ``name`` (KeyError if none)."""
    return _SECTION[name]


#: Columns that are not inputs of any section: passed through to the results.
RESERVED = ("id", "label")


#: Every input column: each registered program's (``INPUTS`` of its ``scenarios.py``).
INPUTS: tuple[InputSpec, ...] = tuple(
    spec for found in PROGRAMS if found.has("scenarios") for spec in found.part("scenarios").INPUTS
)

_BY_NAME = {spec.name: spec for spec in INPUTS if not spec.family}
_FAMILIES = {spec.name.split("{")[0]: spec for spec in INPUTS if spec.family}
_FAMILY_RE = re.compile(r"^([a-z0-9_]+_)(\d+)$")


@functools.lru_cache(maxsize=4096)
def input_spec(column: str) -> tuple[InputSpec, int | None] | None:
    """The spec of an input column and its index (year k, period k or tax year), or None
    (remembered: the runner asks it of each column a chunk)."""
    if column in _BY_NAME:
        return _BY_NAME[column], None
    match = _FAMILY_RE.match(column)
    if not match:
        return None
    spec = _FAMILIES.get(match.group(1))
    if spec is None:
        return None
    index = int(match.group(2))
    if match.group(2) != str(index):  # no leading zeros: withholdings_01 is not a column
        return None
    limits = {
        "year": (1, MAX_TERM),
        "period": (1, MAX_PERIODS),
        "tax_year": (FIRST_TAX_YEAR, LAST_TAX_YEAR),
    }
    low, high = limits[spec.family]
    return (spec, index) if low <= index <= high else None


def column_spec(column: str) -> InputSpec:
    """The spec of an input column (KeyError for a column that is not an input)."""
    found = input_spec(column)
    if found is None:
        raise KeyError(column)
    return found[0]


def input_rule(column: str) -> InputRule:
    """The declaration of an input column: kind, bounds, citation (KeyError if none)."""
    return column_spec(column).rule


def _all_names() -> list[str]:
    names = [*RESERVED, *_BY_NAME]
    for spec in INPUTS:
        if spec.family == "year":
            names += [spec.name.format(k=k) for k in range(1, MAX_TERM + 1)]
        elif spec.family == "period":
            names += [spec.name.format(k=k) for k in range(1, 6)]
        elif spec.family == "tax_year":
            names += [spec.name.format(year=y) for y in range(2017, 2026)]
    return names


def check_columns(columns: Iterable[object], keep: Sequence[str] = ()) -> None:
    """Raise :class:`ScenarioError` for any column that is neither an input, ``id``,
    ``label`` nor one of ``keep`` (with the closest known names)."""
    unknown: list[str] = []
    for column in columns:
        name = str(column)
        if name in RESERVED or name in keep or input_spec(name) is not None:
            continue
        unknown.append(name)
    if unknown:
        known = _all_names()
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=1)
            hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise ScenarioError(
            "unknown scenario column(s): "
            + ", ".join(hints)
            + "; see docs/scenarios.md (descriptive columns: pass them in keep=[...])"
        )
    seen: set[str] = set()
    for column in columns:
        name = str(column)
        if name in seen:
            raise ScenarioError(f"column {name!r} appears twice")
        seen.add(name)


# ======================================================================= outputs


@dataclass(frozen=True)
class Layout:
    """The shape of a run's results: how many periods and which tax years get columns.

    All partitions of a run share one layout, so their results have the same columns.
    """

    periods: int = 0
    first_tax_year: int = 2017
    last_tax_year: int = 2025
    #: per-year and per-period columns (False: totals only)
    detail: bool = True
    #: the sections that get result columns (those with input columns in the table)
    sections: tuple[str, ...] = SECTIONS

    @property
    def tax_years(self) -> range:
        return range(self.first_tax_year, self.last_tax_year + 1)

    def outputs(self) -> list[OutputSpec]:
        """Every result column of the sections, in order (``id`` etc. come first)."""
        out: list[OutputSpec] = []
        for section in REGISTERED:  # each section's own columns (its program's)
            if section.name in self.sections:
                out += section.outputs(self)
        return out
