"""The model concern's protocol: how an embedding model answers one task type, as mteb does.

Why a protocol: ``ml_backend`` runs embedding models on every task type, but it may not import
``hume_sync`` and nothing outside the task-type registry may branch on a type's name. So each
type brings an object implementing :class:`ModelProcedure` (the ``<Type>Model`` mixin of its
class in ``hume_sync.task_types``), and :mod:`ml_backend.predict` only calls its ``model_*``
members: which content key lists an instance's items, whether mteb fits on a train pool, which
texts to embed in which encode calls, and how the answers and the score follow from the
embeddings. A subset to answer is a :class:`SubsetJob` that carries its type object.

The split keeps mteb's numbers in one place per type: :mod:`ml_backend.procedures` mirrors
mteb's evaluators as plain functions over embeddings; a type's ``model_answers`` feeds them the
job's texts in mteb's order and turns their result into answers an annotator's can be compared
with.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ml_backend.encoders import Role
from ml_backend.procedures import ProcedureResult
from scoring.errors import HumeError


class PredictError(HumeError, ValueError):
    """A subset cannot be predicted as given (missing train pool, bad content, ...)."""


@dataclass(frozen=True)
class TextGroup:
    """Texts mteb embeds in one encode call, and the role (query/passage) it embeds them as.

    One call matters: sentence-transformers batches a call's texts by length, so the grouping
    decides which texts are padded together; the embedding cache keys rows by the same role.
    """

    texts: tuple[str, ...]
    role: Role | None = None


@dataclass(frozen=True)
class ModelAnswers:
    """What a procedure makes of one subset: an answer (and optional item score) per instance,
    aligned with the job's ``hume_ids``, and with gold mteb's scores (``scores`` None without)."""

    answers: list[Any]
    item_scores: list[float | None]
    main_score_name: str
    main_score: float | None
    scores: dict[str, Any] | None
    method: str

    @classmethod
    def from_result(
        cls,
        result: ProcedureResult,
        answers: Sequence[Any],
        item_scores: Sequence[float | None] | None = None,
    ) -> ModelAnswers:
        """Answers shaped by the type, score and method as the mteb procedure reported them."""
        return cls(
            answers=list(answers),
            item_scores=list(item_scores) if item_scores is not None else [None] * len(answers),
            main_score_name=result.main_score_name,
            main_score=result.main_score,
            scores=result.to_dict()["scores"],
            method=result.method,
        )


class Embeddings(Protocol):
    """The embeddings of texts already embedded for a job (the cache's lookup), one row each."""

    def __call__(self, texts: Sequence[str], role: Role | None = None) -> np.ndarray: ...


class ModelProcedure(ABC):
    """How an embedding model answers a task type, exactly as mteb scores it (one per type).

    Every member is named ``model_*`` so that it cannot collide with a type's other concerns
    (interface, LLM, scoring, study) in the one class that composes them.
    """

    #: The type's name in the study and its results (``SubsetPrediction.task_type``).
    name: str
    #: mteb's name of the type (``TaskMetadata.type``): the key of a model's prompt table.
    mteb_type: str

    @property
    @abstractmethod
    def model_items_key(self) -> str | None:
        """The content key listing an instance's items (``{"id", "text"}`` records answered one
        by one, so a model's answer is keyed by item id), or None when the type has no items."""

    @property
    @abstractmethod
    def model_needs_train_pool(self) -> bool:
        """Whether mteb fits the model's answers on a labelled train pool (the job's
        ``train_pool``), which the study must then provide."""

    @abstractmethod
    def model_encode_groups(self, job: SubsetJob) -> list[TextGroup]:
        """The job's texts, grouped into encode calls as mteb groups them (same roles).

        Raises :class:`PredictError` when an instance lacks what the type needs.
        """

    def model_job_settings(self, subset: Any) -> dict[str, Any]:
        """What this type's procedure reads beside the instances (:attr:`SubsetJob.settings`),
        from the study store's record of the subset (``hume_sync``'s ``Subset``: its stored
        ``config`` and columns; ``ml_backend`` cannot name the class). Default: nothing."""
        return {}

    @abstractmethod
    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        """Answers and (with gold) mteb's scores from the embeddings of
        :meth:`model_encode_groups`' texts; ``similarity`` is the model's own function."""

    def model_field(self, job: SubsetJob, n: int, name: str) -> Any:
        """Instance ``n``'s ``name``, or a :class:`PredictError` naming the instance."""
        content = job.contents[n]
        if not isinstance(content, Mapping) or name not in content:
            raise PredictError(f"{job.key}: instance {job.hume_ids[n]!r} has no {name!r}")
        return content[name]


@dataclass(frozen=True)
class SubsetJob:
    """One subset to answer: its type, its instances in order and what the procedure needs.

    ``contents`` have the study-store shapes (classification ``{"text"}``, clustering
    ``{"items": [{"id", "text"}]}``, STS ``{"sentence1", "sentence2"}``, reranking
    ``{"query", "candidates": [{"id", "text"}]}``). ``gold`` (aligned with ``hume_ids``; for
    clustering one ``{item_id: label}`` per instance) is optional: without it answers are made
    but no score. ``settings`` are the type's own (``ModelProcedure.model_job_settings``:
    classification's ``samples_per_label``, clustering's ``n_groups``, STS's ``score_range``).
    """

    key: str
    task: ModelProcedure
    task_name: str
    hume_ids: tuple[str, ...]
    contents: tuple[Mapping[str, Any], ...]
    train_pool: tuple[Mapping[str, Any], ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    gold: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.task, ModelProcedure):
            raise PredictError(f"{self.key}: {self.task!r} is not a task type with a model")
        if len(self.hume_ids) != len(self.contents):
            raise PredictError(f"{self.key}: hume_ids and contents differ in length")
        if self.gold is not None and len(self.gold) != len(self.hume_ids):
            raise PredictError(f"{self.key}: gold and instances differ in length")
