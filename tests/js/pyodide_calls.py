"""Runs inside Pyodide (tests/js/pyodide_run.mjs): install the wheels, call the functions.

``main(wheels, calls)`` installs each wheel from ``/wheels`` with micropip (no
dependency resolution: every wheel is given), imports ``nj_incentives.excel`` in
Office.js mode (as xlwings Lite does) and sends every Office.js payload of ``calls``
(JSON: ``{"cases": [...], "fuzz": [...]}``) through ``xlwings.server.custom_functions_call``.
Returns JSON: the runtime's versions and one outcome per call, ``{"result": cells}`` or
``{"error": type, "message": text}``, in the form tests/runtimes/test_runtime_pyodide.py computes
in CPython; for the fuzz calls (tests/fuzzcorpus.py, tests/runtimes/test_fuzz.py) also each
call's time in seconds (``time.process_time``, as tests/runtimes/test_fuzz.py measures it: CPU
time in CPython, the wall clock in Pyodide, whose ``clock()`` has no other), all in this
one process.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def outcome_json(outcome: dict[str, Any]) -> Any:
    """One outcome as plain JSON (cells pass through json; anything odd as its repr)."""
    return json.loads(json.dumps(outcome, default=repr))


async def run_calls(calls: list[dict[str, Any]], seconds: list[float] | None = None) -> list[Any]:
    """One outcome per call; each call's time appended to ``seconds`` when given."""
    import xlwings.server

    from nj_incentives.runtimes import xlwings_classic as excel

    outcomes = []
    for call in calls:
        started = time.process_time()
        try:
            result = await xlwings.server.custom_functions_call(call, excel)
            outcomes.append(outcome_json({"result": result}))
        except Exception as exc:
            outcomes.append({"error": type(exc).__name__, "message": str(exc)})
        if seconds is not None:
            seconds.append(time.process_time() - started)
    return outcomes


async def main(wheels: list[str], calls: str) -> str:
    import micropip

    for wheel in wheels:
        await micropip.install(f"emfs:/wheels/{wheel}", deps=False)
    # as in tests/conftest.py: the Office.js decorators, the noncommercial key (tests only)
    os.environ["XLWINGS_ON_SERVER"] = "true"
    os.environ["XLWINGS_LICENSE_KEY"] = "noncommercial"
    import pydantic
    import xlwings

    import nj_incentives

    batches = json.loads(calls)
    outcomes = await run_calls(batches["cases"])
    started = time.perf_counter()
    seconds: list[float] = []
    fuzz = await run_calls(batches["fuzz"], seconds)
    return json.dumps(
        {
            "platform": sys.platform,
            "python": sys.version.split()[0],
            "versions": {
                "xlwings": xlwings.__version__,
                "pydantic": pydantic.VERSION,
                "nj_incentives": nj_incentives.__version__,
            },
            "modules": sorted(name for name in ("numpy", "pandas") if _importable(name)),
            "outcomes": outcomes,
            "fuzz": {
                "outcomes": fuzz,
                "seconds": seconds,
                "total_s": time.perf_counter() - started,
            },
        }
    )


def _importable(name: str) -> bool:
    try:
        __import__(name)
    except ImportError:
        return False
    return True
