"""Honest charts (issue 13 item 5): the tornado's base case is a real scenario, histograms
only from enough draws with bins chosen from the data, human labels, dollar axes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.cli import main
from nj_incentives.scenarios import analysis
from nj_incentives.scenarios.io import read_table
from nj_incentives.scenarios.runner import run_scenarios

EXAMPLES = Path(__file__).resolve().parents[2] / "workbooks" / "examples"


def test_the_tornado_base_case_of_a_table_is_a_named_scenario(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "t.csv"
    source = EXAMPLES / "scenarios.csv"
    main(["scenarios", str(source), "-o", str(out), "--target", "ertc_used", "--json"])
    capsys.readouterr()
    results = pd.read_csv(out)
    # the first scenario with ertc_used, as stated: its own result is the base case
    first = results[results["ertc_used"].notna()].iloc[0]
    table = read_table(source)
    row = table[table["id"] == first["id"]].iloc[0].to_dict()
    ranges = analysis.input_ranges(table, ["year1_new"], base=row)
    assert ranges["year1_new"][1] == row["year1_new"]  # the stated value, not a median
    rerun = run_scenarios(table[table["id"] == first["id"]].reset_index(drop=True))
    assert rerun["ertc_used"].iloc[0] == first["ertc_used"]


def test_the_monte_carlo_tornado_is_centred_on_the_base_row(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "mc.csv"
    argv = ["scenarios", str(EXAMPLES / "scenarios-base.csv"), "-o", str(out)]
    argv += ["--monte-carlo", "300", "--seed", "3", "--target", "ertc_used", "--json"]
    argv += ["--distributions", str(EXAMPLES / "scenarios-montecarlo.json")]
    assert main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["notes"] == []
    # the base case is the base row run as stated, not a blend of medians
    base = read_table(EXAMPLES / "scenarios-base.csv")
    stated = run_scenarios(base)["ertc_used"].iloc[0]
    varied = ["year1_new", "year2_new", "liability_1"]
    draws = pd.read_csv(out)
    ranges = analysis.input_ranges(draws, varied, base=base.iloc[0].to_dict())
    result = analysis.tornado(
        base.iloc[0].to_dict(), ranges, "ertc_used", run_scenarios, "the base row"
    )
    assert result.base_value == stated
    for column in varied:
        assert ranges[column][1] == base.iloc[0][column]


def test_no_histogram_from_a_handful_of_values() -> None:
    few = pd.Series([1.0, 2.0, 3.0, 4.0])
    assert analysis.distribution(few) is None
    assert analysis.distribution(pd.Series(np.arange(analysis.MIN_HISTOGRAM_VALUES - 1.0))) is None
    assert (
        analysis.distribution(pd.Series(np.arange(float(analysis.MIN_HISTOGRAM_VALUES))))
        is not None
    )


def test_bins_come_from_the_data() -> None:
    rng = np.random.default_rng(1)
    data = pd.Series(rng.normal(50_000, 10_000, 2_000))
    bins = analysis.distribution(data)
    assert bins is not None
    expected = np.histogram_bin_edges(data.to_numpy(), bins="auto")
    assert len(bins) == len(expected) - 1 != 30
    assert bins["count"].sum() == 2_000
    assert len(analysis.distribution(data, 12)) == 12  # type: ignore[arg-type]
    same = analysis.distribution(pd.Series([7.0] * 40))
    assert same is not None
    assert same["count"].tolist() == [40]  # one bin around the one value


@pytest.mark.parametrize(
    ("column", "text"),
    [
        ("grant_total", "Total grant paid"),
        ("ertc_used", "ERTC used against the tax"),
        ("year1_new", "New positions, credit year one"),
        ("liability_1", "Tax liability, period 1"),
        ("withholdings_3", "Withholdings, grant year 3"),
        ("installment_2019", "Credit installment 2019"),
        ("something_new", "Something new"),
    ],
)
def test_labels_are_for_people(column: str, text: str) -> None:
    assert analysis.label(column) == text


def test_values_are_shown_in_their_unit() -> None:
    assert analysis.format_value(1_250_000, "grant_total") == "$1,250,000.00"
    assert analysis.format_value(-2_500, "ertc_used", True) == "-$2,500"
    assert analysis.format_value(0.5, "pct") == "50%"
    assert analysis.format_value(12, "year1_new") == "12"


def test_money_axes_are_dollars_without_an_offset(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure()
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.plot([1_000_000, 1_000_500], [0, 1])
    axes.xaxis.set_major_formatter(analysis._axis_formatter("grant_total"))
    figure.canvas.draw()
    ticks = [t.get_text() for t in axes.get_xticklabels() if t.get_text()]
    assert all(t.startswith("\\$") and "," in t and "e" not in t for t in ticks), ticks
    assert "\\$1,000,000" in ticks
    assert axes.xaxis.get_offset_text().get_text() == ""
    values = pd.Series(np.linspace(1_000_000, 2_000_000, 120))
    assert analysis.distribution_png(values, "grant_total", tmp_path / "d.png")
    assert not analysis.distribution_png(values[:5], "grant_total", tmp_path / "e.png")
    assert not (tmp_path / "e.png").exists()


@pytest.mark.recalc
def test_the_results_workbook_charts_cache_real_values_and_dates(tmp_path: Path) -> None:
    import re
    import zipfile

    from nj_incentives.workpapers.recalc import recalculate, write_values

    source = EXAMPLES / "ertc-form-313-example.xlsx"
    with zipfile.ZipFile(source) as archive:  # the template's chart: zeros, serials
        before = archive.read("xl/charts/chart1.xml").decode()
    assert "<c:v>0</c:v>" in before
    recalc = recalculate(source)
    target = write_values(recalc, tmp_path / "r.xlsx")
    with zipfile.ZipFile(target) as archive:
        chart = archive.read("xl/charts/chart1.xml").decode()
    # the categories: the period ends as the workbook shows them, on a text axis
    references = re.findall(r"<c:cat><c:strRef><c:f>([^<]+)</c:f>", chart)
    assert references
    sheet, cells = references[0].split("!")
    first_cell = cells.split(":")[0].replace("$", "")
    serial = recalc.values[(sheet, first_cell)]
    assert isinstance(serial, int | float)
    from nj_incentives.core.cells import date_from_serial

    day = date_from_serial(float(serial))
    assert day is not None
    assert f'<c:pt idx="0"><c:v>{day.isoformat()}</c:v></c:pt>' in chart
    assert '<c:auto val="0"/>' in chart
    # every value point is the recalculated cell's value
    for reference, cache in re.findall(
        r"<c:val><c:numRef><c:f>([^<]+)</c:f><c:numCache>(.*?)</c:numCache>", chart
    ):
        sheet, cells = reference.split("!")
        first, last = (c.replace("$", "") for c in cells.split(":"))
        column, row1, row2 = first[0], int(first[1:]), int(last[1:])
        for index, value in re.findall(r'<c:pt idx="(\d+)"><c:v>([^<]+)</c:v>', cache):
            expected = recalc.values[(sheet, f"{column}{row1 + int(index)}")]
            assert float(value) == pytest.approx(float(expected))  # type: ignore[arg-type]
        assert row2 >= row1
    assert re.search(r"<c:v>[1-9]\d*(\.\d+)?</c:v>", chart)  # not all zeros any more


@pytest.mark.recalc
def test_cell_formats_reads_a_workbook_once_and_hands_out_copies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """calc asks for one workbook's formats up to four times (outputs, memo summary, memo
    detail, results charts); each read parsed every sheet again (about 0.18 s a read on
    the ERTC example). The bytes' digest keys a small cache; callers get copies."""
    from nj_incentives.workpapers.recalc import charts, recalculate

    reads: list[int] = []
    real = charts._read_formats

    def counted(data: bytes) -> dict[tuple[str, str], str]:
        reads.append(len(data))
        return real(data)

    monkeypatch.setattr(charts, "_read_formats", counted)
    monkeypatch.setattr(charts, "_FORMATS", type(charts._FORMATS)())
    recalc = recalculate(EXAMPLES / "beip-grant-schedule-example.xlsx")
    first = charts.cell_formats(recalc)
    first[("Nowhere", "A1")] = "0.00"  # a caller's change stays its own
    second = charts.cell_formats(recalc)
    assert len(reads) == 1
    assert ("Nowhere", "A1") not in second
    assert second
    assert set(second) == set(first) - {("Nowhere", "A1")}


# ------------------------------------------------- number formats from the cells' tags


def _shipped_workbooks() -> list[Path]:
    from nj_incentives.cli.calc import bundled_examples

    root = Path(__file__).resolve().parents[2] / "workbooks"
    return [*bundled_examples(), *sorted(root.glob("*.xlsx"))]


@pytest.mark.parametrize("path", _shipped_workbooks(), ids=lambda p: p.name)
def test_formats_from_the_cells_tags_are_openpyxls(path: Path) -> None:
    from nj_incentives.workpapers.recalc import charts

    data = path.read_bytes()
    formats = charts._read_formats(data)
    assert formats == charts._formats_by_openpyxl(data)
    assert formats  # every shipped workbook formats its money and dates


@pytest.mark.libreoffice
def test_formats_of_libreoffice_and_openpyxl_saved_copies_and_results(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # the spellings other writers save (LibreOffice's styles and its cells; openpyxl's),
    # and calc's own results workbooks
    import openpyxl

    from nj_incentives.workpapers.recalc import charts
    from tooling import libreoffice_saved_examples

    sources = [p for p in _shipped_workbooks() if "example" in p.name]
    # the examples' LibreOffice copies, shared with the recalculation tests' (one soffice run)
    saved = libreoffice_saved_examples(tmp_path_factory)
    assert sorted(saved) == sorted(p.name for p in sources)
    copies = [saved[name] for name in sorted(saved)]
    for source in sources:
        book = openpyxl.load_workbook(source)
        book.save(tmp_path / f"openpyxl-{source.name}")
        copies.append(tmp_path / f"openpyxl-{source.name}")
    assert main(["calc", *map(str, sources), "-o", str(tmp_path / "out"), "--no-progress"]) in (
        0,
        1,
    )
    results = sorted((tmp_path / "out").glob("*.xlsx"))
    assert results
    for path in [*copies, *results]:
        data = path.read_bytes()
        assert charts._read_formats(data) == charts._formats_by_openpyxl(data), path.name


@settings(max_examples=30, deadline=None)
@given(
    cells=st.lists(
        st.tuples(
            st.integers(1, 40),
            st.integers(1, 12),
            st.sampled_from(
                ["General", "0.00", "#,##0", "mm-dd-yy", "yyyy-mm-dd", '"$"#,##0.00', "0%", "@"]
            ),
        ),
        max_size=30,
    ),
    prefix=st.booleans(),
    no_ref=st.booleans(),
)
def test_formats_of_written_workbooks_and_the_cases_left_to_openpyxl(
    cells: list[tuple[int, int, str]], prefix: bool, no_ref: bool
) -> None:
    # a workbook openpyxl writes with these formats; its sheet XML then spelled with a
    # namespace prefix (as some writers do) or with a cell's r left out (openpyxl counts
    # its way to that cell: this reading hands the workbook to openpyxl's)
    import io
    import re
    import zipfile

    import openpyxl

    from nj_incentives.workpapers.recalc import charts

    book = openpyxl.Workbook()
    sheet = book.active
    for row, column, code in cells:
        cell = sheet.cell(row, column, value=row * column)
        cell.number_format = code
    buffer = io.BytesIO()
    book.save(buffer)
    data = buffer.getvalue()
    if prefix or no_ref:
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
            for item in source.infolist():
                xml = source.read(item)
                if item.filename.startswith("xl/worksheets/sheet"):
                    if prefix:
                        xml = xml.replace(b"<worksheet xmlns=", b"<x:worksheet xmlns:x=")
                        xml = re.sub(rb"<(/?)(?!x:|\?)", rb"<\1x:", xml)
                    if no_ref:
                        xml = re.sub(rb' r="[A-Z]+[0-9]+"', b"", xml, count=1)
                target.writestr(item, xml)
        data = out.getvalue()
    expected = charts._formats_by_openpyxl(data)
    assert charts._read_formats(data) == expected
    if not no_ref:
        wanted = {}
        for row, column, code in cells:
            wanted[("Sheet", f"{openpyxl.utils.get_column_letter(column)}{row}")] = code
        assert expected == {k: v for k, v in wanted.items() if v != "General"}


# =================================================== issue 35: one P95, refusals, new charts


def test_one_p95_in_cents_printed_summarised_and_charted(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's target has one P95: the line printed, the summary's and the chart's
    mark; exact over every row even beyond the summary's sample, and a cent amount."""
    monkeypatch.setattr(analysis, "SAMPLE_ROWS", 150)  # 400 draws: the others sampled
    out = tmp_path / "mc.parquet"
    argv = ["scenarios", str(EXAMPLES / "scenarios-base.csv"), "-o", str(out)]
    argv += ["--monte-carlo", "400", "--seed", "42", "--target", "ertc_used", "--json"]
    argv += ["--distributions", str(EXAMPLES / "scenarios-montecarlo.json")]
    assert main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    summary = pd.read_csv(tmp_path / "mc.summary.csv").set_index("output")
    values = pd.read_parquet(out)["ertc_used"].dropna().to_numpy()
    exact = np.percentile(values, 95, method="inverted_cdf")
    assert document["target_summary"]["p95"] == summary.loc["ertc_used", "p95"] == exact
    assert summary.loc["ertc_used", "percentile_count"] == values.size == 400
    assert (summary["percentile_count"] < summary["count"]).any()  # the others: a sample
    assert exact in values  # an amount a draw gave
    assert round(exact, 2) == exact  # in cents
    assert analysis.percentile_marks(values)[95] == exact  # the chart's mark


def test_a_monte_carlo_spec_that_cannot_give_a_valid_row_is_refused() -> None:
    from nj_incentives.scenarios.columns import ScenarioError
    from nj_incentives.scenarios.generate import parse_distributions

    with pytest.raises(ScenarioError) as caught:
        parse_distributions("pct=uniform(20,50)")
    message = str(caught.value)
    assert "pct: uniform(20,50) draws values from 20 to 50" in message
    assert "0 to 1, N.J.S.A. 34:1B-129a." in message
    assert "0.2 to 0.5 for 20% to 50%" in message
    with pytest.raises(ScenarioError, match=r"term: integers\(11,20\).*1 to 10"):
        parse_distributions("term=integers(11,20)")
    with pytest.raises(ScenarioError, match="year1_new"):  # clipped below zero: all -1
        parse_distributions("year1_new=normal(5,3,max=-1)")
    # a spec some of whose draws are valid runs (the others are row errors)
    assert parse_distributions("pct=normal(0.9,0.2);term=integers(8,14)")


def test_a_grid_range_too_long_names_the_limit() -> None:
    from nj_incentives.scenarios.columns import ScenarioError
    from nj_incentives.scenarios.generate import MAX_ROWS, parse_grid

    with pytest.raises(ScenarioError) as caught:
        parse_grid("year1_new=1:100000000:1")
    assert f"100,000,000 values, more than the {MAX_ROWS:,}" in str(caught.value)


def test_the_line_and_the_heat_map_sweep_the_inputs_that_move_the_target(
    tmp_path: Path,
) -> None:
    base = {"agreement_date": "2011-04-01", "term": 1, "withholdings_1": 100000}
    base |= {"new_employees_1": 1000, "pct": 0.5}
    ranges = {"pct": (0.1, 0.5, 0.5), "withholdings_1": (100000.0, 100000.0, 200000.0)}
    xs = analysis.sweep_values("pct", ranges, None, 5)
    assert xs == [0.1, 0.2, 0.3, 0.4, 0.5]
    line = analysis.sweep(base, ranges, ["pct"], [xs], "grant_total", run_scenarios, "b")
    # a one-year grant: withholdings 100,000 x pct
    assert line.values.tolist() == [10000, 20000, 30000, 40000, 50000]
    assert line.base == 0.5
    ys = analysis.sweep_values("withholdings_1", ranges, {"withholdings_1": [1e5, 2e5]}, 15)
    heat = analysis.sweep(
        base, ranges, ["pct", "withholdings_1"], [xs, ys], "grant_total", run_scenarios
    )
    # rows: withholdings 100,000 then 200,000; columns: pct 10% .. 50%
    assert heat.values.tolist() == [
        [10000 * k for k in range(1, 6)],
        [20000 * k for k in range(1, 6)],
    ]
    analysis.line_png(line, tmp_path / "l.png")
    analysis.heatmap_png(heat, tmp_path / "h.png")
    for name in ("l.png", "h.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")
