"""Pair classification: the model concern, scored exactly as mteb 2.x scores ``PairClassification``.

The maths (the five pair scores, mteb's threshold searches and metrics) is
:mod:`ml_backend.procedures.pair_classification`; this mixin feeds it a job's texts in mteb's
order and shapes its result into answers (``tests/hume_sync/task_types/
test_pair_classification_model.py`` runs mteb's own task class on the same pairs and compares
every metric).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ml_backend.encoders import Encoder
from ml_backend.model_procedure import (
    Embeddings,
    ModelAnswers,
    ModelProcedure,
    SubsetJob,
    TextGroup,
)
from ml_backend.procedures.pair_classification import (
    DEFAULT_MAIN_SCORE,
    METRICS,
    SCORE_FUNCTIONS,
    PairClassificationResult,
    decision,
    gold_free_threshold,
    pair_classify,
    pair_texts,
    run_pair_classification,
)


@functools.cache
def mteb_main_score(task_name: str | None) -> str:
    """mteb's main score for a task (``max_ap`` for most, ``max_accuracy`` for e.g.
    LegalBenchPC), read from the installed mteb's metadata (offline); ``max_ap`` for a task
    mteb does not know (a local-file study) or without mteb."""
    if not task_name:
        return DEFAULT_MAIN_SCORE
    try:
        import mteb

        main = mteb.get_task(task_name).metadata.main_score
    except (ImportError, KeyError, ValueError):
        return DEFAULT_MAIN_SCORE
    return main if main in PairClassificationModel.model_score_names else DEFAULT_MAIN_SCORE


# --------------------------------------------------------------------------- the mixin


class PairClassificationModel(ModelProcedure):
    """Pair classification's model behaviour (the ``ModelProcedure`` protocol).

    A model's answer for a pair is its 1/0 decision: at mteb's best-accuracy cosine threshold
    when gold is given (the decisions ``cosine_accuracy`` counts), else at the median cosine
    (:func:`gold_free_threshold`); the pair's cosine is the answer's score.
    """

    #: mteb's main score for most pair-classification tasks (a task may name another one).
    model_main_score: str = DEFAULT_MAIN_SCORE
    #: Every score this procedure reports, in mteb's order.
    model_score_names: tuple[str, ...] = (
        *(f"{fn}_{m}" for fn, _, _ in SCORE_FUNCTIONS for m in METRICS),
        *(f"max_{m}" for m in METRICS),
    )
    #: A pair has no items answered one by one.
    model_items_key: str | None = None
    #: No train split: pair classification scores similarities directly.
    model_needs_train_pool: bool = False

    def model_texts(self, contents: Sequence[Mapping[str, Any]]) -> list[list[str]]:
        """The encode calls mteb makes, in order: all first texts, then all second texts."""
        return list(pair_texts(contents))

    def model_encode_groups(self, job: SubsetJob) -> list[TextGroup]:
        """The job's texts in mteb's two encode calls (no query/passage role)."""
        n_pairs = range(len(job.contents))
        return [
            TextGroup(tuple(str(self.model_field(job, n, "sentence1")) for n in n_pairs)),
            TextGroup(tuple(str(self.model_field(job, n, "sentence2")) for n in n_pairs)),
        ]

    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        """Decisions (answers), cosines (item scores) and, with gold, mteb's scores."""
        first, second = pair_texts(job.contents)
        result = pair_classify(
            embeddings(first),
            embeddings(second),
            job.gold,
            similarity=similarity,
            main_score=mteb_main_score(job.task_name),
        )
        decisions, rule = self.model_decisions(result)
        answers = ModelAnswers.from_result(result, decisions, item_scores=list(result.answers))
        return dataclasses.replace(answers, method=f"{result.method}; answers: 1/0 at {rule}")

    def model_decisions(self, result: PairClassificationResult) -> tuple[list[int], str]:
        """Each pair's 1/0 and the rule behind them (see the class docstring)."""
        if result.labels is not None:
            return list(result.labels), "mteb best-accuracy cosine threshold"
        cut = gold_free_threshold(result.answers)
        return [decision(a, cut) for a in result.answers], "median cosine (no gold)"

    def model_score(
        self,
        embeddings: Sequence[np.ndarray],
        gold: Sequence[Any] | None = None,
        *,
        similarity: str = "cosine",
        main_score: str | None = None,
    ) -> PairClassificationResult:
        """Answers and scores from the embeddings of :meth:`model_texts`' two calls."""
        if len(embeddings) != 2:
            raise ValueError(f"expected the embeddings of 2 encode calls, got {len(embeddings)}")
        return pair_classify(
            embeddings[0],
            embeddings[1],
            gold,
            similarity=similarity,
            main_score=main_score or self.model_main_score,
        )

    def model_run(
        self,
        encoder: Encoder,
        contents: Sequence[Mapping[str, Any]],
        gold: Sequence[Any] | None = None,
        *,
        task_name: str | None = None,
        main_score: str | None = None,
    ) -> PairClassificationResult:
        """Embed and score in one go (what a parity test or a one-off run needs); the main
        score is ``main_score``, else the task's own in mteb (:func:`mteb_main_score`)."""
        return run_pair_classification(
            encoder,
            contents,
            gold,
            task_name=task_name,
            main_score=main_score or mteb_main_score(task_name),
        )

    def model_decision(self, answer: float, threshold: float) -> int:
        """The 1/0 a cosine means at a threshold (see :func:`decision`)."""
        return decision(float(answer), float(threshold))
