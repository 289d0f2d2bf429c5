"""Setup imports tasks in as few requests as Label Studio accepts (issue 14): batches bounded
by task count and JSON bytes, a request refused as too large (413) split and sent again, task
ids in input order. Without a server: the SDK call is replaced by a recorder."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from label_studio_sdk.core.api_error import ApiError

from hume_sync.labelstudio.client import LabelStudioClient, LabelStudioRequestError


class Recorder:
    def __init__(self, refuse_over: int | None = None) -> None:
        self.refuse_over = refuse_over
        self.requests: list[int] = []
        self.next_id = 100

    def __call__(self, *, id: int, request: list[dict[str, Any]], return_task_ids: bool) -> Any:
        self.requests.append(len(request))
        if self.refuse_over is not None and len(request) > self.refuse_over:
            raise ApiError(status_code=413, body="Request Entity Too Large")
        ids = list(range(self.next_id, self.next_id + len(request)))
        self.next_id += len(request)
        return SimpleNamespace(task_ids=ids)


def _client(recorder: Recorder) -> LabelStudioClient:
    client = LabelStudioClient("http://127.0.0.1:9", "token", backoff=0)
    client._ls.projects.import_tasks = recorder  # type: ignore[method-assign]
    return client


TASKS = [{"data": {"text": f"sentence {n} " + "x" * (n % 50)}} for n in range(2500)]


def test_one_request_for_a_project_of_thousands_of_tasks() -> None:
    rec = Recorder()
    ids = _client(rec).import_tasks(7, TASKS)
    assert rec.requests == [2500]
    assert ids == list(range(100, 2600))


def test_batches_are_bounded_by_count_and_bytes() -> None:
    rec = Recorder()
    _client(rec).import_tasks(7, TASKS, batch_size=1000)
    assert rec.requests == [1000, 1000, 500]
    rec = Recorder()
    one = len(json.dumps(TASKS[0]).encode()) + 2
    ids = _client(rec).import_tasks(7, TASKS[:10], max_bytes=3 * one + 5)
    assert sum(rec.requests) == 10 and max(rec.requests) <= 3 and len(rec.requests) >= 4
    assert ids == list(range(100, 110))


def test_a_request_refused_as_too_large_is_split_and_sent_again() -> None:
    rec = Recorder(refuse_over=600)
    ids = _client(rec).import_tasks(7, TASKS)
    # 2500 refused, 1250 refused, 625 refused, then 313-task requests
    assert rec.requests[:3] == [2500, 1250, 625]
    assert all(n <= 600 for n in rec.requests[3:]) and sum(rec.requests[3:]) == 2500
    assert ids == list(range(100, 2600))  # nothing imported twice, order kept


def test_a_single_task_refused_is_an_error() -> None:
    with pytest.raises(LabelStudioRequestError, match="413"):
        _client(Recorder(refuse_over=0)).import_tasks(7, TASKS[:3])
