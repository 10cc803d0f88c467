"""Dask file-to-file runs (issue 14 item 3): the workers read and write their parts; the
output is the pandas engine's streaming output. On a LocalCluster started here (small)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from nj_incentives.cli import main
from nj_incentives.scenarios import stream
from nj_incentives.scenarios.generate import example_portfolio

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    frame = example_portfolio(3_000, seed=5)
    frame.loc[frame.index[::211], "pct"] = 0.95
    path = tmp_path_factory.mktemp("dask") / "in.parquet"
    frame.to_parquet(path, index=False, row_group_size=1_000)  # three row groups
    return path


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_workers_write_what_the_pandas_engine_writes(
    cluster: str, source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    monkeypatch.setattr(stream, "STREAM_ROWS", 400)  # passed to the workers with each task
    on_dask, on_pandas = tmp_path / f"dask{suffix}", tmp_path / f"pandas{suffix}"
    args = ["--money", "cents"]
    dask_args = ["--engine", "dask", "--scheduler", cluster, "--partitions", "5"]
    assert main(["scenarios", str(source), "-o", str(on_dask), *args, *dask_args]) == 1
    assert main(["scenarios", str(source), "-o", str(on_pandas), *args]) == 1
    if suffix == ".csv":
        assert on_dask.read_bytes() == on_pandas.read_bytes()
        stamp = json.loads(on_dask.with_suffix(".json").read_text())
    else:
        a, b = pq.read_table(on_dask), pq.read_table(on_pandas)
        assert a.equals(b)
        assert a.schema.remove_metadata().equals(b.schema.remove_metadata())
        pd.testing.assert_frame_equal(pd.read_parquet(on_dask), pd.read_parquet(on_pandas))
        stamp = json.loads(pq.read_metadata(on_dask).metadata[b"nj_incentives"])
    assert stamp["rows"] == 3_000
    assert stamp["rows_with_errors"] == 15
    assert stamp["engine"] == "dask"
    summaries = [pd.read_csv(p.with_suffix(".summary.csv")) for p in (on_dask, on_pandas)]
    pd.testing.assert_frame_equal(*summaries, check_exact=False, rtol=1e-12)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # parts removed
