"""xlwings Server's re-entry script, in process (nj_incentives.runtimes.server; issue 21 item 4).

tests/runtimes/test_runtime_xlwings_server.py runs it through the real server; here the cases the
server test does not reach: each namespace a server may have, a workbook missing one of
its template's sheets, and what the template reader finds in each shipped template.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from nj_incentives.runtimes import server
from nj_incentives.runtimes.spelling import calls
from nj_incentives.support.shipped import TEMPLATES


@dataclass
class FakeRange:
    value: Any = None
    writes: list[tuple[str, str]] = field(default_factory=list)
    address: str = ""

    @property
    def formula(self) -> str:  # pragma: no cover - the server cannot read formulas
        raise NotImplementedError

    @formula.setter
    def formula(self, text: str) -> None:
        self.writes.append(("formula", text))

    @property
    def formula_array(self) -> str:  # pragma: no cover
        raise NotImplementedError

    @formula_array.setter
    def formula_array(self, text: str) -> None:
        self.writes.append(("array", text))


@dataclass
class FakeSheet:
    name: str
    title: str | None = None
    ranges: dict[str, FakeRange] = field(default_factory=dict)

    def __getitem__(self, address: str) -> FakeRange:
        if address not in self.ranges:
            value = self.title if address == "A1" else None
            self.ranges[address] = FakeRange(value=value, address=address)
        return self.ranges[address]


class FakeSheets(list[FakeSheet]):
    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return next(sheet for sheet in self if sheet.name == key)
        return super().__getitem__(key)


@dataclass
class FakeBook:
    sheets: FakeSheets


def book_of(template: server.Template, drop: str | None = None) -> FakeBook:
    sheets = FakeSheets(FakeSheet(name) for name in template.sheets if name != drop)
    sheets[0].title = template.title
    return FakeBook(sheets)


def test_every_template_is_found_with_its_formulas() -> None:
    found = server.templates()
    names = sorted(name.removesuffix(".xlsx") for name in TEMPLATES)
    assert sorted(t.name for t in found.values()) == names
    for template in found.values():
        assert template.sheets[0] == "About"
        assert template.formulas
        assert all(calls(f.formula) for f in template.formulas)
        assert all(f.formula.startswith("=") for f in template.formulas)
        # the dynamic arrays (spilled tables) are there, anchored at their first cell
        assert any(f.kind == "dynamic" and f.ref.startswith(f.address) for f in template.formulas)


@pytest.mark.parametrize("namespace", ["XLWINGS", "XLWINGS_DEV", ""])
def test_every_formula_is_written_spelled_for_the_server(namespace: str) -> None:
    template = server.templates()["BEIP grant schedule"]
    book = book_of(template)
    done = server.reenter(book, namespace)
    assert done.count == len(template.formulas)
    prefix = f"{namespace}.NJ_" if namespace else "NJ_"
    for formula in template.formulas:
        where = formula.ref if formula.kind == "array" else formula.address
        cell = book.sheets[formula.sheet][where]
        (kind, text), *more = cell.writes
        assert not more
        assert kind == ("array" if formula.kind == "array" else "formula")
        assert prefix in text
        assert text.replace(prefix, "NJ_") == formula.formula.replace("XLWINGS.NJ_", "NJ_")


def test_a_workbook_without_one_of_its_template_s_sheets_is_left_alone() -> None:
    template = server.templates()["BEIP grant schedule"]
    book = book_of(template, drop="Calculations")
    with pytest.raises(ValueError, match="not its sheet\\(s\\) Calculations: nothing re-entered"):
        server.reenter(book, "XLWINGS")
    assert all(not r.writes for sheet in book.sheets for r in sheet.ranges.values())


def test_another_workbook_is_left_alone_with_the_manual_route() -> None:
    book = FakeBook(FakeSheets([FakeSheet("Model", title="My own model")]))
    with pytest.raises(ValueError, match="not an nj-incentives template") as refused:
        server.reenter(book, "XLWINGS")
    assert "Replace, = with =, Replace All" in str(refused.value)
