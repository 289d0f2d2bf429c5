"""`hume-sync pull`: bring the annotations from Label Studio into the study store."""

from __future__ import annotations

import argparse
import sys

NAME = "pull"
HELP = "bring the annotations from Label Studio into the study store"
DESCRIPTION: str | None = (
    HELP + ". Each annotator's Label Studio is the one registered with 'hume-sync annotators add'."
)
WRITES_STUDY = True
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study_dir", metavar="STUDY_DIR")
    parser.add_argument(
        "--full",
        action="store_true",
        help="read every project whole, not only what changed since the last pull "
        "(a read is whole anyway when the changes cannot be trusted)",
    )


def run(args: argparse.Namespace) -> int:
    from hume_sync.workflow.cli_support import clients, mirror, study_store
    from hume_sync.workflow.pull import pull_study
    from hume_sync.workflow.setup import recreate_hint

    with study_store(args.study_dir) as store:
        summary = pull_study(store, clients(), full=args.full)
        mirror(store, full=args.full)
    for problem in summary.invalid:
        print(f"warning: invalid answer, not counted: {problem}", file=sys.stderr)
    for foreign in summary.foreign:
        print(f"warning: not counted: {foreign}", file=sys.stderr)
    for missing in summary.missing_projects:
        print(f"warning: skipped {missing}; {recreate_hint(args.study_dir)}", file=sys.stderr)
    for note in summary.late_notes():
        print(note, file=sys.stderr)
    print(
        f"{summary.total('added')} annotation(s) added, {summary.total('updated')} updated, "
        f"{summary.total('deleted')} deleted, {summary.total('unchanged')} unchanged "
        f"({len(summary.invalid)} invalid, {summary.cancelled} skipped/cancelled); "
        f"{summary.change_reads} project(s) read for what changed, {summary.full_reads} whole"
    )
    if summary.skipped_subsets:
        print(f"not set up yet (run 'hume-sync setup'): {', '.join(summary.skipped_subsets)}")
    return 0
