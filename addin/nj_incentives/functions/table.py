"""The NJ_* functions' table: each catalog calculation with the adapter that computes it,
as plain callables, with no xlwings.

An adapter (a program's, ``@FUNCTIONS.adapter`` in ``programs/<key>/functions.py``; those
of the functions of no program in :mod:`nj_incentives.functions.adapters`) has two
halves: ``compute`` turns the (converted) cells into the core's result, ``show`` turns
that result into cell values. :func:`adapter` registers a pair under the catalog
calculation of the same name (:data:`nj_incentives.functions.catalog.CALCULATIONS`: name,
description, citation, arguments, example, result columns) in :data:`CATALOG`, checking
that ``compute``'s parameters are the catalog's.

Everything that calls the functions without Excel reads this table: the headless
recalculation (:func:`functions`: ``{EXCEL_NAME: callable}``, errors as the cell's text
or raised), the memo and ``NJ_EXPLAIN`` (:meth:`ExcelFunction.result`), sign-off,
``doctor`` and the generated reference. How Excel reaches the same table is
:mod:`nj_incentives.runtimes.xlwings_classic` (the module users name
``nj_incentives.excel``), which only decorates it for xlwings.

The cell conventions (blanks, ranges, serial dates, error cells, how results become
cells) are those of :mod:`nj_incentives.core.cells`. Functions are deterministic and
not volatile.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import inspect
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from nj_incentives.core.cells import (
    Cell,
    CellResult,
    error_text,
    finite,
    is_blank,
    to_cell_values,
)
from nj_incentives.functions.catalog import CALCULATIONS, Argument, Calculation

__all__ = [
    "CATALOG",
    "ExcelFunction",
    "LawAsOfRun",
    "adapter",
    "functions",
    "law_as_of_applied",
    "law_as_of_in_force",
]


# =========================================================================== the registry


@dataclass(frozen=True)
class ExcelFunction:
    """One catalog calculation (:class:`nj_incentives.functions.catalog.Calculation`: name,
    description, citation, arguments, example, result columns) and its two halves.

    ``compute`` turns the (converted) cells into the core's result; ``show`` turns that
    result into cell values. The metadata is the catalog's; the xlwings runtimes give
    Excel the same (:mod:`nj_incentives.runtimes.xlwings_classic`).
    """

    calculation: Calculation
    compute: Callable[..., Any]
    show: Callable[[Any], CellResult]

    @property
    def name(self) -> str:
        return self.calculation.name

    @property
    def description(self) -> str:
        return self.calculation.description

    @property
    def citation(self) -> str:
        return self.calculation.citation

    @property
    def arguments(self) -> tuple[Argument, ...]:
        return self.calculation.arguments

    @property
    def vararg(self) -> Argument | None:
        return self.calculation.vararg

    @property
    def example(self) -> tuple[Cell, ...]:
        return self.calculation.example

    @property
    def message_citation(self) -> str:
        return self.calculation.message_citation

    @property
    def help_text(self) -> dict[str, str]:
        """Each parameter's help (the vararg's too), by name, as Excel shows it."""
        found = {argument.name: argument.doc for argument in self.arguments}
        if self.vararg is not None:
            found[self.vararg.name] = self.vararg.doc
        return found

    def convert(self, args: Sequence[Cell], kwargs: dict[str, Cell]) -> list[Cell]:
        """The arguments as the core's inputs; blank required arguments are errors."""
        return self.calculation.convert(args, kwargs)

    def result(self, *args: Cell, **kwargs: Cell) -> Any:
        """The core's result for these cells (raises the core's InputError); inside
        :func:`law_as_of_applied`, under that ``law_as_of`` where the function takes one."""
        run = _LAW_AS_OF_RUN.get()
        if run is not None:
            args, kwargs = run.apply(self, args, kwargs)
        return self.compute(*self.convert(args, kwargs))

    def cells(self, *args: Cell, **kwargs: Cell) -> CellResult:
        """The cell values for these cells (raises on bad input)."""
        return finite(self.show(self.result(*args, **kwargs)), self.name)

    def formula(self, args: Sequence[Cell] | None = None, namespace: str = "") -> str:
        """The formula text calling this function (the example's by default)."""
        return self.calculation.formula(args, namespace)


#: Every Excel function, by name, in catalog order.
CATALOG: dict[str, ExcelFunction] = {}


# =========================================================================== law_as_of of a run


@dataclass
class LawAsOfRun:
    """``nj-incentives calc --law-as-of DATE``: the ``law_as_of`` that every NJ_* call
    taking one applies through :meth:`ExcelFunction.result` (the headless recalculation,
    the memo, ``NJ_EXPLAIN``), and the calls whose own, different ``law_as_of`` it
    replaced (function, the workbook's value)."""

    date: dt.date
    replaced: list[tuple[str, str]] = field(default_factory=list)

    def apply(
        self, entry: ExcelFunction, args: tuple[Cell, ...], kwargs: dict[str, Cell]
    ) -> tuple[tuple[Cell, ...], dict[str, Cell]]:
        names = [argument.name for argument in entry.arguments]
        if "law_as_of" not in names:
            return args, kwargs
        index = names.index("law_as_of")
        own = kwargs.get("law_as_of", args[index] if len(args) > index else None)
        if not is_blank(own):
            try:
                day = entry.calculation.arguments[index].read(own, entry.message_citation)
            except ValueError:
                day = None
            if str(day)[:10] != self.date.isoformat():
                shown = day.isoformat() if isinstance(day, dt.date) else str(own)
                self.replaced.append((entry.name, shown))
        if len(args) > index:
            args = (*args[:index], self.date, *args[index + 1 :])
        else:
            kwargs = {**kwargs, "law_as_of": self.date}
        return args, kwargs


_LAW_AS_OF_RUN: ContextVar[LawAsOfRun | None] = ContextVar("nj_law_as_of_run", default=None)


@contextlib.contextmanager
def law_as_of_applied(date: dt.date | None) -> Iterator[LawAsOfRun | None]:
    """Within the block, every NJ_* call taking ``law_as_of`` applies ``date`` (None:
    each call's own); yields the :class:`LawAsOfRun` (None for None)."""
    run = None if date is None else LawAsOfRun(date)
    token = _LAW_AS_OF_RUN.set(run)
    try:
        yield run
    finally:
        _LAW_AS_OF_RUN.reset(token)


def law_as_of_in_force() -> dt.date | None:
    """The ``law_as_of`` of the enclosing :func:`law_as_of_applied` (None: none)."""
    run = _LAW_AS_OF_RUN.get()
    return None if run is None else run.date


def adapter(
    show: Callable[[Any], CellResult] = lambda result: result,
) -> Callable[[Callable[..., Any]], ExcelFunction]:
    """Register ``compute`` as the adapter of the catalog calculation of the same name
    (:data:`nj_incentives.functions.catalog.CALCULATIONS`), with ``show`` turning its
    result into cells; the decorated name is bound to the :class:`ExcelFunction`.

    ``compute``'s parameters must be the calculation's arguments, in order, the optional
    ones (and only they) with a default (raises TypeError otherwise, registering nothing).
    """

    def register(compute: Callable[..., Any]) -> ExcelFunction:
        name = compute.__name__
        if name not in CALCULATIONS:
            raise TypeError(f"{name}: not declared in nj_incentives.functions.catalog")
        calculation = CALCULATIONS[name]
        parameters = list(inspect.signature(compute).parameters.values())
        declared = [(a.name, a.optional) for a in calculation.arguments]
        found = [
            (p.name, p.default is not p.empty) for p in parameters if p.kind != p.VAR_POSITIONAL
        ]
        varargs = [p.name for p in parameters if p.kind == p.VAR_POSITIONAL]
        vararg = calculation.vararg.name if calculation.vararg else None
        if found != declared or varargs != ([vararg] if vararg else []):
            raise TypeError(
                f"{name}: parameters {found} + {varargs} but the catalog has {declared} + {vararg}"
            )
        entry = ExcelFunction(calculation, compute, show)
        CATALOG[name] = entry
        return entry

    return register


def functions(
    errors: Literal["text", "raise"] = "text",
) -> dict[str, Callable[..., CellResult]]:
    """``{EXCEL_NAME: callable}`` for engines other than xlwings (the headless recalculation).

    Each callable takes cell values (None for a blank cell; numbers, text, booleans,
    dates or serial numbers; ranges as lists of rows or numpy arrays) and returns cell
    values (:func:`to_cell_values`: dates as serial numbers). With ``errors="text"`` a bad
    input returns ``"#VALUE! argument = value: rule (citation)"`` (:func:`error_text`);
    with ``errors="raise"`` the exception propagates (the core's ``InputError`` carries
    ``argument``, ``value``, ``rule`` and ``citation``). No xlwings is involved: the
    same in every runtime.
    """

    def plain(entry: ExcelFunction) -> Callable[..., CellResult]:
        def call(*args: Cell, **kwargs: Cell) -> CellResult:
            if errors == "raise":
                return to_cell_values(entry.cells(*args, **kwargs))
            try:
                return to_cell_values(entry.cells(*args, **kwargs))
            except Exception as exc:
                return error_text(exc, entry.name)

        call.__name__ = call.__qualname__ = entry.name
        call.__doc__ = entry.description
        return call

    return {name: plain(entry) for name, entry in CATALOG.items()}
