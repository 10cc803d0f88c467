"""Issue 19 (the law as dated data): the P.L.2015, c.194 dates (item 5), 52-53-week years
(item 4), the versions of subsection h. (item 2), dated roster months (item 6).

Each worked example shows its arithmetic in a comment.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D

import numpy as np
import pytest

from nj_incentives.core.common import InputError
from nj_incentives.core.rules import EXACT, Int64
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.remote_work import rules as remote_work

# =========================================================================== item 5


def test_c194_enactment_and_day_180() -> None:
    # enacted 2016-01-11; + 180 days: 20 (to Jan 31) + 29 (Feb 2016) + 31 + 30 + 31 + 30
    # (to Jun 30) = 171, + 9 = July 9, 2016, a Saturday
    assert dt.date(2016, 1, 11) == beip.ENACTMENT_P_L_2015_C_194
    assert dt.date(2016, 7, 9) == beip.DIRECTION_DAY_180
    assert beip.DIRECTION_DAY_180.weekday() == 5  # Saturday
    # the Authority's published deadline: the next business day, Monday July 11
    assert dt.date(2016, 7, 11) == beip.DIRECTION_DEADLINE
    assert beip.DIRECTION_DEADLINE.weekday() == 0


def test_c194_approval_before_the_enactment() -> None:
    # the issue's case: approved 2015-12-01, before 2016-01-11: converted (was refused)
    assert beip.conversion_schedule(2012, 100, grant_approval_date="2015-12-01").total == 100
    assert beip.conversion_schedule(2012, 100, grant_approval_date="2016-01-10").total == 100
    with pytest.raises(InputError, match="grant_approval_date = 2016-01-11") as raised:
        beip.conversion_schedule(2012, 100, grant_approval_date="2016-01-11")
    assert "34:1B-129e." in str(raised.value)


@pytest.mark.parametrize(
    ("direction", "reading", "ok"),
    [
        ("2016-01-10", "published", False),  # the day before the enactment
        ("2016-01-11", "published", True),  # the day of the enactment
        ("2016-06-15", "published", True),  # the issue's case: day 156 (was refused)
        ("2016-07-09", "published", True),  # day 180, a Saturday
        ("2016-07-11", "published", True),  # the published deadline, Monday
        ("2016-07-12", "published", False),
        ("2016-07-09", "strict", True),  # day 180 itself
        ("2016-07-10", "strict", False),  # day 181
        ("2016-07-11", "strict", False),
    ],
)
def test_c194_direction_window(direction: str, reading: str, ok: bool) -> None:
    if ok:
        schedule = beip.conversion_schedule(
            2012, 100, direction_date=direction, direction_deadline=reading
        )
        assert schedule.total == 100
    else:
        with pytest.raises(InputError, match=f"direction_date = {direction}") as raised:
            beip.conversion_schedule(
                2012, 100, direction_date=direction, direction_deadline=reading
            )
        last = "2016-07-11" if reading == "published" else "2016-07-09"
        assert f"from 2016-01-11 to {last}" in str(raised.value)


def test_c194_direction_deadline_bad_input() -> None:
    with pytest.raises(InputError, match="direction_deadline = 'lenient'") as raised:
        beip.conversion_schedule(2012, 100, direction_deadline="lenient")
    assert "published" in str(raised.value)
    assert "34:1B-129e." in str(raised.value)


def test_c194_excel_function_takes_the_switch() -> None:
    from nj_incentives.functions import functions

    call = functions()["NJ_BEIP_CONVERSION_SCHEDULE"]
    strict = call(2012, 100, None, None, "2016-07-11", None, None, "strict")
    assert str(strict).startswith("#VALUE!")
    assert "direction_date" in str(strict)
    published = call(2012, 100, None, None, "2016-07-11")
    assert published[1][2] == 5.0  # 5% of 100 in 2017


# =========================================================================== item 4
# N.J.A.C. 18:7-2.3(b): a year ending within 7 days of a month end is deemed to end on the
# month's last day, before the return is numbered or matched to a credit year.


@pytest.mark.parametrize(
    ("end", "deemed", "year"),
    [
        ("2023-07-01", "2023-06-30", 2022),  # Saturday, 1 day after June 30: tax year 2022
        ("2023-07-07", "2023-06-30", 2022),  # day 7 after the month end: deemed June 30
        ("2023-07-08", "2023-07-08", 2023),  # day 8: not deemed; July 2023 is form year 2023
        ("2023-06-24", "2023-06-30", 2022),  # the 7th-last day of June (30 - 6): deemed
        ("2023-06-23", "2023-06-23", 2022),  # the 8th-last day: not deemed (still 2022)
        ("2024-01-04", "2023-12-31", 2023),  # legal notes' example: deemed 2023-12-31
        ("2023-12-25", "2023-12-31", 2023),  # 7th-last day of December (31 - 6)
        ("2023-12-24", "2023-12-24", 2023),
        ("2024-02-29", "2024-02-29", 2023),  # a month's last day is its own
        ("2024-02-23", "2024-02-29", 2023),  # 7th-last day of a leap February (29 - 6)
        ("2024-02-22", "2024-02-22", 2023),
    ],
)
def test_52_53_week_deemed_end_and_tax_year(end: str, deemed: str, year: int) -> None:
    numbered = cbt.tax_year(end)
    assert numbered.deemed_end == dt.date.fromisoformat(deemed)
    assert numbered.year == year
    assert numbered.period_end == dt.date.fromisoformat(end)  # the given end is kept
    if deemed != end:
        assert "N.J.A.C. 18:7-2.3(b)" in numbered.steps[0].citation
        assert f"deemed to end {deemed}" in numbered.steps[0].arithmetic


def test_52_53_week_calendar_numbering_deems_first() -> None:
    # 2024-01-04 is deemed 2023-12-31: calendar year 2023, not 2024
    assert cbt.tax_year("2024-01-04", "calendar").year == 2023
    assert cbt.tax_year("2024-01-08", "calendar").year == 2024


def test_52_53_week_conversion_installment() -> None:
    # accrued 2016: three equal installments from 2020: 90,000 / 3 = 30,000 in 2020-2022.
    # A June filer's return ending Saturday 2023-07-01 is deemed to end 2023-06-30: tax
    # year 2022, the third installment (was numbered 2023: 0)
    assert beip.conversion_installment(2016, 90000, period_end="2023-07-01") == D("30000.00")
    assert beip.conversion_installment(2016, 90000, period_end="2023-07-07") == D("30000.00")
    # day 8: 2023-07-08 is tax year 2023: no installment of 2016's grant
    assert beip.conversion_installment(2016, 90000, period_end="2023-07-08") == D("0.00")
    from nj_incentives.functions import functions

    call = functions()["NJ_BEIP_CONVERSION_INSTALLMENT"]
    assert call(2016, 90000, dt.date(2023, 7, 1)) == 30000.0


def test_52_53_week_remote_work_payment_period() -> None:
    # h.(2): the 2022 tax period of a June filer on a 52-53-week year ending 2023-07-07
    # (deemed 2023-06-30): 5% x 445,000.16 = 22,250.008 -> 22,250.00
    assert remote_work.remote_work_payment(D("445000.16"), "2023-07-07").amount == D("22250.00")


def test_52_53_week_ertc_credit_year_in_which_or_with_which() -> None:
    # credit year one: operations start 2021-12-15 -> 2022-01-01 to 2022-12-31; year two
    # 2023-01-01 to 2023-12-31. A 52-53-week filer's periods end 2021-12-28, 2022-12-27,
    # 2023-12-26: each deemed to end December 31, so year one ends "with" the period
    # ending 2022-12-27 (index 1) and year two with 2023-12-26 (index 2).
    ends = [dt.date(2021, 12, 28), dt.date(2022, 12, 27), dt.date(2023, 12, 26)]
    one_end, two_end = dt.date(2022, 12, 31), dt.date(2023, 12, 31)
    assert ertc.allowance_period_rule(EXACT, ends, 3, one_end)[0] == 1
    assert ertc.allowance_period_rule(EXACT, ends, 3, two_end)[0] == 2
    # the 8th-last day (2022-12-24) is not deemed: the year ends in the next period
    late = [dt.date(2021, 12, 24), dt.date(2022, 12, 24), dt.date(2023, 12, 24)]
    assert ertc.allowance_period_rule(EXACT, late, 3, one_end)[0] == 2
    # the int64 evaluator (the scenario runner) finds the same periods
    epoch = dt.date(1970, 1, 1)
    for periods, year_end, index in ((ends, one_end, 1), (late, one_end, 2)):
        days = [np.array([(d - epoch).days]) for d in periods]
        got = ertc.allowance_period_rule(
            Int64(), days, np.array([3]), np.array([(year_end - epoch).days])
        )
        assert int(np.ravel(got[0])[0]) == index
    periods = ertc.privilege_periods(ends, [100000] * 3, [0] * 3, [2000] * 3)
    schedule = ertc.credit_schedule("2021-12-15", 10, 10, periods)
    # year one's 25,000 allowed in the period ending 2022-12-27 (the second)
    assert [row.new_credit for row in schedule.rows] == [D(0), D("25000.00"), D("12500.00")]


# =========================================================================== item 2
# Subsection h. in three versions: P.L.2022, c.134; the January 2024 act (approved
# 2024-01-12, waiver through 2024-03-31); P.L.2024, c.40 (approved 2024-07-10: from
# 2024-04-01, 40% on site outside an enhanced area or a government-restricted
# municipality, commitment + 2 years, 10% of the maximum credit; inside, no waiver).


def test_h_versions_by_period_and_election_date() -> None:
    version = remote_work.remote_work_version
    assert version(None, dt.date(2023, 6, 30)) == "P.L.2022, c.134"  # today's behaviour
    assert version(dt.date(2023, 12, 31), dt.date(2023, 6, 30)) == "P.L.2022, c.134"
    # the day the January 2024 act's extension begins, and an election made on its
    # approval day
    assert version(dt.date(2024, 1, 1), dt.date(2023, 6, 30)) == remote_work.H_VERSION_JANUARY_2024
    assert version(None, dt.date(2024, 1, 12)) == remote_work.H_VERSION_JANUARY_2024
    assert version(None, dt.date(2024, 1, 11)) == "P.L.2022, c.134"
    # March 31 / April 1, 2024: the last day of the waiver, the first of c.40's rule
    assert version(dt.date(2024, 3, 31), None) == remote_work.H_VERSION_JANUARY_2024
    assert version(dt.date(2024, 4, 1), None) == "P.L.2024, c.40"
    # the law as of a date before an act's approval does not read it
    assert (
        version(dt.date(2024, 4, 1), None, dt.date(2024, 7, 9))
        == remote_work.H_VERSION_JANUARY_2024
    )
    assert version(dt.date(2024, 4, 1), None, dt.date(2024, 1, 11)) == "P.L.2022, c.134"


def test_h_c134_unchanged() -> None:
    # P.L.2022, c.134 as before issue 19: elected 2023-06-30, 25% on site: OK
    check = remote_work.remote_work_check("2023-06-30", 0.25)
    assert check.ok
    assert check.version == "P.L.2022, c.134"
    assert "P.L.2022, c.134" in check.steps[0].arithmetic
    # 2023-12-30 is the last day before December 31, 2023
    assert remote_work.remote_work_check("2023-12-30", 0.10).ok
    assert not remote_work.remote_work_check("2023-12-31", 0.10).ok


def test_h_january_2024_act_and_the_deadline_switch() -> None:
    # a time from 2024-01-01 to 2024-03-31 (the extension), elected 2023-06-30: OK (a start
    # of 2024-03-31 would be deemed to be 2024-04-01, N.J.A.C. 18:7-2.3(b) read for starts:
    # test_remote_work_programs.py)
    check = remote_work.remote_work_check("2023-06-30", 0.10, period_start="2024-03-20")
    assert check.ok
    assert check.version == remote_work.H_VERSION_JANUARY_2024
    assert "2022-07-01 to 2024-03-31" in check.steps[0].arithmetic
    # elected 2024-02-01: before 2023-12-31 ("unchanged", default) fails; "moved" (before
    # 2024-04-01) passes; 2024-04-01 itself fails either way
    unchanged = remote_work.remote_work_check("2024-02-01", 0.2, period_start="2024-01-01")
    assert not unchanged.ok
    assert "is not before 2023-12-31; election_deadline 'unchanged'" in unchanged.reasons[0]
    moved = remote_work.remote_work_check(
        "2024-02-01", 0.2, period_start="2024-01-01", election_deadline="moved"
    )
    assert moved.ok
    late = remote_work.remote_work_check(
        "2024-04-01", 0.2, period_start="2024-01-01", election_deadline="moved"
    )
    assert not late.ok
    assert "not before 2024-04-01" in late.reasons[0]
    # under the law as of 2024-01-11 (before the act) a 2024 time is outside the waiver
    before_act = remote_work.remote_work_check(
        "2023-06-30", 0.2, period_start="2024-01-01", law_as_of="2024-01-11"
    )
    assert before_act.version == "P.L.2022, c.134"
    assert "outside the waiver period" in before_act.reasons[0]
    # a time before July 1, 2022 is outside every version's waiver (2022-06-20: a start
    # within 7 days of the month end would be deemed to begin 2022-07-01)
    assert not remote_work.remote_work_check("2023-06-30", 0.2, period_start="2022-06-20").ok


@pytest.mark.parametrize(
    ("share", "inside", "ok"),
    [
        ("0.40", False, True),  # 40% exactly, outside: waived
        ("0.39", False, False),  # below 40%
        ("1", True, False),  # inside an enhanced area: no waiver at all
    ],
)
def test_h_c40_from_april_2024(share: str, inside: bool, ok: bool) -> None:
    check = remote_work.remote_work_check(
        "2024-05-01",
        share,
        period_start="2024-04-01",
        enhanced_area=inside,
        commitment_end="2026-06-30",
        payment_made=True,
        commitment_extended=True,
    )
    assert check.ok is ok
    assert check.version == "P.L.2024, c.40"
    if inside:
        assert "no waiver from 2024-04-01" in check.reasons[0]
        assert check.extended_commitment_end is None
    else:
        # the commitment period extended by two years: 2026-06-30 + 24 months = 2028-06-30
        assert check.extended_commitment_end == dt.date(2028, 6, 30)
    assert any(
        "to be confirmed" in step.citation or "confirm" in step.citation for step in check.steps
    )


def test_h_c40_needs_the_area_stated() -> None:
    with pytest.raises(InputError, match=r"enhanced_area = \(blank\): is required") as raised:
        remote_work.remote_work_check("2024-05-01", 0.5, period_start="2024-04-01")
    assert "P.L.2024, c.40" in str(raised.value)
    with pytest.raises(InputError, match="enhanced_area = 'maybe'"):
        remote_work.remote_work_check(
            "2024-05-01", 0.5, period_start="2024-04-01", enhanced_area="maybe"
        )


def test_h_commitment_end() -> None:
    # 2024-02-29 + 24 months: 2026 has no February 29: 2026-02-28
    assert remote_work.remote_work_commitment_end("2024-02-29").extended_end == dt.date(2026, 2, 28)
    assert remote_work.remote_work_commitment_end("2026-06-30").extended_end == dt.date(2028, 6, 30)


@pytest.mark.parametrize(
    ("period_end", "version", "share", "amount"),
    [
        # the 2022 tax period (calendar filer): 5% x 100,000.00 = 5,000.00 (c.134)
        ("2022-12-31", "P.L.2022, c.134", "0.05", "5000.00"),
        # a June filer's 2022 tax period ends 2023-06-30: 5%
        ("2023-06-30", "P.L.2022, c.134", "0.05", "5000.00"),
        # the first period ending on or after 2024-04-01 (a March-31 filer's tax year 2023
        # ends 2024-03-31: before; its next ends 2025-03-31); a calendar filer's 2024:
        # 10% x 100,000.00 = 10,000.00 (c.40, non-refundable)
        ("2024-12-31", "P.L.2024, c.40", "0.10", "10000.00"),
        # a 52-53-week year ending 2024-04-08 (day 8: not deemed to March 31)
        ("2024-04-08", "P.L.2024, c.40", "0.10", "10000.00"),
        ("2024-06-30", "P.L.2024, c.40", "0.10", "10000.00"),  # a June filer's 2023 period
    ],
)
def test_h_payment_by_period(period_end: str, version: str, share: str, amount: str) -> None:
    payment = remote_work.remote_work_payment(100000, period_end)
    assert (payment.version, payment.share, payment.amount) == (version, D(share), D(amount))
    assert payment.refundable is (False if version == "P.L.2024, c.40" else None)
    assert any(version in str(step.value) for step in payment.steps)


def test_h_payment_refuses_a_period_without_one() -> None:
    # a calendar filer's 2023 period (ends 2023-12-31) and a March filer's period ending
    # 2024-03-31: no payment under either version
    # 2024-04-01 is deemed to end 2024-03-31 (52-53-week years): before as well
    for end in ("2023-12-31", "2024-03-31", "2024-04-01"):
        with pytest.raises(InputError, match=f"period_end = '{end}'"):
            remote_work.remote_work_payment(100000, end)
    # "numbered": tax year 2024 and later only: a June filer's 2023 period (ends
    # 2024-06-30) owes nothing
    with pytest.raises(InputError, match="c40_periods 'numbered'"):
        remote_work.remote_work_payment(100000, "2024-06-30", c40_periods="numbered")
    assert remote_work.remote_work_payment(
        100000, "2025-06-30", c40_periods="numbered"
    ).amount == D("10000.00")
    # under the law as of 2024-07-09 (before c.40) a 2024 period owes nothing
    with pytest.raises(InputError, match=r"law_as_of 2024-07-09 is before P\.L\.2024, c\.40"):
        remote_work.remote_work_payment(100000, "2024-12-31", law_as_of="2024-07-09")


def test_h_payment_before_issue_19_unchanged() -> None:
    # no period: 5% of the 2022 credit, 412,345.67 x 5% = 20,617.2835 -> 20,617.28
    payment = remote_work.remote_work_payment(D("412345.67"))
    assert payment.amount == D("20617.28")
    assert payment.credit_2022 == D("412345.67")


# =========================================================================== item 8


def test_transfer_check_names_a_discounted_minimum_as_discounted() -> None:
    # 200,000 sold 2024-12-31, credit period ending 2025-12-31 (365 days: 1 year) at 10%:
    # 75% x 200,000 / 1.1 = 136,363.636... -> 136,363.63; 136,000 is less
    dates = {"sale_date": "2024-12-31", "credit_period_end": "2025-12-31"}
    check = beip.transfer_check(500000, 200000, 136000, D("0.1"), **dates)
    reason = next(r for r in check.reasons if r.startswith("consideration"))
    assert "136,363.63" in reason
    assert "discounted to present value at 10% a year over 1 years" in reason
    assert "before any" not in reason
    # undiscounted: 75% x 200,000 = 150,000
    plain = beip.transfer_check(500000, 200000, 140000)
    assert "with no discount to present value" in plain.reasons[0]
