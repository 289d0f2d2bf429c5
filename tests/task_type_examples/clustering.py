"""Example data of the clustering type for the shared protocol tests (see ``__init__``)."""

from __future__ import annotations

from typing import Any

from tests.task_type_examples import EMB, LLM, STUDY_INSTRUCTIONS

ITEMS = [{"id": f"t{n}", "text": f"text number {n}", "label": "g"} for n in range(6)]
#: An answer naming the interface's groups (``group_1..K``).
GROUPS = {f"t{n}": f"group_{n % 3 + 1}" for n in range(6)}

CONTENT: dict[str, Any] = {"items": ITEMS, "gold": {}}
# A clustering label set holds gold labels (never shown).
CONFIG: dict[str, Any] = {"label_set": ["cs", "bio", "phys"], "n_groups": 3}
CONFIG_ALT: dict[str, Any] = {
    "label_set": ["cs"],
    "n_groups": 2,
    "instructions": "Sort into {n_groups} piles",
}

SCORING: dict[str, Any] = {
    "gold": {"set": {f"t{k}": lab for k, lab in enumerate("aaabbbccc")}},
    "humans": {
        "x": {"set": {f"t{k}": g for k, g in enumerate("112223333")}},
        "y": {"set": {f"t{k}": g for k, g in enumerate("111222333")}},
        "z": {"set": {f"t{k}": g for k, g in enumerate("111232333")}},
    },
}

LLM_PARAMS: dict[str, Any] = {"n_groups": 3}
LLM_PROMPTS = {
    ("eng-Latn", None): "a64196a58f0548e5",
    ("arb_Arab", STUDY_INSTRUCTIONS): "0ed070b67532abb3",
}

_MODEL_ITEMS = [{"id": f"x{n}", "text": t} for n, t in enumerate(["cat", "dog", "rain", "snow"])]
MODEL_JOB: dict[str, Any] = {
    "contents": ({"items": _MODEL_ITEMS},),
    "gold": ({"x0": "pet", "x1": "pet", "x2": "sky", "x3": "sky"},),
}

LS_LABELS = None
LS_TRANSLATION_KWARGS: dict[str, Any] = {
    "labels": None,
    "n_groups": 3,
    "item_ids": [f"t{n}" for n in range(6)],
}
LS_ANSWER = GROUPS
LS_RENDERED = {(0, "en"): "161d95e126da2466", (1, "arb_Arab"): "815e63f8edae5468"}
LS_RENDER_KW: dict[str, Any] = {"n_groups": 5}
LS_RESULT_CASE: tuple[dict[str, Any], Any] = (
    {"n_groups": 2, "item_ids": ["d1", "d2", "d3"]},
    {"d1": "group_1", "d2": "group_2", "d3": "group_1"},
)

REVEAL_PINNED = [
    (EMB, GROUPS, 0.25, "gap", "822c76aec8292ada"),
    (LLM, GROUPS, 0.5, "gap", "430ef0a3da27a6a2"),
]
REVEAL_SHOWN = (GROUPS, GROUPS)
