"""Summarization: mteb's ``AbsTaskSummarization`` (best similarity to a reference, Spearman).

mteb embeds every human (reference) summary in one call and every machine summary in another.
For each machine summary it takes the largest cosine (``mteb.similarity_functions.cos_sim``),
dot product (``dot_score``) and model similarity (``model.similarity``) to its text's
references: the summary's predicted quality. Per text those are correlated with the expert
scores, and the correlations averaged (``SummarizationEvaluator``; main score
``cosine_spearman``). :func:`summarize` does that on ready embeddings; its answers, a
summary's best cosine, are what a person's rating stands beside.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ml_backend.procedures.common import ProcedureResult, similarity_matrix
from scoring.aggregation.summarization import MAIN_SCORE, summarization_metrics

__all__ = ["SummarizationResult", "summarize"]


@dataclass(frozen=True)
class SummarizationResult(ProcedureResult):
    """``answers``: per text, each machine summary's best cosine to the references.

    ``scores`` hold mteb's metrics (``cosine_spearman`` the main one) and
    ``n_texts_skipped``, the texts mteb leaves out (constant gold or scores).
    """


def _best(summary: np.ndarray, references: np.ndarray, fn: str) -> float:
    """One summary's largest similarity to the references.

    Computed one summary at a time, as mteb's loop does; cosine and dot in float32, as
    mteb's ``cos_sim`` and ``dot_score`` convert their inputs.

    Args:
        summary: the summary's embedding.
        references: one row per reference summary.
        fn: the similarity function.

    Returns:
        The maximum over the references.
    """
    if fn in ("cosine", "dot"):
        summary, references = summary.astype(np.float32), references.astype(np.float32)
    return float(np.max(similarity_matrix(summary[None, :], references, fn)))


def summarize(
    references: Sequence[np.ndarray],
    summaries: Sequence[np.ndarray],
    gold: Sequence[Sequence[float]] | None = None,
    *,
    similarity: str = "cosine",
) -> SummarizationResult:
    """Each machine summary's best similarity to its text's references, and mteb's scores.

    Args:
        references: per text, one row per reference summary.
        summaries: per text, one row per machine summary, in the source's order.
        gold: per text, the expert score of each machine summary; None without gold.
        similarity: the model's own similarity function (mteb's ``spearman``/``pearson``).

    Returns:
        The best cosines as answers and, with gold, mteb's scores.

    Raises:
        ValueError: the inputs differ in length, or a text has no reference.
    """
    n = len(summaries)
    if len(references) != n or (gold is not None and len(gold) != n):
        raise ValueError("references, summaries and gold differ in length")
    cosine: list[list[float]] = []
    dot: list[list[float]] = []
    own: list[list[float]] = []
    for refs, summ in zip(references, summaries, strict=True):
        refs = np.atleast_2d(np.asarray(refs))
        if refs.shape[0] == 0:
            raise ValueError("a text has no reference summary")
        rows = np.atleast_2d(np.asarray(summ))
        cosine.append([_best(row, refs, "cosine") for row in rows])
        dot.append([_best(row, refs, "dot") for row in rows])
        own.append(
            cosine[-1] if similarity == "cosine" else [_best(row, refs, similarity) for row in rows]
        )
    if gold is not None:
        for g, c in zip(gold, cosine, strict=True):
            if len(g) != len(c):
                raise ValueError("a text's gold and summaries differ in length")
    scores = (
        None
        if gold is None
        else summarization_metrics([list(map(float, g)) for g in gold], cosine, dot, own)
    )
    return SummarizationResult(
        answers=cosine,
        scores=scores,
        main_score_name=MAIN_SCORE,
        method="mteb:summarization(max_cosine_to_references)+text_spearman",
    )
