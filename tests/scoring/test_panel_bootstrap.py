"""The mean annotator's joint bootstrap, vectorised (issue 38): the same resamples as the
per-resample form it replaced, so the same interval (to 1e-12) on real-shaped subsets."""

from __future__ import annotations

import csv
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hume_sync import task_types
from scoring import intervals, panel, spearman_counts
from scoring.score_memo import shared_scores

DATA = Path(__file__).resolve().parents[1] / "data" / "source"


def _per_resample_interval(
    t: Any, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]], seed: int
) -> Any:
    """The mean annotator's interval as scoring.panel computed it before: one Python call of
    the mean over annotators per resample."""
    scores = panel.annotator_scores(t, gold, humans, seed)
    parts = [panel._per_item(t, gold, s) for s, _, _ in scores.values()]
    assert all(p is not None for p in parts)
    n = len(parts[0][0])  # type: ignore[index]

    def stat(idx: Any) -> float:
        return float(np.mean([f(rec[idx]) for rec, f in parts]))  # type: ignore[misc]

    return intervals.bootstrap(
        np.arange(n), stat, n_resamples=panel.BOOTSTRAP_RESAMPLES, seed=seed, method="percentile"
    )


def _vectorised_interval(
    t: Any, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]], seed: int
) -> dict[str, Any]:
    scores = panel.annotator_scores(t, gold, humans, seed)
    entry = panel._mean_annotator(t, gold, humans, scores, seed)
    assert entry["interval"] is not None, entry
    return entry


def _sib(n: int) -> tuple[dict[str, str], list[str]]:
    with (DATA / "sib200" / "eng_Latn" / "test.tsv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return {r["index_id"]: r["category"] for r in rows[:n]}, sorted({r["category"] for r in rows})


def _classification(n_annotators: int, seed: int) -> tuple[Any, dict, dict]:
    """30 SIB-200 texts, each annotator right with probability 0.6–0.9."""
    rng = np.random.default_rng(seed)
    gold, topics = _sib(30)
    humans = {}
    for w in range(n_annotators):
        p = rng.uniform(0.6, 0.9)
        humans[f"a{w}"] = {
            i: g if rng.random() < p else str(rng.choice(topics)) for i, g in gold.items()
        }
    return task_types.get("classification"), gold, humans


def _sts(n_annotators: int, seed: int) -> tuple[Any, dict, dict]:
    """40 STS Benchmark pairs; each annotator rates gold's level with noise, on 0–5."""
    rng = np.random.default_rng(seed)
    with (DATA / "stsb-en-test.csv").open(encoding="utf-8") as f:
        gold = {f"p{k}": float(row[2]) for k, row in enumerate(csv.reader(f)) if k < 40}
    humans = {
        f"a{w}": {i: int(np.clip(round(g + rng.normal(0, 1)), 0, 5)) for i, g in gold.items()}
        for w in range(n_annotators)
    }
    return task_types.get("sts"), gold, humans


def _reranking(n_annotators: int, seed: int) -> tuple[Any, dict, dict]:
    """18 queries of 7 candidates (HUME's reranking shape), 2 relevant each; each annotator
    flips a mark with probability 0.15 (a query left with no relevant mark keeps one)."""
    rng = np.random.default_rng(seed)
    gold = {f"q{q}": {f"c{c}": int(c in {q % 7, (q + 3) % 7}) for c in range(7)} for q in range(18)}
    humans = {}
    for w in range(n_annotators):
        marks = {}
        for q, g in gold.items():
            m = {c: (1 - v) if rng.random() < 0.15 else v for c, v in g.items()}
            if not any(m.values()):
                m["c0"] = 1
            marks[q] = m
        humans[f"a{w}"] = marks
    return task_types.get("reranking"), gold, humans


def _pairs(n_annotators: int, seed: int) -> tuple[Any, dict, dict]:
    """40 yes/no pairs, half positive; each annotator right with probability 0.8."""
    rng = np.random.default_rng(seed)
    gold = {f"p{k}": k % 2 for k in range(40)}
    humans = {
        f"a{w}": {i: g if rng.random() < 0.8 else 1 - g for i, g in gold.items()}
        for w in range(n_annotators)
    }
    return task_types.get("pair_classification"), gold, humans


@pytest.mark.parametrize(
    ("make", "n_annotators"),
    [
        (_classification, 2),
        (_classification, 3),
        (_classification, 9),  # over 8 values np.mean sums pairwise: still the same
        (_sts, 2),
        (_sts, 4),
        (_reranking, 2),
        (_reranking, 3),
        (_pairs, 3),
    ],
)
def test_vectorised_mean_annotator_gives_the_per_resample_interval(
    make: Any, n_annotators: int
) -> None:
    for seed in (0, 11):
        t, gold, humans = make(n_annotators, seed)
        old = _per_resample_interval(t, gold, humans, seed)
        new = _vectorised_interval(t, gold, humans, seed)
        assert new["value"] == pytest.approx(old.estimate, abs=1e-12)
        assert new["interval"]["low"] == pytest.approx(old.low, abs=1e-12)
        assert new["interval"]["high"] == pytest.approx(old.high, abs=1e-12)
        assert new["interval"]["method"] == "bootstrap:percentile"
        assert old.high - old.low > 0.01  # a real interval, not a degenerate one


def test_a_statistic_not_marked_vectorised_is_called_per_resample() -> None:
    """Mixed parts: a plain callable still gets one resample at a time, and the mean is the
    same as with its vectorised twin."""
    hits = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    other = np.array([0.0, 0.0, 1.0, 1.0, 1.0, 1.0])
    seen: list[tuple[int, ...]] = []

    def plain(x: Any) -> float:
        seen.append(x.shape)
        return float(np.mean(x))

    vec = intervals.vectorized(lambda x: np.mean(x, axis=-1))
    idx = np.random.default_rng(0).integers(0, 6, (5, 6))
    mixed = panel.mean_of_statistics([(hits, plain), (other, vec)])(idx)
    both = panel.mean_of_statistics([(hits, vec), (other, vec)])(idx)
    assert seen == [(6,)] * 5
    assert np.array_equal(mixed, both)
    assert mixed[0] == pytest.approx((hits[idx[0]].mean() + other[idx[0]].mean()) / 2)


@pytest.mark.parametrize(
    ("make", "n_annotators"),
    [(_classification, 3), (_sts, 2), (_reranking, 2), (_pairs, 3)],
)
def test_the_panel_memo_reuses_resamples_and_changes_no_number(
    make: Any, n_annotators: int
) -> None:
    """human_panel evaluates each annotator's statistic once per resample (issue 38): the
    annotators' intervals and the mean annotator's are those computed without the memo, to the
    last bit. Classification's accuracy and STS's Spearman are taken from the draw counts
    instead (scoring.resample_counts, scoring.spearman_counts), which the memo leaves out; for
    STS the mean annotator's bootstrap finds every annotator's resampled values kept by
    scoring.spearman_counts, and computes none again."""
    t, gold, humans = make(n_annotators, 3)
    plain = panel.annotator_scores(t, gold, humans, 3)
    memo = panel._ResampleMemo()
    block = shared_scores()  # one subset's evaluation, as evaluate_subset opens it
    block.__enter__()
    shared = panel.annotator_scores(t, gold, humans, 3, memo)
    for r, (s, iv, why) in plain.items():
        s2, iv2, why2 = shared[r]
        assert (s.value, why) == (s2.value, why2)
        assert iv is not None and iv2 is not None
        assert (iv.estimate, iv.low, iv.high, iv.details) == (
            iv2.estimate, iv2.low, iv2.high, iv2.details
        )  # fmt: skip
    stored = sum(len(v) for v in memo._values.values())
    computed: list[int] = []
    compute = spearman_counts._compute

    def counting(codes: Any, counts: Any) -> Any:
        computed.append(counts.shape[0])
        return compute(codes, counts)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(spearman_counts, "_compute", counting)
        with_memo = panel._mean_annotator(t, gold, humans, shared, 3, memo)
    block.__exit__(None, None, None)
    assert with_memo == panel._mean_annotator(t, gold, humans, plain, 3)
    assert with_memo["interval"] is not None
    if make in (_classification, _sts):
        assert stored == 0  # every value from the draw counts, nothing in the memo
    if make is _sts:
        # the mean annotator computed nothing: the full sample's and the resamples' values
        # were each annotator's own, kept
        assert computed == []
