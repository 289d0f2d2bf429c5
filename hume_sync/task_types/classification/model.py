"""Classification: how an embedding model answers it, as mteb's ``AbsTaskClassification``.

mteb embeds the union of its experiments' undersampled train items (sorted by pool index) in one
call and the test items in another, fits logistic regression per experiment and averages the
scores. A per-item model answer is the majority label over the experiments (its vote share is
the item score), the same shape as an annotator's label.
"""

from __future__ import annotations

from typing import Any

from ml_backend.model_procedure import (
    Embeddings,
    ModelAnswers,
    PredictError,
    SubsetJob,
    TrainPoolProcedure,
)
from ml_backend.procedures import classification as P


class ClassificationModel(TrainPoolProcedure):
    """Classification's model procedure (logistic regression on a train pool, 10 experiments)."""

    def model_job_settings(self, subset: Any) -> dict[str, Any]:
        """The store's ``samples_per_label`` (the spec's, or mteb's default)."""
        return {"samples_per_label": subset.samples_per_label}

    def model_samples_per_label(self, job: SubsetJob) -> int:
        """Train items per label in each experiment (mteb's default when the study sets none)."""
        return job.settings.get("samples_per_label") or P.DEFAULT_SAMPLES_PER_LABEL

    def model_train_union(self, job: SubsetJob) -> list[int]:
        """Indices of the train pool mteb embeds: the union of the experiments' samples."""
        if not job.train_pool:
            raise PredictError(
                f"{job.key}: classification needs a train pool (the study has no train items)"
            )
        labels = [str(r["label"]) for r in job.train_pool]
        experiments = P.classification_train_indices(labels, self.model_samples_per_label(job))
        return sorted(set().union(*experiments))

    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        labels = [str(r["label"]) for r in job.train_pool]
        train_rows = self.model_train_embeddings(job, embeddings)
        test_emb = embeddings([str(c["text"]) for c in job.contents])
        result = P.classify(
            train_rows,
            labels,
            test_emb,
            None if job.gold is None else [str(g) for g in job.gold],
            samples_per_label=self.model_samples_per_label(job),
        )
        return ModelAnswers.from_result(
            result, result.answers, [float(s) for s in result.confidences]
        )
