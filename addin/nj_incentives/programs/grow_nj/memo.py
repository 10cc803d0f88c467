"""Which readings of docs/interpretations.md Grow NJ's NJ_* functions apply (the memo
prints their sections)."""

from __future__ import annotations

from nj_incentives.core.interpretations import ROUNDING

__all__ = ["INTERPRETATIONS", "LEDGER"]

#: The readings every credit schedule of the ledger applies (Grow NJ, Emerge).
LEDGER = (
    "Credit ledgers: the order within a period",
    "Credit ledgers: 12-month periods and the liability given",
)
_PURCHASE = ("Grow NJ: the State's purchase price at exactly one, two or three years",)

#: NJ_* function -> the headings of docs/interpretations.md its result rests on.
INTERPRETATIONS: dict[str, tuple[str, ...]] = {
    "NJ_GROW_NJ_ANNUAL_CREDIT": (*ROUNDING, "Grow NJ: the eligibility period"),
    "NJ_GROW_NJ_SCHEDULE": (
        *ROUNDING,
        "Grow NJ: the eligibility period",
        *LEDGER,
        "Grow NJ: the transfer window, statute or rule",
        *_PURCHASE,
    ),
    "NJ_GROW_NJ_STATE_PURCHASE": _PURCHASE,
}
