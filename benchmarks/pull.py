"""Benchmark `hume-sync pull` against Label Studio's own JSON export of the same project.

Builds a study of N classification tasks (default 5,000; sentences from SICK in tests/data,
then generated ones) with 2 annotations each, on the embedded Label Studio (``--postgres``: on
a private PostgreSQL cluster; or the server in LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY:
benchmarks/_server.py), then measures in one run, alternating, the time of a
full pull into a fresh store and of `exports.download_sync(export_type="JSON")`.
Prints: pull time / export time (goal ≤ 1.2) and annotations per second.

    .venv/bin/python benchmarks/pull.py [--tasks 5000] [--repeat 3] [--postgres]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _server  # noqa: E402

from hume_sync import task_types  # noqa: E402
from hume_sync.labelstudio.client import LabelStudioClient  # noqa: E402
from hume_sync.store import Store  # noqa: E402
from hume_sync.study.spec import load_spec  # noqa: E402
from hume_sync.workflow.init import init_from_spec  # noqa: E402
from hume_sync.workflow.pull import pull_study  # noqa: E402
from hume_sync.workflow.setup import (  # noqa: E402
    project_marker,
    project_title,
    render_subset_config,
    setup_study,
)

LABELS = ["contradiction", "entailment", "neutral"]
SICK = ROOT / "tests" / "data" / "source" / "SICK_test_annotated.txt"


def sentences(n: int) -> list[str]:
    out: list[str] = []
    for line in SICK.read_text(encoding="utf-8").splitlines()[1:]:
        parts = line.split("\t")
        out += [parts[1], parts[2]]
    while len(out) < n:
        out.append(f"Generated benchmark sentence number {len(out)}.")
    return list(dict.fromkeys(out))[:n] if len(set(out)) >= n else out[:n]


def make_study(root: Path, n: int) -> Path:
    texts = sentences(n)
    data = root / "items.jsonl"
    with data.open("w", encoding="utf-8") as fh:
        for i, text in enumerate(texts):
            fh.write(json.dumps({"id": f"s{i}", "text": text, "label": LABELS[i % 3]}) + "\n")
    spec = {
        "name": f"pullbench-{int(time.time())}",
        "tasks": [
            {
                "name": "Bench",
                "type": "classification",
                "sampling": "all",
                "source": {"path": str(data)},
                "subsets": [{"language": "eng-Latn", "size": n}],
            }
        ],
    }
    study = root / "study"
    study.mkdir()
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(study, load_spec(study / "study.yaml"))
    return study


def import_annotated(
    client: LabelStudioClient, study: Path, *, annotations_per_task: int = 2
) -> int:
    """Register the server's admin as the study's one annotator, create their project with tasks
    *and* their annotations (two each by default) in one import (fast), then let `setup` find
    the project by its marker and recover the task ids (its resume path)."""
    cls = task_types.get("classification").ls_module
    with Store.open(study) as store:
        (subset,) = store.subsets()
        me = client.whoami()
        slot = store.add_annotator(me["email"], ["eng"], client.url, int(me["id"])).slot
        project = client.create_project(
            title=project_title(store.meta()["study_name"], subset.key),
            label_config=render_subset_config(subset),
            maximum_annotations=1,
            description=f"[{project_marker(store.study_uid(), subset.key, slot)}]",
        )
        tasks = []
        for k, inst in enumerate(store.instances(subset.key)):
            anns = [
                {
                    "result": cls.answer_to_result(LABELS[(k + j) % 3], labels=LABELS),
                    "lead_time": 5.0 + j,
                }
                for j in range(annotations_per_task)
            ]
            tasks.append({"data": cls.task_data(inst.hume_ref, inst.content), "annotations": anns})
        client.import_tasks(int(project["id"]), tasks)
        setup_study(store, lambda url: client)
        return int(project["id"])


def time_pull(client: LabelStudioClient, study: Path, scratch: Path) -> tuple[float, int]:
    copy = scratch / f"pull-{time.monotonic_ns()}"
    shutil.copytree(study, copy)
    with Store.open(copy) as store:
        t0 = time.perf_counter()
        summary = pull_study(store, lambda url: client)
        dt = time.perf_counter() - t0
    shutil.rmtree(copy)
    return dt, summary.total("added")


def time_export(client: LabelStudioClient, project_id: int) -> tuple[float, int]:
    t0 = time.perf_counter()
    raw = b"".join(
        client.sdk.projects.exports.download_sync(
            id=project_id, export_type="JSON", download_all_tasks=False
        )
    )
    dt = time.perf_counter() - t0
    return dt, sum(len(t.get("annotations", [])) for t in json.loads(raw))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    _server.add_arguments(ap)
    args = ap.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        _server.label_studio(Path(tmp), postgres=args.postgres) as ls,
    ):
        root = Path(tmp)
        print(f"Label Studio on {ls.database}", flush=True)
        # the server's data folder: pull reads the JSON export and deletes its files
        client = LabelStudioClient(ls.url, ls.token, timeout=600, data_dir=ls.data_dir)
        study = make_study(root, args.tasks)
        t0 = time.perf_counter()
        project_id = import_annotated(client, study)
        print(f"setup: {args.tasks} tasks × 2 annotations in {time.perf_counter() - t0:.1f} s")
        pulls, exports = [], []
        for _ in range(args.repeat):
            dt, n_pull = time_pull(client, study, root)
            pulls.append(dt)
            dt, n_export = time_export(client, project_id)
            exports.append(dt)
        assert n_pull == n_export == 2 * args.tasks, (n_pull, n_export)
        pull_t, export_t = statistics.median(pulls), statistics.median(exports)
        print(f"pull   (median of {args.repeat}): {pull_t:.2f} s  {pulls}")
        print(f"export (median of {args.repeat}): {export_t:.2f} s  {exports}")
        print(f"pull / export time: {pull_t / export_t:.2f}  (goal ≤ 1.2)")
        print(f"pull throughput: {n_pull / pull_t:.0f} annotations/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
