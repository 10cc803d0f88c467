"""How each runtime spells an NJ_* function in a formula, and rewriting one spelling to another.

The same function is written differently by each runtime (see docs/install.md, "Formula
text in each runtime"):

- classic xlwings add-in (VBA wrappers), and xlwings Lite's documented examples: the bare
  name, ``=NJ_BEIP_GRANT(1250000, 0.2)``;
- an Office.js add-in with a namespace, as typed: ``=XLWINGS.NJ_BEIP_GRANT(...)`` (xlwings
  Server's default namespace; ``XLWINGS_DEV`` in its dev environment);
- the same, as Excel saves it in the file while the add-in is not loaded:
  ``_xldudf_XLWINGS_NJ_BEIP_GRANT(...)``;
- other saved forms: ``_xludf.NJ_...`` (a function Excel did not know), ``_xll.NJ_...``;
- LibreOffice lower-cases unknown names (``nj_beip_grant(``).

:func:`respell` rewrites every NJ_* call of a formula to one spelling, leaving text in
quotes and quoted sheet names alone; :func:`calls` lists the NJ_* names a formula calls.
Pure standard library: it runs in xlwings Lite (Pyodide), where the re-enter script
(:mod:`nj_incentives.lite`) uses it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

__all__ = ["base_name", "calls", "respell", "spelled", "tokens"]

#: A name followed by "(": a function call (Excel allows no space before the bracket).
_CALL = re.compile(r"[A-Za-z_][\w.]*(?=\()")
_TYPED_NAMESPACE = re.compile(r"(?:_XLL\.)?[A-Z][A-Z0-9_]*(?:\.[A-Z][A-Z0-9_]*)*\.")
_SAVED_NAMESPACE = re.compile(r"_XLDUDF_(?:[A-Z][A-Z0-9_]*_)?")
_PREFIXES = ("", "_XLUDF.", "_XLL.")


def base_name(token: str, known: Collection[str] | None = None) -> str | None:
    """The NJ_* name a called token means, whatever the runtime's spelling, or None.

    ``known`` (upper-case names) limits the answer to those functions."""
    upper = token.upper()
    start = upper.find("NJ_")
    while start >= 0:
        base, prefix = upper[start:], upper[:start]
        if (known is None or base in known) and (
            prefix in _PREFIXES
            or _TYPED_NAMESPACE.fullmatch(prefix)
            or _SAVED_NAMESPACE.fullmatch(prefix)
        ):
            return base
        start = upper.find("NJ_", start + 1)
    return None


def spelled(name: str, namespace: str = "") -> str:
    """``NJ_X`` as a formula types it in a runtime with ``namespace`` ("" for none)."""
    namespace = namespace.strip().rstrip(".").upper()
    return f"{namespace}.{name.upper()}" if namespace else name.upper()


def _code_spans(formula: str) -> Iterator[tuple[int, int]]:
    """The (start, end) spans of ``formula`` outside "text" and 'sheet names'."""
    i, start, n = 0, 0, len(formula)
    while i < n:
        quote = formula[i]
        if quote in "\"'":
            yield start, i
            i += 1
            while i < n:
                if formula[i] == quote:
                    if i + 1 < n and formula[i + 1] == quote:  # "" or '' inside
                        i += 2
                        continue
                    break
                i += 1
            i += 1
            start = i
        else:
            i += 1
    yield start, n


def _calls(formula: str, known: Collection[str] | None) -> Iterator[tuple[int, int, str]]:
    for start, end in _code_spans(formula):
        for match in _CALL.finditer(formula, start, end):
            before = formula[match.start() - 1] if match.start() > 0 else ""
            if before and (before.isalnum() or before in "_.]!"):
                continue
            base = base_name(match.group(), known)
            if base is not None:
                yield match.start(), match.end(), base


def tokens(formula: str, known: Collection[str] | None = None) -> list[tuple[str, str]]:
    """``(as written, base name)`` of each NJ_* call of ``formula``, in order."""
    return [(formula[start:end], base) for start, end, base in _calls(formula, known)]


def calls(formula: str, known: Collection[str] | None = None) -> list[str]:
    """The NJ_* names ``formula`` calls, in order (upper-case base names)."""
    return [base for _, _, base in _calls(formula, known)]


def respell(formula: str, namespace: str = "", known: Collection[str] | None = None) -> str:
    """``formula`` with every NJ_* call spelled for a runtime with ``namespace``."""
    pieces, last = [], 0
    for start, end, base in _calls(formula, known):
        pieces += [formula[last:start], spelled(base, namespace)]
        last = end
    pieces.append(formula[last:])
    return "".join(pieces)
