"""Which human (scoring.panel): hand-checked small cases and degenerate inputs (issue 21)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from hume_sync import task_types
from scoring import panel
from scoring.subset_report import SubsetInput, evaluate_subset
from tests.task_type_examples import examples

CLS = task_types.get("classification")


def _walk(x: Any) -> list[Any]:
    if isinstance(x, dict):
        return [v for val in x.values() for v in _walk(val)]
    if isinstance(x, list):
        return [v for val in x for v in _walk(val)]
    return [x]


def _sound(p: dict) -> None:
    """No NaN anywhere, and every interval present has width."""
    assert not any(isinstance(v, float) and not math.isfinite(v) for v in _walk(p))
    for e in p.values():
        if isinstance(e, dict) and e.get("interval"):
            assert e["interval"]["high"] - e["interval"]["low"] > 1e-9
        if isinstance(e, dict) and "value" in e and not e.get("interval"):
            assert e["note"], e


def test_three_annotators_hand_checked() -> None:
    """x is right on all 12 items, y and z on 10 each: mean 8/9, best x, worst z (the tie of
    y and z goes to the name later in order)."""
    ex = examples("classification").SCORING
    p = panel.human_panel(CLS, ex["gold"], ex["humans"], None, None, "none", seed=1)
    assert p["annotators"]["x"]["value"] == pytest.approx(1.0)
    assert p["annotators"]["y"]["value"] == pytest.approx(10 / 12)
    assert p["mean_annotator"]["value"] == pytest.approx(8 / 9)
    assert p["best_annotator"]["annotator"] == "x"
    assert p["worst_annotator"]["annotator"] == "z"
    iv = p["mean_annotator"]["interval"]
    assert iv["low"] < 8 / 9 < iv["high"]
    # A perfect annotator: every resample gives 1.0, so no (zero-width) interval.
    assert p["best_annotator"]["interval"] is None and "same score" in p["best_annotator"]["note"]
    _sound(p)


def test_dawid_skene_follows_unanimous_annotators() -> None:
    """All three give a, a, b, b, b where gold is a, a, b, b, a: Dawid–Skene can only return
    the unanimous labels, so its accuracy is 4/5."""
    gold = {f"i{k}": g for k, g in enumerate("aabba")}
    answers = {f"i{k}": g for k, g in enumerate("aabbb")}
    p = panel.dawid_skene(CLS, gold, {r: answers for r in "xyz"}, seed=0)
    assert p["value"] == pytest.approx(4 / 5)
    assert "Dawid–Skene" in p["method"]


def test_degenerate_inputs_are_not_estimable_with_the_reason() -> None:
    gold = {f"i{k}": g for k, g in enumerate("aabba")}
    one = panel.human_panel(CLS, gold, {"x": dict(gold)}, None, None, "none", seed=0)
    assert "one annotator" in one["mean_annotator"]["note"]
    assert "one annotator" in one["dawid_skene"]["note"]
    _sound(one)
    same = {r: {i: "a" for i in gold} for r in "xy"}
    p = panel.human_panel(CLS, gold, same, None, None, "none", seed=0)
    assert "one label only" in p["dawid_skene"]["note"]
    _sound(p)
    two = {i: gold[i] for i in ("i0", "i2")}
    p = panel.human_panel(CLS, two, {"x": two, "y": two}, None, None, "none", seed=0)
    assert "fewer than 3 items" in p["annotators"]["x"]["note"]
    _sound(p)
    # Clustering: one set, nothing to resample, answers are not labels.
    ex = examples("clustering").SCORING
    t = task_types.get("clustering")
    p = panel.human_panel(t, ex["gold"], ex["humans"], None, None, "none", seed=0)
    assert p["dawid_skene"]["note"].startswith("not applicable")
    assert "per-item" in p["mean_annotator"]["note"]
    _sound(p)


def _study(model: dict) -> Any:
    """30 items; x errs on 6 (the best), y on 12; the model answers ``model``."""
    gold = {f"i{k}": "ab"[k % 2] for k in range(30)}
    flip = {"a": "b", "b": "a"}
    x = {i: (flip[g] if k < 6 else g) for k, (i, g) in enumerate(gold.items())}
    y = {i: (flip[g] if k >= 18 else g) for k, (i, g) in enumerate(gold.items())}
    return evaluate_subset(
        SubsetInput(
            key="T/en",
            task_name="T",
            hf_subset="en",
            task_type=CLS,
            language="en",
            gold=gold,
            humans={"x": x, "y": y},
            models={"m": 0.0},
            model_answers={"m": model(gold)},
        )
    )


def test_above_humans_only_against_the_best_annotator_and_named() -> None:
    rep = _study(dict)  # a perfect model: 30/30 against x's 24/30
    v = rep.vs_best["m"]
    assert v["human"] == "best annotator x"
    assert v["difference"] == pytest.approx(24 / 30 - 1)
    assert v["high"] < 0 and v["verdict"] == "above humans: above the best annotator (x)"
    flip = {"a": "b", "b": "a"}
    rep = _study(lambda g: {i: flip[v] for i, v in g.items()})  # always wrong
    assert rep.vs_best["m"]["verdict"] == "below the best annotator (x)"


def test_noise_ceiling_hand_checked() -> None:
    """Classification example, each against the majority of the other two (a tie to the
    alphabetically first label). x vs (y, z): the consensus is b at i5 (c/b), b at i10, a at
    i11 (a/c), so x misses i5 and i11: 10/12. y vs (x, z): misses i1, i5, i11: 9/12. z vs
    (x, y): misses i5, i10, i11: 9/12. Ceiling (10 + 9 + 9) / 36 = 7/9."""
    h = examples("classification").SCORING["humans"]
    c = panel.noise_ceiling(CLS, h)
    assert c["per_annotator"] == pytest.approx({"x": 10 / 12, "y": 9 / 12, "z": 9 / 12})
    assert c["value"] == pytest.approx(7 / 9)
    assert "spearman_brown" not in c
    assert "one annotator" in panel.noise_ceiling(CLS, {"x": h["x"]})["note"]


def test_noise_ceiling_spearman_brown_for_sts() -> None:
    """Two annotators on 4 pairs: each against the other alone; x = (1, 2, 3, 4), y = (1, 2, 4,
    3) have Spearman ρ = 1 − 6·2 / (4·15) = 0.8 both ways, so the ceiling is 0.8 and the
    Spearman–Brown step-up to k = 2 is 2·0.8 / 1.8 = 8/9."""
    t = task_types.get("sts")
    x = {f"p{k}": v for k, v in enumerate([1, 2, 3, 4])}
    y = {f"p{k}": v for k, v in enumerate([1, 2, 4, 3])}
    c = panel.noise_ceiling(t, {"x": x, "y": y})
    assert c["value"] == pytest.approx(0.8)
    assert c["spearman_brown"] == pytest.approx(8 / 9)
    clu = task_types.get("clustering")
    ex = examples("clustering").SCORING
    assert "no consensus" in panel.noise_ceiling(clu, ex["humans"])["note"]


def test_too_few_items_shared_with_the_best_annotator_is_not_estimable() -> None:
    """The best annotator answered 2 items only: no paired verdict, and the entry says why."""
    gold = {f"i{k}": "ab"[k % 2] for k in range(6)}
    x = {i: gold[i] for i in ("i0", "i1")}  # right on both: the best
    y = {i: ("b" if g == "a" else "a") for i, g in gold.items()}  # always wrong
    rep = evaluate_subset(
        SubsetInput(
            key="T/en",
            task_name="T",
            hf_subset="en",
            task_type=CLS,
            language="en",
            gold=gold,
            humans={"x": x, "y": y},
            models={"m": 1.0},
            model_answers={"m": dict(gold)},
        )
    )
    v = rep.vs_best["m"]
    assert v["position"] == "not estimable" and "fewer than 3 items shared with x" in v["why"]
