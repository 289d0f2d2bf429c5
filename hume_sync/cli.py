"""The `hume-sync` command line: the dispatcher over :data:`hume_sync.commands.COMMANDS`.

Each command is a module of :mod:`hume_sync.commands` (its arguments, its run, what it prints,
whether it writes the study); this module only builds the parser from that list, holds the
study's lock for the commands that write it, and turns every user-facing failure (bad input,
unreadable file, unreachable server) into one line on stderr and a non-zero exit code; a
traceback means a bug in hume itself.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from hume_sync.errors import HumeError

EXIT_USER_ERROR = 2


def build_parser() -> argparse.ArgumentParser:
    """``hume-sync`` and one sub-parser per command, in the order of the list."""
    from hume_sync.commands import COMMANDS

    parser = argparse.ArgumentParser(
        prog="hume-sync",
        description="Measure human performance on MTEB tasks with Label Studio (HUME).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        p = sub.add_parser(command.NAME, help=command.HELP, description=command.DESCRIPTION)
        # before the command's own arguments, so that an action's defaults override these
        p.set_defaults(
            run=command.run,
            writes_study=command.WRITES_STUDY and not command.CREATES_STUDY,
        )
        command.add_arguments(p)
    return parser


def _run(args: argparse.Namespace) -> int:
    """Run the command, holding the study's lock when it writes the study."""
    if not args.writes_study:
        return int(args.run(args))
    from hume_sync.workflow.cli_support import locked

    with locked(Path(args.study_dir), args.command):
        return int(args.run(args))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(_run(args))
    except HumeError as exc:
        print(f"hume-sync {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except sqlite3.Error as exc:  # a SQLite failure met outside the store's own guards
        from hume_sync.store.sqlite_errors import describe, is_environmental

        if not is_environmental(exc):
            raise
        print(f"hume-sync {args.command}: error: {describe(exc, None)}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print(f"hume-sync {args.command}: interrupted", file=sys.stderr)
        return 130


# --------------------------------------------------------------------------- hume-ml-backend


def build_backend_parser() -> argparse.ArgumentParser:
    from hume_sync.workflow.backend import STUDY_DIR_ENV
    from ml_backend.serve import DEFAULT_BIND

    p = argparse.ArgumentParser(
        prog="hume-ml-backend",
        description="Label Studio ML backend for a HUME study: serves the study's sealed model "
        "predictions through /predict once the study is closed (nothing before).",
    )
    p.add_argument("--study-dir", help=f"the study folder (default: ${STUDY_DIR_ENV})")
    p.add_argument("--bind", default=DEFAULT_BIND, help=f"host:port (default {DEFAULT_BIND})")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--threads", type=int, default=4, help="threads per worker (default 4)")
    p.add_argument("--timeout", type=int, default=120, help="worker timeout in seconds")
    return p


def backend_main(argv: Sequence[str] | None = None) -> int:
    """``hume-ml-backend``: the study's ML backend app under gunicorn (one-line errors)."""
    args = build_backend_parser().parse_args(argv)
    try:
        from hume_sync.workflow.backend import create_backend_app
        from ml_backend.serve import gunicorn_options, serve

        options = gunicorn_options(
            bind=args.bind, workers=args.workers, threads=args.threads, timeout=args.timeout
        )
        app = create_backend_app(args.study_dir)
    except HumeError as exc:  # a bad study dir or setting: one line, no traceback
        print(f"hume-ml-backend: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    serve(app, options)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
