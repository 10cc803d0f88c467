"""Which readings of docs/interpretations.md the Corporation Business Tax's NJ_* functions
apply (the memo prints their sections)."""

from __future__ import annotations

__all__ = ["INTERPRETATIONS", "TAX_YEAR"]

#: The Form CBT-100 numbering of tax years (also read by BEIP's conversion and h.(2)).
TAX_YEAR = ("Which return is tax year N (Form CBT-100 numbering)",)

#: NJ_* function -> the headings of docs/interpretations.md its result rests on.
INTERPRETATIONS: dict[str, tuple[str, ...]] = {
    "NJ_TAX_YEAR": TAX_YEAR,
    "NJ_TAX_PERIOD_END": TAX_YEAR,
    "NJ_CBT_MIN_TAX": (
        "Periods covered: beginning in 2012 and after",
        "Brackets and their boundaries",
        "Group payroll rule",
        "Group payroll rule for a period of less than 12 months",
        "Group payroll rule for S corporations (uncertain)",
    ),
}
