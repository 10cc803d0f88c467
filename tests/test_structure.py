"""The package's shape: no import circle, law/ depends on nothing outside law/, and no
module reaches into another module's private (``_underscore``) names.

The import graph is read from the source with ``ast`` (every ``import`` statement,
including those inside functions, which run later but still make a circle; imports under
``if TYPE_CHECKING:`` are left out: they never run). An edge ``a -> b`` means module
``a`` imports module ``b``; ``from package import name`` is an edge to the submodule
``package.name`` when there is one, else to the package.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PACKAGE = "nj_incentives"
ROOT = Path(__file__).resolve().parents[1] / "addin" / PACKAGE


@dataclass
class Module:
    name: str
    path: Path
    is_package: bool
    #: imported module -> line numbers
    imports: dict[str, list[int]] = field(default_factory=dict)
    #: (line, "module.name") for each private name of another module this one uses
    private: list[tuple[int, str]] = field(default_factory=list)


def _module_name(path: Path, root: Path) -> tuple[str, bool]:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _type_checking_only(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of the tree except the bodies of ``if TYPE_CHECKING:``."""
    found: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        if _type_checking_only(node):
            stack.extend(getattr(node, "orelse", []))
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def read_package(root: Path = ROOT) -> dict[str, Module]:
    """Every module of the package under ``root`` with its imports and private uses."""
    modules: dict[str, Module] = {}
    for path in sorted(root.rglob("*.py")):
        name, is_package = _module_name(path, root)
        modules[name] = Module(name, path, is_package)
    for module in modules.values():
        tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
        here = module.name if module.is_package else module.name.rpartition(".")[0]
        aliases: dict[str, str] = {}  # a local name bound to one of the package's modules

        def edge(target: str, line: int, module: Module = module) -> None:
            if target in modules and target != module.name:
                module.imports.setdefault(target, []).append(line)

        for node in _runtime_nodes(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    edge(alias.name, node.lineno)
                    if alias.asname and alias.name in modules:
                        aliases[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - node.level + 1]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                for alias in node.names:
                    submodule = f"{source}.{alias.name}"
                    if submodule in modules:
                        edge(submodule, node.lineno)
                        aliases[alias.asname or alias.name] = submodule
                    else:
                        edge(source, node.lineno)
                        if source in modules and source != module.name and _private(alias.name):
                            module.private.append((node.lineno, f"{source}.{alias.name}"))
        for node in _runtime_nodes(tree):
            if (
                isinstance(node, ast.Attribute)
                and _private(node.attr)
                and isinstance(node.value, ast.Name)
                and aliases.get(node.value.id, module.name) != module.name
            ):
                module.private.append((node.lineno, f"{aliases[node.value.id]}.{node.attr}"))
    return modules


def cycles(modules: dict[str, Module]) -> list[list[str]]:
    """The import circles: each strongly connected component of more than one module
    (Tarjan's algorithm), as a list of module names, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for target in modules[name].imports:
            if target not in index:
                visit(target)
                low[name] = min(low[name], low[target])
            elif target in on_stack:
                low[name] = min(low[name], index[target])
        if low[name] == index[name]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == name:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in modules:
        if name not in index:
            visit(name)
    return sorted(found)


def _describe(modules: dict[str, Module], component: list[str]) -> str:
    members = set(component)
    return "; ".join(
        f"{name} -> {target} (line {lines[0]})"
        for name in component
        for target, lines in modules[name].imports.items()
        if target in members
    )


@pytest.fixture(scope="module")
def package() -> dict[str, Module]:
    return read_package()


def test_the_reader_sees_the_whole_package(package: dict[str, Module]) -> None:
    # the modules the checks below are about, and edges that are known to exist
    for name in (
        "nj_incentives.runtimes.xlwings_classic",
        "nj_incentives.core.cells",
        "nj_incentives.programs.beip.rules",
    ):
        assert name in package
    assert "nj_incentives.core.common" in package["nj_incentives.programs.beip.rules"].imports
    assert "nj_incentives.core.cells" in package["nj_incentives.runtimes.xlwings_classic"].imports


def test_the_package_has_no_import_circle(package: dict[str, Module]) -> None:
    found = cycles(package)
    assert not found, "import circles: " + " | ".join(_describe(package, c) for c in found)


def _layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def _upward(package: dict[str, Module], layer: str, allowed: set[str]) -> list[str]:
    return [
        f"{name} -> {target} (line {lines[0]})"
        for name, module in package.items()
        if _layer(name) == layer
        for target, lines in module.imports.items()
        if _layer(target) not in allowed
    ]


def test_core_imports_nothing_outside_core(package: dict[str, Module]) -> None:
    assert "nj_incentives.core.parameters" in package  # the layer is there to check
    assert not _upward(package, "core", {"core"})


def test_programs_import_only_core_and_programs(package: dict[str, Module]) -> None:
    assert "nj_incentives.programs.beip.rules" in package
    assert not _upward(package, "programs", {"core", "programs"})


#: The modules of programs/ that everything above it may import: the registry, and the
#: shared modules of the programs package that are no program.
REGISTRY = frozenset({"programs", "programs.forms", "programs.template_inputs"})
#: The imports of one statute's own module from above programs/ that remain, each with
#: its reason; the list only shrinks (an entry no longer needed fails the test below).
STATUTE_SPECIFIC: dict[tuple[str, str], str] = {}


def _statute_imports(package: dict[str, Module]) -> dict[tuple[str, str], int]:
    return {
        (name, target): lines[0]
        for name, module in package.items()
        if _layer(name) not in ("programs", "core")
        for target, lines in module.imports.items()
        if _layer(target) == "programs" and target.partition(".")[2] not in REGISTRY
    }


def test_everything_above_programs_reaches_them_through_the_registry(
    package: dict[str, Module],
) -> None:
    found = _statute_imports(package)
    new = {edge: line for edge, line in found.items() if edge not in STATUTE_SPECIFIC}
    assert not new, "a statute's module imported above programs/ (use the registry): " + (
        "; ".join(f"{a} -> {b} (line {line})" for (a, b), line in new.items())
    )
    stale = [edge for edge in STATUTE_SPECIFIC if edge not in found]
    assert not stale, f"no longer imported: remove from STATUTE_SPECIFIC: {stale}"


def test_the_registry_check_can_fail(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "__init__.py": "",
            "programs/__init__.py": "",
            "programs/beip/__init__.py": "",
            "programs/beip/rules.py": "",
            "cli/__init__.py": "",
            "cli/calc.py": "from pkg.programs.beip import rules\nfrom pkg import programs\n",
        },
    )
    modules = read_package(root)
    assert _statute_imports(modules) == {("pkg.cli.calc", "pkg.programs.beip.rules"): 1}


def test_the_layer_check_can_fail(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "__init__.py": "",
            "core/__init__.py": "",
            "core/a.py": "from pkg.programs import b\n",
            "programs/__init__.py": "",
            "programs/b.py": "from pkg.core import a\nfrom pkg.cli import c\n",
            "cli/__init__.py": "",
            "cli/c.py": "",
        },
    )
    modules = read_package(root)
    assert _upward(modules, "core", {"core"}) == ["pkg.core.a -> pkg.programs.b (line 1)"]
    assert _upward(modules, "programs", {"core", "programs"}) == [
        "pkg.programs.b -> pkg.cli.c (line 2)"
    ]


def test_no_module_uses_another_modules_private_names(package: dict[str, Module]) -> None:
    found = [
        f"{module.path.relative_to(ROOT.parent)}:{line} uses {name}"
        for module in package.values()
        for line, name in module.private
    ]
    assert not found, "\n".join(found)


def test_the_xlwings_free_modules_do_not_import_xlwings(package: dict[str, Module]) -> None:
    for name in ("nj_incentives.core.cells", "nj_incentives.core.vba"):
        tree = ast.parse(package[name].path.read_text(encoding="utf-8"))
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            (node.module or "").split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
        }
        assert "xlwings" not in imported, name


# --------------------------------------------------------------------------- the checks can fail


def _write(root: Path, files: dict[str, str]) -> Path:
    package = root / "pkg"
    for relative, text in files.items():
        path = package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_a_circle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg.b import f\n",
            "b.py": "def f():\n    from pkg import a\n    return a\n",
            "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n",
        },
    )
    modules = read_package(root)
    assert cycles(modules) == [["pkg.a", "pkg.b"]]
    assert "pkg.a" not in modules["pkg.c"].imports  # TYPE_CHECKING imports never run


def test_a_private_import_is_found(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "_x = 1\ndef _f(): ...\n",
            "b.py": "from pkg.a import _x\n",
            "c.py": "from pkg import a as other\nprint(other._f)\n",
            "d.py": (
                "from . import a\nclass D:\n    def m(self):\n"
                "        return self._own, a.__name__\n"
            ),
        },
    )
    modules = read_package(root)
    assert modules["pkg.b"].private == [(1, "pkg.a._x")]
    assert modules["pkg.c"].private == [(2, "pkg.a._f")]
    assert modules["pkg.d"].private == []
