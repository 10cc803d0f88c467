"""CSV output safety of the scenario runner (issue 11 item 5; defects named as in issue 11).

Every field holding a quote, comma, CR or LF is quoted; formula-leading text is
neutralised in headers and values, also after a CR or LF inside a value; the file reads
back to the same rows with Python's csv module and with pandas.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.cli import main
from nj_incentives.scenarios.io import read_table, write_csv
from nj_incentives.support.csv_safety import FORMULA_START, neutralise_text

EXAMPLES = Path(__file__).resolve().parents[2] / "workbooks" / "examples"
HOSTILE = [
    "x\r=cmd|' /C calc'!A0",  # the bare CR of issue 11: a reader splitting on CR saw a new row
    "=1+1",
    "+1",
    "-2",
    "@SUM(A1)",
    "\t=1",
    "  =1",
    "a,b",
    'say "hi"',
    "line one\nline two",
    "two\r\n=HYPERLINK(1)",
    "\uff1d1+1",
    "plain",
]


def _csv_rows(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def _safe(text: str) -> bool:
    """No line of the text starts (after spaces) with a formula sign or a tab."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return all(not line.lstrip(" ").startswith(FORMULA_START) for line in lines)


def _hostile_table(tmp_path: Path, rows: int) -> Path:
    base = pd.read_csv(EXAMPLES / "scenarios.csv")
    frame = pd.concat([base] * (rows // len(base) + 1), ignore_index=True).iloc[:rows]
    frame["id"] = [f"s{i}" for i in range(rows)]
    frame["label"] = [HOSTILE[i % len(HOSTILE)] for i in range(rows)]
    frame["=1+1"] = [HOSTILE[(i + 3) % len(HOSTILE)] for i in range(rows)]
    path = tmp_path / "hostile.parquet"  # keeps every CR and LF exactly as given
    frame.to_parquet(path, index=False)
    return path


def test_bare_cr_in_text_does_not_split_the_row(tmp_path: Path) -> None:
    source = _hostile_table(tmp_path, 1_000)
    out = tmp_path / "out.csv"
    assert main(["scenarios", str(source), "-o", str(out), "--keep", "=1+1"]) == 1  # its bad row
    rows = _csv_rows(out)
    assert len(rows) == 1_001  # header + every row, none split (issue 11: 100,111 of 100,000)
    back = pd.read_csv(out, keep_default_na=False)
    assert len(back) == 1_000
    labels = [HOSTILE[i % len(HOSTILE)] for i in range(1_000)]
    assert back["label"].tolist() == [neutralise_text(t) for t in labels]
    assert [r[1] for r in rows[1:]] == [neutralise_text(t) for t in labels]
    assert all(_safe(r[1]) for r in rows[1:])
    assert back["id"].tolist() == [f"s{i}" for i in range(1_000)]


def test_formula_header_with_keep_is_neutralised(tmp_path: Path) -> None:
    source = _hostile_table(tmp_path, 20)
    out = tmp_path / "out.csv"
    assert main(["scenarios", str(source), "-o", str(out), "--keep", "=1+1"]) == 1  # its bad row
    header = _csv_rows(out)[0]
    assert "'=1+1" in header
    assert "=1+1" not in header
    assert all(_safe(name) for name in header)
    kept = pd.read_csv(out, keep_default_na=False)["'=1+1"].tolist()
    assert kept == [neutralise_text(HOSTILE[(i + 3) % len(HOSTILE)]) for i in range(20)]


def test_money_is_written_to_the_cent(tmp_path: Path) -> None:
    # 12,345,678,901.23 would be 1.234567890123e+10 in pyarrow's float text
    frame = pd.DataFrame(
        {
            "id": ["a", "b", "c"],
            "grant_total": [12_345_678_901.23, 411.52, float("nan")],
            "ertc_sustained_effort_ratio": [0.3333333333, 1.0, 0.5],
        }
    )
    write_csv(tmp_path / "m.csv", frame)
    rows = _csv_rows(tmp_path / "m.csv")
    assert rows[1] == ["a", "12345678901.23", "0.3333333333"]
    assert rows[2] == ["b", "411.52", "1"]
    assert rows[3] == ["c", "", "0.5"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from('=+-@\t\r\n ,"ab\uff1d'), max_size=8), min_size=1))
def test_any_text_reads_back_as_its_neutralised_self(tmp_path_factory, texts: list[str]) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    frame = pd.DataFrame({"id": range(len(texts)), "label": texts})
    write_csv(path, frame)
    rows = _csv_rows(path)
    assert len(rows) == len(texts) + 1
    expected = [neutralise_text(t) for t in texts]
    assert [r[1] for r in rows[1:]] == expected
    assert all(_safe(t) for t in expected)
    back = pd.read_csv(path, keep_default_na=False, dtype=str)
    assert back["label"].tolist() == expected


def test_csv_input_with_hostile_text_round_trips(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "scenarios.csv", tmp_path / "s.csv")
    frame = pd.read_csv(tmp_path / "s.csv")
    frame["label"] = HOSTILE[: len(frame)]
    # csv.writer quotes the CR and LF fields (pandas' to_csv leaves a bare CR unquoted)
    with (tmp_path / "evil.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(frame.columns)
        writer.writerows(frame.astype(object).where(frame.notna(), "").to_numpy().tolist())
    assert main(["scenarios", str(tmp_path / "evil.csv"), "-o", str(tmp_path / "o.csv")]) == 1
    back = pd.read_csv(tmp_path / "o.csv", keep_default_na=False)
    given = read_table(tmp_path / "evil.csv")["label"].tolist()  # leading spaces trimmed
    assert len(back) == len(frame)
    assert back["label"].tolist() == [neutralise_text(t) for t in given]


@pytest.mark.parametrize("text", HOSTILE)
def test_rule_is_idempotent_on_safe_text(text: str) -> None:
    once = neutralise_text(text)
    assert _safe(once)
    assert neutralise_text(once) == once
