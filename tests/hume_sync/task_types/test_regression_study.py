"""Regression's study concern: the SICK-derived set (tests/data/regression/sick, a text and its
relatedness) read from local files and through mteb's own task class (RuSciBench, its splits
given in memory); seeded sampling stratified by value quantile; the scale (bounds, step) taken
from the data; instances that keep gold out of what annotators see; the spec's settings and
their errors; a spec planned into the store with its train pool."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hume_sync.errors import SamplingError, SourceError, SpecError
from hume_sync.study.sampling import SamplingParams, SourcePositions, subset_rng
from hume_sync.study.sources import load_mteb, load_records, provided_mteb_data
from hume_sync.study.spec import parse_spec
from hume_sync.task_types.regression import Regression
from hume_sync.task_types.regression.settings import RegressionSettings
from hume_sync.task_types.regression.study import (
    ValuedText,
    data_step,
    proportional_quota,
    quantile_bins,
)
from tests._paths import REPO_ROOT

TYPE = Regression()
SICK = REPO_ROOT / "tests" / "data" / "regression" / "sick"


def rows(name: str = "test") -> list[dict[str, Any]]:
    text = (SICK / f"{name}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


def records() -> list[ValuedText]:
    return load_records(TYPE, SICK / "test.jsonl")  # type: ignore[return-value]


def params(size: int | None = 20, **settings: Any) -> SamplingParams:
    return SamplingParams(size=size, settings=RegressionSettings(**settings))


def spec(**task: Any) -> dict[str, Any]:
    entry = {
        "name": "SICKRelatedness",
        "type": "regression",
        "source": {"path": str(SICK / "test.jsonl"), "train_path": str(SICK / "train.jsonl")},
        "subsets": [{"name": "en", "language": "eng-Latn", "size": 12}],
        **task,
    }
    return {"name": "regression", "seed": 5, "tasks": [entry]}


# ------------------------------------------------------------------------------- reading


def test_the_sick_set_is_read_from_jsonl_and_a_headerless_tsv(tmp_path: Path) -> None:
    got = records()
    assert len(got) == 120 and got[0].id == "6" and got[0].value == 3.3 and got[0].label == "3.3"
    assert " ⟷ " in got[0].text
    tsv = tmp_path / "r.tsv"
    lines = "".join(f"{r.text}\t{r.label}\t{r.id}\n" for r in got[:5])
    tsv.write_text(lines, encoding="utf-8")  # no header: the fields in FIELDS' order
    assert (
        load_records(TYPE, tsv, header=False, columns={"text": 0, "value": 1, "id": 2}) == got[:5]
    )


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ('{"id": "a", "text": "x"}', "missing field 'value'"),
        ('{"id": "a", "text": "x", "value": "many"}', "'value' must be a number"),
        ('{"id": "a", "text": "x", "value": true}', "'value' must be a number"),
        ('{"id": "a", "text": "x", "value": "nan"}', "must be a finite number"),
        ('{"id": "a", "text": " ", "value": 2}', "'text' is empty"),
    ],
)
def test_bad_rows_are_one_line_errors(tmp_path: Path, line: str, match: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(SourceError, match=match) as err:
        load_records(TYPE, path)
    assert "\n" not in str(err.value)


def test_an_mteb_task_is_read_by_name_through_its_own_class() -> None:
    """RuSciBench's ``yearpubl_en`` subset, its splits given in memory as mteb's ``load_data``
    would (a year is an integer there): ids are row positions, the train split the pool."""
    datasets = pytest.importorskip("datasets")
    test = datasets.Dataset.from_dict({"text": ["a", "b", "c"], "value": [2011, 2015, 2009]})
    train = datasets.Dataset.from_dict({"text": ["d", "e"], "value": [2010, 2020]})
    data = {"yearpubl_en": {"test": test, "train": train}}
    with provided_mteb_data({"RuSciBenchYearPublRegression": data}):
        got = load_mteb("RuSciBenchYearPublRegression", "yearpubl_en", kind=TYPE)
    assert [(r.id, r.text, r.value, r.label) for r in got.records] == [
        ("0", "a", 2011.0, "2011"),
        ("1", "b", 2015.0, "2015"),
        ("2", "c", 2009.0, "2009"),
    ]
    assert got.train is not None and [(t.text, t.label) for t in got.train] == [
        ("d", "2010"),
        ("e", "2020"),
    ]
    with pytest.raises(SourceError, match="no column 'value'"):
        TYPE.study_mteb_records(object(), {"text": ["a"]}, None, "mteb:x")


# ------------------------------------------------------------------------------- the scale


def test_the_step_is_the_precision_most_values_are_written_with() -> None:
    def step(*labels: str) -> float:
        return data_step([ValuedText(id=str(n), text="t", label=x) for n, x in enumerate(labels)])

    assert step("2015", "2009", "2020") == 1.0
    assert step("3.3", "4.9", "3.625", "1") == pytest.approx(0.1)  # SICK: a few in thousandths
    assert step("0.25", "0.75", "0.5", "1e-3") == pytest.approx(0.01)
    assert step("0.5", "0.25") == pytest.approx(0.01)  # a tie goes to the finer
    assert data_step(records()) == pytest.approx(0.1)


# ------------------------------------------------------------------------------- sampling


def test_quantile_bins_and_proportional_quotas() -> None:
    # ten distinct values in five quantile bins of two; repeated values share a bin
    assert quantile_bins([float(v) for v in range(10)], 5) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert len(set(quantile_bins([1.0] * 6 + [2.0, 3.0], 4))) <= 3
    quota = proportional_quota({0: 50, 1: 30, 2: 20}, 10, np.random.default_rng(0))
    assert quota == {0: 5, 1: 3, 2: 2}
    quota = proportional_quota({0: 1, 1: 1, 2: 1}, 2, np.random.default_rng(0))
    assert sorted(quota.values()) == [0, 1, 1]


def test_sampling_is_seeded_and_keeps_the_spread_of_values() -> None:
    recs = records()
    first = TYPE.study_sample(recs, np.random.default_rng(3), params(40))
    again = TYPE.study_sample(recs, np.random.default_rng(3), params(40))
    other = TYPE.study_sample(recs, np.random.default_rng(4), params(40))
    assert [r.id for r in first.records] == [r.id for r in again.records]
    assert {r.id for r in first.records} != {r.id for r in other.records}
    assert first.report.sampled == 40 and len({r.id for r in first.records}) == 40
    # each value decile of the source gives a third of its texts (120 → 40)
    bins = quantile_bins([r.value for r in recs], 10)
    of = dict(zip([r.id for r in recs], bins, strict=True))
    drawn = Counter(of[r.id] for r in first.records)
    available = Counter(bins)
    for b, n in available.items():
        assert abs(drawn[b] - n / 3) < 1, (b, drawn[b], n)
    # presented in a drawn order, not the source's
    positions = [int(r.id) for r in first.records]
    assert positions != sorted(positions)


def test_value_range_drops_texts_outside_it_and_says_so() -> None:
    sample = TYPE.study_sample(records(), np.random.default_rng(0), params(10, value_range=[3, 5]))
    assert all(3 <= r.value <= 5 for r in sample.records)
    assert any("outside value_range" in n for n in sample.report.notes)
    with pytest.raises(SamplingError, match="at least two texts"):
        TYPE.study_sample(records(), np.random.default_rng(0), params(10, value_range=[0, 0.5]))


def test_instances_show_the_text_and_keep_gold_apart() -> None:
    recs = records()[:3]
    insts = TYPE.study_instances(recs, SourcePositions.of(recs))
    assert [i.content for i in insts] == [{"text": r.text} for r in recs]
    assert [i.gold for i in insts] == [r.value for r in recs]
    assert [i.source_position for i in insts] == [0, 1, 2]


# ------------------------------------------------------------------------------- the spec


def test_spec_settings_and_their_errors(tmp_path: Path) -> None:
    parsed = parse_spec(spec(value_range=[1, 5], step=0.5, train_samples=100), base_dir=tmp_path)
    settings = parsed.tasks[0].subsets[0].settings
    assert settings.value_range == (1.0, 5.0) and settings.step == 0.5
    assert (settings.train_samples, settings.bins) == (100, 10)
    cases = [
        ({"step": 0}, "step: must be a number > 0"),
        ({"step": 9, "value_range": [1, 5]}, "step: must be at most the range's width 4"),
        ({"value_range": [5, 1]}, "value_range: must be \\[low, high\\]"),
        ({"train_samples": 0}, "train_samples: must be an integer ≥ 1"),
        ({"label_set": ["a", "b"]}, "label_set"),
    ]
    for change, match in cases:
        with pytest.raises(SpecError, match=match) as err:
            parse_spec(spec(**change), base_dir=tmp_path)
        assert "\n" not in str(err.value)


def test_a_spec_is_planned_into_the_store_with_the_datas_scale(tmp_path: Path) -> None:
    from hume_sync.store import Store, gold
    from hume_sync.workflow.init import init_from_spec

    init_from_spec(tmp_path / "study", parse_spec(spec(), base_dir=tmp_path))
    with Store.open(tmp_path / "study") as store:
        [sub] = store.subsets()
        assert sub.task_type == "regression"
        # the bounds of every value of the source and its train pool, not of the sample
        values = [r["value"] for r in (*rows("test"), *rows("train"))]
        assert sub.config["value_range"] == [min(values), max(values)] == [1.0, 5.0]
        assert sub.config["step"] == pytest.approx(0.1)
        assert sub.config["train_samples"] == 2048
        instances = store.instances(sub.key)
        golds = gold(store, sub.key)
        assert len(instances) == 12
        by_id = {r["id"]: r for r in rows("test")}
        for inst in instances:
            assert inst.content == {"text": by_id[inst.source_id]["text"]}
            assert golds[inst.hume_id] == by_id[inst.source_id]["value"]
        train = store.train_items(sub.key)
        assert [t.label for t in train[:3]] == [str(r["value"]) for r in rows("train")[:3]]
        assert len(train) == 400
    rng = subset_rng(5, "SICKRelatedness", "en")
    assert isinstance(rng, np.random.Generator)
