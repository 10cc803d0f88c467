"""Recalculation without recompiling: a template's formulas compiled once per process.

Loading a workbook into the ``formulas`` engine compiles every formula (most of a full
recalculation's time). A filled template has the formulas of its template, so
:func:`recalculate_compiled` recognises it by a **fingerprint of its formulas** and
evaluates a model compiled from them (``formulas``' ``ExcelModel.compile(inputs,
outputs)``) with the workbook's own cell values:

1. the vetted file's worksheets are read once with expat: the formula fingerprint
   (every formula cell's address, formula element and dynamic-array flag, the defined
   names, the sheets), the positions of the value cells, and those values as the
   engine reads them (numbers as int or float rounded to 15 digits, shared and inline
   strings, booleans);
2. a workbook whose formulas are those of a bundled template
   (``nj_incentives/data``) is looked up in an in-process cache keyed by the formula
   fingerprint, the value-cell positions (the template version: a rebuilt template
   has another fingerprint) and the run's ``law_as_of`` (``calc --law-as-of``). The
   first workbook of a key is recalculated in full and nothing is compiled (a one-off
   run pays no compile); the second is recalculated in full and its model compiled and
   kept (after checking that the values read in step 1
   are the engine's own); later ones are evaluated by the compiled model;
3. anything else is recalculated in full by :func:`~.engine.recalculate_vetted`: a
   workbook with other formulas (if its sheets are a template's, a note says that its
   formulas differ and that it was recalculated in full), cells the reader does not
   handle (error or date-typed cells, cells without an address), or
   custom functions other than the package's.

``nj-incentives calc`` first tries the template's prebuilt form
(:func:`~.prebuilt.recalculate_template`: no model compiled at all); this module serves
what that path leaves to it (a template's formulas with cells its reader does not take).

The cache lives in the process only (a compiled model holds the package's functions;
nothing is written to disk and nothing inside the installed package). Both paths share
the engine's locks, contexts and result collection, so the results are the same
(tested on every example and on changed inputs of every template).
"""

from __future__ import annotations

import functools
import hashlib
import io
import threading
import time
import zipfile
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat

from nj_incentives.core.cells import cell_index, range_bounds
from nj_incentives.support.shipped import shipped_workbooks
from nj_incentives.workpapers.recalc import engine
from nj_incentives.workpapers.recalc.ooxml import (
    InlineString,
    cell_number,
    local_name,
    shared_strings,
)
from nj_incentives.workpapers.recalc.safety import VettedWorkbook, sheet_parts

__all__ = [
    "CACHE_SIZE",
    "STATS",
    "WorkbookCells",
    "clear_cache",
    "read_cells",
    "recalculate_compiled",
    "template_fingerprints",
]

#: Compiled models kept per process (least recently used dropped first).
CACHE_SIZE = 8


class _Unsupported(Exception):
    """The workbook has cells the fast reader does not read as the engine does."""


@dataclass(frozen=True)
class WorkbookCells:
    """What the fast reader found in a workbook's worksheets."""

    #: SHA-256 over the formulas, defined names and sheets
    formulas: str
    #: SHA-256 over the addresses of the value (non-formula) cells
    positions: str
    #: (SHEET TITLE IN CAPITALS, "A1") -> the value as the engine reads it
    values: Mapping[tuple[str, str], Any]
    sheets: tuple[str, ...]


def _read_sheet(
    data: bytes,
    title: str,
    strings: list[str],
    formulas: Any,
    positions: Any,
    values: dict[tuple[str, str], Any],
) -> None:
    sheet = title.upper()
    state: dict[str, Any] = {"cell": None, "in": None, "text": [], "formula": None, "inline": None}
    arrays: list[str] = []  # array formula ranges: their cells are the formula's, not inputs
    found: dict[str, Any] = {}

    def start(name: str, attrs: dict[str, str]) -> None:
        local = local_name(name)
        inline = state["inline"]
        if inline is not None and inline.open:
            inline.start(local)
        elif local == "c":
            ref = attrs.get("r")
            if ref is None:
                raise _Unsupported("a cell without an address")
            state["cell"] = (ref, attrs.get("t", "n"), attrs.get("cm", ""))
            state["formula"] = None
            state["value"] = None
            state["inline"] = None
        elif local in ("f", "v") and state["cell"] is not None:
            state["in"] = local
            state["text"] = []
            if local == "f":
                state["formula"] = repr(sorted(attrs.items()))
                if attrs.get("t") == "array" and attrs.get("ref"):
                    arrays.append(attrs["ref"])
        elif local == "is" and state["cell"] is not None:
            if state["cell"][1] != "inlineStr" or inline is not None:
                raise _Unsupported("an inline string the engine's reader reads otherwise")
            state["inline"] = InlineString()
            state["inline"].start(local)

    def text(data: str) -> None:
        inline = state["inline"]
        if inline is not None and inline.open:
            inline.text(data)
        elif state["in"] is not None:
            state["text"].append(data)

    def end(name: str) -> None:
        local = local_name(name)
        inline = state["inline"]
        if inline is not None and inline.open:
            inline.end()
        elif local == "f" and state["in"] == "f":
            state["formula"] += "\x00" + "".join(state["text"])
            state["in"] = None
        elif local == "v" and state["in"] == "v":
            state["value"] = "".join(state["text"])
            state["in"] = None
        elif local == "c" and state["cell"] is not None:
            ref, kind, cm = state["cell"]
            if state["formula"] is not None:
                formulas.update(f"{sheet}\x00{ref}\x00{cm}\x00{state['formula']}\x01".encode())
            elif kind == "inlineStr":  # the engine's reader takes <is>, never <v>
                inline = state["inline"]
                if inline is not None:
                    if inline.odd:
                        raise _Unsupported("an inline string the engine's reader reads otherwise")
                    found[ref] = inline.value
            elif state["value"] is not None:
                raw = state["value"]
                if kind == "n":
                    value: Any = cell_number(raw)
                elif kind == "s":
                    value = strings[int(raw)]
                elif kind == "b":
                    value = bool(int(raw))
                elif kind == "str":
                    value = raw
                else:  # "e", "d": read otherwise by the engine
                    raise _Unsupported(f"a cell of type {kind!r}")
                found[ref] = value
            state["cell"] = None

    parser = expat.ParserCreate()
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.buffer_text = True
    parser.Parse(data, True)
    bounds = [range_bounds(ref) if ":" in ref else (cell_index(ref),) * 2 for ref in arrays]
    for ref, value in found.items():
        row, col = cell_index(ref)
        if any(r1 <= row <= r2 and c1 <= col <= c2 for (r1, c1), (r2, c2) in bounds):
            continue  # a cached value of an array formula's cell
        values[(sheet, ref)] = value
        positions.update(f"{sheet}\x00{ref}\x01".encode())


def read_cells(vetted: VettedWorkbook) -> WorkbookCells | None:
    """The fingerprints and values of a vetted workbook; None when it holds cells the
    fast reader does not read exactly as the engine does."""
    formulas = hashlib.sha256()
    positions = hashlib.sha256()
    values: dict[tuple[str, str], Any] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(vetted.data)) as archive:
            parts = sheet_parts(archive)
            strings = shared_strings(archive)
            workbook = archive.read("xl/workbook.xml").decode("utf-8", "replace")
            start, end = workbook.find("<definedNames"), workbook.find("</definedNames>")
            formulas.update(workbook[start:end].encode() if start >= 0 else b"")
            for title, part in parts.items():
                formulas.update(f"sheet\x00{title}\x01".encode())
                _read_sheet(archive.read(part), title, strings, formulas, positions, values)
    except (_Unsupported, expat.ExpatError, KeyError, ValueError, IndexError):
        return None
    return WorkbookCells(
        formulas=formulas.hexdigest(),
        positions=positions.hexdigest(),
        values=values,
        sheets=tuple(parts),
    )


@functools.cache
def template_fingerprints() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Formula fingerprint -> (template file name, its sheets) of the bundled templates."""
    from nj_incentives.workpapers.recalc.safety import DEFAULT_LIMITS, vet_workbook

    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    for path in sorted(shipped_workbooks(), key=lambda p: p.name):
        cells = read_cells(vet_workbook(path, DEFAULT_LIMITS))
        if cells is not None:
            found.setdefault(cells.formulas, (path.name, cells.sheets))
    return found


# --------------------------------------------------------------------------- the cache


@dataclass
class _Compiled:
    model: Any
    function: Callable[..., Any]
    inputs: list[str]
    input_cells: list[tuple[str, str]]
    input_ranges: list[Any]
    outputs: list[str]
    journal: Any
    load_notes: list[str] = field(default_factory=list)
    #: calls (and their errors) of formulas that depend on no input cell: computed once
    #: when compiling and kept in the model, counted in every evaluation as in a full one
    baked_calls: Counter[str] = field(default_factory=Counter)
    baked_errors: list[Any] = field(default_factory=list)


_CACHE: OrderedDict[tuple[str, str, str], _Compiled | None] = OrderedDict()
_CACHE_LOCK = threading.Lock()
#: Templates met once in this process and not compiled: a model is compiled only when a
#: second workbook of the same template arrives, so a one-off run (the README's main job:
#: one workbook per template) pays no compile on top of its full recalculation.
_SEEN: set[tuple[str, str, str]] = set()
#: How workbooks were recalculated in this process: "compiled", "full", "compiled-first",
#: "full-first" (the first workbook of a template: in full, not compiled)
STATS: Counter[str] = Counter()


def clear_cache() -> None:
    """Forget every compiled model (tests; a long-lived process that wants memory back)."""
    with _CACHE_LOCK:
        _CACHE.clear()
        _SEEN.clear()


def _node_cell(node: str) -> tuple[str, str] | None:
    """``'[book.xlsx]SHEET'!A1`` -> ("SHEET", "A1")."""
    if "]" not in node or "!" not in node:
        return None
    sheet, _, cell = node.rpartition("!")
    sheet = sheet.strip("'").split("]", 1)[1].replace("''", "'")
    return (sheet.upper(), cell.replace("$", "")) if ":" not in cell else None


def _compile(
    model: Any,
    solution: Mapping[Any, Any],
    journal: Any,
    load_notes: list[str],
    cells: WorkbookCells,
) -> Any:
    """The compiled model of a fully recalculated workbook, or None if the fast reader's
    values are not the engine's own for this workbook."""
    import schedula as sh
    from formulas.ranges import Ranges

    inputs, input_cells, input_ranges = [], [], []
    for cell in model.cells.values():
        if cell.func is not None or cell.value is sh.EMPTY:
            continue
        address = _node_cell(cell.output)
        if address is None or cells.values.get(address, sh.NONE) != cell.value:
            return None  # the fast reader would feed another value: never use it
        if type(cells.values[address]) is not type(cell.value):
            return None
        inputs.append(cell.output)
        input_cells.append(address)
        input_ranges.append(cell.range.ranges[0])
    if len(inputs) != len(cells.values):
        return None
    chosen = set(inputs)
    outputs = [
        key
        for key, value in solution.items()
        if isinstance(key, str) and isinstance(value, Ranges) and key not in chosen
    ]
    full_calls, full_errors = Counter(journal.calls), list(journal.errors)
    function = model.compile(inputs, outputs)
    entry = _Compiled(
        model=model,
        function=function,
        inputs=inputs,
        input_cells=input_cells,
        input_ranges=input_ranges,
        outputs=outputs,
        journal=journal,
        load_notes=list(load_notes),
    )
    # one evaluation with this workbook's own values: what the full run called beyond it
    # was computed at compile time (formulas of constants only) and stays in the model
    _run(entry, [cells.values[address] for address in input_cells])
    entry.baked_calls = full_calls - journal.calls
    remaining = list(journal.errors)
    for error in full_errors:
        if error in remaining:
            remaining.remove(error)
        else:
            entry.baked_errors.append(error)
    return entry


def _run(entry: _Compiled, values: list[Any]) -> Any:
    journal = entry.journal
    journal.calls = Counter()
    journal.errors = []
    journal.notes = list(entry.load_notes)
    results = entry.function(*values)
    return [results] if len(entry.outputs) == 1 else results


def _evaluate(entry: _Compiled, vetted: VettedWorkbook, cells: WorkbookCells) -> Any:
    from formulas.cell import format_output

    values = [cells.values[address] for address in entry.input_cells]
    journal = entry.journal
    with engine.LOCK, engine.quiet_engine(), engine.double_negation():
        start = time.perf_counter()
        results = _run(entry, values)
        journal.calls.update(entry.baked_calls)
        journal.errors[:0] = entry.baked_errors
        solution: dict[Any, Any] = dict(zip(entry.outputs, results, strict=True))
        for node, rng, value in zip(entry.inputs, entry.input_ranges, values, strict=True):
            solution[node] = format_output(rng, value)
        done = time.perf_counter()
        return engine.collect(vetted, entry.model, solution, journal, 0.0, done - start)


def recalculate_compiled(
    vetted: VettedWorkbook,
    functions: Mapping[str, Callable[..., Any]] | None = None,
    *,
    error_text: engine.ErrorText | None = None,
) -> engine.Recalculation:
    """Recalculate a vetted workbook: a filled bundled template by its compiled model,
    anything else in full (see the module docstring). The same results as
    :func:`~.engine.recalculate_vetted`."""
    if functions is not None or error_text is not None:
        return engine.recalculate_vetted(vetted, functions, error_text=error_text)
    started = time.perf_counter()
    cells = read_cells(vetted)
    if cells is None:
        return engine.recalculate_vetted(vetted)
    templates = template_fingerprints()
    if cells.formulas not in templates:
        result = engine.recalculate_vetted(vetted)
        like = [name for name, sheets in templates.values() if sheets == cells.sheets]
        if like:
            note = (
                f"its formulas differ from the bundled template {like[0]}: recalculated in"
                " full (the compiled template model is used only for the template's formulas)"
            )
            result = _with_note(result, note)
        return result
    from nj_incentives.functions import law_as_of_in_force

    # a model keeps the values of its formulas of constants: one per law_as_of of a run
    as_of = law_as_of_in_force()
    key = (cells.formulas, cells.positions, "" if as_of is None else as_of.isoformat())
    with _CACHE_LOCK:
        known = key in _CACHE
        entry = _CACHE.get(key)
        if known:
            _CACHE.move_to_end(key)
        first = not known and key not in _SEEN
        if first:
            _SEEN.add(key)
    if first:  # compile only once the template recurs
        STATS["full-first"] += 1
        return engine.recalculate_vetted(vetted)
    if known and entry is None:  # compiling it was refused once: always in full
        return engine.recalculate_vetted(vetted)
    if entry is not None:
        STATS["compiled"] += 1
        result = _evaluate(entry, vetted, cells)
        return _with_times(result, time.perf_counter() - started - result.calc_seconds)

    kept: dict[str, Any] = {}

    def keep(model: Any, solution: Mapping[Any, Any], journal: Any, notes: list[str]) -> None:
        kept["entry"] = _compile(model, solution, journal, notes, cells)

    STATS["compiled-first"] += 1
    result = engine.recalculate_vetted(vetted, keep=keep)
    with _CACHE_LOCK:
        _CACHE[key] = kept.get("entry")
        _SEEN.discard(key)
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return result


def _with_note(result: engine.Recalculation, note: str) -> engine.Recalculation:
    from dataclasses import replace

    return replace(result, notes=(*result.notes, note))


def _with_times(result: engine.Recalculation, load_seconds: float) -> engine.Recalculation:
    from dataclasses import replace

    return replace(result, load_seconds=max(0.0, load_seconds))
