"""Shared fixtures. `ls_server`: one real Label Studio for the whole test session.

The server is started through `hume_sync.server.start` (the code behind `hume-sync up`), on a free
loopback port, with SQLite in a temporary data dir; tests that use it carry
``@pytest.mark.labelstudio``. It is stopped (its process group terminated) at the end.
`ls_postgres_server` is a second one, started the same way but on a private PostgreSQL cluster
(`postgres_cluster`, tests/_postgres.py) with docker-compose.yml's database settings; tests that
use it also carry ``@pytest.mark.postgres``.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Iterator
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

from hume_sync import server  # noqa: E402
from tests._postgres import (  # noqa: E402
    PostgresCluster,
    PostgresCommandError,
    PostgresUnavailableError,
    find_bindir,
    start_cluster,
)

if TYPE_CHECKING:
    from hume_sync.ls_client import LabelStudioClient


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
        from hume_sync import ls_client  # the SDK is an optional extra: import it only here

        return ls_client.LabelStudioClient(self.url, token or self.token, **kwargs)

    def make_user(self, email: str | None = None, password: str | None = None) -> LSUser:
        """Create another user in the organization (sign-up via invite link) with its own token."""
        email = email or f"annotator-{uuid.uuid4().hex[:8]}@hume.local"
        password = password or f"Pw-{uuid.uuid4().hex}"
        user_id, token = self.client().sign_up_user(email, password)
        return LSUser(id=user_id, email=email, password=password, token=token)


def _running_server(
    tmp_path_factory: pytest.TempPathFactory, name: str, extra_env: dict[str, str] | None = None
) -> Iterator[LSServer]:
    """Start a Label Studio through `server.start` (with `extra_env`, e.g. database settings),
    yield it, stop it."""
    try:
        server.find_executable()
    except server.ServerStartError as exc:
        pytest.skip(f"Label Studio is not installed: {exc}")
    data_dir = tmp_path_factory.mktemp(name)
    started = time.monotonic()
    info = None
    try:
        for attempt in range(3):  # the free port can be taken between the check and the start
            try:
                info = server.start(
                    data_dir, server.free_port(), timeout=240.0, extra_env=extra_env
                )
                break
            except server.PortInUseError:
                if attempt == 2:
                    raise
    except server.ServerStartError as exc:
        server.stop(data_dir)
        pytest.fail(f"the Label Studio test server did not start: {exc}", pytrace=False)
    except BaseException:
        server.stop(data_dir)
        raise
    assert info is not None
    try:
        yield LSServer(
            url=info.url,
            token=info.token,
            data_dir=data_dir,
            info=info,
            startup_s=time.monotonic() - started,
        )
    finally:
        server.stop(data_dir)


@pytest.fixture(scope="session")
def ls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LSServer]:
    """A real Label Studio on SQLite (cold start about 30-60 s), shared by the whole session."""
    yield from _running_server(tmp_path_factory, "label-studio")


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
def ls_postgres_server(
    postgres_cluster: PostgresCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LSServer]:
    """A real Label Studio on `postgres_cluster`, configured as docker-compose.yml configures
    its label-studio service (cold start: migrations on PostgreSQL), shared by the session."""
    yield from _running_server(
        tmp_path_factory, "label-studio-pg", postgres_cluster.label_studio_env()
    )
