"""``nj-incentives scenarios``: formats, grid, Monte Carlo, stamp, charts, safe writing."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from nj_incentives import LAW_CURRENT_TO, __version__
from nj_incentives.cli import main
from nj_incentives.scenarios import io as scenario_io
from nj_incentives.scenarios import run_scenarios
from nj_incentives.scenarios.io import read_table
from nj_incentives.support import files

EXAMPLES = Path(__file__).resolve().parents[2] / "workbooks" / "examples"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name in ("scenarios.csv", "scenarios.xlsx", "scenarios-base.csv"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    shutil.copy(EXAMPLES / "scenarios-grid.json", tmp_path / "grid.json")
    shutil.copy(EXAMPLES / "scenarios-montecarlo.json", tmp_path / "mc.json")
    return tmp_path


def run(*args: object) -> int:
    return main(["scenarios", *map(str, args)])


def test_csv_run_with_stamp_summary_and_the_bad_row(work: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    # the run completes, but a row has an error: exit 1 (as calc with a failed check)
    assert run(work / "scenarios.csv", "-o", work / "out.csv") == 1
    captured = capsys.readouterr()
    printed = captured.out
    assert "10 scenarios" in printed
    assert "1 with errors" in printed
    assert "row 10 (id bad-pct): pct = 50: a percentage is a fraction" in captured.err
    results = pd.read_csv(work / "out.csv")
    expected = run_scenarios(read_table(work / "scenarios.csv"))
    assert results["id"].tolist() == expected["id"].tolist()
    assert results.loc[results["id"] == "bad-pct", "error"].str.contains("did you mean 50%").all()
    assert results["grant_total"].tolist() == pytest.approx(
        expected["grant_total"].tolist(), nan_ok=True
    )
    stamp = json.loads((work / "out.json").read_text())
    assert stamp["version"] == __version__
    assert stamp["law_current_to"] == LAW_CURRENT_TO
    assert stamp["mode"] == "table"
    assert stamp["rows"] == 10
    assert stamp["rows_with_errors"] == 1
    assert len(stamp["inputs_sha256"]) == 64
    assert len(stamp["input_file_sha256"]) == 64
    summary = pd.read_csv(work / "out.summary.csv")
    assert {"output", "p5", "p50", "p95", "mean"} <= set(summary.columns)
    assert "grant_total" in set(summary["output"])


def test_xlsx_run_with_native_charts(work: Path) -> None:
    out = work / "out.xlsx"
    assert run(work / "scenarios.xlsx", "-o", out, "--target", "ertc_used") == 1  # the bad-pct row
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        charts = [n for n in names if n.startswith("xl/charts/chart")]
        # the tornado only: 4 computed values of ertc_used are too few for a histogram
        assert len(charts) == 1
        kinds = " ".join(archive.read(n).decode() for n in charts)
        assert "<c:barChart>" in kinds
        assert 'barDir val="bar"' in kinds
        assert "ERTC used against the tax" in kinds  # a human label, not the column name
        assert "ertc_used" not in kinds
        assert "&quot;$&quot;#,##0" in kinds  # a dollar axis
    sheets = pd.read_excel(out, sheet_name=None, engine="calamine")
    assert list(sheets) == ["Results", "Summary", "Charts", "Run"]
    run_sheet = dict(zip(sheets["Run"]["Item"], sheets["Run"]["Value"], strict=True))
    assert run_sheet["version"] == __version__
    assert run_sheet["law_current_to"] == LAW_CURRENT_TO
    assert len(sheets["Results"]) == 10
    assert (work / "out.tornado.png").read_bytes().startswith(PNG)
    assert not (work / "out.distribution.png").exists()


def test_the_stamp_names_the_engagement(work: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    engagement = ["--client", "Acme <NJ> LLC", "--entity-id", "12-3456789", "--period", "2024"]
    people = ["--preparer", "P. Person", "--reviewer", "Q. Checker"]
    assert run(work / "scenarios.csv", "-o", work / "out.csv", *engagement, *people) == 1
    stamp = json.loads((work / "out.json").read_text())
    assert stamp["engagement"] == {
        "Client": "Acme <NJ> LLC",
        "Entity id": "12-3456789",
        "Tax period(s)": "2024",
        "Preparer": "P. Person",
        "Reviewer": "Q. Checker",
        "Date": dt.date.today().isoformat(),  # the day of the run
    }
    assert run(work / "scenarios.xlsx", "-o", work / "out.xlsx", *people) == 1
    sheets = pd.read_excel(work / "out.xlsx", sheet_name=None, engine="calamine")
    run_sheet = dict(zip(sheets["Run"]["Item"], sheets["Run"]["Value"], strict=True))
    shown = json.loads(run_sheet["engagement"])
    assert shown["Preparer"] == "P. Person"
    assert shown["Reviewer"] == "Q. Checker"
    assert shown["Client"] == ""  # not given: blank, not invented
    capsys.readouterr()


def test_monte_carlo_xlsx_has_the_distribution_chart(work: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = work / "mc.xlsx"
    args = ["--monte-carlo", 200, "--distributions", work / "mc.json", "--seed", 7]
    assert run(work / "scenarios-base.csv", "-o", out, *args, "--target", "ertc_used") == 0
    assert "base case" not in capsys.readouterr().err
    with zipfile.ZipFile(out) as archive:
        charts = [n for n in archive.namelist() if n.startswith("xl/charts/chart")]
        kinds = " ".join(archive.read(n).decode() for n in charts)
    assert 'barDir val="col"' in kinds
    assert "Distribution of ERTC used against the tax (200 scenarios)" in kinds
    for suffix in ("tornado", "distribution"):
        assert (work / f"mc.{suffix}.png").read_bytes().startswith(PNG)


def test_parquet_run_carries_the_stamp_in_its_metadata(work: Path) -> None:
    import pyarrow.parquet as pq

    out = work / "out.parquet"
    assert run(work / "scenarios.csv", "-o", out, "--money", "cents") == 1  # the bad-pct row
    stamp = json.loads(pq.read_metadata(out).metadata[b"nj_incentives"])
    assert stamp["version"] == __version__
    assert stamp["rows"] == 10
    results = pd.read_parquet(out)
    expected = run_scenarios(read_table(work / "scenarios.csv"), money="cents")
    pd.testing.assert_series_equal(results["grant_total"], expected["grant_total"])
    assert (work / "out.summary.csv").exists()


def test_grid(work: Path) -> None:
    out = work / "g.csv"
    spec = work / "grid.json"
    assert (
        run(work / "scenarios-base.csv", "-o", out, "--grid", spec, "--target", "grant_total") == 0
    )
    results = pd.read_csv(out)
    assert len(results) == 3 * 4 * 5 * 3
    # the varied inputs are echoed after the error column
    assert list(results.columns[3:7]) == ["pct", "new_employees_1", "year1_new", "liability_1"]
    stamp = json.loads((work / "g.json").read_text())
    assert stamp["mode"] == "grid"
    assert stamp["grid"]["year1_new"] == [5, 10, 15, 20, 25]
    assert (work / "g.tornado.png").read_bytes().startswith(PNG)
    # inline spec
    assert run(work / "scenarios-base.csv", "-o", work / "g2.csv", "--grid", "pct=0.1:0.5:0.1") == 0
    assert len(pd.read_csv(work / "g2.csv")) == 5


def test_monte_carlo_is_reproducible_with_its_seed(work: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    args = ["--monte-carlo", 300, "--distributions", work / "mc.json"]
    assert run(work / "scenarios-base.csv", "-o", work / "a.csv", *args, "--seed", 5) == 0
    assert run(work / "scenarios-base.csv", "-o", work / "b.csv", *args, "--seed", 5) == 0
    assert run(work / "scenarios-base.csv", "-o", work / "c.csv", *args, "--seed", 6) == 0
    a, b, c = (pd.read_csv(work / f"{x}.csv") for x in "abc")
    pd.testing.assert_frame_equal(a, b)
    assert not a["pct"].equals(c["pct"])
    stamps = [json.loads((work / f"{x}.json").read_text()) for x in "ab"]
    assert stamps[0]["seed"] == 5
    assert stamps[0]["draws"] == 300
    assert stamps[0]["inputs_sha256"] == stamps[1]["inputs_sha256"]
    # no seed given: one is chosen, printed and stamped; it reproduces the run
    capsys.readouterr()
    assert run(work / "scenarios-base.csv", "-o", work / "d.csv", *args) == 0
    seed = json.loads((work / "d.json").read_text())["seed"]
    assert f"seed: {seed}" in capsys.readouterr().out
    assert run(work / "scenarios-base.csv", "-o", work / "e.csv", *args, "--seed", seed) == 0
    pd.testing.assert_frame_equal(pd.read_csv(work / "d.csv"), pd.read_csv(work / "e.csv"))


def test_refuses_to_write_over_an_input(work: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    source = work / "scenarios.csv"
    before = source.read_bytes()
    assert run(source, "-o", source) == 2
    assert "refusing to write" in capsys.readouterr().err
    assert source.read_bytes() == before
    # the CSV's sidecar stamp would land on the grid spec: refused too, nothing written
    spec = work / "grid.json"
    spec_before = spec.read_bytes()
    assert run(work / "scenarios-base.csv", "-o", work / "grid.csv", "--grid", spec) == 2
    assert spec.read_bytes() == spec_before
    assert not (work / "grid.csv").exists()


def test_writes_are_atomic(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = work / "out.csv"
    out.write_text("previous results\n")

    def broken(path: Path) -> None:
        path.write_text("half a fi")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        files.atomic_write(out, broken)
    assert out.read_text() == "previous results\n"
    assert [p.name for p in work.iterdir() if p.name.startswith(".")] == []  # no temporary left
    # a failing run through the command leaves the old file in place too
    monkeypatch.setattr(scenario_io.CsvWriter, "write", broken_write)
    assert run(work / "scenarios.csv", "-o", out) == 2
    assert out.read_text() == "previous results\n"
    assert [p.name for p in work.iterdir() if p.name.startswith(".")] == []


def broken_write(writer: scenario_io.CsvWriter, frame: pd.DataFrame) -> None:
    writer.path.write_text("half a fi")
    raise OSError(28, "No space left on device")


def test_csv_neutralises_formula_text(work: Path) -> None:
    frame = read_table(work / "scenarios.csv")
    frame["label"] = ['=HYPERLINK("http://x")', "+1", "-2", "@SUM(A1)", "\tTAB", "plain"] + [
        "ok"
    ] * (len(frame) - 6)
    frame.to_csv(work / "evil.csv", index=False)
    assert run(work / "evil.csv", "-o", work / "safe.csv") == 1  # the bad-pct row
    labels = pd.read_csv(work / "safe.csv")["label"].tolist()
    assert labels[:6] == ['\'=HYPERLINK("http://x")', "'+1", "'-2", "'@SUM(A1)", "'\tTAB", "plain"]
    # numbers are not text: a negative amount stays a number
    assert pd.read_csv(work / "safe.csv")["grant_total"].dtype.kind == "f"


def test_usage_errors(work: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert run(work / "scenarios.csv", "-o", work / "x.txt") == 2
    assert "use a .csv, .xlsx or .parquet file" in capsys.readouterr().err
    assert run(work / "scenarios.csv", "-o", work / "x.csv", "--target", "nonsense") == 2
    assert "not a numeric result column" in capsys.readouterr().err
    assert run(work / "scenarios-base.csv", "-o", work / "x.csv", "--monte-carlo", 5) == 2
    assert "needs --distributions" in capsys.readouterr().err
    assert run(work / "missing.csv", "-o", work / "x.csv") == 2
    assert "input file not found" in capsys.readouterr().err


def test_dask_engine_from_the_command_line(work: Path) -> None:
    pytest.importorskip("dask.dataframe")
    args = ["--engine", "dask", "--partitions", 3, "--scheduler", "synchronous"]
    assert run(work / "scenarios.csv", "-o", work / "d.csv", *args) == 1  # the bad-pct row
    assert run(work / "scenarios.csv", "-o", work / "p.csv") == 1
    pd.testing.assert_frame_equal(pd.read_csv(work / "d.csv"), pd.read_csv(work / "p.csv"))


def test_the_installed_command(work: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nj_incentives.cli", "scenarios", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--monte-carlo" in result.stdout
    assert "--grid" in result.stdout


@pytest.mark.parametrize("size", [0, 1, (8 << 20) - 1, 8 << 20, (16 << 20) + 3])
def test_the_input_hash_is_the_files_sha256_across_block_ends(tmp_path: Path, size: int) -> None:
    from nj_incentives.scenarios.io import file_sha256

    path = tmp_path / "in.bin"
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("out.csv", []),  # streamed: the stamp beside the CSV
        ("out.parquet", []),  # streamed: the stamp in the Parquet footer
        ("grid.csv", ["--grid", "pct=0.3,0.4"]),  # in memory
    ],
)
def test_the_stamp_holds_the_inputs_hashes(work: Path, name: str, extra: list[str]) -> None:
    # the input's SHA-256 is read in a thread while the run computes (cli._InputHashes);
    # the stamp must hold the file's hash, and the inputs hash over it and the options
    # that shape the rows, whichever path wrote the stamp
    import pyarrow.parquet as pq

    source = work / "scenarios.csv"
    out = work / name
    assert run(source, "-o", out, *extra) == 1  # the bad-pct row
    if out.suffix == ".parquet":
        stamp = json.loads(pq.read_metadata(out).metadata[b"nj_incentives"])
    else:
        stamp = json.loads(out.with_suffix(".json").read_text())
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    assert stamp["input_file_sha256"] == digest
    shaped = [b'{"grid":{"pct":[0.3,0.4]},"sheet":null}'] if extra else [b'{"sheet":null}']
    assert stamp["inputs_sha256"] == hashlib.sha256(digest.encode() + b"".join(shaped)).hexdigest()


def test_an_input_that_cannot_be_hashed_is_the_commands_message(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the hash is read in a thread; what it raises reaches the command's one-line message
    # when the stamp is written, not a traceback, and no output is left behind
    from nj_incentives.scenarios import paths

    def unreadable(path: Path) -> str:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(paths, "file_sha256", unreadable)
    out = work / "out.csv"
    assert run(work / "scenarios.csv", "-o", out) == 2
    assert "Permission denied" in capsys.readouterr().err
    assert not out.exists()


def test_the_output_folder_is_created_as_calc_and_fill_do(work: Path) -> None:
    out = work / "out" / "deeper" / "results.csv"
    assert run(work / "scenarios.csv", "-o", out) in (0, 1)
    assert out.is_file()
    xlsx = work / "new" / "results.xlsx"
    assert run(work / "scenarios-base.csv", "-o", xlsx, "--grid", "pct=0.3,0.4") == 0
    assert xlsx.is_file()


def test_a_large_xlsx_output_is_warned_about_and_reports_progress_in_a_log(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from nj_incentives.support import progress

    monkeypatch.setattr(scenario_io, "XLSX_WARN_ROWS", 5)
    monkeypatch.setattr(scenario_io, "XLSX_PROGRESS_ROWS", 4)
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.0)
    out = work / "g.xlsx"
    assert run(work / "scenarios-base.csv", "-o", out, "--grid", "year1_new=1:10:1") == 0
    err = capsys.readouterr().err  # captured: not a terminal
    assert "warning: 10 rows to XLSX (more than 5)" in err
    assert f"{work / 'g'}.parquet" in err
    lines = [line for line in err.splitlines() if line.startswith("writing g.xlsx")]
    assert lines == [
        "writing g.xlsx: 4 of 10 rows (40%)",
        "writing g.xlsx: 8 of 10 rows (80%)",
        "writing g.xlsx: 10 of 10 rows (100%)",
    ]
    assert run(work / "scenarios-base.csv", "-o", out, "--grid", "year1_new=1:4:1") == 0
    assert "warning" not in capsys.readouterr().err  # up to the documented size: none
