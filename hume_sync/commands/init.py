"""`hume-sync init`: load and sample a study from its spec (idempotent)."""

from __future__ import annotations

import argparse
from pathlib import Path

from hume_sync.errors import CliError

NAME = "init"
HELP = "load and sample a study from its spec (idempotent)"
DESCRIPTION: str | None = None
WRITES_STUDY = True
#: It makes the study folder and takes the lock itself, once its spec is read: a missing spec
#: leaves no folder behind.
CREATES_STUDY = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study_dir", metavar="STUDY_DIR")
    parser.add_argument("--spec", metavar="FILE", help="study spec (default: STUDY_DIR/study.yaml)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="re-initialise from a changed spec (annotated instances are kept)",
    )


def run(args: argparse.Namespace) -> int:
    from hume_sync.store import SPEC_NAME
    from hume_sync.study.spec import load_spec
    from hume_sync.workflow.cli_support import locked
    from hume_sync.workflow.init import init_from_spec

    study = Path(args.study_dir)
    spec_path = Path(args.spec) if args.spec else study / SPEC_NAME
    if not spec_path.exists():
        raise CliError(f"{spec_path}: no study spec (pass --spec FILE)")
    spec = load_spec(spec_path)
    with locked(study, NAME, create=True):
        summary = init_from_spec(study, spec, force=args.force)
    verb = "created" if summary.created else "checked"
    print(f"study {summary.study!r} {verb} in {study}: {summary.written} row(s) written")
    for sub in summary.subsets:
        print(f"  {sub.key:<50} {sub.task_type:<15} {sub.n_instances:>4} instance(s)")
    return 0
