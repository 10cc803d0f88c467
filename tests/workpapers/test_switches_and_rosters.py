"""Issue 20 item 6, the gaps left by NJ_INPUT's input checks:

- a Yes/No switch of the conversion template (TransferProposed, RemoteWorkElection,
  RemoteWorkC40) is read as every NJ_* function reads a boolean (``law.inputs.as_bool``):
  TRUE, 1, "Yes", "yes" are Yes; FALSE, 0, "No" and blank are No; anything else is
  refused and fails its input check naming the rule. Before, the formulas compared the
  cell with the text "Yes": TRUE (as openpyxl writes a boolean) or 1 silently read as No;
- the conversion's check "no tax year's credit applied exceeds its tax liability"
  compares the liabilities as the input rule reads them, never the text typed;
- the Form 313 roster's hours: one check per roster range (one NJ_INPUT_REFUSED call
  each), which names the first cell refused, its value, the rule and its citation, each
  once (the check's label gives way to its sheet: the refusal states the rule).

Through the headless recalculation (``calc``) and through LibreOffice (open and save,
then ``calc``).
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.core.inputs import InputError, InputKind, InputRule
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.runtimes import xlwings_classic as excel
from nj_incentives.workpapers.memo.sheets import checks
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from nj_incentives.workpapers.templates.builder import build_template
from tooling import libreoffice_save, need
from tooling import recalculate_as_calc as recalculate

EXAMPLES = DEFAULT_DIRECTORY / "examples"
CONVERSION = EXAMPLES / "beip-credit-conversion-example.xlsx"
ERTC = EXAMPLES / "ertc-form-313-example.xlsx"
FUNCTIONS = excel.functions(errors="raise")

#: The switch's cell as a person types it or a tool writes it -> Yes (True) or No (False)
SWITCH_VALUES: list[tuple[Any, bool]] = [
    (True, True),
    (1, True),
    ("Yes", True),
    ("yes", True),
    ("No", False),
    (False, False),
    (0, False),
]
ELECTION_RULE = "The business made the remote-work election: Yes or No (TRUE/FALSE, 1/0)"


def _cell(book: Any, name: str, index: int = 0) -> Any:
    ((sheet, ref),) = book.defined_names[name].destinations
    found = book[sheet][ref.replace("$", "")]
    if not isinstance(found, tuple):  # one cell
        return found
    return [c for row in found for c in row][index]


def _with(source: Path, path: Path, **values: Any) -> Path:
    book = openpyxl.load_workbook(source)
    for name, value in values.items():
        _cell(book, name).value = value
    book.save(path)
    return path


def _failed(recalc: Any) -> list[tuple[str, str]]:
    return [(label, cite) for label, cite, ok in checks(recalc) if ok is not True]


def _payment(recalc: Any) -> Decimal:
    """5% of the 2022 credit (N.J.S.A. 34:1B-129h.(2)), by the function itself."""
    return Decimal(str(FUNCTIONS["NJ_BEIP_REMOTE_WORK_PAYMENT"](recalc.value("Credit2022"))))


def _assert_switch(recalc: Any, yes: bool) -> None:
    if yes:
        assert recalc.value("RemoteWorkVerdict") == "OK"
        assert Decimal(str(recalc.value("RemoteWorkPayment"))) == _payment(recalc) > 0
    else:
        assert recalc.value("RemoteWorkVerdict") == "no election made"
        assert recalc.value("RemoteWorkPayment") == 0
    assert _failed(recalc) == []
    assert recalc.value("MasterCheck") is True


def _assert_refused(recalc: Any, shown: str) -> None:
    assert recalc.value("MasterCheck") is False
    assert (ELECTION_RULE, "N.J.S.A. 34:1B-129h.(2)") in _failed(recalc)
    # the verdict shows the refusal (not "no election made"): the rule and its citation
    assert str(recalc.value("RemoteWorkVerdict")) == (
        f"#VALUE! RemoteWorkElection = {shown}: must be TRUE or FALSE (or Yes/No, 1/0) "
        "(N.J.S.A. 34:1B-129h.(2))"
    )


@pytest.mark.parametrize(("value", "yes"), SWITCH_VALUES)
def test_a_switch_reads_as_the_functions_read_a_boolean(
    tmp_path: Path, value: Any, yes: bool
) -> None:
    _assert_switch(
        recalculate(_with(CONVERSION, tmp_path / "c.xlsx", RemoteWorkElection=value)), yes
    )


@pytest.mark.parametrize(("value", "shown"), [("maybe", "'maybe'"), (2, "2")])
def test_a_switch_neither_yes_nor_no_fails_its_input_check(
    tmp_path: Path, value: Any, shown: str
) -> None:
    path = _with(CONVERSION, tmp_path / "c.xlsx", RemoteWorkElection=value)
    _assert_refused(recalculate(path), shown)


def test_every_switch_and_check_reads_the_value_not_the_text() -> None:
    # the three switches: no formula of the conversion template compares with "Yes"/"No"
    from nj_incentives.programs.beip.templates import conversion as beip_conversion

    formulas = [str(getattr(item, "formula", "")) for item in beip_conversion.TEMPLATE] + [
        check.refusal for check in beip_conversion.CHECKS
    ]
    assert formulas
    assert not [f for f in formulas if re.search(r'="(Yes|No)"', f, re.IGNORECASE)]


def test_the_three_switches_no_and_yes(tmp_path: Path) -> None:
    # TRUE for all three (as openpyxl writes a boolean): the sale is checked, the election
    # and the c.40 waiver computed, exactly as with the text "Yes" of the example
    typed = recalculate(CONVERSION)
    tool = recalculate(
        _with(
            CONVERSION,
            tmp_path / "c.xlsx",
            TransferProposed=True,
            RemoteWorkElection=True,
            RemoteWorkC40=True,
        )
    )
    for name in ("TransferMinPrice", "TransferVerdict", "RemoteWorkPayment", "RemoteWorkC40Total"):
        assert tool.value(name) == typed.value(name), name
    assert typed.value("TransferVerdict") == "OK"
    assert tool.value("MasterCheck") is True


@pytest.mark.slow
@pytest.mark.libreoffice
def test_switches_through_libreoffice(tmp_path: Path) -> None:
    """Each value written by openpyxl, the file opened and saved by LibreOffice (one soffice
    run for all), then recalculated: the same reading."""
    soffice = need("soffice", "opens and saves the workbooks as a LibreOffice user would")
    cases = [*SWITCH_VALUES, ("maybe", None)]
    sources = []
    for n, (value, _) in enumerate(cases):
        sources.append(_with(CONVERSION, tmp_path / f"switch{n}.xlsx", RemoteWorkElection=value))
    libreoffice_save(soffice, sources, tmp_path / "saved", tmp_path / "profile")
    for source, (_, yes) in zip(sources, cases, strict=True):
        saved = tmp_path / "saved" / source.name
        assert saved.exists(), source.name
        recalc = recalculate(saved)
        # LibreOffice saves TRUE and FALSE as the formulas TRUE() and FALSE(): still the
        # template's formulas with an input, recalculated from its form as calc does
        assert recalc.method == "prebuilt", (source.name, recalc.notes)
        if yes is None:
            _assert_refused(recalc, "'maybe'")
        else:
            _assert_switch(recalc, yes)


# --------------------------------------------------------------------------- liabilities

LIABILITY_CHECK = "No tax year's credit applied exceeds its tax liability"


@pytest.mark.parametrize("text", ["150,000", "150,000.00", " 150000 "])
def test_a_liability_typed_as_text_the_rule_reads_passes(tmp_path: Path, text: str) -> None:
    # the example's first liability is 150,000; typed as text, the rule reads 150000
    book = openpyxl.load_workbook(CONVERSION)
    assert _cell(book, "TaxLiabilities").value == 150000
    _cell(book, "TaxLiabilities").value = text
    book.save(tmp_path / "c.xlsx")
    recalc = recalculate(tmp_path / "c.xlsx")
    assert _failed(recalc) == []
    assert recalc.value("TotalApplied") == recalculate(CONVERSION).value("TotalApplied")


@pytest.mark.parametrize("text", ["$150,000.00", "150.000,00"])
def test_a_liability_the_rule_refuses_fails_by_the_rule(tmp_path: Path, text: str) -> None:
    book = openpyxl.load_workbook(CONVERSION)
    _cell(book, "TaxLiabilities").value = text
    book.save(tmp_path / "c.xlsx")
    failed = _failed(recalculate(tmp_path / "c.xlsx"))
    assert ("Tax liability: dollars and cents, not negative", "N.J.S.A. 34:1B-129f.") in failed
    assert (LIABILITY_CHECK, "N.J.S.A. 34:1B-129f.") in failed


def test_the_liability_check_reads_the_liabilities_as_read() -> None:
    # the check compares numbers: the Calculations' liability as the rule reads it (the
    # column the functions' reading fills), against the credit applied
    from nj_incentives.programs.beip.templates import conversion as beip_conversion

    (check,) = [c for c in beip_conversion.CHECKS if c.label == LIABILITY_CHECK]
    assert "TaxLiabilities" not in check.formula  # read on Calculations, by the rule
    assert "Tax liability" in check.formula


# --------------------------------------------------------------------------- the roster


def _roster_cell(book: Any, name: str, row: int, month: int) -> Any:
    ((sheet, ref),) = book.defined_names[name].destinations
    return book[sheet][ref.replace("$", "")][row][month], sheet


@pytest.mark.parametrize(
    ("value", "rule", "cite"),
    [
        (800, ertc.HOURS_INPUT.rule, ertc.HOURS_INPUT.citation),
        (-5, "must not be negative", ertc.HOURS_INPUT.citation),
        ("abc", "must be a number", ertc.HOURS_INPUT.citation),
        ("1,5", None, None),  # a locale-ambiguous comma: the reading's own rule
    ],
)
def test_a_bad_hours_cell_fails_the_roster_check_naming_the_cell(
    tmp_path: Path, value: object, rule: str | None, cite: str | None
) -> None:
    book = openpyxl.load_workbook(ERTC)
    cell, sheet = _roster_cell(book, "HoursYear1", 4, 2)  # employee 5, month 3
    cell.value = value
    book.save(tmp_path / "e.xlsx")
    failed = _failed(recalculate(tmp_path / "e.xlsx"))
    (line,) = [(text, c) for text, c in failed if text.startswith(f"{sheet}, hours")]
    assert line[1] == ertc.HOURS_INPUT.citation
    try:
        ertc.HOURS_INPUT.parse(value, f"'{sheet}'!{cell.coordinate}")
    except InputError as error:
        refusal = str(error)
    else:  # pragma: no cover - every value above is refused
        raise AssertionError(value)
    # the sheet, then the cell, its value, the rule broken and its citation, each once
    assert line[0] == f"{sheet}, hours; the first cell refused: {refusal}"
    assert f"'{sheet}'!{cell.coordinate} = " in line[0]
    if rule is not None:
        assert refusal.endswith(f": {rule} ({cite})")
        assert line[0].count(rule) == line[0].count(f"({cite})") == 1


def test_a_roster_check_that_passes_reads_its_rule() -> None:
    recalc = recalculate(ERTC)
    (line,) = [label for label, _, ok in checks(recalc) if label.startswith("Part II base year")]
    rule = ertc.HOURS_INPUT.rule
    assert line == f"Part II base year: each month's hours are a number, not negative, and {rule}"


def test_hours_typed_as_text_the_rule_reads_pass(tmp_path: Path) -> None:
    book = openpyxl.load_workbook(ERTC)
    cell, _ = _roster_cell(book, "HoursBase", 0, 0)
    assert cell.value == 160
    cell.value = " 160 "
    book.save(tmp_path / "e.xlsx")
    assert _failed(recalculate(tmp_path / "e.xlsx")) == []


def test_a_continuation_sheet_is_checked_too(tmp_path: Path) -> None:
    employees = [
        {"name": f"E{n}", "base": [0] * 12, "year1": [160] * 12, "year2": [160] * 12}
        for n in range(ertc_credit.MAX_EMPLOYEES + 3)
    ]
    employees[-1]["year2"] = [160] * 11 + [745]  # employee 253, month 12, on sheet (2)
    employees[-2]["temporary"] = "perhaps"
    values = {**ertc_credit.EXAMPLE, "employees": employees}
    path = build_template(ertc_credit, tmp_path / "e.xlsx", values)
    failed = [label for label, _ in _failed(recalculate(path))]
    year2 = f"{ertc_credit.ROSTER_SHEETS['year2']} (2)"
    base = f"{ertc_credit.ROSTER_SHEETS['base']} (2)"
    assert any(
        label.startswith(f"{year2}, hours; the first cell refused: '{year2}'!")
        and "= 745: " in label
        for label in failed
    ), failed
    assert any(
        label.startswith(f"{base}, Temporary or seasonal; the first cell refused: ")
        and "= 'perhaps': must be TRUE or FALSE" in label
        for label in failed
    ), failed


def test_one_call_per_roster_range() -> None:
    # 3 periods x 1 sheet: three calls over 250 x 12 cells each, not one per cell (the
    # roster's refusals: the Corporate Transit Fee's period check has one of its own)
    refusals = [
        c.refusal for c in ertc_credit.CHECKS if c.refusal and "[[address:Hours" in c.refusal
    ]
    assert len(refusals) == len(ertc_credit.PERIODS)
    for refusal, (_, _, name) in zip(refusals, ertc_credit.PERIODS, strict=True):
        assert refusal.count("NJ_INPUT_REFUSED(") == 1
        assert f"[[address:Hours{name}]],Hours{name}," in refusal


# --------------------------------------------------------------------------- the function

NJ_INPUT_REFUSED = FUNCTIONS["NJ_INPUT_REFUSED"]
NJ_INPUT = FUNCTIONS["NJ_INPUT"]
_CELLS = st.one_of(
    st.none(),
    st.integers(min_value=-10, max_value=900),
    st.sampled_from(["160", "abc", "1,5", " ", "-3", "744", "745", True]),
)


@given(st.lists(st.lists(_CELLS, min_size=3, max_size=3), min_size=1, max_size=4))
def test_the_first_refusal_is_nj_inputs_first_refusal(rows: list[list[object]]) -> None:
    """NJ_INPUT_REFUSED names the first cell (along the rows) that NJ_INPUT refuses, with
    NJ_INPUT's own message but the cell's address; blank when NJ_INPUT refuses none."""
    rule = ertc.HOURS_INPUT
    args = ("quantity", "'S'!B2:D5", rows, "", 744, rule.citation, rule.rule)
    first = ""
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            try:
                NJ_INPUT("quantity", "X", cell, "", 744, rule.citation, rule.rule)
            except InputError as error:
                address = f"'S'!{'BCD'[j]}{2 + i}"
                first = first or str(error).replace("X = ", f"{address} = ", 1)
    assert NJ_INPUT_REFUSED(*args) == first


def test_a_name_that_is_not_an_address_numbers_the_cells() -> None:
    rule = InputRule(InputKind.BOOLEAN, "cite")
    assert NJ_INPUT_REFUSED("boolean", "Flags", [[True, "no"], [1, "maybe"]], "", "", "cite") == (
        "Flags[4] = 'maybe': must be TRUE or FALSE (or Yes/No, 1/0) (cite)"
    )
    assert rule.describe() == "Yes or No (TRUE/FALSE, 1/0)"
