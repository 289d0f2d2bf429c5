"""BCa bootstraps of several raters' accuracies over the same items, in one pass.

Why: a label subset's panel bootstraps each annotator's accuracy and the Dawid–Skene
aggregate's (:mod:`scoring.panel`), each a mean of per-item hits over the same items with the
same seed. One :func:`scoring.intervals.bootstrap` costs some 0.2 ms, nearly all of it fixed
(argument checks, three small matrix products, the BCa levels, the quantiles), so a HUME-size
study's 45 of them were a tenth of its scoring (issue 38). Here the hits of every rater are the
columns of one matrix: one product with the draw counts gives every resample's mean, one with
the jackknife's, and the BCa steps run on all columns at once.

Every number is the one :func:`scoring.intervals.bootstrap` gives each rater alone, bit for bit:
the sums are of whole numbers (exact in any order, :mod:`scoring.resample_counts`), the
reductions run along each rater's own contiguous row (numpy adds a row as it adds a 1-D array),
the scalar steps are the same Python float operations, and the quantiles are read from sorted
rows, which hold the order statistics a partition finds. A rater whose interval needs more than
the plain BCa path (every resample equal, an undefined acceleration, ...) is handed to
:func:`scoring.intervals.bootstrap` alone, which says why. ``tests/scoring/test_bootstrap_batch.py``
compares the two on generated and edge-case hits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import ndtr, ndtri

import scoring.intervals as intervals
from scoring.errors import ScoringError
from scoring.records import Interval
from scoring.resample_counts import MAX_WHOLE, counts_form_of, mean_of_whole_records

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Means", "batchable", "bca_of_means", "percentile_of_mean", "resampled_means"]


def batchable(records: Any, statistic: Callable[[Any], Any], n_resamples: int) -> bool:
    """Whether :func:`bca_of_means` takes this rater: a mean of whole-number records.

    Args:
        records: the rater's per-item records.
        statistic: their bootstrap statistic.
        n_resamples: how many resamples.

    Returns:
        True where the statistic's form over draw counts is the mean of whole-number records,
        the records a 1-D array of such numbers, and the draw counts few enough to be kept
        (:data:`scoring.intervals.COUNTS_VALUES`, as a single bootstrap keeps them).
    """
    if counts_form_of(statistic) is not mean_of_whole_records:
        return False
    if not isinstance(records, np.ndarray) or records.ndim != 1 or records.dtype.kind not in "fiu":
        return False
    n = len(records)
    if n < 2 or n * n_resamples > intervals.COUNTS_VALUES:
        return False
    values = records.astype(np.float64, copy=False)
    return bool((np.abs(values) < MAX_WHOLE).all() and (values == np.floor(values)).all())


@dataclass(frozen=True)
class Means:
    """Every rater's mean on the full sample and on each resample: one pass's values."""

    #: The records as given, one per rater.
    records: tuple[Any, ...]
    #: The same as floats, one rater per column, shape (items, raters).
    columns: NDArray[Any]
    #: Each rater's mean of the full sample, shape (raters,).
    theta: NDArray[Any]
    #: Each rater's mean of each resample, one contiguous row per rater: (raters, resamples).
    boot: NDArray[Any]
    n_resamples: int
    seed: int


def resampled_means(columns: Sequence[Any], *, n_resamples: int, seed: int) -> Means:
    """Each rater's mean of the full sample and of each resample, from the draw counts.

    Args:
        columns: per rater, records :func:`batchable` takes, all of one length.
        n_resamples: how many resamples.
        seed: the seed of the draws (those of :func:`scoring.intervals.bootstrap`).

    Returns:
        The means: each is the float a single bootstrap's counts form gives (whole sums).
    """
    n, n_resamples, seed = len(columns[0]), int(n_resamples), int(seed)
    hits = np.stack([np.asarray(c, dtype=np.float64) for c in columns], axis=1)  # (n, raters)
    theta = (np.ones(n) @ hits) / n
    boot = np.ascontiguousarray(((intervals._draw_counts(seed, n, n_resamples) @ hits) / n).T)
    return Means(tuple(columns), hits, theta, boot, n_resamples, seed)


def bca_of_means(
    means: Means, statistic: Callable[[Any], Any], *, level: float = 0.95
) -> list[Interval | ScoringError]:
    """``intervals.bootstrap(records, statistic, vectorized=True)`` of each rater's records.

    Args:
        means: the raters' means (:func:`resampled_means`).
        statistic: their statistic (one object: the mean of the records).
        level: the confidence level.

    Returns:
        Per rater, the BCa interval, or the error the single bootstrap raised.
    """
    hits, theta, boot = means.columns, means.theta, means.boot
    n, n_resamples, seed = hits.shape[0], means.n_resamples, means.seed
    jack = np.ascontiguousarray((((1.0 - np.eye(n)) @ hits) / (n - 1)).T)
    alpha = (1.0 - level) / 2.0
    levels, params = _bca_levels(boot, theta, jack, alpha)
    ordered = np.sort(boot, axis=1)
    out: list[Interval | ScoringError] = []
    for j in range(hits.shape[1]):
        found = params[j]
        if found is None:  # BCa needs a fallback: the single bootstrap says which and why
            try:
                out.append(
                    intervals.bootstrap(
                        means.records[j],
                        statistic,
                        n_resamples=n_resamples,
                        seed=seed,
                        level=level,
                        vectorized=True,
                    )
                )
            except ScoringError as exc:
                out.append(exc)
            continue
        z0, accel = found
        low, high = intervals.quantiles(ordered[j], levels[j], is_sorted=True)
        details = {
            "n_items": n,
            "n_resamples": n_resamples,
            "n_resamples_dropped": 0,
            "seed": seed,
            "requested_method": "bca",
            "bootstrap_se": float(boot[j].std(ddof=1)),
            "z0": z0,
            "acceleration": accel,
            "quantile_levels": [float(x) for x in levels[j]],
        }
        out.append(Interval(float(theta[j]), low, high, level, "bootstrap:bca", details))
    return out


def percentile_of_mean(means: Means, rows: Sequence[int], *, level: float = 0.95) -> Interval:
    """The percentile interval of the mean over raters ``rows`` of their means, per resample.

    What :func:`scoring.intervals.bootstrap` gives with ``method="percentile"`` for
    :func:`scoring.panel.mean_of_statistics` of those raters (the mean annotator): the same
    per-resample means, stacked as it stacks them (resamples × raters, contiguous) and
    averaged along each row, so the same floats.

    Args:
        means: the raters' means (:func:`resampled_means`).
        rows: which raters, in the order the mean takes them.
        level: the confidence level.

    Returns:
        The interval, its details as the single bootstrap writes them.
    """
    picked = list(rows)
    whole = np.mean(np.ascontiguousarray(means.theta[picked][None, :]), axis=1)
    boot = np.mean(np.ascontiguousarray(means.boot[picked].T), axis=1)
    alpha = (1.0 - level) / 2.0
    details = {
        "n_items": means.columns.shape[0],
        "n_resamples": means.n_resamples,
        "n_resamples_dropped": 0,
        "seed": means.seed,
        "requested_method": "percentile",
        "bootstrap_se": float(boot.std(ddof=1)),
    }
    low, high = intervals.quantiles(boot, np.array([alpha, 1.0 - alpha]))
    return Interval(float(whole[0]), low, high, level, "bootstrap:percentile", details)


def _bca_levels(
    boot: NDArray[Any], theta: NDArray[Any], jack: NDArray[Any], alpha: float
) -> tuple[NDArray[Any], list[tuple[float, float] | None]]:
    """Each row's BCa levels and (z0, acceleration); None where a row needs the fallback.

    The steps of :func:`scoring.intervals._bca_levels`, row by row where they are scalars.
    """
    rows, size = boot.shape
    params: list[tuple[float, float] | None] = [None] * rows
    below = (boot < theta[:, None]).sum(axis=1)
    tied = (boot == theta[:, None]).sum(axis=1)
    prop = (below + 0.5 * tied) / size
    z0s = ndtri(prop)
    centred = jack.mean(axis=1)[:, None] - jack
    sum_sq = (centred * centred).sum(axis=1)
    sum_cubed = (centred**3).sum(axis=1)
    constant = (boot == boot[:, :1]).all(axis=1)
    finite_jack = np.isfinite(jack).all(axis=1)
    accels = np.zeros(rows)
    for j in range(rows):
        if constant[j] or not 0.0 < prop[j] < 1.0 or not finite_jack[j]:
            continue
        ss = float(sum_sq[j])
        if ss == 0.0:
            continue
        accel = float(sum_cubed[j]) / (6.0 * ss**1.5)
        if not math.isfinite(accel):
            continue
        accels[j] = accel
        params[j] = (float(z0s[j]), accel)
    zq = ndtri(np.array([alpha, 1.0 - alpha]))
    shift = z0s[:, None] + zq[None, :]
    denom = 1.0 - accels[:, None] * shift
    with np.errstate(divide="ignore", invalid="ignore"):
        levels = ndtr(z0s[:, None] + shift / denom)
    for j in range(rows):
        if params[j] is not None and ((denom[j] <= 0.0).any() or not np.isfinite(levels[j]).all()):
            params[j] = None
    return levels, params
