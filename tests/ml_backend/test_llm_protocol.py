"""The LLM annotator's protocol paths, with the real ``openai`` client over ``httpx.MockTransport``.

No network and no model: a scripted handler plays the endpoint. Checks what goes out (prompt,
settings, response_format, key header) and what comes back (records, retries, parse failures,
cache hits), and that the API key is never visible outside the Authorization header.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("openai")

from hume_sync import task_types
from hume_sync.errors import UnknownTaskTypeError
from ml_backend.llm import (
    LLMError,
    OpenAICompatibleClient,
    ReplyCache,
    RetryPolicy,
    TransformersChatBackend,
    annotate,
    build_prompt,
    parse_reply,
    summarize,
)

KEY_ENV = "HUME_TEST_LLM_KEY"
SECRET = "sk-test-SECRET-0123456789abcdef"
BASE_URL = "http://llm.test/v1"
LABELS = ["science/technology", "travel", "politics", "sports", "health", "entertainment"]
CLS_INSTANCES = [
    {"hume_id": "sib/eng/1", "content": {"text": "The match ended in a draw after extra time."}},
    {"hume_id": "sib/eng/2", "content": {"text": "Parliament passed the budget on Tuesday."}},
]
Handler = Callable[[httpx.Request], httpx.Response]
CLASSIFICATION, CLUSTERING, RERANKING, STS = map(
    task_types.get, ("classification", "clustering", "reranking", "sts")
)


def chat_response(text: str, *, usage: dict[str, Any] | None = None, status: int = 200,
                  headers: dict[str, str] | None = None) -> httpx.Response:  # fmt: skip
    """A chat.completions reply as an OpenAI-compatible server sends it."""
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": usage or {"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57},
    }
    return httpx.Response(status, json=body, headers=headers)


class Script:
    """A handler that answers requests from a list (callables or responses) and records them."""

    def __init__(self, *replies: httpx.Response | Callable[[httpx.Request], httpx.Response]):
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.bodies.append(json.loads(request.content))
        if not self.replies:
            raise AssertionError("unexpected extra request")
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        return reply(request) if callable(reply) else reply


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv(KEY_ENV, SECRET)
    yield SECRET


def make_client(handler: Handler, **kwargs: Any) -> OpenAICompatibleClient:
    sleeps: list[float] = []
    kwargs.setdefault("retry", RetryPolicy(max_retries=3, base_delay_s=0.001, max_delay_s=0.01))
    client = OpenAICompatibleClient(
        "test-model",
        base_url=BASE_URL,
        api_key_env=KEY_ENV,
        name="test-model",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
        sleep=sleeps.append,
        **kwargs,
    )
    client.sleeps = sleeps  # type: ignore[attr-defined]
    return client


def run_cls(client: OpenAICompatibleClient, **kwargs: Any) -> list[dict[str, Any]]:
    kwargs.setdefault("concurrency", 1)
    return annotate(
        CLS_INSTANCES[:1], CLASSIFICATION, client=client, labels=LABELS, language="eng-Latn",
        progress=False, **kwargs,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Well-formed answers


def test_well_formed_answer_gives_an_ok_record_with_everything_recorded() -> None:
    script = Script(chat_response('{"label": "sports"}'))
    client = make_client(script, max_tokens=64, seed=7)
    [rec] = run_cls(client)

    assert rec["status"] == "ok"
    assert rec["answer"] == "sports"
    assert rec["hume_id"] == "sib/eng/1"
    assert rec["model_version"] == "llm:test-model"
    assert rec["raw"] == '{"label": "sports"}'
    assert rec["error"] is None
    assert rec["usage"] == {"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57}
    assert rec["latency_s"] > 0
    assert rec["cost"] is None  # the endpoint reported none; we do not guess prices
    assert rec["calls"] == 1 and rec["cached"] is False
    assert rec["endpoint"] == BASE_URL
    settings = rec["settings"]
    assert settings["model"] == "test-model"
    assert settings["temperature"] == 0.0
    assert settings["max_tokens"] == 64 and settings["seed"] == 7
    assert settings["response_format"] == "json_schema"

    [request] = script.requests
    assert request.url.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    body = script.bodies[0]
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.0 and body["max_tokens"] == 64 and body["seed"] == 7
    schema = body["response_format"]["json_schema"]["schema"]
    assert body["response_format"]["type"] == "json_schema"
    assert schema["properties"]["label"]["enum"] == LABELS
    user = body["messages"][-1]["content"]
    assert CLS_INSTANCES[0]["content"]["text"] in user
    assert all(label in user for label in LABELS)
    assert "English" in user and "JSON" in user


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("json_object", {"type": "json_object"}),
        ("json_object_schema", {"type": "json_object", "schema": "SCHEMA"}),
        ("none", None),
    ],
)
def test_response_format_modes(mode: str, expected: dict[str, str] | None) -> None:
    script = Script(chat_response('{"label": "travel"}'))
    [rec] = run_cls(make_client(script, response_format=mode))
    assert rec["status"] == "ok"
    if expected and expected.get("schema") == "SCHEMA":
        expected = {**expected, "schema": script.bodies[0]["response_format"]["schema"]}
        assert expected["schema"]["properties"]["label"]["enum"] == LABELS
    assert script.bodies[0].get("response_format") == expected
    assert "JSON" in script.bodies[0]["messages"][-1]["content"]  # always asked for in words


def test_cost_is_recorded_when_the_endpoint_reports_it() -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12, "cost": 0.00042}
    [rec] = run_cls(make_client(Script(chat_response('{"label": "health"}', usage=usage))))
    assert rec["cost"] == pytest.approx(0.00042)


def test_label_in_other_case_is_that_label_not_a_guess() -> None:
    [rec] = run_cls(make_client(Script(chat_response('{"label": " Sports "}'))))
    assert rec["status"] == "ok" and rec["answer"] == "sports"


def test_fenced_json_is_accepted() -> None:
    [rec] = run_cls(make_client(Script(chat_response('```json\n{"label": "politics"}\n```'))))
    assert rec["status"] == "ok" and rec["answer"] == "politics"


# ---------------------------------------------------------------------------------------------
# Retries


def test_429_then_success_backs_off_and_answers() -> None:
    script = Script(
        httpx.Response(429, json={"error": {"message": "slow down"}}, headers={"retry-after": "0"}),
        chat_response('{"label": "politics"}'),
    )
    client = make_client(script)
    [rec] = run_cls(client)
    assert rec["status"] == "ok" and rec["answer"] == "politics"
    assert len(script.requests) == 2
    assert rec["http_attempts"] == 2 and rec["calls"] == 1
    assert len(client.sleeps) == 1 and 0 < client.sleeps[0] <= 0.011  # type: ignore[attr-defined]


def test_5xx_is_retried_with_growing_backoff_and_bounded() -> None:
    script = Script(httpx.Response(503, json={"error": {"message": "overloaded"}}))
    client = make_client(
        script, retry=RetryPolicy(max_retries=3, base_delay_s=0.001, max_delay_s=1, jitter=0)
    )
    [rec] = run_cls(client)
    assert rec["status"] == "error"
    assert "HTTP 503" in rec["error"]
    assert len(script.requests) == 4  # 1 + 3 retries, then give up
    assert client.sleeps == [0.001, 0.002, 0.004]  # type: ignore[attr-defined]


def test_refused_response_format_says_what_to_try() -> None:
    body = {"error": {"message": "'loc': ('body', 'response_format', 'type') literal_error"}}
    client = make_client(Script(httpx.Response(422, json=body)))
    with pytest.raises(LLMError, match="json_object_schema"):
        client.complete([{"role": "user", "content": "hi"}], response_format={"type": "x"})


def test_other_4xx_is_not_retried() -> None:
    script = Script(httpx.Response(400, json={"error": {"message": "bad schema"}}))
    client = make_client(script)
    with pytest.raises(LLMError) as info:
        client.complete([{"role": "user", "content": "hi"}])
    assert info.value.kind == "client" and info.value.status_code == 400
    assert "bad schema" in str(info.value)
    assert len(script.requests) == 1


def test_timeout_is_retried_then_recorded_as_error() -> None:
    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    script = Script(timeout)
    client = make_client(script, retry=RetryPolicy(max_retries=2, base_delay_s=0.001))
    [rec] = run_cls(client)
    assert rec["status"] == "error"
    assert rec["answer"] is None and rec["raw"] is None
    assert "timeout" in rec["error"]
    assert len(script.requests) == 3


def test_timeout_then_success() -> None:
    calls = {"n": 0}

    def flaky(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] == 1:
            raise httpx.ConnectError("refused", request=request)
        return chat_response('{"label": "travel"}')

    [rec] = run_cls(make_client(Script(flaky)))
    assert rec["status"] == "ok" and rec["http_attempts"] == 2


# ---------------------------------------------------------------------------------------------
# Parse failures and invalid answers: never a default


def test_malformed_json_twice_is_a_parse_error_with_raw_kept() -> None:
    script = Script(
        chat_response("I think the answer is sports."), chat_response('{"label": "sports"')
    )
    [rec] = run_cls(make_client(script))
    assert rec["status"] == "parse_error"
    assert rec["answer"] is None
    assert rec["raw"] == '{"label": "sports"'
    assert rec["raw_replies"] == ["I think the answer is sports.", '{"label": "sports"']
    assert "not valid JSON" in rec["error"]
    assert rec["calls"] == 2
    assert rec["usage"]["total_tokens"] == 114  # both calls counted
    # The reminder carries the failed reply and says what was wrong.
    second = script.bodies[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": "I think the answer is sports."}
    assert second[-1]["role"] == "user"
    assert "could not be used" in second[-1]["content"] and "JSON" in second[-1]["content"]


def test_malformed_json_then_good_answer_after_reminder() -> None:
    script = Script(chat_response("sports"), chat_response('{"label": "sports"}'))
    [rec] = run_cls(make_client(script))
    assert rec["status"] == "ok" and rec["answer"] == "sports" and rec["calls"] == 2


def test_no_reminder_when_disabled() -> None:
    script = Script(chat_response("sports"))
    [rec] = run_cls(make_client(script), reminder=False)
    assert rec["status"] == "parse_error" and len(script.requests) == 1


def test_answer_outside_label_set_is_invalid() -> None:
    script = Script(chat_response('{"label": "finance"}'))
    [rec] = run_cls(make_client(script))
    assert rec["status"] == "invalid"
    assert rec["answer"] is None
    assert "'finance' is not one of the labels" in rec["error"]
    assert len(script.requests) == 2  # reminded once, then given up
    assert "finance" in script.bodies[1]["messages"][-1]["content"]


# ---------------------------------------------------------------------------------------------
# The API key stays secret


def test_api_key_never_in_records_logs_reprs_or_exceptions(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = httpx.Response(401, json={"error": {"message": f"Incorrect API key provided: {SECRET}"}})
    script = Script(
        httpx.Response(429, json={"error": {"message": f"rate limited for key {SECRET}"}}),
        echo,
    )
    client = make_client(script)
    records = run_cls(client, cache=tmp_path / "cache")
    [rec] = records
    assert rec["status"] == "error"
    assert "HTTP 401" in rec["error"] and "***" in rec["error"]

    with pytest.raises(LLMError) as info:
        client.complete([{"role": "user", "content": "hi"}])
    exc = info.value
    assert exc.__cause__ is None and exc.__context__ is None  # no openai error (with headers)

    texts = [
        json.dumps(records),
        caplog.text,
        str(exc),
        repr(exc),
        repr(client),
        str(vars(client).get("settings")),
    ]
    assert script.requests[0].headers["authorization"] == f"Bearer {SECRET}"  # it was sent...
    for text in texts:
        assert SECRET not in text  # ...and shown nowhere
    assert KEY_ENV in repr(client)  # the variable's name is fine to show
    cache_bytes = b"".join(p.read_bytes() for p in (tmp_path / "cache").iterdir())
    assert SECRET.encode() not in cache_bytes


def test_key_is_only_read_from_the_named_environment_variable() -> None:
    import inspect

    params = inspect.signature(OpenAICompatibleClient).parameters
    assert not any("key" in name and name != "api_key_env" for name in params)


def test_missing_key_variable_sends_a_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV)
    script = Script(chat_response('{"label": "travel"}'))
    [rec] = run_cls(make_client(script))
    assert rec["status"] == "ok"
    assert script.requests[0].headers["authorization"] == "Bearer no-key"


# ---------------------------------------------------------------------------------------------
# Cache


def test_rerun_hits_the_cache_and_makes_no_http_call(tmp_path: Path) -> None:
    replies = [chat_response('{"label": "sports"}'), chat_response('{"label": "politics"}')]
    script = Script(*replies)
    cache_dir = tmp_path / "llm-cache"
    first = annotate(CLS_INSTANCES, CLASSIFICATION, client=make_client(script), labels=LABELS,
                     cache=cache_dir, concurrency=1, progress=False)  # fmt: skip
    assert [r["answer"] for r in first] == ["sports", "politics"]
    assert len(script.requests) == 2

    rerun = Script()  # any request would fail the test
    with ReplyCache(cache_dir) as cache:
        second = annotate(CLS_INSTANCES, CLASSIFICATION, client=make_client(rerun),
                          labels=LABELS, cache=cache, concurrency=2, progress=False)  # fmt: skip
        assert cache.hits == 2 and cache.misses == 0
    assert rerun.requests == []
    assert all(r["cached"] for r in second)
    strip = ("cached", "http_attempts")
    assert [{k: v for k, v in r.items() if k not in strip} for r in first] == [
        {k: v for k, v in r.items() if k not in strip} for r in second
    ]


def test_cache_key_changes_with_settings(tmp_path: Path) -> None:
    script = Script(chat_response('{"label": "sports"}'))
    run_cls(make_client(script), cache=tmp_path)
    run_cls(make_client(script, max_tokens=99), cache=tmp_path)
    run_cls(make_client(script), cache=tmp_path)  # same settings as the first: a hit
    assert len(script.requests) == 2


def test_reminder_retry_is_cached_too(tmp_path: Path) -> None:
    script = Script(chat_response("nope"), chat_response("still nope"))
    [rec] = run_cls(make_client(script), cache=tmp_path)
    assert rec["status"] == "parse_error"
    rerun = Script()
    [again] = run_cls(make_client(rerun), cache=tmp_path)
    assert rerun.requests == [] and again["status"] == "parse_error" and again["calls"] == 2


def test_errors_are_not_cached(tmp_path: Path) -> None:
    run_cls(make_client(Script(httpx.Response(400, json={"error": "no"}))), cache=tmp_path)
    script = Script(chat_response('{"label": "travel"}'))
    [rec] = run_cls(make_client(script), cache=tmp_path)
    assert rec["status"] == "ok" and len(script.requests) == 1


# ---------------------------------------------------------------------------------------------
# The other task types: prompts and answers in the humans' shapes


def _reply_with(mapping: Callable[[dict[str, Any]], str]) -> Handler:
    """A handler answering from the request's JSON schema (so ids are the instance's own)."""

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        return chat_response(mapping(body["response_format"]["json_schema"]["schema"]))

    return handler


def test_clustering_round_trip() -> None:
    items = [{"id": f"t{n}", "text": f"text number {n}"} for n in range(6)]
    inst = {"hume_id": "clu/1", "content": {"items": items}}
    script = Script(
        _reply_with(lambda s: json.dumps({i: n % 3 + 1 for n, i in enumerate(s["properties"])}))
    )
    [rec] = annotate([inst], CLUSTERING, client=make_client(script), n_groups=3,
                     language="rus-Cyrl", progress=False)  # fmt: skip
    assert rec["status"] == "ok"
    assert rec["answer"] == {f"t{n}": f"group_{n % 3 + 1}" for n in range(6)}
    user = script.bodies[0]["messages"][-1]["content"]
    assert "3 groups" in user and "Russian" in user
    assert all(f"[t{n}] text number {n}" in user for n in range(6))


def test_clustering_missing_id_is_invalid_even_after_reminder() -> None:
    items = [{"id": f"t{n}", "text": f"text {n}"} for n in range(4)]
    script = Script(chat_response('{"t0": 1, "t1": 2, "t2": 1}'))
    [rec] = annotate([{"hume_id": "c", "content": {"items": items}}], CLUSTERING,
                     client=make_client(script), n_groups=2, progress=False)  # fmt: skip
    assert rec["status"] == "invalid" and "missing" in rec["error"] and "'t3'" in rec["error"]


def test_reranking_round_trip_and_prompt() -> None:
    cands = [{"id": f"d{n}", "text": f"passage {n}"} for n in range(7)]
    inst = {"hume_id": "rr/1", "content": {"query": "what is a fission bomb", "candidates": cands}}
    script = Script(_reply_with(lambda s: json.dumps({i: int(i == "d2") for i in s["properties"]})))
    [rec] = annotate([inst], RERANKING, client=make_client(script), progress=False)
    assert rec["status"] == "ok"
    assert rec["answer"] == {f"d{n}": int(n == 2) for n in range(7)}
    user = script.bodies[0]["messages"][-1]["content"]
    assert "what is a fission bomb" in user and "[d6] passage 6" in user
    assert "Relevant" in user and "Not relevant" in user


def test_sts_round_trip_prompt_has_the_level_meanings() -> None:
    inst = {"hume_id": "sts/1", "content": {"sentence1": "A cat sits.", "sentence2": "A cat."}}
    script = Script(chat_response('{"rating": 4}'))
    [rec] = annotate([inst], STS, client=make_client(script), progress=False)
    assert rec["status"] == "ok" and rec["answer"] == 4
    user = script.bodies[0]["messages"][-1]["content"]
    assert "0 – completely dissimilar" in user and "5 – completely equivalent" in user
    enum = script.bodies[0]["response_format"]["json_schema"]["schema"]["properties"]["rating"]
    assert enum["enum"] == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("task_type", "content", "kwargs", "raw", "status"),
    [
        ("sts", {"sentence1": "a", "sentence2": "b"}, {}, '{"rating": 6}', "invalid"),
        ("sts", {"sentence1": "a", "sentence2": "b"}, {}, '{"rating": 3.5}', "invalid"),
        ("sts", {"sentence1": "a", "sentence2": "b"}, {}, '{"rating": "3"}', "ok"),
        ("sts", {"sentence1": "a", "sentence2": "b"}, {}, '{"rating": "high"}', "parse_error"),
        ("sts", {"sentence1": "a", "sentence2": "b"}, {}, '{"score": 3}', "parse_error"),
        ("sts", {"sentence1": "a", "sentence2": "b"}, {}, "[3]", "parse_error"),
        ("classification", {"text": "x"}, {"labels": LABELS}, '{"label": 3}', "parse_error"),
        ("classification", {"text": "x"}, {"labels": LABELS},
         '{"label": "sports", "label": "travel"}', "parse_error"),
        ("classification", {"text": "x"}, {"labels": LABELS}, "", "parse_error"),
        ("reranking", {"query": "q", "candidates": [{"id": "a", "text": "x"}]}, {},
         '{"a": 2}', "invalid"),
        ("reranking", {"query": "q", "candidates": [{"id": "a", "text": "x"}]}, {},
         '{"a": true}', "ok"),
        ("reranking", {"query": "q", "candidates": [{"id": "a", "text": "x"}]}, {},
         '{"a": 1, "b": 0}', "invalid"),
        ("clustering", {"items": [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}]},
         {"n_groups": 2}, '{"a": 1, "b": 3}', "invalid"),
        ("clustering", {"items": [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}]},
         {"n_groups": 2}, '{"a": 0, "b": 1}', "invalid"),
    ],
)  # fmt: skip
def test_parser_is_strict(
    task_type: str, content: dict[str, Any], kwargs: dict[str, Any], raw: str, status: str
) -> None:
    task = task_types.get(task_type)
    spec = task.llm_spec(**kwargs)
    outcome = parse_reply(task, spec, build_prompt(task, spec, content), raw)
    assert outcome.status == status, outcome
    assert (outcome.answer is None) == (status != "ok")


def test_bad_parameters_fail_before_any_call() -> None:
    script = Script()
    client = make_client(script)
    with pytest.raises(UnknownTaskTypeError, match="unknown task type"):
        task_types.get("ranking")
    with pytest.raises(TypeError, match="task type object"):
        annotate(CLS_INSTANCES, "classification", client=client, progress=False)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        annotate(CLS_INSTANCES, CLASSIFICATION, client=client, labels=[], progress=False)
    with pytest.raises(ValueError):
        annotate([{"hume_id": "x", "content": {"txt": "?"}}], CLASSIFICATION, client=client,
                 labels=LABELS, progress=False)  # fmt: skip
    assert script.requests == []


def test_concurrency_keeps_input_order_and_reports_progress(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins

    real_import = builtins.__import__

    def no_tqdm(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)

    def by_text(request: httpx.Request) -> httpx.Response:
        user = json.loads(request.content)["messages"][-1]["content"]
        return chat_response(json.dumps({"label": LABELS[int(user.split("item ")[1][:2])]}))

    instances = [{"hume_id": f"i{n}", "content": {"text": f"item {n % 6:02d}"}} for n in range(20)]
    records = annotate(instances, CLASSIFICATION, client=make_client(Script(by_text)),
                       labels=LABELS, concurrency=4, progress=True)  # fmt: skip
    assert [r["hume_id"] for r in records] == [f"i{n}" for n in range(20)]
    assert [r["answer"] for r in records] == [LABELS[n % 6] for n in range(20)]
    assert "20/20" in capsys.readouterr().err
    assert summarize(records)["ok_rate"] == 1.0


def test_instances_may_be_store_rows() -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Row:
        hume_id: str
        content: dict[str, Any]

    script = Script(chat_response('{"label": "travel"}'))
    [rec] = annotate([Row("r1", {"text": "A trip to Rome."})], CLASSIFICATION,
                     client=make_client(script), labels=LABELS, progress=False)  # fmt: skip
    assert rec["hume_id"] == "r1" and rec["answer"] == "travel"


# ---------------------------------------------------------------------------------------------
# The in-process transformers backend, with test doubles for tokenizer and model


class _FakeTokenizer:
    eos_token_id = 0
    pad_token_id = None

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.templated: list[Any] = []

    def apply_chat_template(self, messages: list[dict[str, str]], **kwargs: Any) -> Any:
        import torch

        self.templated.append((messages, kwargs))
        return {"input_ids": torch.ones((1, 11), dtype=torch.long)}

    def decode(self, tokens: Any, skip_special_tokens: bool = False) -> str:
        assert skip_special_tokens
        return self.reply


class _FakeModel:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def generate(self, **kwargs: Any) -> Any:
        import torch

        self.calls.append(kwargs)
        return torch.ones((1, 11 + 5), dtype=torch.long)


def test_transformers_backend_same_interface_with_doubles() -> None:
    pytest.importorskip("torch")
    tok, model = _FakeTokenizer('{"label": "health"}'), _FakeModel()
    backend = TransformersChatBackend("/models/tiny", model=model, tokenizer=tok, max_tokens=32)
    records = annotate(CLS_INSTANCES, CLASSIFICATION, client=backend, labels=LABELS,
                       concurrency=2, progress=False)  # fmt: skip
    assert [r["status"] for r in records] == ["ok", "ok"]
    rec = records[0]
    assert rec["answer"] == "health" and rec["model_version"] == "llm:tiny"
    assert rec["usage"] == {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}
    assert rec["endpoint"] == "transformers:/models/tiny"
    assert rec["settings"]["response_format"] == "none" and rec["settings"]["temperature"] == 0
    messages, kwargs = tok.templated[0]
    assert kwargs["add_generation_prompt"] is True
    assert messages[0]["role"] == "system" and LABELS[0] in messages[-1]["content"]
    assert model.calls[0]["do_sample"] is False and model.calls[0]["max_new_tokens"] == 32


def test_transformers_backend_failure_is_an_error_record() -> None:
    pytest.importorskip("torch")

    class Broken(_FakeModel):
        def generate(self, **kwargs: Any) -> Any:
            raise RuntimeError("out of memory")

    backend = TransformersChatBackend("/m", model=Broken(), tokenizer=_FakeTokenizer(""))
    [rec] = run_cls(backend)  # type: ignore[arg-type]
    assert rec["status"] == "error" and "out of memory" in rec["error"]


# ---------------------------------------------------------------------------------------------
# Assembling the packaged GGUF (with small stand-in parts)


def test_gguf_assembly_concatenates_in_order_and_is_atomic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ml_backend.llm import packaged

    parts = []
    for n, chunk in enumerate([b"GGUF-head-", b"middle-", b"tail"], 1):
        path = tmp_path / f"part{n:02d}.bin"
        path.write_bytes(chunk)
        parts.append(path)
    monkeypatch.setattr(packaged, "part_paths", lambda: parts)
    monkeypatch.setattr(packaged, "GGUF_SIZE", sum(p.stat().st_size for p in parts))
    out_dir = tmp_path / "cache"
    target = packaged.assemble_gguf(out_dir)
    assert target.read_bytes() == b"GGUF-head-middle-tail"
    mtime = target.stat().st_mtime_ns
    assert packaged.assemble_gguf(out_dir) == target and target.stat().st_mtime_ns == mtime

    monkeypatch.setattr(packaged, "GGUF_SIZE", 999)  # a part went missing or changed
    with pytest.raises(ValueError, match="expected 999"):
        packaged.assemble_gguf(tmp_path / "other")
    assert not (tmp_path / "other").exists()

    parts[0].write_bytes(b"XXXX-head-")  # right size, wrong magic: no file under the final name
    monkeypatch.setattr(packaged, "GGUF_SIZE", sum(p.stat().st_size for p in parts))
    with pytest.raises(ValueError, match="is not a"):
        packaged.assemble_gguf(tmp_path / "bad")
    assert list((tmp_path / "bad").iterdir()) == []
