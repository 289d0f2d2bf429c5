"""`hume-sync annotators add|list|remove`: the study's annotators, each with a Label Studio of
their own. ``add`` and ``remove`` write the study (their action parsers say so, for the
dispatcher's lock); ``list`` only reads it."""

from __future__ import annotations

import argparse

NAME = "annotators"
HELP = "register annotators, each with a Label Studio of their own"
DESCRIPTION: str | None = (
    "Register the annotators of a study. Each gets a Label Studio server of "
    "their own (embedded, or --url), an account with a generated password written to a "
    "0600 file, and the subsets of their languages at the next 'hume-sync setup'."
)
WRITES_STUDY = False  # `list`; `add` and `remove` set it on their own parsers
CREATES_STUDY = False


def positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0 (and finite)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"not a number of seconds above 0: {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="annotators_command", required=True, metavar="ACTION")
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
        type=positive_seconds,
        metavar="SECONDS",
        help="how long a new embedded server may take to answer (default: "
        "$HUME_LS_START_TIMEOUT, else 240)",
    )
    add.set_defaults(action=_add, writes_study=True)
    listing = actions.add_parser("list", help="the study's annotators, their servers and subsets")
    listing.add_argument("study_dir", metavar="STUDY_DIR")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(action=_list)
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
    remove.set_defaults(action=_remove, writes_study=True)


def run(args: argparse.Namespace) -> int:
    return int(args.action(args))


def _add(args: argparse.Namespace) -> int:
    from hume_sync.labelstudio.annotators import parse_languages
    from hume_sync.workflow.annotators import add_annotator
    from hume_sync.workflow.cli_support import study_store

    with study_store(args.study_dir) as store:
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


def _list(args: argparse.Namespace) -> int:
    from hume_sync.workflow.annotators import annotator_report, render_list
    from hume_sync.workflow.cli_support import print_json, study_store

    with study_store(args.study_dir) as store:
        records = annotator_report(store)
    if args.json:
        print_json({"annotators": records})
    else:
        print(render_list(records))
    return 0


def _remove(args: argparse.Namespace) -> int:
    from hume_sync.workflow.annotators_remove import remove_annotator
    from hume_sync.workflow.cli_support import clients, study_store

    with study_store(args.study_dir) as store:
        r = remove_annotator(
            store,
            args.email,
            clients(),
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
