"""The scenario runner names the version of the law each row applied (issue 19):
``grant_version``, the core's ``version`` of the grant schedule, computed per row by the
kernel (an act code per row, a categorical of the act names) and carried as a text
result column through every writer, the summary, the Dask engine and NJ_SCENARIOS."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.core import parameters as P
from nj_incentives.core.common import InputError
from nj_incentives.core.rules import EXACT, Int64
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as beip
from nj_incentives.scenarios import analysis, kernel, run_scenarios
from nj_incentives.scenarios.columns import OutKind, section_of, version_categories
from nj_incentives.scenarios.io import Outputs, write_results
from nj_incentives.scenarios.runner import _run_frame, plan_layout
from nj_incentives.scenarios.table import scenarios_table

D = Decimal
BASE = P.first_modelled("beip")
INT64 = Int64()

#: Two made-up amendments (as tests/functions/test_law_versions.py's drill), so that a row's
#: version depends on its agreement date, its law_as_of and on which figure was amended:
#: the average cap $60,000 for agreements from 2025-01-01 (enacted 2024-12-01), and the
#: cap's start date re-enacted, unchanged, for agreements from 2026-01-01 (enacted
#: 2025-06-01).
CAP_ACT = P.Act("beip", "P.L.2024, c.999 (drill)", dt.date(2024, 12, 1), source="test fixture")
START_ACT = P.Act("beip", "P.L.2025, c.998 (drill)", dt.date(2025, 6, 1), source="test fixture")
CAP_FROM = dt.date(2025, 1, 1)
START_FROM = dt.date(2026, 1, 1)


@pytest.fixture
def two_drills() -> Iterator[None]:
    with _two_drills():
        yield


def _two_drills() -> Any:
    from contextlib import ExitStack

    stack = ExitStack()
    stack.enter_context(
        P.amended(BEIP.AVERAGE_CAP, P.Version(D(60000), CAP_ACT, applies_from=CAP_FROM))
    )
    start = BEIP.CAP_AGREEMENTS_FROM.base
    stack.enter_context(
        P.amended(BEIP.CAP_AGREEMENTS_FROM, P.Version(start, START_ACT, applies_from=START_FROM))
    )
    return stack


def _grant_rows(agreements: list[dt.date], law_as_of: list[dt.date | None] | None) -> pd.DataFrame:
    """One-year grants: 1,000,000.00 withholdings at 50%, 5 new employees."""
    n = len(agreements)
    rows: dict[str, Any] = {
        "id": list(range(n)),
        "agreement_date": agreements,
        "pct": [0.5] * n,
        "withholdings_1": [1000000.0] * n,
        "new_employees_1": [5] * n,
    }
    if law_as_of is not None:
        rows["law_as_of"] = law_as_of
    return pd.DataFrame(rows)


def _core_version(agreement: dt.date, as_of: dt.date | None) -> str | None:
    """The exact core's ``version`` of the same grant (None where the core refuses it)."""
    try:
        schedule = beip.grant_schedule([1000000], [5], D("0.5"), agreement, law_as_of=as_of)
    except InputError:
        return None
    return schedule.version


def _near(*days: dt.date) -> st.SearchStrategy[dt.date]:
    """A date within 40 days of one of ``days`` (both sides of an effective date)."""
    return st.sampled_from(days).flatmap(
        lambda day: st.integers(-40, 40).map(lambda shift: day + dt.timedelta(days=shift))
    )


AGREEMENTS = st.one_of(
    _near(beip.CAP_AGREEMENTS_FROM, CAP_FROM, START_FROM),
    st.dates(dt.date(2000, 1, 1), dt.date(2030, 12, 31)),
)
LAW_AS_OF = st.one_of(
    st.none(),
    _near(BASE.date, CAP_ACT.date, START_ACT.date),
    st.dates(dt.date(2020, 1, 1), dt.date(2030, 12, 31)),
)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(AGREEMENTS, LAW_AS_OF), min_size=1, max_size=25),
    with_column=st.booleans(),
)
def test_grant_version_is_the_cores_version(
    rows: list[tuple[dt.date, dt.date | None]], with_column: bool
) -> None:
    with _two_drills():
        agreements = [agreement for agreement, _ in rows]
        as_of = [day if with_column else None for _, day in rows]
        frame = _grant_rows(agreements, as_of if with_column else None)
        expected = [_core_version(day, known) for day, known in zip(agreements, as_of, strict=True)]
        layout = plan_layout(frame)
        fast = _run_frame(frame, layout)
        slow = _run_frame(frame, layout, force_scalar=True)
        for result in (fast, slow):
            got = [None if pd.isna(v) else v for v in result["grant_version"]]
            assert got == expected
            # a row whose grant failed (a law_as_of before the first version) is blank
            failed = result["error"].notna().tolist()
            assert failed == [v is None for v in expected]
        # the kernel computed every row the core computes (none left to the scalar path)
        grant = section_of("grant").kernel(kernel.Chunk(frame), layout, {})
        assert grant.fast.tolist() == [v is not None for v in expected]
        categories = version_categories("beip")
        codes = grant.values["grant_version"][0]
        assert [categories[c] for c, ok in zip(codes, grant.fast, strict=True) if ok] == [
            v for v in expected if v is not None
        ]


def test_the_drills_reach_every_act(two_drills: None) -> None:
    # the property above is not vacuous: each act is some row's version
    # 2025-01-01 under the law in force: the cap's act; 2026-01-01: the start date's act
    # (the later of the two); as of 2025-05-31 the start date's act is not yet known;
    # as of 2024-11-30 neither is; 2024-12-31: before both amendments apply
    cases = {
        (dt.date(2025, 1, 1), None): CAP_ACT.name,
        (dt.date(2026, 1, 1), None): START_ACT.name,
        (dt.date(2026, 1, 1), dt.date(2025, 5, 31)): CAP_ACT.name,
        (dt.date(2026, 1, 1), dt.date(2024, 11, 30)): BASE.name,
        (dt.date(2024, 12, 31), None): BASE.name,
    }
    frame = _grant_rows([a for a, _ in cases], [k for _, k in cases])
    result = run_scenarios(frame)
    assert result["grant_version"].tolist() == list(cases.values())
    assert [_core_version(*key) for key in cases] == list(cases.values())
    # 60,000 x 5 under the cap's act, 50,000 x 5 before it
    assert result["grant_total"].tolist() == [300000.0, 300000.0, 300000.0, 250000.0, 250000.0]


def test_the_rule_is_one_for_both_evaluators(two_drills: None) -> None:
    days = [dt.date(2024, 12, 31), dt.date(2025, 1, 1), dt.date(2026, 1, 1)]
    numbers = np.array([(day - dt.date(1970, 1, 1)).days for day in days], np.int64)
    codes = beip.cap_version_rule(INT64, numbers, None)
    exact = [beip.cap_version_rule(EXACT, day, None) for day in days]
    assert codes.tolist() == exact
    order = P.act_order("beip")
    assert [order[c].name for c in exact] == [beip.cap_version(day) for day in days]
    assert [order[c] for c in exact] == [
        P.applied("beip", ((BEIP.AVERAGE_CAP, d), (BEIP.CAP_AGREEMENTS_FROM, d))) for d in days
    ]


def test_without_amendments_one_constant_code() -> None:
    # every figure of the cap has one version: one code for every row, no array work
    assert beip.cap_version_rule(INT64, np.arange(3, dtype=np.int64), None) == 0
    assert version_categories("beip")[0] == BASE.name


# --------------------------------------------------------------------------- the column


def _mixed() -> pd.DataFrame:
    """A grant row, a bad grant row, a row without a grant (a conversion only)."""
    return pd.DataFrame(
        {
            "id": ["ok", "bad", "conversion"],
            "agreement_date": ["2010-05-01", "2010-05-01", None],
            "pct": [0.5, 0.95, None],
            "withholdings_1": [100000.0, 100000.0, None],
            "new_employees_1": [3, 3, None],
            "accrual_year": [None, None, 2016],
            "conversion_amount": [None, None, 300.0],
        }
    )


def test_a_text_result_column() -> None:
    spec = next(s for s in plan_layout(_mixed()).outputs() if s.name == "grant_version")
    assert spec.kind is OutKind.TEXT
    assert spec.categories == version_categories("beip")
    for money in ("float", "cents", "decimal"):
        result = run_scenarios(_mixed(), money=money)
        column = result["grant_version"]
        assert isinstance(column.dtype, pd.CategoricalDtype)
        assert list(column.cat.categories) == list(spec.categories)
        assert column.tolist()[0] == BASE.name
        assert column.isna().tolist() == [False, True, True]  # the error row keeps a blank
    assert list(result.columns).index("grant_version") == 7  # after grant_cap_reduction


def test_the_summary_leaves_text_out() -> None:
    result = run_scenarios(_mixed())
    assert "grant_version" not in analysis.numeric_outputs(result)
    assert "grant_version" not in analysis.summary(result)["output"].tolist()


def test_the_writers(tmp_path: Path) -> None:
    result = run_scenarios(_mixed())
    outputs = Outputs(result, {"rows": 3}, analysis.summary(result))
    for suffix in ("csv", "parquet", "xlsx"):
        write_results(tmp_path / f"out.{suffix}", outputs)
    # CSV: the name as quoted text; blank where the grant failed or is absent
    lines = (tmp_path / "out.csv").read_text().splitlines()
    header = lines[0].split(",")
    assert header[7] == '"grant_version"'
    assert f',"{BASE.name}",' in lines[1]
    csv = pd.read_csv(tmp_path / "out.csv")
    assert csv["grant_version"].isna().tolist() == [False, True, True]
    # Parquet: a dictionary column, dictionary-encoded, read back as the same categorical
    file = pq.ParquetFile(tmp_path / "out.parquet")
    index = file.schema_arrow.get_field_index("grant_version")
    assert pa.types.is_dictionary(file.schema_arrow.field(index).type)
    assert "RLE_DICTIONARY" in file.metadata.row_group(0).column(index).encodings
    back = pd.read_parquet(tmp_path / "out.parquet")
    pd.testing.assert_series_equal(back["grant_version"], result["grant_version"])
    # XLSX: text cells, blank cells
    sheet = pd.read_excel(tmp_path / "out.xlsx", sheet_name="Results", engine="calamine")
    assert sheet["grant_version"].tolist()[0] == BASE.name
    assert sheet["grant_version"].isna().tolist() == [False, True, True]
    summary = pd.read_excel(tmp_path / "out.xlsx", sheet_name="Summary", engine="calamine")
    assert "grant_version" not in summary["output"].tolist()


def test_dask_gives_the_same_column() -> None:
    pytest.importorskip("dask")
    frame = pd.concat([_mixed()] * 4, ignore_index=True).assign(id=range(12))
    expected = run_scenarios(frame)
    got = run_scenarios(frame, engine="dask", npartitions=3, scheduler="synchronous")
    pd.testing.assert_frame_equal(got, expected)


def test_nj_scenarios_spills_the_version() -> None:
    table = [
        ["id", "agreement_date", "pct", "withholdings_1", "new_employees_1"],
        ["ok", 40299, 0.5, 100000, 3],  # 2010-05-01
        ["bad", 40299, 0.95, 100000, 3],
    ]
    header, *rows = scenarios_table(table)
    by_id = {row[0]: dict(zip(header, row, strict=True)) for row in rows}
    assert by_id["ok"]["grant_version"] == BASE.name
    assert by_id["bad"]["grant_version"] is None
    assert by_id["bad"]["error"].startswith("pct = 0.95")
