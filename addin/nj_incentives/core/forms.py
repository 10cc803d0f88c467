"""The tax forms the figures go on: each edition written once (its date and source),
each line referenced once, every label generated from them.

Line numbers change between editions (shared/legal-notes.md section 5: "label them with
the form year"), so a label always names the form and its edition. A line the sources
give is labelled with its number; a line they do not give is named by its part with
"line to be confirmed", never a guessed number; a number the sources give without
saying which edition it is from is labelled "(to be confirmed)" for the edition named
(docs/interpretations.md, "Form lines and their editions", generated from this module).

Like :mod:`nj_incentives.core.parameters` (which it reads for the figures a line's text
names), this module is data only: the standard library, no I/O. The templates, the memo
and the docs read the labels from here:

- :meth:`Line.label`: ``"Form 324 (edition to be confirmed) Part III, line 4: tax
  liability (CBT-100 / CBT-100S)"``; ``what=False`` leaves out what the line holds;
- :meth:`Line.where`: the part and line only, ``"Part III, line 4"`` (a column header
  under the form's name);
- :func:`markdown`: the table of every edition and line, for docs/interpretations.md.

How to add an edition: add an :class:`Edition` (the form, its year, the revision the
form prints, the source), point the lines that moved to it, and regenerate the docs
(``python -m nj_incentives.support.law_currency``) and the templates
(``python -m nj_incentives.workpapers.templates.build``).
"""

from __future__ import annotations

from dataclasses import dataclass

from nj_incentives.core import parameters as P

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
    "Edition",
    "Line",
    "markdown",
]

TO_CONFIRM = "to be confirmed"
_NOTES_5 = "shared/legal-notes.md section 5"
_NOTES_2 = "shared/legal-notes.md section 2"


@dataclass(frozen=True)
class Edition:
    """One edition of a form: ``year`` (the form year it prints; None: the sources do not
    say which edition they describe), ``revised`` (the revision it prints, "October
    2023"; "" if not known) and where the facts about it come from."""

    form: str
    title: str
    year: int | None
    source: str
    revised: str = ""
    note: str = ""

    @property
    def name(self) -> str:
        """``"Form 313 (2023 edition, rev. October 2023)"``, ``"Form 324 (edition to be
        confirmed)"``."""
        if self.year is None:
            return f"{self.form} (edition {TO_CONFIRM})"
        revised = f", rev. {self.revised}" if self.revised else ""
        return f"{self.form} ({self.year} edition{revised})"


@dataclass(frozen=True)
class Line:
    """A line (or, with ``number=None``, a part) of an edition, and what it holds.

    ``confirmed=False``: the sources give the number without tying it to this edition,
    and the label says it is to be confirmed. ``part=""``: the form's parts are not known
    (Schedule A-3's BEIP line)."""

    edition: Edition
    part: str
    number: str | None
    what: str
    source: str
    confirmed: bool = True

    def where(self) -> str:
        """``"Part III, line 4"``, ``"Part III, line to be confirmed"``, ``"BEIP line
        (line number to be confirmed)"``."""
        if self.number is None:
            line = f"line {TO_CONFIRM}" if self.part else f"{self.what} (line number {TO_CONFIRM})"
        else:
            line = f"line {self.number}" + ("" if self.confirmed else f" ({TO_CONFIRM})")
        return f"{self.part}, {line}" if self.part else line

    def label(self, what: bool = True) -> str:
        """The form, its edition, the part and line, and (``what``) what it holds."""
        text = f"{self.edition.name} {self.where()}"
        if what and (self.part or self.number is not None):
            text += f": {self.what}"
        return text


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
    f"new full-time positions in credit year one x {P.CREDIT_YEAR_ONE_AMOUNT.summary()}",
    f"{_NOTES_2} (line 7, its edition not stated)",
    confirmed=False,
)
FORM_313_YEAR_TWO = Line(
    FORM_313,
    "Part III",
    None,
    f"credit year two at {P.CREDIT_YEAR_TWO_AMOUNT.summary()} a position",
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


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """The editions and the lines the templates label, as Markdown tables."""
    rows = [
        "| Form | Title | Edition | Source | Note |",
        "|---|---|---|---|---|",
    ]
    for e in EDITIONS:
        edition = (
            TO_CONFIRM
            if e.year is None
            else f"{e.year}" + (f" (rev. {e.revised})" if e.revised else "")
        )
        rows.append(
            f"| {_cell(e.form)} | {_cell(e.title)} | {edition} | {_cell(e.source)} | "
            f"{_cell(e.note)} |"
        )
    rows += ["", "| Label (as the templates print it) | Line number | Source |", "|---|---|---|"]
    for line in LINES:
        if line.number is None:
            number = f"not in the sources: {TO_CONFIRM}"
        elif line.confirmed:
            number = f"{line.number} (as the source gives it)"
        else:
            number = f"{line.number}: the source's number, its edition not stated: {TO_CONFIRM}"
        rows.append(f"| {_cell(line.label())} | {number} | {_cell(line.source)} |")
    return "\n".join(rows)
