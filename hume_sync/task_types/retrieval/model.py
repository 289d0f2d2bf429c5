"""Retrieval: how an embedding model answers it, as mteb's ``AbsTaskRetrieval`` on the pool.

mteb embeds the queries (with their instructions) in one ``query`` call and the documents in a
``passage`` call; with ``top_ranked`` given it ranks only each query's candidates, here its pool,
by the model's similarity, and scores the subset's main score (pytrec_eval; nDCG@10 unless its
task names another). A model's answer is ``{document_id: similarity}`` over the pool; its
scores add judged@k and the condensed scores (:func:`ml_backend.procedures.retrieval.score_pool`).
People are compared with that pooled score, like for like.

Beside it, under ``full_corpus_*``, the score the leaderboard shows: mteb without
``top_ranked``, each query ranked against the whole corpus (its top 1000, as mteb keeps, by
chunked exact search over the cached embeddings). The store keeps the pools, not the corpus, so
the job's settings name where the corpus is read from again (the subset's stored ``corpus``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from hume_sync.task_types.retrieval.source import Collection, collection_from
from ml_backend.model_procedure import (
    Embeddings,
    ModelAnswers,
    ModelProcedure,
    SubsetJob,
    TextGroup,
)
from ml_backend.procedures import retrieval as P
from scoring.aggregation.retrieval import DEFAULT_MAIN

#: Documents read from the cache and searched at a time in the whole-corpus ranking.
SEARCH_CHUNK = 8192


def _main_score(job: SubsetJob) -> str:
    """The subset's main score (stored at ``init`` where its task names one other than
    nDCG@10)."""
    return str(job.settings.get("main_score") or DEFAULT_MAIN)


def _corpus(job: SubsetJob) -> Collection | None:
    """The whole corpus of the job's subset, where its settings name one."""
    origin = job.settings.get("corpus")
    if not isinstance(origin, Mapping) or not origin:
        return None
    return collection_from(origin)


class RetrievalModel(ModelProcedure):
    """Retrieval's model procedure (similarity of query and pooled documents, scored by the
    subset's main score)."""

    model_items_key = "candidates"
    model_needs_train_pool = False

    def model_job_settings(self, subset: Any) -> dict[str, Any]:
        """Where the whole corpus is read from (the subset's stored ``corpus``), and the main
        score where the subset's is not nDCG@10 (so a job of an nDCG@10 subset is as before)."""
        config = subset.config or {}
        corpus = config.get("corpus")
        out: dict[str, Any] = (
            {"corpus": dict(corpus)} if isinstance(corpus, Mapping) and corpus else {}
        )
        if config.get("main_score"):
            out["main_score"] = str(config["main_score"])
        return out

    def model_encode_groups(self, job: SubsetJob) -> list[TextGroup]:
        queries = tuple(P.query_text(c) for c in job.contents)
        docs = tuple(
            P.document_text(doc)
            for n in range(len(job.contents))
            for doc in self.model_field(job, n, "candidates")
        )
        groups = [TextGroup(queries, "query"), TextGroup(docs, "passage")]
        corpus = _corpus(job)
        if corpus is not None:
            groups.append(TextGroup(tuple(corpus.docs.values()), "passage"))
        return groups

    def _full_corpus(
        self, job: SubsetJob, q_emb: np.ndarray, embeddings: Embeddings, similarity: str
    ) -> dict[str, float]:
        """mteb's scores of each query ranked against the whole corpus (prefixed)."""
        corpus = _corpus(job)
        if corpus is None or job.gold is None:
            return {}
        ids, texts = list(corpus.docs), list(corpus.docs.values())

        def chunks() -> Iterator[tuple[list[str], np.ndarray]]:
            for start in range(0, len(ids), SEARCH_CHUNK):
                part = texts[start : start + SEARCH_CHUNK]
                yield ids[start : start + SEARCH_CHUNK], embeddings(part, role="passage")

        k = max(P.RETRIEVAL_K_VALUES)
        found = P.exact_top_k(q_emb, chunks(), k, similarity)
        qrels = {
            h: {str(d): int(g) for d, g in gold.items()}
            for h, gold in zip(job.hume_ids, job.gold, strict=True)
            if any(int(g) > 0 for g in gold.values())
        }
        run = {h: found[n] for n, h in enumerate(job.hume_ids) if h in qrels}
        if not run:
            return {}
        scores, _ = P.evaluate(run, qrels, P.with_cut_off(P.RETRIEVAL_K_VALUES, _main_score(job)))
        return {f"full_corpus_{name}": value for name, value in scores.items()}

    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        doc_ids = [[str(d["id"]) for d in content["candidates"]] for content in job.contents]
        q_emb = embeddings([P.query_text(c) for c in job.contents], role="query")
        d_emb = [
            embeddings([P.document_text(d) for d in content["candidates"]], role="passage")
            for content in job.contents
        ]
        gold = None
        if job.gold is not None:
            gold = [{str(k): int(v) for k, v in g.items()} for g in job.gold]
        result = P.score_pool(
            q_emb,
            d_emb,
            doc_ids,
            gold,
            query_ids=list(job.hume_ids),
            similarity=similarity,
            main_score=_main_score(job),
        )
        out = ModelAnswers.from_result(result, result.answers)
        if out.scores is not None:
            out.scores.update(self._full_corpus(job, q_emb, embeddings, similarity))
        return out
