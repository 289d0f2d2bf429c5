"""Krippendorff's α at the nominal, ordinal, interval and ratio levels, with missing values."""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from scoring._lazy import LazyModule
from scoring.agreement._input import Ratings, _prepare, _Table
from scoring.agreement._result import (
    WARN_DROPPED_ITEMS,
    WARN_FEWER_THAN_TWO_RATERS,
    WARN_NO_SHARED_ITEMS,
    WARN_ONE_CATEGORY,
    _result,
    _size_warnings,
    _skew_warnings,
    _undefined,
)
from scoring.records import Agreement
from scoring.validation import choose

# Loaded on first use: the leaderboard imports the agreement package for its bands only.
if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
else:
    np = LazyModule("numpy")


KRIPPENDORFF_LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _delta2(domain: list[Any], marginals: NDArray[Any], level: str) -> NDArray[Any]:
    """Squared difference δ²(c, k) between the values of ``domain`` at the given level."""
    m = len(domain)
    if level == "nominal":
        return 1.0 - np.eye(m)
    v = np.asarray(domain, dtype=float)
    if level == "interval":
        squared: NDArray[Any] = (v[:, None] - v[None, :]) ** 2
        return squared
    if level == "ratio":
        s = v[:, None] + v[None, :]
        d = v[:, None] - v[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(s == 0, 0.0, (d / np.where(s == 0, 1.0, s)) ** 2)
        return out
    # ordinal: (Σ_{g=c..k} n_g − (n_c + n_k)/2)², values in ascending order
    cum = np.concatenate([[0.0], np.cumsum(marginals)])
    lo = np.minimum.outer(np.arange(m), np.arange(m))
    hi = np.maximum.outer(np.arange(m), np.arange(m))
    between = cum[hi + 1] - cum[lo]
    ordinal: NDArray[Any] = (between - (marginals[:, None] + marginals[None, :]) / 2.0) ** 2
    return ordinal


def krippendorff_alpha(
    ratings: Ratings,
    *,
    level: str = "nominal",
    machine_raters: Collection[Any] = (),
) -> Agreement:
    """Krippendorff's α with missing values, from the coincidence matrix (Krippendorff 2011).

    Each item with m_u ≥ 2 values adds 1/(m_u − 1) to o_ck for every ordered pair of its values
    from different raters; n_c = Σ_k o_ck, n = Σ_c n_c. Then

        α = 1 − (n − 1) Σ_ck o_ck δ²_ck / Σ_ck n_c n_k δ²_ck

    with δ² nominal (0/1), ordinal (rank distance on the marginals), interval ((c−k)²) or ratio
    (((c−k)/(c+k))²). Items with fewer than two values are not pairable and are left out.
    No variation (expected disagreement 0) gives NaN with a warning.

    Args:
        ratings: ``rater -> {item: value}``; a missing item, ``None`` or NaN is no rating.
        level: ``"nominal"``, ``"ordinal"``, ``"interval"`` or ``"ratio"``; all but nominal
            need numeric values.
        machine_raters: rater ids to leave out (models, LLMs); ids not in ``ratings`` are
            ignored, so a study-wide list can be passed.

    Returns:
        α, method ``"krippendorff_alpha:<level>"``, band on the κ scale.

    Raises:
        InvalidInputError: an unknown level, malformed ``ratings``, or a non-numeric value at a
            numeric level.
    """
    choose(level, KRIPPENDORFF_LEVELS, "Krippendorff level")
    return _krippendorff(_prepare(ratings, machine_raters, numeric=level != "nominal"), level)


def _krippendorff(table: _Table, level: str) -> Agreement:
    numeric = level != "nominal"
    method = f"krippendorff_alpha:{level}"
    if len(table.raters) < 2:
        return _undefined(method, "kappa", table, WARN_FEWER_THAN_TWO_RATERS)
    units = []
    for item in table.items:
        vals = [table.values[r][item] for r in table.raters_of(item)]
        if len(vals) >= 2:
            units.append(vals)
    if not units:
        return _undefined(method, "kappa", table, WARN_NO_SHARED_ITEMS)
    labels = [v for u in units for v in u]
    domain = sorted(set(labels)) if numeric else list(dict.fromkeys(labels))
    index = {v: i for i, v in enumerate(domain)}
    m = len(domain)
    # Per unit: (outer(counts, counts) - diag(counts)) / (m_u - 1); added up unit by unit
    # (a cumulative sum adds in that order, so the result does not depend on batching).
    sizes = np.array([len(u) for u in units])
    codes = np.array([index[v] for u in units for v in u])
    unit_of = np.repeat(np.arange(len(units)), sizes)
    counts = np.bincount(unit_of * m + codes, minlength=len(units) * m)
    counts = counts.reshape(len(units), m).astype(float)
    pairs = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(m)
    coincidence = np.cumsum(pairs / (sizes - 1)[:, None, None], axis=0)[-1]
    marginals = coincidence.sum(axis=1)
    n = float(marginals.sum())
    d2 = _delta2(domain, marginals, level)
    observed = float((coincidence * d2).sum())
    expected = float((np.outer(marginals, marginals) * d2).sum())
    n_items = len(units)
    warnings = _size_warnings(n_items)
    skew, top = _skew_warnings(labels)
    warnings += skew
    if n_items < len(table.items):
        warnings.append(WARN_DROPPED_ITEMS)
    if expected <= 0.0:
        value = math.nan
        warnings.insert(0, WARN_ONE_CATEGORY)
    else:
        value = 1.0 - (n - 1.0) * observed / expected
    details = {
        "level": level,
        "n_pairable_values": n,
        "observed_disagreement": observed / n,
        "expected_disagreement": expected / (n * (n - 1.0)) if n > 1 else math.nan,
        "n_items_total": len(table.items),
        "n_items_dropped": len(table.items) - n_items,
        "top_category_share": top,
    }
    return _result(value, method, "kappa", table, n_items, warnings, details)
