"""The dated-figure model: a figure of law, its values by effective date, and its sources.

The figures themselves are the programs': each ``programs/<key>/figures.py`` declares its
statute, acts and figures with :func:`declare_statute`, :func:`declare_act`,
:func:`declare_source` and :func:`declare_figure`, which register them here
(:data:`STATUTES`, :data:`ACTS`, :data:`SOURCES`, :data:`PARAMETERS`). The registry
:mod:`nj_incentives.programs` imports every program's figures as it loads, and the
package's ``__init__`` imports it (through :mod:`nj_incentives.version`), so the
registries are complete wherever the package is imported, although this module imports
no program. A program's figures module is the only place a figure of
law is written (a test,
``tests/core/test_parameters.py::test_no_statutory_literal_outside_parameters``, fails on one
anywhere else). This module depends on nothing but the standard library.

The data model
--------------
- :class:`Act`: an enacting act (or the base text), its date, its source. ``date`` is the
  day from which a ``law_as_of`` sees the act (its approval, or a documented reading where
  the approval date is not recorded, see ``note``). ``confirmed=False``: the figures come
  from the bill record and practitioners' summaries, "to be confirmed against the enacted
  text".
- :class:`Version`: one value of a figure, the act that enacted it, and the first date
  (by the figure's selector) it applies to (``applies_from=None``: every date). ``change``
  and ``modelled`` fill the "Amendments" table of docs/interpretations.md.
- :class:`Parameter`: a figure: its key, statute, title, citation, :class:`Selector` (the
  date of the calculation that selects a version: the agreement date, the approval date,
  the tax period, the month ...), ``kind`` (how it is shown and vectorized) and versions.
- :class:`Statute`: the acts modelled for a statute and what is known but not modelled.

Which version applies
---------------------
``param.at(date, as_of)``: the versions are read in order (sorted by ``applies_from``,
then by act date); the last one whose act is known on ``as_of`` (``as_of=None``: every
modelled act, the default "law in force for the period computed") and whose
``applies_from`` is on or before ``date`` wins. ``param.version(date, as_of)`` gives the
:class:`Version` itself (``.act.name`` names the law applied). The int64 evaluator
(``core.rules.Int64.law``) applies the same order with ``numpy.where`` per row, so the
exact and the vectorized paths pick the same value for every row.

In a rule (``core.rules``), with ``from nj_incentives.programs.beip import figures as
BEIP``: ``cap = r.law(BEIP.AVERAGE_CAP, agreement_date, as_of)``; and in a label,
``r.figure(BEIP.AVERAGE_CAP, cap)`` (the figure as text under the explaining evaluator, ""
elsewhere). Outside the rules: ``BEIP.AVERAGE_CAP.text(date)`` ("$50,000"),
``BEIP.AVERAGE_CAP.summary()`` (every version, for help texts and docs).

How to add a figure
-------------------
1. Find or add its :class:`Act` in the program's ``figures.py`` (``BASE_BEIP`` for the
   text in shared/statutes).
2. Add ``NAME = declare_figure("statute.name", "beip", "Title", "citation", Selector.X,
   "money", Version(Decimal(...), BASE_BEIP, change=..., modelled=...))`` to the
   program's ``figures.py`` (money and fractions as ``Decimal``, counts ``int``, dates
   ``dt.date``, exact ratios ``Fraction``).
3. In the rule, read it with ``r.law(NAME, <the selecting date>, as_of)``; in a text, with
   ``NAME.text(...)`` / ``NAME.summary()``. Never retype the figure.

How to add a dated version (an amendment)
-----------------------------------------
1. Add the act: ``P_L_2030_C_1 = declare_act("beip", "P.L.2030, c.1", dt.date(2030, 5,
   1), source="...", confirmed=...)`` (``declare_act`` appends it to the statute's modelled acts,
   which the law-currency texts, ``NJ_INCENTIVES_VERSION`` and the docs list).
2. Append ``Version(new_value, P_L_2030_C_1, applies_from=dt.date(2030, 7, 1),
   change="what changed", modelled="how the tool applies it")`` to the figure's versions.
   A figure the act replaces for every date: ``applies_from=None``; the older value stays
   for a ``law_as_of`` before the act's date.
3. Regenerate the docs (``python -m tests.tooling`` as for docs/functions.md); the
   amendment drill (``tests/core/test_parameters.py``) shows what must follow the figure.

Tests (temporarily) amend a figure with :func:`amended`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from typing import Any, Generic, TypeVar

__all__ = [
    "ACTS",
    "MONTH_NAMES",
    "PARAMETERS",
    "SOURCES",
    "STATUTES",
    "Act",
    "Parameter",
    "Selector",
    "Statute",
    "Version",
    "act_order",
    "amended",
    "amendments_table",
    "applied",
    "declare_act",
    "declare_figure",
    "declare_source",
    "declare_statute",
    "figures_table",
    "first_modelled",
    "law_as_of_text",
    "law_currency_markdown",
    "law_current_to",
    "law_not_modelled",
    "month_year",
    "show",
    "statute_currency",
    "versions_text",
]

T = TypeVar("T")


class Selector(StrEnum):
    """The date of the calculation that selects a figure's version."""

    AGREEMENT_DATE = "agreement date"
    APPROVAL_DATE = "approval date"
    TAX_PERIOD = "tax period"  # the tax (privilege) period's beginning
    MONTH = "month"  # the month of a payroll roster
    ELECTION_DATE = "election date"
    DIRECTION_DATE = "direction date"
    CREDIT_YEAR = "credit year"  # the first day of credit year one
    ACCRUAL_YEAR = "accrual year"
    FIXED = "none"  # one value for every date (changed only by a later act)


@dataclass(frozen=True)
class Act:
    """An act (or the base text) that enacted figures of a statute."""

    statute: str
    name: str
    #: the day from which ``law_as_of`` sees it (approval, or a reading: ``note``)
    date: dt.date
    source: str
    #: False: figures from the bill record and summaries, to be confirmed against the text
    confirmed: bool = True
    note: str = ""

    def label(self) -> str:
        """``"P.L.2024, c.40 (2024-07-10)"``."""
        return f"{self.name} ({self.date.isoformat()})"


@dataclass(frozen=True)
class Version(Generic[T]):
    """One value of a figure, its act, and the first date (by the selector) it applies to."""

    value: T
    act: Act
    applies_from: dt.date | None = None
    change: str = ""
    modelled: str = ""


@dataclass(frozen=True)
class Statute:
    """A statute: the acts modelled (in order) and what is known but not modelled."""

    key: str
    title: str
    citation: str
    acts: list[Act] = field(default_factory=list)
    not_modelled: tuple[str, ...] = ()


def _sorted(versions: tuple[Version[T], ...]) -> tuple[Version[T], ...]:
    return tuple(sorted(versions, key=lambda v: (v.applies_from or dt.date.min, v.act.date)))


class Parameter(Generic[T]):
    """A figure of law with its dated versions (see the module docstring)."""

    __slots__ = (
        "_single",
        "citation",
        "key",
        "kind",
        "quote",
        "selector",
        "statute",
        "title",
        "versions",
    )

    def __init__(
        self,
        key: str,
        statute: str,
        title: str,
        citation: str,
        selector: Selector,
        kind: str,
        versions: tuple[Version[T], ...],
        quote: str = "",
    ) -> None:
        self.key = key
        self.statute = statute
        self.title = title
        self.citation = citation
        self.selector = selector
        #: "money", "fraction", "count", "hours", "days", "date", "year", "table",
        #: "number" (a multiple), "month_day" (a (month, day) that recurs each year),
        #: "kinds" (kinds of taxpayer, a tuple of texts)
        self.kind = kind
        self.quote = quote
        self._set(versions)

    def _set(self, versions: tuple[Version[T], ...]) -> None:
        if not versions:
            raise ValueError(f"{self.key}: a figure needs at least one version")
        self.versions: tuple[Version[T], ...] = _sorted(versions)
        #: the value where there is one version (the lookup's fast path), else None
        self._single: tuple[T] | None = (versions[0].value,) if len(versions) == 1 else None

    def __repr__(self) -> str:
        return f"Parameter({self.key!r})"

    # ------------------------------------------------------------------ lookup
    def version(self, date: dt.date | None = None, as_of: dt.date | None = None) -> Version[T]:
        """The version that applies at ``date`` under the law as of ``as_of``.

        ``date`` None: the latest version known on ``as_of``. A ``date`` before every
        version's ``applies_from`` (or an ``as_of`` before every act) gets the first.
        """
        versions = self.versions
        chosen = versions[0]
        for v in versions[1:]:
            if as_of is not None and as_of < v.act.date:
                continue
            if date is not None and v.applies_from is not None and date < v.applies_from:
                continue
            chosen = v
        return chosen

    def at(self, date: dt.date | None = None, as_of: dt.date | None = None) -> T:
        """The value at ``date`` under the law as of ``as_of`` (see :meth:`version`)."""
        single = self._single
        if single is not None:
            return single[0]
        return self.version(date, as_of).value

    @property
    def base(self) -> T:
        """The first version's value (the text in shared/statutes)."""
        return self.versions[0].value

    @property
    def single(self) -> T:
        """The value of a figure that has one version, for code that reads it without a
        date (an input bound, a constant of the rule's structure). Raises once the figure
        has a second version: that code must then read it at the calculation's date
        (:meth:`at`), and the error names the figure, so no amendment is applied halfway."""
        single = self._single
        if single is None:
            raise TypeError(
                f"{self.key} has {len(self.versions)} versions: read it at a date"
                " (Parameter.at, Rules.law), not as a single value"
            )
        return single[0]

    @property
    def dated(self) -> bool:
        """Whether the figure has more than one version."""
        return self._single is None

    # ------------------------------------------------------------------ text
    def show(self, value: Any) -> str:
        """A value of this figure as an accountant reads it ("$50,000", "50%", "140 hours")."""
        return show(value, self.kind)

    def text(self, date: dt.date | None = None, as_of: dt.date | None = None) -> str:
        """The value at ``date`` as text."""
        return self.show(self.at(date, as_of))

    def brief(self) -> str:
        """Every version without its acts, for texts with a length limit (Excel's 255
        characters of a function's description): ``"$50,000; $60,000 from 2025-01-01"``."""
        parts = [self.show(self.versions[0].value)]
        for v in self.versions[1:]:
            when = f" from {v.applies_from.isoformat()}" if v.applies_from is not None else ""
            parts.append(f"{self.show(v.value)}{when} (law as of {v.act.date.isoformat()})")
        return "; ".join(parts)

    def summary(self) -> str:
        """Every version: ``"$50,000"``, or ``"$50,000; $60,000 for agreement dates from
        2025-01-01 (P.L.2024, c.99)"``."""
        parts = [self.show(self.versions[0].value)]
        for v in self.versions[1:]:
            when = (
                f" for {self.selector.value}s from {v.applies_from.isoformat()}"
                if v.applies_from is not None
                else ""
            )
            parts.append(f"{self.show(v.value)}{when} ({v.act.label()})")
        return "; ".join(parts)


#: The months as a date in a label names them: English whatever the locale (``%B`` would
#: follow LC_TIME) and without a ``strftime`` call (several microseconds a label).
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def month_year(day: dt.date) -> str:
    """The month of ``day`` and its year, ``"July 2027"``: what ``f"{day:%B %Y}"`` gives in
    an English locale, whatever LC_TIME is (every month name in the law's texts is this one
    table)."""
    return f"{MONTH_NAMES[day.month - 1]} {day.year}"


def show(value: Any, kind: str) -> str:
    """A figure as text by its kind (whole dollars without cents, percentages, dates)."""
    if kind == "money":
        amount = Decimal(value)
        return f"${amount:,.0f}" if amount == amount.to_integral_value() else f"${amount:,.2f}"
    if kind == "fraction":
        fraction = Fraction(value)
        return (
            f"{(Decimal(fraction.numerator) / Decimal(fraction.denominator) * 100).normalize():f}%"
        )
    if kind == "date":
        day: dt.date = value
        return f"{MONTH_NAMES[day.month - 1]} {day.day}, {day.year}"
    if kind == "hours":
        if isinstance(value, Fraction) and value.denominator != 1:
            whole, rest = divmod(value, 1)
            return f"{int(whole)} {rest.numerator}/{rest.denominator} hours"
        return f"{value} hours"
    if kind == "days":
        return f"{value} days"
    if kind == "month_day":
        month, day_of_month = value
        return f"{MONTH_NAMES[month - 1]} {day_of_month}"
    if kind == "kinds":  # kinds of taxpayer: "S corporation, public utility"
        return ", ".join(value)
    if kind in ("count", "year"):
        return f"{value:,}" if kind == "count" else str(value)
    return str(value)


# =========================================================================== law currency


def _versions_of(statute: str) -> dict[Act, list[tuple[Parameter[Any], Version[Any]]]]:
    """Each act of ``statute`` -> the (figure, version) it enacted."""
    found: dict[Act, list[tuple[Parameter[Any], Version[Any]]]] = {
        act: [] for act in STATUTES[statute].acts
    }
    for param in PARAMETERS.values():
        if param.statute == statute:
            for version in param.versions:
                if version.act in found:  # a form's instructions are not an amendment
                    found[version.act].append((param, version))
    return found


def statute_currency(statute: str, not_modelled: bool = False) -> str:
    """``"N.J.S.A. 34:1B-129: P.L.2022, c.134 (2022-07-01)"``; with ``not_modelled``, what
    is known but not modelled follows."""
    record = STATUTES[statute]
    acts = ", ".join(act.label() for act in sorted(record.acts, key=lambda a: a.date))
    text = f"{record.citation}: {acts}"
    if not_modelled and record.not_modelled:
        text += f" (known, not modelled: {'; '.join(record.not_modelled)})"
    return text


def law_current_to() -> str:
    """The versions modelled, per statute (act, the date from which it is modelled): the
    one text of the run stamps, workbook properties, ``NJ_INCENTIVES_VERSION``, the CLIs."""
    return "; ".join(statute_currency(key) for key in STATUTES)


def law_not_modelled() -> str:
    """What is known but not modelled, per statute (one text: the memo)."""
    return "; ".join(
        f"{record.citation}: {'; '.join(record.not_modelled)}"
        for record in STATUTES.values()
        if record.not_modelled
    )


def law_currency_markdown() -> str:
    """Per statute, the versions modelled and what is known but not modelled (Markdown
    bullets): the README, docs/interpretations.md and the memo."""
    lines = []
    for record in STATUTES.values():
        acts = ", ".join(act.label() for act in sorted(record.acts, key=lambda a: a.date))
        lines.append(f"- {record.citation} ({record.title}): versions modelled {acts}.")
        if record.not_modelled:
            lines.append(f"  Known, not modelled: {'; '.join(record.not_modelled)}.")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def amendments_table(statute: str) -> str:
    """The Markdown "Amendments" table of ``statute``: date, act, what changed, how it is
    modelled, source (one row per act modelled)."""
    lines = [
        "| Date | Act | What changed | How it is modelled | Source |",
        "|---|---|---|---|---|",
    ]
    for act, changes in sorted(_versions_of(statute).items(), key=lambda item: item[0].date):
        first = act is min(STATUTES[statute].acts, key=lambda a: a.date)
        if first:
            what = f"the text modelled: {len(changes)} figures"
            how = "every figure's first version" + (f" ({act.note})" if act.note else "")
        else:
            what = (
                "; ".join(f"{p.title}: {v.change or p.show(v.value)}" for p, v in changes)
                or "no figure"
            )
            how = (
                "; ".join(
                    f"{p.title}: {v.modelled or 'from ' + str(v.applies_from or 'every date')}"
                    for p, v in changes
                )
                or "-"
            )
        source = act.source + (
            "" if act.confirmed else " (to be confirmed against the enacted text)"
        )
        lines.append(
            f"| {act.date.isoformat()} | {_cell(act.name)} | {_cell(what)} | {_cell(how)}"
            f" | {_cell(source)} |"
        )
    return "\n".join(lines)


def figures_table(statute: str) -> str:
    """Every figure of ``statute`` with its versions, the date that selects one and its
    citation (Markdown)."""
    lines = ["| Figure | Value | Selected by | Citation |", "|---|---|---|---|"]
    for param in PARAMETERS.values():
        if param.statute == statute:
            value = param.summary() if param.kind != "table" else "(table)"
            lines.append(
                f"| {_cell(param.title)} | {_cell(value)} | {param.selector.value}"
                f" | {_cell(param.citation)} |"
            )
    return "\n".join(lines)


# =========================================================================== registries

# Filled by the programs' figures modules as they are imported (the module docstring).

#: Every statute modelled, by key ("beip", "ertc", "cbt").
STATUTES: dict[str, Statute] = {}
#: Every act modelled, in the order defined.
ACTS: list[Act] = []
#: Sources of figures that are not acts (forms' instructions): not versions of a statute.
SOURCES: list[Act] = []
#: Every figure, by key.
PARAMETERS: dict[str, Parameter[Any]] = {}


def declare_statute(
    key: str, title: str, citation: str, not_modelled: tuple[str, ...] = ()
) -> Statute:
    statute = Statute(key, title, citation, [], not_modelled)
    STATUTES[key] = statute
    return statute


def declare_act(
    statute: str,
    name: str,
    date: dt.date,
    source: str,
    confirmed: bool = True,
    note: str = "",
) -> Act:
    act = Act(statute, name, date, source, confirmed, note)
    STATUTES[statute].acts.append(act)
    ACTS.append(act)
    return act


def declare_source(statute: str, name: str, date: dt.date, source: str, note: str = "") -> Act:
    """A source of a figure that is not an act of the statute (a form's instructions)."""
    act = Act(statute, name, date, source, True, note)
    SOURCES.append(act)
    return act


def declare_figure(
    key: str,
    statute: str,
    title: str,
    citation: str,
    selector: Selector,
    kind: str,
    *versions: Version[T],
    quote: str = "",
) -> Parameter[T]:
    if key in PARAMETERS:
        raise ValueError(f"figure {key!r} defined twice")
    param = Parameter(key, statute, title, citation, selector, kind, versions, quote)
    PARAMETERS[key] = param
    return param


def first_modelled(statute: str) -> Act:
    """The earliest act modelled for ``statute`` (a ``law_as_of`` before it is refused)."""
    return min(STATUTES[statute].acts, key=lambda act: act.date)


def versions_text(statute: str) -> str:
    """The versions modelled, for messages: ``"P.L.2022, c.134 (2022-07-01); ..."``."""
    return "; ".join(act.label() for act in sorted(STATUTES[statute].acts, key=lambda a: a.date))


def act_order(statute: str) -> tuple[Act, ...]:
    """The acts modelled for ``statute`` by date (acts of one day in the order defined):
    the order :func:`applied` ranks them in. A result column that names the version
    applied holds each act as its position here (its code: ``law.rules``'s ``applied``
    under the int64 evaluator; the scenario runner's ``grant_version``)."""
    return tuple(sorted(STATUTES[statute].acts, key=lambda act: act.date))


def applied(
    statute: str,
    reads: Iterable[tuple[Parameter[Any], dt.date | None]],
    as_of: dt.date | None = None,
) -> Act:
    """The act whose version of ``statute`` a result applied: the latest (by its date;
    of one day, the later in :func:`act_order`) of the acts that enacted the versions the
    result's figures took (each ``(figure, the date that selects its version)``) under
    the law as of ``as_of``, or the statute's first version modelled where no figure read
    was amended. Its ``name`` is what a result reports as its ``version``."""
    order = act_order(statute)
    acts = [first_modelled(statute), *(param.version(day, as_of).act for param, day in reads)]
    return max(acts, key=lambda act: (act.date, order.index(act) if act in order else -1))


def law_as_of_text(as_of: dt.date | None) -> str:
    """Which law a run applied, per statute: ``as_of`` None, every version modelled
    (:func:`law_current_to`); a date, the acts known on it (a statute whose first modelled
    version is later: none). The run stamps and the explanation output say it."""
    if as_of is None:
        return f"every version modelled, by each period's own date ({law_current_to()})"
    parts = []
    for record in STATUTES.values():
        known = sorted((a for a in record.acts if a.date <= as_of), key=lambda a: a.date)
        if known:
            parts.append(f"{record.citation}: {', '.join(act.label() for act in known)}")
        else:
            first = first_modelled(record.key)
            parts.append(f"{record.citation}: none (its first version modelled is {first.label()})")
    return f"the law as of {as_of.isoformat()} ({'; '.join(parts)})"


@contextmanager
def amended(param: Parameter[T], *versions: Version[T]) -> Iterator[Parameter[T]]:
    """``param`` with ``versions`` added for the duration (tests, what-if runs); their acts
    are added to the statute's modelled acts for as long."""
    before = param.versions
    statute = STATUTES[param.statute]
    acts_before = list(statute.acts)
    param._set((*before, *versions))
    for v in versions:
        if v.act not in statute.acts:
            statute.acts.append(v.act)
    try:
        yield param
    finally:
        param._set(before)
        statute.acts[:] = acts_before
