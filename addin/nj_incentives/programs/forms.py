"""The tax forms the programs' figures go on: each edition written once (its date and
source), each line referenced once (model and labels: :mod:`nj_incentives.core.forms`).

One form carries several programs' lines (Schedule A-3: BEIP, the ERTC, BRRAG, Urban
Transit Hub, Grow NJ and Emerge), so the forms
are one module of :mod:`nj_incentives.programs` rather than one a program. How to add an
edition: add an :class:`~nj_incentives.core.forms.Edition`, point the lines that moved to
it, and regenerate the docs (``python -m nj_incentives.support.law_currency``) and the
templates (``python -m nj_incentives.workpapers.templates.build``).
"""

from __future__ import annotations

from nj_incentives.core import forms
from nj_incentives.core.forms import Edition, Form, Line
from nj_incentives.programs.ertc import figures as ERTC

__all__ = [
    "CREDIT_FORMS",
    "EDITIONS",
    "FORMS",
    "FORM_313",
    "FORM_313_2013",
    "FORM_313_2022",
    "FORM_313_CARRYOVER",
    "FORM_313_LIMIT",
    "FORM_313_LINE_7",
    "FORM_313_OTHER_CREDITS",
    "FORM_313_PART_I",
    "FORM_313_PART_II",
    "FORM_313_YEAR_TWO",
    "FORM_316",
    "FORM_316_2015",
    "FORM_319_2021",
    "FORM_320",
    "FORM_320_2016",
    "FORM_320_2022",
    "FORM_324",
    "FORM_324_2017",
    "FORM_324_2021",
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
    "SCHEDULE_A3_BRRAG",
    "SCHEDULE_A3_EMERGE",
    "SCHEDULE_A3_ERTC",
    "SCHEDULE_A3_GROW_NJ",
    "SCHEDULE_A3_UTH",
    "line",
    "markdown",
]

_NOTES_5 = "shared/legal-notes.md section 5"
_NOTES_2 = "shared/legal-notes.md section 2"
_NOTES_7 = "shared/legal-notes.md section 7"
_A3_SEARCHED = (
    "the line numbers of the CBT-100 / CBT-100S Schedule A-3 were searched for and not found "
    f"({_NOTES_7}; docs/interpretations.md, 'Form lines and their editions')"
)

# --------------------------------------------------------------------------- Form 324
# Three editions found (legal-notes section 7): 2017 (07-17), 2021 (10-21), 2023. The
# 2021 edition numbers the 2023 edition's items one higher; 2024 and 2025 editions were
# not found, so the 2023 edition applies from 2023 on.

_324_TITLE = (
    "Business Employment Incentive Program Tax Credit (CBT; Form 324-IPT for the insurance "
    "premiums tax)"
)
FORM_324_2017 = Edition(
    "Form 324",
    _324_TITLE,
    2017,
    f"{_NOTES_7} (the 2017 edition, 07-17: line 4 to Schedule A-3, the liability on line 5; "
    "line 3 the approved credit, templateroller copy of the 2017 form)",
    revised="07-17",
    note="Applies from tax year 2017 until the 2021 edition (the 2018-2020 editions not found).",
)
FORM_324_2021 = Edition(
    "Form 324",
    _324_TITLE,
    2021,
    f"{_NOTES_7} (the 2021 edition, 10-21, numbers the 2023 edition's items one higher)",
    revised="10-21",
    note="Applies to tax years 2021 and 2022. Combined return filers skip Part III for Part "
    "IV, whose lines no source gives: the BEIP conversion template's input 'Combined return "
    "filer (Form 324 Part IV)' then computes no Part III figure for the return.",
)
FORM_324 = Edition(
    "Form 324",
    _324_TITLE,
    2023,
    f"{_NOTES_7} (a stored copy of the 2023 form); {_NOTES_5}",
    note="Applies from tax year 2023 (the 2024 and 2025 editions not found). Combined return "
    "filers skip Part III and complete Part IV, whose lines no source gives: the BEIP "
    "conversion template's input 'Combined return filer (Form 324 Part IV)' then computes no "
    "Part III figure for the return. Certificates are issued through NJ eCerts (since July "
    "2019).",
)
FORM_324_CERTIFICATE = Line(
    FORM_324, "Part I", None, "the BEIP tax credit certificate (a copy to the Division)", _NOTES_7
)
FORM_324_APPROVED = Line(
    FORM_324, "Part II", "3", "total approved BEIP credit per certificate", _NOTES_7
)
FORM_324_LIABILITY = Line(
    FORM_324,
    "Part III",
    "4",
    "tax liability from page 1, line 2a of the CBT-100 / CBT-100S (the CBT before the "
    "Corporate Transit Fee)",
    _NOTES_7,
)
FORM_324_OTHER_CREDITS = Line(FORM_324, "Part III", "5", "other tax credits used", _NOTES_7)
FORM_324_NET = Line(FORM_324, "Part III", "6", "line 4 less line 5, not below zero", _NOTES_7)
FORM_324_ALLOWABLE = Line(FORM_324, "Part III", None, "the allowable credit", _NOTES_7)
FORM_324_REFUND = Line(FORM_324, "Part III", None, "the refund", _NOTES_7)

_324_2021 = {
    "certificate": Line(
        FORM_324_2021, "Part I", None, "the BEIP tax credit certificate or eCerts profile", _NOTES_7
    ),
    "approved": Line(
        FORM_324_2021, "Part II", "4", "total approved BEIP credit per certificate", _NOTES_7
    ),
    "liability": Line(
        FORM_324_2021,
        "Part III",
        "5",
        "tax liability from page 1, line 2 of the CBT-100 (the CBT before the Corporate "
        "Transit Fee)",
        _NOTES_7,
    ),
    "other_credits": Line(FORM_324_2021, "Part III", "6", "other tax credits used", _NOTES_7),
    "net": Line(FORM_324_2021, "Part III", "7", "line 5 less line 6, not below zero", _NOTES_7),
    "allowable": Line(FORM_324_2021, "Part III", None, "the allowable credit", _NOTES_7),
    "refund": Line(FORM_324_2021, "Part III", None, "the refund", _NOTES_7),
}
_324_2017 = {
    "certificate": Line(
        FORM_324_2017, "Part I", None, "the conversion agreement and certificate", _NOTES_7
    ),
    "approved": Line(
        FORM_324_2017, "Part II", "3", "total approved BEIP credit per certificate", _NOTES_7
    ),
    "liability": Line(
        FORM_324_2017, "Part III", "5", "tax liability (CBT-100 / CBT-100S)", _NOTES_7
    ),
    "other_credits": Line(FORM_324_2017, "Part III", None, "other tax credits used", _NOTES_7),
    "net": Line(FORM_324_2017, "Part III", None, "liability less other credits", _NOTES_7),
    "allowable": Line(FORM_324_2017, "Part III", None, "the allowable credit", _NOTES_7),
    "refund": Line(FORM_324_2017, "Part III", None, "the refund", _NOTES_7),
}

# --------------------------------------------------------------------------- Schedule A-3

SCHEDULE_A3 = Edition(
    "Schedule A-3 of the CBT-100",
    "",  # the sources give no title
    2017,
    f'{_NOTES_5} ("the BEIP line of Schedule A-3 of the CBT-100 (2017 form)"); '
    f"{_NOTES_2} (Form 313's result goes to Schedule A-3); {_A3_SEARCHED}",
    note="N.J.A.C. 18:7-3.17 lists the BEIP credit first in the order of CBT credits and "
    "the Economic Recovery Tax Credit 14th. No later edition found: the lines of every tax "
    "year are to be confirmed.",
)
SCHEDULE_A3_BEIP = Line(SCHEDULE_A3, "", None, "BEIP line", _NOTES_5)
SCHEDULE_A3_ERTC = Line(SCHEDULE_A3, "", None, "Economic Recovery Tax Credit line", _NOTES_2)
# The other programs' lines (issue 33, item 4): the credit forms feeding them were found
# (below), Schedule A-3's line numbers were not (docs/interpretations.md lists the search).
_A3_OTHERS_SEARCHED = (
    'searched (December 2026, stored pages and docs): "CBT-100 Schedule A-3" with each '
    'credit\'s name and form number, "Summary of Tax Credits", "here and on Schedule '
    'A-3"; the stored 2022 CBT-100 (ses.stf.com bookmarks, 2023060112030119922647) showed '
    "page 1 only; not found"
)
SCHEDULE_A3_BRRAG = Line(
    SCHEDULE_A3,
    "",
    None,
    "Business Retention and Relocation Tax Credit line",
    _A3_OTHERS_SEARCHED,
)
SCHEDULE_A3_UTH = Line(
    SCHEDULE_A3, "", None, "Urban Transit Hub Tax Credit line", _A3_OTHERS_SEARCHED
)
SCHEDULE_A3_GROW_NJ = Line(
    SCHEDULE_A3,
    "",
    None,
    "Grow New Jersey Assistance Tax Credit line",
    _A3_OTHERS_SEARCHED,
)
SCHEDULE_A3_EMERGE = Line(
    SCHEDULE_A3,
    "",
    None,
    "Emerge Program tax credit line",
    f'{_A3_OTHERS_SEARCHED}; no Emerge credit form found (searched "Emerge Program Tax '
    'Credit form Corporation Business Tax")',
)

# --------------------------------------------------------------------------- Forms 316, 319, 320
# The credit forms of BRRAG, Urban Transit Hub and Grow NJ (issue 33, item 4), from stored
# copies of the forms (not in legal-notes; each edition names its copy). Only the lines
# the copies show: the approved credit of the period and the credit carried in.

_316_TITLE = "Business Retention and Relocation Tax Credit (CBT)"
_319_TITLE = "Urban Transit Hub Tax Credit (CBT)"
_320_TITLE = "Grow New Jersey Assistance Tax Credit (CBT)"
_SRC_316_2015 = "formsbank.com template 328947 (Form 316, 2015, rev. 07-15, R-09)"
_SRC_316_2023 = "taxformfinder.org/newjersey/form-316 (Form 316, 2023)"
_SRC_319_2021 = "ses.stf.com bookmarks, 2023060112030458122665 (Form 319, 2021, rev. 10-21)"
_SRC_320_2016 = "formsbank.com template 227477 (Form 320, 2016, rev. 10-16)"
_SRC_320_2022 = "ses.stf.com bookmarks, 2023060112030421722663 (Form 320, 2022)"
_SRC_320_2023 = "taxformfinder.org/newjersey/form-320 (Form 320, 2023, last modified October 2023)"
FORM_316_2015 = Edition(
    "Form 316",
    _316_TITLE,
    2015,
    _SRC_316_2015,
    revised="07-15, R-09",
    note="Applies from tax year 2015 until the 2023 edition (the 2016-2022 editions not found).",
)
FORM_316 = Edition(
    "Form 316",
    _316_TITLE,
    2023,
    _SRC_316_2023,
    note="Applies from tax year 2023 (the 2024 and 2025 editions not found).",
)
FORM_319_2021 = Edition(
    "Form 319",
    _319_TITLE,
    2021,
    _SRC_319_2021,
    revised="10-21",
    note="The only edition found: applies to every tax year (earlier and later ones not found).",
)
FORM_320_2016 = Edition(
    "Form 320",
    _320_TITLE,
    2016,
    _SRC_320_2016,
    revised="10-16",
    note="Applies from tax year 2016 until the 2022 edition (the 2017-2021 editions not read).",
)
FORM_320_2022 = Edition("Form 320", _320_TITLE, 2022, _SRC_320_2022)
FORM_320 = Edition(
    "Form 320",
    _320_TITLE,
    2023,
    _SRC_320_2023,
    revised="October 2023",
    note="Applies from tax year 2023 (the 2024 and 2025 editions not found).",
)


def _credit_form(
    edition: Edition, source: str, approved: str, carried: str | None
) -> dict[str, Line]:
    """The lines of a credit form's edition: the approved credit (Part II) and the credit
    carried in from the prior period (Part II; None: not shown by the copy)."""
    return {
        "approved": Line(
            edition,
            "Part II",
            approved,
            "approved credit for the period, as on the tax credit certificate",
            source,
        ),
        "carried_in": Line(
            edition, "Part II", carried, "credit carried forward from the prior period", source
        ),
        "allowable": Line(
            edition, "Part III", None, "the allowable credit (to Schedule A-3)", source
        ),
    }


_316_2015 = _credit_form(FORM_316_2015, _SRC_316_2015, "3", None)
_316_2023 = _credit_form(FORM_316, _SRC_316_2023, "3", "4")
_319_2021 = _credit_form(FORM_319_2021, _SRC_319_2021, "4", None)
_320_2016 = _credit_form(FORM_320_2016, _SRC_320_2016, "4", "5")
_320_2022 = _credit_form(FORM_320_2022, _SRC_320_2022, "3", "4")
_320_2023 = _credit_form(FORM_320, _SRC_320_2023, "3", "4")
_320_2023["liability"] = Line(
    FORM_320,
    "Part III",
    "6",
    "tax liability from page 1, line 2a of the CBT-100 / CBT-100S",
    _SRC_320_2023,
)

# --------------------------------------------------------------------------- Form 313
# Editions found (legal-notes section 7): 2013 (Parts IV and V: the limits and the
# carryover), 2022 and 2023 (Part III line 7). Whether the 2022/2023 editions kept Parts
# IV/V was not visible: their lines carry the 2013 numbers, "to be confirmed".

_313_TITLE = "Economic Recovery Tax Credit (CBT)"
FORM_313_2013 = Edition(
    "Form 313",
    _313_TITLE,
    2013,
    f"{_NOTES_7} (the 2013 edition: Part IV lines 16-18, Part V the carryover)",
    note="Applies from tax year 2013 until the 2022 edition (the 2014-2021 editions not found).",
)
FORM_313_2022 = Edition(
    "Form 313",
    _313_TITLE,
    2022,
    f"{_NOTES_7} (Part I lines 1-6, Part II employees, Part III line 7)",
)
FORM_313 = Edition(
    "Form 313",
    _313_TITLE,
    2023,
    f'{_NOTES_5} ("Form 313 has 2022 and 2023 editions (last revised October 2023)"); '
    f"{_NOTES_7} (Part III line 7 confirmed for both)",
    revised="October 2023",
    note="Applies from tax year 2023 (the 2024 and 2025 editions not found).",
)


def _313(edition: Edition, line_7: bool) -> dict[str, Line]:
    """The lines of a Form 313 edition (line 7 given for 2022 and 2023; Parts IV and V
    numbered as the 2013 edition numbers them, to be confirmed for a later one)."""
    later = edition.year != 2013
    return {
        "part_i": Line(
            edition,
            "Part I",
            None,
            "screening questions (Urban Enterprise Zone benefit; position before credit year "
            "one; temporary or seasonal; owner or owner's relative)",
            _NOTES_7,
        ),
        "part_ii": Line(edition, "Part II", None, "list of employees", _NOTES_7),
        "year_one": Line(
            edition,
            "Part III",
            "7" if line_7 else None,
            f"new full-time positions in credit year one x {ERTC.CREDIT_YEAR_ONE_AMOUNT.summary()}",
            _NOTES_7,
        ),
        "year_two": Line(
            edition,
            "Part III",
            None,
            f"credit year two at {ERTC.CREDIT_YEAR_TWO_AMOUNT.summary()} a position",
            _NOTES_7,
        ),
        "other_credits": Line(
            edition,
            "Part IV",
            "16",
            "tax credits taken on the current year's return",
            _NOTES_7,
            confirmed=not later,
        ),
        "allowable": Line(
            edition,
            "Part IV",
            "18",
            "allowable credit: the lesser of line 10 or line 17, here and on Schedule A-3",
            _NOTES_7,
            confirmed=not later,
        ),
        "carryover": Line(edition, "Part V", None, "carryover (columns A-F)", _NOTES_7),
    }


_313_2013 = _313(FORM_313_2013, line_7=False)
_313_2022 = _313(FORM_313_2022, line_7=True)
_313_2023 = _313(FORM_313, line_7=True)
FORM_313_PART_I = _313_2023["part_i"]
FORM_313_PART_II = _313_2023["part_ii"]
FORM_313_LINE_7 = _313_2023["year_one"]
FORM_313_YEAR_TWO = _313_2023["year_two"]
FORM_313_OTHER_CREDITS = _313_2023["other_credits"]
FORM_313_LIMIT = _313_2023["allowable"]
FORM_313_CARRYOVER = _313_2023["carryover"]

_324_2023 = {
    "certificate": FORM_324_CERTIFICATE,
    "approved": FORM_324_APPROVED,
    "liability": FORM_324_LIABILITY,
    "other_credits": FORM_324_OTHER_CREDITS,
    "net": FORM_324_NET,
    "allowable": FORM_324_ALLOWABLE,
    "refund": FORM_324_REFUND,
}

#: The forms as dated data: ``FORMS["Form 324"].line("liability", 2022)`` is the 2021
#: edition's Part III line 5.
FORMS: dict[str, Form] = {
    form.name: form
    for form in (
        Form(
            "Form 324",
            (
                (FORM_324_2017, tuple(_324_2017.items())),
                (FORM_324_2021, tuple(_324_2021.items())),
                (FORM_324, tuple(_324_2023.items())),
            ),
        ),
        Form(
            "Schedule A-3",
            (
                (
                    SCHEDULE_A3,
                    (
                        ("beip", SCHEDULE_A3_BEIP),
                        ("ertc", SCHEDULE_A3_ERTC),
                        ("brrag", SCHEDULE_A3_BRRAG),
                        ("uth", SCHEDULE_A3_UTH),
                        ("grow_nj", SCHEDULE_A3_GROW_NJ),
                        ("emerge", SCHEDULE_A3_EMERGE),
                    ),
                ),
            ),
        ),
        Form(
            "Form 313",
            (
                (FORM_313_2013, tuple(_313_2013.items())),
                (FORM_313_2022, tuple(_313_2022.items())),
                (FORM_313, tuple(_313_2023.items())),
            ),
        ),
        Form(
            "Form 316",
            ((FORM_316_2015, tuple(_316_2015.items())), (FORM_316, tuple(_316_2023.items()))),
        ),
        Form("Form 319", ((FORM_319_2021, tuple(_319_2021.items())),)),
        Form(
            "Form 320",
            (
                (FORM_320_2016, tuple(_320_2016.items())),
                (FORM_320_2022, tuple(_320_2022.items())),
                (FORM_320, tuple(_320_2023.items())),
            ),
        ),
    )
}

#: Each program's line of Schedule A-3 (the item of ``line("Schedule A-3", ...)``) and
#: its own credit form, by program key; Emerge's form was not found.
CREDIT_FORMS: dict[str, str | None] = {
    "beip": "Form 324",
    "brrag": "Form 316",
    "ertc": "Form 313",
    "uth": "Form 319",
    "grow_nj": "Form 320",
    "emerge": None,
}


def line(form: str, item: str, tax_year: int) -> Line:
    """Line ``item`` of ``form`` ("Form 324", "Form 313", "Form 316", "Form 319", "Form 320",
    "Schedule A-3": items ``beip``, ``ertc``, ``brrag``, ``uth``, ``grow_nj``, ``emerge``) in
    the edition in force for ``tax_year`` (:class:`~nj_incentives.core.forms.Form`)."""
    return FORMS[form].line(item, tax_year)


#: Every edition and line, in the order the docs list them.
EDITIONS: tuple[Edition, ...] = tuple(
    edition for form in FORMS.values() for edition, _ in form.editions
)
LINES: tuple[Line, ...] = tuple(ln for form in FORMS.values() for ln in form.lines())


def markdown() -> str:
    """The editions and the lines the templates label, as Markdown tables."""
    return forms.markdown(EDITIONS, LINES)
