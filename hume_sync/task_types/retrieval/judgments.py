"""A retrieval study's judgments as a product: TREC qrels, missing judgments, rescored models.

Pooled judging is how TREC builds qrels, so the study's grades are new relevance judgments of
the source: this module writes them in TREC's qrels format (``query 0 document grade``, one
file per annotator and one for the aggregate, under the *source's* ids so they can be merged
with the original qrels), lists per query the documents people judged relevant that qrels
miss (unjudged, or judged not relevant) -- the retrieval form of candidate gold errors -- and
rescores every model's pooled ranking against qrels ∪ the people's aggregate (qrels' grade where
qrels judge a document, the people's otherwise), which answers how much missing judgments move a
model's score.

The aggregate grade of a document is the lower median of its annotators' grades (an ordinal
scale has no mean; the lower of two middle grades does not call a document relevant on one
vote of two). Only valid, complete answers count.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hume_sync.store import Store, gold
from hume_sync.store.records import ItemRef
from ml_backend.procedures import retrieval as P
from scoring.aggregation import retrieval as aggregation
from scoring.aggregation.retrieval import DEFAULT_MAIN

__all__ = [
    "aggregate_grades",
    "augmented_qrels",
    "file_name",
    "judgment_files",
    "missing_judgments",
    "study_judgments",
    "trec_qrels",
    "write_found",
    "write_judgments",
]

Grades = Mapping[str, Mapping[str, int]]


def trec_qrels(grades: Grades) -> str:
    """The judgments in TREC's qrels format: ``query 0 document grade``, sorted.

    Args:
        grades: per query, the grade per document.

    Returns:
        The file's text (empty for no judgments).
    """
    lines = [f"{q} 0 {d} {int(g)}" for q in sorted(grades) for d, g in sorted(grades[q].items())]
    return "".join(line + "\n" for line in lines)


def aggregate_grades(per_annotator: Mapping[str, Grades]) -> dict[str, dict[str, int]]:
    """Per query and document, the lower median of the annotators' grades.

    Args:
        per_annotator: per annotator, per query, the grade per document.

    Returns:
        Per query, the aggregate grade per document graded by anyone.
    """
    return {str(q): docs for q, docs in aggregation.consensus_grades(per_annotator).items()}


def missing_judgments(qrels: Grades, humans: Grades) -> dict[str, dict[str, list[str]]]:
    """Per query, the documents people judged relevant that qrels miss.

    Args:
        qrels: per query, the original grade per judged document.
        humans: per query, the people's (aggregate) grade per pooled document.

    Returns:
        Per query with any: ``unjudged`` (qrels never judged them) and ``judged_not_relevant``
        (qrels grade 0), each a sorted list of document ids.
    """
    out: dict[str, dict[str, list[str]]] = {}
    for q, docs in humans.items():
        judged = qrels.get(q, {})
        relevant = [d for d, g in docs.items() if int(g) > 0]
        unjudged = sorted(d for d in relevant if d not in judged)
        not_relevant = sorted(d for d in relevant if d in judged and int(judged[d]) <= 0)
        if unjudged or not_relevant:
            out[q] = {"unjudged": unjudged, "judged_not_relevant": not_relevant}
    return out


def augmented_qrels(qrels: Grades, humans: Grades) -> dict[str, dict[str, int]]:
    """qrels ∪ the people's judgments: qrels' grade where qrels judge, the people's otherwise.

    Args:
        qrels: per query, the original grades.
        humans: per query, the people's aggregate grades.

    Returns:
        Per query, the grade of every document either judged.
    """
    out = {q: {d: int(g) for d, g in docs.items()} for q, docs in humans.items()}
    for q, docs in qrels.items():
        out.setdefault(q, {}).update({d: int(g) for d, g in docs.items()})
    return out


def _source_ids(store: Store, subset: str) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """Per instance its query's source id, and per instance item id → document source id."""
    queries = {i.hume_id: i.source_id for i in store.instances(subset)}
    refs: Mapping[str, tuple[ItemRef, ...]] = store.item_refs(subset)
    docs = {h: {r.item_id: r.source_id for r in rs} for h, rs in refs.items()}
    return queries, docs


def study_judgments(
    store: Store, subset: str, answers: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """Everything this module makes of one retrieval subset, under the source's ids.

    Args:
        store: the study store (after ``pull``; model answers are read once they are visible).
        subset: the subset's key.
        answers: per annotator, per instance (hume_id), the grades to use; None reads every
            valid answer in the store. The report passes the answers it scores (late ones left
            out unless ``--include-late``, annotators named as it names them), so that its
            files and its scores rest on the same answers.

    Returns:
        ``annotators`` (per annotator, per query, grade per document), ``aggregate``,
        ``qrels`` (the original grades of the pooled documents), ``missing``
        (:func:`missing_judgments`) and ``models`` (per model version, nDCG@10 and MAP, and
        the subset's main score where it is another, against qrels and against qrels ∪ the
        aggregate, on its pooled ranking).
    """
    queries, docs = _source_ids(store, subset)

    def renamed(hume_id: str, by_item: Mapping[str, Any]) -> dict[str, Any]:
        return {docs[hume_id][k]: v for k, v in by_item.items()}

    if answers is None:
        given: dict[str, dict[str, Any]] = {}
        for row in store.annotations(subset):
            if row.status == "valid" and isinstance(row.answer, Mapping):
                given.setdefault(row.annotator, {})[row.hume_id] = row.answer
        answers = given
    per_annotator: dict[str, dict[str, dict[str, int]]] = {}
    for annotator, by_instance in answers.items():
        for hume_id, answer in by_instance.items():
            if not isinstance(answer, Mapping):
                continue
            grades = {k: int(v) for k, v in renamed(hume_id, answer).items()}
            per_annotator.setdefault(annotator, {})[queries[hume_id]] = grades
    qrels = {queries[h]: renamed(h, g) for h, g in gold(store, subset).items()}
    main = str(store.subset(subset).config.get("main_score") or DEFAULT_MAIN)
    aggregate = aggregate_grades(per_annotator)
    augmented = augmented_qrels(qrels, aggregate)
    models: dict[str, dict[str, float]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for p in store.predictions(subset):
        if p.model_version.startswith("emb:") and isinstance(p.answer, Mapping):
            sims = {k: float(v) for k, v in renamed(p.hume_id, p.answer).items()}
            runs.setdefault(p.model_version, {})[queries[p.hume_id]] = sims
    scored = {q for q, g in qrels.items() if any(int(v) > 0 for v in g.values())}
    for version, run in sorted(runs.items()):
        kept = {q: r for q, r in run.items() if q in scored}
        if not kept:
            continue
        ks = P.with_cut_off(P.RETRIEVAL_K_VALUES, main)
        plain, _ = P.evaluate(kept, {q: qrels[q] for q in kept}, ks)
        more, _ = P.evaluate(kept, {q: augmented[q] for q in kept}, ks)
        models[version] = {
            "ndcg_at_10": plain["ndcg_at_10"],
            "map_at_1000": plain["map_at_1000"],
            "augmented_ndcg_at_10": more["ndcg_at_10"],
            "augmented_map_at_1000": more["map_at_1000"],
        }
        if main not in models[version]:  # the subset's own main score, where another
            models[version].update({main: plain[main], f"augmented_{main}": more[main]})
    return {
        "annotators": per_annotator,
        "aggregate": aggregate,
        "qrels": qrels,
        "missing": missing_judgments(qrels, aggregate),
        "models": models,
    }


def file_name(text: str) -> str:
    """``text`` made safe as one file or folder name (annotator keys, subset keys)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "unnamed"


def judgment_files(found: Mapping[str, Any]) -> list[str]:
    """The names :func:`write_found` gives its files, in the order it writes them.

    Why apart: the report lists the files before the export writes them (both files are
    rendered first), and the names must be the ones written.
    """
    names = [f"qrels.{file_name(a)}.txt" for a in sorted(found["annotators"])]
    return [*names, "qrels.aggregate.txt", "judgments.json"]


def write_found(found: Mapping[str, Any], subset: str, out: str | Path) -> list[Path]:
    """Write what :func:`study_judgments` found of ``subset`` into the folder ``out``.

    Returns:
        The files written, named as :func:`judgment_files` says.
    """
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    names = judgment_files(found)
    texts = [trec_qrels(found["annotators"][a]) for a in sorted(found["annotators"])]
    texts.append(trec_qrels(found["aggregate"]))
    summary = {"subset": subset, "missing": found["missing"], "models": found["models"]}
    texts.append(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    written = []
    for name, text in zip(names, texts, strict=True):
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def write_judgments(store: Store, subset: str, out: str | Path) -> list[Path]:
    """Write one subset's judgments: TREC qrels per annotator and aggregate, and a summary.

    Args:
        store: the study store.
        subset: the subset's key.
        out: the folder to write into (made if missing).

    Returns:
        The files written: ``qrels.<annotator>.txt`` for each annotator,
        ``qrels.aggregate.txt``, and ``judgments.json`` (missing judgments, model scores
        against qrels and against qrels ∪ the aggregate).
    """
    return write_found(study_judgments(store, subset), subset, out)
