"""The Grow NJ and Emerge credit-schedule templates (issue 33 item 5): each example is the
worked example of tests/programs/test_grow_nj_emerge.py, recalculated as ``calc`` does it
to the core's figures to the cent; a bad transfer or surrender fails the checks with the
rule and its citation; ``fill`` and ``rollforward`` reach both through the registry.

After a deliberate change to a template, rebuild: ``python -m
nj_incentives.workpapers.templates.build``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from nj_incentives.cli import main
from nj_incentives.programs import template
from nj_incentives.programs.emerge import rules as emerge
from nj_incentives.programs.grow_nj import rules as grow
from nj_incentives.workpapers.memo import checks
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from tooling import recalculate_as_calc as recalculate

pytestmark = pytest.mark.recalc

D = Decimal
EXAMPLES = DEFAULT_DIRECTORY / "examples"
GROW = EXAMPLES / "grow-nj-credit-schedule-example.xlsx"
EMERGE = EXAMPLES / "emerge-credit-schedule-example.xlsx"
HEADER = [
    "Period",
    "Period end",
    "New credit",
    "Carried in",
    "Limit",
    "Used",
    "Transferred",
    "Sold to State",
    "Proceeds",
    "Expired",
    "Carried out",
]
FIELDS = [
    "period",
    "period_end",
    "new_credit",
    "carried_in",
    "limit",
    "used",
    "transferred",
    "sold",
    "proceeds",
    "expired",
    "carried_out",
]


def _events(values: dict[str, Any]) -> list[list[object]]:
    keys = ("event_kind", "event_date", "event_period", "event_amount", "event_price")
    columns = [values[k] for k in (*keys, "event_issued")]
    return [list(row) for row in zip(*columns, strict=True)]


def _rows(table: list[list[object]]) -> list[list[object]]:
    """The schedule's rows as the core's values: dates as dates, money as Decimal."""
    found = []
    for row in table[1:]:
        if not isinstance(row[0], (int, float)):
            break
        end = dt.date(1899, 12, 30) + dt.timedelta(days=int(row[1]))  # type: ignore[arg-type]
        found.append([int(row[0]), end, *(D(str(v)).quantize(D("0.01")) for v in row[2:])])
    return found


def _core(ledger: Any) -> list[list[object]]:
    return [[getattr(row, field) for field in FIELDS] for row in ledger.rows]


@pytest.fixture(scope="module")
def grow_example() -> Any:
    return recalculate(GROW)


@pytest.fixture(scope="module")
def emerge_example() -> Any:
    return recalculate(EMERGE)


def test_the_grow_nj_example_is_the_ten_year_worked_example(grow_example: Any) -> None:
    # Award 1,000,000.00 over 10 years: 1,000,000 / 10 = 100,000.00 a period (19:31Q-1.9(a));
    # periods ending 2020-12-31 to 2031-12-31; 40,000 of tax a period through 2029, 0 after.
    # 2022: a transfer certificate sells 50,000 of period 2's credit for 40,000
    #   (>= 25,000; 40,000 >= 75% x 50,000 = 37,500: 34:1B-248).
    # 2026-06-30: period 5's credit (100,000, whole: periods 1-3 cover the 240,000 used and
    #   the 50,000 transferred) is sold to the State. It may be used through period 5 + 20
    #   = 25, ending 2044-12-31; presented more than 3 years before: at most 20%
    #   (18:34-1.7(a)1): 100,000 x 20% = 20,000.00.
    # Totals: used 40,000 x 10 = 400,000; proceeds 40,000 + 20,000 = 60,000; carried
    # forward 1,000,000 - 400,000 - 50,000 - 100,000 - 0 expired = 450,000.00.
    found = grow_example
    assert found.value("MasterCheck") is True
    assert found.error_cells() == []
    assert found.function_errors == ()
    values = dict(template("grow-nj-credit-schedule").EXAMPLE)
    core = grow.credit_schedule(
        values["award"],
        values["first_period_end"],
        values["liabilities"],
        values["eligibility_years"],
        _events(values),
    )
    table = found.value("Schedule")
    assert table[0] == HEADER
    assert _rows(table) == _core(core)
    figures = {
        name: found.value(name)
        for name in (
            "AnnualCredit",
            "TotalAllowed",
            "TotalUsed",
            "TotalTransferred",
            "TotalSold",
            "TotalProceeds",
            "TotalExpired",
            "CarriedForward",
        )
    }
    assert figures == {
        "AnnualCredit": 100_000.0,
        "TotalAllowed": 1_000_000.0,
        "TotalUsed": 400_000.0,
        "TotalTransferred": 50_000.0,
        "TotalSold": 100_000.0,
        "TotalProceeds": 60_000.0,
        "TotalExpired": 0.0,
        "CarriedForward": 450_000.0,
    }


def test_calc_return_2022_of_the_grow_nj_example(grow_example: Any, tmp_path: Path) -> None:
    # Tax year 2022 is period 3 (ending 2022-12-31). Period 1: 100,000 new - 40,000 used
    # = 60,000 out. Period 2: 60,000 + 100,000 - 40,000 = 120,000 out. Period 3: 120,000
    # in + 100,000 new - 40,000 used (the 40,000 liability) - 50,000 transferred (the
    # 2022-06-30 certificate, for 40,000 of proceeds) = 130,000.00 carried forward. The
    # 2022 edition of Form 320 numbers the approved credit Part II line 3 and the credit
    # carried in line 4; the 40,000 used goes on Schedule A-3's Grow NJ line.
    block = template("grow-nj-credit-schedule").RETURN(grow_example.value, 2022)
    assert block.period_end == dt.date(2022, 12, 31)
    got = {
        line.label: (line.amount, line.line.label(what=False) if line.line else None)
        for line in block.lines
    }
    assert got["Credit allowed for the period (new credit)"] == (
        D("100000.00"),
        "Form 320 (2022 edition) Part II, line 3",
    )
    assert got["Credit carried in from the prior period"] == (
        D("120000.00"),
        "Form 320 (2022 edition) Part II, line 4",
    )
    assert got["Allowable credit (used)"][0] == got["Grow NJ credit"][0] == D("40000.00")
    assert "Grow New Jersey" in (got["Grow NJ credit"][1] or "")
    assert got["Transferred (transfer certificates)"][0] == D("50000.00")
    assert got["Proceeds of transfers and sales"][0] == D("40000.00")
    assert got["Carried forward"] == (D("130000.00"), None)
    assert template("grow-nj-credit-schedule").RETURN(grow_example.value, 2019) is None
    # calc --return prints the same block
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(
            ["calc", str(GROW), "--return", "2022", "--no-progress", "--json", "-o", str(tmp_path)]
        )
    assert code == 0, out.getvalue()
    printed = json.dumps(json.loads(out.getvalue()))
    assert "130000" in printed
    assert "Form 320" in printed


def test_the_emerge_example_is_the_surrender_worked_example(emerge_example: Any) -> None:
    # Award 700,000.00 over 7 years: 700,000 / 7 = 100,000.00 a period (19:31U-1.11(a));
    # periods ending 2023-12-31 to 2032-12-31, 30,000 of tax each. Period 3's credit, issued
    # 2025-03-15, surrendered 2027-03-15: exactly 2 years later, allowed (18:34-1.7(b));
    # by then 30,000 x 4 = 120,000 of periods 1-2 was used, so it is whole:
    # 100,000 x 90% = 90,000.00, in period 5 (ending 2027-12-31, itself allowed 100,000).
    # Used 30,000 x 10 = 300,000, oldest first, none kept past its 7 periods: expired 0;
    # carried forward 700,000 - 300,000 - 100,000 = 300,000.00 (periods 5-7's credits).
    found = emerge_example
    assert found.value("MasterCheck") is True
    assert found.error_cells() == []
    assert found.function_errors == ()
    values = dict(template("emerge-credit-schedule").EXAMPLE)
    core = emerge.credit_schedule(
        values["award"],
        values["first_period_end"],
        values["liabilities"],
        values["eligibility_years"],
        _events(values),
    )
    rows = _rows(found.value("Schedule"))
    assert rows == _core(core)
    assert rows[4][1:3] == [dt.date(2027, 12, 31), D("100000.00")]  # period 5
    assert rows[4][7:9] == [D("100000.00"), D("90000.00")]  # sold, proceeds
    assert (found.value("AnnualCredit"), found.value("TotalExpired")) == (100_000.0, 0.0)
    assert found.value("CarriedForward") == 300_000.0


def _with(source: Path, tmp_path: Path, **cells: object) -> Path:
    """A copy of ``source`` with the first cell of each named input set."""
    book = openpyxl.load_workbook(source)
    for name, value in cells.items():
        ((sheet, ref),) = book.defined_names[name].destinations
        book[sheet][ref.replace("$", "").split(":")[0]] = value
    path = tmp_path / source.name
    book.save(path)
    return path


def _failed(found: Any) -> list[tuple[str, str]]:
    return [(label, cite) for label, cite, ok in checks(found) if ok is not True]


@pytest.mark.parametrize(
    ("source", "cells", "check", "refusal"),
    [
        # 20,000 is below the $25,000 a transfer certificate sells at least (34:1B-248)
        (
            GROW,
            {"EventAmount": 20000, "EventPrice": 18000},
            (
                "Every transfer sells at least $25,000 of credit for at least 75% of it",
                "N.J.S.A. 34:1B-248",
            ),
            "events row 1 amount = 20000",
        ),
        # surrendered 2027-03-14, a day before 2 years from its issuance (18:34-1.7(b))
        (
            EMERGE,
            {"EventDate": dt.date(2027, 3, 14)},
            (
                "Every transfer or sale gives its date and the period whose credit it sells",
                "N.J.S.A. 34:1B-346",
            ),
            "events row 1 date = 2027-03-14: is before 2027-03-15",
        ),
    ],
    ids=["grow-nj-small-transfer", "emerge-early-surrender"],
)
def test_a_sale_the_rule_refuses_fails_the_checks_with_its_message(
    tmp_path: Path,
    source: Path,
    cells: dict[str, object],
    check: tuple[str, str],
    refusal: str,
) -> None:
    found = recalculate(_with(source, tmp_path, **cells))
    assert found.value("MasterCheck") is False
    failed = _failed(found)
    label = next(label for label, _ in failed if label.endswith("the function returned its table"))
    assert label.startswith("Credit schedule by privilege period")
    anchor = found.value("Schedule")[0][0]
    assert refusal in str(anchor), anchor
    if source is GROW:
        assert check in failed
    else:  # the surrender's own rule: only the schedule refuses it
        assert check not in failed


def _run(*arguments: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(arguments))
    return code, out.getvalue(), err.getvalue()


def test_fill_and_rollforward_reach_the_grow_nj_template(tmp_path: Path) -> None:
    # DATA by the input names: the example's award over 3 periods of 40,000, no events;
    # 1,000,000 / 10 = 100,000 a period, 40,000 used each: carried out of period 3
    # 3 x (100,000 - 40,000) = 180,000.00, which the roll names as carried into period 4.
    data = tmp_path / "grow.json"
    data.write_text(
        json.dumps(
            {
                "Award": 1000000,
                "EligibilityYears": 10,
                "FirstPeriodEnd": "2020-12-31",
                "Liabilities": [40000, 40000, 40000],
            }
        ),
        encoding="utf-8",
    )
    filled = tmp_path / "filled.xlsx"
    code, _, err = _run("fill", "grow-nj-credit-schedule", str(data), "-o", str(filled))
    assert code == 0, err
    found = recalculate(filled)
    assert (found.value("MasterCheck"), found.value("CarriedForward")) == (True, 180_000.0)
    code, out, err = _run("rollforward", str(filled), "-o", str(tmp_path / "rolled.xlsx"))
    assert code == 0, err
    assert "privilege period 3" in out, out
    assert "privilege period 4" in out, out
    assert "$180,000.00" in out, out
    assert "Liabilities[4]" in out, out  # the new period's liability to enter
