"""Multilabel classification: mteb's ``AbsTaskMultilabelClassification`` on ready embeddings.

mteb draws ``n_experiments`` (10) train samples from the train pool with the task's own
``np.random.default_rng(seed)`` (seed 42, drawn on across experiments): each shuffles the pool's
positions and keeps an item while any of its labels has fewer than ``samples_per_label`` (8)
items kept (an item with no label is never kept). It embeds the union of the samples in one
encode call (in ``list(set(...))`` order) and the test items in another, binarizes labels with a
``MultiLabelBinarizer`` fitted on the test items' gold, and per experiment fits
``KNeighborsClassifier(n_neighbors=5)`` on the sample (rows in the sample's order) and predicts
every test item's set. The scores (exact-match accuracy, macro F1, LRAP, Hamming) are the
experiments' means; they come from :mod:`scoring.aggregation.multilabel_classification`, the
calls mteb makes, so a person's sets are scored by the same code.

A per-item answer, the shape an annotator gives, is the per-label majority over the experiments
(a label predicted by more than half of them), as several annotators' sets are voted.
"""

from __future__ import annotations

import itertools
import warnings
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ml_backend.procedures.common import SEED, ProcedureResult
from scoring.aggregation.multilabel_classification import (
    as_label_set,
    label_vote,
    multilabel_metrics,
)

N_EXPERIMENTS = 10  # AbsTaskClassification.n_experiments
DEFAULT_SAMPLES_PER_LABEL = 8  # AbsTaskClassification.samples_per_label
N_NEIGHBORS = 5  # AbsTaskMultilabelClassification.evaluator_model
METRICS = ("accuracy", "lrap", "f1", "hamming")

__all__ = [
    "DEFAULT_SAMPLES_PER_LABEL",
    "METRICS",
    "N_EXPERIMENTS",
    "N_NEIGHBORS",
    "MultilabelResult",
    "classify_multilabel",
    "multilabel_train_indices",
    "train_union",
]


@dataclass(frozen=True)
class MultilabelResult(ProcedureResult):
    """``answers``: per test item, the labels more than half of the experiments predicted.

    ``scores`` holds mteb's experiment means and ``scores_per_experiment``.

    Attributes:
        confidences: per test item, the share of experiments whose predicted set is the answer.
        predictions_per_experiment: per experiment, the predicted set of each test item.
        train_indices: per experiment, the train-pool rows it was fitted on, in order.
        columns: the binarizer's labels (gold's, sorted).
    """

    confidences: list[float] = field(default_factory=list)
    predictions_per_experiment: list[list[list[str]]] = field(default_factory=list)
    train_indices: list[list[int]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)


def multilabel_train_indices(
    train_labels: Sequence[Sequence[Any]],
    samples_per_label: int,
    *,
    n_experiments: int = N_EXPERIMENTS,
    seed: int = SEED,
) -> list[list[int]]:
    """Train-pool rows of each experiment, as ``_undersample_data_indices`` draws them.

    One ``np.random.default_rng(seed)`` (the task's ``np_rng``, fresh as a task object is made)
    shuffles a new ``list(np.arange(n))`` per experiment; an item is kept while any of its labels
    has fewer than ``samples_per_label`` kept items, and then counts for every label it has.

    Args:
        train_labels: the label set of each train-pool item.
        samples_per_label: the per-label target.
        n_experiments: how many samples.
        seed: the generator's seed.

    Returns:
        Per experiment, the kept rows in their shuffled order.

    Raises:
        ValueError: when ``samples_per_label`` is below 1.
    """
    if samples_per_label < 1:
        raise ValueError("samples_per_label must be at least 1")
    rng = np.random.default_rng(seed)
    out: list[list[int]] = []
    for _ in range(n_experiments):
        idxs = list(np.arange(len(train_labels)))
        rng.shuffle(idxs)
        counter: dict[Any, int] = defaultdict(int)
        kept: list[int] = []
        for i in idxs:
            labels = train_labels[int(i)]
            if any(counter[lab] < samples_per_label for lab in labels):
                kept.append(int(i))
                for lab in labels:
                    counter[lab] += 1
        out.append(kept)
    return out


def train_union(experiments: Sequence[Sequence[int]]) -> list[int]:
    """The rows mteb embeds, in its order: ``list(set(chain(*experiments)))``.

    Args:
        experiments: :func:`multilabel_train_indices`.

    Returns:
        The distinct rows, in the order mteb passes them to the encoder.
    """
    return list(set(itertools.chain.from_iterable(experiments)))


def _binarize(sets: Sequence[tuple[str, ...]], columns: Sequence[str]) -> np.ndarray:
    """``MultiLabelBinarizer.transform``: a label outside ``columns`` is dropped."""
    index = {lab: j for j, lab in enumerate(columns)}
    out = np.zeros((len(sets), len(columns)), dtype=np.int64)
    for i, s in enumerate(sets):
        for lab in s:
            if lab in index:
                out[i, index[lab]] = 1
    return out


def classify_multilabel(
    train_embeddings: Mapping[int, np.ndarray],
    train_labels: Sequence[Sequence[Any]],
    test_embeddings: np.ndarray,
    test_labels: Sequence[Sequence[Any]] | None = None,
    *,
    samples_per_label: int,
    n_experiments: int = N_EXPERIMENTS,
    seed: int = SEED,
) -> MultilabelResult:
    """Answer and score as mteb's multilabel task class, on embeddings of its encode calls.

    Args:
        train_embeddings: train-pool row → embedding, for at least :func:`train_union`'s rows.
        train_labels: the label set of each train-pool item.
        test_embeddings: one row per test item, in the source's order.
        test_labels: the gold set of each test item; None gives answers without scores (the
            binarizer is then fitted on the train labels).
        samples_per_label: the per-label target of the undersampling.
        n_experiments: how many experiments.
        seed: the undersampling generator's seed.

    Returns:
        The per-label majority set per test item and, with gold, mteb's scores.

    Raises:
        ValueError: no test item, fewer train rows than neighbours in an experiment, or test
            labels of another length.
    """
    from sklearn.neighbors import KNeighborsClassifier

    x_test = np.asarray(test_embeddings)
    if len(x_test) == 0:
        raise ValueError("multilabel classification needs at least one test item")
    if test_labels is not None and len(test_labels) != len(x_test):
        raise ValueError("test_labels and test_embeddings differ in length")
    train_sets = [as_label_set(s, "train label") for s in train_labels]
    gold = None if test_labels is None else [as_label_set(s, "gold") for s in test_labels]
    columns = sorted({lab for s in (gold if gold is not None else train_sets) for lab in s})
    experiments = multilabel_train_indices(
        train_sets, samples_per_label, n_experiments=n_experiments, seed=seed
    )
    predictions: list[list[tuple[str, ...]]] = []
    per_experiment: list[dict[str, float]] = []
    for rows in experiments:
        if len(rows) < N_NEIGHBORS:
            raise ValueError(
                f"an experiment keeps {len(rows)} train item(s); kNN needs {N_NEIGHBORS}"
            )
        x_train = np.stack([np.asarray(train_embeddings[i]) for i in rows])
        y_train = _binarize([train_sets[i] for i in rows], columns)
        knn = KNeighborsClassifier(n_neighbors=N_NEIGHBORS)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            knn.fit(x_train, y_train)
            y_pred = np.asarray(knn.predict(x_test)).reshape(len(x_test), len(columns))
        sets = [tuple(columns[j] for j in np.flatnonzero(row)) for row in y_pred]
        predictions.append(sets)
        if gold is not None:
            per_experiment.append(multilabel_metrics(gold, sets, columns))
    answers: list[list[str]] = []
    confidences: list[float] = []
    for item in range(len(x_test)):
        runs = [p[item] for p in predictions]
        voted, _ = label_vote(runs)
        answers.append(list(voted))
        confidences.append(sum(r == voted for r in runs) / len(runs))
    scores: dict[str, Any] | None = None
    if gold is not None:
        scores = {k: float(np.mean([s[k] for s in per_experiment])) for k in METRICS}
        scores["scores_per_experiment"] = per_experiment
    return MultilabelResult(
        answers=answers,
        scores=scores,
        main_score_name="accuracy",
        method=f"mteb:knn(k={N_NEIGHBORS})x{n_experiments}"
        f"(samples_per_label={samples_per_label},seed={seed})+per_label_majority",
        confidences=confidences,
        predictions_per_experiment=[[list(s) for s in p] for p in predictions],
        train_indices=experiments,
        columns=columns,
    )
