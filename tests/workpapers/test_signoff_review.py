"""A sign-off that cannot be made to lie and cannot be missed (issues 32 items 1-4, 36
items 1-3, 10, 11, 14): the inputs hash computed from the template's declared inputs
(never the workbook's own hash cell), formulas that differ from the template reported
beside the sign-off, what changed since a sign-off, the signing rules (preparer before
reviewer, dates in order, a second reviewer, finalizing), review notes, and ``sign``'s
refusals (an unrelated ``-o``, a bad date, an unwritable target), each first shown
failing on the code before it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from nj_incentives import cli
from nj_incentives.workpapers.signoff import SignError, sign, status
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY
from nj_incentives.workpapers.templates.builder import shown_formula

GRANT = DEFAULT_DIRECTORY / "examples" / "beip-grant-schedule-example.xlsx"


def _where(book: Any, name: str) -> Any:
    sheet, cells = book.defined_names[name].attr_text.replace("$", "").split("!")
    return book[sheet][cells.split(":")[0]]


def _edited(target: Path, **edits: Any) -> Path:
    """The signed grant example with ``edits`` (defined name -> value or formula),
    saved by openpyxl as a script would."""
    book = openpyxl.load_workbook(GRANT)
    for name, value in edits.items():
        _where(book, name).value = value
    book.save(target)
    return target


@pytest.fixture(scope="module")
def signed_hash() -> str:
    book = openpyxl.load_workbook(GRANT)
    return str(_where(book, "EngagementReviewerHash").value)


# --------------------------------------------------------------------------- issue 36 item 1


def test_the_hash_cell_replaced_by_its_value_cannot_hide_a_change(
    tmp_path: Path, signed_hash: str
) -> None:
    # InputsHash's formula replaced by the signed hash, then year 1's withholdings
    # 600,000 -> 610,000: the workbook's own cell still says the signed hash
    path = _edited(tmp_path / "frozen.xlsx", InputsHash=signed_hash, Withholdings=610000)
    found = status(path)
    assert [s.stale for s in found] == [True, True]
    assert "inputs changed since" in found[1].line
    assert "FORMULAS DIFFER from the template (1: Inputs!C18)" in found[1].line


def test_an_edited_schedule_formula_is_reported_beside_the_signoff(tmp_path: Path) -> None:
    book = openpyxl.load_workbook(GRANT)
    # the master check's formula set to =TRUE, and a schedule formula edited
    master = _where(book, "MasterCheck")
    master.value = "=TRUE"
    book.save(tmp_path / "tampered.xlsx")
    found = status(tmp_path / "tampered.xlsx")
    assert [s.stale for s in found] == [False, False]  # the inputs are as signed
    assert all(s.formulas_count == 1 for s in found)
    assert found[1].line.endswith("; FORMULAS DIFFER from the template (1: Checks!C5)")
    assert not found[1].current_ok


def test_an_edited_table_formula_or_reference_on_either_sheet_is_reported(
    tmp_path: Path,
) -> None:
    """The grant schedule is computed on the hidden sheet 'Calculations NJ' and shown on
    Calculations by ordinary references (issue 31 item 3): its NJ_* formula edited there
    (the grant percentage 50% replaced by 80%), and a shown cell made to read another
    row (grant year 1's grant showing year 2's), are each a formula that differs."""
    book = openpyxl.load_workbook(GRANT)
    hidden = book["Calculations NJ"]
    table = hidden["C23"].value  # the schedule's array formula, at its visible address
    assert "NJ_BEIP_GRANT_SCHEDULE(" in table.text
    assert "GrantPct" in table.text
    table.text = table.text.replace("GrantPct", "0.8")
    shown = book["Calculations"]
    assert shown["H24"].value == shown_formula("'Calculations NJ'!H24")
    shown["H24"].value = shown_formula("'Calculations NJ'!H25")
    book.save(tmp_path / "tampered.xlsx")
    found = status(tmp_path / "tampered.xlsx")
    assert [s.stale for s in found] == [False, False]  # the inputs are as signed
    assert found[1].line.endswith(
        "; FORMULAS DIFFER from the template (2: Calculations!H24, Calculations NJ!C23)"
    )
    assert not found[1].current_ok


def test_sign_status_exits_1_when_formulas_differ_stale_or_unsigned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "grant.xlsx"
    shutil.copy(GRANT, copy)
    assert cli.main(["sign", str(copy), "--status"]) == 0
    tampered = _edited(tmp_path / "t.xlsx", MasterCheck="=TRUE")
    assert cli.main(["sign", str(tampered), "--status"]) == 1
    stale = _edited(tmp_path / "s.xlsx", Withholdings=610000)
    assert cli.main(["sign", str(stale), "--status"]) == 1
    blank = DEFAULT_DIRECTORY / "beip-grant-schedule.xlsx"
    assert cli.main(["sign", str(blank), "--status"]) == 1  # not signed
    capsys.readouterr()


def test_calc_exits_1_for_a_signoff_over_changed_formulas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tampered = _edited(tmp_path / "t.xlsx", MasterCheck="=TRUE")
    code = cli.main(["calc", str(tampered), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 1
    assert "SIGN-OFF OVER CHANGED FORMULAS" in err
    # the results workbook's Checks sheet and every band say so (not the workbook's own
    # formulas, which compare its own hash cell)
    book = openpyxl.load_workbook(tmp_path / "out" / "t-results.xlsx")
    line = _where(book, "SignoffReviewed")
    assert line.value.endswith("; FORMULAS DIFFER from the template (1: Checks!C5)")
    assert book["Checks"][f"C{line.row}"].value is False
    assert _where(book, "SignoffCurrent").value is False
    assert "Reviewed by: R. Reviewer (stale)" in book["Outputs"]["A3"].value


# --------------------------------------------------------------------------- issue 32 items 2-3


@pytest.fixture(scope="module")
def blank_grant(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The grant example's inputs with nobody signed (names, dates and hashes blank),
    saved by openpyxl: no shared strings part if nothing else needs one is not required."""
    path = tmp_path_factory.mktemp("blank") / "grant.xlsx"
    book = openpyxl.load_workbook(GRANT)
    for name in (
        "EngagementPreparer",
        "EngagementPreparedOn",
        "EngagementPreparerHash",
        "EngagementReviewer",
        "EngagementReviewedOn",
        "EngagementReviewerHash",
    ):
        _where(book, name).value = None
    book.save(path)
    return path


def test_the_reviewer_signs_after_the_preparer_or_with_an_override(
    blank_grant: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "g.xlsx"
    shutil.copy(blank_grant, copy)
    before = copy.read_bytes()
    with pytest.raises(SignError, match="nobody has signed it as its preparer"):
        sign(copy, reviewer="R. Reviewer", date="2026-09-01")
    assert copy.read_bytes() == before  # nothing written
    sign(copy, preparer="A. Preparer", date="2026-09-20")  # an openpyxl-saved workbook
    with pytest.raises(SignError, match="before the preparation on 2026-09-20"):
        sign(copy, reviewer="R. Reviewer", date="2026-09-01")
    done = sign(copy, reviewer="R. Reviewer", date="2026-09-21")
    assert [s.line for s in done.signoffs] == [
        "prepared 2026-09-20 by A. Preparer; inputs unchanged since",
        "reviewed 2026-09-21 by R. Reviewer; inputs unchanged since",
    ]
    # a review over nobody's preparation, with the reason: recorded and shown
    other = tmp_path / "o.xlsx"
    shutil.copy(blank_grant, other)
    sign(other, reviewer="R. Reviewer", override="preparer on leave; partner approved")
    from nj_incentives.workpapers.signoff import recalculate, record_lines

    assert record_lines(recalculate(other))[0].startswith(
        "OVERRIDE: reviewed although nobody has signed it as its preparer (R. Reviewer,"
    )


def test_what_changed_since_the_signoff_is_listed_input_by_input(
    blank_grant: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "g.xlsx"
    shutil.copy(blank_grant, copy)
    sign(copy, preparer="A. Preparer", reviewer="R. Reviewer", date="2026-09-20")
    book = openpyxl.load_workbook(copy)
    _where(book, "Withholdings").value = 610000  # year 1: 600,000 -> 610,000
    _where(book, "GrantPct").value = 0.45  # 50% -> 45%
    book.save(copy)
    found = status(copy)
    assert [c.line for c in found[1].changes] == [
        "GrantPct (Inputs!C31): signed 0.5, now 0.45",
        "Withholdings[1] (Inputs!C40): signed 600000, now 610000",
    ]
    assert cli.main(["sign", str(copy), "--status"]) == 1
    out = capsys.readouterr().out
    assert "changed since: Withholdings[1] (Inputs!C40): signed 600000, now 610000" in out
    assert cli.main(["calc", str(copy), "-o", str(tmp_path / "out")]) == 0  # figures fine
    assert "changed since: GrantPct (Inputs!C31): signed 0.5, now 0.45" in capsys.readouterr().err


def test_a_second_reviewer_and_finalizing(blank_grant: Path, tmp_path: Path) -> None:
    copy = tmp_path / "g.xlsx"
    shutil.copy(blank_grant, copy)
    with pytest.raises(SignError, match="after a current first review"):
        sign(copy, second_reviewer="S. Partner")
    sign(copy, preparer="A. Preparer", reviewer="R. Reviewer", date="2026-09-20")
    with pytest.raises(SignError, match="before the first review"):
        sign(copy, second_reviewer="S. Partner", date="2026-09-19")
    done = sign(copy, second_reviewer="S. Partner", date="2026-09-22")
    assert (
        done.signoffs[2].line
        == "reviewed (second) 2026-09-22 by S. Partner; inputs unchanged since"
    )
    final = sign(copy, finalize="S. Partner", date="2026-09-23")
    assert final.record["finalized"] == {
        "name": "S. Partner",
        "date": "2026-09-23",
        "hash": final.signoffs[0].stored,
    }
    book = openpyxl.load_workbook(copy)
    assert all(ws.protection.sheet for ws in book.worksheets)
    assert book.security is not None
    assert book.security.lockStructure
    with pytest.raises(SignError, match=r"finalized 2026-09-23 by S\. Partner"):
        sign(copy, reviewer="R. Reviewer")


# ------------------------------------------------------------- issue 36 items 2, 10, 11, 14


def test_sign_o_keeps_an_unrelated_workbook_unless_forced(tmp_path: Path) -> None:
    other = tmp_path / "other.xlsx"
    other.write_bytes(b"someone else's workbook")
    with pytest.raises(SignError, match="exists and is not"):
        sign(GRANT, reviewer="R. Reviewer", output=other)
    assert other.read_bytes() == b"someone else's workbook"
    sign(GRANT, reviewer="R. Reviewer", output=other, force=True, date="2026-12-02")
    assert status(other)[1].line.startswith("reviewed 2026-12-02 by R. Reviewer")


@pytest.mark.parametrize(
    "day", ["20240203", "2024-W05-6", "0001-01-01", "9999-12-31", "2026-02-30", "tomorrow"]
)
def test_sign_date_follows_the_one_date_rule(day: str, tmp_path: Path) -> None:
    with pytest.raises(SignError, match="--date"):
        sign(tmp_path / "never-read.xlsx", preparer="A", date=day)


def test_an_unwritable_target_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "folder.xlsx"
    folder.mkdir()
    assert cli.main(["sign", str(GRANT), "--preparer", "A", "-o", str(folder)]) == 2
    assert "is a folder" in capsys.readouterr().err
    # a folder that cannot be made (its parent is a file), as a read-only disk refuses
    # (the tests may run as root, whom a read-only mode does not stop)
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    target = not_a_folder / "g.xlsx"
    code = cli.main(["sign", str(GRANT), "--preparer", "A", "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 2
    assert "cannot be written" in err
    assert "Traceback" not in err
    assert err.count("\n") == 2  # the reason, and "nothing written"


def test_two_sign_runs_on_one_workbook_lose_neither_signoff(tmp_path: Path) -> None:
    # the second run reads the workbook before the first writes it: the write is
    # noticed, and the second run signs again what the first wrote
    from nj_incentives.workpapers import signoff

    copy = tmp_path / "g.xlsx"
    shutil.copy(GRANT, copy)
    theirs = tmp_path / "theirs.xlsx"  # what the other run writes
    sign(GRANT, preparer="Other Run", date="2026-12-02", output=theirs)
    real = signoff._recalculate
    calls = {"n": 0}

    def racing(path: Path) -> Any:
        result = real(path)
        calls["n"] += 1
        if calls["n"] == 1:  # the other run's rename lands now
            shutil.copy(theirs, copy)
        return result

    signoff._recalculate = racing
    try:
        sign(copy, reviewer="R. Reviewer", date="2026-12-03")
    finally:
        signoff._recalculate = real
    lines = [s.line for s in status(copy)]
    assert lines[0].startswith("prepared 2026-12-02 by Other Run")
    assert lines[1].startswith("reviewed 2026-12-03 by R. Reviewer")
    assert calls["n"] >= 2  # read again after the other run's write
    assert not list(tmp_path.glob("*conflict*"))


@pytest.mark.parametrize(
    "entry",
    [
        {"EngagementReviewer": "R. Reviewer"},
        {"engagement": {"reviewed_on": "2026-11-30"}},
        {"EngagementReviewerHash": "0C1F-861B-CBF8-0D61"},
        {"EngagementPreparerHash": "0C1F-861B-CBF8-0D61"},
    ],
)
def test_fill_refuses_signoff_fields_in_data(entry: dict[str, Any], tmp_path: Path) -> None:
    from nj_incentives.workpapers.fill import FillError, fill

    data = {"AgreementDate": "2010-01-01", "Term": 1, "GrantPct": "50%", **entry}
    with pytest.raises(FillError, match="is a sign-off field, written only by nj-incentives sign"):
        fill("beip-grant-schedule", data, tmp_path / "filled.xlsx")
    assert not (tmp_path / "filled.xlsx").exists()


# --------------------------------------------------------------------------- issue 32 item 1


def test_the_memo_has_a_signoff_banner_and_stale_footers(blank_grant: Path, tmp_path: Path) -> None:
    from nj_incentives.workpapers.memo.build import build_memo
    from nj_incentives.workpapers.memo.document import Paragraph
    from nj_incentives.workpapers.signoff import recalculate

    copy = tmp_path / "g.xlsx"
    shutil.copy(blank_grant, copy)
    sign(copy, preparer="A. Preparer", date="2026-11-20")
    sign(copy, reviewer="R. Reviewer", date="2026-11-30")
    current = build_memo([recalculate(copy)])
    assert not [b for b in current.blocks if isinstance(b, Paragraph) and "SIGN-OFF" in b.text]
    assert current.footer.endswith("Preparer A. Preparer; Reviewer R. Reviewer")
    book = openpyxl.load_workbook(copy)
    _where(book, "GrantPct").value = 0.45
    book.save(copy)
    memo = build_memo([recalculate(copy)])
    banner = next(b for b in memo.blocks if isinstance(b, Paragraph) and b.warning)
    assert banner.text == (
        "SIGN-OFF STALE: g.xlsx: prepared 2026-11-20 by A. Preparer; inputs changed since; "
        "reviewed 2026-11-30 by R. Reviewer; inputs changed since; changed since: GrantPct "
        "(Inputs!C31): signed 0.5, now 0.45. Review the changes and sign again."
    )
    assert memo.footer.endswith("Preparer A. Preparer (stale); Reviewer R. Reviewer (stale)")


# --------------------------------------------------------------------------- issue 32 item 4


def test_review_notes_add_list_clear_finalize_and_memo(
    blank_grant: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from nj_incentives.workpapers.memo.build import build_memo
    from nj_incentives.workpapers.memo.document import Table
    from nj_incentives.workpapers.signoff import recalculate

    copy = tmp_path / "g.xlsx"
    shutil.copy(blank_grant, copy)
    sign(copy, preparer="A. Preparer", reviewer="R. Reviewer", date="2026-09-20")
    before = [s.line for s in status(copy)]
    add = ["note", "add", str(copy), "GrantPct", "agree 50% to the approval letter"]
    assert cli.main([*add, "--by", "R. Reviewer", "--date", "2026-09-21"]) == 0
    assert cli.main(["note", "add", str(copy), "TotalGrant", "tie out", "--by", "R. R."]) == 0
    assert cli.main(["note", "add", str(copy), "NoSuchName", "x", "--by", "R. R."]) == 2
    assert [s.line for s in status(copy)] == before  # a note changes no input
    # the Excel note on the cell, as openpyxl reads it
    book = openpyxl.load_workbook(copy)
    comment = _where(book, "GrantPct").comment
    assert comment is not None
    assert (
        comment.text == "Review note #1 (R. Reviewer, 2026-09-21): agree 50% to the approval letter"
    )
    capsys.readouterr()
    assert cli.main(["note", "list", str(copy)]) == 1  # open notes
    listed = capsys.readouterr().out
    assert (
        "#1 GrantPct (Inputs!C31): agree 50% to the approval letter - R. Reviewer 2026-09-21; open"
        in listed
    )
    with pytest.raises(SignError, match="2 open review note"):
        sign(copy, finalize="S. Partner")
    assert (
        cli.main(["note", "clear", str(copy), "1", "--by", "A. Preparer", "--date", "2026-09-22"])
        == 0
    )
    memo = build_memo([recalculate(copy)])
    table = next(
        b for b in memo.blocks if isinstance(b, Table) and b.headers[0] == "Review note on"
    )
    assert [row[0] for row in table.rows] == ["GrantPct", "TotalGrant"]
    assert table.rows[0][3] == "cleared 2026-09-22 by A. Preparer"
    assert table.rows[1][3] == "OPEN"
    assert openpyxl.load_workbook(copy).worksheets[1]["C31"].comment is None  # cleared: gone
    assert cli.main(["note", "clear", str(copy), "2", "--by", "A. Preparer"]) == 0
    assert cli.main(["note", "list", str(copy)]) == 0
    sign(copy, finalize="S. Partner")
    assert cli.main(["note", "add", str(copy), "GrantPct", "late", "--by", "X"]) == 2


def test_rollforward_warns_of_stale_signoffs_carries_open_notes_drops_cleared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from nj_incentives.workpapers.fill import fill
    from nj_incentives.workpapers.review_notes import add_note, clear_note, notes
    from nj_incentives.workpapers.signoff import read_record

    data = {
        "AgreementDate": "2010-01-01",
        "Term": 5,
        "GrantPct": "50%",
        "Withholdings": [600000, 650000],
        "NewEmployees": [10, 12],
    }
    last = fill("beip-grant-schedule", data, tmp_path / "last.xlsx").path
    sign(last, preparer="A. Preparer", reviewer="R. Reviewer", date="2026-09-20")
    add_note(last, "GrantPct", "agree to the letter", by="R. Reviewer", date="2026-09-21")
    add_note(last, "Term", "term confirmed?", by="R. Reviewer", date="2026-09-21")
    clear_note(last, 2, by="A. Preparer", date="2026-09-22")
    book = openpyxl.load_workbook(last)
    _where(book, "GrantPct").value = 0.45  # after the review
    book.save(last)
    capsys.readouterr()
    nxt = tmp_path / "next.xlsx"
    assert cli.main(["rollforward", str(last), "-o", str(nxt)]) == 0
    err = capsys.readouterr().err
    assert "SIGN-OFF NOT CURRENT: reviewed 2026-09-20 by R. Reviewer; inputs changed since" in err
    assert "review notes: 1 open carried into next.xlsx, 1 cleared dropped" in err
    carried = notes(read_record(nxt.read_bytes()))
    assert [(n.number, n.target, n.text, n.open) for n in carried] == [
        (1, "GrantPct", "agree to the letter", True)
    ]
    assert openpyxl.load_workbook(nxt).worksheets[1]["C31"].comment is not None


def test_sign_a_workbook_saved_by_openpyxl(blank_grant: Path) -> None:
    # openpyxl writes its text cells inline, with no shared strings part: refused before
    # ("the workbook has no shared strings part: save it in Excel first")
    import zipfile

    assert "xl/sharedStrings.xml" not in zipfile.ZipFile(blank_grant).namelist()
    copy = blank_grant.with_name("inline.xlsx")
    shutil.copy(blank_grant, copy)
    done = sign(copy, preparer="A. Preparer", date="2026-09-20")
    assert done.signoffs[0].line == "prepared 2026-09-20 by A. Preparer; inputs unchanged since"
    assert status(copy)[0].line == done.signoffs[0].line


def test_the_checks_sheet_and_the_bands_say_stale_in_the_workbook_itself(tmp_path: Path) -> None:
    # what Excel shows (the template's own formulas, recalculated here as Excel would):
    # the Checks sheet's sign-off heading becomes the banner, every band says "(stale)"
    from tooling import recalculate_as_calc

    fresh = recalculate_as_calc(GRANT)
    heading = "Sign-off (not part of the master check: docs/filling.md)"
    assert fresh.value("Checks!A6") == heading
    assert "Reviewed by: R. Reviewer   |" in fresh.value("EngagementLine")
    changed = recalculate_as_calc(_edited(tmp_path / "c.xlsx", Withholdings=610000))
    assert changed.value("Checks!A6").startswith("SIGN-OFF STALE: an input changed since")
    band = changed.value("EngagementLine")
    assert "Prepared by: A. Preparer (stale)   |   Reviewed by: R. Reviewer (stale)" in band
