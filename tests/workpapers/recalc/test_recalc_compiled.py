"""Recalculation without recompiling (issue 14 item 4): the compiled template model gives
the same results as the full recalculation, on every example and on changed inputs of
every template; a workbook whose formulas differ is recalculated in full and says so."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from nj_incentives.support import shipped
from nj_incentives.workpapers.recalc import compiled, engine
from nj_incentives.workpapers.recalc.safety import DEFAULT_LIMITS, sheet_parts, vet_workbook

EXAMPLES = sorted(shipped.EXAMPLES)
FIELDS = (
    "sheets",
    "values",
    "formulas",
    "array_ranges",
    "computed",
    "names",
    "function_errors",
    "calls",
    "notes",
)


def _same(full: engine.Recalculation, fast: engine.Recalculation) -> None:
    for name in FIELDS:
        assert getattr(fast, name) == getattr(full, name), name


def _rewrite_inputs(source: Path, target: Path, change) -> None:  # type: ignore[no-untyped-def]
    """A copy of ``source`` with the Inputs sheet's numeric cells changed by ``change``."""
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


def _bump(xml: str) -> str:
    """Every plain number on the sheet moved: whole numbers + 1, others x 1.05 (cents)."""

    def moved(match: re.Match[str]) -> str:
        text = match.group(2)
        number = float(text)
        new = int(number) + 1 if number.is_integer() else round(number * 1.05, 2)
        return f"{match.group(1)}<v>{new}</v>"

    return re.sub(r'(<c r="[A-Z]+\d+"(?: s="\d+")?>)<v>(-?[\d.]+(?:E-?\d+)?)</v>', moved, xml)


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    compiled.clear_cache()


@pytest.mark.parametrize("name", EXAMPLES)
def test_compiled_is_the_full_recalculation_on_every_example(name: str) -> None:
    vetted = vet_workbook(shipped.shipped_file(name), DEFAULT_LIMITS)
    full = engine.recalculate_vetted(vetted)
    before = dict(compiled.STATS)
    first = compiled.recalculate_compiled(vetted)  # in full: a template met once compiles nothing
    assert compiled.STATS["full-first"] == before.get("full-first", 0) + 1
    assert compiled.STATS["compiled-first"] == before.get("compiled-first", 0)
    second = compiled.recalculate_compiled(vetted)  # in full, and compiles the template
    assert compiled.STATS["compiled-first"] == before.get("compiled-first", 0) + 1
    fast = compiled.recalculate_compiled(vetted)
    assert compiled.STATS["compiled"] == before.get("compiled", 0) + 1  # the model was used
    _same(full, first)
    _same(full, second)
    _same(full, fast)


@pytest.mark.parametrize("name", EXAMPLES)
def test_compiled_is_the_full_recalculation_on_changed_inputs(name: str, tmp_path: Path) -> None:
    changed = tmp_path / name.replace("-example", "-changed")
    _rewrite_inputs(shipped.shipped_file(name), changed, _bump)
    vetted = vet_workbook(changed, DEFAULT_LIMITS)
    example = vet_workbook(shipped.shipped_file(name), DEFAULT_LIMITS)
    cells, original = compiled.read_cells(vetted), compiled.read_cells(example)
    assert cells is not None
    assert original is not None
    assert cells.formulas == original.formulas
    assert cells.values != original.values  # the inputs did change
    compiled.recalculate_compiled(example)  # met once: in full
    compiled.recalculate_compiled(example)  # met again: compiles the template
    before = compiled.STATS["compiled"]
    fast = compiled.recalculate_compiled(vetted)
    assert compiled.STATS["compiled"] == before + 1
    full = engine.recalculate_vetted(vetted)
    _same(full, fast)
    assert full.source == fast.source == changed
    base = engine.recalculate_vetted(example)
    assert full.values != base.values  # different inputs, different results


def test_changed_formulas_are_recalculated_in_full_and_say_so(tmp_path: Path) -> None:
    name = EXAMPLES[0]
    changed = tmp_path / "changed-formula.xlsx"
    with zipfile.ZipFile(shipped.shipped_file(name)) as archive:
        part = sheet_parts(archive)["Checks"]
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
            for info in archive.infolist():
                data = archive.read(info)
                if info.filename == part:
                    data = re.sub(rb"<f>([^<]*)</f>", rb"<f>(\1)</f>", data, count=1)
                copy.writestr(info, data)
    changed.write_bytes(out.getvalue())
    vetted = vet_workbook(changed, DEFAULT_LIMITS)
    before = dict(compiled.STATS)
    result = compiled.recalculate_compiled(vetted)
    assert compiled.STATS["compiled"] == before.get("compiled", 0)
    assert compiled.STATS["compiled-first"] == before.get("compiled-first", 0)
    assert any("formulas differ from the bundled template" in n for n in result.notes)
    full = engine.recalculate_vetted(vetted)
    assert result.values == full.values


def test_template_fingerprints_cover_every_template() -> None:
    names = {name for name, _sheets in compiled.template_fingerprints().values()}
    templates = {p.name for p in shipped.shipped_workbooks()}
    assert len(templates) == len(shipped.TEMPLATES) + len(shipped.EXAMPLES)
    covered = {n.replace("-example", "") for n in names} | names
    assert {t.replace("-example", "") for t in templates} <= covered


@pytest.mark.parametrize("name", EXAMPLES)
def test_inline_strings_are_read_as_their_shared_strings(name: str, tmp_path: Path) -> None:
    # openpyxl writes every text as an inline string (the example has shared strings):
    # the fast reader reads the same values, except the empty texts openpyxl drops
    import openpyxl

    copy = tmp_path / name
    openpyxl.load_workbook(shipped.shipped_file(name)).save(copy)
    with zipfile.ZipFile(copy) as archive:
        assert "xl/sharedStrings.xml" not in archive.namelist()
    original = compiled.read_cells(vet_workbook(shipped.shipped_file(name), DEFAULT_LIMITS))
    saved = compiled.read_cells(vet_workbook(copy, DEFAULT_LIMITS))
    assert original is not None
    assert saved is not None
    texts = {k: v for k, v in original.values.items() if isinstance(v, str) and v}
    assert texts
    assert {k: v for k, v in saved.values.items() if isinstance(v, str)} == texts
    assert {k: v for k, v in original.values.items() if v != ""} == dict(saved.values)
