"""The public surface of ``scoring`` (issue 37): what each module exports, and the package's own.

``scoring/__init__.py`` re-exports the public functions and records of its modules, loaded on
first use; these tests keep its run-time table, its type-checking imports and the modules'
``__all__`` in step, and keep ``import scoring`` free of NumPy.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import scoring
from tests._paths import REPO_ROOT

SCORING = REPO_ROOT / "scoring"

#: What ``scoring.agreement`` exported when it was one module: the split must keep every name.
AGREEMENT_NAMES = {
    "KRIPPENDORFF_LEVELS", "MIN_ITEMS", "SKEW_THRESHOLD", "WARN_CONSTANT", "WARN_DROPPED_ITEMS",
    "WARN_FEWER_THAN_TWO_RATERS", "WARN_FEW_ITEMS", "WARN_NO_HUMANS", "WARN_NO_SHARED_ITEMS",
    "WARN_ONE_CATEGORY", "WARN_SKEWED", "WARN_UNDEFINED_COMPARISONS", "agreement_band",
    "categorical_agreements", "cohen_kappa", "correlation_band", "fleiss_kappa", "high_agreement",
    "human_machine_agreement", "kappa_band", "krippendorff_alpha", "low_agreement",
    "mean_pairwise_ari", "mean_pairwise_cohen_kappa", "mean_pairwise_spearman",
    "percentage_agreement", "ratings_from_matrix", "reranking_agreement", "reranking_agreements",
}  # fmt: skip


def _public_modules() -> list[str]:
    """Dotted names of the modules under ``scoring/`` with no private part in their path."""
    names = []
    for path in sorted(SCORING.rglob("*.py")):
        parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not any(p.startswith("_") for p in parts):
            names.append(".".join(parts))
    return names


def _type_checking_imports() -> dict[str, str]:
    """``name -> module`` of the ``from scoring.x import name as name`` lines in __init__."""
    tree = ast.parse((SCORING / "__init__.py").read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If))
    return {
        alias.name: node.module.removeprefix("scoring.")
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("scoring.")
        for alias in node.names
        if alias.asname == alias.name
    }


@pytest.mark.parametrize("module", _public_modules())
def test_every_public_module_declares_what_it_exports(module: str) -> None:
    mod = importlib.import_module(module)
    assert isinstance(getattr(mod, "__all__", None), list | tuple), f"{module} has no __all__"
    missing = [name for name in mod.__all__ if not hasattr(mod, name)]
    assert missing == []
    assert len(set(mod.__all__)) == len(mod.__all__)


def test_the_package_re_exports_what_its_modules_define() -> None:
    table = {name: module for module, names in scoring._EXPORTS.items() for name in names}
    assert len(table) == sum(len(names) for names in scoring._EXPORTS.values())  # no name twice
    assert sorted(scoring.__all__) == sorted(table)
    assert _type_checking_imports() == table
    for name, module in table.items():
        mod = importlib.import_module(f"scoring.{module}")
        assert name in mod.__all__, f"{name} is not public in scoring.{module}"
        assert getattr(scoring, name) is getattr(mod, name)
    assert {"wilson", "Score", "Agreement", "fleiss_kappa", "evaluate_subset"} <= set(table)


def test_unknown_names_still_raise_and_submodules_still_import() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = scoring.no_such_name  # type: ignore[attr-defined]
    from scoring import intervals, kernels

    assert intervals.wilson is scoring.wilson
    assert kernels.spearman_of_codes.vectorized is True  # type: ignore[attr-defined]
    assert {"wilson", "records"} <= set(dir(scoring))


def test_the_agreement_package_keeps_every_name() -> None:
    from scoring import agreement

    assert set(agreement.__all__) == AGREEMENT_NAMES
    for name in AGREEMENT_NAMES:
        value = getattr(agreement, name)
        if callable(value):
            # defined in a private module behind the package
            assert value.__module__.startswith("scoring.agreement._"), name


def test_importing_the_package_loads_no_module_of_its_own() -> None:
    """``hume-sync leaderboard`` imports ``scoring``; re-exporting must not pull NumPy in."""
    probe = "import json, sys, scoring; print(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
        timeout=60, check=True,
    ).stdout  # fmt: skip
    loaded = set(json.loads(out.strip().splitlines()[-1]))
    assert {m for m in loaded if m.startswith("scoring.")} == set()
    assert {"numpy", "scipy", "sklearn", "pandas"} & loaded == set()
    assert Path(scoring.__file__).parent == SCORING
