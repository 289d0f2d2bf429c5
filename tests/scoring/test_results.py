"""Reading and writing MTEB result files: the real results folder, malformed files, round trip."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hume_sync.report.model import known_types
from scoring.errors import InvalidInputError, ResultFileError
from scoring.results import read_result_file, read_results_dir, write_model_meta, write_result_file
from tests._paths import MTEB_RESULTS

TYPES = known_types()


@pytest.fixture(scope="module")
def collection():
    return read_results_dir(MTEB_RESULTS, TYPES)


def test_one_revision_per_model_and_annotators_apart(collection):
    by_kind = {}
    for r in collection.raters:
        by_kind.setdefault(r.kind, []).append(r)
    assert len(by_kind["human"]) == 1
    # Two aggregated human revisions exist; the newest by mteb_version (v1.0: 1.34.7 > 1.18.0) wins.
    assert by_kind["human"][0].revision == "v1.0"
    assert collection.skipped_revisions["baseline/Human"] == ["2025_09_25"]
    assert sorted(len(a.scores) for a in by_kind["annotator"]) == [4, 19, 19]
    assert all(a.name == "baseline/Human" for a in by_kind["annotator"])
    assert len(by_kind["model"]) == 19  # 13 paper models, 5 later ones, BM25
    assert not collection.problems


def test_subsets_matched_by_language_across_naming_conventions(collection):
    # The 2025_09_25 human files call the STS22 subsets en/ar/ru, v1.0 calls them eng/ara/rus;
    # both must land on the same subset ids as the model files.
    human = next(r for r in collection.raters if r.kind == "human")
    minilm = next(r for r in collection.raters if r.name.endswith("all-MiniLM-L6-v2"))
    for sid in ("HUMESTS22/ara", "HUMESTS22/eng", "HUMEWikipediaRerankingMultilingual/nob"):
        assert sid in human.scores and sid in minilm.scores
    old = read_results_dir(MTEB_RESULTS, TYPES, revisions={"baseline/Human": "2025_09_25"})
    old_human = next(r for r in old.raters if r.kind == "human")
    assert set(old_human.scores) == set(human.scores)
    assert old_human.scores["HUMESTS22/ara"].hf_subset == "ar"
    assert human.scores["HUMESTS22/ara"].hf_subset == "ara"
    assert old_human.scores["HUMESTS22/ara"].main_score == pytest.approx(
        human.scores["HUMESTS22/ara"].main_score
    )


def test_unknown_revision_is_a_clear_error():
    with pytest.raises(InvalidInputError, match="no revision 'nope'"):
        read_results_dir(MTEB_RESULTS, TYPES, revisions={"baseline/Human": "nope"})


def _copy_two_models(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    for name in ("baseline__Human", "sentence-transformers__all-MiniLM-L6-v2"):
        shutil.copytree(MTEB_RESULTS / name, root / name)
    for p in root.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return root


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "invalid JSON at line 1"),
        ("[1, 2]", "expected a JSON object"),
        ('{"task_name": "HUMESTS12", "scores": {"dev": []}}', "no 'test' split"),
        (
            '{"task_name": "HUMESTS12", "scores": {"test": [{"hf_subset": "default"}]}}',
            "main_score missing",
        ),
        ('{"scores": {}}', "missing 'task_name'"),
    ],
)
def test_malformed_file_skipped_or_fatal(tmp_path, content, reason):
    root = _copy_two_models(tmp_path)
    bad = (
        root
        / "sentence-transformers__all-MiniLM-L6-v2"
        / "8b3219a92973c328a8e22fadcfa821b5dc75636a"
    )
    (bad / "HUMESTS12.json").write_text(content)
    skipped = read_results_dir(root, TYPES)
    assert len(skipped.problems) == 1
    assert str(skipped.problems[0]).startswith(str(bad / "HUMESTS12.json"))
    assert reason in skipped.problems[0].reason
    minilm = next(r for r in skipped.raters if r.kind == "model")
    assert "HUMESTS12/eng" not in minilm.scores and "HUMESICK-R/eng" in minilm.scores
    with pytest.raises(ResultFileError, match=reason) as err:
        read_results_dir(root, TYPES, on_error="raise")
    assert err.value.path == str(bad / "HUMESTS12.json")


def test_write_then_read_round_trip_keeps_extra_blocks(tmp_path):
    agreement = {"metric": "fleiss_kappa", "value": 0.5, "n_annotators": 2}
    path = write_result_file(
        tmp_path,
        model_name="hume/humans",
        revision="study1",
        task_name="HUMEEmotionClassification",
        subsets=[
            {
                "main_score": 0.75,
                "accuracy": 0.75,
                "hf_subset": "default",
                "languages": ["eng-Latn"],
                "agreement": agreement,
            }
        ],
    )
    write_model_meta(tmp_path, model_name="hume/humans", revision="study1", languages=["eng-Latn"])
    assert path == tmp_path / "hume__humans" / "study1" / "HUMEEmotionClassification.json"
    raw = json.loads(path.read_text())
    assert raw["scores"]["test"][0]["agreement"] == agreement
    assert set(raw) == {
        "dataset_revision",
        "task_name",
        "mteb_version",
        "scores",
        "evaluation_time",
        "kg_co2_emissions",
    }
    (subset,) = read_result_file(path, TYPES)
    assert (subset.main_score, subset.task_type) == (0.75, "classification")
    coll = read_results_dir(tmp_path, TYPES)
    assert coll.raters[0].name == "hume/humans"
    assert list(coll.raters[0].scores) == ["HUMEEmotionClassification/eng"]


def test_write_rejects_incomplete_subset(tmp_path):
    with pytest.raises(InvalidInputError, match="missing hf_subset, languages"):
        write_result_file(
            tmp_path, model_name="a/b", revision="r", task_name="T", subsets=[{"main_score": 1.0}]
        )


def test_not_a_directory(tmp_path):
    with pytest.raises(InvalidInputError, match="not a directory"):
        read_results_dir(tmp_path / "missing", TYPES)
