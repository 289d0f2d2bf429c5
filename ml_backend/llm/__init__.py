"""LLMs as annotators: the same instances, instructions and answer shapes human annotators get.

- :class:`OpenAICompatibleClient`: any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama,
  llama.cpp server, proxies) through the ``openai`` package; key from an environment variable.
- :class:`TransformersChatBackend`: the same interface with a model run in-process.
- :func:`annotate`: one record per instance (status ok | parse_error | invalid | error), for a
  task type object implementing :class:`LLMTask` (its prompt and reply reading).
- :class:`ReplyCache`: replies kept on disk so a rerun costs nothing.
- :mod:`.packaged`: the small real GGUF shipped on PyPI, for tests and offline demos.
"""

from __future__ import annotations

from .annotate import DEFAULT_CONCURRENCY, RECORD_STATUSES, annotate, model_version, summarize
from .cache import ReplyCache, cache_key
from .client import (
    ChatBackend,
    Completion,
    GenerationSettings,
    LLMError,
    OpenAICompatibleClient,
    RetryPolicy,
)
from .parsing import ParseOutcome, parse_reply
from .prompts import PROMPT_VERSION, Prompt, TaskSpec, language_name
from .task import LLMTask, Reject, build_prompt
from .transformers_backend import TransformersChatBackend

__all__ = [
    "DEFAULT_CONCURRENCY",
    "PROMPT_VERSION",
    "RECORD_STATUSES",
    "ChatBackend",
    "Completion",
    "GenerationSettings",
    "LLMError",
    "LLMTask",
    "OpenAICompatibleClient",
    "ParseOutcome",
    "Prompt",
    "Reject",
    "ReplyCache",
    "RetryPolicy",
    "TaskSpec",
    "TransformersChatBackend",
    "annotate",
    "build_prompt",
    "cache_key",
    "language_name",
    "model_version",
    "parse_reply",
    "summarize",
]
