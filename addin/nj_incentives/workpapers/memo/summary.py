"""What the memo's first page states beside the figures: the law versions modelled (from
:mod:`nj_incentives.core.parameters`), the switches each workbook sets (the table "Switches:
every reading a user can change" of docs/interpretations.md, as shipped) and the sign-off
block."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nj_incentives.core import parameters as P
from nj_incentives.workpapers.memo.sheets import display, input_sheets, number_formats
from nj_incentives.workpapers.recalc.engine import Recalculation, split_reference

#: The heading of docs/interpretations.md's table of switches.
SWITCHES_HEADING = "## Switches: every reading a user can change"


@dataclass(frozen=True)
class Switch:
    """One row of the switches table: the argument, the template inputs that set it, the
    default, and the section of docs/interpretations.md that states the reading."""

    argument: str
    names: tuple[str, ...]
    default: str
    section: str


def _plain(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def _camel(argument: str) -> str:
    """``refund_period_limit`` -> ``RefundPeriodLimit`` (the templates' names)."""
    return "".join(part[:1].upper() + part[1:] for part in argument.split("_"))


def switches(text: str) -> list[Switch]:
    """The switches table of docs/interpretations.md (``text``): each row's argument, the
    template input names it lists (``template `Name```) and its argument in CamelCase
    (the templates name an input after the argument it sets), the default and the
    section."""
    found: list[Switch] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = line.strip() == SWITCHES_HEADING
            continue
        if not inside or not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5:
            continue
        argument = cells[0].strip("`")
        names = tuple(re.findall(r"template `([A-Za-z]\w*)`", cells[1]))
        names = tuple(dict.fromkeys((*names, _camel(argument))))
        found.append(Switch(argument, names, _plain(cells[2]), _plain(cells[4])))
    return found


def _label(recalc: Recalculation, sheet: str, cell: str) -> str:
    from nj_incentives.core.cells import cell_index

    row, _col = cell_index(cell)
    value = recalc.values.get((sheet, f"A{row}"))
    return str(value).strip() if isinstance(value, str) else ""


def switches_set(
    recalc: Recalculation, table: Sequence[Switch], names: Mapping[str, str]
) -> list[tuple[str, str, str]]:
    """(input label, value and whether it is the default, section) of each switch the
    workbook has an input for (a defined name on one of its input sheets), in the table's order."""
    sheets = set(input_sheets(recalc))
    formats: dict[tuple[str, str], str] | None = None
    rows: list[tuple[str, str, str]] = []
    for switch in table:
        for name in switch.names:
            target = names.get(name.upper(), "").lstrip("=")
            try:
                sheet, cell = split_reference(target, recalc.sheets)
            except ValueError:
                continue
            cell = cell.replace("$", "").upper()
            if sheet not in sheets or ":" in cell:
                continue
            if formats is None:
                formats = number_formats(recalc)
            value = display(recalc.values.get((sheet, cell)), formats.get((sheet, cell), "General"))
            value = value.strip()
            label = _label(recalc, sheet, cell) or name
            rows.append((label, _set_to(value, switch.default), switch.section))
            break
    return rows


def default_value(default: str) -> str:
    """A switch's default as the table states it, without its gloss: ``"form": a period
    ...`` -> ``form``; ``blank: no limit`` -> ``blank``; ``12 (calendar-year filer)`` -> ``12``."""
    quoted = re.match(r'^"([^"]*)"', default)
    if quoted:
        return quoted.group(1)
    if default.startswith("as "):
        return re.split(r"[:(]", default, maxsplit=1)[0].strip()
    return re.split(r"[:(]| as | - ", default, maxsplit=1)[0].strip()


def _set_to(value: str, default: str) -> str:
    """The value a workbook sets, and whether it is the default."""
    plain = default_value(default)
    same = {"yes": "true", "no": "false"}
    shown = same.get(value.lower(), value.lower())
    try:
        equal = float(value.replace(",", "")) == float(plain)
    except ValueError:
        equal = shown == plain.lower()
    if (not value and plain == "blank") or equal:
        return f"{value or '(blank)'} (default)"
    return f"{value} (default: {plain})"


def law_rows() -> list[tuple[str, str]]:
    """(statute, the versions modelled: act and the date it is modelled from) per statute."""
    rows = []
    for record in P.STATUTES.values():
        acts = ", ".join(act.label() for act in sorted(record.acts, key=lambda a: a.date))
        rows.append((f"{record.citation} ({record.title})", acts))
    return rows


def signoff_status(signoffs: Sequence[Any]) -> str:
    """The Status cell of the sign-off block, from :func:`nj_incentives.workpapers.signoff.status`:
    for the preparer and the reviewer, "current", "inputs changed since", "formulas
    differ from the template", "no hash stored" or "not signed" ("both: ..." when they
    agree: page 1 has little room); "as entered (not tracked)" for a workbook built
    before the sign-off block."""
    if not signoffs:
        return "as entered (not tracked)"
    who = {"prepared": "preparer", "reviewed": "reviewer"}
    parts = []
    for one in signoffs:
        if not one.signed:
            said = "not signed"
        elif getattr(one, "formulas_count", 0):
            said = "formulas differ from the template"
        elif one.stale is None:
            said = "no hash stored" if not one.stored else "hash not computed"
        else:
            said = "inputs changed since" if one.stale else "current"
        parts.append((who.get(one.role, one.role), said))
    if len({said for _, said in parts}) == 1:
        return f"both: {parts[0][1]}" if len(parts) > 1 else f"{parts[0][0]}: {parts[0][1]}"
    return "; ".join(f"{role}: {said}" for role, said in parts)


def signoff_rows(
    engagements: Sequence[Mapping[str, str]],
    files: Sequence[str],
    statuses: Sequence[Sequence[Any]] | None = None,
) -> list[tuple[str, ...]]:
    """The sign-off block: per workbook (or once when all agree) the preparer, the
    reviewer and the date as the engagement fields give them, and the sign-offs' status
    (``statuses``: each workbook's :func:`nj_incentives.workpapers.signoff.status`), which says when
    the inputs changed after a sign-off."""
    rows: list[tuple[str, ...]] = []
    texts = [signoff_status(s) for s in (statuses or [()] * len(engagements))]
    distinct = {
        (*(e.get(k, "") for k in ("Preparer", "Reviewer", "Date")), text)
        for e, text in zip(engagements, texts, strict=True)
    }
    if len(distinct) <= 1:
        shown: Sequence[tuple[str, Mapping[str, str], str]] = (
            [("All workbooks", engagements[0], texts[0])] if engagements else []
        )
    else:
        shown = list(zip(files, engagements, texts, strict=True))
    for name, fields, text in shown:
        rows.append(
            (
                name,
                fields.get("Preparer", "") or "(blank)",
                fields.get("Reviewer", "") or "(blank)",
                fields.get("Date", "") or "(blank)",
                text,
            )
        )
    return rows
