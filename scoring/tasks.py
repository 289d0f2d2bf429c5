"""Task metadata the scoring core needs: task type per task, languages, the HUME(v1) subset list.

Kept as data so the leaderboard can classify any MTEB result file: the HUME(v1) tasks are named
here; any other task's type is inferred from the metric names in its score block, by asking the
known task types (:class:`scoring.rules.ScoringRules`) which metrics identify them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scoring.errors import InvalidInputError
from scoring.rules import ScoringRules

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


def task_type(
    task_name: str,
    score_block: Mapping[str, Any] | None,
    types: Sequence[ScoringRules],
) -> ScoringRules:
    """Type of ``task_name`` among ``types``: from the HUME table, else the first type (in the
    order given) whose :attr:`~scoring.rules.ScoringRules.score_metric_keys` the block reports."""
    by_name = {t.name: t for t in types}
    if task_name in HUME_V1_TASKS:
        name = HUME_V1_TASKS[task_name]
        if name not in by_name:
            raise InvalidInputError(f"{task_name!r} is a {name} task, not a known task type")
        return by_name[name]
    if score_block:
        for t in types:
            if any(key in score_block for key in t.score_metric_keys):
                return t
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
