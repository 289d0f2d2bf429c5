"""Reading rows into the plain records: the building blocks each task type composes.

A task type says which record a row of its local files becomes and how an MTEB dataset of its
kind turns into records (``study_record_from_row``, ``study_mteb_records``: see
:mod:`hume_sync.study.rules`); these are the pieces it builds them from, so that every type reads
ids, texts, labels, scores and relevance the same way and fails with the same one-line
:class:`~hume_sync.errors.SourceError` naming the file and line. Nothing here knows a type's name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hume_sync.errors import SourceError
from hume_sync.study.records import Candidate, PairItem, QueryItem, TextItem

# --------------------------------------------------------------------------------------------
# One row of a local file (or of an MTEB split) into one record


def as_id(value: Any, where: str | Path, line: int | None, name: str) -> str:
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


def build_text_item(row: Mapping[str, Any], where: str | Path, line: int | None) -> TextItem:
    return TextItem(
        id=row["id"], text=_text(row, "text", where, line), label=_label(row, where, line)
    )


def build_pair(row: Mapping[str, Any], where: str | Path, line: int | None) -> PairItem:
    return PairItem(
        id=row["id"],
        sentence1=_text(row, "sentence1", where, line),
        sentence2=_text(row, "sentence2", where, line),
        score=_score(row.get("score"), where, line),
    )


def build_query(row: Mapping[str, Any], where: str | Path, line: int | None) -> QueryItem:
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
        cid = as_id(c["id"], where, line, f"candidate {i} id")
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


def combine_query(query: str, instruction: str | None) -> str:
    """Query text as MTEB gives it to models: ``text + " " + instruction`` (instruction tasks)."""
    if instruction is None or not instruction.strip():
        return query
    return f"{query} {instruction.strip()}"


# --------------------------------------------------------------------------------------------
# MTEB-shaped datasets (``datasets.Dataset`` splits) into records


def mteb_split(dataset: Any, hf_subset: str, split: str) -> Any:
    """The data of one subset and split, whatever nesting MTEB used for this task."""
    if isinstance(dataset, Mapping) and hf_subset in dataset:
        node = dataset[hf_subset]
        if isinstance(node, Mapping) and split in node:
            return node[split]
    if hf_subset == "default" and isinstance(dataset, Mapping) and split in dataset:
        return dataset[split]
    raise KeyError(f"{hf_subset}/{split}")


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
        out.append(build_pair(row, where, None))
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
