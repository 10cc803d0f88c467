"""One parse rule per kind of input (law/inputs.py), and a regression test for each
defect of issue 11 item 1, named after it.

Every refusal is an input error naming the argument, the value, the rule and a
citation; none costs more than a moment, whatever the exponent.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

import fuzzcorpus
from nj_incentives.core import cells
from nj_incentives.core.inputs import (
    CITE_BOUNDS,
    InputError,
    InputKind,
    InputRule,
    as_bool,
    as_date,
    as_int,
    as_money,
    as_number,
)
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.runtimes import xlwings_classic as excel
from nj_incentives.scenarios.runner import run_scenarios

D = Decimal
F = excel.functions("text")


def refused(call: object, *args: object) -> InputError:
    with pytest.raises(InputError) as caught:
        call(*args)  # type: ignore[operator]
    assert caught.value.argument
    assert caught.value.citation
    return caught.value


# =========================================================================== the rules


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1234.56", D("1234.56")),
        (" 1,234,567.89 ", D("1234567.89")),
        ("-0.5", D("-0.5")),
        ("1.5E3", D("1500")),
        (".5", D("0.5")),
        ("12,345", D("12345")),
    ],
)
def test_well_formed_numeric_text_is_read_exactly(text: str, value: Decimal) -> None:
    assert as_number(text, "x") == value


@pytest.mark.parametrize("text", ["1,0,0", "1,5", "1.234,56", "12,34", "1,2345", ",5"])
def test_commas_in_numeric_text_are_not_deleted(text: str) -> None:
    # issue 11: "1,0,0" was 100, "1,5" was 15, "1.234,56" was 1.23456
    error = refused(as_number, text, "withholdings")
    assert "thousands" in error.rule
    assert error.citation == CITE_BOUNDS


@pytest.mark.parametrize("text", ["1_000", "0x10", "١٢", "NaN", "inf", "-Infinity", "sNaN"])
def test_text_that_python_reads_but_a_cell_does_not_is_refused(text: str) -> None:
    refused(as_number, text, "x", "N.J.S.A. 34:1B-129a.")


@pytest.mark.parametrize(
    ("function", "args"),
    [
        ("NJ_ERTC_FTE", ("1e-999999999",)),  # hours text in the ERTC example: > 300 s
        ("NJ_ERTC_FTE", ("1e10000000",)),  # > 300 s
        ("NJ_ERTC_NEW_POSITIONS", (0, "1e1000000")),  # 37 s
        ("NJ_BEIP_GRANT", ("1E+999999", 0.2)),
    ],
)
def test_unbounded_cpu_from_short_text_is_refused_at_once(function: str, args: tuple) -> None:
    # refused "at once": no runaway (CPU time, generous; no test asserts wall time: the
    # defects took 37 s to over 300 s, a refusal takes microseconds)
    started = time.process_time()
    text = F[function](*args)
    assert time.process_time() - started < fuzzcorpus.CALL_BUDGET_S
    assert text.startswith("#VALUE! ")
    assert "exponent" in text
    assert CITE_BOUNDS in text


def test_implausible_magnitudes_are_input_errors() -> None:
    for value in (1e27, "1e27", 1e30, 1e308, 10**13, D("1E+20")):
        error = refused(as_money, value, "withholdings")
        assert error.citation == CITE_BOUNDS
    assert as_money(D("9999999999999.99"), "x") == D("9999999999999.99")


def test_monthly_hours_are_at_most_the_hours_in_a_month() -> None:
    # 1e999999999 hours in a month: nothing bounded it
    hours = [[160] * 11 + [745]]
    error = refused(ertc.roster, hours)
    assert error.argument == "hours"
    assert "744" in error.rule
    assert ertc.roster([[744] * 12])[0].hours[0] == 744


def test_money_with_a_fraction_of_a_cent_is_an_input_error() -> None:
    # issue 10 item 7: an installment of 25.005 passed through
    for value in (25.005, "25.005", D("25.005"), "0.001"):
        error = refused(as_money, value, "amount")
        assert "fraction of a cent" in error.rule
    assert as_money("25.01", "amount") == D("25.01")


def test_float_noise_below_excels_15_digits_is_not_a_fraction_of_a_cent() -> None:
    # 0.1 + 0.2 = 0.30000000000000004 in binary: a worksheet's 0.30
    assert as_money(0.1 + 0.2, "amount") == D("0.3")
    assert as_money(1234567.1 + 0.2, "amount") == D("1234567.3")


def test_fractions_of_a_cent_are_refused_the_same_in_the_scenario_runner() -> None:
    frame = pd.DataFrame({"accrual_year": [2012, 2012], "conversion_amount": [1000.005, 0.1 + 0.2]})
    errors = run_scenarios(frame)["error"].tolist()
    assert errors[0] is not None
    assert "fraction of a cent" in errors[0]
    assert errors[1] is None


def test_dates_with_trailing_text_are_refused() -> None:
    # issue 11: only the first 10 characters were read ("2010-01-01 (approx.)" accepted)
    for text in ("2010-01-01 (approx.)", "2010-01-01x", "2010-01-011"):
        refused(as_date, text, "agreement_date", "N.J.S.A. 34:1B-129a.")
    assert as_date("2010-01-01", "d") == dt.date(2010, 1, 1)
    assert as_date("2010-01-01T12:30:00", "d") == dt.date(2010, 1, 1)
    assert as_date(" 2010-01-01 ", "d") == dt.date(2010, 1, 1)


def test_a_date_late_in_9999_names_a_rule() -> None:
    # issue 11: "NJ_X: unexpected ValueError"
    for function, args in (
        ("NJ_ERTC_CREDIT_YEARS", ("9999-12-31",)),
        ("NJ_ERTC_CREDIT_YEARS", (2958465,)),
        ("NJ_BEIP_REMOTE_WORK_CHECK", ("9999-06-30", 0.25)),
    ):
        text = F[function](*args)
        assert "unexpected" not in text, text
        assert CITE_BOUNDS in text, text


def test_large_numbers_name_a_rule_not_an_unexpected_error() -> None:
    for function, entry in excel.CATALOG.items():
        args = list(entry.example)
        for index in range(len(args)):
            for value in ("1e27", 1e308, "9" * 40):
                trial = list(args)
                trial[index] = value
                result = F[function](*trial)
                assert not (isinstance(result, str) and "unexpected" in result), (function, result)


def test_booleans_where_a_number_is_expected_are_refused() -> None:
    for value in (True, False):
        error = refused(as_number, value, "withholdings", "N.J.S.A. 34:1B-129a.")
        assert "TRUE/FALSE" in error.rule
    assert as_bool(1, "x") is True
    assert as_int(3.0, "x") == 3


def test_true_false_in_an_xlsx_money_column_do_not_compute_as_1_and_0() -> None:
    # calamine reads TRUE/FALSE cells as bool into an object column with the numbers
    amounts = pd.Series([1000, True, False], dtype=object)
    frame = pd.DataFrame({"accrual_year": [2012] * 3, "conversion_amount": amounts})
    result = run_scenarios(frame)
    errors = result["error"].tolist()
    assert errors[0] is None
    assert errors[1]
    assert "TRUE/FALSE" in errors[1]
    assert errors[2]
    assert "TRUE/FALSE" in errors[2]
    assert result["conversion_total"].isna().tolist() == [False, True, True]


def test_credit_refund_of_1e400_is_not_inf() -> None:
    # issue 11: NJ_BEIP_CREDIT_REFUND("1e400", 0) returned inf (not valid JSON)
    text = F["NJ_BEIP_CREDIT_REFUND"]("1e400", 0)
    assert isinstance(text, str)
    assert text.startswith("#VALUE! credit = '1e400'")


def test_a_non_finite_result_is_never_a_cell_value() -> None:
    entry = dataclasses.replace(excel.CATALOG["NJ_BEIP_GRANT"], show=lambda _: [[float("inf")]])
    with pytest.raises(cells.NonFiniteResult):
        entry.cells(1000, 0.2)


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan"), np.float64("inf")])
def test_a_non_finite_cell_among_text_dates_and_numbers_is_found(bad: float) -> None:
    # finite() passes over the cells that hold no float (text, dates, whole numbers,
    # blanks, TRUE/FALSE) and checks every float, a float subclass (numpy's) included
    row = ["Period", dt.date(2024, 12, 31), 3, True, None, 1.5]
    table = [row, [*row, [[2.0]]]]
    assert cells.finite(table, "NJ_X") is table
    for at in range(len(row) + 1):
        with pytest.raises(cells.NonFiniteResult):
            cells.finite([row, [*row[:at], bad, *row[at:]]], "NJ_X")
    with pytest.raises(cells.NonFiniteResult):
        cells.finite([[*row, [[2.0, bad]]]], "NJ_X")


def test_min_tax_group_rule_for_s_corporations_message_cites() -> None:
    # issue 11: one of 1,320 messages without a citation
    error = refused(cbt.minimum_tax, 300000, True, 0, "maybe")
    assert error.argument == "group_rule_for_s_corporations"


def test_explain_error_cell_arguments_cite() -> None:
    # the explained function's argument names the error cell, with its citation (issue
    # 22 item 11: "args = '#N/A' ... (NJ_EXPLAIN, docs/functions.md)" named no argument)
    text = F["NJ_EXPLAIN"]("NJ_BEIP_GRANT", "#N/A", 0.2)
    assert text == (
        "#VALUE! withholdings = '#N/A': the cell holds an error value (N.J.S.A. 34:1B-129a., b.)"
    )
    text = F["NJ_EXPLAIN"]("NOPE")
    assert text.endswith("(NJ_EXPLAIN, docs/functions.md)"), text


def test_functions_without_a_law_cite_their_reference() -> None:
    assert F["NJ_INCENTIVES_VERSION"]("both").endswith("docs/functions.md)")


# =========================================================================== declarations


def test_one_declaration_gives_the_scalar_check_and_the_vector_bounds() -> None:
    credit_year = InputRule(InputKind.COUNT, "N.J.S.A. 52:27BBB-55a.", 1, 2, "must be 1 or 2")
    assert credit_year.parse("2", "credit_year") == 2
    error = refused(credit_year.parse, 3, "credit_year")
    assert str(error) == "credit_year = 3: must be 1 or 2 (N.J.S.A. 52:27BBB-55a.)"
    assert credit_year.numeric_bounds() == (D(1), D(2))
    money = InputRule(InputKind.MONEY, "N.J.S.A. 34:1B-129a.")
    assert money.numeric_bounds() == (D(0), D(10) ** 13)
    assert money.parse("1,000.50", "withholdings") == D("1000.50")
    assert InputRule(InputKind.CHOICE, "c", choices=("cbt", "insurance")).parse("CBT", "t") == "cbt"
