"""Bitext mining end to end in real Label Studio servers, and its screen in a real browser.

SIB-200's English sentences with their Arabic translations (and, for a left-to-right screen,
their French ones) go through every step a user runs: ``init`` from a spec with
``type: bitext_mining``, ``predict`` (the suite's fake encoder), ``annotators add`` (two
annotators who read English and Arabic) and ``setup``, both annotators answering through the
SDK in the interface's own result format (the chosen candidate's text), ``pull``, ``close``,
``reveal`` and ``export``. The report's human score must be mteb's weighted F1 of the majority
choice, worked out here with scikit-learn from the submitted answers, and the report must show
the type's rows (its methods, the agreement, the paired verdict of the model).

The annotator's screen is opened at 1366×768 in headless Chromium for both subsets; it must fit
(no horizontal overflow) and, English to Arabic, the candidates stand at the right, in their own
direction. The screenshots are saved under ``test-artifacts/bitext-mining-screens/``
(``docs/screenshots/`` keeps a copy of them).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.store import Store, gold
from hume_sync.workflow.predict import predict_study
from tests._annotate import hume_env, register
from tests._bitext import sib_pairs, write_jsonl
from tests._browser import artifacts
from tests._fake_encoder import FakeEncoder
from tests._studies import write_spec
from tests.integration import test_answers_e2e as answers
from tests.integration.test_annotator_screens import MEASURE, open_stream

pytestmark = pytest.mark.labelstudio

browser = answers.browser  # Debian's chromium driven by Playwright
ARB, FRA = "Flores/eng-arb", "Flores/eng-fra"
N_ITEMS = 9


@pytest.fixture(scope="module")
def world(annotator_servers, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """Initialised, predicted and set up on both annotators' servers (nothing answered yet:
    the screen tests open each project's first task)."""
    root = tmp_path_factory.mktemp("bitext")
    mp = hume_env(root)
    src = root / "src"
    src.mkdir()
    write_jsonl(src / "eng-arb.jsonl", sib_pairs("eng_Latn", "arb_Arab", 60))
    write_jsonl(src / "eng-fra.jsonl", sib_pairs("eng_Latn", "fra_Latn", 60))
    spec = {
        "name": "bitext-e2e",
        "seed": 9,
        "tasks": [
            {
                "name": "Flores",
                "type": "bitext_mining",
                "source": {"path": str(src / "{subset}.jsonl")},
                "candidates": 4,
                "random_fillers": 1,
                "subsets": [
                    {"name": "eng-arb", "language": "eng-Latn", "target_language": "arb-Arab",
                     "size": N_ITEMS, "annotators": 2},
                    {"name": "eng-fra", "language": "eng-Latn", "target_language": "fra-Latn",
                     "size": 3, "annotators": 1},
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
    register(study_dir, a, "eng,ara,fra", mp)
    register(study_dir, b, "eng,ara", mp)
    assert main(["setup", str(study_dir)]) == 0
    yield {"root": root, "dir": study_dir, "a": a, "b": b, "encoder": encoder}
    mp.undo()


@pytest.fixture(scope="module")
def study(world) -> dict[str, Any]:
    """Both annotators answer through the SDK in the interface's result format, then pull,
    close, reveal and export."""
    study_dir, a, b = world["dir"], world["a"], world["b"]
    clients = {1: a.server.client(a.token), 2: b.server.client(b.token)}
    submitted: dict[str, dict[str, str]] = {"annotator-1": {}, "annotator-2": {}}
    with Store.open(study_dir) as store:
        for key in (ARB, FRA):
            subset = store.subset(key)
            interface = task_types.get(subset.task_type)
            golds = gold(store, key)
            for inst in store.instances(key):
                kw = interface.ls_translation_kwargs(subset.config, inst.content)
                ids = [c["id"] for c in inst.content["candidates"]]
                # A answers gold; B chooses another candidate on every third sentence
                right = golds[inst.hume_id]
                wrong = next(i for i in ids if i != right)
                chosen = {1: right}
                if key == ARB:
                    chosen[2] = wrong if inst.sample_order % 3 == 0 else right
                for slot, answer in chosen.items():
                    task = store.slot_tasks(key, slot)[inst.hume_id]
                    clients[slot].create_annotation(
                        task, interface.ls_answer_to_result(answer, **kw), lead_time=9.0
                    )
                    if key == ARB:
                        submitted[f"annotator-{slot}"][inst.hume_id] = answer
        predictions = {p.hume_id: p for p in store.predictions(ARB)}
        golds = gold(store, ARB)
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
    return artifacts("bitext-mining-screens")


@pytest.mark.parametrize("key", [ARB, FRA])
def test_the_screen_fits_a_laptop_in_each_direction(world, browser, shots, key) -> None:
    with Store.open(world["dir"]) as store:
        project = next(p for p in store.slot_projects(key) if p.slot == 1)
        n_tasks = len(store.instances(key))
    page = answers.log_in(browser, world["a"])
    try:
        page.set_viewport_size({"width": 1366, "height": 768})
        open_stream(page, world["a"].url, project.ls_project_id)
        page.screenshot(path=shots / f"bitext-mining-{key.rsplit('/', 1)[1]}-1366.png")
        m = page.evaluate(MEASURE)
        assert m["page_overflow_px"] <= 0 and m["scroller_overflow_px"] <= 0, m
        assert m["outside"] == 0, m
        assert m["position"] == f"Task 1 of {n_tasks}", m
        choices = page.locator(".lsf-choice__item")
        assert choices.count() == 4, m
        if key == ARB:  # Arabic candidates: right-aligned, right to left
            direction = choices.first.evaluate("(e) => getComputedStyle(e).direction")
            assert direction == "rtl"
            assert m["choices_right"] >= 1366 - 40, m  # at the right edge, not beside the text
        else:
            assert abs(m["choices_left"] - m["text_left"]) <= 40, m
    finally:
        page.close()


def exported(study: dict[str, Any], key: str = ARB) -> dict[str, Any]:
    data = json.loads((study["out"] / "scores.json").read_text())
    return next(s for s in data["subsets"] if s["subset"] == key)


def test_annotators_see_the_texts_and_never_gold(study) -> None:
    client = study["a"].server.client()
    with Store.open(study["dir"]) as store:
        project = next(p for p in store.slot_projects(ARB) if p.slot == 1)
        contents = {i.hume_ref: i.content for i in store.instances(ARB)}
    config = client.get_project(project.ls_project_id)["label_config"]
    assert 'value="$options"' in config and "direction: rtl" in config
    tasks = client.list_tasks(project.ls_project_id)
    assert len(tasks) == N_ITEMS
    for task in tasks:
        data = task["data"]
        assert set(data) == {"hume_ref", "hume_position", "sentence", "options"}
        shown = contents[data["hume_ref"]]
        assert [o["value"] for o in data["options"]] == [c["text"] for c in shown["candidates"]]


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    with Store.open(study["dir"]) as store:
        rows = store.annotations(ARB)
    valid: dict[str, dict[str, str]] = {}
    for r in rows:
        assert r.status == "valid", r.error
        valid.setdefault(r.annotator, {})[r.hume_id] = r.answer
    assert valid == study["submitted"]


def test_the_human_score_is_mteb_s_f1_of_the_majority_choice(study) -> None:
    from sklearn.metrics import f1_score

    s = exported(study)
    golds, submitted = study["gold"], study["submitted"]
    items = sorted(golds)
    votes = []
    for i in items:
        counts = Counter(submitted[who][i] for who in sorted(submitted))
        top = max(counts.values())
        votes.append(sorted(c for c, k in counts.items() if k == top)[0])
    expected = f1_score([golds[i] for i in items], votes, average="weighted", zero_division=0)
    assert s["human"]["method"] == "human:majority_vote(first_id_tie_break)+mteb_f1"
    assert s["human"]["value"] == pytest.approx(expected, abs=1e-12)
    alone = f1_score(
        [golds[i] for i in items], [submitted["annotator-2"][i] for i in items], average="weighted"
    )
    assert s["human"]["per_rater"]["annotator-2"] == pytest.approx(alone, abs=1e-12)
    assert s["human"]["per_rater"]["annotator-1"] == 1.0
    assert s["agreement"][0]["method"] == "fleiss_kappa"
    assert len(s["disagreements"]) == sum(1 for i in items if len(set(
        submitted[w][i] for w in submitted)) > 1)  # fmt: skip


def test_the_report_shows_the_type_s_rows(study) -> None:
    s = exported(study)
    assert s["models"][study["model_version"]] is not None
    paired = s["paired"][study["model_version"]]
    assert paired["rater_metric"] == "F1 of the model's choice among the candidates people saw"
    assert paired["position"] in {"above", "below", "inside"}
    md = (study["out"] / "report.md").read_text()
    assert ARB in md and "majority choice per sentence" in md
    assert "F1 of the model's choice among the candidates people saw" in md


def test_reveal_shows_the_model_s_choice(study) -> None:
    client = study["a"].server.client()
    with Store.open(study["dir"]) as store:
        refs = {i.hume_ref: i for i in store.instances(ARB)}
        project = next(p for p in store.slot_projects(ARB) if p.slot == 1)
    for task in client.list_tasks(project.ls_project_id):
        inst = refs[task["data"]["hume_ref"]]
        [mine] = [p for p in task["predictions"] if p["model_version"] == study["model_version"]]
        chosen = study["predictions"][inst.hume_id].answer
        text = next(c["text"] for c in inst.content["candidates"] if c["id"] == chosen)
        assert mine["result"][0]["value"]["choices"] == [text]
