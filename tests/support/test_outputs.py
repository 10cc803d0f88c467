"""Outputs (issue 11 item 6): one atomic-write helper, stamps named after their output,
concurrent runs never silently overwrite each other, no temporary file left behind.
One regression test per defect, named after it."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from nj_incentives.scenarios.io import Outputs, planned_paths, write_results
from nj_incentives.support import files


def _outputs() -> Outputs:
    results = pd.DataFrame({"id": ["A"], "error": [None], "x": [1.0]})
    summary = pd.DataFrame({"output": ["x"], "count": [1]})
    return Outputs(results=results, stamp={"rows": 1}, summary=summary)


def test_a_stamp_is_named_after_its_own_output_file(tmp_path: Path) -> None:
    # issue 11: -o results.v2.csv wrote its stamp to results.json, over another run's
    other = tmp_path / "results.json"
    other.write_text("another run's stamp\n")
    written = write_results(tmp_path / "results.v2.csv", _outputs())
    assert tmp_path / "results.v2.json" in written
    assert (tmp_path / "results.v2.json").exists()
    assert other.read_text() == "another run's stamp\n"
    assert tmp_path / "results.v2.json" in planned_paths(tmp_path / "results.v2.csv", _outputs())


def test_two_runs_writing_the_same_results_never_lose_one_silently(tmp_path: Path) -> None:
    # issue 11: two calc runs writing the same results name both exited 0, one output lost
    target = tmp_path / "results.csv"
    files.claim([target])  # this run starts: no results yet
    target.write_text("the other run's results\n")  # another run finishes first
    with pytest.raises(files.ConcurrentWriteError) as caught:
        files.atomic_write(target, lambda p: p.write_text("this run's results\n"))
    assert target.read_text() == "the other run's results\n"
    kept = caught.value.kept
    assert kept.read_text() == "this run's results\n"
    assert kept.name == f"results.conflict-{os.getpid()}.csv"
    assert str(kept) in str(caught.value)


def test_a_run_may_replace_its_own_earlier_output(tmp_path: Path) -> None:
    target = tmp_path / "memo.md"
    target.write_text("last week's memo\n")  # an earlier run's: replaced as usual
    files.claim([target])
    files.atomic_write(target, lambda p: p.write_text("one\n"))
    files.atomic_write(target, lambda p: p.write_text("two\n"))
    assert target.read_text() == "two\n"


def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    def fail(path: Path) -> None:
        path.write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        files.atomic_write(tmp_path / "out.csv", fail)
    assert list(tmp_path.iterdir()) == []


def test_temporary_names_make_a_stale_one_obvious(tmp_path: Path) -> None:
    name = files.temporary_name(tmp_path / "results.csv").name
    assert name.startswith(f"results.csv.incomplete-{os.getpid()}-")
    assert name.endswith(".tmp")
    assert not name.startswith(".")  # visible, unlike the hidden .tmp of issue 11


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is POSIX")
def test_a_killed_run_leaves_no_hidden_partial_tmp_beside_the_target(tmp_path: Path) -> None:
    # issue 11: a killed run left a hidden partial .tmp beside the target
    script = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from nj_incentives.support import files
        files.exit_on_sigterm()
        def slow(path):
            path.write_text("partial")
            print("writing", flush=True)
            time.sleep(60)
        files.atomic_write(Path({str(tmp_path / "out.csv")!r}), slow)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "writing"
    process.send_signal(signal.SIGTERM)
    # generous (a loaded machine may take seconds to deliver and exit): the test is the
    # exit status and the folder, not the time; without the handler the child would
    # finish its write and exit 0
    assert process.wait(timeout=300) == 143
    assert list(tmp_path.iterdir()) == []


def test_the_package_has_one_atomic_write_helper() -> None:
    from nj_incentives.workpapers.recalc import results

    assert results.atomic_path is files.atomic_path
    root = Path(files.__file__).parent
    makers = [
        path.relative_to(root).as_posix()
        for path in root.rglob("*.py")
        if "os.replace(" in path.read_text(encoding="utf-8")
    ]
    assert makers == ["files.py"]
    # and no module keeps a helper of its own, not even one that only forwards to it
    helpers = [
        f"{path.relative_to(root).as_posix()}: {node.name}"
        for path in root.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name.startswith("atomic")
    ]
    assert helpers == ["files.py: atomic_path", "files.py: atomic_write"]


@pytest.mark.skipif(os.name != "posix", reason="the flush while writing is POSIX only")
def test_a_long_write_is_flushed_to_disk_while_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the final flush before the rename waited for all of a large output (0.56-0.70 s for
    # 550 MB); what is written is now flushed every FLUSH_EVERY seconds in a thread.
    # Counted: the flushes during the write, on the temporary file, none after the block
    import threading

    flushed: list[tuple[int, bool]] = []
    real = getattr(os, "fdatasync", os.fsync)
    writing = threading.Event()

    def counted(handle: int) -> None:
        flushed.append((os.fstat(handle).st_size, writing.is_set()))
        real(handle)

    monkeypatch.setattr(os, "fdatasync" if hasattr(os, "fdatasync") else "fsync", counted)
    monkeypatch.setattr(files, "FLUSH_EVERY", 0.01)

    def write(path: Path) -> None:
        writing.set()
        with path.open("wb") as out:
            for _ in range(20):
                out.write(b"x" * 1000)
                out.flush()
                threading.Event().wait(0.01)
        writing.clear()

    files.atomic_write(tmp_path / "out.bin", write)
    assert (tmp_path / "out.bin").read_bytes() == b"x" * 20_000
    during = [size for size, busy in flushed if busy]
    assert len(during) >= 3  # 20 writes 10 ms apart, a flush every 10 ms
    assert during == sorted(during)
    assert during[-1] <= 20_000
    assert not [size for size, busy in flushed if not busy and size != 20_000]

    # a write shorter than the interval starts the thread and flushes nothing
    flushed.clear()
    monkeypatch.setattr(files, "FLUSH_EVERY", 60.0)
    files.atomic_write(tmp_path / "short.bin", lambda p: p.write_bytes(b"y"))
    assert flushed == []


@pytest.mark.skipif(os.name != "posix", reason="/proc/self/fd: Linux")
def test_the_replaced_file_is_freed_and_no_descriptor_is_left(tmp_path: Path) -> None:
    # the file an output replaces is held across the rename and closed in a thread (its
    # blocks and cached pages freed there): afterwards no descriptor of this process
    # names it, and the target holds the new content
    import threading

    fd_dir = Path("/proc/self/fd")
    if not fd_dir.is_dir():
        pytest.skip("no /proc/self/fd on this system")
    target = tmp_path / "results.csv"
    target.write_bytes(b"old" * 100_000)
    old_inode = target.stat().st_ino
    files.atomic_write(target, lambda p: p.write_bytes(b"new"))
    assert target.read_bytes() == b"new"
    for thread in threading.enumerate():
        if thread.name == "nj-release":
            thread.join()

    def held() -> list[int]:
        found = []
        for entry in fd_dir.iterdir():
            try:
                info = os.stat(entry)
            except OSError:
                continue
            if info.st_ino == old_inode and info.st_dev == target.stat().st_dev:
                found.append(int(entry.name))
        return found

    assert held() == []
    # and a target that did not exist is written as before
    files.atomic_write(tmp_path / "new.csv", lambda p: p.write_bytes(b"first"))
    assert (tmp_path / "new.csv").read_bytes() == b"first"


def test_without_threads_outputs_are_written_and_flushed_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pyodide (xlwings Lite's runtime) starts no threads: no flush while writing, and the
    # replaced file is closed in line; the output is written as before
    import threading

    monkeypatch.setattr(files, "_THREADS", False)
    started: list[str] = []
    real_start = threading.Thread.start

    def start(self: threading.Thread) -> None:
        started.append(self.name)
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    files.atomic_write(target, lambda p: p.write_text("new\n"))
    assert target.read_text() == "new\n"
    assert started == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_an_output_named_as_a_fifo_is_replaced_without_waiting(tmp_path: Path) -> None:
    # the replaced file is held open across the rename (files._held); a FIFO there must
    # not block the run waiting for a writer: it is replaced as before
    target = tmp_path / "results.csv"
    os.mkfifo(target)
    files.atomic_write(target, lambda p: p.write_text("new\n"))
    assert target.read_text() == "new\n"
