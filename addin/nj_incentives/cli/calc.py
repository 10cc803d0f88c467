"""``nj-incentives calc``: recalculate filled template workbooks without Excel.

For each WORKBOOK (default: the filled examples bundled with the package):

1. vet the file as untrusted (size, zip bombs, XML entities; macros never run, external
   links never followed: :mod:`nj_incentives.workpapers.recalc.safety`);
2. recalculate every formula with the ``formulas`` engine, the NJ_* functions served by
   the same code Excel calls (:mod:`nj_incentives.workpapers.recalc.engine`);
3. write a results workbook: the same workbook, formatted, with values in place of
   formulas (default ``out/<name>-results.xlsx`` under the current folder; ``-o`` names a
   folder, or the file itself for a single workbook), its document properties naming the
   engagement (client, entity id, tax period(s), preparer, reviewer, date), the source's
   SHA-256 and the master check; and beside it a JSON run stamp
   (``<name>-results.json``: version, law currency, the law applied, time, file hash,
   template, engagement, master check, outputs, failed checks). The input is only ever
   read: a target that is an input file is refused.

``--law-as-of DATE`` applies the law as it stood on DATE to every NJ_* call that takes
``law_as_of`` (the calls of every workbook, and the memo's steps), replacing a
workbook's own (each replaced call is reported); without it each call applies its own,
by default the law in force for the period computed. The run stamp (``law_as_of``,
``law_applied``: the acts known on DATE, per statute), the results' document property
"Law as of" and the JSON document say which.

Then it prints a summary table (one line per workbook), each workbook's outputs, and
what failed. ``--memo FILE`` writes one calculation memo covering every workbook
(``.pdf``, ``.html`` or ``.md``): a one-page summary (a warning for each FALSE master
check, the engagement, master checks and key figures, the law versions, the switches set,
the sign-off block), then each workbook's schedules, then the steps (``--steps summary``,
the default: those behind the summary's figures; ``--steps all``: every NJ_* result) and
the interpretations applied (:mod:`nj_incentives.workpapers.memo`). ``--memo-each DIR``
writes one memo per workbook instead (``DIR/<name>-memo.pdf``, ``--memo-format``), each
headed by its own workbook's engagement.

Each workbook's sign-offs are printed with its outputs (``Sign-off: reviewed 2026-11-30
by R. Reviewer; inputs changed since``, :mod:`nj_incentives.workpapers.signoff`), a stale one also
on standard error as ``SIGN-OFF STALE`` with each input changed since (name, cell, value
signed, value now); a stale sign-off does not change the exit status, which is the
figures' (the master check's). A sign-off over formulas that differ from the template's
(``SIGN-OFF OVER CHANGED FORMULAS``) does: exit 1, as the sign-off covers no such
figures. The inputs hash is computed from the template's declared inputs, never read
from the workbook's own hash cell: docs/filling.md "Sign-off".

Exit status: 0 when every master check is TRUE and no NJ_* cell shows an error; 1 when a
master check is FALSE or missing, a sign-off was made over formulas that differ from the
template's, or an NJ_* cell shows an error (an input was rejected:
an added formula the checks do not cover, say; each such cell is listed); 2 when a
workbook cannot be recalculated at all (not found, refused as unsafe, unreadable) or
the arguments are wrong.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from nj_incentives.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, json_option, needs_extra
from nj_incentives.support import shipped
from nj_incentives.version import LAW_CURRENT_TO, __version__

if TYPE_CHECKING:
    from nj_incentives.workpapers.recalc import Recalculation
    from nj_incentives.workpapers.recalc.safety import Limits

__all__ = [
    "BUNDLED_EXAMPLES",
    "bundled_examples",
    "command",
    "output_paths",
    "owner_file_message",
    "run",
]

#: The filled examples shipped with the package (the order of the templates).
BUNDLED_EXAMPLES = shipped.EXAMPLES
DEFAULT_OUTPUT = Path("out")
MEMO_SUFFIXES = (".pdf", ".md", ".markdown", ".html", ".htm")

EPILOG = """\
\b
exit status: 0 every master check TRUE; 1 a master check FALSE or missing, or an NJ_*
cell shows an error (failed checks and rejected inputs are listed); 2 a workbook could
not be recalculated (not found, refused as unsafe, unreadable) or wrong arguments.

\b
examples:
  nj-incentives calc                          the bundled examples, results in ./out
  nj-incentives calc filled.xlsx --memo memo.pdf
  nj-incentives calc filled.xlsx --memo memo.pdf --steps all   every step in the memo
  nj-incentives calc a.xlsx b.xlsx -o results/ --memo results/memo.md
  nj-incentives calc a.xlsx --json            one JSON document for scripts
  nj-incentives calc a.xlsx --law-as-of 2024-06-30   the law as it stood on that day
  nj-incentives calc a.xlsx --return 2025     the 2025 return's figures and form lines
"""


def bundled_examples() -> list[Path]:
    """The filled examples: the installed package's copies (what ``pip install`` ships), or
    the repository's ``workbooks/examples`` in a checkout (:mod:`nj_incentives.support.shipped`)."""
    found = [shipped.shipped_file(name) for name in BUNDLED_EXAMPLES]
    return [path for path in found if path.is_file()]


_FOLDER_LIKE_A_WORKBOOK = (
    "-o {target}: a folder named like a workbook ({suffix}): refused; give the results "
    "file's path (not a folder), or a folder whose name does not end {suffix}"
)


def output_paths(workbooks: Sequence[Path], output: Path | None) -> list[Path]:
    """Where each workbook's results go: ``OUT/<stem>-results.xlsx`` (``OUT`` default
    ``./out``), or ``OUT`` itself when it names an .xlsx file and one workbook is given.
    Raises ValueError for an impossible request or a target that is an input."""
    target = DEFAULT_OUTPUT if output is None else output
    if target.suffix.lower() in (".xlsx", ".xlsm", ".xls") and target.is_dir():
        raise ValueError(_FOLDER_LIKE_A_WORKBOOK.format(target=target, suffix=target.suffix))
    if target.suffix.lower() in (".xlsx", ".xlsm", ".xls"):
        if target.suffix.lower() != ".xlsx":
            raise ValueError(f"{target}: results are written as an .xlsx workbook")
        if len(workbooks) != 1:
            raise ValueError(
                f"-o {target} names one file, but {len(workbooks)} workbooks are given: "
                "give a folder instead"
            )
        paths = [target]
    else:
        paths, seen = [], set()
        for workbook in workbooks:
            name = f"{workbook.stem}-results.xlsx"
            number = 2
            while name.lower() in seen:
                name = f"{workbook.stem}-{number}-results.xlsx"
                number += 1
            seen.add(name.lower())
            paths.append(target / name)
    for path in paths:
        for workbook in workbooks:
            if _same_file(path, workbook):
                raise ValueError(f"{path}: refusing to overwrite the input workbook")
    return paths


def _same_file(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    with contextlib.suppress(OSError):
        return a.exists() and b.exists() and os.path.samefile(a, b)
    return False


def _fail(message: str, bar: Any = None) -> None:
    _write(bar, f"nj-incentives calc: {message}", sys.stderr)


def _write(bar: Any, text: str, file: Any) -> None:
    """Print beside the progress bar (if any) without breaking it."""
    from nj_incentives.support.progress import write

    write(None if bar is None or isinstance(bar, _NoBar) else bar, text, file)


@click.command(
    "calc",
    help="Recalculate filled template workbooks without Excel (none given: the bundled "
    "examples); write a results workbook for each, and a memo covering them all.",
    epilog=EPILOG,
)
@click.argument("workbooks", nargs=-1, metavar="[WORKBOOK]...", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    metavar="OUT",
    type=click.Path(),  # text: a trailing "/" (a folder) is kept
    help="folder for the results workbooks (default: ./out), or the results file (.xlsx) "
    "when one WORKBOOK is given",
)
@click.option(
    "--memo",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="write a calculation memo covering every workbook: FILE.pdf, FILE.html or FILE.md",
)
@click.option(
    "--memo-each",
    metavar="DIR",
    type=click.Path(path_type=Path),
    help="write one memo per workbook into DIR (<name>-memo.pdf; --memo-format), its "
    "header that workbook's engagement",
)
@click.option(
    "--memo-format",
    type=click.Choice(["pdf", "html", "md"]),
    default="pdf",
    show_default=True,
    help="the format of --memo-each's memos",
)
@click.option(
    "--steps",
    type=click.Choice(["summary", "all"]),
    default="summary",
    show_default=True,
    help="the memo's appendix of steps: 'summary' only the NJ_* results behind the figures "
    "on its first page, 'all' every NJ_* result with every step (and the interpretations "
    "quoted in full)",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="a progress bar on standard error (default: on a terminal, once the run has "
    "lasted 2 seconds)",
)
@click.option(
    "--law-as-of",
    "law_as_of",
    metavar="DATE",
    help="apply the law as it stood on DATE (YYYY-MM-DD) to every NJ_* call that takes"
    " law_as_of, replacing a workbook's own (default: the law in force for each period"
    " computed); the run stamp and the results' properties record it",
)
@click.option(
    "--return",
    "tax_year",
    type=click.IntRange(1900, 2200),
    metavar="YEAR",
    help="print each workbook's return for tax year YEAR (CBT-100 numbering): the figures "
    "and the line of the form edition in force for that year each goes on; --json carries "
    "them as numbers",
)
@click.option("--max-cells", type=click.IntRange(1), help="cells a workbook may hold (200,000)")
@click.option("--max-formulas", type=click.IntRange(1), help="formulas in a workbook (50,000)")
@click.option("--max-rows", type=click.IntRange(1), help="rows a sheet may reach (100,000)")
@click.option("--max-columns", type=click.IntRange(1), help="columns a sheet may reach (1,000)")
@click.option("--max-area", type=click.IntRange(1), help="rows x columns of a sheet (5,000,000)")
@click.option(
    "--max-seconds", type=click.FloatRange(min=0, min_open=True), help="recalculation time (300)"
)
@click.option(
    "--max-memory-mb", type=click.IntRange(1), help="memory a recalculation may add (4096 MiB)"
)
@json_option
def command(
    workbooks: tuple[Path, ...],
    output: str | None,
    memo: Path | None,
    memo_each: Path | None,
    memo_format: str,
    steps: str,
    progress: bool | None,
    max_cells: int | None,
    max_formulas: int | None,
    max_rows: int | None,
    max_columns: int | None,
    max_area: int | None,
    max_seconds: float | None,
    max_memory_mb: int | None,
    law_as_of: str | None,
    as_json: bool,
    tax_year: int | None = None,
) -> int:
    """``nj-incentives calc``."""
    from nj_incentives.workpapers.recalc.safety import DEFAULT_LIMITS

    try:
        as_of = law_as_of_option(law_as_of)
    except ValueError as error:
        _fail(f"--law-as-of: {error}")
        return EXIT_USAGE

    limits = DEFAULT_LIMITS.with_overrides(
        max_cells=max_cells,
        max_formulas=max_formulas,
        max_rows=max_rows,
        max_columns=max_columns,
        max_area=max_area,
        max_seconds=max_seconds,
        max_memory_bytes=None if max_memory_mb is None else max_memory_mb * 1024 * 1024,
    )
    if output is not None and output.endswith(("/", os.sep)):
        folder = Path(output)
        if folder.suffix.lower() in (".xlsx", ".xlsm", ".xls"):
            _fail(_FOLDER_LIKE_A_WORKBOOK.format(target=output, suffix=folder.suffix))
            return EXIT_USAGE
    return run(
        list(workbooks),
        None if output is None else Path(output),
        memo,
        progress=progress,
        as_json=as_json,
        limits=limits,
        steps=steps,
        law_as_of=as_of,
        memo_each=memo_each,
        memo_format=memo_format,
        tax_year=tax_year,
    )


def law_as_of_option(value: str | None) -> dt.date | None:
    """``--law-as-of``: None (blank), or a date on or after the first modelled version of
    every statute whose functions take ``law_as_of``. Raises the core's InputError (a
    ValueError) naming the argument, the value and the versions available."""
    if value is None:
        return None
    from nj_incentives.core import parameters as P
    from nj_incentives.core.common import as_law_as_of
    from nj_incentives.functions.catalog import CALCULATIONS

    statutes = [
        key
        for key, law in P.STATUTES.items()
        if any(
            entry.citation.startswith(law.citation)
            and any(argument.name == "law_as_of" for argument in entry.arguments)
            for entry in CALCULATIONS.values()
        )
    ]
    day = None
    for statute in statutes:
        day = as_law_as_of(value, statute)
    if day is None:  # blank text: the law in force
        return None
    return day


def run(
    workbooks: Sequence[Path],
    output: Path | None = None,
    memo_path: Path | None = None,
    *,
    progress: bool | None = None,
    as_json: bool = False,
    limits: Limits | None = None,
    steps: str = "summary",
    law_as_of: dt.date | None = None,
    memo_each: Path | None = None,
    memo_format: str = "pdf",
    tax_year: int | None = None,
) -> int:
    """Recalculate the workbooks, write the results (and the memo: ``steps`` "summary" or
    "all", :func:`nj_incentives.workpapers.memo.build_memo`), print the summary;
    the exit status. Each workbook's outputs are printed as soon as it is done; with
    ``as_json`` the text goes to standard error and one JSON document to standard output.
    ``law_as_of``: the law as it stood on that date for every NJ_* call that takes
    ``law_as_of`` (None: each call's own, the law in force for the period computed).
    ``memo_each``: a folder for one memo per workbook (``<name>-memo.<memo_format>``)."""
    out = sys.stderr if as_json else sys.stdout
    workbooks = list(workbooks)
    if not workbooks:
        workbooks = bundled_examples()
        if not workbooks:
            _fail("no workbook given and no bundled examples found in this installation")
            return EXIT_USAGE
        print(f"No workbook given: recalculating the {len(workbooks)} bundled examples.", file=out)
    if memo_path is not None and memo_path.suffix.lower() not in MEMO_SUFFIXES:
        _fail(f"--memo {memo_path}: expected a file ending .pdf, .html or .md")
        return EXIT_USAGE
    try:
        targets = output_paths(workbooks, output)
        if memo_path is not None:
            for workbook in workbooks:
                if _same_file(memo_path, workbook):
                    raise ValueError(f"{memo_path}: refusing to overwrite the input workbook")
    except ValueError as error:
        _fail(str(error))
        return EXIT_USAGE
    from nj_incentives.support.files import claim

    claim([*targets, *map(stamp_path, targets), *([memo_path] if memo_path else [])])

    started = time.perf_counter()
    from nj_incentives.core import parameters as P
    from nj_incentives.functions import law_as_of_applied
    from nj_incentives.workpapers.recalc import (
        DEFAULT_LIMITS,
        UnsafeWorkbookError,
        summary_table,
        vet_workbook,
        write_values,
    )
    from nj_incentives.workpapers.recalc.prebuilt import recalculate_template
    from nj_incentives.workpapers.recalc.safety import budgets

    law_applied = P.law_as_of_text(law_as_of)
    if law_as_of is not None:
        print(f"Law applied: {law_applied}.", file=out)

    status = EXIT_OK
    done: list[Recalculation] = []
    written: list[Path] = []
    report: list[dict[str, Any]] = []
    bar = _progress_bar(len(workbooks), progress)
    for workbook, target in zip(workbooks, targets, strict=True):
        entry: dict[str, Any] = {"workbook": str(workbook), "results": None}
        report.append(entry)
        bar.set_postfix_str(workbook.name, refresh=False)
        try:
            if workbook.name.startswith("~$"):  # Excel's owner file of an open workbook
                entry["error"] = owner_file_message(workbook)
                _fail(f"{workbook}: {entry['error']}", bar)
                status = EXIT_USAGE
                continue
            try:
                vetted = vet_workbook(workbook, limits or DEFAULT_LIMITS)
            except FileNotFoundError:
                entry["error"] = "no such file"
                _fail(f"{workbook}: no such file", bar)
                status = EXIT_USAGE
                continue
            except (UnsafeWorkbookError, OSError) as error:
                entry["error"] = f"refused: {error}"
                _fail(f"{workbook}: refused: {error}", bar)
                status = EXIT_USAGE
                continue
            try:
                # a filled template: from its template's prebuilt form (recalc.prebuilt),
                # within the same time and memory budgets as a full recalculation
                with (
                    budgets(limits or DEFAULT_LIMITS, f"recalculating {workbook.name}"),
                    law_as_of_applied(law_as_of) as law_run,
                ):
                    recalc = recalculate_template(vetted)
            except UnsafeWorkbookError as error:  # over its time or memory budget
                entry["error"] = f"refused: {error}"
                _fail(f"{workbook}: refused: {error}", bar)
                status = EXIT_USAGE
                continue
            except Exception as error:  # a workbook the engine cannot read: report, go on
                entry["error"] = f"could not be recalculated: {type(error).__name__}: {error}"
                _fail(f"{workbook}: {entry['error']}", bar)
                status = EXIT_USAGE
                continue
            stamp = _stamp(recalc, law_as_of)
            if law_run is not None and law_run.replaced:
                entry["law_as_of_replaced"] = _replaced(law_run.replaced)
                _write(
                    bar,
                    f"nj-incentives calc: {workbook.name}: --law-as-of {law_as_of} replaced the"
                    " workbook's own law_as_of in "
                    + "; ".join(
                        f"{item['function']} ({item['value']}, {item['calls']} call(s))"
                        for item in entry["law_as_of_replaced"]
                    ),
                    sys.stderr,
                )
            try:
                from nj_incentives.core.cells import cell_index
                from nj_incentives.workpapers.signoff import checked

                # its Checks sheet's sign-off lines as status() finds them, not as the
                # workbook's own formulas compare its own (overwritable) hash cell
                with_checks = checked(recalc)
                below: dict[str, int] = {}  # the changed inputs listed below the checks
                for sheet, cell in with_checks.computed - recalc.computed:
                    below[sheet] = max(below.get(sheet, 0), cell_index(cell)[0])
                written.append(write_values(with_checks, target, _properties(stamp), below))
                entry["results"] = str(target)
            except (OSError, ValueError) as error:
                entry["error"] = f"results not written: {error}"
                _fail(f"{workbook}: results not written: {error}", bar)
                status = EXIT_USAGE
            done.append(recalc)
            status = max(status, _report(recalc, entry, bar, None if as_json else out))
            if tax_year is not None:
                _return(recalc, tax_year, entry, bar, None if as_json else out)
            if entry["results"] is not None:
                try:
                    entry["stamp"] = str(_write_stamp(stamp_path(target), stamp | entry))
                except (OSError, ValueError) as error:
                    _fail(f"{workbook}: run stamp not written: {error}", bar)
                    status = EXIT_USAGE
        finally:
            bar.update(1)
    bar.close()

    if done and not as_json:
        print(file=out)
        print(summary_table(done), file=out)
    if written and not as_json:
        print(file=out)
        print("Results written:", file=out)
        for path in written:
            beside = stamp_path(path)
            shown = f" (run stamp: {beside.name})" if beside.exists() else ""
            print(f"  {path}{shown}", file=out)
    memo_written: str | None = None
    if memo_path is not None and done:
        from nj_incentives.workpapers.memo import write_memo

        try:
            with law_as_of_applied(law_as_of):  # the memo's steps: the same law as the cells
                write_memo(
                    memo_path,
                    done,
                    protect=workbooks,
                    steps=steps,
                    law_as_of=law_as_of,
                    tax_year=tax_year,
                )
        except (OSError, ValueError) as error:
            _fail(f"memo not written: {error}")
            status = EXIT_USAGE
        except ModuleNotFoundError as missing:
            if (missing.name or "").startswith("nj_incentives"):
                raise
            _fail(f"memo not written: {needs_extra('calc', 'calc', missing.name or '?')}")
            status = EXIT_USAGE
        else:
            memo_written = str(memo_path)
            print(f"Memo written: {memo_path}", file=out)
    memos: list[str] = []
    if memo_each is not None and done:
        each_status, memos = _memo_each(memo_each, memo_format, done, workbooks, steps, law_as_of)
        status = max(status, each_status)
        print(f"Memos written: {len(memos)} in {memo_each}", file=out)
    elapsed = time.perf_counter() - started
    print(f"({elapsed:.1f} s)", file=out)
    if as_json:
        document = {
            "status": status,
            "version": __version__,
            "law_current_to": LAW_CURRENT_TO,
            "law_as_of": None if law_as_of is None else law_as_of.isoformat(),
            "law_applied": law_applied,
            "workbooks": report,
            "memo": memo_written,
            "memos": memos,
            "seconds": round(elapsed, 2),
        }
        print(json.dumps(document, indent=2, default=str))
    return status


def _stem(recalc: Recalculation) -> str:
    return Path(recalc.source).stem


def _memo_each(
    folder: Path,
    suffix: str,
    done: Sequence[Recalculation],
    workbooks: Sequence[Path],
    steps: str,
    law_as_of: dt.date | None,
) -> tuple[int, list[str]]:
    """One memo per workbook in ``folder`` (its header that workbook's engagement);
    each written whole or not at all; (the exit status: 2 if one could not be written,
    the memos written)."""
    from nj_incentives.functions import law_as_of_applied
    from nj_incentives.workpapers.memo import write_memo

    status, written = EXIT_OK, list[str]()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        _fail(f"--memo-each {folder}: {error}")
        return EXIT_USAGE, written
    seen: set[str] = set()
    for recalc in done:
        name = _stem(recalc)
        if name in seen:  # two workbooks of one name from two folders: the second numbered
            name = f"{name}-{len(seen) + 1}"
        seen.add(name)
        target = folder / f"{name}-memo.{suffix}"
        try:
            with law_as_of_applied(law_as_of):
                written.append(str(write_memo(target, [recalc], protect=workbooks, steps=steps)))
        except (OSError, ValueError) as error:
            _fail(f"{recalc.source.name}: memo not written: {error}")
            status = EXIT_USAGE
        except ModuleNotFoundError as missing:
            if (missing.name or "").startswith("nj_incentives"):
                raise
            _fail(f"memo not written: {needs_extra('calc', 'calc', missing.name or '?')}")
            return EXIT_USAGE, written
    return status, written


def _return(
    recalc: Recalculation, tax_year: int, entry: dict[str, Any], bar: Any, out: IO[str] | None
) -> None:
    """``--return YEAR``: the workbook's return for the tax year (its template's
    ``RETURN``, reached through the registry), printed and in its JSON ``entry``."""
    from nj_incentives import programs
    from nj_incentives.workpapers.memo import facts

    template = facts(recalc).template
    declared = None
    if template:
        with contextlib.suppress(LookupError):
            declared = getattr(programs.template(template), "RETURN", None)

    def read(name: str) -> Any:
        try:
            return recalc.value(name)
        except (KeyError, LookupError, ValueError):
            return None

    block = None if declared is None else declared(read, tax_year)
    if block is None:
        why = f"no return lines for tax year {tax_year}: " + (
            "the template declares none" if declared is None else "no period of that year"
        )
        entry["return"] = {"tax_year": tax_year, "lines": [], "notes": [why]}
        text = f"  Return {tax_year}: {why}"
    else:
        entry["return"] = block.as_dict()
        text = "\n".join(f"  {line}" for line in block.text().splitlines())
    if out is not None:
        _write(bar, text, out)


def owner_file_message(path: Path) -> str:
    """What ``~$name.xlsx`` is: the lock file Excel keeps beside a workbook while it is
    open (it holds the user's name, no cells)."""
    original = path.with_name(path.name[2:])
    return (
        f"an Excel owner file: {original.name} is open in Excel (Excel keeps {path.name} "
        f"beside it while it is open); save it there, then recalculate {original.name}"
    )


def stamp_path(results: Path) -> Path:
    """The run stamp beside a results workbook: ``<name>-results.json``."""
    return results.with_suffix(".json")


def _replaced(replaced: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The calls whose own law_as_of ``--law-as-of`` replaced, counted per value."""
    from collections import Counter

    return [
        {"function": function, "value": value, "calls": calls}
        for (function, value), calls in Counter(replaced).items()
    ]


def _stamp(recalc: Recalculation, law_as_of: dt.date | None = None) -> dict[str, Any]:
    """What the run stamp and the results' document properties record of a workbook:
    the package and the law it is current to, the law applied (``--law-as-of``), when,
    the file and its hash, the template and the engagement (client, entity id, tax
    period(s), preparer, reviewer, date)."""
    from nj_incentives.core import parameters as P
    from nj_incentives.workpapers.memo import engagement, facts

    fact = facts(recalc)
    return {
        "package": "nj-incentives",
        "version": __version__,
        "law_current_to": LAW_CURRENT_TO,
        "law_as_of": None if law_as_of is None else law_as_of.isoformat(),
        "law_applied": P.law_as_of_text(law_as_of),
        "created_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "workbook_sha256": fact.sha256,
        "template": fact.template,
        "engagement": engagement(recalc),
        "master_check": fact.master_check if isinstance(fact.master_check, bool) else None,
    }


#: Engagement labels -> the custom document property of the results workbook.
_PROPERTY_NAMES = {"Date": "Engagement date"}


def _properties(stamp: dict[str, Any]) -> dict[str, str]:
    """The results workbook's custom document properties: the engagement, the source's
    hash, the master check and what recalculated it."""
    found = {_PROPERTY_NAMES.get(k, k): v for k, v in stamp["engagement"].items() if v}
    verdict = stamp["master_check"]
    found["Master check"] = "(none)" if verdict is None else str(verdict).upper()
    found["Source SHA-256"] = stamp["workbook_sha256"]
    found["Law as of"] = (
        f"{stamp['law_as_of']} (calc --law-as-of)"
        if stamp["law_as_of"]
        else "blank: the law in force for each period computed"
    )
    found["Recalculated by"] = f"nj-incentives {__version__} (calc), {stamp['created_utc']}"
    return found


def _write_stamp(path: Path, stamp: dict[str, Any]) -> Path:
    from nj_incentives.support.files import atomic_path

    text = json.dumps(stamp, indent=2, sort_keys=True, default=str) + "\n"
    with atomic_path(path) as temporary:
        temporary.write_text(text, encoding="utf-8")
    return path


class _NoBar:
    """What the loop calls on a progress bar, when there is none."""

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        pass

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, wanted: bool | None) -> Any:
    """A tqdm bar on standard error (:mod:`nj_incentives.support.progress`: by default on a
    terminal, once the run has lasted a few seconds)."""
    from nj_incentives.support import progress

    show, delay = progress.settings(wanted)
    shown = progress.bar(total, delay, unit="workbook") if show and total else None
    return _NoBar() if shown is None else shown


def _signoff_warnings(name: str, signoffs: Sequence[Any], bar: Any) -> int:
    """Warn on standard error of each sign-off that no longer holds: its inputs changed
    since (``SIGN-OFF STALE``, each input changed named), or it was made over formulas
    that differ from the template's (``SIGN-OFF OVER CHANGED FORMULAS``); the exit
    status this adds: 1 for changed formulas under a sign-off, else 0."""
    code = EXIT_OK
    lines = []
    for signoff in signoffs:
        if signoff.signed and signoff.formulas_count:
            lines.append(
                f"nj-incentives calc: {name}: SIGN-OFF OVER CHANGED FORMULAS: {signoff.line} "
                "(the sign-off does not cover these figures: fill the template again, or "
                "review the changed formulas and sign again)"
            )
            code = EXIT_FAILED
        elif signoff.stale:  # not the master check's: the figures may be right
            lines.append(
                f"nj-incentives calc: {name}: SIGN-OFF STALE: {signoff.line} (sign again "
                "once reviewed: nj-incentives sign)"
            )
        if signoff.stale:
            lines += [f"  changed since: {change.line}" for change in signoff.changes[:20]]
            if len(signoff.changes) > 20:
                lines.append(f"  ... and {len(signoff.changes) - 20} more")
    if lines:
        _write(bar, "\n".join(lines), sys.stderr)
    return code


def _report(recalc: Recalculation, entry: dict[str, Any], bar: Any, out: IO[str] | None) -> int:
    """Print a workbook's outputs (to ``out``, unless None) and what failed (to standard
    error); fill its JSON ``entry``; its exit status (0 or 1)."""
    from nj_incentives.workpapers.memo import (
        check_line,
        checks,
        engagement,
        labelled_values,
        master_check,
        number_formats,
    )

    name = recalc.source.name
    verdict = master_check(recalc)
    outputs = labelled_values(recalc, number_formats(recalc))
    entry["engagement"] = engagement(recalc)
    entry["master_check"] = verdict if isinstance(verdict, bool) else None
    from nj_incentives.workpapers.outputs import output_records

    entry["outputs"] = output_records(recalc)  # numbers a program can read
    from nj_incentives.workpapers.signoff import status

    signoffs = status(recalc)
    entry["signoffs"] = [signoff.as_dict() for signoff in signoffs]
    if out is not None:
        lines = ["", f"{name}:"]
        lines += [f"  {label}: {_with_unit(value, unit)}" for label, unit, value in outputs]
        lines += [f"  Sign-off: {signoff.line}" for signoff in signoffs if signoff.signed]
        _write(bar, "\n".join(lines), out)
    signoff_status = _signoff_warnings(name, signoffs, bar)
    failed = [(label, cite) for label, cite, result in checks(recalc) if result is not True]
    rejected = list(dict.fromkeys((e.function, e.message) for e in recalc.function_errors))
    entry["failed_checks"] = [{"check": label, "citation": cite} for label, cite in failed]
    entry["rejected_inputs"] = [{"function": f, "message": m} for f, m in rejected]
    entry["circular_references"] = list(recalc.circular_references)
    from nj_incentives.workpapers.recalc.templates import SPILL_NOTE

    spills = [note for note in recalc.notes if note.startswith(SPILL_NOTE)]
    entry["spilled_ranges"] = spills
    for note in spills:  # restored from the template's layout, or why not
        _write(bar, f"nj-incentives calc: {name}: {note}", sys.stderr)
    if recalc.circular_references:
        cells = ", ".join(recalc.circular_references[:20])
        _fail(f"{name}: circular reference (cells not computed, left blank): {cells}", bar)
        return EXIT_FAILED
    nj_errors = nj_error_cells(recalc)
    entry["nj_error_cells"] = [{"cell": cell, "value": text} for cell, text in nj_errors]
    if verdict is True and nj_errors:
        # the checks cover the template's own cells; an added formula that rejected its
        # input shows an error the master check cannot see: still "an input was rejected"
        lines = [
            f"nj-incentives calc: {name}: {len(nj_errors)} NJ_* cell(s) show an error "
            "(an input was rejected), although the master check is TRUE"
        ]
        lines += [f"  {cell}: {text}" for cell, text in nj_errors[:20]]
        if len(nj_errors) > 20:
            lines.append(f"  ... and {len(nj_errors) - 20} more")
        _write(bar, "\n".join(lines), sys.stderr)
        return EXIT_FAILED
    if verdict is True:
        return signoff_status
    if verdict is None:
        _fail(
            f"{name}: no master check (a defined name MasterCheck): not a template workbook?",
            bar,
        )
        return EXIT_FAILED
    lines = [
        f"nj-incentives calc: {name}: MASTER CHECK FALSE: {len(failed)} check(s) failed; "
        "do not use its figures"
    ]
    lines += [f"  failed: {check_line(label, cite)}" for label, cite in failed]
    legacy = [note for note in spills if "computed as legacy array formulas" in note]
    lines += [f"  likely cause: {note}" for note in legacy]
    # the first is usually the cause; those after it, what depends on it
    lines += [f"  rejected input: {function}: {message}" for function, message in rejected]
    _write(bar, "\n".join(lines), sys.stderr)
    return EXIT_FAILED


def nj_error_cells(recalc: Recalculation) -> list[tuple[str, str]]:
    """The computed cells whose formula calls an NJ_* function (or that show a function's
    error message) and hold an error, as ``("Sheet!A1", text)`` (:meth:`error_cells`)."""
    from nj_incentives.workpapers.recalc.engine import split_reference

    messages = {error.message for error in recalc.function_errors}
    found = []
    for where, text in recalc.error_cells():
        if text in messages:
            found.append((where, text))
            continue
        with contextlib.suppress(ValueError):
            sheet, cells = split_reference(where, recalc.sheets)
            formula = recalc.formulas.get((sheet, cells.split(":")[0].replace("$", "")), "")
            if "NJ_" in formula.upper():
                found.append((where, text))
    return found


def _with_unit(value: str, unit: str) -> str:
    from nj_incentives.workpapers.memo import with_unit

    return with_unit(value, unit)
