"""Untrusted input files read bounded: only a regular file, at most so many bytes.

:func:`read_regular` is how ``fill`` reads DATA and ``fill --hours`` a payroll file: a
directory, a device (``/dev/zero``), a FIFO or a socket is refused by its kind before a
byte is read (a FIFO is opened without waiting for a writer), and a file is read up to
its limit plus one byte, so that a file that grows while it is read, or whose size the
system reports as 0 (``/proc`` files), is still refused at the limit.
"""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

__all__ = ["SHOWN", "NotReadable", "printable", "read_regular"]


class NotReadable(ValueError):
    """The file cannot be read as asked: the message says why (one line, no path)."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes. Raises
    :class:`NotReadable` for anything else (missing, unreadable, not a regular file, too
    large), its message naming the reason and the limit."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        kind = os.stat(path).st_mode
    except OSError as error:
        raise NotReadable(f"cannot be read ({error.strerror})") from error
    if not stat.S_ISREG(kind):
        raise NotReadable(f"is {_kind(kind)}, not a file: give a regular file")
    try:
        handle = os.open(path, flags)
    except OSError as error:
        raise NotReadable(f"cannot be read ({error.strerror})") from error
    try:
        opened = os.fstat(handle).st_mode
        if not stat.S_ISREG(opened):  # replaced between the two looks
            raise NotReadable(f"is {_kind(opened)}, not a file: give a regular file")
        size = os.fstat(handle).st_size
        if size > limit:
            raise NotReadable(f"{size:,} bytes, more than {limit:,}")
        chunks: list[bytes] = []
        read = 0
        while read <= limit:
            chunk = os.read(handle, min(1 << 20, limit + 1 - read))
            if not chunk:
                break
            chunks.append(chunk)
            read += len(chunk)
        if read > limit:
            raise NotReadable(f"more than {limit:,} bytes")
        return b"".join(chunks)
    except OSError as error:
        raise NotReadable(f"cannot be read ({error.strerror})") from error
    finally:
        os.close(handle)


# --------------------------------------------------------------------------- file names

#: The error handler that shows what cannot be encoded (registered on import): a byte a
#: file name holds that is not valid in the file system's encoding (a Latin-1 name under
#: a UTF-8 locale, which Python keeps as a lone surrogate) as ``\\xNN``, any other
#: character as its ``\\u`` escape.
SHOWN = "nj_incentives.shown"


def _shown(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    shown = "".join(
        f"\\x{ord(c) - 0xDC00:02x}"
        if 0xDC80 <= ord(c) <= 0xDCFF
        else c.encode("ascii", "backslashreplace").decode()
        for c in text
    )
    return shown, error.end


codecs.register_error(SHOWN, _shown)


def printable(text: str) -> str:
    """``text`` (a file name, or text holding one) as valid UTF-8 text: each byte of a
    name that is not UTF-8 shown as ``\\xNN`` (``caf\\xe9.xlsx``)."""
    return text.encode("utf-8", SHOWN).decode("utf-8")
