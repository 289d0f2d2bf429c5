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

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.store import Store, gold
from hume_sync.workflow.predict import predict_study
from tests._annotate import hume_env, register
from tests._browser import artifacts
from tests._fake_encoder import FakeEncoder
from tests._paths import REPO_ROOT
from tests._studies import SIB, write_spec
from tests.integration import test_answers_e2e as answers
from tests.integration.test_annotator_screens import MEASURE, open_stream

pytestmark = pytest.mark.labelstudio

browser = answers.browser  # Debian's chromium driven by Playwright
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
def world(annotator_servers, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """Initialised, predicted and set up on both annotators' servers (nothing answered yet:
    the screen tests open each project's first task)."""
    root = tmp_path_factory.mktemp("regression")
    mp = hume_env(root)
    src = root / "src"
    src.mkdir()
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
    study_dir = root / "study"
    assert main(["init", str(study_dir), "--spec", str(write_spec(study_dir, spec))]) == 0
    encoder = FakeEncoder()
    with Store.open(study_dir) as store:
        predict_study(study_dir, store, encoders=[encoder], progress=False)
    a, b = annotator_servers
    register(study_dir, a, "eng,ara", mp)
    register(study_dir, b, "eng", mp)
    assert main(["setup", str(study_dir)]) == 0
    yield {"root": root, "dir": study_dir, "a": a, "b": b, "encoder": encoder}
    mp.undo()


@pytest.fixture(scope="module")
def study(world) -> dict[str, Any]:
    """Both annotators answer through the SDK in the interface's result format (A: gold
    rounded to the step, B: gold off by ±0.6 on alternate texts), then pull, close, reveal and
    export."""
    study_dir, a, b = world["dir"], world["a"], world["b"]
    clients = {1: a.server.client(a.token), 2: b.server.client(b.token)}
    submitted: dict[str, dict[str, float]] = {"annotator-1": {}, "annotator-2": {}}
    with Store.open(study_dir) as store:
        for key in (EN, AR):
            subset = store.subset(key)
            interface = task_types.get(subset.task_type)
            lo, hi = subset.config["value_range"]
            golds = gold(store, key)
            for inst in store.instances(key):
                kw = interface.ls_translation_kwargs(subset.config, inst.content)
                g = float(golds[inst.hume_id])
                chosen = {1: round(g, 1)}
                if key == EN:
                    off = 0.6 if inst.sample_order % 2 else -0.6
                    chosen[2] = round(min(hi, max(lo, g + off)), 1)
                for slot, answer in chosen.items():
                    task = store.slot_tasks(key, slot)[inst.hume_id]
                    clients[slot].create_annotation(
                        task, interface.ls_answer_to_result(answer, **kw), lead_time=7.0
                    )
                    if key == EN:
                        submitted[f"annotator-{slot}"][inst.hume_id] = answer
        predictions = {p.hume_id: p for p in store.predictions(EN)}
        golds = gold(store, EN)
    assert main(["pull", str(study_dir)]) == 0
    assert main(["close", str(study_dir)]) == 0
    assert main(["reveal", str(study_dir)]) == 0
    out = world["root"] / "report"
    assert main(["export", str(study_dir), "--out", str(out)]) == 0
    return {
        "dir": study_dir,
        "out": out,
        "a": a,
        "gold": golds,
        "submitted": submitted,
        "predictions": predictions,
        "model_version": world["encoder"].model_version,
    }


@pytest.fixture(scope="module")
def shots() -> Path:
    return artifacts("regression-screens")


@pytest.mark.parametrize("key", [EN, AR])
def test_the_screen_fits_a_laptop_in_each_direction(world, browser, shots, key) -> None:
    with Store.open(world["dir"]) as store:
        project = next(p for p in store.slot_projects(key) if p.slot == 1)
        n_tasks = len(store.instances(key))
    page = answers.log_in(browser, world["a"])
    try:
        page.set_viewport_size({"width": 1366, "height": 768})
        open_stream(page, world["a"].url, project.ls_project_id)
        name = {EN: "eng", AR: "arb"}[key]
        page.screenshot(path=shots / f"regression-{name}-1366.png")
        m = page.evaluate(MEASURE)
        assert m["page_overflow_px"] <= 0 and m["scroller_overflow_px"] <= 0, m
        assert m["outside"] == 0, m
        assert m["position"] == f"Task 1 of {n_tasks}", m
        box = page.locator("input[type=number]")
        assert box.count() == 1 and box.first.input_value() == ""  # no default: no answer
        direction = box.first.evaluate("(e) => getComputedStyle(e).direction")
        right = box.first.evaluate("(e) => e.getBoundingClientRect().right")
        if key == AR:  # the Arabic text and its box, right to left at the right
            assert direction == "rtl" and m["text_right"] >= 1366 - 60, m
            assert right >= 1366 - 80, (right, m)
        else:
            assert direction == "ltr"
    finally:
        page.close()


def exported(study: dict[str, Any], key: str = EN) -> dict[str, Any]:
    data = json.loads((study["out"] / "scores.json").read_text())
    return next(s for s in data["subsets"] if s["subset"] == key)


def test_annotators_see_the_text_and_the_data_s_bounds_never_gold(study) -> None:
    client = study["a"].server.client()
    with Store.open(study["dir"]) as store:
        project = next(p for p in store.slot_projects(EN) if p.slot == 1)
        contents = {i.hume_ref: i.content for i in store.instances(EN)}
    config = client.get_project(project.ls_project_id)["label_config"]
    assert '<Number name="value" toName="text" min="1" max="5" step="0.1"' in config
    tasks = client.list_tasks(project.ls_project_id)
    assert len(tasks) == N_ITEMS
    for task in tasks:
        data = task["data"]
        assert set(data) == {"hume_ref", "hume_position", "text"}
        assert data["text"] == contents[data["hume_ref"]]["text"]


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    with Store.open(study["dir"]) as store:
        rows = store.annotations(EN)
    valid: dict[str, dict[str, float]] = {}
    for r in rows:
        assert r.status == "valid", r.error
        valid.setdefault(r.annotator, {})[r.hume_id] = r.answer
    assert valid == study["submitted"]


def test_the_human_score_is_kendall_tau_of_the_mean_number(study) -> None:
    from scipy.stats import kendalltau

    s = exported(study)
    golds, submitted = study["gold"], study["submitted"]
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
    s = exported(study)
    assert s["models"][study["model_version"]] is not None
    paired = s["paired"][study["model_version"]]
    assert paired["rater_metric"].startswith("Kendall τ of the model's mean prediction")
    assert paired["position"] in {"above", "below", "inside"}
    md = (study["out"] / "report.md").read_text()
    assert EN in md and "mean number per text" in md and "Kendall τ" in md


def test_reveal_shows_the_model_s_number(study) -> None:
    client = study["a"].server.client()
    with Store.open(study["dir"]) as store:
        refs = {i.hume_ref: i for i in store.instances(EN)}
        project = next(p for p in store.slot_projects(EN) if p.slot == 1)
    for task in client.list_tasks(project.ls_project_id):
        inst = refs[task["data"]["hume_ref"]]
        [mine] = [p for p in task["predictions"] if p["model_version"] == study["model_version"]]
        predicted = float(study["predictions"][inst.hume_id].answer)
        assert mine["result"][0]["value"]["number"] == pytest.approx(min(max(predicted, 1), 5))
