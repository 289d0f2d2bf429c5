"""Pair classification: the interface concern (Label Studio config, task data, answers, reveal).

The Label Studio side lives in :mod:`label_studio_configs.pair_classification` (the layer that
renders configs and checks results); this mixin exposes it under the ``ls_`` names the interface
protocol calls, and adds what depends on the study: which stored config keys reword the two
answers, and how a model's raw answer (a cosine) becomes the Yes/No shown after annotation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from label_studio_configs import pair_classification as lsc_pair
from label_studio_configs.errors import InvalidAnswerError, InvalidContentError

#: Prefix of embedding-model ``model_version``s (their answers are raw cosines, not 0/1).
EMBEDDING_PREFIX = "emb:"


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
    """Pair classification's interface behaviour (Label Studio config and answer shapes)."""

    #: The control whose result holds the answer, and the shape of that result.
    ls_from_name: str = lsc_pair.FROM_NAME
    ls_to_name: str = lsc_pair.TO_NAME
    ls_result_type: str = lsc_pair.RESULT_TYPE
    ls_default_instructions: str = lsc_pair.DEFAULT_INSTRUCTIONS

    def ls_render_config(
        self,
        config: Mapping[str, Any] | None = None,
        *,
        instructions: str | None = None,
        language: str | None = "en",
    ) -> str:
        """The labeling config of a subset (its stored config may reword the two answers)."""
        return lsc_pair.render_config(
            labels=pair_labels_from_config(config or {}),
            instructions=instructions,
            language=language,
        )

    def ls_task_data(self, hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
        """Label Studio task data: both texts and the opaque reference, never gold."""
        return lsc_pair.task_data(hume_ref, content)

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        """A pair has no inner items (no ids to check a result against)."""
        del content
        return None

    def ls_labels(self, config: Mapping[str, Any]) -> dict[int, str]:
        """The two answers as shown, {1: text, 0: text}."""
        return lsc_pair.labels_of(pair_labels_from_config(config))

    def ls_translation_kwargs(
        self, config: Mapping[str, Any], content: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The keywords :meth:`ls_result_to_answer` / :meth:`ls_answer_to_result` need."""
        del content
        return {"labels": pair_labels_from_config(config), "n_groups": None, "item_ids": None}

    def ls_result_to_answer(self, result: list[dict[str, Any]], **kwargs: Any) -> int:
        """An annotation's answer, 1 or 0 (InvalidResultError for anything else)."""
        return lsc_pair.result_to_answer(result, **kwargs)

    def ls_answer_to_result(self, answer: int, **kwargs: Any) -> list[dict[str, Any]]:
        """The Label Studio result for an answer 1 or 0 (annotations and predictions)."""
        return lsc_pair.answer_to_result(answer, **kwargs)

    def ls_display_answer(
        self, model_version: str, answer: Any, *, threshold: float | None = None
    ) -> int:
        """The Yes/No shown for a stored answer.

        LLM and human answers are 1/0 already. An embedding model's answer is the pair's cosine;
        it is shown as the decision mteb's ``cosine_accuracy`` counts, i.e. 1 when the cosine is
        above the subset's best-accuracy threshold (``cosine_accuracy_threshold`` of the
        model's score record). That threshold is chosen with gold, which is why model answers
        are revealed only after annotation; without it an embedding answer cannot be shown.
        """
        if not model_version.startswith(EMBEDDING_PREFIX):
            if isinstance(answer, bool) or answer not in (0, 1):
                raise InvalidAnswerError(f"pair classification answer {answer!r} is not 1 or 0")
            return int(answer)
        if threshold is None:
            raise InvalidAnswerError(
                "an embedding model's pair answer is a cosine; showing it as Yes/No needs the "
                "subset's cosine_accuracy_threshold"
            )
        value = float(answer)
        if not math.isfinite(value):
            raise InvalidAnswerError(f"cosine {answer!r} is not finite")
        return int(value > float(threshold))

    def ls_prediction(
        self,
        model_version: str,
        answer: Any,
        score: float | None,
        *,
        config: Mapping[str, Any],
        threshold: float | None = None,
    ) -> dict[str, Any]:
        """A Label Studio prediction ``{model_version, result[, score]}`` for a stored answer.

        An embedding model's prediction carries its cosine as ``score`` (what its AP ranks).
        """
        shown = self.ls_display_answer(model_version, answer, threshold=threshold)
        result = lsc_pair.answer_to_result(shown, labels=pair_labels_from_config(config))
        out: dict[str, Any] = {"model_version": model_version, "result": result}
        if score is None and model_version.startswith(EMBEDDING_PREFIX):
            score = float(answer)
        if score is not None and math.isfinite(float(score)):
            out["score"] = float(score)
        return out

    def ls_answers_from_results(
        self, results: Sequence[list[dict[str, Any]]], config: Mapping[str, Any]
    ) -> list[int]:
        """Many annotations at once (one subset's config), in order."""
        labels = pair_labels_from_config(config)
        return [lsc_pair.result_to_answer(r, labels=labels) for r in results]
