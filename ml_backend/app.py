"""Label Studio's ML backend protocol, served by Flask, answering from sealed study predictions.

Why our own: the PyPI ``label-studio-ml`` package is an old 2023 release (old API; it fails to
import without ``redis``) and the current one is not on PyPI. The protocol is small:

- ``GET /health`` → ``{"status": "UP", ...}``;
- ``POST /setup`` ``{project: "<id>.<ts>", schema, ...}`` → ``{"model_version": ...}``;
- ``POST /predict`` ``{tasks: [...], project, ...}`` → ``{"results": [...]}``, one item per
  task, in order; each item is the *list* of predictions for that task (one per model);
- ``POST /webhook`` annotation events → 201.

The app computes nothing: a :class:`PredictionSource` (for a study: ``hume_sync.workflow.backend``'s
``StudySource``) says which predictions may be shown. While the study is open it answers an
empty list for every task, so Label Studio stores nothing. No model is loaded here; answers are
made once by ``hume-sync predict``.

Errors are JSON: a malformed request gets a 4xx with ``{"error": ...}``, an unexpected failure a
500 with a generic message (logged, never sent as a traceback). Optional HTTP basic auth comes
from ``ML_BACKEND_USER`` / ``ML_BACKEND_PASSWORD`` (Label Studio's ``BASIC_AUTH`` method).
"""

from __future__ import annotations

import hmac
import json
import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from flask import Flask, Response, jsonify, request
from werkzeug.datastructures import Authorization
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)

AUTH_USER_ENV = "ML_BACKEND_USER"
AUTH_PASSWORD_ENV = "ML_BACKEND_PASSWORD"
MAX_REQUEST_BYTES = 64 * 1024 * 1024
#: Largest annotation event ``/webhook`` accepts (→ 413). Label Studio's events carry one task
#: and one annotation: a clustering set of 30 long texts is well under 1 MiB.
MAX_WEBHOOK_BYTES = 2 * 1024 * 1024
#: Deepest JSON nesting accepted (→ 400). Label Studio's payloads nest about 10 deep; a deeper
#: body is refused before anything walks it (Python's own parser stops near 1,000 with a
#: RecursionError, which would otherwise be a 500).
MAX_JSON_DEPTH = 64

__all__ = [
    "AUTH_PASSWORD_ENV",
    "AUTH_USER_ENV",
    "MAX_JSON_DEPTH",
    "MAX_REQUEST_BYTES",
    "MAX_WEBHOOK_BYTES",
    "BadRequest",
    "PayloadTooLarge",
    "PredictionSource",
    "create_app",
]


@runtime_checkable
class PredictionSource(Protocol):
    """Where the app's answers come from (kept apart so ``ml_backend`` knows no study store)."""

    def model_version(self, project: str | None) -> str:
        """Say what ``/setup`` reports for a Label Studio project.

        Args:
            project: the project's uid (``"<id>.<ts>"``), or None when the request names none.

        Returns:
            The model version Label Studio records.
        """
        ...

    def predict(
        self, tasks: Sequence[Mapping[str, Any]], project: str | None
    ) -> list[list[dict[str, Any]]]:
        """Give the predictions that may be shown for each task.

        Args:
            tasks: the Label Studio tasks of a ``/predict`` request, in order.
            project: the project's uid, or None when the request names none.

        Returns:
            One list of ``{model_version, score, result}`` per task, in order ([] = nothing).
        """
        ...

    def record_event(self, event: Mapping[str, Any]) -> None:
        """Keep an annotation event sent to ``/webhook``.

        Args:
            event: the event's JSON object (it has an ``action``).
        """
        ...

    def describe(self) -> dict[str, Any]:
        """Give short, secret-free facts for ``/health`` (study name, open or closed).

        Returns:
            The facts, merged into the ``/health`` answer.
        """
        ...


class BadRequest(ValueError):
    """The request body is not what the protocol expects (→ HTTP 400)."""


def _auth_from_env() -> tuple[str, str] | None:
    user, password = os.environ.get(AUTH_USER_ENV), os.environ.get(AUTH_PASSWORD_ENV)
    if not user and not password:
        return None
    if not user or not password:
        raise ValueError(f"set both {AUTH_USER_ENV} and {AUTH_PASSWORD_ENV}, or neither")
    return user, password


def _error(status: int, message: str) -> tuple[Response, int]:
    return jsonify({"error": message, "status": status}), status


class PayloadTooLarge(ValueError):
    """The request body is larger than the route accepts (→ HTTP 413)."""


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists/objects deeper than ``limit`` (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _json_object(max_bytes: int | None = None) -> dict[str, Any]:
    """The request body as a JSON object (any content type).

    BadRequest when it is empty, not JSON, not an object or nested deeper than
    :data:`MAX_JSON_DEPTH`; PayloadTooLarge when it is longer than ``max_bytes``.
    """
    if max_bytes is not None and (request.content_length or 0) > max_bytes:
        raise PayloadTooLarge(f"the request body is larger than {max_bytes} bytes")
    raw = request.get_data(cache=False)
    if max_bytes is not None and len(raw) > max_bytes:  # sent without a Content-Length
        raise PayloadTooLarge(f"the request body is larger than {max_bytes} bytes")
    if not raw:
        raise BadRequest("the request body is empty; expected a JSON object")
    too_deep = f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels"
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadRequest(f"the request body is not valid JSON ({exc.__class__.__name__})") from None
    except RecursionError:  # deeper than Python's own parser goes
        raise BadRequest(too_deep) from None
    if _depth_exceeds(body, MAX_JSON_DEPTH):
        raise BadRequest(too_deep)
    if not isinstance(body, dict):
        raise BadRequest(f"expected a JSON object, got {type(body).__name__}")
    return body


def _project(body: Mapping[str, Any]) -> str | None:
    project = body.get("project")
    if project is None:
        return None
    if isinstance(project, bool) or not isinstance(project, str | int):
        raise BadRequest("'project' must be a string like '<id>.<timestamp>'")
    return str(project)


def _is_authorised(given: Authorization | None, auth: tuple[str, str]) -> bool:
    """HTTP basic credentials equal to ``auth``, compared in constant time."""
    return (
        given is not None
        and given.type == "basic"
        and hmac.compare_digest((given.username or "").encode(), auth[0].encode())
        and hmac.compare_digest((given.password or "").encode(), auth[1].encode())
    )


def _tasks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Read the ``tasks`` of a ``/predict`` body, checked against the shape Label Studio sends.

    Each is an object whose ``data`` and ``predictions`` have Label Studio's shapes; anything else
    is a 400 naming the task.
    """
    tasks = body.get("tasks")
    if not isinstance(tasks, list):
        raise BadRequest("'tasks' must be a list of task objects")
    for n, task in enumerate(tasks):
        if not isinstance(task, dict):
            raise BadRequest(f"task {n} is not an object")
        if "data" in task and not isinstance(task["data"], dict):
            raise BadRequest(f"task {n}: 'data' is not an object")
        if "predictions" in task and not isinstance(task["predictions"], list):
            raise BadRequest(f"task {n}: 'predictions' is not a list")
    return tasks


def create_app(
    source: PredictionSource,
    *,
    basic_auth: tuple[str, str] | None = None,
    auth_from_env: bool = True,
) -> Flask:
    """Build the WSGI app around ``source``.

    Args:
        source: where the answers come from, and where events go.
        basic_auth: ``(user, password)`` required of every request; None reads them from
            :data:`AUTH_USER_ENV` / :data:`AUTH_PASSWORD_ENV` (when ``auth_from_env``).
        auth_from_env: whether the environment may turn auth on when ``basic_auth`` is None.

    Returns:
        The Flask app (its routes are in the module docstring).

    Raises:
        TypeError: when ``source`` does not implement :class:`PredictionSource`.
        ValueError: when only one of the two environment variables is set.
    """
    if not isinstance(source, PredictionSource):
        raise TypeError("source must implement PredictionSource")
    auth = basic_auth if basic_auth is not None else (_auth_from_env() if auth_from_env else None)
    app = Flask("hume_ml_backend")
    app.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["hume_source"] = source

    @app.before_request
    def _check_auth() -> Any:
        if auth is None:
            return None
        if _is_authorised(request.authorization, auth):
            return None
        response, status = _error(401, "authentication required (HTTP basic auth)")
        response.headers["WWW-Authenticate"] = 'Basic realm="hume-ml-backend"'
        return response, status

    @app.errorhandler(BadRequest)
    def _bad_request(exc: BadRequest) -> Any:
        return _error(400, str(exc))

    @app.errorhandler(PayloadTooLarge)
    def _too_large(exc: PayloadTooLarge) -> Any:
        return _error(413, str(exc))

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        return _error(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Any:
        log.exception("ML backend request failed: %s %s", request.method, request.path)
        return _error(500, f"internal error ({type(exc).__name__}); see the backend's log")

    @app.get("/")
    @app.get("/health")
    def health() -> Any:
        return jsonify(
            {"status": "UP", "model_class": "HumeSealedPredictions", **source.describe()}
        )

    @app.post("/setup")
    def setup() -> Any:
        body = _json_object()
        return jsonify({"model_version": source.model_version(_project(body))})

    @app.post("/predict")
    def predict() -> Any:
        body = _json_object()
        tasks = _tasks(body)
        results = source.predict(tasks, _project(body))
        if len(results) != len(tasks):  # Label Studio would mismatch answers and tasks
            raise RuntimeError(f"source answered {len(results)} items for {len(tasks)} tasks")
        return jsonify({"results": results})

    @app.post("/webhook")
    def webhook() -> Any:
        body = _json_object(MAX_WEBHOOK_BYTES)
        action = body.get("action")
        if not isinstance(action, str) or not action:
            raise BadRequest("a webhook event needs an 'action' string")
        source.record_event(body)
        return jsonify({"status": "ok"}), 201

    return app
