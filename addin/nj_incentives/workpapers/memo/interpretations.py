"""Which readings of docs/interpretations.md each NJ_* function applies, and their text."""

from __future__ import annotations

from nj_incentives.core import parameters as P

#: The headings of the cap's readings, their figure from law.parameters (the same text
#: heads their sections of docs/interpretations.md, which tests/core/test_parameters.py checks).
CAP_PER_YEAR = (
    f"The {P.AVERAGE_CAP.summary()} average cap, applied year by year (a.; N.J.A.C. 19:31I-1.4(a))"
)
CAP_WHOLE_TERM = (
    f"The {P.AVERAGE_CAP.summary()} average cap: whole-term and proportional readings"
    " (a.; N.J.A.C. 19:31I-1.4(a))"
)

#: NJ_* function -> the headings of docs/interpretations.md its result rests on.
INTERPRETATIONS: dict[str, tuple[str, ...]] = {}
_GENERAL = ("Rounding of money",)
_PCT = ("Percentages are fractions",)
_GRANT = (
    "Grant percentage: an input within bounds (a., b.)",
    "Combination of bases; a percentage of 0 means the basis is unused (a.)",
)
_TAX_YEAR = ("Which return is tax year N (Form CBT-100 numbering)",)
_CONVERSION = (
    *_GENERAL,
    *_TAX_YEAR,
    "Conversion schedule and rounding of installments (e.(1)-(13))",
    "Installments on a fiscal-year filer's returns (e.(1)-(13))",
    "Approval before P.L.2015, c.194 and direction within 180 days (e.)",
    "Late approval: paragraph (1) only (e.(1))",
    "Approval date ignored for paragraphs (2)-(13) (e.(2)-(13))",
)
_TRANSFER = (
    *_PCT,
    "Transfer certificates: minimum amount and discounting (g.(3))",
    "Rounding of the minimum price down (g.(3))",
    "Transfer certificates: discounting period and rate bound (g.(3))",
    "A transferee may not transfer (g.(3))",
)
#: every function that takes law_as_of
_LAW_AS_OF = ("Law as of: which version of a dated figure applies",)
_REMOTE_WORK = (
    *_LAW_AS_OF,
    "Remote-work election (h., h.(1), h.(2))",
    "Subsection h. in its 2024 versions (the January 2024 act; P.L.2024, c.40)",
)
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
INTERPRETATIONS.update(
    {
        "NJ_BEIP_PCT_LIMITS": _GRANT[:1],
        "NJ_BEIP_GRANT": (*_GENERAL, *_PCT, *_GRANT),
        "NJ_BEIP_CAP_APPLIES": (CAP_PER_YEAR, *_LAW_AS_OF),
        "NJ_BEIP_GRANT_SCHEDULE": (
            *_GENERAL,
            *_PCT,
            *_GRANT,
            "Term (c.)",
            CAP_PER_YEAR,
            CAP_WHOLE_TERM,
            *_LAW_AS_OF,
        ),
        "NJ_BEIP_LIMIT_BASE": ("Combined State grants limit (N.J.S.A. 34:1B-134(b), (c))",),
        "NJ_BEIP_COMBINED_LIMIT": (
            *_GENERAL,
            "Combined State grants limit (N.J.S.A. 34:1B-134(b), (c))",
        ),
        "NJ_BEIP_GRANT_OVER_LIMIT": ("Combined State grants limit (N.J.S.A. 34:1B-134(b), (c))",),
        "NJ_BEIP_CONVERSION_SCHEDULE": _CONVERSION,
        "NJ_BEIP_CONVERSION_INSTALLMENT": _CONVERSION,
        "NJ_BEIP_CREDIT_APPLIED": (
            "Applying the credit (f.)",
            "The BEIP credit and the CBT statutory minimum (f.)",
        ),
        "NJ_BEIP_CREDIT_REFUND": (
            "Applying the credit (f.)",
            "The BEIP credit and the CBT statutory minimum (f.)",
        ),
        "NJ_BEIP_TRANSFER_MIN_PRICE": _TRANSFER,
        "NJ_BEIP_TRANSFER_CHECK": _TRANSFER,
        "NJ_BEIP_REMOTE_WORK_PAYMENT": (
            *_GENERAL,
            *_TAX_YEAR,
            *_REMOTE_WORK,
        ),
        "NJ_BEIP_REMOTE_WORK_CHECK": (*_PCT, *_REMOTE_WORK),
        "NJ_BEIP_REMOTE_WORK_COMMITMENT_END": _REMOTE_WORK,
        "NJ_ERTC_ELIGIBILITY_CHECK": (
            "a. Who may claim: qualified municipality and Urban Enterprise Zone benefit",
            "d. Burden of proof, start of operations, one 24-month period",
        ),
        "NJ_ERTC_CREDIT_YEARS": (
            "e. Credit year one starts on the first of the month after operations start",
        ),
        "NJ_ERTC_RATIO_FRACTIONAL": ("e. Sustained effort ratio: whole or measured positions",),
        "NJ_ERTC_BASE_YEAR": (
            "e. Credit year one starts on the first of the month after operations start",
        ),
        "NJ_ERTC_FTE": (*_POSITIONS[2:], *_LAW_AS_OF),
        "NJ_ERTC_AVG_POSITIONS": (*_POSITIONS, *_LAW_AS_OF),
        "NJ_ERTC_NEW_POSITIONS": (*_WHOLE, _POSITIONS[-1]),
        "NJ_ERTC_CREDIT": (*_GENERAL, *_WHOLE),
        "NJ_ERTC_SUSTAINED_EFFORT_RATIO": ("e. Sustained effort ratio",),
        "NJ_ERTC_CREDIT_LIMIT": (*_GENERAL, *_LIMIT),
        "NJ_ERTC_REFUND": (*_GENERAL, *_REFUND),
        "NJ_ERTC_SCHEDULE": (
            *_GENERAL,
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
            "e. Credit year one starts on the first of the month after operations start",
        ),
        "NJ_TAX_YEAR": _TAX_YEAR,
        "NJ_TAX_PERIOD_END": _TAX_YEAR,
        "NJ_CBT_MIN_TAX": (
            "Periods covered: beginning in 2012 and after",
            "Brackets and their boundaries",
            "Group payroll rule",
            "Group payroll rule for a period of less than 12 months",
            "Group payroll rule for S corporations (uncertain)",
        ),
    }
)


def interpretations_text() -> str:
    """docs/interpretations.md as shipped with the package (:mod:`nj_incentives.support.shipped`);
    "" when it is not found."""
    from nj_incentives.support.shipped import INTERPRETATIONS, shipped_file

    path = shipped_file(INTERPRETATIONS)
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def interpretation_sections(text: str) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    """heading -> (part, heading, body lines) of every ``###`` section."""
    sections: dict[str, tuple[str, str, tuple[str, ...]]] = {}
    part, heading = "", None
    body: list[str] = []
    for line in [*text.splitlines(), "## end"]:
        if line.startswith(("## ", "### ")):
            if heading is not None:
                while body and not body[-1].strip():
                    body.pop()
                sections[heading] = (part, heading, tuple(body))
            heading, body = None, []
            if line.startswith("### "):
                heading = line[4:].strip()
            else:
                part = line[3:].strip()
        elif heading is not None:
            body.append(line)
    return sections
