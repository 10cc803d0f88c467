"""Every command's ``--json`` document, and the run stamp, validated against the JSON
Schema the wheel ships (``nj_incentives/support/cli-output.schema.json``; issue 32 item
7: numbers a program can read)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import nj_incentives.runtimes.xlwings_classic  # noqa: F401  (xlwings imported as usual before any calc.run)
from nj_incentives import cli
from nj_incentives.programs.beip.templates import grant as beip_grant
from nj_incentives.support.json_schema import SCHEMA_PATH, schema, schema_for
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY

EXAMPLES = DEFAULT_DIRECTORY / "examples"
GRANT = {"AgreementDate": "2010-01-01", "Term": 5, "GrantPct": "50%"}


def valid(document: Any, kind: str) -> Any:
    jsonschema.validate(document, schema_for(kind), cls=jsonschema.Draft202012Validator)
    jsonschema.validate(document, schema(), cls=jsonschema.Draft202012Validator)  # any kind
    return document


def run_json(argv: list[str], capsys: Any) -> tuple[int, Any]:
    code = cli.main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_the_schema_is_a_schema_and_ships_in_the_package() -> None:
    jsonschema.Draft202012Validator.check_schema(schema())
    assert SCHEMA_PATH.parent.name == "support"
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    assert '"support/*.schema.json"' in pyproject  # package data: in the wheel


def test_calc_and_its_run_stamp(tmp_path: Path, capsys: Any) -> None:
    example = EXAMPLES / "beip-grant-schedule-example.xlsx"
    argv = ["calc", str(example), str(tmp_path / "missing.xlsx"), "-o", str(tmp_path)]
    code, document = run_json([*argv, "--no-progress", "--return", "2025"], capsys)
    assert code == 2  # the missing one
    valid(document, "calc")
    first, missing = document["workbooks"]
    assert missing["error"].endswith("no such file")
    outputs = {o["label"]: o for o in first["outputs"]}
    # the grant example: 750,000.00 in all, 700,000.00 within the combined limit
    assert outputs["Total grant"] == {
        "name": "TotalGrant",
        "cell": "Outputs!C7",
        "label": "Total grant",
        "unit": "$",
        "value": 750000.0,
        "display": "750,000.00",
    }
    # a figure computed on Outputs (=COUNTIF(...)) has the cell's own name
    assert outputs["Years over the combined limit"]["name"] == "YearsOverLimit"
    assert outputs["Years over the combined limit"]["value"] == 1
    assert all(o["name"] for o in first["outputs"])  # every output named
    assert outputs["All checks pass"]["value"] is True
    # calc --return 2025 (issue 31): a cash grant goes on no return line, and says why
    assert first["return"]["lines"] == []
    assert first["return"]["notes"] == [beip_grant.NO_RETURN_LINE]
    assert "N.J.S.A. 34:1B-129a." in beip_grant.NO_RETURN_LINE  # its citation
    stamp = json.loads(Path(first["stamp"]).read_text())
    valid(stamp, "runStamp")
    assert stamp["outputs"] == first["outputs"]


def test_an_output_as_display_text_is_not_valid() -> None:
    # what calc --json gave before: the value as display text, no name, no cell
    before = {"label": "Total grant", "unit": "$", "value": "1,650,000.00"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(before, schema_for("output"))
    money_as_text = {
        "name": "TotalGrant",
        "cell": "Outputs!C7",
        "label": "Total grant",
        "unit": "$",
        "value": "1,650,000.00",
        "display": "1,650,000.00",
    }
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(money_as_text, schema_for("output"))
    error_without_text = {**money_as_text, "value": None, "display": "#VALUE!"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(error_without_text, schema_for("output"))


def test_fill_rollforward_and_their_refusals(tmp_path: Path, capsys: Any) -> None:
    data = tmp_path / "grant.yaml"
    data.write_text(
        "".join(f"{k}: {v}\n" for k, v in GRANT.items())
        + "Withholdings: [600000, 650000]\nNewEmployees: [10, 12]\n"
    )
    out = tmp_path / "grant.xlsx"
    code, filled = run_json(["fill", "beip-grant-schedule", str(data), "-o", str(out)], capsys)
    assert code == 0
    valid(filled, "fill")
    code, refused = run_json(["fill", "beip-grant-schedule", str(data), "-o", str(out)], capsys)
    assert code == 2  # exists
    valid(refused, "refusal")
    code, inputs = run_json(["fill", "beip-grant-schedule", "--inputs"], capsys)
    valid(inputs, "fillInputs")
    code, rolled = run_json(["rollforward", str(out), "-o", str(tmp_path / "next.xlsx")], capsys)
    assert code == 0
    valid(rolled, "rollforward")
    # grant year 1: 50% x 600,000 = 300,000 (under the cap 50,000 x 10 = 500,000); year 2:
    # 50% x 650,000 = 325,000, capped at 50,000 x 12 - 300,000 = 300,000 (the average cap,
    # N.J.A.C. 19:31I-1.4(a)): cumulative 300,000 + 300,000 = 600,000 through year 2
    assert rolled["carried"] == [
        {"name": "Cumulative grant", "value": 600000.0, "unit": "$", "period": "grant year 2"}
    ]


def test_sign_explain_doctor_templates_and_scenarios(tmp_path: Path, capsys: Any) -> None:
    example = EXAMPLES / "ertc-form-313-example.xlsx"
    code, signed = run_json(["sign", str(example), "--status"], capsys)
    valid(signed, "sign")
    assert all(s["date"] is None or len(s["date"]) == 10 for s in signed["signoffs"])
    code, explained = run_json(["explain", "min-tax", "150000", "--s-corporation"], capsys)
    valid(explained, "explain")
    code, refused = run_json(["explain", "grant", "1000000", "50"], capsys)
    assert code == 1
    valid(refused, "explain")
    code, doctor = run_json(["doctor"], capsys)
    valid(doctor, "doctor")
    code, templates = run_json(["templates", str(tmp_path / "templates")], capsys)
    valid(templates, "templates")
    shutil.copy(EXAMPLES / "scenarios-base.csv", tmp_path / "base.csv")
    argv = ["scenarios", str(tmp_path / "base.csv"), "-o", str(tmp_path / "s.csv")]
    code, scenarios = run_json([*argv, "--no-progress"], capsys)
    valid(scenarios, "scenarios")
