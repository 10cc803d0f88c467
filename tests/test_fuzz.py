"""Every unexpected exception is a defect: fuzzing every catalog function, both paths.

The calls come from tests/fuzzcorpus.py (the exact hostile inputs of issue 11, and
random mutations of each function's example, seeded) and from hypothesis (derandomized,
so CI is reproducible). Each call goes through xlwings' Office.js dispatch
(``xlwings.server.custom_functions_call``) and through the plain callable
(``excel.FUNCTIONS``, raising). The assertions:

- the only failure is an input error naming an argument and a citation (never
  "unexpected", never another exception type);
- a call holding an always-invalid value gives no number;
- every result is finite and valid JSON (Office.js sends JSON: inf/NaN are not);
- each call is bounded in time; NJ_SCENARIOS keeps every row (rows out = rows in).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
import xlwings as xw
import xlwings.server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzcorpus
from nj_incentives import excel
from nj_incentives.law.common import InputError
from officejs import payload

pytestmark = pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js path")

#: A call may take this long on a loaded 2-core machine (typical: well under 10 ms).
CALL_BUDGET_S = 2.0
#: "argument = value: rule (citation)": the citation is the last parenthesised text.
_MESSAGE = re.compile(r"^(?P<argument>[^=]+?) = .*: .+ \((?P<citation>.+)\)$", re.DOTALL)

_LOOP = asyncio.new_event_loop()


@pytest.fixture(autouse=True, scope="module")
def _no_pyodide() -> Iterator[None]:
    """xlwings looks for ``pyodide.ffi`` on every argument of every call; outside Pyodide
    the failed import scans sys.path each time (most of a call's cost on a busy disk).
    Marking the module absent makes the same ImportError immediate."""
    saved = sys.modules.get("pyodide", _ABSENT)
    sys.modules["pyodide"] = None  # type: ignore[assignment]
    yield
    if saved is _ABSENT:
        del sys.modules["pyodide"]
    else:
        sys.modules["pyodide"] = saved  # type: ignore[assignment]


_ABSENT = object()


def office(name: str, args: list[object]) -> tuple[str, Any]:
    """("ok", result) or ("error", message) through the Office.js dispatch."""
    call = xlwings.server.custom_functions_call(payload(name, args), excel)
    try:
        return "ok", _LOOP.run_until_complete(call)
    except xw.XlwingsError as error:
        return "error", str(error)


def plain(name: str, args: list[object]) -> tuple[str, Any]:
    """("ok", result) or ("error", InputError) through the plain callable."""
    entry = excel.CATALOG[name]
    try:
        return "ok", excel.FUNCTIONS[name](*fuzzcorpus.plain_args(entry, args))
    except InputError as error:
        return "error", error


def _numbers(result: object) -> Iterator[object]:
    if isinstance(result, list):
        for item in result:
            yield from _numbers(item)
    elif isinstance(result, dict):
        yield from _numbers(list(result.values()))
    elif isinstance(result, (int, float)) and not isinstance(result, bool):
        yield result


def check_office(call: dict[str, Any]) -> None:
    name, args = call["func_name"], call["args"]
    started = time.perf_counter()
    status, result = office(name, args)
    elapsed = time.perf_counter() - started
    assert elapsed < CALL_BUDGET_S, (name, args, elapsed)
    if status == "error":
        assert "unexpected" not in result, (name, args, result)
        match = _MESSAGE.match(result)
        assert match is not None, (name, args, result)
        assert match["citation"].strip(), (name, args, result)
        return
    json.dumps(result, allow_nan=False)  # valid JSON: no inf, no NaN
    assert all(math.isfinite(n) for n in _numbers(result)), (name, args, result)  # type: ignore[arg-type]
    assert not call.get("invalid"), (name, args, result)
    if name == "NJ_SCENARIOS":
        _check_scenarios(call, result)


def _check_scenarios(call: dict[str, Any], result: Any) -> None:
    table = call["args"][0]
    header, *rows = result
    assert len(rows) == len(table) - 1, (call, result)  # rows out = rows in
    if call.get("scenarios_row_error"):
        error = header.index("error")
        assert all(row[error] for row in rows), (call, result)


def check_plain(call: dict[str, Any]) -> None:
    name, args = call["func_name"], call["args"]
    started = time.perf_counter()
    status, result = plain(name, args)
    elapsed = time.perf_counter() - started
    assert elapsed < CALL_BUDGET_S, (name, args, elapsed)
    if status == "error":
        assert result.argument, (name, args, str(result))
        assert result.citation, (name, args, str(result))
        return
    assert all(math.isfinite(n) for n in _numbers(result)), (name, args, result)  # type: ignore[arg-type]
    assert not call.get("invalid"), (name, args, result)


CORPUS = list(fuzzcorpus.corpus_calls(excel.CATALOG))
RANDOM = list(fuzzcorpus.random_calls(excel.CATALOG, 4600))


def test_the_corpus_covers_every_function_and_the_issue_inputs() -> None:
    assert {call["func_name"] for call in CORPUS} == set(excel.CATALOG)
    values = {value for value, _ in fuzzcorpus.ALWAYS_INVALID if isinstance(value, str)}
    assert {"1e27", "1e400", "1e-999999999", "1,5", "1.234,56", "1,0,0"} <= values
    assert len(CORPUS) + len(RANDOM) >= 10_000


def test_corpus_through_office_js() -> None:
    for call in CORPUS:
        check_office(call)


def test_corpus_through_the_plain_callables() -> None:
    for call in CORPUS:
        check_plain(call)


def test_random_mutations_through_office_js() -> None:
    for call in RANDOM:
        check_office(call)


def test_random_mutations_through_the_plain_callables() -> None:
    for call in RANDOM:
        check_plain(call)


def test_non_json_values_through_the_plain_callables() -> None:
    # inf and NaN cannot come through Office.js (JSON), but a Python caller can pass them
    from decimal import Decimal

    for name, entry in excel.CATALOG.items():
        example = fuzzcorpus.example_args(entry)
        for index in range(len(example)):
            for value in (math.inf, -math.inf, math.nan, Decimal("NaN"), Decimal("-Infinity")):
                args = list(example)
                args[index] = value
                call = {"func_name": name, "args": fuzzcorpus.office_args(entry, args, [])}
                call["invalid"] = name != "NJ_SCENARIOS"
                if name == "NJ_EXPLAIN" and index == 0:
                    call["invalid"] = True
                check_plain(call)


_CELL = st.one_of(
    st.sampled_from([value for value, _ in fuzzcorpus.ALWAYS_INVALID]),
    st.sampled_from(fuzzcorpus.SOMETIMES_VALID),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.text(max_size=30),
    st.booleans(),
)


@settings(
    max_examples=400,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(name=st.sampled_from(sorted(excel.CATALOG)), data=st.data())
def test_hypothesis_over_every_function(name: str, data: st.DataObject) -> None:
    entry = excel.CATALOG[name]
    values = fuzzcorpus.example_args(entry)
    index = data.draw(st.integers(min_value=0, max_value=max(0, len(values) - 1)))
    cell = data.draw(_CELL)
    if values and name != "NJ_SCENARIOS":
        values[index] = cell if not isinstance(values[index], list) else [cell]
    extras = [fuzzcorpus._plain(value) for value in entry.example[len(entry.arguments) :]]
    call = {"func_name": name, "args": fuzzcorpus.office_args(entry, values, extras)}
    check_office(call)
    check_plain(call)
