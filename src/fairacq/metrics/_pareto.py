"""Pareto fronts of (AUC, disparity) points: the non-dominated set and the best AUC per budget.

Pure functions shared by the families that trade predictive performance against a fairness
metric (DADI's fronts, static feature selection) and by the plots in ``fairacq.reporting``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import check_consistent_length, check_no_nan

__all__ = ["attainment", "pareto_front"]


def _points(where: str, auc: ArrayLike, disparity: ArrayLike) -> tuple[NDArray[np.float64], ...]:
    a = np.asarray(auc, dtype=float).reshape(-1)
    d = np.asarray(disparity, dtype=float).reshape(-1)
    check_consistent_length(where, auc=a, disparity=d)
    check_no_nan(where, "auc", a)
    check_no_nan(where, "disparity", d)
    return a, d


def pareto_front(auc: ArrayLike, disparity: ArrayLike) -> NDArray[np.int64]:
    """Return the indices of the non-dominated points, by increasing disparity.

    Point ``j`` dominates point ``i`` when ``auc[j] >= auc[i]`` and
    ``disparity[j] <= disparity[i]`` with at least one strict inequality. Of several equal
    points, the first (lowest index) is kept.

    Parameters
    ----------
    auc : array-like of shape (n,)
        Predictive performance of each point (higher is better).
    disparity : array-like of shape (n,)
        Unfairness of each point (lower is better).

    Returns
    -------
    ndarray of int64
        Indices into the inputs; along them disparity and AUC both strictly increase.

    Raises
    ------
    InvalidDataError
        On different lengths or NaN values.

    Examples
    --------
    >>> pareto_front([0.8, 0.7, 0.9, 0.6], [0.10, 0.05, 0.20, 0.08]).tolist()
    [1, 0, 2]
    """
    a, d = _points("pareto_front", auc, disparity)
    # Sort by disparity up, then AUC down, then index: a sweep keeps each strict AUC record.
    order = np.lexsort((np.arange(a.size), -a, d))
    keep: list[int] = []
    best = -np.inf
    for i in order:
        if a[i] > best:
            keep.append(int(i))
            best = float(a[i])
    return np.asarray(keep, dtype=np.int64)


def attainment(auc: ArrayLike, disparity: ArrayLike, budgets: ArrayLike) -> NDArray[np.float64]:
    """Best AUC among the points with disparity at most each budget.

    Parameters
    ----------
    auc, disparity : array-like of shape (n,)
        The points (any points; dominated ones never change the result).
    budgets : array-like of shape (m,)
        Disparity budgets.

    Returns
    -------
    ndarray of shape (m,)
        ``max{auc[i] : disparity[i] <= budget}``, or ``-inf`` where no point fits.

    Raises
    ------
    InvalidDataError
        On different lengths or NaN values.

    Examples
    --------
    >>> attainment([0.8, 0.7], [0.1, 0.05], [0.0, 0.05, 0.2]).tolist()
    [-inf, 0.7, 0.8]
    """
    a, d = _points("attainment", auc, disparity)
    b = np.asarray(budgets, dtype=float).reshape(-1)
    if a.size == 0:
        return np.full(b.size, -np.inf)
    front = pareto_front(a, d)
    fd, fa = d[front], a[front]
    pos = np.searchsorted(fd, b, side="right") - 1
    return np.where(pos >= 0, fa[np.clip(pos, 0, None)], -np.inf)
