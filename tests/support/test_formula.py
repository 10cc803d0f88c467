"""nj_incentives.support.formula: calls and their arguments read by openpyxl's tokenizer."""

from __future__ import annotations

import pytest

from nj_incentives.support.formula import FunctionCall, function_calls


def test_calls_nested_and_in_order_with_their_arguments_as_written() -> None:
    text = '=IF(A1="a,b(",XLWINGS.NJ_X(1,"x,""y",\'My sheet\'!A1:B2),NJ_Y(,TRUE))'
    calls = function_calls(text)
    assert [c.name for c in calls] == ["IF", "XLWINGS.NJ_X", "NJ_Y"]
    assert calls[1] == FunctionCall("XLWINGS.NJ_X", 14, 54, ("1", '"x,""y"', "'My sheet'!A1:B2"))
    assert text[calls[1].start : calls[1].end] == 'XLWINGS.NJ_X(1,"x,""y",\'My sheet\'!A1:B2)'
    assert calls[2].arguments == ("", "TRUE")  # an empty first argument
    assert calls[0].arguments[1] == 'XLWINGS.NJ_X(1,"x,""y",\'My sheet\'!A1:B2)'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('=NOT_NJ_X(1)&"NJ_X(2)"', [("NOT_NJ_X", ("1",))]),  # no call inside a string
        ("=NJ_A()", [("NJ_A", ())]),
        # separators inside an array constant or parentheses belong to them
        ("=NJ_A( 1 , {1,2;3,4} , (2+3) )", [("NJ_A", (" 1 ", " {1,2;3,4} ", " (2+3) "))]),
        ("NJ_A(1)", [("NJ_A", ("1",))]),  # without "="
        ("=SUM(A1:A3)+_xlfn.LET(x,1,x)", [("SUM", ("A1:A3",)), ("_xlfn.LET", ("x", "1", "x"))]),
        ("=A1+B2", []),
        ("=cmd|' /C calc'!A0", []),  # the tokenizer cannot read it: no calls
    ],
)
def test_calls_of_a_formula(text: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert [(c.name, c.arguments) for c in function_calls(text)] == expected
