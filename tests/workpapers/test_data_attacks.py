"""Issue 36 items 4-7: DATA and payroll files that cannot explode, tracebacks none, what
was typed kept as typed, payroll read exactly.

Each attack of ``tests/data_attacks.py`` is run at a small scale through the command
line in this process and must end as the issue asks (a clear refusal naming the file and
the reason, or the text written as typed); before the fix they gave tracebacks, silent
re-readings and refusals after gigabytes. The bounds are tested by the work done (events
read, bytes read, values built, messages kept), never by wall time; the full-size
figures come from ``python tests/data_attacks.py`` (docs/performance.md).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from data_attacks import NAMES, Attack, attacks
from nj_incentives import cli
from nj_incentives.support import reading
from nj_incentives.workpapers import datafile
from nj_incentives.workpapers.fill import FillError, fill, read_data


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Attack]:
    folder = tmp_path_factory.mktemp("attacks")
    return {attack.name: attack for attack in attacks(folder, scale=0.001)}


def test_the_attacks_are_the_listed_ones(made: dict[str, Attack]) -> None:
    assert list(made) == list(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_attack_ends_as_the_issue_asks(
    name: str, made: dict[str, Attack], tmp_path: Path, capsys: Any
) -> None:
    attack = made[name]
    out = tmp_path / "out.xlsx"
    status = _run(attack, out)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if attack.expect == "refuse":
        assert status in (1, 2), err
        assert not out.exists()
        assert err.strip(), "a refusal says why"
        assert all(len(line) < 600 for line in err.splitlines())
    else:
        assert status == 0, err
        book = openpyxl.load_workbook(out)
        sheet, cell = book.defined_names[attack.cell].attr_text.replace("$", "").split("!")
        assert str(book[sheet.strip("'")][cell.split(":")[0]].value) == attack.text


def _run(attack: Attack, out: Path) -> int:
    if attack.code:
        try:
            exec(attack.code, {"fill": fill, "OUT": out})
        except FillError as error:
            print(error, file=sys.stderr)
            return error.status
        return 0
    args = ["fill", attack.template]
    if attack.data is not None:
        args.append(str(attack.data))
    if attack.hours is not None:
        args += ["--hours", str(attack.hours)]
    return cli.main([*args, "-o", str(out)])


def test_a_yaml_alias_is_refused_at_the_first_one(tmp_path: Path, monkeypatch: Any) -> None:
    """The 12 MB roster of aliases: refused at its first alias, after a handful of
    events, however long the file (before: every alias expanded, 8 GB)."""
    import yaml

    read = []
    parse = yaml.parse

    def counted(*args: Any, **kwargs: Any) -> Any:
        for event in parse(*args, **kwargs):
            read.append(event)
            yield event

    monkeypatch.setattr(yaml, "parse", counted)
    data = tmp_path / "aliases.yaml"
    data.write_text("Employees:\n- &e {name: A, base: [1, 2]}\n" + "- *e\n" * 50_000)
    with pytest.raises(FillError) as refused:
        read_data(data)
    assert "line 3: an alias (*e)" in refused.value.messages[0]
    assert len(read) < 20


def test_billion_laughs_builds_nothing(tmp_path: Path) -> None:
    data = tmp_path / "laughs.yaml"
    data.write_text("Withholdings: [{lol: " + _laughs(9) + "}]\n")
    with pytest.raises(FillError, match="YAML aliases are not read"):
        read_data(data)


def _laughs(levels: int) -> str:
    from data_attacks import _laughs as laughs

    return laughs(levels)


def test_many_keys_are_refused_before_json_builds_them(tmp_path: Path, monkeypatch: Any) -> None:
    """1,100,000 unknown keys: counted from the text, refused before a key is built
    (before: every key built and each message listing the ~250 inputs, 6 GB)."""
    calls = []
    monkeypatch.setattr(datafile.json, "loads", lambda *a, **k: calls.append(1))
    monkeypatch.setattr(datafile, "MAX_VALUES", 1_000)
    data = tmp_path / "keys.json"
    data.write_text("{" + ",".join(f'"k{i}":1' for i in range(600)) + "}")
    with pytest.raises(FillError, match="more than 1,000 values"):
        read_data(data)
    assert calls == []


def test_a_list_past_its_bound_is_refused_at_the_item_past_it(tmp_path: Path) -> None:
    data = tmp_path / "long.yaml"
    data.write_text("EmployeeNames:\n" + "- x\n" * (datafile.MAX_ITEMS + 1))
    with pytest.raises(FillError, match=f"line {datafile.MAX_ITEMS + 2}: a list of more than"):
        read_data(data)


def test_a_file_is_read_up_to_its_limit_and_one_byte(tmp_path: Path, monkeypatch: Any) -> None:
    """A file read stops at the limit plus one byte, whatever its size says (before:
    /dev/zero's size of 0 passed the 16 MiB check and 7 GB were read)."""
    read: list[int] = []
    real = os.read

    def counted(handle: int, size: int) -> bytes:
        chunk = real(handle, size)
        read.append(len(chunk))
        return chunk

    monkeypatch.setattr(reading.os, "read", counted)
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * 5000)
    monkeypatch.setattr(
        reading.os, "fstat", lambda h: os.stat_result((0o100644, 0, 0, 1, 0, 0, 0, 0, 0, 0))
    )
    with pytest.raises(reading.NotReadable, match="more than 1,000 bytes"):
        reading.read_regular(big, 1000)
    assert sum(read) == 1001


@pytest.mark.parametrize("special", ["/dev/zero", "fifo", "folder"])
def test_only_a_regular_file_is_read(special: str, tmp_path: Path, monkeypatch: Any) -> None:
    """A device, a FIFO with no writer (before: waited forever) or a folder: refused by
    its kind, no byte read."""
    read: list[int] = []
    real = os.read
    monkeypatch.setattr(reading.os, "read", lambda *a: read.append(1) or real(*a))
    if special == "fifo":
        path = tmp_path / "data.yaml"
        os.mkfifo(path)
    elif special == "folder":
        path = tmp_path / "data.yaml"
        path.mkdir()
    else:
        path = tmp_path / "zero.yaml"
        path.symlink_to(special)
    with pytest.raises(FillError, match="not a file: give a regular file"):
        read_data(path)
    assert read == []


def test_messages_are_bounded(tmp_path: Path) -> None:
    """5,000 unknown names in a CSV: the first refusals are kept, each short, the
    template's inputs listed once (before: every message listed all of them)."""
    data = tmp_path / "names.csv"
    data.write_text("\n".join(f"unknown{i},1" for i in range(900)))
    with pytest.raises(FillError) as refused:
        fill("ertc-form-313", data, tmp_path / "out.xlsx")
    messages = refused.value.messages
    assert len(messages) == 901
    assert sum("inputs:" in m for m in messages) == 1
    assert max(len(m) for m in messages[:-1]) < 200


def test_refusals_stop_at_their_bound(tmp_path: Path) -> None:
    data = tmp_path / "bad.yaml"
    data.write_text("Withholdings: [" + ", ".join(["x"] * 10) + "]\n" + "EmployeeNames: []\n")
    employees = [{"name": "A", "base": ["x"] * 12}] * 200
    with pytest.raises(FillError) as refused:
        fill("ertc-form-313", {"Employees": employees}, tmp_path / "out.xlsx")
    assert len(refused.value.messages) <= 1_001 + 12


def test_nested_values_are_shown_by_size() -> None:
    shared: list[object] = ["lol"] * 9
    for _ in range(8):
        shared = [shared] * 9  # 9 ** 9 strings, shared: small in memory, huge as text
    assert datafile.shown(shared) == "[a list of 9]"
    assert datafile.shown({"a": shared}) == "{a mapping of 1 keys}"
    assert "5,001 digits" in datafile.shown(10**5000)
    with pytest.raises(FillError) as refused:
        fill("beip-grant-schedule", {"Withholdings": [{"lol": shared}]}, "out.xlsx")
    assert len(refused.value.messages[0]) < 300


def test_yaml_keeps_what_was_typed(tmp_path: Path) -> None:
    """YAML 1.1 would read 01234567 as 342391, No as False, 11:40 as 700 and 0x5 as 5:
    each reaches the input's rule as typed; a decimal number is shown as typed."""
    data = tmp_path / "typed.yaml"
    data.write_text(
        "a: 01234567\nb: No\nc: 11:40\nd: 0x5\ne: 2024-01-31\nf: 11\ng: ~\nh:\ni: '11'\n"
    )
    document = datafile.read_document(data)
    assert document == {
        "a": "01234567",
        "b": "No",
        "c": "11:40",
        "d": "0x5",
        "e": "2024-01-31",
        "f": "11",
        "g": None,
        "h": None,
        "i": "11",
    }
    assert repr(document["f"]) == "11"
    assert repr(document["i"]) == "'11'"


def test_json_numbers_are_their_text(tmp_path: Path) -> None:
    data = tmp_path / "n.json"
    data.write_text('{"a": 0.1, "b": 12345678901234567890, "c": true, "d": null, "e": NaN}')
    assert datafile.read_document(data) == {
        "a": "0.1",
        "b": "12345678901234567890",
        "c": True,
        "d": None,
        "e": "NaN",
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\n---\nb: 2\n", "a second YAML document"),
        ("a: !!python/object:os.system x\n", "the tag"),
        ("? [a]\n: 1\n", "a key must be a name"),
        ("a: [1\n", "not YAML"),
    ],
)
def test_other_yaml_is_refused_with_its_line(text: str, message: str, tmp_path: Path) -> None:
    data = tmp_path / "d.yaml"
    data.write_text(text)
    with pytest.raises(datafile.DataError, match=message):
        datafile.read_document(data)


def test_data_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "d.yaml"
    data.write_bytes(b"EngagementClient: Caf\xe9\n")
    with pytest.raises(datafile.DataError, match=r"not UTF-8 text \(line 1, byte 22\)"):
        datafile.read_document(data)


def test_the_json_value_count_is_exact_outside_strings(tmp_path: Path) -> None:
    """Separators inside strings are not counted: a file of long texts full of commas is
    read."""
    data = tmp_path / "d.json"
    data.write_text(json.dumps({"EngagementClient": "a, b: [c], {d}" * 10_000}))
    assert len(datafile.read_document(data)["EngagementClient"]) == 140_000


def test_read_regular_reads_a_small_file(tmp_path: Path) -> None:
    path = tmp_path / "x"
    path.write_bytes(b"abc")
    assert reading.read_regular(path, 3) == b"abc"
    with pytest.raises(reading.NotReadable, match="3 bytes, more than 2"):
        reading.read_regular(path, 2)
    with pytest.raises(reading.NotReadable, match="cannot be read"):
        reading.read_regular(tmp_path / "missing", 2)


def test_stream_of_csv_rows_is_bounded(tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    data.write_text("Withholdings" + ",1" * (datafile.MAX_ITEMS + 1) + "\n")
    with pytest.raises(FillError, match="more than 10,000 values in a row"):
        read_data(data)
    data.write_text("".join(f"x{i},1\n" for i in range(datafile.MAX_KEYS + 1)))
    with pytest.raises(FillError, match="more than 1,000 inputs"):
        read_data(data)


def test_a_file_name_that_is_not_utf8_is_printed(tmp_path: Path) -> None:
    """Issue 36 item 13: under a UTF-8 locale, a Latin-1 file name crashed fill,
    templates, calc --memo, sign and rollforward after writing (UnicodeEncodeError
    printing the path); its byte is now shown as \\xe9."""
    import subprocess

    data = tmp_path / "grant.yaml"
    data.write_text("Term: 5\n")
    name = os.fsdecode(b"caf\xe9.xlsx")  # a lone surrogate in Python's view
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nj_incentives.cli",
            "fill",
            "beip-grant-schedule",
            str(data),
            "-o",
            name,
        ],
        cwd=tmp_path,
        capture_output=True,
        # strict UTF-8 on standard output, as under LC_ALL=de_DE.UTF-8 (a locale CI may
        # not have)
        env={**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert b"caf\\xe9.xlsx" in done.stdout
    assert (tmp_path / name).exists()
    assert reading.printable(name) == "caf\\xe9.xlsx"
    assert reading.printable("Ａlice") == "Ａlice"


# --------------------------------------------------------------------------- item 14


def test_a_control_character_is_named_not_blamed_on_the_file(tmp_path: Path) -> None:
    """A control character in a text input or a signer's name made a workbook no reader
    accepts ('malformed XML', blamed on the file); it is refused by name."""
    from nj_incentives.workpapers.signoff import SignError, sign

    with pytest.raises(FillError, match=r"EngagementClient = 'A\\x07B': holds the control"):
        fill("beip-grant-schedule", {"EngagementClient": "A\x07B"}, tmp_path / "out.xlsx")
    with pytest.raises(SignError, match="the name holds a control or direction character"):
        sign(tmp_path / "any.xlsx", preparer="A\x07B")


def test_the_markdown_memo_shows_a_direction_override() -> None:
    from nj_incentives.workpapers.memo import markup

    assert markup._md("Acme \u202eLLC") == "Acme \\[U+202E\\]LLC"


def test_the_pdf_memo_spells_what_its_font_cannot_show() -> None:
    from nj_incentives.workpapers.memo import pdf
    from nj_incentives.workpapers.memo.document import Memo, Paragraph, Table

    memo = Memo("株式会社", [Paragraph("x 中"), Table(("中",), (("a", "中b"),))], "中", "")
    spelled = pdf.spelled(memo, lambda code: code < 0x300)
    assert spelled.title == "[U+682A][U+5F0F][U+4F1A][U+793E]"
    assert spelled.blocks == [
        Paragraph("x [U+4E2D]"),
        Table(("[U+4E2D]",), (("a", "[U+4E2D]b"),)),
    ]
    assert pdf.missing_glyphs(spelled, lambda code: code < 0x300) == 0
