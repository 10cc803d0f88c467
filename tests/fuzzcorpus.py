"""Hostile inputs for every catalog function, as JSON-serialisable Office.js payloads.

Reusable outside pytest: the fuzz suite (tests/runtimes/test_fuzz.py) replays it on CPython through
``xlwings.server.custom_functions_call`` and through the plain callables, and the same
calls can be replayed in a real runtime (Pyodide under Node) by dumping them with
``python tests/fuzzcorpus.py > calls.json``: each call is
``{"func_name": ..., "args": [...], "invalid": bool}`` where ``args`` holds one entry per
parameter as Office.js sends it (a 2-D list, or None when omitted; a function with
repeated arguments takes a list of such entries as its last one), and ``invalid`` says
the call must be refused with an input error (no number).

The corpus holds the exact inputs issue 11 lists (``1e27``, ``1e30``, ``1e308``,
``"1e400"``, ``"1e-999999999"``, ``"1e10000000"``, ``"1e1000000"``, ``"1,0,0"``,
``"1,5"``, ``"1.234,56"``, ``"2010-01-01 (approx.)"``, TRUE/FALSE where a number is
expected, ``#N/A``, a date late in 9999, a bare ``\\r`` before a formula) and more of their
kind. Only the standard library and ``nj_incentives.excel`` are imported.

:func:`check_outcome` holds the assertions, for whichever runtime made the call: the
CPython suite and the Pyodide replay (tests/runtimes/test_runtime_pyodide.py) apply the same ones.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import random
import re
from collections.abc import Iterator
from typing import Any

#: A call that takes this long is a runaway, not a slow call: the defects the corpus keeps
#: out took 37 s ("1e1000000" hours) to forever ("1e-999999999"), while a call takes well
#: under 10 ms on CPython and under 30 ms in Pyodide (tests/benchmarks/test_fuzz_bench.py
#: reports the figures). Measured as CPU time (``time.process_time``: another process's
#: load does not count; in Pyodide it is the wall clock), and generous: a loaded 2-core
#: machine passes it with a margin of hundreds (a 2 s wall-clock budget failed at 3.64 s).
CALL_BUDGET_S = 10.0
#: "argument = value: rule (citation)": the citation is the last parenthesised text.
MESSAGE = re.compile(r"^(?P<argument>[^=]+?) = .*: .+ \((?P<citation>.+)\)$", re.DOTALL)

#: Values no argument of any function accepts: every call holding one must be an input
#: error (value, why).
ALWAYS_INVALID: tuple[tuple[object, str], ...] = (
    ("1e27", "magnitude: issue 11, one value aborts a whole batch"),
    (1e27, "magnitude as a number"),
    (1e30, "magnitude"),
    (1e308, "magnitude near the float limit"),
    (-1e308, "negative magnitude"),
    ("1e400", "overflows a float: NJ_BEIP_CREDIT_REFUND returned inf"),
    ("-1e400", "overflows a float, negative"),
    ("1e-999999999", "unbounded CPU from short text (hours in the ERTC example)"),
    ("1e10000000", "unbounded CPU: NJ_ERTC_FTE"),
    ("1e1000000", "unbounded CPU: NJ_ERTC_NEW_POSITIONS took 37 s"),
    ("1E+999999", "upper-case exponent"),
    ("1,0,0", "commas deleted: was read as 100"),
    ("1,5", "locale-ambiguous: was read as 15"),
    ("1.234,56", "locale-ambiguous: was read as 1.23456"),
    ("12,34", "a comma that separates no thousands"),
    ("1_000", "underscores: Python syntax, not a number in a cell"),
    ("2010-01-01 (approx.)", "trailing text after a date: was accepted"),
    ("2024-13-01", "no such month"),
    ("9999-12-31", "a date late in 9999: unexpected ValueError"),
    ("#N/A", "an error cell"),
    ("#DIV/0!", "an error cell"),
    ("#VALUE! withholdings = x: y (z)", "the error text of a failed NJ_ function"),
    ("NaN", "not a number, as text"),
    ("nan", "not a number, lower case"),
    ("inf", "infinity as text"),
    ("-Infinity", "negative infinity as text"),
    ("sNaN", "signalling NaN as text"),
    ("\r=cmd|' /C calc'!A0", "a formula after a carriage return"),
    ("=1+1", "a formula as text"),
    ("9" * 5000, "5,000 digits"),
    ("0x10", "hexadecimal"),
    ("١٢", "Arabic-Indic digits"),
)

#: Values some arguments accept and others refuse: a call holding one must give a
#: result or an input error, never anything else.
SOMETIMES_VALID: tuple[object, ...] = (
    True,
    False,
    0,
    1,
    2,
    -1,
    0.5,
    25.005,
    0.30000000000000004,
    1e-300,
    5e-324,
    99999999999999.99,
    9999999999999.99,
    2958465,
    2958465.5,
    60,
    61,
    "",
    " ",
    "  7 ",
    "1,234,567.89",
    "-0",
    "0.000000001",
    "2024-01-01",
    "2024-01-01T12:00:00",
    "2024-02-29",
    "cbt",
    "INSURANCE",
    "withholdings",
    "partners",
    "yes",
    "law",
    "NJ_BEIP_GRANT",
    # assigned in Unicode 15 (CJK Ext. H): repr escapes it where the Unicode database is
    # older (CPython 3.11: 14), not in Pyodide's 3.14 (16); the runtimes must still agree
    "\U00031adf",
    "1\U00031adf",
    None,
)


def example_args(entry: Any) -> list[object]:
    """A function's example as plain cells, one per parameter (None when omitted)."""
    count = len(entry.arguments)
    values = list(entry.example[:count]) + [None] * (count - len(entry.example[:count]))
    return [_plain(value) for value in values]


def _plain(value: object) -> object:
    """A cell as JSON holds it: dates as ISO text, float whole numbers as ints."""
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def office_arg(value: object) -> list[list[object]] | None:
    """One argument as Office.js sends it: a 2-D list (a flat list is a row)."""
    if value is None:
        return None
    if isinstance(value, list):
        rows = value if value and isinstance(value[0], list) else [value]
        return [list(row) for row in rows]
    return [[value]]


def office_args(entry: Any, values: list[object], extras: list[object]) -> list[object]:
    """All arguments of a call as Office.js sends them (repeated ones as one list)."""
    shaped: list[object] = [office_arg(value) for value in values]
    if entry.vararg is not None:
        shaped.append([office_arg(value) for value in extras])
    return shaped


def _place(example: object, value: object, rng: random.Random) -> object:
    """``value`` put where ``example`` stood: in one cell of a range, or the whole cell."""
    if isinstance(example, list) and example:
        copy = json.loads(json.dumps(example))
        if isinstance(copy[0], list):
            row = rng.randrange(len(copy))
            copy[row][rng.randrange(len(copy[row]))] = value
        else:
            copy[rng.randrange(len(copy))] = value
        return copy
    return value


def corpus_calls(catalog: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every function x every argument x every corpus value, deterministically.

    NJ_EXPLAIN explains NJ_BEIP_GRANT with the value in each of its arguments; the
    table of NJ_SCENARIOS gets the value in one of its data cells.
    """
    rng = random.Random(11)
    for name, entry in catalog.items():
        example = example_args(entry)
        extras = [_plain(value) for value in entry.example[len(entry.arguments) :]]
        for index in range(len(example) + len(extras)):
            for value, invalid in [(v, True) for v, _ in ALWAYS_INVALID] + [
                (v, False) for v in SOMETIMES_VALID
            ]:
                values, more = list(example), list(extras)
                if index < len(values):
                    if name == "NJ_SCENARIOS":
                        table = json.loads(json.dumps(values[0]))
                        table[1][rng.randrange(1, len(table[1]))] = value
                        values[0] = table
                    else:
                        values[index] = _place(values[index], value, rng)
                    if name == "NJ_EXPLAIN" and index == 0:
                        invalid = True  # no corpus value names a function with steps...
                        if value in ("NJ_BEIP_GRANT",):
                            invalid = False
                else:
                    more[index - len(values)] = value
                yield {
                    "func_name": name,
                    "args": office_args(entry, values, more),
                    # NJ_INPUTS_HASH hashes any value (a refused one as "?" and its
                    # text): only its kinds can be invalid
                    "invalid": invalid
                    and name != "NJ_SCENARIOS"
                    and not (name == "NJ_INPUTS_HASH" and index > 0)
                    and (name, index) not in FREE_TEXT,
                    "scenarios_row_error": invalid and name == "NJ_SCENARIOS",
                }


#: Arguments that are text for a message, where any value is taken as its text: NJ_INPUT's
#: and NJ_INPUT_REFUSED's input name, citation, rule (and its choices, unused by the
#: example's kind); and NJ_INPUT_REFUSED's value, whose refusal is its result (the text
#: naming the cell), not an error
FREE_TEXT = frozenset(
    {(name, index) for name in ("NJ_INPUT", "NJ_INPUT_REFUSED") for index in (1, 5, 6, 7)}
    | {("NJ_INPUT_REFUSED", 2)}
)


def random_value(rng: random.Random) -> object:
    """One cell value of any JSON kind, with magnitudes across the whole float range."""
    pick = rng.randrange(8)
    if pick == 0:
        return rng.choice(ALWAYS_INVALID)[0]
    if pick == 1:
        return rng.choice(SOMETIMES_VALID)
    if pick == 2:
        return rng.randint(-(10**6), 10**7)
    if pick == 3:
        return rng.uniform(-1, 1) * 10.0 ** rng.randint(-320, 308)
    if pick == 4:
        return round(rng.uniform(0, 2_000_000), rng.randint(0, 4))
    if pick == 5:
        return rng.choice(["", "1e", "e5", "1e+", "--1", "+", ".", "1.", ".5", "١", "١٢٣"])
    if pick == 6:
        return f"{rng.uniform(0, 1e6):.{rng.randint(0, 6)}f}"
    return f"{rng.randint(1890, 2300)}-{rng.randint(0, 13):02d}-{rng.randint(0, 32):02d}"


def random_calls(catalog: dict[str, Any], count: int, seed: int = 11) -> Iterator[dict[str, Any]]:
    """``count`` calls mutating one or two arguments of a function's example at random."""
    rng = random.Random(seed)
    names = sorted(catalog)
    for _ in range(count):
        name = rng.choice(names)
        entry = catalog[name]
        values = example_args(entry)
        extras = [_plain(value) for value in entry.example[len(entry.arguments) :]]
        slots = len(values) + len(extras)
        for _ in range(rng.randint(1, 2)):
            index = rng.randrange(slots)
            value = random_value(rng)
            if index < len(values):
                values[index] = _place(values[index], value, rng)
            else:
                extras[index - len(values)] = value
        yield {"func_name": name, "args": office_args(entry, values, extras), "invalid": False}


def plain_args(entry: Any, args: list[object]) -> list[object]:
    """An Office.js argument list as the plain callable's positional arguments."""
    values = list(args[: len(entry.arguments)])
    if entry.vararg is not None and len(args) > len(entry.arguments):
        values += list(args[len(entry.arguments)] or [])
    while values and values[-1] is None:
        values.pop()
    return values


def numbers(result: object) -> Iterator[object]:
    """Every number in a result (cells, rows, mappings), booleans left out."""
    if isinstance(result, list):
        for item in result:
            yield from numbers(item)
    elif isinstance(result, dict):
        yield from numbers(list(result.values()))
    elif isinstance(result, (int, float)) and not isinstance(result, bool):
        yield result


def check_outcome(call: dict[str, Any], outcome: dict[str, Any], elapsed: float) -> None:
    """The fuzz suite's assertions on one Office.js call's outcome, in any runtime.

    ``outcome`` is ``{"result": cells}`` or ``{"error": exception type, "message": text}``
    (tests/js/pyodide_calls.py's form); ``elapsed`` the call's CPU seconds. Only an
    input error (XlwingsError) naming an argument and a citation, never "unexpected";
    no number for an invalid call; every result finite and valid JSON; no runaway call;
    NJ_SCENARIOS keeps every row (rows out = rows in) and marks a bad one.
    """
    name, args = call["func_name"], call["args"]
    assert elapsed < CALL_BUDGET_S, (name, args, elapsed)
    if "error" in outcome:
        message = outcome["message"]
        assert outcome["error"] == "XlwingsError", (name, args, outcome)
        assert "unexpected" not in message, (name, args, message)
        match = MESSAGE.match(message)
        assert match is not None, (name, args, message)
        assert match["argument"].strip(), (name, args, message)
        assert match["citation"].strip(), (name, args, message)
        return
    result = outcome["result"]
    assert all(math.isfinite(n) for n in numbers(result)), (name, args, result)  # type: ignore[arg-type]
    json.dumps(result, allow_nan=False)  # valid JSON (no inf, no NaN, nothing else odd)
    assert not call.get("invalid"), (name, args, result)
    if name == "NJ_SCENARIOS":
        table = args[0]
        header, *rows = result
        assert len(rows) == len(table) - 1, (call, result)  # rows out = rows in
        if call.get("scenarios_row_error"):
            error = header.index("error")
            assert all(row[error] for row in rows), (call, result)


if __name__ == "__main__":  # pragma: no cover - a tool for replaying the corpus elsewhere
    from nj_incentives.runtimes import xlwings_classic as excel

    calls = list(corpus_calls(excel.CATALOG)) + list(random_calls(excel.CATALOG, 5000))
    print(json.dumps(calls))
