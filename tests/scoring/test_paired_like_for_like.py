"""The paired comparison of humans with a rater scores each side with the metric the report
prints for it (issue 21), for every registered task type through the shared protocol.

Each type's ``MODEL_PAIRED`` (``tests/task_type_examples/<type>.py``) gives an embedding model's
stored answers on the type's example subset, its printed score and the compared score worked
out by hand. On that complete subset the compared numbers must equal the printed ones (the
humans' aggregate and an LLM's own score always; a model's where the type compares like for
like, else the hand-worked number the report names), and no verdict may say "below" beside a
higher score or "above" beside a lower one. Before the fix, reranking read a model's
similarities as marks (compared 0.375 where mteb prints 0.75) and this failed.
"""

from __future__ import annotations

import json

import pytest

from hume_sync import task_types
from hume_sync.report.blocks import Footnoted
from hume_sync.report.tables import vs_humans as _vs_humans
from scoring.subset_report import SubsetInput, evaluate_subset
from tests.task_type_examples import examples

NAMES = task_types.names()
TOL = 1e-9


def _report(name: str):
    ex = examples(name)
    t = task_types.get(name)
    answers, printed, _ = ex.MODEL_PAIRED
    # As the report reads them from the store: JSON, then the type's model-answer form (the
    # annotators' form rounded reranking similarities to 0/1 marks).
    stored = json.loads(json.dumps({str(i): a for i, a in answers.items()}))
    answers = {i: t.score_normalise_model_answer(stored[str(i)]) for i in answers}
    inp = SubsetInput(
        key=f"Ex/{name}",
        task_name="Ex",
        hf_subset="default",
        task_type=t,
        language="en",
        gold=ex.SCORING["gold"],
        humans={r: a for r, a in ex.SCORING["humans"].items() if r != "z"},
        # The third example rater plays an LLM annotator: its printed score is its own.
        llms={"llm:z": ex.SCORING["humans"]["z"]},
        models={"m": printed},
        model_answers={"m": answers},
    )
    return t, ex, evaluate_subset(inp)


def _consistent(position: str, rater: float, human: float) -> bool:
    """A verdict never says below beside a higher score, nor above beside a lower one."""
    if position == "below":
        return rater < human
    if position == "above":
        return rater > human
    return True


@pytest.mark.parametrize("name", NAMES)
def test_model_side_is_the_metric_printed_for_it(name: str) -> None:
    t, ex, rep = _report(name)
    _, printed, compared = ex.MODEL_PAIRED
    cmp = rep.paired["m"]
    if compared is None:
        assert cmp["position"] == "unpaired" and name in cmp["why"]
        # Placed by its printed score against the human interval instead, and said so; why
        # it is unpaired goes into the cell's footnote.
        cell = _vs_humans(rep, "m")[0]
        assert isinstance(cell, Footnoted) and cell.text.endswith("(unpaired)")
        assert cell.note == cmp["why"]
        return
    assert cmp["human_on_items"] == pytest.approx(rep.human.value, abs=TOL)
    assert cmp["rater_on_items"] == pytest.approx(compared, abs=TOL)
    if t.score_model_compared is None:
        assert cmp["rater_on_items"] == pytest.approx(printed, abs=TOL)
        assert cmp["rater_metric"] == "its printed score"
    else:
        # Another metric than the printed one: the report says which, and prints it.
        assert cmp["rater_metric"] == t.score_model_compared
        cell = _vs_humans(rep, "m")[1]
        assert t.score_model_compared in cell and f"{compared:.3f}" in cell
    assert _consistent(cmp["position"], cmp["rater_on_items"], cmp["human_on_items"])
    assert cmp["position"] == rep.model_positions["m"]
    # The cell names the human its verdict refers to.
    assert _vs_humans(rep, "m")[0] == f"{cmp['position']} HUME's aggregate"
    if t.score_model_compared is None:
        assert _consistent(rep.model_positions["m"], printed, rep.human.value)


@pytest.mark.parametrize("name", NAMES)
def test_llm_side_is_its_own_printed_score(name: str) -> None:
    _, _, rep = _report(name)
    cmp = rep.paired.get("llm:z")
    if cmp is None or "low" not in cmp:
        pytest.skip(f"{name}: no per-item form of the LLM's score")
    assert cmp["rater_on_items"] == pytest.approx(rep.llm_scores["llm:z"].value, abs=TOL)
    assert cmp["human_on_items"] == pytest.approx(rep.human.value, abs=TOL)
    assert _consistent(cmp["position"], rep.llm_scores["llm:z"].value, rep.human.value)


def test_reranking_model_is_ranked_by_its_similarities_not_read_as_marks() -> None:
    """Hand-checked: trec_eval AP of the example ranking is 1/2 on even queries (c4 first,
    then the one relevant c1) and 1 on odd ones, so MAP 3/4; read as marks it was 0.375."""
    t = task_types.get("reranking")
    answers, _, _ = examples("reranking").MODEL_PAIRED
    gold = examples("reranking").SCORING["gold"]
    s = t.score_model(gold, answers)
    aps = s.details["per_rater_per_query_ap"]["rater"]
    assert [aps[f"q{k}"] for k in range(4)] == pytest.approx([0.5, 1.0, 0.5, 1.0])
    assert s.value == pytest.approx(0.75)
