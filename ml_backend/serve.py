"""Serve a WSGI app (the ML backend) with gunicorn, configured for this use.

The app comes as an object: whoever builds it (``hume-ml-backend``, i.e.
``hume_sync.cli.backend_main``, for a study) hands it over, so this launcher knows no study and
names no module of the conductor. It runs in the master before workers fork (``preload_app``), so
nothing heavy is loaded per request.
"""

from __future__ import annotations

from typing import Any

from scoring.errors import HumeError

__all__ = ["DEFAULT_BIND", "ServeError", "gunicorn_options", "serve"]

DEFAULT_BIND = "127.0.0.1:9090"


class ServeError(HumeError, RuntimeError):
    """The server cannot run as asked (gunicorn missing, bad settings)."""


def gunicorn_options(*, bind: str, workers: int, threads: int, timeout: int) -> dict[str, Any]:
    """Build the gunicorn settings; those the installed gunicorn does not know are left out at load.

    Args:
        bind: the address to listen on, ``host:port``.
        workers: how many worker processes (at least 1).
        threads: how many threads per worker (at least 1; gthread workers).
        timeout: seconds a worker may take on one request before gunicorn restarts it.

    Returns:
        The settings for :func:`serve`, by gunicorn's names.

    Raises:
        ServeError: when ``workers`` or ``threads`` is below 1.
    """
    if workers < 1 or threads < 1:
        raise ServeError("--workers and --threads must be at least 1")
    return {
        "bind": bind,
        "workers": workers,
        "threads": threads,
        "timeout": timeout,
        "worker_class": "gthread",
        "preload_app": True,
        "accesslog": "-",
        "errorlog": "-",
        # gunicorn ≥ 25.1 opens a control socket at one fixed path per user
        # ($XDG_RUNTIME_DIR or ~/.gunicorn/gunicorn.ctl): two backends on one machine would share
        # (and take over) it. The backend needs no runtime control: it is turned off.
        "control_socket_disable": True,
    }


def serve(app: Any, options: dict[str, Any]) -> None:
    """Run ``app`` under gunicorn with ``options`` until stopped.

    Args:
        app: the WSGI app, built once in the master before workers fork.
        options: gunicorn settings, as :func:`gunicorn_options` makes them.

    Raises:
        ServeError: when gunicorn is not installed.
    """
    try:
        from gunicorn.app.base import BaseApplication
    except ImportError:
        raise ServeError("gunicorn is not installed (pip install 'hume[models]')") from None

    class _Server(BaseApplication):
        def load_config(self) -> None:
            for key, value in options.items():
                if key in self.cfg.settings:  # older gunicorn: no control socket to turn off
                    self.cfg.set(key, value)

        def load(self) -> Any:
            return app

    _Server().run()
