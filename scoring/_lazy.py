"""Modules loaded on first use, so that importing :mod:`scoring` costs nothing it does not use.

``hume-sync leaderboard`` reads result files and ranks raters: pure Python. Importing NumPy,
SciPy, scikit-learn (which brings pandas) and pytrec_eval at module level cost it seconds before
any work. ``np = LazyModule("numpy")`` reads like the import it replaces; the module is imported
the first time an attribute is looked up, and each attribute is then kept on the proxy, so later
look-ups cost what a module attribute costs.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name`` until an attribute is first read."""

    def __init__(self, name: str) -> None:
        self.__dict__["_lazy_name"] = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)  # copy, pickle and friends probe dunders: no import
        value = getattr(importlib.import_module(self.__dict__["_lazy_name"]), attr)
        self.__dict__[attr] = value
        return value

    def __repr__(self) -> str:
        return f"<lazy module {self.__dict__['_lazy_name']!r}>"
