"""The scenario runner's Python API, the Excel table function and the generators.

Exactness against the core is in test_scenarios_exact.py; the command line in
test_scenarios_cli.py; the Dask engine in test_scenarios_dask.py.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.scenarios import (
    ScenarioError,
    analysis,
    make_grid,
    monte_carlo,
    plan_layout,
    run_scenarios,
    scenarios_table,
)
from nj_incentives.scenarios.generate import example_portfolio, parse_distributions, parse_grid
from nj_incentives.scenarios.io import read_table

D = Decimal
EXAMPLES = Path(__file__).resolve().parents[2] / "workbooks" / "examples"


@pytest.fixture(scope="module")
def examples() -> pd.DataFrame:
    return read_table(EXAMPLES / "scenarios.csv")


@pytest.fixture(scope="module")
def example_results(examples: pd.DataFrame) -> pd.DataFrame:
    return run_scenarios(examples, money="decimal").set_index("id")


# =========================================================================== the examples


def test_example_rows_out_equal_rows_in(examples: pd.DataFrame) -> None:
    results = run_scenarios(examples)
    assert len(results) == len(examples)
    assert results["id"].tolist() == examples["id"].tolist()
    assert results["label"].tolist() == examples["label"].tolist()
    assert list(results.index) == list(examples.index)
    # one bad row, reported with the core's message; every other row computed
    errors = results.set_index("id")["error"]
    assert errors.notna().sum() == 1
    assert errors["bad-pct"] == (
        "pct = 50: a percentage is a fraction (50% = 0.5); did you mean 50%? (N.J.S.A. 34:1B-129a.)"
    )


def test_example_grant_with_the_cap(example_results: pd.DataFrame) -> None:
    row = example_results.loc["acme-2010"]
    # year 1: 600,000 x 50% = 300,000; room 5 x 50,000 = 250,000 -> 250,000
    # year 2: 350,000; room 6 x 50,000 - 250,000 = 50,000 -> 50,000
    # year 3: 360,000; room 1,000,000 - 300,000 = 700,000 -> paid in full; year 4 likewise
    # year 5: 380,000; room 1,250,000 - 1,030,000 = 220,000 -> 220,000
    assert [row[f"grant_{k}"] for k in range(1, 6)] == [250000, 50000, 360000, 370000, 220000]
    assert row["grant_total"] == D("1250000.00")
    assert row["grant_cap_reduction"] == D("510000.00")
    assert pd.isna(row["grant_6"])


def test_example_grant_before_july_2003_has_no_cap(example_results: pd.DataFrame) -> None:
    row = example_results.loc["legacy-2002"]
    # partners only: 400,000 x 25% = 100,000; 102,500; 106,250; no cap (1 new employee)
    assert row["grant_cap_applies"] is False or row["grant_cap_applies"] == False  # noqa: E712
    assert row["grant_total"] == D("308750.00")


def test_example_grant_fill_forward_convenience(example_results: pd.DataFrame) -> None:
    row = example_results.loc["beta-sg"]
    # term 8, 1,250,000 growing 3% a year, rounded down to the cent each year:
    # year 2 withholdings 1,287,500.00; year 3 1,326,125.00; grant 70% + partners 40%
    assert row["grant_term"] == 8
    assert row["grant_before_cap_1"] == D("875000.00") + D("34000.00")
    assert row["grant_before_cap_2"] == D("901250.00") + D("34000.00")
    # 60 new employees every year: at most 3,000,000 in all
    assert row["grant_total"] == D("3000000.00")


def test_example_late_approval_and_credit_application(example_results: pd.DataFrame) -> None:
    row = example_results.loc["conv-2012-late"]
    # accrued 2012, approved 2017-09-15 (State fiscal year 2018): 2018-2022,
    # 5/20/25/25/25% of 1,250,000 = 62,500; 250,000; 312,500 x 3
    assert row["conversion_first_year"] == 2018
    assert [row[f"installment_{y}"] for y in range(2017, 2023)] == [
        0,
        62500,
        250000,
        312500,
        312500,
        312500,
    ]
    # 2018: liability 50,000 -> applied 50,000, refund 12,500; 2020: 300,000 -> 12,500
    assert row["credit_applied_2018"] == 50000
    assert row["credit_refund_2018"] == 12500
    assert row["credit_refund_2020"] == 12500
    assert row["credit_applied_total"] + row["credit_refund_total"] == 1250000


def test_example_equal_installments(example_results: pd.DataFrame) -> None:
    row = example_results.loc["conv-2016"]
    # 100,000 in three from 2020: 33,333.33, 33,333.33, 33,333.34
    assert [row[f"installment_{y}"] for y in (2020, 2021, 2022)] == [
        D("33333.33"),
        D("33333.33"),
        D("33333.34"),
    ]
    # 2022: liability 0 -> everything refunded
    assert row["credit_refund_2022"] == D("33333.34")


def test_example_ertc(example_results: pd.DataFrame) -> None:
    row = example_results.loc["ertc-form313"]
    assert (row["ertc_used"], row["ertc_refunded"]) == (21400, 13600)
    five = example_results.loc["ertc-5yr"]
    # used + refunded + expired + carried forward = credits allowed
    total = five["ertc_used"] + five["ertc_refunded"] + five["ertc_expired"]
    assert total + five["ertc_carried_forward"] == five["ertc_credits_allowed"]
    assert five["ertc_expired"] > 0  # the five-year carryforward ran out
    insurer = example_results.loc["ertc-insurer"]
    assert insurer["ertc_limit_1"] == D("5500.00")  # 6,000 - 500: no 50% limit


def test_example_xlsx_gives_the_same_results(examples: pd.DataFrame) -> None:
    from_csv = run_scenarios(examples)
    from_xlsx = run_scenarios(read_table(EXAMPLES / "scenarios.xlsx"))
    pd.testing.assert_frame_equal(from_csv, from_xlsx, check_dtype=False)


# =========================================================================== API behaviour


def _grant(**cells: object) -> dict[str, object]:
    row: dict[str, object] = {
        "agreement_date": "2012-01-01",
        "pct": 0.5,
        "withholdings_1": 100000,
        "new_employees_1": 10,
    }
    row.update(cells)
    return row


def test_ids_default_to_row_numbers_and_index_is_kept() -> None:
    frame = pd.DataFrame([_grant(), _grant(pct=0.9), _grant()], index=[10, 5, 7])
    results = run_scenarios(frame)
    assert results["id"].tolist() == [1, 2, 3]
    assert results.index.tolist() == [10, 5, 7]
    assert results["error"].isna().tolist() == [True, False, True]


def test_a_failed_section_does_not_stop_the_others() -> None:
    row = {**_grant(pct=0.9), "accrual_year": 2016, "conversion_amount": 300}
    result = run_scenarios(pd.DataFrame([row]), money="decimal").iloc[0]
    assert result["error"].startswith("pct = 0.9")
    assert pd.isna(result["grant_total"])
    assert result["installment_2020"] == 100  # the conversion is computed


def test_several_errors_are_joined_in_section_order() -> None:
    row = {**_grant(pct=0.9), "accrual_year": 2030, "conversion_amount": 1}
    error = run_scenarios(pd.DataFrame([row]))["error"].iloc[0]
    grant, conversion = error.split(" | ")
    assert grant.startswith("pct = 0.9")
    assert conversion.startswith("accrual_year = 2030")


def test_blank_sections_are_not_computed() -> None:
    frame = pd.DataFrame([_grant(), {"accrual_year": 2016, "conversion_amount": 30}])
    results = run_scenarios(frame)
    assert results["error"].isna().all()
    assert pd.isna(results["conversion_total"].iloc[0])
    assert pd.isna(results["grant_total"].iloc[1])


def test_only_sections_with_columns_get_result_columns() -> None:
    results = run_scenarios(pd.DataFrame([_grant()]))
    assert "grant_total" in results.columns
    assert not any(c.startswith(("ertc_", "installment_", "credit_")) for c in results.columns)


def test_unknown_columns_are_refused_with_a_hint() -> None:
    with pytest.raises(ScenarioError, match=r"'withholding_1' \(did you mean 'withholdings_1'\?\)"):
        run_scenarios(pd.DataFrame([{**_grant(), "withholding_1": 5}]))
    results = run_scenarios(pd.DataFrame([{**_grant(), "region": "south"}]), keep=["region"])
    assert results["region"].tolist() == ["south"]


def test_money_representations() -> None:
    frame = pd.DataFrame([_grant(withholdings_1=1234.57, pct=0.333333333)])
    # 1,234.57 x 33.3333333% = 411.523332... -> 411.52
    as_float = run_scenarios(frame)["grant_total"].iloc[0]
    assert repr(float(as_float)) == "411.52"
    as_cents = run_scenarios(frame, money="cents")["grant_total"]
    assert as_cents.dtype == "Int64"
    assert as_cents.iloc[0] == 41152
    assert run_scenarios(frame, money="decimal")["grant_total"].iloc[0] == D("411.52")


def test_progress_bar_and_small_chunks_change_nothing(capsys) -> None:  # type: ignore[no-untyped-def]
    frame = example_portfolio(300, seed=3)
    chunked = run_scenarios(frame, chunk_rows=64, progress=True)
    pd.testing.assert_frame_equal(chunked, run_scenarios(frame))
    assert "scenarios" in capsys.readouterr().err  # tqdm writes to stderr


@pytest.mark.parametrize("money", ["float", "cents", "decimal"])
def test_the_layout_planned_chunk_by_chunk_is_the_whole_tables(money: str) -> None:
    """Chunks of two rows: the second chunk needs tax years 2026-2029 (an accrual of 2008
    approved in State fiscal year 2025: e.(1)'s five installments from tax year 2025) and
    five periods, which the first did not. The first chunk's rows get the new columns
    as the whole table's layout gives them: 0 where the section computed (kernel or core),
    blank where it failed or has fewer periods. (The last row's credit fails: it has
    installments in tax years without a liability column.)"""
    frame = pd.DataFrame(
        {
            "accrual_year": [2016, 2012, 2012, 2008],
            "conversion_amount": [100000, "x", 100000, 100000],
            # the exact path (the kernel leaves the dates of e. to the core), no error
            "grant_approval_date": [None, None, "2015-01-05", None],
            "approval_date": [None, None, None, "2024-08-01"],
            **{f"tax_liability_{year}": [9000] * 4 for year in range(2017, 2026)},
            "operations_start": ["2021-03-01"] * 4,
            "year1_new": [10, 10, 10, 10],
            "year2_new": [8, 8, 8, 8],
            "periods": [3, 3, 3, 5],
            "period_end_1": ["2021-12-31"] * 4,
            "liability_1": [50000] * 4,
            "minimum_tax_1": [500] * 4,
        }
    )
    small = run_scenarios(frame, money=money, chunk_rows=2)  # type: ignore[arg-type]
    whole = run_scenarios(frame, money=money)  # type: ignore[arg-type]
    planned = run_scenarios(frame, money=money, layout=plan_layout(frame))  # type: ignore[arg-type]
    pd.testing.assert_frame_equal(small, whole)
    pd.testing.assert_frame_equal(small, planned)
    assert "installment_2029" in small.columns
    assert "ertc_used_5" in small.columns
    assert small["error"].notna().tolist() == [False, True, False, True]
    assert "tax year 2026" in small["error"].iloc[3]
    last = small["installment_2029"].tolist()
    assert [last[0], last[2]] == [0, 0]
    assert pd.isna(last[1])
    assert last[3] > 0
    assert small["credit_applied_2029"].isna().tolist() == [False, True, False, True]
    assert small["ertc_used_5"].isna().tolist() == [True, True, True, False]


def test_a_chunk_of_good_rows_is_computed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # work counted, not timed: 500 rows of the example portfolio in one chunk go through
    # the kernel once; no good row makes the int64 evaluator refuse the chunk, which the
    # runner would then split in halves down to single rows (one ERTC row's positions x
    # 10^10 over another row's smaller positions once did: 1,000+ kernel calls)
    from nj_incentives.scenarios import runner

    calls = []
    real = runner._compute_chunk

    def counted(frame: pd.DataFrame, *args: object) -> object:
        calls.append(len(frame))
        return real(frame, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "_compute_chunk", counted)
    results = run_scenarios(example_portfolio(500, seed=2026))
    assert calls == [500]
    assert results["error"].isna().all()


def test_keep_cannot_shadow_the_fixed_columns() -> None:
    with pytest.raises(ScenarioError, match="always in the results"):
        run_scenarios(pd.DataFrame([_grant()]), keep=["error"])


def test_totals_only() -> None:
    results = run_scenarios(pd.DataFrame([_grant()]), detail=False)
    assert "grant_total" in results.columns
    assert "grant_1" not in results.columns


def test_empty_table() -> None:
    results = run_scenarios(pd.DataFrame(columns=["pct", "withholdings_1"]))
    assert len(results) == 0
    assert "grant_total" in results.columns


def test_many_input_types_read_alike() -> None:
    plain = pd.DataFrame([_grant(smart_growth=False)])
    typed = pd.DataFrame(
        {
            "agreement_date": pd.to_datetime(["2012-01-01"]),
            "pct": pd.array([D("0.5")], dtype=object),
            "withholdings_1": ["100,000.00"],
            "new_employees_1": pd.array([10], dtype="Int64"),
            "smart_growth": ["no"],
        }
    )
    pd.testing.assert_frame_equal(run_scenarios(plain), run_scenarios(typed))


def test_true_false_in_a_money_column_is_the_cores_error() -> None:
    results = run_scenarios(pd.DataFrame({**_grant(), "withholdings_1": [True]}))
    assert results["error"].iloc[0] == (
        "withholdings = True: year 1: must be a number, not TRUE/FALSE (N.J.S.A. 34:1B-129a.)"
    )


def test_term_fills_forward_like_explicit_columns() -> None:
    # 1,000,000.00 growing 2.5%: 1,025,000.00; 1,050,625.00; 1,076,890.62 (rounded down)
    short = _grant(term=4, withholdings_growth=0.025, withholdings_1=1000000, new_employees_1=100)
    explicit = _grant(withholdings_1=1000000, new_employees_1=100)
    for k, amount in enumerate((1025000.00, 1050625.00, 1076890.62), 2):
        explicit[f"withholdings_{k}"] = amount
        explicit[f"new_employees_{k}"] = 100
    results = run_scenarios(pd.DataFrame([short, explicit]), money="cents")
    grants = results[[f"grant_{k}" for k in range(1, 5)]]
    assert grants.iloc[0].tolist() == grants.iloc[1].tolist()
    # a term shorter than the columns given ignores the later years
    cut = run_scenarios(pd.DataFrame([{**explicit, "term": 2}]))
    assert cut["grant_term"].iloc[0] == 2
    assert pd.isna(cut["grant_3"].iloc[0])


def test_periods_fill_forward_keeps_month_ends() -> None:
    # end 2024-02-29 + 12 months -> 2025-02-28 (the month's last day) -> 2026-02-28 ...
    row = {
        "operations_start": "2023-03-01",
        "year1_new": 4,
        "year2_new": 4,
        "periods": 3,
        "period_end_1": "2024-02-29",
        "liability_1": 10000,
        "minimum_tax_1": 500,
    }
    explicit = {k: v for k, v in row.items() if k != "periods"}
    for k, end in ((2, "2025-02-28"), (3, "2026-02-28")):
        explicit.update({f"period_end_{k}": end, f"liability_{k}": 10000, f"minimum_tax_{k}": 500})
    results = run_scenarios(pd.DataFrame([row, explicit]), money="cents")
    assert results["error"].isna().all()
    outputs = [c for c in results.columns if c.startswith("ertc_")]
    assert results[outputs].iloc[0].tolist() == results[outputs].iloc[1].tolist()


def test_layout_follows_the_data() -> None:
    frame = pd.DataFrame(
        [
            {"accrual_year": 2010, "conversion_amount": 10, "approval_date": "2021-08-01"},
            {"tax_liability_2030": 5, "accrual_year": 2016, "conversion_amount": 1},
        ]
    )
    layout = plan_layout(frame)
    # approved in State fiscal year 2022: 2022-2026; a liability column for 2030
    assert (layout.first_tax_year, layout.last_tax_year) == (2017, 2030)
    periods = plan_layout(pd.DataFrame({"periods": [7], "period_end_2": ["2020-12-31"]}))
    assert periods.periods == 7


# =========================================================================== Excel function


def test_scenarios_table_spills_header_and_results() -> None:
    rows = [
        ["id", "agreement_date", "pct", "withholdings_1", "new_employees_1", "", "label"],
        ["a", 40909, 0.5, 100000, 10, None, "serial date 2012-01-01"],
        ["b", "2012-01-01", 50, 100000, 10, None, None],
        ["c", dt.date(2012, 1, 1), 0.25, 400000.5, 1, "", ""],
        [None, None, None, None, None, None, None],
    ]
    out = scenarios_table(rows)
    header = out[0]
    assert header[:4] == ["id", "label", "error", "grant_term"]
    assert len(out) == 4  # trailing blank row dropped
    a, b, c = (dict(zip(header, row, strict=True)) for row in out[1:])
    assert a["grant_total"] == 50000.0
    assert a["error"] is None
    assert b["grant_total"] is None
    assert "did you mean 50%?" in b["error"]
    # 400,000.50 x 25% = 100,000.125 -> 100,000.12; cap 1 x 50,000 -> 50,000
    assert c["grant_before_cap_1"] == 100000.12
    assert c["grant_total"] == 50000.0
    assert all(not isinstance(v, (np.generic, float)) or not np.isnan(v) for v in a.values())


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.integers(-(2**62), 2**62)), max_size=8),
    st.lists(st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=False)), max_size=8),
    st.lists(st.one_of(st.none(), st.booleans()), max_size=8),
    st.lists(st.one_of(st.none(), st.sampled_from(["P.L.2007, c.1", "P.L.2009, c.2"])), max_size=8),
)
def test_result_columns_become_the_same_cells_a_column_at_a_time(
    ints: list[int | None],
    floats: list[float | None],
    flags: list[bool | None],
    texts: list[str | None],
) -> None:
    # The column-at-a-time reading (issue 35: NJ_SCENARIOS's cost per cell) gives exactly
    # what _cell of each value did: the same values and types, blanks as None.
    from nj_incentives.scenarios.table import _cell, _cells

    columns = [
        pd.array(ints, dtype="Int64"),
        pd.array(flags, dtype="boolean"),
        np.array([np.nan if v is None else v for v in floats], dtype=np.float64),
        pd.Categorical(texts, categories=["P.L.2007, c.1", "P.L.2009, c.2"]),
        np.array([*texts, np.int64(3), pd.NA, float("nan")], dtype=object),
    ]
    for column in columns:
        expected = [_cell(v) for v in pd.Series(column).astype(object).tolist()]
        got = _cells(pd.Series(column).array)
        assert [(type(v), v) for v in got] == [(type(v), v) for v in expected]


def test_scenarios_table_refuses_a_bad_header() -> None:
    with pytest.raises(ScenarioError, match="unknown scenario column"):
        scenarios_table([["pcnt"], [0.5]])
    with pytest.raises(ScenarioError, match="no name"):
        scenarios_table([["pct", ""], [0.5, 3]])
    with pytest.raises(ScenarioError, match="header row"):
        scenarios_table([])


# =========================================================================== generators


def test_grid_is_the_cartesian_product() -> None:
    base = pd.DataFrame([{"id": "x", **_grant()}])
    grid = make_grid(base, "pct=0.1:0.5:0.1;new_employees_1=1,2")
    assert len(grid) == 10
    assert grid["id"].tolist()[:3] == ["x-1", "x-2", "x-3"]
    # exact decimal steps: 0.1, 0.2, 0.3 (not 0.30000000000000004)
    assert sorted(set(grid["pct"])) == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert grid.groupby("pct").size().tolist() == [2] * 5
    assert parse_grid({"pct": {"start": 0.1, "stop": 0.3, "step": 0.1}}) == {"pct": [0.1, 0.2, 0.3]}
    # base rows sharing an index label are still expanded one by one
    twice = make_grid(pd.concat([base, base.assign(id="y")]), "pct=0.1,0.2")
    assert twice["id"].tolist() == ["x-1", "x-2", "y-1", "y-2"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("pct", "not COLUMN=VALUES"),
        ("pcnt=1,2", "unknown scenario column"),
        ("pct=0.5:0.1:0.1", "start <= stop"),
    ],
)
def test_grid_spec_errors(spec: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        parse_grid(spec)


def test_monte_carlo_is_reproducible_and_per_column() -> None:
    base = pd.DataFrame([_grant()])
    spec = "pct=uniform(0.1,0.5);withholdings_1=lognormal(100000,20000,min=0)"
    first = monte_carlo(base, spec, 500, seed=11)
    again = monte_carlo(base, spec, 500, seed=11)
    pd.testing.assert_frame_equal(first, again)
    other = monte_carlo(base, spec, 500, seed=12)
    assert not first["pct"].equals(other["pct"])
    # adding a column leaves the others' draws unchanged
    more = monte_carlo(base, spec + ";new_employees_1=poisson(8)", 500, seed=11)
    assert more["pct"].equals(first["pct"])
    # rounded to the column's unit, within the bounds
    assert (first["pct"] == first["pct"].round(4)).all()
    assert first["pct"].between(0.1, 0.5).all()
    assert (first["withholdings_1"] == first["withholdings_1"].round(2)).all()
    assert more["new_employees_1"].dtype.kind == "i"


def test_monte_carlo_spec_forms() -> None:
    inline = parse_distributions("tax_type=choice(cbt,insurance);pct=triangular(0.1,0.2,0.5)")
    assert [d.describe() for d in inline] == [
        "choice(cbt,insurance)",
        "triangular(0.1,0.2,0.5)",
    ]
    from_mapping = parse_distributions({"pct": {"dist": "uniform", "low": 0.1, "high": 0.2}})
    assert from_mapping[0].describe() == "uniform(0.1,0.2)"
    for bad, message in [
        ("pct=zipf(2)", "unknown distribution"),
        ("pct=uniform(0.5,0.1)", "invalid parameters"),
        ("agreement_date=uniform(1,2)", "only be drawn with choice"),
        ("pct=uniform(0.1)", "needs low, high"),
    ]:
        with pytest.raises(ScenarioError, match=message):
            parse_distributions(bad)


def test_yaml_specs(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    spec = tmp_path / "draws.yaml"
    spec.write_text(
        "# a comment\npct: uniform(0.2, 0.5)\nliability_1:\n  dist: poisson\n  lam: 3\n"
    )
    assert [d.describe() for d in parse_distributions(str(spec))] == [
        "uniform(0.2,0.5)",
        "poisson(3)",
    ]
    grid = tmp_path / "grid.yml"
    grid.write_text("pct: [0.1, 0.2]\nyear1_new: {start: 1, stop: 3, step: 1}\n")
    assert parse_grid(str(grid)) == {"pct": [0.1, 0.2], "year1_new": [1, 2, 3]}


def test_example_spec_files_parse() -> None:
    grid = parse_grid(str(EXAMPLES / "scenarios-grid.json"))
    assert grid["year1_new"] == [5, 10, 15, 20, 25]
    dists = parse_distributions(str(EXAMPLES / "scenarios-montecarlo.json"))
    assert {d.column for d in dists} >= {"pct", "liability_1", "year1_new"}


def test_example_portfolio_runs_clean() -> None:
    results = run_scenarios(example_portfolio(3000, seed=4))
    assert results["error"].isna().all()
    assert (results["grant_cap_reduction"] > 0).any()
    assert (results["ertc_expired"] > 0).any()
    assert (results["credit_refund_total"] > 0).any()


# =========================================================================== analysis


def test_summary_and_tornado() -> None:
    base = pd.DataFrame([_grant(new_employees_1=1000)])
    scenarios = make_grid(base, "pct=0.1,0.3,0.5;withholdings_1=100000,200000")
    results = run_scenarios(scenarios)
    table = analysis.summary(results, ["grant_total"])
    # grants: 10,000 30,000 50,000 and 20,000 60,000 100,000
    assert table.loc[0, "count"] == 6
    assert table.loc[0, "max"] == 100000
    # P50 by nearest rank: ceil(50% x 6) = 3rd of 10,000 20,000 30,000 ... = 30,000 (an
    # amount a scenario gives; interpolated it would be 40,000, which none gives)
    assert table.loc[0, "p50"] == 30000
    ranges = analysis.input_ranges(
        scenarios,
        ["pct", "withholdings_1"],
        grid=parse_grid("pct=0.1,0.3,0.5;withholdings_1=100000,200000"),
        base=base.iloc[0].to_dict(),
    )
    assert ranges["pct"] == (0.1, 0.5, 0.5)  # the base row's pct is the base case
    result = analysis.tornado(base.iloc[0].to_dict(), ranges, "grant_total", run_scenarios)
    # base: 100,000 x 50% = 50,000; pct 10%: 10,000 (swing 40,000); withholdings
    # 200,000: 100,000 (swing 50,000) -> withholdings first
    assert result.base_value == 50000
    assert result.table["input"].tolist() == ["withholdings_1", "pct"]
    assert result.table["swing"].tolist() == [50000, 40000]


# =========================================================================== docs


def test_docs_describe_every_column() -> None:
    from nj_incentives.scenarios.columns import INPUTS, Layout

    text = (Path(__file__).resolve().parents[2] / "docs" / "scenarios.md").read_text()
    for spec in INPUTS:
        forms = {spec.name.replace("{k}", k).replace("{year}", "YYYY") for k in ("1", "k")}
        assert any(f"`{name}" in text for name in forms), spec.name
    for output in Layout(periods=3).outputs():
        stem, _, index = output.name.rpartition("_")
        forms = {f"{stem}_{k}" for k in ("1", "k", "YYYY")} if index.isdigit() else {output.name}
        assert any(f"`{name}" in text for name in forms), output.name
