"""Issue 11 item 4: the embedded Label Studio and the compose services call nobody by default.

Three checks:
- Label Studio's own settings, loaded (django.setup) with the exact environment `hume-sync up`
  gives the server, have every outbound switch off and Sentry not initialised;
- every outbound address in Label Studio's source is known here, with the setting that turns it
  off (or why it is no phone-home), so a new one in a Label Studio upgrade fails this test;
- docker-compose.yml's Label Studio services have the same settings as `hume-sync up`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hume_sync.labelstudio import server

ROOT = Path(__file__).resolve().parents[1]
label_studio = pytest.importorskip("label_studio", reason="the server extra is not installed")
LS_ROOT = Path(label_studio.__file__).parent

#: Hosts Label Studio calls on its own, and the environment that stops each call.
PHONE_HOME: dict[str, dict[str, str]] = {
    "ingest.sentry.io": {"SENTRY_DSN": "", "FRONTEND_SENTRY_DSN": ""},  # error reports
    "browser.sentry-cdn.com": {"FRONTEND_SENTRY_DSN": ""},  # the browser's Sentry script
    "pypi.org": {"LATEST_VERSION_CHECK": "false"},  # the version check
    "tele.labelstud.io": {"COLLECT_ANALYTICS": "false"},  # server-side usage analytics
    "www.googletagmanager.com": {"COLLECT_ANALYTICS": "false"},  # analytics in the browser
}
#: Outbound addresses that are not Label Studio calling home on its own.
NOT_PHONE_HOME: dict[str, str] = {
    "raw.githubusercontent.com": "login-page tips: fetched only when a browser shows the login "
    "page (at most hourly, 5 s timeout, no setting in 1.23.2 turns it off)",
    "www.googleapis.com": "Google Cloud Storage, only for a storage the user connects",
    "storage.googleapis.com": "Google Cloud Storage, only for a storage the user connects",
    "www.sqlite.org": "SQLite binary download, only on Windows",
}
#: Documentation links and examples in help texts and docstrings.
DOC_HOSTS = {
    "labelstud.io",
    "docs.djangoproject.com",
    "github.com",
    "example.com",
    "python-jsonschema.readthedocs.io",
    "peps.python.org",
    "docs.python.org",
    "docs.launchdarkly.com",
    "en.wikipedia.org",
    "label-studio-host",
    "77.42.77.42",
    "ls.domain.com",
    "www.fontspring.com",
    "stackoverflow.com",
    "analytics.google.com",  # only named in the CSP allow-list
    "www.w3.org",  # XML namespaces of inline SVG
    "humansignal.com",  # a link in the login-page tips, followed only if clicked
}
LOCAL = {"localhost", "127.0.0.1", "0.0.0.0"}
URL = re.compile(r"https?://(?:[^/@\s'\"]+@)?([A-Za-z0-9.-]+)")
SETTING_NAME = re.compile(r"get_(?:bool_)?env\(\s*'([A-Z_]+)'")
TELEMETRY_NAME = re.compile(r"SENTRY_DSN|ANALYTIC|TELEMETRY|VERSION_CHECK|TRACK|FEATURE_FLAGS_OFF")


def _known(host: str) -> bool:
    return (
        host in LOCAL
        or host in DOC_HOSTS
        or host in NOT_PHONE_HOME
        or any(host == h or host.endswith("." + h) for h in PHONE_HOME)
    )


def test_every_outbound_address_in_label_studio_is_known():
    """A new default URL in Label Studio's code or templates must be reviewed here."""
    unknown: dict[str, str] = {}
    for path in LS_ROOT.rglob("*"):
        rel = path.relative_to(LS_ROOT)
        if path.suffix not in (".py", ".html"):
            continue
        if {"tests", "migrations", "__pycache__"} & set(rel.parts) or rel.name.startswith("test"):
            continue
        for host in URL.findall(path.read_text(encoding="utf-8", errors="replace")):
            if not _known(host):
                unknown.setdefault(host, str(rel))
    assert not unknown, f"review these outbound addresses of Label Studio: {unknown}"


def test_every_telemetry_setting_is_turned_off_by_up():
    names: set[str] = set()
    for settings_file in ("base.py", "label_studio.py"):
        text = (LS_ROOT / "core" / "settings" / settings_file).read_text(encoding="utf-8")
        names |= {n for n in SETTING_NAME.findall(text) if TELEMETRY_NAME.search(n)}
    assert {"SENTRY_DSN", "FRONTEND_SENTRY_DSN", "COLLECT_ANALYTICS"} <= names
    env = server._child_env(Path("/nonexistent"), None)
    assert names <= set(env), f"not set by 'hume-sync up': {sorted(names - set(env))}"
    for switches in PHONE_HOME.values():
        for key, value in switches.items():
            assert env[key] == value, key


def test_label_studio_settings_with_the_up_environment_call_nobody(tmp_path):
    """Django settings as the embedded server loads them, from the environment `up` passes."""
    env = server._child_env(tmp_path, None)
    code = (
        "import json, os, sys\n"
        "import label_studio\n"
        "sys.path.insert(0, os.path.dirname(label_studio.__file__))\n"
        "import django\n"
        "django.setup()\n"
        "import sentry_sdk\n"
        "from django.conf import settings as s\n"
        "print(json.dumps({k: getattr(s, k) for k in ('SENTRY_DSN', 'FRONTEND_SENTRY_DSN', "
        "'LATEST_VERSION_CHECK', 'COLLECT_ANALYTICS', 'FEATURE_FLAGS_OFFLINE')} | "
        "{'sentry_active': sentry_sdk.get_client().is_active()}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {
        "SENTRY_DSN": "",
        "FRONTEND_SENTRY_DSN": "",
        "LATEST_VERSION_CHECK": False,
        "COLLECT_ANALYTICS": False,
        "FEATURE_FLAGS_OFFLINE": True,
        "sentry_active": False,
    }


def test_compose_label_studios_have_the_same_switches():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = {
        name: svc
        for name, svc in compose["services"].items()
        if "label-studio" in str(svc.get("image", ""))
    }
    assert services  # one per annotator
    for name, svc in services.items():
        env = {k: str(v) for k, v in svc["environment"].items()}
        for switches in PHONE_HOME.values():
            for key, value in switches.items():
                assert env.get(key) == value, (name, key)
