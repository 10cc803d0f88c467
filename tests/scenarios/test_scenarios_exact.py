"""The scenario kernel equals the scalar core to the cent on every row.

Two properties, over random scenario tables that mix valid rows, edge cases (at the
$50,000 cap, at cent boundaries, at installment remainders, at the first period's
boundary) and bad inputs:

1. the vectorized kernel and the scalar path (every row through the core) give the same
   table: every result, every blank, every error message;
2. the scalar path gives what direct calls of the core give (so the kernel does too).

Plus the exact integer helpers against Python integers, and worked examples.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nj_incentives.core.common import InputError
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.scenarios.runner import _run_frame, plan_layout, run_scenarios

D = Decimal
SLOW = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def both_paths(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(kernel path, scalar path) results of a table, money in integer cents."""
    frame = frame.assign(id=np.arange(len(frame)))
    layout = plan_layout(frame)
    fast = _run_frame(frame, layout, money="cents", chunk_rows=7)
    slow = _run_frame(frame, layout, money="cents", force_scalar=True)
    return fast, slow


def assert_same(fast: pd.DataFrame, slow: pd.DataFrame) -> None:
    """Every cell the same: both blank, or equal. ``DataFrame.equals`` (same dtypes, each
    cell equal or both blank) settles the usual case at once; only when it says no are the
    columns compared one by one, which also accepts equal values of another dtype and
    names the first differing cell."""
    assert list(fast.columns) == list(slow.columns)
    if fast.equals(slow):
        return
    for column in fast.columns:
        a, b = fast[column], slow[column]
        same = (a.isna() & b.isna()) | (a == b).fillna(False)
        if not same.all():
            row = int(np.flatnonzero(~same.to_numpy())[0])
            raise AssertionError(
                f"{column} row {row}: kernel {a.iloc[row]!r} != core {b.iloc[row]!r}"
                f" (error: {slow['error'].iloc[row]!r})"
            )


# =========================================================================== strategies

blank = st.none()
cents = st.integers(0, 10**9).map(lambda c: c / 100)
odd_money = st.sampled_from([0.0, 0.01, 0.02, 0.03, 0.05, 0.99, 1.0, 3.33, 100000.01, 99999.99])
bad_money = st.sampled_from([-0.01, 1234.565, 2e11, "12,000.50", "abc", True])
money = st.one_of(cents, odd_money, blank, bad_money.filter(lambda _: True))
money_mostly_ok = st.one_of(cents, cents, cents, odd_money, blank)
pct_values = st.sampled_from(
    [0, 0.1, 0.10000001, 0.25, 0.3, 0.333333333, 0.3333333333333333, 0.5, 0.50000001, 0.8,
     0.123456789, 0.09999999, 50, -0.1, 1, "0.4", None]
)  # fmt: skip
dates = st.dates(dt.date(1995, 1, 1), dt.date(2030, 12, 31))
date_cells = st.one_of(
    dates.map(dt.date.isoformat),
    dates,
    st.sampled_from(["2003-06-30", "2003-07-01", "2016-06-30", "2016-07-01", "not a date"]),
    blank,
)


@st.composite
def grant_rows(draw: st.DrawFn) -> dict[str, object]:
    smart = draw(st.sampled_from([None, True, False, "yes", 1, "maybe"]))
    pct = draw(pct_values)
    row: dict[str, object] = {
        "agreement_date": draw(date_cells),
        "pct": pct,
        "partner_pct": draw(st.sampled_from([None, 0, 0.1, 0.3, 0.5, 0.31])),
        "smart_growth": smart,
        # issue 19, item 8: the three readings of the cap, all in the kernel
        "cap_method": draw(
            st.sampled_from([None, None, "per_year", "whole_term", "proportional", "both"])
        ),
    }
    term = draw(st.integers(1, 10))
    if draw(st.booleans()):
        row["term"] = draw(st.sampled_from([term, term, 11, 0, 2.5]))
        row["withholdings_growth"] = draw(st.sampled_from([None, 0, 0.03, -0.25, 1.5]))
    partners = draw(st.booleans())
    paid_before = 0.0
    for k in range(1, term + 1):
        employees = draw(st.one_of(st.integers(0, 30), st.sampled_from([None, -1, 2.5, 10**7])))
        row[f"new_employees_{k}"] = employees
        at_cap = draw(st.integers(0, 3)) == 0 and isinstance(pct, float) and 0.1 <= pct <= 0.8
        if at_cap and isinstance(employees, int) and 50000 * employees > paid_before:
            # withholdings putting this year's grant at the cap room, give or take a cent
            room = 50000 * employees - paid_before
            delta = draw(st.sampled_from([-0.01, 0, 0.01]))
            row[f"withholdings_{k}"] = round(room / pct + delta, 2)
            paid_before += room
            continue
        row[f"withholdings_{k}"] = draw(money_mostly_ok if k > 1 else money)
        if partners:
            row[f"partner_tax_{k}"] = draw(money_mostly_ok)
    return row


@st.composite
def conversion_rows(draw: st.DrawFn) -> dict[str, object]:
    row: dict[str, object] = {
        "accrual_year": draw(st.one_of(st.integers(2006, 2027), st.sampled_from([None, 2012.5]))),
        "conversion_amount": draw(
            st.one_of(cents, odd_money, st.sampled_from([100000.0, 100000.01, 0.04, None, -5.0]))
        ),
        "approval_date": draw(st.one_of(blank, date_cells)),
    }
    if draw(st.booleans()):
        for year in range(2017, 2026):
            row[f"tax_liability_{year}"] = draw(st.one_of(money_mostly_ok, money_mostly_ok, money))
    return row


@st.composite
def ertc_rows(draw: st.DrawFn) -> dict[str, object]:
    fractional = draw(st.sampled_from([None, False, True, "TRUE"]))
    positions = st.one_of(
        st.integers(0, 50),
        st.sampled_from([0.5, 12.5, 1 / 3, 0.33333333, 2.25, None, -1]),
    )
    start = draw(dates)
    row: dict[str, object] = {
        "operations_start": draw(st.one_of(st.just(start.isoformat()), date_cells)),
        "year1_new": draw(positions),
        "year2_new": draw(positions),
        "fractional": fractional,
        "tax_type": draw(st.sampled_from([None, "cbt", "insurance", "CBT", "other"])),
        "carryforward_years": draw(st.sampled_from([None, None, 0, 1, 2, 5, -1])),
    }
    if draw(st.integers(0, 2)) == 0:  # credit carried into period 1 (b.(2), a roll forward)
        for n in (1, 2):
            row[f"opening_year{n}"] = draw(st.sampled_from([None, 0.0, 500.0, 3000.01, 1e6]))
            row[f"opening_year{n}_before"] = draw(st.sampled_from([None, 0, 1, 2, 3, 6]))
    count = draw(st.integers(1, 5))
    end = draw(
        st.one_of(
            # first period ending so that credit year one ends just inside / outside it
            st.just(start.replace(day=1) + dt.timedelta(days=draw(st.integers(300, 420)))),
            dates,
            st.sampled_from([dt.date(2024, 2, 29), dt.date(2023, 12, 31), dt.date(2023, 6, 30)]),
        )
    )
    if draw(st.booleans()):
        row["periods"] = draw(st.sampled_from([count, count, 0, 41]))
        row["period_end_1"] = end.isoformat()
        row["liability_1"] = draw(money_mostly_ok)
        row["minimum_tax_1"] = draw(st.sampled_from([500.0, 2000.0, 0.0, None]))
        row["liability_growth"] = draw(st.sampled_from([None, 0.05, -0.1]))
        return row
    for k in range(1, count + 1):
        row[f"period_end_{k}"] = draw(
            st.one_of(st.just(end.isoformat()), st.just(end), date_cells)
            if k == 1 or draw(st.integers(0, 9)) == 0
            else st.just(dt.date(end.year + k - 1, end.month, min(end.day, 28)).isoformat())
        )
        row[f"liability_{k}"] = draw(
            st.one_of(money_mostly_ok, st.sampled_from([8000.01, 3999.99]))
        )
        row[f"other_credits_{k}"] = draw(st.one_of(blank, blank, money_mostly_ok))
        row[f"minimum_tax_{k}"] = draw(st.sampled_from([500.0, 562.5, 2000.0, 0.0, None, 1e6]))
    return row


@st.composite
def tables(draw: st.DrawFn) -> pd.DataFrame:
    rows = []
    for _ in range(draw(st.integers(1, 12))):
        row: dict[str, object] = {}
        for section in draw(st.sets(st.sampled_from(["grant", "conversion", "ertc"]), min_size=1)):
            part = {"grant": grant_rows, "conversion": conversion_rows, "ertc": ertc_rows}[section]
            row.update(draw(part()))
        rows.append(row)
    frame = pd.DataFrame(rows)
    if draw(st.booleans()):  # numeric columns as numbers (the fast path), not objects
        for column in frame.columns:
            converted = pd.to_numeric(frame[column], errors="coerce")
            if converted.notna().sum() == frame[column].notna().sum():
                frame[column] = converted.astype(float)
    return frame


# =========================================================================== property 1


@SLOW
@given(tables())
def test_kernel_equals_scalar_core_on_every_row(frame: pd.DataFrame) -> None:
    fast, slow = both_paths(frame)
    assert_same(fast, slow)
    assert len(fast) == len(frame)


@pytest.mark.parametrize("seed", [1, 2])
def test_kernel_equals_scalar_core_on_a_noisy_table(seed: int) -> None:
    frame = _noisy_table(1500, seed)
    fast, slow = both_paths(frame)
    assert_same(fast, slow)
    # the table does exercise both paths and every section
    assert fast["error"].isna().sum() > 50
    assert fast["error"].notna().sum() > 50
    for column in ("grant_total", "credit_refund_total", "ertc_refunded", "ertc_expired"):
        assert (fast[column].fillna(0) > 0).sum() > 10, column
    # and schedules that start with credit carried in (b.(2)), used or expired
    carried_in = frame["opening_year2"].notna() & fast["error"].isna()
    assert (carried_in & (fast["ertc_used"] > 0)).sum() > 5


def _noisy_table(n: int, seed: int) -> pd.DataFrame:
    """Mostly valid scenarios with a few percent of bad or awkward cells, as numpy columns."""
    rng = np.random.default_rng(seed)

    def some(values: list[object], p_blank: float = 0.0) -> np.ndarray:
        out = np.array(values, dtype=object)[rng.integers(0, len(values), n)]
        out[rng.random(n) < p_blank] = None
        return out

    def money(scale: float, p_blank: float = 0.02, p_odd: float = 0.01) -> np.ndarray:
        v = np.round(rng.random(n) * scale * rng.choice([0.01, 0.1, 1, 3], n), 2)
        odd = rng.random(n) < p_odd
        v[odd] = rng.choice([-1.0, 1234.565, 2e11, 0.01, 0.005], odd.sum())
        v[rng.random(n) < p_blank] = np.nan
        return v

    d: dict[str, object] = {
        "agreement_date": some(["2003-06-30", "2003-07-01", "2010-05-01", "1999-01-01"]),
        "pct": some([0.1, 0.25, 0.4, 0.5, 0.3333333333333333, 0.123456789, 0.55, 0]),
        "partner_pct": some([None, None, 0, 0.1, 0.3, 0.35]),
        "smart_growth": some([None, False, True]),
        "term": some([None, None, 3, 5, 10, 11]),
        "withholdings_growth": some([None, 0.03, -0.2]),
    }
    for k in range(1, 11):
        d[f"withholdings_{k}"] = money(1e6, p_blank=0.02 * k)
        employees = rng.integers(0, 30, n).astype(float)
        employees[rng.random(n) < 0.02 * k] = np.nan
        d[f"new_employees_{k}"] = employees
    d.update(
        accrual_year=some([2008, 2012, 2013, 2014, 2016, 2018, 2021, 2024, 2025, 2026]),
        conversion_amount=money(2e6),
        approval_date=some([None, None, "2016-06-30", "2016-07-01", "2017-09-15", "2019-12-01"]),
    )
    for year in range(2017, 2026):
        d[f"tax_liability_{year}"] = money(6e5, p_blank=0.01)
    d.update(
        operations_start=some(["2023-01-01", "2023-01-15", "2022-07-31", "2024-02-29"]),
        year1_new=rng.integers(0, 40, n).astype(float),
        year2_new=rng.integers(0, 40, n).astype(float),
        fractional=some([None, False, True]),
        tax_type=some([None, "cbt", "cbt", "insurance"]),
        carryforward_years=some([None, None, 0, 1, 2, 5]),
    )
    base = rng.integers(0, 4, n)
    # the last: periods after the credit years, valid with the credit carried in (b.(2)),
    # its origin given where an amount is (now and then not: the core's message)
    starts = [dt.date(2022, 12, 31), dt.date(2023, 6, 30), dt.date(2023, 12, 31)]
    starts.append(dt.date(2027, 12, 31))
    later = base == 3
    for k, amounts, before in ((1, [0.0, 1500.0, 2e5], [3, 4, 5, 6]), (2, [0.0, 700.0, 5e4], [3])):
        carried = some(amounts)
        carried[~later & (rng.random(n) < 0.97)] = None
        d[f"opening_year{k}"] = carried
        periods_before = some([*before, None], p_blank=0.0)
        periods_before[carried == None] = None  # noqa: E711  (an object array)
        d[f"opening_year{k}_before"] = periods_before
    for k in range(1, 6):
        d[f"period_end_{k}"] = np.array(
            [dt.date(starts[b].year + k - 1, starts[b].month, starts[b].day) for b in base],
            dtype=object,
        )
        d[f"liability_{k}"] = money(1e5, p_blank=0.01)
        d[f"other_credits_{k}"] = money(2e3, p_blank=0.5)
        d[f"minimum_tax_{k}"] = rng.choice([500.0, 2000.0, 1125.0], n)
    return pd.DataFrame(d)


# =========================================================================== property 2


# The BEIP sections (grant, conversion, credit) are one rule text in law/beip.py run by
# both paths, proven equal per section in tests/core/test_rules.py; property 1 covers the
# columns around them. What remains here is the ERTC section, whose kernel still has its
# own arithmetic.


@SLOW
@given(
    start=dates,
    y1=st.integers(0, 60),
    y2=st.integers(0, 60),
    carry=st.sampled_from([None, 0, 1, 2, 5]),
    tax_type=st.sampled_from(["cbt", "insurance"]),
    periods=st.lists(
        st.tuples(st.one_of(cents, odd_money), st.one_of(cents, odd_money), odd_money),
        min_size=3,
        max_size=6,
    ),
)
def test_ertc_equals_direct_core_calls(
    start: dt.date,
    y1: int,
    y2: int,
    carry: int | None,
    tax_type: str,
    periods: list[tuple[float, float, float]],
) -> None:
    ends = [dt.date(start.year + k, 12, 31) for k in range(len(periods))]
    row: dict[str, object] = {
        "operations_start": start,
        "year1_new": y1,
        "year2_new": y2,
        "carryforward_years": carry,
        "tax_type": tax_type,
    }
    for k, (end, (liability, others, minimum)) in enumerate(zip(ends, periods, strict=True), 1):
        row.update(
            {
                f"period_end_{k}": end,
                f"liability_{k}": liability,
                f"other_credits_{k}": others,
                f"minimum_tax_{k}": minimum,
            }
        )
    result = run_scenarios(pd.DataFrame([row]), money="decimal").iloc[0]
    periods_ = ertc.privilege_periods(ends, *map(list, zip(*periods, strict=True)))
    options: dict[str, object] = {"carryforward_years": carry, "tax_type": tax_type}
    error = _core_error(lambda: ertc.credit_schedule(start, y1, y2, periods_, **options))
    assert result["error"] == error  # e.g. credit year two ends after the last period
    if error is not None:
        return
    schedule = ertc.credit_schedule(start, y1, y2, periods_, **options)  # type: ignore[arg-type]
    for name in ("credits_allowed", "used", "refunded", "expired"):
        assert result[f"ertc_{name}"] == getattr(schedule, name)
    assert result["ertc_carried_forward"] == schedule.carried_out
    for k, period in enumerate(schedule.rows, 1):
        for name in ("new_credit", "limit", "used", "refund", "expired", "carried_out"):
            assert result[f"ertc_{name}_{k}"] == getattr(period, name), (name, k)


def _core_error(call: object) -> str | None:
    """The core's message when ``call()`` raises InputError, else None."""
    try:
        call()  # type: ignore[operator]
    except InputError as error:
        return str(error)
    return None


# =========================================================================== messages


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        (
            {"agreement_date": "2012-01-01", "pct": 50, "withholdings_1": 1, "new_employees_1": 1},
            "pct = 50: a percentage is a fraction (50% = 0.5); did you mean 50%?"
            " (N.J.S.A. 34:1B-129a.)",
        ),
        (
            {
                "agreement_date": "2012-01-01",
                "pct": 0.55,
                "withholdings_1": 1,
                "new_employees_1": 1,
            },
            "pct = 0.55: must be from 10% to 50% of the withholdings, or 0 if that basis is not"
            " used (N.J.S.A. 34:1B-129a.)",
        ),
        (
            {
                "agreement_date": "2012-01-01",
                "pct": 0.5,
                "withholdings_1": -5,
                "new_employees_1": 1,
            },
            "withholdings = -5: year 1: must not be negative (N.J.S.A. 34:1B-129a.)",
        ),
        (
            {"accrual_year": 2007, "conversion_amount": 10},
            "accrual_year = 2007: subsection e. converts grants accrued in calendar years 2008"
            " to 2025 only (N.J.S.A. 34:1B-129e.)",
        ),
    ],
)
def test_error_messages_are_the_cores(cells: dict[str, object], message: str) -> None:
    for frame in (pd.DataFrame([cells]), pd.DataFrame([cells]).astype(object)):
        assert run_scenarios(frame)["error"].iloc[0] == message


def test_messages_match_a_direct_core_call() -> None:
    with pytest.raises(InputError) as raised:
        beip.grant_schedule([100], [1], "0.9", "2012-01-01")
    frame = pd.DataFrame(
        [
            {
                "agreement_date": "2012-01-01",
                "pct": "0.9",
                "withholdings_1": 100,
                "new_employees_1": 1,
            }
        ]
    )
    assert run_scenarios(frame)["error"].iloc[0] == str(raised.value)


def test_runner_limits_are_row_errors_naming_the_column() -> None:
    frame = pd.DataFrame(
        [
            {"accrual_year": 2012, "conversion_amount": 2e11},
            {"accrual_year": 2012, "conversion_amount": 1000.005},
            {"accrual_year": 2012, "conversion_amount": 1000.25},
        ]
    )
    errors = run_scenarios(frame)["error"].tolist()
    assert errors[0] == (
        "conversion_amount = 200000000000: exceeds the scenario runner's limit of"
        " 100,000,000,000.00 (scenario runner limit, docs/scenarios.md)"
    )
    # a fraction of a cent is the core's rule, the same in every path (law/inputs.py)
    assert errors[1] == (
        "conversion_amount = 1000.005: has a fraction of a cent: money is in dollars and"
        ' cents (docs/interpretations.md "Input bounds")'
    )
    assert errors[2] is None


# =========================================================================== edge cases


def test_cap_boundary_to_the_cent() -> None:
    # 4 new employees: room 4 x 50,000 = 200,000.00 in year 1.
    # year 1: 400,000.00 x 50% = 200,000.00 -> paid in full (exactly at the cap)
    # year 2: 400,000.02 x 50% = 200,000.01; room max(0, 8 x 50,000 - 200,000) = 200,000.00
    #         -> reduced by one cent to 200,000.00
    # year 3: 0.03 x 50% = 0.015 -> 0.01 (rounded down); room 0 -> 0.00
    frame = pd.DataFrame(
        [
            {
                "agreement_date": "2003-07-01",
                "pct": 0.5,
                "withholdings_1": 400000.00,
                "withholdings_2": 400000.02,
                "withholdings_3": 0.03,
                "new_employees_1": 4,
                "new_employees_2": 8,
                "new_employees_3": 8,
            }
        ]
    )
    row = run_scenarios(frame, money="decimal").iloc[0]
    assert [row[f"grant_{k}"] for k in (1, 2, 3)] == [D("200000.00"), D("200000.00"), D("0.00")]
    assert row["grant_before_cap_3"] == D("0.01")
    assert row["grant_cap_reduction"] == D("0.02")


def test_installment_remainders_to_the_cent() -> None:
    # accrued 2016, paragraph (4): 100,000.01 / 3 = 33,333.3366.. -> 33,333.33 twice,
    # last 100,000.01 - 66,666.66 = 33,333.35.
    # accrued 2010, paragraph (1): 0.05 x 5% = 0.0025 -> 0.00; 20% 0.01; 25% 0.0125 -> 0.01
    # twice; last 0.05 - 0.03 = 0.02.
    frame = pd.DataFrame(
        [
            {"accrual_year": 2016, "conversion_amount": 100000.01},
            {"accrual_year": 2010, "conversion_amount": 0.05},
        ]
    )
    rows = run_scenarios(frame, money="decimal")
    assert [rows[f"installment_{y}"].iloc[0] for y in (2020, 2021, 2022)] == [
        D("33333.33"),
        D("33333.33"),
        D("33333.35"),
    ]
    assert [rows[f"installment_{y}"].iloc[1] for y in range(2017, 2022)] == [
        D("0.00"),
        D("0.01"),
        D("0.01"),
        D("0.01"),
        D("0.02"),
    ]


def test_refund_ratio_is_exact_not_rounded_first() -> None:
    # 3 and 1 new positions: 7,500 + 1,250. Period 1 (2023) limit 0 (liability 0).
    # Period 2 (2024): limit 0, year-one remaining 7,500 x 1/3 = 2,500.00 exactly
    # (a ratio rounded to 0.3333333333 first would give 2,499.99).
    cells = {"operations_start": "2023-01-01", "year1_new": 3, "year2_new": 1}
    for k in (1, 2):
        cells.update(
            {f"period_end_{k}": f"{2022 + k}-12-31", f"liability_{k}": 0, f"minimum_tax_{k}": 0}
        )
    row = run_scenarios(pd.DataFrame([cells]), money="decimal").iloc[0]
    assert row["ertc_refunded"] == D("2500.00")


def test_first_period_boundary() -> None:
    # The first period covers the 12 months ending on its end date. Operations
    # 2022-02-01: credit year one is 2022-02-01 to 2023-01-31.
    base = {"operations_start": "2022-02-01", "year1_new": 1, "year2_new": 1, "minimum_tax_1": 0}
    inside = {**base, "period_end_1": "2023-01-31", "period_end_2": "2024-01-31"}
    frame = pd.DataFrame([inside])
    frame["liability_1"], frame["liability_2"], frame["minimum_tax_2"] = 0, 0, 0
    row = run_scenarios(frame).iloc[0]
    assert row["error"] is None
    assert row["ertc_year1_period"] == 1
    # a first period ending 2024-02-29 starts 2023-03-01: year one (to 2023-01-31) is before it
    late = frame.assign(period_end_1="2024-02-29", period_end_2="2025-02-28")
    message = run_scenarios(late)["error"].iloc[0]
    assert "credit year one ends 2023-01-31, outside every period given (2023-03-01" in message


# =========================================================================== integer helpers


@given(st.integers(0, 2 * 10**14))
def test_float_dollars_print_as_the_exact_cents(cents_value: int) -> None:
    # every money result is below 2 x 10^14 cents within the runner's limits: the double
    # nearest cents / 100 prints as exactly that amount
    assert D(repr(cents_value / 100)) == D(cents_value) / 100


def test_true_beside_a_one_in_the_same_chunk_is_still_refused() -> None:
    """TRUE == 1 in Python: factorized together, TRUE once took the reading of 1.0.

    Found by the property above in CI: two rows of one chunk, tax_liability_2021 = 1.0
    and TRUE. The core refuses TRUE for money (N.J.S.A. 34:1B-129f.); so must the kernel.
    """
    frame = pd.DataFrame(
        {"accrual_year": [2012.0, 2012.0], "conversion_amount": [100000.0, 100000.0]}
        | {f"tax_liability_{year}": [10.0, 10.0] for year in range(2017, 2021)}
        | {"tax_liability_2021": [1.0, True]}
    )
    fast, slow = both_paths(frame)
    assert_same(fast, slow)
    assert fast["error"].iloc[0] is None or pd.isna(fast["error"].iloc[0])
    assert "must be a number, not TRUE/FALSE" in fast["error"].iloc[1]


def test_whole_term_and_proportional_cap_rows_are_vectorized() -> None:
    """Issue 19, item 8: a whole-term or proportional row stays on the kernel, with the
    core's figures. 3 x 300,000 before the cap (600,000 x 50%), 10 + 12 + 2 new
    employees: cap 50,000 x 24 / 3 = 400,000; whole term 300,000 + 100,000 + 0;
    proportional 133,333.33 + 133,333.33 + 133,333.34 (the cent to the last year)."""
    rows = []
    for method in ("whole_term", "proportional", "per_year"):
        row: dict[str, object] = {"agreement_date": "2010-01-01", "pct": 0.5}
        row["cap_method"] = method
        for k, employees in enumerate((10, 12, 2), 1):
            row[f"withholdings_{k}"] = 600000
            row[f"new_employees_{k}"] = employees
        rows.append(row)
    frame = pd.DataFrame(rows)
    fast, slow = both_paths(frame)
    assert_same(fast, slow)
    grants = fast[["grant_1", "grant_2", "grant_3"]].to_numpy().tolist()
    assert grants[0] == [30_000_000, 10_000_000, 0]
    assert grants[1] == [13_333_333, 13_333_333, 13_333_334]
    # per year: rooms 50,000 x 10 = 500,000; 50,000 x 12 - 300,000 = 300,000;
    # 50,000 x 2 - 600,000 < 0: 0
    assert grants[2] == [30_000_000, 30_000_000, 0]
    # the kernel computed them: no row went to the scalar path
    from nj_incentives.scenarios import kernel
    from nj_incentives.scenarios.columns import Layout, section_of

    assert section_of("grant").kernel(kernel.Chunk(frame), Layout(), {}).fast.all()
