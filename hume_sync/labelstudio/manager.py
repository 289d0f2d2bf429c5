"""The manager's own Label Studio, where the study is mirrored for them (``commands.mirror``).

Annotators each work in a server of their own (``servers``); the manager follows the study in
one more server where no annotator has an account. It is either *embedded* (hume starts it in
``$HUME_HOME/manager/label-studio``, like an annotator's, from the prepared database) or the
team's (``hume-sync manager up --url URL``, its admin token from ``LABEL_STUDIO_API_KEY``, kept
in the 0600 server registry). Which one is in ``$HUME_HOME/manager.json`` (0600, no secret).

Each annotator slot is shown there as a *pseudonymous account* (``slot-<n>@manager.hume.invalid``):
an account made through ``users.create``, which Label Studio 1.23 creates without a usable
password (it ignores the one given) and outside the organization, so it can never log in; no
password is made or written anywhere. The mirror attributes each slot's answers to it with the
annotation's ``completed_by`` (accepted on ``POST /api/tasks/<id>/annotations/`` from an admin).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from hume_sync.errors import ServerRegistryError
from hume_sync.labelstudio import server, servers
from hume_sync.labelstudio.client import LabelStudioClient

MANAGER_DIR = "manager"
MANAGER_FILE = "manager.json"
PSEUDONYM_DOMAIN = "manager.hume.invalid"


def manager_data_dir() -> Path:
    """The embedded manager server's data folder."""
    return servers.hume_home() / MANAGER_DIR / "label-studio"


def _manager_file() -> Path:
    return servers.hume_home() / MANAGER_FILE


def _recorded() -> dict[str, object]:
    """What ``manager up`` recorded (``url``, ``embedded``); empty when nothing was."""
    try:
        raw = json.loads(_manager_file().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ServerRegistryError(f"cannot read {_manager_file()}: {type(exc).__name__}") from None
    return raw if isinstance(raw, dict) else {}


def configured_url() -> str | None:
    """The manager's server URL as recorded by ``manager up``, or None (no mirror)."""
    url = _recorded().get("url")
    return str(url) if url else None


def team_server_url() -> str | None:
    """The team's server when one was recorded (``manager up --url``), else None: the demo
    mirrors there rather than replacing the team's record with an embedded server."""
    raw = _recorded()
    return str(raw["url"]) if raw.get("url") and not raw.get("embedded") else None


def _record(url: str, embedded: bool) -> None:
    path = _manager_file()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    server.write_private_json(path, {"url": url, "embedded": embedded})


def up(url: str | None = None, token: str | None = None) -> str:
    """Start the embedded manager server (``url`` None) or record the team's; its URL.

    A team's server is checked with its token first (one line on a wrong URL or token)."""
    if url is None:
        info = servers.start_embedded(manager_data_dir())
        _record(info.url, embedded=True)
        return info.url
    if not token:
        raise ServerRegistryError(
            "the manager's Label Studio at --url needs its admin token in LABEL_STUDIO_API_KEY"
        )
    url = url.rstrip("/")
    LabelStudioClient(url, token).whoami()
    servers.remember(url, token=token)
    _record(url, embedded=False)
    return url


def client() -> LabelStudioClient | None:
    """A client for the manager's server (the embedded one started if it is down), or None
    when no manager's server was set up."""
    url = configured_url()
    if url is None:
        return None
    if _recorded().get("embedded"):
        url = up()
    return servers.client_for(url)


def pseudonym_email(slot: int) -> str:
    """The manager-side account name of an annotator slot: the slot, nothing about the person."""
    return f"slot-{int(slot)}@{PSEUDONYM_DOMAIN}"


def pseudonyms(ls: LabelStudioClient, slots: list[int]) -> dict[int, int]:
    """slot → user id of its pseudonymous account, made where missing (see module doc)."""
    by_email = {email: user_id for user_id, email in ls.user_emails().items()}
    out: dict[int, int] = {}
    for slot in slots:
        email = pseudonym_email(slot)
        if email not in by_email:
            by_email[email] = ls.create_user(email, first_name="slot", last_name=str(slot))
        out[slot] = by_email[email]
    return out


def mirror_marker(study_uid: str, subset_key: str) -> str:
    """The identity mark of a subset's mirror project (in its description): how the mirror and
    ``status`` find the project again without keeping its id in the store."""
    digest = hashlib.sha256(f"{study_uid}\0{subset_key}\0manager".encode()).hexdigest()[:20]
    return f"hume-mirror:{digest}"


def mirror_projects(
    ls: LabelStudioClient, study_uid: str, subset_keys: list[str]
) -> dict[str, int]:
    """subset key → its mirror project's id on the manager's server, for those mirrored so far."""
    out: dict[str, int] = {}
    for key in subset_keys:
        for project in ls.find_projects_by_marker(mirror_marker(study_uid, key)):
            out[key] = int(project["id"])
            break
    return out
