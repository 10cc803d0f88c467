"""The portfolio template (issue 33, item 4): filled from a CSV, recalculated headlessly, it
equals NJ_PORTFOLIO's rules to the cent; its return block, its roll forward.

One recalculation for the module (the filled CSV), so that the template costs CI one.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from nj_incentives.cli import main
from nj_incentives.core.workpaper import Last, RollRefused
from nj_incentives.programs.portfolio import rules as portfolio
from nj_incentives.programs.portfolio.templates import portfolio as template
from nj_incentives.workpapers.recalc import recalculate

pytestmark = pytest.mark.recalc

D = Decimal

#: The example's inputs as a CSV a practice keeps: one input a row, a table column's
#: values across the row (docs/filling.md).
CSV = """input,value
EngagementClient,Example Holdings Inc. and subsidiaries (fictitious)
FirstPeriodEnd,2024-12-31
Liabilities,100000,60000,80000,90000,70000
MinimumTaxes,2000,2000,2000,2000,2000
AwardEntity,Parent,Parent,Sub A,Sub A,Sub B,Sub B
AwardProgram,beip,ertc,grow_nj,grow_nj,emerge,brrag
AwardPeriod,1,1,1,2,2,2
AwardAmount,30000,40000,100000,100000,25000,10000
"""


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("portfolio")
    data = folder / "portfolio.csv"
    data.write_text(CSV, encoding="utf-8")
    out = folder / "portfolio.xlsx"
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main(["fill", "portfolio", str(data), "-o", str(out)]) == 0, err.getvalue()
    return recalculate(out)


def test_the_filled_csv_equals_the_rules_to_the_cent(filled: Any) -> None:
    assert filled.value("MasterCheck") is True
    assert filled.function_errors == ()
    values = template.EXAMPLE
    awards = [
        [entity, program, period, amount]
        for entity, program, period, amount in zip(
            values["award_entity"],
            values["award_program"],
            values["award_period"],
            values["award_amount"],
            strict=True,
        )
    ]
    core = portfolio.portfolio(
        awards, values["first_period_end"], values["liabilities"], values["minimum_taxes"]
    )
    table = filled.value("Portfolio")
    assert table[0][:4] == ["Period", "Period end", "Place", "Program"]
    rows = [row for row in table[1:] if row[0] is not None]
    assert len(rows) == len(core.rows) == 5 * 5  # five holdings in each of five periods
    at = {name: table[0].index(name) for name in ("Program", "Entity", "Used", "Carried out")}
    for row, expected in zip(rows, core.rows, strict=True):
        assert row[at["Program"]] == expected.program
        assert row[at["Entity"]] == expected.entity
        assert row[at["Used"]] == float(expected.used)
        assert row[at["Carried out"]] == float(expected.carried_out)
    # period 1, liability 100,000.00, minimum 2,000.00: BEIP (1st) uses 30,000.00; the
    # ERTC (14th) at most min(50% x 100,000.00, 100,000.00 - 2,000.00) - 30,000.00 =
    # 20,000.00 of its 40,000.00 (20,000.00 carried); Grow NJ (18th) 100,000.00 -
    # 50,000.00 = 50,000.00 of 100,000.00 (50,000.00 carried); tax after 0.
    # period 2, 60,000.00: BRRAG (8th) 10,000.00; the ERTC min(30,000.00, 58,000.00) -
    # 10,000.00 = 20,000.00 (all it carried); Grow NJ 60,000.00 - 30,000.00 = 30,000.00
    # of 150,000.00 (120,000.00 carried); Emerge (19th) nothing left (25,000.00 carried).
    # period 3, 80,000.00: Grow NJ 80,000.00 (40,000.00 carried). period 4, 90,000.00:
    # Grow NJ 40,000.00, Emerge 25,000.00, tax after 25,000.00. period 5: 70,000.00 left.
    # the tax after every credit: each period's last row
    after = {row[0]: row[table[0].index("Tax after")] for row in rows}
    assert after == {1: 0.0, 2: 0.0, 3: 0.0, 4: 25000.0, 5: 70000.0}
    # 30,000 + 10,000 + 40,000 + 200,000 + 25,000 = 305,000.00 allowed, all used
    assert filled.value("TotalAllowed") == filled.value("TotalUsed") == 305000.0
    assert filled.value("TotalExpired") == filled.value("TotalRefunded") == 0.0


def test_the_return_block_of_a_tax_year(filled: Any) -> None:
    # tax year 2025 is the period ending 2025-12-31 (period 2): BRRAG 10,000.00, the ERTC
    # 20,000.00, Grow NJ 30,000.00, BEIP, Urban Transit Hub (no award) and Emerge nothing;
    # every program's line shown, read from the cells the Return sheet reads
    block = template.RETURN(filled.value, 2025)
    assert block is not None
    assert block.period_end == dt.date(2025, 12, 31)
    used = {line.label: line.amount for line in block.lines}
    assert used == {
        "BEIP credit used": D("0.00"),
        "BEIP refunded as an overpayment": D("0.00"),
        "BRRAG credit used": D("10000.00"),
        "ERTC credit used": D("20000.00"),
        "Urban Transit Hub credit used": D("0.00"),
        "Grow NJ credit used": D("30000.00"),
        "Emerge credit used": D("0.00"),
    }
    ertc = next(line for line in block.lines if line.label == "ERTC credit used")
    assert ertc.line is not None
    assert ertc.line.edition.form.startswith("Schedule A-3")
    assert template.RETURN(filled.value, 2030) is None  # no period of the portfolio in 2030


def test_a_combined_return_filer_has_no_beip_part_iii_figure(filled: Any) -> None:
    # the same recalculated cells, read with "Combined return filer (Form 324 Part IV)"
    # answered Yes: BEIP's credit used (Form 324 Part III's allowable credit) and its refund
    # are not computed (Part IV's lines: no source), the other programs' lines as above
    def read(name: str) -> Any:
        return "Yes" if name == "CombinedReturnFiler" else filled.value(name)

    assert filled.value("CombinedReturnFiler") == "No"  # the default
    block = template.RETURN(read, 2025)
    assert block is not None
    shown = {line.label: (line.amount, line.line is None) for line in block.lines}
    assert shown["BEIP credit used"] == shown["BEIP refunded as an overpayment"] == (None, True)
    assert shown["Grow NJ credit used"] == (D("30000.00"), False)
    assert any("skips Form 324's Part III" in note for note in block.notes)


def test_the_roll_forward_adds_the_next_period_and_names_what_is_carried(filled: Any) -> None:
    last = Last(names=filled.names, refers={}, where="portfolio.xlsx", rows={}, results={})
    values: dict[str, object] = {"Liabilities": [100000, 60000, 80000]}
    # three periods kept: period 3's carry-outs are Grow NJ's 40,000.00 (Sub A) and Emerge's
    # 25,000.00 (Sub B), carried into period 4 by the function
    rolled = template.ROLL_FORWARD.roll(values, last)
    assert (rolled.period_from, rolled.period_to, rolled.row) == ("period 3", "period 4", 4)
    assert [(f.name, f.value) for f in rolled.figures] == [
        ("Grow NJ (Sub A)", 40000.0),
        ("Emerge (Sub B)", 25000.0),
    ]
    with pytest.raises(RollRefused, match="period 8 is the workbook's last"):
        template.ROLL_FORWARD.roll({"Liabilities": [1] * 8}, last)
    with pytest.raises(RollRefused, match="no period has a liability"):
        template.ROLL_FORWARD.roll({"Liabilities": []}, last)


def test_the_template_is_registered(tmp_path: Path) -> None:
    from nj_incentives import programs

    assert programs.templates()["portfolio"].key == "portfolio"
    assert programs.template("portfolio") is template
