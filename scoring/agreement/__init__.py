"""Inter-rater agreement for HUME: κ, α, percentage agreement, ARI, Spearman and reranking.

Why this module exists: HUME reports how far two annotators agree on each task, and uses low
agreement to flag tasks for revision. Label Studio Community computes none of this, so it is done
here, with every number carrying its method name, its interpretation band and its warnings.

Input shape
-----------
Categorical, ordinal and interval statistics take ``ratings``: a mapping
``rater_id -> {item_id: value}``. An item missing from a rater's mapping, or a value of ``None``
or float NaN, means that rater did not rate that item. Reranking takes
``rater_id -> {query_id: {candidate_id: mark}}`` (a sequence of marks is read by position).

Machine raters (embedding models, LLM annotators) are never pooled with humans: every
human–human function takes ``machine_raters`` and leaves those raters out (the ones it left out
are listed in ``details["excluded_machine_raters"]``; names that do not occur are ignored, so a
study-wide list can be passed). :func:`human_machine_agreement` reports each machine against the
humans apart.

Degenerate input
----------------
An empty ``ratings`` mapping, or a rater whose ratings are not a mapping, raises
:class:`~scoring.errors.InvalidInputError`. Input on which the statistic is undefined (fewer than
two human raters, no item rated twice, a single category used, constant ratings) does not raise:
it returns an :class:`~scoring.records.Agreement` with ``value`` NaN, band ``"undefined"`` and a
warning that says why. A report can then print every task, including the one-annotator subsets.

Bands
-----
κ-like statistics (Cohen's κ, Fleiss' κ, Krippendorff's α, ARI), as in the HUME paper, upper
bounds inclusive: < 0 ``"poor"``, ≤ 0.2 ``"slight"``, ≤ 0.4 ``"fair"``, ≤ 0.6 ``"moderate"``,
≤ 0.8 ``"substantial"``, > 0.8 ``"excellent"``.
Correlations (Spearman ρ, Kendall τ): < 0 ``"negative"``, ≤ 0.4 ``"weak"``, ≤ 0.7
``"moderate"``, > 0.7 ``"strong"`` (the paper's "ρ > 0.7 strong" threshold, with the usual
0.4 cut between weak and moderate).
Percentage agreement is not chance-corrected, so it gets the band ``"uncorrected"`` and no flag.
NaN gets ``"undefined"``.

Modules
-------
The statistics live in private modules, one per family, behind this package (as scikit-learn's
``metrics`` does): ``_bands`` (bands and flags), ``_input`` (validating ``ratings``),
``_result`` (warnings and the returned record), ``_pairwise`` (Cohen's κ and the mean over
pairs), ``_categorical``, ``_krippendorff``, ``_clustering_sts``, ``_reranking`` (its own input
shape) and ``_human_machine``. Import the names from ``scoring.agreement``, never from a private
module.
"""

from scoring.agreement._bands import (
    agreement_band,
    correlation_band,
    high_agreement,
    kappa_band,
    low_agreement,
)
from scoring.agreement._categorical import (
    categorical_agreements,
    fleiss_kappa,
    mean_pairwise_cohen_kappa,
    percentage_agreement,
)
from scoring.agreement._clustering_sts import mean_pairwise_ari, mean_pairwise_spearman
from scoring.agreement._human_machine import human_machine_agreement
from scoring.agreement._input import ratings_from_matrix
from scoring.agreement._krippendorff import KRIPPENDORFF_LEVELS, krippendorff_alpha
from scoring.agreement._pairwise import cohen_kappa
from scoring.agreement._reranking import reranking_agreement, reranking_agreements
from scoring.agreement._result import (
    MIN_ITEMS,
    SKEW_THRESHOLD,
    WARN_CONSTANT,
    WARN_DROPPED_ITEMS,
    WARN_FEW_ITEMS,
    WARN_FEWER_THAN_TWO_RATERS,
    WARN_NO_HUMANS,
    WARN_NO_SHARED_ITEMS,
    WARN_ONE_CATEGORY,
    WARN_SKEWED,
    WARN_UNDEFINED_COMPARISONS,
)

__all__ = [
    "KRIPPENDORFF_LEVELS",
    "MIN_ITEMS",
    "SKEW_THRESHOLD",
    "WARN_CONSTANT",
    "WARN_DROPPED_ITEMS",
    "WARN_FEWER_THAN_TWO_RATERS",
    "WARN_FEW_ITEMS",
    "WARN_NO_HUMANS",
    "WARN_NO_SHARED_ITEMS",
    "WARN_ONE_CATEGORY",
    "WARN_SKEWED",
    "WARN_UNDEFINED_COMPARISONS",
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
]
