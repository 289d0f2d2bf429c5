"""Model scores through the study store equal mteb's own task classes run on the *source* data.

Each test writes a small source from real data (SIB-200, STS Benchmark), runs hume the way a user
does (``init`` -> ``predict`` with the packaged all-MiniLM-L6-v2) and, on the other side, runs
mteb 2.x's own task class (``AbsTask.evaluate``) on the same source, read here in its own order:
nothing on the mteb side has passed through hume. Ids sort differently as text and as numbers in
every source (SIB-200's index ids, row numbers 1, 2, ..., 10, ...), so a store that orders by id,
or a model run in the annotators' shuffled order, shows up as a different number.

Faults these tests catch (each failed before the store kept source order): a classification
train pool read back sorted by id as text (mteb undersamples another set of train items), a
clustering set taken whole clustered in presentation order (MiniBatchKMeans depends on order,
and the score moved with the study seed), and both on the ``hume-v1`` preset path, where an
in-memory ``datasets`` object in the HUME tasks' schema stands in for the hub.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from hume_sync.store import Store
from hume_sync.study.sources import provided_mteb_data
from hume_sync.study.spec import parse_spec
from hume_sync.workflow.init import init_from_spec
from hume_sync.workflow.predict import predict_study
from ml_backend.procedures.classification import majority_vote
from tests._mteb import TOL, max_diff, report, run_mteb
from tests._paths import SOURCE_DATA

datasets = pytest.importorskip("datasets")
pytest.importorskip("mteb")

pytestmark = pytest.mark.model

SIB = SOURCE_DATA / "sib200"
MV = "emb:sentence-transformers/all-MiniLM-L6-v2"
CLS_KEYS = ("accuracy", "f1", "f1_weighted", "precision", "recall")
STS_KEYS = ("cosine_spearman", "cosine_pearson", "spearman", "pearson")
RR_KEYS = ("map_at_1000", "ndcg_at_10", "mrr_at_10", "recall_at_3")


# ----------------------------------------------------------------------------- sources


def sib_rows(split: str, lang: str = "eng_Latn") -> list[dict[str, str]]:
    """SIB-200 rows ``{index_id, category, text}`` of one split, in file order."""
    path = SIB / lang / f"{split}.tsv"
    if not path.exists():
        pytest.skip(f"shared test data missing: {path}")
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def first_per_label(
    rows: Iterable[dict[str, str]], per_label: int, labels: Sequence[str] | None = None
) -> list[dict[str, str]]:
    """The first ``per_label`` rows of each label (of ``labels``, else of the first six seen),
    in file order."""
    counts: Counter[str] = Counter()
    chosen = list(labels) if labels is not None else []
    out = []
    for r in rows:
        cat = r["category"]
        if cat not in chosen:
            if labels is not None or len(chosen) == 6:
                continue
            chosen.append(cat)
        if counts[cat] < per_label:
            counts[cat] += 1
            out.append(r)
    return out


def labelled(rows: Iterable[Mapping[str, str]]) -> list[dict[str, str]]:
    """SIB-200 rows as records of a local source: ``{id, text, label}``, id = SIB's index id."""
    return [{"id": r["index_id"], "text": r["text"], "label": r["category"]} for r in rows]


def write_jsonl(path: Path, records: Iterable[Mapping[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def check_ids_sort_apart(ids: Sequence[str]) -> None:
    """The ids of a test source sort differently as text and as numbers (the point of it)."""
    as_numbers = sorted(ids, key=lambda x: int(x.lstrip("q")))
    assert sorted(ids) != as_numbers, ids[:10]


# ----------------------------------------------------------------------------- hume side


def through_the_store(
    study: Path, tasks: list[dict[str, Any]], encoder: Any, *, seed: int = 42
) -> dict[str, Any]:
    """``init`` then ``predict`` (the packaged MiniLM); returns the recorded subset scores."""
    data = {"name": "parity", "seed": seed, "tasks": tasks}
    study.mkdir(parents=True, exist_ok=True)
    (study / "study.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    init_from_spec(study, parse_spec(data, file=str(study / "study.yaml"), base_dir=study))
    with Store.open(study) as store:
        predict_study(study, store, encoders=[encoder], progress=False)
        return store.model_subset_scores()[MV]


def stored_answers(study: Path, subset: str) -> dict[str, Any]:
    """The model's stored answers by *source* id; item keys renamed to source ids through the
    store's own map (that map is under test here too)."""
    with Store.open(study) as store:
        instances = {i.hume_id: i for i in store.instances(subset)}
        refs = store.item_refs(subset)
        out = {}
        for p in store.predictions(subset, model_version=MV):
            answer = p.answer
            if p.hume_id in refs:
                to_source = {r.item_id: r.source_id for r in refs[p.hume_id]}
                answer = {to_source[k]: v for k, v in answer.items()}
            out[instances[p.hume_id].source_id] = answer
        return out


# ----------------------------------------------------------------------------- mteb side


def classification_data(train: Sequence[Mapping[str, Any]], test: Sequence[Mapping[str, Any]]):
    def ds(rows: Sequence[Mapping[str, Any]]) -> Any:
        return datasets.Dataset.from_dict(
            {"text": [r["text"] for r in rows], "label": [r["label"] for r in rows]}
        )

    return {"default": datasets.DatasetDict({"train": ds(train), "test": ds(test)})}


def clustering_data(rows: Sequence[Mapping[str, Any]], subset: str = "eng_Latn") -> Any:
    return {
        subset: {
            "test": datasets.Dataset.from_dict(
                {"sentences": [[r["text"] for r in rows]], "labels": [[r["label"] for r in rows]]}
            )
        }
    }


def votes(per_experiment: Sequence[Sequence[Any]]) -> list[Any]:
    """Per test item, the majority label over mteb's experiments (ties: alphabetically first)."""
    n_items = len(per_experiment[0])
    return [majority_vote([exp[i] for exp in per_experiment])[0] for i in range(n_items)]


# ----------------------------------------------------------------------------- local files


def test_classification_train_pool_in_source_order(
    tmp_path: Path, minilm: Any, mteb_minilm: Any
) -> None:
    """SIB-200 topics: the whole train file is the pool, 56 test sentences taken whole."""
    train = labelled(sib_rows("train"))
    test = labelled(first_per_label(sib_rows("test"), 8, sorted({r["label"] for r in train})))
    check_ids_sort_apart([r["id"] for r in train])
    src = tmp_path / "src"
    src.mkdir()
    task = {
        "name": "SIB200Classification",
        "type": "classification",
        "source": {
            "path": str(write_jsonl(src / "test.jsonl", test)),
            "train_path": str(write_jsonl(src / "train.jsonl", train)),
        },
        "samples_per_label": 8,
        "sampling": "all",
        "subsets": [{"language": "eng-Latn", "size": len(test)}],
    }
    ours = through_the_store(tmp_path / "study", [task], minilm)["SIB200Classification/default"]

    theirs, preds = run_mteb(
        "HUMEEmotionClassification",
        "default",
        classification_data(read_jsonl(src / "train.jsonl"), read_jsonl(src / "test.jsonl")),
        mteb_minilm,
        tmp_path / "mteb",
        samples_per_label=8,
    )
    diff = max_diff(ours.scores, theirs, CLS_KEYS)
    report("classification through the store (train pool in file order)", diff, ours.main_score)
    assert diff <= TOL
    answers = stored_answers(tmp_path / "study", "SIB200Classification/default")
    assert [answers[r["id"]] for r in test] == votes(preds)
    assert 0.3 < ours.main_score < 0.95  # a real, non-trivial number


def _clustering_task(path: Path, sampling: str) -> dict[str, Any]:
    return {
        "name": "SIB200Clustering",
        "type": "clustering",
        "source": {"path": str(path)},
        "labels": 6,
        "items_per_label": 5,
        "sampling": sampling,
        "subsets": [{"name": "eng_Latn", "language": "eng-Latn"}],
    }


def _compare_clustering(
    study: Path,
    ours: Any,
    rows: Sequence[Mapping[str, Any]],
    mteb_minilm: Any,
    folder: Path,
    what: str,
) -> float:
    theirs, preds = run_mteb(
        "HUMESIB200ClusteringS2S", "eng_Latn", clustering_data(rows), mteb_minilm, folder
    )
    diff = max_diff(ours.scores, theirs, ["v_measure"])
    report(what, diff, ours.main_score)
    assert diff <= TOL
    [answer] = stored_answers(study, "SIB200Clustering/eng_Latn").values()
    assert [answer[r["id"]] for r in rows] == [f"group_{c + 1}" for c in preds[0]]
    return ours.main_score


def test_clustering_set_taken_whole_in_source_order(
    tmp_path: Path, minilm: Any, mteb_minilm: Any
) -> None:
    """30 SIB-200 sentences (6 topics x 5) as one set, ``sampling: all``; the score must not
    depend on the study seed, which only shuffles what annotators see."""
    rows = labelled(first_per_label(sib_rows("test"), 5))
    check_ids_sort_apart([r["id"] for r in rows])
    path = write_jsonl(tmp_path / "set.jsonl", rows)
    main_scores = []
    for seed in (42, 7):
        study = tmp_path / f"study{seed}"
        ours = through_the_store(study, [_clustering_task(path, "all")], minilm, seed=seed)
        main_scores.append(
            _compare_clustering(
                study,
                ours["SIB200Clustering/eng_Latn"],
                read_jsonl(path),
                mteb_minilm,
                tmp_path / f"mteb{seed}",
                f"clustering taken whole, seed {seed}",
            )
        )
    assert main_scores[0] == main_scores[1]


def test_sampled_clustering_set_runs_in_source_order(
    tmp_path: Path, minilm: Any, mteb_minilm: Any
) -> None:
    """A sampled set (6 topics x 5 drawn from 204 sentences) is clustered as mteb would cluster
    the sampled sentences written out in the source's order."""
    path = write_jsonl(tmp_path / "test.jsonl", labelled(sib_rows("test")))
    study = tmp_path / "study"
    ours = through_the_store(study, [_clustering_task(path, "sample")], minilm)
    with Store.open(study) as store:
        [refs] = store.item_refs("SIB200Clustering/eng_Latn").values()
    sampled = {r.source_id for r in refs}
    assert len(sampled) == 30
    in_source_order = [r for r in read_jsonl(path) if r["id"] in sampled]
    check_ids_sort_apart([r["id"] for r in in_source_order])
    _compare_clustering(
        study,
        ours["SIB200Clustering/eng_Latn"],
        in_source_order,
        mteb_minilm,
        tmp_path / "mteb",
        "sampled clustering set",
    )


def test_sts_through_the_store(tmp_path: Path, minilm: Any, mteb_minilm: Any) -> None:
    path = SOURCE_DATA / "stsb-en-test.csv"
    if not path.exists():
        pytest.skip(f"shared test data missing: {path}")
    with path.open(encoding="utf-8", newline="") as fh:
        lines = list(csv.reader(fh))
    pairs = [
        {"id": str(n + 1), "sentence1": a, "sentence2": b, "score": float(s)}
        for n, (a, b, s) in enumerate(lines)
        if n % 27 == 0
    ][:40]
    check_ids_sort_apart([p["id"] for p in pairs])
    src = write_jsonl(tmp_path / "pairs.jsonl", pairs)
    task = {
        "name": "STSBenchmark",
        "type": "sts",
        "source": {"path": str(src)},
        "score_range": [0, 5],
        "sampling": "all",
        "subsets": [{"language": "eng-Latn", "size": 40}],
    }
    ours = through_the_store(tmp_path / "study", [task], minilm)["STSBenchmark/default"]
    rows = read_jsonl(src)
    data = {
        "default": {
            "test": datasets.Dataset.from_dict(
                {k: [r[k] for r in rows] for k in ("sentence1", "sentence2", "score")}
            )
        }
    }
    theirs, preds = run_mteb("HUMESTSBenchmark", "default", data, mteb_minilm, tmp_path / "mteb")
    diff = max_diff(ours.scores, theirs, STS_KEYS)
    answers = stored_answers(tmp_path / "study", "STSBenchmark/default")
    per_pair = float(
        np.max(np.abs(np.array([answers[r["id"]] for r in rows]) - preds["cosine_scores"]))
    )
    report("STS through the store", diff, ours.main_score)
    report("STS through the store, per pair", per_pair)
    assert diff <= TOL and per_pair <= TOL


def test_reranking_through_the_store(tmp_path: Path, minilm: Any, mteb_minilm: Any) -> None:
    """SIB-200 test sentences as queries; 7 train sentences each, 1-2 of the same topic."""
    train = sib_rows("train")
    by_cat: dict[str, list[dict[str, str]]] = {}
    for r in train:
        by_cat.setdefault(r["category"], []).append(r)
    cats = sorted(by_cat)
    queries = []
    for q, row in enumerate(sib_rows("test")[:12]):
        n_rel = 1 + q % 2
        same = by_cat[row["category"]]
        chosen = [(same[(3 * q + j) % len(same)], True) for j in range(n_rel)]
        others = [c for c in cats if c != row["category"]]
        for j in range(7 - n_rel):
            pool = by_cat[others[(q + j) % len(others)]]
            chosen.append((pool[(5 * q + 2 * j) % len(pool)], False))
        order = [(4 * q + 3 * j) % 7 for j in range(7)]  # relevant ones not always first
        cands = [chosen[i] for i in order]
        queries.append(
            {
                "id": row["index_id"],
                "query": row["text"],
                "candidates": [
                    {"id": r["index_id"], "text": r["text"], "relevant": rel} for r, rel in cands
                ],
            }
        )
    check_ids_sort_apart([c["id"] for q in queries for c in q["candidates"]])
    src = write_jsonl(tmp_path / "rerank.jsonl", queries)
    task = {
        "name": "SIB200Reranking",
        "type": "reranking",
        "source": {"path": str(src)},
        "candidates": 7,
        "sampling": "all",
        "subsets": [{"language": "eng-Latn", "size": 12}],
    }
    ours = through_the_store(tmp_path / "study", [task], minilm)["SIB200Reranking/default"]

    rows = read_jsonl(src)
    corpus: dict[str, str] = {}
    for q in rows:
        for c in q["candidates"]:
            corpus.setdefault(c["id"], c["text"])
    data = {
        "en": {
            "test": {
                "corpus": datasets.Dataset.from_dict(
                    {"id": list(corpus), "text": list(corpus.values())}
                ),
                "queries": datasets.Dataset.from_dict(
                    {"id": [q["id"] for q in rows], "text": [q["query"] for q in rows]}
                ),
                "relevant_docs": {
                    q["id"]: {c["id"]: int(c["relevant"]) for c in q["candidates"]} for q in rows
                },
                "top_ranked": {q["id"]: [c["id"] for c in q["candidates"]] for q in rows},
            }
        }
    }
    theirs, preds = run_mteb(
        "HUMEWikipediaRerankingMultilingual", "en", data, mteb_minilm, tmp_path / "mteb"
    )
    diff = max_diff(ours.scores, theirs, RR_KEYS)
    answers = stored_answers(tmp_path / "study", "SIB200Reranking/default")
    per_candidate = max(abs(answers[q][c] - preds[q][c]) for q in answers for c in answers[q])
    report("reranking through the store", diff, ours.main_score)
    report("reranking through the store, per candidate", per_candidate)
    assert diff <= TOL and per_candidate <= TOL


# ----------------------------------------------------------------------------- hume-v1 preset


SENTIMENT = ("entertainment", "health", "travel")  # three topics stand in for three sentiments
HUME_SIB_SUBSETS = ("eng_Latn", "arb_Arab", "dan_Latn", "rus_Cyrl")


def tweet_sentiment_stand_in() -> Any:
    """HUMETweetSentimentExtractionClassification's schema (``text``, integer ``label``,
    ``label_text``; train and test splits, no id column) filled with SIB-200 sentences: the
    whole train split of three topics, and the first 15 test sentences of each."""

    def ds(rows: Sequence[Mapping[str, str]]) -> Any:
        return datasets.Dataset.from_dict(
            {
                "text": [r["text"] for r in rows],
                "label": [SENTIMENT.index(r["category"]) for r in rows],
                "label_text": [r["category"] for r in rows],
            }
        )

    train = [r for r in sib_rows("train") if r["category"] in SENTIMENT]
    test = first_per_label(sib_rows("test"), 15, SENTIMENT)
    return {"default": datasets.DatasetDict({"train": ds(train), "test": ds(test)})}


def sib_clustering_stand_in() -> Any:
    """HUMESIB200ClusteringS2S's schema (one row per set: ``sentences``, ``labels``): the same
    30 SIB-200 sentences (6 topics x 5) in each of the preset's four languages."""
    english = first_per_label(sib_rows("test"), 5)
    wanted = [r["index_id"] for r in english]
    out = {}
    for lang in HUME_SIB_SUBSETS:
        by_id = {r["index_id"]: r for r in sib_rows("test", lang)}
        rows = [{"text": by_id[i]["text"], "label": by_id[i]["category"]} for i in wanted]
        out.update(clustering_data(rows, lang))
    return out


def test_hume_v1_preset_matches_mteb_task_classes(
    tmp_path: Path, minilm: Any, mteb_minilm: Any
) -> None:
    """The preset path end to end (``preset: hume-v1`` -> mteb loader -> store -> predict) on
    in-memory data, against mteb's own HUME task classes given the same data."""
    tweet, sib = "HUMETweetSentimentExtractionClassification", "HUMESIB200ClusteringS2S"
    data = {tweet: tweet_sentiment_stand_in(), sib: sib_clustering_stand_in()}
    tasks = [{"preset": "hume-v1", "only": [tweet, sib]}]
    with provided_mteb_data(data):
        ours = through_the_store(tmp_path / "study", tasks, minilm)

    theirs, preds = run_mteb(tweet, "default", data[tweet], mteb_minilm, tmp_path / "tweet")
    mine = ours[f"{tweet}/default"]
    diff = max_diff(mine.scores, theirs, CLS_KEYS)
    report("hume-v1 TweetSentimentExtraction (spl 32)", diff, mine.main_score)
    assert diff <= TOL
    names = dict(enumerate(SENTIMENT))
    answers = stored_answers(tmp_path / "study", f"{tweet}/default")
    assert [answers[str(i)] for i in range(len(answers))] == [
        names[v] for v in votes(preds)
    ]  # row numbers are the ids: "0", "1", ..., "10", ... (text order differs)

    for lang in HUME_SIB_SUBSETS:
        theirs, preds = run_mteb(sib, lang, data[sib], mteb_minilm, tmp_path / f"sib-{lang}")
        mine = ours[f"{sib}/{lang}"]
        diff = max_diff(mine.scores, theirs, ["v_measure"])
        report(f"hume-v1 SIB200ClusteringS2S {lang}", diff, mine.main_score)
        assert diff <= TOL
        [answer] = stored_answers(tmp_path / "study", f"{sib}/{lang}").values()
        assert [answer[f"0-{n}"] for n in range(30)] == [f"group_{c + 1}" for c in preds[0]]


def sts22_stand_in() -> Any:
    """HUMESTS22's schema (``sentence1``, ``sentence2``, ``score``; no id column) with the first
    30 STS Benchmark pairs, scores moved onto STS22's 1-4 scale."""
    path = SOURCE_DATA / "stsb-en-test.csv"
    if not path.exists():
        pytest.skip(f"shared test data missing: {path}")
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))[:30]
    return {
        "en": {
            "test": datasets.Dataset.from_dict(
                {
                    "sentence1": [a for a, _, _ in rows],
                    "sentence2": [b for _, b, _ in rows],
                    "score": [1 + 3 * float(s) / 5 for _, _, s in rows],
                }
            )
        }
    }


def core17_stand_in() -> Any:
    """HUMECore17InstructionReranking's loaded schema (mteb 2.x retrieval: corpus with titles,
    queries with an ``instruction``, relevance judgements, the candidates of each query):
    12 SIB-200 test sentences as queries, 7 train sentences each (1-2 of the same topic)."""
    train = sib_rows("train")
    by_cat: dict[str, list[dict[str, str]]] = {}
    for r in train:
        by_cat.setdefault(r["category"], []).append(r)
    cats = sorted(by_cat)
    corpus: dict[str, tuple[str, str]] = {}
    queries, qrels, top = [], {}, {}
    for q, row in enumerate(sib_rows("test")[:12]):
        others = [c for c in cats if c != row["category"]]
        cands = [(by_cat[row["category"]][(3 * q + j) % 40], 1) for j in range(1 + q % 2)]
        cands += [(by_cat[others[(q + j) % 6]][(5 * q + 2 * j) % 40], 0) for j in range(6 - q % 2)]
        cands = [cands[(4 * q + 3 * j) % 7] for j in range(7)]
        for r, _ in cands:
            title = f"{r['category'].title()} notes" if int(r["index_id"]) % 2 else ""
            corpus.setdefault(r["index_id"], (title, r["text"]))
        qid = f"q{row['index_id']}"
        queries.append((qid, row["text"], f"Relevant: a text on {row['category']}."))
        qrels[qid] = {r["index_id"]: rel for r, rel in cands}
        top[qid] = [r["index_id"] for r, _ in cands]
    ds = datasets.Dataset.from_dict
    return {
        "default": {
            "test": {
                "corpus": ds(
                    {
                        "id": list(corpus),
                        "title": [t for t, _ in corpus.values()],
                        "text": [x for _, x in corpus.values()],
                    }
                ),
                "queries": ds(
                    {
                        "id": [q for q, _, _ in queries],
                        "text": [t for _, t, _ in queries],
                        "instruction": [i for _, _, i in queries],
                    }
                ),
                "relevant_docs": qrels,
                "top_ranked": top,
            }
        }
    }


def test_hume_v1_preset_sts_and_instruction_reranking(
    tmp_path: Path, minilm: Any, mteb_minilm: Any
) -> None:
    """The other two types on the preset path: an STS22-shaped set, and an instruction
    reranking set with titles (how the query, its instruction and a titled document become
    model input must be mteb's)."""
    sts, rr = "HUMESTS22", "HUMECore17InstructionReranking"
    data = {sts: sts22_stand_in(), rr: core17_stand_in()}
    with provided_mteb_data(data):
        spec = parse_spec({"name": "p", "tasks": [{"preset": "hume-v1", "only": [sts, rr]}]})
        task = next(t for t in spec.tasks if t.name == sts)
        only_en = {t.name: t for t in spec.tasks} | {
            sts: dataclasses.replace(task, subsets=task.subsets[:1])  # the stand-in has "en"
        }
        spec = dataclasses.replace(spec, tasks=tuple(only_en[t.name] for t in spec.tasks))
        study = tmp_path / "study"
        init_from_spec(study, spec)
        with Store.open(study) as store:
            predict_study(study, store, encoders=[minilm], progress=False)
            ours = store.model_subset_scores()[MV]

    theirs, preds = run_mteb(sts, "en", data[sts], mteb_minilm, tmp_path / "sts")
    diff = max_diff(ours[f"{sts}/en"].scores, theirs, STS_KEYS)
    report("hume-v1 STS22 (en)", diff, ours[f"{sts}/en"].main_score)
    assert diff <= TOL

    theirs, preds = run_mteb(rr, "default", data[rr], mteb_minilm, tmp_path / "rr")
    mine = ours[f"{rr}/default"]
    diff = max_diff(mine.scores, theirs, RR_KEYS)
    answers = stored_answers(study, f"{rr}/default")
    per_candidate = max(abs(answers[q][c] - preds[q][c]) for q in answers for c in answers[q])
    report("hume-v1 Core17InstructionReranking", diff, mine.main_score)
    report("hume-v1 Core17InstructionReranking, per candidate", per_candidate)
    assert diff <= TOL and per_candidate <= TOL
