"""Regression's Label Studio interface: one text and a Number box bounded by the data.

The scale shown (``min``, ``max``, ``step``) is the subset's stored ``value_range`` and
``step``; it goes to the config module as its ``labels``. An embedding model's stored answer is
its predicted number, shown as is (at the nearest bound when outside them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from label_studio_configs import regression as config_module
from ml_backend.reveal import RevealedInterface


def subset_scale(config: Mapping[str, Any]) -> dict[str, float] | None:
    """The Number box's scale from a subset's stored config (None: the module's default)."""
    bounds, step = config.get("value_range"), config.get("step")
    if not bounds or step is None:
        return None
    return {"min": float(bounds[0]), "max": float(bounds[1]), "step": float(step)}


class RegressionInterface(RevealedInterface):
    """Regression's interface behaviour (``TaskInterface`` + ``RevealedInterface``)."""

    ls_module = config_module

    def ls_labels(self, config: Mapping[str, Any]) -> Any:
        """The scale ``{min, max, step}`` the Number box takes (never gold: the data's bounds
        over the whole source and train pool, or the spec's)."""
        return subset_scale(config)

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        return None

    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> Any:
        """The predicted number, as is (``rule`` does not apply)."""
        return float(answer)
