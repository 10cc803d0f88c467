"""Which readings of docs/interpretations.md the portfolio's NJ_* function applies (the
memo prints their sections)."""

from __future__ import annotations

from nj_incentives.core.interpretations import ROUNDING

__all__ = ["INTERPRETATIONS"]

#: NJ_* function -> the headings of docs/interpretations.md its result rests on.
INTERPRETATIONS: dict[str, tuple[str, ...]] = {
    "NJ_PORTFOLIO": (
        *ROUNDING,
        "Portfolio of awards: the order and each program's limits",
        "Portfolio of awards: Emerge's place, the UTH carryforward, the minimum-tax floor",
        "Credit ledgers: 12-month periods and the liability given",
    ),
}
