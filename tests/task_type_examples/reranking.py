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
    (EMB, SCORES, 0.25, "gap", "f24e34c9c9abc05f"),
    (EMB, SCORES, None, "top1", "336163498a656dc6"),
    (LLM, {f"d{n}": int(n == 2) for n in range(7)}, 0.5, "gap", "eeb76591a6fc44a1"),
]
REVEAL_SHOWN = ({"a": 0.9, "b": 0.85, "c": 0.2}, {"a": 1, "b": 1, "c": 0})
