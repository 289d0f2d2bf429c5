"""A WSGI middleware for tests that serve the ML backend app: which paths Label Studio asked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class PathLog:
    """WSGI middleware that records the paths the backend was asked for."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app
        self.paths: list[str] = []

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        self.paths.append(environ.get("PATH_INFO", ""))
        return self.app(environ, start_response)
