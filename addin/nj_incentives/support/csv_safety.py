"""One rule for CSV text the package writes: no cell a spreadsheet would run as a formula.

OWASP's CSV-injection rule, applied to headers and values alike: a text that starts with
``=``, ``+``, ``-``, ``@``, a tab, a carriage return or a line feed (also after leading
spaces, and the full-width forms of the four signs) gets a leading apostrophe. The same
holds after every carriage return or line feed inside the text, because a reader that
splits rows on a bare CR (or a spreadsheet that shows the line) would otherwise start a
cell with the formula: ``"x\\r=cmd|' /C calc'!A0"`` is written ``"x\\r'=cmd|..."``.

Quoting is the writer's part: every field holding a quote, comma, CR or LF is quoted
(the scenario runner's pyarrow writer quotes every text field; :mod:`csv` quotes where
needed), so such a field never splits a row.

:func:`neutralise_text` is the rule for one string; :func:`neutralise_arrow` the same
rule over a pyarrow string array (vectorised, for millions of rows).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["FORMULA_START", "neutralise_arrow", "neutralise_text"]

#: Characters that make a spreadsheet read a cell as a formula (or hide what follows).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")

_SIGNS = "=+\\-@\uff1d\uff0b\uff0d\uff20"
# at the start: optional spaces, then a sign, a tab, CR or LF
_LEADING = f"^( *[{_SIGNS}\\t\\r\\n])"
# after a run of line breaks: optional spaces, then a sign or a tab
_AFTER_BREAK = f"([\\r\\n]+)( *[{_SIGNS}\\t])"
_LEADING_RE = re.compile(_LEADING)
_AFTER_BREAK_RE = re.compile(_AFTER_BREAK)


def neutralise_text(text: str) -> str:
    """``text`` made safe for a CSV cell (see the module docstring)."""
    text = _LEADING_RE.sub(r"'\1", text, count=1)
    if "\r" in text or "\n" in text:
        text = _AFTER_BREAK_RE.sub(r"\1'\2", text)
    return text


def neutralise_arrow(array: Any) -> Any:
    """The same rule over a pyarrow string array (nulls stay null)."""
    import pyarrow.compute as pc

    array = pc.replace_substring_regex(
        array, pattern=_LEADING, replacement=r"'\1", max_replacements=1
    )
    return pc.replace_substring_regex(array, pattern=_AFTER_BREAK, replacement=r"\1'\2")
