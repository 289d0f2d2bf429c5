"""Example data of the summarization type for the shared protocol tests (see ``__init__``)."""

from __future__ import annotations

from typing import Any

from tests.task_type_examples import EMB, LLM, STUDY_INSTRUCTIONS

#: Machine summaries, one with characters XML and Label Studio treat specially.
SUMMARIES = [
    {"id": "1", "text": "The cat slept all day."},
    {"id": "2", "text": "A dog & a <cat> met."},
    {"id": "3", "text": 'The cat ate "$text".'},
]

CONTENT: dict[str, Any] = {
    "text": "The cat slept all day on the sofa, then ate its dinner.",
    "candidates": SUMMARIES,
    "references": ["A cat sleeps, then eats.", "The cat naps and dines."],
}
CONFIG: dict[str, Any] = {"show_references": False, "rating_scale": [1, 5]}
CONFIG_ALT: dict[str, Any] = {
    "show_references": True,
    "rating_scale": [1, 5],
    "instructions": "Rate $the <summaries>",
}

#: Five texts of three summaries; t2's expert scores are constant (mteb skips it).
_GOLD: dict[str, dict[str, float]] = {
    "t0": {"a": 1.0, "b": 2.0, "c": 3.0},
    "t1": {"a": 3.0, "b": 1.0, "c": 2.0},
    "t2": {"a": 2.0, "b": 2.0, "c": 2.0},
    "t3": {"a": 4.0, "b": 5.0, "c": 1.0},
    "t4": {"a": 1.0, "b": 3.0, "c": 5.0},
}


def _r(a: int, b: int, c: int) -> dict[str, int]:
    return {"a": a, "b": b, "c": c}


SCORING: dict[str, Any] = {
    "gold": _GOLD,
    "humans": {
        "x": {"t0": _r(1, 2, 3), "t1": _r(3, 1, 2), "t2": _r(2, 3, 4), "t3": _r(4, 5, 1),
              "t4": _r(1, 3, 5)},
        "y": {"t0": _r(1, 2, 3), "t1": _r(3, 2, 1), "t2": _r(3, 3, 3), "t3": _r(5, 3, 1),
              "t4": _r(2, 3, 4)},
        "z": {"t0": _r(2, 1, 3), "t1": _r(3, 2, 1), "t2": _r(1, 2, 3), "t3": _r(5, 4, 2),
              "t4": _r(1, 2, 5)},
    },
}  # fmt: skip

#: The model's best cosines per summary. Compared (like for like, the printed metric) is the
#: mean per-text Spearman over the texts kept, worked out by hand:
#: t0: same order as gold, ρ = 1. t1: gold ranks (a, b, c) = (3, 1, 2), model (3, 2, 1):
#: d² = 0 + 1 + 1, ρ = 1 − 6·2 / (3·8) = 0.5. t2: constant gold, skipped. t3: gold ranks
#: (2, 3, 1), model (2.5, 2.5, 1) (a tie): centred (0, 1, −1) and (0.5, 0.5, −1), ρ = 1.5 /
#: (√2·√1.5) = √3/2. t4: constant cosines, skipped. Mean = (1 + 0.5 + √3/2) / 3 = (3 + √3)/6.
#: Like for like: the printed number is mteb's score of these cosines, the same.
MODEL_PAIRED: tuple[Any, float, float | None] = (
    {
        "t0": {"a": 0.1, "b": 0.2, "c": 0.3},
        "t1": {"a": 0.3, "b": 0.2, "c": 0.1},
        "t2": {"a": 0.1, "b": 0.2, "c": 0.3},
        "t3": {"a": 0.5, "b": 0.5, "c": 0.1},
        "t4": {"a": 0.2, "b": 0.2, "c": 0.2},
    },
    (3 + 3**0.5) / 6,
    (3 + 3**0.5) / 6,
)

LLM_PARAMS: dict[str, Any] = {"show_references": False}
LLM_PROMPTS = {
    ("eng-Latn", None): "a8483f54d258d680",
    ("arb_Arab", STUDY_INSTRUCTIONS): "3ac1506a77f8f3f0",
}

MODEL_JOB: dict[str, Any] = {
    "contents": (
        {
            "text": "a cat sleeps on the mat",
            "candidates": [
                {"id": "0", "text": "a cat sleeps"},
                {"id": "1", "text": "the rain falls"},
                {"id": "2", "text": "a mat"},
            ],
            "references": ["a cat sleeping"],
        },
        {
            "text": "the rain falls on the town",
            "candidates": [
                {"id": "0", "text": "the rain falls"},
                {"id": "1", "text": "a town"},
                {"id": "2", "text": "a cat sleeps"},
            ],
            "references": ["rain in town", "it rains"],
        },
    ),
    "gold": ({"0": 5.0, "1": 1.0, "2": 2.0}, {"0": 4.0, "1": 2.5, "2": 1.0}),
}

LS_LABELS = None
LS_TRANSLATION_KWARGS: dict[str, Any] = {
    "labels": None,
    "n_groups": None,
    "item_ids": ["1", "2", "3"],
}
LS_ANSWER = {"1": 5, "2": 1, "3": 3}
LS_RENDERED = {(0, "en"): "f1927bd2274db85c", (1, "arb_Arab"): "f38792dde823070d"}
LS_RENDER_KW: dict[str, Any] = {}
LS_RESULT_CASE: tuple[dict[str, Any], Any] = (
    {"item_ids": ["1", "2", "3"]},
    {"1": 4, "2": 4, "3": 1},
)

REVEAL_PINNED = [
    # No stored score: a new type has no "before issue 13" bytes (tests/ml_backend/test_reveal).
    (EMB, {"1": 0.9, "2": 0.1, "3": 0.5}, None, "gap", "e9663d00699555ab"),
    (LLM, {"1": 4, "2": 2, "3": 3}, None, "gap", "119ce9e31a0e90b1"),
]
#: Similarities become ratings by rank: lowest 1, highest 5, the middle one 3.
REVEAL_SHOWN = ({"1": 0.9, "2": 0.1, "3": 0.5}, {"1": 5, "2": 1, "3": 3})


# --------------------------------------------------------------------- a simulated annotator
# Tests and benchmarks that play annotators or models ask the type for answers through these
# (see ``__init__``), so that none of them branches on the type's name.


def _clip(score: float) -> int:
    return int(min(5, max(1, int(float(score) + 0.5))))


def perfect_answer(gold: dict[str, float]) -> dict[str, int]:
    """The experts' scores, rounded to the 1–5 scale."""
    return {k: _clip(v) for k, v in gold.items()}


def other_answer(answer: dict[str, int], labels: list[str]) -> dict[str, int]:
    """Every rating moved: 5 down to 1, any other one up by one."""
    return {k: 1 if int(v) >= 5 else int(v) + 1 for k, v in answer.items()}


def scripted_answer(gold: dict[str, float], k: int, who: str, labels: list[str]) -> dict[str, int]:
    """Gold's ratings with one summary's rating changed per text: ``'a'`` the k-th summary's,
    ``'b'`` the (k+1)-th's (moved to the scale's far end)."""
    right = perfect_answer(gold)
    ids = sorted(right)
    flip = ids[k % len(ids)] if who == "a" else ids[(k + 1) % len(ids)]
    return {s: (1 if r >= 3 else 5) if s == flip else r for s, r in right.items()}


def stored_prediction(gold: dict[str, float], *, llm: bool) -> dict[str, Any]:
    """An LLM stores ratings; an embedding model stores similarities in gold's order."""
    return perfect_answer(gold) if llm else {k: float(v) / 5 for k, v in gold.items()}


def items_in(gold: dict[str, float]) -> int:
    """An instance is one text."""
    return 1


def check_revealed(prediction: dict[str, Any], answer: Any, score: Any) -> None:
    """The revealed ranker rates every summary, the most similar one 5 and no score shown."""
    assert "score" not in prediction
    ranked = prediction["result"][0]["value"]["ranker"]
    placed = [i for ids in ranked.values() for i in ids]
    assert sorted(placed) == sorted(answer)
    if isinstance(answer, dict) and all(isinstance(v, float) for v in answer.values()):
        best = max(answer, key=lambda k: answer[k])
        assert best in ranked["rating_5"]
