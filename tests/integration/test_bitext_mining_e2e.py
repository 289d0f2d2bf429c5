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

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._bitext import sib_pairs, write_jsonl
from tests._browser import artifacts
from tests.integration import _type_e2e as e2e
from tests.integration import test_answers_e2e as answers

pytestmark = pytest.mark.labelstudio

browser = answers.browser  # Debian's chromium driven by Playwright
page = e2e.page  # annotator A, logged in once for the screen tests
ARB, FRA = "Flores/eng-arb", "Flores/eng-fra"
N_ITEMS = 9


@pytest.fixture(scope="module")
def world(annotator_servers, tmp_path_factory) -> Iterator[e2e.TypeStudy]:
    """Initialised, predicted and set up on both annotators' servers (nothing answered yet:
    the screen tests open each project's first task)."""
    src = tmp_path_factory.mktemp("bitext-src")
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
    with e2e.set_up(annotator_servers, tmp_path_factory, spec, ("eng,ara,fra", "eng,ara")) as s:
        yield s


def choose(subset: Any, inst: Any, right: str) -> dict[int, str]:
    """A answers gold; B (on the Arabic subset only) chooses another candidate on every third
    sentence."""
    if subset.key == FRA:
        return {1: right}
    wrong = next(c["id"] for c in inst.content["candidates"] if c["id"] != right)
    return {1: right, 2: wrong if inst.sample_order % 3 == 0 else right}


@pytest.fixture(scope="module")
def study(world) -> e2e.TypeStudy:
    """Both annotators answer through the SDK in the interface's result format (the chosen
    candidate's text), then pull, close, reveal and export."""
    e2e.answer(world, (ARB, FRA), choose, lead_time=9.0)
    e2e.close_and_export(world)
    return world


@pytest.fixture(scope="module")
def shots() -> Path:
    return artifacts("bitext-mining-screens")


@pytest.mark.parametrize("key", [ARB, FRA])
def test_the_screen_fits_a_laptop_in_each_direction(world, page, shots, key) -> None:
    shot = shots / f"bitext-mining-{key.rsplit('/', 1)[1]}-1366.png"
    m = e2e.screen(page, world, key, shot)
    choices = page.locator(".lsf-choice__item")
    assert choices.count() == 4, m
    if key == ARB:  # Arabic candidates: right-aligned, right to left
        direction = choices.first.evaluate("(e) => getComputedStyle(e).direction")
        assert direction == "rtl"
        assert m["choices_right"] >= 1366 - 40, m  # at the right edge, not beside the text
    else:
        assert abs(m["choices_left"] - m["text_left"]) <= 40, m


def test_annotators_see_the_texts_and_never_gold(study) -> None:
    contents = {ref: i.content for ref, i in study.instances_by_ref(ARB).items()}
    config, tasks = study.shown(ARB)
    assert 'value="$options"' in config and "direction: rtl" in config
    assert len(tasks) == N_ITEMS
    for task in tasks:
        data = task["data"]
        assert set(data) == {"hume_ref", "hume_position", "sentence", "options"}
        shown = contents[data["hume_ref"]]
        assert [o["value"] for o in data["options"]] == [c["text"] for c in shown["candidates"]]


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    for key in (ARB, FRA):
        assert study.pulled(key) == study.submitted[key]


def test_the_human_score_is_mteb_s_f1_of_the_majority_choice(study) -> None:
    from sklearn.metrics import f1_score

    s = study.exported(ARB)
    golds, submitted = study.gold(ARB), study.submitted[ARB]
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
    s = study.exported(ARB)
    assert s["models"][study.model_version] is not None
    paired = s["paired"][study.model_version]
    assert paired["rater_metric"] == "F1 of the model's choice among the candidates people saw"
    assert paired["position"] in {"above", "below", "inside"}
    md = study.report_md()
    assert ARB in md and "majority choice per sentence" in md
    assert "F1 of the model's choice among the candidates people saw" in md


def test_reveal_shows_the_model_s_choice(study) -> None:
    predictions = study.predictions(ARB)
    shown = 0
    for inst, [mine] in study.revealed(ARB):
        chosen = predictions[inst.hume_id].answer
        text = next(c["text"] for c in inst.content["candidates"] if c["id"] == chosen)
        assert mine["result"][0]["value"]["choices"] == [text]
        shown += 1
    assert shown == N_ITEMS
