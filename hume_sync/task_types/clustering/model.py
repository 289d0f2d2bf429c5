"""Clustering: how an embedding model answers it, as mteb's ``AbsTaskClusteringLegacy``.

Each instance is one set of items; mteb embeds a set's texts in one call and clusters them with
MiniBatchKMeans (K = the number of gold labels) in their given order. A model's answer is
``{item_id: "group_<k>"}`` (cluster k-1), the same shape as an annotator's partition; the subset
score is the mean V-measure over its sets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ml_backend.model_procedure import (
    Embeddings,
    ModelAnswers,
    ModelProcedure,
    PredictError,
    SubsetJob,
    TextGroup,
)
from ml_backend.procedures import clustering as P


class ClusteringModel(ModelProcedure):
    """Clustering's model procedure (MiniBatchKMeans per set, V-measure)."""

    model_items_key = "items"
    model_needs_train_pool = False

    def model_job_settings(self, subset: Any) -> dict[str, Any]:
        """K of the set drawn (``n_groups``): the number of clusters when no gold is given."""
        return {"n_groups": subset.config.get("n_groups")}

    def model_encode_groups(self, job: SubsetJob) -> list[TextGroup]:
        return [
            TextGroup(tuple(str(it["text"]) for it in self.model_field(job, n, "items")))
            for n in range(len(job.contents))
        ]

    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        answers: list[Any] = []
        v_measures: list[float] = []
        per_set: list[dict[str, Any] | None] = []
        method = ""
        for n, content in enumerate(job.contents):
            set_items = content["items"]
            gold_map = None if job.gold is None else job.gold[n]
            gold_labels = None if gold_map is None else [gold_map[it["id"]] for it in set_items]
            k = len(set(gold_labels)) if gold_labels is not None else job.settings.get("n_groups")
            if k is None:
                raise PredictError(f"{job.key}: clustering needs n_groups or gold")
            res = P.cluster(
                embeddings([str(it["text"]) for it in set_items]), gold_labels, n_clusters=k
            )
            answers.append(
                {
                    str(it["id"]): f"group_{c + 1}"
                    for it, c in zip(set_items, res.answers, strict=True)
                }
            )
            per_set.append(res.to_dict()["scores"])
            if res.main_score is not None:
                v_measures.append(float(res.main_score))
            method = res.method
        main = float(np.mean(v_measures)) if v_measures and job.gold is not None else None
        scores: dict[str, Any] | None = None
        if job.gold is not None:
            scores = dict(per_set[0] or {}) if len(per_set) == 1 else {"v_measure": main}
            scores["v_measures"] = v_measures
        return ModelAnswers(
            answers=answers,
            item_scores=[None] * len(answers),
            main_score_name="v_measure",
            main_score=main,
            scores=scores,
            method=method,
        )
