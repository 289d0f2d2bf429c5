"""Example data of the STS type for the shared protocol tests (see ``__init__``)."""

from __future__ import annotations

from typing import Any

from tests.task_type_examples import EMB, LLM, STUDY_INSTRUCTIONS

CONTENT: dict[str, Any] = {"sentence1": "A cat sits.", "sentence2": "A cat.", "score": 4.2}
CONFIG: dict[str, Any] = {}
CONFIG_ALT: dict[str, Any] = {"instructions": "Rate 0-5"}

SCORING: dict[str, Any] = {
    "gold": {f"p{k}": g for k, g in enumerate([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5])},
    "humans": {
        "x": {f"p{k}": r for k, r in enumerate([0, 1, 2, 2, 3, 3, 4, 4, 5])},
        "y": {f"p{k}": r for k, r in enumerate([1, 1, 1, 2, 2, 3, 3, 5, 5])},
        "z": {f"p{k}": r for k, r in enumerate([0, 2, 1, 3, 2, 4, 3, 4, 4])},
    },
}


#: Similarities in gold's order but the last two swapped: ρ = 1 − 6·2 / (9·80) = 59/60.
MODEL_PAIRED: tuple[Any, float, float | None] = (
    {f"p{k}": s for k, s in enumerate([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.9, 0.8])},
    59 / 60,
    59 / 60,
)

LLM_PARAMS: dict[str, Any] = {}
LLM_PROMPTS = {
    ("eng-Latn", None): "2cb770fbf8555760",
    ("arb_Arab", STUDY_INSTRUCTIONS): "15e34391c62abfb2",
}

MODEL_JOB: dict[str, Any] = {
    "contents": (
        {"sentence1": "a cat", "sentence2": "a dog"},
        {"sentence1": "rain", "sentence2": "snow"},
    ),
    "gold": (3.0, 4.5),
}

LS_LABELS = None
LS_TRANSLATION_KWARGS: dict[str, Any] = {"labels": None, "n_groups": None, "item_ids": None}
LS_ANSWER = 4
LS_RENDERED = {(0, "en"): "b185f934a4f95659", (1, "arb_Arab"): "61a1a72b921b7e27"}
LS_RENDER_KW: dict[str, Any] = {}
LS_RESULT_CASE: tuple[dict[str, Any], Any] = ({}, 4)

REVEAL_PINNED = [
    (EMB, 0.93, None, "gap", "5cad2e1452ce87f1"),
    (LLM, 3, 0.5, "gap", "399aefe3dddaa59c"),
]
REVEAL_SHOWN = (0.61, 3)


# --------------------------------------------------------------------- a simulated annotator
# Tests and benchmarks that play annotators or models ask the type for answers through these
# (see ``__init__``), so that none of them branches on the type's name.


def perfect_answer(gold: float) -> int:
    """The level of the scale nearest the gold score (the interface asks for whole levels)."""
    return round(float(gold))


def other_answer(answer: int, labels: list[str]) -> int:
    """The level mirrored on the 0-5 scale."""
    return 5 - int(answer)


def scripted_answer(gold: float, k: int, who: str, labels: list[str]) -> int:
    """Gold's level with noise: ``'a'`` within ±1, ``'b'`` within ±2, clipped to 0-5."""
    noise = (k % 3) - 1 if who == "a" else (k % 5) - 2
    return int(min(5, max(0, round(float(gold)) + noise)))


def stored_prediction(gold: float, *, llm: bool) -> Any:
    """An LLM answers a level; an embedding model stores a similarity."""
    return round(float(gold)) if llm else gold


def items_in(gold: float) -> int:
    """An instance is one pair."""
    return 1


def check_revealed(prediction: dict[str, Any], answer: Any, score: Any) -> None:
    """Nothing beyond the round trip (the level shown is pinned in REVEAL_SHOWN)."""
