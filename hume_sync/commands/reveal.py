"""`hume-sync reveal`: the sealed model predictions written into the Label Studio projects."""

from __future__ import annotations

import argparse

NAME = "reveal"
HELP = "write the sealed model predictions into the Label Studio projects"
DESCRIPTION: str | None = (
    "After the study is closed, add each stored prediction to its task with "
    "its model_version (re-running adds none). --force reveals an open study."
)
WRITES_STUDY = True
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study_dir", metavar="STUDY_DIR")
    parser.add_argument("--force", action="store_true", help="reveal even if the study is open")
    parser.add_argument(
        "--rerank-rule",
        choices=("gap", "top1"),
        default=None,
        help="which candidates an embedding model marks relevant (default: gap)",
    )


def run(args: argparse.Namespace) -> int:
    from hume_sync.progress import say
    from hume_sync.workflow.cli_support import clients, mirror, study_store
    from hume_sync.workflow.reveal import reveal_study

    with study_store(args.study_dir) as store:
        summary = reveal_study(store, clients(), force=args.force, rule=args.rerank_rule)
        mirror(store, full=True)  # predictions appear on every task
    if summary.closed_now:
        say("every task of every annotator is answered: the study is now closed")
    for s in summary.subsets:
        for problem in s.invalid[:5]:
            say(f"warning: not revealed: {problem}")
        where = "no project" if not s.projects else f"{s.projects} project(s)"
        print(
            f"  {s.subset:<50} {where}: {s.created} added, {s.present} already there"
            + (f", {s.without_task} without a task" if s.without_task else "")
        )
    print(f"{summary.created} prediction(s) added, {summary.present} already in Label Studio")
    return 0
