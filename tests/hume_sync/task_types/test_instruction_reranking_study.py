"""Instruction reranking's study (issue 36): reading FollowIR-shaped sources, the two arms a
subset becomes, and seats that keep one person out of the other arm. No Label Studio."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from hume_sync.cli import main
from hume_sync.labelstudio.annotators import plan_seats
from hume_sync.store import Store, gold
from hume_sync.task_types.instruction_reranking.study import read_query, records_from_mteb
from tests._paths import REPO_ROOT

DATA = REPO_ROOT / "tests" / "data" / "instruction_reranking" / "sib200"
TASK = "FollowSIB"


def _spec(size: int = 6, annotators: int = 2) -> dict[str, Any]:
    return {
        "name": "follow",
        "seed": 7,
        "tasks": [
            {
                "name": TASK,
                "type": "instruction_reranking",
                "source": {"path": str(DATA / "{subset}" / "test.jsonl")},
                "subsets": [{"name": "eng_Latn", "language": "eng-Latn", "size": size}],
                "annotators": annotators,
            }
        ],
    }


@pytest.fixture
def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "hume-home"))
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    d = tmp_path / "study"
    d.mkdir()
    (d / "study.yaml").write_text(yaml.safe_dump(_spec()), encoding="utf-8")
    assert main(["init", str(d), "--spec", str(d / "study.yaml")]) == 0
    return d


def _source() -> dict[str, dict[str, Any]]:
    rows = [json.loads(x) for x in (DATA / "eng_Latn" / "test.jsonl").read_text().splitlines()]
    return {r["id"]: r for r in rows}


def test_a_subset_becomes_two_arms_with_the_same_queries_and_candidates(study: Path) -> None:
    source = _source()
    with Store.open(study) as st:
        subsets = {s.key: s for s in st.subsets()}
        og, changed = f"{TASK}/eng_Latn-og", f"{TASK}/eng_Latn-changed"
        assert list(subsets) == [og, changed]  # in this order, one after the other
        assert subsets[og].config["exclusive_with"] == [changed]
        assert subsets[changed].config["exclusive_with"] == [og]
        assert (subsets[og].config["arm"], subsets[changed].config["arm"]) == ("og", "changed")
        a, b = st.instances(og), st.instances(changed)
        gold_a, gold_b = gold(st, og), gold(st, changed)
        assert len(a) == len(b) == 6
        for x, y in zip(a, b, strict=True):
            assert x.source_id == y.source_id  # the same query in the same place
            assert x.content["candidates"] == y.content["candidates"]
            assert x.content["query"] == y.content["query"]
            row = source[x.source_id]
            assert x.content["instruction"] == row["instruction_og"]
            assert y.content["instruction"] == row["instruction_changed"]
            assert "instructions" not in x.content  # an arm never holds the other instruction
            by_source = {ref.source_id: ref.item_id for ref in st.item_refs(og)[x.hume_id]}
            for cand in row["candidates"]:
                shown = by_source[cand["id"]]
                assert gold_a[x.hume_id][shown] == int(cand["relevant_og"])
                assert gold_b[y.hume_id][shown] == int(cand["relevant_changed"])
            # opaque ids: the shown order is not the source's (a drawn order), ids say nothing
            assert [c["id"] for c in x.content["candidates"]] == [str(n) for n in range(1, 8)]


def test_an_annotator_of_one_arm_never_gets_a_seat_in_the_other(study: Path) -> None:
    og, changed = f"{TASK}/eng_Latn-og", f"{TASK}/eng_Latn-changed"
    with Store.open(study) as st:
        slots = [
            st.add_annotator(f"p{n}@x.org", ["eng"], f"http://127.0.0.1:{n + 1}", 2).slot
            for n in range(3)
        ]
        seats = plan_seats(st)
        # two seats per arm, three people: the first two take the original arm, the third
        # the changed one, whose second seat stays open rather than go to an og annotator
        assert seats[og] == slots[:2]
        assert seats[changed] == [slots[2], None]
        st.add_annotator("p3@x.org", ["eng"], "http://127.0.0.1:9", 2)
        seats = plan_seats(st)
        assert not set(seats[og]) & set(seats[changed])
        assert None not in seats[changed]


def test_a_row_without_a_changed_relevance_is_refused_in_one_line() -> None:
    row = {
        "id": "q1",
        "query": "q",
        "instruction_og": "a or b",
        "instruction_changed": "a only",
        "candidates": [{"id": "d1", "text": "t", "relevant_og": True}],
    }
    with pytest.raises(Exception, match="candidate 'd1': missing field 'relevant_changed'"):
        read_query(row, "f.jsonl", 3)
    same = dict(row, instruction_changed="a or b")
    same["candidates"] = [dict(row["candidates"][0], relevant_changed=False)]
    with pytest.raises(Exception, match="its two instructions are the same"):
        read_query(same, "f.jsonl", 3)


def _mteb_split(changed_top: list[str] | None = None) -> dict[str, Any]:
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict
    return {
        "corpus": ds({"id": ["a", "b", "c"], "title": ["T", "", ""], "text": ["x", "y", "z"]}),
        "queries": ds(
            {
                "id": ["1-og", "1-changed"],
                "text": ["query", "query"],
                "instruction": ["a or b", "a, not b"],
            }
        ),
        "relevant_docs": {"1-og": {"a": 1, "b": 1, "c": 0}, "1-changed": {"a": 1, "b": 0}},
        "top_ranked": {"1-og": ["a", "b", "c"], "1-changed": changed_top or ["a", "b", "c"]},
    }


def test_mtebs_og_and_changed_queries_are_paired() -> None:
    [q] = records_from_mteb(_mteb_split())
    assert (q.id, q.query, q.instruction_og, q.instruction_changed) == (
        "1",
        "query",
        "a or b",
        "a, not b",
    )
    assert [c.text for c in q.candidates] == ["T x", "y", "z"]  # mteb's title + text
    assert q.changed == ("b",)  # relevant under the original instruction only
    with pytest.raises(Exception, match="its two versions rank other candidates"):
        records_from_mteb(_mteb_split(["c", "b", "a"]))


def test_candidates_cut_keeps_every_changed_document(tmp_path: Path) -> None:
    """``candidates: 4`` of seven: both changed documents, one relevant under both
    instructions, one drawn; the two arms show the same four."""
    from hume_sync.store import Store as S

    d = tmp_path / "cut"
    d.mkdir()
    spec = _spec(size=5, annotators=1)
    spec["tasks"][0]["candidates"] = 4
    (d / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    assert main(["init", str(d), "--spec", str(d / "study.yaml")]) == 0
    source = _source()
    with S.open(d) as st:
        og, changed = f"{TASK}/eng_Latn-og", f"{TASK}/eng_Latn-changed"
        assert st.subset(og).config["candidates"] == 4
        refs = st.item_refs(og)
        for inst in st.instances(og):
            kept = {r.source_id for r in refs[inst.hume_id]}
            cands = source[inst.source_id]["candidates"]
            ruled_out = {c["id"] for c in cands if c["relevant_og"] and not c["relevant_changed"]}
            both = {c["id"] for c in cands if c["relevant_og"] and c["relevant_changed"]}
            assert len(kept) == 4 and ruled_out <= kept and kept & both
        assert [i.content["candidates"] for i in st.instances(changed)] == [
            i.content["candidates"] for i in st.instances(og)
        ]


def test_setup_says_an_open_arm_seat_needs_someone_of_no_other_arm(study: Path) -> None:
    from hume_sync.workflow.setup import OpenSeat, setup_study

    def no_server(url: str) -> Any:
        raise AssertionError(f"setup asked for the server at {url} with no annotator seated")

    og, changed = f"{TASK}/eng_Latn-og", f"{TASK}/eng_Latn-changed"
    with Store.open(study) as st:
        st.add_annotator("a@x.org", ["ara"], "http://127.0.0.1:1", 2)  # seated nowhere
        summary = setup_study(st, no_server)
    assert summary.projects == []
    assert summary.open_seats == [
        OpenSeat(og, f"eng with no seat in {changed}"),
        OpenSeat(og, f"eng with no seat in {changed}"),
        OpenSeat(changed, f"eng with no seat in {og}"),
        OpenSeat(changed, f"eng with no seat in {og}"),
    ]
