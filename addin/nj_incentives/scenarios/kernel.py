"""The exact vectorized kernel's chunk: the input columns of some scenario rows,
converted to int64 on first use (:mod:`nj_incentives.scenarios.convert`).

Each section's kernel is its program's (``SECTIONS`` of ``programs/<key>/scenarios.py``,
a :class:`~nj_incentives.core.scenario_sections.Section`): it takes a :class:`Chunk` and
returns a :class:`~nj_incentives.core.scenario_sections.SectionOut`: which rows have the
section (``present``), which of those the kernel computed (``fast``), and the result
columns. A present row that is not ``fast`` goes to the scalar path
(:mod:`nj_incentives.scenarios.scalar`), which gives the core's result or the core's
error message; the kernel never guesses a message.

Exactness. Money is a count of cents; a fraction p is an integer P / 10^9; positions are
integers / 10^8. Every rounding of the core is a floor of a non-negative rational, done
in integers:

- ``cents_down(a x p)`` = ``floor(a x P / D)`` = ``q x P + floor(r x P / D)`` with
  ``a = q x D + r`` (:func:`mul_frac`): no intermediate exceeds ``D x P <= 10^18``;
- the ERTC refund ``cents_down(remaining x y2 / y1)``, whose product can pass 2^63, is
  a float estimate corrected exactly with the remainder computed modulo 2^64
  (:func:`muldiv_floor`).

The runner's limits (:mod:`nj_incentives.core.scenario_inputs`) bound every value, so no
sum or product overflows int64; each program lists them with its operations.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np
import pandas as pd

from nj_incentives.core.rules import mul_frac, muldiv_floor
from nj_incentives.core.scenario_sections import ConvertedColumn, SectionOut
from nj_incentives.scenarios.columns import input_spec
from nj_incentives.scenarios.convert import convert, convert_array

__all__ = ["Chunk", "SectionOut", "mul_frac", "muldiv_floor"]


# ----------------------------------------------------------------------- chunks


class Chunk:
    """The input columns of some scenario rows, converted on first use."""

    def __init__(self, frame: pd.DataFrame, arrays: Mapping[str, np.ndarray] | None = None) -> None:
        self.frame = frame
        self.n = len(frame)
        #: the chunk's plain numpy columns (:func:`~.convert.plain_array`), read without
        #: a Series (the runner's per-call columns, sliced); the others from ``frame``
        self.arrays: Mapping[str, np.ndarray] = arrays or {}
        self._cache: dict[str, ConvertedColumn] = {}
        self._empty = ConvertedColumn.empty(self.n)
        #: figures computed once a chunk (the conversion's tax years: layout and kernel)
        self.memo: dict[str, object] = {}

    def col(self, name: str) -> ConvertedColumn:
        column = self._cache.get(name)
        if column is None:
            if name in self.frame.columns:
                found = input_spec(name)
                if found is None:  # pragma: no cover - checked by check_columns
                    raise KeyError(name)
                plain = self.arrays.get(name)
                read = None if plain is None else convert_array(plain, found[0])
                column = convert(self.frame[name], found[0]) if read is None else read
            else:
                column = self._empty
            self._cache[name] = column
        return column

    def section_columns(self, section: str, triggers_only: bool = False) -> Iterator[str]:
        """The input columns of a section present in this chunk."""
        for name in self.frame.columns:
            found = input_spec(str(name))
            wanted = found is not None and found[0].section == section
            if wanted and (not triggers_only or found[0].trigger):  # type: ignore[index]
                yield str(name)

    def present(self, section: str) -> np.ndarray:
        """Rows in which any triggering column of the section is non-blank."""
        present = np.zeros(self.n, bool)
        for name in self.section_columns(section, triggers_only=True):
            present |= ~self.col(name).blank
        return present
