"""STS: how an embedding model answers it, as mteb's ``AbsTaskSTS``.

mteb embeds the first sentences in one call and the second in another; a model's answer is the
cosine similarity of the pair (the value mteb correlates with gold), the score Spearman's rho
against gold normalised by the study's score range.
"""

from __future__ import annotations

from typing import Any

from ml_backend.model_procedure import (
    Embeddings,
    ModelAnswers,
    ModelProcedure,
    SubsetJob,
    TextGroup,
)
from ml_backend.procedures import sts as P

#: The gold scale mteb's STS tasks use unless the study names another.
DEFAULT_SCORE_RANGE = (0.0, 5.0)


class STSModel(ModelProcedure):
    """STS's model procedure (cosine per pair, Spearman against gold)."""

    model_items_key = None
    model_needs_train_pool = False

    def model_job_settings(self, subset: Any) -> dict[str, Any]:
        """The gold scale (``score_range``) mteb's scores are normalised over."""
        score_range = subset.config.get("score_range")
        return {"score_range": tuple(score_range) if score_range else None}

    def model_encode_groups(self, job: SubsetJob) -> list[TextGroup]:
        n_pairs = range(len(job.contents))
        return [
            TextGroup(tuple(str(self.model_field(job, n, "sentence1")) for n in n_pairs)),
            TextGroup(tuple(str(self.model_field(job, n, "sentence2")) for n in n_pairs)),
        ]

    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        lo, hi = job.settings.get("score_range") or DEFAULT_SCORE_RANGE
        result = P.sts(
            embeddings([str(c["sentence1"]) for c in job.contents]),
            embeddings([str(c["sentence2"]) for c in job.contents]),
            None if job.gold is None else [float(g) for g in job.gold],
            min_score=lo,
            max_score=hi,
            similarity=similarity,
        )
        return ModelAnswers.from_result(result, [float(a) for a in result.answers])
