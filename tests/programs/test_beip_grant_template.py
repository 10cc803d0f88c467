"""Template 1, the BEIP grant schedule: committed files are current, the example
recalculates to the core's results to the cent, bad inputs fail visibly (issue 5).

After a deliberate change to a template, rebuild: ``python -m
nj_incentives.workpapers.templates.build``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from nj_incentives.core.workpaper import NOT_COMPUTED
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.beip.templates import grant as beip_grant
from nj_incentives.workpapers.memo.sheets import checks
from nj_incentives.workpapers.recalc import recalculate
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from nj_incentives.workpapers.templates.builder import build_template

pytestmark = pytest.mark.recalc

TEMPLATE = DEFAULT_DIRECTORY / "beip-grant-schedule.xlsx"
EXAMPLE = DEFAULT_DIRECTORY / "examples" / "beip-grant-schedule-example.xlsx"


@pytest.fixture(scope="module")
def example() -> Any:
    return recalculate(EXAMPLE)


def test_the_example_passes_every_check(example: Any) -> None:
    assert example.value("MasterCheck") is True
    assert example.error_cells() == []
    assert example.value("CapApplies") == "Yes"  # a 2010 agreement: the cap binds
    assert example.function_errors == ()


def test_the_example_equals_the_core_to_the_cent(example: Any) -> None:
    values = beip_grant.EXAMPLE
    core = beip.grant_schedule(
        values["withholdings"],
        values["new_employees"],
        Decimal("0.5"),
        values["agreement_date"],
    )
    table = example.value("Schedule")
    assert table[0] == [
        "Year",
        "Withholdings",
        "Partner tax",
        "Grant before cap",
        "Cap room",
        "Grant",
        "Cumulative grant",
    ]
    for row, expected in zip(table[1:6], core.rows, strict=True):
        assert row == [
            expected.year,
            float(expected.withholdings),
            float(expected.partner_tax),
            float(expected.grant_before_cap),
            float(expected.cap_room or 0),
            float(expected.grant),
            float(expected.cumulative),
        ]
    assert table[6:] == [[None] * 7] * 5  # years 6-10: blank, not #N/A
    # 50% of 600,000 = 300,000 before the cap each of the first two years; the cap room is
    # 10 x 50,000 = 500,000, then 12 x 50,000 - 300,000 = 300,000, then
    # 14 x 50,000 - 600,000 = 100,000 (year 3's 325,000 is cut to it), then 50,000, then 0
    assert [row[5] for row in table[1:6]] == [300000.0, 300000.0, 100000.0, 50000.0, 0.0]
    assert example.value("TotalGrant") == float(core.total) == 750000.0

    limits = [
        beip.combined_limit(w, o, "withholdings").amount
        for w, o in zip(values["withholdings"], values["other_grants"], strict=True)
    ]
    # 50% x 600,000 - 0 = 300,000; 50% x 600,000 - 50,000 = 250,000; ... - 100,000 = 250,000
    assert [row[0] for row in example.value("CombinedLimit")[:5]] == [float(x) for x in limits]
    over = [
        max(Decimal(0), row.grant - limit) for row, limit in zip(core.rows, limits, strict=True)
    ]
    assert [row[0] for row in example.value("GrantOverLimit")[:5]] == [float(x) for x in over]
    # year 2: 300,000 granted against a 250,000 limit: 50,000 over
    assert example.value("TotalGrantOverLimit") == 50000.0
    assert example.value("TotalGrantWithinLimit") == 700000.0  # 750,000 - 50,000


def filled(tmp_path: Path, **changes: Any) -> Any:
    values = dict(beip_grant.EXAMPLE)
    values.update(changes)
    path = build_template(beip_grant, tmp_path / "filled.xlsx", values)
    return recalculate(path)


def test_text_in_a_money_cell_fails_with_the_message(tmp_path: Path) -> None:
    result = filled(tmp_path, withholdings=[600000, "abc", 650000, 700000, 700000])
    assert result.value("MasterCheck") is False
    message = result.value("Schedule")[0][0]
    assert message.startswith("#VALUE! withholdings")
    assert "'abc'" in message
    assert result.value("TotalGrant") == NOT_COMPUTED  # never a wrong number


def test_a_whole_number_percentage_fails_with_the_hint(tmp_path: Path) -> None:
    result = filled(tmp_path, pct=50)
    assert result.value("MasterCheck") is False
    assert "did you mean 50%?" in result.value("Schedule")[0][0]
    assert result.value("TotalGrant") == NOT_COMPUTED


def test_a_missing_year_fails_the_checks(tmp_path: Path) -> None:
    result = filled(tmp_path, withholdings=[600000, 600000, None, 700000, 700000])
    assert result.value("MasterCheck") is False
    assert str(result.value("Schedule")[0][0]).startswith("#VALUE! ")
    assert result.value("TotalGrant") == NOT_COMPUTED


def test_a_term_longer_than_the_years_given_fails_the_checks(tmp_path: Path) -> None:
    result = filled(tmp_path, term=6)
    assert result.value("MasterCheck") is False
    assert result.value("Schedule")[0][0] == "Year"  # the schedule itself is fine


def test_a_blank_template_fails_visibly(tmp_path: Path) -> None:
    result = recalculate(TEMPLATE)
    assert result.value("MasterCheck") is False
    assert result.value("TotalGrant") == NOT_COMPUTED


def test_no_cap_before_july_2003(tmp_path: Path) -> None:
    result = filled(tmp_path, agreement_date=dt.date(2003, 6, 30))
    table = result.value("Schedule")
    assert [row[4] for row in table[1:6]] == [None] * 5  # no cap room: the cap does not apply
    assert result.value("CapApplies") == "No"  # NJ_BEIP_CAP_APPLIES: before 2003-07-01
    assert result.value("MasterCheck") is True


def test_the_calendar_sheet_lists_the_award_s_obligations_as_of_the_stated_date(
    example: Any,
) -> None:
    # grant year 1 ends 2010-12-31, a 5-year term: reports due March 1 of 2011-2015, each
    # filed by then; the commitment 1.5 x 5 = 7.5 years from 2010-01-01 ends 2017-06-30;
    # employment tests at each calendar year's end within it, 2010-2016 (2017's end is after
    # 2017-06-30); as of 2026-12-01 (Inputs)
    table = example.value("Calendar")
    assert table[0][:2] == ["Due", "Kind"]
    assert table[0][-1] == "Status"
    rows = [row for row in table[1:] if row[0] is not None]
    reports = [row for row in rows if row[1] == "report"]
    assert [row[3] for row in reports] == [2010, 2011, 2012, 2013, 2014]
    assert {row[-1] for row in reports} == {"filed"}
    employment = [row for row in rows if row[1] == "employment"]
    assert [row[3] for row in employment] == list(range(2010, 2017))
    assert {row[-1] for row in employment} == {"ended"}  # a test over, not past due
    # 80% of the Base Employment Number 250 = 200.00: 200 employees
    assert "(80% x 250 = 200.00: 200 employees)" in employment[0][2]
    (commitment,) = (row for row in rows if row[1] == "commitment")
    assert "until 2017-06-30" in commitment[2]
    assert len(rows) == 5 + 7 + 1  # and the table's last row blank: nothing cut
    assert table[-1] == [None] * 8


def test_a_report_past_due_or_filed_late_fails_the_master_check(tmp_path: Path) -> None:
    # the 2012 report filed 2013-03-08, a week after its March 1 due date; the 2014 report
    # (due 2015-03-01) not filed, and the workpaper states 2026-12-01: 1 past due, 1 late
    values = dict(beip_grant.EXAMPLE)
    values["report_filed"] = [
        dt.date(2011, 2, 25),
        dt.date(2012, 2, 28),
        dt.date(2013, 3, 8),
        dt.date(2014, 2, 27),
    ]
    path = build_template(beip_grant, tmp_path / "late.xlsx", values)
    result = recalculate(path)
    assert result.value("MasterCheck") is False
    statuses = [row[-1] for row in result.value("Calendar")[1:] if row[1] == "report"]
    assert statuses == ["filed", "filed", "filed late", "filed", "past due"]
    failed = [label for label, _, ok in checks(result) if ok is not True]
    # the line calc lists: how many, and the first past due (the 2014 report)
    assert failed == [
        "Reports past due or filed late (Calendar): 1 past due and 1 filed late as of the"
        " 'Obligations as of' date; the first: Annual report for grant year 2014: the NJ tax"
        " return (within 30 days of filing) and the annual payroll report"
    ]
