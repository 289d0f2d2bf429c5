"""Example data of the bitext-mining type for the shared protocol tests (see ``__init__``)."""

from __future__ import annotations

from typing import Any

from tests.task_type_examples import EMB, LLM, STUDY_INSTRUCTIONS

#: Candidate translations, one with characters XML and Label Studio treat specially.
CANDIDATES = [
    {"id": "t3", "text": "Le chat dort."},
    {"id": "t1", "text": "Le chien dort & <rêve>."},
    {"id": "t7", "text": 'Le chat mange "$text".'},
]

CONTENT: dict[str, Any] = {"sentence": "The cat sleeps.", "candidates": CANDIDATES}
CONFIG: dict[str, Any] = {"target_language": "fra-Latn", "candidates": 3}
CONFIG_ALT: dict[str, Any] = {
    "target_language": "arb-Arab",
    "candidates": 3,
    "instructions": "Pick $the <one>",
}

#: Twelve sentences; gold of item k is "g<k>"; a wrong choice names another item's gold
#: (it costs that item precision, as in mteb) or a filler "f<k>".
_GOLD = {f"i{k}": f"g{k}" for k in range(12)}


def _answers(wrong: dict[int, str]) -> dict[str, str]:
    return {f"i{k}": wrong.get(k, f"g{k}") for k in range(12)}


SCORING: dict[str, Any] = {
    "gold": _GOLD,
    "humans": {
        "x": _answers({}),
        "y": _answers({1: "g2", 5: "f5"}),
        "z": _answers({1: "g2", 9: "g3"}),
    },
}

#: The model chooses g2 for i1 and g3 for i9 (as z), and f5 for i5. Its printed score is mteb's
#: full-set F1 (0.9 here, a number of its own); compared is the F1 of its choices:
#: labels g0..g11 each with support 1; predictions: g2 twice, g3 twice, f5 once.
#: F1(g1) = F1(g5) = F1(g9) = 0; F1(g2) = F1(g3) = 2·1/(1+2) = 2/3; the other 7 are 1.
#: Weighted F1 = (7 + 4/3) / 12 = 25/36.
MODEL_PAIRED: tuple[Any, float, float | None] = (
    _answers({1: "g2", 5: "f5", 9: "g3"}),
    0.9,
    25 / 36,
)

LLM_PARAMS: dict[str, Any] = {"target_language": "fra-Latn"}
LLM_PROMPTS = {
    ("eng-Latn", None): "bdf2d2634c024a31",
    ("arb_Arab", STUDY_INSTRUCTIONS): "ed082a22ee5c3218",
}

MODEL_JOB: dict[str, Any] = {
    "contents": (
        {
            "sentence": "a cat",
            "candidates": [{"id": "t1", "text": "un chat"}, {"id": "t2", "text": "la pluie"}],
        },
        {
            "sentence": "the rain",
            "candidates": [{"id": "t2", "text": "la pluie"}, {"id": "t3", "text": "un chien"}],
        },
    ),
    "gold": ("t1", "t2"),
}

LS_LABELS = None
LS_TRANSLATION_KWARGS: dict[str, Any] = {
    "labels": CANDIDATES,
    "n_groups": None,
    "item_ids": None,
}
LS_ANSWER = "t7"
LS_RENDERED = {(0, "en"): "2babe0cf9ba2f23d", (1, "arb_Arab"): "54f5995e8ba32055"}
LS_RENDER_KW: dict[str, Any] = {}
LS_RESULT_CASE: tuple[dict[str, Any], Any] = ({"labels": CANDIDATES}, "t1")

REVEAL_PINNED = [
    # No stored score: a new type has no "before issue 13" bytes (tests/ml_backend/test_reveal).
    (EMB, "t7", None, "gap", "a35732ca1fcf2396"),
    (LLM, "t1", None, "gap", "7cea4f31ab78652b"),
]
REVEAL_SHOWN = ("t3", "t3")


# --------------------------------------------------------------------- a simulated annotator
# Tests and benchmarks that play annotators or models ask the type for answers through these
# (see ``__init__``), so that none of them branches on the type's name.


def perfect_answer(gold: str) -> str:
    """The translation's id."""
    return gold


def other_answer(answer: str, labels: list[str]) -> str:
    """Another candidate: the first of ``labels`` (the instance's candidate ids) that differs."""
    return next(c for c in labels if c != answer)


def scripted_answer(gold: str, k: int, who: str, labels: list[str]) -> str:
    """Annotator ``'a'`` errs on every 5th item, ``'b'`` on items 1, 4, 7, ... (``labels``: the
    instance's candidate ids)."""
    wrong = (who == "a" and k % 5 == 0) or (who == "b" and k % 3 == 1)
    others = sorted(set(labels) - {gold})
    return others[k % len(others)] if wrong and others else gold


def stored_prediction(gold: str, *, llm: bool) -> Any:
    """The chosen id, for embedding models and LLMs alike."""
    return gold


def items_in(gold: str) -> int:
    """An instance is one sentence."""
    return 1


def check_revealed(prediction: dict[str, Any], answer: Any, score: Any) -> None:
    """The revealed choice is one candidate's text, and no score is shown."""
    assert "score" not in prediction
    choices = prediction["result"][0]["value"]["choices"]
    assert len(choices) == 1 and choices[0] in {c["text"] for c in CANDIDATES}
