"""`hume-sync annotators add` and `annotators list`: onboarding annotators, each in a Label
Studio of their own (the rules they share with ``setup`` and ``status``:
:mod:`hume_sync.labelstudio.annotators`).

``add`` registers an email in the study with their languages and a slot: their own server
(embedded, or the team's at ``--url``), checked to hold no one else's account, and an account
made through the server's sign-up form with a generated password written to a 0600 file, never
printed. Registering the same email again only updates the languages. An email removed from
the study (``annotators remove``) is refused: its slot's answers stay, and a returning person
gets a new slot under another address.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hume_sync.errors import AnnotatorError
from hume_sync.labelstudio import servers as ls_servers
from hume_sync.labelstudio import urls
from hume_sync.labelstudio.annotators import (
    EMAIL_RE,
    check_private_server,
    logins_path,
    plan_seats,
    study_languages,
    write_login,
)
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.store import AnnotatorRow, Store


@dataclass
class AddResult:
    annotator: AnnotatorRow
    registered: bool  # new in this study
    languages_changed: bool
    account_created: bool
    server_started: bool
    login_file: Path | None
    token: str | None = field(default=None, repr=False)  # the new account's API token
    unused_languages: tuple[str, ...] = ()  # asked for, but no subset of the study is in them


def _connect(
    email: str,
    url: str | None,
    port: int | None,
    base: Path | None,
    start_timeout: float | None = None,
) -> tuple[LabelStudioClient, bool]:
    """The annotator's server: an embedded one (started if needed) or the one at ``url``."""
    if url is None:
        data_dir = ls_servers.annotator_home(email, base) / "label-studio"
        info = ls_servers.start_embedded(data_dir, port, timeout=start_timeout)
        return LabelStudioClient(info.url, info.token), not info.already_running
    urls.checked(url, "--url")
    client = LabelStudioClient(url.rstrip("/"), _admin_token(url))
    client.whoami()  # a wrong token or URL fails here, before anything is written
    return client, False


def _admin_token(url: str) -> str:
    token = os.environ.get("LABEL_STUDIO_API_KEY", "").strip()
    if not token:
        raise AnnotatorError(
            f"give the admin API token of {url} in LABEL_STUDIO_API_KEY (never on the command line)"
        )
    return token


def _unused_languages(store: Store, languages: tuple[str, ...] | None) -> tuple[str, ...]:
    """The asked languages no subset of the study is in; all of them: refused (a slot with no
    subset is a typo, not a plan), before any server is started."""
    if not languages:
        return ()
    in_study = study_languages(store)
    unused = tuple(x for x in languages if x not in in_study)
    if len(unused) == len(languages):
        raise AnnotatorError(
            f"--languages {','.join(languages)}: the study has no subset in "
            f"{'that language' if len(unused) == 1 else 'these languages'} "
            f"(its languages: {', '.join(in_study) or 'none'}); nothing registered"
        )
    return unused


def add_annotator(
    store: Store,
    email: str,
    languages: tuple[str, ...] | None = None,
    *,
    url: str | None = None,
    port: int | None = None,
    base: Path | None = None,
    start_timeout: float | None = None,
) -> AddResult:
    """Register ``email`` in the study with their own Label Studio; idempotent.

    ``start_timeout``: seconds a new embedded server may take to answer
    (default: ``server.start_timeout()``).

    ``languages`` defaults to every language of the study. Registering the same email again
    only updates the languages (projects already made stay).
    """
    email = email.strip()
    if not EMAIL_RE.match(email):
        raise AnnotatorError(f"not an email address: {email!r}")
    unused = _unused_languages(store, languages)
    langs = languages or study_languages(store)
    known = next((a for a in store.annotators() if a.email.lower() == email.lower()), None)
    if known is not None and known.retired_at is not None:
        raise AnnotatorError(
            f"{email} was removed from this study ({known.retired_at}, slot {known.slot}): "
            "their answers stay and count; someone who comes back joins under another email"
        )
    if known is not None and url is not None and url.rstrip("/") != known.ls_url:
        raise AnnotatorError(
            f"{email} is already slot {known.slot} with the Label Studio at {known.ls_url}"
        )
    if known is None:
        client, started = _connect(email, url, port, base, start_timeout)
    else:  # already set up: its server must answer (embedded ones: 'hume-sync up')
        client, started = ls_servers.client_for(known.ls_url), False
        client.whoami()
    check_private_server(client, email)
    if known is None and url is not None:  # only a server that passed the check is kept
        ls_servers.remember(client.url, token=_admin_token(url))
    user_id = next(
        (uid for uid, e in client.user_emails().items() if e.lower() == email.lower()), None
    )
    token = login = None
    if user_id is None:
        password = secrets.token_urlsafe(18)
        # On disk (0600) before the account exists: a run killed right after the sign-up
        # leaves a login that works, never an account whose password nobody knows.
        login = write_login(email, client.url, password, base)
        user_id, token = client.sign_up_user(email, password)
    elif logins_path(email, base).is_file():
        login = logins_path(email, base)
    if known is None:
        row = store.add_annotator(email, langs, client.url, user_id)
        changed = False
    else:
        changed = store.set_annotator_languages(known.slot, langs) > 0
        row = store.annotator(known.slot)
    return AddResult(
        annotator=row,
        registered=known is None,
        languages_changed=changed,
        account_created=token is not None,
        server_started=started,
        login_file=login,
        token=token,
        unused_languages=unused,
    )


def annotator_report(store: Store) -> list[dict[str, Any]]:
    """One record per annotator: slot, email, languages, server, subsets (no secret)."""
    plan = plan_seats(store)
    made = {(p.subset_key, p.slot): p for p in store.slot_projects()}
    out = []
    for a in store.annotators():
        subsets = []
        for key, slots in plan.items():
            if a.slot in slots:
                p = made.get((key, a.slot))
                subsets.append(
                    {
                        "subset": key,
                        "project_id": p.ls_project_id if p else None,
                        "project_url": f"{a.ls_url}/projects/{p.ls_project_id}/data" if p else None,
                    }
                )
        out.append(
            {
                "slot": a.slot,
                "annotator": a.key,
                "email": a.email,
                "languages": list(a.languages),
                "label_studio": a.ls_url,
                "ls_user_id": a.ls_user_id,
                "added_at": a.added_at,
                "retired_at": a.retired_at,  # annotators remove: only finished seats stay
                "subsets": subsets,
            }
        )
    return out


def render_list(records: list[dict[str, Any]]) -> str:
    if not records:
        return "no annotators yet: add them with 'hume-sync annotators add STUDY_DIR EMAIL'"
    lines = [f"{'slot':>4}  {'email':<32} {'languages':<12} {'Label Studio':<28} subsets"]
    for r in records:
        subsets = ", ".join(
            s["subset"] + ("" if s["project_id"] else " (after setup)") for s in r["subsets"]
        )
        lines.append(
            f"{r['slot']:>4}  {r['email'][:32]:<32} {','.join(r['languages'])[:12]:<12} "
            f"{r['label_studio'][:28]:<28} {subsets or '-'}"
            + (f"  (removed {r['retired_at']})" if r.get("retired_at") else "")
        )
    return "\n".join(lines)
