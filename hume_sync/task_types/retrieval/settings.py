"""Retrieval's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator

from hume_sync.study.settings_fields import Count, Flag, LabelSet, TypeSettings
from scoring.aggregation.retrieval import main_metric
from scoring.errors import InvalidInputError

#: The grades people give when the spec names none (the source's qrels graded 0, 1, 2).
DEFAULT_GRADE_LABELS = ("not relevant", "partly", "highly")
#: Two grades, where every qrels grade is 0 or 1.
BINARY_GRADE_LABELS = ("not relevant", "relevant")
#: The systems pooled when the spec names none: the packaged model (and BM25, ``pool_lexical``).
DEFAULT_POOL_MODELS = ("all-MiniLM-L6-v2",)


def _models(value: Any) -> tuple[str, ...]:
    ok = isinstance(value, list | tuple) and all(isinstance(v, str) and v.strip() for v in value)
    if not ok:
        raise ValueError("must be a list of model names")
    if len(set(value)) != len(value):
        raise ValueError("names a model twice")
    return tuple(value)


ModelNames = Annotated[tuple[str, ...], BeforeValidator(_models)]


def _main_score(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"must be a measure as mteb names it (ndcg_at_10, ...), got {value!r}")
    try:
        main_metric(value)
    except InvalidInputError as exc:
        raise ValueError(str(exc)) from None
    return value


MainScore = Annotated[str, BeforeValidator(_main_score)]


class RetrievalSettings(TypeSettings):
    """``pool_depth``: d, how deep each system's whole-corpus ranking is pooled (TREC uses
    10–20); ``pool_models``: the embedding models whose rankings are pooled (the study's models:
    ``predict`` then finds their corpus embeddings in the cache); ``pool_lexical``: whether BM25 is
    pooled too (a lexical system finds what dense models miss); ``grade_labels``: the grades
    shown, lowest first (grade i is label i; default: three grades, or two where every qrels
    grade is 0 or 1); ``main_score``: a local folder's main score as mteb names it (default
    nDCG@10; an mteb task is scored by its own ``TaskMetadata.main_score``). A main score that
    cuts deeper than 10 deepens the default pool to its cut-off (nDCG@20 pools each system's
    top 20), unless the spec sets ``pool_depth``."""

    pool_depth: Count = 10
    pool_models: ModelNames = DEFAULT_POOL_MODELS
    pool_lexical: Flag = True
    grade_labels: LabelSet | None = None
    main_score: MainScore | None = None
