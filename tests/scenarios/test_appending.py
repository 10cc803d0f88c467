"""Bytes appended past the page cache (scenarios.appending): the file is the same bytes
as one appended through the page cache, whole blocks go with O_DIRECT, and a file
system that refuses O_DIRECT, when opening or at the first write, gets them through the
page cache."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nj_incentives.scenarios import appending
from nj_incentives.scenarios.appending import ALIGN, Appender

HAS_DIRECT = hasattr(os, "O_DIRECT")

# an operation: bytes written, or a piece of the source file copied (start, size)
_ops = st.lists(
    st.one_of(
        st.binary(max_size=3 * ALIGN).map(lambda b: ("write", b)),
        st.tuples(st.integers(0, 40_000), st.integers(0, 20_000)).map(lambda t: ("copy", t)),
    ),
    max_size=8,
)


def _appended(
    path: Path, source: Path, head: bytes, at: int, ops: list[tuple[str, Any]], direct: bool
) -> tuple[bytes, bool]:
    """The file ``head`` with ``ops`` appended from byte ``at``: its bytes, and whether
    the appender wrote past the page cache."""
    path.write_bytes(head)
    appender = Appender(path, at, direct=direct)
    went_direct = appender.direct
    with source.open("rb") as data:
        for op, arg in ops:
            if op == "write":
                appender.write(arg)
            else:
                appender.copy_from(data, *arg)
    appender.close()
    return path.read_bytes(), went_direct


def _expected(source: bytes, head: bytes, at: int, ops: list[tuple[str, Any]]) -> bytes:
    out = head[:at]
    for op, arg in ops:
        out += arg if op == "write" else source[arg[0] : arg[0] + arg[1]]
    return out


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(head=st.binary(max_size=3 * ALIGN), cut=st.floats(0, 1), ops=_ops)
def test_the_bytes_are_the_page_caches_whatever_the_alignment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, head: bytes, cut: float, ops: list[Any]
) -> None:
    # a piece of two blocks, so that the appender drains its buffer many times a file
    monkeypatch.setattr(appending, "PIECE", 2 * ALIGN)
    source = tmp_path / "source.bin"
    data = os.urandom(60_000)
    source.write_bytes(data)
    ops = [(op, arg) for op, arg in ops if op == "write" or arg[0] + arg[1] <= len(data)]
    at = int(len(head) * cut)
    expected = _expected(data, head, at, ops)
    direct, went = _appended(tmp_path / "direct.bin", source, head, at, ops, True)
    plain, went_plain = _appended(tmp_path / "plain.bin", source, head, at, ops, False)
    assert direct == plain == expected
    assert went == HAS_DIRECT  # this machine's ext4 takes O_DIRECT
    assert not went_plain


@pytest.mark.skipif(not HAS_DIRECT, reason="O_DIRECT is Linux's")
def test_whole_blocks_go_direct_and_the_last_through_the_page_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 5,000 bytes already there, 20,000 appended from byte 4,999: the block from 4,096 is
    # read back (903 bytes) and written again; 903 + 20,000 = 20,903 bytes go through the
    # buffer: 20,480 (5 blocks of 4,096) with O_DIRECT from 4,096, the last 423 through
    # the page cache; 4,096 + 20,903 = 24,999 bytes in all
    writes: list[tuple[int, int]] = []
    real = os.pwrite

    def pwrite(fd: int, data: Any, offset: int) -> int:
        writes.append((offset, len(data)))
        return real(fd, data, offset)

    monkeypatch.setattr(appending.os, "pwrite", pwrite)
    path = tmp_path / "out.bin"
    path.write_bytes(b"a" * 5_000)
    appender = Appender(path, 4_999)
    appender.write(b"b" * 20_000)
    assert appender.tell() == 24_999
    appender.close()
    assert path.read_bytes() == b"a" * 4_999 + b"b" * 20_000
    assert writes == [(4_096, 20_480)]


def test_a_file_system_that_refuses_o_direct_at_the_first_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(fd: int, data: Any, offset: int) -> int:
        raise OSError(errno.EINVAL, "Invalid argument")

    monkeypatch.setattr(appending.os, "pwrite", refused)
    monkeypatch.setattr(appending, "PIECE", 2 * ALIGN)
    path = tmp_path / "out.bin"
    path.write_bytes(b"a" * 5_000)
    appender = Appender(path, 5_000)
    for k in range(6):  # the first drain is refused; the rest through the page cache
        appender.write(bytes([k]) * 3_000)
    assert not appender.direct
    appender.close()
    assert path.read_bytes() == b"a" * 5_000 + b"".join(bytes([k]) * 3_000 for k in range(6))


def test_a_full_disk_is_raised_not_retried_through_the_page_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int, data: Any, offset: int) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(appending.os, "pwrite", full)
    path = tmp_path / "out.bin"
    path.write_bytes(b"")
    appender = Appender(path, 0)
    appender.write(b"b" * 10_000)
    with pytest.raises(OSError, match="No space left"):
        appender.close()


def test_a_file_system_that_refuses_o_direct_when_opening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.open

    def opened(path: Any, flags: int, *args: Any) -> int:
        if flags & getattr(os, "O_DIRECT", 0):
            raise OSError(errno.EINVAL, "Invalid argument")
        return real(path, flags, *args)

    monkeypatch.setattr(appending.os, "open", opened)
    path = tmp_path / "out.bin"
    path.write_bytes(b"a" * 100)
    appender = Appender(path, 10)
    assert not appender.direct
    appender.write(b"b" * 10_000)
    appender.close()
    assert path.read_bytes() == b"a" * 10 + b"b" * 10_000


def test_a_source_that_ends_early(tmp_path: Path) -> None:
    source = tmp_path / "source.bin"
    source.write_bytes(b"x" * 1_000)
    path = tmp_path / "out.bin"
    path.write_bytes(b"")
    appender = Appender(path, 0)
    with source.open("rb") as data, pytest.raises(EOFError):
        appender.copy_from(data, 500, 1_000)
    appender.abort()
