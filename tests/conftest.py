"""Shared fixtures. `ls_server`: one real Label Studio for the whole test session.

The server is started through `hume_sync.server.start` (the code behind `hume-sync up`), on a free
loopback port, with SQLite in a temporary data dir; tests that use it carry
``@pytest.mark.labelstudio``. It is stopped (its process group terminated) at the end.
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


def _start_server(data_dir: Path) -> server.ServerInfo:
    for attempt in range(3):  # the free port can be taken between the check and the start
        try:
            return server.start(data_dir, server.free_port(), timeout=300.0)
        except server.PortInUseError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


#: The annotators of `annotator_servers`: every test that registers annotators on those
#: servers uses these accounts (a server with other accounts is refused, as it should be).
ANNOTATOR_EMAILS = ("annotator-a@hume.test", "annotator-b@hume.test")


@pytest.fixture(scope="session")
def annotator_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[AnnotatorServer]]:
    """Two more real Label Studio servers, one per annotator (A and B), started side by side,
    each with its annotator's account (signed up through the invite link, as hume does)."""
    from concurrent.futures import ThreadPoolExecutor

    try:
        server.find_executable()
    except server.ServerStartError as exc:
        pytest.skip(f"Label Studio is not installed: {exc}")
    dirs = [tmp_path_factory.mktemp(f"label-studio-annotator-{n}") for n in ("a", "b")]
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            infos = list(pool.map(_start_server, dirs))
    except server.ServerStartError as exc:
        for d in dirs:
            server.stop(d)
        pytest.fail(f"an annotator's Label Studio did not start: {exc}", pytrace=False)
    except BaseException:
        for d in dirs:
            server.stop(d)
        raise
    try:
        out = []
        for info, email in zip(infos, ANNOTATOR_EMAILS, strict=True):
            ls = LSServer(info.url, info.token, info.data_dir, info, time.monotonic() - started)
            user = ls.make_user(email)
            out.append(AnnotatorServer(ls, email, user.password, user.token, user.id))
        yield out
    finally:
        for d in dirs:
            server.stop(d)


@pytest.fixture(scope="session")
def ls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LSServer]:
    """A real Label Studio (cold start about 30-60 s), shared by the whole session."""
    try:
        server.find_executable()
    except server.ServerStartError as exc:
        pytest.skip(f"Label Studio is not installed: {exc}")
    data_dir = tmp_path_factory.mktemp("label-studio")
    started = time.monotonic()
    info = None
    try:
        for attempt in range(3):  # the free port can be taken between the check and the start
            try:
                info = server.start(data_dir, server.free_port(), timeout=240.0)
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
