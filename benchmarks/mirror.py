"""Benchmark the manager's mirror reading only what changed (issue 38).

Two embedded Label Studio servers: an annotator's, holding one project of N classification
tasks with one answer each (built as benchmarks/pull.py builds it), and the manager's. The
study is pulled and mirrored whole once (timed, for reference). Then, in one run:

1. *nothing changed*, ``--rounds`` times, alternating which goes first: the mirror as ``pull``
   runs it (only what changed) and a whole reconciliation (``full=True``: every task listed),
   each writing nothing.
2. *something changed*, ``--rounds`` times: ``--changes`` answers get another label through
   Label Studio's API and are pulled (neither timed); then the mirror writes them, on even
   rounds as ``pull`` runs it, on odd rounds whole. Both write the same number of annotations.

Prints the medians and the ratios::

    PYTHONPATH=. .venv/bin/python benchmarks/mirror.py [--tasks 2000] [--rounds 4] [--changes 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _server  # noqa: E402
from incremental_sync import timed  # noqa: E402
from pull import LABELS, import_annotated, make_study  # noqa: E402

from hume_sync import task_types  # noqa: E402
from hume_sync.labelstudio.client import LabelStudioClient  # noqa: E402
from hume_sync.store import Store  # noqa: E402
from hume_sync.workflow.mirror import mirror_study  # noqa: E402
from hume_sync.workflow.pull import pull_study  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--changes", type=int, default=20)
    args = ap.parse_args()
    cls = task_types.get("classification").ls_module
    with (
        tempfile.TemporaryDirectory() as tmp,
        _server.label_studio(Path(tmp) / "a", from_env=False) as ls,
        _server.label_studio(Path(tmp) / "m", from_env=False) as ms,
    ):
        client = LabelStudioClient(ls.url, ls.token, timeout=1800, data_dir=ls.data_dir)
        manager = LabelStudioClient(ms.url, ms.token, timeout=1800, data_dir=ms.data_dir)
        study = make_study(Path(tmp), args.tasks)
        import_annotated(client, study, annotations_per_task=1)
        with Store.open(study) as store:
            pull_study(store, lambda url: client)
            first, summary = timed(lambda: mirror_study(store, manager))
            assert summary.tasks_created == args.tasks
            print(f"{args.tasks} tasks, one answer each; first mirror {first:.1f} s", flush=True)
            idle: dict[bool, list[float]] = {False: [], True: []}
            for r in range(args.rounds):
                for full in (False, True) if r % 2 == 0 else (True, False):
                    dt, s = timed(lambda full=full: mirror_study(store, manager, full=full))
                    assert s.writes() == 0, s
                    idle[full].append(dt)
            rows = store.annotations(store.subsets()[0].key)
            changed: dict[bool, list[float]] = {False: [], True: []}
            for r in range(args.rounds):
                for row in rows[r * args.changes : (r + 1) * args.changes]:
                    label = next(x for x in LABELS if x != row.answer)
                    result = cls.answer_to_result(label, labels=LABELS)
                    client.update_annotation(int(row.ls_annotation_id), result=result)
                pull_study(store, lambda url: client)
                full = r % 2 == 1
                dt, s = timed(lambda full=full: mirror_study(store, manager, full=full))
                assert s.annotations_updated == args.changes, s
                changed[full].append(dt)
    med = statistics.median
    print(
        f"nothing changed: mirror {med(idle[False]):.3f} s, whole {med(idle[True]):.3f} s "
        f"(ratio {med(idle[False]) / med(idle[True]):.3f})"
    )
    print(
        f"{args.changes} answers changed: mirror {med(changed[False]):.3f} s, whole "
        f"{med(changed[True]):.3f} s (ratio {med(changed[False]) / med(changed[True]):.3f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
