"""Benchmark `hume-sync status` against one Label Studio export of the same project.

For each size N (classification tasks, one annotation each, in one project on the embedded
Label Studio, built as benchmarks/pull.py builds it), alternating:

- hume: ``study_status`` (project counters, the streamed export checked answer by answer,
  the annotator's accounts), as ``hume-sync status`` runs it;
- Label Studio's own: one JSON export of the project's annotated tasks
  (``exports.download_sync``, bytes only: the least any status that checks answers must read);
- for reference: the project's counters alone (``projects.get``).

Prints the medians and the ratio status / export (goal ≤ 1.2).

    .venv/bin/python benchmarks/status.py [--sizes 1000,10000] [--repeat 3] [--postgres]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _server  # noqa: E402
from pull import import_annotated, make_study  # noqa: E402

from hume_sync.labelstudio.client import LabelStudioClient  # noqa: E402
from hume_sync.store import Store  # noqa: E402
from hume_sync.workflow.status import study_status  # noqa: E402


def time_status(client: LabelStudioClient, study: Path, n: int) -> float:
    with Store.open(study) as store:
        t0 = time.perf_counter()
        result = study_status(store, lambda url: client)
        dt = time.perf_counter() - t0
    (p,) = result.projects
    assert (p.tasks, p.answered, p.to_do) == (n, n, 0), p
    return dt


def time_export(client: LabelStudioClient, project: int) -> float:
    t0 = time.perf_counter()
    size = sum(
        len(chunk)
        for chunk in client.sdk.projects.exports.download_sync(
            id=project, export_type="JSON", download_all_tasks=False
        )
    )
    dt = time.perf_counter() - t0
    assert size > 0
    return dt


def time_counters(client: LabelStudioClient, project: int) -> float:
    t0 = time.perf_counter()
    client.project_counts(project)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--repeat", type=int, default=3)
    _server.add_arguments(ap)
    args = ap.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        _server.label_studio(Path(tmp), postgres=args.postgres, from_env=False) as ls,
    ):
        root = Path(tmp)
        print(f"Label Studio on {ls.database}", flush=True)
        # hume's client knows the data folder (status reads the export and tidies its files)
        client = LabelStudioClient(ls.url, ls.token, timeout=900, data_dir=ls.data_dir)
        lines = []
        for n in (int(s) for s in args.sizes.split(",")):
            base = root / f"n{n}"
            base.mkdir()
            study = make_study(base, n)
            project = import_annotated(client, study, annotations_per_task=1)
            hume, own, counters = [], [], []
            for _ in range(args.repeat):
                hume.append(time_status(client, study, n))
                own.append(time_export(client, project))
                counters.append(time_counters(client, project))
            client.delete_project(project)
            h, o, c = (statistics.median(x) for x in (hume, own, counters))
            runs = f"status {[round(x, 2) for x in hume]} s, export {[round(x, 2) for x in own]} s"
            print(f"  {n} tasks: {runs}", flush=True)
            lines.append(
                f"{n:>6} tasks: status {h:6.2f} s, one export {o:6.2f} s, ratio {h / o:.2f} "
                f"(goal ≤ 1.2); counters alone {c * 1000:.0f} ms"
            )
        print(f"\nmedians of {args.repeat} alternating runs ({ls.database}):")
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
