"""The hash of a workbook's inputs, which a sign-off stores (not a rule of law).

A template's sign-off (:mod:`nj_incentives.workpapers.signoff`) stores, beside the preparer's and
the reviewer's name and date, the hash of every input as it was when they signed. The
Checks sheet compares the stored hashes with the live one, ``=NJ_INPUTS_HASH(kinds,
range1, range2, ...)``, written by the template builder over every input range of the
template (the sign-off's own cells,
:data:`nj_incentives.core.workpaper.SIGNOFF_INPUTS`,
and the tickmark and source columns excluded).

The hash is of the values **as the input rules read them**
(:mod:`nj_incentives.core.inputs`), not of the cells' text: a reformat (a number format,
``40%`` typed as text instead of 0.4, a date typed as ``2026-11-30`` instead of a date
cell, ``1,250,000.00`` as text) leaves it unchanged, while any change of a value changes
it. Each range argument has one kind, a letter of ``kinds`` (:data:`KINDS`); each cell is
written in its canonical form:

- blank (empty, ``""`` or spaces): nothing;
- money, a percentage, a count, a year, a number: the exact decimal the rule reads
  (``Decimal.normalize``: 600000 and 600000.00 are the same);
- a date: ISO ``YYYY-MM-DD`` (an Excel serial number, a date cell, ISO text);
- Yes/No: ``TRUE`` or ``FALSE``; a choice: its text in lower case; text: as typed,
  without surrounding spaces;
- a value its rule refuses (the workbook's Checks say why): ``?`` and its text, so that
  correcting it changes the hash too.

The canonical cells are joined (unit separator between cells, record separator between
ranges, each range prefixed by its kind and cell count) and hashed with SHA-256; the
hash shown is its first :data:`DIGITS` hexadecimal digits, upper case, in groups of four
(``3F2A-9C01-77BE-D410``): short enough to compare by eye, long enough that two different
sets of inputs never share one in practice (2^-64).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

from nj_incentives.core.inputs import InputError, InputKind, InputRule

__all__ = ["CITATION", "DIGITS", "KINDS", "canonical", "inputs_hash"]

#: What a message about the hash cites.
CITATION = "NJ_INPUTS_HASH, docs/filling.md"
#: Hexadecimal digits shown.
DIGITS = 16

#: Letter of ``kinds`` -> what the cells of that range hold.
KINDS: dict[str, str] = {
    "t": "text",
    "m": "money",
    "p": "percent",
    "d": "date",
    "c": "count",
    "y": "year",
    "n": "number",
    "b": "yesno",
    "h": "choice",
}

_RULES = {
    "m": InputRule(InputKind.MONEY, CITATION),
    "p": InputRule(InputKind.FRACTION, CITATION),
    "c": InputRule(InputKind.COUNT, CITATION),
    "y": InputRule(InputKind.COUNT, CITATION),
    "n": InputRule(InputKind.NUMBER, CITATION),
    "b": InputRule(InputKind.BOOLEAN, CITATION),
    "d": InputRule(InputKind.DATE, CITATION),
}
#: The largest number of cells hashed (a 40-sheet roster of 10,000 employees is ~400,000).
MAX_CELLS = 2_000_000


def _cells(value: Any) -> Iterator[Any]:
    """The cells of an argument in row order: a scalar, a list, or a list of rows."""
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _cells(item)
    else:
        yield value


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()[:10]
    return str(value).strip()


def canonical(kind: str, value: Any) -> str:
    """One cell's canonical text for the hash (``kind``: a letter of :data:`KINDS`)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return ""
    if kind == "t":
        return _text(value)
    if kind == "h":
        return _text(value).lower()
    if kind == "d" and isinstance(value, (int, float)) and not isinstance(value, bool):
        from nj_incentives.core.cells import date_from_serial

        day = date_from_serial(float(value))
        return day.isoformat() if day is not None else "?" + _text(value)
    if kind == "d" and isinstance(value, dt.datetime):
        value = value.date()
    rule = _RULES.get(kind)
    if rule is None:
        raise InputError("kinds", kind, f"must be letters of {''.join(KINDS)}", CITATION)
    try:
        parsed = rule.parse(value, "input")
    except InputError:
        return "?" + _text(value)
    if isinstance(parsed, bool):
        return "TRUE" if parsed else "FALSE"
    if isinstance(parsed, Decimal):
        return f"{parsed.normalize():f}"
    if isinstance(parsed, dt.date):
        return parsed.isoformat()
    return _text(parsed)


def inputs_hash(kinds: Any, *ranges: Any) -> str:
    """The hash of ``ranges`` (each a cell, a row or column, or a block of rows), the
    i-th read as the kind ``kinds[i]`` (:data:`KINDS`)."""
    letters = _text(kinds).lower() if kinds is not None else ""
    if not letters or any(letter not in KINDS for letter in letters):
        rule = f"must be one letter per range, each one of {''.join(KINDS)}"
        raise InputError("kinds", kinds, rule, CITATION)
    if len(letters) != len(ranges):
        rule = f"must have one letter per range: {len(letters)} letters, {len(ranges)} ranges"
        raise InputError("kinds", kinds, rule, CITATION)
    digest = hashlib.sha256()
    count = 0
    for letter, value in zip(letters, ranges, strict=True):
        cells: Sequence[Any] = list(_cells(value))
        count += len(cells)
        if count > MAX_CELLS:
            rule = f"at most {MAX_CELLS:,} cells are hashed"
            raise InputError("inputs", f"{count:,} cells", rule, CITATION)
        texts = [canonical(letter, cell) for cell in cells]
        digest.update(f"{letter}{len(texts)}\x1d".encode())
        digest.update("\x1f".join(texts).encode("utf-8", "surrogatepass"))
        digest.update(b"\x1e")
    shown = digest.hexdigest()[:DIGITS].upper()
    return "-".join(shown[i : i + 4] for i in range(0, DIGITS, 4))
