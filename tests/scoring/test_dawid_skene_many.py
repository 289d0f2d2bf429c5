"""Dawid–Skene fitted to several answer sets at once (issue 38): each set's model is the one it
gets fitted alone, bit for bit (posteriors, priors, confusion matrices, loss history, so also
the iteration it stops at), whatever the other sets' sizes, label counts and stopping points.
The fit alone is checked against crowd-kit in ``test_dawid_skene.py``."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hume_sync import task_types
from scoring import panel
from scoring.dawid_skene_em import fit_dawid_skene, fit_dawid_skene_many
from scoring.errors import InvalidInputError

Rows = list[tuple[Hashable, Hashable, Any]]
CLS = task_types.get("classification")


def _same(alone: Any, together: Any) -> None:
    assert together.tasks == alone.tasks
    assert together.workers == alone.workers
    assert together.labels == alone.labels
    assert together.loss_history == alone.loss_history
    for field in ("posteriors", "priors", "errors"):
        a, b = getattr(alone, field), getattr(together, field)
        assert a.shape == b.shape and a.tobytes() == b.tobytes(), field


def _random_set(rng: np.random.Generator, n: int, workers: int, k: int, p_right: float) -> Rows:
    gold = rng.integers(0, k, n)
    return [
        (f"i{i}", f"w{w}", f"L{gold[i] if rng.random() < p_right else rng.integers(0, k)}")
        for w in range(workers)
        for i in range(n)
        if rng.random() > 0.1
    ]


def test_sets_fitted_together_get_their_own_fit_bit_for_bit() -> None:
    """HUME-shaped sets (30 items, 2 annotators, 7 labels: one run of equal sizes), sets of
    other sizes and label counts, and a set given twice; they stop at different iterations
    (2 to 100), so the arrays are rebuilt as sets stop."""
    rng = np.random.default_rng(38)
    sets = [_random_set(rng, 30, 2, 7, p) for p in (0.9, 0.8, 0.7, 0.6, 0.5)]
    sets += [_random_set(rng, n, w, k, 0.6) for n, w, k in [(12, 3, 3), (60, 5, 4), (8, 2, 2)]]
    sets += [_random_set(rng, 30, 2, 7, 0.3), sets[0]]
    alone = [fit_dawid_skene(rows) for rows in sets]
    assert len({len(f.loss_history) for f in alone}) >= 5  # they stop at different points
    for one, together in zip(alone, fit_dawid_skene_many(sets), strict=True):
        _same(one, together)


def test_sets_that_run_every_iteration_keep_their_last_one() -> None:
    """With n_iter 3 no set stops early: each keeps the model of iteration 3, as alone."""
    rng = np.random.default_rng(1)
    sets = [_random_set(rng, 20, 3, 4, 0.4) for _ in range(4)]
    together = fit_dawid_skene_many(sets, n_iter=3)
    for rows, fit in zip(sets, together, strict=True):
        _same(fit_dawid_skene(rows, n_iter=3), fit)
        assert len(fit.loss_history) == 3


@st.composite
def _many_sets(draw: st.DrawFn) -> list[Rows]:
    """Up to five small sets: split votes, exact ties and one-label sets are common."""
    out = []
    for _ in range(draw(st.integers(1, 5))):
        n_items = draw(st.integers(1, 6))
        labels = draw(st.lists(st.sampled_from("abcd"), min_size=1, max_size=4, unique=True))
        rows: Rows = []
        for w in range(draw(st.integers(1, 3))):
            for i in range(n_items):
                if draw(st.booleans()) or not rows:
                    rows.append((f"i{i}", f"w{w}", draw(st.sampled_from(labels))))
        out.append(rows)
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_many_sets())
def test_generated_sets_fitted_together_match_each_alone(sets: list[Rows]) -> None:
    for rows, fit in zip(sets, fit_dawid_skene_many(sets), strict=True):
        _same(fit_dawid_skene(rows), fit)


def test_panel_labels_fitted_together_match_the_panel_alone() -> None:
    """The panel's prefit gives each subset the labels its own panel fits, and None where the
    panel fits nothing (one annotator, one label, answers that are not labels)."""
    rng = np.random.default_rng(7)
    subsets: list[tuple[Any, dict[Hashable, Any], dict[str, dict[Hashable, Any]]]] = []
    for p in (0.9, 0.5):
        rows = _random_set(rng, 30, 2, 7, p)
        humans: dict[str, dict[Hashable, Any]] = {}
        for item, who, label in rows:
            humans.setdefault(str(who), {})[item] = label
        gold: dict[Hashable, Any] = {f"i{i}": "L0" for i in range(30)}
        subsets.append((CLS, gold, humans))
    subsets.append((CLS, {"i0": "a"}, {"x": {"i0": "a"}}))  # one annotator
    subsets.append((CLS, {"i0": "a"}, {"x": {"i0": "a"}, "y": {"i0": "a"}}))  # one label
    together = panel.dawid_skene_many(subsets)
    assert together[2:] == [None, None]
    for (t, gold, humans), labels in zip(subsets[:2], together[:2], strict=True):
        alone = panel.dawid_skene(t, gold, humans, seed=0)
        given_labels = panel.dawid_skene(t, gold, humans, seed=0, labels=labels)
        assert given_labels == alone
        assert alone["value"] is not None


def test_a_bad_set_is_a_one_line_error() -> None:
    with pytest.raises(InvalidInputError, match="no answers"):
        fit_dawid_skene_many([[("i1", "x", "a")], []])
