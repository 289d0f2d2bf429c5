"""What an annotator is to Label Studio: a slot's languages and seats, their server's accounts.

The commands that onboard them (``annotators add/list``) are :mod:`hume_sync.workflow.annotators`
and ``annotators remove`` is :mod:`hume_sync.workflow.annotators_remove`; this module holds the
rules those commands, ``setup`` and ``status`` share.

An annotator is registered in a study with the languages they annotate (HUME: two annotators
on English, one native speaker per other language) and gets a *slot*: a Label Studio server
where only they and the project manager have accounts. ``setup`` then gives each subset to the first
``overlap`` annotators (in slot order) who read every language of it (its own; a bitext
subset's translations' too), one project per annotator, so no annotator can reach another's
answers (why separate servers: ``ls_servers``).

The annotator's account is created through the server's own sign-up form with a generated
password written to a 0600 file, never printed; API tokens stay in 0600 files too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hume_sync.errors import AnnotatorError
from hume_sync.labelstudio import server
from hume_sync.labelstudio import servers as ls_servers
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.labelstudio.seat_holders import seat_holders
from hume_sync.store import AnnotatorRow, Store, SubsetRow
from scoring.languages import annotator_language as language_code

LOGINS_FILE = "logins.json"
EMAIL_RE = re.compile(r"^[^@\s/\\]+@[^@\s/\\]+\.[^@\s/\\]+$")
_LANG_RE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z]{4})?$")


def parse_languages(text: str) -> tuple[str, ...]:
    """``"eng,dan"`` → ``("eng", "dan")``; ``en`` and ``eng-Latn`` both mean ``eng``."""
    codes: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if not _LANG_RE.match(part):
            raise AnnotatorError(f"--languages: not a language code: {part!r} (e.g. eng,dan)")
        code = language_code(part)
        if code not in codes:
            codes.append(code)
    if not codes:
        raise AnnotatorError("--languages: give at least one language code (e.g. eng)")
    return tuple(codes)


def reading_languages(subset: SubsetRow) -> tuple[str, ...]:
    """The languages an annotator must read to take a seat of ``subset``, as annotator codes
    (no repeats, the subset's own first). The subset's type says which
    (``study_reading_languages``): its ``language``, and for bitext mining the translations'
    language too, so that nothing here branches on a type."""
    from hume_sync import task_types

    kind = task_types.get(subset.task_type)
    tags = kind.study_reading_languages(subset.config, subset.language)
    return tuple(dict.fromkeys(language_code(t) for t in tags))


def seat_languages(subset: SubsetRow) -> str:
    """What an open seat of ``subset`` waits for, as printed: ``eng``, or ``eng+ara`` when the
    annotator must read both."""
    return "+".join(reading_languages(subset))


def study_languages(store: Store) -> tuple[str, ...]:
    """Every language an annotator may read for the study's subsets (a bitext subset's target
    language included), in study order."""
    out: list[str] = []
    for sub in store.subsets():
        for code in reading_languages(sub):
            if code not in out:
                out.append(code)
    return tuple(out)


def speaks(annotator: AnnotatorRow, subset: SubsetRow) -> bool:
    """Whether the annotator reads every language of the subset (:func:`reading_languages`).
    Stored codes are normalised again: an annotator registered before the one language table
    kept ``nor`` for ``no``."""
    theirs = {language_code(x) for x in annotator.languages}
    return all(code in theirs for code in reading_languages(subset))


def excluded_slots(
    config: Mapping[str, Any],
    plan: Mapping[str, Sequence[int | None]],
    taken: Mapping[str, Sequence[int]],
) -> set[int]:
    """The slots that may not take a seat in a subset: those seated (planned or holding a
    project) in a subset it excludes (``exclusive_with``: another arm of the same instances,
    whose versions one person must never see together)."""
    out: set[int] = set()
    for key in config.get("exclusive_with") or ():
        out |= {s for s in plan.get(key, ()) if s is not None}
        out |= set(taken.get(key, ()))
    return out


def plan_seats(store: Store) -> dict[str, list[int | None]]:
    """subset → its annotator slots, ``None`` for a seat no registered annotator can take yet.

    A subset keeps the annotators who already have a project for it (a retired one only if
    they finished it: ``seat_holders``); free seats go to the first annotators still in the
    study (in slot order) who read all of its languages (:func:`speaks`) and do not have it
    yet, and hold no seat in a subset it excludes (:func:`excluded_slots`).
    """
    everyone = store.annotators()
    taken = seat_holders(store, everyone)  # a retired slot keeps only the seats it finished
    annotators = [a for a in everyone if a.retired_at is None]
    plan: dict[str, list[int | None]] = {}
    for sub in store.subsets():
        slots: list[int | None] = list(taken.get(sub.key, []))
        others = excluded_slots(sub.config, plan, taken)
        for a in annotators:
            if len(slots) >= sub.overlap:
                break
            if a.slot not in slots and a.slot not in others and speaks(a, sub):
                slots.append(a.slot)
        slots += [None] * (sub.overlap - len(slots))
        plan[sub.key] = slots
    return plan


def logins_path(email: str, base: Path | None = None) -> Path:
    return ls_servers.annotator_home(email, base) / LOGINS_FILE


def write_login(email: str, url: str, password: str, base: Path | None) -> Path:
    path = logins_path(email, base)
    ls_servers.private_annotator_dir(path.parent)
    try:
        logins = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        logins = {}
    logins[url] = {"url": url, "email": email, "password": password}
    server.write_private_json(path, logins)
    return path


def other_accounts(client: LabelStudioClient, email: str) -> list[str]:
    """Accounts on an annotator's server besides the manager (token owner) and ``email``: each
    of them can read that annotator's answers (Community has no roles)."""
    manager = int(client.whoami()["id"])
    return sorted(
        e or f"user {uid}"
        for uid, e in client.user_emails().items()
        if uid != manager and e.lower() != email.lower()
    )


def check_private_server(client: LabelStudioClient, email: str) -> None:
    """Refuse a server where someone other than the manager and ``email`` could read answers."""
    if client.signup_is_open():
        raise AnnotatorError(
            f"the Label Studio at {client.url} lets anyone sign up without the invite link and "
            "so read every project: start it with DISABLE_SIGNUP_WITHOUT_LINK=true "
            "(hume's embedded servers do)"
        )
    others = other_accounts(client, email)
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise AnnotatorError(
            f"the Label Studio at {client.url} already has other accounts ({shown}): every "
            "annotator needs a Label Studio of their own, where only they and the manager "
            "have accounts"
        )
