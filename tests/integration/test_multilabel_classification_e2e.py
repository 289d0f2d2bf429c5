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

from collections.abc import Iterator
from typing import Any

import pytest

from tests._paths import REPO_ROOT
from tests.integration import _type_e2e as e2e

pytestmark = pytest.mark.labelstudio

DATA = REPO_ROOT / "tests" / "data" / "multilabel" / "sib200" / "eng_Latn"
KEY = "SIB200Multilabel/eng"
N_ITEMS = 9


def choose(subset: Any, inst: Any, right: list[str]) -> dict[int, list[str]]:
    """A ticks gold; B ticks one more label on every third passage."""
    right = sorted(right)
    extra = next(lab for lab in subset.config["label_set"] if lab not in right)
    return {1: right, 2: sorted([*right, extra]) if inst.sample_order % 3 == 0 else right}


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Iterator[e2e.TypeStudy]:
    """Set up, answered by both annotators through the SDK, pulled, closed, revealed, exported."""
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
    with e2e.set_up(annotator_servers, tmp_path_factory, spec) as s:
        e2e.answer(s, [KEY], choose, lead_time=7.0)
        e2e.close_and_export(s)
        yield s


def test_annotators_see_the_text_and_never_gold(study) -> None:
    texts = {ref: i.content["text"] for ref, i in study.instances_by_ref(KEY).items()}
    config, tasks = study.shown(KEY)
    assert 'choice="multiple"' in config and "None of these labels applies" not in config
    assert len(tasks) == N_ITEMS
    for task in tasks:
        data = task["data"]
        assert set(data) == {"hume_ref", "hume_position", "text"}
        assert data["text"] == texts[data["hume_ref"]]


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    assert study.pulled(KEY) == study.submitted[KEY]


def test_the_human_score_is_exact_match_of_the_per_label_vote(study) -> None:
    from sklearn.metrics import accuracy_score, f1_score
    from sklearn.preprocessing import MultiLabelBinarizer

    s = study.exported(KEY)
    golds, submitted = study.gold(KEY), study.submitted[KEY]
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
    s = study.exported(KEY)
    assert s["models"][study.model_version] is not None
    paired = s["paired"][study.model_version]
    compared = "exact-match accuracy of the model's per-label majority over mteb's 10 runs"
    assert paired["rater_metric"] == compared
    assert paired["position"] in {"above", "below", "inside"}
    md = study.report_md()
    assert KEY in md and "per-label majority vote" in md and "MASI" in md
    assert compared in md


def test_reveal_shows_the_model_s_labels(study) -> None:
    predictions = study.predictions(KEY)
    shown = 0
    for inst, mine in study.revealed(KEY):
        stored = predictions[inst.hume_id].answer
        if stored:
            assert [p["result"][0]["value"]["choices"] for p in mine] == [sorted(stored)]
        else:  # no label predicted: not shown where the subset offers no "none applies"
            assert mine == []
        shown += 1
    assert shown == N_ITEMS
