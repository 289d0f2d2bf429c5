"""`hume-sync up`: bring back every embedded Label Studio hume made (after a reboot)."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from hume_sync.errors import HumeError

if TYPE_CHECKING:
    from hume_sync.labelstudio.server import ServerInfo

NAME = "up"
HELP = (
    "start every embedded Label Studio (each annotator's, on its own port; the general one "
    "when used before or asked for with --data-dir/--port)"
)
DESCRIPTION: str | None = HELP
WRITES_STUDY = False
CREATES_STUDY = False

#: How `up` names the general embedded server (the others are each an annotator's).
GENERAL = "Label Studio"
#: The exit status when a server did not come up (as for bad input, everywhere).
EXIT_FAILED = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        help="where the embedded server keeps its data "
        "(default: $HUME_HOME/label-studio or ~/.hume/label-studio)",
    )
    parser.add_argument(
        "--port",
        type=int,
        help="port of the general server (default: its last one, else 8080)",
    )


def run(args: argparse.Namespace) -> int:
    """Each embedded server on its own port.

    The general server (``$HUME_HOME/label-studio``) comes up only when it was used before or is
    asked for (``--data-dir``/``--port``): annotators work on servers of their own, and a busy
    8080 must not keep their servers down. One line per server; exit 2 if any failed.
    """
    from hume_sync.labelstudio import server
    from hume_sync.labelstudio import servers as ls_servers

    wanted: list[tuple[str, Callable[[], ServerInfo]]] = []
    general = Path(args.data_dir) if args.data_dir else server.default_data_dir()
    if args.data_dir or args.port or (general / server.CREDENTIALS_FILE).is_file():
        wanted.append((GENERAL, functools.partial(ls_servers.start_general, general, args.port)))
    for d in ls_servers.embedded_annotator_dirs():
        label = f"annotator's Label Studio ({d.parent.name})"
        wanted.append((label, functools.partial(ls_servers.start_embedded, d)))
    if not wanted:
        print(
            "nothing to start: no annotator has a server yet ('hume-sync annotators add'); "
            "'hume-sync up --port 8080' starts a general Label Studio"
        )
        return 0
    failed = 0
    outcomes = ls_servers.start_each([start for _, start in wanted])
    for (label, _), outcome in zip(wanted, outcomes, strict=True):
        if isinstance(outcome, HumeError):
            failed += 1
            print(f"hume-sync up: error: {label}: {outcome}", file=sys.stderr)
            continue
        state = "already running" if outcome.already_running else "started"
        print(f"{label} {state} at {outcome.url}")
        if label == GENERAL:
            creds = general / server.CREDENTIALS_FILE
            print(f"  login: {outcome.username} (password and API token in {creds})")
    return EXIT_FAILED if failed else 0
