"""The near misses of bitext mining's candidates: what the study's models find nearest.

When a subset is sampled, each ``neighbour_models`` model embeds the sampled sentences and the
whole target side as mteb's evaluator does (two encode calls, no query/passage role, mteb's task
type for prompts) and ranks the targets by its own similarity (the procedure's
:func:`~ml_backend.procedures.bitext_mining.nearest_targets`, mteb's search a few deep). The
wrong translations a model ranks highest are the ones that tell a careful reader from a careless
one, and the ones a model is likeliest to pick: people see them beside the translation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ml_backend.procedures.bitext_mining import nearest_targets

#: mteb's name of the type, as its prompt tables key an instruction model's prompts.
MTEB_TYPE = "BitextMining"


def neighbours_with(
    encoders: Sequence[Any], sentences: Sequence[str], targets: Sequence[str], depth: int
) -> list[np.ndarray]:
    """Per encoder, the ``depth`` nearest targets of each sentence, best first.

    Args:
        encoders: loaded embedding models (``ml_backend.encoders.Encoder``).
        sentences: the source sentences.
        targets: the whole target side.
        depth: neighbours per sentence.

    Returns:
        One ``(len(sentences), depth)`` array of target positions per encoder.
    """
    from ml_backend.encoders import embed_unique

    out = []
    for encoder in encoders:
        sims = str(getattr(encoder, "similarity_fn_name", None) or "cosine")
        a = embed_unique(encoder, list(sentences), task_type=MTEB_TYPE)
        b = embed_unique(encoder, list(targets), task_type=MTEB_TYPE)
        out.append(nearest_targets(a, b, depth, similarity=sims))
    return out


def neighbours_by_name(
    models: Sequence[str], sentences: Sequence[str], targets: Sequence[str], depth: int
) -> list[np.ndarray]:
    """:func:`neighbours_with` the models the spec names, loaded as ``predict`` loads them (an
    unknown model ends ``init`` with the loader's one-line error)."""
    from ml_backend.encoders import load_encoder

    return neighbours_with([load_encoder(m) for m in models], sentences, targets, depth)
