"""Task metrics computed the way MTEB computes them, so human and model numbers are comparable.

Every public function validates its input, raises :mod:`scoring.errors` types whose message names
the offending argument, and returns a :class:`~scoring.records.Score` whose ``method`` says how the
number was made.

Ranking metrics and ties
------------------------
Human relevance marks are binary, so most candidates tie and the tie rule decides the score. The
conventions offered here:

* ``"sklearn"`` (AP only): :func:`sklearn.metrics.average_precision_score`; a tie group is one
  threshold of the precision/recall curve. This is what mteb v1 and the HUME paper used.
* ``"trec_eval"``: trec_eval (through ``pytrec_eval``) sorts by score descending and breaks ties
  by document id *descending*. Candidates get ids ``c000000, c000001, ...`` in their given order,
  so within a tie the **later** candidate ranks first. mteb v2 ranks this way (``map_cut.1000``,
  ``ndcg_cut.10`` from pytrec_eval, and its own MRR with the same tie rule).
* ``"input_order"`` (MRR/nDCG only): ties keep the given order, the **earlier** candidate first.
  HUME's own script ranked marks with ``np.argsort(-marks)``; this mode is that ranking when the
  sort is stable (numpy's default quicksort is not stable on AVX-512 machines, so the published
  HUME MRR/nDCG depend on the machine they ran on).
* ``"expected_ties"``: the exact expectation over uniformly random orders within each tie group
  (McSherry & Najork, ECIR 2008), computed in closed form, not by sampling.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import scoring.kernels as kernels
import scoring.ranking_rows as ranking_rows
from scoring._lazy import LazyModule
from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.records import Score
from scoring.score_memo import memoised
from scoring.validation import as_1d, choose, same_length

# Loaded on first use (see scoring._lazy).
if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
else:
    np = LazyModule("numpy")
__all__ = [
    "AP_METHODS",
    "TIE_RULES",
    "TREC_MAP_MEASURE",
    "accuracy",
    "average_precision",
    "mean_average_precision",
    "mean_mrr_at_k",
    "mean_ndcg_at_k",
    "mean_ranking_scores",
    "mrr_at_k",
    "ndcg_at_k",
    "pearson",
    "spearman",
    "v_measure",
]

pytrec_eval = LazyModule("pytrec_eval")

AP_METHODS: tuple[str, ...] = ("sklearn", "trec_eval", "expected_ties")
TIE_RULES: tuple[str, ...] = ("trec_eval", "input_order", "expected_ties")

#: pytrec_eval measure behind ``map:trec_eval``: mteb v2's reranking main score ``map_at_1000``.
TREC_MAP_MEASURE = "map_cut.1000"

_Query: TypeAlias = "tuple[Sequence[float] | NDArray[Any], Sequence[float] | NDArray[Any]]"


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------


def _labels(values: Any, name: str) -> NDArray[Any]:
    """Labels as a 1-D array; reject None/NaN and str/number mixtures (numpy would coerce them)."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        kind = type(values).__name__
        raise InvalidInputError(f"{name}: expected a sequence of labels, got {kind}")
    items = list(values)
    if not items:
        raise InvalidInputError(f"{name}: expected at least 1 value(s), got 0")
    if set(map(type, items)) == {str}:
        # Every label a plain string (the common case) passes every check below; one C-level
        # pass instead of a Python loop (each annotator's score is taken several times in an
        # export, issue 38).
        return as_1d(items, name)
    for item in items:
        if item is None or (isinstance(item, float) and math.isnan(item)):
            raise InvalidInputError(f"{name}: contains a missing label ({item!r})")
        if not isinstance(item, Hashable) or isinstance(item, list | tuple | set | dict):
            raise InvalidInputError(f"{name}: labels must be scalars, got {type(item).__name__}")
    n_str = sum(isinstance(item, str) for item in items)
    if 0 < n_str < len(items):
        raise InvalidInputError(f"{name}: mixes string and non-string labels")
    return as_1d(items, name)


def _categorical(labels: NDArray[Any], name: str) -> None:
    """Class labels are strings or whole numbers: a fraction is a score, not a class.

    sklearn refuses such "continuous" targets too.
    """
    if labels.dtype.kind != "f":
        return
    whole = np.isfinite(labels) & (labels == np.floor(labels))
    if not np.all(whole):
        bad = float(labels[~whole][0])
        raise InvalidInputError(f"{name}: class labels are strings or whole numbers, got {bad!r}")


def _same_kind(gold: NDArray[Any], pred: NDArray[Any]) -> None:
    """Sklearn refuses string gold with integer predictions; say so in our own terms."""
    if (gold.dtype.kind in "US") != (pred.dtype.kind in "US"):
        raise InvalidInputError(
            f"gold and pred: label types differ ({gold.dtype.kind!r} vs {pred.dtype.kind!r}); "
            "use the same label type for both"
        )


def _ranking_inputs(relevance: Any, scores: Any) -> tuple[NDArray[Any], NDArray[Any]]:
    """Validate one query: binary relevance with at least one relevant candidate, finite scores."""
    rel = as_1d(relevance, "relevance", numeric=True)
    sc = as_1d(scores, "scores", numeric=True)
    same_length(("relevance", rel), ("scores", sc))
    if not np.all((rel == 0) | (rel == 1)):
        raise InvalidInputError("relevance: expected binary gold labels (0 or 1)")
    if not np.any(rel == 1):
        raise DegenerateInputError(
            "relevance: no relevant candidate; ranking metrics are undefined (mteb skips the query)"
        )
    return rel.astype(int), sc


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise InvalidInputError(f"k: expected a positive integer, got {k!r}")
    return int(k)


def _doc_ids(n: int) -> list[str]:
    """Ids whose string order is the given order, so trec_eval's id tie-break is predictable."""
    return [f"c{i:06d}" for i in range(n)]


def _trec_eval(rel: NDArray[Any], scores: NDArray[Any], measure: str) -> float:
    """One query through pytrec_eval; returns the measure's value (key with '.' as '_')."""
    ids = _doc_ids(len(rel))
    qrel = {"q": {d: int(r) for d, r in zip(ids, rel, strict=True)}}
    run = {"q": {d: float(s) for d, s in zip(ids, scores, strict=True)}}
    result = pytrec_eval.RelevanceEvaluator(qrel, {measure}).evaluate(run)
    return float(result["q"][measure.replace(".", "_")])


def _order(scores: NDArray[Any], ties: str) -> list[int]:
    """Candidate indices best first under a deterministic tie rule."""
    idx = range(len(scores))
    if ties == "trec_eval":
        return sorted(idx, key=lambda i: (scores[i], i), reverse=True)
    return sorted(idx, key=lambda i: (-scores[i], i))


def _tie_groups(rel: NDArray[Any], scores: NDArray[Any]) -> list[tuple[int, int, int]]:
    """(start offset, group size, relevant in group) for each score level, best first."""
    groups = []
    start = 0
    for level in np.unique(scores)[::-1]:
        members = scores == level
        size = int(members.sum())
        groups.append((start, size, int(rel[members].sum())))
        start += size
    return groups


# --------------------------------------------------------------------------------------------
# classification and clustering
# --------------------------------------------------------------------------------------------


@memoised
def accuracy(gold: Sequence[Any] | NDArray[Any], pred: Sequence[Any] | NDArray[Any]) -> Score:
    """Accuracy plus MTEB's secondary classification metrics (macro F1 is MTEB's ``f1``).

    The numbers of sklearn's ``accuracy_score`` and ``f1_score`` / ``precision_score`` /
    ``recall_score`` (macro and weighted) with ``zero_division=0``, the values sklearn's
    default gives, without its warning (:func:`scoring.kernels.classification_scores`).

    Args:
        gold: the gold labels.
        pred: the predicted labels, one per gold label.

    Returns:
        The accuracy, method ``"accuracy"``, the F1, precision and recall in ``details``.

    Raises:
        InvalidInputError: empty or different-length inputs, missing labels, or labels that are
            not strings or whole numbers (or mix the two).
    """
    g = _labels(gold, "gold")
    p = _labels(pred, "pred")
    same_length(("gold", g), ("pred", p))
    _same_kind(g, p)
    _categorical(g, "gold")
    _categorical(p, "pred")
    s = kernels.classification_scores(g, p)
    keys = ("f1", "f1_weighted", "precision", "precision_weighted", "recall", "recall_weighted")
    details = {k: s[k] for k in keys}
    return Score(s["accuracy"], "accuracy", n_items=len(g), details=details)


@memoised
def v_measure(gold: Sequence[Any] | NDArray[Any], pred: Sequence[Any] | NDArray[Any]) -> Score:
    """V-measure of a partition against gold classes (MTEB's clustering main score).

    Cluster ids only need to be consistent within ``pred``; their names do not matter. The
    numbers are sklearn's (``v_measure_score``, ``adjusted_rand_score``,
    ``adjusted_mutual_info_score``, ``homogeneity_score``, ``completeness_score``), computed
    once from one contingency table (:func:`scoring.kernels.clustering_scores`).

    Args:
        gold: the gold classes.
        pred: the cluster id of each item.

    Returns:
        The V-measure, method ``"v_measure"``, the other scores in ``details``.

    Raises:
        InvalidInputError: empty or different-length inputs, or labels that are missing,
            not scalars, or mix strings with other values.
    """
    g = _labels(gold, "gold")
    p = _labels(pred, "pred")
    same_length(("gold", g), ("pred", p))
    s = kernels.clustering_scores(g, p)
    details = {k: s[k] for k in ("ari", "ami", "homogeneity", "completeness")}
    return Score(s["v_measure"], "v_measure", n_items=len(g), details=details)


# --------------------------------------------------------------------------------------------
# reranking: one query
# --------------------------------------------------------------------------------------------


def _expected_ap(rel: NDArray[Any], scores: NDArray[Any]) -> float:
    """Exact E[AP] over random orders within tie groups.

    A relevant item at position j of a group that starts after ``s`` items, with ``before``
    relevant items above the group, sees on average (j-1)(r-1)/(g-1) other relevant items of its
    group ahead of it, so E[precision] = (before + 1 + that) / (s + j); positions are uniform.
    """
    total_rel = int(rel.sum())
    total = 0.0
    before = 0
    for start, size, r in _tie_groups(rel, scores):
        if r:
            acc = 0.0
            for j in range(1, size + 1):
                ahead = (j - 1) * (r - 1) / (size - 1) if size > 1 else 0.0
                acc += (before + 1 + ahead) / (start + j)
            total += r * acc / size
        before += r
    return total / total_rel


def average_precision(
    relevance: Sequence[float] | NDArray[Any],
    scores: Sequence[float] | NDArray[Any],
    method: str = "sklearn",
) -> Score:
    """Average precision of one query's ranking (``scores``, higher first) against binary gold.

    ``method`` picks the tie convention (module docstring): ``"sklearn"`` (HUME paper, mteb v1),
    ``"trec_eval"`` (mteb v2's ``map_at_1000``), ``"expected_ties"`` (tie-aware expectation).

    Args:
        relevance: 0/1 per candidate, with at least one 1.
        scores: the candidates' scores, higher ranked first.
        method: one of :data:`AP_METHODS`.

    Returns:
        The AP, method ``"map:<method>"``.

    Raises:
        InvalidInputError: relevance that is not 0/1, scores that are not finite numbers,
            lengths that differ, or an unknown option.
        DegenerateInputError: no relevant candidate.
    """
    choose(method, AP_METHODS, "average-precision method")
    rel, sc = _ranking_inputs(relevance, scores)
    details: dict[str, Any] = {"n_relevant": int(rel.sum()), "n_tied_levels": len(np.unique(sc))}
    if method == "trec_eval":
        details["trec_eval_measure"] = TREC_MAP_MEASURE
        details["tie_break"] = "candidate id descending (later candidate first)"
    value = _ap_value(rel, sc, method)
    return Score(value, f"map:{method}", n_items=len(rel), details=details)


def _ap_value(rel: NDArray[Any], sc: NDArray[Any], method: str) -> float:
    """AP of one validated query (see :func:`average_precision`)."""
    if method == "sklearn":
        return kernels.average_precision(rel, sc)
    if method == "trec_eval":
        return _trec_eval(rel, sc, TREC_MAP_MEASURE)
    return _expected_ap(rel, sc)


def _expected_rr(rel: NDArray[Any], scores: NDArray[Any], k: int) -> float:
    """Exact E[RR@k] under random tie-breaking.

    In the first group holding a relevant item (g items, r relevant), the first relevant one
    sits at group position j with probability C(g-j, r-1) / C(g, r).
    """
    for start, size, r in _tie_groups(rel, scores):
        if r:
            norm = math.comb(size, r)
            return sum(
                math.comb(size - j, r - 1) / norm / (start + j)
                for j in range(1, size - r + 2)
                if start + j <= k
            )
    return 0.0  # unreachable: validation guarantees a relevant item


def mrr_at_k(
    relevance: Sequence[float] | NDArray[Any],
    scores: Sequence[float] | NDArray[Any],
    k: int = 10,
    ties: str = "trec_eval",
) -> Score:
    """Reciprocal rank of the first relevant candidate within the top ``k`` (0 if none).

    With ``ties="trec_eval"`` this is mteb v2's ``mrr_at_k`` (its own code, sorting by score then
    by doc id, both descending); ``"input_order"`` is HUME's own ranking of human marks.

    Args:
        relevance: 0/1 per candidate, with at least one 1.
        scores: the candidates' scores, higher ranked first.
        k: the cut-off, a positive integer.
        ties: one of :data:`TIE_RULES`.

    Returns:
        The reciprocal rank, method ``"mrr@<k>"`` with a suffix naming the tie rule.

    Raises:
        InvalidInputError: relevance that is not 0/1, scores that are not finite numbers,
            lengths that differ, or an unknown option.
        DegenerateInputError: no relevant candidate.
    """
    k = _check_k(k)
    choose(ties, TIE_RULES, "tie rule")
    rel, sc = _ranking_inputs(relevance, scores)
    value = _rr_value(rel, sc, k, ties)
    name = f"mrr@{k}{_tie_suffix(ties)}"
    return Score(value, name, n_items=len(rel), details={"ties": ties, "k": k})


def _rr_value(rel: NDArray[Any], sc: NDArray[Any], k: int, ties: str) -> float:
    """RR@k of one validated query (see :func:`mrr_at_k`)."""
    if ties == "expected_ties":
        return _expected_rr(rel, sc, k)
    for rank, i in enumerate(_order(sc, ties)[:k], start=1):
        if rel[i]:
            return 1.0 / rank
    return 0.0


def _dcg_discounts(n: int) -> NDArray[Any]:
    return ranking_rows.dcg_discounts(n)


def ndcg_at_k(
    relevance: Sequence[float] | NDArray[Any],
    scores: Sequence[float] | NDArray[Any],
    k: int = 10,
    ties: str = "trec_eval",
) -> Score:
    """nDCG@k with binary gains, log2(rank + 1) discounts (trec_eval's ``ndcg_cut``).

    With ``ties="trec_eval"`` the value comes from pytrec_eval ``ndcg_cut.k``, as in mteb v2.
    For binary relevance HUME's (2^r - 1) gain is the same number.

    Args:
        relevance: 0/1 per candidate, with at least one 1.
        scores: the candidates' scores, higher ranked first.
        k: the cut-off, a positive integer.
        ties: one of :data:`TIE_RULES`.

    Returns:
        The nDCG, method ``"ndcg@<k>"`` with a suffix naming the tie rule.

    Raises:
        InvalidInputError: relevance that is not 0/1, scores that are not finite numbers,
            lengths that differ, or an unknown option.
        DegenerateInputError: no relevant candidate.
    """
    k = _check_k(k)
    choose(ties, TIE_RULES, "tie rule")
    rel, sc = _ranking_inputs(relevance, scores)
    value = _ndcg_value(rel, sc, k, ties)
    name = f"ndcg@{k}{_tie_suffix(ties)}"
    return Score(value, name, n_items=len(rel), details={"ties": ties, "k": k})


def _ndcg_value(rel: NDArray[Any], sc: NDArray[Any], k: int, ties: str) -> float:
    """nDCG@k of one validated query (see :func:`ndcg_at_k`)."""
    if ties == "trec_eval":
        return _trec_eval(rel, sc, f"ndcg_cut.{k}")
    ideal = float(_dcg_discounts(min(int(rel.sum()), k)).sum())
    if ties == "input_order":
        gains = rel[_order(sc, ties)][:k]
        return float((gains * _dcg_discounts(len(gains))).sum()) / ideal
    discounts = _dcg_discounts(len(rel))
    dcg = 0.0
    for start, size, r in _tie_groups(rel, sc):
        stop = min(start + size, k)
        if r and stop > start:
            dcg += r / size * float(discounts[start:stop].sum())
    return dcg / ideal


# --------------------------------------------------------------------------------------------
# reranking: mean over queries
# --------------------------------------------------------------------------------------------


_Measure: TypeAlias = "Callable[[NDArray[Any], NDArray[Any]], float]"


def _query_items(queries: Mapping[Hashable, _Query] | Sequence[_Query]) -> list[tuple[Any, Any]]:
    """``(query id, pair)`` of a map or a list of queries (ids: the list's indices)."""
    if isinstance(queries, Mapping):
        items = list(queries.items())
    elif isinstance(queries, str | bytes) or not isinstance(queries, Iterable):
        raise InvalidInputError("queries: expected a sequence or mapping of (relevance, scores)")
    else:
        items = list(enumerate(queries))
    if not items:
        raise InvalidInputError("queries: expected at least one query")
    return items


def _one_by_one(
    items: list[tuple[Any, Any]], measures: Mapping[str, _Measure]
) -> list[list[float] | None]:
    """Each query validated and scored by every measure; None without a relevant candidate."""
    out: list[list[float] | None] = []
    for qid, pair in items:
        if not isinstance(pair, Sequence) or len(pair) != 2:
            raise InvalidInputError(f"queries[{qid!r}]: expected a (relevance, scores) pair")
        try:
            rel, sc = _ranking_inputs(pair[0], pair[1])
        except DegenerateInputError:
            out.append(None)
            continue
        except InvalidInputError as exc:
            raise InvalidInputError(f"queries[{qid!r}]: {exc}") from None
        out.append([measure(rel, sc) for measure in measures.values()])
    return out


def _mean_over_queries(
    queries: Mapping[Hashable, _Query] | Sequence[_Query],
    measures: Mapping[str, _Measure],
    skip_no_relevant: bool,
    batched: Callable[[list[tuple[Any, Any]]], Sequence[Sequence[float] | None] | None]
    | None = None,
) -> list[Score]:
    """Validate each query once, score it by every measure, and average: one Score each.

    ``measures`` is ``{method name: value of one validated query}``; queries without a relevant
    candidate are skipped (or scored 0). The Scores come in the measures' order. ``batched``,
    where given, scores every query at once (each measure's value in the measures' order, None
    for a query without a relevant candidate) or returns None to leave them to ``measures``.
    """
    items = _query_items(queries)
    rows = None if batched is None else batched(items)
    if rows is None:
        rows = _one_by_one(items, measures)
    values: dict[str, dict[Hashable, float]] = {name: {} for name in measures}
    no_relevant: list[Hashable] = []
    for (qid, _), row in zip(items, rows, strict=True):
        if row is None:
            no_relevant.append(qid)
            if skip_no_relevant:
                continue
            row = [0.0] * len(values)  # trec_eval, hence mteb v2, scores such a query 0
        for per_query, v in zip(values.values(), row, strict=True):
            per_query[qid] = v
    if not any(values.values()):
        raise DegenerateInputError("queries: no query has a relevant candidate")
    out = []
    for name, per_query in values.items():
        details = {
            "per_query": per_query,
            "n_queries": len(per_query),
            "n_no_relevant": len(no_relevant),
            "no_relevant_queries": list(no_relevant),
            "no_relevant_policy": "skipped" if skip_no_relevant else "scored 0",
        }
        value = float(np.mean(list(per_query.values())))
        method = f"mean_over_queries({name})"
        out.append(Score(value, method, n_items=len(per_query), details=details))
    return out


def _tie_suffix(ties: str) -> str:
    return "" if ties == "trec_eval" else f":{ties}"


def mean_average_precision(
    queries: Mapping[Hashable, _Query] | Sequence[_Query],
    method: str = "sklearn",
    skip_no_relevant: bool = True,
) -> Score:
    """MAP over queries given as (relevance, scores) pairs, a list or a {query_id: pair} map.

    Queries without a relevant candidate are skipped and counted (mteb v1 skipped them), or,
    with ``skip_no_relevant=False``, scored 0 as trec_eval and so mteb v2 do. ``details``
    keeps each query's AP under ``per_query`` (keyed by list index or query id).
    mteb v2 reports the trec_eval mean rounded to 5 decimals; ``value`` is not rounded.

    Args:
        queries: (relevance, scores) pairs, as a list or a ``{query_id: pair}`` map.
        method: one of :data:`AP_METHODS`.
        skip_no_relevant: skip queries without a relevant candidate (counted), or score them 0
            as trec_eval does.

    Returns:
        The MAP; each query's AP in ``details["per_query"]``.

    Raises:
        InvalidInputError: no queries, a query that is not a (relevance, scores) pair or
            is malformed, or an unknown option.
        DegenerateInputError: no query has a relevant candidate.
    """
    choose(method, AP_METHODS, "average-precision method")
    measure = {f"map:{method}": lambda r, s: _ap_value(r, s, method)}
    return _mean_over_queries(queries, measure, skip_no_relevant)[0]


def mean_mrr_at_k(
    queries: Mapping[Hashable, _Query] | Sequence[_Query],
    k: int = 10,
    ties: str = "trec_eval",
    skip_no_relevant: bool = True,
) -> Score:
    """Mean of :func:`mrr_at_k` over queries (mteb v2's ``mrr_at_k`` with the default ties).

    Args:
        queries: (relevance, scores) pairs, as a list or a ``{query_id: pair}`` map.
        k: the cut-off, a positive integer.
        ties: one of :data:`TIE_RULES`.
        skip_no_relevant: skip queries without a relevant candidate (counted), or score them 0
            as trec_eval does.

    Returns:
        The mean reciprocal rank; each query's value in ``details["per_query"]``.

    Raises:
        InvalidInputError: no queries, a query that is not a (relevance, scores) pair or
            is malformed, or an unknown option.
        DegenerateInputError: no query has a relevant candidate.
    """
    k = _check_k(k)
    choose(ties, TIE_RULES, "tie rule")
    measure = {f"mrr@{k}{_tie_suffix(ties)}": lambda r, s: _rr_value(r, s, k, ties)}
    return _mean_over_queries(queries, measure, skip_no_relevant)[0]


def mean_ndcg_at_k(
    queries: Mapping[Hashable, _Query] | Sequence[_Query],
    k: int = 10,
    ties: str = "trec_eval",
    skip_no_relevant: bool = True,
) -> Score:
    """Mean of :func:`ndcg_at_k` over queries (mteb v2's ``ndcg_at_k``, which it rounds to 5 dp).

    Args:
        queries: (relevance, scores) pairs, as a list or a ``{query_id: pair}`` map.
        k: the cut-off, a positive integer.
        ties: one of :data:`TIE_RULES`.
        skip_no_relevant: skip queries without a relevant candidate (counted), or score them 0
            as trec_eval does.

    Returns:
        The mean nDCG; each query's value in ``details["per_query"]``.

    Raises:
        InvalidInputError: no queries, a query that is not a (relevance, scores) pair or
            is malformed, or an unknown option.
        DegenerateInputError: no query has a relevant candidate.
    """
    k = _check_k(k)
    choose(ties, TIE_RULES, "tie rule")
    measure = {f"ndcg@{k}{_tie_suffix(ties)}": lambda r, s: _ndcg_value(r, s, k, ties)}
    return _mean_over_queries(queries, measure, skip_no_relevant)[0]


def mean_ranking_scores(
    queries: Mapping[Hashable, _Query] | Sequence[_Query],
    ap_method: str = "sklearn",
    k: int = 10,
    ties: str = "trec_eval",
    skip_no_relevant: bool = True,
) -> tuple[Score, Score, Score]:
    """MAP, mean MRR@k and mean nDCG@k of the same queries, each query validated once.

    Every Score is what its own function (:func:`mean_average_precision`, :func:`mean_mrr_at_k`,
    :func:`mean_ndcg_at_k`) gives.

    Args:
        queries: (relevance, scores) pairs, as a list or a ``{query_id: pair}`` map.
        ap_method: one of :data:`AP_METHODS`.
        k: the cut-off of MRR and nDCG.
        ties: one of :data:`TIE_RULES`, for MRR and nDCG.
        skip_no_relevant: skip queries without a relevant candidate (counted), or score them 0
            as trec_eval does.

    Returns:
        (MAP, MRR@k, nDCG@k).

    Raises:
        InvalidInputError: no queries, a query that is not a (relevance, scores) pair or
            is malformed, or an unknown option.
        DegenerateInputError: no query has a relevant candidate.
    """
    choose(ap_method, AP_METHODS, "average-precision method")
    k = _check_k(k)
    choose(ties, TIE_RULES, "tie rule")
    suffix = _tie_suffix(ties)
    measures = {
        f"map:{ap_method}": lambda r, s: _ap_value(r, s, ap_method),
        f"mrr@{k}{suffix}": lambda r, s: _rr_value(r, s, k, ties),
        f"ndcg@{k}{suffix}": lambda r, s: _ndcg_value(r, s, k, ties),
    }
    batched = None
    if ap_method == "sklearn" and ties == "input_order":  # HUME's rule: all queries at once
        batched = lambda items: ranking_rows.query_values(items, k)  # noqa: E731
    ap, rr, ndcg = _mean_over_queries(queries, measures, skip_no_relevant, batched)
    return ap, rr, ndcg


# --------------------------------------------------------------------------------------------
# STS
# --------------------------------------------------------------------------------------------


def _correlation_inputs(gold: Any, pred: Any) -> tuple[NDArray[Any], NDArray[Any]]:
    g = as_1d(gold, "gold", numeric=True, min_len=2)
    p = as_1d(pred, "pred", numeric=True, min_len=2)
    same_length(("gold", g), ("pred", p))
    for name, arr in (("gold", g), ("pred", p)):
        if np.all(arr == arr[0]):
            raise DegenerateInputError(f"{name}: constant values; the correlation is undefined")
    return g, p


def _finite(x: float) -> float | None:
    """None for a p-value scipy cannot compute (n = 2), so details stay valid JSON."""
    return float(x) if np.isfinite(x) else None


def spearman(gold: Sequence[float] | NDArray[Any], pred: Sequence[float] | NDArray[Any]) -> Score:
    """Spearman's rho (scipy's ``spearmanr``: average ranks for ties): MTEB's STS main score.

    Args:
        gold: the gold scores (at least 2).
        pred: the predicted scores, one per gold score.

    Returns:
        ρ, method ``"spearman"``, the p-value in ``details``.

    Raises:
        InvalidInputError: fewer than 2 values, values that are not finite numbers, or lengths
            that differ.
        DegenerateInputError: a side is constant.
    """
    g, p = _correlation_inputs(gold, pred)
    rho, pvalue = kernels.spearman(g, p)
    details = {"pvalue": _finite(pvalue), "pearson": kernels.pearson(g, p)[0]}
    return Score(rho, "spearman", n_items=len(g), details=details)


def pearson(gold: Sequence[float] | NDArray[Any], pred: Sequence[float] | NDArray[Any]) -> Score:
    """Pearson's r (scipy's ``pearsonr``), MTEB's secondary STS metric.

    Args:
        gold: the gold scores (at least 2).
        pred: the predicted scores, one per gold score.

    Returns:
        r, method ``"pearson"``, the p-value in ``details``.

    Raises:
        InvalidInputError: fewer than 2 values, values that are not finite numbers, or lengths
            that differ.
        DegenerateInputError: a side is constant.
    """
    g, p = _correlation_inputs(gold, pred)
    r, pvalue = kernels.pearson(g, p)
    details = {"pvalue": _finite(pvalue), "spearman": kernels.spearman(g, p)[0]}
    return Score(r, "pearson", n_items=len(g), details=details)
