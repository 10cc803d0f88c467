"""Which readings of docs/interpretations.md the remote-work functions of subsection h.
apply (the memo prints their sections)."""

from __future__ import annotations

from nj_incentives.core.interpretations import LAW_AS_OF, PERCENTAGES, ROUNDING
from nj_incentives.programs.cbt.memo import TAX_YEAR

__all__ = ["INTERPRETATIONS"]

_REMOTE_WORK = (
    *LAW_AS_OF,
    "Remote-work election (h., h.(1), h.(2))",
    "Subsection h. in its 2024 versions (the January 2024 act; P.L.2024, c.40)",
)
_PROGRAMS = ("The remote-work text in four sections (BRRAG, Urban Transit Hub, Grow NJ)",)

#: NJ_* function -> the headings of docs/interpretations.md its result rests on.
INTERPRETATIONS: dict[str, tuple[str, ...]] = {
    "NJ_REMOTE_WORK_PAYMENT": (*ROUNDING, *TAX_YEAR, *_REMOTE_WORK, *_PROGRAMS),
    "NJ_REMOTE_WORK_CHECK": (*PERCENTAGES, *_REMOTE_WORK, *_PROGRAMS),
    "NJ_REMOTE_WORK_COMMITMENT_END": (*_REMOTE_WORK, *_PROGRAMS),
    "NJ_BEIP_REMOTE_WORK_PAYMENT": (*ROUNDING, *TAX_YEAR, *_REMOTE_WORK),
    "NJ_BEIP_REMOTE_WORK_CHECK": (*PERCENTAGES, *_REMOTE_WORK),
    "NJ_BEIP_REMOTE_WORK_COMMITMENT_END": _REMOTE_WORK,
}
