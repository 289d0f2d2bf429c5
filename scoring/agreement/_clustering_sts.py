"""Agreement on partitions (adjusted Rand index) and on scores (Spearman ρ, Kendall τ-b)."""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import scoring.kernels as kernels
from scoring._lazy import LazyModule
from scoring.agreement._input import Ratings, _prepare
from scoring.agreement._pairwise import _pairwise
from scoring.agreement._result import (
    WARN_CONSTANT,
)
from scoring.rank_small import MAX_SMALL, kendall_tau_b_small, spearman_rho_small
from scoring.records import Agreement

# Loaded on first use: the leaderboard imports the agreement package for its bands only.
if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")


def _ari(x: Sequence[Hashable], y: Sequence[Hashable]) -> float:
    # Cluster ids are only names: map to integers so mixed types are fine.
    ix = {v: i for i, v in enumerate(dict.fromkeys(x))}
    iy = {v: i for i, v in enumerate(dict.fromkeys(y))}
    return kernels.adjusted_rand(np.array([ix[v] for v in x]), np.array([iy[v] for v in y]))


def mean_pairwise_ari(partitions: Ratings, *, machine_raters: Collection[Any] = ()) -> Agreement:
    """Mean over human rater pairs of the adjusted Rand index between their partitions.

    Pairs that share fewer than two items are skipped. HUME's clustering agreement.

    Args:
        partitions: ``rater -> {item: cluster id}``; cluster ids are arbitrary names.
        machine_raters: rater ids to leave out (models, LLMs); ids not in ``ratings`` are
            ignored, so a study-wide list can be passed.

    Returns:
        The mean ARI, method ``"mean_pairwise_ari"``, band on the κ scale.

    Raises:
        InvalidInputError: ``ratings`` is empty or not a mapping of mappings, or a value is
            unhashable.
    """
    table = _prepare(partitions, machine_raters, numeric=False)
    return _pairwise(table, "mean_pairwise_ari", "kappa", _ari, min_shared=2, categorical=False)


def _small(x: Sequence[float], y: Sequence[float]) -> tuple[list[float], list[float]] | None:
    """``x`` and ``y`` as float lists if :mod:`scoring.rank_small` takes them, else None.

    It takes short vectors of finite values.
    """
    if len(x) > MAX_SMALL:
        return None
    fx, fy = [float(v) for v in x], [float(v) for v in y]
    if not all(math.isfinite(v) for v in fx + fy):
        return None
    return fx, fy


def _constant(v: Sequence[float]) -> bool:
    return all(e == v[0] for e in v)


def _spearman(x: Sequence[float], y: Sequence[float]) -> float:
    small = _small(x, y)
    if small is not None:  # the kernel's value without its array set-up (issue 38)
        fx, fy = small
        if len(fx) < 2 or _constant(fx) or _constant(fy):
            return math.nan
        return spearman_rho_small(fx, fy)
    ax, ay = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(ax) < 2 or np.all(ax == ax[0]) or np.all(ay == ay[0]):
        return math.nan
    return kernels.spearman(ax, ay)[0]


def _kendall(x: Sequence[float], y: Sequence[float]) -> float:
    small = _small(x, y)
    if small is not None:
        fx, fy = small
        if len(fx) < 2 or _constant(fx) or _constant(fy):
            return math.nan
        return kendall_tau_b_small(fx, fy)
    ax, ay = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(ax) < 2 or np.all(ax == ax[0]) or np.all(ay == ay[0]):
        return math.nan
    return kernels.kendall_tau_b(ax, ay)


def mean_pairwise_spearman(ratings: Ratings, *, machine_raters: Collection[Any] = ()) -> Agreement:
    """Mean over human rater pairs of Spearman ρ between their ratings (HUME's STS agreement).

    A pair where either rater gave one constant rating has no ρ; it is left out with a warning.

    Args:
        ratings: ``rater -> {item: number}``; a missing item, ``None`` or NaN is no rating.
        machine_raters: rater ids to leave out (models, LLMs); ids not in ``ratings`` are
            ignored, so a study-wide list can be passed.

    Returns:
        The mean ρ, method ``"mean_pairwise_spearman"``, band on the correlation scale.

    Raises:
        InvalidInputError: ``ratings`` is empty or not a mapping of mappings, or a value is not a
            finite number.
    """
    table = _prepare(ratings, machine_raters, numeric=True)
    return _pairwise(
        table,
        "mean_pairwise_spearman",
        "correlation",
        _spearman,
        min_shared=2,
        undefined_warning=WARN_CONSTANT,
        categorical=False,
    )
