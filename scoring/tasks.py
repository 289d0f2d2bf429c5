"""Task metadata the scoring core needs: task type per task, languages, the HUME(v1) subset list.

Kept as data so the leaderboard can classify any MTEB result file: the HUME(v1) tasks are named
here; any other task's type is inferred from the metric names in its score block.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring.errors import InvalidInputError

TASK_TYPES = ("classification", "clustering", "reranking", "sts")

#: The 16 HUME(v1) tasks and their type (arXiv 2510.10062, Table 1; mteb benchmark "HUME(v1)").
HUME_V1_TASKS: Mapping[str, str] = {
    "HUMEEmotionClassification": "classification",
    "HUMEToxicConversationsClassification": "classification",
    "HUMETweetSentimentExtractionClassification": "classification",
    "HUMEMultilingualSentimentClassification": "classification",
    "HUMEArxivClusteringP2P": "clustering",
    "HUMERedditClusteringP2P": "clustering",
    "HUMEWikiCitiesClustering": "clustering",
    "HUMESIB200ClusteringS2S": "clustering",
    "HUMECore17InstructionReranking": "reranking",
    "HUMENews21InstructionReranking": "reranking",
    "HUMERobust04InstructionReranking": "reranking",
    "HUMEWikipediaRerankingMultilingual": "reranking",
    "HUMESICK-R": "sts",
    "HUMESTS12": "sts",
    "HUMESTSBenchmark": "sts",
    "HUMESTS22": "sts",
}

#: Languages whose subsets the HUME(v1) benchmark leaves out of every mean.
EXCLUDED_LANGUAGES_V1 = frozenset({"fra"})

#: Which metric key identifies a task type when the task is not one of ours (first match wins).
_TYPE_BY_METRIC = (
    ("accuracy", "classification"),
    ("v_measure", "clustering"),
    ("map", "reranking"),
    ("map_at_1000", "reranking"),
    ("cosine_spearman", "sts"),
    ("spearman", "sts"),
)


def task_type(task_name: str, score_block: Mapping[str, Any] | None = None) -> str:
    """Type of ``task_name``: from the HUME table, else inferred from the metrics it reports."""
    if task_name in HUME_V1_TASKS:
        return HUME_V1_TASKS[task_name]
    if score_block:
        for key, kind in _TYPE_BY_METRIC:
            if key in score_block:
                return kind
    raise InvalidInputError(f"cannot tell the task type of {task_name!r}")


def language_code(tag: str) -> str:
    """ISO 639-3 code of a language tag: ``"eng-Latn"`` → ``"eng"``, ``"nob-Latn"`` → ``"nob"``."""
    return tag.split("-")[0].split("_")[0].lower()


_TWO_TO_THREE = {
    "en": "eng",
    "ar": "ara",
    "ru": "rus",
    "da": "dan",
    "no": "nob",
    "nb": "nob",
    "fr": "fra",
    "de": "deu",
    "es": "spa",
    "zh": "zho",
}


def normalise_language(code: str) -> str:
    """Accept ``en``, ``eng`` or ``eng-Latn`` from a user and return the 639-3 code."""
    base = language_code(code.strip())
    return _TWO_TO_THREE.get(base, base)
