"""STS's Label Studio interface: a sentence pair rated on the six STS levels 0-5."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hume_sync.task_types.base import views_by_answer
from label_studio_configs import sts as config_module
from ml_backend.reveal import RevealedInterface, sts_level
from scoring.quality import ShownAnswer


class STSInterface(RevealedInterface):
    """The levels shown are the STS guidelines' own (a stored config has none); an embedding
    model's cosine is shown as the level it rounds to."""

    ls_module = config_module

    def ls_labels(self, config: Mapping[str, Any]) -> Any:
        return None

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        return None

    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> Any:
        return sts_level(float(answer))

    def quality_view(
        self, answer: Any, content: Mapping[str, Any], config: Mapping[str, Any]
    ) -> ShownAnswer | None:
        """The level chosen, out of the six STS levels (shown in a fixed order: no place)."""
        return ShownAnswer(choice=int(answer), n_options=len(config_module.STS_LEVELS))

    def quality_views(
        self,
        answers: Sequence[Any],
        instances: Sequence[str],
        contents: Mapping[str, Mapping[str, Any]],
        config: Mapping[str, Any],
    ) -> list[ShownAnswer | None]:
        """:meth:`quality_view` of each, one view per distinct level."""
        return views_by_answer(answers, int, lambda c: self.quality_view(c, {}, config))
