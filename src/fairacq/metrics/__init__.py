"""Fairness and performance metrics: pure functions of labels, predictions and groups.

Every metric takes 1-D arrays (one value per row) and group labels of any type (ints,
strings), validates them once and returns a float or, for ``group_*`` functions, a
:class:`pandas.Series` indexed by group label. Names state their sign:
``demographic_parity_diff_signed`` follows Hasan & Pradhan (protected minus privileged, < 0 is
bias against the protected group) and compares two groups; ``_abs`` and unsigned gaps are
the largest pairwise gap over all groups (max - min), equal to fairlearn's
``between_groups`` differences. The metrics of the cited papers are here: parity and odds (Hasan
& Pradhan; Zhang & Ramesh), risk difference / ratio / relative chance and recommender unfairness
(Zhang & Ramesh), minimax group risk (Shekhar et al.), disclosivity alpha and imbalance beta
(Deng et al.), and accuracy / AUC per group. Entry points: :func:`group_table` for a per-group
overview; :func:`compute` / :func:`get_metric` / :func:`available` to use any metric by name;
:class:`RowGroups` for many predictions on the same rows; :func:`gap_noise_floor` for the gap an
exactly fair rule shows by chance. Formulas, ranges, fairlearn equivalents: ``docs/metrics.md``.
"""

from __future__ import annotations

from fairacq.metrics._disclosure import (
    conditional_distribution_matrix,
    disclosivity,
    disclosivity_from_matrix,
    expected_acceptance_rate,
    imbalance,
    imbalance_from_matrix,
)
from fairacq.metrics._group_rates import (
    group_base_rates,
    group_false_positive_rates,
    group_mean_scores,
    group_selection_rates,
    group_true_positive_rates,
    selection_rate,
)
from fairacq.metrics._group_table import (
    group_table,
)
from fairacq.metrics._minimax import (
    group_risk_gap,
    group_risks,
    log_loss_per_row,
    minimax_group_risk,
    minimax_log_loss,
    minimax_zero_one_risk,
    worst_group_accuracy,
    zero_one_loss_per_row,
)
from fairacq.metrics._noise_floor import gap_noise_floor
from fairacq.metrics._odds import (
    average_odds_diff,
    equal_opportunity_diff,
    equal_opportunity_diff_signed,
    equalized_odds_diff,
    equalized_odds_diff_signed,
    equalized_odds_diff_sum,
)
from fairacq.metrics._pareto import attainment, pareto_front
from fairacq.metrics._parity import (
    base_rate_diff,
    base_rate_diff_signed,
    demographic_parity_diff_abs,
    demographic_parity_diff_signed,
    demographic_parity_ratio,
    mean_score_parity_diff_abs,
    mean_score_parity_diff_signed,
)
from fairacq.metrics._performance import (
    accuracy,
    auc_pr,
    auc_roc,
    group_accuracy,
    group_auc_pr,
    group_auc_roc,
)
from fairacq.metrics._recsys import (
    absolute_unfairness,
    non_parity_unfairness,
    overestimation_unfairness,
    underestimation_unfairness,
    value_unfairness,
)
from fairacq.metrics._registry import (
    INPUT_NAMES,
    Metric,
    available,
    compute,
    get_metric,
)
from fairacq.metrics._risk_ratio import (
    relative_chance,
    risk_difference,
    risk_ratio,
)
from fairacq.metrics._row_groups import RowGroups

__all__ = [
    "INPUT_NAMES",
    "Metric",
    "RowGroups",
    "absolute_unfairness",
    "accuracy",
    "attainment",
    "auc_pr",
    "auc_roc",
    "available",
    "average_odds_diff",
    "base_rate_diff",
    "base_rate_diff_signed",
    "compute",
    "conditional_distribution_matrix",
    "demographic_parity_diff_abs",
    "demographic_parity_diff_signed",
    "demographic_parity_ratio",
    "disclosivity",
    "disclosivity_from_matrix",
    "equal_opportunity_diff",
    "equal_opportunity_diff_signed",
    "equalized_odds_diff",
    "equalized_odds_diff_signed",
    "equalized_odds_diff_sum",
    "expected_acceptance_rate",
    "gap_noise_floor",
    "get_metric",
    "group_accuracy",
    "group_auc_pr",
    "group_auc_roc",
    "group_base_rates",
    "group_false_positive_rates",
    "group_mean_scores",
    "group_risk_gap",
    "group_risks",
    "group_selection_rates",
    "group_table",
    "group_true_positive_rates",
    "imbalance",
    "imbalance_from_matrix",
    "log_loss_per_row",
    "mean_score_parity_diff_abs",
    "mean_score_parity_diff_signed",
    "minimax_group_risk",
    "minimax_log_loss",
    "minimax_zero_one_risk",
    "non_parity_unfairness",
    "overestimation_unfairness",
    "pareto_front",
    "relative_chance",
    "risk_difference",
    "risk_ratio",
    "selection_rate",
    "underestimation_unfairness",
    "value_unfairness",
    "worst_group_accuracy",
    "zero_one_loss_per_row",
]
