"""Effort, cost and quality signals read from a study store (hume_sync.rules.effort_quality).

A real study (SIB-200 classification and reranking, three annotators per item) is filled in its
store directly with known lead times: annotator-1 careful (one task left open over lunch),
annotator-2 straight-lining (one label for everything, five items still to do), annotator-3
rushing (half their classification answers in 3 s) and always marking the first two
candidates shown. The numbers are recomputed here from the scripted times, not read from the code.
"""

from __future__ import annotations

import json
import math
import statistics
from typing import Any

import pytest

from hume_sync.cli import main
from hume_sync.rules.effort_quality import Flag, _summary, effort_quality
from hume_sync.store import AnnotationRecord, Store
from tests._studies import real_data_spec, write_spec

CLS = "SIB200Classification/eng_Latn"
N_CLS, N_RERANK = 20, 35


def _script(store: Store) -> dict[str, Any]:
    """Annotate classification and reranking; returns the scripted times per annotator."""
    a1, a2, a3 = (
        store.add_annotator(
            f"ann{i}@example.org", ["eng"], f"http://127.0.0.1:{9200 + i}", None
        ).key
        for i in (1, 2, 3)
    )
    labels = list(store.subset(CLS).config["label_set"])
    rerank = next(s.key for s in store.subsets() if s.task_name == "SIB200Reranking")
    records, n = [], 0

    def add(who: str, inst: Any, answer: Any, lead: float) -> None:
        nonlocal n
        n += 1
        records.append(AnnotationRecord(n, inst.hume_id, 5000 + n, who, answer, lead_time=lead))

    times: dict[str, list[float]] = {a1: [], a2: [], a3: []}
    for k, inst in enumerate(store.instances(CLS)):
        t1 = 3600.0 if k == 0 else 20.0 + k  # item 0 left open over lunch
        t3 = 3.0 if k < 10 else 30.0  # rushing on half
        add(a1, inst, labels[k % len(labels)], t1)
        add(a3, inst, labels[(k + 1) % len(labels)], t3)
        times[a1].append(t1)
        times[a3].append(t3)
        if k < 15:  # annotator-2 still owes five
            add(a2, inst, labels[0], 25.0)
            times[a2].append(25.0)
    store.upsert_annotations(records, subset=CLS)
    records.clear()
    shown = []
    for k, inst in enumerate(store.instances(rerank)):
        ids = [c["id"] for c in inst.content["candidates"]]  # in the order shown
        shown.append(len(ids))
        spread = {k % len(ids), (k + 3) % len(ids)}  # two places, turn about
        add(a1, inst, {c: int(i in spread) for i, c in enumerate(ids)}, 40.0)
        add(a3, inst, {c: int(i < 2) for i, c in enumerate(ids)}, 40.0)  # always the first two
    store.upsert_annotations(records, subset=rerank)
    return {
        "keys": (a1, a2, a3),
        "times": times,
        "rerank": rerank,
        "shown": shown,
        "labels": labels,
    }


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("effort") / "study"
    spec = real_data_spec("efforttest", 5, cls_eng=N_CLS, cls_arb=8, sts=6, rerank=N_RERANK)
    spec["annotators"] = 3
    assert main(["init", str(root), "--spec", str(write_spec(root, spec))]) == 0
    with Store.open(root) as store:
        made = _script(store)
        made["report"] = effort_quality(store)
    made["root"] = root
    return made


def _seat(study: dict[str, Any], subset: str, who: str) -> Any:
    return next(s for s in study["report"].seats if s.subset == subset and s.annotator == who)


def test_hours_are_capped_lead_times(study: dict[str, Any]) -> None:
    a1, a2, a3 = study["keys"]
    every = [t for who in (a1, a2, a3) for t in study["times"][who]]
    cap = min(max(5 * statistics.median(every), 60.0), 1800.0)
    timing = study["report"].types["classification"]
    assert timing.cap_s == pytest.approx(cap)
    assert cap < 3600.0  # the lunch is cut
    capped = {who: [min(t, cap) for t in study["times"][who]] for who in (a1, a2, a3)}
    e1 = _seat(study, CLS, a1).effort
    assert e1.hours_so_far == pytest.approx(sum(capped[a1]) / 3600)
    assert e1.n_capped == 1 and e1.items_owed == 0
    # annotator-2: 15 answered at 25 s, 5 owed at their own 25 s.
    e2 = _seat(study, CLS, a2).effort
    assert e2.hours_so_far == pytest.approx(15 * 25 / 3600)
    assert (e2.items_owed, e2.rate_from) == (5, "own")
    assert e2.hours_owed == pytest.approx(5 * 25 / 3600)
    mean = sum(sum(c) for c in capped.values()) / len(every)
    assert timing.mean_s == pytest.approx(mean)


def test_open_seats_are_owed_at_the_panels_rate(study: dict[str, Any]) -> None:
    a1 = study["keys"][0]
    # Reranking: annotator-1 and -3 hold two of its three seats; the open one owes every
    # query at the panel's 40 s; annotator-1 and -3 have booked 40 s per query each (the
    # source has 34 queries with a relevant candidate: fewer than the 35 asked).
    n_rerank = len(study["shown"])
    assert n_rerank == 34
    sub = next(s for s in study["report"].subsets if s.subset == study["rerank"])
    assert sub.open_seats == 1 and sub.overlap == 3
    assert sub.effort.hours_owed == pytest.approx(n_rerank * 40 / 3600)
    assert sub.effort.hours_so_far == pytest.approx(2 * n_rerank * 40 / 3600)
    summary = {a.annotator: a for a in study["report"].annotators}
    assert summary[a1].effort.hours_so_far == pytest.approx(
        _seat(study, CLS, a1).effort.hours_so_far + n_rerank * 40 / 3600
    )
    # The clustering subset nobody has touched: its items are owed but unpriced.
    clu = next(s for s in study["report"].subsets if s.task_type == "clustering")
    assert clu.effort.unpriced_items == 3 * clu.n_items and clu.effort.hours_owed == 0.0


def test_rushing_and_straight_lining_are_flagged(study: dict[str, Any]) -> None:
    a1, a2, a3 = study["keys"]
    t = study["times"]
    # annotator-3 against the others' median: 10 of 20 under a quarter of it.
    others = statistics.median(t[a1] + t[a2])
    assert 0.25 * others > 3.0
    fast = _seat(study, CLS, a3).fast
    assert fast.value == pytest.approx(10 / 20) and fast.flagged
    assert not _seat(study, CLS, a1).fast.flagged
    # annotator-2: one label for all 15 answers, over a label set of k; (1 + 1/k) / 2.
    k = len(study["labels"])
    straight = _seat(study, CLS, a2).straight_lining
    assert straight.value == 1.0 and straight.threshold == pytest.approx((1 + 1 / k) / 2)
    assert straight.flagged and not _seat(study, CLS, a1).straight_lining.flagged
    summary = {a.annotator: a for a in study["report"].annotators}
    assert [str(f) for f in summary[a2].flags] == [f"straight-lining on {CLS}"]
    assert summary[a2].flags[0].measured == straight  # the flag carries the seat's number
    assert summary[a1].flags == ()
    # Marking the first two every time is also one answer for everything.
    rr = study["rerank"]
    rerank = f"straight-lining on {rr}"
    assert [str(f) for f in summary[a3].flags] == [
        f"fast answers on {CLS}",
        rerank,
        f"position bias on {rr}",
    ]
    # Pooled over both subsets, 10 fast of 54 is under the 0.2 bar: no "overall" flag.
    assert summary[a3].fast.value == pytest.approx(10 / 54) and not summary[a3].fast.flagged


def test_position_bias_against_the_shuffled_expectation(study: dict[str, Any]) -> None:
    a1, _, a3 = study["keys"]
    shown = study["shown"]
    width = max(shown)
    # Two marks among n shuffled places put 2/n on each; annotator-3 marks the first two.
    expected = [sum(2 / n for n in shown if p < n) for p in range(width)]
    observed = [len(shown)] * 2 + [0] * (width - 2)
    x = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    df = width - 1
    assert df % 2 == 0  # even df: sf = e^(-x/2) Σ_{i<df/2} (x/2)^i / i!
    closed = math.exp(-x / 2) * sum((x / 2) ** i / math.factorial(i) for i in range(df // 2))
    bias = _seat(study, study["rerank"], a3).position_bias
    assert bias.details["statistic"] == pytest.approx(x)
    assert bias.value == pytest.approx(closed, rel=1e-6, abs=1e-300)
    assert bias.flagged
    assert not _seat(study, study["rerank"], a1).position_bias.flagged
    # Classification's choices are listed in one fixed order: no position is tested there.
    assert _seat(study, CLS, a3).position_bias.value is None


def test_target_cost_and_json(study: dict[str, Any]) -> None:
    report = study["report"]
    mean = report.types["classification"].mean_s
    cost = report.target_cost(CLS, 385, rate_per_hour=20.0)
    assert cost.annotator_hours == pytest.approx(385 * 3 * mean / 3600)
    assert cost.cost == pytest.approx(385 * 3 * mean / 3600 * 20.0)
    data = json.loads(json.dumps(report.to_dict()))
    assert {s["annotator"] for s in data["seats"]} == set(study["keys"])
    assert data["types"]["classification"]["cap_s"] == report.types["classification"].cap_s
    assert "lead_time" in data["effort_method"] and "chi-square" in data["quality_method"]


def test_seats_given_and_no_gold_read(
    study: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hume_sync.store.instances import InstanceReader

    def no_gold(*_: Any) -> Any:
        raise AssertionError("gold read while the study is open")

    monkeypatch.setattr(InstanceReader, "_gold", no_gold)
    with Store.open(study["root"]) as store:
        seats = {CLS: [1, 2, 3], study["rerank"]: [1, 3, None]}
        report = effort_quality(store, seats)
    sub = next(s for s in report.subsets if s.subset == study["rerank"])
    assert sub.open_seats == 1
    cls = next(s for s in report.subsets if s.subset == CLS)
    assert cls.open_seats == 0 and cls.effort.items_owed == 5


def test_each_type_says_what_its_answers_show() -> None:
    from hume_sync import task_types

    content = {"query": "q", "candidates": [{"id": i, "text": i} for i in ("3", "1", "2")]}
    rerank = task_types.get("reranking")
    view = rerank.quality_view({"1": 1, "2": 0, "3": 1}, content, {"shuffle_candidates": True})
    # Shown as 3, 1, 2: the marked "3" and "1" are the first two places.
    assert view is not None and view.positions == (0, 1) and view.n_shown == 3
    fixed = rerank.quality_view({"1": 1, "2": 0, "3": 1}, content, {"shuffle_candidates": False})
    assert fixed is not None and fixed.positions is None and fixed.choice == (0, 1)
    cls = task_types.get("classification").quality_view("b", {}, {"label_set": ["a", "b", "c"]})
    assert cls is not None and (cls.choice, cls.n_options, cls.positions) == ("b", 3, None)
    sts = task_types.get("sts").quality_view(4, {}, {})
    pair = task_types.get("pair_classification").quality_view(1, {}, {})
    assert sts is not None and sts.n_options == 6
    assert pair is not None and pair.n_options == 2
    assert task_types.get("clustering").quality_view({"1": "group_1"}, {}, {}) is None


def test_a_subsets_views_in_one_batch_are_each_answers_view() -> None:
    """``quality_views`` (content checked once per instance, one view per distinct label or
    level) gives what ``quality_view`` gives answer by answer, in order, and still refuses a
    bad instance."""
    from hume_sync import task_types
    from label_studio_configs.errors import InvalidContentError

    one = {"query": "q", "candidates": [{"id": i, "text": i} for i in ("3", "1", "2")]}
    two = {"query": "r", "candidates": [{"id": i, "text": i} for i in ("1", "2")]}
    bitext = {"source": "s", "candidates": [{"id": i, "text": i} for i in ("t1", "t2")]}
    contents: dict[str, dict[str, Any]] = {"one": one, "two": two, "bitext": bitext, "x": {}}
    cases: list[tuple[str, dict[str, Any], list[tuple[Any, str]]]] = [
        (
            "reranking",
            {"shuffle_candidates": True},
            [({"1": 1, "3": 1}, "one"), ({"2": 1}, "two"), ("no", "one"), ({"3": 1}, "one")],
        ),
        ("bitext_mining", {}, [("t2", "bitext"), ("t1", "bitext"), ("t9", "bitext")]),
        ("classification", {"label_set": ["a", "b"]}, [("b", "x"), ("a", "x"), ("b", "x")]),
        ("sts", {}, [(4, "x"), (4.0, "x"), (0, "x")]),
        ("pair_classification", {}, [(1, "x"), (0, "x")]),
    ]
    for name, config, pairs in cases:
        kind = task_types.get(name)
        one_by_one = [kind.quality_view(a, contents[i], config) for a, i in pairs]
        answers, instances = [a for a, _ in pairs], [i for _, i in pairs]
        assert kind.quality_views(answers, instances, contents, config) == one_by_one, name
        assert any(v is not None for v in one_by_one), name
    with pytest.raises(InvalidContentError):
        task_types.get("reranking").quality_views([{"1": 1}], ["bad"], {"bad": {}}, {})


def test_a_signal_too_thin_in_each_subset_is_flagged_pooled() -> None:
    """Six fast answers on each of two subsets: each seat has fewer than 10 answers (never
    flagged), but pooled, 12 of 12 under a quarter of the others' median is; the flag then
    names no subset, and one subset's flag of the same signal would have stood instead."""
    pooled: dict[str, list[Any]] = {
        "times": [1.0] * 12, "refs": [20.0] * 12, "shown": [], "efforts": [], "flags": [],
    }  # fmt: skip
    summary = _summary("annotator-9", pooled, False)
    assert [str(f) for f in summary.flags] == ["fast answers overall"]
    assert summary.flags[0].subset is None and summary.flags[0].measured.value == 1.0
    seat_flag = Flag("fast", "T/x", summary.fast)
    again = _summary("annotator-9", {**pooled, "flags": [seat_flag]}, False)
    assert again.flags == (seat_flag,)
