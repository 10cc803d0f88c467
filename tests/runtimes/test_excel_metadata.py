"""What Excel shows about the NJ_* functions, in each runtime, and the generated reference.

- The catalog of issue 4: names, argument names and order are fixed.
- Office.js (xlwings Lite / Server): ``custom_functions_meta`` gives every function its
  description (with the citation) and every argument real help.
- Classic add-in (Windows): ``xlwings.udfs.generate_vba_wrapper`` writes the VBA module
  Excel compiles; with the Windows-only modules stubbed it runs here, and every function
  must be declared with legal VBA names (a parameter named ``end`` breaks the module).
- ``docs/functions.md`` is generated from the same metadata and must be up to date.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import io
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
import xlwings as xw
import xlwings.server

from nj_incentives.core.vba import vba_declarations, vba_identifier_problem, vba_problems
from nj_incentives.functions import catalog, reference, table
from nj_incentives.runtimes import xlwings_classic as excel

ROOT = Path(__file__).resolve().parents[2]

#: Issue 4's catalog: every function with its arguments in order (optional ones may be
#: followed by further optional arguments of our own).
CATALOG_SPEC = {
    "NJ_BEIP_PCT_LIMITS": ("basis", "[smart_growth]"),
    "NJ_BEIP_GRANT": ("withholdings", "pct", "[partner_tax]", "[partner_pct]", "[smart_growth]"),
    "NJ_BEIP_GRANT_SCHEDULE": (
        "withholdings",
        "new_employees",
        "pct",
        "agreement_date",
        "[smart_growth]",
        "[partner_tax]",
        "[partner_pct]",
    ),
    "NJ_BEIP_COMBINED_LIMIT": ("base_amount", "other_grants", "basis", "[smart_growth]"),
    "NJ_BEIP_CONVERSION_SCHEDULE": ("accrual_year", "amount", "[approval_date]"),
    "NJ_BEIP_CONVERSION_INSTALLMENT": ("accrual_year", "amount", "tax_year", "[approval_date]"),
    "NJ_BEIP_CREDIT_APPLIED": ("credit", "tax_liability"),
    "NJ_BEIP_CREDIT_REFUND": ("credit", "tax_liability"),
    "NJ_BEIP_TRANSFER_MIN_PRICE": ("transfer_amount", "[discount_rate]", "[years]"),
    "NJ_BEIP_TRANSFER_CHECK": ("certificate_amount", "transfer_amount", "consideration"),
    "NJ_BEIP_REMOTE_WORK_PAYMENT": ("credit",),
    "NJ_BEIP_REMOTE_WORK_CHECK": ("election_date", "share_at_facility"),
    "NJ_ERTC_FTE": ("part_time_hours", "[months]", "[first_month]", "[law_as_of]"),
    "NJ_ERTC_AVG_POSITIONS": ("hours", "[temporary]", "[excluded]"),
    "NJ_ERTC_NEW_POSITIONS": ("base_avg", "year_avg", "[fractional]"),
    "NJ_ERTC_CREDIT": ("new_positions", "credit_year", "[fractional]"),
    "NJ_ERTC_SUSTAINED_EFFORT_RATIO": ("year1_new", "year2_new"),
    "NJ_ERTC_CREDIT_LIMIT": ("tax_liability", "other_credits", "minimum_tax"),
    "NJ_ERTC_REFUND": ("year1_remaining", "year1_new", "year2_new"),
    "NJ_ERTC_SCHEDULE": (
        "operations_start",
        "year1_new",
        "year2_new",
        "period_ends",
        "liabilities",
        "other_credits",
        "minimum_taxes",
        "[carryforward_years]",
    ),
    "NJ_CBT_MIN_TAX": ("nj_gross_receipts", "[s_corporation]", "[group_payroll]"),
    "NJ_INCENTIVES_VERSION": (),
}


def _signature(name: str) -> list[str]:
    entry = excel.CATALOG[name]
    return [f"[{a.name}]" if a.optional else a.name for a in entry.arguments]


@pytest.mark.parametrize(("name", "arguments"), CATALOG_SPEC.items())
def test_catalog_names_and_argument_order(name: str, arguments: tuple[str, ...]) -> None:
    declared = _signature(name)
    assert tuple(declared[: len(arguments)]) == arguments
    assert all(extra.startswith("[") for extra in declared[len(arguments) :])


def test_module_functions_are_the_catalog() -> None:
    for name in excel.CATALOG:
        assert getattr(excel, name).__name__ == name
    assert set(CATALOG_SPEC) <= set(excel.CATALOG)


# =========================================================================== Office.js


def _meta() -> dict[str, dict[str, object]]:
    meta = xlwings.server.custom_functions_meta(excel)  # type: ignore[no-untyped-call]
    return {function["id"]: function for function in meta["functions"]}


@pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js decorators")
@pytest.mark.parametrize("name", list(excel.CATALOG))
def test_office_js_metadata_describes_every_function_and_argument(name: str) -> None:
    entry = excel.CATALOG[name]
    function = _meta()[name]
    assert function["name"] == name  # no namespace of our own: the manifest adds any
    description = str(function["description"])
    assert description == entry.description
    assert "\n" not in description
    assert len(description) <= 255  # the classic add-in's dialog truncates at 255
    if entry.citation:
        assert entry.citation in description
    assert "volatile" not in function["options"]  # type: ignore[operator]
    parameters = function["parameters"]
    assert isinstance(parameters, list)
    expected = [a.name for a in entry.arguments]
    if entry.vararg is not None:
        expected.append(entry.vararg.name)
    assert [p["name"] for p in parameters] == expected
    for parameter, argument in zip(parameters, entry.arguments, strict=False):
        assert parameter["description"] == argument.doc
        assert bool(parameter.get("optional")) == argument.optional
    for parameter in parameters:
        text = parameter["description"]
        assert not text.startswith("Positional argument")
        assert 15 <= len(text) <= 255


def test_metadata_lists_exactly_the_catalog() -> None:
    assert set(_meta()) == set(excel.CATALOG)


# =========================================================================== classic VBA


def _windows_stubs() -> dict[str, types.ModuleType]:
    """Just enough of pywin32 for ``xlwings.udfs`` to import on Linux."""
    pythoncom = types.ModuleType("pythoncom")
    pythoncom.CoInitialize = lambda: None  # type: ignore[attr-defined]
    pywintypes = types.ModuleType("pywintypes")
    pywintypes.com_error = type("com_error", (Exception,), {})  # type: ignore[attr-defined]
    win32com = types.ModuleType("win32com")
    client = types.ModuleType("win32com.client")
    client.Dispatch = lambda *args: None  # type: ignore[attr-defined]
    win32com.client = client  # type: ignore[attr-defined]
    return {
        "pythoncom": pythoncom,
        "pywintypes": pywintypes,
        "win32com": win32com,
        "win32com.client": client,
    }


@pytest.fixture(scope="module")
def classic() -> Iterator[tuple[types.ModuleType, types.ModuleType]]:
    """(xlwings.udfs, a copy of nj_incentives.excel decorated by the classic add-in's
    decorators), as on Windows with pywin32, where ``xw.func`` is ``udfs.xlfunc``."""
    with pytest.MonkeyPatch.context() as patch:
        for name, module in _windows_stubs().items():
            patch.setitem(sys.modules, name, module)
        udfs = importlib.import_module("xlwings.udfs")
        patch.setattr(xw, "func", udfs.xlfunc)
        patch.setattr(xw, "arg", udfs.xlarg)
        patch.setattr(xw, "ret", udfs.xlret)
        spec = importlib.util.spec_from_file_location("nj_excel_classic", excel.__file__)
        assert spec is not None
        assert spec.loader is not None
        copy = importlib.util.module_from_spec(spec)
        patch.setitem(sys.modules, spec.name, copy)  # dataclasses look their module up
        spec.loader.exec_module(copy)
        try:
            yield udfs, copy
        finally:
            sys.modules.pop("xlwings.udfs", None)
            if hasattr(xw, "udfs"):
                delattr(xw, "udfs")


def _vba(udfs: types.ModuleType, module: types.ModuleType) -> str:
    out = io.StringIO()
    workbook = types.SimpleNamespace(Name="nj-incentives.xlam")
    udfs.generate_vba_wrapper("nj_incentives.excel", module, out, workbook)
    return out.getvalue()


def test_classic_wrappers_declare_every_function_with_legal_names(
    classic: tuple[types.ModuleType, types.ModuleType],
) -> None:
    udfs, module = classic
    assert module.RUNTIME == "classic"
    vba = _vba(udfs, module)
    declared = vba_declarations(vba)
    assert set(declared) == set(excel.CATALOG)
    for name, parameters in declared.items():
        entry = excel.CATALOG[name]
        expected = [f"Optional {a.name}" if a.optional else a.name for a in entry.arguments]
        if entry.vararg is not None:
            expected.append(f"ParamArray {entry.vararg.name}()")
        assert parameters == expected
        assert f'XLPy.CallUDF("nj_incentives.excel", "{name}"' in vba
    assert vba_problems(vba) == []
    assert "Application.Volatile" not in vba


def test_classic_metadata_has_help_for_every_argument(
    classic: tuple[types.ModuleType, types.ModuleType],
) -> None:
    _, module = classic
    for name, entry in excel.CATALOG.items():
        xlfunc = getattr(module, name).__xlfunc__
        assert xlfunc["ret"]["doc"] == entry.description
        assert xlfunc["category"] == excel.CATEGORY
        for info in xlfunc["args"]:
            assert not info["doc"].startswith("Positional argument")
            assert len(info["doc"]) <= 255  # MacroOptions' limit for argument help


def test_classic_errors_are_text_in_the_cell(
    classic: tuple[types.ModuleType, types.ModuleType],
) -> None:
    _, module = classic
    assert module.NJ_BEIP_GRANT(1250000.0, 0.2) == 250000.0  # COM passes floats
    assert module.NJ_BEIP_GRANT(1250000.0, 50.0) == (
        "#VALUE! pct = 50: a percentage is a fraction (50% = 0.5); did you mean 50%? "
        "(N.J.S.A. 34:1B-129a.)"
    )
    # an error cell arrives as its text (err_to_str): refused, not taken for a blank
    assert module.NJ_BEIP_GRANT(1250000.0, 0.2, None, None, "#N/A").startswith(
        "#VALUE! smart_growth = '#N/A': the cell holds an error value"
    )
    options = module.NJ_BEIP_GRANT.__xlfunc__["argmap"]["smart_growth"]["options"]
    assert options["err_to_str"] is True


def test_the_vba_checker_catches_a_parameter_named_end(
    classic: tuple[types.ModuleType, types.ModuleType],
) -> None:
    """The defect found in a trial: ``end`` (and ``date``) make VBA that cannot compile."""
    udfs, _ = classic
    bad = types.ModuleType("bad_udfs")

    def BAD_PERIOD(start, end, date=None):  # type: ignore[no-untyped-def]
        return 0

    bad.BAD_PERIOD = udfs.xlfunc(BAD_PERIOD)  # type: ignore[attr-defined]
    vba = _vba(udfs, bad)
    assert "Function BAD_PERIOD(start, end, Optional date)" in vba
    problems = vba_problems(vba)
    assert len(problems) == 2
    assert "'end' is a reserved word" in problems[0]
    assert "'date' is a reserved word" in problems[1]


@pytest.mark.parametrize(
    ("vba", "problem"),
    [
        ("Function F(a, Optional b, c)", "required 'c' follows an optional parameter"),
        ("Function F(amount, Amount)", "parameter 'amount' is declared twice"),
        ("Function F(f)", "a parameter has the procedure's name"),
        ("Function F(_x)", "is not a VBA identifier"),
        ("Function F(argsArray)", "reserved word or a name the generated VBA wrapper uses"),
    ],
)
def test_vba_checker_rules(vba: str, problem: str) -> None:
    problems = vba_problems(vba)
    assert len(problems) == 1
    assert problem in problems[0]


def test_the_catalog_refuses_an_illegal_name() -> None:
    with pytest.raises(TypeError, match="'end' is a reserved word"):
        catalog.calculation(
            "NJ_BAD", cite="", description="Never declared", example=(), end=catalog.single("")
        )
    assert "NJ_BAD" not in catalog.CALCULATIONS


def test_the_catalog_refuses_a_description_without_its_law() -> None:
    with pytest.raises(TypeError, match="must cite the law"):
        catalog.calculation("NJ_BAD", cite="N.J.S.A. 1:1-1", description="No law", example=())
    assert "NJ_BAD" not in catalog.CALCULATIONS


def test_an_adapter_must_match_its_catalog_entry() -> None:
    # a function the catalog does not declare, and one whose parameters differ from it
    registered = table.CATALOG["NJ_ERTC_FTE"]
    with pytest.raises(TypeError, match="not declared"):

        @table.adapter()
        def NJ_UNDECLARED() -> None: ...

    with pytest.raises(TypeError, match="the catalog"):

        @table.adapter()
        def NJ_ERTC_FTE(part_time_hours: object, months: object) -> None: ...

    assert table.CATALOG["NJ_ERTC_FTE"] is registered
    assert "NJ_UNDECLARED" not in table.CATALOG


def test_the_excel_module_decorates_the_table() -> None:
    """``nj_incentives.excel`` declares nothing of its own: each of its NJ_* members is the
    table's adapter, with the catalog's description, as a member of the module."""
    assert excel.CATALOG is table.CATALOG
    members = sorted(name for name in vars(excel) if name.startswith("NJ_"))
    assert members == sorted(table.CATALOG)
    for name, entry in table.CATALOG.items():
        function = getattr(excel, name)
        assert inspect.unwrap(function) is entry.compute
        assert function.__doc__ == entry.description
        assert function.__module__ == excel.__name__


def test_every_adapter_is_registered_from_the_catalog() -> None:
    assert list(excel.CATALOG) == list(catalog.CALCULATIONS)
    for name, entry in excel.CATALOG.items():
        assert entry.calculation is catalog.CALCULATIONS[name]


def test_every_argument_name_is_legal_in_vba() -> None:
    for name, entry in excel.CATALOG.items():
        assert vba_identifier_problem(name) is None
        for argument in entry.arguments:
            assert vba_identifier_problem(argument.name) is None, (name, argument)


# =========================================================================== docs


def test_functions_reference_is_up_to_date() -> None:
    committed = (ROOT / "docs" / "functions.md").read_text(encoding="utf-8")
    assert committed == reference.render(), f"stale: run `{reference.COMMAND}`"


def test_reference_documents_every_function_with_example_and_citation() -> None:
    text = reference.render()
    for name, entry in excel.CATALOG.items():
        section = text.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
        assert f"**Example:** `={name}(" in section
        if entry.citation:
            assert f"**Law:** {entry.citation}" in section
        for argument in entry.arguments:
            assert f"| `{argument.name}` |" in section
        assert "#VALUE!" not in section.split("**Example:**", 1)[1]  # examples compute


def test_reference_example_formulas_are_well_formed() -> None:
    for entry in excel.CATALOG.values():
        formula = entry.formula()
        assert re.fullmatch(rf"={entry.name}\(.*\)", formula)
        assert formula.count("(") == formula.count(")")


# =========================================================== issue 35: dropdowns, help, cache

_SWITCHES = [
    (entry.name, argument)
    for entry in excel.CATALOG.values()
    for argument in entry.arguments
    if argument.choices
]


def test_every_quoted_choice_of_words_is_a_switch() -> None:
    """An argument whose help offers words ('"form" ... or "calendar"') is declared a
    switch with exactly those words (a new one cannot be left as free text)."""
    for entry in excel.CATALOG.values():
        for argument in entry.arguments:
            offered = re.findall(r'"([a-z][a-z0-9_]*)"', argument.doc.split("; blank")[0])
            if len(offered) >= 2 and " or " in argument.doc:
                assert set(argument.choices) == set(offered), (entry.name, argument.name)
            if argument.choices:
                assert argument.kind == "one"


def test_switch_words_are_the_rules_own() -> None:
    from nj_incentives.core.inputs import InputKind
    from nj_incentives.programs.beip.rules import CAP_METHODS

    found = {(name, a.name): a.choices for name, a in _SWITCHES}
    assert found["NJ_BEIP_GRANT_SCHEDULE", "cap_method"] == CAP_METHODS
    assert set(found["NJ_INPUT", "kind"]) == {kind.value for kind in InputKind}
    assert len(_SWITCHES) >= 20


@pytest.mark.parametrize(
    ("name", "argument"), _SWITCHES, ids=[f"{n}.{a.name}" for n, a in _SWITCHES]
)
def test_every_word_of_a_switch_is_accepted(name: str, argument: catalog.Argument) -> None:
    """Each word the dropdown offers is one the function takes: with the example's
    arguments and the switch at that word the result names no problem with the switch."""
    entry = excel.CATALOG[name]
    position = [a.name for a in entry.arguments].index(argument.name)
    for word in argument.choices:
        args = list(entry.example) + [None] * (len(entry.arguments) - len(entry.example))
        args[position] = word
        result = table.functions()[name](*args)
        text = str(result)
        assert not (text.startswith("#VALUE!") and argument.name in text), (word, text)


@pytest.mark.skipif(excel.RUNTIME != "office.js", reason="needs the Office.js decorators")
def test_switches_are_dropdowns_and_every_function_is_cached() -> None:
    meta = xlwings.server.custom_functions_meta(excel)  # type: ignore[no-untyped-call]
    enums = {enum["id"]: [v["stringValue"] for v in enum["values"]] for enum in meta["enums"]}
    functions = {function["id"]: function for function in meta["functions"]}
    for name, argument in _SWITCHES:
        parameter = next(p for p in functions[name]["parameters"] if p["name"] == argument.name)
        assert parameter["customEnumId"] == f"{name}.{argument.name}".upper()
        assert enums[parameter["customEnumId"]] == list(argument.choices)
    assert len(enums) == len(_SWITCHES)
    for name in excel.CATALOG:  # pure functions: Excel may keep a result (cache=True)
        assert getattr(excel, name).__xlfunc__["cache"] is True


def test_help_links_point_at_each_function_s_section(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(excel.DOCS_URL_VARIABLE, raising=False)
    assert excel.help_url("NJ_BEIP_GRANT") is None  # no address: no link
    monkeypatch.setenv(excel.DOCS_URL_VARIABLE, "https://intranet.example/nj/docs/")
    text = (ROOT / "docs" / "functions.md").read_text(encoding="utf-8")
    for name in excel.CATALOG:
        url = excel.help_url(name)
        assert url == f"https://intranet.example/nj/docs/functions.md#{name.lower()}"
        assert f"\n## {name}\n" in text  # the anchor #nj_... is that heading's
    monkeypatch.setenv(excel.DOCS_URL_VARIABLE, "file:///C:/docs")
    assert excel.help_url("NJ_BEIP_GRANT") is None  # Excel opens web addresses only
