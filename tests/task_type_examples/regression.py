"""Example data of the regression type for the shared protocol tests (see ``__init__``)."""

from __future__ import annotations

from typing import Any

from tests.task_type_examples import EMB, LLM, STUDY_INSTRUCTIONS

#: A subset's stored scale: SICK's relatedness, 1 to 5 in tenths.
SCALE = {"min": 1.0, "max": 5.0, "step": 0.1}

CONTENT: dict[str, Any] = {"text": "A man is playing a guitar ⟷ A man is playing music"}
CONFIG: dict[str, Any] = {"value_range": [1.0, 5.0], "step": 0.1}
CONFIG_ALT: dict[str, Any] = {
    "value_range": [1990, 2023],
    "step": 1,
    "instructions": "Give the year $x <b>",
}

SCORING: dict[str, Any] = {
    "gold": {f"t{k}": g for k, g in enumerate([1.2, 1.8, 2.0, 2.6, 3.1, 3.4, 3.9, 4.4, 4.9])},
    "humans": {
        "x": {f"t{k}": v for k, v in enumerate([1.0, 2.0, 2.0, 3.0, 3.0, 3.5, 4.0, 4.5, 5.0])},
        "y": {f"t{k}": v for k, v in enumerate([1.5, 1.5, 2.5, 2.0, 3.5, 3.0, 4.5, 4.0, 4.5])},
        "z": {f"t{k}": v for k, v in enumerate([1.0, 2.5, 1.5, 3.0, 2.5, 4.0, 3.5, 5.0, 4.0])},
    },
}

#: Predictions in gold's order but the last two swapped: 35 concordant pairs of 36 and one
#: discordant, no ties: τ = (35 − 1) / 36 = 17/18, the printed score and the compared one.
MODEL_PAIRED: tuple[Any, float, float | None] = (
    {f"t{k}": p for k, p in enumerate([1.1, 1.7, 2.2, 2.5, 3.0, 3.3, 3.8, 4.8, 4.6])},
    17 / 18,
    17 / 18,
)

LLM_PARAMS: dict[str, Any] = {"scale": SCALE}
LLM_PROMPTS = {
    ("eng-Latn", None): "e7260c9c51be026e",
    ("arb_Arab", STUDY_INSTRUCTIONS): "9ed7c4083779248b",
}

MODEL_JOB: dict[str, Any] = {
    "contents": ({"text": "a cat sleeps"}, {"text": "the rain falls hard"}),
    "gold": (3.0, 4.5),
    "train_pool": tuple(
        {"text": t, "label": v}
        for t, v in [("cat", "1.0"), ("dog", "2.5"), ("heavy rain", "4.0"), ("snow", "3.5")]
    ),
    "settings": {"train_samples": 2048},
}

LS_LABELS = SCALE
LS_TRANSLATION_KWARGS: dict[str, Any] = {"labels": SCALE, "n_groups": None, "item_ids": None}
LS_ANSWER = 3.7
LS_RENDERED = {(0, "en"): "c83648056ffe73ef", (1, "arb_Arab"): "39286762ee15dd96"}
LS_RENDER_KW: dict[str, Any] = {}
LS_RESULT_CASE: tuple[dict[str, Any], Any] = ({"labels": SCALE}, 2.5)

REVEAL_PINNED = [
    (EMB, 3.25, None, "gap", "23e050f3273b4bca"),
    (LLM, 4.0, None, "gap", "730d6240df8b6ae3"),
]
REVEAL_SHOWN = (3.25, 3.25)


# --------------------------------------------------------------------- a simulated annotator
# Tests and benchmarks that play annotators or models ask the type for answers through these
# (see ``__init__``), so that none of them branches on the type's name.


def perfect_answer(gold: float) -> float:
    """The gold number itself."""
    return float(gold)


def other_answer(answer: float, labels: Any) -> float:
    """A number one unit away (down where that stays at or above 0, else up)."""
    return float(answer) - 1.0 if float(answer) >= 1.0 else float(answer) + 1.0


def scripted_answer(gold: float, k: int, who: str, labels: Any) -> float:
    """Gold with noise in tenths: ``'a'`` within ±0.3, ``'b'`` within ±0.6 (not clipped: the
    scripted data keeps a margin inside its bounds)."""
    noise = ((k % 3) - 1) * 0.3 if who == "a" else ((k % 5) - 2) * 0.3
    return round(float(gold) + noise, 1)


def stored_prediction(gold: float, *, llm: bool) -> Any:
    """A number, for an LLM and an embedding model alike."""
    return float(gold)


def items_in(gold: float) -> int:
    """An instance is one text."""
    return 1


def check_revealed(prediction: dict[str, Any], answer: Any, score: Any) -> None:
    """The revealed prediction shows the number in the Number control."""
    (item,) = prediction["result"]
    assert item["type"] == "number" and isinstance(item["value"]["number"], float)
