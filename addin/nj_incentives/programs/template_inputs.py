"""Each template input's rule, and the template's formulas that read an input as the
NJ_* functions read it (issue 20, item 6).

A template input has one :class:`~nj_incentives.core.inputs.InputRule`: the law's own
declaration where the law declares one (the term: ``programs.beip.rules.TERM_INPUT``), else the
rule of its kind (money, percentage, count, date, yes/no, choice) with the template's
bounds and the citation of the first NJ_* function that reads it (:func:`rules`).
``nj-incentives fill`` checks DATA by it, and the template's formulas read by it:

- :func:`read_formula`: ``NJ_INPUT("count","Term",Term,1,10,"N.J.S.A. 34:1B-129c.",
  "the term of the grant must be from 1 to 10 years")``, the input as every NJ_*
  function reads it ("40%" is 0.4, "320,000.00" is 320000, a refused value the error
  naming the input, the rule and the citation). A formula around the functions (a
  comparison, ``SUM``, ``COUNT``) reads the input through it, so that text typed in an
  input cell counts in Excel, LibreOffice and ``calc`` exactly as the functions count it;
- :func:`input_checks`: one line of the Checks sheet per input, "Term: the term of the
  grant must be from 1 to 10 years" cited "N.J.S.A. 34:1B-129c.", TRUE when the
  functions accept what the cell holds: a failed check names the rule that fails, in
  the words and with the citation the functions use (never retyped).

The templates of every program read their inputs through this module (it lives in
``programs/`` because a function's citation is its program's: each registered program's
``functions`` part, read through the registry; it imports nothing above ``programs``).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from nj_incentives.core.declarations import Calculation
from nj_incentives.core.inputs import InputKind, InputRule
from nj_incentives.core.workpaper import (
    ArrayTable,
    Check,
    FormulaTable,
    InputTable,
    Item,
    Kind,
    LineItem,
    Spill,
)

__all__ = [
    "accepted",
    "citations",
    "input_checks",
    "input_rule",
    "law_rules",
    "read_for",
    "read_formula",
    "refusal_formula",
    "rules",
    "switch",
    "yes_no",
]

_NJ = re.compile(r"\bNJ_[A-Z0-9_]+(?=\s*\()")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: The function that reads an input as the others do; its calls cite no law of their own.
READER = "NJ_INPUT"
#: The function that names the first cell of a range its rule refuses (one call a range).
REFUSAL = "NJ_INPUT_REFUSED"


@functools.cache
def _calculations() -> dict[str, Calculation]:
    """Every program's NJ_* calculations by name (each program's ``functions`` part, in
    the registry's order): the law a template's function call cites. The functions of no
    program (NJ_INPUT, NJ_INPUTS_HASH ...) cite none."""
    from nj_incentives.programs import PROGRAMS

    return {
        calculation.name: calculation
        for declaring in PROGRAMS
        if declaring.has("functions")
        for calculation in declaring.part("functions").FUNCTIONS
    }


def citations(items: Iterable[Any]) -> dict[str, str]:
    """Defined name -> the citation of the first NJ_* function whose formula reads it."""
    formulas: list[str] = []
    items = list(items)
    for item in items:
        if isinstance(item, (Item, ArrayTable)) and item.formula:
            formulas.append(item.formula)
        elif isinstance(item, FormulaTable):
            for line in item.rows:
                for cell in line:
                    formulas.append(cell.formula if isinstance(cell, Spill) else str(cell))
        elif isinstance(item, InputTable):
            formulas += [formula for _, formula in item.leading]
    found: dict[str, str] = {}
    for formula in formulas:
        calls = [
            c for c in _NJ.findall(formula) if c in _calculations() and c not in (READER, REFUSAL)
        ]
        if not calls:
            continue
        citation = _calculations()[calls[0]].message_citation
        for name in _NAME.findall(formula):
            found.setdefault(name, citation)
    for item in items:  # an input no function reads: the citation of its checks
        if isinstance(item, Check) and item.citation:
            for name in _NAME.findall(f"{item.formula} {item.refusal}"):
                found.setdefault(name, item.citation)
    return found


def _number(bound: object) -> Decimal | None:
    return None if bound is None or isinstance(bound, dt.date) else Decimal(str(bound))


def input_rule(
    kind: Kind, citation: str, low: Any, high: Any, choices: Sequence[str]
) -> InputRule | None:
    """The rule of an input of ``kind`` (None: free text)."""
    if kind is Kind.TEXT:
        return None
    if kind is Kind.MONEY:
        return InputRule(InputKind.MONEY, citation, _number(low), _number(high))
    if kind is Kind.PERCENT:
        return InputRule(InputKind.FRACTION, citation, _number(low), _number(high))
    if kind is Kind.DATE:
        return InputRule(InputKind.DATE, citation)
    if kind in (Kind.COUNT, Kind.YEAR):
        return InputRule(
            InputKind.COUNT,
            citation,
            None if low is None else int(low),
            None if high is None else int(high),
        )
    if kind is Kind.NUMBER:
        return InputRule(InputKind.NUMBER, citation, _number(low), _number(high))
    if kind is Kind.YESNO:
        return InputRule(InputKind.BOOLEAN, citation)
    if kind is Kind.CHOICE:
        return InputRule(InputKind.CHOICE, citation, choices=tuple(choices))
    raise ValueError(f"no input rule for {kind}")  # pragma: no cover - a new Kind


def law_rules() -> dict[str, InputRule]:
    """Template inputs the law declares itself (by key): its declaration, not one from
    the template's kind and bounds."""
    from nj_incentives.programs.beip import rules as beip

    return {"term": beip.TERM_INPUT}


def _declared_rule(declared: Any, key: str, citation: str) -> InputRule | None:
    return law_rules().get(key) or input_rule(
        declared.kind, citation, declared.minimum, declared.maximum, declared.choices
    )


def rules(items: Sequence[LineItem]) -> dict[str, InputRule | None]:
    """Every input of ``items`` with a defined name (scalar inputs and the named columns
    of input tables; the roster's hours are the roster's) -> its rule."""
    cites = citations(items)
    found: dict[str, InputRule | None] = {}
    for item in items:
        if isinstance(item, Item) and not item.formula and item.name and item.key:
            found[item.name] = _declared_rule(item, item.key, cites.get(item.name, ""))
        elif isinstance(item, InputTable):
            for column in item.columns:
                if column.key and column.name and not re.search(r"_month_\d+$", column.key):
                    found[column.name] = _declared_rule(
                        column, column.key, cites.get(column.name, "")
                    )
    return found


def _text(value: object) -> str:
    return '"' + str(value).replace('"', '""') + '"'


def _bound(value: Decimal | int | None) -> str:
    if value is None:
        return ""
    return str(value) if isinstance(value, int) else f"{value.normalize():f}"


def read_formula(name: str, rule: InputRule, ref: str | None = None) -> str:
    """The NJ_INPUT call reading the input ``name`` (or the reference ``ref``, a cell of
    it) by ``rule``: its value as the functions read it, or their error."""
    return _call(READER, _text(name), ref or name, rule)


def refusal_formula(name: str, rule: InputRule) -> str:
    """The NJ_INPUT_REFUSED call over the whole range ``name`` (a defined name): blank
    when ``rule`` reads every cell, else the first cell refused, named by its address
    (``'Part II base year'!E7 = 800: must be at most 744 ... (citation)``). One call a
    range, however many cells: a 250 x 12 roster stays cheap to recalculate."""
    return _call(REFUSAL, f"[[address:{name}]]", name, rule)


def _call(function: str, shown: str, ref: str, rule: InputRule) -> str:
    args = [
        _text(rule.kind.value),
        shown,
        ref,
        _bound(rule.low),
        _bound(rule.high),
        _text(rule.citation) if rule.citation else "",
        _text(rule.rule) if rule.rule else "",
        _text("|".join(rule.choices)) if rule.choices else "",
    ]
    while args and args[-1] == "":
        args.pop()
    # an empty argument is 0 to some engines (the formulas library): "" is a blank to all
    blank = '""'
    return function + "(" + ",".join(arg or blank for arg in args) + ")"


def read_for(name: str, kind: InputKind, function: str) -> str:
    """The input ``name`` (of ``kind``, no bounds) read as the NJ_* function ``function``
    reads it, citing ``function``'s citation: the rule :func:`rules` finds for an input
    that ``function`` is the first to read, so that the input check and this formula carry
    one rule (tested). For a formula declared before the reader of its template exists."""
    return read_formula(name, InputRule(kind, _calculations()[function].message_citation))


def yes_no(name: str, function: str) -> str:
    """The Yes/No input ``name`` read as every NJ_* function reads a boolean (TRUE/FALSE,
    1/0, yes/no/y/n in any case: ``law.inputs.as_bool``): NJ_INPUT's boolean call, TRUE
    or FALSE, blank when the cell is, else the refusal naming the rule; cited as
    ``function``, the NJ_* function the switch turns on (:func:`read_for`)."""
    return read_for(name, InputKind.BOOLEAN, function)


def blank(cell: str) -> str:
    """TRUE when ``cell`` is blank as the functions read it (spaces are blank too)."""
    return f'LEN(TRIM({cell}&""))=0'


def yes_or_open(name: str, read: str) -> str:
    """TRUE when the Yes/No input ``name`` (read by ``read``, :func:`yes_no`) is Yes or
    not answered yet; FALSE only for No. A check that a claim is lawful "or none is made"
    passes on No or on the claim's verdict: a blank question fails it until answered, as
    an open question on a workpaper does (the calculation reads blank as No)."""
    return f"OR({blank(name)},{read})"


def switch(read: str, yes: str, no: str) -> str:
    """``yes`` when the Yes/No input ``read`` (:func:`yes_no`) is TRUE, ``no`` when it is
    FALSE or blank; a refused value shows its refusal (a text in the classic add-in and
    the headless engine, an error in Office.js), never ``no``: a cell holding TRUE, 1 or
    "yes" is Yes, as the functions read it, not only the text "Yes"."""
    return f"IF(ISTEXT({read}),{read},IF({read},{yes},{no}))"


def reader(items: Sequence[LineItem]) -> Callable[[str], str]:
    """``read("Term")``: the NJ_INPUT formula of the input ``Term`` of ``items``."""
    declared = rules(items)

    def read(name: str) -> str:
        rule = declared[name]
        if rule is None:
            raise ValueError(f"{name} is free text: nothing to read")
        return read_formula(name, rule)

    return read


def _labels(items: Sequence[LineItem]) -> Mapping[str, str]:
    found: dict[str, str] = {}
    for item in items:
        if isinstance(item, Item) and not item.formula and item.name:
            found[item.name] = item.label
        elif isinstance(item, InputTable):
            for column in item.columns:
                if column.name:
                    found[column.name] = column.header
    return found


def accepted(read: str) -> str:
    """TRUE when no cell of ``read`` (an NJ_INPUT call) is refused: a refusal is the text
    "#VALUE! ..." (the classic add-in, the headless engine) or an error (Office.js, which
    the Checks sheet's IFERROR turns into FALSE)."""
    return f'SUMPRODUCT(--(LEFT({read},7)="#VALUE!"))=0'


def input_checks(items: Sequence[LineItem]) -> tuple[Check, ...]:
    """One Checks line per input of ``items`` with a rule: TRUE when every cell of it is
    blank or read by the functions; its label the input and the rule in the functions'
    words, its citation the rule's."""
    labels = _labels(items)
    checks = []
    for name, rule in rules(items).items():
        if rule is None:
            continue
        cite = rule.bound_citation or rule.citation
        checks.append(
            Check(
                f"{labels.get(name, name)}: {rule.describe()}",
                accepted(read_formula(name, rule)),
                cite,
            )
        )
    return tuple(checks)
