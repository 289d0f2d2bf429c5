"""Benchmark the study store's share of `hume-sync pull` and `hume-sync status`.

Builds a synthetic study (one STS subset of N tasks, two annotators with a project each, every
task answered by both: 2·N annotations; default N = 5,000, i.e. 10k annotations) and times, with
an in-memory stand-in for Label Studio (so what is timed is hume's work: the store's reads and
writes and the translation of answers), a first pull into a fresh store, a second pull that
changes nothing, and `status`. With ``--against DIR`` (a checkout of another commit) it runs
itself alternately under both trees, ``--repeat`` times each, and prints the medians and the
ratio this tree / the other.

    .venv/bin/python benchmarks/store_pull_status.py [--tasks 5000] [--repeat 3]
    git archive <commit> | tar -x -C /tmp/old
    .venv/bin/python benchmarks/store_pull_status.py --against /tmp/old
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(os.environ.get("HUME_ROOT") or Path(__file__).resolve().parents[1])
sys.path.insert(0, str(ROOT))

KEY = "Bench/default"
PHASES = ("pull_first", "pull_again", "status")


class FakeLabelStudio:
    """What pull and status ask of a Label Studio client, answered from memory."""

    def __init__(self, url: str, slot: int, tasks: list[dict[str, Any]], config: str) -> None:
        self.url, self.slot, self.tasks, self.config = url, slot, tasks, config

    def export_annotated_tasks(self, project_id: int) -> Iterator[dict[str, Any]]:
        return iter(self.tasks)

    def get_project(self, project_id: int) -> dict[str, Any]:
        n = len(self.tasks)
        return {
            "task_number": n,
            "finished_task_number": n,
            "total_annotations_number": n,
            "skipped_annotations_number": 0,
            "label_config": self.config,
        }

    def whoami(self) -> dict[str, Any]:
        return {"id": 1}

    def user_emails(self) -> dict[int, str]:
        return {1: "manager@x.org", 1 + self.slot: f"a{self.slot}@x.org"}

    def signup_is_open(self) -> bool:
        return False


def build(study: Path, n: int) -> dict[str, FakeLabelStudio]:
    from hume_sync import task_types
    from hume_sync.store import Store, SubsetPlan, apply_plans, dumps
    from hume_sync.workflow.setup import render_subset_config

    sts = task_types.get("sts")
    hids = [f"{KEY}/{i}" for i in range(n)]
    contents = [{"text1": f"first sentence {i}", "text2": f"second sentence {i}"} for i in hids]
    plan = SubsetPlan(
        key=KEY, task_name="Bench", hf_subset="default", task_type="sts", language="eng",
        config={"score_range": [0, 5]}, samples_per_label=None, overlap=2, position=0,
        instances=[
            (h, str(i), i, dumps(contents[i]), dumps(float(i % 6)), i) for i, h in enumerate(hids)
        ],
        items={}, train=[], report={},
    )  # fmt: skip
    clients = {}
    with Store.open(study) as store:
        apply_plans(store, {"study_name": "bench", "seed": "1", "spec_hash": "h", "spec": "{}"},
                    [plan], force=False)  # fmt: skip
        config = render_subset_config(store.subset(KEY))
        for slot in (1, 2):
            url = f"http://127.0.0.1:{7000 + slot}"
            store.add_annotator(f"a{slot}@x.org", ["eng"], url, 1 + slot)
            store.set_slot_project(KEY, slot, 10 + slot, f"hume:bench:{slot}")
            store.set_slot_tasks(KEY, slot, {h: 1000 * slot + i for i, h in enumerate(hids)})
            kw = sts.ls_translation_kwargs(plan.config, contents[0])
            tasks = [
                {
                    "id": 1000 * slot + i,
                    "annotations": [
                        {
                            "id": 100_000 * slot + i,
                            "completed_by": 1 + slot,
                            "result": sts.ls_answer_to_result(float((i + slot) % 6), **kw),
                            "lead_time": 3.5,
                            "created_at": f"2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:00Z",
                            "updated_at": "2026-01-02T00:00:00Z",
                        }
                    ],
                }
                for i in range(n)
            ]
            clients[url] = FakeLabelStudio(url, slot, tasks, config)
    return clients


def run_once(n: int) -> dict[str, float]:
    """Seconds of each phase in this process's tree (what ``--against`` runs in each tree)."""
    from hume_sync.store import Store
    from hume_sync.workflow.pull import pull_study
    from hume_sync.workflow.status import study_status

    with tempfile.TemporaryDirectory() as tmp:
        study = Path(tmp) / "study"
        clients = build(study, n)
        out = {}
        with Store.open(study) as store:
            for phase in ("pull_first", "pull_again"):
                t = time.perf_counter()
                summary = pull_study(store, clients.__getitem__)
                out[phase] = time.perf_counter() - t
                added = summary.total("added")
                assert added == (2 * n if phase == "pull_first" else 0), added
            t = time.perf_counter()
            status = study_status(store, clients.__getitem__)
            out["status"] = time.perf_counter() - t
            assert sum(p.answered for p in status.projects) == 2 * n
    return out


def child(root: Path, n: int) -> dict[str, float]:
    env = {**os.environ, "HUME_ROOT": str(root), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        [sys.executable, __file__, "--tasks", str(n), "--once"],
        env=env, capture_output=True, text=True, check=True, cwd=root,
    )  # fmt: skip
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=5000, help="tasks (annotations: twice this)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--against", type=Path, help="another tree to compare with, alternately")
    ap.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.once:
        print(json.dumps(run_once(args.tasks)))
        return 0
    here = Path(__file__).resolve().parents[1]
    trees = {"this": here, **({"other": args.against.resolve()} if args.against else {})}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for _ in range(args.repeat):
        for name, root in trees.items():  # alternating, so load changes hit both alike
            runs[name].append(child(root, args.tasks))
    med = {
        name: {p: statistics.median(r[p] for r in rs) for p in PHASES} for name, rs in runs.items()
    }
    print(f"{2 * args.tasks} annotations, median of {args.repeat} alternating runs (seconds)")
    for phase in PHASES:
        line = f"  {phase:<11} this {med['this'][phase]:7.3f}"
        if "other" in med:
            ratio = med["this"][phase] / med["other"][phase]
            line += f"   other {med['other'][phase]:7.3f}   this/other {ratio:.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
