"""The NJ_* calls of a recalculated workbook, each re-evaluated by the calculation core
from the arguments the engine passed."""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from nj_incentives.core.cells import cell_index
from nj_incentives.runtimes.spelling import base_name
from nj_incentives.support.formula import FunctionCall, function_calls
from nj_incentives.workpapers.memo.sheets import display
from nj_incentives.workpapers.recalc.engine import Recalculation, quote_sheet


@dataclass(frozen=True)
class Call:
    """One NJ_* call in a formula: its function and argument texts."""

    function: str
    arguments: tuple[str, ...]
    #: the call is what the formula returns (all of it, or a branch of an outer IF)
    returned: bool


@dataclass
class NJResult:
    """One NJ_* formula cell and what its call(s) computed."""

    sheet: str
    cell: str
    label: str
    formula: str
    call: Call
    #: argument name -> value as shown
    arguments: list[tuple[str, str]] = field(default_factory=list)
    result: Any = None
    #: "ok", "rejected" (the cell shows the function's message), "unused" (another
    #: branch applies), "unevaluated" (an argument is an expression)
    status: str = "ok"
    message: str = ""
    #: a nested call's own value as text (its cell shows the enclosing formula's): the
    #: memo's "Result" of that call; "" for the call the formula returns
    own: str = ""


def formula_calls(formula: str, known: Sequence[str]) -> list[Call]:
    """The NJ_* calls in a formula (``known``: the NJ_* names), outermost first; read by
    the tokenizer (:func:`nj_incentives.support.formula.function_calls`)."""
    text = formula[1:] if formula.startswith("=") else formula
    text = text.strip().removeprefix("{").removesuffix("}").lstrip("=")
    calls = function_calls(text)
    found: list[Call] = []
    for call in calls:
        base = base_name(call.name.upper(), known)
        if base is not None:
            found.append(Call(base, call.arguments, _returned(text, call, calls)))
    return found


def _returned(text: str, call: FunctionCall, calls: Sequence[FunctionCall]) -> bool:
    """Whether ``call`` is the formula's value: all of it, or the second or third argument
    of an outer IF."""
    if text[: call.start].strip() == "" and text[call.end :].strip() == "":
        return True
    outer = calls[0]
    if text[: outer.start].strip() or text[outer.end :].strip():
        return False
    if outer.name.upper() not in ("IF", "_XLFN.IF") or len(outer.arguments) < 2:
        return False
    return text[call.start : call.end].strip() in (a.strip() for a in outer.arguments[1:3])


_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")


class _Unevaluable(Exception):
    pass


def defined_names(recalc: Recalculation) -> dict[str, str]:
    """The workbook's defined names (upper-case) -> what they refer to (``Inputs!$C$5``),
    read from the recalculated bytes. The recalculation knows the value of a name only
    when it has one; a name of a blank cell is resolved through this."""
    import zipfile

    from defusedxml.ElementTree import fromstring

    if recalc.vetted is None:
        return {}
    with zipfile.ZipFile(io.BytesIO(recalc.vetted.data)) as archive:
        root = fromstring(archive.read("xl/workbook.xml"))
    from nj_incentives.workpapers.recalc.engine import shown_references

    # a name of a table computed on a companion sheet: the cells that show it (the memo
    # reads the workbook as shown, Recalculation.as_shown)
    return {
        str(element.get("name", "")).upper(): shown_references((element.text or "").strip())
        for element in root.iter()
        if str(element.tag).endswith("definedName") and element.get("localSheetId") is None
    }


def _argument_value(
    text: str, recalc: Recalculation, sheet: str, names: Mapping[str, str] | None = None
) -> Any:
    """An argument's value as the engine passed it: a literal, a cell, a range's rows or
    a defined name's value. Raises _Unevaluable for an expression."""
    t = text.strip()
    if t == "":
        return None
    if t.startswith('"') and t.endswith('"') and len(t) >= 2:
        return t[1:-1].replace('""', '"')
    if t.upper() in ("TRUE", "FALSE"):
        return t.upper() == "TRUE"
    if _NUMBER.match(t):
        number = float(t)
        return (
            int(number) if number.is_integer() and "." not in t and "e" not in t.lower() else number
        )
    reference = t if "!" in t else None
    if reference is None and re.fullmatch(r"\$?[A-Za-z]{1,3}\$?\d+(?::\$?[A-Za-z]{1,3}\$?\d+)?", t):
        reference = f"{quote_sheet(sheet)}!{t}"
    try:
        if reference is not None:
            return recalc.value(reference)
        if re.fullmatch(r"[A-Za-z_][\w.]*", t):
            for name, value in recalc.names.items():
                if name.upper() == t.upper():
                    return value
            target = (names or {}).get(t.upper(), "").lstrip("=")
            if "!" in target:
                return recalc.value(target)
    except ValueError as error:
        raise _Unevaluable(t) from error
    raise _Unevaluable(t)


def cell_label(recalc: Recalculation, sheet: str, cell: str) -> str:
    """The text in column A on the cell's row or just above it; for a table that starts
    with its own header row, above it (the table's heading, not a label beside it)."""
    row, _col = cell_index(cell)
    if (sheet, cell) in recalc.array_ranges and isinstance(recalc.values.get((sheet, cell)), str):
        row -= 1
    for above in range(row, max(row - 6, 0), -1):
        value = recalc.values.get((sheet, f"A{above}"))
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _argument_text(value: Any, show: Any) -> str:
    if isinstance(value, list):
        cells = [cell for row in value for cell in (row if isinstance(row, list) else [row])]
        filled = [cell for cell in cells if cell not in (None, "")]
        rows = len(value)
        cols = max((len(row) for row in value if isinstance(row, list)), default=1)
        preview = ", ".join(show(cell) for cell in filled[:6])
        more = ", ..." if len(filled) > 6 else ""
        return f"{rows} x {cols} range, {len(filled)} filled: {preview}{more}"
    return show(value) if value is not None else "(blank)"


def nj_results(recalc: Recalculation) -> list[NJResult]:
    """Every NJ_* formula cell of the workbook, in sheet and row order, with its call
    re-evaluated by the calculation core (see the module docstring)."""
    from nj_incentives.functions import CATALOG

    known = sorted(CATALOG)
    names = defined_names(recalc)
    order = {title: i for i, title in enumerate(recalc.sheets)}
    results: list[NJResult] = []
    for (sheet, cell), formula in sorted(
        recalc.formulas.items(),
        key=lambda item: (order.get(item[0][0], 0), *cell_index(item[0][1])),
    ):
        try:
            calls = formula_calls(formula, known)
        except ValueError:
            continue
        for call in calls:
            results.append(_evaluate(recalc, sheet, cell, formula, call, names))
    return results


def _evaluate(
    recalc: Recalculation,
    sheet: str,
    cell: str,
    formula: str,
    call: Call,
    names: Mapping[str, str],
) -> NJResult:
    from nj_incentives.core.cells import error_text, to_cell_values
    from nj_incentives.functions import CATALOG

    entry = CATALOG[call.function]
    found = NJResult(sheet, cell, cell_label(recalc, sheet, cell), formula, call)
    labels = [a.name for a in entry.arguments]
    if entry.vararg is not None:
        labels += [
            f"{entry.vararg.name}[{n}]" for n in range(1, len(call.arguments) - len(labels) + 1)
        ]
    shown_value = recalc.values.get((sheet, cell))
    try:
        args = [_argument_value(text, recalc, sheet, names) for text in call.arguments]
    except _Unevaluable as expression:
        found.status, found.message = "unevaluated", f"an argument is an expression ({expression})"
        return found
    kinds = {a.name: a.kind for a in entry.arguments}
    dated = ("date", "dates", "law")
    found.arguments = [
        (
            name,
            _argument_text(value, _show_date if kinds.get(name) in dated else display),
        )
        for name, value in zip(labels, args, strict=False)
    ]
    try:
        result = entry.result(*args)
    except Exception as error:
        message = error_text(error, call.function)
        if isinstance(shown_value, str) and shown_value == message:
            found.status, found.message = "rejected", message
        else:
            found.status = "unused"
            found.message = f"the cell shows {display(shown_value) or '(blank)'}"
        return found
    found.result = result
    if not call.returned:  # nested: its own value, not the enclosing cell's
        own = to_cell_values(entry.show(result))
        while isinstance(own, list) and own:
            own = own[0]
        if isinstance(result, dt.date):
            found.own = result.isoformat()
        elif isinstance(own, Decimal):
            found.own = display(float(own))
        elif not isinstance(own, list):
            found.own = display(own)
    if call.returned:
        cells = to_cell_values(entry.show(result))
        first = cells
        while isinstance(first, list) and first:
            first = first[0]
        if isinstance(first, Decimal):
            first = float(first)
        if not _same(first, shown_value):
            found.status = "unused"
            found.message = f"the cell shows {display(shown_value) or '(blank)'}"
    return found


def _show_date(value: Any) -> str:
    """A date argument: an Excel serial number shown as its date."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return display(value, "yyyy-mm-dd")
    return display(value)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a is b or a == b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b)) < 1e-9 * max(1.0, abs(float(a)))
    return bool(a == b)
