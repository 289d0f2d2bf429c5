"""The same annotator interface with the model running in-process through ``transformers``.

Why: no server to run, and the exact token-level behaviour is ours (chat template of the model,
greedy decoding). Structured output is not enforced here (no constrained decoder), so the
prompts' JSON instructions and the strict parser do the work; settings record
``response_format="none"`` to say so. Generation is serialised by a lock: one model, one forward
pass at a time, whatever the annotator's concurrency.
"""

from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .client import Completion, GenerationSettings, LLMError, Message

__all__ = ["TransformersChatBackend", "missing_gguf_packages", "missing_packages"]


def missing_packages() -> list[str]:
    """List the packages this backend needs that are not installed (for skips and errors).

    Returns:
        The missing ones of ``torch`` and ``transformers``.
    """
    return [p for p in ("torch", "transformers") if importlib.util.find_spec(p) is None]


def missing_gguf_packages() -> list[str]:
    """List what transformers' GGUF loader needs besides itself and is not installed.

    Returns:
        The missing ones of ``gguf`` and ``accelerate``.
    """
    return [p for p in ("gguf", "accelerate") if importlib.util.find_spec(p) is None]


class TransformersChatBackend:
    """A causal LM from a local directory (or a GGUF file) answering chat messages greedily.

    Args:
        model_path: the model's directory, or a ``.gguf`` file (its directory and name are then
            ``model_path`` and ``gguf_file``).
        gguf_file: the GGUF file's name inside ``model_path``; None for a transformers directory.
        name: the model's name in records; None takes the file's stem or the directory's name.
        max_tokens: the most tokens a reply may have.
        seed: torch's seed before each generation; None leaves it.
        dtype: a torch dtype name ("bfloat16" halves the memory of a dequantised GGUF).
        model: a ready-made model (already loaded, or a test double); loaded when None.
        tokenizer: a ready-made tokenizer, likewise.

    Raises:
        ImportError: when torch, transformers (or, for a GGUF file, gguf and accelerate) are
            missing and the model must be loaded.
    """

    def __init__(
        self,
        model_path: str | Path,
        *,
        gguf_file: str | None = None,
        name: str | None = None,
        max_tokens: int = 512,
        seed: int | None = 0,
        dtype: str | None = None,
        model: Any = None,
        tokenizer: Any = None,
    ) -> None:
        """Load ``model_path`` (a directory, or the directory of ``gguf_file``) unless given."""
        path = Path(model_path)
        if gguf_file is None and path.suffix == ".gguf":
            path, gguf_file = path.parent, path.name
        self.model_path = path
        self.gguf_file = gguf_file
        self.name = name or (Path(gguf_file).stem if gguf_file else path.name)
        self.endpoint = f"transformers:{path / gguf_file if gguf_file else path}"
        self.settings = GenerationSettings(
            model=self.name,
            temperature=0.0,
            max_tokens=max_tokens,
            seed=seed,
            response_format="none",
        )
        self._lock = threading.Lock()
        self.load_s = 0.0
        if model is None or tokenizer is None:
            missing = missing_packages()
            if missing:
                raise ImportError(
                    f"the transformers backend needs {', '.join(missing)} (pip install torch "
                    "transformers; and gguf for .gguf files)"
                )
            started = time.perf_counter()
            model, tokenizer = self._load(dtype)
            self.load_s = time.perf_counter() - started
        self.model = model
        self.tokenizer = tokenizer

    def __repr__(self) -> str:
        """Name the backend by its model and endpoint."""
        return f"TransformersChatBackend(name={self.name!r}, endpoint={self.endpoint!r})"

    def _load(self, dtype: str | None) -> tuple[Any, Any]:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        kwargs: dict[str, Any] = {}
        if self.gguf_file:
            missing = missing_gguf_packages()
            if missing:
                raise ImportError(
                    f"loading a .gguf file through transformers needs {', '.join(missing)} "
                    f"(pip install {' '.join(missing)})"
                )
            kwargs["gguf_file"] = self.gguf_file
        tokenizer = AutoTokenizer.from_pretrained(str(self.model_path), **kwargs)
        if dtype:
            kwargs["dtype"] = getattr(torch, dtype)
        model = AutoModelForCausalLM.from_pretrained(str(self.model_path), **kwargs)
        model.eval()
        return model, tokenizer

    def complete(
        self, messages: Sequence[Message], *, response_format: dict[str, Any] | None = None
    ) -> Completion:
        """Decode the reply greedily, one generation at a time.

        Args:
            messages: the chat messages, rendered by the model's chat template.
            response_format: accepted for the backend interface and not enforced (no
                constrained decoder): the prompt's JSON instructions and the parser do the work.

        Returns:
            The reply with its token counts, latency and finish reason (no cost).

        Raises:
            LLMError: when the forward pass fails (an error record, not a crash).
        """
        del response_format
        started = time.perf_counter()
        try:
            with self._lock:
                text, n_in, n_out, finish = self._generate(messages)
        except Exception as exc:  # a failed forward pass is an error record, not a crash
            raise LLMError("local", f"{type(exc).__name__}: {exc}"[:500]) from None
        return Completion(
            text=text,
            usage={
                "prompt_tokens": n_in,
                "completion_tokens": n_out,
                "total_tokens": n_in + n_out,
            },
            latency_s=time.perf_counter() - started,
            cost=None,
            finish_reason=finish,
            served_model=self.name,
        )

    def _generate(self, messages: Sequence[Message]) -> tuple[str, int, int, str]:
        import torch

        if self.settings.seed is not None:
            torch.manual_seed(self.settings.seed)
        inputs = self.tokenizer.apply_chat_template(
            [dict(m) for m in messages],
            add_generation_prompt=True,
            return_tensors="pt",
            return_dict=True,
        )
        n_in = int(inputs["input_ids"].shape[-1])
        eos = getattr(self.tokenizer, "eos_token_id", None)
        pad = getattr(self.tokenizer, "pad_token_id", None)
        with torch.inference_mode():
            output = self.model.generate(
                **inputs,
                do_sample=False,
                max_new_tokens=self.settings.max_tokens,
                pad_token_id=pad if pad is not None else eos,
            )
        new_tokens = output[0, n_in:]
        n_out = int(new_tokens.shape[-1])
        text = self.tokenizer.decode(new_tokens, skip_special_tokens=True)
        max_tokens = self.settings.max_tokens or 0
        finish = "length" if max_tokens and n_out >= max_tokens else "stop"
        return text, n_in, n_out, finish
