"""Issue 11 item 2: names that would make a writer leave its folder are refused, and every writer
under an output folder checks that the path it writes stays inside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from hume_sync.cli import main
from hume_sync.store import AnnotationRecord, Store, gold
from scoring.results import write_model_meta, write_result_file
from tests._paths import REPO_ROOT

DEMO = REPO_ROOT / "hume_sync" / "demo_data"


def spec_file(
    folder: Path, *, name: str = "pilot", task: str = "T", subset: str = "default"
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "spec.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": name,
                "tasks": [
                    {
                        "name": task,
                        "type": "sts",
                        "source": {"path": str(DEMO / "similarity_en.jsonl")},
                        "score_range": [0, 5],
                        "subsets": [{"name": subset, "language": "eng-Latn", "size": 4}],
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    return path


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    ("where", "value", "field"),
    [
        ("name", "../../x", "name"),
        ("name", "a/b", "name"),
        ("name", "..", "name"),
        ("name", "bad\nname", "name"),
        ("task", "..", "name"),
        ("task", ".hidden", "name"),
        ("subset", "..", "subsets[0].name"),
    ],
)
def test_init_refuses_names_that_are_not_file_names(tmp_path, capsys, where, value, field):
    kwargs = {"name": value} if where == "name" else {where: value}
    spec = spec_file(tmp_path / "specs", **kwargs)
    study = tmp_path / "study"
    assert main(["init", str(study), "--spec", str(spec)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert f"{field}: {value!r} cannot be used as a file or folder name" in err[0]
    assert not study.exists()  # refused before anything was created


def test_export_of_a_study_with_an_unsafe_name_writes_nothing_outside_out(tmp_path, capsys):
    """A store made before names were checked (or edited by hand) cannot escape --out."""
    study = tmp_path / "deep" / "er" / "study"
    assert main(["init", str(study), "--spec", str(spec_file(tmp_path / "specs"))]) == 0
    with Store.open(study) as store:
        store.set_meta({"study_name": "../../../escaped"})
        (sub,) = store.subsets()
        golds = gold(store, sub.key)
        store.upsert_annotations(
            [
                AnnotationRecord(n + 1, hid, n + 1, "ls-user-1", answer=round(float(g)))
                for n, (hid, g) in enumerate(golds.items())
            ]
        )
    out = tmp_path / "deep" / "er" / "out"
    before = files_under(tmp_path) - files_under(out)
    assert main(["export", str(study), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "study name '../../../escaped' cannot be used as a file or folder name" in err[0]
    assert files_under(tmp_path) - files_under(out) == before  # nothing written outside --out
    with Store.open(study) as store:  # with a safe name the same study exports its human score
        store.set_meta({"study_name": "pilot"})
    assert main(["export", str(study), "--out", str(out)]) == 0
    assert (out / "mteb_results" / "baseline__Human" / "pilot" / "T.json").is_file()


def test_result_writers_refuse_paths_outside_their_root(tmp_path):
    from scoring.safe_paths import UnsafePathError, confined

    root = tmp_path / "results"
    block = {"main_score": 0.5, "hf_subset": "default", "languages": ["eng-Latn"]}
    for kwargs in (
        {"model_name": "org/m", "revision": "../../x", "task_name": "T"},
        {"model_name": "org/m", "revision": "r", "task_name": "../T"},
        {"model_name": "../m", "revision": "r", "task_name": "T"},
        {"model_name": "org/..", "revision": "r", "task_name": "T"},
    ):
        with pytest.raises(UnsafePathError):
            write_result_file(root, subsets=[block], **kwargs)
    with pytest.raises(UnsafePathError):
        write_model_meta(root, model_name="org/m", revision="..", languages=["eng"])
    assert not any(tmp_path.rglob("*.json"))
    # a folder inside the root that is a link to elsewhere is refused as well
    (root / "org__m").mkdir(parents=True)
    os.symlink(tmp_path, root / "org__m" / "r")
    with pytest.raises(UnsafePathError, match="outside"):
        write_result_file(root, model_name="org/m", revision="r", task_name="T", subsets=[block])
    assert not (tmp_path / "T.json").exists()
    assert confined(root, "org__m", "ok", "T.json") == root / "org__m" / "ok" / "T.json"


def test_llm_names_that_cannot_name_a_log_are_refused():
    from hume_sync.rules.names import llm_file_name

    assert llm_file_name("llm:Qwen/Qwen2.5-1.5B") == "Qwen_Qwen2.5-1.5B"
    for bad in ("llm:..", "llm:.x", "llm:a\\b", "llm:a__b"):
        with pytest.raises(ValueError):
            llm_file_name(bad)
