"""`hume-sync deploy compose|kubernetes`: validated outputs, the variables the code reads, and
one-line refusals that overwrite nothing (no Docker engine or cluster here: the files are checked
against the Compose specification's JSON schema, Kubernetes' OpenAPI schemas, and the code)."""

from __future__ import annotations

import ast
import json
import re
import stat
from importlib import resources
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml

from hume_sync.cli import main
from hume_sync.store import Store
from hume_sync.workflow import deploy

ROOT = Path(__file__).resolve().parents[1]
EMAILS = [f"person{i}@lab.org" for i in range(1, 7)]
# Compose's `${NAME:?message}` (required) and `${NAME:-default}`.
VARIABLE = re.compile(r"\$\{(?P<name>[A-Z][A-Z0-9_]*)(?P<rest>:[?-][^}]*)?\}")
ENV_CALLS = {"get_env", "get_bool_env", "getenv", "get_env_list", "get_env_list_int"}


def _parse_python(roots: tuple[Path, ...]) -> list[ast.Module]:
    """The syntax tree of each readable Python file under ``roots`` (files or folders)."""
    trees = []
    for root in roots:
        for f in [root] if root.is_file() else sorted(root.rglob("*.py")):
            try:
                trees.append(ast.parse(f.read_text(encoding="utf-8")))
            except (SyntaxError, UnicodeDecodeError):
                continue
    return trees


def _string_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "string"`` assignments."""
    consts = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    consts[target.id] = node.value.value
    return consts


def env_names_read(*roots: Path) -> set[str]:
    """Every environment variable name the Python code under ``roots`` reads: the string (or
    module-level string constant) given to os.environ.get / os.environ[...] / os.getenv, or to
    Label Studio's get_env / get_bool_env."""
    trees = _parse_python(roots)
    consts = {k: v for tree in trees for k, v in _string_constants(tree).items()}

    def value(node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return consts.get(node.id) if isinstance(node, ast.Name) else None

    def is_environ(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "environ"

    names = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args:
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in ENV_CALLS or (name == "get" and is_environ(getattr(f, "value", None))):
                    names.add(value(node.args[0]))
            elif isinstance(node, ast.Subscript) and is_environ(node.value):
                names.add(value(node.slice))
    return names - {None}


@pytest.fixture(scope="module")
def label_studio_reads() -> set[str]:
    import label_studio

    return env_names_read(Path(label_studio.__file__).parent)


def read_by_label_studio(key: str, names: set[str]) -> bool:
    """Label Studio's get_env reads NAME as NAME, LABEL_STUDIO_NAME or HEARTEX_NAME."""
    return key in names or key.removeprefix("LABEL_STUDIO_") in names


#: What the ML backend container runs: the backend app, its health check, its models.
BACKEND_CODE = (ROOT / "ml_backend", ROOT / "hume_sync" / "workflow" / "backend.py")


def compose_schema() -> dict:
    """The Compose specification's schema, as check-jsonschema vendors it."""
    path = resources.files("check_jsonschema.builtin_schemas.vendor") / "compose-spec.json"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def study(tmp_path):
    spec = tmp_path / "spec.yaml"
    data = ROOT / "hume_sync" / "demo_data" / "similarity_en.jsonl"
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "team",
                "tasks": [
                    {
                        "name": "T",
                        "type": "sts",
                        "source": {"path": str(data)},
                        "subsets": [{"language": "eng-Latn", "size": 3}],
                    }
                ],
            }
        )
    )
    path = tmp_path / "study"
    assert main(["init", str(path), "--spec", str(spec)]) == 0
    return path


def register(study: Path, emails: list[str]) -> None:
    """Annotators as `annotators add --url` leaves them in the store (deploy reads only that)."""
    with Store.open(study) as store:
        for i, email in enumerate(emails):
            store.add_annotator(email, ("eng",), f"http://ls{i}.example:8080", 2)


def read_env(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_the_committed_compose_file_is_what_the_generator_writes():
    """Regenerate with `python -m hume_sync.workflow.deploy` after changing the generator."""
    slots = deploy.example_roster()
    expected = deploy.render_compose(slots, ".", generated_by=deploy.REPOSITORY_COMMAND)
    assert (ROOT / "docker-compose.yml").read_text() == expected
    assert (ROOT / deploy.INIT_SQL).read_text() == deploy.init_sql(slots)
    assert not (ROOT / "deploy" / "postgres-annotators.sql").exists()  # the hand-kept one


def test_compose_for_six_annotators_is_valid_complete_and_keeps_secrets_out(
    study, tmp_path, capsys, label_studio_reads
):
    register(study, EMAILS[:2])
    out = tmp_path / "team"
    extra = [a for e in EMAILS[2:] for a in ("--annotator", e)]
    rc, stdout, stderr = run(capsys, "deploy", "compose", str(study), "--out", str(out), *extra)
    assert rc == 0, stderr
    compose_text = (out / "docker-compose.yml").read_text()
    compose = yaml.safe_load(compose_text)
    jsonschema.validate(compose, compose_schema())
    services = compose["services"]
    servers = sorted(n for n, s in services.items() if "label-studio" in s.get("image", ""))
    assert servers == [f"annotator-{i}" for i in range(1, 7)] + ["manager"]
    for i, email in enumerate(EMAILS, 1):  # slots in the order annotators add gives them
        assert f"#   annotator-{i}: {email}, port {8080 + i}" in compose_text

    env_file = out / ".env"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    env = read_env(env_file)
    # Every variable the file requires is in .env (so `docker compose up` starts), and every
    # secret is distinct, long and absent from the compose file and the command's output.
    required = {m["name"] for m in VARIABLE.finditer(compose_text) if m["rest"][:2] == ":?"}
    assert required <= set(env)
    secrets = {k: v for k, v in env.items() if re.search("PASSWORD|TOKEN", k)}
    assert len(secrets) == 2 + 2 * 7 and len(set(secrets.values())) == len(secrets)
    for key, value in secrets.items():
        assert len(value) >= 32, key
        assert value not in compose_text and value not in stdout + stderr, key
    assert all(len(env[f"{s.upper().replace('-', '_')}_TOKEN"]) == 40 for s in servers)

    # One database per server, created by the script the postgres service mounts.
    sql = (out / deploy.INIT_SQL).read_text()
    created = re.findall(r"^CREATE DATABASE (\w+) OWNER (\w+);$", sql, re.M)
    pg_user = services["postgres"]["environment"]["POSTGRES_USER"]
    names = [services[s]["environment"]["POSTGRE_NAME"] for s in servers]
    assert sorted(created) == sorted((n, pg_user) for n in names) and len(set(names)) == 7
    mount = "./deploy/postgres-databases.sql:/docker-entrypoint-initdb.d/10-databases.sql:ro"
    assert mount in services["postgres"]["volumes"]

    # Every Label Studio variable is one Label Studio reads; the backend's ones hume reads.
    for name in servers:
        for key in services[name]["environment"]:
            assert read_by_label_studio(key, label_studio_reads), (name, key)
    backend_reads = env_names_read(*BACKEND_CODE)
    ml = services["ml-backend"]
    assert set(ml["environment"]) <= backend_reads
    assert {n for n in backend_reads if n.startswith(("ML_BACKEND_", "HUME_STUDY"))} <= set(
        ml["environment"]
    )
    # The backend reads the study where hume wrote it: a bind mount of this study folder.
    [study_mount] = ml["volumes"]
    host = VARIABLE.fullmatch(study_mount.rsplit(":", 1)[0])["name"]
    assert Path(env[host]) == study.resolve()
    assert study_mount.rsplit(":", 1)[1] == ml["environment"]["HUME_STUDY_DIR"]
    assert Path(ml["build"], "Dockerfile").is_file()
    # The next steps name the tokens (read by `annotators add --url`), never show them.
    assert "LABEL_STUDIO_API_KEY" in env_names_read(ROOT / "hume_sync" / "labelstudio")
    assert f"LABEL_STUDIO_API_KEY=$ANNOTATOR_6_TOKEN hume-sync annotators add {study}" in stdout


def test_label_studio_variable_check_catches_a_misspelt_name(label_studio_reads):
    assert read_by_label_studio("POSTGRE_NAME", label_studio_reads)
    assert not read_by_label_studio("POSTGRES_NAME", label_studio_reads)  # the postgres image's
    assert not read_by_label_studio("LABEL_STUDIO_ADMIN_TOKEN", label_studio_reads)


def test_kubernetes_manifests_validate_and_read_secrets_by_reference(
    study, tmp_path, capsys, label_studio_reads
):
    register(study, EMAILS)
    out = tmp_path / "k8s"
    rc, stdout, stderr = run(capsys, "deploy", "kubernetes", str(study), "--out", str(out))
    assert rc == 0, stderr
    docs = {}
    for f in sorted(out.glob("*.yaml")):
        for doc in yaml.safe_load_all(f.read_text()):
            kubernetes_validate.validate(doc, "1.30.0", strict=True)
            docs.setdefault(doc["kind"], []).append(doc)
    assert stat.S_IMODE((out / "secret.yaml").stat().st_mode) == 0o600
    [secret] = docs["Secret"]
    values = secret["stringData"]
    kinds = {k: len(v) for k, v in docs.items()}
    assert kinds == {
        "Secret": 1, "ConfigMap": 1, "StatefulSet": 1, "Deployment": 8,
        "Service": 9, "PersistentVolumeClaim": 8,
    }  # fmt: skip
    public = "".join(f.read_text() for f in out.glob("*.yaml") if f.name != "secret.yaml")
    for key, value in values.items():
        assert value not in public and value not in stdout + stderr, key
    backend_reads = env_names_read(*BACKEND_CODE)
    for dep in docs["Deployment"]:
        [c] = dep["spec"]["template"]["spec"]["containers"]
        env = {e["name"]: e for e in c["env"]}
        for e in env.values():  # a secret only by reference, to a key the Secret has
            if "valueFrom" in e:
                assert e["valueFrom"]["secretKeyRef"]["key"] in values
            else:
                assert e["value"] not in values.values()
        if c["name"] == "label-studio":
            assert all(read_by_label_studio(k, label_studio_reads) for k in env)
            assert "valueFrom" in env["LABEL_STUDIO_USER_TOKEN"]
        else:
            assert set(env) <= backend_reads and c["args"][:2] == ["--study-dir", "/study"]
    [config] = docs["ConfigMap"]
    assert config["data"]["10-databases.sql"].count("CREATE DATABASE") == 7


def test_no_annotators_is_one_line_and_writes_nothing(study, tmp_path, capsys):
    out = tmp_path / "team"
    rc, stdout, stderr = run(capsys, "deploy", "compose", str(study), "--out", str(out))
    assert rc != 0 and not stdout and stderr.count("\n") == 1
    assert "no annotators registered" in stderr
    assert not out.exists() and not list(tmp_path.glob(".team*"))


def test_an_existing_folder_is_kept_unless_forced_and_force_keeps_the_secrets(
    study, tmp_path, capsys
):
    register(study, EMAILS[:2])
    out = tmp_path / "team"
    assert run(capsys, "deploy", "compose", str(study), "--out", str(out))[0] == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    rc, _, stderr = run(capsys, "deploy", "compose", str(study), "--out", str(out), "--annotator",
                        "late@lab.org")  # fmt: skip
    assert rc != 0 and stderr.count("\n") == 1 and "--force" in stderr
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    old = read_env(out / ".env")
    rc, _, _ = run(capsys, "deploy", "compose", str(study), "--out", str(out), "--annotator",
                   "late@lab.org", "--force")  # fmt: skip
    assert rc == 0
    new = read_env(out / ".env")
    assert {k: new[k] for k in old} == old  # running servers keep their passwords
    assert set(new) - set(old) == {"ANNOTATOR_3_ADMIN_PASSWORD", "ANNOTATOR_3_TOKEN"}
    assert "annotator-3" in yaml.safe_load((out / "docker-compose.yml").read_text())["services"]


def test_a_retired_slot_gets_no_server_and_the_others_keep_their_ports(study, tmp_path, capsys):
    register(study, EMAILS[:3])
    with Store.open(study) as store:
        store.retire_annotator(2)
    out = tmp_path / "team"
    rc, stdout, stderr = run(capsys, "deploy", "compose", str(study), "--out", str(out),
                             "--annotator", "late@lab.org")  # fmt: skip
    assert rc == 0, stderr
    services = yaml.safe_load((out / "docker-compose.yml").read_text())["services"]
    servers = sorted(n for n, s in services.items() if "label-studio" in s.get("image", ""))
    assert servers == ["annotator-1", "annotator-3", "annotator-4", "manager"]
    assert services["annotator-3"]["ports"] == ["${ANNOTATOR_3_PORT:-8083}:8080"]
    assert EMAILS[1] not in stdout and "annotator-4    port 8084  late@lab.org" in stdout
    # the steps run from anywhere, and connect the manager's server too
    assert f"docker compose -f {out / 'docker-compose.yml'} up -d" in stdout
    assert "LABEL_STUDIO_API_KEY=$MANAGER_TOKEN hume-sync manager up --url http://HOST:8080" in (
        stdout
    )
    rc, _, stderr = run(capsys, "deploy", "compose", str(study), "--out", str(tmp_path / "t2"),
                        "--annotator", EMAILS[1].upper())  # fmt: skip
    assert rc != 0 and stderr.count("\n") == 1 and "was removed from this study" in stderr


def test_a_bad_email_is_one_line(study, tmp_path, capsys):
    out = tmp_path / "team"
    rc, _, stderr = run(capsys, "deploy", "compose", str(study), "--out", str(out),
                        "--annotator", "not-an-email")  # fmt: skip
    assert rc != 0 and stderr.count("\n") == 1 and "not-an-email" in stderr
    assert not out.exists()
