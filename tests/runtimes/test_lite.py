"""The Office.js runtimes (issue 9, items 2 and 3): the package registers every NJ_*
function and the re-enter script as members of one module (and of the package itself);
formulas are respelled for a runtime's namespace; ``nj-incentives calc`` reads every
spelling a runtime or LibreOffice may leave in a file.

What cannot run here (no Excel): Excel binding the re-entered formulas. The script's
logic runs against a stand-in for xlwings Lite's async book, loaded from a real template.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import types
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import xlwings.server
from hypothesis import given
from hypothesis import strategies as st
from openpyxl.utils import get_column_letter, range_boundaries
from openpyxl.worksheet.formula import ArrayFormula

import nj_incentives
from nj_incentives.programs.beip.templates import grant as beip_grant
from nj_incentives.runtimes import lite
from nj_incentives.runtimes.spelling import base_name, calls, respell, spelled
from nj_incentives.runtimes.xlwings_classic import CATALOG
from nj_incentives.workpapers.recalc import recalculate
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from nj_incentives.workpapers.templates.builder import build_template
from tooling import recalculated_once

KNOWN = list(CATALOG)

# --------------------------------------------------------------------------- registration


@pytest.mark.parametrize("module", [lite, nj_incentives], ids=["nj_incentives.lite", "package"])
def test_every_function_and_the_script_are_registered(module: Any) -> None:
    functions = xlwings.server.custom_functions_meta(module)  # type: ignore[no-untyped-call]
    assert {f["name"] for f in functions["functions"]} == set(CATALOG)
    scripts = xlwings.server.custom_scripts_meta(module)  # type: ignore[no-untyped-call]
    assert [s["function_name"] for s in scripts] == ["nj_reenter_formulas"]


def test_importing_the_package_does_not_import_the_functions() -> None:
    code = "import sys, nj_incentives; print('xlwings' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False"


def test_the_package_refuses_unknown_members() -> None:
    with pytest.raises(AttributeError, match="NJ_NOT_A_FUNCTION"):
        _ = nj_incentives.NJ_NOT_A_FUNCTION  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- spelling

SPELLINGS = [
    "NJ_BEIP_GRANT",  # classic add-in, Lite's documented examples
    "XLWINGS.NJ_BEIP_GRANT",  # Office.js namespace, as typed
    "XLWINGS_DEV.NJ_BEIP_GRANT",  # xlwings Server's dev manifest
    "_xldudf_XLWINGS_NJ_BEIP_GRANT",  # Office.js, as Excel saves it
    "_xldudf_XLWINGS_DEV_NJ_BEIP_GRANT",
    "_xldudf_XLW_NJ_BEIP_GRANT",  # a workbook saved by Excel with xlwings Lite (user report)
    "_xludf.NJ_BEIP_GRANT",
    "_xll.NJ_BEIP_GRANT",
    "nj_beip_grant",  # LibreOffice's save
    "xlwings.nj_beip_grant",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_is_read_and_respelled(spelling: str) -> None:
    formula = f"=ROUND({spelling}(Withholdings,GrantPct),2)"
    assert calls(formula, KNOWN) == ["NJ_BEIP_GRANT"]
    assert respell(formula, "XLWINGS") == "=ROUND(XLWINGS.NJ_BEIP_GRANT(Withholdings,GrantPct),2)"
    assert respell(formula, "") == "=ROUND(NJ_BEIP_GRANT(Withholdings,GrantPct),2)"


def test_text_sheet_names_and_lookalikes_are_left_alone() -> None:
    formula = (
        "=IF(A1=\"NJ_BEIP_GRANT(1)\",'NJ_X(sheet)'!A1,"
        'NOTNJ_BEIP_GRANT(1)+A1.NJ_BEIP_GRANT(2)+nj_beip_grant(3))&"a""NJ_Y("'
    )
    assert respell(formula, "NS") == (
        "=IF(A1=\"NJ_BEIP_GRANT(1)\",'NJ_X(sheet)'!A1,"
        'NOTNJ_BEIP_GRANT(1)+NS.NJ_BEIP_GRANT(2)+NS.NJ_BEIP_GRANT(3))&"a""NJ_Y("'
    )
    # A1.NJ_... reads as a namespace A1 (Excel would not let a cell be one): respelled too
    assert calls(formula, KNOWN) == ["NJ_BEIP_GRANT", "NJ_BEIP_GRANT"]
    assert base_name("NJ_NOT_IN_THE_CATALOG", KNOWN) is None
    assert spelled("nj_x", "xlwings.") == "XLWINGS.NJ_X"


_name = st.sampled_from(KNOWN)
_spelling = st.sampled_from(["", "XLWINGS.", "_xldudf_XLWINGS_", "_xll.", "ns."])
_filler = st.sampled_from(["1", "A1", '"NJ_X(1)"', "'My NJ_Y( sheet'!B2", "SUM(A1:A3)"])


@st.composite
def formulas(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        name = draw(_name)
        if draw(st.booleans()):
            name = name.lower()
        parts.append(f"{draw(_spelling)}{name}({draw(_filler)})")
        parts.append(draw(_filler))
    return "=" + "+".join(parts)


@given(formulas(), st.sampled_from(["", "XLWINGS", "XLWINGS_DEV", "ACME.TAX"]))
def test_respelling_keeps_the_calls_and_is_idempotent(formula: str, namespace: str) -> None:
    once = respell(formula, namespace)
    assert calls(once, KNOWN) == calls(formula, KNOWN)
    assert respell(once, namespace) == once
    assert respell(once, "") == respell(formula, "")
    outside = re.sub(r"\"[^\"]*\"|'[^']*'", "", once)
    expected = f"{namespace}.NJ_" if namespace else "NJ_"
    # a name's start: NJ_GROW_NJ_SCHEDULE holds "NJ_" twice, once as its start
    starts = re.findall(r"(?<![A-Za-z0-9_])NJ_", outside)
    assert len(starts) == len(re.findall(r"(?<![A-Za-z0-9_])" + re.escape(expected), outside))
    assert len(starts) == len(calls(formula, KNOWN))


# ------------------------------------------------------------------ the runtime's namespace


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({"NJ_INCENTIVES_NAMESPACE": "acme"}, "ACME"),
        ({"XLWINGS_FUNCTIONS_NAMESPACE": "XLWINGS"}, "XLWINGS"),
        ({"XLWINGS_FUNCTIONS_NAMESPACE": "XLWINGS", "XLWINGS_ENVIRONMENT": "dev"}, "XLWINGS_DEV"),
        ({"XLWINGS_FUNCTIONS_NAMESPACE": "", "XLWINGS_ENVIRONMENT": "prod"}, ""),
        ({}, ""),  # xlwings Lite: no namespace (xlwings Server is not installed here)
    ],
)
def test_the_runtime_namespace(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], expected: str
) -> None:
    for name in ("NJ_INCENTIVES_NAMESPACE", "XLWINGS_FUNCTIONS_NAMESPACE", "XLWINGS_ENVIRONMENT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setitem(sys.modules, "xlwings_server.config", None)  # Lite: not installed
    assert lite.runtime_namespace() == expected


@pytest.mark.parametrize(("environment", "expected"), [("prod", "XLWINGS"), ("dev", "XLWINGS_DEV")])
def test_the_namespace_of_xlwings_server_comes_from_its_settings(
    monkeypatch: pytest.MonkeyPatch, environment: str, expected: str
) -> None:
    for name in ("NJ_INCENTIVES_NAMESPACE", "XLWINGS_FUNCTIONS_NAMESPACE", "XLWINGS_ENVIRONMENT"):
        monkeypatch.delenv(name, raising=False)
    config = types.ModuleType("xlwings_server.config")
    config.settings = types.SimpleNamespace(  # type: ignore[attr-defined]
        functions_namespace="xlwings", environment=environment
    )
    monkeypatch.setitem(sys.modules, "xlwings_server.config", config)
    assert lite.runtime_namespace() == expected


# --------------------------------------------------------------------------- the re-enter script


class FakeSheet:
    """A worksheet as xlwings Lite's async API shows it: formulas on demand."""

    def __init__(self, name: str, formulas: dict[tuple[int, int], str], arrays: dict[str, str]):
        self.name, self.formulas, self.arrays = name, formulas, arrays
        self.written: dict[str, str] = {}
        self.written_arrays: dict[str, str] = {}

    async def get_used_range(self) -> FakeRange | None:
        if not self.formulas:
            return None
        rows = [r for r, _ in self.formulas]
        cols = [c for _, c in self.formulas]
        return FakeRange(self, min(rows), min(cols), max(rows), max(cols))


class FakeRange:
    def __init__(self, sheet: FakeSheet, top: int, left: int, bottom: int, right: int):
        self.sheet, self.top, self.left, self.bottom, self.right = sheet, top, left, bottom, right

    @property
    def address(self) -> str:
        first = f"{get_column_letter(self.left)}{self.top}"
        last = f"{get_column_letter(self.right)}{self.bottom}"
        return first if first == last else f"{first}:{last}"

    def options(self, **_: Any) -> FakeRange:
        return self

    def __getitem__(self, key: tuple[Any, Any]) -> FakeRange:
        rows, cols = key
        if isinstance(rows, int):
            rows, cols = slice(rows, rows + 1), slice(cols, cols + 1)
        return FakeRange(
            self.sheet,
            self.top + rows.start,
            self.left + cols.start,
            self.top + rows.stop - 1,
            self.left + cols.stop - 1,
        )

    async def get_special_cells(self, kind: str) -> list[FakeRange]:
        assert kind == "formulas"
        return [self]

    async def get_formula(self) -> list[list[str]]:
        return [
            [self.sheet.formulas.get((r, c), "") for c in range(self.left, self.right + 1)]
            for r in range(self.top, self.bottom + 1)
        ]

    async def get_formula_array(self) -> str | None:
        return self.sheet.arrays.get(self.address)

    @property
    def formula(self) -> str:
        raise NotImplementedError("Lite reads formulas with await get_formula()")

    @formula.setter
    def formula(self, text: str) -> None:
        assert self.address not in self.sheet.written
        self.sheet.written[self.address] = text

    @property
    def formula_array(self) -> str:
        raise NotImplementedError

    @formula_array.setter
    def formula_array(self, text: str) -> None:
        self.sheet.written_arrays[self.address] = text


class FakeBook:
    def __init__(self, path: Path):
        book = openpyxl.load_workbook(path)
        self.sheets = []
        for ws in book.worksheets:
            formulas: dict[tuple[int, int], str] = {}
            arrays: dict[str, str] = {}
            for row in ws.iter_rows():
                for cell in row:
                    if isinstance(cell.value, ArrayFormula):
                        arrays[cell.value.ref] = cell.value.text
                        left, top, right, bottom = range_boundaries(cell.value.ref)
                        for r in range(top, bottom + 1):
                            for c in range(left, right + 1):
                                formulas[(r, c)] = cell.value.text
                    elif isinstance(cell.value, str) and cell.value.startswith("="):
                        formulas.setdefault((cell.row, cell.column), cell.value)
            self.sheets.append(FakeSheet(ws.title, formulas, arrays))


@pytest.mark.parametrize(
    "name", ["beip-grant-schedule.xlsx", "beip-credit-conversion.xlsx", "ertc-form-313.xlsx"]
)
def test_the_script_reenters_every_nj_formula_once(name: str) -> None:
    book = FakeBook(DEFAULT_DIRECTORY / name)
    done = asyncio.run(lite.reenter(book, "XLWINGS"))
    assert done.count > 0
    for sheet in book.sheets:
        nj_arrays = {ref: t for ref, t in sheet.arrays.items() if calls(t, KNOWN)}
        assert sheet.written_arrays == {ref: respell(t, "XLWINGS") for ref, t in nj_arrays.items()}
        in_arrays = set()
        for ref in nj_arrays:
            left, top, right, bottom = range_boundaries(ref)
            in_arrays |= {(r, c) for r in range(top, bottom + 1) for c in range(left, right + 1)}
        singles = {
            f"{get_column_letter(c)}{r}": respell(text, "XLWINGS")
            for (r, c), text in sheet.formulas.items()
            if calls(text, KNOWN) and (r, c) not in in_arrays
        }
        assert sheet.written == singles  # every other NJ_* cell, and no other formula
        for text in [*sheet.written.values(), *sheet.written_arrays.values()]:
            assert "XLWINGS.NJ_" in text
    assert "spelled =XLWINGS.NJ_..." in done.summary()


# ----------------------------------------------------------------- calc reads every spelling


def _respelled_copy(source: Path, target: Path, rename: Any) -> Path:
    """``source`` with every NJ_* name in its formulas replaced by ``rename(name)``."""
    pattern = re.compile(r"(?<![\w.])NJ_[A-Z0-9_]+(?=\()")
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            data = old.read(item)
            if item.filename.startswith("xl/worksheets/sheet"):
                text = data.decode("utf-8")
                text = re.sub(
                    r"(<f[^>]*>)(.*?)(</f>)",
                    lambda m: (
                        m.group(1)
                        + pattern.sub(lambda n: rename(n.group()), m.group(2))
                        + m.group(3)
                    ),
                    text,
                    flags=re.S,
                )
                data = text.encode("utf-8")
            new.writestr(item, data)
    return target


@pytest.fixture(scope="module")
def bare() -> Any:
    return recalculated_once(DEFAULT_DIRECTORY / "examples" / "beip-grant-schedule-example.xlsx")


OUTPUTS = ["MasterCheck", "Outputs!A1:H40", "Calculations!A1:J60"]


@pytest.mark.parametrize(
    "variant",
    ["XLWINGS", "XLWINGS_DEV", "lower-case", "saved", "saved by Lite", "lower-case namespaced"],
)
@pytest.mark.recalc
def test_calc_reads_every_spelling_of_a_template(variant: str, bare: Any, tmp_path: Path) -> None:
    if variant in ("XLWINGS", "XLWINGS_DEV"):
        path = build_template(
            beip_grant, tmp_path / "ns.xlsx", beip_grant.EXAMPLE, function_namespace=variant
        )
    else:
        rename = {
            "lower-case": lambda n: n.lower(),  # what a LibreOffice save leaves
            "saved": lambda n: f"_xldudf_XLWINGS_{n}",  # Excel, add-in not loaded
            "saved by Lite": lambda n: f"_xldudf_XLW_{n}",  # Excel with xlwings Lite
            "lower-case namespaced": lambda n: f"xlwings.{n.lower()}",
        }[variant]
        source = DEFAULT_DIRECTORY / "examples" / "beip-grant-schedule-example.xlsx"
        path = _respelled_copy(source, tmp_path / "respelled.xlsx", rename)
    result = recalculate(path)
    assert result.value("MasterCheck") is True
    assert result.function_errors == ()
    assert result.nj_formula_cells() == bare.nj_formula_cells()
    for reference in OUTPUTS:
        assert result.value(reference) == bare.value(reference)


def test_the_calc_command_reads_a_namespaced_template(tmp_path: Path) -> None:
    path = build_template(
        beip_grant, tmp_path / "ns.xlsx", beip_grant.EXAMPLE, function_namespace="XLWINGS"
    )
    done = subprocess.run(
        [sys.executable, "-m", "nj_incentives.cli", "calc", str(path), "-o", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_script_refuses_an_xlwings_without_the_async_api(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    book = FakeBook(DEFAULT_DIRECTORY / "beip-grant-schedule.xlsx")
    monkeypatch.setenv("NJ_INCENTIVES_NAMESPACE", "")  # no look at xlwings Server's settings
    script = lite.nj_reenter_formulas.__wrapped__  # type: ignore[attr-defined]
    monkeypatch.setattr(lite.xw, "__version__", "0.33.20")  # Lite's default for new workbooks
    asyncio.run(script(book))
    assert "needs xlwings 0.37.5 or later" in capsys.readouterr().out
    assert all(not s.written and not s.written_arrays for s in book.sheets)
    monkeypatch.setattr(lite.xw, "__version__", "0.37.8")
    asyncio.run(script(book))
    assert "Re-entered" in capsys.readouterr().out
    assert any(s.written for s in book.sheets)


def test_templates_for_xlwings_server_are_spelled_with_its_namespace(tmp_path: Path) -> None:
    from nj_incentives import cli

    assert cli.main(["templates", str(tmp_path / "server"), "--runtime", "server"]) == 0
    book = openpyxl.load_workbook(tmp_path / "server" / "beip-grant-schedule.xlsx")
    texts = [
        c.value.text if isinstance(c.value, ArrayFormula) else c.value
        for ws in book.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, ArrayFormula) or str(c.value).startswith("=")
    ]
    spelled_calls = [t for t in texts if calls(t, KNOWN)]
    assert spelled_calls
    assert all(respell(t, "XLWINGS") == t for t in spelled_calls)
    assert cli.main(["templates", str(tmp_path / "bad"), "--namespace", "not valid!"]) == 2
