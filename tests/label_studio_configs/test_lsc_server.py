"""Every rendered config against a real Label Studio: accepted by projects.create, and an
annotation made from `answer_to_result` comes back from the API and translates to the same answer.
"""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from hume_sync import task_types

pytestmark = pytest.mark.labelstudio

ITEMS = [{"id": f"doc-{i}", "text": f"Text number {i} & <b>not bold</b>"} for i in range(30)]
CANDIDATES = [{"id": f"c{i}", "text": f"candidate «{i}»"} for i in range(7)]
LABELS = ["joy", "sadness & grief", "<anger>", 'the "fear"', "love's", "surprise"]
# (task type, config kwargs, content, answer, extra kwargs for the result translation)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], Any, dict[str, Any]]] = [
    ("classification", {"labels": LABELS}, {"text": "I miss you", "label": "GOLD"}, LABELS[1], {}),
    ("sts", {}, {"sentence1": "A man plays.", "sentence2": "A man sings.", "score": 2.4}, 0, {}),
    ("sts", {}, {"sentence1": "x", "sentence2": "x"}, 5, {}),
    (
        "reranking",
        {},
        {"query": "what is HUME?", "candidates": CANDIDATES},
        {c["id"]: int(n in (0, 4)) for n, c in enumerate(CANDIDATES)},
        {"item_ids": [c["id"] for c in CANDIDATES]},
    ),
    (
        "clustering",
        {"n_groups": 6},
        {"items": ITEMS},
        {it["id"]: f"group_{n % 6 + 1}" for n, it in enumerate(ITEMS)},
        {"item_ids": [it["id"] for it in ITEMS]},
    ),
]


@pytest.mark.parametrize("language", ["en", "arb_Arab"])
@pytest.mark.parametrize(
    ("task_type", "config_kw", "content", "answer", "id_kw"),
    CASES,
    ids=[f"{c[0]}-{n}" for n, c in enumerate(CASES)],
)
def test_config_accepted_and_annotation_round_trips(
    ls_server, task_type, config_kw, content, answer, id_kw, language
) -> None:
    interface = task_types.get(task_type)
    client = ls_server.client()
    xml = interface.ls_render_config(**config_kw, language=language)
    project = client.create_project(
        f"lsc-{task_type}-{language}-{uuid.uuid4().hex[:8]}", xml, maximum_annotations=2
    )
    stored = ET.fromstring(project["label_config"])
    assert stored.find(f".//*[@name='{interface.ls_module.FROM_NAME}']") is not None
    assert project["show_collab_predictions"] is False

    data = interface.ls_task_data(f"hume-{task_type}-1", content)
    [task_id] = client.import_tasks(project["id"], [{"data": data}])
    kw = {**config_kw, **id_kw}
    client.create_annotation(task_id, interface.ls_answer_to_result(answer, **kw), lead_time=7.5)

    [task] = client.list_tasks(project["id"])
    assert task["data"] == data, "task data must come back unchanged (and never hold gold)"
    assert "GOLD" not in str(task["data"]) and "score" not in task["data"]
    [annotation] = task["annotations"]
    assert annotation["lead_time"] == pytest.approx(7.5)
    assert interface.ls_result_to_answer(annotation["result"], **kw) == answer
    [listed] = client.list_annotations(task_id)
    assert interface.ls_result_to_answer(listed["result"], **kw) == answer
    client.delete_project(project["id"])


def test_second_user_annotation_round_trips(ls_server) -> None:
    """An annotator other than the admin: the fixture's user helper and `completed_by`."""
    module = task_types.get("classification").ls_module
    admin = ls_server.client()
    project = admin.create_project(
        f"lsc-two-users-{uuid.uuid4().hex[:8]}",
        module.render_config(labels=LABELS),
        maximum_annotations=2,
    )
    [task_id] = admin.import_tasks(project["id"], [{"data": module.task_data("h", {"text": "t"})}])
    user = ls_server.make_user()
    annotator = ls_server.client(user.token)
    assert annotator.whoami()["id"] == user.id != admin.whoami()["id"]
    annotator.create_annotation(task_id, module.answer_to_result("joy", labels=LABELS), 3.0)
    admin.create_annotation(task_id, module.answer_to_result("<anger>", labels=LABELS), 4.0)
    [task] = admin.list_tasks(project["id"])
    by_user = {
        a["completed_by"]: module.result_to_answer(a["result"], labels=LABELS)
        for a in task["annotations"]
    }
    assert by_user == {user.id: "joy", admin.whoami()["id"]: "<anger>"}
    assert admin.project_counts(project["id"])["finished_task_number"] == 1
