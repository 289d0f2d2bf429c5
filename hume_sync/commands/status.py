"""`hume-sync status`: progress per subset, annotator slot and annotator, with ETAs."""

from __future__ import annotations

import argparse

NAME = "status"
HELP = "progress per subset, annotator slot and annotator, with ETAs"
DESCRIPTION: str | None = (
    HELP + ". Each annotator's Label Studio is the one registered with 'hume-sync annotators add'."
)
WRITES_STUDY = False
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study_dir", metavar="STUDY_DIR")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--full",
        action="store_true",
        help="read every project whole, not only what changed since the last pull "
        "(a read is whole anyway when the changes cannot be trusted)",
    )


def run(args: argparse.Namespace) -> int:
    from hume_sync.workflow import status, status_effort
    from hume_sync.workflow.cli_support import clients, print_json, study_store

    with study_store(args.study_dir) as store:
        if args.json:
            print_json(status.status_json(store, clients(), full=args.full))
            return 0
        result = status.study_status(store, clients(), full=args.full)
        effort = status_effort.effort_json(store)
    print(status.render(result))
    print()
    print("\n".join(status_effort.effort_lines(effort)))
    return 0
