"""A recalculated workbook's outputs as numbers a program can read.

``calc --json``, the run stamps, ``diff`` and the Python API (:mod:`nj_incentives.api`)
give each row of the Outputs sheet as one record (the JSON Schema:
``nj_incentives/support/cli-output.schema.json``, docs/filling.md "Numbers a program can
read"):

- ``name``: the defined name of the figure: the output cell's own name (``CapApplies``,
  ``YearsOverLimit``), else the name its formula shows (``=TotalGrant``) or the name of
  the cell it reads; every output of the shipped templates has one (null only in a
  workbook of another tool's that reads an unnamed cell); ``cell`` always says where it
  is (``Outputs!C7``);
- ``label`` and ``unit`` as the sheet shows them;
- ``value``: the value itself: a number for an amount, a count, a ratio or a percentage
  (0.5 for 50%; money to the cent), an ISO date (``"2023-04-01"``) for a date, true/false
  for a check, text for a verdict; null when the cell shows an error, the error's text
  then in ``error``;
- ``display``: the text the workbook shows (``"1,650,000.00"``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nj_incentives.workpapers.recalc.engine import CellValue, Recalculation

__all__ = ["json_value", "output_records"]

_NAME = re.compile(r"=?\s*([A-Za-z_\\][A-Za-z0-9_.]*)\s*")
_NUMBER_UNITS_INT = ("years", "year", "positions", "employees", "months", "days", "count")


def json_value(value: CellValue, unit: str, messages: frozenset[str] = frozenset()) -> Any:
    """(value, error) of a cell as JSON: a number, an ISO date, true/false, text; or
    (None, the error's text)."""
    from nj_incentives.core.cells import date_from_serial
    from nj_incentives.workpapers.recalc.engine import ExcelError

    if isinstance(value, ExcelError):
        return None, value.code
    if isinstance(value, str) and value in messages:
        return None, value
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value, None
    number = float(value)
    if unit == "date":
        day = date_from_serial(number)
        return (day.isoformat() if day is not None else number), None
    if unit == "$":
        return round(number, 2), None
    if number.is_integer() and (unit in _NUMBER_UNITS_INT or isinstance(value, int)):
        return int(number), None
    return number, None


def _name_of(recalc: Recalculation, cell: str, refers: dict[str, str]) -> str | None:
    """The defined name of the output in ``Outputs!<cell>``: its own, or the name its
    formula shows; None if neither."""
    column, row = re.fullmatch(r"([A-Z]+)(\d+)", cell).groups()  # type: ignore[union-attr]
    own = {f"OUTPUTS!${column}${row}", f"OUTPUTS!{column}{row}", f"'OUTPUTS'!${column}${row}"}
    written = {name.upper(): name for name in recalc.names}
    for upper, target in refers.items():
        if target.upper() in own:
            return written.get(upper, upper)
    formula = recalc.formulas.get(("Outputs", cell), "")
    match = _NAME.fullmatch(formula)
    if match and match.group(1).upper() in refers:
        return written.get(match.group(1).upper(), match.group(1))
    target = formula.lstrip("=").strip().upper()  # a cell of another sheet that has a name
    if re.fullmatch(r"'?[^'!]+'?!\$?[A-Z]{1,3}\$?\d+", target):
        plain = target.replace("$", "").replace("'", "")
        for upper, refers_to in refers.items():
            if refers_to.upper().replace("$", "").replace("'", "") == plain:
                return written.get(upper, upper)
    return None


def output_records(recalc: Recalculation, sheet: str = "Outputs") -> list[dict[str, Any]]:
    """Each output of the workbook (a row of ``sheet`` with a label in A and a value in
    C) as a record: name, cell, label, unit, value, display, error (module doc)."""
    from nj_incentives.workpapers.memo import labelled_values, number_formats, sheet_rows
    from nj_incentives.workpapers.memo.calls import defined_names

    shown = iter(labelled_values(recalc, number_formats(recalc), sheet))
    refers = defined_names(recalc)
    messages = frozenset(error.message for error in recalc.function_errors)
    found = []
    for row, cells in sorted(sheet_rows(recalc, sheet).items()):
        if 1 not in cells or 3 not in cells:
            continue
        _label, _unit, text = next(shown)  # the same rows, in the same order
        cell = f"C{row}"
        unit = str(cells.get(2, ""))
        raw = cells[3]
        value, error = json_value(raw, unit, messages)
        record: dict[str, Any] = {
            "name": _name_of(recalc, cell, refers),
            "cell": f"{sheet}!{cell}",
            "label": str(cells[1]),
            "unit": unit,
            "value": value,
            "display": text,
        }
        if error is not None:
            record["error"] = error
        found.append(record)
    return found
