"""Multilabel classification's study concern: the SIB-200 passages read from local files and an
mteb task read by name through its own class (labels named by the column's classes), seeded
sampling, instances that keep gold apart, the subset config (``none_choice`` where the data has
unlabelled texts), the spec's settings and their one-line errors, and a study planned into the
store with its train pool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hume_sync.errors import SamplingError, SourceError, SpecError
from hume_sync.study.records import TextItem
from hume_sync.study.sampling import SamplingParams, SourcePositions, subset_rng
from hume_sync.study.sources import load_mteb, load_records, provided_mteb_data
from hume_sync.study.spec import parse_spec
from hume_sync.task_types.multilabel_classification import MultilabelClassification
from hume_sync.task_types.multilabel_classification.records import encode_labels, labels_of
from hume_sync.task_types.multilabel_classification.settings import (
    MultilabelClassificationSettings,
)
from tests._paths import REPO_ROOT

TYPE = MultilabelClassification()
DATA = REPO_ROOT / "tests" / "data" / "multilabel" / "sib200"


def params(size: int | None = 10, **settings: Any) -> SamplingParams:
    return SamplingParams(size=size, settings=MultilabelClassificationSettings(**settings))


def spec(tmp_path: Path, **task: Any) -> dict[str, Any]:
    entry = {
        "name": "SIB200Multilabel",
        "type": "multilabel_classification",
        "source": {
            "path": str(DATA / "arb_Arab" / "test.jsonl"),
            "train_path": str(DATA / "arb_Arab" / "train.jsonl"),
        },
        "subsets": [{"name": "arb", "language": "arb-Arab", "size": 8}],
        **task,
    }
    return {"name": "multilabel", "seed": 3, "tasks": [entry]}


def test_the_passages_are_read_from_a_local_jsonl() -> None:
    records = load_records(TYPE, DATA / "eng_Latn" / "test.jsonl")
    assert len(records) == 102 and all(isinstance(r, TextItem) for r in records)
    first = records[0]
    assert first.id == "1+6" and first.text.startswith("Lead researchers say")
    assert labels_of(first) == ("health", "sports")
    arabic = load_records(TYPE, DATA / "arb_Arab" / "test.jsonl")
    assert [labels_of(r) for r in arabic] == [labels_of(r) for r in records]


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ('{"id": "1", "text": "a"}', "missing field 'labels'"),
        ('{"id": "1", "text": "a", "labels": "health"}', "labels must be a list"),
        ('{"id": "1", "text": "a", "labels": [""]}', "a label must be a non-empty string"),
        ('{"id": "1", "text": " ", "labels": []}', "'text' must be a non-empty string"),
        ('{"id": "1", "text": "a", "labels": ["None of these labels applies"]}', "reserved"),
    ],
)
def test_bad_rows_are_one_line_errors(tmp_path: Path, line: str, match: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(SourceError, match=match) as err:
        load_records(TYPE, path)
    assert "\n" not in str(err.value) and "bad.jsonl" in str(err.value)


def test_a_csv_is_refused_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("a,b\n", encoding="utf-8")
    with pytest.raises(SourceError, match="must be JSONL \\(an item's labels are a list\\)"):
        load_records(TYPE, path)


def test_an_mteb_task_is_read_by_name_through_its_own_class() -> None:
    """CEDRClassification (its label column a sequence of class ids), its splits in memory as
    mteb's ``load_data`` would give them; one text with no label."""
    datasets = pytest.importorskip("datasets")
    names = ["joy", "sadness", "surprise", "fear", "anger"]
    features = datasets.Features(
        {
            "text": datasets.Value("string"),
            "label": datasets.Sequence(datasets.ClassLabel(names=names)),
        }
    )

    def split(rows: list[tuple[str, list[int]]]) -> Any:
        return datasets.Dataset.from_dict(
            {"text": [t for t, _ in rows], "label": [labs for _, labs in rows]}, features=features
        )

    test = split([("Ура!", [0]), ("Мне страшно и грустно", [3, 1]), ("Обычный день", [])])
    train = split([("Злюсь", [4]), ("Ого", [2])])
    with provided_mteb_data({"CEDRClassification": {"default": {"test": test, "train": train}}}):
        data = load_mteb("CEDRClassification", kind=TYPE)
    assert [r.id for r in data.records] == ["0", "1", "2"]
    assert [labels_of(r) for r in data.records] == [("joy",), ("fear", "sadness"), ()]
    assert data.train is not None and [labels_of(r) for r in data.train] == [
        ("anger",),
        ("surprise",),
    ]
    config = TYPE.study_subset_config(params(), data.records, data.train, [])
    assert config == {"label_set": sorted(names), "none_choice": True}


def test_sampling_is_seeded_and_uniform_over_the_source() -> None:
    records = load_records(TYPE, DATA / "eng_Latn" / "test.jsonl")
    a = TYPE.study_sample(records, subset_rng(5, "t", "s"), params(20))
    b = TYPE.study_sample(records, subset_rng(5, "t", "s"), params(20))
    c = TYPE.study_sample(records, subset_rng(6, "t", "s"), params(20))
    assert [r.id for r in a.records] == [r.id for r in b.records] != [r.id for r in c.records]
    assert len({r.id for r in a.records}) == 20 and a.report.method == "simple-random"
    assert sum(a.report.per_label.values()) == sum(len(labels_of(r)) for r in a.records)
    big = TYPE.study_sample(records, subset_rng(5, "t", "s"), params(500))
    assert big.report.sampled == 102 and big.report.shortfalls == {"items": 398}
    kept = TYPE.study_sample(
        records, subset_rng(5, "t", "s"), params(500, label_set=["health", "sports", "travel"])
    )
    assert all(set(labels_of(r)) <= {"health", "sports", "travel"} for r in kept.records)
    assert any("outside label_set" in n for n in kept.report.notes)
    with pytest.raises(SamplingError, match="size must be > 0"):
        TYPE.study_sample(records, subset_rng(5, "t", "s"), params(None))


def test_instances_show_the_text_and_keep_the_labels_as_gold() -> None:
    records = [
        TextItem("p1", "A text.", encode_labels(["travel", "health"])),
        TextItem("p2", "Another.", encode_labels([])),
    ]
    [one, two] = TYPE.study_instances(records, SourcePositions.of(records))
    assert one.content == {"text": "A text."} and one.gold == ["health", "travel"]
    assert two.gold == [] and two.source_position == 1


def test_spec_settings_and_their_errors(tmp_path: Path) -> None:
    parsed = parse_spec(spec(tmp_path, samples_per_label=4), base_dir=tmp_path)
    settings = parsed.tasks[0].subsets[0].settings
    assert settings.samples_per_label == 4 and settings.label_set is None
    cases = [
        ({"samples_per_label": 0}, "samples_per_label: must be an integer ≥ 1"),
        ({"label_set": ["health"]}, "label_set: must be a list of at least two"),
        ({"label_set": ["health", "None of these labels applies"]}, "reserved"),
        ({"candidates": 3}, "candidates"),
    ]
    for change, match in cases:
        with pytest.raises(SpecError, match=match) as err:
            parse_spec(spec(tmp_path, **change), base_dir=tmp_path)
        assert "\n" not in str(err.value)


def test_a_spec_is_planned_into_the_store_with_its_train_pool(tmp_path: Path) -> None:
    from hume_sync.store import Store, gold
    from hume_sync.workflow.init import init_from_spec

    init_from_spec(tmp_path / "study", parse_spec(spec(tmp_path), base_dir=tmp_path))
    source = {json.loads(x)["id"]: json.loads(x) for x in (DATA / "arb_Arab" / "test.jsonl").open()}
    with Store.open(tmp_path / "study") as store:
        [sub] = store.subsets()
        assert sub.task_type == "multilabel_classification" and sub.samples_per_label == 8
        assert sub.config["none_choice"] is False
        assert sub.config["label_set"] == sorted(
            {lab for r in source.values() for lab in r["labels"]}
        )
        golds = gold(store, sub.key)
        instances = store.instances(sub.key)
        assert len(instances) == 8
        for inst in instances:
            assert golds[inst.hume_id] == source[inst.source_id]["labels"]
            assert "labels" not in json.dumps(inst.content)
        train = store.train_items(sub.key)
        assert len(train) == 350 and labels_of(train[0]) == tuple(
            json.loads((DATA / "arb_Arab" / "train.jsonl").open().readline())["labels"]
        )
