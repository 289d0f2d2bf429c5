"""The HUME(v1) leaderboard on the real MTEB result files: the paper's headline numbers."""

from __future__ import annotations

import csv
import io
import json

import pytest

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.errors import UnknownTaskTypeError
from hume_sync.report.model import known_types
from scoring.comparison import catalogue, rank_raters, select_subsets
from scoring.results import read_results_dir
from tests._paths import MTEB_RESULTS

PAPER_MODELS = {
    "gte-Qwen2-1.5B-instruct",
    "jasper_en_vision_language_v1",
    "stella_en_1.5B_v5",
    "Qwen3-Embedding-0.6B",
    "SFR-Embedding-Mistral",
    "embeddinggemma-300m",
    "e5-mistral-7b-instruct",
    "multilingual-e5-small",
    "multilingual-e5-base",
    "multilingual-e5-large",
    "mxbai-embed-large-v1",
    "all-MiniLM-L6-v2",
    "all-mpnet-base-v2",
}


def run_json(capsys, *args):
    assert main(["leaderboard", str(MTEB_RESULTS), "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_headline_humans_fourth_at_77_64(capsys):
    board = run_json(capsys)
    assert board["n_subsets"] == 26
    assert not any("fra" in s or s.endswith("/fra") for s in board["subsets"])
    rows = {r["model"]: r for r in board["rows"]}
    human = rows["baseline/Human"]
    assert round(100 * human["mean"], 2) == 77.64
    assert human["rank"] == 4 and human["complete"] and human["n_subsets"] == 26
    top = next(r for r in board["rows"] if r["rank"] == 1)
    assert top["model"] == "NovaSearch/jasper_en_vision_language_v1"
    assert round(100 * top["mean"], 2) == 80.14
    hvm = board["human_vs_models"]
    assert (hvm["wins_vs_best"], hvm["wins_vs_median"], hvm["n_subsets"]) == (4, 16, 26)
    assert round(100 * hvm["share_vs_best"], 1) == 15.4
    assert round(100 * hvm["share_vs_median"], 1) == 61.5


def test_borda_rank_against_average_ranks_per_subset(capsys):
    """Borda points computed apart: on each subset scipy's average rank (ascending) minus one
    is the number of ranked raters beaten plus ½ per tie; summed, then ranked high to low."""
    from scipy.stats import rankdata

    board = run_json(capsys)
    ranked = [r for r in board["rows"] if r["rank"] is not None]
    coll = read_results_dir(MTEB_RESULTS, [task_types.get(n) for n in task_types.names()])
    by_name = {r.label: r for r in coll.raters}
    points = dict.fromkeys((r["model"] for r in ranked), 0.0)
    for sid in board["subsets"]:
        values = [by_name[m].scores[sid].main_score for m in points]
        for m, rank in zip(points, rankdata(values, method="average"), strict=True):
            points[m] += float(rank) - 1
    for r in ranked:
        assert r["borda"] == pytest.approx(points[r["model"]])
        assert r["borda_rank"] == 1 + sum(v > points[r["model"]] + 1e-9 for v in points.values())
    human = next(r for r in ranked if r["model"] == "baseline/Human")
    assert (human["rank"], human["borda_rank"]) == (4, 9)


def test_incomplete_models_and_annotators_listed_not_ranked(capsys):
    rows = run_json(capsys)["rows"]
    bm25 = next(r for r in rows if r["model"] == "mteb/baseline-bm25s")
    assert bm25["rank"] is None and not bm25["complete"] and bm25["n_subsets"] == 6
    annotators = [r for r in rows if r["kind"] == "annotator"]
    assert len(annotators) == 3 and all(r["rank"] is None for r in annotators)
    ranks = sorted(r["rank"] for r in rows if r["rank"] is not None)
    assert ranks == list(range(1, 20))


def test_english_only_per_type_matches_paper(capsys):
    board = run_json(capsys, "--languages", "eng")
    assert board["n_subsets"] == 16
    human = next(r for r in board["rows"] if r["kind"] == "human")
    got = {k: round(100 * v, 1) for k, v in human["by_type"].items()}
    assert got == {"classification": 70.3, "clustering": 67.4, "reranking": 87.2, "sts": 83.1}
    assert human["by_language"] == {"eng": pytest.approx(human["mean"])}


def test_paper_models_only_keep_the_human_rank():
    coll = read_results_dir(MTEB_RESULTS, known_types())
    raters = [r for r in coll.raters if r.kind == "human" or r.name.split("/")[-1] in PAPER_MODELS]
    assert len(raters) == 14
    rows = rank_raters(raters, select_subsets(catalogue(coll.raters)))
    human = next(r for r in rows if r.rater.kind == "human")
    assert human.rank == 4 and len([r for r in rows if r.rank]) == 14


def test_per_language_means_are_subset_means(capsys):
    board = run_json(capsys)
    human = next(r for r in board["rows"] if r["kind"] == "human")
    assert set(human["by_language"]) == {"eng", "ara", "rus", "dan", "nob"}
    ara = run_json(capsys, "--languages", "ara")
    ara_human = next(r for r in ara["rows"] if r["kind"] == "human")
    assert ara_human["mean"] == pytest.approx(human["by_language"]["ara"])
    assert ara["n_subsets"] == 3  # MultilingualSentiment, SIB200, STS22


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv"])
def test_text_formats(capsys, fmt):
    assert main(["leaderboard", str(MTEB_RESULTS), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "baseline/Human" in out and "77.64" in out
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(out)))
        assert rows[0][:4] == ["rank", "model", "kind", "mean %"]
        human = next(r for r in rows if r[1] == "baseline/Human")
        assert human[0] == "4" and human[3] == "77.64"
    if fmt == "markdown":
        assert out.splitlines()[1].startswith("|---|")


def test_unknown_language_and_missing_dir_are_one_line_errors(capsys, tmp_path):
    assert main(["leaderboard", str(MTEB_RESULTS), "--languages", "xyz"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no subset in language(s) xyz" in err
    assert main(["leaderboard", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not a directory" in err
    assert main(["leaderboard", str(MTEB_RESULTS), "--revision", "oops"]) == 2
    assert "MODEL=REVISION" in capsys.readouterr().err


def test_malformed_file_warns_with_path_or_fails_with_strict(capsys, tmp_path):
    import shutil

    root = tmp_path / "r"
    shutil.copytree(MTEB_RESULTS / "baseline__Human", root / "baseline__Human")
    shutil.copytree(
        MTEB_RESULTS / "intfloat__multilingual-e5-small", root / "intfloat__multilingual-e5-small"
    )
    for p in root.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    bad = next((root / "intfloat__multilingual-e5-small").glob("*/HUMESTS12.json"))
    bad.write_text("{")
    assert main(["leaderboard", str(root), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert f"warning: skipped {bad}: invalid JSON" in captured.err
    assert "Traceback" not in captured.err
    data = json.loads(captured.out)
    e5 = next(r for r in data["rows"] if r["model"].endswith("e5-small"))
    assert e5["n_subsets"] == 25 and e5["rank"] is None
    assert main(["leaderboard", str(root), "--strict"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"hume-sync leaderboard: error: {bad}: invalid JSON at line 1 column 2"


def test_select_subsets_by_task_type():
    coll = read_results_dir(MTEB_RESULTS, known_types())
    subsets = select_subsets(catalogue(coll.raters), task_types=[task_types.get("sts")])
    assert len(subsets) == 6 and {s.task_type for s in subsets.values()} == {"sts"}
    # A type name is checked where the type object comes from: the registry.
    with pytest.raises(UnknownTaskTypeError, match="unknown task type 'image_captioning'"):
        task_types.get("image_captioning")


def test_low_agreement_flags_from_published_blocks(capsys):
    # The v1.0 human files carry no agreement blocks; the 2025_09_25 ones do.
    board = run_json(capsys, "--revision", "baseline/Human=2025_09_25")
    subsets = {s["subset"]: s for s in board["human_vs_models"]["subsets"]}
    flagged = {k for k, s in subsets.items() if s["low_agreement"]}
    assert flagged == {
        "HUMEArxivClusteringP2P/eng",  # ARI ≈ 0 (paper: "ArXiv ARI ≈ 0")
        "HUMEEmotionClassification/eng",  # Fleiss κ 0.386 (paper: "Emotion κ 0.39")
        "HUMEMultilingualSentimentClassification/eng",
        "HUMESIB200ClusteringS2S/eng",
        "HUMESTSBenchmark/eng",  # ρ 0.579 < 0.6
    }
    emotion = subsets["HUMEEmotionClassification/eng"]["agreement"]
    assert emotion["method"] == "fleiss_kappa" and emotion["band"] == "fair"
    assert round(emotion["value"], 4) == 0.3862
    # Single-annotator subsets have no agreement at all, never a made-up one.
    assert subsets["HUMESTS22/rus"]["agreement"] is None
    assert main(["leaderboard", str(MTEB_RESULTS), "--revision", "baseline/Human=2025_09_25"]) == 0
    out = capsys.readouterr().out
    assert (
        "Low human agreement" in out and "HUMEEmotionClassification/eng (fleiss_kappa 0.39)" in out
    )
