"""The law as dated data (issue 19, items 1 and 3): law.parameters, its lookup under the
three evaluators, ``law_as_of``, and the amendment drill."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.law import beip
from nj_incentives.law import parameters as P
from nj_incentives.law.common import InputError, as_law_as_of
from nj_incentives.law.rules import EXACT, Int64, explain

D = Decimal

#: A made-up amendment for the drill (no such act exists): the average cap $60,000 for
#: agreements entered into from 2025-01-01, enacted 2024-12-01.
DRILL_ACT = P.Act("beip", "P.L.2024, c.999 (drill)", dt.date(2024, 12, 1), source="test fixture")
DRILL = P.Version(
    D(60000),
    DRILL_ACT,
    applies_from=dt.date(2025, 1, 1),
    change="average cap raised to $60,000",
    modelled="by the agreement date",
)


@pytest.fixture
def cap_60000() -> Iterator[P.Parameter[Decimal]]:
    with P.amended(P.AVERAGE_CAP, DRILL) as param:
        yield param


# --------------------------------------------------------------------------- the model


def test_every_figure_is_registered_with_its_sources() -> None:
    assert P.PARAMETERS["beip.average_cap"] is P.AVERAGE_CAP
    for param in P.PARAMETERS.values():
        assert param.citation, param
        assert param.versions, param
        for version in param.versions:
            assert version.act in P.STATUTES[param.statute].acts, param
            assert version.act.source, param


def test_lookup_by_date_and_law_as_of(cap_60000: P.Parameter[Decimal]) -> None:
    # agreements before 2025: the figure of the text; from 2025-01-01: the amendment's
    assert cap_60000.at(dt.date(2024, 12, 31)) == D(50000)
    assert cap_60000.at(dt.date(2025, 1, 1)) == D(60000)
    # the law as it stood before the act was enacted (2024-12-01): the old figure
    assert cap_60000.at(dt.date(2025, 6, 1), as_of=dt.date(2024, 11, 30)) == D(50000)
    assert cap_60000.at(dt.date(2025, 6, 1), as_of=dt.date(2024, 12, 1)) == D(60000)
    assert cap_60000.version(dt.date(2025, 6, 1)).act is DRILL_ACT
    assert cap_60000.version(dt.date(2020, 6, 1)).act is P.BASE_BEIP
    assert cap_60000.summary() == (
        "$50,000; $60,000 for agreement dates from 2025-01-01"
        " (P.L.2024, c.999 (drill) (2024-12-01))"
    )
    # the fixture leaves the figure as it was
    assert DRILL_ACT in P.STATUTES["beip"].acts


def test_amended_restores() -> None:
    with P.amended(P.AVERAGE_CAP, DRILL):
        pass
    assert P.AVERAGE_CAP.versions == (P.Version(D(50000), P.BASE_BEIP),)
    assert DRILL_ACT not in P.STATUTES["beip"].acts


def test_show() -> None:
    assert P.AVERAGE_CAP.text() == "$50,000"
    assert P.show(D("562.50"), "money") == "$562.50"
    assert P.MINIMUM_GRANT_PCT.text() == "10%"
    assert P.CAP_AGREEMENTS_FROM.text() == "July 1, 2003"
    assert P.FULL_TIME_HOURS_PER_MONTH.text() == "140 hours"


# --------------------------------------------------------------------------- law_as_of


def test_law_as_of_input() -> None:
    assert as_law_as_of(None, "beip") is None
    assert as_law_as_of("", "beip") is None
    assert as_law_as_of("2024-07-10", "beip") == dt.date(2024, 7, 10)
    with pytest.raises(InputError) as error:
        as_law_as_of("2010-01-01", "beip")
    text = str(error.value)
    assert "law_as_of" in text
    assert "2010-01-01" in text
    assert "versions available: P.L.2022, c.134 (2022-07-01)" in text
    with pytest.raises(InputError) as error:
        as_law_as_of("soon", "ertc")
    text = str(error.value)
    assert "law_as_of" in text
    assert "soon" in text
    assert "versions available: P.L.2002, c.43" in text


def test_grant_schedule_under_two_versions(cap_60000: P.Parameter[Decimal]) -> None:
    # 2025 agreement, one year, 1 new employee, 1,000,000 withholdings at 10%:
    # 100,000.00 before the cap; cap 60,000 x 1 under the amendment, 50,000 x 1 before it
    args = ([1000000], [1], "0.1", "2025-03-01")
    now = beip.grant_schedule(*args)
    then = beip.grant_schedule(*args, law_as_of="2024-06-30")
    assert now.total == D("60000.00")
    assert then.total == D("50000.00")


# --------------------------------------------------------------------------- the drill


def _schedule(date: str, method: str = "per_year") -> beip.GrantSchedule:
    # two years of 1,000,000.00 withholdings at 50% (500,000.00 before the cap) with 5 new
    # employees each: per year, cap room 5 x cap - paid before
    return beip.grant_schedule([1000000, 1000000], [5, 5], "0.5", date, cap_method=method)


def test_amendment_drill_labels_notes_whole_term(cap_60000: P.Parameter[Decimal]) -> None:
    new, old = _schedule("2025-01-01"), _schedule("2024-12-31")
    # per year: year 1 room 60,000 x 5 = 300,000 (old 50,000 x 5 = 250,000)
    assert new.rows[0].grant == D("300000.00")
    assert old.rows[0].grant == D("250000.00")
    assert new.rows[0].note.startswith("cap room max(0, 60,000.00 x 5 - 0.00) = 300,000.00")
    assert old.rows[0].note.startswith("cap room max(0, 50,000.00 x 5 - 0.00) = 250,000.00")
    labels_new = " ".join(step.label for step in new.steps)
    labels_old = " ".join(step.label for step in old.steps)
    assert "$60,000 average cap" in labels_new
    assert "$50,000" not in labels_new
    assert "$50,000 average cap" in labels_old
    assert "$60,000" not in labels_old
    # whole term: 60,000 x 10 / 2 = 300,000 (old 250,000), paid in order: 300,000 + 0
    whole_new, whole_old = (
        _schedule("2025-01-01", "whole_term"),
        _schedule("2024-12-31", "whole_term"),
    )
    assert whole_new.total == D("300000.00")
    assert whole_old.total == D("250000.00")
    whole_labels = " ".join(step.label for step in whole_new.steps)
    assert "($60,000 x the average new employees)" in whole_labels
    cap = beip.explain_cap_applies("2025-01-01").steps[0].label
    assert cap.startswith("The $60,000 average cap applies")


def test_amendment_drill_vectorized(cap_60000: P.Parameter[Decimal]) -> None:
    # the int64 evaluator picks the figure per row by the row's agreement date
    days = np.array(
        [(d - dt.date(1970, 1, 1)).days for d in (dt.date(2024, 12, 31), dt.date(2025, 1, 1))]
    )
    cap = Int64().law(P.AVERAGE_CAP, days)
    assert cap.tolist() == [5_000_000, 6_000_000]  # cents
    known = np.array([(dt.date(2024, 11, 30) - dt.date(1970, 1, 1)).days] * 2)
    assert Int64().law(P.AVERAGE_CAP, days, known).tolist() == [5_000_000, 5_000_000]
    w = [np.array([100_000_000, 100_000_000])] * 2  # 1,000,000.00 in cents, each year
    zero = [np.array([0, 0])] * 2
    e = [np.array([5, 5])] * 2
    half = D("0.5")
    _, total = beip.grant_years(Int64(), w, zero, e, half, D(0), days)
    # per year, 500,000 before the cap each year, 5 new employees each year: the 2024 row
    # 250,000 (room 50,000 x 5) + 0 (room 50,000 x 5 - 250,000) = 250,000; the 2025 row
    # 300,000 (60,000 x 5) + 0 (60,000 x 5 - 300,000) = 300,000
    assert total.tolist() == [25_000_000, 30_000_000]


@given(st.dates(dt.date(1990, 1, 1), dt.date(2040, 12, 31)))
def test_vectorized_lookup_is_the_exact_lookup(day: dt.date) -> None:
    with P.amended(P.AVERAGE_CAP, DRILL):
        days = np.array([(day - dt.date(1970, 1, 1)).days])
        assert Int64().law(P.AVERAGE_CAP, days)[0] == int(P.AVERAGE_CAP.at(day) * 100)
        assert EXACT.law(P.AVERAGE_CAP, day) == P.AVERAGE_CAP.at(day)
        value, _ = explain(lambda r, d: r.law(P.AVERAGE_CAP, d), day)
        assert value == P.AVERAGE_CAP.at(day)
