"""Reranking: how an embedding model answers it, as mteb's ``AbsTaskRetrieval`` with candidates.

mteb embeds every query (with its instruction) in one ``query`` call and the candidates in one
``passage`` call, ranks each query's candidates by the model's similarity and scores trec-style
MAP@1000. A model's answer is ``{candidate_id: similarity}``, the model's score of every
candidate.
"""

from __future__ import annotations

from ml_backend.model_procedure import (
    Embeddings,
    ModelAnswers,
    ModelProcedure,
    SubsetJob,
    TextGroup,
)
from ml_backend.procedures import reranking as P


class RerankingModel(ModelProcedure):
    """Reranking's model procedure (similarity of query and candidates, MAP@1000)."""

    model_items_key = "candidates"
    model_needs_train_pool = False

    def model_encode_groups(self, job: SubsetJob) -> list[TextGroup]:
        queries = tuple(P.query_text(c) for c in job.contents)
        docs = tuple(
            P.document_text(cand)
            for n in range(len(job.contents))
            for cand in self.model_field(job, n, "candidates")
        )
        return [TextGroup(queries, "query"), TextGroup(docs, "passage")]

    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        cand_ids = [[str(c["id"]) for c in content["candidates"]] for content in job.contents]
        q_emb = embeddings([P.query_text(c) for c in job.contents], role="query")
        c_emb = [
            embeddings([P.document_text(cand) for cand in content["candidates"]], role="passage")
            for content in job.contents
        ]
        gold = None
        if job.gold is not None:
            gold = [{str(k): int(v) for k, v in g.items()} for g in job.gold]
        result = P.rerank(
            q_emb, c_emb, cand_ids, gold, query_ids=list(job.hume_ids), similarity=similarity
        )
        return ModelAnswers.from_result(
            result, [{k: float(v) for k, v in a.items()} for a in result.answers]
        )
