"""The setup steps of each runtime and the licences, written once.

The About sheet of every template (:mod:`nj_incentives.workpapers.templates.builder`), the generated
block of docs/install.md and ``nj-incentives doctor``'s "next step" all come from here.

The classic add-in's steps are in the order xlwings enforces: its ribbon's *Import
Functions* refuses a workbook that is not macro-enabled ("Please save this workbook ...
as a macro-enabled workbook first", xlwings' ``RibbonXlwings.bas``), importing writes a
VBA module and so needs *Trust access to the VBA project object model*, the wrappers call
the add-in (``xlwings addin install``, then a VBA reference to it), and Python starts with
the interpreter of the ribbon's *Interpreter* setting or the ``Interpreter_Win`` key.

``python -m nj_incentives.runtimes.setup_steps docs/install.md`` rewrites the generated block of
that file; a test fails when it is stale.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nj_incentives.version import __version__

#: The xlwings a Lite workbook lists in requirements.txt: from the version the re-enter
#: script needs (``Sheet.get_used_range``, 0.37.5) up to the next minor version, both ends
#: tested (docs/install.md, "Which xlwings"); Lite pins the exact version it installs in
#: requirements-pinned.txt.
LITE_XLWINGS = "xlwings>=0.37.5,<0.38"

__all__ = [
    "CLASSIC",
    "CONF_KEYS",
    "LICENCES",
    "LINE",
    "LITE",
    "LITE_XLWINGS",
    "SERVER",
    "SERVER_BUTTON",
    "SERVER_DOTENV",
    "SERVER_FILES",
    "SERVER_INIT",
    "SERVER_START",
    "UDF_MODULE",
    "WHEEL",
    "ConfKey",
    "Step",
    "markdown",
    "rewrite",
]

#: The module the classic add-in imports (the ``UDF Modules`` setting).
UDF_MODULE = "nj_incentives.excel"
#: The wheel ``python -m build`` makes from this version.
WHEEL = f"nj_incentives-{__version__}-py3-none-any.whl"


#: The widest line the About sheet's text column shows without wrapping (characters).
LINE = 105


@dataclass(frozen=True)
class Step:
    """One setup step: a short title and what to do, in lines of at most :data:`LINE`
    characters (one About-sheet row each; docs/install.md joins them)."""

    key: str
    title: str
    lines: tuple[str, ...]

    @property
    def detail(self) -> str:
        return " ".join(self.lines)


@dataclass(frozen=True)
class ConfKey:
    """A key of the workbook's ``xlwings.conf`` sheet (column A) and its value (B)."""

    key: str
    value: str
    why: str
    #: written in A:B of every template (True), or listed as optional (False)
    written: bool


CLASSIC: tuple[Step, ...] = (
    Step(
        "package",
        "Install Python and the package",
        (
            f"Python 3.11+. Today: pip install path\\to\\{WHEEL}",
            "(the wheel built from the repository with python -m build).",
            "Once published: pip install nj-incentives. This installs xlwings and pywin32",
            "(the classic add-in is tested with xlwings 0.37.x; nj-incentives doctor checks).",
        ),
    ),
    Step(
        "xlsm",
        "Save the workbook as .xlsm",
        (
            "File > Save As > Excel Macro-Enabled Workbook (*.xlsm).",
            "Import Functions refuses any other file type (it writes a VBA module into it).",
        ),
    ),
    Step(
        "trust",
        "Trust access to the VBA project",
        (
            "File > Options > Trust Center > Trust Center Settings > Macro Settings: tick",
            "'Trust access to the VBA project object model' (once per machine; only to import).",
        ),
    ),
    Step(
        "addin",
        "Install the xlwings add-in",
        (
            "In a command prompt of that Python environment: xlwings addin install",
            "Then restart Excel: the xlwings tab appears on the ribbon.",
        ),
    ),
    Step(
        "reference",
        "Reference xlwings in the workbook",
        (
            "Alt+F11 (VBA editor) > Tools > References... > tick xlwings.",
            "The imported functions call the add-in through this reference.",
        ),
    ),
    Step(
        "interpreter",
        "Point xlwings at that Python",
        (
            "xlwings tab > Interpreter: that environment's pythonw.exe (nj-incentives doctor",
            "prints it), or Interpreter_Win and the path in A2:B2 of the xlwings.conf sheet:",
            "it is hidden (never printed) and protected, so right-click a sheet tab > Unhide",
            "first, then Review > Unprotect Sheet (no password); protect and hide it again.",
            f"The xlwings.conf sheet already sets UDF Modules = {UDF_MODULE}.",
        ),
    ),
    Step(
        "import",
        "Import Functions",
        (
            "xlwings tab > Import Functions. The NJ_* functions appear in Insert Function under",
            "'NJ Incentives'. Import again after upgrading the package. Cells that showed #NAME?",
            "before the import: press Ctrl+Alt+F9 (recalculate all); any still #NAME?: Review >",
            "Unprotect Sheet, then Home > Find & Select > Replace, = with =, Replace All.",
        ),
    ),
)

LITE: tuple[Step, ...] = (
    Step(
        "lite-addin",
        "Add xlwings Lite",
        (
            "Home > Add-ins > search 'xlwings' > Add (free; Microsoft 365 or Office 2021+",
            "on Windows and Mac, or Excel on the web).",
        ),
    ),
    Step(
        "lite-requirements",
        "requirements.txt",
        (
            "In Lite's requirements.txt tab: nj-incentives (once published; today the HTTPS URL",
            f"of the wheel) and {LITE_XLWINGS} (the re-enter script needs 0.37.5; Lite",
            "records the exact version it installs); then Menu > Restart.",
        ),
    ),
    Step(
        "lite-main",
        "main.py",
        (
            "If the NJ_* functions do not appear after the restart, add this line to main.py:",
            "from nj_incentives.lite import *",
        ),
    ),
    Step(
        "lite-reenter",
        "Bind the formulas",
        (
            "Review > Unprotect Sheet on each sheet (no password), run nj_reenter_formulas",
            "once from Lite's Run button, then protect the sheets again. By hand instead:",
            "Home > Find & Select > Replace, = with =, Replace All.",
        ),
    ),
)

#: xlwings Server's project as its steps set it up, each piece written once: the steps
#: below show them, and tests/runtimes/test_runtime_xlwings_server.py does exactly what they say.
SERVER_INIT = ("xlwings-server", "init", "DIR")
#: DIR/.env after ``init``: the environment (``init`` writes "dev", whose manifest gives
#: the functions the namespace XLWINGS_DEV; "prod" gives XLWINGS, which ``nj-incentives
#: templates --runtime server`` spells) and the key (a placeholder after ``init``).
SERVER_DOTENV = {"XLWINGS_ENVIRONMENT": "prod", "XLWINGS_LICENSE_KEY": "your_license_key"}
#: Each file of DIR and what it holds after the step (the whole content).
SERVER_FILES = {
    "custom_functions/__init__.py": "from nj_incentives.excel import *\n",
    "custom_scripts/__init__.py": "from nj_incentives.server import *\n",
}
#: The task pane's button (DIR/templates/taskpane.html): init's example, and ours.
SERVER_BUTTON = ('xw-click="hello_world"', 'xw-click="nj_reenter_formulas"')
#: Start it (from any folder; XLWINGS_PROJECT_DIR names the project).
SERVER_START = (
    "uvicorn",
    "nj_incentives.serving:app",
    # uvicorn's HTTP/1.1 protocol with a deadline for a request's headers (a slow client
    # holds no connection): nj_incentives.serving.H11; uvicorn's host is 127.0.0.1
    "--http",
    "nj_incentives.serving:H11",
    "--port",
    "8000",
)

SERVER: tuple[Step, ...] = (
    Step(
        "server-install",
        "Install on the server",
        (
            "pip install xlwings-server and the wheel (today) or nj-incentives (once published);",
            f"then make the project: {' '.join(SERVER_INIT)} (DIR: a new folder).",
        ),
    ),
    Step(
        "server-env",
        "Environment and licence key",
        (
            f'In DIR/.env set XLWINGS_ENVIRONMENT="{SERVER_DOTENV["XLWINGS_ENVIRONMENT"]}" '
            '(init writes "dev", whose functions are',
            "=XLWINGS_DEV.NJ_..., not what the templates spell) and XLWINGS_LICENSE_KEY to your",
            "key: the server does not start without one, and the free noncommercial key does not",
            "cover a business's internal use.",
        ),
    ),
    Step(
        "server-modules",
        "Point it at the package",
        (
            *(
                f'Replace all of DIR/{name} with "{text.strip()}".'
                for name, text in SERVER_FILES.items()
            ),
            f"In DIR/templates/taskpane.html change {SERVER_BUTTON[0]} to {SERVER_BUTTON[1]}.",
        ),
    ),
    Step(
        "server-start",
        "Start the server",
        (
            f"XLWINGS_PROJECT_DIR=DIR {' '.join(SERVER_START)}",
            "(Excel needs HTTPS: add --ssl-keyfile and --ssl-certfile, e.g. init's certs folder);",
            "Excel loads the add-in from the manifest it serves: https://HOST:PORT/manifest.xml.",
        ),
    ),
    Step(
        "server-templates",
        "Templates spelled for it",
        (
            "nj-incentives templates OUT --runtime server: the formulas read =XLWINGS.NJ_...",
            "(a server in another environment: --namespace XLWINGS_DEV and so on).",
        ),
    ),
    Step(
        "server-reenter",
        "Bind the formulas",
        (
            "Review > Unprotect Sheet on each sheet (no password), click the task pane's button",
            "(it runs nj_reenter_formulas on the server), then protect the sheets again.",
            "By hand instead: Home > Find & Select > Replace, = with =, Replace All.",
        ),
    ),
)

#: The xlwings.conf sheet: keys the classic add-in reads from A1 down (an empty A2 ends
#: the list), each overriding the ribbon's setting for this workbook.
CONF_KEYS: tuple[ConfKey, ...] = (
    ConfKey("UDF Modules", UDF_MODULE, "the module Import Functions imports", True),
    ConfKey(
        "Interpreter_Win",
        "C:\\path\\to\\env\\Scripts\\pythonw.exe",
        "optional: the Python to use, if not the ribbon's Interpreter (nj-incentives "
        "doctor prints this machine's)",
        False,
    ),
    ConfKey(
        "PYTHONPATH",
        "C:\\path\\to\\nj-incentives\\addin",
        "optional: only if the package is not installed (the repository's addin folder)",
        False,
    ),
)

#: (runtime, licence) for the About sheet and docs/install.md (one line each).
LICENCES: tuple[tuple[str, str], ...] = (
    (
        "Classic add-in (Windows)",
        "xlwings open source: BSD 3-Clause; free, including commercial use.",
    ),
    ("xlwings Lite", "Free for personal and commercial use (self-hosting it needs a paid plan)."),
    (
        "xlwings Server",
        "Needs a licence key; the free noncommercial key excludes business use: buy a licence.",
    ),
    ("nj-incentives calc", "No xlwings licence: it runs without Excel."),
)


def _steps_markdown(steps: Sequence[Step]) -> list[str]:
    return [f"{n}. **{step.title}.** {step.detail}" for n, step in enumerate(steps, 1)]


def markdown() -> str:
    """The generated block of docs/install.md (between the setup-steps markers)."""
    lines = [
        "<!-- setup-steps:start (generated by python -m nj_incentives.runtimes.setup_steps "
        "docs/install.md from nj_incentives/setup_steps.py; the About sheets show the "
        "same text) -->",
        "",
        "### Windows, classic xlwings add-in",
        "",
        *_steps_markdown(CLASSIC),
        "",
        "The workbook's `xlwings.conf` sheet (keys in column A from A1 down, values in "
        "column B; a key there overrides the ribbon for this workbook):",
        "",
        "| Key (A) | Value (B) | |",
        "|---|---|---|",
        *(
            f"| `{k.key}` | `{k.value}` | {'in every template' if k.written else k.why} |"
            for k in CONF_KEYS
        ),
        "",
        "### xlwings Lite (Windows, Mac, web)",
        "",
        *_steps_markdown(LITE),
        "",
        "### xlwings Server",
        "",
        *_steps_markdown(SERVER),
        "",
        "### Licences",
        "",
        "| Runtime | Licence |",
        "|---|---|",
        *(f"| {runtime} | {text} |" for runtime, text in LICENCES),
        "",
        "<!-- setup-steps:end -->",
    ]
    return "\n".join(lines)


_START, _END = "<!-- setup-steps:start", "<!-- setup-steps:end -->"


def rewrite(text: str) -> str:
    """``text`` (docs/install.md) with its generated block replaced by :func:`markdown`."""
    start, end = text.index(_START), text.index(_END) + len(_END)
    return text[:start] + markdown() + text[end:]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print(
            "usage: python -m nj_incentives.runtimes.setup_steps docs/install.md", file=sys.stderr
        )
        return 2
    path = Path(args[0])
    path.write_text(rewrite(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
