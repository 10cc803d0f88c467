"""``scenarios_table``: the scenario runner on a worksheet range, for ``NJ_SCENARIOS(table)``.

The range's first row holds the column names of ``docs/scenarios.md``; each further row
is a scenario. The result is the results table as one array with a header row (the
``id``, ``label`` and ``error`` columns, then the results): it spills from one cell.

Cell conventions, as in the other NJ_* functions: a blank cell is blank (an empty string
too); percentages are fractions; dates are Excel serial numbers (1900 date system) in
the date columns (ISO text and date objects are accepted too); money comes back as
numbers (the float of the exact amount), a blank result as an empty cell. A bad row
never fails the call: its message is in its ``error`` cell. A bad table (an unknown
column, a duplicate or missing header) raises :class:`ScenarioError` with the reason.
"""

from __future__ import annotations

import functools
import logging
import math
import numbers
from collections.abc import Sequence
from decimal import Decimal

import numpy as np
import pandas as pd

from nj_incentives.core.cells import date_from_serial
from nj_incentives.scenarios.columns import (
    Kind,
    Layout,
    OutKind,
    OutputSpec,
    ScenarioError,
    check_columns,
    input_spec,
)
from nj_incentives.scenarios.convert import decimal_cents, is_blank, raw_cells

__all__ = ["SMALL_ROWS", "scenarios_table"]

logger = logging.getLogger("nj_incentives.scenarios.runner")


def _serial_date(value: object) -> object:
    """An Excel serial number as a date; anything else as it is (the core judges it)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return value
    day = date_from_serial(float(value))
    return value if day is None else day


def _header(rows: Sequence[Sequence[object]]) -> list[str]:
    if not rows or not rows[0]:
        raise ScenarioError("the table needs a header row of column names")
    header = []
    for i, cell in enumerate(rows[0], 1):
        if is_blank(cell):
            header.append("")
            continue
        if not isinstance(cell, str):
            raise ScenarioError(f"header cell {i} ({cell!r}) is not a column name")
        header.append(cell.strip())
    return header


_NUMBERS = (int, float)


def _column(values: list[object], kind: Kind | None) -> np.ndarray:
    """A column of cells as the runner reads it: numbers as floats where all are numbers."""
    # a number (int, or float but NaN) is never blank: is_blank only for the others
    cells = [
        v if type(v) is int or (type(v) is float and v == v) else None if is_blank(v) else v
        for v in values
    ]
    if kind is Kind.DATE:
        return np.array([_serial_date(v) for v in cells], dtype=object)
    numeric = all(
        v is None
        or type(v) in _NUMBERS
        or (isinstance(v, numbers.Real) and not isinstance(v, bool))
        for v in cells
    )
    if numeric and kind not in (Kind.BOOL, Kind.CHOICE, None):
        return np.array([np.nan if v is None else float(v) for v in cells], dtype=np.float64)  # type: ignore[arg-type]
    return np.array(cells, dtype=object)


def _cell(value: object) -> object:
    """A result as a cell: blanks (NaN, NA, None) empty, numpy scalars as Python values."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, np.generic):
        value = value.item()
        if isinstance(value, float) and math.isnan(value):
            return None
    return value


def _cells(array: object) -> list[object]:
    """A result column as cells, the same as :func:`_cell` of each value, a column at a
    time: numbers of a numpy column or a nullable (masked) one read in one pass, blanks
    (NaN, the mask, a categorical's missing code) set by index."""
    if isinstance(array, pd.Categorical):
        categories = [_cell(c) for c in array.categories]
        return [None if code < 0 else categories[code] for code in array.codes.tolist()]
    if isinstance(array, pd.arrays.IntegerArray | pd.arrays.BooleanArray):
        kind = np.int64 if isinstance(array, pd.arrays.IntegerArray) else np.bool_
        values: list[object] = array.to_numpy(dtype=kind, na_value=0).tolist()
        blank = array.isna()
    else:
        plain = np.asarray(array)
        if plain.dtype.kind != "f":
            return [_cell(value) for value in plain.tolist()]
        values = plain.tolist()
        blank = np.isnan(plain)
    for i in np.flatnonzero(blank).tolist():
        values[i] = None
    return values


#: A table of at most this many rows runs row by row through the scalar core
#: (:func:`_small_table`), cheaper there than starting the vectorized runner
#: (docs/performance.md, "NJ_SCENARIOS through the dispatch"); the same result cells.
SMALL_ROWS = 8


def scenarios_table(
    rows: Sequence[Sequence[object]], *, small: bool | None = None
) -> list[list[object]]:
    """The scenario runner on a table with a header row: the results with a header row.

    ``rows[0]`` names the columns (``docs/scenarios.md``); blank columns (an empty
    header and no values) are ignored, as are rows with every cell blank at the end.
    ``small``: run the rows through the scalar core (True) or the vectorized runner
    (False); None: the scalar core for at most :data:`SMALL_ROWS` rows. Both give the
    same cells (a hypothesis property, tests/scenarios/test_scenarios_small.py).
    """
    from nj_incentives.scenarios.runner import scenario_columns

    header = _header(rows)
    body = [list(row) + [None] * (len(header) - len(row)) for row in rows[1:]]
    while body and all(is_blank(v) for v in body[-1]):
        body.pop()
    keep_index = []
    for i, name in enumerate(header):
        if name:
            keep_index.append(i)
        elif any(not is_blank(row[i]) for row in body):
            raise ScenarioError(f"column {i + 1} has values but no name in the header row")
    names = [header[i] for i in keep_index]
    check_columns(names)
    data = {}
    for i, name in zip(keep_index, names, strict=True):
        found = input_spec(name)
        data[name] = _column([row[i] for row in body], found[0].kind if found else None)
    if small if small is not None else len(body) <= SMALL_ROWS:
        return _small_table(data, len(body))
    if "id" not in data:  # the row number from 1, as run_scenarios gives it
        data["id"] = np.arange(1, len(body) + 1)
    frame = pd.DataFrame(data, index=pd.RangeIndex(len(body)))
    # run_scenarios(frame)'s columns, not made a frame; plain columns read from data
    results = scenario_columns(frame, data)
    header_row: list[object] = [str(c) for c in results]
    columns = [_cells(c.array if isinstance(c, pd.Series) else c) for c in results.values()]
    return [header_row, *map(list, zip(*columns, strict=True))]


def _small_table(data: dict[str, np.ndarray], n: int) -> list[list[object]]:
    """The results of a few rows, each row through the scalar core
    (:func:`~nj_incentives.scenarios.scalar.run_row`, the reference the kernel is held
    to), in the cells :func:`scenarios_table` makes of :func:`run_scenarios`' frame: its
    layout (:func:`~nj_incentives.scenarios.runner.layout_of_columns`, the same
    readings), its columns (``id``, ``label``, ``error``, the results), each cell as the
    frame holds it (money the float of its cents, a blank result an empty cell)."""
    from nj_incentives.scenarios import scalar
    from nj_incentives.scenarios.runner import failed_row_message, layout_of_columns

    layout = layout_of_columns(data, n)
    specs = _outputs(layout)
    raw: dict[str, list[object]] = {}
    triggers: dict[str, list[str]] = {section: [] for section in layout.sections}
    for name, column in data.items():
        found = input_spec(name)
        if found is None:
            continue
        raw[name] = raw_cells(column)
        if found[0].trigger and found[0].section in triggers:
            triggers[found[0].section].append(name)
    passed = [
        [_cell(value) for value in data[name].tolist()] for name in ("id", "label") if name in data
    ]
    if "id" not in data:
        passed.insert(0, list(range(1, n + 1)))
    header: list[object] = ["id", *(["label"] if "label" in data else []), "error"]
    out: list[list[object]] = [header + [spec.name for spec in specs]]
    for i in range(n):
        values = {name: column[i] for name, column in raw.items()}
        present = {
            section: any(values[name] is not None for name in names)
            for section, names in triggers.items()
        }
        try:
            results, messages = scalar.run_row(values, layout, present)
            error = " | ".join(messages) or None
        except Exception as exc:  # not an input error: still only this row's
            logger.error("scenario row failed unexpectedly", exc_info=exc)
            results, error = {}, failed_row_message(exc)
        row = [column[i] for column in passed]
        row.append(error)
        row += [_result_cell(spec, results.get(spec.name)) for spec in specs]
        out.append(row)
    return out


@functools.lru_cache(maxsize=64)
def _outputs(layout: Layout) -> tuple[OutputSpec, ...]:
    """The result columns of a layout (:meth:`Layout.outputs`), kept: a layout is frozen."""
    return tuple(layout.outputs())


def _result_cell(spec: OutputSpec, value: object) -> object:
    """One result of the scalar path as the cell of the runner's frame (``_Sink.put_value``
    then :func:`_cells`): money the float of its cents, a flag a bool, a text one of its
    column's categories, a blank (None, a NaN ratio) empty."""
    if value is None:
        return None
    if spec.categories:
        return spec.categories[spec.categories.index(str(value))]
    if spec.kind is OutKind.MONEY:
        assert isinstance(value, Decimal)
        cents = decimal_cents(value)
        # the frame's np.float64(cents) / 100: the same double while cents is exact
        return cents / 100 if abs(cents) < 2**53 else float(np.float64(cents) / 100)
    if spec.kind is OutKind.FLOAT:
        number = float(value)  # type: ignore[arg-type]
        return None if math.isnan(number) else number
    if spec.kind is OutKind.BOOL:
        return bool(int(value))  # type: ignore[call-overload]
    return int(value)  # type: ignore[call-overload]
