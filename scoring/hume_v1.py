"""The HUME(v1) benchmark as data: its 16 tasks, their type, subsets and what the paper annotated.

One table for the whole product: the leaderboard tells a result file's task type by it
(:func:`scoring.tasks.task_type`), and the study preset ``hume-v1`` builds its tasks from it
(``hume_sync.study.presets``). It lives in ``scoring`` because that is the package every other one
may import. Source: arXiv 2510.10062, Table 1, and mteb's benchmark "HUME(v1)" (subset names and
language tags are MTEB's; a test keeps them equal to the installed mteb's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class BenchmarkTask:
    """One benchmark task: MTEB name, task type, subsets and the sizes the paper annotated.

    Subsets are ``(hf_subset, language tag)`` pairs; the sizes are ``size`` per subset,
    ``samples_per_label``, ``labels`` K, ``candidates`` N and ``score_range``, named as a study
    spec names them.
    """

    name: str
    task_type: str
    subsets: tuple[tuple[str, str], ...]
    sizing: Mapping[str, Any] = field(default_factory=dict)


def _task(
    name: str, task_type: str, subsets: list[tuple[str, str]], **sizing: Any
) -> BenchmarkTask:
    return BenchmarkTask(name, task_type, tuple(subsets), MappingProxyType(sizing))


_ENG = [("default", "eng-Latn")]

#: HUME(v1): the 16 tasks of the paper, in its order (French subsets exist in MTEB but are left
#: out of the benchmark: :data:`scoring.tasks.EXCLUDED_LANGUAGES_V1`, and of the subsets here).
HUME_V1: tuple[BenchmarkTask, ...] = (
    _task("HUMEEmotionClassification", "classification", _ENG, size=48, samples_per_label=16),
    _task(
        "HUMEToxicConversationsClassification",
        "classification",
        _ENG,
        size=45,
        samples_per_label=16,
    ),
    _task(
        "HUMETweetSentimentExtractionClassification",
        "classification",
        _ENG,
        size=45,
        samples_per_label=32,
    ),
    _task(
        "HUMEMultilingualSentimentClassification",
        "classification",
        [("eng", "eng-Latn"), ("ara", "ara-Arab"), ("nor", "nob-Latn"), ("rus", "rus-Cyrl")],
        size=40,
        samples_per_label=8,
    ),
    _task("HUMEArxivClusteringP2P", "clustering", _ENG, labels=5, size=30),
    _task("HUMERedditClusteringP2P", "clustering", _ENG, labels=6, size=30),
    _task("HUMEWikiCitiesClustering", "clustering", _ENG, labels=6, size=30),
    _task(
        "HUMESIB200ClusteringS2S",
        "clustering",
        [
            ("eng_Latn", "eng-Latn"),
            ("arb_Arab", "ara-Arab"),
            ("dan_Latn", "dan-Latn"),
            ("rus_Cyrl", "rus-Cyrl"),
        ],
        labels=6,
        size=30,
    ),
    _task("HUMECore17InstructionReranking", "reranking", _ENG, size=20, candidates=7),
    _task("HUMENews21InstructionReranking", "reranking", _ENG, size=31, candidates=7),
    _task("HUMERobust04InstructionReranking", "reranking", _ENG, size=49, candidates=7),
    _task(
        "HUMEWikipediaRerankingMultilingual",
        "reranking",
        [("en", "eng-Latn"), ("da", "dan-Latn"), ("no", "nob-Latn")],
        size=30,
        candidates=7,
    ),
    _task("HUMESICK-R", "sts", _ENG, size=40, score_range=(0, 5)),
    _task("HUMESTS12", "sts", _ENG, size=50, score_range=(0, 5)),
    _task("HUMESTSBenchmark", "sts", _ENG, size=50, score_range=(0, 5)),
    _task(
        "HUMESTS22",
        "sts",
        [("en", "eng-Latn"), ("ar", "ara-Arab"), ("ru", "rus-Cyrl")],
        size=30,
        score_range=(1, 4),
    ),
)

#: Task name → task type, for the 16 HUME(v1) tasks.
HUME_V1_TASKS: Mapping[str, str] = MappingProxyType({t.name: t.task_type for t in HUME_V1})

__all__ = ["HUME_V1", "HUME_V1_TASKS", "BenchmarkTask"]
