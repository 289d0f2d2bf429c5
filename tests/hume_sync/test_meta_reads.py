"""Outside the store, the study's meta is read through its typed reader (``Store.study_meta``),
never by a key string: a misspelt key would read None silently, and a key's type would be
parsed again at each call site (issue 23)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("hume_sync", "ml_backend", "scoring", "label_studio_configs")


def _meta_reads_by_literal(tree: ast.AST) -> list[int]:
    """Lines of ``<x>.meta().get("key"...)`` / ``<x>.meta()["key"]`` with a literal key."""
    out = []
    for node in ast.walk(tree):
        call = None
        key = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "get" and node.args:
                call, key = node.func.value, node.args[0]
        elif isinstance(node, ast.Subscript):
            call, key = node.value, node.slice
        is_meta = (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "meta"
        )
        if is_meta and isinstance(key, ast.Constant) and isinstance(key.value, str):
            out.append(node.lineno)
    return out


def test_the_check_sees_a_literal_meta_read() -> None:
    assert _meta_reads_by_literal(ast.parse('x = store.meta().get("study_name", "")')) == [1]
    assert _meta_reads_by_literal(ast.parse('x = store.meta()["seed"]')) == [1]
    assert _meta_reads_by_literal(ast.parse("x = store.study_meta().study_name")) == []


def test_no_literal_meta_keys_outside_the_store() -> None:
    found = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.is_relative_to(ROOT / "hume_sync" / "store"):
                continue
            lines = _meta_reads_by_literal(ast.parse(path.read_text(encoding="utf-8")))
            found += [f"{path.relative_to(ROOT)}:{n}" for n in lines]
    assert found == []
