"""Retrieval end to end in real Label Studio servers, like the other types.

A small study on the STS-B-derived BEIR set goes through every step a user runs: ``init`` (each
drawn query pooled from the whole corpus by the suite's fake encoder and BM25), ``predict``
(the same encoder), ``annotators add`` and ``setup`` (one Label Studio per annotator), two
annotators grading every pooled document through the SDK with their own tokens, ``pull``,
``close``, ``reveal`` and ``export``. The exported human score must be the type's rule
(nDCG@10 of each annotator's grades, expected over random orders within a grade) on exactly
what was submitted, and the model's the pooled score ``predict`` stored.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.store import Store, gold
from hume_sync.study.spec import parse_spec
from hume_sync.task_types.retrieval.judgments import write_judgments
from hume_sync.task_types.retrieval.pooling import pooling_context
from hume_sync.workflow.init import init_from_spec
from hume_sync.workflow.predict import predict_study
from scoring.aggregation.retrieval import human_retrieval
from tests._annotate import hume_env, register
from tests._fake_encoder import FakeEncoder
from tests._paths import REPO_ROOT

pytestmark = pytest.mark.labelstudio

SUBSET = "STSBRetrieval/default"
QRELS = REPO_ROOT / "tests" / "data" / "retrieval" / "stsb" / "qrels" / "test.tsv"
N_QUERIES = 4


def spec() -> dict[str, Any]:
    return {
        "name": "retrieval-e2e",
        "seed": 3,
        "tasks": [
            {
                "name": "STSBRetrieval",
                "type": "retrieval",
                "source": {"path": str(QRELS)},
                "pool_depth": 3,
                "subsets": [{"language": "eng-Latn", "size": N_QUERIES, "annotators": 2}],
            }
        ],
    }


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Any:
    """Initialised, predicted, set up, graded by both annotators, pulled, closed, revealed and
    exported once; the tests read what each step left."""
    root = tmp_path_factory.mktemp("retrieval")
    mp = hume_env(root)
    study_dir = root / "study"
    study_dir.mkdir()
    data = spec()
    (study_dir / "study.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    encoder = FakeEncoder(dim=16)
    with pooling_context(encoders=[encoder]):
        init_from_spec(
            study_dir, parse_spec(data, file=str(study_dir / "study.yaml"), base_dir=study_dir)
        )
    with Store.open(study_dir) as store:
        predict_study(study_dir, store, encoders=[encoder], progress=False)
    a, b = annotator_servers
    register(study_dir, a, "eng", mp)
    register(study_dir, b, "eng", mp)
    assert main(["setup", str(study_dir)]) == 0
    clients = {1: a.server.client(a.token), 2: b.server.client(b.token)}
    submitted: dict[str, dict[str, dict[str, int]]] = {"annotator-1": {}, "annotator-2": {}}
    with Store.open(study_dir) as store:
        subset = store.subset(SUBSET)
        interface = task_types.get(subset.task_type)
        golds = gold(store, SUBSET)
        for inst in store.instances(SUBSET):
            kw = interface.ls_translation_kwargs(subset.config, inst.content)
            docs = [c["id"] for c in inst.content["candidates"]]
            # A grades as qrels do (an unjudged document: 0); B also calls the first unjudged
            # document highly relevant, a relevant document qrels miss.
            first = {d: int(golds[inst.hume_id].get(d, 0)) for d in docs}
            second = dict(first)
            unjudged = [d for d in docs if d not in golds[inst.hume_id]]
            if unjudged:
                second[unjudged[0]] = 2
            for slot, answer in ((1, first), (2, second)):
                task = store.slot_tasks(SUBSET, slot)[inst.hume_id]
                clients[slot].create_annotation(
                    task, interface.ls_answer_to_result(answer, **kw), lead_time=9.0
                )
                submitted[f"annotator-{slot}"][inst.hume_id] = answer
        stored = store.model_subset_scores()[encoder.model_version][SUBSET]
    assert main(["pull", str(study_dir)]) == 0
    assert main(["close", str(study_dir)]) == 0
    assert main(["reveal", str(study_dir)]) == 0
    out = root / "report"
    assert main(["export", str(study_dir), "--out", str(out)]) == 0
    yield {
        "dir": study_dir,
        "out": out,
        "a": a,
        "gold": golds,
        "submitted": submitted,
        "stored": stored,
        "model_version": encoder.model_version,
    }
    mp.undo()


def exported(study: dict[str, Any]) -> dict[str, Any]:
    data = json.loads((study["out"] / "scores.json").read_text())
    return next(s for s in data["subsets"] if s["subset"] == SUBSET)


def test_annotators_see_the_pool_and_never_a_grade_or_a_system(study) -> None:
    with Store.open(study["dir"]) as store:
        projects = store.slot_projects(SUBSET)
        assert len(projects) == 2
        p1 = next(p for p in projects if p.slot == 1)
        client = study["a"].server.client()
        config = client.get_project(p1.ls_project_id)["label_config"]
        assert 'name="grade_2" title="highly"' in config
        for task in client.list_tasks(p1.ls_project_id):
            assert set(task["data"]) == {
                "hume_ref", "hume_position", "query", "instruction", "candidates"
            }  # fmt: skip
            text = json.dumps(task["data"])
            assert "bm25" not in text and "emb:" not in text and "grade" not in text


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    with Store.open(study["dir"]) as store:
        rows = store.annotations(SUBSET)
    valid: dict[str, dict[str, Any]] = {}
    for r in rows:
        assert r.status == "valid", r.error
        valid.setdefault(r.annotator, {})[r.hume_id] = r.answer
    assert valid == study["submitted"]


def test_the_human_score_is_the_types_rule_on_what_was_submitted(study) -> None:
    s = exported(study)
    by_rule = human_retrieval(study["gold"], study["submitted"])
    assert s["human"]["value"] == pytest.approx(by_rule.value, abs=1e-12)
    assert s["human"]["method"] == by_rule.method
    # annotator-1 graded as qrels: their ranking is ideal on every query
    assert s["human"]["per_rater"]["annotator-1"] == pytest.approx(1.0)
    # annotator-2 put an unjudged document first: penalised by default, not when condensed
    assert s["human"]["per_rater"]["annotator-2"] < 1.0
    details = s["human"]["details"]
    assert details["ndcg_at_10"] < 1.0 and details["condensed_ndcg_at_10"] == pytest.approx(1.0)
    assert 0 < details["judged_at_10"] <= 1.0
    # every grade ties with others: the expected value is reported, the shown order's beside it
    assert s["ties"]["rule"] == "random_expected" and "input_order" in s["ties"]["scores"]
    print(f"\n[retrieval e2e] human nDCG@10 {s['human']['value']!r}")


def test_the_model_score_is_its_pooled_score(study) -> None:
    s = exported(study)
    stored = study["stored"]
    assert s["models"][study["model_version"]] == pytest.approx(stored.main_score, abs=1e-12)
    assert stored.main_score == stored.scores["ndcg_at_10"]
    assert "full_corpus_ndcg_at_10" in stored.scores and "judged_at_10" in stored.scores


def test_the_judgments_are_exported_as_trec_qrels(study, tmp_path) -> None:
    """Each annotator's grades and the aggregate in TREC's format, under the source's ids; B's
    relevant unjudged documents are the missing judgments; the model's score against qrels is
    its stored pooled score."""
    import pytrec_eval

    with Store.open(study["dir"]) as store:
        files = write_judgments(store, SUBSET, tmp_path)
        queries = {i.hume_id: i.source_id for i in store.instances(SUBSET)}
        refs = store.item_refs(SUBSET)
    names = sorted(p.name for p in files)
    assert names == [
        "judgments.json", "qrels.aggregate.txt", "qrels.annotator-1.txt", "qrels.annotator-2.txt"
    ]  # fmt: skip
    first = pytrec_eval.parse_qrel((tmp_path / "qrels.annotator-1.txt").read_text().splitlines())
    to_source = {h: {r.item_id: r.source_id for r in rs} for h, rs in refs.items()}
    want = {
        queries[h]: {to_source[h][d]: g for d, g in answer.items()}
        for h, answer in study["submitted"]["annotator-1"].items()
    }
    assert first == want
    summary = json.loads((tmp_path / "judgments.json").read_text())
    second = study["submitted"]["annotator-2"]
    # B's extra "highly" is outvoted by A's 0 in the lower median: no missing judgment
    assert summary["missing"] == {}
    assert set(summary["models"]) == {study["model_version"]}
    model = summary["models"][study["model_version"]]
    assert model["ndcg_at_10"] == pytest.approx(study["stored"].scores["ndcg_at_10"])
    assert model["augmented_ndcg_at_10"] == pytest.approx(model["ndcg_at_10"])
    assert any(2 in a.values() for a in second.values())


def _ndcg10(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> float:
    """Mean nDCG@10 by pytrec_eval over the queries with a relevant document."""
    import pytrec_eval

    kept = {q: g for q, g in qrels.items() if any(v > 0 for v in g.values())}
    per = pytrec_eval.RelevanceEvaluator(kept, {"ndcg_cut.10"}).evaluate(
        {q: run.get(q, {}) for q in kept}
    )
    return sum(v["ndcg_cut_10"] for v in per.values()) / len(per)


def _report_row(md: str, name: str) -> list[str]:
    """A row of the retrieval section's table in report.md, by its first cell."""
    start = md.index("## Retrieval: whole corpus, pool and judgments")
    end = md.find("\n## ", start + 1)
    part = md[start : end if end > 0 else None]
    line = next(x for x in part.splitlines() if x.startswith(f"| {name} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_export_writes_the_judgments_and_the_report_names_each_score(study) -> None:
    """The export's own qrels files, and the report's retrieval rows: the model's pooled and
    qrels ∪ humans nDCG@10 recomputed here by pytrec_eval on its recorded pooled ranking, its
    whole-corpus score as predict stored it, and the humans' pooled and condensed scores."""
    import pytrec_eval

    out = study["out"]
    folder = out / "judgments" / "STSBRetrieval" / "default"
    with Store.open(study["dir"]) as store:
        queries = {i.hume_id: i.source_id for i in store.instances(SUBSET)}
        to_source = {
            h: {r.item_id: r.source_id for r in rs} for h, rs in store.item_refs(SUBSET).items()
        }
        run = {
            queries[p.hume_id]: {to_source[p.hume_id][d]: float(s) for d, s in p.answer.items()}
            for p in store.predictions(SUBSET, model_version=study["model_version"])
        }
    source = {
        who: {
            queries[h]: {to_source[h][d]: g for d, g in answer.items()}
            for h, answer in answers.items()
        }
        for who, answers in study["submitted"].items()
    }
    for who, grades in source.items():
        lines = (folder / f"qrels.{who}.txt").read_text().splitlines()
        assert len(lines) == sum(len(g) for g in grades.values())
        assert pytrec_eval.parse_qrel(lines) == grades
    # the lower median of A (as qrels, 0 where unjudged) and B (one unjudged "highly") is A
    aggregate = pytrec_eval.parse_qrel((folder / "qrels.aggregate.txt").read_text().splitlines())
    assert aggregate == source["annotator-1"]
    qrels = {
        queries[h]: {to_source[h][d]: int(g) for d, g in grades.items()}
        for h, grades in study["gold"].items()
    }
    md = (out / "report.md").read_text(encoding="utf-8")
    html_page = (out / "report.html").read_text(encoding="utf-8")
    assert "Retrieval: whole corpus, pool and judgments" in html_page
    model = _report_row(md, study["model_version"])
    stored = study["stored"].scores
    assert model[1] == f"{stored['full_corpus_ndcg_at_10']:.3f}"
    assert model[2] == f"{_ndcg10(qrels, run):.3f}"
    assert model[3] == f"{stored['judged_at_10']:.3f}"
    assert model[4] == f"{stored['condensed_ndcg_at_10']:.3f}"
    augmented = {q: {**aggregate.get(q, {}), **g} for q, g in qrels.items()}
    assert model[5] == f"{_ndcg10(augmented, run):.3f}"
    humans = _report_row(md, "Humans")
    s = exported(study)
    assert humans[2] == f"{s['human']['value']:.3f}"
    assert humans[3] == f"{s['human']['details']['judged_at_10']:.3f}"
    assert humans[4] == "1.000"  # both graded qrels' documents as qrels do
    assert humans[1].startswith("n/a") and humans[5].startswith("n/a")
    # B's unjudged "highly" is outvoted: no missing judgment; every file is listed
    assert "**Missing judgments** none" in md
    for name in ("qrels.annotator-1.txt", "qrels.annotator-2.txt", "qrels.aggregate.txt"):
        assert f"- judgments/STSBRetrieval/default/{name}" in md
