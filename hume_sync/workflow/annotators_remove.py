"""`hume-sync annotators remove STUDY EMAIL`: an annotator leaves mid-study.

In this order, so that a step that fails leaves the study as it was or resumable:

1. their projects are pulled one last time (``pull_study(slots=...)``): every answer they gave
   is in the store, where it stays and counts in every score (``--no-pull`` when their server
   is gone for good);
2. their slot is marked retired (``annotators.retired_at``): it gets no new seat; the seats
   they finished stay theirs, and every other one goes to the next annotator who reads its
   languages or, without one, is listed as open (:mod:`hume_sync.labelstudio.seat_holders`);
   ``setup`` then creates the projects of those who took a seat over;
3. their server is stopped when hume runs it (embedded), and marked retired so that
   ``hume-sync up`` leaves it stopped; its folder (their Label Studio, their login) is kept
   until the manager says so (``--delete-server``). A server the team runs (``--url``) is left
   to the team.

Removing someone again changes nothing and says so in one line.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from hume_sync.errors import AnnotatorError
from hume_sync.labelstudio import server
from hume_sync.labelstudio import servers as ls_servers
from hume_sync.labelstudio.annotators import plan_seats, seat_languages
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.store import AnnotatorRow, Store
from hume_sync.workflow.pull import PullSummary, pull_study

ClientFor = Callable[[str], LabelStudioClient]


@dataclass(frozen=True)
class Handover:
    """What became of one seat the annotator held: ``to`` is the slot that takes it over,
    ``None`` when nobody reads its languages yet (an open seat)."""

    subset: str
    language: str  # what the seat needs: ``eng``, or ``eng+ara`` when both must be read
    to: AnnotatorRow | None


@dataclass
class RemoveResult:
    annotator: AnnotatorRow
    already: bool  # removed before: nothing changed (but --delete-server)
    pulled: PullSummary | None = None
    answers_kept: int = 0  # their valid answers in the store (they count)
    kept_seats: list[str] = field(default_factory=list)  # finished: stay theirs
    handed_over: list[Handover] = field(default_factory=list)
    data_dir: Path | None = None  # their embedded server's folder (None: the team's server)
    stopped: bool = False
    deleted: bool = False


def find_annotator(store: Store, email: str, study_dir: str) -> AnnotatorRow:
    wanted = email.strip().lower()
    found = next((a for a in store.annotators() if a.email.lower() == wanted), None)
    if found is None:
        raise AnnotatorError(
            f"{email.strip()!r} is not an annotator of this study "
            f"(see 'hume-sync annotators list {study_dir}')"
        )
    return found


def _embedded_dir(annotator: AnnotatorRow) -> Path | None:
    """The folder of their server when hume started it on this machine, else None."""
    data_dir = ls_servers.data_dir_for(annotator.ls_url)
    if data_dir is None or not (data_dir / server.CREDENTIALS_FILE).is_file():
        return None
    return data_dir


def _mark_retired(data_dir: Path, store: Store, annotator: AnnotatorRow) -> None:
    """Write the marker ``hume-sync up`` looks for before it starts an annotator's server."""
    record = {
        "study": store.study_meta().study_name or "",
        "email": annotator.email,
        "retired_at": annotator.retired_at or datetime.now(UTC).isoformat(timespec="seconds"),
    }
    server.write_private_json(data_dir / ls_servers.RETIRED_FILE, record)


def _delete_server(data_dir: Path, annotator: AnnotatorRow) -> None:
    """Remove a retired annotator's embedded server folder (and their login file beside it)."""
    server.stop(data_dir)
    shutil.rmtree(data_dir)
    home = data_dir.parent
    if home == ls_servers.annotator_home(annotator.email, home.parent):
        login = home / "logins.json"
        login.unlink(missing_ok=True)
        if not any(home.iterdir()):
            home.rmdir()


def remove_annotator(
    store: Store,
    email: str,
    client_for: ClientFor,
    *,
    pull: bool = True,
    delete_server: bool = False,
    study_dir: str = "STUDY_DIR",
) -> RemoveResult:
    """Retire ``email``'s slot (see the module docstring); idempotent."""
    annotator = find_annotator(store, email, study_dir)
    data_dir = _embedded_dir(annotator)
    result = RemoveResult(annotator, already=annotator.retired_at is not None, data_dir=data_dir)
    if not result.already:
        before = plan_seats(store)
        if pull:
            result.pulled = pull_study(store, client_for, slots={annotator.slot}, full=True)
        store.retire_annotator(annotator.slot)
        after = plan_seats(store)
        everyone = {a.slot: a for a in store.annotators()}
        languages = {s.key: seat_languages(s) for s in store.subsets()}
        for key, slots in before.items():
            if annotator.slot not in slots:
                continue
            if annotator.slot in after[key]:
                result.kept_seats.append(key)
                continue
            new = [s for s in after[key] if s not in slots]
            taker = new[0] if new else None
            result.handed_over.append(
                Handover(key, languages[key], None if taker is None else everyone[taker])
            )
    result.annotator = store.annotator(annotator.slot)
    result.answers_kept = sum(
        1 for a in store.annotations() if a.slot == annotator.slot and a.status == "valid"
    )
    if data_dir is not None:
        result.stopped = server.stop(data_dir)
        _mark_retired(data_dir, store, result.annotator)
        if delete_server:
            _delete_server(data_dir, result.annotator)
            result.deleted = True
    elif delete_server:
        raise AnnotatorError(
            f"{annotator.email}'s Label Studio at {annotator.ls_url} is not one hume started "
            "here: delete it where the team runs it"
        )
    return result
