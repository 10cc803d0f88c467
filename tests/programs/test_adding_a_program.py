"""A statute is one folder: a throw-away program added to a copy of the package with its
folder and one line of the registry is found everywhere the package lists its programs.

The copy (``tmp_path/nj_incentives``) gets ``programs/toy/`` (its dated figure, its rule
that reads it, its function with the adapter that runs it and its ``explain`` topic, its
template of one input and one NJ_TOY_CREDIT line, its memo mapping, its scenario
section) and the key ``"toy"`` in the ``KEYS`` of ``programs/__init__.py``; nothing else
of the copy is edited, which the test checks file by file. A fresh interpreter with the
copy first on ``PYTHONPATH`` then finds the program in the catalog, the function table
and the Excel module (the plain callable, the Office.js metadata of
``nj_incentives.lite``), the generated ``docs/functions.md``, ``nj-incentives explain``
and ``NJ_EXPLAIN``, the template lists (the registry's, the shipped files', fill's), a
built template recalculated as ``calc`` does, the memo of a ``calc`` run (the statute,
the readings), the scenario table's columns and its section computed by the runner (the
kernel, and the scalar path for a row the kernel leaves), and its figure in the registry
of figures and the generated law-currency texts; a workbook of its template rolled forward
by its template's declared roll (``ROLL_FORWARD``) and filled (``fill``), both reaching it
through the registry.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "addin" / "nj_incentives"

#: The throw-away program: ``programs/toy/<file>`` -> its text.
TOY = {
    "__init__.py": '''
        """A throw-away program for the tests: a credit of a tenth of an amount."""

        from nj_incentives.core.program import Program

        PROGRAM = Program(
            key="toy",
            title="Toy credit",
            citation="N.J.S.A. 99:1-1",
            parts=("figures", "rules", "functions", "templates", "memo", "scenarios"),
        )
    ''',
    "figures.py": '''
        """The toy credit's dated figure: its rate, as its one act sets it."""

        import datetime as dt
        from decimal import Decimal

        from nj_incentives.core.parameters import (
            Selector,
            Version,
            declare_act,
            declare_figure,
            declare_statute,
        )

        declare_statute("toy", "Toy credit", "N.J.S.A. 99:1-1")
        BASE = declare_act("toy", "P.L.2099, c.1", dt.date(2099, 1, 1), source="the test")
        RATE = declare_figure(
            "toy.rate",
            "toy",
            "Share of the amount credited",
            "N.J.S.A. 99:1-1a.",
            Selector.FIXED,
            "fraction",
            Version(Decimal("0.1"), BASE),
        )
    ''',
    "rules.py": '''
        """The toy credit: a tenth of the amount, rounded down to the cent."""

        from __future__ import annotations

        from decimal import Decimal
        from functools import partial

        from nj_incentives.core.common import Explained
        from nj_incentives.core.inputs import as_money
        from nj_incentives.core.rules import EXACT, Rules, V, explain
        from nj_incentives.programs.toy import figures

        CITE = "N.J.S.A. 99:1-1a."
        RATE = figures.RATE.single


        def credit_rule(r: Rules, amount: V) -> V:
            return r.share(amount, RATE, label="Toy credit", cite=CITE)


        class ToyCredit(Explained):
            amount: Decimal


        def _steps(amount: Decimal):
            return explain(credit_rule, amount)[1]


        def toy_credit(amount: object) -> ToyCredit:
            base = as_money(amount, "amount", CITE)
            return ToyCredit(amount=EXACT.run(credit_rule, base), steps=partial(_steps, base))
    ''',
    "functions.py": '''
        """The toy credit's NJ_* function."""

        from nj_incentives.core.cells import money
        from nj_incentives.core.declarations import Catalog, ExplainTopic, single
        from nj_incentives.programs.toy import figures

        FUNCTIONS = Catalog()

        FUNCTIONS.calculation(
            "NJ_TOY_CREDIT",
            cite="N.J.S.A. 99:1-1a.",
            description=(
                f"Toy credit: {figures.RATE.brief()} of the amount, rounded down"
                " (N.J.S.A. 99:1-1a.)."
            ),
            example=(1234.56,),
            amount=single("The amount, dollars"),
        )


        @FUNCTIONS.adapter(show=lambda credit: money(credit.amount))
        def NJ_TOY_CREDIT(amount):
            from nj_incentives.programs.toy import rules

            return rules.toy_credit(amount)


        TOPICS = (
            ExplainTopic(
                "toy",
                "NJ_TOY_CREDIT",
                "nj_incentives.programs.toy.rules:toy_credit",
                positional=("amount",),
            ),
        )
    ''',
    "templates/__init__.py": '''
        """The toy credit's template."""

        TEMPLATES = {"toy-credit": "credit"}
    ''',
    "templates/credit.py": '''
        """The toy credit's workpaper: the amount, and the credit NJ_TOY_CREDIT computes."""

        from nj_incentives.core.workpaper import Item, Kind, RolledPeriod, RollForward, Workpaper

        TEMPLATE_ID = "toy-credit"
        EXAMPLE = {"amount": 1234.56}


        def roll(values, last):
            values["Amount"] = last.names["ToyCredit"]  # last year's credit, this year's amount
            return RolledPeriod("year 1", "year 2", [f"Amount = {values['Amount']}"], 1)


        ROLL_FORWARD = RollForward(
            carried=(("ToyCredit", "Amount", "N.J.S.A. 99:1-1a."),),
            new_period=(),
            roll=roll,
            engagement_period=lambda values, current: f"Year {current}",
        )


        def workpaper(values=None):
            return Workpaper(
                TEMPLATE_ID,
                "Toy credit",
                "The toy credit of an amount (N.J.S.A. 99:1-1a.).",
                (
                    Item("Amount", "Amount", Kind.MONEY, "$", key="amount"),
                    Item("Toy credit", "ToyCredit", Kind.MONEY, "$", "NJ_TOY_CREDIT(Amount)"),
                ),
                values or {},
            )
    ''',
    "memo.py": '''
        """Which readings of docs/interpretations.md the toy credit rests on."""

        from nj_incentives.core.interpretations import ROUNDING

        INTERPRETATIONS = {"NJ_TOY_CREDIT": ROUNDING}
    ''',
    "scenarios.py": '''
        """The toy credit's section of the scenario table: its input column, its result
        column and its computation, the rule credit_rule run twice: by the int64 evaluator
        over many rows (the kernel) and through toy_credit for one row (the scalar path,
        which gives a row's error)."""

        import numpy as np

        from nj_incentives.core.scenario_inputs import InputSpec, Kind, money_input
        from nj_incentives.core.scenario_sections import (
            INT64,
            OutKind,
            OutputSpec,
            Section,
            SectionOut,
        )
        from nj_incentives.programs.toy import rules

        INPUTS = (
            InputSpec("toy_amount", Kind.MONEY, "toy", "The amount.", money_input("99:1-1a.")),
        )


        def outputs(layout):
            return [OutputSpec("toy_credit", OutKind.MONEY, "toy", "The toy credit.")]


        def kernel(chunk, layout, done):
            amount = chunk.col("toy_amount")
            present = chunk.present("toy")
            fast = present & amount.ok
            credit = np.asarray(rules.credit_rule(INT64, amount.values))
            return SectionOut(present, fast, {"toy_credit": (credit, fast)})


        def row(values, layout):
            return {"toy_credit": rules.toy_credit(values.get("toy_amount")).amount}


        SECTIONS = (Section("toy", outputs, kernel, row),)
    ''',
}

#: What the fresh interpreter checks, printing one line per place the program is found.
CHECKS = r"""
import io
import nj_incentives
import contextlib
import xlwings
import xlwings.server

from nj_incentives.functions import catalog, reference
from nj_incentives.runtimes import xlwings_classic as excel
from nj_incentives import lite
from nj_incentives.cli import main
from nj_incentives.cli.explain import TOPICS
from nj_incentives.workpapers.memo.interpretations import INTERPRETATIONS
from nj_incentives.scenarios import columns

from nj_incentives.core import parameters as P
from nj_incentives.support import law_currency

assert P.PARAMETERS["toy.rate"].statute == "toy"
block = law_currency.blocks()["amendments-toy"]
assert "P.L.2099, c.1" in block and "`programs/toy/figures.py`" in block, block
print("figures", P.PARAMETERS["toy.rate"].text())

entry = catalog.CALCULATIONS["NJ_TOY_CREDIT"]
assert entry.description.startswith("Toy credit: 10% of the amount"), entry
assert entry.citation == "N.J.S.A. 99:1-1a.", entry
print("catalog", list(catalog.CALCULATIONS).index("NJ_TOY_CREDIT"))

assert excel.FUNCTIONS["NJ_TOY_CREDIT"](1234.56) == 123.45
try:  # the module's function, as Office.js calls it: a bad input is the runtime's error
    excel.NJ_TOY_CREDIT(-1)
    raise AssertionError("NJ_TOY_CREDIT(-1) gave a value")
except xlwings.XlwingsError as error:
    assert str(error) == "amount = -1: must not be negative (N.J.S.A. 99:1-1a.)", error
print("excel", excel.CATALOG["NJ_TOY_CREDIT"].cells(1234.56))

meta = xlwings.server.custom_functions_meta(lite)
found = [f for f in meta["functions"] if f["id"] == "NJ_TOY_CREDIT"]
assert found and found[0]["description"] == entry.description, found
print("office.js", [p["name"] for p in found[0]["parameters"]])

text = reference.render()
section = text.split("\n## NJ_TOY_CREDIT\n", 1)[1].split("\n## ", 1)[0]
assert "**Example:** `=NJ_TOY_CREDIT(1234.56)` returns `123.45`." in section, section
print("docs", "| [NJ_TOY_CREDIT](#nj_toy_credit) | N.J.S.A. 99:1-1a. |" in text)

assert "toy" in TOPICS
out = io.StringIO()
with contextlib.redirect_stdout(out):
    assert main(["explain", "toy", "1234.56"]) == 0
shown = out.getvalue()
assert "amount: 123.45" in shown and "[N.J.S.A. 99:1-1a.]" in shown, shown
print("explain", shown.splitlines()[0])

explained = excel.FUNCTIONS["NJ_EXPLAIN"]("NJ_TOY_CREDIT", 1234.56)
assert explained[1][3] == "N.J.S.A. 99:1-1a.", explained
print("NJ_EXPLAIN", explained[1][:2])

from pathlib import Path
from nj_incentives import programs
from nj_incentives.support import shipped
from nj_incentives.workpapers import fill
from nj_incentives.workpapers.recalc.engine import recalculate
from nj_incentives.workpapers.templates.builder import build_template

assert list(programs.templates())[-1] == "toy-credit"
assert shipped.TEMPLATES[-1] == "toy-credit.xlsx" and fill.TEMPLATE_IDS[-1] == "toy-credit"
template = programs.template("toy-credit")
built = build_template(template, "toy.xlsx", template.EXAMPLE)
print("template", recalculate(built).names["ToyCredit"])

# the build's copy of the template (as the wheel's build makes it): how a workbook of it is
# recognised
shipped.shipped_file("toy-credit.xlsx").parent.mkdir(exist_ok=True)
build_template(template, shipped.shipped_file("toy-credit.xlsx"), {})
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    code = main(["rollforward", str(built), "-o", "rolled.xlsx"])
assert code == 0, err.getvalue()
assert "carried: Amount = 123.45" in out.getvalue(), out.getvalue()
rolled = recalculate(Path("rolled.xlsx")).names
print("rollforward", rolled["ToyCredit"])

Path("toy.json").write_text('{"Amount": 10}', encoding="utf-8")
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    assert main(["fill", "toy-credit", "toy.json", "-o", "filled.xlsx"]) == 0, err.getvalue()
    hours = ["fill", "toy-credit", "toy.json", "--hours", "toy.json", "-o", "no.xlsx"]
    assert main(hours) == 2  # payroll hours fill a template with a roster only
assert "payroll hours fill the ertc-form-313 roster, not toy-credit" in err.getvalue(), err
print("fill", recalculate(Path("filled.xlsx")).names["ToyCredit"])

with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    assert main(["calc", str(built), "--memo", "memo.md", "-o", "results"]) == 0
memo = Path("memo.md").read_text(encoding="utf-8")
assert "| N.J.S.A. 99:1-1 (Toy credit) | P.L.2099, c.1 (2099-01-01) |" in memo, memo
assert "- Rounding of money (applied by NJ_TOY_CREDIT)" in memo, memo
print("memo", INTERPRETATIONS["NJ_TOY_CREDIT"])

assert columns.SECTIONS[-1] == "toy"
columns.check_columns(["id", "toy_amount"])
import pandas as pd
from nj_incentives.scenarios import kernel as scenario_kernel, run_scenarios
from nj_incentives.scenarios.runner import _run_frame, plan_layout

frame = pd.DataFrame({"id": [1, 2, 3], "toy_amount": [1234.56, -1.0, None]})
computed = columns.section_of("toy").kernel(scenario_kernel.Chunk(frame), None, {})
assert computed.fast.tolist() == [True, False, False], computed  # row 2: the scalar path's
result = run_scenarios(frame, money="cents")
exact = _run_frame(frame, plan_layout(frame), money="cents", force_scalar=True)
for found in (result, exact):
    assert list(found.columns) == ["id", "error", "toy_credit"], found.columns
    assert found["toy_credit"].tolist()[:1] == [12345] and found["toy_credit"].isna().tolist() == [
        False, True, True
    ], found
    assert found["error"].tolist()[::2] == [None, None], found
    assert "must not be negative" in found["error"][1], found
print("scenarios", columns.column_spec("toy_amount").section, result["toy_credit"][0])
print("package", nj_incentives.__file__)
"""


def _files(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


@pytest.mark.slow
def test_a_program_is_its_folder_and_one_registry_line(tmp_path: Path) -> None:
    copy = tmp_path / "nj_incentives"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = _files(copy)

    folder = copy / "programs" / "toy"
    for name, text in TOY.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    registry = copy / "programs" / "__init__.py"
    old = registry.read_text(encoding="utf-8")
    # the key appended as the last line of KEYS (whichever program is last today)
    head, keys_open, rest = old.partition("KEYS = (\n")
    assert keys_open, "no KEYS tuple in the registry"
    keys, closing, tail = rest.partition("\n)\n")
    assert closing
    assert keys.strip().startswith('"beip"')
    registry.write_text(f'{head}{keys_open}{keys}\n    "toy",{closing}{tail}', encoding="utf-8")

    # Files touched: the program's folder and the registry, whose change is one line.
    after = _files(copy)
    touched = {name for name in after if before.get(name) != after[name]}
    assert touched == {"programs/__init__.py", *(f"programs/toy/{name}" for name in TOY)}
    changed = [
        line
        for line in difflib.unified_diff(
            old.splitlines(), registry.read_text(encoding="utf-8").splitlines(), lineterm=""
        )
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert changed == ['+    "toy",']

    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "XLWINGS_LICENSE_KEY": "noncommercial",
        "XLWINGS_ON_SERVER": "true",
    }
    done = subprocess.run(
        [sys.executable, "-c", CHECKS], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert list(found) == [
        "figures",
        "catalog",
        "excel",
        "office.js",
        "docs",
        "explain",
        "NJ_EXPLAIN",
        "template",
        "rollforward",
        "fill",
        "memo",
        "scenarios",
        "package",
    ]
    assert found["figures"] == "10%"
    assert found["excel"] == "123.45"
    assert found["office.js"] == "['amount']"
    assert found["docs"] == "True"
    assert found["template"] == "123.45"
    assert found["rollforward"] == "12.34"  # 10% of last year's credit (123.45), carried in
    assert found["fill"] == "1.0"
    assert found["memo"] == "('Rounding of money',)"
    assert found["scenarios"] == "toy 12345"
    assert Path(found["package"]).parent == copy  # the copy ran, not the repository's package
