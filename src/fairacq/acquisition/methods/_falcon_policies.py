"""Falcon's target groups and single selection policies (Tae et al., PVLDB 2024).

A *target group* is a (label, sensitive group) pair whose labelled rows would reduce the
model's unfairness; which pairs they are follows from the fairness measure and the current
model's per-group rates on the validation split (the authors' ``fairness_metrics``):

- demographic parity: positives of the group with the lowest selection rate and negatives
  of the group with the highest, ``[(1, low), (0, high)]``;
- equal opportunity: positives of the group with the lowest true positive rate;
- equalised odds: of the two gaps, the larger one decides: the false positive rate gap
  gives the negatives of the group with the highest FPR, the true positive rate gap the
  positives of the group with the lowest TPR.

A *policy* ``r`` of a target group ``(y, g)`` ranks the pool rows of group ``g`` by how close
the model's probability of label ``y`` is to ``1 - r``: a row at ``P(y) = 1 - r`` turns out
outside the target group (and is postponed) with probability about ``r``, so ``r`` is the
postpone risk the policy accepts in exchange for informativeness (rows near the decision
boundary). Falcon's policies are ``r = 0.7, 0.6, 0.5, 0.4, 0.3``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from fairacq.exceptions import InvalidParameterError

__all__ = ["DEFAULT_POLICIES", "policy_order", "target_groups", "target_kind"]

#: Falcon's five policies (the authors' ``policy_set``).
DEFAULT_POLICIES: tuple[float, ...] = (0.7, 0.6, 0.5, 0.4, 0.3)

_KINDS: dict[str, str] = {
    "demographic_parity_diff_abs": "dp",
    "demographic_parity_diff_signed": "dp",
    "demographic_parity_ratio": "dp",
    "equal_opportunity_diff": "eopp",
    "equal_opportunity_diff_signed": "eopp",
    "equalized_odds_diff": "eodds",
    "equalized_odds_diff_signed": "eodds",
    "equalized_odds_diff_sum": "eodds",
    "average_odds_diff": "eodds",
}


def target_kind(metric: str, caller: str = "FalconAcquirer") -> str:
    """Return which target-group rule ``metric`` uses: ``"dp"``, ``"eopp"`` or ``"eodds"``.

    Raises
    ------
    InvalidParameterError
        For a metric Falcon has no target groups for.

    Examples
    --------
    >>> target_kind("equalized_odds_diff")
    'eodds'
    """
    try:
        return _KINDS[metric]
    except KeyError:
        raise InvalidParameterError(
            f"The 'metric' parameter of {caller} must name a parity or odds gap for which "
            f"Falcon defines target groups ({', '.join(sorted(_KINDS))}). Got {metric!r} "
            "instead."
        ) from None


def _rates(
    hit: NDArray[np.bool_], where: NDArray[np.bool_], s: NDArray[np.int64], n_groups: int
) -> NDArray[np.float64]:
    """Per-group share of ``hit`` among rows ``where`` (NaN for a group without such rows)."""
    num = np.bincount(s[where & hit], minlength=n_groups).astype(np.float64)
    den = np.bincount(s[where], minlength=n_groups).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.maximum(den, 1.0), np.nan)


def _arg(rates: NDArray[np.float64], pick: str) -> int:
    if np.all(np.isnan(rates)):
        return 0
    return int(np.nanargmin(rates) if pick == "min" else np.nanargmax(rates))


def _gap(rates: NDArray[np.float64]) -> float:
    return 0.0 if np.all(np.isnan(rates)) else float(np.nanmax(rates) - np.nanmin(rates))


def target_groups(
    kind: str,
    y_true: NDArray[np.int64],
    y_pred: NDArray[np.int64],
    s: NDArray[np.int64],
    n_groups: int,
) -> list[tuple[int, int]]:
    """Return Falcon's target groups as ``(label, group code)`` pairs.

    Parameters
    ----------
    kind : {"dp", "eopp", "eodds"}
        The rule (:func:`target_kind` of the steering metric).
    y_true, y_pred : ndarray of int
        Validation labels and the current model's predictions.
    s : ndarray of int
        Validation group codes ``0..n_groups-1``.
    n_groups : int
        Number of groups. Ties go to the lowest group code.

    Examples
    --------
    >>> y = np.array([1, 0, 1, 0]); s = np.array([0, 0, 1, 1])
    >>> target_groups("dp", y, np.array([0, 0, 1, 1]), s, 2)
    [(1, 0), (0, 1)]
    """
    y_true, y_pred, s = np.asarray(y_true), np.asarray(y_pred), np.asarray(s, dtype=np.int64)
    everyone = np.ones(s.size, dtype=bool)
    if kind == "dp":
        sel = _rates(y_pred == 1, everyone, s, n_groups)
        return [(1, _arg(sel, "min")), (0, _arg(sel, "max"))]
    tpr = _rates(y_pred == 1, y_true == 1, s, n_groups)
    if kind == "eopp":
        return [(1, _arg(tpr, "min"))]
    fpr = _rates(y_pred == 1, y_true == 0, s, n_groups)
    if _gap(fpr) >= _gap(tpr):
        return [(0, _arg(fpr, "max"))]
    return [(1, _arg(tpr, "min"))]


def policy_order(
    p_label: NDArray[np.float64],
    positions: NDArray[np.int64],
    r: float,
    *,
    first: int | None = None,
) -> NDArray[np.int64]:
    """Order ``positions`` by ``|P(label) - (1 - r)|``, closest first, ties by position.

    Parameters
    ----------
    p_label : ndarray of float
        The model's probability of the target label for each row of ``positions``.
    positions : ndarray of int
        Pool positions of the available rows of the target group.
    r : float
        The policy.
    first : int or None, default=None
        Return only the first ``first`` positions of the order (all of them when None),
        sorting only the rows that can be among them.

    Examples
    --------
    >>> policy_order(np.array([0.9, 0.35, 0.2]), np.array([4, 7, 9]), 0.7).tolist()
    [7, 9, 4]
    >>> policy_order(np.array([0.9, 0.35, 0.2]), np.array([4, 7, 9]), 0.7, first=2).tolist()
    [7, 9]
    """
    distance = np.abs(np.asarray(p_label, dtype=np.float64) - (1.0 - r))
    positions = np.asarray(positions, dtype=np.int64)
    if first is not None and 0 < first < distance.size:
        distance, positions = _nearest(distance, positions, first)
    return positions[np.lexsort((positions, distance))][:first]


def _nearest(
    distance: NDArray[np.float64], positions: NDArray[np.int64], k: int
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Keep the rows no farther than the ``k``-th nearest (ties included): the first ``k``."""
    cut = np.partition(distance, k - 1)[k - 1]
    if np.isnan(cut):  # fewer than k numbers: NaN distances sort last, keep every row
        return distance, positions
    near = distance <= cut
    return distance[near], positions[near]
