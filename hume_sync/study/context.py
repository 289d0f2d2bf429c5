"""What a study step tells the study code beside the spec: where the study's embedding cache is.

Sampling is pure for most types, but a type whose instances come out of running models (a
retrieval pool is what several systems retrieve from the whole corpus) runs them while its
subset is sampled, at ``init``. It should embed through the study's own cache, so that
``predict`` later finds those texts embedded; ``init`` names the cache file here for the
duration of its planning, and the type reads it with :func:`embedding_cache_path`. Outside
``init`` (a test, a benchmark) there is none, and such a type uses a cache of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

_CACHE: ContextVar[Path | None] = ContextVar("study_embedding_cache", default=None)


@contextmanager
def study_embedding_cache(path: str | Path) -> Iterator[None]:
    """Name the study's embedding cache file for the study code run inside the block."""
    token = _CACHE.set(Path(path))
    try:
        yield
    finally:
        _CACHE.reset(token)


def embedding_cache_path() -> Path | None:
    """The study's embedding cache file while ``init`` plans the study; None elsewhere."""
    return _CACHE.get()


__all__ = ["embedding_cache_path", "study_embedding_cache"]
