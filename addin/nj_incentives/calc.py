"""``nj-incentives calc``: recalculate filled template workbooks without Excel.

For each WORKBOOK (default: the filled examples bundled with the package):

1. vet the file as untrusted (size, zip bombs, XML entities; macros never run, external
   links never followed: :mod:`nj_incentives.recalc.safety`);
2. recalculate every formula with the ``formulas`` engine, the NJ_* functions served by
   the same code Excel calls (:mod:`nj_incentives.recalc.engine`);
3. write a results workbook: the same workbook, formatted, with values in place of
   formulas (default ``out/<name>-results.xlsx`` under the current folder; ``-o`` names a
   folder, or the file itself for a single workbook). The input is only ever read: a
   target that is an input file is refused.

Then it prints a summary table (one line per workbook), each workbook's outputs, and
what failed. ``--memo FILE`` writes one calculation memo covering every workbook
(``.md`` or ``.html``): inputs, every NJ_* result with its steps and citations, the
interpretations applied, the version, the law it is current to and each file's SHA-256.

Exit status: 0 when every master check is TRUE; 1 when a master check is FALSE or
missing (an input the functions reject fails its checks, so it lands here too); 2 when a
workbook cannot be recalculated at all (not found, refused as unsafe, unreadable) or
the arguments are wrong.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.resources
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nj_incentives.recalc import Recalculation

__all__ = ["BUNDLED_EXAMPLES", "add_arguments", "bundled_examples", "output_paths", "run"]

#: The filled examples shipped in ``nj_incentives/data`` (the order of the templates).
BUNDLED_EXAMPLES = (
    "beip-grant-schedule-example.xlsx",
    "beip-credit-conversion-example.xlsx",
    "ertc-form-313-example.xlsx",
)
DEFAULT_OUTPUT = Path("out")
MEMO_SUFFIXES = (".md", ".markdown", ".html", ".htm")

EPILOG = """\
exit status: 0 every master check TRUE; 1 a master check FALSE or missing (failed checks
and rejected inputs are listed); 2 a workbook could not be recalculated (not found,
refused as unsafe, unreadable) or wrong arguments.

examples:
  nj-incentives calc                          the bundled examples, results in ./out
  nj-incentives calc filled.xlsx --memo memo.html
  nj-incentives calc a.xlsx b.xlsx -o results/ --memo results/memo.md
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``nj-incentives calc``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument(
        "workbooks",
        nargs="*",
        metavar="WORKBOOK",
        type=Path,
        help="filled template workbook (.xlsx or .xlsm); none: the bundled examples",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        type=Path,
        help="folder for the results workbooks (default: ./out), or the results file "
        "(.xlsx) when one WORKBOOK is given",
    )
    parser.add_argument(
        "--memo",
        metavar="FILE",
        type=Path,
        help="write a calculation memo covering every workbook: FILE.md or FILE.html",
    )


def bundled_examples() -> list[Path]:
    """The filled examples: the package's data folder (what ``pip install`` ships), or the
    repository's ``workbooks/examples`` when running from a checkout without it."""
    found: list[Path] = []
    try:
        data = importlib.resources.files("nj_incentives").joinpath("data")
        for name in BUNDLED_EXAMPLES:
            path = Path(str(data.joinpath(name)))
            if path.is_file():
                found.append(path)
    except (ModuleNotFoundError, FileNotFoundError):
        pass
    if len(found) == len(BUNDLED_EXAMPLES):
        return found
    checkout = Path(__file__).resolve().parents[2] / "workbooks" / "examples"
    return [checkout / name for name in BUNDLED_EXAMPLES if (checkout / name).is_file()]


def output_paths(workbooks: Sequence[Path], output: Path | None) -> list[Path]:
    """Where each workbook's results go: ``OUT/<stem>-results.xlsx`` (``OUT`` default
    ``./out``), or ``OUT`` itself when it names an .xlsx file and one workbook is given.
    Raises ValueError for an impossible request or a target that is an input."""
    target = DEFAULT_OUTPUT if output is None else output
    if target.suffix.lower() in (".xlsx", ".xlsm", ".xls") and not target.is_dir():
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


def _fail(message: str) -> None:
    print(f"nj-incentives calc: {message}", file=sys.stderr)


@contextlib.contextmanager
def _lighter_xlwings() -> Iterator[None]:
    """Import xlwings without its optional matplotlib and pandas integrations.

    ``nj_incentives.excel`` imports xlwings for its decorators; ``import xlwings`` in
    turn imports matplotlib.pyplot and pandas when they are installed (about a second
    on a small machine), for picture and DataFrame conversions that the recalculation
    never uses. In this process only, and only when nothing has imported xlwings yet and
    the Office.js runtime is not selected, the two are hidden while xlwings is imported
    (xlwings treats them as not installed) and visible again right after. Anything
    unexpected falls back to the ordinary import."""
    server = os.environ.get("XLWINGS_ON_SERVER", "").strip().lower() in ("1", "true", "yes")
    if "xlwings" in sys.modules or server:
        yield
        return
    hidden = [name for name in ("matplotlib", "pandas") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import xlwings  # noqa: F401
    except ImportError:
        for key in [k for k in sys.modules if k == "xlwings" or k.startswith("xlwings.")]:
            del sys.modules[key]
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    yield


def run(args: argparse.Namespace) -> int:
    """Recalculate the workbooks, write the results (and the memo), print the summary."""
    workbooks: list[Path] = list(args.workbooks or [])
    if not workbooks:
        workbooks = bundled_examples()
        if not workbooks:
            _fail("no workbook given and no bundled examples found in this installation")
            return 2
        print(f"No workbook given: recalculating the {len(workbooks)} bundled examples.")
    memo_path: Path | None = args.memo
    if memo_path is not None and memo_path.suffix.lower() not in MEMO_SUFFIXES:
        _fail(f"--memo {memo_path}: write the memo as .md or .html")
        return 2
    try:
        targets = output_paths(workbooks, args.output)
        if memo_path is not None:
            for workbook in workbooks:
                if _same_file(memo_path, workbook):
                    raise ValueError(f"{memo_path}: refusing to overwrite the input workbook")
    except ValueError as error:
        _fail(str(error))
        return 2

    started = time.perf_counter()
    with _lighter_xlwings():
        from nj_incentives.recalc import (
            UnsafeWorkbookError,
            recalculate_vetted,
            summary_table,
            vet_workbook,
            write_values,
        )

    status = 0
    done: list[Recalculation] = []
    written: list[Path] = []
    for workbook, target in zip(workbooks, targets, strict=True):
        try:
            vetted = vet_workbook(workbook)
        except FileNotFoundError:
            _fail(f"{workbook}: no such file")
            status = 2
            continue
        except (UnsafeWorkbookError, OSError) as error:
            _fail(f"{workbook}: refused: {error}")
            status = 2
            continue
        try:
            recalc = recalculate_vetted(vetted)
        except Exception as error:  # a workbook the engine cannot read: report, go on
            _fail(f"{workbook}: could not be recalculated: {type(error).__name__}: {error}")
            status = 2
            continue
        try:
            written.append(write_values(recalc, target))
        except (OSError, ValueError) as error:
            _fail(f"{workbook}: results not written: {error}")
            status = 2
        done.append(recalc)

    if done:
        print()
        print(summary_table(done))
    for recalc in done:
        status = max(status, _report(recalc))
    if written:
        print()
        print("Results written:")
        for path in written:
            print(f"  {path}")
    if memo_path is not None and done:
        from nj_incentives.memo import write_memo

        try:
            write_memo(memo_path, done, protect=workbooks)
        except (OSError, ValueError) as error:
            _fail(f"memo not written: {error}")
            status = 2
        else:
            print(f"Memo written: {memo_path}")
    print(f"({time.perf_counter() - started:.1f} s)")
    return status


def _report(recalc: Recalculation) -> int:
    """Print a workbook's outputs and what failed; its exit status (0 or 1)."""
    from nj_incentives.memo import checks, labelled_values, master_check, number_formats

    name = recalc.source.name
    verdict = master_check(recalc)
    print()
    print(f"{name}:")
    for label, unit, value in labelled_values(recalc, number_formats(recalc)):
        print(f"  {label}: {_with_unit(value, unit)}")
    if verdict is True:
        return 0
    if verdict is None:
        _fail(f"{name}: no master check (a defined name MasterCheck): not a template workbook?")
        return 1
    failed = [(label, cite) for label, cite, result in checks(recalc) if result is not True]
    _fail(f"{name}: MASTER CHECK FALSE: {len(failed)} check(s) failed; do not use its figures")
    for label, cite in failed:
        print(f"  failed: {label}" + (f" ({cite})" if cite else ""), file=sys.stderr)
    # the first is usually the cause; those after it, what depends on it
    for function, message in dict.fromkeys((e.function, e.message) for e in recalc.function_errors):
        print(f"  rejected input: {function}: {message}", file=sys.stderr)
    return 1


def _with_unit(value: str, unit: str) -> str:
    if unit == "$" and value and value[0] in "-0123456789":
        return f"-${value[1:]}" if value.startswith("-") else f"${value}"
    if not unit or unit in ("$", "%", "date", "TRUE/FALSE", "verdict", "yes/no"):
        return value
    if value in ("1", "1.00") and unit.endswith("s"):
        unit = unit[:-1]  # "1 year", "1.00 position"
    return f"{value} {unit}"
