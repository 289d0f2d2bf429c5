"""Where a task type's maths lives: one convention for every registered type (issue 23).

How an embedding model answers a type (as mteb does) is ``ml_backend/procedures/<name>.py``; how
its human answers are aggregated and scored is ``scoring/aggregation/<name>.py``; what several
types share is each package's ``common.py``, which names no type. The type's adapters in
``hume_sync/task_types/<name>/`` import their own two modules and no other type's, so a new type
adds its two modules and nothing shared grows a branch for it. (That these modules never import
the registry, nor anything of ``hume_sync``, is ``tests/test_import_graph.py``'s layer rule.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from hume_sync import task_types

ROOT = Path(__file__).resolve().parents[1]
#: Each maths package, and the adapter of a type's package that must import its module there.
MATHS = {"ml_backend.procedures": "model.py", "scoring.aggregation": "scoring.py"}
#: Modules of a maths package that belong to no type.
SHARED = {"__init__", "common"}


def _folder(package: str) -> Path:
    return ROOT.joinpath(*package.split("."))


def _type_modules(package: str) -> set[str]:
    """The per-type modules of ``package`` (every module but the shared ones)."""
    return {p.stem for p in _folder(package).glob("*.py")} - SHARED


def _maths_imported(path: Path, package: str) -> set[str]:
    """The modules of ``package`` that the file at ``path`` imports (``from package import m``,
    ``from package.m import x`` and ``import package.m`` alike)."""
    modules = {p.stem for p in _folder(package).glob("*.py")}
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        for target in targets:
            rest = target.removeprefix(package + ".")
            if rest != target and rest.split(".")[0] in modules:
                found.add(rest.split(".")[0])
    return found


def _mentions(text: str, word: str) -> bool:
    """Whether ``text`` names ``word`` as a word of its own (any case; ``_`` or a space)."""
    pattern = re.escape(word).replace("_", "[_ ]")
    found = re.search(rf"(?<![A-Za-z0-9_]){pattern}(?![A-Za-z0-9_])", text, re.IGNORECASE)
    return found is not None


def test_every_registered_type_has_its_maths_modules() -> None:
    for package in MATHS:
        missing = sorted(set(task_types.names()) - _type_modules(package))
        assert missing == [], f"{package}: no module for {missing}"


def test_no_maths_module_without_a_registered_type() -> None:
    for package in MATHS:
        orphans = sorted(_type_modules(package) - set(task_types.names()))
        assert orphans == [], f"{package}: modules of no registered type: {orphans}"


@pytest.mark.parametrize("name", task_types.names())
def test_a_types_adapters_import_its_own_maths_and_no_other_types(name: str) -> None:
    own = ROOT / "hume_sync" / "task_types" / name
    for package, adapter in MATHS.items():
        assert name in _maths_imported(own / adapter, package), f"{name}/{adapter}: {package}"
        for path in sorted(own.glob("*.py")):
            others = sorted(_maths_imported(path, package) - {name} - SHARED)
            assert others == [], f"{path.relative_to(ROOT)} imports {package}'s {others}"


@pytest.mark.parametrize("package", MATHS)
def test_the_shared_modules_name_no_type(package: str) -> None:
    words = {w for t in map(task_types.get, task_types.names()) for w in (t.name, t.mteb_type)}
    for shared in sorted(SHARED):
        text = (_folder(package) / f"{shared}.py").read_text(encoding="utf-8")
        named = sorted(w for w in words if _mentions(text, w))
        assert named == [], f"{package}.{shared} names {named}"


def test_the_checks_see_an_import_and_a_name() -> None:
    """The helpers find what the tests rely on them to find (so a pass is not a blind one)."""
    pair = ROOT / "hume_sync" / "task_types" / "pair_classification"
    assert _maths_imported(pair / "model.py", "ml_backend.procedures") == {"pair_classification"}
    assert _maths_imported(pair / "scoring.py", "scoring.aggregation") >= {"pair_classification"}
    assert _mentions("mteb's PairClassification evaluator", "PairClassification")
    assert _mentions("one pair classification", "pair_classification")
    assert not _mentions("pair_classification", "classification")
