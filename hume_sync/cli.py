"""The `hume-sync` command line.

Every user-facing failure (bad input, unreadable file, unreachable server) ends as one line on
stderr and a non-zero exit code; a traceback means a bug in hume itself.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from scoring.errors import ScoringError

EXIT_USER_ERROR = 2


class CliError(Exception):
    """An error with a message fit to show the user as is."""


def _user_errors() -> tuple[type[BaseException], ...]:
    """Error types whose message is meant for the user (typed errors of every hume package)."""
    return (CliError, ScoringError)


def _parse_revisions(values: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values or []:
        model, sep, rev = value.partition("=")
        if not sep or not model or not rev:
            raise CliError(f"--revision expects MODEL=REVISION, got {value!r}")
        out[model] = rev
    return out


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    from hume_sync import leaderboard

    board = leaderboard.build(
        args.results_dir,
        languages=args.languages,
        revisions=_parse_revisions(args.revision),
        strict=args.strict,
    )
    for problem in board.collection.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    print(leaderboard.render(board, args.format))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hume-sync",
        description="Measure human performance on MTEB tasks with Label Studio (HUME).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    lb = sub.add_parser(
        "leaderboard",
        help="print the HUME(v1) table from a folder of MTEB result files",
        description="Rank models and humans by the mean over task-language subsets (HUME(v1)).",
    )
    lb.add_argument(
        "results_dir",
        metavar="RESULTS_DIR",
        help="folder in the results-repository layout <org>__<model>/<revision>/",
    )
    lb.add_argument(
        "--languages",
        nargs="+",
        metavar="LANG",
        help="restrict every mean to these languages (eng, ara, rus, dan, nob, ...)",
    )
    lb.add_argument("--format", choices=("table", "markdown", "csv", "json"), default="table")
    lb.add_argument(
        "--revision",
        action="append",
        metavar="MODEL=REV",
        help="use this revision of a model instead of the newest (repeatable)",
    )
    lb.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first malformed result file instead of skipping it",
    )
    lb.set_defaults(func=_cmd_leaderboard)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except _user_errors() as exc:
        print(f"hume-sync {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print(f"hume-sync {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
