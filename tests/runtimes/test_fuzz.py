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
- no call runs away (CPU time under fuzzcorpus.CALL_BUDGET_S, a generous bound: no test
  asserts wall time); NJ_SCENARIOS keeps every row (rows out = rows in).
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
import xlwings as xw
import xlwings.server
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import fuzzcorpus
from nj_incentives.core.common import InputError
from nj_incentives.runtimes import xlwings_classic as excel
from officejs import payload

pytestmark = pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js path")

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


def office(name: str, args: list[object]) -> dict[str, Any]:
    """The outcome through the Office.js dispatch, in tests/js/pyodide_calls.py's form:
    ``{"result": cells}``, or ``{"error": "XlwingsError", "message": text}`` (any other
    exception propagates: a defect)."""
    call = xlwings.server.custom_functions_call(payload(name, args), excel)
    try:
        return {"result": _LOOP.run_until_complete(call)}
    except xw.XlwingsError as error:
        return {"error": type(error).__name__, "message": str(error)}


def plain(name: str, args: list[object]) -> tuple[str, Any]:
    """("ok", result) or ("error", InputError) through the plain callable."""
    entry = excel.CATALOG[name]
    try:
        return "ok", excel.FUNCTIONS[name](*fuzzcorpus.plain_args(entry, args))
    except InputError as error:
        return "error", error


def check_office(call: dict[str, Any]) -> None:
    """fuzzcorpus.check_outcome's assertions (the Pyodide replay applies the same)."""
    started = time.process_time()
    outcome = office(call["func_name"], call["args"])
    fuzzcorpus.check_outcome(call, outcome, time.process_time() - started)


def check_plain(call: dict[str, Any]) -> None:
    name, args = call["func_name"], call["args"]
    started = time.process_time()
    status, result = plain(name, args)
    elapsed = time.process_time() - started
    assert elapsed < fuzzcorpus.CALL_BUDGET_S, (name, args, elapsed)
    if status == "error":
        assert result.argument, (name, args, str(result))
        assert result.citation, (name, args, str(result))
        return
    assert all(math.isfinite(n) for n in fuzzcorpus.numbers(result)), (name, args, result)  # type: ignore[arg-type]
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
                call["invalid"] = (
                    name != "NJ_SCENARIOS" and (name, index) not in fuzzcorpus.FREE_TEXT
                )
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


@st.composite
def fuzz_calls(draw: st.DrawFn) -> dict[str, Any]:
    """One call: a function's example with one argument replaced by a drawn cell."""
    name = draw(st.sampled_from(sorted(excel.CATALOG)))
    entry = excel.CATALOG[name]
    values = fuzzcorpus.example_args(entry)
    index = draw(st.integers(min_value=0, max_value=max(0, len(values) - 1)))
    cell = draw(_CELL)
    if values and name != "NJ_SCENARIOS":
        values[index] = cell if not isinstance(values[index], list) else [cell]
    extras = [fuzzcorpus._plain(value) for value in entry.example[len(entry.arguments) :]]
    return {"func_name": name, "args": fuzzcorpus.office_args(entry, values, extras)}


HYPOTHESIS_EXAMPLES = 400
_HYPOTHESIS = settings(
    max_examples=HYPOTHESIS_EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_HYPOTHESIS
@given(call=fuzz_calls())
def test_hypothesis_over_every_function(call: dict[str, Any]) -> None:
    check_office(call)
    check_plain(call)


def hypothesis_calls() -> list[dict[str, Any]]:
    """The calls hypothesis draws for the test above (derandomized: the same each run),
    collected for replaying in Pyodide (tests/runtimes/test_runtime_pyodide.py)."""
    drawn: list[dict[str, Any]] = []

    @settings(_HYPOTHESIS, phases=[Phase.generate])
    @given(call=fuzz_calls())
    def collect(call: dict[str, Any]) -> None:
        drawn.append(call)

    collect()
    return drawn


@pytest.mark.parametrize(
    ("call", "outcome", "seconds"),
    [
        ({"func_name": "NJ_TAX_YEAR", "args": []}, {"error": "TypeError", "message": "x"}, 0.0),
        (
            {"func_name": "NJ_TAX_YEAR", "args": []},
            {"error": "XlwingsError", "message": "NJ_TAX_YEAR: unexpected ValueError"},
            0.0,
        ),
        (
            {"func_name": "NJ_TAX_YEAR", "args": []},
            {"error": "XlwingsError", "message": "period_end = 'x': not a date"},
            0.0,
        ),
        ({"func_name": "NJ_TAX_YEAR", "args": [], "invalid": True}, {"result": [[2024]]}, 0.0),
        ({"func_name": "NJ_TAX_YEAR", "args": []}, {"result": [[math.inf]]}, 0.0),
        (  # a runaway: past the generous bound (the defects took 37 s and more)
            {"func_name": "NJ_TAX_YEAR", "args": []},
            {"result": [[2024]]},
            fuzzcorpus.CALL_BUDGET_S + 1,
        ),
        (
            {"func_name": "NJ_SCENARIOS", "args": [[["id"], ["A"], ["B"]]]},
            {"result": [["id", "error"], ["A", ""]]},
            0.0,
        ),
    ],
    ids=["other type", "unexpected", "no citation", "number", "inf", "slow", "row lost"],
)
def test_the_checks_can_fail(call: dict[str, Any], outcome: dict[str, Any], seconds: float) -> None:
    """What the fuzz suite (both runtimes) asserts refuses each kind of defect."""
    with pytest.raises(AssertionError):
        fuzzcorpus.check_outcome(call, outcome, seconds)
    good = {"error": "XlwingsError", "message": "period_end = 'x': not a date (N.J.S.A. 1)"}
    fuzzcorpus.check_outcome({"func_name": "NJ_TAX_YEAR", "args": []}, good, 0.0)
