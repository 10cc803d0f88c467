"""A section of the scenario table as a program declares it (``SECTIONS`` of
``programs/<key>/scenarios.py``): its result columns, its vectorized kernel over int64
cents, its scalar (exact) path, the sections it needs, and what it tells the runner about
the layout. The runner (:mod:`nj_incentives.scenarios`) runs every registered section
generically; the program's own module holds its computation.

Also here, the vocabulary both share: the kernel's units (:data:`SCALE`), a converted
input column (:class:`ConvertedColumn`), a chunk's columns as a section reads them
(:class:`Columns`), what a section's kernel computed (:class:`SectionOut`), the shape of a
run (:class:`Shape`), result columns (:class:`OutputSpec`), and the runner's conveniences
both paths apply (filling blank years and periods forward; the scalar path's limits of a
row, :class:`RowLimits`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from enum import StrEnum
from typing import Any, Protocol

import numpy as np

from nj_incentives.core import parameters as P
from nj_incentives.core.common import InputError, as_date, as_money
from nj_incentives.core.inputs import InputRule
from nj_incentives.core.rules import EXACT, Int64, Ratio, Rules, V
from nj_incentives.core.scenario_inputs import RUNNER_LIMIT, InputSpec, Kind

__all__ = [
    "I64",
    "INT64",
    "SCALE",
    "Columns",
    "ConvertedColumn",
    "OutKind",
    "OutputSpec",
    "Outputs",
    "RowLimits",
    "Section",
    "SectionOut",
    "Shape",
    "Values",
    "cell",
    "fill_copy",
    "fill_dates",
    "fill_forward",
    "fill_money",
    "grown",
    "grown_rule",
    "kept",
    "last_given",
    "located",
    "next_period_end",
    "next_period_end_rule",
    "nothing",
    "or_default",
    "version_categories",
]

I64 = np.dtype(np.int64)
#: The int64 evaluator every kernel runs the core's rules with.
INT64 = Int64()

#: The kernel holds every value as an int64 count of these units (exact decimal scaling).
SCALE: dict[Kind, int] = {
    Kind.MONEY: 100,  # cents
    Kind.FRACTION: 10**9,  # 0.000000001 (a percentage to 7 decimals of a percent)
    Kind.GROWTH: 10**9,
    Kind.POSITIONS: 10**8,
    Kind.COUNT: 1,
}

#: A row of the scalar path: column -> plain Python value, blank cells as None.
Values = Mapping[str, Any]
#: A section's results of one row (scalar path): column -> Decimal, int, bool, float, text.
Outputs = dict[str, object]


# ======================================================================= columns


@dataclass
class ConvertedColumn:
    """One input column of a chunk, as exact integers."""

    values: np.ndarray  # int64; 0 where blank or not ok
    blank: np.ndarray  # bool
    ok: np.ndarray  # bool: not blank, and exactly representable and valid for the kernel
    #: the column is not in the chunk: every cell blank (a kernel may skip its checks)
    absent: bool = False

    @property
    def bad(self) -> np.ndarray:
        """Non-blank values the kernel cannot take (their section goes to the scalar path)."""
        bad: np.ndarray = ~self.blank & ~self.ok
        return bad

    @classmethod
    def empty(cls, n: int) -> ConvertedColumn:
        return cls(np.zeros(n, I64), np.ones(n, bool), np.zeros(n, bool), absent=True)


class Columns(Protocol):
    """The input columns of some scenario rows, as a section's kernel reads them (the
    runner's ``Chunk``)."""

    n: int
    #: figures computed once a chunk (shared by the layout and the kernel)
    memo: dict[str, object]

    def col(self, name: str) -> ConvertedColumn: ...

    def section_columns(self, section: str, triggers_only: bool = False) -> Iterator[str]: ...

    def present(self, section: str) -> np.ndarray: ...


class Shape(Protocol):
    """The shape of a run's results (the runner's ``Layout``)."""

    @property
    def periods(self) -> int: ...

    @property
    def first_tax_year(self) -> int: ...

    @property
    def last_tax_year(self) -> int: ...

    @property
    def detail(self) -> bool: ...

    @property
    def tax_years(self) -> range: ...


@dataclass
class SectionOut:
    """What the kernel computed for one section of a chunk."""

    present: np.ndarray
    fast: np.ndarray
    #: result column -> (values, valid rows); valid rows are always within ``fast``.
    #: Money in cents (int64); counts int64; flags 0/1; the ratio float64.
    values: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def scalar(self) -> np.ndarray:
        """Rows the scalar path must compute (or explain)."""
        rows: np.ndarray = self.present & ~self.fast
        return rows


def nothing(n: int) -> SectionOut:
    """A section none of whose ``n`` rows is present."""
    return SectionOut(np.zeros(n, bool), np.zeros(n, bool))


# ======================================================================= outputs


class OutKind(StrEnum):
    MONEY = "money"
    INT = "int"
    BOOL = "bool"
    FLOAT = "float"
    TEXT = "text"


@dataclass(frozen=True)
class OutputSpec:
    name: str
    kind: OutKind
    section: str
    doc: str
    #: a text column's values (OutKind.TEXT): the kernel holds each row's as its
    #: position here (a code), the results as a categorical (a dictionary column)
    categories: tuple[str, ...] = ()


def version_categories(statute: str) -> tuple[str, ...]:
    """The values of a column naming the version applied: the names of the acts modelled
    for ``statute`` in :func:`~nj_incentives.core.parameters.act_order` (a code is a
    position in it)."""
    return tuple(act.name for act in P.act_order(statute))


# ======================================================================= a section

#: A section's kernel: (the chunk's columns, the run's shape, the sections computed
#: before it in this chunk) -> what it computed.
Kernel = Callable[[Columns, Shape, Mapping[str, SectionOut]], SectionOut]
#: A section's scalar path: (one row, the run's shape) -> its results, or None when a
#: section it needs failed (that error is already reported); raises the core's InputError.
Scalar = Callable[[Values, Shape], "Outputs | None"]
#: (rows whose tax years are known, first tax year, last tax year) of each row.
TaxYears = Callable[[Columns], tuple[np.ndarray, np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Section:
    """One section of the scenario table: its input columns are the program's ``INPUTS``
    whose ``section`` is :attr:`name`."""

    name: str
    #: its result columns for a run's shape, in order
    outputs: Callable[[Shape], list[OutputSpec]]
    kernel: Kernel
    scalar: Scalar
    #: sections that must be computed (and given result columns) with it, before it
    needs: tuple[str, ...] = ()
    #: the input column whose largest usable value widens the run's periods (its
    #: ``period`` family columns give periods as well)
    periods_column: str = ""
    #: each row's tax years, widening the run's tax years (None: it has none)
    tax_years: TaxYears | None = None
    #: how many grant years its ``year`` family input columns number (``withholdings_{k}``:
    #: k = 1..years)
    years: int = 0
    #: a result column valid where the section computed: a per-tax-year column added
    #: after some rows were written holds 0 in those rows (no installment that year)
    tax_year_total: str = ""


# ======================================================================= fill forward
# Runner conveniences (not law): blank years and periods filled from the one before.


def grown_rule(r: Rules, previous: V, growth: V) -> V:
    """Runner convenience (not law), for both evaluators: a filled-forward amount, the one
    before x (1 + ``growth``, a fraction from -1 to 1), rounded down to the cent."""
    return grown_by_rule(r, previous, growth_factor_rule(r, growth))


def growth_factor_rule(r: Rules, growth: V) -> V:
    """1 + ``growth``: the factor of :func:`grown_rule` (computed once for a column)."""
    return r.add(1, growth)


def grown_by_rule(r: Rules, previous: V, factor: V) -> V:
    """:func:`grown_rule` with its factor (:func:`growth_factor_rule`) given."""
    return r.share(previous, factor)


def next_period_end_rule(r: Rules, day: V) -> V:
    """Runner convenience (not law), for both evaluators: the period end after ``day``,
    the same day a year later; a month's last day stays its month's last day."""
    later = r.add_months(day, 12)
    return r.where(r.eq(day, r.month_end(day)), r.month_end(later), later)


def next_period_end(day: dt.date) -> dt.date:
    """The same day a year later; a month's last day stays its month's last day."""
    end: dt.date = next_period_end_rule(EXACT, day)
    return end


def fill_forward(
    values: list[np.ndarray],
    blank: list[np.ndarray],
    fill_rows: np.ndarray,
    count: np.ndarray,
    step: object,
    within: list[np.ndarray] | None = None,
) -> None:
    """Runner convenience: blank entries k = 2..count filled from k-1 by ``step`` (in place).
    The entries past every filled row's count are not looked at. ``within``, when given,
    is ``[count >= 1, count >= 2, ...]`` (the caller's, computed once for its columns).

    A blank entry's value is 0 (:class:`ConvertedColumn`, and a filled entry is no longer
    blank), so an entry k is ``values[k] + step(values[k - 1]) x fill`` (the filled rows
    are blank, the others add 0): a multiplication by the rows' mask instead of a choice
    a row (``numpy.where`` mispredicts a branch on most rows of a random mask), and only
    that product for a column blank in every row (absent from the table)."""
    for k in range(1, len(values)):
        alive = fill_rows & (count > k if within is None else within[k])
        if not alive.any():  # nor for any later k
            break
        fill = alive & blank[k] & ~blank[k - 1]
        if fill.any():
            filled = np.multiply(step(values[k - 1]), fill, dtype=I64)  # type: ignore[operator]
            if not blank[k].all():
                np.add(filled, values[k], out=filled)
            values[k] = filled
            blank[k] = blank[k] & ~fill


def kept(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values`` where ``rows`` (a mask) holds, else 0 (int64): ``numpy.where(rows, values,
    0)`` as one multiplication, without a branch a row."""
    result: np.ndarray = np.multiply(values, rows, dtype=I64)
    return result


def grown(growth: ConvertedColumn) -> object:
    """The fill step :func:`grown_rule`: previous <= 2 x 10^13 cents, 1 + growth
    <= 2 x 10^9 / 10^9 (growth 0 where blank)."""
    factor = growth_factor_rule(INT64, Ratio(growth.values, SCALE[Kind.GROWTH]))

    def step(previous: np.ndarray) -> np.ndarray:
        return np.asarray(grown_by_rule(INT64, previous, factor))

    return step


def fill_money(seq: list[Any], rate: Decimal) -> None:
    """Blank entries after the first filled from the one before by :func:`grown_rule`."""
    for k in range(1, len(seq)):
        if seq[k] is None and seq[k - 1] is not None:
            try:
                previous = as_money(seq[k - 1], "value")
            except InputError:
                seq[k] = seq[k - 1]  # the core reports the earlier value
                continue
            with localcontext() as context:
                context.prec = 80  # exact: a rate may have up to 40 decimals
                seq[k] = grown_rule(EXACT, previous, rate)


def fill_copy(seq: list[Any]) -> None:
    for k in range(1, len(seq)):
        if seq[k] is None and seq[k - 1] is not None:
            seq[k] = seq[k - 1]


def fill_dates(seq: list[Any]) -> None:
    for k in range(1, len(seq)):
        if seq[k] is None and seq[k - 1] is not None:
            try:
                seq[k] = next_period_end(as_date(seq[k - 1], "value"))
            except InputError:
                seq[k] = seq[k - 1]


# ======================================================================= the scalar path


def cell(values: Values, column: str) -> Any:
    """A cell of the row (None when blank or absent)."""
    return values.get(column)


def or_default(value: Any, default: str) -> Any:
    """A switch cell, or the core's default where it is blank."""
    return default if value is None else value


def last_given(values: Values, prefixes: tuple[str, ...]) -> int:
    last = 0
    for column, value in values.items():
        match = re.fullmatch(r"(.+)_(\d+)", column)
        if match and match.group(1) in prefixes and value is not None:
            last = max(last, int(match.group(2)))
    return last


def located(error: InputError, where: str, argument: str | None = None) -> InputError:
    """The core's error with its location ("period 2: ...") and, optionally, the column."""
    return InputError(
        argument or error.argument, error.value, f"{where}: {error.rule}", error.citation
    )


_FAMILY_RE = re.compile(r"^([a-z0-9_]+_)(\d+)$")


class RowLimits:
    """The scalar path's reading of a program's input columns (its ``INPUTS``): each
    column's declared rule, and the runner's limits checked on the values the core read."""

    def __init__(self, inputs: tuple[InputSpec, ...]) -> None:
        self._by_name = {spec.name: spec for spec in inputs if not spec.family}
        self._families = {spec.name.split("{")[0]: spec for spec in inputs if spec.family}

    def rule(self, column: str) -> InputRule:
        """The declaration of an input column: kind, bounds, citation (KeyError if none)."""
        spec = self._by_name.get(column)
        if spec is None:
            match = _FAMILY_RE.match(column)
            spec = self._families.get(match.group(1)) if match else None
        if spec is None:
            raise KeyError(column)
        return spec.rule

    def money(self, values: Values, column: str, amount: Decimal) -> None:
        """The column's declared bounds (the runner's money limit); the message shows the
        cell (or the filled-in amount)."""
        shown = values.get(column)
        shown = amount if shown is None else shown
        if amount != amount.quantize(Decimal("0.01")):
            rule = "has fractions of a cent: the scenario runner takes money to the cent"
            raise InputError(column, shown, rule, RUNNER_LIMIT)
        self.rule(column).check_bounds(amount, shown, column)

    def count(self, values: Values, column: str, count: Decimal | int) -> None:
        """The column's declared bounds (the runner's count limit)."""
        shown = values.get(column)
        self.rule(column).check_bounds(count, count if shown is None else shown, column)

    def growth(self, values: Values, column: str) -> Decimal:
        """A fill-forward growth rate (a runner convenience, not law), as declared."""
        value = values.get(column)
        if value is None:
            return Decimal(0)
        rate: Decimal = self.rule(column).parse(value, column)
        return rate
