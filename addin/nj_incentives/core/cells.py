"""Cell conventions: how worksheet cells become the core's inputs and results become cells.

The same in every runtime (classic add-in, xlwings Lite, xlwings Server, the headless
recalculation, the memo, the scenario table); nothing here imports xlwings, and of the core
(:mod:`nj_incentives.core`) only its input readings' blank test is imported until a message
is raised.

- A blank optional argument takes the core's default; a blank required argument is an
  error, never a zero.
- Percentages are fractions (a 50% cell holds 0.5); a whole number such as 50 is refused
  with the hint "did you mean 50%?".
- Dates are Excel date serial numbers (45292 is 2024-01-01); date/datetime objects and
  ISO text ("2024-01-01") are accepted too.
- Booleans: TRUE/FALSE, 1/0, Yes/No. Text arguments are case-insensitive.
- "One per year" arguments take a row or a column; trailing blank cells are ignored.
- An error cell (#N/A ...) or the error text of a failed NJ_ function is refused as an
  input, never read as a blank.
- Money is returned as a number (the float of the exact ``Decimal``); tables spill as one
  array with a header row; dates in tables are ``date`` objects, which xlwings writes as
  date cells (:func:`to_cell_values` turns them into serial numbers for an engine without
  xlwings).

Errors: a bad input never yields a number and never a traceback. The message
(:func:`error_message`) is short: ``argument = value: rule (citation)``; outside Office.js a
cell shows it as ``"#VALUE! " + message`` (:func:`error_text`).
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeAlias

# the one blank test (stdlib only: the core's rules and pydantic stay unimported here)
from nj_incentives.core.inputs import is_blank as blank_value

if TYPE_CHECKING:
    from nj_incentives.core.common import InputError

__all__ = [
    "ERROR_PREFIX",
    "EXCEL_ERRORS",
    "Cell",
    "CellResult",
    "MissingPackage",
    "NonFiniteResult",
    "as_date_cell",
    "as_rows",
    "as_scalar",
    "as_table",
    "as_vector",
    "cell_index",
    "cell_name",
    "column_letters",
    "date_from_serial",
    "error_message",
    "error_text",
    "finite",
    "formula_text",
    "given",
    "input_error",
    "is_blank",
    "money",
    "number",
    "python_value",
    "quote_sheet",
    "range_bounds",
    "refuse_error_cells",
    "serial_from_date",
    "serial_to_date",
    "to_cell_values",
    "trim_blanks",
    "verdict",
]

#: What one argument may hold: a scalar, a range (list of lists, or a flat list), None.
Cell: TypeAlias = Any
#: What a function returns to the sheet: a scalar or a list of rows.
CellResult: TypeAlias = Any

#: Starts the text a function returns instead of raising (classic add-in, plain calls).
ERROR_PREFIX = "#VALUE! "


# =========================================================================== errors


class MissingPackage(RuntimeError):
    """A function needs a package this Python lacks; its text is the whole message."""


def error_message(exc: BaseException, function: str = "") -> str:
    """The short message for a failed call: never a traceback.

    An input error from the core reads ``argument = value: rule (citation)``; anything
    else is unexpected and reads ``NJ_X: unexpected ErrorType: first line``.
    """
    from nj_incentives.core.common import InputError

    if isinstance(exc, InputError | MissingPackage):
        return str(exc)
    first_line = (str(exc).strip().splitlines() or [""])[0][:200]
    where = f"{function}: " if function else ""
    return f"{where}unexpected {type(exc).__name__}: {first_line}".rstrip(": ")


def error_text(exc: BaseException, function: str = "") -> str:
    """The text a cell shows for a failed call outside Office.js: ``#VALUE! message``."""
    return ERROR_PREFIX + error_message(exc, function)


def input_error(argument: str, value: object, rule: str, citation: str) -> InputError:
    """The core's input error (imported only when one is raised)."""
    from nj_incentives.core.common import InputError

    return InputError(argument, value, rule, citation)


# =========================================================================== cells in


def python_value(value: Cell) -> Cell:
    """numpy arrays and scalars (the formulas engine passes them) as plain Python values."""
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return value.tolist()
    return value


def is_blank(value: Cell) -> bool:
    """An empty cell, an empty text (:func:`nj_incentives.core.inputs.is_blank`), or a range
    of nothing but those."""
    if isinstance(value, (list, tuple)):
        return all(is_blank(item) for item in value)
    return blank_value(value)


def as_rows(value: Cell) -> list[list[Cell]]:
    """Any cell shape as a list of rows: a scalar is 1x1, a flat list is one row."""
    value = python_value(value)
    if not isinstance(value, (list, tuple)):
        return [[value]]
    if not value or not isinstance(value[0], (list, tuple)):
        return [list(value)]
    return [list(python_value(row)) if isinstance(row, (list, tuple)) else [row] for row in value]


def trim_blanks(values: list[Cell]) -> list[Cell]:
    """Without its trailing blank cells."""
    end = len(values)
    while end and is_blank(values[end - 1]):
        end -= 1
    return values[:end]


#: Excel's error values, as xlwings passes an error cell with ``err_to_str``.
EXCEL_ERRORS = frozenset(
    [
        "#NULL!",
        "#DIV/0!",
        "#VALUE!",
        "#REF!",
        "#NAME?",
        "#NUM!",
        "#N/A",
        "#GETTING_DATA",
        "#SPILL!",
        "#CALC!",
        "#FIELD!",
        "#BLOCKED!",
        "#CONNECT!",
        "#BUSY!",
        "#UNKNOWN!",
        "#PYTHON!",
    ]
)


def refuse_error_cells(value: Cell, argument: str, citation: str) -> None:
    """An error cell, or the error text of a failed NJ_ function, is never an input.

    Without this, an error in an optional argument would arrive as a blank cell and
    silently take the default.
    """
    value = python_value(value)
    if isinstance(value, (list, tuple)):
        for cell in value:
            refuse_error_cells(cell, argument, citation)
    elif isinstance(value, str):
        text = value.strip()
        if text in EXCEL_ERRORS:
            raise input_error(argument, text, "the cell holds an error value", citation)
        if text.startswith(ERROR_PREFIX):
            rule = f"the cell holds an error ({text.removeprefix(ERROR_PREFIX)})"
            raise input_error(argument, "#VALUE!", rule, citation)


def as_scalar(value: Cell, argument: str, citation: str) -> Cell:
    """One cell's value (a 1x1 range is its cell); a larger range is an error."""
    rows = as_rows(value)
    if len(rows) == 1 and len(rows[0]) == 1:
        return rows[0][0]
    cells = [cell for row in rows for cell in row]
    raise input_error(argument, cells, "must be a single cell, not a range", citation)


#: Excel's serial 60 is 1900-02-29, a day that does not exist (kept for Lotus 1-2-3).
_LEAP_BUG_SERIAL = 60
_SERIAL_EPOCH = dt.date(1899, 12, 30)  # serial 0, for serials from 61 (1900-03-01) on
_SERIAL_MAX = 2958465  # 9999-12-31


def date_from_serial(serial: float) -> dt.date | None:
    """An Excel (1900 date system) serial number as a date, any time of day dropped; None
    when it is no date (outside 1 to 2958465, or 60: Excel's 1900-02-29)."""
    if not math.isfinite(serial) or not 1 <= serial <= _SERIAL_MAX:
        return None
    whole = math.floor(serial)
    if whole == _LEAP_BUG_SERIAL:
        return None
    days = whole if whole > _LEAP_BUG_SERIAL else whole + 1
    return _SERIAL_EPOCH + dt.timedelta(days=days)


def serial_to_date(serial: float, argument: str, citation: str) -> dt.date:
    """A serial number as a date, or the input error saying why it is none."""
    day = date_from_serial(serial)
    if day is not None:
        return day
    if math.isfinite(serial) and math.floor(serial) == _LEAP_BUG_SERIAL:
        raise input_error(argument, serial, "is 1900-02-29, a day that does not exist", citation)
    rule = "must be a date (an Excel date serial number from 1 to 2958465)"
    raise input_error(argument, serial, rule, citation)


def as_date_cell(value: Cell, argument: str, citation: str) -> Cell:
    """A date cell: a serial number becomes a date; dates and ISO text pass to the core."""
    value = python_value(value)
    if is_blank(value):
        return None
    if isinstance(value, bool):
        raise input_error(argument, value, "must be a date, not TRUE/FALSE", citation)
    if isinstance(value, numbers.Real):
        return serial_to_date(float(value), argument, citation)
    return value


def as_vector(value: Cell, argument: str, citation: str) -> list[Cell]:
    """One value per year (or period, or employee): a row or a column, trailing blanks cut."""
    rows = as_rows(value)
    if len(rows) == 1:
        values = rows[0]
    elif all(len(row) == 1 for row in rows):
        values = [row[0] for row in rows]
    else:
        shape = f"{len(rows)} rows x {max(len(row) for row in rows)} columns"
        rule = f"must be one row or one column (one value each), not {shape}"
        raise input_error(argument, None, rule, citation)
    return [None if is_blank(cell) else cell for cell in trim_blanks(values)]


def as_table(value: Cell, argument: str, citation: str) -> list[list[Cell]]:
    """A table of cells without its trailing blank rows and trailing blank columns."""
    rows = trim_blanks(as_rows(value))
    width = max((len(trim_blanks(list(row))) for row in rows), default=0)
    return [[None if is_blank(cell) else cell for cell in row[:width]] for row in rows]


def given(**arguments: Cell) -> dict[str, Cell]:
    """The optional arguments that are not blank (blank ones take the core's default)."""
    return {name: value for name, value in arguments.items() if value is not None}


# =========================================================================== cells out


def money(amount: Decimal) -> float:
    """A money result for a cell: the float of the exact Decimal."""
    return float(amount)


def number(value: Decimal | int | None) -> float | int | None:
    if value is None or isinstance(value, int):
        return value
    return float(value)


class NonFiniteResult(ArithmeticError):
    """A result that is not a finite number: a defect, never shown as a number."""


def finite(result: CellResult, function: str) -> CellResult:
    """``result`` unchanged if every number in it is finite; inf and NaN are never a cell
    value (nor valid JSON on the Office.js path), so they raise instead."""
    if isinstance(result, list):
        for item in result:
            if type(item) is list:  # a row: its cells directly
                for cell in item:
                    kind = type(cell)
                    if kind is float:
                        if not math.isfinite(cell):
                            raise _not_finite(function)
                    elif kind in _NOT_FLOAT:  # text, a date, a blank: nothing to check
                        continue
                    elif isinstance(cell, float):
                        if not math.isfinite(cell):
                            raise _not_finite(function)
                    elif isinstance(cell, list):
                        finite(cell, function)
            else:
                finite(item, function)
    elif isinstance(result, float) and not math.isfinite(result):
        raise _not_finite(function)
    return result


#: Cell values that are no float nor hold one (a float subclass, numpy's, is checked).
_NOT_FLOAT = frozenset({str, int, bool, type(None), dt.date, dt.datetime})


def _not_finite(function: str) -> NonFiniteResult:
    return NonFiniteResult(f"{function} computed a value that is not a finite number")


def verdict(ok: bool, reasons: Sequence[str]) -> str:
    """ "OK", or every reason, separated by "; "."""
    return "OK" if ok else "; ".join(reasons)


def serial_from_date(day: dt.date | dt.datetime) -> float | int:
    """A date as Excel's serial number (1900 date system): 2024-01-01 -> 45292; a
    datetime keeps its time of day as the fraction (2024-01-01 12:00 -> 45292.5)."""
    if isinstance(day, dt.datetime):
        midnight = dt.datetime.combine(day.date(), dt.time(), tzinfo=day.tzinfo)
        whole = serial_from_date(day.date())
        return whole + (day - midnight) / dt.timedelta(days=1) if day != midnight else whole
    days = (day - _SERIAL_EPOCH).days
    return days if days > _LEAP_BUG_SERIAL else days - 1


def to_cell_values(result: CellResult) -> CellResult:
    """A function's result as pure cell values: dates become Excel serial numbers.

    xlwings renders ``date`` objects as dates itself; an engine without xlwings (the
    headless recalculation) needs the number a date cell holds.
    """
    if isinstance(result, dt.date):
        return serial_from_date(result)
    if isinstance(result, list):
        return [to_cell_values(item) for item in result]
    return result


def formula_text(value: Cell) -> str:
    """A value as it is written in a formula: numbers, "text", TRUE, DATE(), {arrays}."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.date):
        return f"DATE({value.year},{value.month},{value.day})"
    if isinstance(value, str):
        return '"' + value.replace('"', '""') + '"'
    if isinstance(value, (list, tuple)):
        rows = as_rows(value)
        return "{" + ";".join(",".join(formula_text(cell) for cell in row) for row in rows) + "}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# =========================================================================== addresses

_A1 = re.compile(r"^\$?([A-Za-z]{1,3})\$?(\d+)$")


#: A sheet title a formula may write without quotes: letters, digits and ``_``, not
#: starting with a digit.
_BARE_SHEET = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: ... unless it reads as a cell reference: A1 style (``FY2024``, ``AB12``) or R1C1
#: style (``R``, ``C``, ``R2C3``, ``RC``).
_CELL_LIKE = re.compile(r"[A-Za-z]{1,3}[0-9]+|[Rr][0-9]*[Cc]?[0-9]*|[Cc][0-9]*")


def quote_sheet(title: str) -> str:
    """A sheet title as a formula or a reference writes it: ``Inputs`` as it is;
    ``'BEIP inputs'``, ``'xlwings.conf'``, ``'2024'``, ``'FY2024'`` (a cell's name)
    between single quotes, a quote inside doubled (``'O''Brien'``)."""
    if _BARE_SHEET.fullmatch(title) and not _CELL_LIKE.fullmatch(title):
        return title
    return "'" + title.replace("'", "''") + "'"


def column_letters(col: int) -> str:
    """A 1-based column number as its letters: 1 -> A, 28 -> AB."""
    letters = ""
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def cell_name(row: int, col: int) -> str:
    """A 1-based (row, column) as an A1 address: (2, 3) -> C2."""
    return f"{column_letters(col)}{row}"


def cell_index(cell: str) -> tuple[int, int]:
    """An A1 address (``$`` allowed) as a 1-based (row, column): C2 -> (2, 3)."""
    match = _A1.match(cell)
    if not match:
        raise ValueError(f"not a cell reference: {cell!r}")
    letters, row = match.groups()
    col = 0
    for ch in letters.upper():
        col = col * 26 + ord(ch) - 64
    return int(row), col


def range_bounds(cells: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """An A1 range (or one cell) as its top-left and bottom-right (row, column)."""
    first, _, last = cells.partition(":")
    start = cell_index(first)
    end = cell_index(last) if last else start
    return (min(start[0], end[0]), min(start[1], end[1])), (
        max(start[0], end[0]),
        max(start[1], end[1]),
    )
