"""hume's ML backend (``hume-ml-backend``) connected to every project hume makes.

Why: Label Studio asks an ML backend for predictions only in projects it is connected to, and a
team would otherwise connect it by hand in each project's settings on each annotator's server
(two annotators and 13 subsets: 26 connections), or "Retrieve predictions" finds nothing after
the close. The backend's URL is given once (``hume-sync setup --ml-backend URL``) and recorded
in the study (meta ``ml_backend_url``); every later ``setup`` connects it to each project that
lacks it, and ``status`` says where it is missing or where Label Studio cannot reach it.

The connection is recognised by its title (:data:`TITLE`), not by its URL, so that a new URL
(the backend moved) updates the connection in place instead of adding a second one. Its basic
auth comes from the environment only, under the names the backend itself reads
(``ML_BACKEND_USER`` / ``ML_BACKEND_PASSWORD``, :mod:`ml_backend.app`); the password never
appears in the store, in output or in errors. Label Studio itself refuses to connect a backend
it cannot reach (it calls ``/health`` and ``/setup`` first), so a backend that is down is
reported, never connected blind. Connecting changes nothing about sealing: the backend answers
``/predict`` with nothing until the study is closed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from hume_sync.errors import SetupError
from hume_sync.labelstudio.client import LabelStudioClient, LabelStudioError
from hume_sync.store import Store
from hume_sync.store.meta import ML_BACKEND_URL
from ml_backend.app import AUTH_PASSWORD_ENV, AUTH_USER_ENV

#: The title of hume's connection in each project (how setup finds it again).
TITLE = "hume-ml-backend"
#: Label Studio's connection states (``MLBackendState``): connected, disconnected, error.
CONNECTED = "CO"


@dataclass(frozen=True)
class Backend:
    """Where Label Studio reaches hume's ML backend, and with which basic auth."""

    url: str
    user: str | None = None
    password: str | None = field(default=None, repr=False)

    def fields(self) -> dict[str, Any]:
        """What Label Studio's ML API is sent to connect it (title, URL, auth)."""
        out: dict[str, Any] = {"url": self.url, "title": TITLE, "is_interactive": False}
        if self.user:
            out.update(auth_method="BASIC_AUTH", basic_auth_user=self.user)
            out["basic_auth_pass"] = self.password
        else:
            out["auth_method"] = "NONE"
        return out

    def scrub(self, text: str) -> str:
        return text.replace(self.password, "***") if self.password else text


def check_url(url: str) -> str:
    """The URL without a trailing slash; a one-line error when it cannot be one to connect."""
    url = url.strip().rstrip("/")
    try:
        parts = urlsplit(url)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise SetupError(f"--ml-backend must be an http:// or https:// URL, got {url!r}")
    if "@" in parts.netloc:
        raise SetupError(
            f"--ml-backend: give the basic auth in {AUTH_USER_ENV} and {AUTH_PASSWORD_ENV}, "
            "not in the URL"
        )
    return url


def auth_from_env() -> tuple[str | None, str | None]:
    """(user, password) from the backend's own variables; both or neither."""
    user = os.environ.get(AUTH_USER_ENV, "").strip() or None
    password = os.environ.get(AUTH_PASSWORD_ENV, "") or None
    if bool(user) != bool(password):
        raise SetupError(f"set both {AUTH_USER_ENV} and {AUTH_PASSWORD_ENV}, or neither")
    return user, password


def configured_url(store: Store) -> str | None:
    """The backend URL recorded in the study, if any."""
    return store.study_meta().ml_backend_url or None


def study_backend(store: Store, url: str | None = None) -> Backend | None:
    """The study's backend: ``url`` (checked, then recorded in the study) or the one recorded
    before; None when the study has none. Auth from the environment (:func:`auth_from_env`)."""
    user, password = auth_from_env()
    if url is not None:
        store.set_meta({ML_BACKEND_URL: check_url(url)})
    recorded = configured_url(store)
    if recorded is None:
        return None
    return Backend(recorded, user, password)


def hume_connections(client: LabelStudioClient, project_id: int) -> list[dict[str, Any]]:
    """hume's connections of a project (by :data:`TITLE`), as Label Studio checked them now."""
    return [b for b in client.list_ml_backends(project_id) if b.get("title") == TITLE]


def connect(client: LabelStudioClient, project_id: int, backend: Backend) -> str:
    """Connect ``backend`` to the project, once: ``"connected"`` (new), ``"updated"`` (ours was
    there with another URL or user, or Label Studio could not use it: a new password), or
    ``"present"`` (nothing sent; also when ``backend`` has no auth and ours works with one).
    Raises :class:`SetupError` (one line, no password) when Label Studio refuses, e.g. because
    it cannot reach the backend."""
    try:
        ours = hume_connections(client, project_id)
        if not ours:
            client.create_ml_backend(project_id, **backend.fields())
            return "connected"
        current = ours[0]
        # A shell without the auth variables (a ``pull`` run elsewhere) keeps a working
        # connection's auth instead of stripping it: only a given user is compared.
        same = str(current.get("url") or "").rstrip("/") == backend.url and (
            backend.user is None or (current.get("basic_auth_user") or None) == backend.user
        )
        if same and current.get("state") == CONNECTED:
            return "present"
        client.update_ml_backend(int(current["id"]), **backend.fields())
        return "updated"
    except LabelStudioError as exc:
        raise SetupError(
            backend.scrub(f"ML backend {backend.url} not connected to project {project_id}: {exc}")
        ) from None


@dataclass(frozen=True)
class Connection:
    """hume's ML backend as one project's server sees it: ``state`` is ``"connected"``,
    ``"missing"`` (no connection: removed by hand, or setup not run with it) or
    ``"unreachable"`` (connected, but Label Studio cannot use it; ``reason`` says why)."""

    state: str
    reason: str = ""


def connection(client: LabelStudioClient, project_id: int) -> Connection:
    """How the project's server sees hume's backend now (it checks it as it answers)."""
    ours = hume_connections(client, project_id)
    if not ours:
        return Connection("missing")
    if any(b.get("state") == CONNECTED for b in ours):
        return Connection("connected")
    b = ours[0]
    reason = str(b.get("error_message") or "").strip().splitlines()
    why = reason[0][:200] if reason else f"Label Studio cannot reach {b.get('url')}"
    return Connection("unreachable", why)
