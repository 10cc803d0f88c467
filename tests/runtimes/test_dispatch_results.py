"""What Excel receives from the Office.js dispatch, with nj_incentives' quick preparation of
a result's cells and with xlwings' own (issue 35).

:func:`nj_incentives.runtimes.serving.quick_result_cells` (installed by importing
``nj_incentives.excel``) answers most result cells in xlwings' row loop
(``CleanDataForWriteStage``) instead of calling xlwings' preparation for each. The tests
below hold the whole answer of ``xlwings.server.custom_functions_call`` to xlwings' own,
cell by cell: every catalog function's documented example, a scenario table of the
vectorized runner and one of the small-table path, under the Office.js runtimes 1.4 (dates
as FormattedNumber), 1.3 and without a date format (dates as serials). Equal as JSON text
(so an int stays an int, 5 and not 5.0, and a blank stays "") and of the same Python types
(Pyodide hands Excel a JS value made from the Python type). The Lite-like path (a stand-in
``pyodide.ffi``) changes only how xlwings reads arguments, not this stage; real Pyodide
runs the same calls with the quick stage in tests/runtimes/test_runtime_pyodide.py (the
same JSON as CPython).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import xlwings.server
from hypothesis import given, settings
from hypothesis import strategies as st
from xlwings.conversion import standard
from xlwings.pro import _xlofficejs

from nj_incentives.runtimes import serving
from nj_incentives.runtimes import xlwings_classic as excel
from officejs import office_args, payload

pytestmark = pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js path")

#: (runtime, date format) of the call: dates as FormattedNumber, or as serials
OPTIONS = [("1.4", "M/d/yyyy"), ("1.4", None), ("1.3", "M/d/yyyy")]

#: NJ_SCENARIOS tables beside the catalog's example: 12 rows (more than SMALL_ROWS: the
#: vectorized runner's frame; one row refused) and 3 rows of every section (the small path)
_HEADER = ["id", "withholdings_3", "agreement_date", "pct", "withholdings_1", "withholdings_2",
           "new_employees_1", "new_employees_2", "new_employees_3", "accrual_year",
           "conversion_amount"]  # fmt: skip
_EVERY = ["agreement_date", "pct", "term", "withholdings_1", "withholdings_growth",
          "new_employees_1", "accrual_year", "conversion_amount",
          *[f"tax_liability_{year}" for year in range(2017, 2026)],
          "operations_start", "year1_new", "year2_new", "tax_type", "periods", "period_end_1",
          "liability_1", "minimum_tax_1", "liability_growth"]  # fmt: skip
_ROW = [40909, 0.5, 100000, 110000, 10, 11, 12, 2012]
_EVERY_ROW = [40909, 0.5, 10, 100000, 0.03, 10, 2012, 1250000, *[90000] * 9, 44927, 20, 10,
              "cbt", 5, 45291, 80000, 2000]  # fmt: skip
TABLES = {
    "runner": [_HEADER]
    + [[f"r{i}", None if i == 5 else 120000, *_ROW, 1250000 + i] for i in range(12)],
    "small": [_EVERY] + [[*_EVERY_ROW, 0.05 * i] for i in range(3)],
}


def _calls() -> list[tuple[str, list[object]]]:
    found: list[tuple[str, list[object]]] = [
        (name, office_args(name, entry.example)) for name, entry in excel.CATALOG.items()
    ]
    found += [("NJ_SCENARIOS", [table]) for table in TABLES.values()]
    return found


def _answer(name: str, args: list[object], runtime: str, date_format: str | None) -> Any:
    data = {**payload(name, args), "runtime": runtime}
    if date_format is None:
        del data["date_format"]
    try:
        return asyncio.run(xlwings.server.custom_functions_call(data, excel))
    except Exception as error:  # the same refusal either way
        return f"{type(error).__name__}: {error}"


def _types(value: object) -> object:
    if isinstance(value, list):
        return [_types(item) for item in value]
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    return type(value).__name__


@pytest.mark.parametrize(("runtime", "date_format"), OPTIONS)
def test_every_example_hands_excel_what_xlwings_own_preparation_does(
    monkeypatch: pytest.MonkeyPatch, runtime: str, date_format: str | None
) -> None:
    calls = _calls()
    quick = [_answer(name, args, runtime, date_format) for name, args in calls]
    # xlwings' own stage and preparation, as nj_incentives.excel found them
    monkeypatch.setattr(standard.CleanDataForWriteStage, "__call__",
                        serving.REPLACED["CleanDataForWriteStage"])  # fmt: skip
    monkeypatch.setattr(_xlofficejs.Engine, "prepare_xl_data_element",
                        staticmethod(serving.REPLACED["prepare_xl_data_element"]))  # fmt: skip
    own = [_answer(name, args, runtime, date_format) for name, args in calls]
    for (name, _), mine, theirs in zip(calls, quick, own, strict=True):
        assert json.dumps(mine, sort_keys=True) == json.dumps(theirs, sort_keys=True), name
        assert _types(mine) == _types(theirs), name
    # what the comparison covers: blanks, dates, text, whole numbers and floats
    kinds = {kind for answer in quick for kind in json.dumps(_types(answer)).split('"')}
    assert {"str", "int", "float", "bool"} <= kinds
    dated = any("FormattedNumber" in json.dumps(answer) for answer in quick)  # the dates
    assert dated is (runtime == "1.4" and date_format is not None)
    assert any("" in row for answer in quick if isinstance(answer, list) for row in answer)


def test_no_cell_of_an_example_costs_a_call_of_the_preparation() -> None:
    # the work counted, not timed: every cell the catalog's examples and the scenario
    # tables hand back (text, numbers, booleans, blanks, dates) is answered in the row's
    # loop; xlwings' stage called the preparation once a cell, the quick stage before
    # issue 35's second step once a blank or a date (an NJ_SCENARIOS table: a third of
    # its cells)
    import sys

    code = _xlofficejs.Engine.prepare_xl_data_element.__code__
    called: list[str] = []
    calls = _calls()

    def profile(frame: Any, event: str, arg: object) -> None:
        if event == "call" and frame.f_code is code:
            called.append(name)

    cells = 0
    for name, args in calls:
        sys.setprofile(profile)
        try:
            answer = _answer(name, args, "1.4", "M/d/yyyy")
        finally:
            sys.setprofile(None)
        cells += sum(len(row) for row in answer) if isinstance(answer, list) else 1
    assert called == []
    assert cells > 1_000  # the examples' cells: about 1,400


@settings(max_examples=80, deadline=None)
@given(
    name=st.sampled_from(list(excel.CATALOG)),
    keys=st.lists(st.integers(0, 4), max_size=3),
    absent=st.booleans(),
)
def test_the_special_argument_step_answers_as_xlwings_does(
    name: str, keys: list[int], absent: bool
) -> None:
    # issue 35: serving.quick_special_args answers at once for an NJ_* function whose
    # hints (worked out once) meet none of the types a call injects; xlwings' own step
    # evaluates the hints on every call. The same arguments, or the same error, for calls
    # that inject nothing, other types, or the function's own hints (a switch's Literal)
    from xlwings.pro import udfs_officejs
    from xlwings.pro.caller import Caller

    function = getattr(excel, name)
    own = sorted(getattr(function, serving.SPECIAL_HINTS), key=repr)
    choices: list[object] = [Caller, None, str, own[0], own[-1]]
    injected = None if absent else {choices[key]: f"value {key}" for key in keys}
    args = [f"cell {i}" for i in range(len(function.__xlfunc__["args"]))]
    outcomes = []
    for step in (udfs_officejs.provide_values_for_special_args,
                 serving.REPLACED["provide_values_for_special_args"]):  # fmt: skip
        try:
            outcomes.append(step(function, list(args), injected))
        except Exception as error:  # the same refusal either way
            outcomes.append((type(error), str(error)))
    assert outcomes[0] == outcomes[1]
