"""Spearman's ρ and Kendall's τ-b of a few values, in plain Python, bit for bit as the kernels.

Why: reranking agreement compares every pair of annotators on every shared query, a handful of
candidates each (7 in HUME's reranking sets). On vectors that short the NumPy kernels
(:func:`scoring.kernels.spearman`, :func:`scoring.kernels.kendall_tau_b`) spend their time in
array set-up, unique-sorting and index building, some 150 µs a comparison and a tenth of
scoring a reranking subset (issue 38). Here the same quantities are counted in Python:

- ρ: average ranks (ties get their mean rank), centred on (n + 1) / 2; every rank and centred
  rank is a multiple of 1/2 and every sum of their products a multiple of 1/4, exact in float64
  in any order, so the sums equal the kernel's; then its steps: c = sum · (1 / (n − 1)), the
  product divided by the second side's standard deviation, then by the first's
  (``np.corrcoef``'s order), clipped to [−1, 1];
- τ-b: the concordant-minus-discordant count and the tie counts are integers, then the kernel's
  ``(C − D) / sqrt(pairs − x ties) / sqrt(pairs − y ties)``, clipped.

IEEE square root and division are correctly rounded in both NumPy and Python, so the values
are the kernels' exactly; ``tests/scoring/test_rank_small.py`` compares them (and scipy's).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["MAX_SMALL", "kendall_tau_b_small", "spearman_rho_small"]

#: Longest vectors these functions are meant for; longer ones go to the NumPy kernels.
MAX_SMALL = 32


def _centred_ranks(x: Sequence[float]) -> list[float]:
    """Average ranks 1 … n (ties: their mean rank) less (n + 1) / 2, in the order of ``x``."""
    n = len(x)
    order = sorted(range(n), key=x.__getitem__)
    out = [0.0] * n
    start = 0
    while start < n:
        stop = start + 1
        while stop < n and x[order[stop]] == x[order[start]]:
            stop += 1
        # ranks start+1 … stop, mean (start + 1 + stop) / 2; centred: less (n + 1) / 2
        value = (start + 1 + stop) / 2.0 - (n + 1) / 2.0
        for k in range(start, stop):
            out[order[k]] = value
        start = stop
    return out


def spearman_rho_small(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's ρ of two aligned vectors of 2 or more values, neither constant.

    Args:
        x: one side's values (finite numbers).
        y: the other side's values, aligned with ``x``.

    Returns:
        ρ, the value of ``scoring.kernels.spearman(x, y)[0]``.
    """
    n = len(x)
    a, b = _centred_ranks(x), _centred_ranks(y)
    f = 1 / (n - 1)
    caa = sum(v * v for v in a) * f
    cbb = sum(v * v for v in b) * f
    cab = sum(u * v for u, v in zip(a, b, strict=True)) * f
    rho = cab / math.sqrt(cbb) / math.sqrt(caa)
    return min(max(rho, -1.0), 1.0)


def kendall_tau_b_small(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's τ-b of two aligned vectors, NaN where either is constant or empty.

    Args:
        x: one side's values (finite numbers).
        y: the other side's values, aligned with ``x``.

    Returns:
        τ-b, the value of ``scoring.kernels.kendall_tau_b(x, y)``.
    """
    size = len(x)
    if size == 0:
        return math.nan
    xtie = ytie = score = 0
    for i in range(size):
        xi, yi = x[i], y[i]
        for j in range(i + 1, size):
            dx = (xi > x[j]) - (xi < x[j])
            dy = (yi > y[j]) - (yi < y[j])
            xtie += dx == 0
            ytie += dy == 0
            score += dx * dy
    tot = (size * (size - 1)) // 2
    if xtie == tot or ytie == tot:
        return math.nan
    tau = score / math.sqrt(tot - xtie) / math.sqrt(tot - ytie)
    return min(1.0, max(-1.0, tau))
