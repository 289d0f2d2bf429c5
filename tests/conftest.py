"""Shared fixtures. `ls_server`: one real Label Studio for the whole test session.

The server is started through `hume_sync.labelstudio.server.start` (the code behind
`hume-sync up`), on a free loopback port, with SQLite in a temporary data dir; tests that use
it carry ``@pytest.mark.labelstudio``. It is stopped (its process group terminated) at the end.
`annotator_servers` are two more, one per annotator (README "Blind annotation": every annotator
works in a Label Studio of their own), each with its annotator's account; `annotator_servers_pg`
are the same on a private PostgreSQL cluster (`postgres_cluster`, tests/_postgres.py), one
database each, with docker-compose.yml's database settings; tests that use them also carry
``@pytest.mark.postgres``. Every one of them starts from a prepared, already-migrated database
(SQLite: hume_sync/labelstudio/prepared_db.py, as for users; PostgreSQL: a template database,
tests/_postgres.py), so a start costs about a restart once the template is cached.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

# Test folders named like the packages they test (tests/label_studio_configs, tests/scoring) are
# put on sys.path by pytest's default import mode and would then shadow the real packages as
# empty namespace packages (the editable install's finder comes after the path finder). With the
# repository root on sys.path the real (regular) packages always win.
_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import hume_sync.task_types  # noqa: E402, F401  (registers the types study/ asks for)
from hume_sync.labelstudio import server  # noqa: E402
from tests._postgres import (  # noqa: E402
    PostgresCluster,
    PostgresCommandError,
    PostgresUnavailableError,
    find_bindir,
    start_cluster,
)

if TYPE_CHECKING:
    from hume_sync.labelstudio.client import LabelStudioClient


@dataclass(frozen=True)
class LSUser:
    """A non-admin user of the test server, with its own API token."""

    id: int
    email: str
    password: str = field(repr=False)
    token: str = field(repr=False)


@dataclass(frozen=True)
class LSServer:
    """What tests get from `ls_server`: where the server is, the admin token, helpers."""

    url: str
    token: str = field(repr=False)
    data_dir: Path
    info: server.ServerInfo
    startup_s: float

    def client(self, token: str | None = None, **kwargs: float) -> LabelStudioClient:
        """A `LabelStudioClient` for the admin (or for `token`)."""
        from hume_sync.labelstudio import (
            client as ls_client,
        )  # the SDK is an optional extra: import it only here

        return ls_client.LabelStudioClient(self.url, token or self.token, **kwargs)

    def make_user(self, email: str | None = None, password: str | None = None) -> LSUser:
        """Create another user in the organization (sign-up via invite link) with its own token."""
        email = email or f"annotator-{uuid.uuid4().hex[:8]}@hume.local"
        password = password or f"Pw-{uuid.uuid4().hex}"
        user_id, token = self.client().sign_up_user(email, password)
        return LSUser(id=user_id, email=email, password=password, token=token)


@dataclass(frozen=True)
class AnnotatorServer:
    """A Label Studio of one annotator's own (fresh: only its admin and that annotator)."""

    server: LSServer
    email: str
    password: str = field(repr=False)
    token: str = field(repr=False)  # the annotator's own API token
    user_id: int = 0

    @property
    def url(self) -> str:
        return self.server.url


def _start(data_dir: Path, extra_env: Mapping[str, str] | None = None) -> server.ServerInfo:
    """`server.start` on a free port (retried: the port can be taken between check and start)."""
    for attempt in range(3):
        try:
            return server.start(data_dir, server.free_port(), timeout=300.0, extra_env=extra_env)
        except server.PortInUseError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _running_servers(
    tmp_path_factory: pytest.TempPathFactory,
    names: Sequence[str],
    envs: Sequence[Mapping[str, str] | None],
) -> Iterator[list[LSServer]]:
    """Start Label Studio servers side by side (with `envs`, e.g. database settings), yield them,
    stop them."""
    try:
        server.find_executable()
    except server.ServerStartError as exc:
        pytest.skip(f"Label Studio is not installed: {exc}")
    dirs = [tmp_path_factory.mktemp(name) for name in names]
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=len(dirs)) as pool:
            infos = list(pool.map(_start, dirs, envs))
        yield [LSServer(i.url, i.token, i.data_dir, i, time.monotonic() - started) for i in infos]
    except server.ServerStartError as exc:
        pytest.fail(f"a Label Studio test server did not start: {exc}", pytrace=False)
    finally:
        for d in dirs:
            server.stop(d)


#: The annotators of `annotator_servers`: every test that registers annotators on those
#: servers uses these accounts (a server with other accounts is refused, as it should be).
ANNOTATOR_EMAILS = ("annotator-a@hume.test", "annotator-b@hume.test")


def _with_annotators(servers: list[LSServer]) -> list[AnnotatorServer]:
    out = []
    for ls, email in zip(servers, ANNOTATOR_EMAILS, strict=True):
        user = ls.make_user(email)
        out.append(AnnotatorServer(ls, email, user.password, user.token, user.id))
    return out


@pytest.fixture(scope="session")
def ls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LSServer]:
    """A real Label Studio on SQLite, shared by the whole session (about 6-8 s from the cached
    template; the first session on a machine builds the template first, about 30 s)."""
    for (one,) in _running_servers(tmp_path_factory, ["label-studio"], [None]):
        yield one


@pytest.fixture(scope="session")
def annotator_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[AnnotatorServer]]:
    """Two more real Label Studio servers, one per annotator (A and B), started side by side,
    each with its annotator's account (signed up through the invite link, as hume does)."""
    for servers in _running_servers(
        tmp_path_factory, ["label-studio-annotator-a", "label-studio-annotator-b"], [None, None]
    ):
        yield _with_annotators(servers)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """A private PostgreSQL cluster (tests/_postgres.py), as docker-compose.yml's service."""
    try:
        find_bindir()
    except PostgresUnavailableError as exc:
        pytest.skip(str(exc))
    cluster = None
    for attempt in range(3):  # the free port can be taken between the check and the start
        try:
            cluster = start_cluster(server.free_port())
            break
        except PostgresCommandError as exc:
            if attempt == 2:
                pytest.fail(f"the PostgreSQL test cluster did not start: {exc}", pytrace=False)
    assert cluster is not None
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def annotator_servers_pg(
    postgres_cluster: PostgresCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[AnnotatorServer]]:
    """`annotator_servers` on PostgreSQL: each annotator's Label Studio has its own database in
    the private cluster, as each annotator service of docker-compose.yml has."""
    envs = [
        postgres_cluster.label_studio_database(f"annotator_{n}").label_studio_env() for n in (1, 2)
    ]
    for servers in _running_servers(
        tmp_path_factory, ["label-studio-pg-annotator-a", "label-studio-pg-annotator-b"], envs
    ):
        yield _with_annotators(servers)
