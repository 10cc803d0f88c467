"""Recalculate every formula of a workbook without Excel, with the ``formulas`` engine.

Why ``formulas`` (measured in ``docs/performance.md``, "Headless recalculation"): it is
the slower of the two Python engines that load custom functions, but it reads
``openpyxl`` 3.1 workbooks as they are (``pycel`` 1.0b30 needs a patch of its reader),
it is maintained, its native function coverage is broad, and an error inside a custom
function is an ordinary Excel error that ``IFERROR`` and ``ISERROR`` see.

How a workbook is recalculated:

1. :func:`~nj_incentives.workpapers.recalc.safety.vet_workbook` checks the file (size, zip bombs,
   XML entities) and keeps its bytes; the engine only ever reads those bytes, from a
   private copy.
2. The NJ_* names used in the formulas are found and registered with the engine, in
   every form a saved workbook may spell them: ``NJ_BEIP_GRANT`` (classic add-in),
   ``XLWINGS.NJ_BEIP_GRANT`` (Office.js namespace, as typed), ``_xldudf_XLWINGS_NJ_...``
   (Office.js, as saved), ``_xludf.NJ_...`` and ``_xll.NJ_...``.
3. Each custom function is served by the same Python callable Excel calls, through an
   adapter that passes arguments as Office.js does (a single cell as a value, a range as
   a list of rows, a blank as ``None``, a date as its serial number) and turns the
   result back into cells (a table fills the array formula's range; a ``Decimal`` is a
   number; a date is its serial number).
4. An argument holding an Excel error is returned as that error without calling the
   function (as Excel's own functions do): an error never turns into a default value.
   An exception raised by the function (an invalid input) becomes its message text in
   the cell, so ``ISNUMBER`` is FALSE and the template's checks fail; it is recorded in
   :attr:`Recalculation.function_errors` for the summary.
5. No formula may open another workbook: a reference to one evaluates to ``#REF!``.

Array results: neither ``formulas`` nor ``pycel`` spills a dynamic array from one cell.
The templates write every table-returning function as a dynamic-array formula saved
over an explicit range (``=NJ_BEIP_GRANT_SCHEDULE(...)`` anchored in ``B20`` and saved
over ``B20:H30``, xlsxwriter's ``write_dynamic_array_formula``), as Excel 365 saves a
spilled formula. The engine recalculates it over that range with dynamic-array
semantics (:func:`_wrap_spills`): the result fills the range from its top-left corner
and the cells a shorter result does not reach are blank, as Excel 365 shows them. A
legacy array formula (``{=F()}``: the builder's ``dynamic=False``, or a file from an
older Excel) keeps legacy semantics: ``#N/A`` in the extra cells. A result larger than
the range is cut to it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import io
import logging
import math
import os
import re
import threading
import time
import types
import warnings
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeAlias

from nj_incentives.core.cells import cell_index, cell_name, quote_sheet, range_bounds
from nj_incentives.core.workpaper import COMPANION_SUFFIX, is_companion
from nj_incentives.runtimes.spelling import base_name
from nj_incentives.support.formula import function_calls
from nj_incentives.workpapers.recalc.imports import import_engine
from nj_incentives.workpapers.recalc.safety import (
    DEFAULT_LIMITS,
    Limits,
    VettedWorkbook,
    budgets,
    dynamic_arrays,
    vet_workbook,
    vetted_copy,
)
from nj_incentives.workpapers.recalc.templates import restore_spills

__all__ = [
    "CellValue",
    "ExcelError",
    "FunctionError",
    "Recalculation",
    "default_error_text",
    "default_functions",
    "excel_serial",
    "function_variants",
    "plain_error_text",
    "quote_sheet",  # nj_incentives.core.cells' (the memo imports it from here)
    "recalculate",
    "recalculate_vetted",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExcelError:
    """An Excel error value (``#VALUE!``, ``#REF!``, ``#N/A``, ...)."""

    code: str

    def __str__(self) -> str:
        return self.code


#: A cell's value after recalculation.
CellValue: TypeAlias = float | int | str | bool | ExcelError | None

#: A cell address: (sheet title, "A1").
Address: TypeAlias = tuple[str, str]


@dataclass(frozen=True)
class FunctionError:
    """A custom function that rejected its inputs: the function and its message."""

    function: str
    message: str


@dataclass(frozen=True)
class Recalculation:
    """The recalculated workbook: every cell's value and what went wrong."""

    source: Path
    sheets: tuple[str, ...]
    #: every cell with a value: inputs, labels and the recalculated cells
    values: Mapping[Address, CellValue]
    #: the formula text of each formula cell (array formulas: at their anchor)
    formulas: Mapping[Address, str]
    #: array formulas: anchor -> range ("A1:G11")
    array_ranges: Mapping[Address, str]
    #: the cells whose value the engine computed (formula cells and array members)
    computed: frozenset[Address]
    #: workbook-level defined names -> the value (a cell) or rows of values (a range)
    names: Mapping[str, CellValue | list[list[CellValue]]]
    function_errors: tuple[FunctionError, ...]
    #: NJ_* function -> number of calls made
    calls: Mapping[str, int]
    #: what was present and ignored, what could not be followed
    notes: tuple[str, ...]
    load_seconds: float
    calc_seconds: float
    #: the vetted file the values came from (the results writer copies its formatting)
    vetted: VettedWorkbook | None = field(default=None, repr=False, compare=False)
    #: cells in a circular reference ("Sheet1!A1"): the engine leaves them blank
    circular_references: tuple[str, ...] = ()
    #: how it was recalculated: "full" (the engine's model) or "prebuilt" (a shipped
    #: template's form, :mod:`~.prebuilt`); the values are the same
    method: str = field(default="full", compare=False)

    @property
    def seconds(self) -> float:
        return self.load_seconds + self.calc_seconds

    def value(self, reference: str) -> CellValue | list[list[CellValue]]:
        """The value of a defined name, a cell (``"Checks!B3"``) or a range's rows."""
        if reference in self.names:
            return self.names[reference]
        for name, named in self.names.items():
            if name.upper() == reference.upper():
                return named
        sheet, cells = split_reference(reference, self.sheets)
        if ":" in cells:
            return self.range_values(sheet, cells)
        return self.values.get((sheet, cells.replace("$", "").upper()))

    def range_values(self, sheet: str, cells: str) -> list[list[CellValue]]:
        """The values of ``cells`` ("A1:C4") on ``sheet``, as rows."""
        (r1, c1), (r2, c2) = range_bounds(cells)
        return [
            [self.values.get((sheet, cell_name(r, c))) for c in range(c1, c2 + 1)]
            for r in range(r1, r2 + 1)
        ]

    def error_cells(self) -> list[tuple[str, str]]:
        """Computed cells holding an Excel error or a function's error message, as
        ``("Sheet!A1", text)`` in sheet and row order; an array formula whose cells all
        hold the same text is one entry for its range (``"Sheet!B2:H12"``)."""
        messages = {error.message for error in self.function_errors}

        def bad(address: Address) -> bool:
            value = self.values.get(address)
            return isinstance(value, ExcelError) or (isinstance(value, str) and value in messages)

        order = {title: i for i, title in enumerate(self.sheets)}
        entries: list[tuple[tuple[int, int, int], str, str]] = []
        grouped: set[Address] = set()
        for (sheet, _anchor), cells in self.array_ranges.items():
            (r1, c1), (r2, c2) = range_bounds(cells)
            shown = self.shown_sheet(sheet)  # a companion's array: named where its cells are shown
            members = [
                (where, cell_name(r, c))
                for r in range(r1, r2 + 1)
                for c in range(c1, c2 + 1)
                for where in dict.fromkeys((sheet, shown))
            ]
            texts = {str(self.values.get(m)) for m in members}
            if len(texts) == 1 and all(bad(m) for m in members):
                grouped.update(members)
                key = (order.get(shown, 0), r1, c1)
                entries.append((key, f"{quote_sheet(shown)}!{cells}", texts.pop()))
        for address in self.computed - grouped:
            if self.shown_sheet(address[0]) != address[0]:  # shown, and named, on its visible sheet
                continue
            if bad(address):
                row, col = cell_index(address[1])
                key = (order.get(address[0], 0), row, col)
                text = str(self.values[address])
                entries.append((key, f"{quote_sheet(address[0])}!{address[1]}", text))
        entries.sort()
        return [(where, text) for _key, where, text in entries]

    def shown_sheet(self, sheet: str) -> str:
        """The sheet whose cells show ``sheet``'s: the visible sheet of a companion
        sheet of array formulas (:func:`~nj_incentives.core.workpaper.companion`), else
        ``sheet`` itself."""
        if is_companion(sheet):
            visible = sheet[: -len(COMPANION_SUFFIX)]
            if visible in self.sheets:
                return visible
        return sheet

    def as_shown(self) -> Recalculation:
        """This recalculation as a reader sees the workbook: each array formula of a
        companion sheet at the cells of its visible sheet that show it (its formula at
        their anchor, its values in them, in place of the ordinary references), and no
        companion sheets. What the memo reads: a table's label, heading and cells are
        the visible sheet's."""
        moved = {
            (sheet, anchor): cells
            for (sheet, anchor), cells in self.array_ranges.items()
            if self.shown_sheet(sheet) != sheet
        }
        if not moved:
            return self
        hidden = {sheet for sheet, _anchor in moved} | {
            title for title in self.sheets if self.shown_sheet(title) != title
        }
        values = {a: v for a, v in self.values.items() if a[0] not in hidden}
        formulas = {a: f for a, f in self.formulas.items() if a[0] not in hidden}
        arrays = {a: r for a, r in self.array_ranges.items() if a[0] not in hidden}
        computed = {a for a in self.computed if a[0] not in hidden}
        for (sheet, anchor), cells in moved.items():
            shown = self.shown_sheet(sheet)
            (r1, c1), (r2, c2) = range_bounds(cells)
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    cell = cell_name(r, c)
                    formulas.pop((shown, cell), None)
                    value = self.values.get((sheet, cell))
                    if value is None:
                        values.pop((shown, cell), None)
                    else:
                        values[(shown, cell)] = value
                    computed.add((shown, cell))
            formulas[(shown, anchor)] = self.formulas[(sheet, anchor)]
            arrays[(shown, anchor)] = cells
        formulas = {a: shown_references(f) for a, f in formulas.items()}
        return dataclasses.replace(
            self,
            sheets=tuple(title for title in self.sheets if title not in hidden),
            values=values,
            formulas=formulas,
            array_ranges=arrays,
            computed=frozenset(computed),
        )

    def nj_formula_cells(self) -> Counter[str]:
        """NJ_* function -> number of formula cells that call it (array formulas once)."""
        counts: Counter[str] = Counter()
        for text in self.formulas.values():
            if "NJ_" not in text.upper():  # every spelling ends with the NJ_ name
                continue
            for call in function_calls(text):
                base = base_name(call.name.upper())
                if base is not None:
                    counts[base] += 1
        return counts


#: A reference to a companion sheet (its name always quoted: it holds a space).
_COMPANION_REFERENCE = re.compile(r"'((?:[^']|'')+)" + re.escape(COMPANION_SUFFIX) + "'!")


def shown_references(text: str) -> str:
    """``text`` (a formula, a defined name's reference) with each reference to a companion
    sheet's cells made to the same cells of its visible sheet, where they are shown."""
    if COMPANION_SUFFIX + "'!" not in text:
        return text
    return _COMPANION_REFERENCE.sub(
        lambda m: quote_sheet(m.group(1).replace("''", "'")) + "!", text
    )


# --------------------------------------------------------------------------- functions


def default_functions() -> dict[str, Callable[..., Any]]:
    """The NJ_* functions of :mod:`nj_incentives.functions`, by Excel name: the same
    adapters Excel calls, as plain callables that raise on a bad input (no xlwings)."""
    from nj_incentives.functions import functions  # imported only when needed

    return dict(functions(errors="raise"))


def default_error_text(exc: BaseException, function: str) -> str:
    """The text a cell shows for a failed NJ_* call, as the classic add-in shows it
    (``#VALUE! argument = value: rule (citation)``)."""
    from nj_incentives.core.cells import error_text

    return error_text(exc, function)


def plain_error_text(exc: BaseException, function: str) -> str:
    """The exception's own message (for functions other than the NJ_* catalog)."""
    return str(exc).strip() or f"{function}: {type(exc).__name__}"


#: How a failed call's message is made: (exception, function name) -> cell text.
ErrorText: TypeAlias = Callable[[BaseException, str], str]


def function_variants(formulas: str | Iterable[str], known: Sequence[str]) -> dict[str, str]:
    """Spelling found in ``formulas`` (one formula's text, or many) -> the NJ_* name it
    calls (both upper-case); the calls are read by the tokenizer
    (:mod:`~nj_incentives.support.formula`).

    Each distinct text is read once, and only when it mentions a known name at all (every
    spelling of a function ends with its name)."""
    variants = {}
    names = [name.upper() for name in known]
    texts = [formulas] if isinstance(formulas, str) else formulas
    for text in dict.fromkeys(texts):
        upper_text = text.upper()
        if not any(name in upper_text for name in names):
            continue
        for call in function_calls(text):
            upper = call.name.upper()
            base = base_name(upper, known)
            if base is not None:
                variants[upper] = base
    return variants


def excel_serial(value: dt.date | dt.datetime) -> float | int:
    """The Excel serial number of a date (1900 date system): 2024-01-01 -> 45292."""
    from nj_incentives.core.cells import serial_from_date

    return serial_from_date(value)


@dataclass
class Journal:
    """What one recalculation records as it runs: the NJ_* calls, the rejected inputs and
    the notes (the full path and the prebuilt one, :mod:`~.prebuilt`, keep the same)."""

    calls: Counter[str] = field(default_factory=Counter)
    errors: list[FunctionError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def function_adapter(
    base: str, function: Callable[..., Any], journal: Journal, error_text: ErrorText
) -> Callable[..., Any]:
    """The engine-side wrapper of one custom function."""
    import numpy as np
    from formulas.functions import wrap_func

    def call(*args: Any) -> Any:
        converted = []
        for arg in args:
            error = _first_error(arg)
            if error is not None:
                return np.asarray([[error]], dtype=object)
            converted.append(_to_python(arg))
        journal.calls[base] += 1
        try:
            result = function(*converted)
        except Exception as exc:  # an invalid input: its message goes in the cell
            message = error_text(exc, base)
            journal.errors.append(FunctionError(base, message))
            log.info("%s: %s", base, message)
            return np.asarray([[message]], dtype=object)
        try:
            return _to_engine(result)
        except (TypeError, ValueError) as exc:
            message = f"{base} returned a value a cell cannot hold ({exc})"
            journal.errors.append(FunctionError(base, message))
            return np.asarray([[message]], dtype=object)

    call.__name__ = base
    wrapped: Callable[..., Any] = wrap_func(call)
    return wrapped


def _first_error(arg: Any) -> Any:
    from formulas.tokens.operand import XlError

    if isinstance(arg, XlError):
        return arg
    flat = getattr(arg, "flat", None)
    if flat is not None:
        for item in flat:
            if isinstance(item, XlError):
                return item
    return None


def _scalar_to_python(value: Any) -> Any:
    import numpy as np
    import schedula as sh

    if value is sh.EMPTY or value is None:
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def _to_python(arg: Any) -> Any:
    """An engine argument as Office.js passes it: a value, or a list of rows."""
    import numpy as np

    if isinstance(arg, np.ndarray):
        if arg.ndim == 0 or arg.size == 1:
            return _scalar_to_python(arg.reshape(-1)[0])
        rows = arg if arg.ndim == 2 else arg.reshape(1, -1)
        return [[_scalar_to_python(v) for v in row] for row in rows]
    return _scalar_to_python(arg)


def _cell_to_engine(value: Any) -> Any:
    import numpy as np

    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.generic):
        value = value.item()
        if isinstance(value, bool):
            return value
    if isinstance(value, ExcelError):
        from formulas.tokens.operand import Error

        return Error.errors.get(value.code, Error.errors["#VALUE!"])
    if isinstance(value, Decimal):
        value = float(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        from formulas.tokens.operand import Error

        return Error.errors["#NUM!"]
    if isinstance(value, (dt.date, dt.datetime)):
        return excel_serial(value)
    raise TypeError(f"{type(value).__name__} is not a cell value")


def _to_engine(result: Any) -> Any:
    """A function's result as the engine's cells: a value, or a 2-D object array."""
    import numpy as np

    if hasattr(result, "columns") and hasattr(result, "to_numpy"):  # a data frame
        rows: list[list[Any]] = [list(result.columns), *result.to_numpy().tolist()]
    elif isinstance(result, np.ndarray):
        if result.ndim == 0:
            return _cell_to_engine(result.item())
        rows = result.tolist() if result.ndim == 2 else [np.ravel(result).tolist()]
    elif isinstance(result, (list, tuple)):
        if not result:
            return None
        if all(isinstance(row, (list, tuple)) for row in result):
            rows = [list(row) for row in result]
        else:
            rows = [list(result)]
    else:
        return _cell_to_engine(result)
    width = max(len(row) for row in rows)
    cells = [[_cell_to_engine(v) for v in row] + [None] * (width - len(row)) for row in rows]
    cells_type, _spill = _array_types()
    return np.asarray(cells, dtype=object).view(cells_type)


# --------------------------------------------------------------------------- the engine

#: Held for every recalculation: the formulas engine keeps global state.
LOCK = threading.RLock()


class ExternalWorkbookRefused(RuntimeError):
    """A formula referred to another workbook; it is not opened."""


def _make_model(journal: Journal, dynamic: Mapping[Address, str]) -> Any:
    import formulas

    class GuardedModel(formulas.ExcelModel):  # type: ignore[misc]
        """``formulas``' model that opens only the vetted workbook and spills its
        dynamic-array formulas."""

        def __init__(self) -> None:
            super().__init__()
            self.primary: str | None = None
            self.originals: dict[Address, str] = {}

        def add_book(self, book: Any = None, context: Any = None, data_only: bool = False) -> Any:
            if self.primary is None:
                loaded, ctx = super().add_book(book, context, data_only)
                self.primary = os.path.normpath(os.path.join(self.basedir, ctx["filename"]))
                self.originals = _wrap_spills(loaded, dynamic)
                return loaded, ctx
            ctx = dict(context or {})
            if isinstance(book, str):
                parts = book.replace("\\", "/").split("/")
                ctx["directory"], ctx["filename"] = "/".join(parts[:-1]), parts[-1]
            target = os.path.normpath(
                os.path.join(self.basedir, ctx.get("directory") or "", ctx.get("filename") or "")
            )
            if target.upper() != self.primary.upper():
                note = (
                    f"a formula refers to another workbook ({ctx.get('filename') or book}): "
                    "not opened, the reference is #REF!"
                )
                if note not in journal.notes:
                    journal.notes.append(note)
                raise ExternalWorkbookRefused(note)
            return super().add_book(book, context, data_only)

        # An empty cell adds nothing to the model (``Cell.add`` skips a cell without a
        # value or formula), but compiling it costs as much as a constant: a sheet's
        # used rectangle is mostly empty cells (a wide table makes every row wide).
        def compile_cell(
            self, cell: Any, context: Any, references: Any, formula_references: Any
        ) -> Any:
            if cell.value is None and cell.data_type != "f":
                return None
            if cell.data_type == "e" and _array_member(cell.coordinate, formula_references):
                # the formula's old output, not a constant: LibreOffice saves #NAME? there
                return None
            return super().compile_cell(cell, context, references, formula_references)

        def add_cell(self, cell: Any, context: Any, formula_ranges: Any) -> Any:
            if cell is None:
                return None
            return super().add_cell(cell, context, formula_ranges)

    return GuardedModel()


def _array_member(cell: str, array_ranges: Mapping[str, str]) -> bool:
    """Whether ``cell`` lies in an array formula's range (anchor -> range), not at its anchor."""
    if cell in array_ranges:
        return False
    row, col = cell_index(cell)
    for cells in array_ranges.values():
        (r1, c1), (r2, c2) = range_bounds(cells)
        if r1 <= row <= r2 and c1 <= col <= c2:
            return True
    return False


#: The engine-side helper that spills a dynamic-array result into its saved range.
SPILL = "_NJSPILL"


def _wrap_spills(book: Any, dynamic: Mapping[Address, str]) -> dict[Address, str]:
    """Rewrite each dynamic-array formula ``=F(...)`` saved over R x C cells as
    ``=_NJSPILL(F(...), R, C)`` in the engine's copy: the result fills its top-left
    corner and the rest of the range is blank, as Excel 365 shows a spill smaller than
    the saved range (a legacy {=F()} pads with #N/A instead). Returns the original texts."""
    originals: dict[Address, str] = {}
    for (sheet, anchor), cells in dynamic.items():
        if sheet not in book.sheetnames:
            continue
        formula = book[sheet][anchor].value
        text = getattr(formula, "text", None)
        if not isinstance(text, str):
            continue
        (r1, c1), (r2, c2) = range_bounds(cells)
        body = text[1:] if text.startswith("=") else text
        originals[(sheet, anchor)] = text
        formula.text = f"={SPILL}({body},{r2 - r1 + 1},{c2 - c1 + 1})"
    return originals


@functools.cache
def _array_types() -> tuple[type[Any], type[Any]]:
    """The engine array types of custom-function results.

    The engine shapes a result to its range by calling its ``reshape``; it copies
    results between steps in a way that turns its own "empty cell" marker into text, so
    the marker is put in at that last step: a ``None`` in a table (a blank cell for
    xlwings) becomes an empty cell there, which COUNTBLANK counts and COUNTA skips.

    - ``Cells``: legacy array semantics (#N/A padding, single rows and cells repeated).
    - ``Spill``: dynamic-array semantics (the result in the top left, the rest empty).
    """
    import numpy as np
    import schedula as sh
    from formulas.functions import Array

    blank = np.frompyfunc(lambda value: sh.EMPTY if value is None else value, 1, 1)

    def blanked(grid: Any) -> Any:
        grid = np.asarray(grid, dtype=object)
        return blank(grid) if grid.ndim == 2 and grid.size else grid

    class Cells(Array):  # type: ignore[misc]
        def reshape(self, shape: Any, *shapes: Any, order: str = "C") -> Any:
            return blanked(super().reshape(shape, *shapes, order=order))

    class Spill(Array):  # type: ignore[misc]
        _default = sh.EMPTY

        def reshape(self, shape: Any, *shapes: Any, order: str = "C") -> Any:
            target = tuple(shape) if not shapes else (shape, *shapes)
            if len(target) != 2:
                return super().reshape(shape, *shapes, order=order)
            out = np.empty(target, dtype=object)
            out[:, :] = sh.EMPTY
            h, w = min(target[0], self.shape[0]), min(target[1], self.shape[1])
            out[:h, :w] = blanked(np.asarray(self)[:h, :w])
            return out

    return Cells, Spill


def spiller(journal: Journal) -> Callable[..., Any]:
    """The engine function ``_NJSPILL(value, rows, cols)`` of :func:`_wrap_spills`."""
    import numpy as np
    from formulas.functions import wrap_func

    _cells, spill_type = _array_types()

    def spill(value: Any, rows: Any, cols: Any) -> Any:
        height, width = int(rows), int(cols)
        grid = np.asarray(value, dtype=object)
        if grid.ndim < 2:
            grid = grid.reshape(1, -1) if grid.ndim == 1 else grid.reshape(1, 1)
        if grid.shape[0] > height or grid.shape[1] > width:
            note = (
                f"a table result of {grid.shape[0]} x {grid.shape[1]} cells was cut to its "
                f"range of {height} x {width} (Excel would spill further)"
            )
            if note not in journal.notes:
                journal.notes.append(note)
            grid = grid[:height, :width]
        # placed by the engine when it shapes the result to the range (Spill.reshape)
        return np.ascontiguousarray(grid).view(spill_type)

    wrapped: Callable[..., Any] = wrap_func(spill)
    return wrapped


@contextlib.contextmanager
def _registered(
    variants: Mapping[str, str],
    functions: Mapping[str, Callable[..., Any]],
    journal: Journal,
    error_text: ErrorText,
) -> Iterator[None]:
    """Register the custom functions with the engine for one recalculation."""
    import formulas

    registry = formulas.get_functions()
    missing = object()
    saved = {name: registry.get(name, missing) for name in variants}
    adapters: dict[str, Callable[..., Any]] = {}
    saved.setdefault(SPILL, registry.get(SPILL, missing))
    registry[SPILL] = spiller(journal)
    try:
        for spelling, base in variants.items():
            if base not in adapters:
                adapters[base] = function_adapter(base, functions[base], journal, error_text)
            registry[spelling] = adapters[base]
        with double_negation():
            yield
    finally:
        for name, previous in saved.items():
            if previous is missing:
                registry.pop(name, None)
            else:
                registry[name] = previous


@contextlib.contextmanager
def double_negation() -> Iterator[None]:
    """Make ``--x`` turn TRUE/FALSE into 1/0, as in Excel, for one recalculation.

    ``formulas`` 1.3.4 folds a run of signs into one operator (``--`` becomes unary
    ``+``), and its unary plus returns booleans unchanged, so ``SUMPRODUCT(--(A1:A9>0))``
    summed booleans, which SUMPRODUCT skips: always 0, and a check written that way could
    never fail. Here unary plus turns a boolean into 1 or 0. The one difference from
    Excel that remains: ``=+TRUE`` shows 1 where Excel shows TRUE (nobody writes it;
    ``--``, the usual idiom, is what matters)."""
    import numpy as np
    from formulas.functions import wrap_ufunc
    from formulas.functions.operators import OPERATORS

    def unary_plus(value: Any) -> Any:
        return int(value) if isinstance(value, (bool, np.bool_)) else value

    previous = OPERATORS["U+"]
    OPERATORS["U+"] = wrap_ufunc(unary_plus, input_parser=lambda *a: a)
    try:
        yield
    finally:
        OPERATORS["U+"] = previous


@contextlib.contextmanager
def quiet_engine() -> Iterator[None]:
    """Silence the engine's progress bar and its log lines about refused references
    (reported through :attr:`Recalculation.notes` instead) and openpyxl's warnings
    about workbook features it does not read."""
    import formulas.excel as engine_excel

    original = engine_excel.tqdm
    engine_log = logging.getLogger("formulas")
    level = engine_log.level
    engine_excel.tqdm = types.SimpleNamespace(tqdm=functools.partial(original.tqdm, disable=True))
    engine_log.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        engine_excel.tqdm = original
        engine_log.setLevel(level)


def _element_texts(xml: bytes, wanted: str) -> list[str]:
    """The text of every ``wanted`` element (local name) of an XML part."""
    from xml.parsers import expat

    texts: list[str] = []
    current: list[str] | None = None

    def start(name: str, _attrs: object) -> None:
        nonlocal current
        current = [] if name.rpartition(":")[2] == wanted else None

    def end(name: str) -> None:
        nonlocal current
        if current is not None and name.rpartition(":")[2] == wanted:
            texts.append("".join(current))
        current = None

    def data(text: str) -> None:
        if current is not None:
            current.append(text)

    parser = expat.ParserCreate()
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    parser.Parse(xml, True)
    return texts


def _formula_texts(vetted: VettedWorkbook) -> list[str]:
    """The text of every formula in the worksheets and of every defined name (where the
    NJ_* names a workbook calls are)."""
    texts: list[str] = []
    with zipfile.ZipFile(io.BytesIO(vetted.data)) as archive:
        for info in archive.infolist():
            lower = info.filename.lower()
            if lower.startswith("xl/worksheets/") and lower.endswith(".xml"):
                texts += _element_texts(archive.read(info), "f")
            elif lower == "xl/workbook.xml":
                texts += _element_texts(archive.read(info), "definedName")
    return texts


def recalculate(
    path: str | os.PathLike[str],
    functions: Mapping[str, Callable[..., Any]] | None = None,
    *,
    error_text: ErrorText | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Recalculation:
    """Vet ``path`` (see :mod:`~nj_incentives.workpapers.recalc.safety`) and recalculate every
    formula.

    ``functions`` maps Excel names (``NJ_BEIP_GRANT``) to callables that raise on a bad
    input; by default the functions of :mod:`nj_incentives.functions`, whose failures read
    ``#VALUE! argument = value: rule (citation)`` in the cell. ``error_text`` makes the
    cell text of a failure (default: that of :mod:`nj_incentives.functions` for its own
    functions, the exception's message for others). Raises
    :class:`~nj_incentives.workpapers.recalc.safety.UnsafeWorkbookError` for a refused file.
    """
    vetted = vet_workbook(path, limits)
    return recalculate_vetted(vetted, functions, error_text=error_text, limits=limits)


def recalculate_vetted(
    vetted: VettedWorkbook,
    functions: Mapping[str, Callable[..., Any]] | None = None,
    *,
    error_text: ErrorText | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Recalculation:
    """Recalculate a workbook that :func:`~nj_incentives.workpapers.recalc.safety.vet_workbook`
    passed,
    within the time and memory budgets of ``limits``
    (:func:`~nj_incentives.workpapers.recalc.safety.budgets`; raises
    :class:`~nj_incentives.workpapers.recalc.safety.BudgetExceeded` past either)."""
    import_engine()
    if functions is None:
        functions = default_functions()
        error_text = error_text or default_error_text
    table = {name.upper(): fn for name, fn in functions.items()}
    variants = function_variants(_formula_texts(vetted), sorted(table))
    dynamic = dynamic_arrays(vetted)
    journal = Journal()
    # a save by openpyxl, pandas or LibreOffice drops the dynamic-array marking: restore
    # the template's spilled ranges (recalc.templates; the notes say what was restored)
    restored, spill_notes = restore_spills(vetted, dynamic)
    dynamic = {**restored, **dynamic}
    journal.notes.extend(spill_notes)
    with (
        LOCK,
        vetted_copy(vetted) as copy,
        _registered(variants, table, journal, error_text or plain_error_text),
        quiet_engine(),
        budgets(limits, f"recalculating {vetted.path.name}"),
    ):
        start = time.perf_counter()
        model = _make_model(journal, dynamic)
        model.loads(str(copy)).finish()
        loaded = time.perf_counter()
        solution = model.calculate()
        done = time.perf_counter()
        result = collect(vetted, model, solution, journal, loaded - start, done - loaded)
    circular = _circular_cells(result)
    if circular:
        shown = ", ".join(circular[:20]) + (" ..." if len(circular) > 20 else "")
        note = f"circular reference: {shown} (not computed: blank)"
        result = dataclasses.replace(
            result, circular_references=tuple(circular), notes=(*result.notes, note)
        )
    return result


def _circular_cells(result: Recalculation) -> list[str]:
    """The formula cells of every cycle of references, as "Sheet!A1", in order.

    Read from the formulas' text (openpyxl's tokenizer), with defined names resolved:
    formula A depends on formula B when one of A's references covers a cell B computes
    (an array formula computes its whole range). A cycle is a strongly connected set of
    more than one formula, or one formula that covers its own cells. ``INDIRECT("B1")``
    of one quoted reference is followed as the reference B1 (the engine reads it so);
    references computed while calculating (OFFSET, INDIRECT of a computed text) are
    refused before this (:func:`~nj_incentives.workpapers.recalc.safety.formula_problem`)."""
    from openpyxl.formula.tokenizer import Tokenizer

    sheets = result.sheets
    defined = _defined_names(result.vetted)
    units = list(result.formulas)
    owner: dict[tuple[str, int, int], int] = {}
    for number, (sheet, cell) in enumerate(units):
        span = result.array_ranges.get((sheet, cell), cell)
        (r1, c1), (r2, c2) = range_bounds(span)
        for row in range(r1, r2 + 1):
            for col in range(c1, c2 + 1):
                owner[(sheet.upper(), row, col)] = number
    by_sheet: dict[str, list[tuple[int, int, int]]] = {}
    for (sheet, row, col), number in owner.items():
        by_sheet.setdefault(sheet, []).append((row, col, number))
    edges: list[set[int]] = [set() for _ in units]
    for number, (sheet, cell) in enumerate(units):
        try:
            tokens = Tokenizer(result.formulas[(sheet, cell)]).items
        except Exception:  # a formula the tokenizer cannot read: the engine reports it
            continue
        for reference in _references(tokens):
            for ref_sheet, span in _resolve(reference, sheet, defined):
                try:
                    (r1, c1), (r2, c2) = range_bounds(span)
                except (ValueError, IndexError, KeyError):
                    continue
                key = ref_sheet.upper()
                if (r2 - r1 + 1) * (c2 - c1 + 1) <= 4096:
                    for row in range(r1, r2 + 1):
                        for col in range(c1, c2 + 1):
                            found = owner.get((key, row, col))
                            if found is not None:
                                edges[found].add(number)
                else:
                    for row, col, found in by_sheet.get(key, ()):
                        if r1 <= row <= r2 and c1 <= col <= c2:
                            edges[found].add(number)
    cycle = _in_cycles(edges)
    titles = {title.upper(): title for title in sheets}
    cells = [f"{titles.get(units[n][0].upper(), units[n][0])}!{units[n][1]}" for n in cycle]
    return sorted(cells, key=lambda ref: (ref.rpartition("!")[0], *_sort_key(ref)))


def _references(tokens: Sequence[Any]) -> Iterator[str]:
    """The reference texts of a tokenized formula: its ranges, and the quoted reference
    of each ``INDIRECT("...")`` that holds nothing else (which the engine follows)."""
    for number, token in enumerate(tokens):
        if token.type == "OPERAND" and token.subtype == "RANGE":
            yield token.value
        elif (
            token.type == "FUNC"
            and token.subtype == "OPEN"
            and token.value.upper().removeprefix("_XLFN.") == "INDIRECT("
            and number + 2 < len(tokens)
            and tokens[number + 1].type == "OPERAND"
            and tokens[number + 1].subtype == "TEXT"
            and tokens[number + 2].type == "FUNC"
            and tokens[number + 2].subtype == "CLOSE"
        ):
            yield tokens[number + 1].value[1:-1].replace('""', '"')


def _defined_names(vetted: VettedWorkbook | None) -> dict[str, str]:
    """Workbook-level defined names (upper case) -> their reference text."""
    if vetted is None:
        return {}
    from defusedxml.ElementTree import fromstring

    with zipfile.ZipFile(io.BytesIO(vetted.data)) as archive:
        try:
            root = fromstring(archive.read("xl/workbook.xml"))
        except KeyError:
            return {}
    names = {}
    for element in root.iter():
        if str(element.tag).endswith("}definedName") and element.get("localSheetId") is None:
            names[str(element.get("name", "")).upper()] = element.text or ""
    return names


_A1_RANGE = re.compile(r"[A-Za-z]{1,3}[0-9]{1,7}(?::[A-Za-z]{1,3}[0-9]{1,7})?")


def _resolve(
    reference: str, sheet: str, defined: Mapping[str, str], depth: int = 0
) -> Iterator[tuple[str, str]]:
    """(sheet, "A1:B2") for a reference token: a cell, a range, or a defined name."""
    text = reference.replace("$", "")
    if "!" in text:
        where, _, span = text.rpartition("!")
        where = where.strip("'").replace("''", "'")
    else:
        where, span = sheet, text
    if "!" not in text and span.upper() in defined and depth < 5:
        for part in defined[span.upper()].split(","):
            yield from _resolve(part.strip(), sheet, defined, depth + 1)
        return
    if _A1_RANGE.fullmatch(span):
        yield where, span


def _in_cycles(edges: Sequence[set[int]]) -> set[int]:
    """The nodes of every cycle (Tarjan's strongly connected components, iteratively)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    found: set[int] = set()
    counter = 0
    for root in range(len(edges)):
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(edges[root]))]
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[int] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    found.update(component)
    return found


def _sort_key(ref: str) -> tuple[int, str]:
    cell = ref.rpartition("!")[2].split(":")[0]
    digits = "".join(ch for ch in cell if ch.isdigit())
    return (int(digits) if digits else 0, cell)


# --------------------------------------------------------------------------- results


def convert_value(value: Any) -> CellValue:
    """An engine value as a :data:`CellValue`."""
    import numpy as np
    import schedula as sh
    from formulas.tokens.operand import XlError

    if isinstance(value, XlError):
        return ExcelError(str.__str__(value))
    if value is sh.EMPTY or value is None:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def collect(
    vetted: VettedWorkbook,
    model: Any,
    solution: Mapping[Any, Any],
    journal: Journal,
    load_seconds: float,
    calc_seconds: float,
) -> Recalculation:
    import numpy as np
    from formulas.excel import BOOK
    from formulas.ranges import Ranges

    key = next(k for k, data in model.books.items() if data.get(BOOK) is not None)
    book = model.books[key][BOOK]
    titles = {title.upper(): title for title in book.sheetnames}
    primary_file = os.path.basename(model.primary or "").upper()

    values: dict[Address, CellValue] = {}
    name_values: dict[str, CellValue | list[list[CellValue]]] = {}
    defined = {name.upper(): name for name in book.defined_names}
    for node, ranges in solution.items():
        if not isinstance(ranges, Ranges) or not ranges.ranges or not isinstance(node, str):
            continue
        rng = ranges.ranges[0]
        if rng.get("filename", "").upper() != primary_file or rng.get("directory"):
            continue
        sheet = titles.get(str(rng.get("sheet", "")).upper())
        if sheet is None:
            continue
        r1, r2, n1, n2 = int(rng["r1"]), int(rng["r2"]), int(rng["n1"]), int(rng["n2"])
        try:
            grid = np.asarray(ranges.value, dtype=object).reshape(r2 - r1 + 1, n2 - n1 + 1)
        except ValueError:
            continue
        cells = [[convert_value(v) for v in row] for row in grid]
        for i, row in enumerate(cells):
            for j, v in enumerate(row):
                values[(sheet, cell_name(r1 + i, n1 + j))] = v
        name = node.rsplit("]'!", 1)[-1] if "]'!" in node else None
        if name is not None and name in defined:
            name_values[defined[name]] = cells[0][0] if len(cells) == len(cells[0]) == 1 else cells

    formulas_text: dict[Address, str] = {}
    arrays: dict[Address, str] = {}
    computed: set[Address] = set()
    for ws in book.worksheets:
        for (row, col), cell in ws._cells.items():
            if cell.data_type == "f":
                address = (ws.title, cell_name(row, col))
                text = cell.value if isinstance(cell.value, str) else cell.value.text
                formulas_text[address] = model.originals.get(address, text)
                computed.add((ws.title, cell_name(row, col)))
        for anchor, ref in ws.array_formulae.items():
            arrays[(ws.title, anchor)] = ref
            (r1, c1), (r2, c2) = range_bounds(ref)
            computed.update(
                (ws.title, cell_name(r, c)) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)
            )
            text = formulas_text.get((ws.title, anchor), "")
            if text and not text.startswith("{") and (ws.title, anchor) not in model.originals:
                formulas_text[(ws.title, anchor)] = "{" + text + "}"

    # The engine evaluates both branches of IF (Excel only the one it takes): a call that
    # failed in a branch not taken shows nowhere and is not reported.
    shown = {v for a, v in values.items() if a in computed and isinstance(v, str)}
    errors = tuple(error for error in journal.errors if error.message in shown)
    return Recalculation(
        source=vetted.path,
        sheets=tuple(book.sheetnames),
        values=values,
        formulas=formulas_text,
        array_ranges=arrays,
        computed=frozenset(computed),
        names=name_values,
        function_errors=errors,
        calls=dict(journal.calls),
        notes=(*vetted.notes, *journal.notes),
        load_seconds=load_seconds,
        calc_seconds=calc_seconds,
        vetted=vetted,
    )


def split_reference(reference: str, sheets: Sequence[str]) -> tuple[str, str]:
    """``"'My sheet'!$A$1"`` -> (``"My sheet"``, ``"$A$1"``), matching the sheet title
    case-insensitively against ``sheets``."""
    sheet, sep, cells = reference.rpartition("!")
    if not sep:
        raise ValueError(f"not a sheet reference or a defined name: {reference!r}")
    if sheet.startswith("'") and sheet.endswith("'"):
        sheet = sheet[1:-1].replace("''", "'")
    for title in sheets:
        if title.upper() == sheet.upper():
            return title, cells
    raise ValueError(f"no sheet named {sheet!r}")
