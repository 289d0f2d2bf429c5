"""Each retrieval subset is scored by its task's own main score, recorded at ``init``.

mteb names a main score other than nDCG@10 for 51 of its 468 text retrieval tasks (IFIR's
nDCG@20 among them). The mteb task's ``TaskMetadata.main_score`` (a local folder's spec
``main_score``) is stored in the subset's config, deepens the default pool where it cuts below
10, and is what humans and models are scored by; one no pooled ranking gives is refused.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest
import yaml

from hume_sync import task_types
from hume_sync.errors import SamplingError, SpecError
from hume_sync.store import Store
from hume_sync.study.sampling import SamplingParams, SourcePositions
from hume_sync.study.sources import load_mteb, provided_mteb_data
from hume_sync.study.spec import parse_spec
from hume_sync.task_types.retrieval.pooling import pooling_context
from hume_sync.task_types.retrieval.settings import RetrievalSettings
from hume_sync.task_types.retrieval.source import Judgment, beir_collection
from hume_sync.workflow.init import init_from_spec
from tests._fake_encoder import FakeEncoder
from tests._paths import REPO_ROOT

datasets = pytest.importorskip("datasets")

QRELS = REPO_ROOT / "tests" / "data" / "retrieval" / "stsb" / "qrels" / "test.tsv"
RETRIEVAL = task_types.get("retrieval")


def _mteb_records(name: str) -> list[Judgment]:
    """Three queries over the STS-B corpus, served as the mteb task ``name``."""
    docs = list(beir_collection(QRELS).docs.items())[:60]
    split = {
        "corpus": datasets.Dataset.from_dict(
            {"id": [d for d, _ in docs], "text": [t for _, t in docs]}
        ),
        "queries": datasets.Dataset.from_dict(
            {"id": ["a", "b", "c"], "text": ["a girl", "a man", "a dog"]}
        ),
        "relevant_docs": {"a": {docs[0][0]: 1}, "b": {docs[5][0]: 2}, "c": {docs[9][0]: 1}},
    }
    with provided_mteb_data({name: {"test": split}}):
        data = load_mteb(name, "default", kind=RETRIEVAL)
    return cast("list[Judgment]", list(data.records))


def _config(records: list[Judgment], **settings: Any) -> dict[str, Any]:
    params = SamplingParams(size=3, settings=RetrievalSettings(**settings))
    with pooling_context(encoders=[FakeEncoder(dim=8)]):
        sample = RETRIEVAL.study_sample_subset(records, np.random.default_rng(0), params)
    instances = RETRIEVAL.study_instances(sample.records, SourcePositions.of([]))
    config = RETRIEVAL.study_subset_config(params, records, (), instances)
    config["notes"] = sample.report.notes
    config["sizes"] = [len(i.content["candidates"]) for i in instances]
    return config


def test_an_ifir_task_records_ndcg_at_20_and_pools_20_deep() -> None:
    records = _mteb_records("IFIRScifact")
    assert records[0].collection.main_score == "ndcg_at_20"
    config = _config(records)
    assert config["main_score"] == "ndcg_at_20" and config["pool_depth"] == 20
    assert any(n.startswith("pools of depth 20:") for n in config["notes"])
    # The fake model's and BM25's top 20 of 60 documents: at least 20 per pool.
    assert min(config["sizes"]) >= 20


def test_a_pool_depth_the_spec_sets_wins() -> None:
    config = _config(_mteb_records("IFIRScifact"), pool_depth=5)
    assert config["main_score"] == "ndcg_at_20" and config["pool_depth"] == 5
    assert any(n.startswith("pools of depth 5:") for n in config["notes"])


def test_an_ndcg_at_10_task_keeps_the_config_it_had() -> None:
    config = _config(_mteb_records("SciFact"))
    assert "main_score" not in config and config["pool_depth"] == 10


def test_a_main_score_cutting_above_10_keeps_the_default_depth() -> None:
    config = _config(_mteb_records("FeedbackQARetrieval"))  # mteb: precision_at_1
    assert config["main_score"] == "precision_at_1" and config["pool_depth"] == 10


def test_instructir_is_refused_in_one_line_naming_the_task_and_the_metric() -> None:
    records = _mteb_records("InstructIR")
    with pytest.raises(SamplingError) as err:
        _config(records)
    message = str(err.value)
    assert "\n" not in message
    assert "mteb:InstructIR" in message and "robustness_at_10 cannot be computed" in message


def test_a_spec_main_score_other_than_the_mteb_tasks_own_is_refused() -> None:
    with pytest.raises(SamplingError, match=r"main_score ndcg_at_10 differs from the task's own"):
        _config(_mteb_records("IFIRScifact"), main_score="ndcg_at_10")
    # The same name as the task's is no conflict.
    assert _config(_mteb_records("IFIRScifact"), main_score="ndcg_at_20")["pool_depth"] == 20


def _init(study: Path, **task: Any) -> dict[str, Any]:
    spec = {
        "name": "main-score",
        "seed": 3,
        "tasks": [
            {
                "name": "STSBRetrieval",
                "type": "retrieval",
                "source": {"path": str(QRELS)},
                "subsets": [{"language": "eng-Latn", "size": 3}],
                **task,
            }
        ],
    }
    study.mkdir(parents=True, exist_ok=True)
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    with pooling_context(encoders=[FakeEncoder(dim=8)]):
        init_from_spec(study, parse_spec(spec, file=str(study / "study.yaml"), base_dir=study))
    with Store.open(study) as store:
        return dict(store.subset("STSBRetrieval/default").config)


def test_a_local_folder_takes_the_spec_main_score_through_init(tmp_path: Path) -> None:
    config = _init(tmp_path / "a", main_score="ndcg_at_20")
    assert config["main_score"] == "ndcg_at_20" and config["pool_depth"] == 20
    plain = _init(tmp_path / "b")
    assert "main_score" not in plain and plain["pool_depth"] == 10


def test_a_spec_main_score_no_ranking_gives_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as err:
        _init(tmp_path, main_score="robustness_at_10")
    message = str(err.value)
    assert "\n" not in message and "main_score" in message and "STSBRetrieval" in message
    assert "'robustness_at_10' cannot be computed from a pooled ranking" in message


def test_the_type_for_a_subset_names_and_scores_its_main_score() -> None:
    assert RETRIEVAL.for_subset({}) is RETRIEVAL
    assert RETRIEVAL.for_subset({"main_score": "ndcg_at_10"}) is RETRIEVAL
    ifir = RETRIEVAL.for_subset({"main_score": "ndcg_at_20"})
    assert RETRIEVAL.score_main_name == "ndcg_at_10"  # the registered type is unchanged
    assert (ifir.score_main_name, ifir.score_mteb_main_name) == ("ndcg_at_20", "ndcg_at_20")
    assert ifir.score_main_label == "nDCG@20"
    assert ifir.score_annotator_method == "mean_over_queries(ndcg@20:expected_ties)"
    assert (
        task_types.of_subset(
            SimpleNamespace(task_type="retrieval", config={"main_score": "recall_at_1"})
        ).score_main_label
        == "recall@1"
    )
    # A model's pooled ranking: 20 documents, the relevant one 15th by similarity.
    gold = {"q": {"d14": 1, "d0": 0}}
    answer = {"q": {f"d{i}": 1.0 - i / 100 for i in range(20)}}
    assert RETRIEVAL.score_model(gold, answer).value == 0.0  # type: ignore[union-attr]
    at_20 = ifir.score_model(gold, answer)
    assert at_20 is not None and at_20.method == "mteb:trec_eval(ndcg_cut.20)"
    assert at_20.value == pytest.approx(1 / np.log2(16))
    # The job settings carry it only where the subset has one (an nDCG@10 job is as before).
    row = SimpleNamespace(config={"corpus": {"beir": "x"}, "main_score": "ndcg_at_20"})
    assert RETRIEVAL.model_job_settings(row)["main_score"] == "ndcg_at_20"
    assert "main_score" not in RETRIEVAL.model_job_settings(SimpleNamespace(config={}))


def test_the_report_scores_people_and_pools_by_ndcg_at_20(tmp_path: Path) -> None:
    """Through the store: the human score is nDCG@20 of the ranking the grades define
    (pytrec_eval on the shown order of ties; the expected value by the aggregation), the
    models' pooled score and the paired comparison are nDCG@20 too."""
    import pytrec_eval

    from hume_sync.report.model import build_report
    from hume_sync.store import AnnotationRecord, gold
    from hume_sync.workflow.predict import predict_study
    from scoring.aggregation.retrieval import human_retrieval

    study = tmp_path / "study"
    _init(study, main_score="ndcg_at_20")
    encoder = FakeEncoder(dim=8)
    key = "STSBRetrieval/default"
    with Store.open(study) as store:
        predict_study(study, store, encoders=[encoder], progress=False)
        who = store.add_annotator("a@example.org", ["eng"], "http://127.0.0.1:9201", None).key
        golds = gold(store, key)
        answers: dict[str, dict[str, int]] = {}
        records = []
        for n, inst in enumerate(store.instances(key), start=1):
            docs = [c["id"] for c in inst.content["candidates"]]
            # Relevant documents graded 1 and sunk below 12 documents graded 2: only a cut-off
            # deeper than 10 can see them.
            answers[inst.hume_id] = {
                d: (2 if i < 12 else int(golds[inst.hume_id].get(d, 0) > 0))
                for i, d in enumerate(docs)
            }
            records.append(AnnotationRecord(n, inst.hume_id, 100 + n, who, answers[inst.hume_id]))
        store.upsert_annotations(records, subset=key)  # as pull does: the whole subset at once
        report = build_report(store)
        stored = store.model_subset_scores()[encoder.model_version][key]
        # Ties are broken in the order the stored answer lists the documents.
        as_stored = {a.hume_id: dict(a.answer) for a in store.annotations(key)}
    rep = next(r for r in report.subsets if r.input.key == key)
    assert rep.human is not None and rep.input.task_type.score_main_name == "ndcg_at_20"
    want = human_retrieval(golds, {"x": answers}, main="ndcg_at_20")
    assert rep.human.value == pytest.approx(want.value)
    assert rep.human.method.endswith("(ndcg@20:expected_ties))")
    shown = []
    for h, grades in as_stored.items():
        run = {d: float(g * 1000 - i) for i, (d, g) in enumerate(grades.items())}
        ev = pytrec_eval.RelevanceEvaluator({"q": dict(golds[h])}, {"ndcg_cut.20"})
        shown.append(ev.evaluate({"q": run})["q"]["ndcg_cut_20"])
    assert rep.human.details["input_order"]["ndcg_at_20"] == pytest.approx(np.mean(shown))
    assert rep.human.details["ndcg_at_10"] != pytest.approx(rep.human.value)
    # The model: stored main score nDCG@20, compared pool with pool at nDCG@20.
    assert stored.main_score_name == "ndcg_at_20"
    assert rep.input.models[encoder.model_version] == stored.scores["ndcg_at_20"]
    paired = rep.paired[encoder.model_version]  # every query answered by both: all of them
    assert paired["n_items"] == 3 and paired["position"] in ("above", "inside", "below")
    assert paired["rater_on_items"] == pytest.approx(stored.scores["ndcg_at_20"], abs=1e-5)
    assert paired["human_on_items"] == pytest.approx(rep.human.value)
    # The human result files hold nDCG@20 as the main score and nDCG@10 beside it, so that a
    # reader types the task as retrieval (as mteb's own files hold every measure).
    import json

    from hume_sync.report.export import write_mteb_results
    from hume_sync.report.model import known_types
    from scoring.tasks import task_type

    files = write_mteb_results(report, tmp_path / "results")
    aggregate = next(p for p in files if p.parent.name == "main-score" and p.stem != "model_meta")
    block = json.loads(aggregate.read_text("utf-8"))["scores"]["test"][0]
    assert block["main_score"] == block["ndcg_at_20"] == pytest.approx(rep.human.value)
    assert block["ndcg_at_10"] == pytest.approx(rep.human.details["ndcg_at_10"])
    assert task_type("STSBRetrieval", block, known_types()).name == "retrieval"
    own = next(
        p for p in files if p.parent.name.startswith("annotator_") and p.stem != "model_meta"
    )
    own_block = json.loads(own.read_text("utf-8"))["scores"]["test"][0]
    measures = rep.human.details["per_rater_measures"]["annotator-1"]
    assert own_block["ndcg_at_10"] == pytest.approx(measures["ndcg_at_10"])
