"""The floor of the README's main job (issue 23 item 3): what ``nj-incentives calc`` cannot
avoid doing for its workbooks, and nothing else.

``python main_job_floor.py record RECORD WORKBOOK...`` (untimed, once) recalculates each
workbook as ``calc`` does (its template's prebuilt form, the full recalculation's values
field by field: tests/workpapers/recalc/test_recalc_prebuilt.py) and writes to RECORD (a
pickle) every NJ_* call it made, with the cell values the function received, and the
recalculated cells. (Until session 14 it recalculated each in full: about a minute of
compiling the engine's model for the six bundled examples, for the same calls and cells.)

``python main_job_floor.py run RECORD OUT WORKBOOK...`` (timed, a fresh process) is the
floor: import what opening, calling and writing need (the package's functions, without
xlwings as ``calc`` imports them, and the results writer); open each workbook (vetted as
untrusted and its cells read, :func:`nj_incentives.workpapers.recalc.prebuilt.read_graph`);
make each of its NJ_* calls through the package's functions with the recorded arguments
(the cell conventions and the core: no formula engine, no native formula); and write its
results workbook
(:func:`nj_incentives.workpapers.recalc.write_values`) with the recorded values to
``OUT/<stem>-results.xlsx``. No memo, no run stamp, no summary: ``calc``'s ratio to this
floor counts those as overhead. ``tests/benchmarks/test_main_job_floor.py`` checks that the floor's
results workbooks hold the same values as ``calc``'s and that it makes the same calls.
"""

from __future__ import annotations

import pickle
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any


def record(target: Path, workbooks: list[Path]) -> None:
    """Recalculate each workbook as ``calc`` does; pickle its calls and its recalculated
    cells."""
    from nj_incentives.workpapers.recalc import engine, prebuilt
    from nj_incentives.workpapers.recalc.safety import vet_workbook

    table = engine.default_functions()
    found: dict[str, Any] = {}
    for path in workbooks:
        calls: list[tuple[str, tuple[Any, ...]]] = []

        def recording(name: str, calls: list[tuple[str, tuple[Any, ...]]] = calls) -> Any:
            function = table[name]

            def call(*args: Any) -> Any:
                calls.append((name, args))
                return function(*args)

            return call

        functions = {name: recording(name) for name in table}
        result = prebuilt.recalculate_prebuilt(vet_workbook(path), functions)
        if result is None:  # not a shipped template's formulas: calc recalculates it in full
            calls.clear()
            result = engine.recalculate_vetted(
                vet_workbook(path), functions, error_text=engine.default_error_text
            )
        found[str(path)] = (calls, replace(result, vetted=None))
    target.write_bytes(pickle.dumps(found))


def run(recorded: Path, out: Path, workbooks: list[Path]) -> float:
    """The floor; returns its wall time from the first import."""
    start = time.perf_counter()
    from nj_incentives.functions import functions as plain
    from nj_incentives.workpapers.recalc import vet_workbook, write_values
    from nj_incentives.workpapers.recalc.prebuilt import read_graph

    functions = plain(errors="text")
    found = pickle.loads(recorded.read_bytes())
    out.mkdir(parents=True, exist_ok=True)
    for path in workbooks:
        calls, result = found[str(path)]
        vetted = vet_workbook(path)
        read_graph(vetted)
        for name, args in calls:
            functions[name](*args)
        write_values(replace(result, vetted=vetted), out / f"{path.stem}-results.xlsx")
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    if argv[:1] == ["record"] and len(argv) >= 3:
        record(Path(argv[1]), [Path(p) for p in argv[2:]])
        return 0
    if argv[:1] == ["run"] and len(argv) >= 4:
        seconds = run(Path(argv[1]), Path(argv[2]), [Path(p) for p in argv[3:]])
        print(f"{seconds:.3f}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
