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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hume_sync.store import Store
from hume_sync.task_types.pair_classification.study import SICK_COLUMNS, SICK_LABEL_SET
from label_studio_configs.pair_classification import ENTAILMENT_INSTRUCTIONS
from tests.hume_sync.task_types.test_pair_classification_model import (
    BagOfWordsEncoder,
    mteb_fake_encoder,
    run_mteb_pairs,
)
from tests.integration import _type_e2e as e2e
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


def choose(subset: Any, inst: Any, right: int) -> dict[int, int]:
    """A answers gold; B flips every third pair (those pairs get one Yes and one No)."""
    return {1: right, 2: 1 - right if inst.sample_order % 3 == 0 else right}


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Iterator[e2e.TypeStudy]:
    """Initialised, predicted (bag-of-words vectors), set up, answered by both annotators,
    pulled, closed, revealed and exported once; the tests read what each step left."""
    pytest.importorskip("mteb")
    with e2e.set_up(annotator_servers, tmp_path_factory, spec(), encoder=BagOfWordsEncoder()) as s:
        e2e.answer(s, [SUBSET], choose, lead_time=7.0)
        e2e.close_and_export(s)
        yield s


def test_the_spec_samples_a_balanced_blind_subset(study) -> None:
    golds = study.gold(SUBSET)
    assert len(golds) == N_PAIRS and sum(golds.values()) == N_PAIRS // 2
    with Store.open(study.dir) as store:
        subset = store.subset(SUBSET)
        assert (subset.task_type,) == ("pair_classification",)
        assert subset.config["label_set"] == list(SICK_LABEL_SET)
        assert len(store.slot_projects(SUBSET)) == 2
    config, tasks = study.shown(SUBSET)
    assert "Choose Yes or No" in config
    # annotators see both texts and the reference, never the label
    assert len(tasks) == N_PAIRS
    for task in tasks:
        assert set(task["data"]) == {"hume_ref", "hume_position", "sentence1", "sentence2"}


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    assert study.pulled(SUBSET) == study.submitted[SUBSET]


def test_human_score_is_the_vote_share_ap_by_hand(study) -> None:
    s = study.exported(SUBSET)
    golds, submitted = study.gold(SUBSET), study.submitted[SUBSET]
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
    s = study.exported(SUBSET)
    golds = study.gold(SUBSET)
    instances = {i.hume_id: i for i in study.instances_by_ref(SUBSET).values()}
    # the order models see: the source's
    items = sorted(golds, key=lambda h: instances[h].source_position)
    pairs = [instances[h].content for h in items]
    theirs, _ = run_mteb_pairs(mteb_fake_encoder(), pairs, [golds[h] for h in items], tmp_path)
    ours = s["models"][study.model_version]
    assert ours == theirs["main_score"]
    # the stored answers are the 1/0 decisions at mteb's cosine threshold: their accuracy is
    # mteb's cosine_accuracy
    preds = study.predictions(SUBSET)
    hits = sum(int(preds[h].answer == golds[h]) for h in items)
    assert hits / len(items) == theirs["cosine_accuracy"]
    print(f"\n[pair e2e] model max_ap {ours!r}, mteb {theirs['main_score']!r}")


def test_reveal_shows_the_models_decisions_in_label_studio(study) -> None:
    preds = study.predictions(SUBSET)
    shown = 0
    for inst, mine in study.revealed(SUBSET):
        assert len(mine) == 1
        [result] = mine[0]["result"]
        assert result["value"]["choices"] == [str(preds[inst.hume_id].answer)]
        shown += 1
    assert shown == N_PAIRS


def test_the_report_names_the_type_and_its_methods(study) -> None:
    md = study.report_md()
    assert SUBSET in md and "pair_classification: annotators' vote share per pair" in md
    [human_file] = [
        p for p in (study.out / "mteb_results").rglob("SICK-E.json") if p.parent.name == "pairs-e2e"
    ]
    block = json.loads(human_file.read_text())["scores"]["test"][0]
    assert block["main_score"] == study.exported(SUBSET)["human"]["value"] and "max_ap" in block
