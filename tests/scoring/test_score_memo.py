"""A subset's label metrics are computed once per set of labels (:mod:`scoring.score_memo`),
and the subset's report is the same with and without the memo."""

from __future__ import annotations

import contextlib
from collections.abc import Hashable
from typing import Any

import numpy as np
import pytest

import scoring.kernels as kernels
import scoring.subset_report as subset_report
from hume_sync import task_types
from scoring import metrics
from scoring.score_memo import shared_scores
from scoring.subset_report import SubsetInput, evaluate_subset

GOLD = ["a", "b", "a", "c", "b", "a"]
PRED = ["a", "b", "b", "c", "a", "a"]


@pytest.fixture
def kernel_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Counts the computations behind accuracy and V-measure."""
    calls: list[str] = []
    for name in ("classification_scores", "clustering_scores"):
        real = getattr(kernels, name)

        def spy(g, p, _real=real, _name=name):
            calls.append(_name)
            return _real(g, p)

        monkeypatch.setattr(kernels, name, spy)
    return calls


def test_same_labels_are_scored_once_within_the_block(kernel_calls: list[str]) -> None:
    with shared_scores():
        first = metrics.accuracy(list(GOLD), list(PRED))
        again = metrics.accuracy(list(GOLD), list(PRED))
        other = metrics.accuracy(list(GOLD), list(GOLD))
        v1 = metrics.v_measure(list(GOLD), list(PRED))
        v2 = metrics.v_measure(list(GOLD), list(PRED))
    assert kernel_calls == ["classification_scores", "classification_scores", "clustering_scores"]
    assert (again.value, dict(again.details)) == (first.value, dict(first.details))
    assert first.value == pytest.approx(4 / 6)
    assert other.value == 1.0
    assert v1 == v2


def test_each_caller_gets_its_own_details() -> None:
    with shared_scores():
        first = metrics.accuracy(list(GOLD), list(PRED))
        first.details["f1"] = -1.0  # type: ignore[index]
        again = metrics.accuracy(list(GOLD), list(PRED))
    assert again.details["f1"] != -1.0


def test_nothing_is_kept_outside_the_block_or_after_it(kernel_calls: list[str]) -> None:
    metrics.accuracy(list(GOLD), list(PRED))
    metrics.accuracy(list(GOLD), list(PRED))
    with shared_scores():
        metrics.accuracy(list(GOLD), list(PRED))
    with shared_scores():
        metrics.accuracy(list(GOLD), list(PRED))
    assert kernel_calls == ["classification_scores"] * 4


def test_labels_other_than_plain_strings_are_not_shared(kernel_calls: list[str]) -> None:
    # 1 and 1.0 are equal keys, and an array can change under its caller: no memo for them
    with shared_scores():
        metrics.accuracy([1, 2, 1], [1, 2, 2])
        metrics.accuracy([1, 2, 1], [1, 2, 2])
        arr = np.array(GOLD)
        metrics.accuracy(arr, arr)
        metrics.accuracy(arr, arr)
    assert kernel_calls == ["classification_scores"] * 4


def _inputs() -> list[SubsetInput]:
    rng = np.random.default_rng(5)
    labels = ["x", "y", "z"]
    gold: dict[Hashable, Any] = {f"i{k}": labels[k % 3] for k in range(24)}

    def noisy(p: float) -> dict[Hashable, Any]:
        return {i: g if rng.random() < p else str(rng.choice(labels)) for i, g in gold.items()}

    classification = SubsetInput(
        key="C/x",
        task_name="C",
        hf_subset="x",
        task_type=task_types.get("classification"),
        language="eng-Latn",
        gold=gold,
        humans={"a": noisy(0.8), "b": noisy(0.6), "c": noisy(0.7)},
        seed=4,
    )
    sets: dict[Hashable, Any] = {
        f"s{s}": {f"t{s}_{k}": labels[k % 3] for k in range(9)} for s in range(2)
    }
    clustering = SubsetInput(
        key="K/x",
        task_name="K",
        hf_subset="x",
        task_type=task_types.get("clustering"),
        language="eng-Latn",
        gold=sets,
        humans={
            r: {
                s: {t: f"g{(k // 3 + shift) % 3}" for k, t in enumerate(g)} for s, g in sets.items()
            }
            for r, shift in (("a", 0), ("b", 1))
        },
        seed=4,
    )
    return [classification, clustering]


@pytest.mark.parametrize("which", [0, 1])
def test_a_subset_report_is_the_same_without_the_memo(
    which: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    inp = _inputs()[which]
    shared = evaluate_subset(inp).to_dict()
    monkeypatch.setattr(subset_report, "shared_scores", contextlib.nullcontext)
    alone = evaluate_subset(inp).to_dict()
    assert shared == alone
    assert shared["human"]["value"] is not None
