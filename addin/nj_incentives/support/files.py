"""Writing output files: atomically, never silently over another run's output, and
without leaving temporary files behind.

One helper for the whole package (:func:`atomic_path`; :func:`atomic_write` calls it):

- The output is written to a temporary file beside the target, flushed to disk (every
  second while it is written, then the rest) and renamed onto the target
  (``os.replace``, atomic on one file system): a reader sees the old file or the new
  one, never half of one. The file replaced is freed in a thread.
- The temporary file's name says what it is: ``results.csv.incomplete-<pid>-<token>.tmp``,
  visible (no leading dot), with the process id of the run writing it. It is removed on
  every exit Python sees: success, an exception, Ctrl+C, ``sys.exit``, and SIGTERM in the
  command line (which turns it into an exit; :func:`exit_on_sigterm`); an ``atexit`` hook
  removes any still open. Only a hard kill (SIGKILL, power loss) can leave one; the next
  run to the same target removes it (:func:`remove_leftovers`: a leftover whose process
  id names no running process on this machine).
- A full disk (or a quota, or a file-size limit) while writing: the temporary file is
  removed, the old target is unchanged, and the :class:`OSError` names the target, not
  the temporary file (:class:`DiskFullError`).
- Concurrent runs: a run :func:`claim`\\ s its outputs when it starts (their state then).
  When it comes to replace one and finds that another process wrote it since, it does
  not overwrite it: it keeps its own output beside it as
  ``results.conflict-<pid>.csv`` and raises :class:`ConcurrentWriteError` saying so.
  The check and the rename happen under a lock file (``results.csv.lock``, held for
  microseconds; a stale one from a killed process is removed).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import re
import secrets
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

__all__ = [
    "ConcurrentWriteError",
    "DiskFullError",
    "atomic_path",
    "atomic_write",
    "claim",
    "exit_on_sigterm",
    "reclaim",
    "remove_leftovers",
    "same_file",
    "temporary_name",
]

#: Temporary files of this process still being written (removed at exit).
_LIVE: set[Path] = set()
#: Outputs claimed at the start of a run: resolved path -> its state then.
_CLAIMED: dict[Path, tuple[int, int, int] | None] = {}
_GUARD = threading.Lock()
#: A lock file older than this is stale (the rename it guards takes microseconds).
_STALE_LOCK_S = 30.0


class ConcurrentWriteError(OSError):
    """Another run wrote an output while this one ran; this run's output was kept under
    a distinct name (:attr:`kept`), not written over the other's."""

    def __init__(self, target: Path, kept: Path) -> None:
        self.target = target
        self.kept = kept
        super().__init__(
            f"{target}: another run wrote it while this one was running; not overwritten. "
            f"This run's output is in {kept}"
        )


#: The errors of a write that found no room: disk full, quota exceeded, file-size limit.
_NO_ROOM = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


class DiskFullError(OSError):
    """No room to write an output: its temporary file was removed and the old file (if
    any) is unchanged. ``filename`` is the target, not the temporary file."""

    def __init__(self, target: Path, cause: OSError) -> None:
        code = cause.errno if cause.errno is not None else errno.ENOSPC
        reason = cause.strerror or os.strerror(code)
        super().__init__(code, f"{reason}; nothing was written", str(target))


def no_room(error: BaseException) -> OSError | None:
    """The :class:`OSError` (``error`` or what it wraps) of a write that found no room
    on the disk, or None. Libraries wrap it (xlsxwriter's ``FileCreateError``; pyarrow's
    ``OSError`` says ``[errno 28]`` in its text only)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError):
            if current.errno in _NO_ROOM:
                return current
            match = re.search(r"\[errno (\d+)\]", str(current))
            if match and int(match.group(1)) in _NO_ROOM:
                code = int(match.group(1))
                return OSError(code, os.strerror(code))
        wrapped = [a for a in getattr(current, "args", ()) if isinstance(a, BaseException)]
        current = wrapped[0] if wrapped else (current.__cause__ or current.__context__)
    return None


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name the same file (or would)."""
    if Path(a).resolve() == Path(b).resolve():
        return True
    try:
        return Path(a).exists() and Path(b).exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _state(path: Path) -> tuple[int, int, int] | None:
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def claim(paths: Iterable[Path]) -> None:
    """Record the outputs a run will write, as they are now: a later change by another
    process is then detected when this run writes them (:class:`ConcurrentWriteError`)."""
    with _GUARD:
        for path in paths:
            _CLAIMED.setdefault(Path(path).resolve(), _state(Path(path)))


def reclaim(path: Path) -> None:
    """Record ``path`` as it is now, replacing an earlier claim: a run that reads a file
    and writes it back (``sign``) calls it before reading, so that a write by another
    process in between is detected when it writes (:class:`ConcurrentWriteError`)."""
    with _GUARD:
        _CLAIMED[Path(path).resolve()] = _state(Path(path))


def temporary_name(target: Path) -> Path:
    """``<target>.incomplete-<pid>-<token>.tmp`` beside the target."""
    token = secrets.token_hex(3)
    return target.with_name(f"{target.name}.incomplete-{os.getpid()}-{token}.tmp")


def _running(pid: int) -> bool:
    """Whether a process with this id runs on this machine (or might: when unsure, yes)."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # it exists under another user, or the check is not possible
    return True


def remove_leftovers(target: Path) -> list[Path]:
    """Remove the temporary files a killed run left beside ``target``
    (``<name>.incomplete-<pid>-<token>.tmp`` whose process id is no running process on
    this machine); the paths removed. Those of running processes are left alone."""
    target = Path(target)
    pattern = re.compile(re.escape(target.name) + r"\.incomplete-(\d+)-[0-9a-f]+\.tmp")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        if _running(int(match.group(1))):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def _conflict_name(target: Path) -> Path:
    stem, suffix = target.stem, target.suffix
    return target.with_name(f"{stem}.conflict-{os.getpid()}{suffix}")


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextlib.contextmanager
def _replace_lock(target: Path) -> Iterator[None]:
    lock = target.with_name(f"{target.name}.lock")
    deadline = time.monotonic() + 10
    while True:
        try:
            handle = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            with contextlib.suppress(OSError):
                if time.time() - lock.stat().st_mtime > _STALE_LOCK_S:
                    lock.unlink()
                    continue
            if time.monotonic() > deadline:
                raise OSError(f"{target}: locked by another run ({lock}); try again") from None
            time.sleep(0.005)
            continue
        break
    try:
        os.write(handle, str(os.getpid()).encode())
        os.close(handle)
        yield
    finally:
        with contextlib.suppress(OSError):
            lock.unlink()


@contextlib.contextmanager
def atomic_path(target: Path, *, protect: Sequence[Path] = ()) -> Iterator[Path]:
    """A temporary path beside ``target``, renamed onto it when the block succeeds.

    Refuses a ``target`` that is one of ``protect`` (the run's input files), and one that
    another process wrote since this run claimed it (or since the block began)."""
    target = Path(target)
    for source in protect:
        if same_file(Path(source), target):
            raise ValueError(f"{target}: refusing to overwrite the input workbook")
    target.parent.mkdir(parents=True, exist_ok=True)
    resolved = target.resolve()
    with _GUARD:
        expected = _CLAIMED.get(resolved, _state(target))
    remove_leftovers(target)
    temporary = temporary_name(target)
    with _GUARD:
        _LIVE.add(temporary)
    try:
        with open(temporary, "xb"):
            pass
        try:
            with _flushed_meanwhile(temporary):
                yield temporary
            with temporary.open("rb+") as written:
                os.fsync(written.fileno())
        except Exception as error:
            full = no_room(error)
            if full is None or isinstance(error, DiskFullError):
                raise
            raise DiskFullError(target, full) from error
        os.chmod(temporary, _mode_for(target))
        with _replace_lock(target):
            if _state(target) != expected:
                kept = _conflict_name(target)
                os.replace(temporary, kept)
                raise ConcurrentWriteError(target, kept)
            replaced = _held(target)
            try:
                os.replace(temporary, target)
            finally:
                _release_in_background(replaced)
            with _GUARD:
                _CLAIMED[resolved] = _state(target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        with _GUARD:
            _LIVE.discard(temporary)


#: Seconds between the flushes of a temporary file to disk while it is written.
FLUSH_EVERY = 1.0
#: Whether this Python can start threads (not in Pyodide, xlwings Lite's runtime).
_THREADS = sys.platform not in ("emscripten", "wasi")


@contextlib.contextmanager
def _flushed_meanwhile(temporary: Path) -> Iterator[None]:
    """While the block writes ``temporary``: what it has written is flushed to disk every
    :data:`FLUSH_EVERY` seconds in a thread (``fdatasync``), so that the flush before the
    rename has only the last second's data left. Without it a large output waited at the
    end for all of it: 0.56-0.70 s for 550 MB of Parquet (2,000,000 scenarios), beneath
    the kernel's writeback threshold of a tenth of the memory. A write of less than a
    second starts the thread and nothing else. POSIX only (elsewhere the final flush does
    it all); a flush that fails is left to the final one, which reports it."""
    if os.name != "posix" or not _THREADS:
        yield
        return
    sync = getattr(os, "fdatasync", os.fsync)
    done = threading.Event()

    def flush() -> None:
        try:
            handle = os.open(temporary, os.O_RDONLY)
        except OSError:
            return
        try:
            while not done.wait(FLUSH_EVERY):
                sync(handle)
        except OSError:
            pass
        finally:
            os.close(handle)

    thread = threading.Thread(target=flush, name="nj-flush", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _held(target: Path) -> int | None:
    """A descriptor of the file ``target`` names (None if none, or not on POSIX): held
    across the rename onto it, so that freeing the replaced file (its blocks and its
    cached pages: 0.02-0.4 s for 550 MB) happens when it is closed, in
    :func:`_release_in_background`. On Windows an open file cannot be replaced."""
    if os.name != "posix":
        return None
    try:  # non-blocking: a FIFO named as the output must not wait for a writer
        handle = os.open(target, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(handle).st_mode):  # only a file's blocks are worth it
        os.close(handle)
        return None
    return handle


def _release_in_background(handle: int | None) -> None:
    """Close a replaced file's last descriptor in a thread (the run goes on with its
    summary and report meanwhile; at exit the kernel closes it if the thread has not)."""
    if handle is None:
        return
    if not _THREADS:
        os.close(handle)
        return
    threading.Thread(target=os.close, args=(handle,), name="nj-release", daemon=True).start()


def atomic_write(path: Path, write: Callable[[Path], None], protect: Sequence[Path] = ()) -> None:
    """Write ``path`` with ``write(temporary)`` through :func:`atomic_path`."""
    with atomic_path(Path(path), protect=protect) as temporary:
        write(temporary)


@atexit.register
def _remove_live() -> None:
    for temporary in list(_LIVE):
        with contextlib.suppress(OSError):
            temporary.unlink()


def exit_on_sigterm() -> None:
    """Make SIGTERM an ordinary exit (status 143) so that ``finally`` blocks and the
    ``atexit`` hook remove temporary files; only where SIGTERM still has its default
    action and in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return
    with contextlib.suppress(ValueError, OSError, AttributeError):
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:

            def terminate(_signum: int, _frame: object) -> None:
                raise SystemExit(143)

            signal.signal(signal.SIGTERM, terminate)
