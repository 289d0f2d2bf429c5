"""Built-in study presets, kept as plain data so the spec parser validates them like user input.

``hume-v1`` is the HUME(v1) benchmark (arXiv 2510.10062): 16 MTEB tasks, 26 task-language subsets
(French excluded), with the instance counts and ``samples_per_label`` of the paper. The MTEB
datasets of these tasks *are* the annotated HUME samples, so the preset takes every instance
(``sampling: all``) instead of re-sampling; ``size`` is what the paper annotated and is checked
against the loaded data (a mismatch is reported, not fatal).
"""

from __future__ import annotations

import copy
from typing import Any

from hume_sync.errors import SpecError


def _task(
    name: str,
    task_type: str,
    subsets: list[tuple[str, str]],
    **sizing: Any,
) -> dict[str, Any]:
    """One preset task entry: every subset shares the sizing fields."""
    return {
        "name": name,
        "type": task_type,
        "source": {"mteb": name},
        "sampling": "all",
        **sizing,
        "subsets": [{"name": hf_subset, "language": language} for hf_subset, language in subsets],
    }


_ENG = [("default", "eng-Latn")]

#: HUME(v1): the 16 tasks of hume.md, in the paper's order. Languages are MTEB's tags.
HUME_V1: tuple[dict[str, Any], ...] = (
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
    _task("HUMESICK-R", "sts", _ENG, size=40, score_range=[0, 5]),
    _task("HUMESTS12", "sts", _ENG, size=50, score_range=[0, 5]),
    _task("HUMESTSBenchmark", "sts", _ENG, size=50, score_range=[0, 5]),
    _task(
        "HUMESTS22",
        "sts",
        [("en", "eng-Latn"), ("ar", "ara-Arab"), ("ru", "rus-Cyrl")],
        size=30,
        score_range=[1, 4],
    ),
)

PRESETS: dict[str, tuple[dict[str, Any], ...]] = {"hume-v1": HUME_V1}


def preset_tasks(
    preset: str, only: list[str] | None = None, *, file: str = "<spec>"
) -> list[dict[str, Any]]:
    """Raw task entries of a preset (deep copies), optionally restricted to the names in ``only``.

    Raises SpecError for an unknown preset or a name in ``only`` that the preset does not hold, so a
    typo never silently drops a task from a study.
    """
    if preset not in PRESETS:
        known = ", ".join(sorted(PRESETS))
        raise SpecError(file, f"unknown preset {preset!r} (known: {known})", field="preset")
    table = PRESETS[preset]
    if only is None:
        return copy.deepcopy(list(table))
    names = [entry["name"] for entry in table]
    for name in only:
        if name not in names:
            raise SpecError(
                file,
                f"unknown preset task {name!r} in preset {preset!r}",
                task=name,
                field="only",
            )
    return [copy.deepcopy(entry) for entry in table if entry["name"] in only]
