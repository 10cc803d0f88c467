"""The real xlwings Server (PyPI ``xlwings-server``) serving ``nj_incentives.excel``.

Not a stand-in, and set up by the documented steps, literally (docs/install.md and the
About sheets, "xlwings Server", generated from ``nj_incentives.runtimes.setup_steps``, whose
constants this test uses): ``xlwings-server init DIR``; in ``DIR/.env``
``XLWINGS_ENVIRONMENT="prod"`` and the licence key (the noncommercial one: tests only; the
server does not start without a key); ``custom_functions/__init__.py`` and
``custom_scripts/__init__.py`` replaced by the lines the steps give; the task pane's button
pointed at ``nj_reenter_formulas``; then the steps' ``uvicorn`` command, on 127.0.0.1 at
a free port, with ``XLWINGS_PROJECT_DIR`` and no other ``XLWINGS_*`` variable in its
environment (so the namespace comes from the project's ``.env``, as a user's would).
Then, as Excel does:

- fetch ``/manifest.xml``, ``/xlwings/custom-functions-meta.json`` and
  ``/xlwings/custom-functions-code.js``, and check they list every catalog function
  with its help (Excel's function list);
- POST the Office.js payload to ``/xlwings/custom-functions-call`` for every worked
  case of tests/runtimes/test_excel_dispatch.py (every catalog function): 200 and the cells the
  calculation core gives; bad inputs: 400 and the short message, which the client turns
  into ``#VALUE!`` with the message on hover;
- run the server's own JavaScript client (the custom-functions-code.js it serves) under
  Node (tests/js/xlwings_client.mjs) and call every function's example through it;
- check that the namespace it serves is the one ``nj-incentives templates --runtime
  server`` writes, and run the re-entry script (``nj_incentives.runtimes.server``) through
  ``/xlwings/custom-scripts-call/nj_reenter_formulas`` with the book its client sends.

One server per test session (per xdist worker: a few seconds each).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import xlwings as xw

from nj_incentives.runtimes import setup_steps
from nj_incentives.runtimes import xlwings_classic as excel
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from officejs import BAD_CALLS, call_raw, office_args, payload
from test_excel_dispatch import CASES, Case, assert_same_cells
from tooling import need, need_module

pytestmark = [
    pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js path"),
    pytest.mark.server,
]

HERE = Path(__file__).resolve().parents[1]  # tests/
TEMPLATE = DEFAULT_DIRECTORY / "beip-grant-schedule.xlsx"
#: how long to wait for the server to answer at all: a guard against a hang, generous for
#: a loaded machine (no test asserts wall time)
STARTUP_SECONDS = 300


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    url: str
    log: Path

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=120) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def post(self, path: str, body: object) -> tuple[int, Any]:
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            try:
                return error.code, json.loads(text)
            except json.JSONDecodeError:
                return error.code, text

    def call(self, name: str, args: list[object]) -> tuple[int, Any]:
        return self.post("/xlwings/custom-functions-call", payload(name, args))


def program(name: str) -> str:
    """A console script of this environment (``xlwings-server``, ``uvicorn``), as a user
    who installed the packages types it."""
    path = Path(sys.executable).parent / name
    assert path.exists(), f"{name} is not installed beside {sys.executable}"
    return str(path)


def server_environment(project: Path) -> dict[str, str]:
    """The start step's environment: the test's own, less every ``XLWINGS_*`` variable
    (the test process sets the Office.js decorators and the key for itself), plus
    ``XLWINGS_PROJECT_DIR`` as the step says."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("XLWINGS_")}
    environment.update(XLWINGS_PROJECT_DIR=str(project), PYTHONUNBUFFERED="1")
    return environment


def set_dotenv(path: Path, values: dict[str, str]) -> None:
    """Set each key of ``values`` in the ``.env`` that init wrote (each must be there)."""
    lines = path.read_text().splitlines()
    for key, value in values.items():
        found = [i for i, line in enumerate(lines) if line.startswith(f"{key}=")]
        assert found, f"{key} is not in the .env that xlwings-server init wrote"
        for i in found:
            lines[i] = f'{key}="{value}"'
    path.write_text("\n".join(lines) + "\n")


def follow_the_steps(project: Path) -> None:
    """docs/install.md's xlwings Server steps 1-3, literally
    (nj_incentives.runtimes.setup_steps)."""
    init = subprocess.run(
        [program(setup_steps.SERVER_INIT[0]), *setup_steps.SERVER_INIT[1:-1], str(project)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert init.returncode == 0, init.stderr
    dotenv = dict(setup_steps.SERVER_DOTENV)
    dotenv["XLWINGS_LICENSE_KEY"] = "noncommercial"  # "your key": the test's is this one
    set_dotenv(project / ".env", dotenv)
    for name, text in setup_steps.SERVER_FILES.items():
        assert (project / name).exists(), f"xlwings-server init wrote no {name}"
        (project / name).write_text(text)
    taskpane = project / "templates" / "taskpane.html"
    example, ours = setup_steps.SERVER_BUTTON
    assert example in taskpane.read_text()
    taskpane.write_text(taskpane.read_text().replace(example, ours))


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    need_module("xlwings_server", "the real xlwings Server app; in the test extra")
    need_module("uvicorn", "serves the xlwings Server app; installed with xlwings-server")
    root = tmp_path_factory.mktemp("xlwings-server")
    project = root / "project"
    follow_the_steps(project)

    port = free_port()
    log = root / "server.log"
    start = setup_steps.SERVER_START
    assert start[-2] == "--port"
    command = [program(start[0]), *start[1:-1], str(port)]
    with log.open("w") as sink:
        process = subprocess.Popen(
            command,
            env=server_environment(project),
            cwd=root,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    running = Server(f"http://127.0.0.1:{port}", log)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if process.poll() is not None:
                pytest.fail(f"xlwings Server exited ({process.returncode}):\n{log.read_text()}")
            try:
                if running.get("/manifest.xml")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"xlwings Server did not answer in {STARTUP_SECONDS} s")
            time.sleep(0.2)
        yield running
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# =========================================================================== what Excel reads

MANIFEST = "{http://schemas.microsoft.com/office/appforoffice/1.1}"
BT = "{http://schemas.microsoft.com/office/officeappbasictypes/1.0}"


def test_manifest_points_excel_at_this_server(server: Server) -> None:
    status, text = server.get("/manifest.xml")
    assert status == 200
    root = ET.fromstring(text)
    urls = {url.get("id"): url.get("DefaultValue") for url in root.iter(f"{BT}Url")}
    assert urls["Functions.Script.Url"] == f"{server.url}/xlwings/custom-functions-code.js"
    assert urls["Functions.Metadata.Url"] == f"{server.url}/xlwings/custom-functions-meta.json"
    strings = {s.get("id"): s.get("DefaultValue") for s in root.iter(f"{BT}String")}
    # prod: the functions are XLWINGS.NJ_... in Excel (XLWINGS_DEV. with init's dev .env)
    assert strings["Functions.Namespace"] == "XLWINGS"


def test_metadata_lists_every_function_with_its_help(server: Server) -> None:
    status, text = server.get("/xlwings/custom-functions-meta.json")
    assert status == 200
    functions = {entry["name"]: entry for entry in json.loads(text)["functions"]}
    assert set(functions) == set(excel.CATALOG)
    for name, entry in excel.CATALOG.items():
        served = functions[name]
        assert served["description"] == entry.description
        parameters = served["parameters"]
        arguments = [*entry.arguments, *([entry.vararg] if entry.vararg else [])]
        assert [p["name"] for p in parameters] == [a.name for a in arguments]
        for parameter, argument in zip(parameters, arguments, strict=True):
            assert parameter["description"] == argument.doc, (name, argument.name)
            if argument is entry.vararg:
                assert parameter.get("repeating") is True
            else:
                assert parameter.get("optional", False) is argument.optional


def test_code_associates_every_function(server: Server) -> None:
    status, code = server.get("/xlwings/custom-functions-code.js")
    assert status == 200
    for name in excel.CATALOG:
        assert f'CustomFunctions.associate("{name}", {name});' in code


# =========================================================================== calls over HTTP


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_http_call_equals_core(server: Server, case: Case) -> None:
    args = office_args(case.name, case.args, case.column)
    status, body = server.call(case.name, args)
    assert status == 200, body
    assert_same_cells(body["result"], case.expected())
    # and the very JSON the in-process dispatch gives
    assert body["result"] == json.loads(json.dumps(call_raw(case.name, args)))


@pytest.mark.parametrize(
    ("name", "args", "expected"), BAD_CALLS, ids=[f"{b[0]}-{b[2][:20]}" for b in BAD_CALLS]
)
def test_bad_input_is_400_with_the_message(
    server: Server, name: str, args: list[object], expected: str
) -> None:
    status, body = server.call(name, args)
    assert status == 400, body
    message = body["detail"] if isinstance(body, dict) else body
    assert expected in message
    assert "Traceback" not in message
    assert "\n" not in message
    with pytest.raises(xw.XlwingsError) as raised:
        call_raw(name, args)
    assert message == str(raised.value)


# =========================================================================== its own client


@pytest.fixture(scope="session")
def client_results(server: Server, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    node = need("node", "runs xlwings Server's JavaScript client")
    root = tmp_path_factory.mktemp("xlwings-client")
    calls = [
        {"id": f"{i}", "name": case.name, "args": office_args(case.name, case.args, case.column)}
        for i, case in enumerate(CASES)
    ] + [
        {"id": f"bad{i}", "name": name, "args": args} for i, (name, args, _) in enumerate(BAD_CALLS)
    ]
    (root / "calls.json").write_text(json.dumps(calls))
    run = subprocess.run(
        [
            node,
            HERE / "js" / "xlwings_client.mjs",
            server.url,
            root / "calls.json",
            root / "out.json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if run.returncode != 0:
        pytest.fail(f"the xlwings client failed under Node:\n{run.stdout}\n{run.stderr}")
    results = json.loads((root / "out.json").read_text())
    registered = results.pop()["registered"]
    return {
        "registered": registered,
        "by_id": {c["id"]: r for c, r in zip(calls, results, strict=True)},
    }


@pytest.mark.node
def test_the_client_registers_every_function(client_results: dict[str, Any]) -> None:
    assert client_results["registered"] == sorted(excel.CATALOG)


@pytest.mark.parametrize(
    ("index", "case"), list(enumerate(CASES)), ids=lambda v: getattr(v, "name", v)
)
@pytest.mark.node
def test_the_client_returns_the_core_cells(
    client_results: dict[str, Any], index: int, case: Case
) -> None:
    result = client_results["by_id"][f"{index}"]
    assert "result" in result, result
    assert_same_cells(result["result"], case.expected())


@pytest.mark.parametrize(
    ("index", "bad"), list(enumerate(BAD_CALLS)), ids=lambda v: v[0] if isinstance(v, tuple) else v
)
@pytest.mark.node
def test_the_client_shows_value_error_with_the_message(
    client_results: dict[str, Any], index: int, bad: tuple[str, list[object], str]
) -> None:
    """A 400 is not retried: Excel shows #VALUE! and the message on hover."""
    result = client_results["by_id"][f"bad{index}"]
    assert result["error"]["code"] == "#VALUE!"
    assert bad[2] in result["error"]["message"]


# =========================================================================== steps and re-entry


def test_the_served_namespace_is_the_one_the_server_templates_spell(server: Server) -> None:
    """The #NAME? of issue 21: init's "dev" served XLWINGS_DEV while the templates said
    XLWINGS. After the steps, the manifest and ``templates --runtime server`` agree."""
    from nj_incentives.cli.templates import RUNTIME_NAMESPACES

    root = ET.fromstring(server.get("/manifest.xml")[1])
    strings = {s.get("id"): s.get("DefaultValue") for s in root.iter(f"{BT}String")}
    assert strings["Functions.Namespace"] == RUNTIME_NAMESPACES["server"] == "XLWINGS"


def test_the_task_pane_button_runs_the_reentry_script(server: Server) -> None:
    status, page = server.get("/taskpane.html")
    assert status == 200
    assert setup_steps.SERVER_BUTTON[1] in page
    status, text = server.get("/xlwings/custom-scripts-meta")
    assert status == 200
    assert "nj_reenter_formulas" in [script["function_name"] for script in json.loads(text)]


def book_payload(path: Path) -> dict[str, Any]:
    """The book as xlwings Server's client sends it to a script: names and values of each
    sheet (the cached values of the file), no formulas."""
    import openpyxl

    workbook = openpyxl.load_workbook(path, data_only=True, read_only=True)
    sheets = []
    for sheet in workbook.worksheets:
        values = [
            [v.isoformat() if hasattr(v, "isoformat") else v for v in row]
            for row in sheet.iter_rows(max_row=5, max_col=3, values_only=True)
        ] or [[None]]
        sheets.append({"name": sheet.title, "values": values, "pictures": [], "tables": []})
    return {
        "client": "Office.js",
        "version": xw.__version__,
        "book": {"name": path.name, "active_sheet_index": 0, "selection": "A1"},
        "names": [],
        "sheets": sheets,
    }


def _address(row: int, column: int) -> str:
    letters = ""
    column += 1
    while column:
        column, rest = divmod(column - 1, 26)
        letters = chr(65 + rest) + letters
    return f"{letters}{row + 1}"


@pytest.mark.parametrize("name", ["beip-grant-schedule", "ertc-form-313-example"])
def test_the_reentry_script_writes_every_template_formula_in_the_server_namespace(
    server: Server, name: str
) -> None:
    from nj_incentives.runtimes import server as script
    from nj_incentives.runtimes.spelling import respell

    path = DEFAULT_DIRECTORY / f"{name}.xlsx"
    if not path.exists():
        path = DEFAULT_DIRECTORY / "examples" / f"{name}.xlsx"
    payload = book_payload(path)
    status, body = server.post("/xlwings/custom-scripts-call/nj_reenter_formulas", payload)
    assert status == 200, body
    sheets = [sheet["name"] for sheet in payload["sheets"]]
    written = {}
    for action in body["actions"]:
        if action["func"] in ("setFormula", "setFormulaArray"):
            where = (sheets[action["sheet_position"]], action["start_row"], action["start_column"])
            text = action["values"] if action["func"] == "setFormula" else action["args"]
            written[where] = (action["func"], text)
    template = next(t for t in script.templates().values() if name.startswith(t.name))
    assert template.formulas
    expected = {}
    for formula in template.formulas:
        func = "setFormulaArray" if formula.kind == "array" else "setFormula"
        text = respell(formula.formula, "XLWINGS")
        expected[formula.sheet, formula.address] = (func, text)
    got = {(sheet, _address(row, col)): value for (sheet, row, col), value in written.items()}
    assert set(got) == set(expected)
    for where, (func, text) in expected.items():
        assert "XLWINGS.NJ_" in text
        # one cell: setFormula with [[text]]; a legacy array: setFormulaArray with [text]
        assert got[where] == (func, [[text]] if func == "setFormula" else [text]), where
    alerts = [a for a in body["actions"] if a["func"] == "alert"]
    assert len(alerts) == 1
    assert f"Re-entered {len(template.formulas)} NJ_* formula(s), spelled =XLWINGS.NJ_" in str(
        alerts[0]["args"]
    )


def test_the_reentry_script_leaves_another_workbook_alone_and_says_so(server: Server) -> None:
    payload = book_payload(TEMPLATE)
    payload["sheets"][0]["values"] = [["My own model"]]
    status, body = server.post("/xlwings/custom-scripts-call/nj_reenter_formulas", payload)
    assert status == 200, body
    funcs = [action["func"] for action in body["actions"]]
    assert funcs == ["alert"]
    message = str(body["actions"][0]["args"])
    assert "not an nj-incentives template" in message
    assert "Replace, = with =" in message
