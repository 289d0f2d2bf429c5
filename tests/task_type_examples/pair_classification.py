"""Example data of the pair-classification type for the shared protocol tests (see ``__init__``),
and SICK read as a study reads it (for the type's own tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hume_sync.study.sources import load_records
from hume_sync.task_types.pair_classification import PairClassification
from hume_sync.task_types.pair_classification.study import (
    SICK_COLUMNS,
    SICK_LABEL_SET,
    LabelledPair,
    resolve_labels,
)
from tests._paths import SOURCE_DATA
from tests.task_type_examples import EMB, LLM, STUDY_INSTRUCTIONS

#: SICK's test release (entailment judgments), beside the repository.
SICK = SOURCE_DATA / "SICK_test_annotated.txt"

CONTENT: dict[str, Any] = {"sentence1": "A cat sits.", "sentence2": "A cat is sitting.", "label": 1}
# As the study stores it: the source's label names (how gold was made; never shown).
CONFIG: dict[str, Any] = {"label_set": list(SICK_LABEL_SET)}
CONFIG_ALT: dict[str, Any] = {
    "label_set": ["ENTAILMENT", "CONTRADICTION"],
    "pair_labels": {"1": "Same", "0": "Other"},
    "instructions": "Does the first sentence entail the second? $sentence2",
}

SCORING: dict[str, Any] = {
    "gold": {f"p{k}": int(g) for k, g in enumerate("110100101101")},
    "humans": {
        "x": {f"p{k}": int(g) for k, g in enumerate("110100101101")},
        "y": {f"p{k}": int(g) for k, g in enumerate("100110111101")},
        "z": {f"p{k}": int(g) for k, g in enumerate("110110100100")},
    },
}


#: Stored decisions, gold with the last positive missed: sklearn AP of 0/1 scores is
#: 6/7 · 1 + 1/7 · 7/12 = 6/7 + 1/12; mteb printed the max AP over similarities.
MODEL_PAIRED: tuple[Any, float, float | None] = (
    {f"p{k}": int(g) for k, g in enumerate("110100101100")},
    0.97,
    6 / 7 + 1 / 12,
)

LLM_PARAMS: dict[str, Any] = {}
LLM_PROMPTS = {
    ("eng-Latn", None): "73959407ab0aed6e",
    ("arb_Arab", STUDY_INSTRUCTIONS): "2b4bce7c9331a1a1",
}

MODEL_JOB: dict[str, Any] = {
    "contents": (
        {"sentence1": "a cat", "sentence2": "a dog"},
        {"sentence1": "rain", "sentence2": "snow"},
        {"sentence1": "a cat", "sentence2": "a kitten"},
    ),
    "gold": (0, 0, 1),
}

LS_LABELS = None
LS_TRANSLATION_KWARGS: dict[str, Any] = {"labels": None, "n_groups": None, "item_ids": None}
LS_ANSWER = 1
LS_RENDERED = {(0, "en"): "d9974a9dbb494ac5", (1, "arb_Arab"): "5c6aefde18f1f890"}
LS_RENDER_KW: dict[str, Any] = {}
LS_RESULT_CASE: tuple[dict[str, Any], Any] = ({}, 1)

REVEAL_PINNED = [
    (EMB, 1, 0.83, "gap", "caff9c55e32a12be"),
    (LLM, 0, 0.5, "gap", "6c9e4e19d377c29f"),
]
REVEAL_SHOWN = (1, 1)


def read_sick(path: Path = SICK) -> list[LabelledPair]:
    """SICK's pairs in file order as a study reads its local source (the spec's ``format: tsv``
    and ``columns``), entailment (1) against the other judgments (0) by ``label_set``."""
    records = load_records(PairClassification(), path, fmt="tsv", columns=SICK_COLUMNS)
    return resolve_labels(records, SICK_LABEL_SET)[0]  # type: ignore[arg-type]


# --------------------------------------------------------------------- a simulated annotator
# Tests and benchmarks that play annotators or models ask the type for answers through these
# (see ``__init__``), so that none of them branches on the type's name.


def perfect_answer(gold: int) -> int:
    """The gold yes (1) or no (0)."""
    return int(gold)


def other_answer(answer: int, labels: list[str]) -> int:
    """The other answer."""
    return 1 - int(answer)


def scripted_answer(gold: int, k: int, who: str, labels: list[str]) -> int:
    """``'a'`` errs on every 5th pair, ``'b'`` on pairs 1, 4, 7, ..."""
    wrong = (who == "a" and k % 5 == 0) or (who == "b" and k % 3 == 1)
    return 1 - int(gold) if wrong else int(gold)


def stored_prediction(gold: int, *, llm: bool) -> int:
    """A stored yes/no equal to gold."""
    return int(gold)


def items_in(gold: int) -> int:
    """An instance is one pair."""
    return 1


def check_revealed(prediction: dict[str, Any], answer: Any, score: Any) -> None:
    """Nothing beyond the round trip."""
