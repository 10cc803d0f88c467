"""Forty clients in one run: ``nj-incentives fill TEMPLATE TABLE --each KEY -o DIR``.

TABLE holds one client per row (CSV: a header row of input names, then one row per
client; a table column's values in one cell, separated as on the command line, by
commas, or by semicolons when a value has thousands separators:
:mod:`nj_incentives.support.lists`) or per item (JSON or YAML: a list of mappings, or a
mapping of client -> mapping, or, in YAML, one document per client separated by ``---``
lines; each as a ``fill`` DATA file, read bounded and as typed by
:mod:`nj_incentives.workpapers.datafile`). ``KEY`` names the field
that names each client (``EngagementClient``, or a column of its own such as ``client``,
which is then not an input): its workbook is ``DIR/<key>.xlsx``. ``hours``: the field
holding each client's payroll file for a roster template (a path, relative to TABLE's
folder), read as ``fill --hours`` reads one.

Each client is filled as :func:`nj_incentives.workpapers.fill.fill` fills one workbook,
in this one process: every value checked first, and each workbook written whole or not
at all (written to a temporary file, then moved into place). A client refused (a value,
its payroll file, a key given twice or blank, an output that exists) is named with its
messages, and the others are written: a batch never stops for one bad client and never
loses one.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nj_incentives.support.status import EXIT_FAILED, EXIT_USAGE
from nj_incentives.workpapers.fill import (
    Filled,
    FillError,
    fill,
    resolve_template,
    template_inputs,
)

__all__ = ["Batch", "Refused", "fill_each", "read_table"]

#: the most clients in one TABLE
MAX_CLIENTS = 10_000


@dataclass(frozen=True)
class Refused:
    """A client not written: its key (or where it is in TABLE) and why."""

    key: str
    status: int
    messages: list[str]


@dataclass
class Batch:
    """What :func:`fill_each` did: each client written, each refused, in TABLE's order."""

    template: str
    written: list[tuple[str, Filled]] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)

    @property
    def status(self) -> int:
        """0 every client written; 1 a client refused or written incomplete; 2 (with no
        client written) every client refused as not done."""
        if self.refused and not self.written and all(r.status == EXIT_USAGE for r in self.refused):
            return EXIT_USAGE
        if self.refused or any(filled.incomplete for _, filled in self.written):
            return EXIT_FAILED
        return 0


def _cells(text: str, path: Path, lists: set[str]) -> Iterator[tuple[str, dict[str, object]]]:
    """A CSV TABLE's clients: (where, field -> value) per row after the header; a cell of
    a field in ``lists`` (a table column's names, lower case) split as the command line
    splits a list (a cell whose commas read two ways is kept whole: its input's rule then
    refuses it, naming the client)."""
    from nj_incentives.support.lists import ListError, split_values

    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [cell.strip() for cell in next(rows)]
    except StopIteration:
        return
    except csv.Error as error:
        raise FillError([f"{path}: not CSV ({error})"], EXIT_USAGE) from error
    for number, row in enumerate(rows, 2):
        cells = [cell.strip() for cell in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if len(cells) > len(header):
            raise FillError(
                [f"{path.name} row {number}: {len(cells)} cells; the header has {len(header)}"],
                EXIT_USAGE,
            )
        found: dict[str, object] = {}
        for name, cell in zip(header, cells, strict=False):
            if not cell:
                continue
            if name.lower() not in lists:
                found[name] = cell
                continue
            try:
                found[name] = [part or None for part in split_values(cell, name)]
            except ListError as error:
                raise FillError(
                    [f"{path.name} row {number}: {name}: {error}"], EXIT_FAILED
                ) from error
        yield f"{path.name} row {number}", found


def read_table(path: str | Path, template: str) -> list[tuple[str, Mapping[str, Any]]]:
    """TABLE's clients for ``template`` as (where, DATA mapping), in order (module
    docstring). Raises :class:`FillError` (status 2) for a TABLE that cannot be read, 1
    for a CSV list cell whose commas read two ways."""
    from nj_incentives.workpapers.datafile import DataError, read_document, read_text
    from nj_incentives.workpapers.fill import refuse_thousands_in_lists

    path = Path(path)
    try:  # a regular file within fill's DATA limit
        text = read_text(path)
    except DataError as error:
        raise FillError([str(error)], EXIT_USAGE) from error
    suffix = path.suffix.lower()
    if suffix == ".csv":
        lists = {
            spelling.lower()
            for declared in template_inputs(template).values()
            if declared.rows
            for spelling in (declared.name, declared.key)
        }
        found: list[tuple[str, Mapping[str, Any]]] = list(_cells(text, path, lists))
    elif suffix in (".json", ".yaml", ".yml"):
        if suffix != ".json":
            refuse_thousands_in_lists(text, path)
        parts = [text]
        marker = re.compile(r"(?m)^---[ \t]*(?:#.*)?$")
        stream = suffix != ".json" and marker.search(text) is not None
        if stream:  # one YAML document per client: "---" lines between them
            parts = [p for p in marker.split(text) if p.strip()]
        try:  # read bounded and as typed, as fill reads DATA
            documents = [read_document(path, part) for part in parts]
        except DataError as error:
            raise FillError([str(error)], EXIT_USAGE) from error
        document: Any = documents[0] if len(documents) == 1 else None
        keyed = not stream and isinstance(document, Mapping)
        if stream:
            items = [(f"{path.name} document {n}", None, v) for n, v in enumerate(documents, 1)]
        elif keyed:
            items = [(f"{path.name} {k!r}", k, v) for k, v in document.items()]
        elif isinstance(document, list):
            items = [(f"{path.name} item {n}", None, v) for n, v in enumerate(document, 1)]
        else:
            raise FillError([f"{path}: expected a list of clients, or client -> inputs"], 2)
        found = []
        for where, name, value in items:
            if not isinstance(value, Mapping):
                raise FillError([f"{where}: expected an object of input names"], EXIT_USAGE)
            found.append((where, {"": name, **value} if keyed else value))
    else:
        raise FillError(
            [f"{path}: expected a TABLE of clients as .csv, .json or .yaml (one client a row)"],
            EXIT_USAGE,
        )
    if len(found) > MAX_CLIENTS:
        raise FillError([f"{path}: more than {MAX_CLIENTS:,} clients"], EXIT_USAGE)
    return found


def _file_name(key: str) -> str:
    """A client's key as a file name: letters, digits, space, ``.``, ``-`` and ``_`` kept,
    anything else ``_`` (``Acme/NJ`` -> ``Acme_NJ``)."""
    name = re.sub(r"[^\w .-]", "_", key, flags=re.ASCII).strip(" .")
    return name[:120]


def fill_each(
    template: str | Path,
    table: str | Path | Sequence[tuple[str, Mapping[str, Any]]],
    directory: str | Path,
    *,
    key: str,
    hours: str | None = None,
    force: bool = False,
    namespace: str = "",
    cache: bool = False,
) -> Batch:
    """Fill ``template`` once per client of ``table`` (a TABLE file, or (where, DATA
    mapping) pairs as :func:`read_table` gives them) into ``directory/<key>.xlsx``; every
    valid client written, every refused one named (module docstring).

    ``key``: the field naming each client; ``hours``: the field naming each client's
    payroll file (relative to TABLE's folder); ``force``, ``namespace``, ``cache``: as for
    :func:`~nj_incentives.workpapers.fill.fill`. Raises :class:`FillError` (status 2) only
    when nothing can be done (TABLE unreadable, the template unknown). Example::

        from nj_incentives.workpapers.batch import fill_each
        batch = fill_each("ertc-form-313", "clients.csv", "filled/", key="client",
                          hours="payroll")
        for refused in batch.refused:
            print(refused.key, *refused.messages, sep="\\n  ")
    """
    template_id = resolve_template(template)
    inputs = template_inputs(template_id)
    spellings = {s.lower() for d in inputs.values() for s in (d.name, d.key)}
    folder = Path(table).parent if isinstance(table, (str, Path)) else Path.cwd()
    clients = read_table(table, template_id) if isinstance(table, (str, Path)) else list(table)
    directory = Path(directory)
    if directory.suffix.lower() == ".xlsx":
        raise FillError([f"-o {directory}: give a folder for the workbooks"], EXIT_USAGE)
    directory.mkdir(parents=True, exist_ok=True)
    batch = Batch(template_id)
    keys: dict[str, str] = {}
    named = {}
    for where, data in clients:
        given = {str(k).lower(): k for k in data}
        found = data.get(given.get(key.lower(), ""), data.get("", ""))
        shown = str(found).strip() if found is not None else ""
        if not shown:
            batch.refused.append(Refused(where, EXIT_USAGE, [f"{where}: no {key}"]))
            continue
        file_name = _file_name(shown)
        if not file_name:
            message = f"{where}: {key} = {shown!r}: not usable as a file name"
            batch.refused.append(Refused(shown, EXIT_USAGE, [message]))
            continue
        if file_name.lower() in keys:
            message = (
                f"{where}: {key} = {shown!r} again (also {keys[file_name.lower()]}): one "
                "workbook per client"
            )
            batch.refused.append(Refused(shown, EXIT_USAGE, [message]))
            continue
        keys[file_name.lower()] = where
        named[where] = (shown, file_name)
    for where, data in clients:
        if where not in named:
            continue
        shown, file_name = named[where]
        values = {
            k: v
            for k, v in data.items()
            if k != ""
            and (str(k).lower() != key.lower() or str(k).lower() in spellings)
            and (hours is None or str(k).lower() != hours.lower())
        }
        payroll = None
        if hours is not None:
            given = {str(k).lower(): v for k, v in data.items()}
            named_file = given.get(hours.lower())
            if named_file not in (None, ""):
                payroll = folder / str(named_file)
        try:
            filled = fill(
                template_id,
                values,
                directory / f"{file_name}.xlsx",
                hours=payroll,
                force=force,
                namespace=namespace,
                cache=cache,
            )
        except FillError as error:
            messages = [f"{where} ({shown}): {m.removeprefix('data: ')}" for m in error.messages]
            batch.refused.append(Refused(shown, error.status, messages))
            continue
        batch.written.append((shown, filled))
    return batch
