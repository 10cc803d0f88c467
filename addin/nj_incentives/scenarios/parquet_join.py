"""Parquet files joined into one without decoding them: the Dask workers' parts.

Each Dask worker encodes its part of a run's results into a Parquet file of its own
(:class:`~.io.ParquetWriter`, one row group per chunk, as the pandas engine writes the
whole file); the client appends each part's row groups, as bytes, to the output, and
writes one footer that lists them all. A row group's pages do not depend on where they
sit in the file; only the footer's offsets do, so they are shifted by the part's new
position. Joined parts are the file one writer writes from the same chunks, byte for
byte (``tests/scenarios/test_parquet_join.py``).

The footer is Thrift's compact protocol (the Parquet format's ``FileMetaData``). This
module reads it field by field, keeps every field it does not change as the bytes it
read, and re-encodes only the offsets, the row count, the row groups' ordinals and the
key-value metadata it adds to. Not a library: pyarrow has no API to move row groups
between files (its ``FileMetaData`` cannot set offsets), and fastparquet's Thrift
objects re-encode only the fields fastparquet knows: a footer of pyarrow's, 1,360
bytes, came out of them 103 bytes shorter.

A part whose schema differs from the first part's is refused (:class:`SchemaMismatch`)
before a byte of it is written; the caller casts it and encodes it again.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from nj_incentives.scenarios.appending import Appender

__all__ = ["JoinError", "Outline", "ParquetJoiner", "SchemaMismatch", "footer_of", "outline"]

MAGIC = b"PAR1"

# Thrift compact protocol type codes (the nibble of a field or list header)
_STOP, _TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY = 0, 1, 2, 3, 4, 5, 6, 7, 8
_LIST, _SET, _MAP, _STRUCT = 9, 10, 11, 12
# the largest footer read (Arrow's own reader refuses footers over 2 GiB; ours are a few MB)
MAX_FOOTER = 256 << 20


class JoinError(ValueError):
    """A part that cannot be joined as it is (not Parquet, or another schema)."""


class SchemaMismatch(JoinError):
    """A part of another schema (or other key-value metadata) than the first part's."""


# --- the compact protocol: varints, values skipped, structs as their raw fields ---------


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if pos >= len(buf):
            raise JoinError("the Parquet footer ends inside a number")
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 70:
            raise JoinError("the Parquet footer has a number longer than 10 bytes")


def _put_varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _unzigzag(value: int) -> int:
    return (value >> 1) ^ -(value & 1)


def _zigzag(value: int) -> int:
    return (value << 1) ^ (value >> 63)


def _skip(buf: bytes, pos: int, ttype: int) -> int:
    """The position after one value of ``ttype`` at ``pos`` (nothing built: a footer
    holds a value for every column of every row group)."""
    if ttype in (_I16, _I32, _I64):
        while buf[pos] & 0x80:
            pos += 1
        return pos + 1
    if ttype == _BINARY:
        size, pos = _varint(buf, pos)
        return pos + size
    if ttype == _STRUCT:
        while True:
            head = buf[pos]
            pos += 1
            kind = head & 0x0F
            if kind == _STOP:
                return pos
            if not head >> 4:  # the field id follows, in full
                pos = _skip(buf, pos, _I16)
            pos = _skip(buf, pos, kind)
    if ttype in (_TRUE, _FALSE):  # a struct field's boolean is in its header
        return pos
    if ttype == _BYTE:
        return pos + 1
    if ttype == _DOUBLE:
        return pos + 8
    if ttype in (_LIST, _SET):
        count, etype, pos = _list_header(buf, pos)
        if etype in (_TRUE, _FALSE, _BYTE):  # one byte each in a list
            return pos + count
        for _ in range(count):
            pos = _skip(buf, pos, etype)
        return pos
    if ttype == _MAP:
        count, pos = _varint(buf, pos)
        if count:
            kinds = buf[pos]
            pos += 1
            for _ in range(count):
                pos = _skip(buf, pos, kinds >> 4)
                pos = _skip(buf, pos, kinds & 0x0F)
        return pos
    raise JoinError(f"the Parquet footer has an unknown Thrift type {ttype}")


def _list_header(buf: bytes, pos: int) -> tuple[int, int, int]:
    head = buf[pos]
    count, etype, pos = head >> 4, head & 0x0F, pos + 1
    if count == 15:
        count, pos = _varint(buf, pos)
    return count, etype, pos


def _put_list_header(count: int, etype: int) -> bytes:
    if count < 15:
        return bytes([count << 4 | etype])
    return bytes([0xF0 | etype]) + _put_varint(count)


@dataclass
class _Struct:
    """A struct's fields in order: id -> (type, the value's raw bytes)."""

    fields: dict[int, tuple[int, bytes]] = field(default_factory=dict)

    def i64(self, fid: int) -> int | None:
        if fid not in self.fields:
            return None
        return _unzigzag(_varint(self.fields[fid][1], 0)[0])

    def set_int(self, fid: int, ttype: int, value: int) -> None:
        self.fields[fid] = (ttype, _put_varint(_zigzag(value)))

    def encode(self) -> bytes:
        out = bytearray()
        last = 0
        for fid in sorted(self.fields):  # compact structs are written in id order
            ttype, raw = self.fields[fid]
            delta = fid - last
            if 0 < delta <= 15:
                out.append(delta << 4 | ttype)
            else:
                out.append(ttype)
                out += _put_varint(_zigzag(fid))
            out += raw
            last = fid
        out.append(_STOP)
        return bytes(out)


def _read_struct(buf: bytes, pos: int) -> tuple[_Struct, int]:
    result = _Struct()
    last = 0
    while True:
        if pos >= len(buf):
            raise JoinError("the Parquet footer ends inside a structure")
        head = buf[pos]
        pos += 1
        ttype = head & 0x0F
        if ttype == _STOP:
            return result, pos
        if head >> 4:
            fid = last + (head >> 4)
        else:
            raw, pos = _varint(buf, pos)
            fid = _unzigzag(raw)
        end = _skip(buf, pos, ttype)
        result.fields[fid] = (ttype, buf[pos:end])
        pos, last = end, fid


def _structs(raw: bytes) -> list[_Struct]:
    """The structs of a list value."""
    count, etype, pos = _list_header(raw, 0)
    if count and etype != _STRUCT:
        raise JoinError("the Parquet footer has a list that should hold structures")
    items = []
    for _ in range(count):
        item, pos = _read_struct(raw, pos)
        items.append(item)
    return items


def _list_of(items: list[_Struct]) -> bytes:
    return _put_list_header(len(items), _STRUCT) + b"".join(i.encode() for i in items)


# --- FileMetaData: the fields this module reads or writes (parquet.thrift) ---------------

_FMD_SCHEMA, _FMD_NUM_ROWS, _FMD_ROW_GROUPS, _FMD_KEY_VALUE = 2, 3, 4, 5
_RG_COLUMNS, _RG_NUM_ROWS, _RG_FILE_OFFSET, _RG_ORDINAL = 1, 3, 5, 7
# SchemaElement: name, num_children
_SE_NAME, _SE_CHILDREN = 4, 5
# ColumnChunk: file_offset, offset_index_offset, column_index_offset; meta_data
_CC_OFFSETS, _CC_META = (2, 4, 6), 3
# ColumnMetaData: data_page_offset, index_page_offset, dictionary_page_offset,
# bloom_filter_offset
_CMD_OFFSETS = (9, 10, 11, 14)


def _shift(item: _Struct, fids: tuple[int, ...], by: int, end: int) -> None:
    """Offsets moved ``by`` bytes; each must point into the part's data (before ``end``)."""
    for fid in fids:
        value = item.i64(fid)
        # a column chunk's deprecated file_offset is 0 in pyarrow's files: left as it is
        if value:
            if not len(MAGIC) <= value < end:
                raise JoinError(f"an offset {value:,} outside the part's data")
            item.set_int(fid, _I64, value + by)


def footer_of(source: BinaryIO, size: int) -> tuple[bytes, int]:
    """A Parquet file's footer (its ``FileMetaData``) and where its data ends."""
    if size < 12:
        raise JoinError("not a Parquet file: too short")
    source.seek(size - 8)
    tail = source.read(8)
    source.seek(0)
    if tail[4:] != MAGIC or source.read(4) != MAGIC:
        raise JoinError("not a Parquet file: no PAR1 marks")
    length = struct.unpack("<i", tail[:4])[0]
    if not 0 < length <= min(MAX_FOOTER, size - 12):
        raise JoinError(f"not a Parquet file: a footer of {length:,} bytes")
    end = size - 8 - length
    source.seek(end)
    return source.read(length), end


@dataclass(frozen=True)
class Outline:
    """What a Parquet file's footer says of its table: its top-level column names (as
    pyarrow's ``schema_arrow.names``), its rows, and the rows of each row group."""

    names: list[str]
    rows: int
    groups: list[int]


def outline(path: Path) -> Outline:
    """A Parquet file's :class:`Outline`, from its footer alone: what the Dask engine's
    client needs to check the columns and cut the tasks, without importing pyarrow.
    :class:`JoinError` for a file this reader cannot follow (the caller asks pyarrow,
    whose message names the fault)."""
    with open(path, "rb") as source:
        raw, _ = footer_of(source, os.fstat(source.fileno()).st_size)
    try:
        meta, used = _read_struct(raw, 0)
        if used != len(raw) or _FMD_SCHEMA not in meta.fields:
            raise JoinError("not a Parquet footer")
        elements = _structs(meta.fields[_FMD_SCHEMA][1])
        if not elements:
            raise JoinError("a Parquet schema without its root")
        names: list[str] = []
        at = 1
        for _ in range(_int(elements[0], _SE_CHILDREN)):  # the root's children, in order
            element = elements[at]
            if _SE_NAME not in element.fields:
                raise JoinError("a column without a name")
            size, start = _varint(element.fields[_SE_NAME][1], 0)
            names.append(element.fields[_SE_NAME][1][start : start + size].decode())
            at = _past(elements, at)
        if at != len(elements):
            raise JoinError("a Parquet schema longer than its root's children")
        groups = _structs(meta.fields[_FMD_ROW_GROUPS][1]) if _FMD_ROW_GROUPS in meta.fields else []
        rows: list[int] = []
        for group in groups:
            count = group.i64(_RG_NUM_ROWS)
            if count is None or count < 0:
                raise JoinError("a row group without its rows")
            rows.append(count)
        total = meta.i64(_FMD_NUM_ROWS)
        if total != sum(rows):
            raise JoinError("a Parquet footer whose row counts disagree")
        return Outline(names, total, rows)
    except (IndexError, UnicodeDecodeError):
        raise JoinError("the Parquet footer ends early") from None


def _int(item: _Struct, fid: int) -> int:
    return item.i64(fid) or 0  # i32 and i64 are the same zigzag varint


def _past(elements: list[_Struct], at: int) -> int:
    """The index after schema element ``at`` and all its descendants."""
    pending = 1
    while pending:
        if at >= len(elements):
            raise JoinError("a Parquet schema with fewer elements than its groups name")
        pending += _int(elements[at], _SE_CHILDREN) - 1
        at += 1
    return at


class ParquetJoiner:
    """Parquet parts of one schema appended, row group by row group, to ``target``.

    :meth:`add` copies a part's pages (past the page cache where the system allows it:
    :class:`~.appending.Appender`; or renames the first part onto ``target`` and cuts
    its footer off, ``move``) and keeps its row groups' metadata, shifted to their new
    place; :meth:`close` writes the footer: the first part's, with every part's
    row groups, their rows, and ``metadata`` added to its key-value metadata (before the
    keys the parts carry, where pyarrow's ``add_key_value_metadata`` places them)."""

    def __init__(self, target: Path) -> None:
        self._target = Path(target)
        self._out: Appender | None = None  # opened by the first add() or by close()
        self._first: _Struct | None = None
        self._first_footer = b""  # the first part's footer as it was
        self._groups: list[_Struct] = []
        self._rows = 0

    def add(self, part: Path, *, cast: bool = False, move: bool = False) -> None:
        """Append ``part``'s row groups (its footer read in full before a byte is
        written: a part refused leaves the output as it was). ``cast``: the caller cast
        the part to the first part's Arrow schema, whose serialized form in the
        key-value metadata may differ in a byte; the Parquet schema must still match.
        ``move``: the part may become the output, if it is the first (renamed onto it,
        its footer cut off: its pages stay where they are, not copied; the part is gone
        then); on the same file system as the output."""
        with open(part, "rb") as source:
            raw, end = footer_of(source, os.fstat(source.fileno()).st_size)
            by = self._out.tell() - len(MAGIC) if self._out is not None else 0
            try:
                meta, groups = self._moved(raw, by, end)
            except IndexError:
                raise JoinError(f"{part}: the Parquet footer ends early") from None
            if self._first is not None:
                for fid in (_FMD_SCHEMA,) if cast else (_FMD_SCHEMA, _FMD_KEY_VALUE):
                    if meta.fields.get(fid) != self._first.fields.get(fid):
                        raise SchemaMismatch(f"{part}: another schema than the first part's")
            if self._out is None and move:
                os.replace(part, self._target)
                self._out = Appender(self._target, end)
            else:
                try:
                    self._opened().copy_from(source, len(MAGIC), end - len(MAGIC))
                except EOFError:
                    raise JoinError(f"{part}: the part ended early") from None
        if self._first is None:
            self._first, self._first_footer = meta, raw
        self._groups.extend(groups)
        self._rows += meta.i64(_FMD_NUM_ROWS) or 0

    def first_part_footer(self) -> bytes:
        """The first part's footer as a Parquet file without pages (its schema can be
        read from it: the first part may have become the output), or nothing yet."""
        raw = self._first_footer
        return MAGIC + raw + struct.pack("<i", len(raw)) + MAGIC if raw else b""

    def _opened(self) -> Appender:
        """The output, opened (empty but for the Parquet mark) if no part made it."""
        if self._out is None:
            self._target.write_bytes(MAGIC)
            self._out = Appender(self._target, len(MAGIC))
        return self._out

    def _moved(self, raw: bytes, by: int, end: int) -> tuple[_Struct, list[_Struct]]:
        """A part's footer and its row groups with every offset moved ``by`` bytes."""
        meta, used = _read_struct(raw, 0)
        if used != len(raw):
            raise JoinError(f"a footer of {len(raw):,} bytes that ends at byte {used:,}")
        groups = _structs(meta.fields[_FMD_ROW_GROUPS][1]) if _FMD_ROW_GROUPS in meta.fields else []
        for k, group in enumerate(groups):
            _shift(group, (_RG_FILE_OFFSET,), by, end)
            if _RG_ORDINAL in group.fields:
                group.set_int(_RG_ORDINAL, _I16, len(self._groups) + k)
            columns = _structs(group.fields[_RG_COLUMNS][1])
            for column in columns:
                _shift(column, _CC_OFFSETS, by, end)
                if _CC_META in column.fields:
                    data, _ = _read_struct(column.fields[_CC_META][1], 0)
                    _shift(data, _CMD_OFFSETS, by, end)
                    column.fields[_CC_META] = (_STRUCT, data.encode())
            group.fields[_RG_COLUMNS] = (_LIST, _list_of(columns))
        return meta, groups

    def close(self, metadata: dict[str, str] | None = None) -> None:
        """The footer (nothing if no part was added: the caller removes the file)."""
        out = self._opened()
        try:
            if self._first is None:
                return
            meta = _Struct(dict(self._first.fields))
            meta.set_int(_FMD_NUM_ROWS, _I64, self._rows)
            meta.fields[_FMD_ROW_GROUPS] = (_LIST, _list_of(self._groups))
            if metadata:
                pairs = (
                    _structs(meta.fields[_FMD_KEY_VALUE][1])
                    if _FMD_KEY_VALUE in meta.fields
                    else []
                )
                added = [
                    _Struct({1: (_BINARY, _binary(key)), 2: (_BINARY, _binary(value))})
                    for key, value in metadata.items()
                ]
                keys = {pair.fields[1] for pair in added}
                kept = [pair for pair in pairs if pair.fields.get(1) not in keys]
                meta.fields[_FMD_KEY_VALUE] = (_LIST, _list_of(added + kept))
            footer = meta.encode()
            out.write(footer)
            out.write(struct.pack("<i", len(footer)))
            out.write(MAGIC)
        finally:
            out.close()

    def abort(self) -> None:
        if self._out is not None:
            self._out.abort()


def _binary(text: str) -> bytes:
    data = text.encode()
    return _put_varint(len(data)) + data
