"""Benchmark of ``hume-sync export`` against loading the study store's rows it reads.

Builds a HUME-size study in a temporary folder from the shared real data (26 subsets, about
725 items: SIB-200 classification, 3 tasks x 5 languages; a SIB-200 clustering set per language;
3 STS Benchmark subsets; 3 reranking subsets on the SIB-200 reranking fixture), two scripted
annotators per subset (one mostly right, one wrong differently) and an LLM annotator on one
subset, all written through the store API. Then, in one process (imports and caches warm after a
first untimed round), it alternates N times:

- *load*: open the store and read every row export reads (subsets, instances, gold, annotations,
  predictions, meta), decoded;
- *export*: :func:`hume_sync.workflow.export.export_study` into a fresh folder (scores with BCa
  bootstrap intervals, report.md, report.html, scores.csv/json, MTEB result files);

and prints the medians, the median of the per-round ratios export / load (goal <= 10), the
same ratio of the best rounds in CPU time (steadier on a shared machine) and the
time of the bootstrap alone (every subset's :func:`scoring.intervals.bootstrap`). With
``--scale K`` it also builds the same study K times over (K x the subsets, items and rows),
times it in the same rounds, and prints how export and load grow (goal for K = 4: export
<= 4.4 x, i.e. within 1.1 x linear)::

    PYTHONPATH=. .venv/bin/python benchmarks/export.py [--rounds 7] [--scale 4] [--dir /dev/shm]

Export writes some 45 files; the load creates none. Where creating a file is slow (this
machine's /tmp, ext4 without a journal, where a new file skips every inode deleted in the last
30 s: 0.6 ms a file against 25 µs on tmpfs), that cost is the file system's, not the export's
work: ``--dir`` puts the study and the outputs elsewhere, to read the two apart.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from hume_sync.report.model import subset_inputs  # noqa: E402
from hume_sync.store import AnnotationRecord, PredictionRecord, Store, gold  # noqa: E402
from hume_sync.study.spec import load_spec  # noqa: E402
from hume_sync.workflow.export import export_study  # noqa: E402
from hume_sync.workflow.init import init_from_spec  # noqa: E402
from tests.task_type_examples import examples  # noqa: E402

SOURCE = ROOT / "tests" / "data" / "source"
SIB = SOURCE / "sib200"
RERANK = ROOT / "tests" / "hume_sync" / "data" / "sib200_eng_rerank.jsonl"
COLUMNS = {"id": "index_id", "text": "text", "label": "category"}
LANGS = [("eng_Latn", "eng-Latn"), ("arb_Arab", "arb-Arab"), ("dan_Latn", "dan-Latn"),
         ("nob_Latn", "nob-Latn"), ("rus_Cyrl", "rus-Cyrl")]  # fmt: skip


def hume_size_spec(seed: int = 7, *, copies: int = 1) -> dict[str, Any]:
    """26 subsets, 724 items: 15 x 30 classification, 5 x 20 clustering, 3 x 40 STS pairs,
    3 x 18 reranking queries; ``copies`` times (tasks renamed ``…_c<k>``) for a bigger study."""
    source = {"path": str(SIB / "{subset}" / "test.tsv"), "columns": COLUMNS}
    tasks: list[dict[str, Any]] = []
    for c in range(copies):
        tag = f"_c{c}" if copies > 1 else ""
        for t in range(3):
            tasks.append(
                {
                    "name": f"SIB200Classification{t}{tag}",
                    "type": "classification",
                    "source": source,
                    "subsets": [{"name": n, "language": lang, "size": 30} for n, lang in LANGS],
                }
            )
        tasks.append(
            {
                "name": f"SIB200Clustering{tag}",
                "type": "clustering",
                "source": source,
                "labels": 4,
                "items_per_label": 5,
                "subsets": [{"name": n, "language": lang} for n, lang in LANGS],
            }
        )
        for t in range(3):
            tasks.append(
                {
                    "name": f"STSBenchmark{t}{tag}",
                    "type": "sts",
                    "source": {"path": str(SOURCE / "stsb-en-test.csv"), "header": False},
                    "score_range": [0, 5],
                    "subsets": [{"language": "eng-Latn", "size": 40}],
                }
            )
            tasks.append(
                {
                    "name": f"SIB200Reranking{t}{tag}",
                    "type": "reranking",
                    "source": {"path": str(RERANK)},
                    "candidates": 7,
                    "subsets": [{"language": "eng-Latn", "size": 18}],
                }
            )
    return {"name": "exportbench", "seed": seed, "tasks": tasks}


def make_study(root: Path, copies: int = 1) -> tuple[Path, int, int]:
    """The study folder, its number of subsets and of items (``copies`` as in
    :func:`hume_size_spec`)."""
    study = root / f"study{copies}"
    study.mkdir()
    spec = hume_size_spec(copies=copies)
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    init_from_spec(study, load_spec(study / "study.yaml"))
    ann_id = 1
    n_subsets = n_items = 0
    with Store.open(study) as store:
        for sub in store.subsets():
            n_subsets += 1
            golds = gold(store, sub.key)
            labels = sub.config.get("label_set") or []
            simulated = examples(sub.task_type)  # the scripted annotators tests/ use
            records = []
            for k, inst in enumerate(store.instances(sub.key)):
                n_items += simulated.items_in(golds[inst.hume_id])
                for who in ("a", "b"):
                    ans = simulated.scripted_answer(golds[inst.hume_id], k, who, labels)
                    records.append(AnnotationRecord(ann_id, inst.hume_id, 1000 + ann_id, who, ans))
                    ann_id += 1
            store.upsert_annotations(records, subset=sub.key)
        first = store.subsets()[0]
        label = sorted(first.config["label_set"])[0]
        store.add_predictions(
            [PredictionRecord(i.hume_id, "llm:always-first", label)
             for i in store.instances(first.key)]
        )  # fmt: skip
    return study, n_subsets, n_items


def load_rows(study: Path) -> int:
    """Open the store and read (decoded) every row export reads; returns the row count."""
    n = 0
    with Store.open(study) as store:
        store.meta()
        for sub in store.subsets():
            n += len(store.instances(sub.key))
            n += len(gold(store, sub.key))
            n += len(store.annotations(sub.key))
            n += len(store.predictions(sub.key))
    return n


def bootstrap_only(study: Path) -> float:
    """Seconds spent in the bootstrap of every subset (inputs prepared beforehand)."""
    from scoring import subset_report

    with Store.open(study) as store:
        inputs = subset_inputs(store)
    scores = [(inp, subset_report.evaluate_subset(inp).human) for inp in inputs]
    t0 = time.perf_counter()
    for inp, human in scores:
        if human is not None:
            subset_report._bootstrap(inp, human)
    return time.perf_counter() - t0


#: CPU seconds of each timed load and export, beside the wall-clock ones: on a machine shared
#: with other jobs the wall clock counts their time too, the CPU time mostly does not.
CPU: dict[str, list[float]] = {"load": [], "export": [], "big_load": [], "big_export": []}


def _timed(study: Path, out: Path, prefix: str = "") -> tuple[float, float]:
    """Seconds to load the store's rows, then to export the study (CPU seconds to :data:`CPU`)."""
    c0, t0 = time.process_time(), time.perf_counter()
    load_rows(study)
    c1, t1 = time.process_time(), time.perf_counter()
    export_study(study, out)
    c2, t2 = time.process_time(), time.perf_counter()
    CPU[f"{prefix}load"].append(c1 - c0)
    CPU[f"{prefix}export"].append(c2 - c1)
    return t1 - t0, t2 - t1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument(
        "--scale",
        type=int,
        default=0,
        help="also time a study K times as large and print the growth (e.g. 4)",
    )
    ap.add_argument(
        "--dir",
        default=None,
        help="folder for the study and the outputs (default: the system's temporary folder); "
        "creating a file costs 0.6 ms in this machine's /tmp and 25 µs on tmpfs (/dev/shm)",
    )
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.scale < 0 or args.scale == 1:
        ap.error("--rounds must be at least 1 and --scale 0 (off) or at least 2")
    root = Path(tempfile.mkdtemp(prefix="hume-exportbench-", dir=args.dir))
    print(f"folder: {root}")
    try:
        study, n_subsets, n_items = make_study(root)
        n_rows = load_rows(study)
        print(f"study: {n_subsets} subsets, {n_items} items, {n_rows} rows, 2 annotators each")
        big = None
        if args.scale:
            big, big_subsets, big_items = make_study(root, copies=args.scale)
            big_rows = load_rows(big)
            print(f"x{args.scale} study: {big_subsets} subsets, {big_items} items, {big_rows} rows")
        # warm-up round (imports, caches), not timed
        export_study(study, root / "warm")
        loads, exports, ratios, big_loads, big_exports = [], [], [], [], []
        for r in range(args.rounds):
            load, export = _timed(study, root / f"out{r}")
            loads.append(load)
            exports.append(export)
            ratios.append(export / load)
            if big is not None:
                load, export = _timed(big, root / f"big{r}", "big_")
                big_loads.append(load)
                big_exports.append(export)
        boot = statistics.median(bootstrap_only(study) for _ in range(3))
        med = statistics.median
        print(f"load store rows: median {med(loads) * 1000:8.1f} ms")
        print(f"export:          median {med(exports) * 1000:8.1f} ms")
        print(f"  of which bootstrap (all subsets): {boot * 1000:8.1f} ms")
        ratio = med(ratios)
        print(f"ratio export / load: {ratio:.2f} (goal <= 10) over {args.rounds} rounds")
        best = {k: min(v) for k, v in CPU.items() if v}
        print(
            f"CPU time, best round: load {best['load'] * 1000:.1f} ms, export "
            f"{best['export'] * 1000:.1f} ms, ratio {best['export'] / best['load']:.2f}"
        )
        if big is not None:
            k = args.scale
            print(f"x{k} load:   median {med(big_loads) * 1000:8.1f} ms")
            print(f"x{k} export: median {med(big_exports) * 1000:8.1f} ms")
            print(f"growth of load for x{k} rows:   {med(big_loads) / med(loads):.2f}")
            print(
                f"growth of export for x{k} rows: {med(big_exports) / med(exports):.2f} "
                f"(goal <= {1.1 * k:.1f}); in CPU time, best rounds: "
                f"{best['big_export'] / best['export']:.2f}"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
