"""Bitext mining's study concern: SIB-200's Flores sentences (English with their Arabic, French
translations, aligned by ``index_id``) read from local files and through mteb's own task class;
seeded sampling; the candidates (gold, the models' nearest targets, random fillers, shuffled);
instances that keep gold out of what annotators see; the spec's settings and their errors.

The models' neighbours are found here with the suite's table encoder, whose vectors the test
chooses, so which targets are nearest is known in advance; the real model finds them in
``tests/ml_backend/test_bitext_mining_parity.py``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hume_sync.errors import SamplingError, SourceError, SpecError
from hume_sync.study.sampling import SamplingParams, SourcePositions, subset_rng
from hume_sync.study.sources import load_mteb, load_records, provided_mteb_data
from hume_sync.study.spec import parse_spec
from hume_sync.task_types.bitext_mining import BitextMining
from hume_sync.task_types.bitext_mining.neighbours import neighbours_with
from hume_sync.task_types.bitext_mining.settings import BitextMiningSettings
from hume_sync.task_types.bitext_mining.study import (
    BitextPair,
    MiningItem,
    build_candidates,
    records_from_mteb,
)
from tests._bitext import sib_pairs, write_jsonl
from tests._fake_encoder import FakeEncoder

TYPE = BitextMining()


def pairs(n: int | None = 60, target: str = "arb_Arab") -> list[BitextPair]:
    return [BitextPair(**r) for r in sib_pairs("eng_Latn", target, n)]


def params(size: int | None = 10, **settings: Any) -> SamplingParams:
    settings.setdefault("target_language", "arb-Arab")
    return SamplingParams(size=size, settings=BitextMiningSettings(**settings))


def spec(tmp_path: Path, **task: Any) -> dict[str, Any]:
    path = write_jsonl(tmp_path / "pairs.jsonl", sib_pairs("eng_Latn", "arb_Arab", 40))
    entry = {
        "name": "flores",
        "type": "bitext_mining",
        "source": {"path": str(path)},
        "target_language": "arb-Arab",
        "subsets": [{"name": "eng-arb", "language": "eng-Latn", "size": 6}],
        **task,
    }
    return {"name": "bitext", "seed": 11, "tasks": [entry]}


# ------------------------------------------------------------------------------- reading


def test_sib200_pairs_are_read_from_a_local_jsonl_and_a_headerless_tsv(tmp_path: Path) -> None:
    rows = sib_pairs("eng_Latn", "arb_Arab")
    assert len(rows) == 204  # SIB-200's test split: every English sentence has its Arabic one
    got = load_records(TYPE, write_jsonl(tmp_path / "p.jsonl", rows))
    assert got == [BitextPair(**r) for r in rows]
    first = got[0]
    assert first.id == "1523" and first.sentence1.startswith("Mutation adds new genetic")
    assert first.sentence2.startswith("تضيف الطفرة")
    tsv = tmp_path / "p.tsv"
    tsv.write_text("".join(f"{r['sentence1']}\t{r['sentence2']}\t{r['id']}\n" for r in rows[:5]))
    columns = {"sentence1": 0, "sentence2": 1, "id": 2}
    assert load_records(TYPE, tsv, header=False, columns=columns) == got[:5]
    unnamed = load_records(TYPE, tsv, header=False)  # without an id column: line numbers
    assert [r.id for r in unnamed] == ["1", "2", "3", "4", "5"]


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ('{"id": "1", "sentence1": "a"}', "missing field 'sentence2'"),
        ('{"id": "1", "sentence1": "a", "sentence2": "  "}', "'sentence2' is empty"),
        ('{"id": "1", "sentence1": 3, "sentence2": "b"}', "'sentence1' must be a string"),
    ],
)
def test_bad_rows_are_one_line_errors(tmp_path: Path, line: str, match: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(SourceError, match=match) as err:
        load_records(TYPE, path)
    assert "\n" not in str(err.value) and "bad.jsonl" in str(err.value)


def test_an_mteb_task_is_read_by_name_through_its_own_class() -> None:
    """IWSLT2017's ``en-ar`` subset, its split given in memory as mteb's ``load_data`` would."""
    datasets = pytest.importorskip("datasets")
    rows = sib_pairs("eng_Latn", "arb_Arab", 12)
    split = datasets.Dataset.from_dict(
        {"sentence1": [r["sentence1"] for r in rows], "sentence2": [r["sentence2"] for r in rows]}
    )
    with provided_mteb_data({"IWSLT2017BitextMining": {"en-ar": {"validation": split}}}):
        data = load_mteb("IWSLT2017BitextMining", "en-ar", kind=TYPE)
    assert data.origin["split"] == "validation" and data.origin["hf_subset"] == "en-ar"
    assert [r.id for r in data.records] == [str(n) for n in range(12)]  # mteb's gold: row index
    assert [r.sentence2 for r in data.records] == [r["sentence2"] for r in rows]


def test_mteb_layouts_it_cannot_show_are_refused() -> None:
    bucc = {"sentence1": ["a"], "sentence2": ["b"], "gold": [[0, 0]]}
    with pytest.raises(SourceError, match="separate gold list"):
        records_from_mteb(bucc)
    with pytest.raises(SourceError, match="no column 'sentence2'"):
        records_from_mteb({"sentence1": ["a"]})

    class Parallel:
        parallel_subsets = True

    with pytest.raises(SourceError, match="parallel subsets"):
        TYPE.study_mteb_records(Parallel(), {"sentence1": [], "sentence2": []}, None, "mteb:x")


# ------------------------------------------------------------------------------- sampling


def test_sampling_is_seeded_and_gold_is_always_a_candidate() -> None:
    pool = pairs()
    a = TYPE.study_sample(pool, subset_rng(5, "t", "s"), params(10))
    b = TYPE.study_sample(list(reversed(pool)), subset_rng(5, "t", "s"), params(10))
    c = TYPE.study_sample(pool, subset_rng(6, "t", "s"), params(10))
    assert a.records == b.records  # file order does not matter
    assert a.records != c.records
    by_id = {p.id: p for p in pool}
    for item in a.records:
        assert isinstance(item, MiningItem)
        assert len(item.candidates) == 4
        assert by_id[item.id] in item.candidates  # the translation is among them
        assert len({c.sentence2 for c in item.candidates}) == 4
    assert a.report.sampled == 10 and a.report.available == 60
    assert a.report.notes == ["no neighbour_models: every wrong candidate is drawn at random"]


def test_the_translation_is_not_in_a_telling_place() -> None:
    """Over many sentences the translation's shown place spreads over all four places."""
    sample = TYPE.study_sample(pairs(None), subset_rng(1, "t", "s"), params(120))
    places = Counter(
        [c.id for c in item.candidates].index(item.id)
        for item in sample.records
        if isinstance(item, MiningItem)
    )
    assert sorted(places) == [0, 1, 2, 3]
    assert min(places.values()) >= 18  # 30 expected per place


def test_neighbours_are_the_models_nearest_targets_and_fillers_the_rest() -> None:
    """Vectors chosen so that each sentence's nearest wrong targets are known: target j sits at
    angle j (small steps), sentence i at target i's angle; the nearest wrong targets of i are
    i - 1 and i + 1."""
    pool = pairs(30)
    table = {}
    for j, p in enumerate(pool):
        angle = 0.05 * j
        vec = np.array([np.cos(angle), np.sin(angle)] + [0.0] * 14, dtype=np.float32)
        table[p.sentence1] = table[p.sentence2] = vec
    encoder = FakeEncoder(table=table)

    def search(models: Any, sentences: Any, targets: Any, depth: int) -> list[np.ndarray]:
        assert list(models) == ["table"]
        return neighbours_with([encoder], sentences, targets, depth)

    settings = BitextMiningSettings(
        target_language="arb-Arab", candidates=4, random_fillers=1, neighbour_models=["table"]
    )
    notes: list[str] = []
    order = sorted(range(30), key=lambda j: pool[j].id)  # the pool as sampling sees it
    by_id_pool = [pool[j] for j in order]
    items = [pool[k] for k in (5, 12, 20)]
    got = build_candidates(
        items, by_id_pool, np.random.default_rng(0), settings, notes, search=search
    )
    for k, item in zip((5, 12, 20), got, strict=True):
        ids = {c.id for c in item.candidates}
        assert {pool[k].id, pool[k - 1].id, pool[k + 1].id} <= ids  # gold + both near misses
        assert len(ids) == 4  # and one random filler
    assert notes == []


def test_a_target_side_smaller_than_the_search_depth() -> None:
    """Three pairs, four candidates wanted from two models' neighbours: each model ranks only
    three targets; every item gets the other two, and the shortfall is reported."""
    pool = pairs(3)
    encoder = FakeEncoder()

    def search(models: Any, sentences: Any, targets: Any, depth: int) -> list[np.ndarray]:
        assert depth == 3 * 2 + 1
        return neighbours_with([encoder, encoder], sentences, targets, depth)

    settings = BitextMiningSettings(
        target_language="arb-Arab", candidates=4, random_fillers=0, neighbour_models=["a", "b"]
    )
    notes: list[str] = []
    got = build_candidates(pool, pool, np.random.default_rng(0), settings, notes, search=search)
    assert all(len(item.candidates) == 3 for item in got)
    assert notes == [
        "3 item(s) had too few distinct neighbours; random fillers added",
        "3 item(s) have fewer than 4 candidates",
    ]


def test_the_whole_source_gets_candidates_too() -> None:
    pool = pairs(9)
    sample = TYPE.study_take_all(pool, subset_rng(2, "t", "s"), params(None, candidates=3))
    assert sorted(i.id for i in sample.records) == sorted(p.id for p in pool)
    assert all(len(i.candidates) == 3 for i in sample.records if isinstance(i, MiningItem))


def test_a_small_target_side_gives_fewer_candidates_and_says_so() -> None:
    sample = TYPE.study_sample(pairs(3), subset_rng(2, "t", "s"), params(3, candidates=5))
    assert {len(i.candidates) for i in sample.records if isinstance(i, MiningItem)} == {3}
    assert "3 item(s) have fewer than 5 candidates" in sample.report.notes
    with pytest.raises(SamplingError, match="at least two pairs"):
        TYPE.study_sample(pairs(1), subset_rng(2, "t", "s"), params(1))


# ------------------------------------------------------------------------------- instances


def test_instances_name_each_target_alike_and_keep_gold_apart() -> None:
    pool = pairs(40)
    sample = TYPE.study_sample(pool, subset_rng(3, "t", "s"), params(12))
    instances = TYPE.study_instances(sample.records, SourcePositions.of(pool))
    names: dict[str, str] = {}
    for inst, item in zip(instances, sample.records, strict=True):
        assert set(inst.content) == {"sentence", "candidates"}
        assert inst.content["sentence"] == item.sentence1  # type: ignore[union-attr]
        shown = {c["id"]: c["text"] for c in inst.content["candidates"]}
        assert inst.gold in shown
        assert shown[inst.gold] == next(p.sentence2 for p in pool if p.id == inst.source_id)
        for ref in inst.items:  # one target, one id, on every item
            assert names.setdefault(ref.source_id, ref.item_id) == ref.item_id
            assert ref.source_position == [p.id for p in pool].index(ref.source_id)
        assert all(c["id"].startswith("t") for c in inst.content["candidates"])
    assert len(set(names.values())) == len(names)
    source = TYPE.study_instances(sample.records, SourcePositions.of(pool), id_scheme="source")
    assert [i.gold for i in source] == [i.source_id for i in source]


# ------------------------------------------------------------------------------- the spec


def test_spec_settings_and_their_errors(tmp_path: Path) -> None:
    parsed = parse_spec(spec(tmp_path, candidates=5, random_fillers=2), base_dir=tmp_path)
    settings = parsed.tasks[0].subsets[0].settings
    assert (settings.candidates, settings.random_fillers) == (5, 2)
    assert settings.target_language == "arb-Arab" and settings.neighbour_models == ()
    cases = [
        ({"target_language": None}, "target_language: required"),
        ({"random_fillers": 4}, "random_fillers: must be at most 3"),
        ({"candidates": 1}, "candidates: must be an integer ≥ 2"),
        ({"neighbour_models": "all-MiniLM-L6-v2"}, "neighbour_models: must be a list"),
        ({"random_fillers": -1}, "random_fillers: must be an integer ≥ 0"),
    ]
    for change, match in cases:
        with pytest.raises(SpecError, match=match) as err:
            parse_spec(spec(tmp_path, **change), base_dir=tmp_path)
        assert "\n" not in str(err.value)


def test_a_spec_is_planned_into_the_store(tmp_path: Path) -> None:
    from hume_sync.store import Store, gold
    from hume_sync.workflow.init import init_from_spec

    init_from_spec(tmp_path / "study", parse_spec(spec(tmp_path), base_dir=tmp_path))
    with Store.open(tmp_path / "study") as store:
        [sub] = store.subsets()
        assert sub.task_type == "bitext_mining"
        assert sub.config["target_language"] == "arb-Arab"
        assert (sub.config["candidates"], sub.config["random_fillers"]) == (4, 1)
        golds = gold(store, sub.key)
        instances = store.instances(sub.key)
        assert len(instances) == 6
        for inst in instances:
            ids = [c["id"] for c in inst.content["candidates"]]
            assert golds[inst.hume_id] in ids and len(ids) == 4


def test_a_neighbour_model_that_cannot_load_ends_init_in_one_line(tmp_path: Path) -> None:
    from hume_sync.errors import HumeError
    from hume_sync.workflow.init import init_from_spec

    data = spec(tmp_path, neighbour_models=[str(tmp_path / "no-model")])
    with pytest.raises(HumeError, match="no such local model directory") as err:
        init_from_spec(tmp_path / "study", parse_spec(data, base_dir=tmp_path))
    assert "\n" not in str(err.value)
