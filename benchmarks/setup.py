"""Benchmark `hume-sync setup` against Label Studio's own bulk import of the same tasks.

For each size N (classification tasks; sentences from SICK in tests/data), on the
embedded Label Studio (``--postgres``: on a private PostgreSQL cluster; or the server in
LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY: benchmarks/_server.py), alternating:

- hume: ``setup_study`` on a fresh copy of an initialised study whose one annotator is the
  server's admin: find-or-create the project (marker), import every task, record the task ids;
- Label Studio's own: ``projects.create`` with the same labelling config + one
  ``projects.import_tasks`` request carrying the same task data (built beforehand);
- hume's rerun: ``setup_study`` again on the same store right after its first run, with
  nothing left to do (it checks the project and which tasks it already has).

Each project is deleted right after its run, so the server holds the same projects for every
run. Prints the medians and their ratios: first setup / Label Studio's own (goal ≤ 1.2), and
rerun / first setup (a rerun with nothing to do should cost a fraction of the first; it was
1.5 when it read every task with its annotations, 100 a page, and each project three times).

    .venv/bin/python benchmarks/setup.py [--sizes 1000,10000] [--repeat 3] [--postgres]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _server  # noqa: E402
from pull import make_study  # noqa: E402

from hume_sync import task_types  # noqa: E402
from hume_sync.labelstudio.client import LabelStudioClient  # noqa: E402
from hume_sync.store import Store  # noqa: E402
from hume_sync.workflow.setup import render_subset_config, setup_study  # noqa: E402


def time_hume(client: LabelStudioClient, study: Path, scratch: Path) -> tuple[float, float, int]:
    """(first setup, rerun with nothing to do, tasks imported) on a fresh copy of the study."""
    copy = scratch / f"setup-{time.monotonic_ns()}"
    shutil.copytree(study, copy)
    with Store.open(copy) as store:
        me = client.whoami()
        store.add_annotator(me["email"], ["eng"], client.url, int(me["id"]))
        t0 = time.perf_counter()
        summary = setup_study(store, lambda url: client)
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = setup_study(store, lambda url: client)
        rerun = time.perf_counter() - t0
    (done,) = summary.projects
    assert again.imported == 0 and again.created == 0, again
    client.delete_project(done.project_id)
    shutil.rmtree(copy)
    return first, rerun, done.imported


def ls_inputs(study: Path) -> tuple[str, list[dict]]:
    with Store.open(study) as store:
        (subset,) = store.subsets()
        task_type = task_types.get(subset.task_type)
        tasks = [
            {"data": task_type.ls_task_data(i.hume_ref, i.content)}
            for i in store.instances(subset.key)
        ]
        return render_subset_config(subset), tasks


def time_label_studio(client: LabelStudioClient, config: str, tasks: list[dict]) -> float:
    ls = client.sdk
    t0 = time.perf_counter()
    project = ls.projects.create(
        title="bench: bulk import", label_config=config, maximum_annotations=1
    )
    resp = ls.projects.import_tasks(id=project.id, request=tasks)
    dt = time.perf_counter() - t0
    assert resp.task_count == len(tasks), resp
    client.delete_project(int(project.id))
    return dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--repeat", type=int, default=3)
    _server.add_arguments(ap)
    args = ap.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        _server.label_studio(Path(tmp), postgres=args.postgres) as ls,
    ):
        root = Path(tmp)
        print(f"Label Studio on {ls.database}", flush=True)
        client = LabelStudioClient(ls.url, ls.token, timeout=900)
        lines = []
        for n in (int(s) for s in args.sizes.split(",")):
            base = root / f"n{n}"
            base.mkdir()
            study = make_study(base, n)
            config, tasks = ls_inputs(study)
            hume, reruns, own = [], [], []
            for _ in range(args.repeat):
                dt, rerun, imported = time_hume(client, study, base)
                assert imported == n, imported
                hume.append(dt)
                reruns.append(rerun)
                own.append(time_label_studio(client, config, tasks))
            h, r, o = (statistics.median(x) for x in (hume, reruns, own))
            print(f"  {n} tasks: hume {[round(x, 2) for x in hume]} s, "
                  f"rerun {[round(x, 2) for x in reruns]} s, "
                  f"Label Studio {[round(x, 2) for x in own]} s", flush=True)  # fmt: skip
            lines.append(f"{n:>6} tasks: setup {h:6.2f} s, create + one bulk import "
                         f"{o:6.2f} s, ratio {h / o:.2f} (goal ≤ 1.2); rerun {r:6.2f} s, "
                         f"rerun / setup {r / h:.2f}")  # fmt: skip
        print(f"\nmedians of {args.repeat} alternating runs ({ls.database}):")
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
