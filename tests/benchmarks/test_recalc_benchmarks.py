"""Benchmarks of the headless recalculation (issue 5): figures printed, never a failure.

Run with ``pytest tests/benchmarks/test_recalc_benchmarks.py -m benchmark -s``; the
figures go in docs/performance.md, "The engine: `formulas`".

The workbook is template-shaped: a legacy array formula over an explicit range whose
custom function returns a table with a header row, per-year formulas
(``IFERROR``/``SUM``), and checks (``AND``/``ISNUMBER``/``ABS``/``SUMPRODUCT``). The same
workbook is recalculated by ``formulas`` (through
:func:`nj_incentives.workpapers.recalc.recalculate`)
and, when it is importable, by ``pycel`` (not a dependency: install it next to the
project to compare, e.g. ``pip install --target /tmp/pycel pycel networkx`` and
``PYTHONPATH=/tmp/pycel``).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import xlsxwriter

from nj_incentives.workpapers.recalc import recalculate

pytestmark = pytest.mark.benchmark

ROUNDS = 3


def schedule(amounts: Any, pct: Any) -> list[list[Any]]:
    rows: list[list[Any]] = [["Year", "W", "P", "B", "C", "Grant", "Cumulative"]]
    total = 0.0
    for year, (amount,) in enumerate(amounts, 1):
        grant = amount * pct
        total += grant
        rows.append([year, amount, 0, grant, None, grant, total])
    return rows


def template_workbook(path: Path, years: int, per_row: int) -> int:
    """Write the benchmark workbook; returns its number of formulas."""
    book = xlsxwriter.Workbook(str(path))
    inputs = book.add_worksheet("Inputs")
    calc = book.add_worksheet("Calculations")
    checks = book.add_worksheet("Checks")
    inputs.write("B1", 0.5)
    for i in range(years):
        inputs.write(4 + i, 1, 1_000_000 + 1000 * i)
    last = 4 + years
    count = 0
    calc.write_array_formula(0, 0, years, 6, f"{{=NJ_SCHED(Inputs!B5:B{last},Inputs!B1)}}")
    count += 1
    for i in range(years):
        for j in range(per_row):
            calc.write_formula(
                years + 3 + i,
                j,
                f"=IFERROR(Calculations!F{i + 2}*{j + 1}/100+SUM(Inputs!B5:B{last})*0,0)",
            )
            count += 1
    for i in range(years):
        checks.write_formula(
            i,
            0,
            f"=AND(ISNUMBER(Calculations!F{i + 2}),"
            f"ABS(Calculations!F{i + 2}-Inputs!B{5 + i}*Inputs!B1)<0.005)",
        )
        count += 1
    checks.write_formula(years, 0, f"=SUMPRODUCT(--ISERROR(Calculations!A1:G{years + 1}))=0")
    checks.write_formula(years + 1, 0, f"=AND(A1:A{years + 1})")
    book.close()
    return count + 2


SIZES = [(10, 8), (10, 18), (20, 18), (40, 18)]


def test_formulas_engine_warm(tmp_path: Path) -> None:
    """In-process time per workbook once the engine is imported (what `calc` pays per file)."""
    template_workbook(tmp_path / "warmup.xlsx", 5, 2)
    recalculate(tmp_path / "warmup.xlsx", {"NJ_SCHED": schedule})
    print("\nformulas engine, warm (median of", ROUNDS, "runs):")
    for years, per_row in SIZES:
        path = tmp_path / f"t{years}x{per_row}.xlsx"
        count = template_workbook(path, years, per_row)
        times = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            result = recalculate(path, {"NJ_SCHED": schedule})
            times.append(time.perf_counter() - start)
        assert result.value("Checks!A" + str(years + 2)) is True
        print(
            f"  {count:5d} formulas: {statistics.median(times):.2f} s "
            f"(load+compile {result.load_seconds:.2f} s, calculate {result.calc_seconds:.2f} s)"
        )


def test_formulas_engine_cold(tmp_path: Path) -> None:
    """A fresh interpreter: import of the engine plus one workbook (what a first `calc` pays)."""
    path = tmp_path / "cold.xlsx"
    count = template_workbook(path, 10, 18)
    script = (
        "import sys, time; t = time.perf_counter();"
        "from nj_incentives.workpapers.recalc import recalculate;"
        "sys.path.insert(0, sys.argv[2]);"
        "from test_recalc_benchmarks import schedule;"
        "r = recalculate(sys.argv[1], {'NJ_SCHED': schedule});"
        "print(time.perf_counter() - t)"
    )
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", script, str(path), str(Path(__file__).parent)],
                check=True,
                capture_output=True,
                text=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        for _ in range(ROUNDS)
    ]
    print(f"\nformulas engine, cold process, {count} formulas: {statistics.median(times):.2f} s")


def test_pycel_for_comparison(tmp_path: Path) -> None:
    """pycel on the same workbooks, if importable (with its openpyxl 3.1 shim)."""
    pycel = pytest.importorskip("pycel")
    import openpyxl
    import pycel.excelwrapper as wrapper

    def defined_names(self: Any) -> dict[str, Any]:  # openpyxl 3.1: no .definedName
        if self.workbook is not None and self._defined_names is None:
            self._defined_names = {}
            for name, d_name in self.workbook.defined_names.items():
                found = [(a, w) for w, a in d_name.destinations if w in self.workbook]
                if found:
                    self._defined_names[str(name)] = found
        return self._defined_names  # type: ignore[no-any-return]

    wrapper.ExcelOpxWrapper.defined_names = property(defined_names)
    plugin = tmp_path / "nj_plugin.py"
    plugin.write_text(
        "def nj_sched(amounts, pct):\n"
        "    rows = [('Year', 'W', 'P', 'B', 'C', 'Grant', 'Cumulative')]\n"
        "    total = 0.0\n"
        "    for year, (amount,) in enumerate(amounts, 1):\n"
        "        grant = amount * pct\n"
        "        total += grant\n"
        "        rows.append((year, amount, 0, grant, None, grant, total))\n"
        "    return tuple(rows)\n"
    )
    sys.path.insert(0, str(tmp_path))
    version = pycel.version.__version__
    print(f"\npycel {version}, full recalculation (median of {ROUNDS} runs):")
    for years, per_row in SIZES:
        path = tmp_path / f"p{years}x{per_row}.xlsx"
        count = template_workbook(path, years, per_row)
        book = openpyxl.load_workbook(path)
        addresses = [
            f"{ws.title}!{c.coordinate}"
            for ws in book.worksheets
            for row in ws.iter_rows()
            for c in row
            if c.data_type == "f"
        ]
        times = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            compiler = pycel.ExcelCompiler(filename=str(path), plugins=["nj_plugin"])
            for address in addresses:  # builds the graph (cached values are used here)
                compiler.evaluate(address)
            compiler.recalculate()  # then every formula again, from the inputs
            values = [compiler.evaluate(address) for address in addresses]
            times.append(time.perf_counter() - start)
        assert values[-1] is True
        print(f"  {count:5d} formulas: {statistics.median(times):.2f} s")
