"""The NJ_* functions without an xlwings runtime: plain calls, cell conventions, errors.

Outside Office.js and the classic add-in, ``xw.func`` is a no-op and the functions are
plain callables that return the short error text instead of raising. The headless
recalculation uses :func:`nj_incentives.excel.functions`, which behaves the same in
every runtime. The cell conventions (blank, dates, ranges) are checked here directly.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import textwrap
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.core import cells as conventions
from nj_incentives.core.common import InputError
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.runtimes import xlwings_classic as excel

PLAIN_ENV = {
    key: value
    for key, value in os.environ.items()
    if key not in ("XLWINGS_ON_SERVER", "XLWINGS_LICENSE_KEY")
}


def _run_plain(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter without xlwings' server mode; it prints JSON."""
    completed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=PLAIN_ENV,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def test_module_imports_and_works_without_server_mode() -> None:
    result = _run_plain(
        """
        import datetime as dt, json, sys
        import nj_incentives.excel as e
        lazy = [m for m in ("nj_incentives.programs.beip.rules",
                            "nj_incentives.programs.ertc.rules",
                            "nj_incentives.programs.cbt.rules", "pydantic") if m in sys.modules]
        print(json.dumps({
            "runtime": e.RUNTIME,
            "server": [m for m in ("xlwings.server", "xlwings.pro.udfs_officejs")
                       if m in sys.modules],
            "imported_at_import": lazy,
            "xlfunc": hasattr(e.NJ_BEIP_GRANT, "__xlfunc__"),
            "grant": e.NJ_BEIP_GRANT(1250000, 0.2),
            "hint": e.NJ_BEIP_GRANT(1250000, 50),
            "blank": e.NJ_BEIP_GRANT(None, 0.2),
            "years": str(e.NJ_ERTC_CREDIT_YEARS(dt.date(2023, 1, 1))[1][1]),
            "plain_years": e.functions()["NJ_ERTC_CREDIT_YEARS"](45000)[1][1],
        }))
        """
    )
    assert result["runtime"] == "plain"
    assert result["server"] == []
    assert result["imported_at_import"] == []  # the core loads on the first call
    assert result["xlfunc"] is False
    assert result["grant"] == 250000.0
    assert result["hint"] == (
        "#VALUE! pct = 50: a percentage is a fraction (50% = 0.5); did you mean 50%? "
        "(N.J.S.A. 34:1B-129a.)"
    )
    assert str(result["blank"]).startswith("#VALUE! withholdings = (blank): is required")
    assert result["years"] == "2023-01-01"  # a date object: xlwings renders it as a date
    assert result["plain_years"] == 45017  # 45000 = 2023-03-15 -> credit year one 2023-04-01


# =========================================================================== functions()


def test_functions_cover_the_catalog_by_excel_name() -> None:
    plain = excel.functions()
    assert list(plain) == list(excel.CATALOG)
    assert list(excel.FUNCTIONS) == list(excel.CATALOG)
    assert plain["NJ_BEIP_GRANT"].__name__ == "NJ_BEIP_GRANT"


def test_functions_return_errors_as_text() -> None:
    grant = excel.functions()["NJ_BEIP_GRANT"]
    assert grant(1250000, 0.2) == 250000.0
    assert grant(1250000, 50) == (
        "#VALUE! pct = 50: a percentage is a fraction (50% = 0.5); did you mean 50%? "
        "(N.J.S.A. 34:1B-129a.)"
    )
    assert grant("", 0.2) == (
        "#VALUE! withholdings = (blank): is required (N.J.S.A. 34:1B-129a., b.)"
    )


def test_functions_can_raise_the_core_error() -> None:
    grant = excel.functions(errors="raise")["NJ_BEIP_GRANT"]
    with pytest.raises(InputError) as raised:
        grant(1250000, 50)
    assert raised.value.argument == "pct"
    assert raised.value.citation == "N.J.S.A. 34:1B-129a."
    assert conventions.error_text(raised.value) == (
        "#VALUE! pct = 50: a percentage is a fraction (50% = 0.5); did you mean 50%? "
        "(N.J.S.A. 34:1B-129a.)"
    )


def test_functions_take_numpy_ranges_and_scalars() -> None:
    """The formulas engine passes 2-D numpy arrays and numpy scalars."""
    schedule = excel.functions()["NJ_BEIP_GRANT_SCHEDULE"]
    withholdings = np.array([[600000.0], [600000.0], [600000.0]], dtype=object)
    employees = np.array([[10.0, 12.0, 2.0]])
    table = schedule(withholdings, employees, np.float64(0.5), np.int64(40179))  # 2010-01-01
    expected = beip.grant_schedule([600000] * 3, [10, 12, 2], Decimal("0.5"), "2010-01-01")
    assert [row[5] for row in table[1:]] == [float(row.grant) for row in expected.rows]
    flag = excel.functions()["NJ_ERTC_ELIGIBILITY_CHECK"]
    assert flag(np.bool_(False), np.bool_(False)) == "OK"


def test_plain_results_hold_dates_as_serial_numbers() -> None:
    table = excel.functions()["NJ_ERTC_CREDIT_YEARS"]("2024-01-01")
    # 2024-01-01 is serial 45292; credit year one ends 2024-12-31 = 45657
    assert table[1] == [1, 45292, 45657]


def test_error_message_for_an_unexpected_failure_is_one_short_line() -> None:
    error = RuntimeError("x" * 500 + "\nTraceback (most recent call last)")
    message = conventions.error_message(error, "NJ_X")
    assert message.startswith("NJ_X: unexpected RuntimeError: xxx")
    assert "\n" not in message
    assert len(message) < 260


# =========================================================================== cell conventions


@pytest.mark.parametrize(
    ("serial", "day"),
    [
        (1, dt.date(1900, 1, 1)),
        (59, dt.date(1900, 2, 28)),
        (61, dt.date(1900, 3, 1)),
        (45292, dt.date(2024, 1, 1)),
        (45292.75, dt.date(2024, 1, 1)),  # the time of day is dropped
        (2958465, dt.date(9999, 12, 31)),
    ],
)
def test_excel_serial_numbers_are_dates(serial: float, day: dt.date) -> None:
    assert conventions.as_date_cell(serial, "d", "") == day


@pytest.mark.parametrize("serial", [0, -1, 60, 2958466, float("nan"), True])
def test_impossible_serial_numbers_are_errors(serial: float) -> None:
    with pytest.raises(InputError, match=r"^d = "):
        conventions.as_date_cell(serial, "d", "")


@given(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(9999, 12, 31)))
def test_serial_numbers_round_trip(day: dt.date) -> None:
    """Every real date, to its serial number and back (1900-02-29, serial 60, is no date)."""
    assert conventions.as_date_cell(conventions.to_cell_values(day), "d", "") == day


def test_dates_pass_as_date_datetime_or_iso_text() -> None:
    years = excel.functions()["NJ_ERTC_CREDIT_YEARS"]
    same = {
        str(years(value))
        for value in (
            dt.date(2023, 3, 15),
            dt.datetime(2023, 3, 15, 9, 30),
            "2023-03-15",
            45000,
            45000.0,
            [[45000]],
        )
    }
    assert len(same) == 1


@pytest.mark.parametrize(
    ("cells", "values"),
    [
        (5, [5]),
        ([1, 2, 3], [1, 2, 3]),  # a row (Office.js flattens one-row ranges)
        ([[1, 2, 3]], [1, 2, 3]),
        ([[1], [2], [3]], [1, 2, 3]),  # a column
        ([[1], [2], [None], [""]], [1, 2]),  # trailing blanks ignored
        ([[1], [None], [3]], [1, None, 3]),  # a blank inside stays (the core says which)
        ((1.0, 2.0), [1.0, 2.0]),  # the classic add-in passes tuples
    ],
)
def test_one_value_per_year_from_a_row_or_a_column(cells: object, values: list[object]) -> None:
    assert conventions.as_vector(cells, "v", "") == values


def test_a_grid_is_not_one_value_per_year() -> None:
    with pytest.raises(InputError, match="must be one row or one column"):
        conventions.as_vector([[1, 2], [3, 4]], "v", "")


def test_a_table_loses_trailing_blank_rows_and_columns() -> None:
    cells = [[1, 2, None], [3, 4, ""], [None, None, None]]
    assert conventions.as_table(cells, "t", "") == [[1, 2], [3, 4]]


def test_roster_flags_blank_or_missing_are_false() -> None:
    """Blank flag cells (and a flag column shorter than the roster) mean FALSE."""
    average = excel.functions()["NJ_ERTC_AVG_POSITIONS"]
    hours = [[160] * 12, [160] * 12, [160] * 12]
    expected = ertc.average_positions(ertc.roster(hours, [False, True, False]))
    assert average(hours, [[None], [True]]) == [[float(expected.average), 0.0]]
    assert average(hours, [[None], [True], [None], [None]]) == [[float(expected.average), 0.0]]


def test_roster_flags_of_blank_rows_after_the_last_employee_are_ignored() -> None:
    """An employee gone before the period (hours blank in the range's last used rows, the
    flags "No" as a payroll export fills them) is no employee: 3 rows of 160 hours, the
    second temporary, give the average of the two others, not a refusal of the flags."""
    average = excel.functions()["NJ_ERTC_AVG_POSITIONS"]
    hours = [[160] * 12, [160] * 12, [160] * 12, [None] * 12, [None] * 12]
    expected = ertc.average_positions(ertc.roster(hours[:3], [False, True, False]))
    flags = [["No"], ["Yes"], ["No"], ["No"], ["Yes"]]
    assert average(hours, flags, flags) == [[float(expected.average), 0.0]]
    assert str(average(hours, [*flags, ["No"]])).startswith("#VALUE! temporary")  # longer


def test_booleans_accept_true_false_one_zero_and_yes_no() -> None:
    limits = excel.functions()["NJ_BEIP_PCT_LIMITS"]
    smart = {str(limits("withholdings", flag)) for flag in (True, 1, 1.0, "Yes", "TRUE", "y")}
    plain = {str(limits("withholdings", flag)) for flag in (False, 0, 0.0, "No", "false", None)}
    assert smart == {"[[0.1, 0.8]]"}
    assert plain == {"[[0.1, 0.5]]"}


def test_text_arguments_ignore_case_and_spaces() -> None:
    limit = excel.functions()["NJ_BEIP_COMBINED_LIMIT"]
    assert limit(1000000, 0, " Withholdings ") == limit(1000000, 0, "WITHHOLDINGS") == 500000.0


def test_keyword_calls_match_positional_ones() -> None:
    grant = excel.CATALOG["NJ_BEIP_GRANT"]
    assert grant.cells(withholdings=1000000, pct=0.25) == grant.cells(1000000, 0.25) == 250000.0
    with pytest.raises(TypeError):
        grant.cells(1000000, 0.25, percent=1)
