"""One declaration per input (issue 12, item 3): the runner's masks and its scalar checks
come from each column's InputRule (scenarios/columns.py), built from law constants.

The property: for every input column and any cell value, the vectorised mask
(``convert(...).ok``) accepts a value only if the declaration's scalar check
(``InputRule.parse``) accepts it, and accepts every value the check accepts that is exact
in the kernel's unit (cents, 10^-9 of a fraction ...). A value the mask refuses goes to
the scalar path, which gives the core's message or computes it exactly.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.core import inputs
from nj_incentives.core.inputs import InputError, InputKind, InputRule
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.scenarios import columns, convert, scalar
from nj_incentives.scenarios.columns import INPUTS, SCALE, InputSpec, Kind

#: The runner's kind of column -> the kind of its declaration.
_KINDS = {
    Kind.MONEY: {InputKind.MONEY},
    Kind.FRACTION: {InputKind.FRACTION},
    Kind.GROWTH: {InputKind.NUMBER},
    Kind.COUNT: {InputKind.COUNT},
    Kind.POSITIONS: {InputKind.QUANTITY},
    Kind.DATE: {InputKind.DATE},
    Kind.BOOL: {InputKind.BOOLEAN},
    Kind.CHOICE: {InputKind.CHOICE},
}
NUMERIC = [spec for spec in INPUTS if spec.kind in SCALE]


def test_every_input_column_has_one_declaration_of_its_kind_with_a_citation() -> None:
    for spec in INPUTS:
        assert isinstance(spec.rule, InputRule), spec.name
        assert spec.rule.kind in _KINDS[spec.kind], spec.name
        assert spec.rule.citation, spec.name
        if spec.kind is Kind.CHOICE:
            assert spec.rule.choices, spec.name


def test_the_bounds_are_the_law_constants_not_copies() -> None:
    assert columns.MAX_TERM is beip.MAXIMUM_TERM_YEARS
    # where the law's scalar check has a declaration, the runner uses that very object
    assert columns.input_rule("term") is beip.TERM_INPUT
    assert beip.TERM_INPUT.high == beip.MAXIMUM_TERM_YEARS
    assert beip.TERM_INPUT.citation == beip.CITE_C
    assert columns.input_rule("accrual_year") is beip.ACCRUAL_YEAR_INPUT
    assert (beip.ACCRUAL_YEAR_INPUT.low, beip.ACCRUAL_YEAR_INPUT.high) == (
        beip.FIRST_ACCRUAL_YEAR,
        beip.LAST_ACCRUAL_YEAR,
    )
    assert columns.MIN_DATE is inputs.MIN_DATE
    assert columns.MAX_DATE is inputs.MAX_DATE
    assert columns.input_rule("tax_type").choices is ertc.TAX_TYPES
    assert columns.input_rule("cap_method").choices is beip.CAP_METHODS
    assert columns.input_rule("refund_period_limit").choices is ertc.REFUND_PERIOD_LIMITS
    assert scalar.RUNNER_LIMIT is columns.RUNNER_LIMIT
    # the runner's own limits cite the runner's documented limit
    assert columns.input_rule("withholdings_3").bound_citation == columns.RUNNER_LIMIT
    assert columns.input_rule("periods").citation == columns.RUNNER_LIMIT


def _mask(spec: InputSpec, value: object) -> bool:
    ok = convert.convert(pd.Series([value], dtype=object), spec).ok
    return bool(ok[0])


def _accepted(spec: InputSpec, value: object) -> Decimal | None:
    try:
        parsed = spec.rule.parse(value, spec.name)
    except InputError:
        return None
    return Decimal(parsed)


def _exact_in_unit(spec: InputSpec, value: object) -> bool:
    number = inputs.as_number(value, "value")  # the shortest round-trip reading
    scaled = number * SCALE[spec.kind]
    return scaled == scaled.to_integral_value()


def _values(spec: InputSpec) -> st.SearchStrategy[object]:
    low, high = spec.rule.numeric_bounds()
    unit = Decimal(1) / SCALE[spec.kind]
    edges = [low, high, low - unit, high + unit, low + unit, high - unit, Decimal(0)]
    return st.one_of(
        st.sampled_from([float(edge) for edge in edges]),
        st.sampled_from([str(edge) for edge in edges]),
        st.integers(min_value=-(10**15), max_value=10**15),
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15),
        st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
        st.booleans(),
    )


@pytest.mark.parametrize("spec", NUMERIC, ids=[spec.name for spec in NUMERIC])
@settings(max_examples=60, derandomize=True, deadline=None, database=None)
@given(data=st.data())
def test_the_mask_and_the_scalar_check_agree(spec: InputSpec, data: st.DataObject) -> None:
    value = data.draw(_values(spec))
    masked = _mask(spec, value)
    accepted = _accepted(spec, value)
    if masked:
        assert accepted is not None, (spec.name, value)
    elif accepted is not None:
        # the mask leaves only what is not exact in the kernel's unit to the scalar path
        assert not _exact_in_unit(spec, value), (spec.name, value)


def test_a_changed_declaration_changes_the_mask_and_the_check_alike() -> None:
    spec = columns.column_spec("new_employees_1")
    narrow = dataclasses.replace(spec, rule=dataclasses.replace(spec.rule, high=5))
    assert [_mask(narrow, value) for value in (0, 5, 6)] == [True, True, False]
    assert narrow.rule.parse(5, "new_employees_1") == 5
    with pytest.raises(InputError, match="new_employees_1 = 6: exceeds the scenario runner"):
        narrow.rule.parse(6, "new_employees_1")


def test_the_law_check_and_the_mask_refuse_the_same_term_and_accrual_year() -> None:
    term, accrual = columns.column_spec("term"), columns.column_spec("accrual_year")
    assert [_mask(term, v) for v in (0, 1, 10, 11)] == [False, True, True, False]
    with pytest.raises(InputError, match="the term of the grant must be from 1 to 10 years"):
        beip.validate_term(11)
    assert [_mask(accrual, v) for v in (2007, 2008, 2025, 2026)] == [False, True, True, False]
    with pytest.raises(InputError, match="accrued in calendar years 2008 to 2025 only"):
        beip.conversion_paragraph(2026)


def test_choices_are_coded_by_their_declared_order() -> None:
    spec = columns.column_spec("tax_type")
    column = convert.convert(pd.Series(["CBT", "insurance", "other"]), spec)
    assert column.values.tolist()[:2] == [ertc.TAX_TYPES.index("cbt"), 1]
    assert column.ok.tolist() == [True, True, False]


def test_a_bound_below_zero_says_not_negative_with_the_law_citation() -> None:
    rule = columns.input_rule("new_employees_2")
    with pytest.raises(InputError) as raised:
        rule.parse(-1, "new_employees_2")
    assert raised.value.rule == "must not be negative"
    assert raised.value.citation == beip.CITE_CAP
