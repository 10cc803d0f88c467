"""The Corporate Transit Fee (P.L.2024, c.20) on a template: an optional input beside the
CBT liability, its own line of the return, and a Checks line for a fee entered for a
privilege period the fee does not apply to (docs/interpretations.md, "The Corporate
Transit Fee").

The fee is an input (what the taxpayer computed: its base, allocated taxable net income,
is not in any workpaper); no credit reduces it, so the credits' limits keep reading the
liability entered, the CBT before the fee. The period test is a Checks line (an input
rule reads one cell, not its period); a period's first day is the day after the period
before it ends, else twelve months before its end (:func:`begins`).
"""

from __future__ import annotations

from nj_incentives.core.workpaper import Check, Column, Kind
from nj_incentives.programs import return_sheet as returns
from nj_incentives.programs.cbt import figures as CBT

__all__ = [
    "INPUT",
    "begins",
    "check",
    "column",
    "figure",
    "refusal",
]

CITE = CBT.CITE_TRANSIT_FEE
#: The input's header (and what a refusal names).
INPUT = "Corporate Transit Fee (if any)"
FIRST = CBT.TRANSIT_FEE_FIRST_PERIOD_BEGIN.single
LAST = CBT.TRANSIT_FEE_LAST_PERIOD_BEGIN.single
RULE = (
    f"the fee applies only to privilege periods beginning {FIRST.isoformat()} through "
    f"{LAST.isoformat()}"
)


def column(name: str) -> Column:
    """The optional input, one cell a period (blank: no fee)."""
    return Column(
        INPUT,
        Kind.MONEY,
        "$",
        name=name,
        key="transit_fees",
        minimum=0,
        prompt="Corporate Transit Fee",
        help=f"The fee the taxpayer computed ({CITE}: "
        f"{CBT.TRANSIT_FEE_RATE.single * 100:.1f}% of allocated taxable net income over "
        f"${CBT.TRANSIT_FEE_THRESHOLD.single:,.0f}; periods beginning {FIRST.year}-{LAST.year}"
        "); blank: none. On the return apart from the CBT: no credit reduces it.",
    )


def begins(end: str, previous: str | None = None) -> str:
    """A formula: the first day of the period ending at the cell ``end``."""
    full = f"EDATE({end},-12)+1"
    first = full if previous is None else f"IF(ISNUMBER({previous}),{previous}+1,{full})"
    return f'IF(ISNUMBER({end}),{first},"")'


def amount(fee: str) -> str:
    """A formula: the fee of a row for the return (blank: 0; text stays text, which the
    numbers check names)."""
    return f"IF(ISBLANK({fee}),0,{fee})"


def refusal(fee: str, begin: str, label: str) -> str:
    """A formula: "" or the text naming the input of row ``label``, its value, the rule and
    the citation, when a fee is entered for a period beginning outside the fee's
    (``begin``: a formula, :func:`begins`, or a reference)."""
    begin = f"({begin})"
    outside = (
        f"OR({begin}<DATE({FIRST.year},{FIRST.month},{FIRST.day}),"
        f"{begin}>DATE({LAST.year},{LAST.month},{LAST.day}))"
    )
    text = (
        f'"{INPUT}, {label} = "&TEXT({fee},"#,##0.00")&": {RULE} ({CITE}); this period begins '
        f'"&TEXT({begin},"yyyy-mm-dd")&". "'
    )
    return f'IF(AND(ISNUMBER({fee}),N({fee})<>0,ISNUMBER({begin}),{outside}),{text},"")'


def check(rows: list[tuple[str, str, str]]) -> Check:
    """The Checks line over the rows (``(fee, begin, label)`` each, as :func:`refusal`):
    the period test is a check, not a figure of Calculations."""
    refusals = "&".join(refusal(fee, begin, label) for fee, begin, label in rows)
    return Check.detailed(
        f"A Corporate Transit Fee is entered only for privilege periods beginning "
        f"{FIRST.isoformat()} through {LAST.isoformat()}",
        "Corporate Transit Fee entered for a period it does not apply to",
        f"TRIM({refusals})",
        CITE,
    )


def figure(source: str) -> returns.ReturnFigure:
    """The return's line of the fee, apart from the CBT the credits reduce."""
    return returns.ReturnFigure(
        "Corporate Transit Fee (apart from the CBT; no credit reduces it)",
        source,
        law=f"{CITE} (the fee as entered)",
    )
