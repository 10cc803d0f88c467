"""Issue 19 (the law as dated data): the P.L.2015, c.194 dates (item 5), 52-53-week years
(item 4), the versions of subsection h. (item 2), dated roster months (item 6).

Each worked example shows its arithmetic in a comment.
"""

from __future__ import annotations

import datetime as dt

import pytest

from nj_incentives.law import beip
from nj_incentives.law.common import InputError

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
