"""One parse rule for a list of numbers in one command-line option (issue 21 item 6).

``explain grant-schedule --withholdings 1,250,000`` read three grant years of $1.00,
$250.00 and $0.00 and exited 0, while ``explain grant 1,000,000 0.5`` read the same commas
as thousands separators. Now a comma that may be either is refused with a message that
says how to separate the years; semicolons separate values that carry thousands
separators; the scenario specs (``--grid``, ``--distributions``) follow the same rule.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.cli import EXIT_OK, EXIT_USAGE, main
from nj_incentives.scenarios import generate
from nj_incentives.scenarios.columns import ScenarioError
from nj_incentives.support.lists import ListError, ambiguous_comma, split_values

SCHEDULE = ["explain", "grant-schedule", "--pct", "50%", "--agreement-date", "2010-01-01"]


def test_the_issue_s_list_is_refused_with_how_to_separate_years(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [*SCHEDULE, "--withholdings", "1,250,000", "--new-employees", "60,60,60"]
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "--withholdings" in err
    assert "'1,250,000'" in err
    assert "may separate years or thousands (3 years: 1; 250; 000?)" in err
    assert "Separate years with semicolons" in err
    assert "1,250,000;1,300,000" in err
    assert "Traceback" not in err


def test_semicolons_separate_years_with_thousands_separators(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 50% of 1,250,000 / 1,300,000 / 1,000,000 = 625,000 + 650,000 + 500,000 = 1,775,000,
    # under the cap of 50,000 x 60 = 3,000,000 a year
    argv = [*SCHEDULE, "--withholdings", "1,250,000;1,300,000;1,000,000"]
    assert main([*argv, "--new-employees", "60;60;60"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "total: 1,775,000.00" in out
    assert "   1  1,250,000.00" in out


def test_the_same_years_without_thousands_separators_give_the_same_total(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [*SCHEDULE, "--withholdings", "1250000,1300000,1000000", "--new-employees", "60,60,60"]
    assert main(argv) == EXIT_OK
    assert "total: 1,775,000.00" in capsys.readouterr().out


def test_a_space_after_each_comma_separates(capsys: pytest.CaptureFixture[str]) -> None:
    assert split_values("100, 200, 300") == ["100", "200", "300"]
    # 50% of 100,000 x 3 = 150,000 (cap 50,000 x 100 a year, not reached)
    argv = [*SCHEDULE, "--withholdings", "100000, 100000, 100000"]
    assert main([*argv, "--new-employees", "100, 200, 300"]) == EXIT_OK
    assert "total: 150,000.00" in capsys.readouterr().out


def test_periods_follow_the_same_rule(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 3's worked example (tests/cli/test_cli_explain.py), its 2024 liability written
    # 10,000: in a comma-separated list, refused
    ertc = ["explain", "ertc", "--operations-start", "2023-01-01"]
    ertc += ["--year1-new", "10", "--year2-new", "8", "--periods"]
    periods = "2023-12-31:8000:0:2000,2024-12-31:10,000:1000:2000,2025-12-31:50000:0:2000"
    assert main([*ertc, periods]) == EXIT_USAGE
    assert "may separate periods or thousands" in capsys.readouterr().err
    # separated by semicolons, the amounts keep their separators: the example's figures
    # (2024 limit min(5,000, 8,000) - 1,000 = 4,000; refund 17,000 x 0.8 = 13,600)
    assert main([*ertc, periods.replace(",2024", ";2024").replace(",2025", ";2025")]) == EXIT_OK
    out = capsys.readouterr().out
    assert "2024-12-31   10,000.00   21,000.00   4,000.00   4,000.00  13,600.00    13,400.00" in out


def test_help_states_the_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "grant-schedule", "--help"]) == EXIT_OK
    out = " ".join(capsys.readouterr().out.split())
    assert "with semicolons when a value has thousands separators (1,250,000;1,300,000)" in out


@pytest.mark.parametrize(
    "spec",
    ["withholdings_1=1,250,000", "pct=0.5;year1_new=100,200"],
)
def test_a_grid_refuses_a_comma_that_may_separate_thousands(spec: str) -> None:
    with pytest.raises(ScenarioError, match="may separate values or thousands"):
        generate.parse_grid(spec)


def test_a_grid_reads_unambiguous_lists() -> None:
    grid = generate.parse_grid("pct=0.3,0.4;withholdings_1=1250000,1300000;year1_new=100, 200")
    assert grid == {
        "pct": [0.3, 0.4],
        "withholdings_1": [1250000, 1300000],
        "year1_new": [100, 200],
    }


def test_a_distribution_refuses_a_comma_that_may_separate_thousands() -> None:
    with pytest.raises(ScenarioError, match="may separate values or thousands"):
        generate.parse_distributions("withholdings_1=choice(1,250,000)")
    assert generate.parse_distributions("withholdings_1=choice(1250000, 1300000)")


_years = st.lists(st.integers(0, 10**9), min_size=1, max_size=6)


@given(_years)
def test_a_comma_list_is_read_as_written_or_refused_never_misread(years: list[int]) -> None:
    """Plain numbers: read exactly; with thousands separators: refused unless every
    value is under 1,000 (then no comma is inside a value)."""
    plain = ",".join(map(str, years))
    try:
        assert split_values(plain) == [str(y) for y in years]
    except ListError:
        assert ambiguous_comma(plain) is not None
    grouped = [f"{y:,}" for y in years]
    if any(y >= 1000 for y in years):
        with pytest.raises(ListError):
            split_values(",".join(grouped))
    if len(years) > 1:  # one value with separators: refused above, written 1250000
        assert split_values(";".join(grouped)) == grouped
