"""`hume-sync setup`: each subset's project on its annotators' own Label Studio, tasks imported."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from hume_sync.errors import CliError

if TYPE_CHECKING:
    from hume_sync.workflow.setup import SetupSummary

NAME = "setup"
HELP = "create each subset's project on its annotators' own Label Studio and import tasks"
DESCRIPTION: str | None = (
    HELP + ". Each annotator's Label Studio is the one registered with 'hume-sync annotators add'."
)
WRITES_STUDY = True
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study_dir", metavar="STUDY_DIR")
    parser.add_argument(
        "--recreate-missing",
        action="store_true",
        help="create projects deleted in Label Studio again and re-import their tasks "
        "(answers already pulled stay in the study store)",
    )
    parser.add_argument(
        "--ml-backend",
        metavar="URL",
        help="hume-ml-backend's URL as Label Studio reaches it: recorded in the study and "
        "connected to every project (now and at every later setup); basic auth from "
        "ML_BACKEND_USER / ML_BACKEND_PASSWORD",
    )


def run(args: argparse.Namespace) -> int:
    from hume_sync.labelstudio.ml_backends import study_backend
    from hume_sync.workflow.cli_support import clients, mirror, study_store
    from hume_sync.workflow.setup import setup_study

    with study_store(args.study_dir) as store:
        summary = setup_study(
            store,
            clients(),
            recreate_missing=args.recreate_missing,
            study_dir=args.study_dir,
            ml_backend=study_backend(store, args.ml_backend),
        )
        mirror(store, full=True)  # the manager's projects, the ML backend connected, at once
    for p in summary.projects:
        what = "created again" if p.recreated else "created" if p.created else "found"
        print(
            f"  {p.subset:<44} slot {p.slot} ({p.email}): project {p.project_id} ({what}), "
            f"{p.imported} task(s) imported, {p.total_tasks} in all"
            + ("; labelling interface restored" if p.config_restored else "")
        )
    for seat in summary.open_seats:
        print(f"  {seat.subset:<44} open seat: no annotator for {seat.language} yet")
    if summary.kept_answers:
        print(
            f"note: the deleted project(s) held {summary.kept_answers} pulled answer(s): gone "
            "from Label Studio, kept in the study store"
        )
    print(f"{summary.created} project(s) created, {summary.imported} task(s) imported")
    _print_backend_connections(summary)
    if summary.open_seats:
        print(
            f"{len(summary.open_seats)} seat(s) wait for annotators: "
            f"'hume-sync annotators add {args.study_dir} EMAIL --languages CODES', then setup again"
        )
    if summary.legacy_ids:
        print(
            "warning: this study's store dates from before schema 2: its tasks show source ids "
            "(kept so that existing annotations stay valid); a new study folder gets opaque ids",
            file=sys.stderr,
        )
    if summary.ml_backend_failures:
        for line in summary.ml_backend_failures[1:]:
            print(f"warning: {line}", file=sys.stderr)
        more = len(summary.ml_backend_failures) - 1
        raise CliError(
            summary.ml_backend_failures[0]
            + (f" (and {more} more project(s))" if more else "")
            + "; start it, then run setup again"
        )
    return 0


def _print_backend_connections(summary: SetupSummary) -> None:
    """One line: what setup did with the study's ML backend (nothing when it has none)."""
    states = [p.ml_backend for p in summary.projects if p.ml_backend is not None]
    failed = len(summary.ml_backend_failures)
    if states or failed:
        print(
            f"ML backend: connected to {states.count('connected')} project(s), "
            f"{states.count('updated')} updated, {states.count('present')} already connected"
            + (f", {failed} failed" if failed else "")
        )
