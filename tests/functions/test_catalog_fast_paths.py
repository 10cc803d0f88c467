"""The adapters' fast paths give exactly what the general path gives (issue 12, item 8).

``Calculation.convert`` takes the common cells (a number, TRUE/FALSE or plain text in one
cell, a number in a date cell, a flat row of numbers or text) directly instead of through
``Argument.read``; ``result_table`` builds a table without ``ResultColumn.cell`` per cell;
``law.inputs.as_number`` reads an ordinary float or int directly. Each is checked here
against the general path, value for value and message for message.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.core.inputs import _bounded, as_number
from nj_incentives.functions.catalog import (
    CALCULATIONS,
    Calculation,
    ResultColumn,
    headers,
    result_table,
)
from nj_incentives.runtimes import xlwings_classic as excel

#: Cells as xlwings and the recalculation pass them: blanks, numbers (serials too),
#: booleans, text (numeric, dates, errors, blanks), flat rows and 2-D ranges.
_SCALARS = st.one_of(
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-1e6, max_value=3e6),
    st.integers(min_value=-(10**14), max_value=10**14),
    st.booleans(),
    st.sampled_from(
        ["", "  ", "#N/A", " #DIV/0! ", "#VALUE! x = 1: bad", "2024-01-01", "50%", "abc", "1,5"]
    ),
    st.text(max_size=6),
)
_CELLS = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=4),
    st.lists(st.lists(_SCALARS, min_size=1, max_size=3), min_size=1, max_size=3),
)


def _outcome(call: Any) -> Any:
    try:
        return ("value", call())
    except Exception as error:  # the same error, the same message
        return ("error", type(error).__name__, str(error))


def _general(calculation: Calculation, args: list[Any]) -> list[Any]:
    """What ``convert`` gave before its fast paths: every argument through ``read``."""
    citation = calculation.message_citation
    return [
        argument.read(value, citation)
        for argument, value in zip(calculation.arguments, args, strict=True)
    ]


@pytest.mark.parametrize(
    "name", [name for name, c in CALCULATIONS.items() if c.vararg is None and c.arguments]
)
@given(data=st.data())
def test_convert_gives_what_the_general_path_gives(name: str, data: st.DataObject) -> None:
    calculation = CALCULATIONS[name]
    args = [data.draw(_CELLS) for _ in calculation.arguments]
    fast = _outcome(lambda: calculation.convert(args, {}))
    general = _outcome(lambda: _general(calculation, args))
    if fast[0] == "error" and general[0] == "error":
        assert fast == general
    else:
        assert fast == general
        assert [type(v) for v in fast[1]] == [type(v) for v in general[1]]


@given(
    value=st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.floats(min_value=-1e13, max_value=1e13),
        st.floats(min_value=-1e-15, max_value=1e-15),
        st.integers(min_value=-(10**14), max_value=10**14),
    )
)
def test_as_number_reads_floats_and_ints_as_the_general_path(value: float | int) -> None:
    def general() -> Decimal:
        if value != value or value in (float("inf"), float("-inf")):
            return as_number(str(value), "x", "c")  # the general path's refusal
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        if isinstance(value, int) and abs(value) >= 10**13:
            return as_number(Decimal(value), "x", "c")
        return _bounded(number, value, "x", "c")

    fast = _outcome(lambda: as_number(value, "x", "c"))
    expected = _outcome(general)
    if fast[0] == "value":
        assert expected[0] == "value"
        assert str(fast[1]) == str(expected[1])
    else:
        assert expected[0] == "error"
        assert fast[2].split(":", 1)[1] == expected[2].split(":", 1)[1]


class _Row:
    def __init__(self, **fields: object) -> None:
        self.__dict__.update(fields)


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.decimals(allow_nan=False, allow_infinity=False, places=2, min_value=-(10**9)),
    st.text(max_size=3),
    st.dates(),
    st.floats(allow_nan=False, allow_infinity=False),
)


@pytest.mark.parametrize("width", [1, 3])
@given(data=st.data())
def test_result_table_is_the_columns_cells(width: int, data: st.DataObject) -> None:
    units = ["date", "money", "int", "fraction", "number", "text", "value"]
    columns = [
        ResultColumn(f"H{k}", f"f{k}", data.draw(st.sampled_from(units)), "doc")
        for k in range(width)
    ]
    rows = [
        _Row(**{column.field: data.draw(_VALUES) for column in columns})
        for _ in range(data.draw(st.integers(0, 4)))
    ]
    expected = [headers(columns)] + [[column.cell(row) for column in columns] for row in rows]
    old_cell = [  # ResultColumn.cell before it was split into the look-up and the display
        [headers(columns)]
        + [
            [
                (float(v) if isinstance(v, Decimal) else v)
                if c.unit == "value"
                else v
                if v is None or isinstance(v, bool | int | str | dt.date)
                else float(v)
                if c.unit in ("money", "fraction", "number")
                else v
                for c in columns
                for v in [getattr(row, c.field)]
            ]
            for row in rows
        ]
    ][0]
    got = result_table(columns, rows)
    assert got == expected == old_cell
    assert [[type(v) for v in r] for r in got] == [[type(v) for v in r] for r in old_cell]


def test_the_signature_xlwings_reads_is_the_adapters() -> None:
    import inspect

    for name in excel.CATALOG:
        function = getattr(excel, name)
        parameters = list(inspect.signature(function).parameters)
        assert parameters == list(inspect.signature(function.__wrapped__).parameters)
