"""What every type's model procedure shares: the result shape and the model's similarity.

Each type's module beside this one (``ml_backend/procedures/<type>.py``) re-implements what the
installed mteb 2.x evaluator does for that type, so that a model's answers shown in Label Studio
and its score on the HUME instances are the numbers mteb itself would report
(``tests/ml_backend/test_parity.py`` checks this against mteb's own classes). The procedures take
embeddings computed elsewhere (once per distinct text by the backend's cache) and know nothing
of studies or jobs. This module holds only what several of them use, so that it names no type.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

SEED = 42  # mteb's default task / evaluator seed

Label = Hashable

__all__ = [
    "SEED",
    "SIMILARITY_FUNCTIONS",
    "Label",
    "ProcedureResult",
    "average_experiments",
    "candidate_similarities",
    "pairwise_similarity",
    "similarity_matrix",
    "train_rows",
]


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
    """Common shape: per-item ``answers``, mteb-named ``scores`` (None without gold), ``method``.

    Attributes:
        answers: the model's answer per item (or per instance), in input order.
        scores: the task's scores by mteb's names; None when no gold was given.
        main_score_name: which of ``scores`` mteb reports as ``main_score``.
        method: a stable identifier of how the answers and scores were computed.
    """

    answers: list[Any]
    scores: dict[str, Any] | None
    main_score_name: str
    method: str

    @property
    def main_score(self) -> float | None:
        """The score mteb reports as ``main_score`` for this task type.

        Returns:
            ``scores[main_score_name]``, or None without gold.
        """
        return None if self.scores is None else self.scores[self.main_score_name]

    def to_dict(self) -> dict[str, Any]:
        """Copy the result as JSON-friendly data, with ``main_score`` added.

        Returns:
            The fields as plain Python values (numpy scalars converted, NaN as None).
        """
        d = _plain(asdict(self))
        d["main_score"] = self.main_score
        return d


SIMILARITY_FUNCTIONS = ("cosine", "dot", "euclidean", "manhattan")


def similarity_matrix(a: np.ndarray, b: np.ndarray, fn: str = "cosine") -> np.ndarray:
    """The model's similarity of every row of ``a`` with every row of ``b``.

    Computed as sentence-transformers' ``util`` functions do (what mteb's wrapper calls through
    ``model.similarity``): with torch when it is installed — the same kernel, so the same bits
    and the same exact ties — else with numpy row by row (ties kept, values within ~1e-7).
    ``euclidean``/``manhattan`` are negated distances.

    Args:
        a: one row per text.
        b: one row per text, of the same width.
        fn: the model's similarity function, one of :data:`SIMILARITY_FUNCTIONS`.

    Returns:
        The ``len(a) × len(b)`` matrix, at least float32.

    Raises:
        ValueError: for an unknown ``fn``.
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
    """Compute the similarity of each pair ``(a[i], b[i])``.

    As sentence-transformers' ``pairwise_*`` functions do (torch when installed, else numpy).

    Args:
        a: the first text of each pair, one row per pair.
        b: the second text of each pair, in the same order and shape.
        fn: the model's similarity function, one of :data:`SIMILARITY_FUNCTIONS`.

    Returns:
        One value per pair.

    Raises:
        ValueError: for an unknown ``fn``.
    """
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


def candidate_similarities(
    query_embeddings: np.ndarray,
    candidate_embeddings: Sequence[np.ndarray],
    candidate_ids: Sequence[Sequence[Any]],
    query_ids: Sequence[Any] | None,
    similarity: str,
) -> tuple[list[str], list[dict[str, float]]]:
    """Each query's similarity to each of its own candidates, as mteb's ``top_ranked`` path.

    One query against its own candidates only, never the whole corpus; used by every type
    whose models rank a shown list of candidates.

    Args:
        query_embeddings: one row per query.
        candidate_embeddings: per query, one row per candidate.
        candidate_ids: per query, the candidate ids in the rows' order.
        query_ids: the query ids; None numbers the queries from 0.
        similarity: the model's similarity function.

    Returns:
        The query ids as text, and per query ``{candidate id: similarity}``.

    Raises:
        ValueError: when the inputs differ in length or a similarity is NaN.
    """
    q = np.asarray(query_embeddings)
    if not (len(q) == len(candidate_embeddings) == len(candidate_ids)):
        raise ValueError("queries, candidate embeddings and candidate ids differ in length")
    qids = [str(x) for x in (query_ids if query_ids is not None else range(len(q)))]
    answers: list[dict[str, float]] = []
    for i, qid in enumerate(qids):
        sims = similarity_matrix(q[i], np.asarray(candidate_embeddings[i]), similarity)[0]
        if np.isnan(sims).any():
            raise ValueError(f"NaN similarity for query {qid!r}")
        ids = [str(c) for c in candidate_ids[i]]
        answers.append({c: float(v) for c, v in zip(ids, sims.tolist(), strict=True)})
    return qids, answers


def train_rows(
    embeddings: np.ndarray | Mapping[int, np.ndarray], indices: Sequence[int]
) -> np.ndarray:
    """The embeddings of the train-pool rows ``indices``, stacked in that order.

    A train-pool procedure gets either every row's embedding (an array) or only those of the
    rows mteb embeds (a mapping from pool index, what ``predict`` hands over).

    Args:
        embeddings: every row's embedding, or pool index → embedding.
        indices: the rows wanted.

    Returns:
        One row per index, stacked.
    """
    if isinstance(embeddings, Mapping):
        return np.stack([np.asarray(embeddings[i]) for i in indices])
    return np.asarray(embeddings)[list(indices)]


def average_experiments(per_experiment: list[dict[str, Any]]) -> dict[str, Any]:
    """The mean of each score over the experiments, as mteb's ``_calculate_avg_scores``.

    None values are skipped (NaN where every value is None); the experiments go beside the
    means under ``scores_per_experiment``.

    Args:
        per_experiment: each experiment's scores, with the same keys.

    Returns:
        The means, and ``scores_per_experiment``.
    """
    out: dict[str, Any] = {}
    for key in per_experiment[0]:
        values = [s[key] for s in per_experiment if s[key] is not None]
        out[key] = float(np.mean(values)) if values else math.nan
    out["scores_per_experiment"] = per_experiment
    return out
