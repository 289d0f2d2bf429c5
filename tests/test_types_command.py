"""`hume-sync types` (issue 36): mteb's text task types, counted from mteb itself, each with the
hume type that reads it. The counts are checked against mteb's registry read here, and the
hume side against each registered type's own list of mteb types."""

from __future__ import annotations

import json
from collections import Counter

import mteb
import pytest

from hume_sync import task_types
from hume_sync.cli import main


@pytest.fixture(scope="module")
def mteb_counts() -> Counter[str]:
    tasks = mteb.get_tasks(modalities=["text"], exclusive_modality_filter=True)
    return Counter(str(t.metadata.type) for t in tasks)


def test_types_json_counts_mteb_text_tasks_and_names_the_hume_type(mteb_counts, capsys):
    assert main(["types", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["mteb_type"]: r for r in out["families"]}
    assert {k: r["tasks"] for k, r in rows.items()} == dict(mteb_counts)
    assert [r["tasks"] for r in out["families"]] == sorted(mteb_counts.values(), reverse=True)
    for name in task_types.names():
        for mteb_type in task_types.get(name).study_mteb_types:
            if mteb_type in mteb_counts:
                assert rows[mteb_type]["hume_type"] == name
    readable = {m for n in task_types.names() for m in task_types.get(n).study_mteb_types}
    not_yet = {k for k, r in rows.items() if r["hume_type"] is None}
    assert not_yet == set(mteb_counts) - readable
    # a task its type refuses at init is counted apart, with the reason, never as covered
    refused = {name: why for r in out["families"] for name, why in r["refused"].items()}
    assert refused == {
        "InstructIR": "its main score robustness_at_10 needs rankings one pool does not give"
    }
    covered = sum(n for k, n in mteb_counts.items() if k in readable)
    assert out["covered_tasks"] == covered - len(refused)
    assert out["all_tasks"] == sum(mteb_counts.values())
    # retrieval, the largest family, and the two types this round added are covered
    assert rows["Retrieval"]["hume_type"] == "retrieval"
    assert rows["InstructionRetrieval"]["hume_type"] == "retrieval"
    assert rows["BitextMining"]["hume_type"] == "bitext_mining"


def test_types_text_says_not_yet_and_the_share(mteb_counts, capsys):
    assert main(["types"]) == 0
    text = capsys.readouterr().out
    readable = {m for n in task_types.names() for m in task_types.get(n).study_mteb_types}
    missing = sorted(set(mteb_counts) - readable)
    # since issue 36, every mteb text type has a hume type; a type mteb adds shows "not yet"
    for mteb_type in set(mteb_counts) - set(missing):
        (line,) = [ln for ln in text.splitlines() if ln.startswith(mteb_type + " ")]
        assert "not yet" not in line and str(mteb_counts[mteb_type]) in line
    n_types = len(mteb_counts)
    assert f"covers {n_types - len(missing)} of {n_types} mteb text task types" in text
    for mteb_type in missing:
        (line,) = [ln for ln in text.splitlines() if ln.startswith(mteb_type + " ")]
        assert line.split()[-2:] == ["not", "yet"] and str(mteb_counts[mteb_type]) in line
    covered = sum(n for k, n in mteb_counts.items() if k in readable) - text.count("refused: ")
    assert "refused: InstructIR (its main score robustness_at_10" in text
    share = covered / sum(mteb_counts.values())
    shown = f"{int(share * 1000) / 10:.1f}%"  # a tenth of a percent, rounded down
    assert f"{covered} of {sum(mteb_counts.values())} tasks ({shown})" in text
    assert covered == sum(mteb_counts.values()) or "(100.0%)" not in text
