"""Stored model answers → Label Studio predictions, for managers to compare in the Data Manager.

Pure translation (no store, no server): ``hume_sync.workflow.reveal`` and the ML backend app share
it, so a prediction looks the same whichever way it reached Label Studio. Functions take the task
type object, which implements :class:`RevealedInterface` (its Label Studio interface plus how an
embedding model's raw output is shown in it); nothing here branches on a type's name.

Embedding-model answers (``model_version`` ``emb:…``) are raw model outputs and are mapped onto
the labeling interface first (each type's ``ls_shown_*`` methods, with the helpers below):

- classification: the majority label, as is;
- clustering: ``{item_id: "group_k"}`` already names the interface's groups ``group_1..K``;
- STS: the cosine becomes the level ``round(cosine × 5)`` (half up) clipped to 0..5. A display
  convention only: mteb scores STS by rank correlation, which this mapping does not change;
- reranking: candidates are listed best first, and the ones above the largest drop between
  consecutive similarity scores are marked Relevant (rule ``"gap"``: at least the top one,
  never all of them when there are two or more). The rule needs no gold and adapts to how
  sharply the model separates candidates; ``"top1"`` marks only the best candidate.

Other answers (LLM annotators, ``llm:…``) already have the human answer shapes and go to
``label_studio_configs`` unchanged.

Scores: Label Studio prints a prediction's ``score`` as a percentage beside it ("100.00 %"),
which a manager reads as confidence or accuracy. The stored item scores are neither: a
classification score is the share of mteb's 10 logistic-regression runs that voted for the label
(100 % on most items), a pair-classification score the pair's cosine similarity. So a prediction
carries a score only where its type's :meth:`RevealedInterface.ls_reveal_score` gives one that
means what a percentage says; no registered type does, so predictions show none (the model's
scores are in the export's report, named).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Mapping
from typing import Any

from label_studio_configs.interface import TaskInterface

RERANK_RULES = ("gap", "top1")
DEFAULT_RERANK_RULE = "gap"
STS_MIN_LEVEL, STS_MAX_LEVEL = 0, 5
EMBEDDING_PREFIX = "emb:"

__all__ = [
    "DEFAULT_RERANK_RULE",
    "EMBEDDING_PREFIX",
    "RERANK_RULES",
    "STS_MAX_LEVEL",
    "STS_MIN_LEVEL",
    "RevealedInterface",
    "display_answer",
    "is_embedding_version",
    "ls_prediction",
    "ranked_ids",
    "rerank_marks",
    "sts_level",
]


def is_embedding_version(model_version: str) -> bool:
    """Tell whether predictions of this version are raw embedding-model outputs.

    Args:
        model_version: the prediction's ``model_version`` (``emb:…`` or ``llm:…``).

    Returns:
        True for an embedding model's version.
    """
    return model_version.startswith(EMBEDDING_PREFIX)


def sts_level(cosine: float) -> int:
    """Map a cosine similarity to the 0..5 level shown: ``cosine × 5`` rounded half up, clipped.

    Args:
        cosine: the model's cosine similarity for the pair.

    Returns:
        The level, 0 to 5.

    Raises:
        ValueError: when ``cosine`` is not finite.
    """
    if not math.isfinite(cosine):
        raise ValueError(f"cosine {cosine!r} is not finite")
    return int(min(STS_MAX_LEVEL, max(STS_MIN_LEVEL, math.floor(cosine * 5 + 0.5))))


def ranked_ids(scores: Mapping[str, float]) -> list[str]:
    """Rank candidate ids best first; exact ties by id descending (as mteb and trec_eval rank).

    Args:
        scores: the model's score per candidate id.

    Returns:
        The ids, best first.
    """
    return [k for k, _ in sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def rerank_marks(scores: Mapping[str, float], rule: str = DEFAULT_RERANK_RULE) -> dict[str, int]:
    """Mark candidates relevant from the model's scores by a gold-free rule (see module doc).

    Args:
        scores: the model's score per candidate id.
        rule: ``"gap"`` (above the largest drop) or ``"top1"`` (the best only).

    Returns:
        ``{candidate_id: 1|0}``, in the order of ``scores``; empty for no candidates.

    Raises:
        ValueError: for a rule not in :data:`RERANK_RULES`.
    """
    if rule not in RERANK_RULES:
        raise ValueError(f"unknown reranking rule {rule!r}; expected one of {RERANK_RULES}")
    order = ranked_ids(scores)
    if not order:
        return {}
    n_relevant = 1
    if rule == "gap" and len(order) > 1:
        values = [float(scores[k]) for k in order]
        gaps = [values[i] - values[i + 1] for i in range(len(values) - 1)]
        n_relevant = 1 + max(range(len(gaps)), key=lambda i: (gaps[i], -i))
    top = set(order[:n_relevant])
    return {k: int(k in top) for k in scores}


class RevealedInterface(TaskInterface):
    """A task type's interface, plus how an embedding model's raw output is shown in it.

    Embedding models answer in their own shapes (a cosine, similarity scores); humans and LLMs
    answer in the interface's. A type says how to turn the former into the latter for display,
    and in which order the interface lists its items then.
    """

    @abstractmethod
    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> Any:
        """Map an embedding model's stored answer to the interface's answer shape.

        Args:
            answer: the stored (raw) answer: a label, a cosine, similarity scores, ...
            rule: the reranking rule (:data:`RERANK_RULES`) for types that need a cut-off.

        Returns:
            The answer as a human or LLM annotator would give it.

        Raises:
            label_studio_configs.InvalidAnswerError: when the stored answer cannot be shown.
            ValueError: likewise, from the helpers here (a cosine that is not finite).
        """

    def ls_reveal_score(self, model_version: str, score: float | None) -> float | None:
        """Give the score Label Studio shows (as a percentage) with a prediction of this type.

        None, the default, shows none. Override only for a stored score that is a probability of
        the shown answer (see the module doc).

        Args:
            model_version: the prediction's ``model_version``.
            score: the stored item score.

        Returns:
            The score to show, or None to show none.
        """
        del model_version, score
        return None

    def ls_shown_item_ids(self, item_ids: list[str] | None, answer: Any) -> list[str] | None:
        """Give the item order of an embedding model's prediction (default: the content's order).

        Args:
            item_ids: :meth:`ls_item_ids` of the instance.
            answer: the stored (raw) answer, for a type that lists items by it.

        Returns:
            The item ids in the order the interface lists them.
        """
        del answer
        return item_ids


def display_answer(
    task: RevealedInterface, model_version: str, answer: Any, *, rule: str = DEFAULT_RERANK_RULE
) -> Any:
    """Give the answer in the interface's shape (embedding outputs mapped, others unchanged).

    Args:
        task: the task type.
        model_version: the answer's ``model_version``; only ``emb:…`` answers are mapped.
        answer: the stored answer.
        rule: the reranking rule for an embedding model's reranking answer.

    Returns:
        The answer a human annotator's would look like.
    """
    if not is_embedding_version(model_version):
        return answer
    return task.ls_shown_embedding_answer(answer, rule=rule)


def ls_prediction(
    task: RevealedInterface,
    model_version: str,
    answer: Any,
    score: float | None,
    *,
    config: Mapping[str, Any],
    content: Mapping[str, Any],
    rule: str = DEFAULT_RERANK_RULE,
) -> dict[str, Any]:
    """Build the Label Studio prediction for a stored answer.

    Args:
        task: the task type.
        model_version: the answer's ``model_version``.
        answer: the stored answer.
        score: the stored item score, shown only where the type's
            :meth:`RevealedInterface.ls_reveal_score` gives one.
        config: the subset's stored config (``label_set``, ``n_groups``).
        content: the instance (item ids).
        rule: the reranking rule for an embedding model's reranking answer.

    Returns:
        ``{model_version, result}``, with ``score`` where the type shows one.

    Raises:
        label_studio_configs.InvalidAnswerError: when the answer does not fit the interface.
    """
    shown = display_answer(task, model_version, answer, rule=rule)
    kwargs = task.ls_translation_kwargs(config, content)
    if is_embedding_version(model_version):
        kwargs["item_ids"] = task.ls_shown_item_ids(kwargs["item_ids"], answer)
    result = task.ls_answer_to_result(shown, **kwargs)
    out: dict[str, Any] = {"model_version": model_version, "result": result}
    score = task.ls_reveal_score(model_version, score)
    if score is not None and math.isfinite(float(score)):
        out["score"] = float(score)
    return out
