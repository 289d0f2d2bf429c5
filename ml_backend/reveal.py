"""Stored model answers → Label Studio predictions, for managers to compare in the Data Manager.

Pure translation (no store, no server): ``hume_sync.steps.reveal`` and the ML backend app share it,
so a prediction looks the same whichever way it reached Label Studio.

Embedding-model answers (``model_version`` ``emb:…``) are raw model outputs and are mapped onto
the labeling interface first:

- classification: the majority label, as is (score: its vote share);
- clustering: ``{item_id: "group_k"}`` already names the interface's groups ``group_1..K``;
- STS: the cosine becomes the level ``round(cosine × 5)`` (half up) clipped to 0..5. A display
  convention only: mteb scores STS by rank correlation, which this mapping does not change;
- reranking: candidates are listed best first, and the ones above the largest drop between
  consecutive similarity scores are marked Relevant (rule ``"gap"``: at least the top one,
  never all of them when there are two or more). The rule needs no gold and adapts to how
  sharply the model separates candidates; ``"top1"`` marks only the best candidate.

Other answers (LLM annotators, ``llm:…``) already have the human answer shapes and go to
``label_studio_configs`` unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import label_studio_configs

RERANK_RULES = ("gap", "top1")
DEFAULT_RERANK_RULE = "gap"
STS_MIN_LEVEL, STS_MAX_LEVEL = 0, 5
EMBEDDING_PREFIX = "emb:"


def is_embedding_version(model_version: str) -> bool:
    """Whether predictions of this version are raw embedding-model outputs."""
    return model_version.startswith(EMBEDDING_PREFIX)


def sts_level(cosine: float) -> int:
    """The 0..5 level shown for a cosine similarity: ``cosine × 5`` rounded half up, clipped."""
    if not math.isfinite(cosine):
        raise ValueError(f"cosine {cosine!r} is not finite")
    return int(min(STS_MAX_LEVEL, max(STS_MIN_LEVEL, math.floor(cosine * 5 + 0.5))))


def ranked_ids(scores: Mapping[str, float]) -> list[str]:
    """Candidate ids best first; exact ties by id descending (as mteb and trec_eval rank)."""
    return [k for k, _ in sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def rerank_marks(scores: Mapping[str, float], rule: str = DEFAULT_RERANK_RULE) -> dict[str, int]:
    """``{candidate_id: 1|0}`` from the model's scores by a gold-free rule (see module doc)."""
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


def display_answer(
    task_type: str, model_version: str, answer: Any, *, rule: str = DEFAULT_RERANK_RULE
) -> Any:
    """The answer in the interface's shape (embedding outputs mapped, others unchanged)."""
    if not is_embedding_version(model_version):
        return answer
    if task_type == "sts":
        return sts_level(float(answer))
    if task_type == "reranking":
        if not isinstance(answer, Mapping):
            raise label_studio_configs.InvalidAnswerError(
                f"reranking scores must be a mapping, got {type(answer).__name__}"
            )
        return rerank_marks({str(k): float(v) for k, v in answer.items()}, rule)
    return answer


def ls_prediction(
    task_type: str,
    model_version: str,
    answer: Any,
    score: float | None,
    *,
    config: Mapping[str, Any],
    content: Mapping[str, Any],
    rule: str = DEFAULT_RERANK_RULE,
) -> dict[str, Any]:
    """A Label Studio prediction ``{model_version, score, result}`` for a stored answer.

    ``config`` is the subset's stored config (``label_set`` for classification, ``n_groups``
    for clustering); ``content`` the instance (item ids). Raises
    ``label_studio_configs.InvalidAnswerError`` when the answer does not fit the interface.
    """
    module = label_studio_configs.get(task_type)
    shown = display_answer(task_type, model_version, answer, rule=rule)
    item_ids: Sequence[str] | None = None
    if task_type == "clustering":
        item_ids = label_studio_configs.clustering.item_ids(content)
    elif task_type == "reranking":
        item_ids = label_studio_configs.reranking.item_ids(content)
        if is_embedding_version(model_version) and isinstance(answer, Mapping):
            ranked = ranked_ids({str(k): float(v) for k, v in answer.items()})
            if sorted(ranked) == sorted(item_ids):
                item_ids = ranked  # buckets list candidates best first
    result = module.answer_to_result(
        shown,
        labels=config.get("label_set") if task_type == "classification" else None,
        n_groups=config.get("n_groups"),
        item_ids=item_ids,
    )
    out: dict[str, Any] = {"model_version": model_version, "result": result}
    if score is not None and math.isfinite(float(score)):
        out["score"] = float(score)
    return out
