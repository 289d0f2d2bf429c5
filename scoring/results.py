"""Read and write MTEB result files in the results repository's layout.

Layout: ``<root>/<org>__<model>/<revision>/<TaskName>.json`` plus ``model_meta.json`` in each
revision folder. A result file holds ``{dataset_revision, task_name, mteb_version, scores:
{split: [{main_score, hf_subset, languages, ...}]}, evaluation_time, kg_co2_emissions}``.

Choices (named so that a report can state them):
- one revision per model: the user's choice, else the *newest*, i.e. the revision whose files
  carry the highest ``mteb_version`` (ties: the lexically greatest revision name);
- a revision folder named ``annotator_*`` holds one annotator's scores: it becomes an individual
  rater of kind ``"annotator"``, never a model and never a candidate for "newest";
- a model folder ``baseline__Human`` (or a ``model_meta.json`` naming ``baseline/Human``) is the
  aggregated human rater, of kind ``"human"``;
- a subset is identified by task and language (``HUMESTS22/ara``) when every subset of the task in
  that file has its own language, since the published human files name the same subsets ``ar`` in
  one revision and ``ara`` in another; otherwise by ``hf_subset``.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from scoring.agreement import correlation_band, kappa_band
from scoring.errors import InvalidInputError, ResultFileError
from scoring.indented_json import dumps_indented
from scoring.output_files import OutputTree, write_text_atomic
from scoring.records import Agreement
from scoring.rules import ScoringRules
from scoring.safe_paths import check_component
from scoring.tasks import language_code, task_type

__all__ = [
    "ANNOTATOR_PREFIX",
    "DEFAULT_SPLIT",
    "HUMAN_FOLDER",
    "HUMAN_NAME",
    "LLM_PREFIX",
    "OnError",
    "Problem",
    "Rater",
    "RaterKind",
    "ResultsCollection",
    "SubsetScore",
    "agreement_from_block",
    "agreement_to_block",
    "model_folder_name",
    "read_result_file",
    "read_results_dir",
    "subset_id",
    "write_model_meta",
    "write_result_file",
]

RaterKind = Literal["model", "human", "annotator", "llm"]
OnError = Literal["skip", "raise"]

HUMAN_FOLDER = "baseline__Human"
HUMAN_NAME = "baseline/Human"
ANNOTATOR_PREFIX = "annotator_"
LLM_PREFIX = "llm__"
DEFAULT_SPLIT = "test"


@dataclass(frozen=True)
class SubsetScore:
    """One task-subset score of one rater, with the whole score block kept for reports."""

    task_name: str
    hf_subset: str
    languages: tuple[str, ...]
    task_type: str
    main_score: float
    block: Mapping[str, Any] = field(repr=False, default_factory=dict)
    mteb_version: str = ""

    @property
    def language(self) -> str:
        """ISO 639-3 code of the subset's first language tag."""
        return language_code(self.languages[0]) if self.languages else "und"


@dataclass
class Rater:
    """A model, the aggregated humans, one annotator, or an LLM annotator, with its scores."""

    name: str
    revision: str
    kind: RaterKind
    path: Path
    scores: dict[str, SubsetScore] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """Display name: the model name, plus the annotator id for annotator raters."""
        if self.kind == "annotator":
            return f"{self.name} ({self.revision})"
        return self.name


@dataclass(frozen=True)
class Problem:
    """A file that could not be read, kept so the CLI can warn with its path."""

    path: str
    reason: str

    def __str__(self) -> str:
        """The warning line: path, colon, reason."""
        return f"{self.path}: {self.reason}"


@dataclass
class ResultsCollection:
    """Every rater read from a results folder, and the problems met on the way."""

    raters: list[Rater]
    problems: list[Problem]
    skipped_revisions: dict[str, list[str]] = field(default_factory=dict)

    def of_kind(self, *kinds: RaterKind) -> list[Rater]:
        """The raters of the given kinds, in reading order.

        Args:
            *kinds: ``"human"``, ``"annotator"``, ``"llm"``, ``"model"``.

        Returns:
            The raters whose kind is one of ``kinds``.
        """
        return [r for r in self.raters if r.kind in kinds]


def subset_id(task_name: str, hf_subset: str, language: str | None) -> str:
    """Stable identifier ``<task>/<language or hf_subset>`` used to match raters' subsets.

    Args:
        task_name: the MTEB task name.
        hf_subset: the subset's name in the dataset.
        language: the subset's language code, if it has one.

    Returns:
        The identifier.
    """
    return f"{task_name}/{language if language else hf_subset}"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version or "")[:4])


def read_result_file(
    path: str | os.PathLike[str], types: Sequence[ScoringRules], *, split: str = DEFAULT_SPLIT
) -> list[SubsetScore]:
    """Parse one MTEB result file, naming the path in any error.

    Args:
        path: the result file, ``<task_name>.json``.
        types: the known task types: they tell each subset's type and its main score's range.
        split: the split whose scores are read.

    Returns:
        One score per subset block.

    Raises:
        ResultFileError: any defect (unreadable JSON, a missing field, a file named after another
            task, no such split, an unknown type, a main score outside its type's range).
    """
    p = Path(path)
    data = _json_object(p)
    task_name = data.get("task_name")
    if not isinstance(task_name, str) or not task_name:
        raise ResultFileError(p, "missing 'task_name'")
    if p.stem != task_name:  # the results layout names each file after its task
        raise ResultFileError(
            p, f"task_name {task_name!r} differs from the file name (expected {task_name}.json)"
        )
    scores = data.get("scores")
    if not isinstance(scores, dict):
        raise ResultFileError(p, "missing 'scores' object")
    blocks = scores.get(split)
    if blocks is None:
        raise ResultFileError(
            p, f"no '{split}' split in 'scores' (has: {', '.join(scores) or 'none'})"
        )
    if not isinstance(blocks, list) or not blocks:
        raise ResultFileError(p, f"'scores.{split}' must be a non-empty list")
    out: list[SubsetScore] = []
    for i, block in enumerate(blocks):
        where = f"scores.{split}[{i}]"
        main, hf_subset, langs = _block_fields(p, where, block)
        try:
            kind = task_type(task_name, block, types)
        except InvalidInputError as exc:
            raise ResultFileError(p, str(exc)) from None
        _check_main_score(p, where, float(main), kind)
        version = str(data.get("mteb_version") or "")
        out.append(
            SubsetScore(task_name, hf_subset, tuple(langs), kind.name, float(main), block, version)
        )
    return out


def _json_object(p: Path) -> dict[str, Any]:
    """The file's top-level JSON object; any read or parse fault is a one-line error."""
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ResultFileError(p, f"not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise ResultFileError(p, f"invalid JSON at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise ResultFileError(p, "JSON nested too deeply to be a result file") from None
    except OSError as exc:
        raise ResultFileError(p, f"cannot read ({exc.strerror})") from None
    if not isinstance(data, dict):
        raise ResultFileError(p, "expected a JSON object at the top level")
    return data


def _block_fields(p: Path, where: str, block: Any) -> tuple[float, str, list[str]]:
    """A subset block's main score, hf_subset and languages, each checked for its type."""
    if not isinstance(block, dict):
        raise ResultFileError(p, f"{where} is not an object")
    main = block.get("main_score")
    if isinstance(main, bool) or not isinstance(main, int | float) or main != main:
        raise ResultFileError(p, f"{where}.main_score missing or not a number")
    hf_subset = block.get("hf_subset")
    if not isinstance(hf_subset, str) or not hf_subset:
        raise ResultFileError(p, f"{where}.hf_subset missing")
    langs = block.get("languages")
    if not isinstance(langs, list) or not all(isinstance(x, str) for x in langs):
        raise ResultFileError(p, f"{where}.languages must be a list of language tags")
    return main, hf_subset, langs


def _check_main_score(path: Path, where: str, main: float, kind: ScoringRules) -> None:
    """A main score outside its type's range is a broken file, not a result to rank.

    MTEB result files store fractions (the public files of the HUME tasks hold 0.06 to 1.0),
    never percentages; each type says its range (``score_main_range``).
    """
    if not math.isfinite(main):
        raise ResultFileError(path, f"{where}.main_score is {main}, not a finite number")
    low, high = kind.score_main_range
    if not low <= main <= high:
        hint = " (a percentage? MTEB stores fractions)" if 1 < main <= 100 else ""
        raise ResultFileError(
            path,
            f"{where}.main_score {main:g} is outside [{low:g}, {high:g}], the range of a "
            f"{kind.name} score{hint}",
        )


def _keyed(subsets: Sequence[SubsetScore]) -> dict[str, SubsetScore]:
    """Key a file's subsets by language when that is unambiguous within the file, else hf_subset."""
    langs = [s.language for s in subsets]
    by_language = len(set(langs)) == len(langs) and all(s.languages for s in subsets)
    return {
        subset_id(s.task_name, s.hf_subset, s.language if by_language else None): s for s in subsets
    }


def _read_meta(folder: Path) -> dict[str, Any]:
    meta_path = folder / "model_meta.json"
    if not meta_path.is_file():
        return {}
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ResultFileError(meta_path, "unreadable model_meta.json") from None
    return meta if isinstance(meta, dict) else {}


def _kind_of(model_folder: str, revision: str, meta: Mapping[str, Any]) -> RaterKind:
    if revision.startswith(ANNOTATOR_PREFIX):
        return "annotator"
    if model_folder == HUMAN_FOLDER or meta.get("name") == HUMAN_NAME:
        return "human"
    if model_folder.startswith(LLM_PREFIX):
        return "llm"
    return "model"


def _read_revision(
    folder: Path,
    model_folder: str,
    types: Sequence[ScoringRules],
    on_error: OnError,
    problems: list[Problem],
    split: str,
) -> Rater | None:
    try:
        meta = _read_meta(folder)
    except ResultFileError as exc:
        if on_error == "raise":
            raise
        problems.append(Problem(exc.path, exc.reason))
        meta = {}
    given = meta.get("name")
    name = given if isinstance(given, str) else model_folder.replace("__", "/", 1)
    rater = Rater(
        name=name,
        revision=folder.name,
        kind=_kind_of(model_folder, folder.name, meta),
        path=folder,
        meta=meta,
    )
    for file in sorted(folder.glob("*.json")):
        if file.name == "model_meta.json":
            continue
        try:
            subsets = read_result_file(file, types, split=split)
        except ResultFileError as exc:
            if on_error == "raise":
                raise
            problems.append(Problem(exc.path, exc.reason))
            continue
        rater.scores.update(_keyed(subsets))
    return rater if rater.scores else None


def _newest(revisions: list[Rater]) -> Rater:
    def key(r: Rater) -> tuple[tuple[int, ...], str]:
        versions = [_version_key(s.mteb_version) for s in r.scores.values()]
        return (max(versions, default=()), r.revision)

    return max(revisions, key=key)


def read_results_dir(
    root: str | os.PathLike[str],
    types: Sequence[ScoringRules],
    *,
    revisions: Mapping[str, str] | None = None,
    on_error: OnError = "skip",
    split: str = DEFAULT_SPLIT,
) -> ResultsCollection:
    """Read every rater under ``root``.

    ``revisions`` picks a model's revision; otherwise the newest is taken (see module
    docstring). With ``on_error="skip"`` a malformed file is recorded in ``problems`` and left
    out; with ``"raise"`` it is fatal.

    Args:
        root: the results folder, ``<org>__<model>/<revision>/<task>.json``.
        types: the known task types: they tell each subset's type and its main score's range.
        revisions: ``{model: revision}``, a model named ``org/model`` or ``org__model``.
        on_error: ``"skip"`` or ``"raise"``.
        split: the split whose scores are read.

    Returns:
        The raters, the problems met and the revisions left out.

    Raises:
        InvalidInputError: ``root`` is not a folder, or a requested revision does not exist.
        ResultFileError: a malformed file, with ``on_error="raise"``.
    """
    base = Path(root)
    if not base.is_dir():
        raise InvalidInputError(f"{base}: not a directory of MTEB results")
    chosen = {k.replace("/", "__", 1): v for k, v in (revisions or {}).items()}
    problems: list[Problem] = []
    raters: list[Rater] = []
    skipped: dict[str, list[str]] = {}
    for model_dir in sorted(d for d in base.iterdir() if d.is_dir() and not d.name.startswith(".")):
        candidates: list[Rater] = []
        for rev_dir in sorted(d for d in model_dir.iterdir() if d.is_dir()):
            rater = _read_revision(rev_dir, model_dir.name, types, on_error, problems, split)
            if rater is None:
                continue
            if rater.kind == "annotator":
                raters.append(rater)
            else:
                candidates.append(rater)
        if not candidates:
            continue
        want = chosen.get(model_dir.name)
        if want is not None:
            pick = next((c for c in candidates if c.revision == want), None)
            if pick is None:
                have = ", ".join(c.revision for c in candidates)
                raise InvalidInputError(
                    f"{model_dir.name}: no revision {want!r} (available: {have})"
                )
        else:
            pick = _newest(candidates)
        skipped_revs = [c.revision for c in candidates if c is not pick]
        if skipped_revs:
            skipped[pick.name] = skipped_revs
        raters.append(pick)
    unknown = set(chosen) - {d.name for d in base.iterdir() if d.is_dir()}
    if unknown:
        raise InvalidInputError(f"--revision names unknown model(s): {', '.join(sorted(unknown))}")
    raters.sort(key=lambda r: (r.kind != "human", r.kind == "annotator", r.name, r.revision))
    return ResultsCollection(raters=raters, problems=problems, skipped_revisions=skipped)


# ---------------------------------------------------------------------------------------------
# Writing


def model_folder_name(name: str) -> str:
    """``org/model`` → ``org__model`` as in the results repository.

    Args:
        name: the model name; without an organisation it goes under ``no_org``.

    Returns:
        The folder name.

    Raises:
        InvalidInputError: a name that is empty, holds ``__`` or more than one ``/``.
        UnsafePathError: a part that is not a safe path component.
    """
    if not name or "__" in name or name.count("/") > 1:
        raise InvalidInputError(f"model name {name!r} must look like 'org/model'")
    folder = name.replace("/", "__", 1) if "/" in name else f"no_org__{name}"
    for part in name.split("/"):
        check_component(part, "model name part")
    return folder


def _write_json(
    root: str | os.PathLike[str] | OutputTree, folder: str, revision: str, name: str, obj: Any
) -> Path:
    """Write ``obj`` as ``root/folder/revision/name`` whole or not at all, inside ``root``.

    The text is json.dumps(indent=2, ensure_ascii=False)'s (:mod:`scoring.indented_json`);
    an :class:`~scoring.output_files.OutputTree` given as ``root`` checks each folder once for
    all the files written through it.
    """
    tree = root if isinstance(root, OutputTree) else OutputTree(root)
    path = tree.file(folder, revision, name)
    write_text_atomic(path, dumps_indented(obj) + "\n")
    return path


def write_result_file(
    root: str | os.PathLike[str] | OutputTree,
    *,
    model_name: str,
    revision: str,
    task_name: str,
    subsets: Iterable[Mapping[str, Any]],
    dataset_revision: str = "human_evaluation",
    mteb_version: str = "2.0.0",
    split: str = DEFAULT_SPLIT,
    evaluation_time: float = 0.0,
) -> Path:
    """Write ``<root>/<org>__<model>/<revision>/<task_name>.json`` atomically.

    Each subset mapping must hold ``main_score``, ``hf_subset`` and ``languages``; any other keys
    (metric values, ``scores_per_experiment``, an ``agreement`` block, ...) are kept as given.

    Args:
        root: the results folder (an :class:`~scoring.output_files.OutputTree` to check each
            folder once over many files).
        model_name: ``org/model``.
        revision: the revision folder.
        task_name: the MTEB task name (the file's name).
        subsets: one score block per subset.
        dataset_revision: written as the file's ``dataset_revision``.
        mteb_version: written as the file's ``mteb_version``.
        split: the split the blocks go under.
        evaluation_time: written as the file's ``evaluation_time``.

    Returns:
        The path written.

    Raises:
        InvalidInputError: no subsets, a subset missing a required key, or a bad model name.
        UnsafePathError: a revision, task name or model name that is not a safe path component.
    """
    blocks = []
    for i, sub in enumerate(subsets):
        missing = [k for k in ("main_score", "hf_subset", "languages") if k not in sub]
        if missing:
            raise InvalidInputError(f"{task_name} subset {i}: missing {', '.join(missing)}")
        blocks.append(dict(sub))
    if not blocks:
        raise InvalidInputError(f"{task_name}: no subsets to write")
    payload = {
        "dataset_revision": dataset_revision,
        "task_name": task_name,
        "mteb_version": mteb_version,
        "scores": {split: blocks},
        "evaluation_time": evaluation_time,
        "kg_co2_emissions": None,
    }
    check_component(revision, "revision")
    check_component(task_name, "task name")
    return _write_json(root, model_folder_name(model_name), revision, f"{task_name}.json", payload)


def write_model_meta(
    root: str | os.PathLike[str] | OutputTree,
    *,
    model_name: str,
    revision: str,
    languages: Sequence[str],
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write the ``model_meta.json`` that mteb's result loading expects beside result files.

    Args:
        root: the results folder (or an :class:`~scoring.output_files.OutputTree`).
        model_name: ``org/model``.
        revision: the revision folder.
        languages: the model's languages.
        extra: fields that replace the defaults (all ``None`` but name, revision, languages).

    Returns:
        The path written.
    """
    meta: dict[str, Any] = {
        "name": model_name,
        "revision": revision,
        "release_date": None,
        "languages": list(languages),
        "n_parameters": None,
        "memory_usage_mb": None,
        "max_tokens": None,
        "embed_dim": None,
        "license": None,
        "open_weights": None,
        "public_training_code": None,
        "public_training_data": None,
        "framework": [],
        "reference": None,
        "similarity_fn_name": None,
        "use_instructions": None,
        "training_datasets": None,
        "adapted_from": None,
        "superseded_by": None,
        "modalities": ["text"],
        "loader": None,
    }
    meta.update(extra or {})
    check_component(revision, "revision")
    return _write_json(root, model_folder_name(model_name), revision, "model_meta.json", meta)


# ---------------------------------------------------------------------------------------------
# Agreement blocks (the "agreement" object HUME puts beside a human score)

#: Which key of a published agreement block holds the headline statistic, and its method name.
_BLOCK_STATISTICS = (
    ("fleiss_kappa", "value", "fleiss_kappa"),
    ("mean_pairwise_ari", "value", "mean_pairwise_ari"),
    ("mean_pairwise_spearman", "value", "mean_pairwise_spearman"),
    (None, "mean_spearman", "reranking:mean_spearman"),
)


def agreement_from_block(block: Mapping[str, Any] | None) -> Agreement | None:
    """Read the headline agreement of a result file's ``agreement`` block, if it has one.

    HUME's blocks name the statistic in ``metric`` (classification: Fleiss' κ; clustering:
    mean pairwise ARI; STS: mean pairwise Spearman) or, for reranking, carry ``mean_spearman``
    without a ``metric``. The band is recomputed on the paper's scale; the other numbers of the
    block stay in ``details``.

    Args:
        block: the ``agreement`` object of a score block (or None).

    Returns:
        The headline agreement, or ``None`` where the block names no statistic we read.
    """
    if not isinstance(block, Mapping):
        return None
    for metric, key, method in _BLOCK_STATISTICS:
        if block.get("metric", None) == metric and isinstance(block.get(key), int | float):
            value = float(block[key])
            scale = "correlation" if "spearman" in method else "kappa"
            band = correlation_band(value) if scale == "correlation" else kappa_band(value)
            return Agreement(
                value=value,
                method=method,
                band=band,
                n_raters=int(block.get("n_annotators", 0) or 0),
                n_items=int(block.get("n_items", 0) or 0),
                details={"scale": scale, "published": dict(block)},
            )
    return None


def agreement_to_block(agreement: Agreement, **extra: Any) -> dict[str, Any]:
    """The ``agreement`` object written beside a human score (HUME's keys, plus band/warnings).

    Args:
        agreement: the headline agreement.
        **extra: more keys to write (the other statistics, say).

    Returns:
        The JSON-ready block; a NaN value is written as ``None``.
    """
    value = agreement.value
    return {
        "metric": agreement.method,
        "value": None if value != value else value,
        "interpretation": agreement.band,
        "n_annotators": agreement.n_raters,
        "n_items": agreement.n_items,
        "warnings": list(agreement.warnings),
        **extra,
    }
