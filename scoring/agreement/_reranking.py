"""Agreement on reranking marks, ``rater -> {query: {candidate: mark}}``, per query as HUME did."""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Mapping, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from scoring._lazy import LazyModule
from scoring.agreement._bands import Scale
from scoring.agreement._clustering_sts import _kendall, _spearman
from scoring.agreement._input import _clean_value, _is_missing, _Table
from scoring.agreement._pairwise import cohen_kappa
from scoring.agreement._result import (
    WARN_CONSTANT,
    WARN_DROPPED_ITEMS,
    WARN_FEWER_THAN_TWO_RATERS,
    WARN_NO_SHARED_ITEMS,
    WARN_ONE_CATEGORY,
    WARN_UNDEFINED_COMPARISONS,
    _mean,
    _result,
    _size_warnings,
    _skew_warnings,
    _undefined,
)
from scoring.errors import InvalidInputError
from scoring.rank_small import MAX_SMALL
from scoring.records import Agreement
from scoring.validation import choose

# Loaded on first use: the leaderboard imports the agreement package for its bands only.
if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")


RerankMarks = Mapping[Any, Mapping[Hashable, Mapping[Hashable, Any] | Sequence[Any]]]

_RERANK_STATS = ("spearman", "kendall_tau", "binary_kappa")


def _prepare_marks(
    marks: RerankMarks, machine_raters: Collection[Any]
) -> tuple[list[Any], dict[Any, dict[Hashable, dict[Hashable, float]]], list[Any]]:
    if not isinstance(marks, Mapping):
        raise InvalidInputError(
            "marks: expected a mapping rater -> {query: {candidate: mark}}, "
            f"got {type(marks).__name__}"
        )
    if len(marks) == 0:
        raise InvalidInputError("marks: no raters")
    if isinstance(machine_raters, str):
        raise InvalidInputError("machine_raters: expected a collection of rater ids, got a str")
    machines = set(machine_raters)
    raters, excluded = [], []
    out: dict[Any, dict[Hashable, dict[Hashable, float]]] = {}
    for rater, queries in marks.items():
        if not isinstance(queries, Mapping):
            raise InvalidInputError(f"rater {rater!r}: expected a mapping query -> marks")
        if rater in machines:
            excluded.append(rater)
            continue
        per_query: dict[Hashable, dict[Hashable, float]] = {}
        for query, cands in queries.items():
            if isinstance(cands, Mapping):
                pairs = list(cands.items())
            elif isinstance(cands, Sequence) and not isinstance(cands, str):
                pairs = list(enumerate(cands))
            else:
                raise InvalidInputError(
                    f"rater {rater!r}, query {query!r}: expected candidate marks, got {cands!r}"
                )
            # a plain int (the task type's marks) is a finite float, never missing: the
            # checks below would say so at ~1 µs a mark (issue 38)
            per_query[query] = {
                c: float(v) if type(v) is int else _clean_value(v, rater, (query, c), numeric=True)
                for c, v in pairs
                if type(v) is int or not _is_missing(v)
            }
        raters.append(rater)
        out[rater] = per_query
    return raters, out, excluded


def reranking_agreement(
    marks: RerankMarks,
    *,
    statistic: str = "spearman",
    machine_raters: Collection[Any] = (),
) -> Agreement:
    """Agreement on reranking marks, per query, the way HUME computed it.

    For every human rater pair and every query both marked, on the candidates both marked:
    Spearman ρ and Kendall τ-b between the marks, and Cohen's κ between the binary marks
    (mark > 0 = relevant). Undefined values (a rater with constant marks on that query) are left
    out; each statistic is the mean of its defined (pair, query) values. With binary marks ρ and
    τ-b coincide.

    Args:
        marks: ``rater -> {query: {candidate: mark}}`` (a sequence of marks is read by position).
        statistic: the headline ``value``: ``"spearman"``, ``"kendall_tau"`` or
            ``"binary_kappa"``.
        machine_raters: rater ids to leave out (models, LLMs).

    Returns:
        The agreement, method ``"reranking:mean_<statistic>"``; ``details`` always holds all
        three (``mean_spearman``, ``mean_kendall_tau``, ``mean_binary_kappa``), ``spearman_std``
        (population SD), ``n_comparisons`` (defined Spearman values) and ``pooled_binary_kappa``
        (κ over all (query, candidate) marks of a pair, mean over pairs).

    Raises:
        InvalidInputError: an unknown statistic, or malformed ``marks``.
    """
    return reranking_agreements(marks, statistics=(statistic,), machine_raters=machine_raters)[0]


def reranking_agreements(
    marks: RerankMarks,
    *,
    statistics: Sequence[str] = _RERANK_STATS,
    machine_raters: Collection[Any] = (),
) -> list[Agreement]:
    """:func:`reranking_agreement` for several statistics, from one pass over the comparisons.

    Each result is what the single call gives; the (pair, query) comparisons are made once.

    Args:
        marks: ``rater -> {query: {candidate: mark}}`` (a sequence of marks is read by position).
        statistics: which statistics, in the order wanted.
        machine_raters: rater ids to leave out (models, LLMs).

    Returns:
        One agreement per statistic, in the order of ``statistics``.

    Raises:
        InvalidInputError: an unknown statistic, or malformed ``marks``.
    """
    for statistic in statistics:
        choose(statistic, _RERANK_STATS, "reranking statistic")
    raters, values, excluded = _prepare_marks(marks, machine_raters)
    table = _Table(raters=raters, items=[], values={}, excluded=excluded)
    all_queries: dict[Hashable, None] = {}
    for r in raters:
        all_queries.update(dict.fromkeys(values[r]))
    table.items = list(all_queries)
    if len(raters) < 2:
        return [
            _undefined(f"reranking:mean_{s}", _rerank_scale(s), table, WARN_FEWER_THAN_TWO_RATERS)
            for s in statistics
        ]
    rho, tau, kap, pooled, n_undefined, used, binary_labels = _rerank_comparisons(raters, values)
    n_items = len(used)
    skew, top = _skew_warnings(binary_labels)
    pooled_defined = [p for p in pooled if math.isfinite(p)]
    out = []
    for statistic in statistics:
        method = f"reranking:mean_{statistic}"
        scale = _rerank_scale(statistic)
        if n_items == 0:
            out.append(_undefined(method, scale, table, WARN_NO_SHARED_ITEMS))
            continue
        chosen = {"spearman": rho, "kendall_tau": tau, "binary_kappa": kap}[statistic]
        warnings = _size_warnings(n_items)
        if statistic == "binary_kappa":
            warnings += skew
        if not chosen:
            warnings.insert(0, WARN_ONE_CATEGORY if statistic == "binary_kappa" else WARN_CONSTANT)
        elif n_undefined[statistic]:
            warnings.append(WARN_UNDEFINED_COMPARISONS)
        if n_items < len(table.items):
            warnings.append(WARN_DROPPED_ITEMS)
        details = {
            "statistic": statistic,
            "mean_spearman": _mean(rho),
            "mean_kendall_tau": _mean(tau),
            "mean_binary_kappa": _mean(kap),
            "spearman_std": float(np.std(rho)) if len(rho) > 1 else 0.0,
            "n_comparisons": len(rho),
            "n_kendall_comparisons": len(tau),
            "n_kappa_comparisons": len(kap),
            "n_undefined": dict(n_undefined),
            "pooled_binary_kappa": _mean(pooled_defined),
            "relevant_share": (
                (sum(binary_labels) / len(binary_labels)) if binary_labels else math.nan
            ),
            "top_category_share": top,
            "n_items_total": len(table.items),
        }
        out.append(_result(_mean(chosen), method, scale, table, n_items, warnings, details))
    return out


def _rerank_comparisons(
    raters: list[Any], values: dict[Any, dict[Hashable, dict[Hashable, float]]]
) -> tuple[
    list[float],
    list[float],
    list[float],
    list[float],
    dict[str, int],
    dict[Hashable, None],
    list[int],
]:
    """One pass over every (rater pair, shared query) with at least two shared candidates.

    Gives the defined ρ, τ-b and binary κ per comparison, each pair's pooled κ, how many were
    undefined, the queries used and every binary mark seen (for the skew warnings).
    """
    rho: list[float] = []
    tau: list[float] = []
    kap: list[float] = []
    pooled: list[float] = []
    n_undefined = {"spearman": 0, "kendall_tau": 0, "binary_kappa": 0}
    used: dict[Hashable, None] = {}
    binary_labels: list[int] = []
    for a, b in combinations(raters, 2):
        pool_a: list[int] = []
        pool_b: list[int] = []
        for q in values[a]:
            if q not in values[b]:
                continue
            ca, cb = values[a][q], values[b][q]
            shared = [c for c in ca if c in cb]
            if len(shared) < 2:
                continue
            used[q] = None
            xa = [ca[c] for c in shared]
            xb = [cb[c] for c in shared]
            ba = [int(v > 0) for v in xa]
            bb = [int(v > 0) for v in xb]
            pool_a += ba
            pool_b += bb
            binary_labels += ba + bb
            if len(xa) <= MAX_SMALL and _ZERO_ONE.issuperset(xa) and _ZERO_ONE.issuperset(xb):
                found = _binary_comparison(ba, bb)
            else:
                found = (_spearman(xa, xb), _kendall(xa, xb), cohen_kappa(ba, bb))
            for name, val, bucket in (
                ("spearman", found[0], rho),
                ("kendall_tau", found[1], tau),
                ("binary_kappa", found[2], kap),
            ):
                if math.isfinite(val):
                    bucket.append(val)
                else:
                    n_undefined[name] += 1
        if pool_a:
            pooled.append(cohen_kappa(pool_a, pool_b))
    return rho, tau, kap, pooled, n_undefined, used, binary_labels


#: Marks that are all 0 or 1 take :func:`_binary_comparison`.
_ZERO_ONE = frozenset((0.0, 1.0))


def _binary_comparison(ba: list[int], bb: list[int]) -> tuple[float, float, float]:
    """ρ, τ-b and κ of two raters' 0/1 marks on a query's shared candidates, from their 2×2 table.

    Why: HUME's marks are binary, and the general path (:mod:`scoring.rank_small`'s ranks and
    pair loop, ``cohen_kappa``'s counters) cost ~30 µs a comparison, a tenth of scoring a
    reranking subset (issue 38). With ``k`` ones among ``n`` marks the centred average ranks
    are −k/2 (a 0) and (n − k)/2 (a 1), so every sum the general path adds is a whole number
    over 4, exact, and so are the pair counts: the same numbers enter the same final divisions
    (ρ's ``c·(1/(n − 1))`` and its division by the second, then the first deviation; τ-b's
    ``(C − D) / √(pairs − x ties) / √(pairs − y ties)``; κ's ``(agree·n − pe) / (n² − pe)``),
    so the floats are the general path's (``tests/scoring/test_rerank_binary.py`` compares
    them bit for bit). NaN where the general path gives NaN: a side constant (ρ, τ-b), one
    category overall (κ).
    """
    n = len(ba)
    n11 = n10 = n01 = 0
    for a, b in zip(ba, bb, strict=True):
        if a:
            if b:
                n11 += 1
            else:
                n10 += 1
        elif b:
            n01 += 1
    n00 = n - n11 - n10 - n01
    ka, kb = n11 + n10, n11 + n01
    pe = ka * kb + (n - ka) * (n - kb)
    kappa = math.nan if n * n == pe else ((n11 + n00) * n - pe) / (n * n - pe)
    if n < 2 or ka in (0, n) or kb in (0, n):
        return math.nan, math.nan, kappa
    f = 1 / (n - 1)
    caa = n * ka * (n - ka) / 4 * f
    cbb = n * kb * (n - kb) / 4 * f
    cross = n11 * (n - ka) * (n - kb) - n10 * (n - ka) * kb - n01 * ka * (n - kb) + n00 * ka * kb
    rho = cross / 4 * f / math.sqrt(cbb) / math.sqrt(caa)
    pairs = n * (n - 1) // 2
    xtie = ka * (ka - 1) // 2 + (n - ka) * (n - ka - 1) // 2
    ytie = kb * (kb - 1) // 2 + (n - kb) * (n - kb - 1) // 2
    tau = (n11 * n00 - n10 * n01) / math.sqrt(pairs - xtie) / math.sqrt(pairs - ytie)
    return min(max(rho, -1.0), 1.0), min(1.0, max(-1.0, tau)), kappa


def _rerank_scale(statistic: str) -> Scale:
    return "kappa" if statistic == "binary_kappa" else "correlation"
