"""``nj-incentives explain``: one result with its steps and citations, from the command line."""

from __future__ import annotations

import click
import pytest

from nj_incentives.cli import main


def test_conversion_schedule_prints_installments_and_citations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 1,250,000 accrued in 2012, paragraph (1): 5% / 20% / 25% / 25% / 25% from 2017:
    # 62,500.00; 250,000.00; 312,500.00; 312,500.00; 312,500.00 (the remainder).
    assert main(["explain", "conversion", "2012", "1250000"]) == 0
    out = capsys.readouterr().out
    for line in ("2017   0.05   62,500.00", "2018   0.20  250,000.00", "2021   0.25  312,500.00"):
        assert line in out
    assert "[N.J.S.A. 34:1B-129e.(1)]" in out
    assert "total: 1,250,000.00" in out


def test_ertc_worked_example(capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 3's example: 2024 limit min(5,000, 8,000) - 1,000 = 4,000; refund
    # 17,000 x 0.8 = 13,600; carried out 3,400 + 10,000 = 13,400.
    periods = "2023-12-31:8000:0:2000,2024-12-31:10000:1000:2000,2025-12-31:50000:0:2000"
    argv = ["explain", "ertc", "--operations-start", "2023-01-01"]
    argv += ["--year1-new", "10", "--year2-new", "8", "--periods", periods]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "2024-12-31   10,000.00   21,000.00   4,000.00   4,000.00  13,600.00    13,400.00" in out


def test_bad_input_exits_1_with_the_core_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "grant", "1000000", "50"]) == 1  # as fill exits for it
    err = capsys.readouterr().err
    assert "pct = " in err
    assert "did you mean 50%?" in err
    assert "N.J.S.A. 34:1B-129a." in err


def test_min_tax(capsys: pytest.CaptureFixture[str]) -> None:
    # S corporation with 150,000 of NJ gross receipts: the $100,000-$250,000 bracket, $562.50.
    assert main(["explain", "min-tax", "150000", "--s-corporation"]) == 0
    assert "amount: 562.50" in capsys.readouterr().out


def test_every_topic_takes_its_arguments_from_the_catalog() -> None:
    """Nothing re-declares a calculation's arguments: each topic's parameters are its
    catalog entry's (names and help), less those one custom option stands for."""
    from nj_incentives.cli.explain import TOPICS, command
    from nj_incentives.functions.catalog import CALCULATIONS

    for name, topic in TOPICS.items():
        entry = CALCULATIONS[topic.calculation]
        params = {p.name: p for p in command.commands[name].params if p.name != "as_json"}
        expected = [a.name for a in entry.arguments if a.name not in topic.replaced]
        assert list(params)[: len(expected)] == expected
        for argument in entry.arguments:
            if argument.name not in params:
                continue
            param = params[argument.name]
            assert getattr(param, "help", None) == argument.doc
            if argument.name in topic.positional:
                assert isinstance(param, click.Argument)
            else:
                assert param.required == (not argument.optional)


def test_a_catalog_argument_the_old_command_lacked(capsys: pytest.CaptureFixture[str]) -> None:
    # cap_method comes with the catalog: 3 x 300,000 to a whole-term cap of
    # 50,000 x (10 + 12 + 2) / 3 = 400,000, paid in order: 300,000, 100,000, 0
    argv = ["explain", "grant-schedule", "--withholdings", "600000,600000,600000"]
    argv += ["--new-employees", "10,12,2", "--pct", "50%", "--agreement-date", "2010-01-01"]
    assert main([*argv, "--cap-method", "whole_term"]) == 0
    assert "total: 400,000.00" in capsys.readouterr().out
