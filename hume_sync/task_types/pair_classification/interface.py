"""Pair classification: the interface concern (Label Studio config, task data, answers, reveal).

Written to the interface protocol of issue 12 (``label_studio_configs.interface.TaskInterface``
and ``ml_backend.reveal.RevealedInterface``, which arrive with the interface concern's
conversion): the same ``ls_*`` names and signatures, so registering the type means adding those
two bases to this class and nothing else. Until then every method is spelled out here, with the
bodies the protocol's shared methods have.

The Label Studio side lives in :mod:`label_studio_configs.pair_classification`; what depends on
the study is which stored config key rewords the two answers (``pair_labels``), and how an
embedding model's stored answer is shown (it already is the 1/0 decision mteb's
``cosine_accuracy`` counts, see :mod:`.model`; its cosine is the prediction's score).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from label_studio_configs import pair_classification as lsc_pair
from label_studio_configs.errors import InvalidAnswerError, InvalidContentError


def pair_labels_from_config(config: Mapping[str, Any]) -> dict[int, str] | None:
    """The subset's wording of the two answers, from its stored config, or None (Yes / No).

    Stored as ``{"pair_labels": {"1": text, "0": text}}`` (JSON keys are strings); gold never
    goes there, only the wording annotators see.
    """
    raw = config.get("pair_labels") if isinstance(config, Mapping) else None
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise InvalidContentError(f"pair_labels must be a mapping, got {type(raw).__name__}")
    out: dict[int, str] = {}
    for key, text in raw.items():
        if str(key) not in ("0", "1"):
            raise InvalidContentError(f"pair_labels key {key!r} is not 1 or 0")
        out[int(str(key))] = text
    return lsc_pair.labels_of(out)


class PairClassificationInterface:
    """Pair classification's interface behaviour (``TaskInterface`` + ``RevealedInterface``)."""

    #: The type's config module (the protocol's ``ls_module``).
    ls_module = lsc_pair

    def ls_labels(self, config: Mapping[str, Any]) -> dict[int, str] | None:
        """The two answers' wording from the stored config (None: the module's Yes / No)."""
        return pair_labels_from_config(config)

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        """A pair has no inner items (no ids a result must cover)."""
        del content
        return None

    def ls_translation_kwargs(
        self, config: Mapping[str, Any], content: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The keywords :meth:`ls_result_to_answer` / :meth:`ls_answer_to_result` need."""
        return {
            "labels": self.ls_labels(config),
            "n_groups": config.get("n_groups"),
            "item_ids": self.ls_item_ids(content),
        }

    def ls_render_config(
        self,
        *,
        labels: Any = None,
        n_groups: int | None = None,
        instructions: str | None = None,
        language: str | None = "en",
    ) -> str:
        """The labeling config XML from explicit parameters (``labels``: {1: text, 0: text})."""
        return lsc_pair.render_config(
            labels=labels, n_groups=n_groups, instructions=instructions, language=language
        )

    def ls_subset_config(self, config: Mapping[str, Any], *, language: str | None) -> str:
        """The labeling config XML of a subset, from its stored config (never from gold)."""
        return self.ls_render_config(
            labels=self.ls_labels(config),
            n_groups=config.get("n_groups"),
            instructions=config.get("instructions"),
            language=language,
        )

    def ls_task_data(self, hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
        """Label Studio task data: both texts and the opaque reference, never gold."""
        return lsc_pair.task_data(hume_ref, content)

    def ls_result_to_answer(
        self,
        result: list[dict[str, Any]],
        *,
        labels: Any = None,
        n_groups: int | None = None,
        item_ids: Sequence[str] | None = None,
    ) -> int:
        """An annotation's answer, 1 or 0 (InvalidResultError for anything else)."""
        return lsc_pair.result_to_answer(
            result, labels=labels, n_groups=n_groups, item_ids=item_ids
        )

    def ls_answer_to_result(
        self,
        answer: Any,
        *,
        labels: Any = None,
        n_groups: int | None = None,
        item_ids: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """The Label Studio result for an answer 1 or 0 (annotations and predictions)."""
        return lsc_pair.answer_to_result(
            answer, labels=labels, n_groups=n_groups, item_ids=item_ids
        )

    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> int:
        """An embedding model's stored answer as shown: it is already the 1/0 decision.

        The model concern stores the decision (at mteb's best-accuracy cosine threshold, see
        :mod:`.model`) and keeps the cosine as the prediction's score, so nothing is cut
        here and the reranking ``rule`` does not apply.
        """
        del rule
        if isinstance(answer, bool) or answer not in (0, 1):
            raise InvalidAnswerError(
                f"an embedding model's pair answer must be its 1/0 decision, got {answer!r}"
            )
        return int(answer)

    def ls_shown_item_ids(self, item_ids: list[str] | None, answer: Any) -> list[str] | None:
        """A pair has no items to order."""
        del answer
        return item_ids
