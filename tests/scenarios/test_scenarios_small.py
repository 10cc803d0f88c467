"""NJ_SCENARIOS's small tables: each row through the scalar core gives the very cells of
the vectorized runner (issue 35).

``scenarios_table`` runs a table of at most ``SMALL_ROWS`` rows row by row through the
scalar core (``scenarios.scalar.run_row``) instead of starting the vectorized runner, with
the layout (the result columns: periods, conversion tax years) read by the runner's own
readings (``runner.layout_of_columns``). The property: for random tables as a worksheet
range hands them over (a header row, then numbers, text, booleans, dates as serial
numbers or date objects, blanks as None, "" or spaces; clean, awkward and bad cells, so
that rows carry error messages), both paths give the same header and the same cells:
values, types, blanks and messages.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nj_incentives.core.cells import to_cell_values
from nj_incentives.core.scenario_sections import SCALE
from nj_incentives.scenarios import convert
from nj_incentives.scenarios import table as scenarios_table_module
from nj_incentives.scenarios.columns import INPUTS, InputSpec
from nj_incentives.scenarios.table import SMALL_ROWS, scenarios_table
from test_scenarios_exact import conversion_rows, ertc_rows, grant_rows

SAME = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: A blank cell as a range may hand it over.
BLANKS = st.sampled_from([None, "", "  "])


def _as_cell(draw: st.DrawFn, value: object) -> object:
    """A value of the strategies as a worksheet cell: a date as its serial number or as a
    date object, None now and then as "" or spaces, a whole float now and then an int."""
    if isinstance(value, dt.date) and draw(st.booleans()):
        return to_cell_values(value)
    if value is None:
        return draw(BLANKS)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return draw(st.sampled_from([value, int(value)]))
    return value


@st.composite
def ranges(draw: st.DrawFn) -> list[list[object]]:
    """A range: header row, then 1 to SMALL_ROWS + 2 scenario rows (the columns any row
    names, blank where a row has none), with ``id`` and ``label`` now and then."""
    rows: list[dict[str, object]] = []
    for _ in range(draw(st.integers(1, SMALL_ROWS + 2))):
        row: dict[str, object] = {}
        for section in draw(st.sets(st.sampled_from(["grant", "conversion", "ertc"]), min_size=1)):
            part = {"grant": grant_rows, "conversion": conversion_rows, "ertc": ertc_rows}[section]
            row.update(draw(part()))
        rows.append(row)
    header: list[str] = list(dict.fromkeys(name for row in rows for name in row))
    passed = draw(st.sets(st.sampled_from(["id", "label"])))
    ids = st.one_of(st.text(max_size=3), st.integers(-5, 5), st.just(1.5), BLANKS)
    out: list[list[object]] = [[*sorted(passed), *header]]
    for row in rows:
        cells = [draw(ids) for _ in sorted(passed)]
        cells += [_as_cell(draw, row.get(name)) for name in header]
        out.append(cells)
    if draw(st.booleans()):  # a blank row at the end: ignored by both
        out.append([None] * len(out[0]))
    return out


def _typed(table: list[list[object]]) -> list[list[tuple[type, object]]]:
    """Each cell with its type: 1, 1.0 and True are different cells."""
    return [[(type(cell), cell) for cell in row] for row in table]


@SAME
@given(ranges())
def test_small_tables_give_the_vectorized_runners_cells(rows: list[list[object]]) -> None:
    small = scenarios_table(rows, small=True)
    vectorized = scenarios_table(rows, small=False)
    assert small[0] == vectorized[0]  # the header: the same layout
    assert _typed(small) == _typed(vectorized)


def test_the_small_path_is_taken_up_to_its_row_count(monkeypatch: object) -> None:
    """At most SMALL_ROWS rows go to the small path, more to the vectorized runner: the
    calls are counted (a grant of one year a row: 20,000 x 50% = 10,000 a row)."""
    calls: list[int] = []
    small_table = scenarios_table_module._small_table

    def counting(data: dict[str, object], n: int) -> list[list[object]]:
        calls.append(n)
        return small_table(data, n)  # type: ignore[arg-type]

    monkeypatch.setattr(scenarios_table_module, "_small_table", counting)  # type: ignore[attr-defined]
    header = ["agreement_date", "pct", "withholdings_1", "new_employees_1"]
    row = ["2010-05-01", 0.5, 20000, 1]
    for rows, small in ((SMALL_ROWS, [SMALL_ROWS]), (SMALL_ROWS + 1, [SMALL_ROWS])):
        out = scenarios_table([header, *[row] * rows])
        total = out[0].index("grant_total")
        assert [cells[total] for cells in out[1:]] == [10000.0] * rows
        assert calls == small


def test_a_header_without_rows_gives_the_same_header_both_ways() -> None:
    """No scenario rows (a header only, or only blank rows): the header of the layout the
    column names decide, and no row, by either path."""
    cases = {
        ("id", "label", "error", "conversion_paragraph"): [
            ["id", "label", "accrual_year", "conversion_amount", "periods", "period_end_1"]
        ],
        ("id", "error", "grant_term", "grant_cap_applies"): [
            ["pct", "withholdings_1"],
            [None, ""],
            ["  ", None],
        ],
    }
    for first, rows in cases.items():
        small = scenarios_table(rows, small=True)
        assert small == scenarios_table(rows, small=False)
        assert len(small) == 1
        assert tuple(small[0][:4]) == first


#: Doubles where the exact check of the kernel's float reading turns: whole and half
#: values (rint's ties), the bounds' neighbours, -0.0, NaN and the infinities.
_AWKWARD = [0.0, -0.0, 0.5, 1.5, 2.5, -1.0, 1e-9, 5e-10, 1.0000000005, 2012.0, 2012.5]
DOUBLES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e6, 1e6),
    st.integers(-(10**14), 10**14).map(float),
    st.sampled_from([*_AWKWARD, float("nan"), float("inf"), float("-inf")]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(DOUBLES, min_size=1, max_size=SMALL_ROWS), st.sampled_from(INPUTS))
def test_the_small_paths_float_reading_is_the_kernels(cells: list[float], spec: InputSpec) -> None:
    """``convert_floats`` (the layout's reading of a few rows' float column, one value at
    a time in Python) gives the kernel's own reading (``_from_float``: numpy) of every
    double, for every input column's declaration: values, blanks, ok."""
    scale = SCALE.get(spec.kind)  # a date, a choice: no bounds (numbers are refused)
    bounds = [] if scale is None else [n / scale for n in convert._limits(spec.kind, spec.rule)]
    near = [float(np.nextafter(b, to)) for b in bounds for to in (-np.inf, np.inf)]
    for extra in ([], bounds + near):
        array = np.array(cells + extra, np.float64)
        small = convert.convert_floats(array, spec)
        kernel = convert._from_float(array, spec.kind, spec.rule)
        assert small.values.tolist() == kernel.values.tolist()
        assert small.blank.tolist() == kernel.blank.tolist()
        assert small.ok.tolist() == kernel.ok.tolist()
