"""Benchmark `pull` and `status` reading only what changed since the last pull (issue 38).

Builds one project of N classification tasks (default 100,000), one answer each, on the
embedded Label Studio (``--postgres``: on a private PostgreSQL cluster), as benchmarks/pull.py
builds it, and pulls it whole once (timed, for reference, with a whole status). Then, in one run:

1. *nothing changed* (more than :data:`~hume_sync.workflow.changes.REREAD_MARGIN` after the
   last change), ``--rounds`` times, alternating: a pull and a status as the commands run them
   (``pull_study``; ``study_status`` and the effort and quality block, ``effort_json``, which
   the first status after the whole pull computed and kept in the store). Goal: ≤ 1 s each.
2. *something changed*, ``--rounds`` times: ``--changes`` answers are edited through Label
   Studio's API (not timed), then, alternating which goes first, Label Studio's own read of the
   changes (the tasks-API request hume makes: tasks whose ``updated_at`` is at or after the
   last pull's newest, less the margin, with their annotations) and hume's pull of them (the
   same read, plus the project's counters, the store writes, the checks and the summary).
   Goal: pull ≤ 1.2 × Label Studio's read. Status after the same changes is timed beside (the
   command's: the changed answers make it compute the effort block again).

Prints the medians and the ratios::

    PYTHONPATH=. .venv/bin/python benchmarks/incremental_sync.py [--tasks 100000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _server  # noqa: E402
from pull import import_annotated, make_study  # noqa: E402

from hume_sync.labelstudio.annotators import plan_seats  # noqa: E402
from hume_sync.labelstudio.client import LabelStudioClient  # noqa: E402
from hume_sync.store import Store  # noqa: E402
from hume_sync.workflow import changes, status_effort  # noqa: E402
from hume_sync.workflow.pull import pull_study  # noqa: E402
from hume_sync.workflow.status import study_status  # noqa: E402
from hume_sync.workflow.status_effort import effort_json  # noqa: E402


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def status_command(store: Store, clients, *, full: bool = False):
    """What ``hume-sync status`` runs: progress from Label Studio, then the effort block."""
    st = study_status(store, clients, full=full)
    effort_json(store)
    return st


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--changes", type=int, default=100)
    _server.add_arguments(ap)
    args = ap.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        _server.label_studio(Path(tmp), postgres=args.postgres, from_env=False) as ls,
    ):
        print(f"Label Studio on {ls.database}; {args.tasks} tasks, one answer each", flush=True)
        client = LabelStudioClient(ls.url, ls.token, timeout=1800, data_dir=ls.data_dir)
        t0 = time.perf_counter()
        study = make_study(Path(tmp), args.tasks)
        project = import_annotated(client, study, annotations_per_task=1)
        print(f"built in {time.perf_counter() - t0:.0f} s", flush=True)

        def clients(url: str) -> LabelStudioClient:
            return client

        with Store.open(study) as store:
            (subset,) = store.subsets()
            full_pull, summary = timed(lambda: pull_study(store, clients))
            assert summary.total("added") == args.tasks and summary.full_reads == 1
            full_status, st = timed(lambda: status_command(store, clients, full=True))
            assert st.projects[0].answered == args.tasks
            print(
                f"whole pull {full_pull:.2f} s, whole status {full_status:.2f} s (computing and "
                "keeping the effort block)",
                flush=True,
            )
            wait = changes.REREAD_MARGIN.total_seconds() + 1
            time.sleep(wait)  # past the margin: "nothing changed" reads only the newest task

            idle_pull, idle_status, idle_effort = [], [], []
            for _ in range(args.rounds):
                dt, s = timed(lambda: pull_study(store, clients))
                assert s.change_reads == 1 and s.full_reads == 0 and s.total("added") == 0
                idle_pull.append(dt)
                dt, st = timed(lambda: status_command(store, clients))
                assert st.projects[0].answered == args.tasks
                idle_status.append(dt)
                idle_effort.append(timed(lambda: effort_json(store))[0])
            fresh_effort = timed(lambda: status_effort.computed_effort(
                store, plan_seats(store), store.annotators()
            ))[0]  # fmt: skip

            ids = [int(a.ls_annotation_id) for a in store.annotations(subset.key)]
            ls_read, hume_pull, hume_status = [], [], []
            for r in range(args.rounds):
                chunk = ids[r * args.changes : (r + 1) * args.changes]
                for k, ann in enumerate(chunk):
                    client.update_annotation(ann, lead_time=float(100 + r + k))
                state = store.sync_state(subset.key, 1)
                assert state is not None and state.watermark is not None
                since = changes.parse_time(state.watermark)
                assert since is not None

                def read_changes(since: datetime = since) -> int:
                    return len(list(client.changed_tasks(project, since - changes.REREAD_MARGIN)))

                def pull() -> object:
                    return pull_study(store, clients)

                if r % 2:
                    dt_pull, s = timed(pull)
                    dt_ls, n = timed(read_changes)
                else:
                    dt_ls, n = timed(read_changes)
                    dt_pull, s = timed(pull)
                assert n >= len(chunk) and s.change_reads == 1
                assert s.total("updated") == len(chunk)
                ls_read.append(dt_ls)
                hume_pull.append(dt_pull)
                hume_status.append(timed(lambda: status_command(store, clients))[0])

    med = statistics.median
    print(
        f"nothing changed: pull {med(idle_pull):.3f} s, status {med(idle_status):.3f} s "
        f"(goal ≤ 1 s each; whole: pull {full_pull:.2f} s, status {full_status:.2f} s)"
    )
    print(
        f"  of the idle status, the effort block read back {med(idle_effort):.3f} s "
        f"(computed from the rows: {fresh_effort:.2f} s)"
    )
    print(
        f"{args.changes} answers changed: Label Studio's read of the changes {med(ls_read):.3f} s,"
        f" pull {med(hume_pull):.3f} s, status {med(hume_status):.3f} s"
    )
    print(
        "ratio pull / Label Studio's read: "
        f"{med([p / q for p, q in zip(hume_pull, ls_read, strict=True)]):.2f}"
        " (goal ≤ 1.2)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
