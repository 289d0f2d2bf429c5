"""Helpers for tests where annotators work in their own Label Studio (``annotator_servers``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.store import InstanceRow, SubsetRow
from tests._studies import write_spec
from tests.task_type_examples import examples


def hume_env(root: Path) -> pytest.MonkeyPatch:
    """The environment a test's CLI calls run in: hume's home under ``root``, and no
    LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY leaking in from the shell (each annotator's server
    is reached through what ``annotators add`` recorded). The caller undoes it when done."""
    mp = pytest.MonkeyPatch()
    mp.setenv("HUME_HOME", str(root / "hume-home"))
    mp.delenv("LABEL_STUDIO_URL", raising=False)
    mp.delenv("LABEL_STUDIO_API_KEY", raising=False)
    return mp


def set_up_study(
    study: Path,
    spec: dict[str, Any] | Path,
    seats: Sequence[tuple[Any, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """A study set up as a project manager does it: ``hume-sync init`` from ``spec`` (a dict,
    written as the folder's study.yaml, or a spec file), ``annotators add`` for each
    (server, languages) in order (slots 1, 2, ...), then ``hume-sync setup``."""
    path = write_spec(study, spec) if isinstance(spec, dict) else spec
    assert main(["init", str(study), "--spec", str(path)]) == 0
    for srv, languages in seats:
        register(study, srv, languages, monkeypatch)
    assert main(["setup", str(study)]) == 0
    return study


def register(
    study: Path, srv: Any, languages: str, monkeypatch: pytest.MonkeyPatch, capsys: Any = None
) -> str:
    """``hume-sync annotators add STUDY EMAIL --languages L --url URL`` with the server's admin
    token in LABEL_STUDIO_API_KEY (never on the command line); the command's output."""
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", srv.server.token)
    try:
        rc = main(["annotators", "add", str(study), srv.email, "--languages", languages,
                   "--url", srv.url])  # fmt: skip
    finally:
        monkeypatch.delenv("LABEL_STUDIO_API_KEY")
    out = capsys.readouterr().out if capsys is not None else ""
    assert rc == 0, out
    return out


def gold_result(subset: SubsetRow, inst: InstanceRow, gold_answer: Any) -> list[dict[str, Any]]:
    """A Label Studio result that holds the gold answer (what a perfect annotator submits)."""
    answer = examples(subset.task_type).perfect_answer(gold_answer)
    interface = task_types.get(subset.task_type)
    kw = interface.ls_translation_kwargs(subset.config, inst.content)
    return interface.ls_answer_to_result(answer, **kw)


def bad_label(subset: SubsetRow) -> list[dict[str, Any]]:
    """A choices result with a label the interface does not have (invalid): for a subset whose
    interface has a ``label`` choice (classification)."""
    config = task_types.get(subset.task_type).ls_subset_config(subset.config, language=None)
    assert '<Choices name="label"' in config
    return [
        {
            "from_name": "label",
            "to_name": "text",
            "type": "choices",
            "value": {"choices": ["not-a-label"]},
        }
    ]
