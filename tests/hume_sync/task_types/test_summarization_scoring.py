"""Summarization's human score: cases worked out by hand, the same numbers computed here
independently with scipy on SICK-derived texts, mteb's skip rule (constant gold, constant
ratings), agreement checked against the ``krippendorff`` package, and seeded intervals."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

from hume_sync.task_types.summarization import Summarization
from scoring.aggregation.summarization import (
    _alpha_of,
    _coincidences,
    alpha_by_texts,
    flatten,
    human_summarization,
    summarization_metrics,
    text_correlations,
)
from scoring.agreement import krippendorff_alpha
from scoring.errors import DegenerateInputError, InvalidInputError

TYPE = Summarization()
SICK = Path(__file__).resolve().parents[2] / "data" / "summarization" / "sick" / "texts.jsonl"

GOLD = {
    "t0": {"a": 1.0, "b": 2.0, "c": 3.0},
    "t1": {"a": 3.0, "b": 1.0, "c": 2.0},
    "t2": {"a": 2.0, "b": 2.0, "c": 2.0},  # constant: mteb skips it
}


def r(a: int, b: int, c: int) -> dict[str, int]:
    return {"a": a, "b": b, "c": c}


def test_a_worked_case() -> None:
    # x: t0 (1,2,3) against (1,2,3): ρ = 1. t1 ratings ranks (1,2,3) against gold ranks
    #    (3,1,2): d = (2,−1,−1), Σd² = 6, ρ = 1 − 6·6/(3·8) = −0.5. t2: constant gold.
    #    x = (1 − 0.5) / 2 = 0.25.
    # y: t0 (2,2,2) constant ratings: skipped for y; t1 (3,1,2) = gold: ρ = 1. y = 1.
    # Mean ratings: t0 (1.5, 2, 2.5): ρ = 1; t1 (2, 1.5, 2.5), ranks (2,1,3) against (3,1,2):
    #    d = (−1,0,1), Σd² = 2, ρ = 1 − 12/24 = 0.5. Human = (1 + 0.5) / 2 = 0.75.
    answers = {
        "x": {"t0": r(1, 2, 3), "t1": r(1, 2, 3), "t2": r(1, 2, 3)},
        "y": {"t0": r(2, 2, 2), "t1": r(3, 1, 2), "t2": r(5, 4, 1)},
    }
    s = human_summarization(GOLD, answers)
    assert s.value == pytest.approx(0.75, abs=1e-12)
    assert s.per_rater == pytest.approx({"x": 0.25, "y": 1.0}, abs=1e-12)
    assert s.method == "human:mean_rating+mteb_text_spearman"
    assert s.details["text_spearman"]["t2"] is None
    assert s.details["n_texts_constant_gold"] == 1 and s.details["n_texts_scored"] == 2
    assert s.details["per_rater_texts_constant_ratings"] == {"x": 0, "y": 1}
    assert s.n_items == 3


def test_constant_ratings_are_skipped_as_mteb_skips_a_constant_model() -> None:
    """A rater whose every text is constant has no score of their own; the pooled score still
    counts their ratings, and a pool that is constant everywhere is one clear error."""
    answers = {"x": {"t0": r(3, 3, 3), "t1": r(2, 2, 2)}, "y": {"t0": r(1, 2, 3)}}
    s = human_summarization(GOLD, answers)
    assert "x" not in s.per_rater and "x" in s.details["degenerate_raters"]
    # t0 mean (2, 2.5, 3): ρ = 1; t1 x alone, constant: skipped.
    assert s.value == pytest.approx(1.0) and s.details["n_texts_constant_ratings"] == 1
    with pytest.raises(DegenerateInputError, match="every text is skipped"):
        human_summarization(GOLD, {"x": {"t0": r(3, 3, 3), "t2": r(1, 2, 3)}})


@pytest.mark.parametrize(
    ("answer", "match"),
    [
        ({"a": 1, "b": 2}, r"answers\['x'\]\['t0'\]: must rate every summary"),
        ({"a": 1, "b": 2, "c": 3, "d": 4}, "unknown"),
        ({"a": 1, "b": "2", "c": 3}, "expected a rating"),
        ([1, 2, 3], r"expected \{summary id: rating\}"),
    ],
)
def test_an_incomplete_or_malformed_answer_is_refused(answer, match) -> None:
    with pytest.raises(InvalidInputError, match=match) as err:
        human_summarization(GOLD, {"x": {"t0": answer}})
    assert "\n" not in str(err.value)


def sick(n: int) -> list[dict]:
    lines = SICK.read_text(encoding="utf-8").splitlines()[:n]
    return [json.loads(line) for line in lines]


def test_the_human_score_equals_scipy_on_recorded_answers() -> None:
    """Three scripted raters on 40 SICK texts: the human score is recomputed here from the
    recorded ratings with scipy alone (mean rating, per-text spearmanr, skip, mean)."""
    rng = np.random.default_rng(5)
    texts = sick(40)
    gold = {t["id"]: {str(k): v for k, v in enumerate(t["relevance"])} for t in texts}
    answers: dict[str, dict[str, dict[str, int]]] = {}
    for who, noise in (("a", 0.5), ("b", 1.0), ("c", 2.0)):
        answers[who] = {
            t: {k: int(np.clip(round(v + rng.normal(0, noise)), 1, 5)) for k, v in g.items()}
            for t, g in gold.items()
        }
    got = human_summarization(gold, answers)
    expected, skipped = [], 0
    for t, g in gold.items():
        ids = list(g)
        gs = [g[k] for k in ids]
        mean = [np.mean([answers[w][t][k] for w in answers]) for k in ids]
        if len(set(gs)) == 1 or len(set(mean)) == 1:
            skipped += 1
            continue
        expected.append(spearmanr(gs, mean).statistic)
    assert got.value == pytest.approx(float(np.mean(expected)), abs=1e-12)
    assert got.details["n_texts_scored"] == 40 - skipped
    for w in answers:
        own = [
            spearmanr([g[k] for k in g], [answers[w][t][k] for k in g]).statistic
            for t, g in gold.items()
            if len(set(answers[w][t].values())) > 1
        ]
        assert got.per_rater[w] == pytest.approx(float(np.mean(own)), abs=1e-12)
    assert got.per_rater["a"] > got.per_rater["c"]  # less noise, closer to the experts


def test_mteb_s_skip_rule_and_metrics() -> None:
    gold = [[1.0, 2.0, 3.0], [2.0, 2.0, 2.0], [1.0, 2.0, 3.0], [3.0, 1.0, 2.0]]
    cos = [[0.1, 0.2, 0.3], [0.1, 0.2, 0.3], [0.4, 0.4, 0.4], [0.3, 0.2, 0.1]]
    dot = [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [5.0, 5.0, 5.0]]
    # text 1: constant gold; text 2: constant cosine; text 3: constant dot. Only text 0 counts.
    m = summarization_metrics(gold, cos, dot, cos)
    assert m["n_texts_skipped"] == 3
    assert m["cosine_spearman"] == pytest.approx(1.0) and m["dot_pearson"] == pytest.approx(1.0)
    assert text_correlations([1, 2, 3], [3, 3, 3]) is None
    rho, pearson = text_correlations([1, 2, 3, 4], [1, 3, 2, 4])  # type: ignore[misc]
    assert rho == pytest.approx(0.8) and math.isfinite(pearson)  # 1 − 6·2/(4·15) = 0.8


def got_domain(answers) -> list[float]:
    return _coincidences(answers, sorted(answers["a"]))[0]


def test_alpha_matches_the_krippendorff_package_and_its_interval_is_seeded() -> None:
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(2)
    texts = sick(30)
    answers = {
        w: {
            t["id"]: {
                str(k): int(np.clip(round(v + rng.normal(0, 0.8)), 1, 5))
                for k, v in enumerate(t["relevance"])
            }
            for t in texts
        }
        for w in ("a", "b", "c")
    }
    flat = flatten(answers)
    units = sorted(flat["a"])
    matrix = np.array([[flat[w][u] for u in units] for w in flat], dtype=float)
    for level in ("interval", "ordinal"):
        got = alpha_by_texts(answers, level=level, n_resamples=300, seed=1)
        want = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert got.value == pytest.approx(want, abs=1e-9)
        iv = got.details["interval"]
        assert iv["low"] <= got.value <= iv["high"] and iv["low"] < iv["high"]
        again = alpha_by_texts(answers, level=level, n_resamples=300, seed=1)
        assert again.details["interval"] == iv
        # a resample's α from the per-text coincidence parts equals α recomputed from the
        # resampled ratings (a text drawn twice counts twice)
        ids = sorted(answers["a"])
        _, parts = _coincidences(answers, ids)
        draw = np.random.default_rng(9).integers(0, len(ids), len(ids))
        resampled = {
            w: {f"{k}:{ids[t]}": answers[w][ids[t]] for k, t in enumerate(draw)} for w in answers
        }
        weights = np.bincount(draw, minlength=len(ids)).astype(float)
        fast = _alpha_of(np.tensordot(weights, parts, axes=1)[None], got_domain(answers), level)
        slow = krippendorff_alpha(flatten(resampled), level=level).value
        assert fast[0] == pytest.approx(slow, abs=1e-9)


def test_the_type_reports_interval_agreement_and_per_text_records() -> None:
    answers = {
        "x": {"t0": r(1, 2, 3), "t1": r(1, 2, 3), "t2": r(1, 2, 3)},
        "y": {"t0": r(1, 3, 2), "t1": r(3, 1, 2), "t2": r(5, 4, 1)},
        "z": {"t0": r(2, 1, 3), "t1": r(3, 2, 1), "t2": r(1, 1, 2)},
    }
    s = TYPE.score_human(GOLD, answers)
    records, statistic = TYPE.score_per_item(GOLD, s)  # type: ignore[misc]
    assert len(records) == 3 and math.isnan(records[2])
    assert statistic(records) == pytest.approx(s.value)
    heads = TYPE.score_agreements(GOLD, answers)
    assert [a.method for a in heads][:2] == [
        "krippendorff_alpha:interval",
        "krippendorff_alpha:ordinal",
    ]
    assert TYPE.score_headline_agreement == heads[0].method
    assert TYPE.score_disagree([r(1, 2, 3), r(3, 2, 3)]) and not TYPE.score_disagree(
        [r(1, 2, 3), r(2, 2, 3)]
    )
    # agreeing annotators who order the summaries against the experts: a candidate gold error
    assert TYPE.score_agree_not_gold([r(3, 2, 1), r(3, 2, 1)], GOLD["t0"])
    assert not TYPE.score_agree_not_gold([r(1, 2, 3), r(1, 2, 3)], GOLD["t0"])
    align = TYPE.score_item_alignment.measure
    assert align(r(1, 2, 3), r(1, 2, 3)) == 0.0 and align(r(1, 1, 1), r(5, 5, 5)) == -1.0
