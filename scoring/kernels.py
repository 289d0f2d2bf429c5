"""The scikit-learn and SciPy metrics the report uses, as plain NumPy on validated arrays.

Why: an export scores every annotator, LLM and model on every subset, and each call of
``sklearn.metrics.*`` spends milliseconds validating its input (type of target, array-API
namespace, dataframe checks) for microseconds of arithmetic; scipy.stats adds its own
dispatch layers. :mod:`scoring.metrics` and :mod:`scoring.agreement` validate their input once,
in their own terms, then call these kernels.

Each kernel performs its library's own floating-point operations in the same order, so the
numbers are the library's to the last bit, not merely close (``tests/scoring/test_kernels.py``
compares them on random and edge cases): the report's digits do not change. The libraries'
versions are those of the lock file; a kernel names the function it stands for.

Inputs are 1-D NumPy arrays already checked by the caller (same length, at least one value,
finite numbers where numbers are expected); nothing here raises on user input.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from scoring._lazy import LazyModule

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
else:
    np = LazyModule("numpy")
__all__ = [
    "EPS",
    "adjusted_rand",
    "average_precision",
    "average_precision_rows",
    "average_ranks",
    "classification_scores",
    "clustering_scores",
    "contingency",
    "counts_form",
    "counts_form_of",
    "entropy",
    "expected_mutual_info",
    "is_vectorized",
    "kendall_tau_b",
    "mutual_info",
    "pearson",
    "rank_codes",
    "spearman",
    "spearman_of_codes",
    "spearman_of_resamples",
    "vectorized",
]

special = LazyModule("scipy.special")

EPS = 2.220446049250313e-16  # np.finfo(np.float64).eps


# --------------------------------------------------------------------------------------------
# classification: sklearn.metrics.accuracy_score, precision/recall/f1 (macro, weighted)
# --------------------------------------------------------------------------------------------


def _prf_divide(num: NDArray[Any], den: NDArray[Any]) -> NDArray[Any]:
    """``num / den`` as float64, 0 where ``den`` is 0 (sklearn's ``zero_division=0``)."""
    mask = den == 0
    den = np.asarray(den, dtype=np.float64).copy()
    den[mask] = 1
    out = np.asarray(num, dtype=np.float64) / den
    out[mask] = 0.0
    return out


def classification_scores(gold: NDArray[Any], pred: NDArray[Any]) -> dict[str, float]:
    """Accuracy and macro/weighted precision, recall and F1, as scikit-learn gives them.

    Over the labels either side uses (sorted, as ``sklearn.utils.multiclass.unique_labels``),
    ``zero_division=0``.

    Args:
        gold: the true labels (1-D).
        pred: the predicted labels, aligned with ``gold``.

    Returns:
        ``accuracy``, ``f1``, ``f1_weighted``, ``precision``, ``precision_weighted``,
        ``recall``, ``recall_weighted`` (macro without suffix, as MTEB names them).
    """
    n = len(gold)
    if gold.dtype.kind == "U" and pred.dtype.kind == "U":
        # np.unique's sorted codes, from Python's sort (the same code-point order for str) and
        # one dict: a third of this function's time for the few dozen labels of a subset
        both = gold.tolist() + pred.tolist()
        code = {label: c for c, label in enumerate(sorted(set(both)))}
        inverse = np.fromiter(map(code.__getitem__, both), np.intp, len(both))
        k = len(code)
    else:
        labels, inverse = np.unique(np.concatenate([gold, pred]), return_inverse=True)
        k = len(labels)
    g, p = inverse[:n], inverse[n:]
    true_sum = np.bincount(g, minlength=k)
    pred_sum = np.bincount(p, minlength=k)
    tp_sum = np.bincount(g[g == p], minlength=k)
    precision = _prf_divide(tp_sum, pred_sum)
    recall = _prf_divide(tp_sum, true_sum)
    # beta = 1: (1 + beta²) tp / (beta² true + pred), in float64
    f1 = _prf_divide(
        2.0 * tp_sum.astype(np.float64),
        1.0 * true_sum.astype(np.float64) + pred_sum.astype(np.float64),
    )
    # np.average and np.nanmean (no NaN here) as sklearn calls them, without their dispatch:
    # the same sums and divisions.
    out = {"accuracy": float(np.count_nonzero(g == p) / n)}
    weights = true_sum.astype(np.float64)
    scale = weights.sum()
    for name, values in (("f1", f1), ("precision", precision), ("recall", recall)):
        out[name] = float(values.sum() / k)
        out[f"{name}_weighted"] = float((values * weights).sum() / scale)
    return out


# --------------------------------------------------------------------------------------------
# clustering: sklearn.metrics.cluster (contingency, entropy, MI, EMI, ARI, AMI, V-measure)
# --------------------------------------------------------------------------------------------


def contingency(x: NDArray[Any], y: NDArray[Any]) -> NDArray[Any]:
    """Dense int64 contingency table, classes of ``x`` (sorted) by classes of ``y`` (sorted).

    Args:
        x: one labelling (1-D).
        y: another labelling of the same items.

    Returns:
        The table, shape (classes of x, classes of y).
    """
    cx, ix = np.unique(x, return_inverse=True)
    cy, iy = np.unique(y, return_inverse=True)
    flat = np.bincount(ix * len(cy) + iy, minlength=len(cx) * len(cy))
    return flat.reshape(len(cx), len(cy)).astype(np.int64)


def entropy(labels: NDArray[Any]) -> float:
    """Shannon entropy (nats) of a labelling (sklearn's ``_entropy``).

    Args:
        labels: one label per item (1-D).

    Returns:
        The entropy; 1.0 for no labels and 0.0 for one class, as scikit-learn returns.
    """
    if len(labels) == 0:
        return 1.0
    pi = np.unique(labels, return_counts=True)[1].astype(np.float64)
    if pi.size == 1:
        return 0.0
    pi_sum = np.sum(pi)
    return float(-np.sum((pi / pi_sum) * (np.log(pi) - math.log(pi_sum))))


def mutual_info(table: NDArray[Any]) -> float:
    """Mutual information (nats) of a contingency table (``mutual_info_score``).

    Args:
        table: a contingency table, as :func:`contingency` gives.

    Returns:
        The mutual information, clipped at 0.
    """
    nzx, nzy = np.nonzero(table)
    nz_val = table[nzx, nzy]
    total = table.sum()
    pi = np.ravel(table.sum(axis=1))
    pj = np.ravel(table.sum(axis=0))
    if pi.size == 1 or pj.size == 1:
        return 0.0
    log_contingency_nm = np.log(nz_val)
    contingency_nm = nz_val / total
    outer = pi.take(nzx).astype(np.int64, copy=False) * pj.take(nzy).astype(np.int64, copy=False)
    log_outer = -np.log(outer) + math.log(pi.sum()) + math.log(pj.sum())
    mi = contingency_nm * (log_contingency_nm - math.log(total)) + contingency_nm * log_outer
    mi = np.where(np.abs(mi) < EPS, 0.0, mi)
    return float(np.clip(mi.sum(), 0.0, None))


@cache
def _c_lgamma() -> Any:
    """The C library's ``lgamma`` (what scikit-learn's compiled EMI calls), else Python's."""
    try:
        fn = ctypes.CDLL(None).lgamma
    except (AttributeError, OSError):  # pragma: no cover - platforms without a global libm
        return math.lgamma
    fn.restype = ctypes.c_double
    fn.argtypes = [ctypes.c_double]
    return fn


def expected_mutual_info(table: NDArray[Any], n_samples: int) -> float:
    """Expected mutual information under random labellings with the table's margins.

    scikit-learn's ``expected_mutual_information`` (Cython) step for step: the same log-gamma
    tables (SciPy's ``gammaln``), the C library's ``lgamma`` inside the sum, one running total
    in the same order. Why a table: the Cython loop, run in Python, called ``lgamma`` through
    ctypes three times per term (issue 38); ``lgamma(m)`` for each integer ``m`` up to
    ``n_samples + 1``, called once, gives the same floats for a list look-up (numpy's
    vectorised terms were slower on the few-item tables of a study, and as exact).

    Args:
        table: a contingency table, as :func:`contingency` gives.
        n_samples: the number of items (the table's total).

    Returns:
        The expected mutual information (nats).
    """
    a = np.ravel(table.sum(axis=1).astype(np.int64, copy=False))
    b = np.ravel(table.sum(axis=0).astype(np.int64, copy=False))
    if a.size == 1 or b.size == 1:
        return 0.0
    nijs = np.arange(0, max(np.max(a), np.max(b)) + 1, dtype="float")
    nijs[0] = 1
    term1 = (nijs / n_samples).tolist()
    log_a = np.log(a).tolist()
    log_b = np.log(b).tolist()
    log_nnij = (np.log(n_samples) + np.log(nijs)).tolist()
    gln_a = special.gammaln(a + 1).tolist()
    gln_b = special.gammaln(b + 1).tolist()
    gln_na = special.gammaln(n_samples - a + 1).tolist()
    gln_nb = special.gammaln(n_samples - b + 1).tolist()
    gln_nnij = (special.gammaln(nijs + 1) + special.gammaln(n_samples + 1)).tolist()
    # lgamma(m) at index m, for m = 1 .. n_samples + 1 (the largest argument any term needs)
    log_gamma = [math.inf, *map(_c_lgamma(), range(1, n_samples + 2))]
    exp = math.exp
    a_l, b_l = a.tolist(), b.tolist()
    emi = 0.0
    for i, ai in enumerate(a_l):
        for j, bj in enumerate(b_l):
            head = gln_a[i] + gln_b[j] + gln_na[i] + gln_nb[j]
            rest = n_samples - ai - bj + 1
            for nij in range(max(1, ai - n_samples + bj), min(ai, bj) + 1):
                term2 = log_nnij[nij] - log_a[i] - log_b[j]
                gln = (
                    head
                    - gln_nnij[nij]
                    - log_gamma[ai - nij + 1]
                    - log_gamma[bj - nij + 1]
                    - log_gamma[rest + nij]
                )
                emi += term1[nij] * term2 * exp(gln)
    return emi


def adjusted_rand(x: NDArray[Any], y: NDArray[Any]) -> float:
    """Adjusted Rand index (``adjusted_rand_score``), from exact integer pair counts.

    Args:
        x: one labelling, integer codes (1-D).
        y: another labelling of the same items.

    Returns:
        The index; 1.0 where no pair of items is joined by one side and split by the other.
    """
    table = contingency(x, y)
    n = np.int64(len(x))
    n_c = np.ravel(table.sum(axis=1))
    n_k = np.ravel(table.sum(axis=0))
    sum_squares = (table**2).sum()
    tp = int(sum_squares - n)
    fp = int(table.dot(n_k).sum() - sum_squares)
    fn = int(table.T.dot(n_c).sum() - sum_squares)
    tn = int(n**2 - fp - fn - sum_squares)
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def clustering_scores(gold: NDArray[Any], pred: NDArray[Any]) -> dict[str, float]:
    """V-measure, homogeneity and completeness (beta = 1), ARI and AMI (arithmetic normaliser).

    As ``homogeneity_completeness_v_measure``, ``adjusted_rand_score`` and
    ``adjusted_mutual_info_score`` give them.

    Args:
        gold: the true clusters (1-D).
        pred: the predicted clusters, aligned with ``gold``.

    Returns:
        ``v_measure``, ``homogeneity``, ``completeness``, ``ari`` and ``ami``.
    """
    table = contingency(gold, pred)
    h_true, h_pred = entropy(gold), entropy(pred)
    mi = mutual_info(table)
    homogeneity = mi / h_true if h_true else 1.0
    completeness = mi / h_pred if h_pred else 1.0
    beta = 1.0
    if homogeneity + completeness == 0.0:
        v = 0.0
    else:
        v = (1 + beta) * homogeneity * completeness / (beta * homogeneity + completeness)
    return {
        "v_measure": float(v),
        "homogeneity": float(homogeneity),
        "completeness": float(completeness),
        "ari": adjusted_rand(gold, pred),
        "ami": _ami(table, len(gold), mi, h_true, h_pred),
    }


def _ami(table: NDArray[Any], n: int, mi: float, h_true: float, h_pred: float) -> float:
    n_classes, n_clusters = table.shape
    if n_classes == n_clusters == 1 or n_classes == n_clusters == 0:
        return 1.0
    if n_classes == 1 or n_clusters == 1:
        return 0.0
    emi = expected_mutual_info(table, n)
    denominator = float(np.mean([h_true, h_pred])) - emi
    numerator = mi - emi
    denominator = min(denominator, -EPS) if denominator < 0 else max(denominator, EPS)
    numerator = min(numerator, -EPS) if numerator < 0 else max(numerator, EPS)
    return float(numerator / denominator)


# --------------------------------------------------------------------------------------------
# ranking: sklearn.metrics.average_precision_score (binary relevance)
# --------------------------------------------------------------------------------------------


def average_precision(relevance: NDArray[Any], scores: NDArray[Any]) -> float:
    """scikit-learn's AP of binary ``relevance`` (1 = relevant) ranked by ``scores``.

    One threshold per distinct score, so a tie group is one step of the precision/recall curve.

    Args:
        relevance: 1 for a relevant item, 0 otherwise (1-D), with at least one 1.
        scores: the ranking scores, higher first.

    Returns:
        The average precision.
    """
    order = np.argsort(scores, kind="stable")[::-1]
    s = scores[order]
    y = (relevance[order] == 1).astype(np.float64)
    idx = np.concatenate([np.nonzero(np.diff(s))[0], [len(y) - 1]])
    tps = np.cumsum(y, dtype=np.float64)[idx]
    fps = 1 + idx.astype(np.float64) - tps
    ps = tps + fps
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(ps != 0, np.divide(tps, ps), 0.0)
    recall = np.full(tps.shape, 1.0) if tps[-1] == 0 else tps / tps[-1]
    precision = np.concatenate([np.flip(precision), [1.0]])
    recall = np.concatenate([np.flip(recall), [0.0]])
    return float(max(0.0, -np.sum(np.diff(recall) * precision[:-1])))


#: Most distinct score values :func:`average_precision_rows` handles without a per-row loop:
#: below 8 terms numpy sums a row one term after the other, which a column loop repeats.
_ROW_LEVELS = 7


def average_precision_rows(relevance: NDArray[Any], scores: NDArray[Any]) -> NDArray[Any]:
    """:func:`average_precision` of each row of 2-D ``relevance`` and ``scores``, the same float.

    With few distinct scores (vote shares: at most one more than the annotators) every row's
    thresholds are among those levels: per row and level, the items and relevant items at the
    level give the precision and recall at each threshold, and the curve's terms are added
    lowest level first, as the row's own sum adds them.

    Args:
        relevance: 0/1 per item, one row per sample (2-D).
        scores: the ranking scores, the shape of ``relevance``.

    Returns:
        One AP per row; NaN for a row without a relevant item.
    """
    relevance = np.asarray(relevance)
    scores = np.asarray(scores, dtype=np.float64)
    levels, codes = np.unique(scores, return_inverse=True)
    rows, n = scores.shape
    if len(levels) > _ROW_LEVELS:
        return np.array([_ap_or_nan(r, s) for r, s in zip(relevance, scores, strict=True)])
    codes = codes.reshape(rows, n)
    m = len(levels)
    offsets = np.arange(rows)[:, None] * m
    count = np.bincount((offsets + codes).ravel(), minlength=rows * m).reshape(rows, m)
    hits = (relevance == 1).astype(np.float64)
    relevant = np.bincount((offsets + codes).ravel(), weights=hits.ravel(), minlength=rows * m)
    relevant = relevant.reshape(rows, m)
    # thresholds from the highest level down: cumulative counts from the top
    tps = np.cumsum(relevant[:, ::-1], axis=1)[:, ::-1]
    cum = np.cumsum(count[:, ::-1], axis=1)[:, ::-1].astype(np.float64)
    total = tps[:, :1]
    above = np.concatenate([tps[:, 1:], np.zeros((rows, 1))], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = tps / cum
        recall_step = above / total - tps / total
    present = count > 0
    value: NDArray[Any] = np.zeros(rows)
    for level in range(m):  # lowest level first, absent levels add nothing
        term = recall_step[:, level] * precision[:, level]
        value = np.where(present[:, level], value + term, value)
    ap = np.where(-value > 0.0, -value, 0.0)
    return np.where(total[:, 0] > 0, ap, np.nan)


def _ap_or_nan(relevance: NDArray[Any], scores: NDArray[Any]) -> float:
    return average_precision(relevance, scores) if np.any(relevance == 1) else math.nan


# --------------------------------------------------------------------------------------------
# correlations: scipy.stats.spearmanr, pearsonr, kendalltau (tau-b)
# --------------------------------------------------------------------------------------------


def average_ranks(x: NDArray[Any]) -> NDArray[Any]:
    """Ranks 1..n, ties given their mean rank (``rankdata(method="average")``).

    The values are multiples of 1/2, exact in float64.

    Args:
        x: the values (1-D).

    Returns:
        The rank of each value, in the order of ``x``.
    """
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    upper = np.cumsum(counts)
    ranks: NDArray[Any] = (upper - (counts - 1) / 2.0)[inverse]
    return ranks


def _constant(x: NDArray[Any]) -> bool:
    return bool(np.all(x == x[0]))


#: Longest vectors whose Spearman ρ :func:`spearman` counts in Python (faster up to ~300 values
#: on this machine: 27 against 143 µs at 40, 95 against 159 µs at 200).
SPEARMAN_IN_PYTHON = 256


def spearman(x: NDArray[Any], y: NDArray[Any]) -> tuple[float, float]:
    """Spearman's rho and its two-sided p-value (t distribution, n − 2 degrees of freedom).

    Args:
        x: one side's values (1-D).
        y: the other side's values, aligned with ``x``.

    Returns:
        (rho, p-value); NaN for both where either side is constant or n < 2 (as ``spearmanr``).
    """
    n = len(x)
    if n <= 1 or _constant(x) or _constant(y):
        return math.nan, math.nan
    if n <= SPEARMAN_IN_PYTHON:
        # the same steps on Python floats (scoring/rank_small.py), the same float: the NumPy
        # steps below cost ~140 µs whatever n, mostly set-up, and an STS export takes this
        # for every annotator, aggregate and agreement pair (issue 38)
        from scoring.rank_small import spearman_rho_small

        # a NumPy float, so that the p-value's steps below divide by zero as NumPy does
        rho = np.float64(spearman_rho_small(x.tolist(), y.tolist()))
    else:
        ranks = np.stack([average_ranks(x), average_ranks(y)])
        # np.corrcoef step for step; centred ranks are multiples of 1/2, so every sum is exact.
        centred = ranks - ranks.mean(axis=1, keepdims=True)
        c = np.dot(centred, centred.T) * np.true_divide(1, n - 1)
        sd = np.sqrt(np.diag(c))
        c /= sd[:, None]
        c /= sd[None, :]
        rho = np.clip(c, -1, 1)[1, 0]
    dof = n - 2
    with np.errstate(divide="ignore", invalid="ignore"):
        t = rho * np.sqrt(np.clip(dof / ((rho + 1.0) * (1.0 - rho)), 0, None))
    return float(rho), float(2 * special.stdtr(dof, -np.abs(t)))


def pearson(x: NDArray[Any], y: NDArray[Any]) -> tuple[float, float]:
    """Pearson's r and its two-sided p-value (``pearsonr``: centred, scaled vectors, beta law).

    Args:
        x: one side's values (1-D).
        y: the other side's values, aligned with ``x``.

    Returns:
        (r, p-value); NaN for both where a side is constant; r = ±1, p = 1 for n = 2.
    """
    if _constant(x) or _constant(y):
        return math.nan, math.nan
    n = np.asarray(len(x), dtype=np.float64)
    xm = x - np.mean(x, axis=-1, keepdims=True)
    ym = y - np.mean(y, axis=-1, keepdims=True)
    xmax = np.max(np.abs(xm), axis=-1, keepdims=True)
    ymax = np.max(np.abs(ym), axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        normxm = xmax * np.linalg.norm(xm / xmax, ord=2, axis=-1, keepdims=True)
        normym = ymax * np.linalg.norm(ym / ymax, ord=2, axis=-1, keepdims=True)
        # numpy's stubs give vecdot no axis argument, though numpy 2 takes one
        r = np.clip(np.vecdot(xm / normxm, ym / normym, axis=-1), -1.0, 1.0)  # type: ignore[call-overload]
    if n == 2:
        return float(np.round(r)), 1.0
    ab = np.asarray(n / 2 - 1, dtype=np.float64)
    pvalue = 2 * special.betaincc(ab, ab, (np.abs(r) - -1) / 2)
    return float(r), float(pvalue)


def kendall_tau_b(x: NDArray[Any], y: NDArray[Any]) -> float:
    """Kendall's tau-b (``kendalltau``'s statistic), from exact integer pair counts.

    Args:
        x: one side's values (1-D).
        y: the other side's values, aligned with ``x``.

    Returns:
        τ-b; NaN where either side is constant or empty.
    """
    size = len(x)
    if size == 0:
        return math.nan
    i, j = np.triu_indices(size, k=1)
    dx = np.sign(x[i] - x[j])
    dy = np.sign(y[i] - y[j])
    tot = (size * (size - 1)) // 2
    xtie = int(np.count_nonzero(dx == 0))
    ytie = int(np.count_nonzero(dy == 0))
    if xtie == tot or ytie == tot:
        return math.nan
    con_minus_dis = int(np.sum(dx * dy))
    tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    return float(np.minimum(1.0, max(-1.0, tau)))


# --------------------------------------------------------------------------------------------
# Spearman over stacks of resamples: the bootstrap's statistics for STS and reranking
# --------------------------------------------------------------------------------------------


def vectorized(statistic: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Mark ``statistic`` as taking a stack of resamples and giving one value per resample.

    A marked statistic takes shape (resamples, items, ...), so
    :func:`scoring.intervals.bootstrap` may call it once per batch (``vectorized=True``)
    instead of once per resample; unmarked statistics take one resample. The mark lives here,
    beside the kernels it marks, so that this module imports nothing heavy.

    Args:
        statistic: the function to mark (it is marked in place).

    Returns:
        ``statistic`` itself, so that this works as a decorator.
    """
    statistic.vectorized = True  # type: ignore[attr-defined]
    return statistic


def is_vectorized(statistic: Callable[[Any], Any]) -> bool:
    """Whether ``statistic`` was marked with :func:`vectorized`.

    Args:
        statistic: a bootstrap statistic.

    Returns:
        True for a marked statistic.
    """
    return bool(getattr(statistic, "vectorized", False))


#: A statistic's form over draw counts: ``(records, counts) -> values or None``.
CountsForm = Callable[[Any, "NDArray[Any]"], "NDArray[Any] | None"]


def counts_form(of_counts: CountsForm) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Mark a vectorised statistic with its form over draw counts.

    :func:`scoring.intervals.bootstrap` then takes the statistic from how often each item is
    drawn instead of from the drawn records (:mod:`scoring.resample_counts`). The mark lives
    here, beside :func:`vectorized`, for the same reason.

    Args:
        of_counts: ``(records, counts) -> values`` with ``counts`` shape (rows, items), the
            statistic of each row's resample of ``records``; or None where it cannot give the
            statistic's values bit for bit (then the records are gathered as usual).

    Returns:
        A decorator that marks the statistic in place and returns it.
    """

    def mark(statistic: Callable[[Any], Any]) -> Callable[[Any], Any]:
        statistic.of_counts = of_counts  # type: ignore[attr-defined]
        return statistic

    return mark


def counts_form_of(statistic: Callable[[Any], Any]) -> CountsForm | None:
    """The form over draw counts a statistic was marked with (:func:`counts_form`), or None.

    Args:
        statistic: a bootstrap statistic.

    Returns:
        Its ``of_counts`` function, or None.
    """
    form: CountsForm | None = getattr(statistic, "of_counts", None)
    return form


@vectorized
def spearman_of_resamples(x: NDArray[Any]) -> NDArray[Any]:
    """Spearman's rho of each resample of (gold, mean rating) pairs, shape (..., n, 2).

    ``np.corrcoef`` of the average ranks, step for step: centred ranks are multiples of 1/2, so
    their sums of products are exact in any order; then ``c * (1 / (n - 1))``, divided by each
    standard deviation in turn, clipped to [-1, 1].

    Args:
        x: resamples of (gold, rating) pairs, shape (..., n, 2).

    Returns:
        One rho per resample, shape (...); NaN where a column is constant.
    """
    from scipy.stats import rankdata

    ranks = rankdata(x, axis=-2)
    centred = ranks - ranks.mean(axis=-2, keepdims=True)
    a, b = centred[..., 0], centred[..., 1]
    sums = np.sum(a * a, axis=-1), np.sum(b * b, axis=-1), np.sum(a * b, axis=-1)
    return _rho_of_sums(*sums, x.shape[-2])


def _spearman_of_code_counts(records: Any, counts: NDArray[Any]) -> NDArray[Any] | None:
    """:func:`spearman_of_codes` from the draw counts (:mod:`scoring.spearman_counts`)."""
    from scoring.spearman_counts import spearman_of_code_counts

    return spearman_of_code_counts(records, counts)


@counts_form(_spearman_of_code_counts)
@vectorized
def spearman_of_codes(x: NDArray[Any]) -> NDArray[Any]:
    """:func:`spearman_of_resamples` for records whose two columns hold dense rank codes.

    The codes are whole numbers 0 … m − 1 (see :func:`rank_codes`): Spearman depends only on
    the order, so the value is the same, bit for bit. The average ranks come from counting each
    code in each resample instead of sorting every resample; the centred ranks' sums of squares
    from those counts (all terms are multiples of 1/4, so every sum is exact). A bootstrap takes
    it from the draw counts instead (its form over counts, :mod:`scoring.spearman_counts`, the
    same floats without gathering the records).

    Args:
        x: resamples of (gold code, rating code) pairs, shape (..., n, 2).

    Returns:
        One rho per resample, shape (...); NaN where a column is constant.
    """
    n = x.shape[-2]
    codes = x.reshape(-1, n, 2).astype(np.intp, copy=False)
    rows = codes.shape[0]
    squares, centred = [], []
    # One column at a time: every array is (resample, item) or (resample, code), where the
    # (resample, item, column) layout made each NumPy loop run over 2 values (issue 38).
    for column in (codes[..., 0], codes[..., 1]):
        m = int(column.max()) + 1
        cells = column + (np.arange(rows) * m)[:, None]  # (resample, code) as one index
        counts = np.bincount(cells.ravel(), minlength=rows * m).reshape(rows, m)
        # centred average rank of code v: (items below v) + (items equal to v + 1) / 2
        # − (n + 1) / 2 (the mean rank is (n + 1) / 2 exactly)
        dev = np.cumsum(counts, axis=1) - (counts - 1) / 2.0 - (n + 1) / 2.0
        squares.append(np.sum(counts * dev * dev, axis=1))
        centred.append(dev.ravel()[cells])  # (resample, item)
    cross = np.sum(centred[0] * centred[1], axis=-1)
    rho = _rho_of_sums(squares[0], squares[1], cross, n)
    return rho.reshape(x.shape[:-2])


def rank_codes(records: NDArray[Any]) -> NDArray[Any]:
    """Each column of ``records`` replaced by its dense rank code.

    Args:
        records: shape (n, k).

    Returns:
        Integer codes of the same shape: 0 for a column's smallest value, 1 for the next, …
        (equal values share a code).
    """
    out = np.empty(records.shape, dtype=np.intp)
    for c in range(records.shape[1]):
        out[:, c] = np.unique(records[:, c], return_inverse=True)[1]
    return out


def _rho_of_sums(saa: NDArray[Any], sbb: NDArray[Any], sab: NDArray[Any], n: int) -> NDArray[Any]:
    """``np.corrcoef``'s last steps from the centred ranks' sums of squares and products."""
    f = np.true_divide(1, n - 1)
    caa, cbb, cab = saa * f, sbb * f, sab * f
    with np.errstate(all="ignore"):
        rho = np.clip(cab / np.sqrt(caa) / np.sqrt(cbb), -1.0, 1.0)
    return np.where((caa == 0) | (cbb == 0), np.nan, rho)
