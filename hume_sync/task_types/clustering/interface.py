"""Clustering's Label Studio interface: every text of the set sorted into K groups."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from label_studio_configs import clustering as config_module
from ml_backend.reveal import RevealedInterface


class ClusteringInterface(RevealedInterface):
    """No labels are shown: a clustering subset's stored label set holds the gold clusters."""

    ls_module = config_module

    def ls_labels(self, config: Mapping[str, Any]) -> Any:
        return None

    def ls_item_ids(self, content: Mapping[str, Any]) -> list[str] | None:
        return config_module.item_ids(content)

    def ls_shown_embedding_answer(self, answer: Any, *, rule: str) -> Any:
        # {item_id: "group_k"} already names the interface's groups group_1..K
        return answer
