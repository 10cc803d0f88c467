"""Sign-offs that go stale (issue 20 item 2): sign a real workbook, change an input, and
see the sign-off flagged by ``calc``, by the Checks sheet (recalculated headlessly) and
by :func:`nj_incentives.workpapers.signoff.status`; a reformat leaves it current; LibreOffice's
open and save keeps it; the sources and tickmarks beside every input.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc)
from nj_incentives import cli
from nj_incentives.core import workpaper
from nj_incentives.functions.inputs_hash import canonical, inputs_hash
from nj_incentives.workpapers.fill import fill, template_inputs
from nj_incentives.workpapers.signoff import SignError, SignOff, sign, status
from nj_incentives.workpapers.templates import builder
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY, EXAMPLES, TEMPLATES
from nj_incentives.workpapers.templates.builder import build_template
from tooling import need
from tooling import recalculate_as_calc as recalculate

EXAMPLE = {name.split("-example")[0]: DEFAULT_DIRECTORY / "examples" / name for name in EXAMPLES}
GRANT = EXAMPLE["beip-grant-schedule"]


# --------------------------------------------------------------------------- the hash


@given(st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False))
def test_money_hashes_alike_however_it_is_typed(amount: Decimal) -> None:
    # 600000 as a number, as a float, as text with thousands separators and cents
    as_text = f"{amount:,.2f}"
    assert inputs_hash("m", float(amount)) == inputs_hash("m", as_text) == inputs_hash("m", amount)


def test_a_reformat_is_not_a_change_and_a_change_is() -> None:
    # 50% typed as text is the fraction 0.5; a date as ISO text, a date cell, a serial
    # (2024-01-01 is serial 45292); Yes as TRUE; a choice in any case
    same = [
        inputs_hash("pdbh", 0.5, dt.date(2024, 1, 1), "Yes", "per_year"),
        inputs_hash("pdbh", "50%", "2024-01-01", True, " PER_YEAR "),
        inputs_hash("pdbh", [[0.5]], 45292, "yes", "Per_Year"),
    ]
    assert len(set(same)) == 1
    assert inputs_hash("pdbh", 0.51, dt.date(2024, 1, 1), "Yes", "per_year") != same[0]
    assert inputs_hash("pdbh", 0.5, dt.date(2024, 1, 2), "Yes", "per_year") != same[0]


def test_blank_cells_count_and_order_counts() -> None:
    # a value moved to the next row is a change; a blank is "" whatever the tool wrote
    assert inputs_hash("m", [[1], [None]]) != inputs_hash("m", [[None], [1]])
    assert inputs_hash("m", [[None], [""]]) == inputs_hash("m", [["  "], [None]])
    # the same cells split into two ranges differently are a different hash
    assert inputs_hash("mm", [1, 2], 3) != inputs_hash("mm", 1, [2, 3])


def test_a_refused_value_hashes_as_its_text() -> None:
    # 25.005 is a fraction of a cent (refused by the money rule): "?25.005"; correcting
    # it to 25.01 changes the hash
    assert canonical("m", 25.005) == "?25.005"
    assert inputs_hash("m", 25.005) != inputs_hash("m", 25.01)


def test_kinds_must_match_the_ranges() -> None:
    from nj_incentives.core.inputs import InputError

    with pytest.raises(InputError, match="one letter per range: 1 letters, 2 ranges"):
        inputs_hash("m", 1, 2)
    with pytest.raises(InputError, match="each one of"):
        inputs_hash("x", 1)


# --------------------------------------------------------------------------- the templates


def _cells(sheet: Any, cells: str) -> list[Any]:
    """The cells of ``cells`` ("C5" or "C5:D9", dollars or not) on an openpyxl sheet."""
    block = sheet[cells.replace("$", "")]
    if not isinstance(block, tuple):
        return [block]
    return [c for row in block for c in (row if isinstance(row, tuple) else (row,))]


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_every_template_has_the_signoff_block_and_a_hash_of_every_input(template: str) -> None:
    book = openpyxl.load_workbook(DEFAULT_DIRECTORY / template)
    names = set(book.defined_names)
    assert set(workpaper.SIGNOFF_FIELDS) <= names
    assert {workpaper.INPUTS_HASH, workpaper.SIGNOFF_CURRENT, *workpaper.SIGNOFF_STATUS} <= names
    sheet, cell = book.defined_names[workpaper.INPUTS_HASH].attr_text.split("!")
    formula = book[sheet][cell.replace("$", "")].value
    assert formula.startswith('=NJ_INPUTS_HASH("')
    # every unlocked cell is hashed, but the sign-off's own cells, the tickmarks and
    # the sources
    excluded: set[str] = set()
    for name, defined in book.defined_names.items():
        if name in workpaper.SIGNOFF_FIELDS or name.endswith(("Tick", "Source")):
            for title, cells in defined.destinations:
                excluded.update(f"{title}!{c.coordinate}" for c in _cells(book[title], cells))
    covered: set[str] = set()
    for reference in formula[formula.index('",') + 2 : -1].split(","):
        title, cells = reference.rsplit("!", 1)
        ws = book[title.strip("'")]
        covered.update(f"{ws.title}!{c.coordinate}" for c in _cells(ws, cells))
    unlocked = {
        f"{ws.title}!{c.coordinate}"
        for ws in book.worksheets
        for row in ws.iter_rows()
        for c in row
        if not c.protection.locked
    }
    assert covered == unlocked - excluded
    assert not covered & excluded


def test_every_declared_input_has_its_tick_and_source() -> None:
    for template in ("beip-grant-schedule", "beip-credit-conversion", "ertc-form-313"):
        inputs = template_inputs(template)
        sources = [name for name in inputs if name.endswith("Source")]
        assert sources, template
        book = openpyxl.load_workbook(DEFAULT_DIRECTORY / f"{template}.xlsx")
        for name in sources:
            assert name in book.defined_names, (template, name)
            assert name[: -len("Source")] + "Tick" in book.defined_names


# --------------------------------------------------------------------------- signing


@pytest.fixture(scope="module")
def unsigned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The grant example as the build writes it before signing it (names typed, no dates
    or hashes): the shipped example is signed (build.signed_example)."""
    from nj_incentives.programs.beip.templates import grant as beip_grant
    from nj_incentives.workpapers.templates.cached import cache_values

    path = tmp_path_factory.mktemp("unsigned") / "grant.xlsx"
    return cache_values(build_template(beip_grant, path, beip_grant.EXAMPLE))


@pytest.fixture(scope="module")
def signed(unsigned: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The grant example signed by its preparer (2026-11-20) and reviewer (2026-11-30)."""
    path = tmp_path_factory.mktemp("signed") / "grant.xlsx"
    shutil.copy(unsigned, path)
    sign(path, preparer="A. Preparer", date="2026-11-20")
    sign(path, reviewer="R. Reviewer", date=dt.date(2026, 11, 30))
    return path


def _change_input(source: Path, target: Path, name: str, value: object) -> Path:
    """``source`` with the first cell of the defined name ``name`` changed, saved by
    openpyxl (as a finance team's script would: calc restores what openpyxl drops)."""
    book = openpyxl.load_workbook(source)
    sheet, cells = book.defined_names[name].attr_text.split("!")
    _cells(book[sheet], cells)[0].value = value
    book.save(target)
    return target


def test_a_signed_workbook_is_current_everywhere(signed: Path) -> None:
    result = recalculate(signed)
    found = status(result)
    assert [s.line for s in found] == [
        "prepared 2026-11-20 by A. Preparer; inputs unchanged since",
        "reviewed 2026-11-30 by R. Reviewer; inputs unchanged since",
    ]
    assert [s.stale for s in found] == [False, False]
    # the Checks sheet's own formulas say the same, and the master check is untouched
    assert result.value("SignoffPrepared") == found[0].line
    assert result.value("SignoffReviewed") == found[1].line
    assert result.value("SignoffCurrent") is True
    assert result.value("MasterCheck") is True
    assert result.value("EngagementDate") == 46356  # 2026-11-30, the last sign-off
    # the cached values were refreshed: a reader that does not recalculate shows it too
    cached = openpyxl.load_workbook(signed, data_only=True)
    where = cached.defined_names["SignoffReviewed"].attr_text.split("!")
    assert cached[where[0]][where[1].replace("$", "")].value == found[1].line


def test_the_shipped_examples_are_signed_and_current() -> None:
    # the build signs each example (preparer 2026-11-25, reviewer on the engagement's
    # date 2026-12-01) through sign(): names, dates and the hash each signed
    for path in EXAMPLE.values():
        result = recalculate(path)
        assert [s.line for s in status(result)] == [
            "prepared 2026-11-25 by A. Preparer; inputs unchanged since",
            "reviewed 2026-12-01 by R. Reviewer; inputs unchanged since",
        ], path.name
        assert result.value("SignoffCurrent") is True
        # the cached values say so too (a viewer that does not recalculate)
        cached = openpyxl.load_workbook(path, data_only=True)
        sheet, cell = cached.defined_names["SignoffReviewed"].attr_text.split("!")
        assert cached[sheet][cell.replace("$", "")].value == status(result)[1].line


def test_an_unsigned_copy_has_names_but_no_hash(unsigned: Path) -> None:
    assert [s.line for s in status(recalculate(unsigned))] == [
        "prepared (no date) by A. Preparer; no inputs hash stored",
        "reviewed (no date) by R. Reviewer; no inputs hash stored",
    ]


def test_only_the_signoff_cells_change_when_signing(unsigned: Path, signed: Path) -> None:
    before = builder.fingerprint(unsigned)
    after = builder.fingerprint(signed)
    changed = {
        (sheet, cell)
        for sheet in before["sheets"]
        for cell in set(before[sheet]["cells"]) | set(after[sheet]["cells"])
        if before[sheet]["cells"].get(cell) != after[sheet]["cells"].get(cell)
    }
    book = openpyxl.load_workbook(signed)
    signoff_cells = {
        tuple(book.defined_names[field.name].attr_text.replace("$", "").split("!"))
        for field in workpaper.SIGNOFF_INPUTS
    }
    # the preparer and reviewer were already typed in the example: same value, not changed
    assert changed <= signoff_cells
    assert len(changed) >= 5  # the two dates, the two hashes and the workpaper's date
    assert before["names"] == after["names"]
    for sheet in before["sheets"]:
        for key in ("validations", "conditional", "protected", "merged"):
            assert before[sheet][key] == after[sheet][key], (sheet, key)
    with zipfile.ZipFile(unsigned) as a, zipfile.ZipFile(signed) as b:
        assert a.namelist() == b.namelist()
        assert a.read("xl/metadata.xml") == b.read("xl/metadata.xml")  # dynamic arrays


def test_an_input_changed_after_signing_makes_both_stale(signed: Path, tmp_path: Path) -> None:
    changed = _change_input(signed, tmp_path / "changed.xlsx", "Withholdings", 610000)
    result = recalculate(changed)
    found = status(result)
    assert [s.line for s in found] == [
        "prepared 2026-11-20 by A. Preparer; inputs changed since",
        "reviewed 2026-11-30 by R. Reviewer; inputs changed since",
    ]
    assert [s.stale for s in found] == [True, True]
    assert result.value("SignoffReviewed") == found[1].line  # the Checks sheet says it too
    assert result.value("SignoffCurrent") is False
    # status() of the path recalculates it the same way
    assert [s.line for s in status(changed)] == [s.line for s in found]


def test_a_continued_roster_is_signed_over_all_its_sheets(tmp_path: Path) -> None:
    # 251 employees: 2 roster sheets a period, whose inputs hash (and formulas) are the
    # template's with 2 roster sheets, not the blank one-sheet template's: the hash the
    # sign-off computes is the workbook's own (which reads every roster sheet), and an
    # hour on sheet (2) is one of its inputs by name (before, sign refused such a
    # workbook; a hash over the first sheets alone would miss a change there)
    from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
    from nj_incentives.workpapers.signoff import inspect

    employees = [
        {"name": f"E{n}", "base": [0] * 12, "year1": [160] * 12, "year2": [160] * 12}
        for n in range(ertc_credit.MAX_EMPLOYEES + 1)
    ]
    values = {**ertc_credit.EXAMPLE, "employees": employees}
    result = recalculate(build_template(ertc_credit, tmp_path / "e.xlsx", values))
    seen = inspect(result)
    assert seen.hash_now is not None
    assert seen.hash_now == result.value("InputsHash")
    assert seen.labels["Part II base year (2)!F7"] == "HoursBase2[1]"
    assert seen.values["Part II base year (2)!C7"] == "E250"
    assert seen.formulas_count == 0


def test_a_reformatted_input_leaves_the_signoff_current(signed: Path, tmp_path: Path) -> None:
    # the grant percentage 0.5 retyped as the text "50%" (and shown as 0%), the term 5
    # as the text "5.00"
    book = openpyxl.load_workbook(signed)
    for name, value in (("GrantPct", "50%"), ("Term", "5.00")):
        sheet, cell = book.defined_names[name].attr_text.split("!")
        _cells(book[sheet], cell)[0].value = value
        _cells(book[sheet], cell)[0].number_format = "0%"
    book.save(tmp_path / "reformatted.xlsx")
    assert [s.stale for s in status(tmp_path / "reformatted.xlsx")] == [False, False]


def test_a_source_or_tickmark_is_not_an_input_change(signed: Path, tmp_path: Path) -> None:
    book = openpyxl.load_workbook(signed)
    names = book.defined_names
    for name, text in (("TermSource", "NJEDA approval letter 2010-01-05"), ("TermTick", "A")):
        sheet, cell = names[name].attr_text.replace("$", "").split("!")
        book[sheet][cell] = text
    book.save(tmp_path / "sourced.xlsx")
    assert [s.stale for s in status(tmp_path / "sourced.xlsx")] == [False, False]


def test_calc_prints_the_stale_signoff_and_keeps_the_exit_status(
    signed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # year 1's withholdings 600,000 -> 610,000: still a valid schedule (master check TRUE)
    changed = _change_input(signed, tmp_path / "changed.xlsx", "Withholdings", 610000)
    code = cli.main(["calc", str(changed), "-o", str(tmp_path / "out"), "--json"])
    captured = capsys.readouterr()
    assert code == 0  # the figures are fine (master check TRUE): docs/filling.md "Sign-off"
    assert "SIGN-OFF STALE: reviewed 2026-11-30 by R. Reviewer; inputs changed since" in (
        captured.err
    )
    document = json.loads(captured.out)
    signoffs = document["workbooks"][0]["signoffs"]
    assert [s["stale"] for s in signoffs] == [True, True]
    assert signoffs[1]["line"] == "reviewed 2026-11-30 by R. Reviewer; inputs changed since"
    # the results workbook's Checks sheet lists the change below its checks (issue 32),
    # within its print area
    checks = openpyxl.load_workbook(document["workbooks"][0]["results"])["Checks"]
    rows = [[checks.cell(r, c).value for c in (1, 2, 3)] for r in range(1, checks.max_row + 1)]
    heading = next(n for n, row in enumerate(rows) if str(row[0]).startswith("Inputs changed"))
    assert str(rows[heading][0]).endswith("and reviewed 2026-11-30 by R. Reviewer:")
    change = signoffs[1]["changed_inputs"]
    assert [c["name"] for c in change] == ["Withholdings[1]"]
    assert rows[heading + 1 :] == [
        ["Input (cell)", "Value signed", "Value now"],
        [f"Withholdings[1] ({change[0]['cell']})", "600000", "610000"],
    ]
    assert str(checks.print_area).endswith(f"$C${checks.max_row}")


def test_status_of_values_and_of_an_unsigned_template() -> None:
    # a mapping of defined names, as a memo or a script holds them
    values = {
        "EngagementReviewer": "R. Reviewer",
        "EngagementReviewedOn": 46356.0,  # 2026-11-30
        "EngagementReviewerHash": "AAAA-BBBB-CCCC-DDDD",
        "InputsHash": "AAAA-BBBB-CCCC-DDDE",
    }
    found = status(values)
    assert found[0] == SignOff("prepared", "", None, "", "AAAA-BBBB-CCCC-DDDE")
    assert found[0].line == "not prepared (no sign-off)"
    assert found[0].stale is None
    assert found[1].line == "reviewed 2026-11-30 by R. Reviewer; inputs changed since"
    blank = status(DEFAULT_DIRECTORY / "beip-grant-schedule.xlsx")
    assert [s.line for s in blank] == ["not prepared (no sign-off)", "not reviewed (no sign-off)"]


def test_sign_refuses_what_it_cannot_sign(tmp_path: Path) -> None:
    copy = tmp_path / "grant.xlsx"
    shutil.copy(GRANT, copy)
    with pytest.raises(SignError, match="--preparer NAME or --reviewer NAME"):
        sign(copy)
    with pytest.raises(SignError, match=r"must be a date \(YYYY-MM-DD\)"):
        sign(copy, preparer="A", date="30/11/2026")
    (tmp_path / "~$grant.xlsx").write_bytes(b"owner")
    with pytest.raises(SignError, match="open in Excel"):
        sign(copy, preparer="A")
    assert copy.read_bytes() == GRANT.read_bytes()  # nothing written
    assert cli.main(["sign", str(tmp_path / "missing.xlsx"), "--preparer", "A"]) == 2
    other = tmp_path / "other.xlsx"
    openpyxl.Workbook().save(other)
    assert cli.main(["sign", str(other), "--preparer", "A"]) == 2


def test_the_sign_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "ertc.xlsx"
    shutil.copy(EXAMPLE["ertc-form-313"], copy)
    code = cli.main(["sign", str(copy), "--reviewer", "R. Reviewer", "--date", "2026-11-30"])
    assert code == 0
    assert "reviewed 2026-11-30 by R. Reviewer; inputs unchanged since" in capsys.readouterr().out
    assert cli.main(["sign", str(copy), "--status", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["signoffs"]
    assert shown[1]["stale"] is False
    assert shown[1]["date"] == "2026-11-30"


# --------------------------------------------------------------------------- fill


def test_fill_writes_sources_and_ticks(tmp_path: Path) -> None:
    data = {
        "AgreementDate": "2010-01-01",
        "Term": 3,
        "GrantPct": "50%",
        "Withholdings": [600000, 600000, 650000],
        "NewEmployees": [10, 12, 14],
        "sources": {"Term": "NJEDA approval letter 2010-01-05", "Withholdings": ["WR-30 2010"]},
        "ticks": {"Term": "A"},
        "WithholdingsTick": ["A", "A"],
    }
    done = fill("beip-grant-schedule", data, tmp_path / "filled.xlsx")
    book = openpyxl.load_workbook(done.path)

    def cells(name: str) -> list[object]:
        sheet, cell = book.defined_names[name].attr_text.split("!")
        return [c.value for c in _cells(book[sheet], cell)]

    assert cells("TermSource") == ["NJEDA approval letter 2010-01-05"]
    assert cells("TermTick") == ["A"]
    assert cells("WithholdingsSource")[:2] == ["WR-30 2010", None]
    assert cells("WithholdingsTick")[:3] == ["A", "A", None]


# --------------------------------------------------------------------------- LibreOffice


@pytest.fixture(scope="module")
def libreoffice_saved(signed: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    soffice = need("soffice", "opens and saves the signed workbook as a LibreOffice user would")
    root = tmp_path_factory.mktemp("lo-signed")
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={(root / 'profile').as_uri()}",
            "--headless",
            "--convert-to",
            "xlsx:Calc MS Excel 2007 XML",
            "--outdir",
            str(root / "saved"),
            str(signed),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    saved = root / "saved" / signed.name
    assert saved.exists(), "LibreOffice did not save the signed workbook"
    return saved


@pytest.mark.slow
@pytest.mark.libreoffice
def test_libreoffice_keeps_the_signoff(libreoffice_saved: Path) -> None:
    # LibreOffice has no NJ_* functions: what it shows on the Checks sheet is its own
    # recalculation (the line says the hash is not computed there) or the cached line
    shown = openpyxl.load_workbook(libreoffice_saved, data_only=True)
    sheet, cell = shown.defined_names["SignoffReviewed"].attr_text.replace("$", "").split("!")
    assert shown[sheet][cell].value in (
        "reviewed 2026-11-30 by R. Reviewer; inputs unchanged since",
        "reviewed 2026-11-30 by R. Reviewer" + workpaper.SIGNOFF_NOT_COMPUTED,
    )
    # calc recomputes the hash from the saved cells: the sign-off is kept, and current
    assert [s.line for s in status(libreoffice_saved)] == [
        "prepared 2026-11-20 by A. Preparer; inputs unchanged since",
        "reviewed 2026-11-30 by R. Reviewer; inputs unchanged since",
    ]


@pytest.mark.slow
@pytest.mark.libreoffice
def test_the_signed_workbook_prints_its_signoff_and_tickmark_legend(
    signed: Path, tmp_path: Path
) -> None:
    """LibreOffice prints the signed workbook straight to PDF (no Excel here; its cached
    values, refreshed by sign, are what it shows); the Inputs page carries the sign-off
    and the tickmark legend, the Checks page the sign-off lines. To look at them:
    ``pdftoppm -r 70 -png`` the PDF (done by hand for issue 20: Inputs is page 5)."""
    soffice = need("soffice", "prints the signed workbook to PDF")
    pdftotext = need("pdftotext", "reads the printed pages back")
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={(tmp_path / 'profile').as_uri()}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(tmp_path),
            str(signed),
        ],
        capture_output=True,
        timeout=600,
        check=False,
    )
    pdf = tmp_path / f"{signed.stem}.pdf"
    assert pdf.exists(), "LibreOffice printed no PDF of the signed workbook"
    text = subprocess.run(
        [pdftotext, "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = text.split("\f")
    # Inputs prints on two pages (the sign-off block and the band sized to its text)
    inputs = "\f".join(page for page in pages if "Sheet: Inputs" in page)
    assert "Prepared on" in inputs
    assert "2026-11-30" in inputs
    assert "Tickmarks (the Tick column beside each input)" in inputs
    for mark, meaning in workpaper.TICKMARKS:
        assert meaning in inputs, mark
    assert "Source (document, date, reference)" in inputs
    checks = next(page for page in pages if "Sheet: Checks" in page)
    assert "reviewed 2026-11-30 by R. Reviewer; inputs unchanged since" in checks
    assert "prepared 2026-11-20 by A. Preparer; inputs unchanged since" in checks
