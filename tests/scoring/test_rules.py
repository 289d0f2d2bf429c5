"""Every registered task type implements :class:`scoring.rules.ScoringRules` fully, and its
rules fit together: what it writes, scoring reads back as the same type; its headline agreement
is one it computes and one the low-agreement flag can judge; a subset of it is reported whole.

Each type's example subset is ``SCORING`` in ``tests/task_type_examples/<type>.py``: a registered
type without one fails here, naming the file to write.
"""

from __future__ import annotations

import inspect
import math

import pytest

from hume_sync import task_types
from hume_sync.report.model import known_types
from scoring.agreement._human_machine import _HM_STATS
from scoring.records import Interval, Score
from scoring.rules import ScoringRules, items_by_bootstrap_scaling
from scoring.subset_report import SubsetInput, evaluate_subset
from scoring.tasks import task_type
from tests.task_type_examples import examples

NAMES = task_types.names()


def _abstract_members() -> list[str]:
    return sorted(ScoringRules.__abstractmethods__)


@pytest.mark.parametrize("name", NAMES)
def test_every_registered_type_has_an_example(name: str) -> None:
    ex = examples(name).SCORING
    assert set(ex) == {"gold", "humans"} and set(ex["humans"]) == {"x", "y", "z"}


@pytest.mark.parametrize("name", NAMES)
def test_type_implements_scoring_rules_fully(name: str) -> None:
    t = task_types.get(name)
    assert isinstance(t, ScoringRules)
    assert not inspect.isabstract(type(t)), sorted(type(t).__abstractmethods__)
    for member in _abstract_members():
        # Defined by the type itself, never the protocol's abstract placeholder.
        assert not getattr(getattr(type(t), member), "__isabstractmethod__", False), member
    assert t.name == name
    assert isinstance(t.score_main_name, str) and t.score_main_name
    low, high = t.score_main_range
    assert low < high
    assert isinstance(t.score_mteb_main_name, str) and t.score_mteb_main_name
    assert isinstance(t.score_annotator_method, str) and t.score_annotator_method
    assert isinstance(t.score_headline_agreement, str) and t.score_headline_agreement
    assert t.score_human_machine_statistic in _HM_STATS


def test_every_member_is_prefixed() -> None:
    """The scoring concern's names never collide with another concern's (interface, model...)."""
    own = {n for n in vars(ScoringRules) if not n.startswith("_")}
    assert own and all(n.startswith("score_") for n in own)


@pytest.mark.parametrize("name", NAMES)
def test_a_result_file_we_write_reads_back_as_the_same_type(name: str) -> None:
    """A block holding the type's main score (as export writes it, or as mteb writes a model's)
    is recognised as the type: the types are told apart in registration order. A type whose
    main score an earlier type shares (multilabel's ``accuracy``) is told apart by the other
    keys of its block: a block holding them all is the type's."""
    t = task_types.get(name)
    keys = (t.score_main_name, t.score_mteb_main_name)
    assert set(keys) <= set(t.score_metric_keys)
    for key in keys:
        found = task_type("SomeStudyTask", {key: 0.5}, known_types())
        assert found is t or (
            found.name in NAMES[: NAMES.index(name)] and key in found.score_metric_keys
        )
    assert task_type("SomeStudyTask", dict.fromkeys(t.score_metric_keys, 0.5), known_types()) is t


@pytest.mark.parametrize("name", NAMES)
def test_a_subset_of_the_type_is_reported_whole(name: str) -> None:
    t = task_types.get(name)
    ex = examples(name).SCORING
    gold = {k: t.score_normalise_answer(v) for k, v in ex["gold"].items()}
    humans = {
        r: {k: t.score_normalise_answer(v) for k, v in a.items()} for r, a in ex["humans"].items()
    }
    inp = SubsetInput(
        key=f"T/{name}",
        task_name="T",
        hf_subset="default",
        task_type=t,
        language="eng-Latn",
        gold=gold,
        humans=humans,
        llms={"llm:copy": humans["x"]},
        models={"m": 0.5},
    )
    rep = evaluate_subset(inp)
    assert rep.warnings == []
    assert isinstance(rep.human, Score) and math.isfinite(rep.human.value)
    assert set(rep.human.per_rater) == {"x", "y", "z"}
    assert isinstance(rep.interval, Interval) and rep.interval.low <= rep.interval.high
    head = rep.headline_agreement
    assert head is not None and head.method == t.score_headline_agreement
    assert isinstance(rep.low_agreement, bool)  # the flag can judge the headline statistic
    assert set(rep.human_llm_agreement) == {"llm:copy"}
    # The copying LLM is scored exactly as annotator x alone.
    assert rep.llm_scores["llm:copy"].value == pytest.approx(rep.human.per_rater["x"])
    assert rep.planning["method"] and rep.to_dict()["task_type"] == name
    for row in rep.disagreements + rep.gold_suspects:
        assert len(row["answers"]) >= 2


def test_disagreement_and_gold_error_rules() -> None:
    cls, sts, clu = (task_types.get(n) for n in ("classification", "sts", "clustering"))
    assert cls.score_disagree(["a", "b"]) and not cls.score_disagree(["a", "a"])
    assert cls.score_agree_not_gold(["b", "b"], "a") and not cls.score_agree_not_gold(
        ["a", "a"], "a"
    )
    assert sts.score_disagree([1, 3]) and not sts.score_disagree([1, 2])
    assert sts.score_agree_not_gold([1, 2], 3.5) and not sts.score_agree_not_gold([1, 2], 3.0)
    # Partitions are judged as a whole, never per item.
    assert not clu.score_disagree([{"t": "1"}, {"t": "2"}])
    assert not clu.score_agree_not_gold([{"t": "1"}, {"t": "1"}], {"t": "a"})


def test_items_by_bootstrap_scaling() -> None:
    boot = Interval(estimate=0.5, low=0.4, high=0.6, level=0.95, method="bootstrap:bca")
    needed, method = items_by_bootstrap_scaling(10, boot, 0.05)
    assert needed == 40 and method == "n × (bootstrap half-width / 0.05)², 1/√n scaling"
    assert items_by_bootstrap_scaling(10, None, 0.05) == (None, "unavailable")
