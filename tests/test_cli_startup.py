"""CLI start-up imports only what the command uses (issue 14).

``hume-sync --help`` once took 2.5 s and 237 MiB, importing the Label Studio SDK and the model
stack before printing a line; ``hume-sync leaderboard`` imported scikit-learn, pandas and SciPy to
rank numbers read from JSON. Each case runs in a fresh interpreter and asserts on the names of
the modules loaded afterwards (not on time, which depends on the machine).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests._paths import MTEB_RESULTS, REPO_ROOT

#: Heavy packages none of these commands uses.
HEAVY = (
    "label_studio_sdk",
    "torch",
    "sentence_transformers",
    "transformers",
    "mteb",
    "numpy",
    "scipy",
    "sklearn",
    "pandas",
    "pytrec_eval",
    "flask",
    "gunicorn",
    "httpx",
    "requests",
    "pydantic",
)

PROBE = """
import contextlib, io, json, sys
import hume_sync.cli
code = 0
if sys.argv[1] != "import":
    entry = getattr(hume_sync.cli, sys.argv[1])
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = entry(sys.argv[2:])
        except SystemExit as exc:
            code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _loaded(entry: str, *argv: str, full: bool = False) -> tuple[int, set[str]]:
    """Exit code and the top-level packages loaded (``full``: every module name)."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, entry, *argv],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    data = json.loads(out.strip().splitlines()[-1])
    names = set(data["modules"])
    return data["code"], names if full else {m.split(".")[0] for m in names}


@pytest.mark.parametrize(
    "argv",
    [
        ("main", "--help"),
        ("main", "export", "--help"),
        ("main", "pull", "--help"),
        ("main", "leaderboard", "--help"),
        ("backend_main", "--help"),
    ],
)
def test_help_imports_nothing_heavy(argv: tuple[str, ...]) -> None:
    code, loaded = _loaded(*argv)
    assert code == 0
    assert sorted(loaded & set(HEAVY)) == []


def test_help_reads_no_store_and_no_step() -> None:
    """The list of commands is read (each command module: its name, help and arguments), and
    nothing else of ours: no store, no step of ``hume_sync.workflow``, no Label Studio code."""
    from hume_sync.commands import COMMANDS

    code, loaded = _loaded("main", "--help", full=True)
    assert code == 0
    ours = sorted(m for m in loaded if m.startswith(("hume_sync.", "scoring.", "ml_backend")))
    commands = sorted(c.__name__ for c in COMMANDS)  # the modules themselves
    assert ours == sorted(
        ["hume_sync.cli", "hume_sync.commands", *commands, "hume_sync.errors", "scoring.errors"]
    )


def test_importing_the_cli_imports_nothing_heavy() -> None:
    code, loaded = _loaded("import")  # python -c "import hume_sync.cli"
    assert code == 0 and "hume_sync" in loaded
    assert sorted(loaded & set(HEAVY)) == []


def test_leaderboard_computes_without_sklearn_or_models() -> None:
    """The leaderboard asks the task-type registry which metrics name a type; the types' scoring
    modules bring numpy and scipy (about 0.3 s), nothing else heavy."""
    code, loaded = _loaded("main", "leaderboard", str(MTEB_RESULTS), "--format", "csv")
    assert code == 0
    assert sorted(loaded & (set(HEAVY) - {"numpy", "scipy"})) == []
    assert "scoring" in loaded  # it did compute: the scores come from scoring


@pytest.mark.slow
def test_export_of_a_study_loads_no_model_stack(tmp_path) -> None:
    """``hume-sync export`` scores stored answers: the model stack (torch, sentence-transformers,
    mteb, transformers), the Label Studio SDK and HTTP clients are predict's and pull's, never
    the report's. Nor crowd-kit, pandas or nltk (2.3 s to import, issue 38): the Dawid–Skene
    entry, which this study's label subsets do compute, is numpy (scoring.dawid_skene_em)."""
    from tests._report_study import make_study, results_folder

    made = make_study(tmp_path)
    results = results_folder(tmp_path, made["subsets"])
    argv = ("export", str(made["study"]), "--out", str(tmp_path / "out"), "--results", str(results))
    code, loaded = _loaded("main", *argv)
    assert code == 0
    assert (tmp_path / "out" / "report.md").is_file()  # it did export
    heavy = {*HEAVY, "matplotlib", "crowdkit", "nltk"} - {"numpy", "scipy", "sklearn"}
    assert sorted(loaded & heavy) == []
    scores = json.loads((tmp_path / "out" / "scores.json").read_text(encoding="utf-8"))
    ds = [s["human_panel"]["dawid_skene"]["value"] for s in scores["subsets"]]
    assert any(v is not None for v in ds)  # Dawid–Skene ran, so the check above saw it
