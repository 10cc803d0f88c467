"""The readings of ``docs/interpretations.md`` that every program may rest on: the headings
a program's memo mapping (``programs/<key>/memo.py``: NJ_* function -> the headings its
result rests on) names for them. The memo prints each heading's section
(:mod:`nj_incentives.workpapers.memo.interpretations`)."""

from __future__ import annotations

__all__ = ["LAW_AS_OF", "PERCENTAGES", "ROUNDING"]

#: Money truncated to the cent.
ROUNDING = ("Rounding of money",)
#: A percentage cell holds a fraction.
PERCENTAGES = ("Percentages are fractions",)
#: Every function that takes ``law_as_of``.
LAW_AS_OF = ("Law as of: which version of a dated figure applies",)
