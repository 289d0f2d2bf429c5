"""Benchmark of ``hume-sync predict``, like against like. Prints medians of N alternating rounds
(a ratio: the median of its per-round ratios, whose two runs are neighbours in time):

- a cold ``predict`` (empty cache: embedding, procedures, store writes) against a bare
  ``model.encode`` of the same distinct texts batched exactly as the cache batches them
  (token-length order, calls of the encoder's batch size): that ratio is the pipeline's own
  overhead; and against one plain ``model.encode`` call per encoding context (sentence-
  transformers' own length sorting), the simplest thing a user could do instead;
- a rerun with nothing to do (every subset up to date) and a rerun whose embeddings are cached
  but whose procedures run again (score records removed);
- mteb 2.x's own task classes on the *source files* (read here, not through hume) with the same
  model, without and with mteb's ``CachedEmbeddingWrapper`` (cold and warm), and the largest
  |our main score - mteb's| over the subsets;
- peak resident memory.

The study is HUME-like: every subset's source *is* its sample (``sampling: all``), written by
this script from the shared real data — SIB-200 classification in six languages (the first
``--cls-size`` test sentences, the first ``--train-pool`` train sentences as pool), a SIB-200
clustering set per language (6 topics x 5), STS Benchmark pairs, and the SIB-200 reranking
fixture. Ids sort differently as text and as numbers. Model: the packaged all-MiniLM-L6-v2
(offline). Usage::

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/precompute.py [--rounds 5] [--sts-pairs 250]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hume_sync.store import Store  # noqa: E402
from hume_sync.study.spec import parse_spec  # noqa: E402
from hume_sync.workflow.init import init_from_spec  # noqa: E402
from hume_sync.workflow.predict import build_jobs, predict_study  # noqa: E402
from ml_backend.embedding_cache import length_key, variant_key  # noqa: E402
from ml_backend.encoders import load_encoder  # noqa: E402
from ml_backend.predict import encode_requests  # noqa: E402

DEFAULT_DATA = ROOT / "tests" / "data" / "source"
RERANK = ROOT / "tests" / "hume_sync" / "data" / "sib200_eng_rerank.jsonl"
LANGS = ("eng_Latn", "arb_Arab", "dan_Latn", "fra_Latn", "nob_Latn", "rus_Cyrl")
#: the mteb task class (and subset) that evaluates each type: its data is replaced by ours
MTEB_TASKS = {
    "classification": ("HUMEEmotionClassification", "default"),
    "clustering": ("HUMESIB200ClusteringS2S", "eng_Latn"),
    "sts": ("HUMESTSBenchmark", "default"),
    "reranking": ("HUMEWikipediaRerankingMultilingual", "en"),
}


# --------------------------------------------------------------------------- the sources


def _tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def _jsonl(path: Path, rows: Sequence[Mapping[str, Any]]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return str(path)


def _read(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text("utf-8").splitlines() if line]


def write_sources(
    data: Path, out: Path, *, cls_size: int, train_pool: int, sts_pairs: int
) -> dict[str, Any]:
    """Write every subset's source file; returns the study's task list (``sampling: all``)."""
    sib = data / "sib200"
    cls_subsets, clu_subsets = [], []
    for lang in LANGS:

        def rows(split: str, lang: str = lang) -> list[dict[str, str]]:
            return [
                {"id": r["index_id"], "text": r["text"], "label": r["category"]}
                for r in _tsv(sib / lang / f"{split}.tsv")
            ]

        test, pool = rows("test"), rows("train")
        cls_subsets.append(
            {"name": lang, "language": lang.replace("_", "-"), "size": cls_size,
             "path": _jsonl(out / "cls" / lang / "test.jsonl", test[:cls_size]),
             "train_path": _jsonl(out / "cls" / lang / "train.jsonl", pool[:train_pool])}
        )  # fmt: skip
        labels = list(dict.fromkeys(r["label"] for r in test))[:6]
        one_set = [r for lab in labels for r in [t for t in test if t["label"] == lab][:5]]
        one_set.sort(key=lambda r: test.index(r))  # the file's own order
        clu_subsets.append(
            {"name": lang, "language": lang.replace("_", "-"), "size": 30,
             "path": _jsonl(out / "clu" / f"{lang}.jsonl", one_set)}
        )  # fmt: skip
    with (data / "stsb-en-test.csv").open(encoding="utf-8", newline="") as fh:
        pairs = [
            {"id": str(n + 1), "sentence1": a, "sentence2": b, "score": float(s)}
            for n, (a, b, s) in enumerate(csv.reader(fh))
        ][:sts_pairs]
    queries = _read(RERANK)
    return {
        "name": "benchmark",
        "seed": 42,
        "tasks": [
            {"name": "SIB200Classification", "type": "classification", "sampling": "all",
             "samples_per_label": 16, "source": {"path": "{subset}.jsonl"},
             "subsets": cls_subsets},
            {"name": "SIB200Clustering", "type": "clustering", "sampling": "all", "labels": 6,
             "source": {"path": "{subset}.jsonl"}, "subsets": clu_subsets},
            {"name": "STSBenchmark", "type": "sts", "sampling": "all", "score_range": [0, 5],
             "source": {"path": _jsonl(out / "sts.jsonl", pairs)},
             "subsets": [{"language": "eng-Latn", "size": len(pairs)}]},
            {"name": "SIB200Reranking", "type": "reranking", "sampling": "all",
             "candidates": 9, "source": {"path": _jsonl(out / "rerank.jsonl", queries)},
             "subsets": [{"language": "eng-Latn", "size": len(queries)}]},
        ],
    }  # fmt: skip


# --------------------------------------------------------------------------- mteb on the sources


def mteb_inputs(task: Mapping[str, Any], subset: Mapping[str, Any]) -> Any:
    """mteb's dataset for one subset, read from its source file in the file's order."""
    import datasets

    def ds(columns: Mapping[str, list[Any]]) -> Any:
        return datasets.Dataset.from_dict(dict(columns))

    path = subset.get("path") or task["source"]["path"]
    rows = _read(path)
    hf_subset = MTEB_TASKS[task["type"]][1]

    def column(part: Sequence[Mapping[str, Any]], key: str) -> list[Any]:
        return [r[key] for r in part]

    if task["type"] == "classification":
        parts = {"train": _read(subset["train_path"]), "test": rows}
        return {
            hf_subset: datasets.DatasetDict(
                {
                    split: ds({"text": column(part, "text"), "label": column(part, "label")})
                    for split, part in parts.items()
                }
            )
        }
    if task["type"] == "clustering":
        one_set = {"sentences": [column(rows, "text")], "labels": [column(rows, "label")]}
        return {hf_subset: {"test": ds(one_set)}}
    if task["type"] == "sts":
        cols = ("sentence1", "sentence2", "score")
        return {hf_subset: {"test": ds({c: [r[c] for r in rows] for c in cols})}}
    corpus: dict[str, str] = {}
    for q in rows:
        for c in q["candidates"]:
            corpus.setdefault(c["id"], c["text"])
    return {
        hf_subset: {
            "test": {
                "corpus": ds({"id": list(corpus), "text": list(corpus.values())}),
                "queries": ds({"id": [q["id"] for q in rows], "text": [q["query"] for q in rows]}),
                "relevant_docs": {
                    q["id"]: {c["id"]: int(c["relevant"]) for c in q["candidates"]} for q in rows
                },
                "top_ranked": {q["id"]: [c["id"] for c in q["candidates"]] for q in rows},
            }
        }
    }


def run_mteb(spec: Mapping[str, Any], model: Any, folder: Path) -> dict[str, float]:
    """mteb's own evaluation of every subset; main score by ``<task>/<subset>``."""
    import mteb

    scores = {}
    for task in spec["tasks"]:
        name, hf_subset = MTEB_TASKS[task["type"]]
        for subset in task["subsets"]:
            evaluator = mteb.get_task(name)
            evaluator.dataset = mteb_inputs(task, subset)
            evaluator.data_loaded = True
            if task["type"] == "classification":
                evaluator.samples_per_label = task["samples_per_label"]
            result = evaluator.evaluate(
                model,
                "test",
                subsets_to_run=[hf_subset],
                encode_kwargs={"batch_size": 32, "show_progress_bar": False},
                prediction_folder=folder,
            )
            scores[f"{task['name']}/{subset.get('name', 'default')}"] = float(
                result[hf_subset]["main_score"]
            )
    return scores


# --------------------------------------------------------------------------- timing


def line(label: str, value: str, note: str = "") -> None:
    print(f"{label + ':':<42} {value:>12}" + (f"  ({note})" if note else ""))


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def alternating(steps: Mapping[str, Callable[[], Any]], rounds: int) -> dict[str, list[float]]:
    """Run every step once per round, reversing the order every other round, so that load from
    elsewhere on the machine falls on every step alike; returns each step's times."""
    names = list(steps)
    times: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            times[name].append(timed(steps[name]))
    return times


def encode_groups(encoder: Any, jobs: Sequence[Any]) -> dict[str, tuple[Any, dict[str, None]]]:
    """The distinct texts to embed per encoding context (role, type, task), as predict groups
    them, each with one request that names the context."""
    groups: dict[str, tuple[Any, dict[str, None]]] = {}
    for job in jobs:
        for req in encode_requests(job):
            v = variant_key(
                encoder, role=req.role, task_type=req.task_type, task_name=req.task_name
            )
            groups.setdefault(v, (req, {}))[1].update(dict.fromkeys(req.texts))
    return groups


def encode_function(model: Any, role: Any) -> Any:
    """The sentence-transformers call for a role: queries and passages have their own."""
    if role == "query":
        return model.encode_query
    return model.encode_document if role == "passage" else model.encode


def token_sorted_batches(
    encoder: Any, groups: Mapping[str, tuple[Any, dict[str, None]]]
) -> list[tuple[Any, list[str]]]:
    """Each context's texts longest first (by tokens), as the embedding cache batches them."""
    batches = []
    for req, texts in groups.values():
        size = length_key(encoder, list(texts))
        ordered = sorted(texts, key=lambda t: (-size[t], -len(t), t))
        batches.append((encode_function(encoder.model, req.role), ordered))
    return batches


def print_times(
    times: Mapping[str, list[float]], rss_model: float, rss_predict: float, *, with_mteb: bool
) -> None:
    """The medians, per-round ratios and peak memory of the timed runs, one line each."""
    med = {k: statistics.median(v) for k, v in times.items()}

    def show(label: str, key: str) -> None:
        runs = ", ".join(f"{t:.2f}" for t in times[key])
        line(label, f"{med[key]:.3f} s", f"runs: {runs}")

    def ratio(label: str, top: str, bottom: str, note: str = "") -> None:
        """Median of the per-round ratios: both runs of a round are neighbours in time, so
        load from elsewhere on the machine mostly cancels out."""
        per_round = [a / b for a, b in zip(times[top], times[bottom], strict=True)]
        shown = ", ".join(f"{r:.2f}" for r in per_round)
        line(label, f"{statistics.median(per_round):.3f}", f"{note}per round: {shown}")

    show("bare encode, token-sorted calls of 32", "bare")
    show("bare encode, one call per context", "plain")
    show("predict, cold cache", "cold")
    ratio("  predict / bare batched the same way", "cold", "bare", "pipeline overhead; ")
    ratio("  predict / one plain encode call", "cold", "plain")
    show("predict rerun, nothing to do", "noop")
    line("  cold / nothing to do", f"{med['cold'] / med['noop']:.0f}x")
    show("predict rerun, procedures recomputed", "recompute")
    line("  cold / procedures recomputed", f"{med['cold'] / med['recompute']:.1f}x")
    line("peak RSS with the model loaded", f"{rss_model:.0f} MiB")
    line("peak RSS after the timed runs", f"{rss_predict:.0f} MiB")
    if with_mteb:
        show("mteb on the source files, no cache", "mteb")
        ratio("  mteb / our cold predict", "mteb", "cold")
        show("mteb with its cache, cold", "mteb_cache_cold")
        ratio("  mteb cache cold / our cold predict", "mteb_cache_cold", "cold")
        show("mteb with its cache, warm", "mteb_cache_warm")
        ratio("  mteb cache warm / our recomputed rerun", "mteb_cache_warm", "recompute")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cls-size", type=int, default=100, help="test items per language")
    parser.add_argument(
        "--train-pool", type=int, default=200, help="train sentences per language (the pool)"
    )
    parser.add_argument("--sts-pairs", type=int, default=250)
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (>= 3)")
    parser.add_argument("--skip-mteb", action="store_true")
    args = parser.parse_args()
    if not (args.data_dir / "sib200").is_dir():
        print(f"benchmark data not found in {args.data_dir}", file=sys.stderr)
        return 2
    rounds = max(3, args.rounds)
    warnings.filterwarnings("ignore")  # sklearn's undefined-metric notes on tiny sets, mteb's

    tmp = Path(tempfile.mkdtemp(prefix="hume-bench-"))
    try:
        base = tmp / "base"
        spec = write_sources(
            args.data_dir,
            tmp / "src",
            cls_size=args.cls_size,
            train_pool=args.train_pool,
            sts_pairs=args.sts_pairs,
        )
        base.mkdir()
        init_from_spec(base, parse_spec(spec, file=str(base / "study.yaml"), base_dir=base))
        encoder = load_encoder("all-MiniLM-L6-v2")
        model = encoder.model
        with Store.open(base) as store:
            jobs = build_jobs(store)
        groups = encode_groups(encoder, jobs)
        n_texts = sum(len(t) for _, t in groups.values())
        n_instances = sum(len(j.hume_ids) for j in jobs)
        print(
            f"study: {len(jobs)} subsets, {n_instances} instances, {n_texts} distinct texts "
            f"to embed; {rounds} alternating rounds, medians reported"
        )
        model.encode(["warm up"] * 64, batch_size=32, show_progress_bar=False)
        rss_model = peak_rss_mib()

        sorted_batches = token_sorted_batches(encoder, groups)

        def bare_sorted() -> None:  # what the cache does, minus the cache and the rest
            for fn, texts in sorted_batches:
                for at in range(0, len(texts), 32):
                    fn(texts[at : at + 32], batch_size=32, show_progress_bar=False)

        def bare_plain() -> None:  # one encode call per encoding context
            for req, texts in groups.values():
                encode_function(model, req.role)(
                    list(texts), batch_size=32, show_progress_bar=False
                )

        cold_dirs = iter(range(1000))
        last = {"dir": base}

        def predict_cold() -> None:
            study = tmp / f"cold{next(cold_dirs)}"
            shutil.copytree(base, study)
            with Store.open(study) as store:
                [m] = predict_study(study, store, encoders=[encoder], progress=False).models
            assert m.embedded == n_texts, (m.embedded, n_texts)
            last["dir"] = study

        steps: dict[str, Callable[[], Any]] = {
            "bare": bare_sorted,
            "plain": bare_plain,
            "cold": predict_cold,
        }
        if not args.skip_mteb:
            from mteb.models.cache_wrappers import CachedEmbeddingWrapper
            from mteb.models.sentence_transformer_wrapper import (
                SentenceTransformerEncoderWrapper,
            )
            from sentence_transformers import SentenceTransformer

            mteb_model = SentenceTransformerEncoderWrapper(SentenceTransformer(encoder.source))
            mteb_dirs = iter(range(1000))
            mteb_scores: dict[str, float] = {}

            def mteb_plain() -> None:
                mteb_scores.update(run_mteb(spec, mteb_model, tmp / f"m{next(mteb_dirs)}"))

            def mteb_cache_cold() -> None:
                n = next(mteb_dirs)
                cached = CachedEmbeddingWrapper(mteb_model, tmp / f"mc{n}")
                run_mteb(spec, cached, tmp / f"m{n}")

            steps |= {"mteb": mteb_plain, "mteb_cache_cold": mteb_cache_cold}
        times = alternating(steps, rounds)
        rss_predict = peak_rss_mib()

        done = last["dir"]

        def noop() -> None:
            with Store.open(done) as store:
                [m] = predict_study(done, store, encoders=[encoder], progress=False).models
            assert m.embedded == 0 and m.skipped == len(jobs)

        def recompute() -> None:
            with Store.open(done) as store, store.transaction() as conn:
                conn.execute("DELETE FROM model_scores")
            with Store.open(done) as store:
                [m] = predict_study(done, store, encoders=[encoder], progress=False).models
            assert m.embedded == 0 and m.skipped == 0 and m.added == 0

        warm: dict[str, Callable[[], Any]] = {"noop": noop, "recompute": recompute}
        if not args.skip_mteb:
            warm_cache = CachedEmbeddingWrapper(mteb_model, tmp / "mteb-warm")
            run_mteb(spec, warm_cache, tmp / "mw")  # fill it once
            warm["mteb_cache_warm"] = lambda: run_mteb(spec, warm_cache, tmp / "mw")
        times |= alternating(warm, rounds)

        print_times(times, rss_model, rss_predict, with_mteb=not args.skip_mteb)
        if not args.skip_mteb:
            with Store.open(done) as store:
                ours = store.model_subset_scores()[encoder.model_version]
            worst = max(abs(ours[k].main_score - v) for k, v in mteb_scores.items())
            line("max |our main score - mteb's|", f"{worst:.2g}", f"{len(mteb_scores)} subsets")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
