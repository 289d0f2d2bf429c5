"""The embedded Label Studio: a local server on SQLite, bound to 127.0.0.1, run in the background.

`hume-sync up` / `down` call `start` / `stop`; the integration tests start their server through the
same `start`, so what the tests check is what users run. The admin token is generated here and kept
in a file only the user can read (``credentials.json``, mode 0600); it is never printed, logged or
put into an exception message or a repr.

Facts this module relies on (label-studio 1.23.2): ``label-studio start`` silently moves to another
port when the asked one is busy, so the port is checked first and the running server is verified
with the token afterwards; ``--data-dir`` is ignored when ``DATABASE_NAME`` or
``LABEL_STUDIO_BASE_DATA_DIR`` are already in the environment, so the child gets a cleaned
environment; the admin user and token are only created on the first start (a restart keeps them).
A new server's database is a copy of a prepared, already-migrated one (``prepared_db``), so a first
start costs about what a restart does. How long a start may take: ``timeout``, else
``$HUME_LS_START_TIMEOUT``, else 240 s.
The admin's name, password and token reach the server through its environment
(LABEL_STUDIO_USERNAME/PASSWORD/USER_TOKEN), never its command line, which other users can read.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hume_sync.errors import (
    ConnectionNotConfiguredError,
    PortInUseError,
    ServerError,
    ServerStartError,
)
from hume_sync.file_modes import private_dir
from hume_sync.labelstudio import prepared_db

__all__ = [
    "CREDENTIALS_FILE",
    "LOG_FILE",
    "PID_FILE",
    "ConnectionNotConfiguredError",
    "PortInUseError",
    "ServerError",
    "ServerInfo",
    "ServerStartError",
    "ServerStatus",
    "connection_from_env_or_embedded",
    "default_data_dir",
    "embedded_data_dir",
    "find_executable",
    "free_port",
    "migrate_database",
    "migration_fingerprint",
    "read_credentials",
    "start",
    "start_timeout",
    "status",
    "stop",
]

CREDENTIALS_FILE = "credentials.json"
PID_FILE = "label-studio.pid"
LOG_FILE = "label-studio.log"
DEFAULT_PORT = 8080
DEFAULT_USERNAME = "admin@hume.local"
HOST = "127.0.0.1"
START_TIMEOUT_ENV = "HUME_LS_START_TIMEOUT"
DEFAULT_START_TIMEOUT = 240.0

# No phone-home: every outbound call Label Studio 1.23.2 makes on its own, turned off
# (label_studio/core/settings/{base,label_studio}.py). The same values are in
# docker-compose.yml; tests/test_phone_home.py reads Label Studio's settings so that a new
# telemetry default is noticed.
NO_PHONE_HOME_ENV: dict[str, str] = {
    # Sentry error and performance reports from the server (default: a HumanSignal DSN that is
    # called every minute) and from the browser (the Sentry CDN script and its reports).
    "SENTRY_DSN": "",
    "FRONTEND_SENTRY_DSN": "",
    # The PyPI version check at start-up and in the UI.
    "LATEST_VERSION_CHECK": "false",
    # Usage analytics: tele.labelstud.io from the server, Google Tag Manager in the browser.
    "COLLECT_ANALYTICS": "false",
    # Feature flags from the packaged file, never from LaunchDarkly's service.
    "FEATURE_FLAGS_OFFLINE": "true",
}

# Environment the server needs: no phone-home, ML backends and webhooks on 127.0.0.1 allowed,
# and the legacy token (the one we generate) accepted.
# Isolation (README "Blind annotation"): nobody may sign up without the organization's invite
# link (by default anyone who can open /user/signup/ joins the organization and reads every
# project), and SECRET_KEY is dropped below so that each data dir keeps its own key: Label
# Studio signs session cookies and JWTs with it, and cookies are shared by every port of a host.
SERVER_ENV: dict[str, str] = {
    **NO_PHONE_HOME_ENV,
    "ML_BLOCK_LOCAL_IP": "false",
    "SSRF_PROTECTION_ENABLED": "false",
    "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",
    "DJANGO_DB": "sqlite",
    "DJANGO_SETTINGS_MODULE": "label_studio.core.settings.label_studio",
    "DISABLE_SIGNUP_WITHOUT_LINK": "true",
}
# Variables Label Studio reads (plain or with a LABEL_STUDIO_/HEARTEX_ prefix) that would override
# the command line (data dir, database, host, port, user) or the per-data-dir secret key: dropped
# from the child's environment.
_SHADOWING_NAMES = frozenset(
    {"DATABASE_NAME", "BASE_DATA_DIR", "DJANGO_DB", "HOST", "PORT", "USERNAME", "PASSWORD"}
    | {"USER_TOKEN", "DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DISABLE_SIGNUP_WITHOUT_LINK"}
)
_SHADOWING_PREFIXES = ("LABEL_STUDIO_", "HEARTEX_", "POSTGRE_", "MYSQL_")


@dataclass(frozen=True)
class ServerInfo:
    """How to reach a running embedded server; secrets are kept out of the repr."""

    url: str
    username: str
    password: str = field(repr=False)
    token: str = field(repr=False)
    data_dir: Path
    pid: int | None
    log_path: Path
    already_running: bool = False


@dataclass(frozen=True)
class ServerStatus:
    """What `status` found: configured (credentials exist), running (process alive), healthy."""

    data_dir: Path
    configured: bool
    running: bool
    healthy: bool
    pid: int | None
    url: str | None


# Popen objects of servers started by this process, kept so that `stop` can reap them (no zombies,
# no "subprocess still running" warnings).
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def default_data_dir() -> Path:
    """~/.hume/label-studio, or $HUME_HOME/label-studio when HUME_HOME is set."""
    home = os.environ.get("HUME_HOME")
    base = Path(home).expanduser() if home else Path.home() / ".hume"
    return base / "label-studio"


def find_executable() -> Path:
    """The `label-studio` CLI of this interpreter's environment (next to sys.executable) first."""
    candidate = Path(sys.executable).parent / "label-studio"
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which("label-studio")
    if found:
        return Path(found)
    raise ServerStartError(
        "the `label-studio` command was not found next to "
        f"{sys.executable} or on PATH; install it with `pip install 'hume[server]'`"
    )


def free_port(host: str = HOST) -> int:
    """A port that is free right now on `host` (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _port_is_free(port: int, host: str = HOST) -> bool:
    """True when nothing listens on host:port (Label Studio probes `localhost` by connecting)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        if s.connect_ex((host, port)) == 0:
            return False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # Like the server itself (SO_REUSEADDR): connections of a just-stopped server that linger
        # in TIME_WAIT do not block it, a listening socket does.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def port_is_free(port: int, host: str = HOST) -> bool:
    """True when nothing listens on ``host:port`` and it can be bound."""
    return _port_is_free(port, host)


def write_private_json(path: Path, payload: Mapping[str, Any]) -> None:
    """Write JSON readable by the owner only (0600), also when the file already exists."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(dict(payload), fh, indent=2)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    os.replace(tmp, path)


def read_credentials(data_dir: Path | None = None) -> dict[str, str] | None:
    """The embedded server's credentials (url, username, password, token), or None if absent."""
    path = Path(data_dir or default_data_dir()) / CREDENTIALS_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ServerError(
            f"cannot read the credentials file {path}: {type(exc).__name__}"
        ) from None
    if not isinstance(raw, dict) or not all(
        isinstance(raw.get(k), str) and raw.get(k) for k in ("url", "username", "password", "token")
    ):
        raise ServerError(
            f"the credentials file {path} is incomplete (url, username, password, token)"
        )
    return {k: raw[k] for k in ("url", "username", "password", "token")}


def _read_pid(data_dir: Path) -> int | None:
    try:
        raw = json.loads((data_dir / PID_FILE).read_text(encoding="utf-8"))
        pid = int(raw["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return pid if pid > 0 else None


def _reap(pid: int) -> None:
    """Collect the exit status of our own child so it does not linger as a zombie."""
    proc = _CHILDREN.get(pid)
    if proc is not None:
        if proc.poll() is not None:
            _CHILDREN.pop(pid, None)
        return
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def _alive(pid: int) -> bool:
    """True when `pid` runs and (where /proc exists) is a Label Studio process, not a reused pid."""
    _reap(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # someone else's process: the pid was reused
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists():
        try:
            argv = cmdline.read_bytes().decode("utf-8", "replace").split("\0")
        except OSError:
            return False
        # `label-studio start ...`, possibly as `python /path/label-studio start ...`
        if not any(Path(a).name == "label-studio" for a in argv[:3]) or "start" not in argv:
            return False
        stat = Path(f"/proc/{pid}/stat")
        with contextlib.suppress(OSError, IndexError):
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return False
    return True


def _get(url: str, token: str | None = None, timeout: float = 5.0) -> tuple[int, bytes]:
    """A plain GET (no SDK: it must work before the server is up); (status, body) or (0, b"")."""
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            return int(resp.status), resp.read()
    except urllib.error.HTTPError as exc:
        return int(exc.code), b""
    except (urllib.error.URLError, OSError, ValueError):
        return 0, b""


def _healthy(url: str) -> bool:
    code, body = _get(url.rstrip("/") + "/health", timeout=3.0)
    if code != 200:
        return False
    try:
        return json.loads(body).get("status") == "UP"
    except (ValueError, AttributeError):
        return False


_ERROR_LINE = re.compile(r"^\s*(?:[\w.]+(?:Error|Exception|Exit)\b|ERROR\b|CRITICAL\b|FATAL\b)")


def _log_error_line(text: str, secrets_: tuple[str, ...] = (), limit: int = 200) -> str:
    """The line of a server log that says what went wrong (the last exception or error line)."""
    for secret in secrets_:
        if secret:
            text = text.replace(secret, "***")
    lines = [line.strip() for line in text.splitlines() if _ERROR_LINE.match(line)]
    if not lines:
        return ""
    line = lines[-1]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _log_since(log_path: Path, offset: int) -> str:
    """What this start wrote to the (appended) log so far."""
    try:
        with open(log_path, "rb") as fh:
            fh.seek(offset)
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _child_env(data_dir: Path, extra_env: Mapping[str, str] | None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in _SHADOWING_NAMES and not k.startswith(_SHADOWING_PREFIXES)
    }
    env.update(SERVER_ENV)
    env["LABEL_STUDIO_BASE_DATA_DIR"] = str(data_dir)
    env["PYTHONUNBUFFERED"] = "1"
    if extra_env:
        env.update(extra_env)
    return env


def start_timeout(timeout: float | None = None) -> float:
    """Seconds a start may take: `timeout`, else $HUME_LS_START_TIMEOUT, else 240 (a cold start
    on a loaded machine came within 48 s of 240 before new servers got a prepared database)."""
    if timeout is None:
        raw = os.environ.get(START_TIMEOUT_ENV, "").strip()
        if not raw:
            return DEFAULT_START_TIMEOUT
        try:
            timeout = float(raw)
        except ValueError:
            timeout = float("nan")
        if not timeout > 0 or timeout == float("inf"):
            raise ServerStartError(
                f"{START_TIMEOUT_ENV} must be a number of seconds above 0, got {raw!r}"
            )
    return float(timeout)


def _timed_out(url: str, timeout: float) -> str:
    """The reason for a start that ran out of time, with what to do about it."""
    return (
        f"did not answer GET {url}/health within {timeout:g} s (raise the limit with "
        f"'annotators add --start-timeout SECONDS' or {START_TIMEOUT_ENV}=SECONDS)"
    )


def _seed_database(
    data_dir: Path, exe: Path, env: Mapping[str, str], deadline: float, log_path: Path
) -> None:
    """Give a new data folder a copy of the prepared, migrated database (``prepared_db``).

    A template that cannot be built is not fatal: the note goes to the server's log and Label
    Studio migrates this database itself, as without a template. TimeoutError(the build's log)
    past `deadline`.
    """
    key = prepared_db.fingerprint(exe, env)
    try:
        path = prepared_db.template(exe, env, key, deadline)
        prepared_db.seed(data_dir, path)
    except TimeoutError:  # an OSError too, but not a reason to go on
        raise
    except (RuntimeError, OSError, sqlite3.Error) as exc:
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(f"hume: no prepared database ({exc}); Label Studio migrates this one\n")


def migrate_database(
    extra_env: Mapping[str, str], *, timeout: float | None = None, executable: Path | None = None
) -> None:
    """Apply Label Studio's migrations to the database `extra_env` names (e.g. a PostgreSQL
    template database, see tests/_postgres.py) without serving it: what a first start does
    before it creates its admin. The throw-away data folder (and its SECRET_KEY) is removed."""
    exe = Path(executable) if executable else find_executable()
    deadline = time.monotonic() + start_timeout(timeout)
    with tempfile.TemporaryDirectory(prefix="hume-ls-migrate-") as tmp:
        folder = Path(tmp)
        try:
            prepared_db.migrate(
                exe, folder, _child_env(folder, extra_env), deadline, folder / LOG_FILE
            )
        except TimeoutError:
            raise ServerStartError("Label Studio's migrations ran past the start limit") from None
        except RuntimeError as exc:
            raise ServerStartError(f"Label Studio's migrations failed: {exc}") from None


def migration_fingerprint(
    extra_env: Mapping[str, str] | None = None, *, executable: Path | None = None
) -> str:
    """What a database migrated for a server started with `extra_env` depends on (the Label
    Studio environment and the settings its migrations read: ``prepared_db.fingerprint``); a
    key for caching such a database elsewhere, e.g. a PostgreSQL dump (tests/_postgres.py)."""
    exe = Path(executable) if executable else find_executable()
    return prepared_db.fingerprint(exe, _child_env(Path(tempfile.gettempdir()), extra_env))


def _kill_group(pid: int, timeout: float = 30.0) -> None:
    """SIGTERM the process group of `pid`, then SIGKILL it if it does not exit in time."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            break
        except PermissionError:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + (timeout if sig == signal.SIGTERM else 10.0)
        while time.monotonic() < deadline:
            proc = _CHILDREN.get(pid)
            if proc is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=0.2)
                if proc.poll() is not None:
                    _CHILDREN.pop(pid, None)
                    return
            elif not _alive(pid):
                return
            else:
                time.sleep(0.2)


def _info_from(
    data_dir: Path, creds: Mapping[str, str], pid: int | None, already: bool
) -> ServerInfo:
    return ServerInfo(
        url=creds["url"],
        username=creds["username"],
        password=creds["password"],
        token=creds["token"],
        data_dir=data_dir,
        pid=pid,
        log_path=data_dir / LOG_FILE,
        already_running=already,
    )


def start(
    data_dir: Path | None = None,
    port: int = DEFAULT_PORT,
    *,
    username: str = DEFAULT_USERNAME,
    timeout: float | None = None,
    executable: Path | str | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> ServerInfo:
    """Start the embedded server in the background and wait until /health answers.

    Idempotent: when the server of `data_dir` already runs and answers, its info is returned
    (with its own port, which may differ from `port`). The first start creates the admin user
    with a generated password and token; later starts reuse them from ``credentials.json``.
    `timeout`: seconds until it must answer (default: ``start_timeout()``).
    """
    timeout = start_timeout(timeout)
    data_dir = Path(data_dir or default_data_dir()).expanduser().resolve()
    try:
        private_dir(data_dir)  # missing parents ($HUME_HOME, ...) made 0700 as well
        lock = open(data_dir / ".start.lock", "a")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise ServerStartError(
            f"cannot use {data_dir} as Label Studio's data folder ({exc.strerror or exc}); "
            "choose another one with --data-dir"
        ) from None
    # One start at a time per data dir: two `hume-sync up` at once must not spawn two servers.
    with lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            return _start_locked(data_dir, port, username, timeout, executable, extra_env)
        except OSError as exc:  # a data folder we cannot write, an executable we cannot run
            where = exc.filename or data_dir
            raise ServerStartError(
                f"cannot start Label Studio: {where}: {exc.strerror or exc}"
            ) from None
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _wait_for_running(
    data_dir: Path, pid: int, creds: dict[str, str] | None, timeout: float
) -> ServerInfo:
    """A server of ``data_dir`` runs already, maybe still starting (migrations): wait for it to
    answer rather than fail, and fail with the way out if it never does."""
    deadline = time.monotonic() + timeout
    while creds is not None and _alive(pid) and time.monotonic() < deadline:
        if _healthy(creds["url"]):
            return _info_from(data_dir, creds, pid, already=True)
        time.sleep(0.5)
    raise ServerStartError(
        f"a Label Studio process (pid {pid}) of {data_dir} runs but does not answer; "
        f"stop it first (`hume-sync down`); log: {data_dir / LOG_FILE}"
    )


def _new_credentials(url: str, username: str) -> dict[str, str]:
    """A fresh admin password and API token for a new data dir."""
    return {
        "url": url,
        "username": username,
        "password": secrets.token_urlsafe(18),
        "token": secrets.token_hex(20),  # 40 characters: the size of a Django REST token key
    }


def _start_locked(
    data_dir: Path,
    port: int,
    username: str,
    timeout: float,
    executable: Path | str | None,
    extra_env: Mapping[str, str] | None,
) -> ServerInfo:
    log_path = data_dir / LOG_FILE
    creds = read_credentials(data_dir)

    pid = _read_pid(data_dir)
    if pid is not None and _alive(pid):
        return _wait_for_running(data_dir, pid, creds, timeout)
    with contextlib.suppress(FileNotFoundError):
        (data_dir / PID_FILE).unlink()

    if creds is None and (data_dir / "label_studio.sqlite3").exists():
        raise ServerStartError(
            f"{data_dir} holds a Label Studio database but no {CREDENTIALS_FILE}: its admin token "
            "is unknown; use another data dir or restore the credentials file"
        )
    if not _port_is_free(port):
        raise PortInUseError(f"port {port} on {HOST} is already in use; choose another port")

    url = f"http://{HOST}:{port}"
    creds = _new_credentials(url, username) if creds is None else {**creds, "url": url}
    write_private_json(data_dir / CREDENTIALS_FILE, creds)

    exe = Path(executable) if executable else find_executable()
    argv = [
        str(exe),
        "start",
        "--no-browser",
        "--internal-host",
        HOST,
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
        "--enable-legacy-api-token",
    ]
    # The admin user, password and token go through the environment, which only the owner can
    # read (/proc/<pid>/environ), not through --username/--password/--user-token, which any local
    # user could read in the process list. Label Studio reads LABEL_STUDIO_<NAME> for each.
    env = _child_env(data_dir, extra_env)
    deadline = time.monotonic() + timeout
    if not (data_dir / prepared_db.DATABASE_FILE).exists() and prepared_db.applies(env):
        try:
            _seed_database(data_dir, exe, env, deadline, log_path)
        except TimeoutError as exc:  # still migrating its template: that log says how far
            where = exc.args[0] if exc.args else log_path
            raise ServerStartError(
                f"Label Studio {_timed_out(url, timeout)}; the migrations' log: {where}"
            ) from None
    env["LABEL_STUDIO_USERNAME"] = creds["username"]
    env["LABEL_STUDIO_PASSWORD"] = creds["password"]
    env["LABEL_STUDIO_USER_TOKEN"] = creds["token"]
    secrets_ = (creds["token"], creds["password"])
    log_offset = log_path.stat().st_size if log_path.exists() else 0
    with open(log_path, "ab") as log:
        os.fchmod(log.fileno(), 0o600)
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=data_dir,
            env=env,
            start_new_session=True,  # own session and process group: survives the CLI, killpg works
        )
    _CHILDREN[proc.pid] = proc
    write_private_json(
        data_dir / PID_FILE, {"pid": proc.pid, "port": port, "started_at": time.time()}
    )

    def fail(reason: str) -> ServerStartError:
        _kill_group(proc.pid, timeout=10.0)
        with contextlib.suppress(FileNotFoundError):
            (data_dir / PID_FILE).unlink()
        cause = _log_error_line(_log_since(log_path, log_offset), secrets_)
        return ServerStartError(
            f"Label Studio {reason}" + (f" ({cause})" if cause else "") + f"; its log: {log_path}"
        )

    while True:
        if proc.poll() is not None:
            raise fail(f"exited with code {proc.returncode} during start-up")
        if "Trying to start at" in _log_since(log_path, log_offset):
            raise fail(f"found port {port} busy and moved to another port")
        if _healthy(url):
            break
        if time.monotonic() > deadline:
            raise fail(_timed_out(url, timeout))
        time.sleep(0.5)

    # /health says *a* server answers on the port; the token says it is ours.
    code, _ = _get(f"{url}/api/current-user/whoami", token=creds["token"])
    if code != 200:
        raise fail(f"at {url} does not accept this data dir's admin token (HTTP {code or 'error'})")
    return _info_from(data_dir, creds, proc.pid, already=False)


def stop(data_dir: Path | None = None, *, timeout: float = 30.0) -> bool:
    """Stop the embedded server of `data_dir`; True if one was running. Credentials are kept."""
    data_dir = Path(data_dir or default_data_dir()).expanduser().resolve()
    pid = _read_pid(data_dir)
    stopped = False
    if pid is not None and (_alive(pid) or pid in _CHILDREN):
        _kill_group(pid, timeout=timeout)
        stopped = True
    with contextlib.suppress(FileNotFoundError):
        (data_dir / PID_FILE).unlink()
    return stopped


def status(data_dir: Path | None = None) -> ServerStatus:
    """Whether the embedded server of `data_dir` is configured, running and answering."""
    data_dir = Path(data_dir or default_data_dir()).expanduser().resolve()
    creds = read_credentials(data_dir)
    pid = _read_pid(data_dir)
    running = pid is not None and _alive(pid)
    url = creds["url"] if creds else None
    return ServerStatus(
        data_dir=data_dir,
        configured=creds is not None,
        running=running,
        healthy=bool(running and url and _healthy(url)),
        pid=pid if running else None,
        url=url,
    )


def _checked_url(url: str) -> str:
    """LABEL_STUDIO_URL as the client needs it: ``http(s)://host[:port][/path]``."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        shown = parsed._replace(netloc=parsed.netloc.rpartition("@")[2]).geturl()  # no password
        raise ConnectionNotConfiguredError(
            f"LABEL_STUDIO_URL must start with http:// or https:// and name a host, got "
            f"{shown!r} (e.g. http://127.0.0.1:8080)"
        )
    return url.rstrip("/")


def embedded_data_dir(url: str, data_dir: Path | None = None) -> Path | None:
    """The data folder of the embedded server when ``url`` is that server, else None.

    Used to tidy what Label Studio leaves in its own folder (export files); a server elsewhere
    is never touched.
    """
    directory = Path(data_dir or default_data_dir()).expanduser()
    try:
        creds = read_credentials(directory)
    except ServerError:
        return None
    if creds is None or creds["url"].rstrip("/") != url.rstrip("/"):
        return None
    return directory.resolve()


def connection_from_env_or_embedded(data_dir: Path | None = None) -> tuple[str, str]:
    """(url, token): LABEL_STUDIO_URL + LABEL_STUDIO_API_KEY if set, else the embedded server's."""
    url = os.environ.get("LABEL_STUDIO_URL", "").strip()
    key = os.environ.get("LABEL_STUDIO_API_KEY", "").strip()
    if url and key:
        return _checked_url(url), key
    if url or key:
        missing = "LABEL_STUDIO_API_KEY" if url else "LABEL_STUDIO_URL"
        raise ConnectionNotConfiguredError(
            f"{missing} is not set: set both LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY, "
            "or neither to use the embedded server"
        )
    directory = Path(data_dir or default_data_dir()).expanduser()
    creds = read_credentials(directory)
    if creds is None:
        raise ConnectionNotConfiguredError(
            "no Label Studio configured: set LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY, "
            f"or start the embedded server with `hume-sync up` (data dir {directory})"
        )
    return creds["url"], creds["token"]
