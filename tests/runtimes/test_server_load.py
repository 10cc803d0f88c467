"""xlwings Server under load and hostile requests (issue 22 item 7).

- The per-cell ``pyodide.ffi`` import: counted, not timed. A meta-path finder records
  every attempt to import ``pyodide``; reading a range of 10,000 cells through xlwings'
  Office.js engine makes none after :mod:`nj_incentives.excel` is imported (xlwings
  0.37.8 made one per cell, and one per argument).
- :func:`nj_incentives.runtimes.serving.check_call`, in process: each kind of malformed call is
  refused with a one-line message naming what is wrong; well-formed calls pass; a
  1,000 x 1,000 range is refused by its cell count.
- The real xlwings Server (``uvicorn nj_incentives.runtimes.serving:app`` on 127.0.0.1, the
  deployment docs/install.md gives): a bounded loop of malformed requests, systematic and
  seeded random ones, loopback only, every answer 400 with a message and none 500; a
  body of 200 MB refused from its Content-Length; a 1,000 x 1,000 range answered 400
  while another request is served; a valid call answered through the guard as before.
  Times are figures of tests/benchmarks/test_server_bench.py, not asserted here.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.runtimes import serving
from nj_incentives.runtimes import xlwings_classic as excel
from officejs import office_args, payload
from tooling import need_module

pytestmark = [
    pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js path"),
    pytest.mark.server,
]

CALL = "/xlwings/custom-functions-call"
SCRIPT = "/xlwings/custom-scripts-call/nj_reenter_formulas"
#: the served app's deadlines in these tests (docs/install.md: 10 s and 30 s)
HEADER_SECONDS = 2
BODY_SECONDS = 3
STARTUP_SECONDS = 90
GRANT_ARGS = office_args("NJ_BEIP_GRANT", (1000000, 0.2))


# =========================================================================== the import, counted


class _Counter:
    """A meta-path finder that counts the attempts to import ``pyodide`` (finds nothing)."""

    def __init__(self) -> None:
        self.attempts = 0

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.split(".")[0] == "pyodide":
            self.attempts += 1


@pytest.fixture
def pyodide_imports() -> Iterator[_Counter]:
    counter = _Counter()
    sys.meta_path.insert(0, counter)
    try:
        yield counter
    finally:
        sys.meta_path.remove(counter)


def test_xlwings_reads_a_range_without_trying_the_pyodide_import(
    pyodide_imports: _Counter,
) -> None:
    from xlwings.pro import _xlofficejs, udfs_officejs

    assert "pyodide" not in sys.modules  # this interpreter is not Pyodide
    rows = [[float(r * 100 + c) for c in range(100)] for r in range(100)]  # 10,000 cells
    read = _xlofficejs.Engine.clean_value_data(rows, None, None, None, True)
    assert read == rows
    assert udfs_officejs.to_scalar([[None]]) is None
    assert pyodide_imports.attempts == 0  # xlwings 0.37.8 alone: 10,001 (the test below)


def test_xlwings_own_check_tries_the_import_on_every_cell(pyodide_imports: _Counter) -> None:
    # the check above can fail: xlwings' is_jsnull, as cache_jsnull_checks found it
    original = serving.REPLACED["is_jsnull"]
    assert [original(cell) for cell in (1.5, None, "x")] == [False, False, False]
    assert pyodide_imports.attempts == 3


@settings(max_examples=40, deadline=None)
@given(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),  # NaN and infinities too
        st.text(max_size=6),
        st.sampled_from(["#N/A", "#VALUE! x", "# not an error", "", " "]),
        st.sampled_from([dt.date(2020, 1, 2), dt.datetime(2021, 3, 4, 5, 6)]),
        st.dates(),
        st.datetimes(),
        st.sampled_from([np.float64("nan"), np.int64(3), np.float32(1.5), np.bool_(True)]),
        st.sampled_from([pd.Timestamp("2021-03-04"), pd.NA, pd.NaT]),
    )
)
def test_quick_result_cells_answer_as_xlwings_does(value: object) -> None:
    # issue 35: each result cell prepared for Office.js, by the quick check (what
    # nj_incentives.excel installed) and by xlwings' own preparation: the same value
    from xlwings.pro import _xlofficejs

    assert "prepare_xl_data_element" in serving.REPLACED
    # a date is a FormattedNumber from Office.js runtime 1.4 with a date format, else a serial
    for options in (
        {"runtime": "1.4", "date_format": "M/d/yyyy"},
        {"runtime": "1.4", "date_format": None},
        {"runtime": "1.3", "date_format": "M/d/yyyy"},
    ):
        quick = _xlofficejs.Engine.prepare_xl_data_element(value, options)
        own = serving.REPLACED["prepare_xl_data_element"](value, options)
        assert type(quick) is type(own)
        assert quick == own or (quick != quick and own != own)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.lists(
            st.one_of(
                st.none(),
                st.booleans(),
                st.integers(),
                st.floats(),
                st.text(max_size=4),
                st.sampled_from(["#N/A", "#VALUE! x", ""]),
                st.dates(),
                st.datetimes(),
                st.sampled_from([np.float64("nan"), np.int64(3), pd.NaT]),
            ),
            min_size=1,
            max_size=4,
        ),
        min_size=1,
        max_size=4,
    )
)
def test_quick_result_rows_answer_as_xlwings_does(rows: list[list[object]]) -> None:
    # issue 35: a whole result prepared for Office.js by xlwings' stage as
    # nj_incentives.excel left it (plain cells kept in the row's loop) and by xlwings'
    # own preparation of each cell: the same values of the same types
    from xlwings.conversion import ConversionContext, standard

    # (blanks and plain dates too, issue 35), under each runtime and date format
    assert "CleanDataForWriteStage" in serving.REPLACED
    for options in (
        {"runtime": "1.4", "date_format": "M/d/yyyy"},
        {"runtime": "1.4", "date_format": None},
        {"runtime": "1.3", "date_format": "M/d/yyyy"},
    ):
        context = ConversionContext(value=[list(row) for row in rows], engine_name="officejs")
        standard.CleanDataForWriteStage(options)(context)
        own = [
            [serving.REPLACED["prepare_xl_data_element"](x, options) for x in row] for row in rows
        ]
        assert [[type(x) for x in row] for row in context.value] == [
            [type(x) for x in row] for row in own
        ]
        assert str(context.value) == str(own)


def test_the_cached_checks_give_xlwings_answers_with_pyodide_present() -> None:
    """Inside Pyodide (a stand-in ``pyodide.ffi`` here) JsNull still reads as a blank, and
    a result's cells are prepared as xlwings' own preparation does."""
    code = (
        "import sys, types\n"
        "ffi = types.ModuleType('pyodide.ffi'); ffi.JsNull = type('JsNull', (), {})\n"
        "pyodide = types.ModuleType('pyodide'); pyodide.ffi = ffi\n"
        "sys.modules.update({'pyodide': pyodide, 'pyodide.ffi': ffi})\n"
        "import nj_incentives.excel\n"
        "from xlwings.pro import _xlofficejs, udfs_officejs\n"
        "null = ffi.JsNull()\n"
        "print(_xlofficejs.Engine.clean_value_data([[null, 1.5]], None, 'E', None, True),"
        " udfs_officejs.to_scalar([[null]]))\n"
        # a result's cells as Lite hands them to Excel: the same as xlwings' own (issue 35)
        "import datetime as dt\n"
        "from xlwings.conversion import ConversionContext, standard\n"
        "from nj_incentives.runtimes.serving import REPLACED\n"
        "rows = [[None, 1.5, 2, True, 'x', '#N/A', dt.date(2020, 1, 2), float('nan'), '']]\n"
        "options = {'runtime': '1.4', 'date_format': 'M/d/yyyy'}\n"
        "c = ConversionContext(value=[list(r) for r in rows], engine_name='officejs')\n"
        "standard.CleanDataForWriteStage(options)(c)\n"
        "own = [[REPLACED['prepare_xl_data_element'](x, options) for x in r] for r in rows]\n"
        "print(str(c.value) == str(own), 'CleanDataForWriteStage' in REPLACED)\n"
    )
    env = {"XLWINGS_ON_SERVER": "true", "XLWINGS_LICENSE_KEY": "noncommercial"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[['E',", "1.5]]", "None", "True", "True"]


# =========================================================================== the checks


def _call(name: object = "NJ_BEIP_GRANT", args: object = None, **changes: object) -> Any:
    data: dict[str, Any] = payload("NJ_BEIP_GRANT", GRANT_ARGS)
    data["func_name"] = name
    if args is not None:
        data["args"] = args
    data.update(changes)
    return data


def _without(key: str) -> dict[str, Any]:
    data: dict[str, Any] = payload("NJ_BEIP_GRANT", GRANT_ARGS)
    del data[key]
    return data


#: (what, request body, a part of the message)
MALFORMED: list[tuple[str, bytes, str]] = [
    ("empty body", b"", "the request body is empty"),
    ("blank body", b"  \n", "the request body is empty"),
    ("not JSON", b"{", "not JSON"),
    ("not UTF-8", b"\xff\xfe{", "the request body is not UTF-8 (byte 1)"),
    # issue 36 item 12: neither is "nested too deep"
    ("5,000 digits", b'{"args": [[[' + b"9" * 5000 + b"]]]}", "a number of 5,000 digits"),
    ("deep", b"[" * 100_000, "nested too deep"),
    ("[[]]", b"[[]]", "the request is [[]]"),
    ("null", b"null", "a custom function call is a JSON object"),
    ("a number", b"42", "a custom function call is a JSON object"),
    ("no func_name", json.dumps(_without("func_name")).encode(), "has no func_name"),
    ("no args", json.dumps(_without("args")).encode(), "has no args"),
    ("no version", json.dumps(_without("version")).encode(), "has no version"),
    ("no client", json.dumps(_without("client")).encode(), "has no client"),
    ("unknown name", json.dumps(_call("NJ_NOPE")).encode(), 'func_name = "NJ_NOPE"'),
    ("lower-case name", json.dumps(_call("nj_beip_grant")).encode(), "did you mean NJ_BEIP_GRANT"),
    ("not a function", json.dumps(_call("__class__")).encode(), "not a function of this server"),
    ("name a number", json.dumps(_call(7)).encode(), "func_name = 7"),
    ("args a string", json.dumps(_call(args="abc")).encode(), 'args = "abc": must be a list'),
    ("args an object", json.dumps(_call(args={"a": 1})).encode(), "must be a list"),
    ("args null", json.dumps(_call() | {"args": None}).encode(), "args = null"),
    ("args [[]]", json.dumps(_call(args=[[]])).encode(), "a range has at least one row"),
    ("an empty row", json.dumps(_call(args=[[[]]])).encode(), "rows have one length"),
    ("ragged rows", json.dumps(_call(args=[[[1], [1, 2]]])).encode(), "rows have one length"),
    ("too many", json.dumps(_call(args=[[[1]]] * 9)).encode(), "takes at most 5 arguments"),
    ("too deep", json.dumps(_call(args=[[[[1]]]])).encode(), "is not a cell value"),
    ("bad data type", json.dumps(_call(args=[[[{"x": 1}]]])).encode(), "is not a cell value"),
    ("row not a list", json.dumps(_call(args=[[1, 2]])).encode(), "a range is a list of rows"),
    ("version a number", json.dumps(_call(version=1)).encode(), "version = 1"),
    (
        "repeating not a list",
        json.dumps(_call("NJ_EXPLAIN", args=[[["NJ_BEIP_GRANT"]], "x"])).encode(),
        "a repeating argument is a list",
    ),
    ("1,000 x 1,000", json.dumps(_call(args=[[[1] * 1000] * 1000])).encode(), "1,000,000 cells"),
]


@pytest.mark.parametrize(("what", "body", "expected"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_call_is_refused_with_a_message(what: str, body: bytes, expected: str) -> None:
    with pytest.raises(serving.Refused) as refused:
        serving.check_body(body, excel)
    message = str(refused.value)
    assert expected in message, message
    assert "\n" not in message
    assert "TypeError" not in message


async def _app_never_called(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("a refused request reached the app")


@pytest.mark.parametrize(
    "data",
    [
        payload("NJ_BEIP_GRANT", GRANT_ARGS),
        payload("NJ_BEIP_GRANT", [[[1000000]], [[0.2]]]),  # trailing optional ones omitted
        payload("NJ_BEIP_GRANT", [[[{"type": "Error", "basicValue": "#N/A"}]], [[0.2]]]),
        payload("NJ_EXPLAIN", office_args("NJ_EXPLAIN", ("NJ_BEIP_GRANT", 1000000, 0.2))),
        payload("NJ_ERTC_FTE", [[[1.5] * 40] * 100]),
    ],
)
def test_a_well_formed_call_passes(data: dict[str, Any]) -> None:
    serving.check_call(data, excel)


def test_the_cell_bound_counts_every_argument() -> None:
    # 2 arguments of 300 x 1,000 = 600,000 cells > 500,000; one of them alone passes
    block = [[1] * 1000] * 300
    serving.check_call(payload("NJ_BEIP_GRANT", [block]), excel)
    with pytest.raises(serving.Refused, match=r"args: 600,000 cells, more than 500,000"):
        serving.check_call(payload("NJ_BEIP_GRANT", [block, block]), excel)
    # and the limit is the deployment's (NJ_INCENTIVES_MAX_REQUEST_CELLS)
    with pytest.raises(serving.Refused, match="more than 10 in one call"):
        serving.check_call(payload("NJ_BEIP_GRANT", [[[1] * 11]]), excel, max_cells=10)


def test_limits_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NJ_INCENTIVES_MAX_REQUEST_BYTES", "1000")
    monkeypatch.setenv("NJ_INCENTIVES_MAX_REQUEST_CELLS", "20")
    guard = serving.RequestGuard(_app_never_called, lambda: excel)
    assert (guard.max_bytes, guard.max_cells) == (1000, 20)
    monkeypatch.setenv("NJ_INCENTIVES_MAX_REQUEST_CELLS", "lots")
    with pytest.raises(ValueError, match="NJ_INCENTIVES_MAX_REQUEST_CELLS = 'lots'"):
        serving.RequestGuard(_app_never_called, lambda: excel)


def random_malformed(rng: random.Random) -> bytes:
    """A seeded mutation of a valid call: a key dropped or replaced by a value of another
    JSON type, a name misspelt, an argument reshaped, or the body cut or wrapped."""
    data: Any = payload("NJ_BEIP_GRANT", GRANT_ARGS)
    junk: list[Any] = [None, True, 0, -1.5, "", "x" * 50, [], [[]], [[[]]], {}, {"type": 1}]
    choice = rng.randrange(7)
    if choice == 0:
        del data[rng.choice(["func_name", "args", "version", "client"])]
    elif choice == 1:
        key = rng.choice(["func_name", "args", "version"])
        # any text is a version xlwings accepts from the Office.js client: not text here
        data[key] = rng.choice([j for j in junk if key != "version" or not isinstance(j, str)])
    elif choice == 2:
        name = "NJ_BEIP_GRANT"
        cut = rng.randrange(len(name))
        data["func_name"] = rng.choice([name.lower(), name[:cut], name + "X", name.title()])
    elif choice == 3:
        data["args"][rng.randrange(2)] = rng.choice([*junk[5:], [[1], [1, 2]], [[[[1]]]]])
    elif choice == 4:
        data["args"] = data["args"] + [[[1]]] * rng.randrange(1, 5)
    elif choice == 5:
        return json.dumps(data).encode()[: rng.randrange(1, 100)]
    else:
        data = rng.choice([[data], [[]], "call"])
    return json.dumps(data).encode()


# =========================================================================== the real server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Served:
    port: int

    def post(self, body: bytes, timeout: float = 120) -> tuple[int, str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(
                "POST", CALL, body=body, headers={"Content-Type": "application/json"}
            )
            response = connection.getresponse()
            return response.status, response.read().decode(errors="replace")
        finally:
            connection.close()

    def announce(self, length: int, sent: bytes, path: str = CALL) -> tuple[int, str]:
        """Declare a body of ``length`` bytes, send ``sent`` of it, read the answer."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=60) as sock:
            head = (
                f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                f"\r\nContent-Length: {length}\r\n\r\n"
            )
            sock.sendall(head.encode() + sent)
            return _answer(sock)

    def chunked(self, path: str, chunks: int, size: int) -> tuple[int, str]:
        """POST a chunked body of ``chunks`` chunks of ``size`` bytes (no Content-Length),
        stopping when the server answers; its answer."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=60) as sock:
            head = (
                f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                "\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            sock.sendall(head.encode())
            chunk = f"{size:x}\r\n".encode() + b"[" * size + b"\r\n"
            try:
                for _ in range(chunks):
                    sock.sendall(chunk)
                sock.sendall(b"0\r\n\r\n")
            except OSError:  # refused and closed while sending
                pass
            return _answer(sock)

    def slow(self, head: bytes) -> tuple[int, str]:
        """Send ``head`` and nothing more; the server's answer (or (0, "") if it closes
        the connection without one)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=60) as sock:
            sock.sendall(head)
            return _answer(sock)


def _answer(sock: socket.socket) -> tuple[int, str]:
    answer = b""
    while b"\r\n\r\n" not in answer or len(answer.split(b"\r\n\r\n", 1)[1]) < 10:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        answer += chunk
    if not answer:
        return 0, ""
    status = int(answer.split(b" ", 2)[1])
    return status, answer.split(b"\r\n\r\n", 1)[-1].decode(errors="replace")


def start(
    project_root: Path, app: str = "nj_incentives.runtimes.serving:app"
) -> tuple[Any, Served]:
    """xlwings Server (``xlwings-server init`` project serving nj_incentives.excel) under
    uvicorn on 127.0.0.1, as docs/install.md deploys it."""
    project = project_root / "project"
    init = subprocess.run(
        [sys.executable, "-c", "from xlwings_server.cli import main; main()", "init", project],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert init.returncode == 0, init.stderr
    functions = project / "custom_functions"
    (functions / "functions.py").unlink()
    (functions / "nj_incentives_functions.py").write_text("from nj_incentives.excel import *\n")
    (functions / "__init__.py").write_text("from .nj_incentives_functions import *\n")
    port = free_port()
    environment = dict(os.environ)
    environment.update(
        XLWINGS_PROJECT_DIR=str(project),
        XLWINGS_LICENSE_KEY="noncommercial",  # tests only
        XLWINGS_ENVIRONMENT="prod",
        PYTHONUNBUFFERED="1",
        # short deadlines, so that the slow clients below are answered in seconds
        NJ_INCENTIVES_HEADER_SECONDS=str(HEADER_SECONDS),
        NJ_INCENTIVES_BODY_SECONDS=str(BODY_SECONDS),
    )
    guarded = app.startswith("nj_incentives")
    protocol = ["--http", "nj_incentives.runtimes.serving:H11"] if guarded else []
    log = project_root / "server.log"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                app,
                *protocol,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            env=environment,
            cwd=project_root,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    served = Served(port)
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        if process.poll() is not None:
            pytest.fail(f"xlwings Server exited ({process.returncode}):\n{log.read_text()}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/manifest.xml")
            if connection.getresponse().status == 200:
                break
        except OSError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"xlwings Server did not answer in {STARTUP_SECONDS} s")
        time.sleep(0.3)
    return process, served


def stop(process: Any) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    need_module("xlwings_server", "the real xlwings Server app; in the test extra")
    need_module("uvicorn", "serves the xlwings Server app; installed with xlwings-server")
    process, served = start(tmp_path_factory.mktemp("guarded-server"))
    try:
        yield served
    finally:
        stop(process)


def test_a_valid_call_is_answered_through_the_guard(guarded: Served) -> None:
    # 1,000,000 x 20% = 200,000.00
    status, text = guarded.post(json.dumps(payload("NJ_BEIP_GRANT", GRANT_ARGS)).encode())
    assert (status, json.loads(text)) == (200, {"result": [[200000.0]]})
    # and the function's own refusal is still its 400 with the message
    status, text = guarded.post(
        json.dumps(payload("NJ_BEIP_GRANT", office_args("NJ_BEIP_GRANT", (-5, 0.2)))).encode()
    )
    assert status == 400
    assert "withholdings = -5:" in text


ROUNDS = 12  # the systematic set 12 times over, and as many seeded random ones


def test_malformed_requests_get_400_never_500(guarded: Served) -> None:
    rng = random.Random(22)
    bodies = [body for _ in range(ROUNDS) for _what, body, _ in MALFORMED]
    bodies += [random_malformed(rng) for _ in range(len(bodies))]
    statuses: dict[int, int] = {}
    bad: list[tuple[int, bytes, str]] = []
    for body in bodies:
        status, text = guarded.post(body)
        statuses[status] = statuses.get(status, 0) + 1
        if status != 400 or not text.strip() or "Traceback" in text or "TypeError" in text:
            bad.append((status, body[:80], text[:120]))
    print(f"{len(bodies)} malformed requests: {statuses}")
    assert not bad, bad[:5]
    assert statuses == {400: len(bodies)}


def test_a_200_mb_body_is_refused_from_its_length(guarded: Served) -> None:
    status, text = guarded.announce(200_000_000, b'{"func_name": "NJ_BEIP_GRANT", "args": [')
    assert status == 400
    assert "a request body of 200,000,000 bytes: at most 8,388,608 bytes" in text


def test_a_million_cells_are_refused_while_another_call_is_answered(guarded: Served) -> None:
    grid = [[float(r * 1000 + c) + 0.25 for c in range(1000)] for r in range(1000)]
    # 1,000 x 1,000 cells of up to 10 characters: about 11 MB, over the 8 MiB bound
    big = json.dumps(payload("NJ_SCENARIOS", [grid])).encode()
    small_ints = json.dumps(payload("NJ_SCENARIOS", [[[1] * 1000] * 1000])).encode()  # ~3 MB
    small = json.dumps(payload("NJ_BEIP_GRANT", GRANT_ARGS)).encode()
    answers: dict[str, tuple[int, str]] = {}

    def send(key: str, body: bytes) -> None:
        answers[key] = guarded.post(body)

    threads = [
        threading.Thread(target=send, args=("big", big)),
        threading.Thread(target=send, args=("ints", small_ints)),
    ]
    for thread in threads:
        thread.start()
    others = [guarded.post(small) for _ in range(3)]  # while the large ones are handled
    for thread in threads:
        thread.join(timeout=300)
    assert [status for status, _ in others] == [200, 200, 200]
    assert answers["big"][0] == 400
    assert "bytes: at most 8,388,608 bytes" in answers["big"][1]
    assert answers["ints"][0] == 400
    assert "args: 1,000,000 cells, more than 500,000 in one call" in answers["ints"][1]


def test_every_post_route_has_the_byte_bound(guarded: Served) -> None:
    """Issue 36 item 12: the custom scripts' route read a 300 MB chunked body whole
    (1,256 MB, then 500); every POST route now has the custom functions' bound."""
    status, text = guarded.announce(300_000_000, b"{", SCRIPT)
    assert status == 400
    assert "a request body of 300,000,000 bytes: at most 8,388,608 bytes" in text
    # chunked, no Content-Length: refused once 8 MiB have arrived (64 chunks of 256 KiB
    # would be 16 MiB)
    status, text = guarded.chunked(SCRIPT, 64, 256 * 1024)
    assert status == 400
    assert "a request body of more than 8,388,608 bytes" in text


def test_slow_clients_are_answered_408_and_closed(guarded: Served) -> None:
    """200 slow bodies and 50 slow headers stayed open after 75 s: each is now answered
    408 at its deadline (here 2 s for the headers, 3 s for the body) and closed."""
    bodies = [
        f"POST {SCRIPT} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{{".encode()
        for _ in range(20)
    ]
    heads = [f"POST {CALL} HTTP/1.1\r\nHost: x\r\nContent-Le".encode() for _ in range(10)]
    answers: list[tuple[int, str]] = []

    def send(head: bytes) -> None:
        answers.append(guarded.slow(head))

    threads = [threading.Thread(target=send, args=(head,)) for head in bodies + heads]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(status for status, _ in answers)
    assert statuses == [408] * 30, answers[:3]
    texts = {text.split(" within")[0] for _, text in answers}
    assert texts == {"the request body did not arrive", "the request headers did not arrive"}
    # and the server still answers
    status, text = guarded.post(json.dumps(payload("NJ_BEIP_GRANT", GRANT_ARGS)).encode())
    assert (status, json.loads(text)) == (200, {"result": [[200000.0]]})
