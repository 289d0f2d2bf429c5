"""Multilabel classification: how an embedding model answers it, as mteb's
``AbsTaskMultilabelClassification``.

mteb embeds the union of its experiments' train samples in one encode call (in its own
``list(set(...))`` order) and the test items in another, then fits kNN per experiment; the
procedure (:mod:`ml_backend.procedures.multilabel_classification`) does the rest. The train pool
is the store's, in the source's order (a train row's ``label`` holds its label set, see
:mod:`.records`); the test items are the subset's instances in the source's order, as
``predict`` hands them over.
"""

from __future__ import annotations

from typing import Any

from hume_sync.task_types.multilabel_classification.records import decode_labels
from ml_backend.model_procedure import (
    Embeddings,
    ModelAnswers,
    PredictError,
    SubsetJob,
    TrainPoolProcedure,
)
from ml_backend.procedures import multilabel_classification as P


class MultilabelModel(TrainPoolProcedure):
    """The model procedure: kNN (k = 5) on 10 seeded train samples, as mteb."""

    def model_job_settings(self, subset: Any) -> dict[str, Any]:
        """The store's ``samples_per_label`` (the spec's, or mteb's default)."""
        return {"samples_per_label": subset.samples_per_label}

    def _samples_per_label(self, job: SubsetJob) -> int:
        return job.settings.get("samples_per_label") or P.DEFAULT_SAMPLES_PER_LABEL

    def _train_labels(self, job: SubsetJob) -> list[tuple[str, ...]]:
        if not job.train_pool:
            raise PredictError(
                f"{job.key}: multilabel classification needs a train pool (the study has none)"
            )
        try:
            return [decode_labels(str(r["label"])) for r in job.train_pool]
        except ValueError as exc:
            raise PredictError(f"{job.key}: a train item's labels are unreadable: {exc}") from None

    def model_train_union(self, job: SubsetJob) -> list[int]:
        """The union of the experiments' samples, in mteb's ``list(set(...))`` order."""
        experiments = P.multilabel_train_indices(
            self._train_labels(job), self._samples_per_label(job)
        )
        return P.train_union(experiments)

    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        rows = self.model_train_embeddings(job, embeddings)
        test_emb = embeddings([str(c["text"]) for c in job.contents])
        gold = None if job.gold is None else [list(g) for g in job.gold]
        try:
            result = P.classify_multilabel(
                rows,
                self._train_labels(job),
                test_emb,
                gold,
                samples_per_label=self._samples_per_label(job),
            )
        except ValueError as exc:
            raise PredictError(f"{job.key}: {exc}") from None
        return ModelAnswers.from_result(result, result.answers, list(result.confidences))
