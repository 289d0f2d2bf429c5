"""The packages' import graph: no circles, and the layers point one way.

``hume_sync → ml_backend → label_studio_configs → scoring``: a lower package never imports a
higher one (nor names it in a string for a late import), so each can be used and tested alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("scoring", "label_studio_configs", "ml_backend", "hume_sync")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in LAYERS for p in (ROOT / pkg).rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Product modules that ``name`` imports (absolute and relative imports alike)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join([*package, base] if base else package)
            targets = [base, *(f"{base}.{a.name}" for a in node.names)]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: _imports(m, p, set(modules)) for m, p in modules.items()}


def _layer(module: str) -> int:
    return LAYERS.index(module.split(".")[0])


def test_the_graph_sees_imports() -> None:
    graph = _graph()
    assert "scoring.agreement" in graph["scoring.subset_report"]
    assert any(t.startswith("hume_sync.store") for t in graph["hume_sync.cli"])


def test_lower_layers_never_import_higher_ones() -> None:
    wrong = [
        f"{m} imports {t}"
        for m, targets in _graph().items()
        for t in targets
        if _layer(t) > _layer(m)
    ]
    assert wrong == []


@pytest.mark.parametrize("pkg", LAYERS[:3])
def test_lower_layers_never_name_hume_sync_in_a_string(pkg: str) -> None:
    named = [
        f"{p.relative_to(ROOT)}: {node.value!r}"
        for p in (ROOT / pkg).rglob("*.py")
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.split(".")[0].split(":")[0] == "hume_sync"
    ]
    assert named == []


def test_no_import_circles() -> None:
    """Tarjan's strongly connected components over module imports: every one of size 1.

    A package's ``__init__`` importing its own submodules (and them importing a sibling through
    the package) is how Python packages are built, so edges into one's own package are kept out.
    """
    graph = _graph()
    edges = {m: {t for t in targets if not m.startswith(t + ".")} for m, targets in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    assert circles == []
