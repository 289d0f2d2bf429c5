"""Many raters' BCa bootstraps in one pass (:mod:`scoring.bootstrap_batch`) give each rater the
interval :func:`scoring.intervals.bootstrap` gives it alone: every number to the bit, the
details in the same order, the same fallbacks."""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pytest

from hume_sync.task_types.classification.scoring import _mean_hits
from scoring import intervals
from scoring.bootstrap_batch import batchable, bca_of_means, percentile_of_mean, resampled_means
from scoring.errors import ScoringError
from scoring.panel import mean_of_statistics

R = 2000


def _alone(records: np.ndarray, seed: int, level: float) -> object:
    try:
        return intervals.bootstrap(
            records, _mean_hits, n_resamples=R, seed=seed, level=level, vectorized=True
        )
    except ScoringError as exc:
        return exc


def _same(batch: object, alone: object) -> None:
    if isinstance(alone, ScoringError):
        assert type(batch) is type(alone) and str(batch) == str(alone)
        return
    assert not isinstance(batch, ScoringError)
    # the JSON text the export writes: every float's repr, every key in order
    assert json.dumps(batch.to_dict()) == json.dumps(alone.to_dict())  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(60))
def test_generated_hits_get_the_single_intervals(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.choice([3, 4, 7, 18, 30, 40, 97, 250]))
    raters = int(rng.integers(1, 6))
    columns = [(rng.random(n) < rng.uniform(0.05, 0.95)).astype(float) for _ in range(raters)]
    level = float(rng.choice([0.9, 0.95, 0.99]))
    assert all(batchable(c, _mean_hits, R) for c in columns)
    got = bca_of_means(resampled_means(columns, n_resamples=R, seed=seed), _mean_hits, level=level)
    assert len(got) == raters
    for batch, records in zip(got, columns, strict=True):
        _same(batch, _alone(records, seed, level))


@pytest.mark.parametrize(
    "column",
    [
        np.ones(20),  # every resample 1.0: the percentile fallback, and why
        np.zeros(12),
        np.array([1.0] + [0.0] * 29),  # one hit in 30: resamples often constant, z0 extreme
        np.array([1.0, 0.0, 1.0]),  # the fewest items a panel bootstraps
        np.array([0, 1, 2, 0, 1, 5, 3], dtype=np.int64),  # whole numbers, not only hits
    ],
)
def test_edge_columns_take_the_single_path_and_say_why(column: np.ndarray) -> None:
    regular = (np.arange(len(column)) % 2).astype(float)
    got = bca_of_means(resampled_means([regular, column], n_resamples=R, seed=7), _mean_hits)
    _same(got[0], _alone(regular, 7, 0.95))
    _same(got[1], _alone(column, 7, 0.95))


def test_what_is_not_a_mean_of_whole_numbers_is_not_taken() -> None:
    hits = np.array([1.0, 0.0, 1.0, 1.0])
    assert batchable(hits, _mean_hits, R)
    assert not batchable(np.array([0.5, 1.0, 0.0]), _mean_hits, R)  # not whole numbers
    assert not batchable(np.array([[1.0, 0.0]] * 3), _mean_hits, R)  # not 1-D
    assert not batchable([1.0, 0.0, 1.0], _mean_hits, R)  # not an array
    assert not batchable(hits, intervals.vectorized(lambda x: x.mean(axis=-1)), R)
    # draw counts too many to keep: the single bootstrap gathers the records instead
    assert not batchable(np.ones(intervals.COUNTS_VALUES // R + 1), _mean_hits, R)


@pytest.mark.parametrize("seed", range(25))
def test_the_mean_of_raters_gets_the_single_percentile_interval(seed: int) -> None:
    """The mean annotator: raters' means averaged per resample, as mean_of_statistics does."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.choice([3, 9, 30, 64]))
    columns = [(rng.random(n) < rng.uniform(0.1, 0.9)).astype(float) for _ in range(4)]
    rows = sorted(rng.choice(4, size=int(rng.integers(2, 5)), replace=False).tolist())
    if seed % 3 == 0:
        rows = rows[::-1]  # the order the mean takes them in
    got = percentile_of_mean(resampled_means(columns, n_resamples=R, seed=seed), rows)
    alone = intervals.bootstrap(
        np.arange(n),
        mean_of_statistics([(columns[r], _mean_hits) for r in rows]),
        n_resamples=R,
        seed=seed,
        method="percentile",
        vectorized=True,
    )
    _same(got, alone)


def test_a_label_panel_is_the_same_as_bootstrapped_rater_by_rater(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The whole panel of a label subset, its raters' passes shared or not."""
    from hume_sync import task_types
    from scoring import bootstrap_batch, panel

    t = task_types.get("classification")
    rng = np.random.default_rng(11)
    labels = ["x", "y", "z"]
    gold: dict[Hashable, Any] = {f"i{k}": labels[k % 3] for k in range(27)}
    humans: dict[str, Mapping[Hashable, Any]] = {
        r: {i: g if rng.random() < p else str(rng.choice(labels)) for i, g in gold.items()}
        for r, p in (("a", 0.8), ("b", 0.55), ("c", 0.7))
    }
    shared = panel.human_panel(t, gold, humans, None, None, "none", seed=5)
    monkeypatch.setattr(bootstrap_batch, "batchable", lambda *a: False)
    alone = panel.human_panel(t, gold, humans, None, None, "none", seed=5)
    assert json.dumps(shared) == json.dumps(alone)
    assert shared["mean_annotator"]["interval"] is not None
    assert shared["dawid_skene"]["interval"] is not None


@pytest.mark.parametrize("kind", ["classification", "sts"])
def test_the_reported_bootstrap_is_the_aggregates_own(kind: str) -> None:
    """evaluate_subset bootstraps the aggregate in the panel's pass (with the annotators'
    accuracies where it can share theirs): the interval it reports is the one alone."""
    from hume_sync import task_types
    from scoring.subset_report import SubsetInput, _bootstrap, evaluate_subset

    rng = np.random.default_rng(21)
    gold: dict[Hashable, Any]
    humans: dict[str, Mapping[Hashable, Any]]
    if kind == "classification":
        labels = ["x", "y", "z"]
        gold = {f"i{k}": labels[k % 3] for k in range(30)}
        humans = {
            r: {i: g if rng.random() < p else str(rng.choice(labels)) for i, g in gold.items()}
            for r, p in (("a", 0.8), ("b", 0.6))
        }
    else:
        gold = {f"p{k}": float(rng.uniform(0, 5)) for k in range(30)}
        humans = {
            r: {i: int(np.clip(round(g + rng.normal(0, s)), 0, 5)) for i, g in gold.items()}
            for r, s in (("a", 0.8), ("b", 1.5))
        }
    t = task_types.get(kind)
    inp = SubsetInput(
        key="T/x", task_name="T", hf_subset="x", task_type=t, language="eng-Latn",
        gold=gold, humans=humans, seed=9,
    )  # fmt: skip
    report = evaluate_subset(inp)
    assert report.human is not None and report.bootstrap is not None
    alone = _bootstrap(inp, t.score_human(gold, humans))
    assert alone is not None
    assert json.dumps(report.bootstrap.to_dict()) == json.dumps(alone.to_dict())
