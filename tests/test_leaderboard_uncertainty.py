"""Rank intervals, groups and the humans' published interval on the leaderboard (issue 21)."""

from __future__ import annotations

import json
from pathlib import Path

from hume_sync.cli import main
from scoring.comparison import SubsetInfo, rank_raters
from scoring.results import Rater, SubsetScore
from tests._paths import MTEB_RESULTS


def _rater(name: str, values: list[float], kind: str = "model", blocks=None) -> Rater:
    scores = {
        f"T{i}/eng": SubsetScore(
            f"T{i}", "default", ("eng-Latn",), "sts", v, (blocks or [{}] * len(values))[i]
        )
        for i, v in enumerate(values)
    }
    return Rater(name, "r", kind, Path("."), scores)  # type: ignore[arg-type]


def _subsets(n: int) -> dict[str, SubsetInfo]:
    return {
        f"T{i}/eng": SubsetInfo(f"T{i}/eng", f"T{i}", "default", "sts", "eng") for i in range(n)
    }


def test_a_rater_ahead_on_every_subset_has_a_point_rank_and_its_own_group():
    rows = rank_raters([_rater("a", [0.9, 0.8, 0.7]), _rater("b", [0.5, 0.4, 0.3])], _subsets(3))
    a, b = rows
    # Every resample keeps a ahead: ranks 1 and 2 always, so intervals of width 0 and two groups.
    assert (a.rank_low, a.rank_high, a.group) == (1, 1, 1)
    assert (b.rank_low, b.rank_high, b.group) == (2, 2, 2)
    # The mean's interval lies within the subset scores' range.
    assert 0.7 - 1e-12 <= a.mean_low <= a.mean <= a.mean_high <= 0.9 + 1e-12


def test_two_raters_each_ahead_once_cannot_be_separated():
    # a = (1, 0), b = (0, 1). Resamples of the two subsets: (T0,T0) a first, (T1,T1) b first
    # (¼ each), mixed ones tie (½, both rank 1). So each rank is 1 w.p. ¾ and 2 w.p. ¼:
    # interval [1, 2] for both, one group; the mean is 1, ½ or 0, so its interval is [0, 1].
    rows = rank_raters([_rater("a", [1.0, 0.0]), _rater("b", [0.0, 1.0])], _subsets(2))
    for row in rows:
        assert row.rank == 1
        assert (row.rank_low, row.rank_high, row.group) == (1, 2, 1)
        assert (row.mean_low, row.mean_high) == (0.0, 1.0)


def test_human_published_interval_is_the_mean_of_the_subset_bounds():
    blocks = [
        {"confidence_interval": {"low": 0.6, "high": 0.8}, "agreement": _agr(10, 3)},
        {"confidence_interval": {"low": 0.8, "high": 1.0}, "agreement": _agr(20, 2)},
    ]
    rows = rank_raters(
        [_rater("humans", [0.7, 0.9], "human", blocks), _rater("m", [0.1, 0.2])], _subsets(2)
    )
    human = next(r for r in rows if r.rater.kind == "human")
    low, high = human.published["interval"]
    assert abs(low - 0.7) < 1e-12 and abs(high - 0.9) < 1e-12
    assert human.published["n_items"] == 30 and human.published["n_annotators"] == 3
    # One subset without an interval: no interval is made up for the mean.
    rows = rank_raters([_rater("humans", [0.7, 0.9], "human", [blocks[0], {}])], _subsets(2))
    assert "interval" not in rows[0].published


def _agr(n_items: int, n_annotators: int) -> dict:
    return {
        "metric": "mean_pairwise_spearman",
        "value": 0.7,
        "n_items": n_items,
        "n_annotators": n_annotators,
    }


def _board(capsys, *args):
    assert main(["leaderboard", str(MTEB_RESULTS), "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_bundled_results_rank_intervals_hold_the_rank_and_are_seeded(capsys):
    board = _board(capsys)
    ranked = [r for r in board["rows"] if r["rank"] is not None]
    n = len(ranked)
    for r in ranked:
        low, high = r["rank_interval"]
        assert 1 <= low <= r["rank"] <= high <= n
        assert r["mean_interval"][0] <= r["mean"] <= r["mean_interval"][1]
    groups = [r["group"] for r in ranked]
    assert groups[0] == 1 and groups == sorted(groups)  # groups follow the rank order
    assert len(set(groups)) >= 2  # 26 subsets do separate the top from the bottom
    assert _board(capsys) == board  # seeded: the same files give the same table
    assert "bootstrap resamples of the subsets" in board["method"]


def test_bundled_human_items_and_annotators_from_the_files(capsys):
    board = _board(capsys, "--revision", "baseline/Human=2025_09_25")
    human = next(r for r in board["rows"] if r["kind"] == "human")
    # Counted here straight from the JSON files (French subsets are not in the comparison).
    items, most = 0, 0
    for f in (MTEB_RESULTS / "baseline__Human" / "2025_09_25").glob("*.json"):
        if f.name == "model_meta.json":
            continue
        for block in json.loads(f.read_text())["scores"]["test"]:
            agr = block.get("agreement")
            if agr and not any(lang.startswith("fra") for lang in block["languages"]):
                items += agr["n_items"]
                most = max(most, agr["n_annotators"])
    assert human["published"]["n_items"] == items and human["published"]["n_annotators"] == most
    assert "interval" not in human["published"]  # these files carry no confidence_interval
    assert main(["leaderboard", str(MTEB_RESULTS), "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "rank 95 %" in header and "group" in header and "published 95 %" in header
