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

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.store import Store, gold
from hume_sync.workflow.predict import predict_study
from tests._annotate import hume_env, register
from tests._fake_encoder import FakeEncoder
from tests._studies import write_spec

pytestmark = pytest.mark.labelstudio

KEY = "SickSumm/default"
N_TEXTS = 8
SICK = Path(__file__).resolve().parents[1] / "data" / "summarization" / "sick" / "texts.jsonl"


def rounded(g: float) -> int:
    return int(min(5, max(1, int(g + 0.5))))


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """Initialised, predicted, set up; both annotators answer, then pull, close, reveal and
    export. A rates every summary at the experts' score rounded; B reverses A's ratings on
    every third text (6 − rating)."""
    root = tmp_path_factory.mktemp("summarization")
    mp = hume_env(root)
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
    study_dir = root / "study"
    assert main(["init", str(study_dir), "--spec", str(write_spec(study_dir, spec))]) == 0
    encoder = FakeEncoder()
    with Store.open(study_dir) as store:
        predict_study(study_dir, store, encoders=[encoder], progress=False)
    a, b = annotator_servers
    register(study_dir, a, "eng", mp)
    register(study_dir, b, "eng", mp)
    assert main(["setup", str(study_dir)]) == 0
    clients = {1: a.server.client(a.token), 2: b.server.client(b.token)}
    submitted: dict[str, dict[str, dict[str, int]]] = {"annotator-1": {}, "annotator-2": {}}
    with Store.open(study_dir) as store:
        subset = store.subset(KEY)
        interface = task_types.get(subset.task_type)
        golds = gold(store, KEY)
        for inst in store.instances(KEY):
            kw = interface.ls_translation_kwargs(subset.config, inst.content)
            right = {sid: rounded(g) for sid, g in golds[inst.hume_id].items()}
            flipped = {sid: 6 - r for sid, r in right.items()}
            chosen = {1: right, 2: flipped if inst.sample_order % 3 == 0 else right}
            for slot, answer in chosen.items():
                task = store.slot_tasks(KEY, slot)[inst.hume_id]
                result = interface.ls_answer_to_result(answer, **kw)
                clients[slot].create_annotation(task, result, lead_time=20.0)
                submitted[f"annotator-{slot}"][inst.hume_id] = answer
        predictions = {p.hume_id: p for p in store.predictions(KEY)}
        instances = {i.hume_id: i for i in store.instances(KEY)}
    assert main(["pull", str(study_dir)]) == 0
    assert main(["close", str(study_dir)]) == 0
    assert main(["reveal", str(study_dir)]) == 0
    out = root / "report"
    assert main(["export", str(study_dir), "--out", str(out)]) == 0
    yield {
        "dir": study_dir,
        "out": out,
        "a": a,
        "gold": golds,
        "submitted": submitted,
        "predictions": predictions,
        "instances": instances,
        "model_version": encoder.model_version,
    }
    mp.undo()


def exported(study: dict[str, Any]) -> dict[str, Any]:
    data = json.loads((study["out"] / "scores.json").read_text())
    return next(s for s in data["subsets"] if s["subset"] == KEY)


def test_annotators_see_the_text_and_summaries_and_never_a_score(study) -> None:
    client = study["a"].server.client()
    with Store.open(study["dir"]) as store:
        project = next(p for p in store.slot_projects(KEY) if p.slot == 1)
        contents = {i.hume_ref: i.content for i in store.instances(KEY)}
    config = client.get_project(project.ls_project_id)["label_config"]
    assert 'name="rating_5"' in config and "$references" not in config  # references hidden
    tasks = client.list_tasks(project.ls_project_id)
    assert len(tasks) == N_TEXTS
    for task in tasks:
        data = task["data"]
        assert set(data) == {"hume_ref", "hume_position", "text", "references", "summaries"}
        shown = contents[data["hume_ref"]]
        assert [s["body"] for s in data["summaries"]] == [s["text"] for s in shown["candidates"]]
        assert "relevance" not in json.dumps(data)


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    with Store.open(study["dir"]) as store:
        rows = store.annotations(KEY)
    valid: dict[str, dict[str, dict[str, int]]] = {}
    for r in rows:
        assert r.status == "valid", r.error
        valid.setdefault(r.annotator, {})[r.hume_id] = r.answer
    assert valid == study["submitted"]


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
    s = exported(study)
    golds, submitted = study["gold"], study["submitted"]
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
    s = exported(study)
    mv = study["model_version"]
    assert s["models"][mv] is not None
    paired = s["paired"][mv]
    assert paired["rater_metric"] == "its printed score"  # like for like: per-text Spearman
    assert paired["position"] in {"above", "below", "inside"}
    assert s["planning"]["n_items"] == N_TEXTS
    md = (study["out"] / "report.md").read_text()
    assert KEY in md and "agreement with the expert panel" in md
    assert "bootstrap interval over texts" in md


def test_reveal_shows_the_model_s_ratings_by_rank(study) -> None:
    client = study["a"].server.client()
    with Store.open(study["dir"]) as store:
        refs = {i.hume_ref: i for i in store.instances(KEY)}
        project = next(p for p in store.slot_projects(KEY) if p.slot == 1)
    for task in client.list_tasks(project.ls_project_id):
        inst = refs[task["data"]["hume_ref"]]
        [mine] = [p for p in task["predictions"] if p["model_version"] == study["model_version"]]
        sims = study["predictions"][inst.hume_id].answer
        ranker = mine["result"][0]["value"]["ranker"]
        best = max(sims, key=lambda k: sims[k])
        assert best in ranker["rating_5"]
        assert sorted(i for ids in ranker.values() for i in ids) == sorted(sims)
