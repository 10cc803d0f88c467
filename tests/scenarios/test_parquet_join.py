"""Parquet parts joined without decoding (scenarios.parquet_join): the joined file is the
one pyarrow writes from the same chunks in one writer, byte for byte."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nj_incentives.scenarios import dask_files
from nj_incentives.scenarios.io import ParquetWriter
from nj_incentives.scenarios.parquet_join import (
    JoinError,
    ParquetJoiner,
    SchemaMismatch,
    footer_of,
    outline,
)


def _chunk(rows: int, seed: int, columns: int = 20) -> pd.DataFrame:
    """Results-like: ids, money, ratios, a sparse error text, a version-like category."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"id": np.arange(rows, dtype=np.int64) + seed * 10_000})
    for c in range(columns):
        frame[f"money_{c}"] = rng.integers(0, 10**9, rows) / 100
    frame["error"] = pd.Series(rng.choice(["row 3: bad", None, None], rows), dtype=object)
    # the runner's categories are fixed (columns.version_categories), whatever a chunk holds
    acts = ["P.L.1996", "P.L.2024"]
    frame["version"] = pd.Categorical(rng.choice(acts, rows), categories=acts)
    return frame


def _write(path: Path, chunks: list[pd.DataFrame], stamp: dict[str, object] | None) -> Path:
    writer = ParquetWriter(path)
    for chunk in chunks:
        writer.write(chunk)
    writer.close(stamp)
    return path


def _joined(
    tmp: Path, parts: list[list[pd.DataFrame]], stamp: dict[str, object], *, move: bool = False
) -> Path:
    """``move``: every part offered to become the output (the first one does: renamed,
    its footer cut; the others are copied and stay)."""
    joiner = ParquetJoiner(tmp / "joined.parquet")
    for k, chunks in enumerate(parts):
        joiner.add(_write(tmp / f"part-{k}.parquet", chunks, None), move=move)
    joiner.close({"nj_incentives": json.dumps(stamp, sort_keys=True, default=str)})
    assert [(tmp / f"part-{k}.parquet").exists() for k in range(len(parts))] == [
        not (move and k == 0) for k in range(len(parts))
    ]
    return tmp / "joined.parquet"


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    sizes=st.lists(st.integers(1, 700), min_size=1, max_size=9),
    cuts=st.lists(st.booleans(), min_size=8, max_size=8),
    columns=st.integers(1, 40),
    move=st.booleans(),
)
def test_joined_parts_are_the_one_writers_file_byte_for_byte(
    tmp_path_factory: pytest.TempPathFactory,
    sizes: list[int],
    cuts: list[bool],
    columns: int,
    move: bool,
) -> None:
    tmp = tmp_path_factory.mktemp("join")
    chunks = [_chunk(rows, seed, columns) for seed, rows in enumerate(sizes)]
    # the chunks cut into parts where ``cuts`` says (every part at least one chunk)
    parts: list[list[pd.DataFrame]] = [[chunks[0]]]
    for chunk, cut in zip(chunks[1:], cuts, strict=False):
        if cut:
            parts.append([chunk])
        else:
            parts[-1].append(chunk)
    stamp = {"rows": sum(sizes), "engine": "test"}
    whole = _write(tmp / "whole.parquet", chunks, stamp)
    joined = _joined(tmp, parts, stamp, move=move)
    assert joined.read_bytes() == whole.read_bytes()
    table = pq.read_table(joined)
    assert table.num_rows == sum(sizes)
    assert pq.ParquetFile(joined).metadata.num_row_groups == len(sizes)


def test_more_than_fifteen_row_groups_and_a_wide_table(tmp_path: Path) -> None:
    # a compact list of 15 or more items has a longer header: 17 row groups of 93 columns
    chunks = [_chunk(50, seed, 90) for seed in range(17)]
    stamp = {"rows": 850}
    whole = _write(tmp_path / "whole.parquet", chunks, stamp)
    joined = _joined(tmp_path, [chunks[:15], chunks[15:]], stamp, move=True)
    assert joined.read_bytes() == whole.read_bytes()


def test_row_group_ordinals_and_page_indexes_are_moved(tmp_path: Path) -> None:
    # pyarrow writes no ordinal and no page index in our files; a writer that does: each
    # offset moves with its row group, and the ordinals count across the parts
    table = pa.table({"a": np.arange(3_000), "b": np.arange(3_000) * 0.5})
    for k in range(2):
        pq.write_table(
            table.slice(k * 1_500, 1_500),
            tmp_path / f"p{k}.parquet",
            row_group_size=500,
            write_page_index=True,
        )
    joiner = ParquetJoiner(tmp_path / "joined.parquet")
    for k in range(2):
        joiner.add(tmp_path / f"p{k}.parquet")
    joiner.close()
    file = pq.ParquetFile(tmp_path / "joined.parquet")
    assert file.metadata.num_row_groups == 6
    assert file.read().equals(table)
    for g in range(6):  # every row group read on its own (its offsets are right)
        assert file.read_row_group(g).equals(table.slice(g * 500, 500))
    # a statistics reader walks the page index: it reads the moved column indexes
    assert file.metadata.row_group(5).column(0).statistics.min == 2_500


def test_a_part_of_another_schema_is_refused_then_cast_by_the_run(tmp_path: Path) -> None:
    first = _write(tmp_path / "a.parquet", [_chunk(10, 1, 2)], None)
    other = _chunk(10, 2, 2)
    other["money_0"] = other["money_0"].astype("float32")  # another type
    second = _write(tmp_path / "b.parquet", [other], None)
    joiner = ParquetJoiner(tmp_path / "out.parquet")
    joiner.add(first)
    with pytest.raises(SchemaMismatch, match="another schema"):
        joiner.add(second)
    joiner.abort()
    # the run's joiner casts such a part to the first part's schema, as the pandas
    # engine casts every chunk to its first chunk's schema
    target = tmp_path / "run.parquet"
    with dask_files._Joiner(target, "parquet") as joiner2:
        for name in ("a", "b"):
            part = tmp_path / f"{name}2.parquet"
            chunks = [_chunk(10, 1, 2)] if name == "a" else [other]
            _write(part, chunks, None)
            joiner2.add(dask_files.Part("", 0, 0, 1, 0, 10, str(part)))
        joiner2.stamp = {"rows": 20}
    pandas_engine = _write(tmp_path / "pandas.parquet", [_chunk(10, 1, 2), other], {"rows": 20})
    assert target.read_bytes() == pandas_engine.read_bytes()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda b: b[:-1] + b"X", "no PAR1 marks"),
        (lambda b: b[:8], "too short"),
        (lambda b: b[:-8] + (10**8).to_bytes(4, "little") + b"PAR1", "a footer of"),
        (lambda b: b[:-200] + b[-8:], "footer"),
    ],
)
def test_a_damaged_part_is_refused(tmp_path: Path, damage: object, message: str) -> None:
    part = _write(tmp_path / "p.parquet", [_chunk(20, 1, 3)], None)
    part.write_bytes(damage(part.read_bytes()))  # type: ignore[operator]
    joiner = ParquetJoiner(tmp_path / "out.parquet")
    with pytest.raises(JoinError, match=message):
        joiner.add(part)
    joiner.abort()


def test_footer_of_reads_where_the_data_ends(tmp_path: Path) -> None:
    part = _write(tmp_path / "p.parquet", [_chunk(20, 1, 3)], None)
    size = os.path.getsize(part)
    with part.open("rb") as source:
        raw, end = footer_of(source, size)
    # the file: PAR1, the data, the footer, its length (4 bytes), PAR1
    assert end + len(raw) + 8 == size
    assert part.read_bytes()[end : end + len(raw)] == raw


def _outline_by_pyarrow(path: Path) -> tuple[list[str], int, list[int]]:
    meta = pq.ParquetFile(path).metadata
    names = [str(n) for n in pq.read_schema(path).names]
    return names, meta.num_rows, [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]


def test_the_outline_is_what_pyarrow_reads_of_the_file(tmp_path: Path) -> None:
    # the Dask client's columns and row groups, from the footer without pyarrow: flat,
    # with a pandas index, nested (a struct and a list: their leaves are not columns),
    # no rows at all, and more than fifteen row groups (a list header's long count)
    frame = _chunk(40, 1, 3)
    files = {
        "flat": pa.Table.from_pandas(frame, preserve_index=False),
        "index": pa.Table.from_pandas(frame.set_index("id")),
        "nested": pa.table(
            {
                "a": [1, 2, 3],
                "s": [{"x": 1, "y": {"z": "q"}}, None, {"x": 3, "y": None}],
                "l": [[1, 2], [], None],
                "b": ["p", "q", None],
            }
        ),
        "empty": pa.Table.from_pandas(frame.iloc[:0], preserve_index=False),
    }
    for name, table in files.items():
        path = tmp_path / f"{name}.parquet"
        pq.write_table(table, path, row_group_size=7)
        found = outline(path)
        assert (found.names, found.rows, found.groups) == _outline_by_pyarrow(path), name
    assert len(outline(tmp_path / "flat.parquet").groups) == 6  # 40 rows / 7
    many = tmp_path / "many.parquet"
    pq.write_table(pa.Table.from_pandas(_chunk(100, 2, 1)), many, row_group_size=5)
    assert outline(many).groups == [5] * 20


def test_a_footer_the_outline_cannot_follow_is_read_by_pyarrow(tmp_path: Path) -> None:
    # not Parquet: the reader's JoinError, and the client's message is pyarrow's, as the
    # pandas engine's reader words it (dask_files.file_outline)
    from nj_incentives.scenarios.columns import ScenarioError

    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1" + b"\x00" * 20 + b"PAR1")
    with pytest.raises(JoinError):
        outline(bad)
    with pytest.raises(ScenarioError, match="cannot read the scenario table"):
        dask_files.file_outline(bad)
    good = tmp_path / "good.parquet"
    pq.write_table(pa.Table.from_pandas(_chunk(10, 3, 1)), good)
    assert dask_files.file_outline(good) == outline(good)
