"""`hume-sync leaderboard`: the HUME(v1) table from a folder of MTEB result files."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from hume_sync.errors import CliError

NAME = "leaderboard"
HELP = "print the HUME(v1) table from a folder of MTEB result files"
DESCRIPTION: str | None = (
    "Rank models and humans by the mean over task-language subsets (HUME(v1))."
)
WRITES_STUDY = False
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "results_dir",
        metavar="RESULTS_DIR",
        help="folder in the results-repository layout <org>__<model>/<revision>/",
    )
    parser.add_argument(
        "--languages",
        nargs="+",
        metavar="LANG",
        help="restrict every mean to these languages (eng, ara, rus, dan, nob, ...)",
    )
    parser.add_argument("--format", choices=("table", "markdown", "csv", "json"), default="table")
    parser.add_argument(
        "--revision",
        action="append",
        metavar="MODEL=REV",
        help="use this revision of a model instead of the newest (repeatable)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first malformed result file instead of skipping it",
    )


def parse_revisions(values: Sequence[str] | None) -> dict[str, str]:
    """``--revision MODEL=REV`` values as a mapping; a malformed one is a one-line error."""
    out: dict[str, str] = {}
    for value in values or []:
        model, sep, rev = value.partition("=")
        if not sep or not model or not rev:
            raise CliError(f"--revision expects MODEL=REVISION, got {value!r}")
        out[model] = rev
    return out


def run(args: argparse.Namespace) -> int:
    from hume_sync.report import leaderboard

    board = leaderboard.build(
        args.results_dir,
        languages=args.languages,
        revisions=parse_revisions(args.revision),
        strict=args.strict,
    )
    for problem in board.collection.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    print(leaderboard.render(board, args.format))
    return 0
