"""Loading task data into plain in-memory records, from local files or from MTEB by name.

Every loader ends in the plain records of :mod:`hume_sync.study.records`, so sampling and the
store never care where the data came from. Which record a row becomes, which fields and formats a
type's files have, and how an MTEB dataset of its kind is read are the task type's own
(``study_*`` of :class:`~hume_sync.study.rules.StudyRules`); this module runs them: it finds the
file or the MTEB task, checks the format and the ids, and fails with one line.

Local files are JSONL (one object per line) or CSV/TSV with an optional column mapping. Problems
raise :class:`SourceError` naming the file and line. MTEB tasks are loaded with the ``mteb``
package (which pulls the data from the Hugging Face hub); without the hub that fails with a
one-line ``SourceError`` that points at local files instead.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hume_sync.errors import SourceError
from hume_sync.study import kinds
from hume_sync.study.readers import (
    as_id,
    classification_label_names,
    combine_query,
    mteb_split,
    records_from_classification,
    records_from_clustering,
    records_from_reranking_rows,
    records_from_retrieval,
    records_from_sts,
)
from hume_sync.study.records import Candidate, PairItem, QueryItem, Record, TextItem
from hume_sync.study.rules import StudyRules


@dataclass(frozen=True)
class SourceData:
    """What a subset's source yields: evaluation records, a train pool, and where it came from.

    ``origin`` is JSON-able provenance (file path + SHA-256, or MTEB name + revision + split) that
    the store keeps, so a changed data file is noticed on re-initialisation.
    """

    records: tuple[Record, ...]
    train: tuple[TextItem, ...] | None = None
    origin: Mapping[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------
# Local files


#: The local file formats, and the file suffixes that name them.
FORMATS: tuple[str, ...] = ("jsonl", "csv", "tsv")
FORMAT_BY_SUFFIX: Mapping[str, str] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
}


def infer_format(path: str | Path) -> str:
    fmt = FORMAT_BY_SUFFIX.get(Path(path).suffix.lower())
    if fmt is None:
        raise SourceError(path, "cannot tell the format from the file name; give jsonl, csv or tsv")
    return fmt


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def load_records(
    kind: StudyRules,
    path: str | Path,
    *,
    fmt: str | None = None,
    columns: Mapping[str, str | int] | None = None,
    header: bool = True,
) -> list[Record]:
    """Read one local file into records of the task type ``kind``; ids must be unique in the file.

    ``columns`` maps record fields (``text``, ``label``, ``sentence1``…) to source columns by
    name, or by position when ``header`` is false. CSV/TSV rows without an ``id`` column get their
    line number as id, which is stable as long as the file is.
    """
    path = Path(path)
    fmt = fmt or infer_format(path)
    if not path.is_file():
        raise SourceError(path, "file not found")
    if fmt not in FORMATS:
        raise SourceError(path, f"unknown format {fmt!r} (expected jsonl, csv or tsv)")
    if fmt not in kind.study_formats:
        raise SourceError(path, kind.study_formats_problem())
    if fmt == "jsonl":
        if columns and any(not isinstance(c, str) for c in columns.values()):
            raise SourceError(path, "JSONL fields are named; positional columns need CSV/TSV")
        rows: Iterable[tuple[int, dict[str, Any]]] = _jsonl_rows(path, columns or {})
        require_id = True
    else:
        rows = _delimited_rows(path, fmt, kind.study_record_fields, columns or {}, header)
        require_id = False

    try:
        return _build_records(kind, path, rows, require_id=require_id)
    except UnicodeDecodeError:
        raise _not_utf8(path) from None


def _not_utf8(path: Path) -> SourceError:
    """Where a file stops being UTF-8 (line and byte), for a one-line error."""
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return SourceError(
                    path,
                    f"not UTF-8 text (byte 0x{raw[exc.start]:02x}); save the file as UTF-8",
                    line=lineno,
                )
    return SourceError(path, "not UTF-8 text; save the file as UTF-8")


def _build_records(
    kind: StudyRules, path: Path, rows: Iterable[tuple[int, dict[str, Any]]], *, require_id: bool
) -> list[Record]:
    records: list[Record] = []
    first_line: dict[str, int] = {}
    for line, row in rows:
        if "id" not in row or row["id"] is None:
            if require_id:
                raise SourceError(path, "missing field 'id'", line=line)
            row["id"] = str(line)
        rec_id = as_id(row["id"], path, line, "id")
        row["id"] = rec_id
        if rec_id in first_line:
            raise SourceError(
                path, f"duplicate id {rec_id!r} (first on line {first_line[rec_id]})", line=line
            )
        first_line[rec_id] = line
        records.append(kind.study_record_from_row(row, path, line))
    if not records:
        raise SourceError(path, "no records")
    return records


def _jsonl_rows(
    path: Path, columns: Mapping[str, str | int]
) -> Iterator[tuple[int, dict[str, Any]]]:
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise SourceError(path, f"invalid JSON: {exc.msg}", line=lineno) from None
            if not isinstance(obj, dict):
                raise SourceError(path, "each line must be a JSON object", line=lineno)
            if columns:
                obj = {**obj, **{fld: obj.get(str(col)) for fld, col in columns.items()}}
            yield lineno, obj


def _delimited_rows(
    path: Path,
    fmt: str,
    record_fields: Sequence[str],
    columns: Mapping[str, str | int],
    header: bool,
) -> Iterator[tuple[int, dict[str, Any]]]:
    csv.field_size_limit(1 << 28)  # long documents (e.g. WikiCities) exceed the 128 KiB default
    kwargs: dict[str, Any] = (
        {"delimiter": "\t", "quoting": csv.QUOTE_NONE} if fmt == "tsv" else {"delimiter": ","}
    )
    fields = [f for f in record_fields if f != "instruction"]
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, **kwargs)
        positions: dict[str, int] = {}
        try:
            if header:
                names = next(reader, None)
                if names is None:
                    raise SourceError(path, "empty file")
                names = [n.strip() for n in names]
                index = {n: i for i, n in enumerate(names)}
                for fld in fields:
                    col = columns.get(fld, fld)
                    if isinstance(col, int):
                        positions[fld] = col
                    elif col in index:
                        positions[fld] = index[col]
                    elif fld in columns or fld != "id":
                        raise SourceError(
                            path,
                            f"no column {col!r} for field {fld!r} in header "
                            f"({', '.join(names)}); map it under source.columns",
                            line=1,
                        )
            else:
                if columns:
                    for fld, col in columns.items():
                        if not isinstance(col, int):
                            raise SourceError(
                                path, f"without a header, column for {fld!r} must be a position"
                            )
                        positions[fld] = col
                    missing = [f for f in fields if f != "id" and f not in positions]
                    if missing:
                        raise SourceError(
                            path, f"no column position for field(s) {', '.join(missing)}"
                        )
                else:
                    positions = {f: i for i, f in enumerate(fields) if f != "id"}
            for row in reader:
                lineno = reader.line_num
                if not row or all(not c.strip() for c in row):
                    continue
                need = max(positions.values()) + 1
                if len(row) < need:
                    raise SourceError(
                        path, f"expected at least {need} columns, found {len(row)}", line=lineno
                    )
                yield lineno, {fld: row[pos] for fld, pos in positions.items()}
        except csv.Error as exc:
            raise SourceError(
                path, f"malformed {fmt.upper()}: {exc}", line=reader.line_num
            ) from None


# --------------------------------------------------------------------------------------------
# MTEB


@dataclass(frozen=True)
class MtebTaskInfo:
    """The metadata of an MTEB task that a study needs; available offline."""

    name: str
    task_type: str
    mteb_type: str
    dataset_path: str
    revision: str
    eval_splits: tuple[str, ...]
    hf_subsets: tuple[str, ...]
    languages: Mapping[str, tuple[str, ...]]
    main_score: str
    samples_per_label: int | None
    train_split: str | None


def mteb_task_info(name: str) -> MtebTaskInfo:
    """Metadata of an MTEB task by name (no hub access: it ships with the ``mteb`` package).

    The task type is the registered type that reads MTEB's type (``study_mteb_types``)."""
    task = _get_mteb_task(name)
    meta = task.metadata
    kind = mteb_kind(meta.type)
    if kind is None:
        accepted = [m for t in kinds.names() for m in kinds.get(t).study_mteb_types]
        raise SourceError(
            f"mteb:{name}",
            f"MTEB type {meta.type!r} is not one of {', '.join(accepted)}",
        )
    others = sorted(set(meta.modalities or ("text",)) - {"text"})
    if others:  # a person reads text here: an image or audio corpus has nothing to show
        raise SourceError(
            f"mteb:{name}",
            f"hume reads text-only tasks; this one's modalities include {', '.join(others)}",
        )
    eval_langs = meta.eval_langs
    if isinstance(eval_langs, Mapping):
        languages = {k: tuple(v) for k, v in eval_langs.items()}
    else:
        languages = {"default": tuple(eval_langs)}
    pool = kind.study_has_train_pool
    return MtebTaskInfo(
        name=meta.name,
        task_type=kind.name,
        mteb_type=meta.type,
        dataset_path=str(meta.dataset["path"]),
        revision=str(meta.dataset.get("revision", "")),
        eval_splits=tuple(meta.eval_splits),
        hf_subsets=tuple(languages),
        languages=languages,
        main_score=meta.main_score,
        samples_per_label=getattr(task, "samples_per_label", None) if pool else None,
        train_split=getattr(task, "train_split", None) if pool else None,
    )


def mteb_kind(mteb_type: str) -> StudyRules | None:
    """The registered task type that reads MTEB tasks of type ``mteb_type``, if any."""
    for name in kinds.names():
        kind = kinds.get(name)
        if mteb_type in kind.study_mteb_types:
            return kind
    return None


@functools.cache
def _get_mteb_task(name: str) -> Any:
    try:
        import mteb
    except ImportError:  # pragma: no cover - mteb is a dependency of the environment
        raise SourceError(f"mteb:{name}", "the mteb package is not installed") from None
    try:
        return mteb.get_task(name)
    except (KeyError, ValueError) as exc:
        reason = str(exc.args[0]) if exc.args else "not found"
        raise SourceError(f"mteb:{name}", f"unknown MTEB task {name!r}: {reason}") from None


def _hub_unreachable(exc: BaseException) -> bool:
    """Whether an exception from ``datasets``/``huggingface_hub`` means 'no hub here'."""
    chain: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and len(chain) < 10:
        chain.append(cur)
        cur = cur.__cause__ or cur.__context__
    for e in chain:
        name = type(e).__name__
        if isinstance(e, ConnectionError | TimeoutError) or name in (
            "OfflineModeIsEnabled",
            "LocalEntryNotFoundError",
            "ConnectError",
            "ConnectTimeout",
        ):
            return True
        if "Couldn't reach" in str(e) or "offline" in str(e).lower():
            return True
    return False


_loaded: dict[str, Any] = {}


@contextmanager
def provided_mteb_data(datasets: Mapping[str, Any]) -> Iterator[None]:
    """Serve the named MTEB tasks from in-memory data instead of the hub, inside the block.

    ``datasets`` maps a task name to what its ``load_data()`` would have put in ``task.dataset``
    (``{hf_subset: {split: datasets.Dataset}}``, or ``{split: ...}`` for a ``default``-only
    task). Everything after the hub download runs as usual (``load_subset`` → ``load_mteb``),
    so tests and offline copies exercise the real path; the same object can be given to the
    mteb task class itself (``task.dataset = ...``) for a like-for-like comparison.
    """
    saved = {name: _loaded[name] for name in datasets if name in _loaded}
    _loaded.update(datasets)
    try:
        yield
    finally:
        for name in datasets:
            _loaded.pop(name, None)
        _loaded.update(saved)


def _offline_mode() -> bool:
    try:
        from huggingface_hub import constants
    except ImportError:  # pragma: no cover
        return False
    return bool(constants.HF_HUB_OFFLINE)


def _hub_reachable(timeout: float = 3.0) -> bool:
    """A quick TCP check of the hub endpoint, so a machine without network fails in seconds
    instead of after ``datasets``' retry loop (about half a minute)."""
    import socket
    from urllib.parse import urlparse

    try:
        from huggingface_hub import constants

        endpoint = urlparse(constants.ENDPOINT)
    except ImportError:  # pragma: no cover
        return True
    host = endpoint.hostname or "huggingface.co"
    port = endpoint.port or (443 if endpoint.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _unreachable_error(name: str) -> SourceError:
    return SourceError(
        f"mteb:{name}",
        f"cannot load MTEB task {name}: the Hugging Face hub is not reachable (offline); "
        "use local files",
    )


def _load_mteb_dataset(name: str) -> Any:
    """Run the task's own ``load_data()`` once per process; hub failures become SourceError.

    In offline mode (``HF_HUB_OFFLINE=1``) ``datasets`` may still serve a local cache, so the
    load is attempted; otherwise an unreachable hub is detected up front.
    """
    if name in _loaded:
        return _loaded[name]
    task = _get_mteb_task(name)
    if not _offline_mode() and not _hub_reachable():
        raise _unreachable_error(name)
    try:
        task.load_data()
    except Exception as exc:
        if _hub_unreachable(exc):
            raise _unreachable_error(name) from None
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise SourceError(
            f"mteb:{name}", f"cannot load MTEB task {name}: {type(exc).__name__}: {first}"
        ) from None
    _loaded[name] = task.dataset
    return task.dataset


def load_mteb(
    name: str,
    hf_subset: str = "default",
    *,
    kind: StudyRules | None = None,
    split: str | None = None,
    dataset: Any = None,
) -> SourceData:
    """Load one subset of an MTEB task into records (``dataset`` skips the hub, for tests);
    ``kind``, when given, is the task type the spec expects the task to be."""
    info = mteb_task_info(name)
    where = f"mteb:{name}"
    if kind is not None and not kind.study_accepts_mteb_type(info.mteb_type):
        raise SourceError(where, f"is a {info.task_type} task, not {kind.name}")
    if hf_subset not in info.hf_subsets:
        raise SourceError(where, f"no subset {hf_subset!r} (has: {', '.join(info.hf_subsets)})")
    split = split or info.eval_splits[0]
    if dataset is None:
        dataset = _load_mteb_dataset(name)
    try:
        data = mteb_split(dataset, hf_subset, split)
    except KeyError:
        raise SourceError(where, f"loaded data has no {hf_subset}/{split}") from None
    train_data = None
    if info.train_split is not None:
        try:
            train_data = mteb_split(dataset, hf_subset, info.train_split)
        except KeyError:
            train_data = None
    reader = kinds.get(info.task_type)
    records, train = reader.study_mteb_records(
        _get_mteb_task(name), data, train_data, f"{where}/{hf_subset}/{split}"
    )
    origin = {
        "mteb": info.name,
        "dataset": info.dataset_path,
        "revision": info.revision,
        "hf_subset": hf_subset,
        "split": split,
    }
    return SourceData(records=tuple(records), train=train, origin=origin)


# The readers, re-exported: what a source yields is read by them.
__all__ = [
    "FORMATS",
    "Candidate",
    "MtebTaskInfo",
    "PairItem",
    "QueryItem",
    "Record",
    "SourceData",
    "SourceError",
    "TextItem",
    "classification_label_names",
    "combine_query",
    "file_sha256",
    "infer_format",
    "load_mteb",
    "load_records",
    "mteb_kind",
    "mteb_split",
    "mteb_task_info",
    "provided_mteb_data",
    "records_from_classification",
    "records_from_clustering",
    "records_from_reranking_rows",
    "records_from_retrieval",
    "records_from_sts",
]
