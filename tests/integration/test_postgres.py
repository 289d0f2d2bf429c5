"""Label Studio on a real PostgreSQL, configured as docker-compose.yml configures it.

The private cluster (tests/_postgres.py) stands in for compose's `postgres` service and
`annotator_servers_pg` for its annotator Label Studio services (a database each); the
end-to-end study runs on them in tests/integration/test_study_e2e.py. Here: the running
servers' own environment agrees with the compose file, their rows really are in PostgreSQL
(not in a silent SQLite fallback), and the cluster is private (password, loopback, an
unprivileged user).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from tests._paths import REPO_ROOT

pytestmark = pytest.mark.postgres

COMPOSE = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
# Compose's `${NAME:?message}` (required, no default: the secrets) and `${NAME:-default}`.
REQUIRED = re.compile(r"^\$\{(?P<name>[A-Z][A-Z0-9_]*):\?[^}]*\}$")
DEFAULTED = re.compile(r"^\$\{(?P<name>[A-Z][A-Z0-9_]*):-(?P<default>[^}]*)\}$")
# Where compose's network differs from ours by nature: the service's host name and port.
ADDRESS_KEYS = {"POSTGRE_HOST", "POSTGRE_PORT"}
# Every name Label Studio 1.23.2 reads for its database (core/settings/base.py, get_env: plain or
# with a LABEL_STUDIO_/HEARTEX_ prefix).
DB_SETTING = re.compile(
    r"^(LABEL_STUDIO_|HEARTEX_)?(DJANGO_DB|DATABASE_NAME|POSTGRE_[A-Z]+|MYSQL_[A-Z]+)$"
)


def compose_env(service: str) -> dict[str, str]:
    value = COMPOSE["services"][service]["environment"]
    if isinstance(value, list):
        value = dict(item.split("=", 1) for item in value)
    return {k: str(v) for k, v in value.items()}


def process_env(pid: int) -> dict[str, str]:
    """The environment a running process was started with (/proc/<pid>/environ)."""
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.split("=", 1) for item in raw.decode().split("\0") if "=" in item)


@pytest.mark.labelstudio
@pytest.mark.parametrize("n", [0, 1])
def test_label_studio_runs_with_compose_database_settings(
    annotator_servers_pg, postgres_cluster, n
):
    """Every variable compose gives an annotator's Label Studio is in the running server's
    environment, with compose's value (literal or default) except the secrets and the database's
    address; and no database setting that compose does not give."""
    ls = annotator_servers_pg[n].server
    pid = ls.info.pid
    assert pid is not None
    live = process_env(pid)
    compose = compose_env(f"annotator-{n + 1}")
    secrets = {
        "POSTGRE_PASSWORD": postgres_cluster.password,
        "LABEL_STUDIO_PASSWORD": ls.info.password,
        "LABEL_STUDIO_USER_TOKEN": ls.token,
    }
    address = {"POSTGRE_HOST": postgres_cluster.host, "POSTGRE_PORT": str(postgres_cluster.port)}
    for key, value in compose.items():
        assert key in live, f"compose sets {key}, the test server does not"
        if key in ADDRESS_KEYS:
            assert live[key] == address[key], key
        elif REQUIRED.match(value):
            assert live[key] == secrets[key], key  # a secret: ours, not compose's placeholder
        elif match := DEFAULTED.match(value):
            assert live[key] == match["default"], key
        else:
            assert live[key] == value, key  # POSTGRE_NAME included: annotator_<n>
    assert {k for k in live if DB_SETTING.match(k)} == {k for k in compose if DB_SETTING.match(k)}
    # The role is the one compose's postgres service creates.
    pg = compose_env("postgres")
    assert pg["POSTGRES_USER"] == postgres_cluster.user
    assert compose["POSTGRE_PASSWORD"].split(":")[0] == pg["POSTGRES_PASSWORD"].split(":")[0]


@pytest.mark.labelstudio
def test_projects_tasks_and_annotations_are_rows_in_postgresql(
    annotator_servers_pg, postgres_cluster
):
    ls_postgres_server = annotator_servers_pg[0].server
    client = ls_postgres_server.client()
    config = (
        '<View><Text name="text" value="$text"/>'
        '<Choices name="label" toName="text"><Choice value="a"/><Choice value="b"/></Choices>'
        "</View>"
    )
    project = client.create_project("postgres rows", config, maximum_annotations=1)
    task_ids = client.import_tasks(project["id"], [{"data": {"text": f"t{i}"}} for i in range(3)])
    result = [
        {"from_name": "label", "to_name": "text", "type": "choices", "value": {"choices": ["b"]}}
    ]
    annotation = client.create_annotation(task_ids[1], result, lead_time=4.5)

    database = process_env(ls_postgres_server.info.pid)["POSTGRE_NAME"]

    def psql(sql: str) -> list[list[str]]:
        return postgres_cluster.psql(sql, dbname=database)

    assert psql(f"SELECT title FROM project WHERE id = {project['id']}") == [["postgres rows"]]
    rows = psql(f"SELECT id, data FROM task WHERE project_id = {project['id']} ORDER BY id")
    assert [(int(i), json.loads(d)) for i, d in rows] == [
        (tid, {"text": f"t{n}"}) for n, tid in enumerate(task_ids)
    ]
    [[task, who, lead, stored]] = psql(
        "SELECT task_id, completed_by_id, lead_time, result FROM task_completion "
        f"WHERE id = {annotation['id']}"
    )
    assert (int(task), int(who), float(lead)) == (
        task_ids[1],
        client.whoami()["id"],
        4.5,
    )
    assert json.loads(stored)[0]["value"] == {"choices": ["b"]}
    # The admin that server.start created is a PostgreSQL row too, and no SQLite file appeared.
    assert psql(
        f"SELECT count(*) FROM htx_user WHERE email = '{ls_postgres_server.info.username}'"
    ) == [["1"]]
    assert not (ls_postgres_server.data_dir / "label_studio.sqlite3").exists()


def test_cluster_is_private_and_refuses_a_wrong_password(postgres_cluster):
    cluster = postgres_cluster
    assert cluster.psql("SHOW listen_addresses") == [["127.0.0.1"]]
    assert cluster.psql("SHOW unix_socket_directories") == [[str(cluster.root)]]
    assert cluster.psql("SELECT rolsuper FROM pg_roles WHERE rolname = current_user") == [["t"]]
    # Runs as an unprivileged user: never root (initdb refuses root; CI runs as root).
    postmaster = int((cluster.data_dir / "postmaster.pid").read_text().split()[0])
    assert os.stat(f"/proc/{postmaster}").st_uid != 0
    psql = [str(cluster.bindir / "psql"), "-X", "-h", cluster.host, "-p", str(cluster.port)]
    wrong = subprocess.run(
        [*psql, "-U", cluster.user, "-d", cluster.dbname, "-c", "SELECT 1"],
        env={**os.environ, "PGPASSWORD": "not-the-password"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert wrong.returncode != 0
    assert "password authentication failed" in wrong.stderr
