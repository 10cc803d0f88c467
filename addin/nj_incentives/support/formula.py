"""Formula text read with a tokenizer (openpyxl's), never with regular expressions.

:func:`function_calls` finds every function call in a formula with its arguments, as
written: string literals, quoted sheet names, array constants and parentheses are the
tokenizer's to tell apart, so ``"NJ_X(2)"`` in a string is no call and the comma in
``"a,b"`` separates no argument. The engine counts and registers the NJ_* functions a
workbook calls with it; the memo reads each call's arguments with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from openpyxl.formula.tokenizer import Token, Tokenizer, TokenizerError

__all__ = ["FunctionCall", "function_calls"]


@dataclass(frozen=True)
class FunctionCall:
    """One call in a formula's text: the function's name as written (``XLWINGS.NJ_X``,
    ``_xlfn.LET``), where the call starts (its name) and ends (after its ``)``), and the
    text of each top-level argument as written (``NJ_X()`` has none; ``NJ_X(,1)`` has
    ``""`` and ``"1"``)."""

    name: str
    start: int
    end: int
    arguments: tuple[str, ...]


def function_calls(text: str) -> list[FunctionCall]:
    """Every function call in ``text`` (a formula, with or without its ``=``), outer
    calls before the calls in their arguments; offsets are into ``text``. A text the
    tokenizer cannot read has no calls."""
    skip = 1 if text.startswith("=") else 0
    body = text[skip:]
    try:
        tokens = Tokenizer("=" + body).items
    except TokenizerError:
        return []
    if "".join(token.value for token in tokens) != body:  # pragma: no cover - defensive
        return []
    found: list[FunctionCall | None] = []
    #: what each open bracket is: (index into found, separators) for a call, else None
    stack: list[tuple[int, list[int], int, str] | None] = []
    offset = skip
    for token in tokens:
        end = offset + len(token.value)
        if token.type == Token.FUNC and token.subtype == Token.OPEN:
            stack.append((len(found), [end], offset, token.value[:-1]))
            found.append(None)
        elif token.type in (Token.PAREN, Token.ARRAY) and token.subtype == Token.OPEN:
            stack.append(None)
        elif token.type == Token.FUNC and token.subtype == Token.CLOSE and stack:
            call = stack.pop()
            if call is not None:
                index, starts, start, name = call
                bounds = [*starts, end]  # argument i: bounds[i] .. bounds[i+1] - 1
                arguments = tuple(
                    text[bounds[i] : bounds[i + 1] - 1] for i in range(len(bounds) - 1)
                )
                if arguments == ("",):
                    arguments = ()
                found[index] = FunctionCall(name, start, end, arguments)
        elif token.type in (Token.PAREN, Token.ARRAY) and token.subtype == Token.CLOSE and stack:
            stack.pop()
        elif token.type == Token.SEP and token.subtype == Token.ARG and stack and stack[-1]:
            stack[-1][1].append(end)
        offset = end
    return [call for call in found if call is not None]
