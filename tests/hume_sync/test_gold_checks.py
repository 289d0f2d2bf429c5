"""Issue 11 item 6: spec settings that contradict the data are refused at `init`, naming the
spec file, the task, the field, the value and the data file; nothing is written, and `init`
with the spec fixed goes on from there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from hume_sync.cli import main
from hume_sync.store import Store
from tests._paths import REPO_ROOT, SOURCE_DATA

DEMO = REPO_ROOT / "hume_sync" / "demo_data"


def init(tmp_path: Path, task: dict[str, Any]) -> int:
    tmp_path.mkdir(parents=True, exist_ok=True)
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"name": "checks", "tasks": [task]}), encoding="utf-8")
    return main(["init", str(tmp_path / "study"), "--spec", str(spec)])


def sentiment(**extra: Any) -> dict[str, Any]:
    return {
        "name": "Sentiment",
        "type": "classification",
        "source": {"path": str(DEMO / "sentiment_en_test.jsonl")},
        "subsets": [{"name": "en", "language": "eng-Latn", "size": 9}],
        **extra,
    }


def assert_nothing_sampled(tmp_path: Path) -> None:
    with Store.open(tmp_path / "study") as store:
        assert store.subsets() == [] and "spec_hash" not in store.meta()


def error_line(capsys: pytest.CaptureFixture[str]) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_label_set_without_a_gold_label_is_refused(tmp_path, capsys):
    """`sampling: all` keeps the 'neutral' items, which no annotator could label right."""
    assert init(tmp_path, sentiment(sampling="all", label_set=["positive", "negative"])) == 2
    line = error_line(capsys)
    assert f"{tmp_path / 'spec.yaml'}: task 'Sentiment': subsets[en].label_set:" in line
    assert "lacks gold label(s) 'neutral'" in line
    assert str(DEMO / "sentiment_en_test.jsonl") in line
    assert_nothing_sampled(tmp_path)
    assert init(tmp_path, sentiment(sampling="all")) == 0  # fixed: init goes on


def test_label_set_sharing_no_label_with_the_data_is_refused(tmp_path, capsys):
    assert init(tmp_path, sentiment(label_set=["pos", "neg"])) == 2
    line = error_line(capsys)
    assert (
        "task 'Sentiment': subsets[en].label_set: label_set ['pos', 'neg'] shares no label" in line
    )
    assert "'negative', 'neutral', 'positive'" in line


def test_clustering_label_set_without_the_gold_labels_is_refused(tmp_path, capsys):
    task = {
        "name": "Topics",
        "type": "clustering",
        "source": {"path": str(DEMO / "topics_en.jsonl")},
        "labels": 3,
        "sampling": "all",
        "label_set": ["astronomy", "cooking", "chess"],
        "subsets": [{"name": "en", "language": "eng-Latn", "items_per_label": 3}],
    }
    assert init(tmp_path, task) == 2
    assert "lacks gold label(s) 'football'" in error_line(capsys)


def test_sts_gold_outside_the_score_range_is_refused(tmp_path, capsys):
    task = {
        "name": "STSB",
        "type": "sts",
        "source": {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False},
        "score_range": [0, 4],
        "subsets": [{"language": "eng-Latn", "size": 20}],
    }
    assert init(tmp_path, task) == 2
    line = error_line(capsys)
    assert "task 'STSB': subsets[default].score_range: gold score 5 of pair" in line
    assert f"in {SOURCE_DATA / 'stsb-en-test.csv'} is outside score_range [0, 4]" in line
    assert "more pair(s)" in line
    assert_nothing_sampled(tmp_path)


def test_specs_that_fit_their_data_still_initialise(tmp_path):
    assert init(tmp_path / "a", sentiment(label_set=["negative", "neutral", "positive"])) == 0
    assert init(tmp_path / "b", sentiment(sampling="all")) == 0
    sts = {
        "name": "STSB",
        "type": "sts",
        "source": {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False},
        "score_range": [0, 5],
        "subsets": [{"language": "eng-Latn", "size": 20}],
    }
    assert init(tmp_path / "c", sts) == 0
