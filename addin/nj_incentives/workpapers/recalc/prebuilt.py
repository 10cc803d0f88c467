"""A shipped template recalculated from its prebuilt form, without compiling a model.

The templates are declared in code (:mod:`nj_incentives.workpapers.templates`), so their
formulas are known before any user runs them. :func:`build_form` parses each template's
formulas once, with the ``formulas`` engine's own parser, into a **form**: every formula
(and every defined name) as the engine's own sequence of operands, operators and function
calls, in the order the cells depend on each other, with the fingerprint of the
template's formula graph. The forms are JSON files committed beside this module
(``recalc/forms/``, shipped in the wheel as package data);
``python -m nj_incentives.workpapers.templates.build`` writes them with the templates, and
a test fails when one is not the form of its template as built.

:func:`recalculate_prebuilt` recalculates a vetted workbook whose formula graph is a
template's (same sheets, same defined names, the same formulas in the same cells, the
same array ranges and dynamic-array marking; inputs may differ) by walking that form:

- every operator and native function is the ``formulas`` library's own object (the ones
  the full recalculation compiles into its model: ``OPERATORS``, the function tables),
  called with the same arguments the model passes them: a reference is the engine's
  ``Ranges`` object over the cells' values, a computed argument the array it returned;
- every NJ_* call goes through the same adapter (:func:`~.engine.function_adapter`), the same
  dynamic-array spill (:func:`~.engine.spiller`) and the same result conversion and
  collection as the full path, so the values, the calls counted, the rejected inputs and
  the notes are the same (tested on every example, saved copies and random inputs).

A committed form that is not its template's current form (missing, built from another
template file, by another ``formulas`` version or of another form version) is never used:
when a workbook's formula graph is such a template's (its fingerprints are read from the
template itself, :class:`Unbuilt`), the template's form is built in the process
(:func:`built_form`, once, as ``templates.build`` writes it) and walked.

**A roster continued on further sheets.** A template with a roster (its module's
``ROSTER``: Form 313's, 250 employees a sheet) is filled with ``k`` roster sheets a period
for a larger roster (``Part II base year (2)``, ``(3)`` ...), whose formulas, and the
ones reading the whole roster, depend only on ``k``: no form of it is committed, and its
formula graph is not the blank template's. When a workbook's sheets are a template's
with ``k - 1`` more for each period (:func:`forms_for`), the template is built with
``k`` roster sheets by its own builder, inputs blank (:func:`continued_template`, once a
process), its fingerprints read as the shipped template's are (:class:`Unbuilt` of
``roster_sheets`` k) and, when the workbook matches them, its form built in the process
(:func:`built_form`, about 2.5 s for Form 313 with 3 sheets) and walked; a changed
formula on any sheet gets the full path and the note of other formulas. No cache is kept
on disk (none is kept for the forms: the committed ones are the package's own data).
``calc`` of a 501-employee roster: 9.5 s in full, 5.3 s this way in a fresh process
(docs/performance.md, "Fill"); before, such a workbook always took the full path.

It returns None, and the caller recalculates in full, for anything else: a workbook whose
formulas differ from every template's (a note says so when its sheets are a template's,
or a template's with its roster continued),
cells the reader does not read as the engine does (error or date cells), a form that
cannot be built, or any unexpected exception while walking the form. An untrusted
workbook is vetted (:func:`~.safety.vet_workbook`) before it gets here: this path only
ever sees a :class:`~.safety.VettedWorkbook`.

**One fast path, one worksheet reader** (issue 30). Until then a third path,
``recalc.compiled``, evaluated a ``formulas`` model compiled in the process for the
third and later workbooks of a template (keyed by a fingerprint of its raw formula XML,
read by a second expat reader of its own). It was retired because this path and the full
engine cover every case it served, measured on the three examples, their openpyxl-,
pandas- and LibreOffice-saved copies, changed inputs, changed formulas, and error, date
and odd inline-string cells:

- with the shipped forms, every workbook it was handed (the ones this path left to the
  full path without a note) was one its reader refused too (the same rules: error and
  date cells, odd inline strings): it served no workbook by a model, only in full;
- it served a model only when no form was usable (a stale form: a template changed
  without its forms, or another ``formulas`` version than the forms'), and then only for
  files whose formula XML was byte for byte a template's (no saved copy); that case is
  now this path's (the in-process build above), which costs 0.45, 1.1 and 2.4 s a
  template (grant, conversion, ERTC) against 0.9, 8.7 and 33 s for one full
  recalculation of its example in the same run; four workbooks of one template with no
  usable form, in one process (fresh processes, the trees alternated, median of 3):
  compiled 21.1 / 43.2 / 58.6 s, the in-process form 2.1 / 8.8 / 16.6 s;
- where it did serve a model, this path is faster: per workbook, vetting included, in one
  process, alternated, median of 5 (load 8-13): grant 0.87 s full, 0.30 s compiled,
  0.16 s prebuilt; conversion 8.7 / 1.5 / 0.85 s; ERTC 33 / 3.3 / 2.2 s: compiled /
  prebuilt 1.5-1.9x. On saved copies full / prebuilt is 2.0-14.5x (compiled took none).

Its results were the full recalculation's field by field, so retiring it changes no
output byte (``calc``, sign-off and roll forward reach it only through
:func:`recalculate_template`). The worksheet XML of a workbook is now read by this
module's :func:`read_graph` (with :mod:`.ooxml`) on the fast path and by the ``formulas``
engine's own reader (openpyxl) on the full path, which the first is tested against.

Only the function modules the forms call are imported: ``formulas``' statistics module
imports SciPy at its top (1-1.5 s) for functions no template calls; it is imported with
SciPy stand-ins that import the real SciPy on first use (:func:`_native_functions`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import io
import json
import sys
import time
import types
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.parsers import expat

from nj_incentives.core.cells import cell_index, cell_name, range_bounds
from nj_incentives.runtimes.spelling import base_name
from nj_incentives.support.shipped import TEMPLATES, shipped_file
from nj_incentives.workpapers.recalc.ooxml import (
    InlineString,
    cell_number,
    local_name,
    shared_strings,
)
from nj_incentives.workpapers.recalc.safety import VettedWorkbook, sheet_parts

__all__ = [
    "FORMS",
    "FORM_VERSION",
    "STATS",
    "Form",
    "Unbuilt",
    "WorkbookGraph",
    "build_form",
    "built_form",
    "continued_roster_sheets",
    "continued_template",
    "form_path",
    "forms_for",
    "load_forms",
    "normal_formula",
    "read_graph",
    "recalculate_prebuilt",
    "recalculate_template",
    "write_forms",
]

#: The layout of a form; a form of another version is not used.
FORM_VERSION = 1
#: Where the forms live (package data, shipped in the wheel).
FORMS = Path(__file__).resolve().parent / "forms"
#: The file name the engine's references carry in a form (any name: only sheets matter).
_BOOK = "TEMPLATE.XLSX"
#: How workbooks were recalculated by :func:`recalculate_prebuilt` in this process.
STATS: dict[str, int] = {"prebuilt": 0, "full": 0}

Address = tuple[str, str]


class _Unsupported(Exception):
    """Something the prebuilt path does not read or walk exactly as the engine does."""


# --------------------------------------------------------------------------- reading


@dataclass
class WorkbookGraph:
    """A workbook's formula graph and its value cells, read from a vetted file's parts."""

    sheets: tuple[str, ...]
    #: workbook-level defined names: NAME (upper case) -> (name as written, text, hidden)
    names: dict[str, tuple[str, str, bool]]
    #: (sheet title, "A1") -> the formula text without "=" (shared formulas expanded)
    formulas: dict[Address, str]
    #: array formulas: (sheet title, anchor) -> range
    arrays: dict[Address, str]
    #: the array formulas marked as dynamic arrays
    dynamic: set[Address]
    #: (sheet title, "A1") -> the value as the engine reads it
    values: dict[Address, Any]
    #: sheet-level defined names (print areas: the engine ignores them, and so does the
    #: fingerprint)
    local_names: list[tuple[str, str, str]] = field(default_factory=list)
    #: cells this reader does not read exactly as the engine does (the workbook is then
    #: recalculated in full): why
    unsupported: list[str] = field(default_factory=list)

    def fingerprint(
        self,
        dynamic: set[Address] | None = None,
        normal: bool = False,
        without: Mapping[Address, Any] | None = None,
    ) -> str:
        """SHA-256 of the formula graph: sheets, defined names, every formula with its
        cell, array range and dynamic-array marking (``dynamic`` replaces the file's).
        ``normal``: each formula as the tokenizer reads it (function names in capitals,
        every NJ_* spelling as its name, no ``$``, no spaces), which a resave by another
        application does not change. ``without``: formula cells left out (the constants
        of :meth:`constants`, read as the values they are)."""
        marked = self.dynamic if dynamic is None else dynamic
        text = _normal if normal else _same
        digest = hashlib.sha256()
        digest.update(json.dumps(list(self.sheets)).encode())
        for key in sorted(self.names):
            _written, value, hidden = self.names[key]
            digest.update(json.dumps([key, text(value), hidden]).encode())
        for address in sorted(self.formulas):
            if without and address in without:
                continue
            entry = [
                *address,
                text(self.formulas[address]),
                self.arrays.get(address),
                address in marked,
            ]
            digest.update(json.dumps(entry).encode())
        return digest.hexdigest()

    def constants(self) -> dict[Address, bool]:
        """The formula cells that are a boolean constant as LibreOffice saves one: a TRUE
        or FALSE typed in a cell (or written by openpyxl) is saved as the formula
        ``TRUE()`` or ``FALSE()``, whose value is that boolean; cells of an array
        formula's range are not among them."""
        found: dict[Address, bool] = {}
        for address, text in self.formulas.items():
            value = _CONSTANTS.get(text.strip().upper())
            if value is None or address in self.arrays:
                continue
            row, col = cell_index(address[1])
            inside = any(
                sheet == address[0]
                and (bounds := range_bounds(ref if ":" in ref else f"{ref}:{ref}"))[0][0]
                <= row
                <= bounds[1][0]
                and bounds[0][1] <= col <= bounds[1][1]
                for (sheet, _anchor), ref in self.arrays.items()
            )
            if not inside:
                found[address] = value
        return found


#: LibreOffice's spelling of a boolean typed in a cell (its formula text without "=").
_CONSTANTS = {"TRUE()": True, "FALSE()": False}


def _same(text: str) -> str:
    return text


@functools.lru_cache(maxsize=4096)
def _normal(text: str) -> str:
    from openpyxl.formula.tokenizer import Token, Tokenizer, TokenizerError

    try:
        tokens = Tokenizer("=" + text.removeprefix("=")).items
    except TokenizerError:
        return "\x00" + text
    tokens = [token for token in tokens if token.type != Token.WSPACE]
    parts = []
    skip = False
    for number, token in enumerate(tokens):
        if skip:  # the ")" of TRUE() or FALSE()
            skip = False
            continue
        value = token.value
        if (
            token.type == Token.FUNC
            and token.subtype == Token.OPEN
            and value.upper() in ("TRUE(", "FALSE(")
            and number + 1 < len(tokens)
            and tokens[number + 1].type == Token.FUNC
            and tokens[number + 1].subtype == Token.CLOSE
        ):  # LibreOffice writes the constants as functions: the same value
            parts.append(f"{Token.OPERAND}:{Token.LOGICAL}:{value[:-1].upper()}")
            skip = True
            continue
        if token.type == Token.FUNC and token.subtype == Token.OPEN:
            name = value[:-1].upper().removeprefix("_XLFN.").removeprefix("_XLWS.")
            value = (base_name(name) or name) + "("
        elif token.type == Token.OPERAND and token.subtype == Token.RANGE:
            value = value.replace("$", "").upper()
        elif token.type == Token.OPERAND and token.subtype in (Token.LOGICAL, Token.ERROR):
            value = value.upper()
        parts.append(f"{token.type}:{token.subtype}:{value}")
    return "\x01".join(parts)


def normal_formula(text: str) -> str:
    """A formula as the tokenizer reads it (function names in capitals, every NJ_*
    spelling as its name, no ``$``, no spaces): two formulas that differ only as a
    resave by another application writes them are equal (the sign-off's comparison of a
    workbook's formulas with its template's)."""
    return _normal(text)


def _defined_names(workbook: bytes) -> tuple[dict[str, tuple[str, str, bool]], list[Any]]:
    names: dict[str, tuple[str, str, bool]] = {}
    local: list[tuple[str, str, str]] = []
    state: dict[str, Any] = {"attrs": None, "text": []}

    def start(name: str, attrs: dict[str, str]) -> None:
        if local_name(name) == "definedName":
            state["attrs"], state["text"] = attrs, []

    def end(name: str) -> None:
        if local_name(name) == "definedName" and state["attrs"] is not None:
            attrs, text = state["attrs"], "".join(state["text"])
            if attrs.get("localSheetId") is not None:
                local.append((attrs.get("name", ""), attrs["localSheetId"], text))
            else:
                hidden = attrs.get("hidden", "0").lower() in ("1", "true")
                names[attrs.get("name", "").upper()] = (attrs.get("name", ""), text, hidden)
            state["attrs"] = None

    def data(text: str) -> None:
        if state["attrs"] is not None:
            state["text"].append(text)

    parser = expat.ParserCreate()
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    parser.Parse(workbook, True)
    return names, local


def _read_sheet(data: bytes, title: str, strings: list[str], graph: WorkbookGraph) -> None:
    state: dict[str, Any] = {
        "cell": None,
        "in": None,
        "text": [],
        "f": None,
        "v": None,
        "inline": None,
    }
    found: dict[str, Any] = {}
    shared: dict[str, tuple[str, str]] = {}  # si -> (master cell, text)

    def start(name: str, attrs: dict[str, str]) -> None:
        local = local_name(name)
        inline = state["inline"]
        if inline is not None and inline.open:
            inline.start(local)
        elif local == "c":
            ref = attrs.get("r")
            if ref is None:
                raise _Unsupported("a cell without an address")
            state["cell"] = (ref, attrs.get("t", "n"), "cm" in attrs)
            state["f"] = state["v"] = state["inline"] = None
        elif local in ("f", "v") and state["cell"] is not None:
            state["in"], state["text"] = local, []
            if local == "f":
                state["fattrs"] = attrs
        elif local == "is" and state["cell"] is not None:
            if state["cell"][1] == "inlineStr" and inline is None:
                state["inline"] = InlineString()
                state["inline"].start(local)
            else:  # not read by the engine's reader, or a second one
                graph.unsupported.append(f"{title}!{state['cell'][0]}: an inline string")

    def text(chunk: str) -> None:
        inline = state["inline"]
        if inline is not None and inline.open:
            inline.text(chunk)
        elif state["in"] is not None:
            state["text"].append(chunk)

    def end(name: str) -> None:
        local = local_name(name)
        inline = state["inline"]
        if inline is not None and inline.open:
            inline.end()
        elif local in ("f", "v") and state["in"] == local:
            state[local] = "".join(state["text"])
            state["in"] = None
        elif local == "c" and state["cell"] is not None:
            ref, kind, marked = state["cell"]
            if state["f"] is not None:
                attrs = state["fattrs"]
                formula = state["f"]
                if attrs.get("t") == "shared":
                    si = attrs.get("si", "")
                    if formula:
                        shared[si] = (ref, formula)
                    elif si in shared:
                        from openpyxl.formula.translate import Translator

                        master, source = shared[si]
                        formula = Translator("=" + source, master).translate_formula(ref)[1:]
                    else:
                        raise _Unsupported("a shared formula without its master")
                elif attrs.get("t") not in (None, "normal", "array"):
                    raise _Unsupported(f"a formula of type {attrs.get('t')!r}")
                if formula.startswith("="):
                    formula = formula[1:]
                graph.formulas[(title, ref)] = formula
                if attrs.get("t") == "array":
                    graph.arrays[(title, ref)] = attrs.get("ref", ref)
                    if marked:
                        graph.dynamic.add((title, ref))
            elif kind == "inlineStr":  # the engine's reader takes <is>, never <v>
                inline = state["inline"]
                if inline is not None:
                    found[ref] = (
                        _Unsupported("an inline string read otherwise by the engine")
                        if inline.odd
                        else inline.value
                    )
            elif state["v"] is not None:
                raw = state["v"]
                value: Any
                if kind == "n":
                    value = cell_number(raw)
                elif kind == "s":
                    value = strings[int(raw)]
                elif kind == "b":
                    value = bool(int(raw))
                elif kind == "str":
                    if raw.startswith("="):
                        raise _Unsupported("a text cell that reads as a formula")
                    value = raw
                else:  # "e", "d": read otherwise by the engine
                    value = _Unsupported(f"a cell of type {kind!r}")
                found[ref] = value
            state["cell"] = None

    parser = expat.ParserCreate()
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.buffer_text = True
    parser.Parse(data, True)
    bounds = [
        range_bounds(ref) if ":" in ref else (cell_index(ref),) * 2
        for (sheet, _), ref in graph.arrays.items()
        if sheet == title
    ]
    for ref, value in found.items():
        row, col = cell_index(ref)
        if any(r1 <= row <= r2 and c1 <= col <= c2 for (r1, c1), (r2, c2) in bounds):
            continue  # a cached value of an array formula's cell
        if isinstance(value, _Unsupported):
            graph.unsupported.append(f"{title}!{ref}: {value}")
            continue
        graph.values[(title, ref)] = value


def read_graph(vetted: VettedWorkbook) -> WorkbookGraph | None:
    """The formula graph and value cells of a vetted workbook; None when it holds cells
    this reader does not read exactly as the engine does."""
    try:
        with zipfile.ZipFile(io.BytesIO(vetted.data)) as archive:
            parts = sheet_parts(archive)
            strings = shared_strings(archive)
            names, local = _defined_names(archive.read("xl/workbook.xml"))
            graph = WorkbookGraph(tuple(parts), names, {}, {}, set(), {}, sorted(local))
            for title, part in parts.items():
                _read_sheet(archive.read(part), title, strings, graph)
    except (_Unsupported, expat.ExpatError, KeyError, ValueError, IndexError):
        return None
    return graph


# --------------------------------------------------------------------------- the forms


@dataclass
class Form:
    """A template's formulas as the engine's operations, in dependency order."""

    template: str
    template_id: str
    source_sha256: str
    fingerprint: str
    normal_fingerprint: str
    loose_fingerprint: str
    sheets: tuple[str, ...]
    #: NAME -> (name as written, the engine's reference)
    names: dict[str, tuple[str, str]]
    #: [kind ("cell"/"name"), sheet or NAME, anchor, the engine's output range, steps]
    nodes: list[list[Any]]
    nj: tuple[str, ...]
    functions: tuple[str, ...]

    def to_json(self) -> str:
        document = {
            "format": FORM_VERSION,
            "formulas_version": _formulas_version(),
            "template": self.template,
            "template_id": self.template_id,
            "source_sha256": self.source_sha256,
            "fingerprint": self.fingerprint,
            "normal_fingerprint": self.normal_fingerprint,
            "loose_fingerprint": self.loose_fingerprint,
            "sheets": list(self.sheets),
            "names": {k: list(v) for k, v in sorted(self.names.items())},
            "nj": list(self.nj),
            "functions": list(self.functions),
        }
        head = json.dumps(document, ensure_ascii=False)[:-1]
        nodes = ",\n".join(json.dumps(node, ensure_ascii=False) for node in self.nodes)
        return f'{head}, "nodes": [\n{nodes}\n]}}\n'  # a formula a line: readable diffs

    @classmethod
    def from_json(cls, text: str) -> Form | None:
        document = json.loads(text)
        if document.get("format") != FORM_VERSION:
            return None
        if document.get("formulas_version") != _formulas_version():
            return None
        return cls(
            template=document["template"],
            template_id=document["template_id"],
            source_sha256=document["source_sha256"],
            fingerprint=document["fingerprint"],
            normal_fingerprint=document["normal_fingerprint"],
            loose_fingerprint=document["loose_fingerprint"],
            sheets=tuple(document["sheets"]),
            names={k: (v[0], v[1]) for k, v in document["names"].items()},
            nodes=document["nodes"],
            nj=tuple(document["nj"]),
            functions=tuple(document["functions"]),
        )


def _formulas_version() -> str:
    from importlib.metadata import version

    return version("formulas")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def form_path(template: str, directory: Path = FORMS) -> Path:
    """Where the form of ``template`` (a file name of
    :data:`~nj_incentives.support.shipped.TEMPLATES`)
    lives."""
    return directory / (Path(template).stem + ".json")


def _encode(value: Any) -> list[Any]:
    from formulas.tokens.operand import XlError

    if isinstance(value, XlError):
        return ["e", str.__str__(value)]
    if isinstance(value, (bool, int, float, str)):
        return ["v", value]
    raise _Unsupported(f"a constant {value!r}")


@contextlib.contextmanager
def _parsing(nj: list[str]) -> Iterator[Any]:
    """The engine's parser with every NJ_* name and the spill helper registered, as the
    full recalculation has them when it parses (an unknown name would parse otherwise)."""
    import formulas
    from formulas.builder import AstBuilder
    from formulas.parser import Parser

    from nj_incentives.workpapers.recalc import engine

    registry = formulas.get_functions()
    missing = object()
    names = [*nj, engine.SPILL]
    saved = {name: registry.get(name, missing) for name in names}
    for name in names:
        registry[name] = lambda *args: None
    recorded: list[Any] = []

    class Recorder(AstBuilder):  # type: ignore[misc]
        def append(self, token: Any) -> None:
            recorded.append(token)
            super().append(token)

    parser = Parser(True)
    parser.ast_builder = Recorder
    try:
        with engine.double_negation():
            yield parser, recorded
    finally:
        for name, previous in saved.items():
            if previous is missing:
                registry.pop(name, None)
            else:
                registry[name] = previous


def _steps(parser: Any, recorded: list[Any], text: str, context: dict[str, Any]) -> list[Any]:
    """The engine's operations for one formula, in the order it evaluates them."""
    from formulas.tokens.function import Function
    from formulas.tokens.operand import Error, Operand, Range
    from formulas.tokens.operator import Operator

    recorded.clear()
    parser.ast("=" + text, context=context)
    steps: list[Any] = []
    ids: dict[str, int] = {}
    for token in recorded:
        if isinstance(token, (Operator, Function)):
            if isinstance(token, Function) and token.attr.get("func_token"):
                raise _Unsupported(f"an unknown function {token.name}")
            kind = "o" if isinstance(token, Operator) else "f"
            node = ids.setdefault(token.node_id, len(ids))
            steps.append([kind, token.name.upper(), token.get_n_args, node])
        elif isinstance(token, Range):
            if token.attr.get("is_ranges"):
                raise _Unsupported("a union of ranges")
            name = token.attr["name"]
            steps.append(["r", name])
        elif isinstance(token, (Error, Operand)):
            steps.append(_encode(token.compile()))
        else:
            raise _Unsupported(f"a token {token!r}")
    return steps


def _output_range(sheet: str, cells: str) -> str:
    return f"'[{_BOOK}]{sheet.upper()}'!{cells}"


def build_form(template: Path) -> Form:
    """The form of a template workbook (raises ValueError for a formula it cannot walk)."""
    from formulas.ranges import Ranges

    from nj_incentives.workpapers.recalc import engine
    from nj_incentives.workpapers.recalc.safety import vet_workbook

    vetted = vet_workbook(template)
    graph = read_graph(vetted)
    if graph is None:
        raise ValueError(f"{template.name}: cells the prebuilt path does not read")
    functions = engine.default_functions()
    variants = engine.function_variants(
        [*graph.formulas.values(), *(t for _, t, _ in graph.names.values())], sorted(functions)
    )
    nj = sorted(set(variants))
    titles = {title.upper(): title for title in graph.sheets}
    # the cells each formula computes, to order them by their references
    owners: dict[tuple[str, int, int], int] = {}
    units: list[list[Any]] = []
    names: dict[str, tuple[str, str]] = {}
    try:
        with _parsing(nj) as (parser, recorded):
            for (sheet, cell), text in sorted(graph.formulas.items()):
                span = graph.arrays.get((sheet, cell), cell)
                if (sheet, cell) in graph.dynamic:
                    (r1, c1), (r2, c2) = range_bounds(span if ":" in span else f"{span}:{span}")
                    text = f"{engine.SPILL}({text},{r2 - r1 + 1},{c2 - c1 + 1})"
                row, col = cell_index(cell)
                context: dict[str, Any] = {
                    "filename": _BOOK,
                    "sheet": sheet.upper(),
                    "directory": "",
                    "cr": row,
                    "cc": col,
                }
                steps = _steps(parser, recorded, text, context)
                output = _output_range(sheet, span)
                number = len(units)
                units.append(["cell", sheet, cell, output, steps])
                (r1, c1), (r2, c2) = range_bounds(span if ":" in span else f"{span}:{span}")
                for r in range(r1, r2 + 1):
                    for c in range(c1, c2 + 1):
                        owners[(sheet.upper(), r, c)] = number
            for key, (written, text, hidden) in sorted(graph.names.items()):
                if hidden:
                    continue
                steps = _steps(parser, recorded, text, {"filename": _BOOK, "directory": ""})
                if len(steps) != 1 or steps[0][0] != "r":
                    raise _Unsupported(f"the defined name {written} is not a reference")
                names[key] = (written, steps[0][1])
                units.append(["name", key, "", steps[0][1], steps])
    except _Unsupported as error:
        raise ValueError(f"{template.name}: {error}") from error
    except Exception as error:
        raise ValueError(f"{template.name}: the engine cannot parse it ({error})") from error

    index = {unit[1]: n for n, unit in enumerate(units) if unit[0] == "name"}

    def depends(steps: list[Any]) -> set[int]:
        found: set[int] = set()
        for step in steps:
            if step[0] != "r":
                continue
            name = step[1]
            label = name.rsplit("!", 1)[-1]
            if name.startswith(f"'[{_BOOK}]'!"):
                if label not in index:
                    raise ValueError(f"{template.name}: the name {label} is not defined")
                found.add(index[label])
                continue
            rng = Ranges.get_range(name)
            sheet = titles.get(str(rng["sheet"]).upper(), str(rng["sheet"])).upper()
            for r in range(int(rng["r1"]), int(rng["r2"]) + 1):
                for c in range(int(rng["n1"]), int(rng["n2"]) + 1):
                    owner = owners.get((sheet, r, c))
                    if owner is not None:
                        found.add(owner)
        return found

    edges = [depends(unit[4]) for unit in units]
    order: list[int] = []
    state = [0] * len(units)  # 0 new, 1 on the path, 2 done
    for root in range(len(units)):
        if state[root]:
            continue
        stack = [(root, iter(sorted(edges[root])))]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            advanced = False
            for child in children:
                if state[child] == 1:
                    raise ValueError(f"{template.name}: a circular reference")
                if state[child] == 0:
                    state[child] = 1
                    stack.append((child, iter(sorted(edges[child]))))
                    advanced = True
                    break
            if not advanced:
                stack.pop()
                state[node] = 2
                order.append(node)
    used = sorted({s[1] for u in units for s in u[4] if s[0] == "f"} - set(nj) - {engine.SPILL})
    from nj_incentives.workpapers.recalc.templates import template_id

    return Form(
        template=template.name,
        template_id=template_id(vetted),
        source_sha256=_sha256(template),
        fingerprint=graph.fingerprint(),
        normal_fingerprint=graph.fingerprint(normal=True),
        loose_fingerprint=graph.fingerprint(dynamic=set(), normal=True),
        sheets=graph.sheets,
        names=names,
        nodes=[units[n] for n in order],
        nj=tuple(base_name(v) or v for v in nj),
        functions=tuple(used),
    )


def write_forms(directory: Path = FORMS, templates: Mapping[str, Path] | None = None) -> list[Path]:
    """Write the form of every shipped template into ``directory`` (default: beside this
    module, the copies the wheel ships); returns the paths written."""
    if templates is None:
        templates = {name: shipped_file(name) for name in TEMPLATES}
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, path in templates.items():
        target = form_path(name, directory)
        text = build_form(path).to_json()
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


@functools.cache
def load_forms() -> tuple[Form, ...]:
    """The forms of the shipped templates that are current: a form whose template file
    is not the one it was built from (or of another form version) is left out."""
    forms = []
    for name in TEMPLATES:
        path, template = form_path(name), shipped_file(name)
        if not path.is_file() or not template.is_file():
            continue
        try:
            form = Form.from_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError):
            continue
        if form is not None and form.source_sha256 == _sha256(template):
            forms.append(form)
    return tuple(forms)


@dataclass(frozen=True)
class Unbuilt:
    """A shipped template whose committed form is not current (missing, built from another
    template file, by another ``formulas`` version or of another form version), or a
    shipped template with a roster continued on further sheets (``roster_sheets`` per
    period, more than one: no form of it is committed), with the fingerprints of its
    formula graph read from the template itself (the form's own fingerprints): its form
    is built in the process only when a workbook matches it."""

    template: str
    template_id: str
    sheets: tuple[str, ...]
    fingerprint: str
    normal_fingerprint: str
    loose_fingerprint: str
    #: roster sheets per period: 1 the shipped template; more, the template as ``fill``
    #: writes it for a roster of more than one sheet (:func:`continued_template`)
    roster_sheets: int = 1


def forms_for(sheets: tuple[str, ...]) -> tuple[Form | Unbuilt, ...]:
    """What a workbook with these sheets is matched against: every current committed form
    (:func:`load_forms`), each shipped template with these sheets whose committed
    form is not current (:class:`Unbuilt`; :func:`built_form` builds its form) and, when
    no shipped template has these sheets, a template with a roster continued on as many
    further sheets as these sheets are (:func:`_continued`)."""
    forms = load_forms()
    current = {form.template for form in forms}
    unbuilt = (_unbuilt(name) for name in TEMPLATES if name not in current)
    found: tuple[Form | Unbuilt, ...] = (
        *forms,
        *(u for u in unbuilt if u is not None and u.sheets == sheets),
    )
    if any(form.sheets == sheets for form in found):
        return found
    return (*found, *_continued(sheets))


@functools.cache
def _roster_sheets(name: str) -> tuple[int, int]:
    """(the periods, the most roster sheets a period) of the shipped template ``name``'s
    roster (its module's ``ROSTER``, :class:`~nj_incentives.core.workpaper.Roster`);
    (0, 0) when it has none."""
    from nj_incentives import programs

    try:
        roster = getattr(programs.template(Path(name).stem), "ROSTER", None)
    except (LookupError, ValueError, ImportError):
        return 0, 0
    if roster is None:
        return 0, 0
    return len(roster.hours), roster.most_sheets


def _continued(sheets: tuple[str, ...]) -> Iterator[Unbuilt]:
    """The shipped templates with a roster continued on further sheets (each period's
    roster on ``k`` sheets, :class:`Unbuilt` of ``roster_sheets`` k) whose sheets are
    ``sheets``: a template is built with ``k`` roster sheets (:func:`continued_template`)
    only when ``sheets`` hold all of its own and ``k - 1`` more for each period."""
    for name in TEMPLATES:
        blank = next((form.sheets for form in load_forms() if form.template == name), None)
        if blank is None:
            shipped = _unbuilt(name)
            if shipped is None:
                continue
            blank = shipped.sheets
        if len(sheets) <= len(blank) or not set(blank) <= set(sheets):
            continue  # (a template's own workbook: its declaration is not even read)
        periods, most = _roster_sheets(name)
        if not periods:
            continue
        more, rest = divmod(len(sheets) - len(blank), periods)
        if rest or not 1 <= more < most:
            continue
        found = _unbuilt(name, more + 1)
        if found is not None and found.sheets == sheets:
            yield found


def continued_roster_sheets(name: str, sheets: tuple[str, ...]) -> int:
    """The roster sheets a period of a workbook of the shipped template ``name`` with
    these sheets: more than 1 when they are the template's with its roster continued on
    further sheets (:func:`_continued`), else 1."""
    for found in _continued(sheets):
        if found.template == name:
            return found.roster_sheets
    return 1


@functools.cache
def _continued_bytes(name: str, roster_sheets: int) -> bytes:
    """The shipped template ``name`` with ``roster_sheets`` roster sheets a period, as the
    builder writes it (``fill``'s workbook for a roster of that many sheets, inputs blank:
    the formulas depend only on the number of sheets)."""
    import tempfile

    from nj_incentives import programs
    from nj_incentives.core.workpaper import ROSTER_KEY
    from nj_incentives.workpapers.templates.builder import build_template

    module = programs.template(Path(name).stem)
    roster = module.ROSTER
    employees = [roster.blank_employee()] * ((roster_sheets - 1) * roster.per_sheet + 1)
    with tempfile.TemporaryDirectory() as directory:
        path = build_template(module, Path(directory) / name, {ROSTER_KEY: employees})
        return path.read_bytes()


@contextlib.contextmanager
def continued_template(name: str, roster_sheets: int = 1) -> Iterator[Path]:
    """The shipped template ``name`` (``roster_sheets`` 1), or as the builder writes it
    with ``roster_sheets`` roster sheets a period (in a temporary file named ``name``,
    built once a process)."""
    if roster_sheets == 1:
        yield shipped_file(name)
        return
    import tempfile

    data = _continued_bytes(name, roster_sheets)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / name
        path.write_bytes(data)
        yield path


@functools.cache
def _unbuilt(name: str, roster_sheets: int = 1) -> Unbuilt | None:
    from nj_incentives.workpapers.recalc.safety import vet_workbook
    from nj_incentives.workpapers.recalc.templates import template_id

    try:
        with continued_template(name, roster_sheets) as path:
            vetted = vet_workbook(path)
        graph = read_graph(vetted)
    except Exception:  # no such template or not readable: no form for it
        return None
    if graph is None:
        return None
    return Unbuilt(
        template=name,
        template_id=template_id(vetted),
        sheets=graph.sheets,
        fingerprint=graph.fingerprint(),
        normal_fingerprint=graph.fingerprint(normal=True),
        loose_fingerprint=graph.fingerprint(dynamic=set(), normal=True),
        roster_sheets=roster_sheets,
    )


@functools.cache
def built_form(name: str, roster_sheets: int = 1) -> Form | None:
    """The form of the shipped template ``name`` built in this process, as ``templates.build``
    writes it, or of the template with ``roster_sheets`` roster sheets a period
    (:func:`continued_template`); None when it cannot be built: its workbooks then take
    the full path."""
    from nj_incentives.workpapers.recalc import engine

    try:
        with engine.LOCK, continued_template(name, roster_sheets) as path:
            # parsing registers names in the engine's global function table
            return build_form(path)
    except Exception:  # a formula the installed engine parses otherwise: never a guess
        return None


# --------------------------------------------------------------------------- walking


_SCIPY = ("scipy", "scipy.stats", "scipy.linalg", "scipy.interpolate")


class _LazyModule(types.ModuleType):
    """A stand-in for a SciPy module: the real module is imported on first use."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_importing"] = True

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        if self.__dict__.get("_importing"):
            return _LazyAttribute(self.__name__, attribute)
        return getattr(importlib.import_module(self.__name__), attribute)


class _LazyAttribute:
    def __init__(self, module: str, name: str) -> None:
        self._module, self._name = module, name

    def _target(self) -> Any:
        return getattr(importlib.import_module(self._module), self._name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._target()(*args, **kwargs)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._target(), attribute)


@functools.cache
def _native_functions() -> dict[str, Any]:
    """``formulas``' function table for the modules the templates call (what
    ``formulas.get_functions()`` holds for those names), without importing SciPy until
    a function that needs it runs."""
    import formulas.functions as base

    modules = [".info", ".logic", ".math", ".stat", ".text", ".look", ".date"]
    stand_ins: dict[str, _LazyModule] = {}
    if "formulas.functions.stat" not in sys.modules and "scipy" not in sys.modules:
        stand_ins = {name: _LazyModule(name) for name in _SCIPY}
        for name, module in stand_ins.items():
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(stand_ins[parent], child, module)
    previous = {name: sys.modules.get(name) for name in stand_ins}
    try:
        sys.modules.update(stand_ins)
        table: dict[str, Any] = {}
        for name in modules:
            table.update(importlib.import_module(name, "formulas.functions").FUNCTIONS)
        table.update(base.FUNCTIONS)
    finally:
        for name, module in stand_ins.items():
            module.__dict__["_importing"] = False
            if sys.modules.get(name) is module:
                if previous[name] is None:
                    del sys.modules[name]
                else:
                    sys.modules[name] = previous[name]  # type: ignore[assignment]
    return table


@dataclass
class _Runtime:
    """What walking the forms needs, made once per process."""

    functions: dict[str, Any]
    ranges: Callable[[str], Any]


@functools.cache
def _runtime() -> _Runtime:
    from formulas.ranges import Ranges

    table = _native_functions()
    return _Runtime(functions=table, ranges=functools.lru_cache(maxsize=None)(Ranges.get_range))


def _walk(
    form: Form,
    graph: WorkbookGraph,
    adapters: Mapping[str, Any],
    spill: Any,
) -> tuple[dict[tuple[str, int, int], Any], dict[str, Any]]:
    """Every formula of ``form`` over the workbook's values: (SHEET, row, col) -> the
    engine's value of each computed cell, and NAME -> the engine's value of each name."""
    import numpy as np
    import schedula as sh
    from formulas.cell import format_output
    from formulas.functions import replace_empty
    from formulas.functions.operators import OPERATORS
    from formulas.ranges import Ranges
    from formulas.tokens.operand import Error, XlError

    runtime = _runtime()
    functions = runtime.functions
    get_range = runtime.ranges
    titles = {title.upper(): title for title in graph.sheets}
    store: dict[tuple[str, int, int], Any] = {}
    for (sheet, cell), value in graph.values.items():
        row, col = cell_index(cell)
        store[(sheet.upper(), row, col)] = value
    names: dict[str, Any] = {}
    spans: set[str] = set()  # the references read: the engine's range nodes

    def reference(name: str) -> Any:
        if name.startswith(f"'[{_BOOK}]'!"):
            return names[name.rsplit("!", 1)[-1]]
        rng = get_range(name)
        spans.add(name)
        sheet = titles.get(str(rng["sheet"]).upper(), str(rng["sheet"])).upper()
        r1, r2, n1, n2 = int(rng["r1"]), int(rng["r2"]), int(rng["n1"]), int(rng["n2"])
        grid = np.empty((r2 - r1 + 1, n2 - n1 + 1), object)
        get = store.get
        empty = sh.EMPTY
        for i, r in enumerate(range(r1, r2 + 1)):
            row = grid[i]
            for j, c in enumerate(range(n1, n2 + 1)):
                row[j] = get((sheet, r, c), empty)
        found = Ranges((rng,), {rng["name"]: (rng, grid)})
        found._value = grid
        return found

    def call(kind: str, name: str, args: list[Any]) -> Any:
        if kind == "o":
            return OPERATORS[name](*args)
        if name == "_NJSPILL":
            return spill(*args)
        adapter = adapters.get(name)
        if adapter is not None:
            return adapter(*args)
        spec = functions.get(name)
        if spec is None:
            raise _Unsupported(f"the function {name}")
        if isinstance(spec, dict):
            extra = [v for v in spec.get("extra_inputs", {}).values() if v is not sh.NONE]
            return spec["function"](*extra, *args)
        return spec(*args)

    for kind, where, _anchor, output, steps in form.nodes:
        shown = _shown_cell(steps) if kind == "cell" else None
        if shown is not None:  # a companion's cell shown: its value, blank or error ""
            rng = get_range(shown)
            source = store.get(
                (
                    titles.get(str(rng["sheet"]).upper(), str(rng["sheet"])).upper(),
                    int(rng["r1"]),
                    int(rng["n1"]),
                ),
                sh.EMPTY,
            )
            spans.add(shown)
            if source is sh.EMPTY or source is None or isinstance(source, XlError):
                source = ""
            target = get_range(output)
            store[(where.upper(), int(target["r1"]), int(target["n1"]))] = source
            continue
        stack: list[Any] = []
        memo: dict[int, Any] = {}
        for step in steps:
            tag = step[0]
            if tag == "r":
                stack.append(reference(step[1]))
            elif tag == "v":
                stack.append(step[1])
            elif tag == "e":
                stack.append(Error.errors[step[1]])
            else:
                _, name, count, node = step
                args = stack[len(stack) - count :] if count else []
                del stack[len(stack) - count :]
                if node in memo:
                    stack.append(memo[node])
                    continue
                try:
                    result = call(tag, name, args)
                except NotImplementedError:
                    result = Error.errors["#NAME?"]
                memo[node] = result
                stack.append(result)
        if len(stack) != 1:
            raise _Unsupported(f"a formula that leaves {len(stack)} values")
        value = stack[0]
        if kind == "name":
            names[where] = replace_empty(value)
            continue
        if isinstance(value, Ranges):
            value = value.value
        value = replace_empty(value)
        rng = get_range(output)
        shaped = format_output(rng, value)
        grid = next(iter(shaped.values.values()))[1]
        sheet = where.upper()
        r1, n1 = int(rng["r1"]), int(rng["n1"])
        for i, row in enumerate(grid):
            for j, item in enumerate(row):
                store[(sheet, r1 + i, n1 + j)] = item
    for name in spans:  # the engine's solution holds every cell of a range it read
        rng = get_range(name)
        r1, r2, n1, n2 = int(rng["r1"]), int(rng["r2"]), int(rng["n1"]), int(rng["n2"])
        if r1 == r2 and n1 == n2:
            continue
        sheet = titles.get(str(rng["sheet"]).upper(), str(rng["sheet"])).upper()
        for r in range(r1, r2 + 1):
            for c in range(n1, n2 + 1):
                store.setdefault((sheet, r, c), sh.EMPTY)
    return store, names


def _shown_cell(steps: Sequence[Any]) -> str | None:
    """The reference a node's steps show, when they are the builder's formula showing a
    companion sheet's cell (``IFERROR(IF(ISBLANK(X),"",X),"")``, X one cell): the walk
    copies its value (a blank or an error as "") without the three calls, as the engine
    computes it (held equal to the full path by the prebuilt tests)."""
    if len(steps) != 7:
        return None
    first, blank, empty, second, choose, fallback, guard = steps
    if (
        first[0] == "r"
        and second == first
        and blank[:3] == ["f", "ISBLANK", 1]
        and empty == ["v", ""]
        and choose[:3] == ["f", "IF", 3]
        and fallback == ["v", ""]
        and guard[:3] == ["f", "IFERROR", 2]
        and ":" not in str(first[1]).rsplit("!", 1)[-1]
    ):
        return str(first[1])
    return None


def _match(
    graph: WorkbookGraph, vetted: VettedWorkbook
) -> tuple[Form | Unbuilt | None, list[str], set[Address], dict[Address, bool]]:
    """The form (or :class:`Unbuilt` form) whose formula graph is the workbook's, the
    notes of restoring the dynamic-array marking a save by openpyxl, pandas or LibreOffice
    dropped (as the full path restores it:
    :func:`nj_incentives.workpapers.recalc.templates.restore_spills`), the marking, and
    the boolean constants LibreOffice saved as formulas (:meth:`WorkbookGraph.constants`)
    in cells where the form has no formula: the walk reads them as the values they are
    (a switch answered TRUE and saved by LibreOffice is the template's formulas with an
    input, not other formulas)."""
    from nj_incentives.workpapers.recalc.templates import restore_spills

    forms = forms_for(graph.sheets)
    if not forms:
        return None, [], set(), {}
    dynamic = {a: graph.arrays[a] for a in graph.dynamic}
    restored, notes = restore_spills(vetted, dynamic)
    marked = graph.dynamic | set(restored)
    constants = graph.constants()
    for without in ({}, constants) if constants else ({},):
        exact = graph.fingerprint(marked, without=without)
        found = next((form for form in forms if form.fingerprint == exact), None)
        if found is None:
            normal = graph.fingerprint(marked, normal=True, without=without)
            found = next((form for form in forms if form.normal_fingerprint == normal), None)
        if found is not None:
            return found, notes, marked, without
    return None, notes, marked, {}


def recalculate_prebuilt(
    vetted: VettedWorkbook, functions: Mapping[str, Callable[..., Any]] | None = None
) -> Any:
    """The :class:`~.engine.Recalculation` of a workbook whose formulas are a shipped
    template's, from the template's form; None when the full path must recalculate it
    (see :func:`prebuilt_or_note`). ``functions``: the NJ_* callables by Excel name (by
    default, as :func:`~.engine.recalculate_vetted`'s, the package's own)."""
    return prebuilt_or_note(vetted, functions)[0]


def recalculate_template(vetted: VettedWorkbook) -> Any:
    """What ``nj-incentives calc`` runs for each vetted workbook: a shipped template's
    from its form; anything else in full (:func:`~.engine.recalculate_vetted`), with a
    note when its formulas differ from its template's."""
    result, note = prebuilt_or_note(vetted)
    if result is not None:
        return result
    from dataclasses import replace

    from nj_incentives.workpapers.recalc import engine

    full = engine.recalculate_vetted(vetted)
    return full if note is None else replace(full, notes=(*full.notes, note))


def prebuilt_or_note(
    vetted: VettedWorkbook, functions: Mapping[str, Callable[..., Any]] | None = None
) -> tuple[Any, str | None]:
    """(the recalculation from a template's form, None), or (None, a note for the full
    recalculation or None) when the workbook is not a shipped template's."""
    from nj_incentives.workpapers.recalc import engine

    started = time.perf_counter()
    graph = read_graph(vetted)
    if graph is None:
        return None, None
    found, restore_notes, marked, constants = _match(graph, vetted)
    if found is None:
        STATS["full"] += 1
        return None, _difference_note(graph, vetted)
    if graph.unsupported:  # the template's formulas, cells read otherwise: in full
        STATS["full"] += 1
        return None, None
    graph.values.update(constants)  # LibreOffice's TRUE() / FALSE(): the booleans they are
    form = built_form(found.template, found.roster_sheets) if isinstance(found, Unbuilt) else found
    if form is None:  # its template's form cannot be built here: in full, no guess
        STATS["full"] += 1
        return None, None
    table = engine.default_functions() if functions is None else dict(functions)
    if not set(form.nj) <= set(table):
        return None, None
    journal = engine.Journal()
    journal.notes.extend(restore_notes)
    error_text = engine.default_error_text
    try:
        with engine.LOCK, engine.quiet_engine(), engine.double_negation():
            adapters = {
                name: engine.function_adapter(name, table[name], journal, error_text)
                for name in form.nj
            }
            spill = engine.spiller(journal)
            loaded = time.perf_counter()
            store, names = _walk(form, graph, adapters, spill)
            done = time.perf_counter()
    except Exception:  # anything unexpected: the full path, never a guess
        STATS["full"] += 1
        return None, None
    STATS["prebuilt"] += 1
    result = _collect(vetted, form, graph, marked, store, names, journal)
    return (
        _replace_times(result, loaded - started, done - loaded),
        None,
    )


def _replace_times(result: Any, load: float, calc: float) -> Any:
    from dataclasses import replace

    return replace(result, load_seconds=load, calc_seconds=calc)


def _difference_note(graph: WorkbookGraph, vetted: VettedWorkbook) -> str | None:
    """Why a workbook with a template's sheets was not recalculated from its form."""
    from nj_incentives.workpapers.recalc.templates import template_id

    claimed = template_id(vetted)
    forms = sorted(
        (form for form in forms_for(graph.sheets) if form.sheets == graph.sheets),
        key=lambda form: form.template_id != claimed,  # the template it names first
    )
    if not forms:
        return None
    loose = graph.fingerprint(set(), normal=True)
    for form in forms:
        if form.loose_fingerprint == loose:
            return (
                f"its array formulas are not marked as dynamic arrays where the bundled "
                f"template {form.template} marks them (a save that drops the marking, e.g. "
                "openpyxl's): recalculated in full as the file now says (legacy arrays: #N/A "
                "below a shorter result); re-enter them in Excel 365 or fill the template again"
            )
    return (
        f"its formulas differ from the bundled template {forms[0].template}: recalculated in"
        " full (the template's prebuilt form is used only for the template's formulas)"
    )


def _collect(
    vetted: VettedWorkbook,
    form: Form,
    graph: WorkbookGraph,
    marked: set[Address],
    store: Mapping[tuple[str, int, int], Any],
    names: Mapping[str, Any],
    journal: Any,
) -> Any:
    """The :class:`~.engine.Recalculation`, as :func:`~.engine.collect` makes it from the
    engine's solution."""
    import numpy as np
    from formulas.ranges import Ranges

    from nj_incentives.workpapers.recalc import engine

    convert = engine.convert_value
    titles = {title.upper(): title for title in graph.sheets}
    values: dict[Address, Any] = {}
    for (sheet, row, col), value in store.items():
        values[(titles[sheet], cell_name(row, col))] = convert(value)
    formulas_text: dict[Address, str] = {}
    computed: set[Address] = set()
    for (sheet, cell), text in graph.formulas.items():
        formulas_text[(sheet, cell)] = "=" + text
        computed.add((sheet, cell))
    for (sheet, anchor), ref in graph.arrays.items():
        (r1, c1), (r2, c2) = range_bounds(ref if ":" in ref else f"{ref}:{ref}")
        computed.update(
            (sheet, cell_name(r, c)) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)
        )
        if (sheet, anchor) not in marked:
            formulas_text[(sheet, anchor)] = "{=" + graph.formulas[(sheet, anchor)] + "}"
    name_values: dict[str, Any] = {}
    for key, (written, _output) in form.names.items():
        found = names.get(key)
        if not isinstance(found, Ranges) or not found.ranges:
            continue
        rng = found.ranges[0]
        title = titles.get(str(rng.get("sheet", "")).upper())
        if title is None:
            continue
        sheet = title
        r1, r2, n1, n2 = int(rng["r1"]), int(rng["r2"]), int(rng["n1"]), int(rng["n2"])
        if r1 == r2 and n1 == n2 and (sheet.upper(), r1, n1) not in store:
            continue  # a name of one empty cell: the engine has no value for it either
        grid = np.asarray(found.value, dtype=object).reshape(r2 - r1 + 1, n2 - n1 + 1)
        cells = [[convert(v) for v in row] for row in grid]
        for i, row_values in enumerate(cells):
            for j, v in enumerate(row_values):
                values.setdefault((sheet, cell_name(r1 + i, n1 + j)), v)
        written_name = graph.names.get(key, (written,))[0]
        name_values[written_name] = cells[0][0] if len(cells) == len(cells[0]) == 1 else cells
    shown = {v for a, v in values.items() if a in computed and isinstance(v, str)}
    errors = tuple(error for error in journal.errors if error.message in shown)
    return engine.Recalculation(
        source=vetted.path,
        sheets=graph.sheets,
        values=values,
        formulas=formulas_text,
        array_ranges=dict(graph.arrays),
        computed=frozenset(computed),
        names=name_values,
        function_errors=errors,
        calls=dict(journal.calls),
        notes=(*vetted.notes, *journal.notes),
        load_seconds=0.0,
        calc_seconds=0.0,
        vetted=vetted,
        method="prebuilt",
    )
