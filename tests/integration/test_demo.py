"""The README's main job, `hume-sync demo`, end to end: two real embedded Label Studio servers
(one per example annotator), the manager's own with the study mirrored in it, and the real
packaged model; its report and the mirror checked against the recorded example answers."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from hume_sync.cli import main
from hume_sync.store import Store, gold
from hume_sync.workflow.demo import demo_data_dir

pytestmark = [pytest.mark.labelstudio, pytest.mark.model]


def recorded_answers() -> list[dict]:
    """The demo's recorded example answers, as the file holds them."""
    text = (demo_data_dir() / "example_answers.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def spec_subsets() -> int:
    """How many subsets the demo's spec makes: one per subset it declares, one per arm for a
    type with arms (instruction reranking's original and changed instruction)."""
    from hume_sync import task_types
    from hume_sync.study.spec import load_spec

    return sum(
        len(t.subsets) * max(1, len(task_types.get(t.type).study_arms))
        for t in load_spec(demo_data_dir() / "study.yaml").tasks
    )


def test_demo_end_to_end_and_rerun(tmp_path, monkeypatch, capsys):
    """The real `make demo` path: two embedded Label Studio servers, one per example annotator,
    and the manager's, where the demo opens."""
    from hume_sync.labelstudio import manager, server
    from hume_sync.labelstudio import servers as ls_servers

    monkeypatch.setenv("HUME_HOME", str(tmp_path / "hume-home"))
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    study = tmp_path / "demo"
    port = server.free_port()
    try:
        assert main(["demo", "--dir", str(study), "--port", str(port)]) == 0
        out = capsys.readouterr().out
        check_demo(study, port, out)
        mirror = check_manager(study, out)
        pid = server.status(manager.manager_data_dir()).pid
        # Again: everything is reused, the manager's server and its mirror included.
        assert main(["demo", "--dir", str(study), "--port", str(port)]) == 0
        out = capsys.readouterr().out
        assert "0 project(s) created, 0 task(s) imported" in out
        assert "0 recorded answer(s)" in out and "pulled: 0 new annotation(s)" in out
        assert (
            f"[7/8] mirrored: 0 project(s) created ({spec_subsets()} in all, one per subset)" in out
        )
        assert "0 task(s) added, 0 updated; 0 answer(s) added, 0 updated, 0 removed" in out
        assert check_manager(study, out) == mirror
        # The first mirror imported each task with its answers: a whole reconciliation, which
        # reads every task back and compares it, finds nothing to put right.
        from hume_sync.workflow.mirror import mirror_study

        ls = manager.client()
        assert ls is not None
        with Store.open(study) as store:
            assert mirror_study(store, ls, full=True).writes() == 0
        assert server.status(manager.manager_data_dir()).pid == pid  # the same server
        # `down` stops every server; each comes back on its own port (what `up` does for each)
        assert main(["down"]) == 0
        out = capsys.readouterr().out
        assert out.count("annotator's Label Studio stopped") == 2
        assert "manager's Label Studio stopped" in out
        assert not server.status(manager.manager_data_dir()).running
        with Store.open(study) as store:
            urls = {a.ls_url for a in store.annotators()}
        dirs = ls_servers.embedded_annotator_dirs()
        assert len(dirs) == 2 and not any(server.status(d).running for d in dirs)
        assert {ls_servers.start_embedded(d).url for d in dirs} == urls
        assert main(["status", str(study)]) == 0
        n = len(recorded_answers())
        assert f"Total: {n}/{n} answers valid, 0 to do" in capsys.readouterr().out
    finally:
        for data_dir in [*ls_servers.embedded_annotator_dirs(), manager.manager_data_dir()]:
            server.stop(data_dir)


def check_manager(study, out) -> dict[str, Counter]:
    """The demo opens on the manager's server: printed first, with its login; one mirror
    project per subset there, holding each example annotator's recorded answers under their
    slot's pseudonymous account. Returns subset → Counter(slot) of the mirrored answers."""
    from hume_sync.labelstudio import manager, server
    from hume_sync.workflow.changes import author_id

    url = manager.configured_url()
    creds = manager.manager_data_dir() / server.CREDENTIALS_FILE
    follow = f"Follow the study here: {url} (manager login admin@hume.local, password in {creds})"
    lines = out.splitlines()
    first = lines.index(follow)  # the closing block opens on it, after the steps' lines
    assert lines[first - 1] == "" and lines[first + 1].startswith("Report:       ")
    assert [n for n, x in enumerate(lines) if x.startswith(("Report:", "Label Studio:"))] == [
        first + 1,
        first + 3,
        first + 5,
    ]
    ls = manager.client()
    assert ls is not None and ls.url == url
    with Store.open(study) as store:
        assert url not in {a.ls_url for a in store.annotators()}  # a server of its own
        slot_of = {a.email.split("@")[0]: a.slot for a in store.annotators()}
        subset_of = {i.hume_id: s.key for s in store.subsets() for i in store.instances(s.key)}
        projects = manager.mirror_projects(ls, store.study_uid(), sorted(set(subset_of.values())))
    n_subsets = spec_subsets()
    assert len(projects) == n_subsets and len(ls.list_projects()) == n_subsets  # nothing else
    slot_by_user = {v: k for k, v in manager.pseudonyms(ls, list(slot_of.values())).items()}
    expected: dict[str, Counter] = {}
    for rec in recorded_answers():
        expected.setdefault(subset_of[rec["hume_id"]], Counter())[slot_of[rec["annotator"]]] += 1
    mirrored: dict[str, Counter] = {}
    for key, project_id in projects.items():
        tasks = ls.list_tasks(project_id)
        assert len(tasks) == len([h for h, k in subset_of.items() if k == key])
        mirrored[key] = Counter(
            slot_by_user[author_id(a)] for t in tasks for a in t.get("annotations") or []
        )
    total = sum(sum(c.values()) for c in mirrored.values())
    assert mirrored == expected and total == len(recorded_answers())
    return mirrored


def check_demo(study, port, out):
    from hume_sync.labelstudio import servers as ls_servers

    assert f"Report:       {(study / 'report').resolve() / 'report.html'}" in out
    with Store.open(study) as store:
        annotators = store.annotators()
        assert [(a.email.split("@")[0], a.languages) for a in annotators] == [
            ("example-annotator-1", ("eng", "dan")),
            ("example-annotator-2", ("eng",)),
        ]
        urls = [a.ls_url for a in annotators]
    assert urls[0] == f"http://127.0.0.1:{port}" and len(set(urls)) == 2  # a server each
    for a in annotators:
        assert f"Label Studio: {a.ls_url} ({a.email}'s own)" in out
        assert ls_servers.token_for(a.ls_url) not in out
    answers = recorded_answers()
    assert f"{len(answers)} recorded answer(s) of the two example annotators replayed" in out

    data = json.loads((study / "report" / "scores.json").read_text())
    assert data["complete"] is True and len(data["subsets"]) == spec_subsets()
    # English sentiment: the vote of the two example annotators, computed here from the file.
    with Store.open(study) as store:
        g = gold(store, "DemoSentiment/en")
        preds = store.predictions(model_version="emb:sentence-transformers/all-MiniLM-L6-v2")
        n_instances = sum(len(store.instances(sub.key)) for sub in store.subsets())
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
    assert len(preds) == n_instances  # one sealed answer per instance
    # The retrieval subset: its judgments written, its section in the report.
    qrels = study / "report" / "judgments" / "DemoSearch" / "en" / "qrels.aggregate.txt"
    with Store.open(study) as store:
        pooled = sum(len(refs) for refs in store.item_refs("DemoSearch/en").values())
    assert len(qrels.read_text().splitlines()) == pooled  # every pooled document, graded
    md = (study / "report" / "report.md").read_text(encoding="utf-8")
    assert "### Retrieval: DemoSearch/en" in md
    # The bitext subset: only the annotator who reads English and Danish has a seat; her F1 is
    # scikit-learn's weighted F1 of her recorded choices against the translations' own ids.
    from sklearn.metrics import f1_score

    chosen = {
        a["hume_id"]: a["answer"] for a in answers if a["hume_id"].startswith("DemoTranslation/")
    }
    bitext = next(s for s in data["subsets"] if s["subset"] == "DemoTranslation/en_da")
    truth = [h.rsplit("/", 1)[1] for h in chosen]  # a translation's id is its sentence's
    f1 = f1_score(truth, list(chosen.values()), average="weighted")
    assert bitext["human"]["value"] == pytest.approx(f1) and f1 < 1.0
    assert len(bitext["human"]["per_rater"]) == 1
    # The multilabel subset: per text the labels both example annotators ticked (a label ticked
    # by one of two is a tie, left out), then exact-match accuracy against the file's gold.
    gold_sets = {
        f"DemoTags/en/{r['id']}": sorted(r["labels"])
        for r in map(json.loads, (demo_data_dir() / "tags_en_test.jsonl").read_text().splitlines())
    }
    ticks: dict[str, Counter] = {}
    for a in answers:
        if a["hume_id"] in gold_sets:
            ticks.setdefault(a["hume_id"], Counter()).update(a["answer"])
    voted = {h: sorted(k for k, v in c.items() if v > 1) for h, c in ticks.items()}
    exact = sum(voted[h] == g for h, g in gold_sets.items()) / len(gold_sets)
    tags = next(s for s in data["subsets"] if s["subset"] == "DemoTags/en")
    assert tags["human"]["value"] == pytest.approx(exact) and 0 < exact < 1
    # The summarization subset: each summary's mean rating over the two annotators, scipy's
    # Spearman against the panel's scores per text, averaged over texts.
    from scipy.stats import spearmanr

    panel = {
        f"DemoDigest/en/{r['id']}": r["relevance"]
        for r in map(json.loads, (demo_data_dir() / "digest_en.jsonl").read_text().splitlines())
    }
    given: dict[str, list[dict]] = {}
    for a in answers:
        if a["hume_id"] in panel:
            given.setdefault(a["hume_id"], []).append(a["answer"])
    rhos = []
    for h, expert in panel.items():
        mean = [sum(r[str(k)] for r in given[h]) / len(given[h]) for k in range(len(expert))]
        rhos.append(spearmanr(mean, expert).statistic)
    digest = next(s for s in data["subsets"] if s["subset"] == "DemoDigest/en")
    assert digest["human"]["value"] == pytest.approx(sum(rhos) / len(rhos))
    # The regression subset: each text's mean year over the two annotators, scipy's Kendall τ-b
    # against the true years.
    from scipy.stats import kendalltau

    years = {
        f"DemoYears/en/{r['id']}": r["value"]
        for r in map(json.loads, (demo_data_dir() / "years_en_test.jsonl").read_text().splitlines())
    }
    guesses: dict[str, list[float]] = {}
    for a in answers:
        if a["hume_id"] in years:
            guesses.setdefault(a["hume_id"], []).append(a["answer"])
    means = [sum(guesses[h]) / len(guesses[h]) for h in years]
    tau = kendalltau(means, list(years.values())).statistic
    dated = next(s for s in data["subsets"] if s["subset"] == "DemoYears/en")
    assert dated["human"]["value"] == pytest.approx(tau) and 0 < tau < 1
    # The instruction reranking subset: annotator 1 in the original arm, 2 in the changed one;
    # the people's p-MRR under mteb's tie rule is mteb's own on their recorded marks.
    from mteb._evaluators.retrieval_metrics import calculate_pmrr

    queries = [
        json.loads(x) for x in (demo_data_dir() / "instructions_en.jsonl").read_text().splitlines()
    ]
    marks = {
        arm: {
            a["hume_id"].rsplit("/", 1)[1] + f"-{arm}": {
                k: float(v) for k, v in a["answer"].items()
            }
            for a in answers
            if a["hume_id"].startswith(f"DemoInstructions/en-{arm}/")
        }
        for arm in ("og", "changed")
    }
    ruled_out = {
        q["id"]: [
            c["id"] for c in q["candidates"] if c["relevant_og"] and not c["relevant_changed"]
        ]
        for q in queries
    }
    [following] = data["instruction_following"]
    assert following["key"] == "DemoInstructions/en"
    assert following["human_trec"] == pytest.approx(
        calculate_pmrr(marks["og"], marks["changed"], ruled_out)
    )
    assert following["human"] > 0  # the recorded changed-arm annotator follows the change
    # Sealed: nothing reached Label Studio; each annotator's server holds her projects only.
    with Store.open(study) as store:
        by_slot = {a.slot: a for a in store.annotators()}
        for p in store.slot_projects():
            client = ls_servers.client_for(by_slot[p.slot].ls_url)
            assert all(not t.get("predictions") for t in client.list_tasks(p.ls_project_id))
        assert {p.slot for p in store.slot_projects("DemoSentiment/da")} == {1}
        assert {p.slot for p in store.slot_projects("DemoSentiment/en")} == {1, 2}
        assert {p.slot for p in store.slot_projects("DemoTranslation/en_da")} == {1}
        assert {p.slot for p in store.slot_projects("DemoInstructions/en-og")} == {1}
        assert {p.slot for p in store.slot_projects("DemoInstructions/en-changed")} == {2}
