"""Scenario tables from a base case: grids (cartesian products) and Monte Carlo draws.

Grid spec (``--grid``): inline ``"pct=0.3,0.4,0.5;year1_new=5,10,20"``, where a value
list may also be a range ``start:stop:step`` (inclusive, exact decimal steps:
``0.1:0.5:0.1``), or a JSON / YAML file mapping each column to a list, a range object
``{"start": 0.1, "stop": 0.5, "step": 0.1}`` or a single value.

Monte Carlo spec (``--monte-carlo N``): inline
``"pct=uniform(0.2,0.5);year1_new=poisson(12);liability_1=lognormal(200000,50000,min=0)"``
or a JSON / YAML file mapping each column to such a string or to an object
``{"dist": "uniform", "low": 0.2, "high": 0.5, "min": ..., "max": ..., "round": 4}``.
Distributions: ``constant(value)``, ``uniform(low, high)``, ``normal(mean, sd)``,
``lognormal(mean, sd)`` (mean and sd of the value itself), ``triangular(low, mode,
high)``, ``poisson(lam)``, ``integers(low, high)`` (inclusive), ``choice(a, b, ...)``
(equally likely; in a file ``"values"`` and optional ``"weights"``). Each draw is
clipped to ``[min, max]`` when given, then rounded to the column's unit (money to the
cent, fractions and growth rates to 4 decimals, counts and positions to whole numbers;
``round=`` overrides). Every column draws from its own stream,
``numpy.random.default_rng(SeedSequence([seed, crc32(column)]))``: the same seed gives
the same table, and adding a column does not change the others' draws.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nj_incentives.programs import PROGRAMS
from nj_incentives.scenarios.columns import (
    Kind,
    ScenarioError,
    check_columns,
    input_rule,
    input_spec,
)
from nj_incentives.support.lists import ambiguous_comma

__all__ = [
    "Distribution",
    "example_portfolio",
    "make_grid",
    "monte_carlo",
    "parse_distributions",
    "parse_grid",
    "spec_text",
]

#: Grids and draws larger than this are refused (a typo can multiply rows).
MAX_ROWS = 20_000_000
_DEFAULT_PLACES = {
    Kind.MONEY: 2,
    Kind.FRACTION: 4,
    Kind.GROWTH: 4,
    Kind.COUNT: 0,
    Kind.POSITIONS: 0,
}


# ======================================================================= spec files


def spec_text(spec: str) -> tuple[str, Any]:
    """A spec argument: ("file", parsed object) for a .json/.yaml/.yml path, else
    ("inline", the text)."""
    path = Path(spec)
    if path.suffix.lower() in (".json", ".yaml", ".yml"):
        if not path.is_file():
            raise ScenarioError(f"spec file not found: {spec}")
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".json":
            try:
                return "file", json.loads(text)
            except json.JSONDecodeError as error:
                raise ScenarioError(f"{spec}: not valid JSON ({error})") from None
        try:
            import yaml
        except ImportError:  # pragma: no cover - PyYAML comes with dask
            raise ScenarioError(
                "YAML specs need PyYAML (pip install pyyaml); or use JSON"
            ) from None
        try:
            return "file", yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise ScenarioError(f"{spec}: not valid YAML ({error})") from None
    return "inline", spec


def _kind(column: str) -> Kind:
    found = input_spec(column)
    if found is None:
        check_columns([column])  # raises with a hint
    assert found is not None
    return found[0].kind


def _value(text: str) -> object:
    """An inline value: a number, TRUE/FALSE, or text (dates stay ISO text)."""
    word = text.strip()
    if not word:
        raise ScenarioError("empty value in spec")
    if re.fullmatch(r"[+-]?\d+", word):
        return int(word)
    if word.lower() in ("true", "false"):
        return word.lower() == "true"
    percent = _percent(word)
    if percent is not None:
        return float(percent)
    try:
        number = Decimal(word.replace("_", ""))
    except InvalidOperation:
        return word.strip("'\"")
    return float(number) if number.is_finite() else word


def _percent(text: str) -> Decimal | None:
    """``"50%"`` -> ``Decimal("0.5")`` (exactly); None when it is no percent."""
    match = re.fullmatch(r"\s*([+-]?(?:\d+\.?\d*|\.\d+))\s*%\s*", text)
    return (Decimal(match.group(1)) / 100).normalize() if match else None


def _number(value: object) -> Decimal:
    percent = _percent(str(value))
    return percent if percent is not None else Decimal(str(value).strip())


def _range(start: object, stop: object, step: object) -> list[object]:
    try:
        a, b, s = (_number(x) for x in (start, stop, step))
    except InvalidOperation:
        raise ScenarioError(f"range {start}:{stop}:{step} needs numbers") from None
    if s <= 0 or b < a:
        raise ScenarioError(f"range {start}:{stop}:{step}: step must be > 0 and start <= stop")
    count = int((b - a) / s) + 1
    if count > MAX_ROWS:
        raise ScenarioError(
            f"range {start}:{stop}:{step} has {count:,} values, more than the {MAX_ROWS:,}"
            " scenarios a run may have (a typo can multiply rows); take a larger step"
        )
    values = [a + s * i for i in range(count)]
    return [int(v) if v == v.to_integral_value() else float(v) for v in values]


# ======================================================================= grid


def parse_grid(spec: str | Mapping[str, Any]) -> dict[str, list[object]]:
    """A grid spec (inline text, a spec file path, or a mapping) as column -> values."""
    source: Any = spec
    if isinstance(spec, str):
        how, source = spec_text(spec)
        if how == "inline":
            source = {}
            for part in filter(None, (p.strip() for p in spec.split(";"))):
                name, sep, values = part.partition("=")
                if not sep:
                    raise ScenarioError(f"grid spec part {part!r} is not COLUMN=VALUES")
                source[name.strip()] = values
    if not isinstance(source, Mapping) or not source:
        raise ScenarioError("a grid spec maps each column to its values")
    grid: dict[str, list[object]] = {}
    for name, values in source.items():
        column = str(name)
        _kind(column)
        grid[column] = _grid_values(column, values)
    return grid


def _refuse_thousands(column: str, text: str) -> None:
    """The command line's one list rule (:mod:`nj_incentives.support.lists`): commas separate the
    values of an inline spec, so a comma that may also separate thousands is refused."""
    clash = ambiguous_comma(text)
    if clash is not None:
        raise ScenarioError(
            f"{column}: {text.strip()!r}: the comma in {clash!r} may separate values or "
            "thousands; write the numbers without thousands separators (1250000,1300000), "
            "put a space after each comma (100, 200), or list them in a YAML/JSON spec file"
        )


def _grid_values(column: str, values: object) -> list[object]:
    if isinstance(values, str):
        _refuse_thousands(column, values)
        parts = [p for p in values.split(",") if p.strip()]
        out: list[object] = []
        for part in parts:
            bits = part.split(":")
            if len(bits) == 3 and not re.fullmatch(r"\s*\d{4}-\d\d-\d\d.*", part):
                out += _range(*bits)
            else:
                out.append(_value(part))
    elif isinstance(values, Mapping):
        try:
            out = _range(values["start"], values["stop"], values["step"])
        except KeyError:
            raise ScenarioError(f"{column}: a range needs start, stop and step") from None
    elif isinstance(values, Sequence):
        out = list(values)
    else:
        out = [values]
    if not out:
        raise ScenarioError(f"{column}: no values")
    return out


def _as_column(values: list[object]) -> np.ndarray:
    """Values as an array pandas will keep numeric where they are all numbers."""
    if all(isinstance(v, bool) for v in values):
        return np.array(values, dtype=bool)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.int64)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.float64)
    return np.array(values, dtype=object)


def _base_ids(base: pd.DataFrame) -> list[str]:
    if "id" in base.columns:
        return [str(v) for v in base["id"].tolist()]
    return [str(i) for i in range(1, len(base) + 1)]


def make_grid(
    base: pd.DataFrame, spec: str | Mapping[str, Any], *, max_rows: int = MAX_ROWS
) -> pd.DataFrame:
    """Every combination of the grid's values over each base row (base-row major).

    Rows are ``len(base) x product(len(values))``; ids are ``"{base id}-{n}"`` with n
    counting the combinations from 1; the grid's columns replace (or add to) the base's.
    """
    grid = parse_grid(spec)
    sizes = [len(v) for v in grid.values()]
    combos = math.prod(sizes)
    rows = len(base) * combos
    if rows > max_rows:
        raise ScenarioError(f"the grid makes {rows:,} scenarios, more than {max_rows:,}")
    repeated = base.iloc[np.repeat(np.arange(len(base)), combos)].reset_index(drop=True)
    position = np.tile(np.arange(combos), len(base))
    stride = combos
    for (column, values), size in zip(grid.items(), sizes, strict=True):
        stride //= size
        choices = _as_column(values)
        repeated[column] = choices[(position // stride) % size]
    numbers = np.tile(np.arange(1, combos + 1), len(base))
    ids = np.repeat(np.array(_base_ids(base), dtype=object), combos)
    repeated["id"] = [f"{b}-{n}" for b, n in zip(ids, numbers, strict=True)]
    return repeated[["id", *(c for c in repeated.columns if c != "id")]]


# ======================================================================= Monte Carlo

_DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "constant": ("value",),
    "uniform": ("low", "high"),
    "normal": ("mean", "sd"),
    "lognormal": ("mean", "sd"),
    "triangular": ("low", "mode", "high"),
    "poisson": ("lam",),
    "integers": ("low", "high"),
    "choice": (),
}


@dataclass(frozen=True)
class Distribution:
    """How one column is drawn."""

    column: str
    dist: str
    params: dict[str, float] = field(default_factory=dict)
    values: tuple[object, ...] = ()
    weights: tuple[float, ...] = ()
    low: float | None = None
    high: float | None = None
    places: int | None = None

    def describe(self) -> str:
        """The distribution as inline spec text."""
        if self.dist == "choice":
            args = [str(v) for v in self.values]
        else:
            args = [f"{self.params[p]:g}" for p in _DISTRIBUTIONS[self.dist]]
        for key, value in (("min", self.low), ("max", self.high), ("round", self.places)):
            if value is not None:
                args.append(f"{key}={value:g}")
        return f"{self.dist}({','.join(args)})"

    def draw(self, rng: np.random.Generator, size: int) -> np.ndarray:
        p = self.params
        if self.dist == "constant":
            return np.full(size, p["value"], dtype=np.float64)
        if self.dist == "choice":
            chosen = rng.choice(
                len(self.values), size=size, p=np.array(self.weights) if self.weights else None
            )
            return _as_column(list(self.values))[chosen]
        if self.dist == "uniform":
            x = rng.uniform(p["low"], p["high"], size)
        elif self.dist == "normal":
            x = rng.normal(p["mean"], p["sd"], size)
        elif self.dist == "lognormal":
            sigma2 = math.log1p((p["sd"] / p["mean"]) ** 2)
            x = rng.lognormal(math.log(p["mean"]) - sigma2 / 2, math.sqrt(sigma2), size)
        elif self.dist == "triangular":
            x = rng.triangular(p["low"], p["mode"], p["high"], size)
        elif self.dist == "poisson":
            x = rng.poisson(p["lam"], size).astype(np.float64)
        else:  # integers
            x = rng.integers(int(p["low"]), int(p["high"]), size, endpoint=True).astype(np.float64)
        if self.low is not None or self.high is not None:
            x = np.clip(x, self.low, self.high)
        kind = _kind(self.column)
        places = self.places if self.places is not None else _DEFAULT_PLACES.get(kind, 4)
        x = np.round(x, places)
        if places == 0:
            return x.astype(np.int64) if np.isfinite(x).all() else x
        return x


_CALL = re.compile(r"^\s*([a-z]+)\s*\((.*)\)\s*$", re.S)


def _distribution(column: str, spec: object) -> Distribution:
    kind = _kind(column)
    if isinstance(spec, str):
        match = _CALL.match(spec)
        if not match:
            raise ScenarioError(f"{column}: {spec!r} is not DIST(ARGS), e.g. uniform(0.2,0.5)")
        name, body = match.group(1), match.group(2)
        _refuse_thousands(column, body)
        args: list[object] = []
        options: dict[str, object] = {}
        for part in filter(None, (p.strip() for p in body.split(","))):
            key, sep, value = part.partition("=")
            if sep:
                options[key.strip()] = _value(value)
            else:
                args.append(_value(part))
        if name not in _DISTRIBUTIONS:
            known = ", ".join(_DISTRIBUTIONS)
            raise ScenarioError(f"{column}: unknown distribution {name!r} (known: {known})")
        if name == "choice":
            options["values"] = args
        else:
            options.update(zip(_DISTRIBUTIONS.get(name, ()), args, strict=False))
            if len(args) > len(_DISTRIBUTIONS.get(name, ())):
                raise ScenarioError(f"{column}: too many arguments for {name}()")
        spec = {"dist": name, **options}
    if not isinstance(spec, Mapping) or "dist" not in spec:
        raise ScenarioError(f"{column}: a distribution is DIST(ARGS) or an object with 'dist'")
    name = str(spec["dist"]).lower()
    if name not in _DISTRIBUTIONS:
        known = ", ".join(_DISTRIBUTIONS)
        raise ScenarioError(f"{column}: unknown distribution {name!r} (known: {known})")
    if name != "choice" and kind in (Kind.DATE, Kind.BOOL, Kind.CHOICE):
        raise ScenarioError(f"{column}: a {kind} column can only be drawn with choice(...)")
    params: dict[str, float] = {}
    for key in _DISTRIBUTIONS[name]:
        if key not in spec:
            raise ScenarioError(f"{column}: {name}() needs {', '.join(_DISTRIBUTIONS[name])}")
        try:
            params[key] = float(spec[key])
        except (TypeError, ValueError):
            raise ScenarioError(f"{column}: {key} must be a number") from None
    _check_params(column, name, params)
    values: tuple[object, ...] = ()
    weights: tuple[float, ...] = ()
    if name == "choice":
        values = tuple(spec.get("values") or ())
        if not values:
            raise ScenarioError(f"{column}: choice() needs at least one value")
        if spec.get("weights") is not None:
            weights = tuple(float(w) for w in spec["weights"])
            if len(weights) != len(values) or min(weights) < 0 or not math.isclose(sum(weights), 1):
                raise ScenarioError(f"{column}: weights must be one per value, >= 0, summing to 1")
    unknown = set(spec) - {"dist", "min", "max", "round", "values", "weights", *params}
    if unknown:
        raise ScenarioError(f"{column}: unknown option(s) {', '.join(sorted(unknown))}")
    low = None if spec.get("min") is None else float(spec["min"])
    high = None if spec.get("max") is None else float(spec["max"])
    places = None if spec.get("round") is None else int(spec["round"])
    found = Distribution(column, name, params, values, weights, low, high, places)
    _refuse_impossible(found)
    return found


def drawn_range(dist: Distribution) -> tuple[float, float] | None:
    """The lowest and highest value a numeric distribution draws, after its clip to
    ``[min, max]`` and its rounding (None for ``choice``)."""
    p = dist.params
    inf = math.inf
    if dist.dist == "choice":
        return None
    if dist.dist == "constant":
        low, high = p["value"], p["value"]
    elif dist.dist in ("uniform", "triangular", "integers"):
        low, high = p["low"], p["high"]
    elif dist.dist in ("normal", "lognormal") and p["sd"] == 0:
        low, high = p["mean"], p["mean"]
    elif dist.dist == "normal":
        low, high = -inf, inf
    else:  # lognormal, poisson
        low, high = 0.0, inf
    if dist.low is not None:  # np.clip: everything below min is min
        low, high = max(low, dist.low), max(high, dist.low)
    if dist.high is not None:
        low, high = min(low, dist.high), min(high, dist.high)
    places = dist.places if dist.places is not None else _DEFAULT_PLACES.get(_kind(dist.column), 4)
    return tuple(round(v, places) if math.isfinite(v) else v for v in (low, high))  # type: ignore[return-value]


def _refuse_impossible(dist: Distribution) -> None:
    """Refuse a numeric distribution none of whose draws is a valid value of its column
    (``pct=uniform(20,50)``: a percentage is a fraction from 0 to 1): every row of the run
    would fail with the same error; the message says why up front instead."""
    drawn = drawn_range(dist)
    if drawn is None:
        return
    rule = input_rule(dist.column)
    valid_low, valid_high = (float(v) for v in rule.numeric_bounds())
    low, high = drawn
    if low <= valid_high and high >= valid_low:
        return
    cite = rule.bound_citation or rule.citation
    message = (
        f"{dist.column}: {dist.describe()} draws values from {low:,.10g} to {high:,.10g},"
        f" none of them valid ({valid_low:,.10g} to {valid_high:,.10g}, {cite}):"
        " every row would fail"
    )
    if _kind(dist.column) in (Kind.FRACTION, Kind.GROWTH) and valid_low <= low / 100 <= valid_high:
        message += (
            f"; a percentage is a fraction: {low / 100:g} to {high / 100:g}"
            f" for {low:g}% to {high:g}%"
        )
    raise ScenarioError(message)


def _check_params(column: str, name: str, p: dict[str, float]) -> None:
    if not all(math.isfinite(v) for v in p.values()):
        raise ScenarioError(f"{column}: parameters must be finite numbers")
    bad = (
        (name in ("uniform", "integers") and p["low"] > p["high"])
        or (name in ("normal", "lognormal") and p["sd"] < 0)
        or (name == "lognormal" and p["mean"] <= 0)
        or (name == "triangular" and not p["low"] <= p["mode"] <= p["high"])
        or (name == "poisson" and p["lam"] < 0)
    )
    if bad:
        raise ScenarioError(f"{column}: invalid parameters for {name}(): {p}")


def parse_distributions(spec: str | Mapping[str, Any]) -> list[Distribution]:
    """A Monte Carlo spec (inline text, a spec file path, or a mapping)."""
    source: Any = spec
    if isinstance(spec, str):
        how, source = spec_text(spec)
        if how == "inline":
            source = {}
            for part in _split_top(spec):
                name, sep, body = part.partition("=")
                if not sep:
                    raise ScenarioError(f"Monte Carlo spec part {part!r} is not COLUMN=DIST(...)")
                source[name.strip()] = body.strip()
    if not isinstance(source, Mapping) or not source:
        raise ScenarioError("a Monte Carlo spec maps each column to a distribution")
    return [_distribution(str(column), value) for column, value in source.items()]


def _split_top(text: str) -> list[str]:
    """Split on ';' outside parentheses."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if char == ";" and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _stream(seed: int, column: str) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(column.encode())]))


def monte_carlo(
    base: pd.DataFrame,
    spec: str | Mapping[str, Any] | Sequence[Distribution],
    n: int,
    seed: int,
    *,
    max_rows: int = MAX_ROWS,
) -> pd.DataFrame:
    """``n`` draws of the spec's columns over each base row (base-row major).

    Ids are ``"{base id}-{draw}"`` (draw from 1). The same seed and spec always give the
    same table.
    """
    if n < 1:
        raise ScenarioError("the number of Monte Carlo draws must be at least 1")
    if seed < 0:
        raise ScenarioError("the seed must be a non-negative integer")
    dists = (
        list(spec)
        if isinstance(spec, Sequence) and not isinstance(spec, str)
        else parse_distributions(spec)
    )
    rows = len(base) * n
    if rows > max_rows:
        raise ScenarioError(f"the draw makes {rows:,} scenarios, more than {max_rows:,}")
    repeated = base.iloc[np.repeat(np.arange(len(base)), n)].reset_index(drop=True)
    for dist in dists:
        repeated[dist.column] = dist.draw(_stream(seed, dist.column), rows)
    draws = np.tile(np.arange(1, n + 1), len(base))
    ids = np.repeat(np.array(_base_ids(base), dtype=object), n)
    repeated["id"] = [f"{b}-{d}" for b, d in zip(ids, draws, strict=True)]
    return repeated[["id", *(c for c in repeated.columns if c != "id")]]


# ======================================================================= a portfolio


def example_portfolio(n: int, seed: int = 0) -> pd.DataFrame:
    """A synthetic portfolio of ``n`` scenarios across all four sections (for benchmarks
    and demonstrations; the figures are plausible, not data).

    Each row: a BEIP grant with a 1-10 year term (withholdings from year 1 with growth,
    new employees, some at the $50,000 cap, some pre-July-2003 agreements, some smart
    growth); a conversion of an accrual 2008-2025 (some approved late) applied against
    five tax years' liabilities; and an ERTC over four annual privilege periods.
    """
    rng = np.random.default_rng(seed)
    columns: dict[str, Any] = {"id": np.arange(1, n + 1)}
    for found in PROGRAMS:  # each program's columns, drawn in the registry's order
        if found.has("scenarios"):
            columns.update(found.part("scenarios").example_columns(rng, n))
    return pd.DataFrame(columns)
