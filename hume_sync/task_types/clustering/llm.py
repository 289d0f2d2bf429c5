"""Clustering's LLM annotator: the texts with their ids, answered as ``{id: group number}``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from label_studio_configs import clustering as config_module
from label_studio_configs._common import check_items
from ml_backend.llm.parsing import as_int, check_reply_ids
from ml_backend.llm.prompts import (
    Prompt,
    TaskSpec,
    id_example,
    id_list,
    language_line,
    make_prompt,
    object_schema,
)
from ml_backend.llm.task import LLMTask, Reject


class ClusteringLLM(LLMTask):
    """The human task without its drag-and-drop wording; group numbers 1..K in the reply
    become the interface's group names, and every text must be placed exactly once."""

    # The human instructions talk about dragging texts; the model gets the task itself.
    llm_default_instructions = (
        "Sort the texts into {n_groups} groups by topic, so that texts on the same topic share a "
        "group. Group numbers carry no meaning. Every text must be placed in exactly one group."
    )

    llm_parameters = frozenset({"n_groups"})

    def llm_params(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """K, the number of groups the human interface offers."""
        return {"n_groups": config.get("n_groups")}

    def llm_make_spec(
        self,
        *,
        language: str | None,
        instructions: str | None,
        n_groups: int | None = None,
    ) -> TaskSpec:
        config_module.group_names(n_groups)  # raises unless K >= 2
        return TaskSpec(self.name, n_groups=n_groups, language=language, instructions=instructions)

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        items = check_items(content, "items")
        ids = tuple(it["id"] for it in items)
        k = int(spec.n_groups or 0)
        instructions = (spec.instructions or self.llm_default_instructions).replace(
            "{n_groups}", str(k)
        )
        answer_format = (
            "Answer with only a JSON object that maps every text id to its group number, an "
            f"integer from 1 to {k}. Include all {len(ids)} ids, each exactly once, like "
            + id_example(ids, f"<1-{k}>")
        )
        parts = [
            instructions,
            language_line(spec, "texts"),
            f"Number of groups: {k} (numbered 1 to {k}).",
            f"Texts ({len(ids)}, each with its id in brackets):\n" + id_list(items),
            answer_format,
        ]
        schema = object_schema({i: {"type": "integer", "enum": list(range(1, k + 1))} for i in ids})
        return make_prompt(parts, schema=schema, answer_format=answer_format, item_ids=ids)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> dict[str, str]:
        names = config_module.group_names(spec.n_groups)
        check_reply_ids(reply, prompt.item_ids, "text")
        out: dict[str, str] = {}
        for item_id in prompt.item_ids:
            group = as_int(reply[item_id])
            if group is None or not 1 <= group <= len(names):
                raise Reject(
                    "invalid",
                    f"text {item_id!r} has group {reply[item_id]!r}; expected an "
                    f"integer from 1 to {len(names)}",
                )
            out[item_id] = names[group - 1]
        return out
