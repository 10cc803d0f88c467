"""The setup steps written once (issue 9, items 4 and 8): the About sheets and
docs/install.md show the same steps and licences from ``nj_incentives.runtimes.setup_steps``; the
xlwings.conf sheet carries the workbook's keys; ``nj-incentives doctor`` checks what can
be checked here and prints the next step.
"""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest

from nj_incentives import cli
from nj_incentives.cli import doctor
from nj_incentives.programs.beip.templates import grant as beip_grant
from nj_incentives.runtimes import setup_steps
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY, EXAMPLES, TEMPLATES
from nj_incentives.workpapers.templates.builder import build_template

INSTALL = DEFAULT_DIRECTORY.parent / "docs" / "install.md"
WORKBOOKS = [DEFAULT_DIRECTORY / n for n in TEMPLATES] + [
    DEFAULT_DIRECTORY / "examples" / n for n in EXAMPLES
]
TEMPLATE = DEFAULT_DIRECTORY / "beip-grant-schedule.xlsx"


def test_install_md_shows_the_generated_steps() -> None:
    text = INSTALL.read_text(encoding="utf-8")
    assert setup_steps.rewrite(text) == text, (
        "regenerate: python -m nj_incentives.runtimes.setup_steps docs/install.md"
    )


def test_the_classic_steps_are_in_the_order_xlwings_enforces() -> None:
    assert [step.key for step in setup_steps.CLASSIC] == [
        "package",
        "xlsm",  # Import Functions refuses a non-macro-enabled workbook
        "trust",  # importing writes a VBA module
        "addin",  # xlwings addin install
        "reference",  # the wrappers call the add-in
        "interpreter",
        "import",  # the xlwings 0.37 ribbon's name
    ]
    assert "Import Functions" in setup_steps.CLASSIC[-1].title
    assert "xlwings addin install" in setup_steps.CLASSIC[3].detail
    assert "Import Python UDFs" not in INSTALL.read_text(encoding="utf-8").split("setup-steps")[1]


def _about(path: Path) -> list[tuple[str, str]]:
    sheet = openpyxl.load_workbook(path)["About"]
    return [(str(r[0].value or ""), str(r[1].value or "")) for r in sheet.iter_rows(max_col=2)]


@pytest.mark.parametrize("path", WORKBOOKS, ids=lambda p: p.stem)
def test_every_about_sheet_shows_the_steps_and_licences(path: Path) -> None:
    rows = _about(path)
    for steps in (setup_steps.CLASSIC, setup_steps.LITE, setup_steps.SERVER):
        expected = [
            (f"{n}. {step.title}" if k == 0 else "", text)
            for n, step in enumerate(steps, 1)
            for k, text in enumerate(step.lines)
        ]
        first = rows.index(expected[0])
        assert rows[first : first + len(expected)] == expected
    for runtime, text in setup_steps.LICENCES:
        assert (runtime, text) in rows
    assert not any("pip install nj-incentives;" in b for _, b in rows)  # the old, wrong line


def test_every_line_fits_the_about_sheet_column() -> None:
    texts = [
        line
        for steps in (setup_steps.CLASSIC, setup_steps.LITE, setup_steps.SERVER)
        for step in steps
        for line in step.lines
    ]
    texts += [text for _, text in setup_steps.LICENCES]
    assert max(map(len, texts)) <= setup_steps.LINE


@pytest.mark.parametrize("path", WORKBOOKS, ids=lambda p: p.stem)
def test_the_conf_sheet_carries_the_workbook_keys(path: Path) -> None:
    sheet = openpyxl.load_workbook(path)["xlwings.conf"]
    written = [k for k in setup_steps.CONF_KEYS if k.written]
    for row, key in enumerate(written, 1):
        assert (sheet.cell(row, 1).value, sheet.cell(row, 2).value) == (key.key, key.value)
    assert sheet.cell(len(written) + 1, 1).value is None  # the add-in's list ends here
    notes = " ".join(str(c.value) for c in sheet["D"] if c.value)
    for key in setup_steps.CONF_KEYS:
        if not key.written:
            assert key.key in notes


# --------------------------------------------------------------------------- doctor


def run_doctor(*argv: str) -> tuple[int, str]:
    """``nj-incentives doctor ARGV`` through the command line; (status, standard output)."""
    lines: list[str] = []
    workbook = next((a for a in argv if not a.startswith("--") and "/" in a), None)
    options = dict(zip(argv[1::2], argv[2::2], strict=False)) if workbook else {}
    status = doctor.run(
        Path(workbook) if workbook else None,
        runtime=options.get("--runtime", "classic"),
        namespace=options.get("--namespace", ""),
        out=lines.append,
    )
    return status, "\n".join(lines)


def test_doctor_on_this_machine() -> None:
    checks = doctor.check_machine()
    assert [c.what for c in checks[:3]] == ["Python", "nj-incentives", "xlwings"]
    assert [c.status for c in checks[:3]] == ["ok", "ok", "ok"]
    status, text = run_doctor()
    assert status == 0
    assert "Next step: nothing to fix here" in text


def _windows(tmp_path: Path, addin: bool, interpreter: str) -> dict[str, str]:
    appdata, home = tmp_path / "AppData" / "Roaming", tmp_path / "home"
    if addin:
        (appdata / "Microsoft" / "Excel" / "XLSTART").mkdir(parents=True)
        (appdata / "Microsoft" / "Excel" / "XLSTART" / "xlwings.xlam").write_bytes(b"xlam")
    (home / ".xlwings").mkdir(parents=True)
    conf = f'"INTERPRETER_WIN","{interpreter}"\n"UDF_MODULES",""\n' if interpreter else ""
    (home / ".xlwings" / "xlwings.conf").write_text(conf)
    return {"APPDATA": str(appdata), "USERPROFILE": str(home)}


def test_doctor_on_windows_finds_a_missing_addin(tmp_path: Path) -> None:
    checks = doctor.check_machine("win32", _windows(tmp_path, addin=False, interpreter=""))
    failed = {c.what: c for c in checks if c.status == "FAIL"}
    assert "xlwings add-in" in failed
    assert "xlwings addin install" in failed["xlwings add-in"].next_step()
    assert "pythonw.exe" in failed["interpreter"].next_step()


def test_doctor_on_windows_accepts_the_installed_addin(tmp_path: Path) -> None:
    import sys

    environ = _windows(tmp_path, addin=True, interpreter=sys.executable)
    checks = {c.what: c.status for c in doctor.check_machine("win32", environ)}
    assert checks["xlwings add-in"] == "ok"
    assert checks["interpreter"] == "ok"


def _edited(source: Path, target: Path, edit: Callable[[str, bytes], bytes], *extra: str) -> Path:
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            new.writestr(item, edit(item.filename, old.read(item)))
        for name in extra:
            new.writestr(name, b"\xd0\xcf\x11\xe0 ... Module=xlwings_udfs ...")
    return target


def _same(name: str, data: bytes) -> bytes:
    return data


def test_doctor_names_the_next_step_for_an_xlsx(tmp_path: Path) -> None:
    status, text = run_doctor(str(TEMPLATE))
    assert status == 1
    assert "[FAIL] macro-enabled" in text
    assert f"Next step: {setup_steps.CLASSIC[1].title}" in text


def test_doctor_accepts_an_imported_xlsm(tmp_path: Path) -> None:
    xlsm = _edited(TEMPLATE, tmp_path / "mine.xlsm", _same, "xl/vbaProject.bin")
    status, text = run_doctor(str(xlsm))
    assert status == 0, text
    assert "[  ok] imported functions" in text
    assert "[  ok] xlwings.conf sheet  UDF Modules = nj_incentives.excel" in text


def test_doctor_asks_to_import_the_functions(tmp_path: Path) -> None:
    xlsm = tmp_path / "mine.xlsm"
    shutil.copyfile(TEMPLATE, xlsm)
    status, text = run_doctor(str(xlsm))
    assert status == 1
    assert "Next step: Import Functions" in text


def test_doctor_finds_a_wrong_conf_sheet(tmp_path: Path) -> None:
    def edit(name: str, data: bytes) -> bytes:
        return data.replace(b"nj_incentives.excel", b"my_udfs") if "sharedStrings" in name else data

    xlsm = _edited(TEMPLATE, tmp_path / "mine.xlsm", edit, "xl/vbaProject.bin")
    status, text = run_doctor(str(xlsm))
    assert status == 1
    assert "[FAIL] xlwings.conf sheet" in text
    assert "UDF Modules = my_udfs" in text


def test_doctor_checks_the_spelling_for_the_runtime(tmp_path: Path) -> None:
    namespaced = build_template(beip_grant, tmp_path / "ns.xlsx", function_namespace="XLWINGS")
    status, text = run_doctor(str(namespaced), "--runtime", "server")
    assert status == 0, text
    assert "=XLWINGS.NJ_..." in text
    status, text = run_doctor(str(namespaced), "--runtime", "lite")
    assert status == 1
    assert "run nj_reenter_formulas" in text
    status, text = run_doctor(str(TEMPLATE), "--runtime", "server")
    assert status == 1
    assert "nj-incentives templates DIR --namespace XLWINGS" in text


def test_doctor_accepts_lite_s_saved_form(tmp_path: Path) -> None:
    """A workbook saved by Excel with xlwings Lite stores ``_xldudf_XLW_NJ_...(``."""

    def saved(name: str, data: bytes) -> bytes:
        if not name.startswith("xl/worksheets/"):
            return data
        return re.sub(rb"(?<![\w.])(NJ_[A-Z0-9_]+\()", rb"_xldudf_XLW_\1", data)

    edited = _edited(TEMPLATE, tmp_path / "lite-saved.xlsx", saved)
    assert b"_xldudf_XLW_NJ_" in zipfile.ZipFile(edited).read("xl/worksheets/sheet3.xml")
    status, text = run_doctor(str(edited), "--runtime", "lite")
    assert status == 0, text
    assert "[  ok] formula spelling" in text
    # the classic add-in cannot read it: there it is a wrong spelling
    status, text = run_doctor(str(edited))
    assert "[FAIL] formula spelling" in text


def test_no_sheet_name_breaks_import_functions() -> None:
    """xlwings 0.37's Import Functions (udfs.py) fails with a licence error when any sheet
    name ends in .py."""
    for path in WORKBOOKS:
        names = openpyxl.load_workbook(path, read_only=True).sheetnames
        assert not [n for n in names if n.lower().endswith(".py")], (path.name, names)


def test_every_description_and_argument_help_fits_the_function_wizard() -> None:
    """The classic add-in's MacroOptions cut descriptions and argument help at 255
    characters (xlwings 0.37 udfs.py); checked on the catalog itself, in any runtime."""
    from nj_incentives.functions.catalog import CALCULATIONS

    assert CALCULATIONS
    for name, entry in CALCULATIONS.items():
        assert len(entry.description) <= 255, (name, len(entry.description))
        arguments = [*entry.arguments, *([entry.vararg] if entry.vararg else [])]
        for argument in arguments:
            assert len(argument.doc) <= 255, (name, argument.name, len(argument.doc))


def test_the_about_sheets_say_how_to_bind_cells_that_show_name_errors() -> None:
    classic = " ".join(step.detail for step in setup_steps.CLASSIC)
    assert "Ctrl+Alt+F9" in classic
    assert "Replace, = with =, Replace All" in classic
    # hidden (never printed, issue 31) and protected: unhidden, then unprotected
    assert "xlwings.conf sheet: it is hidden (never printed) and protected" in classic
    assert "Unhide first, then Review > Unprotect Sheet" in classic
    for runtime in (setup_steps.LITE, setup_steps.SERVER):
        assert "Replace, = with =" in runtime[-1].detail
    text = INSTALL.read_text(encoding="utf-8")
    assert "Ctrl+Alt+F9" in text
    about = openpyxl.load_workbook(TEMPLATE, read_only=True)["About"]
    shown = " ".join(str(v) for row in about.iter_rows(values_only=True) for v in row if v)
    assert "Ctrl+Alt+F9" in shown
    assert "Unhide first, then Review > Unprotect Sheet" in shown


def test_doctor_finds_lower_case_and_unknown_names(tmp_path: Path) -> None:
    def lower(name: str, data: bytes) -> bytes:
        if not name.startswith("xl/worksheets/"):
            return data
        text = re.sub(rb"NJ_BEIP_GRANT_SCHEDULE\(", b"nj_beip_grant_schedule(", data)
        return text.replace(b"NJ_BEIP_COMBINED_LIMIT(", b"NJ_BEIP_NOT_A_FUNCTION(")

    edited = _edited(TEMPLATE, tmp_path / "lo.xlsx", lower)
    status, text = run_doctor(str(edited), "--runtime", "lite")
    assert status == 1
    assert "lower-case (a LibreOffice save)" in text
    assert "not in nj-incentives" in text
    assert "NJ_BEIP_NOT_A_FUNCTION" in text


def test_doctor_refuses_an_unreadable_workbook(tmp_path: Path) -> None:
    bad = tmp_path / "bad.xlsm"
    bad.write_text("not a workbook")
    assert cli.main(["doctor", str(bad)]) == 2


def test_doctor_through_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["doctor", str(TEMPLATE), "--runtime", "server", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == 1
    assert "--namespace XLWINGS" in report["next_step"]
    assert {c["check"] for c in report["checks"]} >= {"Python", "xlwings", "formula spelling"}
    assert cli.main(["doctor"]) == 0


def test_a_module_namespace_is_read_in_both_spellings(tmp_path: Path) -> None:
    """The namespace decision (docs/install.md, "Names"): the templates stay bare; a
    workbook written for a namespace (``NJ.``) is read by calc's respeller and by doctor,
    as typed and as Excel saves it."""
    from nj_incentives.functions import CATALOG
    from nj_incentives.runtimes.spelling import tokens

    formula = "=NJ.NJ_BEIP_GRANT(A1,B1)+_xldudf_NJ_NJ_BEIP_GRANT(A1,B1)+NJ_BEIP_GRANT(A1,B1)"
    assert [base for _written, base in tokens(formula, CATALOG)] == ["NJ_BEIP_GRANT"] * 3
    namespaced = build_template(beip_grant, tmp_path / "nj.xlsx", function_namespace="NJ")
    status, text = run_doctor(str(namespaced), "--runtime", "lite", "--namespace", "NJ")
    assert status == 0, text
    assert "=NJ.NJ_..." in text


def test_doctor_finds_a_defined_name_spelled_like_a_function(tmp_path: Path) -> None:
    """xlwings-lite#33: a LAMBDA named like a Python function stops them all."""

    def named(name: str, data: bytes) -> bytes:
        if name != "xl/workbook.xml":
            return data
        lam = b'<definedName name="NJ_BEIP_GRANT">_xlfn.LAMBDA(_xlpm.x,_xlpm.x)</definedName>'
        if b"<definedNames>" in data:
            return data.replace(b"<definedNames>", b"<definedNames>" + lam, 1)
        return data.replace(b"</sheets>", b"</sheets><definedNames>" + lam + b"</definedNames>")

    edited = _edited(TEMPLATE, tmp_path / "lambda.xlsx", named)
    status, text = run_doctor(str(edited), "--runtime", "lite")
    assert status == 1
    assert "[FAIL] defined names" in text
    assert "NJ_BEIP_GRANT spelled like an NJ_* function" in text
    status, text = run_doctor(str(TEMPLATE), "--runtime", "lite")
    assert "defined names" not in text  # the shipped templates name nothing so
