"""Summarization end to end in real Label Studio servers.

The SICK-derived texts (``tests/data/summarization``; derived, not summaries: see SOURCES.md)
go through every step a user runs: ``init`` from a spec with ``type: summarization``,
``predict`` (the suite's fake encoder), ``annotators add`` (two English readers) and ``setup``,
both annotators answering through the SDK in the interface's own result format (every summary
in the box of its rating), ``pull``, ``close``, ``reveal`` and ``export``. The report's human
score must be mteb's per-text Spearman of the mean ratings against the expert scores, worked
out here with scipy from the submitted answers, and the report must show the type's rows (its
methods, α with its interval, the paired verdict of the model, the sample-size line).

The screens (English and Arabic, 1366 and 1920 px) are the shared screen test's
(``tests/integration/test_annotator_screens.py``); ``docs/screenshots/`` keeps a copy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import spearmanr

from tests.integration import _type_e2e as e2e

pytestmark = pytest.mark.labelstudio

KEY = "SickSumm/default"
N_TEXTS = 8
SICK = Path(__file__).resolve().parents[1] / "data" / "summarization" / "sick" / "texts.jsonl"


def rounded(g: float) -> int:
    return int(min(5, max(1, int(g + 0.5))))


def choose(subset: Any, inst: Any, golds: dict[str, float]) -> dict[int, dict[str, int]]:
    """A rates every summary at the experts' score rounded; B reverses A's ratings on every
    third text (6 − rating)."""
    right = {sid: rounded(g) for sid, g in golds.items()}
    flipped = {sid: 6 - r for sid, r in right.items()}
    return {1: right, 2: flipped if inst.sample_order % 3 == 0 else right}


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Iterator[e2e.TypeStudy]:
    """Initialised, predicted, set up; both annotators answer, then pull, close, reveal and
    export."""
    spec = {
        "name": "summarization-e2e",
        "seed": 4,
        "tasks": [
            {
                "name": "SickSumm",
                "type": "summarization",
                "source": {"path": str(SICK)},
                "subsets": [
                    {"name": "default", "language": "eng-Latn", "size": N_TEXTS, "annotators": 2}
                ],
            }
        ],
    }
    with e2e.set_up(annotator_servers, tmp_path_factory, spec) as s:
        e2e.answer(s, [KEY], choose, lead_time=20.0)
        e2e.close_and_export(s)
        yield s


def test_annotators_see_the_text_and_summaries_and_never_a_score(study) -> None:
    contents = {ref: i.content for ref, i in study.instances_by_ref(KEY).items()}
    config, tasks = study.shown(KEY)
    assert 'name="rating_5"' in config and "$references" not in config  # references hidden
    assert len(tasks) == N_TEXTS
    for task in tasks:
        data = task["data"]
        assert set(data) == {"hume_ref", "hume_position", "text", "references", "summaries"}
        shown = contents[data["hume_ref"]]
        assert [s["body"] for s in data["summaries"]] == [s["text"] for s in shown["candidates"]]
        assert "relevance" not in json.dumps(data)


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    assert study.pulled(KEY) == study.submitted[KEY]


def _mean_text_spearman(golds, answers: list[dict[str, dict[str, int]]]) -> float:
    """Independently: mean rating per summary, scipy's spearmanr per text, mteb's skip."""
    per_text = []
    for hid, g in golds.items():
        ids = sorted(g)
        mean = [float(np.mean([a[hid][s] for a in answers])) for s in ids]
        gs = [g[s] for s in ids]
        if len(set(gs)) > 1 and len(set(mean)) > 1:
            per_text.append(spearmanr(gs, mean).statistic)
    return float(np.mean(per_text))


def test_the_human_score_is_mteb_s_spearman_of_the_mean_ratings(study) -> None:
    s = study.exported(KEY)
    golds, submitted = study.gold(KEY), study.submitted[KEY]
    expected = _mean_text_spearman(golds, list(submitted.values()))
    assert s["human"]["method"] == "human:mean_rating+mteb_text_spearman"
    assert s["human"]["value"] == pytest.approx(expected, abs=1e-12)
    alone = _mean_text_spearman(golds, [submitted["annotator-2"]])
    assert s["human"]["per_rater"]["annotator-2"] == pytest.approx(alone, abs=1e-12)
    assert s["human"]["per_rater"]["annotator-1"] > s["human"]["per_rater"]["annotator-2"]
    head = s["agreement"][0]
    assert head["method"] == "krippendorff_alpha:interval"
    iv = head["details"]["interval"]
    assert iv["low"] <= head["value"] <= iv["high"]


def test_the_report_shows_the_type_s_rows(study) -> None:
    s = study.exported(KEY)
    mv = study.model_version
    assert s["models"][mv] is not None
    paired = s["paired"][mv]
    assert paired["rater_metric"] == "its printed score"  # like for like: per-text Spearman
    assert paired["position"] in {"above", "below", "inside"}
    assert s["planning"]["n_items"] == N_TEXTS
    md = study.report_md()
    assert KEY in md and "agreement with the expert panel" in md
    assert "bootstrap interval over texts" in md


def test_reveal_shows_the_model_s_ratings_by_rank(study) -> None:
    predictions = study.predictions(KEY)
    shown = 0
    for inst, [mine] in study.revealed(KEY):
        sims = predictions[inst.hume_id].answer
        ranker = mine["result"][0]["value"]["ranker"]
        best = max(sims, key=lambda k: sims[k])
        assert best in ranker["rating_5"]
        assert sorted(i for ids in ranker.values() for i in ids) == sorted(sims)
        shown += 1
    assert shown == N_TEXTS
