"""The tax forms the programs' figures go on: each edition written once (its date and
source), each line referenced once (model and labels: :mod:`nj_incentives.core.forms`).

One form carries several programs' lines (Schedule A-3: BEIP and the ERTC), so the forms
are one module of :mod:`nj_incentives.programs` rather than one a program. How to add an
edition: add an :class:`~nj_incentives.core.forms.Edition`, point the lines that moved to
it, and regenerate the docs (``python -m nj_incentives.support.law_currency``) and the
templates (``python -m nj_incentives.workpapers.templates.build``).
"""

from __future__ import annotations

from nj_incentives.core import forms
from nj_incentives.core.forms import Edition, Line
from nj_incentives.programs.ertc import figures as ERTC

__all__ = [
    "EDITIONS",
    "FORM_313",
    "FORM_313_CARRYOVER",
    "FORM_313_LIMIT",
    "FORM_313_LINE_7",
    "FORM_313_PART_I",
    "FORM_313_PART_II",
    "FORM_313_YEAR_TWO",
    "FORM_324",
    "FORM_324_ALLOWABLE",
    "FORM_324_APPROVED",
    "FORM_324_CERTIFICATE",
    "FORM_324_LIABILITY",
    "FORM_324_NET",
    "FORM_324_OTHER_CREDITS",
    "FORM_324_REFUND",
    "LINES",
    "SCHEDULE_A3",
    "SCHEDULE_A3_BEIP",
    "SCHEDULE_A3_ERTC",
    "markdown",
]

_NOTES_5 = "shared/legal-notes.md section 5"
_NOTES_2 = "shared/legal-notes.md section 2"

# --------------------------------------------------------------------------- Form 324

FORM_324 = Edition(
    "Form 324",
    "Business Employment Incentive Program Tax Credit (CBT; Form 324-IPT for the insurance "
    "premiums tax)",
    None,
    f"{_NOTES_5} (the parts and lines as described there; which edition they come from is "
    "not stated)",
    note="Combined filers use Part IV (not in the templates). Certificates are issued "
    "through NJ eCerts (since July 2019).",
)
FORM_324_CERTIFICATE = Line(
    FORM_324, "Part I", None, "the BEIP tax credit certificate (a copy to the Division)", _NOTES_5
)
FORM_324_APPROVED = Line(
    FORM_324, "Part II", "3", "total approved BEIP credit per certificate", _NOTES_5
)
FORM_324_LIABILITY = Line(FORM_324, "Part III", "4", "tax liability (CBT-100 / CBT-100S)", _NOTES_5)
FORM_324_OTHER_CREDITS = Line(FORM_324, "Part III", "5", "other credits used", _NOTES_5)
FORM_324_NET = Line(FORM_324, "Part III", "6", "line 4 - line 5", _NOTES_5)
FORM_324_ALLOWABLE = Line(FORM_324, "Part III", None, "the allowable credit", _NOTES_5)
FORM_324_REFUND = Line(FORM_324, "Part III", None, "the refund", _NOTES_5)

# --------------------------------------------------------------------------- Schedule A-3

SCHEDULE_A3 = Edition(
    "Schedule A-3 of the CBT-100",
    "",  # the sources give no title
    2017,
    f'{_NOTES_5} ("the BEIP line of Schedule A-3 of the CBT-100 (2017 form)"); '
    f"{_NOTES_2} (Form 313's result goes to Schedule A-3)",
    note="N.J.A.C. 18:7-3.17 lists the BEIP credit first in the order of CBT credits and "
    "the Economic Recovery Tax Credit 14th.",
)
SCHEDULE_A3_BEIP = Line(SCHEDULE_A3, "", None, "BEIP line", _NOTES_5)
SCHEDULE_A3_ERTC = Line(SCHEDULE_A3, "", None, "Economic Recovery Tax Credit line", _NOTES_2)

# --------------------------------------------------------------------------- Form 313

FORM_313 = Edition(
    "Form 313",
    "Economic Recovery Tax Credit (CBT)",
    2023,
    f'{_NOTES_5} ("Form 313 has 2022 and 2023 editions (last revised October 2023)"); '
    f"the parts and line 7 as {_NOTES_2} describes them (the edition not stated)",
    revised="October 2023",
)
FORM_313_PART_I = Line(
    FORM_313,
    "Part I",
    None,
    "screening questions (Urban Enterprise Zone benefit; position before credit year one; "
    "temporary or seasonal; owner or owner's relative)",
    _NOTES_2,
)
FORM_313_PART_II = Line(FORM_313, "Part II", None, "list of employees", _NOTES_2)
FORM_313_LINE_7 = Line(
    FORM_313,
    "Part III",
    "7",
    f"new full-time positions in credit year one x {ERTC.CREDIT_YEAR_ONE_AMOUNT.summary()}",
    f"{_NOTES_2} (line 7, its edition not stated)",
    confirmed=False,
)
FORM_313_YEAR_TWO = Line(
    FORM_313,
    "Part III",
    None,
    f"credit year two at {ERTC.CREDIT_YEAR_TWO_AMOUNT.summary()} a position",
    _NOTES_2,
)
FORM_313_LIMIT = Line(
    FORM_313,
    "Part III",
    None,
    "the 50% and minimum-tax limits; other credits taken",
    _NOTES_2,
)
FORM_313_CARRYOVER = Line(FORM_313, "Part III", None, "carryover", _NOTES_2)

#: Every edition and line, in the order the docs list them.
EDITIONS: tuple[Edition, ...] = (FORM_324, SCHEDULE_A3, FORM_313)
LINES: tuple[Line, ...] = (
    FORM_324_CERTIFICATE,
    FORM_324_APPROVED,
    FORM_324_LIABILITY,
    FORM_324_OTHER_CREDITS,
    FORM_324_NET,
    FORM_324_ALLOWABLE,
    FORM_324_REFUND,
    SCHEDULE_A3_BEIP,
    SCHEDULE_A3_ERTC,
    FORM_313_PART_I,
    FORM_313_PART_II,
    FORM_313_LINE_7,
    FORM_313_YEAR_TWO,
    FORM_313_LIMIT,
    FORM_313_CARRYOVER,
)


def markdown() -> str:
    """The editions and the lines the templates label, as Markdown tables."""
    return forms.markdown(EDITIONS, LINES)
