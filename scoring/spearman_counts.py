"""STS's bootstrap Spearman of rank codes, from how often each item is drawn.

Why: an STS subset's three bootstraps (the aggregate, each annotator) spent ~1.7 ms each
gathering 2,000 resamples of (gold code, rating code) pairs and counting every code in every
resample (:func:`scoring.kernels.spearman_of_codes`), about a sixth of an export's scoring
(issue 38). From the draw counts ``c`` (resample × item) the same sums need no gathering:

* an item's average rank, less one half, is the draws of lower codes plus half the draws of its
  own code. With the items sorted by code and ``S`` the running totals of their draw counts,
  twice that is ``S[end of its code] + S[start of its code]``, called ``T`` here;
* the centred ranks' sums are then ``Σ c·Ta·Tb / 4 − n³ / 4`` (and alike for a·a and b·b),
  since the ranks, less one half, sum to n² / 2 over the n draws of a resample.

Every term is a whole number (``T`` and ``c`` are; the sums are below 4·n³), so the sums are
exact in integer arithmetic and, divided by 4, the very floats the gathered kernel sums (its
terms are multiples of 1/4, exact in any order): the same correlations bit for bit
(``tests/scoring/test_spearman_counts.py`` compares them, and both with
``scipy.stats.spearmanr``). The arrays are laid out item by item (a row per item, a column per
resample), so the running totals are 40 additions of whole rows rather than 2,000 short scans,
and int32 (half the bytes of float64) wherever 4·n³ fits it.

Tried and left out before (``scoring/resample_counts.py``): the per-code counts as a matrix
product, which OpenBLAS spreads over threads (more CPU on a shared machine), and the running
totals along each resample (a cumulative sum along the short axis, slower than the gathered
kernel). And the panel's memo of each annotator's resampled values is lost on this path (it
keys on gathered index rows), so the values are kept here instead, per records and draw-count
matrix (:func:`spearman_of_code_counts`), and the full sample's too, for one subset's
evaluation (:func:`scoring.score_memo.kept`): the mean annotator's bootstrap takes each
annotator's values from their own bootstrap, as it did through the memo.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import numpy as np

import scoring.score_memo as score_memo

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["spearman_of_code_counts"]

#: Largest 4·n³ (n draws a resample) summed in int32; above it the sums are int64.
_INT32_LIMIT = 2**31 - 1
#: Largest 4·n³ kept exact once the sums are floats (float64 holds whole numbers below 2**53).
_FLOAT_LIMIT = 2**53
#: Below this many resamples np.cumsum is faster than adding whole rows (the full sample and
#: the jackknife; measured: 7 µs against 35 µs at 40 rows, 221 µs against 53 µs at 2,000).
_SHORT_ROWS = 300
#: Largest rows × items² taken by a matrix product (:func:`_sums_by_product`): OpenBLAS keeps
#: a product of m·n·k ≤ 4·65,536 on one thread.
_FEW = 1 << 16
#: How many draw-count transposes and work arrays are kept (a study's few item counts).
_KEPT = 8

#: Stands for the full sample's counts (one row of ones) in the kept values' keys.
_WHOLE = object()
#: draw-count matrix id -> (the matrix, its int transpose, each row's draws); the matrix is held
#: so that its id is not reused while the entry lives.
_transposed: OrderedDict[int, tuple[NDArray[Any], NDArray[Any], NDArray[Any]]] = OrderedDict()


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    cache[key] = value
    while len(cache) > _KEPT:
        cache.popitem(last=False)


def _items_by_resample(counts: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]] | None:
    """``counts`` transposed, (items, resamples), as whole numbers, and each row's draws.

    None where the counts are not whole numbers or so many that the sums leave float64's whole
    numbers. int32 where 4·n³ fits it, else int64. A read-only matrix (the bootstrap's cached
    draw counts) is converted once and kept.
    """
    kept = _transposed.get(id(counts))
    if kept is not None and kept[0] is counts:
        return kept[1], kept[2]
    drawn = counts.sum(axis=1)
    top = 4 * float(drawn.max()) ** 3
    if not top < _FLOAT_LIMIT:  # NaN counts too
        return None
    dtype = np.int32 if top <= _INT32_LIMIT else np.int64
    with np.errstate(invalid="ignore"):  # NaN or huge counts: caught just below
        whole = np.ascontiguousarray(counts.T, dtype=dtype)
    if not np.array_equal(whole, counts.T):
        return None
    if not counts.flags.writeable:
        _remember(_transposed, id(counts), (counts, whole, drawn))
    return whole, drawn


class _Work:
    """Work arrays of one shape, (items, resamples), kept from one bootstrap to the next.

    Why: a 2,000-resample STS bootstrap needs half a dozen arrays of 40 × 2,000 integers,
    320 KB each. Allocated afresh, glibc maps them and, once freed, trims them back to the
    system, so every call faulted its pages in again: 1.2 ms a call, two thirds of it page
    faults (issue 38's earlier round met the same with the gathered kernel). Kept, they cost
    the arithmetic only. Not thread-safe, like the rest of an export.
    """

    def __init__(self, n_items: int, rows: int, dtype: Any) -> None:
        self.sorted = np.empty((n_items, rows), dtype=dtype)
        self.totals = np.zeros((n_items + 1, rows), dtype=dtype)  # row 0 stays 0
        self.twice = (np.empty((n_items, rows), dtype=dtype), np.empty((n_items, rows), dtype))
        self.scratch = np.empty((n_items, rows), dtype=dtype)


#: (items, resamples, dtype) -> its work arrays, for the few shapes a study's bootstraps use.
_work: OrderedDict[tuple[int, int, str], _Work] = OrderedDict()


def _work_for(draws: NDArray[Any]) -> _Work:
    key = (draws.shape[0], draws.shape[1], draws.dtype.str)
    work = _work.get(key)
    if work is None:
        work = _Work(draws.shape[0], draws.shape[1], draws.dtype)
        _remember(_work, key, work)
    return work


def _twice_mid_ranks(
    codes: NDArray[Any], draws: NDArray[Any], work: _Work, out: NDArray[Any]
) -> NDArray[Any]:
    """``T`` into ``out``: per item and resample, twice (its average rank − 1/2).

    ``draws`` and ``out`` are (items, resamples). Sorted by code, ``S[k]`` is the draws of the
    first k items; an item of a code spanning sorted places lo … hi − 1 has
    ``T = S[hi] + S[lo]``.
    """
    order = np.argsort(codes, kind="stable")
    ranked = codes[order]
    lo = np.empty(len(codes), dtype=np.intp)
    hi = np.empty(len(codes), dtype=np.intp)
    lo[order] = np.searchsorted(ranked, ranked, side="left")
    hi[order] = np.searchsorted(ranked, ranked, side="right")
    # mode="clip" (the indices are valid): with "raise" np.take buffers ``out`` afresh
    sorted_draws = np.take(draws, order, axis=0, out=work.sorted, mode="clip")
    totals = work.totals
    if draws.shape[1] < _SHORT_ROWS:
        np.cumsum(sorted_draws, axis=0, out=totals[1:])
    else:  # whole rows at a time: np.cumsum runs down each column, ten times slower here
        for k in range(len(codes)):
            np.add(totals[k], sorted_draws[k], out=totals[k + 1])
    np.take(totals, hi, axis=0, out=out, mode="clip")
    np.add(out, np.take(totals, lo, axis=0, out=work.scratch, mode="clip"), out=out)
    return out


def _below_twice(codes: NDArray[Any]) -> NDArray[Any]:
    """``K[k, i] = 2·[code k < code i] + [code k = code i]``, floats: ``T = counts @ K``."""
    lower = codes[:, None] < codes[None, :]
    same = codes[:, None] == codes[None, :]
    k: NDArray[Any] = lower * 2.0 + same
    return k


def _sums_by_product(
    codes: NDArray[Any], counts: NDArray[Any]
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """Σ c·T·T' of each row (a·a, b·b, a·b) with ``T = counts @ K``, for a few rows.

    Every term is a whole number below 2**53, so the matrix product and the sums are exact in
    float64 in any order; at these sizes (rows × items² ≤ :data:`_FEW`) OpenBLAS runs the
    product on one thread. A dozen array operations where the running totals take ~90
    (the full sample and the jackknife of every STS bootstrap).
    """
    n_items = codes.shape[0]
    t = counts @ np.concatenate([_below_twice(codes[:, 0]), _below_twice(codes[:, 1])], axis=1)
    ta, tb = t[:, :n_items], t[:, n_items:]
    weighted = counts * ta
    return (
        np.einsum("ri,ri->r", weighted, ta),
        np.einsum("ri,ri->r", counts * tb, tb),
        np.einsum("ri,ri->r", weighted, tb),
    )


def _sums_by_totals(
    codes: NDArray[Any], draws: NDArray[Any]
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """Σ c·T·T' of each resample (a·a, b·b, a·b) from the running totals, exact in integers."""
    work = _work_for(draws)
    ta = _twice_mid_ranks(codes[:, 0], draws, work, work.twice[0])
    tb = _twice_mid_ranks(codes[:, 1], draws, work, work.twice[1])
    weighted = np.multiply(draws, ta, out=work.scratch)
    saa = np.einsum("ir,ir->r", weighted, ta)
    sab = np.einsum("ir,ir->r", weighted, tb)
    weighted = np.multiply(draws, tb, out=work.scratch)
    sbb = np.einsum("ir,ir->r", weighted, tb)
    return saa, sbb, sab


def _compute(codes: NDArray[Any], counts: NDArray[Any]) -> NDArray[Any] | None:
    rows, n_items = counts.shape
    if rows == 0:
        return None
    if counts.flags.writeable and rows * n_items * n_items <= _FEW:
        drawn = counts.sum(axis=1)
        if not 4 * float(drawn.max()) ** 3 < _FLOAT_LIMIT:  # NaN counts too
            return None
        if not (counts == np.floor(counts)).all():
            return None
        saa4, sbb4, sab4 = _sums_by_product(codes, counts)
    else:
        prepared = _items_by_resample(counts)
        if prepared is None:
            return None
        draws, drawn = prepared
        saa4, sbb4, sab4 = _sums_by_totals(codes, draws)
    n = drawn.astype(np.float64)
    shift = n**3 / 4
    # Σ c·T·T', exact, / 4 (exact) less n³ / 4 (exact): the centred ranks' sums
    saa, sbb, sab = saa4 / 4 - shift, sbb4 / 4 - shift, sab4 / 4 - shift
    # np.corrcoef's last steps, as the gathered kernel takes them
    f = np.true_divide(1, n - 1)
    caa, cbb, cab = saa * f, sbb * f, sab * f
    with np.errstate(all="ignore"):
        rho = np.clip(cab / np.sqrt(caa) / np.sqrt(cbb), -1.0, 1.0)
    values: NDArray[Any] = np.where((caa == 0) | (cbb == 0), np.nan, rho)
    return values


def spearman_of_code_counts(records: Any, counts: NDArray[Any]) -> NDArray[Any] | None:
    """:func:`scoring.kernels.spearman_of_codes` of each row's resample, from the draw counts.

    Args:
        records: (gold code, rating code) pairs, shape (items, 2), whole numbers
            (:func:`scoring.kernels.rank_codes`).
        counts: how often each item is drawn, shape (resamples, items).

    Returns:
        One rho per resample (NaN where a side is constant), the floats the gathered kernel
        gives; None where this form cannot promise them (records that are not integer codes,
        counts that are not whole numbers, or so many draws that the sums leave float64's
        whole numbers): the caller then gathers the records.
    """
    codes = np.asarray(records)
    if codes.ndim != 2 or codes.shape[1] != 2 or codes.dtype.kind not in "iu":
        return None
    if counts.ndim != 2 or counts.shape[1] != codes.shape[0] or codes.shape[0] < 1:
        return None
    if not counts.flags.writeable:
        source: Any = counts  # the matrix itself is kept with its values, so its id stays its
    elif counts.shape[0] == 1 and bool((counts == 1).all()):
        source = _WHOLE  # the full sample: every bootstrap of these records asks for it
    else:
        return _compute(codes, counts)
    key = (codes.dtype.str, codes.shape, codes.tobytes(), id(source))

    def compute() -> tuple[Any, NDArray[Any] | None]:
        values = _compute(codes, counts)
        if values is not None:
            values.setflags(write=False)
        return source, values

    kept_source, values = score_memo.kept("spearman_counts.values", key, compute)
    if kept_source is not source:  # another matrix under a reused id: not these values
        return compute()[1]
    return values
