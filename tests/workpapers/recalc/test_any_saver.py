"""A template saved by any tool computes as its template (issue 20, item 1a).

openpyxl (and pandas, which writes through it) keeps every formula of a filled example
but drops Excel's dynamic-array marking: the spilled tables become legacy array formulas
over their last range, and rows below a shorter result show #N/A. Before
nj_incentives.workpapers.recalc.templates, an example loaded and saved unchanged with openpyxl
failed
6 checks (ERTC) and 5 (grant schedule) and ``doctor`` said the file was fine. Now ``calc``
recognises the template, restores its spilled ranges from the template's layout, says so,
and gives the original's figures; ``doctor`` names the ranges; a file that matches no
template gets a note naming its ranges as the likely cause of its failed checks.
(LibreOffice's save: tests/workpapers/recalc/test_libreoffice_roundtrip.py, the same mechanism.)
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc.run)
from nj_incentives import cli
from nj_incentives.cli import doctor
from nj_incentives.support.shipped import SCENARIO_EXAMPLES
from nj_incentives.workpapers.recalc import recalculate, vet_workbook
from nj_incentives.workpapers.recalc.safety import array_formulas, dynamic_arrays
from nj_incentives.workpapers.recalc.templates import recognise_template, spill_report
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY, EXAMPLES
from tooling import SAVERS, recalculated_once, saved_copies

pytestmark = pytest.mark.slow

ORIGINALS = {name: DEFAULT_DIRECTORY / "examples" / name for name in EXAMPLES}


# SAVERS (openpyxl, pandas: tests/tooling.py) are imported from here by test_recalc_prebuilt
# and the saved-copies benchmark


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    made = saved_copies(tmp_path_factory)  # once per run, shared with test_recalc_prebuilt
    assert set(made) == {(saver, name) for saver in SAVERS for name in ORIGINALS}
    return made


@pytest.mark.parametrize("saver", list(SAVERS))
@pytest.mark.parametrize("name", list(ORIGINALS))
def test_the_tool_really_dropped_the_marking(
    copies: dict[tuple[str, str], Path], saver: str, name: str
) -> None:
    original, copy = vet_workbook(ORIGINALS[name]), vet_workbook(copies[(saver, name)])
    assert dynamic_arrays(original)
    assert not dynamic_arrays(copy)
    assert array_formulas(copy) == array_formulas(original)  # the same ranges, now legacy


@pytest.mark.parametrize("saver", list(SAVERS))
@pytest.mark.parametrize("name", list(ORIGINALS))
@pytest.mark.recalc
def test_every_computed_cell_is_the_same(
    copies: dict[tuple[str, str], Path], saver: str, name: str
) -> None:
    before, after = recalculated_once(ORIGINALS[name]), recalculated_once(copies[(saver, name)])
    assert after.value("MasterCheck") is True
    assert not after.error_cells()
    differences = [
        (address, before.values.get(address), after.values.get(address))
        for address in sorted(before.computed)
        if before.values.get(address) != after.values.get(address)
    ]
    assert not differences, differences[:10]
    (note,) = [n for n in after.notes if "dynamic-array marking" in n]
    count = len(dynamic_arrays(vet_workbook(ORIGINALS[name])))
    assert f"{count} spilled range(s) restored from the" in note
    assert "Openpyxl" in note  # who saved it, as the file says


def calc_json(paths: list[Path], out: Path, capsys: Any) -> tuple[dict[str, Any], str]:
    code = cli.main(["calc", *map(str, paths), "-o", str(out), "--json", "--no-progress"])
    captured = capsys.readouterr()
    document: dict[str, Any] = json.loads(captured.out)
    document["exit"] = code
    return document, captured.err


def test_calc_gives_the_figures_and_says_what_it_restored(
    copies: dict[tuple[str, str], Path], tmp_path: Path, capsys: Any
) -> None:
    names = list(ORIGINALS)
    before, _ = calc_json([ORIGINALS[n] for n in names], tmp_path / "before", capsys)
    after, err = calc_json([copies[("openpyxl", n)] for n in names], tmp_path / "after", capsys)
    assert before["exit"] == after["exit"] == 0
    for old, new in zip(before["workbooks"], after["workbooks"], strict=True):
        assert new["master_check"] is True
        assert new["outputs"] == old["outputs"]
        assert new["failed_checks"] == []
        (note,) = new["spilled_ranges"]
        assert "restored from the" in note
        assert old["spilled_ranges"] == []
    # the grant schedule's table, by its range, in what calc prints
    assert re.search(
        r"grant-schedule-example\.xlsx: saved by .*Openpyxl.*'Calculations NJ'!C23:I33", err
    )


def strip_template(source: Path, target: Path, *, rename_sheet: bool) -> Path:
    """A copy without the template property (and, if asked, with Calculations renamed):
    another tool's file that the template layout no longer matches."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(buffer, "w") as out:
        for info in archive.infolist():
            data = archive.read(info)
            if info.filename == "docProps/custom.xml":
                data = data.replace(b"nj_incentives_template", b"someone_elses_property")
            if rename_sheet and info.filename == "xl/workbook.xml":
                data = data.replace(b'name="Calculations"', b'name="Calc"')
            if rename_sheet and info.filename.startswith("xl/worksheets/"):
                data = data.replace(b"Calculations!", b"Calc!")
            out.writestr(info, data)
    target.write_bytes(buffer.getvalue())
    return target


@pytest.mark.recalc
def test_without_its_property_it_is_recognised_by_its_layout(
    copies: dict[tuple[str, str], Path], tmp_path: Path
) -> None:
    copy = strip_template(
        copies[("openpyxl", "ertc-form-313-example.xlsx")], tmp_path / "x.xlsx", rename_sheet=False
    )
    match = recognise_template(vet_workbook(copy))
    assert match is not None
    assert (match.template, match.how) == ("ertc-form-313", "sheets and array formulas")
    assert recalculate(copy).value("MasterCheck") is True


def test_a_file_that_matches_no_template_names_its_ranges(
    copies: dict[tuple[str, str], Path], tmp_path: Path, capsys: Any
) -> None:
    copy = strip_template(
        copies[("openpyxl", "beip-grant-schedule-example.xlsx")],
        tmp_path / "other.xlsx",
        rename_sheet=True,
    )
    report = spill_report(vet_workbook(copy))
    assert report.match is None
    assert not report.restored
    # NJ_BEIP_GRANT_SCHEDULE's table, computed on the hidden sheet (issue 31 item 3)
    assert ("Calculations NJ", "C23") in report.unrestored
    (note,) = report.notes
    assert "'Calculations NJ'!C23:I33" in note
    assert "computed as legacy array formulas (#N/A below a shorter result)" in note
    assert "matches no nj-incentives template" in note
    document, err = calc_json([copy], tmp_path / "out", capsys)
    assert document["exit"] == 1  # its checks fail, as they do in Excel
    assert "likely cause: saved by" in err
    assert "'Calculations NJ'!C23:I33" in err


@pytest.mark.parametrize("saver", list(SAVERS))
def test_doctor_names_the_lost_ranges(copies: dict[tuple[str, str], Path], saver: str) -> None:
    lines: list[str] = []
    path = copies[(saver, "ertc-form-313-example.xlsx")]
    assert doctor.run(path, runtime="lite", out=lines.append) == 1
    text = "\n".join(lines)
    assert "ertc-form-313 (recognised by its custom property)" in text
    assert re.search(r"\[FAIL\] dynamic arrays +6 spilled range\(s\) saved as legacy", text)
    assert "'Calculations NJ'!C10:E12" in text  # where the table is computed
    # the original: marked as Excel writes it
    lines.clear()
    doctor.run(ORIGINALS["ertc-form-313-example.xlsx"], runtime="lite", out=lines.append)
    assert "every spilled range marked as Excel writes it" in "\n".join(lines)


def test_calc_on_an_excel_owner_file_says_it_is_open(tmp_path: Path, capsys: Any) -> None:
    owner = tmp_path / "~$client.xlsx"
    owner.write_bytes(b"\x07A. User" + b" " * 50)  # what Excel writes: the user's name
    assert cli.main(["calc", str(owner), "-o", str(tmp_path / "out"), "--no-progress"]) == 2
    (line,) = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert "client.xlsx is open in Excel" in line
    assert not (tmp_path / "out").exists()


def test_templates_copies_the_scenario_examples(tmp_path: Path) -> None:
    assert cli.main(["templates", str(tmp_path / "mine")]) == 0
    for name in SCENARIO_EXAMPLES:
        copied = tmp_path / "mine" / "examples" / name
        assert copied.read_bytes() == (DEFAULT_DIRECTORY / "examples" / name).read_bytes()
