"""Which readings of docs/interpretations.md BEIP's NJ_* functions apply (the memo prints
their sections)."""

from __future__ import annotations

from nj_incentives.core.interpretations import LAW_AS_OF, PERCENTAGES, ROUNDING
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.cbt.memo import TAX_YEAR

__all__ = ["CAP_PER_YEAR", "CAP_WHOLE_TERM", "INTERPRETATIONS"]

#: The headings of the cap's readings, their figure from the dated figures (the same text
#: heads their sections of docs/interpretations.md, which tests/core/test_parameters.py
#: checks).
CAP_PER_YEAR = (
    f"The {BEIP.AVERAGE_CAP.summary()} average cap, applied year by year"
    " (a.; N.J.A.C. 19:31I-1.4(a))"
)
CAP_WHOLE_TERM = (
    f"The {BEIP.AVERAGE_CAP.summary()} average cap: whole-term and proportional readings"
    " (a.; N.J.A.C. 19:31I-1.4(a))"
)

_GRANT = (
    "Grant percentage: an input within bounds (a., b.)",
    "Combination of bases; a percentage of 0 means the basis is unused (a.)",
)
_CONVERSION = (
    *ROUNDING,
    *TAX_YEAR,
    "Conversion schedule and rounding of installments (e.(1)-(13))",
    "Installments on a fiscal-year filer's returns (e.(1)-(13))",
    "Approval before P.L.2015, c.194 and direction within 180 days (e.)",
    "Late approval: paragraph (1) only (e.(1))",
    "Approval date ignored for paragraphs (2)-(13) (e.(2)-(13))",
)
_TRANSFER = (
    *PERCENTAGES,
    "Transfer certificates: minimum amount and discounting (g.(3))",
    "Rounding of the minimum price down (g.(3))",
    "Transfer certificates: discounting period and rate bound (g.(3))",
    "A transferee may not transfer (g.(3))",
)
_COMBINED_LIMIT = "Combined State grants limit (N.J.S.A. 34:1B-134(b), (c))"
_APPLYING = (
    "Applying the credit (f.)",
    "The BEIP credit and the CBT statutory minimum (f.)",
)

#: NJ_* function -> the headings of docs/interpretations.md its result rests on.
INTERPRETATIONS: dict[str, tuple[str, ...]] = {
    "NJ_BEIP_BASE_YEARS": ("Base years (N.J.S.A. 34:1B-125)",),
    "NJ_BEIP_PCT_LIMITS": _GRANT[:1],
    "NJ_BEIP_GRANT": (*ROUNDING, *PERCENTAGES, *_GRANT),
    "NJ_BEIP_CAP_APPLIES": (CAP_PER_YEAR, *LAW_AS_OF),
    "NJ_BEIP_GRANT_SCHEDULE": (
        *ROUNDING,
        *PERCENTAGES,
        *_GRANT,
        "Term (c.)",
        CAP_PER_YEAR,
        CAP_WHOLE_TERM,
        *LAW_AS_OF,
    ),
    "NJ_BEIP_LIMIT_BASE": (_COMBINED_LIMIT,),
    "NJ_BEIP_COMBINED_LIMIT": (*ROUNDING, _COMBINED_LIMIT),
    "NJ_BEIP_GRANT_OVER_LIMIT": (_COMBINED_LIMIT,),
    "NJ_BEIP_CONVERSION_SCHEDULE": _CONVERSION,
    "NJ_BEIP_CONVERSION_INSTALLMENT": _CONVERSION,
    "NJ_BEIP_CREDIT_APPLIED": _APPLYING,
    "NJ_BEIP_CREDIT_REFUND": _APPLYING,
    "NJ_BEIP_TRANSFER_MIN_PRICE": _TRANSFER,
    "NJ_BEIP_TRANSFER_CHECK": _TRANSFER,
}
