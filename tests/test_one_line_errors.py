"""Issue 11 item 7: inputs that used to end in a traceback now end in one line on stderr and a
non-zero exit, each through the command line (`hume_sync.cli.main`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from hume_sync.cli import main
from hume_sync.labelstudio import server
from tests._paths import MTEB_RESULTS, REPO_ROOT

DEMO = REPO_ROOT / "hume_sync" / "demo_data"


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def sts_spec(data: Path) -> dict:
    return {
        "name": "enc",
        "tasks": [
            {
                "name": "T",
                "type": "sts",
                "source": {"path": str(data)},
                "subsets": [{"language": "eng-Latn", "size": 3}],
            }
        ],
    }


def test_spec_file_that_is_not_utf8(tmp_path, capsys):
    spec = tmp_path / "spec.yaml"
    text = yaml.safe_dump(sts_spec(DEMO / "similarity_en.jsonl")).replace("enc", "café")
    spec.write_bytes(text.encode("latin-1"))
    assert main(["init", str(tmp_path / "study"), "--spec", str(spec)]) == 2
    line = one_line(capsys)
    assert f"{spec}: not UTF-8 text (byte 0xe9 on line " in line and "save it as UTF-8" in line


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_data_file_that_is_not_utf8(tmp_path, capsys, suffix):
    data = tmp_path / f"pairs{suffix}"
    if suffix == ".jsonl":
        rows = [
            json.dumps({"id": str(i), "sentence1": f"a {i}", "sentence2": "b", "score": i})
            for i in range(4)
        ]
        rows.append('{"id": "x", "sentence1": "caf\u00e9", "sentence2": "b", "score": 1}')
    else:
        rows = ["sentence1,sentence2,score", "a,b,1", "c,d,2", "caf\u00e9,e,3", "f,g,4"]
    data.write_bytes("\n".join(rows).encode("latin-1"))
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(sts_spec(data)), encoding="utf-8")
    assert main(["init", str(tmp_path / "study"), "--spec", str(spec)]) == 2
    line = one_line(capsys)
    expected_line = 5 if suffix == ".jsonl" else 4
    assert f"{data}:{expected_line}: not UTF-8 text (byte 0xe9)" in line


def test_label_studio_url_without_a_scheme(tmp_path, capsys, monkeypatch):
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(sts_spec(DEMO / "similarity_en.jsonl")), encoding="utf-8")
    assert main(["init", str(tmp_path / "study"), "--spec", str(spec)]) == 0
    capsys.readouterr()
    # Every annotator's server is registered with its URL (README "Blind annotation").
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "k" * 40)
    study = str(tmp_path / "study")
    assert main(["annotators", "add", study, "a@lab.org", "--url", "localhost:8080"]) == 2
    line = one_line(capsys)
    assert "--url must start with http:// or https://" in line
    assert "'localhost:8080'" in line and "k" * 40 not in line


def _deep_result_file(root: Path) -> Path:
    """A result file whose JSON nests 50,000 lists deep, beside a healthy model."""
    shutil.copytree(
        MTEB_RESULTS / "sentence-transformers__all-MiniLM-L6-v2",
        root / "sentence-transformers__all-MiniLM-L6-v2",
    )
    bad = root / "org__deep" / "rev" / "HUMESTS12.json"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"task_name": "HUMESTS12", "scores": ' + "[" * 50_000 + "]" * 50_000 + "}")
    return bad


def test_leaderboard_on_a_deeply_nested_result_file(tmp_path, capsys):
    bad = _deep_result_file(tmp_path)
    assert main(["leaderboard", str(tmp_path), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.strip() == (
        f"warning: skipped {bad}: JSON nested too deeply to be a result file"
    )
    assert json.loads(captured.out)["rows"]  # the healthy model is still there
    assert main(["leaderboard", str(tmp_path), "--strict"]) == 2
    assert one_line(capsys) == (
        f"hume-sync leaderboard: error: {bad}: JSON nested too deeply to be a result file"
    )


def test_up_on_a_data_folder_that_is_a_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "hume-home"))  # no annotator server to start
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("x")
    assert main(["up", "--data-dir", str(not_a_folder / "ls"), "--port", "1"]) == 2
    line = one_line(capsys)
    assert f"cannot use {not_a_folder / 'ls'} as Label Studio's data folder" in line


@pytest.mark.labelstudio
def test_up_on_a_broken_data_folder_names_the_cause_and_the_log(tmp_path, capsys, monkeypatch):
    """A damaged Label Studio database: Label Studio exits during start-up."""
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "hume-home"))
    try:
        server.find_executable()
    except server.ServerStartError as exc:
        pytest.skip(str(exc))
    data = tmp_path / "ls"
    data.mkdir()
    secret = "pw-that-must-not-show"
    (data / "credentials.json").write_text(
        json.dumps(
            {
                "url": "http://127.0.0.1:1",
                "username": "a@b.c",
                "password": secret,
                "token": "t" * 40,
            }
        )
    )
    (data / "label_studio.sqlite3").write_bytes(b"this is not a database" * 200)
    try:
        assert main(["up", "--data-dir", str(data), "--port", str(server.free_port())]) == 2
    finally:
        server.stop(data)
    line = one_line(capsys)
    assert "Label Studio exited with code" in line and "during start-up" in line
    assert "file is not a database" in line
    assert line.endswith(f"its log: {data / server.LOG_FILE}")
    assert secret not in line and "t" * 40 not in line
