"""Issue 20 item 6: an input typed as text ("40%", "320,000.00", " 1,250,000 ") is read or
refused exactly as the NJ_* functions read it: by NJ_INPUT in the template's own formulas
(the Checks sheet's), in ``calc`` and in ``fill``; and a failed check names the rule that
fails with its citation, in the words of the rule the functions apply (never retyped)."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.core.inputs import InputError, InputKind, InputRule
from nj_incentives.programs import template_inputs
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.beip.templates import grant as beip_grant
from nj_incentives.runtimes import xlwings_classic as excel
from nj_incentives.workpapers import fill
from nj_incentives.workpapers.memo import checks
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from tooling import recalculate_as_calc as recalculate

GRANT = DEFAULT_DIRECTORY / "examples" / "beip-grant-schedule-example.xlsx"
NJ_INPUT = excel.functions(errors="raise")["NJ_INPUT"]


def _call(rule: InputRule, value: object, name: str = "X") -> Any:
    """NJ_INPUT as a template's formula calls it (read_formula's arguments)."""
    return NJ_INPUT(
        rule.kind.value,
        name,
        value,
        "" if rule.low is None else float(rule.low),
        "" if rule.high is None else float(rule.high),
        rule.citation,
        rule.rule,
        "|".join(rule.choices),
    )


def _functions_reading(rule: InputRule, value: object) -> Any:
    """What the functions' own input rule makes of ``value`` (as a cell shows it)."""
    parsed = rule.parse(value, "X")
    return float(parsed) if isinstance(parsed, Decimal) else parsed


_MONEY = InputRule(InputKind.MONEY, "cite")
_PCT = InputRule(InputKind.FRACTION, "N.J.S.A. 34:1B-129a.", Decimal(0), Decimal("0.8"))


@pytest.mark.parametrize(
    ("rule", "text", "read"),
    [
        (_PCT, "40%", 0.4),
        (_MONEY, "320,000.00", 320000.0),
        (_MONEY, " 1,250,000 ", 1250000.0),
        (beip.TERM_INPUT, "5", 5),
    ],
)
def test_the_issue_texts_are_read_as_the_functions_read_them(
    rule: InputRule, text: str, read: object
) -> None:
    assert _call(rule, text) == read == _functions_reading(rule, text)


def test_a_term_of_11_is_refused_with_the_rule_and_its_citation() -> None:
    with pytest.raises(InputError) as refused:
        _call(beip.TERM_INPUT, 11, "Term")
    # the rule's own words: "the term of the grant must be from 1 to 10 years"
    assert str(refused.value) == f"Term = 11: {beip.TERM_INPUT.rule} (N.J.S.A. 34:1B-129c.)"


#: non-blank text (a blank cell stays blank: whether it may be blank is each check's)
_TEXTS = st.one_of(
    st.text(alphabet="0123456789,.% -eE", min_size=1, max_size=12).filter(str.strip),
    st.decimals(min_value=0, max_value=10**9, places=2).map(lambda d: f"{d:,}"),
    st.decimals(min_value=0, max_value=100, places=1).map(lambda d: f"{d}%"),
    st.integers(min_value=-5, max_value=10**7).map(lambda n: f" {n:,} "),
)


@given(_TEXTS, st.sampled_from([_MONEY, _PCT, beip.TERM_INPUT]))
def test_nj_input_reads_or_refuses_text_as_the_functions_do(text: str, rule: InputRule) -> None:
    outcomes = []
    for read in (_functions_reading, _call):
        try:
            outcomes.append(("read", read(rule, text)))
        except InputError as error:
            outcomes.append(("refused", error.rule))
    assert outcomes[0] == outcomes[1]


@given(_TEXTS)
def test_fill_reads_or_refuses_text_as_the_functions_do(text: str) -> None:
    declared = fill.template_inputs("beip-grant-schedule")
    for name in ("Term", "GrantPct", "Withholdings"):
        rule = declared[name].rule
        assert rule is not None
        try:
            expected = _functions_reading(rule, text)
        except InputError:
            with pytest.raises(InputError):
                declared[name].read(text, name)
            continue
        if expected is None:  # blank text
            continue
        assert declared[name].read(text, name) == expected


def test_fill_and_the_template_formulas_use_one_rule_per_input() -> None:
    # the Checks sheet's NJ_INPUT calls carry the rules fill checks DATA with
    for template in fill.TEMPLATE_IDS:
        module = fill._module(template)
        declared = fill.template_inputs(template)
        ours = template_inputs.rules(module.TEMPLATE)
        for name, rule in ours.items():
            assert declared[name].rule == rule, (template, name)
        formulas = " ".join(c.formula for c in module.CHECKS)
        for name, rule in ours.items():
            if rule is not None:
                assert template_inputs.read_formula(name, rule) in formulas, (template, name)


def _grant_with(tmp_path: Path, **cells: object) -> Path:
    book = openpyxl.load_workbook(GRANT)
    for name, value in cells.items():
        # the input's cell by its defined name (the rows move as the Inputs sheet grows)
        ((sheet, cell),) = book.defined_names[name].destinations
        book[sheet][cell.replace("$", "")] = value
    path = tmp_path / "grant.xlsx"
    book.save(path)
    return path


def _failed(path: Path) -> list[tuple[str, str]]:
    return [(label, cite) for label, cite, ok in checks(recalculate(path)) if ok is not True]


def test_a_term_of_11_fails_the_check_that_names_the_rule(tmp_path: Path) -> None:
    failed = _failed(_grant_with(tmp_path, Term=11))
    assert (f"Term: {beip.TERM_INPUT.rule}", "N.J.S.A. 34:1B-129c.") in failed
    result = subprocess.run(
        [sys.executable, "-m", "nj_incentives.cli", "calc", str(tmp_path / "grant.xlsx")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 1
    assert (
        "failed: Term: the term of the grant must be from 1 to 10 years (N.J.S.A. 34:1B-129c.)"
        in result.stderr
    )


def test_text_the_functions_read_passes_every_check(tmp_path: Path) -> None:
    # "40%" and "5" typed as text: the functions read 0.4 and 5, and so do the checks
    # (before NJ_INPUT, Excel's comparison "40%" <= 0.5 was FALSE and "5" = 5 FALSE)
    path = _grant_with(tmp_path, Term="5", GrantPct="40%")
    assert _failed(path) == []
    typed = recalculate(_grant_with(tmp_path, Term=5, GrantPct=0.4))
    assert recalculate(path).value("TotalGrant") == typed.value("TotalGrant")


def test_text_the_functions_refuse_fails_naming_the_rule(tmp_path: Path) -> None:
    failed = _failed(_grant_with(tmp_path, GrantPct="40 percent"))
    labels = [label for label, _ in failed]
    assert "Grant percentage of withholdings: a percentage from 0% to 80%" in labels


def test_every_template_example_still_passes() -> None:
    for name in (
        "beip-grant-schedule-example.xlsx",
        "beip-credit-conversion-example.xlsx",
        "ertc-form-313-example.xlsx",
    ):
        recalc = recalculate(DEFAULT_DIRECTORY / "examples" / name)
        assert recalc.value("MasterCheck") is True, name
    assert len(beip_grant.CHECKS) > 12  # an input check per input, then the template's
