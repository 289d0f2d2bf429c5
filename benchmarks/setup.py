"""Benchmark `hume-sync setup` against Label Studio's own bulk import of the same tasks.

For each size N (classification tasks; sentences from SICK in tests/data), on the
embedded Label Studio (``--postgres``: on a private PostgreSQL cluster; or the server in
LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY: benchmarks/_server.py), alternating:

- hume: ``setup_study`` on a fresh copy of an initialised study whose one annotator is the
  server's admin: find-or-create the project (marker), import every task, record the task ids;
- Label Studio's own: ``projects.create`` with the same labelling config + one
  ``projects.import_tasks`` request through the same SDK, carrying the same task data as
  hume's import (``task_payloads``: the same fields, "Task n of N" included; built
  beforehand);
- hume's rerun: ``setup_study`` again on the same store right after its first run, with
  nothing left to do (it checks the project and which tasks it already has).

Each project is deleted right after its run, so the server holds the same projects for every
run. Prints the medians and their ratios: first setup / Label Studio's own (goal ≤ 1.2), and
rerun / first setup (a rerun with nothing to do should cost a fraction of the first; it was
1.5 when it read every task with its annotations, 100 a page, and each project three times).

Beside the wall-clock times, the CPU seconds each side spent here (this process) and in the
server (the embedded server's process, from ``/proc``): on a shared machine the wall-clock
ratio moves with everyone else's load (1.02 to 1.66 at 1,000 tasks across runs of one tree),
the CPU spent does not, and the split shows what is hume's own work and what is Label
Studio's.

    .venv/bin/python benchmarks/setup.py [--sizes 1000,10000] [--repeat 3] [--postgres]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _server  # noqa: E402
from pull import make_study  # noqa: E402

from hume_sync.labelstudio.client import LabelStudioClient  # noqa: E402
from hume_sync.store import Store  # noqa: E402
from hume_sync.workflow.setup import (  # noqa: E402
    render_subset_config,
    setup_study,
    task_payloads,
)


@dataclass
class Cost:
    """One timed run: wall-clock seconds, CPU seconds here, CPU seconds in the server."""

    wall: float
    here: float
    server: float | None


class Meter:
    """Wall clock, this process's CPU and the server's CPU (when it can be read) around a run."""

    def __init__(self, server_cpu: Callable[[], float] | None) -> None:
        self._server_cpu = server_cpu

    def run(self, fn: Callable[[], T]) -> tuple[Cost, T]:
        s0 = self._server_cpu() if self._server_cpu else None
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        wall, here = time.perf_counter() - t0, time.process_time() - c0
        server = self._server_cpu() - s0 if self._server_cpu and s0 is not None else None
        return Cost(wall, here, server), out


def time_hume(
    client: LabelStudioClient, study: Path, scratch: Path, meter: Meter
) -> tuple[Cost, float, int]:
    """(first setup, rerun with nothing to do, tasks imported) on a fresh copy of the study."""
    copy = scratch / f"setup-{time.monotonic_ns()}"
    shutil.copytree(study, copy)
    with Store.open(copy) as store:
        me = client.whoami()
        store.add_annotator(me["email"], ["eng"], client.url, int(me["id"]))
        first, summary = meter.run(lambda: setup_study(store, lambda url: client))
        t0 = time.perf_counter()
        again = setup_study(store, lambda url: client)
        rerun = time.perf_counter() - t0
    (done,) = summary.projects
    assert again.imported == 0 and again.created == 0, again
    client.delete_project(done.project_id)
    shutil.rmtree(copy)
    return first, rerun, done.imported


def ls_inputs(study: Path) -> tuple[str, list[dict]]:
    """The labelling config and the tasks hume's setup imports (the same builder)."""
    with Store.open(study) as store:
        (subset,) = store.subsets()
        return render_subset_config(subset), task_payloads(subset, store.instances(subset.key))


def time_label_studio(
    client: LabelStudioClient, config: str, tasks: list[dict], meter: Meter
) -> Cost:
    ls = client.sdk

    def create_and_import() -> tuple[int, int]:
        project = ls.projects.create(
            title="bench: bulk import", label_config=config, maximum_annotations=1
        )
        resp = ls.projects.import_tasks(id=project.id, request=tasks)
        return int(project.id), int(resp.task_count or 0)

    cost, (project_id, imported) = meter.run(create_and_import)
    assert imported == len(tasks), imported
    client.delete_project(project_id)
    return cost


def _cpu(costs: list[Cost]) -> str:
    here = statistics.median(c.here for c in costs)
    servers = [c.server for c in costs if c.server is not None]
    server = f" + server {statistics.median(servers):.2f}" if len(servers) == len(costs) else ""
    return f"CPU here {here:.2f}{server} s"


def _cpu_total(costs: list[Cost]) -> float | None:
    if any(c.server is None for c in costs):
        return None
    return statistics.median(c.here + (c.server or 0.0) for c in costs)


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
        meter = Meter(_server.cpu_seconds(ls))
        lines = []
        for n in (int(s) for s in args.sizes.split(",")):
            base = root / f"n{n}"
            base.mkdir()
            study = make_study(base, n)
            config, tasks = ls_inputs(study)
            hume: list[Cost] = []
            own: list[Cost] = []
            reruns = []
            for _ in range(args.repeat):
                cost, rerun, imported = time_hume(client, study, base, meter)
                assert imported == n, imported
                hume.append(cost)
                reruns.append(rerun)
                own.append(time_label_studio(client, config, tasks, meter))
            h, o = (statistics.median(c.wall for c in x) for x in (hume, own))
            r = statistics.median(reruns)
            print(f"  {n} tasks: hume {[round(c.wall, 2) for c in hume]} s, "
                  f"rerun {[round(x, 2) for x in reruns]} s, "
                  f"Label Studio {[round(c.wall, 2) for c in own]} s", flush=True)  # fmt: skip
            lines.append(f"{n:>6} tasks: setup {h:6.2f} s, create + one bulk import "
                         f"{o:6.2f} s, ratio {h / o:.2f} (goal ≤ 1.2); rerun {r:6.2f} s, "
                         f"rerun / setup {r / h:.2f}")  # fmt: skip
            hc, oc = _cpu_total(hume), _cpu_total(own)
            ratio = f", CPU ratio {hc / oc:.2f}" if hc is not None and oc else ""
            lines.append(f"{'':>14}setup {_cpu(hume)}; Label Studio's own {_cpu(own)}{ratio}")
        print(f"\nmedians of {args.repeat} alternating runs ({ls.database}):")
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
