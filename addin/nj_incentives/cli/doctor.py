"""``nj-incentives doctor [WORKBOOK]``: check what can be checked on this machine, print
the next step.

Checks, in the order of the setup steps (:mod:`nj_incentives.runtimes.setup_steps`):

- Python (3.11 or later) and this package (its version, installed or a checkout);
- xlwings: installed, and a version this package is tested with (0.37.x);
- the classic add-in (Windows only): pywin32, ``xlwings.xlam`` in the user's XLSTART
  folder (where ``xlwings addin install`` copies it), and the ribbon's interpreter in
  ``%USERPROFILE%\\.xlwings\\xlwings.conf`` against this Python;
- a workbook, if given: macro-enabled (``.xlsm``), its ``xlwings.conf`` sheet
  (``UDF Modules = nj_incentives.excel``, keys read from A1 down), the NJ_* functions it
  calls (all known to this version) and their spelling for the runtime
  (``--runtime classic|lite|server``), and whether its VBA project holds the imported
  functions (``xlwings_udfs``).

A workbook is untrusted: it goes through the vetting of ``calc``
(:func:`nj_incentives.workpapers.recalc.safety.vet_workbook`, with the same limits: size, zip bombs,
DTDs in any part and any encoding, far cells, refused formulas and defined names, damaged
shared-string indexes) and is then read from the vetted bytes, as a stream, within the
same time and memory budgets. A refused workbook is reported with the message ``calc``
gives (exit 2).

What it cannot check: anything inside Excel (the Trust Center setting, the VBA reference,
whether Excel loaded the add-in). Exit status: 0 all checks pass, 1 a check failed (the
next step is printed), 2 the workbook cannot be read or is refused.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import click
from defusedxml.ElementTree import iterparse

from nj_incentives.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, json_option
from nj_incentives.runtimes import setup_steps
from nj_incentives.runtimes.spelling import tokens
from nj_incentives.version import __version__

__all__ = ["Check", "check_machine", "check_workbook", "command", "run"]

#: xlwings versions this package works with: the test suite runs on 0.37.x; the Office.js
#: and VBA-wrapper tests also pass on 0.33.20 (xlwings Lite's default for new workbooks).
TESTED_XLWINGS = ((0, 33, 20), (0, 38, 0))
_STEP = {step.key: step for step in (*setup_steps.CLASSIC, *setup_steps.LITE)}
_OK, _FAIL, _INFO = "ok", "FAIL", "info"


@dataclass(frozen=True)
class Check:
    """One check: its status ("ok", "FAIL" or "info"), what was found, the fix."""

    status: str
    what: str
    found: str
    step: str = ""  # the setup step that fixes it (a key of setup_steps), if any
    fix: str = ""

    def next_step(self) -> str:
        if self.step in _STEP:
            step = _STEP[self.step]
            return f"{step.title}: {step.detail}" + (f" ({self.fix})" if self.fix else "")
        return self.fix


# --------------------------------------------------------------------------- the machine


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def check_machine(
    platform: str = sys.platform, environ: Mapping[str, str] | None = None, classic: bool = True
) -> list[Check]:
    """The checks of this Python, this package, xlwings and (for the classic add-in, on
    Windows) the add-in and its interpreter."""
    env = dict(os.environ if environ is None else environ)
    checks = []
    python = ".".join(map(str, sys.version_info[:3]))
    checks.append(
        Check(_OK, "Python", f"{python} at {sys.executable}")
        if sys.version_info >= (3, 11)
        else Check(_FAIL, "Python", python, "package", "Python 3.11 or later is needed")
    )
    import nj_incentives

    where = Path(nj_incentives.__file__).resolve().parent
    checks.append(Check(_OK, "nj-incentives", f"{__version__} at {where}"))
    try:
        import xlwings
    except ImportError:
        checks.append(Check(_FAIL, "xlwings", "not installed", "package"))
    else:
        version = _version_tuple(xlwings.__version__)
        low, high = TESTED_XLWINGS
        if low <= version < high:
            checks.append(Check(_OK, "xlwings", xlwings.__version__))
        else:
            checks.append(
                Check(
                    _FAIL,
                    "xlwings",
                    f"{xlwings.__version__} (tested: 0.33.20 to 0.37.x)",
                    "package",
                    'pip install "xlwings>=0.37.8,<0.38"',
                )
            )
    if not classic:
        return checks
    if not platform.startswith("win"):
        checks.append(
            Check(
                _INFO,
                "classic add-in",
                f"not on Windows ({platform}): xlwings' classic UDFs are Windows-only; use "
                "xlwings Lite in Excel on Mac or the web",
            )
        )
        return checks
    try:
        import win32com  # noqa: F401  (pywin32)
    except ImportError:
        checks.append(Check(_FAIL, "pywin32", "not installed", "package", "pip install pywin32"))
    appdata = env.get("APPDATA", "")
    addin = Path(appdata) / "Microsoft" / "Excel" / "XLSTART" / "xlwings.xlam"
    if appdata and addin.is_file():
        checks.append(Check(_OK, "xlwings add-in", str(addin)))
    else:
        checks.append(Check(_FAIL, "xlwings add-in", f"not found at {addin}", "addin"))
    pythonw = Path(sys.executable).with_name("pythonw.exe")
    configured = _ribbon_interpreter(Path(env.get("USERPROFILE", "~")).expanduser())
    candidates = {_same_path(p) for p in (pythonw, Path(sys.executable))}
    if configured and _same_path(Path(configured)) in candidates:
        checks.append(Check(_OK, "interpreter", configured))
    else:
        checks.append(
            Check(
                _FAIL,
                "interpreter",
                f"the ribbon's is {configured or '(not set)'}; this Python's is {pythonw}",
                "interpreter",
                f"set it to {pythonw}",
            )
        )
    return checks


def _same_path(path: Path) -> str:
    """A path as compared here: absolute, case-folded on Windows, links not followed (a
    virtual environment's python is a link to the base interpreter)."""
    return os.path.normcase(os.path.abspath(path))


def _ribbon_interpreter(home: Path) -> str:
    """INTERPRETER_WIN of the ribbon's settings file (``"KEY","value"`` lines)."""
    path = home / ".xlwings" / "xlwings.conf"
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    for line in lines:
        match = re.fullmatch(r'\s*"([^"]*)"\s*,\s*"([^"]*)"\s*', line)
        if match and match.group(1).upper() == "INTERPRETER_WIN":
            return match.group(2)
    return ""


# --------------------------------------------------------------------------- a workbook

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


class WorkbookError(RuntimeError):
    """The workbook cannot be read."""


def _stream(archive: zipfile.ZipFile, part: str, wanted: str) -> Iterator[ElementTree.Element]:
    """The ``wanted`` elements (local name, main namespace) of a part, read as a stream:
    each is cleared once the caller moves on, so a large part is never held as a tree."""
    with archive.open(part) as source:
        for _event, element in iterparse(source, forbid_dtd=True):
            if element.tag == f"{_MAIN}{wanted}":
                yield element
                element.clear()


def _shared_strings(archive: zipfile.ZipFile) -> list[str]:
    if "xl/sharedStrings.xml" not in archive.namelist():
        return []
    return [
        "".join(t.text or "" for t in si.iter(f"{_MAIN}t"))
        for si in _stream(archive, "xl/sharedStrings.xml", "si")
    ]


def _cells(archive: zipfile.ZipFile, part: str, strings: list[str]) -> dict[str, str]:
    """address -> text of each cell with a value (the vetting checked the shared-string
    indexes; a cell that still names none is left out)."""
    cells = {}
    for cell in _stream(archive, part, "c"):
        kind, value = cell.get("t"), cell.find(f"{_MAIN}v")
        if kind == "inlineStr":
            text = "".join(t.text or "" for t in cell.iter(f"{_MAIN}t"))
        elif value is None or value.text is None:
            continue
        elif kind == "s":
            index = int(value.text) if value.text.strip().isdigit() else -1
            if not 0 <= index < len(strings):
                continue
            text = strings[index]
        else:
            text = value.text
        cells[cell.get("r", "")] = text
    return cells


def _formulas(archive: zipfile.ZipFile, parts: Sequence[str]) -> list[str]:
    return [
        formula.text for part in parts for formula in _stream(archive, part, "f") if formula.text
    ]


def _spellings(formulas: Sequence[str]) -> tuple[Counter[str], int, set[str]]:
    """(the count of each prefix written before NJ_ names, the count of lower-case names,
    the NJ_ names not in this version's catalog)."""
    from nj_incentives.functions import CATALOG

    prefixes: Counter[str] = Counter()
    lower, unknown = 0, set()
    for text in formulas:
        for written, base in tokens(text):
            if base not in CATALOG:
                unknown.add(base)
            prefixes[written[: len(written) - len(base)]] += 1
            lower += written[len(written) - len(base) :] != base
    return prefixes, lower, unknown


def _colliding_names(archive: zipfile.ZipFile) -> list[str]:
    """The workbook's defined names (a LAMBDA among them) spelled like an NJ_* function:
    in Excel with an Office.js add-in such a name stops every Python function of the
    workbook until Excel restarts (xlwings-lite#33; docs/install.md, "Names")."""
    from nj_incentives.functions import CATALOG

    if "xl/workbook.xml" not in archive.namelist():
        return []
    found = []
    for element in _stream(archive, "xl/workbook.xml", "definedName"):
        name = str(element.get("name") or "")
        bare = name.split(".")[-1].upper()  # _xlfn. / _xlpm. / a namespace
        if bare in CATALOG:
            found.append(name)
    return sorted(set(found))


def _accepted(runtime: str, namespace: str) -> set[str]:
    """The prefixes a workbook for ``runtime`` may carry (upper-cased)."""
    if runtime == "classic":
        return {""}
    namespace = (namespace or ("XLWINGS" if runtime == "server" else "")).upper().rstrip(".")
    if not namespace:
        # as typed (and written by the templates); as Excel saves an unknown function;
        # as a workbook saved by Excel with xlwings Lite stores it (``_xldudf_XLW_NAME(``,
        # a public user report: docs/install.md, "Formula text in each runtime")
        return {"", "_XLDUDF_", "_XLDUDF_XLW_"}
    return {f"{namespace}.", f"_XLDUDF_{namespace.replace('.', '_')}_"}  # typed, saved by Excel


def check_workbook(path: Path, runtime: str = "classic", namespace: str = "") -> list[Check]:
    """The checks of one workbook for ``runtime`` ("classic", "lite" or "server")."""
    checks = []
    if runtime == "classic":
        if path.suffix.lower() in (".xlsm", ".xlsb"):
            checks.append(Check(_OK, "macro-enabled", path.name))
        else:
            checks.append(Check(_FAIL, "macro-enabled", f"{path.name} is {path.suffix}", "xlsm"))
    from nj_incentives.workpapers.recalc.safety import (
        DEFAULT_LIMITS,
        UnsafeWorkbookError,
        budgets,
        sheet_parts,
        vet_workbook,
    )

    try:  # the vetting of `calc`, with its limits, then its time and memory budgets
        vetted = vet_workbook(path, DEFAULT_LIMITS)
        with (
            budgets(DEFAULT_LIMITS, f"checking {path.name}"),
            zipfile.ZipFile(io.BytesIO(vetted.data)) as archive,
        ):
            names = set(archive.namelist())
            sheets = sheet_parts(archive)
            strings = _shared_strings(archive)
            conf = (
                _cells(archive, sheets["xlwings.conf"], strings)
                if sheets.get("xlwings.conf") in names
                else None
            )
            formulas = _formulas(archive, [p for p in sheets.values() if p in names])
            colliding = _colliding_names(archive)
            vba = "xl/vbaProject.bin" in names and b"xlwings_udfs" in archive.read(
                "xl/vbaProject.bin"
            )
    except UnsafeWorkbookError as error:
        raise WorkbookError(f"refused: {error}") from error
    except (OSError, KeyError, zipfile.BadZipFile, ElementTree.ParseError) as error:
        raise WorkbookError(f"{path}: not a readable .xlsx/.xlsm workbook ({error})") from error

    if runtime == "classic":
        checks.append(_conf_check(conf))
    prefixes, lower, unknown = _spellings(formulas)
    accepted = _accepted(runtime, namespace)
    shown = sorted(accepted, key=len)[0]
    label = f"={shown}NJ_..." if shown else "=NJ_... (no namespace)"
    if not prefixes:
        checks.append(Check(_FAIL, "NJ_* formulas", "none found", "", "is this a template?"))
    elif {p.upper() for p in prefixes} <= accepted and not lower:
        checks.append(Check(_OK, "formula spelling", f"{sum(prefixes.values())} calls, {label}"))
    else:
        seen = ", ".join(f"{p or '(none)'} x{n}" for p, n in sorted(prefixes.items()))
        if lower:
            seen += f"; {lower} lower-case (a LibreOffice save)"
        if runtime == "lite":
            fix = "run nj_reenter_formulas from xlwings Lite's Run button"
        else:
            option = f" --namespace {shown[:-1]}" if shown else ""
            fix = f"use a fresh copy: nj-incentives templates DIR{option}"
        checks.append(
            Check(_FAIL, "formula spelling", f"{seen}; {runtime} expects {label}", "", fix)
        )
    if unknown:
        checks.append(
            Check(
                _FAIL,
                "NJ_* functions",
                f"not in nj-incentives {__version__}: {', '.join(sorted(unknown))}",
                "",
                "the workbook needs another version of the package",
            )
        )
    if colliding:
        checks.append(
            Check(
                _FAIL,
                "defined names",
                f"{', '.join(colliding)} spelled like an NJ_* function: in Excel with xlwings "
                "Lite or Server such a name (a LAMBDA) stops every Python function of the "
                "workbook until Excel restarts (xlwings-lite#33)",
                "",
                "rename it (Formulas > Name Manager)",
            )
        )
    checks += _spill_checks(path)
    if runtime == "classic" and path.suffix.lower() in (".xlsm", ".xlsb"):
        checks.append(
            Check(_OK, "imported functions", "VBA module xlwings_udfs present")
            if vba
            else Check(_FAIL, "imported functions", "no xlwings_udfs VBA module", "import")
        )
    return checks


def _spill_checks(path: Path) -> list[Check]:
    """Which shipped template the workbook is, and whether its NJ_* tables are still
    dynamic arrays (a save by openpyxl, pandas or LibreOffice drops the marking:
    :mod:`nj_incentives.workpapers.recalc.templates`)."""
    from nj_incentives.workpapers.recalc.safety import UnsafeWorkbookError, vet_workbook
    from nj_incentives.workpapers.recalc.templates import recognise_template, spill_report

    try:
        vetted = vet_workbook(path)
    except UnsafeWorkbookError as error:
        raise WorkbookError(f"{path}: refused: {error}") from error
    report = spill_report(vetted)
    match = report.match or recognise_template(vetted)
    checks = [
        Check(_OK, "template", f"{match.template} (recognised by its {match.how})")
        if match
        else Check(_INFO, "template", "not one of the shipped templates")
    ]
    fix = (
        "nj-incentives calc restores them from the template's layout; in Excel 365 re-enter "
        "them (xlwings Lite: nj_reenter_formulas) or fill the template again: "
        "nj-incentives fill TEMPLATE DATA -o OUT.xlsx"
    )
    if report.restored:
        checks.append(
            Check(
                _FAIL,
                "dynamic arrays",
                f"{len(report.restored)} spilled range(s) saved as legacy array formulas "
                f"({_saver(report.application)}): {report.ranges(report.restored)}; Excel "
                "shows #N/A below a shorter result",
                "",
                fix,
            )
        )
    if report.unrestored:
        checks.append(
            Check(
                _FAIL,
                "dynamic arrays",
                f"{report.ranges(report.unrestored)}: NJ_* legacy array formulas "
                f"({_saver(report.application)}), not in any shipped template's layout: "
                "#N/A below a shorter result",
                "",
                "re-enter them in Excel 365 as dynamic arrays, or fill the template again",
            )
        )
    if match and not report.restored and not report.unrestored:
        checks.append(Check(_OK, "dynamic arrays", "every spilled range marked as Excel writes it"))
    return checks


def _saver(application: str) -> str:
    return f"last saved by {application}" if application else "saver not named in the file"


def _conf_check(conf: dict[str, str] | None) -> Check:
    if conf is None:
        return Check(_FAIL, "xlwings.conf sheet", "missing", "", _CONF_FIX)
    keys: dict[str, str] = {}
    for row in range(1, 1000):  # the add-in reads A1 down to the first empty cell
        key = conf.get(f"A{row}", "").strip()
        if not key:
            break
        keys[key.upper()] = conf.get(f"B{row}", "").strip()
    modules = [m.strip() for m in keys.get("UDF MODULES", "").split(";")]
    if setup_steps.UDF_MODULE not in modules:
        return Check(
            _FAIL,
            "xlwings.conf sheet",
            f"UDF Modules = {keys.get('UDF MODULES', '(missing)')}",
            "",
            _CONF_FIX,
        )
    extra = ", ".join(k for k in keys if k != "UDF MODULES")
    return Check(
        _OK,
        "xlwings.conf sheet",
        f"UDF Modules = {setup_steps.UDF_MODULE}" + (f"; also {extra}" if extra else ""),
    )


_CONF_FIX = (
    f"a sheet named xlwings.conf with UDF Modules in A1 and {setup_steps.UDF_MODULE} in B1 "
    "(every template has one: nj-incentives templates DIR)"
)


# --------------------------------------------------------------------------- the command


@click.command(
    "doctor",
    help="Check this machine's setup of the Excel functions, and WORKBOOK's if given; "
    "print the next step.",
)
@click.argument("workbook", required=False, type=click.Path(path_type=Path))
@click.option(
    "--runtime",
    type=click.Choice(["classic", "lite", "server"]),
    default="classic",
    show_default=True,
    help="the runtime the workbook is for",
)
@click.option("--namespace", default="", metavar="NS", help="the namespace its formulas use")
@json_option
def command(workbook: Path | None, runtime: str, namespace: str, as_json: bool) -> int:
    """``nj-incentives doctor [WORKBOOK]``."""
    return run(workbook, runtime=runtime, namespace=namespace, as_json=as_json)


def run(
    workbook: Path | None = None,
    *,
    runtime: str = "classic",
    namespace: str = "",
    as_json: bool = False,
    out: Callable[[str], None] = print,
) -> int:
    """Run the checks and print them with the next step; the exit status."""
    checks = check_machine(classic=runtime == "classic")
    if workbook is not None:
        try:
            checks += check_workbook(workbook, runtime, namespace)
        except WorkbookError as error:
            print(f"nj-incentives doctor: {error}", file=sys.stderr)
            if as_json:
                out(json.dumps({"status": EXIT_USAGE, "error": str(error)}))
            return EXIT_USAGE
    failed = [check for check in checks if check.status == _FAIL]
    if failed:
        next_step = failed[0].next_step()
    elif runtime == "classic":
        next_step = (
            "nothing to fix here. Checks that need Excel: Trust access to the VBA project "
            "object model, the VBA reference to xlwings, Import Functions (see the About sheet)."
        )
    else:
        next_step = "open the workbook in Excel with the add-in (see its About sheet)."
    status = EXIT_FAILED if failed else EXIT_OK
    if as_json:
        out(
            json.dumps(
                {
                    "status": status,
                    "checks": [
                        {"status": c.status, "check": c.what, "found": c.found} for c in checks
                    ],
                    "next_step": next_step,
                }
            )
        )
        return status
    width = max(len(check.what) for check in checks)
    for check in checks:
        out(f"[{check.status:>4}] {check.what:<{width}}  {check.found}")
    out("")
    out(f"Next step: {next_step}")
    return status
