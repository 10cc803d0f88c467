"""The main job's floor (tests/benchmarks/main_job_floor.py, issue 23 item 3) writes what
``nj-incentives calc`` writes: the same results workbooks, cell for cell, from the same
NJ_* calls; so the benchmark's ratio compares the same outcome.

The floor's record recalculates each example as ``calc`` does (its template's prebuilt
form); that this is the full recalculation's values and calls, field by field, is
tests/workpapers/recalc/test_recalc_prebuilt.py's (every example and blank template)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from nj_incentives.cli import calc

FLOOR = Path(__file__).with_name("main_job_floor.py")

pytestmark = pytest.mark.slow


def cells(path: Path) -> dict[tuple[str, str], Any]:
    book = openpyxl.load_workbook(path)
    return {
        (sheet.title, cell.coordinate): cell.value
        for sheet in book.worksheets
        for row in sheet.iter_rows()
        for cell in row
        if cell.value is not None
    }


def test_the_floor_writes_what_calc_writes(tmp_path: Path) -> None:
    examples = calc.bundled_examples()
    assert len(examples) == len(calc.BUNDLED_EXAMPLES)  # every one the registry ships
    record = tmp_path / "calls.pickle"
    command = [sys.executable, str(FLOOR)]
    subprocess.run([*command, "record", str(record), *map(str, examples)], check=True)
    subprocess.run(
        [*command, "run", str(record), str(tmp_path / "floor"), *map(str, examples)],
        check=True,
        capture_output=True,
    )
    assert calc.run(examples, tmp_path / "calc") == 0
    for example in examples:
        name = f"{example.stem}-results.xlsx"
        floor, made = cells(tmp_path / "floor" / name), cells(tmp_path / "calc" / name)
        assert floor == made, name
        assert len(floor) > 100  # a results workbook, not an empty one

    import pickle

    recorded = pickle.loads(record.read_bytes())
    from nj_incentives.workpapers.recalc import prebuilt
    from nj_incentives.workpapers.recalc.safety import vet_workbook

    for example in examples:
        calls, _result = recorded[str(example)]
        made_calls = prebuilt.recalculate_template(vet_workbook(example)).calls
        assert len(calls) == sum(made_calls.values()), example.name
