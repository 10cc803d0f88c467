"""The NJ_* functions' adapters: from worksheet cells onto the calculation core and back.

Each function only converts cells to the core's inputs and the core's result back to
cells (:func:`~nj_incentives.functions.table.adapter` registers it under its catalog
entry). A program's adapters are declared in its folder, beside its calculations
(``@FUNCTIONS.adapter`` of ``programs/<key>/functions.py``); this module registers them
all, in catalog order, and holds the adapters of the functions of no program
(``NJ_INPUT``, ``NJ_INPUT_REFUSED``, ``NJ_INCENTIVES_VERSION``, ``NJ_INPUTS_HASH``,
``NJ_SCENARIOS``, ``NJ_EXPLAIN``: the steps behind any function's result, with their
citations). Every rule of law lives in :mod:`nj_incentives.core` and
:mod:`nj_incentives.programs`, imported on the first call, not at import. Python names
are the Excel names; importing this module imports no xlwings.

Errors (:func:`nj_incentives.core.cells.error_message`): a bad input never yields a
number and never a traceback. The message is short: ``argument = value: rule (citation)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from nj_incentives.core.cells import (
    Cell,
    CellResult,
    MissingPackage,
    as_date_cell,
    as_rows,
    input_error,
    is_blank,
    python_value,
    refuse_error_cells,
)
from nj_incentives.functions.catalog import (
    ADAPTERS,
    CALCULATIONS,
    EXPLAIN_COLUMNS,
    ResultColumn,
    result_table,
)
from nj_incentives.functions.table import CATALOG, adapter
from nj_incentives.version import LAW_CURRENT_TO, __version__

if TYPE_CHECKING:
    from nj_incentives.core.common import Explained

# =========================================================================== about


def _input_rule(
    kind: Cell, low: Cell, high: Cell, citation: Cell, rule: Cell, choices: Cell
) -> Any:
    from nj_incentives.core.inputs import InputKind, InputRule, as_choice, as_number

    where = "NJ_INPUT, docs/functions.md"
    chosen = InputKind(as_choice(kind, "kind", tuple(InputKind), where))
    bounds: list[Decimal | int | None] = [
        None if b is None else as_number(b, n, where) for n, b in (("low", low), ("high", high))
    ]
    if chosen is InputKind.COUNT:  # a count's bounds are whole numbers, as the law states them
        bounds = [None if b is None else int(b) for b in bounds]
    return InputRule(
        chosen,
        # a refusal always cites something: the call's citation, else this function's reference
        where if citation is None or not str(citation).strip() else str(citation),
        bounds[0],
        bounds[1],
        "" if rule is None else str(rule),
        tuple(c.strip() for c in str(choices or "").split("|") if c.strip()),
    )


def _read_cells(read: Any) -> Any:
    if isinstance(read, list):
        return [[_read_cells(cell) for cell in row] for row in read]
    if isinstance(read, Decimal):
        return float(read)
    return read


def _read_input(declared: Any, cell: Cell, shown: str) -> Any:
    """One cell (not blank) read by ``declared`` (a :class:`~.law.inputs.Input`), as the
    NJ_* functions read their arguments: error cells refused, dates from serials."""
    from nj_incentives.core.inputs import InputKind

    refuse_error_cells(cell, shown, declared.citation)
    if declared.kind is InputKind.DATE:
        cell = as_date_cell(cell, shown, declared.citation)
    return declared.parse(cell, shown)


@adapter(show=_read_cells)
def NJ_INPUT(
    kind: Cell,
    input_name: Cell,
    value: Cell = None,
    low: Cell = None,
    high: Cell = None,
    citation: Cell = None,
    rule: Cell = None,
    choices: Cell = None,
) -> Any:
    declared = _input_rule(kind, low, high, citation, rule, choices)
    argument = str(input_name)

    def one(cell: Cell, shown: str) -> Any:
        return None if is_blank(cell) else _read_input(declared, cell, shown)

    value = python_value(value)
    if not isinstance(value, (list, tuple)):
        return one(value, argument)
    rows = as_rows(value)
    width = max((len(row) for row in rows), default=0)
    return [
        [one(cell, f"{argument}[{i * width + j + 1}]") for j, cell in enumerate(row)]
        for i, row in enumerate(rows)
    ]


#: A range's address as NJ_INPUT_REFUSED takes it: ``'Part II base year'!D6:O255``.
_ADDRESS = re.compile(
    r"(?P<sheet>(?:'(?:[^']|'')+'|[^'!]+)!)?\$?(?P<col>[A-Za-z]{1,3})\$?(?P<row>[0-9]{1,7})"
    r"(?::\$?[A-Za-z]{1,3}\$?[0-9]{1,7})?"
)


def _cell_namer(where: str, width: int) -> Callable[[int, int], str]:
    """``named(i, j)``: the cell ``i`` rows down and ``j`` columns right of ``where``'s
    top left, as ``'Sheet'!F12`` when ``where`` is an address, else ``where[n]`` (n
    counting along rows ``width`` wide from 1, as NJ_INPUT names a range's cells)."""
    match = _ADDRESS.fullmatch(where.strip())
    if match is None:
        return lambda i, j: f"{where}[{i * width + j + 1}]"
    from nj_incentives.core.cells import cell_index, cell_name

    row, col = cell_index(match["col"] + match["row"])
    sheet = match["sheet"] or ""
    return lambda i, j: f"{sheet}{cell_name(row + i, col + j)}"


@adapter()
def NJ_INPUT_REFUSED(
    kind: Cell,
    input_name: Cell,
    value: Cell = None,
    low: Cell = None,
    high: Cell = None,
    citation: Cell = None,
    rule: Cell = None,
    choices: Cell = None,
) -> str:
    from nj_incentives.core.inputs import InputError

    declared = _input_rule(kind, low, high, citation, rule, choices)
    where = str(input_name)
    rows = as_rows(value)
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            if is_blank(cell):
                continue
            try:
                _read_input(declared, cell, where)
            except InputError:  # read again under the cell's own name, for the message
                named = _cell_namer(where, max(len(r) for r in rows))(i, j)
                try:
                    _read_input(declared, cell, named)
                except InputError as refused:
                    return str(refused)
    return ""


@adapter()
def NJ_INCENTIVES_VERSION(part: Cell = None) -> str:
    from nj_incentives.core.common import as_choice

    if part is None:
        return f"nj-incentives {__version__}; law current to: {LAW_CURRENT_TO}"
    chosen = as_choice(part, "part", ("version", "law"), "NJ_INCENTIVES_VERSION, docs/functions.md")
    return __version__ if chosen == "version" else LAW_CURRENT_TO


@adapter()
def NJ_INPUTS_HASH(kinds: Cell, *inputs: Cell) -> str:
    from nj_incentives.functions.inputs_hash import inputs_hash

    return inputs_hash(kinds, *inputs)


@adapter(show=lambda table: table)
def NJ_SCENARIOS(table: Cell) -> Any:
    try:
        from nj_incentives.scenarios.columns import ScenarioError
        from nj_incentives.scenarios.table import scenarios_table
    except ImportError as missing:  # e.g. Pyodide without numpy/pandas wheels
        raise MissingPackage(
            f"NJ_SCENARIOS needs numpy and pandas, which this Python does not have "
            f"({missing}): install pandas (in xlwings Lite: add it to requirements.txt), "
            "or run the table with nj-incentives scenarios"
        ) from None

    rows = as_rows(table)
    try:
        return scenarios_table(rows)
    except ScenarioError as error:
        citation = "NJ_SCENARIOS, docs/scenarios.md"
        raise input_error("table", rows[0] if rows else None, str(error), citation) from None


def _table(columns: Sequence[ResultColumn], rows: Sequence[Any]) -> list[list[CellResult]]:
    """A result table: the catalog's header row, then one row of cells per row."""
    return result_table(columns, rows)


def _explanation(result: Explained) -> list[list[CellResult]]:
    return _table(EXPLAIN_COLUMNS, result.steps)


@adapter(show=_explanation)
def NJ_EXPLAIN(function_name: Cell, *args: Cell) -> Explained:
    from nj_incentives.core.common import Explained

    chosen = str(function_name).strip().upper()
    if chosen not in CATALOG or chosen == "NJ_EXPLAIN":
        rule = "must be the name of an NJ_ function"
        raise input_error("function_name", function_name, rule, "NJ_EXPLAIN, docs/functions.md")
    result = CATALOG[chosen].result(*args)
    if not isinstance(result, Explained):
        rule = "gives a value without explanation steps"
        raise input_error("function_name", function_name, rule, "NJ_EXPLAIN, docs/functions.md")
    return result


#: Every NJ_* function, each bound to its :class:`~nj_incentives.functions.table.ExcelFunction`.
__all__ = list(CATALOG)


# =========================================================================== the programs'

# Each registered program's adapters, declared beside its calculations
# (``@FUNCTIONS.adapter`` of ``programs/<key>/functions.py``, joined in
# :data:`nj_incentives.functions.catalog.ADAPTERS`); the table's parameter check applies.
for _name, _declared in ADAPTERS.items():
    adapter(show=_declared.show)(_declared.compute)

# The table in catalog order: the programs' functions first, in the registry's order.
_ORDERED = {name: CATALOG.pop(name) for name in CALCULATIONS if name in CATALOG}
CATALOG.update(_ORDERED)
