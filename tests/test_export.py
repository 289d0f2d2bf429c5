"""`hume-sync export` on a small study, checked number by number against values computed here
independently (scikit-learn, scipy, hand formulas), plus the output files and MTEB round trip."""

from __future__ import annotations

import csv
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from scipy.stats import binomtest, spearmanr
from sklearn.metrics import average_precision_score, cohen_kappa_score, v_measure_score

from hume_sync.cli import main
from hume_sync.report.model import known_types
from hume_sync.store import AnnotationRecord, PredictionRecord, Store, gold
from scoring.results import read_results_dir
from tests._browser import CHROMIUM_FLAGS, chromium_path
from tests._paths import SOURCE_DATA
from tests._studies import real_data_spec
from tests._studies import write_spec as write_study_spec
from tests.task_type_examples import examples


def write_spec(study: Path) -> Path:
    return write_study_spec(
        study, real_data_spec("exporttest", 3, cls_eng=21, cls_arb=14, sts=20, rerank=6)
    )


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("export")
    study = root / "study"
    assert main(["init", str(study), "--spec", str(write_spec(study))]) == 0
    expected: dict[str, dict[str, dict[str, Any]]] = {}
    ann_id = 1
    with Store.open(study) as store:
        for sub in store.subsets():
            golds = gold(store, sub.key)
            labels = sub.config.get("label_set") or []
            simulated = examples(sub.task_type)
            records, per = [], {}
            raters = ["a", "b"] if sub.language.startswith("eng") else ["a"]
            for k, inst in enumerate(store.instances(sub.key)):
                for who in raters:
                    ans = simulated.scripted_answer(golds[inst.hume_id], k, who, labels)
                    per.setdefault(who, {})[inst.hume_id] = ans
                    records.append(
                        AnnotationRecord(
                            ann_id, inst.hume_id, 1000 + ann_id, who, ans, lead_time=5.0
                        )
                    )
                    ann_id += 1
            # One annotation in Label Studio that did not fit the interface: never scored.
            records.append(
                AnnotationRecord(
                    ann_id,
                    inst.hume_id,
                    1000 + ann_id,
                    "b",
                    None,
                    status="invalid",
                    error="unknown choice",
                )
            )
            ann_id += 1
            store.upsert_annotations(records, subset=sub.key)
            expected[sub.key] = {"gold": golds, "answers": per, "type": sub.task_type}
        # An LLM annotator on the English classification subset: always the first label.
        cls = store.subset("SIB200Classification/eng_Latn")
        first = sorted(cls.config["label_set"])[0]
        # It failed to give a usable answer on the first item: counted, never scored.
        insts = store.instances(cls.key)
        store.add_predictions(
            [PredictionRecord(insts[0].hume_id, "llm:always-first", None)]
            + [PredictionRecord(i.hume_id, "llm:always-first", first) for i in insts[1:]]
        )
        failed_item = insts[0].hume_id
    out = root / "out"
    assert main(["export", str(study), "--out", str(out)]) == 0
    data = json.loads((out / "scores.json").read_text())
    return {
        "out": out,
        "data": data,
        "expected": expected,
        "first": first,
        "failed_item": failed_item,
    }


def subset(exported, key):
    return next(s for s in exported["data"]["subsets"] if s["subset"] == key)


def test_classification_numbers(exported):
    exp = exported["expected"]["SIB200Classification/eng_Latn"]
    g, ans = exp["gold"], exp["answers"]
    items = sorted(g)
    votes = {}
    for i in items:
        c = Counter([ans["a"][i], ans["b"][i]])
        top = max(c.values())
        votes[i] = sorted(lab for lab, n in c.items() if n == top)[0]
    acc = np.mean([votes[i] == g[i] for i in items])
    s = subset(exported, "SIB200Classification/eng_Latn")
    assert s["human"]["value"] == pytest.approx(acc)
    assert s["human"]["method"] == "human:majority_vote(alphabetical_tie_break)+accuracy"
    ci = binomtest(round(acc * len(items)), len(items)).proportion_ci(method="wilson")
    assert (s["interval"]["low"], s["interval"]["high"]) == pytest.approx((ci.low, ci.high))
    assert s["interval"]["method"] == "wilson"
    per = s["human"]["per_rater"]
    assert per["a"] == pytest.approx(np.mean([ans["a"][i] == g[i] for i in items]))
    kappa = cohen_kappa_score([ans["a"][i] for i in items], [ans["b"][i] for i in items])
    by = {a["method"]: a for a in s["agreement"]}
    assert by["mean_pairwise_cohen_kappa"]["value"] == pytest.approx(kappa)
    agree = np.mean([ans["a"][i] == ans["b"][i] for i in items])
    assert by["mean_percentage_agreement"]["value"] == pytest.approx(agree)
    # The items where the two disagree are listed with their text; none is hidden.
    assert len(s["disagreements"]) == sum(ans["a"][i] != ans["b"][i] for i in items)
    assert all(d["text"] for d in s["disagreements"])
    # LLM: scored as one annotator.
    answered = [i for i in items if i != exported["failed_item"]]
    llm_acc = np.mean([exported["first"] == g[i] for i in answered])
    assert s["llms"]["llm:always-first"]["value"] == pytest.approx(llm_acc)
    assert s["llms"]["llm:always-first"]["n_items"] == len(items) - 1
    assert s["llm_failures"] == {"llm:always-first": 1}
    # Placed by the paired comparison on the items both answered (issue 13): human − LLM.
    cmp = s["paired"]["llm:always-first"]
    assert cmp["n_items"] == len(answered)
    human_on = np.mean([votes[i] == g[i] for i in answered])
    assert cmp["difference"] == pytest.approx(human_on - llm_acc)
    assert cmp["method"] == "paired_bootstrap:percentile"
    pos = s["model_positions"]["llm:always-first"]
    assert pos == ("below" if cmp["low"] > 0 else "above" if cmp["high"] < 0 else "inside")
    hl = s["human_llm_agreement"]["llm:always-first"]
    assert hl["method"] == "human_machine:cohen_kappa"


def test_single_annotator_subset_has_no_agreement_and_range_interval(exported):
    s = subset(exported, "SIB200Classification/arb_Arab")
    exp = exported["expected"]["SIB200Classification/arb_Arab"]
    g, a = exp["gold"], exp["answers"]["a"]
    assert s["human"]["value"] == pytest.approx(np.mean([a[i] == g[i] for i in g]))
    fleiss = next(x for x in s["agreement"] if x["method"] == "fleiss_kappa")
    assert math.isnan(fleiss["value"]) and fleiss["band"] == "undefined"
    assert any("fewer than two" in w for w in fleiss["warnings"])
    assert s["low_agreement"] is None


def test_sts_numbers(exported):
    exp = exported["expected"]["STSBenchmark/default"]
    g, ans = exp["gold"], exp["answers"]
    items = sorted(g)
    means = [(ans["a"][i] + ans["b"][i]) / 2 for i in items]
    rho = spearmanr([g[i] for i in items], means)[0]
    s = subset(exported, "STSBenchmark/default")
    assert s["human"]["value"] == pytest.approx(rho)
    z, se = np.arctanh(rho), 1 / np.sqrt(len(items) - 3)
    assert s["interval"]["low"] == pytest.approx(np.tanh(z - 1.959963984540054 * se))
    assert s["interval"]["high"] == pytest.approx(np.tanh(z + 1.959963984540054 * se))
    pair = spearmanr([ans["a"][i] for i in items], [ans["b"][i] for i in items])[0]
    head = next(x for x in s["agreement"] if x["method"] == "mean_pairwise_spearman")
    assert head["value"] == pytest.approx(pair)
    assert s["low_agreement"] is bool(pair < 0.6)


def test_clustering_and_reranking_numbers(exported):
    exp = exported["expected"]["SIB200Clustering/default"]
    (set_id,) = exp["gold"]
    g = exp["gold"][set_id]
    vms = {
        w: v_measure_score([g[t] for t in sorted(g)], [a[set_id][t] for t in sorted(g)])
        for w, a in exp["answers"].items()
    }
    s = subset(exported, "SIB200Clustering/default")
    assert s["human"]["value"] == pytest.approx(np.mean(list(vms.values())))
    assert (s["interval"]["low"], s["interval"]["high"]) == pytest.approx(
        (min(vms.values()), max(vms.values()))
    )
    assert s["interval"]["method"] == "annotator_range"

    exp = exported["expected"]["SIB200Reranking/default"]
    g, ans = exp["gold"], exp["answers"]
    per = {}
    for who, a in ans.items():
        aps = []
        for q in sorted(g):
            cands = sorted(g[q])
            aps.append(average_precision_score([g[q][c] for c in cands], [a[q][c] for c in cands]))
        per[who] = np.mean(aps)
    s = subset(exported, "SIB200Reranking/default")
    assert s["human"]["value"] == pytest.approx(np.mean(list(per.values())))
    assert s["human"]["per_rater"] == pytest.approx(per)


def test_study_table_and_files(exported):
    out, data = exported["out"], exported["data"]
    assert data["complete"] is True
    human = next(r for r in data["table"] if r["kind"] == "human")
    values = [s["human"]["value"] for s in data["subsets"]]
    assert human["mean"] == pytest.approx(np.mean(values)) and human["n_subsets"] == 5
    rows = list(csv.DictReader((out / "scores.csv").open()))
    kinds = Counter(r["kind"] for r in rows)
    assert kinds == {"human": 5, "annotator": 9, "llm": 1}
    methods = {(r["task_type"], r["method"]) for r in rows if r["kind"] == "annotator"}
    assert methods == {
        ("classification", "accuracy"),
        ("clustering", "v_measure"),
        ("reranking", "mean_over_queries(map:sklearn)"),
        ("sts", "spearman"),
    }
    md = (out / "report.md").read_text()
    for needle in (
        "Table 1",
        "Per subset",
        "Dataset quality",
        "Sample-size planning",
        "Methods",
        "wilson",
        "fisher_z",
        "annotator_range",
    ):
        assert needle in md, needle
    html = (out / "report.html").read_text()
    assert 'id="plot-subset-1"' in html and 'id="plot-agreement"' in html
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")  # self-contained


def test_mteb_result_files_read_back(exported):
    coll = read_results_dir(exported["out"] / "mteb_results", known_types(), on_error="raise")
    human = next(r for r in coll.raters if r.kind == "human")
    assert human.revision == "exporttest"
    by_subset = {s["subset"]: s["human"]["value"] for s in exported["data"]["subsets"]}
    assert human.scores["SIB200Classification/eng"].main_score == pytest.approx(
        by_subset["SIB200Classification/eng_Latn"]
    )
    assert human.scores["SIB200Classification/arb"].main_score == pytest.approx(
        by_subset["SIB200Classification/arb_Arab"]
    )
    annotators = [r for r in coll.raters if r.kind == "annotator"]
    assert sorted(r.revision for r in annotators) == ["annotator_a", "annotator_b"]
    llm = next(r for r in coll.raters if r.kind == "llm")
    assert list(llm.scores) == ["SIB200Classification/eng"]
    raw = json.loads(
        next(
            (exported["out"] / "mteb_results").glob("baseline__Human/exporttest/STSBenchmark.json")
        ).read_text()
    )
    block = raw["scores"]["test"][0]
    assert block["agreement"]["metric"] == "mean_pairwise_spearman"
    assert block["languages"] == ["eng-Latn"] and block["hf_subset"] == "default"


def test_partly_annotated_study_states_coverage(tmp_path, capsys):
    study = tmp_path / "study"
    assert main(["init", str(study), "--spec", str(write_spec(study))]) == 0
    with Store.open(study) as store:
        sub = store.subset("STSBenchmark/default")
        insts = store.instances(sub.key)[:5]
        store.upsert_annotations(
            [AnnotationRecord(k + 1, i.hume_id, k + 1, "a", 3) for k, i in enumerate(insts)]
        )
    capsys.readouterr()
    assert main(["export", str(study), "--out", str(tmp_path / "out")]) == 0
    assert "partly annotated" in capsys.readouterr().err
    data = json.loads((tmp_path / "out" / "scores.json").read_text())
    assert data["complete"] is False
    sts = next(s for s in data["subsets"] if s["subset"] == "STSBenchmark/default")
    assert sts["coverage"]["items_annotated"] == 5 and sts["coverage"]["items_planned"] == 20
    assert "Partly annotated study" in (tmp_path / "out" / "report.md").read_text()


def test_mteb_package_loads_every_written_result_file(exported):
    from mteb.results import TaskResult

    files = [
        p for p in (exported["out"] / "mteb_results").rglob("*.json") if p.name != "model_meta.json"
    ]
    assert len(files) == 13  # 4 tasks × (aggregate + 2 annotators) + 1 LLM file
    by_subset = {s["subset"]: s["human"]["value"] for s in exported["data"]["subsets"]}
    for path in files:
        result = TaskResult.from_disk(path)
        assert result.task_name == path.stem
        if path.parent.name == "exporttest" and path.parent.parent.name == "baseline__Human":
            for block in result.scores["test"]:
                key = f"{result.task_name}/{block['hf_subset']}"
                assert block["main_score"] == pytest.approx(by_subset[key])


def test_results_folder_models_join_the_comparison(tmp_path, capsys):
    from tests._paths import MTEB_RESULTS

    study = tmp_path / "hume"
    study.mkdir()
    spec = {
        "name": "humev1",
        "tasks": [
            {
                "name": "HUMESTSBenchmark",
                "type": "sts",
                "source": {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False},
                "subsets": [{"language": "eng-Latn", "size": 12}],
            }
        ],
    }
    (study / "study.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    assert main(["init", str(study)]) == 0
    with Store.open(study) as store:
        sub = store.subsets()[0]
        g = gold(store, sub.key)
        recs = [
            AnnotationRecord(k + 1, hid, k + 1, "a", round(float(v)))
            for k, (hid, v) in enumerate(sorted(g.items()))
        ]
        store.upsert_annotations(recs)
    out = tmp_path / "out"
    assert main(["export", str(study), "--out", str(out), "--results", str(MTEB_RESULTS)]) == 0
    data = json.loads((out / "scores.json").read_text())
    (s,) = data["subsets"]
    published = json.loads(
        next(
            MTEB_RESULTS.glob("sentence-transformers__all-MiniLM-L6-v2/*/HUMESTSBenchmark.json")
        ).read_text()
    )
    minilm = published["scores"]["test"][0]["main_score"]
    assert s["models"]["sentence-transformers/all-MiniLM-L6-v2"] == pytest.approx(minilm)
    assert len(s["models"]) == 18  # every model reporting the subset (BM25 has no STS)
    low, high = s["interval"]["low"], s["interval"]["high"]
    want = "below" if minilm < low else "above" if minilm > high else "inside"
    assert s["model_positions"]["sentence-transformers/all-MiniLM-L6-v2"] == want
    hvm = data["human_vs_models"]
    assert hvm["n_subsets"] == 1
    best = max(s["models"].values())
    assert hvm["wins_vs_best"] == int(s["human"]["value"] > best)


def test_html_report_renders_in_headless_chromium(exported, tmp_path):
    import subprocess

    chromium = chromium_path(playwright=False)
    page = (exported["out"] / "report.html").resolve()
    flags = [*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [chromium, *flags, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    # The plots are in the rendered DOM: one human dot per scored subset, the agreement bars.
    assert dom.count('class="human"') == len(exported["data"]["subsets"])
    assert dom.count('class="agreement"') >= 3 and 'id="plot-human-vs-llm"' in dom
    shot = tmp_path / "report.png"
    subprocess.run(
        [chromium, *flags, f"--screenshot={shot}", "--window-size=1280,1800", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a real picture, not blank


def test_methods_name_only_the_types_the_report_holds() -> None:
    """Each type describes its own methods; a report names those of its own subsets only."""
    from types import SimpleNamespace

    from hume_sync import task_types
    from hume_sync.report import render

    sts_only = SimpleNamespace(
        subsets=[
            SimpleNamespace(input=SimpleNamespace(key="S/default", task_type=task_types.get("sts")))
        ]
    )
    human = dict(render.methods(sts_only))["Human score"]
    assert human.startswith("sts: mean rating per pair")
    assert "classification:" not in human and "pair_classification:" not in human
    everything = dict(render.methods())["Human score"]
    assert all(f"{name}:" in everything for name in task_types.names())


def test_methods_name_each_retrieval_subsets_own_main_score() -> None:
    """Retrieval subsets scored by different main scores get one phrase each, naming them;
    subsets that share one get the type's single phrase."""
    from types import SimpleNamespace

    from hume_sync import task_types
    from hume_sync.report import render

    def report(*mains: str | None) -> SimpleNamespace:
        kind = task_types.get("retrieval")
        subsets = [
            SimpleNamespace(
                input=SimpleNamespace(
                    key=f"T{n}/default", task_type=kind.for_subset({"main_score": m} if m else {})
                )
            )
            for n, m in enumerate(mains)
        ]
        return SimpleNamespace(subsets=subsets)

    one = dict(render.methods(report(None, "ndcg_at_10")))["Human score"]
    assert one.startswith("retrieval: each annotator's grades order the pool")
    assert "trec_eval nDCG@10 against qrels" in one and "T0/default" not in one
    ifir = dict(render.methods(report("ndcg_at_20")))
    assert "retrieval: " in ifir["Human score"] and "trec_eval nDCG@20" in ifir["Human score"]
    assert "nDCG@10" not in ifir["Model score"].split(";")[0]
    both = dict(render.methods(report(None, "recall_at_1")))["Human score"]
    assert "retrieval (T0/default): " in both and "trec_eval nDCG@10" in both
    assert "retrieval (T1/default): " in both and "trec_eval recall@1" in both
