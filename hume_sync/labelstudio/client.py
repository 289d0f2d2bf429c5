"""A thin, safe wrapper around `label_studio_sdk.LabelStudio` for the study commands.

Why a wrapper: the SDK's defaults do not fit a study tool. It falls back to port 8000 and to
LABEL_STUDIO_API_KEY read at import time (so base_url and api_key are always passed here); it
retries 409 and every POST on 5xx (a retried import after a timeout can duplicate tasks); and its
errors print response headers and bodies. Here every call goes through `_call`, which

- retries connection failures, timeouts and 5xx a bounded number of times with backoff for
  reads and other idempotent calls; calls that create things (projects, tasks, annotations,
  predictions) are retried only when the request cannot have been processed (connection refused,
  connect timeout, HTTP 503), so a retry never creates duplicates;
- never retries 4xx;
- raises `LabelStudioError` subclasses with a one-line message naming the URL and the operation,
  never the token.

Results come back as plain JSON dicts (the SDK's models dumped with their aliases).
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx
import ijson
from label_studio_sdk import LabelStudio
from label_studio_sdk.core.api_error import ApiError
from label_studio_sdk.core.request_options import RequestOptions

from hume_sync.errors import (
    LabelStudioAuthError,
    LabelStudioError,
    LabelStudioNotFoundError,
    LabelStudioRequestError,
    LabelStudioServerError,
    LabelStudioTimeoutError,
    LabelStudioUnreachableError,
)
from hume_sync.labelstudio import urls

__all__ = [
    "AnnotatedTasks",
    "LabelStudioAuthError",
    "LabelStudioClient",
    "LabelStudioError",
    "LabelStudioNotFoundError",
    "LabelStudioRequestError",
    "LabelStudioServerError",
    "LabelStudioTimeoutError",
    "LabelStudioUnreachableError",
]

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_TRIES = 3
DEFAULT_BACKOFF_S = 0.5
# Tasks per import request at most, and JSON bytes per request at most: one request per
# project for any study hume makes, far below what Label Studio accepts
# (DATA_UPLOAD_MAX_MEMORY_SIZE, 250 MiB by default). 50,000 short tasks in one request took
# 12-18 s on the embedded server (benchmarks/setup.py), well inside DEFAULT_TIMEOUT_S; a cap of
# 20,000 cost three requests there and 1.4x Label Studio's own single import. Predictions are
# imported IMPORT_BATCH_SIZE at a time.
IMPORT_BATCH_SIZE = 500
IMPORT_MAX_TASKS = 50_000
IMPORT_MAX_BYTES = 32 * 1024 * 1024
PAGE_SIZE = 100
# Tasks per page when annotations are read through the tasks API (a few pages per study).
TASK_PAGE_SIZE = 1000
# Tasks per page when only their ids and data are read (setup): Community sets no upper bound
# (TASK_API_PAGE_SIZE_MAX unset), and 10,000 short tasks are a few MB.
REF_PAGE_SIZE = 10_000
# Task ids named in one request for chosen tasks (:meth:`LabelStudioClient.tasks_by_id`): the
# ids travel in the query string, so a few kilobytes at most.
SELECTION_SIZE = 500
# Bytes read at a time from a JSON export (parsed incrementally: memory stays one chunk).
EXPORT_CHUNK_BYTES = 1 << 16
# How the Data Manager's Datetime filters want their value (data_manager/managers.py).
LS_DATETIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
# Label Studio writes a whole export file before it sends the first byte (about 70 s for 50,000
# annotations in one project on SQLite): an export may wait that long for its answer.
EXPORT_TIMEOUT_S = 900.0
# Project fields that `project_counts` reports (all present in Community's project response).
COUNT_FIELDS = (
    "task_number",
    "num_tasks_with_annotations",
    "total_annotations_number",
    "finished_task_number",
    "skipped_annotations_number",
    "total_predictions_number",
)


def _plain(obj: Any) -> Any:
    """SDK models (pydantic) to JSON-like dicts/lists, keeping only what the server sent."""
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    if isinstance(obj, Mapping):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    if hasattr(obj, "json") and callable(obj.json):
        return json.loads(obj.json())
    return obj


class AnnotatedTasks(Iterator[dict[str, Any]]):
    """The annotated tasks of one project as they arrive (:meth:`LabelStudioClient.
    export_annotated_tasks`). Iterate it to the end, or ``close()`` it (it is also a context
    manager): that releases the connection and removes the export's files."""

    def __init__(
        self, tasks: Iterator[dict[str, Any]], resources: contextlib.ExitStack | None = None
    ) -> None:
        self._tasks = tasks
        self._resources = resources or contextlib.ExitStack()

    def __iter__(self) -> AnnotatedTasks:
        return self

    def __next__(self) -> dict[str, Any]:
        try:
            return next(self._tasks)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        close = getattr(self._tasks, "close", None)
        if close is not None:
            close()
        self._resources.close()

    def __enter__(self) -> AnnotatedTasks:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self._resources.close()


def _changed_since(since: datetime, *, ordered: bool) -> str:
    """A Data Manager query for the tasks whose ``updated_at`` is ``since`` or later."""
    query: dict[str, Any] = {
        "filters": {
            "conjunction": "and",
            "items": [
                {
                    "filter": "filter:tasks:updated_at",
                    "operator": "greater_or_equal",
                    "type": "Datetime",
                    "value": since.astimezone(UTC).strftime(LS_DATETIME_FORMAT),
                }
            ],
        }
    }
    if ordered:
        query["ordering"] = ["tasks:updated_at"]
    return json.dumps(query)


def _json_size(value: Any) -> int:
    """Bytes of ``value`` as the request body carries it (UTF-8 JSON)."""
    return len(json.dumps(value, ensure_ascii=False).encode())


class LabelStudioClient:
    """Label Studio calls the study commands need, with bounded retries and safe errors."""

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        tries: int = DEFAULT_TRIES,
        backoff: float = DEFAULT_BACKOFF_S,
        data_dir: str | Path | None = None,
    ) -> None:
        """``data_dir``: the server's data folder when it is on this machine and hume's to tidy
        (the embedded server); see :meth:`export_annotated_tasks`."""
        if not url or not api_key:
            raise ValueError("LabelStudioClient needs both a URL and an API key")
        urls.checked(url)  # no password in a URL every error message would print
        if tries < 1:
            raise ValueError("tries must be at least 1")
        self._url = url.rstrip("/")
        self._api_key = api_key
        self._timeout = float(timeout)
        self._tries = tries
        self._backoff = backoff
        self._export_dir = Path(data_dir) / "export" if data_dir is not None else None
        # max_retries=0: retries are decided here (the SDK would retry 409 and non-idempotent 5xx).
        self._ls = LabelStudio(
            base_url=self._url, api_key=api_key, timeout=self._timeout, max_retries=0
        )

    @classmethod
    def from_env_or_embedded(cls, **kwargs: Any) -> LabelStudioClient:
        """LABEL_STUDIO_URL + LABEL_STUDIO_API_KEY, else the embedded server's credentials."""
        from .server import connection_from_env_or_embedded, embedded_data_dir

        url, token = connection_from_env_or_embedded()
        kwargs.setdefault("data_dir", embedded_data_dir(url))
        return cls(url, token, **kwargs)

    @property
    def url(self) -> str:
        return self._url

    @property
    def sdk(self) -> LabelStudio:
        """The underlying SDK client, for calls not wrapped here (no retries, raw errors)."""
        return self._ls

    def __repr__(self) -> str:
        return f"LabelStudioClient(url={self._url!r})"

    # -- error handling -------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text

    def _detail(self, body: Any) -> str:
        """A short, one-line, token-free excerpt of an error body (e.g. a config validation)."""
        if body is None or body == "":
            return ""
        if isinstance(body, Mapping):
            body = body.get("validation_errors") or body.get("detail") or body
        text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
        if re.search(r"<\s*(html|!doctype)", text, re.IGNORECASE):
            return ""  # an HTML error page says nothing useful in one line
        text = self._scrub(" ".join(text.split()))
        return text[:300] + ("…" if len(text) > 300 else "")

    def _http_error(
        self, operation: str, status: int, body: Any, attempts: int
    ) -> LabelStudioError:
        at = f"Label Studio at {self._url}"
        kw: dict[str, Any] = {
            "url": self._url,
            "operation": operation,
            "status_code": status,
            "attempts": attempts,
        }
        detail = self._detail(body)
        suffix = f": {detail}" if detail else ""
        if status == 401:
            return LabelStudioAuthError(f"{at} rejected the API token (401) ({operation})", **kw)
        if status == 403:
            return LabelStudioAuthError(
                f"{at} refused access with this API token (403) ({operation}){suffix}", **kw
            )
        if status == 404:
            return LabelStudioNotFoundError(f"{at}: not found (404) ({operation}){suffix}", **kw)
        if status >= 500:
            tries = f" after {attempts} tries" if attempts > 1 else ""
            return LabelStudioServerError(
                f"{at} failed with HTTP {status}{tries} ({operation}){suffix}", **kw
            )
        return LabelStudioRequestError(
            f"{at} rejected the request with HTTP {status} ({operation}){suffix}", **kw
        )

    def _call(self, operation: str, fn: Callable[[], T], *, idempotent: bool = True) -> T:
        """Run `fn` with bounded retries; turn every failure into a LabelStudioError."""
        attempt = 0
        while True:
            attempt += 1
            last = attempt >= self._tries
            try:
                return fn()
            except ApiError as exc:
                status = exc.status_code
                if status is None:  # raised by the SDK itself, not by an HTTP answer
                    raise LabelStudioError(
                        f"Label Studio client error ({operation}): {self._detail(exc.body)}",
                        url=self._url,
                        operation=operation,
                    ) from None
                retry = status >= 500 and (idempotent or status == 503)
                if not retry or last:
                    error = self._http_error(operation, status, exc.body, attempt)
                    if status >= 500 and not idempotent and status != 503:
                        error.args = (f"{error}; it may have been applied, check before redoing",)
                    raise error from None
            except httpx.TimeoutException as exc:
                # A connect timeout never reached the server; a read timeout may have been applied.
                retry = idempotent or isinstance(exc, httpx.ConnectTimeout)
                if not retry or last:
                    raise LabelStudioTimeoutError(
                        f"Label Studio at {self._url} did not answer within "
                        f"{self._timeout:g} s ({operation})"
                        + (f" after {attempt} tries" if attempt > 1 else "")
                        + ("" if retry else "; it may have been applied, check before redoing"),
                        url=self._url,
                        operation=operation,
                        attempts=attempt,
                    ) from None
            except httpx.ConnectError:
                if last:
                    raise LabelStudioUnreachableError(
                        f"Label Studio at {self._url} is not reachable ({operation})",
                        url=self._url,
                        operation=operation,
                        attempts=attempt,
                    ) from None
            except httpx.TransportError as exc:
                # Dropped connection, protocol error: the request may have been processed.
                if not idempotent or last:
                    raise LabelStudioUnreachableError(
                        f"Label Studio at {self._url} closed the connection ({operation}): "
                        f"{type(exc).__name__}"
                        + (
                            "" if idempotent else "; it may have been applied, check before redoing"
                        ),
                        url=self._url,
                        operation=operation,
                        attempts=attempt,
                    ) from None
            time.sleep(self._backoff * (2 ** (attempt - 1)))

    # -- projects ---------------------------------------------------------------------------

    def whoami(self) -> dict[str, Any]:
        """The token owner's user record (checks URL and token in one call)."""
        return _plain(self._call("who am I", lambda: self._ls.users.whoami()))

    def create_project(
        self,
        title: str,
        label_config: str,
        maximum_annotations: int,
        show_collab_predictions: bool = False,
        **fields: Any,
    ) -> dict[str, Any]:
        """Create a project; re-asserts `show_collab_predictions` unless the server's answer
        already shows it as asked."""
        op = f"create project {title!r}"
        created = self._call(
            op,
            lambda: self._ls.projects.create(
                title=title,
                label_config=label_config,
                maximum_annotations=maximum_annotations,
                show_collab_predictions=show_collab_predictions,
                **fields,
            ),
            idempotent=False,
        )
        project = _plain(created)
        if bool(project.get("show_collab_predictions")) == show_collab_predictions:
            return project  # the server's own answer says it kept the flag: no second read
        return self.assert_collab_predictions(int(project["id"]), show_collab_predictions)

    def assert_collab_predictions(self, project_id: int, show: bool = False) -> dict[str, Any]:
        """Make sure the project shows (or hides) predictions to annotators; the project.

        Label Studio's own bookkeeping (setting the flag clears `model_version`, importing
        predictions sets it again) makes this worth re-checking after every prediction upload.
        """
        project = self.get_project(project_id)
        if bool(project.get("show_collab_predictions")) != show:
            project = self.update_project(project_id, show_collab_predictions=show)
            if bool(project.get("show_collab_predictions")) != show:
                raise LabelStudioError(
                    f"Label Studio at {self._url} did not keep show_collab_predictions={show} "
                    f"(project {project_id})",
                    url=self._url,
                    operation="set show_collab_predictions",
                )
        return project

    def get_project(self, project_id: int, fields: Sequence[str] = ()) -> dict[str, Any]:
        """A project as Label Studio describes it; ``fields``: only these (its ``include``
        parameter: the counters not asked for are not computed, which at 100,000 tasks is most
        of the request's cost), else every field."""
        options: RequestOptions | None = (
            {"additional_query_parameters": {"include": ",".join(fields)}} if fields else None
        )
        return _plain(
            self._call(
                f"get project {project_id}",
                lambda: self._ls.projects.get(id=project_id, request_options=options),
            )
        )

    def list_projects(self, include: str | None = None) -> list[dict[str, Any]]:
        """All projects the token can see (all pages); ``include`` names the only fields to
        return (e.g. ``"id,title,description"``: Label Studio then counts no tasks)."""

        def fetch(n: int) -> tuple[list[dict[str, Any]], int]:
            pager: Any = self._ls.projects.list(page=n, page_size=PAGE_SIZE, include=include)
            return [_plain(p) for p in pager.items or []], int(pager.response.count)

        return [p for page in self._pages("list projects", fetch, PAGE_SIZE) for p in page]

    def find_projects_by_marker(self, marker: str) -> list[dict[str, Any]]:
        """Projects whose description carries ``marker`` (hume's identity mark, never a title).
        Only ids, titles and descriptions are asked for: the per-project counters that a plain
        project list computes grow with every project's size."""
        return [
            p
            for p in self.list_projects(include="id,title,description")
            if marker in str(p.get("description") or "")
        ]

    def update_project(self, project_id: int, **fields: Any) -> dict[str, Any]:
        """PATCH project fields (idempotent: the same values can be sent twice)."""
        names = ", ".join(sorted(fields)) or "nothing"
        return _plain(
            self._call(
                f"update project {project_id} ({names})",
                lambda: self._ls.projects.update(id=project_id, **fields),
            )
        )

    def delete_project(self, project_id: int) -> None:
        self._call(f"delete project {project_id}", lambda: self._ls.projects.delete(id=project_id))

    def project_counts(self, project_id: int) -> dict[str, int]:
        """Progress counters of a project (tasks, annotated tasks, annotations, ...)."""
        project = self.get_project(project_id)
        return {k: int(project.get(k) or 0) for k in COUNT_FIELDS}

    def list_project_counts(self) -> dict[int, dict[str, int]]:
        """Progress counters of every visible project in one paged call (/api/projects/counts/)."""

        def fetch() -> dict[int, dict[str, int]]:
            out: dict[int, dict[str, int]] = {}
            page = 1
            while True:
                resp = _plain(self._ls.projects.list_counts(page=page, page_size=PAGE_SIZE))
                for row in resp.get("results") or []:
                    out[int(row["id"])] = {k: int(row.get(k) or 0) for k in COUNT_FIELDS}
                if not resp.get("next"):
                    return out
                page += 1

        return self._call("list project counts", fetch)

    # -- ML backends (hume_sync.labelstudio.ml_backends) ------------------------------------

    def list_ml_backends(self, project_id: int) -> list[dict[str, Any]]:
        """The ML backends connected to a project. Label Studio checks each one (``/health``,
        then ``/setup``) before it answers, so ``state`` is fresh: ``CO`` connected, ``DI``
        unreachable, ``ER`` answered with an error (``error_message``)."""
        return _plain(
            self._call(
                f"list ML backends of project {project_id}",
                lambda: self._ls.ml.list(project=project_id),
            )
        )

    def create_ml_backend(self, project_id: int, url: str, **fields: Any) -> dict[str, Any]:
        """Connect an ML backend to a project (Label Studio refuses one it cannot reach)."""
        return _plain(
            self._call(
                f"connect ML backend to project {project_id}",
                lambda: self._ls.ml.create(project=project_id, url=url, **fields),
                idempotent=False,
            )
        )

    def update_ml_backend(self, backend_id: int, **fields: Any) -> dict[str, Any]:
        """PATCH an ML backend connection (idempotent)."""
        return _plain(
            self._call(
                f"update ML backend {backend_id}",
                lambda: self._ls.ml.update(id=backend_id, **fields),
            )
        )

    # -- tasks, annotations, predictions ---------------------------------------------------

    def import_tasks(
        self,
        project_id: int,
        tasks: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = IMPORT_MAX_TASKS,
        max_bytes: int = IMPORT_MAX_BYTES,
    ) -> list[int]:
        """Import tasks (`{"data": {...}}` each); the new task ids, in input order.

        As few requests as Label Studio accepts: a request carries up to ``batch_size`` tasks
        and ``max_bytes`` of JSON (Label Studio's own limit is DATA_UPLOAD_MAX_MEMORY_SIZE,
        250 MiB by default; a proxy in front may allow less). A request refused as too large
        (HTTP 413: nothing was imported) is split in two and sent again.
        """
        given = list(tasks)
        for n, task in enumerate(given):
            if not isinstance(task, Mapping) or not isinstance(task.get("data"), Mapping):
                raise ValueError(f"task {n} has no 'data' mapping")
        batch_list = [dict(t) for t in given]
        limit = max(1, batch_size)
        if len(batch_list) <= limit and _json_size(batch_list) <= max_bytes:
            sizes = [0] * len(batch_list)  # all in one request: one encoding, not one per task
        else:
            sizes = [_json_size(t) + 2 for t in batch_list]
        ids: list[int] = []
        start = 0
        while start < len(batch_list):
            end, size = start, 0
            while end < len(batch_list) and end - start < limit:
                if end > start and size + sizes[end] > max_bytes:
                    break
                size += sizes[end]
                end += 1
            try:
                ids.extend(self._import_batch(project_id, batch_list[start:end], start))
            except LabelStudioRequestError as exc:
                if exc.status_code != 413 or end - start == 1:
                    raise
                limit = (end - start + 1) // 2  # too large for this server: halve, resend
                continue
            start = end
        return ids

    def _import_batch(self, project_id: int, batch: list[dict[str, Any]], offset: int) -> list[int]:
        op = f"import tasks {offset + 1}-{offset + len(batch)} into project {project_id}"
        resp = self._call(
            op,
            lambda: self._ls.projects.import_tasks(
                # the SDK sends plain task dicts as they are; its stubs name a model class
                id=project_id,
                request=batch,  # type: ignore[arg-type]
                return_task_ids=True,
            ),
            idempotent=False,
        )
        got = list(getattr(resp, "task_ids", None) or [])
        if len(got) != len(batch):
            raise LabelStudioError(
                f"Label Studio at {self._url} returned {len(got)} task ids for "
                f"{len(batch)} imported tasks ({op})",
                url=self._url,
                operation=op,
            )
        return [int(i) for i in got]

    def list_tasks(self, project_id: int, *, page_size: int = PAGE_SIZE) -> list[dict[str, Any]]:
        """Every task of a project with its annotations and predictions (fields="all")."""
        return [
            t
            for page in self._task_list_pages(project_id, page_size=page_size, fields="all")
            for t in page
        ]

    def tasks_by_id(self, project_id: int, task_ids: Sequence[int]) -> list[dict[str, Any]]:
        """The named tasks of a project with their annotations and predictions (``fields=all``),
        :data:`SELECTION_SIZE` ids a request (the Data Manager's ``selectedItems``, which the
        tasks API reads from its ``query``). A task not in the project is not returned."""
        out: list[dict[str, Any]] = []
        ids = [int(t) for t in task_ids]
        for start in range(0, len(ids), SELECTION_SIZE):
            chosen = ids[start : start + SELECTION_SIZE]
            query = json.dumps({"selectedItems": {"all": False, "included": chosen}})
            pages = self._task_list_pages(
                project_id, page_size=len(chosen), fields="all", query=query
            )
            out += [t for page in pages for t in page]
        return out

    def task_refs(self, project_id: int) -> list[tuple[int, Any]]:
        """(task id, task data) of every task of a project, and nothing else: no annotations,
        predictions or per-task counters (``include=id,data``), :data:`REF_PAGE_SIZE` tasks a
        page. What ``setup`` needs to tell which tasks a project already has."""
        pages = self._task_list_pages(
            project_id, page_size=REF_PAGE_SIZE, fields="task_only", include="id,data"
        )
        return [(int(t["id"]), t.get("data")) for page in pages for t in page]

    def count_tasks_between(self, project_id: int, first_id: int, last_id: int) -> int:
        """How many tasks of a project have an id from ``first_id`` to ``last_id`` (inclusive):
        one request, whatever the project's size (a Data Manager id filter; the answer's
        ``total`` is the count, and its one-task page is all that is serialised)."""
        query = {
            "filters": {
                "conjunction": "and",
                "items": [
                    {
                        "filter": "filter:tasks:id",
                        "operator": "in",
                        "type": "Number",
                        "value": {"min": int(first_id), "max": int(last_id)},
                    }
                ],
            }
        }

        def fetch() -> int:
            pager: Any = self._ls.tasks.list(
                project=project_id,
                fields="task_only",
                include="id",
                page=1,
                page_size=1,
                query=json.dumps(query),
            )
            return int(pager.response.total)

        return self._call(f"count tasks {first_id}-{last_id} of project {project_id}", fetch)

    def changed_tasks(self, project_id: int, since: datetime) -> Iterator[dict[str, Any]]:
        """Every task of a project whose ``updated_at`` is ``since`` or later, with its
        annotations (``fields=all``), oldest change first, :data:`TASK_PAGE_SIZE` a page.

        Label Studio moves a task's ``updated_at`` whenever one of its annotations is created,
        changed or deleted (``Annotation.save`` and ``delete`` save the task), so this is what
        changed in the project since then; a task whose annotations were all deleted comes with
        none. The first page is asked for at once (a missing project raises here)."""
        pages = self._task_list_pages(
            project_id,
            page_size=TASK_PAGE_SIZE,
            fields="all",
            query=_changed_since(since, ordered=True),
        )
        return (t for page in pages for t in page)

    def count_changed_tasks(self, project_id: int, since: datetime) -> int:
        """How many tasks of a project have an ``updated_at`` of ``since`` or later: one request
        (its one-task page is all that is serialised)."""

        def fetch() -> int:
            pager: Any = self._ls.tasks.list(
                project=project_id,
                fields="task_only",
                include="id",
                page=1,
                page_size=1,
                query=_changed_since(since, ordered=False),
            )
            return int(pager.response.total)

        return self._call(f"count changed tasks of project {project_id}", fetch)

    def _task_list_pages(
        self,
        project_id: int,
        *,
        page_size: int,
        fields: str,
        include: str | None = None,
        query: str | None = None,
    ) -> Iterator[list[dict[str, Any]]]:
        """The pages of a project's tasks API (each with its own retries), up to the last one
        the first answer's ``total`` says there is (:meth:`_pages`)."""

        def fetch(n: int) -> tuple[list[dict[str, Any]], int]:
            pager: Any = self._ls.tasks.list(
                project=project_id,
                fields=fields,
                include=include,
                page=n,
                page_size=page_size,
                query=query,
            )
            return [_plain(t) for t in pager.items or []], int(pager.response.total)

        return self._pages(f"list tasks of project {project_id}", fetch, page_size)

    def _pages(
        self, op: str, fetch: Callable[[int], tuple[list[T], int]], page_size: int
    ) -> Iterator[list[T]]:
        """Pages 1, 2, ... of a listing, asking for none past the last.

        ``fetch(n)`` reads page ``n`` and the listing's total count (Label Studio sends it with
        every page: ``total`` for tasks, ``count`` for projects). The SDK's own pagers ask for
        one page more until Label Studio answers 404 "Invalid page", which the server logs as an
        ERROR with a full traceback: a failure in the log that is not one. Here the listing ends
        at page ``ceil(total / page_size)``, or earlier at a short or empty page (tasks removed
        meanwhile); a 404 past page 1 (the list shrank between pages) also ends it. The first
        page is read at once, so that a missing project raises here.
        """
        size = max(1, int(page_size))
        first = self._call(op, lambda: fetch(1))

        def pages() -> Iterator[list[T]]:
            items, total = first
            n = 1
            while True:
                yield items
                if len(items) < size or n * size >= total:
                    return
                n += 1
                try:
                    items, total = self._call(f"{op} (page {n})", functools.partial(fetch, n))
                except LabelStudioNotFoundError:
                    return

        return pages()

    def export_annotated_tasks(self, project_id: int) -> AnnotatedTasks:
        """Every task that has annotations (skipped ones included), with its annotations,
        streamed: one task at a time, never the whole project in memory.

        The request is made here (a missing project raises :class:`LabelStudioNotFoundError`
        now, with the usual bounded retries); the tasks then arrive as they are iterated, and a
        connection that breaks half-way raises a :class:`LabelStudioError` from the iteration.

        Label Studio 1.23.2 keeps a file in its data folder for every export, and no API call
        removes it (deleting an export snapshot leaves its file: the flag that would remove it
        is pinned off). So:

        - when this client knows the server's data folder (the embedded server), the tasks come
          from Label Studio's JSON export, one request per project (about 2× faster than the
          tasks API: 5.7 s against 12.2 s for 3,000 tasks with 2 annotations each), parsed
          incrementally as it downloads (ijson), and the two files that export wrote are
          deleted once it has been read (or abandoned);
        - otherwise they come from the tasks API (``fields=all``, :data:`TASK_PAGE_SIZE` tasks
          a page, one page in memory at a time), which writes nothing on the server.

        Predictions come as ids (export) or objects (tasks API); pull reads neither.
        """
        if self._export_dir is None:
            return AnnotatedTasks(self._task_pages(project_id))
        op = f"export annotations of project {project_id}"
        stack = contextlib.ExitStack()

        def open_export() -> Any:
            with contextlib.ExitStack() as attempt:
                response = attempt.enter_context(
                    self._ls.projects.exports.with_raw_response.download_sync(
                        id=project_id,
                        export_type="JSON",
                        download_all_tasks=False,
                        request_options={
                            "chunk_size": EXPORT_CHUNK_BYTES,
                            "timeout": max(self._timeout, EXPORT_TIMEOUT_S),
                        },
                    )
                )
                stack.push(attempt.pop_all())  # keep the response open for the stream
                return response

        try:
            response = self._call(op, open_export)
        except BaseException:
            stack.close()
            raise
        name = str(response.headers.get("filename") or "")
        stack.callback(self._remove_export_files, project_id, name)
        return AnnotatedTasks(self._parse_export(op, response.data), stack)

    def _parse_export(self, op: str, chunks: Iterable[bytes]) -> Iterator[dict[str, Any]]:
        """The tasks of a JSON export (a list of task objects) as its bytes arrive."""

        def not_a_list() -> LabelStudioError:
            return LabelStudioError(
                f"Label Studio at {self._url} sent an export that is not a JSON list of tasks "
                f"({op})",
                url=self._url,
                operation=op,
            )

        tasks = ijson.sendable_list()
        parser = ijson.items_coro(tasks, "item", use_float=True)
        started = False
        try:
            for chunk in chunks:
                if not chunk:
                    continue
                if not started:
                    if not chunk.lstrip():
                        continue
                    if not chunk.lstrip().startswith(b"["):
                        raise not_a_list()
                    started = True
                parser.send(chunk)
                for task in tasks:
                    if not isinstance(task, dict):
                        raise not_a_list()
                    yield task
                del tasks[:]
            parser.close()
            for task in tasks:  # whatever the last chunk completed
                if not isinstance(task, dict):
                    raise not_a_list()
                yield task
        except ijson.JSONError:
            raise not_a_list() from None
        except httpx.TimeoutException:
            raise LabelStudioTimeoutError(
                f"Label Studio at {self._url} stopped sending within {self._timeout:g} s ({op})",
                url=self._url,
                operation=op,
            ) from None
        except httpx.TransportError as exc:
            raise LabelStudioUnreachableError(
                f"Label Studio at {self._url} closed the connection ({op}): {type(exc).__name__}",
                url=self._url,
                operation=op,
            ) from None

    def _task_pages(self, project_id: int) -> Iterator[dict[str, Any]]:
        """Annotated tasks through the tasks API, one page (each with its own retries) at a
        time; the first page is asked for at once, so that a missing project raises here."""
        pages = self._task_list_pages(project_id, page_size=TASK_PAGE_SIZE, fields="all")
        return (t for page in pages for t in page if t.get("annotations"))

    def _remove_export_files(self, project_id: int, filename: str) -> None:
        """Delete the result and info files one JSON export left in the server's export folder.

        Only names of the form ``project-<id>-at-<time>-<md5>.json`` are touched, and only inside
        the export folder, whatever the server sent.
        """
        assert self._export_dir is not None
        stem = filename[: -len(".json")] if filename.endswith(".json") else ""
        if not re.fullmatch(rf"project-{project_id}-at-[\w-]+", stem):
            return
        for path in (self._export_dir / f"{stem}.json", self._export_dir / f"{stem}-info.json"):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def get_task(self, task_id: int) -> dict[str, Any]:
        return _plain(
            self._call(f"get task {task_id}", lambda: self._ls.tasks.get(id=str(task_id)))
        )

    def create_annotation(
        self,
        task_id: int,
        result: Sequence[Mapping[str, Any]],
        lead_time: float | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """Create an annotation on a task as the token's owner (tests and demos)."""
        extra = dict(fields)
        if lead_time is not None:
            extra["lead_time"] = float(lead_time)
        return _plain(
            self._call(
                f"create annotation on task {task_id}",
                lambda: self._ls.annotations.create(
                    id=task_id, result=[dict(r) for r in result], **extra
                ),
                idempotent=False,
            )
        )

    def update_annotation(self, annotation_id: int, **fields: Any) -> dict[str, Any]:
        """Change an annotation's fields (its result, who completed it): the manager's mirror."""
        return _plain(
            self._call(
                f"update annotation {annotation_id}",
                functools.partial(self._ls.annotations.update, id=int(annotation_id), **fields),
            )
        )

    def delete_annotation(self, annotation_id: int) -> None:
        self._call(
            f"delete annotation {annotation_id}",
            functools.partial(self._ls.annotations.delete, id=int(annotation_id)),
        )

    def update_task(self, task_id: int, data: Mapping[str, Any]) -> dict[str, Any]:
        """Replace a task's data (the manager's mirror keeps its sort fields current)."""
        return _plain(
            self._call(
                f"update task {task_id}",
                functools.partial(self._ls.tasks.update, id=str(task_id), data=dict(data)),
            )
        )

    def list_annotations(self, task_id: int) -> list[dict[str, Any]]:
        return _plain(
            self._call(
                f"list annotations of task {task_id}",
                lambda: self._ls.annotations.list(id=task_id),
            )
        )

    def import_predictions(
        self,
        project_id: int,
        predictions: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = IMPORT_BATCH_SIZE,
    ) -> int:
        """Import predictions (`{task, result, model_version, score}`); how many were created.

        Afterwards `show_collab_predictions=False` is asserted again (an import resets the
        project's `model_version`, and predictions must stay out of the annotators' view).
        """
        items = [dict(p) for p in predictions]
        for n, p in enumerate(items):
            if "task" not in p or "result" not in p:
                raise ValueError(f"prediction {n} needs 'task' and 'result'")
        created = 0
        for start in range(0, len(items), batch_size):
            batch = items[start : start + batch_size]
            op = f"import predictions {start + 1}-{start + len(batch)} into project {project_id}"
            resp = self._call(
                op,
                functools.partial(  # plain prediction dicts, as import_tasks sends tasks
                    self._ls.projects.import_predictions,
                    id=project_id,
                    request=batch,  # type: ignore[arg-type]
                ),
                idempotent=False,
            )
            created += int(_plain(resp).get("created", len(batch)) or 0)
        self.assert_collab_predictions(project_id, False)
        return created

    def user_emails(self) -> dict[int, str]:
        """User id → email of the organisation's users (for the manager's status view)."""

        def fetch() -> dict[int, str]:
            out: dict[int, str] = {}
            for user in self._ls.users.list():
                u = _plain(user)
                if isinstance(u, Mapping) and u.get("id") is not None:
                    out[int(u["id"])] = str(u.get("email") or u.get("username") or "")
            return out

        return self._call("list users", fetch)

    def create_user(self, email: str, first_name: str = "", last_name: str = "") -> int:
        """Create an account that has no password (it cannot log in); its user id."""
        made = _plain(
            self._call(
                f"create the account {email}",
                functools.partial(
                    self._ls.users.create,
                    email=email,
                    username=email,
                    first_name=first_name,
                    last_name=last_name,
                ),
                idempotent=False,
            )
        )
        return int(made["id"])

    # -- users (tests and demos) ------------------------------------------------------------

    def sign_up_user(self, email: str, password: str) -> tuple[int, str]:
        """Create a user through the invite link and return (user id, that user's API token).

        `users.create` leaves the new user outside the organization and cannot set a password;
        signing up through the organization's invite link gives a complete, usable account.
        """
        op = f"sign up user {email!r}"
        invite = self._call(
            op,
            lambda: self._raw_get(
                "/api/invite", headers={"Authorization": f"Token {self._api_key}"}
            ),
        )
        token = invite.get("token") if isinstance(invite, Mapping) else None
        if not token:
            raise LabelStudioError(
                f"Label Studio at {self._url} gave no invite token ({op})",
                url=self._url,
                operation=op,
            )

        def signup() -> tuple[int, str]:
            with httpx.Client(base_url=self._url, timeout=self._timeout) as web:
                page = web.get("/user/signup/", params={"token": token})
                if page.status_code >= 400:
                    raise ApiError(status_code=page.status_code, body=None)
                resp = web.post(
                    "/user/signup/",
                    params={"token": token},
                    data={
                        "email": email,
                        "password": password,
                        "csrfmiddlewaretoken": web.cookies.get("csrftoken", ""),
                    },
                    headers={"Referer": f"{self._url}/user/signup/"},
                )
                if resp.status_code != 302:
                    raise ApiError(
                        status_code=resp.status_code if resp.status_code >= 400 else 400,
                        body="sign-up form refused (existing email or weak password?)",
                    )
                me = web.get("/api/current-user/whoami")
                tok = web.get("/api/current-user/token")
                for r in (me, tok):
                    if r.status_code != 200:
                        raise ApiError(status_code=r.status_code, body=None)
                return int(me.json()["id"]), str(tok.json()["token"])

        return self._call(op, signup, idempotent=False)

    def signup_is_open(self) -> bool:
        """Whether anyone may sign up without the invite link (and so join the organization).

        Probed without creating anything: an empty sign-up form is posted without a token.
        Label Studio answers 403 when sign-up needs the link, and shows the form's errors (200)
        when it does not.
        """
        op = "check that sign-up needs the invite link"

        def probe() -> bool:
            with httpx.Client(base_url=self._url, timeout=self._timeout) as web:
                web.get("/user/signup/")
                resp = web.post(
                    "/user/signup/",
                    data={"csrfmiddlewaretoken": web.cookies.get("csrftoken", "")},
                    headers={"Referer": f"{self._url}/user/signup/"},
                )
            if resp.status_code == 403 and "csrf" not in resp.text.lower():
                return False
            if resp.status_code == 200:
                return True
            raise ApiError(status_code=resp.status_code, body=None)

        return self._call(op, probe)

    def _raw_get(self, path: str, headers: Mapping[str, str]) -> Any:
        with httpx.Client(base_url=self._url, timeout=self._timeout) as web:
            resp = web.get(path, headers=dict(headers))
        if resp.status_code >= 400:
            raise ApiError(status_code=resp.status_code, body=None)
        return resp.json()
