"""Example data of the reranking type for the shared protocol tests (see ``__init__``)."""

from __future__ import annotations

from typing import Any

from tests.task_type_examples import EMB, LLM, STUDY_INSTRUCTIONS

CANDIDATES = [{"id": f"d{n}", "text": f"passage {n}"} for n in range(7)]
#: An embedding model's similarity per candidate (ties and a clear gap).
SCORES = {f"d{n}": 0.1 * ((n * 3) % 7) for n in range(7)}

CONTENT: dict[str, Any] = {"query": "what is a bomb", "candidates": CANDIDATES}
CONFIG: dict[str, Any] = {}
CONFIG_ALT: dict[str, Any] = {"instructions": "Mark $relevant"}

SCORING: dict[str, Any] = {
    "gold": {f"q{k}": {"c1": 1, "c2": 0, "c3": k % 2, "c4": 0} for k in range(8)},
    "humans": {
        w: {
            f"q{k}": {"c1": 1, "c2": int(k == j), "c3": k % 2, "c4": int(k == j + 3)}
            for k in range(8)
        }
        for j, w in enumerate("xyz")
    },
}


#: Even queries rank c4 above c1 (AP 1/2), odd ones rank c1, c3 first (AP 1): trec_eval MAP
#: 3/4. Read as marks (every similarity non-zero: all relevant) it would be 0.375.
MODEL_PAIRED: tuple[Any, float, float | None] = (
    {
        f"q{k}": (
            {"c1": 0.9, "c2": 0.2, "c3": 0.5, "c4": 0.3}
            if k % 2
            else {"c1": 0.9, "c2": 0.2, "c3": 0.1, "c4": 0.95}
        )
        for k in range(8)
    },
    0.75,
    0.75,
)

LLM_PARAMS: dict[str, Any] = {}
LLM_PROMPTS = {
    ("eng-Latn", None): "3487094e1621d86e",
    ("arb_Arab", STUDY_INSTRUCTIONS): "2aa75cc05f8df3e8",
}

_MODEL_ITEMS = [{"id": f"x{n}", "text": t} for n, t in enumerate(["cat", "dog", "rain", "snow"])]
MODEL_JOB: dict[str, Any] = {
    "contents": ({"query": "pets", "instruction": "Animals.", "candidates": _MODEL_ITEMS},),
    "gold": ({"x0": 1, "x1": 1, "x2": 0, "x3": 0},),
}

LS_LABELS = None
LS_TRANSLATION_KWARGS: dict[str, Any] = {
    "labels": None,
    "n_groups": None,
    "item_ids": [f"d{n}" for n in range(7)],
}
LS_ANSWER = {f"d{n}": int(n < 2) for n in range(7)}
LS_RENDERED = {(0, "en"): "86abbcec328ee4e5", (1, "arb_Arab"): "16012aaa70d65e91"}
LS_RENDER_KW: dict[str, Any] = {}
LS_RESULT_CASE: tuple[dict[str, Any], Any] = (
    {"item_ids": ["d1", "d2", "d3"]},
    {"d1": 1, "d2": 0, "d3": 0},
)

REVEAL_PINNED = [
    (EMB, SCORES, 0.25, "gap", "336163498a656dc6"),
    (EMB, SCORES, None, "top1", "336163498a656dc6"),
    (LLM, {f"d{n}": int(n == 2) for n in range(7)}, 0.5, "gap", "e2a7c891a260de20"),
]
REVEAL_SHOWN = ({"a": 0.9, "b": 0.85, "c": 0.2}, {"a": 1, "b": 1, "c": 0})


# --------------------------------------------------------------------- a simulated annotator
# Tests and benchmarks that play annotators or models ask the type for answers through these
# (see ``__init__``), so that none of them branches on the type's name.


def perfect_answer(gold: dict[str, int]) -> dict[str, int]:
    """The gold marks: 1 for each relevant candidate, 0 for the others."""
    return dict(gold)


def other_answer(answer: dict[str, int], labels: list[str]) -> dict[str, int]:
    """Every mark flipped."""
    return {cid: 1 - int(v) for cid, v in answer.items()}


def scripted_answer(gold: dict[str, int], k: int, who: str, labels: list[str]) -> dict[str, int]:
    """One mark flipped per query: ``'a'`` the k-th candidate, ``'b'`` the (k+2)-th."""
    cands = sorted(gold)
    flip = cands[k % len(cands)] if who == "a" else cands[(k + 2) % len(cands)]
    return {c: (1 - int(v)) if c == flip else int(v) for c, v in gold.items()}


def stored_prediction(gold: dict[str, int], *, llm: bool) -> dict[str, Any]:
    """An LLM stores marks; an embedding model stores scores (relevant candidates first)."""
    return dict(gold) if llm else {c: float(v) for c, v in gold.items()}


def items_in(gold: dict[str, int]) -> int:
    """An instance is one query."""
    return 1


def check_revealed(prediction: dict[str, Any], answer: dict[str, float], score: Any) -> None:
    """The revealed ranker lists the candidates it marks relevant by falling score."""
    ranked = prediction["result"][0]["value"]["ranker"]
    relevant = [answer[c] for c in ranked["relevant"]]
    assert relevant == sorted(relevant, reverse=True)
