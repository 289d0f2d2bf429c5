"""Example data of the instruction reranking type for the shared protocol tests (see
``__init__``).

An arm of instruction reranking is a reranking subset whose queries carry an instruction, so
its scoring data, model answers, reveal cases and simulated annotator are reranking's; what is
its own is the content (the instruction shown apart from the query), the screen and the prompt,
whose digests are pinned here as the type was added.
"""

from __future__ import annotations

from typing import Any

from tests.task_type_examples import EMB, LLM, STUDY_INSTRUCTIONS
from tests.task_type_examples.reranking import (
    CANDIDATES,
    CONFIG,
    CONFIG_ALT,
    LLM_PARAMS,
    LS_ANSWER,
    LS_LABELS,
    LS_RENDER_KW,
    LS_RESULT_CASE,
    LS_TRANSLATION_KWARGS,
    MODEL_JOB,
    MODEL_PAIRED,
    REVEAL_SHOWN,
    SCORES,
    SCORING,
    check_revealed,
    items_in,
    other_answer,
    perfect_answer,
    scripted_answer,
    stored_prediction,
)

__all__ = [
    "CONFIG",
    "CONFIG_ALT",
    "CONTENT",
    "LLM_PARAMS",
    "LLM_PROMPTS",
    "LS_ANSWER",
    "LS_LABELS",
    "LS_RENDERED",
    "LS_RENDER_KW",
    "LS_RESULT_CASE",
    "LS_TRANSLATION_KWARGS",
    "MODEL_JOB",
    "MODEL_PAIRED",
    "REVEAL_PINNED",
    "REVEAL_SHOWN",
    "SCORING",
    "check_revealed",
    "items_in",
    "other_answer",
    "perfect_answer",
    "scripted_answer",
    "stored_prediction",
]

CONTENT: dict[str, Any] = {
    "query": "what is a bomb",
    "instruction": "Relevant documents describe how an explosive device works.",
    "candidates": CANDIDATES,
}
LLM_PROMPTS = {
    ("eng-Latn", None): "cbc675de6f3251ed",
    ("arb_Arab", STUDY_INSTRUCTIONS): "59780e89fe091742",
}
LS_RENDERED = {(0, "en"): "6d9522164c232d90", (1, "arb_Arab"): "8590586144ce07fb"}
#: Reranking's reveal cases, without a stored score (the type came after issue 13): the same
#: bytes as reranking's, its marks being reranking's.
REVEAL_PINNED = [
    (EMB, SCORES, None, "gap", "336163498a656dc6"),
    (EMB, SCORES, None, "top1", "336163498a656dc6"),
    (LLM, {f"d{n}": int(n == 2) for n in range(7)}, None, "gap", "e2a7c891a260de20"),
]
