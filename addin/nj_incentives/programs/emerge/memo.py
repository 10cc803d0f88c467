"""Which readings of docs/interpretations.md Emerge's NJ_* functions apply (the memo
prints their sections)."""

from __future__ import annotations

from nj_incentives.core.interpretations import ROUNDING

__all__ = ["INTERPRETATIONS"]

_LEDGER = (
    "Credit ledgers: the order within a period",
    "Credit ledgers: 12-month periods and the liability given",
)

#: NJ_* function -> the headings of docs/interpretations.md its result rests on.
INTERPRETATIONS: dict[str, tuple[str, ...]] = {
    "NJ_EMERGE_SCHEDULE": (
        *ROUNDING,
        *_LEDGER,
        "Emerge: the transfer window and the surrender",
    ),
    "NJ_EMERGE_SURRENDER": (*ROUNDING, "Emerge: the transfer window and the surrender"),
}
