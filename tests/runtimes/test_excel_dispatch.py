"""Every NJ_* function through the Office.js dispatch, compared with the core to the cent.

Each call goes through ``xlwings.server.custom_functions_call`` with an Office.js-shaped
payload (tests/officejs.py); the expected cells come from calling the calculation core
directly, so the test checks the adapter (cell conversion, argument order, columns of the
spilled tables), not the law, which the core's own tests check.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import pytest
import xlwings as xw
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nj_incentives import LAW_CURRENT_TO, __version__
from nj_incentives.programs.awards import rules as awards
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.emerge import rules as emerge
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.grow_nj import rules as grow_nj
from nj_incentives.programs.portfolio import rules as portfolio
from nj_incentives.programs.remote_work import rules as remote_work
from nj_incentives.runtimes import xlwings_classic as excel
from nj_incentives.scenarios.table import scenarios_table
from officejs import call, call_raw, cell_value, office_args, serial

D = Decimal
CENT = D("0.01")

pytestmark = pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js path")


@dataclass(frozen=True)
class Case:
    name: str
    args: tuple[object, ...]
    expected: Callable[[], object]
    column: bool = False


def _cells(result: object) -> list[list[object]]:
    if isinstance(result, list):
        return [list(row) for row in result]
    return [[result]]


def assert_same_cells(actual: object, expected: object) -> None:
    """Office.js cells equal the core's values: money as the float of the exact Decimal
    (hence equal to the cent), dates as their serial numbers, blanks empty."""
    rows, wanted = _cells(actual), _cells(expected)
    assert len(rows) == len(wanted), (rows, wanted)
    for row, wanted_row in zip(rows, wanted, strict=True):
        assert len(row) == len(wanted_row), (row, wanted_row)
        for cell, want in zip(row, wanted_row, strict=True):
            got = cell_value(cell)
            if isinstance(want, Decimal):
                assert isinstance(got, float | int), (got, want)
                assert not isinstance(got, bool)
                assert got == float(want)
                assert abs(D(repr(got)) - want) < CENT / 2
            elif isinstance(want, dt.date):
                assert got == serial(want)
            elif want is None:
                assert got in (None, "")
            else:
                assert got == want, (got, want)


GRANT_SCHEDULE: list[object] = [
    "Year",
    "Withholdings",
    "Partner tax",
    "Grant before cap",
    "Cap room",
    "Grant",
    "Cumulative grant",
]
ERTC_SCHEDULE: list[object] = [
    "Period end",
    "New credit",
    "Carried in",
    "Limit",
    "Used",
    "Refund",
    "Carried out",
    "Expired",
    # issue 31: on the last row, credit of a credit year ending after the schedule
    "Allowed later",
    # issue 31: the new credit by credit year (the return's Form 313 lines)
    "Year one credit",
    "Year two credit",
]


def grant_schedule_cells(schedule: beip.GrantSchedule) -> list[list[object]]:
    return [GRANT_SCHEDULE] + [
        [
            row.year,
            row.withholdings,
            row.partner_tax,
            row.grant_before_cap,
            row.cap_room,
            row.grant,
            row.cumulative,
        ]
        for row in schedule.rows
    ]


def conversion_cells(schedule: beip.ConversionSchedule) -> list[list[object]]:
    header: list[object] = ["Tax year", "Share", "Installment"]
    return [header] + [[row.tax_year, row.share, row.amount] for row in schedule.rows]


def ertc_schedule_cells(schedule: ertc.CreditSchedule) -> list[list[object]]:
    return [ERTC_SCHEDULE] + [
        [
            row.period_end,
            row.new_credit,
            row.carried_in,
            row.limit,
            row.used,
            row.refund,
            row.carried_out,
            row.expired,
            row.allowed_later,
            row.new_credit_year1,
            row.new_credit_year2,
        ]
        for row in schedule.rows
    ]


def verdict(check: beip.TransferCheck | remote_work.RemoteWorkCheck | ertc.EligibilityCheck) -> str:
    return "OK" if check.ok else "; ".join(check.reasons)


PERIODS = [dt.date(year, 12, 31) for year in (2023, 2024, 2025, 2026)]
LIABILITIES = [8000, 10000, 50000, 50000]
OTHER_CREDITS = [0, 1000, 0, 0]
MINIMUM_TAXES = [2000, 2000, 2000, 2000]
ROSTER = [
    [160] * 12,  # full time all year: 12 position-months
    [100] * 12,  # part time: 12 months of at least 86 2/3 hours, 1,200 hours
    [160] * 6 + [0] * 6,  # 6 position-months
    [200] * 12,  # temporary in the flag column below: not counted
]


SCENARIOS: list[list[object]] = [
    ["id", "accrual_year", "conversion_amount", "approval_date"],
    ["on time", 2012, 1250000, None],
    ["late", 2012, 1250000, 42993],  # 2017-09-15: State fiscal year 2018
    ["bad", 2030, 5, None],
]


def test_scenarios_spill_the_core_installments() -> None:
    # 2012, 1,250,000 on time: 62,500 / 250,000 / 312,500 x 3 in 2017-2021; approved
    # 2017-09-15 (SFY 2018): the same amounts in 2018-2022; 2030 is outside 2008-2025.
    header, *rows = call("NJ_SCENARIOS", SCENARIOS)
    by_id = {row[0]: dict(zip(header, row, strict=True)) for row in rows}
    for name, approval in (("on time", None), ("late", dt.date(2017, 9, 15))):
        schedule = beip.conversion_schedule(2012, 1250000, approval)
        for installment in schedule.rows:
            assert by_id[name][f"installment_{installment.tax_year}"] == installment.amount
    assert "2008 to 2025" in by_id["bad"]["error"]
    assert list(by_id) == ["on time", "late", "bad"]  # rows out = rows in, same order


def test_a_bad_scenario_table_is_a_message() -> None:
    with pytest.raises(xw.XlwingsError, match=r"table = .*unknown scenario column"):
        call("NJ_SCENARIOS", [["id", "bogus"], ["A", 1]])


def ertc_periods() -> tuple[ertc.PrivilegePeriod, ...]:
    return ertc.privilege_periods(PERIODS, LIABILITIES, OTHER_CREDITS, MINIMUM_TAXES)


CASES = [
    # 10% to 50% of withholdings; 80% with smart growth
    Case("NJ_BEIP_PCT_LIMITS", ("withholdings",), lambda: [[D("0.10"), D("0.50")]]),
    Case("NJ_BEIP_PCT_LIMITS", ("Partners", True), lambda: [[D("0.10"), D("0.50")]]),
    Case("NJ_BEIP_PCT_LIMITS", ("WITHHOLDINGS", "yes"), lambda: [[D("0.10"), D("0.80")]]),
    # 1,250,000 x 20% = 250,000.00
    Case("NJ_BEIP_GRANT", (1250000, 0.2), lambda: beip.annual_grant(1250000, D("0.2")).amount),
    # 333,333.33 x 35% = 116,666.6655 -> 116,666.66; 100,000.01 x 12.5% = 12,500.00125 -> 12,500.00
    Case(
        "NJ_BEIP_GRANT",
        (333333.33, 0.35, 100000.01, 0.125),
        lambda: beip.annual_grant(D("333333.33"), D("0.35"), D("100000.01"), D("0.125")).amount,
    ),
    # 1,000,000 x 80% with smart growth = 800,000.00
    Case(
        "NJ_BEIP_GRANT",
        (1000000, 0.8, None, None, True),
        lambda: beip.annual_grant(1000000, D("0.8"), smart_growth=True).amount,
    ),
    # partners only: 400,000 x 30% = 120,000.00 (withholdings basis unused at 0%)
    Case(
        "NJ_BEIP_GRANT",
        (0, 0, 400000, 0.3),
        lambda: beip.annual_grant(0, 0, 400000, D("0.3")).amount,
    ),
    # cap: year 1 min(300,000, 50,000 x 10) = 300,000; year 2 min(300,000, 600,000 -
    # 300,000); year 3 max(0, 100,000 - 600,000) = 0
    Case(
        "NJ_BEIP_GRANT_SCHEDULE",
        ([600000, 600000, 600000], [10, 12, 2], 0.5, dt.date(2010, 1, 1)),
        lambda: grant_schedule_cells(
            beip.grant_schedule([600000] * 3, [10, 12, 2], D("0.5"), dt.date(2010, 1, 1))
        ),
    ),
    # the same as columns, agreement before July 1, 2003 (no cap room column), partners too
    Case(
        "NJ_BEIP_GRANT_SCHEDULE",
        (
            [600000, 600000, 600000],
            [10, 12, 2],
            0.5,
            dt.date(2002, 6, 30),
            False,
            [100000, 100000, 100000],
            0.1,
        ),
        lambda: grant_schedule_cells(
            beip.grant_schedule(
                [600000] * 3,
                [10, 12, 2],
                D("0.5"),
                dt.date(2002, 6, 30),
                False,
                [100000] * 3,
                D("0.1"),
            )
        ),
        column=True,
    ),
    # 50% x 1,000,000 = 500,000; - 150,000 other grants = 350,000
    Case(
        "NJ_BEIP_COMBINED_LIMIT",
        (1000000, 150000, "withholdings"),
        lambda: beip.combined_limit(1000000, 150000, "withholdings").amount,
    ),
    # 50% of partners' tax with smart growth: 50% x 200,000 = 100,000; - 120,000 -> 0
    Case(
        "NJ_BEIP_COMBINED_LIMIT",
        (200000, 120000, "partners", True),
        lambda: beip.combined_limit(200000, 120000, "partners", True).amount,
    ),
    # an agreement of 2010-01-01 is on or after 2003-07-01: the cap binds; 2003-06-30 not
    # the base years of an agreement effective 2010-06-15: 2011 and 2012 (34:1B-125)
    Case(
        "NJ_BEIP_BASE_YEARS",
        (dt.date(2010, 6, 15),),
        lambda: [
            ["Base year", "First day", "Last day"],
            [2011, dt.date(2011, 1, 1), dt.date(2011, 12, 31)],
            [2012, dt.date(2012, 1, 1), dt.date(2012, 12, 31)],
        ],
    ),
    Case("NJ_BEIP_CAP_APPLIES", (dt.date(2010, 1, 1),), lambda: "Yes"),
    Case("NJ_BEIP_CAP_APPLIES", (dt.date(2003, 6, 30),), lambda: "No"),
    Case("NJ_BEIP_CAP_APPLIES", (dt.date(2003, 7, 1),), lambda: "Yes"),
    # the limit's base: the withholdings, or the partners' tax on the partners basis
    Case("NJ_BEIP_LIMIT_BASE", ("withholdings", 600000, 90000), lambda: D(600000)),
    Case("NJ_BEIP_LIMIT_BASE", ("Partners", 600000, 90000.5), lambda: D("90000.5")),
    Case("NJ_BEIP_LIMIT_BASE", ("withholdings", 600000), lambda: D(600000)),
    # a 300,000 grant over a 250,000 limit: max(0, 300,000 - 250,000) = 50,000 over,
    # 300,000 - 50,000 = 250,000 within; under the limit, nothing over
    Case("NJ_BEIP_GRANT_OVER_LIMIT", (300000, 250000), lambda: [[D(50000), D(250000)]]),
    Case("NJ_BEIP_GRANT_OVER_LIMIT", (200000, 250000.5), lambda: [[D(0), D(200000)]]),
    # 100,000 / 3 = 33,333.33, 33,333.33, 33,333.34 in 2020-2022 (e.(4))
    Case(
        "NJ_BEIP_CONVERSION_SCHEDULE",
        (2016, 100000),
        lambda: conversion_cells(beip.conversion_schedule(2016, 100000)),
    ),
    # e.(1), approved 2017-09-15 (fiscal year 2018): 2018-2022 at 5/20/25/25/25%
    Case(
        "NJ_BEIP_CONVERSION_SCHEDULE",
        (2012, 1234567.89, dt.date(2017, 9, 15)),
        lambda: conversion_cells(
            beip.conversion_schedule(2012, D("1234567.89"), dt.date(2017, 9, 15))
        ),
    ),
    # e.(1): 2018 is the second year, 20% x 1,250,000 = 250,000
    Case(
        "NJ_BEIP_CONVERSION_INSTALLMENT",
        (2012, 1250000, 2018),
        lambda: beip.conversion_installment(2012, 1250000, 2018),
    ),
    # no installment in 2016: 0
    Case(
        "NJ_BEIP_CONVERSION_INSTALLMENT",
        (2012, 1250000, 2016),
        lambda: beip.conversion_installment(2012, 1250000, 2016),
    ),
    # min(300,000, 200,000) = 200,000 applied; 100,000 refunded
    Case(
        "NJ_BEIP_CREDIT_APPLIED",
        (300000, 200000),
        lambda: beip.apply_credit(300000, 200000).applied,
    ),
    Case(
        "NJ_BEIP_CREDIT_REFUND",
        (300000, 200000),
        lambda: beip.apply_credit(300000, 200000).overpayment,
    ),
    Case("NJ_BEIP_CREDIT_REFUND", (150000.55, 200000), lambda: D("0.00")),
    # 2024-01-01 to 2025-12-31: 730 days / 365 = 2 years:
    # 75% x 1,000,000 / 1.05^2 = 680,272.108... -> 680,272.10
    Case(
        "NJ_BEIP_TRANSFER_MIN_PRICE",
        (1000000, 0.05, None, dt.date(2024, 1, 1), dt.date(2025, 12, 31)),
        lambda: (
            beip.transfer_min_price(1000000, D("0.05"), None, "2024-01-01", "2025-12-31").amount
        ),
    ),
    Case(
        "NJ_BEIP_TRANSFER_MIN_PRICE",
        (250000,),
        lambda: beip.transfer_min_price(250000).amount,
    ),
    Case(
        "NJ_BEIP_TRANSFER_CHECK",
        (1000000, 50000, 30000),
        lambda: verdict(beip.transfer_check(1000000, 50000, 30000)),
    ),
    Case(
        "NJ_BEIP_TRANSFER_CHECK",
        (1000000, 200000, 150000),
        lambda: "OK",
    ),
    # 5% x 412,345.67 = 20,617.2835 -> 20,617.28
    Case(
        "NJ_BEIP_REMOTE_WORK_PAYMENT",
        (412345.67,),
        lambda: remote_work.remote_work_payment(D("412345.67")).amount,
    ),
    Case("NJ_BEIP_REMOTE_WORK_CHECK", (dt.date(2023, 6, 30), 0.25), lambda: "OK"),
    Case(
        "NJ_BEIP_REMOTE_WORK_CHECK",
        (dt.date(2024, 1, 15), 0.05),
        lambda: verdict(remote_work.remote_work_check(dt.date(2024, 1, 15), D("0.05"))),
    ),
    # P.L.2024, c.40: 10% x 100,000 = 10,000.00 for the period ending 2024-12-31
    Case(
        "NJ_BEIP_REMOTE_WORK_PAYMENT",
        (100000, dt.date(2024, 12, 31)),
        lambda: remote_work.remote_work_payment(100000, dt.date(2024, 12, 31)).amount,
    ),
    # the commitment period extended by two years: 2026-06-30 + 24 months = 2028-06-30
    Case(
        "NJ_BEIP_REMOTE_WORK_COMMITMENT_END",
        (dt.date(2026, 6, 30),),
        lambda: remote_work.remote_work_commitment_end(dt.date(2026, 6, 30)).extended_end,
    ),
    # Grow NJ, P.L.2024, c.40: 10% x 1,000,000 = 100,000.00 for the period ending 2024-12-31
    Case(
        "NJ_REMOTE_WORK_PAYMENT",
        ("grow_nj", 1000000, dt.date(2024, 12, 31)),
        lambda: D("100000.00"),
    ),
    # BRRAG (34:1B-120 b.), P.L.2022, c.134: 5% x 412,345.67 = 20,617.2835 -> 20,617.28
    Case(
        "NJ_REMOTE_WORK_PAYMENT",
        ("brrag", 412345.67),
        lambda: D("20617.28"),
    ),
    Case(
        "NJ_REMOTE_WORK_PAYMENT",
        ("brrag", 1000000, dt.date(2024, 12, 31)),
        lambda: D("100000.00"),
    ),
    # BRRAG (34:1B-120 b.), P.L.2022, c.134: elected 2023-06-30, 25% on site
    Case("NJ_REMOTE_WORK_CHECK", ("brrag", dt.date(2023, 6, 30), 0.25), lambda: "OK"),
    # UTH: 2026-06-30 + 24 months = 2028-06-30
    Case(
        "NJ_REMOTE_WORK_COMMITMENT_END",
        ("uth", dt.date(2026, 6, 30)),
        lambda: dt.date(2028, 6, 30),
    ),
    # Grow NJ's first period 2020-12-31: its annual report 120 days later, 2021-04-30
    Case(
        "NJ_AWARD_CALENDAR",
        ("grow_nj", dt.date(2020, 12, 31), 1),
        lambda: [
            ["Due", "Kind", "Obligation", "Year", "Consequence", "Citation", "Note", "Status"],
            *[
                [r.due, r.kind, r.obligation, r.year, r.consequence, r.citation, r.note, r.status]
                for r in awards.award_calendar("grow_nj", "2020-12-31", 1).rows
            ],
        ],
    ),
    # BEIP grants of 100,000 and 50,000 at a 50% share: 50,000.00, then 75,000.00 at risk
    Case(
        "NJ_RECAPTURE_EXPOSURE",
        ("beip", 2012, [100000, 50000], 0.5),
        lambda: [
            [
                "Year",
                "Credit",
                "Cumulative",
                "Report forfeiture",
                "Employment reduction",
                "At risk",
            ],
            [2012, 100000.0, 100000.0, 100000.0, 0.0, 50000.0],
            [2013, 50000.0, 150000.0, 50000.0, 0.0, 75000.0],
        ],
    ),
    # 2,100 / (140 x 12) = 1.25; 700 / (140 x 5) = 1
    Case("NJ_ERTC_FTE", (2100,), lambda: ertc.fte(2100)),
    Case("NJ_ERTC_FTE", (700, 5), lambda: ertc.fte(700, 5)),
    # 12 + 6 position-months / 12 = 1.5, + 1,200 / 1,680 = 0.7142857143 -> 2.2142857143
    Case(
        "NJ_ERTC_AVG_POSITIONS",
        (ROSTER, [None, None, None, True]),
        lambda: [
            [
                ertc.average_positions(ertc.roster(ROSTER, [False] * 3 + [True])).average,
                ertc.average_positions(ertc.roster(ROSTER, [False] * 3 + [True])).fte,
            ]
        ],
        column=True,
    ),
    # employee 2 excluded (an owner): 12 / 12 = 1 position
    Case(
        "NJ_ERTC_AVG_POSITIONS",
        ([[160] * 12, [150] * 12], None, [False, True]),
        lambda: [[D(1), D(0)]],
    ),
    # max(0, 31.25 - 20.5) = 10.75 -> 10 whole positions; fractional 10.75
    Case("NJ_ERTC_NEW_POSITIONS", (20.5, 31.25), lambda: ertc.new_positions(D("20.5"), D("31.25"))),
    Case("NJ_ERTC_NEW_POSITIONS", (20.5, 31.25, True), lambda: D("10.75")),
    Case("NJ_ERTC_NEW_POSITIONS", (31.25, 20.5), lambda: D(0)),
    # 10 x 2,500 = 25,000; 8 x 1,250 = 10,000; 2.5 x 1,250 = 3,125 (fractional)
    Case("NJ_ERTC_CREDIT", (10, 1), lambda: ertc.credit_amount(10, 1).amount),
    Case("NJ_ERTC_CREDIT", (8, 2), lambda: ertc.credit_amount(8, 2).amount),
    Case("NJ_ERTC_CREDIT", (2.5, 2, True), lambda: D("3125")),
    # 8 / 10 = 0.8; 12 / 10 -> 1; 2 / 3 = 0.6666666667 (10 places)
    Case("NJ_ERTC_SUSTAINED_EFFORT_RATIO", (10, 8), lambda: D("0.8")),
    Case("NJ_ERTC_SUSTAINED_EFFORT_RATIO", (10, 12), lambda: D(1)),
    Case("NJ_ERTC_SUSTAINED_EFFORT_RATIO", (3, 2), lambda: ertc.sustained_effort_ratio(3, 2)),
    Case("NJ_ERTC_SUSTAINED_EFFORT_RATIO", (0, 5), lambda: D(0)),
    # max(0, min(5,000, 8,000) - 1,000) = 4,000; insurance: 10,000 - 1,000 = 9,000
    # the ratio counts fractions when the credits do or when the measured reading is
    # chosen: No/No -> No; Yes/No -> Yes; No/Yes -> Yes; both blank -> No (the defaults)
    Case("NJ_ERTC_RATIO_FRACTIONAL", (False, False), lambda: "No"),
    Case("NJ_ERTC_RATIO_FRACTIONAL", ("Yes", "No"), lambda: "Yes"),
    Case("NJ_ERTC_RATIO_FRACTIONAL", (False, True), lambda: "Yes"),
    Case("NJ_ERTC_RATIO_FRACTIONAL", (), lambda: "No"),
    Case("NJ_ERTC_CREDIT_LIMIT", (10000, 1000, 2000), lambda: D(4000)),
    Case(
        "NJ_ERTC_CREDIT_LIMIT",
        (10000, 1000, 2000, "Insurance"),
        lambda: ertc.credit_limit(10000, 1000, 2000, "insurance").amount,
    ),
    # 17,000 x 0.8 = 13,600; 1,000 x 2/3 = 666.666... -> 666.66
    Case("NJ_ERTC_REFUND", (17000, 10, 8), lambda: D(13600)),
    Case("NJ_ERTC_REFUND", (1000, 3, 2), lambda: ertc.refund(1000, 3, 2)),
    # the worked example of issue 3: 25,000 + 10,000 credits; 2023 used 4,000; 2024 used
    # 4,000, refund 17,000 x 0.8 = 13,600, carried out 13,400; 2025 used 13,400
    Case(
        "NJ_ERTC_SCHEDULE",
        (dt.date(2023, 1, 1), 10, 8, PERIODS, LIABILITIES, OTHER_CREDITS, MINIMUM_TAXES),
        lambda: ertc_schedule_cells(
            ertc.credit_schedule(dt.date(2023, 1, 1), 10, 8, ertc_periods())
        ),
    ),
    # the same with a one-period carryforward limit, as columns
    Case(
        "NJ_ERTC_SCHEDULE",
        (dt.date(2023, 1, 1), 10, 8, PERIODS, LIABILITIES, OTHER_CREDITS, MINIMUM_TAXES, 1),
        lambda: ertc_schedule_cells(
            ertc.credit_schedule(dt.date(2023, 1, 1), 10, 8, ertc_periods(), 1)
        ),
        column=True,
    ),
    # operations start 2023-03-15: credit year one 2023-04-01 to 2024-03-31
    Case(
        "NJ_ERTC_CREDIT_YEARS",
        (dt.date(2023, 3, 15),),
        lambda: [
            ["Credit year", "First day", "Last day"],
            [1, dt.date(2023, 4, 1), dt.date(2024, 3, 31)],
            [2, dt.date(2024, 4, 1), dt.date(2025, 3, 31)],
        ],
    ),
    # credit year one from 2023-04-01: the base year 2022-04-01 to 2023-03-31; a start on
    # the 1st (2024-03-01) is credit year one's first day: 2023-03-01 to 2024-02-29
    Case(
        "NJ_ERTC_BASE_YEAR",
        (dt.date(2023, 3, 15),),
        lambda: [["First day", "Last day"], [dt.date(2022, 4, 1), dt.date(2023, 3, 31)]],
    ),
    Case(
        "NJ_ERTC_BASE_YEAR",
        (dt.date(2024, 3, 1),),
        lambda: [["First day", "Last day"], [dt.date(2023, 3, 1), dt.date(2024, 2, 29)]],
    ),
    Case("NJ_ERTC_ELIGIBILITY_CHECK", (False, False), lambda: "OK"),
    Case(
        "NJ_ERTC_ELIGIBILITY_CHECK",
        ("Yes", 1, "no"),
        lambda: verdict(ertc.eligibility_check(True, True, False)),
    ),
    # 250,000 to less than 500,000: $1,000 (C), $750 (S); group payroll 5,000,000: $2,000
    # a June-30 filer's period ending 2023-06-30 is the form year 2022 (Form CBT-100)
    Case("NJ_TAX_YEAR", (dt.date(2023, 6, 30),), lambda: 2022),
    Case("NJ_TAX_YEAR", (dt.date(2023, 6, 30), "calendar"), lambda: 2023),
    Case("NJ_TAX_PERIOD_END", (2022, 6), lambda: dt.date(2023, 6, 30)),
    Case("NJ_TAX_PERIOD_END", (2022,), lambda: dt.date(2022, 12, 31)),
    Case("NJ_CBT_MIN_TAX", (300000,), lambda: cbt.minimum_tax(300000).amount),
    Case("NJ_CBT_MIN_TAX", (300000, True), lambda: D(750)),
    Case("NJ_CBT_MIN_TAX", (300000, True, 5000000), lambda: D(2000)),
    Case("NJ_CBT_MIN_TAX", (300000, True, 5000000, False), lambda: D(750)),
    # an input as every function reads it: "40%" is 0.4, "320,000.00" is 320000
    Case("NJ_INPUT", ("fraction", "pct", "40%", 0, 0.8), lambda: D("0.4")),
    Case("NJ_INPUT", ("money", "W", "320,000.00"), lambda: D(320000)),
    # the first cell of a range its rule refuses, named by the range's address: B3 (the
    # second row's first cell of B2:M3); blank when every cell is read
    Case(
        "NJ_INPUT_REFUSED",
        ("quantity", "'Hours'!B2:M3", [[160, 160], [-5, 0]], 0, 744),
        lambda: "'Hours'!B3 = -5: must not be negative (NJ_INPUT, docs/functions.md)",
    ),
    Case("NJ_INPUT_REFUSED", ("boolean", "X", [[True, 1, "yes", "N", 0, None]]), lambda: ""),
    Case(
        "NJ_INCENTIVES_VERSION",
        (),
        lambda: f"nj-incentives {__version__}; law current to: {LAW_CURRENT_TO}",
    ),
    Case("NJ_INCENTIVES_VERSION", ("Version",), lambda: __version__),
    Case("NJ_INCENTIVES_VERSION", ("law",), lambda: LAW_CURRENT_TO),
    # the hash of two inputs, money 600000 and a percentage typed as text "50%" (read as
    # 0.5): SHA-256 of "m1<GS>600000<RS>p1<GS>0.5<RS>", its first 16 hex digits in fours
    Case(
        "NJ_INPUTS_HASH",
        ("mp", 600000, "50%"),
        lambda: _grouped(hashlib.sha256(b"m1\x1d600000\x1ep1\x1d0.5\x1e").hexdigest()),
    ),
    # Grow NJ: 1,000,000 over 3 eligibility years = 333,333.333... -> 333,333.33
    Case("NJ_GROW_NJ_ANNUAL_CREDIT", (1000000, 3), lambda: D("333333.33")),
    # 1,000,000 over 10 years = 100,000 a period; 40,000 of tax: used 40,000, 60,000 carried
    Case(
        "NJ_GROW_NJ_SCHEDULE",
        excel.CATALOG["NJ_GROW_NJ_SCHEDULE"].example,
        lambda: excel.CATALOG["NJ_GROW_NJ_SCHEDULE"].show(
            grow_nj.credit_schedule(*excel.CATALOG["NJ_GROW_NJ_SCHEDULE"].example)
        ),
    ),
    Case(
        "NJ_GROW_NJ_STATE_PURCHASE",
        excel.CATALOG["NJ_GROW_NJ_STATE_PURCHASE"].example,
        lambda: excel.CATALOG["NJ_GROW_NJ_STATE_PURCHASE"].show(
            grow_nj.state_purchase(*excel.CATALOG["NJ_GROW_NJ_STATE_PURCHASE"].example)
        ),
    ),
    # Emerge: 700,000 over 7 years = 100,000 a period; 60,000 of tax: used 60,000
    Case(
        "NJ_EMERGE_SCHEDULE",
        excel.CATALOG["NJ_EMERGE_SCHEDULE"].example,
        lambda: excel.CATALOG["NJ_EMERGE_SCHEDULE"].show(
            emerge.credit_schedule(*excel.CATALOG["NJ_EMERGE_SCHEDULE"].example)
        ),
    ),
    # surrendered for 90% of its value: 100,000 x 0.9 = 90,000
    Case(
        "NJ_EMERGE_SURRENDER",
        (100000, dt.date(2024, 3, 15), dt.date(2026, 4, 1)),
        lambda: D(90000),
    ),
    # three awards on two entities, in the order of the statutes (the rows of the core)
    Case(
        "NJ_PORTFOLIO",
        excel.CATALOG["NJ_PORTFOLIO"].example,
        lambda: excel.CATALOG["NJ_PORTFOLIO"].show(
            portfolio.portfolio(*excel.CATALOG["NJ_PORTFOLIO"].example)
        ),
    ),
    # the runner's own table: dispatch passes the range through and spills the result
    Case("NJ_SCENARIOS", (SCENARIOS,), lambda: scenarios_table(SCENARIOS)),
    Case(
        "NJ_EXPLAIN",
        ("nj_beip_grant", 1250000, 0.2),
        lambda: (
            [["Step", "Value", "Arithmetic", "Citation"]]
            + [
                [s.label, s.value, s.arithmetic, s.citation]
                for s in beip.annual_grant(1250000, D("0.2")).steps
            ]
        ),
    ),
]


def _grouped(digest: str) -> str:
    """The first 16 hex digits, upper case, in groups of four."""
    return "-".join(digest[i : i + 4].upper() for i in range(0, 16, 4))


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_office_js_call_equals_core(case: Case) -> None:
    assert_same_cells(call(case.name, *case.args, column=case.column), case.expected())


def test_every_function_is_called() -> None:
    assert {case.name for case in CASES} == set(excel.CATALOG)


@pytest.mark.parametrize("name", list(excel.CATALOG))
def test_plain_callable_equals_office_js(name: str) -> None:
    """The recalculation's callables give the same cells (dates as serial numbers)."""
    example = excel.CATALOG[name].example
    office = [[cell_value(cell) for cell in row] for row in _cells(call(name, *example))]
    # a blank result cell: None from the plain callable, "" as Office.js sends it
    plain = [
        ["" if cell is None else cell for cell in row]
        for row in _cells(excel.functions()[name](*example))
    ]
    assert office == plain


def test_omitted_and_blank_optional_arguments_take_the_default() -> None:
    """An omitted optional argument arrives as None, a blank cell as [[None]]."""
    omitted = call_raw("NJ_BEIP_GRANT", [[[1250000]], [[0.2]], None, None, None])
    blank = call_raw("NJ_BEIP_GRANT", [[[1250000]], [[0.2]], [[None]], [[None]], [[""]]])
    assert omitted == blank == [[250000.0]]


def test_trailing_blank_cells_of_a_range_are_ignored() -> None:
    # a five-row input range holding a three-year term
    args = office_args(
        "NJ_BEIP_GRANT_SCHEDULE",
        ([600000, 600000, 600000, None, None], [10, 12, 2, None, None], 0.5, dt.date(2010, 1, 1)),
        column=True,
    )
    assert len(call_raw("NJ_BEIP_GRANT_SCHEDULE", args)) == 4  # header + 3 years


def test_dates_arrive_as_serial_numbers_or_text() -> None:
    # 2017-09-15 is serial 42993
    as_serial = call("NJ_BEIP_CONVERSION_SCHEDULE", 2012, 1000000, 42993)
    as_text = call("NJ_BEIP_CONVERSION_SCHEDULE", 2012, 1000000, "2017-09-15")
    assert serial(dt.date(2017, 9, 15)) == 42993
    assert as_serial == as_text
    assert as_serial[1][0] == 2018  # fiscal year 2018: the schedule commences in 2018


def test_a_date_result_is_an_excel_date() -> None:
    """xlwings turns a returned date into a date-formatted number cell."""
    first = call("NJ_ERTC_CREDIT_YEARS", dt.date(2023, 1, 1))[1][1]
    assert first["type"] == "FormattedNumber"
    assert first["basicValue"] == serial(dt.date(2023, 1, 1))


# =========================================================================== errors

FRACTION_ARGUMENTS = [
    ("NJ_BEIP_GRANT", (1250000, 50), "pct"),
    ("NJ_BEIP_GRANT", (0, 0, 400000, 30), "partner_pct"),
    ("NJ_BEIP_GRANT_SCHEDULE", ([600000], [10], 50, dt.date(2010, 1, 1)), "pct"),
    ("NJ_BEIP_TRANSFER_MIN_PRICE", (1000000, 5), "discount_rate"),
    ("NJ_BEIP_REMOTE_WORK_CHECK", (dt.date(2023, 6, 30), 25), "share_at_facility"),
]


@pytest.mark.parametrize(("name", "args", "argument"), FRACTION_ARGUMENTS)
def test_a_whole_number_percentage_gets_the_hint(
    name: str, args: tuple[object, ...], argument: str
) -> None:
    with pytest.raises(xw.XlwingsError) as raised:
        call(name, *args)
    message = str(raised.value)
    assert message.startswith(f"{argument} = ")
    assert "a percentage is a fraction (50% = 0.5); did you mean" in message
    assert "N.J.S.A." in message


def test_50_for_50_percent_message() -> None:
    with pytest.raises(xw.XlwingsError) as raised:
        call("NJ_BEIP_GRANT", 1250000, 50)
    assert str(raised.value) == (
        "pct = 50: a percentage is a fraction (50% = 0.5); did you mean 50%? (N.J.S.A. 34:1B-129a.)"
    )


def _required(name: str) -> list[int]:
    return [i for i, a in enumerate(excel.CATALOG[name].arguments) if not a.optional]


BLANK_REQUIRED = [(name, index) for name in excel.CATALOG for index in _required(name)]


@pytest.mark.parametrize(("name", "index"), BLANK_REQUIRED)
def test_a_blank_required_argument_is_an_error(name: str, index: int) -> None:
    entry = excel.CATALOG[name]
    args = office_args(name, entry.example)
    args[index] = [[None]]
    with pytest.raises(xw.XlwingsError) as raised:
        call_raw(name, args)
    assert str(raised.value).startswith(f"{entry.arguments[index].name} = (blank): is required")


EVERY_ARGUMENT = [
    (name, index)
    for name, entry in excel.CATALOG.items()
    for index in range(len(entry.example))
    # the input's name for the message: any text
    if (name, index) not in (("NJ_INPUT", 1), ("NJ_INPUT_REFUSED", 1))
    # NJ_INPUT_REFUSED's refusal of its value is its result: the text naming the cell
    and (name, index) != ("NJ_INPUT_REFUSED", 2)
    # NJ_INPUTS_HASH hashes a value its rule refuses as "?" and its text (so that
    # correcting it changes the hash; tests/workpapers/test_signoff.py): only its kinds is refused
    and (name != "NJ_INPUTS_HASH" or index == 0)
]


@pytest.mark.parametrize(("name", "index"), EVERY_ARGUMENT)
def test_text_in_any_argument_is_an_error_never_a_number(name: str, index: int) -> None:
    """Garbage anywhere gives the short message (argument = value: rule), not a result."""
    entry = excel.CATALOG[name]
    args = list(entry.example)
    args[index] = "zzz"
    with pytest.raises(xw.XlwingsError) as raised:
        call(name, *args)
    message = str(raised.value)
    # the argument, or an item of it: liabilities[3], awards row 2 program
    assert re.match(r"[a-z_0-9]+(\[\d+\]| row \d+ [a-z_]+)? = .+: .+", message), message
    assert "unexpected" not in message
    assert "Traceback" not in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("NJ_BEIP_GRANT", (-5, 0.2), "withholdings = -5: must not be negative"),
        ("NJ_BEIP_GRANT", ("1,000", 0.6), "pct = 0.6: must be from 10% to 50%"),
        ("NJ_BEIP_PCT_LIMITS", ("payroll",), "basis = 'payroll': must be one of"),
        ("NJ_BEIP_CONVERSION_SCHEDULE", (2007, 1000), "accrual_year = 2007:"),
        ("NJ_BEIP_REMOTE_WORK_CHECK", ("June 2023", 0.2), "election_date = 'June 2023':"),
        ("NJ_BEIP_REMOTE_WORK_CHECK", (True, 0.2), "election_date = True: must be a date"),
        ("NJ_ERTC_CREDIT", (10, 3), "credit_year = 3: must be 1 or 2"),
        ("NJ_ERTC_CREDIT", ([[1, 2]], 1), "new_positions = [2 values]: must be a single cell"),
        ("NJ_BEIP_GRANT_SCHEDULE", ([1] * 11, [1] * 11, 0.2, dt.date(2010, 1, 1)), "term"),
        ("NJ_ERTC_AVG_POSITIONS", ([[160] * 11],), "hours = "),
        ("NJ_EXPLAIN", ("NJ_NOTHING", 1), "function_name = 'NJ_NOTHING': must be the name"),
        ("NJ_EXPLAIN", ("NJ_BEIP_PCT_LIMITS", "withholdings"), "without explanation steps"),
    ],
)
def test_bad_inputs_give_the_short_message(
    name: str, args: tuple[object, ...], expected: str
) -> None:
    with pytest.raises(xw.XlwingsError) as raised:
        call(name, *args)
    assert expected in str(raised.value)


NA = {"type": "Error", "basicValue": "#N/A", "errorType": "NotAvailable"}


@pytest.mark.parametrize(
    ("args", "argument"),
    [
        ([[[NA]], [[0.2]], None, None, None], "withholdings"),
        # an error in an optional argument must not pass for a blank (its default)
        ([[[1250000]], [[0.2]], None, None, [[NA]]], "smart_growth"),
    ],
)
def test_an_error_cell_is_an_error_not_a_blank(args: list[object], argument: str) -> None:
    with pytest.raises(xw.XlwingsError) as raised:
        call_raw("NJ_BEIP_GRANT", args)
    assert str(raised.value).startswith(f"{argument} = '#N/A': the cell holds an error value")


def test_the_error_text_of_a_failed_function_is_an_error_downstream() -> None:
    """Classic add-in: a failed NJ_ cell holds "#VALUE! ..." text; using it fails too."""
    failed = excel.functions()["NJ_BEIP_CONVERSION_INSTALLMENT"](2007, 1000, 2020)
    assert failed.startswith("#VALUE! accrual_year = 2007")
    with pytest.raises(xw.XlwingsError) as raised:
        call("NJ_BEIP_CREDIT_APPLIED", failed, 5000)
    assert str(raised.value).startswith(
        "credit = '#VALUE!': the cell holds an error (accrual_year = 2007"
    )


def test_a_grid_where_one_value_per_year_is_expected_is_an_error() -> None:
    args = office_args(
        "NJ_BEIP_GRANT_SCHEDULE", ([[1, 2], [3, 4]], [1, 2], 0.2, dt.date(2010, 1, 1))
    )
    with pytest.raises(xw.XlwingsError, match="must be one row or one column"):
        call_raw("NJ_BEIP_GRANT_SCHEDULE", args)


def test_an_unexpected_failure_is_a_short_message(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("boom\nsecond line")

    monkeypatch.setattr(beip, "annual_grant", broken)
    with pytest.raises(xw.XlwingsError) as raised:
        call("NJ_BEIP_GRANT", 1250000, 0.2)
    assert str(raised.value) == "NJ_BEIP_GRANT: unexpected ZeroDivisionError: boom"
    assert excel.functions()["NJ_BEIP_GRANT"](1250000, 0.2) == (
        "#VALUE! NJ_BEIP_GRANT: unexpected ZeroDivisionError: boom"
    )


# =========================================================================== properties

money = st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(amount=money, year=st.integers(min_value=2008, max_value=2025))
def test_spilled_installments_sum_to_the_amount(amount: Decimal, year: int) -> None:
    """Read back as the cents they show, the installments sum exactly to the amount."""
    table = call("NJ_BEIP_CONVERSION_SCHEDULE", year, amount)
    assert table[0] == ["Tax year", "Share", "Installment"]
    assert sum(D(repr(row[2])) for row in table[1:]) == amount


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    withholdings=money,
    pct=st.decimals(min_value=D("0.10"), max_value=D("0.50"), places=3),
)
def test_grant_through_office_js_equals_the_core(withholdings: Decimal, pct: Decimal) -> None:
    [[cell]] = call("NJ_BEIP_GRANT", withholdings, pct)
    assert cell == float(beip.annual_grant(withholdings, pct).amount)
