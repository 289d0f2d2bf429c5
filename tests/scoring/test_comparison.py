"""Comparison rules on small hand-built raters, where every expected number is worked out here."""

from __future__ import annotations

from pathlib import Path

import pytest
from scipy.stats import spearmanr

from scoring.comparison import (
    catalogue,
    difficulty,
    human_vs_models,
    rank_raters,
    score_correlation,
    select_subsets,
)
from scoring.errors import InvalidInputError
from scoring.results import Rater, SubsetScore

SUBSETS = [
    ("TaskA", "default", "eng-Latn", "classification"),
    ("TaskB", "en", "eng-Latn", "sts"),
    ("TaskB", "ar", "ara-Arab", "sts"),
    ("TaskB", "fr", "fra-Latn", "sts"),
]


def rater(name: str, kind: str, values: list[float | None]) -> Rater:
    r = Rater(name=name, revision="r1", kind=kind, path=Path("."))  # type: ignore[arg-type]
    for (task, sub, lang, ttype), v in zip(SUBSETS, values, strict=True):
        if v is not None:
            code = lang.split("-")[0]
            r.scores[f"{task}/{code}"] = SubsetScore(task, sub, (lang,), ttype, v)
    return r


@pytest.fixture
def raters():
    return [
        rater("h", "human", [0.8, 0.6, 0.9, 0.0]),
        rater("m1", "model", [0.9, 0.5, 0.7, 1.0]),
        rater("m2", "model", [0.7, 0.6, 0.8, 1.0]),  # same mean as m1 over the 3 non-French
        rater("m3", "model", [0.1, 0.2, 0.3, 1.0]),
        rater("partial", "model", [1.0, None, None, None]),
        rater("ann", "annotator", [0.9, 0.9, 0.9, 0.9]),
    ]


def test_french_excluded_and_languages_selected(raters):
    subs = select_subsets(catalogue(raters))
    assert list(subs) == ["TaskA/eng", "TaskB/ara", "TaskB/eng"]
    assert list(select_subsets(catalogue(raters), languages=["ar"])) == ["TaskB/ara"]
    assert len(select_subsets(catalogue(raters), exclude_languages=())) == 4


def test_competition_ranks_equal_weights_and_unranked_rows(raters):
    rows = {r.rater.name: r for r in rank_raters(raters, select_subsets(catalogue(raters)))}
    assert rows["h"].mean == pytest.approx((0.8 + 0.6 + 0.9) / 3)
    assert rows["h"].rank == 1
    # m1 and m2 tie at 0.7 → both rank 2, the next is 4.
    assert rows["m1"].mean == pytest.approx(0.7) and rows["m2"].mean == pytest.approx(0.7)
    assert rows["m1"].rank == rows["m2"].rank == 2
    assert rows["m3"].rank == 4
    assert rows["partial"].rank is None and rows["partial"].n_subsets == 1
    assert rows["ann"].rank is None and rows["ann"].complete
    assert rows["h"].by_type == pytest.approx({"classification": 0.8, "sts": 0.75})
    assert rows["h"].by_language == pytest.approx({"ara": 0.9, "eng": 0.7})


def test_wins_against_best_and_median(raters):
    subs = select_subsets(catalogue(raters))
    models = [r for r in raters if r.name in {"m1", "m2", "m3"}]
    hvm = human_vs_models(raters[0], models, subs)
    by = {s["subset"]: s for s in hvm.subsets}
    # TaskA: h 0.8 vs best 0.9 (m1), median 0.7 → loses best, beats median.
    assert (by["TaskA/eng"]["human_beats_best"], by["TaskA/eng"]["human_beats_median"]) == (
        False,
        True,
    )
    # TaskB/eng: h 0.6 vs best 0.7, median 0.5 → loses, wins. TaskB/ara: 0.9 beats all.
    assert by["TaskB/ara"]["best_model"] == "m2" and by["TaskB/ara"]["human_beats_best"]
    assert (hvm.wins_vs_best, hvm.wins_vs_median) == (1, 3)
    assert by["TaskB/eng"]["difficulty"] == "hard" and by["TaskA/eng"]["difficulty"] == "easy"


def test_ties_are_not_wins():
    a = rater("h", "human", [0.5, 0.5, 0.5, 0.5])
    b = rater("m", "model", [0.5, 0.4, 0.6, 0.5])
    hvm = human_vs_models(a, [b], select_subsets(catalogue([a, b])))
    assert hvm.wins_vs_best == 1  # only TaskB/eng, where 0.5 > 0.4


def test_difficulty_threshold_is_inclusive():
    assert difficulty(0.7) == "easy" and difficulty(0.6999) == "hard"


def test_score_correlation_matches_scipy_on_shared_subsets():
    a = {"s1": 0.1, "s2": 0.5, "s3": 0.3, "s4": 0.9, "only_a": 0.0}
    b = {"s1": 0.2, "s2": 0.4, "s3": 0.6, "s4": 0.8, "only_b": 1.0}
    res = score_correlation(a, b)
    assert res.n_items == 4 and res.method == "spearman_across_subsets"
    assert res.value == pytest.approx(spearmanr([0.1, 0.5, 0.3, 0.9], [0.2, 0.4, 0.6, 0.8])[0])
    with pytest.raises(InvalidInputError, match="at least 3 shared subsets"):
        score_correlation({"x": 1.0, "y": 2.0}, {"x": 1.0, "y": 3.0})


def test_no_subsets_is_an_error():
    with pytest.raises(InvalidInputError, match="no subsets"):
        rank_raters([], {})
