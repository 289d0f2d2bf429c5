"""Names a study's files carry, shared by the commands that write them and the report that reads
them."""

from __future__ import annotations

from scoring.results import model_folder_name
from scoring.safe_paths import check_component


def llm_file_name(model_version: str) -> str:
    """The file and folder name of an LLM annotator (``llm:org/model`` → ``org_model``).

    It names the call log (``STUDY/llm/<name>.jsonl``) and the result folder of the export
    (``llm__<name>``); a name that cannot be either is refused before any call is made.
    """
    name = model_version.split(":", 1)[-1].replace("/", "_")
    check_component(name, "LLM name")
    model_folder_name(f"llm/{name}")
    return name
