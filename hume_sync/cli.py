"""The `hume-sync` command line.

Every user-facing failure (bad input, unreadable file, unreachable server) ends as one line on
stderr and a non-zero exit code; a traceback means a bug in hume itself.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from scoring.errors import ScoringError

EXIT_USER_ERROR = 2


class CliError(Exception):
    """An error with a message fit to show the user as is."""


def _user_errors() -> tuple[type[BaseException], ...]:
    """Error types whose message is meant for the user (typed errors of every hume package).

    Imported lazily: the Label Studio SDK and the model stack are optional extras, and the
    leaderboard must work without them.
    """
    errors: list[type[BaseException]] = [CliError, ScoringError]
    for module, names in (
        ("hume_sync.spec", ["SpecError"]),
        ("hume_sync.sources", ["SourceError"]),
        ("hume_sync.sampling", ["SamplingError"]),
        ("hume_sync.store", ["StoreError"]),
        ("hume_sync.store_errors", ["StoreUnavailableError"]),
        ("hume_sync.study_lock", ["StudyBusyError"]),
        ("hume_sync.server", ["ServerError"]),
        ("hume_sync.projects", ["SetupError"]),
        ("hume_sync.annotators", ["AnnotatorError"]),
        ("hume_sync.ls_client", ["LabelStudioError"]),
        ("label_studio_configs.errors", ["ConfigError"]),
        ("ml_backend.encoders", ["ModelLoadError"]),
        ("ml_backend.embedding_cache", ["EmbeddingCacheError"]),
        ("ml_backend.predict", ["PredictError"]),
        ("ml_backend.llm.client", ["LLMError"]),
    ):
        try:
            mod = __import__(module, fromlist=names)
        except ImportError:
            continue
        errors.extend(getattr(mod, n) for n in names)
    return tuple(errors)


def _require_study(study_dir: str) -> Path:
    """The study's store file; a folder that is not a study is a clear error."""
    from hume_sync.store import STORE_NAME

    path = Path(study_dir) / STORE_NAME
    if not path.is_file():
        raise CliError(f"{study_dir}: not a study (no {STORE_NAME}); run 'hume-sync init' first")
    return path


def _study_store(study_dir: str):  # -> hume_sync.store.Store
    """Open an existing study's store."""
    from hume_sync.store import Store

    return Store.open(_require_study(study_dir))


def _clients():  # -> hume_sync.ls_servers.Clients
    """A client per annotator server (each annotator has a Label Studio of their own)."""
    from hume_sync.ls_servers import Clients

    return Clients()


def _print_json(obj: object) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False, default=str))


def _cmd_up(args: argparse.Namespace) -> int:
    from hume_sync import ls_servers, server

    info = server.start(Path(args.data_dir) if args.data_dir else None, port=args.port)
    state = "already running" if info.already_running else "started"
    print(f"Label Studio {state} at {info.url}")
    print(f"login: {info.username} (password and API token in {info.data_dir}/credentials.json)")
    for data_dir in ls_servers.embedded_annotator_dirs():
        annotator = ls_servers.start_embedded(data_dir)
        state = "already running" if annotator.already_running else "started"
        print(f"annotator's Label Studio {state} at {annotator.url} ({data_dir.parent.name})")
    return 0


def _cmd_down(args: argparse.Namespace) -> int:
    from hume_sync import ls_servers, server

    stopped = server.stop(Path(args.data_dir) if args.data_dir else None)
    print("Label Studio stopped" if stopped else "Label Studio was not running")
    for data_dir in ls_servers.embedded_annotator_dirs():
        if server.stop(data_dir):
            print(f"annotator's Label Studio stopped ({data_dir.parent.name})")
    return 0


def _cmd_init(args: argparse.Namespace) -> int:
    from hume_sync.spec import load_spec
    from hume_sync.store import SPEC_NAME, init_from_spec

    study = Path(args.study_dir)
    spec_path = Path(args.spec) if args.spec else study / SPEC_NAME
    if not spec_path.exists():
        raise CliError(f"{spec_path}: no study spec (pass --spec FILE)")
    spec = load_spec(spec_path)
    with _locked(study, "init", create=True):
        summary = init_from_spec(study, spec, force=args.force)
    verb = "created" if summary.created else "checked"
    print(f"study {summary.study!r} {verb} in {study}: {summary.written} row(s) written")
    for sub in summary.subsets:
        print(f"  {sub.key:<50} {sub.task_type:<15} {sub.n_instances:>4} instance(s)")
    return 0


def _cmd_setup(args: argparse.Namespace) -> int:
    from hume_sync.projects import setup_study

    with _study_store(args.study_dir) as store:
        summary = setup_study(
            store, _clients(), recreate_missing=args.recreate_missing, study_dir=args.study_dir
        )
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
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    from hume_sync import status

    with _study_store(args.study_dir) as store:
        result = status.study_status(store, _clients())
    if args.json:
        _print_json(status.to_json(result))
    else:
        print(status.render(result))
    return 0


def _cmd_pull(args: argparse.Namespace) -> int:
    from hume_sync.projects import recreate_hint
    from hume_sync.pull import pull_study

    with _study_store(args.study_dir) as store:
        summary = pull_study(store, _clients())
    for problem in summary.invalid:
        print(f"warning: invalid answer, not counted: {problem}", file=sys.stderr)
    for foreign in summary.foreign:
        print(f"warning: not counted: {foreign}", file=sys.stderr)
    for missing in summary.missing_projects:
        print(f"warning: skipped {missing}; {recreate_hint(args.study_dir)}", file=sys.stderr)
    if summary.late:
        print(
            f"note: {len(summary.late)} answer(s) given or changed after the study was closed; "
            "export leaves them out unless --include-late",
            file=sys.stderr,
        )
    print(
        f"{summary.total('added')} annotation(s) added, {summary.total('updated')} updated, "
        f"{summary.total('deleted')} deleted, {summary.total('unchanged')} unchanged "
        f"({len(summary.invalid)} invalid, {summary.cancelled} skipped/cancelled)"
    )
    if summary.skipped_subsets:
        print(f"not set up yet (run 'hume-sync setup'): {', '.join(summary.skipped_subsets)}")
    return 0


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


def _cmd_predict(args: argparse.Namespace) -> int:
    """Embedding models as MTEB runs them, then (with --llm) one LLM annotator."""
    from hume_sync.llm_cmd import client_from_args, predict_llm
    from hume_sync.predict_cmd import cmd_predict

    rc = cmd_predict(args)
    if rc or not args.llm:
        return rc
    client = client_from_args(args)
    with _study_store(args.study_dir) as store:
        summary = predict_llm(
            args.study_dir,
            store,
            client,
            concurrency=args.llm_concurrency,
            progress=sys.stderr.isatty(),
        )
    counts = ", ".join(f"{k} {v}" for k, v in sorted(summary.statuses.items()))
    print(f"{summary.model_version}: {counts}; full records in {summary.log}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from hume_sync.export import export_study

    _require_study(args.study_dir)
    report, paths = export_study(
        args.study_dir, args.out, results_dir=args.results, include_late=args.include_late
    )
    for problem in report.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
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
    out = Path(args.out)
    print(f"report: {out / 'report.md'} and {out / 'report.html'}")
    print(
        f"scores: {out / 'scores.csv'}, {out / 'scores.json'}; MTEB result files under "
        f"{out / 'mteb_results'} ({len(paths) - 4} files)"
    )
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from hume_sync.demo import run_demo

    result = run_demo(
        args.dir, data_dir=Path(args.data_dir) if args.data_dir else None, port=args.port
    )
    print()
    print(f"Report:       {result.report_dir.resolve() / 'report.html'} (also report.md,")
    print("              scores.csv, scores.json and MTEB result files beside it)")
    for s in result.servers:
        print(f"Label Studio: {s.url} ({s.annotator}'s own)")
        print(f"              manager login {result.manager}, password in {s.credentials_file}")
    print(
        "Annotate more in Label Studio, then run 'hume-sync pull' and 'hume-sync export' on "
        f"{result.study_dir}, or run the demo again."
    )
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

    for name, func, text in (
        ("up", _cmd_up, "start the embedded Label Studio (SQLite, 127.0.0.1) and print its URL"),
        ("down", _cmd_down, "stop the embedded Label Studio"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument(
            "--data-dir",
            help="where the embedded server keeps its data "
            "(default: $HUME_HOME/label-studio or ~/.hume/label-studio)",
        )
        if name == "up":
            p.add_argument("--port", type=int, default=8080)
        p.set_defaults(func=func)

    init = sub.add_parser("init", help="load and sample a study from its spec (idempotent)")
    init.add_argument("study_dir", metavar="STUDY_DIR")
    init.add_argument("--spec", metavar="FILE", help="study spec (default: STUDY_DIR/study.yaml)")
    init.add_argument(
        "--force",
        action="store_true",
        help="re-initialise from a changed spec (annotated instances are kept)",
    )
    init.set_defaults(func=_cmd_init)

    for name, func, text in (
        (
            "setup",
            _cmd_setup,
            "create each subset's project on its annotators' own Label Studio and import tasks",
        ),
        ("status", _cmd_status, "progress per subset, annotator slot and annotator, with ETAs"),
        ("pull", _cmd_pull, "bring the annotations from Label Studio into the study store"),
    ):
        p = sub.add_parser(
            name,
            help=text,
            description=text + ". Each annotator's Label Studio is the one registered with "
            "'hume-sync annotators add'.",
        )
        p.add_argument("study_dir", metavar="STUDY_DIR")
        if name == "status":
            p.add_argument("--json", action="store_true", help="machine-readable output")
        if name == "setup":
            p.add_argument(
                "--recreate-missing",
                action="store_true",
                help="create projects deleted in Label Studio again and re-import their tasks "
                "(answers already pulled stay in the study store)",
            )
        p.set_defaults(func=func)

    from hume_sync.annotators import add_parser as add_annotators_parser

    add_annotators_parser(sub)

    from hume_sync.llm_cmd import add_llm_arguments
    from hume_sync.predict_cmd import add_predict_parser
    from hume_sync.reveal import add_close_parser, add_reveal_parser

    predict = add_predict_parser(sub)
    add_llm_arguments(predict)
    predict.set_defaults(func=_cmd_predict)
    add_close_parser(sub)
    add_reveal_parser(sub)

    ex = sub.add_parser(
        "export",
        help="write the score report, CSV/JSON and MTEB result files",
        description="Score humans, models and LLM annotators from the study "
        "store and write report.md, report.html, scores.csv, scores.json and "
        "MTEB result files.",
    )
    ex.add_argument("study_dir", metavar="STUDY_DIR")
    ex.add_argument("--out", required=True, metavar="DIR", help="output folder")
    ex.add_argument(
        "--results",
        metavar="DIR",
        help="an MTEB results folder whose models join every comparison "
        "(for studies on HUME(v1) instances)",
    )
    ex.add_argument(
        "--include-late",
        action="store_true",
        help="also score answers given or changed after the study was closed "
        "(left out by default; the report counts them either way)",
    )
    ex.set_defaults(func=_cmd_export)

    demo = sub.add_parser(
        "demo",
        help="run the whole product on the project's demo study",
        description="Demo study, two example annotators each with an embedded Label Studio "
        "of their own, setup, model predictions, their answers replayed, pull and export.",
    )
    demo.add_argument("--dir", default="hume-demo", help="study folder (default: hume-demo)")
    demo.add_argument(
        "--data-dir",
        help="where the example annotators' Label Studio servers live "
        "(default: $HUME_HOME/annotators)",
    )
    demo.add_argument(
        "--port", type=int, default=8080, help="first server's port (the second takes the next)"
    )
    demo.set_defaults(func=_cmd_demo)
    return parser


#: Commands that write the study hold its lock for their whole run, one at a time per study
#: (see :mod:`hume_sync.study_lock`); ``init`` takes it itself once its spec is read.
LOCKED_COMMANDS = frozenset({"setup", "pull", "predict", "close", "reveal", "demo"})


@contextlib.contextmanager
def _locked(study: Path, command: str, *, create: bool = False) -> Iterator[None]:
    """The study's lock; with ``create`` the study folder is made (0700) first."""
    from hume_sync.file_modes import private_dir
    from hume_sync.study_lock import study_lock

    if create:
        try:
            private_dir(study)
        except OSError as exc:
            raise CliError(f"{study}: cannot create the study folder ({exc.strerror})") from None
    elif not study.is_dir():  # not a study: the command itself says so
        yield
        return
    with study_lock(study, command):
        yield


def _run(args: argparse.Namespace) -> int:
    """Run the command, holding the study's lock when it writes the study."""
    writes = args.command in LOCKED_COMMANDS or (
        args.command == "annotators" and args.annotators_command == "add"
    )
    if not writes:
        return int(args.func(args))
    demo = args.command == "demo"
    with _locked(Path(args.dir if demo else args.study_dir), args.command, create=demo):
        return int(args.func(args))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(_run(args))
    except _user_errors() as exc:
        print(f"hume-sync {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except sqlite3.Error as exc:  # a SQLite failure met outside the store's own guards
        from hume_sync.store_errors import describe, is_environmental

        if not is_environmental(exc):
            raise
        print(f"hume-sync {args.command}: error: {describe(exc, None)}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print(f"hume-sync {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
