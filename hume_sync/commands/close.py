"""`hume-sync close`: mark annotation as over, so that sealed predictions may be revealed."""

from __future__ import annotations

import argparse

NAME = "close"
HELP = "mark annotation as over (every project finished, or --force)"
DESCRIPTION: str | None = (
    "Mark the study closed so that its sealed predictions may be revealed. "
    "Without --force every subset's Label Studio project must be finished."
)
WRITES_STUDY = True
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study_dir", metavar="STUDY_DIR")
    parser.add_argument(
        "--force", action="store_true", help="close even if projects are unfinished"
    )


def run(args: argparse.Namespace) -> int:
    from hume_sync.workflow.cli_support import clients, study_store
    from hume_sync.workflow.reveal import close_study

    with study_store(args.study_dir) as store:
        result = close_study(store, None if args.force else clients(), force=args.force)
    if result.already:
        print(f"study already closed at {result.closed_at} ({result.closed_by})")
    else:
        print(f"study closed at {result.closed_at} ({result.closed_by})")
    return 0
