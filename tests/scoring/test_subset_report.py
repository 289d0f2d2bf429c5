"""The subset report's bootstrap: why :func:`scoring.intervals.bootstrap` and not
``scipy.stats.bootstrap`` (see :func:`scoring.subset_report._bootstrap`).

Where scipy's BCa is defined the two agree exactly; on the two cases below scipy gives NaN
bounds and ours a usable interval that says what it did.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from hume_sync import task_types
from scoring import intervals
from scoring.subset_report import BOOTSTRAP_RESAMPLES, SubsetInput, _bootstrap, evaluate_subset

SEED = 3


def _scipy_bca(records: np.ndarray, statistic) -> tuple[float, float]:
    idx = np.arange(len(records))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.bootstrap(
            (idx,),
            lambda i: statistic(records[i]),
            n_resamples=BOOTSTRAP_RESAMPLES,
            method="BCa",
            rng=np.random.default_rng(SEED),
            vectorized=False,
        )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _sts_input(gold: list[float], ratings: list[int]) -> SubsetInput:
    return SubsetInput(
        key="STS/x",
        task_name="STS",
        hf_subset="default",
        task_type=task_types.get("sts"),
        language="eng-Latn",
        gold={f"p{k}": g for k, g in enumerate(gold)},
        humans={"a": {f"p{k}": r for k, r in enumerate(ratings)}},
        seed=SEED,
    )


def test_agrees_with_scipy_where_scipy_is_defined() -> None:
    sts = task_types.get("sts")
    rng = np.random.default_rng(0)
    gold = list(rng.uniform(0, 5, 30))
    inp = _sts_input(gold, [round(float(g + rng.normal(0, 1))) for g in gold])
    human = sts.score_human(inp.gold, inp.humans)
    ours = _bootstrap(inp, human)
    records, statistic = sts.score_per_item(inp.gold, human)
    assert ours is not None and ours.method == "bootstrap:bca"
    assert (ours.low, ours.high) == pytest.approx(_scipy_bca(records, statistic), abs=1e-12)


def test_spearman_resamples_with_constant_ratings_scipy_gives_nan() -> None:
    sts = task_types.get("sts")
    inp = _sts_input([1, 2, 3, 4, 5, 2], [1, 1, 2, 2, 3, 2])
    human = sts.score_human(inp.gold, inp.humans)
    ours = _bootstrap(inp, human)
    assert ours is not None and ours.method == "bootstrap:bca"
    assert math.isfinite(ours.low) and ours.low <= human.value <= ours.high
    assert ours.details["n_resamples_dropped"] > 0
    records, statistic = sts.score_per_item(inp.gold, human)
    assert all(math.isnan(x) for x in _scipy_bca(records, statistic))


def test_all_resamples_equal_scipy_gives_nan() -> None:
    hits = np.ones(20)
    ours = intervals.bootstrap(
        hits, lambda x: float(np.mean(x)), n_resamples=BOOTSTRAP_RESAMPLES, seed=SEED
    )
    assert (ours.low, ours.high, ours.method) == (1.0, 1.0, "bootstrap:percentile")
    assert ours.details["fallback_reason"] == "all bootstrap resamples gave the same value"
    assert all(math.isnan(x) for x in _scipy_bca(hits, lambda x: float(np.mean(x))))


def test_a_subset_without_annotations_is_reported_empty() -> None:
    inp = _sts_input([1.0, 2.0], [])
    inp.humans = {}
    rep = evaluate_subset(inp)
    assert rep.human is None and rep.planning == {} and rep.agreement == []
    assert rep.to_dict()["task_type"] == "sts"
    assert rep.warnings == ["partly annotated: 0 of 2 items, 0 of 2 annotations"]
