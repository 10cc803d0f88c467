"""Subsection h. in the four programs that share it (issue 33, item 1): BEIP 34:1B-129 h.,
BRRAG 34:1B-120 b., Urban Transit Hub 34:1B-209 and Grow NJ 34:1B-247, each in its three
versions at their boundary dates, with each program's own acts and citations; the c.40
readings (the literal "beginning" start, deemed starts, the payment inside an enhanced
area, the conditions the check asks for, the Grow NJ / UTH reduction request)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from nj_incentives.core import parameters as P
from nj_incentives.core.common import InputError
from nj_incentives.programs import users
from nj_incentives.programs.remote_work import rules as rw

D = Decimal
PROGRAMS = ("beip", "brrag", "uth", "grow_nj")
SECTIONS = {
    "beip": "N.J.S.A. 34:1B-129h.",
    "brrag": "N.J.S.A. 34:1B-120b.",
    "uth": "N.J.S.A. 34:1B-209",
    "grow_nj": "N.J.S.A. 34:1B-247",
}
C40_DONE = {"enhanced_area": False, "payment_made": True, "commitment_extended": True}


def test_the_four_users_are_the_programs_of_the_text() -> None:
    assert tuple(found.key for found in users("remote_work")) == PROGRAMS
    for program in PROGRAMS:
        assert rw.law(program).h.cite == SECTIONS[program]
    # UTH and Grow NJ: the identity is an assumption, said in every citation
    assert "asserted by summaries" in rw.law("uth").cite
    assert "asserted by summaries" not in rw.law("brrag").cite


@pytest.mark.parametrize("program", PROGRAMS)
def test_versions_at_their_boundary_dates(program: str) -> None:
    version = rw.remote_work_version
    # 2023-12-31: the last day of c.134's waiver; 2024-01-01: the January 2024 act's
    # extension; 2024-03-20 (a day not deemed: more than 7 days before the month end):
    # still the January act; 2024-04-01: P.L.2024, c.40
    assert version(dt.date(2023, 12, 31), None, None, program) == "P.L.2022, c.134"
    assert version(dt.date(2024, 1, 1), None, None, program) == rw.H_VERSION_JANUARY_2024
    assert version(dt.date(2024, 3, 20), None, None, program) == rw.H_VERSION_JANUARY_2024
    assert version(dt.date(2024, 4, 1), None, None, program) == "P.L.2024, c.40"
    # an election on 2024-01-11 / 2024-01-12 (the January act's approval)
    assert version(None, dt.date(2024, 1, 11), None, program) == "P.L.2022, c.134"
    assert version(None, dt.date(2024, 1, 12), None, program) == rw.H_VERSION_JANUARY_2024
    # the law as of 2024-07-09 (the day before c.40's approval) does not read c.40
    as_of = dt.date(2024, 7, 9)
    assert version(dt.date(2024, 4, 1), None, as_of, program) == rw.H_VERSION_JANUARY_2024
    # each version's result cites the program's own section
    c134 = rw.remote_work_check("2023-06-30", 0.10, program=program)
    assert c134.ok
    assert c134.program == program
    assert all(SECTIONS[program].rstrip(".") in s.citation for s in c134.steps if s.citation)
    c40 = rw.remote_work_check(
        "2023-06-30", 0.40, period_start="2024-04-01", program=program, **C40_DONE
    )
    assert c40.ok
    assert c40.version == "P.L.2024, c.40"
    # and each program's statute record lists the three versions
    names = [act.name for act in P.STATUTES[program].acts]
    assert {"P.L.2022, c.134", rw.H_VERSION_JANUARY_2024, "P.L.2024, c.40"} <= set(names)


@pytest.mark.parametrize("program", PROGRAMS)
def test_payments_of_each_program_at_the_boundaries(program: str) -> None:
    # c.134: 5% x 412,345.67 = 20,617.2835 -> 20,617.28 (the 2022 tax period, calendar)
    c134 = rw.remote_work_payment("412345.67", "2022-12-31", program=program)
    assert c134.amount == D("20617.28")
    assert c134.version == "P.L.2022, c.134"
    # c.40, "containing": the calendar 2024 period ends 2024-12-31 >= 2024-04-01:
    # 10% x 1,234,567.89 = 123,456.789 -> 123,456.78
    c40 = rw.remote_work_payment("1234567.89", "2024-12-31", program=program)
    assert c40.amount == D("123456.78")
    assert c40.refundable is False
    # 2024-03-31, a March filer's 2023 period: ends before 2024-04-01: owes nothing, refused
    with pytest.raises(InputError, match="ends before 2024-04-01"):
        rw.remote_work_payment(100000, "2024-03-31", program=program)
    # the law as of 2024-07-09: no c.40 payment
    with pytest.raises(InputError, match=r"law_as_of 2024-07-09 is before P\.L\.2024, c\.40"):
        rw.remote_work_payment(100000, "2024-12-31", law_as_of="2024-07-09", program=program)


def test_the_literal_beginning_reading() -> None:
    # "tax periods beginning on or after April 1, 2024": a calendar 2024 period begins
    # 2024-01-01 (the 12 months ending 2024-12-31): not a c.40 period, refused; the
    # "containing" default takes it (10% x 100,000 = 10,000.00)
    with pytest.raises(InputError, match="begins before 2024-04-01"):
        rw.remote_work_payment(100000, "2024-12-31", c40_periods="beginning")
    assert rw.remote_work_payment(100000, "2024-12-31").amount == D("10000.00")
    # a March 31 filer's 2024 period begins 2024-04-01: c.40 under every reading
    march = rw.remote_work_payment(100000, "2025-03-31", c40_periods="beginning")
    assert march.amount == D("10000.00")
    # a 52-53-week filer: the period runs 2024-03-31 (Sunday) to 2025-03-29; its start is
    # deemed 2024-04-01 (the previous period ended 2024-03-30, deemed 2024-03-31)
    deemed = rw.remote_work_payment(
        100000, "2025-03-29", c40_periods="beginning", period_start="2024-03-31"
    )
    assert deemed.amount == D("10000.00")
    assert any(s.label == "Deemed start of the period" for s in deemed.steps)
    # the same period checked: its start is deemed 2024-04-01, so c.40 governs it
    check = rw.remote_work_check("2023-06-30", 0.40, period_start="2024-03-31", **C40_DONE)
    assert check.version == "P.L.2024, c.40"
    assert check.ok
    assert rw.deemed_period_start(dt.date(2024, 3, 31)) == dt.date(2024, 4, 1)
    assert rw.deemed_period_start(dt.date(2024, 3, 20)) == dt.date(2024, 3, 20)
    assert rw.deemed_period_start(dt.date(2024, 4, 5)) == dt.date(2024, 4, 1)


def test_the_payment_inside_an_enhanced_area_is_nil() -> None:
    # inside an enhanced area from 2024-04-01 there is no waiver, so no payment
    inside = rw.remote_work_payment(100000, "2024-12-31", enhanced_area=True, program="grow_nj")
    assert inside.amount == D("0.00")
    assert "no waiver" in inside.explain()
    outside = rw.remote_work_payment(100000, "2024-12-31", enhanced_area=False, program="grow_nj")
    assert outside.amount == D("10000.00")
    # before 2024-04-01 the area does not matter, but a bad value is still refused
    assert rw.remote_work_payment(100000, "2022-12-31", enhanced_area=True).amount == D("5000.00")
    with pytest.raises(InputError, match="enhanced_area = 'maybe'"):
        rw.remote_work_payment(100000, "2022-12-31", enhanced_area="maybe")


def test_the_c40_check_asks_for_its_conditions() -> None:
    base = {"period_start": "2024-04-01", "enhanced_area": False}
    blank = rw.remote_work_check("2023-06-30", 0.5, **base, program="brrag")
    assert not blank.ok
    assert [r.split(" ")[0] for r in blank.reasons] == ["commitment_extended", "payment_made"]
    assert all("N.J.S.A. 34:1B-120b. as amended by P.L.2024, c.40" in r for r in blank.reasons)
    unpaid = rw.remote_work_check(
        "2023-06-30", 0.5, **base, payment_made=False, commitment_extended=True
    )
    assert len(unpaid.reasons) == 1
    assert unpaid.reasons[0].startswith("payment_made FALSE")
    done = rw.remote_work_check(
        "2023-06-30",
        0.5,
        **base,
        payment_made="yes",
        commitment_extended="yes",
        commitment_end="2030-06-30",
    )
    assert done.ok
    assert done.extended_commitment_end == dt.date(2032, 6, 30)  # + 24 months


def test_the_reduction_request_of_grow_nj_and_uth() -> None:
    # before 2024-12-31: fine; on it: a reason; BEIP and BRRAG have no such request
    for program in ("grow_nj", "uth"):
        ok = rw.remote_work_check(
            "2023-06-30", 0.25, program=program, reduction_request_date="2024-12-30"
        )
        assert ok.ok
        late = rw.remote_work_check(
            "2023-06-30", 0.25, program=program, reduction_request_date="2024-12-31"
        )
        assert not late.ok
        assert "reduction_request_date 2024-12-31 is not before 2024-12-31" in late.reasons[0]
    with pytest.raises(InputError) as raised:
        rw.remote_work_check(
            "2023-06-30", 0.25, program="brrag", reduction_request_date="2024-06-30"
        )
    message = str(raised.value)
    assert message.startswith("reduction_request_date = '2024-06-30': is for Grow NJ and Urban")
    assert "P.L.2024, c.40" in message


def test_an_unknown_program_and_the_identity_switch() -> None:
    with pytest.raises(InputError) as raised:
        rw.remote_work_check("2023-06-30", 0.25, program="aspire")
    message = str(raised.value)
    # the argument, the value, the rule and the citation (the four sections)
    assert message.startswith('program = \'aspire\': must be one of "beip", "brrag"')
    assert "N.J.S.A. 34:1B-247" in message
    assert "P.L.2022, c.134" in message
    # text_identity "verified_only": UTH and Grow NJ refused, BEIP and BRRAG computed
    with pytest.raises(InputError, match="asserted by summaries only"):
        rw.remote_work_payment(100000, "2022-12-31", program="uth", text_identity="verified_only")
    assert rw.remote_work_payment(
        100000, "2022-12-31", program="brrag", text_identity="verified_only"
    ).amount == D("5000.00")


def test_commitment_end_per_program() -> None:
    # 2024-02-29 + 24 months = 2026-02-28 (no 2026-02-29), cited to Grow NJ's section
    found = rw.remote_work_commitment_end("2024-02-29", program="grow_nj")
    assert found.extended_end == dt.date(2026, 2, 28)
    assert found.program == "grow_nj"
    assert "N.J.S.A. 34:1B-247" in found.steps[0].citation
    # before c.40 (law as of 2024-07-09): not extended
    assert rw.remote_work_commitment_end(
        "2024-02-29", law_as_of="2024-07-09", program="uth"
    ).extended_end == dt.date(2024, 2, 29)


def test_legal_currency_lists_each_program_and_its_versions() -> None:
    # item 6: NJ_INCENTIVES_VERSION's text, the README's block and the docs are generated
    # from the programs' records: each program's section with the three versions of the
    # remote-work text, and what is known but not modelled
    from pathlib import Path

    from nj_incentives import LAW_CURRENT_TO

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    # (NJ_INCENTIVES_VERSION("law") is LAW_CURRENT_TO: tests/runtimes/test_excel_dispatch.py)
    for program in PROGRAMS:
        record = P.STATUTES[program]
        assert record.citation in LAW_CURRENT_TO
        assert P.statute_currency(program) in LAW_CURRENT_TO
        assert f"- {record.citation} ({record.title}): versions modelled" in readme
        assert "P.L.2024, c.40 (2024-07-10)" in P.statute_currency(program)
    assert "the subsection letter of the remote-work text in N.J.S.A. 34:1B-247" in readme
