"""Confidence intervals around human scores, and the test "is a model outside them".

Why: HUME reads a model score against the human score with a 95 % interval (Wilson for accuracy,
Fisher z for Spearman, the range across annotators for clustering and reranking) and counts a
model outside the interval as significantly different. 20–50 items per task make these intervals
wide, so the sample-size planners at the end say how many items a target width needs.

Every function returns an :class:`~scoring.records.Interval` whose ``method`` names the
construction, so a report can print how each interval was made.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from scipy.special import ndtr, ndtri

from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.kernels import is_vectorized, vectorized
from scoring.records import Interval
from scoring.resample_counts import counts_form_of
from scoring.validation import choose

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "FISHER_Z_VARIANCES",
    "annotator_range",
    "bootstrap",
    "compare_to_interval",
    "fisher_z",
    "fisher_z_n_for_half_width",
    "is_vectorized",
    "mover_mean",
    "outside_interval",
    "paired_bootstrap",
    "quantiles",
    "vectorized",
    "wilson",
    "wilson_n_for_half_width",
]

#: Variance of Fisher's z for a rank correlation, times (n − 3):
#: ``fisher`` 1 (Pearson's standard error, what HUME used), ``fieller`` 1.06 (Fieller, Hartley &
#: Pearson 1957, for Spearman), ``bonett_wright`` 1 + ρ²/2 (Bonett & Wright 2000, for Spearman).
FISHER_Z_VARIANCES = ("fisher", "fieller", "bonett_wright")

WARN_ONE_ANNOTATOR = "only one annotator: the range has zero width"


def _check_level(level: float) -> float:
    if not isinstance(level, int | float) or not 0.0 < float(level) < 1.0:
        raise InvalidInputError(f"level: expected a number strictly between 0 and 1, got {level!r}")
    return float(level)


def _z(level: float) -> float:
    """Two-sided standard-normal quantile for ``level`` (1.959964… for 0.95)."""
    return float(ndtri(0.5 + level / 2.0))


def _check_count(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InvalidInputError(f"{name}: expected an integer, got {value!r}")
    if value < minimum:
        raise InvalidInputError(f"{name}: expected at least {minimum}, got {value}")
    return int(value)


# --------------------------------------------------------------------------------------------
# Closed-form intervals
# --------------------------------------------------------------------------------------------


def _wilson_bounds(p: float, n: float, z: float) -> tuple[float, float]:
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def wilson(successes: int, n: int, level: float = 0.95) -> Interval:
    """Wilson score interval for a proportion (classification accuracy).

    Chosen over the normal (Wald) interval because it stays inside [0, 1] and keeps its coverage
    at 20–50 items and accuracies near 1. ``estimate`` is the observed share successes / n.

    Args:
        successes: the number of correct items.
        n: the number of items.
        level: the confidence level, strictly between 0 and 1.

    Returns:
        The interval, method ``"wilson"``.

    Raises:
        InvalidInputError: a count that is not a whole number ≥ 0 (``n`` ≥ 1), more successes
            than items, or a level outside (0, 1).
    """
    n = _check_count(n, "n", 1)
    successes = _check_count(successes, "successes", 0)
    if successes > n:
        raise InvalidInputError(f"successes: {successes} is more than n = {n}")
    level = _check_level(level)
    z = _z(level)
    p = successes / n
    low, high = _wilson_bounds(p, n, z)
    # Exact at the edges: rounding must not push the bound past the observed 0 or 1.
    if successes == 0:
        low = 0.0
    if successes == n:
        high = 1.0
    return Interval(
        estimate=p,
        low=low,
        high=high,
        level=level,
        method="wilson",
        details={"successes": successes, "n": n, "z": z},
    )


def _fisher_var(rho: float, variance: str) -> float:
    if variance == "fisher":
        return 1.0
    if variance == "fieller":
        return 1.06
    return 1.0 + rho * rho / 2.0


def fisher_z(
    rho: float,
    n: int,
    level: float = 0.95,
    *,
    variance: Literal["fisher", "fieller", "bonett_wright"] = "fisher",
) -> Interval:
    """Interval for a correlation via Fisher's z = atanh(ρ), back-transformed with tanh.

    Standard error sqrt(v / (n − 3)) with v from :data:`FISHER_Z_VARIANCES` (default 1, HUME's
    choice; ``"fieller"`` and ``"bonett_wright"`` are the Spearman-specific corrections). Needs
    n > 3. A ρ of exactly ±1 gives a zero-width interval, noted in ``details``.

    Args:
        rho: the correlation, in [-1, 1].
        n: the number of pairs it was computed on.
        level: the confidence level, strictly between 0 and 1.
        variance: which variance of z, one of :data:`FISHER_Z_VARIANCES`.

    Returns:
        The interval around ``rho``.

    Raises:
        InvalidInputError: an unknown variance, a level outside (0, 1), or ``rho`` not a number
            in [-1, 1].
        DegenerateInputError: n ≤ 3.
    """
    choose(variance, FISHER_Z_VARIANCES, "Fisher z variance")
    n = _check_count(n, "n", 1)
    if n <= 3:
        raise DegenerateInputError(f"fisher_z: needs n > 3 pairs, got n = {n}")
    try:
        r = float(rho)
    except (TypeError, ValueError):
        raise InvalidInputError(f"rho: expected a number, got {rho!r}") from None
    if not math.isfinite(r) or abs(r) > 1.0:
        raise InvalidInputError(f"rho: expected a value in [-1, 1], got {rho!r}")
    level = _check_level(level)
    z = _z(level)
    v = _fisher_var(r, variance)
    se = math.sqrt(v / (n - 3))
    details: dict[str, Any] = {"n": n, "z": z, "se_z": se, "variance": variance}
    if abs(r) == 1.0:
        details["warning"] = "|rho| = 1: Fisher z is infinite, the interval has zero width"
        low = high = r
    else:
        zr = math.atanh(r)
        low, high = math.tanh(zr - z * se), math.tanh(zr + z * se)
    method = "fisher_z" if variance == "fisher" else f"fisher_z:{variance}"
    return Interval(estimate=r, low=low, high=high, level=level, method=method, details=details)


def annotator_range(
    per_annotator_scores: Mapping[Any, float] | Sequence[float],
    estimate: float | None = None,
    level: float = 0.95,
) -> Interval:
    """Min–max of the per-annotator scores (HUME's interval for clustering and reranking).

    With two annotators this is all the spread there is; it has no coverage guarantee, so
    ``level`` is only the nominal level the report pairs it with (``details["coverage"]`` says
    so). ``estimate`` defaults to the mean of the scores. One annotator gives a zero-width
    interval and a warning in ``details["warnings"]``.

    Args:
        per_annotator_scores: one score per annotator (a mapping's values, or a sequence).
        estimate: the interval's centre (default the mean); one outside the range is
            flagged in ``details["estimate_outside_range"]``.
        level: the confidence level, strictly between 0 and 1.

    Returns:
        The interval, method ``"annotator_range"``.

    Raises:
        InvalidInputError: no scores, or a score or estimate that is not a finite number.
    """
    if isinstance(per_annotator_scores, Mapping):
        names = [str(k) for k in per_annotator_scores]
        raw = list(per_annotator_scores.values())
    else:
        raw = list(per_annotator_scores)
        names = [str(i) for i in range(len(raw))]
    if not raw:
        raise InvalidInputError("per_annotator_scores: no scores")
    try:
        scores = [float(s) for s in raw]
    except (TypeError, ValueError):
        raise InvalidInputError(f"per_annotator_scores: expected numbers, got {raw!r}") from None
    if not all(math.isfinite(s) for s in scores):
        raise InvalidInputError("per_annotator_scores: contains NaN or infinite values")
    level = _check_level(level)
    est = math.fsum(scores) / len(scores) if estimate is None else float(estimate)
    if not math.isfinite(est):
        raise InvalidInputError(f"estimate: expected a finite number, got {estimate!r}")
    low, high = min(scores), max(scores)
    warnings = [WARN_ONE_ANNOTATOR] if len(scores) == 1 else []
    details: dict[str, Any] = {
        "n_annotators": len(scores),
        "per_annotator": dict(zip(names, scores, strict=True)),
        "coverage": "none: min-max across annotators, level is nominal",
        "warnings": warnings,
    }
    if not low <= est <= high:
        details["estimate_outside_range"] = True
    return Interval(
        estimate=est, low=low, high=high, level=level, method="annotator_range", details=details
    )


# --------------------------------------------------------------------------------------------
# Bootstrap
# --------------------------------------------------------------------------------------------


#: Most values one call of a vectorised statistic receives (resamples x items x record size):
#: 2**15, 256 KiB of float64. Resamples beyond it are evaluated in further calls. Why so few:
#: a statistic's temporaries are a few times its input, and arrays of megabytes are mapped
#: fresh from the system and faulted in page by page on every call, then given back (glibc's
#: malloc); at 2**22 an export of a HUME-size study took 11,000 page faults, nearly all in the
#: STS bootstraps, which cost twice their arithmetic (issue 38). Each resample's value is
#: computed from its own row alone, so the batch size never changes a number.
BATCH_VALUES = 1 << 15
#: Most draw counts (resamples x items) a statistic is taken from, 8 MiB of float64: the counts
#: are cached beside the draws, so a larger subset's statistic is gathered as before.
COUNTS_VALUES = 1 << 20


def _take(items: Any, idx: NDArray[Any]) -> Any:
    if isinstance(items, np.ndarray):
        return items[idx]
    return [items[i] for i in idx]


def _call(statistic: Callable[[Any], Any], sample: Any) -> float:
    value = statistic(sample)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"statistic: expected a number, got {value!r}") from None


@functools.lru_cache(maxsize=4)
def _drawn(seed: int, n: int, n_resamples: int) -> tuple[NDArray[Any], NDArray[Any]]:
    """The generator's draws, once per arguments: for ``np.take``, and a read-only view.

    The draws are ``default_rng(seed).integers(0, n, (n_resamples, n))``.

    Why: an export bootstraps each subset's aggregate, each annotator, the mean annotator and
    Dawid–Skene with the same seed and item count, and drawing 2,000 resamples again each time
    was about a fifth of a bootstrap's cost (issue 38). Subsets are scored one after the other,
    so a few entries catch every repeat while the memory held stays a few bootstraps' own draws
    (a 2,000-item subset's are 32 MB).

    Why two arrays: ``np.take`` with a read-only index array can be ten times slower than
    with a writeable one (numpy 2.2, 2,000 x 30 indices into a vector, bootstraps in a loop:
    540 µs against 40 µs, and 1.2 ms against 2.3 ms a bootstrap; issue 38). The writeable
    array is read only by ``np.take`` in this module, whose result is a new array, so no
    statistic can change it; everyone else gets the read-only view (:func:`_draws`).
    """
    draws = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))
    view = draws.view()
    view.setflags(write=False)
    return draws, view


def _draws(seed: int, n: int, n_resamples: int) -> NDArray[Any]:
    """The cached draws of :func:`_drawn`, read-only.

    So that no caller can change the draws another one gets.
    """
    return _drawn(seed, n, n_resamples)[1]


def _take_rows(seed: int, n: int, n_resamples: int) -> NDArray[Any]:
    """The cached draws of :func:`_drawn` as ``np.take`` reads them fast.

    Only for ``np.take`` (or an index into a list), never handed to a statistic.
    """
    return _drawn(seed, n, n_resamples)[0]


@functools.lru_cache(maxsize=4)
def _draw_counts(seed: int, n: int, n_resamples: int) -> NDArray[Any]:
    """How often each item is in each resample of :func:`_drawn`: shape (resamples, n), read-only.

    For statistics with a form over draw counts (:mod:`scoring.resample_counts`); kept, like the
    draws, for the next bootstrap of the same seed and item count.
    """
    rows = np.arange(n_resamples)[:, None] * n
    flat = np.bincount((rows + _take_rows(seed, n, n_resamples)).ravel(), minlength=n_resamples * n)
    counts = flat.reshape(n_resamples, n).astype(np.float64)
    counts.setflags(write=False)
    return counts


def _of_counts(
    items: Any, statistic: Callable[[Any], Any], counts: Callable[[], NDArray[Any]], rows: int
) -> NDArray[Any] | None:
    """The statistic's values from its form over draw counts, or None where it has none.

    ``counts()`` makes the (rows, n) counts, only where the form exists; a form that gives no
    values (records it cannot take) sends the caller to the gathered records, and so do more
    than :data:`COUNTS_VALUES` counts.
    """
    form = counts_form_of(statistic)
    if form is None or rows * len(items) > COUNTS_VALUES:
        return None
    values = form(items, counts())
    if values is None:
        return None
    values = np.asarray(values, dtype=float)
    if values.shape != (rows,):
        raise InvalidInputError(
            f"statistic: counts form, expected one value per resample, shape ({rows},), got "
            f"shape {values.shape}"
        )
    return values


def _leave_one_out(rows: NDArray[Any], n: int) -> NDArray[Any]:
    """Index rows ``np.delete(np.arange(n), i)`` for i in ``rows``: shape (len(rows), n − 1)."""
    j = np.arange(n - 1)
    return j[None, :] + (j[None, :] >= rows[:, None])


def _statistics(
    items: Any,
    statistic: Callable[[Any], Any],
    n_rows: int,
    rows_of: Callable[[int, int], NDArray[Any]],
    vectorized: bool,
) -> NDArray[Any]:
    """The statistic of ``items[rows_of(start, stop)]``, row by row, as floats.

    ``rows_of(start, stop)`` gives the index rows ``start`` … ``stop`` − 1 of 0 … n_rows − 1;
    a slice of the cached draws costs no copy.

    Vectorised, a call receives a stack of resamples, ``items[idx]`` with ``idx`` of shape
    (resamples, size), at most :data:`BATCH_VALUES` values at once; otherwise one call per
    resample, as :func:`_take` draws it.
    """
    out = np.empty(n_rows, dtype=float)
    record = max(1, math.prod(np.shape(items)[1:])) if vectorized else 1
    step = max(1, BATCH_VALUES // (len(items) * record))
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        idx = rows_of(start, stop)
        if not vectorized:
            out[start:stop] = [_call(statistic, _take(items, row)) for row in idx]
            continue
        try:
            # np.take is items[idx] (same values, dtype and shape), ten times faster for
            # records of a few columns, where fancy indexing copies row by row (issue 38)
            values = np.asarray(statistic(np.take(items, idx, axis=0)), dtype=float)
        except (TypeError, ValueError):
            raise InvalidInputError("statistic: expected an array of numbers") from None
        if values.shape != (stop - start,):
            raise InvalidInputError(
                f"statistic: vectorized, expected one value per resample, shape "
                f"({stop - start},), got shape {values.shape}"
            )
        out[start:stop] = values
    return out


def _bca_levels(
    boot: NDArray[Any],
    theta_hat: float,
    jack: NDArray[Any],
    alpha: float,
) -> tuple[NDArray[Any] | None, str, dict[str, float]]:
    """BCa quantile levels, or ``None`` with the reason BCa is undefined."""
    # the arrays' own methods: numpy's np.* wrappers cost more than these small reductions
    if (boot == boot[0]).all():
        return None, "all bootstrap resamples gave the same value", {}
    # Ties count one half, so discrete statistics (accuracy) do not bias z0.
    prop = ((boot < theta_hat).sum() + 0.5 * (boot == theta_hat).sum()) / len(boot)
    if prop <= 0.0 or prop >= 1.0:
        return None, "the estimate lies outside the bootstrap distribution (z0 infinite)", {}
    z0 = float(ndtri(prop))
    if not np.isfinite(jack).all():
        return None, "a jackknife value is not finite", {"z0": z0}
    d = jack.mean() - jack
    ss = float((d * d).sum())
    if ss == 0.0:
        return None, "the jackknife values have zero variance", {"z0": z0}
    accel = float((d**3).sum()) / (6.0 * ss**1.5)
    if not math.isfinite(accel):
        return None, "the acceleration is not finite", {"z0": z0}
    zq = ndtri(np.array([alpha, 1.0 - alpha]))
    shift = z0 + zq
    denom = 1.0 - accel * shift
    if (denom <= 0.0).any():
        return None, "the BCa adjustment is undefined (1 - a(z0 + z) <= 0)", {"z0": z0}
    levels = ndtr(z0 + shift / denom)
    if not np.isfinite(levels).all():
        return None, "the BCa levels are not finite", {"z0": z0, "acceleration": accel}
    return levels, "", {"z0": z0, "acceleration": accel}


def quantiles(values: NDArray[Any], levels: Any, *, is_sorted: bool = False) -> list[float]:
    """``np.quantile(values, levels)`` (its default, linear method) of 1-D finite floats.

    Why by hand: ``np.quantile`` spends some 70 µs in Python-level dispatch and checks for a
    few µs of partitioning, and an export takes it after each of about a hundred bootstraps
    (issue 38). These are numpy 2's steps for the linear method on a NaN-free array: virtual
    index ``(n − 1)·q``, its floor and the next index (both the last element at or past
    ``n − 1``, the first below 0), the values there once partitioned, then
    ``a + (b − a)·g``, or ``b − (b − a)·(1 − g)`` where ``g ≥ 0.5``, with g the virtual index
    less its floor: the same floats (a test compares them with ``np.quantile``).

    Args:
        values: 1-D floats, none NaN.
        levels: quantile levels in [0, 1].
        is_sorted: ``values`` are sorted already (they hold the order statistics a partition
            finds, so nothing is partitioned: :mod:`scoring.bootstrap_batch` sorts many rows
            at once).

    Returns:
        One value per level.
    """
    n = len(values)
    virtual = (n - 1) * np.asarray(levels, dtype=float)
    previous = np.floor(virtual)
    following = previous + 1
    above = virtual >= n - 1
    previous[above] = -1
    following[above] = -1
    below = virtual < 0
    previous[below] = 0
    following[below] = 0
    lo, hi = previous.astype(np.intp), following.astype(np.intp)
    ordered = (
        values if is_sorted else np.partition(values, np.unique(np.concatenate(([0, -1], lo, hi))))
    )
    a, b = ordered[lo], ordered[hi]
    gamma = virtual - lo
    diff = b - a
    result = np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
    return [float(x) for x in result]


def bootstrap(
    items: Sequence[Any] | NDArray[Any],
    statistic: Callable[[Any], Any],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    method: Literal["bca", "percentile"] = "bca",
    vectorized: bool = False,
) -> Interval:
    """Seeded nonparametric bootstrap over items for any score, BCa by default.

    ``items`` are per-item records (a NumPy array is resampled along its first axis, any other
    sequence becomes a list of the drawn records); ``statistic`` maps a resample to a number.
    With ``vectorized=True`` it maps a *stack* of resamples to one number each: it receives
    ``items[idx]``, shape (resamples, n, …), and returns shape (resamples,), so all resamples
    (and the jackknife) cost a few array operations instead of one Python call each. The
    resamples are the same either way: one ``default_rng(seed).integers(0, n, (n_resamples,
    n))`` draw, so both give the same interval (bit for bit when the statistic's arithmetic
    is the same per row).

    Resamples whose statistic is not finite (e.g. a constant resample for Spearman) are dropped
    and counted. BCa (Efron 1987; bias from the share of resamples below the estimate, ties
    counting one half; acceleration from the jackknife) falls back to the percentile method
    where it is undefined; ``method`` then reads ``"bootstrap:percentile"`` and
    ``details["fallback_reason"]`` says why. Same seed and input give the same interval.

    Why not ``scipy.stats.bootstrap(method="BCa")``: given the same generator it draws the same
    resamples and, on regular data, gives this interval to ~1e-12 (a test checks it), but it
    has no answer where BCa is undefined and none for a resample whose statistic is undefined.
    A subset annotated perfectly, accuracy 20/20, makes every resample and every jackknife value
    1.0: the acceleration is 0/0 and scipy returns ``(nan, nan)`` with a
    ``DegenerateDataWarning``, where this function returns ``[1.0, 1.0]`` by the percentile
    method and says so. One Spearman resample with constant ratings (NaN) makes scipy's whole
    interval NaN; here it is dropped and counted. And the report wants z0, the acceleration and
    the BCa levels in ``details``, which scipy does not return.

    Args:
        items: one record per item (an array is resampled along its first axis).
        statistic: maps a resample to a number (with ``vectorized``, a stack to one each).
        n_resamples: how many resamples, at least 2.
        seed: seed of the NumPy generator, ≥ 0.
        level: the confidence level, strictly between 0 and 1.
        method: ``"bca"`` or ``"percentile"``.
        vectorized: whether ``statistic`` takes a stack of resamples.

    Returns:
        The interval around the statistic of the full sample, with z0, the acceleration, the
        levels used and the dropped resamples in ``details``.

    Raises:
        InvalidInputError: a bad argument (an unknown method, a level outside (0, 1), a
            statistic that is not callable or returns no number, items that are no sequence).
        DegenerateInputError: fewer than 2 items, a statistic that is not finite on the full
            sample, or fewer than 2 resamples with a finite statistic.
    """
    choose(method, ("bca", "percentile"), "bootstrap method")
    n_resamples = _check_count(n_resamples, "n_resamples", 2)
    seed = _check_count(seed, "seed", 0)
    level = _check_level(level)
    if not callable(statistic):
        raise InvalidInputError("statistic: expected a callable")
    if not isinstance(vectorized, bool):
        raise InvalidInputError(f"vectorized: expected True or False, got {vectorized!r}")
    if not isinstance(items, np.ndarray):
        if not isinstance(items, Sequence) or isinstance(items, str):
            raise InvalidInputError(
                f"items: expected a sequence or array, got {type(items).__name__}"
            )
        items = np.asarray(items) if vectorized else list(items)
    n = len(items)
    if n < 2:
        raise DegenerateInputError(f"bootstrap: needs at least 2 items, got {n}")
    # a statistic with a form over draw counts (scoring.resample_counts) is taken from the
    # counts, the same floats without gathering the records (issue 38)
    counted = vectorized and counts_form_of(statistic) is not None
    whole = _of_counts(items, statistic, lambda: np.ones((1, n)), 1) if counted else None
    if whole is None and vectorized:
        whole = _statistics(items, statistic, 1, lambda _a, _b: np.arange(n)[None, :], True)
    if whole is not None:
        theta_hat = float(whole[0])
    else:
        counted = False
        theta_hat = _call(statistic, items)
    if not math.isfinite(theta_hat):
        raise DegenerateInputError("bootstrap: the statistic is not finite on the full sample")
    boot_all = (
        _of_counts(items, statistic, lambda: _draw_counts(seed, n, n_resamples), n_resamples)
        if counted
        else None
    )
    if boot_all is None:
        draws = _take_rows(seed, n, n_resamples)
        boot_all = _statistics(items, statistic, n_resamples, lambda a, b: draws[a:b], vectorized)
    finite = np.isfinite(boot_all)
    boot = boot_all[finite]
    n_dropped = int(n_resamples - finite.sum())
    if len(boot) < 2:
        raise DegenerateInputError(
            f"bootstrap: only {len(boot)} of {n_resamples} resamples gave a finite statistic"
        )
    alpha = (1.0 - level) / 2.0
    details: dict[str, Any] = {
        "n_items": n,
        "n_resamples": n_resamples,
        "n_resamples_dropped": n_dropped,
        "seed": seed,
        "requested_method": method,
        "bootstrap_se": float(boot.std(ddof=1)),
    }
    used = method
    levels = np.array([alpha, 1.0 - alpha])
    if method == "bca":
        jack = _of_counts(items, statistic, lambda: 1.0 - np.eye(n), n) if counted else None
        if jack is None:
            jack = _statistics(
                items, statistic, n, lambda a, b: _leave_one_out(np.arange(a, b), n), vectorized
            )
        bca, reason, extra = _bca_levels(boot, theta_hat, jack, alpha)
        details.update(extra)
        if bca is None:
            used = "percentile"
            details["fallback_reason"] = reason
        else:
            levels = bca
            details["quantile_levels"] = [float(x) for x in bca]
    low, high = quantiles(boot, levels)
    return Interval(
        estimate=theta_hat,
        low=low,
        high=high,
        level=level,
        method=f"bootstrap:{used}",
        details=details,
    )


def _each_resample(
    records: Any, statistic: Callable[[Any], Any], idx: NDArray[Any]
) -> NDArray[Any]:
    if is_vectorized(statistic):
        return np.asarray(statistic(np.take(np.asarray(records), idx, axis=0)), dtype=float)
    return np.array([_call(statistic, _take(records, row)) for row in idx], dtype=float)


def paired_bootstrap(
    records_a: Any,
    statistic_a: Callable[[Any], Any],
    records_b: Any,
    statistic_b: Callable[[Any], Any],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """Percentile interval of statistic_a − statistic_b from a paired bootstrap over items.

    ``records_a[k]`` and ``records_b[k]`` belong to the same item k: each resample draws one set
    of item indices (``default_rng(seed).integers(0, n, (n_resamples, n))``) and evaluates both
    statistics on it, so the difference keeps the pairing. Resamples whose difference is not
    finite are dropped and counted. Statistics marked :func:`vectorized` get all resamples at
    once.

    Args:
        records_a: one record per item for the first statistic.
        statistic_a: the first score of a resample of ``records_a``.
        records_b: the records of the same items, in the same order, for the second statistic.
        statistic_b: the second score of a resample of ``records_b``.
        n_resamples: how many resamples, at least 2.
        seed: seed of the NumPy generator, ≥ 0.
        level: the confidence level, strictly between 0 and 1.

    Returns:
        The percentile interval of the difference, around the difference on the full sample.

    Raises:
        InvalidInputError: records of different lengths, or a level outside (0, 1).
        DegenerateInputError: fewer than 2 items, or no resample (or full sample) with a finite
            difference.
    """
    n = len(records_a)
    if len(records_b) != n:
        raise InvalidInputError(f"paired_bootstrap: {n} records against {len(records_b)}")
    if n < 2:
        raise DegenerateInputError(f"paired_bootstrap: needs 2 or more items, got {n}")
    level = _check_level(level)
    whole = np.arange(n)[None, :]
    estimate = float(
        _each_resample(records_a, statistic_a, whole)[0]
        - _each_resample(records_b, statistic_b, whole)[0]
    )
    if isinstance(seed, int | np.integer):
        idx = _take_rows(int(seed), n, int(n_resamples))
    else:  # a seed sequence or list: drawn as given, not cached
        idx = np.random.default_rng(seed).integers(0, n, (int(n_resamples), n))
    diffs = _each_resample(records_a, statistic_a, idx) - _each_resample(
        records_b, statistic_b, idx
    )
    kept = diffs[np.isfinite(diffs)]
    if not kept.size or not math.isfinite(estimate):
        raise DegenerateInputError("paired_bootstrap: the difference is undefined")
    alpha = (1.0 - level) / 2.0
    low, high = quantiles(kept, [alpha, 1.0 - alpha])
    return Interval(
        estimate=float(estimate),
        low=low,
        high=high,
        level=level,
        method="paired_bootstrap:percentile",
        details={
            "n_items": n,
            "n_resamples": int(n_resamples),
            "n_resamples_dropped": int(diffs.size - kept.size),
            "seed": seed,
        },
    )


def mover_mean(estimates: Sequence[float], intervals: Sequence[Interval]) -> Interval:
    """Interval for the mean of k independent estimates, from each one's own interval.

    MOVER (method of variance estimates recovery; Zou & Donner 2008, "Construction of
    confidence limits about effect measures: a general approach"): each estimate's distance to
    its own lower (upper) bound stands for its sampling error on that side, and independent
    errors add in quadrature, so for the mean θ̄ = Σθᵢ / k::

        low  = θ̄ − sqrt(Σ (θᵢ − lᵢ)²) / k
        high = θ̄ + sqrt(Σ (uᵢ − θᵢ)²) / k

    Why this and not a new bootstrap: the per-subset intervals (BCa bootstrap over items,
    Wilson, Fisher z) are what the report already prints, and the subsets of a study hold
    disjoint items, so their errors are independent; one subset gives back its own interval,
    and a mean of scores bounded by 1 never gets a bound above the largest ``uᵢ``. Asymmetric
    intervals (BCa, Wilson) keep their asymmetry. No library offers it (it is three lines).

    Args:
        estimates: the k estimates (one per subset).
        intervals: each estimate's own interval, in the same order, all at one level.

    Returns:
        The interval around the mean, method ``"mover:mean"``.

    Raises:
        InvalidInputError: the lists differ in length, or the intervals' levels differ.
        DegenerateInputError: no estimate, or an estimate that is not finite.
    """
    if len(estimates) != len(intervals):
        raise InvalidInputError(
            f"mover_mean: {len(estimates)} estimates, {len(intervals)} intervals"
        )
    if not estimates:
        raise DegenerateInputError("mover_mean: no estimate to average")
    levels = {iv.level for iv in intervals}
    if len(levels) != 1:
        raise InvalidInputError(f"mover_mean: intervals of different levels {sorted(levels)}")
    k = len(estimates)
    values = [float(x) for x in estimates]
    if not all(math.isfinite(x) for x in values):
        raise DegenerateInputError("mover_mean: an estimate is not finite")
    mean = sum(values) / k
    below = math.sqrt(
        sum(max(v - iv.low, 0.0) ** 2 for v, iv in zip(values, intervals, strict=True))
    )
    above = math.sqrt(
        sum(max(iv.high - v, 0.0) ** 2 for v, iv in zip(values, intervals, strict=True))
    )
    return Interval(
        estimate=mean,
        low=mean - below / k,
        high=mean + above / k,
        level=levels.pop(),
        method="mover:mean",
        details={"n_estimates": k, "methods": sorted({iv.method for iv in intervals})},
    )


# --------------------------------------------------------------------------------------------
# Reading a model score against the interval
# --------------------------------------------------------------------------------------------


def _check_score(model_score: float) -> float:
    try:
        s = float(model_score)
    except (TypeError, ValueError):
        raise InvalidInputError(f"model_score: expected a number, got {model_score!r}") from None
    if not math.isfinite(s):
        raise InvalidInputError(f"model_score: expected a finite number, got {model_score!r}")
    return s


def compare_to_interval(
    model_score: float, interval: Interval
) -> Literal["above", "below", "inside"]:
    """Where a model score falls: ``"above"`` / ``"below"`` the interval, or ``"inside"``.

    The bounds count as inside: only a score strictly outside is significantly different.

    Args:
        model_score: the model's score.
        interval: the human interval.

    Returns:
        ``"above"``, ``"below"`` or ``"inside"``.

    Raises:
        InvalidInputError: the score is not a finite number.
    """
    s = _check_score(model_score)
    if s > interval.high:
        return "above"
    if s < interval.low:
        return "below"
    return "inside"


def outside_interval(model_score: float, interval: Interval) -> bool:
    """True when the model score lies strictly outside the interval (HUME's significance rule).

    Args:
        model_score: the model's score.
        interval: the human interval.

    Returns:
        Whether the score is above or below the interval.

    Raises:
        InvalidInputError: the score is not a finite number.
    """
    return compare_to_interval(model_score, interval) != "inside"


# --------------------------------------------------------------------------------------------
# Sample-size planning
# --------------------------------------------------------------------------------------------


def _smallest_n(half_width_at: Callable[[int], float], target: float, start: int) -> int:
    """Smallest n ≥ start with half_width_at(n) ≤ target, for a decreasing half-width."""
    if half_width_at(start) <= target:
        return start
    lo, hi = start, start * 2
    while half_width_at(hi) > target:
        lo, hi = hi, hi * 2
        if hi > 10**12:
            raise DegenerateInputError("sample-size search did not converge")
    while hi - lo > 1:  # invariant: hw(lo) > target >= hw(hi)
        mid = (lo + hi) // 2
        if half_width_at(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi


def _check_half_width(half_width: float) -> float:
    try:
        hw = float(half_width)
    except (TypeError, ValueError):
        raise InvalidInputError(f"half_width: expected a number, got {half_width!r}") from None
    if not 0.0 < hw < 1.0:
        raise InvalidInputError(f"half_width: expected a value in (0, 1), got {half_width!r}")
    return hw


def wilson_n_for_half_width(p: float, half_width: float = 0.05, level: float = 0.95) -> int:
    """Smallest number of items whose Wilson interval at accuracy ``p`` has this half-width.

    ``p`` is the anticipated accuracy, treated as exact (p·n need not be whole). The Wilson
    half-width z·sqrt(p(1−p)n + z²/4)/(n + z²) decreases in n, so the search is exact.

    Args:
        p: the anticipated accuracy, in [0, 1].
        half_width: the target half-width, in (0, 1).
        level: the confidence level, strictly between 0 and 1.

    Returns:
        The number of items.

    Raises:
        InvalidInputError: ``p``, ``half_width`` or ``level`` out of range or not a number.
    """
    try:
        pv = float(p)
    except (TypeError, ValueError):
        raise InvalidInputError(f"p: expected a number, got {p!r}") from None
    if not 0.0 <= pv <= 1.0:
        raise InvalidInputError(f"p: expected a value in [0, 1], got {p!r}")
    hw = _check_half_width(half_width)
    z = _z(_check_level(level))

    def width(n: int) -> float:
        return z * math.sqrt(pv * (1.0 - pv) * n + z * z / 4.0) / (n + z * z)

    return _smallest_n(width, hw, 1)


def fisher_z_n_for_half_width(
    rho: float,
    half_width: float = 0.05,
    level: float = 0.95,
    *,
    variance: Literal["fisher", "fieller", "bonett_wright"] = "fisher",
) -> int:
    """Smallest number of pairs whose Fisher-z interval around ``rho`` has this half-width.

    The half-width is measured on the correlation scale, (high − low) / 2, as
    :attr:`Interval.half_width` reports it; it shrinks as n grows, so the search is exact.

    Args:
        rho: the anticipated correlation, in (-1, 1).
        half_width: the target half-width, in (0, 1).
        level: the confidence level, strictly between 0 and 1.
        variance: which variance of z, one of :data:`FISHER_Z_VARIANCES`.

    Returns:
        The number of pairs (at least 4).

    Raises:
        InvalidInputError: an unknown variance, or ``rho``, ``half_width`` or ``level`` out of
            range or not a number.
    """
    choose(variance, FISHER_Z_VARIANCES, "Fisher z variance")
    try:
        r = float(rho)
    except (TypeError, ValueError):
        raise InvalidInputError(f"rho: expected a number, got {rho!r}") from None
    if not math.isfinite(r) or abs(r) >= 1.0:
        raise InvalidInputError(f"rho: expected a value in (-1, 1), got {rho!r}")
    hw = _check_half_width(half_width)
    z = _z(_check_level(level))
    zr = math.atanh(r)
    v = _fisher_var(r, variance)

    def width(n: int) -> float:
        c = z * math.sqrt(v / (n - 3))
        return (math.tanh(zr + c) - math.tanh(zr - c)) / 2.0

    return _smallest_n(width, hw, 4)
