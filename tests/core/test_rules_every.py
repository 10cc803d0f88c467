"""Every rule, under every evaluator (issue 19, item 8).

A rule of law is written once and run by three evaluators: the exact one (the amounts
path), the explaining one (the steps) and the int64 one (the scenario runner). Until
issue 19 a rule the runner did not call could fail under the int64 evaluator unseen (the
whole-term and proportional readings of the cap did: a fixed dollar figure times a column
of counts did not broadcast, so those rows silently left the vectorized path).

Here every function of ``law/`` (and the runner's two conveniences) whose first parameter
is the rule evaluator runs on one case under each evaluator; the three must agree to the
cent, the day and the exact fraction. A rule added without a case here fails
:func:`test_every_rule_has_a_case`. The one rule that cannot run in int64 (a power:
``transfer_price_rule``'s discount) is listed in :data:`EXACT_ONLY` with its reason.
"""

from __future__ import annotations

import datetime as dt
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from nj_incentives.core import scenario_sections
from nj_incentives.core.rules import EXACT, Int64, Ratio, Rules, explain
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.remote_work import rules as remote_work

EPOCH = dt.date(1970, 1, 1)
FRACTION_DEN = 10**9  # the runner's fraction scale
POSITION_DEN = 10**8  # the runner's positions scale


# --------------------------------------------------------------------------- typed inputs


@dataclass(frozen=True)
class M:
    """Money, dollars."""

    value: str


@dataclass(frozen=True)
class F:
    """A fraction (a percentage as a fraction), over the runner's 10^9."""

    value: str
    den: int = FRACTION_DEN


@dataclass(frozen=True)
class Q:
    """A quantity that may be fractional (positions, hours), over the runner's 10^8."""

    value: str
    den: int = POSITION_DEN


@dataclass(frozen=True)
class C:
    """A whole count (a column of counts in int64)."""

    value: int


@dataclass(frozen=True)
class B:
    """A yes/no column."""

    value: bool


def exact_value(x: Any) -> Any:
    if isinstance(x, M):
        return Decimal(x.value)
    if isinstance(x, F):
        return Decimal(x.value)
    if isinstance(x, Q):  # hours and positions as the core reads them: Decimal, or exact
        return Fraction(x.value) if "/" in x.value else Decimal(x.value)
    if isinstance(x, (C, B)):
        return x.value
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(exact_value(v) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(exact_value(v) for v in x)
    return x  # dates and the rule's structural arguments (labels, python ints, flags)


def int64_value(x: Any) -> Any:
    if isinstance(x, M):
        cents = Fraction(x.value) * 100
        assert cents.denominator == 1
        return np.array([int(cents)], np.int64)
    if isinstance(x, (F, Q)):
        num = Fraction(x.value) * x.den
        assert num.denominator == 1
        return Ratio(np.array([int(num)], np.int64), x.den)
    if isinstance(x, C):
        return np.array([x.value], np.int64)
    if isinstance(x, B):
        return np.array([x.value], bool)
    if isinstance(x, dt.date):
        return np.array([(x - EPOCH).days], np.int64)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(int64_value(v) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(int64_value(v) for v in x)
    return x


def same(exact: Any, got: Any, where: str = "result") -> None:
    """``got`` (an int64 result, one row) is ``exact`` (the exact result)."""
    if isinstance(exact, (list, tuple)):
        assert isinstance(got, (list, tuple)), where
        assert len(exact) == len(got), where
        for i, (e, g) in enumerate(zip(exact, got, strict=True)):
            same(e, g, f"{where}[{i}]")
        return
    if isinstance(got, Ratio):
        assert Fraction(int(np.ravel(got.num)[0]), got.den) == Fraction(exact), where
        return
    if exact is None or isinstance(exact, (str, Fraction)):  # a label's text, a constant
        assert got == exact or isinstance(exact, str), where  # labels: the explainer's only
        return
    one = np.ravel(np.asarray(got))
    assert one.size == 1, where
    value = one[0]
    if isinstance(exact, bool):
        assert bool(value) is exact, where
    elif isinstance(exact, dt.date):
        assert EPOCH + dt.timedelta(days=int(value)) == exact, where
    elif isinstance(exact, Decimal):
        assert Decimal(int(value)) / 100 == exact, where
    elif isinstance(exact, int):
        assert int(value) == exact, where
    else:  # pragma: no cover - a result kind this test does not know
        raise AssertionError(f"{where}: {exact!r} ({type(exact)})")


# --------------------------------------------------------------------------- the cases

D1 = dt.date(2010, 3, 15)
#: hours over 3 x 100: 86 2/3 hours (the part-time test, 20 x 52 / 12) is exact over it
HOURS_DEN = 300
EMPLOYEE = ertc._Employee(
    "Employee 1",
    tuple(
        Q(h, HOURS_DEN)
        for h in ("150", "100", "90", "87", "10", "0", "140", "139", "200", "86.5", "95", "0")
    ),
    B(False),
    B(False),
)
TERMS = ertc.ScheduleTerms(
    allowed_1=C(0),
    allowed_2=C(1),
    credit_1=M("25000.00"),
    credit_2=M("10000.00"),
    year1_new=Q("10"),
    year2_new=Q("8"),
    keep=C(-1),
    insurance=B(False),
)
GRANT_COLUMNS = (
    [M("600000.00"), M("700000.00"), M("500000.00")],
    [M("0.00"), M("0.00"), M("0.00")],
    [C(10), C(12), C(2)],
)

#: rule -> (arguments, typed). Each case is chosen so that the rule's branches bite:
#: the cap reduces a year, a credit exceeds the tax, a late approval moves the start.
CASES: dict[Callable[..., Any], tuple[Any, ...]] = {
    beip.pct_within_bounds: (F("0.5"), B(False), beip.Basis.WITHHOLDINGS),
    beip.grant_bounds: (F("0.5"), F("0"), B(True)),
    beip.grant_before_cap: (
        M("600000.00"),
        F("0.5"),
        M("100000.00"),
        F("0.25"),
        "Annual grant",
        "a.",
    ),
    beip._part: (M("600000.01"), F("0.333333333"), "Part", "a."),
    beip.cap_date_rule: (dt.date(2003, 7, 1),),
    beip.cap_version_rule: (dt.date(2003, 7, 1),),  # the act's code (0: the first)
    beip.cap_room: (C(7), M("200000.00"), M("50000.00")),
    beip.term_cap_years: (
        [M("300000.00"), M("300000.00"), M("300000.00")],
        [C(10), C(12), C(2)],
        True,
        M("50000.00"),
    ),
    beip.grant_years: (*GRANT_COLUMNS, F("0.5"), F("0"), dt.date(2010, 1, 1)),
    beip.grant_years_over_term: (*GRANT_COLUMNS, F("0.5"), F("0"), dt.date(2010, 1, 1), False),
    beip.combined_limit_rule: (M("1000000.00"), F("0.5"), M("120000.00"), "withholdings"),
    beip.grant_over_limit_rule: (M("300000.00"), M("250000.00")),
    beip.first_tax_year: (C(2017), B(True), B(True), dt.date(2017, 9, 15)),
    beip.installments: (
        M("100000.00"),
        [Q("1/3", 3), Q("1/3", 3), Q("1/3", 3)],
        C(3),
    ),
    beip.credit_application: (M("300000.00"), M("200000.00"), M("2000.00")),
    beip.transfer_price_rule: (M("1000000.00"), F("0.05"), Q("2")),
    beip.transfer_rule: (
        M("1000000.00"),
        M("50000.00"),
        M("30000.00"),
        F("0"),
        F("0.2"),
        B(False),
        Q("0"),
    ),
    # a 5% rate (within the 20% bound) over 2 years of a dated period: both terms hold
    beip.transfer_discount_rule: (F("0.05"), F("0.2"), Q("2"), B(True)),
    # pays a listed tax, its credit exceeds its liability (g.(2)); the buyer may owe one
    beip.transfer_eligibility_rule: (B(True), B(True), B(True)),
    remote_work.remote_work_payment_rule: (M("412345.67"),),
    remote_work.remote_work_rule: (dt.date(2023, 6, 30), F("0.25")),
    remote_work.remote_work_c40_rule: (F("0.4"), B(False)),  # 40%, outside: waived
    remote_work.commitment_extension_rule: (dt.date(2026, 2, 28),),  # + 24 months: 2028-02-28
    ertc.eligibility_rule: (B(False), B(False), B(True)),
    ertc.credit_amount_rule: (Q("10.5"), 1),
    ertc.positions_priced_rule: (Q("10.5"), B(False)),
    ertc.credit_limit_rule: (M("100000.00"), M("10000.00"), M("2000.00"), B(False)),
    ertc.period_order_rule: (dt.date(2022, 12, 31), dt.date(2023, 12, 31)),
    ertc.allowance_period_rule: (
        [dt.date(2021, 12, 31), dt.date(2022, 12, 31), dt.date(2023, 12, 31)],
        C(3),
        dt.date(2022, 3, 31),
    ),
    ertc.opening_rule: (
        C(0),
        B(False),
        dt.date(2025, 1, 1),
        dt.date(2024, 3, 31),
        B(True),
        M("1300.00"),
        C(2),
        M("12500.00"),
        C(5),
    ),
    ertc.refund_rule: (M("15000.00"), Q("10"), Q("8")),
    ertc.schedule_rule: (
        TERMS,
        [M("30000.00"), M("8000.00"), M("50000.00")],
        [M("1000.00"), M("0.00"), M("0.00")],
        [M("2000.00"), M("2000.00"), M("2000.00")],
    ),
    ertc.credit_years_rule: (D1,),
    ertc.base_year_rule: (dt.date(2010, 4, 1),),
    ertc.fte_rule: (Q("840.5", HOURS_DEN), C(12), dt.date(2023, 4, 1)),
    ertc.employee_positions_rule: (EMPLOYEE, False),
    ertc.positions_rule: ((EMPLOYEE, EMPLOYEE), True, dt.date(2023, 4, 1)),
    ertc.month_figures_rule: (dt.date(2023, 4, 1),),
    ertc.sustained_effort_ratio_rule: (Q("10"), Q("8")),
    cbt.deemed_period_end_rule: (dt.date(2023, 7, 7),),  # day 7: deemed 2023-06-30
    # its rule, which the exact evaluator's answers (one a day) are computed by
    cbt._deemed_end_of: (dt.date(2023, 7, 7),),
    scenario_sections.grown_rule: (M("100000.01"), F("0.035")),
    scenario_sections.growth_factor_rule: (F("-0.035"),),
    scenario_sections.grown_by_rule: (M("100000.01"), F("1.035")),
    scenario_sections.next_period_end_rule: (dt.date(2024, 2, 29),),
}

#: Rules that cannot run under the int64 evaluator, and why.
EXACT_ONLY = {
    # (1 + rate) ^ years with fractional years is not an integer operation; the runner
    # has no transfer section (its check is one call per proposed sale).
    beip.transfer_price_rule: "a power (discount to present value)",
    beip.transfer_rule: "its price is transfer_price_rule's",
}


def _is_rule(function: object) -> bool:
    if not inspect.isfunction(function):
        return False
    parameters = list(inspect.signature(function).parameters.values())
    return bool(parameters) and parameters[0].annotation in ("Rules", Rules)


def _all_rules() -> list[Callable[..., Any]]:
    found = []
    for module in (beip, cbt, ertc, scenario_sections):
        for _, function in inspect.getmembers(module, _is_rule):
            if function.__module__ == module.__name__:
                found.append(function)
    return found


def test_every_rule_has_a_case() -> None:
    rules = _all_rules()
    assert len(rules) > 30  # the search finds the rules (a test that cannot fail is none)
    missing = [rule.__qualname__ for rule in rules if rule not in CASES]
    missing = [name for name in missing if name != "schedule_totals_rule"]  # below
    assert not missing, f"rules without a case in CASES: {missing}"


@pytest.mark.parametrize("rule", list(CASES), ids=lambda rule: rule.__qualname__)
def test_rule_under_every_evaluator(rule: Callable[..., Any]) -> None:
    typed = CASES[rule]
    exact_args = exact_value(list(typed))
    exact = rule(EXACT, *exact_args)
    values, steps = explain(rule, *exact_args)
    assert values == exact
    assert all(step.citation for step in steps), [s.label for s in steps if not s.citation]
    if rule in EXACT_ONLY:
        with pytest.raises((NotImplementedError, TypeError)):
            rule(Int64(), *int64_value(list(typed)))
        return
    got = rule(Int64(), *int64_value(list(typed)))
    same(exact, got, rule.__qualname__)


#: A schedule starting after credit year one ended: year one's credit carried in (allowed
#: 2 periods before the first), expiring in period 1 with a limit of 3; year two allowed
#: in period 0, its refund of year one's credit there.
TERMS_CARRIED_IN = TERMS._replace(
    allowed_1=C(-2), allowed_2=C(0), keep=C(3), opening_1=M("1300.00"), opening_2=M("0.00")
)


def test_schedule_rule_with_credit_carried_in_under_every_evaluator() -> None:
    typed = (TERMS_CARRIED_IN, *CASES[ertc.schedule_rule][1:])
    exact_args = exact_value(list(typed))
    exact = ertc.schedule_rule(EXACT, *exact_args)
    values, steps = explain(ertc.schedule_rule, *exact_args)
    assert values == exact
    assert all(step.citation for step in steps)
    assert exact[0].carried_in == Decimal("1300.00")
    same(exact, ertc.schedule_rule(Int64(), *int64_value(list(typed))), "carried in")


def test_schedule_totals_rule_under_every_evaluator() -> None:
    typed = CASES[ertc.schedule_rule]
    exact_args = exact_value(list(typed))
    figures = ertc.schedule_rule(EXACT, *exact_args)
    exact = ertc.schedule_totals_rule(EXACT, figures, 3)
    values, _ = explain(ertc.schedule_totals_rule, figures, 3)
    assert values == exact
    arrays = ertc.schedule_rule(Int64(), *int64_value(list(typed)))
    same(exact, ertc.schedule_totals_rule(Int64(), arrays, np.array([3])), "totals")


def test_the_cap_readings_worked_example_in_int64() -> None:
    # 3 x 300,000 before the cap, 10 + 12 + 2 new employees: cap 50,000 x 24 / 3 =
    # 400,000; whole term: 300,000, 100,000, 0; proportional: 300,000 x 400,000 / 900,000 =
    # 133,333.33 each, the cent left over to year 3: 133,333.34
    befores = [np.array([30_000_000], np.int64)] * 3
    counts = [np.array([10]), np.array([12]), np.array([2])]
    cap = Decimal(50000)
    whole, _ = beip.term_cap_years(Int64(), befores, counts, False, cap)
    assert [int(g[0]) for _, g in whole] == [30_000_000, 10_000_000, 0]
    prop, _ = beip.term_cap_years(Int64(), befores, counts, True, cap)
    assert [int(np.ravel(g)[0]) for _, g in prop] == [13_333_333, 13_333_333, 13_333_334]
