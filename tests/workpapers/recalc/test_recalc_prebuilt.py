"""A shipped template recalculated from its prebuilt form (issue 23 items 1-2).

The form of each template is the template's formulas parsed once by the engine's own
parser; walking it calls the engine's own operators and functions and the same NJ_*
adapters. These tests hold it to the full recalculation (:func:`engine.recalculate_vetted`)
field by field: on every example and blank template, on LibreOffice-saved copies, on the
spellings other runtimes save (Office.js, Excel's ``_xldudf_``), on randomly filled inputs
(hypothesis, including inputs the NJ_* functions reject and checks that go FALSE) and on
every input of each example moved at once, and on a Form 313 roster continued on a
second sheet (its form built in the process from the builder); a stale committed form is
never used (the template's form is built in the process instead); and they check that
anything else gets the full path: other formulas (on a continued roster too), a claimed
template that is not one. openpyxl- and
pandas-saved copies (inline strings, no dynamic-array marking) get the form too, with the
full path's values. (The compiled-model path these tests replaced was retired in issue
30: see the module docstring of :mod:`nj_incentives.workpapers.recalc.prebuilt`.)
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import json
import re
import shutil
import zipfile
from collections import Counter
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from nj_incentives.programs.beip.templates import conversion as beip_conversion
from nj_incentives.programs.beip.templates import grant as beip_grant
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.support import shipped
from nj_incentives.workpapers.recalc import engine, prebuilt
from nj_incentives.workpapers.recalc.prebuilt import FORMS
from nj_incentives.workpapers.recalc.safety import UnsafeWorkbookError, sheet_parts, vet_workbook
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from nj_incentives.workpapers.templates.builder import build_template
from test_any_saver import SAVERS  # the same folder (rootless import)
from tooling import libreoffice_saved_examples, recalculated_once, saved_copies

EXAMPLES = {name: DEFAULT_DIRECTORY / "examples" / name for name in shipped.EXAMPLES}
TEMPLATES = {name: DEFAULT_DIRECTORY / name for name in shipped.TEMPLATES}
BUILDERS: dict[str, tuple[Callable[..., Path], Mapping[str, Any]]] = {
    f"{module.TEMPLATE_ID}.xlsx": (partial(build_template, module), module.EXAMPLE)
    for module in (beip_grant, beip_conversion, ertc_credit)
}


def assert_same(fast: engine.Recalculation | None, full: engine.Recalculation) -> None:
    """Every field of the recalculation the same; the rejected inputs the same ones (the
    engine's order of evaluation is its scheduler's, the form's its dependency order)."""
    assert fast is not None, "the prebuilt path was not taken"
    assert fast.method == "prebuilt"
    for name in ("sheets", "formulas", "array_ranges", "computed", "names", "calls", "notes"):
        assert getattr(fast, name) == getattr(full, name), name
    assert Counter(fast.function_errors) == Counter(full.function_errors)
    differing = [
        (address, fast.values.get(address), full.values.get(address))
        for address in set(fast.values) | set(full.values)
        if _typed(fast.values.get(address)) != _typed(full.values.get(address))
    ]
    assert not differing, sorted(differing, key=str)[:10]
    assert fast.values == full.values  # the blanks of ranges read too


def _typed(value: Any) -> tuple[str, Any]:
    """A value with its kind: TRUE is not 1, "1" is not 1."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", float(value))
    return (type(value).__name__, value)


def both(path: Path) -> tuple[engine.Recalculation | None, engine.Recalculation]:
    vetted = vet_workbook(path)
    return prebuilt.recalculate_prebuilt(vetted), engine.recalculate_vetted(vetted)


# --------------------------------------------------------------------------- the forms


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_the_committed_form_is_the_form_of_the_template_as_built(name: str) -> None:
    # fails when a template changed and its form was not rebuilt with it: run
    # python -m nj_incentives.workpapers.templates.build (it writes the templates and the forms)
    committed = prebuilt.form_path(name).read_text(encoding="utf-8")
    assert committed == prebuilt.build_form(TEMPLATES[name]).to_json(), (
        f"{prebuilt.form_path(name)} is stale: "
        "run python -m nj_incentives.workpapers.templates.build"
    )


@pytest.mark.recalc
def test_every_form_is_loaded_and_a_stale_one_is_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a committed form that is not its template's (here: built from another template
    # file, and with its formulas cut, so that walking it would give wrong values) is
    # never used: the template's form is built in the process instead, as the build
    # writes it, and a workbook of that template gets the full path's values from it
    assert {form.template for form in prebuilt.load_forms()} == set(TEMPLATES)
    for name in TEMPLATES:
        document = json.loads(prebuilt.form_path(name).read_text(encoding="utf-8"))
        document["source_sha256"] = "0" * 64  # built from another template file
        document["nodes"] = document["nodes"][:1]
        prebuilt.form_path(name, tmp_path).write_text(json.dumps(document), encoding="utf-8")
    monkeypatch.setattr(prebuilt, "FORMS", tmp_path)
    monkeypatch.setattr(prebuilt.form_path, "__defaults__", (tmp_path,))
    caches = (prebuilt.load_forms, prebuilt.built_form, prebuilt._unbuilt)
    for cache in caches:
        cache.cache_clear()
    try:
        assert prebuilt.load_forms() == ()
        path = EXAMPLES["beip-grant-schedule-example.xlsx"]
        vetted = vet_workbook(path)
        graph = prebuilt.read_graph(vetted)
        assert graph is not None
        # the grant schedule and the conversion have the same sheets (each with its Return
        # and Calendar sheets; the credit ledgers have no Calendar): each is a candidate
        candidates = prebuilt.forms_for(graph.sheets)
        # (the two BEIP templates, since issue 33 each with its Calendar sheet)
        assert {form.template for form in candidates} == {
            "beip-grant-schedule.xlsx",
            "beip-credit-conversion.xlsx",
        }
        assert all(isinstance(form, prebuilt.Unbuilt) for form in candidates)
        fast, full = both(path)
        assert_same(fast, full)
        # only the template it is was built, and its form is the one the build writes
        assert prebuilt.built_form.cache_info().currsize == 1
        built = prebuilt.built_form("beip-grant-schedule.xlsx")
        assert built is not None
        committed = prebuilt.form_path("beip-grant-schedule.xlsx", FORMS).read_text("utf-8")
        assert built.to_json() == committed
    finally:
        monkeypatch.undo()
        for cache in caches:
            cache.cache_clear()


def test_an_example_s_formulas_are_its_template_s() -> None:
    fingerprints = {form.fingerprint for form in prebuilt.load_forms()}
    for path in EXAMPLES.values():
        graph = prebuilt.read_graph(vet_workbook(path))
        assert graph is not None
        assert graph.fingerprint() in fingerprints, path.name


# --------------------------------------------------------------------------- same values


@pytest.mark.slow
@pytest.mark.parametrize("path", [*EXAMPLES.values(), *TEMPLATES.values()], ids=lambda p: p.stem)
@pytest.mark.recalc
def test_every_example_and_blank_template_is_the_same(path: Path) -> None:
    # the full recalculation of a shipped file, once per process for every test holding
    # something to it (tooling.recalculated_once: recalc.recalculate, as both() does)
    fast = prebuilt.recalculate_prebuilt(vet_workbook(path))
    assert_same(fast, recalculated_once(path))


@pytest.mark.slow
@pytest.mark.recalc
def test_rejected_inputs_and_false_checks_are_the_same(tmp_path: Path) -> None:
    # a percentage typed as 50 (not 50%) and a negative withholding: the functions refuse
    # them, their cells hold the message, the checks fail
    values = dict(beip_grant.EXAMPLE, pct=50, withholdings=[600000, -5, "abc", None, 700000])
    path = build_template(beip_grant, tmp_path / "bad.xlsx", values)
    fast, full = both(path)
    assert_same(fast, full)
    assert fast is not None
    assert fast.function_errors
    assert fast.value("MasterCheck") is False


@pytest.mark.slow
@pytest.mark.parametrize("namespace", ["XLWINGS", "XLWINGS_DEV"])
@pytest.mark.recalc
def test_an_office_js_spelling_is_the_same_template(namespace: str, tmp_path: Path) -> None:
    path = build_template(
        beip_grant, tmp_path / "ns.xlsx", beip_grant.EXAMPLE, function_namespace=namespace
    )
    fast, full = both(path)
    assert_same(fast, full)


def _respelled(source: Path, target: Path, spell: Callable[[str], str]) -> Path:
    """A copy of ``source`` with every NJ_* name in its formulas spelled by ``spell``."""
    with zipfile.ZipFile(source) as archive:
        sheets = set(sheet_parts(archive).values())
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
            for info in archive.infolist():
                data = archive.read(info)
                if info.filename in sheets:
                    text = re.sub(
                        r"(<f[^>]*>)([^<]*)(</f>)",
                        lambda m: m.group(1) + spell(m.group(2)) + m.group(3),
                        data.decode(),
                    )
                    data = text.encode()
                copy.writestr(info, data)
    target.write_bytes(out.getvalue())
    return target


@pytest.mark.slow
@pytest.mark.recalc
def test_excel_s_saved_spelling_is_the_same_template(tmp_path: Path) -> None:
    # what Excel writes for an Office.js function when it saves (_xldudf_<NAMESPACE>_<NAME>),
    # with spaces after commas: no Excel here, so its saved spelling is made by hand (the
    # text between quotes, a string constant such as "Part II, line 3", left as it is)
    def excel(text: str) -> str:
        parts = text.split('"')
        parts[::2] = [
            re.sub(r"\bNJ_", "_xldudf_XLWINGS_NJ_", part).replace(",", ", ") for part in parts[::2]
        ]
        return '"'.join(parts)

    source = EXAMPLES["beip-credit-conversion-example.xlsx"]
    path = _respelled(source, tmp_path / "excel.xlsx", excel)
    fast, full = both(path)
    assert_same(fast, full)


@pytest.fixture(scope="module")
def libreoffice_copies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each example after a LibreOffice open-and-save (one soffice run for all three, shared
    with test_libreoffice_roundtrip and test_charts: tooling.libreoffice_saved_examples)."""
    copies = libreoffice_saved_examples(tmp_path_factory)
    assert set(copies) == set(EXAMPLES)
    return copies


@pytest.mark.slow
@pytest.mark.parametrize("name", list(EXAMPLES))
@pytest.mark.libreoffice
@pytest.mark.recalc
def test_a_libreoffice_copy_is_its_template_again(
    name: str, libreoffice_copies: dict[str, Path]
) -> None:
    # LibreOffice drops the dynamic-array marking, writes FALSE as FALSE() and the NJ_*
    # names in lower case: the full path restores the marking (recalc.templates), and
    # so the copy's formula graph is its template's again
    path = libreoffice_copies[name]
    with zipfile.ZipFile(path) as archive:
        assert 'cm="1"' not in "".join(
            archive.read(part).decode() for part in sheet_parts(archive).values()
        )
    fast, full = both(path)
    assert_same(fast, full)
    assert any("LibreOffice" in note for note in fast.notes if fast)


# --------------------------------------------------------------------------- other paths


def test_other_formulas_get_the_full_path_and_say_so(tmp_path: Path) -> None:
    # the same sheets and template id as the grant template, one check rewritten: it claims
    # to be the template but is not, and must never get the template's values
    source = EXAMPLES["beip-grant-schedule-example.xlsx"]
    path = _respelled(
        source,
        tmp_path / "claims.xlsx",
        # the schedule's check reads its table where it is computed (issue 31 item 3)
        lambda text: text.replace(
            "'Calculations NJ'!$C$23=\"Year\"", "'Calculations NJ'!$C$23=\"Yr\""
        ),
    )
    vetted = vet_workbook(path)
    fast, note = prebuilt.prebuilt_or_note(vetted)
    assert fast is None
    assert note is not None
    assert "formulas differ from the bundled template beip-grant-schedule.xlsx" in note
    result = prebuilt.recalculate_template(vetted)
    assert result.method == "full"
    assert note in result.notes
    # its own formula: the header cell reads "Year", and "Year" = "Yr" is FALSE
    assert result.value("Checks!C15") is False


# --------------------------------------------------------------------------- a continued roster


@pytest.fixture(scope="module")
def continued_roster(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ERTC example with 260 employees: 260 / 250 rows a sheet = 2 roster sheets a
    period (the second of 10 rows, its other rows blank), five hour patterns, temporary
    and excluded employees, and two inputs the functions refuse on the continuation
    sheets (employee 251's flag, employee 260's 745 hours: more than the 744 of a 31-day
    month). Two sheets, not three: the full engine's run costs 5.4 s here against 7.9 s
    for 501 employees (a middle sheet, continued and continuing, is the same formulas
    again; the 501-employee roster of test_fill.py takes this path, its averages the
    core's)."""
    patterns = (
        ([160] * 12, [160] * 12, [160] * 12),
        ([0] * 12, [160] * 12, [160] * 12),
        ([100] * 12, [100] * 12, [0] * 6 + [100] * 6),
        ([0] * 12, [0] * 3 + [150] * 9, [150] * 4 + [0] * 8),
        ([90] * 12, [90] * 12, [90] * 12),
    )
    employees: list[dict[str, Any]] = [
        {
            "name": f"Employee {n:04d}",
            "temporary": n % 97 == 0,
            "excluded": n % 101 == 0,
            **dict(zip(("base", "year1", "year2"), patterns[n % 5], strict=True)),
        }
        for n in range(1, 261)
    ]
    employees[250]["temporary"] = "perhaps"
    employees[259]["year2"] = [160] * 11 + [745]
    path = tmp_path_factory.mktemp("roster") / "ertc-260.xlsx"
    return build_template(ertc_credit, path, {**ertc_credit.EXAMPLE, "employees": employees})


@pytest.mark.slow
@pytest.mark.recalc
def test_a_roster_continued_on_further_sheets_is_the_same(continued_roster: Path) -> None:
    # the one full recalculation of a continued roster: its form is the template's with
    # 2 roster sheets a period, built in the process from the builder (no committed form)
    fast, full = both(continued_roster)
    assert_same(fast, full)
    assert len(full.function_errors) > 1  # the refused inputs, on the continuation sheets
    assert prebuilt.built_form("ertc-form-313.xlsx", 2) is not None


def test_a_continued_roster_with_other_formulas_gets_the_full_path_and_says_so(
    continued_roster: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the name shown on sheet (2) of credit years one and two reads the next employee's:
    # the template's sheets, not its formulas: the full path, with the note of any other
    # formulas (the full engine's values are the engine's own: not recalculated here)
    shown = "'Part II base year (2)'!$C$7)"
    graph = prebuilt.read_graph(vet_workbook(continued_roster))
    assert graph is not None
    assert graph.formulas[("Part II year one (2)", "C7")].endswith(shown)
    path = _respelled(
        continued_roster,
        tmp_path / "claims.xlsx",
        lambda text: text.replace(shown, "'Part II base year (2)'!$C$8)"),
    )
    vetted = vet_workbook(path)
    fast, note = prebuilt.prebuilt_or_note(vetted)
    assert fast is None
    assert note is not None
    assert "formulas differ from the bundled template ertc-form-313.xlsx" in note

    @dataclasses.dataclass(frozen=True)
    class Full:
        notes: tuple[str, ...] = ("the full path's",)
        method: str = "full"

    monkeypatch.setattr(engine, "recalculate_vetted", lambda vetted: Full())
    assert prebuilt.recalculate_template(vetted) == Full(notes=("the full path's", note))


@pytest.mark.slow
@pytest.mark.parametrize("saver", list(SAVERS))
@pytest.mark.parametrize("name", list(EXAMPLES))
@pytest.mark.recalc
def test_an_openpyxl_or_pandas_copy_gets_the_prebuilt_path(
    saver: str, name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """openpyxl (and pandas through it) drops the dynamic-array marking (restored from the
    template's layout, as for LibreOffice: recalc.templates, issue 20) and writes every
    text as an inline string, which the form's reader reads as the engine's reader does:
    the template's form, the same values as the full path, saying what it restored."""
    # the copy test_any_saver holds to its original (tooling.saved_copies: once a run), and
    # its full recalculation (once a process)
    path = saved_copies(tmp_path_factory)[(saver, name)]
    with zipfile.ZipFile(path) as archive:
        xml = "".join(archive.read(part).decode() for part in sheet_parts(archive).values())
    assert 't="inlineStr"' in xml  # the copy really holds inline strings
    vetted = vet_workbook(path)
    graph = prebuilt.read_graph(vetted)
    assert graph is not None
    assert graph.unsupported == []
    fast = prebuilt.recalculate_prebuilt(vetted)
    assert_same(fast, recalculated_once(path))
    assert fast is not None
    assert fast.value("MasterCheck") is True
    assert any("spilled range(s) restored from the" in n for n in fast.notes), fast.notes
    before = prebuilt.STATS["prebuilt"]
    assert prebuilt.recalculate_template(vetted).method == "prebuilt"
    assert prebuilt.STATS["prebuilt"] == before + 1


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_an_openpyxl_copy_reads_the_values_of_its_original(name: str, tmp_path: Path) -> None:
    # openpyxl writes every text as an inline string (the example has shared strings):
    # the form's reader reads the same values, except the empty texts openpyxl drops
    copy = SAVERS["openpyxl"](EXAMPLES[name], tmp_path / name)
    with zipfile.ZipFile(copy) as archive:
        assert "xl/sharedStrings.xml" not in archive.namelist()
    original = prebuilt.read_graph(vet_workbook(EXAMPLES[name]))
    saved = prebuilt.read_graph(vet_workbook(copy))
    assert original is not None
    assert saved is not None
    texts = {k: v for k, v in original.values.items() if isinstance(v, str) and v}
    assert texts
    assert {k: v for k, v in saved.values.items() if isinstance(v, str)} == texts
    assert {k: v for k, v in original.values.items() if v != ""} == saved.values


def _rewrite_inputs(source: Path, target: Path, change: Callable[[str], str]) -> Path:
    """A copy of ``source`` with its Inputs sheet's XML changed by ``change``."""
    with zipfile.ZipFile(source) as archive:
        part = sheet_parts(archive)["Inputs"]
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
            for info in archive.infolist():
                data = archive.read(info)
                if info.filename == part:
                    data = change(data.decode()).encode()
                copy.writestr(info, data)
    target.write_bytes(out.getvalue())
    return target


def _bump(xml: str) -> str:
    """Every plain number on the sheet moved: whole numbers + 1, others x 1.05 (cents)."""

    def moved(match: re.Match[str]) -> str:
        number = float(match.group(2))
        new = int(number) + 1 if number.is_integer() else round(number * 1.05, 2)
        return f"{match.group(1)}<v>{new}</v>"

    return re.sub(r'(<c r="[A-Z]+\d+"(?: s="\d+")?>)<v>(-?[\d.]+(?:E-?\d+)?)</v>', moved, xml)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(EXAMPLES))
@pytest.mark.recalc
def test_every_input_moved_is_the_same(name: str, tmp_path: Path) -> None:
    # every number of the example's Inputs sheet moved at once (the random-input test's
    # property on one fixed, whole-sheet change; moved here from the retired compiled
    # path's tests): the template's form, the full path's values, other values than the
    # example's
    changed = _rewrite_inputs(EXAMPLES[name], tmp_path / name, _bump)
    original = prebuilt.read_graph(vet_workbook(EXAMPLES[name]))
    graph = prebuilt.read_graph(vet_workbook(changed))
    assert original is not None
    assert graph is not None
    assert graph.fingerprint() == original.fingerprint()
    assert graph.values != original.values  # the inputs did change
    fast, full = both(changed)
    assert_same(fast, full)
    assert fast is not None
    assert fast.source == full.source == changed
    example = prebuilt.recalculate_prebuilt(vet_workbook(EXAMPLES[name]))
    assert example is not None
    assert fast.values != example.values  # other inputs, other results


@pytest.mark.recalc
def test_a_boolean_libreoffice_saved_as_a_formula_is_an_input(tmp_path: Path) -> None:
    # LibreOffice saves a TRUE or FALSE typed in a cell (or written by openpyxl) as the
    # formula TRUE() or FALSE() (its XML as it writes it): the template's formulas with an
    # input, walked from the form with the full path's values (each such cell a formula
    # cell there too); before, a switch answered TRUE in LibreOffice took the full path
    # with a note that the formulas differ from the template's
    def constants(xml: str) -> str:
        xml, yes = re.subn(
            r'<c r="C33"( s="\d+")? t="s"><v>\d+</v></c>',  # SmartGrowth, "No"
            r'<c r="C33"\1 t="n"><f aca="false">TRUE()</f><v>1</v></c>',
            xml,
        )
        xml, no = re.subn(
            r'<c r="D29"( s="\d+")?/>',  # AgreementDate's tickmark, blank
            r'<c r="D29"\1 t="n"><f aca="false">FALSE()</f><v>0</v></c>',
            xml,
        )
        assert yes == no == 1
        return xml

    path = _rewrite_inputs(
        EXAMPLES["beip-grant-schedule-example.xlsx"], tmp_path / "b.xlsx", constants
    )
    graph = prebuilt.read_graph(vet_workbook(path))
    assert graph is not None
    assert graph.constants() == {("Inputs", "C33"): True, ("Inputs", "D29"): False}
    fast, full = both(path)
    assert_same(fast, full)
    assert fast is not None
    assert fast.value("SmartGrowth") is True
    assert fast.formulas[("Inputs", "C33")] == "=TRUE()"
    assert ("Inputs", "D29") in fast.computed


def _inline_strings(source: Path, target: Path, rewrite: Callable[[str], str]) -> Path:
    """A copy of ``source`` with every inline string's ``<is>`` element rewritten."""
    with zipfile.ZipFile(source) as archive:
        sheets = set(sheet_parts(archive).values())
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
            for info in archive.infolist():
                data = archive.read(info)
                if info.filename in sheets:
                    text = re.sub(r"<is>.*?</is>", lambda m: rewrite(m.group(0)), data.decode())
                    data = text.encode()
                copy.writestr(info, data)
    target.write_bytes(out.getvalue())
    return target


def _rich(element: str) -> str:
    # the text cut into two runs, the second bold, and a phonetic run between them (not
    # part of the cell's value): <is><r><t>Fir</t></r><rPh ..><t>PH</t></rPh><r>..</r></is>
    from xml.sax.saxutils import escape, unescape

    found = re.fullmatch(r"<is><t(?: [^>]*)?>(.*?)</t></is>", element, re.S)
    if found is None:
        return element
    text = unescape(found.group(1))
    first, second = escape(text[: len(text) // 2]), escape(text[len(text) // 2 :])
    return (
        f'<is><r><t xml:space="preserve">{first}</t></r>'
        '<rPh sb="0" eb="1"><t>PHONETIC</t></rPh>'
        f'<r><rPr><b/></rPr><t xml:space="preserve">{second}</t></r></is>'
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "rewrite",
    [
        _rich,
        # text that looks like a formula, and an empty text: both plain text to the engine
        lambda element: element.replace("<t>", "<t>=1+", 1),
        lambda element: "<is><t/></is>",
    ],
    ids=["rich-text-and-phonetic", "formula-like", "empty"],
)
@pytest.mark.recalc
def test_inline_strings_are_read_as_the_engine_reads_them(
    rewrite: Callable[[str], str], tmp_path: Path
) -> None:
    copy = SAVERS["openpyxl"](EXAMPLES["beip-grant-schedule-example.xlsx"], tmp_path / "o.xlsx")
    path = _inline_strings(copy, tmp_path / "rewritten.xlsx", rewrite)
    assert path.read_bytes() != copy.read_bytes()
    fast, full = both(path)
    assert_same(fast, full)
    assert "PHONETIC" not in repr(full.values)


@pytest.mark.recalc
def test_an_unknown_workbook_gets_the_full_path_without_a_note(tmp_path: Path) -> None:
    import xlsxwriter

    path = tmp_path / "own.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Mine")
    sheet.write("A1", 2)
    sheet.write_formula("A2", "=A1*3")
    book.close()
    assert prebuilt.prebuilt_or_note(vet_workbook(path)) == (None, None)
    result = prebuilt.recalculate_template(vet_workbook(path))
    assert result.method == "full"
    assert result.value("Mine!A2") == 6
    assert result.notes == engine.recalculate_vetted(vet_workbook(path)).notes


def test_an_unsafe_copy_of_a_template_is_refused_before_any_fast_path(tmp_path: Path) -> None:
    # the template's bytes with an XML entity declared in a sheet: vetting refuses it, so
    # no path (prebuilt or full) ever reads it; calc reports it as refused (exit 2)
    source = EXAMPLES["beip-grant-schedule-example.xlsx"]
    path = tmp_path / "entity.xlsx"
    with zipfile.ZipFile(source) as archive:
        part = sheet_parts(archive)["Inputs"]
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as copy:
            for info in archive.infolist():
                data = archive.read(info)
                if info.filename == part:
                    data = data.replace(b"?>", b'?><!DOCTYPE x [<!ENTITY e "boom">]>', 1)
                copy.writestr(info, data)
    path.write_bytes(out.getvalue())
    with pytest.raises(UnsafeWorkbookError):
        vet_workbook(path)
    from nj_incentives.cli import main

    assert main(["calc", str(path), "-o", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out" / "entity-results.xlsx").exists()


def test_calc_uses_the_prebuilt_form_for_each_example(tmp_path: Path) -> None:
    from nj_incentives.cli import calc

    before = prebuilt.STATS["prebuilt"]
    assert calc.run(list(EXAMPLES.values()), tmp_path / "out") == 0
    assert prebuilt.STATS["prebuilt"] == before + len(EXAMPLES)


# --------------------------------------------------------------------------- random inputs

_WILD = st.one_of(
    st.none(),
    st.sampled_from([0, -1, 0.5, 50, 1e12, -250_000.5, "abc", "", "50%", True, False]),
    st.integers(-(10**7), 10**9),
    st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 2)),
    st.dates(dt.date(1990, 1, 1), dt.date(2040, 12, 31)),
)


def _mutated(draw: Any, value: Any, depth: int = 0) -> Any:
    """``value`` with some of its leaves replaced by anything a user might type; a
    top-level list gets another length (a record's months keep theirs)."""
    if isinstance(value, Mapping):  # by year: some years dropped; a record: every field
        by_year = all(isinstance(k, int) for k in value)
        keys = [k for k in value if not by_year or draw(st.integers(0, 3))]
        return {k: value[k] if k == "name" else _mutated(draw, value[k], depth + 1) for k in keys}
    if isinstance(value, list):
        size = draw(st.integers(0, len(value) + 1)) if depth == 0 else len(value)
        items = [value[i % len(value)] for i in range(size)] if value else []
        return [_mutated(draw, item, depth + 1) for item in items]
    if isinstance(value, tuple):
        return tuple(
            item if isinstance(item, (str, list, tuple)) else _mutated(draw, item, depth + 1)
            for item in value
        )
    return draw(_WILD) if draw(st.integers(0, 3)) == 0 else value


@pytest.mark.slow
@pytest.mark.parametrize(
    ("template", "examples"),
    [
        ("beip-grant-schedule.xlsx", 6),
        ("beip-credit-conversion.xlsx", 4),
        ("ertc-form-313.xlsx", 3),
    ],
)
@pytest.mark.recalc
def test_random_inputs_are_the_same(template: str, examples: int, tmp_path: Path) -> None:
    build, example = BUILDERS[template]

    @settings(
        max_examples=examples,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: each case is seconds long
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        database=None,
    )
    @given(st.data())
    def check(data: st.DataObject) -> None:
        values = {
            key: (value if key == "engagement" else _mutated(data.draw, value))
            for key, value in example.items()
        }
        note(f"inputs: {values!r}")
        path = tmp_path / "filled.xlsx"
        try:
            build(path, values)
        except (TypeError, ValueError) as error:  # the builder refuses what no cell holds
            data.draw(st.just(f"not buildable: {error}"))
            return
        saver = data.draw(st.sampled_from([None, *SAVERS]), label="saved again by")
        if saver is not None:  # a finance team's script saved it (inline strings)
            path = SAVERS[saver](path, tmp_path / f"{saver}.xlsx")
            graph = prebuilt.read_graph(vet_workbook(path))
            assert graph is not None
            if graph.unsupported:
                # a date before 1900 is an error cell to openpyxl (its warning), and it
                # saves one: the form's reader does not take error cells, the full path does
                note(f"not for the form: {graph.unsupported}")
                assert all("a cell of type 'e'" in why for why in graph.unsupported)
                assert prebuilt.recalculate_prebuilt(vet_workbook(path)) is None
                return
        fast, full = both(path)
        assert_same(fast, full)

    check()
    shutil.rmtree(tmp_path, ignore_errors=True)


# --------------------------------------------------------------------------- inline strings

_XML_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="\r"),
    max_size=12,
)


@st.composite
def _inline_elements(draw: Any) -> str:
    """An ``<is>`` element as a saver may write one: an optional plain ``<t>``, rich-text
    runs (some with run properties, some with an empty ``<t/>``) and phonetic runs, in any
    order."""
    from xml.sax.saxutils import escape

    def t() -> str:
        text = draw(_XML_TEXT)
        return (
            "<t/>"
            if not text and draw(st.booleans())
            else f'<t xml:space="preserve">{escape(text)}</t>'
        )

    pieces = []
    if draw(st.booleans()):
        pieces.append(t())
    for kind in draw(st.lists(st.sampled_from(["r", "rb", "rPh"]), max_size=4)):
        if kind == "r":
            pieces.append(f"<r>{t()}</r>")
        elif kind == "rb":
            pieces.append(f'<r><rPr><b/><sz val="11"/></rPr>{t()}</r>')
        else:
            pieces.append(f'<rPh sb="0" eb="1">{t()}</rPh>')
    order = draw(st.permutations(pieces))
    return "<is>" + "".join(order) + "</is>"


@given(_inline_elements())
def test_an_inline_string_is_openpyxl_s_text(element: str) -> None:
    # the engine reads a cell's inline string with openpyxl's Text.from_tree(...).content
    # (its reader built without rich text); the forms' reader must give the same text
    from xml.etree import ElementTree
    from xml.parsers import expat

    from openpyxl.cell.text import Text

    from nj_incentives.workpapers.recalc.ooxml import InlineString

    namespace = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    document = f'<c xmlns="{namespace}" r="A1" t="inlineStr">{element}</c>'
    expected = Text.from_tree(ElementTree.fromstring(document)[0]).content
    reader = InlineString()
    depth = [0]

    def start(name: str, attrs: dict[str, str]) -> None:
        depth[0] += 1
        if depth[0] > 1:
            reader.start(name.rsplit("}", 1)[-1].rsplit(":", 1)[-1])

    def end(name: str) -> None:
        if depth[0] > 1:
            reader.end()
        depth[0] -= 1

    parser = expat.ParserCreate()
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = reader.text
    parser.Parse(document, True)
    assert not reader.odd
    assert reader.value == expected
