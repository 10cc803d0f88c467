"""Real Pyodide under Node: the project's wheel installed with micropip, called as Lite does.

xlwings Lite runs the workbook's Python in Pyodide in the browser. Here the same
interpreter (npm ``pyodide`` 314.0.7, installed into .ci/cache by .ci/install-system)
runs under Node, with no CDN: micropip and PyPI's pyemscripten wheels (pydantic-core
and xlwings compiled for Pyodide; pure pydantic, typing_extensions, typing_inspection,
annotated_types; .ci/pyodide-wheels.txt) come from a local folder, and the project's
own wheel is built by this test with ``pip wheel``. tests/js/pyodide_run.mjs boots
Pyodide ONCE per test run (tooling.once_per_run: the xdist workers share it), installs
everything with micropip and sends every call through ``xlwings.server.custom_functions_call``
(tests/js/pyodide_calls.py); the same code runs the same calls in CPython here, and each
outcome (the cells, or the error's type and message) must be the same JSON.

The calls: every worked case of tests/runtimes/test_excel_dispatch.py (every catalog function)
and the bad inputs of tests/officejs.py. NJ_SCENARIOS needs numpy and pandas, which have
no wheel for Pyodide on PyPI: there it must give its clear message, not a traceback
(docs/install.md says so).

The fuzz suite in this runtime too (issue 11: "both runtimes, at least 10,000 calls
each"): the same process then replays tests/runtimes/test_fuzz.py's calls (the corpus of
tests/fuzzcorpus.py, its seeded random mutations and the calls hypothesis draws there,
about 12,000) and times each one; the tests below apply fuzzcorpus.check_outcome, the
CPython suite's own assertions, to every outcome, and compare each with CPython's by its
class (:func:`outcome_class`): the result's values, or the error's type, the argument it
names and its citation.

Why classes and not the text: an input error quotes the value with ``repr``, which
escapes the characters the interpreter's Unicode database does not call printable. That
database is the Python version's (CPython 3.11: Unicode 14; Pyodide's 3.14: Unicode 16),
so a character assigned in between (U+31ADF, drawn by hypothesis) is ``\\U00031adf`` in
one message and itself in the other. Where text is compared (the worked cases, the bad
inputs, the messages once normalised by :func:`unescaped`), both sides are read back to
the characters the escapes stand for, so no comparison depends on the Unicode version.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import xlwings as xw

import fuzzcorpus
from nj_incentives import __version__
from nj_incentives.runtimes import xlwings_classic as excel
from officejs import BAD_CALLS, call, office_args, payload
from test_excel_dispatch import CASES
from test_fuzz import CORPUS, RANDOM, hypothesis_calls
from tooling import missing, need, once_per_run

pytestmark = [
    pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js path"),
    pytest.mark.pyodide,
    pytest.mark.wheel,
]

HERE = Path(__file__).resolve().parents[1]  # tests/
ROOT = HERE.parent
PYODIDE_VERSION = "314.0.7"
CACHE = Path(os.environ.get("NJ_INCENTIVES_CI_CACHE", ROOT / ".ci" / "cache"))
PYODIDE = CACHE / "node_modules" / "pyodide"
WHEELS = CACHE / "pyodide-wheels"
WHEEL_LIST = ROOT / ".ci" / "pyodide-wheels.txt"


def calls_module() -> ModuleType:
    """tests/js/pyodide_calls.py, for running the very same calls in CPython."""
    spec = importlib.util.spec_from_file_location("pyodide_calls", HERE / "js" / "pyodide_calls.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def all_calls() -> list[dict[str, Any]]:
    calls = [payload(case.name, office_args(case.name, case.args, case.column)) for case in CASES]
    calls += [payload(name, args) for name, args, _ in BAD_CALLS]
    return calls


def fuzz_calls() -> list[dict[str, Any]]:
    """tests/runtimes/test_fuzz.py's calls, with their expectations ("invalid" ...)."""
    return [*CORPUS, *RANDOM, *hypothesis_calls()]


def pyodide_wheels(root: Path) -> Path:
    """The folder micropip installs from: the PyPI wheels and the project's, built now."""
    if not (WHEELS / ".complete").exists():
        command = [sys.executable, "-m", "pip", "download", "-q", "--no-deps"]
        command += ["--only-binary=:all:", "--platform", "pyemscripten_2026_0_wasm32"]
        command += ["--python-version", "3.14", "--abi", "cp314", "--implementation", "cp"]
        command += ["-d", str(WHEELS), "-r", str(WHEEL_LIST)]
        download = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if download.returncode != 0:
            missing(
                "the pyemscripten wheels could not be downloaded",
                f"pip download -r .ci/pyodide-wheels.txt: {download.stderr.strip()[-500:]}",
            )
        shutil.copy(WHEEL_LIST, WHEELS / ".complete")
    folder = root / "wheels"
    folder.mkdir()
    for wheel in WHEELS.glob("*.whl"):
        shutil.copy(wheel, folder)
    # the project's wheel, from a copy of the sources (an in-tree build leaves build/)
    source = root / "source"
    shutil.copytree(ROOT / "addin", source / "addin", ignore=shutil.ignore_patterns("*.egg-info"))
    (source / "docs").mkdir()
    # the workbooks, interpretations and function reference the wheel ships (copied in by
    # nj_incentives.support.wheel_data)
    shutil.copytree(ROOT / "workbooks", source / "workbooks")
    for name in (
        "pyproject.toml",
        "README.md",
        "docs/LICENSE",
        "docs/interpretations.md",
        "docs/functions.md",
    ):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, source / name)
    # the test extra's setuptools builds it (an isolated build would fetch setuptools again)
    command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    build = subprocess.run(
        [*command, "-w", str(folder), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    assert list(folder.glob("nj_incentives-*.whl")), "pip wheel built no nj_incentives wheel"
    return folder


def run_in_pyodide(node: str, root: Path) -> dict[str, Any]:
    """Boot Pyodide once and run every call there and in CPython."""
    wheels = pyodide_wheels(root)
    calls = all_calls()
    fuzz = fuzz_calls()
    fuzz_payloads = [payload(item["func_name"], item["args"]) for item in fuzz]
    (root / "calls.json").write_text(json.dumps({"cases": calls, "fuzz": fuzz_payloads}))
    driver = [node, HERE / "js" / "pyodide_run.mjs", PYODIDE, wheels]
    run = subprocess.run(
        [*driver, HERE / "js" / "pyodide_calls.py", root / "calls.json", root / "out.json"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if run.returncode != 0:
        pytest.fail(f"Pyodide under Node failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    there = json.loads((root / "out.json").read_text())
    here = asyncio.run(calls_module().run_calls(calls))
    # as in tests/runtimes/test_fuzz.py: no failed ``pyodide.ffi`` import scan on every argument
    saved = sys.modules.get("pyodide")
    sys.modules["pyodide"] = None  # type: ignore[assignment]
    try:
        fuzz_here = asyncio.run(calls_module().run_calls(fuzz_payloads))
    finally:
        if saved is None:
            del sys.modules["pyodide"]
        else:
            sys.modules["pyodide"] = saved
    return {
        "calls": calls,
        "pyodide": there,
        "cpython": here,
        "fuzz": {"calls": fuzz, "cpython": fuzz_here},
    }


@pytest.fixture(scope="session")
def pyodide_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One Pyodide boot per test run (the xdist workers share it)."""
    node = need("node", "runs Pyodide")
    if not (PYODIDE / "pyodide.mjs").exists():
        missing(
            f"npm pyodide@{PYODIDE_VERSION} is not in {PYODIDE}",
            "bash .ci/install-system installs it",
        )
    installed = json.loads((PYODIDE / "package.json").read_text())["version"]
    assert installed == PYODIDE_VERSION, f"{PYODIDE} holds pyodide {installed}"
    result: dict[str, Any] = once_per_run(
        tmp_path_factory, "pyodide", lambda root: run_in_pyodide(node, root)
    )
    return result


def test_it_is_really_pyodide(pyodide_run: dict[str, Any]) -> None:
    there = pyodide_run["pyodide"]
    assert there["platform"] == "emscripten"
    assert there["python"].startswith("3.14")
    assert there["versions"]["nj_incentives"] == __version__
    assert there["versions"]["xlwings"] == xw.__version__
    assert there["modules"] == []  # no numpy, no pandas: NJ_SCENARIOS below
    assert len(there["outcomes"]) == len(pyodide_run["calls"])


def outcomes(pyodide_run: dict[str, Any], name: str) -> list[tuple[Any, Any, Any]]:
    return [
        (call_, there, here)
        for call_, there, here in zip(
            pyodide_run["calls"],
            pyodide_run["pyodide"]["outcomes"],
            pyodide_run["cpython"],
            strict=True,
        )
        if call_["func_name"] == name
    ]


@pytest.mark.parametrize("name", [n for n in excel.CATALOG if n != "NJ_SCENARIOS"])
def test_every_call_gives_the_same_json_as_cpython(pyodide_run: dict[str, Any], name: str) -> None:
    compared = outcomes(pyodide_run, name)
    assert compared, f"no call of {name}"
    for call_, there, here in compared:
        assert unescaped(there) == unescaped(here), call_["args"]
    # at least one result, not only errors: a case of test_excel_dispatch
    assert any("result" in there for _, there, _ in compared)


def test_bad_inputs_give_the_same_message(pyodide_run: dict[str, Any]) -> None:
    messages = [
        there
        for _, there, _ in (o for n in excel.CATALOG for o in outcomes(pyodide_run, n))
        if "error" in there
    ]
    for _name, _args, expected in BAD_CALLS:
        if _name == "NJ_SCENARIOS":
            continue
        assert any(m["error"] == "XlwingsError" and expected in m["message"] for m in messages), (
            expected
        )


def test_scenarios_say_pandas_is_missing_there(pyodide_run: dict[str, Any]) -> None:
    compared = outcomes(pyodide_run, "NJ_SCENARIOS")
    assert compared
    for _, there, _ in compared:
        assert there["error"] == "XlwingsError"
        assert there["message"].startswith(
            "NJ_SCENARIOS needs numpy and pandas, which this Python does not have"
        )
        assert "Traceback" not in there["message"]
    # in CPython the same calls compute (or refuse a bad table with its own message)
    assert any("result" in here for _, _, here in compared)


def test_scenarios_message_without_pandas_in_cpython(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same message wherever numpy or pandas cannot be imported."""
    monkeypatch.setitem(sys.modules, "nj_incentives.scenarios.table", None)
    with pytest.raises(xw.XlwingsError) as raised:
        call("NJ_SCENARIOS", [["id", "accrual_year", "conversion_amount"], ["A", 2012, 100]])
    message = str(raised.value)
    assert message.startswith("NJ_SCENARIOS needs numpy and pandas")
    assert "nj-incentives scenarios" in message


#: A backslash escape ``repr`` writes for a character it does not print (or a doubled
#: backslash, kept as it is so that ``\\x41`` is not read as an escape).
_ESCAPE = re.compile(r"\\\\|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|\\U[0-9a-f]{8}")


def unescaped(value: Any) -> Any:
    """``value`` (JSON) with every text's ``repr`` escapes read back to their characters:
    the same on both sides whichever Unicode database escaped them."""
    if isinstance(value, str):
        return _ESCAPE.sub(lambda m: m[0] if m[0] == "\\\\" else chr(int(m[0][2:], 16)), value)
    if isinstance(value, list):
        return [unescaped(item) for item in value]
    if isinstance(value, dict):
        return {key: unescaped(item) for key, item in value.items()}
    return value


def test_unescaped_reads_both_spellings_of_a_character_the_same() -> None:
    # CPython 3.11 (Unicode 14) and Pyodide's 3.14 (Unicode 16) on U+31ADF, as repr quotes it
    assert unescaped("x = '\\U00031adf': not a number") == "x = '\U00031adf': not a number"
    assert unescaped(["\\x07", {"k": "a\\\\x41"}]) == ["\x07", {"k": "a\\\\x41"}]
    assert unescaped(3.5) == 3.5


def outcome_class(outcome: dict[str, Any]) -> tuple[Any, ...]:
    """What must agree between runtimes: a result's values (exactly: they are numbers,
    dates and fixed text), or an error's type, the argument it names and its citation
    (fuzzcorpus.MESSAGE), not the way the message quotes the value."""
    if "result" in outcome:
        return ("result", unescaped(outcome["result"]))
    match = fuzzcorpus.MESSAGE.match(outcome["message"])
    if match is None:
        return ("error", outcome["error"], outcome["message"])
    return ("error", outcome["error"], match["argument"].strip(), match["citation"].strip())


def fuzz_outcomes(pyodide_run: dict[str, Any]) -> list[tuple[Any, Any, float, Any]]:
    """(call, Pyodide's outcome, its seconds, CPython's outcome) for every fuzz call."""
    there = pyodide_run["pyodide"]["fuzz"]
    return list(
        zip(
            pyodide_run["fuzz"]["calls"],
            there["outcomes"],
            there["seconds"],
            pyodide_run["fuzz"]["cpython"],
            strict=True,
        )
    )


def test_the_fuzz_suite_ran_at_least_10000_calls_in_pyodide(pyodide_run: dict[str, Any]) -> None:
    compared = fuzz_outcomes(pyodide_run)
    computed = [fuzz for fuzz, *_ in compared if fuzz["func_name"] != "NJ_SCENARIOS"]
    assert len(computed) >= 10_000  # NJ_SCENARIOS left out: it needs pandas (below)
    assert {fuzz["func_name"] for fuzz in computed} == set(excel.CATALOG) - {"NJ_SCENARIOS"}
    assert sum(1 for fuzz in computed if fuzz.get("invalid")) >= 3_000


def test_fuzz_in_pyodide_only_input_errors_no_number_for_invalid_input_bounded_time(
    pyodide_run: dict[str, Any],
) -> None:
    results = errors = 0
    for fuzz, there, seconds, _ in fuzz_outcomes(pyodide_run):
        if fuzz["func_name"] == "NJ_SCENARIOS":
            assert there["error"] == "XlwingsError", fuzz
            assert there["message"].startswith("NJ_SCENARIOS needs numpy and pandas"), there
            assert seconds < fuzzcorpus.CALL_BUDGET_S, (fuzz, seconds)
            continue
        fuzzcorpus.check_outcome(fuzz, there, seconds)
        results += "result" in there
        errors += "error" in there
    assert results > 1_000  # both kinds of outcome were checked
    assert errors > 5_000


def test_fuzz_gives_the_same_class_of_outcome_in_pyodide_as_in_cpython(
    pyodide_run: dict[str, Any],
) -> None:
    kinds: dict[str, int] = {}
    for fuzz, there, _, here in fuzz_outcomes(pyodide_run):
        if fuzz["func_name"] == "NJ_SCENARIOS":
            continue  # no pandas there: its own test above
        assert outcome_class(there) == outcome_class(here), (fuzz["func_name"], fuzz["args"])
        kinds[outcome_class(here)[0]] = kinds.get(outcome_class(here)[0], 0) + 1
    assert kinds["result"] > 1_000  # both classes were compared, many times
    assert kinds["error"] > 5_000


def test_fuzz_messages_agree_once_escaped_the_same_way(pyodide_run: dict[str, Any]) -> None:
    """The whole message too, with repr's escapes read back on both sides (above)."""
    for fuzz, there, _, here in fuzz_outcomes(pyodide_run):
        if fuzz["func_name"] != "NJ_SCENARIOS":
            assert unescaped(there) == unescaped(here), (fuzz["func_name"], fuzz["args"])
