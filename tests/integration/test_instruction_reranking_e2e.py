"""Instruction reranking end to end in real Label Studio servers, and its screen in a browser.

The SIB-200 FollowIR-shaped set (``tests/data/instruction_reranking``: a query, "about A or B"
and "about A; B is not relevant", seven candidates) goes through every step a user runs: ``init``
from a spec with ``type: instruction_reranking`` (two subsets, English and Arabic, each becoming
an ``og`` and a ``changed`` arm), ``predict`` (the suite's fake encoder), ``annotators add`` (A
and B, both reading English and Arabic) and ``setup``, both annotators answering through the
SDK in the interface's own result format, ``pull``, ``close``, ``reveal`` and ``export``.

What must hold: the seats put A in the original arms and B in the changed ones (with two
people and one seat per arm, an arm-blind plan would seat A in both); each annotator's tasks
show their arm's instruction and nothing that names the arm; the report's p-MRR of the people
equals mteb's own ``calculate_pmrr`` on the submitted marks (mteb's tie rule), and the model's
equals mteb's on its stored similarities; the screens, English and Arabic at 1366 px, fit.
Screenshots go to ``test-artifacts/instruction-reranking-screens/`` (``docs/screenshots/``
keeps a copy).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hume_sync.store import Store
from tests._browser import artifacts
from tests._paths import REPO_ROOT
from tests.integration import _type_e2e as e2e
from tests.integration import test_answers_e2e as answers

pytestmark = pytest.mark.labelstudio

browser = answers.browser  # Debian's chromium driven by Playwright
page = e2e.page  # annotator A, logged in once for the screen tests

DATA = REPO_ROOT / "tests" / "data" / "instruction_reranking" / "sib200"
TASK = "FollowSIB"
ARMS = {sub: {arm: f"{TASK}/{sub}-{arm}" for arm in ("og", "changed")} for sub in ("en", "ar")}
KEYS = [key for arms in ARMS.values() for key in arms.values()]
N_ITEMS = 8


@pytest.fixture(scope="module")
def world(annotator_servers, tmp_path_factory) -> Iterator[e2e.TypeStudy]:
    """Initialised, predicted and set up on both annotators' servers (nothing answered yet)."""
    spec = {
        "name": "instruction-reranking-e2e",
        "seed": 11,
        "tasks": [
            {
                "name": TASK,
                "type": "instruction_reranking",
                "source": {"path": str(DATA / "eng_Latn" / "test.jsonl")},
                "subsets": [
                    {"name": "en", "language": "eng-Latn", "size": N_ITEMS, "annotators": 1},
                    {"name": "ar", "language": "arb-Arab", "size": 3, "annotators": 1,
                     "path": str(DATA / "arb_Arab" / "test.jsonl")},
                ],
            }
        ],
    }  # fmt: skip
    with e2e.set_up(annotator_servers, tmp_path_factory, spec, ("eng,ara", "eng,ara")) as s:
        yield s


def choose(subset: Any, inst: Any, right: dict[str, int]) -> dict[int, dict[str, int]]:
    """A (the original arms) marks gold; B (the changed arms) marks gold but, on every other
    query, keeps one document the changed instruction rules out marked relevant (a person who
    half follows the change)."""
    if subset.config["arm"] == "og":
        return {1: dict(right)}
    marks = dict(right)
    if inst.sample_order % 2 == 0:
        ruled_out = sorted(c for c, r in marks.items() if r == 0)
        marks[ruled_out[0]] = 1  # not necessarily a changed document: a plausible slip
    return {2: marks}


@pytest.fixture(scope="module")
def study(world) -> e2e.TypeStudy:
    e2e.answer(world, KEYS, choose, lead_time=9.0)
    e2e.close_and_export(world)
    return world


@pytest.fixture(scope="module")
def shots() -> Path:
    return artifacts("instruction-reranking-screens")


def test_each_annotator_sits_in_one_arm_only(world) -> None:
    with Store.open(world.dir) as store:
        seated = {(p.subset_key, p.slot) for p in store.slot_projects()}
    for arms in ARMS.values():
        assert (arms["og"], 1) in seated and (arms["changed"], 2) in seated
        assert (arms["og"], 2) not in seated and (arms["changed"], 1) not in seated


@pytest.mark.parametrize("sub", ["en", "ar"])
def test_the_screen_fits_a_laptop_in_each_direction(world, page, shots, sub) -> None:
    shot = shots / f"instruction-reranking-{'eng' if sub == 'en' else 'arb'}-1366.png"
    m = e2e.screen(page, world, ARMS[sub]["og"], shot)
    assert m["items"] == 7, m
    text = page.locator(".lsf-richtext__line, .lsf-text").all_inner_texts()
    instruction = world.instances_by_ref(ARMS[sub]["og"])
    assert any(i.content["instruction"] in " ".join(text) for i in instruction.values())


def _tasks(study: e2e.TypeStudy, key: str, slot: int) -> list[dict[str, Any]]:
    server = study.a if slot == 1 else study.b
    return server.server.client().list_tasks(study.project(key, slot).ls_project_id)


def test_annotators_see_their_arm_s_instruction_and_never_the_arm(study) -> None:
    for arms in ARMS.values():
        for arm, slot in (("og", 1), ("changed", 2)):
            instances = study.instances_by_ref(arms[arm])
            tasks = _tasks(study, arms[arm], slot)
            assert len(tasks) == len(instances)
            for task in tasks:
                data = task["data"]
                assert set(data) == {
                    "hume_ref",
                    "hume_position",
                    "query",
                    "instruction",
                    "candidates",
                }
                inst = instances[data["hume_ref"]]
                assert data["instruction"] == inst.content["instruction"]
                # an opaque reference: neither the subset (and so the arm) nor the query
                assert arms[arm] not in data["hume_ref"] and inst.source_id not in data["hume_ref"]
    source = {
        json.loads(x)["id"]: json.loads(x)
        for x in (DATA / "eng_Latn" / "test.jsonl").read_text().splitlines()
    }
    for inst in study.instances_by_ref(ARMS["en"]["changed"]).values():
        assert inst.content["instruction"] == source[inst.source_id]["instruction_changed"]


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    for key in KEYS:
        assert study.pulled(key) == study.submitted[key]


def _by_source(values: dict[str, Any], refs: dict[str, Any], queries: dict[str, str]) -> Any:
    """``{hume_id: {shown id: v}}`` as ``{source query: {source document: v}}``."""
    return {
        queries[h]: {
            next(r.source_id for r in refs[h] if r.item_id == k): v for k, v in per.items()
        }
        for h, per in values.items()
    }


def _runs(study: e2e.TypeStudy, sub: str, answers: dict[str, dict[str, Any]]) -> Any:
    """Per arm, the answers and gold by source ids, read back here through the store's map of
    shown ids to the source's (mteb breaks ties by the documents' own ids)."""
    runs, golds = {}, {}
    with Store.open(study.dir) as store:
        for arm, key in ARMS[sub].items():
            queries = {i.hume_id: i.source_id for i in store.instances(key)}
            refs = store.item_refs(key)
            runs[arm] = _by_source(answers[arm], refs, queries)
            golds[arm] = _by_source(study.gold(key), refs, queries)
    return runs, golds


def test_the_report_s_p_mrr_is_mteb_s(study) -> None:
    from mteb._evaluators.retrieval_metrics import calculate_pmrr

    data = json.loads((study.out / "scores.json").read_text())
    facts = {f["key"]: f for f in data["instruction_following"]}
    assert sorted(facts) == [f"{TASK}/ar", f"{TASK}/en"]
    en = facts[f"{TASK}/en"]
    assert en["arms"] == ARMS["en"] and en["queries"] == N_ITEMS
    assert en["annotators"] == {"og": ["annotator-1"], "changed": ["annotator-2"]}

    submitted = {
        arm: study.submitted[key][f"annotator-{1 if arm == 'og' else 2}"]
        for arm, key in ARMS["en"].items()
    }
    runs, golds = _runs(study, "en", submitted)
    changed = {
        q: [d for d, r in g.items() if r and not golds["changed"][q][d]]
        for q, g in golds["og"].items()
    }

    def mteb(og: dict[str, Any], new: dict[str, Any]) -> float:
        return float(
            calculate_pmrr(
                {f"{q}-og": {d: float(v) for d, v in r.items()} for q, r in og.items()},
                {f"{q}-changed": {d: float(v) for d, v in r.items()} for q, r in new.items()},
                changed,
            )
        )

    assert en["human_trec"] == pytest.approx(mteb(runs["og"], runs["changed"]), abs=1e-12)
    assert en["low"] <= en["human"] <= en["high"]
    assert en["pairs"] == [["annotator-1", "annotator-2", pytest.approx(en["human"])]]
    # B drops every changed document to Not relevant: they fall in rank (arms swapped, or the
    # pairing off, would make this negative or zero)
    assert en["human_trec"] > 0 and en["human"] > 0

    predictions = {arm: study.predictions(key) for arm, key in ARMS["en"].items()}
    model = {arm: {h: p.answer for h, p in predictions[arm].items()} for arm in predictions}
    model_runs, _ = _runs(study, "en", model)
    [row] = en["models"]
    assert row["name"] == study.model_version
    assert row["p_mrr"] == pytest.approx(mteb(model_runs["og"], model_runs["changed"]), abs=1e-12)
    expected = (
        "above" if row["p_mrr"] > en["high"] else "below" if row["p_mrr"] < en["low"] else "inside"
    )
    assert row["verdict"] == expected

    md = study.report_md()
    assert "Instruction following (p-MRR)" in md and f"p-MRR: {TASK}/en" in md
    assert f"{en['human']:.3f}" in md and f"{row['p_mrr']:.3f}" in md


def test_each_arm_is_scored_as_reranking(study) -> None:
    s = study.exported(ARMS["en"]["og"])
    assert s["human"]["value"] == pytest.approx(1.0)  # A marks gold
    assert s["models"][study.model_version] is not None
    c = study.exported(ARMS["en"]["changed"])
    assert c["human"]["value"] < 1.0
