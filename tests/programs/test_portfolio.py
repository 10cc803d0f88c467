"""A portfolio of awards against one CBT liability (issue 33 item 4): a worked example
with the order and the carryforwards, the properties (hypothesis) and bad input."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.core.common import InputError
from nj_incentives.functions.table import functions
from nj_incentives.programs.portfolio import rules as P

D = Decimal
HEADER = ["entity", "program", "period", "amount"]


def test_three_programs_against_one_liability() -> None:
    # One combined return, 3 calendar periods, liability 100,000 / 60,000 / 50,000, minimum
    # tax 2,000. Awards: A's BEIP 30,000 (period 1), A's ERTC 40,000 (period 1), B's Grow NJ
    # 100,000 in periods 1 and 2. Order (18:7-3.17): BEIP 1st, ERTC 14th, Grow NJ 18th.
    found = P.portfolio(
        [
            HEADER,
            ["B", "grow_nj", 1, 100000],
            ["A", "ertc", 1, 40000],
            ["A", "beip", 1, 30000],
            ["B", "grow_nj", 2, 100000],
        ],
        dt.date(2024, 12, 31),
        [100000, 60000, 50000],
        [2000, 2000, 2000],
    )
    rows = {(r.period, r.program): r for r in found.rows}
    assert [r.program for r in found.rows[:3]] == ["beip", "ertc", "grow_nj"]
    # Period 1: BEIP 30,000 used (limit 100,000). ERTC limit min(50% x 100,000 = 50,000,
    # 100,000 - 2,000) - 30,000 = 20,000: 20,000 used, 20,000 carried. Grow NJ limit
    # 100,000 - 50,000 = 50,000: 50,000 used, 50,000 carried. Tax after: 0.
    assert (rows[1, "beip"].used, rows[1, "beip"].refunded) == (D("30000.00"), 0)
    assert (rows[1, "ertc"].limit, rows[1, "ertc"].used) == (D("20000.00"), D("20000.00"))
    assert rows[1, "ertc"].carried_out == D("20000.00")
    assert (rows[1, "grow_nj"].limit, rows[1, "grow_nj"].used) == (D("50000.00"), D("50000.00"))
    assert found.tax_after[0] == 0
    # Period 2: ERTC limit min(30,000, 58,000) - 0 = 30,000: its 20,000 carried in used.
    # Grow NJ limit 60,000 - 20,000 = 40,000: the oldest first, 40,000 of period 1's
    # 50,000; carried out 10,000 + 100,000 = 110,000.
    assert (rows[2, "ertc"].used, rows[2, "ertc"].carried_out) == (D("20000.00"), 0)
    assert rows[2, "grow_nj"].used == D("40000.00")
    assert rows[2, "grow_nj"].carried_out == D("110000.00")
    # Period 3: Grow NJ 50,000 used; 60,000 carried on (usable to period 21).
    assert rows[3, "grow_nj"].carried_out == D("60000.00")
    assert found.carried_out == D("60000.00")
    assert rows[1, "beip"].line.startswith("Schedule A-3")


def test_beip_excess_is_refunded_and_brrag_expires_after_its_period() -> None:
    # Liability 10,000. BEIP 25,000: 10,000 used, 15,000 refunded (34:1B-129 f.). BRRAG
    # 5,000 in the same period: nothing left, and usable only in that period (statute):
    # expired. With the rule's reading (the next period too) it is used in period 2.
    awards = [HEADER, ["A", "beip", 1, 25000], ["A", "brrag", 1, 5000]]
    found = P.portfolio(awards, "2024-12-31", [10000, 10000])
    rows = {(r.period, r.program): r for r in found.rows}
    assert (rows[1, "beip"].used, rows[1, "beip"].refunded) == (D("10000.00"), D("15000.00"))
    assert rows[1, "brrag"].expired == D("5000.00")
    rule = P.portfolio(awards, "2024-12-31", [10000, 10000], brrag_periods="rule")
    assert {(r.period, r.program): r for r in rule.rows}[2, "brrag"].used == D("5000.00")


def test_emerge_place_and_floors_are_switches() -> None:
    awards = [HEADER, ["A", "grow_nj", 1, 50000], ["A", "emerge", 1, 50000]]
    after = P.portfolio(awards, "2024-12-31", [60000])
    before = P.portfolio(awards, "2024-12-31", [60000], emerge_place="17.5")
    assert [r.program for r in after.rows] == ["grow_nj", "emerge"]
    assert [r.program for r in before.rows] == ["emerge", "grow_nj"]
    floored = P.portfolio(awards, "2024-12-31", [60000], [1000], floors="grow_nj, emerge")
    assert floored.tax_after == (D("1000.00"),)  # both stop at the 1,000 minimum


@pytest.mark.parametrize(
    ("kwargs", "argument", "words"),
    [
        ({"awards": [HEADER, ["A", "hub", 1, 1]]}, "awards row 2 program", "must be one of"),
        ({"awards": [HEADER, ["A", "beip", 4, 1]]}, "awards row 2 period", "1 to 2"),
        ({"awards": [HEADER, ["", "beip", 1, 1]]}, "awards row 2 entity", "name the entity"),
        ({"awards": [HEADER, ["A", "uth", 1, 1]]}, "uth_carryforward", "was not found"),
        ({"awards": [HEADER]}, "awards", "at least one award"),
        ({"floors": "beip, hub"}, "floors", "must be one of"),
        ({"minimum_taxes": [1]}, "minimum_taxes", "one a period"),
    ],
)
def test_bad_input(kwargs: dict[str, object], argument: str, words: str) -> None:
    arguments: dict[str, object] = {
        "awards": [HEADER, ["A", "beip", 1, 1]],
        "first_period_end": "2024-12-31",
        "liabilities": [1, 1],
    }
    arguments.update(kwargs)
    with pytest.raises(InputError) as caught:
        P.portfolio(**arguments)  # type: ignore[arg-type]
    assert caught.value.argument == argument
    assert words in caught.value.rule
    assert caught.value.citation


def test_nj_portfolio_spills_its_table() -> None:
    table = functions()["NJ_PORTFOLIO"](
        [HEADER, ["A", "beip", 1, 30000], ["A", "ertc", 1, 40000]], 45657.0, [100000], [2000]
    )
    assert table[0][3:5] == ["Program", "Entity"]
    assert [row[9] for row in table[1:]] == [30000.0, 20000.0]


_AWARD = st.tuples(
    st.sampled_from(["A", "B"]),
    st.sampled_from(P.PROGRAMS),
    st.integers(1, 6),
    st.integers(0, 5_000_000),
)


@settings(max_examples=80, deadline=None)
@given(
    awards=st.lists(_AWARD, min_size=1, max_size=8),
    liabilities=st.lists(st.integers(0, 10_000_000), min_size=6, max_size=6),
    minimum=st.integers(0, 2_000),
    keep=st.integers(0, 3),
)
def test_the_application_respects_every_limit_and_the_order(
    awards: list[tuple[str, str, int, int]], liabilities: list[int], minimum: int, keep: int
) -> None:
    found = P.portfolio(
        [HEADER, *[[e, p, n, D(c) / 100] for e, p, n, c in awards]],
        "2024-12-31",
        [D(x) / 100 for x in liabilities],
        [D(minimum)] * 6,
        uth_carryforward=keep,
    )
    allowed: dict[tuple[str, str], Decimal] = {}
    used: dict[tuple[str, str], Decimal] = {}
    for period in range(1, 7):
        rows = [r for r in found.rows if r.period == period]  # in the order applied
        liability = D(liabilities[period - 1]) / 100
        by_program: dict[str, Decimal] = {}
        for row in rows:
            key = (row.program, row.entity)
            allowed[key] = allowed.get(key, D(0)) + row.new_credit
            used[key] = used.get(key, D(0)) + row.used
            assert used[key] <= allowed[key]  # never a credit before it is allowed
            by_program[row.program] = by_program.get(row.program, D(0)) + row.used
            assert by_program[row.program] <= row.limit  # never above the program's limit
            assert row.tax_after >= 0
        if "ertc" in by_program:  # 50% with every credit before it, not below the minimum
            before = sum(r.used for r in rows if r.place < D(14))
            ertc = by_program["ertc"]
            assert before + ertc <= max(before, (liability / 2).quantize(D("0.01"), "ROUND_DOWN"))
            assert liability - before - ertc >= min(D(minimum), liability - before)
        places = [r.place for r in rows]
        assert places == sorted(places)
        assert sum(r.used for r in rows) <= liability
        assert rows[-1].tax_after == liability - sum(r.used for r in rows)


def test_the_scenario_runner_takes_a_portfolio_row() -> None:
    import pandas as pd

    from nj_incentives.scenarios import run_scenarios

    # The worked example above, periods 1 and 2, as one row; a second row with a UTH
    # award and no carryforward is refused by its column, and the first is kept.
    base = {
        "portfolio_first_period_end": "2024-12-31",
        "portfolio_liability_1": 100000,
        "portfolio_liability_2": 60000,
        "portfolio_minimum_tax_1": 2000,
        "portfolio_minimum_tax_2": 2000,
    }
    table = pd.DataFrame(
        [
            {
                "id": "A",
                **base,
                "portfolio_beip_credit_1": 30000,
                "portfolio_ertc_credit_1": 40000,
                "portfolio_grow_nj_credit_1": 100000,
                "portfolio_grow_nj_credit_2": 100000,
            },
            {"id": "B", **base, "portfolio_uth_credit_1": 5},
        ]
    )
    out = run_scenarios(table, money="decimal").set_index("id")
    # BEIP 30,000; ERTC 20,000 + 20,000 (carried, period 2); Grow NJ 50,000 + 40,000 =
    # 90,000 used, 110,000 carried forward; no tax left in either period.
    assert out.loc["A", "portfolio_beip_used"] == D("30000.00")
    assert out.loc["A", "portfolio_ertc_used"] == D("40000.00")
    assert out.loc["A", "portfolio_grow_nj_used"] == D("90000.00")
    assert out.loc["A", "portfolio_grow_nj_carried_forward"] == D("110000.00")
    assert out.loc["A", "portfolio_tax_after"] == 0
    assert out.loc["B", "error"].startswith("portfolio_uth_carryforward = (blank)")


# =========================================================================== the int64 kernel


def _both_paths(frame: object) -> tuple[object, object]:
    """(kernel path, scalar path) of a scenario table, money in integer cents."""
    import numpy as np

    from nj_incentives.scenarios.runner import _run_frame, plan_layout

    frame = frame.assign(id=np.arange(len(frame)))  # type: ignore[attr-defined]
    layout = plan_layout(frame)
    fast = _run_frame(frame, layout, money="cents", chunk_rows=7)
    slow = _run_frame(frame, layout, money="cents", force_scalar=True)
    return fast, slow


_cents = st.integers(0, 10**8).map(lambda c: c / 100)
_odd = st.sampled_from([0.0, 0.01, 2000.0, 50000.0, 1e6, -1.0, 1234.565, 2e11, "abc", None])
_money = st.one_of(_cents, _cents, _cents, _odd)


@st.composite
def _portfolio_rows(draw: st.DrawFn) -> dict[str, object]:
    # most rows clean (the kernel's), some with awkward or bad cells (the scalar path's)
    clean = draw(st.integers(0, 9)) < 7
    first = st.sampled_from(["2024-12-31", "2025-06-30", "2024-02-29", dt.date(2023, 3, 31)])
    odd_first = st.sampled_from(["2199-06-30", "x", None])
    row: dict[str, object] = {
        "portfolio_first_period_end": draw(first if clean else st.one_of(first, odd_first)),
        "portfolio_uth_carryforward": draw(
            st.sampled_from([0, 1, 3, 100] if clean else [None, 101, -1, 2])
        ),
        "portfolio_ertc_carryforward": draw(
            st.sampled_from([None, 0, 2, 5] if clean else [2.5, None])
        ),
        "portfolio_brrag_periods": draw(
            st.sampled_from([None, "statute", "rule"] if clean else ["x", "rule"])
        ),
    }
    liability = st.integers(0, 2 * 10**7).map(lambda c: c / 100)
    for k in range(1, draw(st.integers(1, 5)) + 1):
        row[f"portfolio_liability_{k}"] = draw(liability if clean else _money)
        row[f"portfolio_minimum_tax_{k}"] = draw(st.sampled_from([None, 0.0, 500.0, 2000.0]))
        for key in P.PROGRAMS:
            if draw(st.integers(0, 2)) == 0:
                row[f"portfolio_{key}_credit_{k}"] = draw(_cents if clean else _money)
    return row


@settings(max_examples=25, deadline=None)
@given(st.lists(_portfolio_rows(), min_size=1, max_size=8), st.booleans())
def test_portfolio_kernel_equals_the_exact_path(
    rows: list[dict[str, object]], numeric: bool
) -> None:
    # Property: on random portfolio rows (valid, awkward and bad cells mixed), the int64
    # kernel and the scalar path give the same table: every result, blank and message.
    import pandas as pd

    frame = pd.DataFrame(rows)
    if numeric:  # numbers as float columns (the fast conversion), not objects
        for column in frame.columns:
            converted = pd.to_numeric(frame[column], errors="coerce")
            if converted.notna().sum() == frame[column].notna().sum():
                frame[column] = converted.astype(float)
    fast, slow = _both_paths(frame)
    pd.testing.assert_frame_equal(fast, slow)


def test_the_kernel_computes_a_portfolio_row(monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd

    from nj_incentives.scenarios import run_scenarios

    def refuse(*_: object) -> None:
        raise AssertionError("the scalar path was asked for a row the kernel computes")

    # The kernel alone (the scalar path refuses): two periods, liability 100,000 and
    # 10,000, minimum 2,000. Period 1: BEIP 30,000 used; ERTC limit min(50,000, 98,000) -
    # 30,000 = 20,000: 20,000 used of 40,000; UTH (carryforward 1) 50,000 used of 60,000,
    # tax after 0. Period 2: ERTC min(5,000, 8,000) = 5,000 used, 15,000 carried on (no
    # limit); UTH 10,000 carried in: 5,000 used (10,000 - 5,000 left), 5,000 expires
    # (carried 1 period); tax after 0. UTH used 55,000, expired 5,000.
    monkeypatch.setattr(P, "portfolio", refuse)
    table = pd.DataFrame(
        [
            {
                "portfolio_first_period_end": "2024-12-31",
                "portfolio_liability_1": 100000,
                "portfolio_liability_2": 10000,
                "portfolio_minimum_tax_1": 2000,
                "portfolio_minimum_tax_2": 2000,
                "portfolio_beip_credit_1": 30000,
                "portfolio_ertc_credit_1": 40000,
                "portfolio_uth_credit_1": 60000,
                "portfolio_uth_carryforward": 1,
            }
        ]
    )
    out = run_scenarios(table, money="decimal").iloc[0]
    assert out["error"] is None or pd.isna(out["error"])
    assert out["portfolio_beip_used"] == D("30000.00")
    assert out["portfolio_ertc_used"] == D("25000.00")
    assert out["portfolio_ertc_carried_forward"] == D("15000.00")
    assert out["portfolio_uth_used"] == D("55000.00")
    assert out["portfolio_uth_expired"] == D("5000.00")
    assert out["portfolio_uth_carried_forward"] == 0
    assert out["portfolio_tax_after"] == 0


def test_bad_cells_go_to_the_exact_path_with_its_message() -> None:
    import pandas as pd

    from nj_incentives.scenarios import run_scenarios

    base = {
        "portfolio_first_period_end": "2024-12-31",
        "portfolio_liability_1": 0.01,  # a cent, read as the core reads it (was refused)
        "portfolio_grow_nj_credit_1": 5.0,
    }
    table = pd.DataFrame(
        [
            base,
            {**base, "portfolio_uth_credit_1": 1.0, "portfolio_uth_carryforward": 101},
            {**base, "portfolio_liability_1": None, "portfolio_liability_2": 10.0},
        ]
    )
    out = run_scenarios(table, money="decimal")
    # Row 0: Grow NJ uses the cent (limit 0.01), 4.99 carried forward.
    assert pd.isna(out.loc[0, "error"])
    assert out.loc[0, "portfolio_grow_nj_used"] == D("0.01")
    assert out.loc[0, "portfolio_grow_nj_carried_forward"] == D("4.99")
    # Row 1: the argument, the value, the rule and its citation.
    assert out.loc[1, "error"] == (
        "portfolio_uth_carryforward = 101: must be from 0 to 100 (docs/interpretations.md)"
    )
    assert out.loc[2, "error"].startswith("portfolio_liability_1 = (blank): is required")
    assert "N.J.A.C. 18:7-3.17" in out.loc[2, "error"]


def test_return_lines_follow_each_periods_tax_year() -> None:
    # Periods ending June 30 of 2022, 2023 and 2024 are tax years 2021, 2022 and 2023
    # (CBT-100 numbering: a period ending in January-June of N+1 is tax year N), so the
    # Grow NJ credit comes from Form 320's 2016, 2022 and 2023 editions; Schedule A-3's
    # Grow NJ line has no number in any source (to be confirmed).
    found = P.portfolio(
        [["A", "grow_nj", 1, 1000], ["A", "emerge", 1, 1000]],
        dt.date(2022, 6, 30),
        [500, 500, 500],
    )
    lines = [r.line for r in found.rows if r.program == "grow_nj"]
    assert [line.split("; from ")[1] for line in lines] == [
        "Form 320 (2016 edition, rev. 10-16)",
        "Form 320 (2022 edition)",
        "Form 320 (2023 edition, rev. October 2023)",
    ]
    assert lines[0].startswith(
        "Schedule A-3 of the CBT-100 (2017 edition) Grow New Jersey Assistance Tax Credit line"
        " (line number to be confirmed)"
    )
    emerge = next(r.line for r in found.rows if r.program == "emerge")
    assert emerge.endswith(
        "Emerge Program tax credit line (line number to be confirmed); its credit form not found"
    )
    # The forms as dated data, one signature for every form (line(form, item, tax_year)).
    from nj_incentives.programs import forms

    assert forms.line("Form 320", "approved", 2021).where() == "Part II, line 4"
    assert forms.line("Form 320", "approved", 2024).where() == "Part II, line 3"
    assert forms.line("Form 316", "carried_in", 2023).where() == "Part II, line 4"
    assert forms.line("Form 319", "approved", 2025).where() == "Part II, line 4"
    assert forms.line("Schedule A-3", "uth", 2024).number is None
