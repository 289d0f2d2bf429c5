"""Verifiable sealing: a published commitment to every model's and LLM's sealed answers.

A model's answers are *sealed*: stored before annotation and shown to no one until the close.
Sealing alone asks the reader to trust the manager; a **commitment** lets them check it. When
``predict`` stores a model's (or an LLM annotator's) answers it computes

    ``commitment = SHA-256( canonical_json(document) )``  (lower-case hex)

over the document ::

    {"scheme": "hume-seal/1",
     "study_id": <the store's meta study_uid>,
     "model_version": "emb:all-MiniLM-L6-v2" | "llm:<name>",
     "model_revision": <the model's revision, or null>,
     "prompt": <what the model was prompted with, or null>,
     "answers": [{"hume_id": ..., "answer": ..., "score": ...}, ...]}

with ``answers`` holding every stored answer of that model in ``hume_id`` order (Unicode code
points, as Python sorts strings). ``canonical_json`` is JSON with keys sorted at every level, no
whitespace (``,`` and ``:`` separators), UTF-8 text kept as is (not ``\\u`` escaped), integers
as digits, floats in the shortest decimal form that reads back as the same IEEE-754 double
(Python's ``repr``: ``0.1``, ``1e-07``, ``1.0``) and non-finite floats as the strings ``"NaN"``,
``"Infinity"``, ``"-Infinity"``. It is exactly
``json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` once non-finite
floats are replaced, so anyone holding the answers (published after the close) recomputes it
with ``hashlib`` and ``json`` alone.

``predict`` prints one line per model (:func:`commitment_line`) for the manager to publish before
annotation opens, and appends the commitment to the store's ``commitments`` table whenever it
differs from the model's last one: that history, with Label Studio's ``created_at`` of the first
annotation pulled, is what :func:`check_study` (``export`` and ``verify``) judges:

- *mismatch*: the answers stored now do not give the last recorded commitment (the store was
  edited outside ``predict``); the answers concerned are named from the per-answer digests kept
  with each record;
- *changed*: a commitment recorded after the first annotation differs from the one in force
  when it was given, or a sealed answer was written after it;
- *unrecorded*: answers with no commitment (made by a hume before sealing, or never finished);
  ``predict`` run again records one;
- *late* (not a failure): first committed after annotation began, so it cannot show that the
  answers were fixed before anyone annotated, only that they are unchanged since;
- *ok*.

Written by hand because no library commits to a JSON document: ``hashlib`` and ``json`` do the
work; this module only fixes the document and the order.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hume_sync.store import CommitmentRow, PredictionRecord, Store

SCHEME = "hume-seal/1"
#: Hex digits kept per answer in a record: enough to name which answers changed (the
#: commitment itself is the full SHA-256).
ITEM_DIGEST_CHARS = 16
#: How many changed answers a message names.
NAMED = 3
FAILURES = frozenset({"mismatch", "changed", "unrecorded"})
#: Of the failures, those where sealed answers no longer are what was committed (export fails
#: on them); "unrecorded" answers were never committed, which export only warns of.
BROKEN = frozenset({"mismatch", "changed"})


# ------------------------------------------------------------------------------ canonical form


def _finite(value: Any) -> Any:
    """``value`` with non-finite floats as the strings JSON has no number for."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, Mapping):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value`` (see the module docstring): equal values, equal
    bytes."""
    return json.dumps(
        _finite(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def answer_items(predictions: Sequence[PredictionRecord]) -> list[dict[str, Any]]:
    """The ``answers`` list of the document: one object per answer, in ``hume_id`` order."""
    items = [{"hume_id": p.hume_id, "answer": p.answer, "score": p.score} for p in predictions]
    return sorted(items, key=lambda item: item["hume_id"])


def commitment_document(
    *,
    study_id: str,
    model_version: str,
    model_revision: str | None,
    prompt: Any,
    answers: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """The document a commitment hashes."""
    return {
        "scheme": SCHEME,
        "study_id": study_id,
        "model_version": model_version,
        "model_revision": model_revision,
        "prompt": prompt,
        "answers": list(answers),
    }


def sha256_hex(document: Any) -> str:
    """SHA-256 (hex) of the UTF-8 bytes of ``document``'s canonical JSON."""
    return hashlib.sha256(canonical_json(document).encode("utf-8")).hexdigest()


def item_digests(answers: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """A short digest of each answer, by hume_id: what a record keeps to name changes."""
    return {str(a["hume_id"]): sha256_hex(a)[:ITEM_DIGEST_CHARS] for a in answers}


def commitment_line(model_version: str, sha256: str) -> str:
    """The line ``predict`` prints for the manager to publish (and ``verify`` prints again)."""
    return f"commitment {model_version} sha256:{sha256}"


# ------------------------------------------------------------------------------ what predict does


def encoder_identity(encoder: Any) -> tuple[str | None, Any]:
    """An embedding model's revision and prompt as committed: ``encoder.revision`` and, where the
    model prompts (a prompt table as mteb's wrapper reads it), that table and its default name;
    ``None`` for a model without prompts."""
    revision = getattr(encoder, "revision", None)
    prompts = getattr(encoder, "prompts", None)
    prompt = None
    if prompts:
        prompt = {
            "prompts": {str(k): str(v) for k, v in dict(prompts).items()},
            "default_prompt_name": getattr(encoder, "default_prompt_name", None),
        }
    return (None if revision is None else str(revision)), prompt


@dataclass(frozen=True)
class Commitment:
    """The commitment ``predict`` computed for one model, and whether it was new."""

    model_version: str
    sha256: str
    n_answers: int
    recorded: bool  # a new row in ``commitments`` (False: the same as the last one)
    after_annotation: bool  # recorded after the first annotation the store knows

    def line(self) -> str:
        return commitment_line(self.model_version, self.sha256)


def record_commitment(
    store: Store, model_version: str, *, revision: str | None, prompt: Any
) -> Commitment:
    """Compute the model's commitment from what the store holds now and append it to the
    history when it differs from the last one (a rerun that changes nothing writes nothing)."""
    study_id = store.study_uid()
    answers = answer_items(store.predictions(model_version=model_version))
    sha = sha256_hex(
        commitment_document(
            study_id=study_id,
            model_version=model_version,
            model_revision=revision,
            prompt=prompt,
            answers=answers,
        )
    )
    row = store.add_commitment(
        model_version,
        sha,
        {
            "scheme": SCHEME,
            "study_id": study_id,
            "model_revision": revision,
            "prompt": prompt,
            "n_answers": len(answers),
            "items": item_digests(answers),
        },
    )
    first = first_annotation_at(store)
    after = row is not None and first is not None and parse_time(row.recorded_at) > first
    return Commitment(model_version, sha, len(answers), row is not None, after)


# ------------------------------------------------------------------------------ checking


def parse_time(text: str) -> datetime:
    """An ISO-8601 time (Label Studio's or the store's; ``Z`` or an offset; naive = UTC)."""
    t = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def first_annotation_at(store: Store) -> datetime | None:
    """When the first annotation the store knows was given (Label Studio's ``created_at``)."""
    times = []
    for text in store.annotation_times():
        try:
            times.append(parse_time(text))
        except ValueError:
            continue  # a time Label Studio wrote in another form tells nothing here
    return min(times) if times else None


@dataclass
class SealCheck:
    """What :func:`check_study` found for one model or LLM."""

    model_version: str
    status: str  # ok | late | unrecorded | changed | mismatch
    recomputed: str  # the commitment the store's answers give now
    #: The commitment in force when the first annotation was given (else the first recorded):
    #: the one the manager published.
    published: str | None = None
    published_at: str | None = None
    latest: str | None = None  # the last commitment recorded
    latest_at: str | None = None
    n_answers: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.status in FAILURES

    def line(self) -> str:
        """One line: the commitment recomputed now and the verdict."""
        verdict = "ok" if not self.problems else self.status.upper()
        return f"{commitment_line(self.model_version, self.recomputed)} {verdict}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "model_version": self.model_version,
            "status": self.status,
            "sha256": self.recomputed,
            "published_sha256": self.published,
            "published_at": self.published_at,
            "latest_sha256": self.latest,
            "latest_at": self.latest_at,
            "n_answers": self.n_answers,
            "problems": list(self.problems),
            "notes": list(self.notes),
        }


@dataclass
class SealReport:
    """Every model's check, and the time they were judged against."""

    scheme: str
    study_id: str | None
    first_annotation_at: str | None
    checks: list[SealCheck]

    @property
    def failed(self) -> bool:
        return any(c.failed for c in self.checks)

    @property
    def broken(self) -> list[SealCheck]:
        """The checks whose sealed answers differ from what was committed (:data:`BROKEN`)."""
        return [c for c in self.checks if c.status in BROKEN]

    def to_dict(self) -> dict[str, Any]:
        return {
            "scheme": self.scheme,
            "study_id": self.study_id,
            "first_annotation_at": self.first_annotation_at,
            "checks": [c.to_dict() for c in self.checks],
        }


def _diff(old: Mapping[str, str], new: Mapping[str, str]) -> str:
    """What differs between two per-answer digest maps, naming the first answers concerned."""
    changed = sorted(k for k in old.keys() & new.keys() if old[k] != new[k])
    added = sorted(new.keys() - old.keys())
    removed = sorted(old.keys() - new.keys())
    parts = []
    for what, ids in (("changed", changed), ("added", added), ("removed", removed)):
        if ids:
            named = ", ".join(ids[:NAMED]) + (", ..." if len(ids) > NAMED else "")
            parts.append(f"{len(ids)} {what} ({named})")
    return "; ".join(parts) or "the answers are the same; the revision, prompt or study id differ"


def _check_model(
    mv: str,
    rows: list[CommitmentRow],
    predictions: list[PredictionRecord],
    first: datetime | None,
    study_id: str,
) -> SealCheck:
    latest = rows[-1] if rows else None
    rec = latest.record if latest is not None else {}
    answers = answer_items(predictions)
    sha = sha256_hex(
        commitment_document(
            study_id=study_id,
            model_version=mv,
            model_revision=rec.get("model_revision"),
            prompt=rec.get("prompt"),
            answers=answers,
        )
    )
    check = SealCheck(mv, "ok", sha, n_answers=len(answers))
    if latest is None:
        check.status = "unrecorded"
        check.problems.append(
            f"{len(answers)} sealed answer(s) but no commitment recorded; "
            "run 'hume-sync predict' again to record one"
        )
        return check
    check.latest, check.latest_at = latest.sha256, latest.recorded_at
    in_force, late = rows[0], False
    if first is not None:
        before = [r for r in rows if parse_time(r.recorded_at) <= first]
        in_force, late = (before[-1] if before else rows[0]), not before
        if late:
            check.status = "late"
            check.notes.append(
                f"first committed at {rows[0].recorded_at}, after the first annotation at "
                f"{_iso(first)}: it shows the answers unchanged since, not fixed before "
                "annotation"
            )
    check.published, check.published_at = in_force.sha256, in_force.recorded_at
    if sha != latest.sha256:
        check.status = "mismatch"
        what = _diff(latest.record.get("items", {}), item_digests(answers))
        check.problems.append(
            f"the stored answers do not give the commitment recorded at {latest.recorded_at} "
            f"(sha256:{latest.sha256}): {what}"
        )
    if first is None or late:
        return check
    later = [r for r in rows if r.seq > in_force.seq and r.sha256 != in_force.sha256]
    if later:
        check.problems.append(
            f"sealed answers changed after the first annotation at {_iso(first)}: recorded "
            f"anew at {later[-1].recorded_at} (sha256:{later[-1].sha256}) against the commitment "
            f"in force then (sha256:{in_force.sha256}): "
            f"{_diff(in_force.record.get('items', {}), later[-1].record.get('items', {}))}"
        )
    written = sorted(
        p.hume_id for p in predictions if p.created_at and parse_time(p.created_at) > first
    )
    if written:
        named = ", ".join(written[:NAMED]) + (", ..." if len(written) > NAMED else "")
        check.problems.append(
            f"{len(written)} sealed answer(s) written after the first annotation at "
            f"{_iso(first)} ({named})"
        )
    if later or written:
        check.status = "mismatch" if check.status == "mismatch" else "changed"
    return check


def check_study(store: Store) -> SealReport:
    """Recompute every model's commitment from the store and judge its history (module doc).
    Only reads the store."""
    meta = store.meta()
    study_id = meta.get("study_uid", "")
    first = first_annotation_at(store)
    rows: dict[str, list[CommitmentRow]] = {}
    for row in store.commitments():
        rows.setdefault(row.model_version, []).append(row)
    predictions: dict[str, list[PredictionRecord]] = {}
    for p in store.predictions():
        predictions.setdefault(p.model_version, []).append(p)
    checks = [
        _check_model(mv, rows.get(mv, []), predictions.get(mv, []), first, study_id)
        for mv in sorted(rows.keys() | predictions.keys())
    ]
    if first is None and store.annotation_count():
        for c in checks:
            c.notes.append(
                "the annotations carry no creation time: changes after annotation began "
                "cannot be told"
            )
    return SealReport(SCHEME, study_id or None, _iso(first), checks)
