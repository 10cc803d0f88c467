"""Issue 19 (the law as dated data): the P.L.2015, c.194 dates (item 5), 52-53-week years
(item 4), the versions of subsection h. (item 2), dated roster months (item 6).

Each worked example shows its arithmetic in a comment.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D

import numpy as np
import pytest

from nj_incentives.law import beip, cbt, ertc
from nj_incentives.law.common import InputError
from nj_incentives.law.rules import EXACT, Int64

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
    # the case: approved 2015-12-01, before 2016-01-11: converted (was refused)
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
        ("2016-06-15", "published", True),  # the case: day 156 (was refused)
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
    from nj_incentives.excel import functions

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
    from nj_incentives.excel import functions

    call = functions()["NJ_BEIP_CONVERSION_INSTALLMENT"]
    assert call(2016, 90000, dt.date(2023, 7, 1)) == 30000.0


def test_52_53_week_remote_work_payment_period() -> None:
    # h.(2): the 2022 tax period of a June filer on a 52-53-week year ending 2023-07-07
    # (deemed 2023-06-30): 5% x 445,000.16 = 22,250.008 -> 22,250.00
    assert beip.remote_work_payment(D("445000.16"), "2023-07-07").amount == D("22250.00")


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
