"""Every key the store's ``meta`` table may hold, declared once: its name, type and why.

``meta`` is the study's identity and state: one row per key, the value as text. Before schema 7
commands kept their own keys there under names only they knew (model scores, pull times); now a
key is declared in :data:`META_KEYS` or refused: :meth:`Store.set_meta` raises for an undeclared
key, and so does looking one up in what :meth:`Store.meta` returns. :class:`StudyMeta` is the
typed reader of all of them.

Values of type ``int`` and ``json`` are checked when written; ``time`` values are kept as the
text their writer gave (ISO 8601, UTC) and parsed by the reader that needs a datetime, which
names a bad one (``hume_sync.rules.late_answers.parse_time``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from hume_sync.errors import StoreError

MetaType = Literal["text", "int", "json", "time"]


@dataclass(frozen=True)
class MetaKey:
    """One declared ``meta`` key."""

    name: str
    type: MetaType
    doc: str


SCHEMA_VERSION_KEY = "schema_version"
STUDY_NAME = "study_name"
SEED = "seed"
SPEC_HASH = "spec_hash"
SPEC = "spec"
CREATED_AT = "created_at"
ID_SCHEME = "id_scheme"
STUDY_UID = "study_uid"
#: The study's state: annotation is over once ``closed_at`` is set (``close``), and predictions
#: may be shown once the study is closed or ``revealed_at`` is set (``reveal``).
CLOSED_AT = "closed_at"
CLOSED_BY = "closed_by"
REVEALED_AT = "revealed_at"
PULLED_AT = "pulled_at"
#: The ML backend's URL as Label Studio reaches it (``setup --ml-backend``).
ML_BACKEND_URL = "ml_backend_url"

META_KEYS: dict[str, MetaKey] = {
    k.name: k
    for k in (
        MetaKey(SCHEMA_VERSION_KEY, "int", "the latest migration applied (mirrors schema_version)"),
        MetaKey(STUDY_NAME, "text", "the spec's study name (report titles, project titles)"),
        MetaKey(SEED, "int", "the spec's sampling seed"),
        MetaKey(SPEC_HASH, "text", "sha256 of the canonical spec: init refuses another spec"),
        MetaKey(SPEC, "json", "the canonical spec the study was initialised from"),
        MetaKey(CREATED_AT, "time", "when init first wrote the study"),
        MetaKey(
            ID_SCHEME,
            "text",
            "how item ids are made: 'source' in stores from schema 1, absent means 'opaque'",
        ),
        MetaKey(STUDY_UID, "text", "a random id made once: marks the study's LS projects"),
        MetaKey(CLOSED_AT, "time", "when annotation closed (close, or reveal of a finished study)"),
        MetaKey(CLOSED_BY, "text", "how the study was closed ('close', 'reveal', ...)"),
        MetaKey(REVEALED_AT, "time", "when predictions were revealed (reveal --force)"),
        MetaKey(PULLED_AT, "time", "when pull last brought the annotations in"),
        MetaKey(ML_BACKEND_URL, "text", "the ML backend setup connects to every project"),
    )
}


def declared(key: str) -> MetaKey:
    """The declaration of ``key``; a StoreError for a key the schema does not declare."""
    found = META_KEYS.get(key)
    if found is None:
        raise StoreError(
            f"meta key {key!r} is not declared in hume_sync.store.meta.META_KEYS; "
            "declare it there with its type"
        )
    return found


def checked(key: str, value: str) -> str:
    """``value`` if it may be written under ``key`` (declared, text, of the key's type)."""
    spec = declared(key)
    if not isinstance(value, str):
        raise StoreError(f"meta {key}: the value must be text, got {type(value).__name__}")
    try:
        if spec.type == "int":
            int(value)
        elif spec.type == "json":
            json.loads(value)
    except ValueError:
        raise StoreError(f"meta {key}: {value[:40]!r} is not {spec.type}") from None
    return value


class MetaValues(Mapping[str, str]):
    """The rows of ``meta`` as text, refusing to look up a key that is not declared (so a typo
    or a forgotten declaration fails loudly instead of reading as "absent")."""

    def __init__(self, rows: Mapping[str, str]) -> None:
        self._rows = dict(rows)

    def __getitem__(self, key: str) -> str:
        declared(key)
        return self._rows[key]

    def __contains__(self, key: object) -> bool:
        declared(str(key))
        return key in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"MetaValues({self._rows!r})"


@dataclass(frozen=True)
class StudyMeta:
    """Every declared ``meta`` value, typed; None where the store has none yet."""

    schema_version: int | None
    study_name: str | None
    seed: int | None
    spec_hash: str | None
    spec: dict[str, Any] | None
    created_at: str | None
    id_scheme: str
    study_uid: str | None
    closed_at: str | None
    closed_by: str | None
    revealed_at: str | None
    pulled_at: str | None
    ml_backend_url: str | None = None

    @classmethod
    def from_rows(cls, rows: Mapping[str, str]) -> StudyMeta:
        def get(key: str) -> str | None:
            declared(key)
            return rows.get(key)

        version, seed, spec = get(SCHEMA_VERSION_KEY), get(SEED), get(SPEC)
        return cls(
            schema_version=None if version is None else int(version),
            study_name=get(STUDY_NAME),
            seed=int(seed) if seed else None,
            spec_hash=get(SPEC_HASH),
            spec=None if spec is None else json.loads(spec),
            created_at=get(CREATED_AT),
            id_scheme="opaque" if (scheme := get(ID_SCHEME)) is None else scheme,
            study_uid=get(STUDY_UID),
            closed_at=get(CLOSED_AT),
            closed_by=get(CLOSED_BY),
            revealed_at=get(REVEALED_AT),
            pulled_at=get(PULLED_AT),
            ml_backend_url=get(ML_BACKEND_URL),
        )

    @property
    def closed(self) -> bool:
        """Whether annotation is over (``close`` ran, or ``reveal`` found every project done)."""
        return self.closed_at is not None

    @property
    def predictions_visible(self) -> bool:
        """Whether predictions may be shown: the study is closed or was revealed (``--force``)."""
        return self.closed_at is not None or self.revealed_at is not None
