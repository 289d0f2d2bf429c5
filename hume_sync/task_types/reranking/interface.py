"""Reranking's Label Studio interface: a query and its candidates, each Relevant or not."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hume_sync.task_types.base import views_by_content
from label_studio_configs import reranking as config_module
from label_studio_configs.errors import InvalidAnswerError
from ml_backend.reveal import RevealedInterface, ranked_ids, rerank_marks
from scoring.quality import ShownAnswer


class RerankingInterface(RevealedInterface):
    """An embedding model's similarity scores are shown as marks (a gold-free cut-off rule),
    with the candidates listed best first."""

    ls_module = config_module

    def ls_labels(self, config: Mapping[str, Any]) -> Any:
        return None

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        return config_module.item_ids(content)

    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> Any:
        if not isinstance(answer, Mapping):
            raise InvalidAnswerError(
                f"reranking scores must be a mapping, got {type(answer).__name__}"
            )
        return rerank_marks({str(k): float(v) for k, v in answer.items()}, rule)

    def ls_shown_item_ids(self, item_ids: list[str] | None, answer: Any) -> list[str] | None:
        if isinstance(answer, Mapping) and item_ids is not None:
            ranked = ranked_ids({str(k): float(v) for k, v in answer.items()})
            if sorted(ranked) == sorted(item_ids):
                return ranked  # buckets list candidates best first
        return item_ids

    def quality_view(
        self, answer: Any, content: Mapping[str, Any], config: Mapping[str, Any]
    ) -> ShownAnswer | None:
        """The shown places (0-based, in the instance's candidate order, which is the order
        shown) of the candidates marked relevant. Straight-lining compares the marked places
        (marking none, the default bucket, on every query is one answer for everything); the
        places count for position bias only where the subset shuffled its candidates (a
        store from before the setting was always shuffled)."""
        shuffled = bool(config.get("shuffle_candidates", True))
        return _marked(answer, config_module.item_ids(content), shuffled, {})

    def quality_views(
        self,
        answers: Sequence[Any],
        instances: Sequence[str],
        contents: Mapping[str, Mapping[str, Any]],
        config: Mapping[str, Any],
    ) -> list[ShownAnswer | None]:
        """:meth:`quality_view` of each: an instance's candidate ids checked once, and one
        view per distinct marking (views are immutable; queries share few markings)."""
        shuffled = bool(config.get("shuffle_candidates", True))
        made: dict[tuple[tuple[int, ...], int], ShownAnswer] = {}
        return views_by_content(
            answers,
            instances,
            contents,
            config_module.item_ids,
            lambda answer, ids: _marked(answer, ids, shuffled, made),
        )


def _marked(
    answer: Any,
    ids: Sequence[str],
    shuffled: bool,
    made: dict[tuple[tuple[int, ...], int], ShownAnswer],
) -> ShownAnswer | None:
    """The view of ``answer`` given its instance's candidate ids in the shown order; ``made``
    holds the views already built, by marked places and number shown."""
    if not isinstance(answer, Mapping):
        return None
    marked = tuple([i for i, cid in enumerate(ids) if answer.get(cid) == 1])
    key = (marked, len(ids))
    view = made.get(key)
    if view is None:
        view = made[key] = ShownAnswer(
            choice=marked,
            n_options=2 ** len(ids),
            positions=marked if shuffled else None,
            n_shown=len(ids) if shuffled else None,
        )
    return view
