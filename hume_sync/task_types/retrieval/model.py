"""Retrieval: how an embedding model answers it, as mteb's ``AbsTaskRetrieval`` on the pool.

mteb embeds the queries (with their instructions) in one ``query`` call and the documents in a
``passage`` call; with ``top_ranked`` given it ranks only each query's candidates, here its pool,
by the model's similarity, and scores nDCG@10 (pytrec_eval). A model's answer is
``{document_id: similarity}`` over the pool; its scores add judged@k and the condensed scores
(:func:`ml_backend.procedures.retrieval.score_pool`).
"""

from __future__ import annotations

from ml_backend.model_procedure import (
    Embeddings,
    ModelAnswers,
    ModelProcedure,
    SubsetJob,
    TextGroup,
)
from ml_backend.procedures import retrieval as P


class RetrievalModel(ModelProcedure):
    """Retrieval's model procedure (similarity of query and pooled documents, nDCG@10)."""

    model_items_key = "candidates"
    model_needs_train_pool = False

    def model_encode_groups(self, job: SubsetJob) -> list[TextGroup]:
        queries = tuple(P.query_text(c) for c in job.contents)
        docs = tuple(
            P.document_text(doc)
            for n in range(len(job.contents))
            for doc in self.model_field(job, n, "candidates")
        )
        return [TextGroup(queries, "query"), TextGroup(docs, "passage")]

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
            q_emb, d_emb, doc_ids, gold, query_ids=list(job.hume_ids), similarity=similarity
        )
        return ModelAnswers.from_result(result, result.answers)
