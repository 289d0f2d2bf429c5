"""New servers start from a prepared, already-migrated database (hume_sync/labelstudio/prepared_db):
on real Label Studio servers, two first starts at once build the template once and both copy it;
the template holds no account, token or session; and two servers copied from one template share
nothing a login rests on (SECRET_KEY, the organization's invite token, the admin's and an
annotator's API token, a session cookie): what one gave out, the other refuses."""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import stat
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from hume_sync.labelstudio import prepared_db, server

pytestmark = pytest.mark.labelstudio

MIGRATING = "Initializing database.."  # what Label Studio prints when it applies migrations
# Tables a migrated, never-started database may fill: the rest must be empty.
SCHEMA_TABLES = {
    "django_migrations",
    "django_content_type",
    "auth_permission",
    "core_asyncmigrationstatus",
    "sqlite_sequence",
}


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[server.ServerInfo]]:
    """Two servers started at the same time on a template cache holding only what a build
    killed outright (kill -9) leaves: its folder, with the SECRET_KEY no server uses."""
    try:
        server.find_executable()
    except server.ServerStartError as exc:
        pytest.skip(f"Label Studio is not installed: {exc}")
    root = tmp_path_factory.mktemp("prepared-db")
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(root / "cache"))
    mp.delenv(prepared_db.TEMPLATE_SWITCH, raising=False)
    dirs = [root / "a", root / "b"]
    killed = prepared_db.cache_dir() / f".build-{server.migration_fingerprint()}-killed"
    killed.mkdir(parents=True)
    (killed / ".env").write_text("SECRET_KEY=left-behind\n", encoding="utf-8")
    ports = _distinct_free_ports(len(dirs))
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            starts = [
                pool.submit(server.start, d, p, timeout=600)
                for d, p in zip(dirs, ports, strict=True)
            ]
            infos = [f.result() for f in starts]
        yield infos
    finally:
        for d in dirs:
            server.stop(d)
        mp.undo()


def _distinct_free_ports(n: int) -> list[int]:
    """``n`` different free ports. Picked one at a time (``server.free_port``), two could be the
    same: a server binds its port only once the template is built, seconds later, so the OS may
    hand the first port out again (a CI run failed so: "port ... is already in use")."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(n)]
        for sock in socks:
            sock.bind((server.HOST, 0))  # all held at once: n different ports
        return [int(sock.getsockname()[1]) for sock in socks]


def _template(info: server.ServerInfo) -> Path:
    cache = info.data_dir.parent / "cache" / "hume" / "label-studio-templates"
    (path,) = cache.glob("*.sqlite3")
    return path


def _secret_key(data_dir: Path) -> str:
    lines = (data_dir / ".env").read_text(encoding="utf-8").splitlines()
    (key,) = [line.split("=", 1)[1] for line in lines if line.startswith("SECRET_KEY=")]
    return key


def _whoami(url: str, token: str) -> int:
    headers = {"Authorization": f"Token {token}"}
    return httpx.get(f"{url}/api/current-user/whoami", headers=headers, timeout=30).status_code


def _invite_token(info: server.ServerInfo) -> str:
    resp = httpx.get(
        f"{info.url}/api/invite", headers={"Authorization": f"Token {info.token}"}, timeout=30
    )
    resp.raise_for_status()
    return str(resp.json()["token"])


def test_two_first_starts_build_the_template_once_and_copy_it(twins) -> None:
    a, b = twins
    path = _template(a)
    build_log = path.with_name(path.name.replace(".sqlite3", ".build.log"))
    assert build_log.read_text(encoding="utf-8").count(MIGRATING) == 1
    assert path.name == f"{server.migration_fingerprint()}.sqlite3"
    assert not list(path.parent.glob(".build-*")), "a build folder was left behind"
    for info in twins:
        log = (info.data_dir / server.LOG_FILE).read_text(encoding="utf-8")
        assert MIGRATING not in log, f"{info.data_dir} migrated its own database"
        db = info.data_dir / prepared_db.DATABASE_FILE
        assert stat.S_IMODE(db.stat().st_mode) == 0o600
        assert _whoami(info.url, info.token) == 200
    assert a.url != b.url


def test_the_template_holds_no_account_token_or_session(twins) -> None:
    with sqlite3.connect(f"{_template(twins[0]).as_uri()}?mode=ro", uri=True) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        filled = {t: db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    assert filled["django_migrations"] > 300  # migrated, not an empty file
    for name in ("htx_user", "organization", "authtoken_token", "django_session"):
        assert name in filled and filled[name] == 0, name
    assert {t for t, n in filled.items() if n} <= SCHEMA_TABLES


def test_servers_from_one_template_share_no_secret(twins) -> None:
    a, b = twins
    key_a, key_b = _secret_key(a.data_dir), _secret_key(b.data_dir)
    assert key_a and key_b and key_a != key_b
    invite_a, invite_b = _invite_token(a), _invite_token(b)
    assert invite_a != invite_b
    # each admin token works where it was made, and only there
    assert (_whoami(a.url, a.token), _whoami(b.url, b.token)) == (200, 200)
    assert _whoami(b.url, a.token) == 401 and _whoami(a.url, b.token) == 401
    # an annotator signed up on A: their token is unknown to B
    from hume_sync.labelstudio.client import LabelStudioClient

    _, annotator_token = LabelStudioClient(a.url, a.token).sign_up_user(
        "twin-a@hume.test", "Pw-" + os.urandom(8).hex()
    )
    assert _whoami(a.url, annotator_token) == 200 and _whoami(b.url, annotator_token) == 401
    # A's session cookie is no session on B
    with httpx.Client(base_url=a.url, timeout=60) as web:
        web.get("/user/login/")
        resp = web.post(
            "/user/login/",
            data={
                "email": a.username,
                "password": a.password,
                "csrfmiddlewaretoken": web.cookies["csrftoken"],
            },
            headers={"Referer": f"{a.url}/user/login/"},
        )
        assert resp.status_code == 302 and "/user/login" not in resp.headers["location"]
        session = web.cookies["sessionid"]
        assert web.get("/api/current-user/whoami").status_code == 200
    cookie = {"sessionid": session}
    other = httpx.get(f"{b.url}/api/current-user/whoami", cookies=cookie, timeout=30)
    assert other.status_code in (401, 403)
    # A's invite link does not open B's sign-up form
    with httpx.Client(base_url=b.url, timeout=60) as web:
        page = web.get("/user/signup/", params={"token": invite_a})
        resp = web.post(
            "/user/signup/",
            params={"token": invite_a},
            data={
                "email": "intruder@hume.test",
                "password": "Pw-" + os.urandom(8).hex(),
                "csrfmiddlewaretoken": web.cookies.get("csrftoken", ""),
            },
            headers={"Referer": f"{b.url}/user/signup/"},
        )
        assert page.status_code >= 400 or resp.status_code != 302
    emails = LabelStudioClient(b.url, b.token).user_emails().values()
    assert "intruder@hume.test" not in emails


@pytest.mark.postgres
def test_postgres_servers_start_from_a_copied_template(annotator_servers_pg, postgres_cluster):
    """The PostgreSQL servers' databases are copies of one migrated template database
    (tests/_postgres.py): neither server migrated, the template holds no account, token or
    session, and each server's admin token is refused by the other."""
    from tests._postgres import LS_TEMPLATE_DB

    template = postgres_cluster.database(LS_TEMPLATE_DB)
    for table in ("htx_user", "organization", "authtoken_token", "django_session"):
        assert template.psql(f"SELECT count(*) FROM {table}") == [["0"]], table
    (migrations,) = template.psql("SELECT count(*) FROM django_migrations")[0]
    assert int(migrations) > 300
    a, b = (srv.server for srv in annotator_servers_pg)
    for ls in (a, b):
        assert MIGRATING not in (ls.data_dir / server.LOG_FILE).read_text(encoding="utf-8")
        assert _whoami(ls.url, ls.token) == 200
    assert _whoami(b.url, a.token) == 401 and _whoami(a.url, b.token) == 401
    assert _secret_key(a.data_dir) != _secret_key(b.data_dir)
