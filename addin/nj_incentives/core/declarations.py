"""The declaration vocabulary of the NJ_* functions: what a program's ``functions.py``
writes to declare its calculations (name, description, citation, arguments with their help
text and how their cells are read, example, result columns).

A program declares its calculations in a :class:`Catalog` of its own
(``FUNCTIONS = Catalog()``; ``calculation = FUNCTIONS.calculation``); the function catalog
(:mod:`nj_incentives.functions.catalog`) joins every registered program's, in the
registry's order (:data:`nj_incentives.programs.PROGRAMS`). Pure data: no xlwings; the
cells are read by the cell conventions (:mod:`nj_incentives.core.cells`), and every name
must be usable in the classic add-in's VBA wrappers (:mod:`nj_incentives.core.vba`).
"""

from __future__ import annotations

import datetime as dt
import functools
import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from nj_incentives.core import parameters as P
from nj_incentives.core.cells import (
    Cell,
    as_date_cell,
    as_scalar,
    as_table,
    as_vector,
    formula_text,
    input_error,
    is_blank,
    python_value,
    refuse_error_cells,
    serial_to_date,
)
from nj_incentives.core.vba import vba_identifier_problem

__all__ = [
    "Adapter",
    "Argument",
    "Calculation",
    "Catalog",
    "ExplainTopic",
    "ItemsOption",
    "ResultColumn",
    "Unit",
    "a_date",
    "each",
    "each_date",
    "grid",
    "headers",
    "joined",
    "law_as_of",
    "law_date",
    "law_date_cell",
    "listed",
    "raw",
    "result_table",
    "single",
    "switch",
]

# =========================================================================== arguments


@dataclass(frozen=True)
class Argument:
    """One argument of an Excel function: its help text and how its cells are read."""

    name: str
    doc: str
    #: "one" (a single cell), "date", "vector" (one per year/period/employee),
    #: "dates" (a vector of dates), "table" (rows x columns), "raw" (passed as given),
    #: "law" (a ``law_as_of`` date: its refusal names the versions available)
    kind: str
    optional: bool = False
    #: a switch's words (:func:`switch`): Excel offers them in a dropdown (Office.js,
    #: ``typing.Literal``); empty for every other argument
    choices: tuple[str, ...] = ()

    def read(self, value: Cell, citation: str) -> Cell:
        """The cells as the core's input: error cells refused, a blank None (or the error
        "is required"), anything else as :meth:`convert` reads it. The general path;
        :meth:`Calculation.convert` takes the common cells directly, with the same result."""
        if self.kind != "raw":  # a table's error cells are its rows' errors
            refuse_error_cells(value, self.name, citation)
        if is_blank(python_value(value)):
            if not self.optional:
                raise input_error(self.name, None, "is required", citation)
            return None
        return self.convert(value, citation)

    def convert(self, value: Cell, citation: str) -> Cell:
        """The cells as the core's input (a blank argument has been handled already)."""
        if self.kind == "one":
            return as_scalar(value, self.name, citation)
        if self.kind == "date":
            return as_date_cell(as_scalar(value, self.name, citation), self.name, citation)
        if self.kind == "vector":
            return as_vector(value, self.name, citation)
        if self.kind == "dates":
            return [
                as_date_cell(cell, self.name, citation)
                for cell in as_vector(value, self.name, citation)
            ]
        if self.kind == "table":
            return as_table(value, self.name, citation)
        if self.kind == "law":
            return law_date_cell(value, self.name, citation)
        return python_value(value)


def law_date_cell(value: Cell, argument: str, citation: str) -> Cell:
    """A ``law_as_of`` cell: a date cell (:func:`~nj_incentives.core.cells.as_date_cell`) whose
    refusal, like the core's (:func:`nj_incentives.core.inputs.as_law_as_of`), names the
    versions available of the statute ``citation`` cites."""
    try:
        return as_date_cell(value, argument, citation)
    except ValueError as error:
        from nj_incentives.core.inputs import CITE_LAW_AS_OF, InputError

        if not isinstance(error, InputError):
            raise
        statute = next(
            (key for key, law in P.STATUTES.items() if citation.startswith(law.citation)), None
        )
        versions = "" if statute is None else f"; versions available: {P.versions_text(statute)}"
        raise input_error(argument, error.value, error.rule + versions, CITE_LAW_AS_OF) from None


def single(doc: str) -> tuple[str, str]:
    """A single-cell argument (number, text or boolean)."""
    return "one", doc


def _choices(declared: tuple[str, ...] | tuple[str, str, tuple[str, ...]]) -> tuple[str, ...]:
    """The choices of a declared argument (:func:`switch`'s third item; none otherwise)."""
    return tuple(declared[2]) if len(declared) > 2 else ()


def switch(doc: str, choices: tuple[str, ...]) -> tuple[str, str, tuple[str, ...]]:
    """A single cell holding one of the words ``choices`` (a reading's switch, a basis):
    read as text like :func:`single`, and offered by Excel as a dropdown where the runtime
    can (Office.js: the argument's ``typing.Literal``, xlwings 0.35.3 and later)."""
    return "one", doc, tuple(choices)


def a_date(doc: str) -> tuple[str, str]:
    """A single date cell."""
    return "date", doc


def law_date(doc: str) -> tuple[str, str]:
    """A ``law_as_of`` date cell (its refusal names the versions available)."""
    return "law", doc


def each(doc: str) -> tuple[str, str]:
    """A row or column of values, one per year, period or employee."""
    return "vector", doc


def each_date(doc: str) -> tuple[str, str]:
    """A row or column of dates."""
    return "dates", doc


def raw(doc: str) -> tuple[str, str]:
    """A range passed on as it is (a table with a header row of names)."""
    return "raw", doc


def grid(doc: str) -> tuple[str, str]:
    """A table of cells (rows x columns)."""
    return "table", doc


# =========================================================================== result columns

#: What a result column holds: money and fractions are shown as the float of the exact
#: figure; "value" shows a Decimal as a float and anything else as it is.
Unit = Literal["date", "money", "int", "fraction", "number", "text", "value"]


@dataclass(frozen=True)
class ResultColumn:
    """One column of a calculation's result table: its header, the field of the core's
    row it shows, what it holds and what it means."""

    header: str
    field: str
    unit: Unit
    doc: str
    #: the stem of the scenario runner's result columns that give this column once per
    #: grant year, tax year or privilege period (``<stem>_<k>``); blank: none
    scenario: str = ""

    def cell(self, row: object) -> Cell:
        """This column's cell for one row of the core's result."""
        return self.shown(getattr(row, self.field))

    @functools.cached_property
    def shown(self) -> Callable[[object], Cell]:
        """How this column shows one value of its field (:meth:`cell` without the look-up;
        chosen once per column, not per cell)."""
        if self.unit == "value":
            return _value_cell
        if self.unit in ("money", "fraction", "number"):
            return _number_cell
        return _as_is


def _as_is(value: object) -> Cell:
    return value


def _value_cell(value: object) -> Cell:
    """A "value" cell: a Decimal as its float, anything else as it is."""
    return float(value) if isinstance(value, Decimal) else value


def _number_cell(value: object) -> Cell:
    """A money, fraction or number cell: the float of the exact figure; None, booleans,
    whole numbers, text and dates as they are."""
    if type(value) is Decimal:  # the common case, directly
        return float(value)
    if value is None or isinstance(value, bool | int | str | dt.date):
        return value
    return float(value)  # type: ignore[arg-type]


def headers(columns: Sequence[ResultColumn]) -> list[str]:
    """The header row of a result table."""
    return [column.header for column in columns]


def result_table(columns: Sequence[ResultColumn], rows: Iterable[object]) -> list[list[Cell]]:
    """A result table: the header row, then each row of the core's result as the columns
    show it (:meth:`ResultColumn.cell`)."""
    fields = operator.attrgetter(*(column.field for column in columns))
    shown = [column.shown for column in columns]
    if len(shown) == 1:  # attrgetter of one field gives the value, not a tuple
        only = shown[0]
        return [headers(columns)] + [[only(fields(row))] for row in rows]
    # each cell its column's show of its field (attrgetter gives one value a column)
    return [headers(columns)] + [list(map(operator.call, shown, fields(row))) for row in rows]


def listed(columns: Sequence[ResultColumn]) -> str:
    """The headers as a description names them: "Year, Grant, Cumulative grant"."""
    return ", ".join(headers(columns))


def law_as_of(statute: str) -> tuple[str, str]:
    """The ``law_as_of`` argument of a calculation of ``statute`` (a key of
    :data:`nj_incentives.core.parameters.STATUTES`): its help names the versions modelled."""
    acts = sorted(P.STATUTES[statute].acts, key=lambda act: act.date)
    return law_date(
        "The law as it stood on this date (Excel date); blank = every version modelled, chosen"
        f" by the calculation's own date. {len(acts)} versions, {acts[0].label()} to"
        f" {acts[-1].label()} (docs/interpretations.md)"
    )


# =========================================================================== calculations


@dataclass(frozen=True)
class Calculation:
    """One catalog calculation: what Excel shows about it and how its cells are read.

    The description (with its citation) is what Excel's Insert Function dialog shows;
    ``columns`` are the header and fields of a result table (None: a single value or a
    row without header).
    """

    name: str
    description: str
    citation: str
    arguments: tuple[Argument, ...]
    vararg: Argument | None
    example: tuple[Cell, ...]
    columns: tuple[ResultColumn, ...] | None = None

    @functools.cached_property
    def message_citation(self) -> str:
        """What a message about this function's cells cites: its law, or its reference."""
        return self.citation or f"{self.name}, docs/functions.md"

    def convert(self, args: Sequence[Cell], kwargs: dict[str, Cell]) -> list[Cell]:
        """The arguments as the core's inputs; blank required arguments are errors."""
        citation = self.message_citation
        arguments = self.arguments
        count = len(arguments)
        if len(args) > count and self.vararg is None:
            raise TypeError(f"{self.name} takes at most {count} arguments ({len(args)} given)")
        values: list[Cell] = list(args[:count])
        if len(values) < count:
            values += [None] * (count - len(values))
        for name, value in kwargs.items():
            index = next((i for i, a in enumerate(arguments) if a.name == name), None)
            if index is None:
                raise TypeError(f"{self.name} has no argument {name!r}")
            values[index] = value
        for index, argument in enumerate(arguments):
            value = values[index]
            # The common cells directly, with the outcome of Argument.read (the general path): a
            # number, TRUE/FALSE or plain text in a single cell is the core's input as it
            # is; a number in a date cell is a serial; a blank takes the default.
            kind = type(value)
            if value is None:
                if not argument.optional:
                    raise input_error(argument.name, None, "is required", citation)
                continue
            if kind is float or kind is int or kind is bool:
                if argument.kind == "one":
                    continue
                if argument.kind == "date" and kind is not bool:
                    values[index] = serial_to_date(float(value), argument.name, citation)
                    continue
            elif (
                kind is str
                and "#" not in value
                and argument.kind in ("one", "date")
                and value.strip()
            ):
                continue
            elif kind is list and argument.kind in ("vector", "dates") and _plain(value):
                # a row or column of numbers or text (xlwings passes it as a flat list)
                if argument.kind == "vector":
                    values[index] = list(value)
                else:
                    values[index] = [as_date_cell(c, argument.name, citation) for c in value]
                continue
            values[index] = argument.read(value, citation)
        # The further arguments (NJ_EXPLAIN's ``args``) are another function's: it reads
        # them, and its own argument names an error cell among them (``pct``, not ``args``).
        extras = [python_value(extra) for extra in args[count:]]
        return values + extras

    def formula(self, args: Sequence[Cell] | None = None, namespace: str = "") -> str:
        """The formula text calling this function (the example's by default)."""
        values = list(self.example if args is None else args)
        while values and values[-1] is None:
            values.pop()
        prefix = f"{namespace}." if namespace else ""
        return f"={prefix}{self.name}({', '.join(formula_text(v) for v in values)})"


def _plain(cells: list[Cell]) -> bool:
    """A flat, non-empty list of numbers, TRUE/FALSE and non-blank text that cannot be an
    error value: no cell of it is blank or an error, none is a range."""
    for cell in cells:
        kind = type(cell)
        if kind is float or kind is int or kind is bool:
            continue
        if kind is not str or "#" in cell or not cell.strip():
            return False
    return bool(cells)


@dataclass(frozen=True)
class Adapter:
    """How a declared calculation runs: ``compute`` turns its converted cells into the
    core's result (its parameters are the calculation's arguments, in order, the optional
    ones with a default), ``show`` turns that result into cells."""

    compute: Callable[..., Any]
    show: Callable[[Any], Any]


def _shown_as_is(result: Any) -> Any:
    return result


class Catalog:
    """The calculations one module declares (a program's ``functions.py``), by Excel
    name, in the order declared, and the adapters that run them."""

    def __init__(self) -> None:
        self.calculations: dict[str, Calculation] = {}
        self.adapters: dict[str, Adapter] = {}

    def adapter(
        self, show: Callable[[Any], Any] = _shown_as_is
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register the decorated function as the ``compute`` of the calculation of this
        catalog with the same name, and ``show`` (:class:`Adapter`). The function table
        (:mod:`nj_incentives.functions`) checks its parameters against the calculation's
        and serves it; the decorated function is returned as it is."""

        def register(compute: Callable[..., Any]) -> Callable[..., Any]:
            name = compute.__name__
            if name not in self.calculations:
                raise TypeError(f"{name}: not declared in this catalog")
            if name in self.adapters:
                raise TypeError(f"{name}: adapter registered twice")
            self.adapters[name] = Adapter(compute, show)
            return compute

        return register

    def __iter__(self) -> Iterator[Calculation]:
        return iter(self.calculations.values())

    def __len__(self) -> int:
        return len(self.calculations)

    def calculation(
        self,
        name: str,
        *,
        cite: str,
        description: str,
        example: tuple[Cell, ...],
        optional: tuple[str, ...] = (),
        vararg: str | None = None,
        columns: tuple[ResultColumn, ...] | None = None,
        **docs: tuple[str, str] | tuple[str, str, tuple[str, ...]],
    ) -> Calculation:
        """Declare the calculation ``name``: ``docs`` gives every argument, in order, as its
        kind and help text (meaning and unit; :func:`single`, :func:`a_date` ...), the
        ``optional`` ones may be blank, ``vararg`` takes any further arguments. ``cite`` is
        the law it applies (empty for the few that apply none); the description must cite it
        and fit in Excel's 255 characters; every name must be usable in VBA (the classic
        add-in's wrappers)."""
        names = [n for n in docs if n != vararg]
        problems = [
            problem
            for problem in (vba_identifier_problem(n) for n in [name, *docs])
            if problem is not None
        ]
        if vararg is not None and vararg not in docs:
            problems.append(f"no help text for {vararg!r}")
        if not set(optional) <= set(names):
            problems.append(f"optional {sorted(set(optional) - set(names))} are not arguments")
        first_optional = min((names.index(n) for n in optional), default=len(names))
        if set(names[first_optional:]) != set(optional):
            problems.append("a required argument follows an optional one")
        if (cite and cite not in description) or len(description) > 255:
            problems.append("the description must cite the law and fit in 255 characters")
        if name in self.calculations:
            problems.append("declared twice")
        if problems:
            raise TypeError(f"{name}: " + "; ".join(problems))
        entry = Calculation(
            name,
            description,
            cite,
            tuple(
                Argument(n, docs[n][1], docs[n][0], n in optional, _choices(docs[n])) for n in names
            ),
            Argument(vararg, docs[vararg][1], "raw") if vararg is not None else None,
            example,
            columns,
        )
        self.calculations[name] = entry
        return entry


def joined(catalogs: Iterable[Catalog]) -> dict[str, Calculation]:
    """The calculations of ``catalogs``, in their order, by Excel name (a name declared in
    two of them is an error)."""
    found: dict[str, Calculation] = {}
    for catalog in catalogs:
        for entry in catalog:
            if entry.name in found:
                raise TypeError(f"{entry.name}: declared twice")
            found[entry.name] = entry
    return found


# =========================================================================== explain topics


@dataclass(frozen=True)
class ItemsOption:
    """An option of an ``nj-incentives explain`` topic that gives several of the
    calculation's arguments together: a list of items (the command line's list rule), each
    ``FIELD:FIELD:...``, read by ``parse`` (each field's text -> a list of the values the
    core takes under the option's name; a bad field raises the core's InputError)."""

    #: the option (``--periods``) and the core's keyword (``periods``)
    name: str
    #: what one item is called in a message ("period 2 '...' has 3 field(s)")
    item: str
    #: the fields of an item, as the option's metavar shows them
    fields: tuple[str, ...]
    #: the item's format and an example, as a refusal states them
    format: str
    example: str
    help: str
    parse: Callable[..., list[Any]]


@dataclass(frozen=True)
class ExplainTopic:
    """One ``nj-incentives explain`` topic: a catalog calculation and the core function that
    computes it (``compute``: ``"module:function"``, imported when the command is built).
    The arguments (names, help, which are required) are the calculation's; the topic says
    only how the command line spells them: which are given in order (``positional``; the
    others are ``--options``), and ``replaced``: arguments given together by one
    :class:`ItemsOption` of ``custom``."""

    name: str
    calculation: str
    compute: str
    positional: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    custom: tuple[ItemsOption, ...] = ()
