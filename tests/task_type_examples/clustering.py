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


#: One partition per set: no per-item form, so models are unpaired.
MODEL_PAIRED: tuple[Any, float, float | None] = (
    {"set": {f"t{k}": g for k, g in enumerate("111222333")}},
    1.0,
    None,
)

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
    (EMB, GROUPS, 0.25, "gap", "9ebe32bd7fcc5d88"),
    (LLM, GROUPS, 0.5, "gap", "ea05ff2a0c92b7ec"),
]
REVEAL_SHOWN = (GROUPS, GROUPS)


# --------------------------------------------------------------------- a simulated annotator
# Tests and benchmarks that play annotators or models ask the type for answers through these
# (see ``__init__``), so that none of them branches on the type's name.


def _group_names(gold: dict[str, str]) -> dict[str, str]:
    """Gold labels as the interface names groups: ``group_1``... in the labels' sorted order."""
    return {lab: f"group_{k + 1}" for k, lab in enumerate(sorted(set(gold.values())))}


def perfect_answer(gold: dict[str, str]) -> dict[str, str]:
    """The gold partition, with the interface's group names."""
    names = _group_names(gold)
    return {item: names[lab] for item, lab in gold.items()}


def other_answer(answer: dict[str, str], labels: list[str]) -> dict[str, str]:
    """A different partition's names: every group renamed to the next one (a relabelling, so
    V-measure stays 1 while the raw answers all differ)."""
    groups = sorted(set(answer.values()))
    return {item: f"group_{(groups.index(g) + 1) % len(groups) + 1}" for item, g in answer.items()}


def scripted_answer(gold: dict[str, str], k: int, who: str, labels: list[str]) -> dict[str, str]:
    """``'a'`` sorts perfectly (up to renaming); ``'b'`` swaps the groups of two texts."""
    out = perfect_answer(gold)
    if who == "b":
        t1, t2 = sorted(out)[:2]
        out[t1], out[t2] = out[t2], out[t1]
    return out


def stored_prediction(gold: dict[str, str], *, llm: bool) -> dict[str, str]:
    """A stored model partition equal to gold, with the interface's group names."""
    return perfect_answer(gold)


def items_in(gold: dict[str, str]) -> int:
    """A clustering set counts its texts."""
    return len(gold)


def check_revealed(prediction: dict[str, Any], answer: Any, score: Any) -> None:
    """Nothing beyond the round trip: a partition has no score of its own."""
