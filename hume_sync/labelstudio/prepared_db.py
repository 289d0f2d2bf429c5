"""A new embedded Label Studio starts from a prepared, already-migrated SQLite database.

Why: on a new data folder Label Studio applies its ~400 database migrations (label-studio 1.23.2:
about 33 s of CPU, most of a cold start); a restart of a migrated server reaches /health in a
fraction of that. The migrations do the same thing every time, so they are run once into a
*template* database and each new server gets a copy (milliseconds). On its first start Label
Studio finds nothing left to migrate (its own check, ``is_database_synchronized``, which also
applies whatever a stale template would lack) and then does what it does on any first start:
creates the admin user with the token hume gives it, and the organization with its own invite
token.

What the template holds: the schema, Django's content types and permissions, the migration
records; no user, organization, token or session (tests/integration/test_prepared_db.py checks
this on a real template, and that two servers copied from one share no account, token, session
or secret). What Label Studio keeps secret per server stays per server: ``SECRET_KEY`` (which
signs JWTs and the session itself: its SESSION_ENGINE keeps sessions in signed cookies) is
generated into each data folder's ``.env`` at its first start and is never part of the template;
the admin's password and token are hume's, per data folder.

Templates are cached per user under ``$XDG_CACHE_HOME/hume/label-studio-templates`` (else
``~/.cache/hume/...``), one file per *fingerprint*: every installed distribution and its version
as the ``label-studio`` executable's interpreter sees them, plus the few settings its migrations
read (``_MIGRATION_SETTINGS``), so an upgrade or such a setting builds a new one. One build at
a time under a file lock (concurrent first starts wait for it and then copy); a build writes
into a private temporary folder and moves the finished file into place, so a failed or killed
build leaves no half-made template.
``HUME_LS_TEMPLATE=off`` makes every new server migrate from scratch, as before.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shlex
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from hume_sync.file_modes import private_dir

__all__ = [
    "DATABASE_FILE",
    "TEMPLATE_SWITCH",
    "applies",
    "cache_dir",
    "fingerprint",
    "migrate",
    "seed",
    "template",
]

DATABASE_FILE = "label_studio.sqlite3"  # Label Studio's DATABASE_NAME_DEFAULT in the data dir
TEMPLATE_SWITCH = "HUME_LS_TEMPLATE"
_OFF = frozenset({"0", "off", "false", "no"})
# The settings Label Studio 1.23.2's migrations read (grep over label_studio/*/migrations:
# settings.DJANGO_DB, SERVICE_QUEUE_NAME, TASK_LOCK_TTL, LSE_PROJECT and one feature flag),
# plain or with Label Studio's prefixes; the rest (sign-up, SSRF, telemetry) act per request.
_MIGRATION_SETTINGS = frozenset({"DJANGO_DB", "SERVICE_QUEUE_NAME", "TASK_LOCK_TTL", "LSE_PROJECT"})
_PREFIXES = ("", "LABEL_STUDIO_", "HEARTEX_")
_VERSIONS_SCRIPT = (
    "import hashlib, importlib.metadata as m; "
    "print(hashlib.sha256('\\n'.join(sorted("
    "f\"{d.metadata['Name'] or ''}=={d.version}\" for d in m.distributions()"
    ")).encode()).hexdigest())"
)


def applies(env: Mapping[str, str]) -> bool:
    """True when a server with this environment runs on SQLite in its data folder and the
    template is not switched off."""
    if os.environ.get(TEMPLATE_SWITCH, "").strip().lower() in _OFF:
        return False
    return env.get("DJANGO_DB") == "sqlite" and not any(k.endswith("DATABASE_NAME") for k in env)


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/hume/label-studio-templates`` (``~/.cache/hume/...``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "hume" / "label-studio-templates"


def _interpreter(executable: Path) -> list[str] | None:
    """The interpreter line of a script's ``#!`` (``label-studio`` is a Python script)."""
    try:
        with open(executable, "rb") as fh:
            first = fh.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    argv = shlex.split(first[2:].decode("utf-8", "replace").strip())
    return argv or None


def _migration_settings(env: Mapping[str, str]) -> dict[str, str]:
    """The part of the server's environment its migrations can depend on (no secret is)."""
    out = {}
    for key, value in env.items():
        name = key.upper()
        flag = name.startswith("FF_") or "FEATURE_FLAG" in name
        if flag or any(name == p + s for p in _PREFIXES for s in _MIGRATION_SETTINGS):
            out[key] = value
    return out


def fingerprint(executable: Path, env: Mapping[str, str]) -> str:
    """What a template depends on: the Label Studio environment's distributions and versions
    (asked of the executable's own interpreter, in the server's environment `env`, which may put
    more on its path; else the executable's path, size and mtime) and the settings of `env`
    that its migrations read. A template that lacks a migration is still safe: Label Studio
    applies what is missing at start."""
    digest = hashlib.sha256()
    interpreter = _interpreter(executable)
    versions = ""
    if interpreter:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            proc = subprocess.run(
                [*interpreter, "-c", _VERSIONS_SCRIPT],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
                stdin=subprocess.DEVNULL,
                env=dict(env),
            )
            if proc.returncode == 0:
                versions = proc.stdout.strip()
    if not versions:
        st = executable.stat()
        versions = f"{executable.resolve()}:{st.st_size}:{st.st_mtime_ns}"
    digest.update(versions.encode())
    settings = _migration_settings(env)
    for key in sorted(settings):
        digest.update(f"\0{key}={settings[key]}".encode())
    return digest.hexdigest()[:20]


def migrate(
    executable: Path, data_dir: Path, env: Mapping[str, str], deadline: float, log_path: Path
) -> None:
    """Apply Label Studio's migrations to the database `env` names (SQLite in `data_dir`, or a
    PostgreSQL database) and exit: ``label-studio version`` migrates like ``start`` does, then
    prints its versions instead of serving. TimeoutError(`log_path`) past `deadline` (the process
    group is killed), RuntimeError when it fails (the last line of its output says why)."""
    argv = [str(executable), "version", "--data-dir", str(data_dir)]
    with open(log_path, "ab") as log:
        os.fchmod(log.fileno(), 0o600)
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=data_dir,
            env=dict(env),
            start_new_session=True,
        )
    try:
        code = proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise TimeoutError(str(log_path)) from None
    if code != 0:
        tail = log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        raise RuntimeError(
            f"`label-studio version` exited with code {code}: {tail[-1] if tail else ''}"
        )


@contextlib.contextmanager
def _locked(path: Path, deadline: float, log_path: Path) -> Iterator[None]:
    """An exclusive flock on `path`, waited for until `deadline` (then TimeoutError(`log_path`):
    the log of the build that holds it)."""
    with open(path, "a") as fh:
        while True:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise TimeoutError(str(log_path)) from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def template(executable: Path, env: Mapping[str, str], key: str, deadline: float) -> Path:
    """The template database for fingerprint `key`, built first when it is not cached yet.

    `env` is the server's environment (its data folder is replaced by the build's own).
    TimeoutError(the build's log) past `deadline`; RuntimeError when the migrations fail.
    """
    root = private_dir(cache_dir())
    path = root / f"{key}.sqlite3"
    if path.is_file():
        return path
    log = root / f"{key}.build.log"
    with _locked(root / f"{key}.lock", deadline, log):
        if path.is_file():  # built by the start we waited for
            return path
        for stale in root.glob(f".build-{key}-*"):  # of a build killed outright (the lock is ours)
            shutil.rmtree(stale, ignore_errors=True)
        build = Path(tempfile.mkdtemp(prefix=f".build-{key}-", dir=root))
        try:
            child = {**env, "LABEL_STUDIO_BASE_DATA_DIR": str(build)}
            # appended: one build per fingerprint, unless someone removes the template
            migrate(executable, build, child, deadline, log)
            built = build / DATABASE_FILE
            os.chmod(built, 0o600)
            os.replace(built, path)
        finally:
            # the build's .env holds a SECRET_KEY no server uses: it goes with the folder
            shutil.rmtree(build, ignore_errors=True)
    return path


def seed(data_dir: Path, template_path: Path) -> None:
    """Put a copy of the template where Label Studio keeps the database of `data_dir` (0600),
    through SQLite's backup API (a consistent copy, even of a file being read)."""
    target = data_dir / DATABASE_FILE
    tmp = data_dir / (DATABASE_FILE + ".seed")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(fd)
    try:
        with (
            contextlib.closing(
                sqlite3.connect(f"{template_path.resolve().as_uri()}?mode=ro", uri=True)
            ) as src,
            contextlib.closing(sqlite3.connect(tmp)) as dst,
        ):
            src.backup(dst)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
