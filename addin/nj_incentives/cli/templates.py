"""``nj-incentives templates DIR``: copy the blank templates and filled examples out.

The wheel ships each template and its filled example in the package data
(``nj_incentives/data``), with the scenario runner's example inputs (``scenarios.csv``,
``scenarios.xlsx``, ``scenarios-base.csv``, ``scenarios-grid.json``,
``scenarios-montecarlo.json``); this command copies them to DIR (templates) and
DIR/examples/ (examples and scenario inputs), so that a user who installed the package
(no repository) gets the workbooks.
An existing file is never overwritten unless ``--force`` is given: a filled template is an
accountant's work. The copy is all or nothing and never follows a symbolic link out of
DIR (:func:`copy_templates`).

With ``--runtime server`` (xlwings Server's namespace, XLWINGS) or ``--namespace NS`` the
workbooks are built afresh with every NJ_* function spelled
for an Office.js add-in (``=NS.NJ_BEIP_GRANT(...)``; xlwings Server's default namespace is
``XLWINGS``); this needs the ``calc`` extra (xlsxwriter). Without it, the shipped files
use the classic add-in's spelling (no namespace), which xlwings Lite also documents.

Exit status: 0 when every file was written, 2 when a file exists (without ``--force``),
the directory cannot be written, or the namespace is not valid. ``--json``: the files
written as one JSON document.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import click

from nj_incentives.cli import EXIT_OK, EXIT_USAGE, json_option
from nj_incentives.support import files, shipped

__all__ = [
    "RUNTIME_NAMESPACES",
    "TemplatesError",
    "command",
    "copy_templates",
    "run",
    "shipped_workbooks",
]

#: The shipped workbooks: file name -> subfolder of DIR ("" or "examples").
_TEMPLATES = shipped.TEMPLATES
_EXAMPLES = shipped.EXAMPLES
_SCENARIOS = shipped.SCENARIO_EXAMPLES


#: runtime -> the namespace its formulas carry (xlwings Server's manifest default is
#: XLWINGS; the classic add-in and xlwings Lite's documentation use the bare name).
RUNTIME_NAMESPACES = {"classic": "", "lite": "", "server": "XLWINGS"}


class TemplatesError(RuntimeError):
    """A file exists (without force), is missing from the package, or cannot be written."""


def shipped_workbooks() -> dict[str, Path]:
    """``relative path under DIR -> packaged file`` for every template, example and
    scenario example."""
    found: dict[str, Path] = {}
    for name in _TEMPLATES:
        found[name] = shipped.shipped_file(name)
    for name in (*_EXAMPLES, *_SCENARIOS):
        found[f"examples/{name}"] = shipped.shipped_file(name)
    return found


def copy_templates(directory: Path, *, force: bool = False, namespace: str = "") -> list[Path]:
    """Write every template to ``directory`` and every example to ``directory/examples``;
    returns the paths written. All or nothing: nothing is written if any target exists
    (without force), and each file is written to a temporary file beside it, all of them
    renamed into place only once every one is complete (a full disk leaves no file, and
    none half written). A symbolic link is never followed: a link among the targets counts
    as an existing file (with ``--force`` the link itself is replaced, never the file it
    points to), and ``DIR/examples`` may not be a link."""
    sources = _build(namespace) if namespace else shipped_workbooks()
    missing = [str(path) for path in sources.values() if not path.is_file()]
    if missing:
        raise TemplatesError(
            "the package's workbooks are missing (rebuild them in a checkout with "
            f"python -m nj_incentives.workpapers.templates.build): {', '.join(missing)}"
        )
    targets = {directory / relative: source for relative, source in sources.items()}
    for folder in sorted({target.parent for target in targets} - {directory}):
        if folder.is_symlink():
            raise TemplatesError(
                f"not writing into {folder}: it is a symbolic link (to {os.readlink(folder)});"
                " links are not followed out of DIR"
            )
    existing = [target for target in targets if os.path.lexists(target)]
    if existing and not force:
        shown = [
            f"{t} (a link to {os.readlink(t)})" if t.is_symlink() else str(t) for t in existing
        ]
        raise TemplatesError(f"not overwriting {', '.join(shown)} (give --force to replace them)")
    current: Path = directory
    try:
        with contextlib.ExitStack() as stack:
            for target, source in targets.items():
                current = target
                if target.is_dir() and not target.is_symlink():
                    raise IsADirectoryError(errno.EISDIR, "it is a folder", str(target))
                temporary = stack.enter_context(files.atomic_path(target))
                shutil.copyfile(source, temporary)
            current = directory
    except OSError as error:
        where = error.filename if isinstance(error, files.DiskFullError) else current
        raise TemplatesError(f"cannot write {where}: {error.strerror or error}") from error
    return list(targets)


def _build(namespace: str) -> dict[str, Path]:
    """Build the workbooks with ``namespace`` into a temporary folder (kept for the
    process's lifetime: the caller copies from it)."""
    from nj_incentives.workpapers.templates.build import EXAMPLES, TEMPLATES  # needs xlsxwriter

    folder = Path(tempfile.mkdtemp(prefix="nj-incentives-templates-"))
    built: dict[str, Path] = {}
    try:
        for name, build in TEMPLATES.items():
            built[name] = build(folder / name, namespace)
        for name, build in EXAMPLES.items():
            built[f"examples/{name}"] = build(folder / name, namespace)
        for name in _SCENARIOS:  # no formulas: the shipped files as they are
            built[f"examples/{name}"] = shipped.shipped_file(name)
    except ValueError as error:  # an invalid namespace
        raise TemplatesError(str(error)) from error
    return built


@click.command(
    "templates",
    help="Copy the blank template workbooks to DIR and their filled examples and the "
    "scenario examples to DIR/examples (existing files are kept unless --force).",
)
@click.argument("directory", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="replace files that already exist in DIR")
@click.option(
    "--namespace",
    default="",
    metavar="NS",
    help="build them with every NJ_* function spelled NS.NJ_... for an Office.js "
    "add-in (xlwings Server's default: XLWINGS); needs the 'calc' extra",
)
@click.option(
    "--runtime",
    type=click.Choice(sorted(RUNTIME_NAMESPACES)),
    default="classic",
    show_default=True,
    help="spell the functions for this runtime: classic and lite bare (=NJ_...), server "
    "with xlwings Server's default namespace (=XLWINGS.NJ_...); --namespace overrides it",
)
@json_option
def command(directory: Path, force: bool, namespace: str, runtime: str, as_json: bool) -> int:
    """``nj-incentives templates DIR``."""
    namespace = namespace or RUNTIME_NAMESPACES[runtime]
    return run(directory, force=force, namespace=namespace, as_json=as_json)


def run(directory: Path, *, force: bool = False, namespace: str = "", as_json: bool = False) -> int:
    """Copy the workbooks; the exit status."""
    try:
        written = copy_templates(directory, force=force, namespace=namespace)
    except TemplatesError as error:
        print(f"nj-incentives templates: {error}", file=sys.stderr)
        if as_json:
            print(json.dumps({"status": EXIT_USAGE, "error": str(error), "written": []}))
        return EXIT_USAGE
    if as_json:
        print(json.dumps({"status": EXIT_OK, "written": [str(path) for path in written]}))
    else:
        for path in written:
            print(path)
    print(
        "Next: open a template in Excel; its About sheet lists the steps for your runtime "
        "(nj-incentives doctor checks them).",
        file=sys.stderr,
    )
    return EXIT_OK
