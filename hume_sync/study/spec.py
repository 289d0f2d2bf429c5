"""The study spec (``study.yaml``): parsed into frozen dataclasses and validated up front.

Every problem raises :class:`SpecError` with a one-line message that names the file, the task and
the field at fault, so the CLI can print it as is. Task-level sizing fields are defaults that each
subset may override; a preset entry (``preset: hume-v1``) expands to the preset's tasks, which then
go through the same validation as hand-written ones.

Example::

    name: sib-pilot
    seed: 42
    annotators: {eng: 2, default: 1}
    tasks:
      - name: SIB200Classification
        type: classification
        source:
          path: data/sib200/{subset}/test.tsv
          train_path: data/sib200/{subset}/train.tsv
          format: tsv
          columns: {id: index_id, text: text, label: category}
        samples_per_label: 8
        subsets:
          - {name: eng_Latn, language: eng-Latn, size: 42}
          - {name: arb_Arab, language: arb-Arab, size: 42}
      - preset: hume-v1
        only: [HUMESTS12]
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import yaml

from hume_sync.errors import SourceError, SpecError
from hume_sync.study import kinds
from hume_sync.study.rules import StudyRules, SubsetFields
from hume_sync.study.sources import FORMAT_BY_SUFFIX, FORMATS, mteb_task_info
from hume_sync.study.type_settings import read_settings, settings_keys
from scoring.languages import normalise_language
from scoring.safe_paths import component_problem

SAMPLING_MODES: tuple[str, ...] = ("sample", "all")


#: HUME: two annotators for English, one for every other language.
DEFAULT_ANNOTATORS: dict[str, int] = {"eng": 2, "default": 1}

_LANG_RE = re.compile(r"^[a-z]{2,3}(-[A-Z][a-z]{3})?$")
_NAME_RE = re.compile(r"^[^/\s]+$")

#: The sizing keys of every type; a type's other keys are its settings
#: (``StudyRules.study_settings``). All of them may be set on a task (a default for its subsets)
#: or on a subset.
_SIZING_KEYS = ("size", "instructions", "annotators", "sampling")
_TOP_KEYS = {"name", "seed", "annotators", "tasks", "preset"}
_TASK_KEYS = {"name", "type", "source", "subsets", *_SIZING_KEYS}
_PRESET_ENTRY_KEYS = {"preset", "only"}
_SUBSET_KEYS = {"name", "language", "path", "train_path", *_SIZING_KEYS}
_SOURCE_KEYS = {"mteb", "hf_subsets", "split", "path", "train_path", "format", "columns", "header"}


@dataclass(frozen=True)
class SourceSpec:
    """Where a task's data comes from: an MTEB task by name, or local files."""

    mteb: str | None = None
    hf_subsets: tuple[str, ...] | None = None
    split: str | None = None
    path: str | None = None
    train_path: str | None = None
    format: str | None = None
    columns: Mapping[str, str | int] | None = None
    header: bool = True

    @property
    def is_mteb(self) -> bool:
        return self.mteb is not None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in ("mteb", "split", "path", "train_path", "format"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.hf_subsets is not None:
            out["hf_subsets"] = list(self.hf_subsets)
        if self.columns is not None:
            out["columns"] = dict(self.columns)
        if not self.header:
            out["header"] = False
        return out


@dataclass(frozen=True)
class SubsetSpec:
    """One task-language subset with its sizing, after task defaults were applied.

    ``path``/``train_path`` are the local files as written (``{subset}`` expanded) and
    ``resolved_path``/``resolved_train_path`` the absolute files actually read.
    """

    name: str
    language: str
    annotators: int
    sampling: str = "sample"
    size: int | None = None
    instructions: str | None = None
    #: The type's own settings (``StudyRules.study_settings``, validated), None for a type
    #: without any; read by attribute (``subset.settings.label_set``).
    settings: Any = None
    path: str | None = None
    train_path: str | None = None
    resolved_path: Path | None = field(default=None, compare=False)
    resolved_train_path: Path | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """Canonical form (no absolute paths, so moving a study keeps its spec hash)."""
        out: dict[str, Any] = {
            "name": self.name,
            "language": self.language,
            "annotators": self.annotators,
            "sampling": self.sampling,
        }
        for key in ("size", "instructions", "path", "train_path"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.settings is not None:  # beside the common keys, as the spec writes them
            out.update(self.settings.spec_dict())
        return out


@dataclass(frozen=True)
class TaskSpec:
    """One task of the study: its type, source and subsets."""

    name: str
    type: str
    source: SourceSpec
    subsets: tuple[SubsetSpec, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "source": self.source.to_dict(),
            "subsets": [s.to_dict() for s in self.subsets],
        }


@dataclass(frozen=True)
class StudySpec:
    """A validated study: name, seed, annotator policy and tasks."""

    name: str
    seed: int
    annotators: Mapping[str, int]
    tasks: tuple[TaskSpec, ...]
    file: str = "<spec>"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seed": self.seed,
            "annotators": dict(sorted(self.annotators.items())),
            "tasks": [t.to_dict() for t in self.tasks],
        }

    @property
    def spec_hash(self) -> str:
        """SHA-256 of the canonical JSON form: equal specs, equal hash, whatever the YAML layout."""
        text = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def iter_subsets(self) -> Iterator[tuple[TaskSpec, SubsetSpec]]:
        for task in self.tasks:
            for subset in task.subsets:
                yield task, subset

    def task(self, name: str) -> TaskSpec:
        for task in self.tasks:
            if task.name == name:
                return task
        raise KeyError(name)


# --------------------------------------------------------------------------------------------
# Loading and parsing


def load_spec(path: str | Path) -> StudySpec:
    """Read and validate a spec file; relative data paths are resolved against its folder."""
    path = Path(path)
    if path.is_dir():
        path = path / "study.yaml"
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError(path, f"cannot read spec: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise SpecError(
            path,
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}); save it as UTF-8",
        ) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "YAML"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError(path, f"invalid YAML at {where}: {problem}") from None
    return parse_spec(data, file=str(path), base_dir=path.parent)


def parse_spec(
    data: Any,
    *,
    file: str = "<spec>",
    base_dir: str | Path | None = None,
    check_files: bool = True,
) -> StudySpec:
    """Validate a spec already loaded into Python objects (a mapping as YAML gives it)."""
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    if not isinstance(data, Mapping):
        raise SpecError(file, "the spec must be a mapping with at least 'name' and 'tasks'")
    _check_keys(data, _TOP_KEYS, file, None, "")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SpecError(file, "required, a non-empty string", field="name")
    _check_file_name(name.strip(), file, None, "name")
    seed = data.get("seed", 42)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise SpecError(file, f"must be a non-negative integer, got {seed!r}", field="seed")
    annotators = _parse_annotators(data.get("annotators"), file)

    raw_tasks: list[Mapping[str, Any]] = []
    trusted: set[int] = set()
    if "preset" in data:
        for entry in _expand_preset({"preset": data["preset"]}, file):
            trusted.add(len(raw_tasks))
            raw_tasks.append(entry)
    tasks_in = data.get("tasks", [])
    if tasks_in is None:
        tasks_in = []
    if not isinstance(tasks_in, list):
        raise SpecError(file, "must be a list of tasks", field="tasks")
    for i, entry in enumerate(tasks_in):
        if not isinstance(entry, Mapping):
            raise SpecError(file, "each task must be a mapping", field=f"tasks[{i}]")
        if "preset" in entry:
            for expanded in _expand_preset(entry, file):
                trusted.add(len(raw_tasks))
                raw_tasks.append(expanded)
        else:
            raw_tasks.append(entry)
    if not raw_tasks:
        raise SpecError(file, "at least one task (or a preset) is required", field="tasks")

    tasks: list[TaskSpec] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_tasks):
        task = _parse_task(
            raw, i, file, base, annotators, check_files=check_files, trusted=i in trusted
        )
        if task.name in seen:
            raise SpecError(file, "duplicate task name", task=task.name, field="name")
        seen.add(task.name)
        tasks.append(task)
    return StudySpec(
        name=name.strip(), seed=seed, annotators=annotators, tasks=tuple(tasks), file=file
    )


def annotators_for(language: str, policy: Mapping[str, int]) -> int:
    """Annotators per item for a language: the full tag, then the code as written, then any
    policy code for the same language (``en`` ≡ ``eng``, ``no`` ≡ ``nb`` ≡ ``nob``: one table,
    :mod:`scoring.languages`), then ``default``."""
    base = language.split("-")[0]
    for key in (language, base):
        if key in policy:
            return policy[key]
    code = normalise_language(language)
    for key, value in policy.items():
        if "-" not in key and key != "default" and normalise_language(key) == code:
            return value
    return policy.get("default", 1)


def annotators_for_all(languages: Sequence[str], policy: Mapping[str, int]) -> int:
    """Annotators per item for a subset read in several languages (a bitext subset: the
    sentence's and the translations'): the fewest that any of them gets by
    :func:`annotators_for`. Every seat needs a reader of all of them, so the policy never asks
    such a subset for more seats than its own language alone would give; a subset's own
    ``annotators`` overrides this as always."""
    return min(annotators_for(x, policy) for x in languages)


# --------------------------------------------------------------------------------------------
# Internals


def _check_file_name(name: str, file: str, task: str | None, fld: str) -> None:
    """Study, task and subset names become folder and file names (exports, result files)."""
    problem = component_problem(name)
    if problem is not None:
        raise SpecError(
            file,
            f"{name!r} cannot be used as a file or folder name ({problem})",
            task=task,
            field=fld,
        )


def _check_keys(
    data: Mapping[str, Any], allowed: set[str], file: str, task: str | None, prefix: str
) -> None:
    for key in data:
        if key not in allowed:
            raise SpecError(
                file,
                f"unknown field (allowed: {', '.join(sorted(allowed))})",
                task=task,
                field=f"{prefix}{key}",
            )


def _parse_annotators(value: Any, file: str) -> dict[str, int]:
    if value is None:
        return dict(DEFAULT_ANNOTATORS)
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise SpecError(file, f"must be ≥ 1, got {value}", field="annotators")
        return {"default": value}
    if not isinstance(value, Mapping):
        raise SpecError(
            file, "must be an integer or a mapping language → count", field="annotators"
        )
    out: dict[str, int] = {}
    for key, count in value.items():
        key = str(key).replace("_", "-")
        if key != "default" and not _LANG_RE.match(key):
            raise SpecError(file, f"not a language code: {key!r}", field="annotators")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise SpecError(
                file, f"count must be an integer ≥ 1, got {count!r}", field=f"annotators.{key}"
            )
        out[key] = count
    out.setdefault("default", 1)
    return out


def _expand_preset(entry: Mapping[str, Any], file: str) -> list[dict[str, Any]]:
    from hume_sync.study.presets import preset_tasks  # presets imports SpecError from here

    _check_keys(entry, _PRESET_ENTRY_KEYS, file, None, "preset entry: ")
    preset = entry["preset"]
    if not isinstance(preset, str):
        raise SpecError(file, f"must be a preset name, got {preset!r}", field="preset")
    only = entry.get("only")
    if only is not None and (
        not isinstance(only, list) or not all(isinstance(x, str) for x in only)
    ):
        raise SpecError(file, "must be a list of task names", field="only")
    return preset_tasks(preset, only, file=file)


def _parse_task(
    raw: Mapping[str, Any],
    index: int,
    file: str,
    base: Path,
    annotators: Mapping[str, int],
    *,
    check_files: bool,
    trusted: bool,
) -> TaskSpec:
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SpecError(file, "required, a non-empty string", field=f"tasks[{index}].name")
    if not _NAME_RE.match(name):
        raise SpecError(file, "must not contain '/' or spaces", task=name, field="name")
    _check_file_name(name, file, name, "name")
    type_name = raw.get("type")
    if not isinstance(type_name, str) or type_name not in kinds.names():
        raise SpecError(
            file,
            f"unknown type {type_name!r} (expected one of {', '.join(kinds.names())})",
            task=name,
            field="type",
        )
    kind = kinds.get(type_name)
    setting_keys = _every_type_setting()
    _check_keys(raw, _TASK_KEYS | setting_keys, file, name, "")
    source = _parse_source(raw.get("source"), file, name, kind)

    defaults = {k: raw[k] for k in (*_SIZING_KEYS, *setting_keys) if k in raw}
    subsets_raw = raw.get("subsets")
    if subsets_raw is None:
        if source.is_mteb and source.hf_subsets:
            subsets_raw = [{"name": s} for s in source.hf_subsets]
        elif source.is_mteb:
            subsets_raw = None  # all of the MTEB task's subsets, resolved below
        else:
            subsets_raw = [{"name": "default"}]
    elif not isinstance(subsets_raw, list) or not subsets_raw:
        raise SpecError(file, "must be a non-empty list", task=name, field="subsets")

    mteb_langs: dict[str, str] | None = None
    if source.is_mteb and not trusted:
        mteb_langs = _mteb_languages(source.mteb or "", file, name, kind)
        if subsets_raw is None:
            subsets_raw = [{"name": s} for s in mteb_langs]
    assert subsets_raw is not None

    subsets: list[SubsetSpec] = []
    seen: set[str] = set()
    for j, sraw in enumerate(subsets_raw):
        if not isinstance(sraw, Mapping):
            raise SpecError(file, "each subset must be a mapping", task=name, field=f"subsets[{j}]")
        subset = _parse_subset(
            sraw,
            j,
            defaults,
            file,
            name,
            kind,
            source,
            base,
            annotators,
            mteb_langs,
            check_files=check_files,
        )
        if subset.name in seen:
            raise SpecError(
                file, f"duplicate subset {subset.name!r}", task=name, field=f"subsets[{j}].name"
            )
        seen.add(subset.name)
        subsets.append(subset)
    return TaskSpec(name=name, type=kind.name, source=source, subsets=tuple(subsets))


def _parse_source(value: Any, file: str, task: str, kind: StudyRules) -> SourceSpec:
    if value is None:
        raise SpecError(
            file, "required: 'mteb: <TaskName>' or local 'path'", task=task, field="source"
        )
    if isinstance(value, str):
        value = {"mteb": value}
    if not isinstance(value, Mapping):
        raise SpecError(file, "must be a mapping", task=task, field="source")
    _check_keys(value, _SOURCE_KEYS, file, task, "source.")
    mteb = _source_mteb_name(value, file, task)
    hf_subsets = value.get("hf_subsets")
    if hf_subsets is not None:
        if mteb is None:
            raise SpecError(file, "only for an MTEB source", task=task, field="source.hf_subsets")
        if not isinstance(hf_subsets, list) or not all(isinstance(s, str) for s in hf_subsets):
            raise SpecError(
                file, "must be a list of subset names", task=task, field="source.hf_subsets"
            )
    split = value.get("split")
    if split is not None and not isinstance(split, str):
        raise SpecError(file, "must be a split name", task=task, field="source.split")
    _check_source_paths(value, file, task, kind)
    fmt = _source_format(value, file, task, kind)
    header = value.get("header", True)
    if not isinstance(header, bool):
        raise SpecError(file, "must be true or false", task=task, field="source.header")
    columns = value.get("columns")
    if columns is not None:
        columns = _source_columns(columns, fmt, header, file, task, kind)
    return SourceSpec(
        mteb=mteb.strip() if mteb else None,
        hf_subsets=tuple(hf_subsets) if hf_subsets is not None else None,
        split=split,
        path=value.get("path"),
        train_path=value.get("train_path"),
        format=fmt,
        columns=columns,
        header=header,
    )


def _source_mteb_name(value: Mapping[str, Any], file: str, task: str) -> str | None:
    """``source.mteb`` as written (None for a local source); refuses local settings beside it."""
    mteb = value.get("mteb")
    if mteb is not None and (not isinstance(mteb, str) or not mteb.strip()):
        raise SpecError(file, "must be an MTEB task name", task=task, field="source.mteb")
    local_keys = [k for k in ("path", "train_path", "format", "columns") if k in value]
    if mteb is not None and local_keys:
        raise SpecError(
            file,
            "an MTEB source cannot also have local file settings",
            task=task,
            field=f"source.{local_keys[0]}",
        )
    return mteb


def _check_source_paths(value: Mapping[str, Any], file: str, task: str, kind: StudyRules) -> None:
    for key in ("path", "train_path"):
        if key in value and (not isinstance(value[key], str) or not value[key].strip()):
            raise SpecError(file, "must be a file path", task=task, field=f"source.{key}")
    if "train_path" in value and not kind.study_has_train_pool:
        raise SpecError(file, _no_train_pool(), task=task, field="source.train_path")


def _source_format(value: Mapping[str, Any], file: str, task: str, kind: StudyRules) -> str | None:
    """``source.format``: one hume reads, and one the task type accepts."""
    fmt = value.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise SpecError(
            file,
            f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})",
            task=task,
            field="source.format",
        )
    if fmt is not None and fmt not in kind.study_formats:
        raise SpecError(file, kind.study_formats_problem(), task=task, field="source.format")
    return fmt


def _source_columns(
    columns: Any, fmt: str | None, header: bool, file: str, task: str, kind: StudyRules
) -> dict[str, Any]:
    """``source.columns``: record fields of the type mapped to a column name or position."""
    if not isinstance(columns, Mapping):
        raise SpecError(
            file, "must map record fields to columns", task=task, field="source.columns"
        )
    allowed = kind.study_record_fields
    for key, col in columns.items():
        if key not in allowed:
            raise SpecError(
                file,
                f"unknown field {key!r} for a {kind.name} record (expected {', '.join(allowed)})",
                task=task,
                field="source.columns",
            )
        is_pos = isinstance(col, int) and not isinstance(col, bool)
        if not (is_pos and col >= 0) and not (isinstance(col, str) and col):
            raise SpecError(
                file,
                f"column for {key!r} must be a name or a position ≥ 0, got {col!r}",
                task=task,
                field="source.columns",
            )
        if is_pos and fmt == "jsonl":
            raise SpecError(
                file,
                f"JSONL fields are named, not positional ({key}: {col})",
                task=task,
                field="source.columns",
            )
        if not header and not is_pos:
            raise SpecError(
                file,
                f"with header: false, columns are positions (got {key}: {col!r})",
                task=task,
                field="source.columns",
            )
    return dict(columns)


def _mteb_languages(name: str, file: str, task: str, kind: StudyRules) -> dict[str, str]:
    """hf_subset → first language tag of an MTEB task; checks the name and type on the way."""
    try:
        info = mteb_task_info(name)
    except SourceError as exc:
        raise SpecError(file, exc.reason, task=task, field="source.mteb") from None
    if not kind.study_accepts_mteb_type(info.mteb_type):
        raise SpecError(
            file,
            f"MTEB task {name!r} is a {info.task_type} task, not {kind.name}",
            task=task,
            field="type",
        )
    return {sub: langs[0] for sub, langs in info.languages.items() if langs}


def _positive_int(value: Any, file: str, task: str, fld: str, minimum: int = 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise SpecError(
            file, f"must be an integer ≥ {minimum}, got {value!r}", task=task, field=fld
        )
    return value


def _parse_subset(
    raw: Mapping[str, Any],
    index: int,
    defaults: Mapping[str, Any],
    file: str,
    task: str,
    kind: StudyRules,
    source: SourceSpec,
    base: Path,
    policy: Mapping[str, int],
    mteb_langs: Mapping[str, str] | None,
    *,
    check_files: bool,
) -> SubsetSpec:
    setting_keys = _every_type_setting()
    _check_keys(raw, _SUBSET_KEYS | setting_keys, file, task, f"subsets[{index}].")
    name = _subset_name(raw, index, file, task, source, mteb_langs)
    p = f"subsets[{name}]."
    own_raw = {k: v for k, v in raw.items() if k in _SIZING_KEYS or k in setting_keys}
    merged = {**defaults, **own_raw}
    language = _subset_language(raw.get("language"), name, mteb_langs, file, task)

    def fail(fld: str, message: str) -> NoReturn:
        raise SpecError(file, message, task=task, field=f"{p}{fld}")

    sampling = merged.get("sampling", "sample")
    if sampling not in SAMPLING_MODES:
        fail("sampling", f"must be one of {', '.join(SAMPLING_MODES)}, got {sampling!r}")
    n_annot = None
    if "annotators" in merged:
        n_annot = _positive_int(merged["annotators"], file, task, f"{p}annotators")
    size = merged.get("size")
    if size is not None:
        size = _positive_int(size, file, task, f"{p}size")

    own_keys = settings_keys(kind.study_settings)
    for key in sorted(setting_keys - own_keys):
        if key in merged:
            fail(key, f"not used by {kind.name} tasks")
    fields = SubsetFields(
        sampling=sampling,
        size=size,
        settings=read_settings(kind.study_settings, merged, fail),
        fail=fail,
    )
    kind.study_check_fields(fields)
    if n_annot is None:  # the policy, over every language a reader of the subset needs
        config = fields.settings.model_dump() if fields.settings is not None else {}
        n_annot = annotators_for_all(kind.study_reading_languages(config, language), policy)

    instructions = merged.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise SpecError(file, "must be a string", task=task, field=f"{p}instructions")

    path, train_path, rpath, rtrain = _subset_paths(
        raw, source, name, task, kind, file, base, check_files=check_files
    )
    return SubsetSpec(
        name=name,
        language=language,
        annotators=n_annot,
        sampling=sampling,
        size=fields.size,
        instructions=instructions,
        settings=fields.settings,
        path=path,
        train_path=train_path,
        resolved_path=rpath,
        resolved_train_path=rtrain,
    )


def _subset_name(
    raw: Mapping[str, Any],
    index: int,
    file: str,
    task: str,
    source: SourceSpec,
    mteb_langs: Mapping[str, str] | None,
) -> str:
    """The subset's name (``default`` for a local source's first), one the source has."""
    name = raw.get("name")
    if name is None and index == 0 and not source.is_mteb:
        name = "default"
    if not isinstance(name, str) or not name or not _NAME_RE.match(name):
        raise SpecError(
            file,
            f"subset name must be a non-empty string without '/' or spaces, got {name!r}",
            task=task,
            field=f"subsets[{index}].name",
        )
    _check_file_name(name, file, task, f"subsets[{index}].name")
    if source.hf_subsets is not None and name not in source.hf_subsets:
        raise SpecError(
            file, "not one of source.hf_subsets", task=task, field=f"subsets[{name}].name"
        )
    if mteb_langs is not None and name not in mteb_langs:
        raise SpecError(
            file,
            f"MTEB task {source.mteb!r} has no subset {name!r} "
            f"(it has: {', '.join(sorted(mteb_langs))})",
            task=task,
            field=f"subsets[{name}].name",
        )
    return name


def _subset_language(
    language: Any, name: str, mteb_langs: Mapping[str, str] | None, file: str, task: str
) -> str:
    """The subset's language as written, or the MTEB subset's; ``_`` read as ``-``."""
    if language is None and mteb_langs is not None:
        language = mteb_langs[name]
    fld = f"subsets[{name}].language"
    if not isinstance(language, str) or not language:
        raise SpecError(file, "required (e.g. eng-Latn or en)", task=task, field=fld)
    language = language.replace("_", "-")
    if not _LANG_RE.match(language):
        raise SpecError(
            file,
            f"not a language code: {language!r} (expected ISO 639-3 + script like eng-Latn, "
            "or a short code)",
            task=task,
            field=fld,
        )
    return language


def _subset_paths(
    raw: Mapping[str, Any],
    source: SourceSpec,
    subset: str,
    task: str,
    kind: StudyRules,
    file: str,
    base: Path,
    *,
    check_files: bool,
) -> tuple[str | None, str | None, Path | None, Path | None]:
    p = f"subsets[{subset}]."
    if source.is_mteb:
        for key in ("path", "train_path"):
            if key in raw:
                raise SpecError(
                    file, "an MTEB source takes no local files", task=task, field=f"{p}{key}"
                )
        return None, None, None, None
    path = raw.get("path", source.path)
    train = raw.get("train_path", source.train_path)
    if path is None:
        raise SpecError(
            file,
            "missing: a local source needs source.path (or path on every subset)",
            task=task,
            field=f"{p}path",
        )
    if train is not None and not kind.study_has_train_pool:
        raise SpecError(file, _no_train_pool(), task=task, field=f"{p}train_path")
    out: list[str | None] = []
    resolved: list[Path | None] = []
    for key, value in (("path", path), ("train_path", train)):
        if value is None:
            out.append(None)
            resolved.append(None)
            continue
        if not isinstance(value, str) or not value.strip():
            raise SpecError(file, "must be a file path", task=task, field=f"{p}{key}")
        expanded = value.replace("{subset}", subset)
        full = Path(expanded) if Path(expanded).is_absolute() else base / expanded
        if check_files and not full.is_file():
            raise SpecError(file, f"file not found: {full}", task=task, field=f"{p}{key}")
        fmt = source.format or FORMAT_BY_SUFFIX.get(full.suffix.lower())
        if fmt is None:
            raise SpecError(
                file,
                f"cannot tell the format of {expanded!r}; set source.format (jsonl, csv or tsv)",
                task=task,
                field="source.format",
            )
        if fmt not in kind.study_formats:
            raise SpecError(file, kind.study_formats_problem(), task=task, field=f"{p}{key}")
        out.append(expanded)
        resolved.append(full.resolve() if check_files else full)
    return out[0], out[1], resolved[0], resolved[1]


def _every_type_setting() -> frozenset[str]:
    """The settings keys of every registered type: a key of another type than the task's is
    refused as "not used by <type> tasks", one of no type as an unknown field."""
    out: frozenset[str] = frozenset()
    for type_name in kinds.names():
        out |= settings_keys(kinds.get(type_name).study_settings)
    return out


def _no_train_pool() -> str:
    """Which types may have a train pool, from the registry (today: classification)."""
    pooled = [n for n in kinds.names() if kinds.get(n).study_has_train_pool]
    return f"only {' / '.join(pooled)} tasks have a train pool"
