"""Example data of the retrieval type for the shared protocol tests (see ``__init__``)."""

from __future__ import annotations

from typing import Any

from tests.task_type_examples import EMB, LLM, STUDY_INSTRUCTIONS

GRADES = ["not relevant", "partly", "highly"]
CANDIDATES = [{"id": str(n), "text": f"document {n}"} for n in range(1, 7)]
#: An embedding model's similarity per pooled document (a clear gap after the second).
SCORES = {"1": 0.2, "2": 0.9, "3": 0.85, "4": 0.1, "5": 0.3, "6": 0.25}

CONTENT: dict[str, Any] = {
    "query": "how do tides work",
    "instruction": "Prefer physics explanations.",
    "candidates": CANDIDATES,
}
CONFIG: dict[str, Any] = {"grade_labels": GRADES}
CONFIG_ALT: dict[str, Any] = {
    "instructions": "Grade $relevance",
    "grade_labels": ["not relevant", "relevant"],
}

#: Gold: qrels' grades of the judged pooled documents (c4 is pooled but unjudged).
SCORING: dict[str, Any] = {
    "gold": {f"q{k}": {"c1": 2, "c2": 0, "c3": k % 2} for k in range(8)},
    "humans": {
        w: {
            f"q{k}": {"c1": 2, "c2": int(k == j), "c3": k % 2, "c4": int(k == j + 3)}
            for k in range(8)
        }
        for j, w in enumerate("xyz")
    },
}

#: Odd queries: the model ranks c1 (2), c3 (1), c4, c2: the ideal order, nDCG@10 1. Even ones:
#: c4 (unjudged, gain 0) first, then c1 (gain 2) at rank 2: DCG 2/log2(3), ideal DCG 2, so
#: nDCG 1/log2(3) = 0.6309298. Mean over the 8 queries: (1 + 0.6309298) / 2 = 0.8154649.
MODEL_PAIRED: tuple[Any, float, float | None] = (
    {
        f"q{k}": (
            {"c1": 0.9, "c2": 0.2, "c3": 0.5, "c4": 0.3}
            if k % 2
            else {"c1": 0.9, "c2": 0.2, "c3": 0.1, "c4": 0.95}
        )
        for k in range(8)
    },
    0.8154648767857288,
    0.8154648767857288,
)

LLM_PARAMS: dict[str, Any] = {"labels": tuple(GRADES)}
LLM_PROMPTS = {
    ("eng-Latn", None): "24e91a6a59664c8f",
    ("arb_Arab", STUDY_INSTRUCTIONS): "78bbad18b5fc3c29",
}

_MODEL_ITEMS = [{"id": f"x{n}", "text": t} for n, t in enumerate(["cat", "dog", "rain", "snow"])]
MODEL_JOB: dict[str, Any] = {
    "contents": ({"query": "pets", "instruction": "Animals.", "candidates": _MODEL_ITEMS},),
    "gold": ({"x0": 2, "x1": 1, "x2": 0},),
}

LS_LABELS = GRADES
LS_TRANSLATION_KWARGS: dict[str, Any] = {
    "labels": GRADES,
    "n_groups": None,
    "item_ids": [str(n) for n in range(1, 7)],
}
LS_ANSWER = {str(n): n % 3 for n in range(1, 7)}
LS_RENDERED = {(0, "en"): "9975164b49fc4b12", (1, "arb_Arab"): "5ff972cb32ebbffe"}
LS_RENDER_KW: dict[str, Any] = {}
LS_RESULT_CASE: tuple[dict[str, Any], Any] = (
    {"item_ids": ["d1", "d2", "d3"], "labels": GRADES},
    {"d1": 2, "d2": 0, "d3": 1},
)

REVEAL_PINNED = [
    (EMB, SCORES, None, "gap", "e754cfe5ba4c0860"),
    (EMB, SCORES, None, "top1", "c69320c80b8097b6"),
    (LLM, {str(n): int(n == 2) * 2 for n in range(1, 7)}, None, "gap", "72b13bf3e4bce011"),
]
REVEAL_SHOWN = ({"a": 0.9, "b": 0.85, "c": 0.2}, {"a": 1, "b": 1, "c": 0})


# --------------------------------------------------------------------- a simulated annotator


def perfect_answer(gold: dict[str, int]) -> dict[str, int]:
    """Qrels' grades (of the judged documents; a pooled unjudged one is not in gold)."""
    return dict(gold)


def other_answer(answer: dict[str, int], labels: list[str]) -> dict[str, int]:
    """Every grade moved: the top grade down to 0, any other one up by one."""
    top = max(2, *answer.values())
    return {d: 0 if int(g) >= top else int(g) + 1 for d, g in answer.items()}


def scripted_answer(gold: dict[str, int], k: int, who: str, labels: list[str]) -> dict[str, int]:
    """One grade changed per query: ``'a'`` the k-th document's, ``'b'`` the (k+2)-th's."""
    docs = sorted(gold)
    flip = docs[k % len(docs)] if who == "a" else docs[(k + 2) % len(docs)]
    return {d: (0 if int(g) else 1) if d == flip else int(g) for d, g in gold.items()}


def stored_prediction(gold: dict[str, int], *, llm: bool) -> dict[str, Any]:
    """An LLM stores grades; an embedding model stores similarities (graded ones first)."""
    return dict(gold) if llm else {d: float(g) for d, g in gold.items()}


def items_in(gold: dict[str, int]) -> int:
    """An instance is one query."""
    return 1


def check_revealed(prediction: dict[str, Any], answer: dict[str, float], score: Any) -> None:
    """The revealed ranker puts the documents above the model's largest drop in grade 1."""
    ranked = prediction["result"][0]["value"]["ranker"]
    above = [answer[d] for d in ranked.get("grade_1", [])]
    assert above and above == sorted(above, reverse=True)
