"""Differentiable fairness surrogates: group gaps in mean predicted probability.

Hasan & Pradhan (DataSift, §3.3.1, eq. 5) differentiates a fairness function f(theta) through the
fitted parameters. Thresholded metrics have zero gradient almost everywhere, so f is the
*soft* version of each metric: the same group gap, computed on the predicted probability of
the favourable label instead of the 0/1 decision. Every surrogate here is linear in the
validation scores, ``f(theta) = sum_i w_i p_i(theta)``, once the active pair of groups (and,
for equalised odds, the active TPR/FPR branch) is fixed at the current parameters; this
module returns those weights ``w`` so that any model can differentiate ``w @ p(theta)``.

Fairness itself is *measured* elsewhere (:mod:`fairacq.metrics`, on thresholded predictions);
this module is only about the differentiable stand-in that influence functions need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import (
    check_binary_labels,
    check_consistent_length,
    check_groups,
    check_no_nan,
    did_you_mean,
)
from fairacq.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["SURROGATE_METRICS", "FairnessSurrogate", "fairness_surrogate"]

#: Metrics that have a differentiable surrogate, in the order the documentation lists them.
SURROGATE_METRICS: tuple[str, ...] = (
    "demographic_parity",
    "equal_opportunity",
    "equalized_odds",
)

SurrogateMetric = Literal["demographic_parity", "equal_opportunity", "equalized_odds"]


@dataclass(frozen=True, eq=False)
class FairnessSurrogate:
    """A fairness surrogate at the current parameters, as weights on the validation scores.

    Attributes
    ----------
    value : float
        The surrogate ``f = weights @ scores``: mean score of group ``pair[0]`` minus mean
        score of group ``pair[1]`` on the rows of the active branch.
    weights : ndarray of shape (n_val,)
        ``+1/n_a`` on the branch rows of group ``pair[0]``, ``-1/n_b`` on those of
        ``pair[1]``, 0 elsewhere; the gradient of ``f`` with respect to the scores.
    metric : str
        One of :data:`SURROGATE_METRICS`.
    pair : tuple of (int, int)
        The two group labels compared: (protected, privileged) for two groups or a given
        pair, (highest mean score, lowest mean score) for the active pair of > 2 groups.
    branch : {"all", "tpr", "fpr"}
        The rows used: all rows (demographic parity), ``y=1`` rows (``"tpr"``: equal
        opportunity and the TPR branch of equalised odds) or ``y=0`` rows (``"fpr"``).
    """

    value: float
    weights: NDArray[np.float64]
    metric: str
    pair: tuple[int, int]
    branch: Literal["all", "tpr", "fpr"]


def fairness_surrogate(
    scores: ArrayLike,
    y: ArrayLike,
    s: ArrayLike,
    *,
    metric: str = "demographic_parity",
    protected: int | None = None,
    privileged: int | None = None,
) -> FairnessSurrogate:
    """Build the differentiable fairness surrogate of ``metric`` at the current scores.

    Implements the function f of Hasan & Pradhan (DataSift, §3.3.1, eq. 5) for three group
    fairness notions, with the paper's sign (protected minus privileged, §2):

    - ``"demographic_parity"``: mean score of the protected group minus that of the
      privileged group;
    - ``"equal_opportunity"``: the same gap on the ``y=1`` rows only (soft TPR gap);
    - ``"equalized_odds"``: the soft TPR gap (``y=1`` rows) or the soft FPR gap (``y=0``
      rows), whichever is larger in absolute value at the current scores (ties go to TPR,
      as :func:`fairacq.metrics.equalized_odds_diff_signed` does).

    With more than two groups and no pair given, the surrogate compares the *active pair*:
    the groups with the highest and the lowest mean score (on the branch rows) at the
    current scores, as ``highest - lowest`` (>= 0). A decrease of ``|f|`` is then a
    decrease of the largest pairwise gap. The active pair and branch are held fixed when
    ``f`` is differentiated (the gradient of the active piece of a max).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Predicted probability of the favourable label (1) for each validation row.
    y : array-like of shape (n,)
        Binary true labels of the validation rows.
    s : array-like of shape (n,)
        Integer group label of each validation row; at least two groups.
    metric : {"demographic_parity", "equal_opportunity", "equalized_odds"}, \
default="demographic_parity"
        Which fairness notion to differentiate.
    protected : int or None, default=None
        The protected group. With two groups and neither group given, the smaller label is
        protected and the larger privileged (Hasan & Pradhan's S=0 / S=1 convention, as in
        :func:`fairacq.metrics.demographic_parity_diff_signed`); with one given, the other
        group is the other one. With more than two groups, pass both or neither.
    privileged : int or None, default=None
        The privileged group; see ``protected``.

    Returns
    -------
    FairnessSurrogate
        Value, weights on the scores, metric, compared pair and branch.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels, a single group, scores outside
        [0, 1], or a compared group without rows on the branch.
    InvalidParameterError
        If ``protected``/``privileged`` is not a group of ``s``, both name one group, or
        only one is given with more than two groups.
    UnknownNameError
        For an unknown ``metric``.

    Examples
    --------
    >>> sur = fairness_surrogate([0.2, 0.4, 0.7, 0.9], [0, 1, 0, 1], [0, 0, 1, 1])
    >>> round(sur.value, 2), sur.pair, sur.weights.tolist()
    (-0.5, (0, 1), [0.5, 0.5, -0.5, -0.5])
    """
    where = "fairness_surrogate"
    if metric not in SURROGATE_METRICS:
        raise did_you_mean(
            "fairness surrogate metric", metric, SURROGATE_METRICS, "SURROGATE_METRICS"
        )
    p = np.asarray(scores, dtype=np.float64).ravel()
    check_consistent_length(where, scores=p, y=np.asarray(y).ravel(), s=np.asarray(s).ravel())
    check_no_nan(where, "scores", p)
    if p.size and (p.min() < 0.0 or p.max() > 1.0):
        raise InvalidDataError(
            f"{where}: scores must be probabilities in [0, 1]; found values in "
            f"[{p.min():.4g}, {p.max():.4g}]. Pass predict_proba(X)[:, 1]."
        )
    yy = check_binary_labels(where, np.asarray(y).ravel(), "y")
    ss = check_groups(where, np.asarray(s).ravel(), "s")
    labels = [int(v) for v in np.unique(ss)]
    fixed = _fixed_pair(where, labels, protected, privileged)

    if metric == "demographic_parity":
        return _branch(where, metric, p, ss, np.ones(p.size, dtype=bool), "all", labels, fixed)
    tpr = _branch(where, metric, p, ss, yy == 1, "tpr", labels, fixed)
    if metric == "equal_opportunity":
        return tpr
    fpr = _branch(where, metric, p, ss, yy == 0, "fpr", labels, fixed)
    return tpr if abs(tpr.value) >= abs(fpr.value) else fpr


def _fixed_pair(
    where: str, labels: list[int], protected: Any, privileged: Any
) -> tuple[int, int] | None:
    """Resolve the compared pair, or None for the active pair of > 2 groups."""
    for name, value in (("protected", protected), ("privileged", privileged)):
        if value is not None and value not in labels:
            raise InvalidParameterError(
                f"{where}: {name}={value!r} is not a group of s (groups {labels}). "
                "Pass one of those labels."
            )
    if len(labels) == 2:
        if protected is None and privileged is None:
            return labels[0], labels[1]
        if protected is None:
            return (labels[1] if privileged == labels[0] else labels[0]), int(privileged)
        if privileged is None:
            return int(protected), (labels[1] if protected == labels[0] else labels[0])
    elif protected is None and privileged is None:
        return None
    elif protected is None or privileged is None:
        raise InvalidParameterError(
            f"{where}: s has {len(labels)} groups, so one of protected/privileged alone "
            "does not define a pair. Pass both, or neither to compare the groups with the "
            "highest and lowest mean score."
        )
    if protected == privileged:
        raise InvalidParameterError(
            f"{where}: protected and privileged are the same group ({protected!r}). "
            "Pass two different groups."
        )
    return int(protected), int(privileged)


def _branch(
    where: str,
    metric: str,
    p: NDArray[np.float64],
    s: NDArray[np.int64],
    rows: NDArray[np.bool_],
    branch: Literal["all", "tpr", "fpr"],
    labels: list[int],
    fixed: tuple[int, int] | None,
) -> FairnessSurrogate:
    """Compute the group gap of mean score on ``rows`` as value and weights."""
    counts = {g: int(np.count_nonzero(rows & (s == g))) for g in labels}
    rows_of = {"all": "rows", "tpr": "y=1 rows", "fpr": "y=0 rows"}[branch]
    if fixed is None:
        present = [g for g in labels if counts[g] > 0]
        if len(present) < 2:
            raise InvalidDataError(
                f"{where}: the {metric} surrogate needs {rows_of} in at least two groups; "
                f"found them only in {present}. Use a larger or stratified validation set."
            )
        means = np.array([p[rows & (s == g)].mean() for g in present])
        pair = (present[int(np.argmax(means))], present[int(np.argmin(means))])
        if pair[0] == pair[1]:  # all means equal: any two groups are the active pair
            pair = (present[0], present[1])
    else:
        pair = fixed
        missing = [g for g in pair if counts[g] == 0]
        if missing:
            raise InvalidDataError(
                f"{where}: the {metric} surrogate needs {rows_of} of group(s) {missing} in "
                "the validation set; found none. Use a larger or stratified validation set."
            )
    weights = np.zeros(p.size, dtype=np.float64)
    in_a = rows & (s == pair[0])
    in_b = rows & (s == pair[1])
    weights[in_a] = 1.0 / counts[pair[0]]
    weights[in_b] = -1.0 / counts[pair[1]]
    return FairnessSurrogate(
        value=float(weights @ p), weights=weights, metric=metric, pair=pair, branch=branch
    )
