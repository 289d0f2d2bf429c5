"""`hume-sync export`: the score report, CSV/JSON and MTEB result files of a study.

The step (:func:`hume_sync.workflow.export.export_study`) computes and writes; this command
says what it found (skipped inputs, sealing, late answers, coverage), where each file went, as
the writer reports it, and exits 1 when a seal is broken (unless ``--allow-broken-seal``).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hume_sync.sealing import SealReport

NAME = "export"
HELP = "write the score report, CSV/JSON and MTEB result files"
DESCRIPTION: str | None = (
    "Score humans, models and LLM annotators from the study "
    "store and write report.md, report.html, scores.csv, scores.json and "
    "MTEB result files."
)
WRITES_STUDY = False
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study_dir", metavar="STUDY_DIR")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
    parser.add_argument(
        "--results",
        metavar="DIR",
        help="an MTEB results folder whose models join every comparison "
        "(for studies on HUME(v1) instances)",
    )
    parser.add_argument(
        "--include-late",
        action="store_true",
        help="also score answers given or changed after the study was closed "
        "(left out by default; the report counts them either way)",
    )
    parser.add_argument(
        "--with-emails",
        action="store_true",
        help="name annotators by email in every output (default: pseudonymous keys "
        "annotator-N, for files that leave the team)",
    )
    parser.add_argument(
        "--rate",
        metavar="PER_HOUR",
        help="money per annotator-hour (a positive number): the sample-size table gains the "
        "cost of the annotator-hours for ±0.05",
    )
    parser.add_argument(
        "--allow-broken-seal",
        action="store_true",
        help="exit 0 even when a sealed model or LLM answer no longer matches its commitment "
        "(changed after the first annotation, or not what was recorded); without it export "
        "writes every file, flags it and exits 1",
    )


def rate_per_hour(text: str | None) -> float | None:
    """``--rate``: a finite number above 0, or None when not given.

    Checked in the command rather than as an argparse type, so that a bad value is one line
    on stderr (argparse would print its usage first) and exit 2, as the CLI's other checks.

    Raises:
        CliError: ``text`` is not a positive finite number.
    """
    from hume_sync.errors import CliError

    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise CliError(f"--rate {text!r}: not a positive number of money per annotator-hour")
    return value


def run(args: argparse.Namespace) -> int:
    from hume_sync.workflow.cli_support import require_study
    from hume_sync.workflow.export import export_study

    rate = rate_per_hour(args.rate)
    require_study(args.study_dir)
    report, written = export_study(
        args.study_dir,
        args.out,
        results_dir=args.results,
        include_late=args.include_late,
        with_emails=args.with_emails,
        rate_per_hour=rate,
    )
    for problem in report.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    for check in report.sealing.checks if report.sealing else []:
        print(check.line())
        for problem in check.problems:
            print(f"warning: sealing of {check.model_version}: {problem}", file=sys.stderr)
    late = report.total_left_out("late")
    if late:
        fate = "included (--include-late)" if args.include_late else "left out of scoring"
        print(
            f"note: {late} answer(s) given or changed after the close at {report.closed_at} "
            f"{fate}; the report lists them per subset and annotator",
            file=sys.stderr,
        )
    if not report.complete:
        print(
            "note: the study is partly annotated; the report states the coverage", file=sys.stderr
        )
    print(f"report: {written.report_md} and {written.report_html}")
    print(
        f"scores: {written.scores_csv}, {written.scores_json}; MTEB result files under "
        f"{written.mteb_dir} ({len(written.mteb_files)} files)"
    )
    if written.judgment_files:
        print(
            f"retrieval judgments (TREC qrels): {len(written.judgment_files)} files under "
            f"{written.judgment_files[0].parents[2]}"
        )
    return _seal_status(report.sealing, args.allow_broken_seal)


def _seal_status(sealing: SealReport | None, allowed: bool) -> int:
    """Export's exit status: EXIT_SEAL_BROKEN when a sealed answer is not what was committed
    (the files are written and flag it), unless ``--allow-broken-seal``."""
    from hume_sync.workflow.verify import EXIT_SEAL_BROKEN

    broken = [c.model_version for c in sealing.broken] if sealing is not None else []
    if not broken:
        return 0
    what = f"SEALING BROKEN for {', '.join(broken)}: the report flags it"
    if allowed:
        print(f"warning: {what} (--allow-broken-seal: exit 0)", file=sys.stderr)
        return 0
    print(f"error: {what}; --allow-broken-seal to exit 0 anyway", file=sys.stderr)
    return EXIT_SEAL_BROKEN
