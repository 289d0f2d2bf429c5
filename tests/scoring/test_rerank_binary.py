"""Reranking agreement on binary marks from the 2×2 table (scoring.agreement._reranking.
_binary_comparison): the general path's ρ, τ-b and κ bit for bit, NaN alike, and the whole
agreement unchanged; scipy's spearmanr and kendalltau and scikit-learn's cohen_kappa_score
are the library references (within their own rounding)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from scoring import agreement
from scoring.agreement import _reranking
from scoring.agreement._clustering_sts import _kendall, _spearman
from scoring.agreement._pairwise import cohen_kappa


def _general(ba: list[int], bb: list[int]) -> tuple[float, float, float]:
    xa, xb = [float(v) for v in ba], [float(v) for v in bb]
    return _spearman(xa, xb), _kendall(xa, xb), cohen_kappa(ba, bb)


def _bits(values: Any) -> bytes:
    return np.asarray(values, dtype=np.float64).tobytes()


@pytest.mark.parametrize("n", [2, 3, 5, 7, 12, 32])
def test_binary_comparison_is_the_general_path_bit_for_bit(n: int) -> None:
    rng = np.random.default_rng(n)
    for trial in range(300):
        share = (0.1, 0.5, 0.9)[trial % 3]
        ba = [int(v) for v in rng.random(n) < share]
        bb = [int(v) for v in rng.random(n) < share]
        fast = _reranking._binary_comparison(ba, bb)
        assert _bits(fast) == _bits(_general(ba, bb)), (ba, bb)


def test_binary_comparison_is_the_libraries() -> None:
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(200):
        ba = [int(v) for v in rng.integers(0, 2, 7)]
        bb = [int(v) for v in rng.integers(0, 2, 7)]
        rho, tau, kappa = _reranking._binary_comparison(ba, bb)
        if math.isnan(rho):
            assert len(set(ba)) == 1 or len(set(bb)) == 1
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert rho == pytest.approx(stats.spearmanr(ba, bb).statistic, abs=1e-14)
            assert tau == pytest.approx(stats.kendalltau(ba, bb).statistic, abs=1e-14)
            assert kappa == pytest.approx(cohen_kappa_score(ba, bb), abs=1e-14)
        checked += 1
    assert checked > 100


def test_the_agreement_is_the_general_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole agreements, binary marks (the fast path), graded and -0.0 marks, unchanged."""
    rng = np.random.default_rng(5)
    marks: dict[Any, Any] = {
        r: {f"q{q}": {f"c{c}": int(rng.integers(0, 2)) for c in range(7)} for q in range(15)}
        for r in ("a", "b", "c")
    }
    marks["a"]["q0"] = {f"c{c}": float(rng.integers(0, 3)) for c in range(7)}  # graded
    marks["b"]["q1"]["c0"] = -0.0
    marks["c"]["q2"] = dict.fromkeys(marks["c"]["q2"], 1)  # constant: NaN ρ and τ
    fast = agreement.reranking_agreements(marks)
    monkeypatch.setattr(_reranking, "_ZERO_ONE", frozenset())  # every query the general way
    general = agreement.reranking_agreements(marks)
    for f, g in zip(fast, general, strict=True):
        assert (f.value, f.method, f.details, f.warnings) == (
            g.value,
            g.method,
            g.details,
            g.warnings,
        )
