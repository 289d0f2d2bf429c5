"""Pair classification: the interface concern (Label Studio config, task data, answers, reveal).

Implements :class:`ml_backend.reveal.RevealedInterface` (the ``TaskInterface`` protocol of
:mod:`label_studio_configs.interface`, plus how an embedding model's answer is shown): rendering,
task data and result <-> answer translation are the protocol's shared methods over
:mod:`label_studio_configs.pair_classification`. What is the type's own: which stored config key
rewords the two answers (``pair_labels``; the stored ``label_set`` names the source's labels,
which is how gold was made, and is never shown), that a pair has no inner items, and that an
embedding model's stored answer already is the 1/0 decision mteb's ``cosine_accuracy`` counts
(see :mod:`.model`; its cosine is the prediction's score).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from label_studio_configs import pair_classification as lsc_pair
from label_studio_configs.errors import InvalidAnswerError, InvalidContentError
from ml_backend.reveal import RevealedInterface
from scoring.quality import ShownAnswer


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


class PairClassificationInterface(RevealedInterface):
    """Pair classification's interface behaviour (``TaskInterface`` + ``RevealedInterface``)."""

    #: The type's config module (the protocol's ``ls_module``).
    ls_module = lsc_pair

    def ls_labels(self, config: Mapping[str, Any]) -> dict[int, str] | None:
        """The two answers' wording from the stored config (None: the module's Yes / No)."""
        return pair_labels_from_config(config)

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        """A pair has no inner items (no ids a result must cover)."""
        return None

    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> int:
        """An embedding model's stored answer as shown: it is already the 1/0 decision.

        The model concern stores the decision (at mteb's best-accuracy cosine threshold, see
        :mod:`.model`) and keeps the cosine as the prediction's score, so nothing is cut
        here and the reranking ``rule`` does not apply.
        """
        if isinstance(answer, bool) or answer not in (0, 1):
            raise InvalidAnswerError(
                f"an embedding model's pair answer must be its 1/0 decision, got {answer!r}"
            )
        return int(answer)

    def quality_view(
        self, answer: Any, content: Mapping[str, Any], config: Mapping[str, Any]
    ) -> ShownAnswer | None:
        """The decision, 1 or 0; Yes and No are shown in a fixed order, so no shown place."""
        return ShownAnswer(choice=int(answer), n_options=2)
