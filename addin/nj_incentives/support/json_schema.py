"""The JSON Schema of every command's ``--json`` document and of the run stamps:
``cli-output.schema.json`` beside this module, shipped in the wheel (package data), each
command's document one of its ``$defs`` (docs/filling.md, "Numbers a program can read").

    from nj_incentives.support.json_schema import schema_for
    jsonschema.validate(document, schema_for("calc"))
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA_PATH", "schema", "schema_for"]

#: the schema file (JSON Schema 2020-12)
SCHEMA_PATH = Path(__file__).with_name("cli-output.schema.json")


@cache
def schema() -> dict[str, Any]:
    """The whole schema: any command's document."""
    found: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return found


def schema_for(document: str) -> dict[str, Any]:
    """The schema of one kind of document (a key of ``$defs``: ``"calc"``, ``"runStamp"``,
    ``"rollforward"`` ...), self-contained."""
    whole = schema()
    if document not in whole["$defs"]:
        raise KeyError(f"{document}: not one of {', '.join(whole['$defs'])}")
    return {"$schema": whole["$schema"], "$ref": f"#/$defs/{document}", "$defs": whole["$defs"]}
