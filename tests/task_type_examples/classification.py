"""Example data of the classification type for the shared protocol tests (see ``__init__``)."""

from __future__ import annotations

from typing import Any

from tests.task_type_examples import EMB, LLM, STUDY_INSTRUCTIONS

#: A label set with characters XML and Label Studio treat specially.
LABELS = ["joy", "anger", "fear & <x>", 'say "hi"']

CONTENT: dict[str, Any] = {"text": "The match ended.", "label": "joy"}
CONFIG: dict[str, Any] = {"label_set": LABELS}
CONFIG_ALT: dict[str, Any] = {
    "label_set": LABELS,
    "instructions": "Pick one $text <b>",
    "n_groups": 4,
}

SCORING: dict[str, Any] = {
    "gold": {f"i{k}": lab for k, lab in enumerate("aabbccabcabc")},
    "humans": {
        "x": {f"i{k}": lab for k, lab in enumerate("aabbccabcabc")},
        "y": {f"i{k}": lab for k, lab in enumerate("abbbccabcaba")},
        "z": {f"i{k}": lab for k, lab in enumerate("aabbcbabcacc")},
    },
}


#: The stored vote misses i10 and i11: 10/12 compared; mteb printed its mean over runs.
MODEL_PAIRED: tuple[Any, float, float | None] = (
    {f"i{k}": lab for k, lab in enumerate("aabbccabcaaa")},
    0.8,
    10 / 12,
)

LLM_PARAMS: dict[str, Any] = {"labels": LABELS}
LLM_PROMPTS = {
    ("eng-Latn", None): "840ab85eb9ef86e3",
    ("arb_Arab", STUDY_INSTRUCTIONS): "df3b5a4cff8a6e86",
}

MODEL_JOB: dict[str, Any] = {
    "contents": ({"text": "a cat"}, {"text": "the rain"}),
    "gold": ("pet", "sky"),
    "train_pool": tuple(
        {"text": t, "label": lab}
        for t, lab in [("cat", "pet"), ("dog", "pet"), ("rain", "sky"), ("snow", "sky")]
    ),
    "settings": {"samples_per_label": 2},
}

LS_LABELS = LABELS
LS_TRANSLATION_KWARGS: dict[str, Any] = {"labels": LABELS, "n_groups": None, "item_ids": None}
LS_ANSWER = "anger"
LS_RENDERED = {(0, "en"): "c09dd236474ecd8c", (1, "arb_Arab"): "dd919c522fff770d"}
LS_RENDER_KW: dict[str, Any] = {"labels": ["joy", "anger", "fear"]}
LS_RESULT_CASE: tuple[dict[str, Any], Any] = ({"labels": ["joy", "anger", "fear"]}, "anger")

REVEAL_PINNED = [
    (LLM, "joy", 0.5, "gap", "d146c42ba2648ece"),
    (EMB, "joy", 0.25, "gap", "e37382aed052be74"),
]
REVEAL_SHOWN = ("anger", "anger")


# --------------------------------------------------------------------- a simulated annotator
# Tests and benchmarks that play annotators or models ask the type for answers through these
# (see ``__init__``), so that none of them branches on the type's name.


def perfect_answer(gold: Any) -> Any:
    """What an annotator who agrees with gold submits: the gold label."""
    return gold


def other_answer(answer: Any, labels: list[str]) -> Any:
    """A plausible answer that differs from ``answer``: the first other label."""
    return next(lab for lab in labels if lab != answer)


def scripted_answer(gold: Any, k: int, who: str, labels: list[str]) -> Any:
    """Annotator ``'a'`` errs on every 5th item, ``'b'`` on items 1, 4, 7, ... (other labels)."""
    wrong = (who == "a" and k % 5 == 0) or (who == "b" and k % 3 == 1)
    return sorted(set(labels) - {gold})[k % (len(labels) - 1)] if wrong else gold


def stored_prediction(gold: Any, *, llm: bool) -> Any:
    """A stored model answer equal to gold: a label, for embedding models and LLMs alike."""
    return gold


def items_in(gold: Any) -> int:
    """An instance is one text."""
    return 1


def check_revealed(prediction: dict[str, Any], answer: Any, score: Any) -> None:
    """The revealed prediction carries no score: the stored one (the share of the logistic-
    regression runs that voted for the label) would read as accuracy in Label Studio."""
    assert score is not None and "score" not in prediction
