"""The hostile DATA and payroll files of issue 36 (items 4-7), at any size.

:func:`attacks` writes each attack into a folder and says what a correct run does with it
(``refuse``: exit 1 or 2 with a message and nothing written; ``text``: exit 0 with the
text input written exactly as typed). ``scale`` shrinks the large ones: the regression
tests (``tests/workpapers/test_data_attacks.py``) run them at a small scale and count the
work done (nodes, entries, messages), never wall time; this module's ``__main__`` runs
them at the issue's sizes, each in its own process under ``/usr/bin/time -v`` with an
address-space cap, and prints each outcome, its time and its peak memory (the figures of
the issue's closing note)::

    python tests/data_attacks.py            # full size, capped at 2 GiB and 90 s each
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Attack:
    """One hostile input: the ``fill`` arguments (template, DATA, ``--hours``) or a
    Python snippet (``code``), and what a correct run does."""

    name: str
    item: int
    template: str = ""
    data: Path | None = None
    hours: Path | None = None
    code: str = ""
    expect: str = "refuse"  # or "text": the cell named by ``cell`` holds ``text``
    cell: str = ""
    text: str = ""
    data_file: bool = True  # a DATA/payroll file (counted for the worst time and memory)
    extra: dict[str, object] = field(default_factory=dict)


#: The attacks, in the order :func:`attacks` makes them.
NAMES = (
    "yaml-alias-roster",
    "laughs-dict-withholdings",
    "laughs-list-employee-names",
    "unknown-keys-json",
    "dev-zero-as-data",
    "dev-zero-named-yaml",
    "yaml-500-nested",
    "json-1000-nested",
    "json-5000-digits",
    "directory-as-data",
    "payroll-csv-huge-field",
    "payroll-xlsx-month-true",
    "api-huge-int",
    "api-data-list",
    "api-data-bytes",
    "json-duplicate-key",
    "yaml-duplicate-key",
    "yaml-octal-entity-id",
    "yaml-no-client",
    "yaml-sexagesimal-money",
    "yaml-hex-count",
    "payroll-month-3.7",
    "payroll-hours-formula-uncached",
    "payroll-month-trailing-text",
    "payroll-date-trailing-text",
    "payroll-lookalike-names",
    "payroll-duplicate-hours-column",
    "payroll-hidden-first-sheet",
)


def _laughs(levels: int) -> str:
    """A billion-laughs list in YAML flow style: 9 ** levels strings from ~100 bytes a level."""
    parts = ["&a0 [" + ", ".join(["lol"] * 9) + "]"]
    for n in range(1, levels):
        parts.append(f"&a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]")
    return "[" + ", ".join(parts) + "]"


HOURS = "[" + ", ".join(["160"] * 12) + "]"


def attacks(folder: Path, scale: float = 1.0) -> list[Attack]:
    """Write every attack below ``folder``; ``scale`` (0-1] shrinks the large files."""
    folder.mkdir(parents=True, exist_ok=True)
    found: list[Attack] = []

    def put(name: str, text: str | bytes) -> Path:
        path = folder / name
        if isinstance(text, str):
            path.write_text(text, encoding="utf-8")
        else:
            path.write_bytes(text)
        return path

    def n(full: int) -> int:
        return max(10, int(full * scale))

    grant = "beip-grant-schedule"
    ertc = "ertc-form-313"
    # item 4: amplification
    lines = [f"Employees:\n- &e {{name: A, base: {HOURS}, year1: {HOURS}, year2: {HOURS}}}\n"]
    lines += ["- *e\n"] * n(12 * 1024 * 1024 // 5)
    found.append(Attack("yaml-alias-roster", 4, ertc, put("aliases.yaml", "".join(lines))))
    levels = 9 if scale >= 1 else 4
    found.append(
        Attack(
            "laughs-dict-withholdings",
            4,
            grant,
            put("laughs.yaml", f"Withholdings:\n- {{lol: {_laughs(levels)}}}\n"),
        )
    )
    found.append(
        Attack(
            "laughs-list-employee-names",
            4,
            ertc,
            put("names.yaml", f"EmployeeNames: [{_laughs(levels)}]\n"),
        )
    )
    keys = n(1_100_000)
    found.append(
        Attack(
            "unknown-keys-json",
            4,
            grant,
            put("keys.json", "{" + ",".join(f'"k{i:07d}":1' for i in range(keys)) + "}"),
        )
    )
    found.append(Attack("dev-zero-as-data", 4, grant, Path("/dev/zero")))
    zero = folder / "zero.yaml"
    if not zero.is_symlink():
        zero.symlink_to("/dev/zero")
    found.append(Attack("dev-zero-named-yaml", 4, grant, zero))
    # item 5: tracebacks
    found.append(Attack("yaml-500-nested", 5, grant, put("nested.yaml", "Term: " + "[" * 500)))
    found.append(
        Attack(
            "json-1000-nested",
            5,
            grant,
            put("nested.json", '{"Term": ' + "[" * 1000 + "]" * 1000 + "}"),
        )
    )
    found.append(
        Attack("json-5000-digits", 5, grant, put("digits.json", '{"Term": ' + "9" * 5000 + "}"))
    )
    directory = folder / "a-directory.yaml"
    directory.mkdir(exist_ok=True)
    found.append(Attack("directory-as-data", 5, grant, directory))
    field_csv = "employee,period,month,hours\n" + "x" * n(140_000) + ",base,1,8\n"
    if scale < 1:
        field_csv = "employee,period,month,hours\n" + "x" * 140_000 + ",base,1,8\n"
    found.append(
        Attack(
            "payroll-csv-huge-field",
            5,
            ertc,
            put("base.yaml", "OperationsStart: 2021-01-01\n"),
            put("field.csv", field_csv),
        )
    )
    found.append(
        Attack(
            "payroll-xlsx-month-true",
            5,
            ertc,
            folder / "base.yaml",
            _payroll_xlsx(folder / "true.xlsx", [["Alice", "base", True, 8]]),
        )
    )
    for label, code in (
        ("api-huge-int", 'fill("beip-grant-schedule", {"Term": 10**5000}, OUT)'),
        ("api-data-list", 'fill("beip-grant-schedule", [("Term", 5)], OUT)'),
        ("api-data-bytes", 'fill("beip-grant-schedule", b"Term: 5", OUT)'),
    ):
        found.append(Attack(label, 5, code=code, data_file=False))
    # item 6: silent re-readings
    found.append(Attack("json-duplicate-key", 6, grant, put("dup.json", '{"Term": 11, "Term": 5}')))
    found.append(Attack("yaml-duplicate-key", 6, grant, put("dup.yaml", "Term: 11\nTerm: 5\n")))
    found.append(
        Attack(
            "yaml-octal-entity-id",
            6,
            grant,
            put("entity.yaml", "engagement:\n  entity_id: 01234567\n"),
            expect="text",
            cell="EngagementEntityId",
            text="01234567",
        )
    )
    found.append(
        Attack(
            "yaml-no-client",
            6,
            grant,
            put("client.yaml", "engagement:\n  client: No\n"),
            expect="text",
            cell="EngagementClient",
            text="No",
        )
    )
    found.append(
        Attack("yaml-sexagesimal-money", 6, grant, put("sexa.yaml", "Withholdings: [11:40]\n"))
    )
    found.append(Attack("yaml-hex-count", 6, grant, put("hex.yaml", "Term: 0x5\n")))
    # item 7: payroll read exactly (each exits 0 today with a wrong roster)
    base = folder / "base.yaml"
    found.append(
        Attack(
            "payroll-month-3.7",
            7,
            ertc,
            base,
            _payroll_xlsx(folder / "m37.xlsx", [["Alice", "base", 3.7, 8]]),
        )
    )
    found.append(
        Attack(
            "payroll-hours-formula-uncached",
            7,
            ertc,
            base,
            _payroll_xlsx(folder / "formula.xlsx", [["Alice", "base", 3, "=4+4"]]),
        )
    )
    found.append(
        Attack(
            "payroll-month-trailing-text",
            7,
            ertc,
            base,
            put("junk.csv", "employee,month,hours\nAlice,2021-04 junk,8\n"),
        )
    )
    found.append(
        Attack(
            "payroll-date-trailing-text",
            7,
            ertc,
            base,
            put("junk2.csv", "employee,month,hours\nAlice,2021-05-31 xyz,8\n"),
        )
    )
    found.append(
        Attack(
            "payroll-lookalike-names",
            7,
            ertc,
            base,
            put(
                "alike.csv",
                "employee,period,month,hours\nAlice,base,1,8\nAlice\u200b,base,1,8\nALICE,base,1,8\n\uff21lice,base,1,8\n",
            ),
        )
    )
    found.append(
        Attack(
            "payroll-duplicate-hours-column",
            7,
            ertc,
            base,
            put("twice.csv", "employee,period,month,hours,hours\nAlice,base,1,8,100\n"),
        )
    )
    found.append(
        Attack(
            "payroll-hidden-first-sheet",
            7,
            ertc,
            base,
            _payroll_xlsx(folder / "hidden.xlsx", [["Alice", "base", 1, 8]], hidden_first=True),
            expect="text",
            cell="EmployeeNames",
            text="Alice",
        )
    )
    return found


def _payroll_xlsx(path: Path, rows: list[list[object]], hidden_first: bool = False) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    if hidden_first:
        sheet.title = "Old"
        sheet.append(["employee", "period", "month", "hours"])
        sheet.append(["Mallory", "base", 1, 744])
        sheet.sheet_state = "hidden"
        sheet = book.create_sheet("Payroll")
        book.active = 1
    sheet.append(["employee", "period", "month", "hours"])
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


# --------------------------------------------------------------------------- running


@dataclass
class Outcome:
    attack: Attack
    status: int | None
    seconds: float
    peak_mb: float
    stderr: str
    verdict: str = ""


CAP_BYTES = 2 * 1024**3
TIMEOUT = 90.0


def _cap() -> None:  # in the child: an address-space cap (the machine is shared)
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


def run(attack: Attack, out: Path, env: dict[str, str] | None = None) -> Outcome:
    """``attack`` in its own process under ``/usr/bin/time -v``: its outcome."""
    if out.exists():
        out.unlink()
    if attack.code:
        argv = [
            sys.executable,
            "-c",
            "import sys\nfrom nj_incentives.workpapers.fill import FillError, fill\n"
            f"OUT = {str(out)!r}\ntry:\n    {attack.code}\nexcept FillError as error:\n"
            "    print(error, file=sys.stderr)\n    sys.exit(error.status)\n",
        ]
    else:
        argv = [sys.executable, "-m", "nj_incentives.cli", "fill", attack.template]
        if attack.data is not None:
            argv.append(str(attack.data))
        if attack.hours is not None:
            argv += ["--hours", str(attack.hours)]
        argv += ["-o", str(out)]
    start = time.monotonic()
    import psutil

    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(
            ["/usr/bin/time", "-v", *argv],
            stdout=subprocess.DEVNULL,
            stderr=errors,
            preexec_fn=_cap,
            env=env,
            start_new_session=True,
        )
        sampled = 0
        status: int | None = None
        while True:
            try:
                status = child.wait(timeout=0.1)
                break
            except subprocess.TimeoutExpired:
                pass
            with contextlib.suppress(psutil.Error):
                sampled = max(
                    sampled,
                    sum(
                        p.memory_info().rss
                        for p in psutil.Process(child.pid).children(recursive=True)
                    ),
                )
            if time.monotonic() - start > TIMEOUT:
                os.killpg(child.pid, 9)  # the whole run: /usr/bin/time and the command
                child.wait()
                status = None
                break
        errors.seek(0)
        stderr = errors.read().decode(errors="replace")
    seconds = time.monotonic() - start
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    peak_mb = max(int(peak.group(1)) / 1024 if peak else 0, sampled / 1024**2)
    outcome = Outcome(attack, status, seconds, peak_mb, stderr)
    outcome.verdict = _verdict(outcome, out)
    return outcome


def _verdict(outcome: Outcome, out: Path) -> str:
    attack = outcome.attack
    text = re.sub(r"\tCommand being timed:.*", "", outcome.stderr, flags=re.S)
    if outcome.status is None:
        return "hang"
    if "Traceback (most recent call last)" in text or "Command terminated by signal" in text:
        return "traceback"
    if outcome.peak_mb > 1024 or outcome.seconds > 60:
        return "refused after > 1 GB or > 60 s" if outcome.status in (1, 2) else "traceback"
    if attack.expect == "text":
        if outcome.status != 0:
            return "refused (expected the text written)"
        import openpyxl

        book = openpyxl.load_workbook(out)
        ref = book.defined_names[attack.cell].attr_text.replace("$", "")
        sheet, cell = ref.split("!")
        cell = cell.split(":")[0]
        written = book[sheet.strip("'")][cell].value
        return "kept as typed" if str(written) == attack.text else f"wrong value ({written!r})"
    if outcome.status in (1, 2) and not out.exists():
        return "clear refusal"
    return "wrong value (exit 0)" if outcome.status == 0 else f"exit {outcome.status}"


def main() -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        outcomes = []
        for attack in attacks(folder / "attacks"):
            outcome = run(attack, folder / "out.xlsx")
            outcomes.append(outcome)
            last = [
                line
                for line in outcome.stderr.splitlines()
                if line.strip() and not line.startswith("\t") and "Command" not in line
            ]
            print(
                f"{attack.item:>2} {attack.name:<32} {outcome.status!s:>4} "
                f"{outcome.seconds:7.2f} s {outcome.peak_mb:8.0f} MB  {outcome.verdict}"
                f"  | {(last[-2] if len(last) > 1 else last[-1] if last else '')[:110]}",
                flush=True,
            )
        counts: dict[str, int] = {}
        for outcome in outcomes:
            key = (
                "clear refusal"
                if outcome.verdict in ("clear refusal", "kept as typed")
                else outcome.verdict
            )
            counts[key] = counts.get(key, 0) + 1
        files = [o for o in outcomes if o.attack.data_file]
        worst_time = max(files, key=lambda o: o.seconds)
        worst_memory = max(files, key=lambda o: o.peak_mb)  # sampled when killed
        print(json.dumps(counts))
        print(
            f"worst time {worst_time.seconds:.2f} s ({worst_time.attack.name}); "
            f"peak memory {worst_memory.peak_mb:.0f} MB ({worst_memory.attack.name})"
        )


if __name__ == "__main__":
    main()
