"""Bootstrap statistics taken from how often each item is drawn, not from the drawn records.

Why: most of an export's bootstraps are accuracies, the mean of per-item hits (1.0 or 0.0) over
2,000 resamples of 30 items (issue 38). Gathering ``records[idx]`` (60,000 values) and averaging
it costs ten times what the statistic needs: a resample's sum of hits is ``counts @ hits``,
with ``counts[r, i]`` how often item i is in resample r (one matrix per seed and item count,
shared by every bootstrap of the study). Where the records are whole numbers every partial sum
is a whole number below 2**53, exact in any order, so that sum and the gathered sum are the
same float, and so is the mean (the sum divided by the item count, as ``np.mean`` divides).

A vectorised statistic marked with :func:`counts_form` (it lives in :mod:`scoring.kernels`,
beside :func:`~scoring.kernels.vectorized`, and is re-exported here) carries such a form;
:func:`scoring.intervals.bootstrap` uses it for the resamples, the jackknife and the full
sample where it gives values, and the gathered records where it gives None.

STS's Spearman of rank codes has its own form over draw counts
(:mod:`scoring.spearman_counts`): running totals of the counts item by item, in integers, not
``counts @ onehot(codes)``, a matrix product that OpenBLAS spreads over threads, which cost more
CPU than the gathered kernel on a shared machine (16 ms against 6 ms a bootstrap; 4 ms on one
thread).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from scoring.kernels import counts_form, counts_form_of

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "MAX_WHOLE",
    "counts_form",
    "counts_form_of",
    "mean_of_whole_records",
]

#: Largest magnitude of a record :func:`mean_of_whole_records` takes: with at most 2**21 items
#: drawn per resample, a sum stays below 2**53, where float64 holds every whole number.
MAX_WHOLE = 2.0**31


def mean_of_whole_records(records: Any, counts: NDArray[Any]) -> NDArray[Any] | None:
    """Each row's mean of ``records`` drawn ``counts`` times: ``np.mean(records[idx], axis=-1)``.

    Args:
        records: one number per item (1-D).
        counts: how often each item is drawn, shape (rows, items), every row summing to the
            same number of draws.

    Returns:
        One mean per row, the same floats as the gathered mean; None unless the records are
        whole numbers of magnitude below :data:`MAX_WHOLE` in a 1-D float or integer array.
    """
    if not isinstance(records, np.ndarray) or records.ndim != 1 or records.dtype.kind not in "fiu":
        return None
    values = records.astype(np.float64, copy=False)
    if not (np.abs(values) < MAX_WHOLE).all() or not (values == np.floor(values)).all():
        return None
    drawn = int(counts[0].sum()) if counts.shape[0] else 0
    sums: NDArray[Any] = counts @ values
    return sums / drawn
