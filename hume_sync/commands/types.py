"""`hume-sync types`: mteb's text task types, and which of them hume has a human protocol for."""

from __future__ import annotations

import argparse

NAME = "types"
HELP = "list mteb's text task types and the hume task type for each"
DESCRIPTION: str | None = (
    "Count mteb's text tasks by type (from the installed mteb) and name the hume task type a "
    "study spec uses for each; 'not yet' where hume has no human protocol for it."
)
WRITES_STUDY = False
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    from hume_sync.workflow.cli_support import print_json
    from hume_sync.workflow.families import coverage, families, render

    rows = families()
    if args.json:
        print_json(coverage(rows))
    else:
        print(render(rows))
    return 0
