"""No code outside the task types branches on a type's name.

A type owns everything type-specific (CONTRIBUTING, "Adding a task type"): a new family is a
folder and one registration line. A line such as ``if task_type == "sts":`` elsewhere would make
the next family edit shared code, so every product module outside ``hume_sync/task_types/`` is
scanned for a comparison with the ``task_type`` name or with a registered type's name.
"""

from __future__ import annotations

import re

from hume_sync import task_types
from tests._paths import REPO_ROOT

PACKAGES = ("scoring", "label_studio_configs", "ml_backend", "hume_sync")
#: Where a type's name may be spelt: the types themselves.
OWN_FOLDER = REPO_ROOT / "hume_sync" / "task_types"


def _pattern(names: list[str]) -> re.Pattern[str]:
    quoted = "|".join(re.escape(n) for n in names)
    return re.compile(
        rf"""task_type\s*(==|!=|\bin\s*[\(\[\{{])|(==|!=)\s*["']({quoted})["']|["']({quoted})["']\s*(==|!=)"""
    )


def branches(text: str, names: list[str]) -> list[str]:
    """The lines of ``text`` that compare with ``task_type`` or with a type's name."""
    pattern = _pattern(names)
    return [line.strip() for line in text.splitlines() if pattern.search(line)]


def test_no_module_outside_the_types_branches_on_a_type() -> None:
    names = task_types.names()
    found = {}
    for package in PACKAGES:
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            if OWN_FOLDER in path.parents:
                continue
            lines = branches(path.read_text(encoding="utf-8"), names)
            if lines:
                found[path.relative_to(REPO_ROOT).as_posix()] = lines
    assert found == {}


def test_the_scan_sees_a_branch() -> None:
    names = task_types.names()
    assert len(names) >= 5
    assert branches('if sub.task_type == "sts":\n    pass', names) == ['if sub.task_type == "sts":']
    assert branches("if kind != 'reranking':", names) == ["if kind != 'reranking':"]
    assert branches("if task_type in (A, B):", names) == ["if task_type in (A, B):"]
    assert branches('label = "sts"\nif task.name == other:', names) == []
