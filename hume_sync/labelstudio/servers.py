"""Where each annotator's own Label Studio runs, and how hume reaches it.

Every annotator works in a Label Studio server of their own (README "Blind annotation"): in
Label Studio Community every member of an organization reads every project, and a member can
move their own account into any other organization of the same server (``PATCH
/api/users/<self>/`` with ``active_organization``), so only separate servers keep answers apart.

A server is either *embedded* (hume starts it: ``$HUME_HOME/annotators/<email>/label-studio``,
bound to 127.0.0.1, its admin token in that folder's ``credentials.json``) or *external* (a
server the team runs, registered with ``annotators add --url``; the admin token given in
``LABEL_STUDIO_API_KEY`` is kept in ``$HUME_HOME/label-studio-servers.json``). Both files are
0600; tokens are never printed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hume_sync.errors import HumeError, ServerRegistryError
from hume_sync.file_modes import private_dir
from hume_sync.labelstudio import server
from hume_sync.labelstudio.client import LabelStudioClient

REGISTRY_FILE = "label-studio-servers.json"
ANNOTATORS_DIR = "annotators"
#: In an annotator's data dir: they were removed from a study (``annotators remove``), so
#: ``hume-sync up`` leaves their server stopped.
RETIRED_FILE = "retired.json"


def hume_home() -> Path:
    """$HUME_HOME, else ~/.hume (the embedded server's data dir lives below it)."""
    return server.default_data_dir().parent


def annotator_home(email: str, base: Path | None = None) -> Path:
    """The folder of one annotator's embedded server and login file (readable name + hash)."""
    slug = re.sub(r"[^a-z0-9]+", "-", email.lower()).strip("-")[:40]
    digest = hashlib.sha256(email.lower().encode()).hexdigest()[:8]
    return (base or hume_home() / ANNOTATORS_DIR) / f"{slug}-{digest}"


def private_annotator_dir(path: Path) -> Path:
    """``path`` (an annotator's folder, or one inside it) made or tightened to 0700, with every
    folder above it up to ``$HUME_HOME``: the folder names are email slugs, for the owner only."""
    return private_dir(path, up_to=hume_home())


def _registry_path() -> Path:
    return hume_home() / REGISTRY_FILE


def _read_registry() -> dict[str, dict[str, str]]:
    path = _registry_path()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ServerRegistryError(f"cannot read {path}: {type(exc).__name__}") from None
    if not isinstance(raw, dict):
        raise ServerRegistryError(f"{path} is not a JSON object")
    return {str(k): v for k, v in raw.items() if isinstance(v, dict)}


def remember(url: str, *, token: str | None = None, data_dir: Path | None = None) -> None:
    """Record how to reach ``url``: its admin token, or the embedded data dir holding it."""
    entry: dict[str, str] = {}
    if token:
        entry["token"] = token
    if data_dir is not None:
        entry["data_dir"] = str(Path(data_dir).resolve())
    registry = _read_registry()
    if registry.get(url) == entry:
        return
    registry[url] = entry
    path = _registry_path()
    private_dir(path.parent)
    server.write_private_json(path, registry)


def token_for(url: str) -> str:
    """The admin token of the server at ``url`` (registry, embedded credentials, environment)."""
    url = url.rstrip("/")
    entry = _read_registry().get(url)
    if entry and entry.get("token"):
        return entry["token"]
    if entry and entry.get("data_dir"):
        creds = server.read_credentials(Path(entry["data_dir"]))
        if creds is not None:
            return creds["token"]
    env_url = os.environ.get("LABEL_STUDIO_URL", "").strip().rstrip("/")
    env_key = os.environ.get("LABEL_STUDIO_API_KEY", "").strip()
    if env_url == url and env_key:
        return env_key
    main = server.read_credentials()
    if main is not None and main["url"].rstrip("/") == url:
        return main["token"]
    raise ServerRegistryError(
        f"no API token known for the Label Studio at {url}: register it again with "
        "'hume-sync annotators add ... --url' (token in LABEL_STUDIO_API_KEY), or start it with "
        "'hume-sync up'"
    )


def data_dir_for(url: str) -> Path | None:
    """The data folder of ``url`` when hume started that server on this machine (an embedded
    annotator server, or ``hume-sync up``'s): the folder whose export files hume may tidy."""
    url = url.rstrip("/")
    entry = _read_registry().get(url)
    if entry and entry.get("data_dir"):
        return server.embedded_data_dir(url, Path(entry["data_dir"]))
    return server.embedded_data_dir(url)


def client_for(url: str, **kwargs: Any) -> LabelStudioClient:
    """A client for one annotator's server (admin token from ``token_for``; the data folder of
    an embedded server, so that pulls leave no export file behind)."""
    kwargs.setdefault("data_dir", data_dir_for(url))
    return LabelStudioClient(url, token_for(url), **kwargs)


class Clients:
    """One client per server URL, made on first use (what the study commands pass around)."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs
        self._clients: dict[str, LabelStudioClient] = {}

    def __call__(self, url: str) -> LabelStudioClient:
        if url not in self._clients:
            self._clients[url] = client_for(url, **self._kwargs)
        return self._clients[url]


def _last_port(data_dir: Path) -> int | None:
    """The port a server of ``data_dir`` ran on before (its credentials' URL), if any."""
    creds = server.read_credentials(data_dir) if data_dir.is_dir() else None
    return _port_of(creds["url"]) if creds else None


def _port_of(url: str) -> int | None:
    try:
        return urlsplit(url).port
    except ValueError:
        return None


def start_embedded(
    data_dir: Path, port: int | None = None, *, timeout: float | None = None
) -> server.ServerInfo:
    """Start (or find running) the embedded server of ``data_dir``; remembered in the registry.

    Without ``port`` a server started before keeps its port, a new one gets a free one.
    ``timeout``: seconds it may take (default: ``server.start_timeout()``).
    """
    timeout = server.start_timeout(timeout)  # a bad limit is refused before anything is made
    if port is None:
        port = _last_port(data_dir) or server.free_port()
    private_annotator_dir(data_dir)
    info = server.start(data_dir, port, timeout=timeout)
    remember(info.url, data_dir=info.data_dir)
    return info


def start_many(items: list[tuple[Path, int | None]]) -> list[server.ServerInfo]:
    """Start several embedded servers at once (a cold start is mostly waiting on migrations);
    the first failure is raised once all have tried."""
    started: list[server.ServerInfo] = []
    for outcome in start_each([functools.partial(start_embedded, d, port) for d, port in items]):
        if isinstance(outcome, HumeError):
            raise outcome
        started.append(outcome)
    return started


def start_general(data_dir: Path, port: int | None = None) -> server.ServerInfo:
    """The general embedded server (``hume-sync up``'s own): on ``port``, else its last one,
    else 8080."""
    if port is None:
        port = _last_port(data_dir) or server.DEFAULT_PORT
    return server.start(data_dir, port)


def start_each(
    starts: list[Callable[[], server.ServerInfo]],
) -> list[server.ServerInfo | HumeError]:
    """Run each start at once; a failure is returned in its place, not raised, so one server
    that cannot start (its port taken, its database damaged) does not keep the others down."""

    def one(start: Callable[[], server.ServerInfo]) -> server.ServerInfo | HumeError:
        try:
            return start()
        except HumeError as exc:
            return exc

    if not starts:
        return []
    with ThreadPoolExecutor(max_workers=min(len(starts), 8)) as pool:
        return list(pool.map(one, starts))


def embedded_annotator_dirs(base: Path | None = None) -> list[Path]:
    """Data dirs of the embedded annotator servers under ``$HUME_HOME/annotators``."""
    root = base or hume_home() / ANNOTATORS_DIR
    if not root.is_dir():
        return []
    return sorted(
        d / "label-studio"
        for d in root.iterdir()
        if (d / "label-studio" / server.CREDENTIALS_FILE).is_file()
        and not (d / "label-studio" / RETIRED_FILE).is_file()
    )
