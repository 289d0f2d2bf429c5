"""The README's main job, `hume-sync demo`, end to end against a real Label Studio and the real
packaged model; its report checked against the recorded example answers."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from hume_sync.cli import main
from hume_sync.demo import demo_data_dir
from hume_sync.store import Store, gold

pytestmark = [pytest.mark.labelstudio, pytest.mark.model]


def test_demo_end_to_end_and_rerun(ls_server, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LABEL_STUDIO_URL", ls_server.url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", ls_server.token)
    study = tmp_path / "demo"
    assert main(["demo", "--dir", str(study)]) == 0
    out = capsys.readouterr().out
    assert f"Report:       {(study / 'report').resolve() / 'report.html'}" in out
    assert f"Label Studio: {ls_server.url}" in out
    assert ls_server.token not in out
    answers = [
        json.loads(x) for x in (demo_data_dir() / "example_answers.jsonl").read_text().splitlines()
    ]
    assert "50 recorded answer(s) of the two example annotators replayed" in out
    assert len(answers) == 50

    data = json.loads((study / "report" / "scores.json").read_text())
    assert data["complete"] is True and len(data["subsets"]) == 7
    # English sentiment: the vote of the two example annotators, computed here from the file.
    with Store.open(study) as store:
        g = gold(store, "DemoSentiment/en")
        preds = store.predictions(model_version="emb:sentence-transformers/all-MiniLM-L6-v2")
    by_item: dict[str, list[str]] = {}
    for a in answers:
        if a["hume_id"].startswith("DemoSentiment/en/"):
            by_item.setdefault(a["hume_id"], []).append(a["answer"])
    votes = {}
    for item, labels in by_item.items():
        c = Counter(labels)
        votes[item] = sorted(k for k, v in c.items() if v == max(c.values()))[0]
    acc = sum(votes[i] == g[i] for i in g) / len(g)
    sentiment = next(s for s in data["subsets"] if s["subset"] == "DemoSentiment/en")
    assert sentiment["human"]["value"] == pytest.approx(acc)
    assert len(sentiment["human"]["per_rater"]) == 2
    assert "emb:sentence-transformers/all-MiniLM-L6-v2" in sentiment["models"]
    assert len(preds) == 31  # one sealed answer per instance
    # Sealed: nothing reached Label Studio.
    client = ls_server.client()
    with Store.open(study) as store:
        for s in store.subsets():
            assert all(not t.get("predictions") for t in client.list_tasks(s.ls_project_id))

    # Again: everything is reused.
    assert main(["demo", "--dir", str(study)]) == 0
    out = capsys.readouterr().out
    assert "0 project(s) created, 0 task(s) imported" in out
    assert "0 recorded answer(s)" in out and "pulled: 0 new annotation(s)" in out
