"""The form-line model: an edition of a tax form (its date and source), a line of it,
and the labels generated from them (the editions and lines themselves are data of the
programs: :mod:`nj_incentives.programs.forms`).

Line numbers change between editions (shared/legal-notes.md section 5: "label them with
the form year"), so a label always names the form and its edition. A line the sources
give is labelled with its number; a line they do not give is named by its part with
"line to be confirmed", never a guessed number; a number the sources give without
saying which edition it is from is labelled "(to be confirmed)" for the edition named
(docs/interpretations.md, "Form lines and their editions", generated from this module).

Like :mod:`nj_incentives.core.parameters`, this module is the standard library only, no
I/O. The templates, the memo and the docs read the labels through it:

- :meth:`Line.label`: ``"Form 324 (edition to be confirmed) Part III, line 4: tax
  liability (CBT-100 / CBT-100S)"``; ``what=False`` leaves out what the line holds;
- :meth:`Line.where`: the part and line only, ``"Part III, line 4"`` (a column header
  under the form's name);
- :func:`markdown`: the table of every edition and line, for docs/interpretations.md.

How to add an edition: add an :class:`Edition` to :mod:`nj_incentives.programs.forms`
(the form, its year, the revision the form prints, the source), point the lines that
moved to it, and regenerate the docs (``python -m nj_incentives.support.law_currency``)
and the templates
(``python -m nj_incentives.workpapers.templates.build``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["TO_CONFIRM", "Edition", "Form", "Line", "markdown"]

TO_CONFIRM = "to be confirmed"


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


@dataclass(frozen=True)
class Form:
    """A form's editions as dated data: each edition with its lines, keyed by what they
    hold (``"liability"``), oldest first. The edition in force for a tax year is the
    latest whose ``year`` is not after it (an edition applies from its form year until
    the next edition found); a tax year before the first edition found reads the first,
    and its label says so. ``year`` None (the sources do not date the edition) applies
    to every tax year."""

    name: str
    editions: tuple[tuple[Edition, tuple[tuple[str, Line], ...]], ...]

    def edition(self, tax_year: int) -> Edition:
        """The edition in force for ``tax_year``."""
        found = self.editions[0][0]
        for edition, _ in self.editions:
            if edition.year is None or edition.year <= tax_year:
                found = edition
        return found

    def line(self, item: str, tax_year: int) -> Line:
        """Line ``item`` of the edition in force for ``tax_year`` (KeyError: the item is
        not on this form)."""
        edition = self.edition(tax_year)
        lines = dict(next(lines for e, lines in self.editions if e is edition))
        if item not in lines:
            raise KeyError(f"{self.name} has no line {item!r} (items: {', '.join(self.items())})")
        return lines[item]

    def items(self) -> tuple[str, ...]:
        """Every item on some edition, in the order first declared."""
        seen: dict[str, None] = {}
        for _, lines in self.editions:
            seen.update(dict.fromkeys(key for key, _ in lines))
        return tuple(seen)

    def before_first(self, tax_year: int) -> bool:
        """``tax_year`` is before the first dated edition found (the first is read)."""
        first = self.editions[0][0].year
        return first is not None and tax_year < first

    def lines(self) -> tuple[Line, ...]:
        """Every line of every edition, oldest edition first."""
        return tuple(line for _, lines in self.editions for _, line in lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(editions: Iterable[Edition], lines: Iterable[Line]) -> str:
    """``editions`` and the ``lines`` the templates label, as Markdown tables."""
    rows = [
        "| Form | Title | Edition | Source | Note |",
        "|---|---|---|---|---|",
    ]
    for e in editions:
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
    for line in lines:
        if line.number is None:
            number = f"not in the sources: {TO_CONFIRM}"
        elif line.confirmed:
            number = f"{line.number} (as the source gives it)"
        else:
            number = f"{line.number}: the source's number, its edition not stated: {TO_CONFIRM}"
        rows.append(f"| {_cell(line.label())} | {number} | {_cell(line.source)} |")
    return "\n".join(rows)
