"""`hume-sync dashboard`: serve a live progress page for the project manager."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "dashboard"
HELP = "serve a live progress page for the project manager (status, agreement so far)"
DESCRIPTION: str | None = (
    HELP + ". One self-contained page that reloads itself: the numbers of "
    "'status --json' per subset, slot and annotator, invalid answers with links into Label "
    "Studio, agreement so far between annotators (as of the last pull) and, once the study "
    "is closed, the report's headline. It only reads: pull and the other commands run "
    "while it is up. The page shows annotator emails, so it is served on loopback only "
    "unless --allow-non-loopback is given."
)
WRITES_STUDY = False
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study_dir", metavar="STUDY_DIR")
    parser.add_argument("--port", type=int, default=8765, help="port to serve on (default: 8765)")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to serve on (default: 127.0.0.1); a non-loopback one needs "
        "--allow-non-loopback",
    )
    parser.add_argument(
        "--allow-non-loopback",
        action="store_true",
        help="serve on a non-loopback --host: anyone who reaches it sees annotator emails "
        "and links into their Label Studio servers",
    )
    parser.add_argument(
        "--refresh",
        type=int,
        default=30,
        metavar="SECONDS",
        help="how often the page reloads and Label Studio is read (default: 30)",
    )


def run(args: argparse.Namespace) -> int:
    from hume_sync.workflow import dashboard
    from hume_sync.workflow.cli_support import clients

    server = dashboard.make_server(
        Path(args.study_dir),
        clients,
        host=args.host,
        port=args.port,
        refresh_s=args.refresh,
        allow_non_loopback=args.allow_non_loopback,
    )
    return dashboard.serve(server, Path(args.study_dir))
