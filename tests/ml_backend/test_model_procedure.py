"""The model procedure protocol: every registered task type answers through it, and ``predict``
needs nothing else of a type (no type names in ``ml_backend``).

Parity of the answers and scores with mteb is ``test_parity.py``; here: the contract itself, on
tiny jobs of every type (``MODEL_JOB`` in ``tests/task_type_examples/<type>.py``) with the shared
fake encoder.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from hume_sync import task_types
from ml_backend.embedding_cache import EmbeddingCache
from ml_backend.model_procedure import ModelProcedure, PredictError, SubsetJob, TextGroup
from ml_backend.predict import (
    PREDICT_VERSION,
    encode_requests,
    job_fingerprint,
    predict_subsets,
    protocol_notes,
)
from tests._fake_encoder import FakeEncoder
from tests.task_type_examples import examples

TYPES = task_types.names()


def job(type_name: str, **changes: Any) -> SubsetJob:
    """One small job of the type: its ``MODEL_JOB`` (tests/task_type_examples) with changes."""
    fields = {**examples(type_name).MODEL_JOB, **changes}
    n = len(fields["contents"])
    return SubsetJob(
        key=f"T-{type_name}/default",
        task=task_types.get(type_name),
        task_name=f"T-{type_name}",
        hume_ids=tuple(f"h{i}" for i in range(n)),
        **fields,
    )


@pytest.mark.parametrize("name", TYPES)
def test_every_registered_type_has_a_model_procedure(name: str) -> None:
    task = task_types.get(name)
    assert isinstance(task, ModelProcedure)
    assert task.model_needs_train_pool == ("train_pool" in examples(name).MODEL_JOB)


def test_a_job_needs_a_type_object_not_a_name() -> None:
    with pytest.raises(PredictError, match="not a task type with a model"):
        SubsetJob(key="K", task="sts", task_name="T", hume_ids=(), contents=())  # type: ignore[arg-type]


@pytest.mark.parametrize("type_name", TYPES)
def test_answers_have_the_types_shape(type_name: str, tmp_path: Path) -> None:
    """One answer per instance; a type with items answers per item id; every text the answers
    need was in the encode requests (the cache would miss otherwise)."""
    subset = job(type_name)
    requests = encode_requests(subset)
    assert {r.task_type for r in requests} == {subset.task.mteb_type}  # mteb's prompt key
    with EmbeddingCache(tmp_path / "c.sqlite") as cache:
        run = predict_subsets(FakeEncoder(), [subset], cache, progress=False)
    [pred] = run.predictions
    assert (pred.task_type,) == (type_name,)
    assert [i.hume_id for i in pred.items] == list(subset.hume_ids)
    assert pred.main_score is not None and pred.method.startswith("mteb:")
    key = subset.task.model_items_key
    for item, content in zip(pred.items, subset.contents, strict=True):
        if key is None:
            assert not isinstance(item.answer, dict)
        else:
            assert sorted(item.answer) == sorted(str(it["id"]) for it in content[key])


def test_missing_fields_name_the_instance() -> None:
    bad = job("sts", contents=({"sentence1": "a"}, {"sentence1": "b", "sentence2": "c"}))
    with pytest.raises(PredictError, match=r"'h0' has no 'sentence2'"):
        encode_requests(bad)
    with pytest.raises(PredictError, match="needs a train pool"):
        encode_requests(job("classification", train_pool=()))
    with pytest.raises(PredictError, match="needs n_groups or gold"):
        task = task_types.get("clustering")
        task.model_answers(job("clustering", gold=None), lambda texts, role=None: None, "cosine")


def test_reranking_embeds_queries_and_passages_as_mteb() -> None:
    groups = task_types.get("reranking").model_encode_groups(job("reranking"))
    assert groups == [
        TextGroup(("pets Animals.",), "query"),
        TextGroup(("cat", "dog", "rain", "snow"), "passage"),
    ]


def test_protocol_notes_ask_for_every_role_the_type_embeds() -> None:
    """An encoder that departs from mteb says so per role; ``predict`` asks about exactly the
    roles the type's encode groups use."""

    class Noting(FakeEncoder):
        asked: list[Any]

        def protocol_note(self, *, role: Any, task_type: Any, task_name: Any) -> str | None:
            self.asked.append((role, task_type))
            return None if role == "passage" else f"no prompt for {role}"

    enc = Noting()
    enc.asked = []
    assert protocol_notes(job("reranking"), enc) == ["no prompt for query"]
    assert enc.asked == [("query", "Reranking"), ("passage", "Reranking")]
    enc.asked = []
    assert protocol_notes(job("sts"), enc) == ["no prompt for None"]
    assert enc.asked == [(None, "STS")]


def _fingerprint_before_settings(
    job: SubsetJob, encoder: FakeEncoder, spl: Any, n_groups: Any, score_range: Any
) -> str:
    """The fingerprint as ``job_fingerprint`` wrote it when a job had one field per setting
    (``samples_per_label``, ``n_groups``, ``score_range``), spelt out here on its own."""
    payload = {
        "version": PREDICT_VERSION,
        "model": [encoder.name, encoder.revision, encoder.similarity_fn_name],
        "job": [
            job.key,
            job.task.name,
            job.task_name,
            list(job.hume_ids),
            list(job.contents),
            list(job.train_pool),
            spl,
            n_groups,
            list(score_range) if score_range else None,
            None if job.gold is None else list(job.gold),
        ],
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize(
    ("name", "settings"),
    [
        ("classification", {"samples_per_label": 2}),
        ("clustering", {"n_groups": 2}),
        ("sts", {"score_range": (0.0, 5.0)}),
        ("sts", {}),
        ("reranking", {}),
    ],
)
def test_a_stores_fingerprints_survive_the_settings_mapping(
    name: str, settings: dict[str, Any]
) -> None:
    """Jobs carry a type's settings as one mapping now; a subset predicted before keeps its
    fingerprint, so ``predict`` still skips it (and a changed setting still reruns it)."""
    encoder = FakeEncoder()
    one = job(name, settings=settings)
    old = _fingerprint_before_settings(
        one,
        encoder,
        settings.get("samples_per_label"),
        settings.get("n_groups"),
        settings.get("score_range"),
    )
    assert job_fingerprint(one, encoder) == old
    changed = job(name, settings={**settings, "samples_per_label": 3})
    assert job_fingerprint(changed, encoder) != old
    other = job(name, settings={**settings, "new_setting": 1})  # a setting no type had before
    assert job_fingerprint(other, encoder) not in {old, job_fingerprint(changed, encoder)}
