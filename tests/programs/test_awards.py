"""Each award's compliance calendar and recapture exposure (issue 33, items 2-3): the
dated obligations the notes give, per program, with a March 1 on a weekend; the amount at
risk by year per program; bad input named (argument, value, rule, citation)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.core.common import InputError
from nj_incentives.programs.awards import rules as awards

D = Decimal


def _rows(calendar: awards.AwardCalendar, kind: str) -> list[awards.Obligation]:
    return [row for row in calendar.rows if row.kind == kind]


def test_beip_reports_by_march_1_and_the_weekend() -> None:
    # grant years 2012-2016 (5 years): reports due March 1 of 2013-2017
    calendar = awards.award_calendar("beip", "2012-12-31", 5)
    reports = _rows(calendar, "report")
    assert [row.due for row in reports] == [dt.date(y, 3, 1) for y in range(2013, 2018)]
    assert reports[0].year == 2012
    assert "forfeited" in reports[0].consequence
    assert reports[0].citation == "N.J.S.A. 34:1B-131 a."
    # March 1, 2014 was a Saturday and March 1, 2015 a Sunday: 34:1B-131 a. and the notes
    # give no rule moving a due date off a weekend, so it stays March 1 and says so
    saturday = next(row for row in reports if row.due == dt.date(2014, 3, 1))
    assert saturday.note.startswith("2014-03-01 is a Saturday: neither N.J.S.A. 34:1B-131 a.")
    assert "stays" in saturday.note
    sunday = next(row for row in reports if row.due == dt.date(2015, 3, 1))
    assert "Sunday" in sunday.note
    weekday = next(row for row in reports if row.due == dt.date(2013, 3, 1))  # a Friday
    assert weekday.note == ""


def test_beip_commitment_and_the_80_percent_test() -> None:
    # a 5-year term from 2012-01-01: 1.5 x 5 = 7.5 years = 90 months:
    # 2012-01-01 + 90 months - 1 day = 2019-06-30
    calendar = awards.award_calendar("beip", "2012-12-31", 5, base_employment=251)
    assert calendar.commitment_end == dt.date(2019, 6, 30)
    tests = _rows(calendar, "employment")
    # one a year from 2012 through the year the commitment ends in (2019-12-31 > end: not
    # included; the last is 2018-12-31)
    assert [row.due.year for row in tests] == list(range(2012, 2019))
    # 80% x 251 = 200.80: 201 employees (whole employees, up)
    assert "80% x 251 = 200.80: 201 employees" in tests[0].obligation
    assert tests[0].citation.startswith("N.J.A.C. 19:31I-1.6(a), (b)")
    end = _rows(calendar, "commitment")
    assert [row.due for row in end] == [dt.date(2019, 6, 30)]


def test_the_c40_extension_and_payments_on_the_calendar() -> None:
    # Grow NJ, eligibility 2020-2029 (calendar periods), commitment 1.5 x 10 = 15 years
    # from 2020-01-01: 2034-12-31; with the waiver: + 24 months = 2036-12-31, and a 10%
    # payment for each period ending on or after 2024-04-01 (2024 to 2029: six)
    calendar = awards.award_calendar("grow_nj", "2020-12-31", 10, c40_waiver=True)
    assert calendar.commitment_end == dt.date(2034, 12, 31)
    assert calendar.extended_commitment_end == dt.date(2036, 12, 31)
    payments = _rows(calendar, "payment")
    assert [row.due.year for row in payments] == list(range(2024, 2030))
    assert "no due date" in payments[0].note
    assert "10%" in payments[0].obligation


def test_beip_payments_are_for_the_installments_tax_years() -> None:
    # BEIP's credits are the converted installments, whose last tax year is 2025 (e.(12),
    # (13)): a calendar filer pays for the periods ending 2024-12-31 and 2025-12-31; a
    # June-30 filer for those ending 2024-06-30 (tax year 2023, it contains 2024-04-01),
    # 2025-06-30 and 2026-06-30 (tax year 2025)
    calendar = awards.award_calendar("beip", "2016-12-31", 10, c40_waiver=True)
    assert [row.due for row in _rows(calendar, "payment")] == [
        dt.date(2024, 12, 31),
        dt.date(2025, 12, 31),
    ]
    june = awards.award_calendar("beip", "2016-06-30", 10, c40_waiver=True)
    assert [row.due for row in _rows(june, "payment")] == [
        dt.date(2024, 6, 30),
        dt.date(2025, 6, 30),
        dt.date(2026, 6, 30),
    ]


def test_grow_nj_reports_120_days_and_the_statewide_test() -> None:
    # 2020-12-31 + 120 days = 2021-04-30 (January 31, February 28, March 31, April 30)
    calendar = awards.award_calendar("grow_nj", "2020-12-31", 2, statewide_base=500)
    reports = _rows(calendar, "report")
    assert [row.due for row in reports] == [dt.date(2021, 4, 30), dt.date(2022, 4, 30)]
    assert reports[0].citation == "N.J.A.C. 19:31Q-1.11(a)1"
    # 500 x (1 - 20%) = 400
    statewide = _rows(calendar, "employment")
    assert "not more than 20% below" in statewide[0].obligation
    assert "(at least 400 of 500)" in statewide[0].obligation
    # a June-30 filer: 2021-06-30 + 120 days = 2021-10-28
    june = awards.award_calendar("grow_nj", "2021-06-30", 1)
    assert _rows(june, "report")[0].due == dt.date(2021, 10, 28)


def test_brrag_certificates_and_uth_reports() -> None:
    # BRRAG: a certificate each March 1 for the remainder of the commitment (to 2026-12-31)
    brrag = awards.award_calendar("brrag", "2023-12-31", 1, commitment_end="2026-12-31")
    assert [row.due for row in _rows(brrag, "report")] == [
        dt.date(2024, 3, 1),
        dt.date(2025, 3, 1),
        dt.date(2026, 3, 1),
        dt.date(2027, 3, 1),
    ]
    assert _rows(brrag, "report")[0].citation.startswith("N.J.S.A. 34:1B-120 a.")
    # UTH: the 120-day report is secondary: shown with its source, or left out
    uth = awards.award_calendar("uth", "2020-12-31", 2, commitment_end="2030-12-31")
    assert [row.due for row in _rows(uth, "report")] == [dt.date(2021, 4, 30), dt.date(2022, 4, 30)]
    assert _rows(uth, "report")[0].note.startswith("secondary")
    omitted = awards.award_calendar(
        "uth", "2020-12-31", 2, commitment_end="2030-12-31", secondary="omit"
    )
    assert _rows(omitted, "report") == []
    assert "at least 200 full-time employees in new full-time positions" in (
        _rows(uth, "employment")[0].obligation
    )


def test_past_due_against_as_of() -> None:
    calendar = awards.award_calendar("beip", "2012-12-31", 5, as_of="2015-03-01")
    late = [row.due for row in calendar.past_due]
    assert dt.date(2014, 3, 1) in late
    assert dt.date(2015, 3, 1) not in late  # due that day: not yet past due


def test_filed_reports_payments_and_tests_over_against_as_of() -> None:
    # BEIP grant years ending 2012-12-31, 2013-12-31, 2014-12-31 (3 years): reports due
    # 2013-03-01, 2014-03-01, 2015-03-01. Filed 2013-02-20 (on time), 2014-03-03 (two days
    # late: the grant for 2013 may be forfeited, 34:1B-131 a.), the third not filed; as of
    # 2016-01-01 the third is past due; the employment tests of 2012-2015 are over ("ended",
    # not past due), 2016 and 2017 "open" (the commitment 1.5 x 3 = 4.5 years from
    # 2012-01-01 ends 2016-06-30)
    calendar = awards.award_calendar(
        "beip",
        "2012-12-31",
        3,
        as_of="2016-01-01",
        filed=["2013-02-20", "2014-03-03", None],
    )
    assert [(row.due, row.status) for row in _rows(calendar, "report")] == [
        (dt.date(2013, 3, 1), "filed"),
        (dt.date(2014, 3, 1), "filed late"),
        (dt.date(2015, 3, 1), "past due"),
    ]
    assert [row.status for row in _rows(calendar, "employment")] == ["ended"] * 4
    assert [row.status for row in _rows(calendar, "commitment")] == ["open"]
    assert [row.due for row in calendar.past_due] == [dt.date(2015, 3, 1)]
    # no as_of: only what was done has a status; a report filed on its due day is on time
    quiet = awards.award_calendar("beip", "2012-12-31", 3, filed=["2013-03-01"])
    assert [row.status for row in _rows(quiet, "report")] == ["filed", "", ""]
    # c.40's payments (BEIP: tax periods ending 2024-12-31 and 2025-12-31) made: "paid"
    paid = awards.award_calendar(
        "beip",
        "2016-12-31",
        10,
        c40_waiver=True,
        as_of="2026-12-01",
        payments_made=True,
    )
    assert [row.status for row in _rows(paid, "payment")] == ["paid", "paid"]
    unpaid = awards.award_calendar("beip", "2016-12-31", 10, c40_waiver=True, as_of="2026-12-01")
    assert [row.status for row in _rows(unpaid, "payment")] == ["past due", "past due"]


@pytest.mark.parametrize(
    ("call", "argument", "rule"),
    [
        (
            lambda: awards.award_calendar("beip", "2012-12-31", 2, filed=["2012-12-31"]),
            "filed = '2012-12-31'",
            "on or before the end of the period it reports on (2012-12-31)",
        ),
        (
            lambda: awards.award_calendar(
                "beip", "2012-12-31", 2, filed=[None, None, "2015-02-01"]
            ),
            "filed = '2015-02-01'",
            "a date for period 3: the term has 2",
        ),
        (
            lambda: awards.award_calendar("aspire", "2020-12-31", 10),
            "program = 'aspire'",
            "must be one of",
        ),
        (lambda: awards.award_calendar("beip", None, 10), "first_period_end = (blank)", "required"),  # type: ignore[arg-type]
        (
            lambda: awards.award_calendar("brrag", "2023-12-31", 1),
            "commitment_end = (blank)",
            "required for BRRAG",
        ),
        (lambda: awards.award_calendar("beip", "2012-12-31", 25), "years = 25", "1 to 20"),
        (
            lambda: awards.recapture_exposure("grow_nj", 2020, [1000], recapture_share=1.2),
            "recapture_share = 1.2",
            "at most 100%",
        ),
        (
            lambda: awards.recapture_exposure("beip", 2020, [1000], actual_jobs=[5]),
            "actual_jobs = [1 values]",
            "BRRAG",
        ),
    ],
)
def test_bad_input_is_named(call: object, argument: str, rule: str) -> None:
    with pytest.raises(InputError) as raised:
        call()  # type: ignore[operator]
    message = str(raised.value)
    assert message.startswith(argument), message
    assert rule in message
    assert "N.J." in message  # the citation


def test_recapture_exposure_per_program() -> None:
    # BEIP: grants of 300,000.00 a year for 3 years, the Authority's share an input (60%):
    # at risk in year 3: 900,000.00 x 60% = 540,000.00; a missing report forfeits the year's
    beip = awards.recapture_exposure("beip", 2012, ["300000", "300000", "300000"], "0.6")
    assert [row.at_risk for row in beip.rows] == [D("180000.00"), D("360000.00"), D("540000.00")]
    assert beip.rows[1].report_forfeiture == D("300000")
    assert beip.rows[0].citation.startswith("N.J.S.A. 34:1B-131 a.")
    # Grow NJ: 400,000.00 a year for 2 years, all recaptured, with 12,345.67 interest and
    # 1,000.00 penalties: 800,000.00 + 13,345.67 = 813,345.67
    grow = awards.recapture_exposure(
        "grow_nj", 2020, [400000, 400000], interest="12345.67", penalties=1000
    )
    assert grow.total_at_risk == D("813345.67")
    # BRRAG: 250,000.00 with 97 of 120 retained jobs: 250,000.00 x 23 / 120 = 47,916.666..
    # -> 47,916.66 forfeited (rounded down)
    brrag = awards.recapture_exposure("brrag", 2024, [250000], agreed_jobs=120, actual_jobs=[97])
    assert brrag.rows[0].employment_reduction == D("47916.66")
    # UTH: 10,000,000.00 a year; 199 new positions (fewer than 200): 20% = 2,000,000.00;
    # 200: nothing
    uth = awards.recapture_exposure("uth", 2020, [10000000, 10000000], actual_jobs=[199, 200])
    assert [row.employment_reduction for row in uth.rows] == [D("2000000.00"), D("0.00")]


@settings(max_examples=40, deadline=None)
@given(
    credits=st.lists(st.integers(0, 10**9), min_size=1, max_size=10),
    share=st.fractions(0, 1, max_denominator=1000),
)
def test_exposure_never_exceeds_what_was_taken(credits: list[int], share: object) -> None:
    exposure = awards.recapture_exposure(
        "grow_nj",
        2020,
        [D(c) / 100 for c in credits],
        D(share.numerator) / D(share.denominator),  # type: ignore[attr-defined]
    )
    total = sum(D(c) / 100 for c in credits)
    assert exposure.total_at_risk <= total
    assert all(
        a.at_risk <= b.at_risk for a, b in zip(exposure.rows, exposure.rows[1:], strict=False)
    )


def test_the_calendar_command_writes_csv_and_ics(tmp_path: Path) -> None:
    from nj_incentives.cli import calendar as command

    lines: list[str] = []
    status = command.run(
        "beip",
        "2012-12-31",
        "5",
        as_of="2015-01-01",
        csv_path=tmp_path / "c.csv",
        ics_path=tmp_path / "c.ics",
        out=lines.append,
        now=dt.datetime(2026, 12, 4, tzinfo=dt.UTC),
    )
    assert status == 1  # reports of 2013 and 2014 past due
    csv_text = (tmp_path / "c.csv").read_text(encoding="utf-8")
    assert csv_text.splitlines()[0] == "due,kind,obligation,year,consequence,citation,note,status"
    ics = (tmp_path / "c.ics").read_bytes().decode("utf-8")
    assert ics.startswith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n")
    assert "DTSTART;VALUE=DATE:20140301\r\n" in ics
    assert ics.count("BEGIN:VEVENT") == csv_text.count("\n") - 1
    assert all(len(line.encode()) <= 75 for line in ics.split("\r\n"))
    # a bad argument: nothing written, exit 2
    assert command.run("beip", "not a date", "5", csv_path=tmp_path / "x.csv") == 2
    assert not (tmp_path / "x.csv").exists()
