"""Serving the NJ_* functions with xlwings Server: bounded requests, clear refusals.

Two things, both outside xlwings Server's own code (we do not patch site-packages):

- :func:`cache_jsnull_checks`, called when :mod:`nj_incentives.excel` is imported for the
  Office.js runtime. xlwings 0.37.8 asks ``from pyodide.ffi import JsNull`` for every
  cell of every range argument (``xlwings.utils.is_jsnull``, called by
  ``xlwings.pro._xlofficejs._clean_value_data_element``) and for every argument
  (``xlwings.pro.udfs_officejs.js_to_none``). Outside Pyodide that import fails each
  time, after a search of ``sys.path``: about 90 µs a cell on a quiet machine, so that a
  4 MB request held the server for about 100 s. The import is attempted once here and
  both checks answer from its result (the same answers: ``isinstance(value, JsNull)``
  inside Pyodide, False outside).
- :func:`quick_result_cells`, called beside it: xlwings 0.37.8 prepares every cell of a
  result for Office.js with ``pandas.isna`` and a row of ``isinstance`` tests
  (``xlwings.pro._xlofficejs.Engine.prepare_xl_data_element``), about 1-2 µs a cell, so
  that a wide result (an ``NJ_SCENARIOS`` table: about 40 result cells a row) costs more
  to hand back than to compute. Plain text (not an error text starting with "#"), whole
  numbers, booleans and floats that are not NaN are answered at once, as xlwings answers
  them (the value unchanged), blanks as "" and plain dates as xlwings' date branch makes
  them, in xlwings' row loop without a call a cell; every other cell goes to xlwings' own
  preparation.
- :data:`app` (``uvicorn nj_incentives.serving:app``): xlwings Server's app
  (``xlwings_server.main:main_app``) with :class:`RequestGuard`, which answers a call
  to ``/xlwings/custom-functions-call`` that is too large or malformed with 400 and a
  one-line message before xlwings Server reads it (xlwings Server itself answers an
  empty body, a missing ``func_name`` or ``args``, an unknown name or a malformed cell
  with 500 "An error occurred.", which the Office.js client retries three times). The
  limits (docs/install.md, "xlwings Server"): :data:`MAX_BYTES` of body and
  :data:`MAX_CELLS` cells in one call, set by the environment variables
  ``NJ_INCENTIVES_MAX_REQUEST_BYTES`` and ``NJ_INCENTIVES_MAX_REQUEST_CELLS``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = [
    "MAX_BYTES",
    "MAX_CELLS",
    "REPLACED",
    "SPECIAL_HINTS",
    "Refused",
    "RequestGuard",
    "cache_jsnull_checks",
    "check_body",
    "check_call",
    "declare_special_hints",
    "quick_result_cells",
    "quick_special_args",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The largest request body accepted (bytes): 8 MiB, the JSON of :data:`MAX_CELLS` cells
#: of up to 15 characters each; parsed in about 0.1 s.
MAX_BYTES = 8 * 1024 * 1024
#: The most cells in one call: 500,000 (a 20,000-row ``NJ_SCENARIOS`` table of 25
#: columns); a 1,000 x 1,000 range is refused.
MAX_CELLS = 500_000

CALL_PATH = "/xlwings/custom-functions-call"
#: The longest a request's body may take to arrive (s): a slow client holds no worker
#: longer (``NJ_INCENTIVES_BODY_SECONDS``).
BODY_SECONDS = 30
#: The longest a request's headers may take to arrive (s), from the connection or the
#: previous answer: :data:`H11` (``NJ_INCENTIVES_HEADER_SECONDS``).
HEADER_SECONDS = 10


# =========================================================================== the cell checks

#: xlwings' own checks, as :func:`cache_jsnull_checks` found them (for the benchmark).
REPLACED: dict[str, Callable[..., Any]] = {}


def cache_jsnull_checks() -> bool:
    """Make xlwings' per-cell and per-argument ``JsNull`` checks attempt the
    ``pyodide.ffi`` import once (now) instead of on every call. True when both checks
    were found and replaced (xlwings 0.37.x); False leaves xlwings as it is."""
    import xlwings.utils

    try:
        from xlwings.pro import udfs_officejs
    except Exception:  # no licence key, or another xlwings: nothing to replace
        return False
    try:
        from pyodide.ffi import JsNull
    except ImportError:
        JsNull = None

    if JsNull is None:

        def is_jsnull(value: object) -> bool:
            return False

        def js_to_none(arg: Any) -> Any:
            return arg

    else:

        def is_jsnull(value: object) -> bool:
            return isinstance(value, JsNull)

        def js_to_none(arg: Any) -> Any:
            return None if isinstance(arg, JsNull) else arg

    found = callable(getattr(xlwings.utils, "is_jsnull", None)) and callable(
        getattr(udfs_officejs, "js_to_none", None)
    )
    if found and "is_jsnull" not in REPLACED:
        REPLACED.update(is_jsnull=xlwings.utils.is_jsnull, js_to_none=udfs_officejs.js_to_none)
        xlwings.utils.is_jsnull = is_jsnull
        udfs_officejs.js_to_none = js_to_none
    return found


def quick_result_cells() -> bool:
    """Make xlwings' preparation of a result's cells for Office.js answer plain text,
    whole numbers, booleans and non-NaN floats at once (as it does: unchanged), None as
    "" (as it does) and plain dates and datetimes by xlwings' own date branch without its
    pandas and numpy tests first, and hand every other cell (NaN, numpy and pandas
    values, "#..." error texts) to xlwings' own. True when the preparation was found and
    replaced (xlwings 0.37.x)."""
    try:
        from xlwings.pro import _xlofficejs
    except Exception:  # no licence key, or another xlwings: nothing to replace
        return False
    engine = getattr(_xlofficejs, "Engine", None)
    original = getattr(engine, "prepare_xl_data_element", None)
    if engine is None or not callable(original):
        return False
    if "prepare_xl_data_element" in REPLACED:
        return True

    formatted = getattr(_xlofficejs, "datetime_to_formatted_number", None)
    day_kinds = (dt.date, dt.datetime) if callable(formatted) else ()

    def prepare_xl_data_element(x: object, options: dict[str, Any]) -> object:
        kind = type(x)
        if kind is str:
            if not x.startswith("#"):  # type: ignore[attr-defined]
                return x
        elif kind is int or kind is bool or (kind is float and x == x):
            return x
        elif x is None:
            return ""
        elif kind is dt.date and day_kinds:
            # xlwings' own date branch, without a datetime made: the schedules' and the
            # calendar's dates (issue 35); options it cannot read go to xlwings
            cell = _date_cell(options)
            if cell is not None:
                return cell(x.toordinal())  # type: ignore[attr-defined]
        elif kind in day_kinds:  # exactly a datetime (not pandas' Timestamp)
            # xlwings' own branch, without its pandas.isna and numpy tests first
            return formatted(x, options["date_format"], options["runtime"])  # type: ignore[misc]
        return original(x, options)

    REPLACED["prepare_xl_data_element"] = original
    engine.prepare_xl_data_element = staticmethod(prepare_xl_data_element)
    _quick_rows(prepare_xl_data_element, bool(day_kinds))
    return True


def _date_cell(options: dict[str, Any]) -> Callable[[int], object] | None:
    """A plain date's cell, from its ordinal, as xlwings' Office.js date branch
    (``datetime_to_formatted_number``) makes it under a call's options: the serial
    (1899-12-30 is ordinal 693,594: the same float as xlwings' timestamp / 86400 + 25569
    for a whole day, without a datetime made), alone before runtime 1.4 or without a date
    format, else as a FormattedNumber. None: options it cannot read (xlwings' own branch
    then raises or answers as it does). Worked out once a call (issue 35)."""
    try:
        date_format = options["date_format"]
        serial_only = float(options["runtime"]) < 1.4 or date_format is None
    except Exception:
        return None
    if serial_only:
        return lambda ordinal: float(ordinal - 693_594)
    return lambda ordinal: {
        "type": "FormattedNumber",
        "basicValue": float(ordinal - 693_594),
        "numberFormat": date_format,
    }


def _quick_rows(prepare: Callable[[object, dict[str, Any]], object], dates: bool) -> None:
    """xlwings prepares a result's cells by a call of the engine's preparation for each
    cell (``CleanDataForWriteStage``); for the engine whose preparation is ``prepare``
    (Office.js), the cells whose answer ``prepare`` gives at once are answered in the
    row's own loop, without the call: plain text, whole numbers, booleans and non-NaN
    floats unchanged, None as "" and (``dates``: xlwings has its date branch) a plain
    date as its FormattedNumber (or serial), worked out once a call from the call's
    runtime and date format; every other cell goes to ``prepare``; any other engine
    keeps xlwings' stage. A schedule returns 100-200 cells, an ``NJ_SCENARIOS`` table
    about 40 a row, a third of them blank (issue 35)."""
    try:
        from xlwings.conversion import standard
    except Exception:  # another xlwings: nothing to replace
        return
    stage = getattr(standard, "CleanDataForWriteStage", None)
    original = vars(stage).get("__call__") if isinstance(stage, type) else None
    if stage is None or not callable(original) or "CleanDataForWriteStage" in REPLACED:
        return

    def clean(self: Any, c: Any) -> None:
        impl = getattr(c.engine, "impl", None)
        if getattr(impl, "prepare_xl_data_element", None) is not prepare:
            original(self, c)
            return
        options = self.options
        day = _date_cell(options) if dates else None
        date = dt.date if day is not None else None  # no cell's type is None
        # the commonest first: floats, blanks (a third of a scenario table), text
        c.value = [
            [
                x
                if ((kind := type(x)) is float and x == x)
                or kind is int
                or kind is bool
                or (kind is str and not x.startswith("#"))
                else ""
                if x is None
                else day(x.toordinal())  # type: ignore[misc]
                if kind is date
                else prepare(x, options)
                for x in row
            ]
            for row in c.value
        ]

    REPLACED["CleanDataForWriteStage"] = original
    stage.__call__ = clean


#: The attribute :func:`declare_special_hints` records a function's hints under.
SPECIAL_HINTS = "__nj_special_hints__"


def declare_special_hints(function: Callable[..., Any]) -> bool:
    """Record on ``function`` (decorated by ``xw.func``) the type hint xlwings' special
    argument step finds for each of its parameters (``typing.get_type_hints``, a union
    with None unwrapped, None for a parameter without one), worked out once, for
    :func:`quick_special_args`. True when recorded (xlwings 0.37.x)."""
    import inspect
    import typing

    try:
        from xlwings.pro import udfs_officejs

        unwrap: Callable[[Any], Any] = udfs_officejs._unwrap_optional_hint
        found = typing.get_type_hints(function)
        names = inspect.signature(function).parameters
        hints = frozenset(unwrap(found.get(name)) for name in names)
    except Exception:  # another xlwings, or a hint that is not hashable: xlwings' own step
        return False
    setattr(function, SPECIAL_HINTS, hints)
    return True


def quick_special_args() -> bool:
    """Make xlwings' special-argument step (``provide_values_for_special_args``: the
    values xlwings Server or Lite inject for parameters annotated with one of their types,
    e.g. the calling cell, the user) answer at once for a function whose hints
    :func:`declare_special_hints` recorded, where none of them is a type the call injects
    (``typehint_to_value``): the arguments unchanged, as xlwings answers then. xlwings
    0.37.8 evaluates the function's type hints on every call (``typing.get_type_hints``
    and a hash of each ``Literal``: the NJ_* switches' dropdowns), 10-20 us a call; every
    other function, and any call that injects one of the function's hints, goes to
    xlwings' own step. True when the step was found and replaced (xlwings 0.37.x)."""
    try:
        from xlwings.pro import udfs_officejs
    except Exception:  # no licence key, or another xlwings: nothing to replace
        return False
    original = getattr(udfs_officejs, "provide_values_for_special_args", None)
    if not callable(original) or not callable(
        getattr(udfs_officejs, "_unwrap_optional_hint", None)
    ):
        return False
    if "provide_values_for_special_args" in REPLACED:
        return True

    def provide_values_for_special_args(
        func: Any, args: Any, typehint_to_value: dict[Any, Any] | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        hints = getattr(func, SPECIAL_HINTS, None)
        if hints is not None and (not typehint_to_value or hints.isdisjoint(typehint_to_value)):
            return tuple(args), {}
        return original(func, args, typehint_to_value)  # type: ignore[no-any-return]

    REPLACED["provide_values_for_special_args"] = original
    udfs_officejs.provide_values_for_special_args = provide_values_for_special_args
    return True


# =========================================================================== the request


class Refused(ValueError):
    """A call refused before xlwings Server reads it: the message is the 400's text."""


def _shown(value: object) -> str:
    """A value of the request, short (a list or an object by its size, not its items)."""
    if isinstance(value, list):
        small = len(value) <= 3 and all(not isinstance(v, list | dict) or not v for v in value)
        return json.dumps(value) if small else f"[a list of {len(value):,}]"
    if isinstance(value, dict):
        return f"{{an object of {len(value):,} keys}}" if value else "{}"
    text = json.dumps(value[:40] + "..." if isinstance(value, str) and len(value) > 40 else value)
    return text


#: The types of a plain cell value in the JSON of a call.
_SCALARS = frozenset({type(None), bool, int, float, str})


def _is_cell(value: object) -> bool:
    if type(value) in _SCALARS:
        return True
    # an Office.js data type (an error cell, a formatted number): xlwings reads these keys
    return isinstance(value, dict) and isinstance(value.get("type"), str) and "basicValue" in value


def _shape(value: object, where: str) -> int:
    """The cells of one argument as Office.js sends it, a cell or a range (a list of rows
    of one length, each a list), counted from its shape; raises :class:`Refused` for any
    other shape. The cells themselves are checked by :func:`_check_cells`."""
    if not isinstance(value, list):
        if _is_cell(value):
            return 1
        raise Refused(f"{where} = {_shown(value)}: not a cell value")
    if not value:
        raise Refused(f"{where} = []: a range has at least one row")
    width = len(value[0]) if isinstance(value[0], list) else 0
    for row in value:
        if not isinstance(row, list):
            raise Refused(f"{where}: a range is a list of rows, not {_shown(row)}")
        if len(row) != width or not row:
            raise Refused(f"{where}: a range's rows have one length, at least 1")
    return width * len(value)


def _check_cells(value: object, where: str) -> None:
    """Every cell of a range (already shaped by :func:`_shape`) a cell value."""
    if not isinstance(value, list):
        return
    for row in value:
        if not _SCALARS.issuperset(map(type, row)):  # the common case at C speed
            for cell in row:
                if not _is_cell(cell):
                    raise Refused(f"{where}: {_shown(cell)} is not a cell value")


def check_call(data: object, module: Any, max_cells: int = MAX_CELLS) -> None:
    """Raise :class:`Refused` unless ``data`` is a call xlwings Server can run: a JSON
    object with ``func_name`` naming a custom function of ``module`` (exactly as
    registered) and ``args`` a list of at most as many arguments as it takes (more only
    for its repeating argument), each a cell or a range, with at most ``max_cells``
    cells in all."""
    if not isinstance(data, dict):
        raise Refused(
            f"the request is {_shown(data)}: a custom function call is a JSON object "
            "with func_name and args"
        )
    for key in ("func_name", "args", "version", "client"):
        if key not in data:
            raise Refused(f"the request has no {key}: a custom function call has func_name, "
                          "args, version and client")  # fmt: skip
    name = data["func_name"]
    function = getattr(module, name, None) if isinstance(name, str) else None
    info = getattr(function, "__xlfunc__", None)
    if not isinstance(info, dict):
        known = [n for n in dir(module) if hasattr(getattr(module, n, None), "__xlfunc__")]
        close = [n for n in known if isinstance(name, str) and n.upper() == name.upper()]
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise Refused(f"func_name = {_shown(name)}: not a function of this server{hint}")
    args = data["args"]
    if not isinstance(args, list):
        raise Refused(f"args = {_shown(args)}: must be a list of {name}'s arguments")
    declared = info.get("args", [])
    repeating = bool(declared) and bool(declared[-1].get("vararg"))
    if len(args) > len(declared) and not repeating:
        raise Refused(f"{name} takes at most {len(declared)} arguments ({len(args)} given)")
    if not isinstance(data["version"], str):
        raise Refused(f"version = {_shown(data['version'])}: must be the client's version text")
    parts: list[tuple[str, object]] = []
    for index, value in enumerate(args):
        spec = declared[min(index, len(declared) - 1)] if declared else {}
        label = f"argument {index + 1} ({spec.get('name', '?')})"
        if spec.get("vararg"):
            if not isinstance(value, list):
                raise Refused(f"{label} = {_shown(value)}: a repeating argument is a list")
            parts.extend((label, part) for part in value)
        else:
            parts.append((label, value))
    total = sum(_shape(value, label) for label, value in parts)
    if total > max_cells:
        raise Refused(
            f"args: {total:,} cells, more than {max_cells:,} in one call "
            "(NJ_INCENTIVES_MAX_REQUEST_CELLS); split the range"
        )
    for label, value in parts:
        _check_cells(value, label)


def check_body(body: bytes, module: Any, max_cells: int = MAX_CELLS) -> None:
    """:func:`check_call` on a request body (raises :class:`Refused` for a body that is
    empty or not JSON)."""
    if not body.strip():
        raise Refused("the request body is empty: a custom function call is a JSON "
                      "object with func_name and args")  # fmt: skip
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Refused(
            f"the request body is not UTF-8 (byte {error.start + 1:,}): JSON is UTF-8 text"
        ) from None
    try:
        data = json.loads(text, parse_int=_whole)
    except RecursionError:
        raise Refused("the request body is not JSON (nested too deep)") from None
    except json.JSONDecodeError as error:
        raise Refused(f"the request body is not JSON ({error.msg})") from None
    check_call(data, module, max_cells)


#: The most digits of a whole number in a call (a cell holds 15 significant digits;
#: Office.js sends larger numbers in exponent form).
MAX_DIGITS = 30


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise Refused(
            f"a number of {len(text.lstrip('-')):,} digits: a cell's number has at most 15 "
            "significant digits"
        )
    return int(text)


def _limit(variable: str, default: int) -> int:
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{variable} = {text!r}: must be a whole number") from None
    if value < 1:
        raise ValueError(f"{variable} = {text!r}: must be at least 1")
    return value


class RequestGuard:
    """ASGI middleware: every HTTP request's body (a POST to any route: the custom
    functions, the custom scripts, the task pane's) is read first, up to ``max_bytes``
    and within ``body_seconds`` from the first byte asked for to the last, else refused
    (400, or 408 for a body that arrives too slowly). A POST to
    ``.../xlwings/custom-functions-call`` is then parsed and checked
    (:func:`check_call`) off the event loop and refused with 400 and a one-line message
    or passed on; every other request is passed on with its body unchanged."""

    def __init__(
        self,
        app: ASGIApp,
        module: Callable[[], Any],
        max_bytes: int | None = None,
        max_cells: int | None = None,
        body_seconds: int | None = None,
    ) -> None:
        self.app = app
        self.module = module  # the served functions (looked up when first needed)
        self.max_bytes = max_bytes or _limit("NJ_INCENTIVES_MAX_REQUEST_BYTES", MAX_BYTES)
        self.max_cells = max_cells or _limit("NJ_INCENTIVES_MAX_REQUEST_CELLS", MAX_CELLS)
        self.body_seconds = body_seconds or _limit("NJ_INCENTIVES_BODY_SECONDS", BODY_SECONDS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        call = scope.get("method") == "POST" and str(scope.get("path", "")).endswith(CALL_PATH)
        try:
            try:
                body = await asyncio.wait_for(self._body(scope, receive), self.body_seconds)
            except TimeoutError:
                await self._refuse(
                    send,
                    f"the request body did not arrive within {self.body_seconds} s "
                    "(NJ_INCENTIVES_BODY_SECONDS)",
                    408,
                )
                return
            if call:
                await asyncio.to_thread(self._check, body)
        except Refused as refused:
            await self._refuse(send, str(refused))
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # http.disconnect

        await self.app(scope, replay, send)

    async def _body(self, scope: Scope, receive: Receive) -> bytes:
        limit = f"at most {self.max_bytes:,} bytes (NJ_INCENTIVES_MAX_REQUEST_BYTES)"
        for key, value in scope.get("headers", []):
            if key.lower() == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    raise Refused(f"Content-Length = {value.decode(errors='replace')!r}: "
                                  "not a number") from None  # fmt: skip
                if declared > self.max_bytes:
                    raise Refused(f"a request body of {declared:,} bytes: {limit}")
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise Refused("the client disconnected")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                raise Refused(f"a request body of more than {self.max_bytes:,} bytes: {limit}")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _check(self, body: bytes) -> None:
        check_body(body, self.module(), self.max_cells)

    @staticmethod
    async def _refuse(send: Send, text: str, status: int = 400) -> None:
        body = text.replace("\r", " ").replace("\n", " ").encode()
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
        ]
        if status == 408:
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _served_module() -> Any:
    """The module xlwings Server serves (the project's ``custom_functions``)."""
    from xlwings_server.routers import xlwings as routes

    return routes.custom_functions


def _guarded_app() -> Any:
    """xlwings Server's ``main_app`` with :class:`RequestGuard` added to its FastAPI app
    (``add_middleware``, before the app starts): inside its CORS layer, so that a refusal
    carries the same CORS headers as any other answer (Excel on the web needs them)."""
    from xlwings_server import main

    main.app.add_middleware(RequestGuard, module=_served_module)
    return main.main_app


def _protocol() -> type:
    """uvicorn's HTTP/1.1 protocol (h11) with a deadline for each request's headers:
    :data:`HEADER_SECONDS` from the connection (or the previous answer) to the end of
    the headers, else the connection is answered 408 and closed. uvicorn has none: a
    client that sends its headers a byte at a time held a connection for ever."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    seconds = _limit("NJ_INCENTIVES_HEADER_SECONDS", HEADER_SECONDS)

    class Protocol(H11Protocol):
        _headers_due: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._await_headers()

        def _await_headers(self) -> None:
            if self._headers_due is not None:
                self._headers_due.cancel()
            self._headers_due = self.loop.call_later(seconds, self._headers_late)

        def _headers_late(self) -> None:
            self._headers_due = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                text = (
                    f"the request headers did not arrive within {seconds} s "
                    "(NJ_INCENTIVES_HEADER_SECONDS)"
                ).encode()
                self.transport.write(
                    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8"
                    + f"\r\ncontent-length: {len(text)}\r\nconnection: close\r\n\r\n".encode()
                    + text
                )
                self.transport.close()

        def handle_events(self) -> None:
            super().handle_events()
            if self._headers_due is not None and self.conn.their_state is not h11.IDLE:
                self._headers_due.cancel()  # the headers are in
                self._headers_due = None

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._await_headers()  # the next request's, on a kept-alive connection

        def connection_lost(self, exc: Exception | None) -> None:
            if self._headers_due is not None:
                self._headers_due.cancel()
                self._headers_due = None
            super().connection_lost(exc)

    Protocol.__qualname__ = Protocol.__name__ = "H11"
    return Protocol


def __getattr__(name: str) -> Any:
    """``app``: xlwings Server's app with :class:`RequestGuard`; ``H11``: uvicorn's
    HTTP protocol with a deadline for the headers (``uvicorn ... --http
    nj_incentives.serving:H11``); each built on first use (so that importing this
    module never imports xlwings Server or uvicorn)."""
    if name == "app":
        guarded = _guarded_app()
        globals()["app"] = guarded
        return guarded
    if name == "H11":
        protocol = _protocol()
        globals()["H11"] = protocol
        return protocol
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
