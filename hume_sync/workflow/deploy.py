"""`hume-sync deploy compose|kubernetes`: a team's servers written from the study's roster.

One Label Studio per annotator (README "Blind annotation": in Label Studio Community every
member of a server reads every project), one for the manager, PostgreSQL with a database per
server, and the ML backend reading the study folder where hume writes it (a bind mount in
Compose, a volume in Kubernetes: no copy step after ``predict``).

Why written here rather than with a template engine: the files are data (dicts dumped as YAML,
so they always parse and the tests validate exactly what is written), and their facts live in
one place: :func:`label_studio_env` is the environment of every Label Studio service, built on
``hume_sync.labelstudio.server.SERVER_ENV`` (the switches ``hume-sync up`` gives its own
servers); the ML backend's variables are the names ``ml_backend.app`` and
``hume_sync.workflow.backend`` read.

Secrets: the compose file and the manifests other than the Secret name variables only; the
values are generated into ``.env`` (Compose) or ``secret.yaml`` (Kubernetes), both 0600, and
never printed. Rerunning with ``--force`` (an annotator added) keeps every secret already in
the folder's ``.env``: PostgreSQL and each Label Studio keep the passwords they were first
started with. The repository's ``docker-compose.yml`` is :func:`render_compose` of the
two-annotator roster (:func:`example_roster`), checked by tests/test_deploy.py.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from hume_sync.errors import CliError
from hume_sync.labelstudio.annotators import EMAIL_RE
from hume_sync.labelstudio.server import SERVER_ENV
from hume_sync.store import Store
from hume_sync.workflow.backend import STUDY_DIR_ENV
from ml_backend.app import AUTH_PASSWORD_ENV, AUTH_USER_ENV

LABEL_STUDIO_IMAGE = "heartexlabs/label-studio:1.23.2"
POSTGRES_IMAGE = "postgres:16-alpine"
ML_BACKEND_IMAGE = "hume-ml-backend:latest"
DB_USER = "labelstudio"
ADMIN_EMAIL = "admin@hume.local"
STUDY_MOUNT = "/study"
ML_PORT = 9090
MANAGER_PORT = 8080
FIRST_ANNOTATOR_PORT = 8081
COMPOSE_FILE = "docker-compose.yml"
ENV_FILE = ".env"
INIT_SQL = "deploy/postgres-databases.sql"
#: Label Studio variables that differ per server; SECRET_KEY is never set: each server's data
#: volume generates its own, so a session or token of one server opens no other.
_PER_SERVER = ("POSTGRE_NAME", "LABEL_STUDIO_PASSWORD", "LABEL_STUDIO_USER_TOKEN")


@dataclass(frozen=True)
class Slot:
    """One Label Studio service: an annotator's (slot number) or the manager's (``slot=0``)."""

    slot: int
    email: str | None = None

    @property
    def service(self) -> str:
        return "manager" if self.slot == 0 else f"annotator-{self.slot}"

    @property
    def prefix(self) -> str:  # of its variables: ANNOTATOR_1_TOKEN, MANAGER_TOKEN
        return self.service.replace("-", "_").upper()

    @property
    def database(self) -> str:
        return self.service.replace("-", "_")

    @property
    def port(self) -> int:
        return MANAGER_PORT if self.slot == 0 else FIRST_ANNOTATOR_PORT + self.slot - 1


def example_roster() -> list[Slot]:
    """The repository's docker-compose.yml: the manager and two annotators, no emails."""
    return [Slot(0), Slot(1), Slot(2)]


def roster(store: Store, emails: Sequence[str] = ()) -> list[Slot]:
    """The manager and every annotator: those registered in the study (their slots), then
    ``emails`` not registered yet, in the order ``annotators add`` will give them slots.

    A retired slot (``annotators remove``) gets no server: its answers are in the store, and
    the other slots keep their numbers and ports (new ones come after the last slot ever
    given, as ``annotators add`` numbers them)."""
    everyone = store.annotators()
    slots = [Slot(0)] + [Slot(a.slot, a.email) for a in everyone if a.retired_at is None]
    retired = {a.email.lower(): a for a in everyone if a.retired_at is not None}
    known = {a.email.lower() for a in everyone}
    last = max((a.slot for a in everyone), default=0)
    for email in emails:
        email = email.strip()
        if not EMAIL_RE.match(email):
            raise CliError(f"--annotator: not an email address: {email!r}")
        if email.lower() in retired:
            raise CliError(
                f"--annotator: {email} was removed from this study (slot "
                f"{retired[email.lower()].slot}); someone who comes back joins under another email"
            )
        if email.lower() not in known:
            last += 1
            slots.append(Slot(last, email))
            known.add(email.lower())
    if len(slots) == 1:
        raise CliError(
            "no annotators registered yet: register them ('hume-sync annotators add') or name "
            "them with --annotator EMAIL"
        )
    return slots


def secret_names(slots: Sequence[Slot]) -> list[str]:
    """Every generated secret's variable name."""
    names = ["POSTGRES_PASSWORD", AUTH_PASSWORD_ENV]
    for s in slots:
        names += [f"{s.prefix}_ADMIN_PASSWORD", f"{s.prefix}_TOKEN"]
    return names


def _required(name: str) -> str:
    return f"${{{name}:?set {name}}}"


def label_studio_env(s: Slot, *, db_host: str = "postgres") -> dict[str, str]:
    """The environment of one Label Studio service (secrets as ``${NAME:?}`` references)."""
    env = {
        "DJANGO_DB": "default",
        "POSTGRE_NAME": s.database,
        "POSTGRE_USER": DB_USER,
        "POSTGRE_PASSWORD": _required("POSTGRES_PASSWORD"),
        "POSTGRE_HOST": db_host,
        "POSTGRE_PORT": "5432",
        "LABEL_STUDIO_USERNAME": f"${{LABEL_STUDIO_USERNAME:-{ADMIN_EMAIL}}}",
        "LABEL_STUDIO_PASSWORD": _required(f"{s.prefix}_ADMIN_PASSWORD"),
        "LABEL_STUDIO_USER_TOKEN": _required(f"{s.prefix}_TOKEN"),
    }
    skip = {"DJANGO_DB", "DJANGO_SETTINGS_MODULE"}  # the image sets its own settings module
    env.update({k: v for k, v in SERVER_ENV.items() if k not in skip})
    return env


def _healthcheck_ls() -> dict[str, Any]:
    probe = (
        "import urllib.request,sys; "
        "sys.exit(urllib.request.urlopen('http://127.0.0.1:8080/health').status != 200)"
    )
    return {
        "test": ["CMD", "python3", "-c", probe],
        "interval": "15s",
        "timeout": "5s",
        "retries": 20,
        "start_period": "60s",
    }


def ml_backend_command(workers: str = "${ML_BACKEND_WORKERS:-4}") -> list[str]:
    """Several gunicorn workers by default: /predict is CPU work under Python's GIL."""
    return ["hume-ml-backend", "--study-dir", STUDY_MOUNT, "--bind", f"0.0.0.0:{ML_PORT}",
            "--workers", workers, "--threads", "4"]  # fmt: skip


def ml_backend_env() -> dict[str, str]:
    """What the backend reads: the study, its basic-auth pair, and no Label Studio token (it
    answers from the study store alone)."""
    return {
        STUDY_DIR_ENV: STUDY_MOUNT,
        AUTH_USER_ENV: "${ML_BACKEND_USER:-labelstudio}",
        AUTH_PASSWORD_ENV: _required(AUTH_PASSWORD_ENV),
        "HF_HUB_OFFLINE": "1",
    }


def compose_document(slots: Sequence[Slot], build_context: str | None = ".") -> dict[str, Any]:
    """The compose file as data."""
    services: dict[str, Any] = {
        "postgres": {
            "image": POSTGRES_IMAGE,
            "restart": "unless-stopped",
            "environment": {
                "POSTGRES_DB": DB_USER,
                "POSTGRES_USER": DB_USER,
                "POSTGRES_PASSWORD": _required("POSTGRES_PASSWORD"),
            },
            "volumes": [
                "pgdata:/var/lib/postgresql/data",
                f"./{INIT_SQL}:/docker-entrypoint-initdb.d/10-databases.sql:ro",
            ],
            "healthcheck": {
                "test": ["CMD-SHELL", f"pg_isready -U {DB_USER} -d {DB_USER}"],
                "interval": "10s",
                "timeout": "5s",
                "retries": 10,
            },
        },
        # Label Studio Community 1.23.2 hard-codes REDIS_ENABLED = False: Redis only for
        # Enterprise images and later releases (`docker compose --profile redis up`).
        "redis": {
            "image": "redis:7-alpine",
            "profiles": ["redis"],
            "restart": "unless-stopped",
            "command": ["redis-server", "--appendonly", "yes"],
            "volumes": ["redisdata:/data"],
            "healthcheck": {
                "test": ["CMD", "redis-cli", "ping"],
                "interval": "10s",
                "timeout": "5s",
                "retries": 10,
            },
        },
    }
    volumes: dict[str, Any] = {"pgdata": None, "redisdata": None}
    for s in slots:
        services[s.service] = {
            "image": LABEL_STUDIO_IMAGE,
            "restart": "unless-stopped",
            "depends_on": {"postgres": {"condition": "service_healthy"}},
            "ports": [f"${{{s.prefix}_PORT:-{s.port}}}:8080"],
            "environment": label_studio_env(s),
            "volumes": [f"{s.database}_data:/label-studio/data"],
            "healthcheck": _healthcheck_ls(),
        }
        volumes[f"{s.database}_data"] = None
    ml: dict[str, Any] = {"image": ML_BACKEND_IMAGE}
    if build_context is not None:
        ml["build"] = build_context
    ml.update(
        {
            "restart": "unless-stopped",
            # The host user's ids: the study folder hume writes is 0700, theirs.
            "user": "${HUME_UID:-1000}:${HUME_GID:-1000}",
            "command": ml_backend_command(),
            "ports": [f"${{ML_BACKEND_PORT:-{ML_PORT}}}:{ML_PORT}"],
            "environment": ml_backend_env(),
            "volumes": [f"{_required('HUME_STUDY_HOST')}:{STUDY_MOUNT}"],
            "healthcheck": {
                "test": ["CMD", "python", "-m", "ml_backend.healthcheck"],
                "interval": "30s",
                "timeout": "5s",
                "retries": 5,
            },
        }
    )
    services["ml-backend"] = ml
    return {"services": services, "volumes": volumes}


def _header(slots: Sequence[Slot], generated_by: str) -> str:
    lines = [
        f"# Written by `{generated_by}` (hume_sync/workflow/deploy.py); a team writes its own",
        "# with `hume-sync deploy compose STUDY --out DIR`. One Label Studio per annotator",
        '# (README "Blind annotation"), the manager\'s, PostgreSQL (a database each:',
        "# deploy/postgres-databases.sql) and the ML backend, reading the study folder",
        "# HUME_STUDY_HOST where hume writes it. Secrets come from .env (never from this file).",
    ]
    for s in slots:
        who = "the manager" if s.slot == 0 else (s.email or f"annotator slot {s.slot}")
        lines.append(f"#   {s.service}: {who}, port {s.port}")
    return "\n".join(lines) + "\n"


def render_compose(
    slots: Sequence[Slot],
    build_context: str | None = ".",
    generated_by: str = "hume-sync deploy compose",
) -> str:
    body = yaml.safe_dump(compose_document(slots, build_context), sort_keys=False, width=100)
    return _header(slots, generated_by) + body.replace("null\n", "\n").replace(": \n", ":\n")


def init_sql(slots: Sequence[Slot]) -> str:
    """Run once by the postgres image on a new volume; on an existing one, run the new lines
    with psql (``docker compose exec postgres psql -U labelstudio``)."""
    lines = ["-- A database per Label Studio server (hume_sync/workflow/deploy.py)."]
    lines += [f"CREATE DATABASE {s.database} OWNER {DB_USER};" for s in slots]
    return "\n".join(lines) + "\n"


def read_env_file(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def generate_secrets(slots: Sequence[Slot], keep: dict[str, str]) -> dict[str, str]:
    """Every secret: kept from ``keep`` where present, else new (40-hex tokens: the size of
    a Django REST token key, as hume-sync up makes them)."""
    out = {}
    for name in secret_names(slots):
        fresh = secrets.token_hex(20) if name.endswith("_TOKEN") else secrets.token_urlsafe(24)
        out[name] = keep.get(name) or fresh
    return out


def render_env(slots: Sequence[Slot], study: Path, values: dict[str, str]) -> str:
    lines = [
        "# Secrets of this deployment (mode 0600): never commit or print. Regenerate the",
        "# folder with --force to add annotators; the secrets below are kept.",
        f"HUME_STUDY_HOST={study.resolve()}",
        f"HUME_UID={os.getuid()}",
        f"HUME_GID={os.getgid()}",
    ]
    lines += [f"{k}={v}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def _source_root() -> Path | None:
    """The folder holding hume's Dockerfile (a checkout), if hume runs from one."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "Dockerfile").is_file() else None


def next_steps(slots: Sequence[Slot], study: Path, out: Path, kind: str) -> list[str]:
    """What to run after deploying (no secret: the tokens are named, read from .env)."""
    if kind == "compose":
        # -f, not cd: the study and output paths in the steps below stay valid
        start = [
            f"docker compose -f {out / COMPOSE_FILE} up -d",
            f"set -a; . {out / ENV_FILE}; set +a",
        ]
    else:
        start = [f"kubectl apply -f {out}", "(tokens: kubectl get secret hume -o yaml)"]
    add = [
        f"LABEL_STUDIO_API_KEY=${s.prefix}_TOKEN hume-sync annotators add {study} "
        f"{s.email or 'EMAIL'} --url http://HOST:{s.port}"
        for s in slots
        if s.slot and s.email
    ]
    # Label Studio reaches the backend by its service name; the user defaults as in the backend
    setup = (
        f"{AUTH_USER_ENV}=${{{AUTH_USER_ENV}:-labelstudio}} hume-sync setup {study} "
        f"--ml-backend http://ml-backend:{ML_PORT}"
    )
    manager = (
        f"LABEL_STUDIO_API_KEY=$MANAGER_TOKEN hume-sync manager up --url http://HOST:{MANAGER_PORT}"
    )
    return start + add + [manager, setup, f"hume-sync status {study}"]


def write_folder(out: Path, files: dict[str, tuple[str, int]], force: bool) -> None:
    """Write every file into a fresh folder beside ``out``, then swap it in: a failure
    leaves ``out`` as it was."""
    if out.exists() and not force:
        raise CliError(f"{out} exists: choose another --out or pass --force to replace it")
    if out.exists() and not out.is_dir():
        raise CliError(f"{out} is not a folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for rel, (text, mode) in files.items():
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
        if out.exists():
            old = out.with_name(f".{out.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            out.rename(old)
            tmp.rename(out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(out)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise CliError(f"cannot write {out}: {exc.strerror}") from None


def deploy_compose(
    store: Store, study: Path, out: Path, emails: Sequence[str] = (), *, force: bool = False
) -> list[Slot]:
    slots = roster(store, emails)
    values = generate_secrets(slots, read_env_file(out / ENV_FILE))
    root = _source_root()
    context = str(root) if root else None  # else: build hume-ml-backend:latest yourself
    files = {
        COMPOSE_FILE: (render_compose(slots, context), 0o644),
        INIT_SQL: (init_sql(slots), 0o644),
        ENV_FILE: (render_env(slots, study, values), 0o600),
    }
    write_folder(out, files, force)
    return slots


def write_repository_example(root: Path) -> None:
    """The repository's docker-compose.yml and its database script (the example roster)."""
    slots = example_roster()
    text = render_compose(slots, ".", generated_by=REPOSITORY_COMMAND)
    (root / COMPOSE_FILE).write_text(text, encoding="utf-8")
    (root / INIT_SQL).write_text(init_sql(slots), encoding="utf-8")


REPOSITORY_COMMAND = "python -m hume_sync.workflow.deploy"

if __name__ == "__main__":  # regenerate the repository's example files
    write_repository_example(Path(__file__).resolve().parents[2])
