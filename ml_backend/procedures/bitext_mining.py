"""Bitext mining: mteb's ``AbsTaskBitextMining`` (nearest neighbour among all targets, F1).

mteb embeds every ``sentence1`` in one call and every ``sentence2`` in another, finds each
sentence's nearest target by the model's own similarity (``BitextMiningEvaluator.
_similarity_search``: ``model.similarity`` then ``torch.topk``) and scores the neighbours
against gold (item *i*'s translation is target *i*) with weighted F1. :func:`mine` does that on
ready embeddings, and beside it answers the question people are asked: which of the item's
candidate translations is the translation, by the same similarity, scored by the same metric
(the ``candidates_*`` scores, like for like with the people's).
:func:`nearest_targets` is the same search returning several neighbours, which the study uses to
pick the hard candidates people see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ml_backend.procedures.common import ProcedureResult, similarity_matrix
from scoring.aggregation.bitext_mining import MAIN_SCORE, mining_metrics

__all__ = ["BitextMiningResult", "mine", "nearest_targets"]

#: The prefix of the scores of the choice among the candidates shown (like for like).
CANDIDATES_PREFIX = "candidates_"


@dataclass(frozen=True)
class BitextMiningResult(ProcedureResult):
    """``answers``: per item ``{candidate_id: similarity}`` over the candidates shown.

    ``scores`` hold mteb's metrics of the search among every target of the subset
    (``precision``, ``recall``, ``f1``, ``accuracy``; main score ``f1``) and the same metrics of
    the choice among the item's candidates (``candidates_f1``, ...).
    """

    choices: list[str]


def _top(similarities: np.ndarray, k: int) -> np.ndarray:
    """Pick the ``k`` largest values per row, best first.

    As ``torch.topk`` picks them (mteb's search), or by a stable numpy sort without torch.

    Args:
        similarities: one row per sentence.
        k: how many per row.

    Returns:
        The column indices, ``(rows, min(k, columns))``.
    """
    k = min(k, similarities.shape[1])
    try:
        import torch
    except ImportError:  # pragma: no cover - torch ships with sentence-transformers
        return np.argsort(-similarities, axis=1, kind="stable")[:, :k]
    values = torch.from_numpy(np.ascontiguousarray(similarities))
    return torch.topk(values, k, dim=1, largest=True, sorted=True).indices.numpy()


def nearest_targets(
    sentences: np.ndarray, targets: np.ndarray, k: int, *, similarity: str = "cosine"
) -> np.ndarray:
    """The ``k`` nearest targets of each sentence, best first (mteb's search, ``k`` deep).

    Args:
        sentences: one row per source sentence.
        targets: one row per target sentence (the whole target side).
        k: how many neighbours per sentence.
        similarity: the model's similarity function.

    Returns:
        An ``(n_sentences, min(k, n_targets))`` array of target indices.
    """
    return _top(similarity_matrix(sentences, targets, similarity), k)


def mine(
    sentences: np.ndarray,
    candidates: Sequence[np.ndarray],
    candidate_ids: Sequence[Sequence[str]],
    *,
    gold_targets: np.ndarray | None = None,
    gold_ids: Sequence[str] | None = None,
    similarity: str = "cosine",
) -> BitextMiningResult:
    """Each item's similarity to its candidates, and with gold mteb's scores.

    Args:
        sentences: one row per item's source sentence, in the source's order.
        candidates: per item, one row per candidate translation shown.
        candidate_ids: per item, the candidates' ids (a target sentence has one id on every
            item of the subset).
        gold_targets: the items' gold translations, one row each, in the items' order: mteb's
            ``sentence2``, searched whole for every sentence. None without gold.
        gold_ids: the id of each item's gold candidate; None without gold.
        similarity: the model's similarity function.

    Returns:
        The similarities as answers, the chosen candidate per item in ``choices``, and the
        scores when gold is given.

    Raises:
        ValueError: when the inputs differ in length, or gold is given by halves.
    """
    n = len(sentences)
    if len(candidates) != n or len(candidate_ids) != n:
        raise ValueError("sentences, candidates and candidate ids differ in length")
    if (gold_targets is None) != (gold_ids is None):
        raise ValueError("gold_targets and gold_ids go together")
    answers: list[dict[str, float]] = []
    choices: list[str] = []
    for i in range(n):
        ids = [str(c) for c in candidate_ids[i]]
        sims = similarity_matrix(sentences[i : i + 1], candidates[i], similarity)
        answers.append({cid: float(s) for cid, s in zip(ids, sims[0].tolist(), strict=True)})
        choices.append(ids[int(_top(sims, 1)[0, 0])])
    scores: dict[str, Any] | None = None
    if gold_targets is not None and gold_ids is not None:
        if len(gold_targets) != n or len(gold_ids) != n:
            raise ValueError("gold and sentences differ in length")
        found = nearest_targets(sentences, gold_targets, 1, similarity=similarity)[:, 0]
        scores = mining_metrics(list(range(n)), [int(j) for j in found])
        restricted = mining_metrics([str(g) for g in gold_ids], choices)
        scores.update({CANDIDATES_PREFIX + k: v for k, v in restricted.items()})
    return BitextMiningResult(
        answers=answers,
        scores=scores,
        main_score_name=MAIN_SCORE,
        method="mteb:bitext_mining(nearest_neighbour)+f1",
        choices=choices,
    )
