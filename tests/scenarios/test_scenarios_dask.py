"""The Dask engine on a local Dask cluster started here: results identical to pandas."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from nj_incentives.cli import main
from nj_incentives.scenarios import run_scenarios
from nj_incentives.scenarios.generate import example_portfolio
from nj_incentives.scenarios.io import read_table

pytestmark = pytest.mark.dask

distributed = pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

EXAMPLES = Path(__file__).resolve().parents[2] / "workbooks" / "examples"


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A small local cluster: two worker processes, one thread each."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    """The examples (one bad row) and a synthetic portfolio, with a few bad cells."""
    portfolio = example_portfolio(4000, seed=9)
    portfolio.loc[portfolio.index[::500], "pct"] = 0.95  # out of bounds: error rows
    portfolio["id"] = portfolio["id"].astype(str)
    examples = read_table(EXAMPLES / "scenarios.csv")
    return pd.concat([examples, portfolio], ignore_index=True)


def test_dask_on_a_local_cluster_equals_pandas(cluster: str, table: pd.DataFrame) -> None:
    expected = run_scenarios(table)
    got = run_scenarios(table, engine="dask", scheduler=cluster, npartitions=5)
    pd.testing.assert_frame_equal(got, expected)
    assert got["error"].notna().sum() == 1 + 8


def test_dask_money_in_cents(cluster: str, table: pd.DataFrame) -> None:
    part = table.iloc[:600]
    pd.testing.assert_frame_equal(
        run_scenarios(part, engine="dask", scheduler=cluster, npartitions=3, money="cents"),
        run_scenarios(part, money="cents"),
    )


def test_cli_with_the_cluster(cluster: str, tmp_path: Path) -> None:
    out_dask, out_pandas = tmp_path / "dask.parquet", tmp_path / "pandas.parquet"
    source = EXAMPLES / "scenarios.csv"
    # exit 1: the example's bad-pct row has an error (in both engines)
    assert main(["scenarios", str(source), "-o", str(out_dask), "--engine", "dask",
                 "--scheduler", cluster, "--partitions", "2"]) == 1  # fmt: skip
    assert main(["scenarios", str(source), "-o", str(out_pandas)]) == 1
    pd.testing.assert_frame_equal(pd.read_parquet(out_dask), pd.read_parquet(out_pandas))
