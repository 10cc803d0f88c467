"""The markers by what a test uses are complete (pyproject's markers; issue 30 item 5).

``-m 'not libreoffice'`` must leave out every test that starts LibreOffice, and
``-m 'not node and not pyodide'`` every test that starts Node: a test module's source is
read (no test is run), and each test whose body, or a module-level fixture or helper it
names, asks for the program (``need("soffice", ...)``, ``libreoffice_save`` ...) must
carry the marker, on itself or on its module (``pytestmark``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

#: marker -> what in a test's source says it uses the program
USES = {
    "libreoffice": re.compile(r'need\(\s*"soffice"|\blibreoffice_(save|convert|saved_examples)\('),
    "node": re.compile(r'need\(\s*"node"'),
}
#: markers that also answer for a use (Pyodide runs under Node)
ALSO = {"node": {"pyodide"}}


def _marks(decorators: list[ast.expr]) -> set[str]:
    found = set()
    for node in decorators:
        for sub in ast.walk(node):
            if (
                isinstance(sub, ast.Attribute)
                and isinstance(sub.value, ast.Attribute)
                and sub.value.attr == "mark"
            ):
                found.add(sub.attr)
    return found


def unmarked(path: Path) -> list[str]:
    """``test_name: marker`` for each test of ``path`` using a program without its marker."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    module_marks: set[str] = set()
    functions: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            module_marks |= _marks([node.value])
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = node

    segments = {
        name: ast.get_source_segment(source, node) or "" for name, node in functions.items()
    }
    words = {name: set(re.findall(r"\w+", text)) for name, text in segments.items()}

    def text(name: str, seen: set[str]) -> str:
        """The source of ``name`` and of the module's functions it names, transitively."""
        parts = [segments[name]]
        for other in sorted(words[name] & functions.keys() - seen):
            seen.add(other)
            parts.append(text(other, seen))
        return "\n".join(parts)

    missing = []
    for name, node in functions.items():
        if not name.startswith("test_"):
            continue
        marks = module_marks | _marks(node.decorator_list)
        body = text(name, {name})
        for marker, pattern in USES.items():
            if pattern.search(body) and not ({marker} | ALSO.get(marker, set())) & marks:
                missing.append(f"{name}: {marker}")
    return missing


#: every test module but the benchmarks (run only when asked) and this one (whose example
#: below names the programs)
MODULES = sorted(
    p
    for p in TESTS.rglob("test_*.py")
    if "benchmarks" not in p.parts and p != Path(__file__).resolve()
)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(TESTS)))
def test_a_test_using_a_program_carries_its_marker(path: Path) -> None:
    assert unmarked(path) == []


def test_the_check_finds_an_unmarked_use(tmp_path: Path) -> None:
    module = tmp_path / "test_example.py"
    module.write_text(
        "import pytest\n"
        "from tooling import need\n"
        "@pytest.fixture\n"
        "def saved():\n"
        '    return need("soffice", "saves")\n'
        "def test_unmarked(saved):\n"
        "    pass\n"
        "@pytest.mark.libreoffice\n"
        "def test_marked(saved):\n"
        "    pass\n"
        "@pytest.mark.pyodide\n"
        "def test_under_node():\n"
        '    need("node", "runs")\n'
    )
    assert unmarked(module) == ["test_unmarked: libreoffice"]
    assert MODULES, "no test module found"
