"""Pair classification's study concern: reading SICK, local files and mteb splits; seeded,
balanced sampling; instances that keep gold out of what annotators see; spec fields."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from hume_sync.errors import SamplingError, SourceError
from hume_sync.study.sampling import subset_rng
from hume_sync.task_types.pair_classification import PairClassification
from hume_sync.task_types.pair_classification.study import LabelledPair, sample_pairs

TYPE = PairClassification()
SICK = (
    Path(__file__).resolve().parents[4] / "shared" / "data" / "source" / "SICK_test_annotated.txt"
)


@pytest.fixture(scope="module")
def sick() -> list[LabelledPair]:
    if not SICK.exists():
        pytest.skip(f"shared test data missing: {SICK}")
    return TYPE.study_read_sick(SICK)


def test_sick_is_read_as_entailment_vs_the_rest(sick: list[LabelledPair]) -> None:
    with SICK.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert len(sick) == len(rows) == 4927
    assert sum(r.label for r in sick) == sum(r["entailment_judgment"] == "ENTAILMENT" for r in rows)
    assert sum(r.label for r in sick) == 1414
    assert sum(r.label for r in sick[:200]) == 51
    first, fourth = sick[0], sick[3]
    assert (first.id, first.label) == ("6", 0)  # NEUTRAL
    assert first.sentence1.startswith("There is no boy playing outdoors")
    assert (fourth.id, fourth.label) == ("10", 1)  # ENTAILMENT


def test_sick_refuses_an_unknown_judgment(tmp_path: Path) -> None:
    path = tmp_path / "sick.txt"
    path.write_text(
        "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
        "1\tA dog runs.\tAn animal runs.\t4.5\tENTAILMENT\n"
        "2\tA dog runs.\tA cat sleeps.\t1.5\tMAYBE\n",
        encoding="utf-8",
    )
    with pytest.raises(SourceError, match=r"sick.txt:3: label 'MAYBE'"):
        TYPE.study_read_sick(path)


def test_local_files_jsonl_and_headerless_csv(tmp_path: Path) -> None:
    jsonl = tmp_path / "pairs.jsonl"
    jsonl.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"id": "a", "q1": "How do I cook rice?", "q2": "Rice cooking?", "dup": 1},
                {"id": "b", "q1": "Why is the sky blue?", "q2": "Best pizza in Rome?", "dup": 0},
            ]
        ),
        encoding="utf-8",
    )
    got = TYPE.study_read_file(
        jsonl, columns={"sentence1": "q1", "sentence2": "q2", "label": "dup"}
    )
    assert [(r.id, r.label) for r in got] == [("a", 1), ("b", 0)]
    plain = tmp_path / "pairs.csv"
    plain.write_text("one,uno,1\ntwo,deux,0\n", encoding="utf-8")
    got = TYPE.study_read_file(plain, header=False)
    assert got == [LabelledPair("1", "one", "uno", 1), LabelledPair("2", "two", "deux", 0)]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("sentence1,sentence2,label\nx,y,2\n", "label must be 0 or 1"),
        ("sentence1,sentence2,label\nx,,1\n", "'sentence2' is empty"),
        ("sentence1,sentence2\nx,y\n", "no column 'label'"),
        ("id,sentence1,sentence2,label\nk,x,y,1\nk,z,w,0\n", "id 'k' appears twice"),
    ],
)
def test_local_file_problems_name_the_file(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SourceError, match=match):
        TYPE.study_read_file(path)


def test_mteb_layouts_rows_and_v1_single_row() -> None:
    datasets = pytest.importorskip("datasets")
    cols = {"sentence1": ["a", "b", "c"], "sentence2": ["x", "y", "z"], "labels": [1, 0, 1]}
    rows = TYPE.study_records_from_mteb(datasets.Dataset.from_dict(cols))
    v1 = TYPE.study_records_from_mteb(datasets.Dataset.from_dict({k: [v] for k, v in cols.items()}))
    plain = TYPE.study_records_from_mteb(cols)
    assert rows == v1 == plain
    assert [(r.id, r.sentence1, r.sentence2, r.label) for r in rows] == [
        ("0", "a", "x", 1),
        ("1", "b", "y", 0),
        ("2", "c", "z", 1),
    ]
    with pytest.raises(SourceError, match="no column 'labels'"):
        TYPE.study_records_from_mteb({"sentence1": ["a"], "sentence2": ["b"], "label": [1]})
    with pytest.raises(SourceError, match="0 or 1"):
        TYPE.study_records_from_mteb({"sentence1": ["a"], "sentence2": ["b"], "labels": [3]})


def test_sample_is_balanced_seeded_and_independent_of_file_order(
    sick: list[LabelledPair],
) -> None:
    sample = TYPE.study_sample(sick, seed=42, task="SICK-E", subset="default", size=40)
    labels = [r.label for r in sample.records]
    assert (len(labels), sum(labels)) == (40, 20)
    assert sample.report.per_label == {"0": 20, "1": 20} and sample.report.method == (
        "balanced-per-label"
    )
    # shown shuffled, not grouped by label (which would leak gold through the order)
    assert labels != sorted(labels) and labels != sorted(labels, reverse=True)
    again = TYPE.study_sample(sick[::-1], seed=42, task="SICK-E", subset="default", size=40)
    assert [r.id for r in again.records] == [r.id for r in sample.records]
    other = TYPE.study_sample(sick, seed=42, task="SICK-E", subset="other", size=40)
    assert {r.id for r in other.records} != {r.id for r in sample.records}


def test_odd_sizes_and_shortfalls() -> None:
    pool = [LabelledPair(f"p{i:02d}", f"a{i}", f"b{i}", int(i < 3)) for i in range(20)]
    odd = sample_pairs(pool, 7, subset_rng(1, "t", "s"))
    assert sorted(odd.report.per_label.values()) == [3, 4]
    short = sample_pairs(pool, 10, subset_rng(1, "t", "s"))
    # only 3 positives: all of them, and 7 negatives fill up; the shortfall is reported
    assert short.report.per_label == {"0": 7, "1": 3}
    assert short.report.shortfalls == {"1": 2}
    assert any("short" in n for n in short.report.notes)
    too_many = sample_pairs(pool, 25, subset_rng(1, "t", "s"))
    assert too_many.report.sampled == 20 and "only 20 of 25" in too_many.report.notes[-1]
    with pytest.raises(SamplingError):
        sample_pairs(pool, 0, subset_rng(1, "t", "s"))
    everything = TYPE.study_sample(pool, seed=1, task="t", subset="s", sampling="all")
    assert sorted(r.id for r in everything.records) == [r.id for r in pool]
    assert everything.report.per_label == {"0": 17, "1": 3}


def test_instances_keep_gold_apart(sick: list[LabelledPair]) -> None:
    sample = TYPE.study_sample(sick, seed=7, task="SICK-E", subset="default", size=10)
    instances = TYPE.study_instances(sample.records, sick)
    for inst, rec in zip(instances, sample.records, strict=True):
        assert inst.content == {"sentence1": rec.sentence1, "sentence2": rec.sentence2}
        assert inst.gold == rec.label and inst.source_id == rec.id
        assert sick[inst.source_position].id == rec.id  # type: ignore[index]
        assert TYPE.ls_task_data("ref", inst.content).keys() == {
            "hume_ref",
            "sentence1",
            "sentence2",
        }


def test_spec_fields() -> None:
    assert TYPE.study_check_fields({"size": 40, "positive_labels": ["ENTAILMENT"]}) == []
    assert TYPE.study_check_fields({}, sampling="all") == []
    problems = dict(
        TYPE.study_check_fields(
            {
                "bins": 5,
                "label_set": ["a"],
                "positive_labels": "ENTAILMENT",
                "pair_labels": {"1": "Yes", "2": "No"},
            }
        )
    )
    assert set(problems) == {"bins", "label_set", "size", "positive_labels", "pair_labels"}
    assert problems["size"] == "required (pairs to sample)"
    assert dict(TYPE.study_check_fields({"size": 1}))["size"].startswith("must be an integer")
