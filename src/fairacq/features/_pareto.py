"""Pareto fronts of the AUC-disparity trade-off and a comparison of two fronts.

A point is an (AUC, disparity) pair of one model; higher AUC and lower disparity are better.
A point is on the front when no other point is at least as good in both and better in one.
Two fronts are compared through their *attainment curves*: for a disparity budget ``d``, the
best AUC a front reaches with disparity at most ``d`` (minus infinity below its first point).
Bakker et al. (§4, Fig. 2c/2f) draws DADI's front; the comparison with the static
fair-feature-selection front measures the introduction's claim that per-individual
acquisition beats one subset for everybody.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq.exceptions import InvalidDataError
from fairacq.metrics import attainment

__all__ = ["FrontComparison", "compare_fronts"]


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
    # attainment() below checks lengths and NaNs and names the problem.
    a1, d1 = (np.asarray(v, dtype=float).reshape(-1) for v in (auc_a, disparity_a))
    a2, d2 = (np.asarray(v, dtype=float).reshape(-1) for v in (auc_b, disparity_b))
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
