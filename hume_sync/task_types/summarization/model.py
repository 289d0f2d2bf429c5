"""Summarization: how an embedding model answers it, as mteb's ``AbsTaskSummarization``.

mteb embeds every reference summary of the split in one call and every machine summary in
another, in the source's order (texts, then each text's summaries). The model view gives the
instances and their summaries in that order, under source ids, so the encode calls are mteb's
and mteb's own task class on the same texts gives the same numbers (main score
``cosine_spearman``). A summary's answer is its best cosine to the text's references, the value
mteb correlates with the experts' scores and the one a person's rating stands beside.
"""

from __future__ import annotations

from typing import Any

from ml_backend.model_procedure import (
    Embeddings,
    ModelAnswers,
    ModelProcedure,
    PredictError,
    SubsetJob,
    TextGroup,
)
from ml_backend.procedures import summarization as P


def _references(job: SubsetJob, n: int, value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        raise PredictError(f"{job.key}: instance {job.hume_ids[n]!r} has no reference summary")
    return [str(r) for r in value]


class SummarizationModel(ModelProcedure):
    """Summarization's model procedure (best cosine to the references, per-text Spearman)."""

    model_items_key = "candidates"
    model_needs_train_pool = False

    def model_encode_groups(self, job: SubsetJob) -> list[TextGroup]:
        n_texts = range(len(job.contents))
        refs = [_references(job, n, self.model_field(job, n, "references")) for n in n_texts]
        summaries = [self.model_field(job, n, "candidates") for n in n_texts]
        return [
            TextGroup(tuple(r for per_text in refs for r in per_text)),
            TextGroup(tuple(str(s["text"]) for per_text in summaries for s in per_text)),
        ]

    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        ids = [[str(s["id"]) for s in c["candidates"]] for c in job.contents]
        gold = None
        if job.gold is not None:
            gold = []
            for n, (g, sids) in enumerate(zip(job.gold, ids, strict=True)):
                if not isinstance(g, dict) or set(map(str, g)) != set(sids):
                    raise PredictError(
                        f"{job.key}: gold of {job.hume_ids[n]!r} does not score every summary"
                    )
                gold.append([float(g[s]) for s in sids])
        result = P.summarize(
            [embeddings(_references(job, n, c["references"])) for n, c in enumerate(job.contents)],
            [embeddings([str(s["text"]) for s in c["candidates"]]) for c in job.contents],
            gold,
            similarity=similarity,
        )
        answers = [
            dict(zip(sids, sims, strict=True))
            for sids, sims in zip(ids, result.answers, strict=True)
        ]
        return ModelAnswers.from_result(result, answers)
