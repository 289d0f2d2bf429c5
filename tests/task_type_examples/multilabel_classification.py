"""Example data of the multilabel classification type for the shared protocol tests (see
``__init__``)."""

from __future__ import annotations

from typing import Any

from tests.task_type_examples import EMB, LLM, STUDY_INSTRUCTIONS

#: A label set with characters XML and Label Studio treat specially.
LABELS = ["health", "travel", "fear & <x>", 'say "hi"']

CONTENT: dict[str, Any] = {"text": "The clinic near the station reopened."}
CONFIG: dict[str, Any] = {"label_set": LABELS, "none_choice": False}
#: The second config offers "no label applies" (its data had unlabelled texts).
CONFIG_ALT: dict[str, Any] = {
    "label_set": LABELS,
    "none_choice": True,
    "instructions": "Tick $text <b>",
}

_GOLD = ["a", "ab", "b", "c", "ac", "bc", "a", "b", "c", "abc", "a", ""]


def _sets(codes: list[str]) -> dict[str, list[str]]:
    return {f"i{k}": sorted(code) for k, code in enumerate(codes)}


#: x agrees with gold everywhere; y misses b on i1 and adds a on i5; z misses c on i4 and
#: adds c on i11 (gold: no label). Each error is one annotator's alone, so the per-label vote
#: is gold on all 12 items: exact-match accuracy 1; y and z score 10/12 each.
SCORING: dict[str, Any] = {
    "gold": _sets(_GOLD),
    "humans": {
        "x": _sets(_GOLD),
        "y": _sets(["a", "a", "b", "c", "ac", "abc", "a", "b", "c", "abc", "a", ""]),
        "z": _sets(["a", "ab", "b", "c", "a", "bc", "a", "b", "c", "abc", "a", "c"]),
    },
}

#: The stored per-label majority misses i1 ({a} for {a, b}) and i11 ({c} for {}): 10/12
#: compared; mteb printed its mean over kNN runs.
MODEL_PAIRED: tuple[Any, float, float | None] = (
    _sets(["a", "a", "b", "c", "ac", "bc", "a", "b", "c", "abc", "a", "c"]),
    0.7,
    10 / 12,
)

LLM_PARAMS: dict[str, Any] = {"labels": LABELS, "none_choice": False}
LLM_PROMPTS = {
    ("eng-Latn", None): "471129544be5cf7c",
    ("arb_Arab", STUDY_INSTRUCTIONS): "497c0b6923eddfb5",
}

#: Six train texts (kNN needs five per experiment), two labels, one text holding both.
MODEL_JOB: dict[str, Any] = {
    "contents": ({"text": "a cat in the rain"}, {"text": "the snow"}),
    "gold": (["pet", "sky"], ["sky"]),
    "train_pool": tuple(
        {"text": t, "label": lab}
        for t, lab in [
            ("cat", '["pet"]'),
            ("dog", '["pet"]'),
            ("rain", '["sky"]'),
            ("snow", '["sky"]'),
            ("wet dog", '["pet", "sky"]'),
            ("hamster", '["pet"]'),
            ("cloud", '["sky"]'),
        ]
    ),
    "settings": {"samples_per_label": 3},
}

LS_LABELS = LABELS
LS_TRANSLATION_KWARGS: dict[str, Any] = {"labels": LABELS, "n_groups": None, "item_ids": None}
LS_ANSWER = ["fear & <x>", "travel"]
LS_RENDERED = {(0, "en"): "b39934a530cd80eb", (1, "arb_Arab"): "a5be06a821fc0b23"}
LS_RENDER_KW: dict[str, Any] = {"labels": ["joy", "anger", "fear"]}
LS_RESULT_CASE: tuple[dict[str, Any], Any] = ({"labels": ["joy", "anger", "fear"]}, ["anger"])

REVEAL_PINNED = [
    (LLM, ["health"], None, "gap", "a6579ead3444444b"),
    (EMB, ["health", "travel"], None, "gap", "e8956317a421cc3d"),
]
REVEAL_SHOWN = (["travel", "health"], ["health", "travel"])


# --------------------------------------------------------------------- a simulated annotator
# Tests and benchmarks that play annotators or models ask the type for answers through these
# (see ``__init__``), so that none of them branches on the type's name.


def perfect_answer(gold: Any) -> Any:
    """What an annotator who agrees with gold submits: gold's labels."""
    return sorted(gold)


def other_answer(answer: Any, labels: list[str]) -> Any:
    """A plausible answer that differs from ``answer``: the first label toggled."""
    first = sorted(labels)[0]
    return sorted(set(answer) ^ {first}) or [sorted(labels)[1]]


def scripted_answer(gold: Any, k: int, who: str, labels: list[str]) -> Any:
    """Annotator ``'a'`` errs on every 5th item, ``'b'`` on items 1, 4, 7, ... (one label
    toggled, never leaving the set empty)."""
    wrong = (who == "a" and k % 5 == 0) or (who == "b" and k % 3 == 1)
    if not wrong:
        return sorted(gold)
    toggled = sorted(set(gold) ^ {sorted(labels)[k % len(labels)]})
    return toggled or sorted(set(labels) - set(gold))[:1]


def stored_prediction(gold: Any, *, llm: bool) -> Any:
    """A stored model answer equal to gold: a sorted list of labels, for both kinds."""
    return sorted(gold)


def items_in(gold: Any) -> int:
    """An instance is one text."""
    return 1


def check_revealed(prediction: dict[str, Any], answer: Any, score: Any) -> None:
    """The revealed prediction ticks the answer's labels and carries no score (the stored one,
    the share of kNN runs that predicted this set, would read as accuracy in Label Studio)."""
    assert "score" not in prediction
    assert sorted(prediction["result"][0]["value"]["choices"]) == sorted(answer)
