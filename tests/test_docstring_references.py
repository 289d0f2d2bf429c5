"""Dotted names in the product's text point where the code is (issue 23).

Docstrings and comments name modules and classes as ``hume_sync.report.model.StudyReport``; a
move leaves them pointing at a module that no longer holds the name (``report.export`` once only
re-imported ``StudyReport``). Each such name must import, and a class or function must be named
at the module that defines it (or that lists it in ``__all__``), not at one that happens to
import it.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from tests._paths import REPO_ROOT

PACKAGES = ("scoring", "label_studio_configs", "ml_backend", "hume_sync")
DOTTED = re.compile(
    r"(?<![\w./-])((?:hume_sync|scoring|ml_backend|label_studio_configs)(?:\.[A-Za-z_]\w*)+)"
)


def resolves(name: str) -> bool:
    """Whether ``name`` imports, with a function or class named where it is defined or exported."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        obj: object = module
        for attr in parts[split:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        if split < len(parts) and callable(obj) and hasattr(obj, "__module__"):
            exported = parts[split] in getattr(module, "__all__", ())
            return obj.__module__ == module.__name__ or exported
        return True
    return False


def test_the_check_refuses_a_re_import_and_a_missing_name() -> None:
    assert resolves("hume_sync.report.model.StudyReport")
    assert resolves("scoring.errors")
    assert not resolves("hume_sync.report.export.StudyReport")  # imported there, defined in model
    assert not resolves("hume_sync.no_such_module")
    assert not resolves("scoring.errors.NoSuchError")


def test_every_dotted_name_in_the_product_resolves() -> None:
    stale = []
    for package in PACKAGES:
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            text = Path(path).read_text(encoding="utf-8")
            for number, line in enumerate(text.splitlines(), 1):
                for match in DOTTED.finditer(line):
                    if not resolves(match.group(1)):
                        stale.append(f"{path.relative_to(REPO_ROOT)}:{number}: {match.group(1)}")
    assert stale == []
