"""Outputs and exit statuses under hostile conditions (issue 22, items 3, 9, 10, 11).

One regression test per defect, named after it; each fails on the code before the fix:
a full disk while writing an XLSX gave tracebacks, ``templates DIR`` wrote through
symbolic links and left half a set on a full disk, a killed run's temporary file was
never removed, ``calc`` exited 0 with a rejected input in an added formula, and so on.

Two ways to fill the disk, both runnable in CI without privileges: a fake full folder
(``open`` for writing below it fails with ENOSPC, :func:`full_folder`: the case where the
output's folder is full but the temporary folder is not), and the kernel's own file-size
limit in a child process (``RLIMIT_FSIZE``: every write beyond it fails with EFBIG, from
Python, pyarrow or ``sendfile`` alike).
"""

from __future__ import annotations

import builtins
import datetime as dt
import errno
import io
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from nj_incentives import cli
from nj_incentives.support import files
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY

EXAMPLES = Path(__file__).resolve().parents[2] / "workbooks" / "examples"
POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file-size limits and links")


def main(*args: object) -> int:
    return cli.main([str(a) for a in args])


class _Full(io.RawIOBase):
    """A file below a full folder: every write fails with ENOSPC."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def write(self, _data: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def fileno(self) -> int:
        number: int = self._handle.fileno()
        return number

    def tell(self) -> int:
        where: int = self._handle.tell()
        return where

    def seek(self, offset: int, whence: int = 0) -> int:
        where: int = self._handle.seek(offset, whence)
        return where

    def seekable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def close(self) -> None:
        self._handle.close()
        super().close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)


@pytest.fixture
def full_folder(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``full(folder)``: from then on, files opened for writing below ``folder`` cannot
    be written (ENOSPC), as on a full disk; reading and other folders are unaffected."""
    real_open = builtins.open
    folders: list[Path] = []

    def fake_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(file, mode, *args, **kwargs)
        writing = any(flag in mode for flag in "wax+")
        if writing and isinstance(file, (str, os.PathLike)):
            path = Path(os.fsdecode(file)).absolute()
            if any(folder in path.parents for folder in folders):
                return _Full(handle)
        return handle

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(io, "open", fake_open)
    return lambda folder: folders.append(Path(folder).absolute())


_LIMITED = r"""
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write beyond the limit fails (EFBIG)
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
from nj_incentives.cli import main
sys.exit(main(sys.argv[2:]))
"""


def limited(limit: int, *args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``nj-incentives ARGS`` in a child process that may write no file beyond ``limit``
    bytes (the kernel's RLIMIT_FSIZE: a real failed write, no root needed)."""
    return subprocess.run(
        [sys.executable, "-c", _LIMITED, str(limit), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLES / "scenarios.csv", tmp_path / "scenarios.csv")
    return tmp_path


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".incomplete-" in p.name or ".lock" in p.name)


# --------------------------------------------------------------------------- item 9


def test_disk_full_while_writing_an_xlsx_output_is_one_line_and_exit_2(
    work: Path, full_folder: Any, capsys: Any
) -> None:
    # issue 22 item 9: xlsxwriter wraps the OSError of the full disk in FileCreateError:
    # 4 tracebacks and exit 1 ("done, rows had errors"); CSV and Parquet gave exit 2
    out = work / "results"
    out.mkdir()
    (out / "out.xlsx").write_bytes(b"the previous results")
    full_folder(out)
    status = main("scenarios", work / "scenarios.csv", "-o", out / "out.xlsx", "--no-progress")
    err = capsys.readouterr().err
    assert status == 2
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == [
        f"nj-incentives scenarios: error: cannot write {out / 'out.xlsx'}: "
        "No space left on device; nothing was written"
    ]
    assert (out / "out.xlsx").read_bytes() == b"the previous results"
    assert leftovers(out) == []


@POSIX
@pytest.mark.parametrize("suffix", ["xlsx", "csv", "parquet"])
def test_a_write_beyond_the_file_size_limit_is_one_line_and_exit_2(work: Path, suffix: str) -> None:
    # the kernel refuses the write (EFBIG) wherever it happens: xlsxwriter's temporary
    # files, the zip, pyarrow's writers, the stamp; before, the message named no file
    done = limited(3000, "scenarios", "scenarios.csv", "-o", f"out.{suffix}", cwd=work)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("nj-incentives scenarios: error: cannot write ")
    assert "File too large; nothing was written" in lines[0]
    assert not (work / f"out.{suffix}").exists()
    assert leftovers(work) == []


# --------------------------------------------------------------------------- item 10


@POSIX
def test_templates_never_write_through_a_dangling_link(tmp_path: Path, capsys: Any) -> None:
    # issue 22 item 10: a dangling link in DIR was written through to a file outside DIR,
    # without --force
    folder, outside = tmp_path / "mine", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "beip-grant-schedule.xlsx").symlink_to(outside / "planted.xlsx")
    assert main("templates", folder) == 2
    err = capsys.readouterr().err
    assert f"not overwriting {folder / 'beip-grant-schedule.xlsx'} (a link to" in err
    assert not (outside / "planted.xlsx").exists()
    assert sorted(p.name for p in folder.iterdir()) == ["beip-grant-schedule.xlsx"]  # all or none


@POSIX
def test_templates_force_replaces_a_link_never_the_file_it_points_to(tmp_path: Path) -> None:
    # issue 22 item 10: with --force, a link to a user's filled workbook elsewhere
    # overwrote that workbook
    folder, outside = tmp_path / "mine", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    filled = outside / "filled.xlsx"
    filled.write_bytes(b"an accountant's filled workbook")
    (folder / "ertc-form-313.xlsx").symlink_to(filled)
    assert main("templates", folder, "--force") == 0
    assert filled.read_bytes() == b"an accountant's filled workbook"
    assert not (folder / "ertc-form-313.xlsx").is_symlink()
    assert (folder / "ertc-form-313.xlsx").read_bytes() == (
        DEFAULT_DIRECTORY / "ertc-form-313.xlsx"
    ).read_bytes()


@POSIX
def test_templates_never_follow_an_examples_link_out_of_dir(tmp_path: Path, capsys: Any) -> None:
    folder, outside = tmp_path / "mine", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "examples").symlink_to(outside, target_is_directory=True)
    assert main("templates", folder, "--force") == 2
    assert f"not writing into {folder / 'examples'}: it is a symbolic link" in (
        capsys.readouterr().err
    )
    assert list(outside.iterdir()) == []


@POSIX
def test_templates_on_a_full_disk_leave_no_file_and_name_the_target(tmp_path: Path) -> None:
    # issue 22 item 10: a full disk left truncated templates, which a re-run then refused
    # as existing; the message named the packaged source, not the target
    from nj_incentives.cli.templates import shipped_workbooks

    sizes = sorted(path.stat().st_size for path in shipped_workbooks().values())
    limit = sizes[-1] - 1  # every file fits but the largest
    done = limited(limit, "templates", tmp_path / "mine", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"cannot write {tmp_path / 'mine'}" in done.stderr
    assert "File too large" in done.stderr
    assert str(DEFAULT_DIRECTORY) not in done.stderr
    written = [p for p in (tmp_path / "mine").rglob("*") if p.is_file()]
    assert written == []  # nothing half written, nothing for a re-run to refuse
    again = limited(10**9, "templates", tmp_path / "mine", cwd=tmp_path)
    assert again.returncode == 0, again.stderr


# --------------------------------------------------------------------------- item 11


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_later_run_removes_the_leftovers_of_killed_runs(work: Path) -> None:
    # issue 22 item 11: a killed run leaves NAME.incomplete-PID-TOKEN.tmp (up to 1.6 MB)
    # that no later run removed
    dead = work / f"out.csv.incomplete-{_dead_pid()}-a1b2c3.tmp"
    dead.write_bytes(b"x" * 1000)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        alive = work / f"out.csv.incomplete-{sleeper.pid}-d4e5f6.tmp"
        alive.write_bytes(b"still being written")
        other = work / f"other.csv.incomplete-{_dead_pid()}-0a0b0c.tmp"
        other.write_bytes(b"another target's")
        main("scenarios", work / "scenarios.csv", "-o", work / "out.csv", "--no-progress")
        assert not dead.exists()
        assert alive.exists()  # its process still runs: not ours to remove
        assert other.exists()  # another target's: removed by a run to that target
    finally:
        sleeper.kill()
        sleeper.wait()
    assert files.remove_leftovers(work / "out.csv") == [alive]


def test_calc_refuses_an_output_folder_named_like_a_workbook(tmp_path: Path, capsys: Any) -> None:
    # issue 22 item 11: calc -o x-results.xlsx/ where that is a folder wrote inside it
    workbook = EXAMPLES / "beip-grant-schedule-example.xlsx"
    folder = tmp_path / "x-results.xlsx"
    folder.mkdir()
    assert main("calc", workbook, "-o", f"{folder}/") == 2
    assert main("calc", workbook, "-o", folder) == 2
    assert main("calc", workbook, "-o", f"{tmp_path / 'new-results.xlsx'}/") == 2
    err = capsys.readouterr().err
    assert f"-o {folder}/: a folder named like a workbook (.xlsx): refused" in err
    assert f"-o {folder}: a folder named like a workbook" in err
    assert list(folder.iterdir()) == []
    assert not (tmp_path / "new-results.xlsx").exists()


def test_repeated_parquet_columns_get_a_short_message(tmp_path: Path, capsys: Any) -> None:
    # issue 22 item 11: pyarrow's raw schema dump ("Multiple matches for FieldRef...")
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        [pa.array(["a"]), pa.array([2012]), pa.array([1000.0]), pa.array([5.0])],
        names=["id", "accrual_year", "conversion_amount", "conversion_amount"],
    )
    pq.write_table(table, tmp_path / "twice.parquet")
    for out in ("out.csv", "out.xlsx"):
        assert main("scenarios", tmp_path / "twice.parquet", "-o", tmp_path / out) == 2
        err = capsys.readouterr().err
        assert (
            err.strip()
            == "nj-incentives scenarios: error: column 'conversion_amount' appears twice"
        )


def test_nj_explain_names_the_explained_functions_argument() -> None:
    # issue 22 item 11: NJ_EXPLAIN("NJ_BEIP_GRANT", 1250000, "#N/A") named args, not pct
    from nj_incentives.core.common import InputError
    from nj_incentives.functions import FUNCTIONS

    for call in (
        lambda: FUNCTIONS["NJ_EXPLAIN"]("NJ_BEIP_GRANT", 1250000, "#N/A"),
        lambda: FUNCTIONS["NJ_BEIP_GRANT"](1250000, "#N/A"),  # the same message
    ):
        with pytest.raises(InputError) as raised:
            call()
        assert str(raised.value) == (
            "pct = '#N/A': the cell holds an error value (N.J.S.A. 34:1B-129a., b.)"
        )


def test_the_stamp_date_is_the_date_of_created_utc(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 22 item 11: the stamp's Date was the local date, created_utc the UTC time: in
    # a time zone whose date differs from UTC's, they named different days
    utc_hour = dt.datetime.now(dt.UTC).hour
    # UTC+13 is already tomorrow after 11:00 UTC; UTC-12 still yesterday before 12:00 UTC
    monkeypatch.setenv("TZ", "Etc/GMT-13" if utc_hour >= 11 else "Etc/GMT+12")
    time.tzset()
    try:
        assert dt.date.today() != dt.datetime.now(dt.UTC).date()  # the zone does differ
        main("scenarios", work / "scenarios.csv", "-o", work / "out.csv", "--no-progress")
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    stamp = json.loads((work / "out.json").read_text())
    assert stamp["engagement"]["Date"] == stamp["created_utc"][:10]


# --------------------------------------------------------------------------- item 3


def with_added_formula(source: Path, target: Path, formula: str) -> Path:
    """``source`` with one formula added below the About sheet's text (cell A90), the
    rest of the file byte for byte (an openpyxl round trip would change the template)."""
    with zipfile.ZipFile(source) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    sheet = members["xl/worksheets/sheet1.xml"].decode()
    cell = f'<row r="90"><c r="A90" t="str"><f>{formula}</f><v>0</v></c></row>'
    members["xl/worksheets/sheet1.xml"] = sheet.replace(
        "</sheetData>", cell + "</sheetData>"
    ).encode()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return target


def test_calc_exits_1_when_an_nj_cell_rejected_its_input(tmp_path: Path, capsys: Any) -> None:
    # issue 22 item 3: an added formula calling an NJ_ function with '1e10000000' hours
    # shows #VALUE! with the message, the master check stays TRUE, and calc exited 0
    workbook = with_added_formula(
        EXAMPLES / "beip-grant-schedule-example.xlsx",
        tmp_path / "added.xlsx",
        "NJ_ERTC_FTE(&quot;1e10000000&quot;)",
    )
    status = main("calc", workbook, "-o", tmp_path / "out", "--json")
    captured = capsys.readouterr()
    assert status == 1
    assert "added.xlsx: 1 NJ_* cell(s) show an error (an input was rejected)" in captured.err
    assert "About!A90: #VALUE! part_time_hours = '1e10000000': has an exponent beyond" in (
        captured.err
    )
    document = json.loads(captured.out)
    assert document["status"] == 1
    (entry,) = document["workbooks"]
    assert entry["master_check"] is True
    assert [c["cell"] for c in entry["nj_error_cells"]] == ["About!A90"]
    # the same workbook without the added formula: exit 0
    assert main("calc", EXAMPLES / "beip-grant-schedule-example.xlsx", "-o", tmp_path) == 0
