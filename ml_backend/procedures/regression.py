"""Regression: mteb's ``AbsTaskRegression`` on ready embeddings.

mteb 2.x (``mteb/abstasks/regression.py``) runs ``n_experiments`` (10) experiments. Each fits
scikit-learn's ``LinearRegression`` on the embeddings of a train sample and predicts every test
text; the metrics of each experiment (:func:`scoring.aggregation.regression.regression_metrics`)
are averaged, the main score Kendall's τ. The train sample (``_undersample_data``) is the whole
train split when it holds at most ``n_samples`` (2048) texts, so every experiment is then the
same fit; a larger split is subsampled to ``n_samples`` texts stratified by value deciles
(``stratified_subsampling``: ``pandas.qcut`` into 10 bins, duplicate edges dropped, then
``datasets``' stratified train/test split with seed ``seed + experiment``), whose indices
:func:`regression_train_indices` reproduces with the very helper ``datasets`` calls. mteb
embeds the union of the experiments' samples (sorted) in one call and the test texts in
another.

A per-item answer is the mean prediction over the experiments (one number per text, the shape
of an annotator's answer); with one train sample it is that fit's prediction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ml_backend.procedures.common import SEED, ProcedureResult, average_experiments, train_rows
from scoring.aggregation.regression import MAIN_SCORE, regression_metrics

N_EXPERIMENTS = 10  # AbsTaskRegression.n_experiments
DEFAULT_TRAIN_SAMPLES = 2048  # AbsTaskRegression.n_samples
STRATIFY_BINS = 10  # AbsTaskRegression.stratified_subsampling's n_bins

__all__ = [
    "DEFAULT_TRAIN_SAMPLES",
    "N_EXPERIMENTS",
    "STRATIFY_BINS",
    "RegressionResult",
    "regress",
    "regression_train_indices",
]


@dataclass(frozen=True)
class RegressionResult(ProcedureResult):
    """``answers``: the mean predicted value per test item over the experiments.

    ``scores`` holds mteb's experiment means (``mse``, ``mae``, ``r2``, ``kendalltau``,
    ``rmse``) and ``scores_per_experiment``.

    Attributes:
        predictions_per_experiment: per experiment, the value predicted for each test item.
        train_indices: per experiment, the train-pool rows it was fitted on, in mteb's order.
    """

    predictions_per_experiment: list[list[float]] = field(default_factory=list)
    train_indices: list[list[int]] = field(default_factory=list)


def _stratified_sample(values: Sequence[float], n_samples: int, seed: int) -> list[int]:
    """The rows ``stratified_subsampling`` keeps of a split larger than ``n_samples``."""
    import pandas as pd
    from datasets.utils.stratify import (  # type: ignore[import-untyped]
        stratified_shuffle_split_generate_indices,
    )

    bins = pd.qcut(list(values), q=STRATIFY_BINS, labels=False, duplicates="drop")
    # datasets' ``train_test_split(test_size=n_samples, seed=seed, stratify_by_column=...)``:
    # the test side is the sample, in the order the helper draws it.
    _, test = next(
        stratified_shuffle_split_generate_indices(
            np.asarray(bins, dtype=np.int64),
            len(values) - n_samples,
            n_samples,
            rng=np.random.default_rng(seed),
        )
    )
    return [int(i) for i in test]


def regression_train_indices(
    train_values: Sequence[float],
    n_samples: int = DEFAULT_TRAIN_SAMPLES,
    *,
    n_experiments: int = N_EXPERIMENTS,
    seed: int = SEED,
) -> list[list[int]]:
    """Train-pool indices of each experiment, as ``AbsTaskRegression._undersample_data``.

    Exposed so that a caller embeds only the union of these texts, as mteb does.

    Args:
        train_values: the gold value of each train-pool item.
        n_samples: the most items an experiment fits on (mteb's ``n_samples``).
        n_experiments: how many experiments.
        seed: mteb's task seed; experiment i subsamples with ``seed + i``.

    Returns:
        Per experiment, the selected pool indices in mteb's order.

    Raises:
        ValueError: when ``n_samples`` is below 1 or the pool is empty.
    """
    if n_samples < 1:
        raise ValueError("n_samples must be at least 1")
    if not train_values:
        raise ValueError("the train pool is empty")
    if n_samples >= len(train_values):
        return [list(range(len(train_values))) for _ in range(n_experiments)]
    return [_stratified_sample(train_values, n_samples, seed + i) for i in range(n_experiments)]


def regress(
    train_embeddings: np.ndarray | Mapping[int, np.ndarray],
    train_values: Sequence[float],
    test_embeddings: np.ndarray,
    test_values: Sequence[float] | None = None,
    *,
    n_samples: int = DEFAULT_TRAIN_SAMPLES,
    n_experiments: int = N_EXPERIMENTS,
    seed: int = SEED,
) -> RegressionResult:
    """Predict values as mteb does: per experiment, linear regression on a train sample.

    Mirrors ``AbsTaskClassification._evaluate_subset`` as ``AbsTaskRegression`` runs it:
    ``LinearRegression()`` fitted on the rows of :func:`regression_train_indices` (in that
    order) with their gold values, predicting every test item. Pass embeddings in the encoder's
    dtype (float32): the fit depends on it.

    Args:
        train_embeddings: an array over the whole train pool, or a mapping holding at least the
            selected rows.
        train_values: the gold value of each train-pool item.
        test_embeddings: one row per test item.
        test_values: the gold value per test item; None gives answers without scores.
        n_samples: the most train items an experiment fits on.
        n_experiments: how many experiments.
        seed: mteb's task seed.

    Returns:
        The mean prediction per test item, and mteb's scores when gold is given.

    Raises:
        ValueError: when there is no test or train item, or the test values differ in length.
    """
    from sklearn.linear_model import LinearRegression

    x_test = np.asarray(test_embeddings)
    if len(x_test) == 0 or len(train_values) == 0:
        raise ValueError("regression needs at least one test item and one train item")
    if test_values is not None and len(test_values) != len(x_test):
        raise ValueError("test_values and test_embeddings differ in length")
    experiments = regression_train_indices(
        train_values, n_samples, n_experiments=n_experiments, seed=seed
    )
    predictions: list[list[float]] = []
    per_experiment: list[dict[str, float]] = []
    for selected in experiments:
        model = LinearRegression()
        model.fit(
            train_rows(train_embeddings, selected), [float(train_values[i]) for i in selected]
        )
        y_pred = model.predict(x_test)
        predictions.append([float(v) for v in y_pred])
        if test_values is not None:
            per_experiment.append(regression_metrics([float(v) for v in test_values], y_pred))
    answers = [float(np.mean([p[k] for p in predictions])) for k in range(len(x_test))]
    scores = average_experiments(per_experiment) if test_values is not None else None
    return RegressionResult(
        answers=answers,
        scores=scores,
        main_score_name=MAIN_SCORE,
        method=f"mteb:linear_regression x{n_experiments}"
        f"(n_samples={n_samples},seed={seed})+mean_prediction",
        predictions_per_experiment=predictions,
        train_indices=experiments,
    )
