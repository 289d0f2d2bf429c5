"""A retrieval subset's report section and judgment files, through ``export`` (no Label Studio).

A small study on the STS-B-derived BEIR set is initialised and predicted with the suite's fake
encoder; two annotators' grades go into the store as ``pull`` would put them (both call the
first unjudged document of the first query highly relevant: a missing judgment). ``export``
must write each annotator's and the aggregate qrels under ``judgments/<task>/<subset>/``, and
both report files must carry the retrieval section: the model's whole-corpus and pooled scores
(pytrec_eval on its recorded pooled ranking, computed here), judged@10, the condensed score, the
score against qrels ∪ humans, and the missing-judgment list.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import pytrec_eval
import yaml

from hume_sync.cli import main
from hume_sync.report import sections
from hume_sync.report.model import build_report
from hume_sync.report.retrieval_section import HEADER
from hume_sync.store import AnnotationRecord, Store, gold
from hume_sync.study.spec import parse_spec
from hume_sync.task_types.retrieval.pooling import pooling_context
from hume_sync.workflow.init import init_from_spec
from hume_sync.workflow.predict import predict_study
from tests._fake_encoder import FakeEncoder
from tests._paths import REPO_ROOT

SUBSET = "STSBRetrieval/default"
QRELS = REPO_ROOT / "tests" / "data" / "retrieval" / "stsb" / "qrels" / "test.tsv"


def _spec() -> dict[str, Any]:
    return {
        "name": "retrieval-report",
        "seed": 5,
        "tasks": [
            {
                "name": "STSBRetrieval",
                "type": "retrieval",
                "source": {"path": str(QRELS)},
                "pool_depth": 3,
                "subsets": [{"language": "eng-Latn", "size": 4, "annotators": 2}],
            }
        ],
    }


def ndcg10(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> float:
    """Mean nDCG@10 by pytrec_eval over the queries with a relevant document."""
    kept = {q: g for q, g in qrels.items() if any(v > 0 for v in g.values())}
    ev = pytrec_eval.RelevanceEvaluator(kept, {"ndcg_cut.10"})
    per = ev.evaluate({q: run[q] for q in kept})
    return sum(v["ndcg_cut_10"] for v in per.values()) / len(per)


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("retrieval-report")
    study_dir = root / "study"
    study_dir.mkdir()
    data = _spec()
    (study_dir / "study.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    encoder = FakeEncoder(dim=16)
    with pooling_context(encoders=[encoder]):
        init_from_spec(
            study_dir, parse_spec(data, file=str(study_dir / "study.yaml"), base_dir=study_dir)
        )
    with Store.open(study_dir) as store:
        predict_study(study_dir, store, encoders=[encoder], progress=False)
        keys = [
            store.add_annotator(
                f"{w}@example.org", ["eng"], f"http://127.0.0.1:{9200 + i}", None
            ).key
            for i, w in enumerate("ab")
        ]
        golds = gold(store, SUBSET)
        records, extra = [], None
        instances = store.instances(SUBSET)
        for k, inst in enumerate(instances):
            docs = [c["id"] for c in inst.content["candidates"]]
            answer = {d: int(golds[inst.hume_id].get(d, 0)) for d in docs}
            unjudged = [d for d in docs if d not in golds[inst.hume_id]]
            if k == 0 and unjudged:
                extra = (inst, unjudged[0])
                answer[unjudged[0]] = 2
            for j, who in enumerate(keys):
                n = 1 + 2 * k + j
                records.append(AnnotationRecord(n, inst.hume_id, 1000 + n, who, dict(answer)))
        store.upsert_annotations(records, subset=SUBSET)
        assert extra is not None, "the first query's pool has no unjudged document"
        refs = {r.item_id: r.source_id for r in store.item_refs(SUBSET)[extra[0].hume_id]}
        missing = (extra[0].source_id, refs[extra[1]])
    assert main(["close", str(study_dir), "--force"]) == 0
    out = root / "out"
    assert main(["export", str(study_dir), "--out", str(out)]) == 0
    with Store.open(study_dir) as store:
        report = build_report(store)
        queries = {i.hume_id: i.source_id for i in store.instances(SUBSET)}
        to_source = {
            h: {r.item_id: r.source_id for r in rs} for h, rs in store.item_refs(SUBSET).items()
        }
        run: dict[str, dict[str, float]] = {}
        for p in store.predictions(SUBSET, model_version=encoder.model_version):
            run[queries[p.hume_id]] = {
                to_source[p.hume_id][d]: float(s) for d, s in p.answer.items()
            }
        stored = store.model_subset_scores()[encoder.model_version][SUBSET].scores
        qrels = {
            queries[h]: {to_source[h][d]: int(g) for d, g in g_.items()} for h, g_ in golds.items()
        }
    return {
        "dir": study_dir,
        "out": out,
        "report": report,
        "run": run,
        "qrels": qrels,
        "stored": stored,
        "missing": missing,
        "model": encoder.model_version,
    }


def test_export_writes_trec_qrels_per_annotator_and_aggregate(study) -> None:
    folder = study["out"] / "judgments" / "STSBRetrieval" / "default"
    names = sorted(p.name for p in folder.iterdir())
    assert names == [
        "judgments.json", "qrels.aggregate.txt", "qrels.annotator-1.txt", "qrels.annotator-2.txt"
    ]  # fmt: skip
    agg = pytrec_eval.parse_qrel((folder / "qrels.aggregate.txt").read_text().splitlines())
    q, d = study["missing"]
    assert agg[q][d] == 2
    assert set(agg) == set(study["qrels"])
    # every qrels-judged pooled document is graded as qrels grade it (both annotators did)
    for qid, judged in study["qrels"].items():
        assert {k: agg[qid][k] for k in judged} == judged


def _section(md: str) -> str:
    """The retrieval section of report.md (up to the next section)."""
    start = md.index("## Retrieval: whole corpus")
    end = md.find("\n## ", start + 1)
    return md[start : end if end > 0 else None]


def _row(md: str, name: str) -> list[str]:
    line = next(x for x in _section(md).splitlines() if x.startswith(f"| {name} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_both_report_files_name_pool_and_whole_corpus_scores(study) -> None:
    md = (study["out"] / "report.md").read_text(encoding="utf-8")
    page = (study["out"] / "report.html").read_text(encoding="utf-8")
    heading = "Retrieval: whole corpus, pool and judgments"
    assert f"## {heading}" in md and heading in page
    assert "| " + " | ".join(HEADER) + " |" in md
    model = _row(md, study["model"])
    pool = ndcg10(study["qrels"], study["run"])
    assert model[2] == f"{pool:.3f}"
    assert model[1] == f"{study['stored']['full_corpus_ndcg_at_10']:.3f}"
    assert model[3] == f"{study['stored']['judged_at_10']:.3f}"
    assert model[4] == f"{study['stored']['condensed_ndcg_at_10']:.3f}"
    augmented = dict(study["qrels"])
    q, d = study["missing"]
    augmented[q] = {**augmented[q], d: 2}
    assert model[5] == f"{ndcg10(augmented, study['run']):.3f}"
    humans = _row(md, "Humans")
    assert humans[1].startswith("n/a") and humans[5].startswith("n/a")
    # both annotators grade relevant documents as qrels do, one unjudged one above them
    assert float(humans[2]) < 1.0 and float(humans[4]) == pytest.approx(1.0)
    assert "people grade only the pool" in md


def test_the_missing_judgment_and_the_files_are_listed(study) -> None:
    md = (study["out"] / "report.md").read_text(encoding="utf-8")
    q, d = study["missing"]
    rows = [x for x in md.splitlines() if x.startswith(f"| {q}: ")]
    assert (
        len(rows) == 1 and f"| {d}: " in rows[0] and rows[0].rstrip().endswith("| unjudged | 2 |")
    )
    listed = re.findall(r"^- (judgments/\S+)$", md, flags=re.M)
    assert sorted(Path(p).name for p in listed) == [
        "judgments.json", "qrels.aggregate.txt", "qrels.annotator-1.txt", "qrels.annotator-2.txt"
    ]  # fmt: skip
    assert all((study["out"] / p).is_file() for p in listed)


def test_the_section_is_in_the_one_list(study) -> None:
    built = [s.heading for s in sections.build(study["report"])]
    assert (
        built.index("Retrieval: whole corpus, pool and judgments")
        == built.index("Models and LLM annotators against the humans") + 1
    )


def test_the_judgments_rest_on_the_answers_the_report_scores(study) -> None:
    """The files are named as the report names annotators: by email only with --with-emails."""
    with Store.open(study["dir"]) as store:
        named = build_report(store, with_emails=True).retrieval[0]
    assert named.files[:2] == ["qrels.a_example.org.txt", "qrels.b_example.org.txt"]
    assert study["report"].retrieval[0].files[:2] == [
        "qrels.annotator-1.txt", "qrels.annotator-2.txt"
    ]  # fmt: skip
    assert named.judgments["aggregate"] == study["report"].retrieval[0].judgments["aggregate"]
