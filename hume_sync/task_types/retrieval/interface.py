"""Retrieval's Label Studio interface: a query with its pool, every document graded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from label_studio_configs import retrieval as config_module
from label_studio_configs.errors import InvalidAnswerError
from ml_backend.reveal import RevealedInterface, ranked_ids, rerank_marks


class RetrievalInterface(RevealedInterface):
    """The grades shown are the subset's stored ``grade_labels``. An embedding model's
    similarities are revealed as grades by reranking's gold-free cut-off rule: the documents
    above the largest drop get grade 1, the others 0 (a display convention; the model is scored
    on its similarities, never on these grades), listed best first."""

    ls_module = config_module

    def ls_labels(self, config: Mapping[str, Any]) -> Any:
        return config.get("grade_labels") or list(config_module.DEFAULT_LABELS)

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        return config_module.item_ids(content)

    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> Any:
        if not isinstance(answer, Mapping):
            raise InvalidAnswerError(
                f"retrieval scores must be a mapping, got {type(answer).__name__}"
            )
        return rerank_marks({str(k): float(v) for k, v in answer.items()}, rule)

    def ls_shown_item_ids(self, item_ids: list[str] | None, answer: Any) -> list[str] | None:
        if isinstance(answer, Mapping) and item_ids is not None:
            ranked = ranked_ids({str(k): float(v) for k, v in answer.items()})
            if sorted(ranked) == sorted(item_ids):
                return ranked
        return item_ids
