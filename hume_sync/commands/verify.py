"""`hume-sync verify`: every model's and LLM's sealing commitment checked against the store."""

from __future__ import annotations

import argparse

NAME = "verify"
HELP = "check every model's and LLM's sealing commitment against the stored answers"
DESCRIPTION: str | None = (
    "Recompute each model's and LLM annotator's commitment (SHA-256 over its "
    "sealed answers, revision, prompt and the study id) from the study store, print it, "
    "and say whether it matches the one recorded (and published) before annotation. "
    "Exits 1 when a commitment does not match, a sealed answer changed after the first "
    "annotation, or answers have no commitment."
)
WRITES_STUDY = False
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study_dir", metavar="STUDY_DIR")


def run(args: argparse.Namespace) -> int:
    from hume_sync.workflow.cli_support import study_store
    from hume_sync.workflow.verify import EXIT_SEAL_BROKEN, report_lines, verify_store

    with study_store(args.study_dir) as store:
        report = verify_store(store)
    for line in report_lines(report):
        print(line)
    return EXIT_SEAL_BROKEN if report.failed else 0
