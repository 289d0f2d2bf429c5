"""Classification: mteb's ``AbsTaskClassification`` on ready embeddings.

Logistic regression per experiment on an undersampled train pool, the scores averaged over the
experiments; a per-item answer is the majority label over the experiments.
"""

from __future__ import annotations

import warnings
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ml_backend.procedures.common import (
    SEED,
    Label,
    ProcedureResult,
    average_experiments,
    train_rows,
)

N_EXPERIMENTS = 10  # AbsTaskClassification.n_experiments
DEFAULT_SAMPLES_PER_LABEL = 8  # AbsTaskClassification.samples_per_label
LOGREG_MAX_ITER = 100  # AbsTaskClassification.evaluator_model = LogisticRegression(max_iter=100)

__all__ = [
    "DEFAULT_SAMPLES_PER_LABEL",
    "LOGREG_MAX_ITER",
    "N_EXPERIMENTS",
    "ClassificationResult",
    "classification_metrics",
    "classification_train_indices",
    "classify",
    "majority_vote",
]


@dataclass(frozen=True)
class ClassificationResult(ProcedureResult):
    """``answers``: majority label per test item over the experiments.

    ``scores`` holds mteb's experiment means (accuracy, f1, ...) and ``scores_per_experiment``.

    Attributes:
        confidences: per test item, the majority label's share of the experiments' votes.
        votes: per test item, the votes per label.
        predictions_per_experiment: per experiment, the label predicted for each test item.
        train_indices: per experiment, the train-pool rows it was fitted on.
    """

    confidences: list[float] = field(default_factory=list)
    votes: list[dict[Any, int]] = field(default_factory=list)
    predictions_per_experiment: list[list[Any]] = field(default_factory=list)
    train_indices: list[list[int]] = field(default_factory=list)


def classification_train_indices(
    train_labels: Sequence[Label],
    samples_per_label: int,
    *,
    n_experiments: int = N_EXPERIMENTS,
    seed: int = SEED,
) -> list[list[int]]:
    """Train-pool indices of each experiment, as ``AbsTaskClassification._undersample_data``.

    mteb re-creates ``np.random.RandomState(seed)`` every experiment but shuffles the *previous*
    experiment's order again, so experiment i sees the pool permuted i+1 times; then it keeps the
    first ``samples_per_label`` items of each label in that order. Exposed so a caller can embed
    only the union of these texts, as mteb does.

    Args:
        train_labels: the label of each train-pool item.
        samples_per_label: how many items of each label an experiment keeps (at most).
        n_experiments: how many experiments.
        seed: the ``RandomState`` seed, re-created every experiment.

    Returns:
        Per experiment, the selected pool indices in their shuffled order.

    Raises:
        ValueError: when ``samples_per_label`` is below 1.
    """
    if samples_per_label < 1:
        raise ValueError("samples_per_label must be at least 1")
    idxs = list(range(len(train_labels)))
    experiments: list[list[int]] = []
    for _ in range(n_experiments):
        rng_state = np.random.RandomState(seed)
        rng_state.shuffle(idxs)
        counter: dict[Label, int] = defaultdict(int)
        selected: list[int] = []
        for i in idxs:
            label = train_labels[i]
            if counter[label] < samples_per_label:
                selected.append(i)
                counter[label] += 1
        experiments.append(selected)
    return experiments


def _label_sort_key(label: Any) -> tuple[int, Any]:
    """Order for tie-breaks: numbers numerically, everything else alphabetically by its text."""
    if isinstance(label, int | float | np.integer | np.floating) and not isinstance(label, bool):
        return (0, float(label))
    return (1, str(label))


def majority_vote(votes: Sequence[Label]) -> tuple[Label, float, dict[Label, int]]:
    """Pick the most frequent label (ties → numerically, else alphabetically, first).

    Args:
        votes: one label per vote (at least one).

    Returns:
        The winner, its share of the votes, and the count per label.
    """
    counts = Counter(votes)
    top = max(counts.values())
    winner = min((label for label, n in counts.items() if n == top), key=_label_sort_key)
    return winner, top / len(votes), dict(counts)


def classification_metrics(y_true: Sequence[Label], y_pred: Sequence[Label]) -> dict[str, Any]:
    """Score one experiment, as ``AbsTaskClassification._calculate_scores``.

    Args:
        y_true: the gold label per test item.
        y_pred: the predicted label per test item.

    Returns:
        Accuracy, macro and weighted F1/precision/recall, and AP (None unless the labels are
        two numbers) by mteb's names.
    """
    from sklearn.metrics import (
        accuracy_score,
        average_precision_score,
        f1_score,
        precision_score,
        recall_score,
    )

    y_true_l, y_pred_l = list(y_true), list(y_pred)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined precision → 0, as mteb (zero_division="warn")
        scores: dict[str, Any] = {
            "accuracy": accuracy_score(y_true_l, y_pred_l),
            "f1": f1_score(y_true_l, y_pred_l, average="macro"),
            "f1_weighted": f1_score(y_true_l, y_pred_l, average="weighted"),
            "precision": precision_score(y_true_l, y_pred_l, average="macro"),
            "precision_weighted": precision_score(y_true_l, y_pred_l, average="weighted"),
            "recall": recall_score(y_true_l, y_pred_l, average="macro"),
            "recall_weighted": recall_score(y_true_l, y_pred_l, average="weighted"),
            "ap": None,
            "ap_weighted": None,
        }
        if len(np.unique(np.asarray(y_true_l))) == 2:
            try:  # mteb scores the hard predictions; only numeric labels allow it
                scores["ap"] = average_precision_score(y_true_l, y_pred_l, average="macro")
                scores["ap_weighted"] = average_precision_score(
                    y_true_l, y_pred_l, average="weighted"
                )
            except (TypeError, ValueError):
                pass
    return {k: (None if v is None else float(v)) for k, v in scores.items()}


def classify(
    train_embeddings: np.ndarray | Mapping[int, np.ndarray],
    train_labels: Sequence[Label],
    test_embeddings: np.ndarray,
    test_labels: Sequence[Label] | None = None,
    *,
    samples_per_label: int,
    n_experiments: int = N_EXPERIMENTS,
    seed: int = SEED,
) -> ClassificationResult:
    """Classify as mteb does: per experiment, logistic regression on an undersampled train set.

    Mirrors ``AbsTaskClassification._evaluate_subset`` + ``SklearnEvaluator``:
    ``LogisticRegression(max_iter=100, random_state=seed)`` fitted on the rows of
    :func:`classification_train_indices` (in that order), predicting every test item.
    Pass embeddings in the encoder's dtype (float32): the fit depends on it.

    Args:
        train_embeddings: an array over the whole train pool, or a mapping holding at least the
            selected rows.
        train_labels: the label of each train-pool item.
        test_embeddings: one row per test item.
        test_labels: the gold label per test item; None gives answers without scores.
        samples_per_label: how many train items of each label an experiment keeps.
        n_experiments: how many experiments.
        seed: the undersampling and logistic-regression seed.

    Returns:
        The majority label per test item with its votes, and mteb's scores when gold is given.

    Raises:
        ValueError: when there is no test or train item, the test labels differ in length, or
            ``samples_per_label`` is below 1.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    experiments = classification_train_indices(
        train_labels, samples_per_label, n_experiments=n_experiments, seed=seed
    )
    x_test = np.asarray(test_embeddings)
    if len(x_test) == 0 or len(train_labels) == 0:
        raise ValueError("classification needs at least one test item and one train item")
    if test_labels is not None and len(test_labels) != len(x_test):
        raise ValueError("test_labels and test_embeddings differ in length")
    predictions: list[list[Any]] = []
    per_experiment: list[dict[str, Any]] = []
    for selected in experiments:
        model = LogisticRegression(max_iter=LOGREG_MAX_ITER, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(train_rows(train_embeddings, selected), [train_labels[i] for i in selected])
        y_pred = model.predict(x_test)
        predictions.append(y_pred.tolist())
        if test_labels is not None:
            per_experiment.append(classification_metrics(test_labels, y_pred))
    answers, confidences, votes = [], [], []
    for item in range(len(x_test)):
        label, share, counts = majority_vote([p[item] for p in predictions])
        answers.append(label)
        confidences.append(share)
        votes.append(counts)
    scores = average_experiments(per_experiment) if test_labels is not None else None
    return ClassificationResult(
        answers=answers,
        scores=scores,
        main_score_name="accuracy",
        method=f"mteb:logreg(max_iter={LOGREG_MAX_ITER})x{n_experiments}"
        f"(samples_per_label={samples_per_label},seed={seed})+majority_vote",
        confidences=confidences,
        votes=votes,
        predictions_per_experiment=predictions,
        train_indices=experiments,
    )
