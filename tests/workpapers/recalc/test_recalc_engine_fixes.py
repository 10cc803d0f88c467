"""Three corrections to the headless engine found while building the templates (issue 5):

- ``--`` turns TRUE/FALSE into 1/0 (``formulas`` folded it into a unary plus that kept
  booleans, so ``SUMPRODUCT(--(range>x))`` was always 0 and such checks could not fail);
- empty cells of a sheet's used rectangle are not compiled (same results, less time);
- the engine's statistics library is imported with scipy deferred until a workbook uses it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import xlsxwriter

from nj_incentives.workpapers.recalc import recalculate

pytestmark = pytest.mark.recalc


def workbook(path: Path, formulas: dict[str, str], values: dict[str, float]) -> Path:
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Calc")
    for cell, value in values.items():
        sheet.write_number(cell, value)
    for cell, formula in formulas.items():
        sheet.write_formula(cell, formula)
    book.close()
    return path


def test_double_negation_counts_booleans_as_excel_does(tmp_path: Path) -> None:
    # D1:D3 = 1, 2, 3 and E1:E3 = 1, 2, 4
    values = {"D1": 1, "D2": 2, "D3": 3, "E1": 1, "E2": 2, "E3": 4}
    formulas = {
        "A1": "=SUMPRODUCT(--(D1:D3>0))",  # 3
        "A2": "=SUMPRODUCT(--(D1:D3<E1:E3))",  # only 3 < 4: 1
        "A3": "=SUMPRODUCT(--ISNUMBER(D1:D3),--(D1:D3>1))",  # 2 and 3: 2
        "A4": "=--(D1>0)",  # 1, not TRUE
        "A5": "=SUMPRODUCT(--(D1:D3>E1:E3))=0",  # a check that holds: TRUE
        "A6": "=SUMPRODUCT(--(E1:E3>D1:D3))=0",  # a check that fails: FALSE
        "A7": "=D2--D1",  # binary minus of a negative: 2 - (-1) = 3
        "A8": "=-(D1>0)",  # -1
    }
    result = recalculate(workbook(tmp_path / "neg.xlsx", formulas, values), {})
    assert [result.value(f"Calc!A{n}") for n in range(1, 9)] == [3, 1, 2, 1, True, False, 3, -1]


def test_empty_cells_in_a_wide_sheet_still_read_as_blank(tmp_path: Path) -> None:
    # a value in Z40 makes the used rectangle A1:Z40; the formulas read empty cells in it
    formulas = {
        "A1": "=ISBLANK(C5)",
        "A2": "=C5+1",
        "A3": "=COUNTBLANK(B1:Y39)",
        "A4": "=SUM(Z1:Z40)",
        "A5": '=IF(C5="","blank","not")',
    }
    result = recalculate(workbook(tmp_path / "wide.xlsx", formulas, {"Z40": 7}), {})
    assert [result.value(f"Calc!A{n}") for n in range(1, 6)] == [True, 1, 24 * 39, 7, "blank"]


def test_scipy_is_imported_only_when_a_workbook_needs_it(tmp_path: Path) -> None:
    path = workbook(
        tmp_path / "stats.xlsx",
        {"B1": "=KURT(A1:A6)", "B2": "=SUM(A1:A6)"},
        {f"A{n}": v for n, v in enumerate([1, 2, 3, 4, 5, 10], 1)},
    )
    script = textwrap.dedent(
        """
        import sys
        from nj_incentives.workpapers.recalc.imports import import_engine
        import_engine()
        assert "scipy.stats" not in sys.modules, "scipy.stats imported with the engine"
        from formulas.functions import stat
        from nj_incentives.workpapers.recalc import recalculate
        result = recalculate(sys.argv[1], {})
        from scipy import stats
        assert type(sys.modules["scipy.stats"]).__name__ == "module"
        expected = stats.kurtosis([1, 2, 3, 4, 5, 10], fisher=True, bias=False)
        assert abs(result.value("Calc!B1") - expected) < 1e-12, result.value("Calc!B1")
        assert result.value("Calc!B2") == 25
        assert float(stat.interp1d([0, 1], [0, 2])(0.25)) == 0.5  # the deferred function
        print("ok")
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("XLWINGS_")}
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_engine_reads_a_saved_namespace_with_an_underscore() -> None:
    """The engine had its own copy of the spelling rule, whose saved-namespace pattern
    missed ``_xldudf_XLWINGS_DEV_`` (xlwings Server's dev namespace as Excel saves it);
    it now uses nj_incentives.runtimes.spelling, the one rule for every runtime."""
    from nj_incentives.workpapers.recalc.engine import function_variants

    found = function_variants(
        "=_xldudf_XLWINGS_DEV_NJ_BEIP_GRANT(1,0.2)+XLWINGS.NJ_BEIP_GRANT(1,0.2)",
        ["NJ_BEIP_GRANT"],
    )
    assert found == {
        "_XLDUDF_XLWINGS_DEV_NJ_BEIP_GRANT": "NJ_BEIP_GRANT",
        "XLWINGS.NJ_BEIP_GRANT": "NJ_BEIP_GRANT",
    }
