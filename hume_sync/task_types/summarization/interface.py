"""Summarization's Label Studio interface: a text and its summaries, every summary rated 1–5.

The references are shown where the subset's stored ``show_references`` says so. An embedding
model's stored answer is each summary's best cosine to the references; only its order means
anything (its score is a Spearman correlation), so it is revealed as ratings spread over the
scale by rank (:func:`spread_ratings`), summaries listed best first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from label_studio_configs import summarization as config_module
from label_studio_configs.errors import InvalidAnswerError
from ml_backend.reveal import RevealedInterface, ranked_ids
from scoring.quality import ShownAnswer


def spread_ratings(scores: Mapping[str, float]) -> dict[str, int]:
    """Ratings 1–5 from a model's scores by rank: the lowest 1, the highest 5, the others
    evenly between (rounded half up); equal scores share their mean rank. A display rule only:
    the model is scored on its similarities, whose order these ratings keep."""
    if not scores:
        return {}
    values = {str(k): float(v) for k, v in scores.items()}
    order = sorted(values.values())
    lo, hi = min(config_module.RATINGS), max(config_module.RATINGS)
    n = len(order)
    out = {}
    for k, v in values.items():
        first = order.index(v)
        last = n - 1 - order[::-1].index(v)
        rank = (first + last) / 2
        share = rank / (n - 1) if n > 1 else 1.0
        out[k] = int(lo + (hi - lo) * share + 0.5)
    return out


class SummarizationInterface(RevealedInterface):
    """Summarization's interface behaviour (``TaskInterface`` + ``RevealedInterface``)."""

    ls_module = config_module

    def ls_labels(self, config: Mapping[str, Any]) -> Any:
        """No subset-wide labels: the ratings are the module's fixed scale."""
        return None

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        return config_module.item_ids(content)

    def ls_subset_config(self, config: Mapping[str, Any], *, language: str | None) -> str:
        """The labeling config, with the references shown where the subset says so."""
        return config_module.render_config(
            instructions=config.get("instructions"),
            language=language,
            show_references=bool(config.get("show_references", False)),
        )

    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> Any:
        """The model's similarities as ratings by rank (``rule`` does not apply)."""
        if not isinstance(answer, Mapping):
            raise InvalidAnswerError(
                f"summarization scores must be a mapping, got {type(answer).__name__}"
            )
        return spread_ratings(answer)

    def ls_shown_item_ids(self, item_ids: list[str] | None, answer: Any) -> list[str] | None:
        if isinstance(answer, Mapping) and item_ids is not None:
            ranked = ranked_ids({str(k): float(v) for k, v in answer.items()})
            if sorted(ranked) == sorted(item_ids):
                return ranked
        return item_ids

    def quality_view(
        self, answer: Any, content: Mapping[str, Any], config: Mapping[str, Any]
    ) -> ShownAnswer | None:
        """The ratings in the order shown, what straight-lining compares (the summaries are
        shuffled, so no place means anything)."""
        if not isinstance(answer, Mapping):
            return None
        ids = config_module.item_ids(content)
        ratings = tuple(answer.get(i) for i in ids)
        return ShownAnswer(choice=ratings, n_options=len(config_module.RATINGS) ** len(ids))
