"""What every embedding path shares: the role type, mteb's name for a role, the load error.

Kept apart from :mod:`ml_backend.encoders` so that the mteb-registry path
(:mod:`ml_backend.mteb_models`) and the server path (:mod:`ml_backend.openai_embeddings`) can
use them while :func:`ml_backend.encoders.load_encoder` dispatches to those paths (no circle).
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from typing import Literal

from scoring.errors import HumeError

Role = Literal["query", "passage"]

__all__ = [
    "ModelLoadError",
    "Role",
    "_one_line",
    "_progress_bars_for_terminals",
    "mteb_prompt_type",
]


class ModelLoadError(HumeError, RuntimeError):
    """A model could not be loaded. ``str(err)`` is one line that names the model and the cause.

    Args:
        model: the model's name as the study gives it.
        reason: why it could not be loaded, one line.
    """

    def __init__(self, model: str, reason: str) -> None:
        """Keep the model and the reason, for callers that report them apart."""
        self.model = model
        self.reason = reason
        super().__init__(f"cannot load embedding model {model!r}: {reason}")


def mteb_prompt_type(role: str | None) -> str | None:
    """Translate a role to mteb's ``PromptType`` value: ``"passage"`` is mteb's ``"document"``.

    Args:
        role: ``"query"``, ``"passage"`` (or ``"document"``), or None for a symmetric task.

    Returns:
        ``"query"``, ``"document"``, or None when ``role`` is None.

    Raises:
        ValueError: for any other role.
    """
    if role is None:
        return None
    if role == "query":
        return "query"
    if role in ("passage", "document"):
        return "document"
    raise ValueError(f"unknown role {role!r}: expected 'query', 'passage' or None")


def _one_line(exc: BaseException) -> str:
    """``Type: first line`` of an exception, short enough for a log line or a UI message."""
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    if len(first) > 160:
        first = first[:157] + "..."
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


@contextlib.contextmanager
def _progress_bars_for_terminals() -> Iterator[None]:
    """Keep transformers' and the hub's progress bars off while stderr is not a terminal.

    In logs and captured output the bars ("Loading weights", downloads) are only noise. Both
    libraries' global switches are put back afterwards, so the caller's own settings stand.

    Yields:
        Nothing: the bars are off (when stderr is not a terminal) inside the ``with`` block.
    """
    if sys.stderr is not None and sys.stderr.isatty():
        yield
        return
    try:
        from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - sentence-transformers requires both
        yield
        return
    transformers_on, hub_off = hf_logging.is_progress_bar_enabled(), are_progress_bars_disabled()
    with warnings.catch_warnings():  # HF_HUB_DISABLE_PROGRESS_BARS may forbid the switch: fine
        warnings.simplefilter("ignore")
        hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if transformers_on:
                hf_logging.enable_progress_bar()  # turns the hub's bars on as well
            if hub_off:
                disable_progress_bars()
