"""The ``nj-incentives`` command as a whole: one framework, one set of exit codes, --json,
percentages as 50%, messages that name the option and the format."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.cli import EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE, main
from nj_incentives.programs.beip.templates import conversion as beip_conversion
from nj_incentives.workpapers.templates.builder import build_template

EXAMPLES = Path(__file__).resolve().parents[2] / "workbooks" / "examples"


def test_the_exit_codes_are_documented_in_the_help(capsys: Any) -> None:
    assert main(["--help"]) == EXIT_OK
    out = " ".join(capsys.readouterr().out.split())  # help text wraps lines
    assert "exit status:" in out
    for code, text in EXIT_CODES.items():
        assert f"{code} {' '.join(text.split())}" in out
    assert {"calc", "explain", "scenarios"} <= set(out.split())


@pytest.mark.parametrize(
    "argv",
    [
        ["nonsense"],
        ["explain", "grant"],  # a missing argument
        ["explain", "grant", "1000000", "0.5", "--no-such-option"],
        ["calc", "--no-such-option"],
        ["scenarios"],  # -o is required
    ],
)
def test_usage_errors_exit_2_everywhere(argv: list[str], capsys: Any) -> None:
    assert main(argv) == EXIT_USAGE
    assert "Error" in capsys.readouterr().err


def test_a_missing_file_exits_2_in_calc_and_in_scenarios(tmp_path: Path, capsys: Any) -> None:
    missing = tmp_path / "missing"
    assert main(["calc", str(missing.with_suffix(".xlsx")), "-o", str(tmp_path)]) == EXIT_USAGE
    assert main(["scenarios", str(missing.with_suffix(".csv")), "-o", str(tmp_path / "o.csv")]) == (
        EXIT_USAGE
    )
    err = capsys.readouterr().err
    assert "missing.xlsx: no such file" in err
    assert "input file not found" in err


def test_a_percent_is_accepted_where_the_hint_suggests_it(capsys: Any) -> None:
    # the hint for 50 says "did you mean 50%?": 50% is then taken, as 0.5 exactly:
    # 1,000,000.00 x 50% = 500,000.00
    # refused by its rule: 1, as fill exits for the same value
    assert main(["explain", "grant", "1000000", "50"]) == EXIT_FAILED
    assert "did you mean 50%?" in capsys.readouterr().err
    assert main(["explain", "grant", "1000000", "50%"]) == EXIT_OK
    assert "amount: 500,000.00" in capsys.readouterr().out
    # 12.5% of partners' tax 80,000 = 10,000.00
    argv = ["explain", "grant", "0", "0", "--partner-tax", "80000", "--partner-pct", "12.5%"]
    assert main(argv) == EXIT_OK
    assert "partners part: 10,000.00" in capsys.readouterr().out
    assert main(["explain", "grant", "1000000", "fifty%"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "'PCT'" in err
    assert "expected a fraction (0.5) or a percent (50%)" in err


def test_a_bad_periods_value_names_the_option_and_the_format(capsys: Any) -> None:
    argv = ["explain", "ertc", "--operations-start", "2023-01-01", "--year1-new", "10"]
    argv += ["--year2-new", "8", "--periods", "2024-12-31:10000"]
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "Invalid value for '--periods'" in err
    assert "END:LIABILITY:OTHER_CREDITS:MINIMUM_TAX" in err
    assert "_periods" not in err


def test_explain_json(capsys: Any) -> None:
    # S corporation with 150,000 of NJ gross receipts: the $100,000-$250,000 bracket, $562.50
    assert main(["explain", "min-tax", "150000", "--s-corporation", "--json"]) == EXIT_OK
    document = json.loads(capsys.readouterr().out)
    assert document["ok"] is True
    assert document["result"]["amount"] == "562.50"  # exact decimal text, not a float
    assert document["result"]["steps"][0]["citation"].startswith("N.J.S.A. 54:10A-5(e)")
    assert main(["explain", "grant", "1000000", "50", "--json"]) == EXIT_FAILED
    failed = json.loads(capsys.readouterr().out)
    assert failed["ok"] is False
    assert "did you mean 50%?" in failed["error"]


def test_calc_json_and_exit_1_for_a_failed_check(tmp_path: Path, capsys: Any) -> None:
    values = dict(beip_conversion.EXAMPLE)
    values["amounts"] = {**values["amounts"], 2014: "400k"}
    bad = build_template(beip_conversion, tmp_path / "bad.xlsx", values)
    good = EXAMPLES / "beip-credit-conversion-example.xlsx"
    argv = ["calc", str(good), str(bad), "-o", str(tmp_path / "out"), "--json"]
    assert main(argv) == EXIT_FAILED
    captured = capsys.readouterr()
    document = json.loads(captured.out)  # stdout is the JSON document alone
    assert document["status"] == EXIT_FAILED
    first, second = document["workbooks"]
    assert first["master_check"] is True
    assert first["failed_checks"] == []
    assert any(o["label"] == "Total tax credit issued" for o in first["outputs"])
    assert set(first["engagement"]) >= {"Client", "Preparer", "Reviewer"}
    assert second["master_check"] is False
    assert any("2014" in f["check"] for f in second["failed_checks"])
    assert "amount = '400k'" in second["rejected_inputs"][0]["message"]
    assert "MASTER CHECK FALSE" in captured.err


def test_scenarios_json(tmp_path: Path, capsys: Any) -> None:
    source = EXAMPLES / "scenarios.csv"
    assert main(["scenarios", str(source), "-o", str(tmp_path / "r.csv"), "--json"]) == (
        EXIT_FAILED  # one row of the example has an error (pct = 50)
    )
    document = json.loads(capsys.readouterr().out)
    assert document["rows"] == 10
    assert document["rows_with_errors"] == 1
    assert document["errors"][0]["row"] == "row 10 (id bad-pct)"
    assert str(tmp_path / "r.csv") in document["written"]


def test_bins_must_be_a_number_or_a_rule(tmp_path: Path, capsys: Any) -> None:
    source = EXAMPLES / "scenarios.csv"
    argv = ["scenarios", str(source), "-o", str(tmp_path / "r.csv"), "--bins", "lots"]
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "Invalid value for '--bins'" in err
    assert "auto" in err


def test_explain_starts_without_pandas_or_the_formula_engine() -> None:
    code = (
        "import sys; from nj_incentives.cli import main; "
        "status = main(['explain', 'min-tax', '150000']); "
        "heavy = [m for m in ('pandas', 'formulas', 'openpyxl', 'matplotlib') "
        "if m in sys.modules]; "
        "print(status, heavy)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip().splitlines()[-1] == "0 []"


def test_grid_and_distribution_specs_take_percents() -> None:
    from nj_incentives.scenarios.generate import parse_distributions, parse_grid

    # 30% = 0.3 exactly; a range of percents: 0%, 25%, 50%
    assert parse_grid("pct=30%,40%,50%") == parse_grid("pct=0.3,0.4,0.5")
    assert parse_grid("pct=0%:50%:25%") == {"pct": [0, 0.25, 0.5]}
    (draw,) = parse_distributions("pct=uniform(20%,50%)")
    assert draw.describe() == "uniform(0.2,0.5)"


# --------------------------------------------------------------------------- progress


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> Any:
    """Called in the test: standard error as a terminal (the test's captured stream: not
    the one fixtures see), and a function of ``module`` slowed down by ``seconds``."""

    def slow(module: Any, name: str, seconds: float) -> None:
        monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
        original = getattr(module, name)

        def slowed(*args: Any, **kwargs: Any) -> Any:
            time.sleep(seconds)
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, slowed)

    return slow


@pytest.mark.parametrize(("delay", "shown"), [(0.2, True), (600.0, False)])
def test_scenarios_show_progress_once_the_run_lasts_the_delay(
    delay: float, shown: bool, terminal: Any, tmp_path: Path, capsys: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    # before: a bar only from 200,000 rows; now from 2 s, whatever the size (10 rows here,
    # one step made to last 0.8 s: the bar is drawn while it runs, after `delay`)
    from nj_incentives.scenarios import runner
    from nj_incentives.support import progress

    monkeypatch.setattr(progress, "PROGRESS_DELAY", delay)
    terminal(runner, "_isolated_chunk", 0.8)
    argv = ["scenarios", str(EXAMPLES / "scenarios.csv"), "-o", str(tmp_path / "r.csv")]
    assert main(argv) == EXIT_FAILED  # the example's bad-pct row
    err = capsys.readouterr().err
    assert ("scenarios:" in err and "row" in err) is shown, err


@pytest.mark.parametrize(("delay", "shown"), [(0.2, True), (600.0, False)])
def test_calc_shows_progress_once_the_run_lasts_the_delay(
    delay: float, shown: bool, terminal: Any, tmp_path: Path, capsys: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    # before: a bar only for more than one workbook; now for one too, once it takes 2 s
    from nj_incentives.support import progress
    from nj_incentives.workpapers.recalc import prebuilt

    monkeypatch.setattr(progress, "PROGRESS_DELAY", delay)
    terminal(prebuilt, "recalculate_template", 0.8)
    workbook = EXAMPLES / "beip-grant-schedule-example.xlsx"
    assert main(["calc", str(workbook), "-o", str(tmp_path / "out")]) == EXIT_OK
    err = capsys.readouterr().err
    assert ("workbook" in err and "0/1" in err) is shown, err


def test_no_progress_means_none_and_progress_means_at_once(
    terminal: Any, tmp_path: Path, capsys: Any
) -> None:
    source = str(EXAMPLES / "scenarios.csv")
    from nj_incentives.scenarios import runner

    terminal(runner, "_isolated_chunk", 0.0)
    main(["scenarios", source, "-o", str(tmp_path / "a.csv"), "--no-progress"])
    assert "row/s" not in capsys.readouterr().err
    main(["scenarios", source, "-o", str(tmp_path / "b.csv"), "--progress"])
    assert "scenarios:   0%" in capsys.readouterr().err  # at once: a 0.1 s run


# --------------------------------------------------------------------------- 50% in cells


def test_percent_text_in_a_scenario_cell_is_the_fraction_it_writes(tmp_path: Path) -> None:
    # before: "50%" in a pct cell was refused as "must be a number", though the error for
    # 50 says "did you mean 50%?"; now it is read as 0.5 exactly, on both paths
    import pandas as pd

    from nj_incentives.scenarios import run_scenarios

    base = {"agreement_date": "2010-01-01", "term": 5, "withholdings_1": 600000}
    percents = pd.DataFrame(
        [
            {**base, "id": "a", "pct": "50%", "partner_pct": "30 %", "new_employees_1": 10},
            {**base, "id": "b", "pct": " 12.5% ", "new_employees_1": 10},
            # more decimals than the kernel's 10^-9: the row goes to the core (scalar path)
            {**base, "id": "c", "pct": "33.3333333333%", "new_employees_1": 10},
        ]
    )
    fractions = percents.assign(pct=[0.5, 0.125, 0.333333333333], partner_pct=[0.3, None, None])
    got, want = run_scenarios(percents), run_scenarios(fractions)
    assert got["error"].isna().all(), got["error"].tolist()
    pd.testing.assert_frame_equal(got, want)
    assert got["grant_total"].notna().all()
    assert got.loc[0, "grant_total"] != got.loc[1, "grant_total"]  # 50% is not 12.5%


def test_malformed_or_out_of_range_percent_text_names_the_rule(tmp_path: Path) -> None:
    import pandas as pd

    from nj_incentives.scenarios import run_scenarios

    base = {"agreement_date": "2010-01-01", "term": 5, "withholdings_1": 600000}
    rows = [
        {**base, "id": i, "pct": pct, "new_employees_1": 10}
        for i, pct in enumerate(("150%", "fifty%", "%", "-5%"))
    ]
    errors = run_scenarios(pd.DataFrame(rows))["error"].tolist()
    assert errors[0] == "pct = '150%': a percentage is at most 100% (N.J.S.A. 34:1B-129a.)"
    assert errors[1] == "pct = 'fifty%': must be a number (N.J.S.A. 34:1B-129a.)"
    assert errors[2] == "pct = '%': must be a number (N.J.S.A. 34:1B-129a.)"
    assert errors[3] == "pct = '-5%': must not be negative (N.J.S.A. 34:1B-129a.)"


@given(st.decimals(min_value=0, max_value=1, places=7))
def test_percent_text_reads_back_exactly(fraction: Decimal) -> None:
    from nj_incentives.core.inputs import as_fraction

    text = f"{(fraction * 100).normalize():f}%"
    assert as_fraction(text, "pct") == fraction
