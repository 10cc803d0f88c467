"""Which readings of docs/interpretations.md each NJ_* function applies, and their text.

Each program declares its functions' readings (``INTERPRETATIONS`` of
``programs/<key>/memo.py``); :data:`INTERPRETATIONS` is every registered program's."""

from __future__ import annotations

from nj_incentives.programs import PROGRAMS

#: NJ_* function -> the headings of docs/interpretations.md its result rests on (each
#: registered program's mapping, in the registry's order).
INTERPRETATIONS: dict[str, tuple[str, ...]] = {
    function: headings
    for found in PROGRAMS
    if found.has("memo")
    for function, headings in found.part("memo").INTERPRETATIONS.items()
}


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
