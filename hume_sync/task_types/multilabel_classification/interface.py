"""Multilabel classification's Label Studio interface: one text, a tick for each label that applies.

The labels shown are the subset's label set, followed by the none choice where the subset
offers one (``none_choice`` in its config; :mod:`label_studio_configs.multilabel_classification`
reads it as the last label). An embedding model's stored answer is already a label set.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from label_studio_configs import multilabel_classification as config_module
from label_studio_configs.errors import InvalidAnswerError
from ml_backend.reveal import RevealedInterface
from scoring.quality import ShownAnswer


class MultilabelInterface(RevealedInterface):
    """The interface behaviour (``TaskInterface`` + ``RevealedInterface``)."""

    ls_module = config_module

    def ls_labels(self, config: Mapping[str, Any]) -> Any:
        """The subset's label set, then the none choice where it is offered."""
        labels = config.get("label_set")
        if labels is None or not config.get("none_choice"):
            return labels
        return [*labels, config_module.NONE_CHOICE]

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        return None

    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> Any:
        """The labels more than half of mteb's kNN runs predicted, shown as ticks."""
        if isinstance(answer, str) or not isinstance(answer, list | tuple):
            raise InvalidAnswerError(
                f"a multilabel model answer is a list of labels, got {answer!r}"
            )
        return sorted(answer)

    def quality_view(
        self, answer: Any, content: Mapping[str, Any], config: Mapping[str, Any]
    ) -> ShownAnswer | None:
        """The ticked set, out of the subset's label set. No shown place: the labels are listed
        in one order on every task, so a place preferred cannot be told from a label preferred."""
        if isinstance(answer, str) or not isinstance(answer, list | tuple):
            return None
        labels = config.get("label_set") or []
        return ShownAnswer(choice="|".join(sorted(map(str, answer))), n_options=len(labels) or None)
