"""Which readings of docs/interpretations.md the award functions rest on."""

from __future__ import annotations

__all__ = ["INTERPRETATIONS"]

#: NJ_* function -> the headings of docs/interpretations.md its result rests on.
INTERPRETATIONS: dict[str, tuple[str, ...]] = {
    "NJ_AWARD_CALENDAR": ("Award obligations: the compliance calendar",),
    "NJ_RECAPTURE_EXPOSURE": ("Recapture exposure: the amount at risk",),
}
