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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from hume_sync.store import Store
from hume_sync.study.spec import parse_spec
from hume_sync.task_types.retrieval.judgments import write_judgments
from hume_sync.task_types.retrieval.pooling import pooling_context
from hume_sync.workflow.init import init_from_spec
from scoring.aggregation.retrieval import human_retrieval
from tests._fake_encoder import FakeEncoder
from tests._paths import REPO_ROOT
from tests.integration import _type_e2e as e2e

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


def choose(subset: Any, inst: Any, right: dict[str, int]) -> dict[int, dict[str, int]]:
    """A grades as qrels do (an unjudged document: 0); B also calls the first unjudged document
    highly relevant, a relevant document qrels miss."""
    docs = [c["id"] for c in inst.content["candidates"]]
    first = {d: int(right.get(d, 0)) for d in docs}
    second = dict(first)
    unjudged = [d for d in docs if d not in right]
    if unjudged:
        second[unjudged[0]] = 2
    return {1: first, 2: second}


@pytest.fixture(scope="module")
def study(annotator_servers, tmp_path_factory) -> Iterator[e2e.TypeStudy]:
    """Initialised (each query pooled by the fake encoder and BM25), predicted, set up, graded
    by both annotators, pulled, closed, revealed and exported once; the tests read what each
    step left."""
    encoder = FakeEncoder(dim=16)

    def init(study_dir: Path, data: dict[str, Any]) -> None:
        study_dir.mkdir()
        (study_dir / "study.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
        parsed = parse_spec(data, file=str(study_dir / "study.yaml"), base_dir=study_dir)
        with pooling_context(encoders=[encoder]):
            init_from_spec(study_dir, parsed)

    with e2e.set_up(annotator_servers, tmp_path_factory, spec(), encoder=encoder, init=init) as s:
        e2e.answer(s, [SUBSET], choose, lead_time=9.0)
        e2e.close_and_export(s)
        yield s


def stored(study: e2e.TypeStudy) -> Any:
    """The model's pooled score as ``predict`` stored it."""
    with Store.open(study.dir) as store:
        return store.model_subset_scores()[study.model_version][SUBSET]


def test_annotators_see_the_pool_and_never_a_grade_or_a_system(study) -> None:
    with Store.open(study.dir) as store:
        assert len(store.slot_projects(SUBSET)) == 2
    config, tasks = study.shown(SUBSET)
    assert 'name="grade_2" title="highly"' in config
    assert len(tasks) == N_QUERIES
    for task in tasks:
        assert set(task["data"]) == {
            "hume_ref", "hume_position", "query", "instruction", "candidates"
        }  # fmt: skip
        text = json.dumps(task["data"])
        assert "bm25" not in text and "emb:" not in text and "grade" not in text


def test_pull_stores_exactly_what_was_submitted(study) -> None:
    assert study.pulled(SUBSET) == study.submitted[SUBSET]


def test_the_human_score_is_the_types_rule_on_what_was_submitted(study) -> None:
    s = study.exported(SUBSET)
    by_rule = human_retrieval(study.gold(SUBSET), study.submitted[SUBSET])
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
    s = study.exported(SUBSET)
    pooled = stored(study)
    assert s["models"][study.model_version] == pytest.approx(pooled.main_score, abs=1e-12)
    assert pooled.main_score == pooled.scores["ndcg_at_10"]
    assert "full_corpus_ndcg_at_10" in pooled.scores and "judged_at_10" in pooled.scores


def test_the_judgments_are_exported_as_trec_qrels(study, tmp_path) -> None:
    """Each annotator's grades and the aggregate in TREC's format, under the source's ids; B's
    relevant unjudged documents are the missing judgments; the model's score against qrels is
    its stored pooled score."""
    import pytrec_eval

    with Store.open(study.dir) as store:
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
        for h, answer in study.submitted[SUBSET]["annotator-1"].items()
    }
    assert first == want
    summary = json.loads((tmp_path / "judgments.json").read_text())
    second = study.submitted[SUBSET]["annotator-2"]
    # B's extra "highly" is outvoted by A's 0 in the lower median: no missing judgment
    assert summary["missing"] == {}
    assert set(summary["models"]) == {study.model_version}
    model = summary["models"][study.model_version]
    assert model["ndcg_at_10"] == pytest.approx(stored(study).scores["ndcg_at_10"])
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

    out = study.out
    folder = out / "judgments" / "STSBRetrieval" / "default"
    with Store.open(study.dir) as store:
        queries = {i.hume_id: i.source_id for i in store.instances(SUBSET)}
        to_source = {
            h: {r.item_id: r.source_id for r in rs} for h, rs in store.item_refs(SUBSET).items()
        }
        run = {
            queries[p.hume_id]: {to_source[p.hume_id][d]: float(s) for d, s in p.answer.items()}
            for p in store.predictions(SUBSET, model_version=study.model_version)
        }
    source = {
        who: {
            queries[h]: {to_source[h][d]: g for d, g in answer.items()}
            for h, answer in answers.items()
        }
        for who, answers in study.submitted[SUBSET].items()
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
        for h, grades in study.gold(SUBSET).items()
    }
    md = (out / "report.md").read_text(encoding="utf-8")
    html_page = (out / "report.html").read_text(encoding="utf-8")
    assert "Retrieval: whole corpus, pool and judgments" in html_page
    model = _report_row(md, study.model_version)
    scores = stored(study).scores
    assert model[1] == f"{scores['full_corpus_ndcg_at_10']:.3f}"
    assert model[2] == f"{_ndcg10(qrels, run):.3f}"
    assert model[3] == f"{scores['judged_at_10']:.3f}"
    assert model[4] == f"{scores['condensed_ndcg_at_10']:.3f}"
    augmented = {q: {**aggregate.get(q, {}), **g} for q, g in qrels.items()}
    assert model[5] == f"{_ndcg10(augmented, run):.3f}"
    humans = _report_row(md, "Humans")
    s = study.exported(SUBSET)
    assert humans[2] == f"{s['human']['value']:.3f}"
    assert humans[3] == f"{s['human']['details']['judged_at_10']:.3f}"
    assert humans[4] == "1.000"  # both graded qrels' documents as qrels do
    assert humans[1].startswith("n/a") and humans[5].startswith("n/a")
    # B's unjudged "highly" is outvoted: no missing judgment; every file is listed
    assert "**Missing judgments** none" in md
    for name in ("qrels.annotator-1.txt", "qrels.annotator-2.txt", "qrels.aggregate.txt"):
        assert f"- judgments/STSBRetrieval/default/{name}" in md
