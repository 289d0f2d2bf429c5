"""Retrieval's source: a corpus, queries and qrels, from a BEIR folder or an mteb split.

The shared loader reads one file of records, one record per row. A retrieval source is three
files, so the spec names the BEIR folder's qrels file (``<folder>/qrels/<split>.tsv``, header
``query-id corpus-id score``): each qrels row is a :class:`Judgment`, and ``corpus.jsonl`` and
``queries.jsonl`` two levels up are read once into a :class:`Collection` the judgments share.
An mteb retrieval split (``corpus``, ``queries``, ``relevant_docs`` as mteb loads them) yields
the same judgments, so sampling and pooling never ask where the data came from. Texts are
built as mteb builds them for models (title + text; the instruction apart, shown to people
beside the query), so people and models read the same documents.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hume_sync.errors import SourceError
from hume_sync.study.readers import as_id
from hume_sync.study.sources import file_sha256

__all__ = [
    "Collection",
    "Judgment",
    "beir_collection",
    "beir_folder",
    "collection_from",
    "judgments_from_mteb",
    "read_judgment",
]


@dataclass(frozen=True, eq=False)
class Collection:
    """A corpus and its queries, shared by every judgment of one source.

    Attributes:
        docs: per document id, its text as a model reads it, in corpus order.
        queries: per query id, ``(text, instruction or None)``, in the queries' order.
        where: the source's name, for errors.
        origin: how to read it again (``{"beir": folder}`` or ``{"mteb": name, "hf_subset":
            ..., "split": ...}``): ``predict`` ranks the whole corpus, which the store does not
            keep.
        main_score: an mteb task's own main score (``TaskMetadata.main_score``); None for
            local files (the spec's ``main_score`` then, default nDCG@10).
    """

    docs: Mapping[str, str]
    queries: Mapping[str, tuple[str, str | None]]
    where: str
    origin: Mapping[str, str] = field(default_factory=dict)
    main_score: str | None = None

    def query_position(self, qid: str) -> int | None:
        """The query's 0-based place in its source (models see queries in that order)."""
        for n, q in enumerate(self.queries):
            if q == qid:
                return n
        return None


@dataclass(frozen=True)
class Judgment:
    """One qrels line: a query, a document and its grade (0: judged not relevant).

    Attributes:
        id: the line's id in its source (its line number, or its place in mteb's qrels).
        query_id: the query.
        doc_id: the document.
        grade: the judged relevance, an integer ≥ 0.
        collection: the corpus and queries the ids refer to.
    """

    id: str
    query_id: str
    doc_id: str
    grade: int
    collection: Collection = field(compare=False, repr=False)


def _text(title: Any, text: Any) -> str:
    body = str(text or "").strip()
    return f"{title} {body}".strip() if title else body


_FOLDERS: dict[tuple[str, int, int], Collection] = {}


def _jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise SourceError(
            path, "file not found (a BEIR folder holds corpus.jsonl and queries.jsonl)"
        )
    out = []
    with path.open(encoding="utf-8") as fh:
        for line, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise SourceError(path, f"invalid JSON: {exc.msg}", line=line) from None
            if not isinstance(obj, dict) or "_id" not in obj:
                raise SourceError(path, "each line must be a JSON object with '_id'", line=line)
            out.append((line, obj))
    return out


def beir_collection(qrels_path: str | Path) -> Collection:
    """Read the corpus and queries beside a BEIR qrels file (once per folder and version).

    Args:
        qrels_path: ``<folder>/qrels/<split>.tsv``.

    Returns:
        The folder's collection.

    Raises:
        SourceError: naming the file and line of a missing file, bad JSON or a duplicate id.
    """
    return beir_folder(Path(qrels_path).resolve().parent.parent)


def beir_folder(folder: Path) -> Collection:
    """Read a BEIR folder's corpus and queries (once per folder and version).

    Args:
        folder: the folder holding ``corpus.jsonl`` and ``queries.jsonl``.

    Returns:
        The folder's collection.

    Raises:
        SourceError: naming the file and line of a missing file, bad JSON or a duplicate id.
    """
    corpus_path, queries_path = folder / "corpus.jsonl", folder / "queries.jsonl"
    stamp = tuple(p.stat().st_mtime_ns if p.is_file() else 0 for p in (corpus_path, queries_path))
    key = (str(folder), stamp[0], stamp[1])
    if key in _FOLDERS:
        return _FOLDERS[key]
    docs: dict[str, str] = {}
    for line, obj in _jsonl(corpus_path):
        did = as_id(obj["_id"], corpus_path, line, "_id")
        if did in docs:
            raise SourceError(corpus_path, f"duplicate id {did!r}", line=line)
        docs[did] = _text(obj.get("title"), obj.get("text"))
    queries: dict[str, tuple[str, str | None]] = {}
    for line, obj in _jsonl(queries_path):
        qid = as_id(obj["_id"], queries_path, line, "_id")
        if qid in queries:
            raise SourceError(queries_path, f"duplicate id {qid!r}", line=line)
        text = str(obj.get("text") or "").strip()
        if not text:
            raise SourceError(queries_path, f"query {qid!r} has no text", line=line)
        instruction = obj.get("instruction")
        queries[qid] = (text, str(instruction).strip() if instruction else None)
    _FOLDERS[key] = Collection(docs, queries, str(folder), {"beir": str(folder)})
    return _FOLDERS[key]


def read_judgment(row: Mapping[str, Any], where: str | Path, line: int | None) -> Judgment:
    """One qrels row (``query-id``, ``corpus-id``, ``score``) as a judgment of its folder.

    Args:
        row: the row's fields (``id`` already set by the loader).
        where: the qrels file.
        line: the row's line.

    Returns:
        The judgment.

    Raises:
        SourceError: naming the line, for an unknown query or document or a bad grade.
    """
    collection = beir_collection(where)
    qid = as_id(row.get("query-id"), where, line, "query-id")
    did = as_id(row.get("corpus-id"), where, line, "corpus-id")
    return Judgment(str(row["id"]), qid, did, _grade(row.get("score"), where, line), collection)


def _grade(value: Any, where: str | Path, line: int | None) -> int:
    try:
        grade = int(str(value).strip())
    except ValueError:
        raise SourceError(
            where, f"score must be an integer ≥ 0, got {value!r}", line=line
        ) from None
    if grade < 0:
        raise SourceError(where, f"score must be an integer ≥ 0, got {value!r}", line=line)
    return grade


def check_judgments(judgments: list[Judgment]) -> None:
    """Refuse a judgment whose query or document its collection lacks (one line).

    Args:
        judgments: the source's judgments.

    Raises:
        SourceError: naming the first unknown query or document.
    """
    for j in judgments:
        c = j.collection
        if j.query_id not in c.queries:
            raise SourceError(c.where, f"qrels name query {j.query_id!r}, not in queries")
        if j.doc_id not in c.docs:
            raise SourceError(c.where, f"qrels name document {j.doc_id!r}, not in the corpus")


def judgments_from_mteb(
    split: Mapping[str, Any], *, where: str, main_score: str | None = None
) -> list[Judgment]:
    """An mteb retrieval split (``corpus``, ``queries``, ``relevant_docs``) as judgments.

    Args:
        split: the split as mteb 2.x loads it (``datasets.Dataset`` corpus and queries).
        where: the source's name, for errors.
        main_score: the task's ``TaskMetadata.main_score``, kept on the collection.

    Returns:
        One judgment per qrels entry, in qrels order.

    Raises:
        SourceError: for a split without the three parts, or ids they do not share.
    """
    for part in ("corpus", "queries", "relevant_docs"):
        if part not in split or split[part] is None:
            raise SourceError(where, f"not a retrieval split: no {part!r}")
    corpus, queries = split["corpus"], split["queries"]
    titles = corpus["title"] if "title" in corpus.column_names else [None] * len(corpus)
    docs = {
        str(d): _text(t, x) for d, x, t in zip(corpus["id"], corpus["text"], titles, strict=True)
    }
    instr = (
        queries["instruction"] if "instruction" in queries.column_names else [None] * len(queries)
    )
    qs: dict[str, tuple[str, str | None]] = {}
    for q, text, ins in zip(queries["id"], queries["text"], instr, strict=True):
        if not isinstance(text, str) or not text.strip():
            raise SourceError(where, f"query {q!r}: empty text")
        qs[str(q)] = (text.strip(), str(ins).strip() if ins else None)
    name, _, rest = where.removeprefix("mteb:").partition("/")
    hf_subset, _, split_name = rest.rpartition("/")
    origin = {"mteb": name, "hf_subset": hf_subset, "split": split_name}
    collection = Collection(docs, qs, where, origin, main_score)
    out: list[Judgment] = []
    for qid, judged in split["relevant_docs"].items():
        for did, grade in judged.items():
            out.append(
                Judgment(
                    str(len(out) + 1), str(qid), str(did), _grade(grade, where, None), collection
                )
            )
    check_judgments(out)
    return out


_DIGESTS: dict[tuple[str, int, int], str] = {}


def _check_unchanged(path: Path, expected: Any) -> None:
    """Refuse a corpus file whose digest is not the one recorded at ``init``.

    The whole-corpus score ranks every document of the file as it is now; a corpus edited
    after the pools were drawn would give a score of another corpus under the study's name.
    The digest is cached per path, size and modification time, as the collection is.
    """
    if not expected:
        return
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _DIGESTS:
        _DIGESTS[key] = file_sha256(path)
    if _DIGESTS[key] != expected:
        raise SourceError(
            path,
            "changed since the study was made (its sha256 differs from the one recorded at "
            "init); restore the corpus the pools were drawn from",
        )


def collection_from(origin: Mapping[str, Any]) -> Collection:
    """Read a collection again from its :attr:`Collection.origin` (``predict``'s whole corpus).

    Args:
        origin: ``{"beir": folder}`` or ``{"mteb": name, "hf_subset": ..., "split": ...}``.

    Returns:
        The collection.

    Raises:
        SourceError: for an origin of neither kind, a source that cannot be read, or a BEIR
            corpus whose digest differs from the one recorded at ``init``.
    """
    if "beir" in origin:
        folder = Path(str(origin["beir"]))
        collection = beir_folder(folder)
        _check_unchanged(folder / "corpus.jsonl", origin.get("corpus_sha256"))
        return collection
    if "mteb" in origin:
        from hume_sync.study.sources import load_mteb

        data = load_mteb(str(origin["mteb"]), str(origin["hf_subset"]), split=str(origin["split"]))
        if not data.records:
            raise SourceError(f"mteb:{origin['mteb']}", "no qrels")
        first = data.records[0]
        if not isinstance(first, Judgment):
            raise SourceError(f"mteb:{origin['mteb']}", "not a retrieval task")
        return first.collection
    raise SourceError("<corpus>", f"cannot read a corpus from {dict(origin)!r}")
