"""Forty clients in one run (issue 32 item 6): ``fill TEMPLATE TABLE --each KEY -o DIR``
writes every valid client's workbook and names every refused one (nothing half-written),
``calc --memo-each DIR`` writes one memo per workbook, and the Python API
(:mod:`nj_incentives.workpapers.api`) does the same in one process."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc.run)
from nj_incentives import cli
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.support.json_schema import schema_for
from nj_incentives.workpapers import api

#: Grant clients in a CSV TABLE: a list cell split as the command line splits one.
#: Acme: 50% x (600,000 + 650,000) = 625,000 (under the average cap, 50,000 x 20 new
#: employees = 1,000,000). Cove: 25% x (1,250,000 + 1,300,000 + 1,300,000) = 962,500.
HEADER = ["client", "EngagementClient", "AgreementDate", "Term", "GrantPct"]
COVE = ["cove/nj", "Cove, Inc.", "2012-01-01", "3", "0.25"]
CLIENTS = [
    [*HEADER, "Withholdings", "NewEmployees"],
    ["acme", "Acme LLC", "2010-01-01", "2", "50%", "600000, 650000", "20, 20"],
    ["bolt", "Bolt Inc", "2011-01-01", "11", "50%", "100000", "1"],  # Term 11: refused
    ["acme", "Acme again", "2012-01-01", "1", "50%", "1", "1"],  # the same key twice
    ["", "No key", "2012-01-01", "1", "50%", "1", "1"],  # no key: refused
    [*COVE, "1,250,000;1,300,000;1,300,000", "100, 100, 100"],
]


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path


def test_fill_each_writes_every_valid_client_and_names_every_refused_one(
    tmp_path: Path, capsys: Any
) -> None:
    table = write_csv(tmp_path / "clients.csv", CLIENTS)
    out = tmp_path / "filled"
    argv = ["fill", "beip-grant-schedule", str(table), "--each", "client", "-o", str(out)]
    assert cli.main([*argv, "--json"]) == 1  # written, but some refused
    document = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, schema_for("fillEach"))
    assert [w["key"] for w in document["written"]] == ["acme", "cove/nj"]
    refused = {r["key"]: r["errors"] for r in document["refused"]}
    assert "Term = '11'" in refused["bolt"][0]
    assert "clients.csv row 3 (bolt)" in refused["bolt"][0]
    assert "again (also clients.csv row 2)" in refused["acme"][0]
    assert refused["clients.csv row 5"] == ["clients.csv row 5: no client"]
    # nothing half-written: the two workbooks, no temporary file beside them
    assert sorted(p.name for p in out.iterdir()) == ["acme.xlsx", "cove_nj.xlsx"]
    acme = api.calc(out / "acme.xlsx")
    assert acme.master_check is True
    assert acme.value("TotalGrant") == 625_000.0  # 50% x 1,250,000
    assert acme.engagement["Client"] == "Acme LLC"
    cove = api.calc(out / "cove_nj.xlsx")
    assert cove.value("Total grant") == 962_500.0


def test_a_payroll_file_per_client_by_a_column(tmp_path: Path) -> None:
    example = ertc_credit.EXAMPLE
    periods = list(zip(*example["periods"], strict=True))
    payroll = tmp_path / "payroll-a.csv"
    rows = [["employee", "temporary", "excluded", "period", *map(str, range(1, 13))]]
    for e in example["employees"]:
        for period in ("base", "year1", "year2"):
            rows.append([e["name"], e["temporary"], e["excluded"], period, *e[period]])
    write_csv(payroll, rows)
    header = ["client", "payroll", "InQualifiedMunicipality", "ReceivesUEZBenefit"]
    header += ["PriorCreditPeriod", "OperationsStart", "TaxType", "SCorporation", "Fractional"]
    header += ["PeriodEnds", "GrossReceipts", "Liabilities", "OtherCredits"]
    common = ["Yes", "No", "No", example["operations_start"].isoformat(), "cbt", "No", "No"]
    lists = [", ".join(str(getattr(v, "isoformat", lambda v=v: v)()) for v in p) for p in periods]
    table = write_csv(
        tmp_path / "ertc.csv",
        [header, ["a", "payroll-a.csv", *common, *lists], ["b", "missing.csv", *common, *lists]],
    )
    batch = api.fill_each("ertc-form-313", table, tmp_path / "out", key="client", hours="payroll")
    assert [k for k, _ in batch.written] == ["a"]
    assert batch.written[0][1].employees == len(example["employees"])
    (refused,) = batch.refused
    assert refused.key == "b"
    assert "missing.csv" in refused.messages[0]
    # the example's figures: credit year one, 5 positions x 2,500 = 12,500
    assert api.calc(tmp_path / "out" / "a.xlsx").value("CreditYearOne") == 12_500.0


def test_calc_memo_each_writes_one_memo_per_workbook(tmp_path: Path, capsys: Any) -> None:
    table = write_csv(tmp_path / "clients.csv", [CLIENTS[0], CLIENTS[1]])
    out = tmp_path / "filled"
    assert api.fill_each("beip-grant-schedule", table, out, key="client").status == 0
    memos = tmp_path / "memos"
    argv = ["calc", str(out / "acme.xlsx"), "-o", str(tmp_path / "results"), "--json"]
    assert cli.main([*argv, "--memo-each", str(memos), "--memo-format", "md"]) == 0
    document = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, schema_for("calc"))
    assert document["memos"] == [str(memos / "acme-memo.md")]
    text = (memos / "acme-memo.md").read_text()
    assert "Acme LLC" in text
    assert "Bolt" not in text
    # the API: the same memo from a result
    written = api.memo([api.calc(out / "acme.xlsx")], tmp_path / "api-memo.md")
    assert "Acme LLC" in written.read_text()


def test_a_yaml_table_of_client_to_inputs(tmp_path: Path) -> None:
    table = tmp_path / "clients.yaml"
    table.write_text(
        "acme:\n  AgreementDate: 2010-01-01\n  Term: 2\n  GrantPct: 50%\n"
        "  Withholdings: [600000, 650000]\n  NewEmployees: [20, 20]\n"
        "bolt:\n  Term: 11\n"
    )
    batch = api.fill_each("beip-grant-schedule", table, tmp_path / "out", key="client")
    assert [k for k, _ in batch.written] == ["acme"]  # the mapping's key names the client
    assert [r.key for r in batch.refused] == ["bolt"]
    assert batch.status == 1
    stream = tmp_path / "stream.yaml"  # one YAML document per client
    stream.write_text("client: cove\nTerm: 2\n---\nclient: dune\nTerm: 12\n")
    batch = api.fill_each("beip-grant-schedule", stream, tmp_path / "out3", key="client")
    assert [k for k, _ in batch.written] == ["cove"]
    assert batch.refused[0].messages[0].startswith("stream.yaml document 2 (dune): Term = 12")
    table.write_text("acme:\n  Withholdings: [600,000, 650,000]\n")
    with pytest.raises(api.FillError) as refused:  # YAML reads four values: as in fill
        api.fill_each("beip-grant-schedule", table, tmp_path / "out2", key="client")
    assert "600,000 in a [...] list" in refused.value.messages[0]
