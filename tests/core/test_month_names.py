"""Month names in the law's texts are English whatever the locale (issue 19): they come
from :data:`nj_incentives.core.parameters.MONTH_NAMES` through :func:`~nj_incentives.core.
parameters.month_year`, never from strftime's ``%B``/``%b``, which follow LC_TIME."""

from __future__ import annotations

import ast
import datetime as dt
import locale
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import nj_incentives.core
from nj_incentives.core import parameters as P
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.ertc import rules as ertc
from tooling import missing

LAW = Path(nj_incentives.core.__file__).parent

#: Locales whose month names differ from English (the first one installed is used).
FOREIGN = ("de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "es_ES.UTF-8", "it_IT.UTF-8")


@pytest.fixture
def foreign_time() -> Iterator[str]:
    """LC_TIME set to a non-English locale for the test, restored after; skips where none
    is installed, fails instead under CI=true (test_no_locale_month_formats_in_law covers
    that machine)."""
    saved = locale.setlocale(locale.LC_TIME)
    for name in FOREIGN:
        try:
            locale.setlocale(locale.LC_TIME, name)
        except locale.Error:
            continue
        try:
            # the locale really names June otherwise, so a %B would show here
            assert dt.date(2023, 6, 1).strftime("%B") != "June"
            yield name
        finally:
            locale.setlocale(locale.LC_TIME, saved)
        return
    missing(
        f"no non-English locale installed (tried {', '.join(FOREIGN)})",
        ".ci/install-system makes de_DE.UTF-8 with localedef",
    )


def test_month_year() -> None:
    assert P.month_year(dt.date(2027, 7, 15)) == "July 2027"
    assert [P.month_year(dt.date(2024, m, 1)) for m in (1, 12)] == [
        "January 2024",
        "December 2024",
    ]


def test_texts_are_english_under_a_foreign_lc_time(foreign_time: str) -> None:
    # 2023-07-01 is 1 day after June 30: deemed to end 2023-06-30 (N.J.A.C. 18:7-2.3(b))
    numbered = cbt.tax_year("2023-07-01")
    assert "1 day after the end of June 2023: deemed to end 2023-06-30" in (
        numbered.steps[0].arithmetic
    )
    # a roster dated from 2027-01-15: month 1 is January 2027, month 12 ends 2027-12-31
    count = ertc.average_positions(ertc.roster([[150] * 12]), first_month="2027-01-15")
    assert count.steps[0].arithmetic == "month 1 is January 2027; month 12 ends 2027-12-31"


_LOCALE_MONTH = re.compile(r"%[-_0^#]*[Bb]")


def _locale_month_formats(source: str) -> list[int]:
    """The lines of ``source`` with a string (an f-string's format spec included, a
    docstring not) holding a strftime month-name directive ``%B`` or ``%b``."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and _LOCALE_MONTH.search(node.value)
    ]


def test_the_scanner_finds_locale_month_formats() -> None:
    # what test_no_locale_month_formats_in_law looks for, in each spelling it takes
    assert _locale_month_formats('x = f"{day:%B %Y}"') == [1]
    assert _locale_month_formats('x = day.strftime("%d %b %Y")') == [1]
    assert _locale_month_formats('x = format(day, "%-B")') == [1]
    assert _locale_month_formats('def f():\n    """``%B``"""\n    return f"{d:%Y-%m}"') == []


def test_no_locale_month_formats_in_law() -> None:
    found = {
        f"{path.relative_to(LAW)}:{line}"
        for path in sorted(LAW.rglob("*.py"))
        for line in _locale_month_formats(path.read_text(encoding="utf-8"))
    }
    assert not found, f"use parameters.month_year, not %B/%b: {sorted(found)}"
