"""The Corporate Transit Fee (P.L.2024, c.20) on a template: an optional input beside the
CBT liability, its own line of the return, and a Checks line for a fee entered for a
privilege period the fee does not apply to (docs/interpretations.md, "The Corporate
Transit Fee").

The fee is an input (what the taxpayer computed: its base, allocated taxable net income,
is not in any workpaper); no credit reduces it, so the credits' limits keep reading the
liability entered, the CBT before the fee. The period test is a Checks line (an input
rule reads one cell, not its period); a period's first day is the day after the period
before it ends, else twelve months before its end (:func:`begins`). So is the taxpayer
test: a fee entered for a taxpayer it is not due from (an S corporation, a public
utility: ``TRANSIT_FEE_NOT_DUE_FROM``), each kind a Yes/No input of the template
(:data:`KINDS`, :func:`kind_items`, :func:`kind_check`).
"""

from __future__ import annotations

from collections.abc import Callable

from nj_incentives.core.workpaper import Check, Column, Item, Kind
from nj_incentives.programs import return_sheet as returns
from nj_incentives.programs.cbt import figures as CBT

__all__ = [
    "INPUT",
    "KINDS",
    "NOT_DUE_RULE",
    "begins",
    "check",
    "column",
    "figure",
    "kind_check",
    "kind_items",
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


#: Each kind of taxpayer the fee is not due from (``TRANSIT_FEE_NOT_DUE_FROM``): the
#: Yes/No input a template asks it by (defined name, label, ``fill``'s key, prompt, help).
KINDS: dict[str, tuple[str, str, str, str, str]] = {
    "S corporation": (
        "SCorporation",
        "The taxpayer is a New Jersey S corporation",
        "s_corporation",
        "New Jersey S corporation?",
        "Files the CBT-100S; selects the S corporation column of the minimum tax "
        f"(P.L.2011, c.84); no Corporate Transit Fee is due from it ({CITE}).",
    ),
    "public utility": (
        "PublicUtility",
        "The taxpayer is a public utility",
        "public_utility",
        "Public utility?",
        f"A public utility subject to the CBT; no Corporate Transit Fee is due from it ({CITE}).",
    ),
}
NOT_DUE_FROM: tuple[str, ...] = CBT.TRANSIT_FEE_NOT_DUE_FROM.single
NOT_DUE_RULE = "the fee is not due from " + " or ".join(
    f"{'an' if kind[0] in 'AEFHILMNORSX' else 'a'} {kind}" for kind in NOT_DUE_FROM
)


def kind_items() -> tuple[Item, ...]:
    """The Yes/No inputs of the kinds the fee is not due from (default No)."""
    return tuple(
        Item(
            label,
            name,
            Kind.YESNO,
            "yes/no",
            key=key,
            default=False,
            prompt=prompt,
            help=help_text,
        )
        for name, label, key, prompt, help_text in (KINDS[kind] for kind in NOT_DUE_FROM)
    )


def kind_check(rows: list[tuple[str, str]], read: Callable[[str], str]) -> Check:
    """The Checks line: a fee other than 0 entered for a taxpayer it is not due from fails
    it, the line naming the input and each period's value, the rule with its citation and
    the kind answered Yes (``rows``: ``(fee, label)`` of each period; ``read``: the Yes/No
    inputs as the functions read them, :func:`nj_incentives.programs.template_inputs.
    reader`)."""
    yes = {name: f"({read(name)}=TRUE)" for name, *_ in (KINDS[k] for k in NOT_DUE_FROM)}
    fees = "&".join(
        f'IF(AND(ISNUMBER({fee}),N({fee})<>0),"; {label} = "&TEXT({fee},"#,##0.00"),"")'
        for fee, label in rows
    )
    kinds = "&".join(
        f'IF({yes[name]},"; {label} = Yes","")'
        for name, label, *_ in (KINDS[k] for k in NOT_DUE_FROM)
    )
    entered = "OR(" + ",".join(f"AND(ISNUMBER({fee}),N({fee})<>0)" for fee, _ in rows) + ")"
    detail = (
        f"IF(AND(OR({','.join(yes.values())}),{entered}),"
        f'"{INPUT}, "&MID({fees},3,4000)&": {NOT_DUE_RULE} ({CITE})"&{kinds}&".","")'
    )
    return Check.detailed(
        f"A Corporate Transit Fee is entered only for a taxpayer it is due from ({NOT_DUE_RULE})",
        "Corporate Transit Fee entered for a taxpayer it is not due from",
        detail,
        CITE,
    )
