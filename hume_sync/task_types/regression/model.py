"""Regression: how an embedding model answers it, as mteb's ``AbsTaskRegression``.

mteb embeds the union of its experiments' train samples (sorted by pool index) in one call and
the test texts in another, fits linear regression per experiment and averages the scores. A
per-item model answer is the mean prediction over the experiments, the shape of an annotator's
number.
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
from ml_backend.procedures import regression as P


def _train_values(job: SubsetJob) -> list[float]:
    """The train pool's gold numbers (stored as the labels' written form)."""
    try:
        return [float(r["label"]) for r in job.train_pool]
    except (TypeError, ValueError, KeyError):
        raise PredictError(f"{job.key}: a train item's label is not a number") from None


class RegressionModel(TrainPoolProcedure):
    """Regression's model procedure (linear regression on a train pool, 10 experiments)."""

    def model_job_settings(self, subset: Any) -> dict[str, Any]:
        """The stored ``train_samples`` (mteb's ``n_samples`` unless the spec set one)."""
        return {"train_samples": subset.config.get("train_samples") or P.DEFAULT_TRAIN_SAMPLES}

    def _n_samples(self, job: SubsetJob) -> int:
        return int(job.settings.get("train_samples") or P.DEFAULT_TRAIN_SAMPLES)

    def model_train_union(self, job: SubsetJob) -> list[int]:
        """Indices of the train pool mteb embeds: the union of the experiments' samples."""
        if not job.train_pool:
            raise PredictError(
                f"{job.key}: regression needs a train pool (the study has no train items)"
            )
        experiments = P.regression_train_indices(_train_values(job), self._n_samples(job))
        return sorted(set().union(*experiments))

    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        result = P.regress(
            self.model_train_embeddings(job, embeddings),
            _train_values(job),
            embeddings([str(c["text"]) for c in job.contents]),
            None if job.gold is None else [float(g) for g in job.gold],
            n_samples=self._n_samples(job),
        )
        return ModelAnswers.from_result(result, result.answers)
