"""docker-compose.yml and Dockerfile checked against what the code reads (no Docker engine here)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
SECRET = re.compile(r"PASSWORD|TOKEN|API_KEY|SECRET")


def env(service: str) -> dict[str, str]:
    value = SERVICES[service].get("environment") or {}
    if isinstance(value, list):
        value = dict(item.split("=", 1) for item in value)
    return {k: str(v) for k, v in value.items()}


#: Every Label Studio service: one per annotator (README "Blind annotation").
LABEL_STUDIOS = sorted(n for n, s in SERVICES.items() if "label-studio" in str(s.get("image", "")))


def test_services_and_label_studio_version_match_the_project_pins():
    assert {"postgres", "redis", "ml-backend"} <= set(SERVICES)
    assert LABEL_STUDIOS == ["annotator-1", "annotator-2", "manager"]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    server_pin = next(
        d
        for d in pyproject["project"]["optional-dependencies"]["server"]
        if d.startswith("label-studio==")
    )
    for name in LABEL_STUDIOS:
        assert SERVICES[name]["image"].endswith(":" + server_pin.split("==")[1]), name


def test_no_secret_in_the_file():
    for name in SERVICES:
        for key, value in env(name).items():
            if SECRET.search(key) and value not in ("true", "false"):  # flags are not secrets
                assert re.fullmatch(r"\$\{[A-Z][A-Z0-9_]*(:\?[^}]*|:-[^}]*)?\}", value), (name, key)
                if ":-" in value:
                    pytest.fail(f"{name}.{key} has a default value: secrets must be required")


def test_every_label_studio_has_its_own_database_on_the_postgres_service():
    pg = env("postgres")
    init = ROOT / "deploy" / "postgres-databases.sql"  # written by hume_sync/workflow/deploy.py
    mounts = [v for v in SERVICES["postgres"]["volumes"] if "/docker-entrypoint-initdb.d/" in v]
    assert [m.split(":")[0] for m in mounts] == ["./" + str(init.relative_to(ROOT))]
    created = re.findall(r"^CREATE DATABASE (\w+) OWNER (\w+);$", init.read_text(), re.M)
    names = []
    for name in LABEL_STUDIOS:
        ls = env(name)
        assert ls["DJANGO_DB"] == "default" and ls["POSTGRE_HOST"] == "postgres", name
        assert ls["POSTGRE_USER"] == pg["POSTGRES_USER"], name
        assert ls["POSTGRE_PASSWORD"].split(":")[0] == pg["POSTGRES_PASSWORD"].split(":")[0]
        assert SERVICES[name]["depends_on"]["postgres"]["condition"] == "service_healthy"
        # Needed to reach an ML backend on a private address (shared reference on Label Studio).
        assert ls["ML_BLOCK_LOCAL_IP"] == "false" and ls["SSRF_PROTECTION_ENABLED"] == "false"
        names.append(ls["POSTGRE_NAME"])
    # A database of its own for each server, each created by the init script, owned by the role.
    assert len(set(names)) == len(names)
    assert sorted(created) == sorted((n, pg["POSTGRES_USER"]) for n in names)


def test_ml_backend_environment_is_what_the_code_reads():
    from hume_sync.workflow.backend import STUDY_DIR_ENV
    from ml_backend.app import AUTH_PASSWORD_ENV, AUTH_USER_ENV

    ml = env("ml-backend")
    # The backend answers from the study store alone: it needs the study and its own login,
    # no Label Studio token (nothing else is given to it).
    assert set(ml) == {STUDY_DIR_ENV, AUTH_USER_ENV, AUTH_PASSWORD_ENV, "HF_HUB_OFFLINE"}


def test_ml_backend_ports_volumes_and_command_agree():
    svc = SERVICES["ml-backend"]
    command = svc["command"]
    bind = command[command.index("--bind") + 1]
    study = command[command.index("--study-dir") + 1]
    port = bind.rsplit(":", 1)[1]
    assert svc["ports"][0].rsplit(":", 1)[1] == port
    assert env("ml-backend")["HUME_STUDY_DIR"] == study
    assert any(v.rsplit(":", 1)[1] == study for v in svc["volumes"])
    assert f"EXPOSE {port}" in (ROOT / "Dockerfile").read_text()
    assert svc["build"] == "." and (ROOT / "Dockerfile").exists()
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert command[0] in pyproject["project"]["scripts"]


def test_ml_backend_runs_several_workers_by_default():
    import re

    from hume_sync.cli import build_backend_parser

    command = SERVICES["ml-backend"]["command"]
    workers = command[command.index("--workers") + 1]
    default = re.fullmatch(r"\$\{ML_BACKEND_WORKERS:-(\d+)\}", workers)
    assert default and int(default.group(1)) >= 2, workers
    resolved = [re.sub(r"\$\{\w+:-(\w+)\}", r"\1", a) for a in command[1:]]
    args = build_backend_parser().parse_args(resolved)  # the CLI takes it as compose passes it
    assert args.workers == int(default.group(1)) and args.threads >= 1


def test_healthchecks_and_named_volumes():
    for name, svc in SERVICES.items():
        assert "healthcheck" in svc, name
        for vol in svc.get("volumes", []):
            source = vol.split(":")[0]
            if not source.startswith((".", "/", "${")):  # a named volume, not a bind mount
                assert source in COMPOSE["volumes"], (name, source)
    for name in LABEL_STUDIOS:
        assert SERVICES[name]["healthcheck"]["test"][-1].count("/health") == 1, name


def test_dockerfile_installs_cpu_torch_first_and_the_project():
    text = (ROOT / "Dockerfile").read_text()
    torch = text.index("torch==2.13.0")
    project = text.index('pip install ".[models,labelstudio]"')
    assert torch < project


def test_ml_backend_healthcheck_authenticates_against_a_real_app(tmp_path, monkeypatch):
    """The container health check must pass basic auth, since the app protects /health."""
    import threading

    from werkzeug.serving import make_server

    from hume_sync.workflow.backend import create_backend_app
    from ml_backend import healthcheck

    assert SERVICES["ml-backend"]["healthcheck"]["test"][1:] == [
        "python",
        "-m",
        "ml_backend.healthcheck",
    ]
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "hc",
                "tasks": [
                    {
                        "name": "T",
                        "type": "sts",
                        "source": {
                            "path": str(ROOT / "hume_sync" / "demo_data" / "similarity_en.jsonl")
                        },
                        "subsets": [{"language": "eng-Latn", "size": 3}],
                    }
                ],
            }
        )
    )
    from hume_sync.cli import main

    assert main(["init", str(study)]) == 0
    monkeypatch.setenv("ML_BACKEND_USER", "ls")
    monkeypatch.setenv("ML_BACKEND_PASSWORD", "pw-123")
    server = make_server("127.0.0.1", 0, create_backend_app(study))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/health"
    try:
        assert healthcheck.main([url]) == 0
        monkeypatch.setenv("ML_BACKEND_PASSWORD", "wrong")
        assert healthcheck.main([url]) == 1
    finally:
        server.shutdown()


def test_every_annotator_has_a_label_studio_of_their_own():
    """README "Blind annotation": one server per annotator, nothing shared that opens another."""
    servers = {n: s for n, s in SERVICES.items() if "label-studio" in str(s.get("image", ""))}
    annotators = [n for n in servers if n.startswith("annotator-")]
    assert len(annotators) >= 2
    volumes, tokens, ports = set(), set(), set()
    for name, svc in servers.items():
        e = env(name)
        assert e["DISABLE_SIGNUP_WITHOUT_LINK"] == "true", name  # no sign-up without the link
        assert not any("SECRET_KEY" in k for k in e), name  # each data dir makes its own key
        [data] = [v for v in svc["volumes"] if v.endswith(":/label-studio/data")]
        volumes.add(data.split(":")[0])
        tokens.add(e["LABEL_STUDIO_USER_TOKEN"].split(":")[0])
        ports.add(svc["ports"][0].split(":")[0])
    assert len(volumes) == len(tokens) == len(ports) == len(servers)
