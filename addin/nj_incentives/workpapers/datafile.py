"""A DATA file (``fill``, ``rollforward``) read as what was typed, and bounded.

A DATA file is untrusted: it is read only from a regular file of at most
:data:`MAX_BYTES` (:func:`nj_incentives.support.reading.read_regular`), and its
structure is bounded while it is read, before anything is built from it:

- at most :data:`MAX_VALUES` values in all, :data:`MAX_ITEMS` in one list (the largest
  input, a roster, holds 10,000 employees), :data:`MAX_KEYS` keys in one mapping, and
  :data:`MAX_DEPTH` levels of nesting (a roster's hours are four deep);
- YAML aliases (``*name``) are refused: an alias repeats a value without writing it, so
  that a kilobyte of them can stand for billions of values (the "billion laughs"); write
  the value out;
- a key given twice in one mapping (JSON or YAML) is refused, never the last kept.

What was typed is kept as typed: YAML's plain scalars are text (``01234567``, ``No``,
``11:40``, ``0x5`` and ``2024-01-31`` reach the input's rule as those characters, and
the rule reads them as a CSV cell is read), except the empty value, ``~`` and ``null``,
which are blank; a plain number in decimal (``11``, ``-2.5``) and JSON's numbers are
their text too (:class:`Number`: a 5,000-digit number is no exception), shown as typed;
JSON's strings, ``true``, ``false`` and ``null`` are what JSON says. A number is
then read by the input's own rule (money, count, percentage), a text input keeps its
characters, so a leading zero, a "No" or a time is never re-read on the way.

Each refusal is a :class:`DataError`: one line naming the file, the line where YAML
has one, what was found and the bound it breaks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from nj_incentives.support.reading import NotReadable, read_regular

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_ITEMS",
    "MAX_KEYS",
    "MAX_VALUES",
    "DataError",
    "Number",
    "read_document",
    "shown",
]

#: The largest DATA file read (16 MiB).
MAX_BYTES = 16 * 1024 * 1024
#: The most values (scalars, lists, mappings and keys) in one DATA file: a full roster
#: of 10,000 employees, each a name, two flags and three periods of twelve hours, is
#: about 470,000.
MAX_VALUES = 600_000
#: The most items in one list: the roster's 10,000 employees.
MAX_ITEMS = 10_000
#: The most keys in one mapping (a template has fewer than 300 inputs).
MAX_KEYS = 1_000
#: The deepest nesting: the document, ``Employees``, one employee, a period's hours.
MAX_DEPTH = 6

_NULLS = frozenset({"", "~", "null", "Null", "NULL"})


class Number(str):
    """A number as it was typed (a YAML plain scalar in decimal, a JSON number): its
    characters, read by the input's rule as a CSV cell is, and shown in a message as
    typed, without quotes (``Term = 11``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


#: A YAML plain scalar that is a number in decimal (YAML 1.2's core schema).
_DECIMAL = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")


class DataError(ValueError):
    """A DATA file refused: the one-line reason (naming the file)."""


def shown(value: object, width: int = 40) -> str:
    """``value`` as a message shows it: text and numbers cut to ``width`` characters, a
    list or mapping by its size (never its items, which may be billions)."""
    if isinstance(value, (list, tuple)):
        return f"[a list of {len(value):,}]"
    if isinstance(value, dict):
        return f"{{a mapping of {len(value):,} keys}}"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        digits = int(value.bit_length() * 0.30103) + 1
        return f"(a whole number of about {digits:,} digits)"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def read_document(path: Path, text: str | None = None) -> Any:
    """The document of DATA file ``path`` (.json, .yaml, .yml; ``text``: its text, if
    already read by :func:`read_text`): a mapping, a list, a scalar or None, each scalar
    as typed (module docstring). Raises :class:`DataError`."""
    suffix = path.suffix.lower()
    if suffix not in (".json", ".yaml", ".yml"):
        raise DataError(f"{path}: expected DATA as .yaml, .yml, .json or .csv")
    if text is None:
        text = read_text(path)
    if suffix == ".json":
        return _json(text, path)
    return _yaml(text, path)


def read_text(path: Path) -> str:
    """DATA's text: a regular file of at most :data:`MAX_BYTES`, UTF-8 (a byte-order
    mark allowed). Raises :class:`DataError`."""
    try:
        data = read_regular(path, MAX_BYTES)
    except NotReadable as error:
        raise DataError(f"{path}: {error}") from error
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise DataError(
            f"{path}: not UTF-8 text (line {line}, byte {error.start + 1:,}): save it as UTF-8"
        ) from None


# --------------------------------------------------------------------------- YAML


class _Bounds:
    """Counts the values of a document as they are read; refuses past the bounds."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.values = 0

    def count(self, where: str) -> None:
        self.values += 1
        if self.values > MAX_VALUES:
            raise DataError(
                f"{self.path}: {where}more than {MAX_VALUES:,} values (a full roster is "
                "about 470,000)"
            )


def _yaml(text: str, path: Path) -> Any:
    try:
        import yaml
    except ModuleNotFoundError as missing:
        from nj_incentives.support.status import needs_extra

        raise DataError(needs_extra("fill", "scenarios", "PyYAML")) from missing
    loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    try:
        return _build(yaml.parse(text, Loader=loader), path)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise DataError(f"{path}: not YAML{where}: {problem}") from None


def _line(event: Any) -> str:
    mark = getattr(event, "start_mark", None)
    return f"line {mark.line + 1}: " if mark is not None else ""


def _build(events: Iterator[Any], path: Path) -> Any:
    """The document from YAML's events, built with the bounds checked at each event:
    nothing beyond a bound is ever built."""
    import yaml

    bounds = _Bounds(path)
    # each open container: (the list or mapping, the pending key or a marker, key lines)
    stack: list[tuple[Any, Any, dict[str, str]]] = []
    document: Any = None
    documents = 0
    no_key = object()

    def add(value: Any, event: Any) -> None:
        nonlocal document
        if not stack:
            document = value
            return
        container, key, lines = stack[-1]
        if isinstance(container, list):
            if len(container) >= MAX_ITEMS:
                raise DataError(
                    f"{path}: {_line(event)}a list of more than {MAX_ITEMS:,} values (the "
                    f"largest input, a roster, takes {MAX_ITEMS:,} employees)"
                )
            container.append(value)
        elif key is no_key:
            if not isinstance(value, str):
                raise DataError(f"{path}: {_line(event)}a key must be a name, not {shown(value)}")
            if value in lines:
                raise DataError(
                    f"{path}: {_line(event)}{value!r} is given twice in one mapping (also "
                    f"{lines[value].removesuffix(': ')}): give it once"
                )
            if len(container) >= MAX_KEYS:
                raise DataError(f"{path}: {_line(event)}a mapping of more than {MAX_KEYS:,} keys")
            lines[value] = _line(event) or "before"
            stack[-1] = (container, value, lines)
        else:
            container[key] = value
            stack[-1] = (container, no_key, lines)

    for event in events:
        if isinstance(event, yaml.AliasEvent):
            raise DataError(
                f"{path}: {_line(event)}an alias (*{event.anchor}) repeats a value without "
                "writing it: YAML aliases are not read; write the value out"
            )
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise DataError(f"{path}: {_line(event)}a second YAML document: give one")
            continue
        if isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            bounds.count(_line(event))
            tag = event.tag
            plain = isinstance(event, yaml.ScalarEvent) and not event.style
            if tag not in (None, "!", "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq",
                           "tag:yaml.org,2002:map"):  # fmt: skip
                raise DataError(
                    f"{path}: {_line(event)}the tag {tag} is not read: write the value plainly"
                )
        if isinstance(event, yaml.ScalarEvent):
            value: Any = event.value
            if plain and event.tag is None and value in _NULLS:
                value = None
            elif plain and event.tag is None and _DECIMAL.fullmatch(value):
                value = Number(value)
            add(value, event)
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            if len(stack) >= MAX_DEPTH:
                raise DataError(
                    f"{path}: {_line(event)}nested more than {MAX_DEPTH} levels deep (a "
                    "roster's hours are four)"
                )
            container: Any = [] if isinstance(event, yaml.SequenceStartEvent) else {}
            if stack and not isinstance(stack[-1][0], list) and stack[-1][1] is no_key:
                raise DataError(
                    f"{path}: {_line(event)}a key must be a name, not a list or mapping"
                )
            add(container, event)
            stack.append((container, no_key, {}))
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            stack.pop()
    return document


# --------------------------------------------------------------------------- JSON

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _json(text: str, path: Path) -> Any:
    # Counted before parsing, at C speed: each string is a key or a value, so its
    # strings are at least so many values; its separators and openings outside strings,
    # plus one, at most so many (counted exactly only when the count with the strings'
    # own is too high).
    many = f"{path}: more than {MAX_VALUES:,} values (a full roster is about 470,000)"
    if (text.count('"') - text.count('\\"')) // 2 > MAX_VALUES:
        raise DataError(many)
    separators = ",:[{"
    if sum(map(text.count, separators)) + 1 > MAX_VALUES:
        bare = _STRINGS.sub("", text)
        if sum(map(bare.count, separators)) + 1 > MAX_VALUES:
            raise DataError(many)
        del bare

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        if len(items) > MAX_KEYS:
            raise DataError(f"{path}: a mapping of more than {MAX_KEYS:,} keys")
        found: dict[str, Any] = {}
        for key, value in items:
            if key in found:
                raise DataError(f"{path}: {key!r} is given twice in one object: give it once")
            found[key] = value
        return found

    try:
        document = json.loads(text, object_pairs_hook=pairs, parse_int=Number, parse_float=Number,
                              parse_constant=_constant)  # fmt: skip
    except json.JSONDecodeError as error:
        raise DataError(f"{path}: not JSON (line {error.lineno}: {error.msg})") from None
    except RecursionError:
        raise DataError(f"{path}: not read: nested more than {MAX_DEPTH} levels deep") from None
    _check_shape(document, path)
    return document


def _constant(name: str) -> str:
    return name  # NaN, Infinity: their text, which no input rule reads as a number


def _check_shape(document: Any, path: Path) -> None:
    """Depth and list lengths of a parsed JSON document, walked without recursion."""
    bounds = _Bounds(path)
    todo: list[tuple[Any, int]] = [(document, 1)]
    while todo:
        value, depth = todo.pop()
        bounds.count("")
        if isinstance(value, (list, dict)):
            if depth > MAX_DEPTH:
                raise DataError(
                    f"{path}: nested more than {MAX_DEPTH} levels deep (a roster's hours are four)"
                )
            if isinstance(value, list) and len(value) > MAX_ITEMS:
                raise DataError(
                    f"{path}: a list of more than {MAX_ITEMS:,} values (the largest input, a "
                    f"roster, takes {MAX_ITEMS:,} employees)"
                )
            items = value.values() if isinstance(value, dict) else value
            todo.extend((item, depth + 1) for item in items)
