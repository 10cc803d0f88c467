"""The headless path imports no xlwings (issue 30).

The NJ_* functions live in :mod:`nj_incentives.functions` as plain callables; only
:mod:`nj_incentives.runtimes` decorates them for xlwings. So ``calc``, the memo, sign-off,
fill and roll forward never pay for ``import xlwings`` (and the matplotlib and pandas
integrations it imports when they are installed). Checked twice:

- in a fresh process (``sys.modules`` after the work), for ``import
  nj_incentives.functions`` with a call, and for ``calc --memo`` on the bundled examples
  followed by ``sign``, ``rollforward`` and ``fill`` of the ERTC example;
- in the source (``ast``): no module under the packages of the headless path imports
  xlwings, or a runtime module that does, even inside a function.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from nj_incentives.cli import calc
from nj_incentives.functions import CATALOG

ROOT = Path(__file__).resolve().parents[1] / "addin" / "nj_incentives"

#: The packages of the headless path: none of their modules may import xlwings.
HEADLESS = ("core", "programs", "functions", "workpapers", "scenarios")

#: xlwings, and xlwings Server (which imports it).
XLWINGS = ("xlwings", "xlwings_server")

#: Modules imported only for the optional integrations of ``import xlwings``.
HEAVY = ("xlwings", "matplotlib", "pandas")


def _loaded_after(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh Python; it sets ``result``; returns it with the HEAVY
    modules then in ``sys.modules``."""
    script = (
        "import json, sys\n"
        f"{code}\n"
        f"print(json.dumps({{'result': result, 'loaded': [m for m in {HEAVY!r} "
        "if m in sys.modules]}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_the_functions_import_no_xlwings() -> None:
    found = _loaded_after(
        "import nj_incentives.functions as f\n"
        "result = [len(f.CATALOG), f.FUNCTIONS['NJ_BEIP_GRANT'](1250000, 0.2)]"
    )
    assert found["result"] == [len(CATALOG), 250000.0]
    assert found["loaded"] == []


@pytest.mark.slow  # recalculates the bundled examples, writes the memo, signs, rolls, fills
def test_calc_memo_signoff_rollforward_and_fill_import_no_xlwings(tmp_path: Path) -> None:
    examples = calc.bundled_examples()
    ertc = next(path for path in examples if path.stem == "ertc-form-313-example")
    data = tmp_path / "grant.yaml"
    data.write_text("AgreementDate: 2010-01-01\nTerm: 5\nGrantPct: 50%\nWithholdings: [1, 2]\n")
    signed, rolled, filled = (tmp_path / f"{n}.xlsx" for n in ("signed", "rolled", "filled"))
    runs = [
        ["calc", "--memo", str(tmp_path / "memo.html"), "-o", str(tmp_path / "calc")],
        ["sign", str(ertc), "--preparer", "A. Preparer", "--date", "2026-01-02", "-o", str(signed)],
        ["rollforward", str(signed), "-o", str(rolled)],
        ["fill", "beip-grant-schedule", str(data), "-o", str(filled)],
    ]
    found = _loaded_after(
        f"from nj_incentives.cli import main\nresult = [main(argv) for argv in {runs!r}]"
    )
    assert found == {"result": [0, 0, 0, 0], "loaded": []}
    assert (tmp_path / "memo.html").stat().st_size > 10_000
    assert (
        len(list((tmp_path / "calc").glob("*-results.xlsx")))
        == len(examples)
        == len(calc.BUNDLED_EXAMPLES)
    )
    assert all(path.is_file() for path in (signed, rolled, filled))


def _runtime_imports(source: str, package: str) -> list[str]:
    """Every module a module of ``package`` with this source imports when it runs (not
    under ``if TYPE_CHECKING:``), wherever the import is (a function's imports run when
    it is called); ``from a import b`` gives ``a.b``."""
    found: list[str] = []
    stack: list[ast.AST] = [ast.parse(source)]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], *([base] if base else [])])
            found += [f"{base}.{alias.name}" for alias in node.names]
        stack.extend(ast.iter_child_nodes(node))
    return sorted(found)


def _package_imports() -> dict[str, list[str]]:
    """Every module of the package by name, with the modules it imports when it runs (an
    import of a name resolved to the package's module that holds it)."""
    sources = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ("nj_incentives", *path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        package = name if is_package else name.rpartition(".")[0]
        sources[name] = (path.read_text(encoding="utf-8"), package)
    graph = {}
    for name, (source, package) in sources.items():
        imports = set()
        for imported in _runtime_imports(source, package):
            while imported.startswith("nj_incentives.") and imported not in sources:
                imported = imported.rpartition(".")[0]
            imports.add(imported)
        graph[name] = sorted(imports - {name})
    return graph


def _importing_xlwings(graph: dict[str, list[str]]) -> set[str]:
    """The modules whose import (or a function's) brings xlwings: those importing
    xlwings or xlwings Server, and those importing one of them."""
    found = {n for n, imports in graph.items() if any(_is_xlwings(m) for m in imports)}
    while True:
        more = {n for n, imports in graph.items() if n not in found and found.intersection(imports)}
        if not more:
            return found
        found |= more


def _is_xlwings(module: str) -> bool:
    return any(module == name or module.startswith(f"{name}.") for name in XLWINGS)


def test_no_module_of_the_headless_path_imports_xlwings() -> None:
    graph = _package_imports()
    bringing = _importing_xlwings(graph)
    # the check sees the modules that do import it: the runtimes and the shims of their names
    assert {"nj_incentives.runtimes.xlwings_classic", "nj_incentives.excel"} <= bringing
    assert {"nj_incentives.lite", "nj_incentives.server"} <= bringing
    headless = {n for n in graph if n.partition(".")[2].split(".")[0] in HEADLESS}
    offending = {n: [m for m in graph[n] if m in bringing or _is_xlwings(m)] for n in headless}
    assert {n: found for n, found in offending.items() if found} == {}


def test_the_import_check_sees_imports_inside_functions() -> None:
    """The check is not blind: imports in a function body, relative ones and a shim's name
    are found, one under ``if TYPE_CHECKING:`` is not (it never runs); a module importing
    one that imports xlwings brings xlwings."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    import xlwings\n"
        "def f():\n"
        "    import xlwings.server\n"
        "    from ..runtimes import lite\n"
        "    from nj_incentives import excel\n"
        "    from nj_incentives.functions import CATALOG\n"
    )
    imports = _runtime_imports(source, "nj_incentives.workpapers")
    assert imports == [
        "nj_incentives.excel",
        "nj_incentives.functions.CATALOG",
        "nj_incentives.runtimes.lite",
        "typing.TYPE_CHECKING",
        "xlwings.server",
    ]
    graph = {"a": ["b"], "b": ["c"], "c": ["xlwings.server"], "d": ["typing"]}
    assert _importing_xlwings(graph) == {"a", "b", "c"}
