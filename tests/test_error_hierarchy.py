"""One error root with the right parents (issue 23).

Every exception class the product defines derives from :class:`scoring.errors.HumeError` (the CLI
turns those, and only those, into one line), and only the store's own refusals are
:class:`~hume_sync.errors.StoreError`: once ``AnnotatorError`` derived from it, so code catching a
store conflict also caught a bad email. The modules are walked, so a new class is checked too.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

from hume_sync import errors
from hume_sync.errors import HumeError, StoreError
from tests._paths import REPO_ROOT

PACKAGES = ("scoring", "label_studio_configs", "ml_backend", "hume_sync")

#: Exceptions that never leave their module: each is caught there and turned into an answer.
INTERNAL = {
    "ml_backend.app.BadRequest": "the HTTP handler answers it with a 400",
    "ml_backend.app.PayloadTooLarge": "the HTTP handler answers it with a 413",
    "ml_backend.llm.task.Reject": "the reader records it as the reply's status",
}


def _product_exceptions() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for package in PACKAGES:
        root = importlib.import_module(package)
        names = [package] + [
            m.name for m in pkgutil.walk_packages(root.__path__, prefix=f"{package}.")
        ]
        for name in names:
            try:
                module = importlib.import_module(name)
            except ImportError:  # an optional extra that is not installed (e.g. llm-local)
                continue
            for _, obj in inspect.getmembers(module, inspect.isclass):
                if issubclass(obj, BaseException) and obj.__module__ == name:
                    found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(found.values())


EXCEPTIONS = _product_exceptions()


def test_the_walk_finds_the_product_errors() -> None:
    names = {e.__name__ for e in EXCEPTIONS}
    assert {"HumeError", "StoreError", "AnnotatorError", "ScoringError", "ConfigError"} <= names
    assert {"PredictError", "LLMError", "BadRequest"} <= names


@pytest.mark.parametrize("exc", EXCEPTIONS, ids=lambda e: f"{e.__module__}.{e.__qualname__}")
def test_every_product_exception_derives_from_hume_error(exc: type[BaseException]) -> None:
    if f"{exc.__module__}.{exc.__qualname__}" in INTERNAL:
        assert not issubclass(exc, HumeError)
        return
    assert issubclass(exc, HumeError)


@pytest.mark.parametrize("exc", EXCEPTIONS, ids=lambda e: f"{e.__module__}.{e.__qualname__}")
def test_only_the_store_defines_store_errors(exc: type[BaseException]) -> None:
    if issubclass(exc, StoreError):
        assert exc is StoreError or exc.__module__.startswith("hume_sync.store")


def _raised_names(path: Path) -> list[tuple[int, str]]:
    """(line, name) of each ``raise Name(...)`` / ``raise Name`` / ``raise mod.Name(...)``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(target, ast.Name):
                found.append((node.lineno, target.id))
            elif isinstance(target, ast.Attribute):
                found.append((node.lineno, target.attr))
    return found


STORE_ERROR_NAMES = {e.__name__ for e in EXCEPTIONS if issubclass(e, StoreError)}


def _store_error_raises() -> dict[str, list[int]]:
    """Product files (relative paths) that raise a store error, with the lines."""
    where: dict[str, list[int]] = {}
    for package in PACKAGES:
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            lines = [n for n, name in _raised_names(path) if name in STORE_ERROR_NAMES]
            if lines:
                where[path.relative_to(REPO_ROOT).as_posix()] = lines
    return where


def test_only_the_store_raises_store_errors() -> None:
    """Where a store error is *raised*, not only defined: code outside the store that raises
    one would be caught by a handler meant for the store's own refusals."""
    where = _store_error_raises()
    assert any(f.startswith("hume_sync/store/") for f in where), "the scan sees no raise"
    outside = {f: lines for f, lines in where.items() if not f.startswith("hume_sync/store/")}
    assert outside == {}


@pytest.mark.parametrize(
    ("exc", "builtin"),
    [
        (errors.AnnotatorError, ValueError),
        (errors.LateAnswerError, ValueError),
        (errors.PredictCommandError, ValueError),
        (errors.SetupError, RuntimeError),
        (errors.RevealError, RuntimeError),
    ],
)
def test_command_errors_have_a_hume_and_a_builtin_parent(
    exc: type[Exception], builtin: type[Exception]
) -> None:
    assert issubclass(exc, HumeError)
    assert issubclass(exc, builtin)
    assert not issubclass(exc, StoreError)


def test_every_name_in_all_is_a_hume_error() -> None:
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), HumeError), name
