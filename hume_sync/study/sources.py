"""Loading task data into plain in-memory records, from local files or from MTEB by name.

Every loader ends in the same four record types, so sampling and the store never care where the
data came from:

- classification / clustering: :class:`TextItem` (id, text, label)
- reranking: :class:`QueryItem` (id, query, candidates with binary relevance)
- sts: :class:`PairItem` (id, sentence1, sentence2, score)

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
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hume_sync.errors import SourceError
from hume_sync.study.records import RECORD_FIELDS, Candidate, PairItem, QueryItem, Record, TextItem

#: MTEB's task types mapped to ours (MTEB calls its retrieval-style reranking tasks "Reranking").
MTEB_TYPES: dict[str, str] = {
    "Classification": "classification",
    "Clustering": "clustering",
    "Reranking": "reranking",
    "STS": "sts",
}


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


def infer_format(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    fmt = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv"}.get(suffix)
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
    task_type: str,
    path: str | Path,
    *,
    fmt: str | None = None,
    columns: Mapping[str, str | int] | None = None,
    header: bool = True,
) -> list[Record]:
    """Read one local file into records of ``task_type``; ids must be unique within the file.

    ``columns`` maps record fields (``text``, ``label``, ``sentence1``…) to source columns by
    name, or by position when ``header`` is false. CSV/TSV rows without an ``id`` column get their
    line number as id, which is stable as long as the file is.
    """
    path = Path(path)
    fmt = fmt or infer_format(path)
    if task_type not in ("classification", "clustering", "reranking", "sts"):
        raise SourceError(path, f"unknown task type {task_type!r}")
    if not path.is_file():
        raise SourceError(path, "file not found")
    if fmt == "jsonl":
        if columns and any(not isinstance(c, str) for c in columns.values()):
            raise SourceError(path, "JSONL fields are named; positional columns need CSV/TSV")
        rows: Iterable[tuple[int, dict[str, Any]]] = _jsonl_rows(path, columns or {})
        require_id = True
    elif fmt in ("csv", "tsv"):
        if task_type == "reranking":
            raise SourceError(path, "reranking sources must be JSONL (candidates are nested)")
        rows = _delimited_rows(path, fmt, task_type, columns or {}, header)
        require_id = False
    else:
        raise SourceError(path, f"unknown format {fmt!r} (expected jsonl, csv or tsv)")

    try:
        return _build_records(task_type, path, rows, require_id=require_id)
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
    task_type: str, path: Path, rows: Iterable[tuple[int, dict[str, Any]]], *, require_id: bool
) -> list[Record]:
    build = _BUILDERS[task_type]
    records: list[Record] = []
    first_line: dict[str, int] = {}
    for line, row in rows:
        if "id" not in row or row["id"] is None:
            if require_id:
                raise SourceError(path, "missing field 'id'", line=line)
            row["id"] = str(line)
        rec_id = _as_id(row["id"], path, line, "id")
        row["id"] = rec_id
        if rec_id in first_line:
            raise SourceError(
                path, f"duplicate id {rec_id!r} (first on line {first_line[rec_id]})", line=line
            )
        first_line[rec_id] = line
        records.append(build(row, path, line))
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
    task_type: str,
    columns: Mapping[str, str | int],
    header: bool,
) -> Iterator[tuple[int, dict[str, Any]]]:
    csv.field_size_limit(1 << 28)  # long documents (e.g. WikiCities) exceed the 128 KiB default
    kwargs: dict[str, Any] = (
        {"delimiter": "\t", "quoting": csv.QUOTE_NONE} if fmt == "tsv" else {"delimiter": ","}
    )
    fields = [f for f in RECORD_FIELDS[task_type] if f != "instruction"]
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


def _as_id(value: Any, where: str | Path, line: int | None, name: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise SourceError(where, f"{name} must be a string or an integer, got {value!r}", line=line)
    text = str(value).strip()
    if not text:
        raise SourceError(where, f"{name} is empty", line=line)
    return text


def _text(row: Mapping[str, Any], key: str, where: str | Path, line: int | None) -> str:
    value = row.get(key)
    if value is None:
        raise SourceError(where, f"missing field {key!r}", line=line)
    if not isinstance(value, str):
        raise SourceError(where, f"{key!r} must be a string, got {type(value).__name__}", line=line)
    if not value.strip():
        raise SourceError(where, f"{key!r} is empty", line=line)
    return value.strip()


def _label(row: Mapping[str, Any], where: str | Path, line: int | None) -> str:
    value = row.get("label")
    if value is None:
        raise SourceError(where, "missing field 'label'", line=line)
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise SourceError(where, f"label must be a string or an integer, got {value!r}", line=line)
    text = str(value).strip()
    if not text:
        raise SourceError(where, "label is empty", line=line)
    return text


def _score(value: Any, where: str | Path, line: int | None) -> float:
    if value is None:
        raise SourceError(where, "missing field 'score'", line=line)
    if isinstance(value, bool):
        raise SourceError(where, f"score must be a number, got {value!r}", line=line)
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise SourceError(where, f"score must be a number, got {value!r}", line=line) from None
    if not math.isfinite(score):
        raise SourceError(where, f"score must be finite, got {value!r}", line=line)
    return score


def _relevant(value: Any, where: str | Path, line: int | None, cid: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    raise SourceError(
        where, f"candidate {cid!r}: relevant must be true/false or 0/1, got {value!r}", line=line
    )


def _build_text_item(row: Mapping[str, Any], where: str | Path, line: int | None) -> TextItem:
    return TextItem(
        id=row["id"], text=_text(row, "text", where, line), label=_label(row, where, line)
    )


def _build_pair(row: Mapping[str, Any], where: str | Path, line: int | None) -> PairItem:
    return PairItem(
        id=row["id"],
        sentence1=_text(row, "sentence1", where, line),
        sentence2=_text(row, "sentence2", where, line),
        score=_score(row.get("score"), where, line),
    )


def _build_query(row: Mapping[str, Any], where: str | Path, line: int | None) -> QueryItem:
    query = _text(row, "query", where, line)
    instruction = row.get("instruction")
    if instruction is not None:
        if not isinstance(instruction, str):
            raise SourceError(where, "instruction must be a string", line=line)
        query = combine_query(query, instruction)
    raw = row.get("candidates")
    if not isinstance(raw, list) or not raw:
        raise SourceError(where, "candidates must be a non-empty list", line=line)
    cands: list[Candidate] = []
    seen: set[str] = set()
    for i, c in enumerate(raw):
        if not isinstance(c, Mapping):
            raise SourceError(where, f"candidate {i} must be an object", line=line)
        if "id" not in c:
            raise SourceError(where, f"candidate {i}: missing field 'id'", line=line)
        cid = _as_id(c["id"], where, line, f"candidate {i} id")
        if cid in seen:
            raise SourceError(where, f"duplicate candidate id {cid!r}", line=line)
        seen.add(cid)
        if "relevant" not in c:
            raise SourceError(where, f"candidate {cid!r}: missing field 'relevant'", line=line)
        cands.append(
            Candidate(
                id=cid,
                text=_text(c, "text", where, line),
                relevant=_relevant(c["relevant"], where, line, cid),
            )
        )
    return QueryItem(id=row["id"], query=query, candidates=tuple(cands))


_BUILDERS: dict[str, Callable[[Mapping[str, Any], str | Path, int | None], Record]] = {
    "classification": _build_text_item,
    "clustering": _build_text_item,
    "reranking": _build_query,
    "sts": _build_pair,
}


def combine_query(query: str, instruction: str | None) -> str:
    """Query text as MTEB gives it to models: ``text + " " + instruction`` (instruction tasks)."""
    if instruction is None or not instruction.strip():
        return query
    return f"{query} {instruction.strip()}"


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
    """Metadata of an MTEB task by name (no hub access: it ships with the ``mteb`` package)."""
    task = _get_mteb_task(name)
    meta = task.metadata
    if meta.type not in MTEB_TYPES:
        raise SourceError(
            f"mteb:{name}",
            f"MTEB type {meta.type!r} is not one of {', '.join(MTEB_TYPES)}",
        )
    eval_langs = meta.eval_langs
    if isinstance(eval_langs, Mapping):
        languages = {k: tuple(v) for k, v in eval_langs.items()}
    else:
        languages = {"default": tuple(eval_langs)}
    is_cls = MTEB_TYPES[meta.type] == "classification"
    return MtebTaskInfo(
        name=meta.name,
        task_type=MTEB_TYPES[meta.type],
        mteb_type=meta.type,
        dataset_path=str(meta.dataset["path"]),
        revision=str(meta.dataset.get("revision", "")),
        eval_splits=tuple(meta.eval_splits),
        hf_subsets=tuple(languages),
        languages=languages,
        main_score=meta.main_score,
        samples_per_label=getattr(task, "samples_per_label", None) if is_cls else None,
        train_split=getattr(task, "train_split", None) if is_cls else None,
    )


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


def mteb_split(dataset: Any, hf_subset: str, split: str) -> Any:
    """The data of one subset and split, whatever nesting MTEB used for this task."""
    if isinstance(dataset, Mapping) and hf_subset in dataset:
        node = dataset[hf_subset]
        if isinstance(node, Mapping) and split in node:
            return node[split]
    if hf_subset == "default" and isinstance(dataset, Mapping) and split in dataset:
        return dataset[split]
    raise KeyError(f"{hf_subset}/{split}")


def load_mteb(
    name: str,
    hf_subset: str = "default",
    *,
    task_type: str | None = None,
    split: str | None = None,
    dataset: Any = None,
) -> SourceData:
    """Load one subset of an MTEB task into records (``dataset`` skips the hub, for tests)."""
    info = mteb_task_info(name)
    where = f"mteb:{name}"
    if task_type is not None and task_type != info.task_type:
        raise SourceError(where, f"is a {info.task_type} task, not {task_type}")
    if hf_subset not in info.hf_subsets:
        raise SourceError(where, f"no subset {hf_subset!r} (has: {', '.join(info.hf_subsets)})")
    split = split or info.eval_splits[0]
    if dataset is None:
        dataset = _load_mteb_dataset(name)
    try:
        data = mteb_split(dataset, hf_subset, split)
    except KeyError:
        raise SourceError(where, f"loaded data has no {hf_subset}/{split}") from None
    task = _get_mteb_task(name)
    where = f"{where}/{hf_subset}/{split}"
    train: tuple[TextItem, ...] | None = None
    if info.task_type == "classification":
        text_col = getattr(task, "input_column_name", "text")
        label_col = getattr(task, "label_column_name", "label")
        if not isinstance(text_col, str):
            raise SourceError(where, "multimodal classification tasks are not supported")
        train_data = None
        if info.train_split is not None:
            try:
                train_data = mteb_split(dataset, hf_subset, info.train_split)
            except KeyError:
                train_data = None
        names = classification_label_names(data, train_data, label_column=label_col)
        records: list[Record] = list(
            records_from_classification(
                data, text_column=text_col, label_column=label_col, label_names=names, where=where
            )
        )
        if train_data is not None:
            train = tuple(
                records_from_classification(
                    train_data,
                    text_column=text_col,
                    label_column=label_col,
                    label_names=names,
                    where=f"{where} (train)",
                )
            )
    elif info.task_type == "clustering":
        records = list(
            records_from_clustering(
                data,
                sentences_column=getattr(task, "input_column_name", "sentences"),
                labels_column=getattr(task, "label_column_name", "labels"),
                where=where,
            )
        )
    elif info.task_type == "sts":
        cols = getattr(task, "column_names", ("sentence1", "sentence2"))
        records = list(records_from_sts(data, columns=tuple(cols), where=where))
    else:
        if isinstance(data, Mapping) and "queries" in data:
            records = list(records_from_retrieval(data, where=where))
        else:
            records = list(records_from_reranking_rows(data, where=where))
    origin = {
        "mteb": info.name,
        "dataset": info.dataset_path,
        "revision": info.revision,
        "hf_subset": hf_subset,
        "split": split,
    }
    return SourceData(records=tuple(records), train=train, origin=origin)


def _columns(data: Any) -> list[str]:
    names = getattr(data, "column_names", None)
    if names is None:
        raise SourceError("<mteb>", f"expected a datasets.Dataset, got {type(data).__name__}")
    return list(names)


def _row_ids(data: Any, n: int) -> list[str]:
    """The dataset's ``id`` column when it has one (unique), else the row index."""
    if "id" in _columns(data):
        ids = [str(x) for x in data["id"]]
        if len(set(ids)) == len(ids):
            return ids
    return [str(i) for i in range(n)]


def _check_unique(ids: Sequence[str], where: str) -> None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise SourceError(where, f"duplicate id {i!r}")
        seen.add(i)


def classification_label_names(
    data: Any, train: Any = None, *, label_column: str = "label"
) -> dict[Any, str]:
    """How to print a label: ClassLabel names, else a ``label_text`` column, else ``str(label)``.

    Built from the evaluation and the train split together so both map a label the same way.
    """
    mapping: dict[Any, str] = {}
    for ds in (data, train):
        if ds is None:
            continue
        feature = getattr(ds, "features", {}).get(label_column)
        names = getattr(feature, "names", None)
        if names:
            for i, n in enumerate(names):
                mapping.setdefault(i, str(n))
        if "label_text" in _columns(ds) and label_column != "label_text":
            for lab, text in zip(ds[label_column], ds["label_text"], strict=True):
                if text is not None and str(text).strip():
                    mapping.setdefault(lab, str(text).strip())
    return mapping


def records_from_classification(
    data: Any,
    *,
    text_column: str = "text",
    label_column: str = "label",
    label_names: Mapping[Any, str] | None = None,
    where: str = "<mteb>",
) -> list[TextItem]:
    """MTEB classification split (columns ``text``, ``label``) → TextItems."""
    cols = _columns(data)
    for col in (text_column, label_column):
        if col not in cols:
            raise SourceError(where, f"no column {col!r} (has: {', '.join(cols)})")
    texts = data[text_column]
    labels = data[label_column]
    ids = _row_ids(data, len(texts))
    names = label_names or {}
    out: list[TextItem] = []
    for rid, text, label in zip(ids, texts, labels, strict=True):
        if not isinstance(text, str) or not text.strip():
            raise SourceError(where, f"row {rid}: empty or non-text {text_column!r}")
        out.append(TextItem(id=rid, text=text.strip(), label=names.get(label, str(label))))
    _check_unique([r.id for r in out], where)
    return out


def records_from_clustering(
    data: Any,
    *,
    sentences_column: str = "sentences",
    labels_column: str = "labels",
    where: str = "<mteb>",
) -> list[TextItem]:
    """MTEB clustering split → TextItems.

    Legacy layout: each row is one clustering set (lists of sentences and labels); items get id
    ``<row>-<position>`` and ``group = <row>``. Item-level layout (one text per row): id = row.
    Hierarchical labels (lists) keep their first level.
    """
    cols = _columns(data)
    for col in (sentences_column, labels_column):
        if col not in cols:
            raise SourceError(where, f"no column {col!r} (has: {', '.join(cols)})")
    sentences = data[sentences_column]
    labels = data[labels_column]
    out: list[TextItem] = []
    for row, (sents, labs) in enumerate(zip(sentences, labels, strict=True)):
        if isinstance(sents, list):
            if not isinstance(labs, list) or len(labs) != len(sents):
                raise SourceError(where, f"set {row}: sentences and labels differ in length")
            for pos, (text, lab) in enumerate(zip(sents, labs, strict=True)):
                out.append(_cluster_item(f"{row}-{pos}", text, lab, str(row), where))
        else:
            out.append(_cluster_item(str(row), sents, labs, None, where))
    _check_unique([r.id for r in out], where)
    return out


def _cluster_item(rid: str, text: Any, label: Any, group: str | None, where: str) -> TextItem:
    if isinstance(label, list):
        if not label:
            raise SourceError(where, f"item {rid}: empty label list")
        label = label[0]
    if not isinstance(text, str) or not text.strip():
        raise SourceError(where, f"item {rid}: empty or non-text sentence")
    return TextItem(id=rid, text=text.strip(), label=str(label), group=group)


def records_from_sts(
    data: Any,
    *,
    columns: tuple[str, str] = ("sentence1", "sentence2"),
    score_column: str = "score",
    where: str = "<mteb>",
) -> list[PairItem]:
    """MTEB STS split (``sentence1``, ``sentence2``, ``score``) → PairItems."""
    cols = _columns(data)
    for col in (*columns, score_column):
        if col not in cols:
            raise SourceError(where, f"no column {col!r} (has: {', '.join(cols)})")
    s1, s2, scores = data[columns[0]], data[columns[1]], data[score_column]
    ids = _row_ids(data, len(s1))
    out = []
    for rid, a, b, score in zip(ids, s1, s2, scores, strict=True):
        row = {"id": rid, "sentence1": a, "sentence2": b, "score": score}
        out.append(_build_pair(row, where, None))
    _check_unique([r.id for r in out], where)
    return out


def records_from_retrieval(split: Mapping[str, Any], *, where: str = "<mteb>") -> list[QueryItem]:
    """MTEB v2 retrieval-style reranking split → QueryItems.

    ``split`` holds ``corpus`` (id, text, optional title), ``queries`` (id, text, optional
    instruction), ``relevant_docs`` ({query: {doc: score}}) and ``top_ranked`` ({query: [doc]} or
    None). Candidates are the query's ``top_ranked`` list, else its judged documents; relevant
    means a qrel score > 0. Texts are built as MTEB builds them for models (title + text; query +
    instruction), so humans and models see the same input.
    """
    corpus = split["corpus"]
    queries = split["queries"]
    qrels: Mapping[str, Mapping[str, int]] = split.get("relevant_docs") or {}
    top = split.get("top_ranked") or {}
    ccols = _columns(corpus)
    titles = corpus["title"] if "title" in ccols else [None] * len(corpus)
    docs: dict[str, str] = {}
    for did, text, title in zip(corpus["id"], corpus["text"], titles, strict=True):
        body = (text or "").strip()
        docs[str(did)] = f"{title} {body}".strip() if title else body
    qcols = _columns(queries)
    instructions = queries["instruction"] if "instruction" in qcols else [None] * len(queries)
    out: list[QueryItem] = []
    for qid, qtext, instr in zip(queries["id"], queries["text"], instructions, strict=True):
        qid = str(qid)
        judged = {str(k): int(v) for k, v in (qrels.get(qid) or {}).items()}
        cand_ids = [str(c) for c in top[qid]] if qid in top else list(judged)
        if not cand_ids:
            continue
        cands = []
        for cid in cand_ids:
            if cid not in docs:
                raise SourceError(where, f"query {qid}: candidate {cid!r} not in the corpus")
            if not docs[cid]:
                raise SourceError(where, f"query {qid}: candidate {cid!r} has no text")
            cands.append(Candidate(id=cid, text=docs[cid], relevant=judged.get(cid, 0) > 0))
        if not isinstance(qtext, str) or not qtext.strip():
            raise SourceError(where, f"query {qid}: empty text")
        out.append(
            QueryItem(id=qid, query=combine_query(qtext.strip(), instr), candidates=tuple(cands))
        )
    _check_unique([r.id for r in out], where)
    return out


def records_from_reranking_rows(data: Any, *, where: str = "<mteb>") -> list[QueryItem]:
    """MTEB v1 reranking layout (columns ``query``, ``positive`` list, ``negative`` list).

    Candidate ids are ``p<i>`` / ``n<i>``; order as given (positives first, so sampling shuffles).
    """
    cols = _columns(data)
    for col in ("query", "positive", "negative"):
        if col not in cols:
            raise SourceError(where, f"no column {col!r} (has: {', '.join(cols)})")
    ids = _row_ids(data, len(data))
    out = []
    for rid, query, pos, neg in zip(
        ids, data["query"], data["positive"], data["negative"], strict=True
    ):
        if not isinstance(query, str) or not query.strip():
            raise SourceError(where, f"row {rid}: empty query")
        cands = [Candidate(f"p{i}", str(t).strip(), True) for i, t in enumerate(pos or [])]
        cands += [Candidate(f"n{i}", str(t).strip(), False) for i, t in enumerate(neg or [])]
        if cands:
            out.append(QueryItem(id=rid, query=query.strip(), candidates=tuple(cands)))
    return out
