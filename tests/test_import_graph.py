"""The packages' import graph: no circles, and the layers point one way.

``hume_sync → ml_backend → label_studio_configs → scoring``: a lower package never imports a
higher one (nor names it in a string for a late import), so each can be used and tested alone.

Inside ``hume_sync`` the same holds between its folders and top-level modules
(:data:`HUME_SYNC_LAYERS`): the commands sit above the steps they run (``hume_sync/workflow``),
which sit above the report; the report reads what a step wrote through the shared rules
(``hume_sync/rules``) and never imports a step or a command; the registry of task types sits
above the study code it plugs into. Inside ``hume_sync/commands`` no command module imports
another: what two commands share lives in ``workflow``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("scoring", "label_studio_configs", "ml_backend", "hume_sync")
#: ``hume_sync``'s folders and top-level modules, lowest first: each imports only from lower
#: rows, never from its own row nor a higher one. A new folder or module gets a row here.
HUME_SYNC_LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),
    ("file_modes", "progress", "study_lock"),
    ("store",),
    ("sealing", "study"),
    ("task_types",),
    ("rules", "labelstudio"),
    ("report",),
    ("workflow",),
    ("commands",),
    ("cli",),
)
#: Imports against :data:`HUME_SYNC_LAYERS` that remain, each with the reason; no new one may be
#: added (the test fails), and one removed must leave this list too (it fails as well).
KNOWN_WRONG_WAY: set[tuple[str, str]] = set()


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


def _unit(module: str) -> str | None:
    """The folder or top-level module of ``hume_sync`` that ``module`` is in (None outside)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "hume_sync" and len(parts) > 1 else None


def _unit_layer(module: str) -> int:
    unit = _unit(module)
    return next(i for i, row in enumerate(HUME_SYNC_LAYERS) if unit in row)


def _unit_edges() -> set[tuple[str, str]]:
    """(importing module, imported module) for every import between two ``hume_sync`` units."""
    return {
        (m, t)
        for m, targets in _graph().items()
        for t in targets
        if _unit(m) and _unit(t) and _unit(m) != _unit(t)
    }


def test_the_graph_sees_imports() -> None:
    graph = _graph()
    assert "scoring.agreement" in graph["scoring.subset_report"]
    assert any(t.startswith("hume_sync.store") for t in graph["hume_sync.cli"])
    edges = _unit_edges()
    assert ("hume_sync.workflow.dashboard", "hume_sync.report.dashboard_html") in edges
    assert ("hume_sync.report.model", "hume_sync.rules.late_answers") in edges


def test_every_hume_sync_unit_has_a_layer() -> None:
    units = {_unit(m) for m in _modules()} - {None}
    placed = {u for row in HUME_SYNC_LAYERS for u in row}
    assert sorted(units - placed) == []
    assert sorted(placed - units) == []


def test_hume_sync_folders_import_only_lower_layers() -> None:
    """E.g. the report never imports a command, a Label Studio module never imports the report,
    and the rules import neither."""
    wrong = {(m, t) for m, t in _unit_edges() if _unit_layer(t) >= _unit_layer(m)}
    assert sorted(wrong - KNOWN_WRONG_WAY) == []
    assert sorted(KNOWN_WRONG_WAY - wrong) == [], "no longer imported: drop from KNOWN_WRONG_WAY"


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("report", "commands"),
        ("report", "workflow"),
        ("workflow", "commands"),
        ("rules", "report"),
        ("rules", "commands"),
    ],
)
def test_named_folders_never_import_the_other(lower: str, higher: str) -> None:
    found = sorted(
        f"{m} imports {t}" for m, t in _unit_edges() if _unit(m) == lower and _unit(t) == higher
    )
    assert found == []


def _command_to_command(graph: dict[str, set[str]]) -> list[str]:
    """Imports from one command module into another one (or into the list of them): each
    command stands alone, the package's ``__init__`` alone lists them all."""
    package = "hume_sync.commands"
    return sorted(
        f"{m} imports {t}"
        for m, targets in graph.items()
        if m.startswith(package + ".")
        for t in targets
        if t == package or t.startswith(package + ".")
    )


def test_no_command_module_imports_another() -> None:
    assert _command_to_command(_graph()) == []


def test_the_command_check_sees_an_import_between_commands() -> None:
    """Edges the commands had before each became one module (status → pull, mirror → setup),
    and one through the package: each is found, the list's own imports are not."""
    graph = {
        "hume_sync.commands": {"hume_sync.commands.status"},
        "hume_sync.commands.status": {"hume_sync.commands.pull", "hume_sync.store"},
        "hume_sync.commands.mirror": {"hume_sync.commands.setup", "hume_sync.workflow.pull"},
        "hume_sync.commands.deploy_kubernetes": {"hume_sync.commands"},
    }
    assert _command_to_command(graph) == [
        "hume_sync.commands.deploy_kubernetes imports hume_sync.commands",
        "hume_sync.commands.mirror imports hume_sync.commands.setup",
        "hume_sync.commands.status imports hume_sync.commands.pull",
    ]


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
