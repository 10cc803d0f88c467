"""Calling the NJ_* functions the way Office.js does (xlwings Lite and xlwings Server).

``xlwings.server.custom_functions_call`` receives what Excel sends: every argument a
2-D list, whole numbers as ints (JavaScript has no 3.0), blanks as None, dates as serial
numbers; an omitted optional argument is None. The environment of ``tests/conftest.py``
(``XLWINGS_ON_SERVER=true``, the noncommercial licence key) makes ``xw.func`` the
Office.js decorator, so ``nj_incentives.excel`` carries the Office.js metadata here.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import xlwings as xw
import xlwings.server

from nj_incentives.runtimes import xlwings_classic as excel

EXCEL_EPOCH = dt.date(1899, 12, 30)


def serial(day: dt.date) -> int:
    """Excel's serial number of a date after 1900-02-28."""
    return (day - EXCEL_EPOCH).days


def js(value: object) -> object:
    """One cell as JavaScript sends it."""
    if isinstance(value, dt.date):
        return serial(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Decimal):
        return js(float(value))
    return value


def office_arg(value: object, column: bool = False) -> list[list[object]] | None:
    """One argument as Office.js sends it: a 2-D list (a flat list is a row, or a column)."""
    if value is None:
        return None
    if isinstance(value, list):
        if value and isinstance(value[0], list):
            rows = value
        elif column:
            rows = [[cell] for cell in value]
        else:
            rows = [value]
        return [[js(cell) for cell in row] for row in rows]
    return [[js(value)]]


def payload(name: str, args: Sequence[object]) -> dict[str, Any]:
    return {
        "client": "Office.js",
        "func_name": name,
        "args": list(args),
        "caller_address": "Sheet1!B2",
        "session_id": "test",
        "culture_info_name": "en-US",
        "date_format": "M/d/yyyy",
        "version": xw.__version__,
        "runtime": "1.4",
    }


def office_args(name: str, args: Sequence[object], column: bool = False) -> list[object]:
    """All arguments of a call: omitted optional ones as None, repeated ones as one list."""
    entry = excel.CATALOG[name]
    count = len(entry.arguments)
    shaped: list[object] = [office_arg(value, column) for value in args[:count]]
    shaped += [None] * (count - len(shaped))
    if entry.vararg is not None:
        shaped.append([office_arg(value, column) for value in args[count:]])
    return shaped


def call(name: str, *args: object, column: bool = False) -> Any:
    """The function's result as Office.js receives it (exceptions propagate)."""
    return call_raw(name, office_args(name, args, column))


def call_raw(name: str, args: Sequence[object]) -> Any:
    return asyncio.run(xlwings.server.custom_functions_call(payload(name, args), excel))


def cell_value(cell: object) -> object:
    """A returned cell as a plain value: a date cell (FormattedNumber) as its serial."""
    if isinstance(cell, dict) and cell.get("type") == "FormattedNumber":
        return cell["basicValue"]
    return cell


NA = {"type": "Error", "basicValue": "#N/A", "errorType": "NotAvailable"}

#: Bad inputs as Office.js sends them: (function, payload args, part of the message).
BAD_CALLS: list[tuple[str, list[object], str]] = [
    (
        "NJ_BEIP_GRANT",
        office_args("NJ_BEIP_GRANT", (1000000, 50)),
        "pct = 50: a percentage is a fraction (50% = 0.5); did you mean 50%?",
    ),
    ("NJ_BEIP_GRANT", office_args("NJ_BEIP_GRANT", (-5, 0.2)), "withholdings = -5:"),
    ("NJ_BEIP_GRANT", [[[NA]], [[0.2]], None, None, None], "withholdings = '#N/A':"),
    ("NJ_BEIP_GRANT", office_args("NJ_BEIP_GRANT", (None, 0.2)), "withholdings"),
    ("NJ_ERTC_CREDIT", office_args("NJ_ERTC_CREDIT", (10, 3)), "credit_year = 3:"),
    (
        "NJ_BEIP_CONVERSION_SCHEDULE",
        office_args("NJ_BEIP_CONVERSION_SCHEDULE", (2007, 1000)),
        "accrual_year = 2007:",
    ),
    (
        "NJ_EXPLAIN",
        office_args("NJ_EXPLAIN", ("NJ_NOTHING", 1)),
        "function_name = 'NJ_NOTHING':",
    ),
    ("NJ_SCENARIOS", [[["id", "bogus"], ["A", 1]]], "unknown scenario column"),
]
