"""Regression end to end in real Label Studio servers, and its screen in a real browser.

Two subsets go through every step a user runs: ``init`` from a spec with ``type: regression``
(local files with a train pool), ``predict`` (the suite's fake encoder; mteb's linear
regression runs on its vectors), ``annotators add`` and ``setup``, both annotators answering
through the SDK in the interface's own result format (the Number control's ``number``),
``pull``, ``close``, ``reveal`` and ``export``:

* ``en``: the SICK-derived set (tests/data/regression/sick), two annotators. The report's human
  score must be Kendall's τ of the mean number per text, worked out here with numpy and scipy
  from the submitted answers, and the report must show the type's rows;
* ``ar``: SIB-200's Arabic sentences with their word count as the number (a number any reader
  can give; the set is built here), one annotator, for the right-to-left screen.

The screen is opened at 1366×768 in headless Chromium for both subsets; it must fit, and the
Arabic text and its number box stand at the right. The screenshots are saved under
``test-artifacts/regression-screens/`` (``docs/screenshots/`` keeps a copy of them).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests._browser import artifacts
from tests._paths import REPO_ROOT
from tests._studies import SIB
from tests.integration import _type_e2e as e2e
from tests.integration import test_answers_e2e as answers

pytestmark = pytest.mark.labelstudio

browser = answers.browser  # Debian's chromium driven by Playwright
page = e2e.page  # annotator A, logged in once for the screen tests
EN, AR = "Relatedness/en", "Relatedness/ar"
SICK = REPO_ROOT / "tests" / "data" / "regression" / "sick"
N_ITEMS = 10


def _word_counts(split: str, path: Path) -> Path:
    """SIB-200's Arabic sentences of ``split``, each with its number of words."""
    with (SIB / "arb_Arab" / f"{split}.tsv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[:80]
    lines = [
        json.dumps({"id": r["index_id"], "text": r["text"], "value": len(r["text"].split())},
                   ensure_ascii=False)
        for r in rows
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def world(annotator_servers, tmp_path_factory) -> Iterator[e2e.TypeStudy]:
    """Initialised, predicted and set up on both annotators' servers (nothing answered yet:
    the screen tests open each project's first task)."""
    src = tmp_path_factory.mktemp("regression-src")
    spec = {
        "name": "regression-e2e",
        "seed": 3,
        "tasks": [
            {
                "name": "Relatedness",
                "type": "regression",
                "source": {"path": str(SICK / "test.jsonl")},
                "subsets": [
                    {"name": "en", "language": "eng-Latn", "size": N_ITEMS, "annotators": 2,
                     "path": str(SICK / "test.jsonl"), "train_path": str(SICK / "train.jsonl")},
                    {"name": "ar", "language": "arb-Arab", "size": 3, "annotators": 1,
                     "path": str(_word_counts("test", src / "ar.jsonl")),
                     "train_path": str(_word_counts("train", src / "ar-train.jsonl"))},
                ],
            }
        ],
    }  # fmt: skip
    with e2e.set_up(annotator_servers, tmp_path_factory, spec, ("eng,ara", "eng")) as s:
        yield s


def choose(subset: Any, inst: Any, value: Any) -> dict[int, float]:
    """A: gold rounded to the step; B (on the English subset only): gold off by ±0.6 on
    alternate texts, within the data's bounds."""
    g = float(value)
    if subset.key == AR:
        return {1: round(g, 1)}
    lo, hi = subset.config["value_range"]
    off = 0.6 if inst.sample_order % 2 else -0.6
    return {1: round(g, 1), 2: round(min(hi, max(lo, g + off)), 1)}


@pytest.fixture(scope="module")
def study(world) -> e2e.TypeStudy:
    """Both annotators answer through the SDK in the interface's result format (the Number
    control's ``number``), then pull, close, reveal and export."""
    e2e.answer(world, (EN, AR), choose, lead_time=7.0)
    e2e.close_and_export(world)
    return world


@pytest.fixture(scope="module")
def shots() -> Path:
    return artifacts("regression-screens")


@pytest.mark.parametrize("key", [EN, AR])
def test_the_screen_fits_a_laptop_in_each_direction(world, page, shots, key) -> None:
    shot = shots / f"regression-{'eng' if key == EN else 'arb'}-1366.png"
    m = e2e.screen(page, world, key, shot)
    box = page.locator("input[type=number]")
    assert box.count() == 1 and box.first.input_value() == ""  # no default: no answer
    direction = box.first.evaluate("(e) => getComputedStyle(e).direction")
    right = box.first.evaluate("(e) => e.getBoundingClientRect().right")
    if key == AR:  # the Arabic text and its box, right to left at the right
        assert direction == "rtl" and m["text_right"] >= 1366 - 60, m
        assert right >= 1366 - 80, (right, m)
    else:
        assert direction == "ltr"


def test_annotators_see_the_text_and_the_data_s_bounds_never_gold(study) -> None:
    texts = {ref: i.content["text"] for ref, i in study.instances_by_ref(EN).items()}
    config, tasks = study.shown(EN)
    assert '<Number name="value" toName="text" min="1" max="5" step="0.1"' in config
    assert len(tasks) == N_ITEMS
    for task in tasks:
        data = task["data"]
        assert set(data) == {"hume_ref", "hume_position", "text"}
        assert data["text"] == texts[data["hume_ref"]]


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    for key in (EN, AR):
        assert study.pulled(key) == study.submitted[key]


def test_the_human_score_is_kendall_tau_of_the_mean_number(study) -> None:
    from scipy.stats import kendalltau

    s = study.exported(EN)
    golds, submitted = study.gold(EN), study.submitted[EN]
    items = sorted(golds)
    means = [np.mean([submitted[who][i] for who in submitted]) for i in items]
    expected = kendalltau([golds[i] for i in items], means).statistic
    assert s["human"]["method"] == "human:mean_value+kendalltau"
    assert s["human"]["value"] == pytest.approx(expected, abs=1e-12)
    alone = kendalltau(
        [golds[i] for i in items], [submitted["annotator-2"][i] for i in items]
    ).statistic
    assert s["human"]["per_rater"]["annotator-2"] == pytest.approx(alone, abs=1e-12)
    assert s["agreement"][0]["method"] == "krippendorff_alpha:interval"


def test_the_report_shows_the_type_s_rows(study) -> None:
    s = study.exported(EN)
    assert s["models"][study.model_version] is not None
    paired = s["paired"][study.model_version]
    assert paired["rater_metric"].startswith("Kendall τ of the model's mean prediction")
    assert paired["position"] in {"above", "below", "inside"}
    md = study.report_md()
    assert EN in md and "mean number per text" in md and "Kendall τ" in md


def test_reveal_shows_the_model_s_number(study) -> None:
    predictions = study.predictions(EN)
    shown = 0
    for inst, [mine] in study.revealed(EN):
        predicted = float(predictions[inst.hume_id].answer)
        assert mine["result"][0]["value"]["number"] == pytest.approx(min(max(predicted, 1), 5))
        shown += 1
    assert shown == N_ITEMS
