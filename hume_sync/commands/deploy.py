"""`hume-sync deploy compose|kubernetes`: a team's servers for the study's annotators."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "deploy"
HELP = "write a team's servers (Compose or Kubernetes) for the study's annotators"
DESCRIPTION: str | None = (
    "Write one Label Studio per annotator, the manager's, PostgreSQL (a database "
    "each) and the ML backend (reading the study folder), with generated secrets in a 0600 "
    "file. Annotators: those registered in the study, then every --annotator EMAIL."
)
WRITES_STUDY = False
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", choices=["compose", "kubernetes"])
    parser.add_argument("study_dir", metavar="STUDY_DIR")
    parser.add_argument("--out", required=True, metavar="DIR", help="the folder to write (new)")
    parser.add_argument(
        "--annotator",
        action="append",
        default=[],
        metavar="EMAIL",
        help="an annotator not registered yet (repeatable; register them after the servers run)",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace DIR (the secrets of its .env are kept)"
    )


def run(args: argparse.Namespace) -> int:
    from hume_sync.workflow import deploy, deploy_kubernetes
    from hume_sync.workflow.cli_support import study_store

    kube = args.target == "kubernetes"
    write = deploy_kubernetes.deploy_kubernetes if kube else deploy.deploy_compose
    out = Path(args.out)
    with study_store(args.study_dir) as store:
        slots = write(store, Path(args.study_dir), out, args.annotator, force=args.force)
    print(f"wrote {out} for the manager and {len(slots) - 1} annotators (secrets: 0600, not shown)")
    for s in slots:
        print(f"  {s.service:<14} port {s.port}  {s.email or '(the manager)'}")
    print("next:")
    for step in deploy.next_steps(slots, Path(args.study_dir), out, args.target):
        print(f"  {step}")
    return 0
