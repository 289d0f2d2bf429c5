"""Multilabel classification end to end in real Label Studio servers.

The SIB-200 passages (``tests/data/multilabel``: two sentences, their topics' union) go through
every step a user runs: ``init`` from a spec with ``type: multilabel_classification`` and a
train pool, ``predict`` (the suite's fake encoder, through the type's kNN procedure),
``annotators add`` (two English readers) and ``setup``, both annotators answering through the
SDK in the interface's own result format (the ticked labels), ``pull``, ``close``, ``reveal``
and ``export``. The report's human score must be the exact-match accuracy of the per-label
majority, worked out here with scikit-learn from the submitted answers, and the report must show
the type's rows (its methods, α with the MASI distance, the paired verdict of the model). The
screens, English and Arabic at 1366 px, are the shared screen test's
(``test_annotator_screens.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.store import Store, gold
from hume_sync.workflow.predict import predict_study
from tests._annotate import hume_env, register
from tests._fake_encoder import FakeEncoder
from tests._paths import REPO_ROOT
from tests._studies import write_spec

pytestmark = pytest.mark.labelstudio

DATA = REPO_ROOT / "tests" / "data" / "multilabel" / "sib200" / "eng_Latn"
KEY = "SIB200Multilabel/eng"
N_ITEMS = 9


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """Set up, answered by both annotators through the SDK, pulled, closed, revealed, exported."""
    root = tmp_path_factory.mktemp("multilabel")
    mp = hume_env(root)
    spec = {
        "name": "multilabel-e2e",
        "seed": 5,
        "tasks": [
            {
                "name": "SIB200Multilabel",
                "type": "multilabel_classification",
                "source": {
                    "path": str(DATA / "test.jsonl"),
                    "train_path": str(DATA / "train.jsonl"),
                },
                "subsets": [
                    {"name": "eng", "language": "eng-Latn", "size": N_ITEMS, "annotators": 2}
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
    submitted: dict[str, dict[str, list[str]]] = {"annotator-1": {}, "annotator-2": {}}
    with Store.open(study_dir) as store:
        subset = store.subset(KEY)
        interface = task_types.get(subset.task_type)
        labels = subset.config["label_set"]
        golds = gold(store, KEY)
        for inst in store.instances(KEY):
            kw = interface.ls_translation_kwargs(subset.config, inst.content)
            right = sorted(golds[inst.hume_id])
            # A ticks gold; B ticks one more label on every third passage
            extra = next(lab for lab in labels if lab not in right)
            chosen = {1: right, 2: sorted([*right, extra]) if inst.sample_order % 3 == 0 else right}
            for slot, answer in chosen.items():
                task = store.slot_tasks(KEY, slot)[inst.hume_id]
                clients[slot].create_annotation(
                    task, interface.ls_answer_to_result(answer, **kw), lead_time=7.0
                )
                submitted[f"annotator-{slot}"][inst.hume_id] = answer
        predictions = {p.hume_id: p for p in store.predictions(KEY)}
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
        "model_version": encoder.model_version,
    }
    mp.undo()


def exported(study: dict[str, Any]) -> dict[str, Any]:
    data = json.loads((study["out"] / "scores.json").read_text())
    return next(s for s in data["subsets"] if s["subset"] == KEY)


def test_annotators_see_the_text_and_never_gold(study) -> None:
    client = study["a"].server.client()
    with Store.open(study["dir"]) as store:
        project = next(p for p in store.slot_projects(KEY) if p.slot == 1)
        texts = {i.hume_ref: i.content["text"] for i in store.instances(KEY)}
    config = client.get_project(project.ls_project_id)["label_config"]
    assert 'choice="multiple"' in config and "None of these labels applies" not in config
    tasks = client.list_tasks(project.ls_project_id)
    assert len(tasks) == N_ITEMS
    for task in tasks:
        data = task["data"]
        assert set(data) == {"hume_ref", "hume_position", "text"}
        assert data["text"] == texts[data["hume_ref"]]


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    with Store.open(study["dir"]) as store:
        rows = store.annotations(KEY)
    valid: dict[str, dict[str, list[str]]] = {}
    for r in rows:
        assert r.status == "valid", r.error
        valid.setdefault(r.annotator, {})[r.hume_id] = r.answer
    assert valid == study["submitted"]


def test_the_human_score_is_exact_match_of_the_per_label_vote(study) -> None:
    from sklearn.metrics import accuracy_score, f1_score
    from sklearn.preprocessing import MultiLabelBinarizer

    s = exported(study)
    golds, submitted = study["gold"], study["submitted"]
    items = sorted(golds)
    # two annotators: a label is in the vote when both ticked it (one of two is a tie, left out)
    votes = [
        sorted(set(submitted["annotator-1"][i]) & set(submitted["annotator-2"][i])) for i in items
    ]
    mlb = MultiLabelBinarizer().fit([golds[i] for i in items] + votes)
    y_true, y_pred = mlb.transform([golds[i] for i in items]), mlb.transform(votes)
    assert s["human"]["method"] == "human:per_label_majority(ties_out)+exact_match_accuracy"
    assert s["human"]["value"] == pytest.approx(accuracy_score(y_true, y_pred), abs=1e-12)
    assert s["human"]["value"] == 1.0  # B's extra labels are ties, left out
    alone = [set(submitted["annotator-2"][i]) == set(golds[i]) for i in items]
    assert s["human"]["per_rater"]["annotator-2"] == pytest.approx(sum(alone) / len(alone))
    assert s["human"]["per_rater"]["annotator-2"] < 1.0
    assert f1_score(y_true, y_pred, average="macro") == 1.0
    assert s["agreement"][0]["method"] == "krippendorff_alpha:masi"
    assert 0.0 < s["agreement"][0]["value"] < 1.0
    assert len(s["disagreements"]) == sum(
        submitted["annotator-1"][i] != submitted["annotator-2"][i] for i in items
    )


def test_the_report_shows_the_type_s_rows(study) -> None:
    s = exported(study)
    assert s["models"][study["model_version"]] is not None
    paired = s["paired"][study["model_version"]]
    compared = "exact-match accuracy of the model's per-label majority over mteb's 10 runs"
    assert paired["rater_metric"] == compared
    assert paired["position"] in {"above", "below", "inside"}
    md = (study["out"] / "report.md").read_text()
    assert KEY in md and "per-label majority vote" in md and "MASI" in md
    assert compared in md


def test_reveal_shows_the_model_s_labels(study) -> None:
    client = study["a"].server.client()
    with Store.open(study["dir"]) as store:
        refs = {i.hume_ref: i for i in store.instances(KEY)}
        project = next(p for p in store.slot_projects(KEY) if p.slot == 1)
    for task in client.list_tasks(project.ls_project_id):
        inst = refs[task["data"]["hume_ref"]]
        mine = [p for p in task["predictions"] if p["model_version"] == study["model_version"]]
        stored = study["predictions"][inst.hume_id].answer
        if stored:
            assert [p["result"][0]["value"]["choices"] for p in mine] == [sorted(stored)]
        else:  # no label predicted: not shown where the subset offers no "none applies"
            assert mine == []
