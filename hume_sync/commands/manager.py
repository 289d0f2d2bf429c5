"""`hume-sync manager`: the manager's own Label Studio, where pull mirrors the study."""

from __future__ import annotations

import argparse
import sys

NAME = "manager"
HELP = (
    "the manager's own Label Studio, where pull mirrors every subset with all annotators' "
    "answers side by side (no annotator has an account there)"
)
DESCRIPTION: str | None = HELP + "."
WRITES_STUDY = False
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="manager_command", required=True, metavar="ACTION")
    up = actions.add_parser("up", help="start the embedded one, or record the team's (--url)")
    up.add_argument(
        "--url", help="the team's server (its admin token in LABEL_STUDIO_API_KEY)", default=None
    )
    actions.add_parser("url", help="print its URL")


def run(args: argparse.Namespace) -> int:
    import os

    from hume_sync.labelstudio import manager

    if args.manager_command == "url":
        url = manager.configured_url()
        if url is None:
            print("error: no manager's Label Studio yet: 'hume-sync manager up'", file=sys.stderr)
            return 1
        print(url)
        return 0
    token = os.environ.get("LABEL_STUDIO_API_KEY", "").strip() or None
    print(manager.up(args.url, token))
    return 0
