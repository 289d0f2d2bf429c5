"""Sampling: balance, spread, shortfall reports and byte-identical determinism on real data."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hume_sync.study.sampling import (
    SamplingError,
    SamplingParams,
    _allocate,
    sample_classification,
    sample_clustering,
    sample_reranking,
    sample_sts,
    stable_hash,
    sts_bins,
    subset_rng,
)
from hume_sync.study.sources import PairItem, QueryItem, TextItem, load_records
from hume_sync.task_types import get
from tests._paths import SOURCE_DATA

DATA = Path(__file__).parent / "data"
SIB_COLUMNS = {"id": "index_id", "text": "text", "label": "category"}


@pytest.fixture(scope="module")
def sib_eng() -> list[TextItem]:
    path = SOURCE_DATA / "sib200" / "eng_Latn" / "test.tsv"
    return load_records(get("classification"), path, columns=SIB_COLUMNS)  # type: ignore[return-value]


@pytest.fixture(scope="module")
def sib_arb() -> list[TextItem]:
    path = SOURCE_DATA / "sib200" / "arb_Arab" / "test.tsv"
    return load_records(get("classification"), path, columns=SIB_COLUMNS)  # type: ignore[return-value]


@pytest.fixture(scope="module")
def stsb() -> list[PairItem]:
    path = SOURCE_DATA / "stsb-en-test.csv"
    return load_records(get("sts"), path, header=False)  # type: ignore[return-value]


@pytest.fixture(scope="module")
def rerank() -> list[QueryItem]:
    return load_records(get("reranking"), DATA / "sib200_eng_rerank.jsonl")  # type: ignore[return-value]


def sampling_params(
    task_type: str, *, sampling: str = "sample", size: int | None = None, **settings: Any
) -> SamplingParams:
    """A subset's sampling parameters, the type's own settings validated as a spec's are."""
    model = get(task_type).study_settings
    assert model is not None
    return SamplingParams(sampling=sampling, size=size, settings=model(**settings))


def rng(name: str = "T", seed: int = 42) -> np.random.Generator:
    return subset_rng(seed, name, "default")


def as_bytes(task_type: str, records: list) -> bytes:
    return json.dumps(
        [(i.source_id, i.content, i.gold) for i in get(task_type).study_instances(records)],
        ensure_ascii=False,
        sort_keys=True,
    ).encode("utf-8")


def test_stable_hash_and_rng_depend_only_on_names() -> None:
    assert stable_hash("SIB/eng_Latn") == stable_hash("SIB/eng_Latn") == 11949514163161066230
    a = subset_rng(42, "SIB", "eng_Latn").integers(1 << 30, size=4)
    b = subset_rng(42, "SIB", "eng_Latn").integers(1 << 30, size=4)
    c = subset_rng(42, "SIB", "arb_Arab").integers(1 << 30, size=4)
    d = subset_rng(43, "SIB", "eng_Latn").integers(1 << 30, size=4)
    assert (a == b).all() and not (a == c).all() and not (a == d).all()


@pytest.mark.parametrize("size", [7, 35, 40, 42, 69])
def test_classification_is_balanced(sib_eng: list[TextItem], size: int) -> None:
    s = sample_classification(sib_eng, size, rng())
    counts = Counter(r.label for r in s.records)  # type: ignore[union-attr]
    assert sum(counts.values()) == size == s.report.sampled
    assert len(counts) == 7 and max(counts.values()) - min(counts.values()) <= 1
    assert dict(counts) == {k: v for k, v in s.report.per_label.items() if v}
    assert len({r.id for r in s.records}) == size and s.report.shortfalls == {}


def test_classification_leftovers_follow_the_seed(sib_eng: list[TextItem]) -> None:
    picks = {
        seed: tuple(
            sorted(
                k
                for k, v in sample_classification(
                    sib_eng, 40, rng(seed=seed)
                ).report.per_label.items()
                if v == 6
            )
        )
        for seed in range(6)
    }
    assert all(len(p) == 5 for p in picks.values())  # 40 = 7 × 5 + 5 extras
    assert len(set(picks.values())) > 1  # which labels get the extras is drawn, not fixed


def test_classification_shortfall_takes_all_and_fills_from_others(
    sib_eng: list[TextItem],
) -> None:
    few_ent = [r for r in sib_eng if r.label != "entertainment"]
    few_ent += [r for r in sib_eng if r.label == "entertainment"][:3]
    s = sample_classification(few_ent, 42, rng())
    counts = Counter(r.label for r in s.records)  # type: ignore[union-attr]
    assert counts["entertainment"] == 3 and sum(counts.values()) == 42
    assert s.report.shortfalls == {"entertainment": 3}
    assert any("entertainment" in n for n in s.report.notes)
    assert max(v for k, v in counts.items() if k != "entertainment") == 7
    # asking for more than exists: everything, and a note
    s = sample_classification(sib_eng[:10], 50, rng())
    assert len(s.records) == 10 and any("only 10 of 50" in n for n in s.report.notes)


def test_classification_label_set_filters_and_reports(sib_eng: list[TextItem]) -> None:
    s = sample_classification(sib_eng, 10, rng(), label_set=["sports", "travel"])
    assert Counter(r.label for r in s.records) == {"sports": 5, "travel": 5}  # type: ignore[union-attr]
    assert any("outside label_set" in n for n in s.report.notes)


def test_same_seed_byte_identical_and_independent_of_input_order(
    sib_eng: list[TextItem], stsb: list[PairItem], rerank: list[QueryItem]
) -> None:
    cases = [
        ("classification", sib_eng, dict(size=42)),
        ("clustering", sib_eng, dict(labels=6, items_per_label=5)),
        ("sts", stsb, dict(size=50, bins=5, score_range=(0.0, 5.0))),
        ("reranking", rerank, dict(size=20, candidates=7)),
    ]
    for task_type, records, params in cases:
        one = get(task_type).study_sample_subset(
            records, rng(task_type), sampling_params(task_type, **params)
        )  # type: ignore[arg-type]
        two = get(task_type).study_sample_subset(
            records, rng(task_type), sampling_params(task_type, **params)
        )  # type: ignore[arg-type]
        shuffled = [records[i] for i in np.random.default_rng(7).permutation(len(records))]
        three = get(task_type).study_sample_subset(
            shuffled, rng(task_type), sampling_params(task_type, **params)
        )  # type: ignore[arg-type]
        other = get(task_type).study_sample_subset(
            records, rng(task_type, seed=1), sampling_params(task_type, **params)
        )  # type: ignore[arg-type]
        b1 = as_bytes(task_type, one.records)
        assert b1 == as_bytes(task_type, two.records) == as_bytes(task_type, three.records)
        assert b1 != as_bytes(task_type, other.records), task_type
        assert one.report == two.report


def test_presentation_order_is_not_grouped_by_label(sib_eng: list[TextItem]) -> None:
    s = sample_classification(sib_eng, 42, rng())
    labels = [r.label for r in s.records]  # type: ignore[union-attr]
    changes = sum(a != b for a, b in itertools.pairwise(labels))
    assert changes > 20  # sorted by label would give 6


def test_clustering_k_labels_times_n(sib_eng: list[TextItem], sib_arb: list[TextItem]) -> None:
    s = sample_clustering(sib_eng, 6, 5, rng())
    counts = Counter(r.label for r in s.records)  # type: ignore[union-attr]
    assert len(s.records) == 30 and len(counts) == 6 and set(counts.values()) == {5}
    assert s.report.per_label == dict(counts)
    labels = [r.label for r in s.records]  # type: ignore[union-attr]
    assert sum(a != b for a, b in itertools.pairwise(labels)) > 10
    (inst,) = get("clustering").study_instances(s.records)
    assert inst.source_id == "set-0" and len(inst.content["items"]) == 30
    assert set(inst.content["items"][0]) == {"id", "text"}
    assert len(set(inst.gold.values())) == 6
    # Arabic: same design, same ids available → works the same way
    assert len(sample_clustering(sib_arb, 6, 5, rng("A")).records) == 30


def test_clustering_only_labels_with_enough_items(sib_eng: list[TextItem]) -> None:
    # 25+ items: politics 30, science/technology 51, sports 25, travel 40
    s = sample_clustering(sib_eng, 4, 25, rng())
    picked = {r.label for r in s.records}  # type: ignore[union-attr]
    assert picked == {"politics", "science/technology", "sports", "travel"}
    assert any("entertainment" in n for n in s.report.notes)
    with pytest.raises(SamplingError, match="need 5 labels with ≥ 25 items each, only 4"):
        sample_clustering(sib_eng, 5, 25, rng())


def test_reranking_queries_with_relevant_and_candidate_cut(rerank: list[QueryItem]) -> None:
    by_id = {q.id: q for q in rerank}
    s = sample_reranking(rerank, 30, rng(), n_candidates=7)
    assert len(s.records) == 30
    assert not {"q39", "q184"} & {q.id for q in s.records}
    assert any("without a relevant candidate" in n for n in s.report.notes)
    for q in s.records:
        assert isinstance(q, QueryItem) and len(q.candidates) == 7
        assert any(c.relevant for c in q.candidates)
        source = {c.id: c for c in by_id[q.id].candidates}
        assert all(source[c.id] == c for c in q.candidates)  # texts and relevance kept
    n_rel = sum(c.relevant for q in s.records for c in q.candidates)  # type: ignore[union-attr]
    assert s.report.per_label == {"relevant": n_rel, "not_relevant": 210 - n_rel}
    # as given: all 9 candidates, and without shuffling their source order
    kept = sample_reranking(rerank, 5, rng(), shuffle_candidates=False)
    for q in kept.records:
        assert q.candidates == by_id[q.id].candidates  # type: ignore[union-attr]
    # more queries asked than have a relevant candidate
    short = sample_reranking(rerank, 40, rng())
    assert len(short.records) == 34 and short.report.shortfalls == {"queries": 6}
    inst = get("reranking").study_instances(s.records[:1])[0]
    assert set(inst.content) == {"query", "candidates"}
    assert all(set(c) == {"id", "text"} for c in inst.content["candidates"])
    assert set(inst.gold.values()) <= {0, 1} and sum(inst.gold.values()) >= 1


def test_sts_spread_over_the_score_range(stsb: list[PairItem]) -> None:
    s = sample_sts(stsb, 50, rng(), n_bins=5, score_range=(0.0, 5.0))
    bins, _ = sts_bins([p.score for p in s.records], 5, (0.0, 5.0))  # type: ignore[union-attr]
    assert Counter(bins) == {0: 10, 1: 10, 2: 10, 3: 10, 4: 10}
    assert s.report.per_label == {
        "[0, 1)": 10,
        "[1, 2)": 10,
        "[2, 3)": 10,
        "[3, 4)": 10,
        "[4, 5]": 10,
    }
    # the source is not flat (so the flat sample is the sampler's doing)
    source = Counter(sts_bins([p.score for p in stsb], 5, (0.0, 5.0))[0])
    assert max(source.values()) > 1.3 * min(source.values())


def test_sts_bin_shortfall_and_edges(stsb: list[PairItem]) -> None:
    few_top = [p for p in stsb if p.score < 4] + [p for p in stsb if p.score >= 4][:3]
    s = sample_sts(few_top, 50, rng(), n_bins=5, score_range=(0.0, 5.0))
    assert len(s.records) == 50
    assert s.report.per_label["[4, 5]"] == 3 and s.report.shortfalls == {"[4, 5]": 7}
    assert sts_bins([0.0, 0.99, 1.0, 4.99, 5.0], 5, (0.0, 5.0))[0] == [0, 0, 1, 4, 4]
    # observed range when none is given
    assert sts_bins([1.0, 2.0, 4.0], 3)[1] == [1.0, 2.0, 3.0, 4.0]
    shifted = [replace(p, score=p.score + 10) for p in stsb[:20]]
    s = sample_sts(stsb[20:30] + shifted, 5, rng(), n_bins=5, score_range=(0.0, 5.0))
    assert len(s.records) == 5 and all(p.score <= 5 for p in s.records)  # type: ignore[union-attr]
    assert "20 pair(s) outside score_range [0.0, 5.0] dropped" in s.report.notes
    with pytest.raises(SamplingError, match="no pair has a score within"):
        sample_sts(shifted, 5, rng(), n_bins=5, score_range=(0.0, 5.0))


def test_take_all_keeps_everything_and_reports_count(
    sib_eng: list[TextItem], stsb: list[PairItem]
) -> None:
    s = get("sts").study_take_all(stsb[:30], rng(), sampling_params("sts", size=30))
    assert sorted(p.id for p in s.records) == sorted(p.id for p in stsb[:30])
    assert s.report.notes == []
    s = get("sts").study_take_all(stsb[:28], rng(), sampling_params("sts", size=30))
    assert s.report.notes == ["expected 30 items, source has 28"]
    two_sets = [replace(r, group="0") for r in sib_eng[:30]]
    two_sets += [replace(r, id=f"b{r.id}", group="1") for r in sib_eng[30:50]]
    s = get("clustering").study_take_all(two_sets, rng(), sampling_params("clustering", size=30))
    assert {r.group for r in s.records} == {"0"} and len(s.records) == 30  # type: ignore[union-attr]
    assert "kept set 0" in s.report.notes[0]


def test_take_all_reranking_shuffles_candidates_and_reports(rerank: list[QueryItem]) -> None:
    s = get("reranking").study_take_all(
        rerank, rng(), sampling_params("reranking", size=36, candidates=7)
    )
    assert len(s.records) == 36
    assert "36 query(ies) do not have 7 candidates" in s.report.notes
    assert "2 query(ies) without a relevant candidate (kept)" in s.report.notes
    by_id = {q.id: q for q in rerank}
    moved = 0
    for q in s.records:
        assert set(q.candidates) == set(by_id[q.id].candidates)  # type: ignore[union-attr]
        moved += q.candidates != by_id[q.id].candidates  # type: ignore[union-attr]
    assert moved > 30
    kept = get("reranking").study_take_all(
        rerank, rng(), sampling_params("reranking", size=36, shuffle_candidates=False)
    )
    assert all(q.candidates == by_id[q.id].candidates for q in kept.records)  # type: ignore[union-attr]
    clus = get("clustering").study_take_all([], rng(), sampling_params("clustering", labels=6))
    assert clus.report.notes == ["expected 6 labels, source has 0"]


def test_to_instances_keep_gold_out_of_content(
    sib_eng: list[TextItem], stsb: list[PairItem]
) -> None:
    cls = get("classification").study_instances(sib_eng[:3])
    assert [i.content for i in cls] == [{"text": r.text} for r in sib_eng[:3]]
    assert [i.gold for i in cls] == [r.label for r in sib_eng[:3]]
    sts = get("sts").study_instances(stsb[:2])
    assert set(sts[0].content) == {"sentence1", "sentence2"} and sts[0].gold == stsb[0].score
    with pytest.raises(SamplingError, match="not a sts record"):
        get("sts").study_instances(sib_eng[:1])


@pytest.mark.parametrize("seed", range(20))
def test_allocate_is_as_even_as_capacity_allows(seed: int) -> None:
    g = np.random.default_rng(seed)
    capacity = {k: int(c) for k, c in enumerate(g.integers(0, 12, size=6))}
    total = int(g.integers(1, 60))
    quota = _allocate(capacity, total, np.random.default_rng(seed))
    assert sum(quota.values()) == min(total, sum(capacity.values()))
    assert all(0 <= quota[k] <= capacity[k] for k in capacity)
    unconstrained = [quota[k] for k in capacity if quota[k] < capacity[k]]
    if unconstrained:  # a stratum not at capacity got at least as much as anyone else - 1
        assert max(quota.values()) - min(unconstrained) <= 1
