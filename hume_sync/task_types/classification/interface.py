"""Classification's Label Studio interface: one text, one label from the subset's label set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hume_sync.task_types.base import views_by_answer
from label_studio_configs import classification as config_module
from ml_backend.reveal import RevealedInterface
from scoring.quality import ShownAnswer


class ClassificationInterface(RevealedInterface):
    """The label set shown is the subset's own; an embedding model's answer is already a label."""

    ls_module = config_module

    def ls_labels(self, config: Mapping[str, Any]) -> Any:
        return config.get("label_set")

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        return None

    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> Any:
        # the majority label of the model's k-NN vote, shown as is
        return answer

    def quality_view(
        self, answer: Any, content: Mapping[str, Any], config: Mapping[str, Any]
    ) -> ShownAnswer | None:
        """The chosen label, out of the subset's label set. No shown place: the choices are
        listed in the label set's order, the same on every task, so a place preferred cannot
        be told from a label preferred (position bias is tested where the order is shuffled)."""
        labels = config.get("label_set") or []
        return ShownAnswer(choice=str(answer), n_options=len(labels) or None)

    def quality_views(
        self,
        answers: Sequence[Any],
        instances: Sequence[str],
        contents: Mapping[str, Mapping[str, Any]],
        config: Mapping[str, Any],
    ) -> list[ShownAnswer | None]:
        """:meth:`quality_view` of each, one view per distinct label."""
        return views_by_answer(answers, str, lambda c: self.quality_view(c, {}, config))
