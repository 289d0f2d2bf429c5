"""Retrieval: a person's grades order the pool, scored as mteb scores a model's ranking.

Each annotator grades every document of a query's pool; the grades, highest first, are their
ranking of it, scored against the original qrels with mteb's measures (trec_eval's graded
nDCG@10, the main score; MAP, recall@k and MRR@10 beside it). Equal grades tie, and the tie
rule is declared as for reranking:

- ``"expected_ties"`` (the reported value): the exact expectation over uniformly random orders
  within each grade (McSherry & Najork, ECIR 2008). nDCG, recall and judged@k are linear in
  the gains, so a tied group contributes its mean gain at each of its places; AP and RR use
  the closed forms of :mod:`scoring.metrics`, here with the number of relevant documents taken
  from qrels (a relevant document outside the ranking still counts, as in trec_eval).
- ``"input_order"``: ties in the order the documents were shown (the answer's key order),
  scored by pytrec_eval itself (grades become scores that order ties by that order).

Pooled judging leaves documents qrels never judged; by default (mteb's) they count as not
relevant. ``judged_at_10`` is the share of the top 10 that qrels judge, and ``condensed_*`` the
score with unjudged documents removed first (Sakai 2007), for people as for models.

The main score is the subset's (mteb's ``TaskMetadata.main_score``: nDCG@10 for most tasks,
nDCG@20 for IFIR, recall@1 for BRIGHT's long tasks, ...). Any measure a single ranking and its
qrels define is accepted (:data:`POOLED_FAMILIES` at any cut-off, as mteb names them); one
that needs more than that (InstructIR's robustness@10 compares a query's rankings under several
instructions) is refused by :func:`main_metric`.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from scoring.aggregation.common import Answers, collect, mean_over_annotators
from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.records import Score
from scoring.validation import choose

__all__ = [
    "DEFAULT_MAIN",
    "GRADE_TIE_RULES",
    "POOLED_FAMILIES",
    "consensus_grades",
    "human_retrieval",
    "main_metric",
    "metric_label",
    "metric_token",
    "ranking_scores",
    "run_scores",
    "trec_measure",
]

#: The tie rules of a ranking by grades (see the module docstring).
GRADE_TIE_RULES = ("expected_ties", "input_order")
#: The measures per query, besides their condensed forms.
MEASURES = ("ndcg_at_10", "map", "recall_at_10", "recall_at_100", "mrr_at_10", "judged_at_10")
#: The main score when the task names none (a local BEIR folder): mteb's for most retrieval.
DEFAULT_MAIN = "ndcg_at_10"
#: The measures, as mteb names them (``<family>_at_<k>``), that one ranking and its qrels
#: define, so a person's pooled ranking can be scored by them; with their readers' names and
#: pytrec_eval's (MRR is computed from the ranking, as mteb does).
POOLED_FAMILIES = {
    "ndcg": ("nDCG", "ndcg_cut"),
    "map": ("MAP", "map_cut"),
    "recall": ("recall", "recall"),
    "precision": ("P", "P"),
    "mrr": ("MRR", "recip_rank"),
    "hit_rate": ("hit rate", "success"),
}
_METRIC = re.compile(r"(?P<family>[a-z_]+?)_at_(?P<k>[1-9][0-9]*)")


def main_metric(name: str) -> tuple[str, int]:
    """Parse a main score's mteb name into its family and cut-off, refusing what a pool cannot give.

    Why: a subset is scored by its task's own main score, and only a measure of one ranking
    against qrels can be computed for a person's graded pool and a model's pooled ranking
    alike; anything else (InstructIR's ``robustness_at_10``, which compares a query's rankings
    under several instructions) would have no human value, so it is refused, not replaced.

    Args:
        name: the main score as mteb names it (``ndcg_at_20``, ``recall_at_1``, ...).

    Returns:
        ``(family, k)``, the family a key of :data:`POOLED_FAMILIES`.

    Raises:
        InvalidInputError: for a name of no pooled family, or a cut-off below 1.
    """
    found = _METRIC.fullmatch(str(name))
    if found is None or found["family"] not in POOLED_FAMILIES:
        accepted = ", ".join(f"{f}_at_k" for f in POOLED_FAMILIES)
        raise InvalidInputError(
            f"main score {name!r} cannot be computed from a pooled ranking and qrels "
            f"(accepted: {accepted})"
        )
    return found["family"], int(found["k"])


def metric_label(name: str) -> str:
    """The main score as a reader names it: ``nDCG@20``, ``recall@1``, ``MRR@5``.

    Args:
        name: a name :func:`main_metric` accepts.

    Returns:
        The label.
    """
    family, k = main_metric(name)
    return f"{POOLED_FAMILIES[family][0]}@{k}"


def metric_token(name: str) -> str:
    """The main score in a method name: ``ndcg@10``, ``hit_rate@5`` (lower case, as methods are).

    Args:
        name: a name :func:`main_metric` accepts.

    Returns:
        The token.
    """
    family, k = main_metric(name)
    return f"{family}@{k}"


def _groups(docs: Sequence[str], grades: Mapping[str, int]) -> list[list[str]]:
    """The documents by grade, highest first, each group in the given order."""
    levels = sorted({grades[d] for d in docs}, reverse=True)
    return [[d for d in docs if grades[d] == g] for g in levels]


def _expected(
    docs: Sequence[str], grades: Mapping[str, int], qrels: Mapping[str, int]
) -> dict[str, float]:
    """The measures' exact expectations under random tie-breaking within each grade."""
    rel = {d: max(0, int(g)) for d, g in qrels.items()}
    n_rel = sum(1 for g in rel.values() if g > 0)
    ideal = sorted((g for g in rel.values() if g > 0), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    dcg = ap = rr = judged = 0.0
    hits = {10: 0.0, 100: 0.0}
    start = before = 0
    for group in _groups(docs, grades):
        size = len(group)
        gains = [rel.get(d, 0) for d in group]
        r = sum(1 for g in gains if g > 0)
        j = sum(1 for d in group if d in rel)
        for pos in range(start, min(start + size, 10)):
            dcg += (sum(gains) / size) / math.log2(pos + 2)
            judged += j / size
        for k in hits:
            hits[k] += r * max(0, min(start + size, k) - start) / size
        if r:
            # E[precision] of a relevant document at group place p (1-based): the relevant
            # documents above the group, itself, and on average (p-1)(r-1)/(size-1) of its own.
            for p in range(1, size + 1):
                ahead = (p - 1) * (r - 1) / (size - 1) if size > 1 else 0.0
                ap += r / size * (before + 1 + ahead) / (start + p)
            if before == 0:
                norm = math.comb(size, r)
                rr = sum(
                    math.comb(size - p, r - 1) / norm / (start + p)
                    for p in range(1, size - r + 2)
                    if start + p <= 10
                )
        before += r
        start += size
    return {
        "ndcg_at_10": dcg / idcg if idcg else 0.0,
        "map": ap / n_rel if n_rel else 0.0,
        "recall_at_10": hits[10] / n_rel if n_rel else 0.0,
        "recall_at_100": hits[100] / n_rel if n_rel else 0.0,
        "mrr_at_10": rr,
        "judged_at_10": judged / 10,
    }


def trec_measure(name: str) -> str:
    """Name the main score as a model score's method does it.

    trec_eval's measure (``trec_eval(ndcg_cut.10)``), or ``mrr@k``: mteb computes MRR from
    the ranking, not by trec_eval.

    Args:
        name: a name :func:`main_metric` accepts.

    Returns:
        The method's part.
    """
    family, k = main_metric(name)
    return f"mrr@{k}" if family == "mrr" else f"trec_eval({POOLED_FAMILIES[family][1]}.{k})"


def _expected_metric(
    docs: Sequence[str], grades: Mapping[str, int], qrels: Mapping[str, int], name: str
) -> float:
    """One measure's exact expectation under random tie-breaking within each grade.

    nDCG, recall and precision are linear in the gains (a tied group gives each of its places
    its mean gain); AP@k sums, over the places within k, the chance a place holds a relevant
    document times the expected precision there (as :func:`_expected` does for MAP); RR@k and
    hit rate@k depend only on the first group holding a relevant document (hypergeometric
    chances of where its first relevant document falls).
    """
    family, k = main_metric(name)
    rel = {d: max(0, int(g)) for d, g in qrels.items()}
    n_rel = sum(1 for g in rel.values() if g > 0)
    ideal = sorted((g for g in rel.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    dcg = ap = first = hits = 0.0
    start = before = 0
    for group in _groups(docs, grades):
        size = len(group)
        gains = [rel.get(d, 0) for d in group]
        r = sum(1 for g in gains if g > 0)
        inside = max(0, min(start + size, k) - start)  # the group's places within the cut-off
        for pos in range(start, start + inside):
            dcg += (sum(gains) / size) / math.log2(pos + 2)
        hits += r * inside / size
        if r:
            for p in range(1, inside + 1):
                ahead = (p - 1) * (r - 1) / (size - 1) if size > 1 else 0.0
                ap += r / size * (before + 1 + ahead) / (start + p)
            if before == 0:
                if family == "mrr":
                    norm = math.comb(size, r)
                    first = sum(
                        math.comb(size - p, r - 1) / norm / (start + p)
                        for p in range(1, min(size - r + 1, inside) + 1)
                    )
                else:  # at least one relevant among the group's first `inside` places
                    first = 1.0 - math.comb(size - r, inside) / math.comb(size, inside)
        before += r
        start += size
    value = {
        "ndcg": dcg / idcg if idcg else 0.0,
        "map": ap / n_rel if n_rel else 0.0,
        "recall": hits / n_rel if n_rel else 0.0,
        "precision": hits / k,
        "mrr": first,
        "hit_rate": first,
    }
    return value[family]


def _trec_metric(qrels: Mapping[str, int], run: Mapping[str, float], name: str) -> float:
    """One measure of a scored run as pytrec_eval computes it.

    trec_eval's order is score, then id, both descending; MRR@k is read from that order, as
    mteb computes it.
    """
    import pytrec_eval

    family, k = main_metric(name)
    if family == "mrr":
        ranking = sorted(run, key=lambda d: (run[d], d), reverse=True)
        return next((1.0 / (i + 1) for i, d in enumerate(ranking[:k]) if qrels.get(d, 0) > 0), 0.0)
    trec = POOLED_FAMILIES[family][1]
    got = pytrec_eval.RelevanceEvaluator({"q": dict(qrels)}, {f"{trec}.{k}"}).evaluate({"q": run})
    return float(got["q"][f"{trec}_{k}"])


def run_scores(
    qrels: Mapping[Any, Mapping[str, int]],
    runs: Mapping[Any, Mapping[str, float]],
    name: str = DEFAULT_MAIN,
) -> dict[Any, float]:
    """Per query, one measure of a system's scored run (a model's similarities over its pool).

    Why: a model is compared with people query by query (the paired bootstrap), by the same
    measure mteb averages for it; a query the system did not answer scores 0.

    Args:
        qrels: per query, the judged grade per document; queries without a relevant one skipped.
        runs: per query, the system's score per document.
        name: the measure (:func:`main_metric`).

    Returns:
        Per scored query, the measure.
    """
    out: dict[Any, float] = {}
    for q, judged in qrels.items():
        g = {str(d): int(v) for d, v in judged.items()}
        if not any(v > 0 for v in g.values()):
            continue
        run = {str(d): float(s) for d, s in (runs.get(q) or {}).items()}
        out[q] = _trec_metric(g, run, name) if run else 0.0
    return out


def _input_order(
    docs: Sequence[str], grades: Mapping[str, int], qrels: Mapping[str, int]
) -> dict[str, float]:
    """The measures of the ranking grade-descending, ties in the given order, by pytrec_eval."""
    import pytrec_eval

    n = len(docs)
    # Integer scores: a higher grade always wins, and within a grade the earlier document.
    run = {"q": {d: float(grades[d] * (n + 1) + (n - i)) for i, d in enumerate(docs)}}
    measures = {"ndcg_cut.10", "map_cut.1000", "recall.10,100"}
    got = pytrec_eval.RelevanceEvaluator({"q": dict(qrels)}, measures).evaluate(run)["q"]
    ranking = sorted(docs, key=lambda d: run["q"][d], reverse=True)
    rr = next((1.0 / (i + 1) for i, d in enumerate(ranking[:10]) if qrels.get(d, 0) > 0), 0.0)
    return {
        "ndcg_at_10": float(got["ndcg_cut_10"]),
        "map": float(got["map_cut_1000"]),
        "recall_at_10": float(got["recall_10"]),
        "recall_at_100": float(got["recall_100"]),
        "mrr_at_10": rr,
        "judged_at_10": sum(d in qrels for d in ranking[:10]) / 10,
    }


def _input_order_metric(
    docs: Sequence[str], grades: Mapping[str, int], qrels: Mapping[str, int], name: str
) -> float:
    """One measure of the ranking grade-descending, ties in the given order, by pytrec_eval."""
    n = len(docs)
    run = {d: float(grades[d] * (n + 1) + (n - i)) for i, d in enumerate(docs)}
    return _trec_metric(qrels, run, name)


def ranking_scores(
    qrels: Mapping[str, int],
    grades: Mapping[str, int],
    ties: str = "expected_ties",
    main: str = DEFAULT_MAIN,
) -> dict[str, float]:
    """Score one query's ranking by grades against its qrels, plain and condensed.

    Args:
        qrels: the judged grade per document (> 0: relevant), at least one relevant.
        grades: the person's grade per pooled document, in the order shown.
        ties: one of :data:`GRADE_TIE_RULES`.
        main: the subset's main score (:func:`main_metric`), added where not among
            :data:`MEASURES`.

    Returns:
        The measures of :data:`MEASURES` and ``main``, and each (but judged@10) as
        ``condensed_<name>`` (unjudged documents removed before scoring).

    Raises:
        InvalidInputError: an unknown tie rule or main score, or a grade that is not an
            integer ≥ 0.
        DegenerateInputError: no relevant document in qrels.
    """
    choose(ties, GRADE_TIE_RULES, "tie rule")
    main_metric(main)
    if not any(int(g) > 0 for g in qrels.values()):
        raise DegenerateInputError("qrels: no relevant document; the query is not scored")
    for d, g in grades.items():
        if isinstance(g, bool) or not isinstance(g, int) or g < 0:
            raise InvalidInputError(f"grade of document {d!r} is {g!r}, expected an integer ≥ 0")
    q = {str(d): int(g) for d, g in qrels.items()}
    docs = [str(d) for d in grades]
    given = {str(d): int(g) for d, g in grades.items()}
    score = _expected if ties == "expected_ties" else _input_order
    kept = [d for d in docs if d in q]
    out = score(docs, given, q)
    condensed = score(kept, given, q)
    if main not in out:
        one = _expected_metric if ties == "expected_ties" else _input_order_metric
        out[main] = one(docs, given, q, main)
        condensed[main] = one(kept, given, q, main)
    out.update({f"condensed_{k}": v for k, v in condensed.items() if k != "judged_at_10"})
    return out


def human_retrieval(
    gold: Mapping[Hashable, Mapping[str, int]],
    answers: Answers,
    ties: str = "expected_ties",
    main: str = DEFAULT_MAIN,
) -> Score:
    """Score each annotator's grades by the main score, mean over queries, then over annotators.

    The main score is nDCG@10 unless the subset's task names another.

    A query counts for an annotator only if they graded every judged document of it (the
    interface takes only complete answers, so this refuses a stray partial one).

    Args:
        gold: ``{query: {document: grade}}``, qrels' grades of the judged pooled documents.
        answers: ``{annotator: {query: {document: grade}}}``; ``None`` is no answer.
        ties: the reported tie rule (:data:`GRADE_TIE_RULES`); the other one is in
            ``details["input_order"]`` (or ``["expected_ties"]``).
        main: the subset's main score (:func:`main_metric`).

    Returns:
        The mean main score over annotators; ``details`` hold every measure per annotator (and
        the main score per query, ``per_rater_per_query``), under both tie rules.

    Raises:
        InvalidInputError: malformed gold or answers, or a main score no ranking gives.
        DegenerateInputError: no annotator graded a query with a relevant document.
    """
    choose(ties, GRADE_TIE_RULES, "tie rule")
    token = metric_token(main)
    other = next(t for t in GRADE_TIE_RULES if t != ties)

    def complete(rater: str, qid: Hashable, grades: Any) -> bool:
        if not isinstance(grades, Mapping):
            raise InvalidInputError(f"answers[{rater!r}][{qid!r}]: expected a mapping doc -> grade")
        return all(grades.get(d) is not None for d in gold[qid])

    col = collect(gold, answers, complete)
    per_rater: dict[str, dict[str, float]] = {}
    per_rater_other: dict[str, dict[str, float]] = {}
    per_query: dict[str, dict[Hashable, float]] = {}
    for rater, given in col.by_rater.items():
        rows, rows_other = [], []
        for qid, grades in given.items():
            if not any(int(g) > 0 for g in gold[qid].values()):
                continue
            rows.append((qid, ranking_scores(gold[qid], grades, ties, main)))
            rows_other.append(ranking_scores(gold[qid], grades, other, main))
        if not rows:
            continue
        keys = rows[0][1].keys()
        per_rater[rater] = {k: sum(r[k] for _, r in rows) / len(rows) for k in keys}
        per_rater_other[rater] = {k: sum(r[k] for r in rows_other) / len(rows) for k in keys}
        per_query[rater] = {qid: r[main] for qid, r in rows}
    if not per_rater:
        raise DegenerateInputError("answers: no graded query has a relevant document")
    by_rater = {r: v[main] for r, v in per_rater.items()}
    keys = next(iter(per_rater.values())).keys()
    details: dict[str, Any] = {
        **{k: mean_over_annotators({r: v[k] for r, v in per_rater.items()}) for k in keys},
        other: {
            k: mean_over_annotators({r: v[k] for r, v in per_rater_other.items()}) for k in keys
        },
        "ties": ties,
        "per_rater_measures": per_rater,
        "per_rater_per_query": per_query,
        **col.details(),
    }
    return Score(
        mean_over_annotators(by_rater),
        f"human:mean_over_annotators(mean_over_queries({token}:{ties}))",
        n_items=len({q for qs in per_query.values() for q in qs}),
        per_rater=by_rater,
        details=details,
    )


def consensus_grades(answers: Mapping[Any, Mapping[Any, Any]]) -> dict[Hashable, dict[str, int]]:
    """Per query and document, the lower median of the annotators' grades.

    An ordinal scale has no mean; of two middle grades the lower one is taken, so that one
    vote of two does not make a document relevant.

    Args:
        answers: ``{annotator: {query: {document: grade}}}``; ``None`` is no grade.

    Returns:
        ``{query: {document: grade}}`` over every document anyone graded.
    """
    votes: dict[Hashable, dict[str, list[int]]] = {}
    for given in answers.values():
        for q, grades in (given or {}).items():
            if not isinstance(grades, Mapping):
                continue
            for d, g in grades.items():
                if g is not None:
                    votes.setdefault(q, {}).setdefault(str(d), []).append(int(g))
    return {
        q: {d: int(statistics.median_low(v)) for d, v in docs.items()} for q, docs in votes.items()
    }
