"""One error root with the right parents (issue 23).

Every exception class the product defines derives from :class:`scoring.errors.HumeError` (the CLI
turns those, and only those, into one line), and only the store's own refusals are
:class:`~hume_sync.errors.StoreError`: once ``AnnotatorError`` derived from it, so code catching a
store conflict also caught a bad email. The modules are walked, so a new class is checked too.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from hume_sync import errors
from hume_sync.errors import HumeError, StoreError

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
def test_only_the_store_raises_store_errors(exc: type[BaseException]) -> None:
    if issubclass(exc, StoreError):
        assert exc is StoreError or exc.__module__.startswith("hume_sync.store")


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
