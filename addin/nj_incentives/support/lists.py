"""One rule for a list of values given in one command-line option (years, periods, grids).

Commas separate the values (``--new-employees 60,60,60``), unless the text holds a
semicolon: then semicolons separate them, and each value may carry thousands separators
(``--withholdings "1,250,000;1,300,000"``), which the calculation core's number rule
reads (``1,250,000`` is 1250000 there, as in ``explain grant 1,250,000 0.5``).

A comma-separated list in which a comma could also be a thousands separator is refused,
never read one way silently: ``1,250,000`` is one number to an accountant and three
years (1, 250 and 0) to a comma-separated list. The test is textual: a comma between a
digit and exactly three digits that end the value (``1,250``, ``60,600``, ``100,200``).
A space after the comma makes it a separator (``100, 200, 300``: nobody writes thousands
so). The message says how to write it either way.

Pure standard library.
"""

from __future__ import annotations

import re

__all__ = ["HELP", "ListError", "ambiguous_comma", "split_values"]

#: What the --help of every list option says (the one rule, in one sentence).
HELP = (
    "Separate values with commas (60,60,60), or with semicolons when a value has "
    "thousands separators (1,250,000;1,300,000); a comma that could be a thousands "
    "separator is refused (1,250,000 or 100,200: write 1250000, or 100, 200 with a space)."
)

#: A comma between a digit and exactly three digits that end the value: it may separate
#: the thousands of one number, or two values.
_THOUSANDS = re.compile(r"\d,\d{3}(?!\d)")


class ListError(ValueError):
    """A comma-separated list whose commas read two ways."""


def ambiguous_comma(text: str) -> str | None:
    """The first ``d,ddd`` of comma-separated ``text`` (a comma that may separate
    thousands), or None."""
    found = _THOUSANDS.search(text)
    return found.group() if found else None


def split_values(text: str, what: str = "values") -> list[str]:
    """``text`` split into its values, stripped (a blank value kept as "").

    ``what`` names the values in the message ("years", "periods"). Raises
    :class:`ListError` for a comma-separated list whose commas read two ways."""
    if ";" in text:
        return [item.strip() for item in text.split(";")]
    items = [item.strip() for item in text.split(",")]
    clash = ambiguous_comma(text)
    if clash is not None:
        raise ListError(
            f"{text!r}: the comma in {clash!r} may separate {what} or thousands "
            f"({len(items)} {what}: {'; '.join(items)}?). Separate {what} with semicolons "
            "when a value has thousands separators (1,250,000;1,300,000), write the numbers "
            "without them (1250000,1300000), or put a space after each comma (100, 200)"
        )
    return items
