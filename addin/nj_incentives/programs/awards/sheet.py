"""The Calendar sheet a template of an award with obligations carries (issue 33, item 2):
the award's dated obligations (``NJ_AWARD_CALENDAR``) on a sheet of their own, and the
Checks line that fails while a report is past due or was filed late.

Past due is judged as of a date the workpaper states (its "Obligations as of" input), never
``TODAY()``: a signed workpaper's checks must not change by themselves as days pass, and the
date is an input the inputs hash covers (the workpaper's own Date is a sign-off field the
hash leaves out). docs/interpretations.md, "Award obligations: the compliance calendar".
"""

from __future__ import annotations

from nj_incentives.core.workpaper import (
    ArrayTable,
    Check,
    Column,
    Item,
    Kind,
    LineItem,
    Note,
    Title,
)
from nj_incentives.programs.awards import rules as awards
from nj_incentives.programs.awards.functions import CALENDAR_COLUMNS

__all__ = [
    "AS_OF",
    "CALENDAR",
    "as_of_input",
    "calendar_sheet",
    "fits_check",
    "past_due_check",
]

#: The Calendar sheet's name.
CALENDAR = "Calendar"
#: The defined name of the "Obligations as of" input.
AS_OF = "ObligationsAsOf"

_WIDTHS = {
    "Due": 10.0,
    "Kind": 10.0,
    "Obligation": 42.0,
    "Year": 6.0,
    "Consequence": 38.0,
    "Citation": 24.0,
    "Note": 36.0,
    "Status": 9.0,
}
_KINDS = {"date": (Kind.DATE, "date"), "value": (Kind.YEAR, "")}
#: The calendar's columns as the sheet shows them.
COLUMNS = tuple(
    Column(
        column.header,
        _KINDS.get(column.unit, (Kind.TEXT, ""))[0],
        _KINDS.get(column.unit, (Kind.TEXT, ""))[1],
        width=_WIDTHS.get(column.header, 16.0),
    )
    for column in CALENDAR_COLUMNS
)


def as_of_input(key: str = "obligations_as_of") -> Item:
    """The "Obligations as of" input (on Inputs)."""
    return Item(
        "Obligations as of (blank: past due not checked)",
        AS_OF,
        Kind.DATE,
        "date",
        key=key,
        prompt="Obligations as of",
        help="The date the Calendar's past-due status is judged at: a report due before it "
        "and not filed is past due. A date you state, not today's: a signed workpaper does "
        "not change by itself as days pass.",
    )


def calendar_sheet(
    formula: str, rows: int, program: str, citation: str, when: str
) -> tuple[LineItem, ...]:
    """The Calendar sheet: its title and the spilled ``NJ_AWARD_CALENDAR`` call
    ``formula`` over ``rows`` rows (the most the award's terms give), named ``Calendar``,
    under a heading citing ``citation`` (the program's obligations). While the input
    ``when`` (the first period's end) is blank the table is its header alone: a workpaper
    of the figures only (an engagement from before the calendar) keeps its checks."""
    header = ",".join(f'"{column.header}"' for column in COLUMNS)
    formula = f'IF(LEN({when}&"")=0,{{{header}}},{formula})'
    return (
        Title(
            CALENDAR,
            f"The {awards.PROGRAMS[program]} award's dated obligations (NJ_AWARD_CALENDAR), "
            "past due as of Inputs' 'Obligations as of'.",
            sheet=CALENDAR,
            landscape=True,
            narrow=(2.0, 2.0),
        ),
        ArrayTable(
            formula,
            COLUMNS,
            rows=rows,
            label=f"Obligations by date ({citation})",
            name="Calendar",
            # wrapped text: an obligation, its consequence and its note run to lines
            role="note",
            lines=4,
            sheet=CALENDAR,
        ),
        Note(
            "Status: past due (a report due before the 'as of' date and not filed), filed, "
            "filed late, paid, open (not yet due), ended (a continuing test whose year has "
            "passed: its compliance is what that year's report states).",
            sheet=CALENDAR,
        ),
    )


def fits_check(citation: str) -> Check:
    """The Checks line: the calendar's last row is blank, so no obligation was cut off (a
    table longer than its range is cut to it; the range is one row longer than the terms
    the template takes give)."""
    return Check(
        "The Calendar's table holds every obligation (its last row is blank)",
        'LEN([[data:Calendar:Due:-1:]]&"")=0',
        citation,
    )


def past_due_check(citation: str) -> Check:
    """The Checks line: no report past due or filed late as of the stated date; when one
    is, the line counts them and names the first."""
    status, obligation = "[[data:Calendar:Status]]", "[[data:Calendar:Obligation]]"
    late, filed_late = (f'COUNTIF({status},"{word}")' for word in ("past due", "filed late"))
    first = f'IF({late}>0,"past due","filed late")'
    detail = (
        f'IF({late}+{filed_late}=0,"",{late}&" past due and "&{filed_late}&" filed late as of the'
        f" 'Obligations as of' date; the first: \"&INDEX({obligation},MATCH({first},{status},0)))"
    )
    return Check.detailed(
        "No report is past due or was filed late as of 'Obligations as of' (Calendar; blank"
        " date: past due not checked)",
        "Reports past due or filed late (Calendar)",
        detail,
        citation,
    )
