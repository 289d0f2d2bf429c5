"""The outputs of `hume-sync export` (:mod:`hume_sync.workflow.export`): the score report of a
study, computed by :mod:`scoring` from the store.

Reads gold, the valid human annotations, the LLM annotators' answers and the embedding models'
subset scores from the study store; every number is produced by :mod:`scoring`
(:func:`scoring.subset_report.evaluate_subset` per subset, :mod:`scoring.comparison` across
subsets); this module only gathers the inputs and writes the outputs:
``report.md``, ``report.html``, ``scores.csv``, ``scores.json`` and MTEB result files for the
humans (and each annotator) and for each LLM annotator, in the results-repository layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hume_sync.report.model import HUMAN_MODEL_NAME, StudyReport
from hume_sync.report.safe_text import csv_records
from hume_sync.rules.names import llm_file_name
from hume_sync.task_types.retrieval.judgments import write_found
from scoring.indented_json import dumps_indented
from scoring.output_files import OutputTree, write_text_atomic
from scoring.results import (
    agreement_to_block,
    write_model_meta,
    write_result_file,
)
from scoring.safe_paths import check_component, confined
from scoring.subset_report import SubsetReport
from scoring.tasks import language_code, normalise_language

# ------------------------------------------------------------------------------------------
# Gathering the inputs


# ------------------------------------------------------------------------------------------
# Across subsets


# ------------------------------------------------------------------------------------------
# Flat tables


def score_rows(report: StudyReport) -> list[dict[str, Any]]:
    """One row per subset and rater: humans (aggregate and each annotator), LLMs, models."""
    rows: list[dict[str, Any]] = []
    for rep in report.subsets:
        inp = rep.input
        base = {
            "subset": inp.key,
            "task_name": inp.task_name,
            "hf_subset": inp.hf_subset,
            "task_type": inp.task_type.name,
            "language": inp.language,
        }
        low = rep.low_agreement
        if rep.human is not None:
            iv = rep.interval
            rows.append(
                {
                    **base,
                    "rater": HUMAN_MODEL_NAME,
                    "kind": "human",
                    "score": rep.human.value,
                    "method": rep.human.method,
                    "ci_low": None if iv is None else iv.low,
                    "ci_high": None if iv is None else iv.high,
                    "ci_method": rep.interval_note if iv is None else iv.method,
                    "position": "",
                    "low_agreement": low,
                    "n_items": rep.human.n_items,
                }
            )
            for annotator, value in sorted(rep.human.per_rater.items()):
                rows.append(
                    {
                        **base,
                        "rater": annotator,
                        "kind": "annotator",
                        "score": value,
                        "method": inp.task_type.score_annotator_method,
                        "ci_low": None,
                        "ci_high": None,
                        "ci_method": "",
                        "position": "",
                        "low_agreement": None,
                        "n_items": None,
                    }
                )
        for name, score in sorted(rep.llm_scores.items()):
            rows.append(
                {
                    **base,
                    "rater": name,
                    "kind": "llm",
                    "score": score.value,
                    "method": score.method,
                    "ci_low": None,
                    "ci_high": None,
                    "ci_method": "",
                    "position": rep.model_positions.get(name, ""),
                    "low_agreement": None,
                    "n_items": score.n_items,
                }
            )
        for name, value in sorted(inp.models.items()):
            rows.append(
                {
                    **base,
                    "rater": name,
                    "kind": "model",
                    "score": value,
                    "method": f"mteb:{inp.task_type.score_main_name}",
                    "ci_low": None,
                    "ci_high": None,
                    "ci_method": "",
                    "position": rep.model_positions.get(name, ""),
                    "low_agreement": None,
                    "n_items": None,
                }
            )
    return rows


def report_json(report: StudyReport) -> dict[str, Any]:
    out = {
        "study": report.study,
        "complete": report.complete,
        "subsets": [s.to_dict() for s in report.subsets],
        "rows": score_rows(report),
        "table": [r.to_dict() for r in report.rows],
        "human_panel_summary": report.panel_summary,
        "human_vs_models": None
        if report.human_vs_models is None
        else report.human_vs_models.to_dict(),
        "human_llm_correlation": report.human_llm_correlation,
        "results_models": report.results_models,
        "problems": report.problems,
        "closed_at": report.closed_at,
        "include_late": report.include_late,
        "annotator_names": "emails" if report.with_emails else "pseudonymous keys",
        "model_meta": report.model_meta,
        "late_answers": report.total_left_out("late"),
        "late_deletions": report.total_left_out("late_deleted"),
        "invalid_answers": report.total_left_out("invalid"),
        "sealing": None if report.sealing is None else report.sealing.to_dict(),
    }
    if report.instruction_following:  # only where a study has it: other outputs keep their bytes
        out["instruction_following"] = [x.to_dict() for x in report.instruction_following]
    return out


# ------------------------------------------------------------------------------------------
# Writing


def _mteb_blocks(rep: SubsetReport, value: float, extra: Mapping[str, Any]) -> dict[str, Any]:
    inp = rep.input
    name = inp.task_type.score_main_name
    return {
        name: value,
        "main_score": value,
        "hf_subset": inp.hf_subset,
        "languages": [_language_tag(inp.language)],
        **extra,
    }


def _language_tag(language: str) -> str:
    """MTEB languages are ``xxx-Scrp`` tags; keep a full tag, else map the common codes."""
    if "-" in language and len(language.split("-")[1]) == 4:
        return language
    scripts = {"ara": "Arab", "arb": "Arab", "rus": "Cyrl"}
    code = language_code(language)
    code3 = normalise_language(code)
    return f"{code3}-{scripts.get(code3, 'Latn')}"


def write_mteb_results(report: StudyReport, root: Path | OutputTree) -> list[Path]:
    """Human (aggregate + one folder per annotator) and LLM result files, results layout.

    Every file goes through one :class:`~scoring.output_files.OutputTree`, which checks each
    model and revision folder once rather than resolving each file's whole path (issue 38).
    """
    tree = root if isinstance(root, OutputTree) else OutputTree(root)
    revision = report.study
    written: list[Path] = []
    per_task: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = {}

    def add(model: str, rev: str, rep: SubsetReport, block: dict[str, Any]) -> None:
        per_task.setdefault((model, rev), {}).setdefault(rep.input.task_name, []).append(block)

    for rep in report.subsets:
        if rep.human is not None:
            extra: dict[str, Any] = {
                "scores_per_experiment": [
                    {rep.input.task_type.score_main_name: v}
                    for _, v in sorted(rep.human.per_rater.items())
                ],
                "method": rep.human.method,
            }
            head = rep.headline_agreement
            if head is not None and len(rep.input.humans) > 1:
                extra["agreement"] = agreement_to_block(head)
            if rep.interval is not None:
                extra["confidence_interval"] = rep.interval.to_dict()
            kind = rep.input.task_type
            extra.update(kind.score_result_extras(rep.human))
            add(HUMAN_MODEL_NAME, revision, rep, _mteb_blocks(rep, rep.human.value, extra))
            for annotator, value in rep.human.per_rater.items():
                own = kind.score_result_extras(rep.human, annotator)
                add(HUMAN_MODEL_NAME, f"annotator_{annotator}", rep, _mteb_blocks(rep, value, own))
        for name, score in rep.llm_scores.items():
            add(
                f"llm/{llm_file_name(name)}",
                revision,
                rep,
                _mteb_blocks(
                    rep,
                    score.value,
                    {"method": score.method, **rep.input.task_type.score_result_extras(score)},
                ),
            )
    for (model, rev), tasks in sorted(per_task.items()):
        languages: set[str] = set()
        for task, blocks in sorted(tasks.items()):
            written.append(
                write_result_file(
                    tree, model_name=model, revision=rev, task_name=task, subsets=blocks
                )
            )
            languages.update(lang for b in blocks for lang in b["languages"])
        written.append(
            write_model_meta(tree, model_name=model, revision=rev, languages=sorted(languages))
        )
    return written


@dataclass(frozen=True)
class Outputs:
    """What :func:`write_outputs` wrote, by role: the command prints these, never a count of
    its own."""

    report_md: Path
    report_html: Path
    scores_csv: Path
    scores_json: Path
    mteb_dir: Path
    mteb_files: list[Path]
    #: Each retrieval subset's judgments (TREC qrels and a summary), as the report lists them.
    judgment_files: list[Path] = field(default_factory=list)

    @property
    def paths(self) -> list[Path]:
        """Every file written."""
        return [
            self.scores_json,
            self.scores_csv,
            self.report_md,
            self.report_html,
            *self.mteb_files,
            *self.judgment_files,
        ]


def write_outputs(report: StudyReport, out_dir: str | Path) -> Outputs:
    """Write every output of ``report`` under ``out_dir``; returns what was written where."""
    from hume_sync.report import render as report_render

    check_component(report.study, "study name")  # it names the result folders: refuse early
    out = Path(out_dir)
    tree = OutputTree(out)
    tree.folder()  # made here, before anything is computed, as it always was
    data = report_json(report)
    report_md, report_html = report_render.markdown_and_html(report)
    files = {
        "scores.json": dumps_indented(data, default=str) + "\n",
        "scores.csv": csv_records(score_rows(report)),
        "report.md": report_md,
        "report.html": report_html,
    }
    paths = {}
    for name, text in files.items():
        path = tree.file(name)
        write_text_atomic(path, text)
        paths[name] = path
    mteb_dir = confined(out, "mteb_results")
    judgments = [
        path
        for facts in report.retrieval
        for path in write_found(facts.judgments, facts.key, confined(out, *facts.folder))
    ]
    return Outputs(
        report_md=paths["report.md"],
        report_html=paths["report.html"],
        scores_csv=paths["scores.csv"],
        scores_json=paths["scores.json"],
        mteb_dir=mteb_dir,
        mteb_files=write_mteb_results(report, OutputTree(mteb_dir)),
        judgment_files=judgments,
    )
