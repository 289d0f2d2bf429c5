"""Pure scoring for HUME: task metrics, human aggregation, agreement, intervals, comparison.

Nothing here talks to Label Studio or loads a model: arrays and plain records in, numbers and
tables out. Every result carries the name of the method that produced it, so a report can say
how each number was made.

The public functions and records of the modules below are re-exported here (as scikit-learn's
``sklearn.metrics`` does), so ``from scoring import wilson, Score`` works as well as
``from scoring.intervals import wilson``. They are loaded on first use: ``import scoring`` loads
no module of its own, and so no NumPy or SciPy, which ``hume-sync leaderboard`` never needs
(``tests/test_cli_startup.py``). Constants stay in their modules (the ``WARN_*`` warnings
of :mod:`scoring.agreement`); the array kernels (:mod:`scoring.kernels`), the per-type
aggregation modules (:mod:`scoring.aggregation`) and the input checks (:mod:`scoring.validation`,
:mod:`scoring.safe_paths`) are imported from their modules, and so is
:func:`scoring.alt_test.alt_test`, whose name is its module's.
"""

from __future__ import annotations

import importlib

# typing's own flag without importing typing (the bare package stays at ~1 ms).
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    # For type checkers only (``X as X`` marks a re-export); at run time __getattr__ imports.
    from scoring.agreement import agreement_band as agreement_band
    from scoring.agreement import categorical_agreements as categorical_agreements
    from scoring.agreement import cohen_kappa as cohen_kappa
    from scoring.agreement import correlation_band as correlation_band
    from scoring.agreement import fleiss_kappa as fleiss_kappa
    from scoring.agreement import high_agreement as high_agreement
    from scoring.agreement import human_machine_agreement as human_machine_agreement
    from scoring.agreement import kappa_band as kappa_band
    from scoring.agreement import krippendorff_alpha as krippendorff_alpha
    from scoring.agreement import low_agreement as low_agreement
    from scoring.agreement import mean_pairwise_ari as mean_pairwise_ari
    from scoring.agreement import mean_pairwise_cohen_kappa as mean_pairwise_cohen_kappa
    from scoring.agreement import mean_pairwise_spearman as mean_pairwise_spearman
    from scoring.agreement import percentage_agreement as percentage_agreement
    from scoring.agreement import ratings_from_matrix as ratings_from_matrix
    from scoring.agreement import reranking_agreement as reranking_agreement
    from scoring.agreement import reranking_agreements as reranking_agreements
    from scoring.alt_test import AltTestResult as AltTestResult
    from scoring.alt_test import PairedDifference as PairedDifference
    from scoring.alt_test import alt_tests as alt_tests
    from scoring.comparison import HumanVsModels as HumanVsModels
    from scoring.comparison import RankRow as RankRow
    from scoring.comparison import SubsetInfo as SubsetInfo
    from scoring.comparison import borda_counts as borda_counts
    from scoring.comparison import catalogue as catalogue
    from scoring.comparison import difficulty as difficulty
    from scoring.comparison import human_vs_models as human_vs_models
    from scoring.comparison import paired_scores as paired_scores
    from scoring.comparison import published_interval as published_interval
    from scoring.comparison import rank_intervals as rank_intervals
    from scoring.comparison import rank_raters as rank_raters
    from scoring.comparison import score_correlation as score_correlation
    from scoring.comparison import select_subsets as select_subsets
    from scoring.errors import DegenerateInputError as DegenerateInputError
    from scoring.errors import HumeError as HumeError
    from scoring.errors import InvalidInputError as InvalidInputError
    from scoring.errors import ResultFileError as ResultFileError
    from scoring.errors import ScoringError as ScoringError
    from scoring.hume_v1 import BenchmarkTask as BenchmarkTask
    from scoring.instruction_following import PMRR_TIES as PMRR_TIES
    from scoring.instruction_following import mean_scores as mean_scores
    from scoring.instruction_following import p_mrr as p_mrr
    from scoring.instruction_following import rank_change_score as rank_change_score
    from scoring.intervals import annotator_range as annotator_range
    from scoring.intervals import bootstrap as bootstrap
    from scoring.intervals import compare_to_interval as compare_to_interval
    from scoring.intervals import fisher_z as fisher_z
    from scoring.intervals import fisher_z_n_for_half_width as fisher_z_n_for_half_width
    from scoring.intervals import is_vectorized as is_vectorized
    from scoring.intervals import mover_mean as mover_mean
    from scoring.intervals import outside_interval as outside_interval
    from scoring.intervals import paired_bootstrap as paired_bootstrap
    from scoring.intervals import vectorized as vectorized
    from scoring.intervals import wilson as wilson
    from scoring.intervals import wilson_n_for_half_width as wilson_n_for_half_width
    from scoring.languages import annotator_language as annotator_language
    from scoring.languages import iso_639_1_table as iso_639_1_table
    from scoring.languages import language_code as language_code
    from scoring.languages import normalise_language as normalise_language
    from scoring.metrics import accuracy as accuracy
    from scoring.metrics import average_precision as average_precision
    from scoring.metrics import mean_average_precision as mean_average_precision
    from scoring.metrics import mean_mrr_at_k as mean_mrr_at_k
    from scoring.metrics import mean_ndcg_at_k as mean_ndcg_at_k
    from scoring.metrics import mean_ranking_scores as mean_ranking_scores
    from scoring.metrics import mrr_at_k as mrr_at_k
    from scoring.metrics import ndcg_at_k as ndcg_at_k
    from scoring.metrics import pearson as pearson
    from scoring.metrics import spearman as spearman
    from scoring.metrics import v_measure as v_measure
    from scoring.panel import annotator_scores as annotator_scores
    from scoring.panel import dawid_skene as dawid_skene
    from scoring.panel import dawid_skene_many as dawid_skene_many
    from scoring.panel import human_panel as human_panel
    from scoring.panel import noise_ceiling as noise_ceiling
    from scoring.panel import verdicts_against_best as verdicts_against_best
    from scoring.panel_summary import summarise as summarise
    from scoring.panel_summary import summarise_entry as summarise_entry
    from scoring.records import Agreement as Agreement
    from scoring.records import Interval as Interval
    from scoring.records import Score as Score
    from scoring.records import plain_dict as plain_dict
    from scoring.results import Problem as Problem
    from scoring.results import Rater as Rater
    from scoring.results import ResultsCollection as ResultsCollection
    from scoring.results import SubsetScore as SubsetScore
    from scoring.results import agreement_from_block as agreement_from_block
    from scoring.results import agreement_to_block as agreement_to_block
    from scoring.results import model_folder_name as model_folder_name
    from scoring.results import read_result_file as read_result_file
    from scoring.results import read_results_dir as read_results_dir
    from scoring.results import subset_id as subset_id
    from scoring.results import write_model_meta as write_model_meta
    from scoring.results import write_result_file as write_result_file
    from scoring.rules import ItemAlignment as ItemAlignment
    from scoring.rules import ScoringRules as ScoringRules
    from scoring.rules import items_by_bootstrap_scaling as items_by_bootstrap_scaling
    from scoring.rules import label_match as label_match
    from scoring.rules import majority_consensus as majority_consensus
    from scoring.subset_report import SubsetInput as SubsetInput
    from scoring.subset_report import SubsetReport as SubsetReport
    from scoring.subset_report import degenerate as degenerate
    from scoring.subset_report import evaluate_subset as evaluate_subset
    from scoring.subset_report import evaluate_subsets as evaluate_subsets
    from scoring.tasks import task_type as task_type

#: Where each re-exported name lives: its module under ``scoring``.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "records": (
        "Agreement",
        "Interval",
        "Score",
        "plain_dict",
    ),
    "errors": (
        "DegenerateInputError",
        "HumeError",
        "InvalidInputError",
        "ResultFileError",
        "ScoringError",
    ),
    "agreement": (
        "agreement_band",
        "categorical_agreements",
        "cohen_kappa",
        "correlation_band",
        "fleiss_kappa",
        "high_agreement",
        "human_machine_agreement",
        "kappa_band",
        "krippendorff_alpha",
        "low_agreement",
        "mean_pairwise_ari",
        "mean_pairwise_cohen_kappa",
        "mean_pairwise_spearman",
        "percentage_agreement",
        "ratings_from_matrix",
        "reranking_agreement",
        "reranking_agreements",
    ),
    "intervals": (
        "annotator_range",
        "bootstrap",
        "compare_to_interval",
        "fisher_z",
        "fisher_z_n_for_half_width",
        "is_vectorized",
        "mover_mean",
        "outside_interval",
        "paired_bootstrap",
        "vectorized",
        "wilson",
        "wilson_n_for_half_width",
    ),
    "metrics": (
        "accuracy",
        "average_precision",
        "mean_average_precision",
        "mean_mrr_at_k",
        "mean_ndcg_at_k",
        "mean_ranking_scores",
        "mrr_at_k",
        "ndcg_at_k",
        "pearson",
        "spearman",
        "v_measure",
    ),
    "comparison": (
        "HumanVsModels",
        "RankRow",
        "SubsetInfo",
        "borda_counts",
        "catalogue",
        "difficulty",
        "human_vs_models",
        "paired_scores",
        "published_interval",
        "rank_intervals",
        "rank_raters",
        "score_correlation",
        "select_subsets",
    ),
    "panel": (
        "annotator_scores",
        "dawid_skene",
        "dawid_skene_many",
        "human_panel",
        "noise_ceiling",
        "verdicts_against_best",
    ),
    "panel_summary": (
        "summarise",
        "summarise_entry",
    ),
    "alt_test": (
        "AltTestResult",
        "PairedDifference",
        "alt_tests",
    ),
    "subset_report": (
        "SubsetInput",
        "SubsetReport",
        "degenerate",
        "evaluate_subset",
        "evaluate_subsets",
    ),
    "results": (
        "Problem",
        "Rater",
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
    ),
    "rules": (
        "ItemAlignment",
        "ScoringRules",
        "items_by_bootstrap_scaling",
        "label_match",
        "majority_consensus",
    ),
    "languages": (
        "annotator_language",
        "iso_639_1_table",
        "language_code",
        "normalise_language",
    ),
    "hume_v1": ("BenchmarkTask",),
    "instruction_following": ("PMRR_TIES", "mean_scores", "p_mrr", "rank_change_score"),
    "tasks": ("task_type",),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> Any:
    """Import the module that defines ``name`` on first use, and keep the value here.

    Args:
        name: an attribute of the ``scoring`` package not set yet.

    Returns:
        The re-exported function or record.

    Raises:
        AttributeError: ``name`` is not re-exported here (Python then tries a submodule).
    """
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'scoring' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"scoring.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """List the re-exported names with the module's own, for ``dir()`` and completion.

    Returns:
        The sorted names.
    """
    return sorted({*globals(), *__all__})
