"""`hume-sync down`: stop the embedded Label Studio servers hume started."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "down"
HELP = "stop the embedded Label Studio"
DESCRIPTION: str | None = HELP
WRITES_STUDY = False
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        help="where the embedded server keeps its data "
        "(default: $HUME_HOME/label-studio or ~/.hume/label-studio)",
    )


def run(args: argparse.Namespace) -> int:
    from hume_sync.labelstudio import manager, server
    from hume_sync.labelstudio import servers as ls_servers

    stopped = server.stop(Path(args.data_dir) if args.data_dir else None)
    print("Label Studio stopped" if stopped else "Label Studio was not running")
    for data_dir in ls_servers.embedded_annotator_dirs():
        if server.stop(data_dir):
            print(f"annotator's Label Studio stopped ({data_dir.parent.name})")
    if server.stop(manager.manager_data_dir()):  # the demo and `manager up` start it
        print("manager's Label Studio stopped")
    return 0
