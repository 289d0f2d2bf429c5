"""`hume-sync demo`: the whole product on the project's demo study."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "demo"
HELP = "run the whole product on the project's demo study"
DESCRIPTION: str | None = (
    "Demo study, two example annotators each with an embedded Label Studio "
    "of their own, setup, model predictions, their answers replayed, pull, the manager's "
    "Label Studio with the study mirrored in it, and export."
)
WRITES_STUDY = True
#: The study folder (``--dir``) is made here and locked by the run itself.
CREATES_STUDY = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", default="hume-demo", help="study folder (default: hume-demo)")
    parser.add_argument(
        "--data-dir",
        help="where the example annotators' Label Studio servers live "
        "(default: $HUME_HOME/annotators; the manager's is always $HUME_HOME/manager)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=8080,
        help="first server's port (the second takes the next, the manager's the one after)",
    )


def run(args: argparse.Namespace) -> int:
    from hume_sync.workflow.cli_support import locked
    from hume_sync.workflow.demo import run_demo

    with locked(Path(args.dir), NAME, create=True):
        result = run_demo(
            args.dir, data_dir=Path(args.data_dir) if args.data_dir else None, port=args.port
        )
    follow = result.manager_server
    login = (
        f"manager login {result.manager}, password in {follow.credentials_file}"
        if follow.credentials_file
        else "your own login on the team's server"
    )
    print()
    # first: a manager meets hume here, and follows the study in this server
    print(f"Follow the study here: {follow.url} ({login})")
    print(f"Report:       {result.report_dir.resolve() / 'report.html'} (also report.md,")
    print("              scores.csv, scores.json and MTEB result files beside it)")
    for s in result.servers:
        print(f"Label Studio: {s.url} ({s.annotator}'s own)")
        print(f"              admin login {result.manager}, password in {s.credentials_file}")
    print(
        "Annotate more in Label Studio, then run 'hume-sync pull' and 'hume-sync export' on "
        f"{result.study_dir}, or run the demo again."
    )
    return 0
