"""``hume-ml-backend``: serve the ML backend app with gunicorn.

The app target is a gunicorn app string; the default names the study-backed factory that the
conductor (``hume_sync``) provides, so this launcher stays free of study code. The app is
loaded once in the master before workers fork (``preload_app``): a bad study directory fails at
start with one line, and nothing heavy is loaded per request.

    HUME_STUDY_DIR=studies/pilot hume-ml-backend --bind 127.0.0.1:9090
    ML_BACKEND_USER=ls ML_BACKEND_PASSWORD=... hume-ml-backend --study-dir studies/pilot
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

DEFAULT_APP = "hume_sync.reveal:create_backend_app()"
DEFAULT_BIND = "127.0.0.1:9090"
STUDY_DIR_ENV = "HUME_STUDY_DIR"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hume-ml-backend",
        description="Label Studio ML backend for a HUME study: serves the study's sealed model "
        "predictions through /predict once the study is closed (nothing before).",
    )
    p.add_argument(
        "--study-dir", help=f"the study folder (default: ${STUDY_DIR_ENV})", default=None
    )
    p.add_argument("--bind", default=DEFAULT_BIND, help=f"host:port (default {DEFAULT_BIND})")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--threads", type=int, default=4, help="threads per worker (default 4)")
    p.add_argument("--timeout", type=int, default=120, help="worker timeout in seconds")
    p.add_argument("--app", default=DEFAULT_APP, help="gunicorn app target (module:factory())")
    return p


def gunicorn_options(args: argparse.Namespace) -> dict[str, Any]:
    """gunicorn settings; those the installed gunicorn does not know are left out at load."""
    return {
        "bind": args.bind,
        "workers": args.workers,
        "threads": args.threads,
        "timeout": args.timeout,
        "worker_class": "gthread",
        "preload_app": True,
        "accesslog": "-",
        "errorlog": "-",
        # gunicorn ≥ 25.1 opens a control socket at one fixed path per user
        # ($XDG_RUNTIME_DIR or ~/.gunicorn/gunicorn.ctl): two backends on one machine would share
        # (and take over) it. The backend needs no runtime control: it is turned off.
        "control_socket_disable": True,
    }


def load_target(target: str) -> Callable[..., Any]:
    """Import a gunicorn-style app target (``module:name`` or ``module:factory()``)."""
    from gunicorn.util import import_app

    return import_app(target)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.study_dir:
        os.environ[STUDY_DIR_ENV] = args.study_dir
    if args.workers < 1 or args.threads < 1:
        print("hume-ml-backend: error: --workers and --threads must be at least 1", file=sys.stderr)
        return 2
    try:
        from gunicorn.app.base import BaseApplication
    except ImportError:
        print(
            "hume-ml-backend: error: gunicorn is not installed (pip install 'hume[models]')",
            file=sys.stderr,
        )
        return 2
    try:
        app = load_target(args.app)
    except Exception as exc:  # a bad study dir or target: one line, no traceback
        print(f"hume-ml-backend: error: {exc}", file=sys.stderr)
        return 2

    class _Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            for key, value in gunicorn_options(args).items():
                if key in self.cfg.settings:  # older gunicorn: no control socket to turn off
                    self.cfg.set(key, value)

        def load(self) -> Any:
            return app

    _Server().run()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
