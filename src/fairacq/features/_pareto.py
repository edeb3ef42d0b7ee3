"""Pareto fronts of the AUC-disparity trade-off and a comparison of two fronts.

A point is an (AUC, disparity) pair of one model; higher AUC and lower disparity are better.
A point is on the front when no other point is at least as good in both and better in one.
Two fronts are compared through their *attainment curves*: for a disparity budget ``d``, the
best AUC a front reaches with disparity at most ``d`` (minus infinity below its first point).
Paper 002 (§4, Fig. 2c/2f) draws DADI's front; the comparison with the static
fair-feature-selection front measures the introduction's claim that per-individual
acquisition beats one subset for everybody.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import check_consistent_length, check_no_nan
from fairacq.exceptions import InvalidDataError

__all__ = ["FrontComparison", "attainment", "compare_fronts", "pareto_front"]


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


@dataclass(frozen=True)
class FrontComparison:
    """Where one front (``a``) reaches a higher AUC than another (``b``) at equal disparity.

    Attributes
    ----------
    budgets : ndarray
        The disparity grid the attainment curves were compared on.
    auc_a, auc_b : ndarray
        Best AUC of each front within each budget (``-inf`` where a front has no point).
    a_better, b_better : tuple of (float, float)
        Maximal disparity intervals (grid end points) where one front's best AUC exceeds the
        other's by more than ``tol``.
    share_a_better, share_b_better : float
        Share of the grid points where each front is better.
    max_gain : float
        Largest ``auc_a - auc_b`` over budgets where both fronts have a point (NaN if none).
    """

    budgets: NDArray[np.float64]
    auc_a: NDArray[np.float64]
    auc_b: NDArray[np.float64]
    a_better: tuple[tuple[float, float], ...]
    b_better: tuple[tuple[float, float], ...]
    share_a_better: float
    share_b_better: float
    max_gain: float

    def describe(self, name_a: str = "a", name_b: str = "b") -> str:
        """One sentence naming the disparity ranges where each front is ahead."""

        def ranges(spans: Sequence[tuple[float, float]]) -> str:
            return ", ".join(f"[{lo:.3f}, {hi:.3f}]" for lo, hi in spans) or "nowhere"

        return (
            f"{name_a} has the higher AUC at disparity budgets {ranges(self.a_better)} "
            f"({100 * self.share_a_better:.0f}% of the grid); {name_b} at "
            f"{ranges(self.b_better)} ({100 * self.share_b_better:.0f}%)."
        )


def _spans(flags: NDArray[np.bool_], grid: NDArray[np.float64]) -> tuple[tuple[float, float], ...]:
    spans = []
    start: int | None = None
    for i, flag in enumerate(flags):
        if flag and start is None:
            start = i
        if not flag and start is not None:
            spans.append((float(grid[start]), float(grid[i - 1])))
            start = None
    if start is not None:
        spans.append((float(grid[start]), float(grid[-1])))
    return tuple(spans)


def compare_fronts(
    auc_a: ArrayLike,
    disparity_a: ArrayLike,
    auc_b: ArrayLike,
    disparity_b: ArrayLike,
    *,
    budgets: ArrayLike | None = None,
    n_grid: int = 201,
    tol: float = 0.0,
) -> FrontComparison:
    """Compare two sets of points by their best AUC at each disparity budget.

    Parameters
    ----------
    auc_a, disparity_a : array-like
        Points of front ``a`` (e.g. DADI over gamma).
    auc_b, disparity_b : array-like
        Points of front ``b`` (e.g. static fair feature selection over lambda).
    budgets : array-like or None, default=None
        Disparity budgets; by default ``n_grid`` evenly spaced values from 0 to the largest
        disparity of either front (beyond it both curves are flat).
    n_grid : int, default=201
        Size of the default grid.
    tol : float, default=0.0
        AUC margin a front must exceed the other by to count as better.

    Returns
    -------
    FrontComparison

    Raises
    ------
    InvalidDataError
        If a front is empty, or on NaN or mismatched lengths.

    Examples
    --------
    >>> c = compare_fronts([0.8, 0.9], [0.02, 0.1], [0.85], [0.05], budgets=[0.02, 0.05, 0.1])
    >>> c.a_better, c.b_better
    (((0.02, 0.02), (0.1, 0.1)), ((0.05, 0.05),))
    """
    a1, d1 = _points("compare_fronts", auc_a, disparity_a)
    a2, d2 = _points("compare_fronts", auc_b, disparity_b)
    if a1.size == 0 or a2.size == 0:
        raise InvalidDataError(
            "compare_fronts: a front has no points. Pass at least one (AUC, disparity) pair "
            "for each front."
        )
    if budgets is None:
        grid = np.linspace(0.0, float(max(d1.max(), d2.max())), n_grid)
    else:
        grid = np.sort(np.asarray(budgets, dtype=float).reshape(-1))
    best_a, best_b = attainment(a1, d1, grid), attainment(a2, d2, grid)
    a_wins = best_a > best_b + tol
    b_wins = best_b > best_a + tol
    both = np.isfinite(best_a) & np.isfinite(best_b)
    gain = float(np.max(best_a[both] - best_b[both])) if both.any() else float("nan")
    n = max(grid.size, 1)
    return FrontComparison(
        budgets=grid,
        auc_a=best_a,
        auc_b=best_b,
        a_better=_spans(a_wins, grid),
        b_better=_spans(b_wins, grid),
        share_a_better=float(a_wins.sum() / n),
        share_b_better=float(b_wins.sum() / n),
        max_gain=gain,
    )
