"""The template builder (issue 5): FAST/ICAEW layout, protection, validation, the
xlwings.conf sheet, determinism, and a tiny demo template recalculated headlessly.

The committed demo is ``tests/data/builder_demo.xlsx``; after a deliberate change to the
builder, regenerate it with ``python tests/workpapers/templates/test_builder.py``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from nj_incentives import LAW_CURRENT_TO, __version__, programs
from nj_incentives.core import workpaper
from nj_incentives.core.workpaper import (
    CALCULATIONS,
    NOT_COMPUTED,
    OUTPUTS,
    ArrayTable,
    Chart,
    Check,
    Column,
    FormulaTable,
    InputTable,
    Item,
    Kind,
    Note,
    Section,
    Skip,
    Span,
    Spill,
    Title,
    Total,
)
from nj_incentives.functions.inputs_hash import inputs_hash
from nj_incentives.workpapers.recalc import recalculate, write_values
from nj_incentives.workpapers.templates.builder import (
    INPUT_FILL,
    UDF_MODULE,
    Ref,
    TemplateBuilder,
    build_template,
    fingerprint,
)

COMMITTED = Path(__file__).resolve().parents[2] / "data" / "builder_demo.xlsx"
YEARS = [f"Year {n}" for n in range(1, 6)]


def build_demo(path: Path, pct: object = 0.5, namespace: str = "") -> Path:
    """A tiny template: amounts per year x a percentage, through one table function."""
    with TemplateBuilder(
        path, title="Builder demo", template_id="builder-demo", function_namespace=namespace
    ) as b:
        b.about("Shows the builder: a grant of a percentage of yearly amounts.")
        inputs = b.inputs
        inputs.title("Inputs", "Type only in the yellow cells.")
        inputs.section("Agreement")
        inputs.input(
            "Grant percentage", "GrantPct", Kind.PERCENT, "%", pct, help="A fraction: 50% is 0.5"
        )
        inputs.input("Agreement date", "AgreementDate", Kind.DATE, "date", dt.date(2024, 1, 1))
        inputs.input(
            "Basis",
            "Basis",
            Kind.CHOICE,
            "choice",
            "withholdings",
            choices=["withholdings", "partners"],
        )
        inputs.input("Smart growth area", "SmartGrowth", Kind.YESNO, "yes/no", False)
        inputs.section("Per year")
        inputs.input_table(
            YEARS,
            [
                Column("Amount", Kind.MONEY, "$", name="Amounts"),
                Column("Employees", Kind.COUNT, "people", name="Employees"),
            ],
            {"Amount": [100000, 200000, 300000], "Employees": [10, 20, 30]},
        )
        calc = b.calculations
        calc.title("Calculations")
        table = calc.array_table(
            f"{b.fn('NJ_DEMO_SCHEDULE')}(Amounts,GrantPct)",
            [
                Column("Year", Kind.COUNT),
                Column("Grant", Kind.MONEY, "$"),
                Column("Cumulative", Kind.MONEY, "$"),
            ],
            rows=len(YEARS),
            label="Grant schedule",
            row_labels=YEARS,
        )
        total = calc.total("Total grant", table.body().column(1), name="TotalGrant")
        outputs = b.outputs
        outputs.title("Outputs")
        outputs.formula("Total grant", "TotalGrant", Kind.MONEY, "$", role="output")
        outputs.chart(
            "Grant by year",
            table.body().column(0),
            [("Grant", table.body().column(1))],
            y_title="$",
        )
        b.check_numbers("The schedule holds numbers only", table.body())
        b.check_equal(
            "The last cumulative grant equals the total",
            f"MAX({table.body().column(2).a})",
            total.a,
        )
    return path


def demo_schedule(amounts: Any, pct: Any) -> list[list[Any]]:
    """The demo's table function: Year, Grant (amount x pct), Cumulative."""
    if isinstance(pct, bool) or not isinstance(pct, (int, float)) or not 0 <= pct <= 1:
        raise ValueError(f"pct = {pct!r}: must be a fraction (50% = 0.5)")
    rows: list[list[Any]] = [["Year", "Grant", "Cumulative"]]
    total = Decimal(0)
    for year, (amount,) in enumerate(amounts, 1):
        if amount is None:
            break
        grant = Decimal(str(amount)) * Decimal(str(pct))
        total += grant
        rows.append([year, grant, total])
    return rows


#: the demo's function, and the inputs hash every template's sign-off reads
FUNCTIONS = {"NJ_DEMO_SCHEDULE": demo_schedule, "NJ_INPUTS_HASH": inputs_hash}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo(tmp_path_factory.mktemp("demo") / "demo.xlsx")


def test_sheets_follow_the_fast_order(demo: Path) -> None:
    book = openpyxl.load_workbook(demo)
    assert book.sheetnames == [
        "About",
        "Inputs",
        "Calculations",
        "Outputs",
        "Checks",
        "xlwings.conf",
    ]


def test_every_sheet_is_protected_and_only_inputs_are_unlocked(demo: Path) -> None:
    book = openpyxl.load_workbook(demo)
    unlocked = []
    for sheet in book.worksheets:
        assert sheet.protection.sheet, sheet.title
        assert not sheet.protection.password, sheet.title
        for row in sheet.iter_rows():
            for cell in row:
                if not cell.protection.locked:
                    unlocked.append(f"{sheet.title}!{cell.coordinate}")
    # the 3 engagement fields (C6:C8), the 7 sign-off fields (C11:C17: preparer, prepared
    # on, hash, reviewer, reviewed on, hash, date), 4 single inputs (C29:C32) each with
    # its tickmark (D) and source (E), and 5 years x 2 columns (C36:D40; the demo's table
    # names no column: no source column)
    engagement = [f"Inputs!C{r}" for r in range(6, 9)]
    signoff = [f"Inputs!C{r}" for r in range(11, 18)]
    singles = [f"Inputs!{c}{r}" for r in range(29, 33) for c in "CDE"]
    table = [f"Inputs!{c}{r}" for r in range(36, 41) for c in "CD"]
    assert sorted(unlocked) == sorted(engagement + signoff + singles + table)


def test_every_input_has_the_input_style_and_validation(demo: Path) -> None:
    sheet = openpyxl.load_workbook(demo)["Inputs"]
    validated = set()
    for dv in sheet.data_validations.dataValidation:
        for rng in dv.sqref.ranges:
            for row in sheet[rng.coord] if ":" in rng.coord else [[sheet[rng.coord]]]:
                for cell in row:
                    validated.add(cell.coordinate)
    for row in sheet.iter_rows():
        for cell in row:
            if not cell.protection.locked:
                assert cell.fill.fgColor.rgb == "FF" + INPUT_FILL[1:].upper(), cell.coordinate
                assert cell.font.color.rgb == "FF0000FF", cell.coordinate
                assert cell.coordinate in validated, cell.coordinate
    assert sheet["B29"].value == "%"  # units beside every input
    assert sheet["C29"].number_format == "0.00%"
    assert sheet["C30"].number_format == "yyyy-mm-dd"


def test_percent_validation_rejects_whole_numbers(demo: Path) -> None:
    sheet = openpyxl.load_workbook(demo)["Inputs"]
    rules = {str(dv.sqref): dv for dv in sheet.data_validations.dataValidation}
    pct = rules["C29"]
    assert (pct.type, pct.formula1, pct.formula2) == ("decimal", "0", "1")  # between 0% and 100%
    assert "not 50" in pct.error
    assert rules["C31"].type == "list"
    assert rules["C31"].formula1 == '"withholdings,partners"'
    assert rules["C32"].formula1 == '"Yes,No"'


def test_config_sheet_names_the_udf_module(demo: Path) -> None:
    sheet = openpyxl.load_workbook(demo)["xlwings.conf"]
    assert (sheet["A1"].value, sheet["B1"].value) == ("UDF Modules", UDF_MODULE)
    assert sheet["A2"].value is None  # nothing else overrides the add-in's settings


def test_about_sheet_states_version_and_law(demo: Path) -> None:
    sheet = openpyxl.load_workbook(demo)["About"]
    text = {str(c.value) for row in sheet.iter_rows() for c in row if c.value}
    assert f"nj-incentives {__version__}" in text
    assert LAW_CURRENT_TO in text
    assert any("Import Functions" in t for t in text)
    assert any("nj-incentives calc" in t for t in text)


def test_the_table_function_is_one_array_formula(demo: Path) -> None:
    book = openpyxl.load_workbook(demo)
    formula = book["Calculations"]["C7"].value
    assert formula.ref == "C7:E12"
    assert formula.text == "=NJ_DEMO_SCHEDULE(Amounts,GrantPct)"
    assert book["Calculations"]["D6"].value == "$"  # units above the table
    assert book.defined_names["MasterCheck"].attr_text == "Checks!$C$5"


def test_rebuilds_are_identical(demo: Path, tmp_path: Path) -> None:
    again = build_demo(tmp_path / "again.xlsx")
    assert again.read_bytes() == demo.read_bytes()


def test_the_committed_demo_is_current(demo: Path) -> None:
    assert COMMITTED.exists(), "run: python tests/workpapers/templates/test_builder.py"
    assert fingerprint(demo) == fingerprint(COMMITTED), (
        "the builder's output changed: if on purpose, run"
        " python tests/workpapers/templates/test_builder.py"
    )


def test_fingerprint_sees_a_changed_input(demo: Path, tmp_path: Path) -> None:
    changed = build_demo(tmp_path / "changed.xlsx", pct=0.4)
    assert fingerprint(changed) != fingerprint(demo)


@pytest.mark.recalc
def test_the_demo_recalculates_headlessly(demo: Path, tmp_path: Path) -> None:
    result = recalculate(demo, FUNCTIONS)
    # grants: 100,000 x 50% = 50,000; 200,000 x 50% = 100,000; 300,000 x 50% = 150,000
    assert result.value("Calculations!C7:E7") == [["Year", "Grant", "Cumulative"]]
    assert result.value("Calculations!D8:D10") == [[50000.0], [100000.0], [150000.0]]
    assert result.value("Calculations!D11:E12") == [[None, None], [None, None]]
    assert result.value("TotalGrant") == 300000.0  # 50,000 + 100,000 + 150,000
    assert result.value("Outputs!C5") == 300000.0
    assert result.value("MasterCheck") is True
    out = write_values(result, tmp_path / "demo.results.xlsx")
    assert openpyxl.load_workbook(out)["Outputs"]["C5"].value == 300000


@pytest.mark.recalc
def test_a_bad_input_fails_the_master_check_with_the_message(tmp_path: Path) -> None:
    bad = build_demo(tmp_path / "bad.xlsx", pct=50)
    result = recalculate(bad, FUNCTIONS)
    assert result.value("Calculations!C7") == "pct = 50: must be a fraction (50% = 0.5)"
    assert result.value("MasterCheck") is False
    # the table's own check fails; its body is blank (no number in it is wrong); the total
    # is not computed, so the check that uses it fails too
    assert result.value("Checks!C12:C14") == [[False], [True], [False]]
    assert result.value("TotalGrant") == NOT_COMPUTED  # not a total of 0
    assert result.error_cells()[0][0] == "Calculations!C7"


@pytest.mark.recalc
def test_office_js_namespace(tmp_path: Path) -> None:
    path = build_demo(tmp_path / "officejs.xlsx", namespace="XLWINGS")
    formula = openpyxl.load_workbook(path)["Calculations"]["C7"].value
    assert formula.text == "=XLWINGS.NJ_DEMO_SCHEDULE(Amounts,GrantPct)"
    assert recalculate(path, FUNCTIONS).value("MasterCheck") is True


def test_names_that_read_as_cells_are_refused(tmp_path: Path) -> None:
    builder = TemplateBuilder(tmp_path / "names.xlsx", title="x", template_id="x")
    for name in ("TAX2023", "A1", "R1C1", "two words"):
        with pytest.raises(ValueError, match="cannot be a defined name"):
            builder.define_name(name, Ref("Inputs", 0, 0))
    builder.define_name("Tax", Ref("Inputs", 0, 0))
    with pytest.raises(ValueError, match="already defined"):
        builder.define_name("TAX", Ref("Inputs", 1, 0))
    builder.close()


if __name__ == "__main__":
    COMMITTED.parent.mkdir(parents=True, exist_ok=True)
    print(build_demo(COMMITTED))


def test_a_repeated_header_is_the_sheet_s_only_table_below_the_band(tmp_path: Path) -> None:
    """Excel repeats one set of rows per sheet: a table whose header repeats on every
    printed page must open its own sheet; its header and units rows join the print titles."""
    with TemplateBuilder(
        tmp_path / "roster.xlsx", title="Roster", template_id="roster", input_sheets=["Roster"]
    ) as builder:
        roster = builder.input_sheets["Roster"]
        roster.title("Roster")
        columns = [Column("Hours", Kind.NUMBER, "hours", minimum=0, maximum=744)]
        roster.input_table(["Row 1", "Row 2"], columns, repeat_header=True)
        with pytest.raises(ValueError, match="the sheet's only one"):
            roster.input_table(["Row 1"], columns, repeat_header=True)
        builder.inputs.title("Inputs")
        builder.inputs.section("Other inputs")
        with pytest.raises(ValueError, match="right below the engagement band"):
            builder.inputs.input_table(["Row 1"], columns, repeat_header=True)
    book = openpyxl.load_workbook(tmp_path / "roster.xlsx")
    assert book.sheetnames[:3] == ["About", "Inputs", "Roster"]
    # rows 1-3 (title, subtitle, band), a blank row, the header and the units row
    assert book["Roster"].print_title_rows == "$1:$6"
    assert book["Inputs"].print_title_rows == "$1:$3"
    with pytest.raises(ValueError, match="cannot be an input sheet"):
        TemplateBuilder(tmp_path / "x.xlsx", title="x", template_id="x", input_sheets=["Checks"])


@pytest.mark.recalc
def test_a_table_of_formulas_reads_its_own_cells_by_header(tmp_path: Path) -> None:
    """No address computed by hand: [[cell:H]] is the same row's cell of column H, and a
    Spill is one dynamic-array formula over the cells it covers (None)."""
    path = tmp_path / "table.xlsx"
    with TemplateBuilder(path, title="Table", template_id="table") as builder:
        builder.inputs.title("Inputs")
        amounts = builder.inputs.input_table(
            ["Row 1", "Row 2"],
            [Column("Amount", Kind.MONEY, "$", name="Amounts")],
            {"Amount": [100, 250]},
        )["Amount"]
        calc = builder.calculations
        calc.title("Calculations")
        table = calc.formula_table(
            [
                Column("Year", Kind.YEAR, role="label"),
                Column("Amount", Kind.MONEY, "$"),
                Column("Twice", Kind.MONEY, "$", name="Twice"),
                Column("Copy", Kind.MONEY, "$"),
            ],
            [
                [2024, amounts.cell(0).a, "2*[[cell:Amount]]", Spill("[[column:Amount]]", 1, 2)],
                [2025, amounts.cell(1).a, "2*[[cell:Amount]]", None],
            ],
            label_header="Row",
        )
        with pytest.raises(ValueError, match="no formula"):
            calc.formula_table([Column("A", Kind.MONEY)], [[None]])
        with pytest.raises(KeyError):
            calc.formula_table([Column("A", Kind.MONEY)], [["[[cell:B]]"]])
    twice = table["Twice"]
    sheet = openpyxl.load_workbook(path)["Calculations"]
    amount = table["Amount"]
    assert sheet.cell(twice.row + 1, twice.col + 1).value == f"=2*{amount.cell(0).local}"
    assert sheet.cell(twice.row + 2, twice.col + 1).value == f"=2*{amount.cell(1).local}"
    assert table.header.cell(0, 0).row == twice.row - 2  # the header, above the units
    result = recalculate(path)
    assert result.value("Twice") == [[200.0], [500.0]]
    copy = table["Copy"]
    assert result.value(copy.a) == [[100.0], [250.0]]


def test_line_items_are_interpreted_by_the_builder(tmp_path: Path) -> None:
    """A template declares its inputs and figures as line items; the builder writes each
    on its sheet (section, label, units, value, validation, name) and spells the NJ_*
    functions for the runtime."""
    path = tmp_path / "items.xlsx"
    items = (
        Section("Terms"),
        Item("Grant percentage", "Pct", Kind.PERCENT, "%", key="pct", help="As agreed."),
        Item("Smart growth", "Smart", Kind.YESNO, "yes/no", key="smart", default=False),
        Item("Seller is transferee", "Seller", Kind.YESNO, "yes/no", key="seller"),
        Note("A note below the inputs."),
        Skip(),
        Item("Limits", "Limits", Kind.TEXT, "", 'NJ_BEIP_PCT_LIMITS("withholdings",Smart)'),
        Item("Half", None, Kind.PERCENT, "%", "Pct/2", role="output", sheet=OUTPUTS),
    )
    with TemplateBuilder(
        path, title="Items", template_id="items", function_namespace="XLWINGS"
    ) as builder:
        builder.inputs.title("Inputs")
        builder.calculations.title("Calculations")
        builder.outputs.title("Outputs")
        found = builder.lay_out(items, {"pct": 0.5, "seller": "No"})
        with pytest.raises(ValueError, match="needs a name"):
            builder.lay_out([Item("Nameless", None, Kind.MONEY, "$")])
        with pytest.raises(ValueError, match="not a sheet of line items"):
            builder.lay_out([Skip(sheet="Checks")])
    assert set(found) == {"Pct", "Smart", "Seller", "Limits"}
    book = openpyxl.load_workbook(path)
    inputs = book["Inputs"]
    pct = found["Pct"]
    assert inputs.cell(pct.row + 1, 1).value == "Grant percentage"
    assert inputs.cell(pct.row + 1, 3).value == 0.5
    assert inputs.cell(pct.row, 1).value == "Terms"  # the section above
    smart, seller = found["Smart"], found["Seller"]
    assert inputs.cell(smart.row + 1, 3).value == "No"  # False, the default
    assert inputs.cell(seller.row + 1, 3).value == "No"  # a "No" stays No
    limits = found["Limits"]
    formula = book["Calculations"].cell(limits.row + 1, 3).value
    assert formula == '=XLWINGS.NJ_BEIP_PCT_LIMITS("withholdings",Smart)'
    assert book["Outputs"]["C5"].value == "=Pct/2"
    assert book.defined_names["Pct"].attr_text == pct.a


@pytest.mark.recalc
def test_tables_and_checks_are_declarations_the_builder_places(tmp_path: Path) -> None:
    """Input, array and formula tables, totals, charts and checks are declared; formulas
    name the ranges they read ([[at:Amounts:row]], [[data:Grants:Grant]]) and the builder
    writes the addresses: no row counted in a template."""
    path = tmp_path / "declared.xlsx"
    items = (
        Title("Inputs", "Type only in the yellow cells."),
        Item("Grant percentage", "Pct", Kind.PERCENT, "%", key="pct"),
        InputTable(
            ("Year 1", "Year 2", "Year 3"),
            (
                Column("Amount", Kind.MONEY, "$", name="Amounts", key="amounts"),
                Column("Other", Kind.MONEY, "$", name="Others", key="others", default=0),
                Column("Bonus", Kind.MONEY, "$", name="Bonuses", key="bonus"),
            ),
            row_keys=(2024, 2025, 2026),
            spans=(Span("AmountsAndOthers", "Amount", "Other"),),
            name="Given",
        ),
        Title("Calculations", sheet=CALCULATIONS),
        FormulaTable(
            (Column("Grant", Kind.MONEY, "$"), Column("Twice", Kind.MONEY, "$")),
            tuple(("[[at:Amounts:row]]*Pct", "2*[[cell:Grant]]") for _ in range(3)),
            row_labels=("Year 1", "Year 2", "Year 3"),
            name="Grants",
        ),
        ArrayTable(
            'NJ_BEIP_PCT_LIMITS("withholdings",FALSE)',
            (Column("Minimum", Kind.PERCENT, "%"), Column("Maximum", Kind.PERCENT, "%")),
            rows=1,
            header_from_function=False,
            name="Limits",
        ),
        Total("Total grant", "[[data:Grants:Grant]]", name="TotalGrant"),
        Item("Second year's grant", "Second", Kind.MONEY, "$", "[[at:Grants:Grant:1]]"),
        Title("Outputs", sheet=OUTPUTS),
        Chart("Grants", "[[data:Given:Amount]]", (("Grant", "[[data:Grants:Grant]]"),)),
        # the table's two columns: grant + twice the grant = 3 x the total
        Check.equal("The grants add up", "[[name:TotalGrant]]", "SUM([[data:Grants]])/3"),
        Check.at_most("The grant is at most the amounts", "TotalGrant", "SUM(Amounts)"),
        Check.numbers("The grants are numbers", "[[columns:Grants:Grant:Twice]]"),
        Check("Later years", "COUNT([[data:Grants:Grant:1:]])=2", "a citation"),
    )
    with TemplateBuilder(path, title="Declared", template_id="declared") as builder:
        builder.lay_out(items, {"pct": 0.5, "amounts": {2024: 100, 2026: 300}})
        grants = builder.lookup("[[data:Grants:Grant]]")
        amounts = builder.lookup("[[name:Amounts]]")
        assert builder.lookup("[[at:Amounts:2]]") == amounts.cell(2, 0)
        assert builder.lookup("[[data:Grants:Grant::-1]]").rows == 2
        assert builder.refs["AmountsAndOthers"].cols == 2
        for bad, why in (
            ("[[data:Nothing]]", "no table named 'Nothing'"),
            ("[[at:Amounts:row]]", "'row' outside a table"),
            ("[[data:Grants:Nope]]", "no column 'Nope'"),
            ("Amounts", "not one reference"),
        ):
            with pytest.raises(ValueError, match=why):
                builder.lookup(bad)
        with pytest.raises(ValueError, match="two tables"):
            builder.lay_out([FormulaTable((Column("A", Kind.MONEY),), (("1",),), name="Grants")])
    sheet = openpyxl.load_workbook(path)["Calculations"]
    # row 2's grant reads row 2's amount, by the builder's address
    assert sheet.cell(grants.row + 2, grants.col + 1).value == f"={amounts.cell(1, 0).a}*Pct"
    labels = [check.label for check in builder.checks]
    assert labels[-4:] == [
        "The grants add up",
        "The grant is at most the amounts",
        "The grants are numbers",
        "Later years",
    ]
    later = Ref(grants.sheet, grants.row + 1, grants.col, grants.bottom, grants.col)
    assert builder.checks[-1].formula == f"COUNT({later.a})=2"
    result = recalculate(path)
    # 100 x 50% = 50, a blank amount 0, 300 x 50% = 150: total 200
    assert result.value("TotalGrant") == 200.0
    assert result.value("Second") == 0.0
    assert result.value("Others") == [[0.0], [0.0], [0.0]]  # the default, every row
    assert result.value("MasterCheck") is True


@pytest.mark.parametrize("template_id", list(programs.templates()))
def test_a_template_is_declared_and_touches_no_worksheet(template_id: str) -> None:
    """A template is a tuple of line items the engine lays out: its module (a program's
    ``templates`` part) imports no engine, no xlsxwriter and nothing that places cells
    (no SheetWriter, no Ref, no nth_cell: it counts no rows), and says what to write as
    a :class:`Workpaper` of those line items."""
    import ast

    loaded = programs.template(template_id)
    tree = ast.parse(Path(loaded.__file__ or "").read_text(encoding="utf-8"))
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert not {name for name in imported if name.startswith(("xlsxwriter", "openpyxl"))}
    assert not {name for name in imported if name.startswith("nj_incentives.workpapers")}
    names = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert names.isdisjoint({"SheetWriter", "Ref", "nth_cell", "TableRefs", "TemplateBuilder"})
    kinds = workpaper.LineItem.__args__  # type: ignore[attr-defined]
    assert all(isinstance(item, kinds) for item in loaded.TEMPLATE)
    assert any(isinstance(item, workpaper.Check) for item in loaded.TEMPLATE)
    blank = loaded.workpaper()
    assert isinstance(blank, workpaper.Workpaper)
    assert blank.template_id == template_id
    assert blank.items == loaded.TEMPLATE


def test_a_full_disk_leaves_no_zip_open(monkeypatch: pytest.MonkeyPatch) -> None:
    # /dev/full refuses every write with ENOSPC, as a full disk does. xlsxwriter's zip
    # opened on the file itself stayed open when its write failed, and at exit Python
    # printed "Exception ignored in ZipFile.__del__ ... No space left on device" after
    # the command's own one-line message (issue 36 item 14): the zip is now built in
    # memory and the bytes written at once, so the failure is one OSError and nothing
    # is left for the garbage collector to report.
    import gc
    import sys

    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    template = programs.template("beip-grant-schedule")
    with pytest.raises(OSError, match="No space left on device"):
        build_template(template, Path("/dev/full"))
    gc.collect()
    assert unraisable == []
