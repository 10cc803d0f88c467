"""Reading scenario columns into exact integers, vectorially.

Every input value becomes an ``int64`` count of its kind's unit (:data:`columns.SCALE`:
cents, 10^-9 of a fraction, 10^-8 of a position, days since 1970-01-01 for dates) and
two masks: ``blank`` and ``ok``. ``ok`` means: the value reads exactly as the core reads
it (``common.as_number`` reads a float by its shortest round-trip text), lies within the
bounds of the column's declaration (:attr:`~nj_incentives.scenarios.columns.InputSpec.rule`,
a :class:`~nj_incentives.core.inputs.InputRule`: the law's bounds and the runner's limits)
and obeys the core's coercion rules (non-negative money, fractions from 0 to 1, whole
counts, ISO dates, TRUE/FALSE, one of the declared choices). A non-blank value that is
not ``ok`` sends its row's section to the scalar path
(:mod:`nj_incentives.scenarios.scalar`), which either computes it with the core (a
percentage with more than 9 decimals, say) or gives the core's own error message.

Floats are checked without leaving numpy: ``n = rint(x * S)`` is the exact scaled value
iff ``n / S == x`` (every decimal of at most 15 significant digits maps to a distinct
double, and the runner's limits keep values within 15 digits). Text, Decimal and mixed
columns are read one distinct value at a time with the core's own ``as_*`` functions.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

from nj_incentives.core.common import InputError, as_bool, as_choice, as_date, as_number
from nj_incentives.core.inputs import MAX_DATE, MIN_DATE, InputKind, InputRule, percent_text
from nj_incentives.core.inputs import is_blank as blank_value
from nj_incentives.core.scenario_sections import SCALE, ConvertedColumn
from nj_incentives.scenarios.columns import InputSpec, Kind

__all__ = [
    "ConvertedColumn",
    "convert",
    "convert_array",
    "convert_floats",
    "is_blank",
    "numbers_from_text",
    "plain_array",
    "raw_values",
]

# A choice's code in the kernel: the index into its declared choices (``tax_type``: the
# law's ertc.TAX_TYPES, N.J.S.A. 52:27BBB-55a.).
_EPOCH = dt.date(1970, 1, 1)
_MIN_DAY, _MAX_DAY = (MIN_DATE - _EPOCH).days, (MAX_DATE - _EPOCH).days

I64 = np.dtype(np.int64)


def is_blank(value: object) -> bool:
    """A blank cell: NaN, NaT, pandas NA, or a blank input
    (:func:`nj_incentives.core.inputs.is_blank`: None, text empty or only spaces)."""
    if value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return blank_value(value)


# ----------------------------------------------------------------------- one value


@functools.lru_cache(maxsize=1024)
def _limits(kind: Kind, rule: InputRule) -> tuple[int, int]:
    """The kernel's accepted range of scaled values: the declaration's bounds
    (remembered: a rule is a frozen declaration, read a column a chunk)."""
    return rule.scaled_bounds(SCALE[kind])


def _scalar_number(value: object, kind: Kind, rule: InputRule) -> int | None:
    """A number read as the core reads it, scaled; None if not exact / out of range.
    A percentage may be percent text ("50%"), as the core reads it too."""
    try:
        percent = percent_text(value, "value") if rule.kind is InputKind.FRACTION else None
        number = as_number(value, "value") if percent is None else percent
    except InputError:
        return None
    scaled = number * SCALE[kind]
    if scaled != scaled.to_integral_value():
        return None
    whole = int(scaled)
    low, high = _limits(kind, rule)
    return whole if low <= whole <= high else None


def _scalar_value(value: object, kind: Kind, rule: InputRule) -> int | None:
    """One non-blank value as the kernel's integer, or None if the kernel cannot take it."""
    if kind is Kind.DATE:
        try:
            days = (as_date(value, "value") - _EPOCH).days
        except InputError:
            return None
        return days if _MIN_DAY <= days <= _MAX_DAY else None
    if kind is Kind.BOOL:
        try:
            return int(as_bool(value, "value"))
        except InputError:
            return None
    if kind is Kind.CHOICE:
        try:
            return rule.choices.index(as_choice(value, "value", rule.choices))
        except InputError:
            return None
    return _scalar_number(value, kind, rule)


class _Flag:
    """A TRUE/FALSE cell as a factorize key that never equals the number 1 or 0."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value

    def __hash__(self) -> int:
        return hash((_Flag, self.value))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Flag) and other.value == self.value


def _by_unique(values: Any, kind: Kind, rule: InputRule) -> ConvertedColumn:
    """Read an object column one distinct value at a time (text, Decimal, mixed); or a
    column of text (a pandas string series: factorized as it is, no TRUE/FALSE in it)."""
    n = len(values)
    keys = values
    if not isinstance(values, pd.Series):
        # TRUE hashes and compares equal to 1 (and FALSE to 0): factorized together, a
        # TRUE cell would take the reading of a 1 in the same chunk. Booleans get keys of
        # their own.
        flags = np.fromiter((isinstance(v, (bool, np.bool_)) for v in values), bool, n)
        if flags.any():
            keys = values.copy()
            keys[flags] = [_Flag(bool(v)) for v in values[flags]]
    try:
        codes, uniques = pd.factorize(keys, use_na_sentinel=True)
    except TypeError:  # unhashable cells: read each one
        codes, uniques = np.arange(n), keys
    readings = [u.value if isinstance(u, _Flag) else u for u in uniques]
    table_value = np.zeros(len(readings) + 1, I64)
    table_blank = np.zeros(len(readings) + 1, bool)
    table_ok = np.zeros(len(readings) + 1, bool)
    table_blank[-1] = True  # code -1: NA sentinel
    for i, value in enumerate(readings):
        if is_blank(value):
            table_blank[i] = True
            continue
        read = _scalar_value(value, kind, rule)
        if read is not None:
            table_value[i] = read
            table_ok[i] = True
    return ConvertedColumn(table_value[codes], table_blank[codes], table_ok[codes])


# ----------------------------------------------------------------------- columns


def _from_float(x: np.ndarray, kind: Kind, rule: InputRule) -> ConvertedColumn:
    blank = np.isnan(x)
    if kind in (Kind.DATE, Kind.CHOICE):  # the core refuses numbers here
        return ConvertedColumn(np.zeros(len(x), I64), blank, np.zeros(len(x), bool))
    if kind is Kind.BOOL:
        ok = (x == 0) | (x == 1)
        return ConvertedColumn(np.where(ok, x, 0).astype(I64), blank, ok)
    scale = SCALE[kind]
    low, high = _limits(kind, rule)
    with np.errstate(invalid="ignore", over="ignore"):
        in_range = (x >= low / scale) & (x <= high / scale)
        # NaN and values out of range scale to anything (inf, NaN, a wrapped integer):
        # their rows are not ok, and their values are set to 0 below
        scaled = np.multiply(x, scale)
        np.rint(scaled, out=scaled)
        ok = in_range & (scaled / scale == x)
        values = scaled.astype(I64)
    ok &= (values >= low) & (values <= high)
    if not ok.all():  # 0 where not ok (a multiplication: no branch a row)
        np.multiply(values, ok, out=values)
    return ConvertedColumn(values, blank, ok)


def _from_int(x: np.ndarray, kind: Kind, rule: InputRule) -> ConvertedColumn:
    n = len(x)
    blank = np.zeros(n, bool)
    if kind in (Kind.DATE, Kind.CHOICE):
        return ConvertedColumn(np.zeros(n, I64), blank, np.zeros(n, bool))
    if kind is Kind.BOOL:
        ok = (x == 0) | (x == 1)
        return ConvertedColumn(np.where(ok, x, 0).astype(I64), blank, ok)
    scale = SCALE[kind]
    low, high = _limits(kind, rule)
    ok = (x >= -(-low // scale)) & (x <= high // scale)
    values = x.astype(I64)  # a copy; a value beyond int64 wraps: not ok, set to 0
    if not ok.all():  # 0 where not ok (a multiplication: no branch a row)
        np.multiply(values, ok, out=values)
    if scale != 1:
        values *= scale
    return ConvertedColumn(values, blank, ok)


def _from_datetime(series: pd.Series) -> ConvertedColumn:
    days = series.to_numpy(dtype="datetime64[D]", na_value=np.datetime64("NaT", "D"))
    blank = np.isnat(days)
    values = days.astype(I64)  # a blank (NaT) the smallest int64: not ok, set to 0
    ok = ~blank & (values >= _MIN_DAY) & (values <= _MAX_DAY)
    if not ok.all():  # 0 where not ok (a multiplication: no branch a row)
        np.multiply(values, ok, out=values)
    return ConvertedColumn(values, blank, ok)


#: Kinds read from numeric text (the others, dates, yes/no and choices, by the core).
_NUMERIC = (Kind.MONEY, Kind.FRACTION, Kind.GROWTH, Kind.COUNT, Kind.POSITIONS)
#: Numeric text of at most this many characters has at most 15 significant digits, or
#: (16 digits, no sign or point) lies beyond every column's bounds: its double is exact
#: enough for the check of :func:`_from_float` to be the core's reading of the text.
_SHORT_TEXT = 16


def _text_array(series: pd.Series) -> Any:
    """A column of text (and blanks) as a pyarrow string array, or None if it holds
    anything else."""
    import pyarrow as pa

    dtype = series.dtype
    objects = isinstance(dtype, np.dtype) and dtype.kind == "O"
    if not (objects or isinstance(dtype, pd.StringDtype)):
        return None
    if objects and pd.api.types.infer_dtype(series, skipna=True) not in ("string", "empty"):
        return None
    try:
        return pa.array(series, type=pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _parsed(text: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A text column parsed to doubles in one pass (pyarrow): (the doubles, NaN where
    blank; the non-blank texts; the texts whose double is their own reading), or None
    when the parser refuses the column (a thousands separator, percent text, an error
    value, a space: read one distinct text at a time instead).

    A double is the text's own reading when the text is short (:data:`_SHORT_TEXT`)
    and reads as a finite number: not zero, or zero written without an exponent
    (``1e-999999999`` also reads as zero)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if text.null_count == len(text):
        return np.full(len(text), np.nan), np.zeros(len(text), bool), np.zeros(len(text), bool)
    try:
        parsed = pc.cast(text, pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    x = np.asarray(parsed.to_numpy(zero_copy_only=False), np.float64)
    given = np.asarray(text.is_valid().to_numpy(zero_copy_only=False), bool)
    lengths = pc.utf8_length(text).fill_null(0).to_numpy(zero_copy_only=False)
    short = np.asarray(lengths) <= _SHORT_TEXT
    with np.errstate(invalid="ignore"):
        trusted = given & short & np.isfinite(x) & (x != 0)
        zeros = np.flatnonzero(given & short & (x == 0))
    if len(zeros):
        exponent = pc.match_substring(text.take(zeros), "e", ignore_case=True)
        trusted[zeros[~np.asarray(exponent.to_numpy(zero_copy_only=False), bool)]] = True
    return x, given, trusted


def _from_text(series: pd.Series, text: Any, kind: Kind, rule: InputRule) -> ConvertedColumn:
    """A column of numeric text read as the core reads text (issue 22: ``1e-999999999``
    was read as 0.0 by the CSV reader and computed; ``NaN`` and ``#N/A`` were blanks):
    where the text's double is its own reading (:func:`_parsed`), by the exact check of
    :func:`_from_float`; everything else (NaN and infinity text, an exponent that reads
    as zero, long text, a column the parser refuses) one distinct text at a time by
    the core's own rules."""
    parsed = _parsed(text)
    if parsed is None:
        return _by_unique(series.astype(object).to_numpy(), kind, rule)
    x, given, trusted = parsed
    fast = _from_float(np.where(trusted, x, np.nan), kind, rule)
    fast.blank = ~given
    rest = np.flatnonzero(given & ~trusted)
    if len(rest):
        slow = _by_unique(series.iloc[rest].astype(object).to_numpy(), kind, rule)
        fast.values[rest] = slow.values
        fast.blank[rest] = slow.blank
        fast.ok[rest] = slow.ok
    return fast


def numbers_from_text(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (read from a file, its input columns as text) with each numeric input
    column whose every non-blank text reads exactly as its double (:func:`_parsed`)
    replaced by those doubles (NaN where blank): read once, with the same outcome as
    :func:`convert` of the text, and cheaper to cut into chunks. A column with any other
    text stays text, for :func:`convert` and the core to read."""
    from nj_incentives.scenarios.columns import input_spec

    for name in frame.columns:
        found = input_spec(str(name))
        if found is None or found[0].kind not in _NUMERIC:
            continue
        text = _text_array(frame[name])
        parsed = None if text is None else _parsed(text)
        if parsed is None:
            continue
        x, given, trusted = parsed
        if (trusted | ~given).all():
            frame[name] = np.where(given, x, np.nan)
    return frame


def plain_array(dtype: object) -> bool:
    """Whether :func:`convert_array` reads a column of this dtype from its numpy array
    alone (numbers, booleans, and objects): no Series needed."""
    return isinstance(dtype, np.dtype) and dtype.kind in "fiubO"


def convert_array(x: np.ndarray, spec: InputSpec) -> ConvertedColumn | None:
    """:func:`convert` of a column held as a plain numpy array (:func:`plain_array`),
    without a Series: the same reading; None where the reading needs the Series (numeric
    text: an object column of a numeric kind)."""
    kind, rule = spec.kind, spec.rule
    code = x.dtype.kind
    if code == "b":
        if kind is Kind.BOOL:
            return ConvertedColumn(x.astype(I64), np.zeros(len(x), bool), np.ones(len(x), bool))
        # TRUE/FALSE where a number or a date is expected: the core refuses it
        return ConvertedColumn(
            np.zeros(len(x), I64), np.zeros(len(x), bool), np.zeros(len(x), bool)
        )
    if code == "f":
        return _from_float(np.asarray(x, np.float64), kind, rule)
    if code in "iu":
        return _from_int(x, kind, rule)
    if code == "O" and kind not in _NUMERIC:
        return _by_unique(x, kind, rule)
    return None


def convert(series: pd.Series, spec: InputSpec) -> ConvertedColumn:
    """A column of a scenario chunk as exact integers (see the module docstring), within
    the bounds of its declaration ``spec.rule``."""
    kind, rule = spec.kind, spec.rule
    dtype = series.dtype
    if plain_array(dtype):
        read = convert_array(series.to_numpy(), spec)
        if read is not None:
            return read
    if isinstance(dtype, (pd.DatetimeTZDtype, pd.PeriodDtype)):
        return _by_unique(series.astype(object).to_numpy(), kind, rule)
    if pd.api.types.is_datetime64_dtype(dtype):
        if kind is Kind.DATE:
            return _from_datetime(series)
        blank = series.isna().to_numpy()
        return ConvertedColumn(np.zeros(len(series), I64), blank, np.zeros(len(series), bool))
    if pd.api.types.is_bool_dtype(dtype) and not isinstance(dtype, pd.BooleanDtype):
        x = series.to_numpy(dtype=bool)
        if kind is Kind.BOOL:
            return ConvertedColumn(x.astype(I64), np.zeros(len(x), bool), np.ones(len(x), bool))
        # TRUE/FALSE where a number or a date is expected: the core refuses it
        return ConvertedColumn(
            np.zeros(len(x), I64), np.zeros(len(x), bool), np.zeros(len(x), bool)
        )
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        return _from_float(series.to_numpy(dtype=np.float64), kind, rule)
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        return _from_int(series.to_numpy(), kind, rule)
    nullable = isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype.kind in "fiu"
    if nullable and kind is not Kind.BOOL:  # nullable Int64 / Float64: NA is blank
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        if dtype.kind in "iu" and not np.all(np.abs(values[~np.isnan(values)]) < 2**53):
            return _by_unique(series.astype(object).to_numpy(), kind, rule)
        return _from_float(values, kind, rule)
    if isinstance(dtype, pd.StringDtype):
        if kind in _NUMERIC:
            text = _text_array(series)
            if text is not None:
                return _from_text(series, text, kind, rule)
        return _by_unique(series, kind, rule)  # dates, yes/no, choices as text
    if kind in _NUMERIC:
        text = _text_array(series)
        if text is not None:
            return _from_text(series, text, kind, rule)
    return _by_unique(series.astype(object).to_numpy(), kind, rule)


def convert_floats(values: np.ndarray, spec: InputSpec) -> ConvertedColumn:
    """A float64 array of a few rows as :func:`convert` reads a float64 column holding it
    (:func:`_from_float`), one value at a time in Python: cheaper than numpy's calls on a
    few values (``NJ_SCENARIOS``'s small tables). The same IEEE operations: the bounds
    compared as the doubles ``low / scale`` and ``high / scale``, ``rint`` as Python's
    ``round`` (half to even) of a finite double, the check ``rint(x * S) / S == x``; a
    property holds it to :func:`_from_float` (tests/scenarios/test_scenarios_small.py)."""
    kind, rule = spec.kind, spec.rule
    cells = values.tolist()
    blank = [x != x for x in cells]
    if kind in (Kind.DATE, Kind.CHOICE):  # the core refuses numbers here
        return ConvertedColumn(
            np.zeros(len(cells), I64), np.array(blank, bool), np.zeros(len(cells), bool)
        )
    read: list[int] = []
    ok: list[bool] = []
    if kind is Kind.BOOL:
        for x in cells:
            good = x == 0 or x == 1
            read.append(int(x) if good else 0)
            ok.append(good)
    else:
        scale = SCALE[kind]
        low, high = _limits(kind, rule)
        above, below = low / scale, high / scale
        for x in cells:
            if above <= x <= below:  # finite: rint is round
                scaled = float(round(x * scale))
                if scaled / scale == x and low <= int(scaled) <= high:
                    read.append(int(scaled))
                    ok.append(True)
                    continue
            read.append(0)
            ok.append(False)
    return ConvertedColumn(np.array(read, I64), np.array(blank, bool), np.array(ok, bool))


# ----------------------------------------------------------------------- raw values


def _python(value: object) -> object:
    """A cell as a plain Python value for the scalar core; blanks become None."""
    if is_blank(value):
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def raw_cells(column: np.ndarray) -> list[object]:
    """Every cell of a column (a numpy array: float64 or object, as ``NJ_SCENARIOS``
    reads a range) as the scalar path passes it to the core, the same as
    :func:`raw_values` of the column in a frame."""
    return [_python(value) for value in column.tolist()]


def raw_values(series: pd.Series, positions: np.ndarray) -> list[object]:
    """The cells at ``positions`` as the scalar path passes them to the core.

    Blank cells (NaN, NaT, None, empty text) are None; datetimes are ``pd.Timestamp``
    (a ``datetime``); numpy scalars become Python numbers.
    """
    if plain_array(series.dtype):  # numpy numbers, booleans, objects: their own cells
        return [_python(value) for value in series.to_numpy()[positions].tolist()]
    picked = series.iloc[positions]
    if pd.api.types.is_datetime64_any_dtype(picked.dtype):
        return [None if value is pd.NaT else value for value in picked.tolist()]
    return [_python(value) for value in picked.astype(object).tolist()]


def decimal_cents(value: Decimal) -> int:
    """A money result of the core (whole cents by the runner's limits) as cents."""
    cents = value * 100
    if cents != cents.to_integral_value():  # pragma: no cover - limits prevent it
        raise AssertionError(f"money result {value} is not a whole number of cents")
    return int(cents)
