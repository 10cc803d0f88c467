"""The real xlwings Server (PyPI ``xlwings-server``) serving ``nj_incentives.excel``.

Not a stand-in: the test writes a project with ``xlwings-server init``, adds a module
``from nj_incentives.excel import *`` under its ``custom_functions/`` (xlwings Server's
"Adding New Modules"), and starts the app with uvicorn on 127.0.0.1 at a free port, with
the noncommercial licence key in the server's environment only (the server does not
start without a key; the noncommercial one covers tests, not a business's use). Then,
as Excel does:

- fetch ``/manifest.xml``, ``/xlwings/custom-functions-meta.json`` and
  ``/xlwings/custom-functions-code.js``, and check they list every catalog function
  with its help (Excel's function list);
- POST the Office.js payload to ``/xlwings/custom-functions-call`` for every worked
  case of tests/test_excel_dispatch.py (every catalog function): 200 and the cells the
  calculation core gives; bad inputs: 400 and the short message, which the client turns
  into ``#VALUE!`` with the message on hover;
- run the server's own JavaScript client (the custom-functions-code.js it serves) under
  Node (tests/js/xlwings_client.mjs) and call every function's example through it.

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

from nj_incentives import excel
from officejs import BAD_CALLS, call_raw, office_args, payload
from test_excel_dispatch import CASES, Case, assert_same_cells
from tooling import need, need_module

pytestmark = pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js path")

HERE = Path(__file__).parent
STARTUP_SECONDS = 60


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
            with urllib.request.urlopen(self.url + path, timeout=30) as response:
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
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            try:
                return error.code, json.loads(text)
            except json.JSONDecodeError:
                return error.code, text

    def call(self, name: str, args: list[object]) -> tuple[int, Any]:
        return self.post("/xlwings/custom-functions-call", payload(name, args))


def server_environment(project: Path) -> dict[str, str]:
    environment = dict(os.environ)
    environment.update(
        XLWINGS_PROJECT_DIR=str(project),
        # the noncommercial key: tests only (the .env that init writes has a placeholder)
        XLWINGS_LICENSE_KEY="noncommercial",
        XLWINGS_ENVIRONMENT="prod",
        PYTHONUNBUFFERED="1",
    )
    environment.pop("XLWINGS_FUNCTIONS_NAMESPACE", None)
    return environment


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    need_module("xlwings_server", "the real xlwings Server app; in the test extra")
    need_module("uvicorn", "serves the xlwings Server app; installed with xlwings-server")
    root = tmp_path_factory.mktemp("xlwings-server")
    project = root / "project"
    init = subprocess.run(
        [sys.executable, "-c", "from xlwings_server.cli import main; main()", "init", project],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert init.returncode == 0, init.stderr
    # the project's example functions (HELLO ...) out, nj_incentives.excel in
    functions = project / "custom_functions"
    (functions / "functions.py").unlink()
    (functions / "nj_incentives_functions.py").write_text("from nj_incentives.excel import *\n")
    (functions / "__init__.py").write_text("from .nj_incentives_functions import *\n")

    port = free_port()
    log = root / "server.log"
    command = [sys.executable, "-m", "uvicorn", "xlwings_server.main:main_app"]
    command += ["--host", "127.0.0.1", "--port", str(port)]
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


def test_the_client_registers_every_function(client_results: dict[str, Any]) -> None:
    assert client_results["registered"] == sorted(excel.CATALOG)


@pytest.mark.parametrize(
    ("index", "case"), list(enumerate(CASES)), ids=lambda v: getattr(v, "name", v)
)
def test_the_client_returns_the_core_cells(
    client_results: dict[str, Any], index: int, case: Case
) -> None:
    result = client_results["by_id"][f"{index}"]
    assert "result" in result, result
    assert_same_cells(result["result"], case.expected())


@pytest.mark.parametrize(
    ("index", "bad"), list(enumerate(BAD_CALLS)), ids=lambda v: v[0] if isinstance(v, tuple) else v
)
def test_the_client_shows_value_error_with_the_message(
    client_results: dict[str, Any], index: int, bad: tuple[str, list[object], str]
) -> None:
    """A 400 is not retried: Excel shows #VALUE! and the message on hover."""
    result = client_results["by_id"][f"bad{index}"]
    assert result["error"]["code"] == "#VALUE!"
    assert bad[2] in result["error"]["message"]
