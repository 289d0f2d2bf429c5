"""Regression: mteb's metrics of predicted numbers, and the human score built on them.

mteb's ``AbsTaskRegression._calculate_scores`` scores a model's predicted value per text against
gold by scikit-learn's mean absolute and squared errors and R², scipy's Kendall τ (τ-b, the
default variant of ``scipy.stats.kendalltau``) and the root of the squared error; its main score
is Kendall's τ. :func:`regression_metrics` makes exactly those calls, so the procedure
(``ml_backend/procedures/regression.py``) scores a model with it and people are scored by the
same code.

Several annotators become one human estimate per text as HUME aggregates ratings (the STS type
does the same): the mean of the values they gave, then mteb's metrics of those means against
gold. The mean is the natural pooled estimate of a number (it is what a panel's prediction
is), and τ of the means is comparable with τ of a model's predictions, which are one number per
text too. Each annotator's own τ is kept in ``per_rater``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scoring import kernels
from scoring.aggregation.common import Answers, collect
from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.records import Score

__all__ = ["MAIN_SCORE", "human_regression", "kendall_of_pairs", "regression_metrics"]

#: mteb's main score of a Regression task.
MAIN_SCORE = "kendalltau"


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidInputError(f"{where}: expected a number, got {value!r}")
    out = float(value)
    if not math.isfinite(out):
        raise InvalidInputError(f"{where}: not a finite number")
    return out


def regression_metrics(gold: Sequence[float], predicted: Sequence[float]) -> dict[str, float]:
    """Score predicted values against gold by mteb's Regression metrics.

    The same library calls as ``AbsTaskRegression._calculate_scores`` (scikit-learn's
    ``mean_squared_error``, ``mean_absolute_error``, ``r2_score``; scipy's ``kendalltau``), so
    a hume number is mteb's to the bit.

    Args:
        gold: the gold value of each item.
        predicted: the predicted value of each item, aligned with ``gold``; a float array
            is scored in its own dtype (mteb passes ``LinearRegression``'s predictions as
            they come, float32 on float32 embeddings).

    Returns:
        ``mse``, ``mae``, ``r2``, ``kendalltau`` and ``rmse`` (mteb's keys and order); τ is NaN
        where either side is constant, as scipy gives it.

    Raises:
        InvalidInputError: the two differ in length, hold fewer than two items, or a value is
            not a finite number.
    """
    from scipy.stats import kendalltau
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

    if len(gold) != len(predicted):
        raise InvalidInputError(f"gold has {len(gold)} values, predictions {len(predicted)}")
    if len(gold) < 2:
        raise InvalidInputError(f"needs at least two items, got {len(gold)}")
    y_true = [_number(v, f"gold[{n}]") for n, v in enumerate(gold)]
    y_pred: Any = [_number(v, f"predicted[{n}]") for n, v in enumerate(predicted)]
    if isinstance(predicted, np.ndarray) and predicted.dtype.kind == "f":
        # scikit-learn computes R² and the errors in the predictions' float dtype: a model's
        # float32 predictions are scored as float32, as mteb scores them
        y_pred = predicted
    mse = mean_squared_error(y_true, y_pred)
    return {
        "mse": float(mse),
        "mae": float(mean_absolute_error(y_true, y_pred)),
        "r2": float(r2_score(y_true, y_pred)),
        "kendalltau": float(kendalltau(y_true, y_pred).statistic),
        "rmse": float(np.sqrt(mse)),
    }


def kendall_of_pairs(pairs: NDArray[Any]) -> float:
    """Kendall's τ-b of (gold, estimate) records, shape (n, 2): the bootstrap's statistic.

    A resample keeps each item's pair whole, so the statistic is τ of its two columns
    (:func:`scoring.kernels.kendall_tau_b`, scipy's τ-b from exact pair counts; NaN on a
    constant resample, which the bootstrap drops and counts).

    Args:
        pairs: one (gold, estimate) row per item.

    Returns:
        τ-b of the two columns.
    """
    x = np.asarray(pairs, dtype=float).reshape(-1, 2)
    return kernels.kendall_tau_b(x[:, 0], x[:, 1])


def human_regression(gold: Mapping[Hashable, float], answers: Answers) -> Score:
    """The mean value per text across annotators, then mteb's Kendall τ against gold.

    ``details`` holds mteb's other numbers of the means (``mae``, ``mse``, ``rmse``, ``r2``),
    the means themselves (``mean_values``) and each annotator's own metrics. An annotator whose
    own τ is undefined (constant answers, a single item) is left out of ``per_rater`` and named
    in ``details["degenerate_raters"]``; their answers still count in the means.

    Args:
        gold: ``{item: gold value}``.
        answers: ``{annotator: {item: value}}``; ``None`` is no answer.

    Returns:
        Kendall's τ-b of the mean values against gold.

    Raises:
        InvalidInputError: empty or malformed gold or answers, an item not in gold, or a value
            that is not a finite number (the annotator named).
        DegenerateInputError: fewer than two items answered, or τ undefined (constant gold or
            constant means).
    """
    col = collect(gold, answers)
    values = {
        rater: {item: _number(v, f"answers[{rater!r}][{item!r}]") for item, v in given.items()}
        for rater, given in col.by_rater.items()
    }
    for item in col.items:
        _number(gold[item], f"gold[{item!r}]")
    per_rater: dict[str, float] = {}
    per_rater_metrics: dict[str, dict[str, float]] = {}
    degenerate: dict[str, str] = {}
    for rater, given in values.items():
        if len(given) < 2:
            degenerate[rater] = f"{len(given)} item(s) answered"
            continue
        own = regression_metrics([float(gold[i]) for i in given], list(given.values()))
        if math.isnan(own["kendalltau"]):
            degenerate[rater] = "Kendall's τ undefined (constant answers or gold)"
            continue
        per_rater[rater] = own["kendalltau"]
        per_rater_metrics[rater] = own
    if len(col.items) < 2:
        raise DegenerateInputError(f"needs at least two answered items, got {len(col.items)}")
    means = {
        item: float(np.mean([r[item] for r in values.values() if item in r])) for item in col.items
    }
    pooled = regression_metrics([float(gold[i]) for i in col.items], [means[i] for i in col.items])
    if math.isnan(pooled["kendalltau"]):
        raise DegenerateInputError("Kendall's τ is undefined: gold or the mean values are constant")
    details = {
        **{k: v for k, v in pooled.items() if k != MAIN_SCORE},
        "mean_values": means,
        "per_rater_metrics": per_rater_metrics,
        "degenerate_raters": degenerate,
        **col.details(),
    }
    return Score(
        pooled[MAIN_SCORE],
        "human:mean_value+kendalltau",
        n_items=len(col.items),
        per_rater=per_rater,
        details=details,
    )
