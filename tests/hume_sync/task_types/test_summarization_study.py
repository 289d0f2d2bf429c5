"""Summarization's study concern: the SICK-derived texts (``tests/data/summarization``) read
from a local JSONL and through mteb's own ``SummEvalSummarization.v2`` class (its split given in
memory, as ``load_data`` would); seeded sampling; summaries shuffled per text under opaque ids;
gold kept apart; the spec's setting and its errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hume_sync.errors import SourceError, SpecError
from hume_sync.study.sampling import SamplingParams, SourcePositions, subset_rng
from hume_sync.study.sources import load_mteb, load_records, provided_mteb_data
from hume_sync.study.spec import parse_spec
from hume_sync.task_types.summarization import Summarization
from hume_sync.task_types.summarization.settings import SummarizationSettings
from hume_sync.task_types.summarization.study import SummarizedText

TYPE = Summarization()
SICK = Path(__file__).resolve().parents[2] / "data" / "summarization" / "sick" / "texts.jsonl"


def rows(n: int | None = None) -> list[dict[str, Any]]:
    out = [json.loads(line) for line in SICK.read_text(encoding="utf-8").splitlines()]
    return out[:n] if n is not None else out


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def params(size: int | None = 8, sampling: str = "sample", **settings: Any) -> SamplingParams:
    return SamplingParams(sampling, size, SummarizationSettings(**settings))


def spec(tmp_path: Path, **task: Any) -> dict[str, Any]:
    entry = {
        "name": "SickSumm",
        "type": "summarization",
        "source": {"path": str(write(tmp_path / "texts.jsonl", rows(40)))},
        "subsets": [{"name": "default", "language": "eng-Latn", "size": 6}],
        **task,
    }
    return {"name": "summ", "seed": 7, "tasks": [entry]}


# ------------------------------------------------------------------------------- reading


def test_the_derived_sick_texts_are_read_from_a_local_jsonl(tmp_path: Path) -> None:
    got = load_records(TYPE, SICK)
    assert len(got) == 301  # every sentence_A with at least three partners
    first = got[0]
    assert first.id == "sick-13" and first.text == "Two dogs are wrestling and hugging"
    assert first.references == (first.text,)
    assert [s.score for s in first.summaries] == [3.3, 2.9, 2.3]  # SICK's relatedness, in order
    assert [s.id for s in first.summaries] == ["0", "1", "2"]
    assert all(len(t.summaries) >= 3 for t in got)


@pytest.mark.parametrize(
    ("record", "match"),
    [
        ({"id": "1", "text": "t", "human_summaries": ["r"]}, "'machine_summaries' must be"),
        (
            {"id": "1", "text": "t", "human_summaries": ["r"], "machine_summaries": ["a", "b"],
             "relevance": [1]},
            "'relevance' must be a list of 2 scores",
        ),
        (
            {"id": "1", "text": "t", "human_summaries": ["r"], "machine_summaries": ["a", "b"],
             "relevance": [1, "x"]},
            r"relevance\[1\] must be a number",
        ),
        (
            {"id": "1", "text": "t", "human_summaries": [], "machine_summaries": ["a", "b"],
             "relevance": [1, 2]},
            "'human_summaries' must be a non-empty list",
        ),
        (
            {"id": "1", "text": "t", "human_summaries": ["r"], "machine_summaries": ["a"],
             "relevance": [1]},
            "at least two machine summaries",
        ),
        (
            {"id": "1", "text": "t", "human_summaries": ["r"], "machine_summaries": ["a", "a"],
             "relevance": [1, 2]},
            "same machine summary twice",
        ),
    ],
)  # fmt: skip
def test_bad_rows_are_one_line_errors(tmp_path: Path, record: dict[str, Any], match: str) -> None:
    path = write(tmp_path / "bad.jsonl", [record])
    with pytest.raises(SourceError, match=match) as err:
        load_records(TYPE, path)
    assert "\n" not in str(err.value) and "bad.jsonl" in str(err.value)


def test_a_csv_source_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "texts.csv"
    path.write_text("a,b\n", encoding="utf-8")
    with pytest.raises(SourceError, match="summarization sources must be JSONL") as err:
        load_records(TYPE, path)
    assert "\n" not in str(err.value)


def test_an_mteb_task_is_read_by_name_through_its_own_class() -> None:
    """SummEvalSummarization.v2's ``test`` split given in memory, in mteb's columns."""
    datasets = pytest.importorskip("datasets")
    sample = rows(10)
    columns = ("text", "human_summaries", "machine_summaries", "relevance")
    split = datasets.Dataset.from_dict({c: [r[c] for r in sample] for c in columns})
    with provided_mteb_data({"SummEvalSummarization.v2": {"test": split}}):
        data = load_mteb("SummEvalSummarization.v2", "default", kind=TYPE)
    assert data.origin["split"] == "test"
    assert [r.id for r in data.records] == [str(n) for n in range(10)]  # row positions
    assert [r.text for r in data.records] == [r["text"] for r in sample]
    assert [[s.score for s in r.summaries] for r in data.records] == [
        r["relevance"] for r in sample
    ]


def test_a_v1_task_scored_by_mteb_s_deprecated_evaluator_is_refused() -> None:
    datasets = pytest.importorskip("datasets")
    sample = rows(4)
    columns = ("text", "human_summaries", "machine_summaries", "relevance")
    split = datasets.Dataset.from_dict({c: [r[c] for r in sample] for c in columns})
    with (
        provided_mteb_data({"SummEval": {"test": split}}),
        pytest.raises(SourceError, match=r"deprecated evaluator; read SummEvalSummarization\.v2"),
    ):
        load_mteb("SummEval", "default", kind=TYPE)


def test_hume_sync_types_names_the_type_for_mteb_s_summarization() -> None:
    pytest.importorskip("mteb")
    from hume_sync.workflow.families import families

    rows_ = {f.mteb_type: f for f in families()}
    assert rows_["Summarization"].hume_type == "summarization"
    assert rows_["Summarization"].tasks >= 2  # SummEval and SummEvalFr (v2)


# ------------------------------------------------------------------------------- sampling


def test_sampling_is_seeded_and_shuffles_each_texts_summaries() -> None:
    records = load_records(TYPE, SICK)
    first = TYPE.study_sample_subset(records, subset_rng(3, "T", "s"), params())
    again = TYPE.study_sample_subset(records, subset_rng(3, "T", "s"), params())
    other = TYPE.study_sample_subset(records, subset_rng(4, "T", "s"), params())
    ids = [r.id for r in first.records]
    assert ids == [r.id for r in again.records] and ids != [r.id for r in other.records]
    assert first.report.sampled == 8 and first.report.available == 301
    by_id = {r.id: r for r in records}
    moved = 0
    for r in first.records:
        assert isinstance(r, SummarizedText)
        source = by_id[r.id]
        assert sorted(r.summaries, key=lambda s: int(s.id)) == list(source.summaries)
        moved += [s.id for s in r.summaries] != [s.id for s in source.summaries]
    assert moved > 0  # the summaries are shown in a drawn order, not the source's


def test_instances_name_summaries_opaquely_and_keep_gold_apart() -> None:
    records = load_records(TYPE, SICK)[:5]
    sample = TYPE.study_sample_subset(
        records, subset_rng(1, "T", "s"), params(size=None, sampling="all")
    )
    assert sample.report.method == "all"
    instances = TYPE.study_instances(sample.records, SourcePositions.of(records))
    for inst in instances:
        source = next(r for r in records if r.id == inst.source_id)
        shown = inst.content["candidates"]
        assert [s["id"] for s in shown] == [str(n) for n in range(1, len(shown) + 1)]
        assert "score" not in json.dumps(inst.content) and "relevance" not in inst.content
        by_text = {s.text: s for s in source.summaries}
        for s in shown:
            assert inst.gold[s["id"]] == by_text[s["text"]].score
        refs = {ref.item_id: ref for ref in inst.items}
        assert all(refs[s["id"]].source_id == by_text[s["text"]].id for s in shown)
        assert inst.content["references"] == [source.text]


# ------------------------------------------------------------------------------- the spec


def test_the_setting_and_its_errors(tmp_path: Path) -> None:
    parsed = parse_spec(spec(tmp_path, show_references=True), base_dir=tmp_path)
    assert parsed.tasks[0].subsets[0].settings.show_references is True
    assert parse_spec(spec(tmp_path), base_dir=tmp_path).tasks[0].subsets[0].settings == (
        SummarizationSettings(show_references=False)
    )
    for change, match in [
        ({"show_references": "yes"}, "show_references"),
        ({"target_language": "fra-Latn"}, "not used by summarization tasks"),
    ]:
        with pytest.raises(SpecError, match=match) as err:
            parse_spec(spec(tmp_path, **change), base_dir=tmp_path)
        assert "\n" not in str(err.value)


def test_a_spec_is_planned_into_the_store(tmp_path: Path) -> None:
    from hume_sync.store import Store, gold
    from hume_sync.workflow.init import init_from_spec

    init_from_spec(tmp_path / "study", parse_spec(spec(tmp_path), base_dir=tmp_path))
    with Store.open(tmp_path / "study") as store:
        [sub] = store.subsets()
        assert sub.task_type == "summarization"
        assert sub.config["show_references"] is False
        golds = gold(store, sub.key)
        instances = store.instances(sub.key)
        assert len(instances) == 6
        for inst in instances:
            ids = [s["id"] for s in inst.content["candidates"]]
            assert sorted(golds[inst.hume_id]) == sorted(ids)
