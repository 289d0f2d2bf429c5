"""Issue 13, "statistics that mislead": small cases checked by hand.

One-annotator and other degenerate intervals, ties under majority vote, the paired comparison
of humans with a rater, and the difficulty column.
"""

from __future__ import annotations

import numpy as np
import pytest

from hume_sync import task_types
from scoring import intervals
from scoring.subset_report import BOOTSTRAP_RESAMPLES, SubsetInput, evaluate_subset


def _input(type_name: str, gold: dict, humans: dict, **kw) -> SubsetInput:
    return SubsetInput(
        key=f"T/{type_name}",
        task_name="T",
        hf_subset="default",
        task_type=task_types.get(type_name),
        language="eng-Latn",
        gold=gold,
        humans=humans,
        seed=7,
        **kw,
    )


# ------------------------------------------------------------------------------------------
# 1. Intervals that exist with one annotator; "not estimable" where none does


def _rerank_one_annotator() -> SubsetInput:
    # Six queries, gold c1 relevant. The annotator marks only c1 on q0-q3 (AP 1) and both
    # candidates on q4-q5 (a tie at the top: scikit-learn AP 1/2). MAP = (4 + 1) / 6 = 5/6.
    gold = {f"q{k}": {"c1": 1, "c2": 0} for k in range(6)}
    marks = {f"q{k}": {"c1": 1, "c2": int(k >= 4)} for k in range(6)}
    return _input("reranking", gold, {"solo": marks}, models={"m": 0.6, "n": 0.4})


def test_one_annotator_reranking_gets_a_bootstrap_over_queries() -> None:
    rep = evaluate_subset(_rerank_one_annotator())
    assert rep.human.value == pytest.approx(5 / 6)
    # HUME's range across one annotator has zero width: it is kept for the record only.
    assert rep.hume_interval.method == "annotator_range"
    assert rep.hume_interval.low == rep.hume_interval.high == pytest.approx(5 / 6)
    # The interval used is the seeded BCa bootstrap over the six queries' APs, the same as a
    # direct bootstrap of the per-query APs [1, 1, 1, 1, .5, .5].
    direct = intervals.bootstrap(
        np.array([1, 1, 1, 1, 0.5, 0.5]),
        np.mean,
        n_resamples=BOOTSTRAP_RESAMPLES,
        seed=7,
    )
    assert rep.interval.method == "bootstrap:bca"
    assert (rep.interval.low, rep.interval.high) == pytest.approx((direct.low, direct.high))
    # A resample mean lies between 1/2 (all six draws AP 1/2) and 1, with width > 0.
    assert 0.5 <= rep.interval.low < 5 / 6 < rep.interval.high <= 1.0
    assert rep.interval_note == "over items: annotator_range has zero width (one annotator)"
    # A model is no longer "below" just because the interval had no width.
    assert rep.model_positions["m"] == ("inside" if rep.interval.low <= 0.6 else "below")
    assert rep.model_positions["n"] == "below"  # 0.4 < 1/2 ≤ any resample
    assert rep.planning["interval_method"] == "bootstrap:bca"
    assert rep.planning["n_items_for_target"] >= 6


def test_one_annotator_clustering_is_not_estimable() -> None:
    gold = {"set": {f"t{k}": lab for k, lab in enumerate("aaabbb")}}
    one = {"solo": {"set": {f"t{k}": g for k, g in enumerate("111222")}}}
    rep = evaluate_subset(_input("clustering", gold, one, models={"m": 0.5}))
    assert rep.human.value == pytest.approx(1.0)  # a perfect partition: V-measure 1
    assert rep.interval is None and rep.bootstrap is None
    assert rep.interval_note.startswith("not estimable: annotator_range has zero width")
    assert "no items to resample" in rep.interval_note
    assert rep.model_positions == {"m": "not estimable"}
    assert rep.planning["n_items_for_target"] is None
    assert rep.planning["method"].startswith("not estimable")
    assert rep.to_dict()["interval"] is None


def test_sts_rho_one_is_not_estimable_and_claims_no_fewer_items() -> None:
    # Ratings in gold's order: Spearman 1. Fisher z at ρ = 1 is [1, 1]; every bootstrap
    # resample with two distinct pairs has ρ = 1 too (constant ones are dropped).
    gold = {f"p{k}": g for k, g in enumerate([0.5, 1.0, 2.0, 3.0, 4.0, 4.5])}
    ratings = {"a": {f"p{k}": r for k, r in enumerate([0, 1, 2, 3, 4, 5])}}
    rep = evaluate_subset(_input("sts", gold, ratings, models={"m": 0.9}))
    assert rep.human.value == pytest.approx(1.0)
    assert (rep.hume_interval.low, rep.hume_interval.high) == (1.0, 1.0)
    assert rep.interval is None
    assert "fisher_z has zero width" in rep.interval_note
    assert "every bootstrap resample gives the same score" in rep.interval_note
    # Before: "items for ±0.05: 4", fewer than the 6 already annotated.
    assert rep.planning["n_items"] == 6
    assert rep.planning["n_items_for_target"] is None
    assert rep.model_positions == {"m": "not estimable"}


def test_two_annotators_keep_hume_interval() -> None:
    gold = {f"q{k}": {"c1": 1, "c2": 0} for k in range(4)}
    a = {f"q{k}": {"c1": 1, "c2": 0} for k in range(4)}
    b = {f"q{k}": {"c1": 1, "c2": int(k == 0)} for k in range(4)}
    rep = evaluate_subset(_input("reranking", gold, {"a": a, "b": b}))
    # a: MAP 1; b: (0.5 + 3) / 4 = 0.875. HUME's range [0.875, 1] is kept.
    assert rep.interval.method == "annotator_range"
    assert (rep.interval.low, rep.interval.high) == pytest.approx((0.875, 1.0))
    assert rep.interval_note is None


# ------------------------------------------------------------------------------------------
# 2. Ties of the majority vote


def test_two_annotator_ties_are_counted_and_scored_under_other_rules() -> None:
    gold = {"i0": "a", "i1": "a", "i2": "b", "i3": "b"}
    humans = {
        "x": {"i0": "a", "i1": "a", "i2": "b", "i3": "c"},  # 3/4
        "y": {"i0": "a", "i1": "b", "i2": "c", "i3": "b"},  # 2/4
    }
    rep = evaluate_subset(_input("classification", gold, humans))
    # i1, i2, i3 are ties and each goes to the alphabetically first label, which is gold:
    # the vote scores 4/4, above both annotators.
    assert rep.human.value == pytest.approx(1.0)
    assert rep.ties["n_tied_items"] == 3
    scores = rep.ties["scores"]
    assert scores["alphabetical"] == pytest.approx(1.0)
    # Random tie-break, exactly: i0 right, i1-i3 right with chance 1/2: (1 + 3/2) / 4.
    assert scores["random_expected"] == pytest.approx(0.625)
    # With two annotators that is the mean of their accuracies, (3/4 + 2/4) / 2.
    assert scores["random_expected"] == pytest.approx(np.mean(list(rep.human.per_rater.values())))
    assert scores["tie_to_gold"] == pytest.approx(1.0)
    assert scores["tie_away_from_gold"] == pytest.approx(0.25)
    assert scores["untied_items_only"] == pytest.approx(1.0)
    assert rep.above_every_annotator is True
    assert any("above every annotator" in w and "0.625" in w for w in rep.warnings)


def test_three_labels_tied_count_one_third() -> None:
    gold = {"i0": "c", "i1": "a"}
    humans = {"x": {"i0": "a", "i1": "a"}, "y": {"i0": "b", "i1": "a"}, "z": {"i0": "c"}}
    rep = evaluate_subset(_input("classification", gold, humans))
    # i0: a/b/c tied, gold c among three: 1/3; i1: a by 2 votes, right. (1/3 + 1) / 2.
    assert rep.ties["n_tied_items"] == 1
    assert rep.ties["scores"]["random_expected"] == pytest.approx(2 / 3)
    assert rep.ties["scores"]["alphabetical"] == pytest.approx(0.5)  # i0 goes to a
    assert rep.above_every_annotator is False  # z is right on its one item: 1.0


def test_one_annotator_is_never_flagged_and_sts_has_no_ties() -> None:
    rep = evaluate_subset(_rerank_one_annotator())
    assert rep.ties is None and rep.above_every_annotator is False


# ------------------------------------------------------------------------------------------
# 3. Paired comparison of humans with a rater over the same items


def test_paired_bootstrap_matches_a_direct_computation() -> None:
    gold = {f"i{k}": lab for k, lab in enumerate("abababab")}
    human = {f"i{k}": lab for k, lab in enumerate("abababaa")}  # 7/8 right
    llm = {f"i{k}": lab for k, lab in enumerate("aaaaaaab")}  # i0 i2 i4 i6 right, i7 too: 5/8
    rep = evaluate_subset(_input("classification", gold, {"h": human}, llms={"llm:x": llm}))
    cmp = rep.paired["llm:x"]
    assert cmp["n_items"] == 8
    assert cmp["human_on_items"] == pytest.approx(7 / 8)
    assert cmp["rater_on_items"] == pytest.approx(5 / 8)
    assert cmp["difference"] == pytest.approx(0.25)
    # Direct: the per-item hit differences, resampled with one seeded draw for both sides.
    h = np.array([1, 1, 1, 1, 1, 1, 1, 0], dtype=float)
    m = np.array([1, 0, 1, 0, 1, 0, 1, 1], dtype=float)
    idx = np.random.default_rng(7).integers(0, 8, (BOOTSTRAP_RESAMPLES, 8))
    diffs = h[idx].mean(axis=1) - m[idx].mean(axis=1)
    low, high = np.quantile(diffs, [0.025, 0.975])
    assert (cmp["low"], cmp["high"]) == pytest.approx((low, high))
    assert cmp["method"] == "paired_bootstrap:percentile"
    assert rep.model_positions["llm:x"] == ("below" if low > 0 else "inside")
    # Deterministic: the same seed gives the same interval.
    again = evaluate_subset(_input("classification", gold, {"h": human}, llms={"llm:x": llm}))
    assert again.paired["llm:x"] == cmp


def test_paired_is_on_common_items_and_models_with_answers() -> None:
    gold = {f"p{k}": float(k) for k in range(6)}
    humans = {"a": {f"p{k}": r for k, r in enumerate([0, 1, 2, 3, 5, 4])}}
    model = {f"p{k}": r for k, r in enumerate([0, 1, 2, 3, 4, 5])}
    inp = _input("sts", gold, humans, models={"m": 0.9}, model_answers={"m": model})
    cmp = evaluate_subset(inp).paired["m"]
    # Human Spearman over 6 pairs with one adjacent swap: 1 − 6·2 / (6·35) = 0.942857;
    # the model's answers are in gold's order: 1. Difference −0.057143.
    assert cmp["human_on_items"] == pytest.approx(1 - 12 / 210)
    assert cmp["rater_on_items"] == pytest.approx(1.0)
    assert cmp["difference"] == pytest.approx(-12 / 210)
    assert cmp["low"] <= cmp["difference"] <= cmp["high"] <= 0.0


def test_paired_against_the_function_directly() -> None:
    a = np.array([1.0, 0.0, 1.0, 1.0])
    b = np.array([0.0, 0.0, 1.0, 0.0])
    iv = intervals.paired_bootstrap(a, np.mean, b, np.mean, n_resamples=500, seed=1)
    idx = np.random.default_rng(1).integers(0, 4, (500, 4))
    d = a[idx].mean(axis=1) - b[idx].mean(axis=1)
    assert iv.estimate == pytest.approx(0.5)
    assert (iv.low, iv.high) == pytest.approx(tuple(np.quantile(d, [0.025, 0.975])))


# ------------------------------------------------------------------------------------------
# 4. Difficulty: the human score against the best model


def test_difficulty_is_the_gap_to_the_best_model() -> None:
    # Reranking MAP 5/6 = 0.8333 (see above) against models 0.6 and 0.4: ahead by 0.2333.
    rep = evaluate_subset(_rerank_one_annotator())
    d = rep.difficulty
    assert d["best_model"] == "m" and d["best_model_score"] == 0.6
    assert d["human_minus_best"] == pytest.approx(5 / 6 - 0.6)
    assert d["label"] == "humans ahead"
    inp = _rerank_one_annotator()
    inp.models = {"m": 0.86}
    assert evaluate_subset(inp).difficulty["label"] == "close"  # −0.0267
    inp.models = {"m": 0.95}
    assert evaluate_subset(inp).difficulty["label"] == "humans behind"  # −0.1167
    inp.models = {}
    assert evaluate_subset(inp).difficulty is None


def test_report_cells_name_the_new_statistics() -> None:
    from types import SimpleNamespace

    from hume_sync.report import tables
    from hume_sync.report.blocks import Footnoted
    from hume_sync.report.methods import methods

    gold = {"i0": "a", "i1": "a", "i2": "b", "i3": "b"}
    humans = {
        "x": {"i0": "a", "i1": "a", "i2": "b", "i3": "c"},
        "y": {"i0": "a", "i1": "b", "i2": "c", "i3": "b"},
    }
    llm = {"i0": "a", "i1": "b", "i2": "b", "i3": "a"}  # 2/4
    cls = evaluate_subset(_input("classification", gold, humans, llms={"llm:z": llm}))
    one = {"solo": {"set": {f"t{k}": g for k, g in enumerate("111222")}}}
    clu_gold = {"set": {f"t{k}": lab for k, lab in enumerate("aaabbb")}}
    clu = evaluate_subset(_input("clustering", clu_gold, one, models={"m": 0.5}))
    report = SimpleNamespace(
        subsets=[evaluate_subset(_rerank_one_annotator()), cls, clu],
        rate_per_hour=None,
        effort=None,
        effort_note=None,
    )
    rows = tables.subset_table(report).rows
    # The bootstrap stands in for a zero-width range: the cell names it, the footnote says why.
    assert isinstance(rows[0][4], Footnoted)
    assert rows[0][4].text.startswith("[0.") and rows[0][4].text.endswith(" bootstrap:bca")
    assert rows[0][4].note.startswith("over items: annotator_range")
    assert rows[1][9] == "3 tied; 0.625 ⚑ above every annotator"
    assert rows[1][5] == "[1.000, 1.000] zero width: every resample equal"
    # No interval at all: the short mark in the cell, the whole reason in its footnote.
    assert rows[2][4] == Footnoted(
        "n/e",
        "not estimable: annotator_range has zero width (one annotator), and there are no "
        "items to resample",
    )
    # best model, its score, human − best model (signed), the word for the gap
    assert rows[0][11:15] == ["m", "0.600", "+0.233", "humans ahead"]
    models = tables.model_table(report).rows
    by = {(r[0], r[1]): r for r in models}
    assert by[("T/classification", "llm:z")][5].startswith(
        "1.000 − 0.500 = 0.500 [0.000, 1.000] paired_bootstrap:percentile, 4 items"
    )
    assert by[("T/reranking", "m")][4] == "inside (unpaired)"
    assert by[("T/clustering", "m")][4] == "not estimable"
    plan = tables.planning_table(report).rows
    # items for ±0.05 not estimable: no annotator-hours either, and the method says why
    assert plan[2][3] == "–" and plan[2][4] == "–" and plan[2][5].startswith("not estimable")
    topics = dict(methods())
    assert "paired bootstrap" in topics["Significance"]
    assert "random tie-break" in topics["Ties"]
    assert "best embedding model" in topics["Difficulty"]
    assert "not estimable" in topics["Interval (95 %)"]
