"""MTEB's scoring procedure per task type, returning per-item model answers and the task score.

Each procedure re-implements what the installed mteb 2.x evaluator does (sources named in each
docstring) so that a model's answers shown in Label Studio and its score on the HUME instances are
the numbers mteb itself would report; ``tests/ml_backend/test_parity.py`` checks this against
mteb's own classes. The procedures take embeddings computed elsewhere (once per distinct text by
the backend's cache) and know nothing of studies or jobs: a task type's model procedure
(:class:`~ml_backend.model_procedure.ModelProcedure`) feeds them its job's texts in mteb's order
(:func:`query_text` and :func:`document_text` are how mteb turns a reranking instance into
model input) and shapes their results into answers.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

SEED = 42  # mteb's default task / evaluator seed
N_EXPERIMENTS = 10  # AbsTaskClassification.n_experiments
DEFAULT_SAMPLES_PER_LABEL = 8  # AbsTaskClassification.samples_per_label
LOGREG_MAX_ITER = 100  # AbsTaskClassification.evaluator_model = LogisticRegression(max_iter=100)
KMEANS_BATCH_SIZE = 500  # ClusteringEvaluator(clustering_batch_size=500)
RETRIEVAL_K_VALUES = (1, 3, 5, 10, 20, 100, 1000)  # AbsTaskRetrieval.k_values

Label = Hashable


def _plain(obj: Any) -> Any:
    """JSON-friendly copy: numpy scalars to Python, tuples to lists, keys to str, NaN to None."""
    if isinstance(obj, float | np.floating) and math.isnan(obj):
        return None
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


@dataclass(frozen=True)
class ProcedureResult:
    """Common shape: per-item ``answers``, mteb-named ``scores`` (None without gold), ``method``."""

    answers: list[Any]
    scores: dict[str, Any] | None
    main_score_name: str
    method: str

    @property
    def main_score(self) -> float | None:
        """The score mteb reports as ``main_score`` for this task type."""
        return None if self.scores is None else self.scores[self.main_score_name]

    def to_dict(self) -> dict[str, Any]:
        d = _plain(asdict(self))
        d["main_score"] = self.main_score
        return d


@dataclass(frozen=True)
class ClassificationResult(ProcedureResult):
    """``answers``: majority label per test item over the experiments; ``confidences``: its
    vote share; ``scores``: mteb's experiment means (accuracy, f1, ...) and
    ``scores_per_experiment``."""

    confidences: list[float] = field(default_factory=list)
    votes: list[dict[Any, int]] = field(default_factory=list)
    predictions_per_experiment: list[list[Any]] = field(default_factory=list)
    train_indices: list[list[int]] = field(default_factory=list)


@dataclass(frozen=True)
class ClusteringResult(ProcedureResult):
    """``answers``: cluster id (0..K-1) per item, in input order."""

    n_clusters: int = 0


@dataclass(frozen=True)
class STSResult(ProcedureResult):
    """``answers``: cosine similarity per pair (float32 values, as mteb computes them)."""


@dataclass(frozen=True)
class RerankingResult(ProcedureResult):
    """``answers``: per query, ``{candidate_id: cosine}``; ``rankings``: ids best first (ties by
    id descending, as trec_eval and mteb break them); ``per_query``: AP (trec and sklearn), RR@10,
    nDCG@10 per scored query."""

    rankings: list[list[str]] = field(default_factory=list)
    query_ids: list[str] = field(default_factory=list)
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)


# --------------------------------------------------------------------------- classification


def classification_train_indices(
    train_labels: Sequence[Label],
    samples_per_label: int,
    *,
    n_experiments: int = N_EXPERIMENTS,
    seed: int = SEED,
) -> list[list[int]]:
    """Train-pool indices of each experiment, as ``AbsTaskClassification._undersample_data``.

    mteb re-creates ``np.random.RandomState(seed)`` every experiment but shuffles the *previous*
    experiment's order again, so experiment i sees the pool permuted i+1 times; then it keeps the
    first ``samples_per_label`` items of each label in that order. Exposed so a caller can embed
    only the union of these texts, as mteb does.
    """
    if samples_per_label < 1:
        raise ValueError("samples_per_label must be at least 1")
    idxs = list(range(len(train_labels)))
    experiments: list[list[int]] = []
    for _ in range(n_experiments):
        rng_state = np.random.RandomState(seed)
        rng_state.shuffle(idxs)
        counter: dict[Label, int] = defaultdict(int)
        selected: list[int] = []
        for i in idxs:
            label = train_labels[i]
            if counter[label] < samples_per_label:
                selected.append(i)
                counter[label] += 1
        experiments.append(selected)
    return experiments


def _rows(embeddings: np.ndarray | Mapping[int, np.ndarray], indices: Sequence[int]) -> np.ndarray:
    if isinstance(embeddings, Mapping):
        return np.stack([np.asarray(embeddings[i]) for i in indices])
    return np.asarray(embeddings)[list(indices)]


def _label_sort_key(label: Any) -> tuple[int, Any]:
    """Order for tie-breaks: numbers numerically, everything else alphabetically by its text."""
    if isinstance(label, int | float | np.integer | np.floating) and not isinstance(label, bool):
        return (0, float(label))
    return (1, str(label))


def majority_vote(votes: Sequence[Label]) -> tuple[Label, float, dict[Label, int]]:
    """Most frequent label (ties → alphabetically first), its share of the votes, the counts."""
    counts = Counter(votes)
    top = max(counts.values())
    winner = min((label for label, n in counts.items() if n == top), key=_label_sort_key)
    return winner, top / len(votes), dict(counts)


def classification_metrics(y_true: Sequence[Label], y_pred: Sequence[Label]) -> dict[str, Any]:
    """One experiment's metrics, as ``AbsTaskClassification._calculate_scores``."""
    from sklearn.metrics import (
        accuracy_score,
        average_precision_score,
        f1_score,
        precision_score,
        recall_score,
    )

    y_true_l, y_pred_l = list(y_true), list(y_pred)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined precision → 0, as mteb (zero_division="warn")
        scores: dict[str, Any] = {
            "accuracy": accuracy_score(y_true_l, y_pred_l),
            "f1": f1_score(y_true_l, y_pred_l, average="macro"),
            "f1_weighted": f1_score(y_true_l, y_pred_l, average="weighted"),
            "precision": precision_score(y_true_l, y_pred_l, average="macro"),
            "precision_weighted": precision_score(y_true_l, y_pred_l, average="weighted"),
            "recall": recall_score(y_true_l, y_pred_l, average="macro"),
            "recall_weighted": recall_score(y_true_l, y_pred_l, average="weighted"),
            "ap": None,
            "ap_weighted": None,
        }
        if len(np.unique(np.asarray(y_true_l))) == 2:
            try:  # mteb scores the hard predictions; only numeric labels allow it
                scores["ap"] = average_precision_score(y_true_l, y_pred_l, average="macro")
                scores["ap_weighted"] = average_precision_score(
                    y_true_l, y_pred_l, average="weighted"
                )
            except (TypeError, ValueError):
                pass
    return {k: (None if v is None else float(v)) for k, v in scores.items()}


def _average_experiments(per_experiment: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean over experiments, skipping None (``_calculate_avg_scores``)."""
    out: dict[str, Any] = {}
    for key in per_experiment[0]:
        values = [s[key] for s in per_experiment if s[key] is not None]
        out[key] = float(np.mean(values)) if values else math.nan
    out["scores_per_experiment"] = per_experiment
    return out


def classify(
    train_embeddings: np.ndarray | Mapping[int, np.ndarray],
    train_labels: Sequence[Label],
    test_embeddings: np.ndarray,
    test_labels: Sequence[Label] | None = None,
    *,
    samples_per_label: int,
    n_experiments: int = N_EXPERIMENTS,
    seed: int = SEED,
) -> ClassificationResult:
    """mteb's classification: per experiment, fit logistic regression on an undersampled train set.

    Mirrors ``AbsTaskClassification._evaluate_subset`` + ``SklearnEvaluator``:
    ``LogisticRegression(max_iter=100, random_state=seed)`` fitted on the rows of
    :func:`classification_train_indices` (in that order), predicting every test item.
    ``train_embeddings`` is an array over the whole pool or a mapping holding at least the
    selected rows. Pass embeddings in the encoder's dtype (float32): the fit depends on it.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    experiments = classification_train_indices(
        train_labels, samples_per_label, n_experiments=n_experiments, seed=seed
    )
    x_test = np.asarray(test_embeddings)
    if len(x_test) == 0 or len(train_labels) == 0:
        raise ValueError("classification needs at least one test item and one train item")
    if test_labels is not None and len(test_labels) != len(x_test):
        raise ValueError("test_labels and test_embeddings differ in length")
    predictions: list[list[Any]] = []
    per_experiment: list[dict[str, Any]] = []
    for selected in experiments:
        model = LogisticRegression(max_iter=LOGREG_MAX_ITER, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(_rows(train_embeddings, selected), [train_labels[i] for i in selected])
        y_pred = model.predict(x_test)
        predictions.append(y_pred.tolist())
        if test_labels is not None:
            per_experiment.append(classification_metrics(test_labels, y_pred))
    answers, confidences, votes = [], [], []
    for item in range(len(x_test)):
        label, share, counts = majority_vote([p[item] for p in predictions])
        answers.append(label)
        confidences.append(share)
        votes.append(counts)
    scores = _average_experiments(per_experiment) if test_labels is not None else None
    return ClassificationResult(
        answers=answers,
        scores=scores,
        main_score_name="accuracy",
        method=f"mteb:logreg(max_iter={LOGREG_MAX_ITER})x{n_experiments}"
        f"(samples_per_label={samples_per_label},seed={seed})+majority_vote",
        confidences=confidences,
        votes=votes,
        predictions_per_experiment=predictions,
        train_indices=experiments,
    )


# --------------------------------------------------------------------------- clustering


def cluster(
    embeddings: np.ndarray,
    gold_labels: Sequence[Label] | None = None,
    *,
    n_clusters: int | None = None,
    seed: int = SEED,
) -> ClusteringResult:
    """mteb's (legacy) clustering of one set: MiniBatchKMeans, K = number of gold labels.

    Mirrors ``ClusteringEvaluator`` as ``AbsTaskClusteringLegacy`` (all HUME clustering tasks) runs
    it on a text set: ``MiniBatchKMeans(n_clusters=K, batch_size=500, n_init="auto",
    compute_labels=True, random_state=seed)`` fitted on the items in their given order (order
    matters), V-measure against gold. A set with one gold label scores 1.0 unclustered, as mteb.
    """
    from sklearn.cluster import MiniBatchKMeans

    x = np.asarray(embeddings)
    if n_clusters is None:
        if gold_labels is None:
            raise ValueError("give n_clusters or gold_labels")
        n_clusters = len(set(gold_labels))
    if gold_labels is not None and len(gold_labels) != len(x):
        raise ValueError("gold_labels and embeddings differ in length")
    if n_clusters > len(x):
        raise ValueError(f"cannot make {n_clusters} clusters from {len(x)} items")
    if n_clusters <= 1:
        answers = [0] * len(x)
    else:
        model = MiniBatchKMeans(
            n_clusters=n_clusters,
            batch_size=KMEANS_BATCH_SIZE,
            n_init="auto",
            compute_labels=True,
            random_state=seed,
        )
        model.fit(x)
        answers = [int(c) for c in model.labels_.tolist()]
    scores = None
    if gold_labels is not None:
        scores = clustering_metrics(list(gold_labels), answers)
    return ClusteringResult(
        answers=answers,
        scores=scores,
        main_score_name="v_measure",
        method=f"mteb:minibatch_kmeans(k={n_clusters},batch_size={KMEANS_BATCH_SIZE},"
        f"n_init=auto,seed={seed})+v_measure",
        n_clusters=n_clusters,
    )


def clustering_metrics(gold: Sequence[Label], assignment: Sequence[int]) -> dict[str, float]:
    """V-measure (mteb's main score) plus NMI, ARI and cluster accuracy (mteb's non-text path)."""
    from scipy.optimize import linear_sum_assignment
    from sklearn import metrics

    if len(set(gold)) <= 1:  # AbsTaskClusteringLegacy: such a set is not clustered, v_measure 1.0
        return {"v_measure": 1.0}
    matrix = metrics.confusion_matrix([str(g) for g in gold], [str(a) for a in assignment])
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    return {
        "v_measure": float(metrics.cluster.v_measure_score(gold, assignment)),
        "nmi": float(metrics.cluster.normalized_mutual_info_score(gold, assignment)),
        "ari": float(metrics.cluster.adjusted_rand_score(gold, assignment)),
        "cluster_accuracy": float(matrix[rows, cols].sum() / len(gold)),
    }


# --------------------------------------------------------------------------- STS


def sts(
    embeddings1: np.ndarray,
    embeddings2: np.ndarray,
    gold: Sequence[float] | None = None,
    *,
    min_score: float = 0.0,
    max_score: float = 5.0,
    similarity: str = "cosine",
) -> STSResult:
    """mteb's STS: cosine per pair, Pearson/Spearman against gold normalised to [0, 1].

    Mirrors ``AnySTSEvaluator`` + ``AbsTaskSTS._calculate_scores``: cosine is
    ``1 - sklearn.paired_cosine_distances`` in the embeddings' dtype (main score
    ``cosine_spearman``); Manhattan and Euclidean are negated distances; ``pearson``/``spearman``
    use the model's own ``similarity`` function, as mteb's ``similarity_pairwise``.
    """
    from scipy.stats import pearsonr, spearmanr
    from sklearn.metrics.pairwise import (
        paired_cosine_distances,
        paired_euclidean_distances,
        paired_manhattan_distances,
    )

    e1, e2 = np.asarray(embeddings1), np.asarray(embeddings2)
    if e1.shape != e2.shape:
        raise ValueError("the two embedding arrays differ in shape")
    cosine = (1 - paired_cosine_distances(e1, e2)).tolist()
    scores = None
    if gold is not None:
        if len(gold) != len(cosine):
            raise ValueError("gold and embeddings differ in length")
        span = max_score - min_score
        normalized = [(float(x) - min_score) / span for x in gold]
        manhattan = (-paired_manhattan_distances(e1, e2)).tolist()
        euclidean = (-paired_euclidean_distances(e1, e2)).tolist()

        def corr(values: list[float]) -> tuple[float, float]:
            return float(pearsonr(normalized, values)[0]), float(spearmanr(normalized, values)[0])

        cos_p, cos_s = corr(cosine)
        man_p, man_s = corr(manhattan)
        euc_p, euc_s = corr(euclidean)
        own_p, own_s = corr(pairwise_similarity(e1, e2, similarity).tolist())
        scores = {
            "pearson": own_p,
            "spearman": own_s,
            "cosine_pearson": cos_p,
            "cosine_spearman": cos_s,
            "manhattan_pearson": man_p,
            "manhattan_spearman": man_s,
            "euclidean_pearson": euc_p,
            "euclidean_spearman": euc_s,
        }
    return STSResult(
        answers=cosine,
        scores=scores,
        main_score_name="cosine_spearman",
        method="mteb:cosine+spearman",
    )


# --------------------------------------------------------------------------- reranking


SIMILARITY_FUNCTIONS = ("cosine", "dot", "euclidean", "manhattan")


def similarity_matrix(a: np.ndarray, b: np.ndarray, fn: str = "cosine") -> np.ndarray:
    """The model's similarity of every row of ``a`` with every row of ``b``.

    Computed as sentence-transformers' ``util`` functions do (what mteb's wrapper calls through
    ``model.similarity``): with torch when it is installed — the same kernel, so the same bits
    and the same exact ties — else with numpy row by row (ties kept, values within ~1e-7).
    ``euclidean``/``manhattan`` are negated distances.
    """
    if fn not in SIMILARITY_FUNCTIONS:
        raise ValueError(f"unknown similarity {fn!r}: expected one of {SIMILARITY_FUNCTIONS}")
    a, b = np.atleast_2d(np.asarray(a)), np.atleast_2d(np.asarray(b))
    if a.dtype.itemsize < 4:  # ST upcasts sub-float32 embeddings before scoring
        a, b = a.astype(np.float32), b.astype(np.float32)
    try:
        import torch
    except ImportError:
        return _similarity_numpy(a, b, fn)
    ta, tb = torch.from_numpy(np.ascontiguousarray(a)), torch.from_numpy(np.ascontiguousarray(b))
    if fn == "cosine":
        normalize = torch.nn.functional.normalize
        out = torch.mm(normalize(ta, p=2, dim=-1), normalize(tb, p=2, dim=-1).transpose(0, 1))
    elif fn == "dot":
        out = torch.mm(ta, tb.transpose(0, 1))
    else:
        out = -torch.cdist(ta, tb, p=2.0 if fn == "euclidean" else 1.0)
    return out.numpy()


def _similarity_numpy(a: np.ndarray, b: np.ndarray, fn: str) -> np.ndarray:
    """Fallback without torch: one reduction per pair, so identical rows score identically."""
    if fn == "cosine":
        eps = a.dtype.type(1e-12)
        a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), eps)
        b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), eps)
    rows = []
    for row in a:
        if fn in ("cosine", "dot"):
            rows.append((b * row).sum(axis=1))
        elif fn == "euclidean":
            rows.append(-np.sqrt(((b - row) ** 2).sum(axis=1)))
        else:
            rows.append(-np.abs(b - row).sum(axis=1))
    return np.stack(rows).astype(np.result_type(a.dtype, b.dtype), copy=False)


def pairwise_similarity(a: np.ndarray, b: np.ndarray, fn: str = "cosine") -> np.ndarray:
    """Similarity of each pair ``(a[i], b[i])``, as sentence-transformers' ``pairwise_*``."""
    if fn not in SIMILARITY_FUNCTIONS:
        raise ValueError(f"unknown similarity {fn!r}: expected one of {SIMILARITY_FUNCTIONS}")
    a, b = np.atleast_2d(np.asarray(a)), np.atleast_2d(np.asarray(b))
    if a.dtype.itemsize < 4:
        a, b = a.astype(np.float32), b.astype(np.float32)
    ta: Any  # numpy arrays, or torch tensors where torch is installed
    tb: Any
    try:
        import torch
    except ImportError:
        xp: Any = np
        ta, tb = a, b
        if fn == "cosine":
            eps = a.dtype.type(1e-12)
            ta = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), eps)
            tb = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), eps)
    else:
        xp = torch
        ta, tb = (
            torch.from_numpy(np.ascontiguousarray(a)),
            torch.from_numpy(np.ascontiguousarray(b)),
        )
        if fn == "cosine":
            ta = torch.nn.functional.normalize(ta, p=2, dim=-1)
            tb = torch.nn.functional.normalize(tb, p=2, dim=-1)
    if fn in ("cosine", "dot"):
        out = (ta * tb).sum(-1)
    elif fn == "euclidean":
        out = -xp.sqrt(((ta - tb) ** 2).sum(-1))
    else:
        out = -xp.abs(ta - tb).sum(-1)
    return np.asarray(out)


def _ranking(doc_scores: Mapping[str, float]) -> list[str]:
    """Ids best first; ties by id descending (trec_eval, and mteb's ``mrr`` since #5092)."""
    return [d for d, _ in sorted(doc_scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def retrieval_metrics(
    results: Mapping[str, Mapping[str, float]],
    qrels: Mapping[str, Mapping[str, int]],
    k_values: Sequence[int] = RETRIEVAL_K_VALUES,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """mteb's retrieval scores (``calculate_retrieval_scores``) plus exact and sklearn MAP.

    pytrec_eval gives ``map_cut``/``ndcg_cut``/``recall``/``P``/``success`` per query, averaged and
    rounded to 5 decimals as mteb reports them (``map_at_1000`` is the HUME main score); MRR@k uses
    mteb's own loop, unrounded. ``map`` is the unrounded trec MAP@1000 and ``map_sklearn`` the
    mean scikit-learn average precision (mteb v1's reranking score).
    """
    import pytrec_eval
    from sklearn.metrics import average_precision_score

    ks = [int(k) for k in k_values]
    joined = ",".join(str(k) for k in ks)
    measures = {
        f"map_cut.{joined}",
        f"ndcg_cut.{joined}",
        f"recall.{joined}",
        f"P.{joined}",
        f"success.{joined}",
    }
    qrels_int = {q: {d: int(r) for d, r in docs.items()} for q, docs in qrels.items()}
    runs = {q: {d: float(s) for d, s in docs.items()} for q, docs in results.items()}
    per_query_trec = pytrec_eval.RelevanceEvaluator(qrels_int, measures).evaluate(runs)
    n = len(per_query_trec)
    scores: dict[str, float] = {}
    for name, trec in (
        ("ndcg_at", "ndcg_cut_"),
        ("map_at", "map_cut_"),
        ("recall_at", "recall_"),
        ("precision_at", "P_"),
        ("hit_rate_at", "success_"),
    ):
        for k in ks:
            total = sum(per_query_trec[q][f"{trec}{k}"] for q in per_query_trec)
            scores[f"{name}_{k}"] = round(total / n, 5)
    per_query: dict[str, dict[str, float]] = {}
    for q, docs in runs.items():
        if q not in qrels_int:
            continue
        ranking = _ranking(docs)
        relevant = {d for d, r in qrels_int[q].items() if r > 0}
        rr = {k: 0.0 for k in ks}
        for k in ks:
            for rank, d in enumerate(ranking[:k]):
                if d in relevant:
                    rr[k] = 1.0 / (rank + 1)
                    break
        ids = list(docs)
        y_true = [1 if qrels_int[q].get(d, 0) > 0 else 0 for d in ids]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ap_sk = float(average_precision_score(y_true, [docs[d] for d in ids]))
        per_query[q] = {
            "ap": float(per_query_trec[q]["map_cut_1000"]) if q in per_query_trec else 0.0,
            "ap_sklearn": 0.0 if math.isnan(ap_sk) else ap_sk,
            **{f"rr_at_{k}": rr[k] for k in ks},
            "ndcg_at_10": float(per_query_trec.get(q, {}).get("ndcg_cut_10", 0.0)),
        }
    for k in ks:
        scores[f"mrr_at_{k}"] = sum(p[f"rr_at_{k}"] for p in per_query.values()) / len(per_query)
    scores["map"] = sum(p["ap"] for p in per_query.values()) / len(per_query)
    scores["map_sklearn"] = sum(p["ap_sklearn"] for p in per_query.values()) / len(per_query)
    scores["accuracy"] = scores["recall_at_1"]
    return scores, per_query


def rerank(
    query_embeddings: np.ndarray,
    candidate_embeddings: Sequence[np.ndarray],
    candidate_ids: Sequence[Sequence[str]],
    gold: Sequence[Mapping[str, int]] | None = None,
    *,
    query_ids: Sequence[str] | None = None,
    k_values: Sequence[int] = RETRIEVAL_K_VALUES,
    similarity: str = "cosine",
) -> RerankingResult:
    """mteb's reranking: cosine(query, each candidate), then trec-style MAP@1000 and friends.

    Mirrors ``SearchEncoderWrapper`` with ``top_ranked`` (``rerank_top_ranked_documents``: the
    model's similarity, one query against its candidates) and ``AbsTaskRetrieval._evaluate_subset``:
    queries whose gold is empty are dropped from the score
    (``_filter_queries_without_positives``), still answered. ``similarity`` is the model's own
    function (mteb calls ``model.similarity``); cosine for almost every model.
    """
    q = np.asarray(query_embeddings)
    if not (len(q) == len(candidate_embeddings) == len(candidate_ids)):
        raise ValueError("queries, candidate embeddings and candidate ids differ in length")
    qids = [str(x) for x in (query_ids if query_ids is not None else range(len(q)))]
    answers: list[dict[str, float]] = []
    rankings: list[list[str]] = []
    for i, qid in enumerate(qids):
        ids = [str(c) for c in candidate_ids[i]]
        sims = similarity_matrix(q[i], np.asarray(candidate_embeddings[i]), similarity)[0]
        if np.isnan(sims).any():
            raise ValueError(f"NaN similarity for query {qid!r}")
        doc_scores = {cid: float(s) for cid, s in zip(ids, sims.tolist(), strict=True)}
        answers.append(doc_scores)
        rankings.append(_ranking(doc_scores))
    scores: dict[str, float] | None = None
    per_query: dict[str, dict[str, float]] = {}
    if gold is not None:
        if len(gold) != len(qids):
            raise ValueError("gold and queries differ in length")
        qrels = {
            qid: {str(d): int(r) for d, r in g.items()}
            for qid, g in zip(qids, gold, strict=True)
            if len(g) > 0
        }
        if qrels:
            runs = {qid: answers[i] for i, qid in enumerate(qids) if qid in qrels}
            scores, per_query = retrieval_metrics(runs, qrels, k_values)
    return RerankingResult(
        answers=answers,
        scores=scores,
        main_score_name="map_at_1000",
        method=f"mteb:{similarity}+trec_eval(map_cut.1000)",
        rankings=rankings,
        query_ids=qids,
        per_query=per_query,
    )


# --------------------------------------------------------------------------- model input


def query_text(instance: Mapping[str, Any]) -> str:
    """The query as mteb feeds it: text, then `` instruction`` when the instance has one."""
    text = str(instance["query"])
    instruction = instance.get("instruction")
    return text + " " + str(instruction) if instruction is not None else text


def document_text(candidate: Mapping[str, Any]) -> str:
    """A candidate as mteb feeds it (``_corpus_to_dict``): ``title text`` or text, stripped."""
    title = candidate.get("title") or ""
    text = str(candidate.get("text") or "")
    return (title + " " + text).strip() if len(title) > 0 else text.strip()
