"""The human panel of a three-annotator study on real data (tests/data/source), end to end
through the store and ``export`` (issue 21): every subset's panel is ordered (worst ≤ mean ≤
best annotator), its best annotator is the one with the highest own score, and no entry is NaN
or a zero-width interval."""

from __future__ import annotations

import json
import math
from pathlib import Path

from hume_sync.cli import main
from hume_sync.store import AnnotationRecord, Store, gold
from tests._studies import real_data_spec, write_spec
from tests.task_type_examples import examples


def _fill(study: Path) -> None:
    """Annotators a and b as scripted for every type; c right except on every third item."""
    with Store.open(study) as store:
        keys = {
            w: store.add_annotator(f"{w}@example.org", ["eng", "arb"], f"http://h{i}", None).key
            for i, w in enumerate("abc")
        }
        n = 1
        for sub in store.subsets():
            ex, golds = examples(sub.task_type), gold(store, sub.key)
            labels = sub.config.get("label_set") or []
            records = []
            for k, inst in enumerate(store.instances(sub.key)):
                g = golds[inst.hume_id]
                for w in "abc":
                    if w == "c":
                        right = ex.perfect_answer(g)
                        ans = ex.other_answer(right, labels) if k % 3 == 1 else right
                    else:
                        ans = ex.scripted_answer(g, k, w, labels)
                    records.append(AnnotationRecord(n, inst.hume_id, 1000 + n, keys[w], ans))
                    n += 1
            store.upsert_annotations(records, subset=sub.key)


def test_three_annotator_panel(tmp_path: Path) -> None:
    study = tmp_path / "study"
    spec = real_data_spec("panel3", 5, cls_eng=12, cls_arb=8, sts=12, rerank=4)
    assert main(["init", str(study), "--spec", str(write_spec(study, spec))]) == 0
    _fill(study)
    assert main(["export", str(study), "--out", str(tmp_path / "out")]) == 0
    data = json.loads((tmp_path / "out" / "scores.json").read_text())
    assert data["subsets"]
    for s in data["subsets"]:
        p = s["human_panel"]
        own = {r: e["value"] for r, e in p["annotators"].items()}
        assert len(own) == 3
        best, worst = p["best_annotator"], p["worst_annotator"]
        assert best["value"] == max(own.values()) and own[best["annotator"]] == best["value"]
        assert worst["value"] == min(own.values())
        assert worst["value"] <= p["mean_annotator"]["value"] <= best["value"]
        assert math.isclose(p["mean_annotator"]["value"], sum(own.values()) / 3)
        ceiling = p["noise_ceiling"]
        assert (ceiling["value"] is None) == (s["task_type"] == "clustering"), ceiling
        for e in [best, worst, p["mean_annotator"], p["dawid_skene"], ceiling]:
            iv = e.get("interval")
            assert (iv and iv["high"] - iv["low"] > 1e-9) or e["note"], e
        text = json.dumps(p)
        assert "NaN" not in text and "Infinity" not in text
