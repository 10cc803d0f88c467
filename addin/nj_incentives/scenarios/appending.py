"""Bytes appended to a file past the page cache, where the system allows it.

The Dask engine's client joins the workers' parts into one output (:mod:`.parquet_join`,
``dask_files._Joiner``): it reads every part, already in the page cache, and appends it
to the output. Through the page cache, that append costs the client a new page for every
4 KiB of the output, and a new page is dear on a virtual machine that hands its free
memory back to its host (virtio's free page reporting): writing 1 GB into new pages took
0.9-2.4 CPU-seconds of system time on the 2-core machine, against 0.05 written with
``O_DIRECT`` (docs/performance.md). The pandas engine writes its output once; the Dask
engine wrote it twice, the parts and then the output, which was most of what its command
added at 4,000,000 rows.

:class:`Appender` writes whole 4 KiB blocks with ``O_DIRECT`` from one aligned buffer
(the block the output's end falls in is read back first and written again whole) and
the last, partial block through the page cache. Where ``O_DIRECT`` is not there (Windows,
macOS) or the file system refuses it (when opening, or at the first write: tmpfs before
Linux 6.6, some network and FUSE file systems), it writes through the page cache as any
file is written: the same bytes either way (``tests/scenarios/test_appending.py``). A
full disk or an I/O error is raised as it comes, not retried.

Not a library: none on PyPI appends with ``O_DIRECT``; the alignment is the whole of it.
"""

from __future__ import annotations

import contextlib
import errno
import mmap
import os
from pathlib import Path
from typing import BinaryIO

__all__ = ["ALIGN", "Appender"]

#: the alignment of O_DIRECT's offsets, sizes and buffer: a 4 KiB block serves disks of
#: 512-byte and of 4 KiB sectors
ALIGN = 4096
#: the buffer written at a time
PIECE = 4 << 20
#: a write's errors that mean "not with O_DIRECT here" (None: a short write)
_REFUSED = {None, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP}


class Appender:
    """Bytes appended to ``path`` from byte ``at`` (the file's bytes from there on are
    replaced). :meth:`write` and :meth:`copy_from` append; :meth:`close` writes what is
    held and closes; :meth:`tell` is where the next byte goes. ``direct=False``: through
    the page cache only."""

    def __init__(self, path: Path, at: int, *, direct: bool = True) -> None:
        self._path = Path(path)
        self._plain: BinaryIO | None = None
        self._fd = -1
        flag = getattr(os, "O_DIRECT", 0)
        if direct and flag:
            try:
                self._fd = os.open(self._path, os.O_WRONLY | flag)
            except OSError:  # the file system refuses O_DIRECT: the page cache
                self._fd = -1
        self._base = at - at % ALIGN if self._fd >= 0 else at  # the file offset of _buffer[0]
        self._held = 0
        self._buffer = mmap.mmap(-1, PIECE + ALIGN)  # page-aligned, as O_DIRECT wants
        self._view = memoryview(self._buffer)
        if self._fd >= 0 and at > self._base:  # the start of the block `at` falls in
            with open(self._path, "rb") as source:
                source.seek(self._base)
                self._held = source.readinto(self._view[: at - self._base])
            if self._held != at - self._base:
                self._close_direct()
                raise OSError(f"{self._path}: shorter than {at:,} bytes")
        if self._fd < 0:
            self._open_plain(at)

    @property
    def direct(self) -> bool:
        """Whether whole blocks go past the page cache."""
        return self._fd >= 0

    def tell(self) -> int:
        if self._plain is not None:
            return self._plain.tell()
        return self._base + self._held

    def write(self, data: bytes | memoryview) -> None:
        if self._plain is not None:
            self._plain.write(data)
            return
        data = memoryview(data)
        while data:
            room = PIECE + ALIGN - self._held
            take = min(room, len(data))
            self._view[self._held : self._held + take] = data[:take]
            self._held += take
            data = data[take:]
            if self._held >= PIECE:
                self._drain()

    def copy_from(self, source: BinaryIO, start: int, size: int) -> None:
        """``size`` bytes of ``source`` from ``start`` appended, read straight into the
        buffer (EOFError if ``source`` ends before)."""
        source.seek(start)
        while size:
            if self._plain is not None:
                view = self._view[: min(size, PIECE)]
                got = source.readinto(view)  # type: ignore[attr-defined]
                if not got:
                    raise EOFError("the file ended early")
                self._plain.write(view[:got])
            else:
                end = min(self._held + size, PIECE + ALIGN)
                got = source.readinto(self._view[self._held : end])  # type: ignore[attr-defined]
                if not got:
                    raise EOFError("the file ended early")
                self._held += got
                if self._held >= PIECE:
                    self._drain()
            size -= got

    def _drain(self) -> None:
        """The whole blocks held written past the page cache; the partial one kept."""
        whole = self._held - self._held % ALIGN
        done = 0
        try:
            while done < whole:
                wrote = os.pwrite(self._fd, self._view[done:whole], self._base + done)
                if wrote <= 0 or wrote % ALIGN:  # pragma: no cover - not seen on Linux
                    raise OSError("a short O_DIRECT write")
                done += wrote
        except OSError as error:
            # O_DIRECT refused (or a short write): the rest through the page cache; a
            # full disk or an I/O error is the caller's
            if error.errno not in _REFUSED:
                raise
            self._base += done
            self._view[: self._held - done] = self._view[done : self._held]
            self._held -= done
            self._close_direct()
            self._open_plain(self._base)
            assert self._plain is not None
            self._plain.write(self._view[: self._held])
            self._held = 0
            return
        self._base += whole
        self._view[: self._held - whole] = self._view[whole : self._held]
        self._held -= whole

    def _open_plain(self, at: int) -> None:
        self._plain = self._path.open("r+b")
        self._plain.truncate(at)
        self._plain.seek(at)

    def _close_direct(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def close(self) -> None:
        """What is held written (the last, partial block through the page cache) and
        the file closed."""
        try:
            if self._plain is None:
                self._drain()
            if self._plain is None:  # the partial block: through the page cache
                self._close_direct()
                self._open_plain(self._base)
                assert self._plain is not None
                self._plain.write(self._view[: self._held])
                self._held = 0
        finally:
            self.abort()

    def abort(self) -> None:
        """Closed, what is held not written."""
        self._close_direct()
        if self._plain is not None:
            self._plain.close()
        # a view of the buffer held by an exception's traceback: freed with it instead
        with contextlib.suppress(BufferError):
            self._view.release()
            self._buffer.close()
