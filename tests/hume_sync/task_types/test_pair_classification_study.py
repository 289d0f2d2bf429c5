"""Pair classification's study concern: reading SICK, local files and mteb splits; label names
resolved by the spec's label_set; seeded, balanced sampling; instances that keep gold out of
what annotators see; spec fields. Local files are read by the study's own reader
(``hume_sync.study.sources.load_records``, as a spec's local source is); the ``StudyRules`` hooks
are called the way the protocol's template methods call them (a subset generator, the spec's
sampling parameters). A whole study (spec, init, store) is ``test_pair_classification_e2e``'s and
``test_a_spec_with_a_sick_source_is_planned`` below."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NoReturn

import pytest

from hume_sync.errors import SamplingError, SourceError
from hume_sync.study.sampling import SamplingParams, SourcePositions, subset_rng
from hume_sync.study.sources import load_records
from hume_sync.task_types.pair_classification import PairClassification
from hume_sync.task_types.pair_classification.settings import PairClassificationSettings
from hume_sync.task_types.pair_classification.study import (
    SICK_COLUMNS,
    SICK_LABEL_SET,
    LabelledPair,
    records_from_mteb,
    resolve_labels,
    sample_pairs,
)
from tests.task_type_examples.pair_classification import SICK, read_sick

TYPE = PairClassification()


def read_pair_file(path: Path, **kw: Any) -> list[LabelledPair]:
    """A local pair file as a study reads it."""
    return load_records(TYPE, path, **kw)  # type: ignore[return-value]


def params(*, sampling: str = "sample", size: int | None = None, **settings: Any) -> SamplingParams:
    """A subset's sampling parameters, the type's own settings validated as a spec's are."""
    return SamplingParams(
        sampling=sampling, size=size, settings=PairClassificationSettings(**settings)
    )


@dataclass
class Fields:
    """A subset's sizing fields while the spec is read (``SubsetFields``' shape)."""

    sampling: str = "sample"
    size: int | None = None

    def fail(self, field: str, reason: str) -> NoReturn:
        raise ValueError(f"{field}: {reason}")


@pytest.fixture(scope="module")
def sick_raw() -> list[LabelledPair]:
    """SICK as the product reads a local file: columns mapped, label names kept."""
    return read_pair_file(SICK, fmt="tsv", columns=SICK_COLUMNS)


def test_sick_is_read_as_entailment_vs_the_rest(sick_raw: list[LabelledPair]) -> None:
    sick = read_sick(SICK)
    with SICK.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert len(sick) == len(rows) == len(sick_raw) == 4927
    assert sum(r.label for r in sick) == sum(r["entailment_judgment"] == "ENTAILMENT" for r in rows)
    assert sum(r.label for r in sick) == 1414
    assert sum(r.label for r in sick[:200]) == 51
    first, fourth = sick[0], sick[3]
    assert (first.id, first.label) == ("6", 0)  # NEUTRAL
    assert first.sentence1.startswith("There is no boy playing outdoors")
    assert (fourth.id, fourth.label) == ("10", 1)  # ENTAILMENT
    # the product's path: names kept, then resolved by the spec's label_set
    assert {r.label for r in sick_raw} == {"ENTAILMENT", "NEUTRAL", "CONTRADICTION"}
    assert resolve_labels(sick_raw, SICK_LABEL_SET) == (sick, [])
    # entailment against contradiction only: the neutral pairs are left out
    e_vs_c, notes = resolve_labels(sick_raw, ["ENTAILMENT", "CONTRADICTION"])
    assert (len(e_vs_c), sum(r.label for r in e_vs_c)) == (1414 + 720, 1414)
    assert notes == ["2793 pair(s) with labels outside label_set were dropped"]


def test_a_judgment_outside_label_set_is_left_out_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "sick.txt"
    path.write_text(
        "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
        "1\tA dog runs.\tAn animal runs.\t4.5\tENTAILMENT\n"
        "2\tA dog runs.\tA cat sleeps.\t1.5\tMAYBE\n",
        encoding="utf-8",
    )
    records = read_pair_file(path, fmt="tsv", columns=SICK_COLUMNS)
    kept, notes = resolve_labels(records, SICK_LABEL_SET)
    assert [(r.id, r.label) for r in kept] == [("1", 1)]
    assert notes == ["1 pair(s) with labels outside label_set were dropped"]


@pytest.mark.parametrize(
    ("label", "expected"),
    [(1, 1), (0, 0), ("1", 1), (" 0 ", 0), (1.0, 1), (True, 1), ("ENTAILMENT", "ENTAILMENT")],
)
def test_record_from_row_keeps_0_1_and_names(label: Any, expected: Any) -> None:
    row = {"id": "7", "sentence1": " A dog runs. ", "sentence2": "An animal runs.", "label": label}
    record = TYPE.study_record_from_row(row, "f.jsonl", 3)
    assert record == LabelledPair("7", "A dog runs.", "An animal runs.", expected)


@pytest.mark.parametrize("label", [2, "2", 0.5, "-1", "", None, [1]])
def test_record_from_row_refuses_other_labels(label: Any) -> None:
    row = {"id": "7", "sentence1": "a", "sentence2": "b", "label": label}
    with pytest.raises(SourceError, match=r"f\.jsonl:3"):
        TYPE.study_record_from_row(row, "f.jsonl", 3)


def test_resolving_label_names_needs_a_fitting_label_set() -> None:
    named = [LabelledPair("a", "x", "y", "DUP"), LabelledPair("b", "x", "z", "OTHER")]
    resolved, notes = resolve_labels(named, ["DUP", "OTHER"])
    assert [r.label for r in resolved] == [1, 0] and notes == []
    # the first name is the positive one, whatever the order of the source
    assert [r.label for r in resolve_labels(named, ["OTHER", "DUP"])[0]] == [0, 1]
    with pytest.raises(SamplingError, match="label_set"):
        resolve_labels(named, None)
    with pytest.raises(SamplingError, match="no pair has the positive label 'Dup'"):
        resolve_labels(named, ["Dup", "OTHER"])
    with pytest.raises(SamplingError, match="the source labels pairs 0/1"):
        resolve_labels([LabelledPair("a", "x", "y", 1)], ["DUP", "OTHER"])
    assert resolve_labels([LabelledPair("a", "x", "y", 1)], None)[0][0].label == 1


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
    got = read_pair_file(jsonl, columns={"sentence1": "q1", "sentence2": "q2", "label": "dup"})
    assert [(r.id, r.label) for r in got] == [("a", 1), ("b", 0)]
    plain = tmp_path / "pairs.csv"
    plain.write_text("one,uno,1\ntwo,deux,0\n", encoding="utf-8")
    got = read_pair_file(plain, header=False)
    assert got == [LabelledPair("1", "one", "uno", 1), LabelledPair("2", "two", "deux", 0)]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("sentence1,sentence2,label\nx,y,2\n", "label must be 0 or 1"),
        ("sentence1,sentence2,label\nx,,1\n", "'sentence2' is empty"),
        ("sentence1,sentence2\nx,y\n", "no column 'label'"),
        ("id,sentence1,sentence2,label\nk,x,y,1\nk,z,w,0\n", "duplicate id 'k'"),
    ],
)
def test_local_file_problems_name_the_file(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SourceError, match=match):
        read_pair_file(path)


def test_mteb_layouts_rows_and_v1_single_row() -> None:
    datasets = pytest.importorskip("datasets")
    cols = {"sentence1": ["a", "b", "c"], "sentence2": ["x", "y", "z"], "labels": [1, 0, 1]}
    rows = records_from_mteb(datasets.Dataset.from_dict(cols))
    v1 = records_from_mteb(datasets.Dataset.from_dict({k: [v] for k, v in cols.items()}))
    plain = records_from_mteb(cols)
    assert rows == v1 == plain
    assert [(r.id, r.sentence1, r.sentence2, r.label) for r in rows] == [
        ("0", "a", "x", 1),
        ("1", "b", "y", 0),
        ("2", "c", "z", 1),
    ]
    with pytest.raises(SourceError, match="no column 'labels'"):
        records_from_mteb({"sentence1": ["a"], "sentence2": ["b"], "label": [1]})
    with pytest.raises(SourceError, match="0 or 1"):
        records_from_mteb({"sentence1": ["a"], "sentence2": ["b"], "labels": [3]})


def test_mteb_records_use_the_task_s_own_columns() -> None:
    task = SimpleNamespace(input1_column_name="q", input2_column_name="d", label_column_name="y")
    data = {"q": ["a", "b"], "d": ["x", "y"], "y": [0, 1]}
    records, train = TYPE.study_mteb_records(task, data, None, "mteb:Some")
    assert train is None and [(r.sentence1, r.sentence2, r.label) for r in records] == [
        ("a", "x", 0),
        ("b", "y", 1),
    ]
    image_task = SimpleNamespace(input1_column_name={"img": "image"})
    with pytest.raises(SourceError, match="not a text pair task"):
        TYPE.study_mteb_records(image_task, data, None, "mteb:Img")


def test_sample_is_balanced_seeded_and_independent_of_file_order(
    sick_raw: list[LabelledPair],
) -> None:
    p = params(size=40, label_set=SICK_LABEL_SET)
    sample = TYPE.study_sample(sick_raw, subset_rng(42, "SICK-E", "default"), p)
    labels = [r.label for r in sample.records]
    assert (len(labels), sum(labels)) == (40, 20)
    assert sample.report.per_label == {"0": 20, "1": 20}
    assert sample.report.method == "balanced-per-label"
    # shown shuffled, not grouped by label (which would leak gold through the order)
    assert labels != sorted(labels) and labels != sorted(labels, reverse=True)
    again = TYPE.study_sample(sick_raw[::-1], subset_rng(42, "SICK-E", "default"), p)
    assert [r.id for r in again.records] == [r.id for r in sample.records]
    other = TYPE.study_sample(sick_raw, subset_rng(42, "SICK-E", "other"), p)
    assert {r.id for r in other.records} != {r.id for r in sample.records}
    with pytest.raises(SamplingError, match="label_set"):
        TYPE.study_sample(sick_raw, subset_rng(42, "SICK-E", "default"), params(size=40))


def test_odd_sizes_shortfalls_and_the_whole_source() -> None:
    pool = [LabelledPair(f"p{i:02d}", f"a{i}", f"b{i}", int(i < 3)) for i in range(20)]
    odd = sample_pairs(pool, 7, subset_rng(1, "t", "s"))
    assert sorted(odd.report.per_label.values()) == [3, 4]
    short = TYPE.study_sample(pool, subset_rng(1, "t", "s"), params(size=10))
    # only 3 positives: all of them, and 7 negatives fill up; the shortfall is reported
    assert short.report.per_label == {"0": 7, "1": 3}
    assert short.report.shortfalls == {"1": 2}
    assert any("short" in n for n in short.report.notes)
    too_many = sample_pairs(pool, 25, subset_rng(1, "t", "s"))
    assert too_many.report.sampled == 20 and "only 20 of 25" in too_many.report.notes[-1]
    with pytest.raises(SamplingError):
        sample_pairs(pool, 0, subset_rng(1, "t", "s"))
    with pytest.raises(SamplingError, match="resolved"):
        sample_pairs([*pool, LabelledPair("z", "a", "b", "DUP")], 4, subset_rng(1, "t", "s"))
    notes: list[str] = []
    shown, per_label = TYPE.study_take_all_details(
        pool, subset_rng(1, "t", "s"), params(sampling="all"), notes
    )
    assert shown == pool and per_label == {"0": 17, "1": 3} and notes == []
    named = [LabelledPair(f"n{i}", "a", "b", ["DUP", "OTHER", "SPAM"][i % 3]) for i in range(9)]
    shown, per_label = TYPE.study_take_all_details(
        named, subset_rng(1, "t", "s"), params(sampling="all", label_set=["DUP", "OTHER"]), notes
    )
    assert per_label == {"0": 3, "1": 3} and len(shown) == 6
    assert notes == ["3 pair(s) with labels outside label_set were dropped"]


def test_instances_keep_gold_apart(sick_raw: list[LabelledPair]) -> None:
    p = params(size=10, label_set=list(SICK_LABEL_SET))
    sample = TYPE.study_sample(sick_raw, subset_rng(7, "SICK-E", "default"), p)
    positions = SourcePositions.of(sick_raw)
    instances = TYPE.study_to_instances(sample.records, positions, "opaque")
    for inst, rec in zip(instances, sample.records, strict=True):
        assert inst.content == {"sentence1": rec.sentence1, "sentence2": rec.sentence2}
        assert inst.gold == rec.label and inst.source_id == rec.id
        assert sick_raw[inst.source_position].id == rec.id  # type: ignore[index]
        assert TYPE.ls_task_data("ref", inst.content).keys() == {
            "hume_ref",
            "sentence1",
            "sentence2",
        }
    with pytest.raises(SamplingError, match="not a labelled pair"):
        TYPE.study_to_instances(sick_raw[:1], positions, "opaque")  # label still a name
    assert TYPE.study_subset_config(p, sample.records, (), instances) == {
        "label_set": ["ENTAILMENT", "NEUTRAL", "CONTRADICTION"]
    }
    # the stored label set is not what the interface shows (Yes / No)
    assert TYPE.ls_labels(TYPE.study_subset_config(p, sample.records, (), instances)) is None


def test_spec_fields() -> None:
    assert set(TYPE.study_settings.model_fields) == {"label_set"}
    TYPE.study_check_fields(Fields(size=40))
    TYPE.study_check_fields(Fields(sampling="all"))
    with pytest.raises(ValueError, match="size: required"):
        TYPE.study_check_fields(Fields())
    with pytest.raises(ValueError, match="size: must be at least 2"):
        TYPE.study_check_fields(Fields(size=1))


def test_a_spec_with_a_sick_source_is_planned(tmp_path: Path) -> None:
    """``type: pair_classification`` in a spec: SICK as a local TSV (columns mapped, entailment
    against the rest by label_set) and a plain CSV, sampled and stored like any other type."""
    from hume_sync.store import Store, gold
    from hume_sync.study.spec import parse_spec
    from hume_sync.workflow.init import init_from_spec

    plain = tmp_path / "pairs.csv"
    plain.write_text(
        "sentence1,sentence2,label\n" + "".join(f"text {n},other {n},{n % 2}\n" for n in range(10)),
        encoding="utf-8",
    )
    spec = parse_spec(
        {
            "name": "pairs",
            "seed": 3,
            "tasks": [
                {
                    "name": "SICK-E",
                    "type": "pair_classification",
                    "source": {"path": str(SICK), "format": "tsv", "columns": dict(SICK_COLUMNS)},
                    "label_set": list(SICK_LABEL_SET),
                    "subsets": [{"language": "eng-Latn", "size": 12}],
                },
                {
                    "name": "Plain",
                    "type": "pair_classification",
                    "source": {"path": str(plain)},
                    "subsets": [{"language": "en", "size": 4}],
                },
            ],
        },
        base_dir=tmp_path,
    )
    init_from_spec(tmp_path / "study", spec)
    with Store.open(tmp_path / "study") as store:
        rows = {s.key: s for s in store.subsets()}
        assert {s.task_type for s in rows.values()} == {"pair_classification"}
        sick = rows["SICK-E/default"]
        assert sick.config["label_set"] == list(SICK_LABEL_SET)
        assert sick.config["report"]["per_label"] == {"0": 6, "1": 6}
        golds = gold(store, sick.key)
        assert sorted(golds.values()) == [0] * 6 + [1] * 6
        for inst in store.instances(sick.key):
            assert set(inst.content) == {"sentence1", "sentence2"}
        assert sorted(gold(store, "Plain/default").values()) == [0, 0, 1, 1]
    # SICK's judgments are names: without a label_set the spec does not say which one is 1
    unnamed = {
        "name": "unnamed",
        "tasks": [
            {
                "name": "SICK-E",
                "type": "pair_classification",
                "source": {"path": str(SICK), "format": "tsv", "columns": dict(SICK_COLUMNS)},
                "subsets": [{"language": "eng-Latn", "size": 12}],
            }
        ],
    }
    with pytest.raises(SamplingError, match="list the names to use in label_set"):
        init_from_spec(tmp_path / "unnamed", parse_spec(unnamed, base_dir=tmp_path))
