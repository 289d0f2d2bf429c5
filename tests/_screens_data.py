"""A study of every task type in English and Arabic, for the annotator screen test.

Classification and clustering read SIB-200 as it is (``eng_Latn`` and ``arb_Arab``). STS,
reranking, pair classification and retrieval have no Arabic data beside the repository, so
their sources are built here from SIB-200's sentences: the same rows (aligned by ``index_id``)
in both languages, so that the two screens of a type show the same content in two scripts.
The gold of these built sets is arbitrary (a screen test reads no scores; regression's is a
sentence's number of words); summarization's texts are SIB-200 sentences with the three that
follow each as its "summaries". Bitext mining pairs
each subset's sentences with candidate translations (see ``BITEXT_TARGETS``).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from hume_sync.task_types.pair_classification.study import SICK_COLUMNS, SICK_LABEL_SET
from label_studio_configs.pair_classification import ENTAILMENT_INSTRUCTIONS
from tests._paths import REPO_ROOT
from tests._studies import SIB, SIB_COLUMNS

#: Multilabel classification: SIB-200 passages (two sentences, their topics' union), derived in
#: the repository by tests/data/multilabel/make_sib200_multilabel.py.
MULTILABEL = REPO_ROOT / "tests" / "data" / "multilabel" / "sib200"
#: Instruction reranking: SIB-200 queries with two instructions, derived in the repository by
#: tests/data/instruction_reranking/make_sib200_followir.py.
FOLLOWIR = REPO_ROOT / "tests" / "data" / "instruction_reranking" / "sib200"

LANGUAGES = {"eng_Latn": "eng-Latn", "arb_Arab": "arb-Arab"}
#: HUME's clustering sets: 30 texts in 5 topics.
CLUSTER_TOPICS, CLUSTER_PER_TOPIC = 5, 6
SIZES = {
    "classification": 3,
    "sts": 3,
    "reranking": 3,
    "pair_classification": 3,
    "bitext_mining": 3,
    "retrieval": 2,
    "multilabel_classification": 3,
    "summarization": 3,
    "regression": 3,
    "instruction_reranking": 3,
}
#: Bitext mining: English sentences with their French translations (SIB-200's Flores sentences
#: aligned by ``index_id``); the Arabic screen pairs Arabic with Arabic, so that the sentence and
#: the candidates share the direction this test's right-to-left rule measures (a sentence and
#: candidates in opposite directions are tests/integration/test_bitext_mining_e2e.py's).
BITEXT_TARGETS = {"eng_Latn": ("fra_Latn", "fra-Latn"), "arb_Arab": ("arb_Arab", "arb-Arab")}


def _sib_rows(subset: str) -> list[dict[str, str]]:
    with (SIB / subset / "test.tsv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def _write_sources(folder: Path, subset: str) -> None:
    rows = _sib_rows(subset)
    # Bitext mining: the first 40 sentences with their translations
    translations = {r["index_id"]: r["text"] for r in _sib_rows(BITEXT_TARGETS[subset][0])}
    with (folder / f"bitext-{subset}.jsonl").open("w", encoding="utf-8") as f:
        for r in rows[:40]:
            pair = {"id": r["index_id"], "sentence1": r["text"],
                    "sentence2": translations[r["index_id"]]}  # fmt: skip
            f.write(json.dumps(pair, ensure_ascii=False) + "\n")
    # STS: consecutive sentences as pairs, scores cycling 0..5
    with (folder / f"sts-{subset}.csv").open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        for n in range(12):
            writer.writerow([rows[2 * n]["text"], rows[2 * n + 1]["text"], str(n % 6)])
    # Reranking: a sentence as query, 7 candidates, those of the query's topic relevant
    with (folder / f"rerank-{subset}.jsonl").open("w", encoding="utf-8") as f:
        for q in range(6):
            query, cands = rows[40 + q * 8], rows[41 + q * 8 : 48 + q * 8]
            record = {
                "id": f"q{q}",
                "query": query["text"],
                "candidates": [
                    {"id": c["index_id"], "text": c["text"],
                     "relevant": c["category"] == query["category"]}
                    for c in cands
                ],
            }  # fmt: skip
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    # Pair classification: SICK's columns, judgments cycling through SICK's three
    with (folder / f"pairs-{subset}.tsv").open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\")
        writer.writerow(["pair_ID", "sentence_A", "sentence_B", "relatedness_score",
                         "entailment_judgment"])  # fmt: skip
        for n in range(12):
            a, b = rows[100 + 2 * n], rows[101 + 2 * n]
            label = SICK_LABEL_SET[n % len(SICK_LABEL_SET)]
            writer.writerow([str(n + 1), a["text"], b["text"], "3.0", label])
    # Summarization: a sentence as the text (and its one reference), three sentences that
    # follow it as its "machine summaries", expert scores cycling 1, 3, 5
    with (folder / f"summ-{subset}.jsonl").open("w", encoding="utf-8") as f:
        for t in range(4):
            text, summaries = rows[150 + 4 * t], rows[151 + 4 * t : 154 + 4 * t]
            record = {"id": f"s{t}", "text": text["text"], "human_summaries": [text["text"]],
                      "machine_summaries": [r["text"] for r in summaries],
                      "relevance": [1.0, 3.0, 5.0]}  # fmt: skip
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    # Regression: a sentence and its number of words (test rows 60-99; train rows 0-59)
    with (folder / f"regression-{subset}.jsonl").open("w", encoding="utf-8") as f:
        for r in rows[60:100]:
            record = {"id": r["index_id"], "text": r["text"], "value": len(r["text"].split())}
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    with (folder / f"regression-train-{subset}.jsonl").open("w", encoding="utf-8") as f:
        for r in rows[:60]:
            record = {"id": r["index_id"], "text": r["text"], "value": len(r["text"].split())}
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    # Retrieval, a BEIR folder: 3 sentences of three topics as queries (the file is sorted by
    # topic), the other 197 as the corpus; the first six
    # corpus sentences of a query's topic judged relevant (2, 2, 1, ...), one of another not.
    beir = folder / f"retrieval-{subset}"
    (beir / "qrels").mkdir(parents=True, exist_ok=True)
    picked = (5, 70, 140)
    queries = [rows[i] for i in picked]
    corpus = [r for i, r in enumerate(rows[:200]) if i not in picked]
    with (beir / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for r in corpus:
            f.write(
                json.dumps({"_id": f"d{r['index_id']}", "text": r["text"]}, ensure_ascii=False)
                + "\n"
            )
    with (beir / "queries.jsonl").open("w", encoding="utf-8") as f:
        for r in queries:
            f.write(
                json.dumps({"_id": f"q{r['index_id']}", "text": r["text"]}, ensure_ascii=False)
                + "\n"
            )
    with (beir / "qrels" / "test.tsv").open("w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for q in queries:
            same = [r for r in corpus if r["category"] == q["category"]][:6]
            other = next(r for r in corpus if r["category"] != q["category"])
            for r, grade in [*zip(same, (2, 2, 1, 1, 1, 1), strict=False), (other, 0)]:
                f.write(f"q{q['index_id']}\td{r['index_id']}\t{grade}\n")


def screens_spec(folder: Path, name: str = "screens", seed: int = 13) -> dict[str, Any]:
    """The spec: one subset per language of each type (clustering: 30 texts)."""
    folder.mkdir(parents=True, exist_ok=True)
    for subset in LANGUAGES:
        _write_sources(folder, subset)

    def subsets(size: int | None = None) -> list[dict[str, Any]]:
        extra = {} if size is None else {"size": size}
        return [{"name": s, "language": lang, **extra} for s, lang in LANGUAGES.items()]

    return {
        "name": name,
        "seed": seed,
        "tasks": [
            {"name": "SIB200Classification", "type": "classification",
             "source": {"path": str(SIB / "{subset}" / "test.tsv"), "columns": SIB_COLUMNS},
             "subsets": subsets(SIZES["classification"])},
            {"name": "SIB200Clustering", "type": "clustering",
             "source": {"path": str(SIB / "{subset}" / "test.tsv"), "columns": SIB_COLUMNS},
             "labels": CLUSTER_TOPICS, "items_per_label": CLUSTER_PER_TOPIC,
             "subsets": subsets()},
            {"name": "SIBPairsSTS", "type": "sts",
             "source": {"path": str(folder / "sts-{subset}.csv"), "header": False},
             "score_range": [0, 5], "subsets": subsets(SIZES["sts"])},
            {"name": "SIBReranking", "type": "reranking",
             "source": {"path": str(folder / "rerank-{subset}.jsonl")},
             "candidates": 7, "subsets": subsets(SIZES["reranking"])},
            {"name": "SIBPairs", "type": "pair_classification",
             "source": {"path": str(folder / "pairs-{subset}.tsv"), "format": "tsv",
                        "columns": dict(SICK_COLUMNS)},
             "label_set": list(SICK_LABEL_SET), "instructions": ENTAILMENT_INSTRUCTIONS,
             "subsets": subsets(SIZES["pair_classification"])},
            {"name": "SIBBitext", "type": "bitext_mining",
             "source": {"path": str(folder / "bitext-{subset}.jsonl")},
             "subsets": [
                 {"name": s, "language": lang, "size": SIZES["bitext_mining"],
                  "target_language": BITEXT_TARGETS[s][1]}
                 for s, lang in LANGUAGES.items()
             ]},
            {"name": "SIBWordCount", "type": "regression",
             "source": {"path": str(folder / "regression-{subset}.jsonl"),
                        "train_path": str(folder / "regression-train-{subset}.jsonl")},
             "subsets": subsets(SIZES["regression"])},
            # BM25 alone pools (no model loads in a screen test)
            {"name": "SIBRetrieval", "type": "retrieval",
             "source": {"path": str(folder / "retrieval-{subset}" / "qrels" / "test.tsv")},
             "pool_depth": 8, "pool_models": [], "subsets": subsets(SIZES["retrieval"])},
            {"name": "SIB200Multilabel", "type": "multilabel_classification",
             "source": {"path": str(MULTILABEL / "{subset}" / "test.jsonl"),
                        "train_path": str(MULTILABEL / "{subset}" / "train.jsonl")},
             "subsets": subsets(SIZES["multilabel_classification"])},
            {"name": "SIBInstructions", "type": "instruction_reranking",
             "source": {"path": str(FOLLOWIR / "{subset}" / "test.jsonl")},
             "subsets": subsets(SIZES["instruction_reranking"])},
            {"name": "SIBSummarization", "type": "summarization",
             "source": {"path": str(folder / "summ-{subset}.jsonl")}, "show_references": True,
             "subsets": subsets(SIZES["summarization"])},
        ],
    }  # fmt: skip
