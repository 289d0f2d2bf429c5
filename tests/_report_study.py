"""A small study filled directly in its store (no Label Studio) for the report's tests: two
registered annotators (with emails) answering in English, one in Arabic, an LLM annotator, and
an MTEB results folder with three models (two with metadata) on the study's subsets.

``make_study(annotators="abc")`` adds a third English annotator, for the alternative annotator
test (it needs 3). The type examples script only annotators ``'a'`` and ``'b'`` (any other name
answers as ``'b'`` does, or perfectly), so a third one asked of them would copy another; ``'c'``
here answers gold except the type's other answer on every fourth item."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.store import AnnotationRecord, PredictionRecord, Store, gold
from scoring.results import write_model_meta, write_result_file
from tests._studies import real_data_spec, write_spec
from tests.task_type_examples import examples

EMAILS = ("ann.one@example.org", "ann.two@example.org")
#: The third annotator's, registered only by ``make_study(annotators="abc")``.
THIRD_EMAIL = "ann.three@example.org"
#: Models of the results folder: name -> (score offset from 0.5, model_meta extra).
MODELS = {
    "sentence-transformers/all-MiniLM-L6-v2": (
        0.1,
        {"n_parameters": 22713216, "embed_dim": 384, "max_tokens": 256.0},
    ),
    "intfloat/multilingual-e5-small": (
        0.2,
        {"n_parameters": 118000000, "embed_dim": 384, "max_tokens": 512.0},
    ),
    "org-without-meta/a-model-with-a-rather-long-name-for-the-label-column-v2": (0.0, {}),
}


def _other_label(gold: Any, k: int, labels: list[str]) -> Any:
    return sorted(set(labels) - {gold})[k % (len(labels) - 1)]


#: LLM annotators on SIB200 English: name -> answer(gold, item index, label set).
LLMS = {
    "always-first": lambda g, k, labels: sorted(labels)[0],
    "mostly-right": lambda g, k, labels: _other_label(g, k + 1, labels) if k % 6 == 2 else g,
}


def _answer(sub_type: str, g: Any, k: int, who: str, labels: list[str]) -> Any:
    ex = examples(sub_type)
    if who != "c":
        return ex.scripted_answer(g, k, who, labels)
    right = ex.perfect_answer(g)
    return ex.other_answer(right, labels) if k % 4 == 3 else right


def make_study(
    root: Path, *, annotators: str = "ab", cls_eng: int = 12, llm: str = "always-first"
) -> dict[str, Any]:
    """Create and fill the study under ``root / "study"``; returns what the tests compare.
    ``annotators`` answer in English (the first also in Arabic); ``llm`` names the LLM
    annotator's rule (:data:`LLMS`) on SIB200 English."""
    study = root / "study"
    spec = real_data_spec("reporttest", 5, cls_eng=cls_eng, cls_arb=8, sts=12, rerank=4)
    assert main(["init", str(study), "--spec", str(write_spec(study, spec))]) == 0
    answers: dict[str, dict[str, dict[str, Any]]] = {}
    with Store.open(study) as store:
        keys = {
            who: store.add_annotator(
                email, ["eng", "arb"], f"http://127.0.0.1:{9100 + i}", None
            ).key
            for i, (who, email) in enumerate(zip(annotators, (*EMAILS, THIRD_EMAIL), strict=False))
        }
        ann_id = 1
        for sub in store.subsets():
            golds = gold(store, sub.key)
            labels = sub.config.get("label_set") or []
            raters = annotators if sub.language.startswith("eng") else annotators[0]
            records = []
            for k, inst in enumerate(store.instances(sub.key)):
                for who in raters:
                    ans = _answer(sub.task_type, golds[inst.hume_id], k, who, labels)
                    answers.setdefault(sub.key, {}).setdefault(keys[who], {})[inst.hume_id] = ans
                    records.append(
                        AnnotationRecord(ann_id, inst.hume_id, 1000 + ann_id, keys[who], ans)
                    )
                    ann_id += 1
            store.upsert_annotations(records, subset=sub.key)
        cls = store.subset("SIB200Classification/eng_Latn")
        labels, golds = list(cls.config["label_set"]), gold(store, cls.key)
        store.add_predictions(
            [
                PredictionRecord(i.hume_id, f"llm:{llm}", LLMS[llm](golds[i.hume_id], k, labels))
                for k, i in enumerate(store.instances(cls.key))
            ]
        )
        subsets = [(s.task_name, s.hf_subset, s.task_type, s.language) for s in store.subsets()]
    return {"study": study, "answers": answers, "keys": keys, "subsets": subsets}


def results_folder(root: Path, subsets: list[tuple[str, str, str, str]]) -> Path:
    """An MTEB results folder: each of :data:`MODELS` on every subset, score 0.5 + offset
    (+ 0.01 per subset index, so the best model is the same everywhere)."""
    out = root / "results"
    for name, (offset, meta) in MODELS.items():
        by_task: dict[str, list[dict[str, Any]]] = {}
        for i, (task, hf_subset, ttype, language) in enumerate(subsets):
            value = round(0.5 + offset + 0.01 * i, 4)
            by_task.setdefault(task, []).append(
                {
                    task_types.get(ttype).score_mteb_main_name: value,
                    "main_score": value,
                    "hf_subset": hf_subset,
                    "languages": [language],
                }
            )
        for task, blocks in by_task.items():
            write_result_file(out, model_name=name, revision="r1", task_name=task, subsets=blocks)
        path = write_model_meta(out, model_name=name, revision="r1", languages=["eng-Latn"])
        data = json.loads(path.read_text())
        data.update(meta)
        path.write_text(json.dumps(data))
    return out


def model_score(subset_index: int, name: str) -> float:
    """The score :func:`results_folder` gives ``name`` on the subset at ``subset_index``."""
    return round(0.5 + MODELS[name][0] + 0.01 * subset_index, 4)


def export_report_study(root: Path, **study: Any) -> tuple[dict[str, Any], Path, dict[str, Any]]:
    """:func:`make_study` exported with :func:`results_folder`'s models: what ``make_study``
    gave, the output folder and its ``scores.json``."""
    made = make_study(root, **study)
    results = results_folder(root, made["subsets"])
    out = root / "out"
    args = ["export", str(made["study"]), "--out", str(out), "--results", str(results)]
    assert main(args) == 0
    return made, out, json.loads((out / "scores.json").read_text())
