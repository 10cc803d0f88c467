"""Scenario inputs are read by the input rules, whatever the reader (issue 22, items 1, 2).

Before: an XLSX reader turned a FALSE in a column of numbers into 0 (computed: a
conversion of 0.00, no error); the CSV readers parsed numbers before the input rules saw
them (``1e-999999999`` read as 0.0 and computed; ``NaN`` and ``#N/A`` text read as
blanks; a ``True`` beside a ``0`` turned the column into TRUE/FALSE, so the valid 0 was
refused as "not TRUE/FALSE"); the streaming reader dropped a label's leading space. Now
every reader hands input columns over as the cells or the text they hold, and
:mod:`nj_incentives.scenarios.convert` reads them with the core's rules: the same row,
the same outcome, in memory, streaming and on Dask workers.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nj_incentives.cli import main
from nj_incentives.core.common import InputError
from nj_incentives.scenarios import run_scenarios
from nj_incentives.scenarios.columns import SCALE, column_spec
from nj_incentives.scenarios.convert import convert
from nj_incentives.scenarios.io import read_table

CITE = "(N.J.S.A. 34:1B-129e.(1))"
BOUNDS = '(docs/interpretations.md "Input bounds")'
#: (id, conversion_amount as written in the file, the error, or None: computed)
TEXTS = [
    (
        "tiny",
        "1e-999999999",
        f"conversion_amount = '1e-999999999': has an exponent beyond E100 / E-100 {BOUNDS}",
    ),
    ("nan", "NaN", f"conversion_amount = 'NaN': must be a finite number {CITE}"),
    ("na", "#N/A", f"conversion_amount = '#N/A': the cell holds an error value {CITE}"),
    ("true", "True", f"conversion_amount = 'True': must be a number, not TRUE/FALSE {CITE}"),
    ("zero", "0", None),
    ("commas", '"1,250,000.00"', None),
    ("plain", "1250000", None),
    (
        "long",
        "1250000.000000000000000001",
        "conversion_amount = '1250000.000000000000000001': has a fraction of a cent: money"
        f" is in dollars and cents {BOUNDS}",
    ),
]


def scenario_csv(path: Path) -> Path:
    lines = ["id,label,accrual_year,conversion_amount"]
    lines += [f'{name}," =1+1",2012,{text}' for name, text, _error in TEXTS]
    path.write_text("\n".join(lines) + "\n")
    return path


def check(results: pd.DataFrame) -> None:
    errors = dict(zip(results["id"].astype(str), results["error"], strict=True))
    for name, _text, error in TEXTS:
        shown = errors[name] if isinstance(errors[name], str) else None
        assert shown == error, name
    totals = dict(zip(results["id"].astype(str), results["conversion_total"], strict=True))
    assert totals["zero"] == 0
    assert totals["commas"] == totals["plain"] == 1_250_000  # the whole amount converted
    assert set(results["label"]) == {" =1+1"}  # as written, leading space kept


def test_numeric_text_in_memory_is_read_by_the_input_rules(tmp_path: Path) -> None:
    check(run_scenarios(read_table(scenario_csv(tmp_path / "in.csv"))))


def test_numeric_text_streamed_is_read_by_the_input_rules(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"  # Parquet: the label comes back exactly as computed
    assert main(["scenarios", str(scenario_csv(tmp_path / "in.csv")), "-o", str(out)]) == 1
    check(pd.read_parquet(out))


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local.scheduler_address


def test_numeric_text_on_dask_workers_is_read_by_the_input_rules(
    tmp_path: Path, cluster: str
) -> None:
    source = tmp_path / "in.parquet"
    table = pd.DataFrame(
        {
            "id": [name for name, _t, _e in TEXTS],
            "label": [" =1+1"] * len(TEXTS),
            "accrual_year": ["2012"] * len(TEXTS),
            "conversion_amount": [text.strip('"') for _n, text, _e in TEXTS],
        }
    )
    pq.write_table(pa.Table.from_pandas(table, preserve_index=False), source)
    out = tmp_path / "out.parquet"
    dask = ["--engine", "dask", "--scheduler", cluster]
    assert main(["scenarios", str(source), "-o", str(out), *dask]) == 1
    check(pd.read_parquet(out))
    assert main(["scenarios", str(source), "-o", str(tmp_path / "pandas.parquet")]) == 1
    pd.testing.assert_frame_equal(
        pd.read_parquet(out), pd.read_parquet(tmp_path / "pandas.parquet")
    )


def test_a_valid_zero_beside_true_is_not_called_true_false(tmp_path: Path) -> None:
    # issue 22 item 1: the streaming reader inferred a column of True and 0 as booleans
    source = tmp_path / "in.csv"
    source.write_text("id,accrual_year,conversion_amount\na,2012,True\nb,2012,0\n")
    expected = [f"conversion_amount = 'True': must be a number, not TRUE/FALSE {CITE}", None]
    in_memory = run_scenarios(read_table(source))
    assert [e if isinstance(e, str) else None for e in in_memory["error"]] == expected
    out = tmp_path / "out.parquet"
    assert main(["scenarios", str(source), "-o", str(out)]) == 1
    streamed = pd.read_parquet(out)
    assert [e if isinstance(e, str) else None for e in streamed["error"]] == expected


def test_true_false_in_an_xlsx_number_column_is_refused(tmp_path: Path) -> None:
    # issue 22 item 1: a FALSE in a money column of an XLSX file was computed as 0.00
    import xlsxwriter

    path = tmp_path / "in.xlsx"
    workbook = xlsxwriter.Workbook(str(path))
    sheet = workbook.add_worksheet()
    sheet.write_row(0, 0, ["id", "accrual_year", "conversion_amount", "smart_growth_note"])
    cells = [("a", False), ("b", 1250000), ("c", True), ("d", 0)]
    for row, (name, amount) in enumerate(cells, 1):
        sheet.write_string(row, 0, name)
        sheet.write_number(row, 1, 2012)
        if isinstance(amount, bool):
            sheet.write_boolean(row, 2, amount)
        else:
            sheet.write_number(row, 2, amount)
    workbook.close()
    results = run_scenarios(read_table(path).drop(columns="smart_growth_note"))
    errors = [e if isinstance(e, str) else None for e in results["error"]]
    assert errors == [
        f"conversion_amount = False: must be a number, not TRUE/FALSE {CITE}",
        None,
        f"conversion_amount = True: must be a number, not TRUE/FALSE {CITE}",
        None,
    ]
    assert results["conversion_total"].tolist()[1::2] == [1_250_000, 0]
    assert results["conversion_total"].isna().tolist() == [True, False, True, False]


def test_every_reader_refuses_true_false_in_a_number_column(tmp_path: Path) -> None:
    # one rule: CSV text, a Parquet boolean column, and the cells NJ_SCENARIOS passes
    from nj_incentives.functions import FUNCTIONS

    header = ["id", "accrual_year", "conversion_amount"]
    (tmp_path / "in.csv").write_text("id,accrual_year,conversion_amount\na,2012,FALSE\n")
    pq.write_table(
        pa.table({"id": ["a"], "accrual_year": [2012], "conversion_amount": [False]}),
        tmp_path / "in.parquet",
    )
    messages = {
        str(run_scenarios(read_table(tmp_path / name))["error"].iloc[0])
        for name in ("in.csv", "in.parquet")
    }
    table = FUNCTIONS["NJ_SCENARIOS"]([header, ["a", 2012, False]])
    messages.add(str(table[1][table[0].index("error")]))
    assert {m.split(": ", 1)[1] for m in messages} == {f"must be a number, not TRUE/FALSE {CITE}"}


# --------------------------------------------------------------------------- property


_DECIMALS = st.decimals(
    min_value=Decimal("-1e14"), max_value=Decimal("1e14"), allow_nan=False, places=None
)


def _written(value: Decimal, style: int) -> str:
    if style == 0:
        return f"{value:f}"
    if style == 1:
        return f"{value:e}"
    if style == 2:
        return f"{value:,f}"
    return f" {value:f} "


_TEXT = st.one_of(
    st.builds(_written, _DECIMALS, st.integers(0, 3)),
    st.sampled_from(
        [
            "0",
            "-0",
            "0.0",
            "1e-999999999",
            "1e400",
            "NaN",
            "-inf",
            "#N/A",
            "True",
            "FALSE",
            "",
            "  ",
            "1_000",
            "1,5",
            "0x10",
            "50%",
            ".5",
            "5.",
            "+7",
            "0.30000000000000004",
            "1234567890123456",
            "12345678901.23",
            "99999999999.99",
            "100000000000.01",
        ]
    ),
)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(_TEXT, min_size=1, max_size=40), column=st.sampled_from(
    ["conversion_amount", "pct", "accrual_year", "year1_new", "withholdings_growth"]))  # fmt: skip
def test_text_is_read_as_the_core_reads_it(texts: list[str], column: str) -> None:
    # the vectorised reading of a text column takes a value exactly when the core's rule
    # (the column's declaration) takes it, as the same number
    spec = column_spec(column)
    read = convert(pd.Series(texts, dtype="str"), spec)
    for i, text in enumerate(texts):
        if not text.strip():
            assert read.blank[i], repr(text)
            continue
        try:
            core = spec.rule.parse(text, column)
        except InputError:
            assert not read.ok[i], repr(text)  # refused: the scalar path gives the message
            continue
        if read.ok[i]:  # else the scalar path computes it with the core (still the core's)
            assert read.values[i] == int(Decimal(core) * SCALE[spec.kind]), repr(text)


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(_TEXT, min_size=1, max_size=30))
def test_reading_a_column_once_as_doubles_changes_nothing(texts: list[str]) -> None:
    # a CSV reader turns an all-exact column into doubles once (numbers_from_text):
    # the reading is the text's own, value for value
    from nj_incentives.scenarios.convert import numbers_from_text

    spec = column_spec("conversion_amount")
    text = pd.Series([t or None for t in texts], dtype="str")
    once = numbers_from_text(pd.DataFrame({"conversion_amount": text.copy()}))
    a, b = convert(text, spec), convert(once["conversion_amount"], spec)
    assert a.ok.tolist() == b.ok.tolist()
    assert a.blank.tolist() == b.blank.tolist()
    assert (a.values[a.ok] == b.values[b.ok]).all()


def test_the_property_covers_both_paths() -> None:
    # the fast (parsed) and the slow (one text at a time) reading both occur above
    spec = column_spec("conversion_amount")
    read = convert(pd.Series(["1250000.50", "1e-999999999", "", "7"], dtype="str"), spec)
    assert read.ok.tolist() == [True, False, False, True]
    assert read.blank.tolist() == [False, False, True, False]
    assert read.values.tolist() == [125_000_050, 0, 0, 700]
