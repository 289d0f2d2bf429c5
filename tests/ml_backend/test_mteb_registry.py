"""hume sends every leaderboard model the strings mteb's own evaluation sends it.

For every model of the bundled HUME(v1) results (``examples/mteb_results``) that mteb's registry
can load, mteb's loader builds the model's own wrapper (prompts, instruction template, roles)
with a *recording* model beneath it in place of the weights (nothing is downloaded). mteb's
``AbsTask.evaluate`` runs each task type on a few texts through one such wrapper; hume's path
(:class:`ml_backend.mteb_models.MtebModelEncoder` inside the embedding cache, the texts grouped
by the type's model procedure) runs the same instances through another. The final strings the
two recording models receive — instruction or prompt included, and the encode method (query,
document, plain) they came through — must be the same sets.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hume_sync import task_types
from ml_backend.embedding_cache import EmbeddingCache
from ml_backend.model_procedure import SubsetJob
from ml_backend.mteb_models import MtebModelEncoder, TextModelBeneath, load_wrapper, model_meta
from ml_backend.predict import encode_requests
from tests._mteb import run_mteb

datasets = pytest.importorskip("datasets")
pytest.importorskip("mteb")

RESULTS = Path(__file__).resolve().parents[2] / "examples" / "mteb_results"
#: What the registry cannot put a sentence-transformers model beneath (not an embedding model
#: with weights): the human baseline and BM25.
NOT_LOADABLE = {"baseline/Human", "mteb/baseline-bm25s"}


class Recorder(TextModelBeneath):
    """Stands in for the weights: records ``(method, final string)``; hashed unit vectors."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: set[tuple[str, str]] = set()
        self._method = "encode"

    def embed(self, texts: list[str]) -> np.ndarray:
        self.seen.update((self._method, t) for t in texts)
        rows = []
        for t in texts:
            seed = int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)
            v = np.random.default_rng(seed).standard_normal(16)
            rows.append(v / np.linalg.norm(v))
        return np.asarray(rows, dtype=np.float32)

    def encode_query(self, sentences: Any, *args: Any, **kw: Any) -> np.ndarray:
        self._method = "query"
        try:
            return super().encode_query(sentences, *args, **kw)
        finally:
            self._method = "encode"

    def encode_document(self, sentences: Any, *args: Any, **kw: Any) -> np.ndarray:
        self._method = "document"
        try:
            return super().encode_document(sentences, *args, **kw)
        finally:
            self._method = "encode"


def leaderboard_models() -> list[str]:
    names = [p.name.replace("__", "/", 1) for p in sorted(RESULTS.iterdir()) if "__" in p.name]
    return [n for n in names if n not in NOT_LOADABLE]


def test_every_leaderboard_model_is_known_to_mteb() -> None:
    models = leaderboard_models()
    assert len(models) == 18
    assert all(model_meta(m) is not None for m in models), [m for m in models if not model_meta(m)]


def _recording_wrapper(meta: Any) -> tuple[Any, Recorder]:
    made: list[Recorder] = []

    def beneath(*args: Any, **kwargs: Any) -> Recorder:
        made.append(Recorder(*args, **kwargs))
        return made[-1]

    wrapper = load_wrapper(meta, beneath=beneath)
    return wrapper, made[0]


# the same few instances, in mteb's dataset shape and in hume's job shape
TRAIN = [("a calm sea", "0"), ("a quiet lake", "0"), ("a loud drum", "1"), ("a noisy bell", "1")]
TEST = [("the still pond", "0"), ("a roaring crowd", "1")]
CLU = [("cats purr", "a"), ("dogs bark", "a"), ("stocks fell", "b"), ("bonds rose", "b")]
PAIRS = [("A man sings.", "A person sings."), ("A dog runs.", "A cat sleeps.")]
QUERIES = [
    ("q1", "where do cats live", "Relevant: homes.", [("d1", "Pets", "Cats live in homes."),
                                                      ("d2", "", "Stocks fell today.")]),
    ("q2", "market news", "Relevant: finance.", [("d2", "", "Stocks fell today."),
                                                 ("d3", "Sea", "Fish swim in the sea.")]),
]  # fmt: skip


def _mteb_side(wrapper: Any, folder: Path) -> None:
    ds = datasets.Dataset.from_dict
    cls = {
        "default": datasets.DatasetDict(
            {
                "train": ds({"text": [t for t, _ in TRAIN], "label": [int(lb) for _, lb in TRAIN]}),
                "test": ds({"text": [t for t, _ in TEST], "label": [int(lb) for _, lb in TEST]}),
            }
        )
    }
    run_mteb(
        "HUMEEmotionClassification", "default", cls, wrapper, folder / "c", samples_per_label=2
    )
    clu = {
        "eng_Latn": {
            "test": ds({"sentences": [[t for t, _ in CLU]], "labels": [[lb for _, lb in CLU]]})
        }
    }
    run_mteb("HUMESIB200ClusteringS2S", "eng_Latn", clu, wrapper, folder / "k")
    sts = {
        "default": {
            "test": ds(
                {
                    "sentence1": [a for a, _ in PAIRS],
                    "sentence2": [b for _, b in PAIRS],
                    "score": [4.0, 1.0],
                }
            )
        }
    }
    run_mteb("HUMESTSBenchmark", "default", sts, wrapper, folder / "s")
    pairs = {
        "test": ds(
            {
                "sentence1": [a for a, _ in PAIRS],
                "sentence2": [b for _, b in PAIRS],
                "labels": [1, 0],
            }
        )
    }
    run_mteb("TwitterSemEval2015", "default", pairs, wrapper, folder / "p")
    corpus = {d: (title, text) for _, _, _, docs in QUERIES for d, title, text in docs}
    for task, subset, with_extras in (
        ("HUMEWikipediaRerankingMultilingual", "en", False),
        ("HUMECore17InstructionReranking", "default", True),
    ):
        queries = {"id": [q for q, *_ in QUERIES], "text": [t for _, t, _, _ in QUERIES]}
        docs = {"id": list(corpus), "text": [x for _, x in corpus.values()]}
        if with_extras:
            queries["instruction"] = [i for _, _, i, _ in QUERIES]
            docs["title"] = [t for t, _ in corpus.values()]
        data = {
            subset: {
                "test": {
                    "corpus": ds(docs),
                    "queries": ds(queries),
                    "relevant_docs": {
                        q: {docs_[0][0]: 1, docs_[1][0]: 0} for q, _, _, docs_ in QUERIES
                    },
                    "top_ranked": {q: [d for d, _, _ in docs_] for q, _, _, docs_ in QUERIES},
                }
            }
        }
        run_mteb(task, subset, data, wrapper, folder / task)


def _hume_jobs() -> list[SubsetJob]:
    def job(type_name: str, task: str, contents: list[dict[str, Any]], **kw: Any) -> SubsetJob:
        return SubsetJob(
            key=f"{task}/x",
            task=task_types.get(type_name),
            task_name=task,
            hume_ids=tuple(f"h{n}" for n in range(len(contents))),
            contents=tuple(contents),
            **kw,
        )

    def candidates(docs: list[tuple[str, str, str]], titles: bool) -> list[dict[str, Any]]:
        return [{"id": d, "text": x, **({"title": t} if titles else {})} for d, t, x in docs]

    return [
        job(
            "classification",
            "HUMEEmotionClassification",
            [{"text": t} for t, _ in TEST],
            train_pool=tuple({"text": t, "label": lb} for t, lb in TRAIN),
            settings={"samples_per_label": 2},
        ),
        job(
            "clustering",
            "HUMESIB200ClusteringS2S",
            [{"items": [{"id": str(n), "text": t} for n, (t, _) in enumerate(CLU)]}],
            settings={"n_groups": 2},
        ),
        job("sts", "HUMESTSBenchmark", [{"sentence1": a, "sentence2": b} for a, b in PAIRS]),
        job(
            "pair_classification",
            "TwitterSemEval2015",
            [{"sentence1": a, "sentence2": b} for a, b in PAIRS],
        ),
        job(
            "reranking",
            "HUMEWikipediaRerankingMultilingual",
            [{"query": t, "candidates": candidates(d, False)} for _, t, _, d in QUERIES],
        ),
        job(
            "reranking",
            "HUMECore17InstructionReranking",
            [
                {"query": t, "instruction": i, "candidates": candidates(d, True)}
                for _, t, i, d in QUERIES
            ],
        ),
    ]


@pytest.mark.parametrize("name", leaderboard_models())
def test_hume_sends_what_mteb_evaluation_sends(name: str, tmp_path: Path) -> None:
    meta = model_meta(name)
    assert meta is not None
    theirs, mteb_recorder = _recording_wrapper(meta)
    _mteb_side(theirs, tmp_path / "mteb")

    wrapper, hume_recorder = _recording_wrapper(meta)
    encoder = MtebModelEncoder(
        wrapper, name=name, revision=meta.revision, batch_size=32, placement="test", meta=meta
    )
    with EmbeddingCache(tmp_path / "cache.sqlite") as cache:
        cache.ensure(encoder, [r for job in _hume_jobs() for r in encode_requests(job)])

    missing = sorted(mteb_recorder.seen - hume_recorder.seen)
    extra = sorted(hume_recorder.seen - mteb_recorder.seen)
    assert not missing and not extra, (missing[:3], extra[:3])
    assert len(hume_recorder.seen) >= 20
    template = (meta.loader_kwargs or {}).get("instruction_template")
    if isinstance(template, str):  # the instruction really is in what is sent
        head = template.split("{instruction}")[0]
        assert any(t.startswith(head) and len(t) > len(head) for _, t in hume_recorder.seen)
