"""Models mteb knows, loaded and called through mteb's own wrapper, so hume's embeddings are mteb's.

Why: mteb does not encode most leaderboard models as plain sentence-transformers models. Its
registry gives each a ``ModelMeta`` whose loader builds a wrapper (``InstructSentenceTransformer
Model``, ``SentenceTransformerEncoderWrapper``, ...) with the model's prompts, instruction
template (built from the task's own metadata), dtype and query/passage handling. Re-implementing
each would drift from mteb; calling the wrapper's ``encode`` with the task's ``TaskMetadata`` and
``prompt_type``, as ``AbsTask.evaluate`` does, makes the embeddings mteb's by construction.

:class:`MtebModelEncoder` is that call behind hume's :class:`~ml_backend.encoders.Encoder`
protocol; the embedding cache sits around it. What runs beneath the wrapper is either the real
weights (in-process, on the device :mod:`ml_backend.devices` picks) or a stand-in installed in
place of ``sentence_transformers.SentenceTransformer`` while the loader runs
(:func:`load_wrapper`'s ``beneath``): the embedding-server path puts a remote model there
(:mod:`ml_backend.openai_embeddings`), so mteb's instructions are applied to the text before it
is sent; the tests put a recording model there, so no weights are downloaded.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ml_backend.encoder_base import (
    ModelLoadError,
    Role,
    _one_line,
    _progress_bars_for_terminals,
    mteb_prompt_type,
)

#: The split and subset hume names to a wrapper's ``encode`` (text wrappers ignore both).
HF_SPLIT = "test"
HF_SUBSET = "default"

_PATCH_LOCK = threading.Lock()

__all__ = [
    "HF_SPLIT",
    "HF_SUBSET",
    "MtebModelEncoder",
    "TextModelBeneath",
    "known_to_mteb",
    "load_mteb_encoder",
    "load_plain_wrapper",
    "load_wrapper",
    "model_meta",
    "mteb_version",
    "task_metadata",
]


def mteb_version() -> str:
    """Read the installed mteb's version, for the score's ``method``.

    Returns:
        The version string.
    """
    return importlib.metadata.version("mteb")


def model_meta(name: str) -> Any | None:
    """Look up mteb's ``ModelMeta`` for a model name.

    Args:
        name: the model's name as mteb's registry spells it.

    Returns:
        The meta, or None when mteb is missing, the name unknown or the meta has no loader.
    """
    try:
        import mteb
    except ImportError:
        return None
    try:
        meta = mteb.get_model_meta(name)
    except Exception:  # mteb raises KeyError / ValueError for names it does not know
        return None
    return meta if getattr(meta, "loader", None) is not None else None


@functools.cache
def task_metadata(task_name: str | None, mteb_type: str | None) -> Any:
    """Give the ``TaskMetadata`` mteb's evaluation would hand the model for this task.

    A task mteb knows gives its own (name, type, description, prompt: what instruction
    templates read). A task it does not know (a study's own data) gets a stand-in carrying only
    the name and mteb's type, as a user-defined mteb task without a prompt would: prompts are
    then chosen by type and role, and instruction models get mteb's empty default.

    Args:
        task_name: the mteb task's name; None for a study's own data.
        mteb_type: mteb's name of the type, for the stand-in.

    Returns:
        mteb's metadata, or the stand-in (cached per name and type).
    """
    import mteb
    from mteb.abstasks.task_metadata import TaskMetadata

    if task_name:
        try:
            return mteb.get_task(task_name).metadata
        except Exception:  # unknown to mteb: the stand-in below
            pass
    return TaskMetadata.model_construct(
        name=task_name or "hume",
        type=mteb_type,
        prompt=None,
        description="",
        modalities=["text"],
        category="t2t",
    )


def known_to_mteb(task_name: str | None) -> bool:
    """Tell whether mteb's task registry has this task (then its own metadata and prompt are used).

    Args:
        task_name: the task's name.

    Returns:
        True when mteb knows it.
    """
    try:
        import mteb

        mteb.get_task(str(task_name))
    except Exception:
        return False
    return True


@contextlib.contextmanager
def _sentence_transformer_replaced(factory: Callable[..., Any] | None) -> Iterator[None]:
    """Make ``sentence_transformers.SentenceTransformer(...)`` return ``factory(...)`` meanwhile.

    Every mteb text wrapper calls that class by name while its loader runs; it is put back
    afterwards.
    """
    if factory is None:
        yield
        return
    import sentence_transformers

    with _PATCH_LOCK:
        original = sentence_transformers.SentenceTransformer
        sentence_transformers.SentenceTransformer = factory  # type: ignore[misc,assignment]
        try:
            yield
        finally:
            sentence_transformers.SentenceTransformer = original  # type: ignore[misc]


def load_wrapper(
    meta: Any,
    *,
    source: str | None = None,
    device: str | None = None,
    beneath: Callable[..., Any] | None = None,
) -> Any:
    """Build mteb's wrapper for ``meta`` by its own loader with its own ``loader_kwargs``.

    Args:
        meta: mteb's ``ModelMeta`` of the model.
        source: replaces the hub id as what the loader opens (a local copy of the same weights,
            e.g. the packaged MiniLM).
        device: the torch device, passed to the loader.
        beneath: replaces the sentence-transformers model the wrapper builds (a remote model,
            a recording test model), so nothing is downloaded.

    Returns:
        The wrapper, its ``mteb_model_meta`` set.

    Raises:
        ModelLoadError: when mteb's loader fails.
    """
    kwargs = dict(meta.loader_kwargs or {})
    if device is not None:
        kwargs["device"] = device
    try:
        with _sentence_transformer_replaced(beneath), _progress_bars_for_terminals():
            wrapper = meta.loader(source or meta.name, revision=meta.revision, **kwargs)
    except Exception as exc:
        raise ModelLoadError(meta.name, f"mteb's loader failed ({_one_line(exc)})") from exc
    if getattr(wrapper, "mteb_model_meta", None) is None or source is not None:
        with contextlib.suppress(Exception):  # plain attribute on mteb's encoders
            wrapper.mteb_model_meta = meta
    return wrapper


class MtebModelEncoder:
    """hume's ``Encoder`` over an mteb wrapper, called as ``AbsTask.evaluate`` calls it.

    ``encode`` gets a dataloader of the texts, the task's metadata, the role as ``prompt_type``.

    Args:
        wrapper: mteb's wrapper (see :func:`load_wrapper`).
        name: the model's name in results.
        revision: the weights' revision, when known.
        batch_size: texts per forward pass (and per dataloader batch).
        placement: where the model runs (``"cpu, batch 32"``, ``"server http://..."``): it goes
            into every score's ``method`` with the wrapper's name and mteb's version.
        meta: mteb's ``ModelMeta``, for the model's similarity function.
        version_prefix: the prefix of :attr:`model_version`.
    """

    def __init__(
        self,
        wrapper: Any,
        *,
        name: str,
        revision: str | None,
        batch_size: int,
        placement: str,
        meta: Any | None = None,
        version_prefix: str = "emb:",
    ) -> None:
        """Keep the wrapper and read the model's similarity function."""
        self.wrapper = wrapper
        self.name = name
        self.revision = revision
        self.batch_size = batch_size
        self.placement = placement
        self.meta = meta
        self._version_prefix = version_prefix
        #: The weights (or stand-in) beneath the wrapper: tokenizer and facts are read from it.
        self.model = getattr(wrapper, "model", None)
        fn = getattr(meta, "similarity_fn_name", None) or getattr(
            self.model, "similarity_fn_name", None
        )
        self.similarity_fn_name: str = str(getattr(fn, "value", fn) or "cosine")
        self._lock = threading.RLock()
        self._templates: dict[tuple[Any, ...], tuple[str, str] | None] = {}

    @property
    def model_version(self) -> str:
        """Label Studio ``model_version`` of this model's predictions.

        Returns:
            The prefix (``emb:``) and the name.
        """
        return f"{self._version_prefix}{self.name}"

    @property
    def dimension(self) -> int | None:
        """Embedding size, when the model beneath the wrapper reports it.

        Returns:
            The size, or None when it does not say.
        """
        for attr in ("get_embedding_dimension", "get_sentence_embedding_dimension"):
            fn = getattr(self.model, attr, None)
            if callable(fn):
                value = fn()
                return int(value) if value is not None else None
        return None

    def method_note(self) -> str:
        """Say which path made the embeddings, for the score's ``method``.

        Returns:
            The wrapper's class, mteb's version and the placement.
        """
        wrapper = type(self.wrapper).__name__
        return f"encoded by mteb's {wrapper} (mteb {mteb_version()}), {self.placement}"

    def cache_variant(
        self, *, role: Role | None, task_type: str | None, task_name: str | None
    ) -> str:
        """Key the encoding context for the embedding cache.

        The key is the string template the wrapper makes of a text for this task and role, and
        the encode method it goes through (found by :meth:`input_template`), so that tasks the
        wrapper treats alike (all prompt-free symmetric tasks) share cache rows. A wrapper that
        cannot be probed is keyed per task and role (safe: no sharing).

        Args:
            role: ``"query"``, ``"passage"`` or None.
            task_type: mteb's name of the type.
            task_name: the mteb task's name.

        Returns:
            The variant key.
        """
        kind = mteb_prompt_type(role) or "plain"
        found = self.input_template(role=role, task_type=task_type, task_name=task_name)
        if found is None:
            return f"mteb|{kind}|type={task_type or ''}|task={task_name or ''}"
        method, template = found
        digest = hashlib.sha256(template.encode("utf-8")).hexdigest()[:16]
        return f"mteb|{kind}|{method}|template={digest}"

    def input_template(
        self, *, role: Role | None, task_type: str | None, task_name: str | None
    ) -> tuple[str, str] | None:
        """Probe what the model beneath the wrapper receives for a text of this task and role.

        Why a probe: instruction wrappers build the instruction inside ``encode`` from the
        task's metadata, so asking the wrapper is the only way to know it without copying its
        rules. A probe model takes the weights' place for one call (under the encoder's lock).

        Args:
            role: ``"query"``, ``"passage"`` or None.
            task_type: mteb's name of the type.
            task_name: the mteb task's name.

        Returns:
            ``(encode method, template)``, ``{text}`` standing for the text; None if the
            wrapper could not be probed (cached either way).
        """
        key = (role, task_type, task_name)
        if key in self._templates:
            return self._templates[key]
        probe = _Probe(self.model)
        found: tuple[str, str] | None = None
        with self._lock:
            real = self.wrapper.model
            try:
                self.wrapper.model = probe
                self._call_wrapper([_PROBE_MARK], role, task_type, task_name)
            except Exception:  # any wrapper that does not take the probe: no sharing
                probe.seen.clear()
            finally:
                self.wrapper.model = real
        if len(probe.seen) == 1 and probe.seen[0][1].count(_PROBE_MARK) == 1:
            method, final = probe.seen[0]
            found = (method, final.replace(_PROBE_MARK, "{text}"))
        self._templates[key] = found
        return found

    def encode(
        self,
        texts: Sequence[str],
        *,
        role: Role | None = None,
        task_type: str | None = None,
        task_name: str | None = None,
    ) -> np.ndarray:
        """Embed ``texts`` through the wrapper for this task and role.

        Args:
            texts: the texts to embed, in one encode call.
            role: ``"query"``, ``"passage"`` or None.
            task_type: mteb's name of the type.
            task_name: the mteb task's name.

        Returns:
            One float32 row per text.
        """
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        with self._lock:
            out = self._call_wrapper(texts, role, task_type, task_name)
        if hasattr(out, "detach"):
            out = out.detach().cpu().float().numpy()
        return np.asarray(out, dtype=np.float32)

    def _call_wrapper(
        self, texts: list[str], role: Role | None, task_type: str | None, task_name: str | None
    ) -> Any:
        """Call ``wrapper.encode`` as ``AbsTask.evaluate`` calls it.

        That is: a dataloader of the texts, the task's metadata, the role as mteb's
        ``prompt_type``, mteb's encode keywords.
        """
        from mteb._create_dataloaders import _create_dataloader_from_texts
        from mteb.types import PromptType

        prompt_type = mteb_prompt_type(role)
        return self.wrapper.encode(
            _create_dataloader_from_texts(texts, batch_size=self.batch_size),
            task_metadata=task_metadata(task_name, task_type),
            hf_split=HF_SPLIT,
            hf_subset=HF_SUBSET,
            prompt_type=PromptType(prompt_type) if prompt_type else None,
            batch_size=self.batch_size,
            show_progress_bar=False,
        )


def load_mteb_encoder(
    meta: Any,
    *,
    name: str | None = None,
    source: str | None = None,
    revision: str | None = None,
    device: str | None = None,
    batch_size: int | None = None,
) -> MtebModelEncoder:
    """Load an in-process model through mteb's wrapper, on the GPU when there is one.

    Args:
        meta: mteb's ``ModelMeta`` of the model.
        name: the model's name in results; None takes mteb's.
        source: a local copy of the weights to open instead of the hub id.
        revision: the weights' revision; None takes mteb's (unless ``source`` is given).
        device: the torch device; None picks one (:func:`ml_backend.devices.choose_device`).
        batch_size: texts per forward pass; None takes the device's default.

    Returns:
        The encoder.

    Raises:
        ModelLoadError: when mteb's loader fails.
    """
    from ml_backend.devices import choose_device

    choice = choose_device(device, batch_size)
    wrapper = load_wrapper(meta, source=source, device=choice.device)
    return MtebModelEncoder(
        wrapper,
        name=name or meta.name,
        revision=revision if source is not None else (revision or meta.revision),
        batch_size=choice.batch_size,
        placement=choice.describe(),
        meta=meta,
    )


class _NoAttention:
    """What mteb's Qwen3 loader reads of a model's first module (``auto_model.config``)."""

    class config:  # mirrors transformers' attribute names
        _attn_implementation = "eager"

    auto_model = None
    tokenizer = None

    def __init__(self) -> None:
        self.auto_model = self


class TextModelBeneath:
    """The surface of a ``SentenceTransformer`` that mteb's text wrappers call, over :meth:`embed`.

    What sits beneath a wrapper in place of local weights: :meth:`embed` gets final strings.
    Prompts are applied as sentence-transformers applies them (``prompt + text``;
    ``encode_query`` / ``encode_document`` fall back to the ``"query"`` / ``"document"``
    entries of :attr:`prompts`), so :meth:`embed` receives exactly the strings the real model
    would tokenize.

    Args:
        model_name_or_path: what the loader asked to open.
        *args: other positional loader arguments, ignored.
        **kwargs: loader arguments meant for local weights (dtype, tokenizer settings), kept in
            :attr:`load_kwargs` and otherwise ignored: a server decides those itself.
    """

    def __init__(self, model_name_or_path: str = "", *args: Any, **kwargs: Any) -> None:
        """Take the loader's arguments, with no prompts and cosine similarity."""
        self.model_name_or_path = model_name_or_path
        self.load_kwargs = kwargs
        self.prompts: dict[str, str] = {}
        self.default_prompt_name: str | None = None
        self.similarity_fn_name = "cosine"
        self.max_seq_length: int | None = None
        self.include_prompt = True
        self.tokenizer = None

    def embed(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - overridden
        """Embed final strings (prompts already applied); a subclass says how.

        Args:
            texts: the strings the real model would tokenize.

        Returns:
            One row per string.

        Raises:
            NotImplementedError: always, here.
        """
        raise NotImplementedError

    def _first_module(self) -> Any:
        return _NoAttention()

    def set_pooling_include_prompt(self, include_prompt: bool) -> None:
        """Record whether pooling includes the prompt, as instruction wrappers set it.

        Args:
            include_prompt: the wrapper's setting (a server decides pooling itself).
        """
        self.include_prompt = include_prompt

    def encode(
        self,
        sentences: str | Sequence[str],
        prompt_name: str | None = None,
        prompt: str | None = None,
        **kwargs: Any,
    ) -> np.ndarray:
        """Apply the prompt as sentence-transformers does, then :meth:`embed`.

        Args:
            sentences: one text or several.
            prompt_name: the key of a prompt in :attr:`prompts`; None takes the default one.
            prompt: the prompt text itself, which wins over ``prompt_name``.
            **kwargs: sentence-transformers' other encode arguments, ignored.

        Returns:
            One float32 row per text (a single row for a single text).
        """
        texts = [sentences] if isinstance(sentences, str) else list(sentences)
        if prompt is None:
            name = prompt_name if prompt_name is not None else self.default_prompt_name
            prompt = self.prompts.get(name, None) if name is not None else None
        final = [(prompt or "") + t for t in texts]
        out = np.asarray(self.embed(final), dtype=np.float32)
        return out[0] if isinstance(sentences, str) else out

    def encode_query(
        self, sentences: Any, prompt_name: str | None = None, prompt: str | None = None, **kw: Any
    ) -> np.ndarray:
        """Encode queries, with the ``"query"`` prompt when none is given.

        Args:
            sentences: one text or several.
            prompt_name: the key of a prompt in :attr:`prompts`.
            prompt: the prompt text itself.
            **kw: sentence-transformers' other encode arguments, ignored.

        Returns:
            One float32 row per text (a single row for a single text).
        """
        if prompt_name is None and prompt is None and "query" in self.prompts:
            prompt_name = "query"
        return self.encode(sentences, prompt_name=prompt_name, prompt=prompt, **kw)

    def encode_document(
        self, sentences: Any, prompt_name: str | None = None, prompt: str | None = None, **kw: Any
    ) -> np.ndarray:
        """Encode documents, with the ``"document"``/``"passage"``/``"corpus"`` prompt when none.

        Args:
            sentences: one text or several.
            prompt_name: the key of a prompt in :attr:`prompts`.
            prompt: the prompt text itself.
            **kw: sentence-transformers' other encode arguments, ignored.

        Returns:
            One float32 row per text (a single row for a single text).
        """
        if prompt_name is None and prompt is None:
            prompt_name = next(
                (k for k in ("document", "passage", "corpus") if k in self.prompts), None
            )
        return self.encode(sentences, prompt_name=prompt_name, prompt=prompt, **kw)


def load_plain_wrapper(name: str, *, beneath: Callable[..., Any]) -> Any:
    """Build mteb's ``SentenceTransformerEncoderWrapper`` over ``beneath`` for a model mteb lacks.

    No prompts, the text as is: what ``mteb.get_model`` gives an unknown ST model.

    Args:
        name: the model's name.
        beneath: builds the model beneath the wrapper in place of the weights.

    Returns:
        The wrapper.
    """
    from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper

    with _sentence_transformer_replaced(beneath):
        return SentenceTransformerEncoderWrapper(name)


#: A text no study contains: where it lands in the probe's input is where the text goes.
_PROBE_MARK = "\u2063hume-probe\u2063"


class _Probe(TextModelBeneath):
    """Takes the weights' place for one call: records ``(method, final string)``, returns zeros.

    Carries the real model's own prompt table (sentence-transformers falls back to it).
    """

    def __init__(self, real: Any) -> None:
        super().__init__()
        self.prompts = dict(getattr(real, "prompts", None) or {})
        self.default_prompt_name = getattr(real, "default_prompt_name", None)
        self.seen: list[tuple[str, str]] = []
        self._method = "encode"

    def embed(self, texts: list[str]) -> np.ndarray:
        self.seen.extend((self._method, t) for t in texts)
        return np.zeros((len(texts), 1), dtype=np.float32)

    def encode_query(self, sentences: Any, *args: Any, **kw: Any) -> np.ndarray:
        self._method = "query"
        return super().encode_query(sentences, *args, **kw)

    def encode_document(self, sentences: Any, *args: Any, **kw: Any) -> np.ndarray:
        self._method = "document"
        return super().encode_document(sentences, *args, **kw)
