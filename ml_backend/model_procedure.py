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

__all__ = [
    "Embeddings",
    "ModelAnswers",
    "ModelProcedure",
    "PredictError",
    "SubsetJob",
    "TextGroup",
    "TrainPoolProcedure",
]


class PredictError(HumeError, ValueError):
    """A subset cannot be predicted as given (missing train pool, bad content, ...)."""


@dataclass(frozen=True)
class TextGroup:
    """Texts mteb embeds in one encode call, and the role (query/passage) it embeds them as.

    One call matters: sentence-transformers batches a call's texts by length, so the grouping
    decides which texts are padded together; the embedding cache keys rows by the same role.

    Attributes:
        texts: the texts, in mteb's order.
        role: ``"query"`` or ``"passage"``; None for a symmetric task.
    """

    texts: tuple[str, ...]
    role: Role | None = None


@dataclass(frozen=True)
class ModelAnswers:
    """What a procedure makes of one subset: answers per instance and, with gold, mteb's scores.

    Attributes:
        answers: the answer per instance, aligned with the job's ``hume_ids``.
        item_scores: an optional score per instance (None where the type has none).
        main_score_name: which of ``scores`` mteb reports as ``main_score``.
        main_score: that score; None without gold.
        scores: mteb's scores by their names; None without gold.
        method: how the answers and scores were computed (the procedure's identifier).
    """

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
        """Combine answers shaped by the type with the score and method of the mteb procedure.

        Args:
            result: what the type's procedure returned.
            answers: the answer per instance, in the type's answer shape.
            item_scores: a score per instance; None gives None for each.

        Returns:
            The subset's answers, with the procedure's scores as plain JSON values.
        """
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

    def __call__(self, texts: Sequence[str], role: Role | None = None) -> np.ndarray:
        """Look up the embeddings of ``texts`` as embedded with ``role``, one row per text."""
        ...


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
        """The content key listing an instance's items, or None when the type has no items.

        The items are ``{"id", "text"}`` records answered one by one, so a model's answer is keyed
        by item id.

        Returns:
            The key (``"items"``, ``"candidates"``), or None.
        """

    @property
    @abstractmethod
    def model_needs_train_pool(self) -> bool:
        """Whether mteb fits the model's answers on a labelled train pool.

        The pool is the job's ``train_pool``, which the study must then provide.

        Returns:
            True for a type whose model answers are fitted (classification).
        """

    @abstractmethod
    def model_encode_groups(self, job: SubsetJob) -> list[TextGroup]:
        """Group the job's texts into encode calls as mteb groups them (same roles).

        Args:
            job: the subset to answer.

        Returns:
            The encode calls, in mteb's order.

        Raises:
            PredictError: when an instance lacks what the type needs.
        """

    def model_job_settings(self, subset: Any) -> dict[str, Any]:
        """Read what this type's procedure needs beside the instances (:attr:`SubsetJob.settings`).

        Default: nothing.

        Args:
            subset: the study store's record of the subset (``hume_sync``'s ``Subset``: its
                stored ``config`` and columns; ``ml_backend`` cannot name the class).

        Returns:
            The settings, by name (classification's ``samples_per_label``, ...).
        """
        return {}

    @abstractmethod
    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        """Answer the job, and with gold score it as mteb does, from the texts' embeddings.

        Args:
            job: the subset to answer.
            embeddings: the lookup of the embeddings of :meth:`model_encode_groups`' texts.
            similarity: the model's own similarity function (``"cosine"``, ``"dot"``, ...).

        Returns:
            The answers, and mteb's scores when the job has gold.

        Raises:
            PredictError: when the job's content or settings cannot be answered.
        """

    def model_field(self, job: SubsetJob, n: int, name: str) -> Any:
        """Read instance ``n``'s content field ``name``.

        Args:
            job: the subset.
            n: the instance's position in the job.
            name: the content key.

        Returns:
            The field's value.

        Raises:
            PredictError: naming the instance, when its content has no such field.
        """
        content = job.contents[n]
        if not isinstance(content, Mapping) or name not in content:
            raise PredictError(f"{job.key}: instance {job.hume_ids[n]!r} has no {name!r}")
        return content[name]


class TrainPoolProcedure(ModelProcedure):
    """A procedure that fits on the job's train pool, as mteb's tasks with a train split do.

    mteb embeds the union of its experiments' train samples in one encode call and the test
    texts in another; which rows that union holds, and in which order, is each task's own
    (:meth:`model_train_union`). The two groups and the train rows' embeddings by pool index are
    read here once for every such type.
    """

    model_items_key = None
    model_needs_train_pool = True

    @abstractmethod
    def model_train_union(self, job: SubsetJob) -> list[int]:
        """The train-pool indices mteb embeds, in the order it embeds them.

        Args:
            job: the subset.

        Returns:
            Indices into ``job.train_pool``.

        Raises:
            PredictError: when the job has no train pool, or one the type cannot read.
        """

    def model_encode_groups(self, job: SubsetJob) -> list[TextGroup]:
        """The union's train texts, then the test texts (each instance's ``text``).

        Args:
            job: the subset.

        Returns:
            The two groups, train first.
        """
        union = self.model_train_union(job)
        train = tuple(str(job.train_pool[i]["text"]) for i in union)
        test = tuple(str(self.model_field(job, n, "text")) for n in range(len(job.contents)))
        return [TextGroup(train), TextGroup(test)]

    def model_train_embeddings(self, job: SubsetJob, embeddings: Embeddings) -> dict[int, Any]:
        """The embeddings of the rows of :meth:`model_train_union`.

        Args:
            job: the subset.
            embeddings: the job's embeddings, by text.

        Returns:
            Train-pool index → embedding.
        """
        union = self.model_train_union(job)
        rows = embeddings([str(job.train_pool[i]["text"]) for i in union])
        return {i: rows[pos] for pos, i in enumerate(union)}


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
        """Refuse a job whose type has no model, or whose ids, contents and gold disagree."""
        if not isinstance(self.task, ModelProcedure):
            raise PredictError(f"{self.key}: {self.task!r} is not a task type with a model")
        if len(self.hume_ids) != len(self.contents):
            raise PredictError(f"{self.key}: hume_ids and contents differ in length")
        if self.gold is not None and len(self.gold) != len(self.hume_ids):
            raise PredictError(f"{self.key}: gold and instances differ in length")
