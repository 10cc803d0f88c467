"""Which readings of docs/interpretations.md the ERTC's NJ_* functions apply (the memo
prints their sections)."""

from __future__ import annotations

from nj_incentives.core.interpretations import LAW_AS_OF, ROUNDING

__all__ = ["INTERPRETATIONS"]

_POSITIONS = (
    "e. Full-time position-months",
    "e. Monthly part-time threshold: 86 2/3 hours",
    "e. Aggregated part-time hours: all non-full-time months; 1,680 hours per equivalent",
    "e. Temporary, seasonal and excluded employees count in neither",
    "e. Exact position counts, reported to 10 places",
    "e. Blank months in a payroll roster",
    "e. A roster's months are dated",
)
_WHOLE = ("a. and e. Whole positions; fractional positions",)
_LIMIT = (
    "a. and b.(3) Which tax: the limit is stated for the CBT only",
    "b.(3) Priority of other credits and the limit per period",
    "b.(3) Rounding of the 50% limit",
)
_REFUND = (
    "c.(2) Rounding of the refund",
    "e. Sustained effort ratio",
    "e. Sustained effort ratio: whole or measured positions",
)
_CREDIT_YEAR_ONE = "e. Credit year one starts on the first of the month after operations start"

#: NJ_* function -> the headings of docs/interpretations.md its result rests on.
INTERPRETATIONS: dict[str, tuple[str, ...]] = {
    "NJ_ERTC_ELIGIBILITY_CHECK": (
        "a. Who may claim: qualified municipality and Urban Enterprise Zone benefit",
        "d. Burden of proof, start of operations, one 24-month period",
    ),
    "NJ_ERTC_CREDIT_YEARS": (_CREDIT_YEAR_ONE,),
    "NJ_ERTC_RATIO_FRACTIONAL": ("e. Sustained effort ratio: whole or measured positions",),
    "NJ_ERTC_BASE_YEAR": (_CREDIT_YEAR_ONE,),
    "NJ_ERTC_FTE": (*_POSITIONS[2:], *LAW_AS_OF),
    "NJ_ERTC_AVG_POSITIONS": (*_POSITIONS, *LAW_AS_OF),
    "NJ_ERTC_NEW_POSITIONS": (*_WHOLE, _POSITIONS[-1]),
    "NJ_ERTC_CREDIT": (*ROUNDING, *_WHOLE),
    "NJ_ERTC_SUSTAINED_EFFORT_RATIO": ("e. Sustained effort ratio",),
    "NJ_ERTC_CREDIT_LIMIT": (*ROUNDING, *_LIMIT),
    "NJ_ERTC_REFUND": (*ROUNDING, *_REFUND),
    "NJ_ERTC_SCHEDULE": (
        *ROUNDING,
        *_WHOLE,
        'b.(1) The period "in which or with which" a credit year ends',
        "b.(1) A privilege period is at most 12 months (53 weeks)",
        "b.(2) Order of use: oldest first",
        "b.(2) Carryforward: no limit by default; the Form 313 five years as a switch",
        "b.(2) Credit carried into the first period: by credit year, with the period it was"
        " allowed in",
        *_LIMIT,
        "c. Order in the period in which credit year two ends: use, then refund, then expiry",
        "c.(1) The period in which credit year two ends: the b.(3) limit before the refund",
        *_REFUND,
        _CREDIT_YEAR_ONE,
    ),
}
