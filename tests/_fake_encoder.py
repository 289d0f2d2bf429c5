"""The one fake embedding model of the test suite (and a counting wrapper for real ones).

Why one: tests of the cache, of ``predict`` and of the mteb parity all need an encoder that is
deterministic, fast and model-free; with one class they agree on what an encoder looks like
(the ``ml_backend.encoders.Encoder`` protocol plus ``prompt_for`` and ``similarity_fn_name``,
as the real sentence-transformers encoder has them) and on how calls are counted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


class FakeEncoder:
    """Deterministic, model-free encoder.

    A text's vector is read from ``table`` when one is given (synthetic embeddings that a parity
    test also hands to mteb), else drawn from a normal distribution seeded by the text's sha256
    (``dim`` floats). float32, like real models. Every call is recorded: ``calls`` and ``texts``
    count them, ``batches`` keeps their texts. No prompts, so every prompt-free task context
    shares cache rows, as with a real prompt-free model.
    """

    similarity_fn_name = "cosine"

    def __init__(
        self,
        dim: int = 16,
        name: str = "test/fake",
        *,
        revision: str | None = "1",
        table: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        self.dim = dim
        self.name = name
        self.revision = revision
        self.table = table
        self.calls = 0
        self.texts = 0
        self.batches: list[list[str]] = []

    @property
    def model_version(self) -> str:
        return f"emb:{self.name}"

    @property
    def dimension(self) -> int:
        """Embedding size, as real encoders report it."""
        return self.dim

    def prompt_for(self, *, role: Any, task_type: Any, task_name: Any) -> None:
        return None

    def vector(self, text: str) -> np.ndarray:
        """The one vector this encoder gives ``text``."""
        if self.table is not None:
            return np.asarray(self.table[text], dtype=np.float32)
        seed = int(hashlib.sha256(text.encode()).hexdigest()[:15], 16)
        return np.random.default_rng(seed).normal(size=self.dim).astype(np.float32)

    def encode(self, texts: Sequence[str], **kwargs: Any) -> np.ndarray:
        texts = list(texts)
        self.calls += 1
        self.texts += len(texts)
        self.batches.append(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.vector(t) for t in texts])


class CountingEncoder:
    """Wraps an encoder (a real model), counts encode calls and texts, and can fail after
    ``fail_after`` calls (an interrupted run)."""

    def __init__(self, inner: Any, fail_after: int | None = None) -> None:
        self.inner = inner
        self.fail_after = fail_after
        self.calls = 0
        self.texts = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @property
    def model_version(self) -> str:
        return self.inner.model_version

    def encode(self, texts: Sequence[str], **kwargs: Any) -> np.ndarray:
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise RuntimeError("injected interruption")
        self.calls += 1
        self.texts += len(texts)
        return self.inner.encode(texts, **kwargs)
