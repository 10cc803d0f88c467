"""Streaming file-to-file runs (issue 14 item 2): the same results as the table in memory,
whatever the chunking; a file that cannot be read in chunks runs in memory."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from python_calamine import CalamineWorkbook

from nj_incentives.cli import main
from nj_incentives.cli import scenarios as scenarios_cli
from nj_incentives.scenarios import analysis, stream
from nj_incentives.scenarios.generate import example_portfolio

EXAMPLES = Path(__file__).resolve().parents[2] / "workbooks" / "examples"


def _run(*args: object) -> int:
    return main(["scenarios", *map(str, args)])


@pytest.fixture
def table(tmp_path: Path) -> pd.DataFrame:
    frame = example_portfolio(2_500, seed=7)
    frame.loc[frame.index[::97], "pct"] = 0.95  # bad rows: the core's messages
    frame.loc[frame.index[::131], "withholdings_1"] = -5
    frame["label"] = [f"row {i}" if i % 3 else None for i in range(len(frame))]
    return frame


def _both(
    monkeypatch: pytest.MonkeyPatch, source: Path, out: Path, *options: object
) -> tuple[Path, Path]:
    """The run streamed (small chunks) and in memory (exit status 1: rows with errors)."""
    monkeypatch.setattr(stream, "STREAM_ROWS", 300)
    monkeypatch.setattr(stream, "CSV_BLOCK_BYTES", 1 << 12)  # blocks gathered into chunks
    monkeypatch.setattr(stream, "CSV_TYPES_BYTES", 1 << 16)
    streamed = out.with_name("streamed" + out.suffix)
    assert _run(source, "-o", streamed, *options) == 1
    with monkeypatch.context() as patch:
        patch.setattr(scenarios_cli, "_streamable", lambda _args: False)
        memory = out.with_name("memory" + out.suffix)
        assert _run(source, "-o", memory, *options) == 1
    return streamed, memory


@pytest.mark.parametrize("source_format", ["csv", "parquet"])
def test_streamed_csv_is_the_in_memory_csv(
    table: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source_format: str
) -> None:
    source = tmp_path / f"in.{source_format}"
    if source_format == "csv":
        table.to_csv(source, index=False)
    else:
        table.to_parquet(source, index=False)
    streamed, memory = _both(monkeypatch, source, tmp_path / "out.csv")
    assert streamed.read_bytes() == memory.read_bytes()
    assert len(pd.read_csv(streamed)) == len(table)
    stamp = json.loads(streamed.with_suffix(".json").read_text())
    assert stamp["rows"] == len(table)
    assert stamp["rows_with_errors"] > 0
    summaries = [pd.read_csv(p.with_suffix(".summary.csv")) for p in (streamed, memory)]
    pd.testing.assert_frame_equal(*summaries, check_exact=False, rtol=1e-12)


def test_streamed_parquet_is_the_in_memory_parquet(
    table: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "in.parquet"
    table.drop(columns="label").to_parquet(source, index=False)
    streamed, memory = _both(monkeypatch, source, tmp_path / "out.parquet", "--money", "cents")
    a, b = pq.read_table(streamed), pq.read_table(memory)
    assert a.num_rows == len(table)
    assert a.schema.remove_metadata().equals(b.schema.remove_metadata())
    assert a.equals(b)
    assert pq.ParquetFile(streamed).metadata.num_row_groups > 1  # written chunk by chunk
    pd.testing.assert_frame_equal(pd.read_parquet(streamed), pd.read_parquet(memory))
    stamp = json.loads(pq.read_metadata(streamed).metadata[b"nj_incentives"])
    assert stamp["rows"] == len(table)


def test_streamed_xlsx_is_the_in_memory_xlsx(
    table: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "in.csv"
    table.iloc[:700].to_csv(source, index=False)
    streamed, memory = _both(monkeypatch, source, tmp_path / "out.xlsx")
    books = [CalamineWorkbook.from_path(str(p)) for p in (streamed, memory)]
    a, b = (book.get_sheet_by_name("Results").to_python() for book in books)
    assert len(a) == 701
    assert a == b
    a, b = (book.get_sheet_by_name("Summary").to_python() for book in books)
    assert [row[0] for row in a] == [row[0] for row in b]
    assert [row[1:] for row in a[1:]] == [pytest.approx(row[1:], rel=1e-12) for row in b[1:]]
    assert books[0].sheet_names == ["Results", "Summary", "Run"]


def test_a_csv_whose_types_change_below_the_first_block_runs_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = example_portfolio(3_000, seed=3)
    frame["new_employees_1"] = frame["new_employees_1"].astype(object)
    frame.loc[2_900, "new_employees_1"] = "lots"  # text far below the first block
    frame.to_csv(tmp_path / "in.csv", index=False)
    monkeypatch.setattr(stream, "CSV_TYPES_BYTES", 1 << 16)
    assert _run(tmp_path / "in.csv", "-o", tmp_path / "out.csv") == 1  # the row with text
    results = pd.read_csv(tmp_path / "out.csv")
    assert len(results) == 3_000
    assert "new_employees = 'lots'" in str(results.loc[2_900, "error"])
    assert results["error"].notna().sum() == 1


def _bytes_read() -> int:
    """Bytes this process has read with read() so far (Linux: /proc/self/io)."""
    text = Path("/proc/self/io").read_text()
    return int(next(line for line in text.splitlines() if line.startswith("rchar:")).split()[1])


def test_a_csv_is_read_a_few_blocks_ahead_and_handed_out_in_whole_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35: pyarrow's streaming CSV reader reads up to 32 blocks ahead of what it has
    handed out (and decodes a few more), so its memory is that many blocks; at 16 MiB a
    block it held a whole 258 MB file. Blocks are small and gathered into chunks."""
    # the defaults: the head read for the types and about 40 blocks, whatever the file
    assert stream.CSV_TYPES_BYTES + 41 * stream.CSV_BLOCK_BYTES <= 64 << 20
    path = tmp_path / "in.csv"
    example_portfolio(4_000, seed=19).to_csv(path, index=False)
    size = path.stat().st_size  # about 1 MB
    monkeypatch.setattr(stream, "CSV_BLOCK_BYTES", 1 << 12)
    monkeypatch.setattr(stream, "CSV_TYPES_BYTES", 1 << 14)
    reader = stream.StreamReader(path, "csv", 250)
    frames = reader.frames(["id", "pct"])  # two columns decoded: the file read whole
    before = _bytes_read()
    first = next(frames)
    time.sleep(0.2)  # what a reader with no bound would have read of the file by now
    ahead = _bytes_read() - before
    assert ahead <= 48 * (1 << 12) + (100 << 10) < size / 2  # 48 blocks (and a few .pyc)
    sizes = [len(first), *(len(f) for f in frames)]
    assert sizes == [250] * 16  # whole chunks of ``chunk_rows`` rows, in order
    assert reader.count_rows() == 4_000


def test_an_empty_table_runs_in_memory(tmp_path: Path) -> None:
    head = pd.read_csv(EXAMPLES / "scenarios.csv").iloc[:0]
    head.to_csv(tmp_path / "empty.csv", index=False)
    assert _run(tmp_path / "empty.csv", "-o", tmp_path / "out.csv") == 0
    assert len(pd.read_csv(tmp_path / "out.csv")) == 0


def test_the_summary_is_the_same_however_the_run_is_chunked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from nj_incentives.scenarios import run_scenarios

    monkeypatch.setattr(analysis, "SAMPLE_ROWS", 400)
    results = run_scenarios(example_portfolio(1_500, seed=11))
    whole = analysis.summary(results)
    builder = analysis.SummaryBuilder(len(results))
    for start in range(0, len(results), 170):
        builder.add(results.iloc[start : start + 170], start)
    pd.testing.assert_frame_equal(builder.frame(), whole, check_exact=False, rtol=1e-12)
    assert (whole.loc[whole["count"] > 400, "percentile_count"] <= 400).all()
    # count, mean, min and max are over every row
    grant = whole.set_index("output").loc["grant_total"]
    values = results["grant_total"].dropna().to_numpy()
    assert grant["count"] == values.size
    assert grant["max"] == values.max()
    assert grant["mean"] == pytest.approx(values.mean(), rel=1e-12)
    assert np.isclose(grant["p50"], np.percentile(values, 50), rtol=0.2)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(min_value=-1e11, max_value=1e11, allow_nan=False), min_size=1, max_size=300)
)
def test_percentiles_from_one_sort_are_numpys(values: list[float]) -> None:
    array = np.asarray(values)
    found = analysis._percentiles(array)
    expected = np.percentile(array, analysis.PERCENTILES, method="inverted_cdf")
    assert np.array_equal(found, expected)  # nearest rank: exactly numpy's
    assert np.isin(found, array).all()  # each one of the values (a money one: to the cent)


#: the layout columns' Arrow types the statistics prove from, and others they leave to
#: the pass over the rows (text, floats, dates read as objects, a time zone)
_LAYOUT_TYPES = {
    "periods": ["int64", "int32", "uint8", "float64", "string"],
    "accrual_year": ["int64", "int16", "float64"],
    "approval_date": ["timestamp[ms]", "timestamp[us]", "date32", "timestamp[ms, tz=UTC]"],
}


@settings(max_examples=40, deadline=None)
@given(
    rows=st.integers(1, 60),
    group=st.integers(1, 25),
    periods=st.tuples(st.integers(-2, 45), st.integers(0, 6)),  # first value, spread
    years=st.tuples(st.integers(2003, 2030), st.integers(0, 5)),
    days=st.tuples(st.integers(15_000, 21_000), st.integers(0, 900)),
    blanks=st.sets(st.sampled_from(sorted(_LAYOUT_TYPES)), max_size=3),
    kinds=st.tuples(*(st.integers(0, len(t) - 1) for t in _LAYOUT_TYPES.values())),
    times=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_the_plan_from_parquet_statistics_is_the_pass_over_the_rows(
    tmp_path_factory: pytest.TempPathFactory,
    rows: int,
    group: int,
    periods: tuple[int, int],
    years: tuple[int, int],
    days: tuple[int, int],
    blanks: set[str],
    kinds: tuple[int, ...],
    times: bool,
    seed: int,
) -> None:
    # the layout proved from the statistics (stream._layout_by_statistics) is the one the
    # pass over the rows plans, and the in-memory plan of the whole table, whatever the
    # values (usable or not: periods 0 or 41, accrual years outside 2008-2025, approval
    # days from 2011 to 2059, times of day), blanks, types and row groups
    import pyarrow as pa

    from nj_incentives.scenarios.runner import plan_layout

    rng = np.random.default_rng(seed)
    frame = example_portfolio(rows, seed=seed % 97)
    spans = {"periods": periods, "accrual_year": years, "approval_date": days}
    arrays: dict[str, pa.Array] = {}
    for (name, types), k in zip(_LAYOUT_TYPES.items(), kinds, strict=True):
        first, spread = spans[name]
        values = first + rng.integers(0, spread + 1, rows)
        blank = rng.random(rows) < 0.2 if name in blanks else np.zeros(rows, bool)
        kind = types[k]
        if name == "approval_date":
            stamps = values.astype("datetime64[D]").astype("datetime64[ms]")
            if times:
                stamps = stamps + rng.integers(0, 86_400_000, rows).astype("timedelta64[ms]")
            array = pa.array(stamps, mask=blank)
            kind = kind.replace("date32", "date32[day]")
            arrays[name] = (
                array.cast(pa.timestamp("ms", tz="UTC"))
                if "tz" in kind
                else (array.cast(pa.date32()) if kind.startswith("date32") else array.cast(kind))
            )
        elif kind == "string":
            arrays[name] = pa.array(values.astype(str), mask=blank)
        else:
            arrays[name] = pa.array(values, mask=blank).cast(kind, safe=False)
    table = pa.Table.from_pandas(frame.drop(columns=list(arrays)), preserve_index=False)
    for name, array in arrays.items():
        table = table.append_column(name, array)
    path = tmp_path_factory.mktemp("stats") / "in.parquet"
    pq.write_table(table, path, row_group_size=group)
    reader = stream.StreamReader(path, "parquet")
    proved = stream.plan_layout_streaming(reader, True)
    with pytest.MonkeyPatch.context() as patch:  # the pass over the rows
        patch.setattr(stream, "_layout_by_statistics", lambda *args: None)
        assert stream.plan_layout_streaming(reader, True) == proved
    assert proved == (plan_layout(pd.read_parquet(path), True), rows)


def test_the_benchmark_table_is_planned_from_its_statistics(tmp_path: Path) -> None:
    # the example portfolio's statistics prove its layout (no pass over its rows). A box
    # that reaches a conversion past 2025 (accrual year 2012 approved 2024-06-30: tax
    # years to 2028) needs the rows: not proved, and the rows' plan says 2028
    from nj_incentives.scenarios.runner import plan_layout

    frame = example_portfolio(500, seed=3)
    path = tmp_path / "in.parquet"
    frame.to_parquet(path, index=False, row_group_size=128)
    reader = stream.StreamReader(path, "parquet")
    base = plan_layout(pd.DataFrame(columns=reader.columns), True)
    wanted = ["periods", "accrual_year", "approval_date"]
    proved = stream._layout_by_statistics(reader, wanted, base)
    assert proved is not None
    assert (proved, 500) == (plan_layout(frame, True), 500)
    late = frame.assign(accrual_year=2012, approval_date=pd.Timestamp("2024-06-30"))
    late.to_parquet(path, index=False)
    reader = stream.StreamReader(path, "parquet")
    assert stream._layout_by_statistics(reader, wanted, base) is None
    planned = stream.plan_layout_streaming(reader, True)
    assert planned == (plan_layout(late, True), 500)
    assert planned[0].last_tax_year == 2028
