"""A payroll roster's months are dated (issue 19, item 6): each of the twelve months reads
the figures of law (the 140-hour full-time month, the 20 hours a week of the part-time
test, read as 86 2/3 hours a month) at its own date, so an amendment from a month inside
the period applies from that month, in the exact evaluator, the explanation steps and the
int64 evaluator alike (docs/interpretations.md, "e. A roster's months are dated")."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.core import parameters as P
from nj_incentives.core.common import InputError
from nj_incentives.core.rules import EXACT, Int64, Ratio, explain
from nj_incentives.programs.ertc import figures as ERTC
from nj_incentives.programs.ertc import rules as ertc

D = Decimal
EPOCH = dt.date(1970, 1, 1)

#: Made-up amendments for the drill (no such act exists), enacted 2027-05-01: from the
#: month of July 2027, a full-time month is 150 hours; or the part-time test 25 hours a week.
DRILL_ACT = P.Act("ertc", "P.L.2027, c.999 (drill)", dt.date(2027, 5, 1), source="test fixture")
FULL_150 = P.Version(
    150, DRILL_ACT, applies_from=dt.date(2027, 7, 1), change="full-time month 150 hours"
)
WEEKLY_25 = P.Version(
    25, DRILL_ACT, applies_from=dt.date(2027, 7, 1), change="part-time 25 hours a week"
)


@pytest.fixture
def full_150() -> Iterator[P.Parameter[int]]:
    with P.amended(ERTC.FULL_TIME_HOURS_PER_MONTH, FULL_150) as param:
        yield param


@pytest.fixture
def weekly_25() -> Iterator[P.Parameter[int]]:
    with P.amended(ERTC.PART_TIME_HOURS_PER_WEEK, WEEKLY_25) as param:
        yield param


#: Employee A works 145 hours every month, employee B 150.
STAFF = [[145] * 12, [150] * 12]
IN_2027 = dt.date(2027, 1, 1)  # January-December 2027: the change from month 7 (July)
IN_2026 = dt.date(2026, 1, 1)  # every month before the change


# --------------------------------------------------------------------------- today's law


def test_a_dated_roster_under_todays_law() -> None:
    # A: 145 >= 140 in each of 12 months, B: 150: 24 position-months, no part-time hours:
    # average (140 x 24 + 0) / 1,680 = 2
    count = ertc.average_positions(ertc.roster(STAFF), first_month="2027-01-15")
    assert count.first_month == IN_2027  # any day of the month: the month's first day
    assert count.full_time_months == 24
    assert count.average == D(2)
    undated = ertc.average_positions(ertc.roster(STAFF))
    assert undated.first_month is None
    assert (undated.average, undated.fte) == (count.average, count.fte)
    first = count.steps[0]
    assert (first.label, first.value) == ("First month of the period", IN_2027)
    assert count.steps[1:] == undated.steps


# --------------------------------------------------------------------------- the drill


def test_drill_full_time_hours_from_july_exact_and_steps(full_150: P.Parameter[int]) -> None:
    # 2027: January-June at 140 hours, July-December at 150.
    #   A, 145 hours: full-time in months 1-6 (145 >= 140), not in 7-12 (145 < 150); its
    #   six non-full-time months of 145 >= 86 2/3: a part-time position, 6 x 145 = 870
    #   hours aggregated. B, 150 hours: full-time in all 12.
    #   Months 1-6 (140 hours): 2 x 6 = 12 position-months, no part-time hours.
    #   Months 7-12 (150 hours): 1 x 6 = 6 position-months, 870 part-time hours.
    #   L = lcm(140, 150) = 2,100; weights 2,100 / 140 = 15, 2,100 / 150 = 14:
    #   average = ((140 x 12 + 0) x 15 + (150 x 6 + 870) x 14) / (12 x 2,100)
    #           = (25,200 + 24,780) / 25,200 = 49,980 / 25,200 = 1.98333...
    #   (month by month: 6 x 2 + 6 x (1 + 145 / 150) = 23.8, / 12 = 1.98333...)
    #   equivalents = 870 x 14 / 25,200 = 12,180 / 25,200 = 0.48333... (870 / 150 / 12)
    count = ertc.average_positions(ertc.roster(STAFF), first_month=IN_2027)
    assert count.full_time_months == 18
    assert count.part_time_hours == D(870)
    assert count.part_time_employees == 1
    assert count.average == D("1.9833333333")
    assert count.fte == D("0.4833333333")
    assert Fraction(49980, 25200) == Fraction(238, 120)
    labels = [step.label for step in count.steps]
    assert (
        "Employee 1: full-time months (140 hours in months 1-6, 150 hours in months 7-12 or more)"
    ) in labels
    by_group = {step.label: step for step in count.steps}
    assert by_group["Full-time position-months of the months at 140 hours a month"].value == 12
    assert by_group["Full-time position-months of the months at 150 hours a month"].value == 6
    assert by_group["Part-time hours of the months at 150 hours a month"].value == D(870)
    average = by_group[
        "Average full-time positions and equivalents (each month at its own full-time hours)"
    ]
    assert average.value == D("1.9833333333")
    assert "25,200" in average.arithmetic  # 12 x 2,100
    # 2026: every month before the change reads 140 hours: A and B full-time throughout
    before = ertc.average_positions(ertc.roster(STAFF), first_month=IN_2026)
    assert (before.full_time_months, before.average) == (24, D(2))
    assert "Employee 1: full-time months (140 hours or more)" in [s.label for s in before.steps]
    groups = {step.label: step.value for step in before.steps}
    assert groups["Full-time position-months of the months at 140 hours a month"] == 24
    assert groups["Full-time position-months of the months at 150 hours a month"] == 0
    # a period starting in July 2027 is at 150 hours throughout: A is part-time in all 12
    # months, 12 x 145 = 1,740 hours: average = (150 x 12 + 1,740) / (12 x 150) = 1.96666...
    after = ertc.average_positions(ertc.roster(STAFF), first_month="2027-07-01")
    assert (after.full_time_months, after.part_time_hours) == (12, D(1740))
    assert after.average == D("1.9666666667")


def test_drill_law_as_known_before_the_act_is_not_applied_halfway(
    full_150: P.Parameter[int],
) -> None:
    # under the drill an undated roster cannot say which months are at 150 hours: refused
    with pytest.raises(InputError) as caught:
        ertc.average_positions(ertc.roster(STAFF))
    error = caught.value
    assert error.argument == "first_month"
    assert "150 hours for months from 2027-07-01" in error.rule
    assert error.citation.startswith("N.J.S.A. 52:27BBB-55e.")


def _int64_employee(hours: list[int], den: int = 300) -> ertc._Employee:
    """One employee over two rows (the same hours in each row), hours over 300 (86 2/3
    hours, the part-time test, is exact over it)."""
    return ertc._Employee(
        "",
        tuple(Ratio(np.array([h * den, h * den], np.int64), den) for h in hours),
        np.array([False, False]),
        np.array([False, False]),
    )


def _days(*days: dt.date) -> np.ndarray:
    return np.array([(day - EPOCH).days for day in days], np.int64)


def test_drill_full_time_hours_int64(full_150: P.Parameter[int]) -> None:
    # two rows, the same roster: first month 2026-01 (140 hours throughout: average 2) and
    # 2027-01 (150 hours from month 7: 49,980 / 25,200 = 1.9833333333, as above)
    employees = [_int64_employee(hours) for hours in STAFF]
    _, months, hours, equivalents, average = ertc.positions_rule(
        Int64(), employees, False, _days(IN_2026, IN_2027)
    )
    assert months.tolist() == [24, 18]
    assert [Fraction(int(n), hours.den) for n in hours.num] == [0, 870]
    assert average.den == 10**10
    assert average.num.tolist() == [20_000_000_000, 19_833_333_333]
    assert equivalents.num.tolist() == [0, 4_833_333_333]
    # and the exact evaluator, row by row, agrees
    for first, row in ((IN_2026, 0), (IN_2027, 1)):
        exact = ertc.average_positions(ertc.roster(STAFF), first_month=first)
        assert Fraction(int(average.num[row]), average.den) == Fraction(exact.average)


def test_drill_part_time_threshold_from_july(weekly_25: P.Parameter[int]) -> None:
    # 100 hours in May, June, July and August 2027, none otherwise.
    #   Today (20 hours a week: 20 x 52 / 12 = 86 2/3): 4 months of 100 >= 86 2/3 >= 3: a
    #   part-time position, 400 hours: 400 / 1,680 = 0.2380952381 equivalents.
    #   Drill (25 hours a week from July: 25 x 52 / 12 = 108 1/3): May and June qualify
    #   (100 x 12 = 1,200 >= 20 x 52 = 1,040), July and August do not (1,200 < 25 x 52 =
    #   1,300): 2 months < 3: not a part-time position, no hours.
    hours = [[0, 0, 0, 0, 100, 100, 100, 100, 0, 0, 0, 0]]
    dated = ertc.average_positions(ertc.roster(hours), first_month=IN_2027)
    assert (dated.part_time_employees, dated.fte) == (0, D(0))
    labels = " ".join(step.label for step in dated.steps)
    assert "20 hours a week x 52 / 12 in months 1-6, 25 hours a week x 52 / 12 in months 7-12" in (
        labels
    )
    # 2026: before the change, 86 2/3 hours throughout: part-time, 400 hours
    before = ertc.average_positions(ertc.roster(hours), first_month=IN_2026)
    assert (before.part_time_employees, before.part_time_hours) == (1, D(400))
    assert before.fte == D("0.2380952381")
    # int64: the two rows side by side
    employee = _int64_employee(hours[0])
    _, _, aggregated, equivalents, _ = ertc.positions_rule(
        Int64(), [employee], False, _days(IN_2026, IN_2027)
    )
    assert [Fraction(int(n), aggregated.den) for n in aggregated.num] == [400, 0]
    assert equivalents.num.tolist() == [2_380_952_381, 0]


def test_drill_law_as_of(full_150: P.Parameter[int]) -> None:
    # the drill act was approved 2027-05-01: the law as of the day before knew 140 hours
    # throughout: 2027 as 2026, (140 x 24 + 0) / 1,680 = 2; from that day, 49,980 /
    # 25,200 = 1.9833333333 as above; each names the act whose figures it applied
    then = ertc.average_positions(ertc.roster(STAFF), first_month=IN_2027, law_as_of="2027-04-30")
    now = ertc.average_positions(ertc.roster(STAFF), first_month=IN_2027, law_as_of="2027-05-01")
    assert (then.average, now.average) == (D(2), D("1.9833333333"))
    assert (then.version, now.version) == (P.first_modelled("ertc").name, DRILL_ACT.name)
    # int64: the same roster in two rows, the law as of each date
    employees = [_int64_employee(hours) for hours in STAFF]
    as_of = _days(dt.date(2027, 4, 30), dt.date(2027, 5, 1))
    _, _, _, _, average = ertc.positions_rule(
        Int64(), employees, False, _days(IN_2027, IN_2027), as_of
    )
    assert average.num.tolist() == [20_000_000_000, 19_833_333_333]
    with pytest.raises(InputError) as caught:
        ertc.average_positions(ertc.roster(STAFF), first_month=IN_2027, law_as_of="2002-12-31")
    assert caught.value.argument == "law_as_of"


def test_the_excel_function_takes_the_first_month(full_150: P.Parameter[int]) -> None:
    from nj_incentives.runtimes import xlwings_classic as excel

    got = excel.NJ_ERTC_AVG_POSITIONS(STAFF, None, None, None, dt.date(2027, 1, 1))
    assert got == [[pytest.approx(1.9833333333), pytest.approx(0.4833333333)]]
    before = excel.NJ_ERTC_AVG_POSITIONS(STAFF, None, None, None, dt.date(2026, 1, 1))
    assert before == [[2.0, 0.0]]
    then = excel.NJ_ERTC_AVG_POSITIONS(STAFF, None, None, None, IN_2027, dt.date(2027, 4, 30))
    assert then == [[2.0, 0.0]]


def test_a_first_month_that_is_not_a_date() -> None:
    with pytest.raises(InputError) as caught:
        ertc.average_positions(ertc.roster(STAFF), first_month="July")
    assert caught.value.argument == "first_month"


# --------------------------------------------------------------------------- no change


_hours = st.decimals(min_value=0, max_value=300, places=2, allow_nan=False)


@given(
    rows=st.lists(st.lists(_hours, min_size=12, max_size=12), min_size=1, max_size=6),
    first=st.dates(dt.date(1990, 1, 1), dt.date(2100, 12, 1)),
    test=st.sampled_from(ertc.PART_TIME_TESTS),
    as_of=st.none() | st.dates(dt.date(2003, 1, 1), dt.date(2100, 12, 31)),
)
def test_without_a_change_the_dated_roster_is_todays(
    rows: list[list[Decimal]], first: dt.date, test: str, as_of: dt.date | None
) -> None:
    # with every figure at one version, a dated roster is the undated one whatever the
    # law_as_of: the same counts, equivalents, average (exact_average's formula) and steps
    # (after the step naming the first month)
    staff = ertc.roster(rows)
    dated = ertc.average_positions(staff, test, first, as_of)
    undated = ertc.average_positions(staff, test)
    assert dated.model_dump(exclude={"first_month", "steps"}) == undated.model_dump(
        exclude={"first_month", "steps"}
    )
    expected = ertc.exact_average(undated.full_time_months, undated.part_time_hours)
    assert dated.average == Decimal(round(expected * 10**10)).scaleb(-10)
    assert dated.steps[1:] == undated.steps
    # and the int64 evaluator agrees with the exact one
    den = 300  # hours to the cent, and 86 2/3 exact over it
    employees = [
        ertc._Employee(
            "",
            tuple(Ratio(np.array([int(h * den)], np.int64), den) for h in employee.hours),
            np.array([False]),
            np.array([False]),
        )
        for employee in staff
    ]
    _, _, _, _, average = ertc.positions_rule(
        Int64(), employees, test == "all_months", _days(first)
    )
    assert Fraction(int(average.num[0]), average.den) == Fraction(dated.average)
    value, _ = explain(
        ertc.positions_rule, ertc._roster_columns(staff), test == "all_months", first
    )
    assert (
        value[-1]
        == dated.average
        == EXACT.run(ertc.positions_rule, ertc._roster_columns(staff), test == "all_months", first)[
            -1
        ]
    )


# --------------------------------------------------------------------------- NJ_ERTC_FTE

#: Part-time hours aggregated over the period (the catalog example's).
HOURS = D(2100)


def test_fte_under_todays_law() -> None:
    # 2,100 / (140 x 12) = 2,100 / 1,680 = 1.25, dated or not
    undated = ertc.explain_fte(HOURS)
    dated = ertc.explain_fte(HOURS, 12, "2027-01-15")
    assert (undated.fte, dated.fte) == (D("1.25"), D("1.25"))
    assert (undated.first_month, dated.first_month) == (None, IN_2027)
    first = dated.steps[0]
    assert (first.label, first.arithmetic) == (
        "First month of the period",
        "month 1 is January 2027; month 12 ends 2027-12-31",
    )
    assert dated.steps[1:] == undated.steps
    assert undated.steps[0].arithmetic == "2100 / (140 x 12) = 1.25"


def test_fte_drill_from_july_exact_and_steps(full_150: P.Parameter[int]) -> None:
    # 2027: January-June at 140 hours, July-December at 150: the period's full-time hours
    # 140 x 6 + 150 x 6 = 840 + 900 = 1,740; 2,100 / 1,740 = 35/29 = 1.20689655172...
    # -> 1.2068965517
    dated = ertc.explain_fte(HOURS, 12, IN_2027)
    assert dated.fte == D("1.2068965517")
    labels = [step.label for step in dated.steps]
    assert labels[1:3] == [
        "Months of the period at 140 hours a month",
        "Months of the period at 150 hours a month",
    ]
    assert [step.value for step in dated.steps[1:3]] == [6, 6]
    last = dated.steps[-1]
    assert "140 hours in months 1-6, 150 hours in months 7-12" in last.label
    assert last.arithmetic.startswith("2100 / (140 x 6 + 150 x 6) = 35/29 = 1.2068965517")
    # 2026, every month before July 2027: 2,100 / 1,680 = 1.25
    assert ertc.fte(HOURS, 12, IN_2026) == D("1.25")
    # from July 2027, every month at 150: 2,100 / (150 x 12) = 2,100 / 1,800 = 1.1666666667
    assert ertc.fte(HOURS, 12, dt.date(2027, 7, 1)) == D("1.1666666667")
    # five months from May 2027: May, June at 140, July-September at 150:
    # 140 x 2 + 150 x 3 = 280 + 450 = 730; 730 / 730 = 1
    assert ertc.fte(730, 5, "2027-05-31") == D(1)


def test_fte_drill_law_as_of(full_150: P.Parameter[int]) -> None:
    # the drill act was approved 2027-05-01: the law as of the day before knew 140 hours
    # throughout (2,100 / 1,680 = 1.25); from that day, 1.2068965517 as above
    then = ertc.explain_fte(HOURS, 12, IN_2027, law_as_of="2027-04-30")
    now = ertc.explain_fte(HOURS, 12, IN_2027, law_as_of="2027-05-01")
    assert (then.fte, now.fte) == (D("1.25"), D("1.2068965517"))
    # each names the act whose full-time hours it applied
    assert then.version == P.first_modelled("ertc").name
    assert now.version == "P.L.2027, c.999 (drill)"
    assert ertc.explain_fte(HOURS, 12, IN_2026).version == P.first_modelled("ertc").name
    with pytest.raises(InputError) as caught:
        ertc.fte(HOURS, 12, IN_2027, law_as_of="2002-12-31")
    assert caught.value.argument == "law_as_of"


def test_fte_drill_int64(full_150: P.Parameter[int]) -> None:
    # two rows, first months 2026-01 and 2027-01, hours over 100 (to the cent): as above,
    # 1.25 and 1.2068965517; and the second row under the law as of 2027-04-30: 1.25
    hours = Ratio(np.array([210_000, 210_000], np.int64), 100)
    got = ertc.fte_rule(Int64(), hours, 12, _days(IN_2026, IN_2027))
    assert got.den == 10**10
    assert got.num.tolist() == [12_500_000_000, 12_068_965_517]
    as_of = _days(dt.date(2027, 5, 1), dt.date(2027, 4, 30))
    then = ertc.fte_rule(Int64(), hours, 12, _days(IN_2027, IN_2027), as_of)
    assert then.num.tolist() == [12_068_965_517, 12_500_000_000]
    # the same rule text under the exact and explaining evaluators
    for first, row in ((IN_2026, 0), (IN_2027, 1)):
        exact = EXACT.run(ertc.fte_rule, HOURS, 12, first)
        value, _ = explain(ertc.fte_rule, HOURS, 12, first)
        assert Fraction(int(got.num[row]), got.den) == Fraction(exact) == Fraction(value)


def test_fte_undated_is_refused_once_the_figure_is_dated(full_150: P.Parameter[int]) -> None:
    with pytest.raises(InputError) as caught:
        ertc.fte(HOURS)
    assert caught.value.argument == "first_month"
    assert "150 hours for months from 2027-07-01" in caught.value.rule


def test_fte_excel_function_takes_the_first_month(full_150: P.Parameter[int]) -> None:
    from nj_incentives.runtimes import xlwings_classic as excel

    assert excel.NJ_ERTC_FTE(2100, None, dt.date(2027, 1, 1)) == pytest.approx(1.2068965517)
    assert excel.NJ_ERTC_FTE(2100, None, dt.date(2027, 1, 1), dt.date(2027, 4, 30)) == 1.25
    with pytest.raises(InputError, match="first_month = "):  # the headless callable
        excel.FUNCTIONS["NJ_ERTC_FTE"](2100)


def test_fte_dated_months_are_bounded() -> None:
    # a dated period reads each month: at most DATED_MONTHS_MAX (1,200) of them,
    # 2,100 / (140 x 1,200) = 2,100 / 168,000 = 0.0125; an undated one has no such bound:
    # 2,100 / (140 x 1,201) = 15 / 1,201 = 0.01248959200... -> 0.0124895920
    assert ertc.fte(HOURS, ertc.DATED_MONTHS_MAX, IN_2027) == D("0.0125000000")
    with pytest.raises(InputError) as caught:
        ertc.fte(HOURS, ertc.DATED_MONTHS_MAX + 1, IN_2027)
    assert (caught.value.argument, caught.value.value) == ("months", 1201)
    assert ertc.fte(HOURS, 1201) == D("0.0124895920")


@given(
    hours=st.decimals(min_value=0, max_value=10**6, places=2, allow_nan=False),
    months=st.integers(1, 60),
    first=st.dates(dt.date(1990, 1, 1), dt.date(2100, 12, 1)),
    as_of=st.none() | st.dates(dt.date(2003, 1, 1), dt.date(2100, 12, 31)),
)
def test_without_a_change_the_dated_fte_is_todays(
    hours: Decimal, months: int, first: dt.date, as_of: dt.date | None
) -> None:
    # with one full-time figure, a dated period is the undated one: hours / (140 x months),
    # the same steps after the one naming the first month; int64 agrees
    dated = ertc.explain_fte(hours, months, first, as_of)
    undated = ertc.explain_fte(hours, months)
    assert dated.fte == undated.fte
    expected = Fraction(hours) / (140 * months)
    assert dated.fte == Decimal(round(expected * 10**10)).scaleb(-10)
    assert dated.steps[1:] == undated.steps
    days = None if as_of is None else _days(as_of)
    got = ertc.fte_rule(
        Int64(), Ratio(np.array([int(hours * 100)]), 100), months, _days(first), days
    )
    assert Fraction(int(got.num[0]), got.den) == Fraction(dated.fte)
