"""Bitext mining's Label Studio interface: a sentence and its candidate translations.

The candidates are the instance's own, so the result ↔ answer translation needs them: they go
to the config module as the ``labels`` of one instance (:meth:`ls_translation_kwargs`). The
target language's direction comes from the subset's stored config (:meth:`ls_subset_config`).
An embedding model's stored answer is the candidate it chooses (the most similar), shown as
is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hume_sync.task_types.base import views_by_content
from label_studio_configs import bitext_mining as config_module
from label_studio_configs.errors import InvalidAnswerError
from ml_backend.reveal import RevealedInterface
from scoring.quality import ShownAnswer


def model_choice(answer: Any) -> str:
    """The candidate an embedding model chooses from its similarities: the most similar (an
    exact tie to the first id in string order, the human vote's rule)."""
    if not isinstance(answer, Mapping) or not answer:
        raise InvalidAnswerError(
            f"a bitext model answer must map candidate ids to similarities, got {answer!r}"
        )
    sims = {str(k): float(v) for k, v in answer.items()}
    best = max(sims.values())
    return min(k for k, v in sims.items() if v == best)


class BitextMiningInterface(RevealedInterface):
    """Bitext mining's interface behaviour (``TaskInterface`` + ``RevealedInterface``)."""

    ls_module = config_module

    def ls_labels(self, config: Mapping[str, Any]) -> Any:
        """No subset-wide labels: each instance shows its own candidates."""
        return None

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        """None: a result chooses one candidate, it does not cover each (the candidates a
        choice is read against go as ``labels``, :meth:`ls_translation_kwargs`)."""
        return None

    def ls_translation_kwargs(
        self, config: Mapping[str, Any], content: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The instance's candidates as the ``labels`` a choice is read against."""
        return {
            "labels": config_module.candidates(content),
            "n_groups": None,
            "item_ids": None,
        }

    def ls_subset_config(self, config: Mapping[str, Any], *, language: str | None) -> str:
        """The labeling config with the sentence in ``language``'s direction and the candidates
        in the stored ``target_language``'s."""
        return config_module.render_config(
            instructions=config.get("instructions"),
            language=language,
            target_language=config.get("target_language") or language,
        )

    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> str:
        """The model's chosen candidate, shown as is (``rule`` does not apply); a mapping of
        similarities per candidate is read as its most similar one."""
        if isinstance(answer, Mapping):
            return model_choice(answer)
        if not isinstance(answer, str):
            raise InvalidAnswerError(f"a bitext model answer is a candidate id, got {answer!r}")
        return answer

    def quality_view(
        self, answer: Any, content: Mapping[str, Any], config: Mapping[str, Any]
    ) -> ShownAnswer | None:
        """The shown place of the chosen candidate: candidates are shuffled per item, so
        choosing one place every time is straight-lining and a place preferred is position
        bias."""
        return _view(answer, _candidate_ids(content))

    def quality_views(
        self,
        answers: Sequence[Any],
        instances: Sequence[str],
        contents: Mapping[str, Mapping[str, Any]],
        config: Mapping[str, Any],
    ) -> list[ShownAnswer | None]:
        """:meth:`quality_view` of each, an instance's candidates checked once."""
        return views_by_content(answers, instances, contents, _candidate_ids, _view)


def _candidate_ids(content: Mapping[str, Any]) -> list[str]:
    """The instance's candidate ids in the shown order (its content checked)."""
    return [it["id"] for it in config_module.candidates(content)]


def _view(answer: Any, ids: list[str]) -> ShownAnswer | None:
    """The quality view of ``answer`` given its instance's candidate ids in the shown order."""
    if answer not in ids:
        return None
    place = ids.index(answer)
    return ShownAnswer(choice=place, n_options=len(ids), positions=(place,), n_shown=len(ids))
