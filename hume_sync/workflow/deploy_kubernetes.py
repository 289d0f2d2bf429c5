"""The Kubernetes form of `hume-sync deploy` (the same roster and environment as Compose).

PostgreSQL is a StatefulSet (its own volume claim template) with the database script in a
ConfigMap mounted into /docker-entrypoint-initdb.d; each Label Studio is a Deployment with a
PersistentVolumeClaim for its data folder (so each keeps the SECRET_KEY it generated) and a
Service; the ML backend shares the ``hume-study`` claim where hume-sync writes the study (run
hume-sync in a pod that mounts it, e.g. ``kubectl exec deploy/ml-backend -- hume-sync ...``:
the image carries the CLI). Secrets are one Secret (``secret.yaml``, 0600); every container
reads them with ``secretKeyRef``, so no other manifest holds one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from hume_sync.store import Store
from hume_sync.workflow import deploy as d

SECRET_NAME = "hume"
_REF = re.compile(r"^\$\{(?P<name>[A-Z][A-Z0-9_]*)(:\?[^}]*|:-(?P<default>[^}]*))?\}$")


def _labels(app: str) -> dict[str, str]:
    return {"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "hume"}


def _env(compose_env: dict[str, str], secret_keys: set[str]) -> list[dict[str, Any]]:
    """Compose's ``${NAME:?}`` → a secretKeyRef, ``${NAME:-x}`` → ``x``, literals as is."""
    out: list[dict[str, Any]] = []
    for key, value in compose_env.items():
        m = _REF.match(value)
        if m and m["name"] in secret_keys:
            ref = {"secretKeyRef": {"name": SECRET_NAME, "key": m["name"]}}
            out.append({"name": key, "valueFrom": ref})
        else:
            out.append({"name": key, "value": m["default"] if m else value})
    return out


def _pvc(name: str, size: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "labels": _labels(name)},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}},
    }


def _service(name: str, port: int, target: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "labels": _labels(name)},
        "spec": {
            "selector": {"app.kubernetes.io/name": name},
            "ports": [{"name": "http", "port": port, "targetPort": target}],
        },
    }


def _deployment(name: str, container: dict[str, Any], volumes: list[dict[str, Any]]) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": _labels(name)},
        "spec": {
            "replicas": 1,
            "strategy": {"type": "Recreate"},  # one writer per data volume
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": {
                "metadata": {"labels": _labels(name)},
                "spec": {"containers": [container], "volumes": volumes},
            },
        },
    }


def _postgres(keys: set[str]) -> list[dict[str, Any]]:
    env = d.compose_document([])["services"]["postgres"]["environment"]
    container = {
        "name": "postgres",
        "image": d.POSTGRES_IMAGE,
        "env": [*_env(env, keys), {"name": "PGDATA", "value": "/var/lib/postgresql/data/pg"}],
        "ports": [{"containerPort": 5432}],
        "readinessProbe": {
            "exec": {"command": ["pg_isready", "-U", d.DB_USER, "-d", d.DB_USER]},
            "periodSeconds": 10,
        },
        "volumeMounts": [
            {"name": "pgdata", "mountPath": "/var/lib/postgresql/data"},
            {"name": "init", "mountPath": "/docker-entrypoint-initdb.d", "readOnly": True},
        ],
    }
    statefulset = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "postgres", "labels": _labels("postgres")},
        "spec": {
            "serviceName": "postgres",
            "replicas": 1,
            "selector": {"matchLabels": {"app.kubernetes.io/name": "postgres"}},
            "template": {
                "metadata": {"labels": _labels("postgres")},
                "spec": {
                    "containers": [container],
                    "volumes": [{"name": "init", "configMap": {"name": "hume-postgres-init"}}],
                },
            },
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "pgdata"},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "10Gi"}},
                    },
                }
            ],
        },
    }
    return [statefulset, _service("postgres", 5432, 5432)]


def _label_studio(s: d.Slot, keys: set[str]) -> list[dict[str, Any]]:
    claim = f"{s.service}-data"
    container = {
        "name": "label-studio",
        "image": d.LABEL_STUDIO_IMAGE,
        "env": _env(d.label_studio_env(s), keys),
        "ports": [{"containerPort": 8080}],
        "readinessProbe": {"httpGet": {"path": "/health", "port": 8080}, "periodSeconds": 15},
        "volumeMounts": [{"name": "data", "mountPath": "/label-studio/data"}],
    }
    volumes = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
    return [
        _pvc(claim, "5Gi"),
        _deployment(s.service, container, volumes),
        _service(s.service, s.port, 8080),
    ]


def _ml_backend(keys: set[str]) -> list[dict[str, Any]]:
    env = d.ml_backend_env()
    container = {
        "name": "ml-backend",
        "image": d.ML_BACKEND_IMAGE,
        "args": d.ml_backend_command("4")[1:],
        "command": d.ml_backend_command()[:1],
        "env": _env(env, keys),
        "ports": [{"containerPort": d.ML_PORT}],
        "readinessProbe": {
            "exec": {"command": ["python", "-m", "ml_backend.healthcheck"]},
            "periodSeconds": 30,
        },
        "volumeMounts": [{"name": "study", "mountPath": d.STUDY_MOUNT}],
    }
    volumes = [{"name": "study", "persistentVolumeClaim": {"claimName": "hume-study"}}]
    return [
        _pvc("hume-study", "5Gi"),
        _deployment("ml-backend", container, volumes),
        _service("ml-backend", d.ML_PORT, d.ML_PORT),
    ]


def manifests(
    slots: Sequence[d.Slot], values: dict[str, str], sql: str
) -> dict[str, tuple[list[dict[str, Any]], int]]:
    """File name → (documents, file mode)."""
    keys = set(values)
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": SECRET_NAME, "labels": _labels(SECRET_NAME)},
        "type": "Opaque",
        "stringData": dict(values),
    }
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "hume-postgres-init", "labels": _labels("postgres")},
        "data": {"10-databases.sql": sql},
    }
    servers = [doc for s in slots for doc in _label_studio(s, keys)]
    return {
        "secret.yaml": ([secret], 0o600),
        "postgres.yaml": ([config, *_postgres(keys)], 0o644),
        "label-studio.yaml": (servers, 0o644),
        "ml-backend.yaml": (_ml_backend(keys), 0o644),
    }


def deploy_kubernetes(
    store: Store, study: Path, out: Path, emails: Sequence[str] = (), *, force: bool = False
) -> list[d.Slot]:
    slots = d.roster(store, emails)
    keep = d.read_env_file(out / d.ENV_FILE)
    values = d.generate_secrets(slots, keep)
    files = {
        name: (yaml.safe_dump_all(docs, sort_keys=False, width=100), mode)
        for name, (docs, mode) in manifests(slots, values, d.init_sql(slots)).items()
    }
    # The secrets again as a .env, so that a rerun with --force keeps them.
    files[d.ENV_FILE] = (d.render_env(slots, study, values), 0o600)
    d.write_folder(out, files, force)
    return slots
