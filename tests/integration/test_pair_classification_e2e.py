"""Pair classification end to end in real Label Studio servers, like the other four types.

A small SICK study (entailment against the rest, balanced, the entailment instructions) goes
through every step a user runs: ``init`` from a spec with ``type: pair_classification``,
``predict`` (the suite's fake encoder, bag-of-words vectors, so that mteb can be run on the very
same vectors), ``annotators add`` and ``setup`` (one Label Studio per annotator), two annotators
answering through the SDK with their own tokens, ``pull``, ``close``, ``reveal`` and ``export``.
The report's human score must be the type's named rule (AP of the annotators' vote share per
pair; majority vote with ties to 0 for accuracy) computed here by hand from the submitted
answers, and the model's score must be what mteb's own ``AbsTaskPairClassification`` gives on the
same pairs with the same vectors.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.store import Store, gold
from hume_sync.task_types.pair_classification.study import SICK_COLUMNS, SICK_LABEL_SET
from hume_sync.workflow.predict import predict_study
from label_studio_configs.pair_classification import ENTAILMENT_INSTRUCTIONS
from tests._annotate import hume_env, register
from tests._studies import write_spec
from tests.hume_sync.task_types.test_pair_classification_model import (
    BagOfWordsEncoder,
    mteb_fake_encoder,
    run_mteb_pairs,
)
from tests.task_type_examples.pair_classification import SICK

pytestmark = pytest.mark.labelstudio

SUBSET = "SICK-E/default"
N_PAIRS = 16


def spec() -> dict[str, Any]:
    return {
        "name": "pairs-e2e",
        "seed": 5,
        "tasks": [
            {
                "name": "SICK-E",
                "type": "pair_classification",
                "source": {"path": str(SICK), "format": "tsv", "columns": dict(SICK_COLUMNS)},
                "label_set": list(SICK_LABEL_SET),
                "instructions": ENTAILMENT_INSTRUCTIONS,
                "subsets": [{"language": "eng-Latn", "size": N_PAIRS, "annotators": 2}],
            }
        ],
    }


def average_precision(gold_labels: list[int], scores: list[float]) -> float:
    """AP by hand: each distinct score, highest first, is one cut (a tie group is one step);
    AP = Σ (recall gained at the cut) × (precision at the cut)."""
    positives = sum(gold_labels)
    ap, seen_pos, seen = 0.0, 0, 0
    for cut in sorted(set(scores), reverse=True):
        group = [g for g, s in zip(gold_labels, scores, strict=True) if s == cut]
        seen, gained = seen + len(group), sum(group)
        seen_pos += gained
        ap += (gained / positives) * (seen_pos / seen)
    return ap


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Any:
    """Initialised, predicted, set up, answered by both annotators, pulled, closed, revealed
    and exported once; the tests read what each step left."""
    pytest.importorskip("mteb")
    root = tmp_path_factory.mktemp("pairs")
    mp = hume_env(root)
    study_dir = root / "study"
    assert main(["init", str(study_dir), "--spec", str(write_spec(study_dir, spec()))]) == 0
    encoder = BagOfWordsEncoder()
    with Store.open(study_dir) as store:
        predict_study(study_dir, store, encoders=[encoder], progress=False)
    a, b = annotator_servers
    register(study_dir, a, "eng", mp)
    register(study_dir, b, "eng", mp)
    assert main(["setup", str(study_dir)]) == 0
    clients = {1: a.server.client(a.token), 2: b.server.client(b.token)}
    submitted: dict[str, dict[str, int]] = {"annotator-1": {}, "annotator-2": {}}
    with Store.open(study_dir) as store:
        subset = store.subset(SUBSET)
        interface = task_types.get(subset.task_type)
        golds = gold(store, SUBSET)
        instances = store.instances(SUBSET)
        for inst in instances:
            kw = interface.ls_translation_kwargs(subset.config, inst.content)
            # A answers gold; B flips every third pair (those pairs get one Yes and one No)
            answers = {1: golds[inst.hume_id], 2: golds[inst.hume_id]}
            if inst.sample_order % 3 == 0:
                answers[2] = 1 - answers[2]
            for slot, answer in answers.items():
                task = store.slot_tasks(SUBSET, slot)[inst.hume_id]
                clients[slot].create_annotation(
                    task, interface.ls_answer_to_result(answer, **kw), lead_time=7.0
                )
                submitted[f"annotator-{slot}"][inst.hume_id] = answer
        positions = {i.hume_id: i.source_position for i in instances}
        predictions = {p.hume_id: p for p in store.predictions(SUBSET)}
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
        "positions": positions,
        "predictions": predictions,
        "encoder": encoder,
        "model_version": encoder.model_version,
    }
    mp.undo()


def exported(study: dict[str, Any]) -> dict[str, Any]:
    data = json.loads((study["out"] / "scores.json").read_text())
    return next(s for s in data["subsets"] if s["subset"] == SUBSET)


def test_the_spec_samples_a_balanced_blind_subset(study) -> None:
    golds = study["gold"]
    assert len(golds) == N_PAIRS and sum(golds.values()) == N_PAIRS // 2
    with Store.open(study["dir"]) as store:
        subset = store.subset(SUBSET)
        assert (subset.task_type,) == ("pair_classification",)
        assert subset.config["label_set"] == list(SICK_LABEL_SET)
        projects = store.slot_projects(SUBSET)
        assert len(projects) == 2
        client = study["a"].server.client()
        p1 = next(p for p in projects if p.slot == 1)
        project = client.get_project(p1.ls_project_id)
        assert "Choose Yes or No" in project["label_config"]
        # annotators see both texts and the reference, never the label
        for task in client.list_tasks(p1.ls_project_id):
            assert set(task["data"]) == {"hume_ref", "hume_position", "sentence1", "sentence2"}


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    with Store.open(study["dir"]) as store:
        rows = store.annotations(SUBSET)
    valid = {}
    for r in rows:
        assert r.status == "valid", r.error
        valid.setdefault(r.annotator, {})[r.hume_id] = r.answer
    assert valid == study["submitted"]


def test_human_score_is_the_vote_share_ap_by_hand(study) -> None:
    s = exported(study)
    golds, submitted = study["gold"], study["submitted"]
    items = sorted(golds)
    votes = [[submitted[who][i] for who in sorted(submitted)] for i in items]
    shares = [sum(v) / len(v) for v in votes]
    labels = [golds[i] for i in items]
    by_hand = average_precision(labels, shares)
    assert s["human"]["method"] == "human:vote_share+ap:sklearn"
    assert s["human"]["value"] == pytest.approx(by_hand, abs=1e-12)
    # the majority vote, a tie (one Yes, one No) counted as No
    majority = [int(sum(v) * 2 > len(v)) for v in votes]
    accuracy = sum(m == g for m, g in zip(majority, labels, strict=True)) / len(items)
    assert s["human"]["details"]["accuracy"] == pytest.approx(accuracy, abs=1e-12)
    # annotator-1 answered gold on every pair: a perfect ranking
    assert s["human"]["per_rater"]["annotator-1"] == 1.0
    assert s["interval"]["low"] <= s["human"]["value"] <= s["interval"]["high"]
    assert s["agreement"][0]["method"] == "fleiss_kappa"
    assert len(s["disagreements"]) == sum(1 for v in votes if len(set(v)) > 1)
    print(f"\n[pair e2e] human AP {s['human']['value']!r} (by hand {by_hand!r}), "
          f"majority-vote accuracy {accuracy!r}")  # fmt: skip


def test_model_score_is_mteb_s_on_the_same_pairs(study, tmp_path: Path) -> None:
    s = exported(study)
    golds, positions = study["gold"], study["positions"]
    with Store.open(study["dir"]) as store:
        contents = {i.hume_id: i.content for i in store.instances(SUBSET)}
    items = sorted(golds, key=lambda h: positions[h])  # the order models see: the source's
    pairs = [contents[h] for h in items]
    theirs, _ = run_mteb_pairs(mteb_fake_encoder(), pairs, [golds[h] for h in items], tmp_path)
    ours = s["models"][study["model_version"]]
    assert ours == theirs["main_score"]
    # the stored answers are the 1/0 decisions at mteb's cosine threshold: their accuracy is
    # mteb's cosine_accuracy
    preds = study["predictions"]
    hits = sum(int(preds[h].answer == golds[h]) for h in items)
    assert hits / len(items) == theirs["cosine_accuracy"]
    print(f"\n[pair e2e] model max_ap {ours!r}, mteb {theirs['main_score']!r}")


def test_reveal_shows_the_models_decisions_in_label_studio(study) -> None:
    client = study["a"].server.client()
    with Store.open(study["dir"]) as store:
        refs = {i.hume_ref: i.hume_id for i in store.instances(SUBSET)}
        project = next(p for p in store.slot_projects(SUBSET) if p.slot == 1)
    preds = study["predictions"]
    shown = 0
    for task in client.list_tasks(project.ls_project_id):
        hume_id = refs[task["data"]["hume_ref"]]
        mine = [p for p in task["predictions"] if p["model_version"] == study["model_version"]]
        assert len(mine) == 1
        [result] = mine[0]["result"]
        assert result["value"]["choices"] == [str(preds[hume_id].answer)]
        shown += 1
    assert shown == N_PAIRS


def test_the_report_names_the_type_and_its_methods(study) -> None:
    md = (study["out"] / "report.md").read_text()
    assert SUBSET in md and "pair_classification: annotators' vote share per pair" in md
    [human_file] = [
        p
        for p in (study["out"] / "mteb_results").rglob("SICK-E.json")
        if p.parent.name == "pairs-e2e"
    ]
    block = json.loads(human_file.read_text())["scores"]["test"][0]
    assert block["main_score"] == exported(study)["human"]["value"] and "max_ap" in block
