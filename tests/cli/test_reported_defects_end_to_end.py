"""Issue 11's defects as the user met them: through the commands and the workbooks.

The unit-level regression tests (tests/core/test_inputs.py, test_hostile_files.py,
test_outputs.py, test_scenarios_csv_safety.py) pin each rule; these replay the
reported cases end to end: the ``scenarios`` command and NJ_SCENARIOS on a table
holding ``1e27``, ``calc`` on the examples with the reported bad cell typed in, and
two ``calc`` runs writing the same outputs.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc.run)
from nj_incentives.cli import EXIT_FAILED, main
from nj_incentives.programs.beip.templates import grant as beip_grant
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.runtimes import xlwings_classic as excel
from nj_incentives.support import files
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from nj_incentives.workpapers.templates.builder import build_template

EXAMPLES = DEFAULT_DIRECTORY / "examples"

AMOUNTS = ["1250000", "1e27", "1e30", "1e308", "5000"]


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_one_value_of_1e27_does_not_make_the_scenarios_command_abort_the_batch(
    tmp_path: Path, engine: str, capsys: Any
) -> None:
    # issue 11: a money cell of 1e27, 1e30 or 1e308 made `nj-incentives scenarios` print a
    # 44-56-line traceback and exit 1, writing nothing (pandas and Dask engines)
    if engine == "dask":
        pytest.importorskip("dask")
    source = tmp_path / "in.csv"
    rows = [f"R{k},2012,{amount}" for k, amount in enumerate(AMOUNTS)]
    source.write_text("id,accrual_year,conversion_amount\n" + "\n".join(rows) + "\n")
    out = tmp_path / "out.csv"
    status = main(["scenarios", str(source), "-o", str(out), "--engine", engine])
    captured = capsys.readouterr()
    assert status == EXIT_FAILED  # some rows have errors: said, not a crash
    assert "Traceback" not in captured.out + captured.err
    result = pd.read_csv(out, keep_default_na=False)
    assert result["id"].tolist() == [f"R{k}" for k in range(5)]  # rows out = rows in
    errors = result["error"].tolist()
    assert errors[0] == ""
    assert errors[4] == ""
    for k in (1, 2, 3):
        assert errors[k].startswith("conversion_amount = ")
        assert "scenario runner limit" in errors[k] or "Input bounds" in errors[k]
    assert result["conversion_total"].tolist()[4] == "5000.00"  # written to the cent


def test_one_value_of_1e27_does_not_make_nj_scenarios_refuse_the_table() -> None:
    # issue 11: NJ_SCENARIOS refused the whole table for one such cell
    table = [["id", "accrual_year", "conversion_amount"]]
    table += [[f"R{k}", 2012, float(amount)] for k, amount in enumerate(AMOUNTS)]
    header, *rows = excel.FUNCTIONS["NJ_SCENARIOS"](table)
    assert len(rows) == 5
    error = header.index("error")
    assert [bool(row[error]) for row in rows] == [False, True, True, True, False]


def _calc(tmp_path: Path, workbook: Path, capsys: Any) -> tuple[int, float, dict[str, Any]]:
    started = time.process_time()  # CPU time: another process's load does not count
    argv = ["calc", str(workbook), "-o", str(tmp_path / "out"), "--json", "--no-progress"]
    status = main(argv)
    elapsed = time.process_time() - started
    (entry,) = json.loads(capsys.readouterr().out)["workbooks"]
    return status, elapsed, entry


def test_hours_text_1e_minus_999999999_in_the_ertc_example_does_not_run_calc_past_300_s(
    tmp_path: Path, capsys: Any
) -> None:
    # issue 11: hours text 1e-999999999 in the ERTC example ran `calc` past 300 s
    values = copy.deepcopy(ertc_credit.EXAMPLE)
    values["employees"][0]["base"][0] = "1e-999999999"
    workbook = build_template(ertc_credit, tmp_path / "ertc.xlsx", values)
    status, elapsed, entry = _calc(tmp_path, workbook, capsys)
    # the whole recalculation, in CPU seconds: a generous bound (a few seconds typical), no
    # runaway (the defect ran past 300 s); no test asserts wall time
    assert elapsed < 120
    assert status == EXIT_FAILED
    assert entry["master_check"] is False
    first = entry["rejected_inputs"][0]["message"]
    assert first.startswith("#VALUE! hours = '1e-999999999': has an exponent beyond E100")


def test_a_date_with_trailing_text_does_not_pass_the_grant_example_with_a_true_master_check(
    tmp_path: Path, capsys: Any
) -> None:
    # issue 11: "2010-01-01 (approx.)" was read as 2010-01-01 and the grant example with it
    # passed `calc` with a TRUE master check
    values = copy.deepcopy(beip_grant.EXAMPLE)
    values["agreement_date"] = "2010-01-01 (approx.)"
    workbook = build_template(beip_grant, tmp_path / "grant.xlsx", values)
    status, _, entry = _calc(tmp_path, workbook, capsys)
    assert status == EXIT_FAILED
    assert entry["master_check"] is False
    messages = [rejected["message"] for rejected in entry["rejected_inputs"]]
    assert any("agreement_date = '2010-01-01 (approx.)': must be a date" in m for m in messages)


def test_two_calc_runs_writing_the_same_results_or_memo_do_not_both_exit_0_losing_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    # issue 11: two `calc` runs writing the same results name or memo both exited 0 and one
    # output was lost (20 of 20 rounds). Here the other run finishes while this one runs:
    # right after this run claims its outputs, the other's results and memo appear.
    workbook = EXAMPLES / "beip-credit-conversion-example.xlsx"
    target = tmp_path / "out" / "beip-credit-conversion-example-results.xlsx"
    memo = tmp_path / "memo.md"
    claim = files.claim

    def the_other_run_finishes_meanwhile(paths: Any) -> None:
        claim(paths)
        target.parent.mkdir(exist_ok=True)
        target.write_text("the other run's results")
        memo.write_text("the other run's memo")

    monkeypatch.setattr(files, "claim", the_other_run_finishes_meanwhile)
    argv = ["calc", str(workbook), "-o", str(target.parent), "--memo", str(memo), "--no-progress"]
    status = main(argv)
    captured = capsys.readouterr()
    assert status != 0  # said, not a silent exit 0
    assert target.read_text() == "the other run's results"  # the other run's output kept
    assert memo.read_text() == "the other run's memo"
    results = list(target.parent.glob("beip-credit-conversion-example-results.conflict-*.xlsx"))
    memos = list(tmp_path.glob("memo.conflict-*.md"))
    assert len(results) == 1  # and this run's, under a distinct name
    assert len(memos) == 1
    assert "another run wrote it while this one was running" in captured.out + captured.err
    assert str(memos[0]) in captured.out + captured.err
