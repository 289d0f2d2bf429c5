"""The `hume-sync` command line.

Every user-facing failure (bad input, unreadable file, unreachable server) ends as one line on
stderr and a non-zero exit code; a traceback means a bug in hume itself.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hume_sync.errors import CliError, HumeError

if TYPE_CHECKING:
    from hume_sync.commands.setup import SetupSummary
    from hume_sync.sealing import Commitment, SealReport

EXIT_USER_ERROR = 2


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


def _clients():  # -> hume_sync.labelstudio.servers.Clients
    """A client per annotator server (each annotator has a Label Studio of their own)."""
    from hume_sync.labelstudio.servers import Clients

    return Clients()


def _mirror(store) -> None:  # store: hume_sync.store.Store
    """Mirror the study into the manager's Label Studio, where one was set up. The command's
    own work is done and kept when the mirror fails: a warning, and the next run mirrors."""
    from hume_sync.commands.mirror import mirror_if_set_up

    try:
        summary = mirror_if_set_up(store)
    except HumeError as exc:
        print(f"warning: the manager's Label Studio was not updated: {exc}", file=sys.stderr)
        return
    if summary is not None:
        print(summary)
        for line in summary.backend_failures:
            print(f"warning: ML backend not connected: {line}", file=sys.stderr)


def _print_json(obj: object) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False, default=str))


#: How `up` names the general embedded server (the others are each an annotator's).
GENERAL = "Label Studio"


def _cmd_up(args: argparse.Namespace) -> int:
    """Bring back every embedded server hume made (after a reboot), each on its own port.

    The general server (``$HUME_HOME/label-studio``) comes up only when it was used before or is
    asked for (``--data-dir``/``--port``): annotators work on servers of their own, and a busy
    8080 must not keep their servers down. One line per server; exit 2 if any failed.
    """
    from hume_sync.labelstudio import server
    from hume_sync.labelstudio import servers as ls_servers

    wanted: list[tuple[str, Callable[[], server.ServerInfo]]] = []
    general = Path(args.data_dir) if args.data_dir else server.default_data_dir()
    if args.data_dir or args.port or (general / server.CREDENTIALS_FILE).is_file():
        wanted.append((GENERAL, functools.partial(ls_servers.start_general, general, args.port)))
    for d in ls_servers.embedded_annotator_dirs():
        label = f"annotator's Label Studio ({d.parent.name})"
        wanted.append((label, functools.partial(ls_servers.start_embedded, d)))
    if not wanted:
        print(
            "nothing to start: no annotator has a server yet ('hume-sync annotators add'); "
            "'hume-sync up --port 8080' starts a general Label Studio"
        )
        return 0
    failed = 0
    outcomes = ls_servers.start_each([start for _, start in wanted])
    for (label, _), outcome in zip(wanted, outcomes, strict=True):
        if isinstance(outcome, HumeError):
            failed += 1
            print(f"hume-sync up: error: {label}: {outcome}", file=sys.stderr)
            continue
        state = "already running" if outcome.already_running else "started"
        print(f"{label} {state} at {outcome.url}")
        if label == GENERAL:
            creds = general / server.CREDENTIALS_FILE
            print(f"  login: {outcome.username} (password and API token in {creds})")
    return EXIT_USER_ERROR if failed else 0


def _cmd_down(args: argparse.Namespace) -> int:
    from hume_sync.labelstudio import server
    from hume_sync.labelstudio import servers as ls_servers

    stopped = server.stop(Path(args.data_dir) if args.data_dir else None)
    print("Label Studio stopped" if stopped else "Label Studio was not running")
    for data_dir in ls_servers.embedded_annotator_dirs():
        if server.stop(data_dir):
            print(f"annotator's Label Studio stopped ({data_dir.parent.name})")
    return 0


def _cmd_init(args: argparse.Namespace) -> int:
    from hume_sync.commands.init import init_from_spec
    from hume_sync.store import SPEC_NAME
    from hume_sync.study.spec import load_spec

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
    from hume_sync.commands.setup import setup_study
    from hume_sync.labelstudio.ml_backends import study_backend

    with _study_store(args.study_dir) as store:
        summary = setup_study(
            store,
            _clients(),
            recreate_missing=args.recreate_missing,
            study_dir=args.study_dir,
            ml_backend=study_backend(store, args.ml_backend),
        )
        _mirror(store)  # the manager's projects, with the ML backend connected, from the start
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
    _print_backend_connections(summary)
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
    if summary.ml_backend_failures:
        for line in summary.ml_backend_failures[1:]:
            print(f"warning: {line}", file=sys.stderr)
        more = len(summary.ml_backend_failures) - 1
        raise CliError(
            summary.ml_backend_failures[0]
            + (f" (and {more} more project(s))" if more else "")
            + "; start it, then run setup again"
        )
    return 0


def _print_backend_connections(summary: SetupSummary) -> None:
    """One line: what setup did with the study's ML backend (nothing when it has none)."""
    states = [p.ml_backend for p in summary.projects if p.ml_backend is not None]
    failed = len(summary.ml_backend_failures)
    if states or failed:
        print(
            f"ML backend: connected to {states.count('connected')} project(s), "
            f"{states.count('updated')} updated, {states.count('present')} already connected"
            + (f", {failed} failed" if failed else "")
        )


def _cmd_status(args: argparse.Namespace) -> int:
    from hume_sync.commands import status

    with _study_store(args.study_dir) as store:
        if args.json:
            _print_json(status.status_json(store, _clients()))
            return 0
        result = status.study_status(store, _clients())
    print(status.render(result))
    return 0


def _cmd_dashboard(args: argparse.Namespace) -> int:
    from hume_sync.commands import dashboard

    server = dashboard.make_server(
        Path(args.study_dir),
        _clients,
        host=args.host,
        port=args.port,
        refresh_s=args.refresh,
        allow_non_loopback=args.allow_non_loopback,
    )
    return dashboard.serve(server, Path(args.study_dir))


def _cmd_pull(args: argparse.Namespace) -> int:
    from hume_sync.commands.pull import pull_study
    from hume_sync.commands.setup import recreate_hint

    with _study_store(args.study_dir) as store:
        summary = pull_study(store, _clients())
        _mirror(store)
    for problem in summary.invalid:
        print(f"warning: invalid answer, not counted: {problem}", file=sys.stderr)
    for foreign in summary.foreign:
        print(f"warning: not counted: {foreign}", file=sys.stderr)
    for missing in summary.missing_projects:
        print(f"warning: skipped {missing}; {recreate_hint(args.study_dir)}", file=sys.stderr)
    for note in summary.late_notes():
        print(note, file=sys.stderr)
    print(
        f"{summary.total('added')} annotation(s) added, {summary.total('updated')} updated, "
        f"{summary.total('deleted')} deleted, {summary.total('unchanged')} unchanged "
        f"({len(summary.invalid)} invalid, {summary.cancelled} skipped/cancelled)"
    )
    if summary.skipped_subsets:
        print(f"not set up yet (run 'hume-sync setup'): {', '.join(summary.skipped_subsets)}")
    return 0


def _positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0 (and finite)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"not a number of seconds above 0: {text!r}")
    return value


def _parse_revisions(values: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values or []:
        model, sep, rev = value.partition("=")
        if not sep or not model or not rev:
            raise CliError(f"--revision expects MODEL=REVISION, got {value!r}")
        out[model] = rev
    return out


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    from hume_sync.report import leaderboard

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


def _cmd_annotators_add(args: argparse.Namespace) -> int:
    from hume_sync.commands.annotators import add_annotator
    from hume_sync.labelstudio.annotators import parse_languages

    with _study_store(args.study_dir) as store:
        langs = parse_languages(args.languages) if args.languages else None
        result = add_annotator(
            store,
            args.email,
            langs,
            url=args.url,
            port=args.port,
            start_timeout=args.start_timeout,
        )
    a = result.annotator
    what = "registered" if result.registered else "already registered"
    print(f"{a.email}: {what} as slot {a.slot} ({a.key}), languages {', '.join(a.languages)}")
    state = "started" if result.server_started else "running"
    print(f"  Label Studio of their own: {a.ls_url} ({state})")
    if result.unused_languages:
        print(f"  note: no subset of the study is in {', '.join(result.unused_languages)}")
    if result.account_created:
        print(f"  account created; login (email and password) in {result.login_file} (mode 0600)")
    elif result.login_file:
        print(f"  account exists; login in {result.login_file}")
    else:
        print("  account exists on that server (its password was not changed)")
    print(f"run 'hume-sync setup {args.study_dir}' to create their projects")
    return 0


def _cmd_annotators_list(args: argparse.Namespace) -> int:
    from hume_sync.commands.annotators import annotator_report, render_list

    with _study_store(args.study_dir) as store:
        records = annotator_report(store)
    if args.json:
        _print_json({"annotators": records})
    else:
        print(render_list(records))
    return 0


def _cmd_annotators_remove(args: argparse.Namespace) -> int:
    from hume_sync.commands.annotators_remove import remove_annotator

    with _study_store(args.study_dir) as store:
        r = remove_annotator(
            store,
            args.email,
            _clients(),
            pull=not args.no_pull,
            delete_server=args.delete_server,
            study_dir=args.study_dir,
        )
    a = r.annotator
    if r.already:
        print(
            f"{a.email} was already removed at {a.retired_at} (slot {a.slot}): nothing changed; "
            f"{r.answers_kept} valid answer(s) of theirs stay in the study and count"
            + ("; their Label Studio folder is deleted" if r.deleted else "")
        )
        return 0
    print(
        f"{a.email}: removed (slot {a.slot}, {a.key}); {r.answers_kept} valid answer(s) of "
        "theirs stay in the study and count"
    )
    if r.pulled is not None:
        print(
            f"  last pull: {r.pulled.total('added')} added, {r.pulled.total('updated')} "
            f"updated, {r.pulled.total('deleted')} deleted"
        )
    for key in r.kept_seats:
        print(f"  {key:<44} finished: stays theirs")
    for h in r.handed_over:
        to = (
            f"goes to slot {h.to.slot} ({h.to.email})"
            if h.to
            else (f"open seat: no annotator for {h.language} yet")
        )
        print(f"  {h.subset:<44} {to}")
    if r.deleted:
        print(f"  their Label Studio is stopped and its folder {r.data_dir} deleted")
    elif r.data_dir is not None:
        print(
            f"  their Label Studio is stopped; its folder {r.data_dir} is kept ('hume-sync "
            f"annotators remove {args.study_dir} {a.email} --delete-server' deletes it)"
        )
    else:
        print(f"  their Label Studio at {a.ls_url} is the team's: hume no longer uses it")
    if any(h.to for h in r.handed_over):
        print(f"run 'hume-sync setup {args.study_dir}' to create the projects handed over")
    return 0


def _llm_client(args: argparse.Namespace):  # -> ml_backend.llm.OpenAICompatibleClient
    """The OpenAI-compatible client described by the `--llm-*` options (key from the
    environment variable they name, never from the command line)."""
    import os

    from ml_backend.llm import OpenAICompatibleClient

    base_url = args.llm_base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
    return OpenAICompatibleClient(
        args.llm,
        base_url=base_url,
        api_key_env=args.llm_api_key_env,
        name=args.llm_name,
        temperature=args.llm_temperature,
        max_tokens=args.llm_max_tokens,
        response_format=args.llm_response_format,
    )


def _predict_models(args: argparse.Namespace) -> None:
    """Every embedding model's sealed answers and subset scores; one line per model and subset."""
    from hume_sync.commands.predict import DEFAULT_MODELS, predict_study
    from hume_sync.progress import say

    if args.chunk_size is not None and args.chunk_size < 1:
        raise CliError("--chunk-size must be at least 1")
    for flag in ("batch_size", "emb_concurrency", "emb_max_batch_tokens"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise CliError(f"--{flag.replace('_', '-')} must be at least 1")
    server = {
        "base_url": args.emb_base_url,
        "api_key_env": args.emb_api_key_env,
        "concurrency": args.emb_concurrency,
        "max_batch_tokens": args.emb_max_batch_tokens,
        "retries": args.emb_retries,
        "timeout_s": args.emb_timeout,
        "price_per_mtok": args.emb_price_per_mtok,
    }
    with _study_store(args.study_dir) as store:
        summary = predict_study(
            Path(args.study_dir),
            store,
            args.models or list(DEFAULT_MODELS),
            subsets=args.subsets,
            chunk_size=args.chunk_size,
            replace=args.replace,
            progress=sys.stderr.isatty(),
            loading={"device": args.device, "batch_size": args.batch_size, "server": server},
        )
    for m in summary.models:
        say(
            f"{m.model_version}: {m.subsets - m.skipped} subset(s) computed, {m.skipped} "
            f"up to date; {m.embedded} text(s) embedded, {m.cached} from the cache, "
            f"in {m.seconds:.1f} s"
        )
        for line in m.score_lines():
            print(line)
        print(
            f"{m.model_version}: {m.added} prediction(s) added, {m.replaced} replaced, "
            f"{m.unchanged} unchanged (sealed)"
        )
    for c in summary.commitments:
        _print_commitment(c)


def _print_commitment(c: Commitment) -> None:
    """The commitment line to publish before annotation opens, and a warning when it is new
    after annotation began (export and verify will flag it)."""
    print(c.line())
    if c.after_annotation:
        print(
            f"warning: the sealed answers of {c.model_version} changed after the first "
            "annotation; 'hume-sync verify' and the report will say so",
            file=sys.stderr,
        )


def _cmd_predict(args: argparse.Namespace) -> int:
    """Embedding models as MTEB runs them, then (with --llm) one LLM annotator."""
    _predict_models(args)
    if not args.llm:
        return 0
    from hume_sync.commands.llm import predict_llm

    client = _llm_client(args)
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
    if summary.commitment is not None:
        _print_commitment(summary.commitment)
    return 0


def _cmd_close(args: argparse.Namespace) -> int:
    from hume_sync.commands.reveal import close_study

    with _study_store(args.study_dir) as store:
        result = close_study(store, None if args.force else _clients(), force=args.force)
    if result.already:
        print(f"study already closed at {result.closed_at} ({result.closed_by})")
    else:
        print(f"study closed at {result.closed_at} ({result.closed_by})")
    return 0


def _cmd_reveal(args: argparse.Namespace) -> int:
    from hume_sync.commands.reveal import reveal_study
    from hume_sync.progress import say

    with _study_store(args.study_dir) as store:
        summary = reveal_study(store, _clients(), force=args.force, rule=args.rerank_rule)
        _mirror(store)
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


def _cmd_export(args: argparse.Namespace) -> int:
    from hume_sync.commands.export import export_study

    _require_study(args.study_dir)
    report, paths = export_study(
        args.study_dir,
        args.out,
        results_dir=args.results,
        include_late=args.include_late,
        with_emails=args.with_emails,
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
    out = Path(args.out)
    print(f"report: {out / 'report.md'} and {out / 'report.html'}")
    print(
        f"scores: {out / 'scores.csv'}, {out / 'scores.json'}; MTEB result files under "
        f"{out / 'mteb_results'} ({len(paths) - 4} files)"
    )
    return _export_seal_status(report.sealing, args.allow_broken_seal)


def _export_seal_status(sealing: SealReport | None, allowed: bool) -> int:
    """Export's exit status: EXIT_SEAL_BROKEN when a sealed answer is not what was committed
    (the files are written and flag it), unless ``--allow-broken-seal``."""
    from hume_sync.commands.verify import EXIT_SEAL_BROKEN

    broken = [c.model_version for c in sealing.broken] if sealing is not None else []
    if not broken:
        return 0
    what = f"SEALING BROKEN for {', '.join(broken)}: the report flags it"
    if allowed:
        print(f"warning: {what} (--allow-broken-seal: exit 0)", file=sys.stderr)
        return 0
    print(f"error: {what}; --allow-broken-seal to exit 0 anyway", file=sys.stderr)
    return EXIT_SEAL_BROKEN


def _cmd_verify(args: argparse.Namespace) -> int:
    from hume_sync.commands.verify import EXIT_SEAL_BROKEN, report_lines, verify_store

    with _study_store(args.study_dir) as store:
        report = verify_store(store)
    for line in report_lines(report):
        print(line)
    return EXIT_SEAL_BROKEN if report.failed else 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from hume_sync.commands.demo import run_demo

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


def _cmd_manager(args: argparse.Namespace) -> int:
    import os

    from hume_sync.labelstudio import manager

    if args.manager_command == "url":
        url = manager.configured_url()
        if url is None:
            print("error: no manager's Label Studio yet: 'hume-sync manager up'", file=sys.stderr)
            return 1
        print(url)
        return 0
    token = os.environ.get("LABEL_STUDIO_API_KEY", "").strip() or None
    print(manager.up(args.url, token))
    return 0


def _add_manager_parser(sub: argparse._SubParsersAction) -> None:
    text = (
        "the manager's own Label Studio, where pull mirrors every subset with all annotators' "
        "answers side by side (no annotator has an account there)"
    )
    p = sub.add_parser("manager", help=text, description=text + ".")
    actions = p.add_subparsers(dest="manager_command", required=True, metavar="ACTION")
    up = actions.add_parser("up", help="start the embedded one, or record the team's (--url)")
    up.add_argument(
        "--url", help="the team's server (its admin token in LABEL_STUDIO_API_KEY)", default=None
    )
    actions.add_parser("url", help="print its URL")
    p.set_defaults(func=_cmd_manager)


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
        (
            "up",
            _cmd_up,
            "start every embedded Label Studio (each annotator's, on its own port; the "
            "general one when used before or asked for with --data-dir/--port)",
        ),
        ("down", _cmd_down, "stop the embedded Label Studio"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument(
            "--data-dir",
            help="where the embedded server keeps its data "
            "(default: $HUME_HOME/label-studio or ~/.hume/label-studio)",
        )
        if name == "up":
            p.add_argument(
                "--port",
                type=int,
                help="port of the general server (default: its last one, else 8080)",
            )
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
    _add_manager_parser(sub)

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
            p.add_argument(
                "--ml-backend",
                metavar="URL",
                help="hume-ml-backend's URL as Label Studio reaches it: recorded in the study and "
                "connected to every project (now and at every later setup); basic auth from "
                "ML_BACKEND_USER / ML_BACKEND_PASSWORD",
            )
        p.set_defaults(func=func)

    _add_dashboard_parser(sub)
    _add_annotators_parser(sub)
    _add_deploy_parser(sub)
    _add_predict_parser(sub)
    _add_close_and_reveal_parsers(sub)

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
    ex.add_argument(
        "--with-emails",
        action="store_true",
        help="name annotators by email in every output (default: pseudonymous keys "
        "annotator-N, for files that leave the team)",
    )
    ex.add_argument(
        "--allow-broken-seal",
        action="store_true",
        help="exit 0 even when a sealed model or LLM answer no longer matches its commitment "
        "(changed after the first annotation, or not what was recorded); without it export "
        "writes every file, flags it and exits 1",
    )
    ex.set_defaults(func=_cmd_export)

    verify = sub.add_parser(
        "verify",
        help="check every model's and LLM's sealing commitment against the stored answers",
        description="Recompute each model's and LLM annotator's commitment (SHA-256 over its "
        "sealed answers, revision, prompt and the study id) from the study store, print it, "
        "and say whether it matches the one recorded (and published) before annotation. "
        "Exits 1 when a commitment does not match, a sealed answer changed after the first "
        "annotation, or answers have no commitment.",
    )
    verify.add_argument("study_dir", metavar="STUDY_DIR")
    verify.set_defaults(func=_cmd_verify)

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


def _add_dashboard_parser(sub: argparse._SubParsersAction) -> None:
    text = "serve a live progress page for the project manager (status, agreement so far)"
    p = sub.add_parser(
        "dashboard",
        help=text,
        description=text + ". One self-contained page that reloads itself: the numbers of "
        "'status --json' per subset, slot and annotator, invalid answers with links into Label "
        "Studio, agreement so far between annotators (as of the last pull) and, once the study "
        "is closed, the report's headline. It only reads: pull and the other commands run "
        "while it is up. The page shows annotator emails, so it is served on loopback only "
        "unless --allow-non-loopback is given.",
    )
    p.add_argument("study_dir", metavar="STUDY_DIR")
    p.add_argument("--port", type=int, default=8765, help="port to serve on (default: 8765)")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to serve on (default: 127.0.0.1); a non-loopback one needs "
        "--allow-non-loopback",
    )
    p.add_argument(
        "--allow-non-loopback",
        action="store_true",
        help="serve on a non-loopback --host: anyone who reaches it sees annotator emails "
        "and links into their Label Studio servers",
    )
    p.add_argument(
        "--refresh",
        type=int,
        default=30,
        metavar="SECONDS",
        help="how often the page reloads and Label Studio is read (default: 30)",
    )
    p.set_defaults(func=_cmd_dashboard)


def _add_annotators_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "annotators",
        help="register annotators, each with a Label Studio of their own",
        description="Register the annotators of a study. Each gets a Label Studio server of "
        "their own (embedded, or --url), an account with a generated password written to a "
        "0600 file, and the subsets of their languages at the next 'hume-sync setup'.",
    )
    actions = p.add_subparsers(dest="annotators_command", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="register an annotator (idempotent)")
    add.add_argument("study_dir", metavar="STUDY_DIR")
    add.add_argument("email", metavar="EMAIL")
    add.add_argument(
        "--languages",
        metavar="CODES",
        help="languages they annotate, e.g. eng,dan (default: every language of the study)",
    )
    add.add_argument(
        "--url",
        help="a Label Studio the team runs for this annotator (admin token in "
        "LABEL_STUDIO_API_KEY); default: an embedded one under $HUME_HOME/annotators",
    )
    add.add_argument("--port", type=int, help="port of a new embedded server (default: free)")
    add.add_argument(
        "--start-timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help="how long a new embedded server may take to answer (default: "
        "$HUME_LS_START_TIMEOUT, else 240)",
    )
    add.set_defaults(func=_cmd_annotators_add)
    listing = actions.add_parser("list", help="the study's annotators, their servers and subsets")
    listing.add_argument("study_dir", metavar="STUDY_DIR")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(func=_cmd_annotators_list)
    remove = actions.add_parser(
        "remove",
        help="retire an annotator: answers kept, open seats handed over, server stopped",
        description="Retire an annotator mid-study: their projects are pulled one last time and "
        "their answers stay in the study and count; the subsets they finished stay theirs, the "
        "others go to the next annotator who speaks the language (created at the next setup) "
        "or are listed as open; their embedded Label Studio is stopped, its folder kept.",
    )
    remove.add_argument("study_dir", metavar="STUDY_DIR")
    remove.add_argument("email", metavar="EMAIL")
    remove.add_argument(
        "--no-pull",
        action="store_true",
        help="do not pull their projects first (their server is gone for good)",
    )
    remove.add_argument(
        "--delete-server",
        action="store_true",
        help="also delete their embedded Label Studio's folder (their answers stay in the study)",
    )
    remove.set_defaults(func=_cmd_annotators_remove)


def _cmd_deploy(args: argparse.Namespace) -> int:
    from hume_sync.commands import deploy, deploy_kubernetes

    kube = args.target == "kubernetes"
    write = deploy_kubernetes.deploy_kubernetes if kube else deploy.deploy_compose
    out = Path(args.out)
    with _study_store(args.study_dir) as store:
        slots = write(store, Path(args.study_dir), out, args.annotator, force=args.force)
    print(f"wrote {out} for the manager and {len(slots) - 1} annotators (secrets: 0600, not shown)")
    for s in slots:
        print(f"  {s.service:<14} port {s.port}  {s.email or '(the manager)'}")
    print("next:")
    for step in deploy.next_steps(slots, Path(args.study_dir), out, args.target):
        print(f"  {step}")
    return 0


def _add_deploy_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "deploy",
        help="write a team's servers (Compose or Kubernetes) for the study's annotators",
        description="Write one Label Studio per annotator, the manager's, PostgreSQL (a database "
        "each) and the ML backend (reading the study folder), with generated secrets in a 0600 "
        "file. Annotators: those registered in the study, then every --annotator EMAIL.",
    )
    p.add_argument("target", choices=["compose", "kubernetes"])
    p.add_argument("study_dir", metavar="STUDY_DIR")
    p.add_argument("--out", required=True, metavar="DIR", help="the folder to write (new)")
    p.add_argument(
        "--annotator",
        action="append",
        default=[],
        metavar="EMAIL",
        help="an annotator not registered yet (repeatable; register them after the servers run)",
    )
    p.add_argument(
        "--force", action="store_true", help="replace DIR (the secrets of its .env are kept)"
    )
    p.set_defaults(func=_cmd_deploy)


def _add_predict_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "predict",
        help="compute every model's sealed answers and subset scores (cached, resumable)",
        description="Embed the study's texts once per model (cache in STUDY_DIR/cache/"
        "embeddings), answer every instance as MTEB would, and store the answers as sealed "
        "predictions (model_version emb:<name>) with each model's score per subset.",
    )
    p.add_argument("study_dir", metavar="STUDY_DIR")
    p.add_argument(
        "--models",
        nargs="+",
        default=None,  # hume_sync.commands.predict.DEFAULT_MODELS, read when predict runs
        metavar="MODEL",
        help="mteb model names (run through mteb's own wrapper), other sentence-transformers "
        "ids or local directories, or openai:<model> on --emb-base-url "
        "(default: the packaged all-MiniLM-L6-v2)",
    )
    p.add_argument(
        "--subsets", nargs="+", metavar="TASK/SUBSET", help="only these subsets (default: all)"
    )
    p.add_argument(
        "--chunk-size", type=int, default=None, help="texts per encode call and cache commit"
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="overwrite stored predictions that changed (new model revision, changed data)",
    )
    p.add_argument(
        "--device",
        default=None,
        metavar="DEVICE",
        help="torch device for in-process models (default: a GPU when there is one, else cpu)",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="texts per encode batch (default: 128 on a GPU, 32 on the CPU)",
    )
    e = p.add_argument_group(
        "embedding server (models given as openai:<model>, any OpenAI-compatible endpoint)"
    )
    e.add_argument("--emb-base-url", default=None, metavar="URL", help="e.g. http://gpu:8000/v1")
    e.add_argument(
        "--emb-api-key-env",
        default="OPENAI_API_KEY",
        metavar="VAR",
        help="name of the environment variable holding the API key (sent if set)",
    )
    e.add_argument("--emb-concurrency", type=int, default=4, help="requests in flight")
    e.add_argument(
        "--emb-max-batch-tokens",
        type=int,
        default=8192,
        help="estimated tokens per request (UTF-8 bytes / 4)",
    )
    e.add_argument("--emb-retries", type=int, default=4, help="retries on 429/5xx/timeouts")
    e.add_argument("--emb-timeout", type=float, default=60.0, help="seconds per request")
    e.add_argument(
        "--emb-price-per-mtok", type=float, default=None, help="USD per million tokens (cost log)"
    )
    g = p.add_argument_group("LLM annotator (any OpenAI-compatible endpoint)")
    g.add_argument("--llm", metavar="MODEL_ID", help="also annotate with this LLM")
    g.add_argument(
        "--llm-base-url",
        default=None,
        metavar="URL",
        help="endpoint (default: $OPENAI_BASE_URL, else https://api.openai.com/v1)",
    )
    g.add_argument(
        "--llm-api-key-env",
        default="OPENAI_API_KEY",
        metavar="VAR",
        help="name of the environment variable holding the API key",
    )
    g.add_argument("--llm-name", default=None, help="name in model_version llm:<name>")
    g.add_argument(
        "--llm-response-format",
        default="json_schema",
        choices=("json_schema", "json_object_schema", "json_object", "none"),
        help="structured output mode (llama.cpp's server: json_object_schema)",
    )
    g.add_argument("--llm-concurrency", type=int, default=4)
    g.add_argument("--llm-max-tokens", type=int, default=512)
    g.add_argument("--llm-temperature", type=float, default=0.0)
    p.set_defaults(func=_cmd_predict)


def _add_close_and_reveal_parsers(sub: argparse._SubParsersAction) -> None:
    close = sub.add_parser(
        "close",
        help="mark annotation as over (every project finished, or --force)",
        description="Mark the study closed so that its sealed predictions may be revealed. "
        "Without --force every subset's Label Studio project must be finished.",
    )
    close.add_argument("study_dir", metavar="STUDY_DIR")
    close.add_argument("--force", action="store_true", help="close even if projects are unfinished")
    close.set_defaults(func=_cmd_close)
    reveal = sub.add_parser(
        "reveal",
        help="write the sealed model predictions into the Label Studio projects",
        description="After the study is closed, add each stored prediction to its task with "
        "its model_version (re-running adds none). --force reveals an open study.",
    )
    reveal.add_argument("study_dir", metavar="STUDY_DIR")
    reveal.add_argument("--force", action="store_true", help="reveal even if the study is open")
    reveal.add_argument(
        "--rerank-rule",
        choices=("gap", "top1"),
        default=None,
        help="which candidates an embedding model marks relevant (default: gap)",
    )
    reveal.set_defaults(func=_cmd_reveal)


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
        args.command == "annotators" and args.annotators_command in ("add", "remove")
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
    except HumeError as exc:
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


# --------------------------------------------------------------------------- hume-ml-backend


def build_backend_parser() -> argparse.ArgumentParser:
    from hume_sync.commands.backend import STUDY_DIR_ENV
    from ml_backend.serve import DEFAULT_BIND

    p = argparse.ArgumentParser(
        prog="hume-ml-backend",
        description="Label Studio ML backend for a HUME study: serves the study's sealed model "
        "predictions through /predict once the study is closed (nothing before).",
    )
    p.add_argument("--study-dir", help=f"the study folder (default: ${STUDY_DIR_ENV})")
    p.add_argument("--bind", default=DEFAULT_BIND, help=f"host:port (default {DEFAULT_BIND})")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--threads", type=int, default=4, help="threads per worker (default 4)")
    p.add_argument("--timeout", type=int, default=120, help="worker timeout in seconds")
    return p


def backend_main(argv: Sequence[str] | None = None) -> int:
    """``hume-ml-backend``: the study's ML backend app under gunicorn (one-line errors)."""
    args = build_backend_parser().parse_args(argv)
    try:
        from hume_sync.commands.backend import create_backend_app
        from ml_backend.serve import gunicorn_options, serve

        options = gunicorn_options(
            bind=args.bind, workers=args.workers, threads=args.threads, timeout=args.timeout
        )
        app = create_backend_app(args.study_dir)
    except HumeError as exc:  # a bad study dir or setting: one line, no traceback
        print(f"hume-ml-backend: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    serve(app, options)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
