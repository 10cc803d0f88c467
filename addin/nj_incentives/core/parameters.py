"""Every statutory figure and date, once: its values by effective date, and its sources.

This module is the only place a figure of law is written (a test,
``tests/core/test_parameters.py::test_no_statutory_literal_outside_parameters``, fails on one
anywhere else). It depends on nothing but the standard library, so every other module
(the rules, the catalog, the templates, the memo, the docs) can read it.

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
(``law.rules.Int64.law``) applies the same order with ``numpy.where`` per row, so the
exact and the vectorized paths pick the same value for every row.

In a rule (``law.rules``): ``cap = r.law(P.AVERAGE_CAP, agreement_date, as_of)``; and in
a label, ``r.figure(P.AVERAGE_CAP, cap)`` (the figure as text under the explaining
evaluator, "" elsewhere). Outside the rules: ``P.AVERAGE_CAP.text(date)`` ("$50,000"),
``P.AVERAGE_CAP.summary()`` (every version, for help texts and docs).

How to add a figure
-------------------
1. Find or add its :class:`Act` below (``BASE_BEIP`` for the text in shared/statutes).
2. Add ``NAME = _figure("statute.name", "beip", "Title", "citation", Selector.X,
   "money", Version(Decimal(...), BASE_BEIP, change=..., modelled=...))`` in the
   statute's section (money and fractions as ``Decimal``, counts ``int``, dates
   ``dt.date``, exact ratios ``Fraction``).
3. In the rule, read it with ``r.law(NAME, <the selecting date>, as_of)``; in a text, with
   ``NAME.text(...)`` / ``NAME.summary()``. Never retype the figure.

How to add a dated version (an amendment)
-----------------------------------------
1. Add the act: ``P_L_2030_C_1 = _act("beip", "P.L.2030, c.1", dt.date(2030, 5, 1),
   source="...", confirmed=...)`` (``_act`` appends it to the statute's modelled acts,
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
    "PARAMETERS",
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
    "figures_table",
    "first_modelled",
    "law_as_of_text",
    "law_currency_markdown",
    "law_current_to",
    "law_not_modelled",
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
        #: "money", "fraction", "count", "hours", "days", "date", "year", "table"
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

#: Every statute modelled, by key ("beip", "ertc", "cbt").
STATUTES: dict[str, Statute] = {}
#: Every act modelled, in the order defined.
ACTS: list[Act] = []
#: Sources of figures that are not acts (forms' instructions): not versions of a statute.
SOURCES: list[Act] = []
#: Every figure, by key.
PARAMETERS: dict[str, Parameter[Any]] = {}


def _statute(key: str, title: str, citation: str, not_modelled: tuple[str, ...] = ()) -> Statute:
    statute = Statute(key, title, citation, [], not_modelled)
    STATUTES[key] = statute
    return statute


def _act(
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


def _source(statute: str, name: str, date: dt.date, source: str, note: str = "") -> Act:
    """A source of a figure that is not an act of the statute (a form's instructions)."""
    act = Act(statute, name, date, source, True, note)
    SOURCES.append(act)
    return act


def _figure(
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


# =========================================================================== BEIP
# N.J.S.A. 34:1B-129 (P.L.1996, c.26, s.6), with 34:1B-134 and N.J.A.C. 19:31I.

_statute(
    "beip",
    "Business Employment Incentive Program grant",
    "N.J.S.A. 34:1B-129",
    not_modelled=(
        "N.J.S.A. 34:1B-133 (section 10): text not found",
        "BEIP closed to new applications under P.L.2013, c.161 (approved September 18,"
        " 2013): only agreements made before then exist",
    ),
)

#: The text in shared/statutes: the section as amended through P.L.2022, c.134.
BASE_BEIP = _act(
    "beip",
    "P.L.2022, c.134",
    dt.date(2022, 7, 1),
    source="shared/statutes/NJSA-34-1B-129-BEIP-grant.txt (as amended through P.L.2022, c.134)",
    note=(
        "the text in shared/statutes; the approval date of P.L.2022, c.134 is not in the"
        " notes: modelled from July 1, 2022, the first day its subsection h. covers"
    ),
)

_B = "N.J.S.A. 34:1B-129"

MINIMUM_GRANT_PCT: Parameter[Decimal] = _figure(
    "beip.minimum_grant_pct",
    "beip",
    "Lowest grant percentage (either basis)",
    f"{_B}a.",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.10"), BASE_BEIP),
    quote="not less than 10 percent",
)
MAXIMUM_PCT_OF_WITHHOLDINGS: Parameter[Decimal] = _figure(
    "beip.maximum_pct_of_withholdings",
    "beip",
    "Highest grant percentage of withholdings",
    f"{_B}a.",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.50"), BASE_BEIP),
    quote="not more than 50 percent of the withholdings",
)
MAXIMUM_PCT_OF_PARTNERS_TAX: Parameter[Decimal] = _figure(
    "beip.maximum_pct_of_partners_tax",
    "beip",
    "Highest grant percentage of the partners' estimated tax",
    f"{_B}a.",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.30"), BASE_BEIP),
    quote="not more than 30 percent of the estimated tax of the partners",
)
SMART_GROWTH_MAXIMUM_PCT_OF_WITHHOLDINGS: Parameter[Decimal] = _figure(
    "beip.smart_growth_maximum_pct_of_withholdings",
    "beip",
    "Highest grant percentage of withholdings with smart growth",
    f"{_B}b.",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.80"), BASE_BEIP),
    quote="up to 80 percent of the withholdings",
)
SMART_GROWTH_MAXIMUM_PCT_OF_PARTNERS_TAX: Parameter[Decimal] = _figure(
    "beip.smart_growth_maximum_pct_of_partners_tax",
    "beip",
    "Highest grant percentage of the partners' estimated tax with smart growth",
    f"{_B}b.",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.50"), BASE_BEIP),
    quote="up to 50 percent of the estimated tax of the partners",
)
MAXIMUM_TERM_YEARS: Parameter[int] = _figure(
    "beip.maximum_term_years",
    "beip",
    "Longest term of a grant (years)",
    f"{_B}c.",
    Selector.AGREEMENT_DATE,
    "count",
    Version(10, BASE_BEIP),
    quote="The term of the grant shall not exceed 10 years.",
)
AVERAGE_CAP: Parameter[Decimal] = _figure(
    "beip.average_cap",
    "beip",
    "Average cap per new employee over the term",
    f"{_B}a.; N.J.A.C. 19:31I-1.4(a)",
    Selector.AGREEMENT_DATE,
    "money",
    Version(Decimal(50000), BASE_BEIP),
    quote="exceed an average of $50,000 for all new employees over the term of the grant",
)
CAP_AGREEMENTS_FROM: Parameter[dt.date] = _figure(
    "beip.cap_agreements_from",
    "beip",
    "The average cap binds agreements entered into from",
    f"{_B}a.",
    Selector.FIXED,
    "date",
    Version(dt.date(2003, 7, 1), BASE_BEIP),
    quote="agreement entered into on or after July 1, 2003",
)
COMBINED_LIMIT_PCT_OF_WITHHOLDINGS: Parameter[Decimal] = _figure(
    "beip.combined_limit_pct_of_withholdings",
    "beip",
    "Combined State grants limit, share of withholdings",
    "N.J.S.A. 34:1B-134(b)",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.50"), BASE_BEIP),
)
COMBINED_LIMIT_PCT_OF_PARTNERS_TAX: Parameter[Decimal] = _figure(
    "beip.combined_limit_pct_of_partners_tax",
    "beip",
    "Combined State grants limit, share of the partners' estimated tax",
    "N.J.S.A. 34:1B-134(b)",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.30"), BASE_BEIP),
)
SMART_GROWTH_COMBINED_LIMIT_PCT_OF_WITHHOLDINGS: Parameter[Decimal] = _figure(
    "beip.smart_growth_combined_limit_pct_of_withholdings",
    "beip",
    "Combined State grants limit with smart growth, share of withholdings",
    "N.J.S.A. 34:1B-134(c)",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.80"), BASE_BEIP),
)
SMART_GROWTH_COMBINED_LIMIT_PCT_OF_PARTNERS_TAX: Parameter[Decimal] = _figure(
    "beip.smart_growth_combined_limit_pct_of_partners_tax",
    "beip",
    "Combined State grants limit with smart growth, share of the partners' estimated tax",
    "N.J.S.A. 34:1B-134(c)",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.50"), BASE_BEIP),
)

# e. (P.L.2015, c.194, as re-timed by P.L.2016, c.9): conversion to tax credits.
#: (paragraph, first accrual year, last accrual year, first tax year, shares or the
#: number of equal installments).
CONVERSION_TABLE: Parameter[tuple[tuple[int, int, int, int, tuple[Decimal, ...] | int], ...]] = (
    _figure(
        "beip.conversion_table",
        "beip",
        "Conversion installments by accrual year (paragraph, accrual years, first tax year,"
        " shares)",
        f"{_B}e.(1)-(13)",
        Selector.ACCRUAL_YEAR,
        "table",
        Version(
            (
                (
                    1,
                    2008,
                    2013,
                    2017,
                    tuple(Decimal(s) for s in ("0.05", "0.20", "0.25", "0.25", "0.25")),
                ),
                (2, 2014, 2014, 2019, 4),
                (3, 2015, 2015, 2019, 4),
                (4, 2016, 2016, 2020, 3),
                (5, 2017, 2017, 2020, 3),
                (6, 2018, 2018, 2022, 2),
                (7, 2019, 2019, 2022, 2),
                (8, 2020, 2020, 2023, 2),
                (9, 2021, 2021, 2023, 2),
                (10, 2022, 2022, 2023, 2),
                (11, 2023, 2023, 2023, 2),
                (12, 2024, 2024, 2025, 1),
                (13, 2025, 2025, 2025, 1),
            ),
            BASE_BEIP,
        ),
    )
)
STATE_FISCAL_YEAR_2017_START: Parameter[dt.date] = _figure(
    "beip.state_fiscal_year_2017_start",
    "beip",
    "Commencement of State fiscal year 2017 (late approval, e.(1))",
    f"{_B}e.(1)",
    Selector.FIXED,
    "date",
    Version(dt.date(2016, 7, 1), BASE_BEIP),
    quote="approved by the authority by the commencement of State fiscal year 2017",
)
ENACTMENT_P_L_2015_C_194: Parameter[dt.date] = _figure(
    "beip.enactment_p_l_2015_c_194",
    "beip",
    "Enactment of P.L.2015, c.194",
    f"{_B}e.",
    Selector.FIXED,
    "date",
    # approved (enacted) January 11, 2016 (shared/legal-notes.md section 4; an earlier
    # version of the notes said November 9, 2015: that was wrong)
    Version(dt.date(2016, 1, 11), BASE_BEIP),
    quote="approved for a grant prior to the enactment of P.L.2015, c.194",
)
DIRECTION_DEADLINE_PUBLISHED: Parameter[dt.date] = _figure(
    "beip.direction_deadline_published",
    "beip",
    "Direction deadline the Authority published (day 180 fell on a Saturday)",
    f"{_B}e.; docs/interpretations.md",
    Selector.FIXED,
    "date",
    Version(dt.date(2016, 7, 11), BASE_BEIP),
)
DIRECTION_DAYS: Parameter[int] = _figure(
    "beip.direction_days",
    "beip",
    "Days after the enactment to direct the conversion",
    f"{_B}e.",
    Selector.FIXED,
    "days",
    Version(180, BASE_BEIP),
    quote="Within 180 days of the date of enactment of P.L.2015, c.194",
)

# g.(3): transfer certificates.
TRANSFER_MINIMUM: Parameter[Decimal] = _figure(
    "beip.transfer_minimum",
    "beip",
    "Smallest transfer of a tax credit",
    f"{_B}g.(3)",
    Selector.FIXED,
    "money",
    Version(Decimal(100000), BASE_BEIP),
    quote="in an amount not less than $100,000",
)
MINIMUM_CONSIDERATION_SHARE: Parameter[Decimal] = _figure(
    "beip.minimum_consideration_share",
    "beip",
    "Lowest consideration, share of the credit transferred",
    f"{_B}g.(3)",
    Selector.FIXED,
    "fraction",
    Version(Decimal("0.75"), BASE_BEIP),
    quote="not ... less than 75 percent of the transferred credit amount",
)

# h.: remote work, in three versions (shared/legal-notes.md section 5): P.L.2022, c.134
# (the text in shared/statutes), the January 2024 act and P.L.2024, c.40. The enacted text
# of the 2024 acts was not reachable: their figures come from the bill records and
# practitioners' summaries, which agree with each other (confirmed=False).
JANUARY_2024_ACT = _act(
    "beip",
    "January 2024 act (A-5840/S-4217)",
    dt.date(2024, 1, 12),
    source=(
        "A-5840/S-4217 of the 2022-2023 session, enrolled January 8, approved January 12,"
        ' 2024 (chapter number not found); NJBIA, January 2024: "only until April 1, 2024.'
        ' The requirement was previously set to expire at the end of 2023"'
    ),
    confirmed=False,
    note="whether the election deadline moved is not known: switch election_deadline",
)
P_L_2024_C_40 = _act(
    "beip",
    "P.L.2024, c.40",
    dt.date(2024, 7, 10),
    source=(
        "A-4046 of the 2024-2025 session, approved July 10, 2024; BillTrack50 bill record;"
        ' Deloitte "State Tax Matters", July 12, 2024'
    ),
    confirmed=False,
)
#: The first day of P.L.2024, c.40's rule: "for the tax period beginning on April 1, 2024
#: and every later tax period".
_C40_FROM = dt.date(2024, 4, 1)
REMOTE_WORK_C40_FROM: Parameter[dt.date] = _figure(
    "beip.remote_work_c40_from",
    "beip",
    "First day of the 40% on-site rule (outside an enhanced area or a"
    " government-restricted municipality) and of no waiver inside one",
    f"{_B}h. as amended by P.L.2024, c.40",
    Selector.FIXED,
    "date",
    Version(_C40_FROM, P_L_2024_C_40, change="new rule from April 1, 2024"),
    quote="for the tax period beginning on April 1, 2024 and every later tax period",
)
REMOTE_WORK_COMMITMENT_EXTENSION_MONTHS: Parameter[int] = _figure(
    "beip.remote_work_commitment_extension_months",
    "beip",
    "Extension of the commitment period for the waiver from April 1, 2024, months",
    f"{_B}h. as amended by P.L.2024, c.40",
    Selector.TAX_PERIOD,
    "count",
    Version(
        24,
        P_L_2024_C_40,
        change="the business extends its commitment period by two years",
        modelled="extended_commitment_end = commitment_end + 24 months (an output date)",
    ),
    quote="extends by two years the term of its commitment period",
)
REMOTE_WORK_ELECTION_BEFORE: Parameter[dt.date] = _figure(
    "beip.remote_work_election_before",
    "beip",
    "Remote-work election made before",
    f"{_B}h.",
    Selector.TAX_PERIOD,
    "date",
    Version(dt.date(2023, 12, 31), BASE_BEIP),
    quote="may elect, before December 31, 2023",
)
EMERGENCY_DECLARED: Parameter[dt.date] = _figure(
    "beip.emergency_declared",
    "beip",
    "Public health emergency of Executive Order No. 103 declared",
    "Executive Order No. 103 (2020)",
    Selector.FIXED,
    "date",
    Version(dt.date(2020, 3, 9), BASE_BEIP),
)
EMERGENCY_ENDED: Parameter[dt.date] = _figure(
    "beip.emergency_ended",
    "beip",
    "Public health emergency of Executive Order No. 103 ended",
    "Executive Order No. 244 (2021)",
    Selector.FIXED,
    "date",
    Version(dt.date(2021, 6, 4), BASE_BEIP),
)
REMOTE_WORK_WAIVER_START: Parameter[dt.date] = _figure(
    "beip.remote_work_waiver_start",
    "beip",
    "Remote-work waiver period begins",
    f"{_B}h.",
    Selector.TAX_PERIOD,
    "date",
    Version(dt.date(2022, 7, 1), BASE_BEIP),
    quote="for the period beginning on July 1, 2022",
)
REMOTE_WORK_WAIVER_END: Parameter[dt.date] = _figure(
    "beip.remote_work_waiver_end",
    "beip",
    "Remote-work waiver period ends",
    f"{_B}h.",
    Selector.TAX_PERIOD,
    "date",
    Version(dt.date(2023, 12, 31), BASE_BEIP),
    Version(
        dt.date(2024, 3, 31),
        JANUARY_2024_ACT,
        change="waiver through March 31, 2024 (was December 31, 2023)",
        modelled="the waiver period of an election under the January 2024 act",
    ),
    Version(
        dt.date(2024, 3, 31),
        P_L_2024_C_40,
        change="waiver July 1, 2022 through March 31, 2024 (restated)",
        modelled="unchanged from the January 2024 act",
    ),
    quote="and ending on December 31, 2023",
)
WAIVED_SHARE_AT_FACILITY: Parameter[Decimal] = _figure(
    "beip.waived_share_at_facility",
    "beip",
    "On-site share the waiver waives",
    f"{_B}h.",
    Selector.TAX_PERIOD,
    "fraction",
    Version(Decimal("0.60"), BASE_BEIP),
    quote="at least 60 percent of the employee's time",
)
MINIMUM_SHARE_AT_FACILITY: Parameter[Decimal] = _figure(
    "beip.minimum_share_at_facility",
    "beip",
    "On-site share required under the waiver",
    f"{_B}h.(1)",
    Selector.TAX_PERIOD,
    "fraction",
    Version(Decimal("0.10"), BASE_BEIP),
    Version(
        Decimal("0.40"),
        P_L_2024_C_40,
        applies_from=_C40_FROM,
        change="from the tax period beginning April 1, 2024, outside an enhanced area or a"
        " government-restricted municipality: at least 40% of the time at the facility",
        modelled="remote_work_check with period_start from 2024-04-01 (enhanced_area an"
        " input; inside one, no waiver)",
    ),
    quote="at least 10 percent of the employee's time at the qualified business facility",
)
REMOTE_WORK_PAYMENT_SHARE: Parameter[Decimal] = _figure(
    "beip.remote_work_payment_share",
    "beip",
    "Remote-work payment, share of the credit",
    f"{_B}h.(2)",
    Selector.TAX_PERIOD,
    "fraction",
    Version(Decimal("0.05"), BASE_BEIP),
    Version(
        Decimal("0.10"),
        P_L_2024_C_40,
        applies_from=_C40_FROM,
        change="a non-refundable payment of 10% of the maximum tax credit for each tax"
        " period from April 1, 2024",
        modelled="remote_work_payment with a period_end on or after 2024-04-01 (the"
        " conversion template: each tax year from 2024)",
    ),
    quote="five percent of the amount of tax credit",
)
REMOTE_WORK_TAX_YEAR: Parameter[int] = _figure(
    "beip.remote_work_tax_year",
    "beip",
    "Tax period of the remote-work payment",
    f"{_B}h.(2)",
    Selector.TAX_PERIOD,
    "year",
    Version(2022, BASE_BEIP),
    quote="for the 2022 tax period",
)

# =========================================================================== ERTC
# N.J.S.A. 52:27BBB-55 (P.L.2002, c.43, s.56); NJ Form 313.

_statute(
    "ertc",
    "Economic Recovery Tax Credit",
    "N.J.S.A. 52:27BBB-55",
    not_modelled=(
        "whether the credit is limited to the economic recovery term (uncertain,"
        " shared/legal-notes.md section 2)",
        "Form 313 editions 2022 and 2023 (line numbers not modelled)",
    ),
)
BASE_ERTC = _act(
    "ertc",
    "P.L.2003, c.194",
    dt.date(2003, 1, 1),
    source=(
        "shared/statutes/NJSA-52-27BBB-55-economic-recovery-credit.txt (P.L.2002, c.43, s.56,"
        " as amended through P.L.2003, c.194)"
    ),
    note=(
        "the text in shared/statutes; the approval date of P.L.2003, c.194 is not in the"
        " notes: modelled from January 1, 2003"
    ),
)
#: An instruction, not an act (not a version of the statute): the source of a switch's value.
FORM_313_2013 = _source(
    "ertc",
    "NJ Form 313 instructions (2013)",
    dt.date(2013, 1, 1),
    source="NJ Form 313 instructions (2013), shared/legal-notes.md section 2",
    note="the five-year carryforward offered as a switch, not the default",
)
_E = "N.J.S.A. 52:27BBB-55"

CREDIT_YEAR_ONE_AMOUNT: Parameter[Decimal] = _figure(
    "ertc.credit_year_one_amount",
    "ertc",
    "Credit per new full-time position, credit year one",
    f"{_E}a.",
    Selector.CREDIT_YEAR,
    "money",
    Version(Decimal(2500), BASE_ERTC),
    quote="$2,500 for each new full-time position at that location in credit year one",
)
CREDIT_YEAR_TWO_AMOUNT: Parameter[Decimal] = _figure(
    "ertc.credit_year_two_amount",
    "ertc",
    "Credit per new full-time position, credit year two",
    f"{_E}a.",
    Selector.CREDIT_YEAR,
    "money",
    Version(Decimal(1250), BASE_ERTC),
    quote="$1,250 for each new full-time position at that location in credit year two",
)
LIABILITY_SHARE_LIMIT: Parameter[Decimal] = _figure(
    "ertc.liability_share_limit",
    "ertc",
    "Credits limit, share of the tax liability",
    f"{_E}b.(3)",
    Selector.TAX_PERIOD,
    "fraction",
    Version(Decimal("0.5"), BASE_ERTC),
    quote="shall not exceed 50% of the tax liability otherwise due",
)
CREDIT_PERIOD_MONTHS: Parameter[int] = _figure(
    "ertc.credit_period_months",
    "ertc",
    "Credit period per location (months)",
    f"{_E}d.",
    Selector.CREDIT_YEAR,
    "count",
    Version(24, BASE_ERTC),
    quote="a single 24-month continuous period",
)
CREDIT_YEAR_MONTHS: Parameter[int] = _figure(
    "ertc.credit_year_months",
    "ertc",
    "Months in a credit year",
    f"{_E}e.",
    Selector.CREDIT_YEAR,
    "count",
    Version(12, BASE_ERTC),
    quote="the first twelve calendar months",
)
FULL_TIME_HOURS_PER_MONTH: Parameter[int] = _figure(
    "ertc.full_time_hours_per_month",
    "ertc",
    "Hours a month of a full-time position",
    f'{_E}e. "full time position"',
    Selector.MONTH,
    "hours",
    Version(140, BASE_ERTC),
    quote="at least 140 hours per month",
)
PART_TIME_HOURS_PER_WEEK: Parameter[int] = _figure(
    "ertc.part_time_hours_per_week",
    "ertc",
    "Hours a week of a part-time position",
    f'{_E}e. "part-time position"',
    Selector.MONTH,
    "hours",
    Version(20, BASE_ERTC),
    quote="at least 20 hours per week",
)
PART_TIME_MINIMUM_MONTHS: Parameter[int] = _figure(
    "ertc.part_time_minimum_months",
    "ertc",
    "Months a part-time position lasts at least",
    f'{_E}e. "part-time position"',
    Selector.CREDIT_YEAR,
    "count",
    Version(3, BASE_ERTC),
    quote="for at least three months during the credit year",
)
#: 52 weeks in 12 months: the reading of 20 hours a week as 86 2/3 hours a month.
WEEKS_PER_YEAR: Parameter[int] = _figure(
    "ertc.weeks_per_year",
    "ertc",
    "Weeks in a year (20 hours a week as hours a month)",
    'docs/interpretations.md "Part-time hours"',
    Selector.FIXED,
    "count",
    Version(52, BASE_ERTC),
)
SUSTAINED_EFFORT_RATIO_MAXIMUM: Parameter[int] = _figure(
    "ertc.sustained_effort_ratio_maximum",
    "ertc",
    "Highest sustained effort ratio",
    f'{_E}e. "sustained effort ratio"',
    Selector.FIXED,
    "count",
    Version(1, BASE_ERTC),
    quote="not to exceed one",
)
FORM_313_CARRYFORWARD_YEARS: Parameter[int] = _figure(
    "ertc.form_313_carryforward_years",
    "ertc",
    "Carryforward years of the Form 313 instructions (a switch, not the default)",
    "NJ Form 313 instructions (2013)",
    Selector.FIXED,
    "count",
    Version(5, FORM_313_2013),
)

# =========================================================================== CBT
# N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b).

_statute(
    "cbt",
    "Corporation Business Tax statutory minimum",
    "N.J.S.A. 54:10A-5(e)",
    not_modelled=(
        "the minimum tax for privilege periods beginning before 2012",
        "that the $5,000,000 group-payroll minimum holds for S corporations (a secondary"
        " source: uncertain)",
    ),
)
BASE_CBT = _act(
    "cbt",
    "the table for periods beginning in 2012 (S corporations: P.L.2011, c.84)",
    dt.date(2012, 1, 1),
    source="shared/legal-notes.md section 3; N.J.A.C. 18:7-3.4(b)",
    note=(
        "the table for privilege periods beginning in 2012 and after; the acts' approval"
        " dates are not in the notes: modelled from January 1, 2012"
    ),
)

#: (label, receipts from, receipts below or None, C corporation, S corporation)
MINIMUM_TAX_TABLE: Parameter[tuple[tuple[str, Decimal, Decimal | None, Decimal, Decimal], ...]] = (
    _figure(
        "cbt.minimum_tax_table",
        "cbt",
        "Statutory minimum tax by New Jersey gross receipts",
        "N.J.S.A. 54:10A-5(e); N.J.A.C. 18:7-3.4(b)",
        Selector.TAX_PERIOD,
        "table",
        Version(
            (
                ("less than $100,000", Decimal(0), Decimal(100_000), Decimal(500), Decimal(375)),
                (
                    "$100,000 to less than $250,000",
                    Decimal(100_000),
                    Decimal(250_000),
                    Decimal(750),
                    Decimal("562.50"),
                ),
                (
                    "$250,000 to less than $500,000",
                    Decimal(250_000),
                    Decimal(500_000),
                    Decimal(1_000),
                    Decimal(750),
                ),
                (
                    "$500,000 to less than $1,000,000",
                    Decimal(500_000),
                    Decimal(1_000_000),
                    Decimal(1_500),
                    Decimal(1_125),
                ),
                ("$1,000,000 or more", Decimal(1_000_000), None, Decimal(2_000), Decimal(1_500)),
            ),
            BASE_CBT,
        ),
    )
)
TABLE_FIRST_PERIOD_YEAR: Parameter[int] = _figure(
    "cbt.table_first_period_year",
    "cbt",
    "The table covers privilege periods beginning from",
    "N.J.S.A. 54:10A-5(e)",
    Selector.FIXED,
    "year",
    Version(2012, BASE_CBT),
)
GROUP_PAYROLL_THRESHOLD: Parameter[Decimal] = _figure(
    "cbt.group_payroll_threshold",
    "cbt",
    "Group payroll from which the group minimum applies",
    "N.J.A.C. 18:7-3.4(b)1",
    Selector.TAX_PERIOD,
    "money",
    Version(Decimal(5_000_000), BASE_CBT),
    quote="total payroll of $5,000,000 or more",
)
GROUP_MINIMUM_TAX: Parameter[Decimal] = _figure(
    "cbt.group_minimum_tax",
    "cbt",
    "Minimum tax of a member of a large group",
    "N.J.A.C. 18:7-3.4(b)1",
    Selector.TAX_PERIOD,
    "money",
    Version(Decimal(2_000), BASE_CBT),
)
#: An instruction, not an act: the group-payroll test of a privilege period shorter than
#: 12 months (shared/legal-notes.md section 5). Its per-month figure is the default
#: reading; ``short_period_test="prorated"`` reads the regulation's figure prorated instead
#: (docs/interpretations.md, "Group payroll rule for a period of less than 12 months").
FORM_313_2013_CBT = _source(
    "cbt",
    "NJ Form 313 instructions (2013)",
    dt.date(2013, 1, 1),
    source="NJ Form 313 instructions (2013), shared/legal-notes.md section 5",
    note="the group-payroll test of a privilege period of less than 12 months",
)
FULL_PERIOD_MONTHS: Parameter[int] = _figure(
    "cbt.full_period_months",
    "cbt",
    "Months of a full privilege period (a shorter one prorates the group-payroll test)",
    "NJ Form 313 instructions (2013)",
    Selector.TAX_PERIOD,
    "count",
    Version(12, FORM_313_2013_CBT),
    quote="Tax periods of less than 12 months",
)
GROUP_PAYROLL_PER_MONTH: Parameter[Decimal] = _figure(
    "cbt.group_payroll_per_month",
    "cbt",
    "Group payroll a month that a period of less than 12 months must exceed for the group minimum",
    "NJ Form 313 instructions (2013); N.J.A.C. 18:7-3.4(b)1",
    Selector.TAX_PERIOD,
    "money",
    Version(Decimal(416_667), FORM_313_2013_CBT),
    quote="subject to the higher minimum tax if the prorated total payroll exceeds $416,667"
    " per month",
)

#: N.J.A.C. 18:7-2.3(b): "any fiscal year which ends within seven days from the end of any
#: calendar month shall be deemed to have ended on the last day of that calendar month"
#: (text as published through N.J.R. Vol. 56, No. 18, September 2024).
DEEMED_MONTH_END_DAYS: Parameter[int] = _figure(
    "cbt.deemed_month_end_days",
    "cbt",
    "A 52-53-week year ending within this many days of a month end is deemed to end on it",
    "N.J.A.C. 18:7-2.3(b)",
    Selector.TAX_PERIOD,
    "days",
    Version(7, BASE_CBT),
    quote="ends within seven days from the end of any calendar month",
)
