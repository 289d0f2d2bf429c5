"""Retrieval's maths (ml_backend/procedures/retrieval.py): search, BM25, pools, mteb's scores."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

from ml_backend.procedures import retrieval as P


def test_chunked_search_equals_a_full_sort() -> None:
    rng = np.random.default_rng(0)
    q = rng.normal(size=(5, 8))
    corpus = rng.normal(size=(103, 8))
    ids = [f"d{i}" for i in range(103)]
    chunks = ((ids[s : s + 10], corpus[s : s + 10]) for s in range(0, 103, 10))
    found = P.exact_top_k(q, chunks, 7)
    qn = q / np.linalg.norm(q, axis=1, keepdims=True)
    cn = corpus / np.linalg.norm(corpus, axis=1, keepdims=True)
    full = qn @ cn.T
    for i in range(5):
        best = np.argsort(-full[i])[:7]
        assert set(found[i]) == {ids[j] for j in best}
        for j in best:
            assert found[i][ids[j]] == pytest.approx(full[i, j], abs=1e-9)


def test_search_of_a_corpus_smaller_than_k_keeps_everything() -> None:
    found = P.exact_top_k(np.eye(2), [(["a", "b"], np.eye(2))], 10)
    assert found == [{"a": 1.0, "b": 0.0}, {"a": 0.0, "b": 1.0}]
    with pytest.raises(ValueError, match="k must be"):
        P.exact_top_k(np.eye(2), [], 0)


def test_bm25_finds_the_document_sharing_the_rare_term() -> None:
    docs = ["the cat sat on the mat", "a dog in the rain", "snow falls on the hills"]
    found = P.bm25_top_k(["c", "d", "s"], docs, ["dog rain", "zebra"], 2)
    assert next(iter(found[0])) == "d"
    assert found[1] == {}  # no shared term: no retrieval
    # A query of one word is looked up in the corpus's own vocabulary (not numbered anew,
    # which would make "snow" the corpus's first word, "cat").
    assert set(P.bm25_top_k(["c", "d", "s"], docs, ["snow"], 3)[0]) == {"s"}
    assert set(P.bm25_top_k(["c", "d", "s"], docs, ["hills mat"], 3)[0]) == {"s", "c"}


def test_pools_are_the_union_of_top_d_and_the_relevant_docs() -> None:
    runs = {
        "emb:m": {"q1": {"a": 0.9, "b": 0.8, "c": 0.1}},
        "bm25": {"q1": {"b": 5.0, "d": 4.0}},
    }
    result = P.merge_pools(runs, {"q1": {"z": 2, "c": 0}}, depth=2)
    pool = result.pools["q1"]
    # emb top 2: a, b; bm25 top 2: b, d; relevant z; c is judged but not relevant: not added.
    assert pool.docs == ("a", "b", "d", "z")
    assert pool.found_by["b"] == ("bm25", "emb:m")
    assert result.contributed == {"bm25": 2, "emb:m": 2, "qrels": 1}
    assert result.unique == {"bm25": 1, "emb:m": 1, "qrels": 1}
    assert result.summary()["pool_size"] == {"total": 4, "min": 4, "max": 4, "mean": 4.0}


def test_evaluate_is_pytrec_eval_with_mteb_rounding_and_judged_at_k() -> None:
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}}
    run = {"q1": {"a": 0.2, "b": 0.9, "u": 0.8, "c": 0.1}, "q2": {"y": 0.9, "x": 0.5}}
    scores, per_query = P.evaluate(run, qrels)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map_cut.1000", "recall.10"})
    ref = ev.evaluate(run)
    assert scores["ndcg_at_10"] == round(
        (ref["q1"]["ndcg_cut_10"] + ref["q2"]["ndcg_cut_10"]) / 2, 5
    )
    assert scores["map_at_1000"] == round(
        (ref["q1"]["map_cut_1000"] + ref["q2"]["map_cut_1000"]) / 2, 5
    )
    # q1 ranks b u a c: first relevant a at rank 3; q2 ranks y x: rank 2.
    assert scores["mrr_at_10"] == pytest.approx((1 / 3 + 1 / 2) / 2)
    # judged in the top 10: q1 3 of 4 (u unjudged), q2 1 of 2, each over 10 places.
    assert scores["judged_at_10"] == pytest.approx((3 / 10 + 1 / 10) / 2)
    assert scores["judged_at_1"] == pytest.approx((1 + 0) / 2)
    assert per_query["q1"]["ndcg_at_10"] == pytest.approx(ref["q1"]["ndcg_cut_10"])


def test_the_condensed_score_drops_unjudged_documents() -> None:
    qrels = {"q1": {"a": 1, "b": 0}}
    run = {"q1": {"u": 0.9, "a": 0.5, "b": 0.1}}
    plain, _ = P.evaluate(run, qrels)
    condensed, _ = P.evaluate(run, qrels, judged_only=True)
    assert plain["mrr_at_10"] == 0.5  # u (unjudged) first, a second
    assert condensed["mrr_at_10"] == 1.0  # u removed: a first
    assert condensed["ndcg_at_10"] == 1.0
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}, judged_docs_only_flag=True)
    assert condensed["ndcg_at_10"] == round(ref.evaluate(run)["q1"]["ndcg_cut_10"], 5)


def test_score_pool_ranks_by_similarity_and_skips_queries_without_positives() -> None:
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    cands = [np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0]])]
    result = P.score_pool(
        q, cands, [["a", "b"], ["c"]], [{"a": 1}, {"c": 0}], query_ids=["q1", "q2"]
    )
    assert result.answers[0] == {"a": 1.0, "b": 0.0}
    assert result.scores is not None
    assert result.main_score == 1.0  # only q1 is scored: a first
    assert result.scores["judged_at_10"] == pytest.approx(0.1)
    assert result.scores["condensed_ndcg_at_10"] == 1.0
