"""Untrusted workbooks: refused before any library parses them, or parsed without
executing or following anything (issue 5, "Untrusted files")."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import xlsxwriter

from nj_incentives.workpapers.recalc import (
    Limits,
    UnsafeWorkbookError,
    recalculate,
    vet_workbook,
    write_values,
)

TINY = Limits(
    max_file_bytes=4_000_000,
    max_members=40,
    max_member_bytes=2_000_000,
    max_total_bytes=3_000_000,
    max_ratio=50,
    ratio_applies_above=100_000,
)


def plain_workbook(path: Path) -> Path:
    """A small valid workbook: A1 = 2, A2 = A1 * 3."""
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Data")
    sheet.write_number("A1", 2)
    sheet.write_formula("A2", "=A1*3")
    book.close()
    return path


def rewrite(
    source: Path,
    target: Path,
    replace: dict[str, bytes] | None = None,
    add: dict[str, bytes] | None = None,
    method: int = zipfile.ZIP_DEFLATED,
) -> Path:
    """Copy a workbook archive, replacing or adding parts."""
    replace = replace or {}
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", method) as out:
        for info in src.infolist():
            out.writestr(info.filename, replace.get(info.filename, src.read(info)))
        for name, data in (add or {}).items():
            out.writestr(name, data)
    return target


@pytest.fixture
def good(tmp_path: Path) -> Path:
    return plain_workbook(tmp_path / "good.xlsx")


@pytest.mark.recalc
def test_a_plain_workbook_passes_and_recalculates(good: Path) -> None:
    vetted = vet_workbook(good, TINY)
    assert vetted.members > 3
    assert not vetted.has_macros
    assert vetted.notes == ()
    result = recalculate(good, {})
    assert result.value("Data!A2") == 6  # 2 x 3


def test_an_oversized_file_is_refused(good: Path) -> None:
    limits = Limits(max_file_bytes=1000)
    with pytest.raises(UnsafeWorkbookError, match="more than the 1,000 bytes allowed"):
        vet_workbook(good, limits)


def test_a_zip_bomb_part_is_refused_while_inflating(good: Path, tmp_path: Path) -> None:
    # 5 MB of zeros compresses to about 5 KB: a ratio near 1000.
    bomb = rewrite(good, tmp_path / "bomb.xlsx", add={"xl/media/zeros.bin": b"\0" * 5_000_000})
    with pytest.raises(UnsafeWorkbookError, match="zip bomb"):
        vet_workbook(bomb, TINY)


def test_the_compression_ratio_is_limited(good: Path, tmp_path: Path) -> None:
    # 1.5 MB of zeros: under the per-part and total limits, over the 50x ratio.
    dense = rewrite(good, tmp_path / "dense.xlsx", add={"xl/media/zeros.bin": b"\0" * 1_500_000})
    with pytest.raises(UnsafeWorkbookError, match="times its compressed size"):
        vet_workbook(dense, TINY)
    # the same part stored uncompressed passes the ratio check
    stored = rewrite(
        good,
        tmp_path / "stored.xlsx",
        add={"xl/media/zeros.bin": b"\0" * 1_500_000},
        method=zipfile.ZIP_STORED,
    )
    assert vet_workbook(stored, TINY).uncompressed_bytes > 1_500_000


def test_the_total_inflated_size_is_limited(good: Path, tmp_path: Path) -> None:
    parts = {f"xl/media/part{i}.bin": bytes(range(256)) * 4000 for i in range(4)}  # 4 x 1 MB
    big = rewrite(good, tmp_path / "big.xlsx", add=parts, method=zipfile.ZIP_STORED)
    with pytest.raises(UnsafeWorkbookError, match=r"inflates to more than 3\.0 MiB"):
        vet_workbook(big, Limits(max_total_bytes=3 * 1024 * 1024))


def test_too_many_parts_are_refused(good: Path, tmp_path: Path) -> None:
    many = rewrite(good, tmp_path / "many.xlsx", add={f"xl/junk/{i}.bin": b"x" for i in range(50)})
    with pytest.raises(UnsafeWorkbookError, match="parts, more than the 40 allowed"):
        vet_workbook(many, TINY)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"just some text", "not a zip archive"),
        (b"PK\x03\x04 truncated", "malformed workbook archive"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512, "password-protected"),
    ],
)
def test_files_that_are_not_workbooks_are_refused(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "odd.xlsx"
    path.write_bytes(content)
    with pytest.raises(UnsafeWorkbookError, match=message):
        vet_workbook(path)


def test_a_zip_without_a_workbook_part_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("readme.txt", "hello")
    with pytest.raises(UnsafeWorkbookError, match="no workbook part"):
        vet_workbook(path)


def test_a_binary_xlsb_workbook_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "book.xlsb"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.bin", b"\0\1")
    with pytest.raises(UnsafeWorkbookError, match=r"\.xlsb"):
        vet_workbook(path)


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>&lol3;</t></si></sst>"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>
<row r="1"><c r="A1" t="inlineStr"><is><t>&secret;</t></is></c></row></sheetData></worksheet>"""

BARE_DOCTYPE = b"""<?xml version="1.0"?><!DOCTYPE worksheet>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData/></worksheet>"""


@pytest.mark.parametrize(
    ("part", "content"),
    [
        ("xl/sharedStrings.xml", BILLION_LAUGHS),
        ("xl/worksheets/sheet1.xml", EXTERNAL_ENTITY),
        ("xl/worksheets/sheet1.xml", BARE_DOCTYPE),
        ("xl/drawings/vmlDrawing1.vml", b"<!DOCTYPE x [<!ENTITY a 'b'>]><xml>&a;</xml>"),
    ],
)
def test_xml_entity_tricks_are_refused(
    good: Path, tmp_path: Path, part: str, content: bytes
) -> None:
    bad = rewrite(
        good,
        tmp_path / "entities.xlsx",
        replace={part: content},
        add={} if part.startswith("xl/worksheets/sheet1") else {part: content},
    )
    with pytest.raises(UnsafeWorkbookError, match="DOCTYPE or entities"):
        vet_workbook(bad)


def test_malformed_xml_is_refused(good: Path, tmp_path: Path) -> None:
    bad = rewrite(
        good,
        tmp_path / "broken.xlsx",
        replace={"xl/worksheets/sheet1.xml": b"<worksheet><sheetData></worksheet>"},
    )
    with pytest.raises(
        UnsafeWorkbookError, match=r"malformed XML in part 'xl/worksheets/sheet1\.xml'"
    ):
        vet_workbook(bad)


def test_duplicate_and_unsafe_part_names_are_refused(good: Path, tmp_path: Path) -> None:
    duplicate = tmp_path / "duplicate.xlsx"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(duplicate, "w") as out:
        for info in src.infolist():
            out.writestr(info.filename, src.read(info))
        with pytest.warns(UserWarning, match="Duplicate name"):
            out.writestr("xl/workbook.xml", b"<workbook/>")
    with pytest.raises(UnsafeWorkbookError, match="duplicate part"):
        vet_workbook(duplicate)
    traversal = rewrite(good, tmp_path / "traversal.xlsx", add={"../../evil.xml": b"<a/>"})
    with pytest.raises(UnsafeWorkbookError, match="unsafe part name"):
        vet_workbook(traversal)


def test_encrypted_parts_are_refused(good: Path, tmp_path: Path) -> None:
    path = tmp_path / "encrypted.xlsx"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(path, "w") as out:
        for info in src.infolist():
            out.writestr(info.filename, src.read(info))
        out.writestr("xl/secret.bin", b"ciphertext")
    # zipfile will not write an encrypted part: set the "encrypted" flag bit by hand
    data = bytearray(path.read_bytes())
    local = data.find(b"xl/secret.bin") - 30  # local file header: flags at offset 6
    central = data.rfind(b"xl/secret.bin") - 46  # central directory entry: flags at 8
    assert data[local : local + 4] == b"PK\x03\x04"
    assert data[central : central + 4] == b"PK\x01\x02"
    data[local + 6] |= 0x1
    data[central + 8] |= 0x1
    path.write_bytes(bytes(data))
    with pytest.raises(UnsafeWorkbookError, match="encrypted parts"):
        vet_workbook(path)


def macro_workbook(good: Path, target: Path) -> Path:
    """The plain workbook made macro-enabled, as the classic xlwings add-in leaves it."""
    with zipfile.ZipFile(good) as src:
        types = src.read("[Content_Types].xml").decode()
        rels = src.read("xl/_rels/workbook.xml.rels").decode()
    types = types.replace(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
        "application/vnd.ms-excel.sheet.macroEnabled.main+xml",
    ).replace(
        '<Default Extension="xml"',
        '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>'
        '<Default Extension="xml"',
    )
    rels = rels.replace(
        "</Relationships>",
        '<Relationship Id="rId99" Type="http://schemas.microsoft.com/office/2006/relationships/'
        'vbaProject" Target="vbaProject.bin"/></Relationships>',
    )
    return rewrite(
        good,
        target,
        replace={
            "[Content_Types].xml": types.encode(),
            "xl/_rels/workbook.xml.rels": rels.encode(),
        },
        add={"xl/vbaProject.bin": b'Attribute VB_Name = "Auto_Open"\nShell "calc.exe"'},
    )


@pytest.mark.recalc
def test_macros_are_ignored_never_run_and_not_copied(good: Path, tmp_path: Path) -> None:
    xlsm = macro_workbook(good, tmp_path / "filled.xlsm")
    vetted = vet_workbook(xlsm)
    assert vetted.has_macros
    assert any("macros present: ignored" in note for note in vetted.notes)
    result = recalculate(xlsm, {})
    assert result.value("Data!A2") == 6
    out = write_values(result, tmp_path / "results.xlsx")
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        types = archive.read("[Content_Types].xml").decode()
        rels = archive.read("xl/_rels/workbook.xml.rels").decode()
    assert "xl/vbaProject.bin" not in names
    assert "macroEnabled" not in types
    assert "vbaProject" not in types
    assert "vbaProject" not in rels
    vet_workbook(out)  # the results are themselves a clean workbook


@pytest.mark.recalc
def test_external_links_are_reported_and_not_followed(tmp_path: Path) -> None:
    # a real workbook beside the source, which a formula names: it must not be read
    other = plain_workbook(tmp_path / "other.xlsx")
    source = tmp_path / "linked.xlsx"
    book = xlsxwriter.Workbook(str(source))
    sheet = book.add_worksheet("Data")
    sheet.write_formula("A1", "='[other.xlsx]Data'!A1+1")
    sheet.write_formula("A2", f"='{tmp_path}/[other.xlsx]Data'!A2")
    sheet.write_formula("A3", "=1+1")
    book.close()
    linked = rewrite(
        source,
        tmp_path / "linked2.xlsx",
        add={"xl/externalLinks/externalLink1.xml": b"<externalLink/>"},
    )
    vetted = vet_workbook(linked)
    assert vetted.external_links == 1
    result = recalculate(linked, {})
    assert str(result.value("Data!A1")) == "#REF!"
    assert str(result.value("Data!A2")) == "#REF!"
    assert result.value("Data!A3") == 2
    assert any("not followed" in note for note in result.notes)
    assert any("another workbook (other.xlsx)" in note for note in result.notes)
    assert other.exists()
