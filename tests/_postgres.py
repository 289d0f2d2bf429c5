"""A private PostgreSQL cluster for the tests, and the Label Studio environment that points at it.

The cluster is made with the distribution's own binaries (``initdb``, ``pg_ctl``; Debian ships them
in /usr/lib/postgresql/<major>/bin) in a temporary folder, listens on 127.0.0.1 on a free port (its
Unix socket sits in the same private folder, never in /var/run/postgresql) and requires a password
for every connection (SCRAM). It is laid out like the ``postgres`` service of docker-compose.yml:
the role named by ``POSTGRES_USER`` (the image makes it the superuser) with ``POSTGRES_PASSWORD``,
owning the database ``POSTGRES_DB``.

``initdb`` refuses to run as root, and CI runs as root: the cluster then runs as ``nobody`` in a
folder that user owns (the processes get its uid and gid, and no supplementary groups). As
``nobody`` it can touch nothing of the machine's own PostgreSQL (that belongs to ``postgres``).
The password reaches ``initdb`` through a 0600 file that is removed right after, and ``psql``
through its environment (PGPASSWORD), never the command line.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

__all__ = [
    "COMPOSE_DB",
    "COMPOSE_USER",
    "PostgresCluster",
    "PostgresCommandError",
    "PostgresUnavailableError",
    "find_bindir",
    "start_cluster",
]

# The names docker-compose.yml gives the database and its role (tests/integration/test_postgres.py
# checks these against the file).
COMPOSE_DB = "labelstudio"
COMPOSE_USER = "labelstudio"
UNPRIVILEGED_USER = "nobody"
#: The database Label Studio migrates once per cluster; annotators' databases are copies of it.
LS_TEMPLATE_DB = "hume_ls_template"
_TEMPLATE_LOCK = threading.Lock()
_VERSION_DIR = re.compile(r"^\d+(\.\d+)?$")


class PostgresUnavailableError(RuntimeError):
    """No PostgreSQL server binaries on this machine."""


class PostgresCommandError(subprocess.CalledProcessError):
    """A PostgreSQL program failed; its message says which and what it wrote to stderr."""

    def __str__(self) -> str:
        detail = (self.stderr or "").strip() or "(nothing on stderr)"
        return f"{Path(str(self.cmd)).name} exited with code {self.returncode}: {detail}"


def find_bindir() -> Path:
    """The folder with initdb/pg_ctl/postgres/psql: Debian's newest major version, else PATH."""
    root = Path("/usr/lib/postgresql")
    versions = sorted(
        (p for p in root.glob("*") if _VERSION_DIR.match(p.name)),
        key=lambda p: tuple(int(x) for x in p.name.split(".")),
        reverse=True,
    )
    for version in versions:
        if (version / "bin" / "initdb").is_file() and (version / "bin" / "pg_ctl").is_file():
            return version / "bin"
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl", path=str(Path(initdb).parent)):
        return Path(initdb).parent
    raise PostgresUnavailableError(
        "PostgreSQL's initdb/pg_ctl were not found in /usr/lib/postgresql/*/bin or on PATH "
        "(Debian: apt-get install postgresql)"
    )


@dataclass(frozen=True)
class PostgresCluster:
    """A running private cluster: where it listens, its role and database, how to query it."""

    bindir: Path
    root: Path  # owned by the cluster's user: data/, the socket, the server log
    host: str
    port: int
    user: str
    dbname: str
    password: str = field(repr=False)
    uid: int | None  # the OS user the cluster runs as when started by root (None: ourselves)
    gid: int | None
    startup_s: float

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def log_path(self) -> Path:
        return self.root / "server.log"

    def label_studio_env(self) -> dict[str, str]:
        """Label Studio's database settings, named as docker-compose.yml's label-studio service
        names them (DJANGO_DB=default selects the PostgreSQL entry of its DATABASES)."""
        return {
            "DJANGO_DB": "default",
            "POSTGRE_NAME": self.dbname,
            "POSTGRE_USER": self.user,
            "POSTGRE_PASSWORD": self.password,
            "POSTGRE_HOST": self.host,
            "POSTGRE_PORT": str(self.port),
        }

    def database(self, name: str, *, template: str | None = None) -> PostgresCluster:
        """Another database of the cluster, owned by the same role (created if missing, as a
        copy of `template` when given): the same cluster seen through that database (e.g. one
        per annotator's Label Studio)."""
        for n in (name, template or name):
            if not re.fullmatch(r"[a-z_][a-z0-9_]*", n):
                raise ValueError(f"not a plain database name: {n!r}")
        exists = self.psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'", dbname="postgres")
        if not exists:
            copy = f" TEMPLATE {template}" if template else ""
            self.psql(f"CREATE DATABASE {name} OWNER {self.user}{copy}", dbname="postgres")
        return replace(self, dbname=name)

    def label_studio_database(self, name: str) -> PostgresCluster:
        """`database(name)` already migrated by Label Studio: a copy (``CREATE DATABASE ...
        TEMPLATE``, a file copy inside the server) of one database per cluster, which is
        restored from a schema dump cached beside the SQLite templates
        (hume_sync/labelstudio/prepared_db.py; keyed by the same fingerprint and the server's
        major version) or, the first time, migrated by Label Studio and then dumped. Made under
        a lock; holds no user, token or session (Label Studio creates those at each server's
        first start), and a half-made one is never used (renamed once complete)."""
        from hume_sync.labelstudio import prepared_db, server  # the product's own way

        with _TEMPLATE_LOCK:
            made = self.psql(
                f"SELECT 1 FROM pg_database WHERE datname = '{LS_TEMPLATE_DB}'", dbname="postgres"
            )
            if not made:
                building = self.database(f"{LS_TEMPLATE_DB}_build")
                env = building.label_studio_env()
                (major,) = building.psql("SHOW server_version_num")[0]
                dump = prepared_db.cache_dir() / (
                    f"{server.migration_fingerprint(env)}-pg{int(major) // 10000}.sql"
                )
                if dump.is_file():
                    building.psql(dump.read_text(encoding="utf-8"))
                else:
                    server.migrate_database(env, timeout=900)
                    _write_private(dump, building.pg_dump())
                self.psql(
                    f"ALTER DATABASE {building.dbname} RENAME TO {LS_TEMPLATE_DB}",
                    dbname="postgres",
                )
        return self.database(name, template=LS_TEMPLATE_DB)

    def pg_dump(self) -> str:
        """This database as SQL (schema and rows), without owners or grants: a copy restores
        into a database of any role."""
        return _run(
            [
                str(self.bindir / "pg_dump"),
                "--no-owner",
                "--no-privileges",
                "--no-comments",
                "-h",
                self.host,
                "-p",
                str(self.port),
                "-U",
                self.user,
                "-d",
                self.dbname,
            ],
            self,
            env={"PGPASSWORD": self.password, "PGCONNECT_TIMEOUT": "10"},
        )

    def psql(self, sql: str, *, dbname: str | None = None) -> list[list[str]]:
        """Run `sql` over TCP with the role's password; rows as lists of strings."""
        out = _run(
            [
                str(self.bindir / "psql"),
                "-X",  # no ~/.psqlrc
                "-q",
                "-A",  # unaligned
                "-t",  # tuples only
                "-F",
                "\t",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                self.host,
                "-p",
                str(self.port),
                "-U",
                self.user,
                "-d",
                dbname or self.dbname,
            ],
            self,
            stdin=sql,
            env={"PGPASSWORD": self.password, "PGCONNECT_TIMEOUT": "10"},
        )
        return [line.split("\t") for line in out.splitlines() if line]

    def pg_ctl(self, action: str, *options: str) -> str:
        """`pg_ctl start|stop ...` on this cluster, waiting (up to 60 s) until it is done."""
        return _run(
            [
                str(self.bindir / "pg_ctl"),
                action,
                "-D",
                str(self.data_dir),
                "-w",
                "-t",
                "60",
                *options,
            ],
            self,
        )

    def stop(self) -> None:
        """Fast shutdown (rolls back open transactions), then remove the folder."""
        if (self.data_dir / "postmaster.pid").exists():
            with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
                self.pg_ctl("stop", "-m", "fast")
        shutil.rmtree(self.root, ignore_errors=True)


def _write_private(path: Path, text: str) -> None:
    """Write `text` to `path` (0600) through a temporary file: readers see all of it or none."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _identity() -> tuple[int | None, int | None]:
    """(uid, gid) to run the cluster as: `nobody` when we are root, else ourselves (None)."""
    if os.geteuid() != 0:
        return None, None
    entry = pwd.getpwnam(UNPRIVILEGED_USER)
    return entry.pw_uid, entry.pw_gid


def _traversable(folder: Path) -> bool:
    """True when any user may pass through `folder` and every folder above it (o+x)."""
    try:
        return all(os.stat(p).st_mode & 0o001 for p in (folder, *folder.parents))
    except OSError:
        return False


def _run(
    argv: Sequence[str],
    who: PostgresCluster | tuple[int | None, int | None],
    *,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 120.0,
) -> str:
    """Run a PostgreSQL program as the cluster's user; its stdout, or PostgresCommandError with
    its stderr (which never holds the password: that travels only in files and the environment)."""
    uid, gid = (who.uid, who.gid) if isinstance(who, PostgresCluster) else who
    child_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LC_ALL": "C",
        "HOME": "/nonexistent" if uid is not None else os.environ.get("HOME", "/"),
        **(env or {}),
    }
    drop = {"user": uid, "group": gid, "extra_groups": []} if uid is not None else {}
    proc = subprocess.run(
        list(argv),
        input=stdin,
        capture_output=True,
        text=True,
        env=child_env,
        cwd="/",
        timeout=timeout,
        check=False,
        **drop,
    )
    if proc.returncode != 0:
        raise PostgresCommandError(proc.returncode, argv[0], proc.stdout, proc.stderr)
    return proc.stdout


def start_cluster(port: int, *, parent: Path | None = None) -> PostgresCluster:
    """initdb + pg_ctl start a cluster on 127.0.0.1:`port`; create the database. Raises
    PostgresUnavailableError without binaries, PostgresCommandError when a step fails (the folder
    is removed then)."""
    bindir = find_bindir()
    started = time.monotonic()
    uid, gid = _identity()
    # Not under pytest's basetemp: that is 0700 and root's, so `nobody` could not reach it.
    if parent is None and uid is not None and not _traversable(Path(tempfile.gettempdir())):
        parent = Path("/tmp")
    root = Path(tempfile.mkdtemp(prefix="hume-pg-", dir=parent))
    if uid is not None:
        os.chown(root, uid, gid if gid is not None else -1)
    cluster = PostgresCluster(
        bindir=bindir,
        root=root,
        host="127.0.0.1",
        port=port,
        user=COMPOSE_USER,
        dbname=COMPOSE_DB,
        password=secrets.token_urlsafe(24),
        uid=uid,
        gid=gid,
        startup_s=0.0,
    )
    try:
        pwfile = root / "pwfile"
        fd = os.open(pwfile, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(cluster.password + "\n")
        if uid is not None:
            os.chown(pwfile, uid, gid if gid is not None else -1)
        try:
            _run(
                [
                    str(bindir / "initdb"),
                    "-D",
                    str(cluster.data_dir),
                    "-U",
                    cluster.user,
                    f"--pwfile={pwfile}",
                    "--auth=scram-sha-256",
                    "--encoding=UTF8",
                    "--no-locale",
                    "--no-sync",  # a throw-away cluster: no fsync of the new files
                ],
                cluster,
            )
        finally:
            pwfile.unlink(missing_ok=True)
        # Loopback only, the socket in our own folder; durability off (thrown away at the end).
        with open(cluster.data_dir / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write(
                "\n# hume test cluster\n"
                "listen_addresses = '127.0.0.1'\n"
                f"port = {port}\n"
                f"unix_socket_directories = '{root}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
            )
        cluster.pg_ctl("start", "-l", str(cluster.log_path))
        cluster.psql(f"CREATE DATABASE {cluster.dbname} OWNER {cluster.user}", dbname="postgres")
    except BaseException:
        cluster.stop()
        raise
    return replace(cluster, startup_s=time.monotonic() - started)
