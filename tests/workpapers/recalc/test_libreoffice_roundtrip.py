"""The examples, opened and saved in LibreOffice, give the same figures (issue 9, item 6).

LibreOffice headless opens each filled example and saves it as a LibreOffice user would
(``--convert-to 'xlsx:Calc MS Excel 2007 XML'``, its own profile). That save drops the
dynamic-array marking and writes the NJ_* names in lower case (checked below, so the
test cannot pass on a file LibreOffice left alone); before nj_incentives.workpapers.recalc.templates
two of the three examples then failed their master check. Now ``nj-incentives calc`` gives
the same figures for the saved copy as for the original, every computed cell the same,
with a note saying what LibreOffice did; where it cannot restore a formula (a template it
does not know) it says exactly why.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc.run)
from nj_incentives import cli
from nj_incentives.core.cells import quote_sheet
from nj_incentives.workpapers.recalc import ExcelError, recalculate
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY, EXAMPLES
from nj_incentives.workpapers.templates.cached import write_cached_values
from tooling import libreoffice_saved_examples, recalculate_as_calc, recalculated_once

pytestmark = [pytest.mark.slow, pytest.mark.libreoffice]

ORIGINALS = {name: DEFAULT_DIRECTORY / "examples" / name for name in EXAMPLES}


@pytest.fixture(scope="session")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each example after a LibreOffice open-and-save (one soffice run for all three, shared
    with the other tests of LibreOffice copies of the examples)."""
    copies = libreoffice_saved_examples(tmp_path_factory)
    assert set(copies) == set(ORIGINALS)
    return copies


def sheets_xml(path: Path) -> str:
    with zipfile.ZipFile(path) as archive:
        return "".join(
            archive.read(n).decode() for n in archive.namelist() if n.startswith("xl/worksheets/")
        )


@pytest.mark.parametrize("name", list(ORIGINALS))
def test_libreoffice_really_rewrote_the_file(saved: dict[str, Path], name: str) -> None:
    original, copy = sheets_xml(ORIGINALS[name]), sheets_xml(saved[name])
    assert ' cm="1"' in original
    assert ' cm="1"' not in copy  # the dynamic-array marking is gone
    assert re.search(r">nj_[a-z_]+\(", copy)  # names lower-cased
    assert not re.search(r">NJ_[A-Z_]+\(", copy)
    with zipfile.ZipFile(saved[name]) as archive:
        assert "xl/metadata.xml" not in archive.namelist()
        assert "LibreOffice" in archive.read("docProps/app.xml").decode()


@pytest.mark.parametrize("name", list(ORIGINALS))
@pytest.mark.recalc
def test_every_computed_cell_is_the_same(saved: dict[str, Path], name: str) -> None:
    # the copy recalculated as calc recalculates it (its template's prebuilt form, the
    # spilled ranges restored), against the original's full recalculation; that the form
    # gives the full path's values on these very copies is test_recalc_prebuilt's
    # (test_a_libreoffice_copy_is_its_template_again)
    before, after = recalculated_once(ORIGINALS[name]), recalculate_as_calc(saved[name])
    assert after.method == "prebuilt"
    assert after.computed == before.computed
    differences = [
        (address, before.values.get(address), after.values.get(address))
        for address in sorted(before.computed)
        if before.values.get(address) != after.values.get(address)
    ]
    assert not differences, differences[:10]
    assert after.value("MasterCheck") is True
    assert not after.error_cells()
    assert any("saved by LibreOffice" in note for note in after.notes), after.notes


def calc_json(paths: list[Path], out: Path, capsys: Any) -> dict[str, Any]:
    code = cli.main(["calc", *map(str, paths), "-o", str(out), "--json", "--no-progress"])
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    document["exit"] = code
    return document


def test_calc_gives_the_same_figures(saved: dict[str, Path], tmp_path: Path, capsys: Any) -> None:
    """``nj-incentives calc`` on the three saved copies: exit 0, every master check TRUE,
    the same outputs as the originals'."""
    names = list(ORIGINALS)
    before = calc_json([ORIGINALS[n] for n in names], tmp_path / "before", capsys)
    after = calc_json([saved[n] for n in names], tmp_path / "after", capsys)
    assert before["exit"] == after["exit"] == 0
    for old, new in zip(before["workbooks"], after["workbooks"], strict=True):
        assert new["master_check"] is True
        assert new["outputs"] == old["outputs"]
        assert new["failed_checks"] == old["failed_checks"] == []


def rename_template(source: Path, target: Path, template: str) -> None:
    """A copy whose custom property names another template."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(buffer, "w") as out:
        for info in archive.infolist():
            data = archive.read(info)
            if info.filename == "docProps/custom.xml":
                # by the property's name: LibreOffice writes the properties in its own
                # order, and the sign-off properties may come first
                data, count = re.subn(
                    rb'(name="nj_incentives_template"><vt:lpwstr>)[^<]*(</vt:lpwstr>)',
                    rb"\g<1>" + template.encode() + rb"\g<2>",
                    data,
                )
                assert count == 1, data
            out.writestr(info, data)
    target.write_bytes(buffer.getvalue())


@pytest.mark.recalc
def test_it_says_exactly_why_when_it_cannot(saved: dict[str, Path], tmp_path: Path) -> None:
    """An unknown template: the lost dynamic arrays stay legacy arrays (#N/A below the
    table, as Excel shows them), the master check fails and the note says why."""
    copy = tmp_path / "unknown.xlsx"
    rename_template(saved["beip-grant-schedule-example.xlsx"], copy, "someone-elses")
    result = recalculate(copy)
    assert result.value("MasterCheck") is not True
    (note,) = [n for n in result.notes if "saved by LibreOffice" in n]
    assert "computed as legacy array formulas (#N/A below a shorter result)" in note
    assert "the file names template 'someone-elses', which this version does not ship" in note
    original = recalculated_once(ORIGINALS["beip-grant-schedule-example.xlsx"])
    ((sheet, cells),) = [
        (anchor[0], cells)
        for anchor, cells in original.array_ranges.items()
        if "NJ_BEIP_GRANT_SCHEDULE" in original.formulas.get(anchor, "")
    ]
    assert f"{quote_sheet(sheet)}!{cells}" in note  # where: the grant schedule's table


@pytest.mark.recalc
def test_a_cached_error_in_an_array_range_is_not_an_input(tmp_path: Path) -> None:
    """LibreOffice caches #NAME? in every cell of an NJ_* array; a formula reading one of
    those cells gets the recalculated value, not the stale error."""
    copy = tmp_path / "stale.xlsx"
    shutil.copy(ORIGINALS["ertc-form-313-example.xlsx"], copy)
    before = recalculated_once(ORIGINALS["ertc-form-313-example.xlsx"])  # the copy's bytes
    ((sheet, anchor), cells) = next(iter(before.array_ranges.items()))
    member = next(
        address
        for address in sorted(before.computed)
        if address[0] == sheet and address[1] != anchor and before.values.get(address)
    )
    write_cached_values(copy, {member: ExcelError("#NAME?")})
    after = recalculate(copy)
    assert after.values == before.values, cells
    assert not after.error_cells()
