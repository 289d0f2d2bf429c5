"""Issue 11 item 9: malformed result files are reported with their path and skipped, and fatal
with --strict: a main_score that is not finite or outside its type's range, and a file whose
task_name is not its file name (which would silently cost the model its rank)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hume_sync.cli import main
from tests._paths import MTEB_RESULTS

MINILM = "sentence-transformers__all-MiniLM-L6-v2"


def results_with(tmp_path: Path, task_file: str, change) -> tuple[Path, Path]:
    """The human results and two copies of all-MiniLM-L6-v2, one with ``task_file`` changed."""
    root = tmp_path / "results"
    shutil.copytree(MTEB_RESULTS / "baseline__Human", root / "baseline__Human")
    shutil.copytree(MTEB_RESULTS / MINILM, root / MINILM)
    shutil.copytree(MTEB_RESULTS / MINILM, root / "broken__model")
    for meta in (root / "broken__model").glob("*/model_meta.json"):
        meta.write_text(json.dumps({**json.loads(meta.read_text()), "name": "broken/model"}))
    (path,) = (root / "broken__model").glob(f"*/{task_file}")
    data = json.loads(path.read_text())
    new_path = change(path, data) or path
    return root, new_path


def set_main_score(value):
    def change(path: Path, data: dict) -> None:
        data["scores"]["test"][0]["main_score"] = value
        path.write_text(json.dumps(data))

    return change


def leaderboard(capsys, root: Path) -> tuple[dict, list[str]]:
    assert main(["leaderboard", str(root), "--format", "json"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err.strip().splitlines()


@pytest.mark.parametrize(
    ("task_file", "value", "reason"),
    [
        (
            "HUMEEmotionClassification.json",
            1e308,
            "main_score 1e+308 is outside [0, 1], the range of a classification score",
        ),
        (
            "HUMEEmotionClassification.json",
            -0.25,
            "main_score -0.25 is outside [0, 1], the range of a classification score",
        ),
        (
            "HUMEArxivClusteringP2P.json",
            67.4,
            "main_score 67.4 is outside [0, 1], the range of a clustering score (a percentage? "
            "MTEB stores fractions)",
        ),
        ("HUMESTS12.json", -1.5, "main_score -1.5 is outside [-1, 1], the range of a sts score"),
        ("HUMESTS12.json", float("inf"), "main_score is inf, not a finite number"),
    ],
)
def test_main_score_out_of_range_is_reported_and_strict_is_fatal(
    tmp_path, capsys, task_file, value, reason
):
    root, bad = results_with(tmp_path, task_file, set_main_score(value))
    board, err = leaderboard(capsys, root)
    assert err == [f"warning: skipped {bad}: scores.test[0].{reason}"]
    broken = next(r for r in board["rows"] if r["model"] == "broken/model")
    assert broken["rank"] is None and broken["n_subsets"] < 26  # not ranked, let alone first
    assert all(r["mean"] is None or 0 <= r["mean"] <= 1 for r in board["rows"])
    assert main(["leaderboard", str(root), "--strict"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"hume-sync leaderboard: error: {bad}: scores.test[0].{reason}"]


def test_negative_sts_correlation_is_a_valid_score(tmp_path, capsys):
    root, _ = results_with(tmp_path, "HUMESTS12.json", set_main_score(-0.2))
    board, err = leaderboard(capsys, root)
    assert err == []
    broken = next(r for r in board["rows"] if r["model"] == "broken/model")
    assert broken["complete"] and broken["rank"] is not None


def test_task_name_that_differs_from_the_file_name(tmp_path, capsys):
    def rename(path: Path, data: dict) -> None:
        data["task_name"] = "HUMESTS22"
        path.write_text(json.dumps(data))

    root, bad = results_with(tmp_path, "HUMESTS12.json", rename)
    board, err = leaderboard(capsys, root)
    assert err == [
        f"warning: skipped {bad}: task_name 'HUMESTS22' differs from the file name "
        "(expected HUMESTS22.json)"
    ]
    broken = next(r for r in board["rows"] if r["model"] == "broken/model")
    assert broken["rank"] is None and broken["n_subsets"] == 25
    assert main(["leaderboard", str(root), "--strict"]) == 2
    assert "differs from the file name" in capsys.readouterr().err


def test_the_public_result_files_all_pass_the_checks(capsys):
    """The bounds hold for every real file (scores are fractions there, 0.06 to 1.0)."""
    _, err = leaderboard(capsys, MTEB_RESULTS)
    assert err == []
